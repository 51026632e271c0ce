//! The operational checks (`OP` codes): for each, a trapped bundle that must report exactly
//! that code and its fixed twin that must report nothing, both validated as one run, as
//! `calico-render validate -f trapped.yaml` would. Context documents (Nodes, kube-proxy) are
//! part of the bundles; a check whose context is missing stays silent and is listed as
//! unchecked instead.

use calico_spec::rules::{self, Context, ContextDocument, SourceText, Unchecked};
use calico_spec::source::Limits;

use crate::cli_consistency::run;

fn outcome(yaml: &str) -> rules::ValidationOutcome {
    let texts = [SourceText {
        name: "bundle.yaml",
        text: yaml,
    }];
    rules::validate_texts(&texts, &Context::assumed(), &Limits::MANIFESTS)
        .unwrap_or_else(|err| panic!("test input is YAML: {err}\n{yaml}"))
}

/// The sorted, distinct codes validation reports for `yaml`.
fn codes(yaml: &str) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = outcome(yaml)
        .diagnostics
        .iter()
        .map(|diag| diag.code)
        .collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

/// A v3 object.
fn v3(kind: &str, name: &str, spec: &str) -> String {
    format!(
        "apiVersion: projectcalico.org/v3\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{}---\n",
        indent(spec, 2)
    )
}

fn indent(block: &str, by: usize) -> String {
    block
        .lines()
        .map(|line| format!("{}{line}\n", " ".repeat(by)))
        .collect()
}

/// An Installation `default` with `calicoNetwork` as given.
fn installation(calico_network: &str) -> String {
    format!(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  calicoNetwork:\n{}---\n",
        indent(calico_network, 4)
    )
}

/// A Node with an InternalIP and a pod CIDR.
fn node(name: &str, internal_ip: &str, pod_cidr: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\nspec:\n  podCIDR: {pod_cidr}\n  podCIDRs: [{pod_cidr}]\nstatus:\n  addresses:\n  - type: InternalIP\n    address: {internal_ip}\n  - type: Hostname\n    address: {name}\n---\n"
    )
}

/// A Node with labels (`labels` is one `key: value` line) and an InternalIP.
fn node_labelled(name: &str, internal_ip: &str, labels: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n    {labels}\nstatus:\n  addresses:\n  - type: InternalIP\n    address: {internal_ip}\n---\n"
    )
}

/// Five Nodes on 10.0.0.0/24.
fn five_nodes() -> String {
    (1..=5)
        .map(|n| {
            node(
                &format!("worker-{n}"),
                &format!("10.0.0.{n}"),
                &format!("10.244.{n}.0/24"),
            )
        })
        .collect()
}

/// An Installation with host-local IPAM and one IPv4 pool.
fn host_local_installation() -> String {
    "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  cni:\n    type: Calico\n    ipam:\n      type: HostLocal\n  calicoNetwork:\n    ipPools:\n    - name: pods\n      cidr: 172.20.0.0/16\n      encapsulation: IPIP\n---\n".to_owned()
}

/// A MetalLB BGPPeer to `address`.
fn metallb_peer(address: &str) -> String {
    format!(
        "apiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata:\n  name: router\n  namespace: metallb-system\nspec:\n  myASN: 64512\n  peerASN: 65001\n  peerAddress: {address}\n---\n"
    )
}

/// An AKS Installation with Calico CNI and one pool of `encapsulation`.
fn aks_installation(encapsulation: &str) -> String {
    format!(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  kubernetesProvider: AKS\n  cni:\n    type: Calico\n  calicoNetwork:\n    bgp: Enabled\n    ipPools:\n    - name: pods\n      cidr: 172.20.0.0/16\n      encapsulation: {encapsulation}\n---\n"
    )
}

/// Pools the other objects refer to: an IPv4 pod pool with VXLAN, outside every node range.
fn pod_pool() -> String {
    v3(
        "IPPool",
        "pods",
        "cidr: 172.20.0.0/16\nvxlanMode: Always\nnatOutgoing: true",
    )
}

/// A kubeadm-config ConfigMap with these pod and Service subnets.
fn kubeadm_config(pod_subnet: &str, service_subnet: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubeadm-config\n  namespace: kube-system\ndata:\n  ClusterConfiguration: |\n    apiVersion: kubeadm.k8s.io/v1beta4\n    kind: ClusterConfiguration\n    networking:\n      podSubnet: {pod_subnet}\n      serviceSubnet: {service_subnet}\n---\n"
    )
}

