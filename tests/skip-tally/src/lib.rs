//! Records of the real-tool test cases that skipped, and their tally at the end of the run.
//!
//! libtest has no hook at its end, and a skipped test shows as a bare `ok`. So every skip writes
//! one record (the test's name, the tool it missed, why) into a folder of its own `cargo test`
//! run, and the `tally` test target, which cargo runs after every other test binary of the
//! workspace (this package's name sorts last), reads that folder and prints the count and one line
//! per skipped case. Cargo's doc tests still run after it, so the tally is the last *test
//! binary's* output, followed only by the doc tests' results.
//!
//! A run is keyed by the parent process of the test binary, which under `cargo test` is cargo
//! itself, the same process for every test binary of one command. The records live beside the
//! build, in `<target>/tmp/skips/<cargo's process id>/` (the folder cargo hands integration
//! tests as `CARGO_TARGET_TMPDIR`, found here from the test executable's own path, since a
//! library is not given that variable).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// One skipped case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Record {
    /// The test's name as libtest prints it (`module::test`).
    pub test: String,
    /// The tool or environment the case needed and did not find.
    pub tool: String,
    /// Why, in the words the test printed (may span several lines).
    pub reason: String,
}

/// The folder holding one folder of records per `cargo test` run: `<target>/tmp/skips`.
///
/// A test executable sits at `<target>[/<triple>]/<profile>/deps/<name>-<hash>`; every test
/// binary of a run finds the same folder this way. Outside that layout, the system's temporary
/// folder.
pub fn records_root() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.to_path_buf()))
        .unwrap_or_else(std::env::temp_dir)
        .join("tmp")
        .join("skips")
}

/// The key of this `cargo test` run: the process id of cargo, the parent of every test binary
/// it starts.
#[cfg(unix)]
pub fn run_key() -> String {
    std::os::unix::process::parent_id().to_string()
}

/// The key of this `cargo test` run: one shared folder where the parent process is unknown.
#[cfg(not(unix))]
pub fn run_key() -> String {
    "run".to_owned()
}

/// Records a skip of this run under [`records_root`]. A record that cannot be written is said
/// on standard error: the skip itself was already printed by the caller.
pub fn record(record: &Record) {
    if let Err(err) = record_in(&records_root(), &run_key(), record) {
        eprintln!(
            "skip-tally: cannot record the skip of {}: {err}",
            record.test
        );
    }
}

/// Writes `record` as a new file in `root/run/` and returns its path. Each record has a file of
/// its own (process id and a counter in its name), so parallel tests never write the same file.
pub fn record_in(root: &Path, run: &str, record: &Record) -> io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = root.join(run);
    fs::create_dir_all(&dir)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!("{}-{n}.skip", std::process::id()));
    let one_line = |text: &str| text.replace('\n', " ");
    fs::write(
        &path,
        format!(
            "{}\n{}\n{}",
            one_line(&record.test),
            one_line(&record.tool),
            record.reason
        ),
    )?;
    Ok(path)
}

/// The records of run `run`, sorted, and its folder removed (a tally consumes them).
pub fn take(root: &Path, run: &str) -> Vec<Record> {
    let dir = root.join(run);
    let mut records: Vec<Record> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let text = fs::read_to_string(entry.ok()?.path()).ok()?;
            let mut parts = text.splitn(3, '\n');
            Some(Record {
                test: parts.next()?.to_owned(),
                tool: parts.next()?.to_owned(),
                reason: parts.next().unwrap_or_default().to_owned(),
            })
        })
        .collect();
    records.sort();
    // Nothing depends on the folder being gone but the next run's tidiness.
    let _ = fs::remove_dir_all(&dir);
    records
}

