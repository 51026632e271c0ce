//! Installation rules (operator.tigera.io/v1): calico-rules.md section 8.
//!
//! The checks run on the spec *after* [`crate::defaults::apply_operator_defaults`], as the
//! operator does: CRD schema checks (8.2), `ValidatePools` (8.3), `validateCustomResource`
//! (8.4), and then the Calico rules the converted v3 IPPool will meet (8.5 and section 9: host
//! bits, link-local, selectors, allowed uses), so that what the operator accepts but Calico
//! rejects is caught here too.

use serde_json::Value;

use super::catalogue as c;
use super::{Fields, Sink, check_enum, check_selector, ippool, items};
use crate::vocab::{self, Family, cidr};

const ENCAPSULATIONS: &[&str] = &[
    "IPIPCrossSubnet",
    "IPIP",
    "VXLAN",
    "VXLANCrossSubnet",
    "None",
];
const ENABLED_DISABLED: &[&str] = &["Enabled", "Disabled"];
const DATAPLANES: &[&str] = &["Iptables", "BPF", "VPP", "Nftables"];
const ROUTING_MODES: &[&str] = &["BIRD", "Felix", "FelixIPIPOnly"];
const CNI_TYPES: &[&str] = &["Calico", "GKE", "AmazonVPC", "AzureVNET"];
const IPAM_TYPES: &[&str] = &["Calico", "HostLocal", "AmazonVPC", "AzureVNET"];
const SYSCTL_KEYS: &[&str] = &[
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    "net.ipv4.tcp_keepalive_time",
];
const AUTODETECTION_METHODS: &[&str] = &[
    "interface",
    "skipInterface",
    "canReach",
    "firstFound",
    "cidrs",
    "kubernetes",
];

