//! The `patch` subcommand: the guarded JSON patch from the live objects to the desired state.
//!
//! DESIRED is a ClusterNetwork (compiled into its objects first) or a stream of upstream
//! objects; LIVE is what `kubectl get ... -o yaml` (or `-o json`) prints, one object, several,
//! or a `List`.
//! Standard output carries only the patches; notes and errors go to standard error.

use std::process::ExitCode;

use anyhow::Context;
use calico_render::patch::{self, PatchError};
use calico_render::report::{self, LintLevels};
use calico_spec::cluster_network;
use calico_spec::diag::Diagnostic;
use calico_spec::objects::Object;
use calico_spec::rules::{self, InputDocument};
use calico_spec::source::{self, Document, Limits};
use serde_json::Value;

use super::input::{
    CompileFailure, LintArgs, ReleaseArgs, compile_text, display_name, note, print_diagnostics,
    read_input,
};

/// The apiVersion of our own input kind.
const CLUSTER_NETWORK_API_VERSION: &str = "calico-render.dev/v1alpha1";

// Compute a guarded RFC 6902 JSON patch from the live objects to the desired state.
//
// The desired objects are validated first, with the whole rule catalogue as `validate` runs
// it: invalid ones are refused with exit code 1 and nothing on standard output. Only fields the desired state sets are compared (the operator's written-back defaults are
// not drift); IP pools in the Installation are matched by name and every change to one is
// guarded by a `test` of its name. Changes Calico cannot make in place (a pool's cidr or
// blockSize, a pool switching to or from LoadBalancer use) are refused with exit code 1 and
// the migration steps.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Args {
    #[command(flatten)]
    inputs: DesiredLive,
    /// json: with one live object, its RFC 6902 array; with several, one
    /// {"apiVersion","kind","name","namespace","patch"} object per line for each object that
    /// differs. kubectl: one shell-safe `kubectl patch` command per object that differs.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FORMAT",
        value_enum,
        default_value_t = Format::Json
    )]
    output: Format,
    /// Also revert Installation fields the ClusterNetwork does not state (neither its
    /// vocabulary nor spec.overrides) where LIVE differs from the operator's default. Without
    /// it they are reported on standard error and left as they are.
    #[arg(long)]
    revert_unstated: bool,
    /// Remove the Installation pools LIVE lists and DESIRED does not. Without it such a patch
    /// is refused with exit code 1 and the steps: disable the pool, move the workloads off it,
    /// then remove it (`calico-render plan` prints them).
    #[arg(long)]
    remove_pools: bool,
    #[command(flatten)]
    release: ReleaseArgs,
    #[command(flatten)]
    lints: LintArgs,
}

/// The long help's closing section: what is compared, and an example.
const AFTER_HELP: &str = "\
The desired objects are checked first with the whole rule catalogue, as `validate` checks them \
(unknown fields, wrong types, invalid values, contradictions between objects): any error, or a \
lint made an error with `--deny`, refuses the patch with exit code 1 and nothing on standard \
output.

Only fields the desired state sets are compared: the operator's written-back defaults, status \
and metadata are never drift and never touched (the one exception: a BGPPeer field that a \
desired field excludes, such as peerIP when switching to peerSelector, is removed). IP pools in the Installation are matched by \
name, never by position, and every change to one is guarded by a `test` of its name, so a \
patch applied to a pool list that has moved fails instead of editing the wrong pool. A pool's \
cidr or blockSize, and switching a pool to or from LoadBalancer use, cannot change in place: \
such changes are refused with exit code 1 and the migration steps. So is removing a pool LIVE \
lists and DESIRED does not, unless `--remove-pools` is given: a pool still holding addresses \
is disabled and emptied first (`calico-render plan` prints the steps).

With a ClusterNetwork, an Installation field that only the operator's defaults set (the \
ClusterNetwork states it neither in its vocabulary nor in spec.overrides) is left as LIVE has it \
when LIVE differs, such as the chart's `kubeletVolumePluginPath: None`, and reported on \
standard error: add it to spec.overrides to manage it. \
`--revert-unstated` reverts such fields to the defaults instead.

Exit codes: 0 patch printed (`[]` and a note when nothing differs); 1 invalid input or refused \
change; 2 usage, IO, or text that is not YAML.

Example:
  kubectl get installation default -o yaml > live.yaml
  calico-render patch -f cluster.yaml --live live.yaml > patch.json
  kubectl patch installation default --type=json --patch-file patch.json

`-o kubectl` prints the same patches as `kubectl patch` command lines, one per object, to read \
and run one at a time.";

/// How the patches are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// RFC 6902 JSON.
    Json,
    /// `kubectl patch` command lines.
    Kubectl,
}

