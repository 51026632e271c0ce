//! The `kubectl patch` command line for an object patch, quoted for POSIX shells.

use super::object::ObjectId;
use super::{ObjectPatch, PatchError, patch_to_json};

/// Resource names `kubectl patch` is given, by (apiVersion, kind).
///
/// The Installation uses the short name the article and upstream docs use; every other custom
/// resource is fully qualified so that kubectl never resolves it to another group (for Calico
/// kinds, the crd.projectcalico.org backing group, whose writes bypass validation).
const RESOURCES: &[(&str, &str, &str)] = &[
    ("v1", "ConfigMap", "configmap"),
    ("operator.tigera.io/v1", "Installation", "installation"),
    (
        "operator.tigera.io/v1",
        "APIServer",
        "apiservers.operator.tigera.io",
    ),
    (
        "operator.tigera.io/v1",
        "Goldmane",
        "goldmanes.operator.tigera.io",
    ),
    (
        "operator.tigera.io/v1",
        "Whisker",
        "whiskers.operator.tigera.io",
    ),
    (
        "projectcalico.org/v3",
        "FelixConfiguration",
        "felixconfigurations.projectcalico.org",
    ),
    (
        "projectcalico.org/v3",
        "BGPConfiguration",
        "bgpconfigurations.projectcalico.org",
    ),
    (
        "projectcalico.org/v3",
        "BGPPeer",
        "bgppeers.projectcalico.org",
    ),
    (
        "projectcalico.org/v3",
        "IPPool",
        "ippools.projectcalico.org",
    ),
    (
        "projectcalico.org/v3",
        "IPReservation",
        "ipreservations.projectcalico.org",
    ),
];

/// The resource name `kubectl patch` takes for this object, if the kind is known.
pub fn kubectl_resource(id: &ObjectId) -> Option<&'static str> {
    RESOURCES
        .iter()
        .find(|(api_version, kind, _)| *api_version == id.api_version && *kind == id.kind)
        .map(|(_, _, resource)| *resource)
}

/// The fully qualified projectcalico.org resource name of a Calico kind, for messages about
/// objects read through the backing group (`IPPool` -> `ippools.projectcalico.org`).
pub(crate) fn calico_resource(kind: &str) -> String {
    RESOURCES
        .iter()
        .find(|(api_version, known, _)| *api_version == "projectcalico.org/v3" && *known == kind)
        .map_or_else(
            || format!("{}s.projectcalico.org", kind.to_ascii_lowercase()),
            |(_, _, resource)| (*resource).to_owned(),
        )
}

/// The supported kinds, for error messages.
pub(crate) fn supported_kinds() -> String {
    RESOURCES
        .iter()
        .map(|(api_version, kind, _)| format!("{api_version} {kind}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The complete `kubectl patch ... --type=json -p '...'` command line for `patch`.
pub fn kubectl_command(patch: &ObjectPatch) -> Result<String, PatchError> {
    let id = patch.id();
    let Some(resource) = kubectl_resource(id) else {
        return Err(PatchError::UnsupportedKind {
            id: Box::new(id.clone()),
        });
    };
    let mut command = format!("kubectl patch {resource} {}", shell_quote(&id.name));
    if let Some(namespace) = &id.namespace {
        command.push_str(&format!(" -n {}", shell_quote(namespace)));
    }
    command.push_str(" --type=json -p ");
    command.push_str(&shell_quote(&patch_to_json(patch.patch())));
    Ok(command)
}

/// Quote `text` as one word for a POSIX shell.
///
/// Words made only of characters no shell treats specially are left bare; anything else is
/// put in single quotes, where only the single quote itself needs care (`'\''`).
/// The JSON of a patch is always quoted, since it holds `"`, `[` and `{`.
pub fn shell_quote(text: &str) -> String {
    let bare = !text.is_empty()
        && text.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | '@' | '%' | '+' | ',')
        });
    if bare {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}
