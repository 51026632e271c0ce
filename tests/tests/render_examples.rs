//! Every example in `examples/*/cluster.yaml`, rendered in every output form, pinned by
//! snapshots; plus the properties the output must have whatever the example: the article's
//! objects, round-trips through the generated types, YAML 1.1 readers, determinism.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use calico_render::bundle::{self, Format, RenderConfig, Stage};
use calico_spec::cluster_network;
use calico_spec::generated::operator_tigera_io::v1;
use calico_spec::generated::projectcalico_org::v3;
use calico_spec::objects::Object;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The example folders that hold a ClusterNetwork (`examples/invalid` is validate's).
fn examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(workspace_root().join("examples"))
        .expect("examples directory")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_example = name != "invalid" && entry.path().join("cluster.yaml").is_file();
            is_example.then_some(name)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 5,
        "expected the five examples, found {names:?}"
    );
    names
}

/// The example's objects through the same path as `calico-render render`: parse, check,
/// compile and the rule catalogue. Warnings are allowed (the stderr snapshots pin them).
fn compile_example(name: &str) -> Vec<Object> {
    let file = format!("examples/{name}/cluster.yaml");
    let text = std::fs::read_to_string(workspace_root().join(&file)).expect("example readable");
    match cluster_network::load(&file, &text) {
        Ok(loaded) => loaded.objects,
        Err(err) => panic!("{file} does not load: {err}"),
    }
}

fn render(objects: &[Object], stage: Stage, format: Format) -> String {
    bundle::render_bundle(&RenderConfig { stage, format }, objects).expect("bundle renders")
}

fn out_dir_listing(objects: &[Object]) -> String {
    let config = RenderConfig {
        stage: Stage::All,
        format: Format::Yaml,
    };
    let files = bundle::bundle_files(&config, objects).expect("bundle files render");
    files
        .iter()
        .map(|file| format!("==> {} <==\n{}", file.name, file.contents))
        .collect()
}

/// What `render -o helm-values` prints.
fn helm_values(objects: &[Object]) -> String {
    let values: Vec<serde_json::Value> = objects.iter().map(Object::to_value).collect();
    let chart = calico_render::helm_values::to_chart_values(&values);
    calico_render::helm_values::to_values_yaml(&chart).expect("values render")
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/render"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn every_example_in_every_form() {
    for name in examples() {
        let objects = compile_example(&name);
        snapshot(
            &format!("{name}.yaml"),
            &render(&objects, Stage::All, Format::Yaml),
        );
        snapshot(
            &format!("{name}.operator.yaml"),
            &render(&objects, Stage::Operator, Format::Yaml),
        );
        snapshot(
            &format!("{name}.calico.yaml"),
            &render(&objects, Stage::Calico, Format::Yaml),
        );
        snapshot(
            &format!("{name}.json"),
            &render(&objects, Stage::All, Format::Json),
        );
        snapshot(&format!("{name}.out-dir"), &out_dir_listing(&objects));
        snapshot(&format!("{name}.helm-values.yaml"), &helm_values(&objects));
    }
}

/// The article's three objects, with every field the article sets, in the article's order.
#[test]
fn article_cluster_yields_exactly_its_three_objects() {
    let objects = compile_example("ha-ebpf");
    let heads: Vec<(&str, &str, &str)> = objects
        .iter()
        .map(|object| (object.api_version(), object.kind(), object.name()))
        .collect();
    assert_eq!(
        heads,
        [
            ("v1", "ConfigMap", "kubernetes-services-endpoint"),
            ("operator.tigera.io/v1", "Installation", "default"),
            ("operator.tigera.io/v1", "APIServer", "default"),
        ]
    );
    let values: Vec<serde_json::Value> = objects.iter().map(Object::to_value).collect();
    assert_eq!(values[0]["metadata"]["namespace"], "tigera-operator");
    assert_eq!(
        values[0]["data"],
        serde_json::json!({
            "KUBERNETES_SERVICE_HOST": "control.k8s.example.com",
            "KUBERNETES_SERVICE_PORT": "6443",
        })
    );
    let network = &values[1]["spec"]["calicoNetwork"];
    assert_eq!(network["linuxDataplane"], "BPF");
    assert_eq!(network["bgp"], "Disabled");
    let article_pool = serde_json::json!({
        "name": "default-ipv4-ippool",
        "cidr": "172.20.0.0/16",
        "blockSize": 26,
        "encapsulation": "VXLANCrossSubnet",
        "natOutgoing": "Enabled",
        "nodeSelector": "all()",
        "disableBGPExport": true,
    });
    let pools = network["ipPools"].as_array().expect("ipPools is a list");
    assert_eq!(pools.len(), 1);
    for (field, expected) in article_pool.as_object().expect("object") {
        assert_eq!(&pools[0][field], expected, "ipPools[0].{field}");
    }
    assert_eq!(values[2]["spec"], serde_json::json!({}));
}

