//! The `krm` subcommand: a KRM function for kustomize and kpt (ResourceList on standard input,
//! ResourceList on standard output, diagnostics as `results`).

use std::io::{self, Read};
use std::process::ExitCode;

use anyhow::Context as _;
use calico_render::krm::{self, Generate, Generated, KrmError, Origin};
use calico_render::merge::{Checked, Finish, Found, Linted, without_objects};
use calico_render::report::{LevelNotes, LintLevels};
use calico_render::yaml::EmitError;
use calico_spec::diag::{Diagnostic, Severity};
use calico_spec::objects::Object;
use serde_json::Value;

use super::EXIT_INVALID;
use super::input::{
    CompileFailure, LintArgs, compile_text, print_diagnostics_with, stdin_not_yaml,
};

// Arguments of `calico-render krm`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
The functionConfig is a ClusterNetwork, or a ConfigMap with `data.file` (a ClusterNetwork \
file, relative to the directory the tool runs the function in) or `data.clusterNetwork` (its \
text). Works as a generator and as a transformer: items with the kind and name of one of our \
objects are merged into (their annotations, kustomize's and kpt's internal ones included, are \
kept), the items of a `List` item are looked into the same way, our other objects are \
appended, every other item is copied unchanged. One of our objects found twice is an error, as \
for post-render.

kustomize: list a ClusterNetwork with the annotation
  config.kubernetes.io/function: |
    exec:
      path: calico-render-krm
under `generators:` or `transformers:`, then `kustomize build --enable-alpha-plugins --enable-exec`
(calico-render-krm being a two-line script that runs `calico-render krm`).
kpt:  kpt fn eval DIR --exec calico-render-krm -- file=cluster.yaml

Lint levels: `--allow CODE` and `--deny CODE|warnings` on the command line, or in the \
functionConfig, which is where kustomize and kpt users set things: a ConfigMap's `data.allow` \
and `data.deny` (codes separated by commas or spaces; `kpt fn eval ... -- file=cluster.yaml \
deny=warnings`), or a ClusterNetwork's annotations `calico-render.dev/allow` and \
`calico-render.dev/deny`. Both sources add up.

Exit status 1 when any result is an error (the list is still written, items unchanged).")]
pub struct Args {
    #[command(flatten)]
    lints: LintArgs,
}

