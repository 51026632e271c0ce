//! Scratch-crate compile tests: generated code compiles warning-free in a crate that depends
//! only on serde, serde_json, k8s-openapi and schemars, and an object of every generated kind
//! round-trips through it.
//!
//! One scratch crate holds every output as its own module, so that one build covers:
//! every CRD file of `crds/v3.32.1/` (each file generated on its own, as a
//! user would run `calico-render codegen --crd FILE`), every file of the release-v3.33 folder
//! (forward compatibility, generated with `--docs` so that upstream descriptions are compiled
//! too), and the hand-written mapping-rule CRDs of `tests/cases/codegen/crds/`.
//! The crate lives under `<target>/codegen-scratch/` and uses that directory as its own target
//! directory, so k8s-openapi is built once and later runs are incremental.
//!
//! The objects are built from each schema by [`sample`]: every declared property is present,
//! so every field's wire name and type is exercised once.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use calico_codegen::crd::{self, Crd, Source};
use calico_codegen::ir::{Schema, SchemaType};
use calico_codegen::naming;
use serde_json::{Value, json};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits inside the workspace")
        .to_path_buf()
}

/// `<target>/codegen-scratch`, next to the workspace's own build output.
fn scratch_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        workspace_root().join(target)
    };
    target.join("codegen-scratch")
}

/// One codegen run that becomes one module of the scratch crate.
struct Run {
    module: String,
    sources: Vec<Source>,
    docs: bool,
}

