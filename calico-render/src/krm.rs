//! KRM function: a `ResourceList` in, the same `ResourceList` with our objects merged in out.
//!
//! The contract is the one kustomize and kpt implement (kustomize's functions spec):
//! `config.kubernetes.io/v1` (or `v1beta1`) `ResourceList` with `items` and `functionConfig`;
//! the output carries the resulting `items` and `results`, one per diagnostic, with severities.
//! Exit status 1 when any result is an error (the list is still written, with the input items
//! unchanged), as kyaml's framework does.
//!
//! The function config is either a ClusterNetwork, or a ConfigMap whose `data` names one: key
//! `file` (a path, relative to the working directory the tool runs the function in) or key
//! `clusterNetwork` (the ClusterNetwork text itself). `kpt fn eval --exec calico-render -- file=cluster.yaml`
//! produces the second form.
//!
//! Items are matched and merged by the post-renderer's rule ([`crate::merge`]): an item matching
//! one of our objects is merged into (its metadata, and so every `internal.config.kubernetes.io/*`,
//! `config.kubernetes.io/*`, `config.k8s.io/id` and `kustomize.config.k8s.io/*` annotation, is
//! kept), the items of a `List` item are looked into, one of our objects found twice is an
//! error result, and the rest of our objects are appended. The same code serves as a generator
//! (items hold only the function config, which passes through with its `local-config`
//! annotation) and as a transformer.
//!
//! Items that are not ours are copied byte for byte from the input when the list is in the
//! plain block style both tools write ([`crate::scan::root_sections`]) and the copy reads back
//! as the list it stands for; otherwise the whole list is written from its parsed form.

use calico_spec::diag::{Diagnostic, Severity};
use calico_spec::rules::catalogue::INPUT_NOT_PROCESSED;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::merge::{self, Finish, Head, Matcher, Refused, str_at};
use crate::scan::{self, RootSection};
use crate::yaml::{EmitError, value_to_yaml};

/// The two ResourceList versions kustomize and kpt speak.
pub const API_VERSIONS: [&str; 2] = ["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"];

/// Where the ClusterNetwork text came from, for messages and `results[].file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The `functionConfig` itself.
    FunctionConfig,
    /// A file named by the ConfigMap function config.
    File(String),
    /// The ConfigMap's `clusterNetwork` key.
    Inline,
}

impl Origin {
    /// How diagnostics name the input.
    pub fn file_name(&self) -> &str {
        match self {
            Origin::FunctionConfig => "functionConfig",
            Origin::File(path) => path,
            Origin::Inline => "functionConfig.data.clusterNetwork",
        }
    }
}

/// Our objects rendered from the function config, or why they could not be.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// Our objects in bundle order (empty when there are errors).
    pub objects: Vec<Value>,
    /// Everything found on the way, warnings and errors.
    pub diagnostics: Vec<Diagnostic>,
}

/// What the KRM function needs from the rest of calico-render: turning a ClusterNetwork text
/// into our objects (parse, check, compile).
pub trait Generate {
    /// Render the ClusterNetwork `text`, read from `origin`.
    fn generate(&self, origin: &Origin, text: &str) -> Generated;

    /// Read a file named by a ConfigMap function config.
    fn read_file(&self, path: &str) -> std::io::Result<String> {
        std::fs::read_to_string(path)
    }
}

/// Why the input could not be handled at all (no ResourceList can be written back).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KrmError {
    /// The input is not YAML.
    #[error("the KRM input is not YAML: {line}:{column}: {message}")]
    NotYaml {
        /// One-based line of the problem (1 when the parser gave none).
        line: usize,
        /// One-based column of the problem (1 when the parser gave none).
        column: usize,
        /// What the YAML parser said.
        message: String,
    },
    /// The input is YAML but not a ResourceList.
    #[error(
        "the KRM input is not a ResourceList (found apiVersion `{api_version}`, kind `{kind}`); \
         expected apiVersion config.kubernetes.io/v1 or config.kubernetes.io/v1beta1 and kind ResourceList"
    )]
    NotResourceList {
        /// The apiVersion found.
        api_version: String,
        /// The kind found.
        kind: String,
    },
    /// `items` is not a list.
    #[error("`items` of the ResourceList must be a list of objects")]
    ItemsNotList,
    /// An item is not an object.
    #[error(
        "`items` of the ResourceList must be a list of objects; items[{index}] is not an object"
    )]
    BadItems {
        /// Zero-based index of the first bad item (as in the field path `items[0]`).
        index: usize,
    },
    /// The output list could not be written as YAML.
    #[error("writing the output ResourceList as YAML failed: {message}")]
    Emit {
        /// What the emitter said.
        message: String,
    },
}

