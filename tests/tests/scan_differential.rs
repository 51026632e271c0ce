//! Differential test of the post-render scanner (`calico_render::scan`) against serde-saphyr,
//! the parser post-render falls back to.
//!
//! A seeded generator writes variations of realistic chart streams: `# Source:` comments, every
//! `---` form, comments and blank lines anywhere, plain, quoted, escaped, tagged, anchored and
//! multi-line values, flow style, block scalars holding `---` and `kind:` lines, merge keys,
//! indentation of 1 to 4 spaces, compact and indented sequences, CRLF, a byte order mark,
//! directives, `...` markers, JSON documents, documents that are not mappings, lists, kinds of
//! ours and others, and line-level damage (a tab, a lost or doubled line). Each stream is read
//! by the parser and by the scanner, whole and through a line buffer in reads of several sizes
//! the way post-render feeds it, and what
//! the scanner claims is held against what the parser reads:
//! - document boundaries: the scanned ranges cover the stream, each holds at most one document,
//!   and together they hold exactly the parser's documents; an empty range holds none;
//! - the bytes before `content_start` (the part post-render keeps when it rewrites a document)
//!   hold no content;
//! - where the scanner does not ask for a parse, its `apiVersion` and `kind` are the parser's
//!   (a string it read is that string, a field it calls absent is absent), and so are
//!   `metadata.name` and `metadata.namespace` unless it calls them unclear or not read; a field
//!   not read belongs to a document whose kind is not one asked about;
//! - the root sections it cuts a plain document into are, each on its own, that key's value.
//!
//! The verdicts of the whole-stream scan (how often each field is read, unclear or absent, and
//! why documents go to the parser) are pinned in a snapshot, so that a rewrite of the scanner
//! keeps its behaviour, not only its safety: a verdict moving from read to unclear costs a parse
//! per document, and one moving the other way must still pass the checks above.

use calico_render_tests::Rng;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use calico_render::scan::{self, Field, LineBuffer, Scanned, StreamScanner};
use serde_json::{Value, json};

/// Streams generated per run (each is also scanned in pieces three times).
const STREAMS: usize = 1200;
const SEED: u64 = 0xca11_c0de_5ca1;

/// The kinds post-render asks the scanner about: ours and the operator's Deployment.
const WANTED: [&str; 8] = [
    "ConfigMap",
    "Installation",
    "APIServer",
    "FelixConfiguration",
    "BGPConfiguration",
    "BGPPeer",
    "IPPool",
    "Deployment",
];

/// A value in a document body.
#[derive(Debug, Clone)]
enum Node {
    /// A scalar, written as given (valid in block and flow context).
    Text(String),
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
    /// A literal block scalar, by lines.
    Block(Vec<String>),
}

fn text(value: &str) -> Node {
    Node::Text(value.to_owned())
}

fn map(entries: &[(&str, Node)]) -> Node {
    Node::Map(
        entries
            .iter()
            .map(|(key, node)| ((*key).to_owned(), node.clone()))
            .collect(),
    )
}

/// One realistic chart document: its head and its other root keys.
struct Template {
    api_version: &'static str,
    kind: &'static str,
    name: Option<&'static str>,
    namespace: Option<&'static str>,
    body: fn() -> Vec<(String, Node)>,
}

fn entries(node: Node) -> Vec<(String, Node)> {
    match node {
        Node::Map(entries) => entries,
        _ => Vec::new(),
    }
}

fn list_item(api_version: &str, kind: &str, name: &str) -> Node {
    map(&[
        ("apiVersion", text(api_version)),
        ("kind", text(kind)),
        ("metadata", map(&[("name", text(name))])),
        ("spec", map(&[("registry", text("r/"))])),
    ])
}