/// An Installation `default` with these spec lines (before `calicoNetwork`) and network.
fn installation_on(spec: &str, calico_network: &str) -> String {
    format!(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n{}  calicoNetwork:\n{}---\n",
        indent(spec, 2),
        indent(calico_network, 4)
    )
}

/// A Node with an InternalIP and these `status.nodeInfo` lines.
fn node_with_info(name: &str, internal_ip: &str, info: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\nstatus:\n  addresses:\n  - type: InternalIP\n    address: {internal_ip}\n  nodeInfo:\n{}---\n",
        indent(info, 4)
    )
}

/// `count` Nodes on 10.0.0.0/16.
fn many_nodes(count: u32) -> String {
    (1..=count)
        .map(|n| {
            node(
                &format!("worker-{n}"),
                &format!("10.0.{}.{}", n / 200, n % 200 + 1),
                &format!("10.244.{}.0/24", n % 250),
            )
        })
        .collect()
}

struct Case {
    code: &'static str,
    trapped: String,
    fixed: String,
}

fn cases() -> Vec<Case> {
    let lb_pool = v3(
        "IPPool",
        "lb",
        "cidr: 10.50.0.0/24\nallowedUses: [LoadBalancer]",
    );
    let bgp_installation = installation(
        "bgp: Enabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: IPIP",
    );
    let vxlan_installation =
        installation("ipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN");
    // Globally routed IPv6 beside the IPv4 pod pool: no NAT needed.
    let dual_stack = format!(
        "{}{}",
        pod_pool(),
        v3(
            "IPPool",
            "pods-v6",
            "cidr: 2001:db8:20::/48\nvxlanMode: Always"
        )
    );
    let lb_advertised = format!(
        "{}{lb_pool}{}",
        installation(
            "bgp: Enabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN"
        ),
        v3(
            "BGPConfiguration",
            "default",
            "nodeToNodeMeshEnabled: false\nserviceLoadBalancerIPs:\n- cidr: 10.50.0.0/24"
        )
    );
    let vxlan_no_bgp = installation(
        "bgp: Disabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN",
    );
    let mesh_off = v3(
        "BGPConfiguration",
        "default",
        "asNumber: 64512\nnodeToNodeMeshEnabled: false",
    );
    let ula_pools = format!(
        "{}{}",
        pod_pool(),
        v3("IPPool", "pods-v6", "cidr: fd00:20::/48\nvxlanMode: Always")
    );
    vec![
        // A pod pool that holds a node's InternalIP.
        Case {
            code: "OP0101",
            trapped: format!(
                "{}{}",
                v3("IPPool", "pods", "cidr: 10.0.0.0/16\nvxlanMode: Always"),
                node("worker-1", "10.0.3.7", "10.244.1.0/24")
            ),
            fixed: format!(
                "{}{}",
                v3("IPPool", "pods", "cidr: 10.1.0.0/16\nvxlanMode: Always"),
                node("worker-1", "10.0.3.7", "10.244.1.0/24")
            ),
        },
        // Dual stack the IPv4 way: the operator NATs IPv4 by default and not IPv6.
        Case {
            code: "OP0102",
            trapped: installation(
                "ipPools:\n- name: v4\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n- name: v6\n  cidr: fd00:20::/48\n  encapsulation: VXLAN",
            ),
            fixed: installation(
                "ipPools:\n- name: v4\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n- name: v6\n  cidr: fd00:20::/48\n  encapsulation: VXLAN\n  natOutgoing: Enabled",
            ),
        },
        // The same with IPPool objects, whose natOutgoing defaults to false in both families.
        Case {
            code: "OP0102",
            trapped: ula_pools.clone(),
            fixed: format!(
                "{}{}",
                pod_pool(),
                // A globally routed range needs no NAT.
                v3(
                    "IPPool",
                    "pods-v6",
                    "cidr: 2001:db8:20::/48\nvxlanMode: Always"
                )
            ),
        },
        // Peered with a router, the unique local range may be routed by the site: not judged.
        Case {
            code: "OP0102",
            trapped: ula_pools.clone(),
            fixed: format!(
                "{ula_pools}{}",
                v3("BGPPeer", "border", "peerIP: 'fd00:1::1'\nasNumber: 65001")
            ),
        },
        // Zone pools that leave a node out.
        Case {
            code: "OP0103",
            trapped: format!(
                "{}{}{}",
                v3(
                    "IPPool",
                    "zone-a",
                    "cidr: 172.20.0.0/16\nvxlanMode: Always\nnodeSelector: zone == 'a'"
                ),
                node_labelled("worker-a", "10.0.0.1", "zone: a"),
                node_labelled("worker-b", "10.0.0.2", "zone: b"),
            ),
            fixed: format!(
                "{}{}{}{}",
                v3(
                    "IPPool",
                    "zone-a",
                    "cidr: 172.20.0.0/16\nvxlanMode: Always\nnodeSelector: zone == 'a'"
                ),
                // `!=` matches the node with zone b (and any node without the label).
                v3(
                    "IPPool",
                    "zone-other",
                    "cidr: 172.21.0.0/16\nvxlanMode: Always\nnodeSelector: zone != 'a'"
                ),
                node_labelled("worker-a", "10.0.0.1", "zone: a"),
                node_labelled("worker-b", "10.0.0.2", "zone: b"),
            ),
        },
        // Host-local IPAM on a node kube-controller-manager gave no pod CIDR.
        Case {
            code: "OP0104",
            trapped: format!(
                "{}{}",
                host_local_installation(),
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: worker-1\nstatus:\n  addresses:\n  - type: InternalIP\n    address: 10.0.0.1\n---\n"
            ),
            fixed: format!(
                "{}{}",
                host_local_installation(),
                node("worker-1", "10.0.0.1", "172.20.1.0/24")
            ),
        },
        // A /24 of /26 blocks for five nodes.
        Case {
            code: "OP0105",
            trapped: format!(
                "{}{}",
                v3("IPPool", "pods", "cidr: 172.20.0.0/24\nvxlanMode: Always"),
                five_nodes()
            ),
            fixed: format!(
                "{}{}",
                v3(
                    "IPPool",
                    "pods",
                    "cidr: 172.20.0.0/24\nvxlanMode: Always\nblockSize: 28"
                ),
                five_nodes()
            ),
        },
        // The operator's pool written in a form Calico does not store.
        Case {
            code: "OP0106",
            trapped: installation(
                "ipPools:\n- name: v6\n  cidr: 2001:db8:42:0::/56\n  encapsulation: VXLAN\n  natOutgoing: Enabled",
            ),
            fixed: installation(
                "ipPools:\n- name: v6\n  cidr: 2001:db8:42::/56\n  encapsulation: VXLAN\n  natOutgoing: Enabled",
            ),
        },
        // A private pool without NAT, and nothing routes it.
        Case {
            code: "OP0107",
            trapped: format!(
                "{vxlan_installation}{}",
                v3("IPPool", "extra", "cidr: 10.30.0.0/16\nvxlanMode: Always")
            ),
            fixed: format!(
                "{vxlan_installation}{}",
                v3(
                    "IPPool",
                    "extra",
                    "cidr: 10.30.0.0/16\nvxlanMode: Always\nnatOutgoing: true"
                )
            ),
        },
        // A router peering can carry the range instead.
        Case {
            code: "OP0107",
            trapped: format!(
                "{vxlan_installation}{}",
                v3("IPPool", "extra", "cidr: 10.30.0.0/16\nvxlanMode: Always")
            ),
            fixed: format!(
                "{vxlan_installation}{}{}",
                v3("IPPool", "extra", "cidr: 10.30.0.0/16\nvxlanMode: Always"),
                v3("BGPPeer", "tor", "peerIP: 192.168.10.1\nasNumber: 65001")
            ),
        },
        // VXLAN pods, and no VXLAN pool may hold the tunnel address.
        Case {
            code: "OP0108",
            trapped: v3(
                "IPPool",
                "team-a",
                "cidr: 172.22.0.0/16\nvxlanMode: Always\nnatOutgoing: true\nallowedUses: [Workload]\nnamespaceSelector: team == 'a'",
            ),
            fixed: format!(
                "{}{}",
                v3(
                    "IPPool",
                    "team-a",
                    "cidr: 172.22.0.0/16\nvxlanMode: Always\nnatOutgoing: true\nallowedUses: [Workload]\nnamespaceSelector: team == 'a'"
                ),
                pod_pool()
            ),
        },
        // The old pool disabled before the new one exists.
        Case {
            code: "OP0109",
            trapped: installation(
                "ipPools:\n- name: old\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n  disableNewAllocations: true",
            ),
            fixed: installation(
                "ipPools:\n- name: old\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n  disableNewAllocations: true\n- name: new\n  cidr: 172.21.0.0/16\n  encapsulation: VXLAN",
            ),
        },
        // Manual pools only: ordinary pods get nothing.
        Case {
            code: "OP0110",
            trapped: installation(
                "ipPools:\n- name: reserved\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n  assignmentMode: Manual",
            ),
            fixed: installation(
                "ipPools:\n- name: reserved\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN\n  assignmentMode: Manual\n- name: pods\n  cidr: 172.21.0.0/16\n  encapsulation: VXLAN",
            ),
        },
        // IP-in-IP routes travel by BGP, and the pool refuses to be exported.
        Case {
            code: "OP0201",
            trapped: v3(
                "IPPool",
                "pods",
                "cidr: 172.20.0.0/16\nipipMode: Always\ndisableBGPExport: true",
            ),
            fixed: v3(
                "IPPool",
                "pods",
                "cidr: 172.20.0.0/16\nvxlanMode: Always\ndisableBGPExport: true",
            ),
        },
        // Felix programs the routes between nodes itself: export does not matter to them.
        Case {
            code: "OP0201",
            trapped: installation(
                "bgp: Enabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: IPIP\n  disableBGPExport: true",
            ),
            fixed: installation(
                "bgp: Enabled\nclusterRoutingMode: Felix\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: IPIP\n  disableBGPExport: true",
            ),
        },
        // VXLAN on a 1500-byte network with the pod MTU left at 1500 (checked with
        // `--node-mtu 1500`, see `mtu_needs_the_node_mtu`).
        // FelixConfiguration keeps the VXLAN device down.
        Case {
            code: "OP0203",
            trapped: format!(
                "{}{}",
                pod_pool(),
                v3("FelixConfiguration", "default", "vxlanEnabled: false")
            ),
            fixed: format!(
                "{}{}",
                pod_pool(),
                v3("FelixConfiguration", "default", "ipipEnabled: false")
            ),
        },
        // IP-in-IP on AKS.
        Case {
            code: "OP0204",
            trapped: aks_installation("IPIP"),
            fixed: aks_installation("VXLAN"),
        },
        // WireGuard for one family of two.
        Case {
            code: "OP0205",
            trapped: format!(
                "{dual_stack}{}",
                v3("FelixConfiguration", "default", "wireguardEnabled: true")
            ),
            fixed: format!(
                "{dual_stack}{}",
                v3(
                    "FelixConfiguration",
                    "default",
                    "wireguardEnabled: true\nwireguardEnabledV6: true"
                )
            ),
        },
        // The mesh off and nothing in its place.
        Case {
            code: "OP0301",
            trapped: format!(
                "{bgp_installation}{}",
                v3(
                    "BGPConfiguration",
                    "default",
                    "nodeToNodeMeshEnabled: false\nasNumber: 64512",
                )
            ),
            fixed: format!(
                "{bgp_installation}{}{}",
                v3(
                    "BGPConfiguration",
                    "default",
                    "nodeToNodeMeshEnabled: false\nasNumber: 64512"
                ),
                v3(
                    "BGPPeer",
                    "rack-router",
                    "peerIP: 192.168.10.1\nasNumber: 65001"
                )
            ),
        },
        // Route reflector peering whose label is on no node.
        Case {
            code: "OP0302",
            trapped: format!(
                "{}{}",
                v3(
                    "BGPPeer",
                    "to-rr",
                    "nodeSelector: all()\npeerSelector: has(route-reflector)"
                ),
                node_labelled("worker-1", "10.0.0.1", "routereflector: 'true'")
            ),
            fixed: format!(
                "{}{}",
                v3(
                    "BGPPeer",
                    "to-rr",
                    "nodeSelector: all()\npeerSelector: has(routereflector)"
                ),
                node_labelled("worker-1", "10.0.0.1", "routereflector: 'true'")
            ),
        },
        // Node-to-node BGPPeers beside the mesh.
        Case {
            code: "OP0303",
            trapped: format!(
                "{}{}",
                v3("BGPConfiguration", "default", "asNumber: 64512"),
                v3("BGPPeer", "to-rr", "peerSelector: has(route-reflector)")
            ),
            fixed: format!(
                "{}{}",
                v3(
                    "BGPConfiguration",
                    "default",
                    "asNumber: 64512\nnodeToNodeMeshEnabled: false"
                ),
                v3("BGPPeer", "to-rr", "peerSelector: has(route-reflector)")
            ),
        },
        // Peering with the labelled nodes, which are no route reflectors.
        Case {
            code: "OP0304",
            trapped: format!(
                "{mesh_off}{}{}{}",
                v3("BGPPeer", "to-rr", "peerSelector: has(route-reflector)"),
                node_labelled("rr-1", "10.0.0.1", "route-reflector: 'true'"),
                node_labelled("worker-1", "10.0.0.2", "zone: a"),
            ),
            fixed: format!(
                "{mesh_off}{}{}{}",
                v3("BGPPeer", "to-rr", "peerSelector: has(route-reflector)"),
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: rr-1\n  labels:\n    route-reflector: 'true'\n  annotations:\n    projectcalico.org/RouteReflectorClusterID: 244.0.0.1\nstatus:\n  addresses:\n  - type: InternalIP\n    address: 10.0.0.1\n---\n",
                node_labelled("worker-1", "10.0.0.2", "zone: a"),
            ),
        },
        // MetalLB and Calico at the same router.
        Case {
            code: "OP0305",
            trapped: format!(
                "{}{}",
                v3("BGPPeer", "tor", "peerIP: 192.168.10.1\nasNumber: 65001"),
                metallb_peer("192.168.10.1")
            ),
            fixed: format!(
                "{}{}",
                v3("BGPPeer", "tor", "peerIP: 192.168.10.1\nasNumber: 65001"),
                metallb_peer("192.168.20.1")
            ),
        },
        // A LoadBalancer pool outside serviceLoadBalancerIPs.
        Case {
            code: "OP0401",
            trapped: format!(
                "{lb_pool}{}",
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceLoadBalancerIPs:\n- cidr: 10.60.0.0/24"
                )
            ),
            fixed: format!(
                "{lb_pool}{}",
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceLoadBalancerIPs:\n- cidr: 10.50.0.0/16"
                )
            ),
        },
        // A LoadBalancer pool while the Installation runs without BGP.
        Case {
            code: "OP0401",
            trapped: format!(
                "{}{lb_pool}",
                installation(
                    "bgp: Disabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN"
                )
            ),
            fixed: format!(
                "{}{lb_pool}{}{}",
                installation(
                    "bgp: Enabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN"
                ),
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceLoadBalancerIPs:\n- cidr: 10.50.0.0/24"
                ),
                // A router to advertise them to (else OP0405).
                v3("BGPPeer", "tor", "peerIP: 192.168.10.1\nasNumber: 65001")
            ),
        },
        // Advertising Service ranges with no BGP speaker.
        Case {
            code: "OP0404",
            trapped: format!(
                "{vxlan_no_bgp}{}",
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceExternalIPs:\n- cidr: 10.60.0.0/24"
                )
            ),
            fixed: format!(
                "{vxlan_no_bgp}{}",
                v3("BGPConfiguration", "default", "logSeverityScreen: Info")
            ),
        },
        // Advertised, but only to the cluster's own nodes.
        Case {
            code: "OP0405",
            trapped: format!(
                "{lb_advertised}{}",
                v3("BGPPeer", "node-mesh-only", "peerSelector: all()")
            ),
            fixed: format!(
                "{lb_advertised}{}",
                v3("BGPPeer", "tor", "peerIP: 192.168.10.1\nasNumber: 65001")
            ),
        },
        // A LoadBalancer pool over the nodes' subnet.
        Case {
            code: "OP0402",
            trapped: format!(
                "{}{}",
                v3(
                    "IPPool",
                    "lb",
                    "cidr: 10.0.0.0/24\nallowedUses: [LoadBalancer]"
                ),
                node("worker-1", "10.0.0.7", "10.244.1.0/24")
            ),
            fixed: format!(
                "{}{}",
                v3(
                    "IPPool",
                    "lb",
                    "cidr: 10.0.9.0/24\nallowedUses: [LoadBalancer]"
                ),
                node("worker-1", "10.0.0.7", "10.244.1.0/24")
            ),
        },
        // Advertising a Service range that holds the pod pool.
        Case {
            code: "OP0403",
            trapped: format!(
                "{}{}",
                pod_pool(),
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceClusterIPs:\n- cidr: 172.16.0.0/12"
                )
            ),
            fixed: format!(
                "{}{}",
                pod_pool(),
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceClusterIPs:\n- cidr: 10.96.0.0/12"
                )
            ),
        },
        // 172.17.0.0/16 is docker0's on a node that runs Docker Engine; containerd has none.
        Case {
            code: "OP0112",
            trapped: format!(
                "{}{}",
                v3(
                    "IPPool",
                    "pods",
                    "cidr: 172.16.0.0/14\nvxlanMode: Always\nnatOutgoing: true"
                ),
                node_with_info(
                    "worker-1",
                    "10.0.0.1",
                    "containerRuntimeVersion: docker://26.1.4"
                )
            ),
            fixed: format!(
                "{}{}",
                v3(
                    "IPPool",
                    "pods",
                    "cidr: 172.16.0.0/14\nvxlanMode: Always\nnatOutgoing: true"
                ),
                node_with_info(
                    "worker-1",
                    "10.0.0.1",
                    "containerRuntimeVersion: containerd://1.7.24"
                )
            ),
        },
        // A second pool for one zone whose label no node carries (the other pool serves all).
        Case {
            code: "OP0113",
            trapped: format!(
                "{}{}{}",
                pod_pool(),
                v3(
                    "IPPool",
                    "zone-b",
                    "cidr: 172.21.0.0/16\nvxlanMode: Always\nnatOutgoing: true\nnodeSelector: zone == 'b'"
                ),
                node_labelled("worker-1", "10.0.0.1", "zone: a")
            ),
            fixed: format!(
                "{}{}{}",
                pod_pool(),
                v3(
                    "IPPool",
                    "zone-b",
                    "cidr: 172.21.0.0/16\nvxlanMode: Always\nnatOutgoing: true\nnodeSelector: zone == 'b'"
                ),
                node_labelled("worker-1", "10.0.0.1", "zone: b")
            ),
        },
        // EKS with Calico CNI: CrossSubnet sends pod addresses inside a subnet.
        Case {
            code: "OP0206",
            trapped: installation_on(
                "kubernetesProvider: EKS\ncni:\n  type: Calico",
                "ipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLANCrossSubnet",
            ),
            fixed: installation_on(
                "kubernetesProvider: EKS\ncni:\n  type: Calico",
                "ipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN",
            ),
        },
        // Swarm's VNI on MKE; the operator's own choice there is 10000.
        Case {
            code: "OP0207",
            trapped: format!(
                "{}{}",
                installation_on(
                    "kubernetesProvider: DockerEnterprise",
                    "ipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN",
                ),
                v3("FelixConfiguration", "default", "vxlanVNI: 4096")
            ),
            fixed: format!(
                "{}{}",
                installation_on(
                    "kubernetesProvider: DockerEnterprise",
                    "ipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN",
                ),
                v3("FelixConfiguration", "default", "vxlanVNI: 10000")
            ),
        },
        // AKS: VXLAN only across subnets leaves same-subnet pod traffic bare.
        Case {
            code: "OP0208",
            trapped: aks_installation("VXLANCrossSubnet"),
            fixed: aks_installation("VXLAN"),
        },
        // BGP off: BIRD never runs, the peer is never dialled.
        Case {
            code: "OP0306",
            trapped: format!(
                "{}{}",
                installation(
                    "bgp: Disabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN"
                ),
                v3("BGPPeer", "tor", "peerIP: 10.0.0.254\nasNumber: 65001")
            ),
            fixed: format!(
                "{}{}",
                installation(
                    "bgp: Enabled\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN"
                ),
                v3("BGPPeer", "tor", "peerIP: 10.0.0.254\nasNumber: 65001")
            ),
        },
        // The mesh across 101 nodes; 100 is what Calico tests.
        Case {
            code: "OP0307",
            trapped: format!("{bgp_installation}{}", many_nodes(101)),
            fixed: format!("{bgp_installation}{}", many_nodes(100)),
        },
        // kubeadm's Service range is 10.96.0.0/12; a /16 of it leaves most ClusterIPs out.
        Case {
            code: "OP0406",
            trapped: format!(
                "{}{}{}",
                pod_pool(),
                kubeadm_config("172.20.0.0/16", "10.96.0.0/12"),
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceClusterIPs:\n- cidr: 10.96.0.0/16"
                )
            ),
            fixed: format!(
                "{}{}{}",
                pod_pool(),
                kubeadm_config("172.20.0.0/16", "10.96.0.0/12"),
                v3(
                    "BGPConfiguration",
                    "default",
                    "serviceClusterIPs:\n- cidr: 10.96.0.0/13\n- cidr: 10.104.0.0/13"
                )
            ),
        },
    ]
}

