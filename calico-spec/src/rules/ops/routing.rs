//! `OP02xx`: MTU, encapsulation and routing.

use super::{ContextDocument, Encap, Facts, Findings, Tunnel};
use crate::rules::catalogue as c;
use crate::vocab::cidr::Family;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    bgp_routed_pool_not_exported(facts, out);
    mtu_without_room(facts, out);
    felix_tunnel_off(facts, out);
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
