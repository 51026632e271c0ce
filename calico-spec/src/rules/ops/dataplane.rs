//! `OP05xx`: eBPF, kube-proxy and the dataplane.
//!
//! Facts (tigera-operator v1.42, `pkg/controller/installation/{bpf.go,core_controller.go}`,
//! `pkg/controller/kubeproxy/controller.go`; Felix v3.32): the operator owns `bpfEnabled` and
//! `nftablesMode` of FelixConfiguration `default`; with `kubeProxyManagement: Enabled` it
//! patches DaemonSet `kube-system/kube-proxy` (nodeSelector
//! `operator.tigera.io/disable-kube-proxy: "true"` for BPF, removed otherwise) unless another tool
//! manages it. kube-proxy's mode, health port and cluster CIDR come from its DaemonSet's flags
//! or from `config.conf` in its ConfigMap (a KubeProxyConfiguration).

use ipnet::IpNet;
use serde_json::Value;

use super::{ContextDocument, Doc, Facts, Findings, Pool, PoolSource};
use crate::rules::Fields;
use crate::rules::catalogue as c;
use crate::vocab::cidr::{self, Family};

/// The nodeSelector key the operator adds to kube-proxy's pod template to stop it.
const DISABLE_KUBE_PROXY: &str = "operator.tigera.io/disable-kube-proxy";
/// The annotation the operator writes beside `bpfEnabled`.
const BPF_ANNOTATION: &str = "operator.tigera.io/bpfEnabled";
/// kube-proxy's and Felix's BPF proxy's default health-check port.
const KUBE_PROXY_HEALTHZ_PORT: i64 = 10256;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    let Some(install) = Install::of(facts) else {
        return;
    };
    let kube_proxy = KubeProxy::of(facts);
    bpf_enabled_not_owned(facts, &install, out);
    nftables_mode_overwritten(facts, &install, out);
    kube_proxy_managed_elsewhere(&install, &kube_proxy, out);
    kube_proxy_management_without_daemonset(&install, &kube_proxy, out);
    bpf_beside_kube_proxy(facts, &install, &kube_proxy, out);
    bpf_from_ipvs(&install, &kube_proxy, out);
    nftables_beside_kube_proxy(&install, &kube_proxy, out);
    kube_proxy_left_disabled(&install, &kube_proxy, out);
    dsr_on_eks(facts, &install, out);
    bpf_outside_default(facts, &install, out);
    cluster_cidr_misses_pool(facts, &install, &kube_proxy, out);
    route_tables_of_other_cni(facts, &install, out);
}

/// The first Installation as the operator will have it.
pub(super) struct Install<'f, 'a> {
    pub(super) doc: &'f Doc<'a>,
    pub(super) spec: Fields<'f, 'static>,
    pub(super) network: Fields<'f, 'static>,
}

impl<'f, 'a> Install<'f, 'a> {
    pub(super) fn of(facts: &'f Facts<'a>) -> Option<Install<'f, 'a>> {
        let (doc, defaulted) = facts.installation()?;
        let spec = defaulted.get("spec");
        Some(Install {
            doc,
            spec: Fields::of(spec, "spec"),
            network: Fields::of(
                spec.and_then(|spec| spec.get("calicoNetwork")),
                "spec.calicoNetwork",
            ),
        })
    }

    /// `linuxDataplane` after defaults (`Iptables` when unset).
    pub(super) fn dataplane(&self) -> &'f str {
        self.network.str("linuxDataplane").unwrap_or("Iptables")
    }

    pub(super) fn bpf(&self) -> bool {
        self.dataplane() == "BPF"
    }

    fn kube_proxy_management(&self) -> bool {
        self.network.str("kubeProxyManagement") == Some("Enabled")
    }

    /// `spec.cni.type` after defaults.
    pub(super) fn cni(&self) -> Option<&'f str> {
        self.spec
            .raw("cni")
            .and_then(|cni| cni.get("type"))
            .and_then(Value::as_str)
    }

    pub(super) fn provider(&self) -> &'f str {
        self.spec.str("kubernetesProvider").unwrap_or_default()
    }

    /// Whether the Installation as written lists its pools; without the list the operator
    /// makes them from what it finds (kubeadm's podSubnet, OpenShift's network), which the
    /// run may not show.
    pub(super) fn lists_pools(&self) -> bool {
        self.doc
            .value
            .pointer("/spec/calicoNetwork/ipPools")
            .is_some_and(Value::is_array)
    }

    /// Whether a pool's range is known as the operator will have it: an IPPool object, or
    /// an Installation pool the Installation lists.
    pub(super) fn pool_known(&self, pool: &Pool<'_>) -> bool {
        pool.source == PoolSource::IpPool || self.lists_pools()
    }
}

