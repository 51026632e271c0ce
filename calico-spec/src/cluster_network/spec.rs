//! The `ClusterNetwork` input kind: what a platform engineer writes, in their own terms.
//!
//! Every type here is a deserialization target with `deny_unknown_fields`, so a typo is an
//! error rather than a silently ignored setting.
//! Defaults are documented on each field and repeated in the JSON Schema (`default` keyword),
//! because editors show the schema, not this source.
//! Cross-field rules (block size against the address family, overlaps, one autodetection
//! method, ...) are checked by [`super::check`], not by the types, so that every problem in a
//! file can be reported at once.

use std::net::IpAddr;

use ipnet::IpNet;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::overrides::{
    EndpointOverride, ExtraObject, OPERATOR_FELIX_FIELDS, ObjectOverride, OverrideMetadata,
    Overrides,
};

/// The `apiVersion` of a ClusterNetwork document.
pub const API_VERSION: &str = "calico-render.dev/v1alpha1";
/// The `kind` of a ClusterNetwork document.
pub const KIND: &str = "ClusterNetwork";
/// The Calico release calico-render targets when `spec.calicoVersion` is not given.
pub const DEFAULT_CALICO_VERSION: &str = "v3.32.1";
/// The API server port used when `spec.apiEndpoint.port` is not given.
pub const DEFAULT_API_PORT: u16 = 6443;

/// A description of one cluster's Calico network, compiled by calico-render into the manifests
/// the tigera-operator expects.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(title = "ClusterNetwork")]
pub struct ClusterNetwork {
    /// Always `calico-render.dev/v1alpha1`.
    pub api_version: ApiVersion,
    /// Always `ClusterNetwork`.
    pub kind: Kind,
    /// A name for this description; it does not name any rendered object.
    #[serde(default, skip_serializing_if = "is_default")]
    pub metadata: Metadata,
    /// The network itself.
    pub spec: ClusterNetworkSpec,
}

/// The only accepted `apiVersion`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum ApiVersion {
    /// `calico-render.dev/v1alpha1`.
    #[default]
    #[serde(rename = "calico-render.dev/v1alpha1")]
    V1alpha1,
}

/// The only accepted `kind`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Kind {
    /// `ClusterNetwork`.
    #[default]
    ClusterNetwork,
}

/// Kubernetes-style metadata, kept so that KRM tools (kustomize, kpt) can carry the document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Metadata {
    /// A name for the description (free text, used in messages only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Ignored; accepted because KRM tools may set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Ignored; accepted because KRM tools may set labels.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
    /// Ignored; accepted because KRM tools record file positions in annotations.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub annotations: std::collections::BTreeMap<String, String>,
}

