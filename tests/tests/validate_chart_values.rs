//! `validate` on tigera-operator chart values (issue 18, item 5): values files, Flux
//! HelmReleases and Argo CD Applications. A table of fixtures (`tests/cases/chart-values/`)
//! gives each mistake kind its codes at their line and column; the chart's own values and the
//! examples validate clean; `render -o helm-values` and the chart's rendering agree; one full
//! report is a snapshot.

use std::path::{Path, PathBuf};
use std::process::Command;

use calico_render::chart::{self, ENDPOINT_KEY, Origin};
use calico_render::chart_values::{self, Reading};
use calico_spec::cluster_network;
use calico_spec::diag::{Diagnostic, Severity};
use calico_spec::objects::Object;
use calico_spec::rules::{Context, SourceText, ValidationOutcome};
use calico_spec::source::Limits;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(file: &str) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|err| panic!("{file}: {err}"))
}

fn validate_text(name: &str, text: &str, reading: Reading) -> ValidationOutcome {
    let texts = [SourceText { name, text }];
    chart_values::validate_texts(&texts, &Context::assumed(), &Limits::MANIFESTS, reading)
        .unwrap_or_else(|err| panic!("{name} is YAML: {err}"))
}

/// Code, document (counted from 1), line and column of every diagnostic, in report order.
fn findings(outcome: &ValidationOutcome) -> Vec<(&'static str, usize, usize, usize)> {
    outcome
        .diagnostics
        .iter()
        .map(|diag| {
            let loc = diag
                .location
                .as_ref()
                .expect("every finding has a position");
            (
                diag.code,
                loc.document + 1,
                loc.line.expect("a line"),
                loc.column.expect("a column"),
            )
        })
        .collect()
}

const CASES: &str = "tests/cases/chart-values";

