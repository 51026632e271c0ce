//! The real tigera-operator (v1.42.3, built from its Go module by `.ci/k8s-e2e.sh install`) as a
//! judge of what the operator stage renders.
//!
//! `.ci/k8s-e2e.sh up DIR` starts it out of cluster against an etcd + kube-apiserver of its own
//! (it writes back into what it watches, so it does not share the other suite's server), with
//! the CRDs it installs itself, one Node object and admission webhooks off (nothing runs the
//! webhook pods). For every example and a generated corpus of ClusterNetworks this test:
//!
//! - puts the operator stage on that server (Installation `default` replaced in place, the
//!   endpoint ConfigMap created or removed, APIServer `default` created when rendered);
//! - stands in for the kubelet and the workload controllers, which this server lacks, by marking
//!   the DaemonSets and Deployments the operator writes as rolled out (their status only);
//! - waits until the operator has reconciled that generation: `Ready` with `status.computed`, or
//!   a `Degraded` condition, which is a failure with the operator's message;
//! - asserts zero drift: every field we rendered is in the live `spec`, unchanged (fields the
//!   operator adds are counted and listed, not failures);
//! - asserts that the operator's IPPools (`app.kubernetes.io/managed-by: tigera-operator`) are
//!   exactly the pools of the rendered Installation, field by field.
//!
//! An IPPool's CIDR cannot change in place (a CEL transition rule), so between cases the test
//! deletes the operator's pools that the new Installation does not describe; the operator then
//! creates the new ones, as it would on a fresh cluster.
//!
//! `up` starts several such clusters (`CALICO_RENDER_E2E_OPERATORS`, default 3) and lists them in
//! `CALICO_RENDER_E2E_OPERATOR_KUBECONFIGS`: a reconcile is mostly waiting (the operator's status
//! manager looks at the workloads every 5 seconds), so the corpus is spread over all clusters
//! but the last, one worker each, and the invalid cases (and the patch steps of
//! `e2e_operator_patch`) run on the last one. The invalid cases end by putting a valid
//! Installation back and waiting for the operator to take it, so that the next test there
//! starts from a reconciled cluster. A wait that runs out quotes the end of the operator's log.
//!
//! It runs when `CALICO_RENDER_E2E_OPERATOR_KUBECONFIG` is set (`up` prints it); without it the
//! test says it is skipped, unless `CALICO_RENDER_E2E=required`, which makes that a failure.
//! `CALICO_RENDER_E2E_OPERATOR_CORPUS` sets the number of generated ClusterNetworks (default 200).

use crate::e2e_k8s::{
    CORPUS_SEED, Ran, Rng, assert_all_passed, differences, example_inputs,
    generated_cluster_network, list_items, parse_yaml_stream, run,
};
use calico_render_tests::workspace_root;
use calico_spec::diag::Severity;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

pub(crate) const ENV_KUBECONFIG: &str = "CALICO_RENDER_E2E_OPERATOR_KUBECONFIG";
/// All the operator clusters `up` started, `:`-separated (the first is `ENV_KUBECONFIG`).
const ENV_KUBECONFIGS: &str = "CALICO_RENDER_E2E_OPERATOR_KUBECONFIGS";
const ENV_KUBECTL: &str = "CALICO_RENDER_E2E_KUBECTL";
pub(crate) const ENV_LOG: &str = "CALICO_RENDER_E2E_OPERATOR_LOG";
const ENV_CORPUS: &str = "CALICO_RENDER_E2E_OPERATOR_CORPUS";
const ENV_MODE: &str = "CALICO_RENDER_E2E";
const DEFAULT_CORPUS: usize = 200;
/// How long one case may take to be reconciled. A bound on waiting, not a performance target:
/// on a loaded 2-core machine the operator took more than 90 s to clear the status an invalid
/// case had left before the patch steps' first Installation (CI, 2026-12-02).
const RECONCILE_TIMEOUT: Duration = Duration::from_secs(180);
/// How many lines of the operator's log a wait that ran out quotes.
const LOG_LINES: usize = 20;
/// The Degraded reasons the operator gives for an Installation it refuses.
const CONFIGURATION_ERRORS: &[&str] = &["InvalidConfigurationError", "ResourceValidationError"];
/// How long a configuration error must stay reported before [`reconcile`] takes it as the
/// operator's verdict.
const CONFIGURATION_ERROR_GRACE: Duration = Duration::from_secs(4);

/// Every operator test writes Installation `default` of the cluster it uses: one writer per
/// cluster at a time (clusters past the eighth share a lock).
static OPERATOR_WRITES: [Mutex<()>; 8] = [const { Mutex::new(()) }; 8];

/// One of the operator's clusters (`.ci/k8s-e2e.sh up` starts three by default). The corpus is
/// spread over all but the last one; the invalid cases and the patch steps run on the last one,
/// so the tests seldom wait for each other (a test waiting on a lock holds one of libtest's
/// threads, two on this machine, and the rest of the suite with it). With one cluster they all
/// take turns on it.
pub(crate) struct Operator {
    index: usize,
    kubeconfig: PathBuf,
    kubectl: PathBuf,
    pub(crate) calico_render: PathBuf,
    /// The resource of the operator's IPPools: `ippools.projectcalico.org` (v1.42 on the native
    /// v3 CRDs), `ippools.crd.projectcalico.org` (v1.40, no Calico API server).
    pools: &'static str,
}

impl Operator {
    /// Wait for, and hold, the right to write this cluster's Installation.
    pub(crate) fn lock(&self) -> MutexGuard<'static, ()> {
        OPERATOR_WRITES[self.index % OPERATOR_WRITES.len()]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Which cluster, for messages.
    pub(crate) fn name(&self) -> String {
        format!("operator cluster {}", self.index + 1)
    }

