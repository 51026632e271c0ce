//! FelixConfiguration rules (projectcalico.org/v3): calico-rules.md section 6, the validated
//! fields (cross-field rules, enums, numeric bounds, durations, addresses).

use serde_json::Value;

use super::catalogue as c;
use super::{Fields, Sink, check_enum, check_range, items};
use crate::vocab::{self, Family, cidr};

/// Enum-like fields and their values (case-sensitive, as in Calico v3.32.1).
const ENUMS: &[(&str, &[&str])] = &[
    ("iptablesBackend", &["Auto", "Legacy", "NFT"]),
    ("chainInsertMode", &["Insert", "Append"]),
    ("defaultEndpointToHostAction", &["Drop", "Accept", "Return"]),
    ("iptablesFilterAllowAction", &["Accept", "Return"]),
    ("iptablesMangleAllowAction", &["Accept", "Return"]),
    ("iptablesFilterDenyAction", &["Drop", "Reject"]),
    ("nftablesFilterAllowAction", &["Accept", "Return"]),
    ("nftablesMangleAllowAction", &["Accept", "Return"]),
    ("nftablesFilterDenyAction", &["Drop", "Reject"]),
    (
        "logSeverityScreen",
        &["Trace", "Debug", "Info", "Warning", "Error", "Fatal"],
    ),
    (
        "logSeverityFile",
        &["Trace", "Debug", "Info", "Warning", "Error", "Fatal"],
    ),
    (
        "logSeveritySys",
        &["Trace", "Debug", "Info", "Warning", "Error", "Fatal"],
    ),
    ("bpfLogLevel", &["Off", "Info", "Debug"]),
    ("bpfExternalServiceMode", &["Tunnel", "DSR"]),
    ("bpfMapSizeConntrackScaling", &["Disabled", "DoubleIfFull"]),
    ("bpfEnforceRPF", &["Disabled", "Strict", "Loose"]),
    ("routeSource", &["WorkloadIPs", "CalicoIPAM"]),
    ("serviceLoopPrevention", &["Drop", "Reject", "Disabled"]),
    ("workloadSourceSpoofing", &["Disabled", "Any"]),
    ("awsSrcDstCheck", &["DoNothing", "Enable", "Disable"]),
    (
        "bpfConnectTimeLoadBalancing",
        &["TCP", "Enabled", "Disabled"],
    ),
    ("bpfHostNetworkedNATWithoutCTLB", &["Enabled", "Disabled"]),
    ("windowsManageFirewallRules", &["Enabled", "Disabled"]),
    (
        "natOutgoingExclusions",
        &["IPPoolsOnly", "IPPoolsAndHostIPs"],
    ),
    ("bpfAttachType", &["TC", "TCX"]),
    ("bpfJITHardening", &["Auto", "Strict"]),
    ("bpfConntrackMode", &["Auto", "Userspace", "BPFProgram"]),
    ("bpfConntrackLogLevel", &["Off", "Debug"]),
    ("bpfRedirectToPeer", &["Enabled", "Disabled"]),
    ("bpfProfiling", &["Enabled", "Disabled"]),
    ("programClusterRoutes", &["Enabled", "Disabled"]),
    ("ipForwarding", &["Enabled", "Disabled"]),
    ("nftablesMode", &["Disabled", "Enabled", "Auto"]),
];

