//! Freshness: the committed `calico-spec/src/generated/` tree is exactly what the engine
//! produces from the pinned CRDs of the newest release (the release-v3.33 branch at 6609dea),
//! byte for byte, with no stale generated files.
//!
//! The inputs are the repository's own copies in `crds/release-v3.33-6609dea/` (see
//! `crds/README.md`).
//! The schema index of every supported release (`generated/index/<release>.jsonl`) is
//! regenerated from `crds/<release>/` and compared the same way.

use std::path::{Path, PathBuf};

/// The CRD files of the committed types, as the regeneration command names them
/// (relative to the workspace root, so headers carry no machine paths).
const INPUTS: [&str; 10] = [
    "crds/release-v3.33-6609dea/operator.tigera.io_installations.yaml",
    "crds/release-v3.33-6609dea/operator.tigera.io_apiservers.yaml",
    "crds/release-v3.33-6609dea/operator.tigera.io_tigerastatuses.yaml",
    "crds/release-v3.33-6609dea/operator.tigera.io_goldmanes.yaml",
    "crds/release-v3.33-6609dea/operator.tigera.io_whiskers.yaml",
    "crds/release-v3.33-6609dea/projectcalico.org_ippools.yaml",
    "crds/release-v3.33-6609dea/projectcalico.org_bgpconfigurations.yaml",
    "crds/release-v3.33-6609dea/projectcalico.org_bgppeers.yaml",
    "crds/release-v3.33-6609dea/projectcalico.org_felixconfigurations.yaml",
    "crds/release-v3.33-6609dea/projectcalico.org_ipreservations.yaml",
];

/// The output directory, relative to the workspace root.
const OUT: &str = "calico-spec/src/generated";

/// The schema indexes' directory, relative to the workspace root.
const INDEX_OUT: &str = "calico-spec/src/generated/index";

/// The CRD files each release's index is made from (`release` is its data folder): the
/// operator kinds, and the Calico kinds from the native v3 CRDs where the release has them
/// (v3.32 on), else from the crd.projectcalico.org/v1 CRDs the Calico API server serves v3 over.
fn index_inputs(release: &str, native_v3: bool) -> Vec<String> {
    let calico = if native_v3 {
        "projectcalico.org"
    } else {
        "crd.projectcalico.org"
    };
    let mut files = vec![
        format!("crds/{release}/operator.tigera.io_installations.yaml"),
        format!("crds/{release}/operator.tigera.io_apiservers.yaml"),
        format!("crds/{release}/operator.tigera.io_goldmanes.yaml"),
        format!("crds/{release}/operator.tigera.io_whiskers.yaml"),
    ];
    for kind in [
        "ippools",
        "bgpconfigurations",
        "bgppeers",
        "felixconfigurations",
        "ipreservations",
    ] {
        files.push(format!("crds/{release}/{calico}_{kind}.yaml"));
    }
    files
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits inside the workspace")
        .to_path_buf()
}

fn regenerate_hint() -> String {
    let crds: String = INPUTS.iter().map(|i| format!(" --crd {i}")).collect();
    format!(
        "regenerate from the workspace root with\n  cargo run -p calico-codegen --{crds} --out {OUT} --docs\nand commit the result"
    )
}

