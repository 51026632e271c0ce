//! `validate` for users of the tigera-operator Helm chart: values files, and the values of a
//! Flux `HelmRelease` or an Argo CD `Application` that install the chart.
//!
//! The values are laid over the chart's defaults as Helm does and rendered the way the chart's
//! templates do ([`crate::chart`]): the Installation, the APIServer, FelixConfiguration
//! `default` and the endpoint ConfigMap go through the whole rule catalogue, like manifests.
//! Every diagnostic is then mapped back to the values key it came from
//! (`spec.calicoNetwork.bgp` of the Installation is `installation.calicoNetwork.bgp`) and
//! placed at that key's line and column in the file. Keys the chart itself handles are checked
//! here: keys it does not read (CR9001), keys nested wrong inside a section (CR9002), keys with
//! dots that only `helm --set` would split (CR9003), and values it ignores (CR9004).
//!
//! Where the values are:
//! - a values file: a YAML mapping without `apiVersion` and `kind` whose keys include the
//!   chart's (`installation`, `apiServer`, `tigeraOperator`, ...), or any file with
//!   [`Reading::ChartValues`] (`validate --chart-values`);
//! - a Flux HelmRelease (`helm.toolkit.fluxcd.io/*`) whose `spec.chart.spec.chart` is
//!   `tigera-operator`: `spec.values`;
//! - an Argo CD Application (`argoproj.io/v1alpha1`) whose `spec.source.chart` (or one of
//!   `spec.sources[*].chart`) is `tigera-operator`: `helm.valuesObject`, or else the YAML string
//!   `helm.values`. Positions in that string are mapped into the file exactly when it is a
//!   literal block (`values: |`) whose lines are the string's lines; otherwise every finding in
//!   it is placed at the string, and its hint says so.
//!
//! What is not seen: Flux `valuesFrom` and Argo CD `valueFiles` and `parameters` (their
//! content is elsewhere), and checks across a chart install and other files given to the same
//! `validate` run (each set of values is checked as one install). The release namespace is
//! taken to be `tigera-operator`; with the chart the operator and its endpoint ConfigMap are
//! always in the same namespace.

mod find;
mod keys;

use std::collections::BTreeMap;

use calico_spec::diag::{Diagnostic, Location};
use calico_spec::release::{self, Release};
use calico_spec::rules::catalogue::{self as c, Rule};
use calico_spec::rules::{self, Context, Skipped, SourceText, TextError, ValidationOutcome};
use calico_spec::source::{Document, Limits, Pos, parse_stream};
use serde_json::{Map, Value};

use crate::chart;
use find::{Place, values_file, wrapped_values};
use keys::{chart_hint, check_ignored, check_keys, nesting};

/// How `validate` reads its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Manifests and ClusterNetworks; a file that looks like chart values is read as such, and
    /// HelmReleases and Applications of the chart have their values checked.
    Detect,
    /// Every file is a values file for the chart (`--chart-values`).
    ChartValues,
}

