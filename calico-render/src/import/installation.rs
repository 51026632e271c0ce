//! The Installation: the vocabulary's fields, the rest in `spec.overrides.installation`, and
//! the operator's write-back defaults dropped.
//!
//! The live Installation is first completed with the defaults the operator of the target
//! release writes ([`calico_spec::defaults::apply_operator_defaults_for`]): that is the state
//! the operator converges to, and a field the live object lacks (not reconciled yet) is read
//! as the value the operator will give it, not as our vocabulary's default. The vocabulary is
//! read from that state; whatever the vocabulary does not render becomes an override. Then
//! each override value is taken out in turn and kept out when the rendered Installation stays
//! the same: the defaults, which are applied after the overrides, write it back. What remains
//! is the smallest override that renders the same Installation, found by rendering rather than
//! by a second copy of the operator's rules.

use calico_spec::cluster_network::{
    self, AutodetectionMethod, ClusterNetwork, Dataplane, Encapsulation, KubernetesProvider,
    ObjectOverride, PodPool, PodPoolUse, default_block_size,
};
use calico_spec::defaults::{DefaultsContext, apply_operator_defaults_for};
use calico_spec::generated::operator_tigera_io::v1;
use calico_spec::ipnet::IpNet;
use calico_spec::objects::Object;
use calico_spec::release::Release;
use calico_spec::rules::catalogue as c;
use calico_spec::vocab::cidr::{Family, parse_cidr};
use serde_json::{Map, Value, json};

use super::read::Live;
use super::{At, Report, listed, metadata_override, residual};

/// The Installation's pool list, the one keyed list.
pub(crate) const POOLS_PATH: &str = "spec.calicoNetwork.ipPools";

/// Fields whose `Disabled` means what leaving them out means (the operator defaults neither).
const DISABLED_IS_UNSET: &[&str] = &["bpfNetworkBootstrap", "kubeProxyManagement"];

