//! What several subcommands share: reading `-f FILE` (or standard input for `-`), the
//! `--allow`/`--deny` flags, turning a ClusterNetwork into checked objects, and printing
//! diagnostics on standard error.
//!
//! Every subcommand that takes a ClusterNetwork (`render`, `patch`, `post-render`, `krm`) goes
//! through [`compile_text`], which calls `cluster_network::load`: parse, check, compile and the
//! rule catalogue with the ClusterNetwork's own network facts. So they all accept and refuse
//! the same inputs, and none of them emits an object `validate` would reject.

use std::io::{self, Read, Write};

use calico_render::report::{self, LevelError, LevelNotes, LintLevels, Palette};
use calico_spec::cluster_network::{self, ParseError};
use calico_spec::diag::Diagnostic;
use calico_spec::objects::Object;

/// Write a command's output to standard output and flush it. A reader that closed the pipe
/// (`calico-render render | head`) ends the command quietly: `main` looks for the
/// `BrokenPipe` under this context.
pub(super) fn write_stdout(bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(bytes.as_ref())
        .and_then(|()| stdout.flush())
        .context("cannot write to standard output")
}

/// How messages name standard input.
pub(super) const STDIN_NAME: &str = "<stdin>";

/// The name messages use for a `-f` argument: `<stdin>` for `-`, the path as typed otherwise.
pub(super) fn display_name(path: &str) -> &str {
    if path == "-" { STDIN_NAME } else { path }
}

/// Read a file, or standard input for `-`, within the manifests' size budget
/// (`Limits::MANIFESTS`).
pub(super) fn read_input(path: &str) -> io::Result<String> {
    read_input_limited(path, calico_spec::source::Limits::MANIFESTS.max_bytes)
}

/// Read a file, or standard input for `-`, but never more than `max_bytes + 1` bytes: an input
/// over the budget is cut there, so the parser refuses it by its size without the whole file
/// being held in memory first (a 200 MB document costs 1 MiB, not 200 MB).
pub(super) fn read_input_limited(path: &str, max_bytes: usize) -> io::Result<String> {
    let cap = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    if path == "-" {
        io::stdin().lock().take(cap).read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(path)?
            .take(cap)
            .read_to_end(&mut bytes)?;
    }
    if bytes.len() > max_bytes {
        // The cut may fall inside a character; a lossy reading keeps the text over the budget
        // (a replacement character is never shorter than what it replaces), which is all the
        // size check needs.
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    // The same words as the standard library's own reading of a file into a string.
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

// `--calico-version`, the same on `validate` and `patch` (flattened into their arguments).
// Plain comments: a doc comment here would become the subcommand's description.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct ReleaseArgs {
    /// The Calico release to check manifests against: a patch release of v3.30, v3.31, v3.32
    /// or v3.33 (default: v3.32.1; v3.33's data is the release-v3.33 branch of 2026-08-21, not
    /// the v3.33.0 tag). A field or value that release does not know is an error naming the
    /// first release that has it, and the CEL rules of that release's CRDs apply. A
    /// ClusterNetwork is checked for its own `spec.calicoVersion`
    #[arg(long = "calico-version", value_name = "VERSION", value_parser = parse_release)]
    pub(super) release: Option<&'static calico_spec::release::Release>,
}

impl ReleaseArgs {
    /// The release given, or the default (v3.32).
    pub(super) fn target(&self) -> &'static calico_spec::release::Release {
        self.release
            .unwrap_or_else(calico_spec::release::Release::default_target)
    }
}

fn parse_release(text: &str) -> Result<&'static calico_spec::release::Release, String> {
    calico_spec::release::Release::for_version(text).map_err(|err| err.to_string())
}

// `--deny` and `--allow`, the same on every subcommand that reports diagnostics (flattened into
// its arguments). Plain comments: a doc comment here would become the subcommand's description.
#[derive(Debug, Clone, Default, clap::Args)]
pub(super) struct LintArgs {
    /// Turn a lint into an error (exit 1): a rule code, or `warnings` for every lint.
    /// Repeatable, or comma-separated
    #[arg(
        long,
        value_name = "CODE|warnings",
        value_delimiter = ',',
        help_heading = "Diagnostics"
    )]
    pub(super) deny: Vec<String>,
    /// Silence a lint by its rule code; upstream errors cannot be allowed. Repeatable, or
    /// comma-separated; `--allow CODE` wins over `--deny warnings`
    #[arg(
        long,
        value_name = "CODE",
        value_delimiter = ',',
        help_heading = "Diagnostics"
    )]
    pub(super) allow: Vec<String>,
}

impl LintArgs {
    /// The lint levels the flags ask for.
    pub(super) fn levels(&self) -> Result<LintLevels, LevelError> {
        LintLevels::from_flags(&self.deny, &self.allow)
    }
}

/// A ClusterNetwork turned into our objects.
pub(super) struct Compiled {
    /// Our objects in bundle order.
    pub(super) objects: Vec<Object>,
    /// Lints found on the way, after `--allow`: warnings only (a denied lint is a failure).
    pub(super) warnings: Vec<Diagnostic>,
    /// The release of its `spec.calicoVersion`.
    pub(super) release: &'static calico_spec::release::Release,
    /// The API mode and install order the bundle assumes, as comment lines
    /// ([`calico_render::bundle::mode_header`]).
    pub(super) mode_header: Option<String>,
    /// The API mode it assumes.
    pub(super) api_mode: cluster_network::ApiMode,
    /// Its `spec.calicoVersion` as written (the tag of the images).
    pub(super) calico_version: String,
    /// The validation context it describes (`cluster_network::context`).
    pub(super) context: calico_spec::rules::Context,
}