/// Every rendered document reads back into the generated wire type and gives the same object.
#[test]
fn rendered_objects_round_trip_through_the_wire_types() {
    for name in examples() {
        let objects = compile_example(&name);
        let yaml = render(&objects, Stage::All, Format::Yaml);
        let documents: Vec<&str> = yaml.split("---\n").collect();
        assert_eq!(documents.len(), objects.len(), "{name}");
        for (object, document) in objects.iter().zip(documents) {
            let back = match object {
                Object::ConfigMap(_) => {
                    Object::ConfigMap(serde_saphyr::from_str(document).expect("ConfigMap"))
                }
                Object::Installation(_) => Object::Installation(Box::new(
                    serde_saphyr::from_str::<v1::Installation>(document).expect("Installation"),
                )),
                Object::APIServer(_) => Object::APIServer(
                    serde_saphyr::from_str::<v1::APIServer>(document).expect("APIServer"),
                ),
                Object::FelixConfiguration(_) => Object::FelixConfiguration(Box::new(
                    serde_saphyr::from_str::<v3::FelixConfiguration>(document).expect("Felix"),
                )),
                Object::BGPConfiguration(_) => Object::BGPConfiguration(
                    serde_saphyr::from_str::<v3::BGPConfiguration>(document).expect("BGPConf"),
                ),
                Object::BGPPeer(_) => {
                    Object::BGPPeer(serde_saphyr::from_str::<v3::BGPPeer>(document).expect("Peer"))
                }
                Object::IPPool(_) => {
                    Object::IPPool(serde_saphyr::from_str::<v3::IPPool>(document).expect("IPPool"))
                }
                other => panic!("no round-trip case for {}", other.kind()),
            };
            assert_eq!(&back, object, "{name}: {} {}", object.kind(), object.name());
        }
    }
}

#[test]
fn rendering_is_deterministic() {
    for name in examples() {
        let first = render(&compile_example(&name), Stage::All, Format::Yaml);
        let second = render(&compile_example(&name), Stage::All, Format::Yaml);
        assert_eq!(first, second, "{name}");
    }
}

/// The operator and calico stages partition the bundle, and FelixConfiguration is never
/// given a field the operator owns.
#[test]
fn stages_partition_the_bundle_and_felix_leaves_operator_fields_alone() {
    const OPERATOR_OWNED: [&str; 7] = [
        "bpfEnabled",
        "nftablesMode",
        "healthPort",
        "vxlanVNI",
        "vxlanPort",
        "programClusterRoutes",
        "routeTableRange",
    ];
    for name in examples() {
        let objects = compile_example(&name);
        let all = render(&objects, Stage::All, Format::Yaml);
        let operator = render(&objects, Stage::Operator, Format::Yaml);
        let calico = render(&objects, Stage::Calico, Format::Yaml);
        let joined = if calico.is_empty() {
            operator.clone()
        } else {
            format!("{operator}---\n{calico}")
        };
        assert_eq!(joined, all, "{name}");
        for object in &objects {
            // The operator writes these into `default` only; a per-node FelixConfiguration
            // (an extra object) may carry the CRD's own default, `nftablesMode: Auto`.
            if let Object::FelixConfiguration(_) = object
                && object.name() == "default"
            {
                let spec = &object.to_value()["spec"];
                for field in OPERATOR_OWNED {
                    assert!(
                        spec.get(field).is_none(),
                        "{name}: FelixConfiguration sets {field}"
                    );
                }
            }
        }
    }
}

/// What a YAML 1.1 reader (PyYAML, like kubectl's go-yaml v2) makes of the text, as JSON.
fn read_with_yaml_1_1(yaml: &str) -> Option<serde_json::Value> {
    let script = "import json, sys, yaml\n\
                  print(json.dumps(list(yaml.safe_load_all(sys.stdin)), sort_keys=True))";
    let child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) => return skip(&format!("python3 is not available ({err})")),
    };
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(yaml.as_bytes()).expect("write to python3");
    }
    let output = child.wait_with_output().expect("python3 runs");
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("No module named 'yaml'") {
            return skip("python3 has no PyYAML");
        }
        panic!("PyYAML refused the YAML:\n{stderr}\n{yaml}");
    }
    Some(serde_json::from_slice(&output.stdout).expect("python3 prints JSON"))
}

