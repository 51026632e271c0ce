//! Rendering diagnostics: rustc-like text (`validate`), the one-line-per-problem form the other
//! subcommands print on standard error, and the JSON object of `validate -o json`; plus the
//! `--deny`/`--allow` lint levels every subcommand applies.
//!
//! Three severities: errors fail a run; warnings (lints) fail it under `--deny warnings` or
//! `--deny CODE`; notes (routine information, e.g. what `import` drops because the API server
//! or the operator writes it) fail it only under `--deny CODE`, never under `--deny warnings`.
//! The JSON form is calico-spec's `Diagnostic` as serde writes it (`"severity": "note"`).
//!
//! Colour is a [`Palette`] of `anstyle` styles; [`Palette::PLAIN`] writes no escape codes at
//! all, so the text is byte for byte the same as without colour support. The caller decides
//! (the CLI asks `anstream`, which knows about terminals, `--color` and `NO_COLOR`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use calico_spec::diag::{Diagnostic, Severity};
use calico_spec::rules::{self, Skipped, ValidationOutcome};
use serde::Serialize;

/// How `--deny` and `--allow` change severities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintLevels {
    /// `--deny warnings`: every remaining warning becomes an error.
    pub deny_warnings: bool,
    /// `--deny CODE`: these warnings and notes become errors.
    pub deny: BTreeSet<&'static str>,
    /// `--allow CODE`: these warnings and notes are dropped.
    pub allow: BTreeSet<&'static str>,
}

/// Why a `--deny`/`--allow` argument was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LevelError {
    /// The code is not in the rule catalogue.
    #[error(
        "unknown rule code `{code}` in --{flag}; run `calico-render explain` with a code from the catalogue, e.g. CR8001"
    )]
    UnknownCode {
        /// `deny` or `allow`.
        flag: &'static str,
        /// The code as given.
        code: String,
    },
    /// `--allow` names an upstream error, which cannot be silenced.
    #[error("--allow {code}: {code} is an error, not a lint; only warnings can be allowed")]
    CannotAllowError {
        /// The code.
        code: &'static str,
    },
    /// The same code is both denied and allowed.
    #[error("{code} is given to both --deny and --allow; keep one")]
    Conflict {
        /// The code.
        code: &'static str,
    },
}

impl LintLevels {
    /// Build levels from the flags as typed (`--deny` takes a code or `warnings`).
    ///
    /// # Errors
    /// [`LevelError`] for unknown codes, allowed errors and conflicts.
    pub fn from_flags(deny: &[String], allow: &[String]) -> Result<LintLevels, LevelError> {
        let mut levels = LintLevels::default();
        for code in deny {
            if code == "warnings" {
                levels.deny_warnings = true;
                continue;
            }
            let rule = rules::lookup(code).ok_or_else(|| LevelError::UnknownCode {
                flag: "deny",
                code: code.clone(),
            })?;
            levels.deny.insert(rule.code);
        }
        for code in allow {
            let rule = rules::lookup(code).ok_or_else(|| LevelError::UnknownCode {
                flag: "allow",
                code: code.clone(),
            })?;
            if rule.severity == Severity::Error {
                return Err(LevelError::CannotAllowError { code: rule.code });
            }
            if levels.deny.contains(rule.code) {
                return Err(LevelError::Conflict { code: rule.code });
            }
            levels.allow.insert(rule.code);
        }
        Ok(levels)
    }

    /// Apply the levels: drop allowed warnings and notes, raise denied ones. A code named with
    /// `--allow` wins over `--deny warnings`, as in clippy; `--deny warnings` leaves notes alone,
    /// `--deny CODE` raises a note of that code.
    pub fn apply(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|diag| diag.severity == Severity::Error || !self.allow.contains(diag.code))
            .map(|mut diag| {
                let denied = match diag.severity {
                    Severity::Error => false,
                    Severity::Warning => self.deny_warnings || self.deny.contains(diag.code),
                    Severity::Note => self.deny.contains(diag.code),
                };
                if denied {
                    diag.severity = Severity::Error;
                }
                diag
            })
            .collect()
    }
}

