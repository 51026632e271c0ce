//! Parsing input text into documents with spans, so diagnostics can name line and column.
//!
//! serde-saphyr has no untyped value type and no general map from a field path to a source
//! position, so this module walks the YAML parser's events itself (granit-parser, the parser
//! serde-saphyr is built on and re-exports) and builds, for every document of a stream:
//!
//! - the document's untyped [`serde_json::Value`], with scalars resolved the way Kubernetes'
//!   YAML 1.1 reader resolves them (`yes`/`on` are booleans, `6443` is an integer), so that what
//!   we validate is what kubectl would send;
//! - a [`SpanMap`] from every field path (`spec.calicoNetwork.ipPools[0].blockSize`) to the
//!   position of its key and of its value, plus the scalar's quoting style.
//!
//! Hostile input is refused within fixed budgets ([`Limits`]): input size, number of documents,
//! number of nodes (alias expansion included, counted before anything is copied), nesting depth
//! and number of aliases.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{Event, Marker, Options, Parser, ScalarStyle, Span};

use crate::diag::Diagnostic;
use crate::rules::catalogue;

/// Budgets that bound the memory and time spent on one input stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted input, in bytes.
    pub max_bytes: usize,
    /// Largest number of documents in one stream.
    pub max_documents: usize,
    /// Largest number of nodes (scalars, sequences, mappings) in the whole stream, counting every
    /// node an alias expands to.
    pub max_nodes: usize,
    /// Deepest nesting of sequences and mappings.
    pub max_depth: usize,
    /// Largest number of aliases in the whole stream.
    pub max_aliases: usize,
}

impl Limits {
    /// Budgets for hand-written manifests: a few hundred documents at most.
    pub const MANIFESTS: Limits = Limits {
        max_bytes: 16 * 1024 * 1024,
        max_documents: 1024,
        max_nodes: 1_000_000,
        max_depth: 64,
        max_aliases: 10_000,
    };

    /// Budgets for streams other tools write, which may be large: the KRM function's
    /// ResourceList (`calico-render krm` reads its functionConfig with these) and the validate
    /// bench's 10k and 100k pools. Many more documents and nodes, the same depth and alias
    /// limits.
    pub const LARGE_STREAMS: Limits = Limits {
        max_bytes: 256 * 1024 * 1024,
        max_documents: 1_000_000,
        max_nodes: 50_000_000,
        max_depth: 64,
        max_aliases: 10_000,
    };

    /// Budgets for one ClusterNetwork file: far above anything a real description needs (the
    /// largest example has about 60 nodes), so a hostile file is refused early.
    pub const CLUSTER_NETWORK: Limits = Limits {
        max_bytes: 1024 * 1024,
        max_documents: 1024,
        max_nodes: 20_000,
        max_depth: 32,
        max_aliases: 1_000,
    };
}

/// How plain (unquoted) scalars become values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalars {
    /// As Kubernetes' YAML reader resolves them (YAML 1.1: `yes` and `on` are booleans, `6443`
    /// an integer), so that what we validate is what kubectl would send.
    Kubernetes,
    /// Kept as written: only the null spellings (`~`, `null`, nothing) are resolved, every other
    /// plain scalar stays text, and the type that reads the field decides what the text means
    /// (`crate::typed::AsWritten`), with booleans spelled `true` or `false` only. Our own input
    /// kind is read this way, as a typed YAML reader reads a typed struct.
    AsWritten,
}

/// Why a text could not be read as YAML. Its message starts `LINE:COLUMN: `, so that the file
/// name and a colon before it give the `FILE:LINE:COLUMN: message` layout of every diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The text is not YAML: the parser stopped at the given position.
    #[error("{line}:{column}: not valid YAML: {message}")]
    Syntax {
        /// One-based line of the error.
        line: usize,
        /// One-based column of the error.
        column: usize,
        /// The parser's description of the problem.
        message: String,
    },
    /// The text exceeds one of the [`Limits`]; it is refused rather than read.
    #[error(
        "{line}:{column}: input refused: more than {limit} {what}; split the input or simplify it"
    )]
    Budget {
        /// Which budget was exceeded (`bytes`, `documents`, `nodes`, `nesting levels`, `aliases`).
        what: &'static str,
        /// The limit that was exceeded.
        limit: usize,
        /// One-based line where the budget ran out.
        line: usize,
        /// One-based column where the budget ran out.
        column: usize,
    },
}

/// A one-based line and column in the input text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// One-based line.
    pub line: usize,
    /// One-based column, counted in characters.
    pub column: usize,
}

