//! The CRDs' CEL rules (`x-kubernetes-validations`), evaluated as the API server evaluates them.
//!
//! Each release's rules come from its schema index (`generated/index/<release>.jsonl`), so a new
//! release's rules need no code here: [`Release::crd_rules`] reads the rules of the index and
//! compiles a kind's rules once, the first time a document of that kind is checked, with the
//! `cel` interpreter and the Kubernetes CEL libraries (the `kube-cel` crate). A rule is evaluated at its schema node on every
//! value of the object at that node (`spec`, `spec.routeTableRanges[3]`, a map value), with
//! `self` bound to that value after the CRD's defaults are filled in and nulls dropped, as the
//! API server does before it evaluates. A rule that fails reports the CRD's `message` (or its
//! `messageExpression`), its `reason` and its `fieldPath`.
//!
//! Codes: the rule catalogue stays the only definition of a code. [`CATALOGUED`] says which
//! catalogue entry stands for a CRD rule (by kind and the CRD's message); every other rule
//! reports `CR0009`. When the catalogue's own check of the same code has already reported on
//! the document (it points at the precise field and says how to fix it), the CRD's words are
//! added to that diagnostic's hint instead of a second diagnostic.
//!
//! Nothing passes silently: a rule that does not parse, calls a function the interpreter does
//! not provide, or cannot be evaluated on an object whose types are right is reported as
//! `CR0009` (an error: the API server would evaluate it). Transition rules (`oldSelf`) compare
//! with the stored object, which `validate` does not have: they are listed by
//! `validate --list-rules` as not evaluated and skipped, unless `optionalOldSelf` makes them
//! apply on create too (then `oldSelf` is `optional.none()`).
//!
//! Cost: parsing a rule costs tens of microseconds and an interpreted rule microseconds, while
//! a large stream has thousands of pools. Most CRD rules are disjunctions such as
//! `!has(self.x) || self.y == 'Never' || ...`: such a rule holds whenever one of those terms
//! does. Codegen records the terms in the index (`calico_codegen::cel_terms`); [`Shortcuts`]
//! checks them on the JSON value directly, and the rule is parsed and evaluated only when none
//! holds (a render of the article's cluster parses no rule). The result is exactly what
//! evaluation would give. [`evaluate`] walks a kind's rules grouped by schema path: a pool's
//! `spec` is found once for its four rules, its fields read once for all their terms, and
//! transition rules (marked in the index) are left out before any document is seen.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, OnceLock};

use ipnet::IpNet;

use kube_cel::KubeCelExt as _;
use kube_cel::cel::common::ast::Expr;
use kube_cel::cel::objects::{Key, Map};
use kube_cel::cel::parser::{Expression, Parser};
use kube_cel::cel::{Context as CelContext, ExecutionError, Value as CelValue};
use serde_json::Value;

use super::{CelRule, Node, Release};
use crate::diag::Diagnostic;
use crate::rules::catalogue::{self as c, Rule};
use crate::source::{join_index, join_key};

/// The catalogue entries that stand for CRD rules: `(kind, the CRD's message, code, field)`.
/// `field` is where the diagnostic points when the CRD's rule sits on `spec` or on the object
/// and names no `fieldPath` (the field the catalogue's own check points at). A rule not listed
/// here reports [`c::CRD_RULE`].
pub const CATALOGUED: &[(&str, &str, &Rule, Option<&str>)] = &[
    (
        "APIServer",
        "resource name must be 'default' or 'tigera-secure'",
        &c::APISERVER_NAME,
        Some("metadata.name"),
    ),
    (
        "BGPConfiguration",
        "nodeMeshPassword cannot be set when nodeToNodeMeshEnabled is false",
        &c::BGP_MESH_ONLY,
        Some("spec.nodeMeshPassword"),
    ),
    (
        "BGPConfiguration",
        "nodeMeshMaxRestartTime cannot be set when nodeToNodeMeshEnabled is false",
        &c::BGP_MESH_ONLY,
        Some("spec.nodeMeshMaxRestartTime"),
    ),
    (
        "BGPPeer",
        "node and nodeSelector cannot both be set",
        &c::PEER_NODE_AND_SELECTOR,
        Some("spec.nodeSelector"),
    ),
    (
        "BGPPeer",
        "peerIP and peerSelector cannot both be set",
        &c::PEER_IP_AND_SELECTOR,
        Some("spec.peerSelector"),
    ),
    (
        "BGPPeer",
        "asNumber must be empty when peerSelector is set",
        &c::PEER_AS_WITH_SELECTOR,
        Some("spec.asNumber"),
    ),
    (
        "BGPPeer",
        "peerIP must be empty when localWorkloadSelector is set",
        &c::PEER_LOCAL_WORKLOAD,
        Some("spec.peerIP"),
    ),
    (
        "BGPPeer",
        "peerSelector must be empty when localWorkloadSelector is set",
        &c::PEER_LOCAL_WORKLOAD,
        Some("spec.peerSelector"),
    ),
    (
        "BGPPeer",
        "asNumber is required when localWorkloadSelector is set",
        &c::PEER_LOCAL_WORKLOAD,
        Some("spec.localWorkloadSelector"),
    ),
    (
        "FelixConfiguration",
        "nodeSelector must not be set on the 'default' or per-node ('node.*') FelixConfiguration",
        &c::FELIX_NODE_SELECTOR,
        Some("spec.nodeSelector"),
    ),
    (
        "FelixConfiguration",
        "routeTableRange and routeTableRanges cannot both be set",
        &c::FELIX_ROUTE_TABLE_BOTH,
        Some("spec.routeTableRanges"),
    ),
    (
        "IPPool",
        "ipipMode and vxlanMode cannot both be enabled",
        &c::POOL_IPIP_AND_VXLAN,
        Some("spec.ipipMode"),
    ),
    (
        "IPPool",
        "LoadBalancer IP pool cannot have IPIP or VXLAN enabled",
        &c::POOL_LB_ENCAP,
        None,
    ),
    (
        "IPPool",
        "LoadBalancer cannot be combined with Workload or Tunnel allowed uses",
        &c::POOL_LB_COMBINED,
        Some("spec.allowedUses"),
    ),
    (
        "IPPool",
        "IPIP is not supported on IPv6 pools",
        &c::POOL_IPIP_V6,
        Some("spec.ipipMode"),
    ),
    (
        "Installation",
        "resource name must be 'default', 'tigera-secure', or 'overlay'",
        &c::INSTALLATION_NAME,
        Some("metadata.name"),
    ),
    // Rules the v3.33 CRDs (release-v3.33 at 6609dea) moved into CEL from libcalico-go's
    // validator, which the catalogue already checks.
    (
        "IPPool",
        "IPPool CIDR overlaps with IPv4 link local range 169.254.0.0/16",
        &c::POOL_LINK_LOCAL,
        Some("spec.cidr"),
    ),
    (
        "IPPool",
        "IPPool CIDR overlaps with IPv6 link local range fe80::/10",
        &c::POOL_LINK_LOCAL,
        Some("spec.cidr"),
    ),
    (
        "IPPool",
        "LoadBalancer IP pools cannot disable BGP export",
        &c::POOL_LB_BGP_EXPORT,
        Some("spec.disableBGPExport"),
    ),
    (
        "IPPool",
        "IP Pool with AllowedUse LoadBalancer must have nodeSelector set to all()",
        &c::POOL_LB_SELECTOR,
        Some("spec.nodeSelector"),
    ),
    (
        "IPPool",
        "IP Pool with AllowedUse Tunnel cannot have namespaceSelector",
        &c::POOL_TUNNEL_NAMESPACE,
        Some("spec.namespaceSelector"),
    ),
    (
        "IPPool",
        "blockSize must be between 20 and 32 for IPv4 pools, and between 116 and 128 for IPv6 pools",
        &c::POOL_BLOCK_SIZE,
        Some("spec.blockSize"),
    ),
    (
        "IPPool",
        "global() selector is not valid for IPPool namespaceSelector",
        &c::POOL_GLOBAL_SELECTOR,
        Some("spec.namespaceSelector"),
    ),
    (
        "IPPool",
        "global() selector is not valid for IPPool nodeSelector",
        &c::POOL_GLOBAL_SELECTOR,
        Some("spec.nodeSelector"),
    ),
    (
        "IPPool",
        "IP pool size is too small for use with Calico IPAM. It must be equal to or greater than the block size.",
        &c::POOL_TOO_SMALL,
        Some("spec.cidr"),
    ),
    (
        "IPPool",
        "IPPool CIDR must be strictly masked",
        &c::POOL_CIDR_HOST_BITS,
        Some("spec.cidr"),
    ),
    (
        "BGPPeer",
        "keepOriginalNextHop and nextHopMode cannot both be set; keepOriginalNextHop is deprecated, use nextHopMode instead",
        &c::PEER_KEEP_NEXT_HOP,
        Some("spec.keepOriginalNextHop"),
    ),
    (
        "BGPPeer",
        "reachableBy must be empty when peerIP is empty",
        &c::PEER_REACHABLE_BY,
        Some("spec.reachableBy"),
    ),
    (
        "FelixConfiguration",
        "natOutgoingAddress must be a valid IPv4 address",
        &c::FELIX_SOURCE_ADDRESS,
        Some("spec.natOutgoingAddress"),
    ),
    (
        "FelixConfiguration",
        "deviceRouteSourceAddress must be a valid IPv4 address",
        &c::FELIX_SOURCE_ADDRESS,
        Some("spec.deviceRouteSourceAddress"),
    ),
    (
        "FelixConfiguration",
        "deviceRouteSourceAddressIPv6 must be a valid IPv6 address",
        &c::FELIX_SOURCE_ADDRESS,
        Some("spec.deviceRouteSourceAddressIPv6"),
    ),
];

