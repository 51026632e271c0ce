//! `render` and `validate` of a fleet: a directory (or several files) of ClusterNetworks, or a
//! fleet file (`kind: Fleet`). Finds the members, runs `calico_render::fleet::run` (in parallel)
//! and prints one report; `render` writes each cluster into its own folder under `--out-dir`,
//! and nothing at all unless every cluster is valid.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use calico_render::bundle::{RenderConfig, Stage};
use calico_render::fleet::{self, FleetRun, Member};
use calico_render::report::{self, LevelNotes, LintLevels};
use calico_spec::diag::{Diagnostic, Location};
use calico_spec::fleet::ReadFleet;
use calico_spec::rules::catalogue as c;

use super::input::{display_name, read_input_limited, stderr_palette, stdout_palette};

/// The members of a fleet and its fleet file, if one was given.
pub(super) struct Inputs {
    /// The fleet file as messages name it, and what it says.
    pub(super) fleet: Option<(String, ReadFleet)>,
    /// The ClusterNetwork files, sorted by path, each once.
    pub(super) members: Vec<Member>,
}

/// What the `-f` arguments are.
pub(super) enum Resolved {
    /// Not a fleet: the subcommand's usual path.
    Single,
    /// A fleet.
    Fleet(Box<Inputs>),
    /// A fleet file that cannot be used (exit 1): its diagnostics.
    Invalid(Vec<Diagnostic>),
}

/// Whether `files` make a fleet, and its members: a directory (its `*.yaml` and `*.yml` files,
/// fleet files among them left out), a fleet file, or, when `several_means_fleet` (`render`),
/// more than one file.
pub(super) fn resolve(files: &[String], several_means_fleet: bool) -> anyhow::Result<Resolved> {
    if files.iter().any(|path| path == "-") {
        if files.len() > 1 && several_means_fleet {
            bail!("`-f -` (standard input) cannot be part of a fleet; give files or folders");
        }
        return Ok(Resolved::Single);
    }
    // Decide first, reading only the start of each file: a single render or validate must not
    // pay for reading its input twice.
    let is_fleet = (several_means_fleet && files.len() > 1)
        || files
            .iter()
            .any(|path| Path::new(path).is_dir() || mentions_fleet(Path::new(path)));
    if !is_fleet {
        return Ok(Resolved::Single);
    }
    let mut fleet_file = None;
    let mut texts: Vec<(String, String)> = Vec::new();
    for path in files {
        let metadata = std::fs::metadata(path).with_context(|| format!("cannot read `{path}`"))?;
        if metadata.is_dir() {
            for entry in yaml_files(Path::new(path))? {
                let text = read_member(&entry)?;
                if !calico_spec::fleet::is_fleet_file(&text) {
                    texts.push((shown(&entry), text));
                }
            }
            continue;
        }
        let text = read_member(Path::new(path))?;
        if calico_spec::fleet::is_fleet_file(&text) {
            if fleet_file.is_some() {
                bail!("more than one fleet file given; a run reads one fleet");
            }
            fleet_file = Some((display_name(path).to_owned(), text));
        } else {
            texts.push((display_name(path).to_owned(), text));
        }
    }
    let mut fleet = None;
    if let Some((file, text)) = fleet_file {
        let read = match fleet::read_fleet(&file, &text) {
            Ok(read) => read,
            Err(diagnostics) => return Ok(Resolved::Invalid(diagnostics)),
        };
        let base = Path::new(&file).parent().unwrap_or(Path::new(""));
        let mut missing = Vec::new();
        for (index, entry) in read.fleet.spec.clusters.iter().enumerate() {
            let found = expand(base, entry)?;
            if found.is_empty() {
                missing.push(Diagnostic {
                    severity: c::FL_FLEET_FILE.severity,
                    code: c::FL_FLEET_FILE.code,
                    path: format!("spec.clusters[{index}]"),
                    message: format!("`{entry}` names no ClusterNetwork file"),
                    hint: Some(String::from(
                        "paths and patterns are relative to the fleet file; a pattern's `*` stands only in its last part",
                    )),
                    location: Some(at(&file, read.spans.locate_value(&format!("spec.clusters[{index}]")))),
                });
            }
            for path in found {
                let text = read_member(&path)?;
                if !calico_spec::fleet::is_fleet_file(&text) {
                    texts.push((shown(&path), text));
                }
            }
        }
        if !missing.is_empty() {
            return Ok(Resolved::Invalid(missing));
        }
        fleet = Some((file, read));
    }
    if texts.is_empty() {
        bail!(
            "no ClusterNetwork file to read: {} holds no `*.yaml` or `*.yml` file besides fleet files",
            files.join(", ")
        );
    }
    texts.sort();
    texts.dedup_by(|a, b| a.0 == b.0);
    let members = texts
        .into_iter()
        .map(|(file, text)| Member { file, text })
        .collect();
    Ok(Resolved::Fleet(Box::new(Inputs { fleet, members })))
}

