//! The self-check every patch passes before anyone sees it.
//!
//! Every operation on a pool must sit behind a `test` of that pool's name.
//! Then the patch is applied to the live object with the `json-patch` crate (an RFC 6902
//! implementation that shares no code with our diff), and the result must:
//!
//! - hold every managed field with its desired value;
//! - hold every field only the live object has, unchanged (except a field a desired one
//!   excludes, which must be gone);
//! - need no further operation when diffed again.

use json_patch::PatchOperation;
use jsonptr::{Pointer, PointerBuf};
use serde_json::Value;

use super::PatchError;
use super::diff::{Engine, covers, field_path};
use super::object::ObjectId;
use super::rules::{atomic_object, displaced_fields, keyed_list, match_items};

/// Verify `patch` against `live` and the managed view of the desired object.
pub(crate) fn self_check(
    id: &ObjectId,
    managed: &Value,
    live: &Value,
    patch: &json_patch::Patch,
) -> Result<(), PatchError> {
    let fail = |detail: String| PatchError::SelfCheck {
        object: Box::new(id.clone()),
        detail,
    };
    guards(id, patch).map_err(fail)?;

    let mut result = live.clone();
    json_patch::patch(&mut result, patch)
        .map_err(|err| fail(format!("applying it to LIVE failed: {err}")))?;
    let root = PointerBuf::new();
    covers(id, &root, managed, &result).map_err(|ptr| {
        fail(format!(
            "{} differs from DESIRED after applying it",
            field_path(&ptr)
        ))
    })?;
    untouched(id, &root, Some(managed), live, &result).map_err(|ptr| {
        fail(format!(
            "{}, which only LIVE sets, was changed",
            field_path(&ptr)
        ))
    })?;

    let mut again = Engine::new(id);
    again
        .value(&root, managed, Some(&result))
        .map_err(|err| fail(format!("diffing the result again failed: {err}")))?;
    if let Some(first) = again.ops.first() {
        return Err(fail(format!(
            "a second pass still finds {} operation(s), the first at {}",
            again.ops.len(),
            field_path(first.path())
        )));
    }
    Ok(())
}

/// Check that every field of `live` that `managed` does not set is unchanged in `result`.
///
/// Where `managed` sets a whole value (a scalar or an atomic list), that value is the
/// desired one and was checked by `covers`; only objects and keyed lists are descended into.
fn untouched(
    id: &ObjectId,
    ptr: &Pointer,
    managed: Option<&Value>,
    live: &Value,
    result: &Value,
) -> Result<(), PointerBuf> {
    match (managed, live, result) {
        (None, _, _) => {
            if live == result {
                Ok(())
            } else {
                Err(ptr.to_buf())
            }
        }
        (Some(_), _, _) if atomic_object(id, ptr) => Ok(()),
        (Some(Value::Object(managed)), Value::Object(live), Value::Object(result)) => {
            let displaced = displaced_fields(id, ptr, managed, live);
            for (field, live) in live {
                let field_ptr = ptr.with_trailing_token(field);
                let managed = managed.get(field).filter(|value| !value.is_null());
                match result.get(field) {
                    Some(result) => untouched(id, &field_ptr, managed, live, result)?,
                    None if displaced.contains(&field.as_str()) => {}
                    None => return Err(field_ptr),
                }
            }
            Ok(())
        }
        (Some(Value::Array(managed)), Value::Array(live), Value::Array(result))
            if keyed_list(id, ptr).is_some() =>
        {
            let matching = match_items(id, ptr, managed, live).map_err(|_| ptr.to_buf())?;
            let result_keys = match_items(id, ptr, &[], result).map_err(|_| ptr.to_buf())?;
            // `match_items` gives one key per element of each list.
            for (live_idx, (live_item, key)) in live.iter().zip(&matching.live_keys).enumerate() {
                let Some(managed_item) = matching
                    .desired_index(key)
                    .and_then(|managed_idx| managed.get(managed_idx))
                else {
                    continue;
                };
                let item_ptr = ptr.with_trailing_token(live_idx);
                let Some(result_item) = result
                    .iter()
                    .zip(&result_keys.live_keys)
                    .find_map(|(item, k)| (k == key).then_some(item))
                else {
                    return Err(item_ptr);
                };
                untouched(id, &item_ptr, Some(managed_item), live_item, result_item)?;
            }
            Ok(())
        }
        // The managed value replaces the live one as a whole (or changes its type).
        (Some(_), _, _) => Ok(()),
    }
}

/// Check that every operation on an element of a keyed list directly follows a `test` of that
/// element's key, or another operation guarded by the same test.
fn guards(id: &ObjectId, patch: &json_patch::Patch) -> Result<(), String> {
    let mut guarded: Option<(PointerBuf, usize)> = None;
    for (op_idx, op) in patch.iter().enumerate() {
        let Some((list, item_idx, is_key)) = keyed_item(id, op.path()) else {
            guarded = None;
            continue;
        };
        if is_key && matches!(op, PatchOperation::Test(_)) {
            guarded = Some((list, item_idx));
            continue;
        }
        if guarded.as_ref() != Some(&(list, item_idx)) {
            return Err(format!(
                "operation {op_idx} on {} is not guarded by a test of the pool name",
                field_path(op.path())
            ));
        }
    }
    Ok(())
}

/// When `path` is inside an element of a keyed list: the list, the element's index, and
/// whether `path` is exactly the element's key field.
fn keyed_item(id: &ObjectId, path: &Pointer) -> Option<(PointerBuf, usize, bool)> {
    let tokens: Vec<String> = path
        .tokens()
        .map(|token| token.decoded().into_owned())
        .collect();
    for split in 0..tokens.len() {
        let Some((before, [item, after @ ..])) = tokens.split_at_checked(split) else {
            continue;
        };
        let list = PointerBuf::from_tokens(before);
        let Some(key) = keyed_list(id, &list) else {
            continue;
        };
        let item_idx = item.parse::<usize>().ok()?;
        let is_key = matches!(after, [only] if only == key);
        return Some((list, item_idx, is_key));
    }

    None
}