/// What the kube-proxy context documents say.
#[derive(Debug, Default)]
struct KubeProxy<'f, 'a> {
    daemonset: Option<&'f Doc<'a>>,
    /// The proxy mode (`iptables` when the configuration leaves it empty); `None`: unknown.
    mode: Option<String>,
    /// The health-check port; `None`: unknown.
    healthz_port: Option<i64>,
    /// `clusterCIDR`, when set and used for local-traffic detection.
    cluster_cidrs: Vec<IpNet>,
    /// Whether any kube-proxy document was given.
    given: bool,
}

/// One setting of kube-proxy: a flag of the DaemonSet's container, else the same key of
/// `config.conf` in the ConfigMap.
fn kube_proxy_setting(
    daemonset: Option<&Doc<'_>>,
    configs: &[Doc<'_>],
    flag: &str,
    key: &str,
) -> Option<String> {
    daemonset
        .and_then(|doc| daemonset_flag(doc.value, flag))
        .or_else(|| configs.iter().find_map(|doc| config_key(doc.value, key)))
}

impl<'f, 'a> KubeProxy<'f, 'a> {
    fn of(facts: &'f Facts<'a>) -> KubeProxy<'f, 'a> {
        let daemonset = facts.gathered.kube_proxy_daemonsets.first();
        let configs = &facts.gathered.kube_proxy_configs;
        let given = daemonset.is_some() || !configs.is_empty();
        let setting = |flag: &str, key: &str| kube_proxy_setting(daemonset, configs, flag, key);
        // Without a ConfigMap and without `--config`, kube-proxy runs on its defaults.
        let on_defaults = configs.is_empty()
            && daemonset.is_some_and(|doc| daemonset_flag(doc.value, "--config").is_none());
        let mode = setting("--proxy-mode", "mode")
            .or_else(|| on_defaults.then(String::new))
            .map(|mode| {
                if mode.is_empty() {
                    "iptables".to_owned()
                } else {
                    mode.to_ascii_lowercase()
                }
            });
        let healthz_port = setting("--healthz-bind-address", "healthzBindAddress")
            .or_else(|| on_defaults.then(String::new))
            .map(|address| {
                address
                    .rsplit_once(':')
                    .and_then(|(_, port)| port.parse::<i64>().ok())
                    .unwrap_or(KUBE_PROXY_HEALTHZ_PORT)
            });
        let detect_local = setting("--detect-local-mode", "detectLocalMode").unwrap_or_default();
        let cluster_cidrs = if detect_local.is_empty() || detect_local == "ClusterCIDR" {
            setting("--cluster-cidr", "clusterCIDR")
                .unwrap_or_default()
                .split(',')
                .filter_map(|part| cidr::parse_cidr(part.trim()).ok())
                .map(|net| net.trunc())
                .collect()
        } else {
            Vec::new()
        };
        KubeProxy {
            daemonset,
            mode,
            healthz_port,
            cluster_cidrs,
            given,
        }
    }

    /// The DaemonSet's pod-template nodeSelector.
    fn node_selector(&self) -> Option<&'f serde_json::Map<String, Value>> {
        self.daemonset
            .and_then(|doc| doc.value.pointer("/spec/template/spec/nodeSelector"))
            .and_then(Value::as_object)
    }

    /// Whether the operator's disabling nodeSelector is on the DaemonSet.
    fn disabled_by_operator(&self) -> bool {
        self.node_selector()
            .and_then(|selector| selector.get(DISABLE_KUBE_PROXY))
            .and_then(Value::as_str)
            == Some("true")
    }

    /// Whether the DaemonSet schedules kube-proxy on every Linux node: its nodeSelector has
    /// only OS and architecture keys and it has no node affinity. `None` without a DaemonSet.
    fn running(&self) -> Option<bool> {
        let doc = self.daemonset?;
        let plain_keys = [
            "kubernetes.io/os",
            "beta.kubernetes.io/os",
            "kubernetes.io/arch",
            "beta.kubernetes.io/arch",
        ];
        let selector_plain = self.node_selector().is_none_or(|selector| {
            selector
                .keys()
                .all(|key| plain_keys.contains(&key.as_str()))
        });
        let affinity = doc
            .value
            .pointer("/spec/template/spec/affinity/nodeAffinity")
            .is_some_and(|value| !value.is_null());
        Some(selector_plain && !affinity)
    }
}