/// A missing YAML 1.1 reader is a skip with a notice, and a failure where the CI requires it.
fn skip(reason: &str) -> Option<serde_json::Value> {
    if std::env::var("CALICO_RENDER_E2E").as_deref() == Ok("required") {
        panic!("{reason}, and CALICO_RENDER_E2E=required");
    }
    calico_render_tests::say_skipped(
        "python3 with PyYAML",
        &format!("YAML 1.1 reader check: {reason}"),
    );
    None
}

#[test]
fn yaml_1_1_readers_see_the_same_values() {
    for name in examples() {
        let objects = compile_example(&name);
        let yaml = render(&objects, Stage::All, Format::Yaml);
        let Some(read_back) = read_with_yaml_1_1(&yaml) else {
            return;
        };
        let expected: Vec<serde_json::Value> = objects.iter().map(Object::to_value).collect();
        assert_eq!(read_back, serde_json::Value::Array(expected), "{name}");
    }
}

#[test]
fn yaml_1_1_lookalike_strings_survive() {
    let tricky = [
        "6443",
        "on",
        "On",
        "yes",
        "y",
        "NO",
        "off",
        "0x1F",
        "1e3",
        "0o17",
        "012",
        "1_000",
        "2001-12-14",
        "2001-12-14t21:59:43.10-05:00",
        "12:30",
        "190:20:30",
        "~",
        "null",
        "",
        ".inf",
        "-.Inf",
        ".NaN",
        "true",
        "1.10",
        "+1",
        "fd00::1",
        "2001:db8::1",
        "all()",
        "has(x) && y == 'z'",
        "#not-a-comment",
        "- dash",
        "key: value",
        "*alias",
        "&anchor",
        "!tag",
        "%percent",
        "@at",
        "`tick",
        "line\nbreak",
    ];
    let data: std::collections::BTreeMap<String, String> = tricky
        .iter()
        .enumerate()
        .map(|(idx, value)| (format!("K{idx:02}"), (*value).to_owned()))
        .collect();
    let config_map = k8s_openapi::api::core::v1::ConfigMap {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some("tricky".into()),
            ..Default::default()
        },
        data: Some(data),
        ..Default::default()
    };
    let object = Object::ConfigMap(config_map);
    let yaml = calico_render::yaml::to_yaml_stream(std::slice::from_ref(&object)).expect("emits");
    let Some(read_back) = read_with_yaml_1_1(&yaml) else {
        return;
    };
    assert_eq!(
        read_back,
        serde_json::Value::Array(vec![object.to_value()]),
        "{yaml}"
    );
}

/// `load` validates compiled objects without typing them again (`validate_compiled`), on the
/// grounds that they type by construction and already carry the operator's defaults. Hold both
/// grounds, for every example under every provider: applying the defaults again changes
/// nothing, and the shortcut reports exactly what the full pass over the same objects reports.
#[test]
fn compiled_objects_need_no_second_typing() {
    use calico_spec::cluster_network::KubernetesProvider as P;
    use calico_spec::defaults::{DefaultsContext, apply_operator_defaults};
    use calico_spec::rules;

    let providers = [
        P::None,
        P::Eks,
        P::Gke,
        P::Aks,
        P::OpenShift,
        P::DockerEnterprise,
        P::Rke2,
        P::Tkg,
        P::Kind,
    ];
    let mut checked = 0;
    for name in examples() {
        let file = format!("examples/{name}/cluster.yaml");
        let text = std::fs::read_to_string(workspace_root().join(&file)).expect("example readable");
        let parsed = cluster_network::parse(&file, &text).expect("example parses");
        for provider in providers {
            let mut cluster = parsed.cluster_network.clone();
            cluster.spec.kubernetes_provider = provider;
            let Ok(objects) = cluster_network::compile_unchecked(&cluster) else {
                continue;
            };
            let context = cluster_network::context(&cluster);
            for object in &objects {
                if let Object::Installation(installation) = object {
                    let provider = context
                        .provider
                        .as_deref()
                        .map(v1::InstallationSpecKubernetesProvider::from);
                    let again =
                        apply_operator_defaults(installation, &DefaultsContext { provider });
                    assert_eq!(
                        serde_json::to_value(&again).expect("installation serializes"),
                        serde_json::to_value(installation).expect("installation serializes"),
                        "{file} with provider {provider:?}: the defaults are not idempotent",
                        provider = cluster.spec.kubernetes_provider,
                    );
                }
            }
            let values: Vec<_> = objects.iter().map(Object::to_value).collect();
            assert_eq!(
                rules::validate_compiled(&objects, &context),
                rules::validate_values(&values, &context),
                "{file} with provider {:?}",
                cluster.spec.kubernetes_provider,
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 5 * 9,
        "only {checked} example/provider pairs compiled"
    );
}
