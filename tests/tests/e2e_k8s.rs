//! End-to-end conformance of calico-render against a real kube-apiserver with Calico's CRDs.
//!
//! Our own validator and our snapshots can agree with each other and still be wrong about what a
//! cluster accepts; a real API server with the v3.32.1 CRDs loaded is the judge users face. This
//! suite drives the real `calico-render` binary and a real `kubectl` against such a server:
//!
//! - every example (`examples/*/cluster.yaml` except `invalid`) and a generated corpus of valid
//!   ClusterNetworks is rendered, both stages pass `kubectl create --dry-run=server` with
//!   kubectl's validation on, the operator stage is created for real, the calico stage is applied
//!   with `kubectl apply --server-side` over a FelixConfiguration `default` created first (as the
//!   operator would), and what the server stored is compared with what we rendered;
//! - the article's three objects, verbatim, go through the same create and read-back cycle;
//! - `calico-render patch -o kubectl` output is run for real against a live Installation (and
//!   against drifted copies of whole examples, every Calico kind by its qualified name) and must
//!   leave the desired objects on the server; a patch whose `test` guard no longer holds is
//!   refused without changing anything;
//! - every file in `tests/e2e/negative/` is rejected both by the server and by `calico-render
//!   validate`, at the same field; the harness's own comparison is checked to catch what it must.
//!
//! The suite's figures (objects created, commands applied, cases, disagreements, seconds) are
//! printed on standard error: `cargo test -p calico-render-tests -- e2e_k8s:: --nocapture`.
//!
//! # Enabling it
//!
//! The suite runs only when `CALICO_RENDER_E2E_KUBECONFIG` names a kubeconfig for a server that
//! has the CRDs loaded; `eval "$(.ci/k8s-e2e.sh up DIR)"` starts one (etcd and a current
//! kube-apiserver built from the `k8s.io/kubernetes` module pinned in `conformance/k8s/`, with
//! the v3.32.1 CRDs from `crds/v3.32.1/` as shipped, CEL rules live) and sets it, and `.ci/run`
//! does so for CI.
//! `CALICO_RENDER_E2E_KUBECTL` picks the kubectl binary (default: `kubectl` on `PATH`). Without
//! a kubeconfig every test prints how to enable it and passes, unless `CALICO_RENDER_E2E=required`
//! (set by CI), which turns a missing or unreachable server into a failure.
//!
//! # Which calico-render binary
//!
//! Cargo only hands `CARGO_BIN_EXE_*` to tests of the package that owns the binary, and this is
//! the separate `calico-render-tests` package. The test executable lives in
//! `target/<profile>/deps/`, so the binary is one level up from there; before using it
//! the suite runs `cargo build -p calico-render --bin calico-render` for that profile and target
//! directory (a no-op when it is fresh), so it never tests a stale binary. Set
//! `CALICO_RENDER_E2E_BIN` to test another binary instead.
//!
//! # Sharing the server
//!
//! The objects we render are cluster-wide singletons (`Installation default`, FelixConfiguration
//! `default`, ...), so the cases that write to the server take one process-wide lock and delete
//! what they create before and after; the dry-run-only negative cases run in parallel. Other
//! users of the same server should not create objects with these names while the suite runs.

use calico_render_tests::workspace_root;
use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::Instant;

use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Environment and set-up

/// Where the kubeconfig of the test server is; the suite runs only when this is set.
const ENV_KUBECONFIG: &str = "CALICO_RENDER_E2E_KUBECONFIG";
/// The kubectl binary to use (default: `kubectl` on `PATH`).
const ENV_KUBECTL: &str = "CALICO_RENDER_E2E_KUBECTL";
/// `required`: a missing or unreachable server fails the suite instead of skipping it.
const ENV_MODE: &str = "CALICO_RENDER_E2E";

/// The CRDs the suite needs on the server: the operator kinds we render, the native
/// `projectcalico.org/v3` kinds our calico stage targets, and the `crd.projectcalico.org/v1`
/// IPPool that `calico-render validate` also accepts.
const REQUIRED_CRDS: &[&str] = &[
    "installations.operator.tigera.io",
    "apiservers.operator.tigera.io",
    "tigerastatuses.operator.tigera.io",
    "ippools.projectcalico.org",
    "bgpconfigurations.projectcalico.org",
    "bgppeers.projectcalico.org",
    "felixconfigurations.projectcalico.org",
    "ipreservations.projectcalico.org",
    "ippools.crd.projectcalico.org",
];

/// How to get a server, printed when the suite is skipped and in set-up failures.
const HOW_TO_ENABLE: &str = "\
to run it against a private API server (the tools are cached in ~/.cache/calico-render-e2e; the
first install builds kube-apiserver, kubectl, etcd and kustomize from Go modules, see README):
    .ci/k8s-e2e.sh install
    eval \"$(.ci/k8s-e2e.sh up /tmp/calico-render-e2e)\"
    cargo test -p calico-render-tests -- e2e_k8s::
    .ci/k8s-e2e.sh down /tmp/calico-render-e2e
(.ci/run does the same, with CALICO_RENDER_E2E=required)";

/// Everything the cases need to reach the server and run our binary.
pub(crate) struct Server {
    kubeconfig: PathBuf,
    kubectl: PathBuf,
    calico_render: PathBuf,
}

/// The set-up result, computed once per test process: `Ok(None)` means "not enabled, skip".
static SETUP: OnceLock<Result<Option<Server>, String>> = OnceLock::new();

/// Serialises the cases that write to the server (our objects are cluster-wide singletons).
static SERVER_WRITES: Mutex<()> = Mutex::new(());

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("e2e")
}

/// The configured server, or `None` (after printing how to enable the suite) when it is not
/// configured and not required. Panics with the reason when set-up failed, so every case fails
/// loudly rather than passing without having run.
fn server(case: &str) -> Option<&'static Server> {
    let setup = SETUP.get_or_init(set_up);
    match setup {
        Ok(Some(server)) => Some(server),
        Ok(None) => {
            static HINT: OnceLock<()> = OnceLock::new();
            let mut hint = "";
            HINT.get_or_init(|| hint = HOW_TO_ENABLE);
            calico_render_tests::say_skipped(
                "kube-apiserver",
                &format!(
                    "e2e case `{case}`: {ENV_KUBECONFIG} is not set, so there is no real API \
                 server to test against\n{hint}"
                ),
            );
            None
        }
        Err(reason) => panic!("e2e set-up failed, so case `{case}` cannot run: {reason}"),
    }
}

/// Like [`server`], and also takes the write lock for the whole case.
pub(crate) fn server_for_writes(case: &str) -> Option<(&'static Server, MutexGuard<'static, ()>)> {
    let server = server(case)?;
    // A case that panicked while holding the lock leaves nothing we rely on behind: every case
    // deletes its objects before it starts, so a poisoned lock is still usable.
    let guard = SERVER_WRITES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Some((server, guard))
}

fn set_up() -> Result<Option<Server>, String> {
    let required = env::var(ENV_MODE).is_ok_and(|mode| mode == "required");
    let Some(kubeconfig) = env::var_os(ENV_KUBECONFIG).filter(|value| !value.is_empty()) else {
        if required {
            return Err(format!(
                "{ENV_MODE}=required but {ENV_KUBECONFIG} is not set;\n{HOW_TO_ENABLE}"
            ));
        }
        return Ok(None);
    };
    let kubeconfig = PathBuf::from(kubeconfig);
    if !kubeconfig.is_file() {
        return Err(format!(
            "{ENV_KUBECONFIG}={} is not a file;\n{HOW_TO_ENABLE}",
            kubeconfig.display()
        ));
    }
    let kubectl = env::var_os(ENV_KUBECTL)
        .filter(|value| !value.is_empty())
        .map_or_else(|| PathBuf::from("kubectl"), PathBuf::from);
    let calico_render = calico_render_tests::try_calico_render()?.to_path_buf();
    let server = Server {
        kubeconfig,
        kubectl,
        calico_render,
    };

    let ready = server.kubectl(&["get", "--raw", "/readyz"], None);
    if !ready.ok() || ready.stdout.trim() != "ok" {
        return Err(format!(
            "the API server in {} is not ready (`kubectl get --raw /readyz`):\n{}",
            server.kubeconfig.display(),
            ready.describe()
        ));
    }
    let mut args = vec!["get", "crd", "-o", "name"];
    args.extend(REQUIRED_CRDS);
    let crds = server.kubectl(&args, None);
    if !crds.ok() {
        return Err(format!(
            "the server lacks Calico CRDs this suite needs ({}); load them with \
             `.ci/k8s-e2e.sh load-crds`:\n{}",
            REQUIRED_CRDS.join(", "),
            crds.describe()
        ));
    }
    // The operator's own manifest creates this namespace, not our output: the suite stands in.
    let namespace = server.kubectl(
        &["apply", "-f", "-"],
        Some("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tigera-operator\n"),
    );
    if !namespace.ok() {
        return Err(format!(
            "cannot create the tigera-operator namespace:\n{}",
            namespace.describe()
        ));
    }
    Ok(Some(server))
}

// ---------------------------------------------------------------------------------------------
// Running commands

