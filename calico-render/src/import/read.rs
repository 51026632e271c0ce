//! Reading live objects: `List`s looked into, each object identified, what the API server and
//! the controllers set dropped, and the rest typed by the generated wire types.

use std::rc::Rc;

use calico_spec::cluster_network::{DEFAULT_NAME, ENDPOINT_CONFIG_MAP, OPERATOR_NAMESPACE};
use calico_spec::objects::{FromValueError, Object};
use calico_spec::rules::catalogue as c;
use calico_spec::source::SpanMap;
use serde_json::{Map, Value};

use super::{At, Report, listed};

/// One document of the input.
pub(super) struct Source {
    pub(super) file: String,
    pub(super) document: usize,
    pub(super) value: Value,
    pub(super) spans: Option<Rc<SpanMap>>,
}

/// One live object, identified, cleaned and typed.
#[derive(Debug, Clone)]
pub(crate) struct Live {
    /// `Installation`, `IPPool`, ...
    pub(crate) kind: String,
    /// `metadata.name`.
    pub(crate) name: String,
    /// The object without server-set metadata and status, read through its wire type and
    /// written back (Calico kinds as projectcalico.org/v3).
    pub(crate) value: Value,
    /// Where it came from.
    pub(crate) at: At,
}

/// The groups a Calico kind is read through.
const CALICO_V3: &str = "projectcalico.org/v3";
const BACKING_V1: &str = "crd.projectcalico.org/v1";
const OPERATOR_V1: &str = "operator.tigera.io/v1";

/// The Calico kinds import takes.
const CALICO_KINDS: &[&str] = &[
    "FelixConfiguration",
    "BGPConfiguration",
    "BGPPeer",
    "IPPool",
];

/// `metadata` fields the API server or a controller sets, never the cluster's configuration.
const SERVER_METADATA: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
    "ownerReferences",
    "finalizers",
    "generateName",
];

/// Annotations written by tools and servers: kubectl's record of the last apply, and the
/// Calico API server's copy of the v3 metadata on crd.projectcalico.org/v1 objects.
const SERVER_ANNOTATIONS: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    "projectcalico.org/metadata",
];

/// Every object of the sources, cleaned and typed, duplicates resolved; problems reported.
pub(super) fn collect(sources: Vec<Source>, report: &mut Report) -> Vec<Live> {
    let mut lives: Vec<(Live, bool)> = Vec::new();
    for source in sources {
        let at = At {
            file: source.file,
            document: source.document,
            prefix: String::new(),
            spans: source.spans,
        };
        // `kind: List` and the typed `<Kind>List`s, whose items may leave out their kind.
        match calico_spec::rules::list_items(&source.value) {
            Some(items) => {
                for (idx, item) in items.iter().enumerate() {
                    let at = At {
                        prefix: format!("items[{idx}]."),
                        ..at.clone()
                    };
                    if let Some(live) = one(item, at, report) {
                        add(&mut lives, live, report);
                    }
                }
            }
            _ => {
                if let Some(live) = one(&source.value, at, report) {
                    add(&mut lives, live, report);
                }
            }
        }
    }
    lives.into_iter().map(|(live, _)| live).collect()
}

/// Add `live` unless the same object is there already: a copy read through the backing group
/// gives way to the projectcalico.org/v3 one; two copies through one group are refused.
fn add(lives: &mut Vec<(Live, bool)>, live: (Live, bool), report: &mut Report) {
    let (new, new_backing) = live;
    let namespace = |value: &Value| value.pointer("/metadata/namespace").cloned();
    let same = lives.iter().position(|(old, _)| {
        old.kind == new.kind
            && old.name == new.name
            && namespace(&old.value) == namespace(&new.value)
    });
    let Some(old) = same.and_then(|idx| lives.get_mut(idx)) else {
        lives.push((new, new_backing));
        return;
    };
    if old.1 != new_backing {
        let (kept, dropped) = if new_backing {
            (&old.0, &new)
        } else {
            (&new, &old.0)
        };
        report.push(
            &c::CN_IMPORT_SERVER_SET,
            Some(&dropped.at),
            "",
            format!(
                "{} `{}` is also read through projectcalico.org/v3 ({}); that copy is imported, \
                 this crd.projectcalico.org/v1 one (Calico's storage) is dropped",
                dropped.kind,
                dropped.name,
                kept.at.locate("").1.file
            ),
            "",
        );
        if !new_backing {
            *old = (new, new_backing);
        }
        return;
    }
    report.push(
        &c::CN_IMPORT_OBJECT,
        Some(&new.at),
        "metadata.name",
        format!(
            "{} `{}` appears twice in the live objects",
            new.kind, new.name
        ),
        "keep one copy",
    );
}