/// Catalogue entries that only a CRD rule reports: the CRD is the only layer that refuses
/// these (Calico's and the operator's validators do not check them), so they apply in a release
/// exactly when its CRD has the rule. The Installation and APIServer name rules arrive with the
/// v3.32 CRDs; the v3.30 and v3.31 CRDs accept any name.
pub const ONLY_CRD_RULES: &[&Rule] = &[&c::INSTALLATION_NAME, &c::APISERVER_NAME];

/// The releases in which the catalogue entry `rule` can be reported: the codes of the release
/// index checks only for releases older than the newest, [`c::CRD_RULE`] and
/// [`ONLY_CRD_RULES`] where the release's CRDs have such a rule, everything else in every
/// release.
pub fn releases_of(rule: &Rule) -> Vec<&'static Release> {
    super::RELEASES
        .iter()
        .filter(|release| {
            if rule.code == c::RELEASE_UNKNOWN_FIELD.code || rule.code == c::RELEASE_VALUE.code {
                !release.is_newest()
            } else if rule.code == c::CN_LINT_RELEASE_UNSUPPORTED.code {
                !release.upstream_supported()
            } else if rule.code == c::CRD_RULE.code {
                release.crd_rules().all().next().is_some()
            } else if ONLY_CRD_RULES.iter().any(|only| only.code == rule.code) {
                release.crd_rules().all().any(|r| r.code.code == rule.code)
            } else {
                true
            }
        })
        .collect()
}

/// The compiled CRD rules of one release, kept with the release: a slot per indexed kind,
/// filled the first time that kind is checked (a stream of pools compiles only the IPPool
/// rules).
#[derive(Debug, Default)]
pub struct Compiled {
    /// By kind, at the kind's slot in the index ([`super::Index::slot`]); a kind whose CRD has
    /// no rules compiles to none.
    by_kind: Vec<OnceLock<KindRules>>,
}

/// Every CRD rule of one release, by kind: its index and its compiled rules.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    index: &'a super::Index,
    compiled: &'a Compiled,
}

/// The rules of one kind, and the order [`evaluate`] walks them in.
#[derive(Debug, Default)]
struct KindRules {
    rules: Vec<CompiledRule>,
    /// Some evaluated rule sits on the object itself (it needs `metadata.name`, see
    /// [`evaluate`]).
    on_object: bool,
    /// The evaluated rules on paths without list items or map values, grouped by path: a
    /// document walks each path once and looks up once each field the group's shortcuts read.
    groups: Vec<Group>,
    /// The evaluated rules on paths through list items or map values (indices into `rules`),
    /// located value by value.
    located: Vec<usize>,
}

/// Most fields a [`Group`] looks up for its shortcuts (kept on the stack); a term on a further
/// field is left out, and its rule is evaluated instead whenever no other term settles it.
const GROUP_FIELDS: usize = 8;

/// Up to how many fields [`Group::read`] scans a map rather than searching it.
const SCANNED_FIELDS: usize = 16;

/// The rules on one plain schema path.
#[derive(Debug)]
struct Group {
    keys: Vec<String>,
    /// The fields of the value at `keys` that the terms read, with their CRD defaults.
    fields: Vec<(String, Option<Value>)>,
    /// The rules (indices into the kind's rules), each with its shortcut terms over `fields`.
    rules: Vec<(usize, Vec<Term>)>,
}

/// A [`Shortcut`] with its field as a position in [`Group::fields`].
#[derive(Debug)]
enum Term {
    Absent(usize),
    Equals(usize, Value),
    Empty(usize),
    Lacks(usize, String),
    /// [`Shortcut::Nested`], read from the value itself.
    Nested(Vec<String>, Value),
}

impl Term {
    /// Whether the term holds on `value`, given the group's fields of it as the rule sees them.
    fn holds(&self, value: &Value, fields: &[Option<&Value>]) -> bool {
        let field = |slot: &usize| fields.get(*slot).copied().flatten();
        match self {
            Term::Absent(slot) => field(slot).is_none(),
            Term::Equals(slot, literal) => field(slot) == Some(literal),
            Term::Empty(slot) => is_empty(field(slot)),
            Term::Lacks(slot, text) => lacks(field(slot), text),
            Term::Nested(path, literal) => nested(value, path) == Some(literal),
        }
    }
}

/// The value at `path` under `value` (nulls are absent).
fn nested<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter()
        .try_fold(value, |value, key| value.get(key))
        .filter(|value| !value.is_null())
}

fn is_empty(value: Option<&Value>) -> bool {
    match value {
        Some(Value::String(text)) => text.is_empty(),
        Some(Value::Array(items)) => items.is_empty(),
        Some(Value::Object(fields)) => fields.is_empty(),
        _ => false,
    }
}

fn lacks(value: Option<&Value>, text: &str) -> bool {
    let Some(Value::String(value)) = value else {
        return false;
    };
    match text.as_bytes() {
        // One ASCII character (`:`): a byte scan, cheaper than a substring search.
        [byte] => !value.as_bytes().contains(byte),
        _ => !value.contains(text),
    }
}

impl KindRules {
    fn of(rules: Vec<CompiledRule>) -> KindRules {
        let mut out = KindRules::default();
        for (idx, rule) in rules.iter().enumerate() {
            if rule.rule.transition && rule.rule.optional_old_self != Some(true) {
                continue;
            }
            out.on_object |= rule.path.is_empty();
            let Some(keys) = &rule.plain else {
                out.located.push(idx);
                continue;
            };
            let group = match out.groups.iter().position(|group| group.keys == *keys) {
                Some(at) => at,
                None => {
                    out.groups.push(Group {
                        keys: keys.clone(),
                        fields: Vec::new(),
                        rules: Vec::new(),
                    });
                    out.groups.len() - 1
                }
            };
            let Some(group) = out.groups.get_mut(group) else {
                continue;
            };
            let terms = rule
                .shortcuts
                .terms
                .iter()
                .filter_map(|term| group.term(term, &rule.shortcuts.defaults))
                .collect();
            group.rules.push((idx, terms));
        }
        out.rules = rules;
        out
    }
}

impl Group {
    /// The group's fields of `map` into `out`, as the rules see them: nulls dropped, CRD
    /// defaults in place of absent fields. A small map (a pool's spec) is scanned once, a large
    /// one searched field by field.
    fn read<'v>(&'v self, map: &'v serde_json::Map<String, Value>, out: &mut [Option<&'v Value>]) {
        if map.len() <= SCANNED_FIELDS {
            for (key, field) in map {
                if field.is_null() {
                    continue;
                }
                let slot = self.fields.iter().position(|(name, _)| name == key);
                if let Some(slot) = slot.and_then(|slot| out.get_mut(slot)) {
                    *slot = Some(field);
                }
            }
        } else {
            for ((name, _), slot) in self.fields.iter().zip(out.iter_mut()) {
                *slot = map.get(name).filter(|field| !field.is_null());
            }
        }
        for ((_, default), slot) in self.fields.iter().zip(out.iter_mut()) {
            if slot.is_none() {
                *slot = default.as_ref();
            }
        }
    }

    /// `shortcut` over the group's fields (adding its field), unless the group has no room.
    fn term(&mut self, shortcut: &Shortcut, defaults: &BTreeMap<String, Value>) -> Option<Term> {
        let name = match shortcut {
            Shortcut::Absent(name)
            | Shortcut::Equals(name, _)
            | Shortcut::Empty(name)
            | Shortcut::Lacks(name, _) => name,
            Shortcut::Nested(path, literal) => {
                return Some(Term::Nested(path.clone(), literal.clone()));
            }
        };
        let slot = match self.fields.iter().position(|(field, _)| field == name) {
            Some(slot) => slot,
            None if self.fields.len() < GROUP_FIELDS => {
                self.fields
                    .push((name.clone(), defaults.get(name).cloned()));
                self.fields.len() - 1
            }
            None => return None,
        };
        Some(match shortcut {
            Shortcut::Absent(_) => Term::Absent(slot),
            Shortcut::Equals(_, literal) => Term::Equals(slot, literal.clone()),
            Shortcut::Empty(_) => Term::Empty(slot),
            Shortcut::Lacks(_, text) => Term::Lacks(slot, text.clone()),
            Shortcut::Nested(path, literal) => Term::Nested(path.clone(), literal.clone()),
        })
    }
}

