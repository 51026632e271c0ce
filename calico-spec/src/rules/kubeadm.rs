//! The `kube-system/kubeadm-config` ConfigMap, a context document: what the tigera-operator
//! reads from it, and the rule it then applies to the Installation's IP pools.
//!
//! Facts (operator v1.42.3, its IP pool controller): on a cluster without IP pools, and unless
//! the provider is OpenShift or the CNI plugin is not Calico, the operator reads this ConfigMap.
//! It looks through the data values for the first `podSubnet: ` and takes the rest of that line,
//! split at commas (dual stack), each part a CIDR as Go's `net.ParseCIDR` reads it (no spaces).
//! A ConfigMap without such a line, or a part that does not parse, stops the operator. With the
//! subnets read: an Installation without `ipPools` gets one pool per subnet (the first of each
//! family named `default-ipv4-ippool` / `default-ipv6-ippool`) instead of 192.168.0.0/16; an
//! Installation with pools must have each pool inside one of the subnets (the pool's network
//! address in the subnet, its prefix no shorter). An empty `ipPools` list is left alone.
//!
//! `serviceSubnet` (kubeadm's ClusterConfiguration, also comma-separated) is not read by the
//! operator; we take it as the Service ranges for our overlap lint (`CR8003`).

use ipnet::IpNet;
use serde_json::{Map, Value, json};

use super::catalogue as c;
use super::{Context, Sink};
use crate::source::{join_index, join_key};
use crate::vocab::cidr;

/// The ConfigMap's namespace and name.
pub(crate) const NAMESPACE: &str = "kube-system";
/// The ConfigMap's name.
pub(crate) const NAME: &str = "kubeadm-config";

/// What the ConfigMap says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KubeadmFacts {
    /// The pod subnets as the operator reads them, or why it cannot, with the data key.
    pub(crate) pod_subnets: Result<Vec<IpNet>, String>,
    /// The data key the `podSubnet` line was found in.
    pub(crate) pod_subnet_key: Option<String>,
    /// The Service subnets kubeadm was given (unparsable parts left out).
    pub(crate) service_subnets: Vec<IpNet>,
}

/// The rest of the line after the first `label` (`podSubnet: `) in the data values, in key
/// order, with the key it was found under.
fn find_line<'a>(data: &'a Map<String, Value>, label: &str) -> Option<(&'a str, &'a str)> {
    data.iter().find_map(|(key, value)| {
        let text = value.as_str()?;
        let (_, rest) = text.split_once(label)?;
        Some((key.as_str(), rest.split('\n').next().unwrap_or_default()))
    })
}

/// Read the ConfigMap (`value` is the whole document).
pub(crate) fn read(value: &Value) -> KubeadmFacts {
    let empty = Map::new();
    let data = value
        .get("data")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let (pod_subnets, pod_subnet_key) = match find_line(data, "podSubnet: ") {
        None => (
            Err("the ConfigMap has no `podSubnet:` line".to_owned()),
            None,
        ),
        Some((key, line)) => {
            let parsed: Result<Vec<IpNet>, String> = line
                .split(',')
                .map(|part| {
                    cidr::parse_cidr(part).map_err(|err| format!("`podSubnet: {line}`: {err}"))
                })
                .collect();
            (parsed, Some(key.to_owned()))
        }
    };
    let service_subnets = find_line(data, "serviceSubnet: ")
        .map(|(_, line)| {
            line.split(',')
                .filter_map(|part| cidr::parse_cidr(part.trim()).ok())
                .map(|net| net.trunc())
                .collect()
        })
        .unwrap_or_default();
    KubeadmFacts {
        pod_subnets,
        pod_subnet_key,
        service_subnets,
    }
}

/// Whether `root` is the kubeadm ConfigMap.
pub(crate) fn is_kubeadm_config(namespace: Option<&str>, name: Option<&str>) -> bool {
    namespace == Some(NAMESPACE) && name == Some(NAME)
}

/// Report a `podSubnet` the operator cannot read (on the ConfigMap's document).
pub(crate) fn check_configmap(sink: &mut Sink, facts: &KubeadmFacts) {
    if let Err(why) = &facts.pod_subnets {
        let path = facts
            .pod_subnet_key
            .as_deref()
            .map_or_else(|| "data".to_owned(), |key| join_key("data", key));
        sink.report(
            &c::INSTALLATION_KUBEADM_SUBNET,
            path,
            format!(
                "the tigera-operator cannot read kubeadm's pod subnet: {why}; it stops before creating IP pools"
            ),
            Some(
                "set `networking.podSubnet` in the ClusterConfiguration, comma-separated CIDRs without spaces"
                    .into(),
            ),
        );
    }
}

