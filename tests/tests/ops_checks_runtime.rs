//! The operational checks `OP05xx`-`OP08xx` (eBPF, kube-proxy and the dataplane; operator
//! ownership; node address autodetection; platform): for each check a trapped bundle that must
//! produce its code and a fixed twin that must not. The bundles are built from the facts each
//! catalogue entry cites (the operator's and Felix's behaviour), not from the checks' code.

use calico_spec::rules;

use crate::validate_rules::codes;

fn indent(block: &str, by: usize) -> String {
    block
        .lines()
        .map(|line| format!("{}{line}\n", " ".repeat(by)))
        .collect()
}

/// An Installation with `spec.calicoNetwork` set to `network` (and `extra` spec fields).
fn installation_with(network: &str, extra: &str) -> String {
    format!(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n{}  calicoNetwork:\n{}",
        indent(extra, 2),
        indent(network, 4)
    )
}

fn installation(network: &str) -> String {
    installation_with(network, "")
}

const POOL_V4: &str = "ipPools:\n- cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n";

/// A BPF Installation with one IPv4 pool and `more` network fields.
fn bpf(more: &str) -> String {
    installation(&format!(
        "linuxDataplane: BPF\nbpfNetworkBootstrap: Enabled\n{POOL_V4}{more}"
    ))
}

/// An Installation with one IPv4 pool and this IPv4 autodetection method (one line).
fn detect_v4(method: &str) -> String {
    installation(&format!(
        "{POOL_V4}nodeAddressAutodetectionV4:\n  {method}\n"
    ))
}

fn felix(name: &str, annotations: &str, spec: &str) -> String {
    let metadata = if annotations.is_empty() {
        String::new()
    } else {
        format!("  annotations:\n{}", indent(annotations, 4))
    };
    format!(
        "apiVersion: projectcalico.org/v3\nkind: FelixConfiguration\nmetadata:\n  name: {name}\n{metadata}spec:\n{}",
        indent(spec, 2)
    )
}

fn bgp_configuration(spec: &str) -> String {
    format!(
        "apiVersion: projectcalico.org/v3\nkind: BGPConfiguration\nmetadata:\n  name: default\nspec:\n{}",
        indent(spec, 2)
    )
}

/// DaemonSet kube-system/kube-proxy with `metadata` lines (labels, annotations), a pod
/// nodeSelector and the container's command.
fn kube_proxy_ds(metadata: &str, node_selector: &str, command: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\n{}spec:\n  selector:\n    matchLabels:\n      k8s-app: kube-proxy\n  template:\n    metadata:\n      labels:\n        k8s-app: kube-proxy\n    spec:\n      nodeSelector:\n{}      containers:\n      - name: kube-proxy\n        image: registry.k8s.io/kube-proxy:v1.34.2\n        command: [{command}]\n",
        indent(metadata, 2),
        indent(node_selector, 8)
    )
}

/// kubeadm's kube-proxy: configured by its ConfigMap.
fn kubeadm_kube_proxy_ds(node_selector: &str) -> String {
    kube_proxy_ds(
        "labels:\n  k8s-app: kube-proxy",
        node_selector,
        "/usr/local/bin/kube-proxy, --config=/var/lib/kube-proxy/config.conf, --hostname-override=$(NODE_NAME)",
    )
}

const LINUX: &str = "kubernetes.io/os: linux";

/// ConfigMap kube-system/kube-proxy whose `config.conf` has the given top-level lines.
fn kube_proxy_config(lines: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\ndata:\n  config.conf: |-\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n{}",
        indent(lines, 4)
    )
}

/// A Node with `status.addresses` (`type=address` pairs), Calico's IPv4 annotation when given,
/// and `nodeInfo`.
fn node(name: &str, addresses: &[&str], calico_v4: &str, kernel: &str, arch: &str) -> String {
    let annotations = if calico_v4.is_empty() {
        String::new()
    } else {
        format!("  annotations:\n    projectcalico.org/IPv4Address: {calico_v4}\n")
    };
    let addresses: String = addresses
        .iter()
        .map(|pair| {
            let (kind, address) = pair.split_once('=').unwrap();
            format!("  - type: {kind}\n    address: \"{address}\"\n")
        })
        .collect();
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n{annotations}status:\n  addresses:\n{addresses}  nodeInfo:\n    kernelVersion: {kernel}\n    architecture: {arch}\n    operatingSystem: linux\n"
    )
}

