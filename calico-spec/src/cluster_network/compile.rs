//! Compilation of a ClusterNetwork into wire objects, in bundle order.
//!
//! What is rendered, and why:
//! - the `kubernetes-services-endpoint` ConfigMap, only when `apiEndpoint` is set (the eBPF
//!   dataplane needs it; it is harmless otherwise);
//! - Installation `default`, always: the dataplane, BGP on or off, every pod pool with all of
//!   its fields (our defaults filled in), node address autodetection (the user's method, or
//!   the one the operator would write once pools exist), MTU when given, then the
//!   operator's own write-back defaults ([`crate::defaults`]) so that what the operator writes
//!   back is what we rendered and GitOps tools see no drift;
//! - APIServer `default` with `spec: {}`, unless `calicoAPIServer: false`;
//! - Goldmane `default` and Whisker `default`, each with `spec: {}` (as the quickstart writes
//!   them; the operator fills in the rest at run time), only with `goldmane: true` /
//!   `whisker: true`;
//! - FelixConfiguration `default`, only with the Felix settings the user chose (never the
//!   fields the operator owns);
//! - BGPConfiguration `default`, only when BGP is on and an AS number, the mesh switch or an
//!   advertisement is given, with the CRD's own defaults (`logSeverityScreen: Info`,
//!   `serviceLoadBalancerAggregation: Enabled`) written out;
//! - one BGPPeer per peer and one projectcalico.org/v3 IPPool per LoadBalancer pool (pod pools
//!   only go through the Installation, which owns them), each with the fields the API server
//!   would otherwise fill in.
//!
//! Objects are built as JSON and read into the generated wire types; that read is the
//! round-trip guarantee (every field we write exists in the CRD schema, with the right type),
//! and a failure is a bug in this module, reported as [`CompileError::WireType`].

use ipnet::IpNet;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::spec::{
    AutodetectionMethod, BgpPeer, ClusterNetwork, Dataplane, Felix, KubernetesProvider,
    LoadBalancerPool, PodPool,
};
use crate::objects::Object;

/// The name of the endpoint ConfigMap the operator reads.
pub const ENDPOINT_CONFIG_MAP: &str = "kubernetes-services-endpoint";
/// The namespace the operator runs in (from its own manifest).
pub const OPERATOR_NAMESPACE: &str = "tigera-operator";
/// The name of the singleton operator and Calico configuration objects.
pub const DEFAULT_NAME: &str = "default";

/// Why a ClusterNetwork could not be compiled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// A compiled object does not fit the generated wire type: a bug in calico-render, since
    /// the ClusterNetwork types only admit values the wire types accept.
    #[error(
        "internal error: the compiled {kind} `{name}` does not fit its CRD schema: {message}; please report this"
    )]
    WireType {
        /// The kind of the object.
        kind: &'static str,
        /// The object name.
        name: String,
        /// What the wire type refused.
        message: String,
    },
}

/// Compile `cluster_network` into wire objects, in bundle order. The input should have passed
/// [`super::check`] (as [`super::parse`] ensures); compile itself does not re-check it.
///
/// The vocabulary's objects are built first, then `spec.overrides` is merged into them and
/// `spec.extraObjects` appended (module `overrides`); only then does the Installation get
/// the operator's write-back defaults, so that they follow what the overrides chose.
pub fn compile(cluster_network: &ClusterNetwork) -> Result<Vec<Object>, CompileError> {
    let mut values = vocabulary_objects(cluster_network);
    super::overrides::apply(cluster_network, &mut values);
    fill_crd_defaults(cluster_network, &mut values);
    let mut objects = values
        .into_iter()
        .map(|value| object_of(&cluster_network.spec, value))
        .collect::<Result<Vec<_>, _>>()?;
    // Already in bundle order by construction; the stable sort keeps it so if that changes.
    objects.sort_by_key(Object::rank);
    Ok(objects)
}

