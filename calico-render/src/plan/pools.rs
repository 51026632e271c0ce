//! The pool migration: which pools are added and retired, and the steps that do it in the
//! order Calico needs (add, stop allocating, move workloads, check empty, remove).
//!
//! Facts (tigera/operator release-v1.42, `pkg/controller/ippool/pool_controller.go` at
//! 9a145260ee7c60ad52c771364b168dc173a06af2): the operator owns the IPPools it labels
//! `app.kubernetes.io/managed-by: tigera-operator`, keys them by their CIDR text, writes the
//! Installation's `disableNewAllocations` into the IPPool's `disabled` (so an edit of the
//! IPPool is reverted), deletes a pool no longer listed only through the Calico API server
//! (degraded "Unable to delete IP pools while Calico API server is unavailable" otherwise),
//! and reports in TigeraStatus `ippools`.

use calico_spec::ipnet::IpNet;
use calico_spec::vocab::cidr;
use serde_json::{Value, json};

use super::{Change, Check, ObjectRef, Plan, PlanError, Step, Undo, apply_change};
use crate::patch::{ObjectId, ObjectPatch, Side, kubectl_command, shell_quote};

/// Where the Installation lists its pools.
const POOLS: &str = "/spec/calicoNetwork/ipPools";
/// The label the operator puts on the IPPools it owns.
const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
/// The kubectl resource of Calico's IPPools (the v3 API).
const IPPOOLS: &str = "ippools.projectcalico.org";
/// The documented migration and block size procedures.
const MIGRATE_DOC: &str = "https://docs.tigera.io/calico/latest/networking/ipam/migrate-pools";
const BLOCK_SIZE_DOC: &str =
    "https://docs.tigera.io/calico/latest/networking/ipam/change-block-size";

/// Who owns a pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// An entry of the Installation's `spec.calicoNetwork.ipPools`.
    Operator,
    /// A `projectcalico.org/v3` IPPool object the operator does not own.
    Standalone,
}

/// One pool as read from either side.
#[derive(Debug, Clone)]
struct Pool {
    owner: Owner,
    name: String,
    /// The CIDR as written.
    text: String,
    /// The CIDR as Calico stores it.
    canonical: String,
    net: IpNet,
    /// The block size, the default where unset.
    block: u64,
    /// New allocations stopped (`disableNewAllocations` / `disabled`).
    disabled: bool,
    /// The pool entry (operator) or the whole object (standalone).
    value: Value,
}

impl Pool {
    fn read(owner: Owner, name: &str, fields: &Value, value: &Value) -> Result<Pool, PlanError> {
        let text = fields
            .get("cidr")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let net = cidr::parse_cidr(&text).map_err(|err| PlanError::Unplannable {
            message: format!("pool {name}: cidr {text:?}: {err}"),
            hint: "fix the pool's cidr first; `calico-render validate` shows why".to_owned(),
        })?;
        let canonical = cidr::canonical(&text, &net).unwrap_or_else(|| text.clone());
        let block = fields
            .get("blockSize")
            .and_then(Value::as_u64)
            .unwrap_or(if net.addr().is_ipv6() { 122 } else { 26 });
        let flag = match owner {
            Owner::Operator => "disableNewAllocations",
            Owner::Standalone => "disabled",
        };
        Ok(Pool {
            owner,
            name: name.to_owned(),
            text,
            canonical,
            net,
            block,
            disabled: fields.get(flag).and_then(Value::as_bool) == Some(true),
            value: value.clone(),
        })
    }

    fn family(&self) -> &'static str {
        if self.net.addr().is_ipv6() {
            "IPv6"
        } else {
            "IPv4"
        }
    }

    fn describe(&self) -> String {
        let owner = match self.owner {
            Owner::Operator => "in the Installation",
            Owner::Standalone => "IPPool object",
        };
        format!(
            "{} ({}, blockSize {}, {owner})",
            self.name, self.canonical, self.block
        )
    }
}

fn is_installation(value: &Value) -> bool {
    value.get("apiVersion").and_then(Value::as_str) == Some("operator.tigera.io/v1")
        && value.get("kind").and_then(Value::as_str) == Some("Installation")
}

fn is_v3_pool(value: &Value) -> bool {
    value.get("apiVersion").and_then(Value::as_str) == Some("projectcalico.org/v3")
        && value.get("kind").and_then(Value::as_str) == Some("IPPool")
}

fn operator_owned(value: &Value) -> bool {
    value
        .pointer("/metadata/labels")
        .and_then(|labels| labels.get(MANAGED_BY))
        .and_then(Value::as_str)
        == Some("tigera-operator")
}