/// What a finished command left behind.
pub(crate) struct Ran {
    what: String,
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Ran {
    pub(crate) fn ok(&self) -> bool {
        self.code == Some(0)
    }

    /// The command, its exit status and both streams, for failure messages.
    pub(crate) fn describe(&self) -> String {
        let code = self.code.map_or_else(
            || "killed by a signal".to_string(),
            |code| format!("exit {code}"),
        );
        format!(
            "$ {}\n({code})\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.stdout.trim_end(),
            self.stderr.trim_end()
        )
    }
}

pub(crate) fn run(
    program: &Path,
    args: &[&str],
    stdin: Option<&str>,
    envs: &[(&str, &Path)],
) -> Ran {
    let what = format!(
        "{} {}",
        program.display(),
        args.iter()
            .map(|arg| shell_word(arg))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        command.env(key, value);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return Ran {
                what,
                code: None,
                stdout: String::new(),
                stderr: format!("cannot start the command: {err}"),
            };
        }
    };
    // Feed standard input from another thread so a child that writes a lot before reading
    // everything cannot deadlock against us.
    let feeder = stdin.map(|text| {
        let mut pipe = child.stdin.take().expect("stdin was requested as a pipe");
        let text = text.to_string();
        thread::spawn(move || {
            // A child that exits without reading all of its input is judged by its exit status.
            let _ = pipe.write_all(text.as_bytes());
        })
    });
    let output = child.wait_with_output();
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    match output {
        Ok(output) => Ran {
            what,
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        },
        Err(err) => Ran {
            what,
            code: None,
            stdout: String::new(),
            stderr: format!("waiting for the command failed: {err}"),
        },
    }
}

/// Quote an argument for display (failure messages only).
fn shell_word(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@".contains(c))
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

impl Server {
    fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> Ran {
        let kubeconfig = self.kubeconfig.to_string_lossy();
        let mut all = vec!["--kubeconfig", &kubeconfig];
        all.extend_from_slice(args);
        run(&self.kubectl, &all, stdin, &[])
    }

    /// A kubectl call that must succeed.
    pub(crate) fn kubectl_ok(&self, args: &[&str], stdin: Option<&str>) -> Result<Ran, String> {
        let ran = self.kubectl(args, stdin);
        if ran.ok() {
            Ok(ran)
        } else {
            Err(format!("kubectl failed:\n{}", ran.describe()))
        }
    }

    pub(crate) fn calico_render(&self, args: &[&str], stdin: Option<&str>) -> Ran {
        run(&self.calico_render, args, stdin, &[])
    }

    /// Fail with a clear message when a subcommand this case needs is still the skeleton's stub
    /// (it exits 2 saying "not implemented yet"), instead of letting the case pass or fail on
    /// something unrelated.
    fn require_subcommand(&self, subcommand: &str) -> Result<(), String> {
        let probe = self.calico_render(&[subcommand], None);
        if probe.code == Some(2) && probe.stderr.contains("not implemented yet") {
            Err(format!(
                "`calico-render {subcommand}` is still a stub on this checkout (it exits 2 with \
                 \"not implemented yet\"); this end-to-end case needs it"
            ))
        } else {
            Ok(())
        }
    }

    /// Delete the objects a YAML stream names, if they exist, without waiting for finalizers
    /// (none of our kinds has any on a server without controllers).
    pub(crate) fn delete_objects(&self, yaml: &str) -> Result<(), String> {
        if yaml.trim().is_empty() {
            return Ok(());
        }
        self.kubectl_ok(
            &["delete", "--ignore-not-found", "--wait=false", "-f", "-"],
            Some(yaml),
        )
        .map(drop)
    }

    /// Read back the objects a YAML stream names, as JSON objects in stream order.
    pub(crate) fn get_objects(&self, yaml: &str) -> Result<Vec<Value>, String> {
        let ran = self.kubectl_ok(&["get", "-o", "json", "-f", "-"], Some(yaml))?;
        let value: Value = serde_json::from_str(&ran.stdout)
            .map_err(|err| format!("kubectl get printed invalid JSON ({err}):\n{}", ran.stdout))?;
        Ok(list_items(value))
    }
}

/// The items of a `List`, or the object itself when kubectl printed a single one.
pub(crate) fn list_items(value: Value) -> Vec<Value> {
    match value {
        Value::Object(mut map) if map.get("kind").and_then(Value::as_str) == Some("List") => {
            match map.remove("items") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            }
        }
        other => vec![other],
    }
}

// ---------------------------------------------------------------------------------------------
// Comparing what the server stored with what we sent

/// Metadata the API server owns and sets on every object; everything else must match.
const SERVER_OWNED_METADATA: &[&str] = &[
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "selfLink",
];

/// The stored object with the server-owned metadata removed.
fn without_server_metadata(stored: &Value) -> Value {
    let mut stored = stored.clone();
    if let Some(metadata) = stored.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in SERVER_OWNED_METADATA {
            metadata.remove(*key);
        }
    }
    stored
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every difference between what we sent and what the server stored, one line each, naming the
/// field path and what kind of difference it is (pruned, added by a default, coerced, changed).
pub(crate) fn differences(path: &str, sent: &Value, stored: &Value, out: &mut Vec<String>) {
    match (sent, stored) {
        (Value::Object(sent), Value::Object(stored)) => {
            let keys: BTreeSet<&String> = sent.keys().chain(stored.keys()).collect();
            for key in keys {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match (sent.get(key), stored.get(key)) {
                    (Some(a), Some(b)) => differences(&child, a, b, out),
                    (Some(a), None) => {
                        out.push(format!("{child}: pruned by the server (sent {a})"))
                    }
                    (None, Some(b)) => out.push(format!(
                        "{child}: added by the server (stored {b}); a CRD default we did not send?"
                    )),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}[{index}]"), x, y, out);
            }
        }
        (a, b) if a == b => {}
        (a, b) if type_name(a) != type_name(b) => out.push(format!(
            "{path}: type changed, sent {} {a}, stored {} {b}",
            type_name(a),
            type_name(b)
        )),
        (a, b) => out.push(format!("{path}: sent {a}, stored {b}")),
    }
}

/// Check that the server stored exactly `sent` (apart from server-owned metadata).
fn check_stored(sent: &Value, stored: &Value) -> Result<(), String> {
    let mut diffs = Vec::new();
    differences("", sent, &without_server_metadata(stored), &mut diffs);
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} {} was not stored as sent:\n  {}",
            sent["kind"].as_str().unwrap_or("?"),
            sent["metadata"]["name"].as_str().unwrap_or("?"),
            diffs.join("\n  ")
        ))
    }
}

/// `base` with `overlay` merged in (objects recursively, anything else replaced), which is what
/// server-side apply of `overlay` over `base` stores when no field conflicts.
pub(crate) fn merged(base: &Value, overlay: &Value) -> Value {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            let mut out = base.clone();
            for (key, value) in overlay {
                let next = match base.get(key) {
                    Some(existing) => merged(existing, value),
                    None => value.clone(),
                };
                out.insert(key.clone(), next);
            }
            Value::Object(out)
        }
        (_, overlay) => overlay.clone(),
    }
}

fn object_key(object: &Value) -> String {
    format!(
        "{}/{} {}/{}",
        object["apiVersion"].as_str().unwrap_or(""),
        object["kind"].as_str().unwrap_or(""),
        object["metadata"]["namespace"].as_str().unwrap_or(""),
        object["metadata"]["name"].as_str().unwrap_or("")
    )
}

pub(crate) fn parse_yaml_stream(text: &str, what: &str) -> Result<Vec<Value>, String> {
    serde_saphyr::from_multiple::<Value>(text)
        .map(|docs| docs.into_iter().filter(|doc| !doc.is_null()).collect())
        .map_err(|err| format!("{what} is not YAML: {err}"))
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|err| format!("cannot read {}: {err}", path.display()))
}

