//! The Calico releases calico-render supports, and what each one's CRDs know.
//!
//! One model, several releases: the generated types ([`crate::generated`]) are the newest
//! release's, and every release (the newest too) has a schema index made by codegen from its
//! own CRDs (`generated/index/<release>.jsonl`, see `calico_codegen::index`): every field with
//! its type, enum values, bounds and CEL rules. [`check_object`] compares an object with the
//! index of the target release and of the newest one, and reports what the target does not
//! have (a field, an enum value, a bound) together with the first release that has it, and
//! what the target has that the newest lacks (so that the newest release's verdict on it can
//! be set aside). For v3.30 and v3.31 the Calico kinds' index is their
//! `crd.projectcalico.org/v1` CRD: those releases have no native v3 CRDs, and the Calico API
//! server serves v3 over the v1 schema.

pub mod cel;
pub mod images;
pub mod list_types;
pub mod readiness;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::diag::{Diagnostic, Location, Severity};
use crate::rules::catalogue as c;
use crate::rules::{InputDocument, ValidationOutcome};
use crate::source::{join_index, join_key};

/// One supported Calico minor release.
#[derive(Debug)]
pub struct Release {
    /// The minor, as users write it (`v3.31`).
    pub minor: &'static str,
    /// The patch release whose CRDs and chart values the repository carries (`v3.31.7`); for
    /// a release whose tagged files could not be read, the version users install
    /// (`v3.33.0`), and [`Release::data`] says where the data came from.
    pub calico: &'static str,
    /// The name the release's data (its CRDs, chart values and schema index) is kept under
    /// (`v3.31.7`, or `release-v3.33-6609dea` for a release branch).
    pub data: &'static str,
    /// Where the data comes from when it is not the tag of [`Release::calico`] (printed by
    /// `--version`, `validate --list-releases` and the CN0101 message).
    pub provenance: Option<&'static str>,
    /// The tigera-operator version that release's chart pins (`v1.40.15`).
    pub operator: &'static str,
    /// Whether the release has native `projectcalico.org/v3` CRDs (v3.32 on).
    pub native_v3_crds: bool,
    /// Whether `render` writes the `default:` values of the release's CRD schemas into the
    /// objects it emits ([`fill_crd_defaults`]), so that what the API server fills in on a
    /// write is already in the bundle (v3.33; v3.32's renderings stay as they were until the
    /// default release moves to v3.33).
    pub renders_crd_defaults: bool,
    index_text: &'static str,
    index: OnceLock<Index>,
    rules: OnceLock<cel::Compiled>,
}

/// The supported releases, oldest first; the last is the newest (the generated types'). The
/// default target is [`Release::default_target`].
pub static RELEASES: [Release; 4] = [
    Release {
        minor: "v3.30",
        calico: "v3.30.7",
        data: "v3.30.7",
        provenance: None,
        operator: "v1.38.13",
        native_v3_crds: false,
        renders_crd_defaults: false,
        index_text: include_str!("generated/index/v3.30.7.jsonl"),
        index: OnceLock::new(),
        rules: OnceLock::new(),
    },
    Release {
        minor: "v3.31",
        calico: "v3.31.7",
        data: "v3.31.7",
        provenance: None,
        operator: "v1.40.15",
        native_v3_crds: false,
        renders_crd_defaults: false,
        index_text: include_str!("generated/index/v3.31.7.jsonl"),
        index: OnceLock::new(),
        rules: OnceLock::new(),
    },
    Release {
        minor: "v3.32",
        calico: "v3.32.1",
        data: "v3.32.1",
        provenance: None,
        operator: "v1.42.3",
        native_v3_crds: true,
        renders_crd_defaults: false,
        index_text: include_str!("generated/index/v3.32.1.jsonl"),
        index: OnceLock::new(),
        rules: OnceLock::new(),
    },
    Release {
        minor: "v3.33",
        calico: "v3.33.0",
        data: "release-v3.33-6609dea",
        provenance: Some(RELEASE_V3_33_DATA),
        operator: "v1.44.0",
        native_v3_crds: true,
        renders_crd_defaults: true,
        index_text: include_str!("generated/index/release-v3.33-6609dea.jsonl"),
        index: OnceLock::new(),
        rules: OnceLock::new(),
    },
];

/// Where v3.33's data comes from: the v3.33.0 tag's files could not be read here.
pub const RELEASE_V3_33_DATA: &str = "data from projectcalico/calico's release-v3.33 branch at \
     6609dea (2026-08-21) and tigera/operator's release-v1.44 branch at b0c1cc5 (2026-08-19), \
     a few weeks before the v3.33.0 tag, not from the tag";

/// A version string that names no supported release.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Calico version `{version}` is not supported; supported: {}{}",
    supported_list(),
    provenance_notes()
)]
pub struct UnsupportedRelease {
    /// The version as written.
    pub version: String,
}

/// `v3.30.x, v3.31.x, v3.32.x`.
pub fn supported_list() -> String {
    RELEASES
        .iter()
        .map(|r| format!("{}.x", r.minor))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `` (v3.33: data from ...)`` for each release whose data is not its tag's.
pub fn provenance_notes() -> String {
    RELEASES
        .iter()
        .filter_map(|r| Some(format!(" ({}: {})", r.minor, r.provenance?)))
        .collect()
}

/// The minors upstream still supports (`v3.32.x, v3.33.x`): [`Release::upstream_supported`].
pub fn upstream_supported_list() -> String {
    RELEASES
        .iter()
        .filter(|r| r.upstream_supported())
        .map(|r| format!("{}.x", r.minor))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Release {
    /// The newest supported release: the generated types and the schema every other release
    /// is compared with ([`check_object`]).
    pub fn newest() -> &'static Release {
        let [.., newest] = &RELEASES;
        newest
    }

    /// The release a ClusterNetwork without `calicoVersion`, `validate` without
    /// `--calico-version` and the chart facts target: v3.32 (the release of a ClusterNetwork's
    /// default `calicoVersion`, v3.32.1). It is to move to v3.33 next, which changes what every
    /// ClusterNetwork without `calicoVersion` renders.
    pub fn default_target() -> &'static Release {
        let [.., default, _] = &RELEASES;
        default
    }

    /// Whether upstream still supports the release: the two newest minors (Calico's
    /// SECURITY.md, "the most recent two minor versions").
    pub fn upstream_supported(&self) -> bool {
        self.position() + 2 >= RELEASES.len()
    }

    /// The release of a version written as `vMAJOR.MINOR.PATCH` (any patch of a supported
    /// minor: `v3.31.2` is v3.31).
    ///
    /// # Errors
    /// [`UnsupportedRelease`] for anything else, naming the supported minors.
    pub fn for_version(version: &str) -> Result<&'static Release, UnsupportedRelease> {
        RELEASES
            .iter()
            .find(|release| {
                version
                    .strip_prefix(release.minor)
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|patch| {
                        !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit())
                    })
            })
            .ok_or_else(|| UnsupportedRelease {
                version: version.to_owned(),
            })
    }

    /// Whether this is the newest release.
    pub fn is_newest(&self) -> bool {
        std::ptr::eq(self, Release::newest())
    }

    /// The position in [`RELEASES`] (0 is the oldest).
    fn position(&self) -> usize {
        RELEASES
            .iter()
            .position(|r| std::ptr::eq(r, self))
            .unwrap_or(RELEASES.len() - 1)
    }

    /// The releases after this one, oldest first.
    fn later(&self) -> &'static [Release] {
        RELEASES.get(self.position() + 1..).unwrap_or_default()
    }

    /// The release's schema index, read on first use.
    pub fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::parse(self.index_text))
    }

    /// The release's CRD rules (`x-kubernetes-validations` of its index), each kind's compiled
    /// on first use.
    pub fn crd_rules(&self) -> cel::Rules<'_> {
        let index = self.index();
        cel::Rules::new(index, self.rules.get_or_init(|| cel::Compiled::of(index)))
    }
}