/// What the cluster's Calico network looks like.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClusterNetworkSpec {
    /// The Calico release the cluster runs, `v3.<minor>.<patch>` of v3.30 to v3.33.
    /// It selects the rules the output is checked against; it does not appear in the output.
    #[serde(default = "default_calico_version")]
    #[schemars(regex(pattern = r"^v3\.3[0-3]\.[0-9]+$"))]
    pub calico_version: String,

    /// Where the cluster runs. Several operator defaults depend on it.
    #[serde(default)]
    pub kubernetes_provider: KubernetesProvider,

    /// The address the nodes use to reach the Kubernetes API without the `kubernetes` Service
    /// (the load-balanced VIP or DNS name of the control plane).
    /// When set, the `kubernetes-services-endpoint` ConfigMap is rendered; the eBPF dataplane
    /// needs it because nothing resolves the Service before Calico runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_endpoint: Option<ApiEndpoint>,

    /// The Linux dataplane.
    #[serde(default)]
    pub dataplane: Dataplane,

    /// Let the operator turn kube-proxy off while the BPF dataplane runs, and back on when it
    /// does not (the Installation's `kubeProxyManagement: Enabled`: the operator puts a node
    /// selector on DaemonSet `kube-system/kube-proxy`). Default: false, removing kube-proxy is
    /// up to you, as in a kubeadm cluster initialised with `--skip-phases=addon/kube-proxy`.
    #[serde(default)]
    pub manage_kube_proxy: bool,

    /// With the BPF dataplane, let the operator find the API server itself, from the
    /// `kubernetes` Service and its EndpointSlices (the Installation's
    /// `bpfNetworkBootstrap: Enabled`), instead of the `kubernetes-services-endpoint` ConfigMap
    /// that `apiEndpoint` renders. Requires `dataplane: BPF` and no `apiEndpoint`: the operator
    /// refuses to start while that ConfigMap exists. Default: false.
    #[serde(default)]
    pub bpf_network_bootstrap: bool,

    /// BGP routing. Off unless `enabled: true`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub bgp: Bgp,

    /// The pod address pools. They are rendered into the Installation, which owns them;
    /// at least one is required (without one the operator creates 192.168.0.0/16), except in
    /// a cluster whose pod pools are standalone IPPools the Installation does not manage:
    /// `podPools: []` with those IPPools in `extraObjects` renders `ipPools: []`.
    #[schemars(length(max = 25))]
    pub pod_pools: Vec<PodPool>,

    /// Pools LoadBalancer Services take their addresses from, rendered as
    /// projectcalico.org/v3 IPPools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_balancer_pools: Vec<LoadBalancerPool>,

    /// How each node finds its own address. Default: `ipv4: {firstFound: true}` when there is an
    /// IPv4 pod pool (or the dataplane is BPF), and `ipv6: {firstFound: true}` when there is an
    /// IPv6 pod pool, as the operator would write.
    #[serde(default, skip_serializing_if = "is_default")]
    pub node_address_autodetection: NodeAddressAutodetection,

    /// Facts about the surrounding network that lints compare the pools against.
    /// Nothing here is rendered.
    #[serde(default, skip_serializing_if = "is_default")]
    pub network: NetworkFacts,

    /// Render APIServer `default`. With `apiMode: Aggregated` it runs the Calico API server,
    /// which serves projectcalico.org/v3; with `apiMode: NativeV3` the operator (v1.42 on)
    /// runs only the calico-webhooks admission webhook from it (tier RBAC and validation).
    /// Default: true. Without `apiMode`, `false` means `apiMode: NativeV3`.
    #[serde(default = "default_true", rename = "calicoAPIServer")]
    pub calico_api_server: bool,

    /// Render Goldmane `default` (`spec: {}`): the operator then runs Goldmane, which gathers
    /// the flow logs of every node and serves them to Whisker (Calico v3.30 on; the v3.30+
    /// quickstart and the tigera-operator chart turn it on). Default: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub goldmane: bool,

    /// Render Whisker `default` (`spec: {}`): the operator then runs Whisker, the web UI for
    /// the flow logs Goldmane gathers (Calico v3.30 on; the quickstart and the chart turn it on
    /// together with Goldmane). Default: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whisker: bool,

    /// How the cluster serves projectcalico.org/v3, which decides the CRDs applied before the
    /// operator: `NativeV3` (the projectcalico.org/v3 CRDs, `v3_projectcalico_org.yaml`;
    /// v3.32 on) or `Aggregated` (the Calico API server over the crd.projectcalico.org/v1
    /// CRDs, `operator-crds.yaml`). The operator picks the mode from the CRDs it finds and
    /// never switches an existing cluster, so an existing cluster states the mode it runs.
    /// Default: `NativeV3` from v3.33 (a new install), before it `Aggregated`, or `NativeV3`
    /// with `calicoAPIServer: false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_mode: Option<ApiMode>,

    /// The pod network MTU. Default: detected by Calico.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 576, max = 65535))]
    pub mtu: Option<u32>,

    /// Felix settings (FelixConfiguration `default`), rendered only when one is set.
    /// The fields the operator owns (`bpfEnabled`, `nftablesMode`, `healthPort`, `vxlanVNI`,
    /// `vxlanPort`, `programClusterRoutes`, `routeTableRange`) are deliberately not offered.
    #[serde(default, skip_serializing_if = "is_default")]
    pub felix: Felix,

    /// Upstream fields the vocabulary above does not offer, per rendered object, in upstream
    /// wire form, deep-merged into what the ClusterNetwork compiles to (maps merge, lists
    /// replace, the Installation's pools merge by `name`). A field the ClusterNetwork itself
    /// sets cannot be overridden. See
    /// <https://github.com/calico-render/calico-render/blob/main/docs/overrides.md>.
    #[serde(default, skip_serializing_if = "Overrides::is_empty")]
    pub overrides: Overrides,

    /// Further projectcalico.org/v3 objects (FelixConfiguration `node.<name>`, BGPPeer,
    /// BGPConfiguration `node.<name>`, IPPool), rendered verbatim after being typed and
    /// validated like the rest. See
    /// <https://github.com/calico-render/calico-render/blob/main/docs/overrides.md>.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_objects: Vec<ExtraObject>,
}

