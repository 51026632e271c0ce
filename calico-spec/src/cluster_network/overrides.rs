//! `spec.overrides` and `spec.extraObjects`: every upstream field the vocabulary does not
//! offer, without losing the typing and the rules.
//!
//! An override is a partial object in upstream wire form (`metadata.labels`,
//! `metadata.annotations` and `spec`, or `data` for the endpoint ConfigMap) for one object the
//! ClusterNetwork renders. [`apply`] deep-merges it into the vocabulary's object before the
//! operator's defaults are added: maps merge key by key, lists replace, `null` removes a key,
//! and the Installation's `spec.calicoNetwork.ipPools` merges item by item by `name`. Extra
//! objects are appended verbatim and land in their kind's stage like every other object.
//!
//! [`check`] (run by `parse`) refuses, each at its line and column:
//! - a field the vocabulary sets, or could set, and the FelixConfiguration fields the operator
//!   writes itself (one source of truth per field), naming both places (`CN0303`);
//! - an override of an object that is not rendered, or of a pod pool `spec.podPools` lacks
//!   (`CN0304`);
//! - whatever the generated wire types refuse in the merged objects and the extra objects:
//!   unknown fields with "did you mean", wrong types, unknown enum values (`CN0301`, `CN0302`);
//! - extra objects of a kind we do not render, or with the identity of a rendered one
//!   (`CN0305`).
//!
//! The merged objects then go through the whole rule catalogue in `load`, and [`origin`]
//! reports what it finds at the override or extra object the field came from.
//!
//! Values are read as kubectl reads YAML (`parse` re-reads these subtrees with Kubernetes'
//! scalar rules), because they are upstream objects, not our vocabulary: `mtu: 1440` is a
//! number and an unquoted `yes` a boolean, exactly as `kubectl apply` would send them.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::compile::{FELIX_FIELDS, POOL_FIELDS, origin_of, v3_object, vocabulary_objects};
use super::spec::ClusterNetwork;
use crate::diag::{Diagnostic, Location};
use crate::generated::operator_tigera_io::v1;
use crate::generated::projectcalico_org::v3;
use crate::rules::catalogue::{self as c, Rule};
use crate::source::{Scalars, SpanMap, join_index, join_key};
use crate::typed;

/// Partial objects merged into what the ClusterNetwork renders, one per rendered object.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Overrides {
    /// Merged into Installation `default` (operator.tigera.io/v1), before the operator's
    /// defaults: `spec.registry`, `spec.imagePullSecrets`, `spec.calicoNodeDaemonSet`, ... Pools
    /// in `spec.calicoNetwork.ipPools` are merged by `name` into the pools of `spec.podPools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installation: Option<ObjectOverride>,
    /// Merged into APIServer `default` (operator.tigera.io/v1); needs `calicoAPIServer: true`.
    #[serde(default, rename = "apiServer", skip_serializing_if = "Option::is_none")]
    pub api_server: Option<ObjectOverride>,
    /// Merged into Goldmane `default` (operator.tigera.io/v1); needs `goldmane: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goldmane: Option<ObjectOverride>,
    /// Merged into Whisker `default` (operator.tigera.io/v1); needs `whisker: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whisker: Option<ObjectOverride>,
    /// Merged into FelixConfiguration `default` (projectcalico.org/v3), which is rendered when
    /// this or `spec.felix` sets anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub felix_configuration: Option<ObjectOverride>,
    /// Merged into BGPConfiguration `default` (projectcalico.org/v3), which is rendered when
    /// this or `spec.bgp` sets anything.
    #[serde(
        default,
        rename = "bgpConfiguration",
        skip_serializing_if = "Option::is_none"
    )]
    pub bgp_configuration: Option<ObjectOverride>,
    /// Merged into the BGPPeer of `spec.bgp.peers` with this name.
    #[serde(
        default,
        rename = "bgpPeers",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub bgp_peers: BTreeMap<String, ObjectOverride>,
    /// Merged into the IPPool of `spec.loadBalancerPools` with this name (pod pools live in the
    /// Installation: override them under `installation.spec.calicoNetwork.ipPools`).
    #[serde(
        default,
        rename = "ipPools",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub ip_pools: BTreeMap<String, ObjectOverride>,
    /// Merged into ConfigMap `tigera-operator/kubernetes-services-endpoint`; needs
    /// `spec.apiEndpoint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint_config_map: Option<EndpointOverride>,
}

impl Overrides {
    /// True when nothing is overridden.
    pub fn is_empty(&self) -> bool {
        self == &Overrides::default()
    }
}

/// A partial operator.tigera.io or projectcalico.org object, in wire form.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectOverride {
    /// Labels and annotations to add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<OverrideMetadata>,
    /// Fields of the object's `spec`, as in the CRD (`kubectl explain <kind>.spec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<Map<String, Value>>,
}