    pub(crate) fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> Ran {
        let kubeconfig = self.kubeconfig.to_string_lossy();
        let mut all = vec!["--kubeconfig", &kubeconfig];
        all.extend_from_slice(args);
        run(&self.kubectl, &all, stdin, &[])
    }

    pub(crate) fn kubectl_ok(&self, args: &[&str], stdin: Option<&str>) -> Result<Ran, String> {
        let ran = self.kubectl(args, stdin);
        if ran.ok() {
            Ok(ran)
        } else {
            Err(format!("kubectl failed:\n{}", ran.describe()))
        }
    }

    /// The last `lines` lines of this cluster's operator log (`.ci/k8s-e2e.sh up` writes it
    /// beside the kubeconfig, in `logs/tigera-operator.log`), for a failure message: a wait that
    /// ran out says what the operator was doing meanwhile.
    fn log_tail(&self, lines: usize) -> String {
        let Some(log) = self
            .kubeconfig
            .parent()
            .map(|dir| dir.join("logs/tigera-operator.log"))
        else {
            return String::new();
        };
        let Ok(text) = fs::read_to_string(&log) else {
            return format!(
                "\n  (the operator's log {} could not be read)",
                log.display()
            );
        };
        let all: Vec<&str> = text.lines().collect();
        let tail = all
            .get(all.len().saturating_sub(lines)..)
            .unwrap_or_default();
        let shown: Vec<String> = tail
            .iter()
            .map(|line| line.chars().take(400).collect())
            .collect();
        format!(
            "\n  the last {} lines of {}:\n    {}",
            shown.len(),
            log.display(),
            shown.join("\n    ")
        )
    }

    /// Run a shell command line as a user would (a plan's printed command): this cluster's
    /// kubeconfig in `KUBECONFIG` and `bin`, where a `kubectl` link to its kubectl is made,
    /// first on `PATH`.
    pub(crate) fn shell(&self, bin: &Path, command: &str) -> Ran {
        let link = bin.join("kubectl");
        if !link.exists() {
            let target = fs::canonicalize(&self.kubectl).unwrap_or_else(|_| self.kubectl.clone());
            // A link that cannot be made shows as `kubectl: command not found` in the run.
            let _ = std::os::unix::fs::symlink(target, &link);
        }
        let mut paths = vec![bin.to_path_buf()];
        paths.extend(env::split_paths(&env::var_os("PATH").unwrap_or_default()));
        let path = PathBuf::from(env::join_paths(paths).unwrap_or_default());
        run(
            Path::new("bash"),
            &["-c", command],
            None,
            &[("PATH", &path), ("KUBECONFIG", &self.kubeconfig)],
        )
    }

    pub(crate) fn get_json(&self, args: &[&str]) -> Result<Value, String> {
        let mut all = vec!["get", "-o", "json"];
        all.extend_from_slice(args);
        let ran = self.kubectl_ok(&all, None)?;
        serde_json::from_str(&ran.stdout)
            .map_err(|err| format!("kubectl get printed invalid JSON: {err}"))
    }
}

/// Every operator cluster, checked ready; `None` when there is none and none is required.
pub(crate) fn set_up() -> Result<Option<Vec<Operator>>, String> {
    let required = env::var(ENV_MODE).is_ok_and(|mode| mode == "required");
    let Some(first) = env::var_os(ENV_KUBECONFIG).filter(|value| !value.is_empty()) else {
        if required {
            return Err(format!(
                "{ENV_MODE}=required but {ENV_KUBECONFIG} is not set: start the operator's \
                 cluster with `eval \"$(.ci/k8s-e2e.sh up DIR)\"`"
            ));
        }
        return Ok(None);
    };
    let kubeconfigs: Vec<PathBuf> = match env::var_os(ENV_KUBECONFIGS) {
        Some(all) if !all.is_empty() => env::split_paths(&all).collect(),
        _ => vec![PathBuf::from(first)],
    };
    let kubectl = env::var_os(ENV_KUBECTL)
        .filter(|value| !value.is_empty())
        .map_or_else(|| PathBuf::from("kubectl"), PathBuf::from);
    let calico_render = calico_render_tests::try_calico_render()?.to_path_buf();
    let mut operators = Vec::new();
    for (index, kubeconfig) in kubeconfigs.into_iter().enumerate() {
        let operator = Operator {
            index,
            kubeconfig,
            kubectl: kubectl.clone(),
            calico_render: calico_render.clone(),
            pools: "ippools.projectcalico.org",
        };
        let ready = operator.kubectl(&["get", "--raw", "/readyz"], None);
        if !ready.ok() || ready.stdout.trim() != "ok" {
            return Err(format!(
                "the API server of {} is not ready:\n{}",
                operator.name(),
                ready.describe()
            ));
        }
        operators.push(operator);
    }
    Ok(Some(operators))
}

/// The clusters the corpus is spread over: all but the last, or the only one.
fn corpus_clusters(operators: &[Operator]) -> &[Operator] {
    &operators[..operators.len().saturating_sub(1).max(1)]
}

/// The cluster of the invalid cases and the patch steps: the last one.
pub(crate) fn last_cluster(operators: &[Operator]) -> &Operator {
    &operators[operators.len() - 1]
}

/// The operator stage of one ClusterNetwork, as JSON objects.
pub(crate) fn render_operator_stage(
    operator: &Operator,
    input: &Path,
) -> Result<Vec<Value>, String> {
    let path = input.to_string_lossy();
    let ran = run(
        &operator.calico_render,
        &["render", "-f", &path, "--stage", "operator", "-o", "json"],
        None,
        &[],
    );
    if !ran.ok() {
        return Err(format!("render failed:\n{}", ran.describe()));
    }
    let list: Value = serde_json::from_str(&ran.stdout)
        .map_err(|err| format!("render -o json printed invalid JSON ({err})"))?;
    Ok(list_items(list))
}