/// The `default:` values the target release's CRDs give the objects, for a release that renders
/// them (`Release::renders_crd_defaults`, v3.33): the API server writes them anyway, so a GitOps
/// tool would otherwise see drift. The FelixConfiguration fields the operator writes itself are
/// left to it.
fn fill_crd_defaults(cluster_network: &ClusterNetwork, values: &mut [Value]) {
    let Ok(release) = crate::release::Release::for_version(&cluster_network.spec.calico_version)
    else {
        return;
    };
    if !release.renders_crd_defaults {
        return;
    }
    let operator_owned: Vec<String> = super::overrides::OPERATOR_FELIX_FIELDS
        .iter()
        .map(|field| format!("spec.{field}"))
        .collect();
    let operator_owned: Vec<&str> = operator_owned.iter().map(String::as_str).collect();
    for value in values {
        let Some(kind) = crate::release::indexed_kind(value).map(str::to_owned) else {
            continue;
        };
        let skip: &[&str] = if kind == "FelixConfiguration" {
            &operator_owned
        } else {
            &[]
        };
        crate::release::fill_crd_defaults(release, &kind, value, skip);
    }
}

/// The objects as the ClusterNetwork states them: the vocabulary's with the overrides merged
/// in, and the extra objects, without the operator's write-back defaults. A field of a
/// compiled object missing here comes from those defaults (`patch` keeps a live value there).
pub fn stated_objects(cluster_network: &ClusterNetwork) -> Vec<Value> {
    let mut values = vocabulary_objects(cluster_network);
    super::overrides::apply(cluster_network, &mut values);
    values
}

/// The objects the vocabulary says, as wire values in bundle order, before overrides and
/// before the operator's defaults.
pub(super) fn vocabulary_objects(cluster_network: &ClusterNetwork) -> Vec<Value> {
    let spec = &cluster_network.spec;
    let mut objects = Vec::new();

    if let Some(endpoint) = &spec.api_endpoint {
        objects.push(json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": { "name": ENDPOINT_CONFIG_MAP, "namespace": OPERATOR_NAMESPACE },
            "data": {
                "KUBERNETES_SERVICE_HOST": endpoint.host,
                "KUBERNETES_SERVICE_PORT": endpoint.port.to_string(),
            },
        }));
    }

    objects.push(installation(cluster_network));

    if spec.calico_api_server {
        objects.push(json!({
            "apiVersion": "operator.tigera.io/v1",
            "kind": "APIServer",
            "metadata": { "name": DEFAULT_NAME },
            "spec": {},
        }));
    }
    for (on, kind) in [(spec.goldmane, "Goldmane"), (spec.whisker, "Whisker")] {
        if on {
            objects.push(json!({
                "apiVersion": "operator.tigera.io/v1",
                "kind": kind,
                "metadata": { "name": DEFAULT_NAME },
                "spec": {},
            }));
        }
    }

    if !spec.felix.is_empty() {
        objects.push(v3_object(
            "FelixConfiguration",
            DEFAULT_NAME,
            felix_spec(&spec.felix),
        ));
    }

    let bgp = &spec.bgp;
    let has_bgp_configuration = bgp.enabled
        && (bgp.as_number.is_some()
            || bgp.node_to_node_mesh.is_some()
            || !bgp.advertise.is_empty());
    if has_bgp_configuration {
        let mut bgp_spec = Map::new();
        if let Some(as_number) = bgp.as_number {
            bgp_spec.insert("asNumber".into(), json!(as_number));
        }
        bgp_spec.insert("logSeverityScreen".into(), json!("Info"));
        if let Some(mesh) = bgp.node_to_node_mesh {
            bgp_spec.insert("nodeToNodeMeshEnabled".into(), json!(mesh));
        }
        let advertise = &bgp.advertise;
        for (field, list) in [
            ("serviceClusterIPs", &advertise.service_cluster_ips),
            ("serviceExternalIPs", &advertise.service_external_ips),
            (
                "serviceLoadBalancerIPs",
                &advertise.service_load_balancer_ips,
            ),
        ] {
            if !list.is_empty() {
                let cidrs: Vec<Value> = list
                    .iter()
                    .map(|cidr| json!({ "cidr": cidr.to_string() }))
                    .collect();
                bgp_spec.insert(field.into(), Value::Array(cidrs));
            }
        }
        // A CRD default, written out where the release's CRD has the field (v3.31 on).
        if crate::release::knows(
            &spec.calico_version,
            "BGPConfiguration",
            "spec.serviceLoadBalancerAggregation",
        ) {
            bgp_spec.insert("serviceLoadBalancerAggregation".into(), json!("Enabled"));
        }
        objects.push(v3_object(
            "BGPConfiguration",
            DEFAULT_NAME,
            Value::Object(bgp_spec),
        ));
    }
    if bgp.enabled {
        for peer in &bgp.peers {
            objects.push(v3_object("BGPPeer", &peer.name, peer_spec(peer)));
        }
    }

    for pool in &spec.load_balancer_pools {
        objects.push(v3_object(
            "IPPool",
            &pool.name,
            load_balancer_pool_spec(pool),
        ));
    }
    objects
}