impl Pos {
    fn from_marker(marker: &Marker) -> Pos {
        Pos {
            line: marker.line(),
            column: marker.col() + 1,
        }
    }
}

/// How a scalar was written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quoting {
    /// A plain (unquoted) scalar, subject to YAML 1.1 type resolution.
    Plain,
    /// A single- or double-quoted scalar: always a string.
    Quoted,
    /// A literal (`|`) or folded (`>`) block scalar: always a string.
    Block,
}

/// Where one node of a document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeSpan {
    /// The position of the mapping key, when the node is the value of a mapping entry.
    pub key: Option<Pos>,
    /// The position of the node itself.
    pub value: Pos,
    /// How the node was quoted, when it is a scalar.
    pub quoting: Option<Quoting>,
}

/// A scalar that carries a YAML tag outside the core schema (`!all()` in `nodeSelector: !all()`),
/// which Kubernetes' YAML reader drops, keeping the scalar's text as a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaggedScalar {
    /// The field path of the scalar.
    pub path: String,
    /// The tag as written (`!all()`).
    pub tag: String,
    /// The scalar's text after the tag (empty in `nodeSelector: !all()`).
    pub text: String,
}

impl TaggedScalar {
    /// The diagnostic for this scalar under `rule`: the tag is not part of the value, and the
    /// hint is the quoted form that keeps the text as written.
    pub(crate) fn diagnostic(&self, rule: &catalogue::Rule) -> Diagnostic {
        let written = if self.text.is_empty() {
            self.tag.clone()
        } else {
            format!("{} {}", self.tag, self.text)
        };
        let read = Value::String(self.text.clone());
        Diagnostic {
            severity: rule.severity,
            code: rule.code,
            path: self.path.clone(),
            message: format!(
                "`{written}` is the YAML tag `{}` on the value {read}, not text: the tag is dropped and the field reads {read}",
                self.tag
            ),
            hint: Some(format!("quote it to mean the text: {}", quoted(&written))),
            location: None,
        }
    }
}

/// `text` as a YAML quoted scalar: single quotes unless the text has one, double quotes with
/// JSON's escapes otherwise.
fn quoted(text: &str) -> String {
    if text.contains('\'') {
        Value::String(text.to_owned()).to_string()
    } else {
        format!("'{text}'")
    }
}

/// Field path -> source position, for one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpanMap {
    spans: BTreeMap<String, NodeSpan>,
    tagged: Vec<TaggedScalar>,
    /// The path of this part in its document (`items[3]` for an item of a `List`), empty for a
    /// whole document.
    prefix: String,
}

impl SpanMap {
    /// The span recorded for exactly this path.
    pub fn get(&self, path: &str) -> Option<&NodeSpan> {
        self.spans.get(path)
    }

    /// The position to show for a diagnostic at `path`: the node's value, or, when the path
    /// does not exist in the source (a field the user left out, or one added by defaulting),
    /// the closest ancestor that does.
    /// A mapping or sequence is shown at its key (`calicoNetwork:`) rather than at its first
    /// entry, which is where a collection's content starts.
    pub fn locate(&self, path: &str) -> Option<Pos> {
        let mut current = path;
        loop {
            if let Some(span) = self.spans.get(current) {
                return Some(match span.quoting {
                    Some(_) => span.value,
                    None => span.key.unwrap_or(span.value),
                });
            }
            current = parent_path(current)?;
        }
    }

    /// Where the value at `path` starts (for a mapping or sequence, its first entry), or the
    /// value of the closest ancestor that exists in the source.
    pub fn locate_value(&self, path: &str) -> Option<Pos> {
        let mut current = path;
        loop {
            if let Some(span) = self.spans.get(current) {
                return Some(span.value);
            }
            current = parent_path(current)?;
        }
    }

    /// The position of the key of the field at `path` (falling back like [`SpanMap::locate`]).
    pub fn locate_key(&self, path: &str) -> Option<Pos> {
        match self.spans.get(path) {
            Some(span) => Some(span.key.unwrap_or(span.value)),
            None => self.locate(path),
        }
    }

    /// How the scalar at `path` was quoted, when it is a scalar in the source.
    pub fn quoting(&self, path: &str) -> Option<Quoting> {
        self.spans.get(path).and_then(|span| span.quoting)
    }

    /// The scalars that carry a tag outside the YAML core schema, in document order.
    pub fn tagged(&self) -> &[TaggedScalar] {
        &self.tagged
    }