/// A partial endpoint ConfigMap, in wire form.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndpointOverride {
    /// Labels and annotations to add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<OverrideMetadata>,
    /// Further keys, such as `KUBERNETES_SERVICE_HOST_POD_NETWORK` (string values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Map<String, Value>>,
}

/// The metadata an override may add to a rendered object.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OverrideMetadata {
    /// Labels (string values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Map<String, Value>>,
    /// Annotations (string values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Map<String, Value>>,
}

/// One projectcalico.org/v3 object rendered verbatim.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExtraObject {
    /// `projectcalico.org/v3`.
    #[schemars(extend("enum" = ["projectcalico.org/v3"]))]
    pub api_version: String,
    /// `FelixConfiguration`, `BGPConfiguration`, `BGPPeer` or `IPPool`.
    #[schemars(extend("enum" = ["FelixConfiguration", "BGPConfiguration", "BGPPeer", "IPPool"]))]
    pub kind: String,
    /// The object's metadata (`name`, labels, annotations).
    pub metadata: Map<String, Value>,
    /// The object's spec, as in the CRD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<Map<String, Value>>,
}

/// The kinds `spec.extraObjects` takes.
const EXTRA_KINDS: &[&str] = &[
    "FelixConfiguration",
    "BGPConfiguration",
    "BGPPeer",
    "IPPool",
];
/// The apiVersion of every extra object.
const EXTRA_API_VERSION: &str = "projectcalico.org/v3";

/// One override and the object it applies to.
struct Entry {
    /// The override's ClusterNetwork path, e.g. `spec.overrides.bgpPeers.rack-1`.
    path: String,
    kind: &'static str,
    name: String,
    /// The partial object.
    partial: Value,
}

fn entries(overrides: &Overrides) -> Vec<Entry> {
    let base = "spec.overrides";
    let to_value = |over: &dyn erased::ToValue| over.to_value();
    let mut out = Vec::new();
    let mut push = |key: &str, kind: &'static str, name: &str, partial: Value| {
        out.push(Entry {
            path: join_key(base, key),
            kind,
            name: name.to_owned(),
            partial,
        });
    };
    if let Some(over) = &overrides.endpoint_config_map {
        push(
            "endpointConfigMap",
            "ConfigMap",
            super::ENDPOINT_CONFIG_MAP,
            to_value(over),
        );
    }
    if let Some(over) = &overrides.installation {
        push("installation", "Installation", "default", to_value(over));
    }
    if let Some(over) = &overrides.api_server {
        push("apiServer", "APIServer", "default", to_value(over));
    }
    if let Some(over) = &overrides.goldmane {
        push("goldmane", "Goldmane", "default", to_value(over));
    }
    if let Some(over) = &overrides.whisker {
        push("whisker", "Whisker", "default", to_value(over));
    }
    if let Some(over) = &overrides.felix_configuration {
        push(
            "felixConfiguration",
            "FelixConfiguration",
            "default",
            to_value(over),
        );
    }
    if let Some(over) = &overrides.bgp_configuration {
        push(
            "bgpConfiguration",
            "BGPConfiguration",
            "default",
            to_value(over),
        );
    }
    for (name, over) in &overrides.bgp_peers {
        out.push(Entry {
            path: join_key(&join_key(base, "bgpPeers"), name),
            kind: "BGPPeer",
            name: name.clone(),
            partial: to_value(over),
        });
    }
    for (name, over) in &overrides.ip_pools {
        out.push(Entry {
            path: join_key(&join_key(base, "ipPools"), name),
            kind: "IPPool",
            name: name.clone(),
            partial: to_value(over),
        });
    }
    out
}

/// Serializing the two override shapes through one function.
mod erased {
    pub(super) trait ToValue {
        fn to_value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> ToValue for T {
        #[expect(
            clippy::expect_used,
            reason = "overrides hold only JSON values, which always serialize"
        )]
        fn to_value(&self) -> serde_json::Value {
            serde_json::to_value(self)
                .expect("invariant: overrides hold only JSON values and serialize")
        }
    }
}

/// Objects an override may create when the vocabulary does not render them.
fn creatable(kind: &str) -> bool {
    matches!(kind, "FelixConfiguration" | "BGPConfiguration")
}

fn identity(value: &Value) -> (&str, &str) {
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    (kind, name)
}

fn find<'a>(values: &'a mut [Value], kind: &str, name: &str) -> Option<&'a mut Value> {
    values
        .iter_mut()
        .find(|value| identity(value) == (kind, name))
}

