//! Helm post-renderer: put our objects into a rendered chart stream and pass everything else
//! through byte for byte.
//!
//! # The merge rule
//! A chart document *matches* one of our objects when it has the same `kind` and
//! `metadata.name` and a compatible API group: the same group, or, for Calico kinds, either of
//! `projectcalico.org` and `crd.projectcalico.org` (the tigera-operator chart renders
//! FelixConfiguration with the latter when it cannot see the former). The endpoint ConfigMap
//! matches by name whatever its namespace. For a match:
//! - every field our object sets wins; mappings merge key by key, recursively; lists and scalars
//!   are replaced whole (so `spec.calicoNetwork.ipPools` is ours entirely, never interleaved);
//! - every field only the chart sets is kept: `spec.registry`, `spec.imagePullSecrets`, extra
//!   ConfigMap keys, and all of the chart's labels and annotations, among them Helm 4's
//!   `postrenderer.helm.sh/postrender-filename` and any `helm.sh/*` annotations;
//! - `metadata.namespace` stays the chart's (the ConfigMap lands in the release namespace);
//! - the document keeps its place in the stream, its `---` line and the comments before its
//!   first key (Helm's `# Source:` line); it is then written fresh from the merged object.
//!
//! Our objects the chart does not render are appended at the end, in bundle order. A ConfigMap
//! we add goes into the namespace of the chart's `tigera-operator` Deployment when the chart has
//! one (that is the release namespace), else into the namespace we rendered.
//!
//! # Validity and memory
//! The merged objects are checked (by the caller's [`Finish`]) before one byte is written: if
//! they are invalid, nothing reaches the output. To know that, the whole stream has to be read
//! first, since the chart's Installation may come last. The stream is therefore spooled: kept
//! in memory up to [`Options::spool_memory`] bytes, then in an anonymous temporary file, and
//! scanned line by line on the way in ([`crate::scan`]). Only documents that may be ours, and
//! documents the scan cannot read, are parsed. Memory stays flat whatever the stream size:
//! the spool buffer, the read buffer, the parsed documents that are ours.

use std::fs::File;
use std::io::{self, BufRead, Read, Write};
use std::os::unix::fs::FileExt;

use calico_spec::diag::{Diagnostic, Severity};
use serde::Serialize;
use serde_json::Value;

use crate::scan::{Field, Scanned, StreamScanner};

/// What the post-renderer needs from the rest of calico-render: a check of the merged objects
/// and their YAML text. The CLI implements it with the rule catalogue and the YAML emitter; tests
/// can use [`PlainFinish`].
pub trait Finish {
    /// Check the objects that will be written (our objects after the merge, in bundle order).
    /// Any diagnostic with [`Severity::Error`] stops the post-renderer.
    fn check(&self, objects: &[Value]) -> Vec<Diagnostic>;

    /// The YAML text of one object: no leading `---`, ending in a line break.
    fn to_yaml(&self, object: &Value) -> Result<String, String>;
}

/// A [`Finish`] that checks nothing and writes YAML with [`value_to_yaml`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainFinish;

impl Finish for PlainFinish {
    fn check(&self, _objects: &[Value]) -> Vec<Diagnostic> {
        Vec::new()
    }

    fn to_yaml(&self, object: &Value) -> Result<String, String> {
        value_to_yaml(object)
    }
}

/// Tuning knobs (the defaults suit Helm).
#[derive(Debug, Clone)]
pub struct Options {
    /// Bytes of the stream kept in memory before the spool moves to a temporary file.
    pub spool_memory: usize,
    /// Size of the read buffer.
    pub read_buffer: usize,
    /// Longest line prefix the scanner looks at; longer lines are still copied whole.
    pub line_prefix: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            spool_memory: 4 << 20,
            read_buffer: 256 << 10,
            line_prefix: 4 << 10,
        }
    }
}