fn name_of(value: &Value) -> String {
    value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The Installation's pools, or `None` when the objects hold no Installation listing pools.
fn installation_pools(objects: &[Value]) -> Result<Option<Vec<Pool>>, PlanError> {
    let Some(list) = objects
        .iter()
        .find(|value| is_installation(value))
        .and_then(|installation| installation.pointer(POOLS))
        .and_then(Value::as_array)
    else {
        return Ok(None);
    };
    let mut pools = Vec::new();
    for (index, entry) in list.iter().enumerate() {
        let Some(name) = entry.get("name").and_then(Value::as_str) else {
            return Err(PlanError::Unplannable {
                message: format!("Installation default: spec.calicoNetwork.ipPools[{index}] has no name"),
                hint: "pools are matched by name and CIDR; `kubectl get installation default -o yaml` shows the names the operator chose".to_owned(),
            });
        };
        pools.push(Pool::read(Owner::Operator, name, entry, entry)?);
    }
    Ok(Some(pools))
}

/// The standalone IPPools (those the operator does not own).
fn standalone_pools(objects: &[Value]) -> Result<Vec<Pool>, PlanError> {
    let mut pools = Vec::new();
    for value in objects
        .iter()
        .filter(|value| is_v3_pool(value) && !operator_owned(value))
    {
        let spec = value.get("spec").cloned().unwrap_or(Value::Null);
        pools.push(Pool::read(
            Owner::Standalone,
            &name_of(value),
            &spec,
            value,
        )?);
    }
    Ok(pools)
}

/// Pools added and retired between two sides of one owner, matched by canonical CIDR.
struct Sides {
    added: Vec<Pool>,
    retired: Vec<Pool>,
}

fn classify(desired: &[Pool], live: &[Pool]) -> Result<Sides, PlanError> {
    let mut added = Vec::new();
    for want in desired {
        match live.iter().find(|have| have.canonical == want.canonical) {
            Some(have) if have.name != want.name => {
                return Err(PlanError::Unplannable {
                    message: format!(
                        "pool {} ({}) is called {} in LIVE; a pool cannot be renamed",
                        want.name, want.canonical, have.name
                    ),
                    hint: format!(
                        "keep the name {} in DESIRED (the operator keys its pools by CIDR and \
                         names the IPPool after the list entry)",
                        have.name
                    ),
                });
            }
            Some(have) if have.block != want.block => {
                return Err(PlanError::Unplannable {
                    message: format!(
                        "pool {} keeps its CIDR {} but changes blockSize {} -> {}; the old and \
                         new pools would have to exist side by side with one CIDR",
                        want.name, want.canonical, have.block, want.block
                    ),
                    hint: format!(
                        "migrate through a temporary pool ({BLOCK_SIZE_DOC}): pass \
                         --temporary-pool <CIDR of the {} family, overlapping no pool> and the \
                         plan moves to it and back",
                        want.family()
                    ),
                });
            }
            Some(_) => {}
            None => {
                if let Some(have) = live.iter().find(|have| have.name == want.name) {
                    return Err(PlanError::Unplannable {
                        message: format!(
                            "pool {} would move from {} to {} under the same name; the old and \
                             new pools must exist side by side during the migration, and pool \
                             names are unique",
                            want.name, have.canonical, want.canonical
                        ),
                        hint: format!(
                            "give the new pool another name in DESIRED (such as {}-2); `plan` \
                             then adds it, drains {} and removes it ({MIGRATE_DOC})",
                            want.name, have.name
                        ),
                    });
                }
                if let Some(have) = live
                    .iter()
                    .find(|have| cidr::overlaps(&have.net, &want.net))
                {
                    return Err(PlanError::Unplannable {
                        message: format!(
                            "new pool {} ({}) overlaps pool {} ({}) in LIVE; Calico refuses \
                             overlapping pools, and both must exist during the migration",
                            want.name, want.canonical, have.name, have.canonical
                        ),
                        hint: format!(
                            "migrate through a temporary pool that overlaps neither \
                             ({MIGRATE_DOC}): plan to it first, then to the final pool"
                        ),
                    });
                }
                added.push(want.clone());
            }
        }
    }
    let retired = live
        .iter()
        .filter(|have| !desired.iter().any(|want| want.canonical == have.canonical))
        .cloned()
        .collect();
    Ok(Sides { added, retired })
}

/// The name of the temporary pool that stands in for `name` during a block size change.
fn temporary_name(name: &str) -> String {
    format!("{name}-temporary")
}

/// DESIRED with every pool that keeps its CIDR but changes its block size replaced by a
/// temporary pool on a CIDR of `temporary` (one per family): the halfway point of Calico's
/// documented block size change (move to the temporary pool, then back to the CIDR with the
/// new block size). `None` when no pool changes its block size in place.
///
/// A pool whose old IPPool is gone from LIVE already, or whose temporary pool is there, is
/// still changing while LIVE holds a pool with its CIDR and the old block size.
pub(super) fn through_temporary(
    desired: &[Value],
    live: &[Value],
    temporary: &[String],
) -> Result<Option<Vec<Value>>, PlanError> {
    let live_pools: Vec<Pool> = installation_pools(live)?
        .unwrap_or_default()
        .into_iter()
        .chain(standalone_pools(live)?)
        .collect();
    let desired_pools: Vec<Pool> = installation_pools(desired)?
        .unwrap_or_default()
        .into_iter()
        .chain(standalone_pools(desired)?)
        .collect();
    let changing: Vec<&Pool> = desired_pools
        .iter()
        .filter(|want| {
            live_pools.iter().any(|have| {
                have.owner == want.owner
                    && have.canonical == want.canonical
                    && have.block != want.block
            })
        })
        .collect();
    if changing.is_empty() || temporary.is_empty() {
        return Ok(None);
    }
    let mut nets = Vec::new();
    for text in temporary {
        let net = cidr::parse_cidr(text).map_err(|err| PlanError::Unplannable {
            message: format!("--temporary-pool {text:?}: {err}"),
            hint: "give a CIDR such as 10.99.0.0/16".to_owned(),
        })?;
        let canonical = cidr::canonical(text, &net).unwrap_or_else(|| text.clone());
        nets.push((net, canonical));
    }
    let mut halfway = desired.to_vec();
    for want in changing {
        let (net, canonical) = nets
            .iter()
            .find(|(net, _)| net.addr().is_ipv6() == want.net.addr().is_ipv6())
            .ok_or_else(|| PlanError::Unplannable {
                message: format!(
                    "pool {} changes its block size and no --temporary-pool is {}",
                    want.name,
                    want.family()
                ),
                hint: format!(
                    "pass one --temporary-pool per family that changes ({BLOCK_SIZE_DOC})"
                ),
            })?;
        let name = temporary_name(&want.name);
        if let Some(other) = live_pools
            .iter()
            .chain(&desired_pools)
            .find(|other| other.name != name && cidr::overlaps(&other.net, net))
        {
            return Err(PlanError::Unplannable {
                message: format!(
                    "--temporary-pool {canonical} overlaps pool {} ({}); Calico refuses \
                     overlapping pools",
                    other.name, other.canonical
                ),
                hint: "pick a temporary CIDR no pool, node or Service range uses".to_owned(),
            });
        }
        if u64::from(net.prefix_len()) > want.block {
            return Err(PlanError::Unplannable {
                message: format!(
                    "--temporary-pool {canonical} is smaller than one block of /{}",
                    want.block
                ),
                hint: "give a temporary CIDR at least as large as the pool's block".to_owned(),
            });
        }
        let stand_in = |value: &mut Value, cidr_at: &str| {
            if let Some(cidr) = value.pointer_mut(cidr_at) {
                *cidr = Value::from(canonical.as_str());
            }
        };
        match want.owner {
            Owner::Operator => {
                let entries = halfway
                    .iter_mut()
                    .find(|value| is_installation(value))
                    .and_then(|installation| installation.pointer_mut(POOLS))
                    .and_then(Value::as_array_mut);
                for entry in entries.into_iter().flatten() {
                    if entry.get("name").and_then(Value::as_str) == Some(want.name.as_str()) {
                        stand_in(entry, "/cidr");
                        if let Some(fields) = entry.as_object_mut() {
                            fields.insert("name".to_owned(), Value::from(name.as_str()));
                        }
                    }
                }
            }
            Owner::Standalone => {
                for value in halfway
                    .iter_mut()
                    .filter(|value| is_v3_pool(value) && name_of(value) == want.name)
                {
                    stand_in(value, "/spec/cidr");
                    if let Some(metadata) = value.pointer_mut("/metadata") {
                        metadata["name"] = Value::from(name.as_str());
                    }
                }
            }
        }
    }
    Ok(Some(halfway))
}

/// The steps of the pool migration, from the live objects to the desired pools.
pub(super) fn pool_steps(desired: &[Value], live: &[Value]) -> Result<Plan, PlanError> {
    let mut plan = Plan {
        transitions: Vec::new(),
        preconditions: Vec::new(),
        steps: Vec::new(),
        notes: Vec::new(),
    };
    let live_installation = live.iter().find(|value| is_installation(value));
    for pool in installation_pools(live)?.unwrap_or_default() {
        if pool.text != pool.canonical {
            plan.notes.push(format!(
                "the live Installation writes pool {}'s CIDR as {}; Calico stores {}, and the \
                 operator, matching its pools by that text, deletes and rewrites the IPPool \
                 (tigera/operator#3494); the plan compares the canonical form",
                pool.name, pool.text, pool.canonical
            ));
        }
    }
    let operator = match (
        installation_pools(desired)?,
        installation_pools(live)?,
        live_installation,
    ) {
        (Some(want), Some(have), Some(installation)) => Some((
            classify(&want, &have)?,
            ObjectId::of(installation, Side::Live, 0)?,
        )),
        (Some(_), None, Some(_)) => {
            return Err(PlanError::Unplannable {
                message: "the live Installation lists no spec.calicoNetwork.ipPools".to_owned(),
                hint: "read the Installation after the operator has written its pools back \
                       (`kubectl get installation default -o yaml`)"
                    .to_owned(),
            });
        }
        _ => None,
    };
    let desired_standalone = standalone_pools(desired)?;
    let live_standalone = standalone_pools(live)?;
    let standalone = if desired_standalone.is_empty() {
        // DESIRED says nothing about IPPool objects: those LIVE has are left alone, as
        // `patch` leaves objects only one side has.
        for pool in &live_standalone {
            plan.notes.push(format!(
                "LIVE has IPPool {} ({}), and DESIRED no IPPool objects; left untouched",
                pool.name, pool.canonical
            ));
        }
        Sides {
            added: Vec::new(),
            retired: Vec::new(),
        }
    } else {
        let mut sides = classify(&desired_standalone, &live_standalone)?;
        // A standalone pool whose CIDR the desired Installation lists is being adopted, not
        // retired.
        let desired_operator = installation_pools(desired)?.unwrap_or_default();
        sides.retired.retain(|pool| {
            let adopted = desired_operator
                .iter()
                .any(|want| want.canonical == pool.canonical);
            if adopted {
                plan.notes.push(format!(
                    "IPPool {} has the CIDR of a pool DESIRED lists in the Installation; the \
                     operator adopts it only if it is field-identical, otherwise it refuses to \
                     manage that CIDR: this plan leaves it alone",
                    pool.name
                ));
            }
            !adopted
        });
        sides
    };

    let mut state = live.to_vec();
    let push = |plan: &mut Plan, state: &mut Vec<Value>, step: Step| {
        apply_change(state, &step)?;
        plan.steps.push(step);
        Ok::<(), PlanError>(())
    };

    // The operator's IPPools that the live Installation no longer lists.
    if let (Some(have), Some(want)) = (installation_pools(live)?, installation_pools(desired)?) {
        for value in live
            .iter()
            .filter(|value| is_v3_pool(value) && operator_owned(value))
        {
            let spec = value.get("spec").cloned().unwrap_or(Value::Null);
            let mirror = Pool::read(Owner::Standalone, &name_of(value), &spec, value)?;
            let listed = have.iter().find(|pool| pool.canonical == mirror.canonical);
            if let Some(listed) = listed
                && mirror.disabled != listed.disabled
            {
                plan.notes.push(format!(
                    "IPPool {} has disabled: {} but the Installation says \
                     disableNewAllocations: {}; the operator writes the Installation's value \
                     back (projectcalico/calico#9100): change the Installation, never the IPPool",
                    mirror.name, mirror.disabled, listed.disabled
                ));
            }
            // Gone from the Installation, and not wanted as it is (a block size change comes
            // back with the same CIDR only once the old IPPool is deleted).
            let wanted_as_is = want
                .iter()
                .any(|pool| pool.canonical == mirror.canonical && pool.block == mirror.block);
            if listed.is_none() && !wanted_as_is {
                plan.transitions.push(format!(
                    "pool {} being deleted by the operator",
                    mirror.describe()
                ));
                plan.steps.push(await_deletion(&mirror));
            }
        }
    }

    let (op_added, op_retired) = match &operator {
        Some((sides, _)) => (sides.added.clone(), sides.retired.clone()),
        None => (Vec::new(), Vec::new()),
    };
    let installation_id = operator.as_ref().map(|(_, id)| id.clone());
    for pool in op_added.iter().chain(&standalone.added) {
        plan.transitions
            .push(format!("pool {} added", pool.describe()));
    }
    for pool in op_retired.iter().chain(&standalone.retired) {
        plan.transitions
            .push(format!("pool {} retired", pool.describe()));
    }
    // A retired pool whose family no pool will serve afterwards.
    let serving: Vec<&Pool> = op_added.iter().chain(&standalone.added).collect();
    for pool in op_retired.iter().chain(&standalone.retired) {
        let desired_all: Vec<Pool> = installation_pools(desired)?
            .unwrap_or_default()
            .into_iter()
            .chain(standalone_pools(desired)?)
            .collect();
        if !desired_all
            .iter()
            .chain(serving.iter().copied())
            .any(|other| other.family() == pool.family() && !other.disabled)
        {
            plan.notes.push(format!(
                "after pool {} no enabled {} pool is left: pods started later get no {} address",
                pool.name,
                pool.family(),
                pool.family()
            ));
        }
    }

    // 1. Add the new pools.
    if let Some(id) = &installation_id
        && !op_added.is_empty()
    {
        let step = add_operator_pools(id, &state, &op_added)?;
        push(&mut plan, &mut state, step)?;
    }
    for pool in &standalone.added {
        push(&mut plan, &mut state, create_standalone(pool))?;
    }
    // 2. Stop allocating from the old ones.
    // The pools that take over are every desired pool of the family (added or kept), so a
    // resumed plan guards the step exactly as the first one did.
    let desired_operator = installation_pools(desired)?.unwrap_or_default();
    if let Some(id) = &installation_id {
        for pool in op_retired.iter().filter(|pool| !pool.disabled) {
            let replacing: Vec<&Pool> = desired_operator
                .iter()
                .filter(|new| new.family() == pool.family())
                .collect();
            let step = disable_operator_pool(id, &state, pool, &replacing)?;
            push(&mut plan, &mut state, step)?;
        }
    }
    for pool in standalone.retired.iter().filter(|pool| !pool.disabled) {
        let replacing: Vec<&Pool> = desired_standalone
            .iter()
            .filter(|new| new.family() == pool.family())
            .collect();
        push(&mut plan, &mut state, disable_standalone(pool, &replacing)?)?;
    }
    // 3. Move the workloads off each old pool, 4. then remove it: pool by pool, so that a
    // plan resumed after one removal gives exactly the steps of the others.
    if let Some(id) = &installation_id {
        for pool in &op_retired {
            push(&mut plan, &mut state, move_workloads(pool))?;
            let step = remove_operator_pool(id, &state, pool)?;
            push(&mut plan, &mut state, step)?;
        }
    }
    for pool in &standalone.retired {
        push(&mut plan, &mut state, move_workloads(pool))?;
        push(&mut plan, &mut state, delete_standalone(pool))?;
    }
    Ok(plan)
}

/// A JSON `test` operation.
fn test(path: &str, value: Value) -> Value {
    json!({"op": "test", "path": path, "value": value})
}

/// A guarded patch of one object, with its kubectl command.
fn patch_change(id: &ObjectId, ops: Vec<Value>) -> Result<Change, PlanError> {
    let patch = Value::Array(ops);
    let parsed: json_patch::Patch =
        serde_json::from_value(patch.clone()).map_err(|err| PlanError::SelfCheck {
            step: format!("a patch of {id}"),
            detail: err.to_string(),
        })?;
    let command = kubectl_command(&ObjectPatch::from_parts(id.clone(), parsed))?;
    Ok(Change::Patch {
        object: ObjectRef::from(id),
        patch,
        requires: Vec::new(),
        command,
    })
}

/// A test that `field` still has its live value, when the live object states it (an absent
/// field cannot be tested without failing).
fn test_unchanged(path: &str, fields: &Value, field: &str) -> Option<Value> {
    fields
        .get(field)
        .map(|value| test(&format!("{path}/{field}"), value.clone()))
}

/// The live Installation's pool list in `state`, and the index of the pool called `name`.
fn pool_index(state: &[Value], name: &str) -> Option<usize> {
    state
        .iter()
        .find(|value| is_installation(value))
        .and_then(|installation| installation.pointer(POOLS))
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter()
                .position(|pool| pool.get("name").and_then(Value::as_str) == Some(name))
        })
}

