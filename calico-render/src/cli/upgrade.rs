//! The `upgrade` subcommand: what changes when the cluster moves from its `spec.calicoVersion`
//! to `--to VERSION`, in the order to do it (see [`calico_render::upgrade`]).

use std::process::ExitCode;

use anyhow::Context;
use calico_render::upgrade::{self, Direction, UpgradeError, Version};
use calico_spec::cluster_network::ParseError;

use super::input::{
    LintArgs, display_name, not_yaml_message, print_diagnostics, read_input_limited,
};

// Arguments of `calico-render upgrade`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
The ClusterNetwork is rendered twice: for its own spec.calicoVersion (standing for the live \
objects) and for VERSION. The steps are printed in the order to take them: set \
spec.calicoVersion in the file, replace the CRDs with the target's operator-crds.yaml \
(`kubectl replace`: the bundle is too large for a client-side `kubectl apply`), upgrade the \
tigera-operator (manifest or Helm chart), then patch the objects whose rendering changes. Each \
changed field says why (a field new in the target, a default of the new operator or CRD), and \
the patches are the guarded JSON patches `calico-render patch` would print.

What the target cannot express (CN0112, such as bpfNetworkBootstrap before v3.31), any other \
error of the target's rendering, and changes Calico cannot make in place (a pool's cidr or \
blockSize) block the move: they are listed and no steps are printed. A downgrade is compared \
but not planned: Calico documents upgrades only and the tigera-operator has no downgrade path.

Exit status: 0 the plan is printed (or nothing changes); 1 the spec blocks the move, it is a \
downgrade, or the ClusterNetwork is invalid for its own release; 2 usage or IO error, an \
unsupported VERSION, or text that is not YAML.

Example:
  calico-render upgrade -f cluster.yaml --to v3.32.1")]
pub struct Args {
    /// The ClusterNetwork file (`-` for standard input); its spec.calicoVersion is the release
    /// the cluster runs.
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "FILE"
    )]
    file: String,

    /// The release to move to: a patch release of v3.30, v3.31 or v3.32.
    #[arg(long = "to", value_name = "VERSION", value_parser = parse_version)]
    to: Version,

    /// Output format.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FORMAT",
        value_enum,
        default_value_t = OutputFormat::Text
    )]
    output: OutputFormat,

    #[command(flatten)]
    lints: LintArgs,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OutputFormat {
    /// The steps, for reading.
    Text,
    /// One JSON document.
    Json,
}

fn parse_version(text: &str) -> Result<Version, String> {
    text.parse()
        .map_err(|err: calico_spec::release::UnsupportedRelease| err.to_string())
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    let file = display_name(&args.file);
    let text = read_input_limited(
        &args.file,
        calico_spec::source::Limits::CLUSTER_NETWORK.max_bytes,
    )
    .with_context(|| format!("cannot read the ClusterNetwork file `{file}`"))?;
    let plan = match upgrade::plan(file, &text, &args.to, &levels) {
        Ok(plan) => plan,
        Err(UpgradeError::Invalid(diagnostics)) => {
            print_diagnostics(&diagnostics);
            eprintln!(
                "error: {file} is invalid for its own spec.calicoVersion; fix it before planning \
                 a move"
            );
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
        Err(UpgradeError::Parse(ParseError::NotYaml {
            file,
            line,
            column,
            message,
        })) => {
            eprintln!("error: {}", not_yaml_message(&file, line, column, &message));
            return Ok(ExitCode::from(super::EXIT_USAGE));
        }
        Err(UpgradeError::Parse(other)) => {
            eprintln!("error: {other}");
            return Ok(ExitCode::from(super::EXIT_USAGE));
        }
        Err(UpgradeError::Internal(err)) => return Err(err.into()),
    };
    print_diagnostics(&plan.warnings);
    let out = match args.output {
        OutputFormat::Text => upgrade::render_text(&plan)?,
        OutputFormat::Json => {
            let mut out = serde_json::to_string_pretty(&upgrade::to_json(&plan))
                .context("cannot write the plan as JSON")?;
            out.push('\n');
            out
        }
    };
    super::input::write_stdout(out)?;
    if plan.is_blocked() || plan.direction == Direction::Downgrade {
        return Ok(ExitCode::from(super::EXIT_INVALID));
    }
    Ok(ExitCode::SUCCESS)
}
