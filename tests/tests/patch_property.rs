//! Property test of the patch engine (issue 5): for generated pairs of valid Installation
//! specs, the patch from the first (as the live object, with the operator's defaults written
//! back, status and metadata) to the second, applied with the json-patch crate, gives the
//! second on every managed field, leaves everything else alone, guards every pool operation
//! with a `test` of the pool's name, and converges (a second diff is empty).
//!
//! A second generator writes pairs of valid ClusterNetworks; both are compiled, the first
//! becomes the live stream (with server and operator additions), and the same properties must
//! hold for every object of the stream.
//!
//! The generator is a small deterministic one (SplitMix64 with fixed seeds) rather than a
//! property-testing dependency: the cases are reproducible by seed, and the failure message
//! prints the seed and both objects.

use calico_render::patch::{self, PatchError};
use calico_render_tests::Rng;
use calico_render_tests::fuzz::{PairOutcome, installation_pair};
use calico_render_tests::installations::{
    as_live, assert_guarded, assert_managed, check_patch, gen_installation,
};
use calico_spec::cluster_network::{self, ClusterNetwork};
use calico_spec::diag::Severity;
use serde_json::{Value, json};

/// One generated pair; returns a description of the failure, if any.
fn check_pair(seed: u64) -> Result<(), String> {
    let mut rng = Rng(seed);
    let first = gen_installation(&mut rng);
    let second = gen_installation(&mut rng);
    let live = as_live(&first, &mut rng);
    check_patch(&second, &live).map(drop)
}
const N_PAIRS: u64 = 2000;

#[test]
fn patches_between_generated_specs_reach_the_desired_state() {
    let mut n_nonempty = 0;
    for seed in 0..N_PAIRS {
        if let Err(failure) = check_pair(seed) {
            let mut rng = Rng(seed);
            let first = gen_installation(&mut rng);
            let second = gen_installation(&mut rng);
            panic!("seed {seed}: {failure}\nfirst: {first}\nsecond: {second}");
        }
        let mut rng = Rng(seed);
        let first = gen_installation(&mut rng);
        let second = gen_installation(&mut rng);
        let live = as_live(&first, &mut rng);
        if !patch::diff_object(&second, &live)
            .expect("checked above")
            .is_empty()
        {
            n_nonempty += 1;
        }
    }
    // The generator must actually produce drift, or the property says nothing.
    assert!(
        n_nonempty > N_PAIRS * 9 / 10,
        "only {n_nonempty} of {N_PAIRS} pairs differ"
    );
}

/// The structure-aware fuzz target's body on bounded random inputs, so that the stable suite
/// runs it on more than its committed corpus: every pair reaches the desired state or is
/// refused exactly when a shared pool changed what cannot change in place.
#[test]
fn the_patch_fuzz_body_holds_on_random_inputs() {
    let (mut changed, mut refused) = (0, 0);
    for seed in 0..N_PAIRS {
        let mut rng = Rng(seed ^ 0x5eed_f022);
        let len = rng.below(512);
        let data: Vec<u8> = (0..len).map(|_| rng.next().to_le_bytes()[0]).collect();
        let outcome = std::panic::catch_unwind(|| installation_pair(&data))
            .unwrap_or_else(|_| panic!("seed {seed}: the body failed on {data:?}"));
        match outcome {
            PairOutcome::Patched { changed: true } => changed += 1,
            PairOutcome::Patched { changed: false } => {}
            PairOutcome::Refused => refused += 1,
        }
    }
    // Both branches must be taken often, or the property says little.
    assert!(
        changed > N_PAIRS / 2,
        "only {changed} of {N_PAIRS} patches change anything"
    );
    assert!(
        refused > N_PAIRS / 20,
        "only {refused} of {N_PAIRS} pairs refused"
    );
}

#[test]
fn a_spec_patched_against_its_own_live_object_needs_nothing() {
    for seed in 0..N_PAIRS {
        let mut rng = Rng(seed);
        let spec = gen_installation(&mut rng);
        let live = as_live(&spec, &mut rng);
        let object =
            patch::diff_object(&spec, &live).unwrap_or_else(|err| panic!("seed {seed}: {err}"));
        assert!(object.is_empty(), "seed {seed}: {}", object.to_json());
    }
}

