//! The entry point: dispatch each document by apiVersion and kind, run the schema pass and the
//! kind's rules, then the checks across documents; attach source locations.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::catalogue as c;
use super::cross::{self, Facts, InstallationFact, PoolFact, PoolOrigin};
use super::ops::{self, Doc};
use super::{Context, Sink, bgpconfig, bgppeer, endpoint, felix, installation, ippool, kubeadm};
use crate::cluster_network;
use crate::defaults::{DefaultsContext, apply_operator_defaults};
use crate::diag::{Diagnostic, Location};
use crate::generated::operator_tigera_io::v1 as operator;
use crate::generated::projectcalico_org::v3;
use crate::objects::Object;
use crate::source::{Document, Limits, Pos, Scalars, SourceError, SpanMap, parse_stream};
use crate::typed::{self, Problem, ProblemKind};
use crate::vocab;

/// One document to validate, with the file it came from (`-` for standard input).
#[derive(Debug, Clone, Copy)]
pub struct InputDocument<'a> {
    /// The file name as the user gave it.
    pub file: &'a str,
    /// The parsed document.
    pub document: &'a Document,
}

/// A document that validation does not know and therefore did not check; serialized as
/// `validate -o json` prints it (`{"file", "document", "apiVersion", "kind"}`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Skipped {
    /// The file name as the user gave it.
    pub file: String,
    /// Zero-based index of the document in its file.
    pub document: usize,
    /// The document's apiVersion, when it has one.
    #[serde(rename = "apiVersion", skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// The document's kind, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// Everything validation found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidationOutcome {
    /// Every problem, sorted by file, document, line, column, code.
    pub diagnostics: Vec<Diagnostic>,
    /// Documents of kinds validation does not check, in input order.
    pub skipped: Vec<Skipped>,
    /// How many documents were checked (not empty, not skipped), ClusterNetworks included.
    pub checked: usize,
    /// Operational checks that had objects to judge but not the context document they need,
    /// sorted by code.
    pub unchecked: Vec<ops::Unchecked>,
}

/// The kinds validation knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    IpPool {
        crd_group: bool,
    },
    BgpPeer {
        crd_group: bool,
    },
    BgpConfiguration {
        crd_group: bool,
    },
    FelixConfiguration {
        crd_group: bool,
    },
    Installation,
    ApiServer,
    /// An operator.tigera.io/v1 Goldmane (v3.30 on): its type and CRD schema only.
    Goldmane,
    /// An operator.tigera.io/v1 Whisker (v3.30 on): its type and CRD schema only.
    Whisker,
    /// An operator.tigera.io/v1 ImageSet, judged against the target release's images.
    ImageSet,
    EndpointConfigMap,
    KubeadmConfig,
    /// Context for the operational checks: a Node.
    Node,
    /// Context: DaemonSet `kube-system/kube-proxy`.
    KubeProxyDaemonSet,
    /// Context: ConfigMap `kube-system/kube-proxy`.
    KubeProxyConfigMap,
    /// Context: a MetalLB BGPPeer (`metallb.io`), whose router Calico may peer with too.
    MetalLbPeer,
}

/// The root fields every check reads, found in one walk over the document's root mapping
/// (the same answers as [`Document::api_version`], [`Document::kind`] and [`Document::name`],
/// without a tree search per field for every document of a large stream).
#[derive(Debug, Clone, Copy, Default)]
struct Root<'a> {
    api_version: Option<&'a str>,
    kind: Option<&'a str>,
    metadata: Option<&'a Value>,
    spec: Option<&'a Value>,
}

impl<'a> Root<'a> {
    fn of(value: &'a Value) -> Root<'a> {
        let mut root = Root::default();
        for (key, field) in value.as_object().into_iter().flatten() {
            match key.as_str() {
                "apiVersion" => root.api_version = field.as_str(),
                "kind" => root.kind = field.as_str(),
                "metadata" => root.metadata = Some(field),
                "spec" => root.spec = Some(field),
                _ => {}
            }
        }
        root
    }

    /// `metadata.name`, when it is a string.
    fn name(&self) -> Option<&'a str> {
        self.metadata
            .and_then(|meta| meta.get("name"))
            .and_then(Value::as_str)
    }