/// Merge the overrides into the vocabulary's objects (creating the FelixConfiguration or
/// BGPConfiguration an override needs) and append the extra objects. Checked input is assumed:
/// an override of an object that is not rendered is skipped.
pub(super) fn apply(cluster_network: &ClusterNetwork, values: &mut Vec<Value>) {
    let spec = &cluster_network.spec;
    for entry in entries(&spec.overrides) {
        if find(values, entry.kind, &entry.name).is_none() && creatable(entry.kind) {
            values.push(v3_object(
                entry.kind,
                &entry.name,
                Value::Object(Map::new()),
            ));
        }
        if let Some(target) = find(values, entry.kind, &entry.name) {
            merge(entry.kind, &mut Vec::new(), target, &entry.partial);
        }
    }
    for extra in &spec.extra_objects {
        values.push(erased::ToValue::to_value(extra));
    }
    // Created objects were pushed last; put them back in bundle order (stable).
    values.sort_by_key(|value| rank(identity(value).0));
}

fn rank(kind: &str) -> u8 {
    match kind {
        "ConfigMap" => 0,
        "Installation" => 1,
        "APIServer" => 2,
        "Goldmane" => 3,
        "Whisker" => 4,
        "FelixConfiguration" => 5,
        "BGPConfiguration" => 6,
        "BGPPeer" => 7,
        _ => 8,
    }
}

/// The one keyed list: the Installation's pools, merged by `name`.
fn is_keyed(kind: &str, keys: &[String]) -> bool {
    kind == "Installation" && keys == ["spec", "calicoNetwork", "ipPools"]
}

fn item_name(item: &Value) -> Option<&str> {
    item.get("name").and_then(Value::as_str)
}

/// Deep-merge `patch` into `base`: maps merge, `null` removes, keyed lists merge by name,
/// anything else replaces.
fn merge(kind: &str, keys: &mut Vec<String>, base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    base.remove(key);
                    continue;
                }
                keys.push(key.clone());
                match base.get_mut(key) {
                    Some(child) => merge(kind, keys, child, value),
                    None => {
                        base.insert(key.clone(), without_nulls(value));
                    }
                }
                keys.pop();
            }
        }
        (Value::Array(base), Value::Array(patch)) if is_keyed(kind, keys) => {
            for item in patch {
                let target = item_name(item)
                    .and_then(|name| base.iter_mut().find(|pool| item_name(pool) == Some(name)));
                match target {
                    Some(target) => merge(kind, keys, target, item),
                    None => base.push(without_nulls(item)),
                }
            }
        }
        (base, patch) => *base = without_nulls(patch),
    }
}

fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key.clone(), without_nulls(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// Wire fields the vocabulary speaks about even where it renders nothing (the owner is the
/// ClusterNetwork field [`origin_of`] names), per kind, as dotted paths.
const OWNED: &[(&str, &[&str])] = &[
    (
        "Installation",
        &[
            "spec.kubernetesProvider",
            "spec.calicoNetwork.linuxDataplane",
            "spec.calicoNetwork.bgp",
            "spec.calicoNetwork.bpfNetworkBootstrap",
            "spec.calicoNetwork.kubeProxyManagement",
            "spec.calicoNetwork.mtu",
            "spec.calicoNetwork.nodeAddressAutodetectionV4",
            "spec.calicoNetwork.nodeAddressAutodetectionV6",
        ],
    ),
    (
        "BGPConfiguration",
        &[
            "spec.asNumber",
            "spec.nodeToNodeMeshEnabled",
            "spec.serviceClusterIPs",
            "spec.serviceExternalIPs",
            "spec.serviceLoadBalancerIPs",
        ],
    ),
    (
        "BGPPeer",
        &[
            "spec.peerIP",
            "spec.asNumber",
            "spec.nodeSelector",
            "spec.password",
            "spec.keepaliveTime",
            "spec.maxRestartTime",
            "spec.nextHopMode",
        ],
    ),
    ("IPPool", &["spec.cidr", "spec.blockSize"]),
];

/// FelixConfiguration `default` fields the operator writes from the Installation (refused in
/// an override; `import` drops them).
pub const OPERATOR_FELIX_FIELDS: &[&str] = &[
    "bpfEnabled",
    "nftablesMode",
    "healthPort",
    "vxlanVNI",
    "vxlanPort",
    "programClusterRoutes",
    "routeTableRange",
];

/// Fields the vocabulary writes out only as the CRD's defaults: an override may change them.
const DEFAULTS_WRITTEN_OUT: &[(&str, &str)] = &[
    ("BGPConfiguration", "spec.logSeverityScreen"),
    ("BGPConfiguration", "spec.serviceLoadBalancerAggregation"),
    ("IPPool", "spec.assignmentMode"),
];

/// Who sets a wire field the override must not touch.
enum Owner {
    /// A ClusterNetwork field (its path).
    Vocabulary(String),
    /// The tigera-operator, from the Installation.
    Operator,
}

/// What [`check`] found in one override, before positions.
enum Finding {
    Conflict { over: String, owner: Owner },
    UnnamedPool { over: String },
    UnknownPool { over: String, name: String },
}

struct Walk<'a> {
    cluster_network: &'a ClusterNetwork,
    kind: &'a str,
    name: &'a str,
    /// Dotted wire keys from the root, for the keyed-list test.
    keys: Vec<String>,
    findings: Vec<Finding>,
}

