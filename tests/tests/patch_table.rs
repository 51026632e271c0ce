//! Table tests of the patch engine (issue 5): each case is a desired object, a live object and
//! the exact RFC 6902 patch (or the refusal) expected.
//!
//! The live objects start from `tests/cases/patch/article-disable-bgp-export/live.yaml`, which
//! is what `kubectl get installation default -o yaml` prints once the operator has written its
//! defaults back; each case edits the fields it is about.

use calico_render::patch::{self, Note, PatchError, Side};
use calico_spec::source::{self, Limits};
use serde_json::{Value, json};

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/cases/patch");

/// Read every non-empty document of a fixture file.
fn load(relative: &str) -> Vec<Value> {
    let path = format!("{CASES}/{relative}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    source::parse_stream(&text, &Limits::MANIFESTS)
        .unwrap_or_else(|err| panic!("{path}: {err}"))
        .into_iter()
        .filter(|document| !document.is_empty())
        .map(|document| document.value)
        .collect()
}

fn article_desired() -> Value {
    load("article-disable-bgp-export/desired.yaml").remove(0)
}

fn article_live() -> Value {
    load("article-disable-bgp-export/live.yaml").remove(0)
}

/// The article's pool as the operator writes it back, under another name and CIDR.
fn live_pool(name: &str, cidr: &str) -> Value {
    let mut pool = article_live()["spec"]["calicoNetwork"]["ipPools"][0].clone();
    pool["name"] = json!(name);
    pool["cidr"] = json!(cidr);
    pool
}

/// `value` with the field at `pointer` set (its parent must exist).
fn set(mut value: Value, pointer: &str, new: Value) -> Value {
    let (parent, field) = pointer.rsplit_once('/').expect("pointer has a parent");
    let target = value
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("no parent {parent}"));
    match target {
        Value::Object(map) => {
            map.insert(field.replace("~1", "/").replace("~0", "~"), new);
        }
        Value::Array(items) => items[field.parse::<usize>().expect("index")] = new,
        other => panic!("{parent} is {other}, not a container"),
    }
    value
}

/// `value` without the field at `pointer`.
fn unset(mut value: Value, pointer: &str) -> Value {
    let (parent, field) = pointer.rsplit_once('/').expect("pointer has a parent");
    match value.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(field);
        }
        Some(Value::Array(items)) => {
            items.remove(field.parse::<usize>().expect("index"));
        }
        _ => panic!("no container at {parent}"),
    }
    value
}

const POOLS: &str = "/spec/calicoNetwork/ipPools";

/// The one helper every table case goes through: the patch must be exactly `expected`, and
/// applying it to `live` with the json-patch crate must succeed.
fn check(desired: &Value, live: &Value, expected: Value) {
    let object = patch::diff_object(desired, live).unwrap_or_else(|err| panic!("{err}"));
    let actual = serde_json::to_value(object.patch()).expect("a patch serializes");
    assert_eq!(actual, expected, "patch:\n{}", object.to_json());
    let mut patched = live.clone();
    json_patch::patch(&mut patched, object.patch()).expect("the patch applies to LIVE");
    // A second diff of the patched object finds nothing left to do.
    let again = patch::diff_object(desired, &patched).expect("second diff");
    assert!(again.is_empty(), "second pass: {}", again.to_json());
}

/// The refusal helper: the patch is refused, naming exactly these field paths.
fn check_refused(desired: &Value, live: &Value, expected_paths: &[&str], hint_mentions: &str) {
    match patch::diff_object(desired, live) {
        Err(PatchError::Refused { refusals }) => {
            let paths: Vec<&str> = refusals
                .iter()
                .map(|refusal| refusal.path.as_str())
                .collect();
            assert_eq!(paths, expected_paths);
            for refusal in &refusals {
                assert!(
                    refusal.hint.contains(hint_mentions),
                    "hint of {} lacks {hint_mentions:?}: {}",
                    refusal.path,
                    refusal.hint
                );
            }
        }
        Err(other) => panic!("expected a refusal, got {other}"),
        Ok(object) => panic!("expected a refusal, got the patch {}", object.to_json()),
    }
}

#[test]
fn article_disable_bgp_export_is_a_guarded_replace() {
    check(
        &article_desired(),
        &article_live(),
        json!([
            {"op": "test", "path": "/spec/calicoNetwork/ipPools/0/name", "value": "default-ipv4-ippool"},
            {"op": "replace", "path": "/spec/calicoNetwork/ipPools/0/disableBGPExport", "value": true},
        ]),
    );
}

