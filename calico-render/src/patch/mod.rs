//! Drift between live objects and the desired ones, as guarded RFC 6902 JSON patches.
//!
//! The input is the desired object (what our rendering of the spec sets, explicit operator
//! defaults included) and the live object as `kubectl get -o yaml` prints it (status,
//! `managedFields`, `resourceVersion` and all).
//! The output is the smallest JSON patch that makes every *managed* field of the live object
//! equal to the desired one.
//!
//! - A field is managed when the desired object sets it: everything under the desired object's
//!   top-level fields except `apiVersion`, `kind`, `metadata` and `status`, plus the desired
//!   `metadata.labels` and `metadata.annotations` entries.
//!   A `null` in the desired object means "not set" and is not managed.
//!   Fields only the live object has (the operator's written-back defaults, status, metadata)
//!   are never touched, with one exception: a field that Calico rejects next to a desired one
//!   (BGPPeer `peerIP` when the desired peer uses `peerSelector`) is removed.
//! - Lists are atomic (replaced as a whole when they differ), except keyed lists: the
//!   Installation's `spec.calicoNetwork.ipPools` is matched by pool `name`, never by position.
//!   Every group of operations on pool `N` is preceded by a `test` of
//!   `/spec/calicoNetwork/ipPools/N/name`, so the patch fails instead of editing the wrong pool
//!   when the list moved; the list itself is never replaced.
//!   Objects whose members are alternatives (node address autodetection) are atomic too.
//! - Changes Calico cannot make in place (a pool's `cidr` or `blockSize`, a pool switching to or
//!   from LoadBalancer use) are refused with the migration steps as the hint.
//! - Before a patch is returned it is applied to the live object with the `json-patch` crate
//!   and the result is checked against the desired object; a patch that fails that check is an
//!   internal error, never output.
//!
//! ```no_run
//! use serde_json::json;
//!
//! let desired = json!({
//!     "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
//!     "metadata": {"name": "default"},
//!     "spec": {"calicoNetwork": {"mtu": 1400}},
//! });
//! let live = json!({
//!     "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
//!     "metadata": {"name": "default", "resourceVersion": "48213"},
//!     "spec": {"calicoNetwork": {"mtu": 1450, "bgp": "Enabled"}},
//!     "status": {"mtu": 1450},
//! });
//! let patch = calico_render::patch::diff_object(&desired, &live)?;
//! assert_eq!(patch.to_json(), r#"[{"op":"replace","path":"/spec/calicoNetwork/mtu","value":1400}]"#);
//! # Ok::<(), calico_render::patch::PatchError>(())
//! ```

mod day_two;
mod diff;
mod kubectl;
pub(crate) mod object;
mod rules;
mod unstated;
mod verify;

use std::fmt;

use serde_json::Value;

pub use day_two::{DayTwo, DayTwoOptions, day_two, day_two_objects};
pub use kubectl::{kubectl_command, kubectl_resource, shell_quote};
pub use object::{ObjectId, Side};
pub use unstated::{Unstated, keep_unstated};

/// A JSON patch for one object, with what the user should know about it.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectPatch {
    id: ObjectId,
    patch: json_patch::Patch,
    notes: Vec<Note>,
}

impl ObjectPatch {
    /// A patch made elsewhere in the crate (a `plan` step), without notes.
    pub(crate) fn from_parts(id: ObjectId, patch: json_patch::Patch) -> ObjectPatch {
        ObjectPatch {
            id,
            patch,
            notes: Vec::new(),
        }
    }

    /// The object the patch applies to.
    pub fn id(&self) -> &ObjectId {
        &self.id
    }

    /// The RFC 6902 operations, in the order they must be applied; empty when nothing differs.
    pub fn patch(&self) -> &json_patch::Patch {
        &self.patch
    }

    /// True when the live object already matches the desired one on every managed field.
    pub fn is_empty(&self) -> bool {
        self.patch.0.is_empty()
    }