/// The styles diagnostics are written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// `error[CODE]` and the markers under an error.
    pub error: Style,
    /// `warning[CODE]` and the markers under a warning.
    pub warning: Style,
    /// The labels `hint`, `help` and `note`.
    pub label: Style,
    /// The frame around a quoted line: `-->`, the gutter and `=`.
    pub frame: Style,
    /// The message and the closing summary.
    pub emphasis: Style,
}

impl Palette {
    /// No styles: the text carries no escape codes.
    pub const PLAIN: Palette = Palette {
        error: Style::new(),
        warning: Style::new(),
        label: Style::new(),
        frame: Style::new(),
        emphasis: Style::new(),
    };

    /// rustc's colours: red errors, yellow warnings, blue frame, bold messages.
    pub const COLOURED: Palette = Palette {
        error: AnsiColor::Red.on_default().bold(),
        warning: AnsiColor::Yellow.on_default().bold(),
        label: AnsiColor::Cyan.on_default().bold(),
        frame: AnsiColor::Blue.on_default().bold(),
        emphasis: Style::new().bold(),
    };

    /// [`Palette::COLOURED`] when `colour` is true, else [`Palette::PLAIN`].
    pub fn new(colour: bool) -> Palette {
        if colour {
            Palette::COLOURED
        } else {
            Palette::PLAIN
        }
    }

    fn severity(&self, severity: Severity) -> Style {
        match severity {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
            Severity::Note => self.label,
        }
    }
}

/// Where the user sets lint levels, for the note under the first warning of each code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelNotes {
    /// The subcommand takes `--allow` and `--deny`: say so.
    Flags,
    /// No note (the caller says it another way, as `krm` does in its results).
    Off,
}

/// The note under the first warning of a code: how to silence it or fail on it with the flags.
pub fn lint_note(code: &str) -> String {
    format!(
        "`--allow {code}` silences this lint; `--deny {code}` (or `--deny warnings`) makes it an error"
    )
}

/// The lint codes whose note is due, in diagnostic order: each warning's code the first time it
/// appears.
fn first_warnings(diagnostics: &[Diagnostic], notes: LevelNotes) -> Vec<bool> {
    let mut seen = BTreeSet::new();
    diagnostics
        .iter()
        .map(|diag| {
            notes == LevelNotes::Flags
                && diag.severity == Severity::Warning
                && seen.insert(diag.code)
        })
        .collect()
}

/// One problem per line for standard error, the form every subcommand but `validate` uses:
/// `FILE:LINE:COLUMN: error[CODE]: message (at path)`, then `  hint: ...` and, under the first
/// warning of each code, `  note: ...` naming `--allow` and `--deny`.
pub fn render_short(diagnostics: &[Diagnostic], palette: &Palette, notes: LevelNotes) -> String {
    let mut out = String::new();
    let notes = first_warnings(diagnostics, notes);
    for (diag, note) in diagnostics.iter().zip(notes) {
        if let Some(loc) = &diag.location {
            let _ = match (loc.line, loc.column) {
                (Some(line), Some(column)) => write!(out, "{}:{line}:{column}: ", loc.file),
                _ => write!(out, "{}: ", loc.file),
            };
        }
        let style = palette.severity(diag.severity);
        let _ = write!(
            out,
            "{style}{}[{}]{style:#}: {}",
            diag.severity, diag.code, diag.message
        );
        if !diag.path.is_empty() {
            let _ = write!(out, " (at {})", diag.path);
        }
        out.push('\n');
        let label = palette.label;
        if let Some(hint) = &diag.hint {
            let _ = writeln!(out, "  {label}hint{label:#}: {hint}");
        }
        if note {
            let _ = writeln!(out, "  {label}note{label:#}: {}", lint_note(diag.code));
        }
    }
    out
}

