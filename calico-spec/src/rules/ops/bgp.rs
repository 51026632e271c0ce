//! `OP03xx`: BGP and peering.

use super::{Facts, Findings};
use crate::rules::catalogue as c;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    mesh_off_without_peers(facts, out);
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