    /// Things worth telling the user about this patch (for standard error).
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The patch as plain RFC 6902 JSON: an array of `{"op", "path", ...}` objects.
    ///
    /// This is the bridge to crates built on another json-patch version than ours (5). kube
    /// 5.0's `Patch::Json` takes json-patch 4's `Patch`, which reads this value as it is:
    ///
    /// ```text
    /// // in a crate that depends on kube 5 and json-patch 4 (not compiled here)
    /// let ops: json_patch::Patch = serde_json::from_value(object_patch.to_rfc6902())?;
    /// let api: kube::Api<Installation> = kube::Api::all(client);
    /// api.patch("default", &kube::api::PatchParams::default(), &kube::api::Patch::Json::<()>(ops)).await?;
    /// ```
    ///
    /// ```
    /// use serde_json::json;
    ///
    /// let desired = json!({
    ///     "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
    ///     "metadata": {"name": "default"},
    ///     "spec": {"calicoNetwork": {"mtu": 1400}},
    /// });
    /// let live = json!({
    ///     "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
    ///     "metadata": {"name": "default"},
    ///     "spec": {"calicoNetwork": {"mtu": 1450}},
    /// });
    /// let patch = calico_render::patch::diff_object(&desired, &live)?;
    /// assert_eq!(
    ///     patch.to_rfc6902(),
    ///     json!([{"op": "replace", "path": "/spec/calicoNetwork/mtu", "value": 1400}]),
    /// );
    /// # Ok::<(), calico_render::patch::PatchError>(())
    /// ```
    #[expect(
        clippy::expect_used,
        reason = "a patch built from serde_json values always serializes"
    )]
    pub fn to_rfc6902(&self) -> Value {
        serde_json::to_value(&self.patch)
            .expect("a JSON patch built from serde_json values serializes")
    }

    /// The patch as the compact JSON array `kubectl patch --type=json -p` takes.
    pub fn to_json(&self) -> String {
        patch_to_json(&self.patch)
    }

    /// The patch as one JSON object on one line:
    /// `{"apiVersion","kind","name","namespace","patch":[...]}` (namespace omitted for
    /// cluster-scoped objects).
    #[expect(
        clippy::expect_used,
        reason = "a patch built from serde_json values always serializes"
    )]
    pub fn to_json_line(&self) -> String {
        /// The wire shape of one line; a struct keeps the key order fixed.
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Line<'a> {
            api_version: &'a str,
            kind: &'a str,
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            namespace: Option<&'a str>,
            patch: &'a json_patch::Patch,
        }
        let line = Line {
            api_version: &self.id.api_version,
            kind: &self.id.kind,
            name: &self.id.name,
            namespace: self.id.namespace.as_deref(),
            patch: &self.patch,
        };
        serde_json::to_string(&line).expect("a patch line holds only strings and JSON values")
    }
}

/// Serialize a patch as a compact JSON array.
#[expect(
    clippy::expect_used,
    reason = "a patch built from serde_json values always serializes"
)]
pub(crate) fn patch_to_json(patch: &json_patch::Patch) -> String {
    serde_json::to_string(patch).expect("a JSON patch built from serde_json values serializes")
}

/// The patches for a stream of live objects, with the notes about objects that were not patched.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamPatch {
    patches: Vec<ObjectPatch>,
    notes: Vec<Note>,
    single: bool,
}

impl StreamPatch {
    /// One patch per object present on both sides, in the order of the desired stream
    /// (bundle order); patches that are empty are included.
    pub fn patches(&self) -> &[ObjectPatch] {
        &self.patches
    }

    /// Notes about the stream as a whole (objects on one side only), for standard error.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// True when the live stream held exactly one object (after expanding `List`s): its patch
    /// is then printed as a bare RFC 6902 array.
    pub fn is_single(&self) -> bool {
        self.single
    }

    /// The patches that change something.
    pub fn changed(&self) -> impl Iterator<Item = &ObjectPatch> {
        self.patches.iter().filter(|patch| !patch.is_empty())
    }
}

/// How [`render_output`] prints a stream's patches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// RFC 6902 JSON: with one live object, its bare array (`[]` when nothing differs); with
    /// several, one `{"apiVersion","kind","name","namespace","patch"}` line per object that
    /// differs.
    Json,
    /// One `kubectl patch ... --type=json -p '...'` command line per object that differs.
    Kubectl,
}

/// The complete standard output for a stream's patches, one line per patch or command.
///
/// Everything is formatted before anything is printed, so that an error leaves the output
/// empty.
pub fn render_output(stream: &StreamPatch, format: Format) -> Result<String, PatchError> {
    let mut text = String::new();
    match format {
        Format::Json if stream.is_single() => {
            if let Some(object) = stream.patches().first() {
                text.push_str(&object.to_json());
                text.push('\n');
            }
        }
        Format::Json => {
            for object in stream.changed() {
                text.push_str(&object.to_json_line());
                text.push('\n');
            }
        }
        Format::Kubectl => {
            for object in stream.changed() {
                text.push_str(&kubectl_command(object)?);
                text.push('\n');
            }
        }
    }
    Ok(text)
}