impl PartialEq for Release {
    fn eq(&self, other: &Release) -> bool {
        self.calico == other.calico
    }
}

impl Eq for Release {}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Calico {}", self.minor)
    }
}

/// What one release's CRDs define: a field tree per kind, each read the first time it is asked
/// for (a stream of pools reads the IPPool line, 2 KB, not the Installation's 52 KB).
#[derive(Debug, Default)]
pub struct Index {
    /// In the order of their names: a kind's position ([`Index::slot`]) also finds its compiled
    /// CEL rules.
    kinds: Vec<Kind>,
}

/// One kind's line of the index, and its tree once read.
#[derive(Debug)]
struct Kind {
    name: String,
    /// The whole index file, which the tree's references to other lines point into.
    file: &'static str,
    line: &'static str,
    tree: OnceLock<Node>,
}

impl Kind {
    fn tree(&self) -> &Node {
        self.tree
            .get_or_init(|| read_node(self.line, true, self.file))
    }
}

/// The lines of an index text. The files are about 90 KB, read at every start: `memchr`'s
/// vectorised search finds their line ends in a tenth of the instructions of `str::lines`
/// (render of the article's cluster: 151 K of its 2.29 M instructions went to that).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes())
        .chain(std::iter::once(text.len()))
        .filter_map(move |end| {
            let line = text.get(start..end);
            start = end + 1;
            line
        })
}

/// The node of an index text (a whole line when `line`, else a node inside one), told where its
/// references lead.
#[expect(
    clippy::expect_used,
    reason = "the index is generated and embedded; codegen_fresh regenerates it byte for byte"
)]
fn read_node(text: &'static str, line: bool, file: &'static str) -> Node {
    let mut node = if line {
        serde_json::from_str::<Line>(text).map(|line| line.schema)
    } else {
        serde_json::from_str::<Node>(text)
    }
    .expect("generated index nodes are valid");
    node.attach(file);
    node
}

