//! What post-render and the KRM function share: matching chart objects to ours, merging, and
//! the checked finish.
//!
//! # Matching
//! A chart object *matches* one of our objects when it has the same `kind` and `metadata.name`
//! and a compatible API group: the same group, or, for Calico kinds, either of
//! `projectcalico.org` and `crd.projectcalico.org` (the tigera-operator chart renders
//! FelixConfiguration with the latter when it cannot see the former). The namespace is not
//! compared: the endpoint ConfigMap matches by name wherever the chart puts it, and our other
//! kinds are cluster-scoped.
//!
//! A `kind: List` object (or a typed `<Kind>List` such as `InstallationList`) with an `items`
//! sequence, as charts and `kubectl get -o yaml` dumps carry, is looked into: each item is
//! matched like an object, and the list itself never matches.
//!
//! One of our objects matched twice (two documents or items, a document and a list item, two
//! items of one list) is refused. Which copy would win is then left to the order the cluster
//! applies them in (with `kubectl apply` and Helm, the later one), so the chart's unmerged copy
//! could undo ours; kustomize refuses two resources with the same id for the same reason.
//!
//! # Merging
//! - every field our object sets wins; mappings merge key by key, recursively; lists and scalars
//!   are replaced whole (so `spec.calicoNetwork.ipPools` is ours entirely, never interleaved);
//! - every field only the chart sets is kept: `spec.registry`, `spec.imagePullSecrets`, extra
//!   ConfigMap keys, and all of the chart's labels and annotations (Helm 4's
//!   `postrenderer.helm.sh/postrender-filename`, kustomize's and kpt's `config.kubernetes.io/*`
//!   and `internal.config.kubernetes.io/*` among them);
//! - `metadata.namespace` stays the chart's (the ConfigMap lands in the release namespace).
//!
//! Our objects the chart does not have are added. A namespaced one (the endpoint ConfigMap)
//! goes into the namespace of the chart's `tigera-operator` Deployment when the chart has one
//! (that is where the operator reads it), else into the namespace we rendered.
//!
//! # The checked finish
//! The merged objects are checked before anything is written, by a [`Finish`]: [`Checked`] is
//! the library's default. Each merged object must read back into its wire type (the merge
//! may bring in a chart field of the wrong type, or one this Calico version does not know), and
//! then pass the rule catalogue's errors; it is written by the emitter `render` uses. The CLI
//! runs [`Linted`]: the same, and every lint `validate` reports on the merged objects.

use calico_spec::diag::{Diagnostic, Severity};
use calico_spec::objects::Object;
use calico_spec::rules::catalogue::INPUT_NOT_PROCESSED;
use serde_json::Value;

use crate::yaml::{EmitError, value_to_yaml};

/// The check and YAML writing of merged objects, as the adapters need them.
pub trait Finish {
    /// Check the objects that will be written (our objects after the merge, in bundle order).
    /// Any diagnostic with [`Severity::Error`] stops the adapter.
    fn check(&self, objects: &[Value]) -> Vec<Diagnostic>;

    /// [`Finish::check`], each diagnostic with the index in `objects` of the object it is
    /// about where that is known (a KRM result names the object). By default none is.
    fn check_objects(&self, objects: &[Value]) -> Vec<Found> {
        self.check(objects)
            .into_iter()
            .map(|diag| (None, diag))
            .collect()
    }

    /// The YAML text of one object: no leading `---`, ending in a line break.
    ///
    /// # Errors
    /// [`EmitError`] when the object cannot be written.
    fn to_yaml(&self, object: &Value) -> Result<String, EmitError>;
}

/// A diagnostic about the merged objects, with the index of the object it is about.
pub type Found = (Option<usize>, Diagnostic);

/// The diagnostics of [`Finish::check_objects`] without their objects' indices: what
/// [`Finish::check`] returns.
pub fn without_objects(found: Vec<Found>) -> Vec<Diagnostic> {
    found.into_iter().map(|(_, diag)| diag).collect()
}

