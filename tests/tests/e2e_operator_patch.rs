//! Day-two patches against the real tigera-operator (issue 12, item 4): what `calico-render
//! patch` prints, applied with `kubectl patch --type=json` to an Installation the operator has
//! reconciled, must be reconciled by the operator without error, and `patch` against the new
//! live object must then print nothing to do.
//!
//! One chain of steps on the operator's cluster (`.ci/k8s-e2e.sh up`), each starting from the
//! Installation the operator reconciled in the step before. The first is the article's cluster
//! (eBPF, VXLANCrossSubnet, BGP off) with `disableBGPExport: false` and `mtu: 1450`. Then:
//!
//! 1. the article's `disableBGPExport` patch: our patch must be exactly the article's
//!    `replace` of `/spec/calicoNetwork/ipPools/0/disableBGPExport`, behind a `test` of the
//!    pool's name;
//! 2. a pool added; 3. that pool removed (the operator, not the test, deletes its IPPool);
//! 4. the MTU changed.
//!
//! For each: `patch` exits 0 with a non-empty patch; `kubectl patch` applies it; the operator
//! reaches `Ready` on the new generation with `status.computed` holding every value the patch
//! set and its IPPools exactly the pools of the ClusterNetwork; `patch` against the new live
//! object exits 0, prints `[]` and says there is nothing to patch.
//!
//! Then the refusals: a pool's `cidr` and its `blockSize` changed. `patch` must refuse each
//! (exit 1, nothing on standard output); the same change applied by hand must be refused too,
//! by the API server or by the operator (whose IPPool update then meets the IPPool CRD's
//! transition rule), and the Installation is put back and reconciled before the next step.
//!
//! The steps and both verdicts are printed as a table. It runs when
//! `CALICO_RENDER_E2E_OPERATOR_KUBECONFIG` is set, like the other operator tests, on the last of
//! the operator clusters, after the invalid cases (both write its Installation `default`).

use crate::e2e_k8s::{Ran, assert_all_passed, run};
use crate::e2e_operator::{
    ENV_KUBECONFIG, Operator, Pools, condition, degraded_statuses, find, last_cluster, put_stage,
    reconcile, render_operator_stage, roll_out, set_up, settle_pools, snapshot, wanted_pools,
};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

/// The article's patch (part 5, "How to manage Calico with the operator").
const ARTICLE_PATCH: &str =
    r#"[{"op":"replace","path":"/spec/calicoNetwork/ipPools/0/disableBGPExport","value":true}]"#;
/// How long the operator may take to report a refused change.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(90);

/// The ClusterNetwork of one step: the article's cluster with the fields the steps change.
#[derive(Clone)]
struct Cluster {
    mtu: u32,
    disable_bgp_export: bool,
    extra_pool: bool,
    cidr: &'static str,
    block_size: u8,
}

impl Cluster {
    fn yaml(&self) -> String {
        let mut text = format!(
            "apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
metadata:
  name: day-two
spec:
  calicoVersion: v3.32.1
  apiEndpoint:
    host: control.k8s.example.com
    port: 6443
  dataplane: BPF
  mtu: {mtu}
  podPools:
    - name: default-ipv4-ippool
      cidr: {cidr}
      blockSize: {block_size}
      encapsulation: VXLANCrossSubnet
      natOutgoing: true
      nodeSelector: all()
      disableBGPExport: {export}
",
            mtu = self.mtu,
            cidr = self.cidr,
            block_size = self.block_size,
            export = self.disable_bgp_export,
        );
        if self.extra_pool {
            text.push_str(
                "    - name: extra-ipv4-ippool
      cidr: 172.22.0.0/16
      blockSize: 26
      encapsulation: VXLANCrossSubnet
      natOutgoing: true
      nodeSelector: all()
",
            );
        }
        text
    }
}

