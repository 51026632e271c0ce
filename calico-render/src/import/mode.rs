//! Which API mode the imported cluster runs (`spec.apiMode`), from the documents given.
//!
//! The tigera-operator decides the mode once, when it starts (tigera/operator `release-v1.44`
//! at b0c1cc5, `pkg/apis/version.go`, `useV3CRDs`), in this order: the `CALICO_API_GROUP`
//! variable of its own Deployment (`projectcalico.org/v3` means native, any other value the
//! v1 CRDs); a DatastoreMigration in phase `Converged` or `Complete` (native); the
//! `crd.projectcalico.org` group served (the v1 CRDs: an existing cluster, kept on them); only
//! `projectcalico.org` served (native). Then it deploys what its mode needs
//! (`pkg/controller/apiserver/apiserver_controller.go`, `RequiresAggregationServer:
//! !UseV3CRDs`): the `calico-apiserver` Deployment and the APIService `v3.projectcalico.org`
//! pointing at it on the v1 CRDs, the `calico-webhooks` Deployment natively.
//!
//! Each such document in the input is a witness, ranked in that order (the operator's own
//! outputs last, since they follow from the decision): the CustomResourceDefinitions of `kubectl
//! get crd -o yaml` (a `crd.projectcalico.org` one says the v1 CRDs; a `projectcalico.org` one
//! the native group); objects read through `crd.projectcalico.org/v1` (that group is served);
//! the APIService `v3.projectcalico.org` (with `spec.service`, the Calico API server serves the
//! group, which only the v1 mode deploys; without, the kube-apiserver serves it locally, which
//! it does for a group of CRDs); the operator's, the API server's and the webhooks'
//! Deployments; a DatastoreMigration. The best-ranked witness decides; witnesses that disagree
//! are named. Witness documents are context: they are not imported. Documents of a manifest
//! install are read by `manifest` first and are no witnesses.

use calico_spec::cluster_network::{ApiMode, ClusterNetwork};
use calico_spec::release::Release;
use calico_spec::rules::catalogue as c;
use serde_json::Value;

use super::read::Source;
use super::{At, Report};

/// One document that says (or could say) which mode the cluster runs.
#[derive(Debug, Clone)]
pub(super) struct Witness {
    /// The mode it says, or `None` for a context document that does not decide.
    mode: Option<ApiMode>,
    /// The operator's order: lower decides first.
    rank: u8,
    /// What it is and why it says so, for messages.
    what: String,
    at: At,
}

impl Witness {
    /// `file:line` (or `file, items[3]` without positions) of the document.
    fn place(&self) -> String {
        let (path, location) = self.at.locate("");
        match location.line {
            Some(line) => format!("{}:{line}", location.file),
            None if path.is_empty() => location.file,
            None => format!("{}, {path}", location.file),
        }
    }
}

/// The witnesses of `sources`, and the sources without the witness documents (Lists lose
/// their witness items).
pub(super) fn take(sources: Vec<Source>) -> (Vec<Source>, Vec<Witness>) {
    let mut witnesses = Vec::new();
    let mut out = Vec::new();
    for source in sources {
        let at = At {
            file: source.file.clone(),
            document: source.document,
            prefix: String::new(),
            spans: source.spans.clone(),
        };
        match calico_spec::rules::list_items(&source.value) {
            Some(items) => {
                let mut kept = Vec::new();
                for (idx, item) in items.iter().enumerate() {
                    let at = At {
                        prefix: format!("items[{idx}]."),
                        ..at.clone()
                    };
                    match witness(item, at) {
                        Some((witness, true)) => witnesses.push(witness),
                        Some((witness, false)) => {
                            witnesses.push(witness);
                            kept.push(item.clone().into_owned());
                        }
                        None => kept.push(item.clone().into_owned()),
                    }
                }
                if !kept.is_empty() {
                    let mut value = source.value.clone();
                    if let Some(list) = value.get_mut("items") {
                        *list = Value::Array(kept);
                    }
                    out.push(Source { value, ..source });
                }
            }
            None => match witness(&source.value, at) {
                Some((witness, true)) => witnesses.push(witness),
                Some((witness, false)) => {
                    witnesses.push(witness);
                    out.push(source);
                }
                None => out.push(source),
            },
        }
    }
    (out, witnesses)
}