/// Whether the first 4 KiB of the regular file at `path` hold `Fleet` (then it is read and
/// parsed to be sure).
fn mentions_fleet(path: &Path) -> bool {
    use std::io::Read as _;
    // Only a regular file can be read twice: a FIFO or a device gives its bytes once, to the
    // subcommand's own reading.
    if !std::fs::metadata(path).is_ok_and(|meta| meta.is_file()) {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|file| file.take(4096).read_to_end(&mut head));
    read.is_ok()
        && String::from_utf8_lossy(&head).contains("Fleet")
        && read_member(path).is_ok_and(|text| calico_spec::fleet::is_fleet_file(&text))
}

fn at(file: &str, position: Option<calico_spec::source::Pos>) -> Location {
    Location {
        file: file.to_owned(),
        document: 0,
        line: position.map(|p| p.line),
        column: position.map(|p| p.column),
    }
}

fn read_member(path: &Path) -> anyhow::Result<String> {
    read_input_limited(
        &path.to_string_lossy(),
        calico_spec::source::Limits::CLUSTER_NETWORK.max_bytes,
    )
    .with_context(|| format!("cannot read `{}`", path.display()))
}

/// A path as messages show it: `..` folded away where it can be (`a/b/../c` is `a/c`).
fn shown(path: &Path) -> String {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts
        .iter()
        .collect::<PathBuf>()
        .to_string_lossy()
        .into_owned()
}

/// The `*.yaml` and `*.yml` regular files of `dir`, sorted (not its sub-folders).
fn yaml_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot list `{}`", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list `{}`", dir.display()))?;
        let path = entry.path();
        let is_yaml = path
            .extension()
            .is_some_and(|ext| ext == "yaml" || ext == "yml");
        if is_yaml && std::fs::metadata(&path).is_ok_and(|meta| meta.is_file()) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// A fleet file's cluster entry: a file, a folder, or a pattern with `*` (any run of characters)
/// or `?` (one character) in its last part.
fn expand(base: &Path, entry: &str) -> anyhow::Result<Vec<PathBuf>> {
    let path = base.join(entry);
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.contains(['*', '?']) {
        let dir = path.parent().unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Ok(Vec::new());
        }
        let mut found = Vec::new();
        let entries =
            std::fs::read_dir(dir).with_context(|| format!("cannot list `{}`", dir.display()))?;
        for item in entries {
            let item = item.with_context(|| format!("cannot list `{}`", dir.display()))?;
            let candidate = item.file_name().to_string_lossy().into_owned();
            if wildcard(&name, &candidate) && item.path().is_file() {
                found.push(item.path());
            }
        }
        found.sort();
        return Ok(found);
    }
    if path.is_dir() {
        return yaml_files(&path);
    }
    Ok(if path.is_file() {
        vec![path]
    } else {
        Vec::new()
    })
}