impl Walk<'_> {
    fn owner(&self, wire: &str, in_base: bool) -> Option<Owner> {
        if self.kind == "FelixConfiguration" && self.name == super::DEFAULT_NAME {
            let field = wire.strip_prefix("spec.").unwrap_or_default();
            let field = field.split(['.', '[']).next().unwrap_or_default();
            if OPERATOR_FELIX_FIELDS.contains(&field) {
                return Some(Owner::Operator);
            }
            if FELIX_FIELDS.contains(&field) {
                return Some(Owner::Vocabulary(format!("spec.felix.{field}")));
            }
        }
        let exempt = DEFAULTS_WRITTEN_OUT.contains(&(self.kind, wire));
        let owned = OWNED
            .iter()
            .filter(|(kind, _)| *kind == self.kind)
            .flat_map(|(_, paths)| paths.iter())
            .any(|path| {
                wire == *path
                    || wire
                        .strip_prefix(path)
                        .is_some_and(|rest| rest.starts_with(['.', '[']))
            });
        ((in_base && !exempt) || owned)
            .then(|| Owner::Vocabulary(origin_of(self.cluster_network, self.kind, self.name, wire)))
    }

    fn walk(&mut self, wire: &str, over: &str, base: Option<&Value>, patch: &Value) {
        match (base, patch) {
            (Some(Value::Object(base)), Value::Object(patch)) => {
                for (key, value) in patch {
                    self.keys.push(key.clone());
                    self.walk(
                        &join_key(wire, key),
                        &join_key(over, key),
                        base.get(key),
                        value,
                    );
                    self.keys.pop();
                }
            }
            (Some(Value::Array(base)), Value::Array(patch)) if is_keyed(self.kind, &self.keys) => {
                for (over_idx, item) in patch.iter().enumerate() {
                    let item_over = join_index(over, over_idx);
                    let Some(name) = item_name(item) else {
                        self.findings.push(Finding::UnnamedPool { over: item_over });
                        continue;
                    };
                    let Some(base_idx) = base.iter().position(|pool| item_name(pool) == Some(name))
                    else {
                        self.findings.push(Finding::UnknownPool {
                            over: join_key(&item_over, "name"),
                            name: name.to_owned(),
                        });
                        continue;
                    };
                    let item_wire = join_index(wire, base_idx);
                    for (key, _) in item.as_object().into_iter().flatten() {
                        if key != "name" && POOL_FIELDS.contains(&key.as_str()) {
                            let wire = join_key(&item_wire, key);
                            self.findings.push(Finding::Conflict {
                                over: join_key(&item_over, key),
                                owner: Owner::Vocabulary(origin_of(
                                    self.cluster_network,
                                    self.kind,
                                    self.name,
                                    &wire,
                                )),
                            });
                        }
                    }
                }
            }
            (base, patch) => {
                if let Some(owner) = self.owner(wire, base.is_some()) {
                    self.findings.push(Finding::Conflict {
                        over: over.to_owned(),
                        owner,
                    });
                } else if let (None, Value::Object(patch)) = (base, patch) {
                    // A new subtree: a vocabulary field may still be inside it.
                    for (key, value) in patch {
                        self.keys.push(key.clone());
                        self.walk(&join_key(wire, key), &join_key(over, key), None, value);
                        self.keys.pop();
                    }
                }
            }
        }
    }
}

/// The override without the Installation pools that name no pool of the base (already
/// reported), so that typing the merged object does not report them again as incomplete pools.
fn known_pools_only(entry: &Entry, base: &Value) -> Value {
    let mut partial = entry.partial.clone();
    if entry.kind != "Installation" {
        return partial;
    }
    let known = |item: &Value| {
        let name = item_name(item);
        name.is_some()
            && base
                .pointer("/spec/calicoNetwork/ipPools")
                .and_then(Value::as_array)
                .is_some_and(|pools| pools.iter().any(|pool| item_name(pool) == name))
    };
    if let Some(Value::Array(pools)) = partial.pointer_mut("/spec/calicoNetwork/ipPools") {
        pools.retain(known);
    }
    partial
}