/// The function's output.
#[derive(Debug, Clone)]
pub struct KrmOutput {
    /// The ResourceList text to write on standard output.
    pub text: String,
    /// Every diagnostic (also written as `results`).
    pub diagnostics: Vec<Diagnostic>,
    /// True when any result is an error: the caller exits 1.
    pub failed: bool,
    /// True when untouched items were copied byte for byte (false: re-serialized).
    pub copied_items: bool,
}

/// Run the function on the text of a ResourceList.
pub fn run(
    input: &str,
    generate: &dyn Generate,
    finish: &dyn Finish,
) -> Result<KrmOutput, KrmError> {
    let list: Value =
        serde_saphyr::from_str_with_options(input, crate::post_render::third_party_options())
            .map_err(|err| {
                let (line, column) = crate::yaml::read_error_position(&err).unwrap_or((1, 1));
                KrmError::NotYaml {
                    line,
                    column,
                    message: crate::yaml::read_error_text(&err),
                }
            })?;
    let api_version = str_at(&list, &["apiVersion"]);
    let kind = str_at(&list, &["kind"]);
    if !API_VERSIONS.contains(&api_version) || kind != "ResourceList" {
        return Err(KrmError::NotResourceList {
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
        });
    }
    let items: Vec<Value> = match list.get("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(_) => return Err(KrmError::ItemsNotList),
    };
    if let Some(index) = items.iter().position(|item| !item.is_object()) {
        return Err(KrmError::BadItems { index });
    }
    let function_config = list.get("functionConfig").cloned().unwrap_or(Value::Null);
    let previous_results: Vec<Value> = match list.get("results") {
        Some(Value::Array(results)) => results.clone(),
        _ => Vec::new(),
    };

    let mut diagnostics = Vec::new();
    // Findings about one merged object: its reference, for its result.
    let mut about: Vec<(Option<Value>, Diagnostic)> = Vec::new();
    let mut plan = Plan::unchanged(items.len());
    match cluster_network_text(input, &function_config, generate) {
        Err(diag) => diagnostics.push(*diag),
        Ok((origin, text)) => {
            let generated = generate.generate(&origin, &text);
            diagnostics.extend(generated.diagnostics);
            if !has_errors(&diagnostics) {
                match Plan::merge(&items, &generated.objects, finish)? {
                    Merged::Done(merged, warnings) => {
                        about.extend(warnings);
                        plan = merged;
                    }
                    Merged::Refused(found) => about.extend(found),
                }
            }
        }
    }
    let reference = resource_ref(&function_config);
    let mut results = previous_results;
    results.extend(
        diagnostics
            .iter()
            .map(|diag| to_result(diag, reference.as_ref())),
    );
    for (object, diag) in about {
        results.push(to_result(&diag, object.as_ref().or(reference.as_ref())));
        diagnostics.push(diag);
    }
    let failed = has_errors(&diagnostics);

    let (text, copied_items) = match write_copying(input, &list, &items, &plan, &results) {
        Some(text) => (text, true),
        None => (
            write_parsed(&list, &items, &plan, &results).map_err(|err| KrmError::Emit {
                message: err.to_string(),
            })?,
            false,
        ),
    };
    Ok(KrmOutput {
        text,
        diagnostics,
        failed,
        copied_items,
    })
}

fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity == Severity::Error)
}

/// A diagnostic about the function config itself.
fn config_error(message: String, hint: &str) -> Box<Diagnostic> {
    Box::new(Diagnostic {
        severity: calico_spec::rules::catalogue::KRM_FUNCTION_CONFIG.severity,
        code: calico_spec::rules::catalogue::KRM_FUNCTION_CONFIG.code,
        path: "functionConfig".to_owned(),
        message,
        hint: Some(hint.to_owned()),
        location: None,
    })
}

const CONFIG_HINT: &str = "give a ClusterNetwork as functionConfig, or a ConfigMap with \
    `data.file` (path of a ClusterNetwork file) or `data.clusterNetwork` (its text)";