    /// `metadata.namespace`, when it is a string.
    fn namespace(&self) -> Option<&'a str> {
        self.metadata
            .and_then(|meta| meta.get("namespace"))
            .and_then(Value::as_str)
    }
}

fn classify(root: &Root<'_>) -> Option<Known> {
    let api_version = root.api_version?;
    let kind = root.kind?;
    let crd_group = match api_version {
        "projectcalico.org/v3" => Some(false),
        "crd.projectcalico.org/v1" => Some(true),
        _ => None,
    };
    match (api_version, kind, crd_group) {
        (_, "IPPool", Some(crd_group)) => Some(Known::IpPool { crd_group }),
        (_, "BGPPeer", Some(crd_group)) => Some(Known::BgpPeer { crd_group }),
        (_, "BGPConfiguration", Some(crd_group)) => Some(Known::BgpConfiguration { crd_group }),
        (_, "FelixConfiguration", Some(crd_group)) => Some(Known::FelixConfiguration { crd_group }),
        ("operator.tigera.io/v1", "Installation", _) => Some(Known::Installation),
        ("operator.tigera.io/v1", "APIServer", _) => Some(Known::ApiServer),
        ("operator.tigera.io/v1", "Goldmane", _) => Some(Known::Goldmane),
        ("operator.tigera.io/v1", "Whisker", _) => Some(Known::Whisker),
        ("operator.tigera.io/v1", "ImageSet", _) => Some(Known::ImageSet),
        ("v1", "ConfigMap", _) if root.name() == Some(endpoint::ENDPOINT_NAME) => {
            Some(Known::EndpointConfigMap)
        }
        ("v1", "ConfigMap", _) if kubeadm::is_kubeadm_config(root.namespace(), root.name()) => {
            Some(Known::KubeadmConfig)
        }
        ("v1", "ConfigMap", _) if ops::is_kube_proxy(root.namespace(), root.name()) => {
            Some(Known::KubeProxyConfigMap)
        }
        ("apps/v1", "DaemonSet", _) if ops::is_kube_proxy(root.namespace(), root.name()) => {
            Some(Known::KubeProxyDaemonSet)
        }
        ("v1", "Node", _) => Some(Known::Node),
        ("metallb.io/v1beta1" | "metallb.io/v1beta2", "BGPPeer", _) => Some(Known::MetalLbPeer),
        _ => None,
    }
}

/// One input text and the name the user gave it (`-` for standard input).
#[derive(Debug, Clone, Copy)]
pub struct SourceText<'a> {
    /// The file name as the user gave it.
    pub name: &'a str,
    /// The file's content.
    pub text: &'a str,
}

/// A text that could not be read as YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{source}")]
pub struct TextError {
    /// The file name as the user gave it.
    pub file: String,
    /// What went wrong.
    pub source: SourceError,
}

