//! The fleet checks: overlaps between clusters' ranges and with the fleet's reserved and routed
//! ranges (one sort-and-sweep over every range, O(n log n) plus the overlaps found), and the
//! routing settings clusters that route to each other must share.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use ipnet::IpNet;

use super::plan::{AddressPlan, Range, RangeKind};
use super::spec::{Fleet, NamedRange};
use crate::cluster_network::Encapsulation;
use crate::diag::Diagnostic;
use crate::rules::catalogue::{self as c, Rule};

/// A fleet finding: a diagnostic and the cluster whose ClusterNetwork it points into (`None`:
/// the fleet file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetDiagnostic {
    /// The cluster by name, or `None` for the fleet file.
    pub cluster: Option<String>,
    /// The problem; its path is a field of that cluster's ClusterNetwork (or of the fleet file).
    pub diagnostic: Diagnostic,
}

/// Two ranges that share addresses, found by [`overlaps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Overlap {
    /// The range that starts first (or contains the other).
    pub first: Owner,
    /// The other range.
    pub second: Owner,
    /// The addresses both hold.
    pub shared: IpNet,
}

/// Whose range a swept range is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Owner {
    /// `plans[plan].ranges[range]`.
    Cluster {
        /// The plan's index.
        plan: usize,
        /// The range's index in the plan.
        range: usize,
    },
    /// The fleet's `spec.reserved[N]`.
    Reserved(usize),
    /// The fleet's `spec.routed[N]`.
    Routed(usize),
}

/// A range as an interval of integers, with its family and owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Interval {
    v6: bool,
    start: u128,
    /// `Reverse`, so that of two ranges starting together the larger (the container) comes first.
    end: Reverse<u128>,
    owner: Owner,
}

fn interval(net: IpNet, owner: Owner) -> Interval {
    let (v6, start, end) = match net {
        IpNet::V4(net) => (
            false,
            u128::from(u32::from(net.network())),
            u128::from(u32::from(net.broadcast())),
        ),
        IpNet::V6(net) => (true, u128::from(net.network()), u128::from(net.broadcast())),
    };
    Interval {
        v6,
        start,
        end: Reverse(end),
        owner,
    }
}

/// Every pair of overlapping ranges among the plans' ranges and the fleet's reserved and routed
/// ranges, pairs within one plan left out. Sort the intervals by family and start, then sweep
/// once keeping the ranges still open in a heap ordered by their end: each range meets only the
/// open ones it overlaps. O(n log n + k) for n ranges and k overlaps; the result is sorted.
pub fn overlaps(
    plans: &[AddressPlan],
    reserved: &[NamedRange],
    routed: &[NamedRange],
) -> Vec<Overlap> {
    overlaps_where(plans, reserved, routed, |_, _| true)
}

/// [`overlaps`] over the plans' ranges that `keep(plan index, range)` keeps. The checks leave out
/// what no rule compares before the sweep: many clusters share one Service range by design
/// (kubeadm's default), and every pair of them would otherwise be an overlap found and dropped,
/// quadratic in the number of clusters (10,000 clusters: 50 million pairs).
pub fn overlaps_where(
    plans: &[AddressPlan],
    reserved: &[NamedRange],
    routed: &[NamedRange],
    keep: impl Fn(usize, &Range) -> bool,
) -> Vec<Overlap> {
    let mut intervals = Vec::new();
    for (plan_index, plan) in plans.iter().enumerate() {
        for (range_index, range) in plan.ranges.iter().enumerate() {
            if !keep(plan_index, range) {
                continue;
            }
            let owner = Owner::Cluster {
                plan: plan_index,
                range: range_index,
            };
            intervals.push((interval(range.net, owner), range.net));
        }
    }
    for (index, range) in reserved.iter().enumerate() {
        intervals.push((interval(range.cidr, Owner::Reserved(index)), range.cidr));
    }
    for (index, range) in routed.iter().enumerate() {
        intervals.push((interval(range.cidr, Owner::Routed(index)), range.cidr));
    }
    intervals.sort_unstable();
    let mut found = Vec::new();
    // Open ranges: (end, position in `intervals`), the smallest end on top.
    let mut open: BinaryHeap<Reverse<(u128, usize)>> = BinaryHeap::new();
    let mut family = None;
    for (position, (current, net)) in intervals.iter().enumerate() {
        if family != Some(current.v6) {
            open.clear();
            family = Some(current.v6);
        }
        while open
            .peek()
            .is_some_and(|Reverse((end, _))| *end < current.start)
        {
            open.pop();
        }
        for Reverse((_, earlier)) in &open {
            let Some((before, before_net)) = intervals.get(*earlier) else {
                continue;
            };
            if same_plan(before.owner, current.owner) {
                continue;
            }
            found.push(Overlap {
                first: before.owner,
                second: current.owner,
                shared: smaller(*before_net, *net),
            });
        }
        open.push(Reverse((current.end.0, position)));
    }
    found.sort_unstable();
    found
}