pub(crate) fn find<'a>(objects: &'a [Value], kind: &str) -> Option<&'a Value> {
    objects.iter().find(|object| object["kind"] == kind)
}

/// Put the operator stage on the server: the Installation replaced in place (a delete would wait
/// for the operator's finalizers on a server without controllers), the endpoint ConfigMap
/// removed before it or created or replaced after it, the APIServer created when rendered.
pub(crate) fn put_stage(operator: &Operator, objects: &[Value]) -> Result<(), String> {
    let installation = find(objects, "Installation").ok_or("no Installation rendered")?;
    // The pull secrets an Installation names are the user's, made before it (the operator
    // reports Degraded without them); the harness stands in with empty ones.
    let secrets = installation["spec"]["imagePullSecrets"].as_array();
    for name in secrets
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
    {
        let secret = serde_json::json!({
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/dockerconfigjson",
            "metadata": {"name": name, "namespace": "tigera-operator"},
            "stringData": {".dockerconfigjson": "{\"auths\":{}}"},
        });
        operator.kubectl_ok(&["apply", "-f", "-"], Some(&secret.to_string()))?;
    }
    // The operator judges an Installation against the endpoint ConfigMap it finds, and
    // bpfNetworkBootstrap refuses one that is there: the previous case's ConfigMap goes before
    // this case's Installation arrives, and this case's comes after it.
    let config_map = find(objects, "ConfigMap");
    if config_map.is_none() {
        operator.kubectl_ok(
            &[
                "delete",
                "configmap",
                "-n",
                "tigera-operator",
                "kubernetes-services-endpoint",
                "--ignore-not-found",
            ],
            None,
        )?;
    }
    write_installation(operator, &installation.to_string())?;
    if let Some(config_map) = config_map {
        operator.kubectl_ok(&["apply", "-f", "-"], Some(&config_map.to_string()))?;
    }
    if let Some(api_server) = find(objects, "APIServer") {
        // Created once; one that is there already is left as it is.
        let created = operator.kubectl(&["create", "-f", "-"], Some(&api_server.to_string()));
        if !created.ok() && !created.stderr.contains("AlreadyExists") {
            return Err(format!("create of the APIServer:\n{}", created.describe()));
        }
    }
    Ok(())
}

/// Create Installation `default`, or replace it in place. kubectl replaces at the live
/// resourceVersion, and the operator writes the object too, so a conflict is retried.
fn write_installation(operator: &Operator, text: &str) -> Result<(), String> {
    let mut last = String::new();
    // Replace first (the Installation is there but for the first case), create when it is not.
    let mut verb = "replace";
    for _ in 0..10 {
        let ran = operator.kubectl(&[verb, "-f", "-"], Some(text));
        if ran.ok() {
            return Ok(());
        }
        if verb == "replace" && ran.stderr.contains("NotFound") {
            verb = "create";
            continue;
        }
        if !ran.stderr.contains("Conflict") && !ran.stderr.contains("AlreadyExists") {
            return Err(format!("{verb} of the Installation:\n{}", ran.describe()));
        }
        if ran.stderr.contains("AlreadyExists") {
            verb = "replace";
        }
        last = ran.describe();
        thread::sleep(Duration::from_millis(200));
    }
    Err(format!("the Installation kept changing under us:\n{last}"))
}

/// What one poll of the operator's cluster sees, read with one `kubectl get` (each kubectl run
/// costs a process start and a TLS handshake, and the wait loops poll several times a second).
pub(crate) struct Snapshot {
    /// Installation `default`, or `Null` when there is none.
    pub(crate) installation: Value,
    /// The DaemonSets and Deployments.
    pub(crate) workloads: Vec<Value>,
    /// The operator's IPPools (`app.kubernetes.io/managed-by: tigera-operator`) by name.
    pub(crate) pools: BTreeMap<String, Value>,
}

pub(crate) fn snapshot(operator: &Operator) -> Result<Snapshot, String> {
    let list = operator.get_json(&[
        &format!(
            "installations.operator.tigera.io,daemonsets,deployments,{}",
            operator.pools
        ),
        "-A",
    ])?;
    let mut snapshot = Snapshot {
        installation: Value::Null,
        workloads: Vec::new(),
        pools: BTreeMap::new(),
    };
    for item in list["items"].as_array().into_iter().flatten() {
        let name = item["metadata"]["name"].as_str().unwrap_or("");
        match item["kind"].as_str().unwrap_or("") {
            "Installation" if name == "default" => snapshot.installation = item.clone(),
            "DaemonSet" | "Deployment" => snapshot.workloads.push(item.clone()),
            "IPPool"
                if item["metadata"]["labels"]["app.kubernetes.io/managed-by"]
                    == "tigera-operator" =>
            {
                snapshot.pools.insert(name.to_string(), item.clone());
            }
            _ => {}
        }
    }
    Ok(snapshot)
}