#[rustfmt::skip]
const TEMPLATES: &[Template] = &[
    Template { api_version: "v1", kind: "ServiceAccount", name: Some("tigera-operator"),
        namespace: Some("tigera-operator"), body: || Vec::new() },
    Template { api_version: "rbac.authorization.k8s.io/v1", kind: "ClusterRole",
        name: Some("tigera-operator"), namespace: None, body: || entries(map(&[
            ("rules", Node::Seq(vec![
                map(&[("apiGroups", Node::Seq(vec![text("\"\"")])),
                      ("resources", Node::Seq(vec![text("namespaces"), text("pods")])),
                      ("verbs", Node::Seq(vec![text("get"), text("list")]))]),
                map(&[("apiGroups", Node::Seq(vec![text("operator.tigera.io")])),
                      ("resources", Node::Seq(vec![text("\"*\"")])),
                      ("verbs", Node::Seq(vec![text("\"*\"")]))]),
            ])),
        ])) },
    Template { api_version: "apps/v1", kind: "Deployment", name: Some("tigera-operator"),
        namespace: Some("tigera-operator"), body: || entries(map(&[
            ("spec", map(&[
                ("replicas", text("1")),
                ("selector", map(&[("matchLabels", map(&[("name", text("tigera-operator"))]))])),
                ("template", map(&[
                    ("metadata", map(&[("name", text("inner")), ("namespace", text("other")),
                                       ("labels", map(&[("name", text("tigera-operator"))]))])),
                    ("spec", map(&[
                        ("serviceAccountName", text("tigera-operator")),
                        ("containers", Node::Seq(vec![map(&[
                            ("name", text("tigera-operator")),
                            ("image", text("quay.io/tigera/operator:v1.42.3")),
                            ("args", Node::Seq(vec![text("-manage-crds=true")])),
                            ("env", Node::Seq(vec![map(&[("name", text("WATCH_NAMESPACE")),
                                                         ("value", text("\"\""))])])),
                        ])])),
                    ])),
                ])),
            ])),
        ])) },
    Template { api_version: "v1", kind: "ConfigMap", name: Some("kubernetes-services-endpoint"),
        namespace: Some("tigera-operator"), body: || entries(map(&[
            ("data", map(&[("KUBERNETES_SERVICE_HOST", text("\"api.example\"")),
                           ("KUBERNETES_SERVICE_PORT", text("\"443\""))])),
        ])) },
    Template { api_version: "v1", kind: "ConfigMap", name: Some("settings"),
        namespace: Some("tigera-operator"), body: || entries(map(&[
            ("data", map(&[
                ("config.yaml", Node::Block(vec!["---".into(), "kind: Installation".into(),
                    "metadata:".into(), "  name: default".into(), String::new(), "...".into()])),
                ("flag", text("\"on\"")),
            ])),
        ])) },
    Template { api_version: "operator.tigera.io/v1", kind: "Installation", name: Some("default"),
        namespace: None, body: || entries(map(&[
            ("spec", map(&[
                ("registry", text("registry.example/")),
                ("kubeletVolumePluginPath", text("None")),
                ("calicoNetwork", map(&[
                    ("bgp", text("Enabled")),
                    ("ipPools", Node::Seq(vec![map(&[("cidr", text("192.168.0.0/16")),
                                                     ("name", text("chart-pool"))])])),
                ])),
            ])),
        ])) },
    Template { api_version: "operator.tigera.io/v1", kind: "APIServer", name: Some("default"),
        namespace: None, body: || entries(map(&[("spec", Node::Map(Vec::new()))])) },
    Template { api_version: "crd.projectcalico.org/v1", kind: "FelixConfiguration",
        name: Some("default"), namespace: None, body: || entries(map(&[
            ("spec", map(&[("logSeverityScreen", text("Info")), ("bpfEnabled", text("true"))])),
        ])) },
    Template { api_version: "projectcalico.org/v3", kind: "IPPool",
        name: Some("default-ipv4-ippool"), namespace: None, body: || entries(map(&[
            ("spec", map(&[("cidr", text("10.244.0.0/16")), ("natOutgoing", text("true"))])),
        ])) },
    Template { api_version: "v1", kind: "Secret", name: Some("webhook-certs"),
        namespace: Some("tigera-operator"), body: || entries(map(&[
            ("type", text("Opaque")),
            ("data", map(&[("tls.crt", text("bm90IGEgY2VydA=="))])),
        ])) },
    Template { api_version: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition",
        name: Some("installations.operator.tigera.io"), namespace: None, body: || entries(map(&[
            ("spec", map(&[("versions", Node::Seq(vec![map(&[
                ("name", text("v1")),
                ("schema", map(&[("openAPIV3Schema", map(&[
                    ("description", Node::Text("Installation configures ".repeat(300))),
                ]))])),
            ])]))])),
        ])) },
    Template { api_version: "v1", kind: "List", name: None, namespace: None, body: || entries(map(&[
            ("items", Node::Seq(vec![
                list_item("v1", "ServiceAccount", "sa"),
                list_item("operator.tigera.io/v1", "Installation", "default"),
            ])),
        ])) },
    Template { api_version: "operator.tigera.io/v1", kind: "InstallationList", name: None,
        namespace: None, body: || entries(map(&[
            ("items", Node::Seq(vec![list_item("operator.tigera.io/v1", "Installation", "default")])),
        ])) },
];

/// Values a field of the head may get instead of its own: words YAML 1.1 reads as other
/// types, numbers, characters that matter to YAML, non-ASCII, nothing.
const ODD_VALUES: &[&str] = &[
    "yes",
    "No",
    "on",
    "OFF",
    "null",
    "~",
    "true",
    "123",
    "1e3",
    "0x1F",
    "012",
    "1_000",
    "2024-01-01",
    ".5",
    "-x",
    "+1",
    "café",
    "system:node",
    "a#b",
    "a #b",
    "x:",
    "",
    "a b",
    "=",
    "<<",
    "A\u{c4}",
    "a: b",
];

