//! `calico-render plan` against the real tigera-operator (issue 36, item 5).
//!
//! For each transition (a start and an end state), on the operator's cluster
//! (`.ci/k8s-e2e.sh up`): the start is put on the server and reconciled; then, step after
//! step, `plan` runs against the live objects (the Installation, the IPPools, the BGP objects,
//! the endpoint ConfigMap and kube-proxy's ConfigMap and DaemonSet, as `kubectl get -o json`
//! prints them), must give exactly the steps of the first plan not yet applied (every step is
//! an interruption: the plan is made again from what the server holds), and its first step's
//! printed command is run in a shell, as the user would run it. After each change the operator
//! must reconcile with no Degraded TigeraStatus, and the step's wait conditions that are about
//! objects (a pool present with its CIDR, disabled, gone) must hold. The guards are tried on
//! the server too: before a step, every later step that needs it must fail; after it, the same
//! command again must fail or leave the object as it was. At the end `patch` of the live
//! objects against the end state prints nothing to do.
//!
//! Pools come in both kinds: listed in the Installation (the end file is a ClusterNetwork) and
//! standalone `projectcalico.org/v3` IPPools beside an Installation listing none (the end file
//! is those upstream objects). The harness starts tigera-operator v1.42.3 with
//! `CALICO_API_GROUP=projectcalico.org/v3` on the native v3 CRDs it bootstraps (Calico v3.32's
//! v3 CRD mode, no Calico API server), so standalone pools are created as
//! `ippools.projectcalico.org` objects, as on such a cluster; with an Installation listing no
//! pool the operator waits for an enabled IPPool, so the start creates them first.
//!
//! kube-proxy is the ConfigMap and DaemonSet `kubeadm init` writes (the plan case
//! `dataplane-to-ebpf-ipvs-kubeadm`), in IPVS mode, or that DaemonSet without a node selector:
//! the ConfigMap's mode change and the node selector that stops kube-proxy are applied to the
//! API server; no controller runs pods here. Leaving eBPF before kube-proxy is back is tried
//! and must be refused (the Installation's patch requires the `non-calico` key gone); a
//! kube-proxy step run twice must be refused too.
//!
//! eBPF comes both ways: the endpoint ConfigMap, and `bpfNetworkBootstrap` with the operator
//! managing kube-proxy (tigera/operator v1.40+, PR #4058; the harness runs v1.42.3), where the
//! ConfigMap must go first and the Installation's patch is refused while it is there.
//!
//! What cannot be shown without nodes (workloads moving, kube-proxy restarted and the nodes'
//! IPVS state cleared, BGP sessions Established) is a user-checked step: the cluster has none,
//! so it is passed over, as the user would after checking it.
//!
//! The reconcile time of every step is printed as a table. It runs when
//! `CALICO_RENDER_E2E_OPERATOR_KUBECONFIG` is set, on the last operator cluster.

use crate::e2e_k8s::run;
use crate::e2e_operator::{
    ENV_KUBECONFIG, Operator, Pools, degraded_statuses, find, last_cluster, put_stage, reconcile,
    render_operator_stage, set_up, settle_pools, wanted_pools,
};
use calico_render_tests::workspace_root;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One cluster state: the dataplane, BGP towards a router or not, the pod pools (`name`,
/// `cidr`, `blockSize`, `disableBGPExport`), listed in the Installation or standalone
/// `projectcalico.org/v3` IPPools (the Installation lists none), and kube-proxy.
struct State {
    dataplane: &'static str,
    bgp: bool,
    pools: &'static [Pool],
    standalone: bool,
    kube_proxy: KubeProxy,
    endpoint: Endpoint,
}

/// How Calico finds the API server.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    /// The endpoint ConfigMap (`apiEndpoint`) where the dataplane is BPF, none elsewhere.
    OnBpf,
    /// The endpoint ConfigMap whatever the dataplane (a cluster before it moves to
    /// bpfNetworkBootstrap).
    ConfigMap,
    /// On BPF, `bpfNetworkBootstrap` with the operator managing kube-proxy
    /// (`manageKubeProxy`): the operator reads the API server's address from the `kubernetes`
    /// Service's EndpointSlices (`.ci/k8s-e2e.sh` publishes one). Both fields came with
    /// tigera/operator PR #4058, first released in v1.40.0 (Calico v3.31); the harness runs
    /// v1.42.3 (`conformance/operator/go.mod`), whose core controller checks them
    /// (`pkg/controller/utils/bpf.go`, `pkg/controller/kubeproxy/controller.go`).
    Bootstrap,
}

