//! `OP01xx`: pools and IPAM.

use std::net::IpAddr;

use super::{ContextDocument, Facts, Findings, PoolSource};
use crate::rules::catalogue as c;
use crate::vocab::cidr::Family;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    pool_holds_node_address(facts, out);
    ipv6_ula_without_nat(facts, out);
    node_without_pool(facts, out);
    host_local_without_pod_cidr(facts, out);
    fewer_blocks_than_nodes(facts, out);
    installation_cidr_not_canonical(facts, out);
    private_pool_without_nat(facts, out);
    no_tunnel_pool(facts, out);
    every_pod_pool_disabled(facts, out);
    every_pod_pool_manual(facts, out);
    pool_overlaps_docker_bridge(facts, out);
    pool_selects_no_node(facts, out);
}

/// For each family, the first of the pools `member` picks when there are some and `stuck`
/// holds for all of them; only in a run with an Installation, which lists the pools the
/// operator manages, so that the run shows every pool.
fn families_where_all<'f, 'a>(
    facts: &'f Facts<'a>,
    member: impl Fn(&super::Pool<'a>) -> bool,
    stuck: impl Fn(&super::Pool<'a>) -> bool,
) -> Vec<(Family, &'f super::Pool<'a>)> {
    if facts.installation().is_none() {
        return Vec::new();
    }
    [Family::V4, Family::V6]
        .into_iter()
        .filter_map(|family| {
            let mut pools = facts
                .pools
                .iter()
                .filter(|pool| member(pool) && pool.family() == family)
                .peekable();
            let first = pools.peek().copied()?;
            pools.all(&stuck).then_some((family, first))
        })
        .collect()
}

/// `OP0110`: every enabled pod pool of a family is `assignmentMode: Manual`.
fn every_pod_pool_manual(facts: &Facts<'_>, out: &mut Findings) {
    for (family, first) in families_where_all(facts, |pool| pool.pod_pool(), |pool| pool.manual) {
        out.report(
            first.input_idx,
            &c::OP_EVERY_POD_POOL_MANUAL,
            first.at("assignmentMode", "assignmentMode"),
            format!(
                "every enabled {family} pod pool has `assignmentMode: Manual` (pool {} among them), so a pod that does not name a pool gets no {family} address",
                first.describe()
            ),
            Some("keep one pool of each family with `assignmentMode: Automatic` (the default) for ordinary pods".into()),
        );
    }
}

/// `OP0106`: an Installation pool whose CIDR Calico stores in another form.
fn installation_cidr_not_canonical(facts: &Facts<'_>, out: &mut Findings) {
    for (doc, _) in &facts.gathered.installations {
        let network = super::Fields::of(
            doc.value
                .get("spec")
                .and_then(|spec| spec.get("calicoNetwork")),
            "spec.calicoNetwork",
        );
        let path = network.at("ipPools");
        for (path, value) in super::items(network.list("ipPools"), &path) {
            let pool = super::Fields::of(Some(value), &path);
            let Some(text) = pool.str("cidr") else {
                continue;
            };
            let Ok(net) = crate::vocab::cidr::parse_strict_cidr(text) else {
                continue;
            };
            let Some(canonical) = crate::vocab::cidr::canonical(text, &net) else {
                continue;
            };
            out.report(
                doc.input_idx,
                &c::OP_INSTALLATION_CIDR_NOT_CANONICAL,
                pool.at("cidr"),
                format!(
                    "the operator matches its pools by the CIDR text: the IPPool it writes is stored as `{canonical}`, never equals `{text}`, and is deleted and written again"
                ),
                Some(format!("write `cidr: {canonical}`")),
            );
        }
    }
}

/// Whether `net` lies in the private IPv4 ranges (RFC 1918) or the shared range of RFC 6598,
/// which no one routes back from outside the site.
fn is_private_v4(net: &ipnet::IpNet) -> bool {
    let ranges = [
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "100.64.0.0/10",
    ];
    ranges.iter().any(|range| {
        range
            .parse::<ipnet::IpNet>()
            .is_ok_and(|range| range.contains(net))
    })
}

/// `OP0107`: an IPv4 pod pool of private addresses that does not NAT, with nothing to route it.
fn private_pool_without_nat(facts: &Facts<'_>, out: &mut Findings) {
    // Judged on a run that describes the network (an Installation) and peers with no router
    // that could carry the range (and NAT it at the site's edge).
    if facts.installation().is_none() || facts.peers_with_router() {
        return;
    }
    for pool in facts.pools.iter().filter(|pool| {
        pool.pod_pool()
            && pool.family() == Family::V4
            && !pool.nat_outgoing
            && is_private_v4(&pool.net)
    }) {
        out.report(
            pool.input_idx,
            &c::OP_PRIVATE_POOL_WITHOUT_NAT,
            pool.at("natOutgoing", "natOutgoing"),
            format!(
                "pod pool {} holds private addresses, does not NAT outgoing traffic, and no BGPPeer advertises it to a router: replies from outside the cluster cannot find the pods",
                pool.describe()
            ),
            Some(match pool.source {
                PoolSource::IpPool => "set `natOutgoing: true`, or peer with the network's router (a BGPPeer with `peerIP`) so that it routes the pool".into(),
                PoolSource::Installation => "set `natOutgoing: Enabled`, or peer with the network's router (a BGPPeer with `peerIP`) so that it routes the pool".into(),
            }),
        );
    }
}

/// `OP0108`: pods use an encapsulation, and no pool lets calico-node take the tunnel address
/// that encapsulation needs.
fn no_tunnel_pool(facts: &Facts<'_>, out: &mut Findings) {
    use super::Tunnel;
    // IP-in-IP carries IPv4 only.
    let kinds = [
        (Tunnel::Ipip, Family::V4),
        (Tunnel::Vxlan, Family::V4),
        (Tunnel::Vxlan, Family::V6),
    ];
    for (tunnel, family) in kinds {
        let name = tunnel.name();
        let enabled = |pool: &&super::Pool<'_>| {
            !pool.disabled && pool.family() == family && pool.encap.tunnel() == Some(tunnel)
        };
        let Some(first) = facts
            .pools
            .iter()
            .filter(enabled)
            .find(|pool| pool.workload && !pool.load_balancer)
        else {
            continue;
        };
        if facts.pools.iter().filter(enabled).any(|pool| pool.tunnel) {
            continue;
        }
        out.report(
            first.input_idx,
            &c::OP_NO_TUNNEL_POOL,
            first.at("allowedUses", "allowedUses"),
            format!(
                "pod pool {} uses {name}, but no enabled {family} {name} pool allows `Tunnel`, so calico-node cannot give the nodes the tunnel address {name} needs",
                first.describe()
            ),
            Some("add `Tunnel` to the pool's `allowedUses` (`[Workload, Tunnel]`, the default), or keep a pool with the same encapsulation that allows it".into()),
        );
    }
}

/// `OP0109`: a family has pod pools, all disabled, in a run with an Installation.
fn every_pod_pool_disabled(facts: &Facts<'_>, out: &mut Findings) {
    for (family, first) in families_where_all(facts, |pool| pool.workload, |pool| pool.disabled) {
        out.report(
            first.input_idx,
            &c::OP_EVERY_POD_POOL_DISABLED,
            first.at("disabled", "disableNewAllocations"),
            format!(
                "every {family} pod pool is disabled (pool {} among them), so Calico IPAM has no {family} address for a new pod",
                first.describe()
            ),
            Some("create and enable the new pool before disabling the old one".into()),
        );
    }
}

/// The number of blocks of `pool` (saturating: a pool with more than `u64::MAX` blocks has
/// enough for any cluster).
fn block_count(pool: &super::Pool<'_>) -> u64 {
    let bits = pool.block_size.saturating_sub(pool.net.prefix_len());
    1u64.checked_shl(u32::from(bits)).unwrap_or(u64::MAX)
}

/// `OP0105`: the pod pools of a family have fewer blocks than there are Nodes.
fn fewer_blocks_than_nodes(facts: &Facts<'_>, out: &mut Findings) {
    for family in [Family::V4, Family::V6] {
        let pools: Vec<&super::Pool<'_>> = facts
            .pools
            .iter()
            .filter(|pool| pool.pod_pool() && pool.family() == family)
            .collect();
        let Some(largest) = pools.iter().max_by_key(|pool| block_count(pool)) else {
            continue;
        };
        if !facts.has_nodes() {
            out.lacks(&c::OP_FEWER_BLOCKS_THAN_NODES, ContextDocument::Nodes);
            continue;
        }
        let blocks = pools
            .iter()
            .fold(0u64, |sum, pool| sum.saturating_add(block_count(pool)));
        let nodes = u64::try_from(facts.nodes.len()).unwrap_or(u64::MAX);
        if nodes <= blocks {
            continue;
        }
        out.report(
            largest.input_idx,
            &c::OP_FEWER_BLOCKS_THAN_NODES,
            largest.at("blockSize", "blockSize"),
            format!(
                "the {family} pod pools hold {blocks} block{} of their block size, for {nodes} Nodes: {} node{} get no block of their own and borrow addresses from other nodes' blocks",
                if blocks == 1 { "" } else { "s" },
                nodes - blocks,
                if nodes - blocks == 1 { "" } else { "s" },
            ),
            Some(format!(
                "use a larger pool or a smaller block (a larger `blockSize` number) so that there are more blocks than nodes; pool {} has /{} blocks",
                largest.describe(),
                largest.block_size
            )),
        );
    }
}

/// `OP0104`: host-local IPAM on a Node without a pod CIDR of a family the pools have.
fn host_local_without_pod_cidr(facts: &Facts<'_>, out: &mut Findings) {
    let Some((installation, defaulted)) = facts.installation() else {
        return;
    };
    let ipam = defaulted
        .pointer("/spec/cni/ipam/type")
        .and_then(serde_json::Value::as_str);
    if ipam != Some("HostLocal") {
        return;
    }
    // The operator writes `usePodCidr` for IPv4 and `usePodCidrIPv6` for IPv6 when the
    // Installation has pools of that family (single-stack IPv4 without any pool).
    let installation_pools = facts
        .pools
        .iter()
        .filter(|pool| pool.source == PoolSource::Installation);
    let has = |family| {
        installation_pools
            .clone()
            .any(|pool| pool.family() == family)
    };
    let families: Vec<Family> = match (has(Family::V4), has(Family::V6)) {
        (_, false) => vec![Family::V4],
        (false, true) => vec![Family::V6],
        (true, true) => vec![Family::V4, Family::V6],
    };
    if !facts.has_nodes() {
        out.lacks(&c::OP_HOST_LOCAL_WITHOUT_POD_CIDR, ContextDocument::Nodes);
        return;
    }
    for node in &facts.nodes {
        for family in &families {
            if node
                .pod_cidrs
                .iter()
                .any(|net| Family::of_net(net) == *family)
            {
                continue;
            }
            out.report(
                installation.input_idx,
                &c::OP_HOST_LOCAL_WITHOUT_POD_CIDR,
                "spec.cni.ipam.type",
                format!(
                    "`ipam: HostLocal` takes each pod's address from its Node's {family} pod CIDR, and Node `{}` has none (`spec.podCIDRs`)",
                    node.doc.name
                ),
                Some("let kube-controller-manager allocate node CIDRs (`--allocate-node-cidrs` with `--cluster-cidr`), or use Calico IPAM (`ipam: Calico`)".into()),
            );
        }
    }
}

/// `OP0103`: a Node that no pod pool of a family with pod pools selects.
fn node_without_pool(facts: &Facts<'_>, out: &mut Findings) {
    for family in [Family::V4, Family::V6] {
        let pools: Vec<(&super::Pool<'_>, Option<crate::vocab::Selector>)> = facts
            .pools
            .iter()
            .filter(|pool| pool.pod_pool() && pool.family() == family)
            .map(|pool| (pool, crate::vocab::parse_selector(&pool.node_selector).ok()))
            .collect();
        if pools.is_empty() {
            continue;
        }
        if !facts.has_nodes() {
            out.lacks(&c::OP_NODE_WITHOUT_POOL, ContextDocument::Nodes);
            continue;
        }
        // A selector that does not parse is reported by its own check; it selects nothing here
        // but must not make every node look unserved.
        if pools.iter().any(|(_, selector)| selector.is_none()) {
            continue;
        }
        for node in &facts.nodes {
            let served = pools.iter().any(|(_, selector)| {
                selector
                    .as_ref()
                    .is_some_and(|selector| super::selects(selector, &node.labels))
            });
            if served {
                continue;
            }
            let Some((first, _)) = pools.first() else {
                continue;
            };
            let listed: Vec<String> = pools
                .iter()
                .map(|(pool, _)| format!("{} `{}`", pool.describe(), pool.node_selector))
                .collect();
            out.report(
                first.input_idx,
                &c::OP_NODE_WITHOUT_POOL,
                first.at("nodeSelector", "nodeSelector"),
                format!(
                    "no enabled {family} pod pool selects Node `{}` (its labels match none of {}), so Calico IPAM cannot give its pods an {family} address",
                    node.doc.name,
                    listed.join(", ")
                ),
                Some("widen a pool's `nodeSelector` or label the node so that every node has a pool of each family".into()),
            );
        }
    }
}

/// `OP0101`: a pod pool that contains an address a Node has.
fn pool_holds_node_address(facts: &Facts<'_>, out: &mut Findings) {
    let pod_pools = facts.pools.iter().filter(|pool| pool.pod_pool());
    if !facts.has_nodes() {
        if pod_pools.clone().next().is_some() {
            out.lacks(&c::OP_POOL_HOLDS_NODE_ADDRESS, ContextDocument::Nodes);
        }
        return;
    }
    for pool in pod_pools {
        let Some((node, kind, address)) = facts.node_address_in(&pool.net) else {
            continue;
        };
        out.report(
            pool.input_idx,
            &c::OP_POOL_HOLDS_NODE_ADDRESS,
            pool.at("cidr", "cidr"),
            format!(
                "pod pool {} contains {address}, the {kind} of Node `{}`",
                pool.describe(),
                node.doc.name
            ),
            Some("give pods a range no node, router or other host on the network uses".into()),
        );
    }
}

/// fc00::/7, the unique local IPv6 addresses (RFC 4193): routed inside a site, never on the
/// internet.
fn is_unique_local(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V6(v6) => (v6.segments()[0] & 0xfe00) == 0xfc00,
        IpAddr::V4(_) => false,
    }
}

/// `OP0102`: IPv4 pods leave the cluster through NAT, IPv6 pods with unique local addresses
/// without it.
fn ipv6_ula_without_nat(facts: &Facts<'_>, out: &mut Findings) {
    let v4_nat = facts
        .pools
        .iter()
        .any(|pool| pool.pod_pool() && pool.family() == Family::V4 && pool.nat_outgoing);
    // A BGPPeer to a router may carry the unique local range into a site that routes it (and
    // NATs at its edge): not judged then.
    let routed_to_peer = facts
        .gathered
        .bgp_peers
        .iter()
        .any(|peer| peer.spec().has("peerIP"));
    if !v4_nat || routed_to_peer {
        return;
    }
    for pool in facts.pools.iter().filter(|pool| {
        pool.pod_pool()
            && pool.family() == Family::V6
            && !pool.nat_outgoing
            && is_unique_local(pool.net.network())
    }) {
        let (setting, default) = match pool.source {
            PoolSource::IpPool => (
                "natOutgoing: true",
                "an IPPool's `natOutgoing` defaults to false",
            ),
            PoolSource::Installation => (
                "natOutgoing: Enabled",
                "the operator defaults `natOutgoing` to Enabled for IPv4 pools but Disabled for IPv6 pools",
            ),
        };
        out.report(
            pool.input_idx,
            &c::OP_IPV6_ULA_WITHOUT_NAT,
            pool.at("natOutgoing", "natOutgoing"),
            format!(
                "IPv6 pod pool {} holds unique local addresses (fc00::/7) and does not NAT outgoing traffic, while the IPv4 pods do ({default})",
                pool.describe()
            ),
            Some(format!("set `{setting}` on the pool, or use a globally routed IPv6 range that the network routes back to the nodes")),
        );
    }
}

/// Docker Engine's default bridge network (`docker0`).
const DOCKER_BRIDGE: ipnet::Ipv4Net =
    ipnet::Ipv4Net::new_assert(std::net::Ipv4Addr::new(172, 17, 0, 0), 16);

/// `OP0112`: a pod pool overlapping 172.17.0.0/16 on Nodes that run Docker Engine.
fn pool_overlaps_docker_bridge(facts: &Facts<'_>, out: &mut Findings) {
    let bridge = ipnet::IpNet::V4(DOCKER_BRIDGE);
    let pools: Vec<&super::Pool<'_>> = facts
        .pools
        .iter()
        .filter(|pool| pool.pod_pool() && crate::vocab::cidr::overlaps(&pool.net, &bridge))
        .collect();
    if pools.is_empty() {
        return;
    }
    if !facts.has_nodes() {
        out.lacks(&c::OP_POOL_OVERLAPS_DOCKER_BRIDGE, ContextDocument::Nodes);
        return;
    }
    let Some(node) = facts.nodes.iter().find(|node| {
        node.doc
            .value
            .pointer("/status/nodeInfo/containerRuntimeVersion")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|runtime| runtime.starts_with("docker://"))
    }) else {
        return;
    };
    for pool in pools {
        out.report(
            pool.input_idx,
            &c::OP_POOL_OVERLAPS_DOCKER_BRIDGE,
            pool.at("cidr", "cidr"),
            format!(
                "pod pool {} overlaps Docker's default bridge {bridge}, and Node `{}` (with others) runs Docker Engine, whose `docker0` route on each node captures part of the pool's traffic",
                pool.describe(),
                node.doc.name
            ),
            Some("choose a pod range outside 172.17.0.0/16, or move Docker's bridge (`bip` in /etc/docker/daemon.json) on every node".into()),
        );
    }
}