/// One object: identified, checked to be a kind import takes, cleaned and typed. The flag is
/// true when it was read through crd.projectcalico.org/v1.
fn one(value: &Value, at: At, report: &mut Report) -> Option<(Live, bool)> {
    let Value::Object(map) = value else {
        report.push(
            &c::CN_IMPORT_OBJECT,
            Some(&at),
            "",
            "the document is not a Kubernetes object (a mapping with apiVersion, kind and \
             metadata.name)"
                .to_owned(),
            "",
        );
        return None;
    };
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
    let (Some(api_version), Some(kind), Some(name)) = (
        text("/apiVersion"),
        text("/kind"),
        text("/metadata/name").filter(|name| !name.is_empty()),
    ) else {
        report.push(
            &c::CN_IMPORT_OBJECT,
            Some(&at),
            "",
            "the object has no apiVersion, kind or metadata.name".to_owned(),
            "give the objects as `kubectl get ... -o yaml` prints them",
        );
        return None;
    };
    let backing = api_version == BACKING_V1;
    let takes = match (api_version, kind) {
        (OPERATOR_V1, "Installation" | "APIServer") => {
            if name != DEFAULT_NAME {
                report.push(
                    &c::CN_IMPORT_OBJECT,
                    Some(&at),
                    "metadata.name",
                    format!(
                        "{kind} `{name}`: the operator reads only {kind} `default`, the one a \
                         ClusterNetwork renders"
                    ),
                    "remove it from the input",
                );
                return None;
            }
            true
        }
        (OPERATOR_V1, "Goldmane" | "Whisker") if name == DEFAULT_NAME => true,
        (OPERATOR_V1, "Goldmane" | "Whisker") => {
            // Another name: the operator reconciles only `default` (the CRD refuses any other
            // name from v3.32), so a ClusterNetwork cannot say it. Named and left as it is, so
            // the objects beside it still import.
            report.push(
                &c::CN_IMPORT_OUTSIDE,
                Some(&at),
                "metadata.name",
                format!(
                    "{kind} `{name}` ({api_version}) is not rendered by a ClusterNetwork, which \
                     renders only {kind} `default`; left out of it as it is (`patch` leaves it \
                     on the cluster)"
                ),
                "the operator acts only on `default`: remove it from the cluster, or apply it \
                 beside the rendered bundle",
            );
            return None;
        }
        ("v1", "ConfigMap") => {
            let namespace = text("/metadata/namespace").unwrap_or(OPERATOR_NAMESPACE);
            if name != ENDPOINT_CONFIG_MAP || namespace != OPERATOR_NAMESPACE {
                report.push(
                    &c::CN_IMPORT_OBJECT,
                    Some(&at),
                    "metadata.name",
                    format!(
                        "ConfigMap `{namespace}/{name}` is not one a ClusterNetwork renders; only \
                         `{OPERATOR_NAMESPACE}/{ENDPOINT_CONFIG_MAP}` is"
                    ),
                    "remove it from the input",
                );
                return None;
            }
            true
        }
        (CALICO_V3 | BACKING_V1, kind) => CALICO_KINDS.contains(&kind),
        _ => false,
    };
    if !takes {
        report.push(
            &c::CN_IMPORT_OBJECT,
            Some(&at),
            "kind",
            format!("{kind} `{name}` ({api_version}) is not an object a ClusterNetwork renders"),
            "import takes Installation, APIServer, Goldmane and Whisker \
             (operator.tigera.io/v1), the endpoint ConfigMap, and FelixConfiguration, BGPConfiguration, BGPPeer and IPPool; remove it \
             from the input",
        );
        return None;
    }

    let mut object = map.clone();
    let mut dropped = Vec::new();
    if object.remove("status").is_some() {
        dropped.push("status".to_owned());
    }
    if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
        for key in SERVER_METADATA {
            if metadata.remove(*key).is_some() {
                dropped.push(format!("metadata.{key}"));
            }
        }
        if let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
            for key in SERVER_ANNOTATIONS {
                if annotations.remove(*key).is_some() {
                    dropped.push(format!("metadata.annotations.{key}"));
                }
            }
        }
        for key in ["labels", "annotations"] {
            if metadata
                .get(key)
                .is_some_and(|value| value.as_object().is_some_and(Map::is_empty))
            {
                metadata.remove(key);
            }
        }
        if backing {
            metadata.remove("namespace");
        }
    }
    if backing {
        object.insert("apiVersion".into(), Value::String(CALICO_V3.to_owned()));
    }
    if !dropped.is_empty() {
        let through = if backing {
            "; read through crd.projectcalico.org/v1, imported as projectcalico.org/v3"
        } else {
            ""
        };
        report.push(
            &c::CN_IMPORT_SERVER_SET,
            Some(&at),
            "",
            format!(
                "{kind} `{name}`: dropped {}, set by the API server or a controller{through}",
                listed(&dropped)
            ),
            "",
        );
    }
    let value = match Object::from_value(Value::Object(object)) {
        Ok(typed) => typed.to_value(),
        Err(FromValueError::Invalid { path, message }) => {
            report.push(
                &c::CN_IMPORT_OBJECT,
                Some(&at),
                &path,
                format!(
                    "{kind} `{name}` does not fit its CRD schema (Calico v3.32.1, tigera-operator \
                     v1.42.3): {message}"
                ),
                "a ClusterNetwork renders only what the schema has; check the field against \
                 `kubectl explain`",
            );
            return None;
        }
        Err(other) => {
            report.push(&c::CN_IMPORT_OBJECT, Some(&at), "", other.to_string(), "");
            return None;
        }
    };
    Some((
        Live {
            kind: kind.to_owned(),
            name: name.to_owned(),
            value,
            at,
        },
        backing,
    ))
}