/// Read the Installation into `cluster_network` (vocabulary and overrides); the live object as
/// the rendering must give it back, or `None` after reporting why it cannot be imported.
pub(super) fn import(
    live: &Live,
    release: &'static Release,
    cluster_pools: &[&Live],
    cluster_network: &mut ClusterNetwork,
    report: &mut Report,
) -> Option<Value> {
    let at = &live.at;
    let mut comparable = live.value.clone();
    let mut unset = Vec::new();
    if let Some(Value::Object(spec)) = comparable.get_mut("spec") {
        if spec.get("kubernetesProvider") == Some(&json!("")) {
            spec.remove("kubernetesProvider");
            unset.push("spec.kubernetesProvider: \"\"".to_owned());
        }
        if let Some(Value::Object(network)) = spec.get_mut("calicoNetwork") {
            for key in DISABLED_IS_UNSET {
                if network.get(*key) == Some(&json!("Disabled")) {
                    network.remove(*key);
                    unset.push(format!("spec.calicoNetwork.{key}: Disabled"));
                }
            }
        }
    }
    name_pools(&mut comparable, cluster_pools, at, report);
    let typed: v1::Installation = match serde_json::from_value(comparable.clone()) {
        Ok(typed) => typed,
        Err(err) => {
            report.push(
                &c::CN_IMPORT_OBJECT,
                Some(at),
                "spec",
                format!("Installation `default` cannot be read: {err}"),
                "",
            );
            return None;
        }
    };
    let target = serde_json::to_value(apply_operator_defaults_for(
        release,
        &typed,
        &DefaultsContext { provider: None },
    ))
    .unwrap_or_default();
    let empty = Map::new();
    let target_spec = target
        .get("spec")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let errors_before = report.diagnostics.len();
    vocabulary(target_spec, cluster_network, live, cluster_pools, report);
    if report
        .diagnostics
        .iter()
        .skip(errors_before)
        .any(|diag| diag.severity == calico_spec::diag::Severity::Error)
    {
        return None;
    }
    minimise_autodetection(cluster_network, target_spec);

    // Everything the vocabulary does not render is an override, at first.
    let stated = stated_installation_spec(cluster_network);
    let mut conflicts = Vec::new();
    let candidates = residual("spec", target_spec, &stated, &mut conflicts);
    if let Some(path) = conflicts.first() {
        report.push(
            &c::CN_IMPORT_INEXPRESSIBLE,
            Some(at),
            path,
            "the ClusterNetwork vocabulary renders this Installation field, with another value \
             than the live one"
                .to_owned(),
            "please report this with the live Installation",
        );
        return None;
    }
    let metadata = metadata_override(&comparable);
    let set = |cluster_network: &mut ClusterNetwork, spec: &Map<String, Value>| {
        let over = ObjectOverride {
            metadata: metadata.clone(),
            spec: (!spec.is_empty()).then(|| spec.clone()),
        };
        cluster_network.spec.overrides.installation =
            (over != ObjectOverride::default()).then_some(over);
    };
    set(cluster_network, &candidates);
    let Some(full) = rendered_installation_spec(cluster_network) else {
        report.push(
            &c::CN_IMPORT_INEXPRESSIBLE,
            Some(at),
            "spec",
            "the Installation does not render through the ClusterNetwork types".to_owned(),
            "please report this with the live Installation",
        );
        return None;
    };

    // Then each value the operator's defaults give back anyway is dropped. Only the paths the
    // operator defaults at all are tried, so the work does not grow with a large override.
    // So is each top-level value the release's CRD defaults to, where `render` writes those.
    let defaultable = defaultable(release, cluster_network, target_spec);
    let crd_defaults = super::objects::crd_defaults(cluster_network, "Installation");
    let mut kept = candidates;
    let mut defaults = Vec::new();
    let mut crd_dropped = Vec::new();
    for leaf in leaves(&kept) {
        let path = display(&leaf);
        let crd = path
            .strip_prefix("spec.")
            .is_some_and(|key| crd_defaults.contains_key(key));
        if !crd && !defaultable.contains(&path) {
            continue;
        }
        let mut trial = kept.clone();
        remove(&mut trial, &leaf);
        set(cluster_network, &trial);
        if rendered_installation_spec(cluster_network).as_ref() == Some(&full) {
            if crd {
                crd_dropped.push(path);
            } else {
                defaults.push(path);
            }
            kept = trial;
        }
    }
    set(cluster_network, &kept);
    if !crd_dropped.is_empty() {
        super::objects::report_crd_defaults(cluster_network, live, &crd_dropped, report);
    }

    if !defaults.is_empty() {
        report.push(
            &c::CN_IMPORT_OPERATOR_DEFAULT,
            Some(at),
            "spec",
            format!(
                "Installation `default`: dropped {}, the operator's write-back defaults for this \
                 ClusterNetwork (render writes them again)",
                listed(&defaults)
            ),
            "",
        );
    }
    if !unset.is_empty() {
        report.push(
            &c::CN_IMPORT_OPERATOR_DEFAULT,
            Some(at),
            "spec",
            format!(
                "Installation `default`: dropped {}, which mean what leaving them out means",
                listed(&unset)
            ),
            "",
        );
    }
    let kept = ObjectOverride {
        metadata,
        spec: (!kept.is_empty()).then_some(kept),
    };
    super::objects::report_override(live, &kept, "installation", report);
    Some(comparable)
}

