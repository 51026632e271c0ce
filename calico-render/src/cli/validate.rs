//! The `validate` subcommand (not implemented yet).

use std::process::ExitCode;

/// Arguments of `calico-render validate`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Run the subcommand.
pub fn run(_args: Args) -> super::Outcome {
    eprintln!("error: `validate` is not implemented yet");
    Ok(ExitCode::from(super::EXIT_USAGE))
}
