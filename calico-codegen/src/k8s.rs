//! Reuse of k8s-openapi types for core Kubernetes shapes embedded in CRDs.
//!
//! Operator CRDs embed pod-template pieces (tolerations, affinity, resources, env, ...).
//! Generating a private copy of each would multiply the struct count and make the types
//! incompatible with the rest of the Kubernetes ecosystem, so such nodes map to the
//! k8s-openapi type instead, but only after a structural check:
//!
//! 1. the property name that holds the node is in [`CANDIDATES`] (a hint, never enough alone);
//! 2. every property the CRD declares exists in the k8s-openapi type's JSON schema (from its
//!    `schemars::JsonSchema` impl) with a compatible type, recursively, so no CRD field can
//!    be dropped on deserialization;
//! 3. every property the k8s-openapi type requires is required by the CRD too, so every
//!    object the CRD accepts deserializes;
//! 4. the CRD declares at least two thirds of the type's top-level properties, so a small
//!    custom struct that happens to share two field names (the operator's container override
//!    `{name, resources}` against `Container`) is not mistaken for the core type.
//!
//! The k8s-openapi type may have fields the CRD lacks (a newer Kubernetes minor); the API
//! server prunes those, which is documented as the one relaxation of strictness.

use k8s_openapi::schemars::{self, JsonSchema};
use serde_json::Value;

use crate::ir::{Schema, SchemaType};

/// A k8s-openapi type the engine may substitute.
#[derive(Debug, Clone, Copy)]
pub struct K8sType {
    /// Full Rust path of the type.
    pub path: &'static str,
    /// Its JSON schema, with subschemas inlined.
    pub schema: fn() -> Value,
}

fn schema_of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    generator.into_root_schema_for::<T>().to_value()
}

macro_rules! k8s {
    ($path:literal, $ty:ty) => {
        K8sType {
            path: $path,
            schema: schema_of::<$ty>,
        }
    };
}

/// Property names that hint at a core shape, with the candidate types to verify, in order.
/// For array properties the candidate describes the item.
pub const CANDIDATES: &[(&str, &[K8sType])] = {
    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
    &[
        (
            "affinity",
            &[k8s!("k8s_openapi::api::core::v1::Affinity", core::Affinity)],
        ),
        (
            "conditions",
            &[k8s!(
                "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
                meta::Condition
            )],
        ),
        (
            "containers",
            &[k8s!(
                "k8s_openapi::api::core::v1::Container",
                core::Container
            )],
        ),
        (
            "dnsConfig",
            &[k8s!(
                "k8s_openapi::api::core::v1::PodDNSConfig",
                core::PodDNSConfig
            )],
        ),
        (
            "env",
            &[k8s!("k8s_openapi::api::core::v1::EnvVar", core::EnvVar)],
        ),
        (
            "envFrom",
            &[k8s!(
                "k8s_openapi::api::core::v1::EnvFromSource",
                core::EnvFromSource
            )],
        ),
        (
            "hostAliases",
            &[k8s!(
                "k8s_openapi::api::core::v1::HostAlias",
                core::HostAlias
            )],
        ),
        (
            "imagePullSecrets",
            &[k8s!(
                "k8s_openapi::api::core::v1::LocalObjectReference",
                core::LocalObjectReference
            )],
        ),
        (
            "initContainers",
            &[k8s!(
                "k8s_openapi::api::core::v1::Container",
                core::Container
            )],
        ),
        (
            "lifecycle",
            &[k8s!(
                "k8s_openapi::api::core::v1::Lifecycle",
                core::Lifecycle
            )],
        ),
        (
            "livenessProbe",
            &[k8s!("k8s_openapi::api::core::v1::Probe", core::Probe)],
        ),
        (
            "nodeAffinity",
            &[k8s!(
                "k8s_openapi::api::core::v1::NodeAffinity",
                core::NodeAffinity
            )],
        ),
        (
            "podAffinity",
            &[k8s!(
                "k8s_openapi::api::core::v1::PodAffinity",
                core::PodAffinity
            )],
        ),
        (
            "podAntiAffinity",
            &[k8s!(
                "k8s_openapi::api::core::v1::PodAntiAffinity",
                core::PodAntiAffinity
            )],
        ),
        (
            "ports",
            &[k8s!(
                "k8s_openapi::api::core::v1::ContainerPort",
                core::ContainerPort
            )],
        ),
        (
            "readinessProbe",
            &[k8s!("k8s_openapi::api::core::v1::Probe", core::Probe)],
        ),
        (
            "resourceRequirements",
            &[k8s!(
                "k8s_openapi::api::core::v1::ResourceRequirements",
                core::ResourceRequirements
            )],
        ),
        (
            "resources",
            &[k8s!(
                "k8s_openapi::api::core::v1::ResourceRequirements",
                core::ResourceRequirements
            )],
        ),
        (
            "securityContext",
            &[
                k8s!(
                    "k8s_openapi::api::core::v1::SecurityContext",
                    core::SecurityContext
                ),
                k8s!(
                    "k8s_openapi::api::core::v1::PodSecurityContext",
                    core::PodSecurityContext
                ),
            ],
        ),
        (
            "selector",
            &[k8s!(
                "k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector",
                meta::LabelSelector
            )],
        ),
        (
            "startupProbe",
            &[k8s!("k8s_openapi::api::core::v1::Probe", core::Probe)],
        ),
        (
            "tolerations",
            &[k8s!(
                "k8s_openapi::api::core::v1::Toleration",
                core::Toleration
            )],
        ),
        (
            "topologySpreadConstraints",
            &[k8s!(
                "k8s_openapi::api::core::v1::TopologySpreadConstraint",
                core::TopologySpreadConstraint
            )],
        ),
        (
            "volumeMounts",
            &[k8s!(
                "k8s_openapi::api::core::v1::VolumeMount",
                core::VolumeMount
            )],
        ),
        (
            "volumes",
            &[k8s!("k8s_openapi::api::core::v1::Volume", core::Volume)],
        ),
    ]
};

