//! The cross-checks between the cluster's side and a router ([`check`]), and the spec's own
//! router findings ([`check_spec`]).

use std::net::IpAddr;

use ipnet::IpNet;

use super::plan::exported_vxlan_pool;
use super::{
    ClusterSide, Family, GracefulRestart, MAX_STALEPATH_SECONDS, PeerGroup, RemoteAs, Router,
    Verdict,
};
use crate::cluster_network::{ClusterNetwork, VipSpeaker};
use crate::diag::{Diagnostic, Location};
use crate::rules::catalogue::{self as c, Rule};

fn finding(rule: &Rule, path: String, message: String, hint: Option<String>) -> Diagnostic {
    Diagnostic {
        severity: rule.severity,
        code: rule.code,
        path,
        message,
        hint,
        location: None,
    }
}

/// What the ClusterNetwork alone says about its routers (`RT0005`-`RT0007`): paths are
/// ClusterNetwork field paths, without positions.
pub fn check_spec(cluster_network: &ClusterNetwork, sides: &[ClusterSide]) -> Vec<Diagnostic> {
    let spec = &cluster_network.spec;
    let mut out = Vec::new();
    if sides.is_empty() {
        return out;
    }
    for (i, pool) in spec.pod_pools.iter().enumerate() {
        if exported_vxlan_pool(pool) {
            out.push(finding(
                &c::ROUTER_POD_POOL_EXPORTED,
                format!("spec.podPools[{i}].disableBGPExport"),
                format!(
                    "pod pool `{}` ({}) is announced to the router, whose policy refuses it",
                    pool.name, pool.cidr
                ),
                Some("set `disableBGPExport: true`: its VXLAN routes do not need BGP".to_owned()),
            ));
        }
    }
    for (i, net) in spec
        .bgp
        .advertise
        .service_load_balancer_ips
        .iter()
        .enumerate()
    {
        let covered = spec
            .load_balancer_pools
            .iter()
            .any(|pool| pool.cidr.contains(net) || net.contains(&pool.cidr));
        if !covered {
            out.push(finding(
                &c::ROUTER_ADVERTISED_WITHOUT_POOL,
                format!("spec.bgp.advertise.serviceLoadBalancerIPs[{i}]"),
                format!("{net} is announced to the router but no LoadBalancer pool lies in it"),
                Some(format!(
                    "add a `loadBalancerPools` entry inside {net}, or remove the range"
                )),
            ));
        }
    }
    if let Some(vip) = &spec.bgp.api_vip
        && vip.speaker == VipSpeaker::KubeVip
    {
        let listed: Vec<IpAddr> = spec
            .bgp
            .peers
            .iter()
            .filter_map(|peer| peer.router.as_ref())
            .flat_map(|router| router.nodes.iter().copied())
            .collect();
        let shared = match vip.source_address {
            None => Some("the node's address, which calico-node peers from too".to_owned()),
            Some(source) if listed.contains(&source) => Some(format!(
                "{source}, a node address calico-node peers from too"
            )),
            Some(_) => None,
        };
        if let Some(what) = shared {
            out.push(finding(
                &c::ROUTER_SHARED_SOURCE,
                "spec.bgp.apiVIP.sourceAddress".to_owned(),
                format!("kube-vip peers with the router from {what}"),
                Some(
                    "give kube-vip a second node address (`sourceAddress`), or `speaker: Calico`"
                        .to_owned(),
                ),
            ));
        }
    }
    out
}

/// Where a router finding points: the file, and the line when the router was read from one.
struct At<'a> {
    file: &'a str,
}

impl At<'_> {
    fn report(
        &self,
        out: &mut Vec<Diagnostic>,
        rule: &Rule,
        line: Option<usize>,
        path: String,
        message: String,
        hint: String,
    ) {
        let mut diag = finding(rule, path, message, Some(hint));
        diag.location = Some(Location {
            file: self.file.to_owned(),
            document: 0,
            line,
            column: None,
        });
        out.push(diag);
    }
}

