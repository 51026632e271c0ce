//! Values for the official `tigera-operator` Helm chart that make it render our objects.
//!
//! The chart (Calico v3.32.1, its `templates/`) renders the Installation from
//! `installation` (minus `enabled`), the APIServer from `apiServer`, the endpoint ConfigMap from
//! `kubernetesServiceEndpoint` (only when `host` is set), and FelixConfiguration `default` from
//! `defaultFelixConfiguration` (minus `enabled`). Everything else we render (BGPConfiguration,
//! BGPPeer, projectcalico.org/v3 IPPools, FelixConfiguration other than `default`) has no place in
//! the chart's values: it is returned as extra objects, to be applied after the chart or added
//! by `calico-render post-render`.
//!
//! The values are per release ([`to_chart_values_for`]): each release's chart has its own
//! defaults (`chart::VALUES_FILES`), and only the keys of that release's values file are
//! cleared, so the values name no key the release's chart lacks. The templates described here
//! are v3.32.1's.
//!
//! The chart ships defaults of its own under `installation` (`kubeletVolumePluginPath: None`,
//! `controlPlaneReplicas: 2`, `nonPrivileged: Disabled`, ...). A default our Installation does
//! not set is cleared with `null`, which Helm reads as "delete this key", so the rendered
//! Installation holds exactly our fields. The chart also renders Goldmane and Whisker by
//! default (metadata only): `goldmane.enabled` and `whisker.enabled` are true exactly when our
//! bundle holds them with an empty spec (`goldmane: true` / `whisker: true`); one with a spec
//! (from overrides) is an extra object and the chart's own is turned off.
//!
//! How the chart's output still differs from our objects, by construction of its templates:
//! the Installation always carries `imagePullSecrets` (an empty list when there are none), the
//! ConfigMap lands in the release namespace, and an offline `helm template` writes
//! FelixConfiguration with `apiVersion: crd.projectcalico.org/v1`. [`ChartValues::notes`] says
//! so where it matters.

use serde_json::{Map, Value};

use calico_spec::release::Release;

use crate::chart::{self, ENDPOINT_CONFIG_MAP, ENDPOINT_KEY, ENDPOINT_VALUES, FELIX, INSTALLATION};
use crate::merge::str_at;
use crate::yaml::{self, EmitError};

/// Values for the chart, plus what the chart cannot express.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartValues {
    /// The chart release the values are for (`v3.32.1`).
    pub chart_version: &'static str,
    /// The values file content.
    pub values: Value,
    /// Our objects the chart cannot render, in bundle order.
    pub extra: Vec<Value>,
    /// Things the user must know when installing with these values.
    pub notes: Vec<String>,
}

/// Map our objects (bundle order, as JSON values) to chart values for the newest release's
/// chart.
pub fn to_chart_values(objects: &[Value]) -> ChartValues {
    to_chart_values_for(Release::default_target(), objects)
}

