//! Staged transitions: the ordered, guarded steps from the live objects to the desired state
//! when one patch cannot get there (issue 36).
//!
//! The first transition is the pool migration, the change Calico cannot make in place: a pool's
//! CIDR or block size. The documented way is to add the new pool, stop allocating from the old
//! one, move the workloads off it, check it holds no address, then remove it. [`plan`] reads
//! the live objects (as `patch --live` reads them) and the desired ones and gives the steps
//! still to do, so running it again at any point of a migration gives the rest:
//!
//! - pools are matched by their CIDR in canonical form (`2001:db8:42::/56`, never
//!   `2001:db8:42:0::/56`): the operator keys the pools it owns by CIDR text and the API server
//!   stores the canonical text, so a pool written in another form is deleted and made again
//!   (tigera/operator#3494); every CIDR the plan writes is canonical;
//! - operator-managed pools change only through guarded JSON patches of the Installation
//!   (`disableNewAllocations`, never the IPPool's `disabled`, which the operator resets:
//!   projectcalico/calico#9100); standalone `projectcalico.org/v3` IPPools are created,
//!   patched (`disabled`) and deleted as objects;
//! - each step's change carries guards (`test` operations, `kubectl create`, a checked
//!   delete), so a step applied twice or before the steps it needs fails instead of harming;
//! - what the objects cannot show (workloads moved, a pool emptied) is a user-checked wait
//!   condition with the command that checks it; the step before a removal stays in the plan
//!   until the removal is applied;
//! - what is left once the pools are done (any other field) is one `patch` step, computed on
//!   the state the earlier steps leave, and the plan checks that nothing differs after it.

mod pools;
mod render;
mod staged;

use serde::Serialize;
use serde_json::Value;

use crate::patch::{DayTwoOptions, ObjectId, PatchError};

pub use render::render_text;
pub use staged::{Facts, KubeProxyManager, KubeProxyMode};

/// How [`plan`] works: the options of the remaining patch and the facts the objects do not
/// show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanOptions {
    /// As `patch` takes them, for the remaining patch.
    pub day_two: DayTwoOptions,
    /// The kube-proxy mode and manager, when known.
    pub facts: Facts,
    /// The CIDRs of the temporary pools a block size change moves through (one per family,
    /// `--temporary-pool`).
    pub temporary_pools: Vec<String>,
}

impl PlanOptions {
    /// The options as given.
    pub fn new(day_two: DayTwoOptions, facts: Facts) -> PlanOptions {
        PlanOptions {
            day_two,
            facts,
            temporary_pools: Vec::new(),
        }
    }

    /// The same options with the temporary pools' CIDRs.
    #[must_use]
    pub fn with_temporary_pools(mut self, cidrs: Vec<String>) -> PlanOptions {
        self.temporary_pools = cidrs;
        self
    }
}

/// The ordered steps from the live objects to the desired state.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Plan {
    /// The transitions the steps carry out, one line each (`pool default-ipv4-ippool
    /// 172.20.0.0/16 retired`).
    pub transitions: Vec<String>,
    /// What must hold before the first step that the plan cannot see (the kernel, facts not
    /// given), each with the command that checks it.
    pub preconditions: Vec<Check>,
    /// The steps still to do, in order; empty when LIVE already matches DESIRED.
    pub steps: Vec<Step>,
    /// What the user should know about the plan as a whole.
    pub notes: Vec<String>,
}

/// One step: a change, why, what to wait for before the next step, and how to undo it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Step {
    /// A stable name for the step (`add-pools/<names>`, `disable-pool/<name>`, `move-workloads`,
    /// `remove-pool/<name>`, `await-pool-deletion/<name>`, `patch/<kind>/<name>`).
    pub id: String,
    /// What the step does, in a line.
    pub title: String,
    /// Why it is needed, and why at this point.
    pub why: String,
    /// The change to apply.
    pub change: Change,
    /// What must hold before the next step.
    pub wait: Vec<Check>,
    /// How to undo the step.
    pub undo: Undo,
}

