//! Shared helpers for the cross-crate integration tests in `tests/tests/*.rs`.
//!
//! Cargo hands `CARGO_BIN_EXE_<name>` only to tests of the package that owns the binary, so
//! this crate's tests find `calico-render` themselves: next to the test executable
//! (`target/<profile>/calico-render`), after a `cargo build -p calico-render --bin
//! calico-render --features cli` for the same profile, target and target directory, which is a
//! no-op when the binary is fresh. That way a test never runs a stale binary. `CALICO_RENDER_E2E_BIN` points the
//! tests at another binary instead.
// Test code: an unwrap or a panic is a failing test, which is what a test should do.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod fuzz;
pub mod installations;

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Environment variable that overrides which `calico-render` binary the tests run.
pub const ENV_BIN: &str = "CALICO_RENDER_E2E_BIN";

/// The workspace root (the folder holding the root `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits one level below the workspace root")
        .to_path_buf()
}

/// The `calico-render` binary, built (or confirmed fresh) once per test process.
///
/// Returns the reason as an error when it cannot be built, so suites that report their own
/// set-up problems (the end-to-end ones) can say so in their words.
pub fn try_calico_render() -> Result<&'static Path, String> {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BINARY
        .get_or_init(
            || match env::var_os(ENV_BIN).filter(|value| !value.is_empty()) {
                Some(bin) => Ok(PathBuf::from(bin)),
                None => build_calico_render(),
            },
        )
        .as_deref()
        .map_err(Clone::clone)
}

/// The `calico-render` binary; panics with the build error when it cannot be built.
pub fn calico_render() -> &'static Path {
    match try_calico_render() {
        Ok(path) => path,
        Err(reason) => panic!("{reason}"),
    }
}

/// Build the binary for this test executable's profile and target directory.
fn build_calico_render() -> Result<PathBuf, String> {
    let exe =
        env::current_exe().map_err(|err| format!("cannot locate the test executable: {err}"))?;
    // target/<profile>/deps/<test>-<hash>: two levels up is the profile directory.
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("unexpected test executable path {}", exe.display()))?;
    let target_dir = profile_dir
        .parent()
        .ok_or_else(|| format!("unexpected profile directory {}", profile_dir.display()))?;
    let profile = profile_dir
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| format!("unexpected profile directory {}", profile_dir.display()))?;
    // `debug` is where both the dev and the test profile put their output.
    let cargo_profile = if profile == "debug" { "dev" } else { profile };
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "calico-render",
            "--bin",
            "calico-render",
            "--features",
            "cli",
        ])
        .args(["--profile", cargo_profile])
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(workspace_root())
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot run {}: {err}", Path::new(&cargo).display()))?;
    if !output.status.success() {
        return Err(format!(
            "building calico-render failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(profile_dir.join(format!("calico-render{}", env::consts::EXE_SUFFIX)))
}

/// Says on the real standard error that a test did not run and why, and records the skip for
/// the tally that ends `cargo test --workspace` (the `skip-tally` package).
///
/// `tool` names what was missing (`kube-apiserver`, `helm/kustomize/kpt`, ...); the test's name
/// is libtest's name of the thread the test runs on. Every real-tool test that skips calls this
/// (a tidy test holds that no other skip message is printed).
///
/// libtest captures `eprintln!` of a passing test, so a skip printed that way would show as a
/// bare `ok`. A direct write to the process's standard error is not captured: the line appears
/// beside the test's `ok` in every run, which is the summary a reader needs.
pub fn say_skipped(tool: &str, message: &str) {
    use std::io::Write as _;
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_owned();
    skip_tally::record(&skip_tally::Record {
        test,
        tool: tool.to_owned(),
        reason: message.to_owned(),
    });
    let mut err = std::io::stderr().lock();
    // Nothing useful can be done if standard error is gone.
    let _ = writeln!(err, "SKIPPED: {message}");
}

/// SplitMix64: a small seeded generator, the same on every platform, for the seeded test
/// generators (patch property, scan differential, oracle differential).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits. Not an `Iterator`: the generator never ends, and callers want
    /// the bits, not an `Option`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (which must not be 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// `calico-render` started with `args` in `dir`, its three standard streams piped.
pub fn spawn_calico_render(args: &[&str], dir: &Path) -> std::process::Child {
    use std::process::{Command, Stdio};
    Command::new(calico_render())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("calico-render starts")
}

/// Run `calico-render` with `args` in `dir`, `stdin` written from a thread (so a large input
/// cannot dead-lock against a full stdout pipe), and collect its output. A child that stops
/// reading early (a refused input, a usage error) is not a failure of the run.
pub fn run_calico_render(args: &[&str], dir: &Path, stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = spawn_calico_render(args, dir);
    let mut child_stdin = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = child_stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("calico-render finishes");
    writer.join().expect("the stdin writer ends");
    output
}

/// The example ClusterNetworks (`examples/<name>/cluster.yaml`), by folder name, sorted.
pub fn example_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(workspace_root().join("examples"))
        .expect("the examples folder")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().to_string_lossy().into_owned();
            entry.path().join("cluster.yaml").is_file().then_some(name)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    names
}

/// The example ClusterNetwork `name` with `spec.calicoVersion: version` as the first field of
/// its spec (any `calicoVersion` it had is dropped).
pub fn example_for(name: &str, version: &str) -> String {
    let path = workspace_root().join(format!("examples/{name}/cluster.yaml"));
    let text = std::fs::read_to_string(path).expect("example readable");
    with_calico_version(&text, version)
}

/// A ClusterNetwork's text with `spec.calicoVersion: version` as the first field of its spec
/// (any `calicoVersion` it had is dropped).
pub fn with_calico_version(text: &str, version: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("  calicoVersion:") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line == "spec:" {
            out.push_str(&format!("  calicoVersion: {version}\n"));
        }
    }
    assert!(
        out.contains(&format!("\n  calicoVersion: {version}\n")),
        "no `spec:` line to put calicoVersion under:\n{text}"
    );
    out
}
