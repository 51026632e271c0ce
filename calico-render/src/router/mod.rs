//! The router side as FRR text: [`frr_config`] writes a [`Router`] (planned from a
//! ClusterNetwork by `calico_spec::router::plan`) as an `frr.conf`, and [`read()`] reads the
//! subset of a hand-written `frr.conf` that the cross-checks need back into a [`Router`].
//!
//! The text pins `frr defaults traditional` (the `datacenter` profile turns
//! `bgp ebgp-requires-policy` off) and follows FRR 8.4's own `show running-config` order and
//! spelling, so that loading it into a running bgpd changes nothing (the daemon test diffs the
//! two). Deterministic: every list comes from the model in its order.

pub mod read;

use std::fmt::Write as _;

use calico_spec::router::{ClusterSide, Family, GracefulRestart, RemoteAs, Router};

pub use read::{ReadError, read};

/// The FRR configuration of `router`, which pairs with `side` (named in the header comment).
pub fn frr_config(router: &Router, side: &ClusterSide, cluster_name: &str) -> String {
    let mut out = String::new();
    let peers: Vec<&str> = side.sessions.iter().map(|s| s.peer.as_str()).collect();
    let _ = writeln!(
        out,
        "! FRR configuration of router `{}`, rendered by calico-render from ClusterNetwork `{}`",
        router.hostname, cluster_name
    );
    let _ = writeln!(
        out,
        "! (BGPPeer {}). Checked with FRR 8.4; apply with `vtysh -f` (the BFD part belongs to \
         bfdd).",
        peers.join(", ")
    );
    out.push_str("frr defaults traditional\n");
    let _ = writeln!(out, "hostname {}", router.hostname);
    if router.ip_forwarding {
        out.push_str("ip forwarding\n");
    }
    if router.ipv6_forwarding {
        out.push_str("ipv6 forwarding\n");
    }
    out.push_str("!\n");
    // FRR's own order: `router bgp`, prefix-lists, route-maps, then bfdd's part.
    let _ = writeln!(out, "router bgp {}", router.local_as);
    if let Some(id) = router.router_id {
        let _ = writeln!(out, " bgp router-id {id}");
    }
    if !router.ebgp_requires_policy {
        out.push_str(" no bgp ebgp-requires-policy\n");
    }
    out.push_str(" bgp log-neighbor-changes\n");
    out.push_str(" no bgp default ipv4-unicast\n");
    match router.graceful_restart {
        GracefulRestart::Disabled => out.push_str(" bgp graceful-restart-disable\n"),
        GracefulRestart::StalepathTime(seconds) => {
            let _ = writeln!(out, " bgp graceful-restart stalepath-time {seconds}");
        }
        GracefulRestart::Helper => {}
    }
    if router.multipath_relax {
        out.push_str(" bgp bestpath as-path multipath-relax\n");
    }
    for group in &router.groups {
        let name = &group.name;
        let _ = writeln!(out, " neighbor {name} peer-group");
        match group.remote_as {
            Some(RemoteAs::Number(asn)) => {
                let _ = writeln!(out, " neighbor {name} remote-as {asn}");
            }
            Some(RemoteAs::External) => {
                let _ = writeln!(out, " neighbor {name} remote-as external");
            }
            Some(RemoteAs::Internal) => {
                let _ = writeln!(out, " neighbor {name} remote-as internal");
            }
            None => {}
        }
        if let Some(profile) = &group.bfd {
            let _ = writeln!(out, " neighbor {name} bfd");
            if let Some(profile) = profile {
                let _ = writeln!(out, " neighbor {name} bfd profile {profile}");
            }
        }
        if let Some(ttl) = group.ebgp_multihop {
            let _ = writeln!(out, " neighbor {name} ebgp-multihop {ttl}");
        }
        if group.disable_connected_check {
            let _ = writeln!(out, " neighbor {name} disable-connected-check");
        }
        if let Some(source) = group.update_source {
            let _ = writeln!(out, " neighbor {name} update-source {source}");
        }
        if let Some((keepalive, hold)) = group.timers {
            let _ = writeln!(out, " neighbor {name} timers {keepalive} {hold}");
        }
        for node in &group.neighbors {
            let _ = writeln!(out, " neighbor {node} peer-group {name}");
        }
    }
    for group in &router.groups {
        for range in &group.listen_ranges {
            let _ = writeln!(out, " bgp listen range {range} peer-group {}", group.name);
        }
    }
    for family in [Family::Ipv4, Family::Ipv6] {
        let groups: Vec<_> = router
            .groups
            .iter()
            .filter_map(|group| group.families.get(&family).map(|af| (group, af)))
            .collect();
        if groups.is_empty() {
            continue;
        }
        out.push_str(" !\n");
        let _ = writeln!(
            out,
            " address-family {} unicast",
            match family {
                Family::Ipv4 => "ipv4",
                Family::Ipv6 => "ipv6",
            }
        );
        let ibgp = groups.iter().any(|(group, _)| !router.is_ebgp(group));
        for (group, af) in groups {
            let name = &group.name;
            if af.activate {
                let _ = writeln!(out, "  neighbor {name} activate");
            }
            if af.soft_reconfiguration {
                let _ = writeln!(out, "  neighbor {name} soft-reconfiguration inbound");
            }
            if let Some(map) = &af.route_map_in {
                let _ = writeln!(out, "  neighbor {name} route-map {map} in");
            }
            if let Some(map) = &af.route_map_out {
                let _ = writeln!(out, "  neighbor {name} route-map {map} out");
            }
        }
        if let Some(paths) = router.maximum_paths.get(&family) {
            let _ = writeln!(out, "  maximum-paths {paths}");
            if ibgp {
                let _ = writeln!(out, "  maximum-paths ibgp {paths}");
            }
        }
        out.push_str(" exit-address-family\n");
    }
    out.push_str("exit\n!\n");
    for (family, lists) in &router.prefix_lists {
        let keyword = match family {
            Family::Ipv4 => "ip",
            Family::Ipv6 => "ipv6",
        };
        for (name, list) in lists {
            for entry in &list.entries {
                let _ = write!(
                    out,
                    "{keyword} prefix-list {name} seq {} {} ",
                    entry.seq,
                    if entry.permit { "permit" } else { "deny" }
                );
                match entry.prefix {
                    Some(prefix) => {
                        let _ = write!(out, "{prefix}");
                    }
                    None => out.push_str("any"),
                }
                if let Some(ge) = entry.ge {
                    let _ = write!(out, " ge {ge}");
                }
                if let Some(le) = entry.le {
                    let _ = write!(out, " le {le}");
                }
                out.push('\n');
            }
            out.push_str("!\n");
        }
    }
    for (name, entries) in &router.route_maps {
        for entry in entries {
            let _ = writeln!(
                out,
                "route-map {name} {} {}",
                if entry.permit { "permit" } else { "deny" },
                entry.seq
            );
            if let Some((family, list)) = &entry.match_prefix_list {
                let keyword = match family {
                    Family::Ipv4 => "ip",
                    Family::Ipv6 => "ipv6",
                };
                let _ = writeln!(out, " match {keyword} address prefix-list {list}");
            }
            if entry.set_origin_igp {
                out.push_str(" set origin igp\n");
            }
            out.push_str("exit\n!\n");
        }
    }
    if !router.bfd_profiles.is_empty() {
        out.push_str("bfd\n");
        for (name, profile) in &router.bfd_profiles {
            let _ = writeln!(out, " profile {name}");
            if let Some(ttl) = profile.minimum_ttl {
                let _ = writeln!(out, "  minimum-ttl {ttl}");
            }
            out.push_str(" exit\n !\n");
        }
        out.push_str("exit\n!\n");
    }
    out
}