fn generated_files_on_disk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).expect("output directory is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && calico_codegen::is_generated(&path)
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn committed_types_are_fresh() {
    let root = workspace_root();
    let inputs: Vec<String> = INPUTS.iter().map(|s| s.to_string()).collect();
    let sources: Vec<calico_codegen::Source> = inputs
        .iter()
        .map(|name| calico_codegen::Source {
            name: name.clone(),
            text: std::fs::read_to_string(root.join(name)).expect("pinned CRD is readable"),
        })
        .collect();
    let options = calico_codegen::Options {
        docs: true,
        command: calico_codegen::command_line(&inputs, OUT, true),
    };
    let files = calico_codegen::generate(&sources, &options).expect("pinned CRDs generate");
    let out_dir = root.join(OUT);
    let mut problems = Vec::new();
    for file in &files {
        let path = out_dir.join(&file.path);
        match std::fs::read_to_string(&path) {
            Ok(on_disk) if on_disk == file.contents => {}
            Ok(_) => problems.push(format!("{OUT}/{} is stale", file.path)),
            Err(_) => problems.push(format!("{OUT}/{} is missing", file.path)),
        }
    }
    let expected: Vec<PathBuf> = files.iter().map(|f| out_dir.join(&f.path)).collect();
    for path in generated_files_on_disk(&out_dir) {
        if !expected.contains(&path) {
            problems.push(format!(
                "{} is generated but no longer produced",
                path.display()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the committed generated types differ from the engine's output:\n  {}\n{}",
        problems.join("\n  "),
        regenerate_hint()
    );
}

#[test]
fn committed_indexes_are_fresh() {
    let root = workspace_root();
    let mut expected = Vec::new();
    let mut problems = Vec::new();
    for (release, native_v3) in calico_spec::release::RELEASES
        .iter()
        .map(|r| (r.data, r.native_v3_crds))
    {
        let inputs = index_inputs(release, native_v3);
        let sources: Vec<calico_codegen::Source> = inputs
            .iter()
            .map(|name| calico_codegen::Source {
                name: name.clone(),
                text: std::fs::read_to_string(root.join(name))
                    .unwrap_or_else(|err| panic!("{name} is part of the repository: {err}")),
            })
            .collect();
        let command = calico_codegen::index::command_line(release, &inputs, INDEX_OUT);
        let file = calico_codegen::index::generate_index(release, &sources, &command)
            .expect("pinned CRDs index");
        let path = root.join(INDEX_OUT).join(&file.path);
        match std::fs::read_to_string(&path) {
            Ok(on_disk) if on_disk == file.contents => {}
            Ok(_) => problems.push(format!(
                "{INDEX_OUT}/{} is stale; regenerate with\n  cargo run -p calico-codegen -- {}",
                file.path,
                command.trim_start_matches("calico-render codegen ")
            )),
            Err(_) => problems.push(format!("{INDEX_OUT}/{} is missing", file.path)),
        }
        expected.push(path);
    }
    for entry in std::fs::read_dir(root.join(INDEX_OUT))
        .expect("index folder")
        .flatten()
    {
        let path = entry.path();
        if calico_codegen::is_generated(&path) && !expected.contains(&path) {
            problems.push(format!(
                "{} is generated but no release produces it",
                path.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn generation_is_deterministic() {
    let root = workspace_root();
    let path = root.join(INPUTS[0]);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("{} is part of the repository: {err}", path.display()));
    let sources = [calico_codegen::Source {
        name: INPUTS[0].to_string(),
        text,
    }];
    let options = calico_codegen::Options {
        docs: true,
        command: "calico-render codegen --crd x --out y --docs".to_string(),
    };
    let first = calico_codegen::generate(&sources, &options).expect("generates");
    let second = calico_codegen::generate(&sources, &options).expect("generates");
    assert_eq!(first, second);
}

/// Collects integer properties whose name ends in `ASNumber` (any case), with their paths.
fn as_number_fields(schema: &calico_codegen::ir::Schema, found: &mut Vec<(String, String)>) {
    use calico_codegen::ir::SchemaType;
    match &schema.ty {
        SchemaType::Object {
            properties,
            additional,
        } => {
            for prop in properties {
                let is_integer = matches!(prop.schema.ty, SchemaType::Integer);
                if is_integer && prop.name.to_ascii_lowercase().ends_with("asnumber") {
                    found.push((prop.name.clone(), prop.schema.path.clone()));
                }
                as_number_fields(&prop.schema, found);
            }
            if let Some(additional) = additional {
                as_number_fields(additional, found);
            }
        }
        SchemaType::Array(items) => as_number_fields(items, found),
        _ => {}
    }
}

#[test]
fn every_as_number_field_is_read_as_u32() {
    let crds = workspace_root().join("crds");
    let mut missing = Vec::new();
    let mut n_seen = 0;
    for folder in ["v3.32.1", "release-v3.33-6609dea"] {
        let entries = std::fs::read_dir(crds.join(folder))
            .unwrap_or_else(|err| panic!("crds/{folder} is part of the repository: {err}"));
        for entry in entries.flatten() {
            let text = std::fs::read_to_string(entry.path()).expect("CRD file is readable");
            let source = calico_codegen::Source {
                name: entry.file_name().to_string_lossy().into_owned(),
                text,
            };
            for crd in calico_codegen::crd::parse_source(&source).expect("pinned CRDs parse") {
                for version in &crd.versions {
                    let mut found = Vec::new();
                    as_number_fields(&version.schema, &mut found);
                    for (name, path) in found {
                        n_seen += 1;
                        if !calico_codegen::lower::U32_FIELDS.contains(&name.as_str()) {
                            missing.push(format!("{} {}: {path}", source.name, crd.kind));
                        }
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "AS-number fields missing from calico_codegen::lower::U32_FIELDS:\n{}",
        missing.join("\n")
    );
    assert!(n_seen > 0, "the scan found no AS-number field at all");
}