/// Something the user should know that does not stop the patch (printed on standard error).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Note {
    /// The desired stream has an object the live stream lacks; a patch cannot create it.
    MissingInLive(ObjectId),
    /// The live stream has an object the desired stream does not mention; it is left alone.
    OnlyInLive(ObjectId),
    /// The live object was read through the `crd.projectcalico.org` backing group, which we do
    /// not patch (writes there bypass Calico's validation).
    BackingGroup(ObjectId),
    /// The patch changes the endpoint ConfigMap, which the operator process reads into its
    /// environment only when it starts.
    RestartOperator(ObjectId),
    /// The patch removes a pool; pods still using its addresses should be moved off it first.
    PoolRemoved {
        /// The object holding the pool list.
        object: ObjectId,
        /// The name of the removed pool.
        pool: String,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::MissingInLive(id) => write!(
                f,
                "DESIRED has {id} but LIVE does not; a patch cannot create it: apply it with \
                 `calico-render render ... | kubectl apply --server-side -f -`"
            ),
            Note::OnlyInLive(id) => {
                write!(
                    f,
                    "LIVE has {id}, which DESIRED does not mention; left untouched"
                )
            }
            Note::BackingGroup(id) => {
                let resource = kubectl::calico_resource(&id.kind);
                write!(
                    f,
                    "LIVE has {id}, read through the crd.projectcalico.org backing group, which is \
                     never patched; read it with `kubectl get {resource} {} -o yaml` and run again",
                    id.name
                )
            }
            Note::RestartOperator(id) => write!(
                f,
                "the patch changes {id}; restart the operator afterwards so it rereads it: \
                 `kubectl -n {} rollout restart deploy/tigera-operator`",
                id.namespace.as_deref().unwrap_or("tigera-operator")
            ),
            Note::PoolRemoved { object, pool } => write!(
                f,
                "the patch removes pool {pool} from {object}; make sure no workload still uses \
                 it (set disableNewAllocations: true and restart the pods on it first)"
            ),
        }
    }
}

/// A change Calico cannot apply in place.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The object holding the field.
    pub object: ObjectId,
    /// The field path in the live object, e.g. `spec.calicoNetwork.ipPools[0].cidr`.
    pub path: String,
    /// The name of the pool the field belongs to.
    pub pool: String,
    /// The live value (after the pool defaults, where the live object omits it).
    pub live: Value,
    /// The desired value.
    pub desired: Value,
    /// How to make the change instead.
    pub hint: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} of pool {} cannot change from {} to {} in place",
            self.object, self.path, self.pool, self.live, self.desired
        )
    }
}

/// A pool the patch would remove from an Installation's list, refused without
/// [`DayTwoOptions::remove_pools`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRemoval {
    /// The object holding the pool list.
    pub object: ObjectId,
    /// The name of the pool LIVE lists and DESIRED does not.
    pub pool: String,
}

impl PoolRemoval {
    /// The steps that remove the pool safely, and the opt-in.
    pub fn hint(&self) -> String {
        let pool = &self.pool;
        format!(
            "removing a pool that still holds addresses breaks the pods using them; do it in \
             steps: set disableNewAllocations: true on pool {pool}, move the workloads off it \
             (restart their pods), then remove pool {pool} from the list; `calico-render plan` \
             (same flags) prints these steps, guarded, with what to wait for and how to undo \
             each; once no workload uses pool {pool}, `--remove-pools` prints the removal"
        )
    }
}

impl fmt::Display for PoolRemoval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: LIVE lists pool {} and DESIRED does not; refusing to remove it without \
             --remove-pools",
            self.object, self.pool
        )
    }
}