#[test]
fn operator_defaults_written_back_are_not_drift() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    check(&article_desired(), &live, json!([]));
    // The article's first Installation does not mention disableBGPExport at all: the operator's
    // `false` is not drift either.
    let desired = unset(article_desired(), &format!("{POOLS}/0/disableBGPExport"));
    check(&desired, &article_live(), json!([]));
}

#[test]
fn explicit_defaults_equal_to_the_live_ones_need_no_op() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let desired = article_desired();
    let desired = set(desired, "/spec/variant", json!("Calico"));
    let desired = set(desired, "/spec/controlPlaneReplicas", json!(2));
    let desired = set(desired, "/spec/calicoNetwork/hostPorts", json!("Enabled"));
    let desired = set(
        desired,
        &format!("{POOLS}/0/allowedUses"),
        json!(["Workload", "Tunnel"]),
    );
    check(&desired, &live, json!([]));
}

#[test]
fn adding_a_second_pool_appends_it() {
    let second = json!({
        "name": "pods-2", "cidr": "172.21.0.0/16", "blockSize": 26,
        "encapsulation": "VXLANCrossSubnet", "natOutgoing": "Enabled", "nodeSelector": "all()",
    });
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let mut desired = article_desired();
    desired["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .push(second.clone());
    check(
        &desired,
        &live,
        json!([{"op": "add", "path": format!("{POOLS}/-"), "value": second}]),
    );
}

#[test]
fn removing_a_pool_is_guarded_and_uses_live_indices() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let mut two = live.clone();
    two["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .push(live_pool("old-pool", "10.244.0.0/16"));
    check(
        &article_desired(),
        &two,
        json!([
            {"op": "test", "path": format!("{POOLS}/1/name"), "value": "old-pool"},
            {"op": "remove", "path": format!("{POOLS}/1")},
        ]),
    );

    // The removed pool comes first and the kept one changes: the change is made at the kept
    // pool's live index before the removal shifts it.
    let mut moved = article_live();
    moved["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .insert(0, live_pool("old-pool", "10.244.0.0/16"));
    check(
        &article_desired(),
        &moved,
        json!([
            {"op": "test", "path": format!("{POOLS}/1/name"), "value": "default-ipv4-ippool"},
            {"op": "replace", "path": format!("{POOLS}/1/disableBGPExport"), "value": true},
            {"op": "test", "path": format!("{POOLS}/0/name"), "value": "old-pool"},
            {"op": "remove", "path": format!("{POOLS}/0")},
        ]),
    );
}

#[test]
fn removing_a_pool_leaves_a_note() {
    let mut live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    live["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .push(live_pool("old-pool", "10.244.0.0/16"));
    let object = patch::diff_object(&article_desired(), &live).expect("patch");
    assert!(
        matches!(object.notes(), [Note::PoolRemoved { pool, .. }] if pool == "old-pool"),
        "{:?}",
        object.notes()
    );
}

#[test]
fn reordering_pools_in_desired_is_no_patch() {
    let mut live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let second = live_pool("pods-2", "172.21.0.0/16");
    live["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .push(second.clone());
    let mut desired = article_desired();
    desired["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .insert(
            0,
            json!({"name": "pods-2", "cidr": "172.21.0.0/16", "encapsulation": "VXLANCrossSubnet"}),
        );
    check(&desired, &live, json!([]));
}

#[test]
fn a_moved_pool_list_is_matched_by_name() {
    let mut live = article_live();
    live["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .insert(0, live_pool("pods-2", "172.21.0.0/16"));
    let mut desired = article_desired();
    desired["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .push(json!({"name": "pods-2", "cidr": "172.21.0.0/16"}));
    check(
        &desired,
        &live,
        json!([
            {"op": "test", "path": format!("{POOLS}/1/name"), "value": "default-ipv4-ippool"},
            {"op": "replace", "path": format!("{POOLS}/1/disableBGPExport"), "value": true},
        ]),
    );
}

#[test]
fn a_stale_patch_fails_its_test_instead_of_editing_the_wrong_pool() {
    // The patch is computed against the article's one-pool list...
    let object = patch::diff_object(&article_desired(), &article_live()).expect("patch");
    // ...but by the time it is applied, another pool has been put at index 0.
    let mut moved = article_live();
    moved["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .insert(0, live_pool("pods-2", "172.21.0.0/16"));
    let before = moved.clone();
    let err = json_patch::patch(&mut moved, object.patch()).expect_err("the test op must fail");
    assert_eq!(err.operation, 0, "{err}");
    assert_eq!(moved, before, "a failed patch changes nothing");
}

#[test]
fn mtu_is_added_or_replaced() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let desired = set(article_desired(), "/spec/calicoNetwork/mtu", json!(1400));
    check(
        &desired,
        &live,
        json!([{"op": "add", "path": "/spec/calicoNetwork/mtu", "value": 1400}]),
    );
    let live = set(live, "/spec/calicoNetwork/mtu", json!(1450));
    check(
        &desired,
        &live,
        json!([{"op": "replace", "path": "/spec/calicoNetwork/mtu", "value": 1400}]),
    );
}

#[test]
fn enabling_bgp_is_one_replace() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let desired = set(
        article_desired(),
        "/spec/calicoNetwork/bgp",
        json!("Enabled"),
    );
    check(
        &desired,
        &live,
        json!([{"op": "replace", "path": "/spec/calicoNetwork/bgp", "value": "Enabled"}]),
    );
}

#[test]
fn a_pool_cidr_change_is_refused_with_the_migration_steps() {
    let desired = set(
        article_desired(),
        &format!("{POOLS}/0/cidr"),
        json!("172.30.0.0/16"),
    );
    check_refused(
        &desired,
        &article_live(),
        &["spec.calicoNetwork.ipPools[0].cidr"],
        "disableNewAllocations: true on pool default-ipv4-ippool",
    );
}

#[test]
fn a_pool_block_size_change_is_refused() {
    let desired = set(
        article_desired(),
        &format!("{POOLS}/0/blockSize"),
        json!(24),
    );
    check_refused(
        &desired,
        &article_live(),
        &["spec.calicoNetwork.ipPools[0].blockSize"],
        "add a new pool",
    );
    // Every refused change is reported at once.
    let desired = set(desired, &format!("{POOLS}/0/cidr"), json!("172.30.0.0/16"));
    check_refused(
        &desired,
        &article_live(),
        &[
            "spec.calicoNetwork.ipPools[0].cidr",
            "spec.calicoNetwork.ipPools[0].blockSize",
        ],
        "remove pool default-ipv4-ippool",
    );
}

#[test]
fn a_block_size_the_live_pool_leaves_to_the_default_is_not_a_change() {
    let live = unset(article_live(), &format!("{POOLS}/0/blockSize"));
    let live = set(live, &format!("{POOLS}/0/disableBGPExport"), json!(true));
    check(
        &article_desired(),
        &live,
        json!([
            {"op": "test", "path": format!("{POOLS}/0/name"), "value": "default-ipv4-ippool"},
            {"op": "add", "path": format!("{POOLS}/0/blockSize"), "value": 26},
        ]),
    );
    let desired = set(
        article_desired(),
        &format!("{POOLS}/0/blockSize"),
        json!(27),
    );
    check_refused(
        &desired,
        &live,
        &["spec.calicoNetwork.ipPools[0].blockSize"],
        "add a new pool",
    );
}

#[test]
fn an_equal_cidr_spelled_differently_is_not_a_change() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/cidr"),
        json!("fd00:10:20::/56"),
    );
    let live = set(live, &format!("{POOLS}/0/blockSize"), json!(122));
    let live = set(live, &format!("{POOLS}/0/disableBGPExport"), json!(true));
    let desired = set(
        article_desired(),
        &format!("{POOLS}/0/cidr"),
        json!("fd00:10:20:0::/56"),
    );
    let desired = set(desired, &format!("{POOLS}/0/blockSize"), json!(122));
    check(&desired, &live, json!([]));
}

#[test]
fn an_unnamed_desired_pool_takes_the_name_of_the_live_pool_with_its_cidr() {
    let desired = unset(article_desired(), &format!("{POOLS}/0/name"));
    check(
        &desired,
        &article_live(),
        json!([
            {"op": "test", "path": format!("{POOLS}/0/name"), "value": "default-ipv4-ippool"},
            {"op": "replace", "path": format!("{POOLS}/0/disableBGPExport"), "value": true},
        ]),
    );
    let desired = set(desired, &format!("{POOLS}/0/cidr"), json!("172.30.0.0/16"));
    match patch::diff_object(&desired, &article_live()) {
        Err(PatchError::UnkeyedItem {
            side: Side::Desired,
            path,
            ..
        }) => {
            assert_eq!(path, "spec.calicoNetwork.ipPools[0]");
        }
        other => panic!("expected an unkeyed pool error, got {other:?}"),
    }
}

#[test]
fn duplicate_pool_names_are_refused() {
    let mut desired = article_desired();
    let copy = desired["spec"]["calicoNetwork"]["ipPools"][0].clone();
    desired["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()
        .expect("pools")
        .push(copy);
    match patch::diff_object(&desired, &article_live()) {
        Err(PatchError::DuplicateKey {
            side: Side::Desired,
            value,
            ..
        }) => {
            assert_eq!(value, "default-ipv4-ippool");
        }
        other => panic!("expected a duplicate name error, got {other:?}"),
    }
}

#[test]
fn node_address_autodetection_is_replaced_as_a_whole() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let desired = set(
        article_desired(),
        "/spec/calicoNetwork/nodeAddressAutodetectionV4",
        json!({"canReach": "192.168.10.1"}),
    );
    check(
        &desired,
        &live,
        json!([{
            "op": "replace",
            "path": "/spec/calicoNetwork/nodeAddressAutodetectionV4",
            "value": {"canReach": "192.168.10.1"},
        }]),
    );
    let same = set(
        article_desired(),
        "/spec/calicoNetwork/nodeAddressAutodetectionV4",
        json!({"firstFound": true}),
    );
    check(&same, &live, json!([]));
}

#[test]
fn pointer_tokens_are_escaped() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let desired = set(
        article_desired(),
        "/metadata/annotations",
        json!({"example.com/owner": "platform", "a~b": "x"}),
    );
    check(
        &desired,
        &live,
        json!([
            {"op": "add", "path": "/metadata/annotations/a~0b", "value": "x"},
            {"op": "add", "path": "/metadata/annotations/example.com~1owner", "value": "platform"},
        ]),
    );
}

#[test]
fn null_in_desired_is_not_managed_and_status_is_never_touched() {
    let live = set(
        article_live(),
        &format!("{POOLS}/0/disableBGPExport"),
        json!(true),
    );
    let desired = set(article_desired(), "/spec/calicoNetwork/mtu", Value::Null);
    let desired = set(desired, "/status", json!({"mtu": 9000}));
    check(&desired, &live, json!([]));
}

#[test]
fn a_live_object_without_the_managed_parent_gets_it_added() {
    let live = unset(article_live(), "/spec/calicoNetwork");
    let object = patch::diff_object(&article_desired(), &live).expect("patch");
    let expected = json!([{
        "op": "add",
        "path": "/spec/calicoNetwork",
        "value": article_desired()["spec"]["calicoNetwork"],
    }]);
    assert_eq!(
        serde_json::to_value(object.patch()).expect("json"),
        expected
    );
}

fn v3_pool(allowed_uses: Value) -> Value {
    json!({
        "apiVersion": "projectcalico.org/v3",
        "kind": "IPPool",
        "metadata": {"name": "loadbalancer-ipv4"},
        "spec": {
            "cidr": "192.168.50.0/24",
            "allowedUses": allowed_uses,
            "natOutgoing": false,
        },
    })
}

fn v3_live(allowed_uses: Value) -> Value {
    let mut live = v3_pool(allowed_uses);
    live["metadata"]["resourceVersion"] = json!("777");
    live["spec"]["blockSize"] = json!(26);
    live["spec"]["ipipMode"] = json!("Never");
    live["spec"]["vxlanMode"] = json!("Never");
    live["spec"]["nodeSelector"] = json!("all()");
    live
}

#[test]
fn a_v3_pool_cannot_switch_to_or_from_load_balancer_use() {
    check_refused(
        &v3_pool(json!(["Workload"])),
        &v3_live(json!(["LoadBalancer"])),
        &["spec.allowedUses"],
        "LoadBalancer",
    );
    check_refused(
        &v3_pool(json!(["LoadBalancer"])),
        &v3_live(json!(["Workload", "Tunnel"])),
        &["spec.allowedUses"],
        "LoadBalancer",
    );
    let mut desired = v3_pool(json!(["LoadBalancer"]));
    desired["spec"]["cidr"] = json!("192.168.60.0/24");
    check_refused(
        &desired,
        &v3_live(json!(["LoadBalancer"])),
        &["spec.cidr"],
        "delete IPPool loadbalancer-ipv4",
    );
    // Changing a field Calico can change in place is a plain replace.
    let mut desired = v3_pool(json!(["LoadBalancer"]));
    desired["spec"]["disableBGPExport"] = json!(false);
    desired["spec"]["natOutgoing"] = json!(true);
    check(
        &desired,
        &v3_live(json!(["LoadBalancer"])),
        json!([
            {"op": "add", "path": "/spec/disableBGPExport", "value": false},
            {"op": "replace", "path": "/spec/natOutgoing", "value": true},
        ]),
    );
}

#[test]
fn an_operator_owned_v3_pool_is_never_patched_directly() {
    let mut live = v3_live(json!(["Workload", "Tunnel"]));
    live["metadata"]["labels"] = json!({"app.kubernetes.io/managed-by": "tigera-operator"});
    let mut desired = v3_pool(json!(["Workload", "Tunnel"]));
    desired["spec"]["natOutgoing"] = json!(true);
    match patch::diff_object(&desired, &live) {
        Err(err @ PatchError::OperatorOwned { .. }) => {
            assert!(
                err.to_string().contains("spec.calicoNetwork.ipPools"),
                "{err}"
            );
        }
        other => panic!("expected an operator-owned error, got {other:?}"),
    }
    // Without a change there is nothing to refuse.
    check(&v3_pool(json!(["Workload", "Tunnel"])), &live, json!([]));
}

fn bgp_peer(spec: Value) -> Value {
    json!({
        "apiVersion": "projectcalico.org/v3",
        "kind": "BGPPeer",
        "metadata": {"name": "router"},
        "spec": spec,
    })
}

#[test]
fn a_bgp_peer_switching_between_exclusive_fields_drops_the_old_one() {
    let by_ip = bgp_peer(
        json!({"peerIP": "192.168.10.1", "asNumber": 4200000000u32, "keepaliveTime": "30s"}),
    );
    let by_selector =
        bgp_peer(json!({"peerSelector": "route-reflector == 'true'", "keepaliveTime": "30s"}));
    check(
        &by_selector,
        &by_ip,
        json!([
            {"op": "add", "path": "/spec/peerSelector", "value": "route-reflector == 'true'"},
            {"op": "remove", "path": "/spec/peerIP"},
            {"op": "remove", "path": "/spec/asNumber"},
        ]),
    );
    check(
        &by_ip,
        &by_selector,
        json!([
            {"op": "add", "path": "/spec/asNumber", "value": 4200000000u32},
            {"op": "add", "path": "/spec/peerIP", "value": "192.168.10.1"},
            {"op": "remove", "path": "/spec/peerSelector"},
        ]),
    );
    // A field outside every exclusive set that only LIVE has stays.
    let desired = bgp_peer(json!({"peerIP": "192.168.10.2"}));
    check(
        &desired,
        &by_ip,
        json!([{"op": "replace", "path": "/spec/peerIP", "value": "192.168.10.2"}]),
    );
}

#[test]
fn identity_problems_are_reported() {
    let mut other = article_live();
    other["metadata"]["name"] = json!("overlay");
    assert!(matches!(
        patch::diff_object(&article_desired(), &other),
        Err(PatchError::ObjectMismatch { .. })
    ));
    let nameless = unset(article_live(), "/metadata/name");
    match patch::diff_object(&article_desired(), &nameless) {
        Err(PatchError::MissingIdentity {
            side: Side::Live,
            field,
            ..
        }) => assert_eq!(field, "metadata.name"),
        other => panic!("expected a missing name, got {other:?}"),
    }
    assert!(matches!(
        patch::diff_object(&json!([1, 2]), &article_live()),
        Err(PatchError::NotAnObject {
            side: Side::Desired,
            ..
        })
    ));
}

#[test]
fn streams_match_objects_by_identity() {
    let desired = vec![article_desired(), v3_pool(json!(["LoadBalancer"]))];
    // One live object: its patch only; the desired IPPool it lacks is not news.
    let stream = patch::diff_streams(&desired, &[article_live()]).expect("stream");
    assert!(stream.is_single());
    assert_eq!(stream.patches().len(), 1);
    assert!(stream.notes().is_empty(), "{:?}", stream.notes());

    // A List is expanded; a live object DESIRED does not mention is left alone, with a note.
    let mut felix = json!({
        "apiVersion": "projectcalico.org/v3",
        "kind": "FelixConfiguration",
        "metadata": {"name": "default"},
        "spec": {"bpfEnabled": true},
    });
    let list = json!({
        "apiVersion": "v1",
        "kind": "List",
        "items": [felix.clone(), article_live(), v3_live(json!(["LoadBalancer"]))],
    });
    let stream = patch::diff_streams(&desired, &[list]).expect("stream");
    assert!(!stream.is_single());
    let changed: Vec<String> = stream
        .changed()
        .map(|object| object.id().kind.clone())
        .collect();
    assert_eq!(changed, ["Installation"]);
    assert!(matches!(stream.notes(), [Note::OnlyInLive(id)] if id.kind == "FelixConfiguration"));

    // The only live object has no counterpart.
    match patch::diff_streams(&desired, std::slice::from_ref(&felix)) {
        Err(err @ PatchError::NoMatchingObject { .. }) => {
            assert!(
                err.to_string()
                    .contains("DESIRED has: Installation default"),
                "{err}"
            );
        }
        other => panic!("expected no matching object, got {other:?}"),
    }
    // The same object twice on one side.
    felix["spec"] = json!({});
    assert!(matches!(
        patch::diff_streams(&desired, &[felix.clone(), felix]),
        Err(PatchError::DuplicateObject {
            side: Side::Live,
            ..
        })
    ));
    assert!(matches!(
        patch::diff_streams(&desired, &[]),
        Err(PatchError::Empty { side: Side::Live })
    ));
}

#[test]
fn the_crd_backing_group_is_never_patched() {
    let mut backing = v3_live(json!(["LoadBalancer"]));
    backing["apiVersion"] = json!("crd.projectcalico.org/v1");
    let desired = vec![v3_pool(json!(["LoadBalancer"]))];
    match patch::diff_streams(&desired, std::slice::from_ref(&backing)) {
        Err(err @ PatchError::BackingGroup { .. }) => {
            assert!(
                err.to_string()
                    .contains("kubectl get ippools.projectcalico.org loadbalancer-ipv4"),
                "{err}"
            );
        }
        other => panic!("expected a backing-group error, got {other:?}"),
    }
    let stream = patch::diff_streams(&desired, &[backing, article_live()]).expect("stream");
    assert!(stream.patches().is_empty());
    assert!(
        matches!(stream.notes(), [Note::BackingGroup(_), Note::OnlyInLive(_)]),
        "{:?}",
        stream.notes()
    );
}

#[test]
fn kubectl_commands_name_fully_qualified_calico_resources() {
    let mut desired = v3_pool(json!(["LoadBalancer"]));
    desired["spec"]["disableBGPExport"] = json!(false);
    let object = patch::diff_object(&desired, &v3_live(json!(["LoadBalancer"]))).expect("patch");
    assert_eq!(
        patch::kubectl_command(&object).expect("known kind"),
        r#"kubectl patch ippools.projectcalico.org loadbalancer-ipv4 --type=json -p '[{"op":"add","path":"/spec/disableBGPExport","value":false}]'"#
    );
    let unknown = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1}});
    let mut live = unknown.clone();
    live["spec"]["a"] = json!(2);
    let object = patch::diff_object(&unknown, &live).expect("any kind diffs");
    match patch::kubectl_command(&object) {
        Err(err @ PatchError::UnsupportedKind { .. }) => {
            assert!(
                err.to_string().contains("projectcalico.org/v3 IPPool"),
                "{err}"
            );
        }
        other => panic!("expected an unsupported kind, got {other:?}"),
    }
}

#[test]
fn shell_quoting() {
    for (text, expected) in [
        ("default", "default"),
        ("node.worker-1", "node.worker-1"),
        ("", "''"),
        ("a b", "'a b'"),
        ("it's", r"'it'\''s'"),
        ("$(reboot)", "'$(reboot)'"),
        (r#"[{"op":"test"}]"#, r#"'[{"op":"test"}]'"#),
    ] {
        assert_eq!(patch::shell_quote(text), expected, "{text:?}");
    }
}
