//! Fleets: many ClusterNetworks loaded, checked and rendered in one process, in parallel, with
//! the fleet checks (`calico_spec::fleet`) over all of them and one report at the end.
//!
//! Each cluster is one rayon task (load, the rule catalogue, and for `render` the bundle files);
//! results are collected in the members' order, which the caller sorts, so the report and every
//! byte written are the same whatever the thread timing. A cluster that fails keeps its own
//! diagnostics and does not stop the others. The fleet checks then run once over the address
//! plans of the clusters that loaded; their findings are placed in each cluster's file (the file
//! is parsed again for positions only when it has a finding).

use rayon::prelude::*;

use calico_spec::cluster_network::{self, ClusterNetwork, ParseError};
use calico_spec::diag::{Diagnostic, Location, Severity, sort_diagnostics};
use calico_spec::fleet::{self, AddressPlan, Fleet, ReadFleet};
use calico_spec::rules::catalogue as c;

use crate::bundle::{self, BundleFile, RenderConfig};
use crate::report::LintLevels;

/// One ClusterNetwork file of a fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The file as messages name it.
    pub file: String,
    /// Its text.
    pub text: String,
}

/// What became of one cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// Its name: `metadata.name`, else [`name_from_file`].
    pub name: String,
    /// The file it was read from.
    pub file: String,
    /// Its diagnostics (its own, then the fleet's about it), after `--allow`/`--deny`.
    pub diagnostics: Vec<Diagnostic>,
    /// The text could not be read as YAML (the message, with file and position).
    pub not_yaml: Option<String>,
    /// Its address plan, when it loaded.
    pub plan: Option<AddressPlan>,
    /// How many objects it compiles to, when it loaded.
    pub objects: usize,
    /// The bundle files, when rendering was asked for and the cluster is valid (and the sink of
    /// [`run_with_sink`] gave them back).
    pub files: Vec<BundleFile>,
    /// What the sink of [`run_with_sink`] said when it could not take the cluster's files.
    pub sink_error: Option<String>,
}

impl Cluster {
    /// Whether the cluster stops the fleet (an error, or text that is not YAML).
    pub fn failed(&self) -> bool {
        self.not_yaml.is_some() || crate::report::has_errors(&self.diagnostics)
    }

    /// `ok`, `warnings`, `invalid` or `not-yaml`, as the report prints it.
    pub fn status(&self) -> &'static str {
        if self.not_yaml.is_some() {
            "not-yaml"
        } else if self.failed() {
            "invalid"
        } else if self.diagnostics.is_empty() {
            "ok"
        } else {
            "warnings"
        }
    }
}

/// A whole fleet's result.
#[derive(Debug, Clone)]
pub struct FleetRun {
    /// Every cluster, in the members' order.
    pub clusters: Vec<Cluster>,
    /// Diagnostics about the fleet file itself (routing groups naming unknown clusters).
    pub fleet_diagnostics: Vec<Diagnostic>,
    /// The overlap findings (after `--allow`/`--deny`), each with every cluster it names: a
    /// message lists only the first few of a long list.
    pub overlaps: Vec<FleetOverlap>,
}

/// An overlap finding of the fleet checks and every cluster it names.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FleetOverlap {
    /// Its code.
    pub code: &'static str,
    /// Its severity after `--allow`/`--deny`.
    pub severity: Severity,
    /// The cluster it is reported at.
    pub cluster: String,
    /// The field of that cluster's ClusterNetwork.
    pub path: String,
    /// The addresses the ranges share.
    pub range: String,
    /// Every cluster it names, sorted.
    pub clusters: Vec<String>,
}

impl FleetRun {
    /// Whether nothing may be written: a cluster failed or the fleet file has an error.
    pub fn failed(&self) -> bool {
        crate::report::has_errors(&self.fleet_diagnostics)
            || self.clusters.iter().any(Cluster::failed)
    }

    /// Every diagnostic of the run: the fleet file's, then each cluster's.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut all = self.fleet_diagnostics.clone();
        for cluster in &self.clusters {
            all.extend(cluster.diagnostics.iter().cloned());
        }
        all
    }
}