/// Mark every DaemonSet and Deployment of a snapshot as rolled out, as the kubelet and the
/// workload controllers would once the pods ran. Only `status` is written.
pub(crate) fn roll_out(operator: &Operator, workloads: &[Value]) {
    for item in workloads {
        let generation = item["metadata"]["generation"].as_i64().unwrap_or(1);
        let (resource, want) = if item["kind"] == "DaemonSet" {
            (
                "daemonsets",
                json!({"currentNumberScheduled": 1, "desiredNumberScheduled": 1,
                       "numberAvailable": 1, "numberReady": 1, "updatedNumberScheduled": 1,
                       "numberMisscheduled": 0, "observedGeneration": generation}),
            )
        } else {
            let replicas = item["spec"]["replicas"].as_i64().unwrap_or(1);
            (
                "deployments",
                json!({"observedGeneration": generation, "replicas": replicas,
                       "updatedReplicas": replicas, "readyReplicas": replicas,
                       "availableReplicas": replicas}),
            )
        };
        let status = &item["status"];
        let current = want
            .as_object()
            .is_some_and(|fields| fields.iter().all(|(key, value)| &status[key] == value));
        if current {
            continue;
        }
        let namespace = item["metadata"]["namespace"].as_str().unwrap_or("");
        let name = item["metadata"]["name"].as_str().unwrap_or("");
        let patch = json!({"status": want}).to_string();
        // The operator may update the object between our read and this write: the next round
        // catches up.
        let _ = operator.kubectl(
            &[
                "patch",
                resource,
                "-n",
                namespace,
                name,
                "--subresource=status",
                "--type=merge",
                "-p",
                &patch,
            ],
            None,
        );
    }
}

/// The IPPool the operator makes of one Installation pool, in the fields we compare.
fn expected_pool(pool: &Value) -> Value {
    let encapsulation = pool["encapsulation"].as_str().unwrap_or("IPIP");
    let (ipip, vxlan) = match encapsulation {
        "IPIP" => ("Always", "Never"),
        "IPIPCrossSubnet" => ("CrossSubnet", "Never"),
        "VXLAN" => ("Never", "Always"),
        "VXLANCrossSubnet" => ("Never", "CrossSubnet"),
        _ => ("Never", "Never"),
    };
    json!({
        "cidr": pool["cidr"],
        "blockSize": pool["blockSize"],
        "ipipMode": ipip,
        "vxlanMode": vxlan,
        "natOutgoing": pool["natOutgoing"] == "Enabled",
        "nodeSelector": pool["nodeSelector"],
        "disableBGPExport": pool["disableBGPExport"].as_bool().unwrap_or(false),
    })
}

/// The same fields of a live IPPool (absent booleans read as false, absent modes as Never).
fn live_pool(pool: &Value) -> Value {
    let spec = &pool["spec"];
    json!({
        "cidr": spec["cidr"],
        "blockSize": spec["blockSize"],
        "ipipMode": spec["ipipMode"].as_str().unwrap_or("Never"),
        "vxlanMode": spec["vxlanMode"].as_str().unwrap_or("Never"),
        "natOutgoing": spec["natOutgoing"].as_bool().unwrap_or(false),
        "nodeSelector": spec["nodeSelector"],
        "disableBGPExport": spec["disableBGPExport"].as_bool().unwrap_or(false),
    })
}

/// The operator's IPPools by name.
pub(crate) fn operator_pools(operator: &Operator) -> Result<BTreeMap<String, Value>, String> {
    Ok(snapshot(operator)?.pools)
}

/// The IPPools the operator should make of an Installation, by name, in the fields we compare.
pub(crate) fn wanted_pools(installation: &Value) -> BTreeMap<String, Value> {
    installation["spec"]["calicoNetwork"]["ipPools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|pool| {
            (
                pool["name"].as_str().unwrap_or("").to_string(),
                expected_pool(pool),
            )
        })
        .collect()
}

/// Who removes the operator's pools that the Installation no longer describes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pools {
    /// The test deletes them (left from the previous case; a pool's CIDR cannot change in place).
    Prune,
    /// Only the operator does: the test watches.
    Watch,
}

/// Delete the operator's pools that `want` does not describe when `pools` is [`Pools::Prune`].
/// Returns whether the live pools are exactly `want`.
pub(crate) fn settle_pools(
    operator: &Operator,
    want: &BTreeMap<String, Value>,
    pools: Pools,
) -> Result<bool, String> {
    settle_seen_pools(operator, &operator_pools(operator)?, want, pools)
}

/// [`settle_pools`] on the pools of a snapshot.
fn settle_seen_pools(
    operator: &Operator,
    live: &BTreeMap<String, Value>,
    want: &BTreeMap<String, Value>,
    pools: Pools,
) -> Result<bool, String> {
    let mut exact = live.len() == want.len();
    for (name, pool) in live {
        if want.get(name) != Some(&live_pool(pool)) {
            exact = false;
            if pools == Pools::Prune && pool["metadata"]["deletionTimestamp"].is_null() {
                operator.kubectl_ok(
                    &[
                        "delete",
                        operator.pools,
                        name,
                        "--wait=false",
                        "--ignore-not-found",
                    ],
                    None,
                )?;
            }
        }
    }
    Ok(exact && want.keys().all(|name| live.contains_key(name)))
}

/// What one reconcile ended in.
pub(crate) struct Outcome {
    pub(crate) live: Value,
    pub(crate) seconds: f64,
    /// Ended before `Ready` because the operator had already written back fields beside
    /// `rendered` (see [`reconcile`]).
    pub(crate) defaulted: bool,
}

pub(crate) fn condition<'a>(installation: &'a Value, kind: &str) -> Option<&'a Value> {
    installation["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|condition| condition["type"] == kind)
}

