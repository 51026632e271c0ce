//! Generated pairs of valid Installations and the independent oracle of the patch engine,
//! shared by the property test (`tests/tests/patch_property.rs`, seeds through [`Rng`]) and the
//! structure-aware fuzz target (`fuzz::patch_installations`, the fuzzer's bytes read through
//! [`arbitrary::Unstructured`]): one generator, two sources of choices.

use crate::Rng;
use arbitrary::Unstructured;
use calico_render::patch::{self, ObjectPatch};
use serde_json::{Map, Value, json};

/// Where the generator's choices come from.
pub trait Choices {
    /// A number below `n` (which must not be 0).
    fn below(&mut self, n: usize) -> usize;
    /// True about `percent` times in a hundred.
    fn chance(&mut self, percent: u8) -> bool;
    /// One of `items` (which must not be empty).
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

impl Choices for Rng {
    fn below(&mut self, n: usize) -> usize {
        Rng::below(self, n)
    }
    fn chance(&mut self, percent: u8) -> bool {
        Rng::chance(self, u64::from(percent))
    }
}

/// The fuzzer's bytes as choices. Once they run out every choice is the first one (`0`, false),
/// so any input, the empty one too, gives a pair.
impl Choices for Unstructured<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.choose_index(n).unwrap_or(0)
    }
    fn chance(&mut self, percent: u8) -> bool {
        self.ratio(percent, 100).unwrap_or(false)
    }
}

/// The pools a spec may list: a pool keeps its CIDR and block size across a pair (those cannot
/// change in place), everything else may change.
pub const POOLS: &[(&str, &str, u64)] = &[
    ("default-ipv4-ippool", "172.20.0.0/16", 26),
    ("pods-2", "172.21.0.0/16", 24),
    ("pods-3", "10.244.0.0/16", 26),
    ("default-ipv6-ippool", "fd00:10:20::/56", 122),
    ("legacy", "10.10.0.0/20", 28),
];

/// The pool `POOLS[pool_idx]`, its other fields chosen.
pub fn gen_pool(rng: &mut impl Choices, pool_idx: usize) -> Value {
    let (name, cidr, block_size) = POOLS[pool_idx];
    let ipv6 = cidr.contains(':');
    let mut pool = Map::new();
    pool.insert("name".into(), json!(name));
    pool.insert("cidr".into(), json!(cidr));
    if rng.chance(50) {
        pool.insert("blockSize".into(), json!(block_size));
    }
    if rng.chance(70) {
        let encapsulations: &[&str] = if ipv6 {
            &["VXLAN", "VXLANCrossSubnet", "None"]
        } else {
            &[
                "VXLAN",
                "VXLANCrossSubnet",
                "IPIP",
                "IPIPCrossSubnet",
                "None",
            ]
        };
        pool.insert("encapsulation".into(), json!(rng.pick(encapsulations)));
    }
    if rng.chance(50) {
        pool.insert(
            "natOutgoing".into(),
            json!(rng.pick(&["Enabled", "Disabled"])),
        );
    }
    if rng.chance(40) {
        pool.insert(
            "nodeSelector".into(),
            json!(rng.pick(&["all()", "role == 'worker'", "!has(edge)"])),
        );
    }
    for flag in ["disableBGPExport", "disableNewAllocations"] {
        if rng.chance(40) {
            pool.insert(flag.into(), json!(rng.chance(50)));
        }
    }
    if rng.chance(30) {
        pool.insert(
            "allowedUses".into(),
            json!(rng.pick(&[vec!["Workload", "Tunnel"], vec!["Workload"], vec!["Tunnel"]])),
        );
    }
    Value::Object(pool)
}

