//! The operator's defaults, applied to an Installation the way tigera-operator v1.42 writes them back
//! ([`apply_operator_defaults`]), and as the operator of an older release writes them
//! ([`apply_operator_defaults_for`]; the differences are listed in the repository's
//! docs/releases.md: <https://github.com/calico-render/calico-render/blob/main/docs/releases.md>).
//!
//! [`apply_operator_defaults`] is a pure function: it returns the Installation the operator
//! would compute for a *new* cluster (no IP pools in the cluster yet, no kubeadm `podSubnet`
//! known, no cluster access), following tigera-operator's core controller (`fillDefaults` in
//! `pkg/controller/installation/core_controller.go`) and then its IP pool controller
//! (`pkg/controller/ippool/defaults.go`). Two consumers rely on it:
//!
//! - validation runs the Installation rules on the defaulted spec, as the operator does
//!   (`fillDefaults` before `validateCustomResource`; pool defaults before `ValidatePools`);
//! - rendering writes these defaults explicitly, so that a GitOps tool sees no drift once the
//!   operator has merged its defaults into the object.
//!
//! Fields the operator never defaults (`mtu`, `containerIPForwarding`, `bpfNetworkBootstrap`,
//! `kubeProxyManagement`, `clusterRoutingMode`, `sysctl`, registry and image fields) are left
//! alone. Not modelled, because they need cluster state we do not have: the AKS `typhaAffinity`,
//! AWS-VPC settings merged from an `aws-node` DaemonSet, kubeadm/OpenShift pod CIDRs, and the
//! node address autodetection the operator adds on a *later* reconcile once pools exist
//! (IPv4 `firstFound` for any enabled IPv4 pool, IPv6 `firstFound` for any IPv6 pool).

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::diag::Diagnostic;
use crate::generated::operator_tigera_io::v1::{
    Installation, InstallationSpec, InstallationSpecAzure, InstallationSpecAzurePolicyMode,
    InstallationSpecCalicoNetwork, InstallationSpecCalicoNetworkBgp,
    InstallationSpecCalicoNetworkHostPorts, InstallationSpecCalicoNetworkIpPools,
    InstallationSpecCalicoNetworkIpPoolsEncapsulation,
    InstallationSpecCalicoNetworkIpPoolsNatOutgoing, InstallationSpecCalicoNetworkLinuxDataplane,
    InstallationSpecCalicoNetworkMultiInterfaceMode,
    InstallationSpecCalicoNetworkNodeAddressAutodetectionV4,
    InstallationSpecCalicoNetworkWindowsDataplane, InstallationSpecCni,
    InstallationSpecCniInstallMode, InstallationSpecCniIpam, InstallationSpecCniIpamType,
    InstallationSpecCniSpecVersion, InstallationSpecCniType, InstallationSpecKubernetesProvider,
    InstallationSpecLogging, InstallationSpecLoggingCni, InstallationSpecLoggingCniLogSeverity,
    InstallationSpecNodeUpdateStrategy, InstallationSpecNodeUpdateStrategyRollingUpdate,
    InstallationSpecVariant,
};
use crate::release::Release;
use crate::rules::catalogue as c;
use crate::rules::{InputDocument, ValidationOutcome};
use crate::vocab::cidr;

/// What the defaults depend on beyond the Installation itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultsContext {
    /// The provider the operator would detect (`None`: kubeadm or bare metal). A provider set
    /// in the Installation's `spec.kubernetesProvider` wins.
    pub provider: Option<InstallationSpecKubernetesProvider>,
}

/// The pool the operator creates when `ipPools` is absent (every provider except EKS).
pub const DEFAULT_POOL_CIDR_V4: &str = "192.168.0.0/16";
/// The pool the operator creates on EKS when `ipPools` is absent (with VXLAN).
pub const DEFAULT_POOL_CIDR_EKS: &str = "172.16.0.0/16";
/// The name of the operator's IPv4 pool.
pub const DEFAULT_POOL_NAME_V4: &str = "default-ipv4-ippool";
/// The name of the operator's IPv6 pool.
pub const DEFAULT_POOL_NAME_V6: &str = "default-ipv6-ippool";

