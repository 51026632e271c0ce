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
//! Items are merged with the post-renderer's rule ([`crate::post_render`]): an item matching
//! one of our objects is merged into (its metadata, and so every `internal.config.kubernetes.io/*`,
//! `config.kubernetes.io/*`, `config.k8s.io/id` and `kustomize.config.k8s.io/*` annotation, is
//! kept), the rest of our objects are appended. The same code serves as a generator (items hold
//! only the function config, which passes through with its `local-config` annotation) and as a
//! transformer.
//!
//! Items that are not ours are copied byte for byte from the input when the list is in the
//! plain block style both tools write ([`crate::scan::root_sections`]); otherwise the whole
//! list is written from its parsed form.

use calico_spec::diag::{Diagnostic, Severity};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::post_render::{Finish, group_of, groups_match, merge_object, str_at};
use crate::scan::{self, RootSection};

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
    #[error("the KRM input is not YAML: {message}")]
    NotYaml {
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
    /// `items` is not a list of objects.
    #[error("`items` of the ResourceList must be a list of objects; item {index} is not an object")]
    BadItems {
        /// Index of the first bad item.
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
            .map_err(|err| KrmError::NotYaml {
                message: crate::yaml::read_error_message(&err),
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
        Some(_) => return Err(KrmError::BadItems { index: 0 }),
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
    let mut plan = Plan::unchanged(items.len());
    match cluster_network_text(input, &function_config, generate) {
        Err(diag) => diagnostics.push(*diag),
        Ok((origin, text)) => {
            let generated = generate.generate(&origin, &text);
            diagnostics.extend(generated.diagnostics);
            if !has_errors(&diagnostics) {
                let candidate = Plan::merge(&items, &generated.objects);
                let merged: Vec<Value> = candidate.objects().cloned().collect();
                diagnostics.extend(finish.check(&merged));
                if !has_errors(&diagnostics) {
                    plan = candidate;
                }
            }
        }
    }
    let failed = has_errors(&diagnostics);
    let reference = resource_ref(&function_config);
    let mut results = previous_results;
    results.extend(
        diagnostics
            .iter()
            .map(|diag| to_result(diag, reference.as_ref())),
    );

    let copied = write_copying(input, &items, &plan, &results, finish);
    let (text, copied_items) = match copied {
        Some(text) => (text, true),
        None => (
            write_parsed(&list, &items, &plan, &results, finish).map_err(|err| KrmError::Emit {
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
                .or_else(|| crate::post_render::value_to_yaml(config).ok())
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
    /// For each input item: `Some(merged)` when one of our objects merged into it.
    replaced: Vec<Option<Value>>,
    /// Our objects no item matched, in bundle order.
    appended: Vec<Value>,
}

impl Plan {
    fn unchanged(n_items: usize) -> Self {
        Plan {
            replaced: vec![None; n_items],
            appended: Vec::new(),
        }
    }

    fn merge(items: &[Value], ours: &[Value]) -> Self {
        let mut plan = Plan::unchanged(items.len());
        for object in ours {
            let kind = str_at(object, &["kind"]);
            let group = group_of(str_at(object, &["apiVersion"]));
            let name = str_at(object, &["metadata", "name"]);
            let hit = items.iter().position(|item| {
                str_at(item, &["kind"]) == kind
                    && str_at(item, &["metadata", "name"]) == name
                    && groups_match(group, group_of(str_at(item, &["apiVersion"])))
            });
            match hit {
                Some(idx) if plan.replaced[idx].is_none() => {
                    plan.replaced[idx] = Some(merge_object(&items[idx], object));
                }
                _ => plan.appended.push(object.clone()),
            }
        }
        plan
    }

    /// Our objects as they will be written (merged ones, then appended ones).
    fn objects(&self) -> impl Iterator<Item = &Value> {
        self.replaced.iter().flatten().chain(&self.appended)
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

/// An object's YAML as an entry of a block sequence whose `- ` markers sit at `indent`.
fn as_entry(yaml: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::with_capacity(yaml.len() + 16);
    for (idx, line) in yaml.lines().enumerate() {
        if idx == 0 {
            out.push_str(&pad);
            out.push_str("- ");
        } else if !line.is_empty() {
            out.push_str(&pad);
            out.push_str("  ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Write the output list copying the input's text for everything we do not change; `None` when
/// the input is not in the plain block style (or the scan disagrees with the parser).
fn write_copying(
    input: &str,
    items: &[Value],
    plan: &Plan,
    results: &[Value],
    finish: &dyn Finish,
) -> Option<String> {
    let bytes = input.as_bytes();
    let sections = scan::root_sections(bytes)?;
    let items_section = sections.iter().find(|s| s.key == "items");
    let (indent, entries) = match items_section {
        Some(section) => scan::sequence_entries(bytes, section)?,
        None => (0, Vec::new()),
    };
    if entries.len() != items.len() || !entries_agree(bytes, &entries, indent, items) {
        return None;
    }
    let mut out = String::with_capacity(input.len() + 4096);
    let first_start = sections.first().map_or(input.len(), |s| s.start);
    out.push_str(&input[..first_start]);
    let mut wrote_items = false;
    for section in &sections {
        match section.key.as_str() {
            "items" => {
                write_items_section(&mut out, input, section, indent, &entries, plan, finish)?;
                wrote_items = true;
            }
            "results" => {}
            _ => push_section(&mut out, &input[section.start..section.end]),
        }
    }
    if !wrote_items {
        let fake = RootSection {
            key: "items".to_owned(),
            start: 0,
            end: 0,
        };
        write_items_section(&mut out, "", &fake, 0, &[], plan, finish)?;
    }
    if let Some(results) = results_yaml(results) {
        out.push_str(&results);
    }
    Some(out)
}

/// Append a section's text, making sure it ends a line.
fn push_section(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
}

fn write_items_section(
    out: &mut String,
    input: &str,
    section: &RootSection,
    indent: usize,
    entries: &[(usize, usize)],
    plan: &Plan,
    finish: &dyn Finish,
) -> Option<()> {
    let n_out = plan.replaced.len() + plan.appended.len();
    if n_out == 0 {
        out.push_str("items: []\n");
        return Some(());
    }
    match entries.first() {
        // The key line and any comments before the first entry, as written.
        Some(&(first, _)) => out.push_str(&input[section.start..first]),
        None => out.push_str("items:\n"),
    }
    for (idx, &(start, end)) in entries.iter().enumerate() {
        match &plan.replaced[idx] {
            None => push_section(out, &input[start..end]),
            Some(merged) => out.push_str(&as_entry(&finish.to_yaml(merged).ok()?, indent)),
        }
    }
    for object in &plan.appended {
        out.push_str(&as_entry(&finish.to_yaml(object).ok()?, indent));
    }
    Some(())
}

/// Check that the scan's entries are the parser's items, one for one.
fn entries_agree(bytes: &[u8], entries: &[(usize, usize)], indent: usize, items: &[Value]) -> bool {
    entries.iter().zip(items).all(|(&(start, end), item)| {
        let dedented = dedent_entry(&bytes[start..end], indent);
        let docs = scan::scan_stream(&dedented);
        let Some(doc) = docs.iter().find(|d| !d.is_empty()) else {
            return false;
        };
        let same = |field: &scan::Field, value: &str| match field.as_plain() {
            Some(text) => text == value,
            None => true,
        };
        docs.len() == 1
            && same(&doc.head.api_version, str_at(item, &["apiVersion"]))
            && same(&doc.head.kind, str_at(item, &["kind"]))
            && same(&doc.head.name, str_at(item, &["metadata", "name"]))
    })
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
        out.extend_from_slice(&line[skip..]);
    }
    out
}

/// Write the output list from the parsed input (for lists not in the plain block style).
fn write_parsed(
    list: &Value,
    items: &[Value],
    plan: &Plan,
    results: &[Value],
    finish: &dyn Finish,
) -> Result<String, crate::yaml::EmitError> {
    let mut out_items: Vec<Value> = items
        .iter()
        .zip(&plan.replaced)
        .map(|(item, merged)| merged.clone().unwrap_or_else(|| item.clone()))
        .collect();
    out_items.extend(plan.appended.iter().cloned());
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
    finish.to_yaml(&Value::Object(out))
}