/// A valid Installation as a user (or our rendering) would write it.
pub fn gen_installation(rng: &mut impl Choices) -> Value {
    let mut network = Map::new();
    if rng.chance(80) {
        network.insert("bgp".into(), json!(rng.pick(&["Enabled", "Disabled"])));
    }
    if rng.chance(80) {
        network.insert(
            "linuxDataplane".into(),
            json!(rng.pick(&["Iptables", "BPF", "Nftables"])),
        );
    }
    if rng.chance(40) {
        network.insert("mtu".into(), json!(1400 + rng.below(101)));
    }
    if rng.chance(30) {
        network.insert(
            "hostPorts".into(),
            json!(rng.pick(&["Enabled", "Disabled"])),
        );
    }
    if rng.chance(50) {
        let methods = [
            json!({"firstFound": true}),
            json!({"canReach": "192.168.10.1"}),
            json!({"interface": "eth.*"}),
            json!({"cidrs": ["192.168.10.0/24", "192.168.20.0/24"]}),
        ];
        network.insert(
            "nodeAddressAutodetectionV4".into(),
            rng.pick(&methods).clone(),
        );
    }
    // A random subset of the pools, in random order.
    let mut order: Vec<usize> = (0..POOLS.len()).collect();
    for idx in (1..order.len()).rev() {
        order.swap(idx, rng.below(idx + 1));
    }
    let n_pools = rng.below(POOLS.len() + 1);
    let pools: Vec<Value> = order[..n_pools]
        .iter()
        .map(|&pool_idx| gen_pool(rng, pool_idx))
        .collect();
    network.insert("ipPools".into(), Value::Array(pools));

    let mut spec = Map::new();
    spec.insert("calicoNetwork".into(), Value::Object(network));
    if rng.chance(30) {
        spec.insert("controlPlaneReplicas".into(), json!(1 + rng.below(3)));
    }
    if rng.chance(20) {
        spec.insert("registry".into(), json!("registry.example.com/"));
    }
    let mut metadata = json!({"name": "default"});
    if rng.chance(30) {
        metadata["annotations"] = json!({"example.com/owner": rng.pick(&["platform", "team~a"])});
    }
    json!({
        "apiVersion": "operator.tigera.io/v1",
        "kind": "Installation",
        "metadata": metadata,
        "spec": spec,
    })
}

/// `installation` as the API server and the operator leave it: defaults written back into
/// every place the spec left empty, plus metadata and status.
pub fn as_live(installation: &Value, rng: &mut impl Choices) -> Value {
    let mut live = installation.clone();
    let spec = live["spec"].as_object_mut().expect("spec");
    for (field, value) in [
        ("variant", json!("Calico")),
        ("controlPlaneReplicas", json!(2)),
        ("kubeletVolumePluginPath", json!("/var/lib/kubelet")),
        ("cni", json!({"type": "Calico", "ipam": {"type": "Calico"}})),
    ] {
        spec.entry(field).or_insert(value);
    }
    let network = spec["calicoNetwork"]
        .as_object_mut()
        .expect("calicoNetwork");
    for (field, value) in [
        ("bgp", json!("Enabled")),
        ("linuxDataplane", json!("Iptables")),
        ("windowsDataplane", json!("Disabled")),
        ("hostPorts", json!("Enabled")),
        ("multiInterfaceMode", json!("None")),
        ("nodeAddressAutodetectionV4", json!({"firstFound": true})),
    ] {
        network.entry(field).or_insert(value);
    }
    for pool in network["ipPools"].as_array_mut().expect("ipPools") {
        let pool = pool.as_object_mut().expect("pool");
        let ipv6 = pool["cidr"].as_str().expect("cidr").contains(':');
        for (field, value) in [
            ("blockSize", json!(if ipv6 { 122 } else { 26 })),
            ("encapsulation", json!(if ipv6 { "None" } else { "IPIP" })),
            (
                "natOutgoing",
                json!(if ipv6 { "Disabled" } else { "Enabled" }),
            ),
            ("nodeSelector", json!("all()")),
            ("disableBGPExport", json!(false)),
            ("disableNewAllocations", json!(false)),
            ("allowedUses", json!(["Workload", "Tunnel"])),
            ("assignmentMode", json!("Automatic")),
        ] {
            pool.entry(field).or_insert(value);
        }
        // The block size is fixed per pool name in `POOLS`; a live pool that left it to the
        // default must carry the pool's real size, or the pair would change it.
        let name = pool["name"].as_str().expect("name").to_owned();
        let fixed = POOLS
            .iter()
            .find(|(pool_name, ..)| *pool_name == name)
            .expect("known pool")
            .2;
        pool.insert("blockSize".into(), json!(fixed));
    }
    live["metadata"]["resourceVersion"] = json!(format!("{}", 1000 + rng.below(9000)));
    live["metadata"]["uid"] = json!("5f0c2d4e-8f47-4a43-9d0e-6a3f1c2b7e90");
    live["metadata"]["finalizers"] = json!(["tigera.io/operator-cleanup"]);
    live["status"] = json!({"variant": "Calico", "mtu": 1450, "computed": live["spec"].clone()});
    live
}

