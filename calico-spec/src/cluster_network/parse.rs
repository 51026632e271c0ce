//! Reading a ClusterNetwork from text, with positions, field paths and "did you mean" hints.
//!
//! The text is read by [`crate::source`] like every other input, with plain scalars kept as
//! written, and typed by [`crate::typed`], so that the field's type decides what a scalar
//! means and booleans are `true` or `false` only (`yes` is an error, not `true`). Unknown
//! fields, duplicate keys and values of the wrong type are errors; then [`super::check`] runs
//! the cross-field rules. Every problem is reported at once, each with the line and column of
//! the field it names, from the reader's spans.

use super::check;
use super::overrides;
use super::spec::ClusterNetwork;
use crate::diag::{Diagnostic, Location, Severity};
use crate::rules::catalogue::{self as c, Rule};
use crate::source::{Limits, Pos, Scalars, SourceError, SpanMap, parent_path, parse_stream_with};
use crate::typed::{self, Problem, ProblemKind};

/// A ClusterNetwork read from text, with the warnings its check produced.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The description.
    pub cluster_network: ClusterNetwork,
    /// Lints that did not stop the parse (overlaps with `network.avoid`, ...).
    pub warnings: Vec<Diagnostic>,
    /// Field path -> position in the text, for placing diagnostics found later.
    pub spans: SpanMap,
}

/// Why a ClusterNetwork text was refused.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The text is not YAML at all (or exceeds the reader's size and depth budgets, or holds no
    /// document).
    #[error("{file}:{line}:{column}: {message}")]
    NotYaml {
        /// The file as the user named it.
        file: String,
        /// One-based line of the problem.
        line: usize,
        /// One-based column of the problem.
        column: usize,
        /// What the YAML reader reported.
        message: String,
    },
    /// The text is YAML but not a valid ClusterNetwork; each diagnostic is one problem, with
    /// its field path and position (warnings found on the way are included too).
    #[error("{}", describe(.diagnostics))]
    Invalid {
        /// Every problem found, errors first in file order.
        diagnostics: Vec<Diagnostic>,
    },
}

fn describe(diagnostics: &[Diagnostic]) -> String {
    let n_errors = diagnostics
        .iter()
        .filter(|diag| diag.severity == Severity::Error)
        .count();
    match diagnostics.first() {
        Some(first) if n_errors <= 1 => first.to_string(),
        Some(first) => format!("{first} (and {} more errors)", n_errors - 1),
        None => String::from("invalid ClusterNetwork"),
    }
}

/// Parse and check a ClusterNetwork document. `file` is how the user named the input; it only
/// appears in positions.
///
/// When some fields do not read, the checks still run on the fields that did (stand-ins take
/// the place of the others, and only what every stand-in gives is reported), so every problem
/// of the file comes in one run.
pub fn parse(file: &str, text: &str) -> Result<Parsed, ParseError> {
    let Reading { spans, index, read } = read(file, text)?;
    match read {
        Ok(cluster_network) => {
            let (cluster_network, diagnostics) =
                checked(file, text, index, &spans, cluster_network);
            if diagnostics
                .iter()
                .any(|diag| diag.severity == Severity::Error)
            {
                return Err(ParseError::Invalid { diagnostics });
            }
            Ok(Parsed {
                cluster_network,
                warnings: diagnostics,
                spans,
            })
        }
        Err(Unread {
            mut diagnostics,
            variants,
        }) => {
            let found = variants
                .into_iter()
                .map(|variant| checked(file, text, index, &spans, variant).1)
                .collect();
            diagnostics.extend(super::tolerant::agreed(found));
            sort(&mut diagnostics);
            Err(ParseError::Invalid { diagnostics })
        }
    }
}

/// A ClusterNetwork document as far as it reads.
pub(super) struct Reading {
    /// Field path -> position.
    pub(super) spans: SpanMap,
    /// The document's index in the stream.
    pub(super) index: usize,
    /// The description, when every field read.
    pub(super) read: Result<ClusterNetwork, Unread>,
}

/// What did not read in a ClusterNetwork document.
pub(super) struct Unread {
    /// Why, each at its position.
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The descriptions the text could have meant ([`super::tolerant::variants`]); the checks
    /// run on each, and what all of them find is reported. Empty when none can be made.
    pub(super) variants: Vec<ClusterNetwork>,
}