/// One CRD rule, ready to evaluate (or the reason it cannot be).
#[derive(Debug)]
pub struct CompiledRule {
    /// The kind whose CRD has the rule.
    pub kind: String,
    /// The schema node the rule sits on, as an index path (`spec`, `spec.routeTableRanges[*]`,
    /// `spec.labels.*`; empty for the object).
    pub path: String,
    /// The rule as the CRD states it.
    pub rule: CelRule,
    /// The catalogue entry it reports.
    pub code: &'static Rule,
    /// Where it points when the CRD names no `fieldPath` (see [`CATALOGUED`]).
    pub field: Option<&'static str>,
    /// The path's keys, when it has no list items or map values on the way (the common case,
    /// walked without allocating).
    plain: Option<Vec<String>>,
    /// The index's terms of the rule (with the CRD defaults of their fields).
    shortcuts: Shortcuts,
    /// The rule's Rust form, when it is one of [`NATIVE`] (found by its text).
    native: Option<Native>,
    /// The parsed rule, made the first time the rule is evaluated or asked about: most
    /// documents are settled by the shortcuts, and parsing costs more than many checks.
    state: OnceLock<State>,
}

#[derive(Debug)]
enum State {
    Ready(Box<Ready>),
    /// A transition rule (`oldSelf`) without `optionalOldSelf`: needs the stored object.
    Transition,
    /// Cannot be evaluated here; the reason.
    NotEvaluable(String),
}

#[derive(Debug)]
struct Ready {
    expr: Expression,
    message: Option<Expression>,
    /// `optionalOldSelf: true`: `oldSelf` is bound to `optional.none()`.
    old_self_none: bool,
}

/// What [`CompiledRule::status`] says about a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleStatus {
    /// Evaluated on every object.
    Evaluated,
    /// A transition rule: compares with the stored object, not evaluated by `validate`.
    Transition,
    /// Cannot be evaluated by this build; reported as an error wherever its node is present.
    NotEvaluable(String),
}

impl CompiledRule {
    /// Whether and how the rule is evaluated.
    pub fn status(&self) -> RuleStatus {
        match self.state() {
            State::Ready(_) => RuleStatus::Evaluated,
            State::Transition => RuleStatus::Transition,
            State::NotEvaluable(reason) => RuleStatus::NotEvaluable(reason.clone()),
        }
    }

    /// The parsed rule (parsed on first use).
    fn state(&self) -> &State {
        self.state.get_or_init(|| prepare(&self.rule))
    }

    /// The message the CRD gives, or the API server's default one.
    pub fn static_message(&self) -> String {
        self.rule
            .message
            .clone()
            .unwrap_or_else(|| format!("failed rule: {}", self.rule.rule))
    }
}

impl Compiled {
    /// A slot for each kind of `index` (nothing is read or parsed yet).
    pub(super) fn of(index: &super::Index) -> Compiled {
        Compiled {
            by_kind: index.kinds().map(|_| OnceLock::new()).collect(),
        }
    }
}

impl<'a> Rules<'a> {
    /// The rules of `index`, compiled into `compiled` kind by kind as they are asked for.
    pub(super) fn new(index: &'a super::Index, compiled: &'a Compiled) -> Rules<'a> {
        Rules { index, compiled }
    }

    fn kind(self, kind: &str) -> Option<&'a KindRules> {
        self.at(self.index.slot(kind)?)
    }

    /// The rules of the kind at `slot` of the index, compiled the first time.
    fn at(self, slot: usize) -> Option<&'a KindRules> {
        let index = self.index;
        self.compiled.by_kind.get(slot).map(|rules| {
            rules.get_or_init(|| {
                let mut rules = Vec::new();
                if let (Some(kind), Some(root)) = (index.name_at(slot), index.kind_at(slot)) {
                    collect(kind, root, &mut String::new(), &mut rules);
                }
                KindRules::of(rules)
            })
        })
    }

    /// The rules of `kind` (none when its CRD has none).
    pub fn for_kind(self, kind: &str) -> &'a [CompiledRule] {
        self.kind(kind).map_or(&[], |rules| rules.rules.as_slice())
    }

    /// Every rule, by kind then schema path (compiles every kind).
    pub fn all(self) -> impl Iterator<Item = &'a CompiledRule> {
        self.index.kinds().flat_map(move |kind| self.for_kind(kind))
    }
}

/// The rules at and under `node`, whose index path is `path` (a buffer: each level appends its
/// key and takes it off again). Only the branches the index marks as holding rules are read.
fn collect(kind: &str, node: &Node, path: &mut String, out: &mut Vec<CompiledRule>) {
    if !node.holds_cel {
        return;
    }
    for rule in &node.cel {
        out.push(compile_rule(kind, path, rule, node));
    }
    // Index paths, not object paths: keys joined with dots as written, never quoted.
    let mut child = |key: &str, child: &Node, path: &mut String| {
        let len = path.len();
        if key != "[*]" && !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        collect(kind, child, path, out);
        path.truncate(len);
    };
    for key in node.cel_fields() {
        if let Some(field) = node.property(key) {
            child(key, field, path);
        }
    }
    if let Some(items) = node.items() {
        child("[*]", items, path);
    }
    if let Some(values) = node.values() {
        child("*", values, path);
    }
}

fn compile_rule(kind: &str, path: &str, rule: &CelRule, node: &Node) -> CompiledRule {
    let (code, field) = CATALOGUED
        .iter()
        .find(|(k, message, _, _)| *k == kind && rule.message.as_deref() == Some(*message))
        .map_or((&c::CRD_RULE, None), |(_, _, code, field)| (*code, *field));
    CompiledRule {
        kind: kind.to_owned(),
        path: path.to_owned(),
        rule: rule.clone(),
        code,
        field,
        plain: (!path.contains('*')).then(|| {
            path.split('.')
                .filter(|key| !key.is_empty())
                .map(str::to_owned)
                .collect()
        }),
        shortcuts: Shortcuts::of(rule, Some(node)),
        native: Native::of(rule, node),
        state: OnceLock::new(),
    }
}

fn parse(text: &str) -> Result<Expression, String> {
    // The API server's CRD environment has the optional syntax (`self.?x`, `[?0]`).
    Parser::default()
        .enable_optional_syntax(true)
        .parse(text)
        .map_err(|err| err.to_string().replace('\n', " "))
}

