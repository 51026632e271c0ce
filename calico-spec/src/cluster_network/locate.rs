//! Field path <-> line/column index of one YAML document, built from parser events.
//!
//! serde-saphyr reports where a deserialization error happened but not the field path, and
//! semantic checks know the field path but not the position. This index links the two: it
//! records, for every node of the first document, its dotted path
//! (`spec.podPools[0].blockSize`), the position of its key and the position of its value.
//! It is built only when a problem has to be reported, so correct input pays nothing for it.
//!
//! Most files people write are plain block YAML: one key or one list item per line, keys that
//! need no quotes, values on one line. For those, a line scan ([`scan_block`]) finds the same
//! entries as the parser at a small fraction of the cost, which matters because `render`
//! reports a lint on the article's own cluster. Anything outside that shape (flow collections,
//! anchors, tags, block scalars, multi-line values, tabs, CRLF, non-ASCII lines, an empty
//! value) makes the scan give up, and the parser builds the index. A test holds the two to
//! the same entries on every input the scan accepts.

use serde_saphyr::granit_parser::{Event, Parser};

/// A one-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// One-based line.
    pub line: usize,
    /// One-based column.
    pub column: usize,
}

#[derive(Debug, PartialEq, Eq)]
struct Entry {
    path: String,
    key: Option<Position>,
    value: Position,
}

/// The positions of every node in a document, by field path.
#[derive(Debug, Default)]
pub struct SpanIndex {
    entries: Vec<Entry>,
}

enum Frame {
    Mapping {
        path: String,
        key: Option<(String, Position)>,
        expecting_key: bool,
    },
    Sequence {
        path: String,
        next_idx: usize,
    },
}

impl SpanIndex {
    /// Index the first document of `text`. Text the parser rejects yields the nodes read
    /// before the error, which is all a diagnostic needs.
    pub fn build(text: &str) -> SpanIndex {
        match scan_block(text) {
            Some(entries) => SpanIndex { entries },
            None => SpanIndex::from_events(text),
        }
    }

    /// The index from the YAML parser's events: any YAML.
    fn from_events(text: &str) -> SpanIndex {
        let mut entries = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        let mut seen_document = false;
        for item in Parser::new_from_str(text) {
            let Ok((event, span)) = item else { break };
            let position = Position {
                line: span.start.line(),
                column: span.start.col() + 1,
            };
            let opens = match &event {
                Event::DocumentStart(..) => {
                    if seen_document {
                        break;
                    }
                    seen_document = true;
                    continue;
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    stack.pop();
                    continue;
                }
                Event::MappingStart(..) => Some(true),
                Event::SequenceStart(..) => Some(false),
                Event::Scalar(..) | Event::Alias(..) => None,
                _ => continue,
            };
            // A scalar in key position names the next value; anything else is a value.
            if let Some(Frame::Mapping {
                key, expecting_key, ..
            }) = stack.last_mut()
                && *expecting_key
            {
                *expecting_key = false;
                let name = match &event {
                    Event::Scalar(value, ..) => value.to_string(),
                    _ => String::from("?"),
                };
                *key = Some((name, position));
                if let Some(is_mapping) = opens {
                    // A complex key: index nothing inside it, but keep the nesting balanced.
                    stack.push(complex_key_frame(is_mapping));
                }
                continue;
            }
            let (path, key_position) = match stack.last_mut() {
                None => (String::new(), None),
                Some(Frame::Mapping {
                    path,
                    key,
                    expecting_key,
                }) => {
                    *expecting_key = true;
                    let (name, at) = key.take().unwrap_or_else(|| (String::from("?"), position));
                    (join(path, &name), Some(at))
                }
                Some(Frame::Sequence { path, next_idx }) => {
                    let path = format!("{path}[{next_idx}]");
                    *next_idx += 1;
                    (path, None)
                }
            };
            entries.push(Entry {
                path: path.clone(),
                key: key_position,
                value: position,
            });
            match opens {
                Some(true) => stack.push(Frame::Mapping {
                    path,
                    key: None,
                    expecting_key: true,
                }),
                Some(false) => stack.push(Frame::Sequence { path, next_idx: 0 }),
                None => {}
            }
        }
        SpanIndex { entries }
    }

