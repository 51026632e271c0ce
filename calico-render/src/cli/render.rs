//! The `render` subcommand: ClusterNetwork file -> manifests on standard output or in a
//! directory.
//!
//! Nothing is written until the whole bundle has been compiled and serialized, so an invalid
//! input leaves standard output (and `--out-dir`) untouched.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use calico_render::bundle::{self, Format, RenderConfig, Stage};
use calico_spec::objects::Object;

use super::input::{
    CompileFailure, Compiled, LintArgs, compile_text, display_name, note, print_diagnostics,
    read_input,
};

// Arguments of `calico-render render`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
The output is a YAML stream in a fixed order (endpoint ConfigMap, Installation, APIServer, then
the projectcalico.org/v3 FelixConfiguration, BGPConfiguration, BGPPeer and IPPool objects),
byte-for-byte deterministic. Everything is checked before anything is printed: an invalid input
prints diagnostics on standard error, nothing on standard output, and exits 1.

Stages: `--stage operator` gives what can be created right after the operator
(`kubectl create -f -`). `--stage calico` gives the projectcalico.org/v3 objects, which need the
Calico API server first; apply them with `kubectl apply --server-side -f -`, not `create`,
because the operator creates FelixConfiguration `default` itself. A stage with nothing in it
prints nothing and says so on standard error.

Exit status: 0 rendered (warnings allowed), 1 invalid input, 2 usage or IO error or text that is
not YAML.")]
pub struct Args {
    /// The ClusterNetwork file (`-` for standard input).
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "FILE"
    )]
    file: String,

    /// Output format.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FORMAT",
        value_enum,
        default_value_t = OutputFormat::Yaml
    )]
    output: OutputFormat,

    /// Write one file per object into DIR (`NN-<kind>-<name>.yaml`) instead of standard output.
    /// Earlier files of that naming pattern that this render does not produce are removed.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,

    /// Which objects to emit: `operator` (ConfigMap, Installation, APIServer: create them right
    /// after the operator), `calico` (projectcalico.org/v3 objects: apply them with
    /// `kubectl apply --server-side` once the Calico API server runs, since the operator
    /// creates FelixConfiguration `default` itself), or `all`.
    #[arg(long, value_enum, default_value_t = StageArg::All)]
    stage: StageArg,

    #[command(flatten)]
    lints: LintArgs,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OutputFormat {
    /// A multi-document YAML stream.
    Yaml,
    /// A JSON `v1` `List`.
    Json,
    /// Values for the official tigera-operator Helm chart (objects the chart cannot render are
    /// listed in comments at the top).
    HelmValues,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum StageArg {
    /// ConfigMap, Installation and APIServer.
    Operator,
    /// The projectcalico.org/v3 objects.
    Calico,
    /// Everything.
    All,
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    let file = display_name(&args.file);
    let text = read_input(&args.file)
        .with_context(|| format!("cannot read the ClusterNetwork file `{file}`"))?;
    // `load` parses, checks, compiles and runs the rule catalogue: it only returns objects
    // calico-render would accept, so nothing invalid is ever printed.
    let objects = match compile_text(file, &text, &levels) {
        Ok(Compiled { objects, warnings }) => {
            print_diagnostics(&warnings);
            objects
        }
        Err(CompileFailure::NotYaml(message)) => {
            eprintln!("error: {message}");
            return Ok(ExitCode::from(super::EXIT_USAGE));
        }
        Err(CompileFailure::Invalid(diagnostics)) => {
            print_diagnostics(&diagnostics);
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
    };

    let stage = match args.stage {
        StageArg::Operator => Stage::Operator,
        StageArg::Calico => Stage::Calico,
        StageArg::All => Stage::All,
    };
    if !objects.iter().any(|object| stage.includes(object)) {
        note(&match args.stage {
            StageArg::Calico => format!(
                "nothing to emit for `--stage calico`: {file} needs no projectcalico.org/v3 \
                 objects; everything it sets is in the `--stage operator` objects"
            ),
            StageArg::Operator | StageArg::All => {
                format!("nothing to emit: {file} renders no objects of this stage")
            }
        });
    }
    let format = match args.output {
        OutputFormat::Yaml => Format::Yaml,
        OutputFormat::Json => Format::Json,
        OutputFormat::HelmValues => {
            if args.out_dir.is_some() {
                bail!("--out-dir writes YAML manifests; leave out `-o helm-values` or --out-dir");
            }
            return print_helm_values(stage, &objects);
        }
    };
    let config = RenderConfig { stage, format };
    match &args.out_dir {
        Some(dir) => {
            if matches!(args.output, OutputFormat::Json) {
                bail!("--out-dir writes YAML files; leave out `-o json` or leave out --out-dir");
            }
            let files = bundle::bundle_files(&config, &objects)?;
            write_out_dir(dir, &files)?;
        }
        None => {
            let text = bundle::render_bundle(&config, &objects)?;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .context("cannot write to standard output")?;
            stdout.flush().context("cannot write to standard output")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `-o helm-values`: the chart's values for the selected objects on standard output.
fn print_helm_values(stage: Stage, objects: &[Object]) -> super::Outcome {
    let values: Vec<serde_json::Value> = bundle::in_bundle_order(objects)
        .into_iter()
        .filter(|object| stage.includes(object))
        .map(Object::to_value)
        .collect();
    let chart = calico_render::helm_values::to_chart_values(&values);
    let text = calico_render::helm_values::to_values_yaml(&chart)
        .map_err(|message| anyhow::anyhow!("cannot write the chart values: {message}"))?;
    // The notes (which objects the chart cannot render, namespace caveats) are comments at the
    // top of the values file itself, where the user will see them when applying it.
    let mut text = text;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .context("cannot write to standard output")?;
    stdout.flush().context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

/// Write the bundle files into `dir` (created if missing) and remove files of our naming
/// pattern left by an earlier render, so that `kubectl apply -f DIR` sees exactly this bundle.
fn write_out_dir(dir: &Path, files: &[bundle::BundleFile]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the output directory `{}`", dir.display()))?;
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list the output directory `{}`", dir.display()))?;
    let mut stale = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list `{}`", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if bundle::is_bundle_file_name(&name) && !files.iter().any(|file| file.name == name) {
            stale.push(entry.path());
        }
    }
    stale.sort();
    for path in stale {
        std::fs::remove_file(&path)
            .with_context(|| format!("cannot remove the stale bundle file `{}`", path.display()))?;
    }
    for file in files {
        let path = dir.join(&file.name);
        std::fs::write(&path, &file.contents)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    Ok(())
}
