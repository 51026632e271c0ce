//! The `render` subcommand (not implemented yet).

use std::process::ExitCode;

/// Arguments of `calico-render render`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Run the subcommand.
pub fn run(_args: Args) -> super::Outcome {
    eprintln!("error: `render` is not implemented yet");
    Ok(ExitCode::from(super::EXIT_USAGE))
}