/// The value of `--flag=value` or `--flag value` in the DaemonSet's first container.
fn daemonset_flag(value: &Value, flag: &str) -> Option<String> {
    let container = value.pointer("/spec/template/spec/containers/0")?;
    let words: Vec<&str> = ["command", "args"]
        .iter()
        .filter_map(|key| container.get(key).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    words.iter().enumerate().find_map(|(at, word)| {
        if let Some(rest) = word.strip_prefix(flag) {
            if let Some(value) = rest.strip_prefix('=') {
                return Some(value.to_owned());
            }
            if rest.is_empty() {
                return words.get(at + 1).map(|next| (*next).to_owned());
            }
        }
        None
    })
}

/// The value of top-level `key:` in a KubeProxyConfiguration held in a ConfigMap's data.
fn config_key(value: &Value, key: &str) -> Option<String> {
    let data = value.get("data").and_then(Value::as_object)?;
    data.values().filter_map(Value::as_str).find_map(|text| {
        text.lines().find_map(|line| {
            let rest = line.strip_prefix(key)?.strip_prefix(':')?;
            let rest = rest.split(" #").next().unwrap_or_default().trim();
            Some(rest.trim_matches(|ch| ch == '"' || ch == '\'').to_owned())
        })
    })
}

/// The `default` FelixConfiguration's spec and its document.
fn default_felix<'f, 'a>(facts: &'f Facts<'a>) -> Option<(&'f Doc<'a>, Fields<'f, 'static>)> {
    facts
        .default_felix_configuration()
        .map(|doc| (doc, doc.spec()))
}

/// Go's `strconv.ParseBool`.
fn go_parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// `OP0501`: `bpfEnabled` in FelixConfiguration `default` without the operator's annotation.
fn bpf_enabled_not_owned(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    let Some((felix, spec)) = default_felix(facts) else {
        return;
    };
    let Some(written) = spec.bool("bpfEnabled") else {
        return;
    };
    let bpf = install.bpf();
    // The operator writes the field only when it disagrees with the dataplane, or (BPF) on a
    // fresh install and after the rollout; off BPF a written `false` is what it wants anyway.
    if !bpf && !written {
        return;
    }
    let annotation = felix
        .value
        .pointer("/metadata/annotations")
        .and_then(|annotations| annotations.get(BPF_ANNOTATION))
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty());
    let why = match annotation.map(go_parse_bool) {
        Some(Some(value)) if value == written => return,
        Some(Some(value)) => format!("its annotation `{BPF_ANNOTATION}` says `{value}`"),
        Some(None) => format!("its annotation `{BPF_ANNOTATION}` is not a boolean Go can read"),
        None => format!("it lacks the annotation `{BPF_ANNOTATION}` the operator writes with it"),
    };
    let when = if bpf {
        "with `linuxDataplane: BPF` the operator writes `bpfEnabled: true` itself (on a fresh install before it renders anything, later after the BPF rollout)"
    } else {
        "with a dataplane other than BPF the operator writes `bpfEnabled: false`"
    };
    out.report(
        felix.input_idx,
        &c::OP_BPF_ENABLED_NOT_OWNED,
        spec.at("bpfEnabled"),
        format!(
            "FelixConfiguration `default` sets `bpfEnabled: {written}`, and {why}; {when}, and refuses to overwrite a value someone else set, so the Installation does not reconcile"
        ),
        Some(format!(
            "remove `bpfEnabled` and choose the dataplane with the Installation's `spec.calicoNetwork.linuxDataplane` (now `{}`)",
            install.dataplane()
        )),
    );
}

