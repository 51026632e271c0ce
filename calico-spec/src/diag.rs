//! Diagnostics: the one shape every check in calico-spec reports problems in.
//!
//! A [`Diagnostic`] names a rule code, a severity, the field path in the document the user
//! wrote, a message and an optional hint. Where the input came from text, the caller attaches a
//! [`Location`] (file, document index, line, column) found from the YAML parser's spans.
//!
//! All three serialize (serde) in the form `calico-render validate -o json` prints: a
//! diagnostic is one flat object, `{"severity": "error", "code": ..., "path": "spec.cidr",
//! "message": ..., "hint": ..., "file": ..., "document": 0, "line": 7, "column": 9}`, an
//! empty path, an absent hint and an unknown position left out.

use std::fmt;

use serde::Serialize;

/// How serious a diagnostic is; serialized as [`Severity::as_str`] spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The object would be rejected by Calico, the operator or the API server.
    Error,
    /// The object is accepted upstream but is very likely a mistake (a lint).
    Warning,
    /// Informational: something routine the user may want to know (what `import` drops
    /// because the API server or the operator writes it). A note never fails a run and
    /// `--deny warnings` leaves it alone; `--deny CODE` raises it like a warning of that code.
    Note,
}

impl Severity {
    /// The lowercase wire spelling, `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where in the input text a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    /// The file as messages name it (`<stdin>` for standard input).
    pub file: String,
    /// Zero-based index of the YAML document in the stream (text output counts from 1).
    pub document: usize,
    /// One-based line, when the parser gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// One-based column, when the parser gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

/// One problem found in the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error, warning or note (after `--deny`/`--allow` have been applied by the caller).
    pub severity: Severity,
    /// The stable rule code, e.g. `CR1003`; always a code of the rule catalogue.
    pub code: &'static str,
    /// The field path in the document the user wrote, e.g. `spec.calicoNetwork.ipPools[0].blockSize`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// How to fix it, when there is something useful to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Where the problem is in the input text, when known (serialized as its fields, in the
    /// diagnostic's object).
    #[serde(flatten)]
    pub location: Option<Location>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)?;
        if !self.path.is_empty() {
            write!(f, " (at {})", self.path)?;
        }
        Ok(())
    }
}

/// Put diagnostics in the order every report shows them (by position, then code, field path
/// and message) and drop exact repeats.
pub fn sort_diagnostics(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| {
        a.location
            .cmp(&b.location)
            .then(a.code.cmp(b.code))
            .then(a.path.cmp(&b.path))
            .then(a.message.cmp(&b.message))
    });
    diagnostics.dedup();
}