/// What a step expects.
enum Expect {
    /// `patch` prints a patch the operator reconciles; with `Some`, its operations other than
    /// the name guards must be exactly this JSON patch.
    Applies(Option<&'static str>),
    /// `patch` refuses; applied by hand, the API server or the operator says `says`.
    Refused {
        path: &'static str,
        value: Value,
        says: &'static str,
    },
}

struct Step {
    name: &'static str,
    cluster: Cluster,
    expect: Expect,
}

fn steps(start: &Cluster) -> Vec<Step> {
    let exported = Cluster {
        disable_bgp_export: true,
        ..start.clone()
    };
    let added = Cluster {
        extra_pool: true,
        ..exported.clone()
    };
    let removed = Cluster {
        extra_pool: false,
        ..added.clone()
    };
    let mtu = Cluster {
        mtu: 1400,
        ..removed.clone()
    };
    vec![
        Step {
            name: "article: disableBGPExport",
            cluster: exported,
            expect: Expect::Applies(Some(ARTICLE_PATCH)),
        },
        Step {
            name: "pool added",
            cluster: added,
            expect: Expect::Applies(None),
        },
        Step {
            name: "pool removed",
            cluster: removed,
            expect: Expect::Applies(None),
        },
        Step {
            name: "MTU 1450 -> 1400",
            cluster: mtu.clone(),
            expect: Expect::Applies(None),
        },
        Step {
            name: "pool cidr changed",
            cluster: Cluster {
                cidr: "172.21.0.0/16",
                ..mtu.clone()
            },
            expect: Expect::Refused {
                path: "/spec/calicoNetwork/ipPools/0/cidr",
                value: json!("172.21.0.0/16"),
                says: "CIDR cannot be changed",
            },
        },
        Step {
            name: "pool blockSize changed",
            cluster: Cluster {
                block_size: 27,
                ..mtu
            },
            expect: Expect::Refused {
                path: "/spec/calicoNetwork/ipPools/0/blockSize",
                value: json!(27),
                says: "Block size cannot be changed",
            },
        },
    ]
}

/// The scratch files of the run.
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

fn live_installation(operator: &Operator) -> Result<Value, String> {
    operator.get_json(&["installations.operator.tigera.io", "default"])
}

/// `calico-render patch -f DESIRED --live LIVE --remove-pools`, LIVE being the Installation as
/// the server has it now (the removed pool never held a workload, so the opt-in is safe).
fn our_patch(operator: &Operator, files: &Files, desired: &Path) -> Result<Ran, String> {
    let live = files.write("live.json", &live_installation(operator)?.to_string())?;
    Ok(run(
        &operator.calico_render,
        &[
            "patch",
            "-f",
            &desired.to_string_lossy(),
            "--live",
            &live.to_string_lossy(),
            "--remove-pools",
        ],
        None,
        &[],
    ))
}

fn kubectl_patch(operator: &Operator, files: &Files, patch: &str) -> Result<Ran, String> {
    let path = files.write("patch.json", patch)?;
    Ok(operator.kubectl(
        &[
            "patch",
            "installations.operator.tigera.io",
            "default",
            "--type=json",
            "--patch-file",
            &path.to_string_lossy(),
        ],
        None,
    ))
}

/// Whether every field of `part` is in `whole` with the same value (objects compared field by
/// field, so what the operator adds beside them does not count).
fn holds(whole: &Value, part: &Value) -> bool {
    match (whole, part) {
        (Value::Object(whole), Value::Object(part)) => part
            .iter()
            .all(|(key, value)| whole.get(key).is_some_and(|have| holds(have, value))),
        _ => whole == part,
    }
}

/// The operator's view of the Installation after a reconcile: `status.computed` at the path of
/// a `/spec/...` pointer.
fn computed<'a>(live: &'a Value, spec_pointer: &str) -> Option<&'a Value> {
    let rest = spec_pointer.strip_prefix("/spec")?;
    live["status"]["computed"].pointer(rest)
}

fn pool_names(installation: &Value, at: &str) -> Vec<String> {
    installation
        .pointer(at)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|pool| pool["name"].as_str().unwrap_or("").to_string())
        .collect()
}

/// `patch` against the live object, once the operator has reconciled: exit 0, `[]`, the note.
fn nothing_left(operator: &Operator, files: &Files, desired: &Path) -> Result<(), String> {
    let again = our_patch(operator, files, desired)?;
    if again.ok() && again.stdout.trim() == "[]" && again.stderr.contains("nothing to patch") {
        Ok(())
    } else {
        Err(format!(
            "patch against the reconciled object did not say there is nothing to do:\n{}",
            again.describe()
        ))
    }
}

