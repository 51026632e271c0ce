//! FelixConfiguration rules (projectcalico.org/v3): calico-rules.md section 6, the validated
//! fields (cross-field rules, enums, numeric bounds, durations, addresses).

use serde_json::Value;

use super::catalogue as c;
use super::{Fields, Sink, check_enum, check_range, items};
use crate::vocab::{self, DurationForm, Family, cidr};

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
    // Netkit and the IPIP/no-encap split of cluster routes arrive with v3.33 (older releases
    // report them as CR0008 from their own schema index).
    ("bpfAttachType", &["TC", "TCX", "Netkit"]),
    ("bpfJITHardening", &["Auto", "Strict"]),
    ("bpfConntrackMode", &["Auto", "Userspace", "BPFProgram"]),
    ("bpfConntrackLogLevel", &["Off", "Debug"]),
    ("bpfRedirectToPeer", &["Enabled", "Disabled"]),
    ("bpfProfiling", &["Enabled", "Disabled"]),
    (
        "programClusterRoutes",
        &[
            "Enabled",
            "Disabled",
            "EnabledIPIPOnly",
            "EnabledNoEncapOnly",
        ],
    ),
    ("ipForwarding", &["Enabled", "Disabled"]),
    ("nftablesMode", &["Disabled", "Enabled", "Auto"]),
    // Found by the differential test (tests/tests/oracle_diff.rs): CRD enums of v3.32.1.
    ("floatingIPs", &["Enabled", "Disabled"]),
    ("flowLogsLocalReporter", &["Disabled", "Enabled"]),
    ("flowLogsPolicyEvaluationMode", &["None", "Continuous"]),
    ("istioAmbientMode", &["Enabled", "Disabled"]),
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
    ("bpfKubeProxyHealthzPort", 1, 65535),
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

/// Duration fields whose v3.32.1 CRD pattern is `^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`, written as
/// a plain YAML scalar: the API server compiles `\\` as a literal backslash, so only whole
/// numbers per unit pass (`1s500ms`, not `1.5s`). Every such field of the CRD is listed; the
/// table test in `tests/tests/validate_rules.rs` compares this list with the pinned CRD file.
pub(crate) const WHOLE_DURATIONS: &[&str] = &[
    "bpfKubeProxyMinSyncPeriod",
    "debugSimulateCalcGraphHangAfter",
    "debugSimulateDataplaneApplyDelay",
    "debugSimulateDataplaneHangAfter",
    "endpointReportingDelay",
    "flowLogsFlushInterval",
    "interfaceRefreshInterval",
    "ipsetsRefreshInterval",
    "iptablesLockProbeInterval",
    "iptablesPostWriteCheckInterval",
    "iptablesRefreshInterval",
    "netlinkTimeout",
    "reportingInterval",
    "reportingTTL",
    "routeRefreshInterval",
    "usageReportingInitialDelay",
    "usageReportingInterval",
    "wireguardKeepAlive",
    "xdpRefreshInterval",
];

/// Duration fields that admit a fraction: `liveMigrationRouteConvergenceTime`, whose pattern
/// escapes the dot once.
pub(crate) const FRACTION_DURATIONS: &[&str] = &["liveMigrationRouteConvergenceTime"];

/// Duration fields without a CRD pattern that the API types decode with Go's duration parser
/// (`metav1.Duration`), or that Felix parses with it: `ns` and `us`, signs and `0` pass, an
/// empty string or a bare number does not.
pub(crate) const GO_DURATIONS: &[&str] = &["dataplaneWatchdogTimeout", "nftablesRefreshInterval"];

/// Enum-like fields whose v3.32.1 CRD pattern (`^(?i)(A|B)?$`) admits an empty string, which
/// Calico's validator skips as unset.
const EMPTY_ALLOWED: &[&str] = &[
    "chainInsertMode",
    "defaultEndpointToHostAction",
    "iptablesFilterAllowAction",
    "iptablesMangleAllowAction",
    "iptablesFilterDenyAction",
    "nftablesFilterAllowAction",
    "nftablesMangleAllowAction",
    "nftablesFilterDenyAction",
    "logSeverityScreen",
    "logSeverityFile",
    "logSeveritySys",
    "bpfLogLevel",
    "bpfExternalServiceMode",
    "bpfMapSizeConntrackScaling",
    "bpfEnforceRPF",
    "routeSource",
    "serviceLoopPrevention",
    "workloadSourceSpoofing",
];

