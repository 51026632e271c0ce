//! `calico-render plan` against the real tigera-operator (issue 36, item 5).
//!
//! For each transition (a start and an end ClusterNetwork), on the operator's cluster
//! (`.ci/k8s-e2e.sh up`): the start is put on the server and reconciled; then, step after
//! step, `plan` runs against the live objects (the Installation and the operator's IPPools, as
//! `kubectl get -o json` prints them), must give exactly the steps of the first plan not yet
//! applied (every step is an interruption: the plan is made again from what the server holds),
//! and its first step's change is applied with `kubectl`. After each change the operator must
//! reconcile with no Degraded TigeraStatus, and the step's wait conditions that are about
//! objects (a pool present with its CIDR, disabled, gone) must hold. At the end `patch` of the
//! live Installation against the end ClusterNetwork prints nothing to do.
//!
//! Moving workloads cannot be shown without nodes: the cluster has none, so no address is
//! held and the user-checked step is passed over, as the user would after checking it.
//!
//! The reconcile time of every step is printed as a table. It runs when
//! `CALICO_RENDER_E2E_OPERATOR_KUBECONFIG` is set, on the last operator cluster.

use crate::e2e_k8s::{Ran, run};
use crate::e2e_operator::{
    ENV_KUBECONFIG, Operator, Pools, degraded_statuses, find, last_cluster, put_stage, reconcile,
    render_operator_stage, set_up, settle_pools, wanted_pools,
};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One cluster state: the dataplane, BGP towards a router or not, the pod pools (`name`,
/// `cidr`, `blockSize`, `disableBGPExport`).
struct State {
    dataplane: &'static str,
    bgp: bool,
    pools: &'static [Pool],
}

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
    if state.dataplane == "BPF" {
        text.push_str(
            "  apiEndpoint:
    host: control.k8s.example.com
    port: 6443
",
        );
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

/// The transitions: name, start, end.
const TRANSITIONS: &[(&str, State, State)] = &[
    (
        "IPv4 pool to a new CIDR",
        State {
            dataplane: "BPF",
            bgp: false,
            pools: &[V4],
        },
        State {
            dataplane: "BPF",
            bgp: false,
            pools: &[("pods-2", "172.30.0.0/16", 26, false)],
        },
    ),
    (
        "dual stack: IPv6 pool to a new CIDR and block size",
        State {
            dataplane: "BPF",
            bgp: false,
            pools: &[V4, ("default-ipv6-ippool", "fd00:10:244::/56", 122, false)],
        },
        State {
            dataplane: "BPF",
            bgp: false,
            pools: &[V4, ("pods-v6", "fd00:20::/56", 120, false)],
        },
    ),
    (
        "iptables to eBPF",
        State {
            dataplane: "Iptables",
            bgp: false,
            pools: &[V4],
        },
        State {
            dataplane: "BPF",
            bgp: false,
            pools: &[V4],
        },
    ),
    (
        "eBPF back to iptables",
        State {
            dataplane: "BPF",
            bgp: false,
            pools: &[V4],
        },
        State {
            dataplane: "Iptables",
            bgp: false,
            pools: &[V4],
        },
    ),
    (
        "VXLAN without BGP to BGP towards a router, pod pool not exported, no mesh",
        State {
            dataplane: "Iptables",
            bgp: false,
            pools: &[V4],
        },
        State {
            dataplane: "Iptables",
            bgp: true,
            pools: &[("default-ipv4-ippool", "172.20.0.0/16", 26, true)],
        },
    ),
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

/// The live objects `plan` reads: the Installation and the IPPools, one JSON stream.
fn live_objects(operator: &Operator, files: &Files) -> Result<PathBuf, String> {
    let installation = operator.get_json(&["installations.operator.tigera.io", "default"])?;
    let rest = operator.get_json(&[
        "ippools.projectcalico.org,bgpconfigurations.projectcalico.org,bgppeers.projectcalico.org,configmaps",
        "-A",
    ])?;
    // The ConfigMaps but the endpoint one are not ours to compare.
    let mut items = rest["items"].as_array().cloned().unwrap_or_default();
    items.retain(|item| {
        item["kind"] != "ConfigMap" || item["metadata"]["name"] == "kubernetes-services-endpoint"
    });
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    files.write("live.json", &format!("{installation}\n---\n{list}\n"))
}

fn our_plan(operator: &Operator, files: &Files, desired: &Path) -> Result<Vec<Value>, String> {
    let live = live_objects(operator, files)?;
    let ran = run(
        &operator.calico_render,
        &[
            "plan",
            "-f",
            &desired.to_string_lossy(),
            "--live",
            &live.to_string_lossy(),
            "-o",
            "json",
        ],
        None,
        &[],
    );
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

/// Apply one step's change with kubectl.
fn apply(operator: &Operator, files: &Files, change: &Value) -> Result<(), String> {
    let ran: Ran = match change["kind"].as_str().unwrap_or("") {
        "patch" => {
            let object = &change["object"];
            let resource = match object["kind"].as_str().unwrap_or("") {
                "Installation" => "installations.operator.tigera.io",
                "IPPool" => "ippools.projectcalico.org",
                "BGPConfiguration" => "bgpconfigurations.projectcalico.org",
                "FelixConfiguration" => "felixconfigurations.projectcalico.org",
                "ConfigMap" => "configmaps",
                other => return Err(format!("no resource for a patch of {other}")),
            };
            let mut args = vec![];
            if let Some(namespace) = object["namespace"].as_str() {
                args.extend(["-n", namespace]);
            }
            let path = files.write("step.json", &change["patch"].to_string())?;
            let path = path.to_string_lossy();
            args.extend([
                "patch",
                resource,
                object["name"].as_str().unwrap_or(""),
                "--type=json",
                "--patch-file",
                &path,
            ]);
            operator.kubectl(&args, None)
        }
        "create" => operator.kubectl(&["create", "-f", "-"], Some(&change["object"].to_string())),
        "delete" => {
            let object = &change["object"];
            let resource = match object["kind"].as_str().unwrap_or("") {
                "ConfigMap" => "configmaps",
                _ => "ippools.projectcalico.org",
            };
            let mut args = vec!["delete", resource, object["name"].as_str().unwrap_or("")];
            if let Some(namespace) = object["namespace"].as_str() {
                args.extend(["-n", namespace]);
            }
            operator.kubectl(&args, None)
        }
        other => return Err(format!("not a change to apply: {other}")),
    };
    if ran.ok() {
        Ok(())
    } else {
        Err(format!("kubectl refused the step:\n{}", ran.describe()))
    }
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

/// One transition, step by step; the table rows.
fn transition(
    operator: &Operator,
    files: &Files,
    name: &str,
    start: &State,
    end: &State,
) -> Result<Vec<String>, String> {
    let mut rows = Vec::new();
    let start_file = files.write("start.yaml", &cluster(start))?;
    let end_file = files.write("end.yaml", &cluster(end))?;
    // What an earlier transition (or run) left beside the operator's objects goes first.
    for (resource, object) in [
        ("bgppeers.projectcalico.org", "router-a"),
        ("bgpconfigurations.projectcalico.org", "default"),
    ] {
        operator.kubectl_ok(&["delete", resource, object, "--ignore-not-found"], None)?;
    }
    let objects = render_operator_stage(operator, &start_file)?;
    let installation = find(&objects, "Installation").ok_or("no Installation rendered")?;
    settle_pools(operator, &wanted_pools(installation), Pools::Prune)?;
    put_stage(operator, &objects)?;
    let started = Instant::now();
    reconcile(operator, &wanted_pools(installation), Pools::Prune, None)?;
    rows.push(format!(
        "{name} | start | reconciled in {:.1}s",
        started.elapsed().as_secs_f64()
    ));

    let first = our_plan(operator, files, &end_file)?;
    if first.is_empty() {
        return Err(format!("{name}: the plan has no steps"));
    }
    let mut done = 0;
    while done < first.len() {
        let resumed = our_plan(operator, files, &end_file)?;
        // A user-checked step cannot be seen done: it stays until the change after it.
        let mut from = done;
        while from > 0 && first[from - 1]["change"]["kind"] == "userAction" {
            from -= 1;
        }
        let want = first.get(from..).unwrap_or_default();
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
        if step["change"]["kind"] == "userAction" {
            rows.push(format!(
                "{name} | {id} | user-checked: cannot be shown without nodes (or a router)"
            ));
            done += 1;
            continue;
        }
        apply(operator, files, &step["change"])?;
        let seconds = settle(operator).map_err(|err| format!("{name}: {id}: {err}"))?;
        promised(operator, step).map_err(|err| format!("{name}: {id}: {err}"))?;
        rows.push(format!("{name} | {id} | reconciled in {seconds:.1}s"));
        done += 1;
    }
    let left = our_plan(operator, files, &end_file)?;
    if !left.is_empty() {
        return Err(format!("{name}: steps left at the end: {:?}", ids(&left)));
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
    let mut rows = vec!["transition | step | operator".to_owned()];
    let mut failures = Vec::new();
    for (name, start, end) in TRANSITIONS {
        match transition(operator, &files, name, start, end) {
            Ok(more) => rows.extend(more),
            Err(err) => failures.push(err),
        }
    }
    eprintln!("{}", rows.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