/// Name the Installation's pools that have none as the operator does on its next reconcile
/// (tigera/operator `pkg/controller/ippool/defaults.go`, `fillDefaults`, at commit
/// 40788b9b6bef9d94e77b2e0d7a5eed7e17e2364c): the name of a cluster IPPool with the same
/// network (CIDRs compared masked), else `default-ipv4-ippool`/`default-ipv6-ippool` when the
/// Installation has one pool or exactly two of different families, else the name made from the
/// CIDR ([`calico_spec::defaults::derived_pool_name`]). Installations written by hand and by
/// operators from before pools had names have such pools. Each naming is reported (CN0409).
fn name_pools(installation: &mut Value, cluster_pools: &[&Live], at: &At, report: &mut Report) {
    let Some(Value::Array(pools)) = installation.pointer_mut("/spec/calicoNetwork/ipPools") else {
        return;
    };
    let network = |pool: &Value| {
        pool.get("cidr")
            .and_then(Value::as_str)
            .and_then(|cidr| parse_cidr(cidr).ok())
            .map(|net| net.trunc())
    };
    // Go's `To4() != nil`: an IPv4 address or an IPv4-mapped IPv6 one.
    let is_v4 = |pool: &Value| {
        network(pool).is_some_and(|net| Family::of_go_addr(net.network()) == Family::V4)
    };
    let n_pools = pools.len();
    let dual_stack = n_pools == 2 && pools.iter().any(is_v4) && !pools.iter().all(is_v4);
    let families: Vec<bool> = pools.iter().map(is_v4).collect();
    for (idx, (pool, v4)) in pools.iter_mut().zip(families).enumerate() {
        if pool
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|name| !name.is_empty())
        {
            continue;
        }
        // The operator refuses a CIDR that does not parse before it names pools; so does
        // `pod_pool`, below.
        let Some(net) = network(pool) else {
            continue;
        };
        let existing = cluster_pools
            .iter()
            .find(|live| network(live.value.get("spec").unwrap_or(&Value::Null)) == Some(net));
        let (name, why) = if let Some(existing) = existing {
            (
                existing.name.clone(),
                "the IPPool of the cluster with this CIDR".to_owned(),
            )
        } else if n_pools == 1 || dual_stack {
            let name = if v4 {
                calico_spec::defaults::DEFAULT_POOL_NAME_V4
            } else {
                calico_spec::defaults::DEFAULT_POOL_NAME_V6
            };
            let why = if n_pools == 1 {
                "the Installation's only pool"
            } else {
                "one pool per family"
            };
            (name.to_owned(), why.to_owned())
        } else {
            let cidr = pool.get("cidr").and_then(Value::as_str).unwrap_or_default();
            match calico_spec::defaults::derived_pool_name(cidr) {
                Some(name) => (name, "made from the CIDR".to_owned()),
                // The CIDR is refused with its own message further on.
                None => continue,
            }
        };
        report.push(
            &c::CN_IMPORT_POOL_NAMED,
            Some(at),
            &format!("{POOLS_PATH}[{idx}].name"),
            format!(
                "the pool has no name; named `{name}` ({why}), as the operator names it on its \
                 next reconcile"
            ),
            "",
        );
        if let Value::Object(map) = pool {
            map.insert("name".into(), Value::String(name));
        }
    }
}

