//! The keys the chart handles itself: keys it does not read, keys nested wrong, dotted keys
//! and values it ignores; and the chart's words for the catalogue's manifest hints.

use calico_spec::diag::Diagnostic;
use calico_spec::generated::operator_tigera_io::v1 as operator;
use calico_spec::generated::projectcalico_org::v3;
use calico_spec::release::Release;
use calico_spec::rules::catalogue as c;
use calico_spec::source::{join_key, parent_path};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{describe, new};
use crate::chart::{self, API_SERVER, FELIX, INSTALLATION, Origin, Role};

/// The keys the chart reads itself: top-level keys, and the fixed ones below them.
pub(super) fn check_keys(user: &Map<String, Value>, release: &Release, out: &mut Vec<Diagnostic>) {
    let top: Vec<&str> = chart::TOP_LEVEL.iter().map(|(key, _)| *key).collect();
    for (key, value) in user {
        let path = join_key("", key);
        match chart::role(key) {
            Some(Role::Section(_)) => {
                if !value.is_null() && !value.is_object() {
                    out.push(not_a_mapping(&path, value));
                }
            }
            Some(Role::Fixed(extra)) => {
                fixed_keys(
                    &path,
                    value,
                    chart::defaults_for(release).get(key.as_str()),
                    extra,
                    out,
                );
            }
            Some(Role::Free) => {}
            // A top-level key of this release's own values file (v3.30.7's
            // `kubeletVolumePluginPath`): the chart's, handed on as it is.
            None if chart::defaults_for(release).get(key.as_str()).is_some() => {}
            None => out.push(unknown_top_level(key, &path, value, &top)),
        }
    }
}

/// A mapping with fixed keys (`kubernetesServiceEndpoint`, `certs.node`, ...).
fn fixed_keys(
    path: &str,
    value: &Value,
    default: Option<&Value>,
    extra: &[&str],
    out: &mut Vec<Diagnostic>,
) {
    if value.is_null() {
        return;
    }
    let Some(map) = value.as_object() else {
        out.push(not_a_mapping(path, value));
        return;
    };
    let mut known: Vec<&str> = default
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|map| map.keys())
        .map(String::as_str)
        .collect();
    known.extend_from_slice(extra);
    for (key, child) in map {
        let child_path = join_key(path, key);
        if known.contains(&key.as_str()) {
            let child_default = default.and_then(|default| default.get(key.as_str()));
            if child_default.is_some_and(Value::is_object) {
                fixed_keys(&child_path, child, child_default, &[], out);
            }
            continue;
        }
        let head = key.split('.').next().unwrap_or(key);
        if key.contains('.') && known.contains(&head) {
            out.push(dotted(path, key, child));
        } else {
            out.push(new(
                &c::CHART_UNKNOWN_KEY,
                child_path,
                format!("the chart does not read `{key}` under `{path}`"),
                Some(suggest(key, &known)),
            ));
        }
    }
}

fn unknown_top_level(key: &str, path: &str, value: &Value, top: &[&str]) -> Diagnostic {
    let head = key.split('.').next().unwrap_or(key);
    if key.contains('.') && chart::role(head).is_some() {
        return dotted("", key, value);
    }
    let section = if is_field::<operator::InstallationSpec>(key) {
        Some("installation")
    } else if is_field::<operator::APIServerSpec>(key) {
        Some("apiServer")
    } else if is_field::<v3::FelixConfigurationSpec>(key) {
        Some("defaultFelixConfiguration")
    } else {
        None
    };
    let hint = match section {
        Some(section) => {
            let kind = chart::SECTIONS
                .iter()
                .find(|known| known.key == section)
                .map_or("", |known| known.kind);
            format!(
                "`{key}` is a field of the {kind}: the chart reads it under `{section}`, as `{section}.{key}`"
            )
        }
        None => suggest(key, top),
    };
    new(
        &c::CHART_UNKNOWN_KEY,
        path,
        format!("the chart does not read a top-level `{key}`"),
        Some(hint),
    )
}

/// A key with dots under `parent` (empty: the top level).
fn dotted(parent: &str, key: &str, value: &Value) -> Diagnostic {
    new(
        &c::CHART_DOTTED_KEY,
        join_key(parent, key),
        format!(
            "`{key}` is one key with dots in its name: only `helm --set` splits keys at dots, and the chart reads no such key"
        ),
        Some(format!("nest the keys: `{}`", nested(key, value))),
    )
}

/// `a.b.c` with value `v` -> `a: {b: {c: v}}`.
fn nested(key: &str, value: &Value) -> String {
    let parts: Vec<&str> = key.split('.').collect();
    let mut out = String::new();
    for (idx, part) in parts.iter().enumerate() {
        out.push_str(part);
        out.push_str(": ");
        if idx + 1 < parts.len() {
            out.push('{');
        }
    }
    out.push_str(&short(value));
    out.push_str(&"}".repeat(parts.len().saturating_sub(1)));
    out
}

