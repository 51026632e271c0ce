//! Cross-field checks of a ClusterNetwork, in the user's terms.
//!
//! Types catch what one field can get wrong on its own (an unparseable CIDR, an unknown
//! encapsulation); this module catches what needs two fields or the address family (block
//! size ranges, IPIP on IPv6, VXLAN without BGP, overlaps) and reports every problem at once,
//! each with the ClusterNetwork field path. The compiled objects are checked again by the rule
//! catalogue, which covers the upstream rules in the wire objects' terms.
//!
//! Its rules are the catalogue's `CN` entries (`catalogue::CN_*`), so `explain`, `--deny` and
//! `--allow` know them and their severity is defined in one place. Lints
//! that the catalogue already has (pools overlapping LANs, Services or nodes; BPF without the
//! endpoint ConfigMap) are left to it: [`super::load`] runs it over the compiled objects with
//! the `network` facts as context.

use ipnet::IpNet;

use super::compile;
use super::spec::{ClusterNetwork, Dataplane, Encapsulation};
use crate::diag::Diagnostic;
use crate::rules::catalogue::{self as c, Rule};
use crate::vocab;

/// Every cross-field problem of `cluster_network`, errors and warnings, unordered and without
/// positions (see `parse::locate`).
pub fn check(cluster_network: &ClusterNetwork) -> Vec<Diagnostic> {
    let mut out = Checker::default();
    let spec = &cluster_network.spec;

    let version = spec.calico_version.as_str();
    match crate::release::Release::for_version(version) {
        Err(_) => out.report(
            &c::CN_CALICO_VERSION,
            "spec.calicoVersion",
            format!("calico version `{version}` is not supported"),
            &format!(
                "supported: {} (tigera-operator v1.38, v1.40, v1.42, v1.44); the default is \
                 v3.32.1; v3.33 is {}",
                crate::release::supported_list(),
                crate::release::RELEASE_V3_33_DATA
            ),
        ),
        Ok(release) if !release.upstream_supported() => out.report(
            &c::CN_LINT_RELEASE_UNSUPPORTED,
            "spec.calicoVersion",
            format!(
                "{release} is out of upstream support: Calico supports the two newest minors ({})",
                crate::release::upstream_supported_list()
            ),
            "plan the move with `calico-render upgrade -f FILE --to v3.32.1`, or allow CN0204",
        ),
        Ok(_) => {}
    }

    if let Some(endpoint) = &spec.api_endpoint {
        check_host(&mut out, &endpoint.host);
        if endpoint.port == 0 {
            out.report(
                &c::CN_INVALID_VALUE,
                "spec.apiEndpoint.port",
                "api endpoint port 0 is not a port".to_owned(),
                "write the API server port, usually 6443",
            );
        }
    }

    if spec.bpf_network_bootstrap {
        if spec.dataplane != Dataplane::Bpf {
            out.report(
                &c::CN_INVALID_VALUE,
                "spec.bpfNetworkBootstrap",
                format!(
                    "bpfNetworkBootstrap only works with the BPF dataplane, not {}",
                    spec.dataplane.operator_value()
                ),
                "set spec.dataplane: BPF, or remove spec.bpfNetworkBootstrap",
            );
        }
        if spec.api_endpoint.is_some() {
            out.report(
                &c::CN_INVALID_VALUE,
                "spec.bpfNetworkBootstrap",
                "bpfNetworkBootstrap and apiEndpoint exclude each other: the operator refuses to \
                 start while the kubernetes-services-endpoint ConfigMap exists"
                    .to_owned(),
                "keep apiEndpoint (a stable VIP or DNS name) or bpfNetworkBootstrap, not both",
            );
        }
    }

    // `podPools: []` with a workload IPPool in `spec.extraObjects` is a cluster whose pools
    // are standalone IPPools the Installation does not manage (`ipPools: []`).
    let standalone_pools = spec.extra_objects.iter().any(|extra| {
        extra.kind == "IPPool"
            && extra
                .spec
                .as_ref()
                .and_then(|spec| spec.get("allowedUses"))
                .and_then(serde_json::Value::as_array)
                .is_none_or(|uses| uses.iter().any(|use_| use_ == "Workload"))
    });
    if spec.pod_pools.is_empty() && !standalone_pools {
        out.report(
            &c::CN_INVALID_VALUE,
            "spec.podPools",
            "no pod pool is listed".to_owned(),
            "list at least one pool; without one the operator creates 192.168.0.0/16, which often collides with LANs (pools kept as standalone IPPools go under spec.extraObjects, with `podPools: []`)",
        );
    }

    let mut ranges: Vec<(IpNet, String, &str)> = Vec::new();
    for (pool_idx, pool) in spec.pod_pools.iter().enumerate() {
        let path = format!("spec.podPools[{pool_idx}]");
        check_name(&mut out, &format!("{path}.name"), &pool.name);
        check_cidr(&mut out, &format!("{path}.cidr"), pool.cidr);
        // The default block size is checked too: a pool smaller than one default block needs
        // an explicit, longer block size.
        let block_size = pool
            .block_size
            .unwrap_or_else(|| compile::default_block_size(pool.cidr));
        check_block_size(&mut out, &path, pool.cidr, Some(block_size));
        let encapsulation = pool
            .encapsulation
            .unwrap_or(Encapsulation::VxlanCrossSubnet);
        let is_ipip = matches!(
            encapsulation,
            Encapsulation::Ipip | Encapsulation::IpipCrossSubnet
        );
        if is_ipip && matches!(pool.cidr, IpNet::V6(_)) {
            out.report(
                &c::CN_ENCAPSULATION,
                &format!("{path}.encapsulation"),
                format!("IP-in-IP cannot carry IPv6 pool {}", pool.cidr),
                "use VXLAN, VXLANCrossSubnet or None for IPv6 pools",
            );
        } else if !spec.bgp.enabled && (is_ipip || encapsulation == Encapsulation::None) {
            out.report(
                &c::CN_ENCAPSULATION,
                &format!("{path}.encapsulation"),
                format!(
                    "encapsulation {} needs BGP, but spec.bgp.enabled is false",
                    encapsulation.operator_value()
                ),
                "use VXLAN or VXLANCrossSubnet, or set spec.bgp.enabled: true",
            );
        }
        check_selector(
            &mut out,
            &format!("{path}.nodeSelector"),
            pool.node_selector.as_deref(),
        );
        ranges.push((pool.cidr, path, "pod pool"));
    }
    for (pool_idx, pool) in spec.load_balancer_pools.iter().enumerate() {
        let path = format!("spec.loadBalancerPools[{pool_idx}]");
        check_name(&mut out, &format!("{path}.name"), &pool.name);
        check_cidr(&mut out, &format!("{path}.cidr"), pool.cidr);
        check_block_size(&mut out, &path, pool.cidr, pool.block_size);
        ranges.push((pool.cidr, path, "LoadBalancer pool"));
    }
    check_pool_conflicts(&mut out, cluster_network, &ranges);

    let autodetection = &spec.node_address_autodetection;
    for (family, method) in [("ipv4", &autodetection.ipv4), ("ipv6", &autodetection.ipv6)] {
        let Some(method) = method else { continue };
        let n_methods = [
            method.first_found.is_some(),
            method.kubernetes.is_some(),
            method.interface.is_some(),
            method.skip_interface.is_some(),
            method.can_reach.is_some(),
            method.cidrs.is_some(),
        ]
        .into_iter()
        .filter(|set| *set)
        .count();
        if n_methods != 1 {
            out.report(
                &c::CN_AUTODETECTION,
                &format!("spec.nodeAddressAutodetection.{family}"),
                format!(
                    "{n_methods} autodetection methods are set for {family}; exactly one is allowed"
                ),
                "keep one of firstFound, kubernetes, interface, skipInterface, canReach, cidrs",
            );
        }
    }

    let bgp = &spec.bgp;
    if !bgp.enabled {
        let given = [
            ("asNumber", bgp.as_number.is_some()),
            ("nodeToNodeMesh", bgp.node_to_node_mesh.is_some()),
            ("peers", !bgp.peers.is_empty()),
            ("advertise", !bgp.advertise.is_empty()),
        ];
        for (field, is_set) in given {
            if is_set {
                out.report(
                    &c::CN_BGP_DISABLED,
                    &format!("spec.bgp.{field}"),
                    format!("spec.bgp.{field} is set but BGP is off"),
                    "set spec.bgp.enabled: true, or remove the BGP settings",
                );
            }
        }
    }
    check_as_number(&mut out, "spec.bgp.asNumber", bgp.as_number);
    for (peer_idx, peer) in bgp.peers.iter().enumerate() {
        let path = format!("spec.bgp.peers[{peer_idx}]");
        check_as_number(&mut out, &format!("{path}.asNumber"), Some(peer.as_number));
        check_name(&mut out, &format!("{path}.name"), &peer.name);
        check_selector(
            &mut out,
            &format!("{path}.nodeSelector"),
            peer.node_selector.as_deref(),
        );
        let durations = [
            ("keepaliveTime", &peer.keepalive_time),
            ("maxRestartTime", &peer.max_restart_time),
        ];
        for (field, value) in durations {
            if let Some(value) = value
                && !vocab::is_duration(value, vocab::DurationForm::Fraction)
            {
                out.report(
                    &c::CN_INVALID_VALUE,
                    &format!("{path}.{field}"),
                    format!("`{value}` is not a duration"),
                    "write a number with a unit, such as 20s, 90s or 2m (units: ms, s, m, h)",
                );
            }
        }
        if let Some(password) = &peer.password {
            check_name(&mut out, &format!("{path}.password.name"), &password.name);
            let key_ok = !password.key.is_empty()
                && password.key.len() <= 253
                && password
                    .key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
            if !key_ok {
                out.report(
                    &c::CN_INVALID_VALUE,
                    &format!("{path}.password.key"),
                    format!("`{}` is not a Secret key", password.key),
                    "a Secret key has letters, digits, `-`, `_` and `.` only",
                );
            }
        }
        if bgp
            .peers
            .iter()
            .take(peer_idx)
            .any(|other| other.name == peer.name)
        {
            out.report(
                &c::CN_POOL_CONFLICT,
                &format!("{path}.name"),
                format!("BGP peer name `{}` is used twice", peer.name),
                "give every peer its own name",
            );
        }
    }
    let advertised = [
        ("serviceClusterIPs", &bgp.advertise.service_cluster_ips),
        ("serviceExternalIPs", &bgp.advertise.service_external_ips),
        (
            "serviceLoadBalancerIPs",
            &bgp.advertise.service_load_balancer_ips,
        ),
    ];
    for (field, list) in advertised {
        for (cidr_idx, cidr) in list.iter().enumerate() {
            check_cidr(
                &mut out,
                &format!("spec.bgp.advertise.{field}[{cidr_idx}]"),
                *cidr,
            );
        }
    }

    if spec.dataplane != Dataplane::Bpf {
        let felix = &spec.felix;
        let bpf_fields = [
            (
                "bpfExternalServiceMode",
                felix.bpf_external_service_mode.is_some(),
            ),
            ("bpfLogLevel", felix.bpf_log_level.is_some()),
            (
                "bpfKubeProxyIptablesCleanupEnabled",
                felix.bpf_kube_proxy_iptables_cleanup_enabled.is_some(),
            ),
            (
                "bpfConnectTimeLoadBalancing",
                felix.bpf_connect_time_load_balancing.is_some(),
            ),
            (
                "bpfHostNetworkedNATWithoutCTLB",
                felix.bpf_host_networked_nat_without_ctlb.is_some(),
            ),
            ("bpfEnforceRPF", felix.bpf_enforce_rpf.is_some()),
        ];
        for (field, is_set) in bpf_fields {
            if is_set {
                out.report(
                    &c::CN_LINT_BPF_FELIX,
                    &format!("spec.felix.{field}"),
                    format!("spec.felix.{field} only matters with the BPF dataplane"),
                    "set spec.dataplane: BPF, or remove the setting",
                );
            }
        }
    }
    out.diagnostics
}