/// Every problem of `spec.overrides` and `spec.extraObjects`, located in `file` through
/// `spans`. Runs on a ClusterNetwork that passed [`super::check`].
pub(super) fn check(
    cluster_network: &ClusterNetwork,
    file: &str,
    spans: &SpanMap,
) -> Vec<Diagnostic> {
    let spec = &cluster_network.spec;
    let mut out = Vec::new();
    let vocabulary = vocabulary_objects(cluster_network);
    let mut merged = vocabulary.clone();
    for entry in entries(&spec.overrides) {
        let base = vocabulary
            .iter()
            .find(|value| identity(value) == (entry.kind, entry.name.as_str()));
        let created;
        let base = match base {
            Some(base) => base,
            None if creatable(entry.kind) => {
                created = v3_object(entry.kind, &entry.name, Value::Object(Map::new()));
                &created
            }
            None => {
                out.push(missing_target(cluster_network, &entry, file, spans));
                continue;
            }
        };
        let mut walk = Walk {
            cluster_network,
            kind: entry.kind,
            name: &entry.name,
            keys: Vec::new(),
            findings: Vec::new(),
        };
        walk.walk("", &entry.path, Some(base), &entry.partial);
        for finding in walk.findings {
            out.push(finding_diagnostic(&entry, finding, file, spans));
        }
        let mut object = base.clone();
        merge(
            entry.kind,
            &mut Vec::new(),
            &mut object,
            &known_pools_only(&entry, base),
        );
        for problem in type_object(entry.kind, &object) {
            let path = override_path(&entry, &object, &problem.path);
            out.push(problem_diagnostic(problem, path, file, spans));
        }
        if let Some(slot) = find(&mut merged, entry.kind, &entry.name) {
            *slot = object;
        } else {
            merged.push(object);
        }
    }
    for (idx, extra) in spec.extra_objects.iter().enumerate() {
        let path = join_index("spec.extraObjects", idx);
        check_extra(extra, &path, &merged, file, spans, &mut out);
        merged.push(erased::ToValue::to_value(extra));
    }
    out
}

fn check_extra(
    extra: &ExtraObject,
    path: &str,
    rendered: &[Value],
    file: &str,
    spans: &SpanMap,
    out: &mut Vec<Diagnostic>,
) {
    if extra.api_version != EXTRA_API_VERSION {
        let at = join_key(path, "apiVersion");
        out.push(diagnostic(
            &c::CN_EXTRA_OBJECT,
            &at,
            format!(
                "extra objects are {EXTRA_API_VERSION} objects, not `{}`",
                typed::one_line(&extra.api_version)
            ),
            format!("write `apiVersion: {EXTRA_API_VERSION}`"),
            at_value(file, spans, &at),
        ));
        return;
    }
    if !EXTRA_KINDS.contains(&extra.kind.as_str()) {
        let at = join_key(path, "kind");
        let hint = match crate::suggest::closest(&extra.kind, EXTRA_KINDS.iter().copied()) {
            Some(kind) => format!("did you mean `{kind}`? valid here: {}", listed(EXTRA_KINDS)),
            None => format!("valid here: {}", listed(EXTRA_KINDS)),
        };
        out.push(diagnostic(
            &c::CN_EXTRA_OBJECT,
            &at,
            format!(
                "`{}` cannot be an extra object",
                typed::one_line(&extra.kind)
            ),
            hint,
            at_value(file, spans, &at),
        ));
        return;
    }
    let value = erased::ToValue::to_value(extra);
    let (kind, name) = identity(&value);
    if !name.is_empty() && rendered.iter().any(|other| identity(other) == (kind, name)) {
        let at = join_key(&join_key(path, "metadata"), "name");
        let hint = match (kind, name) {
            ("FelixConfiguration", "default") => {
                "change it under `spec.overrides.felixConfiguration` (or `spec.felix`)".to_owned()
            }
            ("BGPConfiguration", "default") => {
                "change it under `spec.overrides.bgpConfiguration` (or `spec.bgp`)".to_owned()
            }
            ("BGPPeer", _) => format!("change it under `spec.overrides.bgpPeers.{name}`"),
            _ => format!("change it under `spec.overrides.ipPools.{name}`"),
        };
        out.push(diagnostic(
            &c::CN_EXTRA_OBJECT,
            &at,
            format!("{kind} `{name}` is already rendered by this ClusterNetwork"),
            hint,
            at_value(file, spans, &at),
        ));
        return;
    }
    for problem in type_object(kind, &value) {
        let at = format!("{path}{}", dot_prefixed(&problem.path));
        out.push(problem_diagnostic(problem, at, file, spans));
    }
}

fn dot_prefixed(path: &str) -> String {
    if path.is_empty() || path.starts_with('[') {
        path.to_owned()
    } else {
        format!(".{path}")
    }
}