/// Removes the record folders of earlier runs that never reached their tally (a failing test
/// binary stops `cargo test` before it). A run is over when no process has its key as id (where
/// `/proc` says so), else when its folder is a day old. The current run's folder is kept.
pub fn remove_finished_runs(root: &Path, current: &str) {
    let proc_fs = Path::new("/proc/self").exists();
    let day_ago = SystemTime::now().checked_sub(Duration::from_secs(24 * 3600));
    for entry in fs::read_dir(root).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == current {
            continue;
        }
        let over = if proc_fs && name.bytes().all(|b| b.is_ascii_digit()) {
            !Path::new("/proc").join(&name).exists()
        } else {
            let modified = entry.metadata().and_then(|meta| meta.modified()).ok();
            matches!((modified, day_ago), (Some(modified), Some(day_ago)) if modified < day_ago)
        };
        if over {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The tally as printed: a count, then one line per skipped case (the first line of its
/// reason), then the count per tool.
pub fn tally(records: &[Record]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if records.is_empty() {
        out.push_str("real-tool tally: 0 skipped (every real-tool case ran)\n");
        return out;
    }
    let _ = writeln!(
        out,
        "real-tool tally: {} skipped (each passed without its real judge, for the reason \
         given; CALICO_RENDER_E2E=required fails a run whose tool is missing instead)",
        records.len()
    );
    let mut by_tool = std::collections::BTreeMap::<&str, usize>::new();
    for record in records {
        let reason = record.reason.lines().next().unwrap_or_default();
        let _ = writeln!(out, "  SKIPPED {} [{}]: {reason}", record.test, record.tool);
        *by_tool.entry(record.tool.as_str()).or_default() += 1;
    }
    let tools: Vec<String> = by_tool
        .iter()
        .map(|(tool, n)| format!("{tool} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "real-tool tally: {} skipped ({})",
        records.len(),
        tools.join(", ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(test: &str, tool: &str, reason: &str) -> Record {
        Record {
            test: test.to_owned(),
            tool: tool.to_owned(),
            reason: reason.to_owned(),
        }
    }

    /// Records written from parallel threads are each counted once, and sorted by test name.
    #[test]
    fn the_tally_counts_every_recorded_skip() {
        let root = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let root = root.path().to_path_buf();
                std::thread::spawn(move || {
                    let tool = if i % 2 == 0 { "helm" } else { "kube-apiserver" };
                    record_in(
                        &root,
                        "4242",
                        &skip(&format!("area::case_{i}"), tool, "not set\nhow to"),
                    )
                    .unwrap();
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        // Another run's record is not this run's.
        record_in(root.path(), "4343", &skip("other::run", "helm", "x")).unwrap();
        let records = take(root.path(), "4242");
        assert_eq!(records.len(), 8);
        assert_eq!(records[0], skip("area::case_0", "helm", "not set\nhow to"));
        let printed = tally(&records);
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines.len(), 10, "{printed}");
        assert!(
            lines[0].starts_with("real-tool tally: 8 skipped "),
            "{printed}"
        );
        assert_eq!(lines[1], "  SKIPPED area::case_0 [helm]: not set");
        assert_eq!(
            lines[9],
            "real-tool tally: 8 skipped (helm 4, kube-apiserver 4)"
        );
        // Taken: the run's folder is gone, the other run's stays.
        assert!(!root.path().join("4242").exists());
        assert_eq!(take(root.path(), "4343").len(), 1);
    }

    #[test]
    fn no_skip_is_said_as_zero() {
        let root = tempfile::tempdir().unwrap();
        let records = take(root.path(), "1");
        assert!(records.is_empty());
        assert_eq!(
            tally(&records),
            "real-tool tally: 0 skipped (every real-tool case ran)\n"
        );
    }

    /// A folder whose process is gone is removed; the current run's and a live process's stay.
    #[cfg(target_os = "linux")]
    #[test]
    fn folders_of_finished_runs_are_removed() {
        let root = tempfile::tempdir().unwrap();
        let live = std::process::id().to_string();
        // Above Linux's largest process id (2^22), so no process has it.
        let dead = "99999999";
        for run in ["7", live.as_str(), dead] {
            record_in(root.path(), run, &skip("a::b", "t", "r")).unwrap();
        }
        remove_finished_runs(root.path(), "7");
        assert!(root.path().join("7").exists());
        assert!(root.path().join(&live).exists());
        assert!(!root.path().join(dead).exists());
    }
}