/// Whether `text` matches `pattern` (`*` any run, `?` one character; a leading `.` only by a
/// pattern that starts with one).
fn wildcard(pattern: &str, text: &str) -> bool {
    if text.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point for the last `*`.
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match (pattern.get(p), text.get(t)) {
            (Some('*'), _) => {
                star = Some((p, t));
                p += 1;
            }
            (Some('?'), _) => {
                p += 1;
                t += 1;
            }
            (Some(a), Some(b)) if a == b => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|ch| *ch == '*'))
}

/// The report: every diagnostic (one per line, with its position), the clusters whose text is
/// not YAML, then one line per cluster and a summary.
fn report_text(run: &FleetRun, name: &str, palette: &report::Palette) -> String {
    let mut out = report::render_short(&run.diagnostics(), palette, LevelNotes::Flags);
    for cluster in &run.clusters {
        if let Some(message) = &cluster.not_yaml {
            let style = palette.error;
            let _ = writeln!(out, "{style}error{style:#}: {message}");
        }
    }
    let width = run
        .clusters
        .iter()
        .map(|cluster| cluster.name.len())
        .max()
        .unwrap_or(0)
        .max("CLUSTER".len());
    if !out.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{:<width$}  {:<8}  {:>7}  {:>6}  {:>8}  FILE",
        "CLUSTER", "STATUS", "OBJECTS", "ERRORS", "WARNINGS"
    );
    for cluster in &run.clusters {
        let count = |severity| {
            cluster
                .diagnostics
                .iter()
                .filter(|diag| diag.severity == severity)
                .count()
        };
        let errors =
            count(calico_spec::diag::Severity::Error) + usize::from(cluster.not_yaml.is_some());
        let _ = writeln!(
            out,
            "{:<width$}  {:<8}  {:>7}  {:>6}  {:>8}  {}",
            cluster.name,
            cluster.status(),
            cluster.objects,
            errors,
            count(calico_spec::diag::Severity::Warning),
            cluster.file
        );
    }
    let failed = run
        .clusters
        .iter()
        .filter(|cluster| cluster.failed())
        .count();
    let fleet_codes = run
        .diagnostics()
        .iter()
        .filter(|diag| diag.code.starts_with("FL"))
        .count();
    let _ = writeln!(
        out,
        "\n{name}: {} clusters, {} valid, {failed} invalid; {fleet_codes} fleet findings",
        run.clusters.len(),
        run.clusters.len() - failed,
    );
    out
}

#[derive(serde::Serialize)]
struct JsonCluster<'a> {
    name: &'a str,
    file: &'a str,
    status: &'static str,
    objects: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    not_yaml: Option<&'a str>,
    diagnostics: &'a [Diagnostic],
}

#[derive(serde::Serialize)]
struct JsonFleet<'a> {
    fleet: &'a str,
    #[serde(rename = "fleetDiagnostics")]
    fleet_diagnostics: &'a [Diagnostic],
    clusters: Vec<JsonCluster<'a>>,
    /// Every overlap finding with all the clusters it names (messages list the first few).
    overlaps: &'a [fleet::FleetOverlap],
}

fn report_json(run: &FleetRun, name: &str) -> anyhow::Result<String> {
    let report = JsonFleet {
        fleet: name,
        fleet_diagnostics: &run.fleet_diagnostics,
        clusters: run
            .clusters
            .iter()
            .map(|cluster| JsonCluster {
                name: &cluster.name,
                file: &cluster.file,
                status: cluster.status(),
                objects: cluster.objects,
                not_yaml: cluster.not_yaml.as_deref(),
                diagnostics: &cluster.diagnostics,
            })
            .collect(),
        overlaps: &run.overlaps,
    };
    let mut text = serde_json::to_string_pretty(&report).context("cannot write the report")?;
    text.push('\n');
    Ok(text)
}

