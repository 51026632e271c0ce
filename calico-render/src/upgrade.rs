//! What changes when a cluster described by a ClusterNetwork moves from the Calico release in
//! its `spec.calicoVersion` to another one, in the order to do it.
//!
//! The same ClusterNetwork text is loaded twice ([`calico_spec::cluster_network::load_for`]):
//! once for its own release, once as if `spec.calicoVersion` were the target. The first
//! rendering stands for the live objects, the second for the desired ones; their differences
//! are listed field by field and turned into guarded JSON patches by [`crate::patch`], so a
//! change Calico cannot make in place (a pool's `cidr` or `blockSize`) is refused exactly as
//! `calico-render patch` refuses it. What the target release cannot express (CN0112, or any
//! other error of the target's rendering) blocks the upgrade, placed in the ClusterNetwork
//! text.
//!
//! The steps, in order ([`Plan`]):
//! 1. the CRDs: the target's `operator-crds.yaml` (`v3_projectcalico_org.yaml` for a v3.32
//!    cluster with native projectcalico.org/v3 CRDs), replaced with `kubectl replace` since a
//!    client-side `kubectl apply` of CRDs this large fails; CRDs new in the target's bundle are
//!    created, CRDs it no longer carries are left alone ([`BUNDLE_EXTRAS`]);
//! 2. the tigera-operator the target pins (manifest or Helm chart);
//! 3. the objects whose rendering changes, with the patches.
//!
//! A downgrade is compared the same way but gets no steps: Calico documents upgrades only, and
//! the tigera-operator has no downgrade code path (v1.42.3 has none; a newer operator's CRDs
//! and written-back fields are not undone by an older one).

use serde_json::{Value, json};

use calico_spec::cluster_network::{self, Loaded, ParseError};
use calico_spec::diag::Diagnostic;
use calico_spec::objects::Object;
use calico_spec::release::Release;

use crate::patch::{self, ObjectId, ObjectPatch, PatchError, Refusal, Side};
use crate::report::{self, LintLevels};

/// The CRDs of a release's `operator-crds.yaml` that are not in every supported release's
/// bundle (the other 30 are in every one). Read from the bundles of v3.30.7, v3.31.7 and
/// v3.32.1 (`manifests/operator-crds.yaml` at those tags) and of the release-v3.33 branch.
pub const BUNDLE_EXTRAS: [(&str, &[&str]); 4] = [
    (
        "v3.30",
        &[
            "adminnetworkpolicies.policy.networking.k8s.io",
            "baselineadminnetworkpolicies.policy.networking.k8s.io",
        ],
    ),
    (
        "v3.31",
        &[
            "adminnetworkpolicies.policy.networking.k8s.io",
            "baselineadminnetworkpolicies.policy.networking.k8s.io",
        ],
    ),
    (
        "v3.32",
        &[
            "clusternetworkpolicies.policy.networking.k8s.io",
            "istios.operator.tigera.io",
        ],
    ),
    // The same 32 CRDs as v3.32.1's bundle (release-v3.33 at 6609dea).
    (
        "v3.33",
        &[
            "clusternetworkpolicies.policy.networking.k8s.io",
            "istios.operator.tigera.io",
        ],
    ),
];

/// What a release's `v3_projectcalico_org.yaml` carries besides its CRDs (the same 31 in v3.32.1
/// and release-v3.33 at 6609dea): v3.33's admission policies (admissionregistration.k8s.io/v1),
/// new objects that `kubectl replace` does not find.
pub const V3_BUNDLE_EXTRAS: [(&str, &[&str]); 1] = [(
    "v3.33",
    &[
        "MutatingAdmissionPolicy policytypes.policy.projectcalico.org",
        "MutatingAdmissionPolicy tierlabel.policy.projectcalico.org",
        "MutatingAdmissionPolicyBinding set-policytypes-binding",
        "MutatingAdmissionPolicyBinding set-tier-label-binding",
        "ValidatingAdmissionPolicy protect-builtin-tiers.projectcalico.org",
        "ValidatingAdmissionPolicyBinding protect-builtin-tiers.projectcalico.org",
    ],
)];

/// Where a release's files are published: `<base>/<version>/manifests/<file>`.
const RAW_BASE: &str = "https://raw.githubusercontent.com/projectcalico/calico";

/// One end of the move: the version as written and its release.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    /// The version as written (`v3.31.7`).
    pub text: String,
    /// Its supported release.
    pub release: &'static Release,
}

impl std::str::FromStr for Version {
    type Err = calico_spec::release::UnsupportedRelease;

