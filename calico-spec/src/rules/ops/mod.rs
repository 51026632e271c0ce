//! Operational checks (`OP` codes): objects every layer accepts that break a cluster later.
//!
//! Each check is drawn from public reports (its catalogue entry links them) and reads the
//! whole run at once, because the trap lies between objects: a pool and the BGPConfiguration
//! that should advertise it, a pool and the Nodes it must not shadow. The run's documents are
//! gathered into [`Gathered`] while `validate` walks them (see `validate::check_document`);
//! [`check`] then derives the shared facts ([`Facts`]: every pool in one form, the BGP
//! settings, the context documents) and calls one function per area file:
//!
//! | file | codes | area |
//! | --- | --- | --- |
//! | `pools.rs` | `OP01xx` | pools and IPAM |
//! | `routing.rs` | `OP02xx` | MTU, encapsulation and routing |
//! | `bgp.rs` | `OP03xx` | BGP and peering |
//! | `lb.rs` | `OP04xx` | LoadBalancer and service advertisement |
//! | `dataplane.rs` | `OP05xx` | eBPF, kube-proxy and the dataplane |
//! | `ownership.rs` | `OP06xx` | what the operator owns and rewrites, GitOps |
//! | `autodetect.rs` | `OP07xx` | node address autodetection |
//! | `platform.rs` | `OP08xx` | the nodes' kernel and architecture |
//!
//! `OP05xx` eBPF, kube-proxy and the dataplane, `OP06xx` operator ownership, GitOps and chart
//! values, `OP07xx` nodes and address autodetection, `OP08xx` platform and release: the same
//! way, one file each. **To add a check**: a catalogue entry in the `OP` section (with
//! `reports` and `fix`), a function `fn check(facts: &Facts<'_>, out: &mut Findings)` in the
//! area's file (a new file gets one `mod` line and one call line in [`check`]), and a trapped
//! and a fixed row in `tests/tests/ops_checks.rs`.
//!
//! No guessing: a check that needs a context document the run does not hold (Node objects,
//! kube-proxy's DaemonSet or ConfigMap) says nothing about it and calls [`Findings::lacks`]
//! instead, when the objects it would judge are there; `validate` lists those checks
//! ([`Unchecked`]).

mod autodetect;
mod bgp;
mod dataplane;
mod lb;
mod ownership;
mod platform;
mod pools;
mod routing;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use ipnet::IpNet;
use serde_json::Value;

use super::catalogue::Rule;
use super::{Context, Fields, Sink, items};
use crate::vocab::Selector;
use crate::vocab::cidr::{self, Family};
use crate::vocab::selector::CompareOp;

/// A context document some operational checks need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContextDocument {
    /// Node objects (`kubectl get nodes -o yaml`): addresses, pod CIDRs, labels.
    Nodes,
    /// kube-proxy: DaemonSet `kube-system/kube-proxy` or its ConfigMap (`config.conf`).
    KubeProxy,
    /// The MTU of the nodes' network interfaces (`validate --node-mtu`).
    NodeMtu,
    /// ConfigMap `kube-system/kubeadm-config`: the cluster's pod and Service subnets.
    KubeadmConfig,
}

impl ContextDocument {
    /// What to give `validate`, in words.
    pub fn describe(self) -> &'static str {
        match self {
            ContextDocument::Nodes => "the Node objects (`kubectl get nodes -o yaml`)",
            ContextDocument::KubeProxy => {
                "kube-proxy's DaemonSet or ConfigMap (`kubectl -n kube-system get daemonset,configmap kube-proxy -o yaml`)"
            }
            ContextDocument::NodeMtu => {
                "the MTU of the nodes' interfaces (`--node-mtu`, as `ip link` shows it)"
            }
            ContextDocument::KubeadmConfig => {
                "kubeadm's ClusterConfiguration (`kubectl -n kube-system get configmap kubeadm-config -o yaml`)"
            }
        }
    }

    /// A short name for JSON output: `Nodes`, `KubeProxy`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextDocument::Nodes => "Nodes",
            ContextDocument::KubeProxy => "KubeProxy",
            ContextDocument::NodeMtu => "NodeMTU",
            ContextDocument::KubeadmConfig => "KubeadmConfig",
        }
    }
}

/// An operational check that did not run because the run lacks a context document
/// (serialized as `{"code": ..., "needs": ...}`, the form `validate -o json` prints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Unchecked {
    /// The check's code.
    pub code: &'static str,
    /// The document it needs.
    pub needs: ContextDocument,
}

