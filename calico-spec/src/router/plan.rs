//! From a ClusterNetwork to the cluster's side of each router ([`cluster_side`]) and to the
//! router that pairs with it ([`plan`]).

use std::collections::BTreeMap;
use std::net::IpAddr;

use ipnet::IpNet;
use serde::Serialize;

use super::{
    BFD_PROFILE, BfdProfile, Family, GROUP_V4, GROUP_V6, GracefulRestart, GroupFamily,
    MAXIMUM_PATHS, MULTIHOP_TTL, PeerGroup, PrefixEntry, PrefixList, RemoteAs, RouteMapEntry,
    Router,
};
use crate::cluster_network::{ApiVip, ClusterNetwork, Encapsulation, PodPool, VipSpeaker};

/// The default AS number of a Calico cluster (BGPConfiguration `asNumber` unset).
const CALICO_DEFAULT_AS: u32 = 64512;

/// A prefix the nodes announce, or one the router must refuse, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Routed {
    /// The prefix.
    pub prefix: IpNet,
    /// Whether every longer prefix inside it is meant too (`le 32`/`le 128`): a Service range
    /// is announced whole and as /32s for `externalTrafficPolicy: Local` Services.
    pub longer: bool,
    /// The ClusterNetwork field it comes from (or a description for the refused defaults).
    pub source: String,
}

/// One BGPPeer's session to the router, seen from the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The BGPPeer's name.
    pub peer: String,
    /// Its index in `spec.bgp.peers`.
    pub index: usize,
    /// The router's address on this session.
    pub address: IpAddr,
    /// The session's family (Calico's BIRD carries one family per session).
    pub family: Family,
    /// Whether the router is on the nodes' subnet.
    pub on_link: bool,
    /// The node subnets of this family (listen ranges), when no node list is given.
    pub node_ranges: Vec<IpNet>,
    /// The node addresses of this family, when given.
    pub nodes: Vec<IpAddr>,
}

/// Everything the cluster says about one router.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSide {
    /// The router's host name.
    pub hostname: String,
    /// The router's AS (the BGPPeers' `asNumber`).
    pub router_as: u32,
    /// The cluster's AS (BGPConfiguration `asNumber`, Calico's 64512 when unset).
    pub cluster_as: u32,
    /// Whether nodes speak with their own AS numbers.
    pub per_node_as: bool,
    /// Whether BFD is asked for.
    pub bfd: bool,
    /// The sessions, in `spec.bgp.peers` order.
    pub sessions: Vec<Session>,
    /// What the nodes announce, which the router must admit.
    pub announced: Vec<Routed>,
    /// What the router must never admit (pod pools, default routes).
    pub refused: Vec<Routed>,
    /// The API VIP and its speaker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip: Option<ApiVip>,
}

impl ClusterSide {
    /// The families the sessions carry, without repeats.
    pub fn families(&self) -> Vec<Family> {
        let mut families: Vec<Family> = self.sessions.iter().map(|s| s.family).collect();
        families.sort();
        families.dedup();
        families
    }

    /// The sessions of one family.
    pub fn sessions_of(&self, family: Family) -> impl Iterator<Item = &Session> {
        self.sessions.iter().filter(move |s| s.family == family)
    }
}