/// The witness a document is, and whether it is context only (taken out of the import).
fn witness(value: &Value, at: At) -> Option<(Witness, bool)> {
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
    let api_version = text("/apiVersion")?;
    let kind = text("/kind")?;
    let name = text("/metadata/name").unwrap_or("");
    let group = api_version.split_once('/').map_or("", |(group, _)| group);
    let found = |mode: Option<ApiMode>, rank: u8, what: String| Witness {
        mode,
        rank,
        what,
        at: at.clone(),
    };
    let aggregated = Some(ApiMode::Aggregated);
    let native = Some(ApiMode::NativeV3);
    let witness = match (group, kind) {
        // An object read through the v1 group: the group is served. It is imported too.
        ("crd.projectcalico.org", _) => {
            return Some((
                found(
                    aggregated,
                    3,
                    format!(
                        "{kind} `{name}` read through crd.projectcalico.org/v1 (the v1 CRDs are \
                         served)"
                    ),
                ),
                false,
            ));
        }
        ("apiextensions.k8s.io", "CustomResourceDefinition") => match text("/spec/group") {
            Some("crd.projectcalico.org") => found(
                aggregated,
                3,
                format!("CustomResourceDefinition `{name}` (the v1 CRDs are installed)"),
            ),
            Some("projectcalico.org") => found(
                native,
                4,
                format!("CustomResourceDefinition `{name}` (the native projectcalico.org CRDs)"),
            ),
            _ => found(None, 9, format!("CustomResourceDefinition `{name}`")),
        },
        ("apiregistration.k8s.io", "APIService") => match name {
            "v3.projectcalico.org"
                if value.pointer("/spec/service").is_some_and(|s| !s.is_null()) =>
            {
                found(
                    aggregated,
                    3,
                    "APIService `v3.projectcalico.org` with a `spec.service` (the Calico API \
                     server serves projectcalico.org/v3, which it does on the v1 CRDs)"
                        .to_owned(),
                )
            }
            "v3.projectcalico.org" => found(
                native,
                4,
                "APIService `v3.projectcalico.org` without a `spec.service` (the kube-apiserver \
                 serves projectcalico.org/v3 itself, from CRDs)"
                    .to_owned(),
            ),
            _ => found(None, 9, format!("APIService `{name}`")),
        },
        ("migration.projectcalico.org", "DatastoreMigration") => match text("/status/phase") {
            Some(phase @ ("Converged" | "Complete")) => found(
                native,
                2,
                format!(
                    "DatastoreMigration `{name}` in phase {phase} (migrated to the native \
                         CRDs)"
                ),
            ),
            phase => found(
                None,
                9,
                format!(
                    "DatastoreMigration `{name}` in phase {}",
                    phase.unwrap_or("(none)")
                ),
            ),
        },
        ("apps", "Deployment") => match name {
            "tigera-operator" => match operator_api_group(value) {
                Some(group) => found(
                    if group == "projectcalico.org/v3" {
                        native
                    } else {
                        aggregated
                    },
                    1,
                    format!("Deployment `tigera-operator` with CALICO_API_GROUP={group}"),
                ),
                None => found(
                    None,
                    9,
                    "Deployment `tigera-operator` (no CALICO_API_GROUP: it decides from the API \
                     groups)"
                        .to_owned(),
                ),
            },
            "calico-apiserver" => found(
                aggregated,
                5,
                "Deployment `calico-apiserver` (the operator runs the Calico API server only on \
                 the v1 CRDs)"
                    .to_owned(),
            ),
            "calico-webhooks" => found(
                native,
                5,
                "Deployment `calico-webhooks` (the operator runs it only on the native CRDs)"
                    .to_owned(),
            ),
            _ => return None,
        },
        _ => return None,
    };
    Some((witness, true))
}

/// The operator Deployment's `CALICO_API_GROUP`, when a container sets it to a value.
fn operator_api_group(value: &Value) -> Option<&str> {
    value
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)?
        .iter()
        .filter_map(|container| container.get("env").and_then(Value::as_array))
        .flatten()
        .find(|env| env.get("name").and_then(Value::as_str) == Some("CALICO_API_GROUP"))
        .and_then(|env| env.get("value").and_then(Value::as_str))
        .filter(|group| !group.is_empty())
}