/// Whether any diagnostic is an error (exit status 1).
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics
        .iter()
        .any(|diag| diag.severity == Severity::Error)
}

#[derive(Serialize)]
struct JsonReport<'a> {
    diagnostics: &'a [Diagnostic],
    skipped: &'a [Skipped],
    /// Operational checks that could not run for lack of a context document; absent when none.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    unchecked: &'a [rules::Unchecked],
}

/// The `-o json` object: `{"diagnostics":[...],"skipped":[...]}` (and `"unchecked":[...]`, the
/// operational checks that lacked a context document, when there are any), pretty-printed
/// (two-space indent; the fields of a diagnostic in the order of `Diagnostic`'s serde form),
/// then a newline.
#[expect(
    clippy::expect_used,
    reason = "a report of strings and numbers always serializes"
)]
pub fn render_json(
    diagnostics: &[Diagnostic],
    skipped: &[Skipped],
    unchecked: &[rules::Unchecked],
) -> String {
    // The derived forms of calico-spec's types (`Diagnostic`, `Skipped`, `Unchecked`) are the
    // JSON form.
    let report = JsonReport {
        diagnostics,
        skipped,
        unchecked,
    };
    // Serializing plain strings and numbers into a String cannot fail.
    let mut out = serde_json::to_string_pretty(&report).expect("report serializes");
    out.push('\n');
    out
}

/// Human-readable output in the style of rustc: each diagnostic with the offending input line
/// and a marker under the field, then the skipped documents (counted from 1, as people count
/// them; the JSON form keeps the zero-based index) and a summary. `sources` maps each
/// file name to its text; `checked` is how many objects were checked, for the summary.
pub fn render_text(
    diagnostics: &[Diagnostic],
    skipped: &[Skipped],
    sources: &BTreeMap<String, String>,
    checked: usize,
    palette: &Palette,
) -> String {
    let mut out = String::new();
    let notes = first_warnings(diagnostics, LevelNotes::Flags);
    let (frame, label, bold) = (palette.frame, palette.label, palette.emphasis);
    for (diag, note) in diagnostics.iter().zip(notes) {
        let style = palette.severity(diag.severity);
        let _ = writeln!(
            out,
            "{style}{}[{}]{style:#}{bold}: {}{bold:#}",
            diag.severity, diag.code, diag.message
        );
        let location = diag.location.as_ref();
        let line_no = location.and_then(|loc| loc.line);
        let column = location.and_then(|loc| loc.column).unwrap_or(1);
        let gutter = line_no.map_or(1, |line| line.to_string().len());
        let pad = " ".repeat(gutter);
        if let Some(loc) = location {
            match line_no {
                Some(line) => {
                    let _ = writeln!(out, "{pad}{frame}-->{frame:#} {}:{line}:{column}", loc.file);
                }
                None => {
                    let _ = writeln!(
                        out,
                        "{pad}{frame}-->{frame:#} {} (document {})",
                        loc.file,
                        loc.document + 1
                    );
                }
            }
        }
        let source_line = location.zip(line_no).and_then(|(loc, line)| {
            sources
                .get(&loc.file)
                .and_then(|text| text.lines().nth(line.saturating_sub(1)))
        });
        if let (Some(text), Some(line)) = (source_line, line_no) {
            let marker_len = marker_len(
                text,
                column,
                diag.code == rules::catalogue::UNKNOWN_FIELD.code,
            );
            let indent: String = text
                .chars()
                .take(column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "{pad} {frame}|{frame:#}");
            let _ = writeln!(out, "{frame}{line} |{frame:#} {text}");
            let _ = writeln!(
                out,
                "{pad} {frame}|{frame:#} {indent}{style}{}{style:#}",
                "^".repeat(marker_len)
            );
        }
        if !diag.path.is_empty() {
            let _ = writeln!(
                out,
                "{pad} {frame}={frame:#} {label}at{label:#}: {}",
                diag.path
            );
        }
        if let Some(hint) = &diag.hint {
            let _ = writeln!(out, "{pad} {frame}={frame:#} {label}help{label:#}: {hint}");
        }
        if note {
            let _ = writeln!(
                out,
                "{pad} {frame}={frame:#} {label}note{label:#}: {}",
                lint_note(diag.code)
            );
        }
        out.push('\n');
    }
    for skip in skipped {
        let what = match (&skip.api_version, &skip.kind) {
            (Some(api_version), Some(kind)) => format!("{api_version} {kind}"),
            (None, Some(kind)) => kind.clone(),
            (Some(api_version), None) => api_version.clone(),
            (None, None) => "unknown kind".into(),
        };
        let _ = writeln!(
            out,
            "skipped: {} document {} ({what}): not a kind calico-render validates",
            skip.file,
            skip.document + 1
        );
    }
    let count = |severity: Severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    let (n_errors, n_warnings) = (count(Severity::Error), count(Severity::Warning));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let objects = plural(checked, "object");
    // Notes are counted only when there are some, after the problems.
    let notes = match count(Severity::Note) {
        0 => String::new(),
        n => format!(", {}", plural(n, "note")),
    };
    if checked == 0 && diagnostics.is_empty() {
        let _ = writeln!(out, "{bold}no objects checked{bold:#}");
    } else if n_errors + n_warnings == 0 {
        let _ = writeln!(
            out,
            "{bold}{objects} checked, no problems found{notes}{bold:#}"
        );
    } else {
        let _ = writeln!(
            out,
            "{bold}{objects} checked: {}, {}{notes}{bold:#}",
            plural(n_errors, "error"),
            plural(n_warnings, "warning")
        );
    }
    out
}

