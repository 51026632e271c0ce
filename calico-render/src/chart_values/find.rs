//! Where chart values are: values files, Flux HelmReleases and Argo CD Applications, and
//! how a values path becomes a line and column of the file.

use calico_spec::rules::SourceText;
use calico_spec::rules::catalogue::{self as c, Rule};
use calico_spec::source::{Document, Limits, Pos, Quoting, SourceError, SpanMap, parse_stream};
use serde_json::Value;

use super::{Found, Values, describe, located, new};
use crate::chart;

/// Where a values tree sits in its file, to turn values paths into positions.
pub(super) enum Place<'a> {
    /// A mapping node of a parsed document; `prefix` is its path there (empty for a values file).
    Node {
        spans: &'a SpanMap,
        prefix: String,
        start: Pos,
    },
    /// A YAML string of a document (Argo CD's `helm.values`), parsed on its own. `lines` maps
    /// its positions into the file when it is a literal block; otherwise everything is at `at`.
    Embedded {
        spans: SpanMap,
        lines: Option<LineMap>,
        at: Pos,
    },
}

/// A literal block scalar's content: string line 1 is file line `first_line`, every line
/// indented by `indent` spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LineMap {
    first_line: usize,
    indent: usize,
}

impl LineMap {
    fn map(self, pos: Pos) -> Pos {
        Pos {
            line: self.first_line + pos.line.saturating_sub(1),
            column: self.indent + pos.column,
        }
    }
}

impl Place<'_> {
    /// The position of the values key at `path` (its key with `key`, else its value), falling
    /// back to the closest ancestor written in the file.
    pub(super) fn locate(&self, path: &str, key: bool) -> Pos {
        let find = |spans: &SpanMap, path: &str| {
            if key {
                spans.locate_key(path)
            } else {
                spans.locate(path)
            }
        };
        match self {
            Place::Node {
                spans,
                prefix,
                start,
            } => find(spans, &join_path(prefix, path)).unwrap_or(*start),
            Place::Embedded { spans, lines, at } => match lines {
                Some(lines) => lines.map(find(spans, path).unwrap_or(Pos { line: 1, column: 1 })),
                None => *at,
            },
        }
    }

    /// Whether positions are only approximate (an embedded string we cannot map line by line).
    pub(super) fn approximate(&self) -> bool {
        matches!(self, Place::Embedded { lines: None, .. })
    }
}

/// `spec.values` + `installation.cni` -> `spec.values.installation.cni`.
fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => prefix.to_owned(),
        _ if path.starts_with('[') => format!("{prefix}{path}"),
        _ => format!("{prefix}.{path}"),
    }
}

/// A values file: its first document holds the values; Helm reads no other.
pub(super) fn values_file<'a>(file: &'a str, documents: &'a [Document], found: &mut Found<'a>) {
    let mut content = documents.iter().filter(|doc| !doc.is_empty());
    let Some(first) = content.next() else {
        // An empty file: the chart's defaults alone, every finding at line 1 (an empty text
        // whose positions map onto the file unchanged).
        found.values.push(Values {
            file,
            document: 0,
            values: None,
            place: Place::Embedded {
                spans: SpanMap::default(),
                lines: Some(LineMap {
                    first_line: 1,
                    indent: 0,
                }),
                at: Pos { line: 1, column: 1 },
            },
        });
        return;
    };
    for extra in content {
        found.diagnostics.push(located(
            new(
                &c::CHART_IGNORED_VALUE,
                "",
                format!(
                    "Helm reads only the first YAML document of a values file; document {} is ignored",
                    extra.index + 1
                ),
                Some("merge it into the first document, or pass it as a values file of its own".into()),
            ),
            file,
            extra.index,
            extra.spans.locate("").unwrap_or(extra.start),
        ));
    }
    found.values.push(Values {
        file,
        document: first.index,
        values: Some(first.value.clone()),
        place: Place::Node {
            spans: &first.spans,
            prefix: String::new(),
            start: first.start,
        },
    });
}

/// The values of a Flux HelmRelease or an Argo CD Application that installs the chart.
pub(super) fn wrapped_values<'a>(
    source: &SourceText<'a>,
    document: &'a Document,
    limits: &Limits,
    found: &mut Found<'a>,
) {
    let value = &document.value;
    let api_version = document.api_version().unwrap_or_default();
    let kind = document.kind().unwrap_or_default();
    let node = |values: Option<&Value>, prefix: String| Values {
        file: source.name,
        document: document.index,
        values: values.filter(|values| !values.is_null()).cloned(),
        place: Place::Node {
            spans: &document.spans,
            prefix,
            start: document.start,
        },
    };
    if api_version.starts_with("helm.toolkit.fluxcd.io/") && kind == "HelmRelease" {
        if value
            .pointer("/spec/chart/spec/chart")
            .and_then(Value::as_str)
            != Some(chart::CHART_NAME)
        {
            return;
        }
        found
            .values
            .push(node(value.pointer("/spec/values"), "spec.values".into()));
    } else if api_version == "argoproj.io/v1alpha1" && kind == "Application" {
        let spec = value.get("spec");
        // Argo CD ignores `source` when `sources` is set.
        let sources: Vec<(String, &Value)> = match spec
            .and_then(|spec| spec.get("sources"))
            .and_then(Value::as_array)
        {
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(idx, item)| (format!("spec.sources[{idx}]"), item))
                .collect(),
            None => spec
                .and_then(|spec| spec.get("source"))
                .map(|source| ("spec.source".to_owned(), source))
                .into_iter()
                .collect(),
        };
        let mut any = false;
        for (path, item) in sources {
            if item.get("chart").and_then(Value::as_str) != Some(chart::CHART_NAME) {
                continue;
            }
            any = true;
            let helm = item.get("helm");
            let object = helm
                .and_then(|helm| helm.get("valuesObject"))
                .filter(|object| !object.is_null());
            let string = helm
                .and_then(|helm| helm.get("values"))
                .filter(|string| !string.is_null());
            let string_path = format!("{path}.helm.values");
            if let Some(object) = object {
                if string.is_some() {
                    found.diagnostics.push(located(
                        new(
                            &c::CHART_IGNORED_VALUE,
                            string_path.clone(),
                            "Argo CD ignores `helm.values` when `helm.valuesObject` is set",
                            Some(
                                "move these values into `valuesObject`, or remove one of them"
                                    .into(),
                            ),
                        ),
                        source.name,
                        document.index,
                        document
                            .spans
                            .locate_key(&string_path)
                            .unwrap_or(document.start),
                    ));
                }
                found
                    .values
                    .push(node(Some(object), format!("{path}.helm.valuesObject")));
            } else if let Some(string) = string {
                embedded_values(source, document, &string_path, string, limits, found);
            } else {
                found.values.push(node(None, path));
            }
        }
        if !any {
            return;
        }
    } else {
        return;
    }
    found.claimed.push((source.name.to_owned(), document.index));
}