/// Parse and validate several texts together: upstream manifests (any number of documents
/// per file) and ClusterNetwork files. A ClusterNetwork goes through [`cluster_network::load`],
/// as in `render`: checked by its own parser, compiled, and its compiled objects validated with
/// the rule catalogue under the context the ClusterNetwork declares; the diagnostics are
/// reported at the ClusterNetwork field they came from. `ctx` applies to the manifests; with
/// `ctx.release` set, the manifests are also judged as that release judges them
/// ([`crate::release::apply_to_outcome`]: its schema where the generated types are a newer
/// release's, its operator's verdicts), which [`validate`] leaves to its caller.
///
/// # Errors
/// [`TextError`] for the first text that is not YAML or exceeds `limits`.
pub fn validate_texts(
    texts: &[SourceText<'_>],
    ctx: &Context,
    limits: &Limits,
) -> Result<ValidationOutcome, TextError> {
    let mut parsed: Vec<(&str, Vec<Document>)> = Vec::new();
    for source in texts {
        let documents = parse_stream(source.text, limits).map_err(|source_err| TextError {
            file: source.name.to_owned(),
            source: source_err,
        })?;
        parsed.push((source.name, expand_lists(documents)));
    }
    let mut extra: Vec<Diagnostic> = Vec::new();
    let mut checked_cluster_networks = 0;
    let mut inputs: Vec<InputDocument<'_>> = Vec::new();
    for ((name, documents), source) in parsed.iter().zip(texts) {
        let n_content = documents.iter().filter(|doc| !doc.is_empty()).count();
        for document in documents {
            let is_cluster_network = document.api_version() == Some(cluster_network::API_VERSION)
                && document.kind() == Some(cluster_network::KIND);
            if !is_cluster_network {
                inputs.push(InputDocument {
                    file: name,
                    document,
                });
                continue;
            }
            if n_content > 1 {
                let mut sink = Sink::default();
                sink.report(
                    &c::NOT_AN_OBJECT,
                    "",
                    "a ClusterNetwork must be the only document in its file",
                    Some("move the ClusterNetwork into a file of its own".into()),
                );
                attach(
                    &mut extra,
                    sink,
                    &InputDocument {
                        file: name,
                        document,
                    },
                );
                continue;
            }
            extra.extend(validate_cluster_network(name, source.text));
            checked_cluster_networks += 1;
        }
    }
    let mut outcome = validate(&inputs, ctx);
    // The target release's own verdicts (its schema where the generated types are a newer
    // release's, its operator's), on the documents read once above.
    if let Some(release) = ctx.release {
        crate::release::apply_to_outcome(release, &inputs, &mut outcome);
    }
    outcome.checked += checked_cluster_networks;
    outcome.diagnostics.extend(extra);
    crate::diag::sort_diagnostics(&mut outcome.diagnostics);
    Ok(outcome)
}

/// The items of a list object, `kind: List` (what `kubectl get -o yaml` prints) or a typed
/// `<Kind>List` (`IPPoolList`, `InstallationList`: what calicoctl and the API server print),
/// each as an object of its own: an item of a typed list without `apiVersion` and `kind` (the
/// API server's own list responses leave them out) takes the list's apiVersion and its kind
/// without `List`. `None` for a value that is not a list with an `items` sequence.
pub fn list_items(value: &Value) -> Option<Vec<Cow<'_, Value>>> {
    let kind = value.get("kind").and_then(Value::as_str)?;
    let items = value.get("items")?.as_array()?;
    let item_kind = kind.strip_suffix("List")?;
    let api_version = value.get("apiVersion").and_then(Value::as_str);
    Some(
        items
            .iter()
            .map(|item| match (item, api_version) {
                (Value::Object(map), Some(api_version))
                    if !item_kind.is_empty()
                        && !map.contains_key("apiVersion")
                        && !map.contains_key("kind") =>
                {
                    let mut map = map.clone();
                    map.insert("apiVersion".into(), Value::String(api_version.to_owned()));
                    map.insert("kind".into(), Value::String(item_kind.to_owned()));
                    Cow::Owned(Value::Object(map))
                }
                _ => Cow::Borrowed(item),
            })
            .collect(),
    )
}