// DESIRED (`-f`) and LIVE (`--live`), as `patch` and `plan` read them. (A `//` comment: clap
// would take a doc comment of a flattened struct for the subcommand's about.)
#[derive(Debug, clap::Args)]
pub(super) struct DesiredLive {
    /// The desired state: a ClusterNetwork, or upstream objects (Installation, APIServer,
    /// projectcalico.org/v3 kinds, the endpoint ConfigMap); `-` reads standard input. Validated
    /// as `validate` does before anything is compared.
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "DESIRED"
    )]
    file: String,
    /// The live objects, as `kubectl get ... -o yaml` or `-o json` prints them (one object, a
    /// stream, or a List); `-` reads standard input.
    #[arg(long, value_name = "LIVE")]
    live: String,
}

/// DESIRED and LIVE as read: the desired objects (validated), the fields DESIRED states
/// (`None` for upstream objects, which state every field they hold), and the live objects.
pub(super) struct Read {
    pub desired: Vec<Value>,
    pub stated: Option<Vec<Value>>,
    pub live: Vec<Value>,
}

impl DesiredLive {
    /// Read and check both inputs; `Ok(Err(code))` when a problem was reported and the run
    /// ends with that exit code.
    pub(super) fn read(
        &self,
        levels: &LintLevels,
        release: &'static calico_spec::release::Release,
    ) -> anyhow::Result<Result<Read, ExitCode>> {
        if self.file == "-" && self.live == "-" {
            eprintln!(
                "error: -f and --live cannot both read standard input; give one of them a file"
            );
            return Ok(Err(ExitCode::from(super::EXIT_USAGE)));
        }
        let (desired_name, live_name) = (display_name(&self.file), display_name(&self.live));
        let desired_text =
            read_input(&self.file).with_context(|| format!("cannot read -f {desired_name}"))?;
        let live_text =
            read_input(&self.live).with_context(|| format!("cannot read --live {live_name}"))?;
        let (desired, stated) = match desired_objects(desired_name, &desired_text, levels, release)
        {
            Ok(objects) => objects,
            Err(failure) => return Ok(Err(failure.report())),
        };
        let live = match upstream_objects(live_name, &live_text) {
            Ok(objects) => objects,
            Err(failure) => return Ok(Err(failure.report())),
        };
        Ok(Ok(Read {
            desired,
            stated,
            live,
        }))
    }
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    let Read {
        desired,
        stated,
        live,
    } = match args.inputs.read(&levels, args.release.target())? {
        Ok(read) => read,
        Err(code) => return Ok(code),
    };
    // Fields only the operator's defaults set: a different live value is the cluster's own
    // choice, kept and reported unless --revert-unstated (the library's `day_two`).
    let options = patch::DayTwoOptions::revert_unstated(args.revert_unstated)
        .with_remove_pools(args.remove_pools);
    let patch::DayTwo {
        stream, unstated, ..
    } = match patch::day_two_objects(&desired, stated.as_deref(), &live, &options) {
        Ok(day_two) => day_two,
        Err(err) if err.is_internal() => return Err(err.into()),
        Err(err) => return Ok(report_patch_error(&err)),
    };
    let format = match args.output {
        Format::Json => patch::Format::Json,
        Format::Kubectl => patch::Format::Kubectl,
    };
    let text = match patch::render_output(&stream, format) {
        Ok(text) => text,
        Err(err) => return Ok(report_patch_error(&err)),
    };

    for message in stream.notes() {
        note(&message.to_string());
    }
    for object in stream.patches() {
        for message in object.notes() {
            note(&message.to_string());
        }
    }
    for field in &unstated {
        note(&field.to_string());
    }
    if stream.changed().next().is_none() {
        note("LIVE already matches DESIRED on every managed field; nothing to patch");
    }
    super::input::write_stdout(text)?;
    Ok(ExitCode::SUCCESS)
}

/// Print a patch error the way the user can act on it, and choose the exit code.
fn report_patch_error(err: &PatchError) -> ExitCode {
    match err {
        PatchError::Refused { refusals } => {
            for refusal in refusals {
                eprintln!("error: {refusal}");
                eprintln!("  hint: {}", refusal.hint);
            }
        }
        PatchError::PoolsRemoved { removals } => {
            for removal in removals {
                eprintln!("error: {removal}");
                eprintln!("  hint: {}", removal.hint());
            }
        }
        other => eprintln!("error: {other}"),
    }
    ExitCode::from(super::EXIT_INVALID)
}

/// Why an input could not be turned into objects; printed by [`Failure::report`].
pub(super) enum Failure {
    /// Not YAML at all, or beyond the size budgets: exit 2.
    NotYaml(String),
    /// YAML, but not valid input: exit 1, one line per problem.
    Invalid(Vec<String>),
    /// A ClusterNetwork that does not pass its checks: exit 1, the diagnostics with positions.
    Diagnostics(Vec<Diagnostic>),
}

