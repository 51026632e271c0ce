//! The `picture` subcommand: an SVG (or a self-contained HTML page) of one cluster's or a
//! fleet's address plan, with every overlap the fleet checks report marked.

use std::process::ExitCode;

use anyhow::Context as _;
use calico_render::fleet::{self, Member};

use super::fleet::{Inputs, Resolved};
use super::input::{LintArgs, display_name, print_diagnostics, read_input_limited};

// Arguments of `calico-render picture`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Every range of every cluster is drawn: pod pools (with block size, blocks and the most nodes they
serve), Service ranges, LoadBalancer pools, node subnets and avoided ranges, and the fleet file's
reserved and routed ranges. Ranges that overlap are drawn in one region on a common axis; each
overlap the fleet checks report is marked on both ranges with a vermillion hatch that reads in
print and without colour vision. Hover a range or a mark for its details. The bytes are the same
on every run.

Exit status: 0 drawn (clusters that do not load are left out and named on standard error, exit
1), 2 usage or IO error.")]
pub struct Args {
    /// A ClusterNetwork file, a folder of them, or a fleet file (`kind: Fleet`); repeatable.
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "FILE",
        required = true
    )]
    files: Vec<String>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_name = "FORMAT", value_enum, default_value_t = PictureFormat::Svg)]
    output: PictureFormat,

    #[command(flatten)]
    lints: LintArgs,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum PictureFormat {
    /// An SVG image.
    Svg,
    /// A self-contained HTML page: the SVG inline and a table of the ranges.
    Html,
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    let inputs = match super::fleet::resolve(&args.files, true)? {
        Resolved::Fleet(inputs) => *inputs,
        Resolved::Invalid(diagnostics) => {
            print_diagnostics(&diagnostics);
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
        Resolved::Single => {
            let Some(path) = args.files.first() else {
                anyhow::bail!("no ClusterNetwork file given");
            };
            let file = display_name(path).to_owned();
            let text =
                read_input_limited(path, calico_spec::source::Limits::CLUSTER_NETWORK.max_bytes)
                    .with_context(|| format!("cannot read the ClusterNetwork file `{file}`"))?;
            Inputs {
                fleet: None,
                members: vec![Member { file, text }],
            }
        }
    };
    let fleet_value = inputs.fleet.as_ref().map(|(_, read)| &read.fleet);
    let run = fleet::run(
        &inputs.members,
        inputs
            .fleet
            .as_ref()
            .map(|(file, read)| (file.as_str(), read)),
        &levels,
        None,
    );
    let plans: Vec<_> = run
        .clusters
        .iter()
        .filter_map(|cluster| cluster.plan.clone())
        .collect();
    let title = match (fleet_value, run.clusters.as_slice()) {
        (None, [only]) => only.name.clone(),
        _ => fleet::fleet_name(fleet_value),
    };
    let overlaps = calico_spec::fleet::reported_overlaps(fleet_value, &plans);
    let layout = calico_render::picture::layout(&title, &plans, fleet_value, &overlaps);
    let text = match args.output {
        PictureFormat::Svg => calico_render::picture::svg(&layout),
        PictureFormat::Html => calico_render::picture::html(&layout),
    };
    super::input::write_stdout(text)?;
    let missing: Vec<&str> = run
        .clusters
        .iter()
        .filter(|cluster| cluster.plan.is_none())
        .map(|cluster| cluster.file.as_str())
        .collect();
    if missing.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let failed: Vec<_> = run
        .clusters
        .iter()
        .filter(|cluster| cluster.plan.is_none())
        .flat_map(|cluster| cluster.diagnostics.iter().cloned())
        .collect();
    print_diagnostics(&failed);
    eprintln!(
        "error: left out of the picture (they do not load): {}",
        missing.join(", ")
    );
    Ok(ExitCode::from(super::EXIT_INVALID))
}