/// Return `installation` with the operator's defaults filled in, for a new cluster.
///
/// Existing values are never changed; only absent fields are set (as the operator's merge
/// patch does). The order follows the operator's core controller, then its IP pool
/// controller's pool defaults.
pub fn apply_operator_defaults(installation: &Installation, ctx: &DefaultsContext) -> Installation {
    use InstallationSpecKubernetesProvider as Provider;

    let mut out = installation.clone();
    let spec = out.spec.get_or_insert_with(InstallationSpec::default);

    // 3.1 step 1: the detected provider is written back when the spec has none.
    if spec.kubernetes_provider.is_none()
        && let Some(provider) = &ctx.provider
    {
        spec.kubernetes_provider = Some(provider.clone());
    }
    let provider = spec.kubernetes_provider.clone().unwrap_or(Provider::Empty);

    // Step 3: the variant.
    spec.variant.get_or_insert(InstallationSpecVariant::Calico);

    // Step 5: CNI by provider, IPAM by CNI.
    let cni = spec.cni.get_or_insert(InstallationSpecCni {
        bin_dir: None,
        conf_dir: None,
        install_mode: None,
        ipam: None,
        spec_version: None,
        r#type: match provider {
            Provider::AKS => InstallationSpecCniType::AzureVNET,
            Provider::EKS => InstallationSpecCniType::AmazonVPC,
            Provider::GKE => InstallationSpecCniType::GKE,
            _ => InstallationSpecCniType::Calico,
        },
    });
    let cni_type = cni.r#type.clone();
    let calico_cni = cni_type == InstallationSpecCniType::Calico;
    cni.ipam.get_or_insert(InstallationSpecCniIpam {
        r#type: match cni_type {
            InstallationSpecCniType::AzureVNET => InstallationSpecCniIpamType::AzureVNET,
            InstallationSpecCniType::AmazonVPC => InstallationSpecCniIpamType::AmazonVPC,
            InstallationSpecCniType::GKE => InstallationSpecCniIpamType::HostLocal,
            _ => InstallationSpecCniIpamType::Calico,
        },
    });
    let calico_ipam = cni
        .ipam
        .as_ref()
        .is_some_and(|ipam| ipam.r#type == InstallationSpecCniIpamType::Calico);
    // Step 10: CNI directories by provider.
    let (conf_dir, bin_dir) = match provider {
        Provider::GKE => ("/etc/cni/net.d", "/home/kubernetes/bin"),
        Provider::OpenShift => ("/var/run/multus/cni/net.d", "/var/lib/cni/bin"),
        _ => ("/etc/cni/net.d", "/opt/cni/bin"),
    };
    cni.conf_dir.get_or_insert_with(|| conf_dir.to_owned());
    cni.bin_dir.get_or_insert_with(|| bin_dir.to_owned());

    // Step 6: the network object and the dataplanes.
    let network = spec
        .calico_network
        .get_or_insert_with(InstallationSpecCalicoNetwork::default);
    network
        .linux_dataplane
        .get_or_insert(InstallationSpecCalicoNetworkLinuxDataplane::Iptables);
    network
        .windows_dataplane
        .get_or_insert(InstallationSpecCalicoNetworkWindowsDataplane::Disabled);

    // Step 7: BGP follows the CNI (and EKS), never the encapsulation.
    network
        .bgp
        .get_or_insert(if calico_cni && provider != Provider::EKS {
            InstallationSpecCalicoNetworkBgp::Enabled
        } else {
            InstallationSpecCalicoNetworkBgp::Disabled
        });

    // Step 8: on a new cluster only the BPF dataplane makes IPv4 autodetection necessary.
    let bpf = network.linux_dataplane == Some(InstallationSpecCalicoNetworkLinuxDataplane::BPF);
    if bpf && network.node_address_autodetection_v4.is_none() {
        let mut method = InstallationSpecCalicoNetworkNodeAddressAutodetectionV4::default();
        match provider {
            Provider::DockerEnterprise => method.skip_interface = Some("^br-.*".to_owned()),
            Provider::EKS => method.can_reach = Some("8.8.8.8".to_owned()),
            _ => method.first_found = Some(true),
        }
        network.node_address_autodetection_v4 = Some(method);
    }

    // Step 9: the policy setup timeout, for Calico CNI with iptables.
    if calico_cni
        && network.linux_dataplane == Some(InstallationSpecCalicoNetworkLinuxDataplane::Iptables)
    {
        network.linux_policy_setup_timeout_seconds.get_or_insert(0);
    }

    // Step 11: Calico CNI only.
    if calico_cni {
        network
            .host_ports
            .get_or_insert(InstallationSpecCalicoNetworkHostPorts::Enabled);
        network
            .multi_interface_mode
            .get_or_insert(InstallationSpecCalicoNetworkMultiInterfaceMode::None);
    }

    // 3.2: the pool list, then every pool's fields.
    if network.ip_pools.is_none() && calico_ipam {
        let (cidr, encapsulation) = if provider == Provider::EKS {
            (
                DEFAULT_POOL_CIDR_EKS,
                Some(InstallationSpecCalicoNetworkIpPoolsEncapsulation::VXLAN),
            )
        } else {
            (DEFAULT_POOL_CIDR_V4, None)
        };
        network.ip_pools = Some(vec![InstallationSpecCalicoNetworkIpPools {
            cidr: cidr.to_owned(),
            encapsulation,
            ..InstallationSpecCalicoNetworkIpPools::default()
        }]);
    }
    if let Some(pools) = network.ip_pools.as_mut() {
        default_pools(pools, calico_cni);
    }

    if calico_cni {
        let logging = spec
            .logging
            .get_or_insert_with(InstallationSpecLogging::default);
        let cni_logging = logging
            .cni
            .get_or_insert_with(InstallationSpecLoggingCni::default);
        cni_logging
            .log_severity
            .get_or_insert(InstallationSpecLoggingCniLogSeverity::Info);
        cni_logging.log_file_max_count.get_or_insert(10);
        cni_logging.log_file_max_age_days.get_or_insert(30);
        cni_logging
            .log_file_max_size
            .get_or_insert_with(|| IntOrString::String("100Mi".to_owned()));
    }

    // Steps 12-16.
    spec.control_plane_replicas.get_or_insert(2);
    spec.flex_volume_path.get_or_insert_with(|| {
        match provider {
            Provider::OpenShift => "/etc/kubernetes/kubelet-plugins/volume/exec/",
            Provider::GKE => "/home/kubernetes/flexvolume/",
            Provider::AKS => "/etc/kubernetes/volumeplugins/",
            Provider::RKE2 => "/var/lib/kubelet/volumeplugins/",
            _ => "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
        }
        .to_owned()
    });
    spec.kubelet_volume_plugin_path
        .get_or_insert_with(|| "/var/lib/kubelet".to_owned());
    let strategy = spec
        .node_update_strategy
        .get_or_insert_with(InstallationSpecNodeUpdateStrategy::default);
    if strategy.r#type.is_none() {
        strategy.r#type = Some("RollingUpdate".to_owned());
    }
    if strategy.r#type.as_deref() == Some("RollingUpdate") {
        let rolling = strategy
            .rolling_update
            .get_or_insert_with(InstallationSpecNodeUpdateStrategyRollingUpdate::default);
        rolling.max_unavailable.get_or_insert(IntOrString::Int(1));
    }
    if provider == Provider::AKS && spec.azure.is_none() {
        spec.azure = Some(InstallationSpecAzure {
            policy_mode: Some(InstallationSpecAzurePolicyMode::Default),
        });
    }
    out
}