/// The routers the ClusterNetwork's BGPPeers point at, grouped by host name, in the order of
/// their first BGPPeer. Errors say what is missing (BGP off, no peer, no node subnet).
pub fn cluster_side(cluster_network: &ClusterNetwork) -> Result<Vec<ClusterSide>, String> {
    let spec = &cluster_network.spec;
    if !spec.bgp.enabled {
        return Err(
            "BGP is not enabled (`spec.bgp.enabled`), so no router peers with the \
                    nodes"
                .to_owned(),
        );
    }
    if spec.bgp.peers.is_empty() {
        return Err("`spec.bgp.peers` is empty: there is no router to render".to_owned());
    }
    let cluster_as = spec.bgp.as_number.unwrap_or(CALICO_DEFAULT_AS);
    let mut sides: Vec<ClusterSide> = Vec::new();
    for (index, peer) in spec.bgp.peers.iter().enumerate() {
        let router = peer.router.clone().unwrap_or_default();
        let hostname = router.hostname.clone().unwrap_or_else(|| peer.name.clone());
        let family = Family::of(peer.peer_ip);
        let node_ranges: Vec<IpNet> = spec
            .network
            .node_subnets
            .iter()
            .filter(|net| Family::of_net(net) == family)
            .copied()
            .collect();
        let mut nodes: Vec<IpAddr> = router
            .nodes
            .iter()
            .filter(|ip| Family::of(**ip) == family)
            .copied()
            .collect();
        if nodes.is_empty() && node_ranges.is_empty() {
            return Err(format!(
                "`spec.bgp.peers[{index}]` ({}): the router needs the nodes' addresses: list \
                 the node subnets in `spec.network.nodeSubnets` or the nodes in \
                 `spec.bgp.peers[{index}].router.nodes`",
                peer.name
            ));
        }
        // kube-vip's own session comes from its source address: the router must accept it.
        if let Some(vip) = &spec.bgp.api_vip
            && vip.speaker == VipSpeaker::KubeVip
            && !nodes.is_empty()
            && let Some(source) = vip.source_address.filter(|ip| Family::of(*ip) == family)
            && !nodes.contains(&source)
        {
            nodes.push(source);
        }
        // On-link by default only when every node subnet of the family holds the router's
        // address: nodes in another subnet are a routed hop away (`ebgp-multihop` is harmless
        // when it is not needed, and its absence is fatal when it is).
        let on_link = router.on_link.unwrap_or_else(|| {
            !node_ranges.is_empty() && node_ranges.iter().all(|net| net.contains(&peer.peer_ip))
        });
        let session = Session {
            peer: peer.name.clone(),
            index,
            address: peer.peer_ip,
            family,
            on_link,
            node_ranges: if nodes.is_empty() {
                node_ranges
            } else {
                Vec::new()
            },
            nodes,
        };
        if let Some(side) = sides.iter_mut().find(|side| side.hostname == hostname) {
            side.bfd |= router.bfd;
            side.per_node_as |= router.per_node_as;
            side.sessions.push(session);
            continue;
        }
        sides.push(ClusterSide {
            hostname,
            router_as: peer.as_number,
            cluster_as,
            per_node_as: router.per_node_as,
            bfd: router.bfd,
            sessions: vec![session],
            announced: announced(cluster_network),
            refused: refused(cluster_network),
            vip: spec.bgp.api_vip.clone(),
        });
    }
    for side in &mut sides {
        let families = side.families();
        side.refused
            .retain(|routed| families.contains(&Family::of_net(&routed.prefix)));
    }
    Ok(sides)
}

fn announced(cluster_network: &ClusterNetwork) -> Vec<Routed> {
    let advertise = &cluster_network.spec.bgp.advertise;
    let mut out = Vec::new();
    for (field, nets) in [
        (
            "serviceLoadBalancerIPs",
            &advertise.service_load_balancer_ips,
        ),
        ("serviceClusterIPs", &advertise.service_cluster_ips),
        ("serviceExternalIPs", &advertise.service_external_ips),
    ] {
        for (i, net) in nets.iter().enumerate() {
            out.push(Routed {
                prefix: *net,
                longer: true,
                source: format!("spec.bgp.advertise.{field}[{i}]"),
            });
        }
    }
    if let Some(vip) = &cluster_network.spec.bgp.api_vip {
        let len = Family::of(vip.address).max_len();
        if let Ok(prefix) = IpNet::new(vip.address, len) {
            out.push(Routed {
                prefix,
                longer: false,
                source: "spec.bgp.apiVIP.address".to_owned(),
            });
        }
    }
    out
}

fn refused(cluster_network: &ClusterNetwork) -> Vec<Routed> {
    let mut out: Vec<Routed> = cluster_network
        .spec
        .pod_pools
        .iter()
        .enumerate()
        .map(|(i, pool)| Routed {
            prefix: pool.cidr,
            longer: true,
            source: format!("spec.podPools[{i}].cidr"),
        })
        .collect();
    for (net, what) in [
        ("0.0.0.0/0", "the IPv4 default route"),
        ("::/0", "the IPv6 default route"),
    ] {
        if let Ok(prefix) = net.parse() {
            out.push(Routed {
                prefix,
                longer: false,
                source: what.to_owned(),
            });
        }
    }
    out
}

/// A pod pool whose blocks the nodes announce to every BGP peer, and whose routes do not
/// depend on BGP (VXLAN: Felix programs them), so `disableBGPExport: true` costs nothing.
pub(super) fn exported_vxlan_pool(pool: &PodPool) -> bool {
    pool.disable_bgp_export != Some(true)
        && matches!(
            pool.encapsulation.unwrap_or(PodPool::DEFAULT_ENCAPSULATION),
            Encapsulation::Vxlan | Encapsulation::VxlanCrossSubnet
        )
}

/// The prefix-list name of a family's inbound policy.
pub fn prefix_list_name(family: Family) -> &'static str {
    match family {
        Family::Ipv4 => "CALICO-IN",
        Family::Ipv6 => "CALICO-IN6",
    }
}

/// The route-map name of a family's inbound policy.
pub fn route_map_in(family: Family) -> &'static str {
    prefix_list_name(family)
}

/// The route-map that sends the nodes nothing.
pub const ROUTE_MAP_OUT: &str = "CALICO-OUT";

