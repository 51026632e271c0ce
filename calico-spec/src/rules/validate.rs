//! The entry point: dispatch each document by apiVersion and kind, run the schema pass and the
//! kind's rules, then the checks across documents; attach source locations.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::catalogue as c;
use super::cross::{self, Facts, InstallationFact, PoolFact, PoolOrigin};
use super::{Context, Sink, bgpconfig, bgppeer, endpoint, felix, installation, ippool, shape};
use crate::cluster_network;
use crate::defaults::{DefaultsContext, apply_operator_defaults};
use crate::diag::{Diagnostic, Location};
use crate::generated::operator_tigera_io::v1 as operator;
use crate::generated::projectcalico_org::v3;
use crate::objects::Object;
use crate::source::{Document, Limits, Pos, SourceError, SpanMap, join_key, parse_stream};
use crate::vocab;

/// One document to validate, with the file it came from (`-` for standard input).
#[derive(Debug, Clone, Copy)]
pub struct InputDocument<'a> {
    /// The file name as the user gave it.
    pub file: &'a str,
    /// The parsed document.
    pub document: &'a Document,
}

/// A document that validation does not know and therefore did not check.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Skipped {
    /// The file name as the user gave it.
    pub file: String,
    /// Zero-based index of the document in its file.
    pub document: usize,
    /// The document's apiVersion, when it has one.
    pub api_version: Option<String>,
    /// The document's kind, when it has one.
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
}

/// The kinds validation knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    IpPool { crd_group: bool },
    BgpPeer { crd_group: bool },
    BgpConfiguration { crd_group: bool },
    FelixConfiguration { crd_group: bool },
    Installation,
    ApiServer,
    EndpointConfigMap,
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
        ("v1", "ConfigMap", _) if root.name() == Some(endpoint::ENDPOINT_NAME) => {
            Some(Known::EndpointConfigMap)
        }
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
#[error("{file}: {source}")]
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
/// reported at the ClusterNetwork field they came from. `ctx` applies to the manifests.
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
        parsed.push((source.name, documents));
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
    outcome.checked += checked_cluster_networks;
    outcome.diagnostics.extend(extra);
    sort(&mut outcome.diagnostics);
    Ok(outcome)
}

/// Check a ClusterNetwork exactly as `render` does, through [`cluster_network::load`]: its own
/// parser and checks, then the rule catalogue over the compiled objects with the context the
/// ClusterNetwork declares (`network.avoid`, `serviceCIDRs`, `nodeSubnets`, the provider), not
/// the context assumed for bare manifests. One code path, so `validate` and `render` cannot
/// disagree about a ClusterNetwork.
fn validate_cluster_network(file: &str, text: &str) -> Vec<Diagnostic> {
    let mut diagnostics = match cluster_network::load(file, text) {
        Ok(loaded) => loaded.warnings,
        Err(cluster_network::ParseError::Invalid { diagnostics }) => diagnostics,
        Err(err) => {
            let mut sink = Sink::default();
            sink.report(&c::NOT_AN_OBJECT, "", err.to_string(), None);
            sink.diagnostics
        }
    };
    // A few of `load`'s diagnostics (a compile failure, the fallbacks above) have no position.
    if diagnostics.iter().any(|diag| diag.location.is_none()) {
        cluster_network::locate(file, text, &mut diagnostics);
    }
    diagnostics
}

fn sort(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| {
        a.location
            .cmp(&b.location)
            .then(a.code.cmp(b.code))
            .then(a.path.cmp(&b.path))
            .then(a.message.cmp(&b.message))
    });
    diagnostics.dedup();
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