/// Installation fields the v1.42 operator writes back that an older release's Installation CRD
/// does not have, so that release's operator cannot write them: the schema
/// path, and how to take the default out again.
type Unset = fn(&mut InstallationSpec);
const DEFAULTED_FIELDS: [(&str, Unset); 2] = [
    ("spec.cni.binDir", |spec| {
        if let Some(cni) = spec.cni.as_mut() {
            cni.bin_dir = None;
        }
    }),
    ("spec.cni.confDir", |spec| {
        if let Some(cni) = spec.cni.as_mut() {
            cni.conf_dir = None;
        }
    }),
];

/// How the operator calico-render follows for a release is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// Its defaulting and validation code was read (facts only).
    Read,
    /// Not read (the Go module proxy does not serve that operator): assumed to behave as the
    /// nearest operator that was read.
    Assumed,
    /// Read from the operator's release branch before the release was tagged: what changed
    /// between that commit and the tag is not known.
    Branch,
}

/// The tigera-operator whose defaults and verdicts calico-render follows for one release, where
/// they differ from v1.42.3's (the repository's docs/releases.md, "Operator defaults":
/// <https://github.com/calico-render/calico-render/blob/main/docs/releases.md>).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperatorBehaviour {
    /// The Calico minor (`v3.31`), as in [`Release::minor`].
    pub minor: &'static str,
    /// The operator whose code was read for this release (`v1.40.0`). The release itself pins
    /// [`Release::operator`] (`v1.40.15`), which the module proxy does not serve.
    pub read: &'static str,
    /// Whether `read` is that release's operator line, or only the nearest one to it.
    pub basis: Basis,
    /// Writes `spec.nonPrivileged: Disabled` back when it is absent (v1.40 does, v1.42 no
    /// longer does).
    pub writes_non_privileged: bool,
    /// Accepts `spec.nonPrivileged: Enabled`, except with the BPF dataplane or the
    /// TigeraSecureEnterprise variant (v1.40); v1.42 refuses it in every case.
    pub accepts_non_privileged: bool,
    /// Writes `spec.cni.installMode: All` back when absent, and `spec.cni.specVersion: Auto`
    /// with Calico CNI (v1.44, `fillDefaults`; v1.42 has neither field).
    pub writes_cni_modes: bool,
    /// Refuses `spec.fipsMode: Enabled` with every variant ("FIPS mode has been removed",
    /// v1.44 `validateCustomResource`, which degrades the installation); v1.42 only with
    /// TigeraSecureEnterprise.
    pub refuses_fips: bool,
    /// Takes an unset `calicoNetwork.clusterRoutingMode` as `FelixIPIPOnly` (Felix programs
    /// the IPIP cluster routes), so IPIP pools no longer need `bgp: Enabled`; unencapsulated
    /// pools still do (v1.44 `clusterRoutingMode`). v1.42 takes unset as BIRD's routes.
    pub felix_ipip_routes_by_default: bool,
    /// Starts a new install (neither the `crd.projectcalico.org` nor the `projectcalico.org`
    /// group served, no `CALICO_API_GROUP`) in native v3 CRD mode when the cluster serves
    /// MutatingAdmissionPolicy (release-v1.44 `pkg/apis/version.go` `useV3CRDs`); v1.42.3
    /// starts such a cluster on the v1 CRDs. Every operator keeps an existing cluster's mode:
    /// v1 CRDs present means the aggregated API server.
    pub native_v3_for_new_installs: bool,
}