#[test]
fn changing_the_cidr_or_block_size_of_a_kept_pool_is_always_refused() {
    let mut n_checked = 0;
    for seed in 0..N_PAIRS {
        let mut rng = Rng(seed);
        let first = gen_installation(&mut rng);
        let mut second = gen_installation(&mut rng);
        let live = as_live(&first, &mut rng);
        let live_names: Vec<Value> = live["spec"]["calicoNetwork"]["ipPools"]
            .as_array()
            .expect("pools")
            .iter()
            .map(|pool| pool["name"].clone())
            .collect();
        let pools = second["spec"]["calicoNetwork"]["ipPools"]
            .as_array_mut()
            .expect("pools");
        let Some(kept) = pools
            .iter_mut()
            .find(|pool| live_names.contains(&pool["name"]))
        else {
            continue;
        };
        let (field, value) = if rng.chance(50) {
            ("cidr", json!("192.168.200.0/24"))
        } else {
            ("blockSize", json!(30))
        };
        kept[field] = value;
        n_checked += 1;
        match patch::diff_object(&second, &live) {
            Err(PatchError::Refused { refusals }) => {
                assert!(
                    refusals.iter().any(|refusal| refusal.path.ends_with(field)),
                    "seed {seed}: {refusals:?}"
                );
            }
            other => panic!("seed {seed}: expected a refusal of {field}, got {other:?}"),
        }
    }
    assert!(
        n_checked > N_PAIRS / 2,
        "only {n_checked} pairs kept a pool"
    );
}

/// Pod pools a ClusterNetwork may list (name, CIDR and block size fixed per name).
const CN_POOLS: &[(&str, &str, u32)] = &[
    ("default-ipv4-ippool", "172.20.0.0/16", 26),
    ("pods-2", "172.21.0.0/16", 24),
    ("default-ipv6-ippool", "fd00:10:20::/56", 122),
];

/// A ClusterNetwork as JSON; not every one passes the check (the caller skips those).
fn gen_cluster_network(rng: &mut Rng) -> Value {
    let bgp_enabled = rng.chance(50);
    let mut pools = Vec::new();
    for (name, cidr, block_size) in CN_POOLS {
        if !pools.is_empty() && rng.chance(40) {
            continue;
        }
        let ipv6 = cidr.contains(':');
        let mut pool = json!({"name": name, "cidr": cidr});
        // A block size left out is the family default; a pool whose size differs must say so
        // every time, or the pair would change it (which is refused, as it should be).
        let default_size = if ipv6 { 122 } else { 26 };
        if *block_size != default_size || rng.chance(50) {
            pool["blockSize"] = json!(block_size);
        }
        if rng.chance(60) {
            let encapsulations: &[&str] = match (bgp_enabled, ipv6) {
                (true, false) => &[
                    "VXLAN",
                    "VXLANCrossSubnet",
                    "IPIP",
                    "IPIPCrossSubnet",
                    "None",
                ],
                (true, true) => &["VXLAN", "VXLANCrossSubnet", "None"],
                (false, _) => &["VXLAN", "VXLANCrossSubnet"],
            };
            pool["encapsulation"] = json!(rng.pick(encapsulations));
        }
        if rng.chance(40) {
            pool["natOutgoing"] = json!(rng.chance(50));
        }
        if rng.chance(30) {
            pool["nodeSelector"] = json!(rng.pick(&["all()", "role == 'worker'"]));
        }
        if rng.chance(40) {
            pool["disableBGPExport"] = json!(rng.chance(50));
        }
        pools.push(pool);
    }
    let mut spec = json!({
        "dataplane": rng.pick(&["Iptables", "BPF", "Nftables"]),
        "podPools": pools,
        "bgp": {"enabled": bgp_enabled},
    });
    if rng.chance(70) {
        spec["apiEndpoint"] =
            json!({"host": rng.pick(&["control.k8s.example.com", "192.168.10.50"])});
    }
    if bgp_enabled {
        if rng.chance(60) {
            spec["bgp"]["asNumber"] = json!(rng.pick(&[64512u32, 2000000001]));
        }
        if rng.chance(50) {
            spec["bgp"]["nodeToNodeMesh"] = json!(rng.chance(50));
        }
        let mut peers = Vec::new();
        for (name, ip) in [("router", "192.168.10.1"), ("router-2", "192.168.20.1")] {
            if rng.chance(50) {
                let as_number = *rng.pick(&[2000000000u32, 65000]);
                peers.push(json!({"name": name, "peerIP": ip, "asNumber": as_number}));
            }
        }
        spec["bgp"]["peers"] = Value::Array(peers);
        if rng.chance(50) {
            spec["bgp"]["advertise"] = json!({"serviceLoadBalancerIPs": ["192.168.50.0/24"]});
            if rng.chance(70) {
                spec["loadBalancerPools"] =
                    json!([{"name": "loadbalancer-ipv4", "cidr": "192.168.50.0/24"}]);
            }
        }
    }
    if rng.chance(30) {
        spec["mtu"] = json!(1400 + rng.below(101));
    }
    if rng.chance(40) {
        spec["felix"] = json!({"bpfExternalServiceMode": rng.pick(&["Tunnel", "DSR"])});
    }
    if rng.chance(20) {
        spec["calicoAPIServer"] = json!(false);
    }
    json!({
        "apiVersion": "calico-render.dev/v1alpha1",
        "kind": "ClusterNetwork",
        "metadata": {"name": "generated"},
        "spec": spec,
    })
}