fn plain_node(name: &str, internal: &str) -> String {
    node(
        name,
        &[&format!("InternalIP={internal}")],
        "",
        "5.15.0-91-generic",
        "amd64",
    )
}

fn bundle(documents: &[&str]) -> String {
    documents.join("---\n")
}

/// A Node with an InternalIP, these annotation lines and this OS image.
fn node_of_os(name: &str, annotations: &str, os_image: &str) -> String {
    let annotations = if annotations.is_empty() {
        String::new()
    } else {
        format!("  annotations:\n{}", indent(annotations, 4))
    };
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n{annotations}status:\n  addresses:\n  - type: InternalIP\n    address: \"10.0.0.31\"\n  nodeInfo:\n    kernelVersion: 6.12.6-talos\n    architecture: amd64\n    operatingSystem: linux\n    osImage: {os_image}\n"
    )
}

/// An IPPool `pods` on 172.20.0.0/16 (the Installation's pool) with these spec lines.
fn pods_pool(labels: &str, spec: &str) -> String {
    let labels = if labels.is_empty() {
        String::new()
    } else {
        format!("  labels:\n{}", indent(labels, 4))
    };
    format!(
        "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: pods\n{labels}spec:\n  cidr: 172.20.0.0/16\n{}",
        indent(spec, 2)
    )
}

struct Row {
    code: &'static str,
    what: &'static str,
    trapped: String,
    fixed: String,
}

fn row(code: &'static str, what: &'static str, trapped: Vec<String>, fixed: Vec<String>) -> Row {
    let join = |docs: Vec<String>| bundle(&docs.iter().map(String::as_str).collect::<Vec<_>>());
    Row {
        code,
        what,
        trapped: join(trapped),
        fixed: join(fixed),
    }
}

