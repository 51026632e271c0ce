//! The diff engine: managed fields of the desired object against the live object.
//!
//! The engine walks the desired value and emits operations against the live value as it is at
//! that point of the patch.
//! Pool lists are handled in three passes (changed pools, removed pools from the highest index
//! down, added pools appended with `-`), so every index in the patch is also the pool's index
//! in the live object the user can see with `kubectl get`.

use json_patch::{AddOperation, PatchOperation, RemoveOperation, ReplaceOperation, TestOperation};
use jsonptr::{Pointer, PointerBuf};
use serde_json::{Map, Value};

use super::object::ObjectId;
use super::{Note, ObjectPatch, PatchError, Refusal, rules, verify};

/// What diffing one pair of objects produced: the patch, or the changes that were refused.
pub(crate) struct Outcome {
    /// The patch; verified only when no change was refused (a refused patch is never shown).
    pub patch: ObjectPatch,
    /// Changes Calico cannot apply in place.
    pub refusals: Vec<Refusal>,
}

/// Diff a desired object against the live object with the same identity, then verify the patch.
pub(crate) fn diff_matched(
    id: &ObjectId,
    desired: &Value,
    live: &Value,
) -> Result<Outcome, PatchError> {
    let managed = managed_view(desired);
    let mut engine = Engine::new(id);
    engine.value(&PointerBuf::new(), &managed, Some(live))?;
    rules::check_v3_pool(id, &managed, live, &mut engine.refusals);
    let patch = json_patch::Patch(engine.ops);
    if engine.refusals.is_empty() {
        if !patch.0.is_empty() {
            rules::check_not_operator_owned(id, live)?;
            if rules::is_endpoint_config_map(id) {
                engine.notes.push(Note::RestartOperator(id.clone()));
            }
        }
        verify::self_check(id, &managed, live, &patch)?;
    }
    Ok(Outcome {
        patch: ObjectPatch {
            id: id.clone(),
            patch,
            notes: engine.notes,
        },
        refusals: engine.refusals,
    })
}

/// The part of the desired object that is managed: every top-level field except `apiVersion`,
/// `kind`, `metadata` and `status`, plus `metadata.labels` and `metadata.annotations`.
///
/// The rest of `metadata` identifies the object or belongs to the API server, and `status`
/// belongs to the controller, so neither is ever patched.
pub(crate) fn managed_view(desired: &Value) -> Value {
    let mut view = Map::new();
    if let Value::Object(fields) = desired {
        for (field, value) in fields {
            match field.as_str() {
                "apiVersion" | "kind" | "status" => {}
                "metadata" => {
                    let mut metadata = Map::new();
                    for part in ["labels", "annotations"] {
                        if let Some(value) = value.get(part).filter(|value| !value.is_null()) {
                            metadata.insert(part.to_owned(), value.clone());
                        }
                    }
                    if !metadata.is_empty() {
                        view.insert(field.clone(), Value::Object(metadata));
                    }
                }
                _ => {
                    view.insert(field.clone(), value.clone());
                }
            }
        }
    }
    Value::Object(view)
}

/// Accumulates the operations, refusals and notes for one object.
pub(crate) struct Engine<'a> {
    id: &'a ObjectId,
    /// The operations so far, in application order.
    pub ops: Vec<PatchOperation>,
    /// Changes Calico cannot apply in place.
    pub refusals: Vec<Refusal>,
    /// Notes for the user.
    pub notes: Vec<Note>,
}