/// Wait until the operator has reconciled the Installation's current generation.
///
/// With `rendered`, the wait also ends (`defaulted`) as soon as the live pools are `want` and the
/// operator has written fields back beside the rendered spec: it may have defaulted them from
/// the previous case's pools, so the caller puts its Installation back and judges the next
/// reconcile instead of waiting for this one.
pub(crate) fn reconcile(
    operator: &Operator,
    want: &BTreeMap<String, Value>,
    pools: Pools,
    rendered: Option<&Value>,
) -> Result<Outcome, String> {
    let started = Instant::now();
    let mut last = String::new();
    let mut error_since: Option<Instant> = None;
    while started.elapsed() < RECONCILE_TIMEOUT {
        let seen = snapshot(operator)?;
        roll_out(operator, &seen.workloads);
        let pools_exact = settle_seen_pools(operator, &seen.pools, want, pools)?;
        let live = seen.installation;
        if live.is_null() {
            return Err("there is no Installation default".to_string());
        }
        if let Some(rendered) = rendered
            && pools_exact
            && !drift(rendered, &live).1.is_empty()
        {
            return Ok(Outcome {
                live,
                seconds: started.elapsed().as_secs_f64(),
                defaulted: true,
            });
        }
        let generation = &live["metadata"]["generation"];
        let current =
            |kind: &str| condition(&live, kind).filter(|c| &c["observedGeneration"] == generation);
        // A configuration error that stays ends the wait; other Degraded reasons (a pool being
        // re-created, an object not there yet) pass as the operator catches up. The operator
        // may judge the Installation against a ConfigMap its cache has not yet seen go, and
        // clears that error once it has; so one report is not yet a verdict.
        let configuration_error = current("Degraded").filter(|c| {
            c["status"] == "True"
                && CONFIGURATION_ERRORS.contains(&c["reason"].as_str().unwrap_or(""))
        });
        if configuration_error.is_none() {
            error_since = None;
        }
        if let Some(degraded) = configuration_error
            && error_since.get_or_insert_with(Instant::now).elapsed() >= CONFIGURATION_ERROR_GRACE
        {
            return Err(format!(
                "the operator reports the Installation Degraded ({}): {}",
                degraded["reason"].as_str().unwrap_or(""),
                degraded["message"].as_str().unwrap_or("")
            ));
        }
        let ready = current("Ready").is_some_and(|c| c["status"] == "True");
        if ready && !live["status"]["computed"].is_null() && pools_exact {
            return Ok(Outcome {
                live,
                seconds: started.elapsed().as_secs_f64(),
                defaulted: false,
            });
        }
        last = format!(
            "generation {generation}, Ready {}, computed {}, pools as described {pools_exact}; \
             Progressing: {}",
            current("Ready").map_or("not yet".to_string(), |c| c["status"].to_string()),
            !live["status"]["computed"].is_null(),
            condition(&live, "Progressing").map_or(String::new(), |c| c["message"].to_string())
        ) + &condition(&live, "Degraded")
            .filter(|c| c["status"] == "True")
            .map_or(String::new(), |c| format!("; Degraded: {}", c["message"]));
        thread::sleep(Duration::from_millis(400));
    }
    Err(format!(
        "not reconciled within {}s: {last}{}",
        RECONCILE_TIMEOUT.as_secs(),
        operator.log_tail(LOG_LINES)
    ))
}

/// Drift lines for the fields we rendered (the ones the operator changed or dropped), and the
/// fields the operator added, with their values.
fn drift(rendered: &Value, live: &Value) -> (Vec<String>, Vec<String>) {
    let mut lines = Vec::new();
    differences("spec", &rendered["spec"], &live["spec"], &mut lines);
    let (added, changed): (Vec<String>, Vec<String>) = lines
        .into_iter()
        .partition(|line| line.contains(": added by the server"));
    let added = added
        .into_iter()
        .map(|line| {
            line.split("; a CRD default")
                .next()
                .unwrap_or("")
                .replace(": added by the server", ": added by the operator")
        })
        .collect();
    (changed, added)
}

