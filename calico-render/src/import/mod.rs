//! `import`: live objects read back into a ClusterNetwork that renders them again.
//!
//! The input is what `kubectl get installation,apiserver,ippools.projectcalico.org,
//! bgpconfigurations,bgppeers,felixconfigurations -o yaml` prints (a `List`, or a stream of
//! objects, in either apiVersion of the Calico kinds), plus the endpoint ConfigMap when the
//! cluster has one. The output is a [`ClusterNetwork`] whose rendering is those objects:
//!
//! 1. `read`: each object is identified, server-set metadata and `status` are dropped, and it
//!    is typed by the generated wire types (a field the CRD schema lacks is refused). Objects
//!    read through crd.projectcalico.org/v1 become projectcalico.org/v3.
//! 2. `installation`: the Installation with the operator's write-back defaults applied (the
//!    state the operator converges to) is split into the vocabulary (dataplane, BGP, pools,
//!    MTU, autodetection, provider) and `spec.overrides.installation` for the rest; then every
//!    override value the operator's defaults would write anyway is dropped, one at a time,
//!    keeping only those whose removal changes the rendered Installation.
//! 3. `objects`: the endpoint ConfigMap, APIServer, FelixConfiguration, BGPConfiguration,
//!    BGPPeers and IPPools, each into the vocabulary where it can say the object, with the rest
//!    in `spec.overrides`, or whole into `spec.extraObjects`; the operator's own output (its
//!    Felix fields, its copies of the Installation's pools) is dropped.
//! 4. `verify`: the ClusterNetwork is written out, read back through
//!    [`calico_spec::cluster_network::load`] (so it passes every check `render` runs), and its
//!    objects are compared with the live ones: every live value that was not dropped for a
//!    reason must be rendered unchanged. Values the rendering adds that the live objects lack
//!    are reported (`CN0405`). So `import` then `render` then `patch` finds nothing to change.
//!
//! Everything dropped or kept outside the vocabulary is reported as a diagnostic with a
//! `CN04xx` code; what no ClusterNetwork can say is refused (`CN0406`, `CN0407`), with the
//! file, document and field path of the live object.
//!
//! ```
//! use calico_render::import::{Options, import_values};
//! use serde_json::json;
//!
//! // As `kubectl get installation default -o json` or a kube client returns it.
//! let live = json!({
//!     "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
//!     "metadata": {"name": "default", "resourceVersion": "48213"},
//!     "spec": {"registry": "registry.corp.example/", "calicoNetwork": {"bgp": "Disabled",
//!         "ipPools": [{"name": "pods", "cidr": "10.48.0.0/16", "encapsulation": "VXLAN"}]}},
//!     "status": {"mtu": 1450},
//! });
//! let imported = import_values(&[live], &Options::default())?;
//! assert_eq!(imported.cluster_network.spec.pod_pools[0].name, "pods");
//! assert!(imported.text.contains("registry: registry.corp.example/"), "{}", imported.text);
//! // What was dropped and why, with codes (here: status and resourceVersion, CN0401).
//! use calico_render::calico_spec::rules::catalogue::CN_IMPORT_SERVER_SET;
//! assert!(imported.report.iter().any(|diag| diag.code == CN_IMPORT_SERVER_SET.code));
//! # Ok::<(), calico_render::import::ImportError>(())
//! ```

mod installation;
mod manifest;
mod mode;
mod objects;
mod read;
mod verify;

use std::fmt;

use calico_spec::cluster_network::{self, ClusterNetwork, ClusterNetworkSpec, Metadata};
use calico_spec::diag::{Diagnostic, Location, Severity};
use calico_spec::release::Release;
use calico_spec::rules::catalogue::{self as c, Rule};
use calico_spec::source::{Limits, SpanMap};
use serde::Serialize;
use serde_json::Value;

/// One input text, how messages name it and what it holds (a YAML or JSON stream of live
/// objects): the one shape every text input has, `validate`'s too.
pub use calico_spec::rules::SourceText;

