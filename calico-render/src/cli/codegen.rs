//! The `codegen` subcommand: Rust types from CustomResourceDefinition YAML.
//!
//! A thin layer over `calico_codegen`: it records the command line as typed (paths as given,
//! never made absolute) in the generated headers, and writes the module tree into `--out`,
//! which it owns.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use calico_codegen::CodegenError;

// Arguments of `calico-render codegen`.
//
// `--crd` and `--out` keep their names because the generated files record the command in
// those words (and the standalone `calico-codegen` binary takes the same); `-f/--filename`
// and `--out-dir` are accepted as everywhere else.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A CRD YAML file, a multi-document bundle, or a directory of them (repeatable).
    /// Documents that are not CustomResourceDefinitions are skipped.
    #[arg(
        short = 'f',
        long = "crd",
        visible_aliases = ["filename", "file"],
        value_name = "PATH",
        required = true
    )]
    crd: Vec<String>,
    /// Output directory; it receives `mod.rs`, `<group>/mod.rs`, `<group>/<version>/mod.rs`
    /// and one file per kind. Stale files carrying the generated header are removed; other
    /// files are left alone.
    #[arg(long, visible_alias = "out-dir", value_name = "DIR")]
    out: String,
    /// Copy the CRDs' descriptions into doc comments.
    #[arg(long)]
    docs: bool,
    /// Write the schema index of this Calico release (`<out>/<RELEASE>.jsonl`: every field
    /// with its type, enum values, bounds and CEL rules) instead of Rust types.
    #[arg(long, value_name = "RELEASE", conflicts_with = "docs")]
    index: Option<String>,
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let sources = calico_codegen::load_sources(&args.crd).context("error reading --crd input")?;
    if let Some(release) = &args.index {
        let command = calico_codegen::index::command_line(release, &args.crd, &args.out);
        let file = match calico_codegen::index::generate_index(release, &sources, &command) {
            Ok(file) => file,
            Err(err) => {
                eprintln!("error: {err}");
                return Ok(ExitCode::from(super::EXIT_INVALID));
            }
        };
        calico_codegen::write_output(&PathBuf::from(&args.out), &[file])
            .with_context(|| format!("error writing --out {}", args.out))?;
        eprintln!("codegen: schema index of {release} written in {}", args.out);
        return Ok(ExitCode::SUCCESS);
    }
    let options = calico_codegen::Options {
        docs: args.docs,
        command: calico_codegen::command_line(&args.crd, &args.out, args.docs),
    };
    let files = match calico_codegen::generate(&sources, &options) {
        Ok(files) => files,
        // The input was read but cannot be mapped: that is invalid input, exit code 1.
        Err(
            err @ (CodegenError::InvalidCrd { .. }
            | CodegenError::UnsupportedSchema(_)
            | CodegenError::DuplicateKind(_)
            | CodegenError::NoCrds { .. }),
        ) => {
            eprintln!("error: {err}");
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
        Err(err) => return Err(err).context("error generating code"),
    };
    let report = calico_codegen::write_output(&PathBuf::from(&args.out), &files)
        .with_context(|| format!("error writing --out {}", args.out))?;
    eprintln!(
        "codegen: {} files written, {} unchanged, {} stale files removed in {}",
        report.written.len(),
        report.unchanged.len(),
        report.removed.len(),
        args.out
    );
    Ok(ExitCode::SUCCESS)
}