fn module_name(set: &str, file: &Path) -> String {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("input");
    let clean: String = format!("{set}_{stem}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    clean
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

fn runs() -> Vec<Run> {
    let root = workspace_root();
    let crds = root.join("crds");
    let sets = [
        ("v3_32_1", crds.join("v3.32.1"), false),
        ("v3_33", crds.join("release-v3.33-6609dea"), true),
        ("rules", root.join("tests/cases/codegen/crds"), false),
    ];
    let mut runs = Vec::new();
    for (set, dir, docs) in sets {
        let files = yaml_files(&dir);
        assert!(!files.is_empty(), "{} holds no CRD file", dir.display());
        for file in files {
            let text = std::fs::read_to_string(&file).expect("CRD file is readable");
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            runs.push(Run {
                module: module_name(set, &file),
                sources: vec![Source {
                    name: name.to_string(),
                    text,
                }],
                docs: docs || name.starts_with("docs"),
            });
        }
    }
    runs
}

/// A value the schema accepts that exercises every declared property once.
fn sample(schema: &Schema, property: &str) -> Value {
    let c = &schema.constraints;
    match &schema.ty {
        SchemaType::Object {
            properties,
            additional,
        } => {
            if let Some(additional) = additional {
                return json!({ "key": sample(additional, property) });
            }
            if properties.is_empty() {
                return json!({ "free": "form" });
            }
            let mut object = serde_json::Map::new();
            for prop in properties {
                object.insert(prop.name.clone(), sample(&prop.schema, &prop.name));
            }
            Value::Object(object)
        }
        SchemaType::Array(items) => json!([sample(items, property)]),
        SchemaType::String => {
            if let Some(first) = c.enum_values.first() {
                return first.clone();
            }
            match c.format.as_deref() {
                Some("date-time") => json!("2026-06-24T10:00:00Z"),
                Some("byte") => json!("aGVsbG8="),
                _ => json!("x"),
            }
        }
        SchemaType::Integer => {
            if calico_codegen::lower::U32_FIELDS.contains(&property) {
                return json!(4_200_000_001_u32);
            }
            if let Some(first) = c.enum_values.first() {
                return first.clone();
            }
            c.minimum.clone().map_or(json!(1), Value::Number)
        }
        SchemaType::Number => json!(1.5),
        SchemaType::Boolean => json!(true),
        // A string keeps its JSON type through both IntOrString and Quantity.
        SchemaType::IntOrString => json!("25%"),
        SchemaType::Any { .. } => json!({ "any": [1, "two", { "three": null }] }),
    }
}

fn root_sample(crd: &Crd, version: &crd::CrdVersion) -> Value {
    let mut object = serde_json::Map::new();
    object.insert(
        "apiVersion".into(),
        json!(format!("{}/{}", crd.group, version.name)),
    );
    object.insert("kind".into(), json!(crd.kind));
    object.insert(
        "metadata".into(),
        json!({ "name": "sample", "labels": { "a": "b" } }),
    );
    if let SchemaType::Object { properties, .. } = &version.schema.ty {
        for prop in properties {
            if !matches!(prop.name.as_str(), "apiVersion" | "kind" | "metadata") {
                object.insert(prop.name.clone(), sample(&prop.schema, &prop.name));
            }
        }
    }
    Value::Object(object)
}

fn write_if_changed(path: &Path, contents: &str) {
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return;
    }
    std::fs::create_dir_all(path.parent().expect("path has a parent")).expect("create dir");
    std::fs::write(path, contents).expect("write scratch file");
}

const MANIFEST: &str = r#"[package]
name = "codegen-scratch"
version = "0.0.0"
edition = "2024"
publish = false

# Not a member of the calico-render workspace.
[workspace]

[dependencies]
serde = { version = "1.0.228", features = ["derive"] }
serde_json = "1.0.145"
k8s-openapi = { version = "0.29", features = ["schemars", "latest"] }
schemars = "1.2"
"#;

#[test]
#[ignore = "compiles a scratch crate of every pinned CRD (minutes on 2 cores); CI runs it with --ignored"]
fn generated_code_compiles_and_round_trips() {
    let scratch = scratch_dir();
    let crate_dir = scratch.join("crate");
    // Generated code documents every public item, as `missing_docs` demands in calico-spec.
    let mut lib = String::from(
        "//! Scratch crate: generated modules under test.\n\n#![deny(missing_docs)]\n\n",
    );
    let mut checks = String::new();
    let mut samples: BTreeMap<String, String> = BTreeMap::new();
    for run in runs() {
        let options = calico_codegen::Options {
            docs: run.docs,
            command: calico_codegen::command_line(
                &run.sources
                    .iter()
                    .map(|s| s.name.clone())
                    .collect::<Vec<_>>(),
                "src",
                run.docs,
            ),
        };
        let files = calico_codegen::generate(&run.sources, &options)
            .unwrap_or_else(|e| panic!("{}: generation failed: {e}", run.module));
        let module_dir = crate_dir.join("src").join(&run.module);
        calico_codegen::write_output(&module_dir, &files).expect("write scratch module");
        writeln!(lib, "pub mod {};", run.module).unwrap();
        for source in &run.sources {
            for crd in crd::parse_source(source).expect("parses") {
                for version in &crd.versions {
                    let rust_path = format!(
                        "codegen_scratch::{}::{}::{}::{}",
                        run.module,
                        naming::group_module(&crd.group),
                        naming::version_module(&version.name),
                        crd.kind
                    );
                    let sample_name =
                        format!("{}__{}__{}.json", run.module, version.name, crd.kind);
                    let text = serde_json::to_string_pretty(&root_sample(&crd, version)).unwrap();
                    samples.insert(sample_name.clone(), text);
                    writeln!(
                        checks,
                        "    check::<{rust_path}>(&mut failures, {sample_name:?}, include_str!(\"../samples/{sample_name}\"));"
                    )
                    .unwrap();
                }
            }
        }
    }
    for (name, text) in &samples {
        write_if_changed(&crate_dir.join("samples").join(name), text);
    }
    let test_file = format!(
        r#"//! Round-trips one sample object of every generated kind.

fn check<T: serde::de::DeserializeOwned + serde::Serialize>(failures: &mut Vec<String>, name: &str, text: &str) {{
    let value: serde_json::Value = serde_json::from_str(text).expect("sample is JSON");
    match serde_json::from_value::<T>(value.clone()) {{
        Ok(typed) => {{
            let back = serde_json::to_value(&typed).expect("serializes");
            if back != value {{
                failures.push(format!("{{name}}: changed in the round trip:\n{{back}}"));
            }}
        }}
        Err(err) => failures.push(format!("{{name}}: {{err}}")),
    }}
}}

#[test]
fn every_kind_round_trips() {{
    let mut failures = Vec::new();
{checks}    assert!(failures.is_empty(), "{{}}", failures.join("\n"));
}}
"#
    );
    write_if_changed(&crate_dir.join("Cargo.toml"), MANIFEST);
    write_if_changed(&crate_dir.join("src/lib.rs"), &lib);
    write_if_changed(&crate_dir.join("tests/roundtrip.rs"), &test_file);
    // The workspace's lock file pins the same dependency versions, so the build works offline.
    let lock = std::fs::read_to_string(workspace_root().join("Cargo.lock")).expect("Cargo.lock");
    if !crate_dir.join("Cargo.lock").exists() {
        write_if_changed(&crate_dir.join("Cargo.lock"), &lock);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["test", "--offline", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", scratch.join("target"))
        // Generated code must compile without a single warning.
        .env("RUSTFLAGS", "-D warnings")
        // No debug info: it would triple the size of this throw-away build and slow linking.
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the scratch crate in {} failed:\n{stdout}\n{stderr}",
        crate_dir.display()
    );
    assert!(
        stdout.contains("test every_kind_round_trips ... ok"),
        "the round-trip test did not run:\n{stdout}"
    );
}
