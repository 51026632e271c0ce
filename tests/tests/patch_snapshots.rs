//! Snapshots of what `calico-render patch` prints: the `-o json` and `-o kubectl` standard
//! output and the notes, or the error with its hints.
//!
//! - Every directory under `tests/cases/patch/` holds `desired.yaml` and `live.yaml`.
//! - Every `tests/cases/patch-examples/<example>.live.yaml` is the live state of a cluster
//!   for `examples/<example>/cluster.yaml`, a ClusterNetwork compiled as `patch -f` does.
//!
//! Adding a case means adding files, then reading the new `.snap.new` file before renaming it
//! to `.snap`.

use std::path::Path;

use calico_render::patch::{self, Format, PatchError};
use calico_spec::cluster_network;
use calico_spec::source::{self, Limits};
use serde_json::Value;

fn load(path: &Path) -> Vec<Value> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    source::parse_stream(&text, &Limits::MANIFESTS)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
        .into_iter()
        .filter(|document| !document.is_empty())
        .map(|document| document.value)
        .collect()
}

/// Compile a ClusterNetwork file into its objects, as JSON.
fn compile(path: &Path) -> Vec<Value> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let parsed = cluster_network::parse(&path.display().to_string(), &text)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    cluster_network::compile_unchecked(&parsed.cluster_network)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
        .iter()
        .map(|object| object.to_value())
        .collect()
}

/// Everything the user would see for one case, as reviewable text.
fn describe(desired: &[Value], live: &[Value]) -> String {
    // `patch`'s own call: every field stated (as for upstream objects), no opt-in given.
    let options = patch::DayTwoOptions::default();
    let stream = match patch::day_two_objects(desired, None, live, &options) {
        Ok(day_two) => day_two.stream,
        Err(PatchError::Refused { refusals }) => {
            let mut text = String::from("# refused (exit 1)\n");
            for refusal in refusals {
                text.push_str(&format!("error: {refusal}\n  hint: {}\n", refusal.hint));
            }
            return text;
        }
        Err(PatchError::PoolsRemoved { removals }) => {
            let mut text = String::from("# refused (exit 1)\n");
            for removal in removals {
                text.push_str(&format!("error: {removal}\n  hint: {}\n", removal.hint()));
            }
            return text;
        }
        Err(err) => return format!("# error\n{err}\n"),
    };
    let mut text = String::new();
    for (title, format) in [("-o json", Format::Json), ("-o kubectl", Format::Kubectl)] {
        text.push_str(&format!("# {title}\n"));
        match patch::render_output(&stream, format) {
            Ok(output) => text.push_str(&output),
            Err(err) => text.push_str(&format!("error: {err}\n")),
        }
    }
    text.push_str("# notes\n");
    let notes = stream
        .notes()
        .iter()
        .chain(stream.patches().iter().flat_map(|object| object.notes()));
    for note in notes {
        text.push_str(&format!("{note}\n"));
    }
    text
}

#[test]
fn patch_cases() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/patch"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("../cases/patch", "*/desired.yaml", |path| {
            let dir = path.parent().expect("a case directory");
            let text = describe(&load(path), &load(&dir.join("live.yaml")));
            insta::assert_snapshot!(text);
        });
    });
}

#[test]
fn patch_examples() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/patch"));
    settings.set_prepend_module_to_snapshot(false);
    let examples = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"));
    settings.bind(|| {
        insta::glob!("../cases/patch-examples", "*.live.yaml", |path| {
            let file = path
                .file_name()
                .and_then(|name| name.to_str())
                .expect("file name");
            let example = file.strip_suffix(".live.yaml").expect("glob suffix");
            let desired = compile(&examples.join(example).join("cluster.yaml"));
            insta::assert_snapshot!(describe(&desired, &load(path)));
        });
    });
}
