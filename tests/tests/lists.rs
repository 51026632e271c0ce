//! Lists (issue 35): `kind: List` (what `kubectl get -o yaml` prints) and the typed lists of
//! calicoctl and the API server (`IPPoolList`, `InstallationList`, ...) are checked item by
//! item, each diagnostic at its item (`items[1].spec.cidr`, that line); an input in which
//! nothing was checked fails unless `--allow-empty` says that is fine; old dumps (unquoted
//! timestamps, the `projectcalico.org/metadata` annotation) read as they are.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// The repository root; inputs are named relative to it.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `kubectl get ippools.projectcalico.org -o yaml` of a cluster with one valid pool and one
/// whose CIDR is not an address (`10.300.0.0/16`), with the server's metadata, managed fields
/// and unquoted timestamps as older kubectl wrote them.
const KUBECTL_POOLS: &str = "tests/cases/lists/kubectl-ippools.yaml";

/// A ClusterNetwork whose rendering has several kinds (Installation, APIServer, Calico
/// configuration, the endpoint ConfigMap).
const EXAMPLE: &str = "examples/bgp-loadbalancer/cluster.yaml";

fn run(args: &[&str], stdin: &str) -> Output {
    calico_render_tests::run_calico_render(args, Path::new(ROOT), stdin.as_bytes())
}

fn pools_text() -> String {
    std::fs::read_to_string(format!("{ROOT}/{KUBECTL_POOLS}")).expect("the case is readable")
}

/// The one-based line and column of the first occurrence of `needle` in `text`, past its
/// key (the column of the value).
fn position_of(text: &str, line_part: &str, value: &str) -> (u64, u64) {
    for (idx, line) in text.lines().enumerate() {
        if line.contains(line_part) {
            let column = line.find(value).expect("the value is on the line") + 1;
            return ((idx + 1) as u64, column as u64);
        }
    }
    panic!("`{line_part}` is not in the text");
}

fn json_diagnostics(output: &Output) -> Vec<Value> {
    let report: Value = serde_json::from_slice(&output.stdout).expect("-o json is JSON");
    report["diagnostics"]
        .as_array()
        .expect("a diagnostics array")
        .clone()
}

/// The invalid pool's CIDR, whichever way the list is written: its code, field path, line and
/// column in the text.
fn assert_bad_cidr_at_item(text: &str, output: &Output, item: usize) {
    assert_eq!(
        output.status.code(),
        Some(1),
        "an invalid pool in a list fails validation: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    let diagnostics = json_diagnostics(output);
    let (line, column) = position_of(text, "cidr: 10.300.0.0/16", "10.300");
    let found = diagnostics.iter().find(|diag| diag["code"] == "CR1002");
    let diag = found.unwrap_or_else(|| panic!("CR1002 is reported: {diagnostics:#?}"));
    assert_eq!(diag["severity"], "error");
    assert_eq!(diag["path"], format!("items[{item}].spec.cidr"));
    assert_eq!(diag["line"], line);
    assert_eq!(diag["column"], column);
    assert_eq!(diag["document"], 0);
}

#[test]
fn validate_checks_every_item_of_a_kubectl_list() {
    let text = pools_text();
    let output = run(&["validate", "-f", KUBECTL_POOLS, "-o", "json"], "");
    assert_bad_cidr_at_item(&text, &output, 1);
    let report: Value = serde_json::from_slice(&output.stdout).expect("-o json is JSON");
    assert_eq!(
        report["skipped"],
        serde_json::json!([]),
        "the List is not skipped"
    );
    // Only the bad CIDR is an error: the unquoted timestamps, managed fields and the Calico
    // API server's metadata annotation are what the API server wrote, not problems.
    let errors: Vec<Value> = json_diagnostics(&output)
        .into_iter()
        .filter(|diag| diag["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
}

#[test]
fn validate_reads_a_list_from_standard_input_and_counts_its_items() {
    let text = pools_text();
    let output = run(&["validate", "-f", "-", "--deny", "warnings"], &text);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("2 objects checked"), "{stdout}");
    assert!(stdout.contains("items[1].spec.cidr"), "{stdout}");
    // The valid item alone, as a List: checked and passing.
    let valid: String = text
        .split("- apiVersion: projectcalico.org/v3\n  kind: IPPool\n  metadata:\n    creationTimestamp: 2023")
        .next()
        .expect("the first item")
        .to_owned()
        + "kind: List\nmetadata:\n  resourceVersion: \"\"\n";
    let output = run(&["validate", "-f", "-", "--deny", "warnings"], &valid);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 object checked"), "{stdout}");
}

/// A warning in a list item is denied like a warning anywhere: the pool overlaps the LAN
/// range assumed for a bare manifest (192.168.0.0/16, CR8001).
#[test]
fn deny_warnings_applies_to_list_items() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: projectcalico.org/v3\n  \
                kind: IPPool\n  metadata:\n    name: lan\n  spec:\n    cidr: 192.168.0.0/16\n";
    assert_eq!(run(&["validate", "-f", "-"], text).status.code(), Some(0));
    let denied = run(&["validate", "-f", "-", "--deny", "warnings"], text);
    assert_eq!(denied.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&denied.stdout).contains("items[0].spec.cidr"));
}

