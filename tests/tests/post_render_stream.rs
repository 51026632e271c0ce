//! The post-render stream transformer, driven through the library with hand-written objects:
//! pass-through byte for byte, the merge rule, validity before output, spooling, fallbacks.

use calico_render::merge::{Finish, merge_object};
use calico_render::post_render::{Options, Placement, PostRenderError, post_render};
use calico_spec::diag::{Diagnostic, Severity};
use serde_json::{Value, json};

/// A finish that checks nothing and writes YAML with the library's plain writer, so that these
/// tests can use hand-written objects and see the merge alone; `adapters_agree` runs the real
/// check.
pub(crate) struct PlainFinish;

impl Finish for PlainFinish {
    fn check(&self, _objects: &[Value]) -> Vec<Diagnostic> {
        Vec::new()
    }

    fn to_yaml(&self, object: &Value) -> Result<String, calico_render::yaml::EmitError> {
        calico_render::yaml::value_to_yaml(object)
    }
}

/// A chart stream as Helm 4 writes it for a post-renderer, with the documents a scanner must
/// not be fooled by: comment-only and empty documents, flow style, an anchor, a block scalar
/// holding `---`-looking text, a JSON document, a `...` end marker and CRLF line ends.
const CHART: &str = "\
---
# Source: tigera-operator/templates/tigera-operator/02-serviceaccount-tigera-operator.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tigera-operator
  namespace: calico-system
---
# Source: tigera-operator/templates/empty.yaml
---
# Source: tigera-operator/templates/tigera-operator/01-kubernetes-services-endpoint.yaml
kind: ConfigMap
apiVersion: v1
metadata:
  name: kubernetes-services-endpoint
  namespace: calico-system
  annotations:
    postrenderer.helm.sh/postrender-filename: tigera-operator/templates/tigera-operator/01-kubernetes-services-endpoint.yaml
data:
  KUBERNETES_SERVICE_HOST: \"old.example\"
  KUBERNETES_SERVICE_PORT: \"443\"
  EXTRA_KEY: \"kept\"
---
# Source: tigera-operator/templates/odd.yaml
{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"json-style\"}}
---
# Source: tigera-operator/templates/anchors.yaml
apiVersion: v1
kind: ConfigMap
metadata: &meta
  name: anchored
data:
  script: |
    ---
    kind: Installation
---
# Source: tigera-operator/templates/tigera-operator/02-tigera-operator.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tigera-operator
  namespace: calico-system
spec:
  replicas: 1\r
  template: {}\r
---
# Source: tigera-operator/templates/crs/custom-resources.yaml
apiVersion: operator.tigera.io/v1
kind: Installation
metadata:
  name: default
  annotations:
    postrenderer.helm.sh/postrender-filename: tigera-operator/templates/crs/custom-resources.yaml
spec:
  registry: registry.example/
  kubeletVolumePluginPath: None
  calicoNetwork:
    bgp: Enabled
    ipPools:
    - cidr: 192.168.0.0/16
      name: chart-pool
...
---
# Source: tigera-operator/templates/tail.yaml
apiVersion: v1
kind: Secret
metadata:
  name: last
type: Opaque
";

fn ours() -> Vec<Value> {
    vec![
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "kubernetes-services-endpoint", "namespace": "tigera-operator"},
               "data": {"KUBERNETES_SERVICE_HOST": "control.k8s.example.com",
                        "KUBERNETES_SERVICE_PORT": "6443"}}),
        json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
               "metadata": {"name": "default"},
               "spec": {"calicoNetwork": {"bgp": "Disabled", "linuxDataplane": "BPF",
                        "ipPools": [{"name": "default-ipv4-ippool", "cidr": "10.244.0.0/16",
                                     "encapsulation": "VXLANCrossSubnet"}]}}}),
        json!({"apiVersion": "operator.tigera.io/v1", "kind": "APIServer",
               "metadata": {"name": "default"}, "spec": {}}),
        json!({"apiVersion": "projectcalico.org/v3", "kind": "BGPConfiguration",
               "metadata": {"name": "default"}, "spec": {"asNumber": 64512}}),
    ]
}