/// Find the ClusterNetwork text the function config stands for.
fn cluster_network_text(
    input: &str,
    config: &Value,
    generate: &dyn Generate,
) -> Result<(Origin, String), Box<Diagnostic>> {
    let kind = str_at(config, &["kind"]);
    match kind {
        "ClusterNetwork" => {
            // Prefer the config's own text, so that positions in messages point into it.
            let text = function_config_text(input)
                .or_else(|| value_to_yaml(config).ok())
                .unwrap_or_default();
            Ok((Origin::FunctionConfig, text))
        }
        "ConfigMap" => {
            let data = config.get("data").and_then(Value::as_object);
            let get = |key: &str| data.and_then(|d| d.get(key)).and_then(Value::as_str);
            match (get("file"), get("clusterNetwork")) {
                (Some(_), Some(_)) => Err(config_error(
                    "the ConfigMap function config sets both `data.file` and `data.clusterNetwork`"
                        .to_owned(),
                    "keep one of them",
                )),
                (Some(path), None) => match generate.read_file(path) {
                    Ok(text) => Ok((Origin::File(path.to_owned()), text)),
                    Err(err) => Err(config_error(
                        format!("cannot read the ClusterNetwork file `{path}` named by `data.file`: {err}"),
                        "the path is relative to the directory the KRM tool runs the function in",
                    )),
                },
                (None, Some(text)) => Ok((Origin::Inline, text.to_owned())),
                (None, None) => Err(config_error(
                    "the ConfigMap function config has neither `data.file` nor `data.clusterNetwork`"
                        .to_owned(),
                    CONFIG_HINT,
                )),
            }
        }
        "" => Err(config_error(
            "the ResourceList has no functionConfig".to_owned(),
            CONFIG_HINT,
        )),
        other => Err(config_error(
            format!("functionConfig of kind `{other}` is not supported"),
            CONFIG_HINT,
        )),
    }
}

/// The ResourceList's `functionConfig`, read from its own section of the input when the list is
/// in plain block style (so a long list of items is not parsed twice), else from the whole list.
/// `None` when there is none or the input is not YAML ([`run`] reports that).
pub fn function_config(input: &str) -> Option<Value> {
    let text = match scan::root_sections(input.as_bytes()) {
        Some(sections) => {
            let section = sections.iter().find(|s| s.key == "functionConfig")?;
            &input[section.start..section.end]
        }
        None => input,
    };
    // A ResourceList is written by a tool and may be large: the generated-stream budgets.
    let documents =
        calico_spec::source::parse_stream(text, &calico_spec::source::Limits::LARGE_STREAMS)
            .ok()?;
    documents
        .into_iter()
        .next()?
        .value
        .get("functionConfig")
        .cloned()
}

/// The text of the `functionConfig` section, dedented, when the list is in plain block style.
fn function_config_text(input: &str) -> Option<String> {
    let sections = scan::root_sections(input.as_bytes())?;
    let section = sections.iter().find(|s| s.key == "functionConfig")?;
    let body = &input[section.start..section.end];
    let mut lines = body.split_inclusive('\n');
    let first = lines.next()?;
    let after_colon = first.split_once(':')?.1.trim();
    if !(after_colon.is_empty() || after_colon.starts_with('#')) {
        return None;
    }
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()?;
    let mut text = String::new();
    for line in rest {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        text.push_str(&line[spaces.min(indent)..]);
    }
    Some(text)
}

/// What to write for each input item, and which of our objects to append.
#[derive(Debug, Clone)]
struct Plan {
    /// For each input item, what becomes of it.
    edits: Vec<Edit>,
    /// The YAML texts of our objects no item matched, in bundle order.
    appended: Vec<String>,
}

/// What becomes of one input item.
#[derive(Debug, Clone)]
enum Edit {
    /// Written as it came.
    Keep,
    /// Replaced by one of our objects merged into it: its YAML text.
    Object(String),
    /// A list whose items at these indices are replaced by our merged objects' texts.
    Items(Vec<(usize, String)>),
}

impl Plan {
    fn unchanged(n_items: usize) -> Self {
        Plan {
            edits: vec![Edit::Keep; n_items],
            appended: Vec::new(),
        }
    }

