//! The `validate` subcommand: check upstream manifests and ClusterNetwork files against the
//! rule catalogue; the diagnostics are the product and go to standard output.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use calico_render::chart_values::{self, Reading};
use calico_render::report;
use calico_spec::rules::{self, SourceText};
use calico_spec::source::Limits;

use super::input::{LintArgs, ReleaseArgs, display_name, note, read_input, stdout_palette};

/// Output format of `validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-like text with the offending line and a marker.
    Text,
    /// One JSON object: `{"diagnostics":[...],"skipped":[...]}`.
    Json,
}

// Arguments of `calico-render validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input file (repeatable); `-` reads standard input. Multi-document YAML streams of
    /// upstream manifests (Installation, APIServer, IPPool, BGPConfiguration, BGPPeer,
    /// FelixConfiguration, the kubernetes-services-endpoint ConfigMap), ClusterNetwork files,
    /// and tigera-operator chart values (a values file, a Flux HelmRelease, an Argo CD Application).
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "FILE",
        required = true
    )]
    files: Vec<String>,
    /// Output format.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FORMAT",
        value_enum,
        default_value_t = Format::Text
    )]
    output: Format,
    /// Read every file as values for the tigera-operator Helm chart (found without it when a
    /// file has the chart's keys and no apiVersion or kind).
    #[arg(long)]
    chart_values: bool,
    #[command(flatten)]
    release: ReleaseArgs,
    #[command(flatten)]
    lints: LintArgs,
}

/// Run the subcommand: exit 0 without errors (warnings allowed), 1 with any error, 2 when an
/// input cannot be read or is not YAML.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    let mut sources: BTreeMap<String, String> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for path in &args.files {
        let file = display_name(path);
        if sources.contains_key(file) {
            bail!("`-f {path}` is given more than once");
        }
        let text = read_input(path).with_context(|| format!("cannot read `{file}`"))?;
        sources.insert(file.to_owned(), text);
        order.push(file.to_owned());
    }
    let texts: Vec<SourceText<'_>> = order
        .iter()
        .filter_map(|name| {
            Some(SourceText {
                name,
                text: sources.get(name)?,
            })
        })
        .collect();
    let reading = if args.chart_values {
        Reading::ChartValues
    } else {
        Reading::Detect
    };
    let outcome = match chart_values::validate_texts_for(
        args.release.release,
        &texts,
        &rules::Context::assumed(),
        &Limits::MANIFESTS,
        reading,
    ) {
        Ok(outcome) => outcome,
        Err(err) => {
            eprintln!("error: {err}");
            return Ok(ExitCode::from(super::EXIT_USAGE));
        }
    };
    let mut outcome = outcome;
    if !args.release.release.is_newest() {
        apply_release(args.release.release, &texts, &mut outcome);
    }
    let checked = outcome.checked;
    let (diagnostics, skipped) = report::leveled(outcome, &levels);
    let rendered = match args.output {
        Format::Text => {
            report::render_text(&diagnostics, &skipped, &sources, checked, &stdout_palette())
        }
        Format::Json => report::render_json(&diagnostics, &skipped),
    };
    let mut stdout = io::stdout().lock();
    stdout.write_all(rendered.as_bytes())?;
    stdout.flush()?;
    drop(stdout);
    if checked == 0 {
        let what = if skipped.is_empty() {
            "the input holds no objects".to_owned()
        } else {
            format!(
                "every document is of a kind calico-render does not validate ({} skipped)",
                skipped.len()
            )
        };
        note(&format!("no objects were checked: {what}"));
    }
    Ok(if report::has_errors(&diagnostics) {
        ExitCode::from(super::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

/// Check the manifests of `texts` against an older release's schema (see
/// `calico_spec::release`). The texts were read once already, so they parse.
fn apply_release(
    release: &'static calico_spec::release::Release,
    texts: &[SourceText<'_>],
    outcome: &mut rules::ValidationOutcome,
) {
    let parsed: Vec<(&str, Vec<calico_spec::source::Document>)> = texts
        .iter()
        .filter_map(|text| {
            calico_spec::source::parse_stream(text.text, &Limits::MANIFESTS)
                .ok()
                .map(|docs| (text.name, docs))
        })
        .collect();
    let inputs: Vec<rules::InputDocument<'_>> = parsed
        .iter()
        .flat_map(|(file, docs)| {
            docs.iter()
                .map(move |document| rules::InputDocument { file, document })
        })
        .collect();
    calico_spec::release::apply_to_outcome(release, &inputs, outcome);
}