/// Port fields read as Calico's port type: a number 1-65535, or text holding one, a range
/// `min:max`, or a port name (letters, digits, `_.-`, at most 128).
const PORT_FIELDS: &[&str] = &["natPortRange", "bpfPSNATPorts"];

/// The fields of `bpfConntrackTimeouts`, each `Auto` or a duration (see
/// [`vocab::is_conntrack_timeout`]).
pub(crate) const CONNTRACK_TIMEOUTS: &[&str] = &[
    "creationGracePeriod",
    "genericTimeout",
    "icmpTimeout",
    "tcpEstablished",
    "tcpFinsSeen",
    "tcpResetSeen",
    "tcpSynSent",
    "udpTimeout",
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
        // A missing bound is the schema pass's finding (required field); comparing a made-up
        // 0 would only add noise.
        if let (Some(min), Some(max)) = (range.int("min"), range.int("max"))
            && !(1 <= min && min <= max && max <= 250)
        {
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
        let (Some(min), Some(max)) = (range.int("min"), range.int("max")) else {
            continue;
        };
        if min < 1 || min > max || max > 4_294_967_295 {
            sink.report(
                &c::FELIX_ROUTE_TABLE_RANGES,
                path,
                format!("min {min}, max {max}: need 1 <= min <= max <= 4294967295"),
                None,
            );
        } else {
            // Each range is at most 2^32 tables; the sum saturates rather than wrap.
            n_tables = n_tables.saturating_add(max - min + 1);
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
    if let Some(region) = spec.str("openstackRegion").filter(|text| !text.is_empty())
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
        // Empty is unset; an IPv4-mapped IPv6 address is IPv4, as Go's `To4` sees it.
        if let Some(text) = spec.str(key).filter(|text| !text.is_empty())
            && (text.len() > 45
                || cidr::parse_ip(text).map(Family::of_go_addr).ok() != Some(family))
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
        // Decoded by Go's time.ParseDuration (no CRD pattern), then refused when negative.
        if let Some(timeout) = entry.str("timeout")
            && vocab::go_duration_nanos(timeout).is_none_or(|nanos| nanos < 0)
        {
            sink.report(
                &c::FELIX_HEALTH_TIMEOUT,
                entry.at("timeout"),
                format!("`{timeout}` is not a non-negative duration"),
                Some("write a Go duration such as `30s`, `1m30s` or `1.5s`, or `0`".into()),
            );
        }
    }
    // The CRD's CEL rule refuses the field itself, even empty.
    if spec.str("nodeSelector").is_some()
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
        if EMPTY_ALLOWED.contains(key) && spec.str(key) == Some("") {
            continue;
        }
        check_enum(sink, &c::FELIX_ENUM, &spec, key, valid);
    }
    for key in PORT_FIELDS {
        if let Some(value) = spec.raw(key)
            && !is_calico_port(value)
        {
            sink.report(
                &c::FELIX_RANGE,
                spec.at(key),
                format!("`{key}: {value}` is not a port 1-65535, a range `min:max` or a port name"),
                Some("write e.g. `32768:60999`".into()),
            );
        }
    }
    check_names(sink, &spec);
    check_patterns(sink, &spec);
    for direction in ["failsafeInboundHostPorts", "failsafeOutboundHostPorts"] {
        for (path, item) in items(spec.list(direction), &spec.at(direction)) {
            let entry = Fields::of(Some(item), &path);
            if let Some(port) = entry.int("port")
                && !(0..=65535).contains(&port)
            {
                sink.report(
                    &c::FELIX_RANGE,
                    entry.at("port"),
                    format!("`port: {port}` is outside 0-65535"),
                    None,
                );
            }
        }
    }
    for &(key, min, max) in RANGES {
        check_range(sink, &c::FELIX_RANGE, &spec, key, min, max);
    }
    check_durations(sink, &spec);
}

