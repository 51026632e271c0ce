//! What the official `tigera-operator` Helm chart (Calico v3.32.1) does with its values: which
//! objects it renders from which keys, its defaults, and how Helm combines a user's values with
//! them. Both directions use it: [`crate::helm_values`] writes values that make the chart
//! render our objects, and [`crate::chart_values`] checks a user's values by rendering them the
//! way the chart would.
//!
//! The defaults are the chart's own `values.yaml`, embedded from
//! `calico-render/chart-values/v3.32.1/tigera-operator-values.yaml` (an upstream copy; provenance in
//! `calico-render/chart-values/README.md`), so its keys and defaults are never restated here.
//!
//! # What the templates do (v3.32.1)
//!
//! - **Installation `default`**, when `installation.enabled` is true: its spec is everything
//!   under `installation` except `enabled`, written out as it is. The Installation's
//!   `imagePullSecrets` is `installation.imagePullSecrets` followed by `{name: <key>}` for each
//!   key of the top-level `imagePullSecrets` map, in sorted key order (the chart also makes a
//!   pull Secret of each of those entries).
//! - **APIServer `default`**, when `apiServer.enabled` is true: spec = `apiServer` minus `enabled`.
//! - **FelixConfiguration `default`**, when `defaultFelixConfiguration.enabled` is true (the
//!   chart's default is false): spec = `defaultFelixConfiguration` minus `enabled`. An offline
//!   `helm template` writes it as `crd.projectcalico.org/v1`, an install that finds the
//!   projectcalico.org/v3 CRD as `projectcalico.org/v3`; both name the same object.
//! - **Goldmane `default`** and **Whisker `default`**, when their `enabled` is true: metadata
//!   only, so no other key under `goldmane` or `whisker` is read; they are checked as an empty
//!   spec, which is what a ClusterNetwork's `goldmane: true` / `whisker: true` renders.
//! - **ConfigMap `kubernetes-services-endpoint`** in the release namespace, only when
//!   `kubernetesServiceEndpoint.host` is non-empty: `KUBERNETES_SERVICE_HOST` and
//!   `KUBERNETES_SERVICE_PORT` from `host` and `port`, both quoted, so a numeric port becomes
//!   a string. The pod-network pair of keys cannot be set through the chart.
//! - The operator Deployment reads `tigeraOperator` (`image`, `version`, `registry`, and an
//!   `env` list the defaults do not show), `resources`, `tolerations`, `nodeSelector`,
//!   `affinity`, `priorityClassName`, `podAnnotations`, `podLabels`, `dnsConfig`, `dnsPolicy`
//!   (not in the defaults either) and `manageCRDs`; `additionalLabels` labels every resource;
//!   `certs` becomes the node and Typha certificate Secrets; `calicoctl` is the image of an
//!   OpenShift init container. The chart renders no IPPool, BGPConfiguration or BGPPeer.
//!
//! "True" means what a Go template's `if` means: not false, 0, null, an empty string or an
//! empty collection. So `enabled: "false"` (a string) counts as true.
//!
//! # How Helm combines values
//!
//! The user's values are laid over the chart's defaults: two mappings merge key by key, any
//! other value replaces the default whole (lists are never merged), and `null` deletes the
//! default. Keys are never split at dots: only `helm --set` does that.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use calico_spec::release::Release;
use calico_spec::source::{Limits, join_key, parse_stream};
use serde_json::{Map, Value};

/// The chart's values file, byte for byte (the newest release's).
pub const DEFAULTS_YAML: &str = include_str!("../chart-values/v3.32.1/tigera-operator-values.yaml");

/// The chart release these facts describe (the templates are v3.32.1's; each release's
/// defaults are in [`VALUES_FILES`]).
pub const CHART_VERSION: &str = "v3.32.1";

