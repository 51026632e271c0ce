//! Hostile inputs and outputs: each case of `docs/hostile-input.md` with its documented answer
//! (exit code, message, nothing on standard output when refused). The table there and these
//! tests change together.

use calico_render_tests::{calico_render, run_calico_render, spawn_calico_render, workspace_root};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

const EXAMPLE: &str = "examples/bgp-loadbalancer/cluster.yaml";

fn example() -> String {
    std::fs::read_to_string(workspace_root().join(EXAMPLE)).expect("read example")
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_calico_render(args, &workspace_root(), stdin)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts a refusal: `code`, every part in standard error, and nothing on standard output.
fn refused(output: &Output, code: i32, parts: &[&str]) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "stderr:\n{err}");
    for part in parts {
        assert!(err.contains(part), "stderr lacks {part:?}:\n{err}");
    }
    assert!(
        output.stdout.is_empty(),
        "nothing may be written on a refusal"
    );
}

/// `text` in a temporary file; the directory lives as long as the returned guard.
fn file_with(text: &[u8]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cluster.yaml");
    std::fs::write(&path, text).expect("write input");
    let shown = path.to_str().expect("UTF-8 path").to_owned();
    (dir, shown)
}

fn render_file(text: &[u8]) -> Output {
    let (_dir, path) = file_with(text);
    run(&["render", "-f", &path], b"")
}

fn validate_file(text: &[u8]) -> Output {
    let (_dir, path) = file_with(text);
    run(&["validate", "-f", &path], b"")
}

/// Ten levels of ten aliases each: 10^10 nodes if expanded.
fn alias_bomb(indent: &str) -> String {
    let mut lines = vec![format!("{indent}x0: &a0 [x, x, x, x, x, x, x, x, x, x]")];
    for level in 1..10 {
        let previous = format!("*a{}", level - 1);
        let items = [previous.as_str(); 10].join(", ");
        lines.push(format!("{indent}x{level}: &a{level} [{items}]"));
    }
    lines.join("\n") + "\n"
}

#[test]
fn alias_bombs_are_refused_quickly() {
    let output = validate_file(alias_bomb("").as_bytes());
    refused(&output, 2, &["input refused: more than 1000000 nodes"]);
    let in_annotations = example().replace(
        "metadata:\n  name: bgp-loadbalancer\n",
        &format!(
            "metadata:\n  name: bgp-loadbalancer\n  annotations:\n{}",
            alias_bomb("    ")
        ),
    );
    let output = render_file(in_annotations.as_bytes());
    refused(
        &output,
        2,
        &["input refused: more than 20000 nodes; a ClusterNetwork is far smaller"],
    );
    // A document without a kind is not ours: post-render passes it through unread.
    let output = run(&["post-render", "-f", EXAMPLE], alias_bomb("").as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout.starts_with(alias_bomb("").as_bytes()));
}

#[test]
fn an_alias_bomb_in_a_chart_object_is_refused_by_the_budget() {
    // In a chart's ConfigMap the bomb is parsed (to find the kind) and refused by the budget
    // before it expands.
    let config_map = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata:\n{}",
        alias_bomb("  ")
    );
    let output = run(&["post-render", "-f", EXAMPLE], config_map.as_bytes());
    refused(
        &output,
        2,
        &[
            // The anchored sequence the aliases expand (`x0: &a0 [...]`), line 5 column 18.
            "error: <stdin>:5:18: input refused at line 5, column 18",
            "anchors and aliases expand to too much",
        ],
    );
}

#[test]
fn nesting_ten_thousand_deep_is_refused() {
    let deep = format!("{}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    refused(
        &render_file(deep.as_bytes()),
        2,
        &["recursion limit exceeded"],
    );
    refused(
        &validate_file(deep.as_bytes()),
        2,
        &["recursion limit exceeded"],
    );
    let deep_maps = format!("{}1{}\n", "{a: ".repeat(10_000), "}".repeat(10_000));
    refused(
        &render_file(deep_maps.as_bytes()),
        2,
        &["recursion limit exceeded"],
    );
}

#[test]
fn a_200_megabyte_document_is_refused() {
    let big = example().replace(
        "metadata:\n  name: bgp-loadbalancer\n",
        &format!(
            "metadata:\n  name: bgp-loadbalancer\n  annotations:\n    big: \"{}\"\n",
            "a".repeat(200_000_000)
        ),
    );
    let (_dir, path) = file_with(big.as_bytes());
    drop(big);
    refused(
        &run(&["render", "-f", &path], b""),
        2,
        &["input refused: more than 1048576 bytes"],
    );
    assert!(
        !stderr(&run(&["render", "-f", &path], b"")).contains("not YAML"),
        "a size refusal does not call the input not YAML"
    );
    refused(
        &run(&["validate", "-f", &path], b""),
        2,
        &["input refused: more than 16777216 bytes"],
    );
}

