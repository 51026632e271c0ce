//! A line-based scan of YAML streams we only pass through (Helm output, KRM items).
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
//! The scan is one pass over whole lines and looks only at the start of each line. Lines that
//! cannot matter (indented lines under root keys other than `metadata`, comments, blank lines)
//! are passed over in bulk by a search for the next line break; every other line is classified
//! ([`StreamScanner::push_line`]). With [`StreamScanner::only_kinds`], a document's kind is
//! classified when its `kind:` line is read, and a document of another kind costs no allocation:
//! its fields are reported as [`Field::NotRead`]. [`LineBuffer`] feeds the scanner from a reader
//! through one buffer that carries an unfinished line over to the next read.

use std::fmt;
use std::io;

/// Bytes kept of a line longer than the [`LineBuffer`] (enough to tell a `---` or `...` line
/// and a key); a field on such a line is unclear.
const LONG_LINE_PREFIX: usize = 4 << 10;

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
    /// Not reported: the document's kind is not one the scanner was asked about
    /// ([`StreamScanner::only_kinds`]); its `metadata` was skipped.
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

/// Which head field a key line sets (the index of its [`Slot`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    ApiVersion = 0,
    Kind = 1,
    Name = 2,
    Namespace = 3,
}

/// What was read of one head field so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Seen {
    #[default]
    Absent,
    /// The slot's text.
    Plain,
    Unclear,
}

/// One head field of the document being read. The text stays between documents, so that
/// reading a field allocates only when its document is reported.
#[derive(Debug, Default)]
struct Slot {
    seen: Seen,
    text: String,
}

impl Slot {
    /// The field as reported, and the slot emptied for the next document.
    fn take(&mut self, reported: bool) -> Field {
        let seen = std::mem::take(&mut self.seen);
        match seen {
            _ if !reported => Field::NotRead,
            Seen::Absent => Field::Absent,
            Seen::Plain => Field::Plain(self.text.clone()),
            Seen::Unclear => Field::Unclear,
        }
    }
}

/// Scan state of the document being read.
#[derive(Debug)]
struct DocState {
    start: u64,
    line: usize,
    has_bytes: bool,
    content_start: Option<u64>,
    /// `apiVersion`, `kind`, `metadata.name`, `metadata.namespace` (by [`Which`]).
    fields: [Slot; 4],
    unusual: Option<Unusual>,
    ended: bool,
    section: Section,
    metadata_indent: Option<usize>,
    seen_metadata: bool,
    /// The field whose plain value was read from the last key line, and that line's
    /// indentation: a deeper line right after it means the value continues (a multi-line
    /// plain scalar), which only a real parser can join.
    pending: Option<(Which, usize)>,
    /// Kinds asked about; `None` for every kind.
    only_kinds: Option<Vec<String>>,
    /// False once the document's kind is read and is not among [`DocState::only_kinds`]: its
    /// `metadata` is then skipped and its fields are not reported.
    wanted: bool,
}

impl DocState {
    fn new(start: u64, line: usize) -> Self {
        DocState {
            start,
            line,
            has_bytes: false,
            content_start: None,
            fields: Default::default(),
            unusual: None,
            ended: false,
            section: Section::Start,
            metadata_indent: None,
            seen_metadata: false,
            pending: None,
            only_kinds: None,
            wanted: true,
        }
    }

    /// True while lines starting with a space, a `#` or nothing at all cannot change anything:
    /// the document is under a root key other than `metadata`, no value waits for a
    /// continuation line, and no `...` marker has ended it. Such lines are then skipped in bulk.
    fn skips_indented(&self) -> bool {
        self.section == Section::Other && self.pending.is_none() && !self.ended
    }

    fn flag(&mut self, why: Unusual) {
        // Keep the first reason: it is the one closest to the top of the document.
        if self.unusual.is_none() {
            self.unusual = Some(why);
        }
    }