fn missing_pool(name: &str) -> PlanError {
    PlanError::SelfCheck {
        step: format!("pool {name}"),
        detail: "the pool is not in the Installation's list".to_owned(),
    }
}

/// A pool entry as DESIRED gives it, its CIDR in canonical form.
fn canonical_entry(pool: &Pool) -> Value {
    let mut entry = pool.value.clone();
    if let Some(fields) = entry.as_object_mut() {
        fields.insert("cidr".to_owned(), Value::from(pool.canonical.as_str()));
    }
    entry
}

/// A new Installation pool entry with the fields the operator would default written out, so
/// that the entry the plan predicts is the one the server holds after the operator's
/// reconcile, and a later step's guard (which tests the whole list) matches it. Facts:
/// tigera/operator v1.42.3 `pkg/controller/ippool/defaults.go` (allowedUses Workload and
/// Tunnel; IPv4 natOutgoing Enabled, blockSize 26, encapsulation IPIP with the Calico CNI;
/// IPv6 natOutgoing Disabled, blockSize 122, encapsulation None; nodeSelector all();
/// disableNewAllocations false; assignmentMode Automatic). An IPv4 encapsulation is left out
/// when the CNI plugin is not known to be Calico.
fn defaulted_entry(pool: &Pool, calico_cni: bool) -> Value {
    let mut entry = canonical_entry(pool);
    let v6 = pool.net.addr().is_ipv6();
    let mut defaults = vec![
        ("allowedUses", json!(["Workload", "Tunnel"])),
        ("nodeSelector", json!("all()")),
        ("disableNewAllocations", json!(false)),
        ("assignmentMode", json!("Automatic")),
        (
            "natOutgoing",
            json!(if v6 { "Disabled" } else { "Enabled" }),
        ),
        ("blockSize", json!(if v6 { 122 } else { 26 })),
    ];
    if v6 {
        defaults.push(("encapsulation", json!("None")));
    } else if calico_cni {
        defaults.push(("encapsulation", json!("IPIP")));
    }
    if let Some(fields) = entry.as_object_mut() {
        for (key, value) in defaults {
            fields.entry(key).or_insert(value);
        }
    }
    entry
}