impl Default for ClusterNetworkSpec {
    /// The documented defaults, and no pod pool yet (at least one is required).
    fn default() -> Self {
        ClusterNetworkSpec {
            calico_version: default_calico_version(),
            kubernetes_provider: KubernetesProvider::default(),
            api_endpoint: None,
            dataplane: Dataplane::default(),
            manage_kube_proxy: false,
            bpf_network_bootstrap: false,
            bgp: Bgp::default(),
            pod_pools: Vec::new(),
            load_balancer_pools: Vec::new(),
            node_address_autodetection: NodeAddressAutodetection::default(),
            network: NetworkFacts::default(),
            calico_api_server: default_true(),
            goldmane: false,
            whisker: false,
            api_mode: None,
            mtu: None,
            felix: Felix::default(),
            overrides: Overrides::default(),
            extra_objects: Vec::new(),
        }
    }
}

/// How projectcalico.org/v3 is served (`spec.apiMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum ApiMode {
    /// Native projectcalico.org/v3 CRDs (`v3_projectcalico_org.yaml` before the operator).
    #[serde(rename = "NativeV3")]
    NativeV3,
    /// The Calico API server over the crd.projectcalico.org/v1 CRDs (`operator-crds.yaml`
    /// before the operator); deprecated upstream since v3.32.
    Aggregated,
}

impl ApiMode {
    /// The mode's spelling in the ClusterNetwork.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiMode::NativeV3 => "NativeV3",
            ApiMode::Aggregated => "Aggregated",
        }
    }
}

impl ClusterNetworkSpec {
    /// The API mode this ClusterNetwork assumes: `apiMode` when given; else `NativeV3` for a
    /// release whose operator starts new installs in native v3 mode (v3.33,
    /// [`crate::defaults::OperatorBehaviour::native_v3_for_new_installs`]) or with
    /// `calicoAPIServer: false`, and `Aggregated` otherwise.
    pub fn resolved_api_mode(&self) -> ApiMode {
        if let Some(mode) = self.api_mode {
            return mode;
        }
        let new_installs_native = crate::release::Release::for_version(&self.calico_version)
            .is_ok_and(|release| {
                crate::defaults::operator_behaviour(release).native_v3_for_new_installs
            });
        if new_installs_native || !self.calico_api_server {
            ApiMode::NativeV3
        } else {
            ApiMode::Aggregated
        }
    }
}

fn default_calico_version() -> String {
    DEFAULT_CALICO_VERSION.to_owned()
}

fn default_true() -> bool {
    true
}