/// `OP0502`: `nftablesMode` in FelixConfiguration `default` that the operator overwrites.
fn nftables_mode_overwritten(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    let Some((felix, spec)) = default_felix(facts) else {
        return;
    };
    let Some(written) = spec.str("nftablesMode") else {
        return;
    };
    // v1.40 writes Disabled for BPF and Enabled for Nftables, v1.42 Enabled and Auto; both
    // write Disabled for the other dataplanes. Only what every release overwrites is reported.
    let (overwritten, operator_value) = match install.dataplane() {
        "BPF" => return,
        "Nftables" => (written == "Disabled", "`Enabled` (v3.31) or `Auto` (v3.32)"),
        _ => (written != "Disabled", "`Disabled`"),
    };
    if !overwritten {
        return;
    }
    out.report(
        felix.input_idx,
        &c::OP_NFTABLES_MODE_OVERWRITTEN,
        spec.at("nftablesMode"),
        format!(
            "FelixConfiguration `default` sets `nftablesMode: {written}`, but with `linuxDataplane: {}` the operator writes {operator_value} on every reconcile",
            install.dataplane()
        ),
        Some(
            "remove `nftablesMode`; choose nftables with `spec.calicoNetwork.linuxDataplane: Nftables`"
                .into(),
        ),
    );
}

/// `OP0503`: `kubeProxyManagement: Enabled` on a kube-proxy DaemonSet another tool manages.
fn kube_proxy_managed_elsewhere(
    install: &Install<'_, '_>,
    kube_proxy: &KubeProxy<'_, '_>,
    out: &mut Findings,
) {
    if !install.kube_proxy_management() {
        return;
    }
    let Some(daemonset) = kube_proxy.daemonset else {
        out.lacks(
            &c::OP_KUBE_PROXY_MANAGED_ELSEWHERE,
            ContextDocument::KubeProxy,
        );
        return;
    };
    let metadata = |kind: &str, key: &str| {
        daemonset
            .value
            .pointer(&format!("/metadata/{kind}"))
            .and_then(|map| map.get(key))
            .and_then(Value::as_str)
            .map(|value| {
                let what = if kind == "labels" {
                    "label"
                } else {
                    "annotation"
                };
                format!("{what} `{key}: {value}`")
            })
    };
    let Some(marker) = metadata("labels", "app.kubernetes.io/managed-by")
        .or_else(|| metadata("labels", "addonmanager.kubernetes.io/mode"))
        .or_else(|| metadata("annotations", "argocd.argoproj.io/tracking-id"))
    else {
        return;
    };
    out.report(
        install.doc.input_idx,
        &c::OP_KUBE_PROXY_MANAGED_ELSEWHERE,
        install.network.at("kubeProxyManagement"),
        format!(
            "`kubeProxyManagement: Enabled`, but DaemonSet kube-system/kube-proxy carries the {marker}: the operator refuses to patch a DaemonSet another tool manages and its kube-proxy status goes Degraded"
        ),
        Some("disable kube-proxy through the tool that owns it and set `kubeProxyManagement: Disabled`".into()),
    );
}

/// `OP0504`: `kubeProxyManagement: Enabled` on a platform that has no kube-proxy DaemonSet.
fn kube_proxy_management_without_daemonset(
    install: &Install<'_, '_>,
    kube_proxy: &KubeProxy<'_, '_>,
    out: &mut Findings,
) {
    if !install.kube_proxy_management() || kube_proxy.daemonset.is_some() {
        return;
    }
    let (platform, instead) = match install.provider() {
        "RKE2" => (
            "RKE2 runs kube-proxy as a static pod",
            "set `disable-kube-proxy: true` in RKE2's config",
        ),
        "OpenShift" => (
            "OpenShift runs kube-proxy in namespace openshift-kube-proxy",
            "set `deployKubeProxy: false` in the cluster Network operator config",
        ),
        _ => return,
    };
    out.report(
        install.doc.input_idx,
        &c::OP_KUBE_PROXY_MANAGEMENT_NO_DAEMONSET,
        install.network.at("kubeProxyManagement"),
        format!(
            "`kubeProxyManagement: Enabled` makes the operator read DaemonSet kube-system/kube-proxy, and {platform}: there is none, so its kube-proxy status goes Degraded and kube-proxy stays"
        ),
        Some(format!("{instead}, and leave `kubeProxyManagement` Disabled")),
    );
}