/// A wire value read into its generated type (the Installation with the operator's defaults).
fn object_of(spec: &super::spec::ClusterNetworkSpec, value: Value) -> Result<Object, CompileError> {
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(match kind {
        "ConfigMap" => Object::ConfigMap(wire("ConfigMap", &name, value)?),
        "Installation" => Object::Installation(Box::new(with_operator_defaults(
            spec,
            wire("Installation", &name, value)?,
        ))),
        "APIServer" => Object::APIServer(wire("APIServer", &name, value)?),
        "Goldmane" => Object::Goldmane(wire("Goldmane", &name, value)?),
        "Whisker" => Object::Whisker(wire("Whisker", &name, value)?),
        "FelixConfiguration" => {
            Object::FelixConfiguration(Box::new(wire("FelixConfiguration", &name, value)?))
        }
        "BGPConfiguration" => Object::BGPConfiguration(wire("BGPConfiguration", &name, value)?),
        "BGPPeer" => Object::BGPPeer(wire("BGPPeer", &name, value)?),
        "IPPool" => Object::IPPool(wire("IPPool", &name, value)?),
        _ => {
            return Err(CompileError::WireType {
                kind: "object",
                name,
                message: format!("kind `{kind}` is not one calico-render renders"),
            });
        }
    })
}

/// The Installation as the user's spec says it, before the operator's defaults.
fn installation(cluster_network: &ClusterNetwork) -> Value {
    let spec = &cluster_network.spec;
    let mut calico_network = Map::new();
    calico_network.insert(
        "linuxDataplane".into(),
        json!(spec.dataplane.operator_value()),
    );
    calico_network.insert(
        "bgp".into(),
        json!(if spec.bgp.enabled {
            "Enabled"
        } else {
            "Disabled"
        }),
    );
    // Neither is defaulted by the operator, so leaving them out when off cannot drift.
    if spec.bpf_network_bootstrap {
        calico_network.insert("bpfNetworkBootstrap".into(), json!("Enabled"));
    }
    if spec.manage_kube_proxy {
        calico_network.insert("kubeProxyManagement".into(), json!("Enabled"));
    }
    let pools: Vec<Value> = spec.pod_pools.iter().map(pod_pool).collect();
    calico_network.insert("ipPools".into(), Value::Array(pools));
    if let Some(mtu) = spec.mtu {
        calico_network.insert("mtu".into(), json!(mtu));
    }
    let autodetection = &spec.node_address_autodetection;
    let chosen = [
        (&autodetection.ipv4, false, "nodeAddressAutodetectionV4"),
        (&autodetection.ipv6, true, "nodeAddressAutodetectionV6"),
    ];
    for (method, is_ipv6, field) in chosen {
        let value = match method {
            Some(method) => Some(autodetection_method(method)),
            None => default_autodetection(cluster_network, is_ipv6),
        };
        if let Some(value) = value {
            calico_network.insert(field.into(), value);
        }
    }
    let mut installation_spec = Map::new();
    if let Some(provider) = spec.kubernetes_provider.operator_value() {
        installation_spec.insert("kubernetesProvider".into(), json!(provider));
    }
    installation_spec.insert("calicoNetwork".into(), Value::Object(calico_network));
    json!({
        "apiVersion": "operator.tigera.io/v1",
        "kind": "Installation",
        "metadata": { "name": DEFAULT_NAME },
        "spec": installation_spec,
    })
}