    /// The spans of the node at `path` (an item of a `List`: `items[3]`), with paths relative
    /// to it and positions in the whole text; [`SpanMap::full_path`] gives a relative path
    /// back its place in the document.
    pub fn scoped(&self, path: &str) -> SpanMap {
        let relative = |full: &str| -> Option<String> {
            let rest = full.strip_prefix(path)?;
            if rest.is_empty() {
                Some(String::new())
            } else if let Some(rest) = rest.strip_prefix('.') {
                Some(rest.to_owned())
            } else {
                rest.starts_with('[').then(|| rest.to_owned())
            }
        };
        let spans = self
            .spans
            .range(path.to_owned()..)
            .take_while(|(key, _)| key.starts_with(path))
            .filter_map(|(key, span)| Some((relative(key)?, *span)))
            .collect();
        let tagged = self
            .tagged
            .iter()
            .filter_map(|tag| {
                Some(TaggedScalar {
                    path: relative(&tag.path)?,
                    ..tag.clone()
                })
            })
            .collect();
        SpanMap {
            spans,
            tagged,
            prefix: self.full_path(path),
        }
    }

    /// `path`, relative to this map's node, as a path in the whole document: itself for a
    /// whole document, `items[3].spec.cidr` for `spec.cidr` in the fourth item of a `List`.
    pub fn full_path(&self, path: &str) -> String {
        match (self.prefix.is_empty(), path.is_empty()) {
            (true, _) => path.to_owned(),
            (false, true) => self.prefix.clone(),
            (false, false) if path.starts_with('[') => format!("{}{path}", self.prefix),
            (false, false) => format!("{}.{path}", self.prefix),
        }
    }

    /// The number of recorded paths.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no path was recorded.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// The parent of a field path: `a.b[0].c` -> `a.b[0]` -> `a.b` -> `a` -> `` (the root).
// Not API: a helper calico-render's chart-values reader shares.
#[doc(hidden)]
pub fn parent_path(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let bytes = path.as_bytes();
    let mut depth = 0usize;
    for (idx, &byte) in bytes.iter().enumerate().rev() {
        match byte {
            b']' => depth += 1,
            b'[' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(&path[..idx]);
                }
            }
            b'.' if depth == 0 => return Some(&path[..idx]),
            _ => {}
        }
    }
    Some("")
}

/// Append a mapping key to a field path: `spec` + `cidr` -> `spec.cidr`. Keys that are not
/// plain identifiers (ConfigMap keys, label names) are written in brackets and quoted:
/// `metadata.labels["app.kubernetes.io/name"]`.
// Not API: a helper calico-render's chart readers share.
#[doc(hidden)]
pub fn join_key(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let mut out = String::with_capacity(parent.len() + key.len() + 5);
    out.push_str(parent);
    if plain {
        if !parent.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    } else {
        out.push('[');
        // JSON string syntax gives one unambiguous escaping for quotes and control characters.
        out.push_str(&Value::String(key.to_owned()).to_string());
        out.push(']');
    }
    out
}

/// Append a sequence index to a field path: `spec.ipPools` + 0 -> `spec.ipPools[0]`.
pub(crate) fn join_index(parent: &str, idx: usize) -> String {
    format!("{parent}[{idx}]")
}

/// One YAML document of a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Zero-based index of the document in the stream (empty documents count too, so the index
    /// matches what a person counts between `---` markers).
    pub index: usize,
    /// The document's content, untyped.
    pub value: Value,
    /// Field path -> source position.
    pub spans: SpanMap,
    /// The line where the document's content starts.
    pub start: Pos,
    /// Problems found while reading the document that do not stop the read (duplicate keys).
    pub problems: Vec<Diagnostic>,
}

impl Document {
    /// The document's root `apiVersion`, when it is a string.
    pub fn api_version(&self) -> Option<&str> {
        self.value.get("apiVersion").and_then(Value::as_str)
    }

    /// The document's root `kind`, when it is a string.
    pub fn kind(&self) -> Option<&str> {
        self.value.get("kind").and_then(Value::as_str)
    }

    /// The document's `metadata.name`, when it is a string.
    pub fn name(&self) -> Option<&str> {
        self.value
            .get("metadata")
            .and_then(|meta| meta.get("name"))
            .and_then(Value::as_str)
    }

    /// Whether the document has no content at all (only comments, or nothing between `---`).
    pub fn is_empty(&self) -> bool {
        self.value.is_null()
    }
}

/// Parse a (multi-document) YAML stream into documents with spans.
///
/// # Errors
/// [`SourceError::Syntax`] when the text is not YAML, [`SourceError::Budget`] when it exceeds
/// `limits`.
pub fn parse_stream(text: &str, limits: &Limits) -> Result<Vec<Document>, SourceError> {
    parse_stream_with(text, limits, Scalars::Kubernetes)
}

