//! `OP02xx`: MTU, encapsulation and routing.

use super::{ContextDocument, Encap, Facts, Findings, Tunnel};
use crate::rules::catalogue as c;
use crate::vocab::cidr::Family;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    bgp_routed_pool_not_exported(facts, out);
    mtu_without_room(facts, out);
    felix_tunnel_off(facts, out);
    ipip_on_azure(facts, out);
    wireguard_ipv4_only(facts, out);
    unencapsulated_on_eks(facts, out);
    vxlan_clashes_with_swarm(facts, out);
    unencapsulated_on_aks(facts, out);
}

/// The Installation's provider after defaults, else the one declared to `validate`.
fn provider<'f>(facts: &'f Facts<'_>) -> Option<&'f str> {
    facts
        .installation()
        .and_then(|(_, defaulted)| defaulted.pointer("/spec/kubernetesProvider"))
        .and_then(serde_json::Value::as_str)
        .or(facts.ctx.provider.as_deref())
}

/// `OP0204`: IP-in-IP on Azure, whose network drops IP protocol 4.
fn ipip_on_azure(facts: &Facts<'_>, out: &mut Findings) {
    if provider(facts) != Some("AKS") {
        return;
    }
    for pool in facts
        .pools
        .iter()
        .filter(|pool| pool.pod_pool() && pool.encap.tunnel() == Some(Tunnel::Ipip))
    {
        out.report(
            pool.input_idx,
            &c::OP_IPIP_ON_AZURE,
            pool.at("ipipMode", "encapsulation"),
            format!(
                "pod pool {} uses IP-in-IP on AKS, and Azure's network does not carry IP-in-IP packets between nodes",
                pool.describe()
            ),
            Some("use VXLAN (`encapsulation: VXLAN`, or `vxlanMode: Always` with `ipipMode: Never`)".into()),
        );
    }
}

/// `OP0205`: WireGuard on for IPv4 only while pods have IPv6 addresses too.
fn wireguard_ipv4_only(facts: &Facts<'_>, out: &mut Findings) {
    let Some(felix) = facts.default_felix_configuration() else {
        return;
    };
    let spec = felix.spec();
    if spec.bool("wireguardEnabled") != Some(true) || spec.bool("wireguardEnabledV6") == Some(true)
    {
        return;
    }
    let Some(pool) = facts
        .pools
        .iter()
        .find(|pool| pool.pod_pool() && pool.family() == Family::V6)
    else {
        return;
    };
    out.report(
        felix.input_idx,
        &c::OP_WIREGUARD_IPV4_ONLY,
        spec.at("wireguardEnabled"),
        format!(
            "WireGuard encrypts IPv4 pod traffic only (`wireguardEnabledV6` is not true), but pods also get IPv6 addresses from pool {}: that traffic crosses the network in clear",
            pool.describe()
        ),
        Some("set `wireguardEnabledV6: true` as well".into()),
    );
}

/// The bytes a tunnel adds to each packet (Felix's `int_dataplane.go`: IP-in-IP 20, VXLAN 50
/// over IPv4 and 70 over IPv6, WireGuard 60 and 80).
fn overhead(encap: Encap, family: Family) -> u32 {
    match (encap, family) {
        (Encap::None, _) => 0,
        (Encap::Ipip { .. }, _) => 20,
        (Encap::Vxlan { .. }, Family::V4) => 50,
        (Encap::Vxlan { .. }, Family::V6) => 70,
    }
}