fn prepare(rule: &CelRule) -> State {
    let expr = match parse(&rule.rule) {
        Ok(expr) => expr,
        Err(err) => return State::NotEvaluable(format!("the rule does not parse: {err}")),
    };
    let message = match rule.message_expression.as_deref().map(parse) {
        None => None,
        Some(Ok(expr)) => Some(expr),
        Some(Err(err)) => {
            return State::NotEvaluable(format!("its messageExpression does not parse: {err}"));
        }
    };
    let missing: Vec<String> = std::iter::once(&expr)
        .chain(message.as_ref())
        .flat_map(|e| {
            e.references()
                .functions()
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|name| !is_provided(name))
        .collect();
    if !missing.is_empty() {
        return State::NotEvaluable(format!(
            "it calls {}, which calico-render's CEL interpreter does not provide",
            missing
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let transition = expr.references().has_variable("oldSelf");
    let old_self_none = transition && rule.optional_old_self == Some(true);
    if transition && !old_self_none {
        return State::Transition;
    }
    State::Ready(Box::new(Ready {
        expr,
        message,
        old_self_none,
    }))
}

thread_local! {
    /// The interpreter's functions: the CEL standard ones and the Kubernetes libraries. Built
    /// once per thread (registering them is tens of microseconds, an evaluation a few).
    static ROOT: CelContext<'static> = CelContext::default().with_all();
}

/// Whether the interpreter has a function or macro of this name. Operators (`_==_`) and
/// macros (`has`, `all`, `exists`, ...) are resolved by the interpreter itself.
fn is_provided(name: &str) -> bool {
    if name.starts_with('_') || name.starts_with('!') || name.starts_with('@') {
        return true;
    }
    if matches!(
        name,
        "has" | "all" | "exists" | "exists_one" | "map" | "filter" | "size" | "dyn" | "type"
    ) {
        return true;
    }
    // `name()`, built rather than parsed (the parser costs far more than the call). An unknown
    // name fails as an undeclared reference before its arguments are looked at; a known one
    // fails on the (missing) arguments instead.
    let probe = Expression {
        id: 1,
        expr: Expr::Call(kube_cel::cel::common::ast::CallExpr {
            func_name: name.to_owned(),
            target: None,
            args: Vec::new(),
        }),
    };
    ROOT.with(|root| {
        !matches!(
            CelValue::resolve(&probe, root),
            Err(ExecutionError::UndeclaredReference(_))
        )
    })
}

/// What settles a rule without evaluating it: the terms the index records for it
/// (`calico_codegen::cel_terms`). The rule is a chain of `||` (or a single term), and each term
/// is decided by one field of `self` alone: `!has(self.f)` (the field is absent),
/// `self.f == 'text'` (or a boolean or integer literal; the field has that value),
/// `size(self.f) == 0` (the field is empty), `!self.f.contains('text')`, or `self.f.g == 'text'`.
/// In CEL `a || b` is true when either side is true, whatever the other side gives (even an
/// error), so when such a term holds the rule holds, exactly as evaluation would find. Fields
/// are read as the rule sees them: nulls dropped, CRD defaults filled in.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Shortcuts {
    terms: Vec<Shortcut>,
    /// The CRD defaults of the fields the terms read (the rule sees the default when the
    /// object leaves the field out).
    defaults: BTreeMap<String, Value>,
}

/// One term of [`Shortcuts`], as the index writes it (`{"absent":"f"}`, `{"equals":["f","x"]}`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Shortcut {
    /// `!has(self.f)`.
    Absent(String),
    /// `self.f == literal`.
    Equals(String, Value),
    /// `size(self.f) == 0`.
    Empty(String),
    /// `!self.f.contains('text')`: holds when the field is a string without that text (an IPv4
    /// pool's `cidr` has no `:`).
    Lacks(String, String),
    /// `self.f.g == 'text'`, a field of a field (`self.metadata.name`); used only when no field
    /// on the way has a CRD default (the value in the object is the one the rule sees).
    Nested(Vec<String>, Value),
}

impl Shortcuts {
    /// The index's terms of `rule`, at schema node `node`.
    fn of(rule: &CelRule, node: Option<&Node>) -> Shortcuts {
        let terms: Vec<Shortcut> = rule
            .terms
            .iter()
            .filter(|term| match term {
                Shortcut::Nested(path, _) => !defaulted_on_the_way(node, path),
                _ => true,
            })
            .cloned()
            .collect();
        let defaults = terms
            .iter()
            .filter_map(|term| {
                let (Shortcut::Absent(field)
                | Shortcut::Equals(field, _)
                | Shortcut::Empty(field)
                | Shortcut::Lacks(field, _)) = term
                else {
                    return None;
                };
                let default = node?.property(field)?.default.clone()?;
                Some((field.clone(), default))
            })
            .collect();
        Shortcuts { terms, defaults }
    }

    /// Whether the rule holds on `value` without evaluation.
    fn hold(&self, value: &Value) -> bool {
        let Some(map) = value.as_object() else {
            return false;
        };
        let field = |name: &str| {
            map.get(name)
                .filter(|v| !v.is_null())
                .or_else(|| self.defaults.get(name))
        };
        self.terms.iter().any(|shortcut| match shortcut {
            Shortcut::Absent(name) => field(name).is_none(),
            Shortcut::Equals(name, literal) => field(name) == Some(literal),
            Shortcut::Empty(name) => is_empty(field(name)),
            Shortcut::Lacks(name, text) => lacks(field(name), text),
            Shortcut::Nested(path, literal) => nested(value, path) == Some(literal),
        })
    }

    /// The terms found, for tests and `--list-rules`.
    pub fn terms(&self) -> &[Shortcut] {
        &self.terms
    }
}

/// Rules that no shortcut term settles on an ordinary object and that the API server runs on
/// every one: the v3.33 CRDs' IPPool rules on `cidr(self.cidr)` (a stream of pools ran the
/// interpreter four times a pool for them: 2.3x the instructions of the whole v3.32 run).
/// Each is written here in Rust over the fields it reads, with the schema type each field must
/// have (so that its value reads as the interpreter's `self` gives it: a string, an int, a
/// bool). The Rust form only says when the rule holds, and only when every part of it it reads
/// is well defined (a CIDR that kube-cel's `cidr()` parses: `ipnet` as kube-cel calls it, no
/// IPv4-mapped address; an integer; a boolean); in any other case the rule is evaluated by the
/// interpreter as before, so a rejection keeps its words, and a rule whose text changes in a
/// later release falls back to evaluation. `natives_agree_with_evaluation` holds each to the
/// interpreter.
const NATIVE: &[NativeRule] = &[
    NativeRule {
        rule: "cidr(self.cidr) == cidr(self.cidr).masked()",
        fields: &[("cidr", "string")],
        holds: |f| cel_cidr(f.first()).is_some_and(|net| net == net.trunc()),
    },
    NativeRule {
        rule: "!cidr('169.254.0.0/16').containsIP(cidr(self.cidr).ip()) && !cidr(self.cidr).containsIP('169.254.0.0')",
        fields: &[("cidr", "string")],
        holds: |f| {
            let range = IpNet::new_assert(IpAddr::V4(Ipv4Addr::new(169, 254, 0, 0)), 16);
            let first = IpAddr::V4(Ipv4Addr::new(169, 254, 0, 0));
            cel_cidr(f.first())
                .is_some_and(|net| !range.contains(&net.addr()) && !net.contains(&first))
        },
    },
    NativeRule {
        rule: "!cidr('fe80::/10').containsIP(cidr(self.cidr).ip()) && !cidr(self.cidr).containsIP('fe80::')",
        fields: &[("cidr", "string")],
        holds: |f| {
            let first = IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0));
            let range = IpNet::new_assert(first, 10);
            cel_cidr(f.first())
                .is_some_and(|net| !range.contains(&net.addr()) && !net.contains(&first))
        },
    },
    NativeRule {
        rule: "cidr(self.cidr).ip().family() != 6 || !has(self.ipipMode) || self.ipipMode == 'Never' || size(self.ipipMode) == 0",
        fields: &[("cidr", "string")],
        // The first term; the others are the index's shortcut terms.
        holds: |f| cel_cidr(f.first()).is_some_and(|net| net.addr().is_ipv4()),
    },
    NativeRule {
        rule: "!has(self.blockSize) || self.blockSize == 0 || (cidr(self.cidr).ip().family() == 4 ? self.blockSize >= 20 && self.blockSize <= 32 : self.blockSize >= 116 && self.blockSize <= 128)",
        fields: &[("blockSize", "integer"), ("cidr", "string")],
        holds: |f| match f.first().copied().flatten() {
            None => true,
            Some(size) => cel_int(Some(size)).is_some_and(|size| {
                size == 0
                    || cel_cidr(f.get(1)).is_some_and(|net| match net {
                        IpNet::V4(_) => (20..=32).contains(&size),
                        IpNet::V6(_) => (116..=128).contains(&size),
                    })
            }),
        },
    },
    NativeRule {
        rule: "(has(self.disabled) && self.disabled) || cidr(self.cidr).prefixLength() <= (has(self.blockSize) && self.blockSize != 0 ? self.blockSize : (cidr(self.cidr).ip().family() == 4 ? 26 : 122))",
        fields: &[
            ("disabled", "boolean"),
            ("cidr", "string"),
            ("blockSize", "integer"),
        ],
        holds: |f| {
            let disabled = match f.first().copied().flatten() {
                None => false,
                Some(Value::Bool(disabled)) => *disabled,
                Some(_) => return false,
            };
            if disabled {
                return true;
            }
            let Some(net) = cel_cidr(f.get(1)) else {
                return false;
            };
            let written = match f.get(2).copied().flatten() {
                None => None,
                Some(size) => match cel_int(Some(size)) {
                    Some(size) => Some(size).filter(|size| *size != 0),
                    None => return false,
                },
            };
            let size = written.unwrap_or(match net {
                IpNet::V4(_) => 26,
                IpNet::V6(_) => 122,
            });
            i64::from(net.prefix_len()) <= size
        },
    },
];

/// Most fields a [`NativeRule`] reads.
const NATIVE_FIELDS: usize = 4;

/// One rule of [`NATIVE`]: its text as the CRD writes it, the fields of `self` it reads (name and
/// schema type), and whether it holds given those fields as the rule sees them.
struct NativeRule {
    rule: &'static str,
    fields: &'static [(&'static str, &'static str)],
    holds: fn(&[Option<&Value>]) -> bool,
}

/// A rule's [`NativeRule`], with the CRD defaults of the fields it reads.
#[derive(Debug)]
struct Native {
    holds: fn(&[Option<&Value>]) -> bool,
    fields: Vec<(&'static str, Option<Value>)>,
}

impl Native {
    /// The Rust form of `rule` at schema node `node`, when [`NATIVE`] has its text and the node's
    /// fields have the types it was written for.
    fn of(rule: &CelRule, node: &Node) -> Option<Native> {
        let native = NATIVE.iter().find(|native| native.rule == rule.rule)?;
        if native.fields.len() > NATIVE_FIELDS {
            return None;
        }
        let mut fields = Vec::new();
        for (name, ty) in native.fields {
            let field = node.property(name)?;
            if field.ty != *ty {
                return None;
            }
            fields.push((*name, field.default.clone()));
        }
        Some(Native {
            holds: native.holds,
            fields,
        })
    }

    /// Whether the rule holds on `value` (false: evaluate it), its fields read as the rule sees
    /// them: nulls dropped, CRD defaults in place of absent fields.
    fn holds(&self, value: &Value) -> bool {
        let Some(map) = value.as_object() else {
            return false;
        };
        let mut fields: [Option<&Value>; NATIVE_FIELDS] = [None; NATIVE_FIELDS];
        for ((name, default), slot) in self.fields.iter().zip(fields.iter_mut()) {
            *slot = map
                .get(*name)
                .filter(|field| !field.is_null())
                .or(default.as_ref());
        }
        (self.holds)(&fields)
    }
}

/// `cidr(field)` as kube-cel's `cidr()` reads a string: `ipnet`'s parser, an IPv4-mapped IPv6
/// address refused. `None` for anything else (the interpreter then says what it makes of it).
fn cel_cidr(field: Option<&Option<&Value>>) -> Option<IpNet> {
    let net: IpNet = field.copied().flatten()?.as_str()?.parse().ok()?;
    match net.addr() {
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => None,
        _ => Some(net),
    }
}

/// An `integer` field as the interpreter's int ([`to_cel`]).
fn cel_int(field: Option<&Value>) -> Option<i64> {
    field?.as_i64()
}

/// Whether a field on `path` under `node` has a CRD default (found as [`to_cel`] finds the
/// nodes of fields).
fn defaulted_on_the_way(node: Option<&Node>, path: &[String]) -> bool {
    let mut node = node;
    for key in path {
        node = node.and_then(|n| n.child(key));
        if node.is_some_and(|n| n.default.is_some()) {
            return true;
        }
    }
    false
}

/// A rule that rejects an object (or could not be evaluated on it).
#[derive(Debug, Clone)]
pub struct Failure<'r> {
    /// The rule.
    pub rule: &'r CompiledRule,
    /// Where in the object its node is (`spec`, `spec.routeTableRanges[1]`; empty: the object).
    pub at: String,
    /// What went wrong.
    pub outcome: Outcome,
}

