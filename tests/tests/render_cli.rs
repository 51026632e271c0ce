//! The `calico-render` binary: `render` and `schema` end to end (exit codes, what goes to which
//! stream, `--out-dir`, determinism under other locales and time zones) and the `--help` text
//! of every subcommand.

use crate::cli_consistency::snapshot;
use calico_render_tests::calico_render;
use calico_render_tests::workspace_root;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: Option<&str>, envs: &[(&str, &str)]) -> Output {
    let mut command = Command::new(calico_render());
    command
        .args(args)
        .current_dir(workspace_root())
        .envs(envs.iter().copied());
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("calico-render starts");
    let mut child_stdin = child.stdin.take().expect("piped stdin");
    if let Some(text) = stdin {
        child_stdin.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(child_stdin);
    child.wait_with_output().expect("calico-render finishes")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

fn snapshot_body(name: &str) -> String {
    let path = workspace_root()
        .join("snapshots/render")
        .join(format!("{name}.snap"));
    let text = std::fs::read_to_string(&path).expect("render snapshot exists");
    // An insta file is a `---` metadata block, then the body.
    let body = text
        .splitn(3, "---\n")
        .nth(2)
        .expect("insta snapshot layout");
    body.to_owned()
}

#[test]
fn article_renders_to_stdout_exactly_as_the_snapshot() {
    let output = run(
        &["render", "-f", "examples/ha-ebpf/cluster.yaml"],
        None,
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output).trim_end(),
        snapshot_body("ha-ebpf.yaml").trim_end()
    );
}

#[test]
fn standard_input_and_json() {
    let text = std::fs::read_to_string(workspace_root().join("examples/ha-ebpf/cluster.yaml"))
        .expect("example");
    let output = run(&["render", "-f", "-", "-o", "json"], Some(&text), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output).trim_end(),
        snapshot_body("ha-ebpf.json").trim_end()
    );
    let output = run(
        &["render", "-f", "-", "--stage", "calico"],
        Some(&text),
        &[],
    );
    assert_eq!(
        (output.status.code(), stdout(&output)),
        (Some(0), String::new())
    );
}

/// Same bytes under another locale and time zone, for every example and form.
#[test]
fn deterministic_across_locales_and_time_zones() {
    for example in ["ha-ebpf", "bgp-loadbalancer", "dual-stack", "iptables-ipip"] {
        let file = format!("examples/{example}/cluster.yaml");
        for format in ["yaml", "json"] {
            let args = ["render", "-f", file.as_str(), "-o", format];
            let plain = run(&args, None, &[("LC_ALL", "C"), ("TZ", "UTC")]);
            let other = run(
                &args,
                None,
                &[("LC_ALL", "de_DE.UTF-8"), ("TZ", "Asia/Kolkata")],
            );
            assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
            assert_eq!(plain.stdout, other.stdout, "{example} -o {format}");
        }
    }
}

/// A mistake gives one clear error on stderr with file:line:column and a hint, exit 1, and
/// nothing on stdout (beside the lints of the fields that read).
#[test]
fn mistakes_exit_1_with_one_located_error() {
    let base = std::fs::read_to_string(workspace_root().join("examples/ha-ebpf/cluster.yaml"))
        .expect("example");
    let cases = [
        (
            "      blockSize: 26\n",
            "      blocksize: 26\n",
            // The rest of the file is checked in the same run (issue 35): the example's own lint
            // comes with the error.
            "<stdin>:17:7: error[CN0001]: unknown field `blocksize` (at spec.podPools[0].blocksize)\n  hint: did you mean `blockSize`? valid here: `name`, `cidr`, `blockSize`, `encapsulation`, `natOutgoing`, `nodeSelector`, `disableBGPExport`, `allowedUses`\n\
             <stdin>:21:25: warning[CR8007]: `disableBGPExport: true` has no effect while `bgp: Disabled` (at spec.podPools[0].disableBGPExport)\n  hint: fine to keep for when BGP is enabled\n  note: `--allow CR8007` silences this lint; `--deny CR8007` (or `--deny warnings`) makes it an error\n",
        ),
        (
            "172.20.0.0/16",
            "172.20.0.0/16x",
            "<stdin>:16:13: error[CN0002]: `172.20.0.0/16x` has an invalid prefix length: use 0-32 (at spec.podPools[0].cidr)\n  hint: write an address range in CIDR notation, such as 172.20.0.0/16 or fd00:10::/56\n",
        ),
        (
            "blockSize: 26",
            "blockSize: 40",
            "<stdin>:17:18: error[CN0103]: block size 40 is out of range for IPv4 pool 172.20.0.0/16 (at spec.podPools[0].blockSize)\n  hint: use a block size from 20 to 32 for IPv4 pools\n",
        ),
    ];
    for (from, to, expected) in cases {
        assert!(base.contains(from), "example lacks {from:?}");
        let text = base.replacen(from, to, 1);
        let output = run(&["render", "-f", "-"], Some(&text), &[]);
        assert_eq!(output.status.code(), Some(1), "{to}: {}", stderr(&output));
        assert_eq!(stdout(&output), "", "{to}");
        assert_eq!(stderr(&output), expected, "{to}");
    }
}

