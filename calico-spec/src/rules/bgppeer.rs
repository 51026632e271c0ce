//! BGPPeer rules (projectcalico.org/v3): calico-rules.md section 4.

use std::net::IpAddr;

use serde_json::Value;

use super::catalogue as c;
use super::{Fields, Sink, check_enum, check_selector, items};
use crate::vocab::{self, Family, cidr};

/// Parse a peer IP: `<IP>`, `<IPv4>:<port>` or `[<IPv6>]:<port>`; returns the address.
fn parse_peer_ip(text: &str) -> Result<IpAddr, String> {
    if let Ok(addr) = cidr::parse_ip(text) {
        return Ok(addr);
    }
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let Some((host, port)) = rest.split_once("]:") else {
            return Err("a bracketed IPv6 address needs a port: `[fd00::1]:179`".into());
        };
        (host, port)
    } else {
        let Some((host, port)) = text.rsplit_once(':') else {
            return Err("not an IP address".into());
        };
        (host, port)
    };
    let addr = cidr::parse_ip(host).map_err(|err| err.to_string())?;
    if text.starts_with('[') != (Family::of_addr(addr) == Family::V6) {
        return Err(
            "IPv6 addresses with a port are written `[addr]:port`, IPv4 ones `addr:port`".into(),
        );
    }
    vocab::parse_port(port).map_err(|err| err.to_string())?;
    Ok(addr)
}