/// How a rule went wrong on one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The rule evaluated to false; the message (the CRD's, or its `messageExpression`'s).
    Rejected(String),
    /// The rule could not be evaluated; why.
    NotEvaluated(String),
}

/// Evaluate the rules of `kind` in `release` on `object`: every rule whose node is present.
/// Failures come in the order of the kind's rules ([`Rules::for_kind`]).
pub fn evaluate<'r>(release: &'r Release, kind: &str, object: &Value) -> Vec<Failure<'r>> {
    match release.index().slot(kind) {
        Some(slot) => evaluate_at(release, slot, super::Top::of(object)),
        None => Vec::new(),
    }
}

/// [`evaluate`] for the kind at `slot` of the release's index.
fn evaluate_at<'r>(release: &'r Release, slot: usize, top: super::Top<'_>) -> Vec<Failure<'r>> {
    let object = top.object;
    let Some(plan) = release.crd_rules().at(slot) else {
        return Vec::new();
    };
    let mut out: Vec<(usize, Failure<'r>)> = Vec::new();
    let root = || release.index().kind_at(slot);
    // The API server refuses an object without a name before any rule runs.
    let named = plan.on_object
        && object
            .get("metadata")
            .and_then(|meta| meta.get("name"))
            .is_some_and(Value::is_string);
    for group in &plan.groups {
        if group.keys.is_empty() && !named {
            continue;
        }
        let mut value = object;
        let present = group.keys.iter().enumerate().all(|(depth, key)| {
            let child = if depth == 0 {
                top.field(key)
            } else {
                value.get(key)
            };
            match child {
                Some(child) if !child.is_null() => {
                    value = child;
                    true
                }
                _ => false,
            }
        });
        if !present {
            continue;
        }
        // The fields the shortcuts read, as the rules see them: nulls dropped, defaults in.
        let mut fields: [Option<&Value>; GROUP_FIELDS] = [None; GROUP_FIELDS];
        let map = value.as_object();
        if let Some(map) = map {
            group.read(map, &mut fields);
        }
        for (idx, terms) in &group.rules {
            if map.is_some() && terms.iter().any(|term| term.holds(value, &fields)) {
                continue;
            }
            let Some(rule) = plan.rules.get(*idx) else {
                continue;
            };
            if rule
                .native
                .as_ref()
                .is_some_and(|native| native.holds(value))
            {
                continue;
            }
            let node = root().and_then(|root| super::Index::walk(root, &rule.path));
            if let Some(outcome) = judge(rule, value, node) {
                out.push((
                    *idx,
                    Failure {
                        rule,
                        at: rule.path.clone(),
                        outcome,
                    },
                ));
            }
        }
    }
    for idx in &plan.located {
        let Some(rule) = plan.rules.get(*idx) else {
            continue;
        };
        let mut values = Vec::new();
        locate(object, root(), &rule.path, String::new(), &mut values);
        for (at, value, node) in values {
            if let Some(outcome) = run(rule, value, node) {
                out.push((*idx, Failure { rule, at, outcome }));
            }
        }
    }
    // In rule order, as the groups and the located rules were walked apart (stable: a located
    // rule's failures keep the order of its values).
    out.sort_by_key(|(idx, _)| *idx);
    out.into_iter().map(|(_, failure)| failure).collect()
}

/// The values of `value` at index path `path`, with their object paths and schema nodes.
fn locate<'v, 'n>(
    value: &'v Value,
    node: Option<&'n Node>,
    path: &str,
    at: String,
    out: &mut Vec<(String, &'v Value, Option<&'n Node>)>,
) {
    if value.is_null() {
        return;
    }
    if path.is_empty() {
        out.push((at, value, node));
        return;
    }
    let (head, rest) = match path.find(['.', '[']) {
        Some(0) => match path.strip_prefix("[*]") {
            Some(rest) => ("[*]", rest.strip_prefix('.').unwrap_or(rest)),
            None => return,
        },
        Some(idx) => {
            let rest = &path[idx..];
            (&path[..idx], rest.strip_prefix('.').unwrap_or(rest))
        }
        None => (path, ""),
    };
    match head {
        "[*]" => {
            let items = node.and_then(Node::items);
            for (idx, item) in value.as_array().into_iter().flatten().enumerate() {
                locate(item, items, rest, join_index(&at, idx), out);
            }
        }
        "*" => {
            let values = node.and_then(Node::values);
            for (key, child) in value.as_object().into_iter().flatten() {
                locate(child, values, rest, join_key(&at, key), out);
            }
        }
        key => {
            if let Some(child) = value.get(key) {
                let child_node = node.and_then(|n| n.property(key));
                locate(child, child_node, rest, join_key(&at, key), out);
            }
        }
    }
}

/// `rule` on one value: settled by its shortcuts, or judged.
fn run(rule: &CompiledRule, value: &Value, node: Option<&Node>) -> Option<Outcome> {
    if rule.shortcuts.hold(value)
        || rule
            .native
            .as_ref()
            .is_some_and(|native| native.holds(value))
    {
        return None;
    }
    judge(rule, value, node)
}

/// `rule` evaluated on one value by the interpreter.
fn judge(rule: &CompiledRule, value: &Value, node: Option<&Node>) -> Option<Outcome> {
    let ready = match rule.state() {
        State::Ready(ready) => ready,
        State::Transition => return None,
        State::NotEvaluable(reason) => return Some(Outcome::NotEvaluated(reason.clone())),
    };
    let this = to_cel(value, node);
    ROOT.with(|root| {
        let mut scope = root.new_inner_scope();
        scope.add_variable_from_value("self", this);
        if ready.old_self_none {
            scope.add_variable_from_value("oldSelf", CelValue::Opaque(Arc::new(none())));
        }
        match CelValue::resolve(&ready.expr, &scope) {
            Ok(CelValue::Bool(true)) => None,
            Ok(CelValue::Bool(false)) => {
                let message = ready
                    .message
                    .as_ref()
                    .and_then(|expr| match CelValue::resolve(expr, &scope) {
                        Ok(CelValue::String(text)) if !text.trim().is_empty() => {
                            Some(text.as_str().to_owned())
                        }
                        _ => None,
                    })
                    .unwrap_or_else(|| rule.static_message());
                Some(Outcome::Rejected(message))
            }
            Ok(other) => Some(Outcome::NotEvaluated(format!(
                "it gave {other:?}, not a boolean"
            ))),
            Err(err) => Some(Outcome::NotEvaluated(err.to_string())),
        }
    })
}

fn none() -> kube_cel::cel::objects::OptionalValue {
    kube_cel::cel::objects::OptionalValue::none()
}

/// `value` as the API server gives it to a rule at `node`: nulls dropped, absent fields with a
/// CRD default filled in, numbers typed by the schema (`number` is a double, `integer` an int).
fn to_cel(value: &Value, node: Option<&Node>) -> CelValue {
    match value {
        Value::Null => CelValue::Null,
        Value::Bool(b) => CelValue::Bool(*b),
        Value::Number(number) => {
            let double = node.is_some_and(|n| n.ty == "number");
            match (double, number.as_i64(), number.as_u64()) {
                (false, Some(int), _) => CelValue::Int(int),
                (false, None, Some(uint)) => CelValue::UInt(uint),
                _ => CelValue::Float(number.as_f64().unwrap_or(f64::NAN)),
            }
        }
        Value::String(text) => CelValue::String(Arc::new(text.clone())),
        Value::Array(items) => {
            let items_node = node.and_then(Node::items);
            CelValue::List(Arc::new(
                items
                    .iter()
                    .filter(|item| !item.is_null())
                    .map(|item| to_cel(item, items_node))
                    .collect(),
            ))
        }
        Value::Object(fields) => {
            let mut map: HashMap<Key, CelValue> = HashMap::with_capacity(fields.len());
            for (key, field) in fields {
                if field.is_null() {
                    continue;
                }
                let field_node = node.and_then(|n| n.child(key));
                map.insert(Key::from(key.clone()), to_cel(field, field_node));
            }
            for (key, field_node) in node.into_iter().flat_map(Node::properties) {
                if let Some(default) = &field_node.default
                    && fields.get(key).is_none_or(Value::is_null)
                {
                    map.insert(Key::from(key), to_cel(default, Some(field_node)));
                }
            }
            CelValue::Map(Map { map: Arc::new(map) })
        }
    }
}

/// The CRD rules of `release` on one document (`value`), merged into `diagnostics`, the
/// catalogue's diagnostics of the same document (paths only, no locations yet).
///
/// A rejection whose code the catalogue already reported on the document adds the CRD's words
/// to that diagnostic's hint; otherwise it is a diagnostic of its own. A rule that could not be
/// evaluated is reported unless the document already has an error at or under the rule's node
/// (a value of the wrong type: the API server refuses it before any rule runs).
pub fn check_document(release: &Release, value: &Value, diagnostics: &mut Vec<Diagnostic>) {
    if let Some(slot) = super::indexed_kind(value).and_then(|kind| release.index().slot(kind)) {
        check_at(release, slot, super::Top::of(value), diagnostics);
    }
}

/// [`check_document`] on a document of the kind at `slot` of the release's index.
pub(crate) fn check_at(
    release: &Release,
    slot: usize,
    top: super::Top<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for failure in evaluate_at(release, slot, top) {
        let rule = failure.rule;
        let place = if rule.path.is_empty() {
            "the object".to_owned()
        } else {
            format!("`{}`", rule.path)
        };
        let reason = rule.rule.reason.as_deref().unwrap_or("FieldValueInvalid");
        let path = failure_path(&failure);
        match failure.outcome {
            Outcome::Rejected(message) => {
                let words = format!(
                    "the {} CRD's rule on {place} says: {message} ({reason})",
                    release.calico
                );
                if let Some(existing) = diagnostics
                    .iter_mut()
                    .find(|diag| diag.code == rule.code.code)
                {
                    existing.hint = Some(match existing.hint.take() {
                        Some(hint) => format!("{hint}; {words}"),
                        None => words,
                    });
                    continue;
                }
                diagnostics.push(Diagnostic {
                    severity: rule.code.severity,
                    code: rule.code.code,
                    path,
                    message,
                    hint: Some(format!(
                        "the {} CRD's rule on {place} ({reason}): `{}`",
                        release.calico, rule.rule.rule
                    )),
                    location: None,
                });
            }
            Outcome::NotEvaluated(why) => {
                let refused = diagnostics.iter().any(|diag| {
                    diag.severity == crate::diag::Severity::Error
                        && (failure.at.is_empty()
                            || diag.path == failure.at
                            || diag.path.starts_with(&format!("{}.", failure.at))
                            || diag.path.starts_with(&format!("{}[", failure.at)))
                });
                if refused {
                    continue;
                }
                diagnostics.push(Diagnostic {
                    severity: c::CRD_RULE.severity,
                    code: c::CRD_RULE.code,
                    path: failure.at.clone(),
                    message: format!(
                        "the {} CRD's rule on {place} could not be evaluated: {why}",
                        release.calico
                    ),
                    hint: Some(format!(
                        "the API server evaluates `{}`; check the object by hand or with `kubectl create --dry-run=server`",
                        rule.rule.rule
                    )),
                    location: None,
                });
            }
        }
    }
}

/// Where a rejection points: the CRD's `fieldPath` under the rule's node, else the catalogue's
/// field for it (when the object has that field), else the rule's node.
fn failure_path(failure: &Failure<'_>) -> String {
    let rule = failure.rule;
    if let Some(field_path) = rule.rule.field_path.as_deref() {
        let relative = field_path.trim_start_matches('.');
        return if failure.at.is_empty() {
            relative.to_owned()
        } else if relative.starts_with('[') {
            format!("{}{relative}", failure.at)
        } else {
            join_key(&failure.at, relative)
        };
    }
    rule.field
        .filter(|_| !rule.path.contains('*'))
        .map_or_else(|| failure.at.clone(), str::to_owned)
}

/// Whether `rule` (a CEL expression) can be evaluated by this build: it parses and calls only
/// functions the interpreter provides. For tests that hold every rule of every release to it.
///
/// # Errors
/// Why it cannot.
pub fn evaluable(rule: &str) -> Result<(), String> {
    match prepare(&CelRule {
        rule: rule.to_owned(),
        ..CelRule::default()
    }) {
        State::NotEvaluable(reason) => Err(reason),
        State::Ready(_) | State::Transition => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::RELEASES;
    use serde_json::json;

    /// The release these tests were worked out on (v3.32.1's 18 rules); v3.33's rules are
    /// counted in [`the_v3_33_branch_has_more_rules`].
    fn newest() -> &'static Release {
        Release::default_target()
    }

    #[test]
    fn the_v3_33_branch_has_more_rules() {
        // `rule:` entries per kind in crds/release-v3.33-6609dea/projectcalico.org_*.yaml and
        // operator.tigera.io_{installations,apiservers}.yaml (grep -c '- rule:' / `rule:`),
        // against v3.32.1's: IPPool 6 -> 16, BGPPeer 6 -> 8, FelixConfiguration 2 -> 8.
        let count = |release: &Release, kind: &str| release.crd_rules().for_kind(kind).len();
        let v3_33 = Release::for_version("v3.33.0").unwrap();
        let v3_32 = Release::for_version("v3.32.1").unwrap();
        for (kind, before, after) in [
            ("IPPool", 6, 16),
            ("BGPPeer", 6, 8),
            ("FelixConfiguration", 2, 8),
        ] {
            assert_eq!(count(v3_32, kind), before, "v3.32.1 {kind}");
            assert_eq!(count(v3_33, kind), after, "v3.33 {kind}");
        }
    }

    fn rejected(kind: &str, object: &Value) -> Vec<String> {
        evaluate(newest(), kind, object)
            .into_iter()
            .map(|f| match f.outcome {
                Outcome::Rejected(message) => format!("{}: {message}", f.at),
                Outcome::NotEvaluated(why) => format!("{}: not evaluated: {why}", f.at),
            })
            .collect()
    }

    #[test]
    fn every_rule_of_every_release_is_evaluated_or_a_transition_rule() {
        for release in &RELEASES {
            for rule in release.crd_rules().all() {
                assert!(
                    matches!(
                        rule.status(),
                        RuleStatus::Evaluated | RuleStatus::Transition
                    ),
                    "{} {} `{}`: {:?}",
                    release.calico,
                    rule.kind,
                    rule.rule.rule,
                    rule.status()
                );
            }
        }
        // Goldmane's and Whisker's name rule (one each) are the last two.
        assert_eq!(newest().crd_rules().all().count(), 20);
    }

    #[test]
    fn a_pool_with_ipip_and_vxlan_is_rejected_with_the_crds_words() {
        let pool = json!({"apiVersion": "projectcalico.org/v3", "kind": "IPPool",
            "metadata": {"name": "p"},
            "spec": {"cidr": "10.0.0.0/16", "ipipMode": "Always", "vxlanMode": "Always"}});
        assert_eq!(
            rejected("IPPool", &pool),
            ["spec: ipipMode and vxlanMode cannot both be enabled"]
        );
        let fine =
            json!({"spec": {"cidr": "10.0.0.0/16", "ipipMode": "Always", "vxlanMode": "Never"}});
        assert!(rejected("IPPool", &fine).is_empty());
        let v6 = json!({"spec": {"cidr": "fd00::/48", "ipipMode": "CrossSubnet"}});
        assert_eq!(
            rejected("IPPool", &v6),
            ["spec: IPIP is not supported on IPv6 pools"]
        );
    }

    #[test]
    fn shortcuts_are_the_terms_one_field_decides() {
        let rules = newest().crd_rules();
        let terms: Vec<(&str, Vec<Shortcut>)> = rules
            .for_kind("IPPool")
            .iter()
            .filter_map(|r| match r.state() {
                State::Ready(_) => Some((
                    r.rule.message.as_deref().unwrap_or(""),
                    r.shortcuts.terms().to_vec(),
                )),
                _ => None,
            })
            .collect();
        let absent = |f: &str| Shortcut::Absent(f.to_owned());
        let never = |f: &str| Shortcut::Equals(f.to_owned(), json!("Never"));
        let empty = |f: &str| Shortcut::Empty(f.to_owned());
        assert_eq!(
            terms,
            [
                (
                    "ipipMode and vxlanMode cannot both be enabled",
                    vec![
                        absent("ipipMode"),
                        absent("vxlanMode"),
                        never("ipipMode"),
                        never("vxlanMode"),
                        empty("ipipMode"),
                        empty("vxlanMode")
                    ]
                ),
                (
                    "LoadBalancer IP pool cannot have IPIP or VXLAN enabled",
                    vec![absent("allowedUses")]
                ),
                (
                    "LoadBalancer cannot be combined with Workload or Tunnel allowed uses",
                    vec![absent("allowedUses")]
                ),
                (
                    "IPIP is not supported on IPv6 pools",
                    vec![
                        Shortcut::Lacks("cidr".to_owned(), ":".to_owned()),
                        absent("ipipMode"),
                        never("ipipMode"),
                        empty("ipipMode")
                    ]
                ),
            ]
        );
        // `!has(self.mode) || self.mode == 'A' || self.n.size() == 0`, as codegen records it.
        let rule: CelRule = serde_json::from_value(json!({"rule": "",
            "terms": [{"absent": "mode"}, {"equals": ["mode", "A"]}, {"empty": "n"}]}))
        .unwrap();
        let node: Node = node_of(json!({"type": "object",
            "properties": {"mode": {"type": "string", "default": "B"}}}));
        let with_default = Shortcuts::of(&rule, Some(&node));
        let without = Shortcuts::of(&rule, None);
        // A field with a CRD default is never absent to the rule; the default is its value.
        assert!(!with_default.hold(&json!({"n": "x"})));
        assert!(without.hold(&json!({"n": "x"})));
        assert!(without.hold(&json!({"mode": null, "n": "x"})));
        assert!(with_default.hold(&json!({"mode": "A", "n": "x"})));
        assert!(with_default.hold(&json!({"mode": "C", "n": ""})));
        assert!(!with_default.hold(&json!({"mode": "C", "n": [1]})));
    }

    #[test]
    fn shortcuts_agree_with_evaluation() {
        // Every IPPool rule on every combination of the fields its shortcuts read: wherever a
        // shortcut settles the rule, the interpreter says the same.
        let modes = [None, Some(""), Some("Never"), Some("Always")];
        let uses = [
            None,
            Some(json!([])),
            Some(json!(["LoadBalancer"])),
            Some(json!(["Workload", "LoadBalancer"])),
        ];
        let mut specs = Vec::new();
        for ipip in modes {
            for vxlan in modes {
                for allowed in &uses {
                    for cidr in ["10.0.0.0/16", "fd00::/48"] {
                        let mut spec = serde_json::Map::new();
                        spec.insert("cidr".into(), json!(cidr));
                        if let Some(ipip) = ipip {
                            spec.insert("ipipMode".into(), json!(ipip));
                        }
                        if let Some(vxlan) = vxlan {
                            spec.insert("vxlanMode".into(), json!(vxlan));
                        }
                        if let Some(allowed) = allowed {
                            spec.insert("allowedUses".into(), allowed.clone());
                        }
                        specs.push(Value::Object(spec));
                    }
                }
            }
        }
        let node = newest().index().node("IPPool", "spec");
        let (mut settled, mut evaluated) = (0, 0);
        for rule in newest().crd_rules().for_kind("IPPool") {
            let State::Ready(ready) = rule.state() else {
                continue;
            };
            for spec in &specs {
                let verdict = ROOT.with(|root| {
                    let mut scope = root.new_inner_scope();
                    scope.add_variable_from_value("self", to_cel(spec, node));
                    CelValue::resolve(&ready.expr, &scope)
                });
                if rule.shortcuts.hold(spec) {
                    settled += 1;
                    assert_eq!(
                        verdict,
                        Ok(CelValue::Bool(true)),
                        "{} on {spec}",
                        rule.rule.rule
                    );
                } else {
                    evaluated += 1;
                }
            }
        }
        assert!(settled > 100 && evaluated > 50, "{settled} {evaluated}");
        // The path `evaluate` takes (the rules grouped by schema path, each field their terms
        // read looked up once) finds exactly the rules the interpreter rejects on its own.
        let mut rejected_somewhere = 0;
        for spec in &specs {
            let object = json!({"apiVersion": "projectcalico.org/v3", "kind": "IPPool",
                "metadata": {"name": "p"}, "spec": spec});
            let found: Vec<(&str, Outcome)> = evaluate(newest(), "IPPool", &object)
                .into_iter()
                .map(|failure| (failure.rule.rule.rule.as_str(), failure.outcome))
                .collect();
            let expected: Vec<(&str, Outcome)> = newest()
                .crd_rules()
                .for_kind("IPPool")
                .iter()
                .filter_map(|rule| {
                    let State::Ready(ready) = rule.state() else {
                        return None;
                    };
                    let verdict = ROOT.with(|root| {
                        let mut scope = root.new_inner_scope();
                        scope.add_variable_from_value("self", to_cel(spec, node));
                        CelValue::resolve(&ready.expr, &scope)
                    });
                    match verdict {
                        Ok(CelValue::Bool(true)) => None,
                        Ok(CelValue::Bool(false)) => Some((
                            rule.rule.rule.as_str(),
                            Outcome::Rejected(rule.static_message()),
                        )),
                        other => panic!("{} on {spec}: {other:?}", rule.rule.rule),
                    }
                })
                .collect();
            rejected_somewhere += usize::from(!expected.is_empty());
            assert_eq!(found, expected, "{spec}");
        }
        assert!(rejected_somewhere > 20, "{rejected_somewhere}");
    }

    #[test]
    fn natives_agree_with_evaluation() {
        // Every rule with a Rust form, on specs that mix the fields those forms read: where the
        // Rust form says the rule holds, the interpreter says so too; on well-formed specs it
        // (with the rule's shortcut terms) says so exactly where the interpreter does.
        let v3_33 = Release::for_version("v3.33.0").unwrap();
        let cidrs = [
            json!("10.0.0.0/16"),
            json!("10.0.0.1/16"),
            json!("10.0.0.0/30"),
            json!("169.254.1.0/24"),
            json!("169.0.0.0/8"),
            json!("0.0.0.0/0"),
            json!("fd00::/48"),
            json!("fd00::1/48"),
            json!("fd00::/124"),
            json!("fe80::/64"),
            json!("fe00::/7"),
            json!("::/0"),
            json!("::ffff:10.0.0.0/104"),
            json!("10.0.0.0"),
            json!("010.0.0.0/16"),
            json!("fe80::/64%eth0"),
            json!(""),
            json!(5),
        ];
        let sizes = [
            None,
            Some(json!(0)),
            Some(json!(26)),
            Some(json!(20)),
            Some(json!(33)),
            Some(json!(19)),
            Some(json!(122)),
            Some(json!(116)),
            Some(json!(129)),
            Some(json!(-1)),
            Some(json!(26.5)),
            Some(json!("26")),
        ];
        let disabled = [
            None,
            Some(json!(true)),
            Some(json!(false)),
            Some(json!("yes")),
        ];
        let node = v3_33.index().node("IPPool", "spec");
        let rules: Vec<&CompiledRule> = v3_33
            .crd_rules()
            .for_kind("IPPool")
            .iter()
            .filter(|rule| rule.native.is_some())
            .collect();
        // Each Rust form is in use: its text is the v3.33 CRD's, its fields' types as written.
        assert_eq!(rules.len(), NATIVE.len());
        let (mut held, mut agreed, mut well_formed) = (0, 0, 0);
        for cidr in &cidrs {
            for size in &sizes {
                for off in &disabled {
                    let mut spec = serde_json::Map::new();
                    spec.insert("cidr".into(), cidr.clone());
                    if let Some(size) = size {
                        spec.insert("blockSize".into(), size.clone());
                    }
                    if let Some(off) = off {
                        spec.insert("disabled".into(), off.clone());
                    }
                    let spec = Value::Object(spec);
                    let plain = cel_cidr(Some(&spec.get("cidr"))).is_some()
                        && size.as_ref().is_none_or(|size| size.is_i64())
                        && off.as_ref().is_none_or(Value::is_boolean);
                    for rule in &rules {
                        let State::Ready(ready) = rule.state() else {
                            panic!("{}", rule.rule.rule);
                        };
                        let verdict = ROOT.with(|root| {
                            let mut scope = root.new_inner_scope();
                            scope.add_variable_from_value("self", to_cel(&spec, node));
                            CelValue::resolve(&ready.expr, &scope)
                        });
                        let native = rule.native.as_ref().unwrap().holds(&spec);
                        if native {
                            held += 1;
                            assert_eq!(
                                verdict,
                                Ok(CelValue::Bool(true)),
                                "{} on {spec}",
                                rule.rule.rule
                            );
                        }
                        if plain {
                            // With the index's terms (the IPIP rule's Rust form is its first
                            // term only).
                            let settled = native || rule.shortcuts.hold(&spec);
                            well_formed += 1;
                            agreed += usize::from(settled == (verdict == Ok(CelValue::Bool(true))));
                        }
                    }
                }
            }
        }
        assert_eq!(agreed, well_formed);
        assert!(held > 1000 && well_formed > 1000, "{held} {well_formed}");
        // And through `evaluate`: a pool that breaks them is still rejected in the CRD's words.
        let pool = json!({"apiVersion": "projectcalico.org/v3", "kind": "IPPool",
            "metadata": {"name": "p"},
            "spec": {"cidr": "169.254.0.1/30", "blockSize": 40}});
        let messages: Vec<String> = evaluate(v3_33, "IPPool", &pool)
            .into_iter()
            .map(|failure| match failure.outcome {
                Outcome::Rejected(message) => message,
                Outcome::NotEvaluated(why) => why,
            })
            .collect();
        assert_eq!(
            messages,
            [
                "IPPool CIDR must be strictly masked",
                "IPPool CIDR overlaps with IPv4 link local range 169.254.0.0/16",
                "blockSize must be between 20 and 32 for IPv4 pools, and between 116 and 128 for IPv6 pools",
            ]
        );
    }

    #[test]
    fn a_field_of_a_field_settles_the_name_rules() {
        let rules = newest().crd_rules();
        let rule = rules
            .for_kind("Installation")
            .iter()
            .find(|rule| rule.path.is_empty())
            .unwrap();
        let State::Ready(ready) = rule.state() else {
            panic!("{:?}", rule.status());
        };
        let name_is =
            |name: &str| Shortcut::Nested(vec!["metadata".into(), "name".into()], json!(name));
        assert_eq!(
            rule.shortcuts.terms(),
            [
                name_is("default"),
                name_is("tigera-secure"),
                name_is("overlay")
            ]
        );
        let root = newest().index().kind("Installation");
        for name in [
            "default",
            "tigera-secure",
            "overlay",
            "other",
            "",
            "Default",
        ] {
            let object = json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
                "metadata": {"name": name}, "spec": {"variant": "Calico"}});
            let verdict = ROOT.with(|cel| {
                let mut scope = cel.new_inner_scope();
                scope.add_variable_from_value("self", to_cel(&object, root));
                CelValue::resolve(&ready.expr, &scope)
            });
            let accepted = ["default", "tigera-secure", "overlay"].contains(&name);
            assert_eq!(verdict, Ok(CelValue::Bool(accepted)), "{name}");
            assert_eq!(rule.shortcuts.hold(&object), accepted, "{name}");
            let failures = evaluate(newest(), "Installation", &object)
                .iter()
                .filter(|failure| std::ptr::eq(failure.rule, rule))
                .count();
            assert_eq!(failures == 0, accepted, "{name}");
        }
        // A CRD default on the way: the object's value is not what the rule sees, no shortcut.
        // `self.a.b == 'x' || self.c.d == 'y'`, as codegen records it.
        let expr: CelRule = serde_json::from_value(json!({"rule": "", "terms": [
            {"nested": [["a", "b"], "x"]}, {"nested": [["c", "d"], "y"]}]}))
        .unwrap();
        let node: Node = node_of(json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "string", "default": "x"}}},
            "c": {"type": "object", "properties": {"d": {"type": "string"}}}}}));
        assert_eq!(
            Shortcuts::of(&expr, Some(&node)).terms(),
            [Shortcut::Nested(vec!["c".into(), "d".into()], json!("y"))]
        );
        assert!(!Shortcuts::of(&expr, Some(&node)).hold(&json!({"a": {}, "c": {"d": "z"}})));
        assert!(Shortcuts::of(&expr, Some(&node)).hold(&json!({"c": {"d": "y"}})));
    }

    #[test]
    fn transition_rules_are_not_evaluated_without_the_stored_object() {
        let pool = json!({"spec": {"cidr": "10.0.0.0/16", "blockSize": 26}});
        assert!(rejected("IPPool", &pool).is_empty());
        let statuses: Vec<RuleStatus> = newest()
            .crd_rules()
            .for_kind("IPPool")
            .iter()
            .filter(|r| r.rule.rule == "self == oldSelf")
            .map(CompiledRule::status)
            .collect();
        assert_eq!(statuses, [RuleStatus::Transition, RuleStatus::Transition]);
    }

    /// A schema node read from JSON the way the index is read (its text lives as long as the
    /// program, as the index's does).
    fn node_of(node: Value) -> Node {
        serde_json::from_str(node.to_string().leak()).unwrap()
    }

    fn rules_on(mut node: Value) -> (super::super::Index, Compiled) {
        // The marks codegen writes on the way to the rules.
        fn mark(node: &mut Value) -> bool {
            let mut holds = node.get("cel").is_some();
            let mut leading = Vec::new();
            if let Some(fields) = node.get_mut("properties").and_then(Value::as_object_mut) {
                for (name, field) in fields.iter_mut() {
                    if mark(field) {
                        leading.push(name.clone());
                    }
                }
            }
            holds |= !leading.is_empty();
            for key in ["items", "values"] {
                holds |= node.get_mut(key).is_some_and(mark);
            }
            if holds {
                node["holdsCel"] = json!(true);
            }
            if !leading.is_empty() {
                node["celFields"] = json!(leading);
            }
            holds
        }
        mark(&mut node);
        // An index borrows its text for as long as the program runs, as the embedded ones do.
        let line = json!({"kind": "Thing", "schema": node}).to_string().leak();
        let index = super::super::Index::parse(line);
        let compiled = Compiled::of(&index);
        (index, compiled)
    }

    fn evaluate_on(
        index: &super::super::Index,
        compiled: &Compiled,
        object: &Value,
    ) -> Vec<String> {
        let root = index.kind("Thing");
        let mut out = Vec::new();
        for rule in Rules::new(index, compiled).for_kind("Thing") {
            let mut values = Vec::new();
            locate(object, root, &rule.path, String::new(), &mut values);
            for (at, value, node) in values {
                match run(rule, value, node) {
                    Some(Outcome::Rejected(message)) => out.push(format!("{at}: {message}")),
                    Some(Outcome::NotEvaluated(why)) => {
                        out.push(format!("{at}: not evaluated: {why}"))
                    }
                    None => {}
                }
            }
        }
        out
    }

    #[test]
    fn rules_on_list_items_and_map_values_run_on_each() {
        let (index, rules) = rules_on(
            json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "ranges": {"type": "array", "items": {"type": "object",
                    "cel": [{"rule": "self.min <= self.max", "message": "min must not be greater than max"}],
                    "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}}},
                "limits": {"type": "map", "values": {"type": "integer",
                    "cel": [{"rule": "self >= 0", "messageExpression": "'limit is ' + string(self)"}]}}
            }}}}),
        );
        let object = json!({"spec": {
            "ranges": [{"min": 1, "max": 2}, {"min": 5, "max": 2}],
            "limits": {"a": 1, "b": -3}}});
        assert_eq!(
            evaluate_on(&index, &rules, &object),
            [
                "spec.limits.b: limit is -3",
                "spec.ranges[1]: min must not be greater than max"
            ]
        );
    }

    #[test]
    fn defaults_fill_in_and_optional_syntax_and_kubernetes_functions_work() {
        let (index, rules) = rules_on(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "cel": [
                {"rule": "self.mode == 'On' || !has(self.extra)", "message": "extra needs mode On"},
                {"rule": "self.?ratio.orValue(1.0) <= 2.0", "message": "ratio too big"},
                {"rule": "!has(self.cidr) || cidr(self.cidr) == cidr(self.cidr).masked()", "message": "not masked", "fieldPath": ".cidr"},
                {"rule": "self.name.matches('^[a-z]+$') && self.tags.all(t, t.startsWith('x'))", "message": "bad name or tag", "reason": "FieldValueForbidden"}
            ],
            "properties": {
                "mode": {"type": "string", "default": "Off"},
                "extra": {"type": "string"},
                "ratio": {"type": "number"},
                "cidr": {"type": "string"},
                "name": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}
            }}}}),
        );
        let good = json!({"spec": {"mode": "On", "extra": "x", "ratio": 2, "cidr": "10.0.0.0/8", "name": "abc", "tags": ["xa"]}});
        assert!(evaluate_on(&index, &rules, &good).is_empty());
        let bad = json!({"spec": {"extra": "x", "ratio": 3, "cidr": "10.0.0.1/8", "name": "ABC", "tags": []}});
        assert_eq!(
            evaluate_on(&index, &rules, &bad),
            [
                "spec: extra needs mode On",
                "spec: ratio too big",
                "spec: not masked",
                "spec: bad name or tag"
            ]
        );
    }

    #[test]
    fn what_cannot_be_evaluated_says_so() {
        assert_eq!(evaluable("self.a == 1"), Ok(()));
        assert_eq!(evaluable("self == oldSelf"), Ok(()));
        assert!(
            evaluable("self.a ==")
                .unwrap_err()
                .starts_with("the rule does not parse")
        );
        assert_eq!(
            evaluable("noSuchFunction(self.a)"),
            Err(
                "it calls `noSuchFunction`, which calico-render's CEL interpreter does not provide"
                    .into()
            )
        );
        assert_eq!(
            evaluable("isURL(self.a)"),
            Err("it calls `isURL`, which calico-render's CEL interpreter does not provide".into())
        );
        // Wrong types at run time are reported, not passed.
        let (index, rules) = rules_on(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "cel": [{"rule": "self.n > 1", "message": "n"}]}}}),
        );
        let out = evaluate_on(&index, &rules, &json!({"spec": {"n": "text"}}));
        assert_eq!(out.len(), 1);
        assert!(out[0].starts_with("spec: not evaluated"), "{out:?}");
    }

    #[test]
    fn diagnostics_take_the_catalogue_code_or_cr0009_and_merge_with_the_catalogues_own() {
        let peer = json!({"apiVersion": "projectcalico.org/v3", "kind": "BGPPeer",
            "metadata": {"name": "p"}, "spec": {"node": "a", "nodeSelector": "all()"}});
        let mut diagnostics = Vec::new();
        check_document(newest(), &peer, &mut diagnostics);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, "CR2001");
        assert_eq!(diagnostics[0].path, "spec.nodeSelector");
        assert_eq!(
            diagnostics[0].message,
            "node and nodeSelector cannot both be set"
        );
        assert_eq!(
            diagnostics[0].hint.as_deref(),
            Some(
                "the v3.32.1 CRD's rule on `spec` (FieldValueForbidden): `(!has(self.node) || size(self.node) == 0) || (!has(self.nodeSelector) || size(self.nodeSelector) == 0)`"
            )
        );
        let mut merged = vec![Diagnostic {
            severity: crate::diag::Severity::Error,
            code: "CR2001",
            path: "spec.nodeSelector".into(),
            message: "ours".into(),
            hint: Some("keep one of them".into()),
            location: None,
        }];
        check_document(newest(), &peer, &mut merged);
        assert_eq!(merged.len(), 1);
        assert_eq!(
            merged[0].hint.as_deref(),
            Some(
                "keep one of them; the v3.32.1 CRD's rule on `spec` says: node and nodeSelector cannot both be set (FieldValueForbidden)"
            )
        );
        // Older releases' CRDs have no rules: nothing is evaluated.
        let mut none = Vec::new();
        check_document(&RELEASES[0], &peer, &mut none);
        assert!(none.is_empty());
    }
}
