//! The `router` subcommand: the FRR configuration of each router the ClusterNetwork's
//! BGPPeers point at; and `validate --router FILE`, a hand-written FRR configuration checked
//! against the ClusterNetwork (the same `RT` findings).

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::Context;
use calico_render::report::{self, LintLevels};
use calico_render::router as frr;
use calico_spec::cluster_network::{self, ClusterNetwork};
use calico_spec::diag::Diagnostic;
use calico_spec::router::{self, ClusterSide, Router};
use serde::Serialize;

use super::input::{
    CompileFailure, LintArgs, compile_text, display_name, print_diagnostics, read_input,
    read_input_limited, stdout_palette,
};

// Arguments of `calico-render router`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Each BGPPeer of the ClusterNetwork points at a router; BGPPeers whose `router.hostname` (default:
the BGPPeer's name) is the same are one router. For each, the output is an FRR configuration
(`frr defaults traditional`, checked with FRR 8.4): `router bgp` with the BGPPeer's AS, a peer
group for the nodes (a `bgp listen range` per node subnet, or `router.nodes`), `remote-as` the
cluster's AS (`external` with `router.perNodeAS`), an inbound prefix-list and route-map that
admit exactly what the nodes announce (the advertised Service ranges `le 32`, the API VIP) and
deny the rest, an outbound route-map that sends the nodes nothing, `ebgp-multihop` when the
router is off the node subnet, a BFD profile that pairs with Calico's multihop sessions when
`router.bfd` is set, `bgp graceful-restart-disable` (a dead node's routes go at once) and
`ip forwarding`. IPv6 BGPPeers add `address-family ipv6 unicast`.

The ClusterNetwork is loaded as `render` loads it; the router findings of the spec itself (RT
codes) are printed on standard error. `-o json` prints the data behind the text: per router the
cluster's side (sessions, announced and refused prefixes) and the router model.

Exit status: 0 rendered (warnings allowed), 1 invalid input or nothing to render, 2 usage or IO
error.")]
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
        default_value_t = OutputFormat::Frr
    )]
    output: OutputFormat,

    /// Render only the router of this host name.
    #[arg(long, value_name = "NAME")]
    hostname: Option<String>,

    #[command(flatten)]
    lints: LintArgs,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OutputFormat {
    /// FRR configuration text (`frr.conf`), one router after the other.
    Frr,
    /// The data behind the text, as JSON.
    Json,
}

/// A ClusterNetwork read for the router side: the value, its routers, and the spec's own
/// findings (located, after `--allow`/`--deny`).
struct Loaded {
    text: String,
    cluster_network: ClusterNetwork,
    sides: Vec<ClusterSide>,
    findings: Vec<Diagnostic>,
}

/// Load the ClusterNetwork as `render` does, then its routers. `Err(code)` after the problem
/// has been printed.
fn load(path: &str, levels: &LintLevels) -> anyhow::Result<Result<Loaded, ExitCode>> {
    let file = display_name(path);
    let text = read_input_limited(path, calico_spec::source::Limits::CLUSTER_NETWORK.max_bytes)
        .with_context(|| format!("cannot read the ClusterNetwork file `{file}`"))?;
    let warnings = match compile_text(file, &text, levels) {
        Ok(compiled) => compiled.warnings,
        Err(CompileFailure::NotYaml(message)) => {
            eprintln!("error: {message}");
            return Ok(Err(ExitCode::from(super::EXIT_USAGE)));
        }
        Err(CompileFailure::Invalid(diagnostics)) => {
            print_diagnostics(&diagnostics);
            return Ok(Err(ExitCode::from(super::EXIT_INVALID)));
        }
    };
    print_diagnostics(&warnings);
    let parsed = match cluster_network::parse(file, &text) {
        Ok(parsed) => parsed,
        Err(err) => {
            eprintln!("error: {err}");
            return Ok(Err(ExitCode::from(super::EXIT_INVALID)));
        }
    };
    let sides = match router::cluster_side(&parsed.cluster_network) {
        Ok(sides) => sides,
        Err(message) => {
            eprintln!("error: {file}: {message}");
            return Ok(Err(ExitCode::from(super::EXIT_INVALID)));
        }
    };
    let mut findings = router::check_spec(&parsed.cluster_network, &sides);
    cluster_network::locate(file, &parsed.spans, &mut findings);
    Ok(Ok(Loaded {
        text,
        cluster_network: parsed.cluster_network,
        sides,
        findings: levels.apply(findings),
    }))
}

