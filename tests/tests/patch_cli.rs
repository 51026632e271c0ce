//! The `calico-render patch` command line: exit codes, what goes to standard output and what
//! to standard error (issue 5).
//!
//! The binary comes from `calico_render_tests::calico_render` (see `tests/src/lib.rs`).

use calico_render_tests::{calico_render, run_calico_render};

use std::process::{Command, Output, Stdio};

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/cases/patch");

/// Run `calico-render patch ARGS` from the cases directory, with `stdin` on standard input.
fn run(args: &[&str], stdin: &str) -> Output {
    let args: Vec<&str> = std::iter::once("patch")
        .chain(args.iter().copied())
        .collect();
    run_calico_render(&args, std::path::Path::new(CASES), stdin.as_bytes())
}

/// The one helper every CLI case goes through.
fn check(args: &[&str], stdin: &str, code: i32, stdout: &str, stderr_mentions: &[&str]) {
    let output = run(args, stdin);
    let out = String::from_utf8_lossy(&output.stdout);
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(code),
        "args {args:?}\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert_eq!(out, stdout, "args {args:?}\nstderr:\n{err}");
    for needle in stderr_mentions {
        assert!(
            err.contains(needle),
            "args {args:?}: stderr lacks {needle:?}:\n{err}"
        );
    }
}

const ARTICLE_PATCH: &str = r#"[{"op":"test","path":"/spec/calicoNetwork/ipPools/0/name","value":"default-ipv4-ippool"},{"op":"replace","path":"/spec/calicoNetwork/ipPools/0/disableBGPExport","value":true}]"#;

#[test]
fn the_article_patch_in_both_forms() {
    let args = [
        "-f",
        "article-disable-bgp-export/desired.yaml",
        "--live",
        "article-disable-bgp-export/live.yaml",
    ];
    check(&args, "", 0, &format!("{ARTICLE_PATCH}\n"), &[]);
    let kubectl = [&args[..], &["-o", "kubectl"]].concat();
    check(
        &kubectl,
        "",
        0,
        &format!("kubectl patch installation default --type=json -p '{ARTICLE_PATCH}'\n"),
        &[],
    );
}

/// The article's acceptance case end to end: the ClusterNetwork of `examples/ha-ebpf`
/// (compiled with the operator's defaults explicit) against the live Installation the operator
/// wrote back gives exactly the article's change, guarded; the objects LIVE does not hold are
/// not news when LIVE is a single object.
#[test]
fn a_cluster_network_against_the_live_installation() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/ha-ebpf/cluster.yaml"
    );
    let output = run(
        &[
            "-f",
            example,
            "--live",
            "article-disable-bgp-export/live.yaml",
        ],
        "",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{ARTICLE_PATCH}\n")
    );
    assert!(!stderr.contains("LIVE does not"), "{stderr}");
    // The same ClusterNetwork, invalid: its diagnostics, exit 1, nothing on stdout.
    let text = std::fs::read_to_string(example).expect("example");
    let invalid = text.replace("blockSize: 26", "blockSize: 40");
    check(
        &["-f", "-", "--live", "article-disable-bgp-export/live.yaml"],
        &invalid,
        1,
        "",
        &["blockSize"],
    );
}

#[test]
fn standard_input_can_carry_either_side() {
    let live = std::fs::read_to_string(format!("{CASES}/article-disable-bgp-export/live.yaml"))
        .expect("fixture");
    check(
        &[
            "-f",
            "article-disable-bgp-export/desired.yaml",
            "--live",
            "-",
        ],
        &live,
        0,
        &format!("{ARTICLE_PATCH}\n"),
        &[],
    );
    check(
        &["-f", "-", "--live", "-"],
        "",
        2,
        "",
        &["cannot both read standard input"],
    );
}

#[test]
fn no_difference_prints_an_empty_array_and_a_note() {
    let args = ["-f", "add-pool/live.yaml", "--live", "add-pool/live.yaml"];
    check(&args, "", 0, "[]\n", &["nothing to patch"]);
    let kubectl = [&args[..], &["-o", "kubectl"]].concat();
    check(&kubectl, "", 0, "", &["nothing to patch"]);
}

#[test]
fn a_refused_change_exits_1_with_the_migration_steps() {
    check(
        &[
            "-f",
            "refused-cidr/desired.yaml",
            "--live",
            "refused-cidr/live.yaml",
        ],
        "",
        1,
        "",
        &[
            "spec.calicoNetwork.ipPools[0].cidr",
            "hint:",
            "disableNewAllocations: true",
        ],
    );
}

#[test]
fn bad_input_exits_1_and_unreadable_input_exits_2() {
    // YAML, but not an object with a name.
    check(
        &["-f", "-", "--live", "add-pool/live.yaml"],
        "apiVersion: operator.tigera.io/v1\nkind: Installation\n",
        1,
        "",
        &["DESIRED document 1 has no metadata.name"],
    );
    // Not YAML at all.
    check(
        &["-f", "-", "--live", "add-pool/live.yaml"],
        "key: [unclosed\n",
        2,
        "",
        &["not valid YAML"],
    );
    // A file that does not exist.
    check(
        &["-f", "no-such-file.yaml", "--live", "add-pool/live.yaml"],
        "",
        2,
        "",
        &["no-such-file.yaml"],
    );
}

