//! Helm post-renderer: put our objects into a rendered chart stream and pass everything else
//! through byte for byte.
//!
//! Chart documents are matched to our objects and merged by the rule in [`crate::merge`]. A
//! merged document keeps its place in the stream, its `---` line and the comments before its
//! first key (Helm's `# Source:` line); it is then written fresh from the merged object. A list
//! document with an item of ours is written again around it: in the plain block style only
//! those items' lines change, otherwise the whole list is written from its parsed value; a list
//! with no item of ours passes through byte for byte. Our objects the chart does not render are
//! appended at the end, in bundle order.
//!
//! # Validity and memory
//! The merged objects are checked (by the caller's [`Finish`], [`crate::merge::Checked`] in the
//! CLI) before one byte is written: if they are invalid, nothing reaches the output. To know that, the whole stream has to be read
//! first, since the chart's Installation may come last. The stream is therefore spooled: its
//! first [`Options::spool_memory`] bytes in memory, the rest in an anonymous temporary file,
//! and scanned on the way in ([`crate::scan`]). Only documents that may be ours, and documents
//! the scan cannot read, are parsed. Memory stays flat whatever the stream size: the spool
//! buffer, the read buffer, the parsed documents that are ours.
//!
//! # Throughput
//! One loop reads the input into a [`LineBuffer`], appends each read to the spool and scans the
//! whole lines it completed, passing over the lines it does not need in bulk. The output gets
//! large writes only, the file part through [`io::copy`] from the file to the output, which the
//! standard library turns into `sendfile` or `splice` when the output is a pipe or a file (no
//! copy through our memory).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

use calico_spec::diag::{Diagnostic, Severity};
use serde_json::Value;

use crate::merge::{self, Finish, Head, Matcher, Refused};
use crate::scan::{LineBuffer, Scanned, StreamScanner};

/// Tuning knobs (the defaults suit Helm).
#[derive(Debug, Clone)]
pub struct Options {
    /// Bytes at the start of the stream kept in memory; the rest goes to a temporary file.
    /// Memory use is bounded by this plus [`Options::read_buffer`], whatever the stream size.
    pub spool_memory: usize,
    /// Size of the line buffer the input is read into (and scanned from) at a time. A line
    /// longer than this is scanned from its first bytes, so its document goes to the real
    /// parser; lines are still copied whole.
    pub read_buffer: usize,
}

