//! A fast, line-based scan of YAML streams we only pass through (Helm output, KRM items).
//!
//! The scanner finds document boundaries (`---` lines, `...` end markers) and, for each
//! document, the root `apiVersion` and `kind` and the `metadata.name` and `metadata.namespace`
//! when they are written in the plain block style every Kubernetes tool emits. It is not a YAML
//! parser: whenever a document leaves that narrow, common shape (flow style at the root, anchors,
//! aliases or tags on a field we read, quoted or complex keys, directives, tabs in the
//! indentation of lines it reads,
//! `...` markers, content on the `---` line, an indented root, a value spanning lines, a value
//! YAML 1.1 would not read as a string) the document is flagged, and the caller must parse it with
//! the real YAML parser before trusting anything about it.
//!
//! The scan is one pass over the bytes and looks only at the start of each line. Lines that
//! cannot matter (indented lines under root keys other than `metadata`, comments, blank lines)
//! are passed over by a search for the next line break. The lines of the usual document head
//! (a bare `---`, `apiVersion: `, `kind: `, `metadata:`, and `name: `/`namespace: ` under it,
//! with a plain ASCII value) are recognised from their first bytes, without the general line
//! classification; every other line takes the general path, which reads those lines the same
//! way (the chunk tests feed every piece size to hold the two together). The strings it
//! records reuse the ones the caller hands back.

use std::fmt;

/// Default for [`StreamScanner::line_prefix`].
const DEFAULT_LINE_PREFIX: usize = 4 << 10;

/// What the scan knows about one field of a document head.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Field {
    /// The field is not in the document (as far as a plain block mapping goes).
    #[default]
    Absent,
    /// The field holds this string, exactly as a YAML 1.1 reader would read it.
    Plain(String),
    /// The field is present but written in a way only a real parser can read.
    Unclear,
    /// Not read: the document's kind is not one the scanner was asked about
    /// ([`StreamScanner::only_kinds`]), so its `metadata` was skipped.
    NotRead,
}

impl Field {
    /// The string value, when the scan could read it.
    pub fn as_plain(&self) -> Option<&str> {
        match self {
            Field::Plain(value) => Some(value),
            Field::Absent | Field::Unclear | Field::NotRead => None,
        }
    }

    /// True when only a real parser can tell what the field holds.
    pub fn is_unclear(&self) -> bool {
        matches!(self, Field::Unclear)
    }
}

/// The identifying fields of one document, as far as the scan could read them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Head {
    /// Root `apiVersion`.
    pub api_version: Field,
    /// Root `kind`.
    pub kind: Field,
    /// `metadata.name`.
    pub name: Field,
    /// `metadata.namespace`.
    pub namespace: Field,
}

/// Why a document as a whole is outside the shape the scan understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unusual {
    /// Content follows `---` on the same line (`--- {a: 1}`, `--- !tag`).
    ContentOnDocumentStart,
    /// A `...` document end marker.
    DocumentEndMarker,
    /// A `%YAML` or `%TAG` directive.
    Directive,
    /// A byte order mark.
    ByteOrderMark,
    /// A tab character in the indentation.
    TabIndentation,
    /// The root node starts indented.
    IndentedRoot,
    /// The root is not a block mapping (flow style, a sequence, a scalar, a JSON document).
    RootNotBlockMapping,
    /// A root or `metadata` key that is quoted, complex (`?`), a merge key (`<<`) or otherwise
    /// not a plain word.
    UnusualKey,
    /// `metadata` is written in flow style, through an alias or with a tag.
    UnusualMetadata,
    /// A key the scan reads appears twice.
    DuplicateKey,
    /// Indentation of the `metadata` block is inconsistent.
    InconsistentIndentation,
    /// A line too long to keep, whose kept start is only indentation.
    LongLine,
    /// A root key's flow collection (`{`, `[`) that does not close on its line.
    MultiLineFlow,
}

impl fmt::Display for Unusual {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unusual::ContentOnDocumentStart => "content on the `---` line",
            Unusual::DocumentEndMarker => "a `...` document end marker",
            Unusual::Directive => "a YAML directive",
            Unusual::ByteOrderMark => "a byte order mark",
            Unusual::TabIndentation => "a tab in the indentation",
            Unusual::IndentedRoot => "an indented root node",
            Unusual::RootNotBlockMapping => "a root that is not a block mapping",
            Unusual::UnusualKey => "a quoted, complex or merge key",
            Unusual::UnusualMetadata => "`metadata` in flow style or through an alias or tag",
            Unusual::DuplicateKey => "a duplicated key",
            Unusual::InconsistentIndentation => "inconsistent indentation",
            Unusual::LongLine => "a line too long to read",
            Unusual::MultiLineFlow => "a flow collection over several lines",
        })
    }
}

/// One document found by the scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scanned {
    /// Zero-based index of the document in the stream (comment-only documents count).
    pub index: usize,
    /// Byte offset of the document's first byte (its `---` line, when it has one).
    pub start: u64,
    /// Byte offset one past the document's last byte.
    pub end: u64,
    /// One-based line number of the document's first line.
    pub line: usize,
    /// Byte offset of the first line that is neither the `---` line, blank, nor a comment;
    /// `None` for a document that holds no content at all.
    pub content_start: Option<u64>,
    /// What the scan read.
    pub head: Head,
    /// Set when only a real parser can be trusted with this document.
    pub unusual: Option<Unusual>,
}

impl Scanned {
    /// True when the document holds nothing but blank lines, comments and markers.
    pub fn is_empty(&self) -> bool {
        self.content_start.is_none()
    }

    /// True when the head's `apiVersion` and `kind` are not reliable without a real parse.
    pub fn needs_parse(&self) -> bool {
        !self.is_empty()
            && (self.unusual.is_some()
                || self.head.api_version.is_unclear()
                || self.head.kind.is_unclear())
    }
}

/// Which root section the scan is in, to know what an indented line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Before the first root key.
    Start,
    /// Inside the block under `metadata:`.
    Metadata,
    /// Inside any other root key.
    Other,
}

/// Which head field the last key line with an inline plain value was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    ApiVersion,
    Kind,
    Name,
    Namespace,
}

/// Scan state of the document being read.
#[derive(Debug)]
struct DocState {
    start: u64,
    line: usize,
    has_bytes: bool,
    content_start: Option<u64>,
    head: Head,
    unusual: Option<Unusual>,
    ended: bool,
    section: Section,
    metadata_indent: Option<usize>,
    seen_metadata: bool,
    /// The field whose plain value was read from the last key line, and that line's
    /// indentation: a deeper line right after it means the value continues (a multi-line
    /// plain scalar), which only a real parser can join.
    pending: Option<(Which, usize)>,
    /// Kinds whose `metadata.name`/`namespace` are wanted; `None` for every kind.
    only_kinds: Option<std::sync::Arc<[String]>>,
    /// [`DocState::wants_metadata`], worked out when `kind` is read.
    wants_metadata: bool,
    /// Strings of earlier documents handed back with [`StreamScanner::recycle`], reused for
    /// the fields read so that a long stream does not allocate for each document.
    spare: Vec<String>,
    /// The last few distinct values of `apiVersion`, `kind` and `namespace` read by the fast
    /// path, and the slot the next new one replaces.
    recent: Vec<String>,
    recent_next: usize,
}