/// A cluster's name when its ClusterNetwork has no `metadata.name`: the file's name without its
/// extension, or the folder's name for a file called `cluster` or `clusternetwork` (one folder
/// per cluster: `prod/cluster.yaml` is `prod`).
pub fn name_from_file(file: &str) -> String {
    let path = std::path::Path::new(file);
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    if matches!(stem.as_str(), "cluster" | "clusternetwork")
        && let Some(parent) = path.parent().and_then(|parent| parent.file_name())
    {
        return parent.to_string_lossy().into_owned();
    }
    stem
}

/// Whether `name` can be a folder under `--out-dir`: a DNS-1123 label (lowercase letters,
/// digits and `-`, at most 63, starting and ending with a letter or digit).
pub fn is_folder_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first().is_some_and(|b| *b != b'-')
        && bytes.last().is_some_and(|b| *b != b'-')
}

/// Load every member in parallel (and render it with `render`, when given), run the fleet checks
/// over the plans of those that loaded, and apply `levels` to everything. `fleet` is the fleet
/// file, if any, with the name messages use for it.
pub fn run(
    members: &[Member],
    fleet: Option<(&str, &ReadFleet)>,
    levels: &LintLevels,
    render: Option<RenderConfig>,
) -> FleetRun {
    run_with_sink(members, fleet, levels, render, |_, _| Ok(None))
}

/// [`run`], handing each cluster's bundle files to `sink` in the worker that rendered them, as
/// soon as the cluster is rendered and its own checks pass (the fleet checks come after every
/// cluster). `sink` returns the files to keep in [`Cluster::files`] (`None`: none, so that
/// memory does not grow with the fleet's files), or an error that becomes the cluster's
/// [`Cluster::sink_error`]. The caller must still read [`FleetRun::failed`]: a fleet finding can
/// make a cluster invalid after `sink` had its files.
pub fn run_with_sink<S>(
    members: &[Member],
    fleet: Option<(&str, &ReadFleet)>,
    levels: &LintLevels,
    render: Option<RenderConfig>,
    sink: S,
) -> FleetRun
where
    S: Fn(&Cluster, Vec<BundleFile>) -> Result<Option<Vec<BundleFile>>, String> + Sync,
{
    let mut clusters: Vec<Cluster> = members
        .par_iter()
        .map(|member| {
            let mut cluster = load_one(member, levels, render);
            if !cluster.failed() && render.is_some() {
                let files = std::mem::take(&mut cluster.files);
                match sink(&cluster, files) {
                    Ok(kept) => cluster.files = kept.unwrap_or_default(),
                    Err(message) => cluster.sink_error = Some(message),
                }
            }
            cluster
        })
        .collect();
    let plans: Vec<AddressPlan> = clusters
        .iter()
        .filter_map(|cluster| cluster.plan.clone())
        .collect();
    let mut fleet_diagnostics = Vec::new();
    let mut overlaps = Vec::new();
    let found = fleet::check(fleet.map(|(_, read)| &read.fleet), &plans);
    let mut by_cluster: std::collections::BTreeMap<String, Vec<Diagnostic>> =
        std::collections::BTreeMap::new();
    for finding in found {
        // Allowed codes go; denied ones become errors.
        let Some(mut diagnostic) = levels.apply(vec![finding.diagnostic]).pop() else {
            continue;
        };
        match finding.cluster {
            Some(name) => {
                if let Some(shared) = finding.shared {
                    overlaps.push(FleetOverlap {
                        code: diagnostic.code,
                        severity: diagnostic.severity,
                        cluster: name.clone(),
                        path: diagnostic.path.clone(),
                        range: shared.to_string(),
                        clusters: finding.clusters,
                    });
                }
                by_cluster.entry(name).or_default().push(diagnostic);
            }
            None => {
                if let Some((file, read)) = fleet {
                    diagnostic.location =
                        Some(locate(file, read.spans.locate_value(&diagnostic.path)));
                }
                fleet_diagnostics.push(diagnostic);
            }
        }
    }
    for cluster in &mut clusters {
        let Some(mut found) = by_cluster.remove(&cluster.name) else {
            continue;
        };
        // Positions: parse the file again (only files with a finding pay for it). A name two
        // clusters share puts the finding in both, which is where the user must look.
        if let Some(member) = members.iter().find(|member| member.file == cluster.file)
            && let Ok(parsed) = cluster_network::parse(&member.file, &member.text)
        {
            for diagnostic in &mut found {
                diagnostic.location = Some(locate(
                    &member.file,
                    parsed.spans.locate_value(&diagnostic.path),
                ));
            }
        }
        cluster.diagnostics.append(&mut found);
        sort_diagnostics(&mut cluster.diagnostics);
        // A fleet error (two clusters with one name) stops rendering that cluster too.
        if cluster.failed() {
            cluster.files.clear();
        }
    }
    // Names two clusters share are reported once per cluster; the clusters whose name no plan
    // carries (they did not load) have no fleet findings.
    FleetRun {
        clusters,
        fleet_diagnostics,
        overlaps,
    }
}

