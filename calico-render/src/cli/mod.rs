//! Command-line interface: flag parsing and dispatch to one module per subcommand.
//!
//! Exit codes, for every subcommand: 0 success (warnings allowed); 1 the input was read but is
//! invalid; 2 usage, IO, or text that is not YAML at all. A broken pipe on standard output is
//! success.
//!
//! The same flag means the same thing everywhere: `-f/--filename` (alias `--file`) names what
//! is read, `-o/--output FORMAT` chooses the output form, `--allow`/`--deny` ([`input::LintArgs`])
//! set lint levels on every subcommand that reports diagnostics, and `--color WHEN` is global.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod codegen;
mod completions;
mod explain;
mod fleet;
mod import;
mod input;
mod krm;
mod man;
mod patch;
mod picture;
mod plan;
mod post_render;
mod render;
mod router;
mod schema;
mod upgrade;
mod validate;

/// Exit status: the input was read but is invalid.
pub const EXIT_INVALID: u8 = 1;
/// Exit status: usage error, IO error, or text that is not YAML.
pub const EXIT_USAGE: u8 = 2;

/// What `--version` prints after the name: this build and the releases whose objects it writes
/// (a test holds them to the ClusterNetwork default and the pinned chart values).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (targets Calico v3.32.1 and tigera-operator v1.42.3; also v3.30, v3.31 and v3.33, whose \
     data is the release-v3.33 branch of 2026-08-21, not the v3.33.0 tag)"
);

/// Turn a typed, validated description of a cluster's Calico network into the exact manifests
/// and JSON patches the tigera-operator expects.
#[derive(Debug, Parser)]
#[command(name = "calico-render", version = VERSION, about, long_about = None)]
#[command(propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// When to colour help and diagnostics: `auto` colours a terminal unless NO_COLOR is set.
    #[arg(
        long,
        global = true,
        display_order = 1000,
        value_name = "WHEN",
        value_enum,
        default_value_t = clap::ColorChoice::Auto
    )]
    color: clap::ColorChoice,

    #[command(subcommand)]
    command: Command,
}

// `defer`: each subcommand's arguments are built only when that subcommand is the one run (or
// its help is shown), so `render` does not pay for building `patch`, `codegen` and the rest.
// The doc comment of each variant is the subcommand's description. The `Args` structs carry
// plain comments, not doc comments: clap would take a doc comment there as the description
// too, and under `defer` it would be applied last and win.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Render a ClusterNetwork into manifests.
    Render(render::Args),
    /// Validate upstream manifests or a ClusterNetwork against the rule catalogue.
    Validate(validate::Args),
    /// Compute a guarded RFC 6902 JSON patch from a live object to the desired state.
    Patch(patch::Args),
    /// Plan what one patch cannot do (pool migration, dataplane switch, BGP): guarded, resumable steps.
    Plan(plan::Args),
    /// Plan a move to another Calico release: CRDs, operator, then the objects that change.
    Upgrade(upgrade::Args),
    /// Write the ClusterNetwork that renders a cluster's live objects.
    Import(import::Args),
    /// Render the FRR configuration of the routers the ClusterNetwork's BGPPeers point at.
    Router(router::Args),
    /// Draw a cluster's or a fleet's address plan (SVG or HTML), overlaps marked.
    Picture(picture::Args),
    /// Generate Rust types from CustomResourceDefinition schemas.
    Codegen(codegen::Args),
    /// Print the JSON Schema of the ClusterNetwork input kind.
    Schema(schema::Args),
    /// Explain a rule code.
    Explain(explain::Args),
    /// Run as a Helm post-renderer (rendered chart on stdin, result on stdout).
    PostRender(post_render::Args),
    /// Run as a KRM function (ResourceList on stdin, ResourceList on stdout).
    Krm(krm::Args),
    /// Print a shell completion script.
    Completions(completions::Args),
    /// Print the manual page (roff), or write one per subcommand into a directory.
    Man(man::Args),
}

/// What a subcommand reports back: the exit code it wants.
pub type Outcome = anyhow::Result<ExitCode>;

/// Parse the command line, run the subcommand and map its result to an exit code.
pub fn main() -> ExitCode {
    // `--color` must be known before clap prints anything (help, usage errors), so it is looked
    // for first; `anstream`'s global choice then steers clap's output and ours alike.
    anstream::ColorChoice::write_global(color_flag(std::env::args_os()));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { EXIT_USAGE } else { 0 };
            // Printing help or a usage error can itself hit a closed pipe; nothing to add then.
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    // What clap parsed is the authority from here on (the same choice, read properly).
    anstream::ColorChoice::write_global(match cli.color {
        clap::ColorChoice::Always => anstream::ColorChoice::Always,
        clap::ColorChoice::Never => anstream::ColorChoice::Never,
        clap::ColorChoice::Auto => anstream::ColorChoice::Auto,
    });
    let outcome = match cli.command {
        Command::Render(args) => render::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Patch(args) => patch::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Upgrade(args) => upgrade::run(args),
        Command::Import(args) => import::run(args),
        Command::Router(args) => router::run(args),
        Command::Picture(args) => picture::run(args),
        Command::Codegen(args) => codegen::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Explain(args) => explain::run(args),
        Command::PostRender(args) => post_render::run(args),
        Command::Krm(args) => krm::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let style = input::stderr_palette().error;
            eprintln!("{style}error{style:#}: {err:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The `--color` value on the command line (the last one; `auto` when absent or not one of the
/// three words, which clap then reports). Arguments after `--` are not flags.
fn color_flag(args: impl IntoIterator<Item = OsString>) -> anstream::ColorChoice {
    let mut args = args.into_iter().skip(1);
    let mut choice = anstream::ColorChoice::Auto;
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        let value = match arg.to_str() {
            Some("--color") => args.next(),
            Some(other) => other.strip_prefix("--color=").map(OsString::from),
            None => None,
        };
        match value.as_ref().and_then(|value| value.to_str()) {
            Some("always") => choice = anstream::ColorChoice::Always,
            Some("never") => choice = anstream::ColorChoice::Never,
            Some("auto") => choice = anstream::ColorChoice::Auto,
            _ => {}
        }
    }
    choice
}

/// True when the error chain bottoms out in a closed standard output (`calico-render ... | head`).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_flag_forms() {
        let choice = |args: &[&str]| {
            let args = std::iter::once("calico-render")
                .chain(args.iter().copied())
                .map(OsString::from);
            color_flag(args)
        };
        use anstream::ColorChoice::{Always, Auto, Never};
        assert_eq!(choice(&[]), Auto);
        assert_eq!(choice(&["render", "--color", "always"]), Always);
        assert_eq!(choice(&["--color=never", "render"]), Never);
        assert_eq!(choice(&["--color=never", "--color", "auto"]), Auto);
        assert_eq!(choice(&["--color", "purple"]), Auto);
        assert_eq!(choice(&["render", "--", "--color=always"]), Auto);
    }
}