#[derive(Default)]
struct Checker {
    diagnostics: Vec<Diagnostic>,
}

impl Checker {
    /// Report a problem at `path` with the rule's severity.
    fn report(&mut self, rule: &Rule, path: &str, message: String, hint: &str) {
        self.diagnostics.push(Diagnostic {
            severity: rule.severity,
            code: rule.code,
            path: path.to_owned(),
            message,
            hint: Some(hint.to_owned()),
            location: None,
        });
    }
}

/// The API server refuses AS numbers above 2147483647 (the CRDs' `format: int32`), so the
/// rendered BGPConfiguration or BGPPeer would be refused: say so before rendering.
fn check_as_number(out: &mut Checker, path: &str, as_number: Option<u32>) {
    if let Some(message) =
        as_number.and_then(|n| vocab::as_number_int32_problem("asNumber", n.into()))
    {
        out.report(
            &c::CN_INVALID_VALUE,
            path,
            message,
            vocab::AS_NUMBER_INT32_HINT,
        );
    }
}

/// Calico rejects pools whose CIDR has host bits set; say which network was meant.
fn check_cidr(out: &mut Checker, path: &str, cidr: IpNet) {
    if cidr.addr() != cidr.network() {
        out.report(
            &c::CN_CIDR_NOT_MASKED,
            path,
            format!("CIDR {cidr} has host bits set"),
            &format!("write {}", cidr.trunc()),
        );
    }
    let link_local = vocab::cidr::overlapped_link_local(&cidr);
    if let Some(link_local) = link_local.filter(|_| path.contains("Pools")) {
        out.report(
            &c::CN_LINK_LOCAL,
            path,
            format!("pool {cidr} overlaps link-local space {link_local}"),
            "choose a range outside 169.254.0.0/16 and fe80::/10",
        );
    }
}