/// How many characters to underline from `column`: the key up to its colon for unknown
/// fields, otherwise the value up to a trailing comment or the end of the line.
fn marker_len(line: &str, column: usize, key: bool) -> usize {
    let rest: String = line.chars().skip(column.saturating_sub(1)).collect();
    // A position on a key (unknown fields, and mappings shown at their key) is underlined up to
    // the colon; a value up to a trailing comment.
    let key_end = rest
        .find(": ")
        .or_else(|| rest.trim_end().strip_suffix(':').map(str::len));
    let end = match key_end {
        Some(colon) if key || !rest.starts_with(['"', '\'']) => colon,
        _ => rest.find(" #").unwrap_or(rest.len()),
    };
    rest[..end].trim_end().chars().count().max(1)
}

/// The text `calico-render explain CODE` prints.
pub fn render_explanation(rule: &rules::Rule) -> String {
    let mut out = format!(
        "{code} ({severity}): {summary}\n\n{explanation}\n",
        code = rule.code,
        severity = match rule.severity {
            // ClusterNetwork checks guard our own input kind; the `CR` errors mirror upstream.
            Severity::Error if rule.code.starts_with("CN") => "error, ClusterNetwork check",
            Severity::Error if rule.code.starts_with("KRM") => "error, KRM function config",
            // An operational error: a layer (named in the explanation) refuses or degrades.
            Severity::Error if rule.code.starts_with("OP") => {
                "error, a layer refuses or degrades on it"
            }
            Severity::Error => "error, upstream parity",
            Severity::Warning => "warning, lint: --deny or --allow it",
            Severity::Note => {
                "note, informational: never fails a run, not even under --deny warnings; --deny or --allow it by code"
            }
        },
        summary = rule.summary,
        explanation = rule.explanation,
    );
    if !rule.fix.is_empty() {
        let _ = write!(out, "\nFix: {}\n", rule.fix);
    }
    if !rule.reports.is_empty() {
        out.push_str("\nReported in:\n");
        for link in rule.reports {
            let _ = writeln!(out, "  {link}");
        }
    }
    out
}