/// Report several independent failures at once, so one CI run shows all of them.
pub(crate) fn assert_all_passed(suite: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{suite}: {} case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Creating a bundle for real and reading it back

/// What the operator itself writes into FelixConfiguration `default` on a new kubeadm cluster
/// with the given `linuxDataplane` (calico-model.md section 3.3), created before our calico
/// stage is applied, as in a real cluster. Our rendering must not fight over these fields.
pub(crate) fn operator_felix_configuration(dataplane: &str) -> Value {
    let bpf = dataplane == "BPF";
    let nftables_mode = match dataplane {
        "BPF" => "Enabled",
        "Nftables" => "Auto",
        _ => "Disabled",
    };
    json!({
        "apiVersion": "projectcalico.org/v3",
        "kind": "FelixConfiguration",
        "metadata": {
            "name": "default",
            "annotations": {"operator.tigera.io/bpfEnabled": if bpf { "true" } else { "false" }},
        },
        "spec": {
            "bpfEnabled": bpf,
            "healthPort": 9099,
            "nftablesMode": nftables_mode,
            "vxlanPort": 4789,
            "vxlanVNI": 4096,
        },
    })
}

/// Counts for the closing report.
#[derive(Default)]
struct Counts {
    objects_created: usize,
}

/// The full cycle for one bundle split in two stages: dry-run both with kubectl's validation on,
/// create the operator stage, apply the calico stage server-side over an operator-made
/// FelixConfiguration `default`, read everything back and compare, re-apply and check nothing
/// moved, then delete it all.
fn create_and_read_back(
    server: &Server,
    operator_yaml: &str,
    calico_yaml: &str,
    expected: &[Value],
    counts: &mut Counts,
) -> Result<(), String> {
    let all_yaml = format!("{operator_yaml}\n---\n{calico_yaml}");
    let operator_felix = operator_felix_configuration(linux_dataplane(expected));
    let operator_felix_yaml = operator_felix.to_string();
    // Everything this case may leave on the server, for the deletes before and after it.
    let everything = format!("{all_yaml}\n---\n{operator_felix_yaml}");
    server.delete_objects(&everything)?;

    let result = (|| {
        let has_operator = !operator_yaml.trim().is_empty();
        let has_calico = !calico_yaml.trim().is_empty();
        for (stage, yaml, present) in [
            ("operator", operator_yaml, has_operator),
            ("calico", calico_yaml, has_calico),
        ] {
            if present {
                server
                    .kubectl_ok(
                        &["create", "--dry-run=server", "--validate=strict", "-f", "-"],
                        Some(yaml),
                    )
                    .map_err(|err| format!("server dry-run of the {stage} stage: {err}"))?;
            }
        }
        install_stages(server, operator_yaml, calico_yaml, &operator_felix_yaml)?;

        let stored = server.get_objects(&all_yaml)?;
        if stored.len() != expected.len() {
            return Err(format!(
                "sent {} objects, kubectl get returned {}",
                expected.len(),
                stored.len()
            ));
        }
        let mut problems = Vec::new();
        for (sent, stored) in expected.iter().zip(&stored) {
            let want = expected_after_install(sent, &operator_felix);
            if let Err(problem) = check_stored(&want, stored) {
                problems.push(problem);
            }
        }
        if !problems.is_empty() {
            return Err(problems.join("\n"));
        }
        counts.objects_created += stored.len();

        // Applying the same output again must change nothing: no resourceVersion moves.
        if has_calico {
            server
                .kubectl_ok(
                    &[
                        "apply",
                        "--server-side",
                        "--field-manager=calico-render-e2e",
                        "-f",
                        "-",
                    ],
                    Some(calico_yaml),
                )
                .map_err(|err| format!("re-applying the calico stage: {err}"))?;
            let again = server.get_objects(&all_yaml)?;
            for (before, after) in stored.iter().zip(&again) {
                let (b, a) = (
                    &before["metadata"]["resourceVersion"],
                    &after["metadata"]["resourceVersion"],
                );
                if b != a {
                    return Err(format!(
                        "re-applying the same calico stage changed {} (resourceVersion {b} -> {a})",
                        object_key(before)
                    ));
                }
            }
        }
        Ok(())
    })();

    let cleanup = server.delete_objects(&everything);
    result.and(cleanup)
}

/// Put a bundle on the server as a user of a real cluster would: `kubectl create` the operator
/// stage, then, once the operator has made FelixConfiguration `default` (simulated here with
/// `operator_felix_yaml`, under the operator's field manager), `kubectl apply --server-side`
/// the calico stage over it.
pub(crate) fn install_stages(
    server: &Server,
    operator_yaml: &str,
    calico_yaml: &str,
    operator_felix_yaml: &str,
) -> Result<(), String> {
    if !operator_yaml.trim().is_empty() {
        server
            .kubectl_ok(
                &["create", "--validate=strict", "-f", "-"],
                Some(operator_yaml),
            )
            .map_err(|err| format!("creating the operator stage: {err}"))?;
    }
    if !calico_yaml.trim().is_empty() {
        server
            .kubectl_ok(
                &["create", "--field-manager=tigera-operator", "-f", "-"],
                Some(operator_felix_yaml),
            )
            .map_err(|err| format!("creating the operator's FelixConfiguration: {err}"))?;
        server
            .kubectl_ok(
                &[
                    "apply",
                    "--server-side",
                    "--field-manager=calico-render-e2e",
                    "--validate=strict",
                    "-f",
                    "-",
                ],
                Some(calico_yaml),
            )
            .map_err(|err| format!("apply --server-side of the calico stage: {err}"))?;
    }
    Ok(())
}

/// What the server holds for `sent` after [`install_stages`]: FelixConfiguration `default` is
/// our fields merged into the operator's, everything else is exactly what we sent.
fn expected_after_install(sent: &Value, operator_felix: &Value) -> Value {
    if sent["kind"] == "FelixConfiguration" && sent["metadata"]["name"] == "default" {
        merged(operator_felix, sent)
    } else {
        sent.clone()
    }
}

/// The Installation's `linuxDataplane` among `objects` (the operator's default, `Iptables`, when
/// none is set).
pub(crate) fn linux_dataplane(objects: &[Value]) -> &str {
    objects
        .iter()
        .find(|object| object["kind"] == "Installation")
        .and_then(|installation| installation["spec"]["calicoNetwork"]["linuxDataplane"].as_str())
        .unwrap_or("Iptables")
}

/// The items of `calico-render render -o json` (a `v1` `List`).
fn render_json(server: &Server, input: &Path, stage: &str) -> Result<Vec<Value>, String> {
    let path = input.to_string_lossy();
    let ran = server.calico_render(
        &["render", "-f", &path, "--stage", stage, "-o", "json"],
        None,
    );
    if !ran.ok() {
        return Err(format!("render failed:\n{}", ran.describe()));
    }
    let list: Value = serde_json::from_str(&ran.stdout)
        .map_err(|err| format!("render -o json printed invalid JSON ({err})"))?;
    if list["apiVersion"] != "v1" || list["kind"] != "List" {
        return Err(format!(
            "render -o json did not print a v1 List: {}",
            ran.stdout
        ));
    }
    Ok(list_items(list))
}

pub(crate) fn render_yaml(server: &Server, input: &Path, stage: &str) -> Result<String, String> {
    let path = input.to_string_lossy();
    let ran = server.calico_render(&["render", "-f", &path, "--stage", stage], None);
    if ran.ok() {
        Ok(ran.stdout)
    } else {
        Err(format!("render failed:\n{}", ran.describe()))
    }
}

/// Render one ClusterNetwork file in both stages and run the full server cycle on it.
fn check_rendered(server: &Server, input: &Path, counts: &mut Counts) -> Result<(), String> {
    let operator_yaml = render_yaml(server, input, "operator")?;
    let calico_yaml = render_yaml(server, input, "calico")?;
    let all = render_json(server, input, "all")?;
    let operator = render_json(server, input, "operator")?;
    let calico = render_json(server, input, "calico")?;
    // The stages split the bundle: operator objects first, then the calico ones, nothing lost.
    let split: Vec<Value> = operator.iter().chain(&calico).cloned().collect();
    if split != all {
        return Err(format!(
            "--stage operator + --stage calico is not --stage all:\n  operator: {:?}\n  calico: {:?}\n  all: {:?}",
            operator.iter().map(object_key).collect::<Vec<_>>(),
            calico.iter().map(object_key).collect::<Vec<_>>(),
            all.iter().map(object_key).collect::<Vec<_>>()
        ));
    }
    // The YAML we pipe to kubectl must mean the same as the JSON we compare against.
    let from_yaml = parse_yaml_stream(
        &format!("{operator_yaml}\n---\n{calico_yaml}"),
        "render output",
    )?;
    if from_yaml != all {
        return Err("render's YAML and JSON forms hold different objects".to_string());
    }
    create_and_read_back(server, &operator_yaml, &calico_yaml, &all, counts)
}

/// `examples/*/cluster.yaml`, except the deliberately invalid one, in name order.
pub(crate) fn example_inputs() -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = fs::read_dir(workspace_root().join("examples"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.file_name() != "invalid")
                .map(|entry| entry.path().join("cluster.yaml"))
                .filter(|path| path.is_file())
                .collect()
        })
        .unwrap_or_default();
    inputs.sort();
    inputs
}

#[test]
fn article_objects_verbatim_are_stored_as_written() {
    let Some((server, _lock)) = server_for_writes("article_objects_verbatim") else {
        return;
    };
    let path = fixtures().join("article/article.yaml");
    let text = read(&path).unwrap_or_else(|err| panic!("{err}"));
    let expected =
        parse_yaml_stream(&text, "the article fixture").unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(expected.len(), 3, "the article has three objects");
    let mut counts = Counts::default();
    // All three belong to the operator stage: nothing here needs the Calico API.
    create_and_read_back(server, &text, "", &expected, &mut counts)
        .unwrap_or_else(|err| panic!("the article's objects: {err}"));
    eprintln!(
        "e2e article: {} objects created and read back",
        counts.objects_created
    );
}