fn run(
    input: &str,
    ours: &[Value],
    finish: &dyn Finish,
    options: &Options,
) -> (
    Vec<u8>,
    Result<calico_render::post_render::Summary, PostRenderError>,
) {
    let mut output = Vec::new();
    let result = post_render(&mut input.as_bytes(), &mut output, ours, finish, options);
    (output, result)
}

/// The documents of `text` split on `---` lines, with their bytes.
fn chunks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (idx, _) in text.match_indices("---\n") {
        if (idx == 0 || text.as_bytes()[idx - 1] == b'\n') && idx > start {
            out.push(&text[start..idx]);
            start = idx;
        } else if idx == 0 {
            start = 0;
        }
    }
    out.push(&text[start..]);
    out
}

#[test]
fn untouched_documents_pass_byte_for_byte() {
    let (output, result) = run(CHART, &ours(), &PlainFinish, &Options::default());
    let summary = result.expect("post-render succeeds");
    let output = String::from_utf8(output).expect("utf-8");
    let input_chunks = chunks(CHART);
    let output_chunks = chunks(&output);
    // Same number of documents plus the two we append (APIServer, BGPConfiguration).
    assert_eq!(output_chunks.len(), input_chunks.len() + 2, "{output}");
    for (input, out) in input_chunks.iter().zip(&output_chunks) {
        let ours = input.contains("name: kubernetes-services-endpoint")
            || input.contains("kind: Installation\nmetadata:\n  name: default");
        if ours {
            // The `---` line and the `# Source:` comment stay; the body is rewritten.
            let preamble: String = input.lines().take(2).map(|l| format!("{l}\n")).collect();
            assert!(out.starts_with(&preamble), "preamble kept:\n{out}");
            assert_ne!(input, out);
        } else {
            assert_eq!(input, out, "untouched document changed");
        }
    }
    assert_eq!(
        summary
            .objects
            .iter()
            .map(|(_, _, p)| p.clone())
            .collect::<Vec<_>>(),
        vec![
            Placement::Merged { line: 10 },
            Placement::Merged { line: 46 },
            Placement::Appended,
            Placement::Appended
        ]
    );
    assert_eq!(summary.documents, 8);
    assert_eq!(
        summary.parsed_fallback, 3,
        "the JSON, the anchored and the `...` documents"
    );
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/adapters"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("post_render_stream", output);
    });
}

#[test]
fn spooling_to_a_file_gives_the_same_bytes() {
    let (in_memory, result) = run(CHART, &ours(), &PlainFinish, &Options::default());
    result.expect("in memory");
    let tiny = Options {
        spool_memory: 16,
        read_buffer: 1,
    };
    let (spooled, result) = run(CHART, &ours(), &PlainFinish, &tiny);
    result.expect("spooled");
    assert_eq!(
        String::from_utf8_lossy(&spooled),
        String::from_utf8_lossy(&in_memory)
    );
}

/// A chart several times the size of the smaller spools below, with the documents we merge
/// into in its middle and at its very end, lines longer than the scanner keeps (in a document
/// of ours and in another), and no final line break.
fn long_chart() -> String {
    let long = "x".repeat(6000);
    let mut text = format!(
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  big: {long}\n\
         ---\napiVersion: operator.tigera.io/v1\nkind: APIServer\nmetadata:\n  name: other\n  \
         annotations:\n    note: {long}\n"
    );
    for idx in 0..40 {
        text.push_str(&format!(
            "---\n# Source: chart/templates/sa-{idx}.yaml\napiVersion: v1\nkind: ServiceAccount\n\
             metadata:\n  name: sa-{idx}\n  namespace: calico-system\nsecrets:\n  - name: s\n\n"
        ));
        if idx == 20 {
            text.push_str(CHART);
        }
    }
    text.push_str(
        "---\n# Source: chart/templates/crs/apiserver.yaml\napiVersion: operator.tigera.io/v1\n\
         kind: APIServer\nmetadata:\n  name: default\nspec:\n  logging: {}",
    );
    text
}