/// Check one Installation. `doc` is the document as written, `defaulted` the same object after
/// the operator's defaults (absent when the document could not be typed).
/// The name (CR5001) is the CRD's CEL rule, evaluated by `crate::release::cel` for the releases
/// whose CRD has it.
pub(crate) fn check(sink: &mut Sink, doc: &Value, defaulted: &Value) {
    let spec = Fields::of(defaulted.get("spec"), "spec");
    let network = Fields::of(spec.raw("calicoNetwork"), "spec.calicoNetwork");
    let cni = Fields::of(spec.raw("cni"), "spec.cni");
    let ipam = Fields::of(cni.raw("ipam"), "spec.cni.ipam");

    // 8.2: CRD enums.
    let e = &c::INSTALLATION_ENUM;
    check_enum(sink, e, &network, "bgp", ENABLED_DISABLED);
    check_enum(sink, e, &network, "linuxDataplane", DATAPLANES);
    check_enum(sink, e, &network, "windowsDataplane", &["HNS", "Disabled"]);
    check_enum(sink, e, &network, "hostPorts", ENABLED_DISABLED);
    check_enum(sink, e, &network, "containerIPForwarding", ENABLED_DISABLED);
    check_enum(sink, e, &network, "bpfNetworkBootstrap", ENABLED_DISABLED);
    check_enum(sink, e, &network, "kubeProxyManagement", ENABLED_DISABLED);
    check_enum(sink, e, &network, "multiInterfaceMode", &["None", "Multus"]);
    check_enum(
        sink,
        e,
        &network,
        "linuxPodInterfaceType",
        &["Veth", "Netkit"],
    );
    check_enum(sink, e, &network, "clusterRoutingMode", ROUTING_MODES);
    check_enum(sink, e, &cni, "type", CNI_TYPES);
    check_enum(sink, e, &ipam, "type", IPAM_TYPES);
    check_enum(
        sink,
        e,
        &spec,
        "variant",
        &["Calico", "TigeraSecureEnterprise", "CalicoEnterprise"],
    );
    check_enum(sink, e, &spec, "fipsMode", ENABLED_DISABLED);
    check_enum(
        sink,
        e,
        &spec,
        "kubernetesProvider",
        &[
            "",
            "EKS",
            "GKE",
            "AKS",
            "OpenShift",
            "DockerEnterprise",
            "RKE2",
            "TKG",
            "Kind",
        ],
    );

    // The checks below combine several settings. When one of them is not a valid value it is
    // reported above, and the combinations that depend on it are skipped: they would describe
    // what a value the user did not write implies.
    let known = |fields: &Fields<'_, '_>, key: &str, valid: &[&str]| {
        fields.str(key).is_none_or(|value| valid.contains(&value))
    };
    let cni_known = known(&cni, "type", CNI_TYPES) && known(&ipam, "type", IPAM_TYPES);
    let settings_known = cni_known
        && known(&network, "bgp", ENABLED_DISABLED)
        && known(&network, "linuxDataplane", DATAPLANES)
        && known(&network, "clusterRoutingMode", ROUTING_MODES);
    let cni_type = cni.str("type").unwrap_or("Calico");
    let ipam_type = ipam.str("type").unwrap_or("Calico");
    let provider = spec.str("kubernetesProvider").unwrap_or("");
    let calico_cni = cni_type == "Calico";
    let bgp_enabled = network.str("bgp") == Some("Enabled");
    let dataplane = network.str("linuxDataplane").unwrap_or("Iptables");
    // Who programs the cluster routes: Felix for every pool (`Felix`), Felix for IPIP pools and
    // BIRD for unencapsulated ones (`FelixIPIPOnly`, v3.33 on), else BIRD. (v1.44 also takes an
    // unset mode as FelixIPIPOnly: `defaults::apply_operator_verdicts`.)
    let felix_routing = network.str("clusterRoutingMode") == Some("Felix");
    let felix_ipip_routing =
        felix_routing || network.str("clusterRoutingMode") == Some("FelixIPIPOnly");

    if cni_known {
        check_cni(sink, &cni, cni_type, ipam_type, provider);
    }
    if settings_known && network.str("bpfNetworkBootstrap") == Some("Enabled") && dataplane != "BPF"
    {
        sink.report(
            &c::INSTALLATION_BPF_BOOTSTRAP,
            network.at("bpfNetworkBootstrap"),
            format!("`bpfNetworkBootstrap: Enabled` needs `linuxDataplane: BPF`, not {dataplane}"),
            Some("set `linuxDataplane: BPF`, or remove bpfNetworkBootstrap".into()),
        );
    }

    let written_pools_value = doc
        .get("spec")
        .and_then(|spec| spec.get("calicoNetwork"))
        .and_then(|network| network.get("ipPools"))
        .filter(|pools| !pools.is_null());
    // A written `ipPools` that is not a list is a type error already; the defaults then put a
    // pool of their own in its place, which the user never wrote.
    let pools = if written_pools_value.is_some_and(|pools| !pools.is_array()) {
        None
    } else {
        network.list("ipPools")
    };
    let pools_path = network.at("ipPools");
    if let Some(list) = pools
        && list.len() > 25
    {
        sink.report(
            &c::INSTALLATION_TOO_MANY_POOLS,
            pools_path.clone(),
            format!("{} pools listed; at most 25", list.len()),
            None,
        );
    }
    let written_network = doc.get("spec").and_then(|spec| spec.get("calicoNetwork"));
    if written_network
        .and_then(|network| network.get("ipPools"))
        .is_none()
        && pools.is_some_and(|list| {
            list.iter().any(|pool| {
                pool.get("cidr").and_then(Value::as_str)
                    == Some(crate::defaults::DEFAULT_POOL_CIDR_V4)
            })
        })
    {
        sink.report(
            &c::LINT_DEFAULT_POOL,
            network.path(),
            format!("no `ipPools`: the operator will create `{}` with {}", crate::defaults::DEFAULT_POOL_NAME_V4, crate::defaults::DEFAULT_POOL_CIDR_V4),
            Some("list the pod pool explicitly, e.g. `ipPools: [{cidr: 172.20.0.0/16, encapsulation: VXLANCrossSubnet}]`".into()),
        );
    }
    let mut seen_cidrs: Vec<&str> = Vec::new();
    let mut seen_names: Vec<&str> = Vec::new();
    let written_pools = doc
        .get("spec")
        .and_then(|spec| spec.get("calicoNetwork"))
        .and_then(|network| network.get("ipPools"))
        .and_then(Value::as_array);
    for (pool_idx, (path, pool_value)) in items(pools, &pools_path).into_iter().enumerate() {
        let pool = Fields::of(Some(pool_value), &path);
        let cidr_text = pool.str("cidr");
        // 8.3: the operator parses with net.ParseCIDR (host bits allowed); Calico then needs a
        // strictly masked CIDR outside link-local when the pool is written.
        let net = match cidr_text {
            None => None,
            Some("") => {
                sink.report(
                    &c::INSTALLATION_POOL_CIDR,
                    pool.at("cidr"),
                    "the pool has no `cidr`",
                    Some("add e.g. `cidr: 172.20.0.0/16`".into()),
                );
                None
            }
            Some(text) => match cidr::parse_cidr(text) {
                Ok(_) => ippool::check_cidr(sink, Some(text), || pool.at("cidr"), None),
                Err(err) => {
                    sink.report(
                        &c::INSTALLATION_POOL_CIDR,
                        pool.at("cidr"),
                        err.to_string(),
                        None,
                    );
                    None
                }
            },
        };
        if let Some(text) = cidr_text {
            if seen_cidrs.contains(&text) {
                sink.report(
                    &c::INSTALLATION_POOL_DUPLICATE,
                    pool.at("cidr"),
                    format!("pool CIDR `{text}` is specified more than once"),
                    None,
                );
            }
            seen_cidrs.push(text);
        }
        if let Some(name) = pool.str("name").filter(|name| !name.is_empty()) {
            if seen_names.contains(&name) {
                sink.report(
                    &c::INSTALLATION_POOL_DUPLICATE,
                    pool.at("name"),
                    format!("pool name `{name}` is specified more than once"),
                    None,
                );
            }
            seen_names.push(name);
            if !vocab::is_dns_subdomain(name) {
                sink.report(
                    &c::BAD_NAME,
                    pool.at("name"),
                    format!("pool name `{name}` is not a valid IPPool name"),
                    Some("use lower-case letters, digits, `-` and `.`".into()),
                );
            }
        }
        // The operator decides the family by looking for a colon.
        let family = if cidr_text.is_some_and(|text| text.contains(':')) {
            Family::V6
        } else {
            Family::V4
        };

        let is_lb =
            ippool::check_allowed_uses(sink, pool.list("allowedUses"), || pool.at("allowedUses"))
                .load_balancer;
        check_enum(sink, e, &pool, "natOutgoing", ENABLED_DISABLED);
        check_enum(sink, e, &pool, "encapsulation", ENCAPSULATIONS);
        // The IP pool controller's defaults write `Automatic` over an empty value.
        if pool.str("assignmentMode") != Some("") {
            check_enum(
                sink,
                &c::POOL_ASSIGNMENT_MODE,
                &pool,
                "assignmentMode",
                ippool::ASSIGNMENT_MODES,
            );
        }
        let encapsulation = pool.str("encapsulation").unwrap_or("None");
        let node_selector = pool.str("nodeSelector").unwrap_or("all()");
        if (is_lb || (cni_known && !calico_cni)) && node_selector != "all()" {
            let why = if is_lb {
                "a LoadBalancer pool"
            } else {
                "a pool with a non-Calico CNI"
            };
            sink.report(
                &c::INSTALLATION_NODE_SELECTOR,
                pool.at("nodeSelector"),
                format!("{why} needs `nodeSelector: all()`, not `{node_selector}`"),
                None,
            );
        }
        check_selector(sink, &pool, "nodeSelector");
        // The operator takes it; Calico's IPPool validator then refuses the pool the operator
        // creates (it looks for the text `global(`, as for an IPPool's own selector).
        if pool
            .str("nodeSelector")
            .is_some_and(|text| text.contains("global("))
        {
            sink.report(
                &c::POOL_GLOBAL_SELECTOR,
                pool.at("nodeSelector"),
                "`global()` is not valid in a pool's nodeSelector: the operator takes it, and \
                 Calico's IPPool validator refuses the IPPool the operator then creates",
                Some("use `all()`".into()),
            );
        }
        if is_lb && encapsulation != "None" {
            sink.report(
                &c::INSTALLATION_LB_ENCAP,
                pool.at("encapsulation"),
                format!(
                    "a LoadBalancer pool must use `encapsulation: None`, not `{encapsulation}`"
                ),
                Some("IPv4 pools default to IPIP: write `encapsulation: None` explicitly".into()),
            );
        }
        if is_lb && pool.bool("disableBGPExport") == Some(true) {
            sink.report(
                &c::INSTALLATION_LB_BGP_EXPORT,
                pool.at("disableBGPExport"),
                "a LoadBalancer pool cannot disable BGP export",
                None,
            );
        }
        let block_size = pool
            .int("blockSize")
            .unwrap_or_else(|| vocab::default_block_size(family));
        // A CIDR that does not parse (reported above) leaves the family unknown: the operator
        // stops at the CIDR (`ValidatePools`, pkg/controller/ippool/validation.go) and defaults
        // no block size, so a range judged by a guessed family would be a second, wrong error
        // (a `${POD_CIDR_V6}` placeholder has no colon).
        let family_known = net.is_some()
            || cidr_text.is_none_or(|text| text.is_empty() || cidr::parse_cidr(text).is_ok());
        let block_check = family_known.then(|| vocab::check_block_size(family, block_size));
        if let Some(Err(err)) = block_check {
            sink.report(
                &c::POOL_BLOCK_SIZE,
                pool.at("blockSize"),
                err.to_string(),
                None,
            );
        } else if let Some(net) = net
            && let Err(err) = vocab::check_pool_fits_block(net.prefix_len(), block_size)
        {
            sink.report(
                &c::POOL_TOO_SMALL,
                pool.at("cidr"),
                err.to_string(),
                Some(format!("use a prefix of /{block_size} or shorter, or a larger blockSize (the operator checks this even with disableNewAllocations)")),
            );
        }

        // 8.4: per-pool checks of validateCustomResource.
        let ipip = matches!(encapsulation, "IPIP" | "IPIPCrossSubnet");
        let vxlan = matches!(encapsulation, "VXLAN" | "VXLANCrossSubnet");
        if family == Family::V6 && ipip {
            sink.report(
                &c::POOL_IPIP_V6,
                pool.at("encapsulation"),
                format!(
                    "`{encapsulation}` is not supported on IPv6 pool `{}`",
                    cidr_text.unwrap_or_default()
                ),
                Some("use `VXLAN`, `VXLANCrossSubnet` or `None`".into()),
            );
        }
        if dataplane == "BPF" && family == Family::V6 && !network.has("nodeAddressAutodetectionV6")
        {
            sink.report(
                &c::INSTALLATION_AUTODETECTION,
                network.at("nodeAddressAutodetectionV6"),
                "the BPF dataplane with an IPv6 pool needs `nodeAddressAutodetectionV6`",
                Some("add e.g. `nodeAddressAutodetectionV6: {firstFound: true}`".into()),
            );
        }
        if settings_known && calico_cni && ipam_type == "Calico" {
            let needs_bgp =
                (ipip && !felix_ipip_routing) || (encapsulation == "None" && !felix_routing);
            if needs_bgp && !bgp_enabled && !is_lb {
                let written = written_pools
                    .and_then(|list| list.get(pool_idx))
                    .is_some_and(|pool| pool.get("encapsulation").is_some());
                let hint = if written {
                    "set `encapsulation: VXLAN` or `VXLANCrossSubnet`, enable BGP, or set `clusterRoutingMode: Felix`"
                } else {
                    "IPv4 pools default to IPIP: write `encapsulation: VXLAN` or `VXLANCrossSubnet` explicitly, or enable BGP"
                };
                sink.report(
                    &c::INSTALLATION_NEEDS_BGP,
                    pool.at("encapsulation"),
                    format!("pool encapsulation `{encapsulation}` needs `bgp: Enabled` in the BIRD routing mode, but bgp is Disabled"),
                    Some(hint.into()),
                );
            }
        }
        if calico_cni && ipam_type == "HostLocal" && vxlan {
            sink.report(
                &c::INSTALLATION_HOSTLOCAL_VXLAN,
                pool.at("encapsulation"),
                format!("`{encapsulation}` is not supported with HostLocal IPAM"),
                None,
            );
        }
        if cni_known && !calico_cni {
            if encapsulation != "None" && !encapsulation.is_empty() {
                sink.report(
                    &c::INSTALLATION_NON_CALICO_CNI,
                    pool.at("encapsulation"),
                    format!("with the {cni_type} CNI pools must use `encapsulation: None`"),
                    None,
                );
            }
            if bgp_enabled {
                sink.report(
                    &c::INSTALLATION_NON_CALICO_CNI,
                    network.at("bgp"),
                    format!("BGP is not supported with the {cni_type} CNI"),
                    Some("set `bgp: Disabled`".into()),
                );
            }
        }
    }

    let settings = Settings {
        known: settings_known,
        cni_known,
        calico_cni,
        bgp_enabled,
        dataplane,
    };
    check_network(sink, &spec, &network, &settings);
    check_other(sink, &spec);
}

