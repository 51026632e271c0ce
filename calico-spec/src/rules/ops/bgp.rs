//! `OP03xx`: BGP and peering.

use super::{ContextDocument, Doc, Facts, Findings, Node, selects};
use crate::rules::catalogue as c;
use crate::vocab::{Selector, parse_selector};

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    mesh_off_without_peers(facts, out);
    peer_selects_no_node(facts, out);
    mesh_and_node_peers(facts, out);
    peers_without_route_reflector(facts, out);
    metallb_peers_the_same_router(facts, out);
    peers_without_bgp(facts, out);
    mesh_too_large(facts, out);
}

/// The address part of a BGPPeer's `peerIP` (`<IP>`, `<IPv4>:<port>` or `[<IPv6>]:<port>`).
fn peer_address(peer_ip: &str) -> Option<std::net::IpAddr> {
    if let Ok(addr) = peer_ip.parse() {
        return Some(addr);
    }
    let host = match peer_ip.strip_prefix('[') {
        Some(rest) => rest.split(']').next()?,
        None => peer_ip.rsplit_once(':')?.0,
    };
    host.parse().ok()
}

/// `OP0305`: MetalLB and Calico both peer with the same router.
fn metallb_peers_the_same_router(facts: &Facts<'_>, out: &mut Findings) {
    for metallb in &facts.gathered.metallb_peers {
        let Some(address) = metallb
            .spec()
            .str("peerAddress")
            .and_then(|text| text.parse::<std::net::IpAddr>().ok())
        else {
            continue;
        };
        let Some(calico) = facts.gathered.bgp_peers.iter().find(|peer| {
            peer.spec()
                .str("peerIP")
                .and_then(peer_address)
                .is_some_and(|peer| peer == address)
        }) else {
            continue;
        };
        out.report(
            metallb.input_idx,
            &c::OP_METALLB_SAME_ROUTER,
            metallb.spec().at("peerAddress"),
            format!(
                "MetalLB BGPPeer `{}` and Calico BGPPeer `{}` both peer with {address}: each node can hold one BGP session with a router, so one of the two speakers loses",
                metallb.name, calico.name
            ),
            Some("let Calico announce the LoadBalancer addresses (an IPPool with `allowedUses: [LoadBalancer]` and `serviceLoadBalancerIPs`), or peer MetalLB with another router".into()),
        );
    }
}

/// The annotation on a Kubernetes Node that makes it a route reflector (libcalico-go's
/// `RouteReflectorClusterIDAnnotation`, the Calico Node's `spec.bgp.routeReflectorClusterID`).
const ROUTE_REFLECTOR_ANNOTATION: &str = "projectcalico.org/RouteReflectorClusterID";

/// A BGPPeer's selector `key`, parsed (`None`: absent or not parsing, reported elsewhere).
fn selector(peer: &Doc<'_>, key: &str) -> Option<Selector> {
    peer.spec()
        .str(key)
        .and_then(|text| parse_selector(text).ok())
}

fn selected<'n, 'a>(nodes: &'n [Node<'a>], selector: &Selector) -> Vec<&'n Node<'a>> {
    nodes
        .iter()
        .filter(|node| selects(selector, &node.labels))
        .collect()
}

/// `OP0302`: a BGPPeer whose `nodeSelector` or `peerSelector` selects no Node.
fn peer_selects_no_node(facts: &Facts<'_>, out: &mut Findings) {
    for peer in &facts.gathered.bgp_peers {
        for key in ["nodeSelector", "peerSelector"] {
            let Some(selector) = selector(peer, key) else {
                continue;
            };
            if !facts.has_nodes() {
                out.lacks(&c::OP_PEER_SELECTS_NO_NODE, ContextDocument::Nodes);
                continue;
            }
            if !selected(&facts.nodes, &selector).is_empty() {
                continue;
            }
            let what = if key == "nodeSelector" {
                "no node opens this session"
            } else {
                "no node is its peer"
            };
            out.report(
                peer.input_idx,
                &c::OP_PEER_SELECTS_NO_NODE,
                peer.spec().at(key),
                format!(
                    "BGPPeer `{}`: `{key}: {}` matches none of the {} Nodes' labels, so {what}",
                    peer.name,
                    peer.spec().str(key).unwrap_or_default(),
                    facts.nodes.len()
                ),
                Some("check the selector against `kubectl get nodes --show-labels` (Calico selectors quote values: `route-reflector == 'true'`)".into()),
            );
        }
    }
}

/// `OP0303`: the node-to-node mesh is on and a BGPPeer also peers nodes with each other.
fn mesh_and_node_peers(facts: &Facts<'_>, out: &mut Findings) {
    if facts.mesh() != Some(true) {
        return;
    }
    for peer in facts
        .gathered
        .bgp_peers
        .iter()
        .filter(|peer| peer.spec().has("peerSelector"))
    {
        out.report(
            peer.input_idx,
            &c::OP_MESH_AND_NODE_PEERS,
            peer.spec().at("peerSelector"),
            format!(
                "BGPPeer `{}` peers nodes with nodes (`peerSelector`) while BGPConfiguration `default` keeps the node-to-node mesh on",
                peer.name
            ),
            Some("set `nodeToNodeMeshEnabled: false` in BGPConfiguration `default` when BGPPeers take over the peering between nodes".into()),
        );
    }
}