/// The vocabulary's fields from the defaulted Installation spec; what it cannot say is
/// reported.
fn vocabulary(
    spec: &Map<String, Value>,
    cluster_network: &mut ClusterNetwork,
    live: &Live,
    cluster_pools: &[&Live],
    report: &mut Report,
) {
    let at = &live.at;
    let mut refuse = |path: &str, message: String, hint: &str| {
        report.push(&c::CN_IMPORT_INEXPRESSIBLE, Some(at), path, message, hint);
    };
    let out = &mut cluster_network.spec;
    if let Some(provider) = spec.get("kubernetesProvider") {
        match serde_json::from_value::<KubernetesProvider>(provider.clone()) {
            Ok(provider) => out.kubernetes_provider = provider,
            Err(_) => refuse(
                "spec.kubernetesProvider",
                format!("kubernetesProvider {provider} has no ClusterNetwork spelling"),
                "",
            ),
        }
    }
    let empty = Map::new();
    let network = spec
        .get("calicoNetwork")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(dataplane) = network.get("linuxDataplane") {
        match serde_json::from_value::<Dataplane>(dataplane.clone()) {
            Ok(dataplane) => out.dataplane = dataplane,
            Err(_) => refuse(
                "spec.calicoNetwork.linuxDataplane",
                format!(
                    "the {dataplane} dataplane: a ClusterNetwork's `dataplane` is Iptables, BPF \
                     or Nftables"
                ),
                "",
            ),
        }
    }
    out.bgp.enabled = network.get("bgp") == Some(&json!("Enabled"));
    out.bpf_network_bootstrap = network.get("bpfNetworkBootstrap") == Some(&json!("Enabled"));
    out.manage_kube_proxy = network.get("kubeProxyManagement") == Some(&json!("Enabled"));
    if let Some(mtu) = network.get("mtu") {
        match mtu.as_u64().and_then(|mtu| u32::try_from(mtu).ok()) {
            Some(mtu) => out.mtu = Some(mtu),
            None => refuse(
                "spec.calicoNetwork.mtu",
                format!("mtu {mtu} is not a ClusterNetwork `mtu`"),
                "",
            ),
        }
    }
    let pools = network
        .get("ipPools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    // `ipPools: []` with the pod pools kept as IPPools of their own: `podPools: []`, the
    // IPPools go to `spec.extraObjects`.
    let standalone = cluster_pools.iter().any(|pool| {
        pool.value
            .pointer("/spec/allowedUses")
            .and_then(Value::as_array)
            .is_none_or(|uses| uses.iter().any(|use_| use_ == "Workload"))
    });
    if pools.is_empty() && !standalone {
        refuse(
            POOLS_PATH,
            "the Installation has no pod pools and the cluster no workload IPPool, and a \
             ClusterNetwork needs one or the other (`spec.podPools`)"
                .to_owned(),
            "a cluster whose CNI allocates no Calico addresses (AmazonVPC, AzureVNET, GKE) \
             cannot be described by a ClusterNetwork yet",
        );
    }
    for (idx, pool) in pools.iter().enumerate() {
        match pod_pool(pool) {
            Ok(pool) => out.pod_pools.push(pool),
            Err((field, message)) => refuse(
                &format!("{POOLS_PATH}[{idx}]{field}"),
                message,
                "a ClusterNetwork pod pool has a name, a masked CIDR and the uses Workload and \
                 Tunnel",
            ),
        }
    }
    for (field, ipv6) in [
        ("nodeAddressAutodetectionV4", false),
        ("nodeAddressAutodetectionV6", true),
    ] {
        let Some(method) = network.get(field) else {
            continue;
        };
        match serde_json::from_value::<AutodetectionMethod>(method.clone()) {
            Ok(method) => {
                let slot = if ipv6 {
                    &mut out.node_address_autodetection.ipv6
                } else {
                    &mut out.node_address_autodetection.ipv4
                };
                *slot = Some(method);
            }
            Err(err) => refuse(
                &format!("spec.calicoNetwork.{field}"),
                format!("the node address autodetection cannot be said: {err}"),
                "",
            ),
        }
    }
}

/// A pod pool of the vocabulary, each field left out where it is the vocabulary's default.
/// The error names the field (`.cidr`, or empty) and what is wrong.
fn pod_pool(pool: &Value) -> Result<PodPool, (String, String)> {
    let field = |name: &str| pool.get(name);
    let wrong = |name: &str, message: String| (format!(".{name}"), message);
    let cidr_text = field("cidr").and_then(Value::as_str).unwrap_or_default();
    // `name_pools` named every pool whose CIDR parses.
    let name = field("name")
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            let error = parse_cidr(cidr_text)
                .err()
                .map(|err| format!(": {err}"))
                .unwrap_or_default();
            wrong(
                "cidr",
                format!("a pool without a name: cidr `{cidr_text}`{error}"),
            )
        })?;
    let cidr = parse_cidr(cidr_text)
        .map_err(|err| wrong("cidr", format!("pool `{name}`: cidr `{cidr_text}`: {err}")))?;
    let mut out = PodPool::new(name, cidr);
    if let Some(size) = field("blockSize").and_then(Value::as_u64) {
        let size = u32::try_from(size)
            .map_err(|_| wrong("blockSize", format!("pool `{name}`: blockSize {size}")))?;
        out.block_size = (size != default_block_size(cidr)).then_some(size);
    }
    if let Some(encapsulation) = field("encapsulation") {
        let encapsulation = serde_json::from_value::<Encapsulation>(encapsulation.clone())
            .map_err(|_| {
                wrong(
                    "encapsulation",
                    format!("pool `{name}`: encapsulation {encapsulation}"),
                )
            })?;
        out.encapsulation =
            (encapsulation != PodPool::DEFAULT_ENCAPSULATION).then_some(encapsulation);
    }
    if let Some(nat) = field("natOutgoing") {
        let nat = match nat.as_str() {
            Some("Enabled") => true,
            Some("Disabled") => false,
            _ => {
                return Err(wrong(
                    "natOutgoing",
                    format!("pool `{name}`: natOutgoing {nat}"),
                ));
            }
        };
        out.nat_outgoing = (nat != matches!(cidr, IpNet::V4(_))).then_some(nat);
    }
    if let Some(selector) = field("nodeSelector").and_then(Value::as_str) {
        out.node_selector =
            (selector != PodPool::DEFAULT_NODE_SELECTOR).then(|| selector.to_owned());
    }
    if let Some(export) = field("disableBGPExport").and_then(Value::as_bool) {
        out.disable_bgp_export = (export != PodPool::DEFAULT_DISABLE_BGP_EXPORT).then_some(export);
    }
    if let Some(uses) = field("allowedUses") {
        let uses = serde_json::from_value::<Vec<PodPoolUse>>(uses.clone()).map_err(|_| {
            wrong(
                "allowedUses",
                format!(
                    "pool `{name}`: allowedUses {uses}; a pod pool is for Workload and Tunnel \
                     addresses (LoadBalancer pools are projectcalico.org/v3 IPPools)"
                ),
            )
        })?;
        out.allowed_uses = (uses != PodPool::DEFAULT_ALLOWED_USES).then_some(uses);
    }
    Ok(out)
}