/// The Installation with the operator's write-back defaults filled in. The provider is
/// already in the Installation when it is not `None`, so the defaults need no other context.
fn with_operator_defaults(
    spec: &super::spec::ClusterNetworkSpec,
    installation: crate::generated::operator_tigera_io::v1::Installation,
) -> crate::generated::operator_tigera_io::v1::Installation {
    let ctx = crate::defaults::DefaultsContext { provider: None };
    // The operator of the release asked for (checked already; the newest otherwise).
    let release = crate::release::Release::for_version(&spec.calico_version)
        .unwrap_or_else(|_| crate::release::Release::default_target());
    crate::defaults::apply_operator_defaults_for(release, &installation, &ctx)
}

/// The node address autodetection the operator writes once pools exist (IPv4 also as soon as
/// the dataplane is BPF), unless the user chose a method: `firstFound`, except
/// `skipInterface: ^br-.*` on Docker Enterprise and `canReach: 8.8.8.8` on EKS for IPv4.
fn default_autodetection(cluster_network: &ClusterNetwork, is_ipv6: bool) -> Option<Value> {
    let spec = &cluster_network.spec;
    // The operator looks at the cluster's IPPools, so standalone pools (`spec.extraObjects`,
    // with `podPools: []` the only ones) count too.
    let standalone = spec
        .extra_objects
        .iter()
        .filter(|extra| extra.kind == "IPPool")
        .filter_map(|extra| extra.spec.as_ref()?.get("cidr")?.as_str())
        .filter_map(|cidr| crate::vocab::cidr::parse_cidr(cidr).ok());
    let has_family = spec
        .pod_pools
        .iter()
        .map(|pool| pool.cidr)
        .chain(standalone)
        .any(|cidr| matches!(cidr, IpNet::V6(_)) == is_ipv6);
    let needed = has_family || (!is_ipv6 && spec.dataplane == Dataplane::Bpf);
    if !needed {
        return None;
    }
    let method = match (is_ipv6, spec.kubernetes_provider) {
        (false, KubernetesProvider::DockerEnterprise) => json!({ "skipInterface": "^br-.*" }),
        (false, KubernetesProvider::Eks) => json!({ "canReach": "8.8.8.8" }),
        _ => json!({ "firstFound": true }),
    };
    Some(method)
}

/// The default block size of a pool of this family: 26 for IPv4, 122 for IPv6.
pub fn default_block_size(cidr: IpNet) -> u32 {
    match cidr {
        IpNet::V4(_) => 26,
        IpNet::V6(_) => 122,
    }
}

/// A pod pool in the operator's terms, every field written out.
fn pod_pool(pool: &PodPool) -> Value {
    let encapsulation = pool.encapsulation.unwrap_or(PodPool::DEFAULT_ENCAPSULATION);
    let nat_outgoing = pool
        .nat_outgoing
        .unwrap_or(matches!(pool.cidr, IpNet::V4(_)));
    let allowed_uses: Vec<&str> = pool
        .allowed_uses
        .as_deref()
        .unwrap_or(PodPool::DEFAULT_ALLOWED_USES)
        .iter()
        .map(|use_| use_.as_str())
        .collect();
    json!({
        "name": pool.name,
        "cidr": pool.cidr.to_string(),
        "blockSize": pool.block_size.unwrap_or_else(|| default_block_size(pool.cidr)),
        "encapsulation": encapsulation.operator_value(),
        "natOutgoing": if nat_outgoing { "Enabled" } else { "Disabled" },
        "nodeSelector": pool.node_selector.as_deref().unwrap_or(PodPool::DEFAULT_NODE_SELECTOR),
        "disableBGPExport": pool.disable_bgp_export.unwrap_or(PodPool::DEFAULT_DISABLE_BGP_EXPORT),
        "allowedUses": allowed_uses,
    })
}