/// Why post-rendering failed. Nothing has been written to the output in any case except
/// [`PostRenderError::Write`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PostRenderError {
    /// Reading the chart stream (or the spool file) failed.
    #[error("reading the rendered chart failed: {0}")]
    Read(#[source] io::Error),
    /// Writing the result failed part-way; the output is incomplete.
    #[error("writing the post-rendered stream failed: {0}")]
    Write(#[source] io::Error),
    /// A document the scan could not read is not YAML either.
    #[error("document {document} of the rendered chart (line {line}) is not valid YAML: {message}")]
    NotYaml {
        /// Zero-based document index in the stream.
        document: usize,
        /// One-based line of the problem in the stream.
        line: usize,
        /// What the YAML parser said.
        message: String,
    },
    /// Two chart documents match the same object of ours.
    #[error(
        "the rendered chart has {kind} `{name}` twice (lines {first_line} and {second_line}); \
         render it once so calico-render knows which one to merge into"
    )]
    DuplicateMatch {
        /// Kind of the object.
        kind: String,
        /// Name of the object.
        name: String,
        /// Line of the first document.
        first_line: usize,
        /// Line of the second document.
        second_line: usize,
    },
    /// The merged objects do not pass the checks; every error and warning is listed.
    #[error("the merged objects are invalid ({} errors)", count_errors(.diagnostics))]
    Invalid {
        /// Everything the check reported.
        diagnostics: Vec<Diagnostic>,
    },
    /// An object could not be written as YAML.
    #[error("writing {kind} `{name}` as YAML failed: {message}")]
    Emit {
        /// Kind of the object.
        kind: String,
        /// Name of the object.
        name: String,
        /// What the emitter said.
        message: String,
    },
    /// Neither the chart nor we produced any object, and Helm refuses empty output.
    #[error("nothing to write: the rendered chart is empty and there are no objects to add")]
    Empty,
}

fn count_errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

/// What happened to one of our objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Merged into the chart document that starts on this line of the input.
    Merged {
        /// One-based line of the chart document.
        line: usize,
    },
    /// Appended at the end of the stream.
    Appended,
}

/// The result of a successful run.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// `(kind, name, placement)` for each of our objects, in bundle order.
    pub objects: Vec<(String, String, Placement)>,
    /// Warnings from the check (errors stop the run instead).
    pub warnings: Vec<Diagnostic>,
    /// Documents in the input stream, comment-only ones included.
    pub documents: usize,
    /// Documents the scan could not read and that were parsed in full.
    pub parsed_fallback: usize,
    /// Bytes read.
    pub bytes: u64,
}

/// A chart document that matches one of our objects.
#[derive(Debug)]
struct Matched {
    scanned: Scanned,
    value: Value,
    /// Whether the document text ends with a `...` marker, which must follow our text too so
    /// that a bare document after it stays separate.
    ends_with_marker: bool,
}

