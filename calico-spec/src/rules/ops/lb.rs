//! `OP04xx`: LoadBalancer and service advertisement.

use ipnet::IpNet;
use serde_json::Value;

use super::{ContextDocument, Facts, Findings};
use crate::rules::catalogue as c;
use crate::vocab::cidr;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    lb_pool_not_advertised(facts, out);
    lb_pool_holds_node_address(facts, out);
    advertised_range_overlaps_pods(facts, out);
}

/// `OP0402`: a LoadBalancer pool that contains an address a Node has.
fn lb_pool_holds_node_address(facts: &Facts<'_>, out: &mut Findings) {
    let lb_pools = facts
        .pools
        .iter()
        .filter(|pool| pool.load_balancer && !pool.disabled);
    if !facts.has_nodes() {
        if lb_pools.clone().next().is_some() {
            out.lacks(&c::OP_LB_POOL_HOLDS_NODE_ADDRESS, ContextDocument::Nodes);
        }
        return;
    }
    for pool in lb_pools {
        let Some((node, address)) = facts.nodes.iter().find_map(|node| {
            node.addresses
                .iter()
                .find(|(_, address)| pool.net.contains(address))
                .map(|(_, address)| (node, address))
        }) else {
            continue;
        };
        out.report(
            pool.input_idx,
            &c::OP_LB_POOL_HOLDS_NODE_ADDRESS,
            pool.at("cidr", "cidr"),
            format!(
                "LoadBalancer pool {} contains {address}, an address of Node `{}`: a Service can be given it",
                pool.describe(),
                node.doc.name
            ),
            Some("give LoadBalancer pools a range outside the nodes' subnets (or exclude the nodes' addresses)".into()),
        );
    }
}

/// `OP0403`: a Service range BGP advertises overlaps a pod pool.
fn advertised_range_overlaps_pods(facts: &Facts<'_>, out: &mut Findings) {
    let Some(config) = facts.default_bgp_configuration() else {
        return;
    };
    let spec = config.spec();
    for key in [
        "serviceClusterIPs",
        "serviceExternalIPs",
        "serviceLoadBalancerIPs",
    ] {
        for (idx, range) in service_cidrs(&spec, key).iter().enumerate() {
            let Some(pool) = facts
                .pools
                .iter()
                .find(|pool| pool.workload && cidr::overlaps(&pool.net, range))
            else {
                continue;
            };
            out.report(
                config.input_idx,
                &c::OP_ADVERTISED_RANGE_OVERLAPS_PODS,
                crate::source::join_key(&crate::source::join_index(&spec.at(key), idx), "cidr"),
                format!(
                    "`{key}` advertises {range}, which overlaps pod pool {}: every node announces the range, and routers send pod traffic for it to any node",
                    pool.describe()
                ),
                Some("advertise the Service ranges only, disjoint from the pod pools".into()),
            );
        }
    }
}

/// The CIDRs listed under `key` (`serviceLoadBalancerIPs`, ...) of a BGPConfiguration spec.
pub(super) fn service_cidrs(spec: &crate::rules::Fields<'_, '_>, key: &str) -> Vec<IpNet> {
    spec.list(key)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.get("cidr").and_then(Value::as_str))
        .filter_map(|text| cidr::parse_cidr(text).ok())
        .collect()
}

/// `OP0401`: a LoadBalancer pool whose addresses BGP never advertises.
fn lb_pool_not_advertised(facts: &Facts<'_>, out: &mut Findings) {
    let bgp = facts.installation_bgp();
    let config = facts.default_bgp_configuration();
    let advertised = config.map(|doc| service_cidrs(&doc.spec(), "serviceLoadBalancerIPs"));
    for pool in facts
        .pools
        .iter()
        .filter(|pool| pool.load_balancer && !pool.disabled)
    {
        if bgp == Some(false) {
            out.report(
                pool.input_idx,
                &c::OP_LB_POOL_NOT_ADVERTISED,
                pool.at("allowedUses", "allowedUses"),
                format!(
                    "LoadBalancer pool {} hands out addresses, but the Installation has `bgp: Disabled`, so nothing advertises them",
                    pool.describe()
                ),
                Some("enable BGP (`spec.calicoNetwork.bgp: Enabled`) and list the pool under BGPConfiguration `serviceLoadBalancerIPs`, or use another load balancer".into()),
            );
            continue;
        }
        let Some(advertised) = &advertised else {
            continue;
        };
        if advertised
            .iter()
            .any(|range| range.contains(&pool.net) || *range == pool.net)
        {
            continue;
        }
        out.report(
            pool.input_idx,
            &c::OP_LB_POOL_NOT_ADVERTISED,
            pool.at("cidr", "cidr"),
            format!(
                "LoadBalancer pool {} is not within BGPConfiguration `default`'s `serviceLoadBalancerIPs`, so Calico does not advertise the addresses it hands out",
                pool.describe()
            ),
            Some(format!(
                "add `- cidr: {}` to `spec.serviceLoadBalancerIPs` of BGPConfiguration `default`",
                pool.net
            )),
        );
    }
}