fn pool_present(pool: &Pool) -> Check {
    Check {
        description: format!("IPPool {} exists with CIDR {}", pool.name, pool.canonical),
        command: format!(
            "kubectl wait --for=jsonpath='{{.spec.cidr}}'={} {IPPOOLS}/{} --timeout=5m",
            pool.canonical,
            shell_quote(&pool.name)
        ),
        user_checked: false,
        data: json!({"condition": "poolPresent", "pool": pool.name, "cidr": pool.canonical}),
    }
}

fn pool_disabled(pool: &Pool) -> Check {
    Check {
        description: format!(
            "IPPool {} takes no new allocations (disabled: true)",
            pool.name
        ),
        command: format!(
            "kubectl wait --for=jsonpath='{{.spec.disabled}}'=true {IPPOOLS}/{} --timeout=5m",
            shell_quote(&pool.name)
        ),
        user_checked: false,
        data: json!({"condition": "poolDisabled", "pool": pool.name, "cidr": pool.canonical}),
    }
}

fn pool_deleted(pool: &Pool) -> Check {
    Check {
        description: format!("IPPool {} is gone", pool.name),
        command: format!(
            "kubectl wait --for=delete {IPPOOLS}/{} --timeout=10m",
            shell_quote(&pool.name)
        ),
        user_checked: false,
        data: json!({"condition": "poolAbsent", "pool": pool.name, "cidr": pool.canonical}),
    }
}