/// Write `value` after `key:` in one of the styles YAML allows; continuation lines get
/// `indent + 2` spaces.
fn styled(rng: &mut Rng, value: &str, indent: usize) -> Vec<String> {
    let deeper = " ".repeat(indent + 2);
    let double = |v: &str| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""));
    match rng.below(100) {
        0..=70 => vec![value.to_owned()],
        71..=73 => vec![double(value)],
        74..=76 => vec![format!("'{}'", value.replace('\'', "''"))],
        // An escape the parser must decode.
        77..=78 => match value.chars().next() {
            Some(first) => vec![format!(
                "\"\\u{:04X}{}\"",
                u32::from(first),
                &value[first.len_utf8()..]
            )],
            None => vec!["\"\"".to_owned()],
        },
        79..=80 => vec![format!("!!str {value}")],
        81..=82 => vec![format!("&anchor{} {value}", rng.below(3))],
        83..=85 => vec![format!("{value} # trailing comment")],
        86..=87 => vec![format!("  {value}   ")],
        88..=89 => vec![value.to_owned(), format!("{deeper}continued")],
        90..=91 => vec!["|-".to_owned(), format!("{deeper}{value}")],
        92 => vec![">".to_owned(), format!("{deeper}{value}")],
        93..=94 => vec![String::new(), format!("{deeper}{value}")],
        95..=96 => vec![format!("'{value}' # c")],
        97..=98 => vec![format!("{value}\t")],
        // Not YAML: the stream is left out, but the scan must not be fooled on the way.
        _ if rng.chance(25) => vec![format!("\"{value}\" extra")],
        _ => vec![value.to_owned()],
    }
}

/// `key:` as written: plain, quoted, or (rarely) something stranger.
fn styled_key(rng: &mut Rng, key: &str) -> String {
    match rng.below(60) {
        0 => format!("\"{key}\""),
        1 => format!("'{key}'"),
        2 => format!("!!str {key}"),
        _ => key.to_owned(),
    }
}

/// `key: value` lines at `indent`.
fn field_lines(rng: &mut Rng, key: &str, value: &str, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    let key = styled_key(rng, key);
    let value = if rng.chance(4) {
        rng.pick(ODD_VALUES).to_string()
    } else {
        value.to_owned()
    };
    let mut lines = styled(rng, &value, indent);
    if rng.chance(1) {
        // A complex key: `? key` then `: value`.
        let mut out = vec![format!("{pad}? {key}")];
        lines[0] = format!("{pad}: {}", lines[0]);
        out.extend(lines);
        return out;
    }
    lines[0] = if lines[0].is_empty() {
        format!("{pad}{key}:")
    } else {
        format!("{pad}{key}: {}", lines[0])
    };
    lines
}

/// Block style settings for one document.
struct Style {
    /// Spaces per level.
    indent: usize,
    /// `- ` entries at their key's indentation (kubectl) rather than one level in (Helm).
    compact: bool,
    /// Percent chance that a small collection is written in flow style.
    flow: u64,
}

fn flow(node: &Node) -> String {
    match node {
        Node::Text(t) if t.contains([',', '[', ']', '{', '}', '#']) || t.is_empty() => {
            format!("{:?}", t.trim_matches('"'))
        }
        Node::Text(t) => t.clone(),
        Node::Block(lines) => format!("{:?}", lines.join("\n")),
        Node::Map(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", flow(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        Node::Seq(items) => {
            let inner: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", inner.join(", "))
        }
    }
}

/// The lines of `key: node` at `indent`.
fn block_entry(
    rng: &mut Rng,
    st: &Style,
    out: &mut Vec<String>,
    indent: usize,
    key: &str,
    node: &Node,
) {
    let pad = " ".repeat(indent);
    match node {
        Node::Text(t) => out.push(format!("{pad}{key}: {t}")),
        Node::Block(lines) => {
            out.push(format!("{pad}{key}: |"));
            let inner = " ".repeat(indent + st.indent);
            for line in lines {
                out.push(if line.is_empty() {
                    String::new()
                } else {
                    format!("{inner}{line}")
                });
            }
        }
        Node::Map(entries) if entries.is_empty() => out.push(format!("{pad}{key}: {{}}")),
        Node::Seq(items) if items.is_empty() => out.push(format!("{pad}{key}: []")),
        _ if rng.chance(st.flow) => out.push(format!("{pad}{key}: {}", flow(node))),
        // Flow style over several lines; under a root key the lines after the first may start
        // in column 0, where they look like root keys.
        Node::Map(entries) if st.flow > 0 && rng.chance(3) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", flow(v)))
                .collect();
            let next = if indent == 0 && rng.chance(70) {
                String::new()
            } else {
                " ".repeat(indent + 1)
            };
            let text = format!("{pad}{key}: {{{}}}", inner.join(&format!(",\n{next}")));
            out.extend(text.lines().map(str::to_owned));
        }
        Node::Map(entries) => {
            out.push(format!("{pad}{key}:"));
            for (k, v) in entries {
                block_entry(rng, st, out, indent + st.indent, k, v);
            }
        }
        Node::Seq(items) => {
            out.push(format!("{pad}{key}:"));
            let at = if st.compact {
                indent
            } else {
                indent + st.indent
            };
            for item in items {
                block_item(rng, st, out, at, item);
            }
        }
    }
}