fn locate(file: &str, position: Option<calico_spec::source::Pos>) -> Location {
    Location {
        file: file.to_owned(),
        document: 0,
        line: position.map(|p| p.line),
        column: position.map(|p| p.column),
    }
}

/// One cluster: load (parse, check, compile, the catalogue), its plan, and its bundle files.
fn load_one(member: &Member, levels: &LintLevels, render: Option<RenderConfig>) -> Cluster {
    let mut cluster = Cluster {
        name: name_from_file(&member.file),
        file: member.file.clone(),
        diagnostics: Vec::new(),
        not_yaml: None,
        plan: None,
        objects: 0,
        files: Vec::new(),
        sink_error: None,
    };
    match cluster_network::load(&member.file, &member.text) {
        Ok(loaded) => {
            cluster.name = cluster_name(&loaded.cluster_network, &member.file);
            cluster.diagnostics = levels.apply(loaded.warnings);
            cluster.objects = loaded.objects.len();
            cluster.plan = Some(AddressPlan::of(&cluster.name, &loaded.cluster_network));
            if !is_folder_name(&cluster.name) {
                cluster.diagnostics.push(Diagnostic {
                    severity: Severity::Error,
                    code: c::FL_FLEET_FILE.code,
                    path: String::from("metadata.name"),
                    message: format!(
                        "cluster name `{}` cannot name its output folder",
                        cluster.name
                    ),
                    hint: Some(String::from(
                        "use lowercase letters, digits and `-` (a DNS-1123 label) in `metadata.name`",
                    )),
                    location: Some(Location {
                        file: member.file.clone(),
                        document: 0,
                        line: None,
                        column: None,
                    }),
                });
            }
            if let Some(config) = render
                && !cluster.failed()
            {
                match bundle::bundle_files(&config, &loaded.objects) {
                    Ok(files) => cluster.files = files,
                    Err(err) => cluster.not_yaml = Some(format!("{}: {err}", member.file)),
                }
            }
        }
        Err(ParseError::Invalid { diagnostics }) => {
            cluster.diagnostics = levels.apply(diagnostics);
        }
        Err(ParseError::NotYaml {
            file,
            line,
            column,
            message,
        }) => {
            cluster.not_yaml = Some(format!("{file}:{line}:{column}: {message}"));
        }
        Err(other) => cluster.not_yaml = Some(other.to_string()),
    }
    cluster
}

fn cluster_name(network: &ClusterNetwork, file: &str) -> String {
    network
        .metadata
        .name
        .clone()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| name_from_file(file))
}

/// The fleet file's own problems as diagnostics of `fleet`'s kind (re-exported for the CLI).
pub fn read_fleet(file: &str, text: &str) -> Result<ReadFleet, Vec<Diagnostic>> {
    fleet::read(file, text)
}

/// The fleet's name for reports: its `metadata.name`, or `fleet`.
pub fn fleet_name(fleet: Option<&Fleet>) -> String {
    fleet
        .and_then(|fleet| fleet.metadata.name.clone())
        .unwrap_or_else(|| String::from("fleet"))
}