/// The duration fields, each against the form its CRD pattern admits.
fn check_durations(sink: &mut Sink, spec: &Fields<'_, '_>) {
    for key in WHOLE_DURATIONS {
        let Some(text) = spec.str(key) else { continue };
        if vocab::is_duration(text, DurationForm::Whole) {
            continue;
        }
        let (message, hint) = match vocab::whole_duration(text) {
            Some(whole) => (
                format!("`{key}: {text}` has a fraction, which the v3.32.1 CRD pattern refuses"),
                format!("write whole numbers per unit: {whole} instead of {text}"),
            ),
            None if vocab::is_duration(text, DurationForm::Fraction) => (
                format!("`{key}: {text}` has a fraction, which the v3.32.1 CRD pattern refuses"),
                "write whole numbers per unit, e.g. 1s500ms instead of 1.5s".to_owned(),
            ),
            None => (
                format!("`{key}: {text}` is not a duration"),
                "write whole numbers with units ms, s, m or h, e.g. `90s`, `1m30s` or `1s500ms`"
                    .to_owned(),
            ),
        };
        sink.report(&c::FELIX_DURATION, spec.at(key), message, Some(hint));
    }
    for key in FRACTION_DURATIONS {
        if let Some(text) = spec.str(key)
            && !vocab::is_duration(text, DurationForm::Fraction)
        {
            sink.report(
                &c::FELIX_DURATION,
                spec.at(key),
                format!("`{key}: {text}` is not a duration"),
                Some("write e.g. `90s`, `1m30s` or `1.5s`".into()),
            );
        }
    }
    for key in GO_DURATIONS {
        if let Some(text) = spec.str(key)
            && !vocab::is_go_duration(text)
        {
            sink.report(
                &c::FELIX_DURATION,
                spec.at(key),
                format!("`{key}: {text}` is not a duration"),
                Some("write a number with a unit, e.g. `90s`, `1m30s` or `1.5s`".into()),
            );
        }
    }
    let Some(timeouts) = spec.raw("bpfConntrackTimeouts") else {
        return;
    };
    let timeouts = Fields::of(Some(timeouts), "spec.bpfConntrackTimeouts");
    for key in CONNTRACK_TIMEOUTS {
        if let Some(text) = timeouts.str(key)
            && !vocab::is_conntrack_timeout(text)
        {
            sink.report(
                &c::FELIX_DURATION,
                timeouts.at(key),
                format!("`{key}: {text}` is neither `Auto` nor a duration"),
                Some("write `Auto` or a duration such as `30s` or `1m30s`".into()),
            );
        }
    }
}

/// A value of Calico's port type (see [`PORT_FIELDS`]).
fn is_calico_port(value: &Value) -> bool {
    let in_range = |text: &str| text.parse::<u16>().is_ok_and(|port| port >= 1);
    match value {
        Value::Number(number) => number.as_i64().is_some_and(|n| (1..=65535).contains(&n)),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            in_range(text)
        }
        Value::String(text) => match text.split_once(':') {
            Some((min, max))
                if [min, max]
                    .iter()
                    .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())) =>
            {
                in_range(min) && in_range(max) && min.parse::<u16>().ok() <= max.parse::<u16>().ok()
            }
            _ => {
                (1..=128).contains(&text.len())
                    && text
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            }
        },
        _ => true,
    }
}

/// Whether `text` is 1-`max` bytes of ASCII letters, digits and `extra`.
fn charset(text: &str, max: usize, extra: &[u8]) -> bool {
    (1..=max).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || extra.contains(&b))
}

