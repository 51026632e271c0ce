//! Object identity: what names an object on both sides, and how streams are flattened.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use super::PatchError;

/// The group Calico stores its `projectcalico.org/v3` resources in behind the API server.
const BACKING_GROUP: &str = "crd.projectcalico.org";
/// The group users (and we) read and write Calico resources through.
const CALICO_GROUP: &str = "projectcalico.org";

/// Which input a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The desired state (`-f DESIRED`).
    Desired,
    /// The live state (`--live LIVE`).
    Live,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Desired => "DESIRED",
            Side::Live => "LIVE",
        })
    }
}

/// What identifies a Kubernetes object: apiVersion, kind, namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectId {
    /// `apiVersion`, e.g. `operator.tigera.io/v1`.
    pub api_version: String,
    /// `kind`, e.g. `Installation`.
    pub kind: String,
    /// `metadata.namespace`, `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    /// `metadata.name`.
    pub name: String,
}

impl ObjectId {
    /// Read the identity of `value`, the object at `document` in the `side` stream.
    pub fn of(value: &Value, side: Side, document: usize) -> Result<ObjectId, PatchError> {
        let Value::Object(map) = value else {
            return Err(PatchError::NotAnObject { side, document });
        };
        let text = |field: &'static str, found: Option<&Value>| match found {
            Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
            _ => Err(PatchError::MissingIdentity {
                side,
                document,
                field,
            }),
        };
        let metadata = map.get("metadata");
        Ok(ObjectId {
            api_version: text("apiVersion", map.get("apiVersion"))?,
            kind: text("kind", map.get("kind"))?,
            namespace: metadata
                .and_then(|meta| meta.get("namespace"))
                .and_then(Value::as_str)
                .filter(|namespace| !namespace.is_empty())
                .map(str::to_owned),
            name: text("metadata.name", metadata.and_then(|meta| meta.get("name")))?,
        })
    }

    /// The API group, empty for the core group (`v1`).
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }

    /// True when `self` is `other` read through the `crd.projectcalico.org` backing group.
    pub(crate) fn is_backing_twin_of(&self, other: &ObjectId) -> bool {
        self.group() == BACKING_GROUP
            && other.group() == CALICO_GROUP
            && self.kind == other.kind
            && self.namespace == other.namespace
            && self.name == other.name
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.kind)?;
        if let Some(namespace) = &self.namespace {
            write!(f, "{namespace}/")?;
        }
        write!(f, "{} ({})", self.name, self.api_version)
    }
}

/// Expand list documents (`kind: List`, what `kubectl get -o yaml` prints for several objects,
/// and the typed `<Kind>List`s of calicoctl and the API server) into their items, keeping the
/// stream order (`calico_spec::rules::list_items`).
pub(crate) fn flatten(values: &[Value]) -> Vec<Cow<'_, Value>> {
    let mut flat = Vec::with_capacity(values.len());
    for value in values {
        match calico_spec::rules::list_items(value) {
            Some(items) => flat.extend(items),
            None => flat.push(Cow::Borrowed(value)),
        }
    }
    flat
}

/// Identify every object of a stream, refusing duplicates.
pub(crate) fn identify(values: &[&Value], side: Side) -> Result<Vec<ObjectId>, PatchError> {
    let mut ids: Vec<ObjectId> = Vec::with_capacity(values.len());
    for (document, value) in values.iter().enumerate() {
        let id = ObjectId::of(value, side, document)?;
        if ids.contains(&id) {
            return Err(PatchError::DuplicateObject {
                side,
                id: Box::new(id),
            });
        }
        ids.push(id);
    }
    Ok(ids)
}
