//! The fuzz corpora replayed on the stable toolchain: every file of `fuzz/corpus/<target>/`
//! (the minimised corpora `fuzz/run.sh` grows) and of `tests/cases/fuzz/<target>/` (the inputs
//! that once crashed, hung or ran out of memory, kept after their fix) goes through the same
//! body the libFuzzer target runs (`calico_render_tests::fuzz`), so CI needs no nightly build.

use calico_render_tests::fuzz::{Body, TARGETS};
use calico_render_tests::workspace_root;
use std::path::Path;

/// Feeds every file of `folder/<target>/` to its target; returns how many were fed.
fn replay(folder: &Path, target: &str, body: Body) -> usize {
    let dir = folder.join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut paths: Vec<_> = entries
        .map(|entry| entry.expect("read corpus entry").path())
        .collect();
    paths.sort();
    for path in &paths {
        let data = std::fs::read(path).expect("read corpus file");
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(
            outcome.is_ok(),
            "fuzz target {target} failed on {}",
            path.display()
        );
    }
    paths.len()
}

#[test]
fn every_corpus_file_passes_its_target() {
    let corpus = workspace_root().join("fuzz/corpus");
    for (target, body) in TARGETS {
        let fed = replay(&corpus, target, body);
        assert!(fed > 0, "fuzz/corpus/{target} is missing or empty");
    }
}

#[test]
fn every_fixed_crash_passes_its_target() {
    let cases = workspace_root().join("tests/cases/fuzz");
    let fed: usize = TARGETS
        .iter()
        .map(|(target, body)| replay(&cases, target, *body))
        .sum();
    assert!(fed > 0, "tests/cases/fuzz holds no input");
}