/// One schema node of the index (see `calico_codegen::index` for the format). The nodes below
/// it are read the first time they are asked for: a render looks at a few branches of the
/// Installation's 52 KB tree, a stream of pools at the IPPool's `spec`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "'de: 'static"))]
pub struct Node {
    /// `object`, `map`, `array`, `string`, `integer`, `number`, `boolean`, `int-or-string`, `any`.
    #[serde(rename = "type")]
    pub ty: String,
    /// An object's fields ([`Node::property`], [`Node::properties`]), their names borrowed
    /// from the index text (codegen writes plain names, never escapes).
    #[serde(default)]
    properties: BTreeMap<&'static str, Below>,
    /// An array's items ([`Node::items`]).
    items: Option<Below>,
    /// A map's values ([`Node::values`]).
    values: Option<Below>,
    /// Enum values.
    #[serde(default, rename = "enum")]
    pub enum_values: Vec<Value>,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `format` of a number (`int32`, `int64`): the API server refuses an integer outside
    /// the format's range.
    pub format: Option<String>,
    /// `maxLength`.
    pub max_length: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `default`.
    pub default: Option<Value>,
    /// `x-kubernetes-list-type` when it refuses duplicates: `set` (duplicate items) or `map`
    /// (duplicate key tuples); `atomic` is not indexed.
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys` of a `map` list.
    #[serde(default)]
    pub list_map_keys: Vec<String>,
    /// CEL rules (`x-kubernetes-validations`).
    #[serde(default)]
    pub cel: Vec<CelRule>,
    /// Whether this node or one below it has [`Node::cel`] rules.
    #[serde(default)]
    pub holds_cel: bool,
    /// Whether this node or one below it has a [`Node::list_type`], so that [`list_types`]
    /// walks only the parts of an object that can hold one.
    #[serde(default)]
    pub holds_list_type: bool,
    /// The fields of an object node marked [`Node::holds_cel`] ([`Node::cel_fields`]).
    #[serde(default)]
    cel_fields: Vec<&'static str>,
    /// The fields of an object node marked [`Node::holds_list_type`]
    /// ([`Node::list_type_fields`]).
    #[serde(default)]
    list_type_fields: Vec<&'static str>,
}

impl Node {
    /// The field `key` of an object node.
    pub fn property(&self, key: &str) -> Option<&Node> {
        self.properties.get(key).map(Below::node)
    }

    /// Whether an object node has the field `key` (without reading it).
    pub fn has_property(&self, key: &str) -> bool {
        self.properties.contains_key(key)
    }

    /// An object node's fields, in name order (each is read).
    pub fn properties(&self) -> impl Iterator<Item = (&str, &Node)> {
        self.properties
            .iter()
            .map(|(key, below)| (*key, below.node()))
    }

    /// The fields of an object node with CEL rules at or below them (known without reading
    /// the fields).
    pub fn cel_fields(&self) -> &[&'static str] {
        &self.cel_fields
    }

    /// The fields of an object node with a `set` or `map` list at or below them (known without
    /// reading the fields).
    pub fn list_type_fields(&self) -> &[&'static str] {
        &self.list_type_fields
    }

    /// An array node's items.
    pub fn items(&self) -> Option<&Node> {
        self.items.as_ref().map(Below::node)
    }

    /// A map node's values.
    pub fn values(&self) -> Option<&Node> {
        self.values.as_ref().map(Below::node)
    }

    /// The node of the value at `key`: the field of that name, or else a map's values.
    pub fn child(&self, key: &str) -> Option<&Node> {
        self.property(key).or_else(|| self.values())
    }

    /// A node whose values the schema does not describe (no fields, no map values).
    pub fn is_opaque(&self) -> bool {
        self.properties.is_empty() && self.values.is_none()
    }

    /// Tell the nodes directly below this one which file their references point into.
    fn attach(&mut self, file: &'static str) {
        let below = self.properties.values_mut();
        for child in below.chain(self.items.as_mut()).chain(self.values.as_mut()) {
            child.file = file;
        }
    }
}

/// A node below another, kept as its index text until it is first asked for: the node's JSON,
/// or for a large node the byte offset in `file` of the line that holds it.
#[derive(Debug, Clone)]
struct Below {
    text: &'static RawValue,
    file: &'static str,
    node: OnceLock<Box<Node>>,
}

impl Below {
    fn node(&self) -> &Node {
        self.node.get_or_init(|| {
            let text = self.text.get();
            Box::new(match text.parse::<usize>() {
                // The line at that offset.
                Ok(offset) => {
                    let rest = self.file.get(offset..).unwrap_or_default();
                    let line = lines(rest).next().unwrap_or_default();
                    read_node(line, true, self.file)
                }
                Err(_) => read_node(text, false, self.file),
            })
        })
    }
}

impl<'de: 'static> Deserialize<'de> for Below {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Below, D::Error> {
        Ok(Below {
            text: <&'static RawValue>::deserialize(deserializer)?,
            file: "",
            node: OnceLock::new(),
        })
    }
}

impl PartialEq for Below {
    fn eq(&self, other: &Below) -> bool {
        self.node() == other.node()
    }
}

/// One CEL rule of a CRD, as the index carries it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CelRule {
    /// The expression.
    pub rule: String,
    /// `message`.
    pub message: Option<String>,
    /// `messageExpression`: a CEL expression giving the message.
    pub message_expression: Option<String>,
    /// `reason` (`FieldValueInvalid` when absent).
    pub reason: Option<String>,
    /// `fieldPath`: the field the API server names, relative to the rule's node.
    pub field_path: Option<String>,
    /// `optionalOldSelf`: a transition rule that also applies on create.
    pub optional_old_self: Option<bool>,
    /// The rule reads `oldSelf` (codegen's analysis).
    #[serde(default)]
    pub transition: bool,
    /// The terms that settle the rule without evaluating it (codegen's analysis, see
    /// [`cel::Shortcuts`]).
    #[serde(default)]
    pub terms: Vec<cel::Shortcut>,
}

/// A line's schema (a kind's, whose kind was read by [`Head`], or a node's that another line
/// refers to).
#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
struct Line {
    schema: Node,
}

/// A line's kind, the schema skipped over.
#[derive(Deserialize)]
struct Head {
    kind: String,
}

impl Index {
    /// Read an index file; lines starting with `//` are comments. The files are generated and
    /// checked by `codegen_fresh`, so a line that does not read is a build defect. Only the
    /// kinds are read here; a kind's tree is read when it is first asked for. Lines starting
    /// `{"at":` hold large nodes that other lines refer to by byte offset.
    fn parse(text: &'static str) -> Index {
        let mut kinds = Vec::new();
        for line in lines(text)
            .filter(|l| !l.starts_with("//") && !l.starts_with(r#"{"at":"#) && !l.is_empty())
        {
            kinds.push(Kind {
                name: Index::kind_of(line),
                file: text,
                line,
                tree: OnceLock::new(),
            });
        }
        kinds.sort_by(|a, b| a.name.cmp(&b.name));
        Index { kinds }
    }

    /// The kind of an index line. Codegen writes the keys sorted, so a line starts with its
    /// kind (`{"kind":"IPPool",`): that string is read and the schema after it is not looked at.
    /// Any other line is read whole.
    #[expect(
        clippy::expect_used,
        reason = "the index is generated and embedded; codegen_fresh regenerates it byte for byte"
    )]
    fn kind_of(line: &str) -> String {
        line.strip_prefix(r#"{"kind":"#)
            .and_then(|rest| {
                String::deserialize(&mut serde_json::Deserializer::from_str(rest)).ok()
            })
            .unwrap_or_else(|| {
                serde_json::from_str::<Head>(line)
                    .expect("generated index lines are valid")
                    .kind
            })
    }

    /// The root node of `kind`.
    pub fn kind(&self, kind: &str) -> Option<&Node> {
        self.kind_at(self.slot(kind)?)
    }

    /// The position of `kind` among the indexed kinds (found once for a document, then used
    /// for its tree and its rules). A scan: two dozen names, most told apart by their length.
    pub(crate) fn slot(&self, kind: &str) -> Option<usize> {
        self.kinds.iter().position(|indexed| indexed.name == kind)
    }

    /// The name of the kind at `slot`.
    pub(crate) fn name_at(&self, slot: usize) -> Option<&str> {
        self.kinds.get(slot).map(|kind| kind.name.as_str())
    }

    /// The root node of the kind at `slot`.
    pub(crate) fn kind_at(&self, slot: usize) -> Option<&Node> {
        self.kinds.get(slot).map(Kind::tree)
    }

    /// The kinds indexed, in name order (the order of their slots).
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.kinds.iter().map(|kind| kind.name.as_str())
    }

    /// The node at a field path (`spec.calicoNetwork.ipPools[*].cidr`: keys, `[*]` for items,
    /// `*` for map values), if the kind has it.
    pub fn node(&self, kind: &str, path: &str) -> Option<&Node> {
        Index::walk(self.kind(kind)?, path)
    }
}

enum Segment<'a> {
    Key(&'a str),
    Items,
}

fn segments(path: &str) -> impl Iterator<Item = Segment<'_>> {
    path.split('.')
        .filter(|part| !part.is_empty())
        .flat_map(|part| {
            let (key, rest) = part.split_once('[').unwrap_or((part, ""));
            let n_items = rest.matches('[').count() + usize::from(!rest.is_empty());
            std::iter::once(Segment::Key(key))
                .filter(|s| !matches!(s, Segment::Key("")))
                .chain(std::iter::repeat_with(|| Segment::Items).take(n_items))
        })
}

