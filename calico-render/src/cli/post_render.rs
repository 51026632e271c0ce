//! The `post-render` subcommand: a Helm post-renderer (rendered chart on standard input, the
//! same stream with our objects merged in on standard output).
//!
//! Helm 3 runs the binary itself (`--post-renderer calico-render --post-renderer-args=post-render
//! --post-renderer-args=--filename=cluster.yaml`); Helm 4 runs it through the plugin in
//! `integrations/helm-plugin/`. The merged objects are checked by the library's
//! [`Linted`] finish, as for `krm`: what `validate` reports on them goes to standard error.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd as _, BorrowedFd};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use calico_render::merge::Linted;
use calico_render::post_render::{self, Options, Placement, PostRenderError};
use calico_spec::objects::Object;
use serde_json::Value;

use super::input::{
    CompileFailure, Compiled, LintArgs, compile_text, print_diagnostics, stdin_not_yaml,
};
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
    let (ours, context, reported) = match compile_text(&file_name, &text, &levels) {
        Ok(Compiled {
            objects,
            warnings,
            context,
            ..
        }) => {
            print_diagnostics(&warnings);
            let ours = objects.iter().map(Object::to_value).collect::<Vec<Value>>();
            (ours, context, warnings)
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
        // What `validate` would say of the merged objects, under the same lint levels.
        &Linted {
            context: &context,
            levels: &levels,
            reported: &reported,
        },
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
        Err(PostRenderError::NotYaml {
            line,
            column,
            message,
            ..
        }) => Ok(stdin_not_yaml(line, column, &message)),
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
