//! `OP04xx`: LoadBalancer and service advertisement.

use ipnet::IpNet;
use serde_json::Value;

use super::{Facts, Findings};
use crate::rules::catalogue as c;
use crate::vocab::cidr;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    lb_pool_not_advertised(facts, out);
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