/// The TigeraStatus conditions that report a problem, for the failure message.
pub(crate) fn degraded_statuses(operator: &Operator) -> Result<Vec<String>, String> {
    let list = operator.get_json(&["tigerastatuses.operator.tigera.io"])?;
    Ok(list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|status| {
            let name = status["metadata"]["name"]
                .as_str()
                .unwrap_or("")
                .to_string();
            status["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["type"] == "Degraded" && c["status"] == "True")
                .map(move |c| {
                    format!(
                        "TigeraStatus {name}: {}",
                        c["message"].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect())
}

/// How one input of the corpus went.
struct Judged {
    /// Seconds the judged reconcile took.
    seconds: f64,
    /// Whether the Installation was put back once (see [`judge`]).
    second_round: bool,
    /// The fields the operator added beside ours.
    added: Vec<String>,
}

/// Put one ClusterNetwork's operator stage on a cluster and judge the operator's reconcile.
fn judge(operator: &Operator, input: &Path) -> Result<Judged, String> {
    let objects = render_operator_stage(operator, input)?;
    let installation = find(&objects, "Installation")
        .ok_or("no Installation rendered")?
        .clone();
    let want = wanted_pools(&installation);
    let settle = |rendered: Option<&Value>| {
        reconcile(operator, &want, Pools::Prune, rendered).map_err(|err| {
            let statuses = degraded_statuses(operator).unwrap_or_default();
            format!("{err}\n  {}", statuses.join("\n  "))
        })
    };
    // The previous case's pools go first: the operator defaults some fields from the pools it
    // finds (it may still re-create them from the old Installation for a moment; the second
    // round below covers that).
    settle_pools(operator, &want, Pools::Prune)?;
    put_stage(operator, &objects)?;
    let mut outcome = settle(Some(&installation))?;
    let (mut changed, mut added) = drift(&installation, &outcome.live);
    let second_round = outcome.defaulted || !added.is_empty();
    if second_round {
        // The operator defaults some fields from the cluster's IPPools, and the previous case's
        // pools may still have been there when it first saw this Installation. Now that the
        // pools are this case's, put our Installation back and judge that reconcile, to the end.
        put_stage(operator, &objects)?;
        outcome = settle(None)?;
        (changed, added) = drift(&installation, &outcome.live);
    }
    if !changed.is_empty() {
        return Err(format!(
            "the operator changed fields we rendered:\n  {}",
            changed.join("\n  ")
        ));
    }
    Ok(Judged {
        seconds: outcome.seconds,
        second_round,
        added,
    })
}

#[test]
fn the_real_operator_reconciles_what_we_render_without_drift() {
    let operators = match set_up() {
        Ok(Some(operators)) => operators,
        Ok(None) => {
            calico_render_tests::say_skipped(
                "tigera-operator cluster",
                &format!(
                    "e2e operator: {ENV_KUBECONFIG} is not set, so there is no operator to \
                 test against (`eval \"$(.ci/k8s-e2e.sh up DIR)\"` starts one)"
                ),
            );
            return;
        }
        Err(reason) => panic!("e2e operator: set-up failed: {reason}"),
    };
    let corpus = env::var(ENV_CORPUS)
        .ok()
        .and_then(|value| value.parse::<usize>().ok())
        .unwrap_or(DEFAULT_CORPUS);
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("cannot make a scratch dir: {err}"));
    let mut inputs: Vec<(String, PathBuf)> = example_inputs()
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(workspace_root())
                .unwrap_or(&path)
                .display()
                .to_string();
            (name, path)
        })
        .collect();
    // Another stream of the same generator as the other suite's corpus, so the inputs differ.
    let mut rng = Rng(CORPUS_SEED ^ 0x0BE2_A70B);
    for index in 0..corpus {
        let text = generated_cluster_network(&mut rng, index);
        let path = dir.path().join(format!("operator-corpus-{index:03}.yaml"));
        fs::write(&path, &text)
            .unwrap_or_else(|err| panic!("cannot write {}: {err}", path.display()));
        inputs.push((format!("operator-corpus-{index:03}"), path));
    }

    // One worker per cluster, each taking the next input until none is left.
    let clusters = corpus_clusters(&operators);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Judged, String>>>> =
        Mutex::new(inputs.iter().map(|_| None).collect());
    thread::scope(|scope| {
        for operator in clusters {
            let (next, results, inputs) = (&next, &results, &inputs);
            scope.spawn(move || {
                let _lock = operator.lock();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, input)) = inputs.get(index) else {
                        break;
                    };
                    let result = judge(operator, input)
                        .map_err(|err| format!("{err}\n  (on {})", operator.name()));
                    results.lock().unwrap_or_else(PoisonError::into_inner)[index] = Some(result);
                }
            });
        }
    });

    let mut failures = Vec::new();
    let mut reconciles = 0;
    let mut second_rounds = 0;
    let mut added: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seconds = Vec::new();
    let results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    for ((name, input), result) in inputs.iter().zip(results) {
        match result.unwrap_or_else(|| Err("never judged".to_string())) {
            Ok(judged) => {
                reconciles += 1;
                seconds.push(judged.seconds);
                second_rounds += usize::from(judged.second_round);
                for path in judged.added {
                    added.entry(path).or_default().push(name.clone());
                }
            }
            Err(err) => {
                let text = fs::read_to_string(input).unwrap_or_default();
                failures.push(format!("{name}:\n{text}{err}"));
            }
        }
    }
    let mean = if seconds.is_empty() {
        0.0
    } else {
        seconds.iter().sum::<f64>() / f64::from(u32::try_from(seconds.len()).unwrap_or(u32::MAX))
    };
    eprintln!(
        "e2e operator: {} inputs ({} examples, {corpus} generated) on {} clusters, {reconciles} \
         reconciles observed without drift (mean {mean:.1}s; {second_rounds} put back after the \
         operator defaulted fields from the previous case's pools), {} failures, {:.1}s",
        inputs.len(),
        inputs.len() - corpus,
        clusters.len(),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    for (path, names) in &added {
        let shown: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
        eprintln!(
            "e2e operator: {path} ({} inputs: {}{})",
            names.len(),
            shown.join(", "),
            if names.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        );
    }
    if let Some(log) = env::var_os(ENV_LOG) {
        eprintln!(
            "e2e operator: its log is {} (the other clusters' logs sit beside it)",
            Path::new(&log).display()
        );
    }
    assert_all_passed("operator reconciles", &failures);
}

/// Set by `.ci/k8s-e2e.sh up` when it started the cluster of Calico v3.31's operator
/// (`CALICO_RENDER_E2E_OPERATOR_V140=1`).
const ENV_V140_KUBECONFIG: &str = "CALICO_RENDER_E2E_OPERATOR_V140_KUBECONFIG";

