//! Tidy checks over the whole repository, run as ordinary tests so `cargo test` is the whole gate.
//!
//! They enforce the house rules that no compiler lint covers: every Rust module starts with a
//! `//!` doc, no test is ignored without a reason or expects a panic, no line ends in whitespace,
//! and the libraries keep their dependency boundaries.

use std::fs;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits one level below the workspace root")
        .to_path_buf()
}

/// Every tracked-looking source file we own: Rust, Markdown, YAML, TOML and shell under the
/// workspace, skipping build output and VCS metadata.
fn files_with_extensions(exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![repo_root()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                if name == "target" || name.starts_with('.') && name != ".ci" {
                    continue;
                }
                stack.push(path);
            } else if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
                if exts.contains(&ext) {
                    out.push(path);
                }
            } else if exts.contains(&"") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repo_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_rust_module_starts_with_a_module_doc() {
    let mut missing = Vec::new();
    for path in files_with_extensions(&["rs"]) {
        let text = fs::read_to_string(&path).unwrap_or_default();
        // Generated files open with plain `//` header lines (command, inputs) before their
        // module doc, so plain comments above the `//!` doc are allowed.
        let first = text
            .lines()
            .find(|line| {
                let line = line.trim();
                let plain_comment = line.starts_with("//") && !line.starts_with("//!");
                !line.is_empty() && !plain_comment
            })
            .unwrap_or("");
        if !first.starts_with("//!") {
            missing.push(relative(&path));
        }
    }
    assert!(
        missing.is_empty(),
        "these files must start with a `//!` module doc saying what the module is for:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_ignored_or_should_panic_tests() {
    let mut offenders = Vec::new();
    let ignore = ["#[", "ignore]"].concat();
    let should_panic = ["#[", "should_panic"].concat();
    for path in files_with_extensions(&["rs"]) {
        let text = fs::read_to_string(&path).unwrap_or_default();
        for (line_idx, line) in text.lines().enumerate() {
            // `#[ignore = "why"]` is allowed: libtest prints the reason beside the skip.
            if line.contains(&ignore) || line.contains(&should_panic) {
                offenders.push(format!("{}:{}", relative(&path), line_idx + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "tests must not be ignored without a reason (`#[ignore = \"why\"]`) or use should_panic; assert the Err instead:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn no_trailing_whitespace() {
    let mut offenders = Vec::new();
    for path in files_with_extensions(&["rs", "md", "toml", "sh", "yaml", "yml", "j2", "jinja"]) {
        // Snapshots hold emitted bytes verbatim and input fixtures may test odd whitespace.
        let rel = relative(&path);
        if rel.starts_with("snapshots/") || rel.contains("/cases/") || rel.contains("/fixtures/") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap_or_default();
        for (line_idx, line) in text.lines().enumerate() {
            if line.ends_with(' ') || line.ends_with('\t') {
                offenders.push(format!("{rel}:{}", line_idx + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "trailing whitespace found:\n{}",
        offenders.join("\n")
    );
}

/// The direct normal dependencies a crate declares in its manifest.
fn declared_dependencies(crate_dir: &str) -> Vec<String> {
    let manifest = fs::read_to_string(repo_root().join(crate_dir).join("Cargo.toml"))
        .expect("crate manifest is readable");
    let mut in_deps = false;
    let mut deps = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps
            && !line.starts_with('#')
            && let Some((name, _)) = line.split_once(['=', '.'])
        {
            deps.push(name.trim().to_string());
        }
    }
    deps
}

#[test]
fn library_dependency_boundaries_hold() {
    let spec = declared_dependencies("calico-spec");
    for banned in [
        "clap",
        "anyhow",
        "miette",
        "calico-codegen",
        "calico-render",
    ] {
        assert!(
            !spec.iter().any(|dep| dep == banned),
            "calico-spec must not depend on {banned} (it is a library without CLI or anyhow)"
        );
    }
    let codegen = declared_dependencies("calico-codegen");
    for banned in ["calico-spec", "calico-render", "anyhow"] {
        assert!(
            !codegen.iter().any(|dep| dep == banned),
            "calico-codegen must not depend on {banned}: a broken generated file must stay regenerable"
        );
    }
}

#[test]
fn generated_files_keep_their_header() {
    let generated = repo_root().join("calico-spec/src/generated");
    let mut offenders = Vec::new();
    for path in files_with_extensions(&["rs"]) {
        if !path.starts_with(&generated) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap_or_default();
        let header_ok = text.starts_with("// @generated by `calico-render codegen`")
            && text
                .lines()
                .take(3)
                .any(|line| line.contains("do not edit by hand"));
        if !header_ok {
            offenders.push(relative(&path));
        }
    }
    assert!(
        offenders.is_empty(),
        "generated files must keep the codegen header (regenerate them instead of editing):\n{}",
        offenders.join("\n")
    );
}