    /// Where the value at `path` starts, falling back to the nearest indexed ancestor.
    pub fn value_position(&self, path: &str) -> Option<Position> {
        let mut path = path;
        loop {
            if let Some(entry) = self.entries.iter().find(|entry| entry.path == path) {
                return Some(entry.value);
            }
            path = parent(path)?;
        }
    }

    /// The field path of the key or value that starts at `position`, if any (for a value, the
    /// innermost node starting there).
    pub fn path_at(&self, position: Position) -> Option<&str> {
        // A key match wins: a block mapping's value starts where its first key does.
        let by_key = self
            .entries
            .iter()
            .find(|entry| entry.key == Some(position));
        by_key
            .or_else(|| {
                self.entries
                    .iter()
                    .rev()
                    .find(|entry| entry.value == position)
            })
            .map(|entry| entry.path.as_str())
    }

    /// The path of the innermost mapping or sequence that contains `position`: the last node
    /// starting at or before it whose key is not exactly there (an error inside a mapping, such
    /// as an unknown key, belongs to that mapping).
    pub fn enclosing_path(&self, position: Position) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|entry| entry.value <= position && entry.key != Some(position))
            .map(|entry| entry.path.as_str())
    }
}

/// A mapping or sequence open during [`scan_block`], with the column (zero-based) of its keys or
/// dashes.
struct Block {
    indent: usize,
    path: String,
    /// For a sequence, the index of its next item; `None` for a mapping.
    next_idx: Option<usize>,
}

/// A key whose value starts on a later line: its path, key position and column.
struct Pending {
    path: String,
    key: Position,
    indent: usize,
}

/// The entries of the first document, read line by line, when `text` is plain block YAML;
/// `None` as soon as a line is anything else. See the module documentation.
fn scan_block(text: &str) -> Option<Vec<Entry>> {
    if text.contains(['\t', '\r']) || text.starts_with('\u{feff}') {
        return None;
    }
    let mut entries = Vec::new();
    let mut stack: Vec<Block> = Vec::new();
    let mut pending: Option<Pending> = None;
    for (line_idx, line) in text.lines().enumerate() {
        let line_no = line_idx + 1;
        let rest = line.trim_start_matches(' ');
        let indent = line.len() - rest.len();
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        if !line.is_ascii() || rest.starts_with('%') {
            return None;
        }
        if indent == 0 && (rest.starts_with("---") || rest.starts_with("...")) {
            if rest.len() > 3 && !rest[3..].starts_with([' ', '#']) {
                // `---word` is a plain scalar, not a marker.
                return None;
            }
            if stack.is_empty() && pending.is_none() && rest.starts_with("---") {
                if rest[3..].trim_start().is_empty() || rest[3..].trim_start().starts_with('#') {
                    continue;
                }
                return None;
            }
            // The end of the first document: the parser's index stops there too.
            break;
        }
        scan_line(
            line_no,
            indent,
            rest,
            &mut stack,
            &mut pending,
            &mut entries,
        )?;
    }
    // A key with nothing after it, at the end of the text, has a null value; leave that case
    // to the parser.
    if pending.is_some() || entries.is_empty() {
        return None;
    }
    Some(entries)
}