/// For `skip_serializing_if`: a nested section left as it defaults is not written out.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// The Kubernetes distribution, as the operator's `kubernetesProvider` names it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum KubernetesProvider {
    /// kubeadm, bare metal or any cluster the operator does not detect as special.
    #[default]
    None,
    /// Amazon EKS.
    #[serde(rename = "EKS")]
    Eks,
    /// Google GKE.
    #[serde(rename = "GKE")]
    Gke,
    /// Azure AKS.
    #[serde(rename = "AKS")]
    Aks,
    /// Red Hat OpenShift.
    OpenShift,
    /// Mirantis / Docker Enterprise.
    DockerEnterprise,
    /// Rancher RKE2.
    #[serde(rename = "RKE2")]
    Rke2,
    /// VMware Tanzu.
    #[serde(rename = "TKG")]
    Tkg,
    /// kind (Kubernetes in Docker).
    Kind,
}

impl KubernetesProvider {
    /// The operator's spelling, or `None` for a cluster the operator treats as plain.
    pub fn operator_value(self) -> Option<&'static str> {
        match self {
            KubernetesProvider::None => None,
            KubernetesProvider::Eks => Some("EKS"),
            KubernetesProvider::Gke => Some("GKE"),
            KubernetesProvider::Aks => Some("AKS"),
            KubernetesProvider::OpenShift => Some("OpenShift"),
            KubernetesProvider::DockerEnterprise => Some("DockerEnterprise"),
            KubernetesProvider::Rke2 => Some("RKE2"),
            KubernetesProvider::Tkg => Some("TKG"),
            KubernetesProvider::Kind => Some("Kind"),
        }
    }
}

/// The Kubernetes API address the nodes reach directly.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApiEndpoint {
    /// A DNS name or an IP address (IPv6 without brackets).
    pub host: String,
    /// The API server port.
    #[serde(default = "default_api_port")]
    #[schemars(range(min = 1))]
    pub port: u16,
}

fn default_api_port() -> u16 {
    DEFAULT_API_PORT
}

/// The Linux dataplane Calico programs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Dataplane {
    /// iptables rules, with kube-proxy serving Services.
    #[default]
    Iptables,
    /// eBPF programs; Calico replaces kube-proxy.
    #[serde(rename = "BPF")]
    Bpf,
    /// nftables rules, with kube-proxy serving Services.
    Nftables,
}

impl Dataplane {
    /// The operator's `linuxDataplane` spelling.
    pub fn operator_value(self) -> &'static str {
        match self {
            Dataplane::Iptables => "Iptables",
            Dataplane::Bpf => "BPF",
            Dataplane::Nftables => "Nftables",
        }
    }
}

/// BGP: whether Calico speaks it, to whom, and what it announces.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Bgp {
    /// Run BGP (the Installation's `bgp: Enabled`). Without BGP every pod pool needs VXLAN.
    #[serde(default)]
    pub enabled: bool,
    /// The cluster's AS number, at most 2147483647 (the API server's CRD schema is int32):
    /// a private 2-byte AS is 64512-65534.
    /// Default: Calico's 64512, left unrendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 2_147_483_647))]
    pub as_number: Option<u32>,
    /// Whether every node peers with every other node. Default: true (Calico's default),
    /// left unrendered unless other BGP settings are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_to_node_mesh: Option<bool>,
    /// External BGP peers (routers), each rendered as a BGPPeer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<BgpPeer>,
    /// Which Service address ranges the nodes announce.
    #[serde(default, skip_serializing_if = "is_default")]
    pub advertise: Advertise,
    /// The Kubernetes API virtual address announced over BGP, and which speaker announces it.
    /// Nothing is rendered for it on the node side; `calico-render router` admits it (as a
    /// /32 or /128) and checks the speakers' sessions. Default: no VIP.
    #[serde(default, rename = "apiVIP", skip_serializing_if = "Option::is_none")]
    pub api_vip: Option<ApiVip>,
}

/// The API server's virtual address and its BGP speaker.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApiVip {
    /// The virtual address.
    pub address: IpAddr,
    /// Who announces it: `Calico` (a Service external IP that Calico advertises) or
    /// `KubeVip` (kube-vip's own BGP session to the same routers).
    pub speaker: VipSpeaker,
    /// With `KubeVip`: the node address kube-vip opens its session from (`bgp_sourceip`). It
    /// must differ from the address calico-node peers from, or the router sees two sessions
    /// from one neighbour and resets them both. Default: the node's address (Calico's too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_address: Option<IpAddr>,
}

