//! The `import` subcommand: live objects -> a ClusterNetwork that renders them again.
//!
//! Nothing is written until the ClusterNetwork has been built and checked (the library's
//! `import` loads it and compares its rendering with the live objects), so a refused input
//! leaves standard output and `--out` untouched; `--out` is written through a temporary file
//! in the same folder and renamed into place.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use calico_render::import::{self, ImportError, Options, SourceText};
use calico_render::report;

use calico_spec::cluster_network::ApiMode;
use calico_spec::release::Release;

use super::input::{LintArgs, display_name, note, print_diagnostics, read_input};

// Arguments of `calico-render import`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Read the live objects, then import them:
  R=installation,apiserver,ippools.projectcalico.org,bgpconfigurations,bgppeers
  kubectl get $R,felixconfigurations -o yaml > live.yaml
  kubectl -n tigera-operator get cm kubernetes-services-endpoint -o yaml > endpoint.yaml
  calico-render import -f live.yaml -f endpoint.yaml --out cluster.yaml
(leave out the endpoint ConfigMap when the cluster has none). For Calico v3.33 add
  kubectl get apiservice v3.projectcalico.org -o yaml > apiservice.yaml
(or `kubectl get crd -o yaml`): it says which API mode the cluster runs (spec.apiMode), as the
operator decides it; or say it with --api-mode.

A cluster installed from a manifest (calico.yaml) is imported from that manifest, or from
  kubectl -n kube-system get ds/calico-node,cm/calico-config,deploy -o yaml
as the operator's migration would take it over: what it refuses is refused (CN0410), what it
changes is named (CN0411), settings nothing says are named too (CN0412).

What the API server and the operator write (status, server-set metadata, the operator's
write-back defaults, its own FelixConfiguration fields and IPPool copies) is dropped; the
vocabulary gets what it can say, spec.overrides and spec.extraObjects the rest. Every drop and
every value kept outside the vocabulary is reported on standard error with a CN04xx code
(`calico-render explain CN0402`); the routine drops (CN0401-CN0403) are notes, which never fail
the run, not even under `--deny warnings` (`--deny CN0402` fails on one). The result is checked
before it is written: it must pass every check `render` runs and render every live value that
was kept, so `render` then `patch` against the same objects finds nothing to change.

Exit status: 0 written (warnings allowed), 1 the objects cannot be imported (or a lint was
denied), 2 usage or IO error or text that is not YAML.")]
pub struct Args {
    /// The live objects: a `kubectl get -o yaml` (or `-o json`) List or a stream of objects.
    /// Repeatable; `-` (the default) reads standard input.
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "LIVE",
        default_value = "-"
    )]
    files: Vec<String>,
    /// Write the ClusterNetwork to FILE (through a temporary file, renamed into place) instead
    /// of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    /// `metadata.name` of the ClusterNetwork (used in messages only).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// The Calico release the cluster runs (v3.30, v3.31, v3.32 or v3.33): the write-back defaults of
    /// its operator are the ones dropped, and it becomes `spec.calicoVersion`
    #[arg(
        long = "calico-version",
        value_name = "VERSION",
        default_value = Release::default_target().calico,
        value_parser = parse_release,
    )]
    release: &'static Release,
    /// The API mode the cluster runs (`NativeV3` or `Aggregated`, as `spec.apiMode` spells
    /// them), when the input does not say it: without it, `import` takes it from the
    /// CustomResourceDefinitions, the APIService `v3.projectcalico.org`, the operator's
    /// Deployments or objects read through crd.projectcalico.org/v1 in the input, as the
    /// operator decides it (CN0413), or says that nothing decided (CN0414)
    #[arg(long = "api-mode", value_name = "MODE", value_parser = api_mode_parser())]
    api_mode: Option<ApiMode>,
    #[command(flatten)]
    lints: LintArgs,
}

/// `NativeV3` or `Aggregated`, as `spec.apiMode` spells them (and completions offer them).
fn api_mode_parser() -> impl clap::builder::TypedValueParser<Value = ApiMode> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(["NativeV3", "Aggregated"]).map(|mode| {
        if mode == "NativeV3" {
            ApiMode::NativeV3
        } else {
            ApiMode::Aggregated
        }
    })
}

fn parse_release(text: &str) -> Result<&'static Release, String> {
    Release::for_version(text).map_err(|err| err.to_string())
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    if args.files.iter().filter(|file| *file == "-").count() > 1 {
        eprintln!("error: standard input (`-f -`) can be read once");
        return Ok(ExitCode::from(super::EXIT_USAGE));
    }
    let mut texts = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let name = display_name(file);
        let text = read_input(file).with_context(|| format!("cannot read -f {name}"))?;
        texts.push((name, text));
    }
    let inputs: Vec<SourceText<'_>> = texts
        .iter()
        .map(|(name, text)| SourceText { name, text })
        .collect();
    let options = Options {
        release: args.release,
        name: args.name,
        api_mode: args.api_mode,
    };
    let imported = match import::import_texts(&inputs, &options) {
        Ok(imported) => imported,
        Err(ImportError::NotYaml { file, message }) => {
            eprintln!("error: {file}:{message}");
            return Ok(ExitCode::from(super::EXIT_USAGE));
        }
        Err(ImportError::Invalid { diagnostics }) => {
            print_diagnostics(&levels.apply(diagnostics));
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
        Err(other) => {
            eprintln!("error: {other}");
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
    };
    let diagnostics = levels.apply(imported.report);
    print_diagnostics(&diagnostics);
    if report::has_errors(&diagnostics) {
        return Ok(ExitCode::from(super::EXIT_INVALID));
    }
    match &args.out {
        Some(path) => {
            write_atomically(path, &imported.text)?;
            note(&format!("wrote {}", path.display()));
        }
        None => {
            super::input::write_stdout(imported.text)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write `text` to `path` in full through a temporary file in the same folder, then rename it
/// into place: a reader never sees a partial file, and a failure leaves the old one.
fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let temporary = super::input::staged_file(dir, text)?;
    temporary
        .persist(path)
        .map_err(|err| err.error)
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    Ok(())
}