/// tigera-operator v1.40.0, on a cluster of its own with the v3.31.7 CRDs, reconciling every
/// example rendered with `calicoVersion: v3.31.7`: no drift, and its IPPools exactly the
/// rendered pools. Calico v3.31.7 pins v1.40.15, which the Go module proxy does not serve;
/// v1.40.0 is the nearest it does. Without a Calico API server that operator writes its pools as
/// `crd.projectcalico.org/v1`. Unlike the v1.42 corpus test, a field the operator adds is a
/// failure too: the examples are written for a new cluster, so what v1.40 writes back beside
/// our rendering is a default `apply_operator_defaults_for` misses for v3.31. Runs only when
/// `ENV_V140_KUBECONFIG` is set (whatever `CALICO_RENDER_E2E` says), and says it is skipped
/// otherwise.
#[test]
fn the_v3_31_operator_reconciles_the_v3_31_renderings_without_drift() {
    let Some(kubeconfig) = env::var_os(ENV_V140_KUBECONFIG).filter(|value| !value.is_empty())
    else {
        calico_render_tests::say_skipped(
            "tigera-operator v1.40 cluster",
            &format!(
                "e2e operator v1.40: {ENV_V140_KUBECONFIG} is not set (`CALICO_RENDER_E2E_OPERATOR_V140=1 \
             .ci/k8s-e2e.sh install`, then `up` with the same variable, starts that cluster)"
            ),
        );
        return;
    };
    let operator = Operator {
        // A lock of its own unless eight clusters run (the v1.42 ones take the first locks).
        index: OPERATOR_WRITES.len() - 1,
        kubeconfig: PathBuf::from(kubeconfig),
        kubectl: env::var_os(ENV_KUBECTL)
            .filter(|value| !value.is_empty())
            .map_or_else(|| PathBuf::from("kubectl"), PathBuf::from),
        calico_render: calico_render_tests::try_calico_render()
            .unwrap_or_else(|err| panic!("e2e operator v1.40: {err}"))
            .to_path_buf(),
        pools: "ippools.crd.projectcalico.org",
    };
    let ready = operator.kubectl(&["get", "--raw", "/readyz"], None);
    assert!(
        ready.ok() && ready.stdout.trim() == "ok",
        "e2e operator v1.40: its API server is not ready:\n{}",
        ready.describe()
    );
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("cannot make a scratch dir: {err}"));
    let _lock = operator.lock();
    let mut failures = Vec::new();
    let mut added: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let names = calico_render_tests::example_names();
    for name in &names {
        let text = calico_render_tests::example_for(name, "v3.31.7");
        let path = dir.path().join(format!("{name}.yaml"));
        fs::write(&path, &text)
            .unwrap_or_else(|err| panic!("cannot write {}: {err}", path.display()));
        match judge(&operator, &path) {
            Ok(judged) if judged.added.is_empty() => {}
            Ok(judged) => {
                failures.push(format!(
                    "examples/{name} at v3.31.7: the operator wrote back defaults we do not \
                     render:\n  {}",
                    judged.added.join("\n  ")
                ));
                for field in judged.added {
                    added.entry(field).or_default().push(name.clone());
                }
            }
            Err(err) => failures.push(format!("examples/{name} at v3.31.7:\n{text}{err}")),
        }
    }
    eprintln!(
        "e2e operator v1.40: {} examples rendered for v3.31.7, {} reconciled without drift or \
         added defaults, {:.1}s",
        names.len(),
        names.len() - failures.len(),
        started.elapsed().as_secs_f64()
    );
    for (field, names) in &added {
        eprintln!("e2e operator v1.40: {field} ({})", names.join(", "));
    }
    assert_all_passed("operator v1.40 reconciles", &failures);
}

/// One file under `tests/e2e/operator-invalid/`: an Installation our validator refuses with the
/// code in `# ours:`, and that the operator (`# judge: operator`) or already the API server
/// (`# judge: server`) refuses with a message containing `# says:`.
struct InvalidCase {
    name: String,
    file: PathBuf,
    text: String,
    ours: String,
    judge: String,
    says: String,
}

fn invalid_cases() -> Result<Vec<InvalidCase>, String> {
    let dir = workspace_root().join("tests/e2e/operator-invalid");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|err| format!("cannot list {}: {err}", dir.display()))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let text = fs::read_to_string(&file)
                .map_err(|err| format!("cannot read {}: {err}", file.display()))?;
            let header = |key: &str| {
                text.lines()
                    .find_map(|line| line.strip_prefix(&format!("# {key}: ")))
                    .map(str::to_string)
                    .ok_or_else(|| format!("{} has no `# {key}:` line", file.display()))
            };
            Ok(InvalidCase {
                name: file
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                ours: header("ours")?,
                judge: header("judge")?,
                says: header("says")?,
                file,
                text,
            })
        })
        .collect()
}

/// Our first error on the file, as `CODE message`.
fn our_verdict(operator: &Operator, case: &InvalidCase) -> Result<String, String> {
    let ran = run(
        &operator.calico_render,
        &["validate", "-o", "json", "-f", &case.file.to_string_lossy()],
        None,
        &[],
    );
    let report: Value = serde_json::from_str(&ran.stdout)
        .map_err(|err| format!("validate -o json printed invalid JSON ({err})"))?;
    let errors: Vec<&Value> = report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["severity"] == "error")
        .collect();
    match errors.iter().find(|d| d["code"] == case.ours.as_str()) {
        Some(d) if ran.code == Some(1) => Ok(format!(
            "{} {}",
            case.ours,
            d["message"].as_str().unwrap_or("")
        )),
        _ => Err(format!(
            "calico-render validate did not refuse it with {}:\n{}",
            case.ours,
            ran.describe()
        )),
    }
}