fn check_block_size(out: &mut Checker, pool_path: &str, cidr: IpNet, block_size: Option<u32>) {
    let Some(block_size) = block_size else { return };
    let (family, range) = match cidr {
        IpNet::V4(_) => ("IPv4", 20..=32),
        IpNet::V6(_) => ("IPv6", 116..=128),
    };
    let path = format!("{pool_path}.blockSize");
    if !range.contains(&block_size) {
        out.report(
            &c::CN_BLOCK_SIZE,
            &path,
            format!("block size {block_size} is out of range for {family} pool {cidr}"),
            &format!(
                "use a block size from {} to {} for {family} pools",
                range.start(),
                range.end()
            ),
        );
    } else if block_size < u32::from(cidr.prefix_len()) {
        out.report(
            &c::CN_BLOCK_SIZE,
            &path,
            format!("block size {block_size} is larger than pool {cidr} itself"),
            &format!("use a block size of at least {}", cidr.prefix_len()),
        );
    }
}

fn check_pool_conflicts(
    out: &mut Checker,
    cluster_network: &ClusterNetwork,
    ranges: &[(IpNet, String, &str)],
) {
    let spec = &cluster_network.spec;
    let names = spec
        .pod_pools
        .iter()
        .map(|pool| &pool.name)
        .chain(spec.load_balancer_pools.iter().map(|pool| &pool.name));
    let mut seen: Vec<&String> = Vec::new();
    for ((_, path, _), name) in ranges.iter().zip(names) {
        if seen.contains(&name) {
            out.report(
                &c::CN_POOL_CONFLICT,
                &format!("{path}.name"),
                format!("pool name `{name}` is used twice"),
                "give every pool its own name",
            );
        }
        seen.push(name);
    }
    // Sorting by network address makes any overlap show up between neighbours, so n log n.
    let mut sorted: Vec<&(IpNet, String, &str)> = ranges.iter().collect();
    sorted.sort_by_key(|(cidr, path, _)| (cidr.network(), cidr.prefix_len(), path.clone()));
    for (&first, &second) in sorted.iter().zip(sorted.iter().skip(1)) {
        let ((a, a_path, _), (b, b_path, _)) = (first, second);

        if overlaps(*a, *b) {
            out.report(
                &c::CN_POOL_CONFLICT,
                &format!("{b_path}.cidr"),
                format!("pool {b} overlaps pool {a} ({a_path})"),
                "pools must not share addresses; shrink or move one of them",
            );
        }
    }
}