/// `OP0202`: an explicit pod MTU that, with the tunnel's overhead, exceeds the nodes' MTU.
fn mtu_without_room(facts: &Facts<'_>, out: &mut Findings) {
    let Some((installation, defaulted)) = facts.installation() else {
        return;
    };
    let Some(mtu) = defaulted
        .pointer("/spec/calicoNetwork/mtu")
        .and_then(serde_json::Value::as_u64)
        .and_then(|mtu| u32::try_from(mtu).ok())
    else {
        return;
    };
    let Some(node_mtu) = facts.ctx.node_mtu else {
        out.lacks(&c::OP_MTU_WITHOUT_ROOM, ContextDocument::NodeMtu);
        return;
    };
    let felix = facts.default_felix_configuration().map(|doc| doc.spec());
    let wireguard = |key: &str| felix.is_some_and(|spec| spec.bool(key) == Some(true));
    // The largest overhead any pod traffic pays: each pool's tunnel, or WireGuard's when it
    // carries the traffic between nodes instead.
    let worst = facts
        .pools
        .iter()
        .filter(|pool| pool.pod_pool())
        .map(|pool| {
            let family = pool.family();
            let wg = match family {
                Family::V4 if wireguard("wireguardEnabled") => 60,
                Family::V6 if wireguard("wireguardEnabledV6") => 80,
                _ => 0,
            };
            let tunnel = overhead(pool.encap, family).max(wg);
            (tunnel, pool)
        })
        .max_by_key(|(tunnel, _)| *tunnel);
    let Some((tunnel, pool)) = worst else {
        return;
    };
    if mtu.saturating_add(tunnel) <= node_mtu {
        return;
    }
    let room = node_mtu.saturating_sub(tunnel);
    out.report(
        installation.input_idx,
        &c::OP_MTU_WITHOUT_ROOM,
        "spec.calicoNetwork.mtu",
        format!(
            "`mtu: {mtu}` plus the {tunnel} bytes the tunnel adds for pool {} makes {} on the wire, more than the nodes' MTU of {node_mtu}",
            pool.describe(),
            mtu.saturating_add(tunnel)
        ),
        Some(format!("set `mtu: {room}` or less, or leave `mtu` out so that Calico detects it")),
    );
}

/// `OP0203`: FelixConfiguration turns off the tunnel device a pool's encapsulation needs.
fn felix_tunnel_off(facts: &Facts<'_>, out: &mut Findings) {
    let Some(felix) = facts.default_felix_configuration() else {
        return;
    };
    let spec = felix.spec();
    // `vxlanEnabled` covers the IPv4 device only; the v3.32 CRD has no IPv6 switch.
    let checks = [
        ("ipipEnabled", Family::V4, Tunnel::Ipip),
        ("vxlanEnabled", Family::V4, Tunnel::Vxlan),
    ];
    for (key, family, tunnel) in checks {
        let name = tunnel.name();
        if spec.bool(key) != Some(false) {
            continue;
        }
        let Some(pool) = facts.pools.iter().find(|pool| {
            pool.pod_pool() && pool.family() == family && pool.encap.tunnel() == Some(tunnel)
        }) else {
            continue;
        };
        out.report(
            felix.input_idx,
            &c::OP_FELIX_TUNNEL_OFF,
            spec.at(key),
            format!(
                "`{key}: false` keeps Felix from creating the {family} {name} device, but pod pool {} uses {name}",
                pool.describe()
            ),
            Some(format!("remove `{key}` (Felix decides from the pools), or change the pool's encapsulation")),
        );
    }
}

/// `OP0201`: a pod pool whose routes between nodes travel by BGP, with BGP export disabled.
fn bgp_routed_pool_not_exported(facts: &Facts<'_>, out: &mut Findings) {
    if facts.installation_bgp() == Some(false) {
        return;
    }
    // With `clusterRoutingMode: Felix` Felix programs the routes between nodes from IPAM.
    if facts
        .calico_network()
        .is_some_and(|network| network.str("clusterRoutingMode") == Some("Felix"))
    {
        return;
    }
    // A FelixConfiguration that says so directly (manifest installs) has the same effect.
    if facts
        .default_felix_configuration()
        .is_some_and(|felix| felix.spec().str("programClusterRoutes") == Some("Enabled"))
    {
        return;
    }
    for pool in facts.pools.iter().filter(|pool| {
        pool.pod_pool()
            && pool.disable_bgp_export
            && matches!(pool.encap, Encap::None | Encap::Ipip { .. })
    }) {
        let how = match pool.encap {
            Encap::None => "without encapsulation",
            _ => "with IP-in-IP",
        };
        out.report(
            pool.input_idx,
            &c::OP_BGP_ROUTED_POOL_NOT_EXPORTED,
            pool.at("disableBGPExport", "disableBGPExport"),
            format!(
                "pod pool {} routes {how}, so nodes learn its blocks over BGP, but `disableBGPExport: true` keeps BIRD from exporting them to any peer, the other nodes included",
                pool.describe()
            ),
            Some("remove `disableBGPExport`, or use VXLAN for this pool (Felix programs VXLAN routes itself)".into()),
        );
    }
}

