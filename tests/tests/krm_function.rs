//! The KRM function through the library, with a stand-in for ClusterNetwork compilation:
//! generator and transformer use, annotation preservation, results, function config forms.

use crate::post_render_stream::PlainFinish;
use calico_render::krm::{self, Generate, Generated, Origin};
use calico_spec::diag::{Diagnostic, Location, Severity};
use serde_json::{Value, json};

/// Compiles any text into the same two objects; the text `invalid` gives an error instead.
struct Fake;

impl Generate for Fake {
    fn generate(&self, origin: &Origin, text: &str) -> Generated {
        if text.trim() == "invalid" || text.contains("invalid: true") {
            return Generated {
                objects: Vec::new(),
                diagnostics: vec![Diagnostic {
                    severity: Severity::Error,
                    code: "CR1203",
                    path: "spec.podPools[0].blockSize".to_owned(),
                    message: "blockSize 40 is outside 20..32".to_owned(),
                    hint: Some("use a block size between 20 and 32".to_owned()),
                    location: Some(Location {
                        file: origin.file_name().to_owned(),
                        document: 0,
                        line: Some(7),
                        column: Some(18),
                    }),
                }],
            };
        }
        Generated {
            objects: vec![
                json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
                       "metadata": {"name": "default"},
                       "spec": {"calicoNetwork": {"bgp": "Disabled"}}}),
                json!({"apiVersion": "operator.tigera.io/v1", "kind": "APIServer",
                       "metadata": {"name": "default"}, "spec": {}}),
            ],
            diagnostics: vec![Diagnostic {
                severity: Severity::Warning,
                code: "CR8001",
                path: "spec.podPools[0].cidr".to_owned(),
                message: "pool overlaps a LAN range".to_owned(),
                hint: None,
                location: None,
            }],
        }
    }

    fn read_file(&self, path: &str) -> std::io::Result<String> {
        match path {
            "cluster.yaml" => Ok("apiVersion: calico-render.dev/v1alpha1\n".to_owned()),
            "bad.yaml" => Ok("invalid".to_owned()),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file",
            )),
        }
    }
}

/// A ResourceList as kustomize passes it to a generator: the function config, marked
/// local-config, as the only item.
const GENERATOR: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: calico-render.dev/v1alpha1
  kind: ClusterNetwork
  metadata:
    name: lab
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: ./calico-render-krm
      config.kubernetes.io/local-config: 'true'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/id: '1'
  spec: # comments survive
    apiEndpoint: {host: api.example, port: 6443}
functionConfig:
  apiVersion: calico-render.dev/v1alpha1
  kind: ClusterNetwork
  metadata:
    name: lab
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: ./calico-render-krm
  spec:
    apiEndpoint: {host: api.example, port: 6443}
";

/// A transformer's input: the chart's Installation (with kustomize's ids) and another item.
const TRANSFORMER: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: v1
    kind: ServiceAccount
    metadata:
      name: tigera-operator
      namespace: tigera-operator
      annotations:
        config.kubernetes.io/index: '0'
        internal.config.kubernetes.io/index: '0'
        internal.config.kubernetes.io/id: '1'
        config.k8s.io/id: '1'
        kustomize.config.k8s.io/id: |
          kind: ServiceAccount
          name: tigera-operator
          namespace: tigera-operator
          version: v1
  - apiVersion: operator.tigera.io/v1
    kind: Installation
    metadata:
      name: default
      annotations:
        internal.config.kubernetes.io/id: '2'
        config.k8s.io/id: '2'
        kustomize.config.k8s.io/id: |
          group: operator.tigera.io
          kind: Installation
          name: default
          version: v1
    spec:
      registry: registry.example/
      calicoNetwork:
        bgp: Enabled
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: calico
  data:
    file: cluster.yaml
";

fn run(input: &str) -> krm::KrmOutput {
    krm::run(input, &Fake, &PlainFinish).expect("a ResourceList comes out")
}

