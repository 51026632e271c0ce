//! The `krm` subcommand: a KRM function for kustomize and kpt (ResourceList on standard input,
//! ResourceList on standard output, diagnostics as `results`).

use std::io::{self, Read, Write};
use std::process::ExitCode;

use anyhow::Context as _;
use calico_render::krm::{self, Generate, Generated, KrmError, Origin};
use calico_spec::objects::Object;

use super::input::{CompileFailure, compile_text, print_diagnostics};
use super::post_render::CliFinish;
use super::{EXIT_INVALID, EXIT_USAGE};

// Arguments of `calico-render krm`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
The functionConfig is a ClusterNetwork, or a ConfigMap with `data.file` (a ClusterNetwork \
file, relative to the directory the tool runs the function in) or `data.clusterNetwork` (its \
text). Works as a generator and as a transformer: items with the kind and name of one of our \
objects are merged into (their annotations, kustomize's and kpt's internal ones included, are \
kept), our other objects are appended, every other item is copied unchanged.

kustomize: list a ClusterNetwork with the annotation
  config.kubernetes.io/function: |
    exec:
      path: calico-render-krm
under `generators:` or `transformers:`, then `kustomize build --enable-alpha-plugins --enable-exec`
(calico-render-krm being a two-line script that runs `calico-render krm`).
kpt:  kpt fn eval DIR --exec calico-render-krm -- file=cluster.yaml

Exit status 1 when any result is an error (the list is still written, items unchanged).")]
pub struct Args {}

/// Run the subcommand.
pub fn run(_args: Args) -> super::Outcome {
    let mut input = String::new();
    io::stdin()
        .lock()
        .read_to_string(&mut input)
        .context("reading the ResourceList from standard input")?;
    let output = match krm::run(&input, &CliGenerate, &CliFinish) {
        Ok(output) => output,
        Err(err @ KrmError::NotYaml { .. }) => {
            eprintln!("error: {err}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        Err(err) => {
            eprintln!("error: {err}");
            return Ok(ExitCode::from(EXIT_INVALID));
        }
    };
    // Tools show standard error when a function fails; the same findings are in `results`.
    print_diagnostics(&output.diagnostics);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(output.text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the ResourceList")?;
    Ok(if output.failed {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

/// ClusterNetwork text to objects, as `render` does it.
struct CliGenerate;

impl Generate for CliGenerate {
    fn generate(&self, origin: &Origin, text: &str) -> Generated {
        match compile_text(origin.file_name(), text) {
            Ok(compiled) => Generated {
                objects: compiled.objects.iter().map(Object::to_value).collect(),
                diagnostics: compiled.warnings,
            },
            Err(CompileFailure::Invalid(diagnostics)) => Generated {
                objects: Vec::new(),
                diagnostics,
            },
            Err(CompileFailure::NotYaml(message)) => Generated {
                objects: Vec::new(),
                diagnostics: vec![calico_spec::diag::Diagnostic {
                    severity: calico_spec::diag::Severity::Error,
                    code: "CR0000",
                    path: String::new(),
                    message,
                    hint: None,
                    location: None,
                }],
            },
        }
    }
}