impl Failure {
    pub(super) fn report(self) -> ExitCode {
        match self {
            Failure::NotYaml(message) => {
                eprintln!("error: {message}");
                ExitCode::from(super::EXIT_USAGE)
            }
            Failure::Invalid(messages) => {
                for message in messages {
                    eprintln!("error: {message}");
                }
                ExitCode::from(super::EXIT_INVALID)
            }
            Failure::Diagnostics(diagnostics) => {
                print_diagnostics(&diagnostics);
                ExitCode::from(super::EXIT_INVALID)
            }
        }
    }
}

/// The desired objects: a ClusterNetwork compiled into its objects, or upstream objects
/// validated with the rule catalogue (under the context `validate` assumes) and taken as they
/// are. Their lints go to standard error; any error refuses the run.
/// For a ClusterNetwork, the objects as it states them ([`cluster_network::stated_objects`])
/// come along.
pub(super) fn desired_objects(
    file: &str,
    text: &str,
    levels: &LintLevels,
    release: &'static calico_spec::release::Release,
) -> Result<(Vec<Value>, Option<Vec<Value>>), Failure> {
    let documents = parse_documents(file, text)?;
    let is_cluster_network = |document: &Document| {
        document.value.get("apiVersion").and_then(Value::as_str)
            == Some(CLUSTER_NETWORK_API_VERSION)
    };
    if !documents.iter().any(is_cluster_network) {
        let documents = rules::expand_lists(documents);
        let inputs: Vec<InputDocument<'_>> = documents
            .iter()
            .map(|document| InputDocument { file, document })
            .collect();
        let ctx = rules::Context {
            release: Some(release),
            ..rules::Context::assumed()
        };
        let mut outcome = rules::validate(&inputs, &ctx);
        calico_spec::release::apply_to_outcome(release, &inputs, &mut outcome);
        let (diagnostics, _skipped) = report::leveled(outcome, levels);
        if report::has_errors(&diagnostics) {
            return Err(Failure::Diagnostics(diagnostics));
        }
        print_diagnostics(&diagnostics);
        let objects = documents
            .into_iter()
            .filter(|document| !document.is_empty())
            .map(|document| document.value)
            .collect();
        return Ok((objects, None));
    }
    if documents
        .iter()
        .filter(|document| !document.is_empty())
        .count()
        > 1
    {
        return Err(Failure::Invalid(vec![format!(
            "{file}: a ClusterNetwork must be the only document of DESIRED; pass upstream objects \
             in a separate run"
        )]));
    }
    let objects = compile_cluster_network(file, text, levels)?;
    // The text compiled, so it parses.
    let stated = cluster_network::parse(file, text)
        .map(|parsed| cluster_network::stated_objects(&parsed.cluster_network))
        .ok();
    Ok((objects, stated))
}

/// Parse, check and compile a ClusterNetwork (the same path `render` and the adapters take),
/// printing its lints on standard error.
fn compile_cluster_network(
    file: &str,
    text: &str,
    levels: &LintLevels,
) -> Result<Vec<Value>, Failure> {
    match compile_text(file, text, levels) {
        Ok(compiled) => {
            print_diagnostics(&compiled.warnings);
            Ok(compiled.objects.iter().map(Object::to_value).collect())
        }
        Err(CompileFailure::NotYaml(message)) => Err(Failure::NotYaml(message)),
        Err(CompileFailure::Invalid(diagnostics)) => Err(Failure::Diagnostics(diagnostics)),
    }
}

/// Parse a YAML (or JSON) stream into its documents, empty ones included.
fn parse_documents(file: &str, text: &str) -> Result<Vec<Document>, Failure> {
    source::parse_stream(text, &Limits::MANIFESTS)
        .map_err(|err| Failure::NotYaml(format!("{file}:{err}")))
}

/// Parse a YAML (or JSON) stream into its non-empty documents (the live side: read as the
/// server wrote it, not validated).
pub(super) fn upstream_objects(file: &str, text: &str) -> Result<Vec<Value>, Failure> {
    let documents = parse_documents(file, text)?;
    let mut problems = Vec::new();
    let mut objects = Vec::new();
    for document in documents {
        for problem in &document.problems {
            // Counted from 1, as people count documents.
            let number = document.index + 1;
            problems.push(format!("{file}: document {number}: {problem}"));
        }
        if !document.is_empty() {
            objects.push(document.value);
        }
    }
    if !problems.is_empty() {
        return Err(Failure::Invalid(problems));
    }
    Ok(objects)
}