impl Default for Options {
    fn default() -> Self {
        // 8 MiB in memory holds a whole real chart (about 1 MB) with room to spare and keeps
        // the peak under 20 MiB on any stream; 1 MiB reads keep syscalls rare while the buffer
        // still fits in a second-level cache.
        Options {
            spool_memory: 8 << 20,
            read_buffer: 1 << 20,
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
    #[error(
        "document {} of the rendered chart (line {line}) is not valid YAML: {message}",
        document + 1
    )]
    NotYaml {
        /// Zero-based document index in the stream (the message counts from 1).
        document: usize,
        /// One-based line of the problem in the stream.
        line: usize,
        /// One-based column of the problem (1 when the parser gave none).
        column: usize,
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

/// A chart document that matches one of our objects, or a list document with an item that
/// does.
#[derive(Debug)]
struct Matched {
    /// The chart document (the whole list, for an item).
    scanned: Scanned,
    /// The chart object ours merges into (the item, for a list).
    value: Value,
    /// Whether the document text ends with a `...` marker, which must follow our text too so
    /// that a bare document after it stays separate.
    ends_with_marker: bool,
    /// For an item of a list document: its index in `items`, and the whole list as parsed.
    item: Option<(usize, std::rc::Rc<Value>)>,
}

/// Post-render `input` into `output`: see the module docs for the rule.
///
/// `ours` are our objects in bundle order, as JSON values (`apiVersion`, `kind`, `metadata`
/// ...). Nothing is written unless the result is valid.
///
/// The output gets large writes only; when it is a `File` (a pipe or a regular file, bare or in a `BufWriter`)
/// or standard output, most of the bytes go to it without passing through our memory.
pub fn post_render<R, W>(
    input: &mut R,
    output: &mut W,
    ours: &[Value],
    finish: &dyn Finish,
    options: &Options,
) -> Result<Summary, PostRenderError>
where
    R: Read + ?Sized,
    W: Write + ?Sized,
{
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

    let chart: Vec<Option<&Value>> = matched
        .iter()
        .map(|hit| hit.as_ref().map(|hit| &hit.value))
        .collect();
    let merged = merge::merged(ours, &chart, operator_namespace.as_deref());
    let finished = merge::finish(&merged, finish).map_err(|refused| match refused {
        Refused::Invalid(found) => PostRenderError::Invalid {
            diagnostics: found.into_iter().map(|(_, diag)| diag).collect(),
        },
        Refused::Emit {
            kind,
            name,
            message,
        } => PostRenderError::Emit {
            kind,
            name,
            message,
        },
    })?;
    let texts = finished.texts;
    if texts.is_empty() && spool.is_blank() {
        return Err(PostRenderError::Empty);
    }

    let summary = Summary {
        objects: merged
            .iter()
            .zip(&matched)
            .map(|(object, hit)| {
                let head = Head::of(object);
                (
                    head.kind.to_owned(),
                    head.name.to_owned(),
                    match hit {
                        Some(hit) => Placement::Merged {
                            line: hit.scanned.line,
                        },
                        None => Placement::Appended,
                    },
                )
            })
            .collect(),
        warnings: finished
            .warnings
            .into_iter()
            .map(|(_, diag)| diag)
            .collect(),
        documents,
        parsed_fallback,
        bytes: spool.len,
    };
    write_result(&mut spool, output, &matched, &texts)?;
    Ok(summary)
}

/// Second pass: copy the spool, replacing matched documents, then append the rest.
fn write_result<W: Write + ?Sized>(
    spool: &mut Spool,
    output: &mut W,
    matched: &[Option<Matched>],
    texts: &[String],
) -> Result<(), PostRenderError> {
    let mut replaced: Vec<(&Matched, &str)> = matched
        .iter()
        .zip(texts)
        .filter_map(|(hit, text)| hit.as_ref().map(|hit| (hit, text.as_str())))
        .collect();
    replaced.sort_by_key(|(hit, _)| (hit.scanned.start, hit.item.as_ref().map(|item| item.0)));

    let mut out = Out::new(output);
    let mut pos = 0u64;
    let mut rest = &replaced[..];
    while let Some(&(hit, text)) = rest.first() {
        let doc = &hit.scanned;
        // The items of one list document that are ours come together: one text for them all.
        let group = rest
            .iter()
            .take_while(|(other, _)| other.scanned.start == doc.start)
            .count();
        let (items, after) = rest.split_at(group);
        rest = after;
        let list_text;
        let text = match &hit.item {
            None => text.as_bytes(),
            Some((_, list)) => {
                let body = spool.read_range(doc.content_start.unwrap_or(doc.start), doc.end)?;
                let replacements: Vec<(usize, &str)> = items
                    .iter()
                    .filter_map(|(hit, text)| hit.item.as_ref().map(|item| (item.0, *text)))
                    .collect();
                list_text = merge::list_with_items(&body, list, &replacements).map_err(|err| {
                    let head = Head::of(list);
                    PostRenderError::Emit {
                        kind: head.kind.to_owned(),
                        name: head.name.to_owned(),
                        message: err.to_string(),
                    }
                })?;
                list_text.as_slice()
            }
        };
        spool.copy_range(pos, doc.start, &mut out)?;
        let content_start = doc.content_start.unwrap_or(doc.start);
        let preamble = spool.read_range(doc.start, content_start)?;
        if doc.index > 0 && !starts_with_document_marker(&preamble) {
            out.bytes(b"---\n")?;
        }
        out.bytes(&preamble)?;
        if !preamble.is_empty() && !preamble.ends_with(b"\n") {
            out.bytes(b"\n")?;
        }
        out.bytes(text)?;
        if hit.ends_with_marker {
            out.bytes(b"...\n")?;
        }
        pos = doc.end;
    }
    spool.copy_range(pos, spool.len, &mut out)?;
    for (hit, text) in matched.iter().zip(texts) {
        if hit.is_some() {
            continue;
        }
        if !out.at_line_start() {
            out.bytes(b"\n")?;
        }
        if out.written {
            out.bytes(b"---\n")?;
        }
        out.bytes(text.as_bytes())?;
    }
    out.inner.flush().map_err(PostRenderError::Write)
}

fn starts_with_document_marker(text: &[u8]) -> bool {
    text.starts_with(b"---") && matches!(text.get(3), None | Some(b'\n' | b'\r' | b' ' | b'\t'))
}

/// The output, remembering whether anything was written and whether it ended a line. Not a
/// `Write` wrapper on purpose: [`Spool::copy_range`] hands the bare output to [`io::copy`], so
/// that the standard library can see its type and copy between file descriptors.
struct Out<'a, W: ?Sized> {
    inner: &'a mut W,
    written: bool,
    last: u8,
}

impl<'a, W: Write + ?Sized> Out<'a, W> {
    fn new(inner: &'a mut W) -> Self {
        Out {
            inner,
            written: false,
            last: b'\n',
        }
    }