/// Wherever the memory part of the spool ends and wherever reads cut the stream (inside a
/// document we merge into, inside a line, on a line break), the output is the same bytes as
/// with the defaults, which keep this whole chart in memory.
#[test]
fn spool_and_read_sizes_do_not_change_the_output() {
    let chart = long_chart();
    let (expected, result) = run(&chart, &ours(), &PlainFinish, &Options::default());
    let summary = result.expect("in memory");
    let merged: Vec<bool> = summary
        .objects
        .iter()
        .map(|(_, _, placement)| matches!(placement, Placement::Merged { .. }))
        .collect();
    // ConfigMap, Installation and the last document (APIServer) merged; BGPConfiguration added.
    assert_eq!(merged, [true, true, true, false]);
    let expected = String::from_utf8(expected).expect("utf-8");
    assert!(
        expected
            .contains("kind: APIServer\nmetadata:\n  name: default\nspec:\n  logging: {}\n---\n"),
        "{expected}"
    );
    let installation = chart.find("kind: Installation").expect("installation");
    let check = |spool_memory: usize, read_buffer: usize| {
        let options = Options {
            spool_memory,
            read_buffer,
        };
        let (output, result) = run(&chart, &ours(), &PlainFinish, &options);
        result.unwrap_or_else(|err| panic!("{options:?}: {err}"));
        assert!(
            String::from_utf8_lossy(&output) == expected,
            "{options:?} changed the output"
        );
    };
    for spool_memory in [
        0,
        1,
        4096,
        installation - 30,
        installation + 5,
        chart.len() - 3,
    ] {
        for read_buffer in [1, 7, 64, 4096, 1 << 20] {
            check(spool_memory, read_buffer);
        }
    }
    check(installation, 13);
}

/// A check that refuses everything, to prove nothing is written before the check.
struct Refuse;

impl Finish for Refuse {
    fn check(&self, _objects: &[Value]) -> Vec<Diagnostic> {
        vec![Diagnostic {
            severity: Severity::Error,
            code: "CR0000",
            path: "spec".to_owned(),
            message: "refused".to_owned(),
            hint: None,
            location: None,
        }]
    }

    fn to_yaml(&self, object: &Value) -> Result<String, calico_render::yaml::EmitError> {
        PlainFinish.to_yaml(object)
    }
}

#[test]
fn failures_write_nothing() {
    let check = |input: &str, ours: &[Value], finish: &dyn Finish, expected: &str| {
        let (output, result) = run(input, ours, finish, &Options::default());
        let err = result.expect_err("must fail");
        assert!(output.is_empty(), "nothing written on {err}");
        assert!(
            format!("{err}").contains(expected),
            "{err} should contain {expected:?}"
        );
    };
    check(CHART, &ours(), &Refuse, "invalid (1 errors)");
    check(
        "kind: A\n---\n[unclosed\n",
        &ours(),
        &PlainFinish,
        "document 2 of the rendered chart (line 3) is not valid YAML",
    );
    check(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\n---\n\
         apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\n",
        &ours(),
        &PlainFinish,
        "Installation `default` twice (lines 1 and 5)",
    );
    check("", &[], &PlainFinish, "nothing to write");
    check("  \n", &[], &PlainFinish, "nothing to write");
}

#[test]
fn empty_chart_gets_our_objects() {
    let (output, result) = run("", &ours()[2..3], &PlainFinish, &Options::default());
    result.expect("succeeds");
    assert_eq!(
        String::from_utf8(output).expect("utf-8"),
        "apiVersion: operator.tigera.io/v1\nkind: APIServer\nmetadata:\n  name: default\nspec: {}\n"
    );
    // A chart without a final line break still gets a clean separator.
    let (output, result) = run("kind: A", &ours()[2..3], &PlainFinish, &Options::default());
    result.expect("succeeds");
    assert!(
        String::from_utf8(output)
            .expect("utf-8")
            .starts_with("kind: A\n---\napiVersion")
    );
}