/// The former name of [`SourceText`] here.
#[deprecated(note = "the same shape as `calico_spec::rules::SourceText`; use that")]
pub type LiveText<'a> = SourceText<'a>;

/// What `import` needs besides the objects.
#[derive(Debug, Clone)]
pub struct Options {
    /// The Calico release the cluster runs: its operator's defaults are the ones dropped, and
    /// it becomes `spec.calicoVersion`.
    pub release: &'static Release,
    /// `metadata.name` of the ClusterNetwork (messages only); none when `None`.
    pub name: Option<String>,
    /// The API mode the cluster runs, when the caller knows it (`--api-mode`); otherwise it is
    /// taken from the witnesses among the objects (CRDs, the APIService
    /// `v3.projectcalico.org`, ...), or left unset and said (`CN0414`).
    pub api_mode: Option<calico_spec::cluster_network::ApiMode>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            release: Release::default_target(),
            name: None,
            api_mode: None,
        }
    }
}

/// A ClusterNetwork that renders the live objects, and what import did to get it.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The description.
    pub cluster_network: ClusterNetwork,
    /// The description as YAML, the text that was checked (what `import` prints).
    pub text: String,
    /// What was dropped, kept outside the vocabulary or will be added, as warnings
    /// (`CN04xx`), and the lints of the ClusterNetwork itself; in input order.
    pub report: Vec<Diagnostic>,
}

/// Why no ClusterNetwork was written.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ImportError {
    /// An input is not YAML at all, or beyond the size budgets.
    NotYaml {
        /// The input as messages name it.
        file: String,
        /// What the reader said, with its position (`3:1: not valid YAML: ...`
        /// or `... input refused: more than ...`).
        message: String,
    },
    /// The objects cannot be imported: every problem (errors), with the warnings found on the
    /// way.
    Invalid {
        /// The diagnostics, errors first.
        diagnostics: Vec<Diagnostic>,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::NotYaml { file, message } => write!(f, "{file}: {message}"),
            ImportError::Invalid { diagnostics } => {
                let errors: Vec<String> = diagnostics
                    .iter()
                    .filter(|diag| diag.severity == Severity::Error)
                    .map(ToString::to_string)
                    .collect();
                write!(
                    f,
                    "the live objects cannot be imported: {}",
                    errors.join("; ")
                )
            }
        }
    }
}

impl std::error::Error for ImportError {}