fn rows() -> Vec<Row> {
    let iptables = installation(POOL_V4);
    let ds_running = kubeadm_kube_proxy_ds(LINUX);
    let ds_stopped = kubeadm_kube_proxy_ds("non-calico: \"true\"");
    let ds_operator_stopped = kubeadm_kube_proxy_ds(
        "kubernetes.io/os: linux\noperator.tigera.io/disable-kube-proxy: \"true\"",
    );
    let managed = "kubeProxyManagement: Enabled\n";
    let nftables = installation(&format!("linuxDataplane: Nftables\n{POOL_V4}"));
    let aws_vpc = "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  kubernetesProvider: EKS\n  cni:\n    type: AmazonVPC\n".to_owned();
    let gke = "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  kubernetesProvider: GKE\n  cni:\n    type: GKE\n".to_owned();
    let iptables_named =
        installation("ipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n");
    vec![
        // OP0501: the operator writes false off BPF and refuses a true it did not write.
        row(
            "OP0501",
            "Iptables with a hand-written bpfEnabled: true",
            vec![iptables.clone(), felix("default", "", "bpfEnabled: true")],
            vec![iptables.clone(), felix("default", "", "bpfEnabled: false")],
        ),
        row(
            "OP0501",
            "BPF with bpfEnabled written without the operator's annotation",
            vec![bpf(""), felix("default", "", "bpfEnabled: true")],
            vec![
                bpf(""),
                felix("default", "operator.tigera.io/bpfEnabled: \"true\"", "bpfEnabled: true"),
            ],
        ),
        row(
            "OP0501",
            "an annotation Go's ParseBool cannot read",
            vec![
                bpf(""),
                felix("default", "operator.tigera.io/bpfEnabled: \"yes\"", "bpfEnabled: true"),
            ],
            vec![bpf(""), felix("default", "", "logSeverityScreen: Info")],
        ),
        // OP0502: Disabled for Iptables in every release; not Disabled for Nftables.
        row(
            "OP0502",
            "nftablesMode Enabled beside the iptables dataplane",
            vec![iptables.clone(), felix("default", "", "nftablesMode: Enabled")],
            vec![iptables.clone(), felix("default", "", "nftablesMode: Disabled")],
        ),
        row(
            "OP0502",
            "nftablesMode Disabled beside the nftables dataplane",
            vec![
                nftables.clone(),
                felix("default", "", "nftablesMode: Disabled"),
            ],
            vec![
                nftables.clone(),
                felix("default", "", "nftablesMode: Auto"),
            ],
        ),
        // OP0503: the three markers validateDaemonSetUnmanaged refuses.
        row(
            "OP0503",
            "kube-proxy under the addon manager",
            vec![
                bpf(managed),
                kube_proxy_ds(
                    "labels:\n  addonmanager.kubernetes.io/mode: Reconcile",
                    LINUX,
                    "kube-proxy, --config=/var/lib/kube-proxy/config.conf",
                ),
            ],
            vec![bpf(managed), ds_running.clone()],
        ),
        row(
            "OP0503",
            "kube-proxy tracked by Argo CD",
            vec![
                bpf(managed),
                kube_proxy_ds(
                    "annotations:\n  argocd.argoproj.io/tracking-id: infra:apps/DaemonSet:kube-system/kube-proxy",
                    LINUX,
                    "kube-proxy, --config=/var/lib/kube-proxy/config.conf",
                ),
            ],
            vec![
                bpf(""),
                kube_proxy_ds(
                    "annotations:\n  argocd.argoproj.io/tracking-id: infra:apps/DaemonSet:kube-system/kube-proxy",
                    "non-calico: \"true\"",
                    "kube-proxy, --config=/var/lib/kube-proxy/config.conf",
                ),
            ],
        ),
        row(
            "OP0503",
            "kube-proxy from a Helm chart",
            vec![
                installation(&format!("{POOL_V4}{managed}")),
                kube_proxy_ds(
                    "labels:\n  app.kubernetes.io/managed-by: Helm",
                    LINUX,
                    "kube-proxy, --config=/var/lib/kube-proxy/config.conf",
                ),
            ],
            vec![installation(&format!("{POOL_V4}{managed}")), ds_running.clone()],
        ),
        // OP0504: RKE2 and OpenShift have no kube-system/kube-proxy DaemonSet.
        row(
            "OP0504",
            "kubeProxyManagement on RKE2",
            vec![installation_with(
                &format!("linuxDataplane: BPF\n{POOL_V4}{managed}"),
                "kubernetesProvider: RKE2",
            )],
            vec![installation_with(
                &format!("linuxDataplane: BPF\n{POOL_V4}"),
                "kubernetesProvider: RKE2",
            )],
        ),
        row(
            "OP0504",
            "kubeProxyManagement on OpenShift",
            vec![installation_with(
                &format!("{POOL_V4}{managed}"),
                "kubernetesProvider: OpenShift",
            )],
            vec![installation_with(
                &format!("{POOL_V4}{managed}"),
                "kubernetesProvider: EKS",
            )],
        ),
        // OP0505: kube-proxy still scheduled everywhere under BPF.
        row(
            "OP0505",
            "BPF with kube-proxy running and not managed",
            vec![bpf(""), ds_running.clone()],
            vec![bpf(""), ds_stopped.clone()],
        ),
        row(
            "OP0505",
            "the same, fixed by letting the operator manage kube-proxy",
            vec![bpf(""), ds_running.clone(), kube_proxy_config("mode: \"\"")],
            vec![bpf(managed), ds_running.clone(), kube_proxy_config("mode: \"\"")],
        ),
        // OP0506: kube-proxy kept on purpose, both on 10256.
        row(
            "OP0506",
            "kept kube-proxy on the BPF proxy's health port",
            vec![
                bpf(""),
                ds_running.clone(),
                kube_proxy_config("healthzBindAddress: \"\"\nmode: \"\""),
                felix("default", "", "bpfKubeProxyIptablesCleanupEnabled: false"),
            ],
            vec![
                bpf(""),
                ds_running.clone(),
                kube_proxy_config("healthzBindAddress: \"\"\nmode: \"\""),
                felix(
                    "default",
                    "",
                    "bpfKubeProxyIptablesCleanupEnabled: false\nbpfKubeProxyHealthzPort: 10266",
                ),
            ],
        ),
        row(
            "OP0506",
            "kube-proxy's port moved instead",
            vec![
                bpf(""),
                kube_proxy_ds("", LINUX, "kube-proxy, --healthz-bind-address=0.0.0.0:10256"),
                felix("default", "", "bpfKubeProxyIptablesCleanupEnabled: false"),
            ],
            vec![
                bpf(""),
                kube_proxy_ds("", LINUX, "kube-proxy, --healthz-bind-address=0.0.0.0:10257"),
                felix("default", "", "bpfKubeProxyIptablesCleanupEnabled: false"),
            ],
        ),
        // OP0507: IPVS, from the ConfigMap or the flag.
        row(
            "OP0507",
            "BPF on a cluster whose kube-proxy is in IPVS mode",
            vec![bpf(managed), ds_running.clone(), kube_proxy_config("mode: ipvs")],
            vec![bpf(managed), ds_running.clone(), kube_proxy_config("mode: iptables")],
        ),
        row(
            "OP0507",
            "IPVS from the DaemonSet's flag",
            vec![
                bpf(managed),
                kube_proxy_ds("", LINUX, "kube-proxy, --proxy-mode, ipvs"),
            ],
            vec![bpf(managed), kube_proxy_ds("", LINUX, "kube-proxy")],
        ),
        // OP0508: the nftables dataplane needs kube-proxy in nftables mode.
        row(
            "OP0508",
            "nftables dataplane beside kube-proxy's default iptables mode",
            vec![
                nftables.clone(),
                ds_running.clone(),
                kube_proxy_config("mode: \"\""),
            ],
            vec![
                nftables.clone(),
                ds_running.clone(),
                kube_proxy_config("mode: nftables"),
            ],
        ),
        // OP0509: the operator's selector left behind after leaving BPF.
        row(
            "OP0509",
            "iptables dataplane with kube-proxy still disabled by the operator",
            vec![iptables.clone(), ds_operator_stopped.clone()],
            vec![installation(&format!("{POOL_V4}{managed}")), ds_operator_stopped.clone()],
        ),
        // OP0510: DSR on EKS.
        row(
            "OP0510",
            "DSR on EKS",
            vec![
                installation_with(
                    "linuxDataplane: BPF\nipPools:\n- cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n",
                    "kubernetesProvider: EKS",
                ),
                felix("default", "", "bpfExternalServiceMode: DSR"),
            ],
            vec![
                installation_with(
                    "linuxDataplane: BPF\nipPools:\n- cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n",
                    "kubernetesProvider: EKS",
                ),
                felix("default", "", "bpfExternalServiceMode: Tunnel"),
            ],
        ),
        // OP0511: BPF for some nodes behind the operator's back.
        row(
            "OP0511",
            "a per-node FelixConfiguration turning BPF on",
            vec![iptables.clone(), felix("node.worker-1", "", "bpfEnabled: true")],
            vec![bpf(""), felix("node.worker-1", "", "bpfEnabled: true")],
        ),
        // OP0512: kube-proxy's clusterCIDR (kubeadm's podSubnet) misses the pool.
        row(
            "OP0512",
            "pool outside kube-proxy's clusterCIDR",
            vec![
                iptables.clone(),
                ds_running.clone(),
                kube_proxy_config("clusterCIDR: 10.244.0.0/16\nmode: \"\""),
            ],
            vec![
                iptables.clone(),
                ds_running.clone(),
                kube_proxy_config("clusterCIDR: 172.20.0.0/16\nmode: \"\""),
            ],
        ),
        row(
            "OP0512",
            "the same, with local traffic detected by interface instead",
            vec![
                iptables.clone(),
                kube_proxy_ds("", LINUX, "kube-proxy, --cluster-cidr=10.244.0.0/16"),
            ],
            vec![
                iptables.clone(),
                kube_proxy_ds(
                    "",
                    LINUX,
                    "kube-proxy, --cluster-cidr=10.244.0.0/16, --detect-local-mode=InterfaceNamePrefix",
                ),
            ],
        ),
        row(
            "OP0512",
            "without a pool list the operator takes kubeadm's podSubnet, which kube-proxy has too",
            vec![
                iptables.clone(),
                kube_proxy_config("clusterCIDR: 10.244.0.0/16\nmode: \"\""),
            ],
            vec![
                installation("bgp: Enabled\n"),
                kube_proxy_config("clusterCIDR: 10.244.0.0/16\nmode: \"\""),
            ],
        ),
        // OP0513: kube-proxy on nftables, Calico on iptables.
        row(
            "OP0513",
            "kube-proxy in nftables mode beside the iptables dataplane",
            vec![iptables.clone(), ds_running.clone(), kube_proxy_config("mode: nftables")],
            vec![
                nftables.clone(),
                ds_running.clone(),
                kube_proxy_config("mode: nftables"),
            ],
        ),
        // OP0601: programClusterRoutes against clusterRoutingMode.
        row(
            "OP0601",
            "Felix told not to program the routes clusterRoutingMode gives it",
            vec![
                installation(&format!("{POOL_V4}clusterRoutingMode: Felix\n")),
                felix("default", "", "programClusterRoutes: Disabled"),
            ],
            vec![
                installation(&format!("{POOL_V4}clusterRoutingMode: Felix\n")),
                felix("default", "", "programClusterRoutes: Enabled"),
            ],
        ),
        row(
            "OP0601",
            "BIRD's side on the BGPConfiguration",
            vec![
                installation(&format!("{POOL_V4}clusterRoutingMode: BIRD\n")),
                bgp_configuration("programClusterRoutes: Disabled"),
            ],
            vec![
                installation(&format!("{POOL_V4}clusterRoutingMode: BIRD\n")),
                bgp_configuration("logSeverityScreen: Info"),
            ],
        ),
        // OP0602: a pool exported with the operator's label.
        row(
            "OP0602",
            "a labelled pool the Installation does not list",
            vec![
                iptables.clone(),
                "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: extra\n  labels:\n    app.kubernetes.io/managed-by: tigera-operator\nspec:\n  cidr: 10.50.0.0/16\n".to_owned(),
            ],
            vec![
                iptables.clone(),
                "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: extra\nspec:\n  cidr: 10.50.0.0/16\n".to_owned(),
            ],
        ),
        // OP0701: IPv6 autodetection, no IPv6 pool.
        row(
            "OP0701",
            "IPv6 autodetection on an IPv4-only installation",
            vec![installation(&format!(
                "{POOL_V4}nodeAddressAutodetectionV6:\n  firstFound: true\n"
            ))],
            vec![installation(&format!(
                "{POOL_V4}- cidr: fd00:20::/64\n  encapsulation: None\nnodeAddressAutodetectionV6:\n  firstFound: true\nbgp: Enabled\n"
            ))],
        ),
        row(
            "OP0701",
            "without a pool list the operator may make the IPv6 pool from kubeadm's podSubnet",
            vec![installation(&format!(
                "{POOL_V4}nodeAddressAutodetectionV6:\n  kubernetes: NodeInternalIP\n"
            ))],
            vec![installation(
                "nodeAddressAutodetectionV6:\n  kubernetes: NodeInternalIP\n"
            )],
        ),
        // OP0702: a block with no method turns autodetection off.
        row(
            "OP0702",
            "firstFound: false alone",
            vec![detect_v4("firstFound: false")],
            vec![detect_v4("kubernetes: NodeInternalIP")],
        ),
        // OP0703: NodeInternalIP, and a Node without one.
        row(
            "OP0703",
            "a Node without an InternalIP",
            vec![
                detect_v4("kubernetes: NodeInternalIP"),
                plain_node("cp-1", "10.0.0.11"),
                node("edge-1", &["ExternalIP=203.0.113.7"], "", "5.15.0-91-generic", "amd64"),
            ],
            vec![
                detect_v4("kubernetes: NodeInternalIP"),
                plain_node("cp-1", "10.0.0.11"),
                plain_node("edge-1", "10.0.0.12"),
            ],
        ),
        // OP0704: Vagrant's NAT address on every VM.
        row(
            "OP0704",
            "two Nodes with the same InternalIP under NodeInternalIP",
            vec![
                detect_v4("kubernetes: NodeInternalIP"),
                plain_node("vm-1", "10.0.2.15"),
                plain_node("vm-2", "10.0.2.15"),
            ],
            vec![
                detect_v4("cidrs: [\"192.168.56.0/24\"]"),
                plain_node("vm-1", "10.0.2.15"),
                plain_node("vm-2", "10.0.2.15"),
            ],
        ),
        row(
            "OP0704",
            "two Nodes whose Calico annotation names one bridge address",
            vec![
                detect_v4("firstFound: true"),
                node("a", &["InternalIP=10.0.0.11"], "172.18.0.1/16", "5.15.0-91-generic", "amd64"),
                node("b", &["InternalIP=10.0.0.12"], "172.18.0.1/16", "5.15.0-91-generic", "amd64"),
            ],
            vec![
                detect_v4("firstFound: true"),
                node("a", &["InternalIP=10.0.0.11"], "10.0.0.11/24", "5.15.0-91-generic", "amd64"),
                node("b", &["InternalIP=10.0.0.12"], "10.0.0.12/24", "5.15.0-91-generic", "amd64"),
            ],
        ),
        // OP0705: first-found took an interface the kubelet does not report.
        row(
            "OP0705",
            "first-found chose a management address",
            vec![
                detect_v4("firstFound: true"),
                node("a", &["InternalIP=10.0.0.11"], "192.168.100.11/24", "5.15.0-91-generic", "amd64"),
            ],
            vec![
                detect_v4("firstFound: true"),
                node("a", &["InternalIP=10.0.0.11"], "10.0.0.11/24", "5.15.0-91-generic", "amd64"),
            ],
        ),
        // OP0706: several InternalIPs under first-found.
        row(
            "OP0706",
            "a Node with two InternalIPv4s under first-found",
            vec![
                detect_v4("firstFound: true"),
                node(
                    "a",
                    &["InternalIP=10.0.0.11", "InternalIP=10.1.0.11"],
                    "",
                    "5.15.0-91-generic",
                    "amd64",
                ),
            ],
            vec![
                detect_v4("cidrs: [\"10.0.0.0/24\"]"),
                node(
                    "a",
                    &["InternalIP=10.0.0.11", "InternalIP=10.1.0.11"],
                    "",
                    "5.15.0-91-generic",
                    "amd64",
                ),
            ],
        ),
        // OP0707: a target of the other family.
        row(
            "OP0707",
            "canReach an IPv6 address for IPv4",
            vec![detect_v4("canReach: \"2001:db8::1\"")],
            vec![detect_v4("canReach: 192.0.2.1")],
        ),
        row(
            "OP0707",
            "IPv6 cidrs for IPv4",
            vec![detect_v4("cidrs: [\"fd00:10::/64\"]")],
            vec![detect_v4("cidrs: [\"fd00:10::/64\", \"10.0.0.0/24\"]")],
        ),
        // OP0801: Felix's kernel and endianness gate.
        row(
            "OP0801",
            "BPF on Debian 10's 4.19 kernel",
            vec![
                bpf(managed),
                node("old", &["InternalIP=10.0.0.11"], "", "4.19.0-20-amd64", "amd64"),
            ],
            vec![
                bpf(managed),
                node("old", &["InternalIP=10.0.0.11"], "", "5.10.0-28-amd64", "amd64"),
            ],
        ),
        row(
            "OP0801",
            "RHEL 8.1 below 4.18.0-193; RHEL 8.6 passes",
            vec![
                bpf(managed),
                node("rhel", &["InternalIP=10.0.0.11"], "", "4.18.0-147.el8.x86_64", "amd64"),
            ],
            vec![
                bpf(managed),
                node("rhel", &["InternalIP=10.0.0.11"], "", "4.18.0-372.9.1.el8.x86_64", "amd64"),
            ],
        ),
        row(
            "OP0801",
            "BPF on big-endian s390x",
            vec![
                bpf(managed),
                node("z", &["InternalIP=10.0.0.11"], "", "5.14.0-284.11.1.el9_2.s390x", "s390x"),
            ],
            vec![
                installation(POOL_V4),
                node("z", &["InternalIP=10.0.0.11"], "", "5.14.0-284.11.1.el9_2.s390x", "s390x"),
            ],
        ),
        // OP0802: no image for 32-bit arm.
        row(
            "OP0802",
            "a 32-bit Raspberry Pi node",
            vec![
                iptables.clone(),
                node("pi", &["InternalIP=10.0.0.21"], "", "6.6.51+rpt-rpi-v7", "arm"),
            ],
            vec![
                iptables.clone(),
                node("pi", &["InternalIP=10.0.0.21"], "", "6.6.51+rpt-rpi-v8", "arm64"),
            ],
        ),
        // OP0803: nftables on RHEL 8's kernel.
        row(
            "OP0803",
            "nftables dataplane on 4.18",
            vec![
                nftables.clone(),
                node("rhel8", &["InternalIP=10.0.0.11"], "", "4.18.0-553.el8_10.x86_64", "amd64"),
            ],
            vec![
                nftables.clone(),
                node("rhel9", &["InternalIP=10.0.0.11"], "", "5.14.0-427.13.1.el9_4.x86_64", "amd64"),
            ],
        ),
        // OP0514: Felix's default range 1-250 holds the AWS VPC CNI's tables 2-16.
        row(
            "OP0514",
            "Felix given the AWS VPC CNI's routing tables",
            vec![
                aws_vpc.clone(),
                felix("default", "", "routeTableRange:\n  min: 1\n  max: 250"),
            ],
            vec![
                aws_vpc.clone(),
                felix("default", "", "routeTableRange:\n  min: 65\n  max: 99"),
            ],
        ),
        row(
            "OP0514",
            "a list of ranges, one of them on the GKE CNI's tables",
            vec![
                gke.clone(),
                felix(
                    "default",
                    "",
                    "routeTableRanges:\n- min: 1\n  max: 9\n- min: 200\n  max: 250",
                ),
            ],
            vec![
                gke.clone(),
                felix("default", "", "routeTableRanges:\n- min: 10\n  max: 250"),
            ],
        ),
        // OP0603: the Installation's pool defaults natOutgoing to Enabled; the IPPool says no.
        row(
            "OP0603",
            "an unlabelled IPPool that differs from the Installation's entry",
            vec![iptables_named.clone(), pods_pool("", "vxlanMode: Always")],
            vec![
                iptables_named.clone(),
                pods_pool("", "vxlanMode: Always\nnatOutgoing: true"),
            ],
        ),
        row(
            "OP0603",
            "the label hands the pool to the operator",
            vec![iptables_named.clone(), pods_pool("", "vxlanMode: Always\nblockSize: 24")],
            vec![
                iptables_named.clone(),
                pods_pool(
                    "app.kubernetes.io/managed-by: tigera-operator",
                    "vxlanMode: Always\nblockSize: 24",
                ),
            ],
        ),
        // OP0604: calico-node's environment wins over FelixConfiguration.
        row(
            "OP0604",
            "defaultEndpointToHostAction Drop under the operator's ACCEPT",
            vec![
                iptables.clone(),
                felix("default", "", "defaultEndpointToHostAction: Drop"),
            ],
            vec![iptables.clone(), felix("default", "", "logSeverityScreen: Info")],
        ),
        row(
            "OP0604",
            "a tunnel MTU while the Installation sets mtu",
            vec![
                installation(&format!("mtu: 1400\n{POOL_V4}")),
                felix("node.worker-1", "", "vxlanMTU: 1450"),
            ],
            vec![
                installation(&format!("mtu: 1400\n{POOL_V4}")),
                felix("node.worker-1", "", "vxlanMTU: 1400"),
            ],
        ),
        // OP0804: the default flexvolume path under /usr on Talos.
        row(
            "OP0804",
            "flexvolume driver under /usr on Talos",
            vec![iptables.clone(), node_of_os("talos-1", "", "Talos (v1.9.1)")],
            vec![
                installation_with(POOL_V4, "flexVolumePath: None"),
                node_of_os("talos-1", "", "Talos (v1.9.1)"),
            ],
        ),
        // OP0805: the distribution's own CNI, from the server's recorded arguments.
        row(
            "OP0805",
            "a k3s server with flannel's vxlan backend",
            vec![
                iptables.clone(),
                node_of_os(
                    "k3s-1",
                    "k3s.io/node-args: '[\"server\",\"--flannel-backend\",\"vxlan\"]'",
                    "Ubuntu 24.04.1 LTS",
                ),
            ],
            vec![
                iptables.clone(),
                node_of_os(
                    "k3s-1",
                    "k3s.io/node-args: '[\"server\",\"--flannel-backend\",\"none\",\"--disable-network-policy\"]'",
                    "Ubuntu 24.04.1 LTS",
                ),
            ],
        ),
        row(
            "OP0805",
            "an RKE2 server that deploys Canal",
            vec![
                iptables.clone(),
                node_of_os(
                    "rke2-1",
                    "rke2.io/node-args: '[\"server\",\"--cni\",\"canal\"]'",
                    "SUSE Linux Enterprise Server 15 SP6",
                ),
            ],
            vec![
                iptables.clone(),
                node_of_os(
                    "rke2-1",
                    "rke2.io/node-args: '[\"server\",\"--cni\",\"none\"]'",
                    "SUSE Linux Enterprise Server 15 SP6",
                ),
            ],
        ),
    ]
}