/// kube-proxy on the API server: none, or the ConfigMap and DaemonSet `kubeadm init` writes
/// with `mode: ipvs` (tests/cases/plan/dataplane-to-ebpf-ipvs-kubeadm/kube-proxy.yaml), running
/// or switched off by the node selector Calico documents; or that DaemonSet alone without a
/// node selector (`Bare`; its mode given as a flag), running or switched off.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KubeProxy {
    None,
    KubeadmIpvs,
    KubeadmOff,
    Bare,
    BareOff,
}

/// The kubeadm objects, as the plan case holds them.
const KUBE_PROXY_FILE: &str = "tests/cases/plan/dataplane-to-ebpf-ipvs-kubeadm/kube-proxy.yaml";

type Pool = (&'static str, &'static str, u32, bool);

/// The ClusterNetwork of a state.
fn cluster(state: &State) -> String {
    let mut text = format!(
        "apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
metadata:
  name: plan
spec:
  calicoVersion: v3.32.1
  dataplane: {}
",
        state.dataplane
    );
    // The endpoint ConfigMap only where eBPF needs it, so the switch creates it.
    match (state.endpoint, state.dataplane == "BPF") {
        (Endpoint::OnBpf, true) | (Endpoint::ConfigMap, _) => text.push_str(
            "  apiEndpoint:
    host: control.k8s.example.com
    port: 6443
",
        ),
        (Endpoint::Bootstrap, true) => {
            text.push_str("  bpfNetworkBootstrap: true\n  manageKubeProxy: true\n")
        }
        _ => {}
    }
    if state.bgp {
        text.push_str(
            "  bgp:
    enabled: true
    asNumber: 64512
    nodeToNodeMesh: false
    peers:
      - name: router-a
        peerIP: 192.0.2.1
        asNumber: 64500
",
        );
    }
    text.push_str("  podPools:\n");
    for (name, cidr, block, no_export) in state.pools {
        text.push_str(&format!(
            "    - name: {name}
      cidr: {cidr}
      blockSize: {block}
      encapsulation: VXLAN
      nodeSelector: all()
      disableBGPExport: {no_export}
"
        ));
    }
    text
}

const V4: Pool = ("default-ipv4-ippool", "172.20.0.0/16", 26, false);

/// A state on iptables with the given pools, listed in the Installation.
const fn operator_pools(pools: &'static [Pool]) -> State {
    State {
        dataplane: "Iptables",
        bgp: false,
        pools,
        standalone: false,
        kube_proxy: KubeProxy::None,
        endpoint: Endpoint::OnBpf,
    }
}

/// A state on iptables with standalone pools.
const fn standalone(pools: &'static [Pool]) -> State {
    State {
        standalone: true,
        ..operator_pools(pools)
    }
}

/// The same state on another dataplane.
const fn on(dataplane: &'static str, state: State) -> State {
    State { dataplane, ..state }
}

/// The same state with kube-proxy.
const fn with(kube_proxy: KubeProxy, state: State) -> State {
    State {
        kube_proxy,
        ..state
    }
}

/// The same state with the API server found another way.
const fn found(endpoint: Endpoint, state: State) -> State {
    State { endpoint, ..state }
}

/// One transition: a start, an end, and the facts given to `plan` as flags.
struct Transition {
    name: &'static str,
    start: State,
    end: State,
    flags: &'static [&'static str],
}