/// The chart's values file of every supported release, byte for byte, in the order of
/// [`calico_spec::release::RELEASES`]: (the release's data folder, the file). The keys and
/// defaults differ (v3.30.7 has `kubeletVolumePluginPath` at the top level and only
/// `kubernetesProvider` and `imagePullSecrets` under `installation`; v3.31.7 adds
/// `installation.kubeletVolumePluginPath: None`; v3.32.1 adds `controlPlaneReplicas`,
/// `controlPlaneNodeSelector`, `controlPlaneTolerations` and `nonPrivileged`).
pub const VALUES_FILES: [(&str, &str); 4] = [
    (
        "v3.30.7",
        include_str!("../chart-values/v3.30.7/tigera-operator-values.yaml"),
    ),
    (
        "v3.31.7",
        include_str!("../chart-values/v3.31.7/tigera-operator-values.yaml"),
    ),
    ("v3.32.1", DEFAULTS_YAML),
    (
        "release-v3.33-6609dea",
        include_str!("../chart-values/release-v3.33-6609dea/tigera-operator-values.yaml"),
    ),
];

/// The chart's name in a chart repository (what a Flux HelmRelease or an Argo CD Application
/// names).
pub const CHART_NAME: &str = "tigera-operator";

/// The name of the endpoint ConfigMap.
pub const ENDPOINT_CONFIG_MAP: &str = "kubernetes-services-endpoint";

/// The namespace the operator is usually installed in; with the chart it is the release
/// namespace, where the chart also writes the endpoint ConfigMap.
pub const OPERATOR_NAMESPACE: &str = "tigera-operator";

/// The top-level key of the endpoint values.
pub const ENDPOINT_KEY: &str = "kubernetesServiceEndpoint";

/// The endpoint values and the ConfigMap keys the chart writes them to.
pub const ENDPOINT_VALUES: [(&str, &str); 2] = [
    ("host", "KUBERNETES_SERVICE_HOST"),
    ("port", "KUBERNETES_SERVICE_PORT"),
];

/// One object the chart renders from one top-level key of its values, named `default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// The top-level key, e.g. `installation`.
    pub key: &'static str,
    /// The object's apiVersion as we write and check it.
    pub api_version: &'static str,
    /// The object's kind.
    pub kind: &'static str,
    /// Whether the keys beside `enabled` become the object's spec (false: metadata only).
    pub spec: bool,
}

/// `installation`: the Installation.
pub const INSTALLATION: Section = Section {
    key: "installation",
    api_version: "operator.tigera.io/v1",
    kind: "Installation",
    spec: true,
};
/// `apiServer`: the APIServer.
pub const API_SERVER: Section = Section {
    key: "apiServer",
    api_version: "operator.tigera.io/v1",
    kind: "APIServer",
    spec: true,
};
/// `defaultFelixConfiguration`: FelixConfiguration `default`.
pub const FELIX: Section = Section {
    key: "defaultFelixConfiguration",
    api_version: "projectcalico.org/v3",
    kind: "FelixConfiguration",
    spec: true,
};
/// `goldmane`: the Goldmane flow aggregator (metadata only).
pub const GOLDMANE: Section = Section {
    key: "goldmane",
    api_version: "operator.tigera.io/v1",
    kind: "Goldmane",
    spec: false,
};
/// `whisker`: the Whisker UI (metadata only).
pub const WHISKER: Section = Section {
    key: "whisker",
    api_version: "operator.tigera.io/v1",
    kind: "Whisker",
    spec: false,
};

/// Every object section, in the order the chart renders them.
pub const SECTIONS: [Section; 5] = [INSTALLATION, API_SERVER, GOLDMANE, WHISKER, FELIX];

/// What the chart does with a top-level key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An object section (see [`SECTIONS`]).
    Section(Section),
    /// A mapping whose keys are fixed: those of the defaults, plus the ones listed (read by
    /// the templates but absent from the defaults).
    Fixed(&'static [&'static str]),
    /// Handed on as it is (to the operator pod, a Secret or a label set): its content is
    /// Kubernetes' or the user's, not the chart's.
    Free,
}

