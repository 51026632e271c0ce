//! A quick, allocation-free answer to "would the typed pass accept this document?" for the
//! kinds a stream carries by the thousand (projectcalico.org/v3 IPPools), so that the typed
//! pass, which builds and drops an owned copy of the whole object, runs only when it has
//! something to report.
//!
//! The answer is one-sided: `true` means the generated type certainly deserializes the value;
//! `false` means "not sure", and the caller runs the typed pass as before. A shape therefore
//! lists a subset of what the generated type accepts (fields it does not list, `status`, and
//! k8s-openapi fields with parsed values such as timestamps are left to the typed pass), and
//! every diagnostic still comes from the typed pass. The tests below hold each shape to that
//! promise against the generated type itself: every field of a full document replaced by every
//! kind of JSON value, removed, or joined by an unknown sibling, and the shape must never say
//! `true` where the generated type fails.

use serde_json::Value;

/// The JSON a field must hold for the shape to vouch for it.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// Any string.
    Str,
    /// This exact string.
    Exactly(&'static str),
    /// A boolean.
    Bool,
    /// An integer that fits an `i64` (serde refuses floats and larger integers for `i64`).
    Int,
    /// A sequence of strings.
    StrList,
    /// A mapping of strings to strings.
    StrMap,
    /// A mapping with exactly these fields.
    Object(&'static [Field]),
}

/// Whether a field may be absent or null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// Must be present and not null (a plain field of the generated type).
    Required,
    /// May be absent, but not null (a `#[serde(default)]` field).
    Defaulted,
    /// May be absent or null (an `Option` field).
    Optional,
}

/// One field of a shape: its wire name, its JSON kind and whether it may be left out.
#[derive(Debug, Clone, Copy)]
struct Field {
    name: &'static str,
    kind: Kind,
    presence: Presence,
}

const fn field(name: &'static str, kind: Kind, presence: Presence) -> Field {
    Field {
        name,
        kind,
        presence,
    }
}

/// The `metadata` fields a manifest usually carries, with k8s-openapi's `ObjectMeta` types.
const METADATA: &[Field] = &[
    field("name", Kind::Str, Presence::Optional),
    field("generateName", Kind::Str, Presence::Optional),
    field("namespace", Kind::Str, Presence::Optional),
    field("uid", Kind::Str, Presence::Optional),
    field("resourceVersion", Kind::Str, Presence::Optional),
    field("generation", Kind::Int, Presence::Optional),
    field("labels", Kind::StrMap, Presence::Optional),
    field("annotations", Kind::StrMap, Presence::Optional),
    field("finalizers", Kind::StrList, Presence::Optional),
];

/// `projectcalico.org/v3` `IPPool` `spec`, as generated (string enums accept any string: an
/// unknown value is reported by the IPPool rules, not by the typed pass).
const IP_POOL_SPEC: &[Field] = &[
    field("cidr", Kind::Str, Presence::Required),
    field("allowedUses", Kind::StrList, Presence::Optional),
    field("assignmentMode", Kind::Str, Presence::Optional),
    field("blockSize", Kind::Int, Presence::Optional),
    field("disableBGPExport", Kind::Bool, Presence::Optional),
    field("disabled", Kind::Bool, Presence::Optional),
    field("ipipMode", Kind::Str, Presence::Optional),
    field("namespaceSelector", Kind::Str, Presence::Optional),
    field("natOutgoing", Kind::Bool, Presence::Optional),
    field("nodeSelector", Kind::Str, Presence::Optional),
    field("vxlanMode", Kind::Str, Presence::Optional),
];

/// A `projectcalico.org/v3` `IPPool` without `status`.
const IP_POOL: &[Field] = &[
    field(
        "apiVersion",
        Kind::Exactly("projectcalico.org/v3"),
        Presence::Required,
    ),
    field("kind", Kind::Exactly("IPPool"), Presence::Required),
    field("metadata", Kind::Object(METADATA), Presence::Defaulted),
    field("spec", Kind::Object(IP_POOL_SPEC), Presence::Required),
];

/// Whether the typed pass of a `projectcalico.org/v3` `IPPool` certainly accepts `value`
/// (`false`: not certain, run it).
pub(crate) fn ip_pool_is_typed(value: &Value) -> bool {
    object_fits(value, IP_POOL)
}

fn object_fits(value: &Value, fields: &[Field]) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    // Keys of a mapping are unique, so counting the required fields seen tells whether all are.
    let mut required_seen = 0usize;
    for (key, item) in map {
        let Some(field) = fields.iter().find(|field| field.name == key.as_str()) else {
            return false;
        };
        if item.is_null() {
            if field.presence == Presence::Optional {
                continue;
            }
            return false;
        }
        if !fits(item, field.kind) {
            return false;
        }
        if field.presence == Presence::Required {
            required_seen += 1;
        }
    }
    required_seen
        == fields
            .iter()
            .filter(|field| field.presence == Presence::Required)
            .count()
}