#[test]
fn every_example_renders_to_objects_the_server_stores_unchanged() {
    let Some((server, _lock)) = server_for_writes("examples") else {
        return;
    };
    let started = Instant::now();
    if let Err(err) = server.require_subcommand("render") {
        panic!("{err}");
    }
    let inputs = example_inputs();
    assert!(
        !inputs.is_empty(),
        "no examples/*/cluster.yaml found under {}",
        workspace_root().display()
    );
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    let mut known = Vec::new();
    for input in &inputs {
        let name = input
            .strip_prefix(workspace_root())
            .unwrap_or(input)
            .display()
            .to_string();
        let listed = KNOWN_EXAMPLE_REFUSALS
            .iter()
            .find(|(example, _, _)| input.ends_with(format!("{example}/cluster.yaml")));
        match (check_rendered(server, input, &mut counts), listed) {
            (Ok(()), None) => {}
            (Err(err), Some((_, says, why))) if err.contains(says) => {
                known.push(format!("{name}: the server says `{says}`: {why}"));
            }
            (Err(err), _) => failures.push(format!("{name}: {err}")),
            (Ok(()), Some(_)) => failures.push(format!(
                "{name}: the server now stores it unchanged: remove its entry from \
                 KNOWN_EXAMPLE_REFUSALS"
            )),
        }
    }
    for (example, _, _) in KNOWN_EXAMPLE_REFUSALS {
        if !inputs
            .iter()
            .any(|input| input.ends_with(format!("{example}/cluster.yaml")))
        {
            failures.push(format!(
                "KNOWN_EXAMPLE_REFUSALS names examples/{example}, which is not an example"
            ));
        }
    }
    for line in &known {
        eprintln!("e2e examples: known refusal (the server refuses what we render): {line}");
    }
    eprintln!(
        "e2e examples: {} inputs ({} known refusals), {} objects created and read back, {:.1}s",
        inputs.len(),
        known.len(),
        counts.objects_created,
        started.elapsed().as_secs_f64()
    );
    assert_all_passed("examples", &failures);
}

/// Examples whose rendering the API server refuses, with a piece of its message and the reason.
/// Reported on every run; an example that starts to pass fails the test, so the entry goes as
/// soon as the product is fixed, and any other refusal fails it too.
const KNOWN_EXAMPLE_REFUSALS: &[(&str, &str, &str)] = &[];

/// The read-back comparison is only worth something if it can fail: each entry is a pair of
/// (sent, stored) objects and the one difference line it must report.
#[test]
fn the_comparison_names_every_kind_of_difference() {
    fn check(sent: Value, stored: Value, expected: &[&str]) {
        let mut found = Vec::new();
        differences("", &sent, &without_server_metadata(&stored), &mut found);
        assert_eq!(found, expected, "sent {sent}, stored {stored}");
    }
    let meta = json!({"name": "default", "uid": "u", "resourceVersion": "7", "generation": 1});
    check(
        json!({"metadata": {"name": "default"}, "spec": {"mtu": 1450}}),
        json!({"metadata": meta, "spec": {"mtu": 1450}}),
        &[],
    );
    check(
        json!({"spec": {"bogus": true}}),
        json!({"spec": {}}),
        &["spec.bogus: pruned by the server (sent true)"],
    );
    check(
        json!({"spec": {"pools": [{"name": "a"}]}}),
        json!({"spec": {"pools": [{"name": "a", "disableBGPExport": false}]}}),
        &[
            "spec.pools[0].disableBGPExport: added by the server (stored false); a CRD default \
             we did not send?",
        ],
    );
    check(
        json!({"data": {"KUBERNETES_SERVICE_PORT": "6443"}}),
        json!({"data": {"KUBERNETES_SERVICE_PORT": 6443}}),
        &["data.KUBERNETES_SERVICE_PORT: type changed, sent string \"6443\", stored number 6443"],
    );
    check(
        json!({"spec": {"bgp": "Disabled"}}),
        json!({"spec": {"bgp": "Enabled"}}),
        &["spec.bgp: sent \"Disabled\", stored \"Enabled\""],
    );
    check(
        json!({"spec": {"list": [1, 2]}}),
        json!({"spec": {"list": [1]}}),
        &["spec.list: sent [1,2], stored [1]"],
    );
}

/// The same, against the server: a CRD default we did not send, and a field the CRD does not
/// know, must each make the create-and-read-back cycle fail.
#[test]
fn the_server_cycle_catches_unsent_defaults_and_unknown_fields() {
    let Some((server, _lock)) = server_for_writes("server cycle self-check") else {
        return;
    };
    fn check(server: &Server, yaml: &str, expected: &str) {
        let sent =
            parse_yaml_stream(yaml, "the self-check input").unwrap_or_else(|err| panic!("{err}"));
        let mut counts = Counts::default();
        match create_and_read_back(server, yaml, "", &sent, &mut counts) {
            Ok(()) => panic!("the cycle accepted an object it must flag ({expected}):\n{yaml}"),
            Err(err) => assert!(
                err.contains(expected),
                "the cycle failed, but without `{expected}`:\n{err}"
            ),
        }
    }
    let pool_without_export = "apiVersion: operator.tigera.io/v1\nkind: Installation\n\
        metadata:\n  name: default\nspec:\n  calicoNetwork:\n    ipPools:\n\
        \x20     - name: default-ipv4-ippool\n        cidr: 172.20.0.0/16\n";
    check(
        server,
        pool_without_export,
        "spec.calicoNetwork.ipPools[0].disableBGPExport: added by the server (stored false)",
    );
    let unknown_field = "apiVersion: operator.tigera.io/v1\nkind: Installation\n\
        metadata:\n  name: default\nspec:\n  calicoNetwork:\n    bogusField: 1\n";
    check(server, unknown_field, "unknown field");
}

// ---------------------------------------------------------------------------------------------
// Patches for real

/// What `calico-render patch` must do for a case.
enum PatchOutcome {
    /// Print this many `kubectl patch` commands; once they ran, the server holds `expected`
    /// (the DESIRED file unless given).
    Applied {
        commands: usize,
        expected: Option<&'static str>,
    },
    /// Nothing differs: no command, exit 0.
    NoChange,
    /// The change cannot be made in place: exit 1, nothing on stdout.
    Refused,
}

/// One patch case: LIVE and DESIRED Installations under `tests/e2e/patch/`.
struct PatchCase {
    name: &'static str,
    live: &'static str,
    desired: &'static str,
    /// Flags added to `calico-render patch`.
    flags: &'static [&'static str],
    outcome: PatchOutcome,
}

const PATCH_CASES: &[PatchCase] = &[
    PatchCase {
        name: "the article's disableBGPExport change",
        live: "installation-export-on.yaml",
        desired: "installation-article.yaml",
        flags: &[],
        outcome: PatchOutcome::Applied {
            commands: 1,
            expected: None,
        },
    },
    PatchCase {
        name: "add a second pool",
        live: "installation-article.yaml",
        desired: "installation-two-pools.yaml",
        flags: &[],
        outcome: PatchOutcome::Applied {
            commands: 1,
            expected: None,
        },
    },
    PatchCase {
        name: "remove the second pool without --remove-pools",
        live: "installation-two-pools.yaml",
        desired: "installation-article.yaml",
        flags: &[],
        outcome: PatchOutcome::Refused,
    },
    PatchCase {
        name: "remove the second pool",
        live: "installation-two-pools.yaml",
        desired: "installation-article.yaml",
        flags: &["--remove-pools"],
        outcome: PatchOutcome::Applied {
            commands: 1,
            expected: None,
        },
    },
    PatchCase {
        name: "set the MTU",
        live: "installation-article.yaml",
        desired: "installation-mtu.yaml",
        flags: &[],
        outcome: PatchOutcome::Applied {
            commands: 1,
            expected: None,
        },
    },
    PatchCase {
        name: "enable BGP",
        live: "installation-article.yaml",
        desired: "installation-bgp-enabled.yaml",
        flags: &[],
        outcome: PatchOutcome::Applied {
            commands: 1,
            expected: None,
        },
    },
    PatchCase {
        name: "live object carrying the operator's written-back defaults",
        live: "installation-operator-defaults.yaml",
        desired: "installation-article.yaml",
        flags: &[],
        outcome: PatchOutcome::Applied {
            commands: 1,
            expected: Some("expected-operator-defaults.yaml"),
        },
    },
    PatchCase {
        name: "pools listed in another order",
        live: "installation-two-pools.yaml",
        desired: "installation-two-pools-reordered.yaml",
        flags: &[],
        outcome: PatchOutcome::NoChange,
    },
    PatchCase {
        name: "already as desired",
        live: "installation-article.yaml",
        desired: "installation-article.yaml",
        flags: &[],
        outcome: PatchOutcome::NoChange,
    },
    PatchCase {
        name: "a pool's CIDR cannot change in place",
        live: "installation-article.yaml",
        desired: "installation-cidr-moved.yaml",
        flags: &[],
        outcome: PatchOutcome::Refused,
    },
];

/// A scratch directory with a `kubectl` that is the configured one, so the printed commands run
/// exactly as a user would paste them (`kubectl patch ...`) against the test server.
struct Shell {
    dir: tempfile::TempDir,
}

impl Shell {
    fn new(server: &Server) -> Result<Shell, String> {
        let dir = tempfile::tempdir().map_err(|err| format!("cannot make a scratch dir: {err}"))?;
        let kubectl = resolve_program(&server.kubectl)?;
        let wrapper = dir.path().join("kubectl");
        // Named `kubectl` whatever the configured binary is called (e.g. `kubectl-1.34`).
        fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nexec {} \"$@\"\n",
                shell_word(&kubectl.to_string_lossy())
            ),
        )
        .map_err(|err| format!("cannot write {}: {err}", wrapper.display()))?;
        make_executable(&wrapper)?;
        Ok(Shell { dir })
    }

    fn file(&self, name: &str, text: &str) -> Result<PathBuf, String> {
        let path = self.dir.path().join(name);
        fs::write(&path, text).map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        Ok(path)
    }

    /// Run a script with `sh -e`, our `kubectl` first on `PATH` and the test server's kubeconfig.
    fn run(&self, server: &Server, script: &str) -> Ran {
        let path = env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.dir.path().to_path_buf()];
        dirs.extend(env::split_paths(&path));
        let path = env::join_paths(dirs).unwrap_or(path);
        run(
            Path::new("sh"),
            &["-e", "-c", script],
            None,
            &[
                ("PATH", Path::new(&path)),
                ("KUBECONFIG", server.kubeconfig.as_path()),
            ],
        )
    }
}