/// Compare a router with the cluster's side of it (`RT0001`-`RT0004`, `RT0008`-`RT0012`).
/// `file` names the router's configuration in messages; findings carry its lines when the
/// router was read from a file.
pub fn check(side: &ClusterSide, router: &Router, file: &str) -> Vec<Diagnostic> {
    let at = At { file };
    let mut out = Vec::new();
    let bgp = format!("router bgp {}", router.local_as);
    if router.local_as != side.router_as {
        at.report(
            &mut out,
            &c::ROUTER_AS_MISMATCH,
            router.bgp_line,
            bgp.clone(),
            format!(
                "the router speaks AS {} but the cluster's BGPPeer says {}",
                router.local_as, side.router_as
            ),
            format!("`router bgp {}`", side.router_as),
        );
    }
    let families = side.families();
    for &family in &families {
        let groups = serving_groups(side, router, family);
        check_reach(&at, &mut out, side, router, family, &bgp);
        for group in groups {
            check_group(&at, &mut out, side, router, group, family, &bgp);
        }
    }
    match router.graceful_restart {
        GracefulRestart::Disabled => {}
        GracefulRestart::StalepathTime(seconds) if seconds <= MAX_STALEPATH_SECONDS => {}
        other => at.report(
            &mut out,
            &c::ROUTER_GRACEFUL_RESTART_STALE,
            router.bgp_line,
            bgp.clone(),
            match other {
                GracefulRestart::StalepathTime(seconds) => format!(
                    "stale paths of a dead node are kept for {seconds} s \
                     (`bgp graceful-restart stalepath-time`)"
                ),
                _ => "the router is a graceful-restart helper: a dead node's routes stay \
                      selected for Calico's restart time (120 s)"
                    .to_owned(),
            },
            "add `bgp graceful-restart-disable` under `router bgp`".to_owned(),
        ),
    }
    for (family, on, line) in [
        (Family::Ipv4, router.ip_forwarding, "ip forwarding"),
        (Family::Ipv6, router.ipv6_forwarding, "ipv6 forwarding"),
    ] {
        if families.contains(&family) && !on {
            at.report(
                &mut out,
                &c::ROUTER_NO_FORWARDING,
                None,
                line.to_owned(),
                format!("the router does not turn on `{line}`"),
                format!("add `{line}`"),
            );
        }
    }
    out
}

/// The groups that hold a session of this family from some node.
fn serving_groups<'r>(
    side: &ClusterSide,
    router: &'r Router,
    family: Family,
) -> Vec<&'r PeerGroup> {
    let mut groups: Vec<&PeerGroup> = Vec::new();
    for group in &router.groups {
        let serves = side.sessions_of(family).any(|session| {
            session.nodes.iter().any(|node| {
                group.neighbors.contains(node)
                    || group.listen_ranges.iter().any(|r| r.contains(node))
            }) || session.node_ranges.iter().any(|range| {
                group
                    .listen_ranges
                    .iter()
                    .any(|r| r.contains(range) || range.contains(r))
                    || group.neighbors.iter().any(|n| range.contains(n))
            })
        });
        if serves && !groups.iter().any(|g| g.name == group.name) {
            groups.push(group);
        }
    }
    groups
}

fn check_reach(
    at: &At<'_>,
    out: &mut Vec<Diagnostic>,
    side: &ClusterSide,
    router: &Router,
    family: Family,
    bgp: &str,
) {
    for session in side.sessions_of(family) {
        for range in &session.node_ranges {
            let covered = router
                .groups
                .iter()
                .any(|group| group.listen_ranges.iter().any(|r| r.contains(range)));
            if !covered {
                at.report(
                    out,
                    &c::ROUTER_LISTEN_RANGE_MISSES,
                    router.bgp_line,
                    bgp.to_owned(),
                    format!(
                        "no `bgp listen range` holds the node subnet {range} (BGPPeer `{}`)",
                        session.peer
                    ),
                    format!("add `bgp listen range {range} peer-group <group>`"),
                );
            }
        }
        for node in &session.nodes {
            if router.group_for(*node).is_none() {
                at.report(
                    out,
                    &c::ROUTER_LISTEN_RANGE_MISSES,
                    router.bgp_line,
                    bgp.to_owned(),
                    format!("no neighbour or listen range accepts the node {node}"),
                    format!("add `neighbor {node} peer-group <group>`"),
                );
            }
        }
    }
}

