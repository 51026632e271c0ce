//! `OP07xx`: node address autodetection, judged against the Nodes when they are given.
//!
//! Facts: the operator turns `nodeAddressAutodetectionV4`/`V6` into calico-node's
//! `IP`/`IP6` and `IP_AUTODETECTION_METHOD` (tigera-operator v1.42 `pkg/render/node.go`,
//! `getAutodetectionMethod`: the first of interface, skipInterface, canReach, `firstFound: true`,
//! cidrs, `kubernetes: NodeInternalIP`; none of them means `none`). calico-node
//! (`node/pkg/lifecycle/startup/startup.go`, `autodetection/autodetection_methods.go`, Calico
//! v3.32) exits when a family set to autodetect finds no address, and when another Node already
//! has the address it found; it records the address in the Node's annotation
//! `projectcalico.org/IPv4Address` (`IPv6Address`).

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde_json::Value;

use super::dataplane::Install;
use super::{ContextDocument, Facts, Findings, Node};
use crate::rules::Fields;
use crate::rules::catalogue as c;
use crate::vocab::cidr::{self, Family};

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    let Some(install) = Install::of(facts) else {
        return;
    };
    for family in [Family::V4, Family::V6] {
        let detection = Detection::of(&install, family);
        family_without_pool(facts, &install, &detection, out);
        no_method(facts, &install, &detection, out);
        internal_ip_missing(facts, &install, &detection, out);
        first_found_elsewhere(facts, &install, &detection, out);
        first_found_ambiguous(facts, &install, &detection, out);
        target_of_other_family(&install, &detection, out);
        shared_address(facts, &install, &detection, out);
    }
}

/// The method `getAutodetectionMethod` picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method<'f> {
    Interface,
    SkipInterface,
    CanReach(&'f str),
    FirstFound,
    Cidrs,
    NodeInternalIp,
}

/// One family's autodetection setting after the operator's defaults.
struct Detection<'f> {
    family: Family,
    /// The setting, when the Installation has one for this family.
    fields: Option<Fields<'f, 'static>>,
    path: &'static str,
    method: Option<Method<'f>>,
}

impl<'f> Detection<'f> {
    fn of(install: &Install<'f, '_>, family: Family) -> Detection<'f> {
        let key = match family {
            Family::V4 => "nodeAddressAutodetectionV4",
            Family::V6 => "nodeAddressAutodetectionV6",
        };
        let path = match family {
            Family::V4 => "spec.calicoNetwork.nodeAddressAutodetectionV4",
            Family::V6 => "spec.calicoNetwork.nodeAddressAutodetectionV6",
        };
        let fields = install
            .network
            .raw(key)
            .filter(|value| value.is_object())
            .map(|value| Fields::of(Some(value), path));
        let method = fields.and_then(|fields| {
            let text = |key: &str| fields.str(key).filter(|text| !text.is_empty());
            if text("interface").is_some() {
                Some(Method::Interface)
            } else if text("skipInterface").is_some() {
                Some(Method::SkipInterface)
            } else if let Some(target) = text("canReach") {
                Some(Method::CanReach(target))
            } else if fields.bool("firstFound") == Some(true) {
                Some(Method::FirstFound)
            } else if fields.list("cidrs").is_some_and(|list| !list.is_empty()) {
                Some(Method::Cidrs)
            } else if fields.str("kubernetes") == Some("NodeInternalIP") {
                Some(Method::NodeInternalIp)
            } else {
                None
            }
        });
        Detection {
            family,
            fields,
            path,
            method,
        }
    }

    fn name(&self) -> &'static str {
        match self.family {
            Family::V4 => "IPv4",
            Family::V6 => "IPv6",
        }
    }

    /// The Node annotation calico-node writes the address it chose into.
    fn annotation(&self) -> &'static str {
        match self.family {
            Family::V4 => "projectcalico.org/IPv4Address",
            Family::V6 => "projectcalico.org/IPv6Address",
        }
    }
}

fn family_of(address: &IpAddr) -> Family {
    match address {
        IpAddr::V4(_) => Family::V4,
        IpAddr::V6(_) => Family::V6,
    }
}

/// Whether any pool of the run (IPPool objects and the Installation's pools) is of `family`.
fn has_pool(facts: &Facts<'_>, family: Family) -> bool {
    facts.pools.iter().any(|pool| pool.family() == family)
}

/// The Linux Nodes (calico-node runs there; Windows nodes run their own).
fn linux_nodes<'n, 'a>(facts: &'n Facts<'a>) -> impl Iterator<Item = &'n Node<'a>> {
    facts.nodes.iter().filter(|node| {
        node.doc
            .value
            .pointer("/status/nodeInfo/operatingSystem")
            .and_then(Value::as_str)
            .is_none_or(|os| os == "linux")
    })
}

