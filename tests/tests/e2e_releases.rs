//! Every supported release's rendering of every example, judged by a real kube-apiserver with
//! that release's own CRDs loaded (issue 15, "Done when").
//!
//! CRDs of different releases of one group cannot coexist, so `.ci/k8s-e2e.sh up` starts one
//! more server without CRDs (`CALICO_RENDER_E2E_RELEASES_KUBECONFIG`) and this suite loads
//! `crds/<release>/` into it release after release, oldest first: the operator.tigera.io
//! Installation and APIServer CRDs, the crd.projectcalico.org/v1 CRDs of the Calico kinds and,
//! for v3.32, the native projectcalico.org/v3 ones. Each example is rendered for the release
//! (`spec.calicoVersion`) and sent with `kubectl create --dry-run=server --validate=strict`, so
//! a field the release's schema lacks is an error, not a silent prune. v3.30 and v3.31 have no
//! native v3 CRDs (their Calico API server serves projectcalico.org/v3 over the v1 CRDs), so
//! there the Calico kinds are sent as `crd.projectcalico.org/v1`, the schema their API server
//! stores them under.
//!
//! Probes show that the server judges by the loaded release: an Installation with
//! `spec.cni.binDir` (new in v3.31) must be refused under v3.30.7's CRDs and accepted under the
//! others, a FelixConfiguration with `bpfJITHardening` (new in v3.31) refused under v3.30.7's,
//! and v3.32.1's rendering of an example refused under v3.30.7's CRDs. The same skip rules as `e2e_k8s` apply (`CALICO_RENDER_E2E=required` makes a
//! missing server a failure).
//!
//! Last, under the newest release's CRDs (v3.33), every example's rendering is applied for
//! real with server-side apply and read back: a field the server stores that we did not render
//! (a CRD `default:`, a normalised value) is drift and fails the test, except the
//! FelixConfiguration fields the operator writes itself (counted and printed).

use std::env;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use calico_spec::release::{RELEASES, Release};
use serde_json::Value;

use crate::e2e_k8s::{Ran, run};
use calico_render_tests::{example_for, example_names, workspace_root};

const ENV_KUBECONFIG: &str = "CALICO_RENDER_E2E_RELEASES_KUBECONFIG";

struct Server {
    kubeconfig: PathBuf,
    kubectl: PathBuf,
}

impl Server {
    fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> Ran {
        let mut all = vec![
            "--kubeconfig",
            self.kubeconfig.to_str().expect("UTF-8 path"),
        ];
        all.extend_from_slice(args);
        run(&self.kubectl, &all, stdin, &[])
    }
}

fn server() -> Option<Server> {
    let required = env::var("CALICO_RENDER_E2E").is_ok_and(|mode| mode == "required");
    let Some(kubeconfig) = env::var_os(ENV_KUBECONFIG).filter(|v| !v.is_empty()) else {
        assert!(
            !required,
            "CALICO_RENDER_E2E=required but {ENV_KUBECONFIG} is not set: start the servers with \
             `eval \"$(.ci/k8s-e2e.sh up DIR)\"`"
        );
        calico_render_tests::say_skipped(
            "kube-apiserver",
            &format!(
                "e2e_releases: {ENV_KUBECONFIG} is not set, so there is no API server to load each \
             release's CRDs into (`eval \"$(.ci/k8s-e2e.sh up DIR)\"` starts one)"
            ),
        );
        return None;
    };
    let kubectl = env::var_os("CALICO_RENDER_E2E_KUBECTL")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("kubectl"), PathBuf::from);
    let server = Server {
        kubeconfig: PathBuf::from(kubeconfig),
        kubectl,
    };
    let ready = server.kubectl(&["get", "--raw", "/readyz"], None);
    assert!(
        ready.ok() && ready.stdout.trim() == "ok",
        "the releases API server is not ready:\n{}",
        ready.describe()
    );
    Some(server)
}