fn autodetection_method(method: &AutodetectionMethod) -> Value {
    let mut out = Map::new();
    if let Some(first_found) = method.first_found {
        out.insert("firstFound".into(), json!(first_found));
    }
    if method.kubernetes.is_some() {
        out.insert("kubernetes".into(), json!("NodeInternalIP"));
    }
    if let Some(interface) = &method.interface {
        out.insert("interface".into(), json!(interface));
    }
    if let Some(skip_interface) = &method.skip_interface {
        out.insert("skipInterface".into(), json!(skip_interface));
    }
    if let Some(can_reach) = &method.can_reach {
        out.insert("canReach".into(), json!(can_reach));
    }
    if let Some(cidrs) = &method.cidrs {
        let cidrs: Vec<String> = cidrs.iter().map(IpNet::to_string).collect();
        out.insert("cidrs".into(), json!(cidrs));
    }
    Value::Object(out)
}

/// The pool fields `spec.podPools` sets, in every pool of the Installation.
pub(super) const POOL_FIELDS: &[&str] = &[
    "name",
    "cidr",
    "blockSize",
    "encapsulation",
    "natOutgoing",
    "nodeSelector",
    "disableBGPExport",
    "allowedUses",
];

/// The FelixConfiguration fields `spec.felix` sets.
pub(super) const FELIX_FIELDS: &[&str] = &[
    "bpfExternalServiceMode",
    "bpfLogLevel",
    "bpfKubeProxyIptablesCleanupEnabled",
    "bpfConnectTimeLoadBalancing",
    "bpfHostNetworkedNATWithoutCTLB",
    "bpfEnforceRPF",
    "logSeverityScreen",
];

fn felix_spec(felix: &Felix) -> Value {
    use super::spec::{
        BpfConnectTimeLoadBalancing as Ctlb, BpfEnforceRpf as Rpf, BpfExternalServiceMode as Esm,
        BpfLogLevel as Bll, EnabledDisabled as Ed, LogSeverity as Ls,
    };
    let mut out = Map::new();
    if let Some(mode) = felix.bpf_external_service_mode {
        let value = match mode {
            Esm::Tunnel => "Tunnel",
            Esm::Dsr => "DSR",
        };
        out.insert("bpfExternalServiceMode".into(), json!(value));
    }
    if let Some(level) = felix.bpf_log_level {
        let value = match level {
            Bll::Off => "Off",
            Bll::Info => "Info",
            Bll::Debug => "Debug",
        };
        out.insert("bpfLogLevel".into(), json!(value));
    }
    if let Some(enabled) = felix.bpf_kube_proxy_iptables_cleanup_enabled {
        out.insert("bpfKubeProxyIptablesCleanupEnabled".into(), json!(enabled));
    }
    if let Some(mode) = felix.bpf_connect_time_load_balancing {
        let value = match mode {
            Ctlb::Tcp => "TCP",
            Ctlb::Enabled => "Enabled",
            Ctlb::Disabled => "Disabled",
        };
        out.insert("bpfConnectTimeLoadBalancing".into(), json!(value));
    }
    if let Some(mode) = felix.bpf_host_networked_nat_without_ctlb {
        let value = match mode {
            Ed::Enabled => "Enabled",
            Ed::Disabled => "Disabled",
        };
        out.insert("bpfHostNetworkedNATWithoutCTLB".into(), json!(value));
    }
    if let Some(mode) = felix.bpf_enforce_rpf {
        let value = match mode {
            Rpf::Disabled => "Disabled",
            Rpf::Strict => "Strict",
            Rpf::Loose => "Loose",
        };
        out.insert("bpfEnforceRPF".into(), json!(value));
    }
    if let Some(level) = felix.log_severity_screen {
        let value = match level {
            Ls::Trace => "Trace",
            Ls::Debug => "Debug",
            Ls::Info => "Info",
            Ls::Warning => "Warning",
            Ls::Error => "Error",
            Ls::Fatal => "Fatal",
        };
        out.insert("logSeverityScreen".into(), json!(value));
    }
    Value::Object(out)
}