#[test]
fn each_trap_is_reported_and_its_fix_is_clean() {
    // A trap that an older catalogue rule also sees on the same text.
    let also: &[(&str, &str)] = &[("OP0106", "CR1019")];
    for case in cases() {
        let mut expected: Vec<&str> = also
            .iter()
            .filter(|(code, _)| *code == case.code)
            .map(|(_, other)| *other)
            .collect();
        expected.push(case.code);
        expected.sort_unstable();
        assert_eq!(
            codes(&case.trapped),
            expected,
            "trapped bundle for {}:\n{}",
            case.code,
            case.trapped
        );
        assert_eq!(
            codes(&case.fixed),
            Vec::<&str>::new(),
            "fixed bundle for {}:\n{}",
            case.code,
            case.fixed
        );
    }
}

#[test]
fn every_op_code_has_a_case() {
    let covered: Vec<&str> = cases().iter().map(|case| case.code).collect();
    for rule in rules::CATALOGUE {
        if rule.code.starts_with("OP") && !covered.contains(&rule.code) {
            // Another branch's checks have their own tables; this file holds OP01xx-OP04xx.
            // OP0202 needs `--node-mtu`: `mtu_needs_the_node_mtu`.
            let ours = ["OP01", "OP02", "OP03", "OP04"]
                .iter()
                .any(|area| rule.code.starts_with(area))
                && rule.code != "OP0202";
            assert!(!ours, "{} has no trapped/fixed case", rule.code);
        }
    }
}

