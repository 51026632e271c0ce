//! BGPConfiguration rules (projectcalico.org/v3): calico-rules.md section 5.

use serde_json::Value;

use super::catalogue as c;
use super::{Fields, Sink, check_enum, check_range, items};
use crate::vocab::{self, Family, cidr};

/// Check one BGPConfiguration.
pub(crate) fn check(sink: &mut Sink, doc: &Value) {
    let spec = Fields::of(doc.get("spec"), "spec");
    let name = doc
        .get("metadata")
        .and_then(|meta| meta.get("name"))
        .and_then(Value::as_str);
    if let Some(name) = name.filter(|name| *name != "default") {
        check_default_only(sink, &spec, name);
    }
    if let Some(text) = spec.str("nodeMeshMaxRestartTime")
        && !vocab::is_go_duration(text)
    {
        sink.report(
            &c::BGP_DURATION,
            spec.at("nodeMeshMaxRestartTime"),
            format!("`nodeMeshMaxRestartTime: {text}` is not a duration"),
            Some("write a number with a unit, such as `120s` or `2m`".into()),
        );
    }
    if spec.bool("nodeToNodeMeshEnabled") == Some(false) {
        for key in ["nodeMeshPassword", "nodeMeshMaxRestartTime"] {
            if spec.has(key) {
                sink.report(
                    &c::BGP_MESH_ONLY,
                    spec.at(key),
                    format!("`{key}` is set while `nodeToNodeMeshEnabled: false`"),
                    Some(format!("remove `{key}`")),
                );
            }
        }
    }
    let communities = spec.list("communities");
    let advertisements = spec.list("prefixAdvertisements");
    if communities.is_some_and(|list| !list.is_empty())
        && advertisements.is_none_or(|list| list.is_empty())
    {
        sink.report(
            &c::BGP_COMMUNITIES_UNUSED,
            spec.at("communities"),
            "`communities` are defined but no `prefixAdvertisements` use them",
            None,
        );
    }
    for (key, list) in [
        ("communities", communities),
        ("prefixAdvertisements", advertisements),
    ] {
        if let Some(list) = list
            && list.len() > 500
        {
            sink.report(
                if key == "communities" {
                    &c::BGP_COMMUNITY
                } else {
                    &c::BGP_PREFIX_ADVERTISEMENT
                },
                spec.at(key),
                format!("`{key}` has {} entries; at most 500", list.len()),
                None,
            );
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for (path, item) in items(communities, &spec.at("communities")) {
        let entry = Fields::of(Some(item), &path);
        match entry.str("name") {
            Some(name) if vocab::is_dns_subdomain(name) => names.push(name),
            Some(name) => sink.report(
                &c::BGP_COMMUNITY,
                entry.at("name"),
                format!("`{name}` is not a valid community name"),
                None,
            ),
            None => sink.report(
                &c::BGP_COMMUNITY,
                entry.at("name"),
                "the community has no `name`",
                None,
            ),
        }
        match entry.str("value") {
            Some(value) => {
                if let Err(err) = vocab::check_community(value) {
                    sink.report(&c::BGP_COMMUNITY, entry.at("value"), err.to_string(), None);
                }
            }
            None => sink.report(
                &c::BGP_COMMUNITY,
                entry.at("value"),
                "the community has no `value`",
                None,
            ),
        }
    }
    for (path, item) in items(advertisements, &spec.at("prefixAdvertisements")) {
        let entry = Fields::of(Some(item), &path);
        match entry.str("cidr") {
            Some(text) => {
                if let Err(err) = cidr::parse_strict_cidr(text) {
                    sink.report(
                        &c::BGP_PREFIX_ADVERTISEMENT,
                        entry.at("cidr"),
                        err.to_string(),
                        None,
                    );
                }
            }
            None => sink.report(
                &c::BGP_PREFIX_ADVERTISEMENT,
                entry.at("cidr"),
                "the advertisement has no `cidr`",
                None,
            ),
        }
        let list = entry.list("communities");
        // Upstream's validator requires the field; an empty list satisfies it (the oracle
        // accepts `communities: []`).
        if list.is_none() {
            sink.report(
                &c::BGP_PREFIX_ADVERTISEMENT,
                entry.at("communities"),
                "the advertisement has no `communities`",
                None,
            );
        }
        if list.is_some_and(|list| list.len() > 50) {
            sink.report(
                &c::BGP_PREFIX_ADVERTISEMENT,
                entry.at("communities"),
                "at most 50 communities per advertisement",
                None,
            );
        }
        for (item_path, community) in items(list, &entry.at("communities")) {
            let Some(text) = community.as_str() else {
                continue;
            };
            if text.contains(':') {
                if let Err(err) = vocab::check_community(text) {
                    sink.report(
                        &c::BGP_PREFIX_ADVERTISEMENT,
                        item_path,
                        err.to_string(),
                        None,
                    );
                }
            } else if !names.contains(&text) {
                sink.report(&c::BGP_PREFIX_ADVERTISEMENT, item_path, format!("community `{text}` is neither a literal `aa:nn[:mm]` nor defined in `communities`"), None);
            }
        }
    }
    for key in [
        "serviceClusterIPs",
        "serviceExternalIPs",
        "serviceLoadBalancerIPs",
    ] {
        for (path, item) in items(spec.list(key), &spec.at(key)) {
            let entry = Fields::of(Some(item), &path);
            if let Some(text) = entry.str("cidr")
                && let Err(err) = cidr::parse_strict_cidr(text)
            {
                sink.report(
                    &c::BGP_SERVICE_CIDR,
                    entry.at("cidr"),
                    err.to_string(),
                    None,
                );
            }
        }
    }
    check_range(sink, &c::BGP_LISTEN_PORT, &spec, "listenPort", 1, 65535);
    check_range(
        sink,
        &c::BGP_AS_NUMBER,
        &spec,
        "asNumber",
        0,
        vocab::MAX_AS_NUMBER,
    );
    if let Some(number) = spec.int("asNumber")
        && let Some(message) = vocab::as_number_int32_problem("asNumber", number)
    {
        sink.report(
            &c::BGP_AS_NUMBER,
            spec.at("asNumber"),
            message,
            Some(vocab::AS_NUMBER_INT32_HINT.into()),
        );
    }
    // The CRD's pattern for the log level admits an empty string, and Calico's validator
    // skips it (unset).
    if spec.str("logSeverityScreen") != Some("") {
        check_enum(
            sink,
            &c::BGP_ENUM,
            &spec,
            "logSeverityScreen",
            &["Trace", "Debug", "Info", "Warning", "Error", "Fatal"],
        );
    }
    check_enum(sink, &c::BGP_ENUM, &spec, "bindMode", &["None", "NodeIP"]);
    check_enum(
        sink,
        &c::BGP_ENUM,
        &spec,
        "serviceLoadBalancerAggregation",
        &["Enabled", "Disabled"],
    );
    check_enum(
        sink,
        &c::BGP_ENUM,
        &spec,
        "programClusterRoutes",
        // The last two from v3.33 (CR0008 in older releases, from their schema index).
        &[
            "Enabled",
            "Disabled",
            "EnabledIPIPOnly",
            "EnabledNoEncapOnly",
        ],
    );
    for (path, item) in items(
        spec.list("ignoredInterfaces"),
        &spec.at("ignoredInterfaces"),
    ) {
        let Some(text) = item.as_str() else { continue };
        let charset_ok = (1..=15).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'*' | b'-'));
        if !charset_ok || text == "*" {
            sink.report(
                &c::BGP_IGNORED_INTERFACE,
                path,
                format!("`{text}` is not a valid interface pattern"),
                None,
            );
        }
    }
    for (key, family) in [
        ("localWorkloadPeeringIPV4", Family::V4),
        ("localWorkloadPeeringIPV6", Family::V6),
    ] {
        // Empty is unset; an IPv4-mapped IPv6 address is IPv4, as Go's `To4` sees it.
        if let Some(text) = spec.str(key).filter(|text| !text.is_empty())
            && cidr::parse_ip(text).map(Family::of_go_addr).ok() != Some(family)
        {
            sink.report(
                &c::BGP_LOCAL_WORKLOAD_IP,
                spec.at(key),
                format!("`{text}` is not an {family} address"),
                None,
            );
        }
    }
    for key in ["ipv4NormalRoutePriority", "ipv6NormalRoutePriority"] {
        check_range(sink, &c::BGP_ROUTE_PRIORITY, &spec, key, 1, 2_147_483_646);
    }
}

/// The settings clientv3 allows only on the BGPConfiguration named `default`.
fn check_default_only(sink: &mut Sink, spec: &Fields<'_, '_>, name: &str) {
    let set = |key: &str| spec.has(key);
    let non_empty = |key: &str| spec.list(key).is_some_and(|list| !list.is_empty());
    for (key, given) in [
        ("asNumber", set("asNumber")),
        ("nodeToNodeMeshEnabled", set("nodeToNodeMeshEnabled")),
        ("nodeMeshPassword", set("nodeMeshPassword")),
        ("nodeMeshMaxRestartTime", set("nodeMeshMaxRestartTime")),
        ("serviceClusterIPs", non_empty("serviceClusterIPs")),
        ("serviceExternalIPs", non_empty("serviceExternalIPs")),
        (
            "serviceLoadBalancerIPs",
            non_empty("serviceLoadBalancerIPs"),
        ),
    ] {
        if given {
            sink.report(
                &c::BGP_DEFAULT_ONLY,
                spec.at(key),
                format!(
                    "`{key}` can only be set on the BGPConfiguration named `default`, not `{name}`"
                ),
                Some("move it to BGPConfiguration `default`".into()),
            );
        }
    }
}