const TRANSITIONS: &[Transition] = &[
    Transition {
        name: "IPv4 pool to a new CIDR",
        start: on("BPF", operator_pools(&[V4])),
        end: on(
            "BPF",
            operator_pools(&[("pods-2", "172.30.0.0/16", 26, false)]),
        ),
        flags: &[],
    },
    Transition {
        name: "dual stack: IPv6 pool to a new CIDR and block size",
        start: on(
            "BPF",
            operator_pools(&[V4, ("default-ipv6-ippool", "fd00:10:244::/56", 122, false)]),
        ),
        end: on(
            "BPF",
            operator_pools(&[V4, ("pods-v6", "fd00:20::/56", 120, false)]),
        ),
        flags: &[],
    },
    Transition {
        name: "IPv4 pool blockSize 26 -> 24 on its CIDR, through a temporary pool",
        start: operator_pools(&[V4]),
        end: operator_pools(&[("default-ipv4-ippool", "172.20.0.0/16", 24, false)]),
        flags: &["--temporary-pool", "10.99.0.0/16"],
    },
    Transition {
        name: "standalone IPv6 pool blockSize 122 -> 120 on its CIDR, through a temporary pool",
        start: standalone(&[
            ("pool-a", "10.10.0.0/16", 26, false),
            ("pool-a6", "fd00:a::/64", 122, false),
        ]),
        end: standalone(&[
            ("pool-a", "10.10.0.0/16", 26, false),
            ("pool-a6", "fd00:a::/64", 120, false),
        ]),
        flags: &["--temporary-pool", "fd00:99::/64"],
    },
    Transition {
        name: "standalone IPv4 and IPv6 pools to new CIDRs (and an IPv6 block size)",
        start: standalone(&[
            ("pool-a", "10.10.0.0/16", 26, false),
            ("pool-a6", "fd00:a::/64", 122, false),
        ]),
        end: standalone(&[
            ("pool-b", "10.20.0.0/16", 26, false),
            ("pool-b6", "fd00:b::/64", 120, false),
        ]),
        flags: &[],
    },
    Transition {
        name: "iptables to eBPF",
        start: operator_pools(&[V4]),
        end: on("BPF", operator_pools(&[V4])),
        flags: &[],
    },
    Transition {
        name: "iptables, kubeadm's kube-proxy in IPVS mode, to eBPF",
        start: with(KubeProxy::KubeadmIpvs, operator_pools(&[V4])),
        end: with(KubeProxy::KubeadmOff, on("BPF", operator_pools(&[V4]))),
        flags: &["--kube-proxy-manager", "kubeadm"],
    },
    Transition {
        name: "iptables with the endpoint ConfigMap, kubeadm's kube-proxy in IPVS mode, to eBPF \
               with bpfNetworkBootstrap, kube-proxy managed by the operator",
        start: with(
            KubeProxy::KubeadmIpvs,
            found(Endpoint::ConfigMap, operator_pools(&[V4])),
        ),
        end: with(
            KubeProxy::KubeadmIpvs,
            found(Endpoint::Bootstrap, on("BPF", operator_pools(&[V4]))),
        ),
        flags: &["--kube-proxy-manager", "kubeadm"],
    },
    Transition {
        name: "iptables, a kube-proxy without a node selector, to eBPF",
        start: with(KubeProxy::Bare, operator_pools(&[V4])),
        end: with(KubeProxy::BareOff, on("BPF", operator_pools(&[V4]))),
        flags: &[
            "--kube-proxy-mode",
            "iptables",
            "--kube-proxy-manager",
            "none",
        ],
    },
    Transition {
        name: "eBPF, a kube-proxy whose only node selector stops it, back to iptables",
        start: with(KubeProxy::BareOff, on("BPF", operator_pools(&[V4]))),
        end: with(KubeProxy::Bare, operator_pools(&[V4])),
        flags: &[
            "--kube-proxy-mode",
            "iptables",
            "--kube-proxy-manager",
            "none",
        ],
    },
    Transition {
        name: "eBPF back to iptables",
        start: on("BPF", operator_pools(&[V4])),
        end: operator_pools(&[V4]),
        flags: &[],
    },
    Transition {
        name: "eBPF, kubeadm's kube-proxy switched off, back to iptables",
        start: with(KubeProxy::KubeadmOff, on("BPF", operator_pools(&[V4]))),
        end: with(KubeProxy::KubeadmIpvs, operator_pools(&[V4])),
        flags: &["--kube-proxy-manager", "kubeadm"],
    },
    Transition {
        name: "VXLAN without BGP to BGP towards a router, pod pool not exported, no mesh",
        start: operator_pools(&[V4]),
        end: State {
            bgp: true,
            ..operator_pools(&[("default-ipv4-ippool", "172.20.0.0/16", 26, true)])
        },
        flags: &[],
    },
];