/// Leave a node address autodetection method out where the rendering writes the same one
/// without it (the operator's choice once pools exist).
fn minimise_autodetection(cluster_network: &mut ClusterNetwork, spec: &Map<String, Value>) {
    for (field, ipv6) in [
        ("nodeAddressAutodetectionV4", false),
        ("nodeAddressAutodetectionV6", true),
    ] {
        let mut trial = cluster_network.clone();
        let detection = &mut trial.spec.node_address_autodetection;
        let slot = if ipv6 {
            &mut detection.ipv6
        } else {
            &mut detection.ipv4
        };
        if slot.take().is_none() {
            continue;
        }
        let rendered = stated_installation_spec(&trial);
        let pointer = |map: &Map<String, Value>| {
            map.get("calicoNetwork")
                .and_then(|network| network.get(field))
                .cloned()
        };
        if pointer(&rendered) == pointer(spec) {
            *cluster_network = trial;
        }
    }
}

/// The paths the operator's defaults write into the Installation the vocabulary states (with
/// the live CNI type, which the CNI defaults follow).
fn defaultable(
    release: &'static Release,
    cluster_network: &ClusterNetwork,
    target: &Map<String, Value>,
) -> std::collections::BTreeSet<String> {
    let mut spec = stated_installation_spec(cluster_network);
    if let Some(cni_type) = target.get("cni").and_then(|cni| cni.get("type")) {
        spec.insert("cni".into(), json!({ "type": cni_type }));
    }
    let installation = json!({
        "apiVersion": "operator.tigera.io/v1",
        "kind": "Installation",
        "metadata": { "name": "default" },
        "spec": spec,
    });
    let Ok(typed) = serde_json::from_value::<v1::Installation>(installation) else {
        return Default::default();
    };
    let defaulted =
        apply_operator_defaults_for(release, &typed, &DefaultsContext { provider: None });
    let spec = serde_json::to_value(defaulted)
        .ok()
        .and_then(|value| value.get("spec").and_then(Value::as_object).cloned())
        .unwrap_or_default();
    leaves(&spec).iter().map(|leaf| display(leaf)).collect()
}

/// The Installation spec as the vocabulary states it (no overrides, no operator defaults).
fn stated_installation_spec(cluster_network: &ClusterNetwork) -> Map<String, Value> {
    let mut bare = cluster_network.clone();
    bare.spec.overrides = Default::default();
    cluster_network::stated_objects(&bare)
        .into_iter()
        .find(|value| value.get("kind") == Some(&json!("Installation")))
        .and_then(|value| value.get("spec").and_then(Value::as_object).cloned())
        .unwrap_or_default()
}