/// The address in a Node's Calico annotation (`10.0.0.5/24` -> `10.0.0.5`).
fn annotated_address(node: &Node<'_>, annotation: &str) -> Option<IpAddr> {
    let text = node
        .doc
        .value
        .pointer("/metadata/annotations")
        .and_then(|annotations| annotations.get(annotation))
        .and_then(Value::as_str)?;
    text.split('/').next()?.parse().ok()
}

/// The Node's `InternalIP` addresses of a family.
fn internal_ips(node: &Node<'_>, family: Family) -> Vec<IpAddr> {
    node.addresses
        .iter()
        .filter(|(kind, address)| *kind == "InternalIP" && family_of(address) == family)
        .map(|(_, address)| *address)
        .collect()
}

/// `OP0701`: autodetection set for a family no pool uses (IPv6: the operator never defaults it
/// without an IPv6 pool, and calico-node then requires an IPv6 address on every node).
fn family_without_pool(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    detection: &Detection<'_>,
    out: &mut Findings,
) {
    // Without a pool list the operator may still make an IPv6 pool (kubeadm's dual-stack
    // podSubnet), so only a listed set of pools is judged.
    if detection.family != Family::V6
        || detection.method.is_none()
        || !install.lists_pools()
        || has_pool(facts, Family::V6)
    {
        return;
    }
    if facts.has_nodes()
        && linux_nodes(facts).all(|node| {
            node.addresses
                .iter()
                .any(|(_, address)| family_of(address) == Family::V6)
        })
    {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_AUTODETECTION_WITHOUT_POOL,
        detection.path,
        "`nodeAddressAutodetectionV6` makes calico-node require an IPv6 address on every node, and no IPv6 pool uses it: on a node without IPv6, calico-node exits (\"failed to autodetect an IPv6 address\")",
        Some("remove `nodeAddressAutodetectionV6`, or add the IPv6 pool it is meant for".into()),
    );
}

/// `OP0702`: an autodetection block that names no method.
fn no_method(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    detection: &Detection<'_>,
    out: &mut Findings,
) {
    if detection.fields.is_none() || detection.method.is_some() {
        return;
    }
    let needed =
        has_pool(facts, detection.family) || (detection.family == Family::V4 && install.bpf());
    if !needed {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_AUTODETECTION_NO_METHOD,
        detection.path,
        format!(
            "`{}` is set but names no method (`firstFound: false` and empty fields count as none), so the operator turns {} autodetection off: nodes get no Calico {} address although a pool of that family exists, and a node with no address at all makes calico-node exit",
            detection.path.rsplit('.').next().unwrap_or_default(),
            detection.name(),
            detection.name()
        ),
        Some("name one method: `kubernetes: NodeInternalIP`, `interface`, `cidrs`, `canReach` or `firstFound: true`".into()),
    );
}

/// `OP0703`: `kubernetes: NodeInternalIP` on Nodes without an InternalIP of the family.
fn internal_ip_missing(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    detection: &Detection<'_>,
    out: &mut Findings,
) {
    if detection.method != Some(Method::NodeInternalIp) {
        return;
    }
    if !facts.has_nodes() {
        out.lacks(&c::OP_NODE_INTERNAL_IP_MISSING, ContextDocument::Nodes);
        return;
    }
    let missing: Vec<&str> = linux_nodes(facts)
        .filter(|node| internal_ips(node, detection.family).is_empty())
        .map(|node| node.doc.name)
        .collect();
    if missing.is_empty() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_NODE_INTERNAL_IP_MISSING,
        detection.fields.map_or_else(|| detection.path.to_owned(), |fields| fields.at("kubernetes")),
        format!(
            "`kubernetes: NodeInternalIP` takes each node's {} InternalIP, and Node{} {} report{} none: calico-node finds no address there and exits",
            detection.name(),
            if missing.len() == 1 { "" } else { "s" },
            quoted(&missing),
            if missing.len() == 1 { "s" } else { "" },
        ),
        Some(format!(
            "give the kubelet a {} `--node-ip` on those nodes, or use another method (`cidrs`, `interface`)",
            detection.name()
        )),
    );
}

