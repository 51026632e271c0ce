//! `calico-render upgrade` (issue 15 item 4): every example moved v3.30 -> v3.31 -> v3.32 ->
//! v3.33, v3.30 -> v3.32 and v3.31 -> v3.33, pinned by snapshots (`snapshots/upgrade/`); the patches it prints, applied to
//! the old release's rendering, give the new release's rendering as `render` prints it; a
//! blocked move and a downgrade exit 1 with no steps; the help text.

use std::path::Path;

use calico_render_tests::{example_for, example_names, run_calico_render, workspace_root};
use serde_json::Value;

const STEPS: [(&str, &str); 5] = [
    ("v3.30.7", "v3.31.7"),
    ("v3.31.7", "v3.32.1"),
    ("v3.30.7", "v3.32.1"),
    // To v3.33 (its release branch's data): from the release before it, and from one out of
    // upstream support.
    ("v3.32.1", "v3.33.0"),
    ("v3.31.7", "v3.33.0"),
];

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace_root().join("snapshots/upgrade"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `calico-render ARGS` in `dir`, where `cluster.yaml` holds `text`.
fn run_in(dir: &Path, text: &str, args: &[&str]) -> Run {
    std::fs::write(dir.join("cluster.yaml"), text).expect("write");
    let out = run_calico_render(args, dir, b"");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8"),
    }
}

/// Every example, every step up: the plan (or why there is none) is pinned, and the output is
/// the same on a second run.
#[test]
fn every_example_every_step() {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in example_names() {
        for (from, to) in STEPS {
            let text = example_for(&name, from);
            let args = ["upgrade", "-f", "cluster.yaml", "--to", to];
            let run = run_in(dir.path(), &text, &args);
            let again = run_in(dir.path(), &text, &args);
            assert_eq!(
                run.stdout, again.stdout,
                "{name} {from} -> {to}: not deterministic"
            );
            let shown = match run.code {
                Some(0) => run.stdout.clone(),
                // Only an example its own release refuses (ebpf-self-managed on v3.30) has no
                // plan: the reason is on standard error, nothing on standard output.
                Some(1) => {
                    assert!(run.stdout.is_empty(), "{name} {from}: {}", run.stdout);
                    assert!(
                        run.stderr
                            .contains("invalid for its own spec.calicoVersion"),
                        "{name} {from}: {}",
                        run.stderr
                    );
                    format!("# exit 1\n{}", run.stderr)
                }
                other => panic!("{name} {from} -> {to}: exit {other:?}: {}", run.stderr),
            };
            snapshot(&format!("{name}.{from}-{to}"), &shown);
        }
    }
}

/// The JSON plan's patches, applied to the old release's rendering, give exactly the new
/// release's rendering as `render` prints it: the plan is the whole difference.
#[test]
fn the_patches_take_the_old_rendering_to_the_new_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut checked = 0;
    for name in example_names() {
        for (from, to) in STEPS {
            let old_text = example_for(&name, from);
            let old = run_in(
                dir.path(),
                &old_text,
                &["render", "-f", "cluster.yaml", "-o", "json"],
            );
            if old.code != Some(0) {
                continue;
            }
            let plan = run_in(
                dir.path(),
                &old_text,
                &["upgrade", "-f", "cluster.yaml", "--to", to, "-o", "json"],
            );
            assert_eq!(plan.code, Some(0), "{name} {from} -> {to}: {}", plan.stderr);
            let plan: Value = serde_json::from_str(&plan.stdout).expect("JSON plan");
            let new = run_in(
                dir.path(),
                &example_for(&name, to),
                &["render", "-f", "cluster.yaml", "-o", "json"],
            );
            assert_eq!(new.code, Some(0), "{name} {to}: {}", new.stderr);
            let mut objects: Value = serde_json::from_str(&old.stdout).expect("JSON list");
            let wanted: Value = serde_json::from_str(&new.stdout).expect("JSON list");
            for patch in plan["steps"]["patches"].as_array().expect("patches") {
                let items = objects["items"].as_array_mut().expect("items");
                let object = items
                    .iter_mut()
                    .find(|item| {
                        item["kind"] == patch["kind"] && item["metadata"]["name"] == patch["name"]
                    })
                    .expect("the patched object is in the old rendering");
                let ops: json_patch::Patch =
                    serde_json::from_value(patch["patch"].clone()).expect("RFC 6902");
                json_patch::patch(object, &ops).expect("the patch applies");
            }
            // A field the target no longer renders has no patch (`patch` never removes a field
            // the spec does not state): it stays in the live object, as the old operator wrote
            // it (v1.40's `nonPrivileged: Disabled`, which v1.42.3 accepts). Take it out here.
            for change in plan["changes"].as_array().expect("changes") {
                for field in change["fields"].as_array().expect("fields") {
                    if !field["after"].is_null() {
                        continue;
                    }
                    let path = field["path"].as_str().expect("path");
                    assert!(!path.contains('['), "{name} {from} -> {to}: {path} dropped");
                    let items = objects["items"].as_array_mut().expect("items");
                    let object = items
                        .iter_mut()
                        .find(|item| {
                            item["kind"] == change["kind"]
                                && item["metadata"]["name"] == change["name"]
                        })
                        .expect("the changed object is in the old rendering");
                    let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
                    let pointer = format!("/{}", parent.replace('.', "/"));
                    object
                        .pointer_mut(&pointer)
                        .and_then(Value::as_object_mut)
                        .and_then(|parent| parent.remove(key))
                        .expect("the dropped field is in the old rendering");
                }
            }
            assert_eq!(objects, wanted, "{name} {from} -> {to}");
            checked += 1;
        }
    }
    // ebpf-self-managed is refused on v3.30, so two of its five steps have no old rendering:
    // 6 examples x 5 steps - 2.
    assert_eq!(checked, 28);
}