fn resolve_program(program: &Path) -> Result<PathBuf, String> {
    if program.components().count() > 1 {
        return Ok(program.to_path_buf());
    }
    let path = env::var_os("PATH").unwrap_or_default();
    env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| format!("{} is not on PATH", program.display()))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .map_err(|err| format!("cannot make {} executable: {err}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<(), String> {
    Ok(())
}

/// The Installation `default` as stored, as JSON.
fn live_installation(server: &Server) -> Result<Value, String> {
    let ran = server.kubectl_ok(
        &[
            "get",
            "installations.operator.tigera.io",
            "default",
            "-o",
            "json",
        ],
        None,
    )?;
    serde_json::from_str(&ran.stdout)
        .map_err(|err| format!("kubectl get printed invalid JSON: {err}"))
}

fn installation_fixture(name: &str) -> Result<(String, Value), String> {
    let text = read(&fixtures().join("patch").join(name))?;
    let mut docs = parse_yaml_stream(&text, name)?;
    if docs.len() != 1 {
        return Err(format!("{name} must hold exactly one object"));
    }
    Ok((text, docs.remove(0)))
}

/// Replace the Installation `default` on the server with a fixture (create, no apply: the
/// object must carry exactly the fixture's fields).
fn reset_installation(server: &Server, text: &str) -> Result<(), String> {
    server.kubectl_ok(
        &[
            "delete",
            "installations.operator.tigera.io",
            "default",
            "--ignore-not-found",
            "--wait=false",
        ],
        None,
    )?;
    server
        .kubectl_ok(&["create", "--validate=strict", "-f", "-"], Some(text))
        .map(drop)
}

/// The lines of `calico-render patch -o kubectl` output, each checked to be a `kubectl patch`
/// command (never anything else the shell would run).
fn patch_commands(stdout: &str) -> Result<Vec<&str>, String> {
    let commands: Vec<&str> = stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    match commands
        .iter()
        .find(|line| !line.starts_with("kubectl patch "))
    {
        Some(line) => Err(format!(
            "patch -o kubectl printed a line that is not a kubectl patch command: {line}"
        )),
        None => Ok(commands),
    }
}

fn check_patch_case(server: &Server, shell: &Shell, case: &PatchCase) -> Result<usize, String> {
    let (live_text, _) = installation_fixture(case.live)?;
    let (_, desired) = installation_fixture(case.desired)?;
    reset_installation(server, &live_text)?;
    // Hand calico-render the live object as a user would get it: with the server's metadata.
    let live_yaml = server
        .kubectl_ok(
            &[
                "get",
                "installations.operator.tigera.io",
                "default",
                "-o",
                "yaml",
            ],
            None,
        )?
        .stdout;
    let live_file = shell.file("live.yaml", &live_yaml)?;
    let desired_file = fixtures().join("patch").join(case.desired);
    let before = live_installation(server)?;
    let desired_arg = desired_file.to_string_lossy();
    let live_arg = live_file.to_string_lossy();
    let mut args = vec![
        "patch",
        "-f",
        &desired_arg,
        "--live",
        &live_arg,
        "-o",
        "kubectl",
    ];
    args.extend_from_slice(case.flags);
    let ran = server.calico_render(&args, None);
    match &case.outcome {
        PatchOutcome::Refused => {
            if ran.code != Some(1) || !ran.stdout.trim().is_empty() {
                return Err(format!(
                    "expected a refusal (exit 1, nothing on stdout):\n{}",
                    ran.describe()
                ));
            }
            Ok(0)
        }
        PatchOutcome::NoChange => {
            if !ran.ok() || !patch_commands(&ran.stdout)?.is_empty() {
                return Err(format!(
                    "expected no command (exit 0, nothing to patch):\n{}",
                    ran.describe()
                ));
            }
            Ok(0)
        }
        PatchOutcome::Applied { commands, expected } => {
            if !ran.ok() {
                return Err(format!("patch failed:\n{}", ran.describe()));
            }
            let lines = patch_commands(&ran.stdout)?;
            if lines.len() != *commands {
                return Err(format!(
                    "expected {commands} command(s), got {}:\n{}",
                    lines.len(),
                    ran.stdout
                ));
            }
            let applied = shell.run(server, &ran.stdout);
            if !applied.ok() {
                return Err(format!(
                    "the server refused the printed command(s):\n{}",
                    applied.describe()
                ));
            }
            let want = match expected {
                Some(name) => installation_fixture(name)?.1,
                None => desired,
            };
            let after = live_installation(server)?;
            if after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"] {
                return Err("the commands ran but the stored object did not change".to_string());
            }
            let mut diffs = Vec::new();
            differences("spec", &want["spec"], &after["spec"], &mut diffs);
            if diffs.is_empty() {
                Ok(lines.len())
            } else {
                Err(format!(
                    "after the patch the stored spec differs from the desired one:\n  {}\ncommands:\n{}",
                    diffs.join("\n  "),
                    ran.stdout
                ))
            }
        }
    }
}

#[test]
fn patches_apply_on_the_real_server_and_reach_the_desired_installation() {
    let Some((server, _lock)) = server_for_writes("patches") else {
        return;
    };
    let started = Instant::now();
    if let Err(err) = server.require_subcommand("patch") {
        panic!("{err}");
    }
    let shell = Shell::new(server).unwrap_or_else(|err| panic!("{err}"));
    let mut applied = 0;
    let mut failures = Vec::new();
    for case in PATCH_CASES {
        match check_patch_case(server, &shell, case) {
            Ok(count) => applied += count,
            Err(err) => failures.push(format!(
                "{} (live {}, desired {}): {err}",
                case.name, case.live, case.desired
            )),
        }
    }
    // Leave nothing behind for the next case.
    let cleanup = server.kubectl(
        &[
            "delete",
            "installations.operator.tigera.io",
            "default",
            "--ignore-not-found",
            "--wait=false",
        ],
        None,
    );
    if !cleanup.ok() {
        failures.push(format!("cleanup failed:\n{}", cleanup.describe()));
    }
    eprintln!(
        "e2e patches: {} cases, {applied} kubectl patch commands applied, {:.1}s",
        PATCH_CASES.len(),
        started.elapsed().as_secs_f64()
    );
    assert_all_passed("patches", &failures);
}

/// Drift on a whole rendered example: the example's bundle is created, the listed fields are
/// changed behind our back (`kubectl patch TYPE NAME --type=json -p OPS`), and `calico-render
/// patch -f cluster.yaml --live <what the server holds> -o kubectl` must print exactly one
/// command per drifted object that brings every object back to what we render.
struct DriftCase {
    example: &'static str,
    /// Text replacements made in the example's `cluster.yaml` first (`from`, `to`), for what a
    /// current server refuses in the example as it is (see `KNOWN_EXAMPLE_REFUSALS`).
    edits: &'static [(&'static str, &'static str)],
    drift: &'static [(&'static str, &'static str, &'static str)],
}

const DRIFT_CASES: &[DriftCase] = &[
    DriftCase {
        // The article's own `kubectl patch` line, with the pool name guard in front.
        example: "ha-ebpf",
        edits: &[],
        drift: &[(
            "installations.operator.tigera.io",
            "default",
            r#"[{"op":"replace","path":"/spec/calicoNetwork/ipPools/0/disableBGPExport","value":false}]"#,
        )],
    },
    DriftCase {
        // Every projectcalico.org/v3 kind the example renders, patched by its qualified name.
        example: "bgp-loadbalancer",
        edits: &[],
        drift: &[
            (
                "installations.operator.tigera.io",
                "default",
                r#"[{"op":"replace","path":"/spec/calicoNetwork/ipPools/0/disableBGPExport","value":false}]"#,
            ),
            (
                "felixconfigurations.projectcalico.org",
                "default",
                r#"[{"op":"replace","path":"/spec/bpfExternalServiceMode","value":"Tunnel"}]"#,
            ),
            (
                "bgpconfigurations.projectcalico.org",
                "default",
                r#"[{"op":"replace","path":"/spec/asNumber","value":64512}]"#,
            ),
            (
                "bgppeers.projectcalico.org",
                "router",
                r#"[{"op":"replace","path":"/spec/asNumber","value":65000}]"#,
            ),
        ],
    },
];