/// Why no patch could be computed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PatchError {
    /// A stream holds no object at all.
    #[error("{side} holds no object; expected at least one Kubernetes object")]
    Empty {
        /// Which input is empty.
        side: Side,
    },
    /// A document is not a mapping.
    #[error(
        "{side} document {} is not a mapping; expected a Kubernetes object with \
         apiVersion, kind and metadata.name",
        document + 1
    )]
    NotAnObject {
        /// Which input the document is in.
        side: Side,
        /// Zero-based index of the object in its (flattened) stream (the message counts from 1).
        document: usize,
    },
    /// A document lacks one of the fields that identify an object.
    #[error(
        "{side} document {} has no {field}; every object needs apiVersion, kind and \
         metadata.name",
        document + 1
    )]
    MissingIdentity {
        /// Which input the document is in.
        side: Side,
        /// Zero-based index of the object in its (flattened) stream (the message counts from 1).
        document: usize,
        /// The missing field, e.g. `metadata.name`.
        field: &'static str,
    },
    /// The same object appears twice in one stream.
    #[error("{side} holds {id} twice; keep one copy")]
    DuplicateObject {
        /// Which input holds the duplicate.
        side: Side,
        /// The duplicated object.
        id: Box<ObjectId>,
    },
    /// The two objects handed to [`diff_object`] are not the same object.
    #[error("DESIRED is {desired} but LIVE is {live}; a patch needs the same object on both sides")]
    ObjectMismatch {
        /// The desired object.
        desired: Box<ObjectId>,
        /// The live object.
        live: Box<ObjectId>,
    },
    /// The only live object has no counterpart in the desired stream.
    #[error("LIVE holds {live} but DESIRED has no such object; DESIRED has: {}", list_ids(.desired))]
    NoMatchingObject {
        /// The live object.
        live: Box<ObjectId>,
        /// The objects the desired stream holds.
        desired: Vec<ObjectId>,
    },
    /// The only live object was read through the `crd.projectcalico.org` backing group.
    #[error(
        "LIVE holds {live}, read through the crd.projectcalico.org backing group, which is never \
         patched; read it with `kubectl get {} {} -o yaml` and run again",
        kubectl::calico_resource(&.live.kind),
        .live.name
    )]
    BackingGroup {
        /// The live object.
        live: Box<ObjectId>,
    },
    /// An element of a keyed list has no key, so it cannot be matched.
    #[error(
        "{side} {object}: {path} has no {key}; pools are matched by {key}: give it one \
         (`kubectl get installation default -o yaml` shows the names the operator chose)"
    )]
    UnkeyedItem {
        /// Which input holds the element.
        side: Side,
        /// The object holding the list.
        object: Box<ObjectId>,
        /// The field path of the element, e.g. `spec.calicoNetwork.ipPools[1]`.
        path: String,
        /// The key field, `name`.
        key: &'static str,
    },
    /// Two elements of a keyed list have the same key.
    #[error("{side} {object}: {path} holds two entries with {key} {value}; names must be unique")]
    DuplicateKey {
        /// Which input holds the list.
        side: Side,
        /// The object holding the list.
        object: Box<ObjectId>,
        /// The field path of the list, e.g. `spec.calicoNetwork.ipPools`.
        path: String,
        /// The key field, `name`.
        key: &'static str,
        /// The duplicated key value.
        value: String,
    },
    /// The desired state needs changes Calico cannot apply in place.
    #[error(
        "refusing to patch: {} change(s) cannot be applied in place: {}",
        .refusals.len(),
        list_refusals(.refusals)
    )]
    Refused {
        /// Every refused change, each with its migration hint.
        refusals: Vec<Refusal>,
    },
    /// The patch would remove pools and [`DayTwoOptions::remove_pools`] is not set.
    #[error(
        "refusing to patch: {} pool(s) would be removed without --remove-pools: {}",
        .removals.len(),
        .removals.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    PoolsRemoved {
        /// Every pool the patch would remove, each with the steps as its hint.
        removals: Vec<PoolRemoval>,
    },
    /// The patch would edit a projectcalico.org/v3 IPPool the operator owns.
    #[error(
        "{id} is owned by the tigera-operator (label app.kubernetes.io/managed-by: \
         tigera-operator), which silently reverts direct edits; change the pool in the \
         Installation's spec.calicoNetwork.ipPools instead"
    )]
    OperatorOwned {
        /// The pool.
        id: Box<ObjectId>,
    },
    /// The object kind has no known `kubectl` resource name.
    #[error(
        "no kubectl resource name is known for {id}; supported kinds: {}",
        kubectl::supported_kinds()
    )]
    UnsupportedKind {
        /// The object.
        id: Box<ObjectId>,
    },
    /// The computed patch failed the self-check; this is a bug, and nothing is printed.
    #[error(
        "internal error: the patch computed for {object} failed its self-check ({detail}); \
         nothing was printed, please report this with both inputs"
    )]
    SelfCheck {
        /// The object the patch was computed for.
        object: Box<ObjectId>,
        /// What went wrong.
        detail: String,
    },
}

impl PatchError {
    /// True when the error is a bug in calico-render rather than a problem with the input.
    pub fn is_internal(&self) -> bool {
        matches!(self, PatchError::SelfCheck { .. })
    }
}