impl DocState {
    fn new(start: u64, line: usize) -> Self {
        DocState {
            start,
            line,
            has_bytes: false,
            content_start: None,
            head: Head::default(),
            unusual: None,
            ended: false,
            section: Section::Start,
            metadata_indent: None,
            seen_metadata: false,
            pending: None,
            only_kinds: None,
            wants_metadata: true,
            spare: Vec::new(),
            recent: Vec::new(),
            recent_next: 0,
        }
    }

    /// An owned copy of a value the fast path read (ASCII), in a spare string.
    fn ascii_text(&mut self, bytes: &[u8], which: Which) -> Option<String> {
        let mut owned = self.spare.pop().unwrap_or_default();
        owned.clear();
        // API versions, kinds and namespaces repeat all along a stream: a value seen lately is
        // copied from a string already known to be text, which costs less than checking the
        // bytes again.
        if let Some(known) = self.recent.iter().find(|known| known.as_bytes() == bytes) {
            owned.push_str(known);
        } else {
            let text = std::str::from_utf8(bytes).ok()?;
            owned.push_str(text);
            if which != Which::Name {
                self.remember(text);
            }
        }
        Some(owned)
    }

    /// Add a value to [`DocState::recent`], in place of the oldest once it is full.
    fn remember(&mut self, text: &str) {
        const RECENT: usize = 16;
        if self.recent.len() < RECENT {
            self.recent.push(text.to_owned());
        } else {
            let slot = &mut self.recent[self.recent_next];
            slot.clear();
            slot.push_str(text);
            self.recent_next = (self.recent_next + 1) % RECENT;
        }
    }

    /// True while lines starting with a space, a `#` or nothing at all cannot change anything:
    /// the document is under a root key other than `metadata`, no value waits for a
    /// continuation line, and no `...` marker has ended it. Such lines are then skipped in bulk.
    fn skips_indented(&self) -> bool {
        self.section == Section::Other && self.pending.is_none() && !self.ended
    }

    /// False when the document's kind is known and not among the wanted ones: its metadata
    /// fields are then not read at all (most documents of a chart stream).
    fn wants_metadata(&self) -> bool {
        self.wants_metadata
    }

    /// Work out [`DocState::wants_metadata`] after `kind` changed.
    fn update_wants_metadata(&mut self) {
        self.wants_metadata = match (&self.only_kinds, &self.head.kind) {
            (Some(kinds), Field::Plain(kind)) => kinds.iter().any(|k| k == kind),
            _ => true,
        };
    }

    fn flag(&mut self, why: Unusual) {
        // Keep the first reason: it is the one closest to the top of the document.
        if self.unusual.is_none() {
            self.unusual = Some(why);
        }
    }

    fn field_mut(&mut self, which: Which) -> &mut Field {
        match which {
            Which::ApiVersion => &mut self.head.api_version,
            Which::Kind => &mut self.head.kind,
            Which::Name => &mut self.head.name,
            Which::Namespace => &mut self.head.namespace,
        }
    }

    /// Record a key the scan reads; `indent` is the key line's indentation.
    fn set(&mut self, which: Which, value: Value<'_>, indent: usize) {
        if !matches!(self.field_mut(which), Field::Absent) {
            self.flag(Unusual::DuplicateKey);
            *self.field_mut(which) = Field::Unclear;
        } else {
            let field = match value {
                Value::Plain(text) => {
                    self.pending = Some((which, indent));
                    let mut owned = self.spare.pop().unwrap_or_default();
                    owned.clear();
                    owned.push_str(text);
                    Field::Plain(owned)
                }
                Value::Ascii(bytes) => {
                    self.pending = Some((which, indent));
                    // Never `None` in practice: the fast path only passes ASCII.
                    self.ascii_text(bytes, which)
                        .map_or(Field::Unclear, Field::Plain)
                }
                // An empty value may continue on the next, deeper line; a real parser decides.
                Value::Empty | Value::Unclear => Field::Unclear,
            };
            *self.field_mut(which) = field;
        }
        if which == Which::Kind {
            self.update_wants_metadata();
        }
    }

    /// Feed one line (without its line break) that starts at byte `offset`.
    fn feed(&mut self, line: &[u8], offset: u64, truncated: bool) {
        self.has_bytes = true;
        // A cut line whose kept bytes are all indentation may hold anything after them.
        if truncated && !self.skips_indented() && line.iter().all(u8::is_ascii_whitespace) {
            self.mark_content(offset);
            self.flag(Unusual::LongLine);
            return;
        }
        if let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF") {
            // A byte order mark starts the stream; what follows it is read as a line.
            self.flag(Unusual::ByteOrderMark);
            return self.feed(rest, offset, truncated);
        }
        let Some(&first) = line.first() else {
            return;
        };
        match first {
            b'#' => {}
            // Lines under a root key other than `metadata` say nothing about the fields the
            // scan reads (a column-0 line always ends them), so the common case stops here.
            b' ' if self.section == Section::Other && self.pending.is_none() => {}
            b' ' => {
                let indent = line.iter().take_while(|&&b| b == b' ').count();
                let rest = &line[indent..];
                match rest.first() {
                    // Blank lines and comments say nothing about the structure.
                    None | Some(b'#') => return,
                    Some(b'\t') => {
                        if rest.iter().all(|b| b.is_ascii_whitespace()) {
                            return;
                        }
                        self.flag(Unusual::TabIndentation);
                        return;
                    }
                    Some(_) => {}
                }
                self.indented(indent, rest, offset, truncated);
            }
            b'\t' | b'\r' => {
                if line.iter().all(|b| b.is_ascii_whitespace()) {
                    return;
                }
                self.flag(Unusual::TabIndentation);
                self.mark_content(offset);
            }
            b'%' => {
                self.flag(Unusual::Directive);
            }
            _ => {
                self.mark_content(offset);
                self.root_line(line, truncated);
            }
        }
    }

    fn mark_content(&mut self, offset: u64) {
        if self.content_start.is_none() {
            self.content_start = Some(offset);
        }
    }

    fn indented(&mut self, indent: usize, rest: &[u8], offset: u64, truncated: bool) {
        if self.section == Section::Start {
            self.mark_content(offset);
            self.flag(Unusual::IndentedRoot);
            return;
        }
        if let Some((which, key_indent)) = self.pending {
            if indent > key_indent {
                *self.field_mut(which) = Field::Unclear;
                self.pending = None;
                return;
            }
            self.pending = None;
        }
        if self.section != Section::Metadata {
            return;
        }
        let meta_indent = *self.metadata_indent.get_or_insert(indent);
        if indent > meta_indent {
            return;
        }
        if indent < meta_indent {
            self.flag(Unusual::InconsistentIndentation);
            return;
        }
        match split_key(rest) {
            KeyLine::Key(key, value) => {
                let which = match key {
                    b"name" => Which::Name,
                    b"namespace" => Which::Namespace,
                    _ => return,
                };
                let value = if truncated {
                    Value::Unclear
                } else {
                    parse_value(value)
                };
                self.set(which, value, indent);
            }
            KeyLine::Unusual => self.flag(Unusual::UnusualKey),
            KeyLine::NotAKey => self.flag(Unusual::UnusualMetadata),
        }
    }

    fn root_line(&mut self, line: &[u8], truncated: bool) {
        self.pending = None;
        match split_key(line) {
            KeyLine::Key(key, value) => {
                self.section = Section::Other;
                // Only the values of the keys read are looked at (most root keys are others).
                let read = |value| {
                    if truncated {
                        Value::Unclear
                    } else {
                        parse_value(value)
                    }
                };
                match key {
                    b"apiVersion" => self.set(Which::ApiVersion, read(value), 0),
                    b"kind" => self.set(Which::Kind, read(value), 0),
                    b"metadata" => self.metadata_key(read(value)),
                    // Its lines may go on in column 0, where they look like root keys.
                    _ if opens_flow(value) => self.flag(Unusual::MultiLineFlow),
                    _ => {}
                }
            }
            KeyLine::Unusual => {
                self.section = Section::Other;
                self.flag(Unusual::UnusualKey);
            }
            KeyLine::NotAKey => {
                self.section = Section::Other;
                self.flag(Unusual::RootNotBlockMapping);
            }
        }
    }

    /// The root key `metadata` with `value` after its colon; the section is already `Other`.
    fn metadata_key(&mut self, value: Value<'_>) {
        if self.seen_metadata {
            self.flag(Unusual::DuplicateKey);
        }
        self.seen_metadata = true;
        self.metadata_indent = None;
        if !matches!(value, Value::Empty) {
            self.flag(Unusual::UnusualMetadata);
        } else if self.wants_metadata() {
            self.section = Section::Metadata;
        } else {
            // The kind is known and not wanted: nothing under `metadata` can change what the
            // caller does with the document (a column-0 line ends the block whatever it holds),
            // so the block is passed over in bulk like any other root key's, unread.
            self.head.name = Field::NotRead;
            self.head.namespace = Field::NotRead;
        }
    }

    /// End this document at `end` and start the next one in place at the same offset, on
    /// line `line`, keeping the kinds wanted and the spare strings.
    fn restart(&mut self, index: usize, end: u64, line: usize) -> Scanned {
        let scanned = Scanned {
            index,
            start: self.start,
            end,
            line: self.line,
            content_start: self.content_start,
            head: std::mem::take(&mut self.head),
            unusual: self.unusual,
        };
        self.start = end;
        self.line = line;
        self.has_bytes = false;
        self.content_start = None;
        self.unusual = None;
        self.ended = false;
        self.section = Section::Start;
        self.metadata_indent = None;
        self.seen_metadata = false;
        self.pending = None;
        self.wants_metadata = true;
        scanned
    }

    fn finish(self, index: usize, end: u64) -> Scanned {
        Scanned {
            index,
            start: self.start,
            end,
            line: self.line,
            content_start: self.content_start,
            head: self.head,
            unusual: self.unusual,
        }
    }
}