fn check_drift_case(server: &Server, shell: &Shell, case: &DriftCase) -> Result<usize, String> {
    let example = workspace_root()
        .join("examples")
        .join(case.example)
        .join("cluster.yaml");
    let mut text = read(&example)?;
    for (from, to) in case.edits {
        if !text.contains(from) {
            return Err(format!("{} has no `{from}` to replace", example.display()));
        }
        text = text.replace(from, to);
    }
    let input = shell.file(&format!("{}-cluster.yaml", case.example), &text)?;
    let rendered = render_json(server, &input, "all")?;
    let operator_yaml = render_yaml(server, &input, "operator")?;
    let calico_yaml = render_yaml(server, &input, "calico")?;
    let yaml = format!("{operator_yaml}\n---\n{calico_yaml}");
    let operator_felix = operator_felix_configuration(linux_dataplane(&rendered));
    let operator_felix_yaml = operator_felix.to_string();
    let everything = format!("{yaml}\n---\n{operator_felix_yaml}");
    server.delete_objects(&everything)?;
    let result = (|| {
        install_stages(server, &operator_yaml, &calico_yaml, &operator_felix_yaml)?;
        for (resource, name, ops) in case.drift {
            server
                .kubectl_ok(&["patch", resource, name, "--type=json", "-p", ops], None)
                .map_err(|err| format!("introducing the drift: {err}"))?;
        }
        let live = server.kubectl_ok(&["get", "-o", "yaml", "-f", "-"], Some(&yaml))?;
        let live_file = shell.file(&format!("live-{}.yaml", case.example), &live.stdout)?;
        let ran = server.calico_render(
            &[
                "patch",
                "-f",
                &input.to_string_lossy(),
                "--live",
                &live_file.to_string_lossy(),
                "-o",
                "kubectl",
            ],
            None,
        );
        if !ran.ok() {
            return Err(format!("patch failed:\n{}", ran.describe()));
        }
        let commands = patch_commands(&ran.stdout)?;
        if commands.len() != case.drift.len() {
            return Err(format!(
                "expected {} command(s), one per drifted object, got {}:\n{}",
                case.drift.len(),
                commands.len(),
                ran.stdout
            ));
        }
        let applied = shell.run(server, &ran.stdout);
        if !applied.ok() {
            return Err(format!(
                "the server refused the printed command(s):\n{}",
                applied.describe()
            ));
        }
        let stored = server.get_objects(&yaml)?;
        let problems: Vec<String> = rendered
            .iter()
            .zip(&stored)
            .filter_map(|(sent, stored)| {
                check_stored(&expected_after_install(sent, &operator_felix), stored).err()
            })
            .collect();
        if problems.is_empty() {
            Ok(commands.len())
        } else {
            Err(format!(
                "after the patch the objects are not back to what we render:\n{}\ncommands:\n{}",
                problems.join("\n"),
                ran.stdout
            ))
        }
    })();
    let cleanup = server.delete_objects(&everything);
    result.and_then(|count| cleanup.map(|()| count))
}

#[test]
fn patches_bring_a_drifted_example_back_to_what_we_render() {
    let Some((server, _lock)) = server_for_writes("drifted examples") else {
        return;
    };
    let started = Instant::now();
    for subcommand in ["render", "patch"] {
        if let Err(err) = server.require_subcommand(subcommand) {
            panic!("{err}");
        }
    }
    let shell = Shell::new(server).unwrap_or_else(|err| panic!("{err}"));
    let mut applied = 0;
    let mut failures = Vec::new();
    for case in DRIFT_CASES {
        match check_drift_case(server, &shell, case) {
            Ok(count) => applied += count,
            Err(err) => failures.push(format!("examples/{}: {err}", case.example)),
        }
    }
    eprintln!(
        "e2e drift: {} examples, {applied} kubectl patch commands applied, {:.1}s",
        DRIFT_CASES.len(),
        started.elapsed().as_secs_f64()
    );
    assert_all_passed("drifted examples", &failures);
}

/// A patch computed against one state of the pool list must be refused by the server once the
/// list moved under it (its `test` guard on the pool name fails), and must change nothing.
fn check_guarded_patch(server: &Server, shell: &Shell) -> Result<(), String> {
    let (live_text, _) = installation_fixture("installation-two-pools.yaml")?;
    reset_installation(server, &live_text)?;
    let live_yaml = server
        .kubectl_ok(
            &[
                "get",
                "installations.operator.tigera.io",
                "default",
                "-o",
                "yaml",
            ],
            None,
        )?
        .stdout;
    let live_file = shell.file("live-two-pools.yaml", &live_yaml)?;
    // DESIRED drops the second pool and changes nothing else: a guarded op on ipPools/1
    // (removing a pool is opted into; without `--remove-pools` patch refuses it, a case of
    // PATCH_CASES).
    let desired_file = fixtures().join("patch/installation-article.yaml");
    let ran = server.calico_render(
        &[
            "patch",
            "-f",
            &desired_file.to_string_lossy(),
            "--live",
            &live_file.to_string_lossy(),
            "-o",
            "json",
            "--remove-pools",
        ],
        None,
    );
    if !ran.ok() {
        return Err(format!("patch failed:\n{}", ran.describe()));
    }
    let patch: Value = serde_json::from_str(&ran.stdout).map_err(|err| {
        format!(
            "patch -o json printed invalid JSON ({err}):\n{}",
            ran.stdout
        )
    })?;
    let has_guard = patch.as_array().is_some_and(|ops| {
        ops.iter().any(|op| {
            op["op"] == "test"
                && op["path"]
                    .as_str()
                    .is_some_and(|path| path.starts_with("/spec/calicoNetwork/ipPools/"))
        })
    });
    if !has_guard {
        return Err(format!(
            "the patch has no `test` guard on a pool: {}",
            ran.stdout
        ));
    }
    // Someone else inserts a pool at the front: every index moves by one.
    let insert = json!([{
        "op": "add",
        "path": "/spec/calicoNetwork/ipPools/0",
        "value": {"name": "inserted-ipv4-ippool", "cidr": "172.23.0.0/16", "encapsulation": "VXLAN"},
    }]);
    server.kubectl_ok(
        &[
            "patch",
            "installations.operator.tigera.io",
            "default",
            "--type=json",
            "-p",
            &insert.to_string(),
        ],
        None,
    )?;
    let moved = live_installation(server)?;
    let stale = server.kubectl(
        &[
            "patch",
            "installations.operator.tigera.io",
            "default",
            "--type=json",
            "-p",
            ran.stdout.trim(),
        ],
        None,
    );
    if stale.ok() {
        return Err(format!(
            "the server accepted a patch whose guard no longer holds:\n{}",
            stale.describe()
        ));
    }
    let after = live_installation(server)?;
    if after != moved {
        let mut diffs = Vec::new();
        differences("", &moved, &after, &mut diffs);
        return Err(format!(
            "the refused patch changed the object:\n  {}",
            diffs.join("\n  ")
        ));
    }
    Ok(())
}

#[test]
fn a_patch_whose_pool_guard_fails_is_refused_and_changes_nothing() {
    let Some((server, _lock)) = server_for_writes("guarded patch") else {
        return;
    };
    if let Err(err) = server.require_subcommand("patch") {
        panic!("{err}");
    }
    let shell = Shell::new(server).unwrap_or_else(|err| panic!("{err}"));
    let result = check_guarded_patch(server, &shell);
    let cleanup = server.kubectl(
        &[
            "delete",
            "installations.operator.tigera.io",
            "default",
            "--ignore-not-found",
            "--wait=false",
        ],
        None,
    );
    result.unwrap_or_else(|err| panic!("guarded patch: {err}"));
    assert!(cleanup.ok(), "cleanup failed:\n{}", cleanup.describe());
}

/// The IPPool CRD's transition rules (`self == oldSelf` on `cidr` and `blockSize`), live on a
/// current server: an in-place change of either is refused by the server, and `calico-render
/// patch` refuses to print one (exit 1, nothing on stdout).
const POOL_TRANSITIONS: &[(&str, &str, &str)] = &[
    (
        "cidr",
        r#"[{"op":"replace","path":"/spec/cidr","value":"172.31.0.0/16"}]"#,
        "CIDR cannot be changed",
    ),
    (
        "blockSize",
        r#"[{"op":"replace","path":"/spec/blockSize","value":28}]"#,
        "Block size cannot be changed",
    ),
];

const TRANSITION_POOL: &str = "apiVersion: projectcalico.org/v3\nkind: IPPool\n\
    metadata:\n  name: e2e-transition-pool\nspec:\n  cidr: 172.30.0.0/16\n  blockSize: 26\n\
    \x20 vxlanMode: Always\n  natOutgoing: true\n  nodeSelector: all()\n";

fn check_pool_transition(
    server: &Server,
    shell: &Shell,
    (field, ops, server_says): (&str, &str, &str),
) -> Result<(), String> {
    server.delete_objects(TRANSITION_POOL)?;
    server.kubectl_ok(
        &["create", "--validate=strict", "-f", "-"],
        Some(TRANSITION_POOL),
    )?;
    let live = server.kubectl_ok(&["get", "-o", "yaml", "-f", "-"], Some(TRANSITION_POOL))?;
    let live_file = shell.file("live-pool.yaml", &live.stdout)?;
    let before = server.get_objects(TRANSITION_POOL)?;
    let patch: Value = serde_json::from_str(ops).map_err(|err| format!("bad ops: {err}"))?;
    let mut desired: Value = parse_yaml_stream(TRANSITION_POOL, "the transition pool")?.remove(0);
    let value = patch[0]["value"].clone();
    desired["spec"][field] = value;
    let desired_file = shell.file("desired-pool.json", &desired.to_string())?;
    let ours = server.calico_render(
        &[
            "patch",
            "-f",
            &desired_file.to_string_lossy(),
            "--live",
            &live_file.to_string_lossy(),
            "-o",
            "kubectl",
        ],
        None,
    );
    if ours.code != Some(1) || !ours.stdout.trim().is_empty() {
        return Err(format!(
            "calico-render patch did not refuse the {field} change:\n{}",
            ours.describe()
        ));
    }
    let theirs = server.kubectl(
        &[
            "patch",
            "ippools.projectcalico.org",
            "e2e-transition-pool",
            "--type=json",
            "-p",
            ops,
        ],
        None,
    );
    if theirs.ok() || !theirs.stderr.contains(server_says) {
        return Err(format!(
            "the server did not refuse the {field} change with `{server_says}`:\n{}",
            theirs.describe()
        ));
    }
    let after = server.get_objects(TRANSITION_POOL)?;
    if after != before {
        return Err(format!(
            "the refused {field} change altered the stored pool"
        ));
    }
    Ok(())
}