/// The lines of one sequence entry whose `- ` sits at `indent`.
fn block_item(rng: &mut Rng, st: &Style, out: &mut Vec<String>, indent: usize, node: &Node) {
    let pad = " ".repeat(indent);
    match node {
        Node::Text(t) => out.push(format!("{pad}- {t}")),
        Node::Map(entries) if !entries.is_empty() => {
            let mut inner = Vec::new();
            for (k, v) in entries {
                block_entry(rng, st, &mut inner, indent + 2, k, v);
            }
            inner[0] = format!("{pad}- {}", &inner[0][indent + 2..]);
            out.extend(inner);
        }
        other => out.push(format!("{pad}- {}", flow(other))),
    }
}

/// The `metadata` lines of a document.
fn metadata_lines(rng: &mut Rng, st: &Style, t: &Template, out: &mut Vec<String>) {
    let name = t.name.unwrap_or("unnamed");
    if rng.chance(4) {
        let mut inner = format!("name: {name}");
        if let Some(ns) = t.namespace {
            write!(inner, ", namespace: {ns}").unwrap();
        }
        out.push(format!("metadata: {{{inner}}}"));
        return;
    }
    if rng.chance(2) {
        out.push(format!("base: &base {{name: {name}}}"));
        out.push("metadata:".to_owned());
        out.push(" ".repeat(st.indent) + "<<: *base");
        return;
    }
    out.push(match rng.below(40) {
        0 => "metadata: &meta".to_owned(),
        1 => "metadata: !!map".to_owned(),
        2 => "metadata: # the object's identity".to_owned(),
        _ => "metadata:".to_owned(),
    });
    let indent = if rng.chance(5) {
        1 + rng.below(4)
    } else {
        st.indent
    };
    let mut children: Vec<Vec<String>> = Vec::new();
    if t.name.is_some() || rng.chance(5) {
        children.push(field_lines(rng, "name", name, indent));
    }
    if let Some(ns) = t.namespace.or_else(|| rng.chance(5).then_some("extra-ns")) {
        children.push(field_lines(rng, "namespace", ns, indent));
    }
    let pad = " ".repeat(indent);
    if rng.chance(30) {
        let mut labels = vec![format!("{pad}labels:")];
        labels.push(format!("{pad}{}name: not-the-name", " ".repeat(st.indent)));
        labels.push(format!("{pad}{}app: x", " ".repeat(st.indent)));
        children.push(labels);
    }
    if rng.chance(20) {
        let deeper = " ".repeat(indent + st.indent);
        children.push(vec![
            format!("{pad}annotations:"),
            format!("{deeper}postrenderer.helm.sh/postrender-filename: chart/templates/x.yaml"),
            format!("{deeper}note: |"),
            format!("{deeper}  name: fake"),
            format!("{deeper}  ---"),
        ]);
    }
    if rng.chance(5) {
        children.push(vec![format!("{pad}finalizers:"), format!("{pad}- a")]);
    }
    if rng.chance(1) && !children.is_empty() {
        // A field twice.
        let twice = children[0].clone();
        children.push(twice);
    }
    shuffle(rng, &mut children);
    for child in children {
        if rng.chance(5) {
            out.push(format!("{pad}# a comment in metadata"));
        }
        if rng.chance(3) {
            out.push(String::new());
        }
        out.extend(child);
    }
}

fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for idx in (1..items.len()).rev() {
        items.swap(idx, rng.below(idx + 1));
    }
}

/// The value of a template as the parser would read its common form (for flow and JSON forms).
fn as_value(t: &Template) -> Value {
    fn node_value(node: &Node) -> Value {
        match node {
            Node::Text(t) => serde_saphyr::from_str::<Value>(t).unwrap_or(Value::String(t.clone())),
            Node::Block(lines) => Value::String(lines.join("\n") + "\n"),
            Node::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), node_value(v)))
                    .collect(),
            ),
            Node::Seq(items) => Value::Array(items.iter().map(node_value).collect()),
        }
    }
    let mut object = serde_json::Map::new();
    object.insert("apiVersion".into(), json!(t.api_version));
    object.insert("kind".into(), json!(t.kind));
    let mut meta = serde_json::Map::new();
    if let Some(name) = t.name {
        meta.insert("name".into(), json!(name));
    }
    if let Some(ns) = t.namespace {
        meta.insert("namespace".into(), json!(ns));
    }
    object.insert("metadata".into(), Value::Object(meta));
    for (key, node) in (t.body)() {
        object.insert(key, node_value(&node));
    }
    Value::Object(object)
}