/// The library's default finish (see the module docs): the typed read-back, then the rule
/// catalogue's errors; YAML in schema key order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Checked;

impl Finish for Checked {
    fn check(&self, objects: &[Value]) -> Vec<Diagnostic> {
        without_objects(self.check_objects(objects))
    }

    fn check_objects(&self, objects: &[Value]) -> Vec<Found> {
        rule_diagnostics(objects, &calico_spec::rules::Context::assumed())
            .into_iter()
            .filter(|(_, diag)| diag.severity == Severity::Error)
            .collect()
    }

    fn to_yaml(&self, object: &Value) -> Result<String, EmitError> {
        // `check` has refused objects that do not type, so this is not reached for them.
        let typed = Object::from_value(object.clone()).map_err(|err| EmitError::Serialize {
            document_idx: 0,
            message: err.to_string(),
        })?;
        crate::yaml::to_yaml(&typed)
    }
}

/// The finish the CLI runs: [`Checked`]'s read-back, then everything `validate` reports on the
/// merged objects, errors and warnings, in the ClusterNetwork's context and under the user's
/// lint levels (so `--deny` can stop the adapter). A finding already reported for the
/// ClusterNetwork (the same code and message, from our own objects before the merge) is not
/// repeated; what the merge brought in (a chart's field) is reported at the merged object.
#[derive(Debug, Clone, Copy)]
pub struct Linted<'a> {
    /// The context the rules run in (`cluster_network::context`).
    pub context: &'a calico_spec::rules::Context,
    /// The lint levels.
    pub levels: &'a crate::report::LintLevels,
    /// What was reported for the ClusterNetwork already.
    pub reported: &'a [Diagnostic],
}

impl Finish for Linted<'_> {
    fn check(&self, objects: &[Value]) -> Vec<Diagnostic> {
        without_objects(self.check_objects(objects))
    }

    fn check_objects(&self, objects: &[Value]) -> Vec<Found> {
        rule_diagnostics(objects, self.context)
            .into_iter()
            .filter(|(_, diag)| {
                !self.reported.iter().any(|known| {
                    known.code == diag.code
                        && !known.message.is_empty()
                        && diag.message.ends_with(known.message.as_str())
                })
            })
            .flat_map(|(object, diag)| {
                self.levels
                    .apply(vec![diag])
                    .into_iter()
                    .map(move |diag| (object, diag))
            })
            .collect()
    }

    fn to_yaml(&self, object: &Value) -> Result<String, EmitError> {
        Checked.to_yaml(object)
    }
}

/// The merged objects that do not read back into their wire type.
fn unfit(objects: &[Value]) -> Vec<Found> {
    objects
        .iter()
        .enumerate()
        .filter_map(|(idx, object)| {
            let err = Object::from_value(object.clone()).err()?;
            let head = Head::of(object);
            let path = match &err {
                calico_spec::objects::FromValueError::Invalid { path, .. } => path.clone(),
                _ => String::new(),
            };
            Some((
                Some(idx),
                Diagnostic {
                    severity: INPUT_NOT_PROCESSED.severity,
                    code: INPUT_NOT_PROCESSED.code,
                    path,
                    message: format!(
                        "the merged {} `{}` does not fit its CRD schema: {err}",
                        head.kind, head.name
                    ),
                    hint: Some(
                        "the chart sets a field of another type or one this Calico version does \
                         not know; remove it from the chart values or set it in the ClusterNetwork"
                            .to_owned(),
                    ),
                    location: None,
                },
            ))
        })
        .collect()
}