/// Read a ClusterNetwork document: YAML, then the types. Not YAML, and duplicate keys (whose
/// positions cannot be trusted), are refused outright.
pub(super) fn read(file: &str, text: &str) -> Result<Reading, ParseError> {
    let documents = parse_stream_with(text, &Limits::CLUSTER_NETWORK, Scalars::AsWritten)
        .map_err(|err| not_yaml(file, &err))?;
    let mut content = documents.into_iter().filter(|doc| !doc.is_empty());
    let Some(document) = content.next() else {
        let end = end_of(text);
        return Err(ParseError::NotYaml {
            file: file.to_owned(),
            line: end.line,
            column: end.column,
            message: String::from("no YAML document: the input is empty or only comments"),
        });
    };
    let spans = document.spans;
    let index = document.index;
    let at = |position: Option<Pos>| location(file, index, position);
    let mut diagnostics = Vec::new();
    if let Some(second) = content.next() {
        let mut diag = report(
            &c::CN_INVALID_VALUE,
            "",
            "more than one YAML document in a ClusterNetwork file".to_owned(),
            Some("keep one ClusterNetwork per file".to_owned()),
        );
        diag.location = Some(location(file, second.index, second.spans.locate_value("")));
        diagnostics.push(diag);
    }
    // Duplicate keys, shown at the repeated key. The reader kept the first value but the
    // positions of the second, so nothing typed from that value could be placed: stop here.
    if !document.problems.is_empty() {
        for mut diag in document.problems {
            diag.location = Some(at(spans.locate_key(&diag.path)));
            diagnostics.push(diag);
        }
        sort(&mut diagnostics);
        return Err(ParseError::Invalid { diagnostics });
    }
    for tagged in spans.tagged() {
        let mut diag = tagged.diagnostic(&c::CN_YAML_TAG);
        diag.location = Some(at(spans.locate(&diag.path)));
        diagnostics.push(diag);
    }
    let mut problems = Vec::new();
    let typed = typed::read::<ClusterNetwork>(&document.value, Scalars::AsWritten, &mut problems);
    // The fields that failed to read, and the descriptions the text could have meant.
    let variants = match &typed {
        Some(cluster_network) if problems.is_empty() => vec![cluster_network.clone()],
        _ => super::tolerant::variants(&document.value, &problems),
    };
    let failed: Vec<String> = problems
        .iter()
        .map(|problem| problem.path.clone())
        .collect();
    for problem in problems {
        let (mut diag, position) = from_problem(problem, &spans);
        diag.location = Some(at(position));
        diagnostics.push(diag);
    }
    // A quoted number where the JSON Schema says integer: the schema is what editors check
    // with, so the tool refuses what the schema refuses.
    if let Some(cluster_network) = variants.first()
        && let Ok(typed_value) = serde_json::to_value(cluster_network)
    {
        let mut quoted = Vec::new();
        quoted_numbers(&document.value, &typed_value, "", &spans, &mut quoted);
        // A stand-in for a failed field is not what the user wrote.
        quoted.retain(|diag| !failed.contains(&diag.path));
        for mut diag in quoted {
            diag.location = Some(at(spans.locate_value(&diag.path)));
            diagnostics.push(diag);
        }
    }
    let read = match typed {
        Some(cluster_network) if diagnostics.is_empty() => Ok(cluster_network),
        _ => {
            sort(&mut diagnostics);
            Err(Unread {
                diagnostics,
                variants,
            })
        }
    };
    Ok(Reading { spans, index, read })
}

/// The cross-field checks of one description as read (overrides and extra objects read again
/// as kubectl reads them, [`check::check`], then the overrides' own checks), located and
/// sorted; errors and warnings.
pub(super) fn checked(
    file: &str,
    text: &str,
    index: usize,
    spans: &SpanMap,
    mut cluster_network: ClusterNetwork,
) -> (ClusterNetwork, Vec<Diagnostic>) {
    // Overrides and extra objects are upstream objects: read them again as kubectl would.
    if overrides::any(&cluster_network)
        && let Err(diag) =
            overrides::read_as_kubernetes(text, index, &mut cluster_network, file, spans)
    {
        return (cluster_network, vec![*diag]);
    }
    let mut diagnostics = check::check(&cluster_network);
    locate(file, spans, &mut diagnostics);
    let checked = !diagnostics
        .iter()
        .any(|diag| diag.severity == Severity::Error);
    if checked && overrides::any(&cluster_network) {
        diagnostics.extend(overrides::check(&cluster_network, file, spans));
        sort(&mut diagnostics);
    }
    (cluster_network, diagnostics)
}