    /// Record a key the scan reads; `indent` is the key line's indentation.
    fn set(&mut self, which: Which, value: Value<'_>, indent: usize) {
        let slot = self.slot(which);
        if slot.seen != Seen::Absent {
            slot.seen = Seen::Unclear;
            self.flag(Unusual::DuplicateKey);
        } else if let Value::Plain(text) = value {
            slot.seen = Seen::Plain;
            slot.text.clear();
            slot.text.push_str(text);
            self.pending = Some((which, indent));
        } else {
            // An empty value may continue on the next, deeper line; a real parser decides.
            slot.seen = Seen::Unclear;
        }
        if which == Which::Kind {
            // The kind is classified here, from the slot's text: no string per document.
            let [_, kind, _, _] = &self.fields;
            self.wanted = match (&self.only_kinds, kind.seen) {
                (Some(kinds), Seen::Plain) => {
                    is_list_kind(&kind.text) || kinds.contains(&kind.text)
                }
                _ => true,
            };
        }
    }

    /// The slot of one head field.
    fn slot(&mut self, which: Which) -> &mut Slot {
        let [api_version, kind, name, namespace] = &mut self.fields;
        match which {
            Which::ApiVersion => api_version,
            Which::Kind => kind,
            Which::Name => name,
            Which::Namespace => namespace,
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
                let rest = line.get(indent..).unwrap_or_default();
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
                self.slot(which).seen = Seen::Unclear;
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
        } else if self.wanted {
            self.section = Section::Metadata;
        }
        // Otherwise the kind is known and not wanted: nothing under `metadata` can change what
        // the caller does with the document (a column-0 line ends the block whatever it holds),
        // so the block is passed over in bulk like any other root key's, unread.
    }