/// Argo CD's `helm.values`: a YAML string, parsed on its own.
fn embedded_values<'a>(
    source: &SourceText<'a>,
    document: &'a Document,
    path: &str,
    string: &Value,
    limits: &Limits,
    found: &mut Found<'a>,
) {
    let at = document.spans.locate(path).unwrap_or(document.start);
    let report =
        |found: &mut Found<'a>, rule: &Rule, message: String, hint: Option<String>, pos| {
            found.diagnostics.push(located(
                new(rule, path, message, hint),
                source.name,
                document.index,
                pos,
            ));
        };
    let Some(text) = string.as_str() else {
        report(
            found,
            &c::WRONG_TYPE,
            format!("expected a string (YAML text), found {}", describe(string)),
            Some("write the values as a mapping under `helm.valuesObject`, or as text after `values: |`".into()),
            at,
        );
        return;
    };
    // The parser places a block scalar at its content or at its indicator; the content starts
    // on one of the lines after the key, up to the one after that position.
    let lines = document
        .spans
        .get(path)
        .filter(|span| span.quoting == Some(Quoting::Block))
        .and_then(|span| {
            let key_line = span.key.map_or(span.value.line, |key| key.line);
            (key_line + 1..=span.value.line + 1)
                .find_map(|first_line| literal_lines(source.text, text, first_line))
        });
    let documents = match parse_stream(text, limits) {
        Ok(documents) => documents,
        Err(err) => {
            let (pos, message) = match err {
                SourceError::Syntax {
                    line,
                    column,
                    message,
                } => (
                    lines.map_or(at, |lines| lines.map(Pos { line, column })),
                    message,
                ),
                other => (at, other.to_string()),
            };
            report(
                found,
                &c::INPUT_NOT_PROCESSED,
                format!("the `helm.values` string is not YAML: {message}"),
                None,
                pos,
            );
            return;
        }
    };
    let mut content = documents.into_iter().filter(|doc| !doc.is_empty());
    let first = content.next();
    for extra in content {
        let pos = lines.map_or(at, |lines| {
            lines.map(extra.spans.locate("").unwrap_or(extra.start))
        });
        report(
            found,
            &c::CHART_IGNORED_VALUE,
            format!(
                "Helm reads only the first YAML document of the values; document {} of the string is ignored",
                extra.index + 1
            ),
            Some("merge it into the first document".into()),
            pos,
        );
    }
    let (values, spans) = match first {
        Some(first) => (Some(first.value), first.spans),
        None => (None, SpanMap::default()),
    };
    found.values.push(Values {
        file: source.name,
        document: document.index,
        values,
        place: Place::Embedded { spans, lines, at },
    });
}

/// The line map of a literal block scalar whose content starts on `first_line`: every line of
/// `string` must be that file line or a later one minus one common indentation, or there is
/// no exact map (a folded or quoted string, or one with escapes).
fn literal_lines(file_text: &str, string: &str, first_line: usize) -> Option<LineMap> {
    let mut file_lines = file_text.lines().skip(first_line.checked_sub(1)?);
    let mut string_lines: Vec<&str> = string.split('\n').collect();
    if string.ends_with('\n') {
        string_lines.pop();
    }
    let mut indent = None;
    for line in string_lines {
        let file_line = file_lines.next();
        if line.is_empty() {
            if file_line.is_none_or(|file_line| file_line.trim().is_empty()) {
                continue;
            }
            return None;
        }
        let file_line = file_line?;
        let n = *indent.get_or_insert(file_line.len().saturating_sub(line.len()));
        let matches = file_line.len() == n + line.len()
            && file_line.is_char_boundary(n)
            && file_line[..n].bytes().all(|b| b == b' ')
            && &file_line[n..] == line;
        if !matches {
            return None;
        }
    }
    Some(LineMap {
        first_line,
        indent: indent?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_blocks_map_line_by_line() {
        let file = "a:\n  values: |\n    x: 1\n\n      y: 2\n";
        assert_eq!(
            literal_lines(file, "x: 1\n\n  y: 2\n", 3),
            Some(LineMap {
                first_line: 3,
                indent: 4
            })
        );
        // A folded string's lines are not the file's lines.
        assert_eq!(literal_lines(file, "x: 1\n\n  y: 2\n", 2), None);
        assert_eq!(literal_lines("a: >\n  x\n  y\n", "x y\n", 2), None);
        assert_eq!(literal_lines("a: |\n", "", 2), None);
    }
}