/// A ClusterNetwork the target cannot express: the downgrade of ebpf-self-managed (v3.32.1,
/// with bpfNetworkBootstrap and manageKubeProxy) to v3.30 is blocked by CN0112 at the fields,
/// and a v3.32 cluster without the Calico API server cannot move to v3.31.
#[test]
fn a_blocked_move_exits_1_with_the_reasons_and_no_steps() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = example_for("ebpf-self-managed", "v3.32.1");
    let run = run_in(
        dir.path(),
        &text,
        &["upgrade", "-f", "cluster.yaml", "--to", "v3.30.7"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.contains("Blocked:"), "{}", run.stdout);
    assert!(run.stdout.contains("error[CN0112]"), "{}", run.stdout);
    assert!(
        run.stdout.contains("cluster.yaml:12:"),
        "placed in the text: {}",
        run.stdout
    );
    assert!(!run.stdout.contains("kubectl"), "no steps: {}", run.stdout);
    snapshot("blocked.ebpf-self-managed.v3.32.1-v3.30.7", &run.stdout);

    let no_api_server = "\
apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
metadata:
  name: lab
spec:
  calicoVersion: v3.32.1
  calicoAPIServer: false
  podPools:
    - name: default-ipv4-ippool
      cidr: 172.20.0.0/16
  bgp:
    enabled: true
    asNumber: 64512
";
    let run = run_in(
        dir.path(),
        no_api_server,
        &[
            "upgrade",
            "-f",
            "cluster.yaml",
            "--to",
            "v3.31.7",
            "-o",
            "json",
        ],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(plan["blocked"], true);
    assert_eq!(plan["direction"], "downgrade");
    assert!(plan.get("steps").is_none(), "{plan}");
    let codes: Vec<&str> = plan["blockers"]
        .as_array()
        .expect("blockers")
        .iter()
        .filter_map(|b| b["code"].as_str())
        .collect();
    assert_eq!(codes, ["CN0112"], "{plan}");
    assert_eq!(plan["blockers"][0]["path"], "spec.calicoAPIServer");
}

/// A downgrade nothing blocks is still not planned: exit 1, no commands.
#[test]
fn a_downgrade_is_compared_not_planned() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = example_for("bgp-loadbalancer", "v3.32.1");
    let run = run_in(
        dir.path(),
        &text,
        &["upgrade", "-f", "cluster.yaml", "--to", "v3.30.7"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.contains("Not supported"), "{}", run.stdout);
    assert!(!run.stdout.contains("kubectl "), "{}", run.stdout);
    assert!(
        run.stdout.contains("- spec.cni.binDir: /opt/cni/bin"),
        "what the older release loses is listed: {}",
        run.stdout
    );
    snapshot("downgrade.bgp-loadbalancer.v3.32.1-v3.30.7", &run.stdout);
}

#[test]
fn the_same_version_changes_nothing_and_bad_versions_are_usage_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = example_for("dual-stack", "v3.31.7");
    let same = run_in(
        dir.path(),
        &text,
        &["upgrade", "-f", "cluster.yaml", "--to", "v3.31.7"],
    );
    assert_eq!(same.code, Some(0), "{}", same.stderr);
    assert!(same.stdout.contains("Nothing changes"), "{}", same.stdout);
    // A patch release calico-render does not carry: planned with the carried patch's files,
    // and said so; the rendering of one minor does not change.
    let patch = run_in(
        dir.path(),
        &example_for("dual-stack", "v3.31.2"),
        &["upgrade", "-f", "cluster.yaml", "--to", "v3.31.7"],
    );
    assert_eq!(patch.code, Some(0), "{}", patch.stderr);
    assert!(
        patch
            .stdout
            .contains("note: calico-render carries the files of v3.31.7 for v3.31"),
        "{}",
        patch.stdout
    );
    assert!(
        patch
            .stdout
            .contains("tigera-operator of v3.31.2 -> v1.40.15")
    );
    assert!(patch.stdout.contains("none: every object renders the same"));
    for bad in ["v3.29.4", "v3.34.0", "latest"] {
        let run = run_in(
            dir.path(),
            &text,
            &["upgrade", "-f", "cluster.yaml", "--to", bad],
        );
        assert_eq!(run.code, Some(2), "{bad}");
        assert!(run.stdout.is_empty(), "{bad}");
        assert!(
            run.stderr
                .contains("supported: v3.30.x, v3.31.x, v3.32.x, v3.33.x"),
            "{bad}: {}",
            run.stderr
        );
    }
    let broken = run_in(
        dir.path(),
        "spec: [\n",
        &["upgrade", "-f", "cluster.yaml", "--to", "v3.32.1"],
    );
    assert_eq!(broken.code, Some(2), "{}", broken.stderr);
    assert!(broken.stdout.is_empty());
    assert!(
        broken.stderr.contains("cluster.yaml:") && broken.stderr.contains("not valid YAML"),
        "{}",
        broken.stderr
    );
    let missing = run_calico_render(
        &["upgrade", "-f", "no-such-file.yaml", "--to", "v3.32.1"],
        dir.path(),
        b"",
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no-such-file.yaml"));
}

#[test]
fn help() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = std::process::Command::new(calico_render_tests::calico_render())
        .args(["upgrade", "--help"])
        .env("COLUMNS", "100")
        .current_dir(dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    snapshot(
        "help-upgrade",
        &String::from_utf8(out.stdout).expect("UTF-8"),
    );
}

/// A v3.32 cluster on the native v3 CRDs keeps that mode on the way to v3.33: step 1 replaces
/// v3_projectcalico_org.yaml and creates v3.33's admission policies (new in that bundle: six
/// objects of admissionregistration.k8s.io/v1, from release-v3.33 at 6609dea), and the readiness
/// list says which mode is kept.
#[test]
fn a_native_v3_cluster_moves_to_v3_33_in_its_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let native = "\
apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
metadata:
  name: lab
spec:
  calicoVersion: v3.32.1
  calicoAPIServer: false
  podPools:
    - name: default-ipv4-ippool
      cidr: 172.20.0.0/16
  bgp:
    enabled: true
    asNumber: 64512
";
    let args = [
        "upgrade",
        "-f",
        "cluster.yaml",
        "--to",
        "v3.33.0",
        "-o",
        "json",
    ];
    let run = run_in(dir.path(), native, &args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let crds = &plan["steps"]["crds"];
    assert_eq!(
        crds["url"],
        "https://raw.githubusercontent.com/projectcalico/calico/v3.33.0/manifests/v3_projectcalico_org.yaml"
    );
    let created: Vec<&str> = crds["create"]
        .as_array()
        .expect("create")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(created.len(), 6, "{created:?}");
    assert!(created.contains(&"MutatingAdmissionPolicy tierlabel.policy.projectcalico.org"));
    let readiness = plan["readiness"].as_array().expect("readiness");
    assert!(
        readiness.iter().any(|item| item.as_str().is_some_and(
            |text| text.starts_with("API mode: native projectcalico.org/v3 CRDs, kept")
        )),
        "{readiness:?}"
    );
    // The same cluster with the Calico API server stays on operator-crds.yaml.
    let aggregated = native.replace("calicoAPIServer: false", "calicoAPIServer: true");
    let run = run_in(dir.path(), &aggregated, &args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert!(
        plan["steps"]["crds"]["url"]
            .as_str()
            .is_some_and(|url| url.ends_with("/v3.33.0/manifests/operator-crds.yaml"))
    );
    assert_eq!(plan["steps"]["crds"]["create"], serde_json::json!([]));
}