/// Why a ClusterNetwork could not be turned into objects.
pub(super) enum CompileFailure {
    /// The text is not YAML (exit 2); the message names file, line and column.
    NotYaml(String),
    /// The ClusterNetwork is invalid, or a lint was denied (exit 1).
    Invalid(Vec<Diagnostic>),
}

/// Parse, check, compile and validate a ClusterNetwork text, then apply the lint levels;
/// `file` is how messages name it.
pub(super) fn compile_text(
    file: &str,
    text: &str,
    levels: &LintLevels,
) -> Result<Compiled, CompileFailure> {
    match cluster_network::load(file, text) {
        Ok(loaded) => {
            let diagnostics = levels.apply(loaded.warnings);
            if report::has_errors(&diagnostics) {
                return Err(CompileFailure::Invalid(diagnostics));
            }
            let release = calico_spec::release::Release::for_version(
                &loaded.cluster_network.spec.calico_version,
            )
            .unwrap_or_else(|_| calico_spec::release::Release::default_target());
            Ok(Compiled {
                mode_header: calico_render::bundle::mode_header(&loaded.cluster_network),
                api_mode: loaded.cluster_network.spec.resolved_api_mode(),
                calico_version: loaded.cluster_network.spec.calico_version.clone(),
                context: cluster_network::context(&loaded.cluster_network),
                objects: loaded.objects,
                warnings: diagnostics,
                release,
            })
        }
        Err(ParseError::Invalid { diagnostics }) => {
            Err(CompileFailure::Invalid(levels.apply(diagnostics)))
        }
        Err(ParseError::NotYaml {
            file,
            line,
            column,
            message,
        }) => Err(CompileFailure::NotYaml(not_yaml_message(
            &file, line, column, &message,
        ))),
        Err(other) => Err(CompileFailure::NotYaml(other.to_string())),
    }
}

/// The message of a ClusterNetwork text that could not be read as YAML, at its position.
pub(super) fn not_yaml_message(file: &str, line: usize, column: usize, message: &str) -> String {
    if message.starts_with("input refused") {
        // A budget refusal (size, nodes, depth, aliases) says what it is: the text may well be
        // YAML.
        format!("{file}:{line}:{column}: {message}")
    } else {
        format!("{file}:{line}:{column}: not valid YAML: {message}")
    }
}

/// Say that standard input is not YAML, in [`not_yaml_message`]'s layout; the usage exit code.
pub(super) fn stdin_not_yaml(line: usize, column: usize, message: &str) -> std::process::ExitCode {
    eprintln!(
        "error: {}",
        not_yaml_message(STDIN_NAME, line, column, message)
    );
    std::process::ExitCode::from(super::EXIT_USAGE)
}

/// Whether text for standard error may carry colour: `anstream` decides from `--color` (set
/// as its global choice in `main`), `NO_COLOR`, `CLICOLOR_FORCE` and whether it is a terminal.
pub(super) fn stderr_palette() -> Palette {
    palette_for(&io::stderr())
}

/// The same for standard output.
pub(super) fn stdout_palette() -> Palette {
    palette_for(&io::stdout())
}

fn palette_for<S: anstream::stream::RawStream>(stream: &S) -> Palette {
    Palette::new(anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never)
}

/// Print diagnostics on standard error, one per line with its position, then its hint, and
/// under the first warning of each code how `--allow` and `--deny` change it.
///
/// The text is built first and written at once: one system call, and the lines of one run never
/// interleave with another process's output on a shared terminal.
pub(super) fn print_diagnostics(diagnostics: &[Diagnostic]) {
    print_diagnostics_with(diagnostics, LevelNotes::Flags);
}

/// [`print_diagnostics`], choosing whether the `--allow`/`--deny` note is printed.
pub(super) fn print_diagnostics_with(diagnostics: &[Diagnostic], notes: LevelNotes) {
    let text = report::render_short(diagnostics, &stderr_palette(), notes);
    if !text.is_empty() {
        // Standard error may be closed; there is nowhere else to report that.
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }
}

/// Print a note on standard error (`note: ...`), with the label coloured like a diagnostic's.
pub(super) fn note(message: &str) {
    let label = stderr_palette().label;
    let _ = writeln!(io::stderr().lock(), "{label}note{label:#}: {message}");
}

/// A temporary file in `dir` holding `contents` in full, synced, with the mode `std::fs::write`
/// would give (0666 less the umask, not tempfile's 0600): to be renamed into place with
/// `persist`, so that a reader never sees a partial file and a failure leaves the old one.
pub(super) fn staged_file(
    dir: &std::path::Path,
    contents: &str,
) -> anyhow::Result<tempfile::NamedTempFile> {
    use anyhow::Context as _;
    let shown = dir.display();
    let mut builder = tempfile::Builder::new();
    builder.prefix(".calico-render-").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temporary = builder
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in `{shown}`"))?;
    temporary
        .write_all(contents.as_bytes())
        .and_then(|()| temporary.as_file().sync_all())
        .with_context(|| format!("cannot write a temporary file in `{shown}`"))?;
    Ok(temporary)
}