/// `OP0505` and `OP0506`: the BPF dataplane while kube-proxy keeps running.
fn bpf_beside_kube_proxy(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    kube_proxy: &KubeProxy<'_, '_>,
    out: &mut Findings,
) {
    if !install.bpf() || install.kube_proxy_management() {
        return;
    }
    let Some(running) = kube_proxy.running() else {
        out.lacks(&c::OP_BPF_BESIDE_KUBE_PROXY, ContextDocument::KubeProxy);
        out.lacks(
            &c::OP_BPF_KUBE_PROXY_HEALTHZ_PORT,
            ContextDocument::KubeProxy,
        );
        return;
    };
    if !running || kube_proxy.disabled_by_operator() {
        return;
    }
    let felix = default_felix(facts);
    let cleanup = felix.and_then(|(_, spec)| spec.bool("bpfKubeProxyIptablesCleanupEnabled"));
    if cleanup != Some(false) {
        out.report(
            install.doc.input_idx,
            &c::OP_BPF_BESIDE_KUBE_PROXY,
            install.network.at("linuxDataplane"),
            "`linuxDataplane: BPF`, and DaemonSet kube-system/kube-proxy still runs on every node while `kubeProxyManagement` is not Enabled: Felix removes kube-proxy's iptables rules and kube-proxy writes them back",
            Some("set `kubeProxyManagement: Enabled`, or stop kube-proxy yourself (a nodeSelector no node matches), or keep it deliberately with `bpfKubeProxyIptablesCleanupEnabled: false`".into()),
        );
        return;
    }
    let felix_port = felix
        .and_then(|(_, spec)| spec.int("bpfKubeProxyHealthzPort"))
        .unwrap_or(KUBE_PROXY_HEALTHZ_PORT);
    if kube_proxy.healthz_port != Some(felix_port) {
        if kube_proxy.healthz_port.is_none() {
            out.lacks(
                &c::OP_BPF_KUBE_PROXY_HEALTHZ_PORT,
                ContextDocument::KubeProxy,
            );
        }
        return;
    }
    let (felix_doc, felix_spec) = match felix {
        Some(found) => found,
        None => return,
    };
    out.report(
        felix_doc.input_idx,
        &c::OP_BPF_KUBE_PROXY_HEALTHZ_PORT,
        felix_spec.at("bpfKubeProxyIptablesCleanupEnabled"),
        format!(
            "kube-proxy keeps running beside the BPF dataplane, and both serve health checks on port {felix_port}: Felix's BPF proxy cannot bind it and keeps retrying"
        ),
        Some("set `bpfKubeProxyHealthzPort` to a port nothing else uses".into()),
    );
}

/// `OP0507`: the BPF dataplane on a cluster whose kube-proxy runs in IPVS mode.
fn bpf_from_ipvs(install: &Install<'_, '_>, kube_proxy: &KubeProxy<'_, '_>, out: &mut Findings) {
    if !install.bpf() {
        return;
    }
    let Some(mode) = &kube_proxy.mode else {
        out.lacks(&c::OP_BPF_FROM_IPVS, ContextDocument::KubeProxy);
        return;
    };
    if mode != "ipvs" {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_BPF_FROM_IPVS,
        install.network.at("linuxDataplane"),
        "`linuxDataplane: BPF` while kube-proxy runs in IPVS mode: its `kube-ipvs0` device holds every Service address, and moving from IPVS straight to eBPF is not supported (nodes have lost all connectivity until rebooted)",
        Some("switch kube-proxy to iptables mode and let the nodes drop `kube-ipvs0` (a reboot) before you enable BPF".into()),
    );
}

/// `OP0508` and `OP0513`: the nftables or iptables dataplane and kube-proxy in the other mode.
fn nftables_beside_kube_proxy(
    install: &Install<'_, '_>,
    kube_proxy: &KubeProxy<'_, '_>,
    out: &mut Findings,
) {
    let dataplane = install.dataplane();
    let rule = match dataplane {
        "Nftables" => &c::OP_NFTABLES_WITHOUT_KUBE_PROXY_NFTABLES,
        "Iptables" => &c::OP_KUBE_PROXY_NFTABLES_BESIDE_IPTABLES,
        _ => return,
    };
    let Some(mode) = &kube_proxy.mode else {
        if dataplane == "Nftables" {
            out.lacks(rule, ContextDocument::KubeProxy);
        }
        return;
    };
    if kube_proxy.running() == Some(false) {
        return;
    }
    let message = match (dataplane, mode.as_str()) {
        ("Nftables", "nftables") | ("Iptables", "iptables" | "ipvs") => return,
        ("Nftables", _) => format!(
            "`linuxDataplane: Nftables` while kube-proxy runs in {mode} mode: Calico v3.32 follows kube-proxy and stays on iptables, v3.31 runs nftables beside kube-proxy's {mode} rules; the nftables dataplane needs kube-proxy in nftables mode"
        ),
        (_, _) => format!(
            "kube-proxy runs in {mode} mode while `linuxDataplane: Iptables` makes the operator set `nftablesMode: Disabled`: Felix programs iptables beside kube-proxy's nftables rules"
        ),
    };
    let hint = if dataplane == "Nftables" {
        "set `mode: nftables` in kube-proxy's KubeProxyConfiguration"
    } else {
        "set `linuxDataplane: Nftables`, or put kube-proxy back in iptables mode"
    };
    out.report(
        install.doc.input_idx,
        rule,
        install.network.at("linuxDataplane"),
        message,
        Some(hint.into()),
    );
}