/// Something an object has that the target release does not accept, or accepts only there.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// A field the target release does not know; `first` is the first later release that has it.
    UnknownField {
        /// The field path in the object.
        path: String,
        /// The field's name.
        field: String,
        /// The first release that has the field.
        first: &'static Release,
    },
    /// An enum value the target release does not accept; `first` is the first release that does.
    UnknownValue {
        /// The field path in the object.
        path: String,
        /// The value as written.
        value: String,
        /// The target release's values.
        valid: Vec<String>,
        /// The first later release that accepts it.
        first: &'static Release,
    },
    /// A value outside a bound the target release's schema sets.
    OutOfBounds {
        /// The field path in the object.
        path: String,
        /// What the bound is.
        message: String,
    },
    /// A field or value the target release knows and the newest does not: the newest
    /// release's verdict at this path does not apply to the target.
    OnlyInTarget {
        /// The field path in the object.
        path: String,
    },
}

/// Compare `object` (of `kind`) with what `release` knows. Nothing is reported for the newest
/// release, whose verdict the generated types and the rule catalogue already give.
pub fn check_object(release: &'static Release, kind: &str, object: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    if release.is_newest() {
        return out;
    }
    let (Some(target), Some(newest)) = (
        release.index().kind(kind),
        Release::newest().index().kind(kind),
    ) else {
        return out;
    };
    let walk = Walk { release, kind };
    let mut at = Vec::new();
    walk.node(object, target, Some(newest), &mut at, &mut out);
    out
}

/// One step of the path to a value: a key or a list position.
#[derive(Debug, Clone, Copy)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// The field path of `steps` (`spec.ipPools[0].cidr`), as [`join_key`] and [`join_index`] write it.
fn path_of(steps: &[Step<'_>]) -> String {
    steps.iter().fold(String::new(), |path, step| match step {
        Step::Key(key) => join_key(&path, key),
        Step::Index(idx) => join_index(&path, *idx),
    })
}

/// The schema path of `steps` (`spec.ipPools[*].cidr`), as the index names fields.
fn schema_path_of(steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(_) => out.push_str("[*]"),
        }
    }
    out
}

/// Fields of an older release's crd.projectcalico.org/v1 schema that its v3 API refuses to set
/// (APIv1 leftovers the Calico API server's validator requires empty): not set aside.
const STORAGE_ONLY: [(&str, &str); 2] = [("IPPool", "spec.ipip"), ("IPPool", "spec.nat-outgoing")];

struct Walk<'a> {
    release: &'static Release,
    kind: &'a str,
}

impl Walk<'_> {
    /// `value` at the path `at` against the target's `node` and the newest release's node at
    /// the same schema path (`None`: the newest release has no such field). The newest node is
    /// carried down beside the target's, so that no path is walked again from the root, and
    /// the paths are written out only for what is reported.
    fn node<'v>(
        &self,
        value: &'v Value,
        node: &Node,
        newest: Option<&Node>,
        at: &mut Vec<Step<'v>>,
        out: &mut Vec<Finding>,
    ) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    if at.is_empty()
                        && matches!(key.as_str(), "apiVersion" | "kind" | "metadata" | "status")
                    {
                        continue;
                    }
                    at.push(Step::Key(key));
                    let target_child = node.child(key);
                    match target_child {
                        None => {
                            if !node.is_opaque()
                                && let Some(first) = self.first_with_field(&schema_path_of(at))
                            {
                                out.push(Finding::UnknownField {
                                    path: path_of(at),
                                    field: key.clone(),
                                    first,
                                });
                            }
                        }
                        Some(target_child) => {
                            // A key with dots reads as a deeper path in the index (as the
                            // newest release's tree was always looked up).
                            let plain = !key.is_empty() && !key.contains(['.', '[']);
                            let newest_child = newest.and_then(|n| {
                                if plain {
                                    n.child(key)
                                } else {
                                    Index::walk(n, key)
                                }
                            });
                            if newest_child.is_none()
                                && !STORAGE_ONLY.contains(&(self.kind, schema_path_of(at).as_str()))
                            {
                                out.push(Finding::OnlyInTarget { path: path_of(at) });
                            }
                            self.node(child, target_child, newest_child, at, out);
                        }
                    }
                    at.pop();
                }
            }
            Value::Array(items) => {
                if let Some(max) = node.max_items
                    && items.len() as u64 > max
                {
                    out.push(Finding::OutOfBounds {
                        path: path_of(at),
                        message: format!(
                            "has {} items; {} allows at most {max}",
                            items.len(),
                            self.release
                        ),
                    });
                }
                if let Some(item_node) = node.items() {
                    let newest_items = newest.and_then(Node::items);
                    for (idx, item) in items.iter().enumerate() {
                        at.push(Step::Index(idx));
                        self.node(item, item_node, newest_items, at, out);
                        at.pop();
                    }
                }
            }
            Value::String(text) => {
                self.enum_value(value, text, node, newest, at, out);
                if let Some(max) = node.max_length
                    && text.chars().count() as u64 > max
                {
                    out.push(Finding::OutOfBounds {
                        path: path_of(at),
                        message: format!(
                            "is {} characters long; {} allows at most {max}",
                            text.chars().count(),
                            self.release
                        ),
                    });
                }
            }
            Value::Number(number) => {
                if let Some(x) = number.as_f64() {
                    let below = node.minimum.is_some_and(|min| x < min);
                    let above = node.maximum.is_some_and(|max| x > max);
                    if below || above {
                        let bound =
                            |b: Option<f64>| b.map_or_else(|| "-".to_owned(), |b| b.to_string());
                        out.push(Finding::OutOfBounds {
                            path: path_of(at),
                            message: format!(
                                "{number} is outside {}..{} in {}",
                                bound(node.minimum),
                                bound(node.maximum),
                                self.release
                            ),
                        });
                    }
                }
                // The API server checks an integer against its declared format (v3.32's
                // `iptablesMarkMask` is an int32, v3.33's an int64 with its own maximum).
                let range = match node.format.as_deref() {
                    Some("int32") => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
                    _ => None,
                };
                if let Some((min, max)) = range
                    && number.as_i64().is_none_or(|n| n < min || n > max)
                    && (number.is_i64() || number.is_u64())
                {
                    out.push(Finding::OutOfBounds {
                        path: path_of(at),
                        message: format!(
                            "{number} is outside the int32 range ({min}..{max}) that {} declares",
                            self.release
                        ),
                    });
                }
                if !node.enum_values.is_empty() {
                    self.enum_value(value, &number.to_string(), node, newest, at, out);
                }
            }
            _ => {}
        }
    }

    fn enum_value(
        &self,
        value: &Value,
        text: &str,
        node: &Node,
        newest: Option<&Node>,
        at: &[Step<'_>],
        out: &mut Vec<Finding>,
    ) {
        if node.enum_values.is_empty() {
            return;
        }
        let allows = |n: &Node| n.enum_values.is_empty() || n.enum_values.contains(value);
        if !allows(node) {
            // The first later release whose schema accepts the value; none: every release
            // refuses it and the newest release's rules say so.
            let schema_path = schema_path_of(at);
            let first = self.release.later().iter().find(|later| {
                later
                    .index()
                    .node(self.kind, &schema_path)
                    .is_some_and(&allows)
            });
            if let Some(first) = first {
                out.push(Finding::UnknownValue {
                    path: path_of(at),
                    value: text.to_owned(),
                    valid: node
                        .enum_values
                        .iter()
                        .map(|v| match v.as_str() {
                            Some("") => "\"\"".to_owned(),
                            Some(text) => text.to_owned(),
                            None => v.to_string(),
                        })
                        .collect(),
                    first,
                });
            }
        } else if newest.is_some_and(|n| !allows(n)) {
            out.push(Finding::OnlyInTarget { path: path_of(at) });
        }
    }

    /// The first release after the target whose schema has the field at `schema_path`.
    fn first_with_field(&self, schema_path: &str) -> Option<&'static Release> {
        // A key with dots in its name (`calicoNetwork.mtu` as one key) reads as a deeper path
        // here; when the target has that path too, the field is not new in a later release.
        if self.release.index().node(self.kind, schema_path).is_some() {
            return None;
        }
        self.release
            .later()
            .iter()
            .find(|later| later.index().node(self.kind, schema_path).is_some())
    }
}