fn run(inputs: &[InputDocument<'_>], ctx: &Context, typing: Typing) -> ValidationOutcome {
    let mut outcome = ValidationOutcome::default();
    let mut facts = Facts::with_capacity(inputs.len());
    for (input_idx, input) in inputs.iter().enumerate() {
        let doc = input.document;
        if doc.is_empty() {
            continue;
        }
        let mut sink = Sink::default();
        sink.diagnostics.extend(doc.problems.iter().cloned());
        let root = Root::of(&doc.value);
        if !doc.value.is_object() || root.api_version.is_none() || root.kind.is_none() {
            outcome.checked += 1;
            sink.report(
                &c::NOT_AN_OBJECT,
                "",
                "the document is not a Kubernetes object: it needs string `apiVersion` and `kind` fields",
                None,
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
        attach(&mut outcome.diagnostics, sink, &inputs[input_idx]);
    }
    sort(&mut outcome.diagnostics);
    outcome
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
    match known {
        Known::IpPool { crd_group } => {
            lint_crd_group(sink, crd_group, "IPPool");
            check_name(sink, written_name);
            // Pools come by the thousand; most are plainly well typed, and typing them only
            // to drop the copy would cost more than every other IPPool check together.
            if check_types && !shape::ip_pool_is_typed(value) {
                schema_pass::<v3::IPPool>(sink, &as_v3(value, crd_group));
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
            facts.add_name(input_idx, "IPPool", name);
        }
        Known::BgpPeer { crd_group } => {
            lint_crd_group(sink, crd_group, "BGPPeer");
            check_name(sink, written_name);
            if check_types {
                schema_pass::<v3::BGPPeer>(sink, &as_v3(value, crd_group));
            }
            bgppeer::check(sink, value);
            facts.add_name(input_idx, "BGPPeer", name);
        }
        Known::BgpConfiguration { crd_group } => {
            lint_crd_group(sink, crd_group, "BGPConfiguration");
            check_name(sink, written_name);
            if check_types {
                schema_pass::<v3::BGPConfiguration>(sink, &as_v3(value, crd_group));
            }
            bgpconfig::check(sink, value);
            facts.add_name(input_idx, "BGPConfiguration", name);
        }
        Known::FelixConfiguration { crd_group } => {
            lint_crd_group(sink, crd_group, "FelixConfiguration");
            check_name(sink, written_name);
            if check_types {
                schema_pass::<v3::FelixConfiguration>(sink, &as_v3(value, crd_group));
            }
            felix::check(sink, value);
            facts.add_name(input_idx, "FelixConfiguration", name);
        }
        Known::Installation => {
            let defaulted = if check_types {
                Cow::Owned(defaulted_installation(sink, ctx, value))
            } else {
                Cow::Borrowed(value)
            };
            let defaulted: &Value = &defaulted;
            installation::check(sink, value, defaulted);
            facts
                .installations
                .push(InstallationFact::collect(input_idx, value, defaulted));
            for pool in cross::installation_pools(input_idx, value, defaulted) {
                facts.pools.push(pool);
            }
            facts.add_name(input_idx, "Installation", name);
        }
        Known::ApiServer => {
            if check_types {
                schema_pass::<operator::APIServer>(sink, value);
            }
            endpoint::check_apiserver(sink, value);
            facts.add_name(input_idx, "APIServer", name);
        }
        Known::EndpointConfigMap => {
            endpoint::check_configmap(sink, ctx, value, &doc.spans);
            facts.endpoints.push(input_idx);
            facts.add_name(input_idx, "ConfigMap", name);
        }
    }
}

/// The Installation as the operator will have it once it has written its defaults back, as
/// JSON; the value as written when it does not type (the schema pass has reported why).
fn defaulted_installation(sink: &mut Sink, ctx: &Context, value: &Value) -> Value {
    schema_pass::<operator::Installation>(sink, value)
        .map(|installation| {
            let provider = ctx
                .provider
                .as_deref()
                .map(operator::InstallationSpecKubernetesProvider::from);
            let out = apply_operator_defaults(&installation, &DefaultsContext { provider });
            serde_json::to_value(out).unwrap_or_else(|_| value.clone())
        })
        .unwrap_or_else(|| value.clone())
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

/// The schema pass: type the document with the generated wire type. Unknown fields and values
/// of the wrong type become diagnostics with their path; the offending node is removed and the
/// document typed again, so that every such problem is reported, up to a fixed number of
/// rounds. Returns the typed object when it could be typed at all.
fn schema_pass<T: DeserializeOwned>(sink: &mut Sink, value: &Value) -> Option<T> {
    const MAX_ROUNDS: usize = 64;
    // The common case, a valid document, is typed without copying it and without the path
    // tracking, which only matters for a document that fails.
    if let Ok(typed) = T::deserialize(value) {
        return Some(typed);
    }
    let mut current = value.clone();
    // Paths this pass removed to get on with typing. Removing an object can make a required
    // field of its parent go missing (an IPPool without `cidr` loses `spec`); that is our doing,
    // not the user's, so it is not reported, and typing stops there.
    let mut removed: Vec<Vec<Segment>> = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let err = match serde_path_to_error::deserialize::<_, T>(&current) {
            Ok(typed) => return Some(typed),
            Err(err) => err,
        };
        let segments: Vec<Segment> = err.path().iter().filter_map(Segment::from_serde).collect();
        let message = err.inner().to_string();
        let path = render_path(&segments);
        if let Some(field) = unknown_field_name(&message) {
            let expected = expected_fields(&message);
            let mut full = segments.clone();
            // serde_path_to_error stops at the mapping that holds the unknown key.
            if full.last() != Some(&Segment::Key(field.clone())) {
                full.push(Segment::Key(field.clone()));
            }
            let hint = crate::suggest::closest(&field, expected.iter().map(String::as_str))
                .map(|candidate| format!("did you mean `{candidate}`?"))
                .or_else(|| {
                    (!expected.is_empty())
                        .then(|| format!("known fields here: {}", expected.join(", ")))
                });
            sink.report(
                &c::UNKNOWN_FIELD,
                render_path(&full),
                format!("unknown field `{field}`"),
                hint,
            );
            if !remove(&mut current, &full) {
                return None;
            }
        } else if let Some(field) = missing_field_name(&message) {
            let mut full = segments.clone();
            full.push(Segment::Key(field.clone()));
            if removed.contains(&full) {
                return None;
            }
            sink.report(
                &c::MISSING_FIELD,
                render_path(&full),
                format!("required field `{field}` is missing"),
                None,
            );
            // Drop the incomplete object so the rest of the document can still be typed.
            if segments.is_empty() || !remove(&mut current, &segments) {
                return None;
            }
            removed.push(segments);
        } else {
            sink.report(&c::WRONG_TYPE, path, type_message(&message), None);
            if segments.is_empty() || !remove(&mut current, &segments) {
                return None;
            }
            removed.push(segments);
        }
    }
    None
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

impl Segment {
    fn from_serde(segment: &serde_path_to_error::Segment) -> Option<Segment> {
        match segment {
            serde_path_to_error::Segment::Map { key } => Some(Segment::Key(key.clone())),
            serde_path_to_error::Segment::Seq { index } => Some(Segment::Index(*index)),
            // Struct fields that serde reads through `deserialize_struct` are map keys in a
            // JSON value, so only the unknown-segment case is left.
            _ => None,
        }
    }
}

fn render_path(segments: &[Segment]) -> String {
    let mut path = String::new();
    for segment in segments {
        path = match segment {
            Segment::Key(key) => join_key(&path, key),
            Segment::Index(idx) => crate::source::join_index(&path, *idx),
        };
    }
    path
}

/// Remove the node at `segments` from `value`; false when there is nothing to remove.
fn remove(value: &mut Value, segments: &[Segment]) -> bool {
    let Some((last, parents)) = segments.split_last() else {
        return false;
    };
    let mut node = value;
    for segment in parents {
        node = match (segment, node) {
            (Segment::Key(key), Value::Object(map)) => match map.get_mut(key) {
                Some(child) => child,
                None => return false,
            },
            (Segment::Index(idx), Value::Array(items)) => match items.get_mut(*idx) {
                Some(child) => child,
                None => return false,
            },
            _ => return false,
        };
    }
    match (last, node) {
        (Segment::Key(key), Value::Object(map)) => map.remove(key).is_some(),
        (Segment::Index(idx), Value::Array(items)) if *idx < items.len() => {
            items.remove(*idx);
            true
        }
        _ => false,
    }
}

/// The field name in serde's "unknown field `x`, expected ..." message.
fn unknown_field_name(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    Some(rest.split('`').next()?.to_owned())
}

/// The field name in serde's "missing field `x`" message.
fn missing_field_name(message: &str) -> Option<String> {
    let rest = message.strip_prefix("missing field `")?;
    Some(rest.split('`').next()?.to_owned())
}

/// The field names listed in serde's "expected one of `a`, `b`" or "expected `a`" message.
fn expected_fields(message: &str) -> Vec<String> {
    let Some((_, list)) = message.split_once("expected") else {
        return Vec::new();
    };
    list.split('`')
        .enumerate()
        .filter(|(idx, _)| idx % 2 == 1)
        .map(|(_, name)| name.to_owned())
        .collect()
}

/// serde's type messages, made to read as ours ("invalid type: string \"x\", expected a
/// boolean" -> "expected a boolean, found string \"x\"").
fn type_message(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return format!("expected {expected}, found {found}");
    }
    if let Some(rest) = message.strip_prefix("invalid value: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return format!("expected {expected}, found {found}");
    }
    message.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_are_read() {
        let message = "unknown field `blocksize`, expected one of `cidr`, `blockSize`";
        assert_eq!(unknown_field_name(message).as_deref(), Some("blocksize"));
        assert_eq!(expected_fields(message), vec!["cidr", "blockSize"]);
        assert_eq!(
            type_message("invalid type: string \"Enabled\", expected a boolean"),
            "expected a boolean, found string \"Enabled\""
        );
    }

    #[test]
    fn removal() {
        let mut value = serde_json::json!({"a": {"b": [1, {"c": 2}]}});
        assert!(remove(
            &mut value,
            &[
                Segment::Key("a".into()),
                Segment::Key("b".into()),
                Segment::Index(1),
                Segment::Key("c".into())
            ]
        ));
        assert_eq!(value, serde_json::json!({"a": {"b": [1, {}]}}));
        assert!(!remove(&mut value, &[Segment::Key("x".into())]));
    }
}