/// Post-render `input` into `output`: see the module docs for the rule.
///
/// `ours` are our objects in bundle order, as JSON values (`apiVersion`, `kind`, `metadata`
/// ...). Nothing is written unless the result is valid.
pub fn post_render(
    input: &mut dyn Read,
    output: &mut dyn Write,
    ours: &[Value],
    finish: &dyn Finish,
    options: &Options,
) -> Result<Summary, PostRenderError> {
    let mut spool = Spool::new(options.spool_memory);
    let mut state = FirstPass::new(ours);
    read_and_scan(input, &mut spool, &mut state, options)?;
    let FirstPass {
        matched,
        operator_namespace,
        documents,
        parsed_fallback,
        ..
    } = state;

    let merged: Vec<Value> = ours
        .iter()
        .zip(&matched)
        .map(|(object, hit)| match hit {
            Some(hit) => merge_object(&hit.value, object),
            None => place_added(object, operator_namespace.as_deref()),
        })
        .collect();
    let diagnostics = finish.check(&merged);
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Err(PostRenderError::Invalid { diagnostics });
    }
    let texts = merged
        .iter()
        .map(|object| {
            finish
                .to_yaml(object)
                .map_err(|message| PostRenderError::Emit {
                    kind: str_at(object, &["kind"]).to_owned(),
                    name: str_at(object, &["metadata", "name"]).to_owned(),
                    message,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if texts.is_empty() && spool.is_blank() {
        return Err(PostRenderError::Empty);
    }

    let summary = Summary {
        objects: merged
            .iter()
            .zip(&matched)
            .map(|(object, hit)| {
                (
                    str_at(object, &["kind"]).to_owned(),
                    str_at(object, &["metadata", "name"]).to_owned(),
                    match hit {
                        Some(hit) => Placement::Merged {
                            line: hit.scanned.line,
                        },
                        None => Placement::Appended,
                    },
                )
            })
            .collect(),
        warnings: diagnostics,
        documents,
        parsed_fallback,
        bytes: spool.len,
    };
    write_result(&mut spool, output, &matched, &texts)?;
    Ok(summary)
}

/// Second pass: copy the spool, replacing matched documents, then append the rest.
fn write_result(
    spool: &mut Spool,
    output: &mut dyn Write,
    matched: &[Option<Matched>],
    texts: &[String],
) -> Result<(), PostRenderError> {
    let mut replaced: Vec<(&Matched, &str)> = matched
        .iter()
        .zip(texts)
        .filter_map(|(hit, text)| hit.as_ref().map(|hit| (hit, text.as_str())))
        .collect();
    replaced.sort_by_key(|(hit, _)| hit.scanned.start);

    let mut tracker = LastByte::new(output);
    let mut pos = 0u64;
    for (hit, text) in replaced {
        let doc = &hit.scanned;
        spool.copy_range(pos, doc.start, &mut tracker)?;
        let content_start = doc.content_start.unwrap_or(doc.start);
        let preamble = spool.read_range(doc.start, content_start)?;
        if doc.index > 0 && !starts_with_document_marker(&preamble) {
            tracker
                .write_all(b"---\n")
                .map_err(PostRenderError::Write)?;
        }
        tracker
            .write_all(&preamble)
            .map_err(PostRenderError::Write)?;
        if !preamble.is_empty() && !preamble.ends_with(b"\n") {
            tracker.write_all(b"\n").map_err(PostRenderError::Write)?;
        }
        tracker
            .write_all(text.as_bytes())
            .map_err(PostRenderError::Write)?;
        if hit.ends_with_marker {
            tracker
                .write_all(b"...\n")
                .map_err(PostRenderError::Write)?;
        }
        pos = doc.end;
    }
    spool.copy_range(pos, spool.len, &mut tracker)?;
    for (hit, text) in matched.iter().zip(texts) {
        if hit.is_some() {
            continue;
        }
        if !tracker.at_line_start() {
            tracker.write_all(b"\n").map_err(PostRenderError::Write)?;
        }
        if tracker.written {
            tracker
                .write_all(b"---\n")
                .map_err(PostRenderError::Write)?;
        }
        tracker
            .write_all(text.as_bytes())
            .map_err(PostRenderError::Write)?;
    }
    tracker.inner.flush().map_err(PostRenderError::Write)
}

fn starts_with_document_marker(text: &[u8]) -> bool {
    text.starts_with(b"---") && matches!(text.get(3), None | Some(b'\n' | b'\r' | b' ' | b'\t'))
}

/// A writer that remembers whether anything was written and whether it ended a line.
struct LastByte<'a> {
    inner: &'a mut dyn Write,
    written: bool,
    last: u8,
}

impl<'a> LastByte<'a> {
    fn new(inner: &'a mut dyn Write) -> Self {
        LastByte {
            inner,
            written: false,
            last: b'\n',
        }
    }

    fn at_line_start(&self) -> bool {
        self.last == b'\n'
    }
}

impl Write for LastByte<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        if n > 0 {
            self.written = true;
            self.last = buf[n - 1];
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The input as read so far: in memory up to a limit, then in an anonymous temporary file.
struct Spool {
    memory: Vec<u8>,
    file: Option<File>,
    limit: usize,
    len: u64,
    /// True while every byte seen is whitespace (an empty chart).
    blank: bool,
}

impl Spool {
    fn new(limit: usize) -> Self {
        Spool {
            memory: Vec::new(),
            file: None,
            limit,
            len: 0,
            blank: true,
        }
    }

    fn is_blank(&self) -> bool {
        self.blank
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), PostRenderError> {
        if self.blank && !bytes.iter().all(u8::is_ascii_whitespace) {
            self.blank = false;
        }
        self.len += bytes.len() as u64;
        if self.file.is_none() && self.memory.len() + bytes.len() > self.limit {
            // Move to a file: anonymous, removed by the OS when we exit, never visible by name.
            let mut file = tempfile::tempfile().map_err(PostRenderError::Read)?;
            file.write_all(&self.memory)
                .map_err(PostRenderError::Read)?;
            self.memory = Vec::new();
            self.file = Some(file);
        }
        match &mut self.file {
            Some(file) => file.write_all(bytes).map_err(PostRenderError::Read),
            None => {
                self.memory.extend_from_slice(bytes);
                Ok(())
            }
        }
    }

    fn read_range(&self, start: u64, end: u64) -> Result<Vec<u8>, PostRenderError> {
        match &self.file {
            Some(file) => {
                let mut buf = vec![0; (end - start) as usize];
                file.read_exact_at(&mut buf, start)
                    .map_err(PostRenderError::Read)?;
                Ok(buf)
            }
            None => Ok(self.memory[start as usize..end as usize].to_vec()),
        }
    }

    fn copy_range(
        &mut self,
        start: u64,
        end: u64,
        output: &mut dyn Write,
    ) -> Result<(), PostRenderError> {
        match &self.file {
            Some(file) => {
                let mut buf = vec![0; (256 << 10).min((end - start) as usize)];
                let mut pos = start;
                while pos < end {
                    let n = buf.len().min((end - pos) as usize);
                    file.read_exact_at(&mut buf[..n], pos)
                        .map_err(PostRenderError::Read)?;
                    output
                        .write_all(&buf[..n])
                        .map_err(PostRenderError::Write)?;
                    pos += n as u64;
                }
                Ok(())
            }
            None => output
                .write_all(&self.memory[start as usize..end as usize])
                .map_err(PostRenderError::Write),
        }
    }
}

/// First-pass state: what the scan found that matters.
struct FirstPass<'a> {
    /// `(kind, group, name)` of each of our objects.
    keys: Vec<(&'a str, &'a str, &'a str)>,
    matched: Vec<Option<Matched>>,
    operator_namespace: Option<String>,
    documents: usize,
    parsed_fallback: usize,
}

impl<'a> FirstPass<'a> {
    fn new(ours: &'a [Value]) -> Self {
        let keys = ours
            .iter()
            .map(|o| {
                (
                    str_at(o, &["kind"]),
                    group_of(str_at(o, &["apiVersion"])),
                    str_at(o, &["metadata", "name"]),
                )
            })
            .collect();
        FirstPass {
            keys,
            matched: ours.iter().map(|_| None).collect(),
            operator_namespace: None,
            documents: 0,
            parsed_fallback: 0,
        }
    }

    /// The kinds whose names matter: ours, and the Deployment that tells the operator's
    /// namespace.
    fn kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = self.keys.iter().map(|(k, _, _)| (*k).to_owned()).collect();
        kinds.push("Deployment".to_owned());
        kinds
    }

    fn interesting_kind(&self, kind: &str) -> bool {
        kind == "Deployment" || self.keys.iter().any(|(k, _, _)| *k == kind)
    }

    fn document(&mut self, doc: Scanned, spool: &Spool) -> Result<(), PostRenderError> {
        self.documents += 1;
        if doc.is_empty() {
            return Ok(());
        }
        let mut parsed = None;
        let head = if doc.needs_parse() {
            self.parsed_fallback += 1;
            let value = parse_document(&doc, spool)?;
            let head = head_of(&value);
            parsed = Some(value);
            head
        } else {
            let kind = doc.head.kind.as_plain().unwrap_or_default();
            if !self.interesting_kind(kind) {
                return Ok(());
            }
            let needs_value = doc.head.name.is_unclear() || doc.head.namespace.is_unclear();
            if needs_value {
                let value = parse_document(&doc, spool)?;
                let head = head_of(&value);
                parsed = Some(value);
                head
            } else {
                DocHead {
                    api_version: doc
                        .head
                        .api_version
                        .as_plain()
                        .unwrap_or_default()
                        .to_owned(),
                    kind: kind.to_owned(),
                    name: field_string(&doc.head.name),
                    namespace: field_string(&doc.head.namespace),
                }
            }
        };
        if head.kind == "Deployment"
            && head.name == "tigera-operator"
            && group_of(&head.api_version) == "apps"
            && self.operator_namespace.is_none()
            && !head.namespace.is_empty()
        {
            self.operator_namespace = Some(head.namespace.clone());
        }
        let Some(our_idx) = self.keys.iter().position(|&(kind, group, name)| {
            kind == head.kind
                && name == head.name
                && groups_match(group, group_of(&head.api_version))
        }) else {
            return Ok(());
        };
        let value = match parsed {
            Some(value) => value,
            None => parse_document(&doc, spool)?,
        };
        if let Some(first) = &self.matched[our_idx] {
            return Err(PostRenderError::DuplicateMatch {
                kind: head.kind,
                name: head.name,
                first_line: first.scanned.line,
                second_line: doc.line,
            });
        }
        let text = spool.read_range(doc.start, doc.end)?;
        let ends_with_marker = text
            .split(|&b| b == b'\n')
            .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
            .rfind(|line| !line.iter().all(u8::is_ascii_whitespace))
            .is_some_and(|line| line.starts_with(b"..."));
        self.matched[our_idx] = Some(Matched {
            scanned: doc,
            value,
            ends_with_marker,
        });
        Ok(())
    }
}

fn field_string(field: &Field) -> String {
    field.as_plain().unwrap_or_default().to_owned()
}

/// Read the whole input into the spool, scanning lines as they pass.
fn read_and_scan(
    input: &mut dyn Read,
    spool: &mut Spool,
    state: &mut FirstPass<'_>,
    options: &Options,
) -> Result<(), PostRenderError> {
    let mut reader = io::BufReader::with_capacity(options.read_buffer.max(4096), input);
    let mut scanner = StreamScanner::new().only_kinds(state.kinds());
    // A line that spans two reads: its first bytes (at most `line_prefix`) and its full length.
    let mut partial: Vec<u8> = Vec::new();
    let mut partial_len: u64 = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(PostRenderError::Read(err)),
        };
        if chunk.is_empty() {
            break;
        }
        spool.write_all(chunk)?;
        let mut pos = 0;
        while pos < chunk.len() {
            let rest = &chunk[pos..];
            match memchr::memchr(b'\n', rest) {
                Some(nl) => {
                    let line = &rest[..=nl];
                    let done = if partial_len == 0 {
                        scanner.push_line(line, line.len() as u64, false)
                    } else {
                        let room = options.line_prefix.saturating_sub(partial.len());
                        partial.extend_from_slice(&line[..line.len().min(room)]);
                        let truncated = partial_len + line.len() as u64 > partial.len() as u64;
                        let done =
                            scanner.push_line(&partial, partial_len + line.len() as u64, truncated);
                        partial.clear();
                        partial_len = 0;
                        done
                    };
                    if let Some(doc) = done {
                        state.document(doc, spool)?;
                    }
                    pos += nl + 1;
                }
                None => {
                    let room = options.line_prefix.saturating_sub(partial.len());
                    partial.extend_from_slice(&rest[..rest.len().min(room)]);
                    partial_len += rest.len() as u64;
                    pos = chunk.len();
                }
            }
        }
        let n = chunk.len();
        reader.consume(n);
    }
    if partial_len > 0 {
        let truncated = partial_len > partial.len() as u64;
        if let Some(doc) = scanner.push_line(&partial, partial_len, truncated) {
            state.document(doc, spool)?;
        }
    }
    if let Some(doc) = scanner.finish() {
        state.document(doc, spool)?;
    }
    Ok(())
}

