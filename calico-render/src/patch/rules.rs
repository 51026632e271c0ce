//! Per-kind knowledge the patch engine needs: which lists are keyed, which objects are atomic,
//! how pools are matched, and which pool changes Calico cannot make in place.
//!
//! To key another list, add a row to [`KEYED_LISTS`]; to make an object replace as a whole, add
//! a row to [`ATOMIC_OBJECTS`]; to declare fields that cannot stand side by side, add a row to
//! [`EXCLUSIVE_FIELDS`].
//! The engine, the self-check and the guard check all read these tables.

use std::collections::BTreeSet;
use std::net::IpAddr;

use jsonptr::Pointer;
use serde_json::Value;

use super::diff::field_path;
use super::object::{ObjectId, Side};
use super::{PatchError, Refusal};

/// A list whose elements are matched by a key field instead of by position.
struct KeyedList {
    /// API group of the object holding the list.
    group: &'static str,
    /// Kind of the object holding the list.
    kind: &'static str,
    /// Where the list is, as unescaped pointer tokens.
    path: &'static [&'static str],
    /// The field naming each element.
    key: &'static str,
}

/// Every keyed list the engine knows.
const KEYED_LISTS: &[KeyedList] = &[KeyedList {
    group: "operator.tigera.io",
    kind: "Installation",
    path: &["spec", "calicoNetwork", "ipPools"],
    key: "name",
}];

/// An object field whose members are alternatives: it is replaced as a whole when it differs,
/// so a member only the live side has (an operator default) cannot survive next to the
/// desired one and make the object invalid.
struct AtomicObject {
    /// API group of the object holding the field.
    group: &'static str,
    /// Kind of the object holding the field.
    kind: &'static str,
    /// Where the field is, as unescaped pointer tokens.
    path: &'static [&'static str],
}

/// Every atomic object the engine knows.
///
/// Node address autodetection takes exactly one method, and the operator writes
/// `firstFound: true` when the spec names none; a desired `canReach` must replace it.
const ATOMIC_OBJECTS: &[AtomicObject] = &[
    AtomicObject {
        group: "operator.tigera.io",
        kind: "Installation",
        path: &["spec", "calicoNetwork", "nodeAddressAutodetectionV4"],
    },
    AtomicObject {
        group: "operator.tigera.io",
        kind: "Installation",
        path: &["spec", "calicoNetwork", "nodeAddressAutodetectionV6"],
    },
];

/// True when `ptr` has exactly the tokens `path`.
fn is_at(ptr: &Pointer, path: &[&str]) -> bool {
    ptr.count() == path.len()
        && ptr
            .tokens()
            .zip(path)
            .all(|(token, part)| token.decoded() == *part)
}

/// True when `ptr` is an atomic object field of the object `id`.
pub(crate) fn atomic_object(id: &ObjectId, ptr: &Pointer) -> bool {
    ATOMIC_OBJECTS
        .iter()
        .any(|field| field.group == id.group() && field.kind == id.kind && is_at(ptr, field.path))
}

/// Fields of one object that Calico rejects side by side: when the desired object sets one of
/// them, a live value of another that the desired object does not set is removed.
///
/// This is the one case where a field only the live object has is touched: leaving it would
/// make the patched object invalid (the API server would reject the whole patch).
struct ExclusiveFields {
    /// API group of the object.
    group: &'static str,
    /// Kind of the object.
    kind: &'static str,
    /// Where the fields' parent object is, as unescaped pointer tokens.
    path: &'static [&'static str],
    /// The fields that exclude each other.
    fields: &'static [&'static str],
}

/// Every set of exclusive fields the engine knows (BGPPeer's CEL rules in the v3.32.1 CRD).
const EXCLUSIVE_FIELDS: &[ExclusiveFields] = &[
    ExclusiveFields {
        group: "projectcalico.org",
        kind: "BGPPeer",
        path: &["spec"],
        fields: &["peerIP", "peerSelector"],
    },
    ExclusiveFields {
        group: "projectcalico.org",
        kind: "BGPPeer",
        path: &["spec"],
        fields: &["node", "nodeSelector"],
    },
    ExclusiveFields {
        group: "projectcalico.org",
        kind: "BGPPeer",
        path: &["spec"],
        fields: &["peerSelector", "asNumber"],
    },
    ExclusiveFields {
        group: "projectcalico.org",
        kind: "BGPPeer",
        path: &["spec"],
        fields: &["localWorkloadSelector", "peerIP", "peerSelector"],
    },
];

/// The live fields under `ptr` that a desired field excludes, in table order, without
/// duplicates.
pub(crate) fn displaced_fields(
    id: &ObjectId,
    ptr: &Pointer,
    desired: &serde_json::Map<String, Value>,
    live: &serde_json::Map<String, Value>,
) -> Vec<&'static str> {
    let is_set = |fields: &serde_json::Map<String, Value>, field: &str| {
        fields.get(field).is_some_and(|value| !value.is_null())
    };
    let mut displaced = Vec::new();
    for exclusive in EXCLUSIVE_FIELDS {
        if exclusive.group != id.group() || exclusive.kind != id.kind || !is_at(ptr, exclusive.path)
        {
            continue;
        }
        if !exclusive.fields.iter().any(|field| is_set(desired, field)) {
            continue;
        }
        for field in exclusive.fields {
            if !is_set(desired, field) && live.contains_key(*field) && !displaced.contains(field) {
                displaced.push(*field);
            }
        }
    }
    displaced
}