fn listed(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Type a merged or extra object with its generated wire type; the problems, with wire paths.
fn type_object(kind: &str, value: &Value) -> Vec<typed::Problem> {
    fn read<T: DeserializeOwned>(value: &Value) -> Vec<typed::Problem> {
        let mut problems = Vec::new();
        let _ = typed::read::<T>(value, Scalars::Kubernetes, &mut problems);
        problems
    }
    match kind {
        "ConfigMap" => read::<ConfigMap>(value),
        "Installation" => read::<v1::Installation>(value),
        "APIServer" => read::<v1::APIServer>(value),
        "Goldmane" => read::<v1::Goldmane>(value),
        "Whisker" => read::<v1::Whisker>(value),
        "FelixConfiguration" => read::<v3::FelixConfiguration>(value),
        "BGPConfiguration" => read::<v3::BGPConfiguration>(value),
        "BGPPeer" => read::<v3::BGPPeer>(value),
        "IPPool" => read::<v3::IPPool>(value),
        _ => Vec::new(),
    }
}

/// One step of a dotted field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// `a.b[0]["x.y"]` -> `a`, `b`, 0, `x.y` (the form [`join_key`] and [`join_index`] write).
fn segments(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(tail) = rest.strip_prefix('.') {
            rest = tail;
        } else if let Some(tail) = rest.strip_prefix("[\"") {
            // A JSON string up to the closing `"]`.
            let mut stream = serde_json::Deserializer::from_str(&rest[1..]).into_iter::<String>();
            match stream.next() {
                Some(Ok(key)) => {
                    let used = stream.byte_offset();
                    out.push(Segment::Key(key));
                    rest = rest[1 + used..].strip_prefix(']').unwrap_or_default();
                }
                _ => {
                    out.push(Segment::Key(tail.to_owned()));
                    break;
                }
            }
        } else if let Some(tail) = rest.strip_prefix('[') {
            let (number, tail) = tail.split_once(']').unwrap_or((tail, ""));
            match number.parse() {
                Ok(idx) => out.push(Segment::Index(idx)),
                Err(_) => out.push(Segment::Key(number.to_owned())),
            }
            rest = tail;
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            out.push(Segment::Key(rest[..end].to_owned()));
            rest = &rest[end..];
        }
    }
    out
}

/// Where a wire path of the merged `object` is in the override: the override's path for the
/// longest prefix the override sets, and whether that prefix is the whole path or a value the
/// override replaced as a whole (a scalar or a list).
fn locate_in(entry: &Entry, object: &Value, wire_path: &str) -> (String, bool) {
    let mut over = entry.path.clone();
    let mut node = &entry.partial;
    let mut merged = object;
    let mut keys: Vec<String> = Vec::new();
    for segment in segments(wire_path) {
        let next = match (&segment, node) {
            (Segment::Key(key), Value::Object(map)) => map.get(key).inspect(|_| {
                over = join_key(&over, key);
            }),
            (Segment::Index(idx), Value::Array(items)) if is_keyed(entry.kind, &keys) => {
                let name = merged.get(*idx).and_then(item_name);
                items
                    .iter()
                    .enumerate()
                    .find(|(_, item)| name.is_some() && item_name(item) == name)
                    .map(|(over_idx, item)| {
                        over = join_index(&over, over_idx);
                        item
                    })
            }
            (Segment::Index(_), Value::Array(_)) => return (over, true),
            _ => None,
        };
        let Some(next) = next else {
            return (over, !node.is_object());
        };
        node = next;
        merged = match &segment {
            Segment::Key(key) => {
                keys.push(key.clone());
                merged.get(key).unwrap_or(&Value::Null)
            }
            Segment::Index(idx) => merged.get(*idx).unwrap_or(&Value::Null),
        };
    }
    (over, true)
}

fn override_path(entry: &Entry, object: &Value, wire_path: &str) -> String {
    locate_in(entry, object, wire_path).0
}

/// The ClusterNetwork path of a problem the rule catalogue found at `wire_path` of the
/// compiled `object`, when it came from an override or an extra object; `None` leaves it to
/// the vocabulary's origin.
pub(super) fn origin(
    cluster_network: &ClusterNetwork,
    object: &Value,
    wire_path: &str,
) -> Option<String> {
    let spec = &cluster_network.spec;
    let (kind, name) = identity(object);
    if let Some(entry) = entries(&spec.overrides)
        .into_iter()
        .find(|entry| (entry.kind, entry.name.as_str()) == (kind, name))
    {
        let (path, owned) = locate_in(&entry, object, wire_path);
        let rendered_by_vocabulary = vocabulary_objects(cluster_network)
            .iter()
            .any(|value| identity(value) == (kind, name));
        return (owned || !rendered_by_vocabulary).then_some(path);
    }
    let rendered_by_vocabulary = vocabulary_objects(cluster_network)
        .iter()
        .any(|value| identity(value) == (kind, name));
    if rendered_by_vocabulary {
        return None;
    }
    let idx = spec.extra_objects.iter().position(|extra| {
        extra.kind == kind && extra.metadata.get("name").and_then(Value::as_str) == Some(name)
    })?;
    Some(format!(
        "{}{}",
        join_index("spec.extraObjects", idx),
        dot_prefixed(wire_path)
    ))
}