/// The identifying fields of a parsed document.
struct DocHead {
    api_version: String,
    kind: String,
    name: String,
    namespace: String,
}

fn head_of(value: &Value) -> DocHead {
    DocHead {
        api_version: str_at(value, &["apiVersion"]).to_owned(),
        kind: str_at(value, &["kind"]).to_owned(),
        name: str_at(value, &["metadata", "name"]).to_owned(),
        namespace: str_at(value, &["metadata", "namespace"]).to_owned(),
    }
}

/// Options for parsing documents written by other tools: the same YAML 1.1 reading kubectl
/// does, and budgets sized for one large document (a CRD) rather than a user's small file.
pub(crate) fn third_party_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_events = 20_000_000;
    budget.max_nodes = 5_000_000;
    budget.max_documents = 1_000_000;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.with_snippet = false;
    options
}

fn parse_document(doc: &Scanned, spool: &Spool) -> Result<Value, PostRenderError> {
    let text = spool.read_range(doc.start, doc.end)?;
    let not_yaml = |message: String, line: usize| PostRenderError::NotYaml {
        document: doc.index,
        line,
        message,
    };
    let values: Vec<Value> =
        serde_saphyr::from_slice_multiple_with_options(&text, third_party_options()).map_err(
            |err| {
                let line = err
                    .location()
                    .map_or(doc.line, |loc| doc.line + loc.line() as usize - 1);
                not_yaml(err.to_string(), line)
            },
        )?;
    match values.len() {
        0 => Ok(Value::Null),
        1 => Ok(values.into_iter().next().unwrap_or(Value::Null)),
        n => Err(not_yaml(
            format!("the scan saw one document where the YAML parser sees {n}"),
            doc.line,
        )),
    }
}

