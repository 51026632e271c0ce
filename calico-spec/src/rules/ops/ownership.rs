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
use super::{Doc, Facts, Findings, Pool, PoolSource};
use crate::rules::catalogue as c;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    let Some(install) = Install::of(facts) else {
        return;
    };
    program_cluster_routes_overwritten(facts, &install, out);
    labelled_pool_not_listed(facts, &install, out);
    unowned_pool_with_installation_cidr(facts, &install, out);
    felix_fields_overridden(facts, &install, out);
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
        .get("spec")
        .and_then(|spec| spec.get("calicoNetwork"))
        .and_then(|network| network.get("ipPools"))
        .and_then(Value::as_array)
    else {
        return;
    };
    let cidrs: Vec<&str> = listed
        .iter()
        .filter_map(|pool| pool.get("cidr").and_then(Value::as_str))
        .collect();
    for pool in &facts.gathered.ip_pools {
        if !labelled_as_operators(pool) {
            continue;
        }
        let spec = pool.spec();
        let Some(cidr) = spec.str("cidr") else {
            continue;
        };
        if cidrs.contains(&cidr) {
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

/// Whether an IPPool carries the operator's ownership label.
fn labelled_as_operators(pool: &Doc<'_>) -> bool {
    // `get` rather than a JSON pointer, which allocates per step and runs for every pool.
    pool.value
        .get("metadata")
        .and_then(|meta| meta.get("labels"))
        .and_then(|labels| labels.get("app.kubernetes.io/managed-by"))
        .and_then(Value::as_str)
        == Some("tigera-operator")
}

/// The settings in which an IPPool object differs from the Installation's entry, as the
/// operator compares them (`FromProjectCalico`, then a deep comparison).
fn differences(object: &Pool<'_>, entry: &Pool<'_>) -> Vec<&'static str> {
    let checks = [
        ("blockSize", object.block_size == entry.block_size),
        ("encapsulation", object.encap == entry.encap),
        ("natOutgoing", object.nat_outgoing == entry.nat_outgoing),
        (
            "nodeSelector",
            object.node_selector.trim() == entry.node_selector.trim(),
        ),
        (
            "disableBGPExport",
            object.disable_bgp_export == entry.disable_bgp_export,
        ),
        (
            "disabled / disableNewAllocations",
            object.disabled == entry.disabled,
        ),
        (
            "allowedUses",
            (object.workload, object.tunnel, object.load_balancer)
                == (entry.workload, entry.tunnel, entry.load_balancer),
        ),
        ("assignmentMode", object.manual == entry.manual),
    ];
    checks
        .into_iter()
        .filter(|(_, same)| !same)
        .map(|(name, _)| name)
        .collect()
}

/// `OP0603`: an unlabelled IPPool with an Installation pool's name and CIDR and other settings.
fn unowned_pool_with_installation_cidr(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    out: &mut Findings,
) {
    // Without a written list the operator's pools are its own guesses.
    if !install.lists_pools() {
        return;
    }
    let entries: Vec<&Pool<'_>> = facts
        .pools
        .iter()
        .filter(|pool| pool.source == PoolSource::Installation)
        .collect();
    for doc in &facts.gathered.ip_pools {
        // Another name with the same CIDR is an overlap (`CR7001`), refused on its own.
        let Some(entry) = entries.iter().find(|entry| entry.name == doc.name) else {
            continue;
        };
        if labelled_as_operators(doc) {
            continue;
        }
        let Some(object) = super::ip_pool_of(doc).filter(|object| object.net == entry.net) else {
            continue;
        };
        let differ = differences(&object, entry);
        if differ.is_empty() {
            continue;
        }
        out.report(
            doc.input_idx,
            &c::OP_UNOWNED_POOL_WITH_INSTALLATION_CIDR,
            "metadata.labels",
            format!(
                "IPPool `{}` ({}) has no `app.kubernetes.io/managed-by: tigera-operator` label and differs from the Installation's pool of that CIDR in {}: the operator will not take it over, refuses to apply the Installation's settings and stays Degraded (\"Cannot update an IP pool not owned by the operator\")",
                doc.name,
                object.net,
                differ.join(", ")
            ),
            Some("make the IPPool match the Installation's entry, label it `app.kubernetes.io/managed-by: tigera-operator`, or drop the pool from the Installation".into()),
        );
    }
}

/// The FelixConfiguration fields calico-node's environment sets under this Installation, with
/// the value the operator gives them (`pkg/render/node.go`); Felix prefers the environment.
fn operator_felix_env(install: &Install<'_, '_>) -> Vec<(&'static str, String)> {
    let network = &install.network;
    let mut env: Vec<(&'static str, String)> = vec![
        ("defaultEndpointToHostAction", "Accept".into()),
        ("healthEnabled", "true".into()),
    ];
    let v6 = network
        .raw("nodeAddressAutodetectionV6")
        .and_then(Value::as_object)
        .is_some_and(|method| {
            method
                .iter()
                .any(|(key, value)| key != "firstFound" || value.as_bool() == Some(true))
        });
    env.push(("ipv6Support", v6.to_string()));
    if let Some(mtu) = network.int("mtu") {
        let mut fields = vec!["vxlanMTU", "wireguardMTU"];
        if network.str("bgp") == Some("Enabled") {
            fields.push("ipipMTU");
        }
        if v6 {
            fields.extend(["vxlanMTUV6", "wireguardMTUV6"]);
        }
        env.extend(fields.into_iter().map(|field| (field, mtu.to_string())));
    }
    match install.cni() {
        Some("AmazonVPC") => env.extend([
            ("interfacePrefix", "eni".into()),
            ("iptablesMangleAllowAction", "Return".into()),
        ]),
        Some("GKE") => env.extend([
            ("interfacePrefix", "gke".into()),
            ("iptablesMangleAllowAction", "Return".into()),
            ("iptablesFilterAllowAction", "Return".into()),
        ]),
        Some("AzureVNET") => env.push(("interfacePrefix", "azv".into())),
        _ => {}
    }
    if install.cni().is_some_and(|cni| cni != "Calico") {
        env.push(("routeSource", "WorkloadIPs".into()));
    }
    if let Some(port) = install.spec.int("nodeMetricsPort") {
        env.extend([
            ("prometheusMetricsEnabled", "true".into()),
            ("prometheusMetricsPort", port.to_string()),
        ]);
    }
    env
}

/// A FelixConfiguration value as text, for comparing with an environment variable.
fn as_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// `OP0604`: a FelixConfiguration field that calico-node's environment overrides.
fn felix_fields_overridden(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    let env = operator_felix_env(install);
    for felix in &facts.gathered.felix_configurations {
        let spec = felix.spec();
        for (field, forced) in &env {
            let Some(written) = spec.raw(field).and_then(as_text) else {
                continue;
            };
            // Felix reads actions and booleans without regard to case.
            if written.eq_ignore_ascii_case(forced) {
                continue;
            }
            out.report(
                felix.input_idx,
                &c::OP_FELIX_FIELD_OVERRIDDEN_BY_OPERATOR,
                spec.at(field),
                format!(
                    "FelixConfiguration `{}` sets `{field}: {written}`, but the operator starts calico-node with this setting as `{forced}` in its environment, which Felix prefers: the value here is ignored",
                    felix.name
                ),
                Some("set it through the Installation where it has a field (`mtu`, the pools and IPv6 autodetection, `nodeMetricsPort`), or remove it here".into()),
            );
        }
    }
}
