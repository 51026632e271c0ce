//! Field path <-> line/column index of one YAML document, built from parser events.
//!
//! serde-saphyr reports where a deserialization error happened but not the field path, and
//! semantic checks know the field path but not the position. This index links the two: it
//! records, for every node of the first document, its dotted path
//! (`spec.podPools[0].blockSize`), the position of its key and the position of its value.
//! It is built only when a problem has to be reported, so correct input pays nothing for it.

use serde_saphyr::granit_parser::{Event, Parser};

/// A one-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// One-based line.
    pub line: usize,
    /// One-based column.
    pub column: usize,
}

#[derive(Debug)]
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