#[test]
fn a_check_without_its_context_is_silent_and_listed() {
    // The pod pool holds 10.0.3.7, but no Node says so: no finding, and the checks that judge
    // pod pools against Nodes are unchecked (OP0101 node addresses, OP0103 selectors, OP0105
    // block count).
    let found = outcome(&v3(
        "IPPool",
        "pods",
        "cidr: 10.0.0.0/16\nvxlanMode: Always",
    ));
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let needs_nodes = |code| Unchecked {
        code,
        needs: ContextDocument::Nodes,
    };
    assert_eq!(
        found.unchecked,
        vec![
            needs_nodes("OP0101"),
            needs_nodes("OP0103"),
            needs_nodes("OP0105")
        ]
    );
    // With the Nodes given, nothing is left unchecked.
    let with_nodes = outcome(&format!(
        "{}{}",
        pod_pool(),
        node("worker-1", "10.0.3.7", "10.244.1.0/24")
    ));
    assert!(with_nodes.unchecked.is_empty());
    // Context documents are read, not skipped.
    assert!(with_nodes.skipped.is_empty(), "{:?}", with_nodes.skipped);
}

#[test]
fn findings_are_located_in_the_document() {
    let found = outcome(&format!(
        "{}{}",
        v3("IPPool", "pods", "cidr: 10.0.0.0/16\nvxlanMode: Always"),
        node("worker-1", "10.0.3.7", "10.244.1.0/24")
    ));
    let diag = &found.diagnostics[0];
    assert_eq!((diag.code, diag.path.as_str()), ("OP0101", "spec.cidr"));
    let location = diag.location.as_ref().unwrap();
    // `cidr:` is the sixth line of the first document.
    assert_eq!((location.document, location.line), (0, Some(6)));
    assert!(diag.message.contains("worker-1") && diag.message.contains("10.0.3.7"));
}

