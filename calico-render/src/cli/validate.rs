//! The `validate` subcommand: check upstream manifests and ClusterNetwork files against the
//! rule catalogue; the diagnostics are the product and go to standard output.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use calico_render::chart_values::{self, Reading};
use calico_render::report;
use calico_spec::release::{RELEASES, Release, cel};
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
    /// A folder of ClusterNetwork files or a fleet file (`kind: Fleet`) validates a fleet: each
    /// cluster in parallel, then the fleet checks (`FL` codes) across them, one report.
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "file",
        value_name = "FILE",
        required_unless_present = "list_rules"
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
    /// List the rules instead of validating: every catalogue code and every CEL rule of the
    /// CRDs (by kind and schema path), with the releases each applies to; with
    /// `--calico-version`, only those of that release
    #[arg(long, conflicts_with_all = ["files", "chart_values"])]
    list_rules: bool,
    /// Exit 0 when the input holds no object calico-render checks (an empty file, a `List`
    /// without items, only kinds it does not validate); without it that is exit 1, so an empty
    /// `kubectl get ... -o yaml` does not pass unnoticed
    #[arg(long)]
    allow_empty: bool,
    /// After the report, list on standard error the context documents (Node objects,
    /// kube-proxy's DaemonSet or ConfigMap) whose absence kept operational checks from running,
    /// with the checks each would enable
    #[arg(long)]
    explain_context: bool,
    /// The MTU of the nodes' network interfaces (as `ip link` shows it), for the operational
    /// check of a pod MTU that leaves no room for the tunnel's overhead
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u32).range(68..=65535))]
    node_mtu: Option<u32>,
    /// Check a hand-written FRR configuration (`frr.conf`) against the one ClusterNetwork given
    /// with `-f`: AS numbers, listen ranges, inbound policy, multihop, BFD, graceful restart
    /// and forwarding (the RT codes)
    #[arg(long, value_name = "FRR_CONF", conflicts_with = "chart_values")]
    router: Option<String>,
    #[command(flatten)]
    release: ReleaseArgs,
    #[command(flatten)]
    lints: LintArgs,
}

