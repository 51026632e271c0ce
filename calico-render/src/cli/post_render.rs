//! The `post-render` subcommand: a Helm post-renderer (rendered chart on standard input, the
//! same stream with our objects merged in on standard output).
//!
//! Helm 3 runs the binary itself (`--post-renderer calico-render --post-renderer-args=post-render
//! --post-renderer-args=--filename=cluster.yaml`); Helm 4 runs it through the plugin in
//! `integrations/helm-plugin/`. This module also holds what `krm` shares with it: the check and
//! YAML writing of merged objects.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd as _, BorrowedFd};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use calico_render::post_render::{self, Finish, Options, Placement, PostRenderError};
use calico_render::yaml::EmitError;
use calico_spec::diag::{Diagnostic, Severity};
use calico_spec::objects::Object;
use serde_json::Value;

use super::input::{CompileFailure, Compiled, LintArgs, compile_text, print_diagnostics};
use super::{EXIT_INVALID, EXIT_USAGE};

// Arguments of `calico-render post-render`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Merge rule: a chart document with the same kind and name as one of our objects (Calico kinds \
match across projectcalico.org and crd.projectcalico.org; the endpoint ConfigMap matches in any \
namespace) is merged: every field we set wins, mappings merge key by key, lists are replaced \
whole; fields only the chart sets, the chart's labels and annotations (Helm 4's \
postrenderer.helm.sh/postrender-filename included), its namespace and its `# Source:` comment \
are kept. A `kind: List` (or `*List`) document is looked into: an item that is one of our \
objects is merged by the same rule, in place, and the list is written again around it. Our \
other objects are appended. Every other document is copied byte for byte.

If the merged objects are invalid nothing is written and the exit status is 1, also when `--deny` \
makes a lint an error (with Helm, pass it as one more `--post-renderer-args=--deny=warnings`).

Helm 3:  helm install calico projectcalico/tigera-operator --post-renderer calico-render \\
           --post-renderer-args=post-render --post-renderer-args=--filename=cluster.yaml
Helm 4:  helm plugin install integrations/helm-plugin, then \\
           --post-renderer calico-render --post-renderer-args=--filename=cluster.yaml")]