#[test]
fn not_yaml_and_missing_files_exit_2() {
    let output = run(&["render", "-f", "-"], Some("spec: [\n"), &[]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "error: <stdin>:1:7: not valid YAML: unclosed bracket '['\n"
    );

    let output = run(
        &["render", "-f", "examples/no-such/cluster.yaml"],
        None,
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    assert!(
        stderr(&output).starts_with(
            "error: cannot read the ClusterNetwork file `examples/no-such/cluster.yaml`"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn out_dir_writes_one_file_per_object_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let out = dir.path().join("bundle");
    std::fs::create_dir(&out).expect("create bundle dir");
    // A file of an earlier, bigger render goes; a file that is not ours stays.
    std::fs::write(
        out.join("07-ippool-old.yaml"),
        "# @generated by calico-render render --stage calico: stale\nkind: IPPool\n",
    )
    .expect("write stale file");
    std::fs::write(out.join("kustomization.yaml"), "resources: []\n").expect("write foreign file");
    let out_text = out.to_str().expect("UTF-8 path");
    let args = [
        "render",
        "-f",
        "examples/bgp-loadbalancer/cluster.yaml",
        "--out-dir",
        out_text,
    ];
    let output = run(&args, None, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .expect("list bundle dir")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    let mut listing = String::new();
    for name in names
        .iter()
        .filter(|name| name.as_str() != "kustomization.yaml")
    {
        let contents = std::fs::read_to_string(out.join(name)).expect("read bundle file");
        listing.push_str(&format!("==> {name} <==\n{contents}"));
    }
    assert_eq!(
        listing.trim_end(),
        snapshot_body("bgp-loadbalancer.out-dir").trim_end()
    );
    assert!(
        !names.contains(&"07-ippool-old.yaml".to_owned()),
        "stale file kept: {names:?}"
    );
    let foreign =
        std::fs::read_to_string(out.join("kustomization.yaml")).expect("foreign file kept");
    assert_eq!(foreign, "resources: []\n");

    let json_args = [
        "render",
        "-f",
        "examples/ha-ebpf/cluster.yaml",
        "-o",
        "json",
        "--out-dir",
        out_text,
    ];
    let output = run(&json_args, None, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn schema_matches_the_snapshot_and_the_file_examples_use() {
    let output = run(&["schema"], None, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let schema = stdout(&output);
    let committed =
        std::fs::read_to_string(workspace_root().join("examples/clusternetwork.schema.json"))
            .expect("examples/clusternetwork.schema.json exists");
    assert!(
        committed == schema,
        "examples/clusternetwork.schema.json is stale: run `cargo run -p calico-render -- schema > examples/clusternetwork.schema.json` and commit it"
    );
    snapshot("schema.json", &schema);
}

#[test]
fn help_of_every_subcommand() {
    let subcommands = [
        None,
        Some("render"),
        Some("validate"),
        Some("patch"),
        Some("import"),
        Some("router"),
        Some("picture"),
        Some("codegen"),
        Some("schema"),
        Some("explain"),
        Some("post-render"),
        Some("krm"),
        Some("completions"),
        Some("man"),
    ];
    for subcommand in subcommands {
        let mut args: Vec<&str> = subcommand.into_iter().collect();
        args.push("--help");
        let output = run(&args, None, &[("COLUMNS", "100")]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        let name = format!("help-{}", subcommand.unwrap_or("calico-render"));
        snapshot(&name, &stdout(&output));
    }
}
