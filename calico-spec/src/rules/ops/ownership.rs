//! `OP06xx`: what the tigera-operator owns and rewrites, and GitOps.
//!
//! Facts (tigera-operator v1.42): with `clusterRoutingMode` set, `setClusterRoutingOnFelixConfiguration`
//! and `setClusterRoutingOnBGPConfiguration` (`pkg/controller/installation/core_controller.go`)
//! write `programClusterRoutes` on every reconcile; the IP pool controller
//! (`pkg/controller/ippool/pool_controller.go`) owns every IPPool labelled
//! `app.kubernetes.io/managed-by: tigera-operator` and deletes those whose `cidr` is not, as
//! text, the `cidr` of a pool in the Installation.

use serde_json::Value;

use super::dataplane::Install;
use super::{Doc, Facts, Findings};
use crate::rules::catalogue as c;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    let Some(install) = Install::of(facts) else {
        return;
    };
    program_cluster_routes_overwritten(facts, &install, out);
    labelled_pool_not_listed(facts, &install, out);
}

/// `OP0601`: `programClusterRoutes` that `clusterRoutingMode` makes the operator overwrite.
fn program_cluster_routes_overwritten(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    out: &mut Findings,
) {
    let Some(mode) = install.network.str("clusterRoutingMode") else {
        return;
    };
    let felix_programs = mode == "Felix";
    let felix_wants = if felix_programs {
        "Enabled"
    } else {
        "Disabled"
    };
    let bird_wants = if felix_programs {
        "Disabled"
    } else {
        "Enabled"
    };
    let targets: [(Option<&Doc<'_>>, &str, &str); 2] = [
        (
            facts.default_felix_configuration(),
            "FelixConfiguration",
            felix_wants,
        ),
        (
            facts.default_bgp_configuration(),
            "BGPConfiguration",
            bird_wants,
        ),
    ];
    for (doc, kind, wanted) in targets {
        let Some(doc) = doc else {
            continue;
        };
        let spec = doc.spec();
        let Some(written) = spec.str("programClusterRoutes") else {
            continue;
        };
        if written == wanted {
            continue;
        }
        out.report(
            doc.input_idx,
            &c::OP_PROGRAM_CLUSTER_ROUTES_OVERWRITTEN,
            spec.at("programClusterRoutes"),
            format!(
                "{kind} `default` sets `programClusterRoutes: {written}`, but the Installation's `clusterRoutingMode: {mode}` makes the operator write `{wanted}` on every reconcile"
            ),
            Some("remove `programClusterRoutes` and choose who programs the routes with `spec.calicoNetwork.clusterRoutingMode`".into()),
        );
    }
}

/// `OP0602`: an IPPool labelled as the operator's whose CIDR the Installation does not list.
fn labelled_pool_not_listed(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    // Only a list written in the Installation is known; without one the operator chooses.
    let Some(listed) = install
        .doc
        .value
        .pointer("/spec/calicoNetwork/ipPools")
        .and_then(Value::as_array)
    else {
        return;
    };
    let cidrs: Vec<&str> = listed
        .iter()
        .filter_map(|pool| pool.get("cidr").and_then(Value::as_str))
        .collect();
    for pool in &facts.gathered.ip_pools {
        let labelled = pool
            .value
            .pointer("/metadata/labels")
            .and_then(|labels| labels.get("app.kubernetes.io/managed-by"))
            .and_then(Value::as_str)
            == Some("tigera-operator");
        let spec = pool.spec();
        let Some(cidr) = spec.str("cidr") else {
            continue;
        };
        if !labelled || cidrs.contains(&cidr) {
            continue;
        }
        out.report(
            pool.input_idx,
            &c::OP_OPERATOR_POOL_NOT_LISTED,
            "metadata.labels",
            format!(
                "IPPool `{}` carries the label `app.kubernetes.io/managed-by: tigera-operator`, so the operator owns it, and its cidr `{cidr}` is not the cidr of any pool in the Installation's `spec.calicoNetwork.ipPools`: the operator deletes it",
                pool.name
            ),
            Some(format!(
                "remove the label if you manage this pool yourself, or list `cidr: {cidr}` (spelt the same) in the Installation"
            )),
        );
    }
}