/// A key line split into key and the text after the colon.
enum KeyLine<'a> {
    /// `key: rest` with a plain key.
    Key(&'a [u8], &'a [u8]),
    /// A key the scan does not read (quoted, complex, merge key, anchored ...).
    Unusual,
    /// Not a `key:` line at all (a sequence entry, a scalar, flow style).
    NotAKey,
}

/// Split `key: value` where `line` starts at the key (no indentation).
fn split_key(line: &[u8]) -> KeyLine<'_> {
    match line.first() {
        Some(b'-') if matches!(line.get(1), None | Some(b' ' | b'\t')) => {
            return KeyLine::NotAKey;
        }
        Some(b'{' | b'[') => return KeyLine::NotAKey,
        Some(
            b'"' | b'\'' | b'?' | b'&' | b'*' | b'!' | b'<' | b'|' | b'>' | b'@' | b'`' | b','
            | b']' | b'}' | b':',
        ) => return KeyLine::Unusual,
        _ => {}
    }
    let mut idx = 0;
    while idx < line.len() {
        match line[idx] {
            b':' if matches!(line.get(idx + 1), None | Some(b' ' | b'\t' | b'\r')) => {
                let key = trim_end(&line[..idx]);
                return KeyLine::Key(key, &line[idx + 1..]);
            }
            // A comment before any colon: the line is a scalar, not a key.
            b'#' if idx > 0 && matches!(line[idx - 1], b' ' | b'\t') => return KeyLine::NotAKey,
            _ => {}
        }
        idx += 1;
    }
    KeyLine::NotAKey
}

/// True when the text after a key's colon opens a flow collection the line does not close
/// (conservatively: it starts with `{` or `[` and does not end with `}` or `]`).
fn opens_flow(value: &[u8]) -> bool {
    let value = trim_start(trim_end(value));
    matches!(value.first(), Some(b'{' | b'[')) && !matches!(value.last(), Some(b'}' | b']'))
}

/// A value read from the text after a key's colon.
#[derive(Debug, PartialEq, Eq)]
enum Value<'a> {
    /// Nothing (or only a comment) on the key line.
    Empty,
    /// A string every YAML 1.1 reader reads the same way.
    Plain(&'a str),
    /// The same, known to be ASCII ([`simple_value`]).
    Ascii(&'a [u8]),
    /// Anything else.
    Unclear,
}

fn parse_value(rest: &[u8]) -> Value<'_> {
    let rest = trim_start(rest);
    let Some(&first) = rest.first() else {
        return Value::Empty;
    };
    match first {
        b'#' => Value::Empty,
        b'"' | b'\'' => {
            let body = &rest[1..];
            let Some(close) = body.iter().position(|&b| b == first) else {
                return Value::Unclear;
            };
            let inner = &body[..close];
            let tail = trim_start(&body[close + 1..]);
            // Escapes (`\` in double quotes, `''` in single quotes) and anything after the
            // closing quote other than a comment need a real parser.
            if (first == b'"' && inner.contains(&b'\\'))
                || (first == b'\'' && tail.first() == Some(&b'\''))
                || !(tail.is_empty() || tail[0] == b'#')
            {
                return Value::Unclear;
            }
            match std::str::from_utf8(inner) {
                Ok(text) => Value::Plain(text),
                Err(_) => Value::Unclear,
            }
        }
        b'&' | b'*' | b'!' | b'|' | b'>' | b'{' | b'[' | b']' | b'}' | b'@' | b'`' | b'%'
        | b',' | b'?' | b':' | b'-' => Value::Unclear,
        _ => {
            // One pass: the value ends at a comment (` #`); a `: ` inside it, or a `:` at
            // its end, would make it a mapping.
            let mut end = rest.len();
            for idx in 1..rest.len() {
                match rest[idx] {
                    b'#' if matches!(rest[idx - 1], b' ' | b'\t') => {
                        end = idx;
                        break;
                    }
                    b':' if rest.get(idx + 1) == Some(&b' ') => return Value::Unclear,
                    _ => {}
                }
            }
            let text = trim_end(&rest[..end]);
            if text.ends_with(b":") {
                return Value::Unclear;
            }
            match std::str::from_utf8(text) {
                Ok(text) if reads_as_string(text) => Value::Plain(text),
                _ => Value::Unclear,
            }
        }
    }
}

/// Plain scalars a YAML 1.1 reader turns into a null or a boolean (compared ignoring ASCII case).
const WORDS: &[&str] = &[
    "~", "null", "y", "yes", "n", "no", "true", "false", "on", "off",
];

/// False for plain scalars a YAML 1.1 reader might turn into a null, a boolean or a number.
/// Conservative: anything starting like a number is left to the real parser.
fn reads_as_string(text: &str) -> bool {
    let Some(first) = text.bytes().next() else {
        return false;
    };
    if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.') {
        return false;
    }
    !WORDS.iter().any(|word| word.eq_ignore_ascii_case(text))
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &bytes[skip..]
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let keep = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r'))
            .count();
    &bytes[..keep]
}