#[test]
fn several_live_objects_give_one_line_per_changed_object() {
    let output = run(
        &["-f", "stream/desired.yaml", "--live", "stream/live.yaml"],
        "",
    );
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    let kinds: Vec<String> = stdout
        .lines()
        .map(|line| {
            let line: serde_json::Value =
                serde_json::from_str(line).expect("one JSON object per line");
            format!(
                "{} {}",
                line["kind"].as_str().expect("kind"),
                line["name"].as_str().expect("name")
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "Installation default",
            "FelixConfiguration default",
            "BGPConfiguration default"
        ]
    );
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        stderr.contains("DESIRED has BGPPeer router (projectcalico.org/v3) but LIVE does not"),
        "{stderr}"
    );
}

/// The `-o kubectl` lines are run by a real POSIX shell against a stand-in `kubectl` that
/// prints its arguments one per line: the `-p` argument must arrive as exactly the JSON patch,
/// single quotes in selectors included.
#[cfg(unix)]
#[test]
fn kubectl_lines_survive_a_real_shell() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().expect("a temporary directory");
    let fake = dir.path().join("kubectl");
    std::fs::write(
        &fake,
        "#!/bin/sh\nfor arg in \"$@\"; do printf '%s\\n' \"$arg\"; done\n",
    )
    .expect("write the stand-in kubectl");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );

    for case in ["selector-quote", "stream"] {
        let desired = format!("{case}/desired.yaml");
        let live = format!("{case}/live.yaml");
        let json = run(&["-f", &desired, "--live", &live], "");
        let kubectl = run(&["-f", &desired, "--live", &live, "-o", "kubectl"], "");
        assert_eq!(kubectl.status.code(), Some(0), "{case}");
        let json = String::from_utf8(json.stdout).expect("utf-8");
        let lines = String::from_utf8(kubectl.stdout).expect("utf-8");
        assert_eq!(
            json.lines().count(),
            lines.lines().count(),
            "{case}: one command per patch"
        );
        for (json_line, command) in json.lines().zip(lines.lines()) {
            let shell = Command::new("sh")
                .args(["-c", command])
                .env("PATH", &path)
                .output()
                .expect("sh runs");
            assert!(shell.status.success(), "{case}: {command}");
            let args = String::from_utf8(shell.stdout).expect("utf-8");
            let args: Vec<&str> = args.lines().collect();
            assert_eq!(&args[..1], ["patch"], "{case}: {command}");
            assert_eq!(
                args[args.len() - 3..args.len() - 1],
                ["--type=json", "-p"],
                "{command}"
            );
            let sent: serde_json::Value = serde_json::from_str(args[args.len() - 1]).expect("JSON");
            let line: serde_json::Value = serde_json::from_str(json_line).expect("JSON");
            // With one live object the JSON output is the bare array; otherwise a wrapped line.
            let expected = line.get("patch").cloned().unwrap_or(line);
            assert_eq!(sent, expected, "{case}: {command}");
        }
    }
}

/// Hand-written DESIRED objects are validated with the whole rule catalogue before anything is
/// compared: each mistake `validate` rejects refuses the patch (exit 1, nothing on standard
/// output) with `validate`'s diagnostic at its line. The unbroken file patches, so each refusal
/// comes from the mistake alone.
#[test]
fn invalid_desired_objects_are_refused_as_validate_refuses_them() {
    let desired =
        std::fs::read_to_string(format!("{CASES}/validated/desired.yaml")).expect("fixture");
    let args = ["-f", "-", "--live", "validated/live.yaml"];
    let output = run(&args, &desired);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let patches = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(patches.lines().count(), 2, "{patches}");

    // (what, from, to, the code and position `validate` reports)
    let cases = [
        (
            "a field typo",
            "disableBGPExport: true",
            "disableBgpExport: true",
            "<stdin>:29:9: error[CR0001]: unknown field `disableBgpExport`",
        ),
        (
            "a numeric port",
            "KUBERNETES_SERVICE_PORT: \"6443\"",
            "KUBERNETES_SERVICE_PORT: 6443",
            "<stdin>:12:28: error[CR6103]",
        ),
        (
            "IPIP with BGP off",
            "encapsulation: VXLANCrossSubnet",
            "encapsulation: IPIP",
            "<stdin>:26:24: error[CR5009]",
        ),
        (
            "an unclosed selector",
            "nodeSelector: all()",
            "nodeSelector: all(",
            "<stdin>:28:23: error[CR1017]",
        ),
    ];
    for (what, from, to, expected) in cases {
        assert!(desired.contains(from), "{what}: fixture lacks {from:?}");
        let broken = desired.replacen(from, to, 1);
        check(&args, &broken, 1, "", &[expected]);
        // `validate` says the same about the same text.
        let validate = Command::new(calico_render())
            .args(["validate", "-f", "-"])
            .current_dir(CASES)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .expect("stdin")
                    .write_all(broken.as_bytes())?;
                child.wait_with_output()
            })
            .expect("validate runs");
        assert_eq!(
            validate.status.code(),
            Some(1),
            "{what}: validate accepts it"
        );
        let code = &expected[expected.find("error[").expect("code")..][6..12];
        assert!(
            String::from_utf8_lossy(&validate.stdout).contains(code),
            "{what}: validate does not report {code}"
        );
    }
    // A lint made an error with --deny refuses the patch too; --allow silences it.
    check(
        &[&args[..], &["--deny", "warnings"]].concat(),
        &desired,
        1,
        "",
        &["error[CR8007]"],
    );
    let output = run(&[&args[..], &["--allow", "CR8007"]].concat(), &desired);
    assert_eq!(output.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("CR8007"));
}
