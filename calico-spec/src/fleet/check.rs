//! The fleet checks: overlaps between clusters' ranges and with the fleet's reserved and routed
//! ranges (one sort-and-sweep over every distinct range, each carrying the clusters that hold
//! it: O(n log n) plus the overlaps found, and one finding per group of clusters that share a
//! range, not one per pair), and the routing settings clusters that route to each other must
//! share.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use ipnet::IpNet;

use super::plan::{AddressPlan, Range, RangeKind};
use super::spec::{Fleet, NamedRange};
use crate::cluster_network::Encapsulation;
use crate::diag::Diagnostic;
use crate::rules::catalogue::{self as c, Rule};

/// How many clusters a message names before `and N more` ([`FleetDiagnostic::clusters`] has
/// them all).
pub const LISTED: usize = 5;

/// A fleet finding: a diagnostic and the cluster whose ClusterNetwork it points into (`None`:
/// the fleet file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetDiagnostic {
    /// The cluster by name, or `None` for the fleet file.
    pub cluster: Option<String>,
    /// The problem; its path is a field of that cluster's ClusterNetwork (or of the fleet file).
    pub diagnostic: Diagnostic,
    /// For an overlap: every cluster it names, sorted (the message lists the first
    /// [`LISTED`] of a long list); empty for other findings.
    pub clusters: Vec<String>,
    /// For an overlap: the addresses the ranges share.
    pub shared: Option<IpNet>,
}

/// Ranges that share addresses, found by [`overlaps`]: one range that several owners hold
/// (`second` empty), or two different ranges, one inside the other, each with its owners.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Overlap {
    /// The owners of the range that starts first (or contains the other), or of the one range
    /// they share; sorted.
    pub first: Vec<Owner>,
    /// The owners of the other range, sorted; empty when the owners of `first` share one range.
    pub second: Vec<Owner>,
    /// The addresses they share.
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

/// A range as an interval of integers: family, start, and the end reversed, so that of two
/// ranges starting together the larger (the container) sorts first.
type Key = (bool, u128, Reverse<u128>);

fn key(net: IpNet) -> Key {
    match net {
        IpNet::V4(net) => (
            false,
            u128::from(u32::from(net.network())),
            Reverse(u128::from(u32::from(net.broadcast()))),
        ),
        IpNet::V6(net) => (
            true,
            u128::from(net.network()),
            Reverse(u128::from(net.broadcast())),
        ),
    }
}

/// One distinct range and where its owners are in [`Swept::owners`].
#[derive(Debug)]
struct Distinct {
    key: Key,
    net: IpNet,
    owners: std::ops::Range<usize>,
}

/// What the sweep found, by index into the distinct ranges: a range held by several owners
/// (`second` `None`), or two ranges that overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    first: usize,
    second: Option<usize>,
    shared: IpNet,
}

/// The distinct ranges, sorted, and what overlaps among them.
#[derive(Debug)]
struct Swept {
    ranges: Vec<Distinct>,
    /// Every owner, sorted by range (each range's a run of it: no allocation per range).
    owners: Vec<Owner>,
    found: Vec<Found>,
}

/// Every overlap among the plans' ranges and the fleet's reserved and routed ranges: each range
/// that several owners hold, once with all of them, and each pair of different ranges that
/// overlap, with the owners of each. Owners of one plan are not left out here (the rules leave
/// out pairs within one plan). Equal ranges are merged first, then the distinct ones are
/// sorted by family and start and swept once, keeping the ranges still open in a heap ordered
/// by their end: each range meets only the open ones, which contain it (CIDRs nest or are
/// disjoint). O(n log n + k) for n ranges and k overlaps between distinct ranges, however many
/// clusters share one range; the result is sorted.
pub fn overlaps(
    plans: &[AddressPlan],
    reserved: &[NamedRange],
    routed: &[NamedRange],
) -> Vec<Overlap> {
    overlaps_where(plans, reserved, routed, |_, _| true)
}