pub struct Args {
    /// The ClusterNetwork file (standard input carries the chart, so `-` is not accepted).
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "FILE"
    )]
    file: PathBuf,
    #[command(flatten)]
    lints: LintArgs,
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    if args.file.as_os_str() == "-" {
        eprintln!(
            "error: `post-render -f -` cannot work: standard input carries the rendered chart; \
             give the ClusterNetwork as a file path"
        );
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let file_name = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read the ClusterNetwork file {file_name}"))?;
    let ours = match compile_text(&file_name, &text, &levels) {
        Ok(Compiled { objects, warnings }) => {
            print_diagnostics(&warnings);
            objects.iter().map(Object::to_value).collect::<Vec<Value>>()
        }
        Err(CompileFailure::NotYaml(message)) => {
            eprintln!("error: {message}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        Err(CompileFailure::Invalid(diagnostics)) => {
            print_diagnostics(&diagnostics);
            eprintln!("error: {file_name} is not a valid ClusterNetwork; nothing was written");
            return Ok(ExitCode::from(EXIT_INVALID));
        }
    };

    // Plain files on duplicated descriptors: no line buffering in the way, large reads straight
    // into the spool, and on the way out `io::copy` can see a file descriptor and move the
    // spooled bytes with `sendfile`/`splice`.
    let (mut input, stdout) = match (
        std_file(io::stdin().as_fd()),
        std_file(io::stdout().as_fd()),
    ) {
        (Ok(input), Ok(output)) => (input, output),
        (Err(err), _) | (_, Err(err)) => {
            return Err(err).context("cannot use standard input and output");
        }
    };
    let mut output = io::BufWriter::with_capacity(64 << 10, stdout);
    let result = post_render::post_render(
        &mut input,
        &mut output,
        &ours,
        &CliFinish,
        &Options::default(),
    );
    match result {
        Ok(summary) => {
            print_diagnostics(&summary.warnings);
            output
                .flush()
                .context("writing the post-rendered stream failed")?;
            for (kind, name, placement) in &summary.objects {
                if let Placement::Appended = placement {
                    // Helm 4 files documents without its filename annotation under
                    // generated-by-postrender-*.yaml; saying so avoids a surprise in `helm get`.
                    log::appended(kind, name);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(PostRenderError::Invalid { diagnostics }) => {
            print_diagnostics(&diagnostics);
            eprintln!(
                "error: merging {file_name} into the rendered chart gives invalid objects; \
                 nothing was written"
            );
            Ok(ExitCode::from(EXIT_INVALID))
        }
        Err(err @ PostRenderError::DuplicateMatch { .. }) => {
            eprintln!("error: {err}");
            Ok(ExitCode::from(EXIT_INVALID))
        }
        Err(PostRenderError::Write(err)) => Err(err).context("writing the post-rendered stream"),
        Err(err) => {
            eprintln!("error: {err}");
            Ok(ExitCode::from(EXIT_USAGE))
        }
    }
}

/// A `File` on a duplicate of a standard stream's descriptor (which may be a pipe or a terminal,
/// not only a regular file).
fn std_file(fd: BorrowedFd<'_>) -> io::Result<File> {
    fd.try_clone_to_owned().map(File::from)
}

/// Messages that are not diagnostics, kept quiet unless asked for.
mod log {
    /// Note an appended object when `CALICO_RENDER_VERBOSE` is set.
    pub(super) fn appended(kind: &str, name: &str) {
        if std::env::var_os("CALICO_RENDER_VERBOSE").is_some() {
            eprintln!("note: {kind} `{name}` is not in the chart; appended");
        }
    }
}

/// The check and YAML writing of merged objects: each must read back into its wire type (the
/// merge may have brought a chart field of the wrong type or unknown to our CRD version), and
/// is then written by the same emitter as `render`, in schema key order.
pub(super) struct CliFinish;

impl CliFinish {
    fn typed(object: &Value) -> Result<Object, String> {
        use calico_spec::generated::operator_tigera_io::v1;
        use calico_spec::generated::projectcalico_org::v3;
        fn read<T: serde::de::DeserializeOwned>(object: &Value) -> Result<T, String> {
            serde_json::from_value(object.clone()).map_err(|err| err.to_string())
        }
        let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
        Ok(match kind {
            "ConfigMap" => Object::ConfigMap(read(object)?),
            "Installation" => Object::Installation(Box::new(read::<v1::Installation>(object)?)),
            "APIServer" => Object::APIServer(read::<v1::APIServer>(object)?),
            "FelixConfiguration" => {
                Object::FelixConfiguration(Box::new(read::<v3::FelixConfiguration>(object)?))
            }
            "BGPConfiguration" => Object::BGPConfiguration(read::<v3::BGPConfiguration>(object)?),
            "BGPPeer" => Object::BGPPeer(read::<v3::BGPPeer>(object)?),
            "IPPool" => Object::IPPool(read::<v3::IPPool>(object)?),
            other => return Err(format!("calico-render does not render kind `{other}`")),
        })
    }
}

impl Finish for CliFinish {
    fn check(&self, objects: &[Value]) -> Vec<Diagnostic> {
        let mut diagnostics: Vec<Diagnostic> = objects
            .iter()
            .filter_map(|object| {
                let err = Self::typed(object).err()?;
                let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
                let name = object
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                Some(Diagnostic {
                    severity: calico_spec::rules::catalogue::INPUT_NOT_PROCESSED.severity,
                    code: calico_spec::rules::catalogue::INPUT_NOT_PROCESSED.code,
                    path: String::new(),
                    message: format!(
                        "the merged {kind} `{name}` does not fit its CRD schema: {err}"
                    ),
                    hint: Some(
                        "the chart sets a field of another type or one this Calico version does \
                         not know; remove it from the chart values or set it in the ClusterNetwork"
                            .to_owned(),
                    ),
                    location: None,
                })
            })
            .collect();
        if diagnostics.is_empty() {
            diagnostics = rule_errors(objects);
        }
        diagnostics
    }

    fn to_yaml(&self, object: &Value) -> Result<String, EmitError> {
        // `check` has refused objects that do not type, so this is not reached for them.
        let typed = Self::typed(object).map_err(|message| EmitError::Serialize {
            document_idx: 0,
            message,
        })?;
        calico_render::yaml::to_yaml(&typed)
    }
}

/// The rule catalogue's errors for the merged objects, each named after its object.
///
/// Warnings are left out on purpose: our objects' lints were reported when the ClusterNetwork
/// was checked, and the lints' assumed context (LAN ranges, Service range) would only repeat
/// them or guess about the chart's fields.
fn rule_errors(objects: &[Value]) -> Vec<Diagnostic> {
    calico_spec::rules::validate_values(objects, &calico_spec::rules::Context::assumed())
        .into_iter()
        .filter(|diag| diag.severity == Severity::Error)
        .map(|mut diag| {
            let object = diag
                .location
                .as_ref()
                .and_then(|loc| objects.get(loc.document));
            if let Some(object) = object {
                let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
                let name = object
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                diag.message = format!("merged {kind} `{name}`: {}", diag.message);
            }
            // The positions would point into a document nobody wrote; the path says where.
            diag.location = None;
            diag
        })
        .collect()
}