/// Wait until the operator has reconciled; with the diagnostics of a failure.
fn settle(operator: &Operator, installation: &Value, pools: Pools) -> Result<Value, String> {
    let want = wanted_pools(installation);
    match reconcile(operator, &want, pools, None) {
        Ok(outcome) => Ok(outcome.live),
        Err(err) => {
            let statuses = degraded_statuses(operator).unwrap_or_default();
            Err(format!("{err}\n  {}", statuses.join("\n  ")))
        }
    }
}

/// Put the starting cluster on the server and let the operator reconcile it.
fn start(operator: &Operator, files: &Files, cluster: &Cluster) -> Result<String, String> {
    let desired = files.write("start.yaml", &cluster.yaml())?;
    let objects = render_operator_stage(operator, &desired)?;
    let installation = find(&objects, "Installation")
        .ok_or("no Installation rendered")?
        .clone();
    // The previous test's pools go first (the operator defaults some fields from the pools it
    // finds); then our Installation, twice if the first reconcile still saw old pools.
    settle_pools(operator, &wanted_pools(&installation), Pools::Prune)?;
    put_stage(operator, &objects)?;
    let started = Instant::now();
    settle(operator, &installation, Pools::Prune)?;
    if nothing_left(operator, files, &desired).is_err() {
        put_stage(operator, &objects)?;
        settle(operator, &installation, Pools::Prune)?;
    }
    nothing_left(operator, files, &desired)?;
    Ok(format!(
        "created; reconciled in {:.1}s; patch: `[]`",
        started.elapsed().as_secs_f64()
    ))
}

/// One step whose patch the operator should take. Returns both cells of the table.
fn apply_step(
    operator: &Operator,
    files: &Files,
    step: &Step,
    article: Option<&str>,
) -> Result<(String, String), String> {
    let desired = files.write("desired.yaml", &step.cluster.yaml())?;
    let ours = our_patch(operator, files, &desired)?;
    if !ours.ok() {
        return Err(format!("patch failed:\n{}", ours.describe()));
    }
    let operations: Vec<Value> = serde_json::from_str(&ours.stdout)
        .map_err(|err| format!("patch printed invalid JSON ({err}):\n{}", ours.stdout))?;
    let changes: Vec<&Value> = operations.iter().filter(|op| op["op"] != "test").collect();
    if changes.is_empty() {
        return Err(format!(
            "patch found nothing to change:\n{}",
            ours.describe()
        ));
    }
    for op in &operations {
        let path = op["path"].as_str().unwrap_or("");
        if op["op"] == "test" && !path.ends_with("/name") {
            return Err(format!(
                "a test of something other than a pool's name: {op}"
            ));
        }
    }
    if let Some(article) = article {
        let want: Vec<Value> = serde_json::from_str(article).map_err(|err| err.to_string())?;
        if changes.iter().copied().ne(want.iter()) {
            return Err(format!(
                "our patch is not the article's ({article}) behind name guards:\n{}",
                ours.stdout
            ));
        }
    }
    let applied = kubectl_patch(operator, files, &ours.stdout)?;
    if !applied.ok() {
        return Err(format!(
            "kubectl patch refused our patch:\n{}",
            applied.describe()
        ));
    }
    let objects = render_operator_stage(operator, &desired)?;
    let installation = find(&objects, "Installation")
        .ok_or("no Installation rendered")?
        .clone();
    let started = Instant::now();
    let live = settle(operator, &installation, Pools::Watch)?;
    let took = started.elapsed().as_secs_f64();
    // The operator computed what the patch set.
    for op in &changes {
        let path = op["path"].as_str().unwrap_or("");
        if op["op"] == "remove" {
            continue;
        }
        // An append (`/-`) holds when some member of the computed list holds the value.
        let holds_there = match path.strip_suffix("/-") {
            Some(list) => computed(&live, list)
                .and_then(Value::as_array)
                .is_some_and(|members| members.iter().any(|m| holds(m, &op["value"]))),
            None => computed(&live, path).is_some_and(|have| holds(have, &op["value"])),
        };
        if !holds_there {
            let have = computed(&live, path.trim_end_matches("/-")).unwrap_or(&Value::Null);
            return Err(format!(
                "status.computed{} is {have} after the operator reconciled {op}",
                path.trim_start_matches("/spec").replace('/', ".")
            ));
        }
    }
    let names = pool_names(&live, "/status/computed/calicoNetwork/ipPools");
    let described = pool_names(&installation, "/spec/calicoNetwork/ipPools");
    if names != described {
        return Err(format!(
            "status.computed has the pools {names:?}, the ClusterNetwork {described:?}"
        ));
    }
    nothing_left(operator, files, &desired)?;
    let degraded = degraded_statuses(operator)?;
    if !degraded.is_empty() {
        return Err(format!(
            "Ready, but a TigeraStatus is Degraded:\n  {}",
            degraded.join("\n  ")
        ));
    }
    let shown: Vec<String> = operations.iter().map(short_op).collect();
    Ok((
        format!("exit 0: {}", shown.join(", ")),
        format!(
            "applied; Ready in {took:.1}s, status.computed has it, IPPools {}; patch again: `[]`",
            names.join(" + ")
        ),
    ))
}