/// Every top-level key the chart reads, with its role. Tests hold that the keys of the
/// defaults are exactly these minus [`UNDECLARED`].
pub const TOP_LEVEL: [(&str, Role); 22] = [
    ("imagePullSecrets", Role::Free),
    ("installation", Role::Section(INSTALLATION)),
    ("apiServer", Role::Section(API_SERVER)),
    ("goldmane", Role::Fixed(&[])),
    ("whisker", Role::Fixed(&[])),
    ("defaultFelixConfiguration", Role::Section(FELIX)),
    ("certs", Role::Fixed(&[])),
    ("manageCRDs", Role::Free),
    ("resources", Role::Free),
    ("additionalLabels", Role::Free),
    ("tolerations", Role::Free),
    ("nodeSelector", Role::Free),
    ("affinity", Role::Free),
    ("priorityClassName", Role::Free),
    ("podAnnotations", Role::Free),
    ("podLabels", Role::Free),
    ("dnsConfig", Role::Free),
    ("dnsPolicy", Role::Free),
    ("tigeraOperator", Role::Fixed(&["env"])),
    ("calicoctl", Role::Fixed(&[])),
    (ENDPOINT_KEY, Role::Fixed(&[])),
    ("global", Role::Free),
];

/// Top-level keys of [`TOP_LEVEL`] that the defaults do not hold: `dnsPolicy`, which the
/// operator Deployment's template reads, and `global`, which Helm itself gives every chart.
pub const UNDECLARED: [&str; 2] = ["dnsPolicy", "global"];

/// The role of a top-level key, when the chart reads it.
pub fn role(key: &str) -> Option<Role> {
    TOP_LEVEL
        .iter()
        .find(|(name, _)| *name == key)
        .map(|(_, role)| *role)
}

/// The chart's default values (the newest release's), parsed once.
pub fn defaults() -> &'static Value {
    defaults_for(Release::default_target())
}

/// The chart's default values of `release`'s chart, parsed once (the newest release's for a
/// release without a values file, which [`VALUES_FILES`] rules out).
#[expect(
    clippy::expect_used,
    reason = "the chart values are embedded; provenance and chart tests parse them"
)]
pub fn defaults_for(release: &Release) -> &'static Value {
    static DEFAULTS: [OnceLock<Value>; 4] = [const { OnceLock::new() }; 4];
    let ([.., newest_defaults], [.., newest_file]) = (&DEFAULTS, &VALUES_FILES);
    let (defaults, (_, text)) = DEFAULTS
        .iter()
        .zip(&VALUES_FILES)
        .find(|(_, (version, _))| *version == release.data)
        .unwrap_or((newest_defaults, newest_file));
    defaults.get_or_init(|| {
        // The embedded file is the upstream copy a test parses; it cannot fail here.
        let documents = parse_stream(text, &Limits::MANIFESTS).expect("the chart's values parse");
        documents
            .into_iter()
            .next()
            .map(|document| document.value)
            .unwrap_or_default()
    })
}

/// The keys the chart's defaults set under `installation`, besides `enabled` (the newest
/// release's chart).
pub fn installation_default_keys() -> impl Iterator<Item = &'static str> {
    installation_default_keys_for(Release::default_target())
}

/// The keys `release`'s chart defaults set under `installation`, besides `enabled`.
pub fn installation_default_keys_for(release: &Release) -> impl Iterator<Item = &'static str> {
    defaults_for(release)
        .get(INSTALLATION.key)
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|map| map.keys())
        .map(String::as_str)
        .filter(|key| *key != "enabled")
}