/// What a line means for document boundaries.
enum Marker {
    /// `---`, optionally followed by whitespace and a comment.
    Start,
    /// `---` followed by content on the same line.
    StartWithContent,
    /// `...`.
    End,
    /// Anything else.
    None,
}

fn marker(line: &[u8]) -> Marker {
    let is = |prefix: &[u8]| {
        line.starts_with(prefix) && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r'))
    };
    if is(b"---") {
        let rest = trim_start(trim_end(&line[3..]));
        if rest.is_empty() || rest[0] == b'#' {
            Marker::Start
        } else {
            Marker::StartWithContent
        }
    } else if is(b"...") {
        Marker::End
    } else {
        Marker::None
    }
}

/// Push-based scanner over a stream of lines.
///
/// Feed every line of the stream, in order, with [`StreamScanner::push_line`]; each call that
/// starts a new document returns the one just completed. [`StreamScanner::finish`] returns the
/// last one.
#[derive(Debug)]
pub struct StreamScanner {
    doc: DocState,
    offset: u64,
    line: usize,
    index: usize,
    only_kinds: Option<std::sync::Arc<[String]>>,
    /// The first bytes (at most `line_prefix`) of a line that a [`StreamScanner::push_chunk`]
    /// call left unfinished, and the full length seen so far in `partial_len`.
    partial: Vec<u8>,
    partial_len: u64,
    line_prefix: usize,
}

impl Default for StreamScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamScanner {
    /// A scanner at the start of a stream.
    pub fn new() -> Self {
        StreamScanner {
            doc: DocState::new(0, 1),
            offset: 0,
            line: 1,
            index: 0,
            only_kinds: None,
            partial: Vec::new(),
            partial_len: 0,
            line_prefix: DEFAULT_LINE_PREFIX,
        }
    }

    /// Keep at most `bytes` of a line that spans two [`StreamScanner::push_chunk`] calls; a
    /// field read from a longer line is reported as unclear. The default is 4 KiB; at least 4
    /// bytes are kept, enough to tell a `---` or `...` line.
    pub fn line_prefix(mut self, bytes: usize) -> Self {
        self.line_prefix = bytes.max(4);
        self
    }

    /// Read `metadata.name` and `metadata.namespace` only for documents of these kinds (and for
    /// documents whose `kind` comes after `metadata`); for the others they are
    /// [`Field::NotRead`], and their `metadata` block is passed over in bulk like any other
    /// root key's, so nothing in it is flagged either: the root `kind` already says the
    /// document does not matter. Saves work on long streams where few documents matter.
    pub fn only_kinds<I: IntoIterator<Item = String>>(mut self, kinds: I) -> Self {
        let kinds: std::sync::Arc<[String]> = kinds.into_iter().collect();
        self.doc.only_kinds = Some(kinds.clone());
        self.only_kinds = Some(kinds);
        self
    }

    /// Feed the next line. `line` holds the line's bytes (its line break may be included or
    /// not); `len` is the full length of the line in the stream including its line break.
    /// When the caller only kept the first bytes of a very long line, it passes those and sets
    /// `truncated`: a field read from such a line is reported as unclear.
    pub fn push_line(&mut self, line: &[u8], len: u64, truncated: bool) -> Option<Scanned> {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let marker = match marker(text) {
            // The cut-off rest of the line may hold content.
            Marker::Start if truncated => Marker::StartWithContent,
            marker => marker,
        };
        let starts_doc = matches!(marker, Marker::Start | Marker::StartWithContent);
        let mut done = None;
        if (starts_doc || self.doc.ended) && self.doc.has_bytes {
            done = Some(self.next_document());
        }
        match marker {
            Marker::Start => self.doc.has_bytes = true,
            Marker::StartWithContent => {
                self.doc.has_bytes = true;
                self.doc.flag(Unusual::ContentOnDocumentStart);
                self.doc.mark_content(self.offset);
                self.doc.section = Section::Other;
            }
            Marker::End => {
                self.doc.has_bytes = true;
                self.doc.ended = true;
                self.doc.flag(Unusual::DocumentEndMarker);
            }
            Marker::None => self.doc.feed(text, self.offset, truncated),
        }
        self.offset += len;
        self.line += 1;
        done
    }

    /// Feed the next bytes of the stream, cut anywhere (mid-line included); every document
    /// completed by them is pushed onto `done`. Gives the same documents as feeding each line to
    /// [`StreamScanner::push_line`], faster: lines the scan would not look at (the indented
    /// lines under a root key other than `metadata`, which are most of a chart) are passed over
    /// with a vectorised search for the next line break, never handled one by one. A line cut by
    /// the end of `bytes` is kept (its first [`StreamScanner::line_prefix`] bytes) until the next
    /// call; [`StreamScanner::finish_into`] ends the stream.
    pub fn push_chunk(&mut self, bytes: &[u8], done: &mut Vec<Scanned>) {
        let mut pos = 0;
        if self.partial_len > 0 {
            let Some(nl) = find_newline(bytes) else {
                self.keep_partial(bytes);
                return;
            };
            self.keep_partial(&bytes[..=nl]);
            self.push_partial(done);
            pos = nl + 1;
        }
        while pos < bytes.len() {
            let skip = match bytes[pos] {
                b' ' => self.doc.skips_indented(),
                // Comments and empty lines only matter after a `...` marker (they start the next
                // document) and at the very start of a document (where they are its bytes).
                b'#' | b'\n' => self.doc.has_bytes && !self.doc.ended,
                _ => false,
            };
            if skip {
                match skip_lines(&bytes[pos..], self.doc.skips_indented()) {
                    Skipped::UpTo(len, lines) => {
                        self.offset += len as u64;
                        self.line += lines;
                        pos += len;
                        continue;
                    }
                    Skipped::Unfinished(len, lines) => {
                        // Whole lines are done with; the cut one waits for the next call.
                        self.offset += len as u64;
                        self.line += lines;
                        self.keep_partial(&bytes[pos + len..]);
                        return;
                    }
                }
            }
            if let Some(len) = self.fast_line(&bytes[pos..], done) {
                self.offset += len as u64;
                self.line += 1;
                pos += len;
                continue;
            }
            match find_newline(&bytes[pos..]) {
                Some(nl) => {
                    let line = &bytes[pos..=pos + nl];
                    done.extend(self.push_line(line, line.len() as u64, false));
                    pos += nl + 1;
                }
                None => {
                    self.keep_partial(&bytes[pos..]);
                    return;
                }
            }
        }
    }

    /// End the current document where the stream has got to and start the next one there.
    fn next_document(&mut self) -> Scanned {
        let done = self.doc.restart(self.index, self.offset, self.line);
        self.index += 1;
        done
    }