/// The merged objects that do not read back into their wire type ([`unfit`]), or else what the
/// rule catalogue (as `validate` runs it) finds in them, each named after its object.
/// [`Checked`] keeps only the errors: our objects' lints were reported when the ClusterNetwork
/// was checked.
fn rule_diagnostics(objects: &[Value], context: &calico_spec::rules::Context) -> Vec<Found> {
    // An object that does not read back is all there is to say: the rules would only repeat it.
    let unfit = unfit(objects);
    if !unfit.is_empty() {
        return unfit;
    }
    calico_spec::rules::validate_values(objects, context)
        .into_iter()
        .map(|mut diag| {
            let index = diag.location.as_ref().map(|loc| loc.document);
            if let Some(object) = index.and_then(|idx| objects.get(idx)) {
                let head = Head::of(object);
                diag.message = format!("merged {} `{}`: {}", head.kind, head.name, diag.message);
            }
            // The positions would point into a document nobody wrote; the path says where.
            diag.location = None;
            (index, diag)
        })
        .collect()
}

/// The identifying fields of an object, borrowed (`""` when absent or not a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head<'a> {
    pub(crate) api_version: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) name: &'a str,
    pub(crate) namespace: &'a str,
}

impl<'a> Head<'a> {
    pub(crate) fn of(value: &'a Value) -> Self {
        Head {
            api_version: str_at(value, &["apiVersion"]),
            kind: str_at(value, &["kind"]),
            name: str_at(value, &["metadata", "name"]),
            namespace: str_at(value, &["metadata", "namespace"]),
        }
    }

    /// The namespace of the chart's operator Deployment (the release namespace), when this is
    /// that Deployment.
    pub(crate) fn operator_namespace(&self) -> Option<&'a str> {
        (self.kind == "Deployment"
            && self.name == "tigera-operator"
            && group_of(self.api_version) == "apps"
            && !self.namespace.is_empty())
        .then_some(self.namespace)
    }
}

/// True for the kinds of list objects: `List` (what `kubectl get -o yaml` writes for several
/// objects) and the typed `<Kind>List` of every API (`InstallationList`, `ConfigMapList`).
pub(crate) fn is_list_kind(kind: &str) -> bool {
    kind.ends_with("List")
}

/// The items of a list object (a list kind with an `items` sequence); `None` for any other
/// value, which is matched as an object itself.
pub(crate) fn list_items(value: &Value) -> Option<&[Value]> {
    if !is_list_kind(str_at(value, &["kind"])) {
        return None;
    }
    value.get("items")?.as_array().map(Vec::as_slice)
}

/// One of our objects matched twice. The places are the caller's (post-render: the lines of the
/// documents; KRM: the indices of the items).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Duplicate {
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) first: usize,
    pub(crate) second: usize,
}

/// Our objects' keys and where each was found, in bundle order.
#[derive(Debug)]
pub(crate) struct Matcher<'a> {
    /// `(kind, group, name)` of each of our objects.
    keys: Vec<(&'a str, &'a str, &'a str)>,
    found: Vec<Option<usize>>,
}

impl<'a> Matcher<'a> {
    pub(crate) fn new(ours: &'a [Value]) -> Self {
        Matcher {
            keys: ours
                .iter()
                .map(|object| {
                    let head = Head::of(object);
                    (head.kind, group_of(head.api_version), head.name)
                })
                .collect(),
            found: vec![None; ours.len()],
        }
    }

    /// The kinds of our objects.
    pub(crate) fn kinds(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.keys.iter().map(|&(kind, _, _)| kind)
    }

    /// True when an object of this kind may be ours.
    pub(crate) fn is_our_kind(&self, kind: &str) -> bool {
        self.kinds().any(|ours| ours == kind)
    }

    /// Which of our objects the chart object `head`, found at `place`, is, if any; refused
    /// when that object was found before.
    pub(crate) fn claim(
        &mut self,
        head: &Head<'_>,
        place: usize,
    ) -> Result<Option<usize>, Duplicate> {
        let Some(ours) = self.keys.iter().position(|&(kind, group, name)| {
            kind == head.kind
                && name == head.name
                && groups_match(group, group_of(head.api_version))
        }) else {
            return Ok(None);
        };
        match self.found.get_mut(ours) {
            Some(Some(first)) => Err(Duplicate {
                kind: head.kind.to_owned(),
                name: head.name.to_owned(),
                first: *first,
                second: place,
            }),
            Some(slot) => {
                *slot = Some(place);
                Ok(Some(ours))
            }
            // `found` has a slot per key.
            None => Ok(None),
        }
    }
}