/// [`parse_stream`] with a choice of how plain scalars are read.
pub(crate) fn parse_stream_with(
    text: &str,
    limits: &Limits,
    scalars: Scalars,
) -> Result<Vec<Document>, SourceError> {
    if text.len() > limits.max_bytes {
        return Err(SourceError::Budget {
            what: "bytes",
            limit: limits.max_bytes,
            line: 1,
            column: 1,
        });
    }
    let mut options = Options::default();
    // The parser's own nesting guards are a backstop; our depth budget is the real limit.
    options.block_nesting_limit = limits.max_depth.saturating_add(1);
    options.flow_nesting_limit = limits.max_depth.saturating_add(1);
    let parser = Parser::new_from_str_with_options(text, options);
    let mut builder = Builder::new(limits, scalars);
    for event in parser {
        let (event, span) = event.map_err(|err| SourceError::Syntax {
            line: err.marker().line(),
            column: err.marker().col() + 1,
            message: err.info(),
        })?;
        builder.event(event, &span)?;
    }
    Ok(builder.documents)
}

/// One open collection while the document is being built.
enum Frame {
    Seq {
        items: Vec<Value>,
        path: String,
    },
    Map {
        entries: Map<String, Value>,
        path: String,
        /// The key read and waiting for its value: text, position, and whether it is `<<`.
        pending: Option<(String, Pos, bool)>,
        /// Keys brought in by merge keys (`<<`), which explicit keys may override.
        merged: Vec<String>,
    },
}

/// A node anchored with `&name`, kept for later aliases together with its size.
struct Anchored {
    value: Value,
    n_nodes: usize,
}

struct Builder<'a> {
    limits: &'a Limits,
    scalars: Scalars,
    documents: Vec<Document>,
    stack: Vec<Frame>,
    /// Nodes started per anchor id: (anchor id, frame depth, nodes counted when it started).
    open_anchors: Vec<(usize, usize, usize)>,
    anchors: BTreeMap<usize, Anchored>,
    spans: SpanMap,
    problems: Vec<Diagnostic>,
    root: Option<Value>,
    doc_start: Pos,
    n_nodes: usize,
    n_aliases: usize,
}

impl<'a> Builder<'a> {
    fn new(limits: &'a Limits, scalars: Scalars) -> Self {
        Builder {
            limits,
            scalars,
            documents: Vec::new(),
            stack: Vec::new(),
            open_anchors: Vec::new(),
            anchors: BTreeMap::new(),
            spans: SpanMap::default(),
            problems: Vec::new(),
            root: None,
            doc_start: Pos { line: 1, column: 1 },
            n_nodes: 0,
            n_aliases: 0,
        }
    }

    fn budget(&self, what: &'static str, limit: usize, at: Pos) -> SourceError {
        SourceError::Budget {
            what,
            limit,
            line: at.line,
            column: at.column,
        }
    }

    fn count_nodes(&mut self, n: usize, at: Pos) -> Result<(), SourceError> {
        self.n_nodes = self.n_nodes.saturating_add(n);
        if self.n_nodes > self.limits.max_nodes {
            return Err(self.budget("nodes", self.limits.max_nodes, at));
        }
        Ok(())
    }