/// The functionConfig annotations of a ClusterNetwork that set lint levels.
const ALLOW_ANNOTATION: &str = "calico-render.dev/allow";
/// See [`ALLOW_ANNOTATION`].
const DENY_ANNOTATION: &str = "calico-render.dev/deny";

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let mut input = String::new();
    io::stdin()
        .lock()
        .read_to_string(&mut input)
        .context("reading the ResourceList from standard input")?;
    // Flags are checked at once (a usage error); the functionConfig's settings become a result.
    args.lints.levels()?;
    let generate = CliGenerate {
        levels: config_levels(&args.lints, &input),
        compiled: std::cell::OnceCell::new(),
    };
    let output = match krm::run(&input, &generate, &generate) {
        Ok(output) => output,
        Err(KrmError::NotYaml {
            line,
            column,
            message,
        }) => {
            // No ResourceList to put a result in: standard error, in every subcommand's layout.
            return Ok(stdin_not_yaml(line, column, &message));
        }
        Err(err) => {
            eprintln!("error: {err}");
            return Ok(ExitCode::from(EXIT_INVALID));
        }
    };
    // Tools show standard error when a function fails; the same findings are in `results`,
    // where the hint of each lint's first warning says how to silence it.
    print_diagnostics_with(&output.diagnostics, LevelNotes::Off);
    super::input::write_stdout(&output.text).context("writing the ResourceList")?;
    Ok(if output.failed {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

/// The lint levels of the flags and the functionConfig together, or the result that says why
/// the functionConfig's are refused.
fn config_levels(flags: &LintArgs, input: &str) -> Result<LintLevels, Box<Diagnostic>> {
    let (mut deny, mut allow) = (flags.deny.clone(), flags.allow.clone());
    let config = krm::function_config(input).unwrap_or(Value::Null);
    // (where the settings live, how results name it, the allow key, the deny key)
    let (settings, path, allow_key, deny_key) = match config.get("kind").and_then(Value::as_str) {
        Some("ConfigMap") => (config.get("data"), "functionConfig.data", "allow", "deny"),
        _ => (
            config.pointer("/metadata/annotations"),
            "functionConfig.metadata.annotations",
            ALLOW_ANNOTATION,
            DENY_ANNOTATION,
        ),
    };
    let codes = |key: &str| -> Vec<String> {
        settings
            .and_then(|settings| settings.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .split([',', ' ', '\n'])
            .filter(|code| !code.is_empty())
            .map(str::to_owned)
            .collect()
    };
    deny.extend(codes(deny_key));
    allow.extend(codes(allow_key));
    LintLevels::from_flags(&deny, &allow).map_err(|err| {
        Box::new(Diagnostic {
            severity: calico_spec::rules::catalogue::KRM_FUNCTION_CONFIG.severity,
            code: calico_spec::rules::catalogue::KRM_FUNCTION_CONFIG.code,
            path: path.to_owned(),
            message: format!("the lint levels of the function config are refused: {err}"),
            hint: Some(format!(
                "`{allow_key}` and `{deny_key}` take rule codes separated by commas or spaces \
                 (`calico-render explain` lists them); `{deny_key}` also takes `warnings`"
            )),
            location: None,
        })
    })
}

/// ClusterNetwork text to objects, as `render` does it, with the lint levels applied; the first
/// warning of each code says in its hint how the function config silences it. It is also the
/// finish: what `validate` reports on the merged objects ([`Linted`]) in the ClusterNetwork's
/// context, under the same levels.
struct CliGenerate {
    levels: Result<LintLevels, Box<Diagnostic>>,
    /// The context and the findings of the ClusterNetwork, once generated.
    compiled: std::cell::OnceCell<(calico_spec::rules::Context, Vec<Diagnostic>)>,
}

impl Finish for CliGenerate {
    fn check(&self, objects: &[Value]) -> Vec<Diagnostic> {
        without_objects(self.check_objects(objects))
    }

    fn check_objects(&self, objects: &[Value]) -> Vec<Found> {
        match (&self.levels, self.compiled.get()) {
            (Ok(levels), Some((context, reported))) => Linted {
                context,
                levels,
                reported,
            }
            .check_objects(objects),
            _ => Checked.check_objects(objects),
        }
    }

    fn to_yaml(&self, object: &Value) -> Result<String, EmitError> {
        Checked.to_yaml(object)
    }
}

impl Generate for CliGenerate {
    fn generate(&self, origin: &Origin, text: &str) -> Generated {
        let levels = match &self.levels {
            Ok(levels) => levels,
            Err(refused) => {
                return Generated {
                    objects: Vec::new(),
                    diagnostics: vec![(**refused).clone()],
                };
            }
        };
        match compile_text(origin.file_name(), text, levels) {
            Ok(compiled) => {
                let _ = self
                    .compiled
                    .set((compiled.context, compiled.warnings.clone()));
                Generated {
                    objects: compiled.objects.iter().map(Object::to_value).collect(),
                    diagnostics: with_level_hints(compiled.warnings),
                }
            }
            Err(CompileFailure::Invalid(diagnostics)) => Generated {
                objects: Vec::new(),
                diagnostics: with_level_hints(diagnostics),
            },
            Err(CompileFailure::NotYaml(message)) => Generated {
                objects: Vec::new(),
                diagnostics: vec![Diagnostic {
                    severity: calico_spec::rules::catalogue::INPUT_NOT_PROCESSED.severity,
                    code: calico_spec::rules::catalogue::INPUT_NOT_PROCESSED.code,
                    path: String::new(),
                    message,
                    hint: None,
                    location: None,
                }],
            },
        }
    }
}

/// Add to the hint of the first warning of each code how the function config silences it or
/// makes it an error (a KRM user sets no flags; the results are what the tool shows).
fn with_level_hints(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = std::collections::BTreeSet::new();
    for diag in &mut diagnostics {
        if diag.severity != Severity::Warning || !seen.insert(diag.code) {
            continue;
        }
        let code = diag.code;
        let how = format!(
            "to silence this lint, list {code} under `allow` in the ConfigMap function config's \
             data (or the `{ALLOW_ANNOTATION}` annotation of a ClusterNetwork function config); \
             `deny` makes it an error"
        );
        diag.hint = Some(match diag.hint.take() {
            Some(hint) => format!("{hint}; {how}"),
            None => how,
        });
    }
    diagnostics
}
