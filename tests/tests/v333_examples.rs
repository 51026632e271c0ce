//! Issue 34, Calico v3.33 (data of its release branch) on every example ClusterNetwork
//! (`examples/**/cluster.yaml` but `invalid`), through the command line: `validate`, `patch`
//! and `import`. (`render` is `releases::every_example_for_every_release`, `upgrade` is
//! `upgrade::every_example_every_step`.)
//!
//! - validate: the v3.33 bundle passes `validate --calico-version v3.33.x` with no error, and the
//!   same bytes judged as v3.32.1 are refused for a field only v3.33's CRD has
//!   (`spec.calicoLibHostPath`, the default v3.33's Installation CRD writes: `docs/releases.md`),
//!   so the version is what decides.
//! - patch: the bundle as the live state against the same ClusterNetwork gives no operation; a
//!   day-two change (the first pod pool's outgoing NAT turned the other way) gives one
//!   Installation patch, guarded: a `test` of the pool's `name` at its live index, then the
//!   change of `natOutgoing` at that index.
//! - import: the bundle as a cluster holds it (server metadata, status, the v1.44 operator's
//!   write-backs, its own Felix fields and pool copies), with the APIService of a native
//!   cluster (`apiMode: NativeV3` is written), imports back, with `--calico-version
//!   v3.33`, to a ClusterNetwork whose `render` is the example's v3.33 bundle byte for byte, and
//!   `patch` of it against the same live objects finds nothing; v3.33's CRD defaults (which
//!   the API server and `render` write) are not kept as overrides. What import writes and
//!   reports is pinned (`snapshots/import/<example>.v3.33.0.snap`).

use std::path::{Path, PathBuf};

use calico_render_tests::{run_calico_render, workspace_root};
use calico_spec::cluster_network;
use calico_spec::release::Release;
use serde_json::{Value, json};

use crate::import::as_live_for;

const V3_33: &str = "v3.33.0";

/// Every example ClusterNetwork, as (a name for messages and snapshots, its path): the
/// folders of `examples/` and the folders below them (the kustomize generator).
fn examples() -> Vec<(String, PathBuf)> {
    let root = workspace_root().join("examples");
    let mut found = Vec::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)
            .expect("an examples folder")
            .flatten()
        {
            let path = entry.path();
            if !path.is_dir() || entry.file_name() == "invalid" {
                continue;
            }
            let file = path.join("cluster.yaml");
            if file.is_file() {
                let name = path
                    .strip_prefix(&root)
                    .expect("below examples/")
                    .to_string_lossy()
                    .replace('/', "-");
                found.push((name, file));
            }
            folders.push(path);
        }
    }
    found.sort();
    // The six top-level examples and the kustomize generator.
    assert!(found.len() >= 7, "{found:?}");
    found
}

/// The example's text with `spec.calicoVersion: version` (replacing the one it has).
fn at_version(path: &Path, version: &str) -> String {
    let text = std::fs::read_to_string(path).expect("example readable");
    calico_render_tests::with_calico_version(&text, version)
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, args: &[&str]) -> Ran {
    let out = run_calico_render(args, dir, b"");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8"),
    }
}

/// `cluster.yaml` (the example at v3.33) and `bundle.yaml` (its `render`) in a fresh folder.
fn rendered(path: &Path) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a scratch folder");
    std::fs::write(dir.path().join("cluster.yaml"), at_version(path, V3_33)).expect("write");
    let render = run(dir.path(), &["render", "-f", "cluster.yaml"]);
    assert_eq!(
        render.code,
        Some(0),
        "{}: {}",
        path.display(),
        render.stderr
    );
    std::fs::write(dir.path().join("bundle.yaml"), &render.stdout).expect("write");
    (dir, render.stdout)
}