/// The CRD files of `release` this suite loads.
fn crd_files(release: &Release) -> Vec<PathBuf> {
    let dir = workspace_root().join("crds").join(release.data);
    let mut names = vec![
        "operator.tigera.io_installations.yaml".to_owned(),
        "operator.tigera.io_apiservers.yaml".to_owned(),
    ];
    for kind in [
        "ippools",
        "bgpconfigurations",
        "bgppeers",
        "felixconfigurations",
        "ipreservations",
    ] {
        names.push(format!("crd.projectcalico.org_{kind}.yaml"));
        if release.native_v3_crds {
            names.push(format!("projectcalico.org_{kind}.yaml"));
        }
    }
    names.into_iter().map(|name| dir.join(name)).collect()
}

/// Load `release`'s CRDs (replacing another release's of the same names) and drop the native
/// v3 CRDs when the release has none.
fn load(server: &Server, release: &Release) {
    if !release.native_v3_crds {
        let drop = server.kubectl(
            &[
                "delete",
                "crd",
                "--ignore-not-found",
                "--wait=true",
                "ippools.projectcalico.org",
                "bgpconfigurations.projectcalico.org",
                "bgppeers.projectcalico.org",
                "felixconfigurations.projectcalico.org",
                "ipreservations.projectcalico.org",
            ],
            None,
        );
        assert!(drop.ok(), "{}", drop.describe());
    }
    let files = crd_files(release);
    let mut args = vec!["apply", "--server-side", "--force-conflicts"];
    for file in &files {
        args.push("-f");
        args.push(file.to_str().expect("UTF-8 path"));
    }
    let applied = server.kubectl(&args, None);
    assert!(applied.ok(), "{}: {}", release.calico, applied.describe());
    let mut wait = vec!["wait", "--for", "condition=established", "--timeout=60s"];
    let names: Vec<String> = applied
        .stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    wait.extend(names.iter().map(String::as_str));
    let established = server.kubectl(&wait, None);
    assert!(established.ok(), "{}", established.describe());
}

/// `kubectl create --dry-run=server --validate=strict` of a JSON value.
fn dry_run(server: &Server, value: &Value) -> Ran {
    server.kubectl(
        &[
            "create",
            "--dry-run=server",
            "--validate=strict",
            "-o",
            "name",
            "-f",
            "-",
        ],
        Some(&value.to_string()),
    )
}

/// The probe: an Installation with `spec.cni.binDir`, a field v3.31 added.
fn probe() -> Value {
    serde_json::json!({
        "apiVersion": "operator.tigera.io/v1",
        "kind": "Installation",
        "metadata": {"name": "default"},
        "spec": {"cni": {"type": "Calico", "binDir": "/opt/cni/bin"}},
    })
}