/// The candidate types for a property: an exact entry of [`CANDIDATES`], or one whose name
/// ends the property's name (`controlPlaneTolerations` -> `tolerations`).
pub fn candidates(property: &str) -> &'static [K8sType] {
    let exact = CANDIDATES.iter().find(|(name, _)| *name == property);
    let suffix = || {
        CANDIDATES.iter().find(|(name, _)| {
            let mut chars = name.chars();
            let capitalised: String = chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
                .collect();
            property.len() > name.len() && property.ends_with(&capitalised)
        })
    };
    exact.or_else(suffix).map_or(&[], |(_, types)| types)
}

/// The full check for a substitution root: structure, required fields and coverage.
pub fn verifies(schema: &Schema, k8s: &Value) -> bool {
    let SchemaType::Object { properties, .. } = &schema.ty else {
        return false;
    };
    let Some(k8s_props) = k8s.get("properties").and_then(Value::as_object) else {
        return false;
    };
    let covered = properties.len() * 3 >= k8s_props.len() * 2;
    covered && compatible(schema, k8s)
}

fn k8s_type(k8s: &Value) -> Option<&str> {
    match k8s.get("type") {
        Some(Value::String(t)) => Some(t),
        // schemars writes `["string", "null"]` for nullable values.
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

/// True when every value the CRD node accepts deserializes into the k8s type without loss.
fn compatible(schema: &Schema, k8s: &Value) -> bool {
    let k8s_int_or_string = k8s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    match &schema.ty {
        SchemaType::IntOrString => k8s_int_or_string,
        SchemaType::String => k8s_type(k8s) == Some("string") || k8s_int_or_string,
        SchemaType::Integer => {
            // An int64 CRD field must not land in an int32 Rust field.
            let narrower = k8s.get("format").and_then(Value::as_str) == Some("int32")
                && schema.constraints.format.as_deref() != Some("int32");
            (k8s_type(k8s) == Some("integer") && !narrower) || k8s_int_or_string
        }
        SchemaType::Number => k8s_type(k8s) == Some("number"),
        SchemaType::Boolean => k8s_type(k8s) == Some("boolean"),
        SchemaType::Any { .. } => false,
        SchemaType::Array(items) => {
            k8s_type(k8s) == Some("array") && k8s.get("items").is_some_and(|i| compatible(items, i))
        }
        SchemaType::Object {
            properties,
            additional,
        } => {
            if k8s_type(k8s) != Some("object") {
                return false;
            }
            if let Some(additional) = additional {
                return k8s
                    .get("additionalProperties")
                    .is_some_and(|a| a.is_object() && compatible(additional, a));
            }
            let empty = serde_json::Map::new();
            let k8s_props = k8s
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let all_known = properties.iter().all(|prop| {
                k8s_props
                    .get(&prop.name)
                    .is_some_and(|k| compatible(&prop.schema, k))
            });
            let k8s_required = k8s.get("required").and_then(Value::as_array);
            let required_ok = k8s_required.is_none_or(|req| {
                req.iter()
                    .filter_map(Value::as_str)
                    .all(|name| properties.iter().any(|p| p.name == name && p.required))
            });
            all_known && required_ok
        }
    }
}