/// Whether the operator reads the kubeadm ConfigMap for this Installation (`defaulted` is the
/// Installation with the operator's defaults): not on OpenShift, and only for the Calico CNI.
fn applies(defaulted: &Value) -> bool {
    let spec = defaulted.get("spec");
    let provider = spec
        .and_then(|spec| spec.get("kubernetesProvider"))
        .and_then(Value::as_str);
    let cni = spec
        .and_then(|spec| spec.get("cni"))
        .and_then(|cni| cni.get("type"))
        .and_then(Value::as_str);
    provider != Some("OpenShift") && cni.is_none_or(|cni| cni == "Calico")
}

fn pools_of(value: &Value) -> Option<&Value> {
    value
        .get("spec")
        .and_then(|spec| spec.get("calicoNetwork"))
        .and_then(|network| network.get("ipPools"))
        .filter(|pools| !pools.is_null())
}

/// The Installation as the operator's IP pool controller has it before its pool defaults: with
/// no `ipPools` written and the pod subnets known, one pool per subnet. `None` when nothing
/// changes.
pub(crate) fn with_platform_pools(
    ctx: &Context,
    value: &Value,
    defaulted: &Value,
) -> Option<Value> {
    let subnets = ctx.pod_cidrs.as_ref()?;
    if subnets.is_empty() || pools_of(value).is_some() || !applies(defaulted) {
        return None;
    }
    let (mut v4_named, mut v6_named) = (false, false);
    let pools: Vec<Value> = subnets
        .iter()
        .map(|net| {
            let (named, name) = match net {
                IpNet::V4(_) => (&mut v4_named, "default-ipv4-ippool"),
                IpNet::V6(_) => (&mut v6_named, "default-ipv6-ippool"),
            };
            let pool = if *named {
                json!({ "cidr": net.to_string() })
            } else {
                json!({ "name": name, "cidr": net.to_string() })
            };
            *named = true;
            pool
        })
        .collect();
    let mut out = value.clone();
    let spec = out
        .as_object_mut()?
        .entry("spec")
        .or_insert_with(|| json!({}));
    let network = spec
        .as_object_mut()?
        .entry("calicoNetwork")
        .or_insert_with(|| json!({}));
    network
        .as_object_mut()?
        .insert("ipPools".into(), Value::Array(pools));
    Some(out)
}

/// The operator's rule: each pool written in the Installation lies inside one of the pod
/// subnets (`value` as written, `defaulted` with the operator's defaults).
pub(crate) fn check_pools(sink: &mut Sink, ctx: &Context, value: &Value, defaulted: &Value) {
    let Some(subnets) = ctx.pod_cidrs.as_ref().filter(|subnets| !subnets.is_empty()) else {
        return;
    };
    if !applies(defaulted) {
        return;
    }
    let Some(pools) = pools_of(value).and_then(Value::as_array) else {
        return;
    };
    let listed = || {
        subnets
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pools_path = "spec.calicoNetwork.ipPools";
    for (idx, pool) in pools.iter().enumerate() {
        let Some(text) = pool.get("cidr").and_then(Value::as_str) else {
            continue;
        };
        // A pool CIDR that does not parse is reported by the pool checks; the operator counts it
        // as outside, but one error for it is enough.
        let Ok(net) = cidr::parse_cidr(text) else {
            continue;
        };
        let net = net.trunc();
        let within = subnets.iter().any(|subnet| {
            subnet.trunc().contains(&net.network()) && net.prefix_len() >= subnet.prefix_len()
        });
        if !within {
            sink.report(
                &c::INSTALLATION_POOL_OUTSIDE_POD_SUBNET,
                join_key(&join_index(pools_path, idx), "cidr"),
                format!(
                    "IP pool `{text}` is not inside the cluster's pod subnet ({}); the tigera-operator refuses the Installation",
                    listed()
                ),
                Some("use a pool inside the pod subnet, or change kubeadm's `podSubnet`".into()),
            );
        }
    }
}