    fn at_line_start(&self) -> bool {
        self.last == b'\n'
    }

    fn bytes(&mut self, bytes: &[u8]) -> Result<(), PostRenderError> {
        let Some(&last) = bytes.last() else {
            return Ok(());
        };
        self.inner
            .write_all(bytes)
            .map_err(PostRenderError::Write)?;
        self.written = true;
        self.last = last;
        Ok(())
    }
}

/// The input as read so far: its first bytes in memory, the rest (past the memory limit) in an
/// anonymous temporary file.
struct Spool {
    /// The first `memory.len()` bytes of the stream (all of them while `file` is `None`).
    memory: Vec<u8>,
    /// The bytes from `memory.len()` on; the file's offset 0 is stream offset `memory.len()`.
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

    /// Add the next bytes of the stream: to memory while there is room, then to the file.
    fn append(&mut self, bytes: &[u8]) -> Result<(), PostRenderError> {
        let room = self.limit.saturating_sub(self.memory.len());
        let (to_memory, to_file) = bytes.split_at(room.min(bytes.len()));
        if self.memory.capacity() == 0 {
            // Address space only until bytes land in it, so a small chart costs little, and
            // the memory part is never copied to grow.
            self.memory.reserve_exact(self.limit);
        }
        self.memory.extend_from_slice(to_memory);
        if !to_file.is_empty() {
            let file = match &mut self.file {
                Some(file) => file,
                // Anonymous: removed by the OS when we exit, never visible by name.
                None => self
                    .file
                    .insert(tempfile::tempfile().map_err(PostRenderError::Read)?),
            };
            file.write_all(to_file).map_err(PostRenderError::Read)?;
        }
        if self.blank && !bytes.iter().all(u8::is_ascii_whitespace) {
            self.blank = false;
        }
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// The stream offset where the file part starts.
    fn memory_end(&self) -> u64 {
        self.memory.len() as u64
    }

    fn read_range(&self, start: u64, end: u64) -> Result<Vec<u8>, PostRenderError> {
        let split = self.memory_end();
        let mut bytes = Vec::with_capacity((end - start) as usize);
        if start < split {
            bytes.extend_from_slice(self.memory_part(start, end)?);
        }
        if end > split {
            let from = start.max(split);
            let have = bytes.len();
            bytes.resize(have + (end - from) as usize, 0);
            self.file_part()?
                .read_exact_at(bytes.get_mut(have..).unwrap_or_default(), from - split)
                .map_err(PostRenderError::Read)?;
        }
        Ok(bytes)
    }

    /// The part of `start..end` held in memory (`start` is below [`Spool::memory_end`]).
    fn memory_part(&self, start: u64, end: u64) -> Result<&[u8], PostRenderError> {
        let end = end.min(self.memory_end());
        self.memory
            .get(start as usize..end as usize)
            .ok_or_else(|| {
                PostRenderError::Read(io::Error::other(
                    "a spooled range lies outside the stream read",
                ))
            })
    }

    fn file_part(&self) -> Result<&File, PostRenderError> {
        self.file.as_ref().ok_or_else(|| {
            PostRenderError::Read(io::Error::other(
                "a spooled range lies past the end of the stream",
            ))
        })
    }

    fn copy_range<W: Write + ?Sized>(
        &mut self,
        start: u64,
        end: u64,
        out: &mut Out<'_, W>,
    ) -> Result<(), PostRenderError> {
        if start >= end {
            return Ok(());
        }
        let split = self.memory_end();
        if start < split {
            out.bytes(self.memory_part(start, end)?)?;
        }
        if end > split {
            let from = start.max(split);
            let mut file = self.file_part()?;
            file.seek(SeekFrom::Start(from - split))
                .map_err(PostRenderError::Read)?;
            // Flush what `out` buffered (std does so too before copying between descriptors);
            // `io::copy` may then move the bytes with `sendfile`/`splice`. Its errors are the
            // output's in practice: the spool file is ours and already complete.
            let copied =
                io::copy(&mut file.take(end - from), out.inner).map_err(PostRenderError::Write)?;
            if copied != end - from {
                return Err(PostRenderError::Read(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the spool file is shorter than the stream read",
                )));
            }
            let mut last = [0u8];
            file.read_exact_at(&mut last, end - 1 - split)
                .map_err(PostRenderError::Read)?;
            out.written = true;
            out.last = last[0];
        }
        Ok(())
    }
}

/// First-pass state: what the scan found that matters.
struct FirstPass<'a> {
    matcher: Matcher<'a>,
    matched: Vec<Option<Matched>>,
    operator_namespace: Option<String>,
    documents: usize,
    parsed_fallback: usize,
}