/// One entry per release in [`crate::release::RELEASES`], oldest first.
pub const OPERATOR_BEHAVIOUR: [OperatorBehaviour; 4] = [
    // v1.38.x is not served by the module proxy; v1.39.0 and v1.40.0 (read) default and check
    // `nonPrivileged` alike, so v1.38 is assumed to as well.
    OperatorBehaviour {
        minor: "v3.30",
        read: "v1.40.0",
        basis: Basis::Assumed,
        writes_non_privileged: true,
        accepts_non_privileged: true,
        writes_cni_modes: false,
        refuses_fips: false,
        felix_ipip_routes_by_default: false,
        native_v3_for_new_installs: false,
    },
    OperatorBehaviour {
        minor: "v3.31",
        read: "v1.40.0",
        basis: Basis::Read,
        writes_non_privileged: true,
        accepts_non_privileged: true,
        writes_cni_modes: false,
        refuses_fips: false,
        felix_ipip_routes_by_default: false,
        native_v3_for_new_installs: false,
    },
    OperatorBehaviour {
        minor: "v3.32",
        read: "v1.42.3",
        basis: Basis::Read,
        writes_non_privileged: false,
        accepts_non_privileged: false,
        writes_cni_modes: false,
        refuses_fips: false,
        felix_ipip_routes_by_default: false,
        native_v3_for_new_installs: false,
    },
    // The release-v1.44 branch at b0c1cc5 (2026-08-19), a few weeks before v1.44.0: the tag's
    // code could not be read (docs/releases.md).
    OperatorBehaviour {
        minor: "v3.33",
        read: "release-v1.44 (b0c1cc5)",
        basis: Basis::Branch,
        writes_non_privileged: false,
        accepts_non_privileged: false,
        writes_cni_modes: true,
        refuses_fips: true,
        felix_ipip_routes_by_default: true,
        native_v3_for_new_installs: true,
    },
];

/// The operator behaviour calico-render follows for `release` (the newest one's when the
/// table has no entry for it).
pub fn operator_behaviour(release: &Release) -> &'static OperatorBehaviour {
    let [.., newest] = &OPERATOR_BEHAVIOUR;
    OPERATOR_BEHAVIOUR
        .iter()
        .find(|behaviour| behaviour.minor == release.minor)
        .unwrap_or(newest)
}

/// [`apply_operator_defaults`] as the operator of `release` writes them: the v1.42 defaults,
/// without those of fields the release's Installation CRD does not have (a field the
/// Installation already sets is kept, and left to validation), plus the defaults only that
/// operator writes ([`OperatorBehaviour`]).
pub fn apply_operator_defaults_for(
    release: &Release,
    installation: &Installation,
    ctx: &DefaultsContext,
) -> Installation {
    let mut out = apply_operator_defaults(installation, ctx);
    let index = release.index();
    let before = serde_json::to_value(installation).unwrap_or_default();
    if let Some(spec) = out.spec.as_mut() {
        let behaviour = operator_behaviour(release);
        if behaviour.writes_non_privileged {
            spec.non_privileged
                .get_or_insert_with(|| "Disabled".to_owned());
        }
        if behaviour.writes_cni_modes
            && let Some(cni) = spec.cni.as_mut()
        {
            cni.install_mode
                .get_or_insert(InstallationSpecCniInstallMode::All);
            if cni.r#type == InstallationSpecCniType::Calico {
                cni.spec_version
                    .get_or_insert(InstallationSpecCniSpecVersion::Auto);
            }
        }
        for (path, unset) in DEFAULTED_FIELDS {
            let written = path
                .split('.')
                .try_fold(&before, |value, key| value.get(key))
                .is_some();
            if !written && index.node("Installation", path).is_none() {
                unset(spec);
            }
        }
    }
    out
}