/// Integer fields and their inclusive bounds.
const RANGES: &[(&str, i64, i64)] = &[
    ("bpfExtToServiceConnmark", 0, 4_294_967_295),
    ("iptablesMarkMask", 0, 4_294_967_295),
    ("nftablesMarkMask", 0, 4_294_967_295),
    ("wireguardListeningPort", 1, 65535),
    ("wireguardListeningPortV6", 1, 65535),
    ("wireguardRoutingRulePriority", 1, 32765),
    ("debugPort", 0, 65535),
    ("bpfKubeProxyHealthzPort", 0, 65535),
    ("ipv4NormalRoutePriority", 1, 2_147_483_646),
    ("ipv6NormalRoutePriority", 1, 2_147_483_646),
    ("ipv4ElevatedRoutePriority", 1, 2_147_483_646),
    ("ipv6ElevatedRoutePriority", 1, 2_147_483_646),
    ("logActionRateLimitBurst", 0, 9999),
    ("bpfMapSizeConntrackCleanupQueue", 1, i64::MAX),
    ("goGCThreshold", -1, i64::MAX),
    ("goMemoryLimitMB", -1, i64::MAX),
    ("goMaxProcs", -1, i64::MAX),
    ("bpfMaglevMaxEndpointsPerService", 1, 3000),
    ("bpfMaglevMaxServices", 1, 3000),
];

/// Duration fields (a representative set of the metav1.Duration fields Felix has).
const DURATIONS: &[&str] = &[
    "reportingInterval",
    "reportingTTL",
    "iptablesRefreshInterval",
    "iptablesPostWriteCheckInterval",
    "iptablesLockTimeout",
    "iptablesLockProbeInterval",
    "ipsetsRefreshInterval",
    "routeRefreshInterval",
    "interfaceRefreshInterval",
    "xdpRefreshInterval",
    "netlinkTimeout",
    "nftablesRefreshInterval",
    "bpfKubeProxyMinSyncPeriod",
    "endpointStatusPathPrefixInterval",
    "routeSyncDisabledInterval",
];

