//! The corpus of real Calico files in `tests/cases/real/` (issues 33 and 35): files as public
//! repositories have them, byte for byte (provenance: `PROVENANCE.tsv`).

use std::path::PathBuf;

use calico_render::chart_values::{self, Reading};
use calico_render_tests::workspace_root;
use calico_spec::release::Release;
use calico_spec::rules::{Context, SourceText};
use calico_spec::source::Limits;

const CORPUS: &str = "tests/cases/real";

fn corpus_dir() -> PathBuf {
    workspace_root().join(CORPUS)
}

fn read_corpus_file(file: &str) -> String {
    let path: PathBuf = corpus_dir().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The codes `validate` reports on several files given together.
fn codes_together(files: &[(&str, &str)]) -> Vec<&'static str> {
    let release = Release::newest();
    let texts: Vec<SourceText<'_>> = files
        .iter()
        .map(|(name, text)| SourceText { name, text })
        .collect();
    let ctx = Context {
        release: Some(release),
        ..Context::assumed()
    };
    chart_values::validate_texts_for(release, &texts, &ctx, &Limits::MANIFESTS, Reading::Detect)
        .expect("YAML")
        .diagnostics
        .iter()
        .map(|diag| diag.code)
        .collect()
}

/// A false alarm the corpus found: the onedr0p-style GitOps repositories give the BPF
/// dataplane in a HelmRelease and the endpoint ConfigMap in a `configmap.yaml` beside it. The
/// operator reads that ConfigMap by name whoever created it, so validating the two together
/// must not warn CR8004; alone, the HelmRelease cannot show it and the lint stands (its
/// justified-warnings rows). Another ConfigMap does not count.
#[test]
fn endpoint_config_map_beside_chart_values_counts() {
    let dir = "renait__home-ops/2ee20fbc__kubernetes__apps__tigera-operator__tigera-operator__app";
    let release_file = format!("{dir}__helmrelease.yaml");
    let config_map_file = format!("{dir}__configmap.yaml");
    let helm_release = read_corpus_file(&release_file);
    let config_map = read_corpus_file(&config_map_file);
    let bpf = "CR8004";
    assert!(codes_together(&[(&release_file, &helm_release)]).contains(&bpf));
    assert!(
        !codes_together(&[
            (&release_file, &helm_release),
            (&config_map_file, &config_map)
        ])
        .contains(&bpf)
    );
    let other = config_map.replace("kubernetes-services-endpoint", "some-other-config");
    assert!(
        codes_together(&[(&release_file, &helm_release), ("other.yaml", &other)]).contains(&bpf)
    );
}