fn same_plan(a: Owner, b: Owner) -> bool {
    match (a, b) {
        (Owner::Cluster { plan: x, .. }, Owner::Cluster { plan: y, .. }) => x == y,
        _ => false,
    }
}

/// Of two overlapping CIDRs, the one inside the other (CIDRs either nest or are disjoint).
fn smaller(a: IpNet, b: IpNet) -> IpNet {
    if a.prefix_len() >= b.prefix_len() {
        a
    } else {
        b
    }
}

/// Which clusters route to each other: the fleet's routing groups by plan index.
#[derive(Debug, Clone, Default)]
pub struct Routing {
    groups: Vec<(String, BTreeSet<usize>)>,
}

impl Routing {
    /// The groups of `fleet`, resolved against the plans' names; unknown names are left out
    /// (`check` reports them).
    pub fn of(fleet: Option<&Fleet>, plans: &[AddressPlan]) -> Routing {
        let index: BTreeMap<&str, usize> = plans
            .iter()
            .enumerate()
            .map(|(i, plan)| (plan.cluster.as_str(), i))
            .collect();
        let groups = fleet
            .map(|fleet| {
                fleet
                    .spec
                    .routing
                    .iter()
                    .map(|group| {
                        let members = group
                            .clusters
                            .iter()
                            .filter_map(|name| index.get(name.as_str()).copied())
                            .collect();
                        (group.name.clone(), members)
                    })
                    .collect()
            })
            .unwrap_or_default();
        Routing { groups }
    }

    /// Whether plan `a` is in any routing group.
    pub fn in_group(&self, a: usize) -> bool {
        self.groups.iter().any(|(_, members)| members.contains(&a))
    }

    /// Whether plans `a` and `b` are in one routing group.
    pub fn routes(&self, a: usize, b: usize) -> bool {
        self.groups
            .iter()
            .any(|(_, members)| members.contains(&a) && members.contains(&b))
    }
}

/// Run every fleet check over `plans` (one per cluster) and the fleet file, if any. The result
/// is sorted by cluster (the fleet file first), then as [`crate::diag::sort_diagnostics`] would.
pub fn check(fleet: Option<&Fleet>, plans: &[AddressPlan]) -> Vec<FleetDiagnostic> {
    check_counting(fleet, plans).0
}

/// [`check`], and how many overlapping pairs its sweep handed to the rules: the figure that
/// grows with the square of the clusters if ranges no rule compares (the Service range most
/// clusters share) are swept again (a test holds it).
pub(super) fn check_counting(
    fleet: Option<&Fleet>,
    plans: &[AddressPlan],
) -> (Vec<FleetDiagnostic>, usize) {
    let mut out = Vec::new();
    check_names(fleet, plans, &mut out);
    let routing = Routing::of(fleet, plans);
    let (reserved, routed) = match fleet {
        Some(fleet) => (fleet.spec.reserved.as_slice(), fleet.spec.routed.as_slice()),
        None => (&[][..], &[][..]),
    };
    let swept = overlaps_where(plans, reserved, routed, |plan, range| {
        compared(&routing, plan, range)
    });
    let judged = swept.len();
    for overlap in swept {
        if let Some(found) = judge(&overlap, plans, reserved, routed, &routing) {
            out.push(found);
        }
    }
    (finish(fleet, plans, &routing, out), judged)
}