/// Bytes of a 200 MB document on standard input that the subcommand takes before it refuses.
fn bytes_taken_before_refusal(args: &[&str]) -> (u64, Output) {
    let mut child = spawn_calico_render(args, &workspace_root());
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'a'; 1 << 20];
        let mut taken = 0u64;
        stdin
            .write_all(b"kind: ConfigMap\ndata:\n  big: ")
            .expect("first bytes");
        for _ in 0..200 {
            if stdin.write_all(&chunk).is_err() {
                break; // the reader stopped reading: what we want to see
            }
            taken += chunk.len() as u64;
        }
        taken
    });
    let output = child.wait_with_output().expect("calico-render finishes");
    (writer.join().expect("writer"), output)
}

/// The size budget is applied while reading: `render` (1 MiB) and `validate` (16 MiB) stop
/// reading a 200 MB standard input just past their budget, instead of holding all of it.
#[test]
fn a_200_megabyte_input_is_not_read_past_the_budget() {
    for (args, budget, says) in [
        (
            &["render", "-f", "-"][..],
            1u64 << 20,
            "more than 1048576 bytes",
        ),
        (
            &["validate", "-f", "-"][..],
            16 << 20,
            "more than 16777216 bytes",
        ),
    ] {
        let (taken, output) = bytes_taken_before_refusal(args);
        refused(&output, 2, &[says]);
        // The pipe holds up to 1 MiB more than the process read; 8 MiB of slack for chunking.
        assert!(
            taken <= budget + (8 << 20),
            "{args:?} read {taken} bytes of a 200 MB input, budget {budget}"
        );
    }
}

#[test]
fn invalid_utf8_and_nul_bytes_are_refused() {
    let mut bad = example().into_bytes();
    bad.splice(0..0, *b"# \xff\xfe\n");
    refused(&render_file(&bad), 2, &["cannot read", "valid UTF-8"]);
    refused(&validate_file(&bad), 2, &["cannot read", "valid UTF-8"]);
    let nul = example().replace("name: router", "name: rou\0ter");
    refused(
        &render_file(nul.as_bytes()),
        2,
        &["17:18", "unexpected character"],
    );
    refused(
        &validate_file(nul.as_bytes()),
        2,
        &[":17:18: not valid YAML"],
    );
}

#[test]
fn invalid_utf8_and_nul_bytes_in_a_chart_object_are_passed_through() {
    // A chart's own objects are copied unread, byte for byte (found by the post_render fuzz
    // target, tests/cases/fuzz/post_render/).
    let chart =
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: \"\xff\xfe \x00\"\n";
    let output = run(&["post-render", "-f", EXAMPLE], chart);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        output.stdout.starts_with(chart),
        "the object is not copied as is"
    );
}

#[test]
fn a_bom_and_crlf_line_ends_render_like_the_plain_file() {
    let plain = render_file(example().as_bytes());
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(example().as_bytes());
    let crlf = example().replace('\n', "\r\n");
    for (what, text) in [("BOM", bom), ("CRLF", crlf.into_bytes())] {
        let output = render_file(&text);
        assert_eq!(output.status.code(), Some(0), "{what}: {}", stderr(&output));
        assert_eq!(output.stdout, plain.stdout, "{what}: output differs");
    }
}

#[test]
fn numbers_beyond_64_bits_and_duplicate_keys_are_invalid() {
    let big = example().replace(
        "asNumber: 64513",
        "asNumber: 123456789012345678901234567890",
    );
    refused(
        &render_file(big.as_bytes()),
        1,
        &[
            "14:15",
            "CN0002",
            "spec.bgp.asNumber",
            "between 1 and 2147483647",
        ],
    );
    let duplicate = example().replace(
        "  dataplane: BPF\n",
        "  dataplane: BPF\n  dataplane: Iptables\n",
    );
    refused(
        &render_file(duplicate.as_bytes()),
        1,
        &[
            "12:3",
            "error[CR0003]: key `dataplane` appears more than once",
            "spec.dataplane",
        ],
    );
}

#[test]
fn a_directory_without_cluster_files_is_refused() {
    // A folder is a fleet (`render` and `validate` read its ClusterNetwork files); one without
    // any is refused, not reported as an empty success.
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("notes.txt"), "not YAML").expect("write");
    let path = dir.path().to_str().expect("UTF-8");
    for subcommand in ["render", "validate"] {
        refused(
            &run(&[subcommand, "-f", path], b""),
            2,
            &["no ClusterNetwork file to read"],
        );
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_as_the_input_is_read_like_a_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("cluster.fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let fifo_for_writer = fifo.clone();
    let writer = std::thread::spawn(move || {
        std::fs::write(&fifo_for_writer, example()).expect("write the fifo");
    });
    let output = run(&["render", "-f", fifo.to_str().expect("UTF-8")], b"");
    writer.join().expect("writer");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, render_file(example().as_bytes()).stdout);
}