    /// End this document at `end` and start the next one in place at the same offset, on
    /// line `line`, keeping the kinds asked about and the slots' text.
    fn restart(&mut self, index: usize, end: u64, line: usize) -> Scanned {
        let [api_version, kind, name, namespace] = &mut self.fields;
        let scanned = Scanned {
            index,
            start: self.start,
            end,
            line: self.line,
            content_start: self.content_start,
            head: Head {
                api_version: api_version.take(self.wanted),
                kind: kind.take(self.wanted),
                name: name.take(self.wanted),
                namespace: namespace.take(self.wanted),
            },
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
        self.wanted = true;
        scanned
    }
}

/// True for the kinds of list documents (`List`, `InstallationList`), whose items may be of any
/// kind: they are always reported.
fn is_list_kind(kind: &str) -> bool {
    kind.ends_with("List")
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
    let mut prev = None;
    for (idx, &byte) in line.iter().enumerate() {
        match byte {
            b':' => {
                let (key, colon_on) = line.split_at_checked(idx).unwrap_or_default();
                let after = colon_on.get(1..).unwrap_or_default();
                if matches!(after.first(), None | Some(b' ' | b'\t' | b'\r')) {
                    return KeyLine::Key(trim_end(key), after);
                }
            }
            // A comment before any colon: the line is a scalar, not a key.
            b'#' if matches!(prev, Some(b' ' | b'\t')) => return KeyLine::NotAKey,
            _ => {}
        }
        prev = Some(byte);
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
            let body = rest.get(1..).unwrap_or_default();
            let Some(close) = body.iter().position(|&b| b == first) else {
                return Value::Unclear;
            };
            let (inner, closing_on) = body.split_at_checked(close).unwrap_or_default();
            let tail = trim_start(closing_on.get(1..).unwrap_or_default());
            // Escapes (`\` in double quotes, `''` in single quotes) and anything after the
            // closing quote other than a comment need a real parser.
            if (first == b'"' && inner.contains(&b'\\'))
                || (first == b'\'' && tail.first() == Some(&b'\''))
                || !matches!(tail.first(), None | Some(b'#'))
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
            let mut text = rest;
            for (idx, pair) in rest.windows(2).enumerate() {
                match pair {
                    [b' ' | b'\t', b'#'] => {
                        text = rest.get(..=idx).unwrap_or(rest);
                        break;
                    }
                    [b':', b' '] => return Value::Unclear,
                    _ => {}
                }
            }
            let text = trim_end(text);
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

fn trim_start(mut bytes: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = bytes {
        bytes = rest;
    }
    bytes
}

fn trim_end(mut bytes: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\t' | b'\r'] = bytes {
        bytes = rest;
    }
    bytes
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
        let rest = trim_start(trim_end(line.get(3..).unwrap_or_default()));
        if matches!(rest.first(), None | Some(b'#')) {
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
/// Feed the stream, in order, as whole lines: a block of them at a time with
/// [`StreamScanner::push_lines`] (or through a [`LineBuffer`]), or one at a time with
/// [`StreamScanner::push_line`]; both give the same documents. [`StreamScanner::finish`] returns
/// the last one.
#[derive(Debug)]
pub struct StreamScanner {
    doc: DocState,
    offset: u64,
    line: usize,
    index: usize,
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
        }
    }

    /// Report the fields only of documents of these kinds, of list documents (`List`,
    /// `<Kind>List`), and of documents whose kind is not plainly readable or comes after
    /// `metadata`. A document of any other kind is classified when its `kind:` line is read: its
    /// fields are [`Field::NotRead`], and its `metadata` block is passed over in bulk like any
    /// other root key's, so nothing in it is flagged either. Saves work on long streams where
    /// few documents matter.
    pub fn only_kinds<I: IntoIterator<Item = String>>(mut self, kinds: I) -> Self {
        self.doc.only_kinds = Some(kinds.into_iter().collect());
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

    /// Feed the next whole lines of the stream: `bytes` ends with a line break, unless it ends
    /// the stream. Every document completed by them is pushed onto `done`. Gives what
    /// [`StreamScanner::push_line`] gives line by line; the lines the scan would not look at
    /// (the indented lines under a root key other than `metadata`, which are most of a chart,
    /// and comments and blank lines) are passed over by a search for the next line break, never
    /// handled one by one.
    pub fn push_lines(&mut self, bytes: &[u8], done: &mut Vec<Scanned>) {
        let mut rest = bytes;
        while let Some(&first) = rest.first() {
            let skip = match first {
                b' ' => self.doc.skips_indented(),
                // Comments and empty lines only matter after a `...` marker (they start the next
                // document) and at the very start of a document (where they are its bytes).
                b'#' | b'\n' => self.doc.has_bytes && !self.doc.ended,
                _ => false,
            };
            let (line, lines) = if skip {
                skip_lines(rest, self.doc.skips_indented())
            } else {
                (find_newline(rest).map_or(rest.len(), |nl| nl + 1), 0)
            };
            let (line_bytes, after) = rest.split_at_checked(line).unwrap_or((rest, &[]));
            if skip {
                self.offset += line as u64;
                self.line += lines;
            } else {
                done.extend(self.push_line(line_bytes, line as u64, false));
            }
            rest = after;
        }
    }

    /// End the current document where the stream has got to and start the next one there.
    fn next_document(&mut self) -> Scanned {
        let done = self.doc.restart(self.index, self.offset, self.line);
        self.index += 1;
        done
    }

    /// End of stream: the last document, unless the stream ended right after a boundary.
    pub fn finish(mut self) -> Option<Scanned> {
        self.doc.has_bytes.then(|| self.next_document())
    }
}

/// Scan a whole in-memory stream.
pub fn scan_stream(text: &[u8]) -> Vec<Scanned> {
    let mut scanner = StreamScanner::new();
    let mut docs = Vec::new();
    scanner.push_lines(text, &mut docs);
    docs.extend(scanner.finish());
    docs
}

/// Feeds a [`StreamScanner`] from a reader through one fixed buffer, as ripgrep's line buffer
/// does: each read appends to the buffer, the whole lines in it are scanned, and the
/// unfinished last line moves to the front to be completed by the next read. A line longer
/// than the buffer is scanned from its first `LONG_LINE_PREFIX` bytes (a field on it is then
/// unclear).
/// Memory stays at the buffer's size whatever the stream.
#[derive(Debug)]
pub struct LineBuffer {
    buffer: Vec<u8>,
    /// Bytes at the start of `buffer` that continue from the last read: an unfinished line.
    kept: usize,
    /// Bytes read into `buffer` by the last [`LineBuffer::read`], after `kept`.
    fresh: usize,
    /// A line longer than the buffer, being passed over: its first bytes and its length so far.
    long: Option<(Vec<u8>, u64)>,
}

impl LineBuffer {
    /// A buffer of `capacity` bytes (at least one).
    pub fn new(capacity: usize) -> Self {
        LineBuffer {
            buffer: vec![0; capacity.max(1)],
            kept: 0,
            fresh: 0,
            long: None,
        }
    }

    /// Read once from `input` (retrying when interrupted) and return the bytes read: empty at
    /// the end of the input. Call [`LineBuffer::scan`] before the next read.
    pub fn read<R: io::Read + ?Sized>(&mut self, input: &mut R) -> io::Result<&[u8]> {
        let room = self.buffer.get_mut(self.kept..).unwrap_or_default();
        let got = loop {
            match input.read(room) {
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                got => break got?,
            }
        };
        // A reader never reports more than the room it was given; if one did, the bytes
        // beyond the room were never written.
        let got = got.min(room.len());
        self.fresh = got;
        Ok(room.get(..got).unwrap_or_default())
    }

    /// Scan the whole lines the last read completed.
    pub fn scan(&mut self, scanner: &mut StreamScanner, done: &mut Vec<Scanned>) {
        let filled = self.kept + std::mem::take(&mut self.fresh);
        #[expect(
            clippy::indexing_slicing,
            reason = "`read` fills at most the room after the kept bytes, so both fit the buffer"
        )]
        let bytes = &self.buffer[..filled];
        let mut start = 0;
        if let Some((prefix, len)) = &mut self.long {
            let Some(nl) = find_newline(bytes) else {
                keep_prefix(prefix, bytes);
                *len += filled as u64;
                self.kept = 0;
                return;
            };
            keep_prefix(prefix, bytes.get(..=nl).unwrap_or(bytes));
            let len = *len + nl as u64 + 1;
            done.extend(scanner.push_line(prefix, len, len > prefix.len() as u64));
            self.long = None;
            start = nl + 1;
        }
        let rest = bytes.get(start..).unwrap_or_default();
        let tail = match memchr::memrchr(b'\n', rest) {
            Some(last) => {
                scanner.push_lines(rest.get(..=last).unwrap_or(rest), done);
                start + last + 1
            }
            None if start == 0 && filled == self.buffer.len() => {
                // A line longer than the buffer: pass over it, keeping its first bytes.
                let mut prefix = Vec::new();
                keep_prefix(&mut prefix, bytes);
                self.long = Some((prefix, filled as u64));
                self.kept = 0;
                return;
            }
            None => start,
        };
        self.buffer.copy_within(tail..filled, 0);
        self.kept = filled - tail;
    }

    /// End of the input: scan the last line (which has no line break) and end the stream.
    pub fn finish(self, mut scanner: StreamScanner, done: &mut Vec<Scanned>) {
        match self.long {
            Some((prefix, len)) => {
                let truncated = len > prefix.len() as u64;
                done.extend(scanner.push_line(&prefix, len, truncated));
            }
            None => scanner.push_lines(self.buffer.get(..self.kept).unwrap_or_default(), done),
        }
        done.extend(scanner.finish());
    }
}

/// Add the start of `bytes` to `prefix`, up to [`LONG_LINE_PREFIX`] bytes in all.
fn keep_prefix(prefix: &mut Vec<u8>, bytes: &[u8]) {
    let room = LONG_LINE_PREFIX.saturating_sub(prefix.len());
    prefix.extend_from_slice(bytes.get(..room).unwrap_or(bytes));
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

/// Pass over the lines at the start of `bytes` that the document being scanned does nothing
/// with: comments and empty lines, and indented lines too when `indented` (the
/// [`DocState::skips_indented`] state). `bytes` holds whole lines and starts with such a line.
/// Returns the bytes and the lines passed over; a line that matters starts right after, unless
/// that is the end of `bytes`. Only the byte after each line break is looked at, so this runs
/// at the speed of the line break search.
fn skip_lines(bytes: &[u8], indented: bool) -> (usize, usize) {
    let mut lines = 0;
    let mut next = 0;
    loop {
        match find_newline(bytes.get(next..).unwrap_or_default()) {
            // The stream's last line, without a line break.
            None => return (bytes.len(), lines + 1),
            Some(nl) => {
                lines += 1;
                next += nl + 1;
            }
        }
        let skip = match bytes.get(next) {
            Some(b'#' | b'\n') => true,
            Some(b' ') => indented,
            _ => false,
        };
        if !skip {
            return (next, lines);
        }
    }
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
                if sections.is_empty() && !matches!(rest.first(), None | Some(b'#')) {
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
    let body = text.get(section.start..section.end)?;
    let mut lines = body.split_inclusive(|&b| b == b'\n');
    let key_line = lines.next()?;
    let KeyLine::Key(_, value) = split_key(key_line.strip_suffix(b"\n").unwrap_or(key_line)) else {
        return None;
    };
    let value = trim_start(trim_end(value));
    if let Some(after) = value.strip_prefix(b"[]")
        && trim_start(after).first().is_none_or(|&b| b == b'#')
    {
        return Some((0, Vec::new()));
    }
    if !matches!(value.first(), None | Some(b'#')) {
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
        let rest = body.get(spaces..).unwrap_or_default();
        match rest.first() {
            None | Some(b'#') => continue,
            Some(b'\t') => return None,
            Some(_) => {}
        }
        let entry_indent = *indent.get_or_insert(spaces);
        let is_entry = rest.starts_with(b"- ") && !matches!(rest.get(2), None | Some(b' ' | b'-'));

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
            // Lists are always reported; a kind that cannot be read too.
            "---\nkind: List\nitems: []\n---\nkind: \"B\"\nmetadata:\n  name: q\n",
        );
        for line in stream.split_inclusive('\n') {
            docs.extend(scanner.push_line(line.as_bytes(), line.len() as u64, false));
        }
        docs.extend(scanner.finish());
        let got: Vec<_> = docs
            .iter()
            .map(|d| {
                (
                    d.head.kind.clone(),
                    d.head.name.clone(),
                    d.head.namespace.clone(),
                    d.unusual,
                )
            })
            .collect();
        use Field::{Absent, NotRead, Unclear};
        #[rustfmt::skip]
        assert_eq!(got, [
            (NotRead, NotRead, NotRead, None),
            (plain("B"), plain("b"), Absent, None),
            // Read before the kind was known, but not reported.
            (NotRead, NotRead, NotRead, None),
            (NotRead, NotRead, NotRead, None),
            (NotRead, NotRead, NotRead, Some(Unusual::TabIndentation)),
            (NotRead, NotRead, NotRead, Some(Unusual::UnusualMetadata)),
            (plain("List"), Absent, Absent, None),
            (plain("B"), plain("q"), Absent, None),
        ]);
        // An unreadable kind leaves the document reported.
        let mut scanner = StreamScanner::new().only_kinds(["B".to_owned()]);
        let mut docs = Vec::new();
        scanner.push_lines(b"kind: *k\nmetadata:\n  name: q\n", &mut docs);
        docs.extend(scanner.finish());
        assert_eq!(
            (&docs[0].head.kind, &docs[0].head.name),
            (&Unclear, &plain("q"))
        );
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

    /// Feeding a stream in blocks of lines or through a [`LineBuffer`] in reads of any size
    /// gives the documents that feeding it line by line gives: the bulk skip of indented lines
    /// and the lines carried over between reads change nothing.
    #[test]
    fn blocks_and_reads_give_what_lines_give() {
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
        check_feeding(stream.as_bytes(), 11);
    }

    /// A reader that hands out at most `piece` bytes per read.
    struct Pieces<'a> {
        bytes: &'a [u8],
        piece: usize,
    }

    impl io::Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.piece.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// The documents of `bytes` read through a [`LineBuffer`] of `capacity` bytes in reads of
    /// at most `piece` bytes.
    fn through_buffer(
        bytes: &[u8],
        kinds: Option<&[&str]>,
        piece: usize,
        capacity: usize,
    ) -> Vec<Scanned> {
        let mut scanner = scanner_for(kinds);
        let mut lines = LineBuffer::new(capacity);
        let mut input = Pieces { bytes, piece };
        let mut docs = Vec::new();
        while !lines.read(&mut input).expect("in memory").is_empty() {
            lines.scan(&mut scanner, &mut docs);
        }
        lines.finish(scanner, &mut docs);
        docs
    }

    /// Feed `bytes` in blocks of every number of lines and through a line buffer in reads of
    /// every size, with and without a kind filter, and compare with line-by-line feeding
    /// (which never passes over lines in bulk).
    fn check_feeding(bytes: &[u8], documents: usize) {
        let longest = bytes
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        for kinds in [None, Some(&["ConfigMap", "A", "Installation"][..])] {
            let expected = line_by_line(bytes, kinds);
            assert_eq!(expected.len(), documents, "{expected:#?}");
            let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
            for block in 1..=lines.len() {
                let mut scanner = scanner_for(kinds);
                let mut docs = Vec::new();
                for group in lines.chunks(block) {
                    scanner.push_lines(&group.concat(), &mut docs);
                }
                docs.extend(scanner.finish());
                assert_eq!(docs, expected, "blocks of {block} lines, kinds {kinds:?}");
            }
            for piece in 1..=bytes.len() {
                for capacity in [longest + 1, longest + 7, 4096] {
                    let docs = through_buffer(bytes, kinds, piece, capacity);
                    assert_eq!(
                        docs, expected,
                        "reads of {piece} bytes into {capacity}, kinds {kinds:?}"
                    );
                }
            }
        }
        assert_eq!(scan_stream(bytes), line_by_line(bytes, None));
    }

    /// Heads that look like the common `---` / `apiVersion` / `kind` / `metadata` shape but
    /// are not; fed in blocks
    /// and reads of every size, they give what line-by-line feeding gives.
    #[test]
    fn odd_heads_fed_any_way() {
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
        check_feeding(stream.as_bytes(), 36);
    }

    /// A line longer than the line buffer is scanned from its first bytes: a field read from
    /// such a line is unclear, and the document's offsets still count every byte.
    #[test]
    fn lines_longer_than_the_buffer() {
        // Lines longer than the buffer but not than the kept prefix read as usual.
        let input = b"kind: LongKindName\nmetadata:\n  name: x\n";
        let docs = through_buffer(input, None, 3, 5);
        assert_eq!(docs, scan_stream(input));
        // A field on a line longer than the prefix is unclear.
        let long = "x".repeat(LONG_LINE_PREFIX);
        let input = format!("kind: A\nmetadata:\n  name: {long}\n  namespace: ns\n");
        for (capacity, name) in [(64, Field::Unclear), (2 * LONG_LINE_PREFIX, plain(&long))] {
            let docs = through_buffer(input.as_bytes(), None, 1000, capacity);
            assert_eq!(docs.len(), 1);
            assert_eq!(docs[0].head.name, name, "buffer of {capacity}");
            assert_eq!(docs[0].head.namespace, plain("ns"));
            assert_eq!(docs[0].end, input.len() as u64);
        }

        // A long `---` line may carry content: the document is flagged.
        let docs = through_buffer(b"a: 1\n---     {b: 2}\nc: 3\n", None, 6, 6);
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].unusual, Some(Unusual::ContentOnDocumentStart));
        assert_eq!(docs[1].start, 5);

        // A long line that kept only indentation is no blank line: it may hold a key.
        let spaces = " ".repeat(LONG_LINE_PREFIX + 10);
        for input in [
            format!("kind: A\nmetadata:\n{spaces}<<: *b\n"),
            format!("---\n{spaces}kind: A\n"),
        ] {
            let docs = through_buffer(input.as_bytes(), None, 4096, 4096);
            assert_eq!(docs.len(), 1);
            assert_eq!(docs[0].unusual, Some(Unusual::LongLine), "{input:?}");
            assert!(docs[0].needs_parse() && !docs[0].is_empty());
            assert_eq!(docs[0].end, input.len() as u64);
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
