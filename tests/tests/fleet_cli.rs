//! `render` and `validate` of a fleet: the report is locked by snapshots, a fleet renders each
//! cluster exactly as a render of that cluster alone would, the bytes do not depend on the
//! number of threads, and one invalid cluster is named without hiding the others and stops
//! every write.

use calico_render_tests::{run_calico_render, workspace_root};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

const FLEET: &str = "examples/fleet/fleet.yaml";
const BROKEN: &str = "examples/fleet/broken/fleet.yaml";

fn run(args: &[&str]) -> Output {
    run_calico_render(args, &workspace_root(), b"")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/fleet"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Every file under `dir`, by path relative to it, to its contents.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).expect("list") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("below dir");
                out.insert(
                    relative.display().to_string(),
                    std::fs::read_to_string(&path).expect("read"),
                );
            }
        }
    }
    out
}

#[test]
fn validate_reports_a_clean_fleet_and_a_broken_one() {
    let clean = run(&["validate", "-f", FLEET]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stderr));
    snapshot("validate-fleet", &text(&clean.stdout));

    // Warnings only: exit 0, and every overlap the broken fleet was built with is there.
    let broken = run(&["validate", "-f", BROKEN]);
    assert_eq!(broken.status.code(), Some(0), "{}", text(&broken.stderr));
    let report = text(&broken.stdout);
    for code in [
        "FL0101", "FL0102", "FL0104", "FL0105", "FL0106", "FL0107", "FL0202", "FL0203", "FL0204",
    ] {
        assert!(
            report.contains(&format!("warning[{code}]")),
            "{code} missing:\n{report}"
        );
    }
    snapshot("validate-broken-fleet", &report);
    let json = run(&["validate", "-f", BROKEN, "-o", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(value["clusters"].as_array().map(Vec::len), Some(9));
    snapshot("validate-broken-fleet-json", &text(&json.stdout));

    // `--deny` applies to fleet codes like any lint.
    let denied = run(&["validate", "-f", BROKEN, "--deny", "FL0101"]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(text(&denied.stdout).contains("error[FL0101]"));
}

#[test]
fn a_folder_is_a_fleet_without_a_fleet_file() {
    let out = run(&["validate", "-f", "examples/fleet/clusters"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    for name in ["east-1", "east-2", "edge-1", "west-1"] {
        assert!(report.contains(name), "{report}");
    }
    assert!(report.starts_with("CLUSTER"), "{report}");
}

/// A fleet's folders hold exactly what `render --out-dir` of each cluster alone writes, and the
/// bytes are the same on one thread and on eight.
#[test]
fn render_writes_each_cluster_as_a_single_render_would() {
    let fleet_dir = tempfile::tempdir().expect("temp dir");
    let out = fleet_dir.path().to_str().expect("UTF-8");
    let rendered = run_calico_render_env(&["render", "-f", FLEET, "--out-dir", out], "1");
    assert_eq!(
        rendered.status.code(),
        Some(0),
        "{}",
        text(&rendered.stderr)
    );
    let fleet = tree(fleet_dir.path());

    let mut alone = BTreeMap::new();
    for name in ["east-1", "east-2", "edge-1", "west-1"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = format!("examples/fleet/clusters/{name}.yaml");
        let one = run(&[
            "render",
            "-f",
            &file,
            "--out-dir",
            dir.path().to_str().expect("UTF-8"),
        ]);
        assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
        for (path, contents) in tree(dir.path()) {
            alone.insert(format!("{name}/{path}"), contents);
        }
    }
    assert_eq!(fleet, alone);

    let again = tempfile::tempdir().expect("temp dir");
    let out = again.path().to_str().expect("UTF-8");
    let eight = run_calico_render_env(&["render", "-f", FLEET, "--out-dir", out], "8");
    assert_eq!(eight.status.code(), Some(0));
    assert_eq!(tree(again.path()), fleet);
    assert_eq!(eight.stderr, rendered.stderr);
    snapshot("render-fleet-stderr", &text(&rendered.stderr));
}

fn run_calico_render_env(args: &[&str], threads: &str) -> Output {
    std::process::Command::new(calico_render_tests::calico_render())
        .args(args)
        .current_dir(workspace_root())
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("calico-render runs")
}

#[test]
fn one_invalid_cluster_is_named_and_nothing_is_written() {
    let input = tempfile::tempdir().expect("temp dir");
    for name in ["east-1", "edge-1"] {
        std::fs::copy(
            workspace_root().join(format!("examples/fleet/clusters/{name}.yaml")),
            input.path().join(format!("{name}.yaml")),
        )
        .expect("copy");
    }
    std::fs::write(
        input.path().join("bad.yaml"),
        "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: bad\nspec:\n  podPools:\n    - name: p\n      cidr: 10.0.0.1/16\n",
    )
    .expect("write");
    std::fs::write(input.path().join("notyaml.yaml"), "a: [\n").expect("write");
    let out_dir = tempfile::tempdir().expect("temp dir");
    let target = out_dir.path().join("out");
    let out = run(&[
        "render",
        "-f",
        input.path().to_str().expect("UTF-8"),
        "--out-dir",
        target.to_str().expect("UTF-8"),
    ]);
    // Text that is not YAML is exit 2, as for one cluster.
    assert_eq!(out.status.code(), Some(2));
    let report = text(&out.stderr);
    assert!(report.contains("bad.yaml:8:13: error[CN0102]"), "{report}");
    assert!(report.contains("notyaml.yaml:"), "{report}");
    for (name, status) in [
        ("bad", "invalid"),
        ("east-1", "ok"),
        ("edge-1", "ok"),
        ("notyaml", "not-yaml"),
    ] {
        assert!(
            report
                .lines()
                .any(|line| line.starts_with(name) && line.contains(status)),
            "{name} {status}:\n{report}"
        );
    }
    assert!(report.contains("nothing was written"), "{report}");
    assert!(!target.exists());
}

#[test]
fn fleet_file_mistakes_and_usage() {
    let dir = tempfile::tempdir().expect("temp dir");
    let clusters = workspace_root().join("examples/fleet/clusters");
    let fleet = dir.path().join("fleet.yaml");
    std::fs::write(
        &fleet,
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: Fleet\nspec:\n  clusters:\n    - {}/*.yaml\n    - nowhere/*.yaml\n",
            clusters.display()
        ),
    )
    .expect("write");
    let out = run(&["validate", "-f", fleet.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains(":6:7: error[FL0001]: `nowhere/*.yaml` names no ClusterNetwork file"),
        "{}",
        text(&out.stderr)
    );

    std::fs::write(
        &fleet,
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: Fleet\nspec:\n  clusters: ['{}']\n  routing:\n    - name: g\n      clusters: [east-1, east2]\n",
            clusters.display()
        ),
    )
    .expect("write");
    let out = run(&["validate", "-f", fleet.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains(":7:26: error[FL0001]: routing group `g` names `east2`"),
        "{report}"
    );
    assert!(report.contains("did you mean `east-2`?"), "{report}");

    let out = run(&["render", "-f", FLEET]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("add `--out-dir DIR`"));
    assert!(out.stdout.is_empty());
}