/// What a step changes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Change {
    /// A guarded RFC 6902 patch of one object.
    Patch {
        /// The object.
        object: ObjectRef,
        /// The operations, `test`s first.
        patch: Value,
        /// Conditions on other objects (a guard a JSON patch cannot express; the command
        /// checks them before patching).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        requires: Vec<Requirement>,
        /// The `kubectl patch` command line.
        command: String,
    },
    /// An object to create (`kubectl create`, which fails when it exists).
    Create {
        /// The object, as it is to be created.
        object: Value,
        /// Conditions on other objects (the command checks them before creating).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        requires: Vec<Requirement>,
        /// The command line.
        command: String,
    },
    /// An object to delete once a condition holds.
    Delete {
        /// The object.
        object: ObjectRef,
        /// The condition, as RFC 6902 `test` operations on the object (`[]`: none).
        test: Value,
        /// The command line, the condition checked first.
        command: String,
    },
    /// Nothing to apply: the user acts on the cluster (restarting workloads).
    UserAction {
        /// The commands that do it, or describe what to do.
        commands: Vec<String>,
    },
    /// Nothing to apply: something else (the operator) acts; only wait.
    Wait,
}

impl Change {
    /// True when the step changes no object (a user action or a wait).
    pub fn changes_nothing(&self) -> bool {
        matches!(self, Change::UserAction { .. } | Change::Wait)
    }
}

/// A condition on an object that a step needs: the object exists, passes the `test`
/// operations and lacks the `absent` fields; or, with `absent: [""]`, it does not exist.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Requirement {
    /// The object.
    pub object: ObjectRef,
    /// RFC 6902 `test` operations on it (`[]`: it exists).
    pub test: Value,
    /// JSON pointers that must not be in the object (a `test` cannot say a field is absent;
    /// the command checks it with `kubectl get -o jsonpath`); `""`, the whole object: it must
    /// not exist.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
}

impl Requirement {
    /// The object must exist.
    pub fn exists(object: ObjectRef) -> Requirement {
        Requirement {
            object,
            test: Value::Array(Vec::new()),
            absent: Vec::new(),
        }
    }

    /// The object must exist and pass the `test` operations.
    pub fn tested(object: ObjectRef, test: Value) -> Requirement {
        Requirement {
            test,
            ..Requirement::exists(object)
        }
    }

    /// The object must exist without the field at `pointer`; `""`: the object must not exist.
    pub fn absent(object: ObjectRef, pointer: &str) -> Requirement {
        Requirement {
            absent: vec![pointer.to_owned()],
            ..Requirement::exists(object)
        }
    }

    /// Whether the objects of `state` meet the requirement.
    fn met(&self, state: &[Value]) -> bool {
        let found = state.iter().find(|value| {
            ObjectId::of(value, crate::patch::Side::Live, 0)
                .is_ok_and(|id| ObjectRef::from(&id) == self.object)
        });
        let Some(found) = found else {
            return self.absent.iter().any(String::is_empty);
        };
        let ops = serde_json::from_value::<json_patch::Patch>(self.test.clone());
        let mut probe = found.clone();
        ops.is_ok_and(|ops| json_patch::patch(&mut probe, &ops).is_ok())
            && self
                .absent
                .iter()
                .all(|pointer| !pointer.is_empty() && found.pointer(pointer).is_none())
    }
}

/// The identity of an object, as the JSON form prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, for namespaced objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl From<&ObjectId> for ObjectRef {
    fn from(id: &ObjectId) -> ObjectRef {
        ObjectRef {
            api_version: id.api_version.clone(),
            kind: id.kind.clone(),
            name: id.name.clone(),
            namespace: id.namespace.clone(),
        }
    }
}

/// A condition to wait for: a command to run, and the same condition as data.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Check {
    /// What must hold.
    pub description: String,
    /// A command that shows it.
    pub command: String,
    /// True when the command's output must be read by the user (the plan cannot see it in
    /// the objects: pods, IPAM blocks); false when the command itself fails until it holds.
    pub user_checked: bool,
    /// The condition as data (`{"condition": "poolPresent", "pool": ..., "cidr": ...}`).
    pub data: Value,
}

/// How to undo a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Undo {
    /// What undoing means, and when it is still possible.
    pub description: String,
    /// The change that undoes the step, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