#[test]
fn pool_cidr_and_block_size_changes_are_refused_by_the_server_and_by_patch() {
    let Some((server, _lock)) = server_for_writes("pool transition rules") else {
        return;
    };
    if let Err(err) = server.require_subcommand("patch") {
        panic!("{err}");
    }
    let shell = Shell::new(server).unwrap_or_else(|err| panic!("{err}"));
    let failures: Vec<String> = POOL_TRANSITIONS
        .iter()
        .filter_map(|case| check_pool_transition(server, &shell, *case).err())
        .collect();
    let cleanup = server.delete_objects(TRANSITION_POOL);
    eprintln!(
        "e2e transition rules: {} IPPool changes refused by the server and by patch",
        POOL_TRANSITIONS.len() - failures.len()
    );
    assert_all_passed("pool transition rules", &failures);
    cleanup.unwrap_or_else(|err| panic!("cleanup failed: {err}"));
}

// ---------------------------------------------------------------------------------------------
// Negative cases: what the CRD schema and its CEL rules reject, both judges must reject

/// One file under `tests/e2e/negative/`: its first comment lines say what is wrong, a
/// `# server: TEXT` line gives a piece of the API server's error message and a `# path: FIELD`
/// line the faulty field, in our notation (`spec.calicoNetwork.ipPools[0].encapsulation`), which
/// a current server also uses; an optional `# server-path: FIELD` says where the server reports
/// it when that differs (CEL rules on an object are reported at the object).
struct NegativeCase {
    file: PathBuf,
    text: String,
    server_says: String,
    path: String,
    /// Where the server puts the error, when that is not `path`: a CEL rule on `spec` is
    /// reported at `spec`, one on the whole object (`# server-path: (object)`) at no field.
    server_path: Option<String>,
}

/// The value of a `# key: value` header line.
fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        line.strip_prefix("# ")?
            .strip_prefix(key)?
            .strip_prefix(": ")
    })
}

fn negative_cases() -> Result<Vec<NegativeCase>, String> {
    let dir = fixtures().join("negative");
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
            let text = read(&file)?;
            let missing = |key: &str| format!("{} has no `# {key}: ...` line", file.display());
            let server_says = header(&text, "server")
                .ok_or_else(|| missing("server"))?
                .to_string();
            let path = header(&text, "path")
                .ok_or_else(|| missing("path"))?
                .to_string();
            let server_path = match header(&text, "server-path") {
                Some("(object)") => None,
                Some(other) => Some(other.to_string()),
                None => Some(path.clone()),
            };
            Ok(NegativeCase {
                file,
                text,
                server_says,
                path,
                server_path,
            })
        })
        .collect()
}

/// Negative cases the API server rejects and `calico-render validate` still accepts, each with
/// the reason. They are reported on every run; a listed case that starts to agree fails the
/// test, so the entry is removed as soon as the validator is fixed, and a new disagreement not
/// listed here fails it too.
const KNOWN_DISAGREEMENTS: &[(&str, &str)] = &[];

/// How the two judges saw one negative case.
struct Verdicts {
    server: Result<(), String>,
    ours: Result<(), String>,
}

fn judge(server: &Server, case: &NegativeCase) -> Verdicts {
    // --validate=false: kubectl's own schema check stays out, so the server alone decides.
    let by_server = server.kubectl(
        &["create", "--dry-run=server", "--validate=false", "-f", "-"],
        Some(&case.text),
    );
    let server_verdict = if by_server.ok() {
        Err(format!(
            "the API server accepted it:\n{}",
            by_server.describe()
        ))
    } else if !by_server.stderr.contains(&case.server_says) {
        Err(format!(
            "the API server rejected it, but not with `{}`:\n{}",
            case.server_says,
            by_server.describe()
        ))
    } else if let Some(server_path) = &case.server_path
        && by_server.stderr.contains(" is invalid: ")
        && !by_server.stderr.contains(server_path.as_str())
    {
        // Field errors name the field; a body the server cannot even decode names none.
        Err(format!(
            "the API server rejected it, but not at `{server_path}`:\n{}",
            by_server.describe()
        ))
    } else {
        Ok(())
    };
    let ours = server.calico_render(
        &["validate", "-o", "json", "-f", &case.file.to_string_lossy()],
        None,
    );
    let our_verdict = match ours.code {
        Some(1) => {
            let at_path = serde_json::from_str::<Value>(&ours.stdout).is_ok_and(|report| {
                report["diagnostics"].as_array().is_some_and(|diagnostics| {
                    diagnostics.iter().any(|diagnostic| {
                        diagnostic["severity"] == "error"
                            && diagnostic["path"] == case.path.as_str()
                    })
                })
            });
            if at_path {
                Ok(())
            } else {
                Err(format!(
                    "calico-render validate rejected it, but with no error at `{}`:\n{}",
                    case.path,
                    ours.describe()
                ))
            }
        }
        Some(0) => Err(format!(
            "calico-render validate accepted it:\n{}",
            ours.describe()
        )),
        _ => Err(format!(
            "calico-render validate did not report it as invalid input (exit 1):\n{}",
            ours.describe()
        )),
    };
    Verdicts {
        server: server_verdict,
        ours: our_verdict,
    }
}

#[test]
fn invalid_objects_are_rejected_by_the_server_and_by_validate() {
    let Some(server) = server("negative cases") else {
        return;
    };
    let started = Instant::now();
    if let Err(err) = server.require_subcommand("validate") {
        panic!("{err}");
    }
    let cases = negative_cases().unwrap_or_else(|err| panic!("{err}"));
    assert!(
        cases.len() >= 60,
        "the negative corpus shrank to {} files",
        cases.len()
    );
    // Dry runs change nothing on the server, so the cases run a few at a time.
    let verdicts: Vec<Verdicts> = thread::scope(|scope| {
        let chunks: Vec<_> = cases
            .chunks(cases.len().div_ceil(4))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|case| judge(server, case))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks
            .into_iter()
            .flat_map(|handle| handle.join().expect("a judging thread panicked"))
            .collect()
    });

    let mut server_problems = Vec::new();
    let mut disagreements = Vec::new();
    let mut known = Vec::new();
    for (case, verdict) in cases.iter().zip(&verdicts) {
        let name = case
            .file
            .strip_prefix(workspace_root())
            .unwrap_or(&case.file)
            .display();
        let file_name = case
            .file
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let listed = KNOWN_DISAGREEMENTS
            .iter()
            .find(|(file, _)| *file == file_name);
        if let Err(err) = &verdict.server {
            server_problems.push(format!("{name}: {err}"));
        }
        match (&verdict.ours, listed) {
            (Err(_), Some((_, why))) => known.push(format!("{name}: {why}")),
            (Err(err), None) => {
                disagreements.push(format!("{name}:\n{}\n{err}", case.text.trim_end()));
            }
            (Ok(()), Some(_)) => disagreements.push(format!(
                "{name}: calico-render validate now rejects it, as the server does: remove its \
                 entry from KNOWN_DISAGREEMENTS"
            )),
            (Ok(()), None) => {}
        }
    }
    for (file, _) in KNOWN_DISAGREEMENTS {
        if !cases.iter().any(|case| case.file.ends_with(file)) {
            disagreements.push(format!(
                "KNOWN_DISAGREEMENTS names {file}, which is not in tests/e2e/negative/"
            ));
        }
    }
    for line in &known {
        eprintln!(
            "e2e negative: known disagreement (the server rejects, validate accepts): {line}"
        );
    }

    // Positive control: the article's objects, which the server stores unchanged, validate clean.
    let article = fixtures().join("article/article.yaml");
    let control = server.calico_render(&["validate", "-f", &article.to_string_lossy()], None);
    if !control.ok() {
        disagreements.push(format!(
            "{} (valid, the article verbatim): calico-render validate rejected it:\n{}",
            article.display(),
            control.describe()
        ));
    }

    eprintln!(
        "e2e negative: {} cases, {} server surprises, {} known and {} new disagreements with \
         calico-render validate, {:.1}s",
        cases.len(),
        server_problems.len(),
        known.len(),
        disagreements.len(),
        started.elapsed().as_secs_f64()
    );
    let mut failures = server_problems;
    failures.extend(disagreements);
    assert_all_passed("negative cases", &failures);
}

// ---------------------------------------------------------------------------------------------
// A generated corpus of valid ClusterNetworks

/// How many generated ClusterNetworks the corpus case renders and creates.
const CORPUS_SIZE: usize = 12;
/// The corpus seed: fixed, so a failure names an input that can be regenerated exactly.
pub(crate) const CORPUS_SEED: u64 = 0x00C4_11C0_2026_1129;

