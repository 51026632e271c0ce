//! The wire objects calico-spec knows, as one enum in bundle order.
//!
//! [`Object`] is what `compile` produces and what the bundle writer, the patcher and the stream
//! adapters consume. Its variants are declared in bundle order (endpoint ConfigMap,
//! Installation, APIServer, Goldmane, Whisker, then the projectcalico.org/v3 kinds), and [`Object::rank`] gives that
//! order as a number so that sorting a bundle is one `sort_by_key`.
//!
//! Serializing an `Object` writes the wire form with a fixed key order: `apiVersion`, `kind`,
//! `metadata`, then `spec` (or `data`). k8s-openapi's own ConfigMap writes its keys
//! alphabetically (`data` before `metadata`), so the ConfigMap is written through a small
//! ordered view here rather than by k8s-openapi.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Serialize, Serializer};

use crate::generated::operator_tigera_io::v1;
use crate::generated::projectcalico_org::v3;

/// One object of a rendered bundle.
#[derive(Debug, Clone, PartialEq)]
// The Installation is 8 KiB inline (its status repeats the whole spec) and FelixConfiguration
// almost 4 KiB, so they are boxed: unboxed, every `Object` was 8 KiB, and each move, push and
// sort of a bundle copied that much. The variants left inline are at most 1.3 KiB (APIServer),
// which is not worth an allocation each.
#[allow(clippy::large_enum_variant)]
#[non_exhaustive]
pub enum Object {
    /// The `kubernetes-services-endpoint` ConfigMap in the operator's namespace.
    ConfigMap(ConfigMap),
    /// `operator.tigera.io/v1` Installation (`default`).
    Installation(Box<v1::Installation>),
    /// `operator.tigera.io/v1` APIServer (`default`).
    APIServer(v1::APIServer),
    /// `operator.tigera.io/v1` Goldmane (`default`), the flow aggregator (Calico v3.30 on).
    Goldmane(v1::Goldmane),
    /// `operator.tigera.io/v1` Whisker (`default`), the flow log UI (Calico v3.30 on).
    Whisker(v1::Whisker),
    /// `projectcalico.org/v3` FelixConfiguration.
    FelixConfiguration(Box<v3::FelixConfiguration>),
    /// `projectcalico.org/v3` BGPConfiguration.
    BGPConfiguration(v3::BGPConfiguration),
    /// `projectcalico.org/v3` BGPPeer.
    BGPPeer(v3::BGPPeer),
    /// `projectcalico.org/v3` IPPool.
    IPPool(v3::IPPool),
}

