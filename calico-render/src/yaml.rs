//! The one place calico-render writes YAML text; the serde-saphyr settings are fixed here, in
//! one option set for every output (render, post-render, KRM, chart values).
//!
//! Settings and why:
//! - serde-saphyr's YAML 1.1-safe quoting stays on (`yaml_12: false`): strings that a YAML 1.1
//!   reader (kubectl, Helm, kustomize, PyYAML) would read as something else are quoted, so
//!   `"6443"`, `"on"`, `"yes"`, `"0x1F"`, `"1e3"` and dates come back as the same strings.
//! - Long single-line strings are never folded into `>-` blocks (`folded_wrap_chars` is
//!   unlimited): a folded selector or annotation is hard to read and to diff.
//!   Strings with a newline still use `|` blocks.
//! - Lists under a key start at the key's indentation (`compact_list_indent`), as kubectl
//!   prints them.
//! - Documents are separated by `---` lines, with no leading separator and one final newline.
//! - Untyped objects (a chart's object with ours merged in) get the usual Kubernetes key order
//!   at the top ([`value_to_yaml`]); typed objects bring their own order.
//!
//! [`read_error_message`] words serde-saphyr's read errors for people, for the adapters that
//! read other tools' YAML with it.

use serde::Serialize;
use serde_json::Value;

/// A value could not be written as YAML.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// serde-saphyr refused the value; for the wire types this means a bug in calico-render.
    #[error("cannot write document {} as YAML: {message}", document_idx + 1)]
    Serialize {
        /// Zero-based index of the document in the stream.
        document_idx: usize,
        /// What the serializer reported.
        message: String,
    },
}

fn options() -> serde_saphyr::SerializerOptions {
    serde_saphyr::ser_options! {
        folded_wrap_chars: usize::MAX,
        compact_list_indent: true,
        yaml_12: false,
    }
}

/// One YAML document, ending in a newline, without a `---` line.
///
/// # Errors
/// [`EmitError`] when the serializer refuses the value.
pub fn to_yaml<T: Serialize>(document: &T) -> Result<String, EmitError> {
    let mut out = String::new();
    write_document(&mut out, document, 0)?;
    Ok(out)
}

/// One untyped object as a YAML document: `apiVersion`, `kind`, `metadata` (with `name` and
/// `namespace` first), `spec`, `data`, then the other keys in sorted order.
///
/// # Errors
/// [`EmitError`] when the serializer refuses the value.
pub fn value_to_yaml(object: &Value) -> Result<String, EmitError> {
    to_yaml(&Ordered::Top(object))
}

/// A multi-document YAML stream: the documents in the given order, separated by `---` lines.
///
/// # Errors
/// [`EmitError`] when the serializer refuses a document.
pub fn to_yaml_stream<T: Serialize>(documents: &[T]) -> Result<String, EmitError> {
    let mut out = String::new();
    for (document_idx, document) in documents.iter().enumerate() {
        if document_idx > 0 {
            out.push_str("---\n");
        }
        write_document(&mut out, document, document_idx)?;
    }
    Ok(out)
}

fn write_document<T: Serialize>(
    out: &mut String,
    document: &T,
    document_idx: usize,
) -> Result<(), EmitError> {
    serde_saphyr::to_fmt_writer_with_options(out, document, options()).map_err(|err| {
        EmitError::Serialize {
            document_idx,
            message: err.to_string(),
        }
    })?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(())
}

/// What a serde-saphyr read error means, in words for the person who gave the input: the
/// library's user-facing wording, and ours for its budgets, whose own text names internals
/// (`RecordedAnchorEvents { .. }`). Ends with the position when the error has one.
pub fn read_error_message(err: &serde_saphyr::Error) -> String {
    let inner = innermost(err);
    if matches!(inner, serde_saphyr::Error::Budget { .. }) {
        let at = read_error_position(err)
            .map(|(line, column)| format!(" at line {line}, column {column}"))
            .unwrap_or_default();
        return format!(
            "input refused{at}: it is too large, or its anchors and aliases expand to too much"
        );
    }
    err.render_with_formatter(&serde_saphyr::UserMessageFormatter)
}

/// The error itself, under the wrappers that add a snippet or the alias's positions.
fn innermost(err: &serde_saphyr::Error) -> &serde_saphyr::Error {
    let mut inner = err;
    while let serde_saphyr::Error::AliasError { error, .. }
    | serde_saphyr::Error::WithSnippet { error, .. } = inner
    {
        inner = error;
    }
    inner
}