/// Run the subcommand: exit 0 without errors (warnings allowed), 1 with any error, 2 when an
/// input cannot be read or is not YAML.
pub fn run(args: Args) -> super::Outcome {
    if args.list_rules {
        let listing = list_rules(args.release.release, args.output);
        super::input::write_stdout(listing)?;
        return Ok(ExitCode::SUCCESS);
    }
    let levels = args.lints.levels()?;
    if let Some(router) = &args.router {
        return super::router::validate(
            &args.files,
            router,
            matches!(args.output, Format::Json),
            &levels,
        );
    }
    match super::fleet::resolve(&args.files, false)? {
        super::fleet::Resolved::Single => {}
        super::fleet::Resolved::Fleet(inputs) => {
            return super::fleet::validate(&inputs, &levels, matches!(args.output, Format::Json));
        }
        super::fleet::Resolved::Invalid(diagnostics) => {
            super::input::print_diagnostics(&diagnostics);
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
    }
    let release = args.release.target();
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
    let ctx = rules::Context {
        release: Some(release),
        node_mtu: args.node_mtu,
        ..rules::Context::assumed()
    };
    let outcome = match chart_values::validate_texts_for(
        release,
        &texts,
        &ctx,
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
    let checked = outcome.checked;
    let unchecked = std::mem::take(&mut outcome.unchecked);
    let (diagnostics, skipped) = report::leveled(outcome, &levels);
    let rendered = match args.output {
        Format::Text => {
            report::render_text(&diagnostics, &skipped, &sources, checked, &stdout_palette())
        }
        Format::Json => report::render_json(&diagnostics, &skipped, &unchecked),
    };
    super::input::write_stdout(rendered)?;
    if checked == 0 {
        let what = if skipped.is_empty() {
            "the input holds no objects".to_owned()
        } else {
            let kinds: std::collections::BTreeSet<String> = skipped
                .iter()
                .map(|skip| {
                    let kind = skip.kind.as_deref().unwrap_or("no kind");
                    match skip.api_version.as_deref() {
                        Some(api_version) => format!("{api_version} {kind}"),
                        None => kind.to_owned(),
                    }
                })
                .collect();
            let lists = if kinds.iter().any(|kind| kind.ends_with("List")) {
                "; a List is checked item by item, so a List here has no items"
            } else {
                ""
            };
            format!(
                "every document is of a kind calico-render does not validate ({} skipped: {}{lists})",
                skipped.len(),
                kinds.into_iter().collect::<Vec<_>>().join(", ")
            )
        };
        if args.allow_empty {
            note(&format!("no objects were checked: {what}"));
        } else {
            eprintln!(
                "error: no objects were checked: {what}\n  hint: `--allow-empty` accepts an \
                 input without objects"
            );
            return Ok(ExitCode::from(super::EXIT_INVALID));
        }
    }
    if args.explain_context {
        eprint!("{}", report::explain_context(&unchecked));
    } else if let Some(summary) = report::unchecked_summary(&unchecked) {
        note(&summary);
    }
    Ok(if report::has_errors(&diagnostics) {
        ExitCode::from(super::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--list-rules`: the catalogue codes and the CRDs' CEL rules, each with the releases it
/// applies to (only those of `only`, when given).
fn list_rules(only: Option<&'static Release>, format: Format) -> String {
    let shown = |releases: &[&'static Release]| -> Option<Vec<&'static str>> {
        let kept: Vec<&'static str> = releases
            .iter()
            .filter(|r| only.is_none_or(|only| r.calico == only.calico))
            .map(|r| r.minor)
            .collect();
        (!kept.is_empty()).then_some(kept)
    };
    let catalogue: Vec<(&rules::Rule, Vec<&str>)> = rules::CATALOGUE
        .iter()
        .filter_map(|rule| shown(&cel::releases_of(rule)).map(|r| (rule, r)))
        .collect();
    // One row per rule, with every release whose CRDs state it the same way.
    let mut crd: BTreeMap<(String, String, String), (&cel::CompiledRule, Vec<&'static Release>)> =
        BTreeMap::new();
    for release in &RELEASES {
        for rule in release.crd_rules().all() {
            crd.entry((rule.kind.clone(), rule.path.clone(), rule.rule.rule.clone()))
                .or_insert((rule, Vec::new()))
                .1
                .push(release);
        }
    }
    let crd: Vec<(&cel::CompiledRule, Vec<&str>)> = crd
        .into_values()
        .filter_map(|(rule, releases)| shown(&releases).map(|r| (rule, r)))
        .collect();
    let status = |rule: &cel::CompiledRule| match rule.status() {
        cel::RuleStatus::Evaluated => "evaluated".to_owned(),
        cel::RuleStatus::Transition => {
            "not evaluated: a transition rule (oldSelf), compares with the stored object".to_owned()
        }
        cel::RuleStatus::NotEvaluable(why) => format!("reported as CR0009: {why}"),
    };
    if format == Format::Json {
        let value = serde_json::json!({
            "catalogue": catalogue.iter().map(|(rule, releases)| serde_json::json!({
                "code": rule.code,
                "severity": rule.severity.as_str(),
                "summary": rule.summary,
                "releases": releases,
            })).collect::<Vec<_>>(),
            "crdRules": crd.iter().map(|(rule, releases)| serde_json::json!({
                "kind": rule.kind,
                "path": rule.path,
                "releases": releases,
                "code": rule.code.code,
                "rule": rule.rule.rule,
                "message": rule.static_message(),
                "reason": rule.rule.reason.as_deref().unwrap_or("FieldValueInvalid"),
                "status": status(rule),
            })).collect::<Vec<_>>(),
        });
        return format!("{value:#}\n");
    }
    let mut out = String::new();
    let names: Vec<String> = RELEASES
        .iter()
        .filter(|r| only.is_none_or(|only| r.calico == only.calico))
        .map(|r| match r.provenance {
            // v3.33: the release branch's files, not the tag's.
            Some(_) => format!("{} = {} as of {}", r.minor, r.calico, r.data),
            None => format!("{} = {}", r.minor, r.calico),
        })
        .collect();
    out.push_str(&format!(
        "Rules by Calico release ({}).\n\n",
        names.join(", ")
    ));
    out.push_str("Rule catalogue (`calico-render explain CODE` says more):\n");
    let width = catalogue
        .iter()
        .map(|(_, r)| r.join(" ").len())
        .max()
        .unwrap_or(0);
    for (rule, releases) in &catalogue {
        out.push_str(&format!(
            "  {}  {:<7}  {:<width$}  {}\n",
            rule.code,
            rule.severity.as_str(),
            releases.join(" "),
            rule.summary
        ));
    }
    out.push_str(
        "\nCEL rules of the CRDs (x-kubernetes-validations), read from each release's CRDs:\n",
    );
    if crd.is_empty() {
        out.push_str("  none: this release's CRDs have no CEL rules\n");
    }
    for (rule, releases) in &crd {
        let path = if rule.path.is_empty() {
            "(object)"
        } else {
            &rule.path
        };
        out.push_str(&format!(
            "  {} {}  [{}]  {}: {}\n      rule: {}\n      {}\n",
            rule.kind,
            path,
            releases.join(" "),
            rule.code.code,
            rule.static_message(),
            rule.rule.rule,
            status(rule)
        ));
    }
    out
}
