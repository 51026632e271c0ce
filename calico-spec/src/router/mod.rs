//! The router at the other end of the cluster's BGP sessions: what it must admit, how it must
//! peer, and the cross-checks between the two ends (no IO).
//!
//! One model, [`Router`], serves both directions: [`plan`] derives it from a ClusterNetwork
//! (what `calico-render router` renders as FRR text), and calico-render's FRR reader fills it
//! from a hand-written `frr.conf`. [`check`] compares a [`Router`] with the cluster's side
//! ([`ClusterSide`], from the same ClusterNetwork) and reports `RT` codes; a planned router is
//! silent by construction, so the findings of a planned router are the spec's own (`RT0005`
//! and up). The facts behind every choice (FRR 8.4 with `frr defaults traditional`, Calico's
//! BIRD sessions: multihop, graceful restart, one session per node address) are in the
//! catalogue's `RT` entries.

mod check;
mod plan;

use std::collections::BTreeMap;
use std::net::IpAddr;

use ipnet::IpNet;
use serde::Serialize;

pub use check::{check, check_spec};
pub use plan::{
    ClusterSide, ROUTE_MAP_OUT, Routed, Session, cluster_side, plan, prefix_list_name, route_map_in,
};

/// The peer-group name the rendered IPv4 sessions use.
pub const GROUP_V4: &str = "CALICO";
/// The peer-group name the rendered IPv6 sessions use.
pub const GROUP_V6: &str = "CALICO6";
/// The BFD profile the rendered config defines for Calico's multihop sessions.
pub const BFD_PROFILE: &str = "calico";
/// The `ebgp-multihop` TTL rendered for a router off the node subnet.
pub const MULTIHOP_TTL: u8 = 255;
/// `maximum-paths` rendered (FRR's Debian build defaults to 256 anyway; stated for the reader).
pub const MAXIMUM_PATHS: u16 = 64;
/// The longest `bgp graceful-restart stalepath-time` that still counts as withdrawing a dead
/// node's routes promptly (Calico's BIRD asks for 120 s of restart time).
pub const MAX_STALEPATH_SECONDS: u32 = 30;

/// An address family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// IPv4 unicast.
    Ipv4,
    /// IPv6 unicast.
    Ipv6,
}

impl Family {
    /// The family of an address.
    pub fn of(ip: IpAddr) -> Family {
        if ip.is_ipv4() {
            Family::Ipv4
        } else {
            Family::Ipv6
        }
    }

    /// The family of a prefix.
    pub fn of_net(net: &IpNet) -> Family {
        Family::of(net.addr())
    }

    /// The longest prefix length of the family.
    pub fn max_len(self) -> u8 {
        match self {
            Family::Ipv4 => 32,
            Family::Ipv6 => 128,
        }
    }
}

/// What a peer group's `remote-as` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RemoteAs {
    /// One AS number.
    Number(u32),
    /// Any AS but the router's own (eBGP).
    External,
    /// The router's own AS (iBGP).
    Internal,
}

/// One prefix-list entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PrefixEntry {
    /// The sequence number.
    pub seq: u32,
    /// `permit` (true) or `deny`.
    pub permit: bool,
    /// The prefix; `None` is `any`.
    pub prefix: Option<IpNet>,
    /// `ge`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ge: Option<u8>,
    /// `le`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub le: Option<u8>,
}

impl PrefixEntry {
    /// Whether this entry matches `net` (FRR's rule: inside the prefix, and a length within
    /// `ge`..=`le`, or exactly the prefix's length when neither is given).
    pub fn matches(&self, net: &IpNet) -> bool {
        let Some(prefix) = self.prefix else {
            return true;
        };
        if Family::of_net(&prefix) != Family::of_net(net) || !prefix.contains(&net.network()) {
            return false;
        }
        let len = net.prefix_len();
        if len < prefix.prefix_len() {
            return false;
        }
        match (self.ge, self.le) {
            (None, None) => len == prefix.prefix_len(),
            (ge, le) => {
                let low = ge.unwrap_or(prefix.prefix_len());
                let high = le.unwrap_or(Family::of_net(net).max_len());
                low <= len && len <= high
            }
        }
    }
}

/// A named prefix-list of one family.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PrefixList {
    /// Entries, sorted by sequence number.
    pub entries: Vec<PrefixEntry>,
}

impl PrefixList {
    /// FRR's verdict: the first matching entry's action; no match is a deny.
    pub fn permits(&self, net: &IpNet) -> bool {
        self.entries
            .iter()
            .find(|entry| entry.matches(net))
            .is_some_and(|entry| entry.permit)
    }
}

/// One route-map entry (only what decides admission: its action and its prefix-list match).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RouteMapEntry {
    /// The sequence number.
    pub seq: u32,
    /// `permit` (true) or `deny`.
    pub permit: bool,
    /// `match ip address prefix-list NAME` / `match ipv6 address prefix-list NAME`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_prefix_list: Option<(Family, String)>,
    /// `set origin igp`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub set_origin_igp: bool,
}