/// The independent oracle: every field `desired` sets has the same value in `actual`; pools
/// are compared by name as a set; node address autodetection must be exactly the desired one.
pub fn assert_managed(desired: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (desired, actual) {
        (Value::Null, _) => Ok(()),
        (Value::Object(_), _)
            if path.ends_with("nodeAddressAutodetectionV4")
                || path.ends_with("nodeAddressAutodetectionV6") =>
        {
            if desired == actual {
                Ok(())
            } else {
                Err(format!("{path}: {actual} is not exactly {desired}"))
            }
        }
        (Value::Object(desired), Value::Object(actual)) => {
            for (field, desired) in desired {
                let child = format!("{path}.{field}");
                match actual.get(field) {
                    Some(actual) => assert_managed(desired, actual, &child)?,
                    None if desired.is_null() => {}
                    None => return Err(format!("{child}: missing")),
                }
            }
            Ok(())
        }
        (Value::Array(desired), Value::Array(actual)) if path.ends_with(".ipPools") => {
            let names = |pools: &[Value]| {
                let mut names: Vec<String> = pools
                    .iter()
                    .map(|pool| pool["name"].as_str().unwrap_or("").to_owned())
                    .collect();
                names.sort();
                names
            };
            if names(desired) != names(actual) {
                return Err(format!(
                    "{path}: pools {:?} instead of {:?}",
                    names(actual),
                    names(desired)
                ));
            }
            for pool in desired {
                let twin = actual
                    .iter()
                    .find(|other| other["name"] == pool["name"])
                    .expect("same names");
                assert_managed(pool, twin, &format!("{path}[{}]", pool["name"]))?;
            }
            Ok(())
        }
        (Value::Array(desired_items), Value::Array(actual_items)) => {
            if desired_items.len() != actual_items.len() {
                return Err(format!("{path}: {actual} instead of {desired}"));
            }
            for (idx, (desired, actual)) in desired_items.iter().zip(actual_items).enumerate() {
                assert_managed(desired, actual, &format!("{path}[{idx}]"))?;
            }
            Ok(())
        }
        _ if desired == actual => Ok(()),
        _ => Err(format!("{path}: {actual} instead of {desired}")),
    }
}

/// Every operation inside a pool follows a `test` of that pool's name (directly, or after
/// other operations on the same pool).
pub fn assert_guarded(ops: &Value) -> Result<(), String> {
    let prefix = "/spec/calicoNetwork/ipPools/";
    let mut guarded: Option<String> = None;
    for op in ops.as_array().expect("array") {
        let path = op["path"].as_str().expect("path");
        let Some(rest) = path.strip_prefix(prefix) else {
            guarded = None;
            continue;
        };
        let index = rest.split('/').next().unwrap_or("");
        if index == "-" {
            guarded = None;
            continue;
        }
        if op["op"] == "test" && rest == format!("{index}/name") {
            guarded = Some(index.to_owned());
            continue;
        }
        if guarded.as_deref() != Some(index) {
            return Err(format!("unguarded operation {op}"));
        }
    }
    Ok(())
}

/// The patch from `live` to `desired` (an Installation and its generated live twin), checked:
/// every pool operation is guarded, the patch applied with the json-patch crate gives `desired`
/// on every managed field, leaves the fields only LIVE has alone, and a second diff is empty.
/// Returns the patch, or a description of what failed (the engine's refusal included).
pub fn check_patch(desired: &Value, live: &Value) -> Result<ObjectPatch, String> {
    let object = patch::diff_object(desired, live).map_err(|err| err.to_string())?;
    let ops = serde_json::to_value(object.patch()).expect("a patch serializes");
    assert_guarded(&ops)?;

    let mut result = live.clone();
    json_patch::patch(&mut result, object.patch()).map_err(|err| format!("apply: {err}"))?;
    assert_managed(&desired["spec"], &result["spec"], "spec")?;
    if let Some(annotations) = desired["metadata"].get("annotations") {
        assert_managed(
            annotations,
            &result["metadata"]["annotations"],
            "metadata.annotations",
        )?;
    }
    // Fields only LIVE has stay as they were.
    for pointer in [
        "/status",
        "/metadata/resourceVersion",
        "/metadata/uid",
        "/spec/cni",
        "/spec/variant",
    ] {
        if result.pointer(pointer) != live.pointer(pointer) {
            return Err(format!("{pointer} changed"));
        }
    }
    for pool in result["spec"]["calicoNetwork"]["ipPools"]
        .as_array()
        .expect("pools")
    {
        if pool.get("assignmentMode").is_none()
            && live["spec"]["calicoNetwork"]["ipPools"]
                .as_array()
                .expect("pools")
                .iter()
                .any(|old| old["name"] == pool["name"])
        {
            return Err(format!(
                "pool {} lost its assignmentMode default",
                pool["name"]
            ));
        }
    }
    let again = patch::diff_object(desired, &result).map_err(|err| err.to_string())?;
    if !again.is_empty() {
        return Err(format!("a second pass found {}", again.to_json()));
    }
    Ok(object)
}