/// `OP0509`: kube-proxy still carries the operator's disabling nodeSelector off BPF.
fn kube_proxy_left_disabled(
    install: &Install<'_, '_>,
    kube_proxy: &KubeProxy<'_, '_>,
    out: &mut Findings,
) {
    if install.bpf() || install.kube_proxy_management() {
        return;
    }
    if kube_proxy.daemonset.is_none() {
        out.lacks(&c::OP_KUBE_PROXY_LEFT_DISABLED, ContextDocument::KubeProxy);
        return;
    }
    if !kube_proxy.disabled_by_operator() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_KUBE_PROXY_LEFT_DISABLED,
        install.network.at("linuxDataplane"),
        format!(
            "`linuxDataplane: {}`, but DaemonSet kube-system/kube-proxy still carries the operator's nodeSelector `{DISABLE_KUBE_PROXY}: \"true\"`, and with `kubeProxyManagement` not Enabled nothing removes it: no kube-proxy serves Services once Felix leaves BPF",
            install.dataplane()
        ),
        Some("keep `kubeProxyManagement: Enabled` while switching back, or remove that nodeSelector from the DaemonSet first".into()),
    );
}

/// `OP0510`: eBPF direct server return on EKS.
fn dsr_on_eks(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    if !install.bpf() || install.provider() != "EKS" {
        return;
    }
    let Some((felix, spec)) = default_felix(facts) else {
        return;
    };
    if !spec
        .str("bpfExternalServiceMode")
        .is_some_and(|mode| mode.eq_ignore_ascii_case("dsr"))
    {
        return;
    }
    out.report(
        felix.input_idx,
        &c::OP_DSR_ON_EKS,
        spec.at("bpfExternalServiceMode"),
        "`bpfExternalServiceMode: DSR` on EKS: the backend's node answers external clients with the Service address, and AWS drops such packets unless the Source/Dest check is off on every node",
        Some("disable the Source/Dest check on the nodes' network interfaces, or use `Tunnel`".into()),
    );
}

/// `OP0511`: `bpfEnabled: true` in a FelixConfiguration other than `default` off BPF.
fn bpf_outside_default(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    if install.bpf() {
        return;
    }
    for felix in facts
        .gathered
        .felix_configurations
        .iter()
        .filter(|doc| doc.name != "default")
    {
        let spec = felix.spec();
        if spec.bool("bpfEnabled") != Some(true) {
            continue;
        }
        out.report(
            felix.input_idx,
            &c::OP_BPF_OUTSIDE_DEFAULT,
            spec.at("bpfEnabled"),
            format!(
                "FelixConfiguration `{}` turns BPF on for its nodes while the Installation's dataplane is `{}`: the operator renders calico-node without BPF's mounts and leaves kube-proxy alone, so those nodes run a BPF dataplane nothing prepared",
                felix.name,
                install.dataplane()
            ),
            Some("switch the whole cluster with `spec.calicoNetwork.linuxDataplane: BPF` instead".into()),
        );
    }
}