/// The operator's pool controller has reconciled (TigeraStatus `ippools`).
fn pools_settled() -> Check {
    Check {
        description: "the operator's pool controller has reconciled (TigeraStatus ippools \
                      Available, not Degraded)"
            .to_owned(),
        command: "kubectl wait --for=condition=Available tigerastatus/ippools --timeout=10m"
            .to_owned(),
        user_checked: false,
        data: json!({"condition": "tigeraStatusAvailable", "name": "ippools"}),
    }
}

fn add_operator_pools(id: &ObjectId, state: &[Value], added: &[Pool]) -> Result<Step, PlanError> {
    let list = state
        .iter()
        .find(|value| is_installation(value))
        .and_then(|installation| installation.pointer(POOLS))
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let start = list.as_array().map_or(0, Vec::len);
    let calico_cni = state
        .iter()
        .find(|value| is_installation(value))
        .and_then(|installation| installation.pointer("/spec/cni/type"))
        .and_then(Value::as_str)
        == Some("Calico");
    let mut ops = vec![test(POOLS, list)];
    for pool in added {
        let entry = defaulted_entry(pool, calico_cni);
        ops.push(json!({"op": "add", "path": format!("{POOLS}/-"), "value": entry}));
    }
    // Undo: remove them again, the last first, each guarded by its name.
    let mut undo_ops = Vec::new();
    for (offset, pool) in added.iter().enumerate().rev() {
        let path = format!("{POOLS}/{}", start + offset);
        undo_ops.push(test(
            &format!("{path}/name"),
            Value::from(pool.name.as_str()),
        ));
        undo_ops.push(json!({"op": "remove", "path": path}));
    }
    let names: Vec<&str> = added.iter().map(|pool| pool.name.as_str()).collect();
    let mut wait: Vec<Check> = added.iter().map(pool_present).collect();
    wait.push(pools_settled());
    Ok(Step {
        id: format!("add-pools/{}", names.join(",")),
        title: format!("add pool(s) {} to the Installation", names.join(", ")),
        why: "the new pools must exist before the old ones stop allocating, or new pods get no \
              address; the CIDR is written in canonical form, since the operator matches its \
              IPPools by CIDR text (tigera/operator#3494). Guard: the whole pool list is \
              tested, so the step fails if applied twice or after the list changed"
            .to_owned(),
        change: patch_change(id, ops)?,
        wait,
        undo: Undo {
            description: "remove the new pools again, while no workload has an address from \
                          them"
                .to_owned(),
            change: Some(patch_change(id, undo_ops)?),
        },
    })
}