/// [`rules::validate_texts`], plus the chart values found in the texts (see the module doc),
/// for the newest release's chart.
///
/// # Errors
/// [`TextError`] for a text that is not YAML or exceeds `limits`.
pub fn validate_texts(
    texts: &[SourceText<'_>],
    ctx: &Context,
    limits: &Limits,
    reading: Reading,
) -> Result<ValidationOutcome, TextError> {
    validate_texts_for(Release::default_target(), texts, ctx, limits, reading)
}

/// [`validate_texts`] for `release`'s chart: the values are laid over that release's chart
/// defaults, a top-level key of its values file is the chart's, and the objects the chart
/// renders are checked against the release's schema as well (CR0007/CR0008, placed at the
/// values key; see `calico_spec::release`). The manifests of `texts` are checked as
/// [`rules::validate_texts`] checks them, the target release's own verdicts included.
///
/// # Errors
/// [`TextError`] for a text that is not YAML or exceeds `limits`.
pub fn validate_texts_for(
    release: &'static Release,
    texts: &[SourceText<'_>],
    ctx: &Context,
    limits: &Limits,
    reading: Reading,
) -> Result<ValidationOutcome, TextError> {
    let mut parsed: Vec<Option<Vec<Document>>> = Vec::with_capacity(texts.len());
    for source in texts {
        let documents = if reading == Reading::ChartValues || may_hold_values(source.text) {
            Some(parse_stream(source.text, limits).map_err(|err| TextError {
                file: source.name.to_owned(),
                source: err,
            })?)
        } else {
            None
        };
        parsed.push(documents);
    }
    let mut plain: Vec<SourceText<'_>> = Vec::new();
    let mut found = Found::default();
    for (source, documents) in texts.iter().zip(&parsed) {
        match documents {
            Some(documents) if reading == Reading::ChartValues || is_values_file(documents) => {
                values_file(source.name, documents, &mut found);
            }
            Some(documents) => {
                plain.push(*source);
                for document in documents {
                    wrapped_values(source, document, limits, &mut found);
                }
            }
            None => plain.push(*source),
        }
    }
    let mut outcome = rules::validate_texts(&plain, ctx, limits)?;
    // The operator reads the endpoint ConfigMap whoever creates it: one given as a manifest
    // beside the values counts as the chart's own would.
    let endpoint_given = !found.values.is_empty() && endpoint_manifest(&plain, limits);
    outcome
        .skipped
        .retain(|skip| !found.claimed.contains(&(skip.file.clone(), skip.document)));
    // Each set of values is checked, like a document (`validate` says when nothing was).
    outcome.checked += found.values.len();
    for values in &found.values {
        check_values(values, ctx, release, endpoint_given, &mut outcome);
    }
    outcome.diagnostics.append(&mut found.diagnostics);
    calico_spec::diag::sort_diagnostics(&mut outcome.diagnostics);
    let order: BTreeMap<&str, usize> = texts
        .iter()
        .enumerate()
        .map(|(idx, source)| (source.name, idx))
        .collect();
    outcome.skipped.sort_by(|a, b| {
        let rank = |skip: &Skipped| (order.get(skip.file.as_str()).copied(), skip.document);
        rank(a).cmp(&rank(b)).then(a.cmp(b))
    });
    outcome.skipped.dedup();
    Ok(outcome)
}

/// Whether a manifest among `plain` is the endpoint ConfigMap (a `v1` ConfigMap named
/// `kubernetes-services-endpoint`, as the rule catalogue recognises it).
fn endpoint_manifest(plain: &[SourceText<'_>], limits: &Limits) -> bool {
    plain
        .iter()
        .filter(|source| source.text.contains(chart::ENDPOINT_CONFIG_MAP))
        .any(|source| {
            parse_stream(source.text, limits).is_ok_and(|documents| {
                documents.iter().any(|doc| {
                    let text = |pointer: &str| doc.value.pointer(pointer).and_then(Value::as_str);
                    text("/apiVersion") == Some("v1")
                        && text("/kind") == Some("ConfigMap")
                        && text("/metadata/name") == Some(chart::ENDPOINT_CONFIG_MAP)
                })
            })
        })
}

/// A cheap look before parsing: only a text with a HelmRelease or an Application that names
/// the chart, or with a line starting with one of the chart's top-level keys, can hold its
/// values, so other streams (the endpoint ConfigMap's `namespace: tigera-operator` included)
/// are parsed once, by the rule catalogue, as before.
fn may_hold_values(text: &str) -> bool {
    (text.contains(chart::CHART_NAME)
        && (text.contains("HelmRelease") || text.contains("Application")))
        || text.lines().any(|line| {
            let line = line.trim_start_matches(['"', '\'']);
            // The first byte first: most lines are indented and match no key, and a call to
            // compare a whole prefix per key and line cost 4 M instructions on the 1,000-pool
            // bench.
            chart::TOP_LEVEL.iter().any(|(key, _)| {
                line.as_bytes().first() == key.as_bytes().first()
                    && line
                        .strip_prefix(key)
                        .is_some_and(|rest| rest.starts_with([':', '.']))
            })
        })
}

/// A values file: YAML mappings without `apiVersion` or `kind`, the first of which has a key
/// the chart reads (or a dotted key starting with one).
fn is_values_file(documents: &[Document]) -> bool {
    let mut content = documents.iter().filter(|doc| !doc.is_empty());
    let Some(first) = content.next() else {
        return false;
    };
    let plain = |doc: &Document| {
        doc.value
            .as_object()
            .is_some_and(|map| !map.contains_key("apiVersion") && !map.contains_key("kind"))
    };
    plain(first)
        && content.all(plain)
        && first.value.as_object().is_some_and(|map| {
            map.keys().any(|key| {
                let head = key.split('.').next().unwrap_or(key);
                chart::role(head).is_some_and(|_| head != "global")
            })
        })
}

/// Values found in the inputs, with the diagnostics found on the way.
#[derive(Default)]
struct Found<'a> {
    values: Vec<Values<'a>>,
    diagnostics: Vec<Diagnostic>,
    /// Documents whose values are checked here, so they are not reported as skipped.
    claimed: Vec<(String, usize)>,
}

/// One set of values for the chart and where it sits in its file.
struct Values<'a> {
    file: &'a str,
    document: usize,
    /// The values as written (`None`: none given, the chart's defaults apply).
    values: Option<Value>,
    place: Place<'a>,
}

/// Check one set of values: the chart's own keys, then the objects it renders, with the whole
/// rule catalogue. Diagnostics and unchecked objects go into `outcome`.
fn check_values(
    values: &Values<'_>,
    ctx: &Context,
    release: &'static Release,
    endpoint_given: bool,
    outcome: &mut ValidationOutcome,
) {
    let mut out: Vec<Diagnostic> = Vec::new();
    let empty = Value::Object(Map::new());
    let user = values.values.as_ref().unwrap_or(&empty);
    match user.as_object() {
        None => out.push(new(
            &c::WRONG_TYPE,
            "",
            format!("chart values must be a mapping, found {}", describe(user)),
            None,
        )),
        Some(map) => {
            check_keys(map, release, &mut out);
            let merged = chart::coalesce(chart::defaults_for(release), user);
            check_ignored(map, &merged, &mut out);
            let rendered = chart::render(&merged);
            let objects: Vec<Value> = rendered
                .objects
                .iter()
                .map(|object| object.value.clone())
                .collect();
            let mut found = rules::validate_values(&objects, ctx);
            if endpoint_given {
                found.retain(|diag| diag.code != c::LINT_BPF_WITHOUT_ENDPOINT.code);
            }
            if !release.is_newest() {
                for_release(release, &objects, &mut found);
            }
            for mut diag in found {
                let origin = diag
                    .location
                    .take()
                    .and_then(|loc| rendered.objects.get(loc.document))
                    .map(|object| &object.origin);
                let Some(origin) = origin else {
                    diag.path.clear();
                    out.push(diag);
                    continue;
                };
                let object_path = std::mem::take(&mut diag.path);
                diag.path = origin.values_path(&object_path);
                if diag.code == c::UNKNOWN_FIELD.code {
                    nesting(origin, &object_path, map, &mut diag);
                }
                if let Some(hint) = chart_hint(diag.code) {
                    diag.hint = Some(hint.to_owned());
                }
                let top = diag.path.split(['.', '[']).next().unwrap_or_default();
                if !top.is_empty() && !map.contains_key(top) {
                    let note =
                        format!("`{top}` is not in these values: this is the chart's default");
                    diag.hint = Some(match diag.hint.take() {
                        Some(hint) => format!("{hint}; {note}"),
                        None => note,
                    });
                }
                out.push(diag);
            }
        }
    }
    for mut diag in out {
        let at_key = [
            c::UNKNOWN_FIELD.code,
            c::CHART_UNKNOWN_KEY.code,
            c::CHART_NESTING.code,
            c::CHART_DOTTED_KEY.code,
            c::CHART_IGNORED_VALUE.code,
        ]
        .contains(&diag.code);
        let pos = values.place.locate(&diag.path, at_key);
        if values.place.approximate() {
            let note = "the position is that of the `helm.values` string: only a literal block \
                        (`values: |`) can be mapped line by line";
            diag.hint = Some(match diag.hint.take() {
                Some(hint) => format!("{hint} ({note})"),
                None => note.to_owned(),
            });
        }
        outcome
            .diagnostics
            .push(located(diag, values.file, values.document, pos));
    }
}

/// What `release` does not accept in the rendered `objects` (`found` is the newest release's
/// verdict, each diagnostic's `location.document` the object's index): its findings are added,
/// and the newest release's errors at paths only `release` knows, or restated as a field of a
/// later release, are dropped. The same rule as `release::apply_to_outcome` for manifests.
fn for_release(release: &'static Release, objects: &[Value], found: &mut Vec<Diagnostic>) {
    let mut set_aside: Vec<(usize, String)> = Vec::new();
    let mut restated: Vec<(usize, String)> = Vec::new();
    let mut added = Vec::new();
    for (idx, object) in objects.iter().enumerate() {
        let Some(kind) = release::indexed_kind(object) else {
            continue;
        };
        for finding in release::check_object(release, kind, object) {
            match &finding {
                release::Finding::OnlyInTarget { path } => set_aside.push((idx, path.clone())),
                release::Finding::UnknownField { path, .. } => restated.push((idx, path.clone())),
                _ => {}
            }
            if let Some(mut diag) = release::diagnostic(release, &finding) {
                diag.location = Some(Location {
                    file: String::new(),
                    document: idx,
                    line: None,
                    column: None,
                });
                added.push(diag);
            }
        }
    }
    let at = |list: &[(usize, String)], diag: &Diagnostic| {
        let document = diag.location.as_ref().map(|loc| loc.document);
        list.iter()
            .any(|(idx, path)| Some(*idx) == document && *path == diag.path)
    };
    found.retain(|diag| {
        let aside = diag.severity == calico_spec::diag::Severity::Error && at(&set_aside, diag);
        let again = diag.code == c::UNKNOWN_FIELD.code && at(&restated, diag);
        !(aside || again)
    });
    found.extend(added);
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
        Value::Null => "null",
        Value::String(_) => "a string",
    }
}