    fn event(&mut self, event: Event<'_>, span: &Span) -> Result<(), SourceError> {
        let at = Pos::from_marker(&span.start);
        match event {
            Event::DocumentStart(..) => {
                if self.documents.len() >= self.limits.max_documents {
                    return Err(self.budget("documents", self.limits.max_documents, at));
                }
                self.doc_start = at;
            }
            Event::DocumentEnd => {
                let value = self.root.take().unwrap_or(Value::Null);
                self.anchors.clear();
                self.documents.push(Document {
                    index: self.documents.len(),
                    value,
                    spans: std::mem::take(&mut self.spans),
                    start: self.doc_start,
                    problems: std::mem::take(&mut self.problems),
                });
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count_nodes(1, at)?;
                let is_key = matches!(self.stack.last(), Some(Frame::Map { pending: None, .. }));
                if is_key {
                    let merge = style == ScalarStyle::Plain && text == "<<";
                    if let Some(Frame::Map { pending, .. }) = self.stack.last_mut() {
                        *pending = Some((text.into_owned(), at, merge));
                    }
                    return Ok(());
                }
                let quoting = match style {
                    ScalarStyle::Plain => Quoting::Plain,
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => Quoting::Quoted,
                    _ => Quoting::Block,
                };
                // go-yaml v2 resolves only untagged scalars and the core tags; a scalar with any
                // other tag (`!all()`, or `!` alone) is the string it was written as.
                let forced_string = tag.as_ref().is_some_and(|tag| {
                    !tag.is_yaml_core_schema() || tag.core_suffix() == Some("str")
                });
                // The non-specific tag `!` alone is YAML's own way to say "a string"; it is not
                // recorded.
                if let Some(tag) = tag.as_ref().filter(|tag| !tag.is_yaml_core_schema()) {
                    let written = format!("{}{}", tag.original_handle(), tag.suffix());
                    if written != "!" {
                        let (path, _) = self.next_path();
                        self.spans.tagged.push(TaggedScalar {
                            path,
                            tag: written,
                            text: text.clone().into_owned(),
                        });
                    }
                }
                let value = if quoting == Quoting::Plain && !forced_string {
                    match self.scalars {
                        Scalars::Kubernetes => resolve_plain(&text),
                        Scalars::AsWritten if is_null(&text) => Value::Null,
                        Scalars::AsWritten => Value::String(text.into_owned()),
                    }
                } else {
                    Value::String(text.into_owned())
                };
                if anchor != 0 {
                    self.anchors.insert(
                        anchor,
                        Anchored {
                            value: value.clone(),
                            n_nodes: 1,
                        },
                    );
                }
                self.place(value, at, Some(quoting));
            }
            Event::Alias(anchor) => {
                self.n_aliases += 1;
                if self.n_aliases > self.limits.max_aliases {
                    return Err(self.budget("aliases", self.limits.max_aliases, at));
                }
                let n_nodes = self
                    .anchors
                    .get(&anchor)
                    .map_or(1, |anchored| anchored.n_nodes);
                // The expansion is counted before it is copied, so an alias bomb is refused
                // before it can allocate anything.
                self.count_nodes(n_nodes, at)?;
                let value = self
                    .anchors
                    .get(&anchor)
                    .map_or(Value::Null, |anchored| anchored.value.clone());
                let is_key = matches!(self.stack.last(), Some(Frame::Map { pending: None, .. }));
                if is_key {
                    let key = scalar_key(&value);
                    if let Some(Frame::Map { pending, .. }) = self.stack.last_mut() {
                        *pending = Some((key, at, false));
                    }
                    return Ok(());
                }
                self.place(value, at, None);
            }
            Event::SequenceStart(_, anchor, _) => {
                self.count_nodes(1, at)?;
                let path = self.child_path(at);
                self.open(
                    Frame::Seq {
                        items: Vec::new(),
                        path,
                    },
                    anchor,
                    at,
                )?;
            }
            Event::MappingStart(_, anchor, _) => {
                self.count_nodes(1, at)?;
                let path = self.child_path(at);
                self.open(
                    Frame::Map {
                        entries: Map::new(),
                        path,
                        pending: None,
                        merged: Vec::new(),
                    },
                    anchor,
                    at,
                )?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Ok(());
                };
                let value = match frame {
                    Frame::Seq { items, .. } => Value::Array(items),
                    Frame::Map { entries, .. } => Value::Object(entries),
                };
                if let Some(&(anchor, depth, started)) = self.open_anchors.last()
                    && depth == self.stack.len()
                {
                    self.open_anchors.pop();
                    self.anchors.insert(
                        anchor,
                        Anchored {
                            value: value.clone(),
                            n_nodes: self.n_nodes - started + 1,
                        },
                    );
                }
                // The span of the collection itself was recorded when it started; `place`
                // must not record it again with the end position.
                self.attach(value);
            }
            _ => {}
        }
        Ok(())
    }

    /// The path the next node gets, and records the key/value span of a collection start.
    fn child_path(&mut self, at: Pos) -> String {
        let (path, key_pos) = self.next_path();
        self.spans.spans.insert(
            path.clone(),
            NodeSpan {
                key: key_pos,
                value: at,
                quoting: None,
            },
        );
        path
    }

    fn open(&mut self, frame: Frame, anchor: usize, at: Pos) -> Result<(), SourceError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.budget("nesting levels", self.limits.max_depth, at));
        }
        if anchor != 0 {
            self.open_anchors
                .push((anchor, self.stack.len(), self.n_nodes));
        }
        self.stack.push(frame);
        Ok(())
    }

    /// The path of the node about to be placed, and the position of its key if it has one.
    fn next_path(&self) -> (String, Option<Pos>) {
        match self.stack.last() {
            None => (String::new(), None),
            Some(Frame::Seq { items, path }) => (join_index(path, items.len()), None),
            Some(Frame::Map { path, pending, .. }) => match pending {
                Some((key, pos, false)) => (join_key(path, key), Some(*pos)),
                // Values under a merge key are not fields of their own; their entries land in
                // the parent mapping without spans, and diagnostics fall back to the parent.
                Some((_, pos, true)) => (join_key(path, "<<"), Some(*pos)),
                None => (path.clone(), None),
            },
        }
    }

    /// Record the span of a scalar or alias and attach it to its parent.
    fn place(&mut self, value: Value, at: Pos, quoting: Option<Quoting>) {
        let (path, key_pos) = self.next_path();
        self.spans.spans.insert(
            path,
            NodeSpan {
                key: key_pos,
                value: at,
                quoting,
            },
        );
        self.attach(value);
    }

    /// Attach a finished node to its parent collection (or make it the document root).
    fn attach(&mut self, value: Value) {
        let mut duplicate: Option<(String, String, Pos)> = None;
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(Frame::Seq { items, .. }) => items.push(value),
            Some(Frame::Map {
                entries,
                path,
                pending,
                merged,
            }) => {
                let Some((key, key_pos, merge)) = pending.take() else {
                    return;
                };
                if merge {
                    merge_into(entries, merged, value);
                } else if let Some(merged_idx) = merged.iter().position(|m| *m == key) {
                    // An explicit key overrides a key brought in by `<<`, as YAML specifies.
                    merged.swap_remove(merged_idx);
                    entries.insert(key, value);
                } else if entries.contains_key(&key) {
                    duplicate = Some((join_key(path, &key), key, key_pos));
                } else {
                    entries.insert(key, value);
                }
            }
        }
        if let Some((path, key, pos)) = duplicate {
            // kubectl refuses a duplicated field; we keep the first value and report the second.
            self.problems.push(Diagnostic {
                severity: catalogue::DUPLICATE_KEY.severity,
                code: catalogue::DUPLICATE_KEY.code,
                message: format!(
                    "key `{key}` appears more than once in the same mapping (line {})",
                    pos.line
                ),
                path,
                hint: Some("remove one of the entries; kubectl rejects duplicated fields".into()),
                location: None,
            });
        }
    }
}