/// [`overlaps`] over the plans' ranges that `keep(plan index, range)` keeps. The checks leave out
/// what no rule compares before the sweep: many clusters share one Service range by design
/// (kubeadm's default), and the rules would otherwise walk every cluster that holds it.
pub fn overlaps_where(
    plans: &[AddressPlan],
    reserved: &[NamedRange],
    routed: &[NamedRange],
    keep: impl Fn(usize, &Range) -> bool,
) -> Vec<Overlap> {
    let swept = sweep(plans, reserved, routed, keep);
    let owners = |index: usize| swept.owners(index).to_vec();
    let mut out: Vec<Overlap> = swept
        .found
        .iter()
        .map(|found| Overlap {
            first: owners(found.first),
            second: found.second.map(owners).unwrap_or_default(),
            shared: found.shared,
        })
        .collect();
    out.sort_unstable();
    out
}

fn sweep(
    plans: &[AddressPlan],
    reserved: &[NamedRange],
    routed: &[NamedRange],
    keep: impl Fn(usize, &Range) -> bool,
) -> Swept {
    let mut all: Vec<(Key, IpNet, Owner)> = Vec::new();
    for (plan_index, plan) in plans.iter().enumerate() {
        for (range_index, range) in plan.ranges.iter().enumerate() {
            if keep(plan_index, range) {
                let owner = Owner::Cluster {
                    plan: plan_index,
                    range: range_index,
                };
                all.push((key(range.net), range.net, owner));
            }
        }
    }
    for (index, range) in reserved.iter().enumerate() {
        all.push((key(range.cidr), range.cidr, Owner::Reserved(index)));
    }
    for (index, range) in routed.iter().enumerate() {
        all.push((key(range.cidr), range.cidr, Owner::Routed(index)));
    }
    all.sort_unstable();
    let mut ranges: Vec<Distinct> = Vec::new();
    let mut owners = Vec::with_capacity(all.len());
    for (position, (key, net, owner)) in all.into_iter().enumerate() {
        owners.push(owner);
        match ranges.last_mut() {
            Some(last) if last.key == key => last.owners.end = position + 1,
            _ => ranges.push(Distinct {
                key,
                net: net.trunc(),
                owners: position..position + 1,
            }),
        }
    }
    let mut found = Vec::new();
    // Open ranges: (end, index in `ranges`), the smallest end on top.
    let mut open: BinaryHeap<Reverse<(u128, usize)>> = BinaryHeap::new();
    let mut family = None;
    for (index, current) in ranges.iter().enumerate() {
        let (v6, start, Reverse(end)) = current.key;
        if current.owners.len() > 1 {
            found.push(Found {
                first: index,
                second: None,
                shared: current.net,
            });
        }
        if family != Some(v6) {
            open.clear();
            family = Some(v6);
        }
        while open
            .peek()
            .is_some_and(|Reverse((open_end, _))| *open_end < start)
        {
            open.pop();
        }
        for Reverse((_, earlier)) in &open {
            // An open range contains the current one: it is the larger of the two.
            found.push(Found {
                first: *earlier,
                second: Some(index),
                shared: current.net,
            });
        }
        open.push(Reverse((end, index)));
    }
    found.sort_unstable();
    Swept {
        ranges,
        owners,
        found,
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

/// What the rules were handed: the figures that grow with the square of the clusters if ranges
/// many clusters share are judged pair by pair, or if ranges no rule compares (the Service range
/// most clusters share) are swept again (tests hold them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Counts {
    /// Overlaps the sweep found: shared ranges and pairs of different ranges.
    pub overlaps: usize,
    /// Owners the rules looked at, summed over those overlaps.
    pub owners: usize,
}

/// [`check`], and what its sweep handed to the rules.
pub(super) fn check_counting(
    fleet: Option<&Fleet>,
    plans: &[AddressPlan],
) -> (Vec<FleetDiagnostic>, Counts) {
    let mut out = Vec::new();
    check_names(fleet, plans, &mut out);
    let context = Context::of(fleet, plans);
    let swept = sweep(plans, context.reserved, context.routed, |plan, range| {
        compared(&context.routing, plan, range)
    });
    let mut counts = Counts::default();
    for found in &swept.found {
        counts.overlaps += 1;
        counts.owners += swept.owners(found.first).len()
            + found.second.map_or(0, |second| swept.owners(second).len());
        out.extend(
            context
                .judge(&swept, found)
                .into_iter()
                .map(|finding| finding.diagnostic),
        );
    }
    (finish(fleet, plans, &context.routing, out), counts)
}

/// The overlaps [`check`] reports (each with the owners its finding names: clusters across
/// which a rule judges the range, and the fleet's reserved or routed range), in sweep order:
/// what a picture marks.
pub fn reported_overlaps(fleet: Option<&Fleet>, plans: &[AddressPlan]) -> Vec<Overlap> {
    let context = Context::of(fleet, plans);
    let swept = sweep(plans, context.reserved, context.routed, |plan, range| {
        compared(&context.routing, plan, range)
    });
    swept
        .found
        .iter()
        .flat_map(|found| {
            context
                .judge(&swept, found)
                .into_iter()
                .map(move |finding| Overlap {
                    first: finding.first,
                    second: finding.second,
                    shared: found.shared,
                })
        })
        .collect()
}

impl Swept {
    fn owners(&self, index: usize) -> &[Owner] {
        self.ranges
            .get(index)
            .and_then(|range| self.owners.get(range.owners.clone()))
            .unwrap_or_default()
    }
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
                clusters: Vec::new(),
                shared: None,
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
                    clusters: Vec::new(),
                    shared: None,
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
                clusters: Vec::new(),
                shared: None,
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

/// What the rules judge an overlap against: the plans, the fleet's named ranges and its routing
/// groups.
struct Context<'a> {
    plans: &'a [AddressPlan],
    reserved: &'a [NamedRange],
    routed: &'a [NamedRange],
    routing: Routing,
}

/// A finding and the owners it names (for the picture).
struct Finding {
    diagnostic: FleetDiagnostic,
    first: Vec<Owner>,
    second: Vec<Owner>,
}

/// The owners of one range that a rule treats alike: the clusters that hold it as one kind of
/// range, or one reserved or routed range of the fleet file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Cluster(RangeKind),
    Reserved(usize),
    Routed(usize),
}