fn disable_operator_pool(
    id: &ObjectId,
    state: &[Value],
    pool: &Pool,
    replacing: &[&Pool],
) -> Result<Step, PlanError> {
    let index = pool_index(state, &pool.name).ok_or_else(|| missing_pool(&pool.name))?;
    let path = format!("{POOLS}/{index}");
    let mut ops = vec![
        test(&format!("{path}/name"), Value::from(pool.name.as_str())),
        test(&format!("{path}/cidr"), Value::from(pool.text.as_str())),
    ];
    for new in replacing {
        let at = pool_index(state, &new.name).ok_or_else(|| missing_pool(&new.name))?;
        ops.push(test(
            &format!("{POOLS}/{at}/name"),
            Value::from(new.name.as_str()),
        ));
    }
    ops.extend(test_unchanged(&path, &pool.value, "disableNewAllocations"));
    ops.push(json!({"op": "add", "path": format!("{path}/disableNewAllocations"), "value": true}));
    let undo_ops = vec![
        test(&format!("{path}/name"), Value::from(pool.name.as_str())),
        test(&format!("{path}/disableNewAllocations"), Value::Bool(true)),
        // Back as it was: false, or no field at all.
        if pool.value.get("disableNewAllocations").is_some() {
            json!({"op": "replace", "path": format!("{path}/disableNewAllocations"), "value": false})
        } else {
            json!({"op": "remove", "path": format!("{path}/disableNewAllocations")})
        },
    ];
    let replaced = if replacing.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = replacing.iter().map(|new| new.name.as_str()).collect();
        format!(" New pods get addresses from {} instead.", names.join(", "))
    };
    Ok(Step {
        id: format!("disable-pool/{}", pool.name),
        title: format!(
            "stop allocating from pool {} ({})",
            pool.name, pool.canonical
        ),
        why: format!(
            "pods keep their addresses, new ones come from the other pools.{replaced} The \
             operator owns this pool: set disableNewAllocations in the Installation, not \
             disabled on the IPPool, which the operator writes back \
             (projectcalico/calico#9100). Guard: the pool's name and CIDR and the new pools' \
             names are tested, so the step fails before the new pools are listed"
        ),
        change: patch_change(id, ops)?,
        wait: vec![pool_disabled(pool), pools_settled()],
        undo: Undo {
            description: format!("let pool {} allocate again", pool.name),
            change: Some(patch_change(id, undo_ops)?),
        },
    })
}

fn remove_operator_pool(id: &ObjectId, state: &[Value], pool: &Pool) -> Result<Step, PlanError> {
    let index = pool_index(state, &pool.name).ok_or_else(|| missing_pool(&pool.name))?;
    let path = format!("{POOLS}/{index}");
    let ops = vec![
        test(&format!("{path}/name"), Value::from(pool.name.as_str())),
        test(&format!("{path}/disableNewAllocations"), Value::Bool(true)),
        json!({"op": "remove", "path": path}),
    ];
    let mut entry = pool.value.clone();
    if let Some(fields) = entry.as_object_mut() {
        fields.insert("disableNewAllocations".to_owned(), Value::Bool(true));
    }
    // Undo: the entry back where it was, the list as this step leaves it tested (so a second
    // run fails).
    let mut left = state
        .iter()
        .find(|value| is_installation(value))
        .and_then(|installation| installation.pointer(POOLS))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if index < left.len() {
        left.remove(index);
    }
    let undo_ops = vec![
        test(POOLS, Value::Array(left)),
        json!({"op": "add", "path": path, "value": entry}),
    ];
    Ok(Step {
        id: format!("remove-pool/{}", pool.name),
        title: format!(
            "remove pool {} ({}) from the Installation",
            pool.name, pool.canonical
        ),
        why: "the pool holds no address any more; the operator then deletes its IPPool, which \
              it does only through the Calico API server (TigeraStatus ippools degrades while \
              that is unavailable). Guard: the pool's name and disableNewAllocations: true are \
              tested, so the step fails if applied twice or before the pool was disabled"
            .to_owned(),
        change: patch_change(id, ops)?,
        wait: vec![pool_deleted(pool), pools_settled()],
        undo: Undo {
            description: format!(
                "list pool {} again (disabled), while no other pool uses its CIDR",
                pool.name
            ),
            change: Some(patch_change(id, undo_ops)?),
        },
    })
}