/// A peer group (or a set of neighbours sharing its settings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeerGroup {
    /// The group's name.
    pub name: String,
    /// The `remote-as`; `None` when the config gives none.
    pub remote_as: Option<RemoteAs>,
    /// `bgp listen range ... peer-group NAME`.
    pub listen_ranges: Vec<IpNet>,
    /// `neighbor ADDR peer-group NAME`.
    pub neighbors: Vec<IpAddr>,
    /// `ebgp-multihop` TTL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ebgp_multihop: Option<u8>,
    /// `disable-connected-check`.
    pub disable_connected_check: bool,
    /// `update-source`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_source: Option<IpAddr>,
    /// `bfd` on the group: `Some(profile)` (the profile may be `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bfd: Option<Option<String>>,
    /// `timers KEEPALIVE HOLD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timers: Option<(u32, u32)>,
    /// Per address family: activation and policies.
    pub families: BTreeMap<Family, GroupFamily>,
    /// Where the group is defined in a file read (1-based), for messages.
    #[serde(skip)]
    pub line: Option<usize>,
}

/// A peer group within one `address-family` block.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GroupFamily {
    /// `neighbor NAME activate`.
    pub activate: bool,
    /// `soft-reconfiguration inbound`.
    pub soft_reconfiguration: bool,
    /// `route-map NAME in`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_map_in: Option<String>,
    /// `route-map NAME out`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_map_out: Option<String>,
}

/// Graceful restart on the router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum GracefulRestart {
    /// FRR's default: a helper that keeps a restarting peer's routes for its restart time.
    Helper,
    /// `bgp graceful-restart-disable`: a dead session's routes go at once.
    Disabled,
    /// `bgp graceful-restart stalepath-time N`.
    StalepathTime(u32),
}

/// A BFD profile (`bfd` / `profile NAME`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BfdProfile {
    /// `minimum-ttl`; FRR's multihop default is 254, which Calico's BIRD never reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum_ttl: Option<u8>,
}

/// A router's BGP configuration: what `calico-render router` renders, or what a hand-written
/// FRR config says, reduced to what the checks need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Router {
    /// `hostname`.
    pub hostname: String,
    /// `router bgp AS`.
    pub local_as: u32,
    /// `bgp router-id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub router_id: Option<IpAddr>,
    /// FRR's `bgp ebgp-requires-policy` (on with `frr defaults traditional`, off with
    /// `datacenter` or `no bgp ebgp-requires-policy`).
    pub ebgp_requires_policy: bool,
    /// Graceful restart.
    pub graceful_restart: GracefulRestart,
    /// `bgp bestpath as-path multipath-relax`.
    pub multipath_relax: bool,
    /// `ip forwarding`.
    pub ip_forwarding: bool,
    /// `ipv6 forwarding`.
    pub ipv6_forwarding: bool,
    /// The node peer groups.
    pub groups: Vec<PeerGroup>,
    /// Prefix-lists by family, then name (`ip` and `ipv6` lists are separate namespaces).
    pub prefix_lists: BTreeMap<Family, BTreeMap<String, PrefixList>>,
    /// Route-maps by name.
    pub route_maps: BTreeMap<String, Vec<RouteMapEntry>>,
    /// BFD profiles by name.
    pub bfd_profiles: BTreeMap<String, BfdProfile>,
    /// `maximum-paths` per family, when given.
    pub maximum_paths: BTreeMap<Family, u16>,
    /// The line of `router bgp` in a file read (1-based), for messages.
    #[serde(skip)]
    pub bgp_line: Option<usize>,
}

/// The inbound verdict of one group for one prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The route is accepted.
    Admitted,
    /// The route is refused by the policy.
    Refused,
    /// No inbound policy: FRR refuses everything from an eBGP peer (RFC 8212).
    NoPolicy,
}

impl Router {
    /// Whether a route-map admits `net` (FRR: the first entry whose match clauses all match
    /// decides; no entry matching, or an undefined route-map, denies).
    pub fn route_map_admits(&self, name: &str, net: &IpNet) -> bool {
        let Some(entries) = self.route_maps.get(name) else {
            return false;
        };
        for entry in entries {
            let matched = match &entry.match_prefix_list {
                None => true,
                Some((family, list)) => self
                    .prefix_lists
                    .get(family)
                    .and_then(|lists| lists.get(list))
                    .is_some_and(|list| Family::of_net(net) == *family && list.permits(net)),
            };
            if matched {
                return entry.permit;
            }
        }
        false
    }

    /// Whether a session of `group` is eBGP.
    pub fn is_ebgp(&self, group: &PeerGroup) -> bool {
        match group.remote_as {
            Some(RemoteAs::Number(asn)) => asn != self.local_as,
            Some(RemoteAs::External) => true,
            Some(RemoteAs::Internal) | None => false,
        }
    }

    /// What `group` does with a route for `net` received from a node.
    pub fn inbound(&self, group: &PeerGroup, net: &IpNet) -> Verdict {
        let family = Family::of_net(net);
        let Some(af) = group.families.get(&family).filter(|af| af.activate) else {
            return Verdict::Refused;
        };
        match &af.route_map_in {
            Some(name) => {
                if self.route_map_admits(name, net) {
                    Verdict::Admitted
                } else {
                    Verdict::Refused
                }
            }
            None if self.is_ebgp(group) && self.ebgp_requires_policy => Verdict::NoPolicy,
            None => Verdict::Admitted,
        }
    }

    /// The group whose sessions a node at `node` opens (explicit neighbours first, then the
    /// first listen range that holds it), if any.
    pub fn group_for(&self, node: IpAddr) -> Option<&PeerGroup> {
        self.groups
            .iter()
            .find(|group| group.neighbors.contains(&node))
            .or_else(|| {
                self.groups.iter().find(|group| {
                    group
                        .listen_ranges
                        .iter()
                        .any(|range| range.contains(&node))
                })
            })
    }
}