/// The fields written as quoted scalars (`port: "6443"`) that the ClusterNetwork types as
/// numbers, walking the text as read (`written`) beside the typed value serialized (`typed`).
/// `spec.overrides` and the extra objects are upstream objects, read as Kubernetes reads them,
/// and are not walked; keys that are not plain identifiers are skipped.
fn quoted_numbers(
    written: &serde_json::Value,
    typed: &serde_json::Value,
    path: &str,
    spans: &SpanMap,
    out: &mut Vec<Diagnostic>,
) {
    use serde_json::Value;
    match (written, typed) {
        (Value::Object(written), Value::Object(typed)) => {
            for (key, value) in written {
                let plain = key
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-');
                let upstream = path == "spec" && matches!(key.as_str(), "overrides" | "objects");
                if let (true, false, Some(typed)) = (plain, upstream, typed.get(key)) {
                    let child = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    quoted_numbers(value, typed, &child, spans, out);
                }
            }
        }
        (Value::Array(written), Value::Array(typed)) => {
            for (idx, (value, typed)) in written.iter().zip(typed).enumerate() {
                quoted_numbers(value, typed, &format!("{path}[{idx}]"), spans, out);
            }
        }
        (Value::String(text), Value::Number(_))
            if spans.quoting(path) == Some(crate::source::Quoting::Quoted) =>
        {
            let key = path.rsplit('.').next().unwrap_or(path);
            let mut hint = format!(
                "write it unquoted, `{key}: {text}`: the ClusterNetwork's JSON Schema, which \
                 editors check with, takes a number here"
            );
            if key == "port" {
                hint.push_str(
                    ", as kubeconfig and kubeadm write ports (a quoted port belongs in the \
                     endpoint ConfigMap, whose values are all strings)",
                );
            }
            out.push(report(
                &c::CN_INVALID_VALUE,
                path,
                format!("expected an integer, found the quoted string \"{text}\""),
                Some(hint),
            ));
        }
        _ => {}
    }
}

/// Fill in file, line and column of diagnostics whose path names a ClusterNetwork field (the
/// position of the field's value, or of its closest ancestor in the text), then sort them:
/// errors first, then by position.
pub fn locate(file: &str, spans: &SpanMap, diagnostics: &mut [Diagnostic]) {
    for diag in diagnostics.iter_mut() {
        if diag.location.is_none() {
            diag.location = Some(location(file, 0, spans.locate_value(&diag.path)));
        }
    }
    sort(diagnostics);
}

fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.severity, &a.location, a.code, &a.path).cmp(&(b.severity, &b.location, b.code, &b.path))
    });
}

fn report(rule: &Rule, path: &str, message: String, hint: Option<String>) -> Diagnostic {
    Diagnostic {
        severity: rule.severity,
        code: rule.code,
        path: path.to_owned(),
        message,
        hint,
        location: None,
    }
}

fn location(file: &str, document: usize, position: Option<Pos>) -> Location {
    Location {
        file: file.to_owned(),
        document,
        line: position.map(|p| p.line),
        column: position.map(|p| p.column),
    }
}

fn not_yaml(file: &str, err: &SourceError) -> ParseError {
    let (line, column, message) = match err {
        SourceError::Syntax {
            line,
            column,
            message,
        } => (*line, *column, message.clone()),
        SourceError::Budget {
            what,
            limit,
            line,
            column,
        } => (
            *line,
            *column,
            format!("input refused: more than {limit} {what}; a ClusterNetwork is far smaller"),
        ),
    };
    ParseError::NotYaml {
        file: file.to_owned(),
        line,
        column,
        message,
    }
}

/// The position just after the last character of `text`.
fn end_of(text: &str) -> Pos {
    let line = text.matches('\n').count() + 1;
    let last_line = text.rsplit('\n').next().unwrap_or_default();
    Pos {
        line,
        column: last_line.chars().count() + 1,
    }
}

