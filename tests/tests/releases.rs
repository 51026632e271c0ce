//! Several Calico releases (issue 15): what each release's schema index accepts, as `validate`
//! and `patch` report it with `--calico-version`, against the newest release's verdict.

use std::process::{Command, Output};

use calico_spec::release::{RELEASES, Release};
use calico_spec::rules::{self, Context, InputDocument};
use calico_spec::source::{Limits, parse_stream};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `(code, path)` of every error of `yaml` validated for `version`.
fn errors(version: &str, yaml: &str) -> Vec<(String, String)> {
    let release = Release::for_version(version).expect("supported");
    let documents = parse_stream(yaml, &Limits::MANIFESTS).expect("YAML");
    let inputs: Vec<InputDocument<'_>> = documents
        .iter()
        .map(|document| InputDocument {
            file: "case.yaml",
            document,
        })
        .collect();
    let mut outcome = rules::validate(&inputs, &Context::assumed());
    calico_spec::release::apply_to_outcome(release, &inputs, &mut outcome);
    outcome
        .diagnostics
        .iter()
        .filter(|d| d.severity == calico_spec::diag::Severity::Error)
        .map(|d| (d.code.to_owned(), d.path.clone()))
        .collect()
}

fn felix(spec: &str) -> String {
    format!(
        "apiVersion: projectcalico.org/v3\nkind: FelixConfiguration\nmetadata:\n  name: default\nspec:\n{spec}"
    )
}

fn installation(spec: &str) -> String {
    format!(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n{spec}"
    )
}

fn owned(rows: &[(&str, &str)]) -> Vec<(String, String)> {
    rows.iter()
        .map(|(c, p)| (c.to_string(), p.to_string()))
        .collect()
}