/// The speaker that announces the API VIP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum VipSpeaker {
    /// calico-node's BIRD (the VIP is a Service external IP within `serviceExternalIPs`).
    Calico,
    /// kube-vip in BGP mode, with its own session to each router.
    KubeVip,
}

/// The router at the far end of a BGPPeer, as `calico-render router` renders it. Nothing here
/// changes the node side.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PeerRouter {
    /// The router's host name. BGPPeers with the same host name are one router (an IPv4 and
    /// an IPv6 session, for example). Default: the BGPPeer's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// Whether `peerIP` is on the nodes' own subnet (one hop from every node). A router
    /// further away needs `ebgp-multihop`. Default: true when every node subnet of the peer's
    /// family (`network.nodeSubnets`) holds `peerIP`, false otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_link: Option<bool>,
    /// The nodes' addresses, one explicit neighbour each. Default: a `bgp listen range` per
    /// node subnet of the peer's address family.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<IpAddr>,
    /// Run BFD on the sessions (a profile that works with Calico's multihop sessions).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bfd: bool,
    /// The nodes have their own AS numbers (Calico Node `spec.bgp.asNumber`), so the router
    /// takes any AS but its own (`remote-as external`). Default: false, every node speaks with
    /// the cluster's AS.
    #[serde(
        default,
        rename = "perNodeAS",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub per_node_as: bool,
}

/// One external BGP peer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BgpPeer {
    /// The BGPPeer object name (a DNS-1123 subdomain).
    pub name: String,
    /// The router's address.
    #[serde(rename = "peerIP")]
    pub peer_ip: IpAddr,
    /// The router's AS number, at most 2147483647 (the API server's CRD schema is int32).
    #[schemars(range(max = 2_147_483_647))]
    pub as_number: u32,
    /// Which nodes peer with this router (Calico selector). Default: every node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<String>,
    /// The session password (TCP MD5 signature), read from a Secret. The Secret must live in
    /// calico-node's namespace, `calico-system` with the operator. Default: no password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<SecretKeyRef>,
    /// The BGP keepalive interval towards this router, a Go duration such as `20s`.
    /// Default: Calico's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keepalive_time: Option<String>,
    /// How long this router keeps a restarting node's routes (graceful restart), a Go duration
    /// such as `120s`. Default: Calico's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_restart_time: Option<String>,
    /// Which next hop the nodes announce to this router: `Auto` (Calico decides per session),
    /// `Self` (always the node itself) or `Keep` (the original next hop). Default: `Auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_hop_mode: Option<NextHopMode>,
    /// The router's side of this session, for `calico-render router`. Not rendered into the
    /// BGPPeer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router: Option<PeerRouter>,
}

/// A key of a Kubernetes Secret.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SecretKeyRef {
    /// The Secret's name.
    pub name: String,
    /// The key in the Secret's data.
    pub key: String,
}

/// The next hop the nodes announce to a BGP peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum NextHopMode {
    /// Calico chooses: itself towards eBGP peers, the original next hop towards iBGP peers.
    Auto,
    /// Always the node's own address.
    #[serde(rename = "Self")]
    SelfAddress,
    /// The original next hop, unchanged.
    Keep,
}

impl NextHopMode {
    /// The BGPPeer `nextHopMode` spelling.
    pub fn operator_value(self) -> &'static str {
        match self {
            NextHopMode::Auto => "Auto",
            NextHopMode::SelfAddress => "Self",
            NextHopMode::Keep => "Keep",
        }
    }
}