/// Where a YAML read failed (one-based line and column), the position
/// [`read_error_message`] names: the error's own, under the wrappers, when it has one.
pub fn read_error_position(err: &serde_saphyr::Error) -> Option<(usize, usize)> {
    innermost(err)
        .location()
        .or_else(|| err.location())
        .filter(|loc| loc.line() > 0)
        .map(|loc| (loc.line() as usize, (loc.column() as usize).max(1)))
}

/// [`read_error_message`] without the ` at line L, column C` it may end with, for a caller that
/// places the error itself (`FILE:LINE:COLUMN: not valid YAML: ...`).
pub fn read_error_text(err: &serde_saphyr::Error) -> String {
    let message = read_error_message(err);
    let positioned = message.rfind(" at line ").filter(|&idx| {
        message.get(idx..).is_some_and(|tail| {
            let tail = tail.trim_start_matches(" at line ");
            tail.split_once(", column ").is_some_and(|(line, column)| {
                !line.is_empty()
                    && !column.is_empty()
                    && line
                        .bytes()
                        .chain(column.bytes())
                        .all(|b| b.is_ascii_digit())
            })
        })
    });
    match positioned.and_then(|idx| message.get(..idx)) {
        Some(kept) => kept.to_owned(),
        None => message,
    }
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn check(value: &str, expected_line: &str) {
        let map = BTreeMap::from([("k", value)]);
        assert_eq!(
            to_yaml(&map).unwrap(),
            format!("{expected_line}\n"),
            "{value:?}"
        );
    }

    #[test]
    fn yaml_1_1_lookalikes_are_quoted() {
        check("6443", r#"k: "6443""#);
        check("on", r#"k: "on""#);
        check("yes", r#"k: "yes""#);
        check("0x1F", r#"k: "0x1F""#);
        check("1e3", r#"k: "1e3""#);
        check("2001-12-14", r#"k: "2001-12-14""#);
        check("all()", "k: all()");
        check("172.20.0.0/16", "k: 172.20.0.0/16");
    }

    #[test]
    fn long_strings_stay_on_one_line() {
        let long = "x ".repeat(100);
        let yaml = to_yaml(&BTreeMap::from([("k", long.trim())])).unwrap();
        assert_eq!(yaml.lines().count(), 1, "{yaml}");
    }

    #[test]
    fn untyped_objects_in_kubernetes_order() {
        let object = serde_json::json!({
            "spec": {"b": 1, "a": 2},
            "metadata": {"labels": {"app": "web"}, "namespace": "ns", "name": "m"},
            "kind": "K",
            "apiVersion": "v1",
            "extra": true,
        });
        assert_eq!(
            value_to_yaml(&object).unwrap(),
            "apiVersion: v1\nkind: K\nmetadata:\n  name: m\n  namespace: ns\n  labels:\n    app: web\nspec:\n  a: 2\n  b: 1\nextra: true\n"
        );
    }

    #[test]
    fn errors_count_documents_from_one() {
        let err = EmitError::Serialize {
            document_idx: 0,
            message: "refused".into(),
        };
        assert_eq!(err.to_string(), "cannot write document 1 as YAML: refused");
    }

    #[test]
    fn read_errors_name_no_library_internals() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..8 {
            let items = vec![format!("*a{}", level - 1); 10].join(", ");
            bomb.push_str(&format!("a{level}: &a{level} [{items}]\n"));
        }
        let err = serde_saphyr::from_str::<serde_json::Value>(&bomb).unwrap_err();
        let message = read_error_message(&err);
        assert!(message.starts_with("input refused at line "), "{message}");
        assert!(
            !message.contains("Recorded") && !message.contains('{'),
            "{message}"
        );
        let err = serde_saphyr::from_str::<serde_json::Value>("a: 1\n---\nb: 2\n").unwrap_err();
        let message = read_error_message(&err);
        assert!(!message.contains("from_str"), "{message}");
        assert!(message.contains("multiple"), "{message}");
    }

    #[test]
    fn stream_separators() {
        let docs = [BTreeMap::from([("a", 1)]), BTreeMap::from([("b", 2)])];
        assert_eq!(to_yaml_stream(&docs).unwrap(), "a: 1\n---\nb: 2\n");
    }
}
