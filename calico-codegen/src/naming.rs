//! Rust identifiers from Kubernetes wire names.
//!
//! The rules are deliberately simple so that a reader can predict a name from the schema:
//! type names are PascalCase, field names snake_case, and anything that is not a valid
//! identifier (keywords, leading digits, empty strings) is adjusted in one documented way.
//! Collisions are resolved by the caller with numeric suffixes, never here.

/// Keywords that can be used as raw identifiers (`r#type`).
const RAW_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers; they get a trailing underscore instead.
const NON_RAW_KEYWORDS: &[&str] = &["crate", "self", "super", "Self", "_"];

/// Splits a wire name into words: at separators (anything not alphanumeric), at a lower-case
/// letter or digit followed by an upper-case letter, and before the last capital of an acronym
/// that starts a new capitalised word (`IPPool` -> `IP`, `Pool`).
/// Digits stay attached to the word before them (`ipv6Support` -> `ipv6`, `Support`), and an
/// acronym keeps a plural `s` or a version suffix `v4`/`v6` (`serviceCIDRs` -> `service`,
/// `CIDRs`; `natOutgoingIPv6` -> `nat`, `Outgoing`, `IPv6`).
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev = None;
    for (idx, &ch) in chars.iter().enumerate() {
        let prev = prev.replace(ch);
        if !ch.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if ch.is_ascii_uppercase()
            && !current.is_empty()
            && let Some(prev) = prev
        {
            let after = chars.get(idx + 1..).unwrap_or_default();
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && starts_word(after));
            if boundary {
                words.push(std::mem::take(&mut current));
            }
        }
        current.push(ch);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether the characters after a capital that follows another capital make that capital the
/// start of a new word: a lower-case run, except a lone plural `s` and a `v` + digits suffix.
fn starts_word(rest: &[char]) -> bool {
    let lower_run = rest.iter().take_while(|c| c.is_ascii_lowercase()).count();
    if lower_run == 0 {
        return false;
    }
    let after = rest.get(lower_run);
    let first = rest.first();
    let plural =
        lower_run == 1 && first == Some(&'s') && !after.is_some_and(|c| c.is_ascii_digit());
    let version =
        lower_run == 1 && first == Some(&'v') && after.is_some_and(|c| c.is_ascii_digit());

    !(plural || version)
}

/// The snake_case field name for a wire name, made a valid identifier.
pub fn field_ident(name: &str) -> String {
    let snake = words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    safe_ident(snake, "field")
}

/// The PascalCase form of a wire name: each word with its first letter upper-cased and the
/// rest kept as written, so that acronyms survive (`ipPools` -> `IpPools`, `BGPPeer` ->
/// `BGPPeer`, `nat-outgoing` -> `NatOutgoing`).
pub fn pascal(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper_next = true;
    for ch in name.chars() {
        if !ch.is_ascii_alphanumeric() {
            upper_next = true;
            continue;
        }
        if upper_next {
            out.push(ch.to_ascii_uppercase());
            upper_next = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// The enum variant name for a wire spelling (`VXLANCrossSubnet` stays, `none` -> `None`,
/// the empty string -> `Empty`).
pub fn variant_ident(value: &str) -> String {
    if value.is_empty() {
        return "Empty".to_string();
    }
    safe_ident(pascal(value), "V")
}

/// Makes an identifier valid: empty names and names starting with a digit get `prefix`
/// (`field_` for fields, `V` for variants), keywords become raw identifiers or get a
/// trailing underscore.
fn safe_ident(ident: String, prefix: &str) -> String {
    if ident.is_empty() {
        return prefix.to_string();
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        return if prefix == "field" {
            format!("field_{ident}")
        } else {
            format!("{prefix}{ident}")
        };
    }
    if RAW_KEYWORDS.contains(&ident.as_str()) {
        return format!("r#{ident}");
    }
    if NON_RAW_KEYWORDS.contains(&ident.as_str()) {
        return format!("{ident}_");
    }
    ident
}

/// The module (file) name for a kind: its words in snake case (`BGPPeer` -> `bgp_peer`,
/// `IPPool` -> `ip_pool`, `APIServer` -> `api_server`).
pub fn kind_module(kind: &str) -> String {
    let snake = words(kind)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    safe_ident(snake, "field")
}

/// The module name for an API group: dots and dashes become underscores
/// (`operator.tigera.io` -> `operator_tigera_io`).
pub fn group_module(group: &str) -> String {
    let replaced: String = group
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    safe_ident(replaced, "field")
}

/// The module name for an API version (`v1`, `v1beta1`).
pub fn version_module(version: &str) -> String {
    group_module(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_field(wire: &str, expected: &str) {
        assert_eq!(field_ident(wire), expected, "field name for {wire:?}");
    }

    #[test]
    fn field_names() {
        check_field("ipPools", "ip_pools");
        check_field("IPIPMode", "ipip_mode");
        check_field(
            "bpfKubeProxyIptablesCleanupEnabled",
            "bpf_kube_proxy_iptables_cleanup_enabled",
        );
        check_field("ipv6Support", "ipv6_support");
        check_field("vxlanMTUV6", "vxlan_mtuv6");
        check_field("asNumber", "as_number");
        check_field("localASNumber", "local_as_number");
        check_field("type", "r#type");
        check_field("self", "self_");
        check_field("nat-outgoing", "nat_outgoing");
        check_field("9lives", "field_9lives");
        check_field("", "field");
        check_field("serviceCIDRs", "service_cidrs");
        check_field("serviceClusterIPs", "service_cluster_ips");
        check_field(
            "deviceRouteSourceAddressIPv6",
            "device_route_source_address_ipv6",
        );
        check_field("IPv4Pool", "ipv4_pool");
        check_field("floatingIPs", "floating_ips");
        check_field("BGPPeer", "bgp_peer");
        check_field("IPsValid", "ips_valid");
    }

    #[test]
    fn type_and_module_names() {
        assert_eq!(pascal("ipPools"), "IpPools");
        assert_eq!(pascal("BGPPeer"), "BGPPeer");
        assert_eq!(variant_ident("VXLANCrossSubnet"), "VXLANCrossSubnet");
        assert_eq!(variant_ident(""), "Empty");
        assert_eq!(variant_ident("1.2"), "V12");
        assert_eq!(kind_module("BGPPeer"), "bgp_peer");
        assert_eq!(kind_module("IPPool"), "ip_pool");
        assert_eq!(kind_module("APIServer"), "api_server");
        assert_eq!(kind_module("FelixConfiguration"), "felix_configuration");
        assert_eq!(group_module("operator.tigera.io"), "operator_tigera_io");
    }
}