#[test]
fn trapped_bundles_report_and_fixed_twins_do_not() {
    let mut failures = Vec::new();
    for row in rows() {
        let trapped = codes(&row.trapped);
        if !trapped.contains(&row.code) {
            failures.push(format!(
                "{} ({}): trapped bundle gave {trapped:?}\n{}",
                row.code, row.what, row.trapped
            ));
        }
        let fixed = codes(&row.fixed);
        if fixed.contains(&row.code) {
            failures.push(format!(
                "{} ({}): fixed twin still gave it ({fixed:?})\n{}",
                row.code, row.what, row.fixed
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every code of the families OP05xx-OP08xx has at least one row, and every row's code is in
/// the catalogue with its reports and fix.
#[test]
fn every_runtime_code_has_a_row_and_a_report() {
    let rows = rows();
    for rule in rules::CATALOGUE.iter().filter(|rule| {
        ["OP05", "OP06", "OP07", "OP08"]
            .iter()
            .any(|prefix| rule.code.starts_with(prefix))
    }) {
        assert!(
            rows.iter().any(|row| row.code == rule.code),
            "{} has no trapped/fixed row",
            rule.code
        );
        assert!(!rule.reports.is_empty(), "{} cites no report", rule.code);
        assert!(
            rule.reports
                .iter()
                .all(|url| url.starts_with("https://github.com/")),
            "{}: {:?}",
            rule.code,
            rule.reports
        );
        assert!(!rule.fix.is_empty(), "{} has no fix", rule.code);
    }
    for row in &rows {
        assert!(
            rules::lookup(row.code).is_some(),
            "{} is not catalogued",
            row.code
        );
    }
}

/// The checks that need a context document say nothing without it (a BPF Installation alone
/// gives no kube-proxy or Node finding), and say nothing on the upstream BPF sample with a
/// kube-proxy the operator manages.
#[test]
fn without_context_the_context_checks_are_silent() {
    let alone = codes(&bpf("kubeProxyManagement: Enabled\n"));
    let context_codes = [
        "OP0503", "OP0505", "OP0506", "OP0507", "OP0509", "OP0512", "OP0703", "OP0704", "OP0705",
        "OP0706", "OP0801", "OP0802",
    ];
    for code in context_codes {
        assert!(
            !alone.contains(&code),
            "{code} fired without its context: {alone:?}"
        );
    }
    let sample = codes(&bundle(&[
        &bpf("kubeProxyManagement: Enabled\n"),
        &kubeadm_kube_proxy_ds(LINUX),
        &kube_proxy_config("clusterCIDR: 172.20.0.0/16\nmode: \"\""),
        &plain_node("a", "10.0.0.11"),
        &plain_node("b", "10.0.0.12"),
    ]));
    assert!(
        !sample.iter().any(|code| code.starts_with("OP0")
            && ["OP05", "OP06", "OP07", "OP08"]
                .iter()
                .any(|family| code.starts_with(family))),
        "the upstream BPF setup with kubeadm's kube-proxy gave {sample:?}"
    );
}