/// A diagnostic located at a witness points at its document; otherwise at `spec.apiMode`.
fn path(at: Option<&At>) -> &'static str {
    if at.is_some() { "" } else { "spec.apiMode" }
}

/// What to add to the input so that it decides.
const ADD: &str = "add `kubectl get apiservice v3.projectcalico.org -o yaml` (or `kubectl get crd \
                   -o yaml`) to the input, or say the mode with `--api-mode NativeV3` or \
                   `--api-mode Aggregated`";

/// Set `spec.apiMode` from `chosen` (`--api-mode`) or the witnesses, for a release that has
/// both modes; say what decided, or that nothing did where the release's default for an
/// unset mode is not what an existing cluster runs.
pub(super) fn decide(
    witnesses: &[Witness],
    chosen: Option<ApiMode>,
    release: &Release,
    cluster_network: &mut ClusterNetwork,
    report: &mut Report,
) {
    let decisive: Vec<&Witness> = witnesses.iter().filter(|w| w.mode.is_some()).collect();
    let best = decisive.iter().min_by_key(|w| w.rank).copied();
    let against = |mode: ApiMode| -> Vec<&Witness> {
        decisive
            .iter()
            .filter(|w| w.mode != Some(mode))
            .copied()
            .collect()
    };
    let named = |witnesses: &[&Witness]| -> String {
        witnesses
            .iter()
            .map(|w| format!("{} ({})", w.what, w.place()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !release.native_v3_crds {
        if decisive.iter().any(|w| w.mode == Some(ApiMode::NativeV3)) || chosen.is_some() {
            let at = best.map(|w| &w.at);
            report.push(
                &c::CN_IMPORT_API_MODE,
                at,
                path(at),
                format!(
                    "Calico {} has no native projectcalico.org/v3 CRDs: the ClusterNetwork \
                     leaves `apiMode` unset (the Calico API server)",
                    release.calico
                ),
                "import with the `--calico-version` the cluster runs",
            );
        }
        return;
    }
    let (mode, why) = match (chosen, best) {
        (Some(mode), _) => {
            let disagree = against(mode);
            let why = if disagree.is_empty() {
                "--api-mode".to_owned()
            } else {
                format!("--api-mode, against {}", named(&disagree))
            };
            (mode, why)
        }
        (None, Some(best)) => {
            let Some(mode) = best.mode else { return };
            let disagree = against(mode);
            let mut why = best.what.clone();
            if !disagree.is_empty() {
                why.push_str(&format!(
                    "; the operator decides from this first, so these are set aside: {}",
                    named(&disagree)
                ));
            }
            (mode, why)
        }
        (None, None) => {
            let behaviour = calico_spec::defaults::operator_behaviour(release);
            if behaviour.native_v3_for_new_installs {
                report.push(
                    &c::CN_IMPORT_API_MODE_UNDECIDED,
                    None,
                    "spec.apiMode",
                    format!(
                        "the live objects do not say which API mode the cluster runs; \
                         `apiMode` is left unset, which for Calico {} means NativeV3 (what its \
                         operator gives a new install), while a cluster upgraded from an \
                         earlier release keeps the Calico API server on the v1 CRDs \
                         (Aggregated)",
                        release.calico
                    ),
                    ADD,
                );
            }
            return;
        }
    };
    if mode == ApiMode::Aggregated && !cluster_network.spec.calico_api_server {
        let at = best.map(|w| &w.at);
        report.push(
            &c::CN_IMPORT_API_MODE,
            at,
            path(at),
            format!(
                "the cluster runs on the crd.projectcalico.org/v1 CRDs ({why}) without \
                 APIServer `default`, so nothing serves projectcalico.org/v3; a ClusterNetwork \
                 cannot say that: `apiMode` is left unset"
            ),
            "add the APIServer to the input if the cluster has one (`kubectl get apiserver \
             default -o yaml`)",
        );
        return;
    }
    cluster_network.spec.api_mode = Some(mode);
    let at = best.filter(|_| chosen.is_none()).map(|w| &w.at);
    report.push(
        &c::CN_IMPORT_API_MODE,
        at,
        path(at),
        format!("`apiMode: {}`, from {why}", mode.as_str()),
        "",
    );
}