/// Service ranges announced over BGP (BGPConfiguration `default`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Advertise {
    /// Service ClusterIP ranges to announce.
    #[serde(
        default,
        rename = "serviceClusterIPs",
        deserialize_with = "cidr_serde::many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "Vec<String>")]
    pub service_cluster_ips: Vec<IpNet>,
    /// Service external IP ranges to announce.
    #[serde(
        default,
        rename = "serviceExternalIPs",
        deserialize_with = "cidr_serde::many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "Vec<String>")]
    pub service_external_ips: Vec<IpNet>,
    /// LoadBalancer address ranges to announce (usually the `loadBalancerPools` CIDRs).
    #[serde(
        default,
        rename = "serviceLoadBalancerIPs",
        deserialize_with = "cidr_serde::many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "Vec<String>")]
    pub service_load_balancer_ips: Vec<IpNet>,
}

impl Advertise {
    /// True when nothing is announced.
    pub fn is_empty(&self) -> bool {
        self.service_cluster_ips.is_empty()
            && self.service_external_ips.is_empty()
            && self.service_load_balancer_ips.is_empty()
    }
}

/// A pod address pool, owned by the Installation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PodPool {
    /// The pool name. The operator calls its own pools `default-ipv4-ippool` and
    /// `default-ipv6-ippool`.
    pub name: String,
    /// The pool range, strictly masked (`172.20.0.0/16`, not `172.20.1.0/16`).
    #[serde(deserialize_with = "cidr_serde::one")]
    #[schemars(with = "String")]
    pub cidr: IpNet,
    /// Prefix length of the per-node blocks. Default: 26 (IPv4), 122 (IPv6).
    /// Valid: 20-32 for IPv4, 116-128 for IPv6, and not shorter than the pool's prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<u32>,
    /// How pod traffic between nodes is carried. Default: `VXLANCrossSubnet`, which works with
    /// and without BGP and for both families.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = PodPool::DEFAULT_ENCAPSULATION))]
    pub encapsulation: Option<Encapsulation>,
    /// Masquerade traffic leaving the pool. Default: true (IPv4), false (IPv6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nat_outgoing: Option<bool>,
    /// Which nodes take blocks from this pool (Calico selector).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = PodPool::DEFAULT_NODE_SELECTOR))]
    pub node_selector: Option<String>,
    /// Keep this pool's routes out of BGP announcements.
    #[serde(
        default,
        rename = "disableBGPExport",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(extend("default" = PodPool::DEFAULT_DISABLE_BGP_EXPORT))]
    pub disable_bgp_export: Option<bool>,
    /// What the addresses are for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = PodPool::DEFAULT_ALLOWED_USES))]
    pub allowed_uses: Option<Vec<PodPoolUse>>,
}

impl PodPool {
    /// `encapsulation` when not given.
    pub const DEFAULT_ENCAPSULATION: Encapsulation = Encapsulation::VxlanCrossSubnet;
    /// `nodeSelector` when not given: every node.
    pub const DEFAULT_NODE_SELECTOR: &str = "all()";
    /// `disableBGPExport` when not given.
    pub const DEFAULT_DISABLE_BGP_EXPORT: bool = false;
    /// `allowedUses` when not given.
    pub const DEFAULT_ALLOWED_USES: &[PodPoolUse] = &[PodPoolUse::Workload, PodPoolUse::Tunnel];
}

/// The encapsulation of a pod pool, in the operator's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Encapsulation {
    /// IP-in-IP always (IPv4 only, needs BGP).
    #[serde(rename = "IPIP")]
    Ipip,
    /// IP-in-IP between subnets only (IPv4 only, needs BGP).
    #[serde(rename = "IPIPCrossSubnet")]
    IpipCrossSubnet,
    /// VXLAN always.
    #[serde(rename = "VXLAN")]
    Vxlan,
    /// VXLAN between subnets only.
    #[serde(rename = "VXLANCrossSubnet")]
    VxlanCrossSubnet,
    /// No encapsulation (needs BGP or a flat network).
    None,
}

impl Encapsulation {
    /// The operator's spelling.
    pub fn operator_value(self) -> &'static str {
        match self {
            Encapsulation::Ipip => "IPIP",
            Encapsulation::IpipCrossSubnet => "IPIPCrossSubnet",
            Encapsulation::Vxlan => "VXLAN",
            Encapsulation::VxlanCrossSubnet => "VXLANCrossSubnet",
            Encapsulation::None => "None",
        }
    }
}