fn exit_code(run: &FleetRun) -> ExitCode {
    if run
        .clusters
        .iter()
        .any(|cluster| cluster.not_yaml.is_some())
    {
        ExitCode::from(super::EXIT_USAGE)
    } else if run.failed() {
        ExitCode::from(super::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

/// `validate` of a fleet: the report on standard output (text or JSON).
pub(super) fn validate(inputs: &Inputs, levels: &LintLevels, json: bool) -> super::Outcome {
    let run = fleet::run(&inputs.members, fleet_ref(inputs), levels, None);
    let name = fleet::fleet_name(inputs.fleet.as_ref().map(|(_, read)| &read.fleet));
    let text = if json {
        report_json(&run, &name)?
    } else {
        report_text(&run, &name, &stdout_palette())
    };
    super::input::write_stdout(text)?;
    Ok(exit_code(&run))
}

fn fleet_ref(inputs: &Inputs) -> Option<(&str, &ReadFleet)> {
    inputs
        .fleet
        .as_ref()
        .map(|(file, read)| (file.as_str(), read))
}

/// `render` of a fleet into `out_dir/<cluster>/`, the report on standard error. Nothing is
/// written unless every cluster (and the fleet file) is valid.
///
/// Memory does not grow with the fleet's files: each cluster's files are written, as soon as it
/// is rendered, to its folder in a staging folder inside `out_dir` (`.calico-render-fleet-*`,
/// created for this run), and only when the whole fleet is valid and no folder has a file in
/// the way are they renamed into place, as `render --out-dir` places one cluster's (stale bundle
/// files removed, other files left alone). Otherwise the staging folder is removed, and so is
/// `out_dir` if this run created it.
pub(super) fn render(
    inputs: &Inputs,
    levels: &LintLevels,
    stage: Stage,
    out_dir: Option<&Path>,
) -> super::Outcome {
    let Some(out_dir) = out_dir else {
        eprintln!(
            "error: a fleet renders one folder per cluster\n  hint: add `--out-dir DIR`; each \
             cluster's files go to DIR/<cluster name>/"
        );
        return Ok(ExitCode::from(super::EXIT_USAGE));
    };
    let config = RenderConfig {
        stage,
        format: calico_render::bundle::Format::Yaml,
    };
    let created = Created::create(out_dir)?;
    let staging = tempfile::Builder::new()
        .prefix(".calico-render-fleet-")
        .tempdir_in(out_dir)
        .with_context(|| {
            format!(
                "cannot create a staging folder in the output directory `{}`",
                out_dir.display()
            )
        })?;
    let run = fleet::run_with_sink(
        &inputs.members,
        fleet_ref(inputs),
        levels,
        Some(config),
        |cluster, files| stage_cluster(staging.path(), cluster, &files).map(|()| None),
    );
    let name = fleet::fleet_name(inputs.fleet.as_ref().map(|(_, read)| &read.fleet));
    let text = report_text(&run, &name, &stderr_palette());
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
    let refused = if run.failed() {
        super::input::note("nothing was written: every cluster of a fleet must be valid first");
        Some(exit_code(&run))
    } else if let Some(message) = run
        .clusters
        .iter()
        .find_map(|cluster| cluster.sink_error.as_deref())
    {
        eprintln!("error: {message}");
        super::input::note("nothing was written");
        Some(ExitCode::from(super::EXIT_INVALID))
    } else {
        None
    };
    if let Some(code) = refused {
        discard(staging, &created);
        return Ok(code);
    }
    // Every folder is checked before any file is moved: a file in the way of one cluster stops
    // them all.
    use rayon::prelude::*;
    let checked: Vec<anyhow::Result<Vec<String>>> = run
        .clusters
        .par_iter()
        .map(|cluster| {
            let names = staged_names(&staging.path().join(&cluster.name))?;
            let target = out_dir.join(&cluster.name);
            if target.exists() {
                let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                super::render::stale_files(&target, stage, &refs)?;
            }
            Ok(names)
        })
        .collect();
    let mut staged = Vec::with_capacity(checked.len());
    for result in checked {
        match result {
            Ok(names) => staged.push(names),
            Err(err) => {
                discard(staging, &created);
                return Err(err.context("nothing was written"));
            }
        }
    }
    // Folders are independent: they are filled in parallel, each under its lock, and the first
    // error in cluster order is reported.
    let results: Vec<anyhow::Result<()>> = run
        .clusters
        .par_iter()
        .zip(staged.par_iter())
        .map(|(cluster, names)| {
            place(
                &staging.path().join(&cluster.name),
                &out_dir.join(&cluster.name),
                stage,
                names,
            )
        })
        .collect();
    let placed: anyhow::Result<()> = results.into_iter().collect();
    let closed = staging.close().with_context(|| {
        format!(
            "cannot remove the staging folder in `{}`",
            out_dir.display()
        )
    });
    placed?;
    closed?;
    Ok(ExitCode::SUCCESS)
}

/// The folders `create` made for the output directory, the outermost last, to remove them again
/// when nothing is written.
struct Created(Vec<PathBuf>);

impl Created {
    fn create(out_dir: &Path) -> anyhow::Result<Created> {
        let mut missing = Vec::new();
        let mut dir = Some(out_dir);
        while let Some(path) = dir.filter(|path| !path.as_os_str().is_empty() && !path.exists()) {
            missing.push(path.to_path_buf());
            dir = path.parent();
        }
        std::fs::create_dir_all(out_dir).with_context(|| {
            format!("cannot create the output directory `{}`", out_dir.display())
        })?;
        Ok(Created(missing))
    }
}

/// Remove the staging folder, and the folders this run created if they are empty again.
fn discard(staging: tempfile::TempDir, created: &Created) {
    let _ = staging.close();
    for dir in &created.0 {
        if std::fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

/// Write one cluster's files to its folder in the staging folder, each synced.
fn stage_cluster(
    staging: &Path,
    cluster: &fleet::Cluster,
    files: &[calico_render::bundle::BundleFile],
) -> Result<(), String> {
    let dir = staging.join(&cluster.name);
    std::fs::create_dir_all(&dir)
        .map_err(|err| format!("cannot create `{}`: {err}", dir.display()))?;
    for file in files {
        calico_render::bundle::check_file_name(&file.name)?;
        let path = dir.join(&file.name);
        std::fs::File::create(&path)
            .and_then(|mut handle| {
                handle.write_all(file.contents.as_bytes())?;
                handle.sync_all()
            })
            .map_err(|err| format!("cannot write `{}`: {err}", path.display()))?;
    }
    Ok(())
}

/// The files staged for one cluster, sorted.
fn staged_names(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in
        std::fs::read_dir(dir).with_context(|| format!("cannot list `{}`", dir.display()))?
    {
        let entry = entry.with_context(|| format!("cannot list `{}`", dir.display()))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// Move one cluster's staged files into its folder and remove the stale bundle files there,
/// under the folder's lock (its checks are made again under the lock).
fn place(from: &Path, to: &Path, stage: Stage, names: &[String]) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)
        .with_context(|| format!("cannot create the output directory `{}`", to.display()))?;
    let _lock = super::render::lock_dir(to)?;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let stale = super::render::stale_files(to, stage, &refs)?;
    for name in names {
        let path = to.join(name);
        std::fs::rename(from.join(name), &path)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    for path in stale {
        std::fs::remove_file(&path)
            .with_context(|| format!("cannot remove the stale bundle file `{}`", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        for (pattern, text, matches) in [
            ("*.yaml", "a.yaml", true),
            ("*.yaml", "a.yml", false),
            ("*.yaml", ".hidden.yaml", false),
            ("east-?.yaml", "east-1.yaml", true),
            ("east-?.yaml", "east-10.yaml", false),
            ("*-*.yaml", "east-1.yaml", true),
            ("*", "", true),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXbYbZ", false),
        ] {
            assert_eq!(wildcard(pattern, text), matches, "{pattern} {text}");
        }
    }

    #[test]
    fn shown_paths() {
        assert_eq!(shown(Path::new("a/b/../c.yaml")), "a/c.yaml");
        assert_eq!(shown(Path::new("./a/./b.yaml")), "a/b.yaml");
        assert_eq!(shown(Path::new("../a.yaml")), "../a.yaml");
    }
}