/// Apply a merge key's value (a mapping or a sequence of mappings) to a mapping under
/// construction: keys already present win.
fn merge_into(entries: &mut Map<String, Value>, merged: &mut Vec<String>, value: Value) {
    let sources = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    for source in sources {
        if let Value::Object(map) = source {
            for (key, value) in map {
                if !entries.contains_key(&key) {
                    merged.push(key.clone());
                    entries.insert(key, value);
                }
            }
        }
    }
}

/// The string form of a key given by an alias.
fn scalar_key(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Resolve a plain scalar the way Kubernetes' YAML reader (go-yaml v2, YAML 1.1 rules) does:
/// null, booleans including `yes`/`no`/`on`/`off`/`y`/`n`, integers, floats, otherwise a string.
pub(crate) fn resolve_plain(text: &str) -> Value {
    if is_null(text) {
        return Value::Null;
    }
    match text {
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "y" | "Y" => {
            return Value::Bool(true);
        }
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "n" | "N" => {
            return Value::Bool(false);
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => {
            // JSON has no infinities or NaN; keep the text so type checks report it.
            return Value::String(text.to_owned());
        }
        _ => {}
    }
    if let Some(number) = resolve_int(text) {
        return Value::Number(number);
    }
    if looks_like_float(text)
        && let Ok(float) = text.parse::<f64>()
        && let Some(number) = Number::from_f64(float)
    {
        return Value::Number(number);
    }
    Value::String(text.to_owned())
}

/// The plain spellings of null, in YAML 1.1 and 1.2 alike.
fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// A plain scalar read as an integer the way [`resolve_plain`] reads it (`6443`, `0x1F`,
/// `0o17`, `1_000`, a leading zero for octal), or `None` when it is not one.
pub(crate) fn resolve_int(text: &str) -> Option<Number> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    // Every plain scalar comes here (names and CIDRs too): copied only when it has a `_`.
    let digits: std::borrow::Cow<'_, str> = if digits.contains('_') {
        digits.replace('_', "").into()
    } else {
        digits.into()
    };
    if digits.is_empty() {
        return None;
    }
    let (radix, body) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex)
    } else if let Some(bin) = digits.strip_prefix("0b") {
        (2, bin)
    } else if let Some(oct) = digits.strip_prefix("0o") {
        (8, oct)
    } else if digits.len() > 1
        && let Some(oct) = digits.strip_prefix('0')
    {
        // YAML 1.1 reads a leading zero as octal (`0755`).
        (8, oct)
    } else {
        (10, &*digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(body, radix).ok()?;
    if negative {
        let signed = i64::try_from(magnitude).ok()?;
        Some(Number::from(-signed))
    } else {
        Some(Number::from(magnitude))
    }
}

/// go-yaml v2's float pattern: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn looks_like_float(text: &str) -> bool {
    let bytes = text.strip_prefix(['-', '+']).unwrap_or(text).as_bytes();
    let digits = |from: usize| {
        bytes
            .iter()
            .skip(from)
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let mut idx = digits(0);
    if idx == 0 {
        if bytes.first() != Some(&b'.') || digits(1) == 0 {
            return false;
        }
        idx = 1 + digits(1);
    } else if bytes.get(idx) == Some(&b'.') {
        idx += 1 + digits(idx + 1);
    }
    if matches!(bytes.get(idx), Some(b'e' | b'E')) {
        idx += 1;
        if matches!(bytes.get(idx), Some(b'-' | b'+')) {
            idx += 1;
        }
        let n_exp = digits(idx);
        if n_exp == 0 {
            return false;
        }
        idx += n_exp;
    }
    idx == bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Document> {
        parse_stream(text, &Limits::MANIFESTS).expect("test input is valid YAML")
    }

    #[test]
    fn paths_map_to_lines_and_columns() {
        let docs = parse(
            "apiVersion: v1\nkind: X\nspec:\n  ipPools:\n  - cidr: 10.0.0.0/16\n    blockSize: 26\n",
        );
        let spans = &docs[0].spans;
        let check = |path: &str, line: usize, column: usize| {
            assert_eq!(spans.locate(path), Some(Pos { line, column }), "{path}");
        };
        check("apiVersion", 1, 13);
        check("spec.ipPools[0].cidr", 5, 11);
        check("spec.ipPools[0].blockSize", 6, 16);
        check("spec.ipPools[0]", 5, 5);
        check("spec.ipPools[0].missing", 5, 5);
        check("spec.ipPools", 4, 3);
        assert_eq!(
            spans.locate_key("spec.ipPools[0].blockSize"),
            Some(Pos { line: 6, column: 5 })
        );
    }

    #[test]
    fn scalars_resolve_like_kubectl() {
        let check =
            |text: &str, expected: Value| assert_eq!(resolve_plain(text), expected, "{text}");
        check("6443", Value::from(6443));
        check("-5", Value::from(-5));
        check("0x1F", Value::from(31));
        check("-0x10", Value::from(-16));
        // YAML 1.1: `_` separates digits, a leading zero is octal (7*64 + 5*8 + 5).
        check("1_000", Value::from(1000));
        check("0755", Value::from(493));
        check("0o17", Value::from(15));
        check("0b101", Value::from(5));
        check("0", Value::from(0));
        check("yes", Value::Bool(true));
        check("off", Value::Bool(false));
        check("~", Value::Null);
        check("1.5", Value::from(1.5));
        check("1e3", Value::from(1000.0));
        check("1.", Value::from(1.0));
        check("1.2.3", Value::String("1.2.3".into()));
        check("10.0.0.1", Value::String("10.0.0.1".into()));
        check("all()", Value::String("all()".into()));
        check("26s", Value::String("26s".into()));
    }

    #[test]
    fn quoting_is_recorded() {
        let docs = parse("data:\n  a: 6443\n  b: \"6443\"\n  c: |\n    x\n");
        assert_eq!(docs[0].spans.quoting("data.a"), Some(Quoting::Plain));
        assert_eq!(docs[0].spans.quoting("data.b"), Some(Quoting::Quoted));
        assert_eq!(docs[0].spans.quoting("data.c"), Some(Quoting::Block));
        assert_eq!(docs[0].value["data"]["a"], Value::from(6443));
        assert_eq!(docs[0].value["data"]["b"], Value::from("6443"));
    }

    #[test]
    fn documents_keep_their_index() {
        let docs = parse("a: 1\n---\n# only a comment\n---\nb: 2\n");
        assert_eq!(docs.len(), 3);
        assert!(docs[1].is_empty());
        assert_eq!(docs[2].value["b"], Value::from(2));
        assert_eq!(docs[2].spans.locate("b"), Some(Pos { line: 5, column: 4 }));
    }

    #[test]
    fn duplicate_keys_are_reported() {
        let docs = parse("a: 1\na: 2\n");
        assert_eq!(docs[0].problems.len(), 1);
        assert_eq!(docs[0].problems[0].code, catalogue::DUPLICATE_KEY.code);
        assert_eq!(docs[0].value["a"], Value::from(1));
    }

    #[test]
    fn tagged_scalars_are_strings_and_recorded() {
        let docs = parse(concat!(
            "spec:\n",
            "  nodeSelector: !all()\n",
            "  other: !has(x) == 'y'\n",
            "  port: !port 179\n",
            "  kept: !!str 12\n",
            "  int: !!int 12\n",
            "  plain: ! 12\n",
        ));
        let spec = &docs[0].value["spec"];
        // go-yaml v2 (kubectl) keeps a scalar with a tag outside the core schema as its text.
        assert_eq!(spec["nodeSelector"], Value::from(""));
        assert_eq!(spec["other"], Value::from("== 'y'"));
        assert_eq!(spec["port"], Value::from("179"));
        assert_eq!(spec["kept"], Value::from("12"));
        assert_eq!(spec["int"], Value::from(12));
        assert_eq!(spec["plain"], Value::from("12"));
        let tagged: Vec<(&str, &str, &str)> = docs[0]
            .spans
            .tagged()
            .iter()
            .map(|t| (t.path.as_str(), t.tag.as_str(), t.text.as_str()))
            .collect();
        assert_eq!(
            tagged,
            [
                ("spec.nodeSelector", "!all()", ""),
                ("spec.other", "!has(x)", "== 'y'"),
                ("spec.port", "!port", "179"),
            ]
        );
        let diag = docs[0].spans.tagged()[0].diagnostic(&catalogue::YAML_TAG);
        assert_eq!(
            diag.hint.as_deref(),
            Some("quote it to mean the text: '!all()'")
        );
        let diag = docs[0].spans.tagged()[1].diagnostic(&catalogue::YAML_TAG);
        assert_eq!(
            diag.hint.as_deref(),
            Some("quote it to mean the text: \"!has(x) == 'y'\"")
        );
    }

    #[test]
    fn aliases_and_merge_keys_expand() {
        let docs = parse("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\ncopy: *b\n");
        assert_eq!(docs[0].value["other"], serde_json::json!({"x": 1, "y": 3}));
        assert_eq!(docs[0].value["copy"], serde_json::json!({"x": 1, "y": 2}));
        assert!(docs[0].problems.is_empty());
    }

    #[test]
    fn hostile_input_is_refused() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..12 {
            let prev = (b'a' + level - 1) as char;
            let name = (b'a' + level) as char;
            bomb.push_str(&format!(
                "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        let err = parse_stream(&bomb, &Limits::MANIFESTS).unwrap_err();
        assert!(
            matches!(err, SourceError::Budget { what: "nodes", .. }),
            "{err}"
        );

        let deep = "[".repeat(10_000);
        let err = parse_stream(&deep, &Limits::MANIFESTS).unwrap_err();
        assert!(
            matches!(err, SourceError::Budget { .. } | SourceError::Syntax { .. }),
            "{err}"
        );
        let nested: String = (0..200)
            .map(|depth| format!("{}k:\n", " ".repeat(depth)))
            .collect();
        let err = parse_stream(&nested, &Limits::MANIFESTS).unwrap_err();
        assert!(
            matches!(err, SourceError::Budget { .. } | SourceError::Syntax { .. }),
            "{err}"
        );

        let many_docs = "a: 1\n---\n".repeat(2000);
        let err = parse_stream(&many_docs, &Limits::MANIFESTS).unwrap_err();
        assert!(
            matches!(
                err,
                SourceError::Budget {
                    what: "documents",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn syntax_errors_carry_positions() {
        let err = parse_stream("a: [1, 2\nb: 3\n", &Limits::MANIFESTS).unwrap_err();
        assert!(
            matches!(err, SourceError::Syntax { line: 2.., .. }),
            "{err}"
        );
    }

    #[test]
    fn parent_paths() {
        assert_eq!(parent_path("a.b[0].c"), Some("a.b[0]"));
        assert_eq!(parent_path("a.b[0]"), Some("a.b"));
        assert_eq!(parent_path("data[\"a.b\"]"), Some("data"));
        assert_eq!(parent_path("a"), Some(""));
        assert_eq!(parent_path(""), None);
        assert_eq!(
            join_key("data", "KUBERNETES_SERVICE_PORT"),
            "data.KUBERNETES_SERVICE_PORT"
        );
        assert_eq!(join_key("labels", "a.b/c"), "labels[\"a.b/c\"]");
    }
}
