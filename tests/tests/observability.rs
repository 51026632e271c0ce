//! Goldmane and Whisker (`spec.goldmane`, `spec.whisker`): what a ClusterNetwork renders with
//! each switch, in every supported release, through `-o helm-values`, and overrides of them.
//!
//! Facts the expectations come from: the Calico v3.30+ quickstart `custom-resources.yaml`
//! writes Goldmane `default` and Whisker `default` with no spec, and both kinds' CRDs exist from
//! v3.30 (`crds/v3.30.7/operator.tigera.io_goldmanes.yaml`, `_whiskers.yaml`); the
//! tigera-operator chart renders both from `goldmane.enabled` / `whisker.enabled` (metadata only).

use calico_render::bundle::{self, Format, RenderConfig, Stage};
use calico_spec::cluster_network;
use calico_spec::objects::Object;
use serde_json::{Value, json};

/// A small ClusterNetwork for `version`, with `extra` appended to its spec.
fn cluster(version: &str, extra: &str) -> String {
    format!(
        "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: obs\nspec:\n  calicoVersion: {version}\n  podPools:\n    - name: default-ipv4-ippool\n      cidr: 10.244.0.0/16\n      encapsulation: VXLANCrossSubnet\n{extra}"
    )
}

fn objects(text: &str) -> Vec<Object> {
    match cluster_network::load("cluster.yaml", text) {
        Ok(loaded) => loaded.objects,
        Err(err) => panic!("does not load: {err}\n{text}"),
    }
}

fn kinds(objects: &[Object]) -> Vec<&'static str> {
    objects.iter().map(Object::kind).collect()
}

/// Each switch renders its object, in the operator stage right after the APIServer, with the
/// quickstart's empty spec, for every supported release.
#[test]
fn each_switch_renders_its_object_in_every_release() {
    let cases: [(&str, &[&str]); 4] = [
        ("", &["Installation", "APIServer"]),
        (
            "  goldmane: true\n",
            &["Installation", "APIServer", "Goldmane"],
        ),
        (
            "  whisker: true\n",
            &["Installation", "APIServer", "Whisker"],
        ),
        (
            "  goldmane: true\n  whisker: true\n  calicoAPIServer: false\n",
            &["Installation", "Goldmane", "Whisker"],
        ),
    ];
    for release in &calico_spec::release::RELEASES {
        for (extra, expected) in cases {
            let objects = objects(&cluster(release.calico, extra));
            assert_eq!(kinds(&objects), expected, "{} {extra:?}", release.calico);
            for object in &objects {
                if matches!(object.kind(), "Goldmane" | "Whisker") {
                    assert!(object.is_operator_stage(), "{}", object.kind());
                    assert_eq!(
                        object.to_value(),
                        json!({"apiVersion": "operator.tigera.io/v1", "kind": object.kind(),
                               "metadata": {"name": "default"}, "spec": {}})
                    );
                }
            }
        }
    }
}