/// Why no plan could be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The inputs could not be read as objects, or the remaining patch failed.
    #[error(transparent)]
    Patch(#[from] PatchError),
    /// A transition the plan cannot stage.
    #[error("cannot plan: {message}")]
    Unplannable {
        /// What is wrong.
        message: String,
        /// What to do instead.
        hint: String,
    },
    /// A step the plan made does not apply to the state it was made for; a bug.
    #[error(
        "internal error: plan step {step} does not apply to the state before it ({detail}); \
         nothing was printed, please report this with both inputs"
    )]
    SelfCheck {
        /// The step.
        step: String,
        /// What went wrong.
        detail: String,
    },
}

impl PlanError {
    /// True when the error is a bug in calico-render rather than a problem with the input.
    pub fn is_internal(&self) -> bool {
        match self {
            PlanError::Patch(err) => err.is_internal(),
            PlanError::SelfCheck { .. } => true,
            PlanError::Unplannable { .. } => false,
        }
    }

    /// What to do instead, for an unplannable transition.
    pub fn hint(&self) -> Option<&str> {
        match self {
            PlanError::Unplannable { hint, .. } => Some(hint),
            _ => None,
        }
    }
}

/// The steps from `live` to `desired`.
///
/// `desired` are the desired objects (a ClusterNetwork compiled, or upstream objects), `stated`
/// the objects as the ClusterNetwork states them (`None` for upstream objects), as
/// [`crate::patch::day_two_objects`] takes them; `live` what `kubectl get -o yaml` prints
/// (objects, `List`s, status and all).
///
/// # Errors
/// [`PlanError::Unplannable`] for a transition that cannot be staged (a pool keeping its name
/// with a new CIDR, a block size change on the same CIDR, overlapping old and new pools);
/// [`PlanError::Patch`] when the inputs are not objects or the rest of the change is refused.
pub fn plan(
    desired: &[Value],
    stated: Option<&[Value]>,
    live: &[Value],
    options: &PlanOptions,
) -> Result<Plan, PlanError> {
    let facts = &options.facts;
    let temporary = &options.temporary_pools;
    let options = &options.day_two;
    let desired_flat: Vec<Value> = crate::patch::object::flatten(desired)
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect();
    let live_flat: Vec<Value> = crate::patch::object::flatten(live)
        .into_iter()
        .map(std::borrow::Cow::into_owned)
        .collect();
    // A block size change on the same CIDR goes through a temporary pool and back.
    let mut plan = match pools::through_temporary(&desired_flat, &live_flat, temporary)? {
        Some(halfway) => {
            let mut there = pools::pool_steps(&halfway, &live_flat)?;
            let halfway_live = plan_simulated_live(&there, &live_flat)?;
            let back = pools::pool_steps(&desired_flat, &halfway_live)?;
            there.transitions.extend(back.transitions);
            there.preconditions.extend(back.preconditions);
            there.steps.extend(back.steps);
            there.notes.extend(back.notes);
            there
        }
        None => pools::pool_steps(&desired_flat, &live_flat)?,
    };
    let mut after = plan_simulated_live(&plan, &live_flat)?;
    let staging = staged::stage(&desired_flat, &after, facts)?;
    plan.transitions.extend(staging.transitions);
    plan.preconditions.extend(staging.preconditions);
    plan.notes.extend(staging.notes);
    for step in staging.before {
        apply_change(&mut after, &step)?;
        plan.steps.push(step);
    }
    let day_two =
        crate::patch::day_two_objects(&staging.desired_for_patch, stated, &after, options)?;
    let object_notes = day_two
        .stream
        .changed()
        .flat_map(|object| object.notes().iter().map(ToString::to_string));
    let unstated = day_two.unstated.iter().map(ToString::to_string);
    plan.notes.extend(object_notes.chain(unstated));
    for object in day_two.stream.changed() {
        let id = object.id();
        let current = after
            .iter()
            .find(|value| {
                ObjectId::of(value, crate::patch::Side::Live, 0).is_ok_and(|live| live == *id)
            })
            .cloned()
            .unwrap_or(Value::Null);
        let ops = tested_replacements(&object.to_rfc6902(), &current);
        let parsed: json_patch::Patch =
            serde_json::from_value(ops.clone()).map_err(|err| PlanError::SelfCheck {
                step: format!("patch/{}/{}", id.kind, id.name),
                detail: err.to_string(),
            })?;
        let mut command = crate::patch::kubectl_command(&crate::patch::ObjectPatch::from_parts(
            id.clone(),
            parsed,
        ))?;
        let mut requires = Vec::new();
        if id.api_version == "operator.tigera.io/v1" && id.kind == "Installation" {
            for (requirement, guard) in &staging.installation_requires {
                requires.push(requirement.clone());
                command = format!("{guard} && {command}");
            }
        }
        let change = Change::Patch {
            object: ObjectRef::from(id),
            patch: ops,
            requires,
            command,
        };
        let undo = reverse_change(id, &current, &change)?;
        let step = Step {
            id: format!("patch/{}/{}", id.kind, id.name),
            title: format!("patch the remaining fields of {id}"),
            why: "the pools are where DESIRED wants them; what still differs is a change one \
                  guarded patch makes (what `calico-render patch` prints at this point)"
                .to_owned(),
            change,
            wait: patch_wait(id),
            undo: Undo {
                description: format!(
                    "put the fields this step changed in {id} back as they were (the values \
                     the step replaced are tested, so the undo fails once they changed again)"
                ),
                change: undo,
            },
        };
        apply_change(&mut after, &step)?;
        plan.steps.push(step);
    }
    for step in staging.after {
        apply_change(&mut after, &step)?;
        plan.steps.push(step);
    }
    // The end the plan promises: nothing left for `patch` to do.
    let rest = crate::patch::day_two_objects(&desired_flat, stated, &after, options)?;
    if let Some(left) = rest.stream.changed().next() {
        return Err(PlanError::SelfCheck {
            step: "the last".to_owned(),
            detail: format!("{} still differs after every step", left.id()),
        });
    }
    Ok(plan)
}