/// Replace each list document (see [`list_items`]) with its items, in order: each item is a
/// document of its own with the list's index and spans scoped to the item, so a diagnostic
/// names `items[3].spec.cidr` at the item's line. A list without items stays a document (and
/// is reported as skipped).
pub fn expand_lists(documents: Vec<Document>) -> Vec<Document> {
    let mut out = Vec::with_capacity(documents.len());
    for document in documents {
        let items: Vec<Value> = match list_items(&document.value) {
            Some(items) if !items.is_empty() => items.into_iter().map(Cow::into_owned).collect(),
            _ => {
                out.push(document);
                continue;
            }
        };
        let n_items = items.len();
        let mut problems = document.problems.clone();
        // kubectl refuses a list without `apiVersion` before it looks at the items (a
        // calicoctl dump with its first line cut off, say), so the list itself is reported as
        // well as its items checked.
        if document
            .value
            .get("apiVersion")
            .and_then(Value::as_str)
            .is_none()
        {
            let mut sink = Sink::default();
            sink.report(
                &c::NOT_AN_OBJECT,
                "",
                "the list has no string `apiVersion`: kubectl refuses it before reading its items",
                Some("add `apiVersion: v1` (kind `List`) or the items' group and version (a typed `<Kind>List`) as the list's first field".into()),
            );
            problems.extend(sink.diagnostics);
        }
        for (idx, value) in items.into_iter().enumerate() {
            let path = format!("items[{idx}]");
            let spans = document.spans.scoped(&path);
            let (mine, rest): (Vec<Diagnostic>, Vec<Diagnostic>) =
                problems.into_iter().partition(|problem| {
                    problem.path == path
                        || problem.path.starts_with(&format!("{path}."))
                        || problem.path.starts_with(&format!("{path}["))
                });
            problems = rest;
            let mine = mine
                .into_iter()
                .map(|mut problem| {
                    problem.path = problem
                        .path
                        .strip_prefix(&path)
                        .map(|p| p.strip_prefix('.').unwrap_or(p).to_owned())
                        .unwrap_or_default();
                    problem
                })
                .collect();
            out.push(Document {
                index: document.index,
                start: spans.locate_value("").unwrap_or(document.start),
                value,
                spans,
                problems: mine,
            });
        }
        // What lies outside the items (a repeated key of the list itself) is reported on the
        // first item.
        if let Some(first) = out.iter_mut().rev().nth(n_items.saturating_sub(1)) {
            first
                .problems
                .extend(problems.into_iter().map(|mut problem| {
                    problem.path = String::new();
                    problem
                }));
        }
    }
    out
}

/// Check a ClusterNetwork exactly as `render` does, through [`cluster_network::load`]: its own
/// parser and checks, then the rule catalogue over the compiled objects with the context the
/// ClusterNetwork declares (`network.avoid`, `serviceCIDRs`, `nodeSubnets`, the provider), not
/// the context assumed for bare manifests. One code path, so `validate` and `render` cannot
/// disagree about a ClusterNetwork.
fn validate_cluster_network(file: &str, text: &str) -> Vec<Diagnostic> {
    match cluster_network::load(file, text) {
        Ok(loaded) => loaded.warnings,
        Err(cluster_network::ParseError::Invalid { diagnostics }) => diagnostics,
        // The stream was read as manifests already, so this is a ClusterNetwork over its own
        // reading budgets.
        Err(cluster_network::ParseError::NotYaml {
            file,
            line,
            column,
            message,
        }) => {
            let mut sink = Sink::default();
            sink.report(
                &c::NOT_AN_OBJECT,
                "",
                format!("the ClusterNetwork cannot be read: {message}"),
                None,
            );
            let mut diagnostics = sink.diagnostics;
            for diag in &mut diagnostics {
                diag.location = Some(Location {
                    file: file.clone(),
                    document: 0,
                    line: Some(line),
                    column: Some(column),
                });
            }
            diagnostics
        }
    }
}

/// Validate objects that were built in memory rather than read from text (compiled or merged
/// objects): the same rules as [`validate`], without positions.
///
/// Each diagnostic's `location.document` is the index of its object in `values`, so callers
/// can say which object it is about; line and column are absent.
pub fn validate_values(values: &[Value], ctx: &Context) -> Vec<Diagnostic> {
    let documents = in_memory_documents(values.to_vec());
    let inputs = in_memory_inputs(&documents);
    run(&inputs, ctx, Typing::Check).diagnostics
}

/// Validate the objects `ClusterNetwork` compilation built: every rule of [`validate_values`]
/// except the schema pass, whose verdict is already known.
///
/// The objects were built from the generated types, so they type by construction, and the
/// Installation already carries the operator's defaults (`compile` applies them, and applying
/// them again changes nothing: a test holds that for every example). Typing each object again
/// only to learn that would cost more than all the rules together. Diagnostics are located as
/// in [`validate_values`].
pub fn validate_compiled(objects: &[Object], ctx: &Context) -> Vec<Diagnostic> {
    let documents = in_memory_documents(objects.iter().map(Object::to_value).collect());
    let inputs = in_memory_inputs(&documents);
    run(&inputs, ctx, Typing::Typed).diagnostics
}