fn missing_target(
    cluster_network: &ClusterNetwork,
    entry: &Entry,
    file: &str,
    spans: &SpanMap,
) -> Diagnostic {
    let spec = &cluster_network.spec;
    let (message, hint) = match entry.kind {
        "APIServer" => (
            "there is no APIServer to override: `spec.calicoAPIServer` is false".to_owned(),
            "set `calicoAPIServer: true` or remove `spec.overrides.apiServer`".to_owned(),
        ),
        "Goldmane" => (
            "there is no Goldmane to override: `spec.goldmane` is false".to_owned(),
            "set `goldmane: true` or remove `spec.overrides.goldmane`".to_owned(),
        ),
        "Whisker" => (
            "there is no Whisker to override: `spec.whisker` is false".to_owned(),
            "set `whisker: true` or remove `spec.overrides.whisker`".to_owned(),
        ),
        "ConfigMap" => (
            "there is no endpoint ConfigMap to override: `spec.apiEndpoint` is not set".to_owned(),
            "set `spec.apiEndpoint` (host and port) first".to_owned(),
        ),
        "BGPPeer" => {
            let names: Vec<&str> = if spec.bgp.enabled {
                spec.bgp
                    .peers
                    .iter()
                    .map(|peer| peer.name.as_str())
                    .collect()
            } else {
                Vec::new()
            };
            (
                format!("no BGPPeer `{}` is rendered", entry.name),
                target_hint(&entry.name, &names, "spec.bgp.peers"),
            )
        }
        _ => {
            let names: Vec<&str> = spec
                .load_balancer_pools
                .iter()
                .map(|pool| pool.name.as_str())
                .collect();
            (
                format!("no IPPool `{}` is rendered", entry.name),
                target_hint(&entry.name, &names, "spec.loadBalancerPools"),
            )
        }
    };
    diagnostic(
        &c::CN_OVERRIDE_TARGET,
        &entry.path,
        message,
        hint,
        at_key(file, spans, &entry.path),
    )
}

fn target_hint(found: &str, names: &[&str], place: &str) -> String {
    let extra = format!(
        "add it under `{place}`, or a whole object under `spec.extraObjects`; pod pools are overridden in `spec.overrides.installation.spec.calicoNetwork.ipPools`"
    );
    match crate::suggest::closest(found, names.iter().copied()) {
        Some(name) => format!("did you mean `{name}`? otherwise {extra}"),
        None => extra,
    }
}

fn finding_diagnostic(entry: &Entry, finding: Finding, file: &str, spans: &SpanMap) -> Diagnostic {
    match finding {
        Finding::Conflict { over, owner } => {
            let (message, hint) = match owner {
                Owner::Vocabulary(place) => (
                    format!("`{over}` overrides a field the ClusterNetwork sets at `{place}`"),
                    format!(
                        "one source of truth per field: set it at `{place}` and remove it from `{}`",
                        entry.path
                    ),
                ),
                Owner::Operator => (
                    format!(
                        "`{over}` is written by the tigera-operator from the Installation; an override would be reverted"
                    ),
                    "remove it; `spec.dataplane` and the Installation decide it".to_owned(),
                ),
            };
            diagnostic(
                &c::CN_OVERRIDE_CONFLICT,
                &over,
                message,
                hint,
                at_key(file, spans, &over),
            )
        }
        Finding::UnnamedPool { over } => diagnostic(
            &c::CN_OVERRIDE_INVALID,
            &over,
            "a pool in the Installation override needs `name`; pools are merged by name".to_owned(),
            "add `name:` with the name of a pool of `spec.podPools`".to_owned(),
            at_value(file, spans, &over),
        ),
        Finding::UnknownPool { over, name } => diagnostic(
            &c::CN_OVERRIDE_TARGET,
            &over,
            format!("`spec.podPools` has no pool `{name}`"),
            "add the pool under `spec.podPools` and override only the fields it does not offer"
                .to_owned(),
            at_value(file, spans, &over),
        ),
    }
}

fn problem_diagnostic(
    problem: typed::Problem,
    path: String,
    file: &str,
    spans: &SpanMap,
) -> Diagnostic {
    let problem = typed::Problem {
        path,
        kind: problem.kind,
    };
    let (mut diag, position) = super::parse::from_problem(problem, spans);
    let rule = if diag.code == c::CN_UNKNOWN_FIELD.code {
        &c::CN_OVERRIDE_UNKNOWN_FIELD
    } else {
        &c::CN_OVERRIDE_INVALID
    };
    diag.code = rule.code;
    diag.severity = rule.severity;
    diag.location = Some(location(file, position));
    diag
}

fn diagnostic(
    rule: &Rule,
    path: &str,
    message: String,
    hint: String,
    location: Location,
) -> Diagnostic {
    Diagnostic {
        severity: rule.severity,
        code: rule.code,
        path: path.to_owned(),
        message,
        hint: Some(hint),
        location: Some(location),
    }
}

fn location(file: &str, position: Option<crate::source::Pos>) -> Location {
    Location {
        file: file.to_owned(),
        document: 0,
        line: position.map(|p| p.line),
        column: position.map(|p| p.column),
    }
}

fn at_key(file: &str, spans: &SpanMap, path: &str) -> Location {
    location(file, spans.locate_key(path))
}

fn at_value(file: &str, spans: &SpanMap, path: &str) -> Location {
    location(file, spans.locate_value(path))
}