    /// A version as `spec.calicoVersion` and `upgrade --to` write it: `vMAJOR.MINOR.PATCH` of
    /// a supported minor (`"v3.31.7".parse::<Version>()`).
    ///
    /// # Errors
    /// [`calico_spec::release::UnsupportedRelease`], naming the supported minors, for any
    /// other text (`3.31.7` without the `v`, `v3.29.0`, `v3.31`).
    fn from_str(text: &str) -> Result<Version, Self::Err> {
        Release::for_version(text).map(|release| Version {
            text: text.to_owned(),
            release,
        })
    }
}

impl Version {
    /// The tigera-operator this version pins, when calico-render carries this patch's files
    /// (`v3.32.1` pins `v1.42.3`); another patch of the minor pins its own, not known here.
    pub fn operator(&self) -> Option<&'static str> {
        (self.text == self.release.calico).then_some(self.release.operator)
    }

    /// [`Version::operator`] in words: `v1.42.3`, or which patch's it is and the one known.
    fn operator_label(&self) -> String {
        match self.operator() {
            Some(operator) => operator.to_owned(),
            None => format!("of {}", self.text),
        }
    }

    fn patch_number(&self) -> u64 {
        self.text
            .rsplit('.')
            .next()
            .and_then(|patch| patch.parse().ok())
            .unwrap_or(0)
    }

    fn position(&self) -> usize {
        calico_spec::release::RELEASES
            .iter()
            .position(|release| release == self.release)
            .unwrap_or(0)
    }
}

/// Which way the move goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// To a later release (or a later patch of the same minor).
    Upgrade,
    /// To the version the cluster already runs.
    Same,
    /// To an earlier release or patch: compared, never planned.
    Downgrade,
}

/// Step 1: the CRDs.
#[derive(Debug, Clone, PartialEq)]
pub struct CrdStep {
    /// The bundle to replace the CRDs with.
    pub url: String,
    /// CRDs of the target's bundle the cluster's bundle lacks: `kubectl replace` reports them
    /// missing, `kubectl create` makes them.
    pub added: Vec<&'static str>,
    /// CRDs of the cluster's bundle the target's lacks: left in place.
    pub dropped: Vec<&'static str>,
}

/// Step 2: the operator.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorStep {
    /// The tigera-operator the cluster's version pins, in words (see [`Version::operator`]).
    pub from: String,
    /// The tigera-operator the target pins, in words.
    pub to: String,
    /// The target's operator manifest.
    pub manifest_url: String,
}

/// How one field of an object changes.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    /// The field path (`spec.cni.binDir`).
    pub path: String,
    /// The value rendered for the cluster's release, if any.
    pub before: Option<Value>,
    /// The value rendered for the target, if any.
    pub after: Option<Value>,
    /// Why it changes, in words.
    pub why: String,
}

/// One object whose rendering changes.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectChange {
    /// The object.
    pub id: ObjectId,
    /// Its changed fields, in path order.
    pub fields: Vec<FieldChange>,
}

/// What stops the move.
#[derive(Debug, Clone, PartialEq)]
pub enum Blocker {
    /// The ClusterNetwork rendered for the target has an error (CN0112 for what the target
    /// cannot express), placed in the ClusterNetwork text.
    Spec(Diagnostic),
    /// A change Calico cannot make in place.
    Refused(Refusal),
}

/// The whole comparison and, for an upgrade that nothing blocks, the steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// How the ClusterNetwork was named.
    pub file: String,
    /// The cluster's version (`spec.calicoVersion`).
    pub from: Version,
    /// The target.
    pub to: Version,
    /// Which way it goes.
    pub direction: Direction,
    /// Whether the target runs native projectcalico.org/v3 CRDs (the API mode of the
    /// cluster's own release: `apiMode`, else that release's default).
    pub native_v3: bool,
    /// The API mode step 0 must write into the file as `spec.apiMode`, when the target release
    /// would assume another one for a file that leaves it unset (v3.33 starts new installs in
    /// native v3 mode; the operator keeps an existing cluster's mode).
    pub keep_api_mode: Option<cluster_network::ApiMode>,
    /// Step 1.
    pub crds: CrdStep,
    /// Step 2.
    pub operator: OperatorStep,
    /// Step 3: the objects whose rendering changes, in bundle order.
    pub changes: Vec<ObjectChange>,
    /// Objects rendered the same for both releases.
    pub unchanged: Vec<ObjectId>,
    /// The patches of step 3 (objects that differ), in bundle order; empty when blocked.
    pub patches: Vec<ObjectPatch>,
    /// Objects one rendering has and the other lacks.
    pub notes: Vec<String>,
    /// What the cluster must have ready before step 1 that no rendered field shows
    /// (`calico_spec::release::readiness`; only a move into v3.33 has items).
    pub readiness: Vec<String>,
    /// What stops the move; empty when nothing does.
    pub blockers: Vec<Blocker>,
    /// Lints of the cluster's own rendering and of the target's (after the lint levels).
    pub warnings: Vec<Diagnostic>,
}