fn peer_spec(peer: &BgpPeer) -> Value {
    let mut out = Map::new();
    out.insert("peerIP".into(), json!(peer.peer_ip.to_string()));
    out.insert("asNumber".into(), json!(peer.as_number));
    if let Some(selector) = &peer.node_selector {
        out.insert("nodeSelector".into(), json!(selector));
    }
    if let Some(password) = &peer.password {
        out.insert(
            "password".into(),
            json!({ "secretKeyRef": { "name": password.name, "key": password.key } }),
        );
    }
    if let Some(time) = &peer.keepalive_time {
        out.insert("keepaliveTime".into(), json!(time));
    }
    if let Some(time) = &peer.max_restart_time {
        out.insert("maxRestartTime".into(), json!(time));
    }
    if let Some(mode) = peer.next_hop_mode {
        out.insert("nextHopMode".into(), json!(mode.operator_value()));
    }
    Value::Object(out)
}

/// The block size a LoadBalancer pool gets when none is given: the family default, or the
/// pool's own prefix when the pool is smaller than one default block.
pub fn default_load_balancer_block_size(cidr: IpNet) -> u32 {
    default_block_size(cidr).max(u32::from(cidr.prefix_len()))
}

fn load_balancer_pool_spec(pool: &LoadBalancerPool) -> Value {
    json!({
        "cidr": pool.cidr.to_string(),
        "blockSize": pool.block_size.unwrap_or_else(|| default_load_balancer_block_size(pool.cidr)),
        "ipipMode": "Never",
        "vxlanMode": "Never",
        "nodeSelector": "all()",
        "allowedUses": ["LoadBalancer"],
        "assignmentMode": "Automatic",
    })
}

pub(super) fn v3_object(kind: &str, name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "projectcalico.org/v3",
        "kind": kind,
        "metadata": { "name": name },
        "spec": spec,
    })
}

fn wire<T: DeserializeOwned>(
    kind: &'static str,
    name: &str,
    value: Value,
) -> Result<T, CompileError> {
    serde_json::from_value(value).map_err(|err| CompileError::WireType {
        kind,
        name: name.to_owned(),
        message: err.to_string(),
    })
}

/// The ClusterNetwork field a wire field of `object` was compiled from, so that a problem the
/// rule catalogue finds in the compiled objects can be reported where the user can fix it.
/// Falls back to the nearest ClusterNetwork field that produced the object.
pub fn origin(cluster_network: &ClusterNetwork, object: &Object, wire_path: &str) -> String {
    origin_of(cluster_network, object.kind(), object.name(), wire_path)
}