#[test]
fn cluster_network_trips_the_checks_at_its_own_fields() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/bgp-loadbalancer/cluster.yaml"
    );
    let text = std::fs::read_to_string(path).expect("example exists");
    // As shipped: the LoadBalancer pool is advertised and the mesh has a replacement.
    let clean = calico_spec::cluster_network::load("cluster.yaml", &text).expect("example loads");
    assert!(
        clean.warnings.iter().all(|w| !w.code.starts_with("OP")),
        "{:?}",
        clean.warnings
    );
    // Advertise another range: the pool's addresses are never announced.
    let trapped = text.replace("        - 192.168.50.0/24", "        - 192.168.60.0/24");
    assert_ne!(trapped, text);
    let loaded = calico_spec::cluster_network::load("cluster.yaml", &trapped).expect("still valid");
    let found: Vec<(&str, &str)> = loaded
        .warnings
        .iter()
        .filter(|w| w.code.starts_with("OP"))
        .map(|w| (w.code, w.path.as_str()))
        .collect();
    assert_eq!(found, vec![("OP0401", "spec.loadBalancerPools[0].cidr")]);
}

#[test]
fn explain_prints_reports_and_fix() {
    let rule = rules::lookup("OP0401").unwrap();
    let text = calico_render::report::render_explanation(rule);
    assert!(text.contains("\nFix: List the pool's CIDR"), "{text}");
    assert!(
        text.contains("Reported in:\n  https://github.com/projectcalico/calico/issues/10476\n"),
        "{text}"
    );
    // The short form prints neither.
    let plain = calico_render::report::render_explanation(rules::lookup("CR1003").unwrap());
    assert!(!plain.contains("Fix:") && !plain.contains("Reported in:"));
}