/// What a pod pool's addresses may be used for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
pub enum PodPoolUse {
    /// Pod addresses.
    Workload,
    /// Tunnel endpoint addresses of the nodes.
    Tunnel,
}

impl PodPoolUse {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PodPoolUse::Workload => "Workload",
            PodPoolUse::Tunnel => "Tunnel",
        }
    }
}

/// A pool of LoadBalancer Service addresses (projectcalico.org/v3 IPPool, `allowedUses:
/// [LoadBalancer]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoadBalancerPool {
    /// The IPPool name (a DNS-1123 subdomain).
    pub name: String,
    /// The address range, strictly masked.
    #[serde(deserialize_with = "cidr_serde::one")]
    #[schemars(with = "String")]
    pub cidr: IpNet,
    /// Allocation block prefix length. Default: 26 (IPv4), 122 (IPv6), or the pool's own prefix
    /// length when the pool is smaller than that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<u32>,
}

/// Node address autodetection per family.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodeAddressAutodetection {
    /// How nodes pick their IPv4 address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv4: Option<AutodetectionMethod>,
    /// How nodes pick their IPv6 address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv6: Option<AutodetectionMethod>,
}

/// One node address autodetection method: set exactly one field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AutodetectionMethod {
    /// Use the first valid address found on any interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_found: Option<bool>,
    /// Use the address Kubernetes reports for the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubernetes: Option<KubernetesAddress>,
    /// Use the first interface whose name matches this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    /// Skip interfaces whose name matches this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_interface: Option<String>,
    /// Use the interface that routes to this address or host name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can_reach: Option<String>,
    /// Use the address that lies in one of these ranges.
    #[serde(
        default,
        deserialize_with = "cidr_serde::optional_many",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub cidrs: Option<Vec<IpNet>>,
}

/// The node address Kubernetes reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum KubernetesAddress {
    /// The node's `InternalIP`.
    #[serde(rename = "NodeInternalIP")]
    NodeInternalIp,
}

/// Facts about the network around the cluster, used by lints and by the operator's
/// pool-within-pod-subnet rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkFacts {
    /// The subnets the nodes' own addresses are in.
    #[serde(
        default,
        deserialize_with = "cidr_serde::many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "Vec<String>")]
    pub node_subnets: Vec<IpNet>,
    /// The Kubernetes Service ClusterIP ranges (kubeadm's `serviceSubnet`).
    #[serde(
        default,
        rename = "serviceCIDRs",
        deserialize_with = "cidr_serde::many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "Vec<String>")]
    pub service_cidrs: Vec<IpNet>,
    /// The cluster's pod subnets (kubeadm's `podSubnet`): on a kubeadm cluster the
    /// tigera-operator requires every pool inside one of them.
    #[serde(
        default,
        rename = "podCIDRs",
        deserialize_with = "cidr_serde::many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "Vec<String>")]
    pub pod_cidrs: Vec<IpNet>,
    /// Ranges in use elsewhere (home or office LANs, VPNs) that no pool may overlap.
    #[serde(
        default,
        deserialize_with = "cidr_serde::many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "Vec<String>")]
    pub avoid: Vec<IpNet>,
}