    /// The common lines of a chart stream, recognised from their first bytes without the
    /// general line classification: a bare `---` line, a root `apiVersion: `, `kind: ` or
    /// `metadata:` line, and `name: `/`namespace: ` directly under a `metadata` being read,
    /// each with a [`simple_value`] and ending in a bare line break. `bytes` starts at a line
    /// start and holds at least one byte. Returns the length of the line handled (line break
    /// included), or `None`, having changed nothing, for any other line: the caller then takes
    /// the general path, which reads these lines in exactly the same way (the chunk tests hold
    /// the two together).
    fn fast_line(&mut self, bytes: &[u8], done: &mut Vec<Scanned>) -> Option<usize> {
        let doc = &self.doc;
        // After a `...` marker any content line starts a new document: the general path.
        if doc.ended {
            return None;
        }
        let (which, value_at) = match bytes[0] {
            b'-' if bytes.starts_with(b"---\n") => {
                if doc.has_bytes {
                    let finished = self.next_document();
                    done.push(finished);
                }
                self.doc.has_bytes = true;
                return Some(4);
            }
            b'a' if bytes.starts_with(b"apiVersion: ") => (Which::ApiVersion, 12),
            b'k' if bytes.starts_with(b"kind: ") => (Which::Kind, 6),
            b'm' if bytes.starts_with(b"metadata:\n") => {
                let doc = &mut self.doc;
                doc.has_bytes = true;
                doc.mark_content(self.offset);
                doc.pending = None;
                doc.section = Section::Other;
                doc.metadata_key(Value::Empty);
                return Some(10);
            }
            b' ' if doc.section == Section::Metadata => {
                return self.fast_metadata_child(bytes);
            }
            _ => return None,
        };
        let len = simple_value(&bytes[value_at..])?;
        let doc = &mut self.doc;
        doc.has_bytes = true;
        doc.mark_content(self.offset);
        doc.pending = None;
        doc.section = Section::Other;
        doc.set(which, Value::Ascii(&bytes[value_at..value_at + len]), 0);
        Some(value_at + len + 1)
    }

    /// [`StreamScanner::fast_line`] for an indented line in the `metadata` block: `name: ` or
    /// `namespace: ` at the block's indentation with a simple value.
    fn fast_metadata_child(&mut self, bytes: &[u8]) -> Option<usize> {
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let doc = &mut self.doc;
        if doc.metadata_indent.is_some_and(|meta| meta != indent)
            || doc
                .pending
                .is_some_and(|(_, key_indent)| indent > key_indent)
        {
            return None;
        }
        let rest = &bytes[indent..];
        let (which, value_at) = if rest.starts_with(b"name: ") {
            (Which::Name, 6)
        } else if rest.starts_with(b"namespace: ") {
            (Which::Namespace, 11)
        } else {
            return None;
        };
        let len = simple_value(&rest[value_at..])?;
        doc.pending = None;
        doc.metadata_indent = Some(indent);
        doc.set(which, Value::Ascii(&rest[value_at..value_at + len]), indent);
        Some(indent + value_at + len + 1)
    }

    /// Hand back a document the caller is done with: the strings of its head are reused for
    /// the documents still to come (up to a few thousand strings are kept).
    pub fn recycle(&mut self, doc: Scanned) {
        let Head {
            api_version,
            kind,
            name,
            namespace,
        } = doc.head;
        for field in [api_version, kind, name, namespace] {
            if let Field::Plain(text) = field
                && self.doc.spare.len() < 4096
            {
                self.doc.spare.push(text);
            }
        }
    }

    /// Remember (the prefix of) a piece of an unfinished line.
    fn keep_partial(&mut self, piece: &[u8]) {
        let room = self.line_prefix.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&piece[..piece.len().min(room)]);
        self.partial_len += piece.len() as u64;
    }

    /// Feed the line gathered by [`StreamScanner::keep_partial`].
    fn push_partial(&mut self, done: &mut Vec<Scanned>) {
        let partial = std::mem::take(&mut self.partial);
        let truncated = self.partial_len > partial.len() as u64;
        done.extend(self.push_line(&partial, self.partial_len, truncated));
        self.partial = partial;
        self.partial.clear();
        self.partial_len = 0;
    }

    /// End of a stream fed with [`StreamScanner::push_chunk`]: the unfinished last line, then
    /// the last document, go onto `done`.
    pub fn finish_into(mut self, done: &mut Vec<Scanned>) {
        if self.partial_len > 0 {
            self.push_partial(done);
        }
        done.extend(self.finish());
    }

    /// End of stream: the last document, unless the stream ended right after a boundary.
    pub fn finish(self) -> Option<Scanned> {
        if self.doc.has_bytes {
            Some(self.doc.finish(self.index, self.offset))
        } else {
            None
        }
    }
}

/// Scan a whole in-memory stream.
pub fn scan_stream(text: &[u8]) -> Vec<Scanned> {
    let mut scanner = StreamScanner::new().line_prefix(usize::MAX);
    let mut docs = Vec::new();
    scanner.push_chunk(text, &mut docs);
    scanner.finish_into(&mut docs);
    docs
}

/// Bytes a [`simple_value`] may hold after its first byte: ASCII letters, digits, `.`, `-`,
/// `_` and `/` (API versions, kinds and object names).
const SIMPLE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/');
        byte += 1;
    }
    table
};

/// The length of the value at the start of `bytes` when it is one a YAML 1.1 reader can only
/// read as that very string and a bare line break ends it: an ASCII letter, then [`SIMPLE`]
/// bytes, and not one of the words such a reader turns into a boolean or null (`yes`, `on`,
/// `null` ...). `None` for anything else (quotes, comments, spaces, `\r`, a cut line), which
/// the general path reads instead.
fn simple_value(bytes: &[u8]) -> Option<usize> {
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let len = 1 + bytes[1..]
        .iter()
        .take_while(|&&b| SIMPLE[usize::from(b)])
        .count();
    if bytes.get(len) != Some(&b'\n')
        || len <= 5
            && WORDS
                .iter()
                .any(|word| word.as_bytes().eq_ignore_ascii_case(&bytes[..len]))
    {
        return None;
    }
    Some(len)
}

/// The position of the first line break in `bytes`. On x86-64 this is memchr's SSE2 search,
/// which (unlike its AVX2 one, behind a run-time check) inlines into the scan loops: most lines
/// are short, and a call per line cost more than the search itself.
#[inline]
fn find_newline(bytes: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(finder) = memchr::arch::x86_64::sse2::memchr::One::new(b'\n') {
        return finder.find(bytes);
    }
    memchr::memchr(b'\n', bytes)
}

/// How far [`skip_lines`] got.
enum Skipped {
    /// This many bytes, that many whole lines; a line that matters starts right after.
    UpTo(usize, usize),
    /// This many bytes, that many whole lines; the rest of the bytes is a line with no break
    /// yet, which matters or not depending on bytes not seen.
    Unfinished(usize, usize),
}

/// Pass over the lines at the start of `bytes` that the document being scanned does nothing
/// with: comments and empty lines, and indented lines too when `indented` (the
/// [`DocState::skips_indented`] state). `bytes` starts with such a line. Only the byte after
/// each line break is looked at, so this runs at the speed of the line break search.
fn skip_lines(bytes: &[u8], indented: bool) -> Skipped {
    let mut lines = 0;
    let mut next = 0;
    while let Some(nl) = find_newline(&bytes[next..]) {
        lines += 1;
        next += nl + 1;
        let skip = match bytes.get(next) {
            Some(b'#' | b'\n') => true,
            Some(b' ') => indented,
            _ => false,
        };
        if !skip {
            return Skipped::UpTo(next, lines);
        }
    }
    Skipped::Unfinished(next, lines)
}

/// One root key of a single-document mapping, with the byte range of its key line and every
/// line under it (trailing blank and comment lines included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootSection {
    /// The key, as written (plain keys only).
    pub key: String,
    /// Byte offset of the key line.
    pub start: usize,
    /// Byte offset one past the section's last byte.
    pub end: usize,
}