impl Plan {
    /// Whether the spec blocks the move.
    pub fn is_blocked(&self) -> bool {
        !self.blockers.is_empty()
    }
}

/// Why no comparison could be made.
#[derive(Debug, thiserror::Error)]
pub enum UpgradeError {
    /// The ClusterNetwork does not load for its own release (or a denied lint): every problem.
    #[error("the ClusterNetwork is invalid for its own spec.calicoVersion")]
    Invalid(Vec<Diagnostic>),
    /// Not a ClusterNetwork text at all (not YAML, too large, ...).
    #[error(transparent)]
    Parse(ParseError),
    /// A bug: a patch failed its self-check.
    #[error(transparent)]
    Internal(PatchError),
}

/// Compare the ClusterNetwork `text` (named `file`) rendered for its own `spec.calicoVersion`
/// with its rendering for `to`, and plan the move.
///
/// # Errors
/// [`UpgradeError::Invalid`] when the text is invalid for its own release,
/// [`UpgradeError::Parse`] when it is no ClusterNetwork text, [`UpgradeError::Internal`] on a
/// bug.
pub fn plan(
    file: &str,
    text: &str,
    to: &Version,
    levels: &LintLevels,
) -> Result<Plan, UpgradeError> {
    let source = load_checked(file, text, None, levels).map_err(|err| match err {
        Loading::Invalid(diagnostics) => UpgradeError::Invalid(diagnostics),
        Loading::Parse(err) => UpgradeError::Parse(err),
    })?;
    let from_text = source.loaded.cluster_network.spec.calico_version.clone();
    let from = Version {
        release: Release::for_version(&from_text).unwrap_or_else(|_| Release::default_target()),
        text: from_text,
    };
    let direction =
        match (to.position(), to.patch_number()).cmp(&(from.position(), from.patch_number())) {
            std::cmp::Ordering::Greater => Direction::Upgrade,
            std::cmp::Ordering::Equal => Direction::Same,
            std::cmp::Ordering::Less => Direction::Downgrade,
        };
    let mut warnings = source.warnings;
    let mut blockers = Vec::new();
    let target = match load_checked(file, text, Some(&to.text), levels) {
        Ok(target) => {
            for diag in target.warnings {
                if !warnings.contains(&diag) {
                    warnings.push(diag);
                }
            }
            Some(target.loaded)
        }
        Err(Loading::Invalid(diagnostics)) => {
            blockers.extend(
                diagnostics
                    .into_iter()
                    .filter(|diag| diag.severity == calico_spec::diag::Severity::Error)
                    .map(Blocker::Spec),
            );
            None
        }
        Err(Loading::Parse(err)) => return Err(UpgradeError::Parse(err)),
    };
    let source_spec = &source.loaded.cluster_network.spec;
    let mode = source_spec.resolved_api_mode();
    let native_v3 = to.release.native_v3_crds && mode == cluster_network::ApiMode::NativeV3;
    let keep_api_mode = (source_spec.api_mode.is_none() && {
        let mut moved = source_spec.clone();
        moved.calico_version.clone_from(&to.text);
        moved.resolved_api_mode() != mode
    })
    .then_some(mode);
    let mut plan = Plan {
        file: file.to_owned(),
        crds: crd_step(&from, to, native_v3),
        operator: OperatorStep {
            from: from.operator_label(),
            to: to.operator_label(),
            manifest_url: format!("{RAW_BASE}/{}/manifests/tigera-operator.yaml", to.text),
        },
        from,
        to: to.clone(),
        direction,
        native_v3,
        keep_api_mode,
        changes: Vec::new(),
        unchanged: Vec::new(),
        patches: Vec::new(),
        notes: Vec::new(),
        readiness: Vec::new(),
        blockers,
        warnings,
    };
    if let Some(target) = target {
        let installation = target
            .objects
            .iter()
            .map(Object::to_value)
            .find(|object| object.get("kind").and_then(Value::as_str) == Some("Installation"))
            .unwrap_or_default();
        plan.readiness = calico_spec::release::readiness::entering(
            plan.from.release,
            to.release,
            &installation,
            native_v3,
        );
        compare(&source.loaded, &target, &mut plan)?;
    }
    Ok(plan)
}

struct Checked {
    loaded: Loaded,
    warnings: Vec<Diagnostic>,
}

enum Loading {
    Invalid(Vec<Diagnostic>),
    Parse(ParseError),
}