#[test]
fn merge_rule() {
    let check = |chart: Value, ours: Value, expected: Value| {
        assert_eq!(
            merge_object(&chart, &ours),
            expected,
            "chart {chart} + ours {ours}"
        );
    };
    // Our fields win, chart-only fields stay, lists are replaced whole.
    check(
        json!({"spec": {"registry": "r/", "calicoNetwork": {"bgp": "Enabled", "ipPools": [{"cidr": "a"}, {"cidr": "b"}]}}}),
        json!({"spec": {"calicoNetwork": {"bgp": "Disabled", "ipPools": [{"cidr": "c"}]}}}),
        json!({"spec": {"registry": "r/", "calicoNetwork": {"bgp": "Disabled", "ipPools": [{"cidr": "c"}]}}}),
    );
    // The chart's namespace, labels and annotations stay; ours are added.
    check(
        json!({"metadata": {"name": "x", "namespace": "release", "labels": {"a": "1"},
               "annotations": {"postrenderer.helm.sh/postrender-filename": "f.yaml"}}}),
        json!({"metadata": {"name": "x", "namespace": "tigera-operator", "labels": {"b": "2"}}}),
        json!({"metadata": {"name": "x", "namespace": "release", "labels": {"a": "1", "b": "2"},
               "annotations": {"postrenderer.helm.sh/postrender-filename": "f.yaml"}}}),
    );
    // Our apiVersion replaces the chart's crd.projectcalico.org/v1.
    check(
        json!({"apiVersion": "crd.projectcalico.org/v1", "kind": "FelixConfiguration", "spec": {"logSeverityScreen": "Info"}}),
        json!({"apiVersion": "projectcalico.org/v3", "kind": "FelixConfiguration", "spec": {"bpfLogLevel": "Off"}}),
        json!({"apiVersion": "projectcalico.org/v3", "kind": "FelixConfiguration", "spec": {"logSeverityScreen": "Info", "bpfLogLevel": "Off"}}),
    );
    // A scalar where we have a mapping (or the reverse) is ours.
    check(
        json!({"spec": "x"}),
        json!({"spec": {"a": 1}}),
        json!({"spec": {"a": 1}}),
    );
    check(
        json!({"spec": {"a": 1}}),
        json!({"spec": {}}),
        json!({"spec": {"a": 1}}),
    );
}

#[test]
fn added_config_map_follows_the_operator_namespace() {
    let chart = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tigera-operator\n  namespace: calico-system\n";
    let (output, result) = run(chart, &ours()[0..1], &PlainFinish, &Options::default());
    result.expect("succeeds");
    let output = String::from_utf8(output).expect("utf-8");
    assert!(output.starts_with(chart), "{output}");
    assert!(
        output.contains("  name: kubernetes-services-endpoint\n  namespace: calico-system\n"),
        "{output}"
    );
}

#[test]
fn calico_kinds_match_across_groups() {
    let chart = "apiVersion: crd.projectcalico.org/v1\nkind: BGPConfiguration\nmetadata:\n  name: default\nspec:\n  logSeverityScreen: Info\n";
    let (output, result) = run(chart, &ours()[3..4], &PlainFinish, &Options::default());
    let summary = result.expect("succeeds");
    assert_eq!(summary.objects[0].2, Placement::Merged { line: 1 });
    assert_eq!(
        String::from_utf8(output).expect("utf-8"),
        "apiVersion: projectcalico.org/v3\nkind: BGPConfiguration\nmetadata:\n  name: default\nspec:\n  asNumber: 64512\n  logSeverityScreen: Info\n"
    );
}