/// Lay `user` over `defaults` the way Helm does.
pub fn coalesce(defaults: &Value, user: &Value) -> Value {
    match (defaults, user) {
        (Value::Object(base), Value::Object(over)) => {
            let mut out = base.clone();
            for (key, value) in over {
                if value.is_null() {
                    out.remove(key);
                } else if let Some(default) = base.get(key) {
                    out.insert(key.clone(), coalesce(default, value));
                } else {
                    out.insert(key.clone(), value.clone());
                }
            }
            Value::Object(out)
        }
        _ => user.clone(),
    }
}

/// Whether a Go template's `if` takes `value` as true.
pub fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Number(number)) => number.as_f64() != Some(0.0),
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        Some(Value::Object(map)) => !map.is_empty(),
        Some(Value::Bool(true)) => true,
    }
}

/// Where a rendered object's content came from in the values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// An object section. For the Installation, `pull_secrets` counts the entries of
    /// `installation.imagePullSecrets` and then names the keys of the top-level map that
    /// follow them.
    Section {
        /// The section.
        section: Section,
        /// Entries that came from `installation.imagePullSecrets`.
        own_pull_secrets: usize,
        /// The keys of the top-level `imagePullSecrets` appended after them.
        pull_secret_keys: Vec<String>,
    },
    /// The endpoint ConfigMap.
    Endpoint,
}

impl Origin {
    /// The values path a field path of the rendered object came from: `spec.calicoNetwork.bgp`
    /// of the Installation is `installation.calicoNetwork.bgp`, `data.KUBERNETES_SERVICE_HOST`
    /// of the ConfigMap is `kubernetesServiceEndpoint.host`. Paths the chart writes itself
    /// (`metadata.name`, the apiVersion) map to the section's key.
    pub fn values_path(&self, object_path: &str) -> String {
        match self {
            Origin::Section {
                section,
                own_pull_secrets,
                pull_secret_keys,
            } => {
                let Some(rest) = object_path.strip_prefix("spec") else {
                    return section.key.to_owned();
                };
                if !(rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')) {
                    return section.key.to_owned();
                }
                if *section == INSTALLATION
                    && let Some(idx) = pull_secret_index(rest)
                    && idx >= *own_pull_secrets
                    && let Some(key) = pull_secret_keys.get(idx - own_pull_secrets)
                {
                    return join_key("imagePullSecrets", key);
                }
                format!("{}{rest}", section.key)
            }
            Origin::Endpoint => {
                for (value_key, data_key) in ENDPOINT_VALUES {
                    if object_path == join_key("data", data_key) {
                        return join_key(ENDPOINT_KEY, value_key);
                    }
                }
                ENDPOINT_KEY.to_owned()
            }
        }
    }
}

/// `.imagePullSecrets[3]...` -> 3.
fn pull_secret_index(rest: &str) -> Option<usize> {
    let tail = rest.strip_prefix(".imagePullSecrets[")?;
    let end = tail.find(']')?;
    tail[..end].parse().ok()
}

/// One object the chart renders, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedObject {
    /// The object as the chart writes it.
    pub value: Value,
    /// Where its fields came from.
    pub origin: Origin,
}

/// What the chart renders from (already combined) values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    /// The Calico objects, in the chart's order.
    pub objects: Vec<RenderedObject>,
}