/// splitmix64: a tiny, well-mixed deterministic generator (no dependency for a dozen inputs).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, choices: &[&'a str]) -> &'a str {
        let len = u64::try_from(choices.len()).expect("a short list");
        let index = usize::try_from(self.below(len)).expect("an index below the list length");
        choices[index]
    }
}

/// One generated ClusterNetwork, as the YAML a user would write. The main axes follow the
/// index, so any dozen inputs cover every dataplane with and without BGP, IPv4, IPv6 and dual
/// stack, router peers, LoadBalancer pools and both API server choices; the details are drawn
/// from `rng`. Every combination is valid by construction: without BGP every pool uses VXLAN,
/// IPv6 pools never use IPIP, block sizes stay within the family's range and not shorter than
/// the pool's prefix, and pool ranges never overlap each other or the LoadBalancer ranges.
pub(crate) fn generated_cluster_network(rng: &mut Rng, index: usize) -> String {
    let mut y = String::new();
    let dataplane = ["Iptables", "BPF", "Nftables"][index % 3];
    let bgp = (index / 3) % 2 == 1;
    let (ipv4, ipv6) = [(true, false), (true, true), (false, true), (true, false)][index % 4];
    let with_peer = bgp && (index % 2 == 1 || rng.chance(50));
    let with_load_balancers = index.is_multiple_of(2) || rng.chance(30);
    let without_api_server = index % 4 == 1;
    let _ = writeln!(y, "apiVersion: calico-render.dev/v1alpha1");
    let _ = writeln!(y, "kind: ClusterNetwork");
    let _ = writeln!(y, "metadata:\n  name: corpus-{index:02}");
    let _ = writeln!(y, "spec:");
    if rng.chance(25) {
        let provider = rng.pick(&["RKE2", "Kind", "TKG"]);
        let _ = writeln!(y, "  kubernetesProvider: {provider}");
    }
    // BPF needs the endpoint ConfigMap; the others get one now and then.
    if dataplane == "BPF" || rng.chance(40) {
        let host = rng.pick(&["control.k8s.example.com", "10.0.0.10", "api.internal"]);
        let _ = writeln!(y, "  apiEndpoint:\n    host: {host}");
        if rng.chance(50) {
            let port = rng.pick(&["6443", "8443", "443"]);
            let _ = writeln!(y, "    port: {port}");
        }
    }
    let _ = writeln!(y, "  dataplane: {dataplane}");
    let mut lb_ranges = Vec::new();
    if with_load_balancers {
        lb_ranges.push(format!("192.168.{}.0/24", 200 + rng.below(50)));
    }
    if bgp {
        let _ = writeln!(y, "  bgp:\n    enabled: true");
        if rng.chance(70) {
            let _ = writeln!(y, "    asNumber: {}", generated_as_number(rng));
        }
        if rng.chance(50) {
            let _ = writeln!(y, "    nodeToNodeMesh: false");
        }
        if with_peer {
            let _ = writeln!(
                y,
                "    peers:\n      - name: router\n        peerIP: 192.168.10.1\n        asNumber: {}",
                generated_as_number(rng)
            );
            if rng.chance(50) {
                let _ = writeln!(y, "        nodeSelector: rack == \"a\"");
            }
        }
        if !lb_ranges.is_empty() {
            let _ = writeln!(y, "    advertise:\n      serviceLoadBalancerIPs:");
            for range in &lb_ranges {
                let _ = writeln!(y, "        - {range}");
            }
        }
    }
    let _ = writeln!(y, "  podPools:");
    if ipv4 {
        let prefix = 12 + rng.below(9); // 12..=20
        let second = 16 + 16 * rng.below(4); // 16, 32, 48, 64: /12 ranges never overlap
        let _ = writeln!(y, "    - name: default-ipv4-ippool");
        let _ = writeln!(y, "      cidr: 172.{second}.0.0/{prefix}");
        if rng.chance(60) {
            let _ = writeln!(y, "      blockSize: {}", 24 + rng.below(5));
        }
        let encapsulation = if bgp {
            rng.pick(&[
                "VXLAN",
                "VXLANCrossSubnet",
                "IPIP",
                "IPIPCrossSubnet",
                "None",
            ])
        } else {
            rng.pick(&["VXLAN", "VXLANCrossSubnet"])
        };
        let _ = writeln!(y, "      encapsulation: {encapsulation}");
        if rng.chance(40) {
            let _ = writeln!(y, "      natOutgoing: {}", rng.chance(50));
        }
        if rng.chance(30) {
            let _ = writeln!(y, "      nodeSelector: all()");
        }
        if rng.chance(50) {
            let _ = writeln!(y, "      disableBGPExport: {}", rng.chance(50));
        }
    }
    if ipv6 {
        let _ = writeln!(y, "    - name: default-ipv6-ippool");
        let _ = writeln!(y, "      cidr: fd{:02x}:10::/48", rng.below(256));
        if rng.chance(50) {
            let _ = writeln!(y, "      blockSize: {}", 116 + rng.below(13));
        }
        let encapsulation = if bgp {
            rng.pick(&["VXLAN", "VXLANCrossSubnet", "None"])
        } else {
            rng.pick(&["VXLAN", "VXLANCrossSubnet"])
        };
        let _ = writeln!(y, "      encapsulation: {encapsulation}");
    }
    if !lb_ranges.is_empty() {
        let _ = writeln!(y, "  loadBalancerPools:");
        for (n, range) in lb_ranges.iter().enumerate() {
            let _ = writeln!(y, "    - name: lb-pool-{n}\n      cidr: {range}");
        }
    }
    if without_api_server {
        let _ = writeln!(y, "  calicoAPIServer: false");
    }
    if rng.chance(30) {
        let _ = writeln!(y, "  mtu: {}", rng.pick(&["1400", "1450", "8950"]));
    }
    let mut felix = Vec::new();
    if dataplane == "BPF" && rng.chance(60) {
        felix.push(format!(
            "bpfExternalServiceMode: {}",
            rng.pick(&["Tunnel", "DSR"])
        ));
    }
    if dataplane == "BPF" && rng.chance(40) {
        felix.push(format!(
            "bpfLogLevel: {}",
            rng.pick(&["Off", "Info", "Debug"])
        ));
    }
    if dataplane == "BPF" && rng.chance(30) {
        felix.push("bpfKubeProxyIptablesCleanupEnabled: false".to_string());
    }
    if rng.chance(30) {
        felix.push(format!(
            "logSeverityScreen: {}",
            rng.pick(&["Info", "Warning", "Debug"])
        ));
    }
    if !felix.is_empty() {
        let _ = writeln!(y, "  felix:");
        for line in felix {
            let _ = writeln!(y, "    {line}");
        }
    }
    y
}

/// An AS number a current server stores: a private 2-byte one, or a 4-byte one below 2^31. The
/// private 4-byte range (4200000000-4294967294) is above the int32 range the CRDs declare, which a
/// current kube-apiserver enforces (projectcalico/calico#13494; negative cases 48-50, which
/// `calico-render validate` refuses too).
fn generated_as_number(rng: &mut Rng) -> u64 {
    if rng.chance(50) {
        64_512 + rng.below(1023)
    } else {
        2_000_000_000 + rng.below(1000)
    }
}

#[test]
fn a_generated_corpus_of_cluster_networks_is_stored_unchanged() {
    let Some((server, _lock)) = server_for_writes("generated corpus") else {
        return;
    };
    let started = Instant::now();
    if let Err(err) = server.require_subcommand("render") {
        panic!("{err}");
    }
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("cannot make a scratch dir: {err}"));
    let mut rng = Rng(CORPUS_SEED);
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for index in 0..CORPUS_SIZE {
        let text = generated_cluster_network(&mut rng, index);
        let input = dir.path().join(format!("corpus-{index:02}.yaml"));
        if let Err(err) = fs::write(&input, &text) {
            panic!("cannot write {}: {err}", input.display());
        }
        if let Ok(objects) = render_json(server, &input, "all") {
            let names: Vec<&str> = objects
                .iter()
                .map(|object| object["kind"].as_str().unwrap_or("?"))
                .collect();
            for name in &names {
                *kinds.entry((*name).to_string()).or_default() += 1;
            }
            // One line per input, so a CI log shows what the corpus covered.
            let summary: Vec<&str> = text
                .lines()
                .filter_map(|line| {
                    let line = line.trim();
                    [
                        "dataplane:",
                        "enabled:",
                        "peerIP:",
                        "cidr:",
                        "calicoAPIServer:",
                    ]
                    .iter()
                    .any(|key| line.starts_with(key) || line.starts_with(&format!("- {key}")))
                    .then_some(line)
                })
                .collect();
            eprintln!(
                "e2e corpus-{index:02}: {} -> {}",
                summary.join(", "),
                names.join(", ")
            );
        }
        if let Err(err) = check_rendered(server, &input, &mut counts) {
            failures.push(format!(
                "corpus-{index:02} (seed {CORPUS_SEED:#x}):\n{text}{err}"
            ));
        }
    }
    eprintln!(
        "e2e corpus: {CORPUS_SIZE} generated ClusterNetworks, {} objects created and read back \
         ({kinds:?}), {:.1}s",
        counts.objects_created,
        started.elapsed().as_secs_f64()
    );
    assert_all_passed("generated corpus", &failures);
}