/// The overlaps [`check`] reports (those that matter: pairs across clusters that a rule judges,
/// and ranges inside the fleet's reserved or routed ones), in sweep order: what a picture marks.
pub fn reported_overlaps(fleet: Option<&Fleet>, plans: &[AddressPlan]) -> Vec<Overlap> {
    let routing = Routing::of(fleet, plans);
    let (reserved, routed) = match fleet {
        Some(fleet) => (fleet.spec.reserved.as_slice(), fleet.spec.routed.as_slice()),
        None => (&[][..], &[][..]),
    };
    overlaps_where(plans, reserved, routed, |plan, range| {
        compared(&routing, plan, range)
    })
    .into_iter()
    .filter(|overlap| judge(overlap, plans, reserved, routed, &routing).is_some())
    .collect()
}

/// Whether any rule compares `range` of plan `plan`: avoided ranges never, Service ranges only
/// of clusters in a routing group (reserved and routed ranges compare them too, so a Service
/// range inside one is missed only outside routing groups: a lint, not an error, kept linear).
fn compared(routing: &Routing, plan: usize, range: &Range) -> bool {
    match range.kind {
        RangeKind::Avoided => false,
        RangeKind::Service => routing.in_group(plan),
        RangeKind::PodPool | RangeKind::LoadBalancer | RangeKind::NodeSubnet => true,
    }
}

fn finish(
    fleet: Option<&Fleet>,
    plans: &[AddressPlan],
    routing: &Routing,
    mut out: Vec<FleetDiagnostic>,
) -> Vec<FleetDiagnostic> {
    if let Some(fleet) = fleet {
        for (name, members) in &routing.groups {
            check_group(fleet, name, members, plans, &mut out);
        }
    }
    out.sort_by(|a, b| {
        (
            &a.cluster,
            &a.diagnostic.path,
            a.diagnostic.code,
            &a.diagnostic.message,
        )
            .cmp(&(
                &b.cluster,
                &b.diagnostic.path,
                b.diagnostic.code,
                &b.diagnostic.message,
            ))
    });
    out.dedup();
    out
}

fn diagnostic(rule: &Rule, path: String, message: String, hint: Option<String>) -> Diagnostic {
    Diagnostic {
        severity: rule.severity,
        code: rule.code,
        path,
        message,
        hint,
        location: None,
    }
}

/// Two clusters with one name, and routing groups naming unknown clusters or fewer than two.
fn check_names(fleet: Option<&Fleet>, plans: &[AddressPlan], out: &mut Vec<FleetDiagnostic>) {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for plan in plans {
        *seen.entry(plan.cluster.as_str()).or_default() += 1;
    }
    for (name, count) in &seen {
        if *count > 1 {
            out.push(FleetDiagnostic {
                cluster: Some((*name).to_owned()),
                diagnostic: diagnostic(
                    &c::FL_FLEET_FILE,
                    String::from("metadata.name"),
                    format!("{count} clusters of the fleet are named `{name}`"),
                    Some(String::from(
                        "give each ClusterNetwork its own `metadata.name`: output folders and messages are named after it",
                    )),
                ),
            });
        }
    }
    let Some(fleet) = fleet else { return };
    for (group_index, group) in fleet.spec.routing.iter().enumerate() {
        for (member_index, name) in group.clusters.iter().enumerate() {
            if !seen.contains_key(name.as_str()) {
                let known: Vec<&str> = seen.keys().copied().collect();
                out.push(FleetDiagnostic {
                    cluster: None,
                    diagnostic: diagnostic(
                        &c::FL_FLEET_FILE,
                        format!("spec.routing[{group_index}].clusters[{member_index}]"),
                        format!(
                            "routing group `{}` names `{name}`, which is no cluster of the fleet",
                            group.name
                        ),
                        Some(match crate::suggest::closest(name, known.iter().copied()) {
                            Some(candidate) => format!("did you mean `{candidate}`?"),
                            None => format!("the fleet's clusters are {}", known.join(", ")),
                        }),
                    ),
                });
            }
        }
        let distinct: BTreeSet<&String> = group.clusters.iter().collect();
        if distinct.len() < 2 {
            out.push(FleetDiagnostic {
                cluster: None,
                diagnostic: diagnostic(
                    &c::FL_FLEET_FILE,
                    format!("spec.routing[{group_index}].clusters"),
                    format!(
                        "routing group `{}` names fewer than two clusters",
                        group.name
                    ),
                    Some(String::from(
                        "a routing group lists at least two clusters that route to each other",
                    )),
                ),
            });
        }
    }
}