/// One operation, short enough for a table cell.
fn short_op(op: &Value) -> String {
    let path = op["path"].as_str().unwrap_or("");
    match op["op"].as_str().unwrap_or("") {
        "remove" => format!("remove {path}"),
        "test" => format!("test {path} = {}", op["value"]),
        kind if op["value"].is_object() => {
            format!("{kind} {path} (pool {})", op["value"]["name"])
        }
        kind => format!("{kind} {path} = {}", op["value"]),
    }
}

/// Wait until the operator (the Installation's Degraded condition or a TigeraStatus) says
/// something containing `says`.
fn operator_says(operator: &Operator, says: &str) -> Result<String, String> {
    let started = Instant::now();
    let mut seen = Vec::new();
    while started.elapsed() < REFUSAL_TIMEOUT {
        let snap = snapshot(operator)?;
        roll_out(operator, &snap.workloads);
        let live = snap.installation;
        let generation = &live["metadata"]["generation"];
        let mut messages = Vec::new();
        if let Some(degraded) = condition(&live, "Degraded")
            .filter(|c| &c["observedGeneration"] == generation && c["status"] == "True")
        {
            messages.push(format!(
                "Installation Degraded ({}): {}",
                degraded["reason"].as_str().unwrap_or(""),
                degraded["message"].as_str().unwrap_or("")
            ));
        }
        messages.extend(degraded_statuses(operator)?);
        if let Some(found) = messages.iter().find(|m| m.contains(says)) {
            return Ok(found.replace('\n', " "));
        }
        seen = messages;
        thread::sleep(Duration::from_millis(400));
    }
    Err(format!(
        "the operator did not say `{says}` within {}s; it said: {}",
        REFUSAL_TIMEOUT.as_secs(),
        if seen.is_empty() {
            "nothing Degraded".to_string()
        } else {
            seen.join("; ")
        }
    ))
}

