//! `OP02xx`: MTU, encapsulation and routing.

use super::{Encap, Facts, Findings};
use crate::rules::catalogue as c;

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    bgp_routed_pool_not_exported(facts, out);
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