/// The string at `path` in `value`, or `""`.
pub(crate) fn str_at<'v>(value: &'v Value, path: &[&str]) -> &'v str {
    let mut node = value;
    for key in path {
        match node.get(key) {
            Some(next) => node = next,
            None => return "",
        }
    }
    node.as_str().unwrap_or_default()
}

/// The API group of an `apiVersion` (`""` for the core group).
pub(crate) fn group_of(api_version: &str) -> &str {
    api_version
        .rsplit_once('/')
        .map_or("", |(group, _version)| group)
}

/// True when two groups name the same resources: equal, or the two Calico groups.
pub(crate) fn groups_match(ours: &str, theirs: &str) -> bool {
    const CALICO: [&str; 2] = ["projectcalico.org", "crd.projectcalico.org"];
    ours == theirs || (CALICO.contains(&ours) && CALICO.contains(&theirs))
}

/// Merge our object into the chart's document, by the rule in the module docs.
pub fn merge_object(chart: &Value, ours: &Value) -> Value {
    let mut merged = chart.clone();
    merge_into(&mut merged, ours);
    // The chart's namespace wins: it is the release namespace, where the operator runs.
    if let (Some(namespace), Some(meta)) = (
        chart.pointer("/metadata/namespace").cloned(),
        merged.get_mut("metadata").and_then(Value::as_object_mut),
    ) {
        meta.insert("namespace".to_owned(), namespace);
    }
    merged
}

