//! Command-line interface: flag parsing and dispatch to one module per subcommand.
//!
//! Exit codes, for every subcommand: 0 success (warnings allowed); 1 the input was read but is
//! invalid; 2 usage, IO, or text that is not YAML at all. A broken pipe on standard output is
//! success.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod codegen;
mod explain;
mod input;
mod krm;
mod patch;
mod post_render;
mod render;
mod schema;
mod validate;

/// Exit status: the input was read but is invalid.
pub const EXIT_INVALID: u8 = 1;
/// Exit status: usage error, IO error, or text that is not YAML.
pub const EXIT_USAGE: u8 = 2;

/// Turn a typed, validated description of a cluster's Calico network into the exact manifests
/// and JSON patches the tigera-operator expects.
#[derive(Debug, Parser)]
#[command(name = "calico-render", version, about, long_about = None)]
#[command(propagate_version = true, max_term_width = 100)]
pub struct Cli {
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
}

/// What a subcommand reports back: the exit code it wants.
pub type Outcome = anyhow::Result<ExitCode>;

/// Parse the command line, run the subcommand and map its result to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { EXIT_USAGE } else { 0 };
            // Printing help or a usage error can itself hit a closed pipe; nothing to add then.
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    let outcome = match cli.command {
        Command::Render(args) => render::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Patch(args) => patch::run(args),
        Command::Codegen(args) => codegen::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Explain(args) => explain::run(args),
        Command::PostRender(args) => post_render::run(args),
        Command::Krm(args) => krm::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// True when the error chain bottoms out in a closed standard output (`calico-render ... | head`).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