impl Index {
    fn walk<'n>(mut node: &'n Node, path: &str) -> Option<&'n Node> {
        for segment in segments(path) {
            node = match segment {
                Segment::Items => node.items()?,
                Segment::Key(key) => node.child(key)?,
            };
        }
        Some(node)
    }
}

/// The kind an object's index entry is under, for the kinds validation knows; Calico kinds
/// through either API group.
pub fn indexed_kind(object: &Value) -> Option<&str> {
    indexed_kind_of(
        object.get("apiVersion")?.as_str()?,
        object.get("kind")?.as_str()?,
    )
}

/// [`indexed_kind`] from an object's `apiVersion` and `kind`.
pub fn indexed_kind_of<'k>(api_version: &str, kind: &'k str) -> Option<&'k str> {
    let calico = matches!(
        api_version,
        "projectcalico.org/v3" | "crd.projectcalico.org/v1"
    ) && matches!(
        kind,
        "IPPool" | "BGPPeer" | "BGPConfiguration" | "FelixConfiguration" | "IPReservation"
    );
    let operator = api_version == "operator.tigera.io/v1"
        && matches!(kind, "Installation" | "APIServer" | "Goldmane" | "Whisker");
    (calico || operator).then_some(kind)
}

/// What the target `release`'s CRD schema says of a document of an indexed `kind` beyond its
/// fields' types: its CEL rules ([`cel`]) and its list types ([`list_types`]). The kind is
/// found in the index once for both.
pub(crate) fn check_crd_schema(
    release: &Release,
    kind: &str,
    top: Top<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if let Some(slot) = release.index().slot(kind) {
        cel::check_at(release, slot, top, diagnostics);
        list_types::check_at(release, slot, top, diagnostics);
    }
}

/// A whole object with its `spec`, which validation has already found in it: the CRD checks
/// start most of their walks there, and a search of the object per walk costs as much as a
/// shortcut term (a large stream has thousands of objects).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Top<'v> {
    /// The object.
    pub(crate) object: &'v Value,
    /// Its `spec`, when it has one.
    pub(crate) spec: Option<&'v Value>,
}

impl<'v> Top<'v> {
    /// `object`, its `spec` searched for.
    pub(crate) fn of(object: &'v Value) -> Top<'v> {
        Top {
            object,
            spec: object.get("spec"),
        }
    }

    /// The object's field `key`.
    pub(crate) fn field(&self, key: &str) -> Option<&'v Value> {
        if key == "spec" {
            self.spec
        } else {
            self.object.get(key)
        }
    }
}

/// A finding as a diagnostic (without location).
pub fn diagnostic(release: &Release, finding: &Finding) -> Option<Diagnostic> {
    let target = release.calico;
    let (rule, path, message, hint) = match finding {
        Finding::UnknownField { path, field, first } => (
            &c::RELEASE_UNKNOWN_FIELD,
            path,
            format!(
                "field `{field}` is not known to {release} ({target}); it first appears in {first}"
            ),
            format!(
                "remove it, or target {} or later with --calico-version",
                first.calico
            ),
        ),
        Finding::UnknownValue {
            path,
            value,
            valid,
            first,
        } => (
            &c::RELEASE_VALUE,
            path,
            format!(
                "`{value}` is not accepted by {release} ({target}); valid values there: {}; it first appears in {first}",
                valid.join(", ")
            ),
            format!(
                "use one of those values, or target {} or later",
                first.calico
            ),
        ),
        Finding::OutOfBounds { path, message } => (
            &c::RELEASE_VALUE,
            path,
            format!("`{path}` {message}"),
            "use a value inside that release's bounds".to_owned(),
        ),
        Finding::OnlyInTarget { .. } => return None,
    };
    Some(Diagnostic {
        severity: rule.severity,
        code: rule.code,
        path: path.clone(),
        message,
        hint: Some(hint),
        location: None,
    })
}