/// The string at `path` in `value`, or `""`.
pub(crate) fn str_at<'v>(value: &'v Value, path: &[&str]) -> &'v str {
    let mut node = value;
    for key in path {
        match node.get(key) {
            Some(next) => node = next,
            None => return "",
        }
    }
    node.as_str().unwrap_or_default()
}

/// The API group of an `apiVersion` (`""` for the core group).
pub(crate) fn group_of(api_version: &str) -> &str {
    api_version
        .rsplit_once('/')
        .map_or("", |(group, _version)| group)
}

/// True when two groups name the same resources: equal, or the two Calico groups.
pub(crate) fn groups_match(ours: &str, theirs: &str) -> bool {
    const CALICO: [&str; 2] = ["projectcalico.org", "crd.projectcalico.org"];
    ours == theirs || (CALICO.contains(&ours) && CALICO.contains(&theirs))
}

/// Merge our object into the chart's, by the rule in the module docs.
pub fn merge_object(chart: &Value, ours: &Value) -> Value {
    let mut merged = chart.clone();
    merge_into(&mut merged, ours);
    // The chart's namespace wins: it is the release namespace, where the operator runs.
    if let (Some(namespace), Some(meta)) = (
        chart.pointer("/metadata/namespace").cloned(),
        merged.get_mut("metadata").and_then(Value::as_object_mut),
    ) {
        meta.insert("namespace".to_owned(), namespace);
    }
    merged
}

