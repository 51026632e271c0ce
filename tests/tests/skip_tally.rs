//! The tally of skipped real-tool cases that ends `cargo test --workspace` (package
//! `tests/skip-tally`): its test binary must be the last one cargo runs, and every skip of a
//! real-tool test must reach it through `calico_render_tests::say_skipped`. The counting itself
//! is held by the package's own unit tests, on a scratch folder.

use std::fs;

use calico_render_tests::workspace_root;

/// The `name` under `[package]` of the manifest `text`.
fn package_name(text: &str) -> Option<String> {
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && let Some(value) = line.strip_prefix("name = ") {
            return Some(value.trim_matches('"').to_owned());
        }
    }
    None
}

/// Cargo runs test binaries package by package in the order of the package names (then doc
/// tests), so the tally's package must sort after every other member of the workspace.
#[test]
fn the_tally_package_sorts_after_every_workspace_member() {
    let root = workspace_root();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("workspace manifest");
    let members_line = manifest
        .lines()
        .find(|line| line.starts_with("members = ["))
        .expect("a one-line `members` list");
    let members: Vec<&str> = members_line
        .trim_start_matches("members = [")
        .trim_end_matches(']')
        .split(',')
        .map(|member| member.trim().trim_matches('"'))
        .filter(|member| !member.is_empty())
        .collect();
    assert!(members.len() >= 5, "{members:?}");
    let mut names: Vec<String> = members
        .iter()
        .map(|member| {
            let text = fs::read_to_string(root.join(member).join("Cargo.toml"))
                .unwrap_or_else(|err| panic!("{member}/Cargo.toml: {err}"));
            package_name(&text).unwrap_or_else(|| panic!("{member}/Cargo.toml has no name"))
        })
        .collect();
    names.sort();
    assert_eq!(
        names.last().map(String::as_str),
        Some("skip-tally"),
        "cargo would run the tally before these packages' tests: {names:?}"
    );
    let tally = fs::read_to_string(root.join("tests/skip-tally/Cargo.toml")).expect("manifest");
    assert!(
        tally.contains("[[test]]\nname = \"tally\"\npath = \"tally.rs\"\nharness = false"),
        "{tally}"
    );
}

/// A skip printed with `eprintln!` would show as `ok` and never reach the tally: every message
/// that says a test skipped goes through `say_skipped`, which records it.
#[test]
fn every_skip_message_goes_through_say_skipped() {
    let mut offenders = Vec::new();
    let dir = workspace_root().join("tests/tests");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("tests/tests")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    files.sort();
    let printers = ["eprintln!(", "println!(", "eprint!(", "print!("];
    for path in files {
        let text = fs::read_to_string(&path).expect("readable");
        for (index, line) in text.lines().enumerate() {
            if !printers.iter().any(|printer| line.contains(printer)) {
                continue;
            }
            // The macro's arguments: up to the line that closes it.
            let call: String = text
                .lines()
                .skip(index)
                .take_while({
                    let mut done = false;
                    move |line| !std::mem::replace(&mut done, line.trim_end().ends_with(';'))
                })
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
            if call.contains("skipped") || call.contains("skipping") {
                offenders.push(format!(
                    "{}:{}",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    index + 1
                ));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "skip messages printed without `calico_render_tests::say_skipped` (not in the tally):\n{}",
        offenders.join("\n")
    );
}