/// A routing group's name and members, for the rules that compare only clusters that route to
/// each other; `None`: every cluster.
type Scope<'a> = Option<(&'a str, &'a BTreeSet<usize>)>;

impl<'a> Context<'a> {
    fn of(fleet: Option<&'a Fleet>, plans: &'a [AddressPlan]) -> Context<'a> {
        let (reserved, routed) = match fleet {
            Some(fleet) => (fleet.spec.reserved.as_slice(), fleet.spec.routed.as_slice()),
            None => (&[][..], &[][..]),
        };
        Context {
            plans,
            reserved,
            routed,
            routing: Routing::of(fleet, plans),
        }
    }

    fn range(&self, owner: Owner) -> Option<(&'a AddressPlan, &'a Range)> {
        match owner {
            Owner::Cluster { plan, range } => {
                let plan = self.plans.get(plan)?;
                Some((plan, plan.ranges.get(range)?))
            }
            Owner::Reserved(_) | Owner::Routed(_) => None,
        }
    }

    /// The owners of one range by [`Side`] (avoided ranges are never compared).
    fn sides(&self, owners: &[Owner]) -> BTreeMap<Side, Vec<Owner>> {
        let mut sides: BTreeMap<Side, Vec<Owner>> = BTreeMap::new();
        for owner in owners {
            let side = match *owner {
                Owner::Cluster { .. } => match self.range(*owner) {
                    Some((_, range)) if range.kind != RangeKind::Avoided => {
                        Side::Cluster(range.kind)
                    }
                    _ => continue,
                },
                Owner::Reserved(index) => Side::Reserved(index),
                Owner::Routed(index) => Side::Routed(index),
            };
            sides.entry(side).or_default().push(*owner);
        }
        sides
    }

    /// The findings for one overlap the sweep found: within one range, each kind's clusters as
    /// a group and each two kinds or a kind and a fleet range as a pair; across two ranges, each
    /// side of the one against each side of the other.
    fn judge(&self, swept: &Swept, found: &Found) -> Vec<Finding> {
        let mut out = Vec::new();
        let first = self.sides(swept.owners(found.first));
        match found.second {
            None => {
                let sides: Vec<(&Side, &Vec<Owner>)> = first.iter().collect();
                for (index, a) in sides.iter().enumerate() {
                    self.judge_sides(*a, None, found.shared, &mut out);
                    for b in sides.get(index + 1..).unwrap_or_default() {
                        self.judge_sides(*a, Some(*b), found.shared, &mut out);
                    }
                }
            }
            Some(second) => {
                let second = self.sides(swept.owners(second));
                for a in &first {
                    for b in &second {
                        self.judge_sides(a, Some(b), found.shared, &mut out);
                    }
                }
            }
        }
        out
    }

    /// One side alone (the clusters that hold one range as one kind), or two sides.
    fn judge_sides(
        &self,
        a: (&Side, &Vec<Owner>),
        b: Option<(&Side, &Vec<Owner>)>,
        shared: IpNet,
        out: &mut Vec<Finding>,
    ) {
        match (*a.0, b.map(|b| *b.0)) {
            (Side::Cluster(kind), None) => {
                let mut seen = BTreeSet::new();
                for scope in self.scopes(kind == RangeKind::Service) {
                    let members = self.within(a.1, scope);
                    if self.plans_of(&members).len() > 1 && seen.insert(members.clone()) {
                        out.extend(self.group(kind, members, scope, shared));
                    }
                }
            }
            (Side::Cluster(a_kind), Some(Side::Cluster(b_kind))) => {
                let rule = rule(a_kind, b_kind);
                let involves_service = a_kind == RangeKind::Service || b_kind == RangeKind::Service;
                let mut seen = BTreeSet::new();
                for scope in self.scopes(involves_service) {
                    let (x, y) = (
                        self.within(a.1, scope),
                        self.within(b.map_or(&[][..], |b| b.1), scope),
                    );
                    let (x, y) = (involved(&x, &y), involved(&y, &x));
                    if !x.is_empty() && seen.insert((x.clone(), y.clone())) {
                        out.extend(self.pair(rule, x, y, shared));
                    }
                }
            }
            (Side::Cluster(_), Some(named)) => {
                out.extend(self.fleet_range(a.1, named, shared));
            }
            (named, Some(Side::Cluster(_))) => {
                if let Some(b) = b {
                    out.extend(self.fleet_range(b.1, named, shared));
                }
            }
            _ => {}
        }
    }

    /// Where a rule compares clusters: every routing group for rules that compare only
    /// clusters that route to each other (Service ranges), else the whole fleet.
    fn scopes(&self, routed_only: bool) -> Vec<Scope<'_>> {
        if routed_only {
            self.routing
                .groups
                .iter()
                .map(|(name, members)| Some((name.as_str(), members)))
                .collect()
        } else {
            vec![None]
        }
    }

    /// The cluster owners in `scope`.
    fn within(&self, owners: &[Owner], scope: Scope<'_>) -> Vec<Owner> {
        owners
            .iter()
            .filter(|owner| match (plan_of(**owner), scope) {
                (Some(plan), Some((_, members))) => members.contains(&plan),
                (Some(_), None) => true,
                (None, _) => false,
            })
            .copied()
            .collect()
    }

    /// The plans the owners belong to.
    fn plans_of(&self, owners: &[Owner]) -> BTreeSet<usize> {
        owners.iter().filter_map(|owner| plan_of(*owner)).collect()
    }

    /// The clusters' names, sorted, each once.
    fn names(&self, owners: &[Owner]) -> Vec<&'a str> {
        let names: BTreeSet<&str> = owners
            .iter()
            .filter_map(|owner| self.range(*owner))
            .map(|(plan, _)| plan.cluster.as_str())
            .collect();
        names.into_iter().collect()
    }

    /// The owner a finding is reported at: the cluster whose (name, field path) sorts last.
    fn reported_at(&self, owners: &[Owner]) -> Option<(&'a AddressPlan, &'a Range)> {
        owners
            .iter()
            .filter_map(|owner| self.range(*owner))
            .max_by(|(a_plan, a), (b_plan, b)| {
                (a_plan.cluster.as_str(), a.path.as_str())
                    .cmp(&(b_plan.cluster.as_str(), b.path.as_str()))
            })
    }

    /// `pod pool `p` (10.0.0.0/16) of cluster `a``, or for several clusters that hold one range
    /// `pod pool 10.0.0.0/16 of 3 clusters (`a`, `b`, `c`)`.
    fn describe(&self, owners: &[Owner]) -> String {
        let names = self.names(owners);
        let Some((_, range)) = owners.first().and_then(|owner| self.range(*owner)) else {
            return String::new();
        };
        match names.as_slice() {
            [name] => format!("{} of cluster `{name}`", range.label()),
            _ => format!(
                "{} {} of {} clusters ({})",
                range.kind.describe(),
                range.net,
                names.len(),
                list_clusters(&names)
            ),
        }
    }

    fn finding(
        &self,
        rule: &Rule,
        shared: IpNet,
        at: (&AddressPlan, &Range),
        message: String,
        hint: String,
        (first, second): (Vec<Owner>, Vec<Owner>),
    ) -> Finding {
        let mut all = first.clone();
        all.extend(second.iter().copied());
        let clusters = self.names(&all).into_iter().map(str::to_owned).collect();
        Finding {
            diagnostic: FleetDiagnostic {
                cluster: Some(at.0.cluster.clone()),
                diagnostic: diagnostic(rule, at.1.path.clone(), message, Some(hint)),
                clusters,
                shared: Some(shared),
            },
            first,
            second,
        }
    }

    /// Clusters of two or more plans that hold one range as one kind. Two are named as a pair,
    /// more as a group.
    fn group(
        &self,
        kind: RangeKind,
        members: Vec<Owner>,
        scope: Scope<'_>,
        shared: IpNet,
    ) -> Option<Finding> {
        let rule = rule(kind, kind);
        let names = self.names(&members);
        if let [_, _] = names.as_slice() {
            let split = members.first().and_then(|owner| plan_of(*owner));
            let (x, y): (Vec<Owner>, Vec<Owner>) =
                members.iter().partition(|owner| plan_of(**owner) == split);
            return self.pair(rule, x, y, shared);
        }
        let at = self.reported_at(&members)?;
        let group = scope
            .map(|(name, _)| format!(" of routing group `{name}`"))
            .unwrap_or_default();
        let message = format!(
            "{} {shared} is used by {} clusters{group}: {}; all hold {shared}",
            kind.describe(),
            names.len(),
            list_clusters(&names)
        );
        Some(self.finding(
            rule,
            shared,
            at,
            message,
            overlap_hint(at.1),
            (members, Vec::new()),
        ))
    }

    /// Two different sides, each already reduced to the owners that meet one of the other's
    /// plans; told from the side of the cluster it is reported at.
    fn pair(&self, rule: &Rule, x: Vec<Owner>, y: Vec<Owner>, shared: IpNet) -> Option<Finding> {
        let (at_x, at_y) = (self.reported_at(&x)?, self.reported_at(&y)?);
        let x_last = (at_x.0.cluster.as_str(), at_x.1.path.as_str())
            >= (at_y.0.cluster.as_str(), at_y.1.path.as_str());
        let (at, subject, other) = if x_last {
            (at_x, &x, &y)
        } else {
            (at_y, &y, &x)
        };
        let message = format!(
            "{} overlaps {}: both hold {shared}",
            self.describe(subject),
            self.describe(other)
        );
        Some(self.finding(rule, shared, at, message, overlap_hint(at.1), (x, y)))
    }

    /// The clusters of one side against a reserved or routed range of the fleet file.
    fn fleet_range(&self, owners: &[Owner], named: Side, shared: IpNet) -> Option<Finding> {
        let (_, range) = self.range(*owners.first()?)?;
        let (rule, what, index, list, owner) = match named {
            Side::Reserved(index) => (
                &c::FL_RESERVED_OVERLAP,
                "the reserved range",
                index,
                self.reserved,
                Owner::Reserved(index),
            ),
            Side::Routed(_) if range.kind == RangeKind::NodeSubnet => return None,
            Side::Routed(index) => (
                &c::FL_ROUTED_OVERLAP,
                "the routed network",
                index,
                self.routed,
                Owner::Routed(index),
            ),
            Side::Cluster(_) => return None,
        };
        let named_range = list.get(index)?;
        let field = if matches!(named, Side::Reserved(_)) {
            "reserved"
        } else {
            "routed"
        };
        let reason = named_range
            .reason
            .as_deref()
            .map(|reason| format!(" ({reason})"))
            .unwrap_or_default();
        let message = format!(
            "{} overlaps {what} {}{reason} of the fleet file (spec.{field}[{index}]): both hold {shared}",
            self.describe(owners),
            named_range.cidr
        );
        let at = self.reported_at(owners)?;
        Some(self.finding(
            rule,
            shared,
            at,
            message,
            String::from("move the cluster's range out of it, or correct the fleet file"),
            (owners.to_vec(), vec![owner]),
        ))
    }
}