/// A standalone IPPool as it is to be created: identity, labels, spec (CIDR canonical).
fn clean_object(pool: &Pool, disabled: Option<bool>) -> Value {
    let mut metadata = serde_json::Map::new();
    metadata.insert("name".to_owned(), Value::from(pool.name.as_str()));
    for key in ["labels", "annotations"] {
        if let Some(value) = pool.value.pointer(&format!("/metadata/{key}")) {
            metadata.insert(key.to_owned(), value.clone());
        }
    }
    let mut spec = pool.value.get("spec").cloned().unwrap_or(json!({}));
    if let Some(fields) = spec.as_object_mut() {
        fields.insert("cidr".to_owned(), Value::from(pool.canonical.as_str()));
        if let Some(disabled) = disabled {
            fields.insert("disabled".to_owned(), Value::Bool(disabled));
        }
    }
    json!({
        "apiVersion": "projectcalico.org/v3",
        "kind": "IPPool",
        "metadata": metadata,
        "spec": spec,
    })
}

fn create_change(object: Value) -> Change {
    let command = format!(
        "printf '%s\\n' {} | kubectl create -f -",
        shell_quote(&object.to_string())
    );
    Change::Create {
        object,
        requires: Vec::new(),
        command,
    }
}

fn pool_ref(pool: &Pool) -> ObjectRef {
    ObjectRef {
        api_version: "projectcalico.org/v3".to_owned(),
        kind: "IPPool".to_owned(),
        name: pool.name.clone(),
        namespace: None,
    }
}

fn delete_change(pool: &Pool, condition: Option<(&str, Value)>) -> Change {
    let name = shell_quote(&pool.name);
    let (test_ops, command) = match condition {
        Some((path, value)) => {
            let jsonpath = format!("{{{}}}", path.replace('/', "."));
            (
                json!([test(path, value.clone())]),
                format!(
                    "[ \"$(kubectl get {IPPOOLS} {name} -o jsonpath='{jsonpath}')\" = {value} ] \
                     && kubectl delete {IPPOOLS} {name}"
                ),
            )
        }
        None => (json!([]), format!("kubectl delete {IPPOOLS} {name}")),
    };
    Change::Delete {
        object: pool_ref(pool),
        test: test_ops,
        command,
    }
}

fn create_standalone(pool: &Pool) -> Step {
    Step {
        id: format!("create-pool/{}", pool.name),
        title: format!("create IPPool {} ({})", pool.name, pool.canonical),
        why: "the new pool must exist before the old ones stop allocating, or new pods get no \
              address; its CIDR is written in canonical form. Guard: `kubectl create` fails \
              when the pool exists"
            .to_owned(),
        change: create_change(clean_object(pool, None)),
        wait: vec![pool_present(pool)],
        undo: Undo {
            description: format!(
                "delete IPPool {} again, while no workload has an address from it",
                pool.name
            ),
            change: Some(delete_change(pool, None)),
        },
    }
}

fn disable_standalone(pool: &Pool, replacing: &[&Pool]) -> Result<Step, PlanError> {
    let id = ObjectId {
        api_version: "projectcalico.org/v3".to_owned(),
        kind: "IPPool".to_owned(),
        namespace: None,
        name: pool.name.clone(),
    };
    let mut ops = vec![test("/spec/cidr", Value::from(pool.text.as_str()))];
    let spec = pool.value.get("spec").cloned().unwrap_or(Value::Null);
    // With no `disabled` field (the CRD defaults none) the field must still be absent, so that
    // a second run, which finds it, fails. Not the whole spec: the API server adds its CRD
    // defaults (`assignmentMode`) to a pool the plan creates, so the spec the plan predicts
    // is not the one stored (the temporary pool of a block size change).
    let unset = spec
        .get("disabled")
        .is_none()
        .then(|| super::Requirement::absent(pool_ref(pool), "/spec/disabled"));
    ops.extend(test_unchanged("/spec", &spec, "disabled"));
    ops.push(json!({"op": "add", "path": "/spec/disabled", "value": true}));
    let undo_ops = vec![
        test("/spec/cidr", Value::from(pool.text.as_str())),
        test("/spec/disabled", Value::Bool(true)),
        // Back as it was: false, or no field at all.
        if spec.get("disabled").is_some() {
            json!({"op": "replace", "path": "/spec/disabled", "value": false})
        } else {
            json!({"op": "remove", "path": "/spec/disabled"})
        },
    ];
    Ok(Step {
        id: format!("disable-pool/{}", pool.name),
        title: format!(
            "stop allocating from IPPool {} ({})",
            pool.name, pool.canonical
        ),
        why: "pods keep their addresses, new ones come from the other pools. The operator does \
              not own this pool, so its own `disabled` field is the switch (for a pool listed \
              in the Installation it would be disableNewAllocations). Guard: the CIDR and \
              `disabled` are tested (without that field, the command checks it is still \
              absent), and the command first checks that the new pools exist with their CIDR \
              and block size"
            .to_owned(),
        change: unset_first(requiring(patch_change(&id, ops)?, replacing), unset),
        wait: vec![pool_disabled(pool)],
        undo: Undo {
            description: format!("let IPPool {} allocate again", pool.name),
            change: Some(patch_change(&id, undo_ops)?),
        },
    })
}

/// A patch that needs a field still absent: the command checks it with `kubectl get` first.
fn unset_first(change: Change, unset: Option<super::Requirement>) -> Change {
    match (change, unset) {
        (
            Change::Patch {
                object,
                patch,
                mut requires,
                command,
            },
            Some(unset),
        ) => {
            let command = format!("{} && {command}", super::staged::absent_guard(&unset));
            requires.push(unset);
            Change::Patch {
                object,
                patch,
                requires,
                command,
            }
        }
        (change, _) => change,
    }
}