/// A typing problem as a diagnostic in the ClusterNetwork's terms, and where to show it: an
/// unknown field at its key, a missing field at the mapping that lacks it, anything else at the
/// value.
pub(super) fn from_problem(problem: Problem, spans: &SpanMap) -> (Diagnostic, Option<Pos>) {
    let Problem { path, kind } = problem;
    match kind {
        ProblemKind::UnknownField { field, expected } => (
            report(
                &c::CN_UNKNOWN_FIELD,
                &path,
                format!("unknown field `{field}`"),
                Some(did_you_mean(&field, &expected)),
            ),
            spans.locate_key(&path),
        ),
        ProblemKind::UnknownValue { value, expected } => (
            report(
                &c::CN_INVALID_VALUE,
                &path,
                format!("unknown value `{}`", typed::one_line(&value)),
                Some(did_you_mean(&value, &expected)),
            ),
            spans.locate_value(&path),
        ),
        ProblemKind::MissingField { field } => {
            let parent = parent_path(&path).unwrap_or_default();
            (
                report(
                    &c::CN_INVALID_VALUE,
                    &path,
                    format!("missing required field `{field}`"),
                    Some(format!(
                        "add `{field}:`; `calico-render schema` describes every field"
                    )),
                ),
                spans.locate_value(parent),
            )
        }
        ProblemKind::Invalid { message } => {
            let hint = if message.starts_with("expected true or false") {
                Some(String::from(
                    "write `true` or `false`; YAML 1.1 words such as `yes` and `on` are not booleans in a ClusterNetwork",
                ))
            } else {
                value_hint(&path)
            };
            (
                report(&c::CN_INVALID_VALUE, &path, message, hint),
                spans.locate_value(&path),
            )
        }
    }
}

/// A hint for a value that failed to deserialize, chosen by the field it belongs to.
fn value_hint(path: &str) -> Option<String> {
    let last = path.rsplit('.').next().unwrap_or(path);
    let field = last.split('[').next().unwrap_or(last);
    let hint = match field {
        "cidr" | "avoid" | "nodeSubnets" | "serviceCIDRs" | "cidrs" => {
            "write an address range in CIDR notation, such as 172.20.0.0/16 or fd00:10::/56"
        }
        "peerIP" => "write an IPv4 or IPv6 address without a port, such as 192.168.10.1",
        "asNumber" => "write an AS number between 1 and 2147483647",
        "port" => "write a port number between 1 and 65535",
        "blockSize" => "write a prefix length: 20-32 for IPv4 pools, 116-128 for IPv6 pools",
        "mtu" => "write an MTU between 576 and 65535, or leave it out to let Calico detect it",
        // The Installation's `bgp: Enabled | Disabled` written in a ClusterNetwork.
        "bgp" => {
            "in a ClusterNetwork `bgp` is a mapping: `bgp: {enabled: true}` for the Installation's \
             `bgp: Enabled`; for `Disabled` leave `bgp` out (BGP is off unless `enabled: true`)"
        }
        _ if path.contains("[") || !path.is_empty() => {
            "`calico-render schema` lists every field with its type and valid values"
        }
        _ => return None,
    };
    Some(hint.to_owned())
}

/// "did you mean `x`?" for the closest valid spelling, or the list of valid spellings.
fn did_you_mean(found: &str, expected: &[String]) -> String {
    let listed = expected
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match crate::suggest::closest(found, expected.iter().map(String::as_str)) {
        Some(candidate) => format!("did you mean `{candidate}`? valid here: {listed}"),
        None if expected.is_empty() => String::from("this mapping takes no fields"),
        None => format!("valid here: {listed}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_hint(found: &str, expected: &[&str], hint: &str) {
        let expected: Vec<String> = expected.iter().map(|name| (*name).to_owned()).collect();
        assert_eq!(did_you_mean(found, &expected), hint);
    }

    #[test]
    fn suggestions() {
        check_hint(
            "blocksize",
            &["blockSize", "cidr"],
            "did you mean `blockSize`? valid here: `blockSize`, `cidr`",
        );
        check_hint(
            "natOutgoin",
            &["natOutgoing", "name"],
            "did you mean `natOutgoing`? valid here: `natOutgoing`, `name`",
        );
        check_hint("zzzzzz", &["cidr"], "valid here: `cidr`");
    }
}