/// Felix settings a user chooses (FelixConfiguration `default`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Felix {
    /// How LoadBalancer and NodePort traffic reaches a backend on another node in BPF mode.
    #[serde(
        default,
        rename = "bpfExternalServiceMode",
        skip_serializing_if = "Option::is_none"
    )]
    pub bpf_external_service_mode: Option<BpfExternalServiceMode>,
    /// BPF program log level (`Debug` is very verbose).
    #[serde(
        default,
        rename = "bpfLogLevel",
        skip_serializing_if = "Option::is_none"
    )]
    pub bpf_log_level: Option<BpfLogLevel>,
    /// Remove kube-proxy's iptables rules when BPF mode starts (set false if kube-proxy keeps
    /// running).
    #[serde(
        default,
        rename = "bpfKubeProxyIptablesCleanupEnabled",
        skip_serializing_if = "Option::is_none"
    )]
    pub bpf_kube_proxy_iptables_cleanup_enabled: Option<bool>,
    /// Connect-time load balancing in BPF mode.
    #[serde(
        default,
        rename = "bpfConnectTimeLoadBalancing",
        skip_serializing_if = "Option::is_none"
    )]
    pub bpf_connect_time_load_balancing: Option<BpfConnectTimeLoadBalancing>,
    /// NAT for host-networked traffic when connect-time load balancing is off.
    #[serde(
        default,
        rename = "bpfHostNetworkedNATWithoutCTLB",
        skip_serializing_if = "Option::is_none"
    )]
    pub bpf_host_networked_nat_without_ctlb: Option<EnabledDisabled>,
    /// Reverse-path filtering of workload traffic in BPF mode.
    #[serde(
        default,
        rename = "bpfEnforceRPF",
        skip_serializing_if = "Option::is_none"
    )]
    pub bpf_enforce_rpf: Option<BpfEnforceRpf>,
    /// Felix's own log level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_severity_screen: Option<LogSeverity>,
}

impl Felix {
    /// True when no Felix setting is chosen, so no FelixConfiguration is rendered.
    pub fn is_empty(&self) -> bool {
        self == &Felix::default()
    }
}

/// `bpfExternalServiceMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum BpfExternalServiceMode {
    /// Forward through the ingress node (Calico's default).
    Tunnel,
    /// Direct server return: the backend answers the client directly.
    #[serde(rename = "DSR")]
    Dsr,
}

/// `bpfLogLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum BpfLogLevel {
    /// No BPF logging (Calico's default).
    Off,
    /// Informational.
    Info,
    /// Per-packet debugging.
    Debug,
}

/// `bpfConnectTimeLoadBalancing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum BpfConnectTimeLoadBalancing {
    /// Only for TCP (Calico's default).
    #[serde(rename = "TCP")]
    Tcp,
    /// For TCP and UDP.
    Enabled,
    /// Off.
    Disabled,
}

/// An `Enabled`/`Disabled` switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum EnabledDisabled {
    /// On.
    Enabled,
    /// Off.
    Disabled,
}

/// `bpfEnforceRPF`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum BpfEnforceRpf {
    /// No check.
    Disabled,
    /// Strict reverse-path check.
    Strict,
    /// Loose reverse-path check (Calico's default).
    Loose,
}

/// Felix `logSeverityScreen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum LogSeverity {
    /// Everything.
    Trace,
    /// Debugging.
    Debug,
    /// Informational (Calico's default).
    Info,
    /// Warnings and worse.
    Warning,
    /// Errors and worse.
    Error,
    /// Fatal only.
    Fatal,
}

/// CIDR fields are read with the vocabulary's parser rather than ipnet's, which accepts
/// leading zeros (`010.0.0.0/8`) that Calico and kubectl refuse.
mod cidr_serde {
    use ipnet::IpNet;
    use serde::{Deserialize, Deserializer, de::Error};

    use crate::vocab::cidr::parse_cidr;

    pub(super) fn one<'de, D: Deserializer<'de>>(deserializer: D) -> Result<IpNet, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_cidr(&text).map_err(D::Error::custom)
    }

    pub(super) fn many<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<IpNet>, D::Error> {
        // Each element is parsed as it is read, so an error points at the element itself.
        let nets = Vec::<Element>::deserialize(deserializer)?;
        Ok(nets.into_iter().map(|Element(net)| net).collect())
    }

    struct Element(IpNet);

    impl<'de> Deserialize<'de> for Element {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            one(deserializer).map(Element)
        }
    }

    pub(super) fn optional_many<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Vec<IpNet>>, D::Error> {
        many(deserializer).map(Some)
    }
}