fn check_name(out: &mut Checker, path: &str, name: &str) {
    if name.is_empty() || !vocab::is_dns_subdomain(name) {
        out.report(
            &c::CN_NAME,
            path,
            format!("name `{name}` is not a valid Kubernetes object name"),
            "use lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit",
        );
    }
}

fn check_selector(out: &mut Checker, path: &str, selector: Option<&str>) {
    let Some(selector) = selector else { return };
    if let Err(err) = vocab::selector::parse_selector(selector) {
        out.report(
            &c::CN_SELECTOR,
            path,
            format!("selector `{selector}` is invalid: {err}"),
            "write a Calico selector such as all(), has(label) or role == 'worker'",
        );
    }
}

fn check_host(out: &mut Checker, host: &str) {
    if vocab::parse_host(host).is_ok() {
        return;
    }
    let hint = if let Some((_, rest)) = host.split_once("://") {
        // A kubeconfig's `server:` URL, such as https://10.0.0.1:6443.
        let authority = rest.split('/').next().unwrap_or(rest);
        let (name, port) = match authority.rsplit_once(':') {
            Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
                (name, Some(port))
            }
            _ => (authority, None),
        };
        let name = name.trim_start_matches('[').trim_end_matches(']');
        match port {
            Some(port) => format!(
                "this is a URL, as a kubeconfig's `server:` writes it: write only its host \
                 `{name}` here, and its port in spec.apiEndpoint.port: {port}"
            ),
            None => format!(
                "this is a URL, as a kubeconfig's `server:` writes it: write only its host \
                 `{name}` here (the port goes in spec.apiEndpoint.port)"
            ),
        }
    } else if host.starts_with('[') || host.contains(':') {
        "write an IPv6 address without brackets and without a port (the port goes in spec.apiEndpoint.port)".to_owned()
    } else {
        "write a DNS name such as control.k8s.example.com or an IP address".to_owned()
    };
    out.report(
        &c::CN_API_HOST,
        "spec.apiEndpoint.host",
        format!("api endpoint host `{host}` is not a DNS name or IP address"),
        &hint,
    );
}

fn overlaps(a: IpNet, b: IpNet) -> bool {
    vocab::cidr::overlaps(&a, &b)
}