/// Compile a generated ClusterNetwork, or `None` when it does not pass the check.
fn compile_generated(value: &Value) -> Option<Vec<Value>> {
    let cluster_network: ClusterNetwork = serde_json::from_value(value.clone()).ok()?;
    let diagnostics = cluster_network::check(&cluster_network);
    if diagnostics
        .iter()
        .any(|diag| diag.severity == Severity::Error)
    {
        return None;
    }
    let objects = cluster_network::compile_unchecked(&cluster_network).ok()?;
    Some(objects.iter().map(|object| object.to_value()).collect())
}

/// What the cluster holds after the first ClusterNetwork was applied: metadata and status
/// from the API server, the fields the operator owns on FelixConfiguration `default`.
fn as_live_stream(objects: &[Value], rng: &mut Rng) -> Vec<Value> {
    objects
        .iter()
        .map(|object| {
            let mut live = object.clone();
            live["metadata"]["resourceVersion"] = json!(format!("{}", 1000 + rng.below(9000)));
            live["metadata"]["uid"] = json!("0b7e9a51-3c2d-4f7e-9a40-1d2e3f4a5b6c");
            match live["kind"].as_str() {
                Some("Installation") => live["status"] = json!({"mtu": 1450, "variant": "Calico"}),
                Some("FelixConfiguration") => {
                    live["spec"]["healthPort"] = json!(9099);
                    live["spec"]["vxlanVNI"] = json!(4096);
                    live["spec"]["bpfEnabled"] = json!(rng.chance(50));
                }
                _ => {}
            }
            live
        })
        .collect()
}

#[test]
fn patches_between_generated_cluster_networks_reach_the_desired_state() {
    let (mut n_pairs, mut n_patched_objects) = (0, 0);
    for seed in 0..N_PAIRS / 2 {
        let mut rng = Rng(seed);
        let (first, second) = (gen_cluster_network(&mut rng), gen_cluster_network(&mut rng));
        let (Some(first_objects), Some(desired)) =
            (compile_generated(&first), compile_generated(&second))
        else {
            continue;
        };
        n_pairs += 1;
        let live = as_live_stream(&first_objects, &mut rng);
        let context = || format!("seed {seed}\nfirst: {first}\nsecond: {second}");
        let stream = patch::diff_streams(&desired, &live)
            .unwrap_or_else(|err| panic!("{err}\n{}", context()));
        for object in stream.patches() {
            let id = object.id();
            let find = |objects: &[Value]| {
                objects
                    .iter()
                    .find(|candidate| {
                        candidate["kind"] == id.kind.as_str()
                            && candidate["metadata"]["name"] == id.name.as_str()
                    })
                    .cloned()
                    .expect("the patched object is on both sides")
            };
            let (want, before) = (find(&desired), find(&live));
            let ops = serde_json::to_value(object.patch()).expect("a patch serializes");
            assert_guarded(&ops).unwrap_or_else(|err| panic!("{err}\n{}", context()));
            let mut after = before.clone();
            json_patch::patch(&mut after, object.patch())
                .unwrap_or_else(|err| panic!("{id}: {err}\n{}", context()));
            for part in ["spec", "data"] {
                if let Some(want) = want.get(part) {
                    assert_managed(want, &after[part], part)
                        .unwrap_or_else(|err| panic!("{id}: {err}\n{}", context()));
                }
            }
            assert_eq!(
                after.get("status"),
                before.get("status"),
                "{id}\n{}",
                context()
            );
            assert_eq!(after["metadata"], before["metadata"], "{id}\n{}", context());
            if !object.is_empty() {
                n_patched_objects += 1;
            }
        }
    }
    eprintln!("{n_pairs} valid ClusterNetwork pairs, {n_patched_objects} objects patched");
    // Most generated ClusterNetworks must be valid, and the pairs must actually differ.
    assert!(n_pairs > N_PAIRS / 4, "only {n_pairs} valid pairs");
    assert!(
        n_patched_objects > n_pairs,
        "only {n_patched_objects} patched objects in {n_pairs} pairs"
    );
}