/// `kind: List` and `<Kind>List` documents: looked into, item by item. A list with none of our
/// objects passes through byte for byte; items that are ours are merged by the same rule as
/// documents, the list is written again around them (the other items byte for byte when the
/// list is in block style), and the objects are not appended a second time.
#[test]
fn lists_are_looked_into() {
    // Only the Installation of `ours()`, so that the expected texts stay short.
    let installation = &ours()[1..2];
    let merged_item = "  - apiVersion: operator.tigera.io/v1
    kind: Installation
    metadata:
      name: default
    spec:
      calicoNetwork:
        bgp: Disabled
        ipPools:
        - cidr: 10.244.0.0/16
          encapsulation: VXLANCrossSubnet
          name: default-ipv4-ippool
        linuxDataplane: BPF
      registry: r/
";
    let appended = "---\napiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  \
                    name: default\nspec:\n  calicoNetwork:\n    bgp: Disabled\n    ipPools:\n    \
                    - cidr: 10.244.0.0/16\n      encapsulation: VXLANCrossSubnet\n      name: \
                    default-ipv4-ippool\n    linuxDataplane: BPF\n";
    let sa = "  - apiVersion: v1\n    kind: ServiceAccount\n    metadata:\n      name: sa # kept\n";
    let check = |input: &str, expected: &str, placement: Placement| {
        let (output, result) = run(input, installation, &PlainFinish, &Options::default());
        let summary = result.unwrap_or_else(|err| panic!("{input}: {err}"));
        assert_eq!(
            String::from_utf8(output).expect("utf-8"),
            expected,
            "input:\n{input}"
        );
        assert_eq!(summary.objects[0].2, placement, "input:\n{input}");
    };
    let head = "---\n# Source: chart/templates/list.yaml\napiVersion: v1\nkind: List\nitems:\n";
    let chart_item = "  - apiVersion: operator.tigera.io/v1\n    kind: Installation\n    \
                      metadata:\n      name: default\n    spec:\n      registry: r/\n";
    let tail = "metadata:\n  resourceVersion: \"\"\n";

    // No item of ours: byte for byte, ours appended.
    let input = format!("{head}{sa}{tail}");
    check(&input, &format!("{input}{appended}"), Placement::Appended);
    let input = "apiVersion: v1\nkind: List\nitems: []\n";
    check(input, &format!("{input}{appended}"), Placement::Appended);
    // An Installation of another name, and a list without items, are not ours either.
    let input = "kind: InstallationList\nitems:\n- apiVersion: operator.tigera.io/v1\n  \
                 kind: Installation\n  metadata:\n    name: other\n---\nkind: List\n";
    check(input, &format!("{input}{appended}"), Placement::Appended);

    // Ours between other items: only its lines change, nothing is appended.
    check(
        &format!("{head}{sa}{chart_item}{sa}{tail}"),
        &format!("{head}{sa}{merged_item}{sa}{tail}"),
        Placement::Merged { line: 1 },
    );
    // Items at column 0, a typed list kind, a document before it.
    let dedent = |text: &str| {
        text.lines()
            .map(|line| format!("{}\n", line.strip_prefix("  ").unwrap_or(line)))
            .collect::<String>()
    };
    let before = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: x\n";
    check(
        &format!(
            "{before}---\nkind: InstallationList\nitems:\n{}",
            dedent(chart_item)
        ),
        &format!(
            "{before}---\nkind: InstallationList\nitems:\n{}",
            dedent(merged_item)
        ),
        Placement::Merged { line: 5 },
    );
    // A list in flow style is written again from its parsed value.
    check(
        "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: ServiceAccount, metadata: \
         {name: sa}}, {apiVersion: operator.tigera.io/v1, kind: Installation, metadata: {name: \
         default}, spec: {registry: r/}}]\n",
        &format!(
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ServiceAccount\n  \
             metadata:\n    name: sa\n{}",
            dedent(merged_item)
        ),
        Placement::Merged { line: 1 },
    );
}