impl serde::Serialize for ContextDocument {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One document of the run: where it is, its name and its value as written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Doc<'a> {
    pub(crate) input_idx: usize,
    pub(crate) name: &'a str,
    pub(crate) value: &'a Value,
}

impl<'a> Doc<'a> {
    /// The fields of `spec`.
    pub(crate) fn spec(&self) -> Fields<'a, 'static> {
        Fields::of(self.value.get("spec"), "spec")
    }
}

/// The documents of a run the operational checks read, gathered as `validate` classifies them.
#[derive(Debug, Default)]
pub(crate) struct Gathered<'a> {
    pub(crate) ip_pools: Vec<Doc<'a>>,
    pub(crate) bgp_peers: Vec<Doc<'a>>,
    pub(crate) bgp_configurations: Vec<Doc<'a>>,
    pub(crate) felix_configurations: Vec<Doc<'a>>,
    /// Each Installation with its copy after the operator's defaults.
    pub(crate) installations: Vec<(Doc<'a>, Cow<'a, Value>)>,
    /// Context: Node objects.
    pub(crate) nodes: Vec<Doc<'a>>,
    /// Context: DaemonSet `kube-system/kube-proxy`.
    pub(crate) kube_proxy_daemonsets: Vec<Doc<'a>>,
    /// Context: ConfigMap `kube-system/kube-proxy`.
    pub(crate) kube_proxy_configs: Vec<Doc<'a>>,
    /// Context: MetalLB BGPPeers (`metallb.io/v1beta1` or `v1beta2`).
    pub(crate) metallb_peers: Vec<Doc<'a>>,
}

/// Whether `namespace`/`name` is kube-proxy's DaemonSet or ConfigMap (both `kube-system/kube-proxy`
/// on kubeadm clusters).
pub(crate) fn is_kube_proxy(namespace: Option<&str>, name: Option<&str>) -> bool {
    namespace == Some("kube-system") && name == Some("kube-proxy")
}

/// How a pool carries pod traffic between nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encap {
    None,
    Ipip { cross_subnet: bool },
    Vxlan { cross_subnet: bool },
}

/// The tunnel an encapsulation uses between nodes, whatever its cross-subnet setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tunnel {
    Ipip,
    Vxlan,
}

impl Tunnel {
    /// Its name in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tunnel::Ipip => "IP-in-IP",
            Tunnel::Vxlan => "VXLAN",
        }
    }
}

impl Encap {
    /// The tunnel, `None` for unencapsulated pools.
    pub(crate) fn tunnel(self) -> Option<Tunnel> {
        match self {
            Encap::None => None,
            Encap::Ipip { .. } => Some(Tunnel::Ipip),
            Encap::Vxlan { .. } => Some(Tunnel::Vxlan),
        }
    }
}

/// Where a pool was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolSource {
    /// A projectcalico.org/v3 (or crd.projectcalico.org/v1) IPPool object.
    IpPool,
    /// An entry of an Installation's `spec.calicoNetwork.ipPools` (after the operator's
    /// defaults, which include the pool it makes when none is listed).
    Installation,
}

/// One pool, IPPool object or Installation entry, with every default spelled out.
#[derive(Debug, Clone)]
pub(crate) struct Pool<'a> {
    pub(crate) input_idx: usize,
    pub(crate) source: PoolSource,
    /// The path of the pool's mapping: `spec` or `spec.calicoNetwork.ipPools[i]`.
    pub(crate) path: String,
    pub(crate) name: Cow<'a, str>,
    pub(crate) net: IpNet,
    pub(crate) block_size: u8,
    pub(crate) encap: Encap,
    pub(crate) nat_outgoing: bool,
    pub(crate) workload: bool,
    /// Whether calico-node may take the node's tunnel address from it.
    pub(crate) tunnel: bool,
    pub(crate) load_balancer: bool,
    pub(crate) disable_bgp_export: bool,
    /// `disabled` (IPPool) or `disableNewAllocations` (Installation).
    pub(crate) disabled: bool,
    /// `assignmentMode: Manual`: only pods that name the pool get its addresses.
    pub(crate) manual: bool,
    pub(crate) node_selector: Cow<'a, str>,
}