/// Each fixture with every finding it must produce: (code, document, line, column). The
/// positions were read off the fixtures by hand.
#[test]
fn mistakes_have_codes_and_positions() {
    type Row = (&'static str, &'static [(&'static str, usize, usize, usize)]);
    let rows: &[Row] = &[
        ("valid.yaml", &[]),
        (
            "unknown-keys.yaml",
            &[
                // A misspelt section: the chart drops it, so its own Installation is the default.
                ("CR9001", 1, 1, 1),
                ("CR8002", 1, 3, 1),
                // Inside a section the object's schema decides, with "did you mean".
                ("CR0001", 1, 4, 3),
                ("CR9001", 1, 7, 3),
                ("CR9001", 1, 10, 5),
                // An Installation field at the top level.
                ("CR9001", 1, 11, 1),
                ("CR9001", 1, 15, 3),
            ],
        ),
        (
            "wrong-nesting.yaml",
            &[
                ("CR8002", 1, 1, 1),
                ("CR9002", 1, 2, 3),
                ("CR9002", 1, 5, 3),
                ("CR9002", 1, 7, 3),
                ("CR9002", 1, 9, 3),
            ],
        ),
        (
            "enum-case.yaml",
            &[
                ("CR5002", 1, 3, 10),
                ("CR5002", 1, 4, 21),
                ("CR5002", 1, 7, 24),
            ],
        ),
        (
            "ignored.yaml",
            &[
                ("CR9004", 1, 6, 3),
                ("CR9004", 1, 10, 1),
                ("CR9004", 1, 13, 3),
                // The second document of a values file, at its first key.
                ("CR9004", 2, 15, 1),
            ],
        ),
        (
            "dotted-keys.yaml",
            &[
                ("CR9003", 1, 1, 1),
                ("CR9003", 1, 2, 1),
                ("CR9002", 1, 4, 3),
                ("CR9003", 1, 9, 3),
            ],
        ),
        (
            "flux-helmrelease.yaml",
            &[
                ("CR5002", 2, 28, 14),
                ("CR1003", 2, 30, 19),
                ("CR9001", 2, 31, 5),
                ("CR6102", 2, 34, 13),
            ],
        ),
        (
            "argo-values-object.yaml",
            &[
                ("CR9002", 1, 15, 11),
                ("CR5002", 1, 18, 29),
                ("CR9003", 1, 21, 9),
                // `helm.values` beside `helm.valuesObject`.
                ("CR9004", 1, 22, 7),
            ],
        ),
        (
            "argo-values-string.yaml",
            &[
                // A literal block: positions inside the string are the file's.
                ("CR5002", 1, 19, 20),
                ("CR9001", 1, 24, 13),
                // A quoted string: everything at the string.
                ("CR5002", 2, 37, 15),
                ("CR8002", 2, 37, 15),
            ],
        ),
    ];
    for (file, expected) in rows {
        let name = format!("{CASES}/{file}");
        let outcome = validate_text(&name, &read(&name), Reading::Detect);
        assert_eq!(
            findings(&outcome),
            *expected,
            "{name}: {:#?}",
            outcome.diagnostics
        );
        assert!(
            outcome
                .diagnostics
                .iter()
                .all(|diag| diag.location.as_ref().is_some_and(|loc| loc.file == name)),
            "{name}"
        );
    }
}

fn find<'a>(outcome: &'a ValidationOutcome, code: &str, line: usize) -> &'a Diagnostic {
    outcome
        .diagnostics
        .iter()
        .find(|diag| {
            diag.code == code && diag.location.as_ref().and_then(|loc| loc.line) == Some(line)
        })
        .unwrap_or_else(|| panic!("{code} at line {line}: {:#?}", outcome.diagnostics))
}

/// What each kind of finding says: the path in values terms and a hint that fixes it.
#[test]
fn findings_speak_chart_values() {
    let name = format!("{CASES}/unknown-keys.yaml");
    let outcome = validate_text(&name, &read(&name), Reading::Detect);
    let typo = find(&outcome, "CR9001", 1);
    assert_eq!(typo.severity, Severity::Warning);
    assert_eq!(typo.hint.as_deref(), Some("did you mean `installation`?"));
    let field = find(&outcome, "CR0001", 4);
    assert_eq!(field.path, "installation.calicoNetwrok");
    assert_eq!(field.hint.as_deref(), Some("did you mean `calicoNetwork`?"));
    let misplaced = find(&outcome, "CR9001", 11);
    assert!(
        misplaced
            .hint
            .as_deref()
            .is_some_and(|hint| hint.contains("`installation.calicoNetwork`")),
        "{misplaced:?}"
    );
    // The default pool comes from the chart's defaults when `installation` is misspelt away.
    let default_pool = find(&outcome, "CR8002", 3);
    assert_eq!(default_pool.path, "installation.calicoNetwork");

    let name = format!("{CASES}/wrong-nesting.yaml");
    let outcome = validate_text(&name, &read(&name), Reading::Detect);
    let nesting = find(&outcome, "CR9002", 2);
    assert_eq!(nesting.severity, Severity::Error);
    assert_eq!(nesting.path, "installation.spec");
    assert_eq!(
        find(&outcome, "CR9002", 7).hint.as_deref(),
        Some("move it to `installation.calicoNetwork.linuxDataplane`")
    );

    let name = format!("{CASES}/enum-case.yaml");
    let outcome = validate_text(&name, &read(&name), Reading::Detect);
    let case = find(&outcome, "CR5002", 3);
    assert_eq!(case.path, "installation.calicoNetwork.bgp");
    assert_eq!(
        case.hint.as_deref(),
        Some("did you mean `Enabled`? values are case-sensitive")
    );

    let name = format!("{CASES}/dotted-keys.yaml");
    let outcome = validate_text(&name, &read(&name), Reading::Detect);
    assert_eq!(
        find(&outcome, "CR9003", 1).hint.as_deref(),
        Some("nest the keys: `installation: {calicoNetwork: {bgp: Enabled}}`")
    );
    assert_eq!(
        find(&outcome, "CR9002", 4).hint.as_deref(),
        Some("nest the keys: `calicoNetwork: {mtu: 1400}`")
    );

    let name = format!("{CASES}/argo-values-string.yaml");
    let outcome = validate_text(&name, &read(&name), Reading::Detect);
    let exact = find(&outcome, "CR5002", 19);
    assert!(
        !exact
            .hint
            .as_deref()
            .unwrap_or_default()
            .contains("position")
    );
    let approximate = find(&outcome, "CR5002", 37);
    assert!(
        approximate
            .hint
            .as_deref()
            .is_some_and(|hint| hint.contains("only a literal block")),
        "{approximate:?}"
    );
}

/// The HelmRelease of another chart and the HelmRepository are reported as skipped, as
/// before; the one for tigera-operator is not (its values were checked), nor are the Goldmane
/// and Whisker its defaults render (checked as the metadata-only objects they are).
#[test]
fn skipped_documents() {
    let name = format!("{CASES}/flux-helmrelease.yaml");
    let outcome = validate_text(&name, &read(&name), Reading::Detect);
    let skipped: Vec<(usize, &str)> = outcome
        .skipped
        .iter()
        .map(|skip| (skip.document + 1, skip.kind.as_deref().unwrap_or_default()))
        .collect();
    assert_eq!(skipped, [(1, "HelmRepository"), (3, "HelmRelease")]);
}

/// The chart's own values.yaml: no error; only the lint for the pool the operator will make.
#[test]
fn the_charts_defaults_validate() {
    let name = "calico-render/chart-values/v3.32.1/tigera-operator-values.yaml";
    let outcome = validate_text(name, &read(name), Reading::Detect);
    assert_eq!(findings(&outcome), [("CR8002", 1, 11, 1)]);
}

/// Without `--chart-values` a mapping with none of the chart's keys is not a values file; with
/// it every file is one.
#[test]
fn chart_values_flag_forces_the_reading() {
    let text = "instalation:\n  enabled: true\n";
    let detected = validate_text("x.yaml", text, Reading::Detect);
    assert_eq!(findings(&detected), [("CR0004", 1, 1, 1)]);
    // Read as values, the misspelt key is dropped and the chart's default Installation stays.
    let forced = validate_text("x.yaml", text, Reading::ChartValues);
    assert_eq!(
        findings(&forced),
        [("CR8002", 1, 1, 1), ("CR9001", 1, 1, 1)]
    );
    // An empty file is the chart's defaults.
    let empty = validate_text("empty.yaml", "", Reading::ChartValues);
    assert_eq!(findings(&empty), [("CR8002", 1, 1, 1)]);
    // Plain manifests are still plain manifests next to chart values.
    let manifest = "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p\nspec:\n  cidr: 10.0.0.1/16\n";
    let plain = validate_text("pool.yaml", manifest, Reading::Detect);
    assert_eq!(findings(&plain), [("CR1003", 1, 6, 9)]);
}

/// The example ClusterNetworks' `render -o helm-values` output for every release, read back as
/// that release's chart values: the chart renders exactly our Installation, APIServer and
/// endpoint ConfigMap from it (plus the empty `imagePullSecrets` its template always writes),
/// and validation for that release finds no error and nothing chart-specific to complain about.
#[test]
fn helm_values_round_trip() {
    for example in calico_render_tests::example_names() {
        for release in &calico_spec::release::RELEASES {
            let text = calico_render_tests::example_for(&example, release.calico);
            // ebpf-self-managed needs v3.31.
            let Ok(loaded) = cluster_network::load("cluster.yaml", &text) else {
                assert_eq!(
                    (example.as_str(), release.calico),
                    ("ebpf-self-managed", "v3.30.7")
                );
                continue;
            };
            let example = format!("{example} {}", release.calico);
            let objects: Vec<Value> = loaded.objects.iter().map(Object::to_value).collect();
            let values = calico_render::helm_values::to_chart_values_for(release, &objects);
            let rendered = chart::render(&chart::coalesce(
                chart::defaults_for(release),
                &values.values,
            ));
            let mut compared = 0;
            for object in &rendered.objects {
                let ours = objects
                    .iter()
                    .find(|ours| {
                        ours["kind"] == object.value["kind"]
                            && ours["metadata"]["name"] == object.value["metadata"]["name"]
                    })
                    .unwrap_or_else(|| {
                        panic!(
                            "{example}: the chart renders {} we do not have",
                            object.value["kind"]
                        )
                    });
                match &object.origin {
                    Origin::Section { section, .. } => {
                        let mut expected = ours["spec"].clone();
                        if *section == chart::INSTALLATION {
                            expected
                                .as_object_mut()
                                .expect("a spec")
                                .entry("imagePullSecrets")
                                .or_insert(Value::Array(Vec::new()));
                        }
                        assert_eq!(
                            object.value["spec"], expected,
                            "{example}: {}",
                            section.kind
                        );
                    }
                    Origin::Endpoint => assert_eq!(object.value["data"], ours["data"], "{example}"),
                }
                compared += 1;
            }
            assert!(compared >= 2, "{example}: {compared} objects");
            let yaml = calico_render::helm_values::to_values_yaml(&values).expect("values render");
            let texts = [SourceText {
                name: "values.yaml",
                text: &yaml,
            }];
            let outcome = chart_values::validate_texts_for(
                release,
                &texts,
                &Context::assumed(),
                &Limits::MANIFESTS,
                Reading::ChartValues,
            )
            .expect("YAML");
            let unexpected: Vec<&Diagnostic> = outcome
                .diagnostics
                .iter()
                .filter(|diag| diag.severity == Severity::Error || diag.code.starts_with("CR9"))
                .collect();
            assert!(unexpected.is_empty(), "{example}: {unexpected:#?}\n{yaml}");
            let written: Vec<&str> = values
                .values
                .as_object()
                .expect("a mapping")
                .keys()
                .map(String::as_str)
                .collect();
            assert!(written.contains(&ENDPOINT_KEY), "{example}: {written:?}");
        }
    }
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(calico_render_tests::calico_render());
    command.args(args).current_dir(root());
    command
}

/// Exit statuses of the examples, and `--chart-values` on the command line.
#[test]
fn cli_examples() {
    for (file, exit) in [
        ("examples/chart-values/values.yaml", 0),
        ("examples/chart-values/helmrelease.yaml", 0),
        ("examples/chart-values/application.yaml", 0),
        ("examples/chart-values/mistakes.yaml", 1),
    ] {
        let output = command(&["validate", "-f", file]).output().expect("runs");
        assert_eq!(
            output.status.code(),
            Some(exit),
            "{file}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
    let output = command(&[
        "validate",
        "-f",
        "tests/cases/chart-values/flux-helmrelease.yaml",
        "--chart-values",
        "-o",
        "json",
    ])
    .output()
    .expect("runs");
    // Read as a values file, a HelmRelease is all unknown keys (and only its first document).
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|diag| diag["code"].as_str())
        .collect();
    assert!(
        codes.contains(&"CR9001") && codes.contains(&"CR9004"),
        "{codes:?}"
    );
}

/// One full text report: every mistake kind in one file, as a user sees it.
#[test]
fn mistakes_report() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../snapshots/validate"
    ));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta_cmd::assert_cmd_snapshot!(
            "chart_values_mistakes",
            command(&["validate", "-f", "examples/chart-values/mistakes.yaml"])
        );
    });
}