/// The verdicts of the operator `release` follows where they differ from v1.42.3's, applied to
/// a validation outcome (the rule catalogue judges as v1.42.3 does). An operator that accepts
/// `nonPrivileged: Enabled` ([`OperatorBehaviour::accepts_non_privileged`]) still refuses it
/// with the BPF dataplane or the TigeraSecureEnterprise variant: the catalogue's refusal stays
/// there, saying why, and goes everywhere else.
pub fn apply_operator_verdicts(
    release: &Release,
    inputs: &[InputDocument<'_>],
    outcome: &mut ValidationOutcome,
) {
    restate_verdicts(release, &mut outcome.diagnostics, |diag| {
        let loc = diag.location.as_ref()?;
        inputs
            .iter()
            .find(|input| {
                input.file == loc.file
                    && input.document.index == loc.document
                    && in_scope(&input.document.spans.full_path(""), &diag.path)
            })
            .map(|input| &input.document.value)
    });
    for input in inputs {
        let document = input.document;
        for mut diag in added_verdicts(release, &document.value) {
            let pos = document.spans.locate(&diag.path).unwrap_or(document.start);
            diag.location = Some(crate::diag::Location {
                file: input.file.to_owned(),
                document: document.index,
                line: Some(pos.line),
                column: Some(pos.column),
            });
            outcome.diagnostics.push(diag);
        }
    }
}

/// Whether a diagnostic at `path` belongs to the document whose root sits at `root` (empty
/// for a whole document, `items[N]` for a list item).
fn in_scope(root: &str, path: &str) -> bool {
    root.is_empty()
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// [`apply_operator_verdicts`] for the objects a ClusterNetwork compiles to, before their
/// diagnostics are moved to ClusterNetwork paths (a diagnostic's document is the object's
/// index in `objects`).
pub fn apply_operator_verdicts_to_objects(
    release: &Release,
    objects: &[serde_json::Value],
    diagnostics: &mut Vec<Diagnostic>,
) {
    restate_verdicts(release, diagnostics, |diag| {
        objects.get(diag.location.as_ref()?.document)
    });
    for (idx, object) in objects.iter().enumerate() {
        for mut diag in added_verdicts(release, object) {
            diag.location = Some(crate::diag::Location {
                file: String::new(),
                document: idx,
                line: None,
                column: None,
            });
            diagnostics.push(diag);
        }
    }
}

/// What the operator of `release` refuses that v1.42.3 (the rule catalogue) accepts, in an
/// Installation: `fipsMode: Enabled` with any variant for v1.44 ([`OperatorBehaviour::refuses_fips`];
/// the catalogue already refuses it with TigeraSecureEnterprise).
fn added_verdicts(release: &Release, object: &serde_json::Value) -> Vec<Diagnostic> {
    let behaviour = operator_behaviour(release);
    // Field by field rather than a JSON pointer, which allocates per step: this runs for
    // every document of the run.
    let text = |keys: &[&str]| {
        keys.iter()
            .try_fold(object, |value, key| value.get(key))
            .and_then(serde_json::Value::as_str)
    };
    let is_installation = text(&["kind"]) == Some("Installation")
        && text(&["apiVersion"]) == Some("operator.tigera.io/v1");
    if !behaviour.refuses_fips
        || !is_installation
        || text(&["spec", "fipsMode"]) != Some("Enabled")
        || text(&["spec", "variant"]) == Some("TigeraSecureEnterprise")
    {
        return Vec::new();
    }
    vec![Diagnostic {
        severity: c::INSTALLATION_OTHER.severity,
        code: c::INSTALLATION_OTHER.code,
        path: "spec.fipsMode".to_owned(),
        message: format!(
            "`fipsMode: Enabled` is refused by tigera-operator {} ({}): FIPS mode was removed in \
             Calico v3.33 and the operator marks the installation degraded",
            release.operator, behaviour.read
        ),
        hint: Some("remove `fipsMode` or set it to `Disabled`".to_owned()),
        location: None,
    }]
}

/// Drop or reword each v1.42.3 verdict the operator of `release` does not share; `object`
/// finds the object a diagnostic is about.
fn restate_verdicts<'a>(
    release: &Release,
    diagnostics: &mut Vec<Diagnostic>,
    object: impl Fn(&Diagnostic) -> Option<&'a serde_json::Value>,
) {
    let behaviour = operator_behaviour(release);
    diagnostics.retain_mut(|diag| {
        if behaviour.felix_ipip_routes_by_default && diag.code == c::INSTALLATION_NEEDS_BGP.code {
            return object(diag).is_none_or(|object| !felix_owns_ipip_routes(object, &diag.path));
        }
        if !behaviour.accepts_non_privileged
            || diag.code != c::INSTALLATION_OTHER.code
            || !diag.path.ends_with("spec.nonPrivileged")
        {
            return true;
        }
        let Some(object) = object(diag) else {
            return true;
        };
        let spec = &object["spec"];
        let dataplane = spec.pointer("/calicoNetwork/linuxDataplane");
        let why = if dataplane.is_some_and(|d| d == "BPF") {
            "the BPF dataplane"
        } else if spec["variant"] == "TigeraSecureEnterprise" {
            "the TigeraSecureEnterprise variant"
        } else {
            return false;
        };
        diag.message = format!(
            "`nonPrivileged: Enabled` is not supported with {why} by tigera-operator {}",
            behaviour.read
        );
        true
    });
}

/// Whether, for an operator that takes an unset `clusterRoutingMode` as `FelixIPIPOnly`
/// ([`OperatorBehaviour::felix_ipip_routes_by_default`]), Felix programs the routes of the
/// Installation pool whose `encapsulation` is at `path` (`spec.calicoNetwork.ipPools[N].
/// encapsulation`): an IPIP pool (written, or an IPv4 pool's default) under an unset mode or
/// `FelixIPIPOnly`. Unencapsulated pools stay with BIRD, so they still need BGP.
fn felix_owns_ipip_routes(object: &serde_json::Value, path: &str) -> bool {
    let mode = object
        .pointer("/spec/calicoNetwork/clusterRoutingMode")
        .and_then(serde_json::Value::as_str);
    if !matches!(mode, None | Some("FelixIPIPOnly")) {
        return false;
    }
    // The path may lie inside a list item (`items[2].spec...`).
    let pool = path
        .split_once("spec.calicoNetwork.ipPools[")
        .map(|(_, rest)| rest)
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(idx, _)| idx.parse::<usize>().ok())
        .and_then(|idx| object.pointer(&format!("/spec/calicoNetwork/ipPools/{idx}")));
    let Some(pool) = pool else { return false };
    let field = |key: &str| pool.get(key).and_then(serde_json::Value::as_str);
    match field("encapsulation") {
        Some(encapsulation) => encapsulation.starts_with("IPIP"),
        // The operator's default: IPIP for an IPv4 pool with Calico CNI (the only CNI this
        // rule is reported for).
        None => field("cidr").is_some_and(|cidr| !cidr.contains(':')),
    }
}