/// An object of ours in a list and again in a document (or twice in lists) is ambiguous:
/// refused, with nothing written.
#[test]
fn lists_and_documents_match_once() {
    let installation = &ours()[1..2];
    let item = "- apiVersion: operator.tigera.io/v1\n  kind: Installation\n  metadata:\n    \
                name: default\n";
    let document = "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  \
                    name: default\n";
    let check = |input: &str, expected: &str| {
        let (output, result) = run(input, installation, &PlainFinish, &Options::default());
        let err = result.expect_err("must fail");
        assert!(output.is_empty(), "nothing written on {err}");
        assert!(
            err.to_string().contains(expected),
            "{err} should contain {expected:?}"
        );
    };
    check(
        &format!("kind: List\nitems:\n{item}---\n{document}"),
        "Installation `default` twice (lines 1 and 7)",
    );
    check(
        &format!("{document}---\nkind: List\nitems:\n{item}"),
        "Installation `default` twice (lines 1 and 5)",
    );
    check(
        &format!("kind: List\nitems:\n{item}{item}"),
        "Installation `default` twice (lines 1 and 1)",
    );
}

/// Post-render and the KRM function on the same chart objects, with the check the CLI runs
/// ([`calico_render::merge::Checked`]): a stream of documents for one, a ResourceList of items
/// for the other. Both must merge the same objects into the same places, append the same
/// ones, look into lists alike and refuse the same inputs.
mod adapters {
    use calico_render::krm::{self, Generate, Generated, Origin};
    use calico_render::merge::Checked;
    use calico_render::post_render::{Options, post_render};
    use calico_render::yaml::value_to_yaml;
    use serde_json::{Value, json};

