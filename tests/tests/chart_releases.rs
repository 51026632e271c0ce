//! Chart values per Calico release (issue 15 item 5): `render -o helm-values` writes values for
//! the ClusterNetwork's own release's chart, from that release's values file
//! (`calico-render/chart-values/<release>/`), and `validate --calico-version` checks chart
//! values against that release's chart and schema. The chart's rendering of each release's
//! values is compared with our objects in `validate_chart_values::helm_values_round_trip`.

use calico_render::chart;
use calico_spec::objects::Object;
use calico_spec::release::{RELEASES, Release};
use serde_json::Value;

use calico_render_tests::{example_for, example_names, run_calico_render, workspace_root};

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace_root().join("snapshots/releases"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// The objects of `name` for `release`, or `None` when the release refuses the example.
fn objects_for(name: &str, release: &Release) -> Option<Vec<Value>> {
    let text = example_for(name, release.calico);
    let loaded = calico_spec::cluster_network::load("cluster.yaml", &text).ok()?;
    Some(loaded.objects.iter().map(Object::to_value).collect())
}

/// What `render -o helm-values` prints for every example and every release but the default is
/// pinned (`snapshots/releases/<example>.<release>.helm-values.snap`; the default release's are
/// `snapshots/render/<example>.helm-values.yaml.snap`), and the CLI prints the same bytes.
#[test]
fn helm_values_of_every_example_for_every_release() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut pinned = 0;
    for name in example_names() {
        for release in &RELEASES {
            let Some(objects) = objects_for(&name, release) else {
                continue;
            };
            let values = calico_render::helm_values::to_chart_values_for(release, &objects);
            let yaml = calico_render::helm_values::to_values_yaml(&values).expect("values");
            assert!(
                yaml.starts_with(&format!(
                    "# Values for the tigera-operator Helm chart {},",
                    release.calico
                )),
                "{name} {}: {yaml}",
                release.calico
            );
            std::fs::write(
                dir.path().join("cluster.yaml"),
                example_for(&name, release.calico),
            )
            .expect("write");
            let out = run_calico_render(
                &["render", "-f", "cluster.yaml", "-o", "helm-values"],
                dir.path(),
                b"",
            );
            assert_eq!(out.status.code(), Some(0), "{name} {}", release.calico);
            assert_eq!(String::from_utf8_lossy(&out.stdout), yaml, "{name}");
            if release != Release::default_target() {
                snapshot(&format!("{name}.{}.helm-values", release.calico), &yaml);
                pinned += 1;
            }
        }
    }
    // Six examples on the three releases besides the default; ebpf-self-managed is refused on
    // v3.30.
    assert_eq!(pinned, 17);
}

/// The values name only keys of the release's own chart: every chart default cleared under
/// `installation` is a default of that release's values file, and each of those defaults is
/// either set by us or cleared.
#[test]
fn helm_values_clear_exactly_the_release_chart_defaults() {
    for release in &RELEASES {
        let objects = objects_for("ha-ebpf", release).expect("ha-ebpf renders everywhere");
        let values = calico_render::helm_values::to_chart_values_for(release, &objects);
        let installation = values.values["installation"]
            .as_object()
            .expect("installation values");
        let defaults: Vec<&str> = chart::installation_default_keys_for(release).collect();
        for (key, value) in installation {
            if value.is_null() {
                assert!(
                    defaults.contains(&key.as_str()),
                    "{}: clears `{key}`, which its chart does not have",
                    release.calico
                );
            }
        }
        for key in &defaults {
            assert!(
                installation.contains_key(*key),
                "{}: leaves the chart default `{key}`",
                release.calico
            );
        }
    }
    let cleared = |version: &str| -> Vec<String> {
        let release = Release::for_version(version).expect("supported");
        let objects = objects_for("ha-ebpf", release).expect("renders");
        let values = calico_render::helm_values::to_chart_values_for(release, &objects);
        let mut keys: Vec<String> = values.values["installation"]
            .as_object()
            .expect("a mapping")
            .iter()
            .filter(|(_, value)| value.is_null())
            .map(|(key, _)| key.clone())
            .collect();
        keys.sort();
        keys
    };
    // The three values files differ: read from each one, not restated.
    assert_eq!(cleared("v3.30.7"), ["kubernetesProvider"]);
    assert_eq!(cleared("v3.31.7"), ["kubernetesProvider"]);
    assert_eq!(
        cleared("v3.32.1"),
        [
            "controlPlaneNodeSelector",
            "controlPlaneTolerations",
            "kubernetesProvider",
            "nonPrivileged"
        ]
    );
}

/// `validate --calico-version` on chart values: a field of a later release is CR0007 at the
/// values key, and a top-level key only v3.30.7's chart has is that chart's.
#[test]
fn validate_checks_chart_values_for_the_release() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("values.yaml"),
        "kubeletVolumePluginPath: /var/lib/kubelet\ninstallation:\n  calicoNetwork:\n    \
         bpfNetworkBootstrap: Enabled\n    linuxDataplane: BPF\n",
    )
    .expect("write");
    let codes = |version: &str| -> Vec<(String, String, u64)> {
        let out = run_calico_render(
            &[
                "validate",
                "--chart-values",
                "-f",
                "values.yaml",
                "-o",
                "json",
                "--calico-version",
                version,
            ],
            dir.path(),
            b"",
        );
        let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["code"] != "CR8002")
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or_default().to_owned(),
                    d["path"].as_str().unwrap_or_default().to_owned(),
                    d["line"].as_u64().unwrap_or_default(),
                )
            })
            .collect()
    };
    let owned = |rows: &[(&str, &str, u64)]| -> Vec<(String, String, u64)> {
        rows.iter()
            .map(|(c, p, l)| ((*c).to_owned(), (*p).to_owned(), *l))
            .collect()
    };
    assert_eq!(
        codes("v3.30.7"),
        owned(&[(
            "CR0007",
            "installation.calicoNetwork.bpfNetworkBootstrap",
            4
        )])
    );
    assert_eq!(
        codes("v3.31.7"),
        owned(&[("CR9001", "kubeletVolumePluginPath", 1)])
    );
    assert_eq!(codes("v3.32.1"), codes("v3.31.7"));
}