impl<'a> Engine<'a> {
    /// An engine for the object `id` with nothing emitted yet.
    pub fn new(id: &'a ObjectId) -> Self {
        Engine {
            id,
            ops: Vec::new(),
            refusals: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Emit the operations that make `live` (the value at `ptr`, `None` when absent) match
    /// `desired` on every field `desired` sets.
    pub fn value(
        &mut self,
        ptr: &Pointer,
        desired: &Value,
        live: Option<&Value>,
    ) -> Result<(), PatchError> {
        if desired.is_null() {
            return Ok(());
        }
        let Some(live) = live else {
            // The parent exists (we only descend into objects the live side has), so `add`
            // creates exactly this member.
            self.ops.push(PatchOperation::Add(AddOperation {
                path: ptr.to_buf(),
                value: strip_nulls(desired),
            }));
            return Ok(());
        };
        match (desired, live) {
            (Value::Object(desired_fields), Value::Object(live_fields))
                if !rules::atomic_object(self.id, ptr) =>
            {
                for (field, desired) in desired_fields {
                    self.value(
                        &ptr.with_trailing_token(field),
                        desired,
                        live_fields.get(field),
                    )?;
                }
                for field in rules::displaced_fields(self.id, ptr, desired_fields, live_fields) {
                    self.ops.push(PatchOperation::Remove(RemoveOperation {
                        path: ptr.with_trailing_token(field),
                    }));
                }
            }
            (Value::Array(desired_items), Value::Array(live_items))
                if rules::keyed_list(self.id, ptr).is_some() =>
            {
                self.keyed(ptr, desired_items, live_items)?;
            }
            _ => {
                if covers(self.id, ptr, desired, live).is_err() {
                    self.ops.push(PatchOperation::Replace(ReplaceOperation {
                        path: ptr.to_buf(),
                        value: strip_nulls(desired),
                    }));
                }
            }
        }
        Ok(())
    }

    /// Diff a list whose elements are matched by a key field (the pool name).
    fn keyed(
        &mut self,
        ptr: &Pointer,
        desired: &[Value],
        live: &[Value],
    ) -> Result<(), PatchError> {
        let matching = rules::match_items(self.id, ptr, desired, live)?;
        let key = matching.key;

        // Changed pools, at their live index: nothing has moved yet.
        // `match_items` gives one key per live element and one per desired element.
        for (live_idx, (live_item, live_key)) in live.iter().zip(&matching.live_keys).enumerate() {
            let Some(desired_item) = matching
                .desired_index(live_key)
                .and_then(|desired_idx| desired.get(desired_idx))
            else {
                continue;
            };
            let item_ptr = ptr.with_trailing_token(live_idx);
            rules::check_pool(
                self.id,
                &item_ptr,
                live_key,
                desired_item,
                live_item,
                &mut self.refusals,
            );
            let mut item = Engine::new(self.id);
            item.value(&item_ptr, desired_item, Some(live_item))?;
            if !item.ops.is_empty() {
                // One test guards the whole group: a JSON patch is applied atomically, and
                // nothing between this test and the group's last operation moves the list.
                self.ops.push(test_key(&item_ptr, key, live_key));
                self.ops.extend(item.ops);
            }
            self.refusals.extend(item.refusals);
            self.notes.extend(item.notes);
        }

        // Removed pools, highest index first, so the indices of the pools before each one
        // still match the live list.
        for (live_idx, live_key) in matching.live_keys.iter().enumerate().rev() {
            if matching.desired_index(live_key).is_some() {
                continue;
            }
            let item_ptr = ptr.with_trailing_token(live_idx);
            self.ops.push(test_key(&item_ptr, key, live_key));
            self.ops
                .push(PatchOperation::Remove(RemoveOperation { path: item_ptr }));
            self.notes.push(Note::PoolRemoved {
                object: self.id.clone(),
                pool: live_key.clone(),
            });
        }

        // Added pools go to the end: the order of the list carries no meaning to the operator.
        for (desired_key, desired_item) in matching.desired_keys.iter().zip(desired) {
            if matching.live_keys.contains(desired_key) {
                continue;
            }
            self.ops.push(PatchOperation::Add(AddOperation {
                path: ptr.with_trailing_token("-"),
                value: strip_nulls(desired_item),
            }));
        }
        Ok(())
    }
}

/// The `test` of an element's key that guards the operations on it.
fn test_key(item_ptr: &Pointer, key: &str, value: &str) -> PatchOperation {
    PatchOperation::Test(TestOperation {
        path: item_ptr.with_trailing_token(key),
        value: Value::String(value.to_owned()),
    })
}

/// Check that `actual` holds every field `desired` sets, with the same value; on a mismatch,
/// return the pointer of the first differing field.
///
/// Keyed lists must hold the same set of keys, in any order; other lists must have the same
/// length and cover each other element by element; `cidr` strings compare as networks.
pub(crate) fn covers(
    id: &ObjectId,
    ptr: &Pointer,
    desired: &Value,
    actual: &Value,
) -> Result<(), PointerBuf> {
    match (desired, actual) {
        (Value::Null, _) => Ok(()),
        (Value::Object(_), _) if rules::atomic_object(id, ptr) => {
            if strip_nulls(desired) == *actual {
                Ok(())
            } else {
                Err(ptr.to_buf())
            }
        }
        (Value::Object(desired), Value::Object(actual)) => {
            for (field, desired) in desired {
                if desired.is_null() {
                    continue;
                }
                let field_ptr = ptr.with_trailing_token(field);
                match actual.get(field) {
                    Some(actual) => covers(id, &field_ptr, desired, actual)?,
                    None => return Err(field_ptr),
                }
            }
            Ok(())
        }
        (Value::Array(desired), Value::Array(actual)) => {
            if rules::keyed_list(id, ptr).is_some() {
                let matching =
                    rules::match_items(id, ptr, desired, actual).map_err(|_| ptr.to_buf())?;
                if matching.live_keys.len() != matching.desired_keys.len() {
                    return Err(ptr.to_buf());
                }
                for (desired_idx, (desired_key, desired_item)) in
                    matching.desired_keys.iter().zip(desired).enumerate()
                {
                    let Some((actual_idx, actual_item)) = matching
                        .live_keys
                        .iter()
                        .position(|key| key == desired_key)
                        .and_then(|idx| Some((idx, actual.get(idx)?)))
                    else {
                        return Err(ptr.with_trailing_token(desired_idx));
                    };
                    covers(
                        id,
                        &ptr.with_trailing_token(actual_idx),
                        desired_item,
                        actual_item,
                    )?;
                }
                return Ok(());
            }
            if desired.len() != actual.len() {
                return Err(ptr.to_buf());
            }
            for (idx, (desired, actual)) in desired.iter().zip(actual).enumerate() {
                covers(id, &ptr.with_trailing_token(idx), desired, actual)?;
            }
            Ok(())
        }
        (Value::String(desired), Value::String(actual)) if is_cidr_field(ptr) => {
            if rules::cidr_eq(desired, actual) {
                Ok(())
            } else {
                Err(ptr.to_buf())
            }
        }
        _ => {
            if desired == actual {
                Ok(())
            } else {
                Err(ptr.to_buf())
            }
        }
    }
}

/// `value` without the object members whose value is `null` (which mean "not set").
fn strip_nulls(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(field, value)| (field.clone(), strip_nulls(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_nulls).collect()),
        other => other.clone(),
    }
}

/// True when the pointer names a `cidr` field, whose strings compare as networks
/// (`fd00:0::/48` is `fd00::/48`: the API server stores the canonical spelling).
fn is_cidr_field(ptr: &Pointer) -> bool {
    ptr.last().is_some_and(|token| token.decoded() == "cidr")
}

/// Render a pointer as the field path users read in diagnostics:
/// `/spec/calicoNetwork/ipPools/0/cidr` becomes `spec.calicoNetwork.ipPools[0].cidr`.
pub(crate) fn field_path(ptr: &Pointer) -> String {
    let mut path = String::new();
    for token in ptr.tokens() {
        let token = token.decoded();
        let plain = token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !token.is_empty() && token.chars().all(|c| c.is_ascii_digit()) {
            path.push_str(&format!("[{token}]"));
        } else if plain && !token.is_empty() {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&token);
        } else {
            path.push_str(&format!("[{}]", Value::String(token.into_owned())));
        }
    }
    path
}