/// `OP0113`: a pod pool whose `nodeSelector` selects none of the Nodes.
fn pool_selects_no_node(facts: &Facts<'_>, out: &mut Findings) {
    let pools: Vec<(&super::Pool<'_>, crate::vocab::Selector)> = facts
        .pools
        .iter()
        .filter(|pool| pool.pod_pool() && pool.node_selector.trim() != "all()")
        .filter_map(|pool| {
            // A selector that does not parse is reported by its own check.
            let selector = crate::vocab::parse_selector(&pool.node_selector).ok()?;
            Some((pool, selector))
        })
        .collect();
    if pools.is_empty() {
        return;
    }
    if !facts.has_nodes() {
        out.lacks(&c::OP_POOL_SELECTS_NO_NODE, ContextDocument::Nodes);
        return;
    }
    for (pool, selector) in pools {
        if facts
            .nodes
            .iter()
            .any(|node| super::selects(&selector, &node.labels))
        {
            continue;
        }
        out.report(
            pool.input_idx,
            &c::OP_POOL_SELECTS_NO_NODE,
            pool.at("nodeSelector", "nodeSelector"),
            format!(
                "pod pool {}: `nodeSelector: {}` matches none of the {} Nodes' labels, so Calico IPAM never uses it",
                pool.describe(),
                pool.node_selector,
                facts.nodes.len()
            ),
            Some("check the selector against `kubectl get nodes --show-labels`, or label the nodes the pool is for".into()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv6Addr;

    #[test]
    fn unique_local_is_fc00_slash_7() {
        let ula = |text: &str| is_unique_local(IpAddr::V6(text.parse::<Ipv6Addr>().unwrap()));
        assert!(ula("fc00::") && ula("fd00:10::") && ula("fdff:ffff::"));
        assert!(!ula("fe00::") && !ula("fbff::") && !ula("2001:db8::"));
    }
}