/// The undo of a patch step: the patch from the object after the step back to `before`
/// (computed, not written by hand), each value it replaces or removes tested first.
fn reverse_change(
    id: &ObjectId,
    before: &Value,
    change: &Change,
) -> Result<Option<Change>, PlanError> {
    let Change::Patch { patch, .. } = change else {
        return Ok(None);
    };
    let fail = |detail: String| PlanError::SelfCheck {
        step: format!("the undo of patch/{}/{}", id.kind, id.name),
        detail,
    };
    let forward: json_patch::Patch =
        serde_json::from_value(patch.clone()).map_err(|err| fail(err.to_string()))?;
    let mut after = before.clone();
    json_patch::patch(&mut after, &forward).map_err(|err| fail(err.to_string()))?;
    let back = serde_json::to_value(json_patch::diff(&after, before))
        .map_err(|err| fail(err.to_string()))?;
    let ops = tested_replacements(&back, &after);
    let parsed: json_patch::Patch =
        serde_json::from_value(ops.clone()).map_err(|err| fail(err.to_string()))?;
    let command =
        crate::patch::kubectl_command(&crate::patch::ObjectPatch::from_parts(id.clone(), parsed))?;
    Ok(Some(Change::Patch {
        object: ObjectRef::from(id),
        patch: ops,
        requires: Vec::new(),
        command,
    }))
}

/// A patch with a `test` of the value each `replace` or `remove` overwrites put before it (the
/// value as the operations before it leave `current`), so that the patch applied twice fails
/// where it replaces or removes a value.
fn tested_replacements(patch: &Value, current: &Value) -> Value {
    let mut ops = Vec::new();
    let mut working = current.clone();
    let mut tested = None;
    for op in patch.as_array().into_iter().flatten() {
        let path = op.get("path").and_then(Value::as_str).unwrap_or("");
        let kind = op.get("op").and_then(Value::as_str);
        if matches!(kind, Some("replace" | "remove"))
            && tested != Some(path)
            && let Some(old) = working.pointer(path)
        {
            ops.push(serde_json::json!({"op": "test", "path": path, "value": old}));
        }
        tested = (kind == Some("test")).then_some(path);
        if let Ok(single) =
            serde_json::from_value::<json_patch::Patch>(Value::Array(vec![op.clone()]))
        {
            // An operation that does not apply leaves the rest untested; the plan's own
            // simulation reports it.
            let _ = json_patch::patch(&mut working, &single);
        }
        ops.push(op.clone());
    }
    Value::Array(ops)
}