/// A patch that needs other pools first: the command checks with `kubectl get` that each
/// exists with its CIDR and block size as DESIRED gives them. By name alone the old pool of a
/// block size change would pass for the new one (they share the name), and disabling the
/// temporary pool while the old one is the only other would leave no pool to allocate from.
fn requiring(change: Change, pools: &[&Pool]) -> Change {
    match change {
        Change::Patch {
            object,
            patch,
            command,
            ..
        } if !pools.is_empty() => {
            let mut guarded = String::new();
            let mut requires = Vec::new();
            for pool in pools {
                let mut tests = vec![test("/spec/cidr", Value::from(pool.text.as_str()))];
                let mut query = "{.spec.cidr}".to_owned();
                let mut expected = pool.text.clone();
                if let Some(block) = pool.value.pointer("/spec/blockSize") {
                    tests.push(test("/spec/blockSize", block.clone()));
                    query.push_str(" {.spec.blockSize}");
                    expected.push_str(&format!(" {block}"));
                }
                guarded.push_str(&format!(
                    "[ \"$(kubectl get {IPPOOLS} {} -o {})\" = {} ] && ",
                    shell_quote(&pool.name),
                    shell_quote(&format!("jsonpath={query}")),
                    shell_quote(&expected)
                ));
                requires.push(super::Requirement::tested(
                    pool_ref(pool),
                    Value::Array(tests),
                ));
            }
            guarded.push_str(&command);
            Change::Patch {
                object,
                patch,
                requires,
                command: guarded,
            }
        }
        other => other,
    }
}

fn delete_standalone(pool: &Pool) -> Step {
    Step {
        id: format!("remove-pool/{}", pool.name),
        title: format!("delete IPPool {} ({})", pool.name, pool.canonical),
        why: "the pool holds no address any more. Guard: the command deletes only a disabled \
              pool"
            .to_owned(),
        change: delete_change(pool, Some(("/spec/disabled", Value::Bool(true)))),
        wait: vec![pool_deleted(pool)],
        undo: Undo {
            description: format!(
                "create IPPool {} again (disabled), while no other pool uses its CIDR",
                pool.name
            ),
            change: Some(create_change(clean_object(pool, Some(true)))),
        },
    }
}

fn move_workloads(pool: &Pool) -> Step {
    let cidr = pool.canonical.as_str();
    let wait = vec![
        Check {
            description: format!(
                "pool {} ({cidr}) holds no address: its blocks show 0 IPs in use",
                pool.name
            ),
            command: "calicoctl ipam show --show-blocks".to_owned(),
            user_checked: true,
            data: json!({"condition": "poolEmpty", "pool": pool.name, "cidr": cidr}),
        },
        Check {
            description: format!("no pod has an address in {cidr}"),
            command: "kubectl get pods -A -o wide".to_owned(),
            user_checked: true,
            data: json!({"condition": "noPodAddressIn", "cidr": cidr}),
        },
        Check {
            description: format!("no node's tunnel address (VXLAN, IPIP) is in {cidr}"),
            command: "kubectl get nodes -o custom-columns=NAME:.metadata.name,\
                      VXLAN:.metadata.annotations.projectcalico\\.org/IPv4VXLANTunnelAddr,\
                      VXLAN6:.metadata.annotations.projectcalico\\.org/IPv6VXLANTunnelAddr,\
                      IPIP:.metadata.annotations.projectcalico\\.org/IPv4IPIPTunnelAddr"
                .to_owned(),
            user_checked: true,
            data: json!({"condition": "noTunnelAddressIn", "cidr": cidr}),
        },
    ];
    Step {
        id: format!("move-workloads/{}", pool.name),
        title: format!("move the workloads off pool {} ({cidr})", pool.name),
        why: "a pool can go only when nothing holds an address from it; pods keep theirs until \
              they are recreated. The plan cannot see pods or IPAM blocks, so this step stays \
              in the plan until the removal after it is applied (one restart may serve several \
              pools: a dual-stack pod leaves both of its old pools at once)"
            .to_owned(),
        change: Change::UserAction {
            commands: vec![
                "kubectl rollout restart deployment,statefulset,daemonset -n <namespace> \
                 (each namespace with pods in the pool)"
                    .to_owned(),
                "kubectl delete pod -n <namespace> <pod> (pods no controller recreates)".to_owned(),
                "kubectl -n calico-system rollout restart daemonset/calico-node (when a node's \
                 tunnel address is still in the pool)"
                    .to_owned(),
            ],
        },
        wait,
        undo: Undo {
            description: "nothing to undo: workloads that moved keep their new addresses"
                .to_owned(),
            change: None,
        },
    }
}

fn await_deletion(pool: &Pool) -> Step {
    Step {
        id: format!("await-pool-deletion/{}", pool.name),
        title: format!("wait for the operator to delete IPPool {}", pool.name),
        why: "the Installation no longer lists this pool; the operator deletes its IPPool, \
              through the Calico API server only (TigeraStatus ippools stays degraded while \
              that server is unavailable)"
            .to_owned(),
        change: Change::Wait,
        wait: vec![pool_deleted(pool), pools_settled()],
        undo: Undo {
            description: "nothing to undo here; list the pool in the Installation again to \
                          keep it"
                .to_owned(),
            change: None,
        },
    }
}