impl<'a> FirstPass<'a> {
    fn new(ours: &'a [Value]) -> Self {
        FirstPass {
            matcher: Matcher::new(ours),
            matched: ours.iter().map(|_| None).collect(),
            operator_namespace: None,
            documents: 0,
            parsed_fallback: 0,
        }
    }

    /// The kinds whose names matter: ours, and the Deployment that tells the operator's
    /// namespace.
    fn kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = self.matcher.kinds().map(str::to_owned).collect();
        kinds.push("Deployment".to_owned());
        kinds
    }

    fn interesting_kind(&self, kind: &str) -> bool {
        kind == "Deployment" || self.matcher.is_our_kind(kind)
    }

    /// Look at one scanned document.
    fn document(&mut self, doc: Scanned, spool: &Spool) -> Result<(), PostRenderError> {
        self.documents += 1;
        if doc.is_empty() {
            return Ok(());
        }
        let parsed = if doc.needs_parse() {
            self.parsed_fallback += 1;
            Some(parse_document(&doc, spool)?)
        } else {
            let kind = doc.head.kind.as_plain().unwrap_or_default();
            // Most documents of a chart stop here (their kind is not even reported).
            if !self.interesting_kind(kind) && !merge::is_list_kind(kind) {
                return Ok(());
            }
            if merge::is_list_kind(kind)
                || doc.head.name.is_unclear()
                || doc.head.namespace.is_unclear()
            {
                Some(parse_document(&doc, spool)?)
            } else {
                None
            }
        };
        if let Some(list) = &parsed
            && let Some(items) = merge::list_items(list)
        {
            return self.list_document(doc, list, items, spool);
        }
        let head = match &parsed {
            Some(value) => Head::of(value),
            None => Head {
                api_version: doc.head.api_version.as_plain().unwrap_or_default(),
                kind: doc.head.kind.as_plain().unwrap_or_default(),
                name: doc.head.name.as_plain().unwrap_or_default(),
                namespace: doc.head.namespace.as_plain().unwrap_or_default(),
            },
        };
        self.note_operator(&head);
        let Some(our_idx) = self.matcher.claim(&head, doc.line).map_err(duplicate)? else {
            return Ok(());
        };
        let value = match parsed {
            Some(value) => value,
            None => parse_document(&doc, spool)?,
        };
        let ends_with_marker = ends_with_marker(&spool.read_range(doc.start, doc.end)?);
        #[expect(
            clippy::indexing_slicing,
            reason = "the matcher claims positions in our objects, which `matched` has one slot each for"
        )]
        let slot = &mut self.matched[our_idx];
        *slot = Some(Matched {
            scanned: doc,
            value,
            ends_with_marker,
            item: None,
        });
        Ok(())
    }

    /// A list document: each item is matched as a document would be. The document passes
    /// through untouched unless an item is ours; then each such item is merged like a document,
    /// and the list is written again around them.
    fn list_document(
        &mut self,
        doc: Scanned,
        list: &Value,
        items: &[Value],
        spool: &Spool,
    ) -> Result<(), PostRenderError> {
        let mut hits = Vec::new();
        for (item_idx, item) in items.iter().enumerate() {
            let head = Head::of(item);
            self.note_operator(&head);
            if let Some(our_idx) = self.matcher.claim(&head, doc.line).map_err(duplicate)? {
                hits.push((item_idx, item, our_idx));
            }
        }
        if hits.is_empty() {
            return Ok(());
        }
        let ends_with_marker = ends_with_marker(&spool.read_range(doc.start, doc.end)?);
        let shared = std::rc::Rc::new(list.clone());
        for (item_idx, item, our_idx) in hits {
            #[expect(
                clippy::indexing_slicing,
                reason = "the matcher claims positions in our objects, which `matched` has one slot each for"
            )]
            let slot = &mut self.matched[our_idx];
            *slot = Some(Matched {
                scanned: doc.clone(),
                value: item.clone(),

                ends_with_marker,
                item: Some((item_idx, shared.clone())),
            });
        }
        Ok(())
    }

    /// Remember the namespace of the chart's operator Deployment (the release namespace).
    fn note_operator(&mut self, head: &Head<'_>) {
        if self.operator_namespace.is_none() {
            self.operator_namespace = head.operator_namespace().map(str::to_owned);
        }
    }

    /// Look at each document in `done`, emptying it.
    fn documents(&mut self, done: &mut Vec<Scanned>, spool: &Spool) -> Result<(), PostRenderError> {
        for doc in done.drain(..) {
            self.document(doc, spool)?;
        }
        Ok(())
    }
}