/// Import the live objects of several texts (each a YAML or JSON stream).
///
/// # Errors
/// [`ImportError`] when a text is not YAML, or the objects hold something no ClusterNetwork
/// renders.
pub fn import_texts(inputs: &[SourceText<'_>], options: &Options) -> Result<Imported, ImportError> {
    let mut sources = Vec::new();
    for input in inputs {
        let documents =
            calico_spec::source::parse_stream(input.text, &Limits::MANIFESTS).map_err(|err| {
                ImportError::NotYaml {
                    file: input.name.to_owned(),
                    message: err.to_string(),
                }
            })?;
        for document in documents {
            let mut problems = document.problems.clone();
            for problem in &mut problems {
                if let Some(location) = problem.location.as_mut() {
                    location.file = input.name.to_owned();
                }
            }
            if !problems.is_empty() {
                return Err(ImportError::Invalid {
                    diagnostics: problems,
                });
            }
            if document.is_empty() {
                continue;
            }
            sources.push(read::Source {
                file: input.name.to_owned(),
                document: document.index,
                value: document.value,
                spans: Some(std::rc::Rc::new(document.spans)),
            });
        }
    }
    run(sources, options)
}

/// Import live objects already read (as `kube::Api::get` or `kubectl get -o json` gives
/// them); `List`s are looked into.
///
/// # Errors
/// [`ImportError::Invalid`] when the objects hold something no ClusterNetwork renders.
pub fn import_values(objects: &[Value], options: &Options) -> Result<Imported, ImportError> {
    let sources = objects
        .iter()
        .enumerate()
        .map(|(document, value)| read::Source {
            file: "<objects>".to_owned(),
            document,
            value: value.clone(),
            spans: None,
        })
        .collect();
    run(sources, options)
}

fn run(sources: Vec<read::Source>, options: &Options) -> Result<Imported, ImportError> {
    let mut report = Report::default();
    // A manifest install (`calico.yaml`) becomes the objects of its migration to the operator.
    let sources = manifest::convert(sources, options.release, &mut report);
    if report.has_errors() {
        return Err(report.into_error());
    }
    // Documents that say which API mode the cluster runs are context, not imported.
    let (sources, witnesses) = mode::take(sources);
    let lives = read::collect(sources, &mut report);
    let mut cluster_network = ClusterNetwork {
        metadata: Metadata {
            name: options.name.clone(),
            ..Metadata::default()
        },
        spec: ClusterNetworkSpec {
            calico_version: options.release.calico.to_owned(),
            ..ClusterNetworkSpec::default()
        },
        ..ClusterNetwork::default()
    };
    let mut comparable = Vec::new();
    let cluster_pools: Vec<&read::Live> =
        lives.iter().filter(|live| live.kind == "IPPool").collect();
    match lives.iter().find(|live| live.kind == "Installation") {
        Some(live) => {
            if let Some(value) = installation::import(
                live,
                options.release,
                &cluster_pools,
                &mut cluster_network,
                &mut report,
            ) {
                comparable.push((live, value));
            }
        }
        None if report.has_errors() => {}
        None => report.push(
            &c::CN_IMPORT_OBJECT,
            None,
            "",
            "the live objects hold no Installation `default`; a ClusterNetwork always renders one"
                .to_owned(),
            "add it: `kubectl get installation default -o yaml`",
        ),
    }
    if !report.has_errors() {
        for (live, value) in objects::import(&lives, &mut cluster_network, &mut report) {
            comparable.push((live, value));
        }
    }
    if report.has_errors() {
        return Err(report.into_error());
    }
    mode::decide(
        &witnesses,
        options.api_mode,
        options.release,
        &mut cluster_network,
        &mut report,
    );
    let text = match to_text(&cluster_network) {
        Ok(text) => text,
        Err(message) => {
            report.push(
                &c::CN_IMPORT_INEXPRESSIBLE,
                None,
                "",
                message,
                "please report this",
            );
            return Err(report.into_error());
        }
    };
    verify::verify(&cluster_network, &text, &comparable, &mut report);
    if report.has_errors() {
        return Err(report.into_error());
    }
    let mut report = report.diagnostics;
    calico_spec::diag::sort_diagnostics(&mut report);
    Ok(Imported {
        cluster_network,
        text,
        report,
    })
}

/// The first lines of every imported ClusterNetwork.
const HEADER: &str = "\
# Written by `calico-render import` from live objects; `calico-render render` gives them back.
# Values the vocabulary cannot say are kept in spec.overrides and spec.extraObjects.
";

/// The ClusterNetwork as YAML: the header, then the fields that are not at their defaults, in
/// the order of the ClusterNetwork schema.
fn to_text(cluster_network: &ClusterNetwork) -> Result<String, String> {
    let document = Document {
        api_version: cluster_network::API_VERSION,
        kind: cluster_network::KIND,
        metadata: &cluster_network.metadata,
        spec: SpecOut(&cluster_network.spec),
    };
    let yaml = crate::yaml::to_yaml(&document).map_err(|err| err.to_string())?;
    Ok(format!("{HEADER}{yaml}"))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    api_version: &'static str,
    kind: &'static str,
    #[serde(skip_serializing_if = "is_empty_metadata")]
    metadata: &'a Metadata,
    spec: SpecOut<'a>,
}

fn is_empty_metadata(metadata: &&Metadata) -> bool {
    **metadata == Metadata::default()
}

/// The spec without the fields left at their defaults (the ClusterNetwork's own `Serialize`
/// writes the top-level switches always).
struct SpecOut<'a>(&'a ClusterNetworkSpec);