/// Render the Calico objects the chart makes from `values` (the user's values already laid
/// over [`defaults`]). A section that is not a mapping renders nothing: Helm stops there.
pub fn render(values: &Value) -> Rendered {
    let mut rendered = Rendered::default();
    for section in SECTIONS {
        let Some(map) = values.get(section.key).and_then(Value::as_object) else {
            continue;
        };
        if !truthy(map.get("enabled")) {
            continue;
        }
        let mut spec: Map<String, Value> = if section.spec {
            map.clone()
        } else {
            Map::new()
        };
        spec.remove("enabled");
        let mut origin = Origin::Section {
            section,
            own_pull_secrets: 0,
            pull_secret_keys: Vec::new(),
        };
        if section == INSTALLATION {
            origin = installation_pull_secrets(values, &mut spec);
        }
        rendered.objects.push(RenderedObject {
            value: object(section.api_version, section.kind, "default", None, spec),
            origin,
        });
    }
    if let Some(endpoint) = values.get(ENDPOINT_KEY).and_then(Value::as_object)
        && truthy(endpoint.get("host"))
    {
        let mut data = Map::new();
        for (value_key, data_key) in ENDPOINT_VALUES {
            data.insert(
                data_key.to_owned(),
                Value::String(quoted(endpoint.get(value_key))),
            );
        }
        let mut config_map = object(
            "v1",
            "ConfigMap",
            ENDPOINT_CONFIG_MAP,
            Some(OPERATOR_NAMESPACE),
            Map::new(),
        );
        if let Some(map) = config_map.as_object_mut() {
            map.remove("spec");
            map.insert("data".to_owned(), Value::Object(data));
        }
        rendered.objects.push(RenderedObject {
            value: config_map,
            origin: Origin::Endpoint,
        });
    }
    rendered
}

/// The Installation's pull secrets: its own list, then one entry per key of the top-level map.
fn installation_pull_secrets(values: &Value, spec: &mut Map<String, Value>) -> Origin {
    let keys: Vec<String> = values
        .get("imagePullSecrets")
        .and_then(Value::as_object)
        .map(|map| {
            let sorted: BTreeMap<&String, &Value> = map.iter().collect();
            sorted.into_keys().cloned().collect()
        })
        .unwrap_or_default();
    let own = match spec.get("imagePullSecrets") {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Array(items)) => Some(items.clone()),
        // Not a list: the template cannot append to it; the schema pass reports the type.
        Some(_) => None,
    };
    let own_pull_secrets = own.as_ref().map_or(0, Vec::len);
    if let Some(mut list) = own {
        for key in &keys {
            let mut entry = Map::new();
            entry.insert("name".to_owned(), Value::String(key.clone()));
            list.push(Value::Object(entry));
        }
        spec.insert("imagePullSecrets".to_owned(), Value::Array(list));
    }
    Origin::Section {
        section: INSTALLATION,
        own_pull_secrets,
        pull_secret_keys: keys,
    }
}