fn merge_into(target: &mut Value, ours: &Value) {
    match (target, ours) {
        (Value::Object(target), Value::Object(ours)) => {
            for (key, value) in ours {
                match target.get_mut(key) {
                    Some(slot) => merge_into(slot, value),
                    None => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (target, ours) => *target = ours.clone(),
    }
}

/// Our object as added to the stream: a namespaced object follows the operator's namespace.
fn place_added(ours: &Value, operator_namespace: Option<&str>) -> Value {
    let mut object = ours.clone();
    if let (Some(namespace), Some(meta)) = (
        operator_namespace,
        object.get_mut("metadata").and_then(Value::as_object_mut),
    ) && meta.contains_key("namespace")
    {
        meta.insert("namespace".to_owned(), Value::String(namespace.to_owned()));
    }
    object
}

/// YAML text of a JSON value, with the usual Kubernetes key order at the top
/// (`apiVersion`, `kind`, `metadata` with `name` and `namespace` first, `spec`, `data`) and
/// sorted keys elsewhere. Strings YAML 1.1 would misread are quoted.
pub fn value_to_yaml(object: &Value) -> Result<String, String> {
    serialize_yaml(&Ordered::Top(object))
}

/// YAML text of any serializable value with the settings of [`value_to_yaml`].
pub(crate) fn serialize_yaml<T: Serialize>(value: &T) -> Result<String, String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.folded_wrap_chars = usize::MAX;
    options.min_fold_chars = usize::MAX;
    serde_saphyr::to_string_with_options(value, options).map_err(|err| err.to_string())
}

/// Serializes a value with the top-level and `metadata` keys in Kubernetes order.
enum Ordered<'a> {
    Top(&'a Value),
    Metadata(&'a Value),
}

impl Serialize for Ordered<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (value, first): (&Value, &[&str]) = match self {
            Ordered::Top(value) => (value, &["apiVersion", "kind", "metadata", "spec", "data"]),
            Ordered::Metadata(value) => (value, &["name", "namespace"]),
        };
        let Value::Object(map) = value else {
            return value.serialize(serializer);
        };
        let is_top = matches!(self, Ordered::Top(_));
        let mut out = serializer.serialize_map(Some(map.len()))?;
        let entry = |key: &str, value: &Value, out: &mut S::SerializeMap| {
            if is_top && key == "metadata" {
                out.serialize_entry(key, &Ordered::Metadata(value))
            } else {
                out.serialize_entry(key, value)
            }
        };
        for key in first {
            if let Some(value) = map.get(*key) {
                entry(key, value, &mut out)?;
            }
        }
        for (key, value) in map {
            if !first.contains(&key.as_str()) {
                entry(key, value, &mut out)?;
            }
        }
        out.end()
    }
}