/// The bundle with both on, as `render` prints it (reviewed snapshot), and its operator stage
/// holds both.
#[test]
fn both_on_renders_the_quickstart_objects() {
    let objects = objects(&cluster("v3.32.1", "  goldmane: true\n  whisker: true\n"));
    let config = |stage| RenderConfig {
        stage,
        format: Format::Yaml,
    };
    let all = bundle::render_bundle(&config(Stage::All), &objects).expect("renders");
    let operator = bundle::render_bundle(&config(Stage::Operator), &objects).expect("renders");
    let calico = bundle::render_bundle(&config(Stage::Calico), &objects).expect("renders");
    for kind in ["kind: Goldmane", "kind: Whisker"] {
        assert!(operator.contains(kind), "{operator}");
        assert!(!calico.contains(kind), "{calico}");
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/render"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("observability-all", all));
}

/// `-o helm-values` turns the chart's Goldmane and Whisker on exactly when the ClusterNetwork
/// does, for every release's chart.
#[test]
fn helm_values_follow_the_switches() {
    let cases = [
        ("", false, false),
        ("  goldmane: true\n", true, false),
        ("  goldmane: true\n  whisker: true\n", true, true),
    ];
    for release in &calico_spec::release::RELEASES {
        for (extra, goldmane, whisker) in cases {
            let values: Vec<Value> = objects(&cluster(release.calico, extra))
                .iter()
                .map(Object::to_value)
                .collect();
            let chart = calico_render::helm_values::to_chart_values_for(release, &values);
            let label = format!("{} {extra:?}", release.calico);
            assert_eq!(
                chart.values["goldmane"],
                json!({"enabled": goldmane}),
                "{label}"
            );
            assert_eq!(
                chart.values["whisker"],
                json!({"enabled": whisker}),
                "{label}"
            );
            assert!(chart.extra.is_empty(), "{label}: {:?}", chart.extra);
            // What the chart renders from those values is exactly our Goldmane and Whisker.
            let rendered = calico_render::chart::render(&calico_render::chart::coalesce(
                calico_render::chart::defaults_for(release),
                &chart.values,
            ));
            let chart_kinds: Vec<&str> = rendered
                .objects
                .iter()
                .filter_map(|object| object.value["kind"].as_str())
                .filter(|kind| matches!(*kind, "Goldmane" | "Whisker"))
                .collect();
            let ours: Vec<&str> = values
                .iter()
                .filter_map(|object| object["kind"].as_str())
                .filter(|kind| matches!(*kind, "Goldmane" | "Whisker"))
                .collect();
            assert_eq!(chart_kinds, ours, "{label}");
        }
    }
}

/// Overrides reach Goldmane and Whisker like the APIServer's, and need their switch.
#[test]
fn overrides_need_the_switch() {
    let whisker = objects(&cluster(
        "v3.32.1",
        "  whisker: true\n  overrides:\n    whisker:\n      spec:\n        notifications: Disabled\n",
    ));
    let value = whisker
        .iter()
        .find(|object| object.kind() == "Whisker")
        .map(Object::to_value)
        .expect("a Whisker");
    assert_eq!(value["spec"], json!({"notifications": "Disabled"}));

    for (extra, message) in [
        (
            "  overrides:\n    goldmane:\n      spec: {}\n",
            "there is no Goldmane to override: `spec.goldmane` is false",
        ),
        (
            "  overrides:\n    whisker:\n      spec: {}\n",
            "there is no Whisker to override: `spec.whisker` is false",
        ),
    ] {
        let text = cluster("v3.32.1", extra);
        let err = cluster_network::load("cluster.yaml", &text)
            .err()
            .unwrap_or_else(|| panic!("{extra:?} loads"));
        assert!(err.to_string().contains(message), "{err}");
    }
}

/// The quickstart `custom-resources.yaml` files of v3.30 to v3.32 (the real corpus, byte for
/// byte) import to `goldmane: true` and `whisker: true`, with nothing kept in overrides and no
/// CN0415, and the imported ClusterNetwork renders Goldmane and Whisker `default` again.
#[test]
fn the_quickstart_imports_and_renders_goldmane_and_whisker() {
    use calico_render::import::{self, Options};
    use calico_spec::rules::SourceText;
    for file in [
        "v3.30.7__manifests__custom-resources.yaml",
        "v3.31.7__manifests__custom-resources.yaml",
        "v3.31.7__manifests__custom-resources-bpf.yaml",
        "v3.32.1__manifests__custom-resources.yaml",
        "v3.32.1__manifests__custom-resources-bpf.yaml",
    ] {
        let path = calico_render_tests::workspace_root()
            .join("tests/cases/real/projectcalico__calico")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let imported = import::import_texts(
            &[SourceText {
                name: file,
                text: &text,
            }],
            &Options::default(),
        )
        .unwrap_or_else(|err| panic!("{file}: {err:?}"));
        let spec = &imported.cluster_network.spec;
        assert!(spec.goldmane && spec.whisker, "{file}");
        assert!(
            spec.overrides.goldmane.is_none() && spec.overrides.whisker.is_none(),
            "{file}"
        );
        assert!(
            imported
                .text
                .contains("\n  goldmane: true\n  whisker: true\n"),
            "{file}:\n{}",
            imported.text
        );
        assert!(
            imported.report.iter().all(|diag| diag.code != "CN0415"),
            "{file}: {:?}",
            imported.report
        );
        let rendered = objects(&imported.text);
        let observability: Vec<&str> = kinds(&rendered)
            .into_iter()
            .filter(|kind| matches!(*kind, "Goldmane" | "Whisker"))
            .collect();
        assert_eq!(observability, ["Goldmane", "Whisker"], "{file}");
    }
}

/// Import of Goldmane and Whisker in other shapes: a spec goes to the overrides, another name
/// is named with CN0415 and left out.
#[test]
fn import_keeps_a_spec_and_leaves_out_other_names() {
    use calico_render::import::{self, Options};
    use calico_spec::rules::SourceText;
    const INSTALLATION: &str = "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  calicoNetwork:\n    ipPools:\n      - name: default-ipv4-ippool\n        cidr: 10.244.0.0/16\n";
    let import = |extra: &str| {
        let text = format!("{INSTALLATION}---\n{extra}");
        import::import_texts(
            &[SourceText {
                name: "live.yaml",
                text: &text,
            }],
            &Options::default(),
        )
        .unwrap_or_else(|err| panic!("{extra}: {err:?}"))
    };
    let with_spec = import(
        "apiVersion: operator.tigera.io/v1\nkind: Whisker\nmetadata:\n  name: default\nspec:\n  notifications: Disabled\n",
    );
    let spec = &with_spec.cluster_network.spec;
    assert!(spec.whisker && !spec.goldmane);
    assert_eq!(
        spec.overrides.whisker.as_ref().and_then(|o| o.spec.clone()),
        json!({"notifications": "Disabled"}).as_object().cloned()
    );
    let other_name =
        import("apiVersion: operator.tigera.io/v1\nkind: Goldmane\nmetadata:\n  name: extra\n");
    assert!(!other_name.cluster_network.spec.goldmane);
    let outside: Vec<&str> = other_name
        .report
        .iter()
        .filter(|diag| diag.code == "CN0415")
        .map(|diag| diag.message.as_str())
        .collect();
    assert_eq!(outside.len(), 1, "{:?}", other_name.report);
    assert!(outside[0].contains("Goldmane `extra`"), "{outside:?}");
}