/// `OP0512`: a pod pool outside kube-proxy's `clusterCIDR`.
fn cluster_cidr_misses_pool(
    facts: &Facts<'_>,
    install: &Install<'_, '_>,
    kube_proxy: &KubeProxy<'_, '_>,
    out: &mut Findings,
) {
    if install.bpf() || kube_proxy.running() == Some(false) {
        return;
    }
    let pod_pools = facts
        .pools
        .iter()
        .filter(|pool| pool.pod_pool() && install.pool_known(pool));
    if !kube_proxy.given {
        if pod_pools.clone().next().is_some() {
            out.lacks(&c::OP_KUBE_PROXY_CLUSTER_CIDR, ContextDocument::KubeProxy);
        }
        return;
    }
    for pool in pod_pools {
        let family = pool.family();
        let same_family: Vec<&IpNet> = kube_proxy
            .cluster_cidrs
            .iter()
            .filter(|net| Family::of_net(net) == family)
            .collect();
        if same_family.is_empty() || same_family.iter().any(|net| net.contains(&pool.net)) {
            continue;
        }
        let listed: Vec<String> = same_family.iter().map(ToString::to_string).collect();
        out.report(
            pool.input_idx,
            &c::OP_KUBE_PROXY_CLUSTER_CIDR,
            pool.at("cidr", "cidr"),
            format!(
                "pod pool {} is outside kube-proxy's clusterCIDR ({}): kube-proxy masquerades traffic from it to Services, so backends see the node's address and policies that select the client pod stop matching",
                pool.describe(),
                listed.join(", ")
            ),
            Some("make kube-proxy's `clusterCIDR` (kubeadm's podSubnet) cover every pod pool".into()),
        );
    }
}

/// The routing tables another CNI plugin programs beside Felix: the AWS VPC CNI's per-interface
/// tables (device number + 1, up to 15 interfaces) and the GKE CNI's tables below 10 (the ranges
/// the operator keeps Felix out of, `setDefaultsOnFelixConfiguration`).
fn other_cni_tables(cni: &str) -> Option<(i64, i64, &'static str)> {
    match cni {
        "AmazonVPC" => Some((2, 16, "the AWS VPC CNI")),
        "GKE" => Some((1, 9, "the GKE CNI")),
        _ => None,
    }
}

/// `OP0514`: FelixConfiguration `default` gives Felix the routing tables of the other CNI.
fn route_tables_of_other_cni(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    let Some((low, high, plugin)) = install.cni().and_then(other_cni_tables) else {
        return;
    };
    let Some(felix) = facts.default_felix_configuration() else {
        return;
    };
    let spec = felix.spec();
    let bounds = |range: &Value| {
        Some((
            range.get("min").and_then(Value::as_i64)?,
            range.get("max").and_then(Value::as_i64)?,
        ))
    };
    let mut ranges: Vec<(String, (i64, i64))> = Vec::new();
    if let Some(range) = spec.raw("routeTableRange").and_then(bounds) {
        ranges.push((spec.at("routeTableRange"), range));
    }
    let list_path = spec.at("routeTableRanges");
    for (path, range) in crate::rules::items(spec.list("routeTableRanges"), &list_path) {
        if let Some(range) = bounds(range) {
            ranges.push((path, range));
        }
    }
    for (path, (min, max)) in ranges {
        if max < low || min > high {
            continue;
        }
        out.report(
            felix.input_idx,
            &c::OP_ROUTE_TABLES_OF_OTHER_CNI,
            path,
            format!(
                "FelixConfiguration `default` gives Felix routing tables {min}-{max}, which include {plugin}'s tables {low}-{high}: Felix removes the routes it finds there, and pods on the other plugin's interfaces lose connectivity"
            ),
            Some("remove the range (the operator then sets one clear of the other plugin) or pick one outside its tables".into()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_config_keys() {
        let daemonset = serde_json::json!({"spec": {"template": {"spec": {"containers": [
            {"command": ["kube-proxy", "--proxy-mode=ipvs", "--cluster-cidr", "10.0.0.0/16"]}
        ]}}}});
        assert_eq!(
            daemonset_flag(&daemonset, "--proxy-mode").as_deref(),
            Some("ipvs")
        );
        assert_eq!(
            daemonset_flag(&daemonset, "--cluster-cidr").as_deref(),
            Some("10.0.0.0/16")
        );
        assert_eq!(daemonset_flag(&daemonset, "--config"), None);
        let config = serde_json::json!({"data": {"config.conf":
            "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nclusterCIDR: \"10.244.0.0/16\"\nipvs:\n  scheduler: \"\"\nmode: \"\" # default\n"}});
        assert_eq!(config_key(&config, "mode").as_deref(), Some(""));
        assert_eq!(
            config_key(&config, "clusterCIDR").as_deref(),
            Some("10.244.0.0/16")
        );
        assert_eq!(config_key(&config, "scheduler"), None);
    }

    #[test]
    fn go_booleans() {
        assert_eq!(go_parse_bool("True"), Some(true));
        assert_eq!(go_parse_bool("0"), Some(false));
        assert_eq!(go_parse_bool("yes"), None);
    }
}