#[test]
fn explain_cli_prints_an_operational_check() {
    let output = run(&["explain", "op0401"], "");
    assert_eq!(output.code, Some(0));
    crate::cli_consistency::snapshot("explain-op0401", &output.stdout);
    // The listing holds the OP codes among the others.
    let listing = run(&["explain"], "");
    assert!(
        listing
            .stdout
            .contains("OP0101  warning  pod pool contains a node's address\n")
    );
}

#[test]
fn validate_cli_says_which_checks_lacked_context() {
    let bundle = v3("IPPool", "pods", "cidr: 10.0.0.0/16\nvxlanMode: Always");
    let output = run(&["validate", "-f", "-"], &bundle);
    assert_eq!(output.code, Some(0));
    let stderr = output.stderr;
    assert!(
        stderr.contains("note: operational checks not run for lack of context: OP0101, OP0103, OP0105 need Nodes; `--explain-context`"),
        "{stderr}"
    );
    let output = run(&["validate", "-f", "-", "-o", "json"], &bundle);
    let json: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    assert_eq!(
        json["unchecked"],
        serde_json::json!([
            {"code": "OP0101", "needs": "Nodes"},
            {"code": "OP0103", "needs": "Nodes"},
            {"code": "OP0105", "needs": "Nodes"}
        ])
    );
    let output = run(&["validate", "-f", "-", "--explain-context"], &bundle);
    assert_eq!(
        output.stderr,
        "add the Node objects (`kubectl get nodes -o yaml`):\n  OP0101  pod pool contains a node's address\n  OP0103  a node that no pod pool selects\n  OP0105  fewer IPAM blocks than nodes\n"
    );
    // With the Nodes, the finding itself.
    let with_nodes = format!("{bundle}{}", node("worker-1", "10.0.3.7", "10.244.1.0/24"));
    let output = run(&["validate", "-f", "-", "-o", "json"], &with_nodes);
    let json: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["code"], "OP0101");
    assert!(json.get("unchecked").is_none(), "{json}");
    // A warning: denied, it fails the run.
    let output = run(&["validate", "-f", "-", "--deny", "OP0101"], &with_nodes);
    assert_eq!(output.code, Some(1));
}