fn merge_into(target: &mut Value, ours: &Value) {
    match (target, ours) {
        (Value::Object(target), Value::Object(ours)) => {
            for (key, value) in ours {
                match target.get_mut(key) {
                    Some(slot) => merge_into(slot, value),
                    None => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (target, ours) => *target = ours.clone(),
    }
}

/// Our object as added: a namespaced object follows the operator's namespace.
fn place_added(ours: &Value, operator_namespace: Option<&str>) -> Value {
    let mut object = ours.clone();
    if let (Some(namespace), Some(meta)) = (
        operator_namespace,
        object.get_mut("metadata").and_then(Value::as_object_mut),
    ) && meta.contains_key("namespace")
    {
        meta.insert("namespace".to_owned(), Value::String(namespace.to_owned()));
    }
    object
}

/// Our objects as they will be written, in bundle order: each merged into the chart object it
/// matched (`chart`, by our index), or added.
pub(crate) fn merged(
    ours: &[Value],
    chart: &[Option<&Value>],
    operator_namespace: Option<&str>,
) -> Vec<Value> {
    ours.iter()
        .zip(chart)
        .map(|(object, found)| match found {
            Some(found) => merge_object(found, object),
            None => place_added(object, operator_namespace),
        })
        .collect()
}

/// The merged objects, checked and written.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The YAML text of each merged object, in bundle order.
    pub(crate) texts: Vec<String>,
    /// The check's warnings, with the index of their object where known.
    pub(crate) warnings: Vec<Found>,
}

/// Why the merged objects are not written.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The check found errors; every diagnostic it reported, with its object where known.
    Invalid(Vec<Found>),
    /// An object could not be written as YAML.
    Emit {
        kind: String,
        name: String,
        message: String,
    },
}

/// The checked finish both adapters end with: check the merged objects, then write each.
pub(crate) fn finish(merged: &[Value], finish: &dyn Finish) -> Result<Finished, Refused> {
    let diagnostics = finish.check_objects(merged);
    if diagnostics
        .iter()
        .any(|(_, d)| d.severity == Severity::Error)
    {
        return Err(Refused::Invalid(diagnostics));
    }
    let texts = merged
        .iter()
        .map(|object| {
            finish.to_yaml(object).map_err(|err| {
                let head = Head::of(object);
                Refused::Emit {
                    kind: head.kind.to_owned(),
                    name: head.name.to_owned(),
                    message: err.to_string(),
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Finished {
        texts,
        warnings: diagnostics,
    })
}

/// Append `yaml` (a mapping, one or more lines) as a block sequence entry whose `- ` marker is
/// `indent` spaces in. Empty lines stay empty, which keeps block scalars intact.
pub(crate) fn push_entry(text: &mut Vec<u8>, yaml: &str, indent: usize) {
    for (idx, line) in yaml.lines().enumerate() {
        if !line.is_empty() {
            text.extend(std::iter::repeat_n(b' ', indent));
            text.extend_from_slice(if idx == 0 { b"- " } else { b"  " });
            text.extend_from_slice(line.as_bytes());
        }
        text.push(b'\n');
    }
}

/// The parsed value of each document of `text` (YAML 1.1 as kubectl reads it, budgets for
/// large third-party documents).
pub(crate) fn parse(text: &[u8]) -> Result<Vec<Value>, serde_saphyr::Error> {
    serde_saphyr::from_slice_multiple_with_options(text, crate::post_render::third_party_options())
}

/// The text of a list object (`body`: its mapping, from the first key on) with the items at the
/// given indices replaced by the given YAML texts (sorted by index). Where the list is in the
/// plain block style, only those items' lines change and the rest stays byte for byte; the
/// result is then read back and must be the list with those items replaced, or it is not used.
/// Otherwise (and for an empty `body`) the whole list is written from its parsed value.
pub(crate) fn list_with_items(
    body: &[u8],
    list: &Value,
    replacements: &[(usize, &str)],
) -> Result<Vec<u8>, EmitError> {
    let items = list_items(list).unwrap_or_default();
    let spliced = crate::scan::root_sections(body).and_then(|sections| {
        let section = sections.iter().find(|section| section.key == "items")?;
        let (indent, entries) = crate::scan::sequence_entries(body, section)?;
        (entries.len() == items.len()).then_some((indent, entries))
    });
    let spliced = spliced.and_then(|(indent, entries)| {
        let mut text = Vec::with_capacity(body.len());
        let mut pos = 0;
        for &(item, yaml) in replacements {
            let &(start, end) = entries.get(item)?;
            text.extend_from_slice(body.get(pos..start)?);
            push_entry(&mut text, yaml, indent);
            pos = end;
        }
        text.extend_from_slice(body.get(pos..)?);
        Some(text)
    });
    if let Some(text) = spliced
        && reads_as(&text, &with_items(list, replacements))
    {
        return Ok(text);
    }

    // Written again: the list's other keys, then every item, ours as given.
    let mut text = Vec::new();
    if let Value::Object(map) = list {
        let mut head = map.clone();
        head.remove("items");
        if !head.is_empty() {
            text.extend_from_slice(value_to_yaml(&Value::Object(head))?.as_bytes());
        }
    }
    text.extend_from_slice(b"items:\n");
    for (idx, item) in items.iter().enumerate() {
        match replacements.iter().find(|(at, _)| *at == idx) {
            Some((_, yaml)) => push_entry(&mut text, yaml, 0),
            None => push_entry(&mut text, &value_to_yaml(item)?, 0),
        }
    }
    Ok(text)
}

/// `list` with the items at the given indices replaced by the values their texts read as
/// (`Null` for a text that does not read, which then matches nothing).
fn with_items(list: &Value, replacements: &[(usize, &str)]) -> Value {
    let mut expected = list.clone();
    if let Some(items) = expected.get_mut("items").and_then(Value::as_array_mut) {
        for &(idx, yaml) in replacements {
            if let Some(slot) = items.get_mut(idx) {
                *slot = read_one(yaml.as_bytes()).unwrap_or(Value::Null);
            }
        }
    }
    expected
}

/// The one document `text` holds, if it holds exactly one.
pub(crate) fn read_one(text: &[u8]) -> Option<Value> {
    let mut values = parse(text).ok()?;
    (values.len() == 1).then(|| values.remove(0))
}

/// True when `text` reads as exactly the one document `expected`.
pub(crate) fn reads_as(text: &[u8], expected: &Value) -> bool {
    read_one(text).is_some_and(|value| value == *expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_refuse_a_second_match() {
        let ours = [
            json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation", "metadata": {"name": "default"}}),
            json!({"apiVersion": "projectcalico.org/v3", "kind": "FelixConfiguration", "metadata": {"name": "default"}}),
        ];
        let mut matcher = Matcher::new(&ours);
        let felix = json!({"apiVersion": "crd.projectcalico.org/v1", "kind": "FelixConfiguration", "metadata": {"name": "default"}});
        let other = json!({"apiVersion": "apps/v1", "kind": "Installation", "metadata": {"name": "default"}});
        assert_eq!(matcher.claim(&Head::of(&other), 1), Ok(None));
        assert_eq!(matcher.claim(&Head::of(&felix), 3), Ok(Some(1)));
        assert_eq!(
            matcher.claim(&Head::of(&felix), 8),
            Err(Duplicate {
                kind: "FelixConfiguration".into(),
                name: "default".into(),
                first: 3,
                second: 8
            })
        );
        assert_eq!(matcher.claim(&Head::of(&ours[0]), 9), Ok(Some(0)));
    }

    #[test]
    fn the_check_names_the_field_that_does_not_fit() {
        let merged = json!({"apiVersion": "operator.tigera.io/v1", "kind": "Installation",
            "metadata": {"name": "default"}, "spec": {"typhaMetricsPort": "many"}});
        let diagnostics = Checked.check(&[merged]);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let diag = &diagnostics[0];
        assert_eq!(
            (diag.code, diag.severity, diag.path.as_str()),
            ("CR0000", Severity::Error, "spec.typhaMetricsPort")
        );
        assert_eq!(
            diag.message,
            "the merged Installation `default` does not fit its CRD schema: \
             spec.typhaMetricsPort: expected an integer from -2147483648 to 2147483647, found \
             string \"many\""
        );
        // A merged object that fits is checked by the catalogue: a pool's CIDR must parse.
        let pool = json!({"apiVersion": "projectcalico.org/v3", "kind": "IPPool",
            "metadata": {"name": "p"}, "spec": {"cidr": "10.0.0.0/33"}});
        let diagnostics = Checked.check(&[pool]);
        assert!(
            diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error
                    && d.message.starts_with("merged IPPool `p`: ")),
            "{diagnostics:?}"
        );
    }

    #[test]
    fn lists_are_list_kinds_with_items() {
        assert!(list_items(&json!({"kind": "List", "items": []})).is_some());
        assert!(list_items(&json!({"kind": "InstallationList", "items": [{}]})).is_some());
        assert!(list_items(&json!({"kind": "List"})).is_none());
        assert!(list_items(&json!({"kind": "List", "items": {}})).is_none());
        assert!(list_items(&json!({"kind": "Installation", "items": []})).is_none());
    }

    #[test]
    fn a_splice_that_reads_differently_is_not_used() {
        // An anchor in the replaced item, used by the next one: splicing would leave the alias
        // dangling, so the list is written again from its value.
        let body = b"kind: List\nitems:\n- kind: A\n  metadata: &m\n    name: a\n- kind: B\n  metadata: *m\n";
        let list = read_one(body).expect("YAML");
        let text = list_with_items(body, &list, &[(0, "kind: Ours\n")]).expect("written");
        let read = read_one(&text).expect("the result is YAML");
        assert_eq!(read["items"][0], json!({"kind": "Ours"}));
        assert_eq!(
            read["items"][1],
            json!({"kind": "B", "metadata": {"name": "a"}})
        );
        // Without the alias, only the item's lines change.
        let body = b"kind: List\nitems:\n- kind: A # a\n- kind: B # b\n";
        let list = read_one(body).expect("YAML");
        let text = list_with_items(body, &list, &[(0, "kind: Ours\n")]).expect("written");
        assert_eq!(text, b"kind: List\nitems:\n- kind: Ours\n- kind: B # b\n");
    }
}