/// Check one FelixConfiguration.
pub(crate) fn check(sink: &mut Sink, doc: &Value) {
    let spec = Fields::of(doc.get("spec"), "spec");
    let name = doc
        .get("metadata")
        .and_then(|meta| meta.get("name"))
        .and_then(Value::as_str);
    if spec.has("routeTableRange") && spec.has("routeTableRanges") {
        sink.report(
            &c::FELIX_ROUTE_TABLE_BOTH,
            spec.at("routeTableRanges"),
            "`routeTableRange` and `routeTableRanges` are both set",
            Some("keep `routeTableRanges`".into()),
        );
    }
    if let Some(range) = spec.raw("routeTableRange") {
        let range = Fields::of(Some(range), "spec.routeTableRange");
        let (min, max) = (range.int("min").unwrap_or(0), range.int("max").unwrap_or(0));
        if !(1 <= min && min <= max && max <= 250) {
            sink.report(
                &c::FELIX_ROUTE_TABLE_RANGE,
                range.path(),
                format!("min {min}, max {max}: need 1 <= min <= max <= 250"),
                None,
            );
        }
    }
    let mut n_tables: i64 = 0;
    for (path, item) in items(spec.list("routeTableRanges"), &spec.at("routeTableRanges")) {
        let range = Fields::of(Some(item), &path);
        let (min, max) = (range.int("min").unwrap_or(0), range.int("max").unwrap_or(0));
        if min < 1 || min > max || max > 4_294_967_295 {
            sink.report(
                &c::FELIX_ROUTE_TABLE_RANGES,
                path,
                format!("min {min}, max {max}: need 1 <= min <= max <= 4294967295"),
                None,
            );
        } else {
            n_tables += max - min + 1;
        }
    }
    if n_tables > 65535 {
        sink.report(
            &c::FELIX_ROUTE_TABLE_RANGES,
            spec.at("routeTableRanges"),
            format!("the ranges designate {n_tables} tables; at most 65535"),
            None,
        );
    }
    if let Some(list) = spec.list("kubeNodePortRanges") {
        if list.len() > 7 {
            sink.report(
                &c::FELIX_NODE_PORT_RANGES,
                spec.at("kubeNodePortRanges"),
                format!("{} entries; at most 7", list.len()),
                None,
            );
        }
        for (path, item) in items(Some(list), &spec.at("kubeNodePortRanges")) {
            let ok = match item {
                Value::Number(number) => number
                    .as_i64()
                    .is_some_and(|port| vocab::check_port(port).is_ok()),
                Value::String(text) => match text.split_once(':') {
                    Some((low, high)) => {
                        matches!((vocab::parse_port(low), vocab::parse_port(high)), (Ok(low), Ok(high)) if low <= high)
                    }
                    None => vocab::parse_port(text).is_ok(),
                },
                _ => false,
            };
            if !ok {
                sink.report(
                    &c::FELIX_NODE_PORT_RANGES,
                    path,
                    format!("`{item}` is not a port or a `min:max` range"),
                    None,
                );
            }
        }
    }
    for (path, item) in items(
        spec.list("externalNodesList"),
        &spec.at("externalNodesList"),
    ) {
        let Some(text) = item.as_str() else { continue };
        match cidr::parse_ip_or_cidr(text) {
            Ok(net) if Family::of_net(&net) == Family::V4 => {}
            Ok(_) => sink.report(
                &c::FELIX_EXTERNAL_NODES,
                path,
                format!("`{text}` is IPv6; only IPv4 is allowed"),
                None,
            ),
            Err(err) => sink.report(&c::FELIX_EXTERNAL_NODES, path, err.to_string(), None),
        }
    }
    if let Some(region) = spec.str("openstackRegion")
        && (region.len() > 46 || !vocab::is_dns_label(region))
    {
        sink.report(
            &c::FELIX_OPENSTACK_REGION,
            spec.at("openstackRegion"),
            format!("`{region}` is not a DNS label of at most 46 characters"),
            None,
        );
    }
    for (key, family) in [
        ("natOutgoingAddress", Family::V4),
        ("deviceRouteSourceAddress", Family::V4),
        ("deviceRouteSourceAddressIPv6", Family::V6),
    ] {
        if let Some(text) = spec.str(key)
            && (text.len() > 45 || cidr::parse_ip(text).map(Family::of_addr).ok() != Some(family))
        {
            sink.report(
                &c::FELIX_SOURCE_ADDRESS,
                spec.at(key),
                format!("`{text}` is not a bare {family} address"),
                None,
            );
        }
    }
    for (path, item) in items(
        spec.list("healthTimeoutOverrides"),
        &spec.at("healthTimeoutOverrides"),
    ) {
        let entry = Fields::of(Some(item), &path);
        if let Some(name) = entry.str("name")
            && (name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b' ' | b'-')))
        {
            sink.report(
                &c::FELIX_HEALTH_TIMEOUT,
                entry.at("name"),
                format!("`{name}` is not a valid health timeout name"),
                None,
            );
        }
        if let Some(timeout) = entry.str("timeout")
            && !vocab::is_duration(timeout)
        {
            sink.report(
                &c::FELIX_HEALTH_TIMEOUT,
                entry.at("timeout"),
                format!("`{timeout}` is not a non-negative duration"),
                None,
            );
        }
    }
    if spec
        .str("nodeSelector")
        .is_some_and(|text| !text.is_empty())
        && name.is_some_and(|name| name == "default" || name.starts_with("node."))
    {
        sink.report(
            &c::FELIX_NODE_SELECTOR,
            spec.at("nodeSelector"),
            format!(
                "`nodeSelector` cannot be set on FelixConfiguration `{}`",
                name.unwrap_or_default()
            ),
            Some("put selector-scoped settings in a FelixConfiguration with another name".into()),
        );
    }
    for (key, valid) in ENUMS {
        check_enum(sink, &c::FELIX_ENUM, &spec, key, valid);
    }
    for &(key, min, max) in RANGES {
        check_range(sink, &c::FELIX_RANGE, &spec, key, min, max);
    }
    for key in DURATIONS {
        if let Some(text) = spec.str(key)
            && !vocab::is_duration(text)
        {
            sink.report(
                &c::FELIX_DURATION,
                spec.at(key),
                format!("`{key}: {text}` is not a duration"),
                Some("write e.g. `90s` or `1m30s`".into()),
            );
        }
    }
}
