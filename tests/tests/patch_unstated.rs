//! `patch` respects choices the spec does not speak about (issue 14, item 3): a live
//! Installation value that differs from the rendered default of a field the ClusterNetwork
//! neither states nor overrides is reported, not reverted, unless `--revert-unstated`.

use std::process::Command;

use calico_render_tests::calico_render;
use serde_json::{Value, json};

const CLUSTER: &str = "apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
spec:
  podPools:
    - name: default-ipv4-ippool
      cidr: 172.20.0.0/16
";

/// A scratch directory of the caller's own, removed when dropped. The suite runs its tests as
/// threads of one process, so a directory named after the process id alone is shared: one
/// test's write of `cluster.yaml` could truncate the file while another test's render read it.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("scratch dir")
}

fn render(cluster: &str) -> Vec<Value> {
    let dir = scratch();
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, cluster).expect("write");
    let output = Command::new(calico_render())
        .args(["render", "-o", "json", "-f"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let list: Value = serde_json::from_slice(&output.stdout).expect("a JSON List");
    list["items"].as_array().expect("items").clone()
}

/// The live Installation as the official chart leaves it: rendered, written back, with the
/// chart's two choices and a status.
fn chart_live() -> Value {
    let mut installation = render(CLUSTER)
        .into_iter()
        .find(|object| object["kind"] == "Installation")
        .expect("an Installation");
    installation["spec"]["kubeletVolumePluginPath"] = json!("None");
    installation["spec"]["flexVolumePath"] = json!("None");
    installation["metadata"]["resourceVersion"] = json!("4711");
    installation["status"] = json!({"variant": "Calico"});
    installation
}

fn patch(cluster: &str, live: &Value, extra: &[&str]) -> (i32, String, String) {
    let dir = scratch();
    std::fs::write(dir.path().join("cluster.yaml"), cluster).expect("write");
    std::fs::write(dir.path().join("live.json"), live.to_string()).expect("write");
    let output = Command::new(calico_render())
        .args(["patch", "-f", "cluster.yaml", "--live", "live.json"])
        .args(extra)
        .current_dir(dir.path())
        .output()
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_charts_choices_are_reported_not_reverted() {
    let (code, out, err) = patch(CLUSTER, &chart_live(), &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "[]\n", "{err}");
    for field in ["spec.kubeletVolumePluginPath", "spec.flexVolumePath"] {
        assert!(
            err.contains(&format!("LIVE Installation default sets {field}: \"None\"")),
            "{err}"
        );
    }
    assert!(err.contains("your spec is silent"), "{err}");
    assert!(err.contains("--revert-unstated"), "{err}");
}

#[test]
fn revert_unstated_reverts_them_to_the_defaults() {
    let (code, out, err) = patch(CLUSTER, &chart_live(), &["--revert-unstated"]);
    assert_eq!(code, 0, "{err}");
    let ops: Value = serde_json::from_str(&out).expect("a JSON patch");
    let paths: Vec<&str> = ops
        .as_array()
        .expect("ops")
        .iter()
        .map(|op| op["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        ["/spec/flexVolumePath", "/spec/kubeletVolumePluginPath"],
        "{out}"
    );
    assert!(!err.contains("your spec is silent"), "{err}");
}

#[test]
fn a_stated_field_is_managed() {
    // The override states the chart's choice for one field: live agrees, nothing to patch
    // there; the other is still reported. A stated field that differs is patched.
    let cluster = format!(
        "{CLUSTER}  overrides:
    installation:
      spec:
        kubeletVolumePluginPath: None
        registry: registry.example.com/
"
    );
    let (code, out, err) = patch(&cluster, &chart_live(), &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out, "[{\"op\":\"add\",\"path\":\"/spec/registry\",\"value\":\"registry.example.com/\"}]\n",
        "{err}"
    );
    assert!(err.contains("sets spec.flexVolumePath"), "{err}");
    assert!(!err.contains("sets spec.kubeletVolumePluginPath"), "{err}");
}

#[test]
fn a_vocabulary_field_is_always_managed() {
    let mut live = chart_live();
    live["spec"]["calicoNetwork"]["bgp"] = json!("Enabled");
    let (code, out, err) = patch(CLUSTER, &live, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out, "[{\"op\":\"replace\",\"path\":\"/spec/calicoNetwork/bgp\",\"value\":\"Disabled\"}]\n",
        "{err}"
    );
}