/// Index one content line starting at column `indent` (zero-based), or `None` when it is
/// outside plain block YAML.
fn scan_line(
    line_no: usize,
    mut indent: usize,
    mut rest: &str,
    stack: &mut Vec<Block>,
    pending: &mut Option<Pending>,
    entries: &mut Vec<Entry>,
) -> Option<()> {
    let at = |column: usize| Position {
        line: line_no,
        column: column + 1,
    };
    let is_dash = rest == "-" || rest.starts_with("- ");
    // Close what this line's column ends.
    while stack.last().is_some_and(|top| top.indent > indent) {
        stack.pop();
    }
    if let Some(open) = pending.take() {
        // A list written at its key's own indentation is valid YAML, but the parser places
        // it differently; leave it to the parser.
        if indent <= open.indent {
            return None;
        }
        entries.push(Entry {
            path: open.path.clone(),
            key: Some(open.key),
            value: at(indent),
        });
        stack.push(Block {
            indent,
            path: open.path,
            next_idx: is_dash.then_some(0),
        });
    } else if stack.is_empty() {
        if !entries.is_empty() {
            // A line left of the root node: not one document of plain block YAML.
            return None;
        }
        entries.push(Entry {
            path: String::new(),
            key: None,
            value: at(indent),
        });
        stack.push(Block {
            indent,
            path: String::new(),
            next_idx: is_dash.then_some(0),
        });
    }
    let top = stack.last_mut()?;
    if top.indent != indent {
        return None;
    }
    if is_dash {
        let next_idx = top.next_idx.as_mut()?;
        let path = format!("{}[{next_idx}]", top.path);
        *next_idx += 1;
        let item = rest[1..].trim_start_matches(' ');
        if item.is_empty() || item.starts_with('#') || item.starts_with("- ") || item == "-" {
            return None;
        }
        let item_indent = indent + (rest.len() - item.len());
        if split_key(item).is_none() {
            check_scalar(item)?;
            entries.push(Entry {
                path,
                key: None,
                value: at(item_indent),
            });
            return Some(());
        }
        // A mapping that starts on the dash's line.
        entries.push(Entry {
            path: path.clone(),
            key: None,
            value: at(item_indent),
        });
        stack.push(Block {
            indent: item_indent,
            path,
            next_idx: None,
        });
        indent = item_indent;
        rest = item;
    } else if top.next_idx.is_some() {
        return None;
    }
    let (key, value) = split_key(rest)?;
    let map_path = &stack.last()?.path;
    let path = if map_path.is_empty() {
        key.to_owned()
    } else {
        format!("{map_path}.{key}")
    };
    if value.is_empty() || value.starts_with('#') {
        *pending = Some(Pending {
            path,
            key: at(indent),
            indent,
        });
        return Some(());
    }
    check_scalar(value)?;
    entries.push(Entry {
        path,
        key: Some(at(indent)),
        value: at(indent + (rest.len() - value.len())),
    });
    Some(())
}

/// `key: value` (or `key:`) with a key that needs no quoting: the key, and the value with the
/// spaces before it removed.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let (key, after) = (&text[..colon], &text[colon + 1..]);
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/'))
        && !key.starts_with(['-', '.']);
    if !plain || !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    Some((key, after.trim_start_matches(' ')))
}

/// `Some` when `value` is a scalar that ends on its line: plain, or quoted and closed, with
/// nothing but a comment after it.
fn check_scalar(value: &str) -> Option<()> {
    let first = value.bytes().next()?;
    match first {
        b'"' => {
            let body = &value[1..];
            let close = body.find('"')?;
            let after = body[close + 1..].trim_start_matches(' ');
            (!body[..close].contains('\\') && (after.is_empty() || after.starts_with('#')))
                .then_some(())
        }
        b'\'' => {
            let body = &value[1..];
            let close = body.find('\'')?;
            let after = body[close + 1..].trim_start_matches(' ');
            (after.is_empty() || after.starts_with('#')).then_some(())
        }
        b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`'
        | b'-' | b'?' | b':' | b',' | b'#' => None,
        // A plain scalar ends at ` #`; before that it must not hold `: ` (a nested mapping on
        // one line is an error the parser should report).
        _ => {
            let content = value.split(" #").next().unwrap_or(value).trim_end();
            (!content.contains(": ") && !content.ends_with(':')).then_some(())
        }
    }
}

