//! Exit codes and standard streams of `calico-render post-render` and `calico-render krm`,
//! without any external tool: what Helm, kustomize and kpt rely on (0 and the product on
//! standard output; 1 and nothing on standard output for invalid results, the KRM list aside;
//! 2 for usage errors and text that is not YAML).

use std::env;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits one level below the workspace root")
        .to_path_buf()
}

/// The binary for this test executable's profile, built (or confirmed fresh) once; see
/// `e2e_k8s.rs` for why the tests crate builds it itself. `CALICO_RENDER_E2E_BIN` overrides.
fn binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = env::var_os("CALICO_RENDER_E2E_BIN").filter(|v| !v.is_empty()) {
            return PathBuf::from(bin);
        }
        let exe = env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>/deps/<test>");
        let target_dir = profile_dir.parent().expect("target directory");
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("debug");
        let cargo_profile = if profile == "debug" { "dev" } else { profile };
        let status = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args([
                "build",
                "--quiet",
                "-p",
                "calico-render",
                "--bin",
                "calico-render",
            ])
            .args(["--profile", cargo_profile])
            .env("CARGO_TARGET_DIR", target_dir)
            .current_dir(workspace_root())
            .stdin(Stdio::null())
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building calico-render failed");
        profile_dir.join(format!("calico-render{}", env::consts::EXE_SUFFIX))
    })
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(binary())
        .args(args)
        .current_dir(workspace_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start calico-render");
    let mut input = child.stdin.take().expect("stdin");
    // The command may exit before reading everything (usage errors); that is not a failure.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let output = child.wait_with_output().expect("wait");
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
        "is not valid YAML",
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
    check(&["krm"], "[unclosed\n", 2, "not YAML", true);
}