fn in_memory_documents(values: Vec<Value>) -> Vec<Document> {
    values
        .into_iter()
        .enumerate()
        .map(|(value_idx, value)| Document {
            index: value_idx,
            value,
            spans: SpanMap::default(),
            start: Pos { line: 1, column: 1 },
            problems: Vec::new(),
        })
        .collect()
}

fn in_memory_inputs(documents: &[Document]) -> Vec<InputDocument<'_>> {
    documents
        .iter()
        .map(|document| InputDocument { file: "", document })
        .collect()
}

/// Whether the documents still have to be typed against the generated types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Typing {
    /// Read from text or merged from it: run the schema pass and apply the operator's defaults.
    Check,
    /// Built from the generated types with the operator's defaults applied.
    Typed,
}

/// Validate documents against the rule catalogue and each other.
pub fn validate(inputs: &[InputDocument<'_>], ctx: &Context) -> ValidationOutcome {
    run(inputs, ctx, Typing::Check)
}

/// The context with what a `kube-system/kubeadm-config` ConfigMap among the inputs says (the
/// first one): its pod subnets, and its Service subnets in place of the assumed ones.
fn with_context_documents(inputs: &[InputDocument<'_>], ctx: &Context) -> Option<Context> {
    let facts = inputs.iter().find_map(|input| {
        let root = Root::of(&input.document.value);
        (classify(&root) == Some(Known::KubeadmConfig))
            .then(|| kubeadm::read(&input.document.value))
    })?;
    let mut ctx = ctx.clone();
    if let Ok(subnets) = facts.pod_subnets {
        ctx.pod_cidrs = Some(subnets);
    }
    if !facts.service_subnets.is_empty() {
        ctx.service_cidrs = facts.service_subnets;
    }
    Some(ctx)
}

fn run(inputs: &[InputDocument<'_>], ctx: &Context, typing: Typing) -> ValidationOutcome {
    let with_documents = with_context_documents(inputs, ctx);
    let ctx = with_documents.as_ref().unwrap_or(ctx);
    let mut outcome = ValidationOutcome::default();
    let mut facts = Facts::with_capacity(inputs.len());
    for (input_idx, input) in inputs.iter().enumerate() {
        let doc = input.document;
        if doc.is_empty() {
            continue;
        }
        let mut sink = Sink::default();
        sink.diagnostics.extend(doc.problems.iter().cloned());
        sink.diagnostics.extend(
            doc.spans
                .tagged()
                .iter()
                .map(|tagged| tagged.diagnostic(&c::YAML_TAG)),
        );
        let root = Root::of(&doc.value);
        if !doc.value.is_object() || root.api_version.is_none() || root.kind.is_none() {
            outcome.checked += 1;
            sink.report(
                &c::NOT_AN_OBJECT,
                "",
                "the document is not a Kubernetes object: it needs string `apiVersion` and `kind` fields",
                patch_body_hint(&doc.value),
            );
        } else if let Some(known) = classify(&root) {
            outcome.checked += 1;
            check_document(
                &mut sink,
                &mut facts,
                ctx,
                typing,
                (input_idx, doc),
                &root,
                known,
            );
            if let Some(release) = ctx.release
                && let (Some(api_version), Some(kind)) = (root.api_version, root.kind)
                && let Some(kind) = crate::release::indexed_kind_of(api_version, kind)
            {
                let top = crate::release::Top {
                    object: &doc.value,
                    spec: root.spec,
                };
                crate::release::check_crd_schema(release, kind, top, &mut sink.diagnostics);
            }
        } else {
            outcome.skipped.push(Skipped {
                file: input.file.to_owned(),
                document: doc.index,
                api_version: root.api_version.map(str::to_owned),
                kind: root.kind.map(str::to_owned),
            });
        }
        attach(&mut outcome.diagnostics, sink, input);
    }
    for (input_idx, sink) in cross::check(&facts, ctx) {
        #[expect(
            clippy::indexing_slicing,
            reason = "the facts' input indices are positions in `inputs`, which they were read from"
        )]
        attach(&mut outcome.diagnostics, sink, &inputs[input_idx]);
    }
    let findings = ops::check(&facts.ops, ctx);
    for (input_idx, sink) in findings.sinks {
        #[expect(
            clippy::indexing_slicing,
            reason = "the facts' input indices are positions in `inputs`, which they were read from"
        )]
        attach(&mut outcome.diagnostics, sink, &inputs[input_idx]);
    }
    outcome.unchecked = findings.unchecked.into_iter().collect();

    crate::diag::sort_diagnostics(&mut outcome.diagnostics);
    outcome
}