#[test]
fn every_v3_33_bundle_validates_for_v3_33_only() {
    let mut failures = Vec::new();
    for (name, path) in examples() {
        let (dir, bundle) = rendered(&path);
        assert!(
            bundle.contains("calicoLibHostPath: /var/lib/calico"),
            "{name}"
        );
        for minor in [V3_33, "v3.33.2"] {
            let ok = run(
                dir.path(),
                &["validate", "-f", "bundle.yaml", "--calico-version", minor],
            );
            let said = format!("{}{}", ok.stdout, ok.stderr);
            if ok.code != Some(0) || said.contains("error[") || !said.contains("objects checked") {
                failures.push(format!("{name} --calico-version {minor}: {said}"));
            }
        }
        let older = run(
            dir.path(),
            &[
                "validate",
                "-f",
                "bundle.yaml",
                "--calico-version",
                "v3.32.1",
            ],
        );
        let said = format!("{}{}", older.stdout, older.stderr);
        if older.code != Some(1)
            || !said.contains("error[CR0007]")
            || !said.contains("spec.calicoLibHostPath")
        {
            failures.push(format!("{name} as v3.32.1 is not refused: {said}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The live Installation's pools, from a bundle's YAML.
fn live_pools(bundle: &str) -> Vec<Value> {
    let documents =
        calico_spec::source::parse_stream(bundle, &calico_spec::source::Limits::MANIFESTS)
            .expect("the bundle is YAML");
    documents
        .iter()
        .find(|document| document.value["kind"] == "Installation")
        .and_then(|document| document.value["spec"]["calicoNetwork"]["ipPools"].as_array())
        .cloned()
        .expect("the Installation has pools")
}

#[test]
fn every_v3_33_bundle_patches_to_nothing_and_a_day_two_change_to_its_guarded_patch() {
    let mut failures = Vec::new();
    for (name, path) in examples() {
        let (dir, bundle) = rendered(&path);
        let same = run(
            dir.path(),
            &["patch", "-f", "cluster.yaml", "--live", "bundle.yaml"],
        );
        if same.code != Some(0)
            || !same.stdout.is_empty()
            || !same.stderr.contains("LIVE already matches DESIRED")
        {
            failures.push(format!(
                "{name}: the bundle as live is not a no-op: {}{}",
                same.stdout, same.stderr
            ));
        }

        // Day two: turn the first pod pool's outgoing NAT the other way.
        let text = at_version(&path, V3_33);
        let mut loaded = cluster_network::load(&path.display().to_string(), &text).expect("loads");
        let pool = loaded
            .cluster_network
            .spec
            .pod_pools
            .first_mut()
            .expect("a pod pool");
        let pools = live_pools(&bundle);
        let index = pools
            .iter()
            .position(|live| live["name"] == pool.name.as_str())
            .expect("the pool is in the live Installation");
        let was = pools[index]["natOutgoing"].as_str().expect("written out");
        let now = if was == "Enabled" {
            "Disabled"
        } else {
            "Enabled"
        };
        pool.nat_outgoing = Some(now == "Enabled");
        let pool_name = pool.name.clone();
        let changed = serde_json::to_string(&loaded.cluster_network).expect("serializes");
        std::fs::write(dir.path().join("changed.json"), changed).expect("write");
        let patched = run(
            dir.path(),
            &["patch", "-f", "changed.json", "--live", "bundle.yaml"],
        );
        let expected = json!({
            "apiVersion": "operator.tigera.io/v1", "kind": "Installation", "name": "default",
            "patch": [
                {"op": "test", "path": format!("/spec/calicoNetwork/ipPools/{index}/name"),
                 "value": pool_name},
                {"op": "replace", "path": format!("/spec/calicoNetwork/ipPools/{index}/natOutgoing"),
                 "value": now},
            ],
        });
        let lines: Vec<Value> = patched
            .stdout
            .lines()
            .map(|line| serde_json::from_str(line).expect("one JSON object a line"))
            .collect();
        if patched.code != Some(0) || lines != [expected.clone()] {
            failures.push(format!(
                "{name}: natOutgoing {was} -> {now}\nwanted {expected}\ngot {}{}",
                patched.stdout, patched.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace_root().join("snapshots/import"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn every_v3_33_cluster_imports_back_to_its_bundle() {
    let release = Release::for_version(V3_33).expect("supported");
    let mut failures = Vec::new();
    for (name, path) in examples() {
        let (dir, bundle) = rendered(&path);
        let text = at_version(&path, V3_33);
        let objects: Vec<Value> = cluster_network::load("cluster.yaml", &text)
            .expect("loads")
            .objects
            .iter()
            .map(|object| object.to_value())
            .collect();
        let mut live = as_live_for(&objects, Some(release));
        // A new v3.33 install runs natively: the kube-apiserver serves projectcalico.org/v3
        // from the CRDs and registers the group's APIService itself, without a service.
        live[0]["items"].as_array_mut().expect("items").push(
            json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                "metadata": {"name": "v3.projectcalico.org",
                    "labels": {"kube-aggregator.kubernetes.io/automanaged": "true"}},
                "spec": {"group": "projectcalico.org", "version": "v3",
                    "groupPriorityMinimum": 1000, "versionPriority": 100}}),
        );
        let live = serde_json::to_string_pretty(&live[0]).expect("JSON");
        std::fs::write(dir.path().join("live.json"), live).expect("write");
        let imported = run(
            dir.path(),
            &[
                "import",
                "-f",
                "live.json",
                "--calico-version",
                V3_33,
                "--out",
                "imported.yaml",
            ],
        );
        if imported.code != Some(0) {
            failures.push(format!("{name}: import failed: {}", imported.stderr));
            continue;
        }
        let written = std::fs::read_to_string(dir.path().join("imported.yaml")).expect("written");
        if !written.contains(&format!("\n  calicoVersion: {V3_33}\n"))
            || !written.contains("\n  apiMode: NativeV3\n")
        {
            failures.push(format!("{name}: not at {V3_33}:\n{written}"));
        }
        // The examples state none of v3.33's CRD defaults: the API server writes them, and so
        // does `render`, so the import leaves them out rather than keep them as overrides.
        for default in [
            "calicoLibHostPath",
            "calicoRunHostPath",
            "nftablesFlowTableOffload",
        ] {
            if written.contains(default) {
                failures.push(format!("{name}: {default} kept:\n{written}"));
            }
        }
        let again = run(dir.path(), &["render", "-f", "imported.yaml"]);
        if again.code != Some(0) || again.stdout != bundle {
            failures.push(format!(
                "{name}: the import renders otherwise:\n{}\n{}",
                again.stdout, again.stderr
            ));
        }
        let patch = run(
            dir.path(),
            &["patch", "-f", "imported.yaml", "--live", "live.json"],
        );
        if patch.code != Some(0)
            || !patch.stdout.is_empty()
            || !patch.stderr.contains("LIVE already matches DESIRED")
        {
            failures.push(format!(
                "{name}: patch after import: {}{}",
                patch.stdout, patch.stderr
            ));
        }
        snapshot(
            &format!("{name}.{V3_33}"),
            &format!("{written}# standard error\n{}", imported.stderr),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