/// One document's text, without its `---` line; the flag says whether it must go on the `---`
/// line itself (`--- {...}`).
fn document(rng: &mut Rng, t: &Template) -> (Vec<String>, bool) {
    match rng.below(100) {
        0..=3 => return (vec![serde_json::to_string(&as_value(t)).unwrap()], false),
        // On the `---` line itself.
        4..=5 => return (vec![serde_json::to_string(&as_value(t)).unwrap()], true),
        // Flow style over several lines, continuation lines in column 0.
        6 => {
            let text = serde_json::to_string_pretty(&as_value(t)).unwrap();
            return (
                text.lines().map(|l| l.trim_start().to_owned()).collect(),
                false,
            );
        }
        7 => return (vec!["- just".into(), "- a list".into()], false),
        8 => {
            return (
                vec![rng.pick(&["hello", "~", "\"quoted\"", "42"]).to_string()],
                false,
            );
        }
        _ => {}
    }
    let st = Style {
        indent: *rng.pick(&[2, 2, 2, 4, 3, 1]),
        compact: rng.chance(50),
        flow: *rng.pick(&[0, 0, 10, 40]),
    };
    let mut parts: Vec<Vec<String>> = Vec::new();
    parts.push(field_lines(rng, "apiVersion", t.api_version, 0));
    parts.push(field_lines(rng, "kind", t.kind, 0));
    if t.name.is_some() || rng.chance(50) {
        let mut meta = Vec::new();
        metadata_lines(rng, &st, t, &mut meta);
        parts.push(meta);
    }
    for (key, node) in (t.body)() {
        let mut lines = Vec::new();
        block_entry(rng, &st, &mut lines, 0, &key, &node);
        parts.push(lines);
    }
    if rng.chance(3) {
        // Keys that start like document markers.
        parts.push(vec![
            rng.pick(&["---x: 1", "...y: 2", "----: 3", "--- : 4"])
                .to_string(),
        ]);
    }
    // Helm writes apiVersion, kind, metadata first, in either order of the first two; other
    // tools sort keys or put metadata last.
    match rng.below(10) {
        0 => parts.swap(0, 1),
        1 => shuffle(rng, &mut parts),
        2 if parts.len() > 3 => {
            let meta = parts.remove(2);
            parts.push(meta);
        }
        _ => {}
    }
    if rng.chance(1) {
        // A key of ours twice.
        let twice = parts[rng.below(2)].clone();
        parts.push(twice);
    }
    let mut lines: Vec<String> = parts.into_iter().flatten().collect();
    damage(rng, &mut lines);
    if rng.chance(3) {
        // An indented root: valid YAML, unusual for the scan.
        for line in &mut lines {
            if !line.is_empty() {
                line.insert_str(0, "  ");
            }
        }
    }
    (lines, false)
}

/// Line-level changes: comments, blank lines, a tab, a lost, doubled or swapped line.
fn damage(rng: &mut Rng, lines: &mut Vec<String>) {
    if lines.is_empty() {
        return;
    }
    if rng.chance(10) {
        let at = rng.below(lines.len() + 1);
        let pad = " ".repeat(rng.below(5));
        lines.insert(at, format!("{pad}# comment: kind: Installation"));
    }
    if rng.chance(8) {
        let at = rng.below(lines.len() + 1);
        lines.insert(at, rng.pick(&["", "  ", "\t"]).to_string());
    }
    if rng.chance(2) {
        let at = rng.below(lines.len());
        if lines[at].starts_with("  ") {
            lines[at].replace_range(0..2, "\t");
        }
    }
    if rng.chance(1) {
        lines.remove(rng.below(lines.len()));
    }
    if rng.chance(1) && !lines.is_empty() {
        let at = rng.below(lines.len());
        let copy = lines[at].clone();
        lines.insert(at, copy);
    }
    if rng.chance(1) && lines.len() > 1 {
        let at = rng.below(lines.len() - 1);
        lines.swap(at, at + 1);
    }
}

