//! Snapshots of what `calico-render patch` prints for every case under `tests/cases/patch/`:
//! the `-o json` and `-o kubectl` standard output and the notes, or the error with its hints.
//!
//! Each case is a directory holding `desired.yaml` and `live.yaml`; adding a case means adding
//! a directory, then reading the new `.snap.new` file before renaming it to `.snap`.

use std::path::Path;

use calico_render::patch::{self, Format, PatchError};
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

/// Everything the user would see for one case, as reviewable text.
fn describe(desired: &[Value], live: &[Value]) -> String {
    let stream = match patch::diff_streams(desired, live) {
        Ok(stream) => stream,
        Err(PatchError::Refused { refusals }) => {
            let mut text = String::from("# refused (exit 1)\n");
            for refusal in refusals {
                text.push_str(&format!("error: {refusal}\n  hint: {}\n", refusal.hint));
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