/// Sprig's `quote` of a value, without the quotes: what the ConfigMap ends up holding.
fn quoted(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

fn object(
    api_version: &str,
    kind: &str,
    name: &str,
    namespace: Option<&str>,
    spec: Map<String, Value>,
) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".to_owned(), Value::String(name.to_owned()));
    if let Some(namespace) = namespace {
        metadata.insert("namespace".to_owned(), Value::String(namespace.to_owned()));
    }
    let mut map = Map::new();
    map.insert(
        "apiVersion".to_owned(),
        Value::String(api_version.to_owned()),
    );
    map.insert("kind".to_owned(), Value::String(kind.to_owned()));
    map.insert("metadata".to_owned(), Value::Object(metadata));
    map.insert("spec".to_owned(), Value::Object(spec));
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn top_level_keys_are_the_defaults_keys() {
        let defaults = defaults().as_object().expect("the defaults are a mapping");
        let mut ours: Vec<&str> = TOP_LEVEL
            .iter()
            .map(|(key, _)| *key)
            .filter(|key| !UNDECLARED.contains(key))
            .collect();
        ours.sort_unstable();
        let mut theirs: Vec<&str> = defaults.keys().map(String::as_str).collect();
        theirs.sort_unstable();
        assert_eq!(ours, theirs);
        for (key, role) in TOP_LEVEL {
            if let Role::Section(section) = role {
                assert_eq!(section.key, key);
                assert!(SECTIONS.contains(&section));
            }
            if let Role::Fixed(_) = role
                && !UNDECLARED.contains(&key)
            {
                assert!(defaults[key].is_object(), "{key} has fixed keys");
            }
        }
        for section in SECTIONS {
            assert!(
                defaults[section.key]["enabled"].is_boolean(),
                "{} has `enabled`",
                section.key
            );
        }
        for (value_key, _) in ENDPOINT_VALUES {
            assert!(defaults[ENDPOINT_KEY].get(value_key).is_some());
        }
        assert_eq!(defaults["tigeraOperator"]["version"], "v1.42.3");
        assert_eq!(defaults["calicoctl"]["tag"], CHART_VERSION);
    }

    #[test]
    fn helm_combines_values() {
        let defaults = json!({"a": {"b": 1, "c": [1, 2]}, "d": "x"});
        let user = json!({"a": {"c": [3], "e": true}, "d": null, "f": {}});
        assert_eq!(
            coalesce(&defaults, &user),
            json!({"a": {"b": 1, "c": [3], "e": true}, "f": {}})
        );
    }

    #[test]
    fn go_template_truth() {
        for value in [
            json!(false),
            json!(0),
            json!(""),
            json!([]),
            json!({}),
            Value::Null,
        ] {
            assert!(!truthy(Some(&value)), "{value}");
        }
        for value in [
            json!(true),
            json!(1),
            json!("false"),
            json!([0]),
            json!({"a": 1}),
        ] {
            assert!(truthy(Some(&value)), "{value}");
        }
        assert!(!truthy(None));
    }

    #[test]
    fn default_values_render_installation_and_api_server() {
        let rendered = render(defaults());
        let kinds: Vec<&str> = rendered
            .objects
            .iter()
            .map(|object| object.value["kind"].as_str().unwrap_or_default())
            .collect();
        // The chart's defaults turn Goldmane and Whisker on (`enabled: true`), metadata only.
        assert_eq!(kinds, ["Installation", "APIServer", "Goldmane", "Whisker"]);
        assert_eq!(rendered.objects[2].value["spec"], json!({}));
        assert_eq!(
            rendered.objects[0].value["spec"],
            json!({
                "kubeletVolumePluginPath": "None", "imagePullSecrets": [], "kubernetesProvider": "",
                "controlPlaneReplicas": 2, "controlPlaneNodeSelector": {},
                "controlPlaneTolerations": [], "nonPrivileged": "Disabled"
            })
        );
    }

    #[test]
    fn pull_secrets_and_endpoint_map_back() {
        let user = json!({
            "imagePullSecrets": {"zeta": "{}", "alpha": "{}"},
            "installation": {"imagePullSecrets": [{"name": "own"}]},
            "kubernetesServiceEndpoint": {"host": "api.example", "port": 6443}
        });
        let rendered = render(&coalesce(defaults(), &user));
        let installation = &rendered.objects[0];
        assert_eq!(
            installation.value["spec"]["imagePullSecrets"],
            json!([{"name": "own"}, {"name": "alpha"}, {"name": "zeta"}])
        );
        let origin = &installation.origin;
        assert_eq!(
            origin.values_path("spec.imagePullSecrets[0].name"),
            "installation.imagePullSecrets[0].name"
        );
        assert_eq!(
            origin.values_path("spec.imagePullSecrets[2].name"),
            "imagePullSecrets.zeta"
        );
        assert_eq!(origin.values_path("spec"), "installation");
        assert_eq!(origin.values_path("spec[\"a.b\"]"), "installation[\"a.b\"]");
        assert_eq!(origin.values_path("metadata.name"), "installation");
        assert_eq!(origin.values_path("specs"), "installation");
        let endpoint = rendered.objects.last().expect("a ConfigMap");
        assert_eq!(
            endpoint.value["data"],
            json!({"KUBERNETES_SERVICE_HOST": "api.example", "KUBERNETES_SERVICE_PORT": "6443"})
        );
        assert_eq!(
            endpoint.origin.values_path("data.KUBERNETES_SERVICE_PORT"),
            "kubernetesServiceEndpoint.port"
        );
        assert_eq!(
            endpoint.origin.values_path("metadata.namespace"),
            "kubernetesServiceEndpoint"
        );
    }
}