fn list_ids(ids: &[ObjectId]) -> String {
    if ids.is_empty() {
        return "nothing".to_owned();
    }
    ids.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_refusals(refusals: &[Refusal]) -> String {
    refusals
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Compute the patch that takes `live` to `desired` on every managed field: the raw diff of
/// two objects.
///
/// Both values are whole objects (`apiVersion`, `kind`, `metadata.name`) and must name the
/// same object. Every field `desired` sets is managed, so a rendered Installation's operator
/// defaults revert a live value the cluster chose (a chart's `kubeletVolumePluginPath: None`);
/// [`day_two`] is the patch `calico-render patch` computes, which keeps such values.
pub fn diff_object(desired: &Value, live: &Value) -> Result<ObjectPatch, PatchError> {
    let desired_id = ObjectId::of(desired, Side::Desired, 0)?;
    let live_id = ObjectId::of(live, Side::Live, 0)?;
    if desired_id != live_id {
        return Err(PatchError::ObjectMismatch {
            desired: Box::new(desired_id),
            live: Box::new(live_id),
        });
    }
    let outcome = diff::diff_matched(&desired_id, desired, live)?;
    if !outcome.refusals.is_empty() {
        return Err(PatchError::Refused {
            refusals: outcome.refusals,
        });
    }
    Ok(outcome.patch)
}

/// Compute one patch per object present in both streams.
///
/// List documents (`kind: List`, what `kubectl get -o yaml` prints for several objects, and
/// calicoctl's typed `<Kind>List`s) are expanded.
/// Objects are matched by apiVersion, kind, namespace and name.
/// When the live stream holds exactly one object, it must have a counterpart in the desired
/// stream, and the other desired objects are ignored; otherwise objects present on one side
/// only become notes.
/// Refusals from every object are reported together.
pub fn diff_streams(desired: &[Value], live: &[Value]) -> Result<StreamPatch, PatchError> {
    let desired_items = object::flatten(desired);
    let live_items = object::flatten(live);
    let desired: Vec<&Value> = desired_items.iter().map(AsRef::as_ref).collect();
    let live: Vec<&Value> = live_items.iter().map(AsRef::as_ref).collect();
    if desired.is_empty() {
        return Err(PatchError::Empty {
            side: Side::Desired,
        });
    }
    if live.is_empty() {
        return Err(PatchError::Empty { side: Side::Live });
    }
    let desired_ids = object::identify(&desired, Side::Desired)?;
    let live_ids = object::identify(&live, Side::Live)?;

    let mut patches = Vec::new();
    let mut notes = Vec::new();
    let mut refusals = Vec::new();
    let mut live_used = vec![false; live.len()];
    #[expect(
        clippy::indexing_slicing,
        reason = "`live_ids` and `live_used` have one entry per live object, so their positions index `live`"
    )]
    for (desired_obj, desired_id) in desired.iter().zip(&desired_ids) {
        if let Some(live_idx) = live_ids.iter().position(|id| id == desired_id) {
            live_used[live_idx] = true;
            let outcome = diff::diff_matched(desired_id, desired_obj, live[live_idx])?;
            refusals.extend(outcome.refusals);
            patches.push(outcome.patch);
        } else if let Some(live_idx) = live_ids
            .iter()
            .position(|id| id.is_backing_twin_of(desired_id))
        {
            live_used[live_idx] = true;
            notes.push(Note::BackingGroup(live_ids[live_idx].clone()));
        } else if live.len() > 1 {
            // With one live object the user asked about that object only; the rest of the
            // desired stream missing from LIVE is expected, not news.
            notes.push(Note::MissingInLive(desired_id.clone()));
        }
    }
    if !refusals.is_empty() {
        return Err(PatchError::Refused { refusals });
    }
    if let ([used], [live_id]) = (live_used.as_slice(), live_ids.as_slice())
        && patches.is_empty()
    {
        if *used {
            return Err(PatchError::BackingGroup {
                live: Box::new(live_id.clone()),
            });
        }
        return Err(PatchError::NoMatchingObject {
            live: Box::new(live_id.clone()),
            desired: desired_ids,
        });
    }

    for (used, id) in live_used.iter().zip(&live_ids) {
        if !used {
            notes.push(Note::OnlyInLive(id.clone()));
        }
    }
    Ok(StreamPatch {
        patches,
        notes,
        single: live.len() == 1,
    })
}