/// The IPv4 pod pools, known as the operator has them, that send pod traffic between nodes of
/// one subnet with the pods' own addresses (no encapsulation, or `CrossSubnet`), with Calico
/// CNI on `platform`.
fn unencapsulated_pools<'f, 'a>(
    facts: &'f Facts<'a>,
    platform: &str,
) -> Vec<(&'f super::Pool<'a>, &'static str)> {
    let Some(install) = super::dataplane::Install::of(facts) else {
        return Vec::new();
    };
    // Only with Calico CNI do pods take addresses from Calico's pools.
    if provider(facts) != Some(platform) || install.cni() != Some("Calico") {
        return Vec::new();
    }
    facts
        .pools
        .iter()
        .filter(|pool| pool.pod_pool() && pool.family() == Family::V4 && install.pool_known(pool))
        .filter_map(|pool| {
            let how = match pool.encap {
                Encap::None => "without encapsulation",
                Encap::Ipip { cross_subnet: true } | Encap::Vxlan { cross_subnet: true } => {
                    "unencapsulated within a subnet (CrossSubnet)"
                }
                _ => return None,
            };
            Some((pool, how))
        })
        .collect()
}

/// `OP0206`: pod traffic between nodes of one subnet without encapsulation on EKS.
fn unencapsulated_on_eks(facts: &Facts<'_>, out: &mut Findings) {
    let check_disabled = facts
        .default_felix_configuration()
        .is_some_and(|felix| felix.spec().str("awsSrcDstCheck") == Some("Disable"));
    if check_disabled {
        return;
    }
    for (pool, how) in unencapsulated_pools(facts, "EKS") {
        out.report(
            pool.input_idx,
            &c::OP_UNENCAPSULATED_ON_EKS,
            pool.at("vxlanMode", "encapsulation"),
            format!(
                "pod pool {} carries pod traffic {how} on EKS, and EC2's source/destination check drops packets with pod addresses between nodes",
                pool.describe()
            ),
            Some("use VXLAN (`encapsulation: VXLAN`), or set `awsSrcDstCheck: Disable` in FelixConfiguration `default` with the IAM permission to change the nodes' interfaces".into()),
        );
    }
}

/// `OP0208`: pod traffic between nodes of one subnet without encapsulation on AKS.
fn unencapsulated_on_aks(facts: &Facts<'_>, out: &mut Findings) {
    // IP-in-IP on Azure is `OP0204`, whatever its cross-subnet setting.
    for (pool, how) in unencapsulated_pools(facts, "AKS")
        .into_iter()
        .filter(|(pool, _)| pool.encap.tunnel() != Some(Tunnel::Ipip))
    {
        out.report(
            pool.input_idx,
            &c::OP_UNENCAPSULATED_ON_AKS,
            pool.at("vxlanMode", "encapsulation"),
            format!(
                "pod pool {} carries pod traffic {how} on AKS, where Azure's network has no route to pod addresses",
                pool.describe()
            ),
            Some("use `encapsulation: VXLAN` (Always)".into()),
        );
    }
}

/// Docker Swarm's VXLAN network identifier and port, which Mirantis Kubernetes Engine runs.
const SWARM_VNI: i64 = 4096;
const SWARM_VXLAN_PORT: i64 = 4789;

/// `OP0207`: Calico's VXLAN with Swarm's VNI and port on Mirantis Kubernetes Engine.
fn vxlan_clashes_with_swarm(facts: &Facts<'_>, out: &mut Findings) {
    let Some(install) = super::dataplane::Install::of(facts) else {
        return;
    };
    if install.provider() != "DockerEnterprise" {
        return;
    }
    let Some(felix) = facts.default_felix_configuration() else {
        return;
    };
    let spec = felix.spec();
    if spec.int("vxlanVNI") != Some(SWARM_VNI) {
        return;
    }
    // Unset, the operator writes 4789, or 8472 on the BPF dataplane.
    let port = spec.int("vxlanPort").unwrap_or(if install.bpf() {
        8472
    } else {
        SWARM_VXLAN_PORT
    });
    let vxlan = facts
        .pools
        .iter()
        .any(|pool| pool.pod_pool() && pool.encap.tunnel() == Some(Tunnel::Vxlan));
    if port != SWARM_VXLAN_PORT || !vxlan {
        return;
    }
    out.report(
        felix.input_idx,
        &c::OP_VXLAN_CLASHES_WITH_SWARM,
        spec.at("vxlanVNI"),
        format!(
            "FelixConfiguration `default` sets `vxlanVNI: {SWARM_VNI}` on UDP port {port}, the VNI and port of Docker Swarm's overlay on Mirantis Kubernetes Engine: the two VXLAN devices clash and `vxlan.calico` is deleted"
        ),
        Some("remove `vxlanVNI` (the operator then writes 10000 on this platform) or choose another VNI".into()),
    );
}