/// Interface names and filters, CIDR lists and the Prometheus host, as Calico's validator
/// checks them (empty values are unset).
fn check_names(sink: &mut Sink, spec: &Fields<'_, '_>) {
    let present = |key: &str| spec.str(key).filter(|text| !text.is_empty());
    // Calico's `regexp` rule: the value must compile as a Go regular expression.
    for key in [
        "bpfDataIfacePattern",
        "bpfL3IfacePattern",
        "bpfDisableGROForIfaces",
        "mtuIfacePattern",
        "logDebugFilenameRegex",
    ] {
        if let Some(text) = present(key)
            && let Err(err) = vocab::regexp::check_grouping(text)
        {
            sink.report(
                &c::FELIX_REGEXP,
                spec.at(key),
                format!("`{key}: {text}` is not a regular expression: {err}"),
                None,
            );
        }
    }
    for key in ["wireguardInterfaceName", "wireguardInterfaceNameV6"] {
        if let Some(text) = present(key)
            && text != "*"
            && !charset(text, 15, b"_.-")
        {
            sink.report(
                &c::FELIX_INTERFACE,
                spec.at(key),
                format!("`{key}: {text}` is not an interface name"),
                Some("use 1-15 letters, digits, `_`, `.` or `-`".into()),
            );
        }
    }
    let filter_hint = || Some("use 1-15 letters, digits, `:`, `.`, `_`, `+` or `-`".into());
    if let Some(text) = present("iptablesNATOutgoingInterfaceFilter")
        && !charset(text, 15, b":._+-")
    {
        sink.report(
            &c::FELIX_INTERFACE,
            spec.at("iptablesNATOutgoingInterfaceFilter"),
            format!("`{text}` is not an interface filter"),
            filter_hint(),
        );
    }
    let tracked = spec.list("bpfForceTrackPacketsFromIfaces");
    for (path, item) in items(tracked, &spec.at("bpfForceTrackPacketsFromIfaces")) {
        if let Some(text) = item.as_str()
            && !charset(text, 15, b":._+-")
        {
            sink.report(
                &c::FELIX_INTERFACE,
                path,
                format!("`{text}` is not an interface filter"),
                filter_hint(),
            );
        }
    }
    for key in ["bpfDSROptoutCIDRs", "bpfExcludeCIDRsFromNAT"] {
        for (path, item) in items(spec.list(key), &spec.at(key)) {
            // Upstream passes an empty entry.
            if let Some(text) = item.as_str().filter(|text| !text.is_empty())
                && let Err(err) = cidr::parse_ip_or_cidr(text)
            {
                sink.report(&c::FELIX_CIDR_LIST, path, err.to_string(), None);
            }
        }
    }
    if let Some(text) = present("prometheusMetricsHost")
        && !charset(text, 64, b":._+-")
    {
        sink.report(
            &c::FELIX_PROMETHEUS_HOST,
            spec.at("prometheusMetricsHost"),
            format!("`{text}` is not a host name or address"),
            None,
        );
    }
}

/// `name=value` pairs separated by commas, as the CRD patterns of `featureDetectOverride` and
/// `featureGates` read them: names of letters, digits, `-` and `_`; `value` says whether a
/// value (which has no `=`) is allowed. An empty text passes.
fn is_pair_list(text: &str, value: impl Fn(&str) -> bool) -> bool {
    let name = |part: &str| charset(part, usize::MAX, b"-_");
    let mut pieces = text.split('=');
    let first = pieces.next().unwrap_or_default();
    let rest: Vec<&str> = pieces.collect();
    let Some((last, middle)) = rest.split_last() else {
        return text.is_empty();
    };
    // Each middle piece is `value,name`; the last is `value` or `value,`.
    name(first)
        && middle.iter().all(|piece| {
            piece
                .rsplit_once(',')
                .is_some_and(|(val, next)| value(val) && name(next))
        })
        && (value(last) || last.strip_suffix(',').is_some_and(&value))
}

/// The CRD patterns we check in plain code (see the catalogue's `CR4016`).
fn check_patterns(sink: &mut Sink, spec: &Fields<'_, '_>) {
    let mut report = |key: &str, text: &str| {
        sink.report(
            &c::FELIX_PATTERN,
            spec.at(key),
            format!("`{key}: {text}` does not match the v3.32.1 CRD's pattern"),
            None,
        );
    };
    if let Some(text) = spec.str("logPrefix")
        && !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"%: /_-".contains(&b))
    {
        report("logPrefix", text);
    }
    if let Some(text) = spec.str("logActionRateLimit") {
        let ok = text.split_once('/').is_some_and(|(count, unit)| {
            (1..=4).contains(&count.len())
                && !count.starts_with('0')
                && count.bytes().all(|b| b.is_ascii_digit())
                && matches!(unit, "second" | "minute" | "hour" | "day")
        });
        if !ok {
            report("logActionRateLimit", text);
        }
    }
    if let Some(text) = spec.str("featureDetectOverride")
        && !is_pair_list(text, |val| matches!(val, "true" | "false" | ""))
    {
        report("featureDetectOverride", text);
    }
    if let Some(text) = spec.str("featureGates")
        && !is_pair_list(text, |val| !val.is_empty())
    {
        report("featureGates", text);
    }
}
