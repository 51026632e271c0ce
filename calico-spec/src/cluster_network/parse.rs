//! Reading a ClusterNetwork from text, with positions, field paths and "did you mean" hints.
//!
//! The text is deserialized strictly (unknown fields, duplicate keys and YAML 1.1 booleans
//! such as `yes` are errors), then checked by [`super::check`]; every error found by the check
//! is reported at once, each with the line and column of the field it names.

use serde_saphyr::{Error as YamlError, Options, budget};

use super::check;
use super::locate::{Position, SpanIndex};
use super::spec::ClusterNetwork;
use crate::diag::{Diagnostic, Location, Severity};
use crate::rules::catalogue as c;

/// A ClusterNetwork read from text, with the warnings its check produced.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The description.
    pub cluster_network: ClusterNetwork,
    /// Lints that did not stop the parse (overlaps with `network.avoid`, ...).
    pub warnings: Vec<Diagnostic>,
}

/// Why a ClusterNetwork text was refused.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The text is not YAML at all (or exceeds the parser's size and depth budgets).
    #[error("{file}:{line}:{column}: {message}")]
    NotYaml {
        /// The file as the user named it.
        file: String,
        /// One-based line of the problem.
        line: usize,
        /// One-based column of the problem.
        column: usize,
        /// What the YAML parser reported.
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

/// Parse and check a ClusterNetwork document. `file` is how the user named the input (`-` for
/// standard input); it only appears in positions.
pub fn parse(file: &str, text: &str) -> Result<Parsed, ParseError> {
    let cluster_network: ClusterNetwork = match serde_saphyr::from_str_with_options(text, options())
    {
        Ok(value) => value,
        Err(err) => return Err(from_yaml_error(file, text, &err)),
    };
    let mut diagnostics = check::check(&cluster_network);
    if diagnostics.is_empty() {
        return Ok(Parsed {
            cluster_network,
            warnings: Vec::new(),
        });
    }
    locate(file, text, &mut diagnostics);
    if diagnostics
        .iter()
        .any(|diag| diag.severity == Severity::Error)
    {
        return Err(ParseError::Invalid { diagnostics });
    }
    Ok(Parsed {
        cluster_network,
        warnings: diagnostics,
    })
}

/// Fill in file, line and column of diagnostics whose path names a ClusterNetwork field in
/// `text`, then sort them: errors first, then by position.
pub fn locate(file: &str, text: &str, diagnostics: &mut [Diagnostic]) {
    let index = SpanIndex::build(text);
    for diag in diagnostics.iter_mut() {
        if diag.location.is_none() {
            let position = index.value_position(&diag.path);
            diag.location = Some(location(file, position));
        }
    }
    diagnostics.sort_by(|a, b| {
        (a.severity, &a.location, a.code, &a.path).cmp(&(b.severity, &b.location, b.code, &b.path))
    });
}

/// The reader settings for ClusterNetwork files: strict booleans so that `yes` is an error
/// rather than `true`, duplicate keys refused, and budgets far below anything a real file needs.
fn options() -> Options {
    serde_saphyr::options! {
        strict_booleans: true,
        with_snippet: false,
        budget: budget! {
            max_documents: 2,
            max_nodes: 20_000,
            max_depth: 32,
            max_total_scalar_bytes: 1 << 20,
        },
    }
}

fn location(file: &str, position: Option<Position>) -> Location {
    Location {
        file: file.to_owned(),
        document: 0,
        line: position.map(|p| p.line),
        column: position.map(|p| p.column),
    }
}

fn from_yaml_error(file: &str, text: &str, err: &YamlError) -> ParseError {
    let err = err.without_snippet();
    let position = err.location().and_then(|loc| {
        let line = usize::try_from(loc.line()).ok()?;
        let column = usize::try_from(loc.column()).ok()?;
        (line > 0).then_some(Position { line, column })
    });
    let is_syntax = matches!(
        err,
        YamlError::ExternalMessage { .. }
            | YamlError::Eof { .. }
            | YamlError::Budget { .. }
            | YamlError::IndentationError { .. }
            | YamlError::UnknownAnchor { .. }
    );
    // serde-saphyr parses lazily, so a type error early in the file can hide a syntax error
    // later on; text that is not YAML is reported as such (exit 2) whatever else is wrong.
    let syntax_error = if is_syntax {
        None
    } else {
        first_syntax_error(text)
    };
    if let Some((position, message)) = syntax_error {
        return ParseError::NotYaml {
            file: file.to_owned(),
            line: position.line,
            column: position.column,
            message,
        };
    }
    if is_syntax {
        let position = position.unwrap_or(Position { line: 1, column: 1 });
        return ParseError::NotYaml {
            file: file.to_owned(),
            line: position.line,
            column: position.column,
            message: strip_position(&err.to_string()),
        };
    }
    let index = SpanIndex::build(text);
    let (code, path, message, hint) = match err {
        YamlError::SerdeUnknownField {
            field, expected, ..
        } => {
            // The unknown key is itself indexed; its path is the one to report.
            let path = match position.and_then(|p| index.path_at(p)) {
                Some(path) => path.to_owned(),
                None => field.clone(),
            };
            let message = format!("unknown field `{field}`");
            (
                c::CN_UNKNOWN_FIELD.code,
                path,
                message,
                Some(did_you_mean(field, expected)),
            )
        }
        YamlError::SerdeUnknownVariant {
            variant, expected, ..
        } => {
            let path = position
                .and_then(|p| index.path_at(p))
                .unwrap_or("")
                .to_owned();
            let message = format!("unknown value `{variant}`");
            (
                c::CN_INVALID_VALUE.code,
                path,
                message,
                Some(did_you_mean(variant, expected)),
            )
        }
        YamlError::SerdeMissingField { field, .. } => {
            let parent = position.and_then(|p| index.enclosing_path(p)).unwrap_or("");
            let path = if parent.is_empty() {
                (*field).to_owned()
            } else {
                format!("{parent}.{field}")
            };
            let message = format!("missing required field `{field}`");
            let hint = format!("add `{field}:`; `calico-render schema` describes every field");
            (c::CN_INVALID_VALUE.code, path, message, Some(hint))
        }
        YamlError::MultipleDocuments { .. } => {
            let message = String::from("more than one YAML document in a ClusterNetwork file");
            let hint = String::from("keep one ClusterNetwork per file");
            (c::CN_INVALID_VALUE.code, String::new(), message, Some(hint))
        }
        other => {
            let path = position
                .and_then(|p| index.path_at(p))
                .unwrap_or("")
                .to_owned();
            let message = strip_position(&other.to_string());
            let hint = value_hint(&path);
            (c::CN_INVALID_VALUE.code, path, message, hint)
        }
    };
    ParseError::Invalid {
        diagnostics: vec![Diagnostic {
            severity: Severity::Error,
            code,
            path,
            message,
            hint,
            location: Some(location(file, position)),
        }],
    }
}

/// The first error the YAML parser reports anywhere in `text`, if any.
fn first_syntax_error(text: &str) -> Option<(Position, String)> {
    for item in serde_saphyr::granit_parser::Parser::new_from_str(text) {
        if let Err(err) = item {
            let marker = err.marker();
            let position = Position {
                line: marker.line(),
                column: marker.col() + 1,
            };
            return Some((position, err.info()));
        }
    }
    None
}

/// serde-saphyr prefixes messages with `line N column M: `; the diagnostic carries the
/// position separately, so drop it from the text.
fn strip_position(message: &str) -> String {
    let mut text = message.strip_prefix("error: ").unwrap_or(message);
    if let Some(rest) = text.strip_prefix("line ")
        && let Some((head, after)) = rest.split_once(": ")
        && head.contains("column")
    {
        text = after;
    }
    // Some messages also end in ` at line N, column M`.
    if let Some(cut) = text.rfind(" at line ")
        && text[cut..].contains("column")
    {
        text = &text[..cut];
    }
    text.to_owned()
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
        "asNumber" => "write an AS number between 1 and 4294967295",
        "port" => "write a port number between 1 and 65535",
        "blockSize" => "write a prefix length: 20-32 for IPv4 pools, 116-128 for IPv6 pools",
        "mtu" => "write an MTU between 576 and 65535, or leave it out to let Calico detect it",
        _ if path.contains("[") || !path.is_empty() => {
            "`calico-render schema` lists every field with its type and valid values"
        }
        _ => return None,
    };
    Some(hint.to_owned())
}

/// "did you mean `x`?" for the closest valid spelling, or the list of valid spellings.
fn did_you_mean(found: &str, expected: &[&'static str]) -> String {
    let listed = expected
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match crate::suggest::closest(found, expected.iter().copied()) {
        Some(candidate) => format!("did you mean `{candidate}`? valid here: {listed}"),
        None if expected.is_empty() => String::from("this mapping takes no fields"),
        None => format!("valid here: {listed}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_hint(found: &str, expected: &[&'static str], hint: &str) {
        assert_eq!(did_you_mean(found, expected), hint);
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