/// calicoctl's typed lists (`calicoctl get ippools -o yaml` writes `kind: IPPoolList` in
/// projectcalico.org/v3) and the same list through Calico's storage group: the items are
/// checked as in a `List`.
#[test]
fn validate_checks_typed_lists_in_each_group() {
    let text = pools_text();
    for api_version in ["projectcalico.org/v3", "crd.projectcalico.org/v1"] {
        let typed = text
            .replacen(
                "apiVersion: v1\n",
                &format!("apiVersion: {api_version}\n"),
                1,
            )
            .replace("kind: List\n", "kind: IPPoolList\n")
            .replace(
                "- apiVersion: projectcalico.org/v3",
                &format!("- apiVersion: {api_version}"),
            );
        let output = run(&["validate", "-f", "-", "-o", "json"], &typed);
        assert_bad_cidr_at_item(&typed, &output, 1);
    }
}

/// The API server's own list responses (`kubectl get --raw`, client libraries) leave out
/// each item's apiVersion and kind: they are the list's, its kind without `List`.
#[test]
fn typed_list_items_without_kind_take_the_lists() {
    let text = "apiVersion: operator.tigera.io/v1\nkind: InstallationList\nmetadata:\n  \
                resourceVersion: \"4411\"\nitems:\n- metadata:\n    name: default\n  spec:\n    \
                calicoNetwork:\n      ipPools:\n      - cidr: 10.244.0.0/16\n        \
                blockSize: 33\n";
    let output = run(&["validate", "-f", "-", "-o", "json"], text);
    assert_eq!(output.status.code(), Some(1));
    let diagnostics = json_diagnostics(&output);
    let diag = diagnostics
        .iter()
        .find(|diag| diag["path"] == "items[0].spec.calicoNetwork.ipPools[0].blockSize")
        .unwrap_or_else(|| panic!("the block size is refused at its item: {diagnostics:#?}"));
    assert_eq!(diag["severity"], "error");
    assert_eq!(diag["line"], 12);
}

#[test]
fn nothing_checked_fails_unless_allowed() {
    let cases = [
        ("", "the input holds no objects"),
        (
            "apiVersion: v1\nkind: List\nitems: []\nmetadata:\n  resourceVersion: \"\"\n",
            "v1 List",
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
            "v1 Service",
        ),
    ];
    for (input, said) in cases {
        let output = run(&["validate", "-f", "-"], input);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{input:?}: {stderr}");
        assert!(stderr.contains("no objects were checked"), "{stderr}");
        assert!(stderr.contains(said), "{input:?}: {stderr}");
        assert!(stderr.contains("--allow-empty"), "{stderr}");
        let allowed = run(&["validate", "-f", "-", "--allow-empty"], input);
        assert_eq!(allowed.status.code(), Some(0), "{input:?}");
    }
}