struct Files {
    dir: PathBuf,
}

impl Files {
    fn write(&self, name: &str, text: &str) -> Result<PathBuf, String> {
        let path = self.dir.join(name);
        fs::write(&path, text).map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        Ok(path)
    }
}

/// The live objects `plan` reads: the Installation, the IPPools, the BGP objects, the
/// endpoint ConfigMap and kube-proxy's ConfigMap and DaemonSet, as one JSON stream.
fn live_objects(operator: &Operator, files: &Files) -> Result<PathBuf, String> {
    let installation = operator.get_json(&["installations.operator.tigera.io", "default"])?;
    let rest = operator.get_json(&[
        "ippools.projectcalico.org,bgpconfigurations.projectcalico.org,bgppeers.projectcalico.org,configmaps,daemonsets",
        "-A",
    ])?;
    // The ConfigMaps and DaemonSets but these are not ours to compare.
    let mut items = rest["items"].as_array().cloned().unwrap_or_default();
    items.retain(|item| {
        let at = (
            item["metadata"]["namespace"].as_str().unwrap_or(""),
            item["metadata"]["name"].as_str().unwrap_or(""),
        );
        match item["kind"].as_str().unwrap_or("") {
            "ConfigMap" => {
                at.1 == "kubernetes-services-endpoint" || at == ("kube-system", "kube-proxy")
            }
            "DaemonSet" => at == ("kube-system", "kube-proxy"),
            _ => true,
        }
    });
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    files.write("live.json", &format!("{installation}\n---\n{list}\n"))
}

/// A standalone `projectcalico.org/v3` IPPool.
fn standalone_pool(&(name, cidr, block, no_export): &Pool) -> Value {
    serde_json::json!({
        "apiVersion": "projectcalico.org/v3",
        "kind": "IPPool",
        "metadata": {"name": name},
        "spec": {
            "cidr": cidr,
            "blockSize": block,
            "vxlanMode": "Always",
            "ipipMode": "Never",
            "natOutgoing": true,
            "nodeSelector": "all()",
            "disableBGPExport": no_export,
        },
    })
}

/// The objects of a state: the operator stage of its ClusterNetwork, and for standalone pools
/// the Installation listing none (`ipPools: []`, so the operator makes none) beside the
/// IPPools.
fn state_objects(operator: &Operator, files: &Files, state: &State) -> Result<Vec<Value>, String> {
    let input = files.write("state.yaml", &cluster(state))?;
    let mut objects = render_operator_stage(operator, &input)?;
    if state.standalone {
        for object in &mut objects {
            if object["kind"] == "Installation" {
                object["spec"]["calicoNetwork"]["ipPools"] = Value::Array(Vec::new());
            }
        }
        objects.extend(state.pools.iter().map(standalone_pool));
    }
    Ok(objects)
}