/// [`origin`] for the object of this kind and name.
pub(super) fn origin_of(
    cluster_network: &ClusterNetwork,
    kind: &str,
    name: &str,
    wire_path: &str,
) -> String {
    let spec = &cluster_network.spec;
    let rest = |prefix: &str| {
        wire_path
            .strip_prefix(prefix)
            .map(|r| r.trim_start_matches('.'))
    };
    match kind {
        "ConfigMap" => match wire_path {
            "data.KUBERNETES_SERVICE_HOST" => "spec.apiEndpoint.host".into(),
            "data.KUBERNETES_SERVICE_PORT" => "spec.apiEndpoint.port".into(),
            _ => "spec.apiEndpoint".into(),
        },
        "Installation" => {
            if let Some(rest) = rest("spec.calicoNetwork.ipPools[") {
                let (idx, field) = rest.split_once(']').unwrap_or((rest, ""));
                let field = field.trim_start_matches('.');
                let field = field.split(['.', '[']).next().unwrap_or("");

                return if POOL_FIELDS.contains(&field) {
                    format!("spec.podPools[{idx}].{field}")
                } else {
                    format!("spec.podPools[{idx}]")
                };
            }
            let simple = [
                ("spec.calicoNetwork.linuxDataplane", "spec.dataplane"),
                ("spec.calicoNetwork.bgp", "spec.bgp.enabled"),
                ("spec.calicoNetwork.mtu", "spec.mtu"),
                (
                    "spec.calicoNetwork.bpfNetworkBootstrap",
                    "spec.bpfNetworkBootstrap",
                ),
                (
                    "spec.calicoNetwork.kubeProxyManagement",
                    "spec.manageKubeProxy",
                ),
                ("spec.calicoNetwork.ipPools", "spec.podPools"),
                (
                    "spec.calicoNetwork.nodeAddressAutodetectionV4",
                    "spec.nodeAddressAutodetection.ipv4",
                ),
                (
                    "spec.calicoNetwork.nodeAddressAutodetectionV6",
                    "spec.nodeAddressAutodetection.ipv6",
                ),
                ("spec.kubernetesProvider", "spec.kubernetesProvider"),
            ];
            for (wire_prefix, user_path) in simple {
                if let Some(rest) = rest(wire_prefix) {
                    return if rest.is_empty() {
                        user_path.into()
                    } else {
                        format!("{user_path}.{rest}")
                    };
                }
            }
            "spec".into()
        }
        "APIServer" => "spec.calicoAPIServer".into(),
        "Goldmane" => "spec.goldmane".into(),
        "Whisker" => "spec.whisker".into(),
        "FelixConfiguration" => match rest("spec") {
            Some(field) if FELIX_FIELDS.contains(&field) => format!("spec.felix.{field}"),
            _ => "spec.felix".into(),
        },
        "BGPConfiguration" => {
            for (wire_field, user_path) in [
                ("spec.asNumber", "spec.bgp.asNumber".to_owned()),
                (
                    "spec.nodeToNodeMeshEnabled",
                    "spec.bgp.nodeToNodeMesh".to_owned(),
                ),
            ] {
                if wire_path == wire_field {
                    return user_path;
                }
            }
            for field in [
                "serviceClusterIPs",
                "serviceExternalIPs",
                "serviceLoadBalancerIPs",
            ] {
                if let Some(rest) = rest(&format!("spec.{field}")) {
                    let idx = rest.split(']').next().unwrap_or("").trim_start_matches('[');
                    return if idx.is_empty() {
                        format!("spec.bgp.advertise.{field}")
                    } else {
                        format!("spec.bgp.advertise.{field}[{idx}]")
                    };
                }
            }
            "spec.bgp".into()
        }
        "BGPPeer" => {
            let Some(peer_idx) = spec.bgp.peers.iter().position(|peer| peer.name == name) else {
                return "spec.bgp.peers".into();
            };
            let base = format!("spec.bgp.peers[{peer_idx}]");
            match wire_path {
                "metadata.name" => format!("{base}.name"),
                "spec.peerIP" => format!("{base}.peerIP"),
                "spec.asNumber" => format!("{base}.asNumber"),
                "spec.nodeSelector" => format!("{base}.nodeSelector"),
                "spec.keepaliveTime" => format!("{base}.keepaliveTime"),
                "spec.maxRestartTime" => format!("{base}.maxRestartTime"),
                "spec.nextHopMode" => format!("{base}.nextHopMode"),
                path if path.starts_with("spec.password") => format!("{base}.password"),
                _ => base,
            }
        }
        "IPPool" => {
            let Some(pool_idx) = spec
                .load_balancer_pools
                .iter()
                .position(|pool| pool.name == name)
            else {
                return "spec.loadBalancerPools".into();
            };
            let base = format!("spec.loadBalancerPools[{pool_idx}]");
            match wire_path {
                "metadata.name" => format!("{base}.name"),
                "spec.cidr" => format!("{base}.cidr"),
                "spec.blockSize" => format!("{base}.blockSize"),
                _ => base,
            }
        }
        _ => "spec".into(),
    }
}
