//! Snapshots of the engine's output for small hand-written CRDs, one per mapping rule
//! (`tests/cases/codegen/crds/*.yaml`: keywords, collisions, int-or-string, preserve-unknown,
//! maps of maps, arrays of objects, enums, required, oneOf, k8s-openapi reuse, dedupe, docs,
//! multi-version bundles).
//!
//! Each snapshot holds every generated file of one run, in path order. A CRD whose file name
//! starts with `docs` is generated with `--docs`. The scratch-crate test
//! (`codegen_compile.rs`) compiles the same outputs.
//!
//! `support.rs`, the macros the kind files invoke, is the same text in every run except for
//! its header and whether it defines `string_enum!`; the mapping-rule snapshots show its
//! header and the macros it defines, and `support_macros` locks its full text once for each
//! of the two forms.

use std::path::Path;

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/codegen"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// The generated files of one CRD file, in path order.
fn generate(path: &Path) -> Vec<calico_codegen::GeneratedFile> {
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .expect("UTF-8 file name");
    let shown = format!("tests/cases/codegen/crds/{file_name}");
    let docs = file_name.starts_with("docs");
    let sources = [calico_codegen::Source {
        name: shown.clone(),
        text: std::fs::read_to_string(path).expect("fixture is readable"),
    }];
    let options = calico_codegen::Options {
        docs,
        command: calico_codegen::command_line(&[shown], "src/generated", docs),
    };
    calico_codegen::generate(&sources, &options)
        .unwrap_or_else(|e| panic!("{file_name} does not generate: {e}"))
}

/// `support.rs` cut to its header comments and a line naming the macros it defines.
fn support_summary(contents: &str) -> String {
    let mut out: String = contents
        .lines()
        .take_while(|line| line.starts_with("// "))
        .map(|line| format!("{line}\n"))
        .collect();
    let macros: Vec<&str> = contents
        .lines()
        .filter_map(|line| line.strip_prefix("macro_rules! "))
        .map(|rest| rest.trim_end_matches(" {"))
        .collect();
    out.push_str(&format!(
        "[full text in the support_macros snapshots] defines: {}\n",
        macros.join(", ")
    ));
    out
}

/// All generated files of one CRD file, each preceded by a `==> path <==` line.
fn render(path: &Path) -> String {
    let mut out = String::new();
    for file in generate(path) {
        let contents = if file.path == "support.rs" {
            support_summary(&file.contents)
        } else {
            file.contents
        };
        out.push_str(&format!("==> {} <==\n{contents}", file.path));
    }
    out
}

#[test]
fn mapping_rules() {
    settings().bind(|| {
        insta::glob!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/cases/codegen/crds"),
            "*.yaml",
            |path| {
                insta::assert_snapshot!(render(path));
            }
        );
    });
}

/// The full text of `support.rs`, with `string_enum!` (a CRD with enums) and without.
#[test]
fn support_macros() {
    let crds = concat!(env!("CARGO_MANIFEST_DIR"), "/cases/codegen/crds");
    for (name, fixture, enums) in [
        ("with-enums", "enums.yaml", true),
        ("without-enums", "required.yaml", false),
    ] {
        let files = generate(&Path::new(crds).join(fixture));
        let support = files
            .iter()
            .find(|f| f.path == "support.rs")
            .unwrap_or_else(|| panic!("{fixture}: no support.rs"));
        assert_eq!(
            support.contents.contains("macro_rules! string_enum"),
            enums,
            "{fixture}: string_enum! is defined exactly when a kind has an enum"
        );
        settings().bind(|| {
            insta::assert_snapshot!(format!("support_macros@{name}"), support.contents);
        });
    }
}