/// A value as the user would write it in a hint.
fn short(value: &Value) -> String {
    match value {
        Value::String(text)
            if !text.is_empty()
                && text
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "-_./".contains(ch)) =>
        {
            text.clone()
        }
        Value::Array(_) | Value::Object(_) => "...".to_owned(),
        other => other.to_string(),
    }
}

/// "did you mean" among `known`, or the list of them.
fn suggest(key: &str, known: &[&str]) -> String {
    let close = known
        .iter()
        .map(|candidate| {
            let distance =
                strsim::levenshtein(&key.to_ascii_lowercase(), &candidate.to_ascii_lowercase());
            (distance, *candidate)
        })
        .filter(|(distance, candidate)| *distance <= 2.max(candidate.len() / 4))
        .min();
    match close {
        Some((_, candidate)) => format!("did you mean `{candidate}`?"),
        None => format!("the chart reads: {}", known.join(", ")),
    }
}

/// Whether `key` is a field of the generated type `T` (typing `{key: null}` does not fail on
/// an unknown field).
fn is_field<T: DeserializeOwned>(key: &str) -> bool {
    let mut probe = Map::new();
    probe.insert(key.to_owned(), Value::Null);
    match serde_json::from_value::<T>(Value::Object(probe)) {
        Ok(_) => true,
        Err(err) => !err.to_string().starts_with("unknown field"),
    }
}

/// Values the chart reads but ignores here.
pub(super) fn check_ignored(user: &Map<String, Value>, merged: &Value, out: &mut Vec<Diagnostic>) {
    for section in [INSTALLATION, API_SERVER, FELIX] {
        let Some(written) = user.get(section.key).and_then(Value::as_object) else {
            continue;
        };
        let ignored: Vec<String> = written
            .iter()
            .filter(|(key, value)| *key != "enabled" && !value.is_null())
            .map(|(key, _)| format!("`{}`", join_key(section.key, key)))
            .collect();
        let merged_section = merged.get(section.key);
        if ignored.is_empty()
            || !merged_section.is_some_and(Value::is_object)
            || chart::truthy(merged_section.and_then(|map| map.get("enabled")))
        {
            continue;
        }
        let by_user = written.get("enabled").is_some_and(|value| !value.is_null());
        let enabled = join_key(section.key, "enabled");
        out.push(new(
            &c::CHART_IGNORED_VALUE,
            if by_user {
                enabled.clone()
            } else {
                section.key.to_owned()
            },
            format!(
                "`{enabled}` is {}, so the chart renders no {} and ignores {}",
                if by_user {
                    "false"
                } else {
                    "false by the chart's default"
                },
                section.kind,
                ignored.join(", ")
            ),
            Some(format!("set `{enabled}: true`, or remove what it ignores")),
        ));
    }
    let endpoint = chart::ENDPOINT_KEY;
    // The chart's default port is no sign of intent: a copy of the chart's values.yaml has it.
    let default_port = chart::defaults()
        .get(endpoint)
        .and_then(|map| map.get("port"));
    let written_port = user
        .get(endpoint)
        .and_then(|map| map.get("port"))
        .is_some_and(|port| !port.is_null() && Some(port) != default_port);
    let host = merged.get(endpoint).and_then(|map| map.get("host"));
    if written_port && merged.get(endpoint).is_some_and(Value::is_object) && !chart::truthy(host) {
        out.push(new(
            &c::CHART_IGNORED_VALUE,
            join_key(endpoint, "port"),
            format!(
                "`{endpoint}.port` is ignored: the chart renders the `{}` ConfigMap only when `host` is set",
                chart::ENDPOINT_CONFIG_MAP
            ),
            Some(format!(
                "set `{endpoint}.host` to the API server's address (a VIP or DNS name), or remove `port`"
            )),
        ));
    }
}

/// Hints of the rule catalogue that name manifests, said in chart values instead.
pub(super) fn chart_hint(code: &str) -> Option<&'static str> {
    if code == c::LINT_BPF_WITHOUT_ENDPOINT.code {
        Some(
            "set `kubernetesServiceEndpoint.host` and `port` to the API server's real address \
             (or set `installation.calicoNetwork.bpfNetworkBootstrap: Enabled`)",
        )
    } else if code == c::BPF_BOOTSTRAP_WITH_ENDPOINT.code {
        Some(
            "clear `kubernetesServiceEndpoint.host` (the chart then renders no ConfigMap), or \
             remove `bpfNetworkBootstrap`",
        )
    } else if code == c::ENDPOINT_PAIR.code {
        Some("set both `kubernetesServiceEndpoint.host` and `kubernetesServiceEndpoint.port`")
    } else {
        None
    }
}