fn complex_key_frame(is_mapping: bool) -> Frame {
    let path = String::from("?");
    if is_mapping {
        Frame::Mapping {
            path,
            key: None,
            expecting_key: true,
        }
    } else {
        Frame::Sequence { path, next_idx: 0 }
    }
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// The path one level up: `a.b[2]` -> `a.b`, `a.b` -> `a`, `a` -> `` (the root), root -> none.
fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let cut = path.rfind(['.', '[']).unwrap_or(0);
    Some(&path[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, path: &str, expected: (usize, usize)) {
        let index = SpanIndex::build(text);
        let position = index.value_position(path).expect("path indexed");
        assert_eq!((position.line, position.column), expected, "{path}");
    }

    /// Every ClusterNetwork the repository holds: the examples and the test inputs.
    fn corpus() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut texts = Vec::new();
        let mut dirs = vec![root.join("examples"), root.join("tests")];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|ext| ext == "yaml")
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    texts.push(text);
                }
            }
        }
        texts.sort();
        texts
    }

    /// The line scan either gives up or finds exactly what the parser finds.
    fn check_same(text: &str) -> bool {
        let Some(scanned) = scan_block(text) else {
            return false;
        };
        let parsed = SpanIndex::from_events(text).entries;
        assert_eq!(scanned, parsed, "line scan and parser disagree on:\n{text}");
        true
    }

    #[test]
    fn line_scan_matches_the_parser_on_the_repository() {
        let corpus = corpus();
        assert!(corpus.len() >= 10, "found only {} YAML files", corpus.len());
        let mut scanned = 0;
        for text in &corpus {
            scanned += usize::from(check_same(text));
        }
        // The examples are plain block YAML; the scan must take them.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        for name in ["ha-ebpf", "bgp-loadbalancer", "dual-stack", "iptables-ipip"] {
            let text = std::fs::read_to_string(root.join(name).join("cluster.yaml")).unwrap();
            assert!(
                check_same(&text),
                "the line scan gave up on examples/{name}"
            );
        }
        assert!(scanned >= 5, "the line scan took only {scanned} files");
    }

    #[test]
    fn line_scan_matches_the_parser_on_variants() {
        let base = "# c\napiVersion: v1\nkind: K\nmetadata:\n  name: x # note\nspec:\n  pools:\n    - name: a\n      cidr: 10.0.0.0/16\n      uses:\n        - Workload\n        - 'Tunnel'\n\n    -   name: \"b\"\n        cidr: fd00::/56\n  avoid:\n    - 192.168.0.0/16 # lan\n  port: 6443\n";
        assert!(check_same(base), "the plain variant must be scanned");
        let variants = [
            base.to_owned(),
            format!("---\n{base}"),
            format!("{base}---\nother: 1\n"),
            format!("{base}...\n"),
            base.replace("  ", "    "),
            base.replace("\n", "\r\n"),
            base.replace("  ", "\t"),
            base.replace("x # note", "[a, b]"),
            base.replace("x # note", "{a: b}"),
            base.replace("x # note", "&anchor x"),
            base.replace("x # note", "!tag x"),
            base.replace("x # note", "|\n    text"),
            base.replace("x # note", "x\n    continued"),
            base.replace("x # note", ""),
            base.replace("x # note", "\"a\\\"b\""),
            base.replace("x # note", "'it''s'"),
            base.replace("x # note", "a: b"),
            base.replace("name: x", "\"name\": x"),
            base.replace("name: x", "? name\n  : x"),
            base.replace("    - name: a", "    - - name: a"),
            base.replace("    - name: a", "    -\n      name: a"),
            base.replace("    - name: a", "  - name: a"),
            base.replace("kind: K", "kind: Kä"),
            base.replace("port: 6443", "port:"),
            base.replace("port: 6443", "port: 6443\nlate: 1"),
            base.replace("apiVersion: v1", "  apiVersion: v1"),
            format!("\u{feff}{base}"),
            String::from("- a\n- b\n"),
            String::from("a: 1\n  b: 2\n"),
            String::from("a:\n- 1\n- 2\nb: 3\n"),
            String::from("%YAML 1.2\n---\na: 1\n"),
            String::from("--- a: 1\n"),
            String::from("---word: 1\n"),
        ];
        let mut scanned = 0;
        for text in &variants {
            scanned += usize::from(check_same(text));
        }
        assert!(scanned >= 6, "the line scan took only {scanned} variants");
    }

    #[test]
    fn positions_by_path() {
        let text = "a: 1\nspec:\n  pools:\n    - name: x\n      blockSize: 300\n";
        check(text, "a", (1, 4));
        check(text, "spec.pools[0].name", (4, 13));
        check(text, "spec.pools[0].blockSize", (5, 18));
        check(text, "spec.pools[0].missing", (4, 7));
        let index = SpanIndex::build(text);
        assert_eq!(
            index.path_at(Position { line: 5, column: 7 }),
            Some("spec.pools[0].blockSize")
        );
    }
}