fn new(
    rule: &Rule,
    path: impl Into<String>,
    message: impl Into<String>,
    hint: Option<String>,
) -> Diagnostic {
    Diagnostic {
        severity: rule.severity,
        code: rule.code,
        path: path.into(),
        message: message.into(),
        hint,
        location: None,
    }
}

fn located(mut diag: Diagnostic, file: &str, document: usize, pos: Pos) -> Diagnostic {
    diag.location = Some(Location {
        file: file.to_owned(),
        document,
        line: Some(pos.line),
        column: Some(pos.column),
    });
    diag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        let docs = |text: &str| parse_stream(text, &Limits::MANIFESTS).unwrap();
        assert!(is_values_file(&docs("installation:\n  enabled: true\n")));
        assert!(is_values_file(&docs(
            "installation.calicoNetwork.bgp: Enabled\n"
        )));
        assert!(!is_values_file(&docs("global: {}\n")));
        assert!(!is_values_file(&docs(
            "apiVersion: v1\nkind: ConfigMap\ninstallation: {}\n"
        )));
        assert!(!is_values_file(&docs("foo: 1\n")));
        assert!(may_hold_values("\"installation.calicoNetwork.bgp\": x\n"));
        assert!(!may_hold_values("apiVersion: v1\nkind: List\n"));
        assert!(!may_hold_values(
            "metadata:\n  namespace: tigera-operator\n"
        ));
        assert!(may_hold_values(
            "kind: HelmRelease\n    chart: tigera-operator\n"
        ));
    }
}