/// Advice for a document that is a patch body rather than an object: an RFC 6902 JSON patch
/// (a sequence of `op`/`path` operations) or a merge patch (a mapping with `spec` or `metadata`
/// but no `apiVersion` and `kind`, as `kubectl patch --type=merge` takes).
fn patch_body_hint(value: &Value) -> Option<String> {
    let is_operation = |item: &Value| item.get("op").is_some() && item.get("path").is_some();
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(is_operation) => Some(
            "this is a JSON patch (RFC 6902, `kubectl patch --type=json`), a change, not an \
             object: validate the object it makes (the ClusterNetwork, or the patched object), \
             and let `calico-render patch` write the patch"
                .to_owned(),
        ),
        Value::Object(map)
            if !map.contains_key("apiVersion")
                && !map.contains_key("kind")
                && (map.contains_key("spec") || map.contains_key("metadata")) =>
        {
            Some(
                "this looks like a merge patch (`kubectl patch --type=merge`), a change, not an \
                 object: validate the object it makes. A merge patch replaces every list whole, \
                 so one that sets `spec.calicoNetwork.ipPools` replaces all pools with those it \
                 lists, dropping the others and the fields it leaves out; `calico-render patch` \
                 writes a JSON patch that edits pools by name"
                    .to_owned(),
            )
        }
        _ => None,
    }
}

/// Give each diagnostic of `sink` the location of its path in `input`.
fn attach(out: &mut Vec<Diagnostic>, sink: Sink, input: &InputDocument<'_>) {
    for mut diagnostic in sink.diagnostics {
        let pos = if diagnostic.code == c::UNKNOWN_FIELD.code {
            input.document.spans.locate_key(&diagnostic.path)
        } else {
            input.document.spans.locate(&diagnostic.path)
        }
        .unwrap_or(input.document.start);
        diagnostic.path = input.document.spans.full_path(&diagnostic.path);
        diagnostic.location = Some(Location {
            file: input.file.to_owned(),
            document: input.document.index,
            line: Some(pos.line),
            column: Some(pos.column),
        });
        out.push(diagnostic);
    }
}

