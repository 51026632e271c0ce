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
    advertised_without_bgp(facts, out);
    lb_pool_without_router(facts, out);
    cluster_ips_not_covered(facts, out);
}

/// The number of addresses in `net`, saturating at `u128::MAX` for `::/0`.
fn size(net: &IpNet) -> u128 {
    let host_bits = u32::from(net.max_prefix_len() - net.prefix_len());
    1u128.checked_shl(host_bits).unwrap_or(u128::MAX)
}

/// `OP0406`: advertised `serviceClusterIPs` that leave part of the cluster's Service range out.
fn cluster_ips_not_covered(facts: &Facts<'_>, out: &mut Findings) {
    let Some(config) = facts.default_bgp_configuration() else {
        return;
    };
    let spec = config.spec();
    let advertised = service_cidrs(&spec, "serviceClusterIPs");
    if advertised.is_empty() {
        return;
    }
    // The Service range is known from kubeadm-config (or a ClusterNetwork), which also gives
    // the pod subnets; otherwise `service_cidrs` holds only the assumed default.
    if facts.ctx.pod_cidrs.is_none() {
        out.lacks(
            &c::OP_CLUSTER_IPS_NOT_COVERED,
            ContextDocument::KubeadmConfig,
        );
        return;
    }
    for range in &facts.ctx.service_cidrs {
        let family = cidr::Family::of_net(range);
        // A family left out entirely is a choice, not a narrow range.
        if !advertised
            .iter()
            .any(|listed| cidr::Family::of_net(listed) == family)
        {
            continue;
        }
        if advertised.iter().any(|listed| listed.contains(range)) {
            continue;
        }
        // Several listed parts may cover the range together.
        let inside: u128 = advertised
            .iter()
            .filter(|listed| range.contains(*listed))
            .map(size)
            .fold(0, u128::saturating_add);
        if inside >= size(range) {
            continue;
        }
        let listed: Vec<String> = advertised.iter().map(ToString::to_string).collect();
        out.report(
            config.input_idx,
            &c::OP_CLUSTER_IPS_NOT_COVERED,
            spec.at("serviceClusterIPs"),
            format!(
                "`serviceClusterIPs` advertises {} but the cluster's Service range is {range}: ClusterIPs outside the advertised ranges are unreachable from the routers",
                listed.join(", ")
            ),
            Some(format!("advertise `cidr: {range}`, the range the API server assigns ClusterIPs from")),
        );
    }
}

/// `OP0405`: LoadBalancer addresses are advertised, but to no router.
fn lb_pool_without_router(facts: &Facts<'_>, out: &mut Findings) {
    // A run that describes the network (an Installation with BGP), and peers with no router.
    if facts.installation_bgp() != Some(true) || facts.peers_with_router() {
        return;
    }
    let Some(config) = facts.default_bgp_configuration() else {
        return;
    };
    let advertised = service_cidrs(&config.spec(), "serviceLoadBalancerIPs");
    for pool in facts.pools.iter().filter(|pool| {
        pool.load_balancer
            && !pool.disabled
            && advertised
                .iter()
                .any(|range| range.contains(&pool.net) || *range == pool.net)
    }) {
        out.report(
            pool.input_idx,
            &c::OP_LB_POOL_WITHOUT_ROUTER,
            pool.at("cidr", "cidr"),
            format!(
                "LoadBalancer pool {} is advertised, but no BGPPeer names a router (`peerIP`): only the cluster's own nodes learn the routes",
                pool.describe()
            ),
            Some("add a BGPPeer for the router the clients sit behind (`peerIP`, `asNumber`)".into()),
        );
    }
}

/// `OP0404`: BGPConfiguration advertises Service ranges while the Installation runs no BGP.
fn advertised_without_bgp(facts: &Facts<'_>, out: &mut Findings) {
    if facts.installation_bgp() != Some(false) {
        return;
    }
    let Some(config) = facts.default_bgp_configuration() else {
        return;
    };
    let spec = config.spec();
    for key in SERVICE_LISTS {
        if service_cidrs(&spec, key).is_empty() {
            continue;
        }
        out.report(
            config.input_idx,
            &c::OP_ADVERTISED_WITHOUT_BGP,
            spec.at(key),
            format!("`{key}` lists ranges to advertise, but the Installation has `bgp: Disabled`, so no BGP speaker runs to advertise them"),
            Some("enable BGP in the Installation (`spec.calicoNetwork.bgp: Enabled`) and peer with the routers, or remove the list".into()),
        );
    }
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
        let Some((node, _, address)) = facts.node_address_in(&pool.net) else {
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
    for key in SERVICE_LISTS {
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

/// The BGPConfiguration lists of Service ranges BIRD advertises.
const SERVICE_LISTS: [&str; 3] = [
    "serviceClusterIPs",
    "serviceExternalIPs",
    "serviceLoadBalancerIPs",
];

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