fn check_cni(
    sink: &mut Sink,
    cni: &Fields<'_, '_>,
    cni_type: &str,
    ipam_type: &str,
    provider: &str,
) {
    let allowed_ipam: &[&str] = match cni_type {
        "Calico" => &["Calico", "HostLocal"],
        "GKE" => &["HostLocal"],
        "AmazonVPC" => &["AmazonVPC"],
        "AzureVNET" => &["AzureVNET"],
        _ => return,
    };
    if !allowed_ipam.contains(&ipam_type) {
        sink.report(
            &c::INSTALLATION_CNI,
            cni.at("ipam"),
            format!(
                "IPAM `{ipam_type}` is not supported with the {cni_type} CNI; valid: {}",
                allowed_ipam.join(", ")
            ),
            None,
        );
    }
    let required_provider = match cni_type {
        "GKE" => Some("GKE"),
        "AmazonVPC" => Some("EKS"),
        "AzureVNET" => Some("AKS"),
        _ => None,
    };
    if let Some(required) = required_provider
        && !provider.is_empty()
        && provider != required
    {
        sink.report(
            &c::INSTALLATION_CNI,
            cni.at("type"),
            format!("the {cni_type} CNI needs provider {required}, not {provider}"),
            None,
        );
    }
}

/// The settings the network checks combine, after defaults.
#[derive(Debug, Clone, Copy)]
struct Settings<'a> {
    /// Every setting below is absent or one of its valid values.
    known: bool,
    /// The CNI and IPAM types are absent or valid.
    cni_known: bool,
    calico_cni: bool,
    bgp_enabled: bool,
    dataplane: &'a str,
}

