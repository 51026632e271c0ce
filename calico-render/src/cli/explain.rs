//! The `explain` subcommand: print a rule's summary and explanation from the catalogue.

use std::io::Write;
use std::process::ExitCode;

use calico_render::report;
use calico_spec::rules;

// Arguments of `calico-render explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A rule code, e.g. CR1003 (case-insensitive). Without one, list every rule.
    code: Option<String>,
}

/// Run the subcommand: exit 2 for a code that is not in the catalogue.
pub fn run(args: Args) -> super::Outcome {
    let mut stdout = std::io::stdout().lock();
    match args.code {
        Some(code) => match rules::lookup(&code) {
            Some(rule) => stdout.write_all(report::render_explanation(rule).as_bytes())?,
            None => {
                eprintln!(
                    "error: `{code}` is not a rule code; run `calico-render explain` without arguments to list them"
                );
                return Ok(ExitCode::from(super::EXIT_USAGE));
            }
        },
        None => {
            for rule in rules::CATALOGUE {
                writeln!(
                    stdout,
                    "{}  {:<7}  {}",
                    rule.code, rule.severity, rule.summary
                )?;
            }
        }
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}
