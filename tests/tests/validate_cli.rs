//! The `calico-render validate` and `explain` command lines (issue 3): the text and JSON output
//! for a file with several errors (snapshots), the seed and its traps, and the exit codes.
//!
//! The binary is the one the shared helper builds (a no-op when fresh) next to this test.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The repository root; inputs are named relative to it, so outputs hold no machine paths.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(calico_render_tests::calico_render());
    command.args(args).current_dir(ROOT);
    command
}

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("calico-render starts");
    // A usage error exits before reading standard input; a closed pipe is not a failure then.
    let _ = child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes());
    child.wait_with_output().expect("calico-render finishes")
}

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../snapshots/validate"
    ));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

const INVALID: &str = "examples/invalid/manifests.yaml";

#[test]
fn invalid_example_text() {
    settings().bind(|| {
        insta_cmd::assert_cmd_snapshot!("invalid_text", command(&["validate", "-f", INVALID]));
    });
}

#[test]
fn invalid_example_json() {
    settings().bind(|| {
        insta_cmd::assert_cmd_snapshot!(
            "invalid_json",
            command(&["validate", "-f", INVALID, "-o", "json"])
        );
    });
}

#[test]
fn json_output_is_one_object() {
    let output = run(&["validate", "-f", INVALID, "-o", "json"], "");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    let diagnostics = value["diagnostics"].as_array().expect("diagnostics list");
    assert!(diagnostics.iter().all(|diag| diag["file"] == INVALID));
    let positions: Vec<(u64, u64, u64)> = diagnostics
        .iter()
        .map(|diag| {
            (
                diag["document"].as_u64().unwrap(),
                diag["line"].as_u64().unwrap(),
                diag["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = positions.clone();
    sorted.sort_unstable();
    assert_eq!(
        positions, sorted,
        "diagnostics are sorted by document, line, column"
    );
    assert_eq!(value["skipped"][0]["kind"], "Deployment");
}

/// Exit status and the codes in the JSON output.
fn check(args: &[&str], stdin: &str, exit: i32, expected_codes: &[&str]) {
    let mut full: Vec<&str> = vec!["validate"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["-o", "json"]);
    let output = run(&full, stdin);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(exit),
        "{args:?}: stderr: {stderr}"
    );
    if exit == 2 {
        assert!(
            output.stdout.is_empty(),
            "{args:?}: nothing on stdout for exit 2"
        );
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        return;
    }
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    let mut codes: Vec<&str> = value["diagnostics"]
        .as_array()
        .expect("diagnostics list")
        .iter()
        .map(|diag| diag["code"].as_str().expect("code"))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes, expected_codes, "{args:?}");
}

const CASES: &str = "tests/cases/validate";

#[test]
fn seed_and_traps() {
    let case = |name: &str| format!("{CASES}/{name}.yaml");
    // The article's manifests have no errors; `disableBGPExport` while BGP is still off is a lint.
    check(&["-f", &case("article")], "", 0, &["CR8007"]);
    check(&["-f", &case("article"), "--allow", "CR8007"], "", 0, &[]);
    check(
        &["-f", &case("article"), "--deny", "warnings"],
        "",
        1,
        &["CR8007"],
    );
    check(
        &["-f", &case("article"), "--deny", "cr8007"],
        "",
        1,
        &["CR8007"],
    );
    check(&["-f", &case("trap-no-pool")], "", 1, &["CR5009", "CR8002"]);
    check(
        &["-f", &case("trap-bgp-disabled-ipip")],
        "",
        1,
        &["CR5009", "CR8007"],
    );
    check(
        &["-f", &case("trap-host-bits")],
        "",
        1,
        &["CR1003", "CR8007"],
    );
    check(
        &["-f", &case("trap-block-size-19")],
        "",
        1,
        &["CR1008", "CR8007"],
    );
    check(
        &["-f", &case("trap-unquoted-port")],
        "",
        1,
        &["CR6103", "CR8007"],
    );
    check(
        &["-f", &case("trap-cluster-ip")],
        "",
        0,
        &["CR8005", "CR8007"],
    );
    check(
        &["-f", &case("trap-cluster-ip"), "--deny", "CR8005"],
        "",
        1,
        &["CR8005", "CR8007"],
    );
}

#[test]
fn exit_codes() {
    let article = std::fs::read_to_string(format!("{ROOT}/{CASES}/article.yaml")).expect("fixture");
    // Standard input, alone and next to a file.
    check(&["-f", "-"], &article, 0, &["CR8007"]);
    // Together, the two files define Installation `default` twice, with overlapping pools.
    check(
        &["-f", "-", "-f", INVALID],
        &article,
        1,
        &[
            "CR0001", "CR0002", "CR1003", "CR1008", "CR1017", "CR2007", "CR5009", "CR6103",
            "CR7001", "CR7002", "CR8001", "CR8005", "CR8006", "CR8007", "CR8008", "OP0306",
            "OP0603",
        ],
    );
    // Nothing checked is a failure unless `--allow-empty` accepts it (issue 35).
    check(&["-f", "-"], "", 1, &[]);
    check(&["-f", "-", "--allow-empty"], "", 0, &[]);
    // Usage, IO and text that is not YAML.
    check(&["-f", "-"], "a: [1, 2\n", 2, &[]);
    check(&["-f", "does/not/exist.yaml"], "", 2, &[]);
    check(&["-f", "-", "--deny", "CR9999"], "", 2, &[]);
    check(&["-f", "-", "--allow", "CR1003"], "", 2, &[]);
    check(&["-f", "-", "-f", "-"], "", 2, &[]);
    let output = run(&["validate"], "");
    assert_eq!(output.status.code(), Some(2), "-f is required");
    let output = run(&["validate", "-f", "-", "-o", "yaml"], "");
    assert_eq!(output.status.code(), Some(2), "unknown format");
    // Hostile input is refused within budgets, with exit 2.
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1u8..10 {
        let (prev, name) = ((b'a' + level - 1) as char, (b'a' + level) as char);
        bomb.push_str(&format!("{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
    }
    let output = run(&["validate", "-f", "-"], &bomb);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("input refused"));
}

#[test]
fn explain() {
    let output = run(&["explain", "CR5009"], "");
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("CR5009 (error, upstream parity): encapsulation needs BGP\n"),
        "{text}"
    );
    let output = run(&["explain", "cr8001"], "");
    assert!(String::from_utf8_lossy(&output.stdout).contains("warning, lint"));
    let output = run(&["explain", "CR9999"], "");
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["explain"], "");
    assert_eq!(output.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&output.stdout);
    assert_eq!(listing.lines().count(), calico_spec::rules::CATALOGUE.len());
    // The ClusterNetwork's own codes are explained too.
    assert!(listing.contains("CN0203  warning"), "{listing}");
    let output = run(&["explain", "cn0104"], "");
    assert_eq!(output.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&output.stdout)
            .starts_with("CN0104 (error, ClusterNetwork check): encapsulation not allowed"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn cluster_network_lints_obey_deny_and_allow() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/ha-ebpf/cluster.yaml"
    );
    let example = std::fs::read_to_string(path).expect("example exists");
    // BPF Felix settings without the BPF dataplane: lint CN0203 (and the example's CR8007).
    let input = format!(
        "{}  felix:\n    bpfLogLevel: Debug\n",
        example.replace("dataplane: BPF", "dataplane: Iptables")
    );
    let codes = |args: &[&str]| {
        let mut argv = vec!["validate", "-f", "-", "-o", "json"];
        argv.extend_from_slice(args);
        let output = run(&argv, &input);
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("validate -o json prints JSON");
        let found: Vec<String> = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|diag| format!("{} {}", diag["code"], diag["severity"]))
            .collect();
        (output.status.code(), found)
    };
    assert_eq!(
        codes(&[]),
        (
            Some(0),
            vec![
                "\"CR8007\" \"warning\"".to_owned(),
                "\"CN0203\" \"warning\"".to_owned()
            ]
        )
    );
    assert_eq!(
        codes(&["--allow", "CN0203"]),
        (Some(0), vec!["\"CR8007\" \"warning\"".to_owned()])
    );
    assert_eq!(
        codes(&["--deny", "cn0203", "--allow", "CR8007"]),
        (Some(1), vec!["\"CN0203\" \"error\"".to_owned()])
    );
    let output = run(&["validate", "-f", "-", "--allow", "CN0104"], &input);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("CN0104 is an error, not a lint"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
