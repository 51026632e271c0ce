//! IPPool rules (projectcalico.org/v3 and crd.projectcalico.org/v1, same schema in v3.32.1):
//! calico-rules.md section 3, rules P1-P18.

use ipnet::IpNet;
use serde_json::Value;

use super::catalogue as c;
use super::{Fields, Sink, check_enum_value, check_selector_value};
use crate::source::join_index;
use crate::vocab::{self, CidrError, Family, cidr};

/// The encapsulation modes of a v3 pool.
const MODES: &[&str] = &["Never", "Always", "CrossSubnet"];
/// The values of `allowedUses`.
pub(crate) const USES: &[&str] = &["Workload", "Tunnel", "LoadBalancer"];
/// The values of `assignmentMode`.
pub(crate) const ASSIGNMENT_MODES: &[&str] = &["Automatic", "Manual"];

/// Check a pool CIDR the way Calico does (P1-P3, P7): `text` is the pool's `cidr` field,
/// found at `path()`. Returns the network when it parses.
pub(crate) fn check_cidr(
    sink: &mut Sink,
    text: Option<&str>,
    path: impl Fn() -> String,
    max_len: Option<usize>,
) -> Option<IpNet> {
    // An absent `cidr` is reported by the schema pass (required field); a present value of
    // another type as a type error.
    let text = text?;
    if let Some(max_len) = max_len
        && text.len() > max_len
    {
        sink.report(
            &c::POOL_CIDR_INVALID,
            path(),
            format!("`{text}` is longer than {max_len} characters"),
            None,
        );
        return None;
    }
    let net = match cidr::parse_strict_cidr(text) {
        Ok(net) => {
            if let Some(canonical) = cidr::canonical(text, &net) {
                sink.report(
                    &c::POOL_CIDR_NOT_CANONICAL,
                    path(),
                    format!("Calico stores `{text}` as `{canonical}`"),
                    Some(format!("write `{canonical}`")),
                );
            }
            net
        }
        Err(CidrError::HostBits { network, .. }) => {
            sink.report(
                &c::POOL_CIDR_HOST_BITS,
                path(),
                format!("`{text}` has host bits set"),
                Some(format!("use the network address: `{network}`")),
            );
            network
        }
        Err(CidrError::Empty) => {
            sink.report(&c::POOL_CIDR_MISSING, path(), "`cidr` is empty", None);
            return None;
        }
        Err(err) => {
            sink.report(&c::POOL_CIDR_INVALID, path(), err.to_string(), None);
            return None;
        }
    };
    if let Some(link_local) = cidr::overlapped_link_local(&net) {
        sink.report(
            &c::POOL_LINK_LOCAL,
            path(),
            format!(
                "`{text}` overlaps the {} link-local range {link_local}",
                Family::of_net(&net)
            ),
            Some("pick a range outside 169.254.0.0/16 and fe80::/10".into()),
        );
    }
    Some(net)
}

/// The uses a pool allows, as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Uses {
    pub(crate) workload: bool,
    pub(crate) tunnel: bool,
    pub(crate) load_balancer: bool,
}

impl Uses {
    /// What Calico assumes when `allowedUses` is absent: `[Workload, Tunnel]`.
    pub(crate) const DEFAULT: Uses = Uses {
        workload: true,
        tunnel: true,
        load_balancer: false,
    };

    /// The flag for one of [`USES`], when `text` is one.
    fn flag(&mut self, text: &str) -> Option<&mut bool> {
        match text {
            "Workload" => Some(&mut self.workload),
            "Tunnel" => Some(&mut self.tunnel),
            "LoadBalancer" => Some(&mut self.load_balancer),
            _ => None,
        }
    }
}

/// Check `allowedUses` values (P10, P11): `list` is the field, found at `path()`. Returns the
/// uses as written, or the default `[Workload, Tunnel]` when absent. Runs once per pool, so it
/// allocates nothing unless it reports a problem.
pub(crate) fn check_allowed_uses(
    sink: &mut Sink,
    list: Option<&Vec<Value>>,
    path: impl Fn() -> String,
) -> Uses {
    // clientv3 defaults an empty list as it does an absent one.
    let Some(list) = list.filter(|list| !list.is_empty()) else {
        return Uses::DEFAULT;
    };
    if list.len() > 10 {
        sink.report(
            &c::POOL_ALLOWED_USES,
            path(),
            format!(
                "`allowedUses` has {} entries; at most 10 are allowed",
                list.len()
            ),
            None,
        );
    }
    let mut uses = Uses {
        workload: false,
        tunnel: false,
        load_balancer: false,
    };
    for (idx, item) in list.iter().enumerate() {
        let Some(text) = item.as_str() else { continue };
        let item_path = || join_index(&path(), idx);
        match uses.flag(text) {
            None => sink.report(
                &c::POOL_ALLOWED_USES,
                item_path(),
                format!(
                    "`{text}` is not an allowed use; valid values: {}",
                    USES.join(", ")
                ),
                None,
            ),
            Some(seen) if *seen => sink.report(
                &c::POOL_ALLOWED_USES,
                item_path(),
                format!("`{text}` is listed twice"),
                Some("list each use once".into()),
            ),
            Some(seen) => *seen = true,
        }
    }
    if uses.load_balancer && (uses.workload || uses.tunnel) {
        sink.report(
            &c::POOL_LB_COMBINED,
            path(),
            "`LoadBalancer` cannot be combined with `Workload` or `Tunnel`",
            Some("use a separate pool with `allowedUses: [LoadBalancer]`".into()),
        );
    }
    uses
}