fn check_network(
    sink: &mut Sink,
    spec: &Fields<'_, '_>,
    network: &Fields<'_, '_>,
    settings: &Settings<'_>,
) {
    let Settings {
        calico_cni,
        bgp_enabled,
        dataplane,
        ..
    } = *settings;
    if settings.known && dataplane == "VPP" {
        let mut problems = Vec::new();
        if spec
            .str("variant")
            .is_some_and(|variant| variant != "Calico")
        {
            problems.push("the Calico variant");
        }
        if !calico_cni {
            problems.push("Calico CNI");
        }
        if !bgp_enabled {
            problems.push("`bgp: Enabled`");
        }
        if network.str("hostPorts") == Some("Disabled") {
            problems.push("`hostPorts` not Disabled");
        }
        if !problems.is_empty() {
            sink.report(
                &c::INSTALLATION_VPP,
                network.at("linuxDataplane"),
                format!("the VPP dataplane needs {}", problems.join(", ")),
                None,
            );
        }
    }
    for key in ["nodeAddressAutodetectionV4", "nodeAddressAutodetectionV6"] {
        let Some(value) = network.raw(key) else {
            continue;
        };
        let path = network.at(key);
        let method = Fields::of(Some(value), &path);
        let set: Vec<&str> = AUTODETECTION_METHODS
            .iter()
            .copied()
            .filter(|name| match *name {
                "firstFound" => method.bool("firstFound") == Some(true),
                "cidrs" => method.list("cidrs").is_some_and(|list| !list.is_empty()),
                other => method.str(other).is_some_and(|text| !text.is_empty()),
            })
            .collect();
        if set.len() > 1 {
            sink.report(
                &c::INSTALLATION_AUTODETECTION,
                path.clone(),
                format!("more than one autodetection method: {}", set.join(", ")),
                Some("keep exactly one".into()),
            );
        }
        for (item_path, item) in items(method.list("cidrs"), &method.at("cidrs")) {
            if let Some(text) = item.as_str()
                && let Err(err) = cidr::parse_cidr(text)
            {
                sink.report(
                    &c::INSTALLATION_AUTODETECTION,
                    item_path,
                    err.to_string(),
                    None,
                );
            }
        }
        check_enum(
            sink,
            &c::INSTALLATION_ENUM,
            &method,
            "kubernetes",
            &["NodeInternalIP"],
        );
    }
    if settings.cni_known && !calico_cni {
        if network.str("hostPorts") == Some("Enabled") {
            sink.report(
                &c::INSTALLATION_CALICO_CNI_ONLY,
                network.at("hostPorts"),
                "`hostPorts: Enabled` needs Calico CNI",
                None,
            );
        }
        for key in [
            "multiInterfaceMode",
            "containerIPForwarding",
            "linuxPodInterfaceType",
        ] {
            if network.has(key) {
                sink.report(
                    &c::INSTALLATION_CALICO_CNI_ONLY,
                    network.at(key),
                    format!("`{key}` is only valid with Calico CNI"),
                    None,
                );
            }
        }
    }
    for (path, item) in items(network.list("sysctl"), &network.at("sysctl")) {
        let entry = Fields::of(Some(item), &path);
        if let Some(key) = entry.str("key")
            && !SYSCTL_KEYS.contains(&key)
        {
            sink.report(
                &c::INSTALLATION_SYSCTL,
                entry.at("key"),
                format!(
                    "sysctl `{key}` is not allowed; valid: {}",
                    SYSCTL_KEYS.join(", ")
                ),
                None,
            );
        }
    }
    if let Some(timeout) = network.int("linuxPolicySetupTimeoutSeconds") {
        if timeout < 0 {
            sink.report(
                &c::INSTALLATION_POLICY_TIMEOUT,
                network.at("linuxPolicySetupTimeoutSeconds"),
                format!("{timeout} is negative"),
                None,
            );
        }
        if settings.known && !matches!(dataplane, "Iptables" | "BPF" | "Nftables") {
            sink.report(
                &c::INSTALLATION_POLICY_TIMEOUT,
                network.at("linuxPolicySetupTimeoutSeconds"),
                format!("not supported with the {dataplane} dataplane"),
                None,
            );
        }
    }
}