/// A whole stream of chart output.
fn stream(rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<String> = Vec::new();
    if rng.chance(5) {
        lines.push("# leading comment".into());
    }
    let docs = 1 + rng.below(7);
    let mut after_end_marker = false;
    for idx in 0..docs {
        if rng.chance(8) {
            // A template that renders nothing: only its `# Source:` line, or nothing at all.
            lines.push("---".into());
            if rng.chance(50) {
                lines.push("# Source: chart/templates/empty.yaml".into());
            }
        }
        if rng.chance(2) {
            // A directive needs the document before it ended.
            if idx > 0 {
                lines.push("...".into());
            }
            lines.push("%YAML 1.1".into());
            lines.push("---".into());
        }
        let t = rng.pick(TEMPLATES);
        let (body, on_marker) = document(rng, t);
        let separator = match rng.below(100) {
            0..=79 => "---",
            80..=86 => "--- # next",
            87..=92 => "---   ",
            93..=98 => "---\t",
            // A tag on the root: the parser refuses it for a mapping.
            _ => "--- !!map",
        };
        let bare = (idx == 0 || after_end_marker) && rng.chance(40);
        if on_marker {
            lines.push(format!("--- {}", body.join(" ")));
        } else {
            if !bare {
                lines.push(separator.into());
            }
            if rng.chance(80) {
                lines.push(format!(
                    "# Source: chart/templates/{}.yaml",
                    t.kind.to_lowercase()
                ));
            }
            lines.extend(body);
        }
        after_end_marker = rng.chance(5);
        if after_end_marker {
            lines.push(rng.pick(&["...", "... # end", "..."]).to_string());
        }
    }
    let crlf = rng.chance(5);
    let mut out = String::new();
    if rng.chance(3) {
        out.push('\u{feff}');
    }
    for line in &lines {
        out.push_str(line);
        out.push_str(if crlf || rng.chance(1) { "\r\n" } else { "\n" });
    }
    if rng.chance(10) {
        while out.ends_with('\n') || out.ends_with('\r') {
            out.pop();
        }
    }
    out.into_bytes()
}

/// The parser, with post-render's settings for third-party documents (defaults; the budgets
/// post-render raises do not matter at this size).
fn parse(bytes: &[u8]) -> Result<Vec<Value>, String> {
    serde_saphyr::from_slice_multiple_with_options(bytes, serde_saphyr::Options::default())
        .map_err(|err| err.to_string())
}

/// The parser's value at `path`, if any.
fn at<'v>(value: Option<&'v Value>, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(value?, |node, key| node.get(key))
}

/// Does the scanner's reading of one field hold against the parser's value?
fn agrees(field: &Field, truth: Option<&Value>) -> bool {
    match field {
        Field::Plain(text) => truth == Some(&Value::String(text.clone())),
        Field::Absent => truth.is_none(),
        Field::Unclear | Field::NotRead => true,
    }
}

/// True when a line says nothing: blank, a comment, a `---` or `...` line with at most a comment
/// after it, a directive, a byte order mark.
fn is_trivia(line: &[u8]) -> bool {
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']);
    let bare = text.trim();
    if bare.is_empty() || bare.starts_with('#') || text.starts_with('%') {
        return true;
    }
    ["---", "..."].iter().any(|marker| {
        text.strip_prefix(marker).is_some_and(|rest| {
            rest.is_empty()
                || rest.starts_with([' ', '\t'])
                    && matches!(rest.trim().chars().next(), None | Some('#'))
        })
    })
}

/// What differs between the scanner's view of `bytes` and the parser's; empty when they agree.
/// `kinds` is the scanner's kind filter, if any (fields of other kinds may be not read).
fn compare(bytes: &[u8], docs: &[Scanned], whole: &[Value], kinds: Option<&[&str]>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut expected_start = 0u64;
    let mut found: Vec<Value> = Vec::new();
    for (idx, doc) in docs.iter().enumerate() {
        let range = &bytes[doc.start as usize..doc.end as usize];
        let shown = String::from_utf8_lossy(range);
        if doc.index != idx || doc.start != expected_start || doc.end < doc.start {
            problems.push(format!(
                "document {idx}: range {}..{} after {expected_start}",
                doc.start, doc.end
            ));
        }
        expected_start = doc.end;
        let content = doc.content_start.unwrap_or(doc.end);
        if content < doc.start || content > doc.end {
            problems.push(format!(
                "document {idx}: content_start {content} outside the range"
            ));
            continue;
        }
        let preamble = &bytes[doc.start as usize..content as usize];
        if !preamble.split_inclusive(|&b| b == b'\n').all(is_trivia) {
            problems.push(format!(
                "document {idx}: content before content_start in {shown:?}"
            ));
        }
        if doc.is_empty() {
            continue;
        }
        let values = match parse(range) {
            Ok(values) => values,
            Err(err) => {
                problems.push(format!(
                    "document {idx} does not parse on its own ({err}): {shown:?}"
                ));
                continue;
            }
        };
        if values.len() > 1 {
            problems.push(format!(
                "document {idx} holds {} documents: {shown:?}",
                values.len()
            ));
        }
        let value = values.first();
        found.extend(values.iter().cloned());
        if kinds.is_none() {
            check_sections(idx, range, value, &mut problems);
        }
        if doc.needs_parse() {
            continue;
        }
        let kind_truth = at(value, &["kind"]);
        let wanted = |kind: Option<&Value>| match (kinds, kind.and_then(Value::as_str)) {
            (None, _) => true,
            // Lists are always reported: their items may be of the kinds asked about.
            (Some(kinds), Some(kind)) => kinds.contains(&kind) || kind.ends_with("List"),
            (Some(_), None) => true,
        };
        let checks: [(&str, &Field, &[&str]); 4] = [
            ("apiVersion", &doc.head.api_version, &["apiVersion"]),
            ("kind", &doc.head.kind, &["kind"]),
            ("metadata.name", &doc.head.name, &["metadata", "name"]),
            (
                "metadata.namespace",
                &doc.head.namespace,
                &["metadata", "namespace"],
            ),
        ];
        for (what, field, path) in checks {
            let truth = at(value, path);
            if !agrees(field, truth) {
                problems.push(format!(
                    "document {idx}: the scan reads {what} as {field:?}, the parser as {truth:?}: {shown:?}"
                ));
            }
            if matches!(field, Field::NotRead) && wanted(kind_truth) {
                problems.push(format!(
                    "document {idx}: {what} not read, but the kind {kind_truth:?} is asked about: {shown:?}"
                ));
            }
        }
    }
    if expected_start != bytes.len() as u64 {
        problems.push(format!(
            "the documents end at {expected_start} of {}",
            bytes.len()
        ));
    }
    if found != whole {
        problems.push(format!("the ranges hold {found:?}, the stream {whole:?}"));
    }
    problems
}

