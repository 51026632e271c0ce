//! Reading objects from a live cluster, whose operator or Calico may be newer than the release
//! the generated types pin.
//!
//! The generated types refuse a field they do not have (a typo in a manifest is an error, as
//! the API server's schema makes it), so an Installation that a newer operator wrote with one
//! new field cannot be read as [`crate::generated::operator_tigera_io::v1::Installation`].
//! [`Lenient<T>`] reads it anyway: the fields `T` has go into `T`, the others are kept, with
//! their paths, in [`Lenient::unknown`], and are written back where they were. It implements
//! k8s-openapi's `Resource` and `Metadata` as `T` does, so a kube client can get, list and
//! watch `Lenient<Installation>` where `Installation` would fail to read.
//!
//! Validation does not change: the rule catalogue still checks against the pinned release and
//! reports every kept field as an unknown field (`rules::catalogue::UNKNOWN_FIELD`), since
//! that release's operator would refuse it.
//!
//! ```
//! use calico_spec::generated::operator_tigera_io::v1::Installation;
//! use calico_spec::live::Lenient;
//! use calico_spec::rules::{self, Context};
//!
//! let live = serde_json::json!({
//!     "apiVersion": "operator.tigera.io/v1",
//!     "kind": "Installation",
//!     "metadata": {"name": "default"},
//!     "spec": {"calicoNetwork": {"mtu": 1450, "fieldFromANewerOperator": true}},
//! });
//! assert!(serde_json::from_value::<Installation>(live.clone()).is_err());
//!
//! let read: Lenient<Installation> = serde_json::from_value(live.clone())?;
//! let network = read.object.spec.as_ref().and_then(|spec| spec.calico_network.as_ref());
//! assert_eq!(network.and_then(|network| network.mtu), Some(1450));
//! assert_eq!(read.unknown[0].path, "spec.calicoNetwork.fieldFromANewerOperator");
//! assert_eq!(serde_json::to_value(&read)?, live); // nothing lost on the way back
//!
//! let diagnostics = rules::validate_values(&[live], &Context::assumed());
//! assert!(diagnostics.iter().any(|diag| diag.code == rules::catalogue::UNKNOWN_FIELD.code
//!     && diag.path == "spec.calicoNetwork.fieldFromANewerOperator"));
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::typed;

/// An object read without refusing the fields `T` does not have.
#[derive(Debug, Clone, PartialEq)]
pub struct Lenient<T> {
    /// The object, with the fields its type has.
    pub object: T,
    /// The fields its type does not have, in the order they were found.
    pub unknown: Vec<UnknownField>,
}

/// A field of a live object that the pinned release's type does not have.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownField {
    /// Where, as diagnostics write paths: `spec.calicoNetwork.newField`.
    pub path: String,
    /// Where, as an RFC 6901 JSON Pointer: `/spec/calicoNetwork/newField`.
    pub pointer: String,
    /// The field's value, as read.
    pub value: Value,
}

/// Why a live object could not be read even leniently: a field `T` has, with a value it
/// cannot read (a wrong type, a missing required field).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", if path.is_empty() { "the object" } else { path })]
pub struct LenientError {
    /// The field path (empty for the object itself).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl<T: DeserializeOwned> Lenient<T> {
    /// Read `value`, keeping the fields `T` does not have in [`Lenient::unknown`].
    ///
    /// # Errors
    /// [`LenientError`] when a field `T` has cannot be read.
    pub fn from_value(value: Value) -> Result<Lenient<T>, LenientError> {
        let (object, taken) =
            typed::read_lenient(value).map_err(|(path, message)| LenientError { path, message })?;
        let unknown = taken
            .into_iter()
            .map(|(path, pointer, value)| UnknownField {
                path,
                pointer,
                value,
            })
            .collect();
        Ok(Lenient { object, unknown })
    }
}

impl<T: Serialize> Lenient<T> {
    /// The object as JSON with the unknown fields put back. A field whose parent the object no
    /// longer has (a list item or section removed since it was read) is left out.
    ///
    /// # Errors
    /// When `T` does not serialize (never for the generated types).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        let mut value = serde_json::to_value(&self.object)?;
        for field in &self.unknown {
            let (parent, key) = field.pointer.rsplit_once('/').unwrap_or(("", ""));
            let key = key.replace("~1", "/").replace("~0", "~");
            if let Some(map) = value.pointer_mut(parent).and_then(Value::as_object_mut) {
                map.insert(key, field.value.clone());
            }
        }
        Ok(value)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Lenient::from_value(value).map_err(D::Error::custom)
    }
}

impl<T: Serialize> Serialize for Lenient<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value()
            .map_err(S::Error::custom)?
            .serialize(serializer)
    }
}

impl<T: k8s_openapi::Resource> k8s_openapi::Resource for Lenient<T> {
    const API_VERSION: &'static str = T::API_VERSION;
    const GROUP: &'static str = T::GROUP;
    const KIND: &'static str = T::KIND;
    const VERSION: &'static str = T::VERSION;
    const URL_PATH_SEGMENT: &'static str = T::URL_PATH_SEGMENT;
    type Scope = T::Scope;
}

impl<T: k8s_openapi::Metadata> k8s_openapi::Metadata for Lenient<T> {
    type Ty = T::Ty;

    fn metadata(&self) -> &Self::Ty {
        self.object.metadata()
    }

    fn metadata_mut(&mut self) -> &mut Self::Ty {
        self.object.metadata_mut()
    }
}