/// One row: a document, and the errors each release (v3.30.7, v3.31.7, v3.32.1) reports.
struct Row {
    yaml: String,
    per_release: [&'static [(&'static str, &'static str)]; 3],
}

#[test]
fn each_release_accepts_its_own_fields_and_values() {
    let rows = [
        // Added in v3.31.
        Row {
            yaml: felix("  bpfJITHardening: Auto\n"),
            per_release: [&[("CR0007", "spec.bpfJITHardening")], &[], &[]],
        },
        // Added in v3.32.
        Row {
            yaml: felix("  istioAmbientMode: Enabled\n"),
            per_release: [
                &[("CR0007", "spec.istioAmbientMode")],
                &[("CR0007", "spec.istioAmbientMode")],
                &[],
            ],
        },
        // Dropped in v3.32: known to v3.30 and v3.31.
        Row {
            yaml: felix("  iptablesLockTimeout: 10s\n"),
            per_release: [&[], &[], &[("CR0001", "spec.iptablesLockTimeout")]],
        },
        // An enum value dropped in v3.32.
        Row {
            yaml: felix("  bpfRedirectToPeer: L2Only\n"),
            per_release: [&[], &[], &[("CR4010", "spec.bpfRedirectToPeer")]],
        },
        // An enum value added in v3.31.
        Row {
            yaml: installation("  kubernetesProvider: Kind\n"),
            per_release: [&[("CR0008", "spec.kubernetesProvider")], &[], &[]],
        },
        // cni.specVersion exists in v3.31 only.
        Row {
            yaml: installation("  cni:\n    type: Calico\n    specVersion: 0.3.1\n"),
            per_release: [
                &[("CR0007", "spec.cni.specVersion")],
                &[],
                &[("CR0001", "spec.cni.specVersion")],
            ],
        },
        Row {
            yaml: installation("  calicoNetwork:\n    kubeProxyManagement: Enabled\n"),
            per_release: [&[("CR0007", "spec.calicoNetwork.kubeProxyManagement")], &[], &[]],
        },
        Row {
            yaml: "apiVersion: projectcalico.org/v3\nkind: BGPPeer\nmetadata:\n  name: p\nspec:\n  peerIP: 10.0.0.1\n  asNumber: 64512\n  keepaliveTime: 30s\n  localASNumber: 64513\n".to_owned(),
            per_release: [
                &[("CR0007", "spec.keepaliveTime"), ("CR0007", "spec.localASNumber")],
                &[("CR0007", "spec.keepaliveTime")],
                &[],
            ],
        },
        Row {
            yaml: "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p\nspec:\n  cidr: 10.10.0.0/16\n  allowedUses: [Workload]\n  namespaceSelector: all()\n".to_owned(),
            per_release: [&[("CR0007", "spec.namespaceSelector")], &[], &[]],
        },
        // Known everywhere: nothing to say in any release.
        Row {
            yaml: felix("  logSeverityScreen: Info\n"),
            per_release: [&[], &[], &[]],
        },
    ];
    let mut failures = Vec::new();
    for row in &rows {
        for (release, expected) in RELEASES.iter().zip(row.per_release) {
            let mut got = errors(release.calico, &row.yaml);
            got.sort();
            let mut want = owned(expected);
            want.sort();
            if got != want {
                failures.push(format!(
                    "{}:\n{}\n  got {got:?}\n  want {want:?}",
                    release.calico, row.yaml
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_field_of_a_later_release_names_that_release() {
    let release = &RELEASES[0];
    let documents =
        parse_stream(&felix("  istioAmbientMode: Enabled\n"), &Limits::MANIFESTS).expect("YAML");
    let inputs = [InputDocument {
        file: "f.yaml",
        document: &documents[0],
    }];
    let mut outcome = rules::validate(&inputs, &Context::assumed());
    calico_spec::release::apply_to_outcome(release, &inputs, &mut outcome);
    let diag = &outcome.diagnostics[0];
    assert_eq!(diag.code, "CR0007");
    assert_eq!(
        diag.message,
        "field `istioAmbientMode` is not known to Calico v3.30 (v3.30.7); it first appears in Calico v3.32"
    );
    let location = diag.location.as_ref().expect("located");
    assert_eq!((location.line, location.column), (Some(6), Some(3)));
}

fn run(args: &[&str]) -> Output {
    Command::new(calico_render_tests::calico_render())
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("calico-render runs")
}

#[test]
fn validate_refuses_an_unsupported_version_with_the_list() {
    for bad in ["v3.29.4", "v3.33.0", "latest"] {
        let out = run(&[
            "validate",
            "-f",
            "examples/invalid/manifests.yaml",
            "--calico-version",
            bad,
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("supported: v3.30.x, v3.31.x, v3.32.x"),
            "{bad}: {stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_default_is_the_newest_release() {
    let file = "examples/invalid/manifests.yaml";
    let default = run(&["validate", "-f", file, "-o", "json"]);
    let newest = run(&[
        "validate",
        "-f",
        file,
        "-o",
        "json",
        "--calico-version",
        "v3.32.1",
    ]);
    assert_eq!(default.stdout, newest.stdout);
    assert_eq!(default.status.code(), newest.status.code());
}

#[test]
fn validate_and_patch_follow_the_version() {
    let dir = tempfile::tempdir().expect("temp dir");
    let desired = dir.path().join("felix.yaml");
    std::fs::write(&desired, felix("  bpfJITHardening: Auto\n")).expect("write");
    let live = dir.path().join("live.yaml");
    std::fs::write(&live, felix("  logSeverityScreen: Info\n")).expect("write");
    let desired = desired.to_str().expect("utf-8 path");
    let live = live.to_str().expect("utf-8 path");
    for (version, code) in [("v3.30.7", 1), ("v3.31.7", 0), ("v3.32.1", 0)] {
        let out = run(&["validate", "-f", desired, "--calico-version", version]);
        assert_eq!(out.status.code(), Some(code), "validate {version}");
        let out = run(&[
            "patch",
            "-f",
            desired,
            "--live",
            live,
            "--calico-version",
            version,
        ]);
        assert_eq!(out.status.code(), Some(code), "patch {version}");
        if code == 1 {
            assert!(out.stdout.is_empty(), "a refused patch prints nothing");
            assert!(String::from_utf8_lossy(&out.stderr).contains("CR0007"));
        }
    }
}
