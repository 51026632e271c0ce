//! What several subcommands share on the way in: reading `-f FILE` (or standard input for
//! `-`), turning a ClusterNetwork into checked objects, and printing diagnostics on standard
//! error.
//!
//! Every subcommand that takes a ClusterNetwork (`render`, `patch`, `post-render`, `krm`) goes
//! through [`compile_text`], which calls `cluster_network::load`: parse, check, compile and the
//! rule catalogue with the ClusterNetwork's own network facts. So they all accept and refuse
//! the same inputs, and none of them emits an object `validate` would reject.

use std::io::{self, Read, Write};

use calico_spec::cluster_network::{self, ParseError};
use calico_spec::diag::Diagnostic;
use calico_spec::objects::Object;

/// Read a file, or standard input for `-`.
pub(super) fn read_input(path: &str) -> io::Result<String> {
    let mut text = String::new();
    if path == "-" {
        io::stdin().lock().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(path)?;
    }
    Ok(text)
}

/// A ClusterNetwork turned into our objects.
pub(super) struct Compiled {
    /// Our objects in bundle order.
    pub(super) objects: Vec<Object>,
    /// Lints found on the way (warnings only: any error makes the input invalid).
    pub(super) warnings: Vec<Diagnostic>,
}

/// Why a ClusterNetwork could not be turned into objects.
pub(super) enum CompileFailure {
    /// The text is not YAML (exit 2); the message names file, line and column.
    NotYaml(String),
    /// The ClusterNetwork is invalid (exit 1).
    Invalid(Vec<Diagnostic>),
}

/// Parse, check, compile and validate a ClusterNetwork text; `file` is how the user named it.
pub(super) fn compile_text(file: &str, text: &str) -> Result<Compiled, CompileFailure> {
    match cluster_network::load(file, text) {
        Ok(loaded) => Ok(Compiled {
            objects: loaded.objects,
            warnings: loaded.warnings,
        }),
        Err(ParseError::Invalid { diagnostics }) => Err(CompileFailure::Invalid(diagnostics)),
        Err(ParseError::NotYaml {
            file,
            line,
            column,
            message,
        }) => Err(CompileFailure::NotYaml(format!(
            "{file}:{line}:{column}: the input is not YAML: {message}"
        ))),
        Err(other) => Err(CompileFailure::NotYaml(other.to_string())),
    }
}

/// Print diagnostics on standard error, one per line with its position, then its hint.
///
/// The text is built first and written at once: one system call, and the lines of one run never
/// interleave with another process's output on a shared terminal.
pub(super) fn print_diagnostics(diagnostics: &[Diagnostic]) {
    use std::fmt::Write as _;
    let mut text = String::new();
    for diag in diagnostics {
        if let Some(loc) = &diag.location {
            let _ = match (loc.line, loc.column) {
                (Some(line), Some(column)) => write!(text, "{}:{line}:{column}: ", loc.file),
                _ => write!(text, "{}: ", loc.file),
            };
        }
        let _ = writeln!(text, "{diag}");
        if let Some(hint) = &diag.hint {
            let _ = writeln!(text, "  hint: {hint}");
        }
    }
    if !text.is_empty() {
        // Standard error may be closed; there is nowhere else to report that.
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }
}
