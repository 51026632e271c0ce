//! The published crates' rustdoc stands alone: a reader on docs.rs has the crate, not the
//! repository, so a public doc comment never cites a repository file (`docs/...`,
//! `tests/...`, `ARCHITECTURE.md`, ...) as if the reader had it. It says the fact itself, or
//! links the file on GitHub (`https://github.com/calico-render/calico-render/blob/main/<path>`)
//! when the file is the point. Paths inside a crate (its `src/generated/`) are in the crate.

use std::fs;
use std::path::{Path, PathBuf};

use calico_render_tests::workspace_root;

/// The published crates whose public docs docs.rs shows.
const CRATES: &[&str] = &["calico-spec", "calico-render", "calico-codegen"];

/// Where a repository file is linked from a doc (the workspace's `repository`).
const REPOSITORY_LINKS: &[&str] = &[
    "https://github.com/calico-render/calico-render/blob/main/",
    "https://github.com/calico-render/calico-render/tree/main/",
];

/// The first items of repository paths: the root's folders (with a `/`) and files.
fn repository_roots() -> Vec<String> {
    let mut roots: Vec<String> = fs::read_dir(workspace_root())
        .expect("workspace root")
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "target" || name.starts_with('.') && name != ".ci" {
                return None;
            }
            Some(if entry.path().is_dir() {
                format!("{name}/")
            } else {
                name
            })
        })
        .collect();
    roots.sort();
    roots
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Whether the module of `file` shows on docs.rs: every module from the crate root down to it
/// is declared `pub mod` and not `#[doc(hidden)]`.
fn module_is_public(src: &Path, file: &Path) -> bool {
    let Ok(relative) = file.strip_prefix(src) else {
        return false;
    };
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if parts == ["lib.rs"] {
        return true;
    }
    let last = parts.pop().unwrap_or_default();
    if last != "mod.rs" {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    let Some(name) = parts.pop() else {
        return true;
    };
    // The parent module's file: `<dir>/mod.rs`, `<dir>.rs`, or the crate root.
    let parent_dir = parts
        .iter()
        .fold(src.to_path_buf(), |dir, part| dir.join(part));
    let parent = if parts.is_empty() {
        src.join("lib.rs")
    } else if parent_dir.join("mod.rs").is_file() {
        parent_dir.join("mod.rs")
    } else {
        parent_dir.with_extension("rs")
    };
    let text = fs::read_to_string(&parent).unwrap_or_default();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let declared = lines.iter().enumerate().any(|(index, line)| {
        *line == format!("pub mod {name};")
            && !lines[..index]
                .iter()
                .rev()
                .take_while(|line| line.starts_with("#[") || line.starts_with("//"))
                .any(|line| line.starts_with("#[doc(hidden)]"))
    });
    declared && module_is_public(src, &parent)
}

/// Whether the item on `line` (the first line after a `///` block and its attributes) shows on
/// docs.rs: private items are left out; fields and variants, which have no keyword, are kept.
fn item_is_shown(line: &str) -> bool {
    const PRIVATE: &[&str] = &[
        "pub(",
        "fn ",
        "const fn ",
        "async fn ",
        "struct ",
        "enum ",
        "const ",
        "static ",
        "type ",
        "trait ",
        "mod ",
        "impl",
        "use ",
        "macro_rules!",
    ];
    !PRIVATE.iter().any(|start| line.starts_with(start))
}

/// The doc blocks of `text` that docs.rs shows (all of them when the module is public, else
/// none), each as its first line number and its text.
fn public_doc_blocks(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut blocks = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let marker = if lines[index].starts_with("//!") {
            "//!"
        } else if lines[index].starts_with("///") {
            "///"
        } else {
            index += 1;
            continue;
        };
        let start = index;
        let mut block = Vec::new();
        while index < lines.len() && lines[index].starts_with(marker) {
            block.push(lines[index].trim_start_matches(marker));
            index += 1;
        }
        let shown = marker == "//!"
            || lines[index..]
                .iter()
                .find(|line| !line.starts_with("#[") && !line.starts_with("//"))
                .is_some_and(|item| item_is_shown(item));
        if shown {
            blocks.push((start + 1, block.join("\n")));
        }
    }
    blocks
}

/// The repository paths `block` names bare (not as a link to the repository).
fn bare_repository_paths(block: &str, roots: &[String]) -> Vec<String> {
    block
        .split(|c: char| c.is_whitespace() || "`()[]<>,;\"'".contains(c))
        .filter(|token| !token.contains("://"))
        .map(|token| token.trim_matches(|c| ".:*".contains(c)))
        .filter(|token| {
            roots.iter().any(|root| {
                if root.ends_with('/') {
                    token.starts_with(root.as_str())
                } else {
                    token == root
                }
            })
        })
        .filter(|token| {
            !REPOSITORY_LINKS
                .iter()
                .any(|link| block.contains(&format!("{link}{token}")))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_scan_tells_bare_paths_from_links() {
    let roots = vec!["docs/".to_owned(), "ARCHITECTURE.md".to_owned()];
    let cases: &[(&str, &[&str])] = &[
        ("see `docs/releases.md`.", &["docs/releases.md"]),
        ("the map is ARCHITECTURE.md: read it", &["ARCHITECTURE.md"]),
        (
            "docs/releases.md: <https://github.com/calico-render/calico-render/blob/main/docs/releases.md>",
            &[],
        ),
        (
            "upstream's <https://github.com/projectcalico/calico/blob/v3.31.7/docs/x.md>",
            &[],
        ),
        ("the operator's docs, a `src/generated/index` file", &[]),
    ];
    for (block, expected) in cases {
        assert_eq!(bare_repository_paths(block, &roots), *expected, "{block}");
    }
    let text = "//! Module doc.\n\n/// Private.\n#[derive(Debug)]\npub(crate) struct A;\n\n\
                /// Shown.\n#[must_use]\npub fn b() {}\n\n/// A field.\nfield: u8,\n";
    let lines: Vec<usize> = public_doc_blocks(text).iter().map(|b| b.0).collect();
    assert_eq!(lines, [1, 7, 11]);
}

#[test]
fn public_rustdoc_cites_no_repository_file() {
    let roots = repository_roots();
    assert!(
        roots.iter().any(|root| root == "docs/") && roots.iter().any(|root| root == "tests/"),
        "{roots:?}"
    );
    let mut offenders = Vec::new();
    let mut scanned = 0;
    for krate in CRATES {
        let src = workspace_root().join(krate).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        for file in files.iter().filter(|file| module_is_public(&src, file)) {
            scanned += 1;
            let text = fs::read_to_string(file).expect("readable source");
            for (line, block) in public_doc_blocks(&text) {
                for path in bare_repository_paths(&block, &roots) {
                    let shown = file.strip_prefix(workspace_root()).unwrap_or(file);
                    offenders.push(format!("{}:{line}: {path}", shown.display()));
                }
            }
        }
    }
    assert!(scanned >= 40, "only {scanned} public modules found");
    assert!(
        offenders.is_empty(),
        "public rustdoc names repository files a docs.rs reader does not have; say the fact, or \
         link it as {}<path>:\n{}",
        REPOSITORY_LINKS[0],
        offenders.join("\n")
    );
}