/// The Installation spec the ClusterNetwork renders (overrides and operator defaults in).
fn rendered_installation_spec(cluster_network: &ClusterNetwork) -> Option<Value> {
    cluster_network::compile_unchecked(cluster_network)
        .ok()?
        .into_iter()
        .find(|object| matches!(object, Object::Installation(_)))
        .map(|object| object.to_value().get("spec").cloned().unwrap_or_default())
}

/// One step into a partial Installation spec.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    /// The pool of `calicoNetwork.ipPools` with this name.
    Pool(String),
}

/// Every value of a partial spec, as the steps to it (a pool's `name` is its key, not a
/// value).
fn leaves(spec: &Map<String, Value>) -> Vec<Vec<Step>> {
    fn walk(map: &Map<String, Value>, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        for (key, value) in map {
            at.push(Step::Key(key.clone()));
            let is_pools = at.len() == 2 && at.first() == Some(&Step::Key("calicoNetwork".into()));
            match value {
                Value::Array(pools) if is_pools && key == "ipPools" => {
                    for pool in pools {
                        let name = pool.get("name").and_then(Value::as_str).unwrap_or("");
                        for field in pool.as_object().into_iter().flat_map(Map::keys) {
                            if field != "name" {
                                let mut leaf = at.clone();
                                leaf.push(Step::Pool(name.to_owned()));
                                leaf.push(Step::Key(field.clone()));
                                out.push(leaf);
                            }
                        }
                    }
                }
                Value::Object(child) if !child.is_empty() => walk(child, at, out),
                _ => out.push(at.clone()),
            }
            at.pop();
        }
    }
    let mut out = Vec::new();
    walk(spec, &mut Vec::new(), &mut out);
    out
}

/// Remove the value at `leaf`, and the maps, pools and lists it leaves empty.
fn remove(spec: &mut Map<String, Value>, leaf: &[Step]) {
    fn go(value: &mut Value, leaf: &[Step]) {
        let Some((first, rest)) = leaf.split_first() else {
            return;
        };
        match (value, first) {
            (Value::Object(map), Step::Key(key)) => {
                if rest.is_empty() {
                    map.remove(key);
                    return;
                }
                if let Some(child) = map.get_mut(key) {
                    go(child, rest);
                    let empty = match child {
                        Value::Object(child) => child.is_empty(),
                        Value::Array(items) => items.is_empty(),
                        _ => false,
                    };
                    if empty {
                        map.remove(key);
                    }
                }
            }
            (Value::Array(pools), Step::Pool(name)) => {
                let found = pools
                    .iter()
                    .position(|pool| pool.get("name").and_then(Value::as_str) == Some(name));
                if let Some(idx) = found {
                    let emptied = pools.get_mut(idx).is_some_and(|pool| {
                        go(pool, rest);
                        pool.as_object().is_some_and(|pool| pool.len() <= 1)
                    });
                    if emptied {
                        pools.remove(idx);
                    }
                }
            }
            _ => {}
        }
    }
    let mut value = Value::Object(std::mem::take(spec));
    go(&mut value, leaf);
    if let Value::Object(map) = value {
        *spec = map;
    }
}

fn display(leaf: &[Step]) -> String {
    let mut out = String::from("spec");
    for step in leaf {
        match step {
            Step::Key(key) => out = calico_spec::source::join_key(&out, key),
            Step::Pool(name) => out.push_str(&format!("[name={name}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_and_removal_keep_pool_names_as_keys() {
        let mut spec = json!({
            "registry": "r/",
            "cni": {"type": "Calico", "ipam": {"type": "Calico"}},
            "calicoNetwork": {"ipPools": [{"name": "p", "assignmentMode": "Automatic"}]},
        })
        .as_object()
        .cloned()
        .unwrap();
        let shown: Vec<String> = leaves(&spec).iter().map(|leaf| display(leaf)).collect();
        assert_eq!(
            shown,
            [
                "spec.calicoNetwork.ipPools[name=p].assignmentMode",
                "spec.cni.ipam.type",
                "spec.cni.type",
                "spec.registry",
            ]
        );
        for leaf in leaves(&spec.clone()).iter().take(2) {
            remove(&mut spec, leaf);
        }
        assert_eq!(
            Value::Object(spec),
            json!({"registry": "r/", "cni": {"type": "Calico"}})
        );
    }
}