/// Convenience for callers: apply levels to an outcome.
pub fn leveled(outcome: ValidationOutcome, levels: &LintLevels) -> (Vec<Diagnostic>, Vec<Skipped>) {
    (levels.apply(outcome.diagnostics), outcome.skipped)
}

/// The operational checks that could not run, one line: `OP0101, OP0103 need the Node objects`.
pub fn unchecked_summary(unchecked: &[rules::Unchecked]) -> Option<String> {
    let mut by_document: BTreeMap<rules::ContextDocument, Vec<&'static str>> = BTreeMap::new();
    for item in unchecked {
        by_document.entry(item.needs).or_default().push(item.code);
    }
    if by_document.is_empty() {
        return None;
    }
    let parts: Vec<String> = by_document
        .iter()
        .map(|(document, codes)| format!("{} need {}", codes.join(", "), document.as_str()))
        .collect();
    Some(format!(
        "operational checks not run for lack of context: {}; `--explain-context` says which documents to add",
        parts.join("; ")
    ))
}

/// `validate --explain-context`: per missing document, what it is and the checks that need it.
pub fn explain_context(unchecked: &[rules::Unchecked]) -> String {
    let mut by_document: BTreeMap<rules::ContextDocument, Vec<&'static str>> = BTreeMap::new();
    for item in unchecked {
        by_document.entry(item.needs).or_default().push(item.code);
    }
    let mut out = String::new();
    if by_document.is_empty() {
        out.push_str("every operational check that had objects to judge ran\n");
    }
    for (document, codes) in by_document {
        let _ = writeln!(out, "add {}:", document.describe());
        for code in codes {
            let summary = rules::lookup(code).map_or("", |rule| rule.summary);
            let _ = writeln!(out, "  {code}  {summary}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(marker_len("    cidr: 10.0.0.1/24", 11, false), 11);
        assert_eq!(
            marker_len("    cidr: 10.0.0.1/24  # comment", 11, false),
            11
        );
        assert_eq!(marker_len("    blocksize: 26", 5, true), 9);
        assert_eq!(marker_len("", 1, false), 1);
        assert_eq!(marker_len("  calicoNetwork:", 3, false), 13);
        assert_eq!(marker_len("    - cidr: fd00::/48", 13, false), 9);
    }

    #[test]
    fn levels() {
        let warn = |code: &'static str| Diagnostic {
            severity: Severity::Warning,
            code,
            path: String::new(),
            message: String::new(),
            hint: None,
            location: None,
        };
        let levels = LintLevels::from_flags(&["warnings".into()], &["CR8007".into()]).unwrap();
        let out = levels.apply(vec![warn("CR8001"), warn("CR8007")]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].severity, Severity::Error);
        // `--deny warnings` leaves a note alone; `--deny CODE` raises it, `--allow CODE` drops it.
        let note = |code: &'static str| Diagnostic {
            severity: Severity::Note,
            ..warn(code)
        };
        let levels = LintLevels::from_flags(&["warnings".into()], &[]).unwrap();
        assert_eq!(
            levels.apply(vec![note("CN0401")])[0].severity,
            Severity::Note
        );
        let levels = LintLevels::from_flags(&["CN0401".into()], &["CN0402".into()]).unwrap();
        let out = levels.apply(vec![note("CN0401"), note("CN0402"), note("CN0403")]);
        let kept: Vec<_> = out.iter().map(|d| (d.code, d.severity)).collect();
        assert_eq!(
            kept,
            [("CN0401", Severity::Error), ("CN0403", Severity::Note)]
        );
        assert!(matches!(
            LintLevels::from_flags(&[], &["CR1003".into()]),
            Err(LevelError::CannotAllowError { .. })
        ));
        assert!(matches!(
            LintLevels::from_flags(&["CR9999".into()], &[]),
            Err(LevelError::UnknownCode { .. })
        ));
        assert!(matches!(
            LintLevels::from_flags(&["CR8001".into()], &["CR8001".into()]),
            Err(LevelError::Conflict { .. })
        ));
    }
}