impl Object {
    /// The object's `apiVersion`.
    pub fn api_version(&self) -> &'static str {
        match self {
            Object::ConfigMap(_) => k8s_openapi::api_version(&ConfigMap::default()),
            Object::Installation(o) => k8s_openapi::api_version(&**o),
            Object::APIServer(o) => k8s_openapi::api_version(o),
            Object::Goldmane(o) => k8s_openapi::api_version(o),
            Object::Whisker(o) => k8s_openapi::api_version(o),
            Object::FelixConfiguration(o) => k8s_openapi::api_version(&**o),
            Object::BGPConfiguration(o) => k8s_openapi::api_version(o),
            Object::BGPPeer(o) => k8s_openapi::api_version(o),
            Object::IPPool(o) => k8s_openapi::api_version(o),
        }
    }

    /// The object's `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Object::ConfigMap(_) => k8s_openapi::kind(&ConfigMap::default()),
            Object::Installation(o) => k8s_openapi::kind(&**o),
            Object::APIServer(o) => k8s_openapi::kind(o),
            Object::Goldmane(o) => k8s_openapi::kind(o),
            Object::Whisker(o) => k8s_openapi::kind(o),
            Object::FelixConfiguration(o) => k8s_openapi::kind(&**o),
            Object::BGPConfiguration(o) => k8s_openapi::kind(o),
            Object::BGPPeer(o) => k8s_openapi::kind(o),
            Object::IPPool(o) => k8s_openapi::kind(o),
        }
    }

    /// The object's metadata.
    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            Object::ConfigMap(o) => &o.metadata,
            Object::Installation(o) => &o.metadata,
            Object::APIServer(o) => &o.metadata,
            Object::Goldmane(o) => &o.metadata,
            Object::Whisker(o) => &o.metadata,
            Object::FelixConfiguration(o) => &o.metadata,
            Object::BGPConfiguration(o) => &o.metadata,
            Object::BGPPeer(o) => &o.metadata,
            Object::IPPool(o) => &o.metadata,
        }
    }

    /// The object's `metadata.name` (empty if unset, which compile never produces).
    pub fn name(&self) -> &str {
        self.metadata().name.as_deref().unwrap_or("")
    }

    /// The object's `metadata.namespace`; only the ConfigMap is namespaced.
    pub fn namespace(&self) -> Option<&str> {
        self.metadata().namespace.as_deref()
    }

    /// The position of the object's kind in a bundle: 0 for the endpoint ConfigMap up to 8 for
    /// IPPools. Objects of the same kind keep the order they were compiled in.
    pub fn rank(&self) -> u8 {
        match self {
            Object::ConfigMap(_) => 0,
            Object::Installation(_) => 1,
            Object::APIServer(_) => 2,
            Object::Goldmane(_) => 3,
            Object::Whisker(_) => 4,
            Object::FelixConfiguration(_) => 5,
            Object::BGPConfiguration(_) => 6,
            Object::BGPPeer(_) => 7,
            Object::IPPool(_) => 8,
        }
    }

    /// True for objects that can be created right after the operator (the core and
    /// operator.tigera.io kinds); false for projectcalico.org/v3 objects, which need the Calico
    /// API server or the native v3 CRDs first.
    pub fn is_operator_stage(&self) -> bool {
        self.rank() <= 4
    }

    /// The wire form as an untyped JSON value (keys sorted, as serde_json's map keeps them).
    #[expect(
        clippy::expect_used,
        reason = "serializing typed wire objects into a JSON value cannot fail"
    )]
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self)
            .expect("invariant: wire objects hold only strings, numbers, booleans, lists and maps")
    }

    /// Read a wire object back from its untyped form, the inverse of [`Object::to_value`]: the
    /// `kind` chooses the type, which then takes the whole value through the typed pass (as
    /// `validate` reads a document). A field of the wrong type, or one the generated CRD types
    /// do not know, is refused with the field path of the first problem.
    ///
    /// # Errors
    /// [`FromValueError`] when the kind is not one of ours or the value does not fit its type.
    pub fn from_value(value: serde_json::Value) -> Result<Object, FromValueError> {
        fn read<T: serde::de::DeserializeOwned>(
            value: &serde_json::Value,
        ) -> Result<T, FromValueError> {
            let mut problems = Vec::new();
            let typed =
                crate::typed::read(value, crate::source::Scalars::Kubernetes, &mut problems);
            match (typed, problems.into_iter().next()) {
                (Some(typed), None) => Ok(typed),
                (_, Some(problem)) => Err(FromValueError::Invalid {
                    path: problem.path,
                    message: in_words(problem.kind),
                }),
                (None, None) => Err(FromValueError::Invalid {
                    path: String::new(),
                    message: "expected a mapping".to_owned(),
                }),
            }
        }
        let kind = value
            .get("kind")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        Ok(match kind {
            "ConfigMap" => Object::ConfigMap(read(&value)?),
            "Installation" => Object::Installation(Box::new(read(&value)?)),
            "APIServer" => Object::APIServer(read(&value)?),
            "Goldmane" => Object::Goldmane(read(&value)?),
            "Whisker" => Object::Whisker(read(&value)?),
            "FelixConfiguration" => Object::FelixConfiguration(Box::new(read(&value)?)),
            "BGPConfiguration" => Object::BGPConfiguration(read(&value)?),
            "BGPPeer" => Object::BGPPeer(read(&value)?),
            "IPPool" => Object::IPPool(read(&value)?),
            other => return Err(FromValueError::UnknownKind(other.to_owned())),
        })
    }
}

/// A problem of the typed pass as `validate` words it.
fn in_words(kind: crate::typed::ProblemKind) -> String {
    use crate::typed::ProblemKind;
    match kind {
        ProblemKind::UnknownField { field, .. } => format!("unknown field `{field}`"),
        ProblemKind::MissingField { field } => format!("required field `{field}` is missing"),
        ProblemKind::UnknownValue { value, expected } => {
            format!(
                "unknown value `{value}`; valid values: {}",
                expected.join(", ")
            )
        }
        ProblemKind::Invalid { message } => message,
    }
}