/// Split one YAML document into its root sections, for documents in the plain block style
/// (the scan's shape); `None` for anything else, and the caller must re-serialize instead of
/// copying. Text before the first key (a `---` line, comments) belongs to no section.
pub fn root_sections(text: &[u8]) -> Option<Vec<RootSection>> {
    if text.starts_with(b"\xEF\xBB\xBF") {
        return None;
    }
    let mut sections: Vec<RootSection> = Vec::new();
    let mut offset = 0;
    let mut seen_start = false;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let here = offset;
        offset += line.len();
        match marker(body) {
            Marker::Start if sections.is_empty() && !seen_start => {
                seen_start = true;
                continue;
            }
            Marker::None => {}
            _ => return None,
        }
        match body.first() {
            None | Some(b'#') => {}
            Some(b' ') => {
                let rest = trim_start(body);
                if sections.is_empty() && !(rest.is_empty() || rest[0] == b'#') {
                    return None;
                }
                if body
                    .iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .any(|&b| b == b'\t')
                {
                    return None;
                }
            }
            // A block sequence under a root key may start its entries in column 0.
            Some(b'-') if !sections.is_empty() && matches!(body.get(1), None | Some(b' ')) => {}
            Some(_) => match split_key(body) {
                KeyLine::Key(_, value) if opens_flow(value) => return None,
                KeyLine::Key(key, _) => {
                    let key = std::str::from_utf8(key).ok()?.to_owned();
                    if sections.iter().any(|s| s.key == key) {
                        return None;
                    }
                    if let Some(last) = sections.last_mut() {
                        last.end = here;
                    }
                    sections.push(RootSection {
                        key,
                        start: here,
                        end: text.len(),
                    });
                }
                KeyLine::Unusual | KeyLine::NotAKey => return None,
            },
        }
    }
    Some(sections)
}