fn check_document<'a>(
    sink: &mut Sink,
    facts: &mut Facts<'a>,
    ctx: &Context,
    typing: Typing,
    (input_idx, doc): (usize, &'a Document),
    root: &Root<'a>,
    known: Known,
) {
    let value = &doc.value;
    let check_types = typing == Typing::Check;
    let written_name = root.name();
    let name: &'a str = written_name.unwrap_or_default();
    let this = Doc {
        input_idx,
        name,
        value,
    };
    match known {
        Known::IpPool { crd_group } => {
            lint_crd_group(sink, crd_group, "IPPool");
            check_name(sink, written_name);
            if check_types {
                schema_check::<v3::IPPool>(sink, &as_v3(value, crd_group));
            }
            // The pool's own check parsed the CIDR and read the uses; the cross checks reuse
            // them rather than parsing again.
            let summary = ippool::check(sink, root.spec);
            if let Some(net) = summary.net {
                facts.pools.push(PoolFact {
                    input_idx,
                    path: Cow::Borrowed("spec.cidr"),
                    net,
                    name: Cow::Borrowed(name),
                    origin: PoolOrigin::IpPool,
                    workload: summary.uses.workload,
                    disable_bgp_export: summary.disable_bgp_export,
                });
            }
            facts.ops.ip_pools.push(this);
            facts.add_name(input_idx, "IPPool", name);
        }
        Known::BgpPeer { crd_group } => {
            lint_crd_group(sink, crd_group, "BGPPeer");
            check_name(sink, written_name);
            if check_types {
                schema_check::<v3::BGPPeer>(sink, &as_v3(value, crd_group));
            }
            bgppeer::check(sink, value);
            facts.ops.bgp_peers.push(this);
            facts.add_name(input_idx, "BGPPeer", name);
        }
        Known::BgpConfiguration { crd_group } => {
            lint_crd_group(sink, crd_group, "BGPConfiguration");
            check_name(sink, written_name);
            if check_types {
                schema_check::<v3::BGPConfiguration>(sink, &as_v3(value, crd_group));
            }
            bgpconfig::check(sink, value);
            facts.ops.bgp_configurations.push(this);
            facts.add_name(input_idx, "BGPConfiguration", name);
        }
        Known::FelixConfiguration { crd_group } => {
            lint_crd_group(sink, crd_group, "FelixConfiguration");
            check_name(sink, written_name);
            if check_types {
                schema_check::<v3::FelixConfiguration>(sink, &as_v3(value, crd_group));
            }
            felix::check(sink, value);
            facts.ops.felix_configurations.push(this);
            facts.add_name(input_idx, "FelixConfiguration", name);
        }
        Known::Installation => {
            let defaulted = if check_types {
                Cow::Owned(defaulted_installation(sink, ctx, value))
            } else {
                Cow::Borrowed(value)
            };
            let defaulted_value: &Value = &defaulted;
            installation::check(sink, value, defaulted_value);
            kubeadm::check_pools(sink, ctx, value, defaulted_value);
            facts
                .installations
                .push(InstallationFact::collect(input_idx, value, defaulted_value));
            for pool in cross::installation_pools(input_idx, value, defaulted_value) {
                facts.pools.push(pool);
            }
            facts.ops.installations.push((this, defaulted));
            facts.add_name(input_idx, "Installation", name);
        }
        Known::ApiServer => {
            if check_types {
                schema_check::<operator::APIServer>(sink, value);
            }
            endpoint::check_apiserver(sink, value);
            facts.add_name(input_idx, "APIServer", name);
        }
        Known::Goldmane => {
            if check_types {
                schema_check::<operator::Goldmane>(sink, value);
            }
            facts.add_name(input_idx, "Goldmane", name);
        }
        Known::Whisker => {
            if check_types {
                schema_check::<operator::Whisker>(sink, value);
            }
            facts.add_name(input_idx, "Whisker", name);
        }
        Known::ImageSet => crate::release::images::check_image_set(sink, ctx.release, value),
        Known::EndpointConfigMap => {
            endpoint::check_configmap(sink, ctx, value, &doc.spans);
            facts.endpoints.push(input_idx);
            facts.add_name(input_idx, "ConfigMap", name);
        }
        Known::KubeadmConfig => {
            kubeadm::check_configmap(sink, &kubeadm::read(value));
            facts.add_name(input_idx, "ConfigMap", name);
        }
        // Context documents: read by the operational checks, not checked themselves.
        Known::Node => facts.ops.nodes.push(this),
        Known::KubeProxyDaemonSet => facts.ops.kube_proxy_daemonsets.push(this),
        Known::KubeProxyConfigMap => facts.ops.kube_proxy_configs.push(this),
        Known::MetalLbPeer => facts.ops.metallb_peers.push(this),
    }
}

/// The Installation as the operator will have it once it has written its defaults back, as
/// JSON; the value as written when it does not type (the schema pass has reported why).
///
/// With kubeadm's pod subnets known and no pools written, the operator makes its pools from
/// the subnets before its pool defaults, as `kubeadm::with_platform_pools` says.
fn defaulted_installation(sink: &mut Sink, ctx: &Context, value: &Value) -> Value {
    let provider = ctx
        .provider
        .as_deref()
        .map(operator::InstallationSpecKubernetesProvider::from);
    let defaults = |installation: &operator::Installation| {
        serde_json::to_value(apply_operator_defaults(
            installation,
            &DefaultsContext {
                provider: provider.clone(),
            },
        ))
        .ok()
    };
    let Some(installation) = schema_pass::<operator::Installation>(sink, value) else {
        return value.clone();
    };
    let Some(defaulted) = defaults(&installation) else {
        return value.clone();
    };
    kubeadm::with_platform_pools(ctx, value, &defaulted)
        .and_then(|with_pools| serde_json::from_value::<operator::Installation>(with_pools).ok())
        .and_then(|installation| defaults(&installation))
        .unwrap_or(defaulted)
}