/// The per-pool defaults of the operator's IP pool controller (`fillDefaults` in
/// `pkg/controller/ippool/defaults.go`).
fn default_pools(pools: &mut [InstallationSpecCalicoNetworkIpPools], calico_cni: bool) {
    // The operator decides the family by looking for a colon, not by parsing.
    // The operator's defaults take the family from the parsed address (Go's `To4`), so an
    // IPv4-mapped IPv6 pool (`::ffff:10.0.0.0/104`) gets IPv4 defaults.
    let is_v6 = |pool: &InstallationSpecCalicoNetworkIpPools| match cidr::parse_cidr(&pool.cidr) {
        Ok(net) => cidr::Family::of_go_addr(net.addr()) == cidr::Family::V6,
        Err(_) => pool.cidr.contains(':'),
    };
    let n_pools = pools.len();
    let dual_stack = matches!(pools, [first, second] if is_v6(first) != is_v6(second));

    for pool in pools.iter_mut() {
        let v6 = is_v6(pool);
        if pool.name.as_deref().is_none_or(str::is_empty) {
            pool.name = Some(if n_pools == 1 || dual_stack {
                if v6 {
                    DEFAULT_POOL_NAME_V6
                } else {
                    DEFAULT_POOL_NAME_V4
                }
                .to_owned()
            } else {
                derived_pool_name(&pool.cidr).unwrap_or_default()
            });
        }
        pool.allowed_uses
            .get_or_insert_with(|| vec!["Workload".to_owned(), "Tunnel".to_owned()]);
        pool.encapsulation.get_or_insert(if !v6 && calico_cni {
            InstallationSpecCalicoNetworkIpPoolsEncapsulation::IPIP
        } else {
            InstallationSpecCalicoNetworkIpPoolsEncapsulation::None
        });
        pool.nat_outgoing.get_or_insert(if v6 {
            InstallationSpecCalicoNetworkIpPoolsNatOutgoing::Disabled
        } else {
            InstallationSpecCalicoNetworkIpPoolsNatOutgoing::Enabled
        });
        pool.node_selector.get_or_insert_with(|| "all()".to_owned());
        pool.block_size.get_or_insert(if v6 { 122 } else { 26 });
        pool.disable_new_allocations.get_or_insert(false);
        pool.disable_bgp_export.get_or_insert(false);
        pool.assignment_mode
            .get_or_insert_with(|| "Automatic".to_owned());
    }
}