/// Why an untyped value is not one of the wire objects ([`Object::from_value`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FromValueError {
    /// The kind is not one calico-render renders.
    #[error("calico-render does not render kind `{0}`")]
    UnknownKind(String),
    /// The value does not fit the kind's schema.
    #[error("{}{message}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
    Invalid {
        /// The field path of the first problem (empty for the object itself).
        path: String,
        /// What is wrong there, in the user's terms.
        message: String,
    },
}

impl Serialize for Object {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Object::ConfigMap(o) => OrderedConfigMap::from(o).serialize(serializer),
            Object::Installation(o) => o.serialize(serializer),
            Object::APIServer(o) => o.serialize(serializer),
            Object::Goldmane(o) => o.serialize(serializer),
            Object::Whisker(o) => o.serialize(serializer),
            Object::FelixConfiguration(o) => o.serialize(serializer),
            Object::BGPConfiguration(o) => o.serialize(serializer),
            Object::BGPPeer(o) => o.serialize(serializer),
            Object::IPPool(o) => o.serialize(serializer),
        }
    }
}

/// A ConfigMap's wire form with `metadata` before `data`.
#[derive(Serialize)]
struct OrderedConfigMap<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    metadata: &'a ObjectMeta,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a BTreeMap<String, String>>,
    #[serde(rename = "binaryData", skip_serializing_if = "Option::is_none")]
    binary_data: Option<&'a BTreeMap<String, k8s_openapi::ByteString>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    immutable: Option<bool>,
}

impl<'a> From<&'a ConfigMap> for OrderedConfigMap<'a> {
    fn from(config_map: &'a ConfigMap) -> Self {
        OrderedConfigMap {
            api_version: k8s_openapi::api_version(config_map),
            kind: k8s_openapi::kind(config_map),
            metadata: &config_map.metadata,
            data: config_map.data.as_ref(),
            binary_data: config_map.binary_data.as_ref(),
            immutable: config_map.immutable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_value_reads_what_to_value_writes() {
        let config_map = Object::ConfigMap(ConfigMap {
            metadata: ObjectMeta {
                name: Some("kubernetes-services-endpoint".into()),
                namespace: Some("tigera-operator".into()),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([("K".to_owned(), "v".to_owned())])),
            ..ConfigMap::default()
        });
        let installation: Object = Object::from_value(serde_json::json!({
            "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
            "metadata": {"name": "default"},
            "spec": {"calicoNetwork": {"bgp": "Disabled"}, "registry": "r/"}}))
        .expect("an Installation");
        for object in [config_map, installation] {
            assert_eq!(Object::from_value(object.to_value()), Ok(object.clone()));
        }
    }

    #[test]
    fn from_value_refuses_other_kinds_and_wrong_fields() {
        let check = |value: serde_json::Value, expected: &str| {
            let err = Object::from_value(value).expect_err("refused");
            assert_eq!(err.to_string(), expected);
        };
        check(
            serde_json::json!({"apiVersion": "v1", "kind": "Secret"}),
            "calico-render does not render kind `Secret`",
        );
        check(
            serde_json::json!({}),
            "calico-render does not render kind ``",
        );
        check(
            serde_json::json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
                "metadata": {"name": "default"}, "spec": {"typhaMetricsPort": "many"}}),
            "spec.typhaMetricsPort: expected an integer from -2147483648 to 2147483647, found string \"many\"",
        );
        let err = Object::from_value(serde_json::json!({"apiVersion": "projectcalico.org/v3",
            "kind": "IPPool", "metadata": {"name": "p"}, "spec": {"cidr": "10.0.0.0/16", "bogus": 1}}))
        .expect_err("unknown field");
        assert!(
            err.to_string()
                .starts_with("spec.bogus: unknown field `bogus`"),
            "{err}"
        );
    }

    #[test]
    fn config_map_keys_in_wire_order() {
        let config_map = ConfigMap {
            metadata: ObjectMeta {
                name: Some("x".into()),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([("K".to_owned(), "v".to_owned())])),
            ..ConfigMap::default()
        };
        let json = serde_json::to_string(&Object::ConfigMap(config_map)).unwrap();
        assert_eq!(
            json,
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"K":"v"}}"#
        );
    }
}