/// crd.projectcalico.org/v1 has the same schema as projectcalico.org/v3 in v3.32.1; the
/// generated types check the apiVersion, so the schema pass reads a v1 object as v3.
fn as_v3(value: &Value, crd_group: bool) -> std::borrow::Cow<'_, Value> {
    if !crd_group {
        return std::borrow::Cow::Borrowed(value);
    }
    let mut copy = value.clone();
    if let Some(map) = copy.as_object_mut() {
        map.insert("apiVersion".into(), Value::from("projectcalico.org/v3"));
    }
    std::borrow::Cow::Owned(copy)
}

fn lint_crd_group(sink: &mut Sink, crd_group: bool, kind: &str) {
    if crd_group {
        sink.report(
            &c::LINT_CRD_GROUP,
            "apiVersion",
            format!(
                "this {kind} is written through crd.projectcalico.org/v1, Calico's storage API"
            ),
            Some("use `apiVersion: projectcalico.org/v3`".into()),
        );
    }
}

/// Check `metadata.name` (`name` is the field as written, when it is a string).
fn check_name(sink: &mut Sink, name: Option<&str>) {
    match name {
        Some(name) if vocab::is_dns_subdomain(name) => {}
        Some(name) => sink.report(
            &c::BAD_NAME,
            "metadata.name",
            format!("`{name}` is not a valid name"),
            Some("use at most 253 lower-case letters, digits, `-` and `.`".into()),
        ),
        None => sink.report(
            &c::BAD_NAME,
            "metadata.name",
            "`metadata.name` is missing",
            None,
        ),
    }
}

/// The schema pass: type the document with the generated wire type (see [`crate::typed`]).
/// Unknown fields, missing required fields and values of the wrong type become diagnostics with
/// their path. Returns the typed object when it could be typed at all.
fn schema_pass<T: DeserializeOwned>(sink: &mut Sink, value: &Value) -> Option<T> {
    let mut problems = Vec::new();
    let typed = typed::read(value, Scalars::Kubernetes, &mut problems);
    report_problems(sink, problems);
    typed
}

/// [`schema_pass`] for a kind whose typed object the rules do not read.
fn schema_check<T: DeserializeOwned>(sink: &mut Sink, value: &Value) {
    let mut problems = Vec::new();
    typed::check::<T>(value, Scalars::Kubernetes, &mut problems);
    report_problems(sink, problems);
}

fn report_problems(sink: &mut Sink, problems: Vec<Problem>) {
    for Problem { path, kind } in problems {
        match kind {
            ProblemKind::UnknownField { field, expected } => {
                let hint = crate::suggest::closest(&field, expected.iter().map(String::as_str))
                    .map(|candidate| format!("did you mean `{candidate}`?"))
                    .or_else(|| {
                        (!expected.is_empty())
                            .then(|| format!("known fields here: {}", expected.join(", ")))
                    });
                sink.report(
                    &c::UNKNOWN_FIELD,
                    path,
                    format!("unknown field `{field}`"),
                    hint,
                );
            }
            ProblemKind::MissingField { field } => sink.report(
                &c::MISSING_FIELD,
                path,
                format!("required field `{field}` is missing"),
                None,
            ),
            ProblemKind::UnknownValue { value, expected } => sink.report(
                &c::WRONG_TYPE,
                path,
                format!(
                    "unknown value `{value}`; valid values: {}",
                    expected.join(", ")
                ),
                None,
            ),
            ProblemKind::Invalid { message } => sink.report(&c::WRONG_TYPE, path, message, None),
        }
    }
}