/// One step whose change cannot be made in place: refused by us; applied by hand, refused by
/// the real judges; then put back. Returns both cells of the table.
fn refused_step(
    operator: &Operator,
    files: &Files,
    step: &Step,
    back_to: &Cluster,
) -> Result<(String, String), String> {
    let Expect::Refused { path, value, says } = &step.expect else {
        return Err("not a refusal step".to_string());
    };
    let desired = files.write("desired.yaml", &step.cluster.yaml())?;
    let ours = our_patch(operator, files, &desired)?;
    let first_error = ours
        .stderr
        .lines()
        .find(|line| line.starts_with("error:"))
        .unwrap_or("")
        .to_string();
    if ours.code != Some(1) || !ours.stdout.trim().is_empty() || !first_error.contains("in place") {
        return Err(format!(
            "patch did not refuse the change (exit 1, nothing on stdout):\n{}",
            ours.describe()
        ));
    }
    let ours_cell = format!("exit 1: {}", first_error.trim_start_matches("error: "));

    // The same change by hand, behind the same guard our patches use.
    let live = live_installation(operator)?;
    let old = live.pointer(path).cloned().unwrap_or(Value::Null);
    let by_hand = |value: &Value| {
        json!([
            {"op": "test", "path": "/spec/calicoNetwork/ipPools/0/name", "value": "default-ipv4-ippool"},
            {"op": "replace", "path": path, "value": value},
        ])
        .to_string()
    };
    let applied = kubectl_patch(operator, files, &by_hand(value))?;
    let theirs = if applied.ok() {
        let said = operator_says(operator, says);
        // Whatever the operator said, the pool must still be the old one.
        let pools = crate::e2e_operator::operator_pools(operator)?;
        let pool = pools
            .get("default-ipv4-ippool")
            .cloned()
            .unwrap_or(Value::Null);
        let field = path.rsplit('/').next().unwrap_or("");
        let kept = pool["spec"][field] == old;
        match said {
            Ok(message) if kept => Ok(format!(
                "API server: accepted; operator: {message}; IPPool keeps {field} {old}"
            )),
            Ok(message) => Err(format!(
                "the operator said `{message}` but IPPool default-ipv4-ippool has {field} {}",
                pool["spec"][field]
            )),
            Err(err) => Err(err),
        }
    } else if applied.stderr.contains(says) {
        Ok(format!(
            "API server: {}",
            applied.stderr.trim().replace('\n', " ")
        ))
    } else {
        Err(format!(
            "the API server refused it, not with `{says}`:\n{}",
            applied.describe()
        ))
    };
    // Put it back (when the server took it) and let the operator settle before the next step.
    if applied.ok() {
        let restored = kubectl_patch(operator, files, &by_hand(&old))?;
        if !restored.ok() {
            return Err(format!(
                "putting {path} back failed:\n{}",
                restored.describe()
            ));
        }
    }
    let back = files.write("back.yaml", &back_to.yaml())?;
    let objects = render_operator_stage(operator, &back)?;
    let installation = find(&objects, "Installation")
        .ok_or("no Installation rendered")?
        .clone();
    settle(operator, &installation, Pools::Watch)
        .map_err(|err| format!("after putting {path} back: {err}"))?;
    nothing_left(operator, files, &back)?;
    let theirs = theirs?;
    Ok((ours_cell, format!("{theirs}; put back, Ready again")))
}

#[test]
fn patches_we_print_are_reconciled_by_the_real_operator() {
    let operators = match set_up() {
        Ok(Some(operators)) => operators,
        Ok(None) => {
            calico_render_tests::say_skipped(
                "tigera-operator cluster",
                &format!("e2e operator patches: {ENV_KUBECONFIG} is not set"),
            );
            return;
        }
        Err(reason) => panic!("e2e operator: set-up failed: {reason}"),
    };
    let operator = last_cluster(&operators);
    let _lock = operator.lock();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("cannot make a scratch dir: {err}"));
    let files = Files {
        dir: dir.path().to_path_buf(),
    };
    let first = Cluster {
        mtu: 1450,
        disable_bgp_export: false,
        extra_pool: false,
        cidr: "172.20.0.0/16",
        block_size: 26,
    };
    let mut table = vec![
        "| step | calico-render patch | kubectl patch --type=json, then the operator |".to_string(),
        "| --- | --- | --- |".to_string(),
    ];
    let cell = |text: &str| text.replace('|', "\\|");
    let started = Instant::now();
    let begun = start(operator, &files, &first);
    table.push(format!(
        "| start: the article's cluster, disableBGPExport false, mtu 1450 | (created with \
         kubectl) | {} |",
        cell(begun.as_ref().unwrap_or_else(|err| err))
    ));
    let mut failures = Vec::new();
    if let Err(err) = begun {
        failures.push(format!("start: {err}"));
    } else {
        let mut current = first;
        for step in steps(&current) {
            let result = match &step.expect {
                Expect::Applies(article) => apply_step(operator, &files, &step, *article),
                Expect::Refused { .. } => refused_step(operator, &files, &step, &current),
            };
            match result {
                Ok((ours, theirs)) => {
                    table.push(format!(
                        "| {} | {} | {} |",
                        step.name,
                        cell(&ours),
                        cell(&theirs)
                    ));
                    if matches!(step.expect, Expect::Applies(_)) {
                        current = step.cluster.clone();
                    }
                }
                Err(err) => {
                    table.push(format!("| {} | FAILED | {} |", step.name, cell(&err)));
                    failures.push(format!("{}:\n{}{err}", step.name, step.cluster.yaml()));
                    // Later steps start from a state this one did not reach.
                    break;
                }
            }
        }
    }
    eprintln!(
        "e2e operator patches: {} failures, {:.1}s\n{}",
        failures.len(),
        started.elapsed().as_secs_f64(),
        table.join("\n")
    );
    assert_all_passed("operator patches", &failures);
}