/// Validation for a target release: `outcome` is the rule catalogue's verdict on `inputs` (the
/// newest release's); this adds what the target release does not accept (CR0007, CR0008) and
/// removes the newest release's errors at paths only the target knows (a field or enum value
/// the newest release dropped). For the newest release nothing changes.
pub fn apply_to_outcome(
    release: &'static Release,
    inputs: &[InputDocument<'_>],
    outcome: &mut ValidationOutcome,
) {
    if release.is_newest() {
        // The generated types and the catalogue give the schema's verdict; the operator's
        // may still differ from v1.42.3's.
        crate::defaults::apply_operator_verdicts(release, inputs, outcome);
        crate::diag::sort_diagnostics(&mut outcome.diagnostics);
        return;
    }
    let mut only_in_target: Vec<(String, usize, String)> = Vec::new();
    let mut replaced: Vec<(String, usize, String)> = Vec::new();
    for input in inputs {
        let document = input.document;
        let Some(kind) = indexed_kind(&document.value) else {
            continue;
        };
        for finding in check_object(release, kind, &document.value) {
            if let Finding::OnlyInTarget { path } = &finding {
                let path = document.spans.full_path(path);
                only_in_target.push((input.file.to_owned(), document.index, path));
                continue;
            }
            let Some(mut diag) = diagnostic(release, &finding) else {
                continue;
            };
            if let Finding::UnknownField { path, .. } = &finding {
                // Said more precisely than the newest release's "unknown field".
                let path = document.spans.full_path(path);
                replaced.push((input.file.to_owned(), document.index, path));
            }
            let pos = if diag.code == c::RELEASE_UNKNOWN_FIELD.code {
                document.spans.locate_key(&diag.path)
            } else {
                document.spans.locate(&diag.path)
            }
            .unwrap_or(document.start);
            diag.path = document.spans.full_path(&diag.path);
            // A bound the catalogue already refuses at this field (CR3011's int32 AS number,
            // CR1008's block size) is said once, in the catalogue's more precise words.
            let said = matches!(finding, Finding::OutOfBounds { .. })
                && outcome.diagnostics.iter().any(|other| {
                    other.severity == Severity::Error
                        && other.path == diag.path
                        && other.location.as_ref().is_some_and(|loc| {
                            loc.file == input.file && loc.document == document.index
                        })
                });
            if said {
                continue;
            }
            diag.location = Some(Location {
                file: input.file.to_owned(),
                document: document.index,
                line: Some(pos.line),
                column: Some(pos.column),
            });
            outcome.diagnostics.push(diag);
        }
    }
    let at = |list: &[(String, usize, String)], diag: &Diagnostic| {
        diag.location.as_ref().is_some_and(|loc| {
            list.iter().any(|(file, doc, path)| {
                *file == loc.file && *doc == loc.document && *path == diag.path
            })
        })
    };
    outcome.diagnostics.retain(|diag| {
        let set_aside = diag.severity == Severity::Error && at(&only_in_target, diag);
        let restated = diag.code == c::UNKNOWN_FIELD.code && at(&replaced, diag);
        !(set_aside || restated)
    });
    // Where the release's operator judges otherwise than v1.42.3 (docs/releases.md).
    crate::defaults::apply_operator_verdicts(release, inputs, outcome);
    crate::diag::sort_diagnostics(&mut outcome.diagnostics);
}

/// Write into `object` (of `kind`) the `default:` values of `release`'s CRD schema that it
/// lacks, as the API server does on a write: a field with a default is filled in under every
/// object node the value has (from `spec` down, through list items and map values). Paths in
/// `skip` (`spec.nftablesMode`) are left out: fields another writer owns.
pub fn fill_crd_defaults(release: &Release, kind: &str, object: &mut Value, skip: &[&str]) {
    let Some(spec_node) = release.index().node(kind, "spec") else {
        return;
    };
    if let Some(spec) = object.get_mut("spec") {
        fill_node(spec_node, spec, "spec", skip);
    }
}

fn fill_node(node: &Node, value: &mut Value, path: &str, skip: &[&str]) {
    match value {
        Value::Object(map) => {
            for (key, child) in node.properties() {
                let child_path = format!("{path}.{key}");
                if !map.contains_key(key)
                    && let Some(default) = &child.default
                    && !skip.contains(&child_path.as_str())
                {
                    map.insert(key.to_owned(), default.clone());
                }
            }
            if let Some(values) = node.values() {
                for child in map.values_mut() {
                    fill_node(values, child, &format!("{path}.*"), skip);
                }
            } else {
                for (key, child) in map.iter_mut() {
                    if let Some(child_node) = node.property(key) {
                        fill_node(child_node, child, &format!("{path}.{key}"), skip);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_node) = node.items() {
                for item in items {
                    fill_node(item_node, item, &format!("{path}[*]"), skip);
                }
            }
        }
        _ => {}
    }
}

/// Whether the release of `version` (the default release when it names none) has the field at
/// `path` (index path: keys, `[*]`, `*`) in `kind`.
pub fn knows(version: &str, kind: &str, path: &str) -> bool {
    Release::for_version(version)
        .unwrap_or_else(|_| Release::default_target())
        .index()
        .node(kind, path)
        .is_some()
}

/// CN0112 at `spec.apiMode`: `what` (native v3 CRDs) in a release that has none.
fn api_mode_problem(release: &Release, what: &str) -> Diagnostic {
    let first = RELEASES
        .iter()
        .find(|r| r.native_v3_crds)
        .unwrap_or(Release::newest());
    Diagnostic {
        severity: c::CN_RELEASE.severity,
        code: c::CN_RELEASE.code,
        path: "spec.apiMode".to_owned(),
        message: format!(
            "{what} cannot be expressed in {release} ({}): it has no native projectcalico.org/v3 CRDs; they first appear in {first}",
            release.calico
        ),
        hint: Some(format!(
            "set `apiMode: Aggregated`, or `spec.calicoVersion: {}` or later",
            first.calico
        )),
        location: None,
    }
}

/// What a ClusterNetwork asks for that the release in its `spec.calicoVersion` cannot express:
/// a field or value of the compiled objects the release's schema lacks (CN0112), reported at
/// the ClusterNetwork field it came from. Empty for the newest release.
pub fn cluster_network_problems(
    cluster_network: &crate::cluster_network::ClusterNetwork,
    objects: &[crate::objects::Object],
) -> Vec<Diagnostic> {
    let Ok(release) = Release::for_version(&cluster_network.spec.calico_version) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let v3_objects: Vec<String> = objects
        .iter()
        .map(crate::objects::Object::to_value)
        .filter(|v| v.get("apiVersion").and_then(Value::as_str) == Some("projectcalico.org/v3"))
        .filter_map(|v| v.get("kind").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let spec = &cluster_network.spec;
    let native = spec.resolved_api_mode() == crate::cluster_network::ApiMode::NativeV3;
    if !release.native_v3_crds && spec.api_mode.is_some() && native {
        out.push(api_mode_problem(release, "`spec.apiMode: NativeV3`"));
    } else if !release.native_v3_crds && native && !v3_objects.is_empty() {
        let first = RELEASES
            .iter()
            .find(|r| r.native_v3_crds)
            .unwrap_or(Release::newest());
        out.push(Diagnostic {
            severity: c::CN_RELEASE.severity,
            code: c::CN_RELEASE.code,
            path: "spec.calicoAPIServer".to_owned(),
            message: format!(
                "`spec.calicoAPIServer: false` cannot be expressed in {release} ({}): the projectcalico.org/v3 objects ({}) are served there only by the Calico API server; native projectcalico.org/v3 CRDs first appear in {first}",
                release.calico,
                v3_objects.join(", ")
            ),
            hint: Some(format!(
                "keep the Calico API server (remove `calicoAPIServer: false`), or set `spec.calicoVersion: {}` or later",
                first.calico
            )),
            location: None,
        });
    } else if !native && !spec.calico_api_server && !v3_objects.is_empty() {
        out.push(Diagnostic {
            severity: c::CN_INVALID_VALUE.severity,
            code: c::CN_INVALID_VALUE.code,
            path: "spec.calicoAPIServer".to_owned(),
            message: format!(
                "with `apiMode: Aggregated` only the Calico API server serves projectcalico.org/v3, so without APIServer `default` the kube-apiserver has no such kind for the rendered {}",
                v3_objects.join(", ")
            ),
            hint: Some("remove `calicoAPIServer: false`, or set `apiMode: NativeV3`".to_owned()),
            location: None,
        });
    }
    for object in objects {
        let value = object.to_value();
        let Some(kind) = indexed_kind(&value) else {
            continue;
        };
        for finding in check_object(release, kind, &value) {
            let (path, what, first) = match &finding {
                Finding::UnknownField { path, first, .. } => (
                    path,
                    format!("needs the {kind} field `{path}`"),
                    Some(*first),
                ),
                Finding::UnknownValue {
                    path, value, first, ..
                } => (
                    path,
                    format!("needs `{value}` in the {kind} field `{path}`"),
                    Some(*first),
                ),
                Finding::OutOfBounds { path, message } => (
                    path,
                    format!("sets the {kind} field `{path}`, which {message}"),
                    None,
                ),
                Finding::OnlyInTarget { .. } => continue,
            };
            let field = crate::cluster_network::origin(cluster_network, object, path);
            let message = match first {
                Some(first) => format!(
                    "`{field}` cannot be expressed in {release} ({}): it {what}, which first appears in {first}",
                    release.calico
                ),
                None => format!(
                    "`{field}` cannot be expressed in {release} ({}): it {what}",
                    release.calico
                ),
            };
            let hint = match first {
                Some(first) => format!(
                    "set `spec.calicoVersion: {}` or later, or remove `{field}`",
                    first.calico
                ),
                None => format!("change `{field}`"),
            };
            out.push(Diagnostic {
                severity: c::CN_RELEASE.severity,
                code: c::CN_RELEASE.code,
                path: field,
                message,
                hint: Some(hint),
                location: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn crd_defaults_are_filled_as_the_api_server_fills_them() {
        // `default:` values in crds/release-v3.33-6609dea: IPPool `nodeSelector: all()` and
        // `assignmentMode: Automatic`; Installation `calicoLibHostPath: /var/lib/calico`,
        // `calicoRunHostPath: /var/run/calico`; FelixConfiguration `nftablesMode: Auto`,
        // `nftablesFlowTableOffload: Disabled`.
        let v3_33 = Release::for_version("v3.33.0").unwrap();
        let mut pool = json!({"spec": {"cidr": "10.0.0.0/16", "nodeSelector": "mine"}});
        fill_crd_defaults(v3_33, "IPPool", &mut pool, &[]);
        assert_eq!(
            pool,
            json!({"spec": {"cidr": "10.0.0.0/16", "nodeSelector": "mine",
                "assignmentMode": "Automatic"}})
        );
        let mut installation = json!({"spec": {}});
        fill_crd_defaults(v3_33, "Installation", &mut installation, &[]);
        assert_eq!(installation["spec"]["calicoLibHostPath"], "/var/lib/calico");
        assert_eq!(installation["spec"]["calicoRunHostPath"], "/var/run/calico");
        // Below a field only when the value has it: no `networkPolicy`, no managePolicies.
        assert!(installation["spec"].get("networkPolicy").is_none());
        let mut felix = json!({"spec": {}});
        fill_crd_defaults(
            v3_33,
            "FelixConfiguration",
            &mut felix,
            &["spec.nftablesMode"],
        );
        assert_eq!(
            felix,
            json!({"spec": {"nftablesFlowTableOffload": "Disabled"}})
        );
        // v3.32.1 has neither Installation field.
        let mut installation = json!({"spec": {}});
        fill_crd_defaults(
            Release::default_target(),
            "Installation",
            &mut installation,
            &[],
        );
        assert!(installation["spec"].get("calicoLibHostPath").is_none());
        assert!(Release::newest().renders_crd_defaults);
        assert!(!Release::default_target().renders_crd_defaults);
    }

    #[test]
    fn versions_map_to_their_minor() {
        assert_eq!(
            Release::for_version("v3.30.7").unwrap().operator,
            "v1.38.13"
        );
        assert_eq!(
            Release::for_version("v3.31.2").unwrap().operator,
            "v1.40.15"
        );
        assert_eq!(Release::for_version("v3.32.1").unwrap().operator, "v1.42.3");
        assert_eq!(Release::for_version("v3.33.0").unwrap().operator, "v1.44.0");
        assert_eq!(Release::for_version("v3.33.4").unwrap().minor, "v3.33");
        for bad in [
            "v3.29.4", "v3.34.0", "3.32.1", "v3.32", "v3.32.", "v3.32.x", "v3.320.1", "v3.33",
        ] {
            let err = Release::for_version(bad).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "Calico version `{bad}` is not supported; supported: v3.30.x, v3.31.x, \
                     v3.32.x, v3.33.x (v3.33: data from projectcalico/calico's release-v3.33 \
                     branch at 6609dea (2026-08-21) and tigera/operator's release-v1.44 branch \
                     at b0c1cc5 (2026-08-19), a few weeks before the v3.33.0 tag, not from the tag)"
                )
            );
        }
        assert!(Release::newest().is_newest());
        assert_eq!(Release::newest().minor, "v3.33");
        // The default stays v3.32 until the snapshots move (docs/releases.md).
        assert_eq!(Release::default_target().minor, "v3.32");
        assert!(!RELEASES[0].is_newest());
        // Upstream supports the two newest minors (SECURITY.md).
        let supported: Vec<_> = RELEASES
            .iter()
            .map(|r| (r.minor, r.upstream_supported()))
            .collect();
        assert_eq!(
            supported,
            [
                ("v3.30", false),
                ("v3.31", false),
                ("v3.32", true),
                ("v3.33", true)
            ]
        );
    }

    #[test]
    fn lines_split_as_str_lines_does() {
        for text in ["", "a", "a\n", "a\nb", "a\n\nb\n", "\n"] {
            assert_eq!(
                lines(text).filter(|l| !l.is_empty()).collect::<Vec<_>>(),
                text.lines().filter(|l| !l.is_empty()).collect::<Vec<_>>(),
                "{text:?}"
            );
        }
        assert_eq!(lines("x\ny").next(), Some("x"));
    }

    #[test]
    fn a_line_is_found_by_its_kind_whatever_its_key_order() {
        let index = Index::parse(concat!(
            "// a comment\n",
            r#"{"kind":"A\u0062c","schema":{"type":"object","properties":{"x":{"type":"string"}}}}"#,
            "\n",
            r#"{"schema":{"type":"string"},"kind":"B"}"#,
            "\n"
        ));
        assert_eq!(index.kinds().collect::<Vec<_>>(), ["Abc", "B"]);
        assert_eq!(
            index.node("Abc", "x").map(|n| n.ty.as_str()),
            Some("string")
        );
        assert_eq!(index.kind("B").map(|n| n.ty.as_str()), Some("string"));
    }

    #[test]
    fn every_index_reads_and_has_the_kinds_we_emit() {
        for release in &RELEASES {
            let kinds: Vec<&str> = release.index().kinds().collect();
            for kind in [
                "APIServer",
                "Goldmane",
                "Whisker",
                "BGPConfiguration",
                "BGPPeer",
                "FelixConfiguration",
                "IPPool",
                "Installation",
            ] {
                assert!(kinds.contains(&kind), "{} has no {kind}", release.calico);
            }
        }
    }

    /// Every node of every index read, and the marks codegen wrote checked against what is
    /// below each node: a rule or a list type under an unmarked node would never be checked.
    #[test]
    fn the_marks_lead_to_every_rule_and_list_type() {
        // (rules at or below, list types at or below), with the path of the first wrong mark.
        fn below(node: &Node, path: &str, wrong: &mut Vec<String>) -> (bool, bool) {
            let mut cel = !node.cel.is_empty();
            let mut list = node.list_type.is_some();
            let children = node
                .properties()
                .map(|(key, child)| (format!("{path}.{key}"), child))
                .chain(node.items().map(|child| (format!("{path}[*]"), child)))
                .chain(node.values().map(|child| (format!("{path}.*"), child)));
            for (child_path, child) in children {
                let (child_cel, child_list) = below(child, &child_path, wrong);
                cel |= child_cel;
                list |= child_list;
            }
            let marked = |holds: fn(&Node) -> bool| -> Vec<&str> {
                node.properties()
                    .filter(|(_, child)| holds(child))
                    .map(|(key, _)| key)
                    .collect()
            };
            if (cel, list) != (node.holds_cel, node.holds_list_type)
                || node.cel_fields() != marked(|child| child.holds_cel)
                || node.list_type_fields() != marked(|child| child.holds_list_type)
            {
                wrong.push(path.to_owned());
            }
            (cel, list)
        }
        let mut marked = (0, 0);
        for release in &RELEASES {
            for kind in release.index().kinds() {
                let root = release.index().kind(kind).unwrap();
                let mut wrong = Vec::new();
                below(root, kind, &mut wrong);
                assert!(
                    wrong.is_empty(),
                    "{}: wrong marks at {wrong:?}",
                    release.calico
                );
                marked.0 += usize::from(root.holds_cel);
                marked.1 += usize::from(root.holds_list_type);
            }
        }
        // Both marks are in use (the IPPool has rules and `allowedUses` is a set, in each release).
        assert!(
            marked.0 >= RELEASES.len() && marked.1 >= RELEASES.len(),
            "{marked:?}"
        );
    }
    #[test]
    fn paths_walk_items_and_maps() {
        let index = RELEASES[2].index();
        assert_eq!(
            index
                .node("Installation", "spec.calicoNetwork.ipPools[*].cidr")
                .unwrap()
                .ty,
            "string"
        );
        assert_eq!(
            index.node("IPPool", "spec.cidr").unwrap().max_length,
            Some(48)
        );
        assert!(
            index
                .node("Installation", "spec.calicoNetwork.nope")
                .is_none()
        );
        assert!(
            index
                .node("Installation", "spec.controlPlaneNodeSelector.some-label")
                .is_some()
        );
    }

    #[test]
    fn a_field_of_a_later_release_names_it() {
        let felix = json!({"apiVersion": "projectcalico.org/v3", "kind": "FelixConfiguration",
            "metadata": {"name": "default"}, "spec": {"bpfJITHardening": "Auto", "logSeverityScreen": "Info"}});
        let findings = check_object(&RELEASES[0], "FelixConfiguration", &felix);
        assert_eq!(
            findings,
            [Finding::UnknownField {
                path: "spec.bpfJITHardening".into(),
                field: "bpfJITHardening".into(),
                first: &RELEASES[1]
            }]
        );
        assert!(check_object(&RELEASES[1], "FelixConfiguration", &felix).is_empty());
        assert!(check_object(&RELEASES[2], "FelixConfiguration", &felix).is_empty());
    }

    #[test]
    fn an_enum_value_of_a_later_release_names_it() {
        let installation = json!({"spec": {"kubernetesProvider": "Kind"}});
        let findings = check_object(&RELEASES[0], "Installation", &installation);
        assert!(
            matches!(&findings[..], [Finding::UnknownValue { first, value, .. }] if value == "Kind" && std::ptr::eq(*first, &RELEASES[1])),
            "{findings:?}"
        );
    }

    #[test]
    fn an_integer_outside_the_targets_format_is_out_of_bounds() {
        // v3.32.1 declares `iptablesMarkMask` an int32; the v3.33 branch an int64 up to
        // 4294967295 (both CRD files in crds/).
        let v3_32 = Release::for_version("v3.32.1").expect("supported");
        let mask = |n: u64| json!({"spec": {"iptablesMarkMask": n}});
        let findings = check_object(v3_32, "FelixConfiguration", &mask(4_294_967_295));
        assert!(
            matches!(&findings[..], [Finding::OutOfBounds { path, .. }] if path == "spec.iptablesMarkMask"),
            "{findings:?}"
        );
        for n in [2_147_483_647, 0xffff_0000 >> 1] {
            assert!(check_object(v3_32, "FelixConfiguration", &mask(n)).is_empty());
        }
        assert!(check_object(v3_32, "FelixConfiguration", &mask(2_147_483_648)).len() == 1);
    }

    #[test]
    fn what_only_the_target_knows_is_marked() {
        let felix = json!({"spec": {"bpfRedirectToPeer": "L2Only", "iptablesLockTimeout": "10s"}});
        let findings = check_object(&RELEASES[1], "FelixConfiguration", &felix);
        assert_eq!(
            findings,
            [
                Finding::OnlyInTarget {
                    path: "spec.bpfRedirectToPeer".into()
                },
                Finding::OnlyInTarget {
                    path: "spec.iptablesLockTimeout".into()
                },
            ]
        );
    }
}