/// The label the operator puts on the projectcalico.org/v3 IPPools it owns.
const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
/// The value of [`MANAGED_BY`] on pools the operator owns.
const OPERATOR: &str = "tigera-operator";

/// The key field when `ptr` is a keyed list of the object `id`.
pub(crate) fn keyed_list(id: &ObjectId, ptr: &Pointer) -> Option<&'static str> {
    KEYED_LISTS
        .iter()
        .find(|list| {
            list.group == id.group()
                && list.kind == id.kind
                && ptr.count() == list.path.len()
                && ptr
                    .tokens()
                    .zip(list.path)
                    .all(|(token, part)| token.decoded() == *part)
        })
        .map(|list| list.key)
}

/// How the elements of a desired keyed list pair up with the live one.
pub(crate) struct Matching {
    /// The key field, `name`.
    pub key: &'static str,
    /// The key of every live element, by index.
    pub live_keys: Vec<String>,
    /// The key of every desired element, by index (adopted from the live pool with the same
    /// CIDR where the desired pool has no name).
    pub desired_keys: Vec<String>,
}

impl Matching {
    /// The index of the desired element with this key.
    pub fn desired_index(&self, key: &str) -> Option<usize> {
        self.desired_keys.iter().position(|desired| desired == key)
    }
}

/// Pair the elements of a keyed list by key.
///
/// A desired pool without a name takes the name of the live pool with the same CIDR, which is
/// what the operator itself does when it names a pool; live pools must all be named (the
/// operator always names them), since an unnamed pool cannot be guarded by a `test`.
pub(crate) fn match_items(
    id: &ObjectId,
    ptr: &Pointer,
    desired: &[Value],
    live: &[Value],
) -> Result<Matching, PatchError> {
    let key = keyed_list(id, ptr).unwrap_or("name");
    let key_of = |item: &Value| {
        item.get(key)
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
    };
    let mut live_keys: Vec<String> = Vec::with_capacity(live.len());
    for (idx, item) in live.iter().enumerate() {
        let Some(name) = key_of(item) else {
            return Err(unkeyed(Side::Live, id, ptr, idx, key));
        };
        if live_keys.contains(&name) {
            return Err(duplicate(Side::Live, id, ptr, key, name));
        }
        live_keys.push(name);
    }
    let mut desired_keys: Vec<String> = Vec::with_capacity(desired.len());
    for (idx, item) in desired.iter().enumerate() {
        let adopted = || {
            let cidr = item.get("cidr").and_then(Value::as_str)?;
            let live_idx = live.iter().position(|live_item| {
                live_item
                    .get("cidr")
                    .and_then(Value::as_str)
                    .is_some_and(|live| cidr_eq(cidr, live))
            })?;
            live_keys.get(live_idx).cloned()
        };
        let Some(name) = key_of(item).or_else(adopted) else {
            return Err(unkeyed(Side::Desired, id, ptr, idx, key));
        };
        if desired_keys.contains(&name) {
            return Err(duplicate(Side::Desired, id, ptr, key, name));
        }
        desired_keys.push(name);
    }
    Ok(Matching {
        key,
        live_keys,
        desired_keys,
    })
}

fn unkeyed(side: Side, id: &ObjectId, ptr: &Pointer, idx: usize, key: &'static str) -> PatchError {
    PatchError::UnkeyedItem {
        side,
        object: Box::new(id.clone()),
        path: field_path(&ptr.with_trailing_token(idx)),
        key,
    }
}

fn duplicate(
    side: Side,
    id: &ObjectId,
    ptr: &Pointer,
    key: &'static str,
    value: String,
) -> PatchError {
    PatchError::DuplicateKey {
        side,
        object: Box::new(id.clone()),
        path: field_path(ptr),
        key,
        value,
    }
}

/// True when two CIDR strings name the same network (`fd00:0::/48` and `fd00::/48`); strings
/// that do not parse compare as text.
pub(crate) fn cidr_eq(left: &str, right: &str) -> bool {
    match (parse_cidr(left), parse_cidr(right)) {
        (Some(left), Some(right)) => left == right,
        _ => left == right,
    }
}

fn parse_cidr(text: &str) -> Option<(IpAddr, u8)> {
    let (addr, prefix) = text.split_once('/')?;
    Some((addr.parse().ok()?, prefix.parse().ok()?))
}

/// The block size Calico uses when a pool does not say: 26 for IPv4, 122 for IPv6.
fn default_block_size(pool: &Value) -> Option<Value> {
    let (addr, _) = parse_cidr(pool.get("cidr")?.as_str()?)?;
    Some(Value::from(if addr.is_ipv6() { 122 } else { 26 }))
}