/// The entries of a block sequence that is the value of a root key: `section` is that key's
/// [`RootSection`] in `text`. Returns the indentation of the `- ` markers and the byte range of
/// each entry (from its `- ` line to the next entry, comment lines included), or `None` when
/// the value is not a plain block sequence. An explicit empty flow sequence (`key: []`) gives
/// no entries.
pub fn sequence_entries(
    text: &[u8],
    section: &RootSection,
) -> Option<(usize, Vec<(usize, usize)>)> {
    let body = &text[section.start..section.end];
    let mut lines = body.split_inclusive(|&b| b == b'\n');
    let key_line = lines.next()?;
    let KeyLine::Key(_, value) = split_key(key_line.strip_suffix(b"\n").unwrap_or(key_line)) else {
        return None;
    };
    let value = trim_start(trim_end(value));
    if value.starts_with(b"[]") && trim_start(&value[2..]).first().is_none_or(|&b| b == b'#') {
        return Some((0, Vec::new()));
    }
    if !(value.is_empty() || value[0] == b'#') {
        return None;
    }
    let mut offset = section.start + key_line.len();
    let mut indent = None;
    let mut entries: Vec<(usize, usize)> = Vec::new();
    for line in lines {
        let here = offset;
        offset += line.len();
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let spaces = body.iter().take_while(|&&b| b == b' ').count();
        let rest = &body[spaces..];
        if rest.is_empty() || rest[0] == b'#' {
            continue;
        }
        if rest[0] == b'\t' {
            return None;
        }
        let entry_indent = *indent.get_or_insert(spaces);
        let is_entry = rest.starts_with(b"- ") && rest.len() > 2 && !matches!(rest[2], b' ' | b'-');
        if spaces == entry_indent && is_entry {
            if let Some(last) = entries.last_mut() {
                last.1 = here;
            }
            entries.push((here, section.end));
        } else if spaces <= entry_indent || entries.is_empty() {
            // Anything at or left of the markers that is not a `- ` entry (an empty entry, a
            // nested sequence on the marker line, a stray scalar) is beyond this scan.
            return None;
        }
    }
    Some((indent.unwrap_or(0), entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Field {
        Field::Plain(text.to_owned())
    }

    /// Scan `input` as one document and compare what the scan read.
    fn check(input: &str, kind: Field, name: Field, unusual: Option<Unusual>) {
        let docs = scan_stream(input.as_bytes());
        assert_eq!(
            docs.len(),
            1,
            "one document expected in {input:?}: {docs:#?}"
        );
        assert_eq!(docs[0].head.kind, kind, "kind of {input:?}");
        assert_eq!(docs[0].head.name, name, "name of {input:?}");
        assert_eq!(docs[0].unusual, unusual, "unusual of {input:?}");
    }

    #[test]
    fn heads() {
        use Field::{Absent, Unclear};
        #[rustfmt::skip]
        let cases: &[(&str, Field, Field, Option<Unusual>)] = &[
            ("kind: A\nmetadata:\n  name: x\n", plain("A"), plain("x"), None),
            ("kind: \"A\"\nmetadata:\n  name: 'x'\n", plain("A"), plain("x"), None),
            ("kind: A # c\nmetadata: # c\n  labels:\n    name: no\n  name: x\n", plain("A"), plain("x"), None),
            ("kind: A\nmetadata:\n    annotations:\n      a: |\n        name: y\n    name: x\n", plain("A"), plain("x"), None),
            ("kind: *k\n", Unclear, Absent, None),
            ("kind: !!str A\n", Unclear, Absent, None),
            ("kind: \"A\\u0041\"\n", Unclear, Absent, None),
            ("kind: 'it''s'\n", Unclear, Absent, None),
            ("kind:\n  A\n", Unclear, Absent, None),
            ("kind: A\n  B\n", Unclear, Absent, None),
            ("kind: A\nmetadata:\n  name: x\n   y\n", plain("A"), Unclear, None),
            ("kind: true\n", Unclear, Absent, None),
            ("kind: 1.5\n", Unclear, Absent, None),
            ("kind: A\nmetadata:\n  name: yes\n", plain("A"), Unclear, None),
            ("kind: A\nmetadata:\n  name: system:node\n", plain("A"), plain("system:node"), None),
            ("kind: a: b\n", Unclear, Absent, None),
            ("kind: A\nkind: B\n", Unclear, Absent, Some(Unusual::DuplicateKey)),
            ("kind: A\nmetadata: {name: x}\n", plain("A"), Absent, Some(Unusual::UnusualMetadata)),
            ("kind: A\nmetadata: *m\n", plain("A"), Absent, Some(Unusual::UnusualMetadata)),
            ("kind: A\nmetadata:\n  <<: *m\n", plain("A"), Absent, Some(Unusual::UnusualKey)),
            ("kind: A\nmetadata:\n  \"name\": x\n", plain("A"), Absent, Some(Unusual::UnusualKey)),
            ("kind: A\nmetadata:\n    name: x\n  namespace: y\n", plain("A"), plain("x"), Some(Unusual::InconsistentIndentation)),
            ("\"kind\": A\n", Absent, Absent, Some(Unusual::UnusualKey)),
            ("? kind\n: A\n", Absent, Absent, Some(Unusual::UnusualKey)),
            ("{\"kind\": \"A\"}\n", Absent, Absent, Some(Unusual::RootNotBlockMapping)),
            ("- kind: A\n", Absent, Absent, Some(Unusual::RootNotBlockMapping)),
            ("  kind: A\n", Absent, Absent, Some(Unusual::IndentedRoot)),
            ("kind: A\nspec:\n\tx: 1\n", plain("A"), Absent, Some(Unusual::TabIndentation)),
            // Under a key the scan does not read, a tab after the indentation is not looked at.
            ("kind: A\nspec:\n  \tx: 1\n", plain("A"), Absent, None),
            ("kind: A\nmetadata:\n  \tname: x\n", plain("A"), Absent, Some(Unusual::TabIndentation)),
            ("--- !!map\nkind: A\n", plain("A"), Absent, Some(Unusual::ContentOnDocumentStart)),
            ("\u{feff}kind: A\n", plain("A"), Absent, Some(Unusual::ByteOrderMark)),
            ("kind: A\nspec: {a: 1,\nb: 2}\n", plain("A"), Absent, Some(Unusual::MultiLineFlow)),
            ("kind: A\nspec: [a,\n  b]\n", plain("A"), Absent, Some(Unusual::MultiLineFlow)),
            ("kind: A\r\nmetadata:\r\n  name: x\r\n", plain("A"), plain("x"), None),
            ("kind: A\nspec: {}\ndata:\n  x: \"---\"\n", plain("A"), Absent, None),
        ];
        for (input, kind, name, unusual) in cases {
            check(input, kind.clone(), name.clone(), *unusual);
        }
    }

    #[test]
    fn boundaries_and_offsets() {
        let input = "# lead\n---\n# Source: a\nkind: A\n---\n---   # c\nkind: B\nx: |\n  ---x\n...\nkind: C\n";
        let docs = scan_stream(input.as_bytes());
        let summary: Vec<_> = docs
            .iter()
            .map(|d| {
                (
                    &input[d.start as usize..d.end as usize],
                    d.head.kind.as_plain().map(str::to_owned),
                    d.is_empty(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("# lead\n", None, true),
                ("---\n# Source: a\nkind: A\n", Some("A".to_owned()), false),
                ("---\n", None, true),
                (
                    "---   # c\nkind: B\nx: |\n  ---x\n...\n",
                    Some("B".to_owned()),
                    false
                ),
                ("kind: C\n", Some("C".to_owned()), false),
            ]
        );
        assert_eq!(docs[1].line, 2);
        assert_eq!(docs[1].content_start, Some(23));
        assert_eq!(docs[3].unusual, Some(Unusual::DocumentEndMarker));
        let total: u64 = docs.iter().map(|d| d.end - d.start).sum();
        assert_eq!(total, input.len() as u64);
    }

    #[test]
    fn directives_stay_with_their_own_segment() {
        // A directive only affects tag handles and the YAML version of the next document; tags
        // on the fields we read and YAML-version-dependent words are unclear anyway, so the
        // document after the directive keeps its plain reading.
        let docs = scan_stream(b"%YAML 1.1\n---\nkind: A\n");
        assert_eq!(docs.len(), 2);
        assert!(docs[0].is_empty());
        assert_eq!(docs[0].unusual, Some(Unusual::Directive));
        assert_eq!(docs[1].head.kind, plain("A"));
        assert_eq!(docs[1].unusual, None);

        // After a byte order mark too.
        let docs = scan_stream("\u{feff}%YAML 1.1\n---\nkind: A\n".as_bytes());
        assert_eq!(docs.len(), 2);
        assert!(docs[0].is_empty());
    }

    #[test]
    fn sections_and_entries() {
        let text = b"---\napiVersion: v1\nkind: List # c\nitems:\n# lead\n- a: 1\n  b:\n  - x\n# between\n- c: 2\nmore: {}\n";
        let sections = root_sections(text).expect("plain document");
        let keys: Vec<_> = sections.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["apiVersion", "kind", "items", "more"]);
        let items = &sections[2];
        let (indent, entries) = sequence_entries(text, items).expect("block sequence");
        assert_eq!(indent, 0);
        let texts: Vec<_> = entries
            .iter()
            .map(|&(a, b)| std::str::from_utf8(&text[a..b]).expect("utf-8"))
            .collect();
        assert_eq!(texts, ["- a: 1\n  b:\n  - x\n# between\n", "- c: 2\n"]);

        let indented = b"items:\n  - a: 1\n    b: 2\n  - c: 3\n";
        let sections = root_sections(indented).expect("plain document");
        let (indent, entries) = sequence_entries(indented, &sections[0]).expect("entries");
        assert_eq!((indent, entries.len()), (2, 2));

        let empty = b"items: []\n";
        let sections = root_sections(empty).expect("plain document");
        assert_eq!(sequence_entries(empty, &sections[0]), Some((0, Vec::new())));

        for odd in [
            &b"items: [a]\n"[..],
            b"items:\n-\n  a: 1\n",
            b"items:\n- - a\n",
        ] {
            let sections = root_sections(odd).expect("plain document");
            assert_eq!(sequence_entries(odd, &sections[0]), None, "{odd:?}");
        }
        for odd in [
            &b"{a: 1}\n"[..],
            b"a: 1\n...\n",
            b"a: 1\na: 2\n",
            b"  a: 1\n",
            b"a: {x: 1,\nb: 2}\n",
            "\u{feff}a: 1\n".as_bytes(),
        ] {
            assert_eq!(root_sections(odd), None, "{odd:?}");
        }
    }

    #[test]
    fn no_trailing_newline_and_empty_input() {
        assert!(scan_stream(b"").is_empty());
        let docs = scan_stream(b"kind: A");
        assert_eq!(docs[0].head.kind, plain("A"));
        assert_eq!(docs[0].end, 7);
    }

    #[test]
    fn only_kinds_skips_other_metadata() {
        let mut scanner = StreamScanner::new().only_kinds(["B".to_owned()]);
        let mut docs = Vec::new();
        let stream = concat!(
            "kind: A\nmetadata:\n  name: a\n---\nkind: B\nmetadata:\n  name: b\n",
            "---\nmetadata:\n  name: c\nkind: A\n",
            // The metadata of a kind not wanted is not read at all, odd or not.
            "---\nkind: A\nmetadata:\n  labels: {}\n---\nkind: A\nmetadata:\n  \"name\": x\n\tz: 1\n",
            // A root line still counts.
            "---\nkind: A\nmetadata: {name: x}\n",
        );
        for line in stream.split_inclusive('\n') {
            docs.extend(scanner.push_line(line.as_bytes(), line.len() as u64, false));
        }
        docs.extend(scanner.finish());
        let got: Vec<_> = docs
            .iter()
            .map(|d| (d.head.name.clone(), d.head.namespace.clone(), d.unusual))
            .collect();
        #[rustfmt::skip]
        assert_eq!(got, [
            (Field::NotRead, Field::NotRead, None),
            (plain("b"), Field::Absent, None),
            (plain("c"), Field::Absent, None),
            (Field::NotRead, Field::NotRead, None),
            (Field::NotRead, Field::NotRead, Some(Unusual::TabIndentation)),
            (Field::Absent, Field::Absent, Some(Unusual::UnusualMetadata)),
        ]);
    }

    /// Every document of `input` as `push_line` sees it, one whole line at a time.
    fn line_by_line(input: &[u8], kinds: Option<&[&str]>) -> Vec<Scanned> {
        let mut scanner = scanner_for(kinds);
        let mut docs = Vec::new();
        for line in input.split_inclusive(|&b| b == b'\n') {
            docs.extend(scanner.push_line(line, line.len() as u64, false));
        }
        docs.extend(scanner.finish());
        docs
    }

    fn scanner_for(kinds: Option<&[&str]>) -> StreamScanner {
        match kinds {
            Some(kinds) => StreamScanner::new().only_kinds(kinds.iter().map(|k| (*k).to_owned())),
            None => StreamScanner::new(),
        }
    }

    /// Feeding a stream in pieces of any size gives the documents that feeding it line by line
    /// gives: the bulk skip of indented lines and the lines cut between pieces change nothing.
    #[test]
    fn chunks_give_what_lines_give() {
        let stream = concat!(
            "# lead\n---\n# Source: a\napiVersion: v1\nkind: ConfigMap\nmetadata:\n",
            "  name: one\n  namespace: ns\ndata:\n  a: |\n    ---\n    kind: Installation\n",
            "\n# comment\n  b: x\n---\nkind: Deployment\napiVersion: apps/v1\nspec:\n",
            "  template:\n    metadata:\n      name: inner\nmetadata:\n  name: two\n",
            "---   # c\nkind: B\nx: |\n  ---x\n...\nkind: C\nmetadata:\n  name: a\n   b\n",
            "---\nkind: A\r\nmetadata:\r\n  name: x\r\nspec:\r\n  y: 1\r\n\r\n",
            "---\nkind: A\nspec:\n\tx: 1\n---\nkind: \"quoted\"\nmetadata: {name: f}\n",
            "---\n%YAML 1.1\n---\n  indented: root\n---\nkind: Last\nmetadata:\n  name: end",
        );
        check_chunks(stream.as_bytes(), 11);
    }

    /// Feed `bytes` in pieces of every size, with and without a kind filter, and compare with
    /// line-by-line feeding (which never takes the fast paths of `push_chunk`).
    fn check_chunks(bytes: &[u8], documents: usize) {
        for kinds in [None, Some(&["ConfigMap", "A", "Installation"][..])] {
            let expected = line_by_line(bytes, kinds);
            assert_eq!(expected.len(), documents, "{expected:#?}");
            for piece in 1..=bytes.len() {
                let mut scanner = scanner_for(kinds);
                let mut docs = Vec::new();
                for chunk in bytes.chunks(piece) {
                    scanner.push_chunk(chunk, &mut docs);
                }
                scanner.finish_into(&mut docs);
                assert_eq!(docs, expected, "pieces of {piece} bytes, kinds {kinds:?}");
            }
        }
        assert_eq!(scan_stream(bytes), line_by_line(bytes, None));
    }

    /// Heads that look like the common `---` / `apiVersion` / `kind` / `metadata` shape but
    /// that the fast path must leave to the general one; fed in pieces of every size, they give
    /// what line-by-line feeding gives.
    #[test]
    fn fast_path_refuses_odd_heads() {
        let stream = concat!(
            // The common shape, for reference.
            "---\n# Source: a\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
            "  namespace: ns\n  labels:\n    name: deep\ndata:\n",
            // `kind:` and `---` inside a block scalar.
            "  x: |\n    ---\n    kind: Installation\n    metadata:\n      name: default\n",
            "---\n{apiVersion: v1, kind: Installation}\n",
            "--- !tag\nkind: A\n---x\nkind: A\n----\n--- # c\nkind: A\n---\t\nkind: A\n",
            "--- {kind: A}\n",
            "---\r\nkind: A\r\napiVersion: v1\r\nmetadata:\r\n  name: x\r\n",
            "---\n\u{feff}kind: A\n",
            "---\nkind: A\n...\nkind: Installation\nmetadata:\n  name: z\n",
            "---\n\"kind\": Installation\n'apiVersion': v1\n",
            "---\nkind: &k Installation\nmetadata: &m\n  name: *n\n",
            "---\napiVersion: *a\nkind: !!str A\n",
            "---\nkind: yes\n---\nkind: No\n---\nkind: null\n---\nkind: on\n",
            "---\napiVersion: v1 # c\nkind: A \n---\nkind:  A\n---\nkind: A:b\n",
            "---\nkind: 1A\n---\nkind: A#b\n---\nkind: \u{c4}\n---\nkind: A\nkind: A\n",
            "---\nkind: A\nmetadata:\n  name: x\n    continued\n",
            "---\nkind: A\nmetadata:\n    name: x\n  namespace: y\n",
            "---\nkind: A\nmetadata:\n  name: x\n  name: y\n",
            "---\nkind: A\nmetadata:\n  namespace: ns\n  name: \"q\"\n",
            "---\nkind: A\nmetadata:\n  name:\n    x\n",
            "---\nkind: A\nmetadata:\n  name: x\n\tnamespace: y\n",
            "---\nkind: A\nmetadata: # c\n  name: x\nmetadata:\n  name: y\n",
            "---\nmetadata:\n  name: first\nkind: Other\n",
            "---\nkind: Other\nmetadata:\n  \"name\": x\n  name: &a y\n\tz: 1\n",
            "---\nkind: A\nmetadata:\n  name: yes\n  namespace: ns-1\n",
            "---\nkind: A\nmetadata:\n  name: x\nspec:\n  metadata:\n    name: inner\n",
            "---\nkind: A\nmetadata:\n  name: last",
        );
        check_chunks(stream.as_bytes(), 36);
    }

    /// A line cut between pieces keeps only its first `line_prefix` bytes: a field read from
    /// such a line is unclear, and the document's offsets still count every byte.
    #[test]
    fn cut_long_lines_keep_a_prefix() {
        let check = |prefix: usize, piece: usize, kind: Field, name: Field| {
            let input = b"kind: LongKindName\nmetadata:\n  name: x\n";
            let mut scanner = StreamScanner::new().line_prefix(prefix);
            let mut docs = Vec::new();
            for chunk in input.chunks(piece) {
                scanner.push_chunk(chunk, &mut docs);
            }
            scanner.finish_into(&mut docs);
            assert_eq!(docs.len(), 1);
            assert_eq!(
                docs[0].head.kind, kind,
                "prefix {prefix}, pieces of {piece}"
            );
            assert_eq!(
                docs[0].head.name, name,
                "prefix {prefix}, pieces of {piece}"
            );
            assert_eq!(docs[0].end, input.len() as u64);
        };
        // The cut lines keep `kind` and `  na`, which are no key lines: the document is flagged
        // and the real parser reads it.
        check(4, 5, Field::Absent, Field::Absent);
        check(64, 5, plain("LongKindName"), plain("x"));
        check(4, 100, plain("LongKindName"), plain("x"));

        // A `---` line cut after its first bytes may carry content: the document is flagged.
        let mut scanner = StreamScanner::new().line_prefix(4);
        let mut docs = Vec::new();
        for chunk in b"a: 1\n---     {b: 2}\nc: 3\n".chunks(6) {
            scanner.push_chunk(chunk, &mut docs);
        }
        scanner.finish_into(&mut docs);
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].unusual, Some(Unusual::ContentOnDocumentStart));

        // A cut line that kept only indentation is no blank line: it may hold a key.
        for input in [
            &b"kind: A
metadata:
      <<: *b
"[..],
            b"---
      kind: A
",
        ] {
            let mut scanner = StreamScanner::new().line_prefix(4);
            let mut docs = Vec::new();
            for chunk in input.chunks(input.len() - 3) {
                scanner.push_chunk(chunk, &mut docs);
            }
            scanner.finish_into(&mut docs);
            assert_eq!(docs.len(), 1);
            assert_eq!(docs[0].unusual, Some(Unusual::LongLine), "{input:?}");
            assert!(docs[0].needs_parse() && !docs[0].is_empty());
        }
    }

    #[test]
    fn truncated_lines_are_unclear() {
        let mut scanner = StreamScanner::new();
        assert!(scanner.push_line(b"kind: Averylong", 9000, true).is_none());
        let doc = scanner.finish().expect("one document");
        assert_eq!(doc.head.kind, Field::Unclear);
        assert_eq!(doc.end, 9000);
    }
}