fn parse(text: &str) -> Value {
    serde_saphyr::from_str(text).expect("the output is YAML")
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/adapters"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn generator_appends_our_objects_and_copies_the_config_item() {
    let output = run(GENERATOR);
    assert!(!output.failed);
    assert!(
        output.copied_items,
        "plain block style is copied, not re-serialized"
    );
    // The function config item comes out exactly as it went in, comments included.
    let item_start = GENERATOR.find("- apiVersion").expect("item");
    let item_end = GENERATOR.find("functionConfig:").expect("config");
    assert!(output.text.contains(&GENERATOR[item_start..item_end]));
    let list = parse(&output.text);
    let kinds: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["kind"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(kinds, ["ClusterNetwork", "Installation", "APIServer"]);
    assert_eq!(list["results"][0]["severity"], "warning");
    snapshot("krm_generator", &output.text);
}

#[test]
fn transformer_merges_and_keeps_tool_annotations() {
    let output = run(TRANSFORMER);
    assert!(!output.failed);
    assert!(output.copied_items);
    let list = parse(&output.text);
    let items = list["items"].as_array().expect("items");
    assert_eq!(
        items.len(),
        3,
        "ServiceAccount, merged Installation, appended APIServer"
    );
    let installation = &items[1];
    assert_eq!(installation["spec"]["calicoNetwork"]["bgp"], "Disabled");
    assert_eq!(installation["spec"]["registry"], "registry.example/");
    let annotations = &installation["metadata"]["annotations"];
    for key in [
        "internal.config.kubernetes.io/id",
        "config.k8s.io/id",
        "kustomize.config.k8s.io/id",
    ] {
        assert!(annotations.get(key).is_some(), "{key} kept");
    }
    // The untouched item is byte for byte the input's.
    let start = TRANSFORMER.find("  - apiVersion: v1").expect("item");
    let end = TRANSFORMER.find("  - apiVersion: operator").expect("item");
    assert!(output.text.contains(&TRANSFORMER[start..end]));
    snapshot("krm_transformer", &output.text);
}

#[test]
fn errors_become_results_and_leave_items_unchanged() {
    let input = TRANSFORMER.replace("file: cluster.yaml", "file: bad.yaml");
    let output = run(&input);
    assert!(output.failed);
    let list = parse(&output.text);
    let original = parse(&input);
    assert_eq!(list["items"], original["items"]);
    let result = &list["results"][0];
    assert_eq!(result["severity"], "error");
    assert_eq!(
        result["message"],
        "CR1203: blockSize 40 is outside 20..32; use a block size between 20 and 32"
    );
    assert_eq!(result["field"]["path"], "spec.podPools[0].blockSize");
    assert_eq!(result["file"]["path"], "bad.yaml");
    assert_eq!(result["resourceRef"]["kind"], "ConfigMap");
    snapshot("krm_error_results", &output.text);
}

#[test]
fn function_config_forms() {
    let check = |config: &str, failed: bool, message: &str| {
        let input = format!(
            "apiVersion: config.kubernetes.io/v1beta1\nkind: ResourceList\nitems: []\n{config}"
        );
        let output = run(&input);
        assert_eq!(output.failed, failed, "{config}: {}", output.text);
        let list = parse(&output.text);
        let first = list["results"][0]["message"].as_str().unwrap_or_default();
        assert!(
            first.contains(message),
            "{config}: {first:?} should contain {message:?}"
        );
    };
    check(
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    file: cluster.yaml\n",
        false,
        "overlaps",
    );
    check(
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    clusterNetwork: |\n      invalid: true\n",
        true,
        "CR1203",
    );
    check(
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    file: missing.yaml\n",
        true,
        "cannot read the ClusterNetwork file `missing.yaml`",
    );
    check(
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    other: x\n",
        true,
        "neither `data.file` nor `data.clusterNetwork`",
    );
    check(
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    file: a\n    clusterNetwork: b\n",
        true,
        "both",
    );
    check(
        "functionConfig:\n  apiVersion: v1\n  kind: Secret\n",
        true,
        "kind `Secret` is not supported",
    );
    check("", true, "no functionConfig");
}

#[test]
fn unusual_lists_are_rewritten_from_the_parse() {
    // JSON in, as a KRM function may also receive.
    let input = r#"{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
        "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}],
        "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"file": "cluster.yaml"}}}"#;
    let output = run(input);
    assert!(!output.failed);
    assert!(!output.copied_items);
    let list = parse(&output.text);
    assert_eq!(list["items"].as_array().map(Vec::len), Some(3));
    assert_eq!(list["functionConfig"]["data"]["file"], "cluster.yaml");
}

#[test]
fn refuses_what_is_not_a_resource_list() {
    let check = |input: &str, expected: &str| {
        let err = krm::run(input, &Fake, &PlainFinish).expect_err("refused");
        assert!(err.to_string().contains(expected), "{err}");
    };
    check(
        "kind: List\napiVersion: v1\n",
        "not a ResourceList (found apiVersion `v1`, kind `List`)",
    );
    check("[unclosed\n", "not YAML");
    check(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- 1\n",
        "items[0] is not an object",
    );
    check(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {}\n- 1\n",
        "items[1] is not an object",
    );
    // Not a list at all: no item to name.
    let err = krm::run(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {}\n",
        &Fake,
        &PlainFinish,
    )
    .expect_err("refused");
    assert!(
        err.to_string()
            .ends_with("`items` of the ResourceList must be a list of objects"),
        "{err}"
    );
}