    /// Match and merge our objects into the items, and check and write the result; an error
    /// for an object that cannot be written at all.
    fn merge(items: &[Value], ours: &[Value], finish: &dyn Finish) -> Result<Merged, KrmError> {
        let mut matcher = Matcher::new(ours);
        // For each of ours: the chart object it matched, with its item (and list item) index.
        let mut found: Vec<Option<(&Value, usize, Option<usize>)>> = vec![None; ours.len()];
        let mut operator_namespace = None;
        for (idx, item) in items.iter().enumerate() {
            let objects: Vec<(Option<usize>, &Value)> = match merge::list_items(item) {
                Some(entries) => entries
                    .iter()
                    .enumerate()
                    .map(|(n, e)| (Some(n), e))
                    .collect(),
                None => vec![(None, item)],
            };
            for (entry, object) in objects {
                let head = Head::of(object);
                operator_namespace = operator_namespace.or(head.operator_namespace());
                match matcher.claim(&head, idx) {
                    #[expect(
                        clippy::indexing_slicing,
                        reason = "the matcher claims positions in `ours`, which `found` has one slot each for"
                    )]
                    Ok(Some(our)) => found[our] = Some((object, idx, entry)),
                    Ok(None) => {}
                    Err(twice) => return Ok(Merged::Refused(vec![(None, duplicate(&twice))])),
                }
            }
        }
        let chart: Vec<Option<&Value>> = found.iter().map(|f| f.map(|(v, _, _)| v)).collect();
        let merged = merge::merged(ours, &chart, operator_namespace);
        let finished = match merge::finish(&merged, finish) {
            Ok(finished) => finished,
            Err(Refused::Invalid(found)) => {
                return Ok(Merged::Refused(with_references(&merged, found)));
            }
            Err(Refused::Emit {
                kind,
                name,
                message,
            }) => {
                return Err(KrmError::Emit {
                    message: format!("{kind} `{name}`: {message}"),
                });
            }
        };
        let mut plan = Plan::unchanged(items.len());
        for (text, found) in finished.texts.into_iter().zip(found) {
            #[expect(
                clippy::indexing_slicing,
                reason = "`idx` is the position of an item of the list the plan has one edit per item of"
            )]
            match found {
                None => plan.appended.push(text),
                Some((_, idx, None)) => plan.edits[idx] = Edit::Object(text),
                Some((_, idx, Some(entry))) => match &mut plan.edits[idx] {
                    Edit::Items(replaced) => replaced.push((entry, text)),
                    edit => *edit = Edit::Items(vec![(entry, text)]),
                },
            }
        }
        for edit in &mut plan.edits {
            if let Edit::Items(replaced) = edit {
                replaced.sort_by_key(|&(entry, _)| entry);
            }
        }
        Ok(Merged::Done(
            plan,
            with_references(&merged, finished.warnings),
        ))
    }
}

/// Each finding with the reference of the merged object it is about, where known.
fn with_references(merged: &[Value], found: Vec<merge::Found>) -> Vec<(Option<Value>, Diagnostic)> {
    found
        .into_iter()
        .map(|(idx, diag)| {
            let object = idx.and_then(|idx| merged.get(idx));
            (object.and_then(resource_ref), diag)
        })
        .collect()
}

/// What [`Plan::merge`] came to.
enum Merged {
    /// The plan, and the check's warnings (with their object's reference).
    Done(Plan, Vec<(Option<Value>, Diagnostic)>),
    /// What refuses the merge: an object of ours found twice, or the check's findings.
    Refused(Vec<(Option<Value>, Diagnostic)>),
}

/// The result for one of our objects found twice among the items.
fn duplicate(twice: &merge::Duplicate) -> Diagnostic {
    Diagnostic {
        severity: INPUT_NOT_PROCESSED.severity,
        code: INPUT_NOT_PROCESSED.code,
        path: "items".to_owned(),
        message: format!(
            "the ResourceList has {} `{}` twice (items[{}] and items[{}])",
            twice.kind, twice.name, twice.first, twice.second
        ),
        hint: Some(
            "keep one of them, so that calico-render knows which one to merge into".to_owned(),
        ),
        location: None,
    }
}

/// One KRM result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct KrmResult {
    message: String,
    severity: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_ref: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<FieldRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<FileRef>,
    tags: Map<String, Value>,
}

#[derive(Debug, Clone, Serialize)]
struct FieldRef {
    path: String,
}

#[derive(Debug, Clone, Serialize)]
struct FileRef {
    path: String,
}

fn resource_ref(config: &Value) -> Option<Value> {
    let kind = str_at(config, &["kind"]);
    if kind.is_empty() {
        return None;
    }
    let mut reference = Map::new();
    for (key, path) in [
        ("apiVersion", &["apiVersion"][..]),
        ("kind", &["kind"][..]),
        ("name", &["metadata", "name"][..]),
        ("namespace", &["metadata", "namespace"][..]),
    ] {
        let value = str_at(config, path);
        if !value.is_empty() {
            reference.insert(key.to_owned(), Value::String(value.to_owned()));
        }
    }
    Some(Value::Object(reference))
}