/// `OP0705`: first-found chose an address that is none of the Node's addresses.
fn first_found_elsewhere(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    detection: &Detection<'_>,
    out: &mut Findings,
) {
    if detection.method != Some(Method::FirstFound) {
        return;
    }
    if !facts.has_nodes() {
        out.lacks(&c::OP_FIRST_FOUND_ELSEWHERE, ContextDocument::Nodes);
        return;
    }
    let elsewhere: Vec<String> = linux_nodes(facts)
        .filter_map(|node| {
            let chosen = annotated_address(node, detection.annotation())?;
            let known = node.addresses.iter().any(|(_, address)| *address == chosen);
            (!known && !node.addresses.is_empty())
                .then(|| format!("`{}` ({chosen})", node.doc.name))
        })
        .collect();
    if elsewhere.is_empty() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_FIRST_FOUND_ELSEWHERE,
        detection.fields.map_or_else(|| detection.path.to_owned(), |fields| fields.at("firstFound")),
        format!(
            "first-found chose {} addresses the Nodes do not report on {}: calico-node took another interface (a bridge, VPN, management or node-local DNS address), and tunnels and BGP run over it",
            detection.name(),
            elsewhere.join(", ")
        ),
        Some("use `kubernetes: NodeInternalIP` (or `interface`/`cidrs` naming the node network)".into()),
    );
}

/// `OP0706`: first-found on Nodes with several InternalIPs of the family.
fn first_found_ambiguous(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    detection: &Detection<'_>,
    out: &mut Findings,
) {
    if detection.method != Some(Method::FirstFound) || !facts.has_nodes() {
        return;
    }
    let ambiguous: Vec<&str> = linux_nodes(facts)
        .filter(|node| internal_ips(node, detection.family).len() > 1)
        .map(|node| node.doc.name)
        .collect();
    if ambiguous.is_empty() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_FIRST_FOUND_AMBIGUOUS,
        detection.fields.map_or_else(|| detection.path.to_owned(), |fields| fields.at("firstFound")),
        format!(
            "first-found takes the first usable interface, and Node{} {} report{} several {} InternalIPs: which one Calico uses depends on interface order, not on the network you meant",
            if ambiguous.len() == 1 { "" } else { "s" },
            quoted(&ambiguous),
            if ambiguous.len() == 1 { "s" } else { "" },
            detection.name()
        ),
        Some("use `kubernetes: NodeInternalIP`, `interface` or `cidrs` to name the node network".into()),
    );
}

/// `OP0707`: `canReach` or `cidrs` of the other family.
fn target_of_other_family(
    install: &Install<'_, '_>,
    detection: &Detection<'_>,
    out: &mut Findings,
) {
    let Some(fields) = detection.fields else {
        return;
    };
    let (key, wrong) = match detection.method {
        Some(Method::CanReach(target)) => {
            let wrong = target
                .parse::<IpAddr>()
                .is_ok_and(|address| family_of(&address) != detection.family);
            ("canReach", wrong.then(|| target.to_owned()))
        }
        Some(Method::Cidrs) => {
            let entries: Vec<&str> = fields
                .list("cidrs")
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let all_other = !entries.is_empty()
                && entries.iter().all(|entry| {
                    cidr::parse_cidr(entry)
                        .is_ok_and(|net| Family::of_net(&net) != detection.family)
                });
            ("cidrs", all_other.then(|| entries.join(", ")))
        }
        _ => return,
    };
    let Some(wrong) = wrong else {
        return;
    };
    out.report(
        install.doc.input_idx,
        &c::OP_AUTODETECTION_OTHER_FAMILY,
        fields.at(key),
        format!(
            "`{key}: {wrong}` in the {} autodetection names the other family: calico-node finds no {} address that way and exits",
            detection.name(),
            detection.name()
        ),
        Some(format!("give `{key}` a {} target", detection.name())),
    );
}

/// `OP0704`: two Nodes that would use one Calico address.
fn shared_address(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    detection: &Detection<'_>,
    out: &mut Findings,
) {
    if !facts.has_nodes() {
        if detection.method.is_some() {
            out.lacks(&c::OP_NODES_SHARE_ADDRESS, ContextDocument::Nodes);
        }
        return;
    }
    let mut by_address: BTreeMap<IpAddr, Vec<&str>> = BTreeMap::new();
    let internal = detection.method == Some(Method::NodeInternalIp);
    for node in linux_nodes(facts) {
        let address = if internal {
            internal_ips(node, detection.family).first().copied()
        } else {
            annotated_address(node, detection.annotation())
        };
        if let Some(address) = address.filter(|address| family_of(address) == detection.family) {
            by_address.entry(address).or_default().push(node.doc.name);
        }
    }
    let source = if internal {
        "InternalIP (which `kubernetes: NodeInternalIP` takes)".to_owned()
    } else {
        format!("Calico address (annotation `{}`)", detection.annotation())
    };
    for (address, names) in by_address.into_iter().filter(|(_, names)| names.len() > 1) {
        out.report(
            install.doc.input_idx,
            &c::OP_NODES_SHARE_ADDRESS,
            detection.path,
            format!(
                "Nodes {} have the same {} {source}, {address}: calico-node refuses to start on a node whose address another Node already uses",
                quoted(&names),
                detection.name()
            ),
            Some("choose an autodetection method that yields each node's own address (`cidrs` or `interface` naming the node network)".into()),
        );
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