/// Read the whole input into the spool, scanning it as it passes: each read goes to the spool,
/// then the whole lines it completed are scanned and the documents they completed looked at.
fn read_and_scan<R: Read + ?Sized>(
    input: &mut R,
    spool: &mut Spool,
    state: &mut FirstPass<'_>,
    options: &Options,
) -> Result<(), PostRenderError> {
    let mut scanner = StreamScanner::new().only_kinds(state.kinds());
    let mut lines = LineBuffer::new(options.read_buffer);
    let mut done: Vec<Scanned> = Vec::new();
    loop {
        let read = lines.read(input).map_err(PostRenderError::Read)?;
        if read.is_empty() {
            break;
        }
        spool.append(read)?;
        lines.scan(&mut scanner, &mut done);
        state.documents(&mut done, spool)?;
    }
    lines.finish(scanner, &mut done);
    state.documents(&mut done, spool)
}

/// The error for one of our objects found twice.
fn duplicate(found: merge::Duplicate) -> PostRenderError {
    PostRenderError::DuplicateMatch {
        kind: found.kind,
        name: found.name,
        first_line: found.first,
        second_line: found.second,
    }
}

/// True when the last line of a document's text that is not blank is a `...` marker.
fn ends_with_marker(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .rfind(|line| !line.iter().all(u8::is_ascii_whitespace))
        .is_some_and(|line| line.starts_with(b"..."))
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
    let not_yaml = |message: String, (line, column): (usize, usize)| PostRenderError::NotYaml {
        document: doc.index,
        line,
        column,
        message,
    };
    let values: Vec<Value> = serde_saphyr::from_slice_multiple_with_options(
        &text,
        third_party_options(),
    )
    .map_err(|err| {
        let at = crate::yaml::read_error_position(&err).map_or((doc.line, 1), |(line, column)| {
            ((doc.line + line).saturating_sub(1), column)
        });
        not_yaml(crate::yaml::read_error_text(&err), at)
    })?;
    match values.len() {
        0 => Ok(Value::Null),
        1 => Ok(values.into_iter().next().unwrap_or(Value::Null)),
        n => Err(not_yaml(
            format!("the scan saw one document where the YAML parser sees {n}"),
            (doc.line, 1),
        )),
    }
}