#[test]
fn mtu_needs_the_node_mtu() {
    let with_mtu = |mtu: u32| {
        installation(&format!(
            "mtu: {mtu}\nipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN"
        ))
    };
    let run = |yaml: &str, node_mtu: Option<u32>| {
        let texts = [SourceText {
            name: "bundle.yaml",
            text: yaml,
        }];
        let ctx = Context {
            node_mtu,
            ..Context::assumed()
        };
        rules::validate_texts(&texts, &ctx, &Limits::MANIFESTS).unwrap()
    };
    let op = |outcome: &rules::ValidationOutcome| -> Vec<&str> {
        outcome
            .diagnostics
            .iter()
            .map(|d| d.code)
            .filter(|code| code.starts_with("OP02"))
            .collect()
    };
    // VXLAN over IPv4 adds 50 bytes: 1450 fits a 1500-byte network, 1451 does not.
    assert_eq!(op(&run(&with_mtu(1451), Some(1500))), vec!["OP0202"]);
    assert!(op(&run(&with_mtu(1450), Some(1500))).is_empty());
    // Jumbo frames leave room for 1500.
    assert!(op(&run(&with_mtu(1500), Some(9000))).is_empty());
    // WireGuard's 60 bytes count when it is on.
    let wireguard = format!(
        "{}{}",
        with_mtu(1450),
        v3("FelixConfiguration", "default", "wireguardEnabled: true")
    );
    assert_eq!(op(&run(&wireguard, Some(1500))), vec!["OP0202"]);
    // Without the node MTU the check says nothing and is listed.
    let without = run(&with_mtu(1500), None);
    assert!(op(&without).is_empty());
    assert!(without.unchecked.contains(&Unchecked {
        code: "OP0202",
        needs: ContextDocument::NodeMtu
    }));
    // No explicit MTU: Calico detects it, nothing to judge.
    let auto = run(
        &installation("ipPools:\n- name: pods\n  cidr: 172.20.0.0/16\n  encapsulation: VXLAN"),
        Some(1500),
    );
    assert!(op(&auto).is_empty());
}