fn load_checked(
    file: &str,
    text: &str,
    version: Option<&str>,
    levels: &LintLevels,
) -> Result<Checked, Loading> {
    match cluster_network::load_for(file, text, version) {
        Ok(loaded) => {
            let warnings = levels.apply(loaded.warnings.clone());
            if report::has_errors(&warnings) {
                return Err(Loading::Invalid(warnings));
            }
            Ok(Checked { loaded, warnings })
        }
        Err(ParseError::Invalid { diagnostics }) => {
            Err(Loading::Invalid(levels.apply(diagnostics)))
        }
        Err(other) => Err(Loading::Parse(other)),
    }
}

fn extras(release: &Release, native_v3: bool) -> &'static [&'static str] {
    let table: &[(&str, &[&str])] = if native_v3 {
        &V3_BUNDLE_EXTRAS
    } else {
        &BUNDLE_EXTRAS
    };
    table
        .iter()
        .find(|(minor, _)| *minor == release.minor)
        .map_or(&[], |(_, names)| *names)
}

fn crd_step(from: &Version, to: &Version, native_v3: bool) -> CrdStep {
    let bundle = if native_v3 {
        "v3_projectcalico_org.yaml"
    } else {
        "operator-crds.yaml"
    };
    let (old, new) = (
        extras(from.release, native_v3),
        extras(to.release, native_v3),
    );
    CrdStep {
        url: format!("{RAW_BASE}/{}/manifests/{bundle}", to.text),
        added: new.iter().copied().filter(|n| !old.contains(n)).collect(),
        dropped: old.iter().copied().filter(|n| !new.contains(n)).collect(),
    }
}

/// Fill in the changes, the patches and the refusals.
fn compare(source: &Loaded, target: &Loaded, plan: &mut Plan) -> Result<(), UpgradeError> {
    let before: Vec<Value> = source.objects.iter().map(Object::to_value).collect();
    let after: Vec<Value> = target.objects.iter().map(Object::to_value).collect();
    let stated = cluster_network::stated_objects(&target.cluster_network);
    for desired in &after {
        let Ok(id) = ObjectId::of(desired, Side::Desired, 0) else {
            continue;
        };
        let Some(live) = before
            .iter()
            .find(|live| ObjectId::of(live, Side::Live, 0).is_ok_and(|other| other == id))
        else {
            plan.notes.push(format!(
                "{id} is new in the rendering for {}: create it with `calico-render render` \
                 after step 2",
                plan.to.text
            ));
            continue;
        };
        let mut fields = Vec::new();
        leaf_diff("", live, desired, &mut fields);
        if fields.is_empty() {
            plan.unchanged.push(id);
            continue;
        }
        let stated_object = stated
            .iter()
            .find(|value| ObjectId::of(value, Side::Desired, 0).is_ok_and(|other| other == id));
        let changes = fields
            .into_iter()
            .map(|(path, before, after)| {
                let why = explain(plan, &id, stated_object, &path, after.as_ref());
                FieldChange {
                    path,
                    before,
                    after,
                    why,
                }
            })
            .collect();
        plan.changes.push(ObjectChange {
            id,
            fields: changes,
        });
    }
    for live in &before {
        if let Ok(id) = ObjectId::of(live, Side::Live, 0)
            && !after
                .iter()
                .any(|desired| ObjectId::of(desired, Side::Desired, 0).is_ok_and(|o| o == id))
        {
            plan.notes.push(format!(
                "{id} is not in the rendering for {}; it is left as it is",
                plan.to.text
            ));
        }
    }
    if plan.changes.is_empty() {
        return Ok(());
    }
    let (patches, refused) = patches(&after, &before)?;
    plan.patches = patches;
    plan.blockers.extend(refused);
    Ok(())
}

/// The patches from the old rendering to the new one, or the changes Calico cannot make in
/// place as blockers.
fn patches(
    after: &[Value],
    before: &[Value],
) -> Result<(Vec<ObjectPatch>, Vec<Blocker>), UpgradeError> {
    match patch::diff_streams(after, before) {
        Ok(stream) => Ok((stream.changed().cloned().collect(), Vec::new())),
        Err(PatchError::Refused { refusals }) => Ok((
            Vec::new(),
            refusals.into_iter().map(Blocker::Refused).collect(),
        )),
        Err(err) => Err(UpgradeError::Internal(err)),
    }
}