fn check_group(
    at: &At<'_>,
    out: &mut Vec<Diagnostic>,
    side: &ClusterSide,
    router: &Router,
    group: &PeerGroup,
    family: Family,
    bgp: &str,
) {
    let path = format!("{bgp}/neighbor {}", group.name);
    let line = group.line.or(router.bgp_line);
    let wanted = if side.per_node_as {
        "external".to_owned()
    } else {
        side.cluster_as.to_string()
    };
    let as_ok = match group.remote_as {
        Some(RemoteAs::Number(asn)) => !side.per_node_as && asn == side.cluster_as,
        Some(RemoteAs::External) => side.per_node_as || side.cluster_as != router.local_as,
        Some(RemoteAs::Internal) => !side.per_node_as && side.cluster_as == router.local_as,
        None => false,
    };
    if !as_ok {
        let said = match group.remote_as {
            Some(RemoteAs::Number(asn)) => asn.to_string(),
            Some(RemoteAs::External) => "external".to_owned(),
            Some(RemoteAs::Internal) => "internal".to_owned(),
            None => "nothing".to_owned(),
        };
        at.report(
            out,
            &c::ROUTER_AS_MISMATCH,
            line,
            path.clone(),
            format!(
                "`remote-as` of `{}` is {said}, but the nodes speak {}",
                group.name,
                if side.per_node_as {
                    "with their own AS numbers".to_owned()
                } else {
                    format!("AS {}", side.cluster_as)
                }
            ),
            format!("`neighbor {} remote-as {wanted}`", group.name),
        );
    }
    // Admission: the announced set in, the refused set out.
    let mut no_policy = false;
    for routed in side
        .announced
        .iter()
        .filter(|r| Family::of_net(&r.prefix) == family)
    {
        for net in probes(&routed.prefix, routed.longer) {
            match router.inbound(group, &net) {
                Verdict::Admitted => {}
                Verdict::NoPolicy => no_policy = true,
                Verdict::Refused => {
                    at.report(
                        out,
                        &c::ROUTER_REFUSES_ANNOUNCED,
                        line,
                        path.clone(),
                        format!(
                            "`{}` refuses {net}, which the nodes announce ({})",
                            group.name, routed.source
                        ),
                        format!(
                            "permit {}{} in the inbound prefix-list",
                            routed.prefix,
                            if routed.longer {
                                format!(" le {}", family.max_len())
                            } else {
                                String::new()
                            }
                        ),
                    );
                    break;
                }
            }
        }
    }
    if no_policy {
        at.report(
            out,
            &c::ROUTER_NO_INBOUND_POLICY,
            line,
            path.clone(),
            format!(
                "`{}` is eBGP and has no inbound route-map for {}: FRR refuses every route",
                group.name,
                family_name(family)
            ),
            format!(
                "add `neighbor {} route-map <name> in` under `address-family {} unicast`",
                group.name,
                family_name(family)
            ),
        );
    }
    for routed in side
        .refused
        .iter()
        .filter(|r| Family::of_net(&r.prefix) == family)
    {
        if let Some(net) = probes(&routed.prefix, routed.longer)
            .into_iter()
            .find(|net| router.inbound(group, net) == Verdict::Admitted)
        {
            at.report(
                out,
                &c::ROUTER_ADMITS_REFUSED,
                line,
                path.clone(),
                format!(
                    "`{}` admits {net} ({}), which must never come from the nodes",
                    group.name, routed.source
                ),
                "end the inbound prefix-list with `deny any` and permit only what the cluster \
                 announces"
                    .to_owned(),
            );
        }
    }
    if router.is_ebgp(group) {
        let off_link = side.sessions_of(family).any(|s| !s.on_link);
        if off_link && group.ebgp_multihop.is_none() && !group.disable_connected_check {
            at.report(
                out,
                &c::ROUTER_OFF_LINK_NO_MULTIHOP,
                line,
                path.clone(),
                format!(
                    "the router is not on the node subnet and `{}` has no `ebgp-multihop`: \
                     every path from the nodes is invalid",
                    group.name
                ),
                format!("add `neighbor {} ebgp-multihop`", group.name),
            );
        }
    }
    if let Some(profile) = &group.bfd {
        let ttl_ok = profile
            .as_ref()
            .and_then(|name| router.bfd_profiles.get(name))
            .and_then(|p| p.minimum_ttl)
            .is_some_and(|ttl| ttl <= 64);
        if group.ebgp_multihop.is_none() || !ttl_ok {
            at.report(
                out,
                &c::ROUTER_BFD_SINGLE_HOP,
                line,
                path,
                format!(
                    "BFD on `{}` {}: Calico's multihop BFD never comes up",
                    group.name,
                    if group.ebgp_multihop.is_none() {
                        "is single-hop (no `ebgp-multihop`)"
                    } else {
                        "uses a profile without a low `minimum-ttl`"
                    }
                ),
                format!(
                    "`neighbor {} ebgp-multihop` and `neighbor {} bfd profile <p>` with \
                     `minimum-ttl 1` in the profile",
                    group.name, group.name
                ),
            );
        }
    }
}

/// The prefixes that stand for a routed entry: itself and, with `longer`, its first
/// Calico block (/26, /122) and its first single address.
fn probes(prefix: &IpNet, longer: bool) -> Vec<IpNet> {
    let mut nets = vec![*prefix];
    if !longer {
        return nets;
    }
    let (block, max) = match Family::of_net(prefix) {
        Family::Ipv4 => (26, 32),
        Family::Ipv6 => (122, 128),
    };
    for len in [block, max] {
        if prefix.prefix_len() < len
            && let Ok(net) = IpNet::new(prefix.network(), len)
        {
            nets.push(net);
        }
    }
    nets
}

fn family_name(family: Family) -> &'static str {
    match family {
        Family::Ipv4 => "ipv4",
        Family::Ipv6 => "ipv6",
    }
}