impl Pool<'_> {
    pub(crate) fn family(&self) -> Family {
        Family::of_net(&self.net)
    }

    /// The path of a field of the pool, by its name in an IPPool and in an Installation pool.
    pub(crate) fn at(&self, ip_pool_key: &str, installation_key: &str) -> String {
        let key = match self.source {
            PoolSource::IpPool => ip_pool_key,
            PoolSource::Installation => installation_key,
        };
        crate::source::join_key(&self.path, key)
    }

    /// The pool for messages: its name and range.
    pub(crate) fn describe(&self) -> String {
        if self.name.is_empty() {
            format!("`{}`", self.net)
        } else {
            format!("`{}` ({})", self.name, self.net)
        }
    }

    /// Whether pods take addresses from it: a Workload pool, enabled, and not also a
    /// LoadBalancer pool (that combination is refused, `CR1011`, and not judged again).
    pub(crate) fn pod_pool(&self) -> bool {
        self.workload && !self.disabled && !self.load_balancer
    }
}

/// The default block size of a family (Calico's IPAM: /26 for IPv4, /122 for IPv6).
pub(crate) fn default_block_size(family: Family) -> u8 {
    match family {
        Family::V4 => 26,
        Family::V6 => 122,
    }
}

fn ip_pool_of<'a>(doc: &Doc<'a>) -> Option<Pool<'a>> {
    let spec = doc.spec();
    let net = spec
        .str("cidr")
        .and_then(|text| cidr::parse_cidr(text).ok())?;
    let family = Family::of_net(&net);
    let mode = |key: &str| spec.str(key).unwrap_or("Never");
    let encap = match (mode("ipipMode"), mode("vxlanMode")) {
        (ipip, _) if ipip != "Never" => Encap::Ipip {
            cross_subnet: ipip == "CrossSubnet",
        },
        (_, vxlan) if vxlan != "Never" => Encap::Vxlan {
            cross_subnet: vxlan == "CrossSubnet",
        },
        _ => Encap::None,
    };
    let uses: Vec<&str> = spec
        .list("allowedUses")
        .map(|uses| uses.iter().filter_map(Value::as_str).collect())
        .unwrap_or_else(|| vec!["Workload", "Tunnel"]);
    Some(Pool {
        input_idx: doc.input_idx,
        source: PoolSource::IpPool,
        path: "spec".into(),
        name: Cow::Borrowed(doc.name),
        net,
        block_size: block_size(spec.int("blockSize"), family),
        encap,
        nat_outgoing: spec.bool("natOutgoing").unwrap_or(false),
        workload: uses.contains(&"Workload"),
        tunnel: uses.contains(&"Tunnel"),
        load_balancer: uses.contains(&"LoadBalancer"),
        disable_bgp_export: spec.bool("disableBGPExport").unwrap_or(false),
        disabled: spec.bool("disabled").unwrap_or(false),
        manual: spec.str("assignmentMode") == Some("Manual"),
        node_selector: Cow::Borrowed(spec.str("nodeSelector").unwrap_or("all()")),
    })
}

fn block_size(written: Option<i64>, family: Family) -> u8 {
    written
        .and_then(|size| u8::try_from(size).ok())
        .filter(|size| *size != 0)
        .unwrap_or_else(|| default_block_size(family))
}

fn installation_pools<'a>(input_idx: usize, defaulted: &Value) -> Vec<Pool<'a>> {
    let network = Fields::of(
        defaulted
            .get("spec")
            .and_then(|spec| spec.get("calicoNetwork")),
        "spec.calicoNetwork",
    );
    let path = network.at("ipPools");
    let mut pools = Vec::new();
    for (path, value) in items(network.list("ipPools"), &path) {
        let pool = Fields::of(Some(value), &path);
        let Some(net) = pool
            .str("cidr")
            .and_then(|text| cidr::parse_cidr(text).ok())
        else {
            continue;
        };
        let family = Family::of_net(&net);
        let encap = match pool.str("encapsulation").unwrap_or("None") {
            "IPIP" => Encap::Ipip {
                cross_subnet: false,
            },
            "IPIPCrossSubnet" => Encap::Ipip { cross_subnet: true },
            "VXLAN" => Encap::Vxlan {
                cross_subnet: false,
            },
            "VXLANCrossSubnet" => Encap::Vxlan { cross_subnet: true },
            _ => Encap::None,
        };
        let uses: Vec<&str> = pool
            .list("allowedUses")
            .map(|uses| uses.iter().filter_map(Value::as_str).collect())
            .unwrap_or_else(|| vec!["Workload", "Tunnel"]);
        pools.push(Pool {
            input_idx,
            source: PoolSource::Installation,
            name: Cow::Owned(pool.str("name").unwrap_or_default().to_owned()),
            net,
            block_size: block_size(pool.int("blockSize"), family),
            encap,
            nat_outgoing: pool.str("natOutgoing") == Some("Enabled"),
            workload: uses.contains(&"Workload"),
            tunnel: uses.contains(&"Tunnel"),
            load_balancer: uses.contains(&"LoadBalancer"),
            disable_bgp_export: pool.bool("disableBGPExport").unwrap_or(false),
            disabled: pool.bool("disableNewAllocations").unwrap_or(false),
            manual: pool.str("assignmentMode") == Some("Manual"),
            node_selector: Cow::Owned(pool.str("nodeSelector").unwrap_or("all()").to_owned()),
            path,
        });
    }
    pools
}