/// The root sections `scan::root_sections` cuts a document into (post-render splices list
/// items and KRM copies items by them) are the parser's keys, and each, read on its own, is
/// that key's value.
fn check_sections(idx: usize, range: &[u8], value: Option<&Value>, problems: &mut Vec<String>) {
    let (Some(sections), Some(Value::Object(object))) = (scan::root_sections(range), value) else {
        return;
    };
    let shown = String::from_utf8_lossy(range);
    let mut keys: Vec<&str> = sections.iter().map(|s| s.key.as_str()).collect();
    keys.sort_unstable();
    let mut truth_keys: Vec<&str> = object.keys().map(String::as_str).collect();
    truth_keys.sort_unstable();
    if keys != truth_keys {
        problems.push(format!(
            "document {idx}: root sections {keys:?}, parser keys {truth_keys:?}: {shown:?}"
        ));
    }
    // An alias (`*name`, `<<: *name`) may point into another section, which cannot be read
    // alone then.
    let aliases = range.windows(3).any(|w| {
        matches!(w[0], b' ' | b'[' | b'{' | b',' | b'\n')
            && w[1] == b'*'
            && w[2].is_ascii_alphanumeric()
    });
    for section in sections.iter().filter(|_| !aliases) {
        let alone = parse(&range[section.start..section.end]);
        let expected = object
            .get(&section.key)
            .map(|v| json!({ section.key.clone(): v }));
        if alone.as_ref().ok().and_then(|v| v.first()) != expected.as_ref() {
            problems.push(format!(
                "document {idx}: section {:?} reads {alone:?} alone, {expected:?} in the document: {shown:?}",
                section.key
            ));
        }
    }
}

/// A reader that hands out the stream in reads of the given sizes (cycled), as a pipe might.
struct Pieces<'a> {
    bytes: &'a [u8],
    pieces: std::iter::Cycle<std::slice::Iter<'a, usize>>,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let piece = self.pieces.next().copied().unwrap_or(1);
        let n = piece.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Scan `bytes` the way post-render does: through a line buffer of `capacity` bytes, in reads
/// of the given sizes, asking only about our kinds.
fn scan_in_pieces(bytes: &[u8], pieces: &[usize], capacity: usize) -> Vec<Scanned> {
    let mut scanner = StreamScanner::new().only_kinds(WANTED.iter().map(|k| (*k).to_owned()));
    let mut lines = LineBuffer::new(capacity);
    let mut input = Pieces {
        bytes,
        pieces: pieces.iter().cycle(),
    };
    let mut docs = Vec::new();
    while !lines.read(&mut input).expect("in memory").is_empty() {
        lines.scan(&mut scanner, &mut docs);
    }
    lines.finish(scanner, &mut docs);
    docs
}

/// Counts of the whole-stream scan's verdicts, for the snapshot.
#[derive(Default)]
struct Verdicts(BTreeMap<String, usize>);

impl Verdicts {
    fn count(&mut self, what: impl Into<String>) {
        *self.0.entry(what.into()).or_default() += 1;
    }

    fn field(&mut self, name: &str, field: &Field) {
        let verdict = match field {
            Field::Absent => "absent",
            Field::Plain(_) => "read",
            Field::Unclear => "unclear",
            Field::NotRead => "not read",
        };
        self.count(format!("{name}: {verdict}"));
    }
}