fn check_other(sink: &mut Sink, spec: &Fields<'_, '_>) {
    if let Some(replicas) = spec.int("controlPlaneReplicas")
        && replicas <= 0
    {
        sink.report(
            &c::INSTALLATION_OTHER,
            spec.at("controlPlaneReplicas"),
            format!("controlPlaneReplicas {replicas} must be above 0"),
            None,
        );
    }
    // An empty path or strategy is unset: the operator's defaults fill it before it validates.
    for key in ["flexVolumePath", "kubeletVolumePluginPath"] {
        if let Some(path) = spec.str(key)
            && !path.is_empty()
            && path != "None"
            && !path.starts_with('/')
        {
            sink.report(
                &c::INSTALLATION_OTHER,
                spec.at(key),
                format!("`{path}` must be `None` or an absolute path"),
                None,
            );
        }
    }
    let strategy = Fields::of(spec.raw("nodeUpdateStrategy"), "spec.nodeUpdateStrategy");
    if let Some(kind) = strategy.str("type")
        && !kind.is_empty()
        && kind != "RollingUpdate"
    {
        sink.report(
            &c::INSTALLATION_OTHER,
            strategy.at("type"),
            format!("nodeUpdateStrategy `{kind}` is not supported; use RollingUpdate"),
            None,
        );
    }
    if spec.str("nonPrivileged") == Some("Enabled") {
        sink.report(
            &c::INSTALLATION_OTHER,
            spec.at("nonPrivileged"),
            "`nonPrivileged: Enabled` is not supported by the operator",
            None,
        );
    }
    // FIPS mode is refused only with the Calico Enterprise variant.
    if spec.str("fipsMode") == Some("Enabled")
        && spec.str("variant") == Some("TigeraSecureEnterprise")
    {
        sink.report(
            &c::INSTALLATION_OTHER,
            spec.at("fipsMode"),
            "`fipsMode: Enabled` is not supported with `variant: TigeraSecureEnterprise`",
            None,
        );
    }
}