/// What the cross checks need to know about a checked IPPool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PoolSummary {
    /// The pool's network (masked), when its CIDR parses.
    pub(crate) net: Option<IpNet>,
    /// The uses it allows.
    pub(crate) uses: Uses,
    /// Whether `disableBGPExport: true` is set.
    pub(crate) disable_bgp_export: bool,
}

/// The `spec` fields of an IPPool, read in one walk over the mapping (absent and null fields
/// are `None`; a field of the wrong type reads as `None` from the typed accessors, because the
/// schema pass reports it).
struct PoolSpec<'a> {
    cidr: Option<&'a Value>,
    ipip_mode: Option<&'a Value>,
    vxlan_mode: Option<&'a Value>,
    disabled: Option<&'a Value>,
    block_size: Option<&'a Value>,
    allowed_uses: Option<&'a Value>,
    disable_bgp_export: Option<&'a Value>,
    node_selector: Option<&'a Value>,
    namespace_selector: Option<&'a Value>,
    assignment_mode: Option<&'a Value>,
}

impl<'a> PoolSpec<'a> {
    fn read(spec: &Fields<'a, '_>) -> PoolSpec<'a> {
        let [
            cidr,
            ipip_mode,
            vxlan_mode,
            disabled,
            block_size,
            allowed_uses,
            disable_bgp_export,
            node_selector,
            namespace_selector,
            assignment_mode,
        ] = spec.pick([
            "cidr",
            "ipipMode",
            "vxlanMode",
            "disabled",
            "blockSize",
            "allowedUses",
            "disableBGPExport",
            "nodeSelector",
            "namespaceSelector",
            "assignmentMode",
        ]);
        PoolSpec {
            cidr,
            ipip_mode,
            vxlan_mode,
            disabled,
            block_size,
            allowed_uses,
            disable_bgp_export,
            node_selector,
            namespace_selector,
            assignment_mode,
        }
    }
}

fn as_str(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str)
}