/// Map our objects to values for `release`'s chart: the chart defaults cleared are those of
/// that release's values file, so the values hold only keys that chart has.
pub fn to_chart_values_for(release: &Release, objects: &[Value]) -> ChartValues {
    let mut values = Map::new();
    let mut extra = Vec::new();
    let mut notes = Vec::new();
    if let Some(provenance) = release.provenance {
        notes.push(format!(
            "the chart's keys and defaults for {} are {provenance}",
            release.minor
        ));
    }
    let mut endpoint: Option<Map<String, Value>> = None;

    for object in objects {
        let api_version = str_at(object, &["apiVersion"]);
        let kind = str_at(object, &["kind"]);
        let name = str_at(object, &["metadata", "name"]);
        let spec = object
            .get("spec")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        // The chart renders each section's object once, named `default`; Goldmane and Whisker
        // only as metadata, so only with an empty spec.
        let empty_spec = spec.as_object().is_some_and(Map::is_empty);
        let section = chart::SECTIONS.iter().find(|section| {
            (section.spec || empty_spec)
                && (section.api_version, section.kind, "default") == (api_version, kind, name)
                && !values.contains_key(section.key)
        });
        if let Some(section) = section {
            let entry = if *section == INSTALLATION {
                installation_values(release, spec)
            } else {
                enabled_with(spec)
            };
            values.insert(section.key.to_owned(), entry);
            if *section == FELIX {
                notes.push(
                    "the chart writes FelixConfiguration `default` with apiVersion \
                     crd.projectcalico.org/v1 unless the projectcalico.org/v3 CRD exists when it \
                     renders (helm install with cluster access); both name the same object"
                        .to_owned(),
                );
            }
            continue;
        }
        match (api_version, kind, name) {
            ("v1", "ConfigMap", ENDPOINT_CONFIG_MAP) if endpoint.is_none() => {
                let data = object
                    .get("data")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let namespace = str_at(object, &["metadata", "namespace"]);
                if data
                    .keys()
                    .all(|key| ENDPOINT_VALUES.iter().any(|(_, data_key)| key == data_key))
                {
                    notes.push(format!(
                        "the chart writes ConfigMap {ENDPOINT_CONFIG_MAP} into the release \
                         namespace: install the chart with --namespace {namespace}"
                    ));
                    endpoint = Some(data);
                } else {
                    // The chart templates only the host-network pair of keys; the pod-network
                    // pair would be lost, so the whole ConfigMap stays ours.
                    notes.push(format!(
                        "ConfigMap {ENDPOINT_CONFIG_MAP} has keys the chart cannot template \
                         (only {} are): it is listed as an extra object and the chart's own is \
                         turned off",
                        ENDPOINT_VALUES.map(|(_, data_key)| data_key).join(" and ")
                    ));
                    extra.push(object.clone());
                }
            }
            _ => {
                notes.push(format!(
                    "{kind} `{name}` ({api_version}) has no chart value: apply it after the chart \
                     or add it with `calico-render post-render`"
                ));
                extra.push(object.clone());
            }
        }
    }

    // A section we have no object for is disabled: Goldmane and Whisker, which the chart would
    // add by default, stay off unless the ClusterNetwork says `goldmane: true` / `whisker: true`.
    for section in chart::SECTIONS {
        values
            .entry(section.key.to_owned())
            .or_insert_with(disabled);
    }
    let mut endpoint_values = Map::new();
    match endpoint {
        Some(data) => {
            for (key, data_key) in ENDPOINT_VALUES {
                let value = data
                    .get(data_key)
                    .cloned()
                    .unwrap_or(Value::String(String::new()));
                endpoint_values.insert(key.to_owned(), value);
            }
        }
        None => {
            endpoint_values.insert("host".to_owned(), Value::String(String::new()));
        }
    }
    values.insert(ENDPOINT_KEY.to_owned(), Value::Object(endpoint_values));
    ChartValues {
        chart_version: release.calico,
        values: Value::Object(values),
        extra,
        notes,
    }
}

fn disabled() -> Value {
    let mut map = Map::new();
    map.insert("enabled".to_owned(), Value::Bool(false));
    Value::Object(map)
}

