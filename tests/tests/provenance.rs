//! The upstream data the repository carries (`crds/`, `calico-render/chart-values/`) is what its README says:
//! every file listed with a git blob id that matches its bytes, and no file left unlisted.

use std::collections::BTreeMap;
use std::path::Path;

use calico_render_tests::workspace_root;

/// The git blob id of `bytes`: SHA-1 over `blob <len>\0` and the content, as `git hash-object`.
pub(crate) fn blob_id(bytes: &[u8]) -> String {
    let mut hasher = sha1_smol::Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher.digest().to_string()
}

/// `file -> blob id` from the table rows of a provenance README
/// (`| \`file\` | repository | \`commit\` | \`path\` | \`blob id\` |`).
fn listed(readme: &Path) -> BTreeMap<String, String> {
    let text =
        std::fs::read_to_string(readme).unwrap_or_else(|err| panic!("{}: {err}", readme.display()));
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        assert_eq!(cells.len(), 5, "{}: malformed row {line}", readme.display());
        let previous = rows.insert(cells[0].to_string(), cells[4].to_string());
        assert!(
            previous.is_none(),
            "{}: {} listed twice",
            readme.display(),
            cells[0]
        );
    }
    rows
}

/// Every regular file under `dir` except its README, as paths relative to `dir`.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current)
            .expect("readable folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path != dir.join("README.md") {
                let rel = path.strip_prefix(dir).expect("under dir");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn blob_ids_match() {
    let root = workspace_root();
    let mut checked = 0;
    for folder in ["crds", "calico-render/chart-values"] {
        let dir = root.join(folder);
        let rows = listed(&dir.join("README.md"));
        let on_disk = files_under(&dir);
        let unlisted: Vec<&String> = on_disk.iter().filter(|f| !rows.contains_key(*f)).collect();
        assert!(
            unlisted.is_empty(),
            "{folder}/README.md does not list {unlisted:?}: add a row with the file's source and blob id"
        );
        for (file, expected) in &rows {
            let path = dir.join(file);
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|err| panic!("{folder}/{file} is listed but unreadable: {err}"));
            let actual = blob_id(&bytes);
            assert_eq!(
                &actual, expected,
                "{folder}/{file}: blob id {actual}, README says {expected}; the copy is not upstream's bytes"
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} files checked");
}

/// Every release calico-render supports has its CRDs and its chart values in the repository.
#[test]
fn every_supported_release_is_carried() {
    let root = workspace_root();
    for release in calico_spec::release::RELEASES.iter().map(|r| r.data) {
        for folder in ["crds", "calico-render/chart-values"] {
            let rows = listed(&root.join(folder).join("README.md"));
            let prefix = format!("{release}/");
            let n = rows.keys().filter(|f| f.starts_with(&prefix)).count();
            assert!(n > 0, "{folder}/README.md lists no file of {release}");
        }
    }
}

#[test]
fn blob_id_is_gits() {
    // `printf 'hello\n' | git hash-object --stdin`
    assert_eq!(
        blob_id(b"hello\n"),
        "ce013625030ba8dba906f756967f9e9ca394464a"
    );
}