/// Check one IPPool's `spec` (projectcalico.org/v3 or crd.projectcalico.org/v1); `spec` is the
/// document's `spec` value.
pub(crate) fn check(sink: &mut Sink, spec: Option<&Value>) -> PoolSummary {
    let spec = Fields::of(spec, "spec");
    let fields = PoolSpec::read(&spec);
    let net = check_cidr(sink, as_str(fields.cidr), || spec.at("cidr"), Some(48));
    // Calico takes a pool's family from its address as Go's `To4` sees it: an IPv4-mapped IPv6
    // pool is IPv4 for encapsulation and block sizes (its prefix stays 128-bit).
    let family = net.as_ref().map(|net| Family::of_go_addr(net.addr()));

    let ipip_mode = as_str(fields.ipip_mode);
    let vxlan_mode = as_str(fields.vxlan_mode);
    let path_of = |key: &'static str| move || spec.at(key);
    check_enum_value(
        sink,
        &c::POOL_ENCAP_MODE,
        "ipipMode",
        ipip_mode,
        path_of("ipipMode"),
        MODES,
    );
    check_enum_value(
        sink,
        &c::POOL_ENCAP_MODE,
        "vxlanMode",
        vxlan_mode,
        path_of("vxlanMode"),
        MODES,
    );
    let ipip_on = matches!(ipip_mode, Some("Always" | "CrossSubnet"));
    let vxlan_on = matches!(vxlan_mode, Some("Always" | "CrossSubnet"));
    if ipip_on && vxlan_on {
        sink.report(
            &c::POOL_IPIP_AND_VXLAN,
            spec.at("ipipMode"),
            "`ipipMode` and `vxlanMode` are both enabled",
            Some("set one of them to `Never`".into()),
        );
    }
    if ipip_on && family == Some(Family::V6) {
        sink.report(
            &c::POOL_IPIP_V6,
            spec.at("ipipMode"),
            "IPIP is not supported on an IPv6 pool",
            Some("use `vxlanMode` or no encapsulation".into()),
        );
    }

    let disabled = fields.disabled.and_then(Value::as_bool).unwrap_or(false);
    let block_size = fields.block_size.and_then(Value::as_i64);
    if let (Some(block_size), Some(family)) = (block_size, family)
        && block_size != 0
        && let Err(err) = vocab::check_block_size(family, block_size)
    {
        sink.report(
            &c::POOL_BLOCK_SIZE,
            spec.at("blockSize"),
            err.to_string(),
            None,
        );
    } else if let (Some(net), Some(family)) = (net, family) {
        let block_size = match block_size {
            Some(size) if size != 0 => size,
            _ => vocab::default_block_size(family),
        };
        if !disabled && let Err(err) = vocab::check_pool_fits_block(net.prefix_len(), block_size) {
            sink.report(
                &c::POOL_TOO_SMALL,
                spec.at("cidr"),
                err.to_string(),
                Some(format!(
                    "use a prefix of /{block_size} or shorter, or a larger blockSize"
                )),
            );
        }
    }
    if let Some(block_size) = block_size
        && !(0..=128).contains(&block_size)
        && family.is_none()
    {
        sink.report(
            &c::POOL_BLOCK_SIZE,
            spec.at("blockSize"),
            format!("block size {block_size} is outside 0-128"),
            None,
        );
    }

    let uses = check_allowed_uses(sink, fields.allowed_uses.and_then(Value::as_array), || {
        spec.at("allowedUses")
    });
    let is_lb = uses.load_balancer;
    if is_lb && (ipip_on || vxlan_on) {
        sink.report(
            &c::POOL_LB_ENCAP,
            spec.at(if ipip_on { "ipipMode" } else { "vxlanMode" }),
            "a LoadBalancer pool cannot use IPIP or VXLAN",
            Some("set `ipipMode` and `vxlanMode` to `Never`".into()),
        );
    }
    let disable_bgp_export = fields.disable_bgp_export.and_then(Value::as_bool) == Some(true);
    if is_lb && disable_bgp_export {
        sink.report(
            &c::POOL_LB_BGP_EXPORT,
            spec.at("disableBGPExport"),
            "a LoadBalancer pool must be exported over BGP",
            Some("remove `disableBGPExport: true`".into()),
        );
    }
    let node_selector_text = as_str(fields.node_selector);
    let namespace_selector_text = as_str(fields.namespace_selector);
    check_selector_value(
        sink,
        "nodeSelector",
        node_selector_text,
        path_of("nodeSelector"),
    );
    check_selector_value(
        sink,
        "namespaceSelector",
        namespace_selector_text,
        path_of("namespaceSelector"),
    );
    // clientv3 defaults an empty nodeSelector to `all()` before the validator compares it.
    if is_lb
        && let Some(text) = node_selector_text
        && !text.is_empty()
        && text != "all()"
    {
        sink.report(
            &c::POOL_LB_SELECTOR,
            spec.at("nodeSelector"),
            format!("a LoadBalancer pool's nodeSelector must be exactly `all()`, not `{text}`"),
            None,
        );
    }
    // Calico's validator looks for the text `global(`, not for the parsed function.
    for (key, text) in [
        ("nodeSelector", node_selector_text),
        ("namespaceSelector", namespace_selector_text),
    ] {
        if text.is_some_and(|text| text.contains("global(")) {
            sink.report(
                &c::POOL_GLOBAL_SELECTOR,
                spec.at(key),
                format!("`global()` is not valid in a pool's {key}"),
                Some("use `all()`".into()),
            );
        }
    }
    // Any text counts, blanks included: the validator compares with the empty string.
    if namespace_selector_text.is_some_and(|text| !text.is_empty()) && uses.tunnel {
        let hint = if fields
            .allowed_uses
            .and_then(Value::as_array)
            .is_some_and(|list| !list.is_empty())
        {
            "remove `Tunnel` from `allowedUses` or drop the namespaceSelector"
        } else {
            "`allowedUses` defaults to [Workload, Tunnel]; set `allowedUses: [Workload]`"
        };
        sink.report(
            &c::POOL_TUNNEL_NAMESPACE,
            spec.at("namespaceSelector"),
            "a pool that allows `Tunnel` cannot have a namespaceSelector",
            Some(hint.into()),
        );
    }
    check_enum_value(
        sink,
        &c::POOL_ASSIGNMENT_MODE,
        "assignmentMode",
        as_str(fields.assignment_mode),
        path_of("assignmentMode"),
        ASSIGNMENT_MODES,
    );
    PoolSummary {
        net: net.map(|net| net.trunc()),
        uses,
        disable_bgp_export,
    }
}