/// Runs `calico-render ARGS` through `sh` with standard output redirected as `redirect` says.
#[cfg(unix)]
fn run_redirected(args: &[&str], redirect: &str, stdin: &Path) -> Output {
    let script = format!(r#"exec "$0" "$@" {redirect} < "{}""#, stdin.display());
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(calico_render())
        .args(args)
        .current_dir(workspace_root())
        .output()
        .expect("sh runs")
}

/// A chart stream of `count` foreign ConfigMaps.
fn chart_stream(count: usize) -> String {
    (0..count)
        .map(|index| {
            format!(
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{index}\ndata:\n  k: v\n"
            )
        })
        .collect()
}

#[cfg(unix)]
#[test]
fn a_full_device_as_output_is_an_error() {
    let input = workspace_root().join(EXAMPLE);
    let output = run_redirected(&["render", "-f", EXAMPLE], ">/dev/full", &input);
    refused(
        &output,
        2,
        &["cannot write to standard output", "No space left on device"],
    );
    let (_dir, chart) = file_with(chart_stream(100).as_bytes());
    let output = run_redirected(
        &["post-render", "-f", EXAMPLE],
        ">/dev/full",
        Path::new(&chart),
    );
    refused(&output, 2, &["No space left on device"]);
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_is_success() {
    let input = workspace_root().join(EXAMPLE);
    let output = run_redirected(&["render", "-f", EXAMPLE], ">&-", &input);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (_dir, chart) = file_with(chart_stream(100).as_bytes());
    let output = run_redirected(&["post-render", "-f", EXAMPLE], ">&-", Path::new(&chart));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn a_reader_that_goes_away_mid_post_render_is_success() {
    let (_dir, chart) = file_with(chart_stream(100_000).as_bytes());
    let mut child = Command::new(calico_render())
        .args(["post-render", "-f", EXAMPLE])
        .current_dir(workspace_root())
        .stdin(std::fs::File::open(&chart).expect("open chart"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("calico-render starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0_u8; 100];
    stdout.read_exact(&mut first).expect("some output arrives");
    drop(stdout);
    let output = child.wait_with_output().expect("calico-render finishes");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

/// Peak resident memory of `post-render` on a stream of `bytes` bytes of foreign ConfigMaps,
/// generated on the fly into its standard input (never on disk; its spool of the stream goes to
/// `TMPDIR`). Returns the peak in KiB, sampled from `VmHWM` (the kernel's high-water mark, so a
/// peak between two samples is not missed) every 10 ms until the output ends.
#[cfg(target_os = "linux")]
fn post_render_peak_kib(bytes: u64) -> u64 {
    const DOC: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n---\n";
    let mut child = spawn_calico_render(&["post-render", "-f", EXAMPLE], &workspace_root());
    let mut stdin = child.stdin.take().expect("stdin");
    let chunk = DOC.repeat(1 << 14);
    let count = bytes / DOC.len() as u64;
    let writer = std::thread::spawn(move || {
        let mut left = count;
        while left > 0 {
            let docs = left.min(1 << 14);
            stdin
                .write_all(&chunk.as_bytes()[..docs as usize * DOC.len()])
                .expect("post-render reads the whole stream");
            left -= docs;
        }
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    while !reader.is_finished() {
        if let Some(kib) = std::fs::read_to_string(&status).ok().and_then(|text| {
            let line = text.lines().find(|line| line.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        }) {
            peak = peak.max(kib);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let written = reader.join().expect("reader").expect("read the output");
    writer.join().expect("writer");
    let output = child.wait_with_output().expect("calico-render finishes");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        written > count * DOC.len() as u64,
        "the whole stream and our objects come out ({written} bytes)"
    );
    assert!(peak > 0, "no memory sample taken");
    peak
}

/// Memory stays flat: the peak on a large stream is the peak on 50 MB, within 16 MiB.
#[cfg(target_os = "linux")]
fn assert_flat_memory(bytes: u64) {
    let small = post_render_peak_kib(50_000_000);
    let large = post_render_peak_kib(bytes);
    eprintln!("post-render peak RSS: 50 MB stream {small} KiB, {bytes} byte stream {large} KiB");
    assert!(
        large < small + 16 * 1024,
        "memory grows with the stream: {small} KiB on 50 MB, {large} KiB on {bytes} bytes"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn post_render_memory_is_flat_on_a_large_stream() {
    assert_flat_memory(200_000_000);
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "2 GB through a debug build: 2 to 4 minutes, and 2 GB of spool in TMPDIR; CI runs it with --ignored"]
fn post_render_memory_is_flat_on_a_2_gb_stream() {
    assert_flat_memory(2_000_000_000);
}
