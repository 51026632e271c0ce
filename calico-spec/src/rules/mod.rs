//! The rule catalogue: every upstream validation rule and our lints, with stable codes.
//!
//! Layout:
//! - [`catalogue`]: the data (code, severity, summary, explanation) of every rule;
//! - one module per kind (`ippool`, `bgppeer`, `bgpconfig`, `felix`, `installation`,
//!   `endpoint` for the ConfigMap and the APIServer), each a set of checks over one document;
//! - `cross`: checks across all documents of a run (overlap, duplicates) and the lints that need
//!   several objects;
//! - `ops`: the operational checks (`OP` codes), traps every layer accepts, over the whole run
//!   and the context documents (Nodes, kube-proxy), one file per area;
//! - [`validate`]: the entry point that dispatches documents by apiVersion/kind.
//!
//! Checks read the untyped document ([`serde_json::Value`]) through `Fields`. A field of the
//! wrong type is skipped by the checks (the schema pass reports it), so one typo does not hide
//! the other problems of the document: validation reports everything at once.
//!
//! To add a rule: add an entry to [`catalogue`] (next free code in its hundred, an explanation
//! that says what upstream does and how to fix it), call `sink.report(&catalogue::NAME, ...)`
//! from the kind's module, and add accepted and rejected rows to the kind's test table (the
//! repository's
//! [`tests/tests/validate_rules.rs`](https://github.com/calico-render/calico-render/blob/main/tests/tests/validate_rules.rs)).

mod bgpconfig;
mod bgppeer;
pub mod catalogue;
mod cross;
mod endpoint;
mod felix;
mod installation;
mod ippool;
mod kubeadm;
mod ops;
mod validate;

use ipnet::IpNet;
use serde_json::{Map, Value};

pub use catalogue::{CATALOGUE, Rule, lookup};
pub use ops::{ContextDocument, Unchecked};
pub use validate::{
    InputDocument, Skipped, SourceText, TextError, ValidationOutcome, expand_lists, list_items,
    validate, validate_compiled, validate_texts, validate_values,
};

use crate::diag::Diagnostic;
use crate::source::{join_index, join_key};

/// What validation knows about the cluster beyond the documents given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The Kubernetes provider (`EKS`, `GKE`, `AKS`, `OpenShift`, ...); `None` for kubeadm or
    /// bare metal, as in the article. Several operator defaults depend on it.
    pub provider: Option<String>,
    /// LAN ranges pod pools should not overlap (lint `CR8001`).
    pub lans: Vec<IpNet>,
    /// The Service ranges (lint `CR8003`, and the ClusterIP check `CR8005`).
    pub service_cidrs: Vec<IpNet>,
    /// The nodes' own subnets (lint `CR8003`).
    pub node_subnets: Vec<IpNet>,
    /// The cluster's pod subnets (kubeadm's `podSubnet`), when known: the tigera-operator
    /// requires the Installation's pools inside them and makes its default pools from them
    /// (`CR5020`). `validate` takes them from a `kube-system/kubeadm-config` ConfigMap.
    pub pod_cidrs: Option<Vec<IpNet>>,
    /// The release whose CRD rules (`x-kubernetes-validations`) are evaluated on each document
    /// (`crate::release::cel`); `None`: the catalogue's own checks only.
    pub release: Option<&'static crate::release::Release>,
    /// The MTU of the nodes' network interfaces, when declared (`validate --node-mtu`): the
    /// operational MTU check (`OP0202`) compares the pod MTU plus the tunnel's overhead with it.
    pub node_mtu: Option<u32>,
}

/// 192.168.0.0/16, checked when compiled.
const ASSUMED_LAN: ipnet::Ipv4Net =
    ipnet::Ipv4Net::new_assert(std::net::Ipv4Addr::new(192, 168, 0, 0), 16);
/// 10.96.0.0/12, checked when compiled.
const ASSUMED_SERVICES: ipnet::Ipv4Net =
    ipnet::Ipv4Net::new_assert(std::net::Ipv4Addr::new(10, 96, 0, 0), 12);

impl Context {
    /// What we assume when nothing is declared: no provider, the common LAN range
    /// 192.168.0.0/16, kubeadm's default Service range 10.96.0.0/12 and the newest release.
    pub fn assumed() -> Context {
        Context {
            provider: None,
            lans: vec![IpNet::V4(ASSUMED_LAN)],
            service_cidrs: vec![IpNet::V4(ASSUMED_SERVICES)],
            node_subnets: Vec::new(),
            pod_cidrs: None,
            release: Some(crate::release::Release::default_target()),
            node_mtu: None,
        }
    }
}

/// Collects diagnostics for one document; locations are attached afterwards from the spans.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Sink {
    /// Report a problem at `path` with the rule's default severity.
    pub(crate) fn report(
        &mut self,
        rule: &Rule,
        path: impl Into<String>,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.diagnostics.push(Diagnostic {
            severity: rule.severity,
            code: rule.code,
            path: path.into(),
            message: message.into(),
            hint,
            location: None,
        });
    }
}

/// Read access to the fields of one mapping, with the field path it sits at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields<'a, 'p> {
    map: Option<&'a Map<String, Value>>,
    path: &'p str,
}

impl<'a, 'p> Fields<'a, 'p> {
    /// Fields of `value` (empty when it is not a mapping).
    pub(crate) fn of(value: Option<&'a Value>, path: &'p str) -> Fields<'a, 'p> {
        Fields {
            map: value.and_then(Value::as_object),
            path,
        }
    }