#[derive(Serialize)]
struct JsonRouter<'a> {
    cluster: &'a ClusterSide,
    router: &'a Router,
    #[serde(rename = "frrConf")]
    frr_conf: String,
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let levels = args.lints.levels()?;
    let loaded = match load(&args.file, &levels)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    print_diagnostics(&loaded.findings);
    if report::has_errors(&loaded.findings) {
        return Ok(ExitCode::from(super::EXIT_INVALID));
    }
    let name = loaded
        .cluster_network
        .metadata
        .name
        .clone()
        .unwrap_or_else(|| display_name(&args.file).to_owned());
    let chosen: Vec<&ClusterSide> = loaded
        .sides
        .iter()
        .filter(|side| args.hostname.as_ref().is_none_or(|h| *h == side.hostname))
        .collect();
    if chosen.is_empty() {
        let known: Vec<&str> = loaded.sides.iter().map(|s| s.hostname.as_str()).collect();
        eprintln!(
            "error: no router is called `{}`\n  hint: the routers are {}",
            args.hostname.unwrap_or_default(),
            known.join(", ")
        );
        return Ok(ExitCode::from(super::EXIT_INVALID));
    }
    let routers: Vec<(Router, &ClusterSide)> = chosen
        .into_iter()
        .map(|side| (router::plan(side), side))
        .collect();
    let text = match args.output {
        OutputFormat::Frr => routers
            .iter()
            .map(|(router, side)| frr::frr_config(router, side, &name))
            .collect::<Vec<_>>()
            .join("\n"),
        OutputFormat::Json => {
            let items: Vec<JsonRouter<'_>> = routers
                .iter()
                .map(|(router, side)| JsonRouter {
                    cluster: side,
                    router,
                    frr_conf: frr::frr_config(router, side, &name),
                })
                .collect();
            let mut json = serde_json::to_string_pretty(&serde_json::json!({ "routers": items }))
                .context("cannot serialize the routers")?;
            json.push('\n');
            json
        }
    };
    super::input::write_stdout(text)?;
    Ok(ExitCode::SUCCESS)
}

/// `validate -f CLUSTER --router FRR`: the hand-written FRR configuration against the
/// ClusterNetwork's side of the router it names (by `hostname`, or the only router).
pub fn validate(
    files: &[String],
    router_path: &str,
    json: bool,
    levels: &LintLevels,
) -> super::Outcome {
    let [cluster_path] = files else {
        eprintln!(
            "error: `--router` checks an FRR configuration against one ClusterNetwork: give \
             exactly one `-f CLUSTER.yaml`"
        );
        return Ok(ExitCode::from(super::EXIT_USAGE));
    };
    let loaded = match load(cluster_path, levels)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let router_file = display_name(router_path);
    let text = read_input(router_path)
        .with_context(|| format!("cannot read the FRR configuration `{router_file}`"))?;
    let router = match frr::read(router_file, &text) {
        Ok(router) => router,
        Err(err) => {
            eprintln!("error: {err}");
            return Ok(ExitCode::from(super::EXIT_USAGE));
        }
    };
    let side = loaded
        .sides
        .iter()
        .find(|side| side.hostname == router.hostname)
        .or(match loaded.sides.as_slice() {
            [only] => Some(only),
            _ => None,
        });
    let Some(side) = side else {
        let known: Vec<&str> = loaded.sides.iter().map(|s| s.hostname.as_str()).collect();
        eprintln!(
            "error: {router_file}: `hostname {}` names none of the ClusterNetwork's routers\n  \
             hint: the routers are {}",
            router.hostname,
            known.join(", ")
        );
        return Ok(ExitCode::from(super::EXIT_INVALID));
    };
    let mut diagnostics = loaded.findings;
    diagnostics.extend(levels.apply(router::check(side, &router, router_file)));
    calico_spec::diag::sort_diagnostics(&mut diagnostics);
    let mut sources = BTreeMap::new();
    sources.insert(display_name(cluster_path).to_owned(), loaded.text);
    sources.insert(router_file.to_owned(), text);
    let rendered = if json {
        report::render_json(&diagnostics, &[], &[])
    } else {
        report::render_text(&diagnostics, &[], &sources, 1, &stdout_palette())
    };
    super::input::write_stdout(rendered)?;
    Ok(if report::has_errors(&diagnostics) {
        ExitCode::from(super::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}