/// One Node, as the checks read it.
#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    pub(crate) doc: Doc<'a>,
    /// `status.addresses`: (type, address) for each address that parses.
    pub(crate) addresses: Vec<(&'a str, IpAddr)>,
    /// `spec.podCIDRs`, or `spec.podCIDR` when the list is absent.
    pub(crate) pod_cidrs: Vec<IpNet>,
    /// `metadata.labels` (string values only), which Calico's node selectors match.
    pub(crate) labels: BTreeMap<&'a str, &'a str>,
}

fn node_of<'a>(doc: &Doc<'a>) -> Node<'a> {
    let addresses = doc
        .value
        .get("status")
        .and_then(|status| status.get("addresses"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let kind = entry.get("type").and_then(Value::as_str)?;
            let address = entry.get("address").and_then(Value::as_str)?;
            Some((kind, address.parse::<IpAddr>().ok()?))
        })
        .collect();
    let spec = doc.spec();
    let listed: Vec<IpNet> = spec
        .list("podCIDRs")
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|text| cidr::parse_cidr(text).ok())
        .collect();
    let pod_cidrs = if listed.is_empty() {
        spec.str("podCIDR")
            .and_then(|text| cidr::parse_cidr(text).ok())
            .into_iter()
            .collect()
    } else {
        listed
    };
    let labels = doc
        .value
        .get("metadata")
        .and_then(|meta| meta.get("labels"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.as_str(), value.as_str()?)))
        .collect();
    Node {
        doc: *doc,
        addresses,
        pod_cidrs,
        labels,
    }
}

/// Whether `selector` selects an object with `labels`, as Calico evaluates it: `==`, `in`,
/// `has`, `contains`, `starts with` and `ends with` need the label; `!=` and `not in` match an
/// object without it (libcalico-go's selector AST).
pub(crate) fn selects(selector: &Selector, labels: &BTreeMap<&str, &str>) -> bool {
    match selector {
        Selector::All | Selector::Global => true,
        Selector::Has(label) => labels.contains_key(label.as_str()),
        Selector::Compare { label, op, value } => {
            let found = labels.get(label.as_str());
            match (op, found) {
                (CompareOp::Ne, None) => true,
                (_, None) => false,
                (CompareOp::Eq, Some(have)) => have == value,
                (CompareOp::Ne, Some(have)) => have != value,
                (CompareOp::Contains, Some(have)) => have.contains(value.as_str()),
                (CompareOp::StartsWith, Some(have)) => have.starts_with(value.as_str()),
                (CompareOp::EndsWith, Some(have)) => have.ends_with(value.as_str()),
            }
        }
        Selector::InSet {
            label,
            negated,
            values,
        } => match labels.get(label.as_str()) {
            None => *negated,
            Some(have) => values.iter().any(|value| value == have) != *negated,
        },
        Selector::Not(inner) => !selects(inner, labels),
        Selector::And(parts) => parts.iter().all(|part| selects(part, labels)),
        Selector::Or(parts) => parts.iter().any(|part| selects(part, labels)),
    }
}

/// What the checks share, derived once from [`Gathered`].
#[derive(Debug)]
pub(crate) struct Facts<'a> {
    pub(crate) gathered: &'a Gathered<'a>,
    /// What validation knows beyond the documents (`Context::node_mtu`, ...).
    pub(crate) ctx: &'a Context,
    /// Every pool of the run: the IPPool objects (except the operator's copies of Installation
    /// pools), then each Installation's pools (after the operator's defaults).
    pub(crate) pools: Vec<Pool<'a>>,
    /// The Node objects; empty when none were given (see [`Facts::has_nodes`]).
    pub(crate) nodes: Vec<Node<'a>>,
}