/// What the API server or the operator says about the Installation.
fn their_verdict(operator: &Operator, case: &InvalidCase) -> Result<String, String> {
    // The case's own name: a create of another name is judged as such.
    let object = parse_yaml_stream(&case.text, &case.name)?
        .into_iter()
        .next()
        .ok_or_else(|| format!("{} holds no object", case.name))?;
    let name = object["metadata"]["name"].as_str().unwrap_or("default");
    let exists = operator
        .kubectl(&["get", "installations.operator.tigera.io", name], None)
        .ok();
    let verb = if exists { "replace" } else { "create" };
    let dry = operator.kubectl(&[verb, "--dry-run=server", "-f", "-"], Some(&case.text));
    if !dry.ok() {
        return Ok(format!(
            "API server: {}",
            dry.stderr.trim().replace('\n', " ")
        ));
    }
    if name != "default" {
        return Err(format!(
            "the API server accepted an Installation named `{name}`; only `default` is judged \
             by the operator here"
        ));
    }
    write_installation(operator, &case.text)?;
    let started = Instant::now();
    while started.elapsed() < RECONCILE_TIMEOUT {
        let seen = snapshot(operator)?;
        roll_out(operator, &seen.workloads);
        let live = seen.installation;
        let generation = &live["metadata"]["generation"];
        let mut messages: Vec<String> = Vec::new();
        if let Some(degraded) = condition(&live, "Degraded")
            .filter(|c| &c["observedGeneration"] == generation && c["status"] == "True")
        {
            messages.push(degraded["message"].as_str().unwrap_or("").to_string());
        }
        messages.extend(degraded_statuses(operator)?);
        if let Some(found) = messages.iter().find(|m| m.contains(&case.says)) {
            return Ok(format!("operator: {}", found.replace('\n', " ")));
        }
        let ready = condition(&live, "Ready")
            .is_some_and(|c| &c["observedGeneration"] == generation && c["status"] == "True");
        if ready && !live["status"]["computed"].is_null() && messages.is_empty() {
            return Err("the operator accepted it (Ready, nothing Degraded)".to_string());
        }
        thread::sleep(Duration::from_millis(400));
    }
    Err(format!(
        "the operator did not say `{}` within {}s{}",
        case.says,
        RECONCILE_TIMEOUT.as_secs(),
        operator.log_tail(LOG_LINES)
    ))
}

/// Errors in the Installation range whose real judge needs more than an Installation on the cluster, so the
/// invalid-case harness (which writes only Installation `default`) cannot put them before it.
/// Each is covered by the oracle's and our own tests instead (tests/tests/context_and_text.rs).
const NOT_JUDGED_HERE: &[(&str, &str)] = &[
    (
        "CR5020",
        "the operator checks pools against a kube-system/kubeadm-config ConfigMap, and only on \
         a cluster with no IP pools yet",
    ),
    (
        "CR5021",
        "needs a kube-system/kubeadm-config ConfigMap with an unreadable podSubnet",
    ),
    (
        "CR5022",
        "an ImageSet, not an Installation: the harness writes only Installation `default` (the \
         image tables behind it are held by tests/tests/releases.rs)",
    ),
];

#[test]
fn the_real_operator_refuses_what_validate_refuses() {
    let operators = match set_up() {
        Ok(Some(operators)) => operators,
        Ok(None) => {
            calico_render_tests::say_skipped(
                "tigera-operator cluster",
                &format!("e2e operator invalid cases: {ENV_KUBECONFIG} is not set"),
            );
            return;
        }
        Err(reason) => panic!("e2e operator: set-up failed: {reason}"),
    };
    let operator = last_cluster(&operators);
    let _lock = operator.lock();
    let cases = invalid_cases().unwrap_or_else(|err| panic!("{err}"));
    let mut failures = Vec::new();
    // Every Installation error of ours is put before the real judges at least once, except the
    // few listed in NOT_JUDGED_HERE, which say so.
    let mut uncovered = Vec::new();
    for (code, why) in NOT_JUDGED_HERE {
        calico_render_tests::say_skipped(
            "operator-invalid harness",
            &format!(
                "e2e operator invalid cases: {code} is not judged by the real operator here: {why}"
            ),
        );
    }
    for rule in calico_spec::rules::catalogue::CATALOGUE {
        if rule.code.starts_with("CR50")
            && rule.severity == Severity::Error
            && !NOT_JUDGED_HERE.iter().any(|(code, _)| *code == rule.code)
            && !cases.iter().any(|case| case.ours == rule.code)
        {
            uncovered.push(format!(
                "{} ({}) has no case under tests/e2e/operator-invalid/",
                rule.code, rule.summary
            ));
        }
    }
    let mut table = vec!["| case | calico-render validate | the real judge |".to_string()];
    table.push("| --- | --- | --- |".to_string());
    for case in &cases {
        let ours = our_verdict(operator, case);
        let theirs = their_verdict(operator, case);
        let cell = |verdict: &Result<String, String>| match verdict {
            Ok(text) | Err(text) => text.replace('|', "\\|"),
        };
        table.push(format!(
            "| {} | {} | {} |",
            case.name,
            cell(&ours),
            cell(&theirs)
        ));
        let judged_by = theirs.as_ref().map(|text| {
            if text.starts_with("API server") {
                "server"
            } else {
                "operator"
            }
        });
        match (&ours, &theirs) {
            (Ok(_), Ok(text))
                if text.contains(&case.says) && judged_by == Ok(case.judge.as_str()) => {}
            (Ok(_), Ok(text)) => failures.push(format!(
                "{}: the {} was expected to say `{}`, got: {text}",
                case.name, case.judge, case.says
            )),
            (Err(err), _) | (_, Err(err)) => failures.push(format!("{}: {err}", case.name)),
        }
    }
    eprintln!(
        "e2e operator invalid cases: {} Installations, {} agree\n{}",
        cases.len(),
        cases.len() - failures.len(),
        table.join("\n")
    );
    // The cases leave an Installation the operator refuses. Put a valid one back and wait until
    // the operator has taken it, so that the next test on this cluster (the patch steps) does
    // not start from this test's Degraded status.
    let restore = workspace_root().join("examples/ha-ebpf/cluster.yaml");
    match judge(operator, &restore) {
        Ok(judged) => eprintln!(
            "e2e operator invalid cases: examples/ha-ebpf put back, reconciled in {:.1}s",
            judged.seconds
        ),
        Err(err) => failures.push(format!(
            "after the invalid cases, the operator did not reconcile examples/ha-ebpf: {err}"
        )),
    }
    failures.extend(uncovered);
    assert_all_passed("operator invalid cases", &failures);
}