/// Every leaf that differs between `before` and `after`: (path, before, after). Mappings are
/// walked key by key, lists of the same length item by item; anything else is one leaf.
fn leaf_diff(
    path: &str,
    before: &Value,
    after: &Value,
    out: &mut Vec<(String, Option<Value>, Option<Value>)>,
) {
    match (before, after) {
        (Value::Object(old), Value::Object(new)) => {
            let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let child = calico_spec::source::join_key(path, key);
                match (old.get(key), new.get(key)) {
                    (Some(a), Some(b)) => leaf_diff(&child, a, b, out),
                    (Some(a), None) => flatten_leaves(&child, a, out, true),
                    (None, Some(b)) => flatten_leaves(&child, b, out, false),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(old), Value::Array(new)) if old.len() == new.len() => {
            for (idx, (a, b)) in old.iter().zip(new).enumerate() {
                leaf_diff(&format!("{path}[{idx}]"), a, b, out);
            }
        }
        _ if before == after => {}
        _ => out.push((path.to_owned(), Some(before.clone()), Some(after.clone()))),
    }
}

/// A value only one side has, as leaves (a new mapping is shown field by field).
fn flatten_leaves(
    path: &str,
    value: &Value,
    out: &mut Vec<(String, Option<Value>, Option<Value>)>,
    removed: bool,
) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                flatten_leaves(
                    &calico_spec::source::join_key(path, key),
                    child,
                    out,
                    removed,
                );
            }
        }
        _ if removed => out.push((path.to_owned(), Some(value.clone()), None)),
        _ => out.push((path.to_owned(), None, Some(value.clone()))),
    }
}

/// `spec.calicoNetwork.ipPools[0].cidr` -> `spec.calicoNetwork.ipPools[*].cidr` (an index path).
fn index_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[*]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

/// Why a field's rendering changes, in words.
fn explain(
    plan: &Plan,
    id: &ObjectId,
    stated: Option<&Value>,
    path: &str,
    after: Option<&Value>,
) -> String {
    let (from, to) = (plan.from.release, plan.to.release);
    let at = index_path(path);
    let kind = id.kind.as_str();
    let in_from = from.index().node(kind, &at).is_some();
    let target_node = to.index().node(kind, &at);
    let is_stated = stated.is_some_and(|value| pointer(value, path).is_some());
    let Some(after) = after else {
        return if target_node.is_none() {
            format!(
                "{to} ({}) does not have this field: its CRD schema lacks it, and the API server \
                 prunes fields a schema lacks",
                plan.to.text
            )
        } else {
            format!("no longer rendered for {}", plan.to.text)
        };
    };
    let first = calico_spec::release::RELEASES
        .iter()
        .skip_while(|release| *release != from)
        .skip(1)
        .find(|release| release.index().node(kind, &at).is_some())
        .unwrap_or(to);
    let mut why = if in_from {
        String::from("rendered differently")
    } else {
        format!("a field new in {first}")
    };
    let crd_default = target_node.and_then(|node| node.default.as_ref()) == Some(after);
    if crd_default && !is_stated {
        // v3.33's Installation has CRD defaults too (calicoLibHostPath, calicoRunHostPath).
        why.push_str(&format!(
            "; the default of {to}'s CRD, which the API server sets itself"
        ));
    } else if kind == "Installation" && !is_stated {
        why.push_str(&format!(
            "; a write-back default of tigera-operator {}, which writes it itself",
            to.operator
        ));
    } else if crd_default {
        why.push_str(&format!(
            "; the default of {to}'s CRD, which the API server sets itself"
        ));
    }
    why
}

/// The value at a dotted field path (`spec.calicoNetwork.ipPools[0].cidr`).
fn pointer<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut current = value;
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            current = current.get(key)?;
        }
        for idx in rest.split('[') {
            let idx = idx.trim_end_matches(']');
            if !idx.is_empty() {
                current = current.get(idx.parse::<usize>().ok()?)?;
            }
        }
    }
    Some(current)
}

// ---- Output ----

/// The width prose is wrapped at; commands are never wrapped, so they copy whole.
const WIDTH: usize = 100;

fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `text` wrapped at [`WIDTH`], every line indented by `indent` spaces (the first by `first`).
fn para(out: &mut String, first: &str, indent: usize, text: &str) {
    let pad = " ".repeat(indent);
    let mut line = first.to_owned();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.len() + 1 + word.len() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = pad.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// A command line, indented, never wrapped.
fn command(out: &mut String, text: &str) {
    out.push_str("     ");
    out.push_str(text);
    out.push('\n');
}

/// The plan as text for a terminal: the steps in order, commands indented on lines of their
/// own.
///
/// # Errors
/// [`PatchError`] when a patch has no `kubectl` resource name (a bug).
pub fn render_text(plan: &Plan) -> Result<String, PatchError> {
    let mut out = String::new();
    let (from, to) = (&plan.from, &plan.to);
    let head = match plan.direction {
        Direction::Same => format!(
            "Stay on Calico {} (tigera-operator {}): {} already names it. Nothing changes: \
             the rendering, the CRDs and the operator are the same.",
            to.text,
            to.operator_label(),
            plan.file
        ),
        Direction::Upgrade | Direction::Downgrade => format!(
            "{} {} from Calico {} (tigera-operator {}) to Calico {} (tigera-operator {}).",
            if plan.direction == Direction::Upgrade {
                "Upgrade"
            } else {
                "Downgrade"
            },
            plan.file,
            from.text,
            from.operator_label(),
            to.text,
            to.operator_label()
        ),
    };
    para(&mut out, "", 0, &head);
    for version in [from, to] {
        if version.operator().is_none() {
            para(
                &mut out,
                "note: ",
                6,
                &format!(
                    "calico-render carries the files of {} for {}: its renderings, CRD list and \
                     operator ({}) stand for {}, which pins a tigera-operator of its own.",
                    version.release.calico,
                    version.release.minor,
                    version.release.operator,
                    version.text
                ),
            );
        }
    }
    if plan.direction == Direction::Same {
        return Ok(out);
    }
    if plan.direction == Direction::Downgrade {
        out.push('\n');
        let mut text = String::from(
            "Not supported: Calico documents upgrades only, and the tigera-operator has no \
             downgrade path (an older operator does not undo what a newer one wrote, and older \
             CRDs prune the newer fields of stored objects). No steps are given.",
        );
        if !plan.is_blocked() {
            text.push_str(" What the rendering would change is below.");
        }
        para(&mut out, "", 0, &text);
    }
    if plan.is_blocked() {
        out.push('\n');
        para(
            &mut out,
            "",
            0,
            &format!(
                "Blocked: the ClusterNetwork cannot move to {} as it is written:",
                to.text
            ),
        );
        for blocker in &plan.blockers {
            match blocker {
                Blocker::Spec(diag) => {
                    let text = report::render_short(
                        std::slice::from_ref(diag),
                        &report::Palette::PLAIN,
                        report::LevelNotes::Off,
                    );
                    for line in text.lines() {
                        out.push_str("  ");
                        out.push_str(line);
                        out.push('\n');
                    }
                }
                Blocker::Refused(refusal) => {
                    para(&mut out, "  error: ", 4, &refusal.to_string());
                    para(&mut out, "    hint: ", 6, &refusal.hint);
                }
            }
        }
    }
    let planned = plan.direction == Direction::Upgrade && !plan.is_blocked();
    if planned && !plan.readiness.is_empty() {
        out.push('\n');
        para(
            &mut out,
            "",
            0,
            &format!(
                "Ready before step 1 (what Calico {} needs of the cluster):",
                to.text
            ),
        );
        for item in &plan.readiness {
            para(&mut out, "  - ", 4, item);
        }
    }
    if planned {
        out.push('\n');
        para(
            &mut out,
            "0. ",
            3,
            &format!(
                "The ClusterNetwork: set `spec.calicoVersion: {}`{} in {}, so that `render`, \
                 `patch` and `render -o helm-values` give the target's objects.",
                to.text,
                plan.keep_api_mode.map_or_else(String::new, |mode| format!(
                    " and `spec.apiMode: {}` (the mode the cluster runs; {} starts only new \
                     installs in another)",
                    mode.as_str(),
                    to.release.minor
                )),
                plan.file
            ),
        );
        push_crd_step(&mut out, plan);
        push_operator_step(&mut out, plan);
        out.push('\n');
        para(
            &mut out,
            "3. ",
            3,
            "The objects whose rendering changes, once the operator of step 2 runs:",
        );
        if plan.changes.is_empty() {
            para(
                &mut out,
                "   ",
                3,
                "none: every object renders the same for both releases.",
            );
        }
    } else if !plan.changes.is_empty() {
        out.push('\n');
        para(&mut out, "", 0, "The objects whose rendering would change:");
    } else if !plan.is_blocked() {
        out.push('\n');
        para(
            &mut out,
            "",
            0,
            "Every object renders the same for both releases.",
        );
    }
    for change in &plan.changes {
        out.push_str(&format!("   {}\n", change.id));
        for field in &change.fields {
            let line = match (&field.before, &field.after) {
                (None, Some(after)) => format!("+ {}: {}", field.path, shown(after)),
                (Some(before), None) => format!("- {}: {}", field.path, shown(before)),
                (Some(before), Some(after)) => {
                    format!("~ {}: {} -> {}", field.path, shown(before), shown(after))
                }
                (None, None) => continue,
            };
            out.push_str(&format!("     {line}\n"));
            para(&mut out, "         ", 9, &field.why);
        }
    }
    if !plan.unchanged.is_empty() && !plan.changes.is_empty() {
        let names: Vec<String> = plan.unchanged.iter().map(ToString::to_string).collect();
        para(&mut out, "   unchanged: ", 5, &names.join(", "));
    }
    for note in &plan.notes {
        para(&mut out, "   note: ", 5, note);
    }
    if planned && !plan.patches.is_empty() {
        para(
            &mut out,
            "   ",
            3,
            "The patches, what `calico-render patch -f FILE --live LIVE` gives after step 0:",
        );
        for object in &plan.patches {
            command(&mut out, &patch::kubectl_command(object)?);
        }
    }
    Ok(out)
}

fn push_crd_step(out: &mut String, plan: &Plan) {
    let crds = &plan.crds;
    let bundle = crds.url.rsplit('/').next().unwrap_or_default();
    out.push('\n');
    para(
        out,
        "1. ",
        3,
        &format!(
            "The CRDs, before the operator. Calico {}'s {bundle} is too large for a client-side \
             `kubectl apply` (the last-applied-configuration annotation it writes would pass the \
             262144-byte limit), so replace them:",
            plan.to.text
        ),
    );
    command(out, &format!("kubectl replace -f {}", crds.url));
    if !crds.added.is_empty() {
        para(
            out,
            "   ",
            3,
            &format!(
                "New in this bundle: {}. `kubectl replace` reports {} as not found; create {} \
                 (the other CRDs then report AlreadyExists, which is expected):",
                crds.added.join(", "),
                if crds.added.len() == 1 { "it" } else { "them" },
                if crds.added.len() == 1 { "it" } else { "them" },
            ),
        );
        command(out, &format!("kubectl create -f {}", crds.url));
    }
    if !crds.dropped.is_empty() {
        para(
            out,
            "   ",
            3,
            &format!(
                "No longer in the target's bundle, left in place: {}.",
                crds.dropped.join(", ")
            ),
        );
    }
    if plan.native_v3 {
        para(
            out,
            "   ",
            3,
            "The cluster runs the native projectcalico.org/v3 CRDs (API mode NativeV3), hence \
             v3_projectcalico_org.yaml.",
        );
    }
    para(
        out,
        "   ",
        3,
        "Never `kubectl delete` a CRD or `kubectl replace --force` one: that deletes every \
         object of its kind. Helm never upgrades the CRDs of a chart's crds/ folder (and the \
         v3.32 chart carries none); with the chart's `manageCRDs: true` (its default) the new \
         operator also creates and updates the CRDs it carries when it starts, so this step is \
         then harmless, and needed with `manageCRDs: false`.",
    );
}

fn push_operator_step(out: &mut String, plan: &Plan) {
    let op = &plan.operator;
    let change = if op.from == op.to {
        format!(
            "tigera-operator {} (the same version, from the target's manifest)",
            op.to
        )
    } else {
        format!("tigera-operator {} -> {}", op.from, op.to)
    };
    out.push('\n');
    para(
        out,
        "2. ",
        3,
        &format!(
            "The operator: {change}, the one Calico {} pins. Installed from manifests:",
            plan.to.text
        ),
    );
    command(
        out,
        &format!(
            "kubectl apply --server-side --force-conflicts -f {}",
            op.manifest_url
        ),
    );
    para(
        out,
        "   ",
        3,
        "Installed with the tigera-operator chart (the values rendered from the file of \
         step 0):",
    );
    command(
        out,
        &format!(
            "calico-render render -f {} -o helm-values > values.yaml",
            crate::patch::shell_quote(&plan.file)
        ),
    );
    command(
        out,
        &format!(
            "helm upgrade calico projectcalico/tigera-operator --version {} --namespace \
             tigera-operator --values values.yaml",
            plan.to.text
        ),
    );
}

/// The plan as one JSON document (keys in a fixed order).
pub fn to_json(plan: &Plan) -> Value {
    let direction = match plan.direction {
        Direction::Upgrade => "upgrade",
        Direction::Same => "same",
        Direction::Downgrade => "downgrade",
    };
    let version = |v: &Version| json!({"calicoVersion": v.text, "operator": v.operator()});
    let planned = plan.direction == Direction::Upgrade && !plan.is_blocked();
    let blockers: Vec<Value> = plan
        .blockers
        .iter()
        .map(|blocker| match blocker {
            Blocker::Spec(diag) => {
                let mut value = json!({
                    "code": diag.code,
                    "path": diag.path,
                    "message": diag.message,
                });
                if let Some(fields) = value.as_object_mut() {
                    if let Some(hint) = &diag.hint {
                        fields.insert("hint".to_owned(), json!(hint));
                    }
                    if let Some(at) = &diag.location {
                        fields.insert("line".to_owned(), json!(at.line));
                        fields.insert("column".to_owned(), json!(at.column));
                    }
                }
                value
            }
            Blocker::Refused(refusal) => json!({
                "object": refusal.object.to_string(),
                "path": refusal.path,
                "message": refusal.to_string(),
                "hint": refusal.hint,
            }),
        })
        .collect();
    let changes: Vec<Value> = plan
        .changes
        .iter()
        .map(|change| {
            json!({
                "apiVersion": change.id.api_version,
                "kind": change.id.kind,
                "name": change.id.name,
                "fields": change.fields.iter().map(|field| json!({
                    "path": field.path,
                    "before": field.before,
                    "after": field.after,
                    "why": field.why,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut value = json!({
        "file": plan.file,
        "from": version(&plan.from),
        "to": version(&plan.to),
        "direction": direction,
        "blocked": plan.is_blocked(),
        "blockers": blockers,
        "changes": changes,
        "notes": plan.notes,
    });
    if planned
        && !plan.readiness.is_empty()
        && let Some(fields) = value.as_object_mut()
    {
        fields.insert("readiness".to_owned(), json!(plan.readiness));
    }
    if planned
        && let Some(mode) = plan.keep_api_mode
        && let Some(fields) = value.as_object_mut()
    {
        fields.insert("keepApiMode".to_owned(), json!(mode.as_str()));
    }
    if planned && let Some(fields) = value.as_object_mut() {
        fields.insert("steps".to_owned(), json!({
            "crds": {
                "url": plan.crds.url,
                "replace": format!("kubectl replace -f {}", plan.crds.url),
                "create": plan.crds.added,
                "leftInPlace": plan.crds.dropped,
            },
            "operator": {
                "from": plan.operator.from,
                "to": plan.operator.to,
                "manifest": format!(
                    "kubectl apply --server-side --force-conflicts -f {}",
                    plan.operator.manifest_url
                ),
                "chart": format!(
                    "helm upgrade calico projectcalico/tigera-operator --version {} --namespace tigera-operator --values values.yaml",
                    plan.to.text
                ),
            },
            "patches": plan.patches.iter().map(|object| json!({
                "apiVersion": object.id().api_version,
                "kind": object.id().kind,
                "name": object.id().name,
                "patch": object.to_rfc6902(),
            })).collect::<Vec<_>>(),
        }));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_from_text() {
        let version: Version = "v3.31.99".parse().expect("a supported version");
        assert_eq!(version.text, "v3.31.99");
        assert_eq!(version.release.minor, "v3.31");
        assert_eq!(
            version.operator(),
            None,
            "v3.31.99 is not the patch carried here"
        );
        for wrong in ["3.31.7", "v3.31", "v3.31.", "v3.31.x", "v2.0.0", ""] {
            let err = wrong.parse::<Version>().expect_err(wrong).to_string();
            assert!(
                err.contains(&format!("`{wrong}` is not supported")) && err.contains("v3.31.x"),
                "{wrong}: {err}"
            );
        }
    }

    fn installation(cidr: &str, mtu: u32) -> Value {
        json!({
            "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
            "metadata": {"name": "default"},
            "spec": {"calicoNetwork": {"mtu": mtu, "ipPools": [
                {"name": "pods", "cidr": cidr, "blockSize": 26}
            ]}},
        })
    }

    /// No pair of supported releases renders a pool differently, so the refusal is shown on
    /// renderings made up for it: a pool whose cidr moved blocks, an MTU change is a patch.
    #[test]
    fn a_change_calico_cannot_make_in_place_blocks() {
        let before = [installation("10.0.0.0/16", 1450)];
        let (patched, refused) =
            patches(&[installation("10.0.0.0/16", 1400)], &before).expect("no bug");
        assert_eq!((patched.len(), refused.len()), (1, 0));
        let (patched, refused) =
            patches(&[installation("10.1.0.0/16", 1450)], &before).expect("no bug");
        assert!(patched.is_empty());
        match refused.as_slice() {
            [Blocker::Refused(refusal)] => {
                assert_eq!(refusal.path, "spec.calicoNetwork.ipPools[0].cidr");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn leaf_paths_and_index_paths() {
        let mut out = Vec::new();
        leaf_diff(
            "",
            &json!({"spec": {"a": 1, "list": [{"x": 1}], "gone": {"deep": true}}}),
            &json!({"spec": {"a": 2, "list": [{"x": 1, "y": 2}], "new": "v"}}),
            &mut out,
        );
        let paths: Vec<&str> = out.iter().map(|(path, _, _)| path.as_str()).collect();
        assert_eq!(
            paths,
            ["spec.a", "spec.gone.deep", "spec.list[0].y", "spec.new"]
        );
        assert_eq!(out[1].2, None, "removed");
        assert_eq!(out[2].1, None, "added");
        assert_eq!(
            index_path("spec.calicoNetwork.ipPools[12].cidr"),
            "spec.calicoNetwork.ipPools[*].cidr"
        );
        assert_eq!(
            pointer(&json!({"a": [{"b": 3}]}), "a[0].b"),
            Some(&json!(3))
        );
    }
}