/// `OP0304`: with the mesh off, nodes peer with some other nodes, none of them a route
/// reflector: iBGP does not pass on what it learned from another iBGP peer.
fn peers_without_route_reflector(facts: &Facts<'_>, out: &mut Findings) {
    if facts.mesh() != Some(false) {
        return;
    }
    for peer in &facts.gathered.bgp_peers {
        let Some(peer_selector) = selector(peer, "peerSelector") else {
            continue;
        };
        if !facts.has_nodes() {
            out.lacks(&c::OP_PEERS_WITHOUT_ROUTE_REFLECTOR, ContextDocument::Nodes);
            continue;
        }
        let peers = selected(&facts.nodes, &peer_selector);
        // Selecting every node is a full mesh by BGPPeer; selecting none is OP0302's.
        if peers.is_empty() || peers.len() == facts.nodes.len() {
            continue;
        }
        let reflector = peers.iter().any(|node| {
            node.doc
                .value
                .pointer("/metadata/annotations")
                .and_then(|annotations| annotations.get(ROUTE_REFLECTOR_ANNOTATION))
                .is_some()
        });
        if reflector {
            continue;
        }
        out.report(
            peer.input_idx,
            &c::OP_PEERS_WITHOUT_ROUTE_REFLECTOR,
            peer.spec().at("peerSelector"),
            format!(
                "BGPPeer `{}` peers nodes with {} of the {} Nodes, none of them a route reflector (annotation `{ROUTE_REFLECTOR_ANNOTATION}`): they do not pass routes between the nodes that peer with them",
                peer.name,
                peers.len(),
                facts.nodes.len()
            ),
            Some("make the selected nodes route reflectors (`routeReflectorClusterID` on their Calico Node, e.g. `calicoctl patch node NAME -p '{\"spec\":{\"bgp\":{\"routeReflectorClusterID\":\"244.0.0.1\"}}}'`)".into()),
        );
    }
}

/// `OP0301`: the node-to-node mesh is off and no BGPPeer replaces it.
fn mesh_off_without_peers(facts: &Facts<'_>, out: &mut Findings) {
    // Judged only on a run that describes the whole network (an Installation with BGP on):
    // a BGPConfiguration validated on its own says nothing about the peers elsewhere.
    if facts.installation_bgp() != Some(true) || !facts.gathered.bgp_peers.is_empty() {
        return;
    }
    let Some(config) = facts.default_bgp_configuration() else {
        return;
    };
    let spec = config.spec();
    if spec.bool("nodeToNodeMeshEnabled") != Some(false) {
        return;
    }
    out.report(
        config.input_idx,
        &c::OP_MESH_OFF_WITHOUT_PEERS,
        spec.at("nodeToNodeMeshEnabled"),
        "the node-to-node mesh is disabled, and no BGPPeer is among the documents given",
        Some("add the BGPPeers that replace the mesh (route reflectors or a top-of-rack router) in the same change, or keep the mesh".into()),
    );
}

/// `OP0306`: BGPPeers while the Installation runs no BGP daemon.
fn peers_without_bgp(facts: &Facts<'_>, out: &mut Findings) {
    if facts.installation_bgp() != Some(false) {
        return;
    }
    for peer in &facts.gathered.bgp_peers {
        out.report(
            peer.input_idx,
            &c::OP_PEERS_WITHOUT_BGP,
            "spec",
            format!(
                "BGPPeer `{}` is never dialled: the Installation's `bgp: Disabled` starts calico-node without BIRD (networking backend `vxlan` or `none`)",
                peer.name
            ),
            Some("set `spec.calicoNetwork.bgp: Enabled` in the Installation if this peering is wanted, or delete the BGPPeer".into()),
        );
    }
}

/// The node count up to which Calico tests the full node-to-node mesh.
const MESH_TESTED_NODES: usize = 100;

/// `OP0307`: the node-to-node mesh across more nodes than it is tested with.
fn mesh_too_large(facts: &Facts<'_>, out: &mut Findings) {
    if facts.installation_bgp() != Some(true) || facts.mesh() == Some(false) {
        return;
    }
    if !facts.has_nodes() {
        out.lacks(&c::OP_MESH_TOO_LARGE, ContextDocument::Nodes);
        return;
    }
    // Windows nodes run no BIRD; a Node that does not say its OS counts as Linux.
    let linux = facts
        .nodes
        .iter()
        .filter(|node| {
            node.labels
                .get("kubernetes.io/os")
                .is_none_or(|os| *os == "linux")
        })
        .count();
    if linux <= MESH_TESTED_NODES {
        return;
    }
    let message = format!(
        "the node-to-node mesh is on across {linux} Linux nodes, {} BGP sessions; Calico tests the mesh to {MESH_TESTED_NODES} nodes and recommends route reflectors above that",
        linux * (linux - 1) / 2
    );
    let hint = Some("nominate route reflectors, peer the nodes with them by `peerSelector`, then set `nodeToNodeMeshEnabled: false`".into());
    match facts.default_bgp_configuration() {
        Some(config) => out.report(
            config.input_idx,
            &c::OP_MESH_TOO_LARGE,
            config.spec().at("nodeToNodeMeshEnabled"),
            message,
            hint,
        ),
        None => {
            if let Some((doc, _)) = facts.installation() {
                out.report(
                    doc.input_idx,
                    &c::OP_MESH_TOO_LARGE,
                    "spec.calicoNetwork.bgp",
                    message,
                    hint,
                );
            }
        }
    }
}