/// The rule for two kinds of range that overlap.
fn rule(a: RangeKind, b: RangeKind) -> &'static Rule {
    match (a, b) {
        (RangeKind::PodPool, RangeKind::PodPool) => &c::FL_POD_OVERLAP,
        (RangeKind::Service, RangeKind::Service) => &c::FL_SERVICE_OVERLAP,
        (RangeKind::LoadBalancer, RangeKind::LoadBalancer) => &c::FL_LOAD_BALANCER_OVERLAP,
        (RangeKind::NodeSubnet, RangeKind::NodeSubnet) => &c::FL_NODE_OVERLAP,
        _ => &c::FL_KIND_OVERLAP,
    }
}

fn plan_of(owner: Owner) -> Option<usize> {
    match owner {
        Owner::Cluster { plan, .. } => Some(plan),
        Owner::Reserved(_) | Owner::Routed(_) => None,
    }
}

/// The owners of `x` that hold their range with some owner of `y` from another plan (pairs
/// within one plan are the cluster's own checks). Linear: it needs only two of `y`'s plans.
fn involved(x: &[Owner], y: &[Owner]) -> Vec<Owner> {
    let mut plans: Vec<usize> = Vec::with_capacity(2);
    for plan in y.iter().filter_map(|owner| plan_of(*owner)) {
        if !plans.contains(&plan) {
            plans.push(plan);
            if plans.len() == 2 {
                break;
            }
        }
    }
    x.iter()
        .filter(|owner| {
            plan_of(**owner).is_some_and(|plan| plans.iter().any(|other| *other != plan))
        })
        .copied()
        .collect()
}

/// Up to [`LISTED`] names in backticks, then `and N more`.
pub fn list_clusters(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(LISTED)
        .map(|name| format!("`{name}`"))
        .collect();
    match names.len().saturating_sub(LISTED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
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
                clusters: Vec::new(),
                shared: None,
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