/// The finding for one overlap, if the pair matters.
fn judge(
    overlap: &Overlap,
    plans: &[AddressPlan],
    reserved: &[NamedRange],
    routed: &[NamedRange],
    routing: &Routing,
) -> Option<FleetDiagnostic> {
    let cluster_range = |owner: Owner| match owner {
        Owner::Cluster { plan, range } => {
            let p = plans.get(plan)?;
            Some((plan, p, p.ranges.get(range)?))
        }
        Owner::Reserved(_) | Owner::Routed(_) => None,
    };
    let named = |owner: Owner| match owner {
        Owner::Reserved(i) => reserved.get(i).map(|r| ("reserved", i, r)),
        Owner::Routed(i) => routed.get(i).map(|r| ("routed", i, r)),
        Owner::Cluster { .. } => None,
    };
    let shared = overlap.shared;
    match (cluster_range(overlap.first), cluster_range(overlap.second)) {
        (Some(a), Some(b)) => {
            let ((ai, ap, ar), (bi, bp, br)) = if (a.1.cluster.as_str(), a.2.path.as_str())
                <= (b.1.cluster.as_str(), b.2.path.as_str())
            {
                (a, b)
            } else {
                (b, a)
            };
            if ar.kind == RangeKind::Avoided || br.kind == RangeKind::Avoided {
                return None;
            }
            let involves_service = ar.kind == RangeKind::Service || br.kind == RangeKind::Service;
            if involves_service && !routing.routes(ai, bi) {
                return None;
            }
            let rule = match (ar.kind, br.kind) {
                (RangeKind::PodPool, RangeKind::PodPool) => &c::FL_POD_OVERLAP,
                (RangeKind::Service, RangeKind::Service) => &c::FL_SERVICE_OVERLAP,
                (RangeKind::LoadBalancer, RangeKind::LoadBalancer) => &c::FL_LOAD_BALANCER_OVERLAP,
                (RangeKind::NodeSubnet, RangeKind::NodeSubnet) => &c::FL_NODE_OVERLAP,
                _ => &c::FL_KIND_OVERLAP,
            };
            Some(FleetDiagnostic {
                cluster: Some(bp.cluster.clone()),
                diagnostic: diagnostic(
                    rule,
                    br.path.clone(),
                    format!(
                        "{} of cluster `{}` overlaps {} of cluster `{}`: both hold {shared}",
                        br.label(),
                        bp.cluster,
                        ar.label(),
                        ap.cluster
                    ),
                    Some(overlap_hint(br)),
                ),
            })
        }
        (Some((_, plan, range)), None) => fleet_range(plan, range, named(overlap.second)?, shared),
        (None, Some((_, plan, range))) => fleet_range(plan, range, named(overlap.first)?, shared),
        (None, None) => None,
    }
}

fn overlap_hint(range: &Range) -> String {
    match range.kind {
        RangeKind::Service => String::from(
            "choose another Service range for one of the clusters (kube-apiserver's --service-cluster-ip-range) and write it in `network.serviceCIDRs`",
        ),
        RangeKind::NodeSubnet => String::from(
            "correct `network.nodeSubnets`, or allow the code if both clusters share one node network by design",
        ),
        RangeKind::PodPool | RangeKind::LoadBalancer | RangeKind::Avoided => String::from(
            "give each cluster its own part of the fleet's address plan; `calico-render picture` draws the plan",
        ),
    }
}

/// A cluster's range against a reserved or routed range of the fleet file.
fn fleet_range(
    plan: &AddressPlan,
    range: &Range,
    (what, index, named): (&str, usize, &NamedRange),
    shared: IpNet,
) -> Option<FleetDiagnostic> {
    let reason = named
        .reason
        .as_deref()
        .map(|reason| format!(" ({reason})"))
        .unwrap_or_default();
    let (rule, message) = match (what, range.kind) {
        (_, RangeKind::Avoided) => return None,
        ("routed", RangeKind::NodeSubnet) => return None,
        ("routed", _) => (
            &c::FL_ROUTED_OVERLAP,
            format!(
                "{} of cluster `{}` overlaps the routed network {}{reason} of the fleet file (spec.routed[{index}]): both hold {shared}",
                range.label(),
                plan.cluster,
                named.cidr
            ),
        ),
        _ => (
            &c::FL_RESERVED_OVERLAP,
            format!(
                "{} of cluster `{}` overlaps the reserved range {}{reason} of the fleet file (spec.reserved[{index}]): both hold {shared}",
                range.label(),
                plan.cluster,
                named.cidr
            ),
        ),
    };
    Some(FleetDiagnostic {
        cluster: Some(plan.cluster.clone()),
        diagnostic: diagnostic(
            rule,
            range.path.clone(),
            message,
            Some(String::from(
                "move the cluster's range out of it, or correct the fleet file",
            )),
        ),
    })
}

