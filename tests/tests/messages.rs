//! What a person reads when the input is wrong: messages never name Rust types or library
//! internals, documents are counted from 1, standard input is `<stdin>` down to a bad second
//! document, and every code the program prints can be explained.
//!
//! Each rule is checked on the program's output for inputs that used to break it
//! (`cli_consistency.rs` holds the flag-level rules, `<stdin>` for every subcommand included).

use std::process::Output;

use calico_render_tests::{run_calico_render, workspace_root};

fn run(args: &[&str], stdin: &str) -> Output {
    run_calico_render(args, &workspace_root(), stdin.as_bytes())
}

/// Standard output and standard error together, as the person sees them.
fn seen(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const CLUSTER: &str = "apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
spec:
  apiEndpoint:
    host: control.k8s.example.com
    port: 6443
  podPools:
    - name: default-ipv4-ippool
      cidr: 172.20.0.0/16
      natOutgoing: true
";

/// An alias bomb: ten aliases of ten aliases of ..., far more nodes than any budget allows.
fn alias_bomb(indent: &str) -> String {
    let mut text = format!("{indent}a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..8 {
        let items = vec![format!("*a{}", level - 1); 10].join(", ");
        text.push_str(&format!("{indent}a{level}: &a{level} [{items}]\n"));
    }
    text
}

/// Words that name Rust types or library internals rather than what the user wrote.
const INTERNALS: &[&str] = &[
    "u8",
    "u16",
    "u32",
    "u64",
    "i32",
    "i64",
    "f64",
    "usize",
    "Option<",
    "struct ",
    "enum ",
    "from_str",
    "RecordedAnchor",
    "Budget",
    "breach",
    "Policy",
    "strict mode",
    "scalar",
    "mapping start",
    "sequence start",
    "unit value",
];

#[test]
fn messages_name_no_rust_types_or_library_internals() {
    let ha = std::fs::read_to_string(workspace_root().join("examples/ha-ebpf/cluster.yaml"))
        .expect("example");
    let krm_list = |items: &str| {
        format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n{ha_indented}items:\n{items}",
            ha_indented = ha
                .lines()
                .map(|line| format!("  {line}\n"))
                .collect::<String>()
        )
    };
    let cases: Vec<(&str, Vec<&str>, String)> = vec![
        (
            "a port out of range",
            vec!["render", "-f", "-"],
            CLUSTER.replace("port: 6443", "port: 99999999999"),
        ),
        (
            "a block size that is not a number",
            vec!["render", "-f", "-"],
            CLUSTER.replace("      natOutgoing: true", "      blockSize: big"),
        ),
        (
            "a YAML 1.1 boolean",
            vec!["render", "-f", "-"],
            CLUSTER.replace("natOutgoing: true", "natOutgoing: yes"),
        ),
        (
            "a null name",
            vec!["render", "-f", "-"],
            CLUSTER.replace("name: default-ipv4-ippool", "name: ~"),
        ),
        (
            "a list where a mapping belongs",
            vec!["render", "-f", "-"],
            CLUSTER.replace("  apiEndpoint:\n", "  apiEndpoint: [a]\n  x:\n"),
        ),
        (
            "a duplicated key",
            vec!["render", "-f", "-"],
            CLUSTER.replace("    port: 6443\n", "    port: 6443\n    port: 6444\n"),
        ),
        (
            "an alias bomb in a ClusterNetwork",
            vec!["render", "-f", "-"],
            format!("{CLUSTER}{}", alias_bomb("")),
        ),
        (
            "a manifest with a boolean where an integer belongs",
            vec!["validate", "-f", "-"],
            "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p\nspec:\n  cidr: 10.0.0.0/16\n  blockSize: yes\n".to_owned(),
        ),
        (
            "an alias bomb in a KRM ResourceList",
            vec!["krm"],
            krm_list(&format!("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: x}}\n  data:\n{}", alias_bomb("    "))),
        ),
        (
            "two documents given to the KRM function",
            vec!["krm"],
            format!("{}---\na: 1\n", krm_list("[]\n")),
        ),
    ];
    for (what, args, input) in &cases {
        let output = run(args, input);
        let text = seen(&output);
        assert_ne!(output.status.code(), Some(0), "{what}: must fail:\n{text}");
        for word in INTERNALS {
            let leaked = text
                .match_indices(word)
                .any(|(at, _)| !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric()));
            assert!(!leaked, "{what}: the message names `{word}`:\n{text}");
        }
    }
    // The words we say instead.
    let output = run(&cases[0].1, &cases[0].2);
    assert!(
        seen(&output).contains(
            "error[CN0002]: expected an integer from 0 to 65535, found integer `99999999999` (at spec.apiEndpoint.port)"
        ),
        "{}",
        seen(&output)
    );
    let output = run(&cases[8].1, &cases[8].2);
    assert!(
        seen(&output).contains("input refused at line "),
        "{}",
        seen(&output)
    );
}

/// A Secret, then an IPPool whose block size is a YAML 1.1 boolean.
const TWO_DOCUMENTS: &str = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n---\napiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p\nspec:\n  cidr: 10.0.0.0/16\n  blockSize: yes\n";

#[test]
fn documents_are_counted_from_one() {
    let output = run(&["validate", "-f", "-"], TWO_DOCUMENTS);
    let text = seen(&output);
    assert!(
        text.contains("skipped: <stdin> document 1 (v1 Secret)"),
        "{text}"
    );
    // A ClusterNetwork file with a second document names where that document starts.
    let output = run(
        &["render", "-f", "-"],
        &format!("{CLUSTER}---\nkind: Other\n"),
    );
    let text = seen(&output);
    assert!(
        text.starts_with(
            "<stdin>:12:1: error[CN0002]: more than one YAML document in a ClusterNetwork file"
        ),
        "{text}"
    );
}

/// A bad second document on standard input is named `<stdin>` with its own line and column.
#[test]
fn a_bad_second_document_on_stdin_is_located() {
    let output = run(&["validate", "-f", "-"], TWO_DOCUMENTS);
    assert_eq!(output.status.code(), Some(1));
    let text = seen(&output);
    assert!(text.contains("--> <stdin>:12:14"), "{text}");
    assert!(
        text.contains("error[CR0002]: expected an integer, found boolean `true`"),
        "{text}"
    );
    let output = run(&["validate", "-f", "-"], "a: 1\n---\nb: [\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        seen(&output).contains("<stdin>:3:4: not valid YAML: unclosed bracket"),
        "{}",
        seen(&output)
    );
}

#[test]
fn every_code_the_program_prints_is_explained() {
    for code in ["KRM001", "CR0000", "CR0003", "CN0001", "CR8007"] {
        let output = run(&["explain", code], "");
        assert_eq!(
            output.status.code(),
            Some(0),
            "explain {code}: {}",
            seen(&output)
        );
        assert!(seen(&output).starts_with(code), "{}", seen(&output));
    }
    // The KRM function's config error carries that code.
    let output = run(
        &["krm"],
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
    );
    assert!(seen(&output).contains("KRM001"), "{}", seen(&output));
}