fn to_result(diag: &Diagnostic, reference: Option<&Value>) -> Value {
    let mut message = format!("{}: {}", diag.code, diag.message);
    if let Some(hint) = &diag.hint {
        message.push_str("; ");
        message.push_str(hint);
    }
    let mut tags = Map::new();
    tags.insert("code".to_owned(), Value::String(diag.code.to_owned()));
    if let Some(line) = diag.location.as_ref().and_then(|l| l.line) {
        tags.insert("line".to_owned(), Value::String(line.to_string()));
    }
    let file = diag
        .location
        .as_ref()
        .filter(|l| l.file != "functionConfig" && !l.file.starts_with("functionConfig."))
        .map(|l| FileRef {
            path: l.file.clone(),
        });
    let result = KrmResult {
        message,
        severity: match diag.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            // The KRM functions spec's informational severity.
            Severity::Note => "info",
        },
        resource_ref: reference.cloned(),
        field: (!diag.path.is_empty()).then(|| FieldRef {
            path: diag.path.clone(),
        }),
        file,
        tags,
    };
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// YAML of a value holding one key (`results`), for appending to the list.
fn results_yaml(results: &[Value]) -> Option<String> {
    if results.is_empty() {
        return None;
    }
    #[derive(Serialize)]
    struct Results<'a> {
        results: &'a [ResultOrder<'a>],
    }
    let ordered: Vec<ResultOrder<'_>> = results.iter().map(ResultOrder).collect();
    crate::yaml::to_yaml(&Results { results: &ordered }).ok()
}

/// A result with `message` and `severity` first, as people read them.
struct ResultOrder<'a>(&'a Value);

impl Serialize for ResultOrder<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(map) = self.0 else {
            return self.0.serialize(serializer);
        };
        const FIRST: [&str; 2] = ["message", "severity"];
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for key in FIRST {
            if let Some(value) = map.get(key) {
                out.serialize_entry(key, value)?;
            }
        }
        for (key, value) in map {
            if !FIRST.contains(&key.as_str()) {
                out.serialize_entry(key, value)?;
            }
        }
        out.end()
    }
}

/// Write the output list copying the input's text for everything we do not change; `None` when
/// the input is not in the plain block style, or the copy does not read back as the list it
/// stands for.
fn write_copying(
    input: &str,
    list: &Value,
    items: &[Value],
    plan: &Plan,
    results: &[Value],
) -> Option<String> {
    let bytes = input.as_bytes();
    let sections = scan::root_sections(bytes)?;
    let items_section = sections.iter().find(|s| s.key == "items");
    let (indent, entries) = match items_section {
        Some(section) => scan::sequence_entries(bytes, section)?,
        None => (0, Vec::new()),
    };
    if entries.len() != items.len() {
        return None;
    }
    let mut out = Vec::with_capacity(input.len() + 4096);
    let first_start = sections.first().map_or(input.len(), |s| s.start);
    out.extend_from_slice(bytes.get(..first_start)?);
    let mut wrote_items = false;
    for section in &sections {
        match section.key.as_str() {
            "items" => {
                write_items_section(&mut out, bytes, section, indent, &entries, items, plan)?;
                wrote_items = true;
            }
            "results" => {}
            _ => push_section(&mut out, bytes.get(section.start..section.end)?),
        }
    }
    if !wrote_items {
        let fake = RootSection {
            key: "items".to_owned(),
            start: 0,
            end: 0,
        };
        write_items_section(&mut out, b"", &fake, 0, &[], items, plan)?;
    }
    if let Some(results) = results_yaml(results) {
        out.extend_from_slice(results.as_bytes());
    }
    let out = String::from_utf8(out).ok()?;
    merge::reads_as(out.as_bytes(), &expected_list(list, items, plan, results)).then_some(out)
}

/// Append a section's text, making sure it ends a line.
fn push_section(out: &mut Vec<u8>, text: &[u8]) {
    out.extend_from_slice(text);
    if !text.is_empty() && !text.ends_with(b"\n") {
        out.push(b'\n');
    }
}