/// `import` and `patch --live` read the same typed lists: calicoctl's `InstallationList` and
/// `IPPoolList` of a rendered example import, and the live objects give an empty patch.
#[test]
fn import_and_patch_read_typed_lists() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let render = run(&["render", "-f", EXAMPLE, "-o", "json"], "");
    assert_eq!(
        render.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&render.stderr)
    );
    let rendered: Value = serde_json::from_slice(&render.stdout).expect("a JSON List");
    let mut by_kind: std::collections::BTreeMap<(String, String), Vec<Value>> =
        std::collections::BTreeMap::new();
    for object in rendered["items"].as_array().expect("items") {
        let api_version = object["apiVersion"].as_str().unwrap_or_default().to_owned();
        let kind = object["kind"].as_str().unwrap_or_default().to_owned();
        by_kind
            .entry((api_version, kind))
            .or_default()
            .push(object.clone());
    }
    assert!(by_kind.len() > 2, "several kinds: {:?}", by_kind.keys());
    // One typed list per kind, as calicoctl writes them, and as the API server answers a list
    // request (items without apiVersion and kind).
    for items_say_kind in [true, false] {
        let live = by_kind
            .iter()
            .map(|((api_version, kind), items)| {
                let items: Vec<Value> = items
                    .iter()
                    .cloned()
                    .map(|mut item| {
                        if !items_say_kind && let Some(map) = item.as_object_mut() {
                            map.remove("apiVersion");
                            map.remove("kind");
                        }
                        item
                    })
                    .collect();
                serde_json::json!({
                    "apiVersion": api_version,
                    "kind": format!("{kind}List"),
                    "metadata": {"resourceVersion": "1"},
                    "items": items,
                })
                .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n---\n");
        let live_path = dir.path().join("live.yaml");
        std::fs::write(&live_path, &live).expect("written");
        let live_arg = live_path.to_str().expect("UTF-8 path");
        let import = run(&["import", "-f", live_arg], "");
        assert_eq!(
            import.status.code(),
            Some(0),
            "{items_say_kind}: {}",
            String::from_utf8_lossy(&import.stderr)
        );
        let patch = run(&["patch", "-f", EXAMPLE, "--live", live_arg], "");
        let stdout = String::from_utf8_lossy(&patch.stdout);
        assert_eq!(
            patch.status.code(),
            Some(0),
            "{items_say_kind}: {stdout}{}",
            String::from_utf8_lossy(&patch.stderr)
        );
        assert!(
            !stdout.contains("\"op\""),
            "the live lists are what renders: {stdout}"
        );
        let validate = run(&["validate", "-f", live_arg], "");
        assert_eq!(validate.status.code(), Some(0), "{items_say_kind}");
        let n_objects: usize = by_kind.values().map(Vec::len).sum();
        assert!(
            String::from_utf8_lossy(&validate.stdout)
                .contains(&format!("{n_objects} objects checked")),
            "{}",
            String::from_utf8_lossy(&validate.stdout)
        );
    }
}

/// An older cluster's dump (`kubectl get installation,ippools.crd.projectcalico.org -o yaml`):
/// unquoted timestamps, the Calico API server's `projectcalico.org/metadata` annotation on the
/// storage-group IPPool, kubectl's last-applied annotation, and an Installation whose pool has
/// no name yet. It validates (two objects, no error) and imports: the pool takes the name of
/// the operator's IPPool with its CIDR.
#[test]
fn an_old_dump_validates_and_imports() {
    const OLD: &str = "tests/cases/lists/old-dump.yaml";
    let validate = run(&["validate", "-f", OLD, "-o", "json"], "");
    assert_eq!(validate.status.code(), Some(0));
    let diagnostics = json_diagnostics(&validate);
    assert!(
        diagnostics.iter().all(|diag| diag["severity"] == "warning"),
        "{diagnostics:#?}"
    );
    let import = run(&["import", "-f", OLD], "");
    let stdout = String::from_utf8_lossy(&import.stdout);
    let stderr = String::from_utf8_lossy(&import.stderr);
    assert_eq!(import.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("  - name: default-ipv4-ippool\n    cidr: 10.48.0.0/16\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "warning[CN0409]: the pool has no name; named `default-ipv4-ippool` (the IPPool of \
             the cluster with this CIDR)"
        ) && stderr.contains("(at items[0].spec.calicoNetwork.ipPools[0].name)"),
        "{stderr}"
    );
    // The storage-group copy is the operator's, dropped; its annotation is the server's.
    assert!(stderr.contains("note[CN0403]: IPPool `default-ipv4-ippool`"));
    assert!(stderr.contains("`metadata.annotations.projectcalico.org/metadata`"));
}

/// `Diagnostic` and `Skipped` serialize (serde) in the form `validate -o json` prints, so a
/// library consumer's JSON and the CLI's agree.
#[test]
fn library_diagnostics_serialize_as_the_cli_prints_them() {
    use calico_spec::rules::{self, Context, SourceText};
    use calico_spec::source::Limits;

    let text = pools_text();
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n";
    let inputs = [
        SourceText {
            name: KUBECTL_POOLS,
            text: &text,
        },
        SourceText {
            name: "service.yaml",
            text: service,
        },
    ];
    let outcome =
        rules::validate_texts(&inputs, &Context::assumed(), &Limits::MANIFESTS).expect("YAML");
    let mut library = serde_json::json!({
        "diagnostics": outcome.diagnostics,
        "skipped": outcome.skipped,
    });
    // `unchecked` is printed only when a check lacked its context document.
    if !outcome.unchecked.is_empty() {
        library["unchecked"] = serde_json::json!(outcome.unchecked);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let service_path = dir.path().join("service.yaml");
    std::fs::write(&service_path, service).expect("written");
    let cli = run(
        &[
            "validate",
            "-f",
            KUBECTL_POOLS,
            "-f",
            service_path.to_str().expect("UTF-8"),
            "-o",
            "json",
        ],
        "",
    );
    let mut printed: Value = serde_json::from_slice(&cli.stdout).expect("-o json is JSON");
    // The CLI names the file as given; the library was given `service.yaml`.
    printed["skipped"][0]["file"] = serde_json::json!("service.yaml");
    assert_eq!(library, printed);
    let first = &library["diagnostics"][0];
    assert!(
        first["severity"].is_string() && first["line"].is_u64(),
        "{first}"
    );
}

/// An older release's verdicts apply to list items too, at the item's path: a field v3.30
/// lacks is refused for it (CR0007), and the newest release's "unknown field" for a field
/// only older releases have is set aside (docs/releases.md).
#[test]
fn an_older_release_judges_list_items_at_their_paths() {
    let text = "apiVersion: projectcalico.org/v3\nkind: IPPoolList\nitems:\n\
                - apiVersion: projectcalico.org/v3\n  kind: IPPool\n  metadata:\n    name: a\n  \
                spec:\n    cidr: 10.48.0.0/16\n    allowedUses: [Workload]\n    \
                namespaceSelector: all()\n\
                - apiVersion: projectcalico.org/v3\n  kind: FelixConfiguration\n  metadata:\n    \
                name: default\n  spec:\n    iptablesLockTimeout: 10s\n";
    let codes = |args: &[&str]| -> Vec<(String, String)> {
        let output = run(args, text);
        json_diagnostics(&output)
            .iter()
            .map(|diag| {
                (
                    diag["code"].as_str().unwrap_or_default().to_owned(),
                    diag["path"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    let pair = |code: &str, path: &str| (code.to_owned(), path.to_owned());
    assert_eq!(
        codes(&["validate", "-f", "-", "-o", "json"]),
        [pair("CR0001", "items[1].spec.iptablesLockTimeout")]
    );
    assert_eq!(
        codes(&[
            "validate",
            "-f",
            "-",
            "-o",
            "json",
            "--calico-version",
            "v3.30.7"
        ]),
        [pair("CR0007", "items[0].spec.namespaceSelector")]
    );
}