fn enabled_with(spec: Value) -> Value {
    let mut map = match spec {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.insert("enabled".to_owned(), Value::Bool(true));
    Value::Object(map)
}

fn installation_values(release: &Release, spec: Value) -> Value {
    let mut values = enabled_with(spec);
    if let Some(map) = values.as_object_mut() {
        // The chart's defaults under `installation` are cleared when we do not set them, except
        // `imagePullSecrets`: the chart's template appends to it, so it gets an empty list.
        map.entry("imagePullSecrets".to_owned())
            .or_insert(Value::Array(Vec::new()));
        for key in chart::installation_default_keys_for(release) {
            map.entry(key.to_owned()).or_insert(Value::Null);
        }
    }
    values
}

/// The values as a YAML file: a comment block with the notes and the extra objects, then the
/// values. Helm ignores the comments.
///
/// # Errors
/// [`EmitError`] when the values cannot be written (a bug in calico-render).
pub fn to_values_yaml(chart: &ChartValues) -> Result<String, EmitError> {
    let mut out = format!(
        "# Values for the tigera-operator Helm chart {}, written by calico-render.\n",
        chart.chart_version
    );
    for note in &chart.notes {
        out.push_str("# - ");
        out.push_str(note);
        out.push('\n');
    }
    out.push_str(&yaml::to_yaml(&chart.values)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn chart_defaults_are_cleared_and_extras_listed() {
        let objects = [
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "kubernetes-services-endpoint", "namespace": "tigera-operator"},
                   "data": {"KUBERNETES_SERVICE_HOST": "api.example", "KUBERNETES_SERVICE_PORT": "6443"}}),
            json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
                   "metadata": {"name": "default"},
                   "spec": {"controlPlaneReplicas": 3, "calicoNetwork": {"linuxDataplane": "BPF"}}}),
            json!({"apiVersion": "projectcalico.org/v3", "kind": "BGPConfiguration",
                   "metadata": {"name": "default"}, "spec": {"asNumber": 64512}}),
        ];
        let chart = to_chart_values(&objects);
        assert_eq!(
            chart.values,
            json!({
                "installation": {
                    "enabled": true, "controlPlaneReplicas": 3,
                    "calicoNetwork": {"linuxDataplane": "BPF"},
                    "kubeletVolumePluginPath": null, "kubernetesProvider": null,
                    "controlPlaneNodeSelector": null, "controlPlaneTolerations": null,
                    "nonPrivileged": null, "imagePullSecrets": []
                },
                "apiServer": {"enabled": false},
                "defaultFelixConfiguration": {"enabled": false},
                "goldmane": {"enabled": false},
                "whisker": {"enabled": false},
                "kubernetesServiceEndpoint": {"host": "api.example", "port": "6443"}
            })
        );
        assert_eq!(chart.extra, vec![objects[2].clone()]);
        assert_eq!(chart.notes.len(), 2, "{:?}", chart.notes);
    }

    /// Goldmane and Whisker: on in the chart exactly when ours has an empty spec (the chart
    /// writes them as metadata only); one with a spec stays ours and the chart's is off.
    #[test]
    fn goldmane_and_whisker_follow_the_bundle() {
        let object = |kind: &str, spec: Value| {
            json!({"apiVersion": "operator.tigera.io/v1", "kind": kind,
                   "metadata": {"name": "default"}, "spec": spec})
        };
        let cases = [
            (vec![], false, false, 0),
            (vec![object("Goldmane", json!({}))], true, false, 0),
            (
                vec![object("Goldmane", json!({})), object("Whisker", json!({}))],
                true,
                true,
                0,
            ),
            (
                vec![object("Whisker", json!({"notifications": "Disabled"}))],
                false,
                false,
                1,
            ),
        ];
        for (objects, goldmane, whisker, extra) in cases {
            let chart = to_chart_values(&objects);
            assert_eq!(
                chart.values["goldmane"],
                json!({"enabled": goldmane}),
                "{objects:?}"
            );
            assert_eq!(
                chart.values["whisker"],
                json!({"enabled": whisker}),
                "{objects:?}"
            );
            assert_eq!(chart.extra.len(), extra, "{objects:?}");
        }
    }

    #[test]
    fn pod_network_keys_keep_the_config_map_ours() {
        let objects = [json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kubernetes-services-endpoint", "namespace": "tigera-operator"},
            "data": {"KUBERNETES_SERVICE_HOST": "a", "KUBERNETES_SERVICE_PORT": "6443",
                     "KUBERNETES_SERVICE_HOST_POD_NETWORK": "b", "KUBERNETES_SERVICE_PORT_POD_NETWORK": "443"}})];
        let chart = to_chart_values(&objects);
        assert_eq!(
            chart.values["kubernetesServiceEndpoint"],
            json!({"host": ""})
        );
        assert_eq!(chart.extra.len(), 1);
    }
}