/// The encapsulation family of a pool: the tunnel it uses, cross-subnet or not.
fn family(encapsulation: Encapsulation) -> &'static str {
    match encapsulation {
        Encapsulation::Vxlan | Encapsulation::VxlanCrossSubnet => "VXLAN",
        Encapsulation::Ipip | Encapsulation::IpipCrossSubnet => "IP-in-IP",
        Encapsulation::None => "no encapsulation",
    }
}

/// The routing settings of one routing group's members.
fn check_group(
    fleet: &Fleet,
    name: &str,
    members: &BTreeSet<usize>,
    plans: &[AddressPlan],
    out: &mut Vec<FleetDiagnostic>,
) {
    let _ = fleet;
    let member_plans: Vec<&AddressPlan> = members.iter().filter_map(|&i| plans.get(i)).collect();
    // How many pools of the group use each family: the most used one is the group's.
    let mut families: BTreeMap<&str, (usize, BTreeSet<&str>)> = BTreeMap::new();
    for plan in &member_plans {
        for pool in &plan.pools {
            let entry = families.entry(family(pool.encapsulation)).or_default();
            entry.0 += 1;
            entry.1.insert(plan.cluster.as_str());
        }
    }
    // The family most pools use is the group's; a tie goes to the name that sorts first, so the
    // choice does not depend on input order.
    let majority = families
        .iter()
        .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.0.cmp(a.0)))
        .map(|(family, (_, clusters))| (*family, clusters.clone()));
    for plan in &member_plans {
        let push = |out: &mut Vec<FleetDiagnostic>,
                    rule: &Rule,
                    path: String,
                    message: String,
                    hint: &str| {
            out.push(FleetDiagnostic {
                cluster: Some(plan.cluster.clone()),
                diagnostic: diagnostic(rule, path, message, Some(hint.to_owned())),
            });
        };
        if !plan.bgp {
            push(
                out,
                &c::FL_ROUTED_WITHOUT_BGP,
                String::from("spec.bgp.enabled"),
                format!(
                    "cluster `{}` is in routing group `{name}` but runs no BGP, so it announces no routes to its pods",
                    plan.cluster
                ),
                "set `spec.bgp.enabled: true` and peer with the shared routers (`spec.bgp.peers`)",
            );
        }
        for pool in &plan.pools {
            if let Some((majority, clusters)) = &majority
                && family(pool.encapsulation) != *majority
            {
                let names: Vec<&str> = clusters.iter().copied().collect();
                push(
                    out,
                    &c::FL_ROUTED_ENCAPSULATION,
                    format!("{}.encapsulation", pool.path),
                    format!(
                        "pod pool `{}` of cluster `{}` uses {} ({}), but the other pools of routing group `{name}` use {majority} (clusters {})",
                        pool.name,
                        plan.cluster,
                        family(pool.encapsulation),
                        pool.encapsulation.operator_value(),
                        names.join(", ")
                    ),
                    "use one encapsulation family across the group, or allow FL0202 if the clusters route natively",
                );
            }
            if pool.nat_outgoing {
                push(
                    out,
                    &c::FL_ROUTED_NAT,
                    format!("{}.natOutgoing", pool.path),
                    format!(
                        "pod pool `{}` ({}) of cluster `{}` SNATs its pods' traffic to the other clusters of routing group `{name}`",
                        pool.name, pool.net, plan.cluster
                    ),
                    "add a `disabled: true` IPPool per remote pod range as an extra object, or set `natOutgoing: false`",
                );
            }
            if pool.disable_bgp_export {
                push(
                    out,
                    &c::FL_ROUTED_NO_EXPORT,
                    format!("{}.disableBGPExport", pool.path),
                    format!(
                        "pod pool `{}` ({}) of cluster `{}` is never announced over BGP, so the other clusters of routing group `{name}` have no route to it",
                        pool.name, pool.net, plan.cluster
                    ),
                    "remove `disableBGPExport: true`",
                );
            }
        }
    }
}