/// The overrides and extra objects of the ClusterNetwork document `index` of `text`, read as
/// kubectl reads YAML (they are upstream objects, not our vocabulary).
pub(super) fn read_as_kubernetes(
    text: &str,
    index: usize,
    cluster_network: &mut ClusterNetwork,
    file: &str,
    spans: &SpanMap,
) -> Result<(), Box<Diagnostic>> {
    let fail = |path: &str, message: String| {
        Box::new(diagnostic(
            &c::CN_OVERRIDE_INVALID,
            path,
            message,
            "quote values that should stay text; they are read as kubectl reads YAML".to_owned(),
            at_value(file, spans, path),
        ))
    };
    let documents = crate::source::parse_stream_with(
        text,
        &crate::source::Limits::CLUSTER_NETWORK,
        Scalars::Kubernetes,
    )
    .map_err(|err| fail("spec.overrides", err.to_string()))?;
    let Some(document) = documents.into_iter().find(|doc| doc.index == index) else {
        return Err(fail("spec", "the document cannot be read again".to_owned()));
    };
    let spec = &mut cluster_network.spec;
    if let Some(value) = document.value.pointer("/spec/overrides") {
        let mut problems = Vec::new();
        match typed::read::<Overrides>(value, Scalars::Kubernetes, &mut problems) {
            Some(overrides) if problems.is_empty() => spec.overrides = overrides,
            _ => {
                let problem = problems.into_iter().next();
                let path = problem
                    .as_ref()
                    .map_or(String::from("spec.overrides"), |p| {
                        format!("spec.overrides{}", dot_prefixed(&p.path))
                    });
                return Err(fail(&path, read_again_message(problem)));
            }
        }
    }
    if let Some(value) = document.value.pointer("/spec/extraObjects") {
        let mut problems = Vec::new();
        match typed::read::<Vec<ExtraObject>>(value, Scalars::Kubernetes, &mut problems) {
            Some(extras) if problems.is_empty() => spec.extra_objects = extras,
            _ => {
                let problem = problems.into_iter().next();
                let path = problem
                    .as_ref()
                    .map_or(String::from("spec.extraObjects"), |p| {
                        format!("spec.extraObjects{}", dot_prefixed(&p.path))
                    });
                return Err(fail(&path, read_again_message(problem)));
            }
        }
    }
    Ok(())
}

fn read_again_message(problem: Option<typed::Problem>) -> String {
    match problem.map(|p| p.kind) {
        Some(typed::ProblemKind::Invalid { message }) => {
            format!("read as kubectl reads YAML: {message}")
        }
        _ => "cannot be read as kubectl reads YAML".to_owned(),
    }
}

/// True when a ClusterNetwork has overrides or extra objects, whose diagnostics need
/// [`check`].
pub(super) fn any(cluster_network: &ClusterNetwork) -> bool {
    !cluster_network.spec.overrides.is_empty() || !cluster_network.spec.extra_objects.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_as_join_writes_them() {
        let path = join_key(
            &join_index(&join_key("spec", "ipPools"), 2),
            "app.kubernetes.io/name",
        );
        assert_eq!(
            segments(&path),
            vec![
                Segment::Key("spec".into()),
                Segment::Key("ipPools".into()),
                Segment::Index(2),
                Segment::Key("app.kubernetes.io/name".into()),
            ]
        );
        assert_eq!(segments(""), Vec::<Segment>::new());
    }

    #[test]
    fn merge_kinds() {
        let mut base = serde_json::json!({
            "spec": {"a": 1, "m": {"x": 1, "y": 2}, "l": [1, 2],
                     "calicoNetwork": {"ipPools": [{"name": "p", "cidr": "10.0.0.0/16"}, {"name": "q"}]}}
        });
        let patch = serde_json::json!({
            "spec": {"m": {"y": 3, "z": 4}, "l": [9], "a": null,
                     "calicoNetwork": {"ipPools": [{"name": "q", "disableNewAllocations": true}]}}
        });
        merge("Installation", &mut Vec::new(), &mut base, &patch);
        assert_eq!(
            base,
            serde_json::json!({
                "spec": {"m": {"x": 1, "y": 3, "z": 4}, "l": [9],
                         "calicoNetwork": {"ipPools": [{"name": "p", "cidr": "10.0.0.0/16"},
                                                       {"name": "q", "disableNewAllocations": true}]}}
            })
        );
        // Elsewhere, and in other kinds, lists replace.
        let mut other =
            serde_json::json!({"spec": {"calicoNetwork": {"ipPools": [{"name": "p"}]}}});
        merge(
            "IPPool",
            &mut Vec::new(),
            &mut other,
            &serde_json::json!({"spec": {"calicoNetwork": {"ipPools": [{"name": "q"}]}}}),
        );
        assert_eq!(
            other,
            serde_json::json!({"spec": {"calicoNetwork": {"ipPools": [{"name": "q"}]}}})
        );
    }
}