/// The wait after a patch step: the object's controller has seen it.
pub(crate) fn patch_wait(id: &ObjectId) -> Vec<Check> {
    if id.api_version == "operator.tigera.io/v1" {
        return vec![operator_settled()];
    }
    if id.api_version == "v1" && id.kind == "ConfigMap" && id.name == "kubernetes-services-endpoint"
    {
        // The operator reads the endpoint into its environment only when it starts.
        let namespace = id.namespace.as_deref().unwrap_or("tigera-operator");
        return vec![
            Check {
                description: "the operator has restarted and read the new endpoint (it reads \
                              this ConfigMap only when it starts)"
                    .to_owned(),
                command: format!(
                    "kubectl -n {namespace} rollout restart deploy/tigera-operator && kubectl \
                     -n {namespace} rollout status deploy/tigera-operator --timeout=5m"
                ),
                user_checked: false,
                data: serde_json::json!({
                    "condition": "operatorRestarted",
                    "namespace": namespace,
                    "deployment": "tigera-operator",
                }),
            },
            operator_settled(),
        ];
    }
    Vec::new()
}

/// The operator has reconciled the Installation: `tigerastatus/calico` available.
pub(crate) fn operator_settled() -> Check {
    Check {
        description: "the operator has reconciled the change (TigeraStatus calico Available, \
                      not Degraded)"
            .to_owned(),
        command: "kubectl wait --for=condition=Available tigerastatus/calico --timeout=10m"
            .to_owned(),
        user_checked: false,
        data: serde_json::json!({"condition": "tigeraStatusAvailable", "name": "calico"}),
    }
}

/// The live objects as they are after the plan's pool steps (objects created, patched,
/// deleted; user actions and waits change nothing).
fn plan_simulated_live(plan: &Plan, live: &[Value]) -> Result<Vec<Value>, PlanError> {
    let mut state = live.to_vec();
    for step in &plan.steps {
        apply_change(&mut state, step)?;
    }
    Ok(state)
}

/// Apply one step's change to a set of objects, as the API server would (without the
/// controllers' reactions). Used to simulate the plan and by the tests of its guards.
///
/// # Errors
/// [`PlanError::SelfCheck`] when the change does not apply (a `test` fails, the object to
/// patch or delete is missing, the object to create exists).
pub fn apply_change(state: &mut Vec<Value>, step: &Step) -> Result<(), PlanError> {
    let fail = |detail: String| PlanError::SelfCheck {
        step: step.id.clone(),
        detail,
    };
    let same = |value: &Value, object: &ObjectRef| -> bool {
        ObjectId::of(value, crate::patch::Side::Live, 0)
            .is_ok_and(|id| ObjectRef::from(&id) == *object)
    };
    match &step.change {
        Change::Patch { requires, .. } | Change::Create { requires, .. }
            if !requires.iter().all(|needed| needed.met(state)) =>
        {
            return Err(fail(
                "an object it requires is missing or not as required".to_owned(),
            ));
        }
        Change::Patch { object, patch, .. } => {
            let ops: json_patch::Patch = serde_json::from_value(patch.clone())
                .map_err(|err| fail(format!("not a JSON patch: {err}")))?;
            let target = state
                .iter_mut()
                .find(|value| same(value, object))
                .ok_or_else(|| fail(format!("{} {} is missing", object.kind, object.name)))?;
            json_patch::patch(target, &ops).map_err(|err| fail(err.to_string()))?;
        }
        Change::Create { object, .. } => {
            let id = ObjectId::of(object, crate::patch::Side::Desired, 0)?;
            let reference = ObjectRef::from(&id);
            if state.iter().any(|value| same(value, &reference)) {
                return Err(fail(format!("{id} exists already")));
            }
            state.push(object.clone());
        }
        Change::Delete { object, test, .. } => {
            let ops: json_patch::Patch = serde_json::from_value(test.clone())
                .map_err(|err| fail(format!("not a JSON patch: {err}")))?;
            let position = state
                .iter()
                .position(|value| same(value, object))
                .ok_or_else(|| fail(format!("{} {} is missing", object.kind, object.name)))?;
            let mut probe = state.get(position).cloned().unwrap_or(Value::Null);
            json_patch::patch(&mut probe, &ops).map_err(|err| fail(err.to_string()))?;
            state.remove(position);
        }
        Change::UserAction { .. } | Change::Wait => {}
    }
    Ok(())
}