/// The operator's name for a pool derived from its CIDR: the network address fully expanded,
/// colons replaced by dots, then `-<prefix>` (`10.0.0.0/16` -> `10.0.0.0-16`, `fd00::/48` ->
/// `fd00.0000.0000.0000.0000.0000.0000.0000-48`). `None` when the CIDR does not parse.
pub fn derived_pool_name(cidr_text: &str) -> Option<String> {
    let net = cidr::parse_cidr(cidr_text).ok()?.trunc();
    let address = match net.network() {
        std::net::IpAddr::V4(v4) => v4.to_string(),
        std::net::IpAddr::V6(v6) => v6
            .segments()
            .iter()
            .map(|segment| format!("{segment:04x}"))
            .collect::<Vec<_>>()
            .join("."),
    };
    Some(format!("{address}-{}", net.prefix_len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installation(yaml: &str) -> Installation {
        serde_saphyr::from_str(yaml).expect("test Installation parses")
    }

    fn defaulted(
        yaml: &str,
        provider: Option<InstallationSpecKubernetesProvider>,
    ) -> serde_json::Value {
        let out = apply_operator_defaults(&installation(yaml), &DefaultsContext { provider });
        serde_json::to_value(out).expect("Installation serializes")
    }

    const MINIMAL: &str =
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\n";

    #[test]
    fn minimal_kubeadm_installation() {
        let value = defaulted(MINIMAL, None);
        let spec = &value["spec"];
        assert_eq!(spec["variant"], "Calico");
        assert_eq!(spec["cni"]["type"], "Calico");
        assert_eq!(spec["cni"]["ipam"]["type"], "Calico");
        assert_eq!(spec["cni"]["binDir"], "/opt/cni/bin");
        let network = &spec["calicoNetwork"];
        assert_eq!(network["bgp"], "Enabled");
        assert_eq!(network["linuxDataplane"], "Iptables");
        assert_eq!(network["windowsDataplane"], "Disabled");
        assert_eq!(network["hostPorts"], "Enabled");
        assert_eq!(network["multiInterfaceMode"], "None");
        assert_eq!(network["linuxPolicySetupTimeoutSeconds"], 0);
        assert!(network.get("nodeAddressAutodetectionV4").is_none());
        let pool = &network["ipPools"][0];
        assert_eq!(pool["cidr"], DEFAULT_POOL_CIDR_V4);
        assert_eq!(pool["name"], DEFAULT_POOL_NAME_V4);
        assert_eq!(pool["encapsulation"], "IPIP");
        assert_eq!(pool["natOutgoing"], "Enabled");
        assert_eq!(pool["blockSize"], 26);
        assert_eq!(pool["nodeSelector"], "all()");
        assert_eq!(
            pool["allowedUses"],
            serde_json::json!(["Workload", "Tunnel"])
        );
        assert_eq!(pool["assignmentMode"], "Automatic");
        assert_eq!(pool["disableBGPExport"], false);
        assert_eq!(pool["disableNewAllocations"], false);
        assert_eq!(spec["controlPlaneReplicas"], 2);
        assert_eq!(spec["kubeletVolumePluginPath"], "/var/lib/kubelet");
        assert_eq!(spec["nodeUpdateStrategy"]["type"], "RollingUpdate");
        assert_eq!(
            spec["nodeUpdateStrategy"]["rollingUpdate"]["maxUnavailable"],
            1
        );
        assert_eq!(spec["logging"]["cni"]["logFileMaxSize"], "100Mi");
    }

    #[test]
    fn article_installation_keeps_its_values() {
        let yaml = format!(
            "{MINIMAL}spec:\n  calicoNetwork:\n    linuxDataplane: BPF\n    bgp: Disabled\n    ipPools:\n    - cidr: 172.20.0.0/16\n      encapsulation: VXLANCrossSubnet\n      disableBGPExport: true\n"
        );
        let value = defaulted(&yaml, None);
        let network = &value["spec"]["calicoNetwork"];
        assert_eq!(network["bgp"], "Disabled");
        assert_eq!(network["nodeAddressAutodetectionV4"]["firstFound"], true);
        assert!(network.get("linuxPolicySetupTimeoutSeconds").is_none());
        let pool = &network["ipPools"][0];
        assert_eq!(pool["encapsulation"], "VXLANCrossSubnet");
        assert_eq!(pool["disableBGPExport"], true);
        assert_eq!(pool["name"], DEFAULT_POOL_NAME_V4);
    }

    #[test]
    fn providers() {
        let check =
            |provider: InstallationSpecKubernetesProvider, cni: &str, ipam: &str, bgp: &str| {
                let value = defaulted(MINIMAL, Some(provider.clone()));
                assert_eq!(value["spec"]["cni"]["type"], cni, "{provider:?}");
                assert_eq!(value["spec"]["cni"]["ipam"]["type"], ipam, "{provider:?}");
                assert_eq!(value["spec"]["calicoNetwork"]["bgp"], bgp, "{provider:?}");
            };
        check(
            InstallationSpecKubernetesProvider::AKS,
            "AzureVNET",
            "AzureVNET",
            "Disabled",
        );
        check(
            InstallationSpecKubernetesProvider::EKS,
            "AmazonVPC",
            "AmazonVPC",
            "Disabled",
        );
        check(
            InstallationSpecKubernetesProvider::GKE,
            "GKE",
            "HostLocal",
            "Disabled",
        );
        check(
            InstallationSpecKubernetesProvider::OpenShift,
            "Calico",
            "Calico",
            "Enabled",
        );
        let value = defaulted(MINIMAL, Some(InstallationSpecKubernetesProvider::AKS));
        assert_eq!(value["spec"]["azure"]["policyMode"], "Default");
        assert!(value["spec"]["calicoNetwork"].get("ipPools").is_none());
    }

    #[test]
    fn pool_names_and_families() {
        let yaml = format!(
            "{MINIMAL}spec:\n  calicoNetwork:\n    ipPools:\n    - cidr: 10.0.0.0/16\n    - cidr: fd00::/48\n"
        );
        let value = defaulted(&yaml, None);
        let pools = &value["spec"]["calicoNetwork"]["ipPools"];
        assert_eq!(pools[0]["name"], DEFAULT_POOL_NAME_V4);
        assert_eq!(pools[1]["name"], DEFAULT_POOL_NAME_V6);
        assert_eq!(pools[1]["encapsulation"], "None");
        assert_eq!(pools[1]["natOutgoing"], "Disabled");
        assert_eq!(pools[1]["blockSize"], 122);
        let yaml = format!(
            "{MINIMAL}spec:\n  calicoNetwork:\n    ipPools:\n    - cidr: 10.0.0.0/16\n    - cidr: 10.1.0.0/16\n"
        );
        let value = defaulted(&yaml, None);
        assert_eq!(
            value["spec"]["calicoNetwork"]["ipPools"][1]["name"],
            "10.1.0.0-16"
        );
        assert_eq!(
            derived_pool_name("fd00::/48").as_deref(),
            Some("fd00.0000.0000.0000.0000.0000.0000.0000-48")
        );
    }

    #[test]
    fn defaults_follow_the_release() {
        use crate::release::RELEASES;
        let input = installation(MINIMAL);
        let ctx = DefaultsContext { provider: None };
        let cni = |release| {
            let out = apply_operator_defaults_for(release, &input, &ctx);
            serde_json::to_value(out).expect("serializes")["spec"]["cni"].clone()
        };
        // v1.38 (v3.30) has no cni.binDir/confDir; v1.40 and v1.42 write them.
        assert!(cni(&RELEASES[0]).get("binDir").is_none());
        assert!(cni(&RELEASES[0]).get("confDir").is_none());
        assert_eq!(cni(&RELEASES[1])["binDir"], "/opt/cni/bin");
        assert_eq!(cni(&RELEASES[2])["confDir"], "/etc/cni/net.d");
        // v1.40 (read) and v1.38 (assumed) write `nonPrivileged: Disabled`, v1.42 does not.
        let spec = |release| {
            serde_json::to_value(apply_operator_defaults_for(release, &input, &ctx))
                .expect("serializes")["spec"]
                .clone()
        };
        assert_eq!(spec(&RELEASES[0])["nonPrivileged"], "Disabled");
        assert_eq!(spec(&RELEASES[1])["nonPrivileged"], "Disabled");
        assert!(spec(&RELEASES[2]).get("nonPrivileged").is_none());
        // Everything else is the same in every release.
        let mut old = spec(&RELEASES[0]);
        let mut mid = spec(&RELEASES[1]);
        let mut new = spec(&RELEASES[2]);
        for value in [&mut old, &mut mid, &mut new] {
            let spec = value.as_object_mut().unwrap();
            spec.remove("nonPrivileged");
            let cni = spec["cni"].as_object_mut().unwrap();
            cni.remove("binDir");
            cni.remove("confDir");
        }
        assert_eq!(old, new);
        assert_eq!(mid, new);
    }

    #[test]
    fn a_written_non_privileged_is_kept() {
        use crate::release::RELEASES;
        let input = installation(&format!("{MINIMAL}spec:\n  nonPrivileged: Enabled\n"));
        let ctx = DefaultsContext { provider: None };
        for release in &RELEASES {
            let out = apply_operator_defaults_for(release, &input, &ctx);
            assert_eq!(
                out.spec.and_then(|spec| spec.non_privileged).as_deref(),
                Some("Enabled"),
                "{}",
                release.calico
            );
        }
    }

    #[test]
    fn every_release_has_an_operator_behaviour() {
        use crate::release::RELEASES;
        assert_eq!(OPERATOR_BEHAVIOUR.len(), RELEASES.len());
        for (behaviour, release) in OPERATOR_BEHAVIOUR.iter().zip(&RELEASES) {
            assert_eq!(behaviour.minor, release.minor);
            assert_eq!(operator_behaviour(release), behaviour);
            // The operator read is the release's own line when it is measured.
            let line = |version: &str| version.rsplit_once('.').map(|(line, _)| line.to_owned());
            if behaviour.basis == Basis::Read {
                assert_eq!(
                    line(behaviour.read),
                    line(release.operator),
                    "{}",
                    release.minor
                );
            }
        }
        // The default release's operator is the one the rule catalogue and the harness follow.
        assert_eq!(
            OPERATOR_BEHAVIOUR[2].read,
            crate::release::Release::default_target().operator
        );
        // v3.33's operator was read from its release branch, before the v1.44.0 tag.
        assert_eq!(OPERATOR_BEHAVIOUR[3].basis, Basis::Branch);
        assert!(OPERATOR_BEHAVIOUR[3].read.starts_with("release-v1.44"));
    }

    #[test]
    fn empty_pool_list_stays_empty() {
        let yaml = format!("{MINIMAL}spec:\n  calicoNetwork:\n    ipPools: []\n");
        let value = defaulted(&yaml, None);
        assert_eq!(
            value["spec"]["calicoNetwork"]["ipPools"],
            serde_json::json!([])
        );
    }
}