fn fits(value: &Value, kind: Kind) -> bool {
    match kind {
        Kind::Str => value.is_string(),
        Kind::Exactly(text) => value.as_str() == Some(text),
        Kind::Bool => value.is_boolean(),
        Kind::Int => value.as_i64().is_some(),
        Kind::StrList => value
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string)),
        Kind::StrMap => value
            .as_object()
            .is_some_and(|map| map.values().all(Value::is_string)),
        Kind::Object(fields) => object_fits(value, fields),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::*;
    use crate::generated::projectcalico_org::v3;

    fn typed(value: &Value) -> bool {
        v3::IPPool::deserialize(value).is_ok()
    }

    /// An IPPool that sets every field the shapes list.
    fn full_pool() -> Value {
        json!({
            "apiVersion": "projectcalico.org/v3",
            "kind": "IPPool",
            "metadata": {
                "name": "pool-a",
                "generateName": "pool-",
                "namespace": "",
                "uid": "0c3c5b9e-4a55-4d35-9a38-0b9c3f0f6c11",
                "resourceVersion": "42",
                "generation": 3,
                "labels": {"app": "calico"},
                "annotations": {"note": "x"},
                "finalizers": ["example.com/keep"],
            },
            "spec": {
                "cidr": "10.0.0.0/26",
                "allowedUses": ["Workload", "Tunnel"],
                "assignmentMode": "Automatic",
                "blockSize": 26,
                "disableBGPExport": false,
                "disabled": false,
                "ipipMode": "Never",
                "namespaceSelector": "",
                "natOutgoing": true,
                "nodeSelector": "all()",
                "vxlanMode": "CrossSubnet",
            },
        })
    }

    /// One value of every JSON kind, with the edges serde cares about (`i64` bounds, floats,
    /// null inside collections).
    fn replacements() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(0),
            json!(-1),
            json!(i64::MAX),
            json!(u64::MAX),
            json!(1.5),
            json!(""),
            json!("x"),
            json!("projectcalico.org/v3"),
            json!("IPPool"),
            json!([]),
            json!(["Workload"]),
            json!([null]),
            json!([1]),
            json!({}),
            json!({"a": "b"}),
            json!({"a": null}),
            json!({"a": 1}),
            json!({"cidr": "10.0.0.0/26"}),
        ]
    }

    /// Every JSON pointer to a node of `value` below the root.
    fn pointers(value: &Value, at: &str, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    let pointer = format!("{at}/{key}");
                    out.push(pointer.clone());
                    pointers(item, &pointer, out);
                }
            }
            Value::Array(items) => {
                for (idx, item) in items.iter().enumerate() {
                    let pointer = format!("{at}/{idx}");
                    out.push(pointer.clone());
                    pointers(item, &pointer, out);
                }
            }
            _ => {}
        }
    }

    /// The shape may say "not sure" where the typed pass accepts, never "accepted" where it
    /// fails.
    fn check(value: &Value, what: &str) {
        if ip_pool_is_typed(value) {
            assert!(
                typed(value),
                "the shape accepts what the typed pass refuses ({what}): {value}"
            );
        }
    }

    #[test]
    fn the_full_document_takes_the_quick_path() {
        let pool = full_pool();
        assert!(typed(&pool), "the generated type accepts the full pool");
        assert!(ip_pool_is_typed(&pool));
        let minimal = json!({
            "apiVersion": "projectcalico.org/v3",
            "kind": "IPPool",
            "spec": {"cidr": "10.0.0.0/26"},
        });
        assert!(typed(&minimal) && ip_pool_is_typed(&minimal));
    }

    #[test]
    fn never_vouches_for_what_the_typed_pass_refuses() {
        let base = full_pool();
        let mut all = Vec::new();
        pointers(&base, "", &mut all);
        for pointer in &all {
            for replacement in replacements() {
                let mut value = base.clone();
                if let Some(node) = value.pointer_mut(pointer) {
                    *node = replacement.clone();
                }
                check(&value, &format!("{pointer} = {replacement}"));
            }
            // Removed.
            let mut value = base.clone();
            if let Some((parent, key)) = pointer.rsplit_once('/')
                && let Some(node) = value.pointer_mut(parent)
            {
                match node {
                    Value::Object(map) => {
                        map.remove(key);
                    }
                    Value::Array(items) => {
                        if let Ok(idx) = key.parse::<usize>() {
                            items.remove(idx);
                        }
                    }
                    _ => {}
                }
            }
            check(&value, &format!("{pointer} removed"));
        }
        // An unknown field next to every known one, and at the root.
        for pointer in std::iter::once(String::new()).chain(all) {
            let mut value = base.clone();
            if let Some(Value::Object(map)) = value.pointer_mut(&pointer) {
                map.insert("unknownField".into(), json!("x"));
                check(&value, &format!("unknown field in `{pointer}`"));
            }
        }
        // Other documents of the run.
        for (what, value) in [
            ("a scalar", json!("IPPool")),
            ("a sequence", json!([base.clone()])),
            (
                "crd.projectcalico.org/v1",
                json!({"apiVersion": "crd.projectcalico.org/v1", "kind": "IPPool", "spec": {"cidr": "10.0.0.0/26"}}),
            ),
            (
                "spec as a sequence",
                json!({"apiVersion": "projectcalico.org/v3", "kind": "IPPool", "spec": ["10.0.0.0/26"]}),
            ),
        ] {
            check(&value, what);
        }
    }

    #[test]
    fn leaves_what_it_does_not_know_to_the_typed_pass() {
        let mut pool = full_pool();
        pool["metadata"]["creationTimestamp"] = json!("2024-01-01T00:00:00Z");
        assert!(typed(&pool));
        assert!(!ip_pool_is_typed(&pool));
        let mut pool = full_pool();
        pool["status"] = json!({});
        assert!(!ip_pool_is_typed(&pool));
    }
}