/// Wait until the server serves `release`'s Installation schema: the probe's verdict is the
/// release's (a CRD update reaches the serving handler a moment after the write).
fn until_served(server: &Server, release: &Release) {
    let want_ok = calico_spec::release::knows(release.calico, "Installation", "spec.cni.binDir");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ran = dry_run(server, &probe());
        if ran.ok() == want_ok {
            if !want_ok {
                assert!(
                    ran.stderr.contains("binDir"),
                    "{}: refused for another reason: {}",
                    release.calico,
                    ran.describe()
                );
            }
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{}: the server never judged the probe as this release's CRDs would ({}): {}",
            release.calico,
            if want_ok { "accept" } else { "refuse" },
            ran.describe()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// `render -o json` of `text` (a JSON List), or `None` when calico-render refuses it.
fn render(dir: &Path, text: &str) -> Option<Value> {
    std::fs::write(dir.join("cluster.yaml"), text).expect("write");
    let out = calico_render_tests::run_calico_render(
        &["render", "-f", "cluster.yaml", "-o", "json"],
        dir,
        b"",
    );
    match out.status.code() {
        Some(0) => Some(serde_json::from_slice(&out.stdout).expect("a JSON List")),
        Some(1) => None,
        other => panic!(
            "render exited {other:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Our List as the release's server stores it: without native v3 CRDs the Calico kinds are
/// `crd.projectcalico.org/v1`.
fn for_release(mut list: Value, release: &Release) -> Value {
    if !release.native_v3_crds {
        for item in list["items"].as_array_mut().expect("items") {
            if item["apiVersion"] == "projectcalico.org/v3" {
                item["apiVersion"] = Value::from("crd.projectcalico.org/v1");
            }
        }
    }
    list
}

#[test]
fn every_example_is_accepted_by_its_own_release_crds() {
    let Some(server) = server() else {
        return;
    };
    let started = Instant::now();
    let namespace = server.kubectl(
        &["apply", "-f", "-"],
        Some("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tigera-operator\n"),
    );
    assert!(namespace.ok(), "{}", namespace.describe());
    let dir = tempfile::tempdir().expect("temp dir");
    let newest = Release::newest();
    let mut accepted = 0;
    let mut refused_by_us = 0;
    for release in &RELEASES {
        load(&server, release);
        until_served(&server, release);
        for name in example_names() {
            let Some(list) = render(dir.path(), &example_for(&name, release.calico)) else {
                refused_by_us += 1;
                continue;
            };
            let ran = dry_run(&server, &for_release(list, release));
            assert!(
                ran.ok(),
                "{name} rendered for {} is refused by that release's CRDs:\n{}",
                release.calico,
                ran.describe()
            );
            accepted += 1;
        }
        if release.calico == "v3.30.7" {
            // The Calico kinds are judged too: a FelixConfiguration field v3.31 added.
            let felix = serde_json::json!({
                "apiVersion": "crd.projectcalico.org/v1",
                "kind": "FelixConfiguration",
                "metadata": {"name": "default"},
                "spec": {"bpfJITHardening": "Auto"},
            });
            let ran = dry_run(&server, &felix);
            assert!(
                !ran.ok() && ran.stderr.contains("bpfJITHardening"),
                "v3.30.7's FelixConfiguration CRD must refuse bpfJITHardening:\n{}",
                ran.describe()
            );
            // The check can fail: the newest release's rendering carries fields v3.30 lacks.
            let list = render(dir.path(), &example_for("ha-ebpf", newest.calico)).expect("renders");
            let ran = dry_run(&server, &for_release(list, release));
            assert!(
                !ran.ok() && ran.stderr.contains("binDir"),
                "v3.32.1's ha-ebpf under v3.30.7's CRDs must be refused for cni.binDir:\n{}",
                ran.describe()
            );
        }
    }
    // The newest release's CRDs are still loaded (RELEASES is oldest first): store every
    // rendering for real and read it back.
    let stored = stored_as_rendered(&server, dir.path(), newest);
    // ebpf-self-managed needs v3.31 (bpfNetworkBootstrap, kube-proxy management).
    assert_eq!(
        refused_by_us, 1,
        "only ebpf-self-managed on v3.30 is refused"
    );
    assert!(accepted >= 14, "{accepted}");
    eprintln!(
        "e2e_releases: {accepted} renderings accepted by their release's CRDs ({} releases); \
         {stored} {} objects applied server-side and read back without drift; {:.1}s",
        RELEASES.len(),
        newest.calico,
        started.elapsed().as_secs_f64()
    );
}

/// What the server adds to every object it stores, and nothing of ours.
const SERVER_METADATA: [&str; 5] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
];

/// Every example rendered for `release` (the loaded one), applied server-side (CEL rules and
/// CRD defaults live, as a GitOps tool applies it), read back and compared field by field with
/// what was rendered: a value the server writes (a CRD `default:` we did not render, a pruned
/// field, a normalised value) is drift. The objects are deleted again before the next example,
/// whose objects share their names. Returns how many objects were compared.
fn stored_as_rendered(server: &Server, dir: &Path, release: &Release) -> usize {
    let mut compared = 0;
    let mut drift = Vec::new();
    let mut operator_owned = Vec::new();
    for name in example_names() {
        let Some(list) = render(dir, &example_for(&name, release.calico)) else {
            continue;
        };
        let list = for_release(list, release);
        let text = list.to_string();
        let applied = server.kubectl(
            &[
                "apply",
                "--server-side",
                "--field-manager=calico-render",
                "-o",
                "json",
                "-f",
                "-",
            ],
            Some(&text),
        );
        assert!(
            applied.ok(),
            "{name} for {} is refused on a real write:\n{}",
            release.calico,
            applied.describe()
        );
        for item in list["items"].as_array().expect("items") {
            let kind = item["kind"].as_str().expect("kind");
            let api_version = item["apiVersion"].as_str().expect("apiVersion");
            let group = api_version.split_once('/').map_or("", |(group, _)| group);
            let object = item["metadata"]["name"].as_str().expect("name");
            let resource = if group.is_empty() {
                kind.to_lowercase()
            } else {
                format!("{}.{group}", kind.to_lowercase())
            };
            let mut args = vec!["get", resource.as_str(), object, "-o", "json"];
            if let Some(namespace) = item["metadata"]["namespace"].as_str() {
                args.extend(["-n", namespace]);
            }
            let got = server.kubectl(&args, None);
            assert!(got.ok(), "{}", got.describe());
            let mut stored: Value = serde_json::from_str(&got.stdout).expect("JSON");
            if let Some(meta) = stored["metadata"].as_object_mut() {
                for key in SERVER_METADATA {
                    meta.remove(key);
                }
            }
            if let Some(fields) = stored.as_object_mut() {
                fields.remove("status");
            }
            // The FelixConfiguration fields the operator writes itself (`nftablesMode`, ...)
            // are left to it on purpose (CN0303): the server's default there is replaced by
            // the operator's write, and a value we rendered would fight it. Counted, not drift.
            if kind == "FelixConfiguration"
                && let Some(spec) = stored["spec"].as_object_mut()
            {
                for field in calico_spec::cluster_network::OPERATOR_FELIX_FIELDS {
                    if item["spec"].get(*field).is_none() && spec.remove(*field).is_some() {
                        operator_owned.push(format!("{name} {kind}/{object}: spec.{field}"));
                    }
                }
            }
            let mut differences = Vec::new();
            differ("", item, &stored, &mut differences);
            for difference in differences {
                drift.push(format!("{name} {kind}/{object}: {difference}"));
            }
            compared += 1;
        }
        let deleted = server.kubectl(&["delete", "--wait=true", "-f", "-"], Some(&text));
        assert!(deleted.ok(), "{}", deleted.describe());
    }
    assert!(
        drift.is_empty(),
        "the server stores {} renderings otherwise than rendered (drift for a GitOps tool):\n{}",
        release.calico,
        drift.join("\n")
    );
    assert!(compared >= 20, "{compared}");
    eprintln!(
        "e2e_releases: {} server defaults of operator-owned fields set aside: {}",
        operator_owned.len(),
        operator_owned.join("; ")
    );
    compared
}

/// The paths where `ours` and `stored` differ, with both values.
fn differ(path: &str, ours: &Value, stored: &Value, out: &mut Vec<String>) {
    match (ours, stored) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|key| !a.contains_key(*key))) {
                let at = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differ(&at, x, y, out),
                    (Some(x), None) => out.push(format!("{at}: rendered {x}, not stored")),
                    (None, Some(y)) => out.push(format!("{at}: stored {y}, not rendered")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (idx, (x, y)) in a.iter().zip(b).enumerate() {
                differ(&format!("{path}[{idx}]"), x, y, out);
            }
        }
        _ if ours == stored => {}
        _ => out.push(format!("{path}: rendered {ours}, stored {stored}")),
    }
}