impl Serialize for SpecOut<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let spec = self.0;
        let default = ClusterNetworkSpec::default();
        let mut out = serializer.serialize_map(None)?;
        if spec.calico_version != default.calico_version {
            out.serialize_entry("calicoVersion", &spec.calico_version)?;
        }
        if spec.kubernetes_provider != default.kubernetes_provider {
            out.serialize_entry("kubernetesProvider", &spec.kubernetes_provider)?;
        }
        if let Some(endpoint) = &spec.api_endpoint {
            out.serialize_entry("apiEndpoint", endpoint)?;
        }
        if spec.dataplane != default.dataplane {
            out.serialize_entry("dataplane", &spec.dataplane)?;
        }
        if spec.manage_kube_proxy {
            out.serialize_entry("manageKubeProxy", &true)?;
        }
        if spec.bpf_network_bootstrap {
            out.serialize_entry("bpfNetworkBootstrap", &true)?;
        }
        if spec.bgp != default.bgp {
            out.serialize_entry("bgp", &spec.bgp)?;
        }
        out.serialize_entry("podPools", &spec.pod_pools)?;
        if !spec.load_balancer_pools.is_empty() {
            out.serialize_entry("loadBalancerPools", &spec.load_balancer_pools)?;
        }
        if spec.node_address_autodetection != default.node_address_autodetection {
            out.serialize_entry("nodeAddressAutodetection", &spec.node_address_autodetection)?;
        }
        if spec.network != default.network {
            out.serialize_entry("network", &spec.network)?;
        }
        if !spec.calico_api_server {
            out.serialize_entry("calicoAPIServer", &false)?;
        }
        if spec.goldmane {
            out.serialize_entry("goldmane", &true)?;
        }
        if spec.whisker {
            out.serialize_entry("whisker", &true)?;
        }
        if let Some(mode) = spec.api_mode {
            out.serialize_entry("apiMode", &mode)?;
        }
        if let Some(mtu) = spec.mtu {
            out.serialize_entry("mtu", &mtu)?;
        }
        if !spec.felix.is_empty() {
            out.serialize_entry("felix", &spec.felix)?;
        }
        if !spec.overrides.is_empty() {
            out.serialize_entry("overrides", &spec.overrides)?;
        }
        if !spec.extra_objects.is_empty() {
            out.serialize_entry("extraObjects", &spec.extra_objects)?;
        }
        out.end()
    }
}

/// Where a live object came from, for the positions of its diagnostics.
#[derive(Debug, Clone)]
pub(crate) struct At {
    file: String,
    document: usize,
    /// `items[3].` for an item of a `List`, empty otherwise.
    prefix: String,
    spans: Option<std::rc::Rc<SpanMap>>,
}

impl At {
    /// The field path in the document, and its position.
    fn locate(&self, path: &str) -> (String, Location) {
        let full = if path.is_empty() {
            self.prefix.trim_end_matches('.').to_owned()
        } else {
            format!("{}{path}", self.prefix)
        };
        // The nearest enclosing field the text has (a dropped or defaulted value may not be
        // in it).
        let mut probe = full.as_str();
        let position = loop {
            let found = self.spans.as_ref().and_then(|spans| spans.locate(probe));
            match (found, calico_spec::source::parent_path(probe)) {
                (Some(pos), _) => break Some(pos),
                (None, Some(parent)) => probe = parent,
                (None, None) => break None,
            }
        };
        let location = Location {
            file: self.file.clone(),
            document: self.document,
            line: position.map(|pos| pos.line),
            column: position.map(|pos| pos.column),
        };
        (full, location)
    }
}

/// The diagnostics of one import, in the order they were found.
#[derive(Debug, Default)]
pub(crate) struct Report {
    diagnostics: Vec<Diagnostic>,
}

impl Report {
    fn push(&mut self, rule: &Rule, at: Option<&At>, path: &str, message: String, hint: &str) {
        let (path, location) = match at {
            Some(at) => {
                let (path, location) = at.locate(path);
                (path, Some(location))
            }
            None => (path.to_owned(), None),
        };
        self.diagnostics.push(Diagnostic {
            severity: rule.severity,
            code: rule.code,
            path,
            message,
            hint: (!hint.is_empty()).then(|| hint.to_owned()),
            location,
        });
    }

    fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|diag| diag.severity == Severity::Error)
    }

    fn into_error(mut self) -> ImportError {
        // Errors first, each group in input order.
        calico_spec::diag::sort_diagnostics(&mut self.diagnostics);
        self.diagnostics.sort_by_key(|diag| diag.severity);
        ImportError::Invalid {
            diagnostics: self.diagnostics,
        }
    }
}

/// `` `a`, `b`, `c` `` for a report line.
fn listed(paths: &[String]) -> String {
    paths
        .iter()
        .map(|path| format!("`{path}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The values of `live` that `stated` lacks or holds otherwise, as a partial object (maps
/// recurse; the Installation's pools match by `name` and keep it; other lists are whole).
/// `conflicts` gets the paths where both hold a value and they differ, which no override can
/// change.
pub(crate) fn residual(
    path: &str,
    live: &serde_json::Map<String, Value>,
    stated: &serde_json::Map<String, Value>,
    conflicts: &mut Vec<String>,
) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for (key, live_value) in live {
        let child = calico_spec::source::join_key(path, key);
        match (stated.get(key), live_value) {
            (None, _) => {
                out.insert(key.clone(), live_value.clone());
            }
            (Some(stated_value), _) if stated_value == live_value => {}
            (Some(Value::Object(stated_map)), Value::Object(live_map)) => {
                let sub = residual(&child, live_map, stated_map, conflicts);
                if !sub.is_empty() {
                    out.insert(key.clone(), Value::Object(sub));
                }
            }
            (Some(Value::Array(stated_items)), Value::Array(live_items))
                if child == installation::POOLS_PATH =>
            {
                let mut items = Vec::new();
                for live_item in live_items {
                    let name = live_item.get("name");
                    let stated_item = stated_items
                        .iter()
                        .find(|item| name.is_some() && item.get("name") == name);
                    match (live_item, stated_item, name) {
                        (
                            Value::Object(live_pool),
                            Some(Value::Object(stated_pool)),
                            Some(name),
                        ) => {
                            let item_path =
                                format!("{child}[name={}]", name.as_str().unwrap_or(""));
                            let sub = residual(&item_path, live_pool, stated_pool, conflicts);
                            if !sub.is_empty() {
                                let mut item = serde_json::Map::new();
                                item.insert("name".into(), name.clone());
                                item.extend(sub);
                                items.push(Value::Object(item));
                            }
                        }
                        _ => conflicts.push(child.clone()),
                    }
                }
                if !items.is_empty() {
                    out.insert(key.clone(), Value::Array(items));
                }
            }
            (Some(_), _) => conflicts.push(child),
        }
    }
    out
}

/// The labels and annotations of a live object, as an override's metadata.
pub(crate) fn metadata_override(
    object: &Value,
) -> Option<calico_spec::cluster_network::OverrideMetadata> {
    let take = |key: &str| {
        object
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_object)
            .filter(|map| !map.is_empty())
            .cloned()
    };
    let metadata = calico_spec::cluster_network::OverrideMetadata {
        labels: take("labels"),
        annotations: take("annotations"),
    };
    (metadata.labels.is_some() || metadata.annotations.is_some()).then_some(metadata)
}

/// The dotted paths of every value of a partial object (`spec.` prefixed), for reports.
pub(crate) fn value_paths(prefix: &str, value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                value_paths(&calico_spec::source::join_key(prefix, key), child, out);
            }
        }
        Value::Array(items) if prefix.ends_with(installation::POOLS_PATH) => {
            for item in items {
                let name = item.get("name").and_then(Value::as_str).unwrap_or("");
                if let Value::Object(pool) = item {
                    for (key, child) in pool.iter().filter(|(key, _)| *key != "name") {
                        value_paths(&format!("{prefix}[name={name}].{key}"), child, out);
                    }
                }
            }
        }
        _ => out.push(prefix.to_owned()),
    }
}