fn write_items_section(
    out: &mut Vec<u8>,
    input: &[u8],
    section: &RootSection,
    indent: usize,
    entries: &[(usize, usize)],
    items: &[Value],
    plan: &Plan,
) -> Option<()> {
    if plan.edits.is_empty() && plan.appended.is_empty() {
        out.extend_from_slice(b"items: []\n");
        return Some(());
    }
    match entries.first() {
        // The key line and any comments before the first entry, as written.
        Some(&(first, _)) => out.extend_from_slice(input.get(section.start..first)?),
        None => out.extend_from_slice(b"items:\n"),
    }
    for ((&(start, end), edit), item) in entries.iter().zip(&plan.edits).zip(items) {
        match edit {
            Edit::Keep => push_section(out, input.get(start..end)?),
            Edit::Object(text) => merge::push_entry(out, text, indent),
            Edit::Items(replaced) => {
                let body = dedent_entry(input.get(start..end)?, indent);
                let text = merge::list_with_items(&body, item, &as_refs(replaced)).ok()?;
                merge::push_entry(out, std::str::from_utf8(&text).ok()?, indent);
            }
        }
    }
    for text in &plan.appended {
        merge::push_entry(out, text, indent);
    }
    Some(())
}

fn as_refs(replaced: &[(usize, String)]) -> Vec<(usize, &str)> {
    replaced
        .iter()
        .map(|(entry, text)| (*entry, text.as_str()))
        .collect()
}

/// The list the output must read as: the input's other keys, every item as the plan makes it,
/// the results.
fn expected_list(list: &Value, items: &[Value], plan: &Plan, results: &[Value]) -> Value {
    let read = |text: &str| merge::read_one(text.as_bytes()).unwrap_or(Value::Null);
    let mut out_items: Vec<Value> = items
        .iter()
        .zip(&plan.edits)
        .map(|(item, edit)| match edit {
            Edit::Keep => item.clone(),
            Edit::Object(text) => read(text),
            Edit::Items(replaced) => {
                let mut item = item.clone();
                if let Some(entries) = item.get_mut("items").and_then(Value::as_array_mut) {
                    for (entry, text) in replaced {
                        if let Some(slot) = entries.get_mut(*entry) {
                            *slot = read(text);
                        }
                    }
                }
                item
            }
        })
        .collect();
    out_items.extend(plan.appended.iter().map(|text| read(text)));
    let mut out = Map::new();
    if let Value::Object(map) = list {
        for (key, value) in map {
            if key != "items" && key != "results" {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out.insert("items".to_owned(), Value::Array(out_items));
    if !results.is_empty() {
        out.insert("results".to_owned(), Value::Array(results.to_vec()));
    }
    Value::Object(out)
}

/// The text of a sequence entry as a document of its own: the `- ` marker and the entry's
/// indentation removed.
fn dedent_entry(text: &[u8], indent: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let strip = indent + 2;
    for (idx, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let skip = if idx == 0 {
            // The first line is the indentation, `- `, then the entry's first key.
            strip.min(line.len())
        } else {
            line.iter().take_while(|&&b| b == b' ').count().min(strip)
        };
        out.extend_from_slice(line.get(skip..).unwrap_or_default());
    }
    out
}

/// Write the output list from the parsed input (for lists not in the plain block style): the
/// list's other keys, then every item, ours as the finish wrote them, then the results.
fn write_parsed(
    list: &Value,
    items: &[Value],
    plan: &Plan,
    results: &[Value],
) -> Result<String, EmitError> {
    let mut out = Vec::new();
    if let Value::Object(map) = list {
        let head: Map<String, Value> = map
            .iter()
            .filter(|(key, _)| *key != "items" && *key != "results")
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        out.extend_from_slice(value_to_yaml(&Value::Object(head))?.as_bytes());
    }
    if plan.edits.is_empty() && plan.appended.is_empty() {
        out.extend_from_slice(b"items: []\n");
    } else {
        out.extend_from_slice(b"items:\n");
    }
    for (item, edit) in items.iter().zip(&plan.edits) {
        let text = match edit {
            Edit::Keep => value_to_yaml(item)?.into_bytes(),
            Edit::Object(text) => text.clone().into_bytes(),
            Edit::Items(replaced) => merge::list_with_items(b"", item, &as_refs(replaced))?,
        };
        merge::push_entry(&mut out, &String::from_utf8_lossy(&text), 0);
    }
    for text in &plan.appended {
        merge::push_entry(&mut out, text, 0);
    }
    if let Some(results) = results_yaml(results) {
        out.extend_from_slice(results.as_bytes());
    }
    // Every piece is text, so this only refuses on a bug.
    String::from_utf8(out).map_err(|err| EmitError::Serialize {
        document_idx: 0,
        message: err.to_string(),
    })
}