/// The file `plan -f` and `patch -f` read for a state: its ClusterNetwork, or for standalone
/// pools the upstream objects (a ClusterNetwork lists pools in the Installation).
fn desired_file(
    operator: &Operator,
    files: &Files,
    name: &str,
    state: &State,
) -> Result<PathBuf, String> {
    if !state.standalone {
        return files.write(name, &cluster(state));
    }
    let objects = state_objects(operator, files, state)?;
    // The objects LIVE is read with (the APIServer is not one of them).
    let text: Vec<String> = objects
        .iter()
        .filter(|object| object["kind"] != "APIServer")
        .map(Value::to_string)
        .collect();
    files.write(name, &text.join("\n---\n"))
}

fn our_plan(
    operator: &Operator,
    files: &Files,
    desired: &Path,
    flags: &[&str],
) -> Result<Vec<Value>, String> {
    let live = live_objects(operator, files)?;
    let desired = desired.to_string_lossy();
    let live = live.to_string_lossy();
    let mut args = vec!["plan", "-f", &desired, "--live", &live, "-o", "json"];
    args.extend_from_slice(flags);
    let ran = run(&operator.calico_render, &args, None, &[]);
    if !ran.ok() {
        return Err(format!("plan failed:\n{}", ran.describe()));
    }
    let plan: Value = serde_json::from_str(&ran.stdout)
        .map_err(|err| format!("plan -o json printed invalid JSON ({err})"))?;
    Ok(plan["steps"].as_array().cloned().unwrap_or_default())
}

fn ids(steps: &[Value]) -> Vec<String> {
    steps
        .iter()
        .map(|step| step["id"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The resource `kubectl get` takes for a kind.
fn resource(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "Installation" => "installations.operator.tigera.io",
        "IPPool" => "ippools.projectcalico.org",
        "BGPConfiguration" => "bgpconfigurations.projectcalico.org",
        "BGPPeer" => "bgppeers.projectcalico.org",
        "ConfigMap" => "configmaps",
        "DaemonSet" => "daemonsets.apps",
        _ => return None,
    })
}

/// What a change touches, as the arguments of `kubectl get`: its object's resource, name and
/// namespace.
fn target(change: &Value) -> Option<Vec<String>> {
    let object = &change["object"];
    let (kind, name, namespace) = if change["kind"] == "create" {
        (
            &object["kind"],
            &object["metadata"]["name"],
            &object["metadata"]["namespace"],
        )
    } else {
        (&object["kind"], &object["name"], &object["namespace"])
    };
    let mut args = vec![
        resource(kind.as_str()?)?.to_owned(),
        name.as_str()?.to_owned(),
    ];
    if let Some(namespace) = namespace.as_str() {
        args.extend(["-n".to_owned(), namespace.to_owned()]);
    }
    Some(args)
}

/// The object a change touches as the user sees it (spec, data, labels, annotations), or
/// `Null` when it is not there.
fn seen(operator: &Operator, change: &Value) -> Value {
    let Some(args) = target(change) else {
        return Value::Null;
    };
    let mut all = vec!["get", "-o", "json", "--ignore-not-found"];
    all.extend(args.iter().map(String::as_str));
    let ran = operator.kubectl(&all, None);
    let object: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    serde_json::json!({
        "spec": object["spec"],
        "data": object["data"],
        "labels": object["metadata"]["labels"],
        "annotations": object["metadata"]["annotations"],
    })
}

/// Apply one step's change by running its printed command in a shell, as the user would.
fn apply(operator: &Operator, files: &Files, change: &Value) -> Result<(), String> {
    let command = change["command"]
        .as_str()
        .ok_or_else(|| format!("not a change to apply: {change}"))?;
    let ran = operator.shell(&files.dir, command);
    if ran.ok() {
        Ok(())
    } else {
        Err(format!("the step's command failed:\n{}", ran.describe()))
    }
}

/// A guard on the real API server: the command, run where it must not apply, fails or
/// changes nothing. Returns which.
fn guarded(operator: &Operator, files: &Files, change: &Value) -> Result<&'static str, String> {
    let command = change["command"].as_str().unwrap_or("");
    let before = seen(operator, change);
    let ran = operator.shell(&files.dir, command);
    let after = seen(operator, change);
    if before != after {
        return Err(format!(
            "the guard let the command through and it changed the object:\n{}\nbefore: \
             {before}\nafter: {after}",
            ran.describe()
        ));
    }
    Ok(if ran.ok() { "no change" } else { "refused" })
}