/// Record the changes to one pool that Calico cannot apply in place.
///
/// `ptr` points at the pool's fields (an element of the Installation's pool list, or a
/// projectcalico.org/v3 IPPool's `spec`); `pool` is the pool's name.
pub(crate) fn check_pool(
    id: &ObjectId,
    ptr: &Pointer,
    pool: &str,
    desired: &Value,
    live: &Value,
    refusals: &mut Vec<Refusal>,
) {
    let is_v3 = id.kind == "IPPool";
    let mut refuse = |field: &str, live: Value, desired: Value, hint: String| {
        refusals.push(Refusal {
            object: id.clone(),
            path: field_path(&ptr.with_trailing_token(field)),
            pool: pool.to_owned(),
            live,
            desired,
            hint,
        });
    };

    if let (Some(Value::String(desired_cidr)), Some(Value::String(live_cidr))) =
        (desired.get("cidr"), live.get("cidr"))
        && !cidr_eq(desired_cidr, live_cidr)
    {
        let hint = migration_hint("cidr", pool, is_v3);
        refuse(
            "cidr",
            Value::from(live_cidr.as_str()),
            Value::from(desired_cidr.as_str()),
            hint,
        );
    }

    let live_block = live
        .get("blockSize")
        .filter(|size| !size.is_null())
        .cloned()
        .or_else(|| default_block_size(live));
    if let (Some(desired_block), Some(live_block)) = (
        desired.get("blockSize").filter(|size| !size.is_null()),
        live_block,
    ) && desired_block != &live_block
    {
        let hint = migration_hint("blockSize", pool, is_v3);
        refuse("blockSize", live_block, desired_block.clone(), hint);
    }

    if let Some(Value::Array(desired_uses)) = desired.get("allowedUses") {
        let default_uses = [Value::from("Workload"), Value::from("Tunnel")];
        let live_uses = match live.get("allowedUses") {
            Some(Value::Array(uses)) => uses.as_slice(),
            _ => &default_uses,
        };
        let as_set = |uses: &[Value]| {
            uses.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<BTreeSet<_>>()
        };
        let (desired_set, live_set) = (as_set(desired_uses), as_set(live_uses));
        if desired_set != live_set
            && (desired_set.contains("LoadBalancer") || live_set.contains("LoadBalancer"))
        {
            let hint = format!(
                "a pool cannot switch to or from LoadBalancer use; create a separate pool with \
                 allowedUses: [LoadBalancer] for service addresses and leave pool {pool} as it is"
            );
            refuse(
                "allowedUses",
                Value::from(live_uses.to_vec()),
                Value::from(desired_uses.clone()),
                hint,
            );
        }
    }
}

/// The migration steps for a pool field that cannot change in place.
fn migration_hint(field: &str, pool: &str, is_v3: bool) -> String {
    if is_v3 {
        format!(
            "Calico cannot change a pool's {field} in place; migrate instead: create a new IPPool \
             with the new {field}, set disabled: true on IPPool {pool}, move the workloads off it \
             (restart their pods), then delete IPPool {pool}; with the new IPPool under another \
             name in DESIRED, `calico-render plan` (same flags) prints these steps, guarded, with \
             what to wait for and how to undo each"
        )
    } else {
        format!(
            "Calico cannot change a pool's {field} in place; migrate instead: add a new pool with \
             the new {field} under another name, set disableNewAllocations: true on pool {pool}, \
             move the workloads off it (restart their pods), then remove pool {pool} from the \
             list; with the new pool under another name in DESIRED, `calico-render plan` (same \
             flags) prints these steps, guarded, with what to wait for and how to undo each"
        )
    }
}

/// Record the refused changes of a projectcalico.org/v3 IPPool.
pub(crate) fn check_v3_pool(
    id: &ObjectId,
    managed: &Value,
    live: &Value,
    refusals: &mut Vec<Refusal>,
) {
    if id.group() != "projectcalico.org" || id.kind != "IPPool" {
        return;
    }
    if let (Some(desired), Some(live)) = (managed.get("spec"), live.get("spec")) {
        let ptr = jsonptr::PointerBuf::from_tokens(["spec"]);
        check_pool(id, &ptr, &id.name, desired, live, refusals);
    }
}

/// True for the `kubernetes-services-endpoint` ConfigMap the operator reads its API address
/// from; the operator process only rereads it into its environment when restarted.
pub(crate) fn is_endpoint_config_map(id: &ObjectId) -> bool {
    id.api_version == "v1" && id.kind == "ConfigMap" && id.name == "kubernetes-services-endpoint"
}

/// Refuse to patch a projectcalico.org/v3 IPPool the operator owns: it silently reverts direct
/// edits, so the change belongs in the Installation's pool list.
pub(crate) fn check_not_operator_owned(id: &ObjectId, live: &Value) -> Result<(), PatchError> {
    let owned = id.group() == "projectcalico.org"
        && id.kind == "IPPool"
        && live
            .pointer("/metadata/labels")
            .and_then(|labels| labels.get(MANAGED_BY))
            .and_then(Value::as_str)
            == Some(OPERATOR);
    if owned {
        return Err(PatchError::OperatorOwned {
            id: Box::new(id.clone()),
        });
    }
    Ok(())
}