    /// The path of this mapping.
    pub(crate) fn path(&self) -> &'p str {
        self.path
    }

    /// The path of a field of this mapping.
    pub(crate) fn at(&self, key: &str) -> String {
        join_key(self.path, key)
    }

    /// The raw value of a field.
    pub(crate) fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map
            .and_then(|map| map.get(key))
            .filter(|value| !value.is_null())
    }

    /// Whether the field is present and not null.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.raw(key).is_some()
    }

    /// A string field (absent or of another type: `None`).
    pub(crate) fn str(&self, key: &str) -> Option<&'a str> {
        self.raw(key).and_then(Value::as_str)
    }

    /// A boolean field.
    pub(crate) fn bool(&self, key: &str) -> Option<bool> {
        self.raw(key).and_then(Value::as_bool)
    }

    /// An integer field.
    pub(crate) fn int(&self, key: &str) -> Option<i64> {
        self.raw(key).and_then(Value::as_i64)
    }

    /// A sequence field.
    pub(crate) fn list(&self, key: &str) -> Option<&'a Vec<Value>> {
        self.raw(key).and_then(Value::as_array)
    }

    /// The keys present in this mapping.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &'a String> {
        self.map.into_iter().flat_map(|map| map.keys())
    }

    /// The raw values of several fields at once, in the order of `keys`: the same answers as
    /// calling [`Fields::raw`] for each key, from one walk over the mapping. A check that reads
    /// many fields of a document it sees thousands of times (an IPPool's spec) uses this rather
    /// than one tree search per field, most of them for fields that are absent.
    pub(crate) fn pick<const N: usize>(&self, keys: [&str; N]) -> [Option<&'a Value>; N] {
        let mut found = [None; N];
        for (key, value) in self.map.into_iter().flatten() {
            if value.is_null() {
                continue;
            }
            if let Some(slot) = keys
                .iter()
                .position(|wanted| *wanted == key.as_str())
                .and_then(|slot| found.get_mut(slot))
            {
                *slot = Some(value);
            }
        }
        found
    }
}

/// The items of a sequence with their paths.
pub(crate) fn items<'a>(list: Option<&'a Vec<Value>>, path: &str) -> Vec<(String, &'a Value)> {
    list.map(|items| {
        items
            .iter()
            .enumerate()
            .map(|(idx, item)| (join_index(path, idx), item))
            .collect()
    })
    .unwrap_or_default()
}

/// Check a string field against an enum's values; report `rule` listing them when it is not
/// one of them (exact, case-sensitive match).
pub(crate) fn check_enum(
    sink: &mut Sink,
    rule: &Rule,
    fields: &Fields<'_, '_>,
    key: &str,
    valid: &[&str],
) {
    check_enum_value(sink, rule, key, fields.str(key), || fields.at(key), valid);
}

/// [`check_enum`] for a value already read: `value` is the field `key`, found at `path()`.
pub(crate) fn check_enum_value(
    sink: &mut Sink,
    rule: &Rule,
    key: &str,
    value: Option<&str>,
    path: impl FnOnce() -> String,
    valid: &[&str],
) {
    if let Some(value) = value
        && !valid.contains(&value)
    {
        let hint = valid
            .iter()
            .find(|candidate| candidate.eq_ignore_ascii_case(value))
            .map(|candidate| format!("did you mean `{candidate}`? values are case-sensitive"));
        sink.report(
            rule,
            path(),
            format!(
                "`{key}: {value}` is not supported; valid values: {}",
                valid.join(", ")
            ),
            hint,
        );
    }
}

/// Check an integer field against inclusive bounds.
pub(crate) fn check_range(
    sink: &mut Sink,
    rule: &Rule,
    fields: &Fields<'_, '_>,
    key: &str,
    min: i64,
    max: i64,
) {
    if let Some(value) = fields.int(key)
        && (value < min || value > max)
    {
        sink.report(
            rule,
            fields.at(key),
            format!("`{key}: {value}` is outside {min}-{max}"),
            None,
        );
    }
}

/// Check a selector field: it must parse, and be at most 1024 characters.
pub(crate) fn check_selector(
    sink: &mut Sink,
    fields: &Fields<'_, '_>,
    key: &str,
) -> Option<crate::vocab::Selector> {
    check_selector_value(sink, key, fields.str(key), || fields.at(key))
}

/// [`check_selector`] for a value already read: `text` is the field `key`, found at `path()`.
pub(crate) fn check_selector_value(
    sink: &mut Sink,
    key: &str,
    text: Option<&str>,
    path: impl FnOnce() -> String,
) -> Option<crate::vocab::Selector> {
    let text = text?;
    if text.len() > 1024 {
        sink.report(
            &catalogue::SELECTOR_SYNTAX,
            path(),
            format!(
                "`{key}` is {} characters long; the limit is 1024",
                text.len()
            ),
            None,
        );
        return None;
    }
    match crate::vocab::parse_selector(text) {
        Ok(selector) => Some(selector),
        Err(err) => {
            sink.report(
                &catalogue::SELECTOR_SYNTAX,
                path(),
                format!("`{key}: {text}` does not parse: {err}"),
                Some(
                    "write e.g. `all()`, `has(label)` or `label == \"value\"`; quote values".into(),
                ),
            );
            None
        }
    }
}