/// Whether `later` needs `step` applied first: it requires `step`'s object, or removes the pool
/// `step` disables, or stops allocating from a pool `step` lists.
fn needs(later: &Value, step: &Value) -> bool {
    let id = |value: &Value| value["id"].as_str().unwrap_or("").to_owned();
    let (later_id, step_id) = (id(later), id(step));
    if let (Some(removed), Some(disabled)) = (
        later_id.strip_prefix("remove-pool/"),
        step_id.strip_prefix("disable-pool/"),
    ) {
        return removed == disabled;
    }
    if later_id.starts_with("disable-pool/") && step_id.starts_with("add-pools/") {
        return true;
    }
    let made = target(&step["change"]);
    later["change"]["requires"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|needed| {
            let wanted = serde_json::json!({"kind": "patch", "object": needed["object"]});
            made.is_some() && target(&wanted) == made
        })
}

/// The step's wait conditions about objects, checked on the server.
fn promised(operator: &Operator, step: &Value) -> Result<(), String> {
    for check in step["wait"].as_array().into_iter().flatten() {
        let data = &check["data"];
        let pool = data["pool"].as_str().unwrap_or("");
        let get = || operator.get_json(&["ippools.projectcalico.org", pool]);
        match data["condition"].as_str().unwrap_or("") {
            "poolPresent" => {
                let live = get()?;
                if live["spec"]["cidr"] != data["cidr"] {
                    return Err(format!("IPPool {pool} has cidr {}", live["spec"]["cidr"]));
                }
            }
            "poolDisabled" => {
                let live = get()?;
                if live["spec"]["disabled"] != true {
                    return Err(format!("IPPool {pool} is not disabled: {}", live["spec"]));
                }
            }
            "poolAbsent" => {
                let ran = operator.kubectl(&["get", "ippools.projectcalico.org", pool], None);
                if ran.ok() {
                    return Err(format!("IPPool {pool} is still there"));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Reconcile the live Installation; the seconds it took.
fn settle(operator: &Operator) -> Result<f64, String> {
    let live = operator.get_json(&["installations.operator.tigera.io", "default"])?;
    let want = wanted_pools(&live);
    let started = Instant::now();
    reconcile(operator, &want, Pools::Watch, None).map_err(|err| {
        let statuses = degraded_statuses(operator).unwrap_or_default();
        format!("{err}\n  {}", statuses.join("\n  "))
    })?;
    let degraded = degraded_statuses(operator)?;
    if !degraded.is_empty() {
        return Err(format!(
            "a TigeraStatus is Degraded:\n  {}",
            degraded.join("\n  ")
        ));
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Put a state's start on the server: what an earlier transition left goes, the Installation
/// is reconciled, then the standalone pools and kube-proxy are created.
fn put_start(operator: &Operator, files: &Files, state: &State) -> Result<(), String> {
    for (resource, object, namespace) in [
        ("bgppeers.projectcalico.org", "router-a", None),
        ("bgpconfigurations.projectcalico.org", "default", None),
        ("configmaps", "kube-proxy", Some("kube-system")),
        ("daemonsets.apps", "kube-proxy", Some("kube-system")),
    ] {
        let mut args = vec!["delete", resource, object, "--ignore-not-found"];
        args.extend(namespace.iter().flat_map(|namespace| ["-n", namespace]));
        operator.kubectl_ok(&args, None)?;
    }
    // Standalone pools of an earlier transition (the operator's own carry its label).
    operator.kubectl_ok(
        &[
            "delete",
            "ippools.projectcalico.org",
            "-l",
            "!app.kubernetes.io/managed-by",
        ],
        None,
    )?;
    let objects = state_objects(operator, files, state)?;
    let installation = find(&objects, "Installation").ok_or("no Installation rendered")?;
    settle_pools(operator, &wanted_pools(installation), Pools::Prune)?;
    // Standalone pools before the Installation that lists none: the operator waits for an
    // enabled IPPool ("waiting for enabled IP pools to be created") until one is there.
    for pool in objects.iter().filter(|object| object["kind"] == "IPPool") {
        operator.kubectl_ok(&["create", "-f", "-"], Some(&pool.to_string()))?;
    }
    put_stage(operator, &objects)?;
    reconcile(operator, &wanted_pools(installation), Pools::Prune, None)?;
    if state.kube_proxy != KubeProxy::None {
        let path = workspace_root().join(KUBE_PROXY_FILE);
        operator.kubectl_ok(&["create", "-f", &path.to_string_lossy()], None)?;
    }
    if matches!(state.kube_proxy, KubeProxy::Bare | KubeProxy::BareOff) {
        operator.kubectl_ok(
            &["-n", "kube-system", "delete", "configmap", "kube-proxy"],
            None,
        )?;
        operator.kubectl_ok(
            &[
                "-n",
                "kube-system",
                "patch",
                "daemonset",
                "kube-proxy",
                "--type=json",
                "-p",
                r#"[{"op":"remove","path":"/spec/template/spec/nodeSelector"}]"#,
            ],
            None,
        )?;
    }
    if matches!(state.kube_proxy, KubeProxy::KubeadmOff | KubeProxy::BareOff) {
        operator.kubectl_ok(
            &[
                "-n",
                "kube-system",
                "patch",
                "daemonset",
                "kube-proxy",
                "--type=merge",
                "-p",
                r#"{"spec":{"template":{"spec":{"nodeSelector":{"non-calico":"true"}}}}}"#,
            ],
            None,
        )?;
    }
    Ok(())
}

/// One transition, step by step; the table rows.
fn transition(operator: &Operator, files: &Files, t: &Transition) -> Result<Vec<String>, String> {
    let name = t.name;
    let mut rows = Vec::new();
    let end_file = desired_file(operator, files, "end.yaml", &t.end)?;
    let started = Instant::now();
    put_start(operator, files, &t.start)?;
    rows.push(format!(
        "{name} | start | set up and reconciled in {:.1}s |",
        started.elapsed().as_secs_f64()
    ));

    let first = our_plan(operator, files, &end_file, t.flags)?;
    if first.is_empty() {
        return Err(format!("{name}: the plan has no steps"));
    }
    let mut done = 0;
    while done < first.len() {
        let resumed = our_plan(operator, files, &end_file, t.flags)?;
        // A user-checked step cannot be seen done: it stays until the change after it.
        let mut from = done;
        while from > 0 && first[from - 1]["change"]["kind"] == "userAction" {
            from -= 1;
        }
        // A wait for the operator (an IPPool's deletion) is gone once the operator did it.
        let want: Vec<Value> = first
            .get(from..)
            .unwrap_or_default()
            .iter()
            .filter(|step| {
                step["change"]["kind"] != "wait"
                    || resumed.iter().any(|got| got["id"] == step["id"])
            })
            .cloned()
            .collect();
        let want = want.as_slice();
        if ids(&resumed) != ids(want) {
            return Err(format!(
                "{name}: after {done} step(s) plan gives {:?}, the first plan had {:?} left",
                ids(&resumed),
                ids(want)
            ));
        }
        for (got, step) in resumed.iter().zip(want) {
            if got["change"] != step["change"] {
                return Err(format!(
                    "{name}: after {done} step(s) step {} changed:\n{}\nwas\n{}",
                    step["id"], got["change"], step["change"]
                ));
            }
        }
        let step = &first[done];
        let id = step["id"].as_str().unwrap_or("");
        if step["change"]["kind"] == "wait" {
            // The operator's part (deleting an IPPool) happened during the reconcile before.
            rows.push(format!(
                "{name} | {id} | done by the operator in the step before |"
            ));
            done += 1;
            continue;
        }
        if step["change"]["kind"] == "userAction" {
            rows.push(format!(
                "{name} | {id} | user-checked: cannot be shown without nodes (or a router) |"
            ));
            done += 1;
            continue;
        }
        // Out of order: every later step that needs this one is refused before it.
        for later in first
            .iter()
            .skip(done + 1)
            .filter(|later| needs(later, step))
        {
            let verdict = guarded(operator, files, &later["change"])
                .map_err(|err| format!("{name}: {} before {id}: {err}", later["id"]))?;
            if verdict != "refused" {
                return Err(format!(
                    "{name}: {} before {id} was not refused ({verdict})",
                    later["id"]
                ));
            }
            rows.push(format!(
                "{name} | {} before {id} | refused |",
                later["id"].as_str().unwrap_or("")
            ));
        }
        apply(operator, files, &step["change"]).map_err(|err| format!("{name}: {id}: {err}"))?;
        let seconds = settle(operator).map_err(|err| format!("{name}: {id}: {err}"))?;
        promised(operator, step).map_err(|err| format!("{name}: {id}: {err}"))?;
        // Twice: the same command again is refused or changes nothing.
        let again = guarded(operator, files, &step["change"])
            .map_err(|err| format!("{name}: {id} applied twice: {err}"))?;
        // A kube-proxy step adds or removes a node selector; run again it must be refused,
        // not pass as a no-op: an `add` of a whole selector would replace one put there since.
        if id.ends_with("-kube-proxy") && again != "refused" {
            return Err(format!(
                "{name}: {id} applied twice was not refused ({again})"
            ));
        }
        rows.push(format!(
            "{name} | {id} | reconciled in {seconds:.1}s | again: {again}"
        ));
        done += 1;
    }
    let left = our_plan(operator, files, &end_file, t.flags)?;
    if !left.is_empty() {
        return Err(format!("{name}: steps left at the end: {:?}", ids(&left)));
    }
    let degraded = degraded_statuses(operator)?;
    if !degraded.is_empty() {
        return Err(format!(
            "{name}: a TigeraStatus is Degraded at the end:\n  {}",
            degraded.join("\n  ")
        ));
    }
    let live = live_objects(operator, files)?;
    let ran = run(
        &operator.calico_render,
        &[
            "patch",
            "-f",
            &end_file.to_string_lossy(),
            "--live",
            &live.to_string_lossy(),
            "-o",
            "kubectl",
        ],
        None,
        &[],
    );
    if !ran.ok() || !ran.stdout.trim().is_empty() {
        return Err(format!(
            "{name}: patch of the end state is not empty:\n{}",
            ran.describe()
        ));
    }
    Ok(rows)
}

#[test]
fn plans_are_carried_out_by_the_real_operator() {
    let operators = match set_up() {
        Ok(Some(operators)) => operators,
        Ok(None) => {
            calico_render_tests::say_skipped(
                "tigera-operator cluster",
                &format!("e2e plan: {ENV_KUBECONFIG} is not set"),
            );
            return;
        }
        Err(err) => panic!("{err}"),
    };
    let operator = last_cluster(&operators);
    let _lock = operator.lock();
    let dir = tempfile::tempdir().expect("temp dir");
    let files = Files {
        dir: dir.path().to_path_buf(),
    };
    let mut rows = vec!["transition | step | operator | guard".to_owned()];
    let mut failures = Vec::new();
    for t in TRANSITIONS {
        match transition(operator, &files, t) {
            Ok(more) => rows.extend(more),
            Err(err) => failures.push(err),
        }
    }
    eprintln!("{}", rows.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