/// The router that pairs with `side`: every check of [`super::check`] is silent on it.
pub fn plan(side: &ClusterSide) -> Router {
    let families = side.families();
    let mut prefix_lists = BTreeMap::new();
    let mut route_maps = BTreeMap::new();
    let mut groups = Vec::new();
    let mut maximum_paths = BTreeMap::new();
    let ebgp = side.per_node_as || side.cluster_as != side.router_as;
    for &family in &families {
        let mut entries: Vec<PrefixEntry> = Vec::new();
        for routed in side
            .announced
            .iter()
            .filter(|r| Family::of_net(&r.prefix) == family)
        {
            // Already admitted by an earlier entry (the VIP inside an advertised range).
            if entries.iter().any(|e| {
                e.prefix.is_some_and(|p| {
                    p == routed.prefix && !routed.longer
                        || e.le.is_some() && p.contains(&routed.prefix)
                })
            }) {
                continue;
            }
            let seq = u32::try_from(entries.len())
                .unwrap_or(u32::MAX / 10)
                .saturating_add(1)
                .saturating_mul(10);
            let full = routed.prefix.prefix_len() == family.max_len();
            entries.push(PrefixEntry {
                seq,
                permit: true,
                prefix: Some(routed.prefix),
                ge: None,
                le: (routed.longer && !full).then(|| family.max_len()),
            });
        }
        entries.push(PrefixEntry {
            seq: 1000,
            permit: false,
            prefix: None,
            ge: None,
            le: None,
        });
        let name = prefix_list_name(family);
        prefix_lists
            .entry(family)
            .or_insert_with(BTreeMap::new)
            .insert(name.to_owned(), PrefixList { entries });
        route_maps.insert(
            route_map_in(family).to_owned(),
            vec![
                RouteMapEntry {
                    seq: 10,
                    permit: true,
                    match_prefix_list: Some((family, name.to_owned())),
                    set_origin_igp: true,
                },
                RouteMapEntry {
                    seq: 100,
                    permit: false,
                    match_prefix_list: None,
                    set_origin_igp: false,
                },
            ],
        );
        maximum_paths.insert(family, MAXIMUM_PATHS);
        let sessions: Vec<_> = side.sessions_of(family).collect();
        let mut listen_ranges: Vec<IpNet> = Vec::new();
        let mut neighbors: Vec<IpAddr> = Vec::new();
        for session in &sessions {
            for range in &session.node_ranges {
                if !listen_ranges.contains(range) {
                    listen_ranges.push(*range);
                }
            }
            for node in &session.nodes {
                if !neighbors.contains(node) {
                    neighbors.push(*node);
                }
            }
        }
        let off_link = sessions.iter().any(|s| !s.on_link);
        // Calico's BIRD runs multihop sessions (and multihop BFD): with BFD the router must
        // speak multihop too, on-link or not.
        let multihop = ebgp && (off_link || side.bfd);
        let mut families_of_group = BTreeMap::new();
        families_of_group.insert(
            family,
            GroupFamily {
                activate: true,
                soft_reconfiguration: true,
                route_map_in: Some(route_map_in(family).to_owned()),
                route_map_out: Some(ROUTE_MAP_OUT.to_owned()),
            },
        );
        groups.push(PeerGroup {
            name: match family {
                Family::Ipv4 => GROUP_V4,
                Family::Ipv6 => GROUP_V6,
            }
            .to_owned(),
            remote_as: Some(if side.per_node_as {
                RemoteAs::External
            } else {
                RemoteAs::Number(side.cluster_as)
            }),
            listen_ranges,
            neighbors,
            ebgp_multihop: multihop.then_some(MULTIHOP_TTL),
            disable_connected_check: false,
            update_source: side
                .bfd
                .then(|| sessions.first().map(|s| s.address))
                .flatten(),
            bfd: side.bfd.then(|| Some(BFD_PROFILE.to_owned())),
            timers: None,
            families: families_of_group,
            line: None,
        });
    }
    if !families.is_empty() {
        route_maps.insert(
            ROUTE_MAP_OUT.to_owned(),
            vec![RouteMapEntry {
                seq: 10,
                permit: false,
                match_prefix_list: None,
                set_origin_igp: false,
            }],
        );
    }
    let mut bfd_profiles = BTreeMap::new();
    if side.bfd {
        bfd_profiles.insert(
            BFD_PROFILE.to_owned(),
            BfdProfile {
                minimum_ttl: Some(1),
            },
        );
    }
    Router {
        hostname: side.hostname.clone(),
        local_as: side.router_as,
        router_id: side
            .sessions
            .iter()
            .find(|s| s.family == Family::Ipv4)
            .map(|s| s.address),
        ebgp_requires_policy: true,
        graceful_restart: GracefulRestart::Disabled,
        multipath_relax: side.per_node_as,
        ip_forwarding: families.contains(&Family::Ipv4),
        ipv6_forwarding: families.contains(&Family::Ipv6),
        groups,
        prefix_lists,
        route_maps,
        bfd_profiles,
        maximum_paths,
        bgp_line: None,
    }
}
