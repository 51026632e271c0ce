//! The `plan` subcommand: the ordered, guarded steps from the live objects to the desired
//! state when one patch cannot get there (a pool's CIDR or block size).
//!
//! DESIRED and LIVE are read as `patch` reads them. Standard output carries only the plan;
//! notes and errors go to standard error.

use std::process::ExitCode;

use anyhow::Context;
use calico_render::patch::{self, PatchError};
use calico_render::plan::{self, PlanError};

use super::input::{LintArgs, ReleaseArgs, note};
use super::patch::{DesiredLive, Read};

// Plan a change that one patch cannot make, as ordered, guarded, resumable steps: a pool
// migration, a dataplane switch, BGP enablement.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Args {
    #[command(flatten)]
    inputs: DesiredLive,
    /// text: numbered steps to read and run one at a time. json: the same plan as data
    /// (each step's change, wait conditions and undo).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FORMAT",
        value_enum,
        default_value_t = Format::Text
    )]
    output: Format,
    /// As `patch --revert-unstated`, for the last step's patch.
    #[arg(long)]
    revert_unstated: bool,
    /// The mode kube-proxy runs in, for a switch to or from eBPF (IPVS needs a step of its
    /// own). Without it the plan states the check as a precondition.
    #[arg(long, value_name = "MODE", value_enum)]
    kube_proxy_mode: Option<ProxyMode>,
    /// Who manages kube-proxy (puts it back when changed), for a switch to or from eBPF.
    /// Without it the plan states the check as a precondition.
    #[arg(long, value_name = "MANAGER", value_enum)]
    kube_proxy_manager: Option<ProxyManager>,
    /// A CIDR for the temporary pool a block size change on the same CIDR moves through
    /// (Calico's documented way: to the temporary pool, then back with the new block size);
    /// once per family that changes. It must overlap no pool.
    #[arg(long, value_name = "CIDR")]
    temporary_pool: Vec<String>,
    #[command(flatten)]
    release: ReleaseArgs,
    #[command(flatten)]
    lints: LintArgs,
}

/// The long help's closing section.
const AFTER_HELP: &str = "\
A pool's CIDR or block size cannot change in place. The plan migrates to the new pool, which \
DESIRED names differently (both exist for a while), or for a block size change on the same CIDR \
through a temporary pool (--temporary-pool) and back: add the new pool, stop allocating from the old one (disableNewAllocations in the Installation for the \
operator's pools, disabled on a standalone IPPool), move the workloads off it, check it holds \
no address, remove it; then one patch for whatever else differs. Pools are matched by CIDR in \
canonical form, and every CIDR the plan writes is canonical.

A switch to the eBPF dataplane creates the endpoint ConfigMap first (or removes it when DESIRED \
uses bpfNetworkBootstrap: the two are never combined) and restarts the operator, moves \
kube-proxy off IPVS right before the switch, and stops kube-proxy only once Calico serves the \
Services (with kube-proxy's DaemonSet in LIVE); leaving eBPF runs kube-proxy again first. \
Enabling BGP towards a router creates the BGPConfiguration (mesh still on) and the peers, and \
removes the node-to-node mesh only after you checked the sessions are Established. What the \
objects do not show (the kube-proxy mode and manager, the kernel) comes from the flags or is \
printed as a precondition with the command that checks it.

Every step says why, what to wait for before the next (a command, and data with -o json) and \
how to undo it. Steps are guarded (JSON patch `test`s, `kubectl create`, a checked delete, a \
`kubectl get` check where a field or object must be absent), so a step applied twice or out of \
order fails instead of doing harm. Run `plan` again with the \
live objects at any point: it prints the steps left. What the objects cannot show (workloads \
moved, a pool empty) is a check you make by reading a command's output; that step stays in \
the plan until the step after it is applied.

Exit codes: 0 plan printed (no steps when LIVE matches DESIRED); 1 invalid input or a change \
that cannot be planned; 2 usage, IO, or text that is not YAML.

Example:
  { kubectl get installation default -o yaml; echo ---; \
    kubectl get ippools.projectcalico.org -o yaml; } > live.yaml
  calico-render plan -f cluster.yaml --live live.yaml";

/// `--kube-proxy-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ProxyMode {
    /// kube-proxy in iptables mode.
    Iptables,
    /// kube-proxy in IPVS mode.
    Ipvs,
    /// kube-proxy in nftables mode.
    Nftables,
    /// No kube-proxy in the cluster.
    None,
}

/// `--kube-proxy-manager`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ProxyManager {
    /// kubeadm (re-applies its kube-proxy addon on upgrade).
    Kubeadm,
    /// The Kubernetes addon manager.
    AddonManager,
    /// A GitOps tool (Argo CD, Flux).
    Gitops,
    /// Nothing reconciles it.
    None,
}

/// How the plan is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Numbered steps for a person.
    Text,
    /// The plan as one JSON document.
    Json,
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
    let mode = args.kube_proxy_mode.map(|mode| match mode {
        ProxyMode::Iptables => plan::KubeProxyMode::Iptables,
        ProxyMode::Ipvs => plan::KubeProxyMode::Ipvs,
        ProxyMode::Nftables => plan::KubeProxyMode::Nftables,
        ProxyMode::None => plan::KubeProxyMode::Absent,
    });
    let manager = args.kube_proxy_manager.map(|manager| match manager {
        ProxyManager::Kubeadm => plan::KubeProxyManager::Kubeadm,
        ProxyManager::AddonManager => plan::KubeProxyManager::AddonManager,
        ProxyManager::Gitops => plan::KubeProxyManager::Gitops,
        ProxyManager::None => plan::KubeProxyManager::Unmanaged,
    });
    let options = plan::PlanOptions::new(
        patch::DayTwoOptions::revert_unstated(args.revert_unstated),
        plan::Facts::new(mode, manager),
    )
    .with_temporary_pools(args.temporary_pool);
    let plan = match plan::plan(&desired, stated.as_deref(), &live, &options) {
        Ok(plan) => plan,
        Err(err) if err.is_internal() => return Err(err.into()),
        Err(err) => return Ok(report_plan_error(&err)),
    };
    let text = match args.output {
        Format::Text => plan::render_text(&plan),
        Format::Json => {
            let mut json =
                serde_json::to_string_pretty(&plan).context("cannot serialize the plan")?;
            json.push('\n');
            json
        }
    };
    if plan.steps.is_empty() {
        note("LIVE already matches DESIRED; nothing to plan");
    }
    super::input::write_stdout(text)?;
    Ok(ExitCode::SUCCESS)
}

/// Print a plan error the way the user can act on it.
fn report_plan_error(err: &PlanError) -> ExitCode {
    match err {
        PlanError::Patch(PatchError::Refused { refusals }) => {
            for refusal in refusals {
                eprintln!("error: {refusal}");
                eprintln!("  hint: {}", refusal.hint);
            }
        }
        other => {
            eprintln!("error: {other}");
            if let Some(hint) = other.hint() {
                eprintln!("  hint: {hint}");
            }
        }
    }
    ExitCode::from(super::EXIT_INVALID)
}