#[test]
fn the_scan_reads_what_the_parser_reads() {
    let mut rng = Rng(SEED);
    let mut verdicts = Verdicts::default();
    let mut failures = Vec::new();
    for case in 0..STREAMS {
        let bytes = stream(&mut rng);
        let Ok(whole) = parse(&bytes) else {
            verdicts.count("streams: not YAML (skipped)");
            continue;
        };
        verdicts.count("streams: YAML");
        let docs = scan::scan_stream(&bytes);
        let mut problems = compare(&bytes, &docs, &whole, None);
        for doc in &docs {
            verdicts.count("documents");
            if doc.is_empty() {
                verdicts.count("documents: empty");
                continue;
            }
            if doc.needs_parse() {
                verdicts.count("documents: need a parse");
            }
            if let Some(why) = doc.unusual {
                verdicts.count(format!("unusual: {why}"));
            }
            verdicts.field("apiVersion", &doc.head.api_version);
            verdicts.field("kind", &doc.head.kind);
            verdicts.field("metadata.name", &doc.head.name);
            verdicts.field("metadata.namespace", &doc.head.namespace);
        }
        for _ in 0..3 {
            let pieces: Vec<usize> = (0..1 + rng.below(4))
                .map(|_| *rng.pick(&[1, 2, 3, 7, 16, 100, 4096, 1 << 20]))
                .collect();
            let capacity = *rng.pick(&[1, 16, 64, 4096, 1 << 20]);
            let pieced = scan_in_pieces(&bytes, &pieces, capacity);
            let context = format!("in reads of {pieces:?} into a buffer of {capacity}");
            problems.extend(
                compare(&bytes, &pieced, &whole, Some(&WANTED))
                    .into_iter()
                    .map(|p| format!("{context}: {p}")),
            );
            // A line longer than the buffer is read from its first bytes, and its rest may hide
            // content (after `---`, after indentation): its document is flagged and its content
            // may be taken to start on that line.
            let cut = |d: &Scanned| {
                matches!(
                    d.unusual,
                    Some(scan::Unusual::ContentOnDocumentStart | scan::Unusual::LongLine)
                )
            };
            let bounds = |docs: &[Scanned]| -> Vec<_> {
                docs.iter()
                    .map(|d| (d.start, d.end, d.line, d.content_start.filter(|_| !cut(d))))
                    .collect()
            };
            let mut reference = bounds(&docs);
            for (doc, pieced) in reference.iter_mut().zip(&pieced) {
                if cut(pieced) {
                    doc.3 = None;
                }
            }
            if bounds(&pieced) != reference {
                problems.push(format!(
                    "{context}: boundaries {:?} differ from the whole-stream scan's {reference:?}",
                    bounds(&pieced)
                ));
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "case {case}:\n{}\n  stream: {:?}",
                problems.join("\n"),
                String::from_utf8_lossy(&bytes)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {STREAMS} streams disagree:\n{}",
        failures.len(),
        failures
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let valid = verdicts.0.get("streams: YAML").copied().unwrap_or(0);
    assert!(
        valid * 10 >= STREAMS * 7,
        "only {valid} of {STREAMS} streams are YAML: the generator is too rough"
    );
    let mut table = String::new();
    for (what, count) in &verdicts.0 {
        writeln!(table, "{what}: {count}").unwrap();
    }
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/adapters"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("scan_differential_verdicts", table);
    });
}

/// The generator's plain documents (no odd value, no damage) are what the scan is for: it reads
/// them without the parser, or the bulk path post-render depends on has been lost.
#[test]
fn plain_chart_documents_need_no_parse() {
    for t in TEMPLATES {
        let mut text = format!(
            "---\n# Source: chart/{}.yaml\napiVersion: {}\nkind: {}\n",
            t.kind, t.api_version, t.kind
        );
        if let Some(name) = t.name {
            text.push_str(&format!("metadata:\n  name: {name}\n"));
            if let Some(ns) = t.namespace {
                text.push_str(&format!("  namespace: {ns}\n"));
            }
        }
        let st = Style {
            indent: 2,
            compact: false,
            flow: 0,
        };
        let mut lines = Vec::new();
        for (key, node) in (t.body)() {
            block_entry(&mut Rng(0), &st, &mut lines, 0, &key, &node);
        }
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
        let docs = scan::scan_stream(text.as_bytes());
        assert_eq!(docs.len(), 1, "{text}");
        let doc = &docs[0];
        assert!(!doc.needs_parse(), "{text}: {doc:?}");
        assert_eq!(doc.head.kind, Field::Plain(t.kind.to_owned()), "{text}");
        let name = t.name.map_or(Field::Absent, |n| Field::Plain(n.to_owned()));
        assert_eq!(doc.head.name, name, "{text}");
        assert_eq!(
            compare(
                text.as_bytes(),
                &docs,
                &parse(text.as_bytes()).expect("YAML"),
                None
            ),
            Vec::<String>::new()
        );
    }
}