impl<'a> Facts<'a> {
    fn new(gathered: &'a Gathered<'a>, ctx: &'a Context) -> Facts<'a> {
        let mut managed: Vec<Pool<'a>> = Vec::new();
        for (doc, defaulted) in &gathered.installations {
            managed.extend(installation_pools(doc.input_idx, defaulted));
        }
        // An IPPool with the name of an Installation pool is the operator's copy of it (the
        // operator reverts edits, `CR8008`): the Installation's entry is the truth.
        let mut pools: Vec<Pool<'a>> = gathered
            .ip_pools
            .iter()
            .filter(|doc| !managed.iter().any(|pool| pool.name == doc.name))
            .filter_map(ip_pool_of)
            // One that overlaps an Installation pool is refused (`CR7001`): not judged again.
            .filter(|pool| {
                !managed
                    .iter()
                    .any(|owned| cidr::overlaps(&owned.net, &pool.net))
            })
            .collect();
        pools.append(&mut managed);
        Facts {
            gathered,
            ctx,
            pools,
            nodes: gathered.nodes.iter().map(node_of).collect(),
        }
    }

    /// The first Node address inside `net`: the Node, the address's type and the address.
    pub(crate) fn node_address_in(&self, net: &IpNet) -> Option<(&Node<'a>, &'a str, IpAddr)> {
        self.nodes.iter().find_map(|node| {
            node.addresses
                .iter()
                .find(|(_, address)| net.contains(address))
                .map(|(kind, address)| (node, *kind, *address))
        })
    }

    /// Whether Node objects were given.
    pub(crate) fn has_nodes(&self) -> bool {
        !self.gathered.nodes.is_empty()
    }

    /// The first Installation, with its defaulted copy.
    pub(crate) fn installation(&self) -> Option<(&Doc<'a>, &Value)> {
        self.gathered
            .installations
            .first()
            .map(|(doc, defaulted)| (doc, defaulted.as_ref()))
    }

    /// `spec.calicoNetwork` of the first Installation after defaults.
    pub(crate) fn calico_network(&self) -> Option<Fields<'_, 'static>> {
        self.installation().map(|(_, defaulted)| {
            Fields::of(
                defaulted
                    .get("spec")
                    .and_then(|spec| spec.get("calicoNetwork")),
                "spec.calicoNetwork",
            )
        })
    }

    /// Whether the Installation runs BIRD (`bgp: Enabled` after defaults); `None` without an
    /// Installation.
    pub(crate) fn installation_bgp(&self) -> Option<bool> {
        self.calico_network()
            .map(|network| network.str("bgp") == Some("Enabled"))
    }

    /// BGPConfiguration `default`, when the run has one.
    pub(crate) fn default_bgp_configuration(&self) -> Option<&Doc<'a>> {
        self.gathered
            .bgp_configurations
            .iter()
            .find(|doc| doc.name == "default")
    }

    /// The node-to-node mesh as BGPConfiguration `default` sets it (on unless it says
    /// `false`); `None` without that object.
    pub(crate) fn mesh(&self) -> Option<bool> {
        self.default_bgp_configuration()
            .map(|config| config.spec().bool("nodeToNodeMeshEnabled") != Some(false))
    }

    /// Whether a BGPPeer names a router by address (`peerIP`): routes may leave the cluster.
    pub(crate) fn peers_with_router(&self) -> bool {
        self.gathered
            .bgp_peers
            .iter()
            .any(|peer| peer.spec().has("peerIP"))
    }

    /// FelixConfiguration `default`, when the run has one.
    pub(crate) fn default_felix_configuration(&self) -> Option<&Doc<'a>> {
        self.gathered
            .felix_configurations
            .iter()
            .find(|doc| doc.name == "default")
    }
}

/// What the checks found, and which of them could not run.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub(crate) sinks: BTreeMap<usize, Sink>,
    pub(crate) unchecked: BTreeSet<Unchecked>,
}

impl Findings {
    /// Report `rule` on the document `input_idx` at `path`.
    pub(crate) fn report(
        &mut self,
        input_idx: usize,
        rule: &Rule,
        path: impl Into<String>,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.sinks
            .entry(input_idx)
            .or_default()
            .report(rule, path, message, hint);
    }

    /// Record that `rule` could not judge the objects of the run without `needs`.
    pub(crate) fn lacks(&mut self, rule: &Rule, needs: ContextDocument) {
        self.unchecked.insert(Unchecked {
            code: rule.code,
            needs,
        });
    }
}

/// Run every operational check over the gathered documents.
pub(crate) fn check(gathered: &Gathered<'_>, ctx: &Context) -> Findings {
    let facts = Facts::new(gathered, ctx);
    let mut out = Findings::default();
    pools::check(&facts, &mut out);
    routing::check(&facts, &mut out);
    bgp::check(&facts, &mut out);
    lb::check(&facts, &mut out);
    dataplane::check(&facts, &mut out);
    ownership::check(&facts, &mut out);
    autodetect::check(&facts, &mut out);
    platform::check(&facts, &mut out);
    out
}
