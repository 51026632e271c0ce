//! Choices the spec does not speak about: a field of the desired object that only the
//! operator's write-back defaults put there, while the live object holds another value.
//!
//! A cluster installed with the official chart has `kubeletVolumePluginPath: None` and
//! `flexVolumePath: None`; a ClusterNetwork that never mentions them renders the operator's
//! defaults. Reverting the chart's choice would be a silent behaviour change, so such a field
//! is taken out of the desired object and reported instead ([`Unstated`]); `patch
//! --revert-unstated` skips this step. A field the live object lacks keeps its default (the
//! operator would write it anyway), and a field the spec states (vocabulary, overrides) is
//! always managed.

use std::fmt;

use serde_json::{Map, Value};

use super::object::flatten;

/// A live value kept because the spec is silent about the field.
#[derive(Debug, Clone, PartialEq)]
pub struct Unstated {
    /// `Kind name` of the object.
    pub object: String,
    /// The field path, e.g. `spec.kubeletVolumePluginPath`.
    pub path: String,
    /// What the live object holds.
    pub live: Value,
    /// What the rendering would set (the operator's default).
    pub default: Value,
}

impl fmt::Display for Unstated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LIVE {} sets {}: {} (the default is {}); your spec is silent, so it is left as it \
             is: add it to spec.overrides (--revert-unstated \
             reverts it)",
            self.object, self.path, self.live, self.default
        )
    }
}

/// `desired` without the fields that only defaults set where `live` holds another value, and
/// those fields. `stated` holds the objects as the spec states them (before the operator's
/// defaults); objects it does not hold are left as they are.
pub fn keep_unstated(
    desired: &[Value],
    stated: &[Value],
    live: &[Value],
) -> (Vec<Value>, Vec<Unstated>) {
    let live = flatten(live);
    let mut found = Vec::new();
    let mut out = Vec::with_capacity(desired.len());
    for object in desired {
        let mut object = object.clone();
        let id = identity(&object);
        let stated = stated.iter().find(|other| identity(other) == id);
        let live = live
            .iter()
            .map(AsRef::as_ref)
            .find(|other| identity(other) == id);
        let (kind, name) = (id.1, id.2);
        if let (Some(Value::Object(stated)), Some(Value::Object(live)), Value::Object(fields)) =
            (stated, live, &mut object)
        {
            let name = format!("{kind} {name}");
            let mut walk = Walk {
                object: &name,
                kind: &kind,
                found: &mut found,
            };
            for part in ["spec", "data"] {
                if let (Some(Value::Object(d)), Some(Value::Object(l))) =
                    (fields.get_mut(part), live.get(part))
                {
                    let s = stated.get(part).and_then(Value::as_object);
                    walk.map(part, d, s, l);
                }
            }
        }
        out.push(object);
    }
    (out, found)
}

fn identity(value: &Value) -> (String, String, String) {
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    (text("/apiVersion"), text("/kind"), text("/metadata/name"))
}

struct Walk<'a> {
    object: &'a str,
    kind: &'a str,
    found: &'a mut Vec<Unstated>,
}

impl Walk<'_> {
    fn map(
        &mut self,
        path: &str,
        desired: &mut Map<String, Value>,
        stated: Option<&Map<String, Value>>,
        live: &Map<String, Value>,
    ) {
        let keys: Vec<String> = desired.keys().cloned().collect();
        for key in keys {
            let child_path = format!("{path}.{key}");
            let stated_child = stated.and_then(|stated| stated.get(&key));
            let Some(live_child) = live.get(&key) else {
                continue;
            };
            let Some(desired_child) = desired.get_mut(&key) else {
                continue;
            };
            match (desired_child, stated_child, live_child) {
                (Value::Object(d), Some(Value::Object(s)), Value::Object(l)) => {
                    self.map(&child_path, d, Some(s), l);
                }
                (Value::Array(d), Some(Value::Array(s)), Value::Array(l))
                    if self.kind == "Installation"
                        && child_path == "spec.calicoNetwork.ipPools" =>
                {
                    for (idx, item) in d.iter_mut().enumerate() {
                        let name = item.get("name").cloned();
                        let by_name = |items: &[Value]| {
                            items
                                .iter()
                                .find(|other| name.is_some() && other.get("name") == name.as_ref())
                                .and_then(Value::as_object)
                                .cloned()
                        };
                        if let (Value::Object(item), Some(l)) = (item, by_name(l)) {
                            let s = by_name(s);
                            self.map(&format!("{child_path}[{idx}]"), item, s.as_ref(), &l);
                        }
                    }
                }
                (_, Some(_), _) => {}
                (Value::Object(d), None, Value::Object(l)) => self.map(&child_path, d, None, l),
                (desired_child, None, live_child) => {
                    if desired_child != live_child {
                        self.found.push(Unstated {
                            object: self.object.to_owned(),
                            path: child_path,
                            live: live_child.clone(),
                            default: desired_child.clone(),
                        });
                        desired.remove(&key);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_unstated_fields_that_differ_are_kept_live() {
        let head = json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation", "metadata": {"name": "default"}});
        let with = |spec: Value| {
            let mut object = head.clone();
            object["spec"] = spec;
            object
        };
        let desired = with(
            json!({"registry": "r/", "flexVolumePath": "/usr/libexec", "variant": "Calico",
            "calicoNetwork": {"ipPools": [{"name": "p", "cidr": "10.0.0.0/16", "assignmentMode": "Automatic"}]}}),
        );
        let stated = with(json!({"registry": "r/",
            "calicoNetwork": {"ipPools": [{"name": "p", "cidr": "10.0.0.0/16"}]}}));
        let live = with(json!({"registry": "other/", "flexVolumePath": "None",
            "calicoNetwork": {"ipPools": [{"name": "p", "cidr": "10.0.0.0/16", "assignmentMode": "Manual"}]}}));
        let (out, found) = keep_unstated(&[desired], &[stated], &[live]);
        assert_eq!(
            out[0]["spec"],
            json!({"registry": "r/", "variant": "Calico",
                   "calicoNetwork": {"ipPools": [{"name": "p", "cidr": "10.0.0.0/16"}]}})
        );
        let paths: Vec<&str> = found.iter().map(|u| u.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "spec.calicoNetwork.ipPools[0].assignmentMode",
                "spec.flexVolumePath",
            ]
        );
    }
}