/// Check one BGPPeer.
pub(crate) fn check(sink: &mut Sink, doc: &Value) {
    let spec = Fields::of(doc.get("spec"), "spec");
    let non_empty = |key: &str| spec.str(key).is_some_and(|text| !text.is_empty());
    if non_empty("node") && non_empty("nodeSelector") {
        sink.report(
            &c::PEER_NODE_AND_SELECTOR,
            spec.at("nodeSelector"),
            "`node` and `nodeSelector` are both set",
            Some("keep one of them".into()),
        );
    }
    if non_empty("peerIP") && non_empty("peerSelector") {
        sink.report(
            &c::PEER_IP_AND_SELECTOR,
            spec.at("peerSelector"),
            "`peerIP` and `peerSelector` are both set",
            Some("keep one of them".into()),
        );
    }
    let as_number = spec.int("asNumber").unwrap_or(0);
    if non_empty("peerSelector") && as_number != 0 {
        sink.report(
            &c::PEER_AS_WITH_SELECTOR,
            spec.at("asNumber"),
            "`asNumber` must be empty when `peerSelector` is set",
            Some("remove `asNumber`".into()),
        );
    }
    if non_empty("localWorkloadSelector") {
        if as_number == 0 {
            sink.report(
                &c::PEER_LOCAL_WORKLOAD,
                spec.at("localWorkloadSelector"),
                "`localWorkloadSelector` needs a non-zero `asNumber`",
                None,
            );
        }
        for key in ["peerIP", "peerSelector"] {
            if non_empty(key) {
                sink.report(
                    &c::PEER_LOCAL_WORKLOAD,
                    spec.at(key),
                    format!("`{key}` must be empty with `localWorkloadSelector`"),
                    None,
                );
            }
        }
    }
    for key in ["asNumber", "localASNumber"] {
        if let Some(number) = spec.int(key)
            && !vocab::is_as_number(number)
        {
            sink.report(
                &c::PEER_AS_NUMBER,
                spec.at(key),
                format!("`{key}: {number}` is outside 0-4294967295"),
                None,
            );
        }
        if let Some(number) = spec.int(key)
            && let Some(message) = vocab::as_number_int32_problem(key, number)
        {
            sink.report(
                &c::PEER_AS_NUMBER,
                spec.at(key),
                message,
                Some(vocab::AS_NUMBER_INT32_HINT.into()),
            );
        }
    }
    let peer_addr = match spec.str("peerIP") {
        Some(text) if !text.is_empty() => {
            if text.len() > 64 {
                sink.report(
                    &c::PEER_IP_FORMAT,
                    spec.at("peerIP"),
                    format!("`peerIP` is {} characters; at most 64", text.len()),
                    None,
                );
                None
            } else {
                match parse_peer_ip(text) {
                    Ok(addr) => Some(addr),
                    Err(reason) => {
                        sink.report(
                            &c::PEER_IP_FORMAT,
                            spec.at("peerIP"),
                            format!("`{text}` is not a valid peer IP: {reason}"),
                            Some("write `10.0.0.1`, `10.0.0.1:179` or `[fd00::1]:179`".into()),
                        );
                        None
                    }
                }
            }
        }
        _ => None,
    };
    if let Some(reachable) = spec.str("reachableBy").filter(|text| !text.is_empty()) {
        if !non_empty("peerIP") {
            sink.report(
                &c::PEER_REACHABLE_BY,
                spec.at("reachableBy"),
                "`reachableBy` needs `peerIP`",
                None,
            );
        }
        match cidr::parse_ip(reachable) {
            Err(_) => sink.report(
                &c::PEER_REACHABLE_BY,
                spec.at("reachableBy"),
                format!("`{reachable}` is not an IP address"),
                None,
            ),
            Ok(gateway) => {
                if let Some(peer) = peer_addr
                    && Family::of_go_addr(peer) != Family::of_go_addr(gateway)
                {
                    sink.report(
                        &c::PEER_REACHABLE_BY,
                        spec.at("reachableBy"),
                        format!(
                            "`{reachable}` is {} but the peer IP is {}",
                            Family::of_go_addr(gateway),
                            Family::of_go_addr(peer)
                        ),
                        None,
                    );
                }
            }
        }
    }
    if spec.bool("keepOriginalNextHop") == Some(true) && non_empty("nextHopMode") {
        sink.report(
            &c::PEER_KEEP_NEXT_HOP,
            spec.at("keepOriginalNextHop"),
            "`keepOriginalNextHop: true` cannot be combined with `nextHopMode`",
            Some("remove `keepOriginalNextHop` and use `nextHopMode: Keep`".into()),
        );
    }
    if let Some(text) = spec.str("maxRestartTime")
        && !vocab::is_go_duration(text)
    {
        sink.report(
            &c::PEER_DURATION,
            spec.at("maxRestartTime"),
            format!("`maxRestartTime: {text}` is not a duration"),
            Some("write a number with a unit, such as `120s` or `2m`".into()),
        );
    }
    if let Some(ttl) = spec.int("ttlSecurity")
        && !(0..=255).contains(&ttl)
    {
        sink.report(
            &c::PEER_TTL_SECURITY,
            spec.at("ttlSecurity"),
            format!("`ttlSecurity: {ttl}` is outside 0-255"),
            None,
        );
    }
    check_enum(
        sink,
        &c::PEER_ENUM,
        &spec,
        "nextHopMode",
        &["Auto", "Self", "Keep"],
    );
    check_enum(
        sink,
        &c::PEER_ENUM,
        &spec,
        "sourceAddress",
        &["UseNodeIP", "None"],
    );
    check_enum(
        sink,
        &c::PEER_ENUM,
        &spec,
        "reversePeering",
        &["Auto", "Manual"],
    );
    // Calico's `name` rule on `node` checks the shape only (no limit on a label's length); the
    // CRD's maxLength limits the whole to 253 characters.
    if let Some(node) = spec.str("node")
        && !node.is_empty()
        && (node.len() > 253 || !vocab::is_calico_name(node))
    {
        sink.report(
            &c::PEER_NAMES,
            spec.at("node"),
            format!("`{node}` is not a valid node name"),
            None,
        );
    }
    for (path, item) in items(spec.list("filters"), &spec.at("filters")) {
        if let Some(name) = item.as_str()
            && !vocab::is_dns_subdomain(name)
        {
            sink.report(
                &c::PEER_NAMES,
                path,
                format!("`{name}` is not a valid BGPFilter name"),
                None,
            );
        }
    }
    for key in ["nodeSelector", "peerSelector", "localWorkloadSelector"] {
        check_selector(sink, &spec, key);
    }
}
