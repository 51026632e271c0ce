//! Exit codes and standard streams of `calico-render post-render` and `calico-render krm`,
//! without any external tool: what Helm, kustomize and kpt rely on (0 and the product on
//! standard output; 1 and nothing on standard output for invalid results, the KRM list aside;
//! 2 for usage errors and text that is not YAML).

use calico_render_tests::{run_calico_render, workspace_root};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], stdin: &str) -> Run {
    let output = run_calico_render(args, &workspace_root(), stdin.as_bytes());
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

const CHART: &str = "---\n# Source: chart/templates/sa.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: tigera-operator\n";

/// One row: arguments, standard input, expected exit code, a piece of standard error, and
/// whether standard output must be empty.
fn check(args: &[&str], stdin: &str, code: i32, stderr_has: &str, stdout_empty: bool) {
    let out = run(args, stdin);
    assert_eq!(out.code, Some(code), "{args:?}: {}", out.stderr);
    assert!(
        out.stderr.contains(stderr_has),
        "{args:?}: stderr {:?} lacks {stderr_has:?}",
        out.stderr
    );
    assert_eq!(
        out.stdout.is_empty(),
        stdout_empty,
        "{args:?}: stdout {:?}",
        out.stdout
    );
}

#[test]
fn post_render_exit_codes() {
    let ok = ["post-render", "-f", "examples/ha-ebpf/cluster.yaml"];
    check(&ok, CHART, 0, "", false);
    check(&ok, "", 0, "", false);
    check(
        &["post-render", "-f", "-"],
        CHART,
        2,
        "standard input carries the rendered chart",
        true,
    );
    check(
        &["post-render", "-f", "does/not/exist.yaml"],
        CHART,
        2,
        "cannot read the ClusterNetwork file",
        true,
    );
    check(
        &ok,
        "kind: A\n---\n[unclosed\n",
        2,
        "error: <stdin>:3:1: not valid YAML: ",
        true,
    );
    check(
        &ok,
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  typhaMetricsPort: many\n",
        1,
        "nothing was written",
        true,
    );
}

#[test]
fn post_render_keeps_the_chart_and_adds_ours() {
    let out = run(
        &["post-render", "-f", "examples/ha-ebpf/cluster.yaml"],
        CHART,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.starts_with(CHART), "{}", out.stdout);
    for kind in ["kind: ConfigMap", "kind: Installation", "kind: APIServer"] {
        assert!(out.stdout.contains(kind), "{kind} added");
    }
}

#[test]
fn krm_exit_codes() {
    let list = |config: &str| {
        format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n{config}"
        )
    };
    let good = list(
        "  apiVersion: v1\n  kind: ConfigMap\n  data:\n    file: examples/ha-ebpf/cluster.yaml\n",
    );
    let out = run(&["krm"], &good);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("kind: Installation"), "{}", out.stdout);

    // An invalid ClusterNetwork: exit 1, the list still comes back with the error as a result.
    let bad = list(
        "  apiVersion: v1\n  kind: ConfigMap\n  data:\n    clusterNetwork: |\n      apiVersion: calico-render.dev/v1alpha1\n      kind: ClusterNetwork\n      spec:\n        dataplane: Bogus\n",
    );
    let out = run(&["krm"], &bad);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stdout.contains("severity: error"), "{}", out.stdout);
    assert!(
        out.stdout
            .starts_with("apiVersion: config.kubernetes.io/v1")
    );

    check(
        &["krm"],
        "apiVersion: v1\nkind: List\n",
        1,
        "not a ResourceList",
        true,
    );
    check(
        &["krm"],
        "[unclosed\n",
        2,
        "error: <stdin>:1:1: not valid YAML: ",
        true,
    );
}