/// Keys that are not spec fields but were written inside a section.
const OBJECT_KEYS: [&str; 5] = ["spec", "apiVersion", "kind", "metadata", "status"];

/// Turn an unknown field of a rendered object into CR9002 when it is a nesting mistake.
/// `user` is the values as written, to quote a dotted key's value in the hint.
pub(super) fn nesting(
    origin: &Origin,
    object_path: &str,
    user: &Map<String, Value>,
    diag: &mut Diagnostic,
) {
    let Origin::Section { section, .. } = origin else {
        return;
    };
    let Some((parent, key)) = split_last_key(object_path) else {
        return;
    };
    let (message, hint) = if key.contains('.') {
        // The value is known for a key directly under the section; deeper ones are elided.
        let written = (parent == "spec")
            .then(|| user.get(section.key).and_then(|map| map.get(&key)))
            .flatten()
            .cloned()
            .unwrap_or_else(|| Value::String("...".into()));
        (
            format!(
                "`{key}` is one key with dots in its name: the chart writes it into the {} as one unknown field",
                section.kind
            ),
            format!("nest the keys: `{}`", nested(&key, &written)),
        )
    } else if parent == "spec" && OBJECT_KEYS.contains(&key.as_str()) {
        let section_key = section.key;
        if key == "spec" {
            (
                format!(
                    "`{section_key}.spec`: the chart writes `{section_key}` itself as the {}'s spec, so this becomes `spec.spec`",
                    section.kind
                ),
                format!(
                    "move the fields under `{section_key}.spec` up one level, directly under `{section_key}`"
                ),
            )
        } else {
            (
                format!(
                    "`{section_key}.{key}`: the chart writes the {}'s {key} itself; here it becomes the unknown field `spec.{key}`",
                    section.kind
                ),
                format!("remove `{key}`: only spec fields go under `{section_key}`"),
            )
        }
    } else if parent == "spec"
        && *section == INSTALLATION
        && is_field::<operator::InstallationSpecCalicoNetwork>(&key)
    {
        (
            format!(
                "`{key}` is a `calicoNetwork` field: directly under `installation` it is an unknown Installation field"
            ),
            format!("move it to `installation.calicoNetwork.{key}`"),
        )
    } else {
        return;
    };
    diag.code = c::CHART_NESTING.code;
    diag.severity = c::CHART_NESTING.severity;
    diag.message = message;
    diag.hint = Some(hint);
}

/// `spec.calicoNetwork.bgp` -> (`spec.calicoNetwork`, `bgp`); `spec["a.b"]` -> (`spec`, `a.b`);
/// `None` for a list index or the root.
fn split_last_key(path: &str) -> Option<(&str, String)> {
    let parent = parent_path(path)?;
    let tail = &path[parent.len()..];
    let key = match tail.strip_prefix('[') {
        Some(bracketed) => serde_json::from_str::<String>(bracketed.strip_suffix(']')?).ok()?,
        None => tail.strip_prefix('.').unwrap_or(tail).to_owned(),
    };
    Some((parent, key))
}

fn not_a_mapping(path: &str, value: &Value) -> Diagnostic {
    new(
        &c::WRONG_TYPE,
        path,
        format!("expected a mapping, found {}", describe(value)),
        Some("the chart's templates read keys below this one; Helm fails on anything else".into()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_keys() {
        assert_eq!(
            split_last_key("spec.calicoNetwork.bgp"),
            Some(("spec.calicoNetwork", "bgp".to_owned()))
        );
        assert_eq!(
            split_last_key("spec[\"calicoNetwork.bgp\"]"),
            Some(("spec", "calicoNetwork.bgp".to_owned()))
        );
        assert_eq!(split_last_key("spec"), Some(("", "spec".to_owned())));
        assert_eq!(split_last_key("spec.ipPools[0]"), None);
        assert_eq!(split_last_key(""), None);
    }

    #[test]
    fn nested_hints() {
        assert_eq!(
            nested("installation.calicoNetwork.bgp", &Value::from("Enabled")),
            "installation: {calicoNetwork: {bgp: Enabled}}"
        );
        assert_eq!(nested("a", &Value::from(3)), "a: 3");
        assert_eq!(nested("a.b", &Value::from("x y")), "a: {b: \"x y\"}");
    }

    #[test]
    fn generated_fields_are_probed() {
        assert!(is_field::<operator::InstallationSpec>("calicoNetwork"));
        assert!(!is_field::<operator::InstallationSpec>("bgp"));
        assert!(is_field::<operator::InstallationSpecCalicoNetwork>("bgp"));
        assert!(is_field::<v3::FelixConfigurationSpec>("bpfLogLevel"));
    }
}