    fn ours() -> Vec<Value> {
        vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "kubernetes-services-endpoint", "namespace": "tigera-operator"},
                   "data": {"KUBERNETES_SERVICE_HOST": "api.example", "KUBERNETES_SERVICE_PORT": "6443"}}),
            json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
                   "metadata": {"name": "default"},
                   "spec": {"calicoNetwork": {"bgp": "Enabled"}}}),
            json!({"apiVersion": "operator.tigera.io/v1", "kind": "APIServer",
                   "metadata": {"name": "default"}, "spec": {}}),
        ]
    }

    /// Our objects, whatever the function config says.
    struct Ours;

    impl Generate for Ours {
        fn generate(&self, _origin: &Origin, _text: &str) -> Generated {
            Generated {
                objects: ours(),
                diagnostics: Vec::new(),
            }
        }
    }

    fn sa() -> Value {
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "tigera-operator"}})
    }

    fn installation(spec: Value) -> Value {
        json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
               "metadata": {"name": "default", "annotations": {"chart": "kept"}}, "spec": spec})
    }

    fn list(items: Vec<Value>) -> Value {
        json!({"apiVersion": "v1", "kind": "List", "items": items})
    }

    /// What an adapter made of the chart objects: the objects it wrote, or the message that
    /// refused them.
    type Outcome = Result<Vec<Value>, String>;

    fn through_post_render(chart: &[Value]) -> Outcome {
        let mut stream = String::new();
        for object in chart {
            stream.push_str("---\n# Source: chart/templates/x.yaml\n");
            stream.push_str(&value_to_yaml(object).expect("YAML"));
        }
        let mut output = Vec::new();
        match post_render(
            &mut stream.as_bytes(),
            &mut output,
            &ours(),
            &Checked,
            &Options::default(),
        ) {
            Ok(_) => Ok(serde_saphyr::from_slice_multiple(&output).expect("the output is YAML")),
            Err(err) => {
                assert!(output.is_empty(), "nothing written on {err}");
                Err(match err {
                    calico_render::post_render::PostRenderError::Invalid { diagnostics } => {
                        diagnostics
                            .iter()
                            .map(|d| format!("{}: {}", d.code, d.message))
                            .collect::<Vec<_>>()
                            .join("; ")
                    }
                    other => other.to_string(),
                })
            }
        }
    }

    /// The KRM function on a ResourceList of the chart objects, in block style (items copied)
    /// and as JSON (the list written from its parsed form): both must come out the same.
    fn through_krm(chart: &[Value]) -> Outcome {
        let list = json!({
            "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": chart,
            "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"clusterNetwork": "x"}},
        });
        let block = krm_outcome(&value_to_yaml(&list).expect("YAML"), chart, true);
        let json = krm_outcome(&list.to_string(), chart, false);
        assert_eq!(block, json, "block style and JSON input");
        block
    }

    fn krm_outcome(input: &str, chart: &[Value], copied: bool) -> Outcome {
        let output = krm::run(input, &Ours, &Checked).expect("a ResourceList comes out");
        assert_eq!(output.copied_items, copied, "{}", output.text);
        let list: Value = serde_saphyr::from_str(&output.text).expect("the output is YAML");
        let items = list["items"].as_array().cloned().unwrap_or_default();
        if output.failed {
            // The items come back unchanged, the reason as an error result.
            assert_eq!(items, chart, "items unchanged on failure");
            let errors: Vec<String> = output
                .diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.code, d.message))
                .collect();
            return Err(errors.join("; "));
        }
        Ok(items)
    }

    #[test]
    fn adapters_agree() {
        let merged = installation(json!({"registry": "r/", "calicoNetwork": {"bgp": "Enabled"}}));
        let appended = |chart_namespace: &str| {
            let mut all = ours();
            all[0]["metadata"]["namespace"] = json!(chart_namespace);
            all
        };
        let operator = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "tigera-operator", "namespace": "calico-system"}});
        #[rustfmt::skip]
        let cases: Vec<(&str, Vec<Value>, Outcome)> = vec![
            ("nothing of ours: everything appended",
             vec![sa(), json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation", "metadata": {"name": "other"}})],
             Ok([vec![sa(), json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation", "metadata": {"name": "other"}})], ours()].concat())),
            ("ours with changes: merged in place, chart-only fields and annotations kept",
             vec![sa(), installation(json!({"registry": "r/", "calicoNetwork": {"bgp": "Disabled"}}))],
             Ok(vec![sa(), merged.clone(), ours()[0].clone(), ours()[2].clone()])),
            ("an added ConfigMap goes into the operator's namespace",
             vec![operator.clone()],
             Ok([vec![operator.clone()], appended("calico-system")].concat())),
            ("a list is looked into: its item is merged, not appended",
             vec![list(vec![sa(), installation(json!({"registry": "r/"}))])],
             Ok(vec![list(vec![sa(), merged.clone()]), ours()[0].clone(), ours()[2].clone()])),
            ("a list with nothing of ours is kept",
             vec![list(vec![sa()])],
             Ok([vec![list(vec![sa()])], ours()].concat())),
            ("ours twice: refused",
             vec![installation(json!({})), installation(json!({}))],
             Err("Installation `default` twice".into())),
            ("ours in a list and as an object: refused",
             vec![list(vec![installation(json!({}))]), installation(json!({}))],
             Err("Installation `default` twice".into())),
            ("a chart field of the wrong type: refused by the check",
             vec![installation(json!({"typhaMetricsPort": "many"}))],
             Err("CR0000: the merged Installation `default` does not fit its CRD schema: spec.typhaMetricsPort: expected an integer from -2147483648 to 2147483647, found string \"many\"".into())),
        ];
        for (what, chart, expected) in cases {
            for (adapter, outcome) in [
                ("post-render", through_post_render(&chart)),
                ("krm", through_krm(&chart)),
            ] {
                match (&outcome, &expected) {
                    (Ok(got), Ok(want)) => assert_eq!(got, want, "{adapter}: {what}"),
                    (Err(got), Err(want)) => {
                        assert!(got.contains(want.as_str()), "{adapter}: {what}: {got}")
                    }
                    _ => panic!("{adapter}: {what}: got {outcome:?}, expected {expected:?}"),
                }
            }
        }
    }
}
