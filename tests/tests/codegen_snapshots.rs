//! Snapshots of the engine's output for small hand-written CRDs, one per mapping rule
//! (`tests/cases/codegen/crds/*.yaml`: keywords, collisions, int-or-string, preserve-unknown,
//! maps of maps, arrays of objects, enums, required, oneOf, k8s-openapi reuse, dedupe, docs,
//! multi-version bundles).
//!
//! Each snapshot holds every generated file of one run, in path order. A CRD whose file name
//! starts with `docs` is generated with `--docs`. The scratch-crate test
//! (`codegen_compile.rs`) compiles the same outputs.

use std::path::Path;

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/codegen"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// All generated files of one CRD file, each preceded by a `==> path <==` line.
fn render(path: &Path) -> String {
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
    let files = calico_codegen::generate(&sources, &options)
        .unwrap_or_else(|e| panic!("{file_name} does not generate: {e}"));
    let mut out = String::new();
    for file in files {
        out.push_str(&format!("==> {} <==\n{}", file.path, file.contents));
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
