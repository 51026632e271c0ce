//! Every rule's code, severity, summary and explanation, as data.
//!
//! Codes are grouped by hundreds. `CN` codes are the ClusterNetwork's own checks, emitted by
//! `crate::cluster_network` (`CN00xx` reading, `CN01xx` cross-field errors, `CN02xx` lints);
//! they live here too so that `explain`, `--deny` and `--allow` know every code. `CR0000` is
//! input that could not be processed at all, `CR00xx` reading and schema, `CR10xx` IPPool,
//! `CR20xx` BGPPeer, `CR30xx` BGPConfiguration, `CR40xx` FelixConfiguration, `CR50xx`
//! Installation, `CR60xx` APIServer and the endpoint ConfigMap, `CR70xx` checks across objects,
//! `CR80xx` our lints. `KRM0xx` are the KRM function's own errors about its function config.
//! `OP` codes are operational checks (`crate::rules::ops`): objects every layer accepts that break
//! a cluster later, each drawn from public reports, which its entry links (`reports`) beside a
//! catalogue-level `fix`: `OP01xx` pools and IPAM, `OP02xx` MTU, encapsulation and routing,
//! `OP03xx` BGP and peering, `OP04xx` LoadBalancer and service advertisement, `OP05xx` eBPF,
//! kube-proxy and the dataplane, `OP06xx` operator ownership, GitOps and chart values, `OP07xx`
//! nodes and address autodetection, `OP08xx` platform and release (Kubernetes, kernel, runtime).
//! `RT0xxx` compare the ClusterNetwork with the router at the far end of its BGP sessions
//! (`crate::router`).
//! `FL` codes are fleet checks across clusters (`crate::fleet`): `FL00xx` the fleet file, `FL01xx`
//! overlaps between clusters and with the fleet's reserved and routed ranges (one finding per
//! range that several clusters hold, naming them all), `FL02xx` routing settings of clusters that
//! route to each other.
//! A code is never reused for a different meaning.
//!
//! This table is the only definition of a code: checks report `&catalogue::NAME`, never a code
//! literal, and a test scans the sources for code-shaped words that are not in it.

use crate::diag::Severity;

/// One entry of the rule catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable code, e.g. `CR1003`.
    pub code: &'static str,
    /// Severity before `--deny`/`--allow`: errors are upstream parity, warnings are our lints,
    /// notes are routine information that never fails a run.
    pub severity: Severity,
    /// One line, lowercase.
    pub summary: &'static str,
    /// A few sentences: what upstream does and how to fix the input.
    pub explanation: &'static str,
    /// Public reports the rule was drawn from (issue, pull-request or Q&A links); empty for
    /// most rules, set for every operational (`OP`) check.
    pub reports: &'static [&'static str],
    /// The catalogue-level fix, one or two sentences; empty when the explanation says it.
    pub fix: &'static str,
}

/// `NAME = "CODE", Severity, "summary", "explanation";`, optionally followed (before the `;`)
/// by `, reports: ["https://...", ...], fix: "..."`: entries without them keep the short form.
macro_rules! rules {
    ($($name:ident = $code:literal, $sev:ident, $summary:literal, $explanation:literal
        $(, reports: [$($report:literal),* $(,)?], fix: $fix:literal)?;)*) => {
        $(
            #[doc = concat!("`", $code, "`: ", $summary, ".")]
            pub const $name: Rule = Rule {
                code: $code,
                severity: Severity::$sev,
                summary: $summary,
                explanation: $explanation,
                reports: &[$($($report),*)?],
                fix: concat!("" $(, $fix)?),
            };
        )*
        /// The whole catalogue, sorted by code.
        pub const CATALOGUE: &[Rule] = &[$($name),*];
    };
}

rules! {
    CN_UNKNOWN_FIELD = "CN0001", Error, "unknown ClusterNetwork field",
        "The ClusterNetwork kind (calico-render.dev/v1alpha1) has no such field; it is read strictly so that a misspelt field is never ignored. The message suggests the closest field; `calico-render schema` prints every field.";
    CN_INVALID_VALUE = "CN0002", Error, "invalid ClusterNetwork value",
        "The value has the wrong type or is outside the field's valid set (an unknown enum value, a CIDR that does not parse, port 0, no pod pool at all). Booleans are `true` or `false` only: YAML 1.1 words such as `yes` are refused. The message lists the valid values.";
    CN_YAML_TAG = "CN0003", Error, "YAML tag where text was meant",
        "A word after `!` in YAML is a tag, not text: `nodeSelector: !all()` is the tag `!all()` on an empty value. A ClusterNetwork has no tagged values, so a tag is refused rather than dropped. Quote the value (`nodeSelector: '!all()'`) if the `!` is part of the text, or remove the tag.";
    CN_CALICO_VERSION = "CN0101", Error, "unsupported calicoVersion",
        "calico-render renders for Calico v3.30, v3.31, v3.32 and v3.33 (tigera-operator v1.38, v1.40, v1.42, v1.44) and knows each release's fields and defaults; `calicoVersion` must be a patch release of one of them, such as `v3.32.1` (the default), `v3.33.0`, `v3.31.7` or `v3.30.7`. v3.33's data is projectcalico/calico's release-v3.33 branch of 2026-08-21 (6609dea) and tigera/operator's release-v1.44 branch, a few weeks before the v3.33.0 tag, not the tag itself.";
    CN_CIDR_NOT_MASKED = "CN0102", Error, "CIDR has host bits set",
        "A pool CIDR must be the network address of its prefix (`10.0.0.0/24`, not `10.0.0.1/24`); Calico refuses pools with host bits set. The hint gives the masked network.";
    CN_BLOCK_SIZE = "CN0103", Error, "block size out of range",
        "IPAM block sizes are 20-32 for IPv4 and 116-128 for IPv6, and a block cannot be larger than its pool (the block size must be at least the pool's prefix length).";
    CN_ENCAPSULATION = "CN0104", Error, "encapsulation not allowed for the pool",
        "IP-in-IP cannot carry IPv6, so IPv6 pools use VXLAN, VXLANCrossSubnet or None. IPIP, IPIPCrossSubnet and None route pod traffic with BGP, so they need `spec.bgp.enabled: true`; with BGP off use VXLAN or VXLANCrossSubnet.";
    CN_POOL_CONFLICT = "CN0105", Error, "pools or peers conflict",
        "Every pod pool, LoadBalancer pool and BGP peer needs its own name, and no two pools may share addresses (equal, containing or contained ranges).";
    CN_AUTODETECTION = "CN0106", Error, "node address autodetection needs exactly one method",
        "Each family's block under `spec.nodeAddressAutodetection` sets exactly one method (firstFound, kubernetes, interface, skipInterface, canReach or cidrs); the operator refuses none or several.";
    CN_BGP_DISABLED = "CN0107", Error, "BGP setting while BGP is off",
        "BGP settings (AS number, peers, advertised ranges, ...) do nothing while `spec.bgp.enabled` is false; enable BGP or remove them.";
    CN_LINK_LOCAL = "CN0108", Error, "pool overlaps link-local space",
        "Calico refuses pools that overlap 169.254.0.0/16 or fe80::/10, whether inside them or containing them.";
    CN_NAME = "CN0109", Error, "invalid object name",
        "Names become Kubernetes object names: a DNS-1123 subdomain of at most 253 lower-case letters, digits, `-` and `.`, starting and ending with a letter or digit.";
    CN_API_HOST = "CN0110", Error, "invalid API endpoint host",
        "`spec.apiEndpoint.host` is the address nodes use to reach the API server without kube-proxy: a DNS name or an IP address, without scheme or port (the port has its own field).";
    CN_SELECTOR = "CN0111", Error, "selector does not parse",
        "Selectors use Calico's selector language: `all()`, `has(label)`, `label == 'value'`, `in {...}`, combined with `&&`, `||`, `!` and parentheses.";
    CN_RELEASE = "CN0112", Error, "the target Calico release cannot express this",
        "The ClusterNetwork asks for something the Calico release in `spec.calicoVersion` does not have (for example `bpfNetworkBootstrap` and kube-proxy management arrive with v3.31, native projectcalico.org/v3 CRDs with v3.32). The message names the first release that has it: raise `spec.calicoVersion`, or remove the field.";
    CN_LINT_BPF_FELIX = "CN0203", Warning, "BPF Felix setting without the BPF dataplane",
        "Felix's BPF settings only take effect with `spec.dataplane: BPF`; with another dataplane they are rendered but ignored. Switch the dataplane or remove the setting.";
    CN_LINT_RELEASE_UNSUPPORTED = "CN0204", Warning, "Calico release out of upstream support",
        "Calico supports the two newest minor releases (SECURITY.md: \"the most recent two minor versions\"); since v3.33 that is v3.33 and v3.32, so v3.31 and v3.30 get no more fixes, security fixes included. calico-render still renders, validates and upgrades them, with each release's own fields and operator defaults. Plan the move with `calico-render upgrade -f FILE --to v3.32.1` (or v3.33.0), or allow the warning with `--allow CN0204` while the cluster stays.";
    CN_OVERRIDE_UNKNOWN_FIELD = "CN0301", Error, "unknown field in an override or extra object",
        "`spec.overrides` and `spec.extraObjects` are upstream objects in wire form and are typed by the CRD schemas of Calico v3.32.1 and tigera-operator v1.42.3 (the ConfigMap by Kubernetes' own type), so a field the object does not have is refused, as the API server would prune or reject it. The message suggests the closest field; `kubectl explain installation.spec` lists them.";
    CN_OVERRIDE_INVALID = "CN0302", Error, "invalid value in an override or extra object",
        "A value under `spec.overrides` or `spec.extraObjects` has the wrong type or is not one of the field's values in the CRD schema, a pool in the Installation override has no `name`, or the text cannot be read as the API server reads it. Values are read as kubectl reads YAML: quote strings that look like numbers or booleans.";
    CN_OVERRIDE_CONFLICT = "CN0303", Error, "override of a field the ClusterNetwork sets",
        "Each field has one source of truth: a field the ClusterNetwork vocabulary sets (or could set, such as `spec.calicoNetwork.mtu` through `spec.mtu`) cannot also be set under `spec.overrides`, and the FelixConfiguration fields the tigera-operator writes itself (`bpfEnabled`, `nftablesMode`, `healthPort`, `vxlanVNI`, `vxlanPort`, `programClusterRoutes`, `routeTableRange`) cannot be overridden at all. The message names both places; keep the vocabulary field and remove the override.";
    CN_OVERRIDE_TARGET = "CN0304", Error, "override of an object that is not rendered",
        "An override is merged into an object the ClusterNetwork renders: `bgpPeers` and `ipPools` entries name a peer of `spec.bgp.peers` or a pool of `spec.loadBalancerPools`, pools in the Installation override name a pool of `spec.podPools`, `apiServer` needs `calicoAPIServer: true` and `endpointConfigMap` needs `spec.apiEndpoint`. New objects go under `spec.extraObjects`, new pod pools under `spec.podPools`.";
    CN_EXTRA_OBJECT = "CN0305", Error, "extra object that cannot be added",
        "`spec.extraObjects` takes projectcalico.org/v3 FelixConfiguration, BGPConfiguration, BGPPeer and IPPool objects that the ClusterNetwork does not render itself (FelixConfiguration `node.<name>`, more BGPPeers, ...). An object with the kind and name of a rendered one is refused: change the rendered object with `spec.overrides` instead.";
    // CN04xx: `calico-render import`, live objects read back into a ClusterNetwork.
    CN_IMPORT_SERVER_SET = "CN0401", Note, "live value dropped: set by the API server or a controller",
        "`import` drops what the API server and the controllers write into an object, because a ClusterNetwork never renders it and `patch` never compares it: `status`, and in `metadata` the uid, resourceVersion, generation, creationTimestamp, managedFields, selfLink, ownerReferences and finalizers, the `kubectl.kubernetes.io/last-applied-configuration` annotation and the `projectcalico.org/metadata` annotation of objects read through crd.projectcalico.org/v1 (imported as projectcalico.org/v3; a copy of an object read through both groups is imported once). Nothing to fix: the report says what was dropped.";
    CN_IMPORT_OPERATOR_DEFAULT = "CN0402", Note, "live value dropped: the operator's write-back default",
        "The tigera-operator writes its defaults back into the Installation (variant, CNI type and directories, host ports, pool fields, controlPlaneReplicas, nodeUpdateStrategy, ...). `import` drops a live value that is exactly what the operator would write for the imported ClusterNetwork, because `render` spells those defaults out again, so `render` then `patch` finds nothing to change. A value that differs from the default is kept, in `spec.overrides` when the vocabulary cannot say it. `Disabled` for `bpfNetworkBootstrap` and `kubeProxyManagement` is dropped too: it means what leaving them out means. For a release whose CRDs carry `default:` values that `render` writes (v3.33: the Installation's `calicoLibHostPath` and `calicoRunHostPath`, FelixConfiguration `nftablesFlowTableOffload`, an IPPool's `nodeSelector`), a top-level live value equal to its CRD default is dropped the same way: the API server writes it on every write.";
    CN_IMPORT_OPERATOR_WRITTEN = "CN0403", Note, "live value dropped: written by the tigera-operator",
        "Some values are the operator's own output rather than the cluster's configuration: the FelixConfiguration `default` fields it writes from the Installation (`bpfEnabled`, `nftablesMode`, `healthPort`, `vxlanVNI`, `vxlanPort`, `programClusterRoutes`, `routeTableRange`) and its `operator.tigera.io/` annotations, and the projectcalico.org/v3 IPPools it makes from the Installation's pools (label `app.kubernetes.io/managed-by: tigera-operator`, or the name of an Installation pool). `import` drops them; the operator writes them again from what the ClusterNetwork renders.";
    CN_IMPORT_OVERRIDE = "CN0404", Warning, "live value kept outside the vocabulary",
        "A live value the ClusterNetwork vocabulary cannot say (a private `registry`, `imagePullSecrets`, component resources, most Felix settings, BGP communities, ...) is kept in `spec.overrides` in upstream wire form, and a whole object the vocabulary does not render (FelixConfiguration `node.<name>`, a BGPPeer with a `peerSelector`, a workload IPPool outside the Installation) in `spec.extraObjects`. They render back exactly; the report lists them so that a reviewer can move what the vocabulary does say into it, or decide that a chart's choice is not wanted.";
    CN_IMPORT_ADDS = "CN0405", Warning, "render writes a value the live object lacks",
        "The imported ClusterNetwork renders a value the live object does not have: an operator default the operator has not written back yet, or a field the vocabulary always writes (every pod pool field, the node address autodetection the operator writes once pools exist, a LoadBalancer pool's modes). `patch` against these live objects would add it. It is what the operator writes anyway; check that the live objects were read after the operator reconciled them.";
    CN_IMPORT_OBJECT = "CN0406", Error, "live object cannot be imported",
        "`import` reads the objects a ClusterNetwork renders: Installation, APIServer, Goldmane and Whisker `default` (operator.tigera.io/v1), ConfigMap `tigera-operator/kubernetes-services-endpoint`, and FelixConfiguration, BGPConfiguration, BGPPeer and IPPool (projectcalico.org/v3 or crd.projectcalico.org/v1), one object each, as `kubectl get installation,apiserver,ippools.projectcalico.org,bgpconfigurations,bgppeers,felixconfigurations -o yaml` prints them. Another kind, another name for a singleton, the same object twice, an object that does not fit its CRD schema, or no Installation at all is refused; remove it from the input or read the objects again.";
    CN_IMPORT_INEXPRESSIBLE = "CN0407", Error, "live value the ClusterNetwork cannot express",
        "The live objects hold something no ClusterNetwork renders, in the vocabulary or through `spec.overrides` and `spec.extraObjects`: for example the VPP dataplane, an Installation without pod pools and without a workload IPPool of its own (a ClusterNetwork needs one or the other), a pod pool with a use other than Workload and Tunnel, an endpoint ConfigMap without `KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT`, or objects that together break a ClusterNetwork rule. The message names the live object and field, and for a broken rule the rule's own code.";
    CN_IMPORT_ABSENT = "CN0408", Warning, "object absent from the live objects",
        "A ClusterNetwork renders APIServer `default` unless `calicoAPIServer: false`; when the live objects hold no APIServer, `import` writes `calicoAPIServer: false`. If the cluster has one, it was left out of the input: add `apiserver` to the `kubectl get` command and import again.";
    CN_IMPORT_POOL_NAMED = "CN0409", Warning, "pool named as the operator names it",
        "The live Installation has a pool without `name`: a hand-written Installation, or one of an operator release from before pools had names, read before the operator reconciled it. `import` gives the pool the name the operator gives it on its next reconcile (tigera/operator pkg/controller/ippool/defaults.go, fillDefaults): the name of an IPPool of the cluster with the same CIDR, else `default-ipv4-ippool` or `default-ipv6-ippool` when the Installation has one pool or one pool per family, else a name made from the CIDR (`10.48.0.0/16` -> `10.48.0.0-16`). `patch` adds the name to the live Installation, which is what the operator does anyway.";
    CN_IMPORT_MANIFEST_REFUSED = "CN0410", Error, "manifest setting the operator's migration refuses",
        "A cluster installed from `calico.yaml` (the calico-node DaemonSet, the `calico-config` ConfigMap, the calico-kube-controllers and calico-typha Deployments) is imported as the tigera-operator's own migration reads it (tigera/operator pkg/controller/migration/convert, release-v1.42), and what that migration refuses to take over is refused here too, before anything is written: a datastore other than `kubernetes`, `IP` or `IP6` other than `autodetect` or `none`, an `IP_AUTODETECTION_METHOD` it does not know, `FELIX_DEFAULTENDPOINTTOHOSTACTION` other than `Accept`, a networking backend other than `bird`, `vxlan` or `none` (or one that does not fit the IPAM), MTU settings that disagree, a CNI network not named `k8s-pod-network` or a Calico IPAM config with `subnet` or pool lists, a node selector or affinity on calico-node, host path volumes moved from their usual places, unexpected annotations, a `FELIX_` variable FelixConfiguration has no field for, and any other environment variable it does not check (`unexpected env vars`). The message names the variable or field and the migration's rule; change the manifest (the hint says how) and import again.";
    CN_IMPORT_MANIFEST_CHANGED = "CN0411", Warning, "manifest setting the operator install changes",
        "The operator install of the imported ClusterNetwork does not keep this manifest setting as it is: the pools are the ones calico-node created at its first start from the `CALICO_IPV4POOL_*` and `CALICO_IPV6POOL_*` variables (the operator's migration reads the cluster's IPPools instead; give them to `import` when they were changed since), `veth_mtu: \"0\"` means that both pick the MTU themselves, the operator runs Typha itself, `FELIX_IPTABLESBACKEND=auto` is left to Felix's default, a unitless `FELIX_IPTABLESREFRESHINTERVAL` gets seconds, and the calico-node resources move into the Installation. The message says what changes; check that it is what you want before the operator takes over.";
    CN_IMPORT_MANIFEST_NOTE = "CN0412", Warning, "manifest setting with no ClusterNetwork equivalent",
        "A setting of the manifest install that the operator sets itself and no ClusterNetwork field says (`WAIT_FOR_DATASTORE`, `CLUSTER_TYPE`, `CALICO_DISABLE_FILE_LOGGING`, Felix's log and health settings, the Typha service name, the CNI plugin's log settings, ...), or an object of the manifest the operator install replaces with its own (the CRDs, RBAC, ServiceAccounts, PodDisruptionBudgets, Services and Deployments of `calico.yaml`). It is named here rather than dropped silently; nothing to fix unless you relied on it.";
    CN_IMPORT_API_MODE = "CN0413", Warning, "API mode taken from the input",
        "`import` sets `spec.apiMode` the way the tigera-operator decides the mode when it starts (tigera/operator release-v1.44, pkg/apis/version.go): its Deployment's `CALICO_API_GROUP` first, then a DatastoreMigration in phase Converged or Complete (native), then the crd.projectcalico.org group (the v1 CRDs, kept: Aggregated), then the projectcalico.org group alone (NativeV3). The witnesses it reads, which are not imported: CustomResourceDefinitions (`kubectl get crd -o yaml`), objects read through crd.projectcalico.org/v1, the APIService `v3.projectcalico.org` (with `spec.service` the Calico API server serves it: Aggregated; without, the kube-apiserver serves the group from CRDs: NativeV3), the `tigera-operator`, `calico-apiserver` (Aggregated) and `calico-webhooks` (NativeV3) Deployments, and a DatastoreMigration. `--api-mode` wins over all of them. The message names what decided and any witness set aside; it also says when the mode cannot be written (a release without native CRDs, or the v1 CRDs without the Calico API server).";
    CN_IMPORT_API_MODE_UNDECIDED = "CN0414", Warning, "API mode the input does not decide",
        "For Calico v3.33 an unset `apiMode` means NativeV3, the mode its operator gives a new install, but a cluster upgraded from an earlier release keeps the Calico API server on the crd.projectcalico.org/v1 CRDs, and the Installation and APIServer look the same in both. When the input holds nothing that tells them apart, `import` leaves `apiMode` unset and says so: add `kubectl get apiservice v3.projectcalico.org -o yaml` or `kubectl get crd -o yaml` to the input, or pass `--api-mode NativeV3` or `--api-mode Aggregated`.";
    CN_IMPORT_OUTSIDE = "CN0415", Warning, "live object left outside the ClusterNetwork",
        "The tigera-operator's Goldmane (the flow aggregator) and Whisker (the observability UI), operator.tigera.io/v1 kinds that Calico's quickstart `custom-resources.yaml` holds from v3.30 on, are imported as `goldmane: true` and `whisker: true` when named `default` (their spec, if any, goes to `spec.overrides.goldmane` / `whisker`). One with another name is not rendered by a ClusterNetwork: the operator acts only on `default` (the CRD refuses other names from v3.32). `import` names each such object and leaves it out of the ClusterNetwork as it is, rather than refusing the whole input; `patch` never touches it. Remove it from the cluster, or apply it beside the rendered bundle.";

    INPUT_NOT_PROCESSED = "CR0000", Error, "input could not be processed",
        "The input could not go through the pipeline at all: a stream that is not YAML, a ClusterNetwork that does not compile, or an object that after merging no longer fits its CRD schema. The message says which; fix that first, then run `calico-render validate` for the complete list of problems.";
    UNKNOWN_FIELD = "CR0001", Error, "unknown field",
        "The field is not part of the resource's schema. The API server prunes or rejects unknown fields, so a misspelt field silently does nothing. Check the spelling (the message suggests the closest known field) and the resource's apiVersion.";
    WRONG_TYPE = "CR0002", Error, "value has the wrong type",
        "The value does not have the type the CRD schema declares, e.g. a string where a boolean is expected (`natOutgoing: \"Enabled\"` on a projectcalico.org/v3 IPPool takes `true`/`false`), or a number where a string is expected. Quote strings that look like numbers or booleans.";
    DUPLICATE_KEY = "CR0003", Error, "duplicate key in a mapping",
        "The same key appears twice in one YAML mapping. kubectl rejects such documents; other tools silently keep one of the values. Remove one of the entries.";
    NOT_AN_OBJECT = "CR0004", Error, "document is not a Kubernetes object",
        "Every document must be a mapping with string `apiVersion` and `kind` fields. Empty documents (only comments) are fine and are skipped.";
    BAD_NAME = "CR0005", Error, "metadata.name is missing or not a valid name",
        "Calico and Kubernetes objects need `metadata.name`, a DNS-1123 subdomain: at most 253 characters of lower-case letters, digits, `-` and `.`, starting and ending with a letter or digit.";

    MISSING_FIELD = "CR0006", Error, "required field is missing",
        "The CRD schema marks the field as required (e.g. `cidr` of an IP pool, `type` of `cni`); the API server rejects the object without it.";
    RELEASE_UNKNOWN_FIELD = "CR0007", Error, "field unknown to the target Calico release",
        "The field exists in a later Calico release than the one targeted (`--calico-version`, or a ClusterNetwork's `spec.calicoVersion`): that release's CRDs do not have it, so its API server prunes or rejects it. The message names the first release that has the field. Remove it, or target that release or a later one.";
    RELEASE_VALUE = "CR0008", Error, "value not accepted by the target Calico release",
        "The target Calico release's CRD schema does not accept the value: an enum value added in a later release (the message names the first one), or a bound of that release's schema. Use one of the listed values, or target a later release.";
    CRD_RULE = "CR0009", Error, "a CEL rule of the CRD rejects the object",
        "The target Calico release's CRD carries a validation rule (`x-kubernetes-validations`, a CEL expression) that the object does not satisfy, and the API server refuses it. calico-render evaluates each release's rules from that release's CRDs; a rule that stands for one of the codes above reports that code, any other rule this one, with the CRD's message and the rule in the hint. It is also reported, as an error, when a rule cannot be evaluated here, so that no rule passes unchecked. Transition rules (`oldSelf`, such as the immutable IP pool CIDR) compare with the stored object and are not evaluated by `validate`; `validate --list-rules` lists every rule per release.";

    YAML_TAG = "CR0010", Warning, "YAML tag where text was meant",
        "A word after `!` in YAML is a tag, not text: `nodeSelector: !all()` is the tag `!all()` on an empty value. kubectl's YAML reader drops tags it does not know and keeps the rest of the scalar as a string, so the field gets that rest (here the empty string), not what was written. Quote the value (`nodeSelector: '!all()'`) if the `!` is part of the text, or remove the tag.";

    DUPLICATE_LIST_ITEM = "CR0011", Error, "duplicate item in a list the CRD declares a set or map",
        "The target Calico release's CRD declares the list `x-kubernetes-list-type: set` (every item at most once, such as BGPConfiguration `ignoredInterfaces`) or `map` (every item with its own values of the keys named by `x-kubernetes-list-map-keys`, an absent key counting as one value), and the API server's CRD schema validation refuses the object when an item repeats. calico-render checks every such list of every kind from each release's own CRDs and names the second occurrence, as the API server does. Remove the repeated item, or give it its own key.";

    POOL_CIDR_MISSING = "CR1001", Error, "IP pool CIDR is missing",
        "Every IP pool needs a non-empty `cidr`, e.g. `172.20.0.0/16`.";
    POOL_CIDR_INVALID = "CR1002", Error, "IP pool CIDR does not parse",
        "The CIDR must be an IPv4 or IPv6 network with an explicit prefix length, as Go's net.ParseCIDR reads it: no leading zeros in IPv4 octets (the prefix may have them: `/016` is `/16`), a prefix of at most 32 (IPv4) or 128 (IPv6), at most 48 characters.";
    POOL_CIDR_HOST_BITS = "CR1003", Error, "IP pool CIDR is not strictly masked",
        "Calico rejects a pool whose address has bits set beyond the prefix (`10.0.0.1/24`). The tigera-operator accepts such a pool in the Installation, but writing the resulting IPPool then fails. Use the network address the hint gives (`10.0.0.0/24`).";
    POOL_ENCAP_MODE = "CR1004", Error, "unsupported ipipMode or vxlanMode",
        "`ipipMode` and `vxlanMode` take `Never`, `Always` or `CrossSubnet`, spelled exactly so (case-sensitive).";
    POOL_IPIP_AND_VXLAN = "CR1005", Error, "IPIP and VXLAN are both enabled",
        "A pool can use one encapsulation at most: set either `ipipMode` or `vxlanMode` to `Never`.";
    POOL_IPIP_V6 = "CR1006", Error, "IPIP on an IPv6 pool",
        "IPIP encapsulates IPv4 only. IPv6 pools may use VXLAN or no encapsulation.";
    POOL_LINK_LOCAL = "CR1007", Error, "IP pool overlaps the link-local range",
        "Calico rejects pools that overlap 169.254.0.0/16 (IPv4) or fe80::/10 (IPv6), whether they lie inside it or contain it (`0.0.0.0/0`, `169.0.0.0/8`).";
    POOL_BLOCK_SIZE = "CR1008", Error, "block size outside the family's range",
        "IPAM blocks must be 20-32 for IPv4 and 116-128 for IPv6 (0 or unset means the default, 26 or 122).";
    POOL_TOO_SMALL = "CR1009", Error, "pool is smaller than one block",
        "The pool's prefix length must not be longer than its block size (a /27 pool cannot hold one /26 block). Calico exempts disabled pools; the tigera-operator does not exempt pools with `disableNewAllocations: true`.";
    POOL_ALLOWED_USES = "CR1010", Error, "invalid allowedUses",
        "`allowedUses` holds distinct values among `Workload`, `Tunnel` and `LoadBalancer`, at most 10 entries.";
    POOL_LB_COMBINED = "CR1011", Error, "LoadBalancer use combined with Workload or Tunnel",
        "A pool for LoadBalancer addresses must have `allowedUses: [LoadBalancer]` only.";
    POOL_LB_ENCAP = "CR1012", Error, "LoadBalancer pool with IPIP or VXLAN",
        "LoadBalancer pools are advertised, not tunnelled: set `ipipMode` and `vxlanMode` to `Never` (in an Installation: `encapsulation: None`, which must be written explicitly because IPv4 pools default to IPIP).";
    POOL_LB_BGP_EXPORT = "CR1013", Error, "LoadBalancer pool disables BGP export",
        "A LoadBalancer pool exists to be advertised: Calico's IPPool validator rejects `disableBGPExport: true` on a pool that allows `LoadBalancer`, and the tigera-operator rejects it in an Installation. Remove `disableBGPExport`.";
    POOL_LB_SELECTOR = "CR1014", Error, "LoadBalancer pool nodeSelector is not all()",
        "LoadBalancer addresses are assigned cluster-wide, so Calico's IPPool validator requires a LoadBalancer pool's `nodeSelector` to be exactly `all()` (an empty or absent one is defaulted to `all()` first); the tigera-operator requires the same in an Installation.";
    POOL_TUNNEL_NAMESPACE = "CR1015", Error, "Tunnel pool with a namespaceSelector",
        "A pool that allows `Tunnel` cannot have a `namespaceSelector`. Calico's API defaults a missing `allowedUses` to `[Workload, Tunnel]` before validating, so a pool with a namespaceSelector needs `allowedUses: [Workload]` explicitly.";
    POOL_GLOBAL_SELECTOR = "CR1016", Error, "global() in an IP pool selector",
        "`global()` selects non-namespaced resources and means nothing for a pool's nodeSelector or namespaceSelector: Calico's IPPool validator rejects a selector whose text contains `global(` anywhere (even inside a quoted label value). Use `all()`.";
    SELECTOR_SYNTAX = "CR1017", Error, "selector does not parse",
        "Selectors use Calico's selector language: `all()`, `has(label)`, `label == \"value\"`, `!=`, `in {...}`, `not in {...}`, `contains`, `starts with`, `ends with`, combined with `&&`, `||`, `!` and parentheses. Strings are quoted; whitespace is spaces and tabs only; at most 1024 characters.";
    POOL_ASSIGNMENT_MODE = "CR1018", Error, "unsupported assignmentMode",
        "`assignmentMode` takes `Automatic` or `Manual` (an explicit empty string is rejected).";
    POOL_CIDR_NOT_CANONICAL = "CR1019", Warning, "pool CIDR is stored in another form",
        "Calico normalises an IP pool's CIDR before storing it (Go's form: lowercase IPv6 with the longest run of zero groups written `::`, no leading zeros in groups or in the prefix length), so `2001:db8::00/64` is stored as `2001:db8::/64`. The object in the cluster then differs from the manifest: every apply shows a change, and an update that sends the written form again is refused because a pool's CIDR cannot change. Write the canonical form.";

    PEER_NODE_AND_SELECTOR = "CR2001", Error, "node and nodeSelector are both set",
        "A BGPPeer applies either to one `node` or to the nodes matching `nodeSelector`, not both.";
    PEER_IP_AND_SELECTOR = "CR2002", Error, "peerIP and peerSelector are both set",
        "A BGPPeer names either one remote `peerIP` or the nodes matching `peerSelector`, not both.";
    PEER_AS_WITH_SELECTOR = "CR2003", Error, "asNumber set together with peerSelector",
        "With `peerSelector` the peers' AS numbers come from their nodes; leave `asNumber` unset.";
    PEER_LOCAL_WORKLOAD = "CR2004", Error, "invalid localWorkloadSelector combination",
        "`localWorkloadSelector` needs a non-zero `asNumber` and excludes `peerIP` and `peerSelector`.";
    PEER_REACHABLE_BY = "CR2005", Error, "invalid reachableBy",
        "`reachableBy` needs a `peerIP`, must be an IP address, and must be of the same family as the peer IP.";
    PEER_KEEP_NEXT_HOP = "CR2006", Error, "keepOriginalNextHop combined with nextHopMode",
        "`keepOriginalNextHop` is deprecated; use `nextHopMode: Keep` and drop the old field.";
    PEER_IP_FORMAT = "CR2007", Error, "invalid peerIP",
        "`peerIP` is `<IP>`, `<IPv4>:<port>` or `[<IPv6>]:<port>` with a port of 1-65535, at most 64 characters.";
    PEER_ENUM = "CR2008", Error, "unsupported BGPPeer enum value",
        "`nextHopMode` takes Auto, Self or Keep; `sourceAddress` UseNodeIP or None; `reversePeering` Auto or Manual (case-sensitive).";
    PEER_NAMES = "CR2009", Error, "invalid node or filter name",
        "`node` and each `filters` entry must be a lower-case DNS-1123 subdomain.";
    PEER_AS_NUMBER = "CR2010", Error, "AS number out of range",
        "Calico's validator takes AS numbers (`asNumber`, `localASNumber`) of 0-4294967295, but the API server refuses values above 2147483647: the v3.32.1 CRDs (`projectcalico.org/v3` and `crd.projectcalico.org/v1`) declare both fields `format: int32` (projectcalico/calico#13494). Use a private 2-byte AS (64512-65534) or a 4-byte AS of at most 2147483647.";
    PEER_DURATION = "CR2011", Error, "invalid BGPPeer duration",
        "`maxRestartTime` is read with Go's duration parser: a number with a unit (`ns`, `us`, `ms`, `s`, `m`, `h`), such as `120s` or `1.5m`, or `0`. An empty string, a bare number such as `120`, `1d` or `1S` are refused when the object is decoded.";
    PEER_TTL_SECURITY = "CR2012", Error, "ttlSecurity outside 0-255",
        "`ttlSecurity` is the number of hops a peer may be away, an unsigned 8-bit integer: 0-255.";

    BGP_MESH_ONLY = "CR3001", Error, "mesh setting while the node-to-node mesh is disabled",
        "`nodeMeshPassword` and `nodeMeshMaxRestartTime` only apply to the full mesh; remove them when `nodeToNodeMeshEnabled: false`.";
    BGP_COMMUNITIES_UNUSED = "CR3002", Error, "communities defined but not used",
        "Calico rejects `communities` without `prefixAdvertisements` that use them.";
    BGP_COMMUNITY = "CR3003", Error, "invalid community",
        "A community entry needs a `name` (DNS-1123 subdomain) and a `value` of `aa:nn` (each part at most 65535) or `aa:nn:mm` (each part at most 4294967295).";
    BGP_PREFIX_ADVERTISEMENT = "CR3004", Error, "invalid prefix advertisement",
        "Each prefix advertisement needs a strictly masked `cidr` and `communities`, each either a literal `aa:nn[:mm]` or the name of an entry in `communities`.";
    BGP_SERVICE_CIDR = "CR3005", Error, "invalid service CIDR",
        "`serviceClusterIPs`, `serviceExternalIPs` and `serviceLoadBalancerIPs` entries need a strictly masked `cidr`.";
    BGP_LISTEN_PORT = "CR3006", Error, "listenPort outside 1-65535",
        "`listenPort` is a TCP port, 1-65535 (default 179).";
    BGP_ENUM = "CR3007", Error, "unsupported BGPConfiguration enum value",
        "`logSeverityScreen` takes Trace, Debug, Info, Warning, Error or Fatal; `bindMode` None or NodeIP; `serviceLoadBalancerAggregation` and `programClusterRoutes` Enabled or Disabled (case-sensitive in v3.32).";
    BGP_IGNORED_INTERFACE = "CR3008", Error, "invalid ignoredInterfaces entry",
        "Each entry is 1-15 characters of letters, digits, `_.-*`, and not a lone `*`.";
    BGP_LOCAL_WORKLOAD_IP = "CR3009", Error, "invalid localWorkloadPeeringIP",
        "`localWorkloadPeeringIPV4` must be an IPv4 address and `localWorkloadPeeringIPV6` an IPv6 address.";
    BGP_ROUTE_PRIORITY = "CR3010", Error, "route priority outside 1-2147483646",
        "`ipv4NormalRoutePriority` and `ipv6NormalRoutePriority` take 1-2147483646 and must match FelixConfiguration.";
    BGP_AS_NUMBER = "CR3011", Error, "AS number out of range",
        "Calico's validator takes an `asNumber` of 0-4294967295, but the API server refuses values above 2147483647: the v3.32.1 CRDs (`projectcalico.org/v3` and `crd.projectcalico.org/v1`) declare it `format: int32` (projectcalico/calico#13494). Use a private 2-byte AS (64512-65534) or a 4-byte AS of at most 2147483647.";
    BGP_DEFAULT_ONLY = "CR3012", Error, "cluster-wide BGP setting on a BGPConfiguration not named default",
        "Calico refuses `asNumber`, `nodeToNodeMeshEnabled`, `nodeMeshPassword`, `nodeMeshMaxRestartTime` and non-empty `serviceClusterIPs`, `serviceExternalIPs` or `serviceLoadBalancerIPs` on any BGPConfiguration but `default`; per-node BGPConfigurations (`node.<name>`) carry only per-node settings.";
    BGP_DURATION = "CR3013", Error, "invalid BGPConfiguration duration",
        "`nodeMeshMaxRestartTime` is read with Go's duration parser: a number with a unit (`ns`, `us`, `ms`, `s`, `m`, `h`), such as `120s` or `1.5m`, or `0`. An empty string, a bare number, `1d` or `1S` are refused when the object is decoded.";

    FELIX_ROUTE_TABLE_BOTH = "CR4001", Error, "routeTableRange and routeTableRanges are both set",
        "Use `routeTableRanges` (or the older `routeTableRange`), not both.";
    FELIX_ROUTE_TABLE_RANGE = "CR4002", Error, "invalid routeTableRange",
        "`routeTableRange` needs 1 <= min <= max <= 250.";
    FELIX_ROUTE_TABLE_RANGES = "CR4003", Error, "invalid routeTableRanges",
        "Each range needs min >= 1, min <= max, max <= 4294967295, and all ranges together may designate at most 65535 tables.";
    FELIX_NODE_PORT_RANGES = "CR4004", Error, "invalid kubeNodePortRanges",
        "At most 7 entries, each a port number or a `min:max` range (no named ports).";
    FELIX_EXTERNAL_NODES = "CR4005", Error, "invalid externalNodesList entry",
        "Each entry is an IPv4 address or IPv4 CIDR.";
    FELIX_OPENSTACK_REGION = "CR4006", Error, "invalid openstackRegion",
        "A DNS-1123 label of at most 46 characters.";
    FELIX_SOURCE_ADDRESS = "CR4007", Error, "invalid source address",
        "`natOutgoingAddress` and `deviceRouteSourceAddress` are bare IPv4 addresses, `deviceRouteSourceAddressIPv6` a bare IPv6 address.";
    FELIX_HEALTH_TIMEOUT = "CR4008", Error, "invalid healthTimeoutOverrides entry",
        "Each entry has a `name` of letters, digits, `_`, `-` and spaces, and a non-negative `timeout`.";
    FELIX_NODE_SELECTOR = "CR4009", Error, "nodeSelector on the default or a per-node FelixConfiguration",
        "`nodeSelector` is only valid on FelixConfigurations not named `default` and not starting with `node.`.";
    FELIX_ENUM = "CR4010", Error, "unsupported FelixConfiguration enum value",
        "The field takes one of the listed values, spelled exactly so (Calico v3.32 compares case-sensitively).";
    FELIX_RANGE = "CR4011", Error, "FelixConfiguration number out of range",
        "The field has upstream bounds; the message gives them.";
    FELIX_DURATION = "CR4012", Error, "invalid duration",
        "Durations are written as numbers with units `ms`, `s`, `m` or `h`, e.g. `90s`, `1m30s`. Most FelixConfiguration duration fields carry a v3.32.1 CRD pattern that escapes the decimal dot twice, so the API server refuses any fraction: write `1s500ms` instead of `1.5s`. `liveMigrationRouteConvergenceTime` and `nftablesRefreshInterval` take fractions; the `bpfConntrackTimeouts` fields also take `Auto` and the unit `us`.";
    FELIX_INTERFACE = "CR4013", Error, "invalid interface name or filter",
        "`wireguardInterfaceName` and `wireguardInterfaceNameV6` are interface names: 1-15 letters, digits, `_`, `.` or `-` (or `*`). `iptablesNATOutgoingInterfaceFilter` and each `bpfForceTrackPacketsFromIfaces` entry are interface filters: 1-15 of those characters plus `:` and `+` (`eth+` matches every `eth` interface); lists are YAML lists, not comma-separated text.";
    FELIX_CIDR_LIST = "CR4014", Error, "invalid CIDR list entry",
        "Each entry of `bpfDSROptoutCIDRs` and `bpfExcludeCIDRsFromNAT` is an IP address or a CIDR, without spaces.";
    FELIX_PROMETHEUS_HOST = "CR4015", Error, "invalid prometheusMetricsHost",
        "`prometheusMetricsHost` is a host name or address: 1-64 letters, digits, `:`, `.`, `_`, `+` or `-`.";
    FELIX_PATTERN = "CR4016", Error, "value does not match the CRD's pattern",
        "The v3.32.1 CRD gives these fields a pattern the API server enforces: `logPrefix` letters, digits, spaces and `%:/_-`; `logActionRateLimit` `<1-9999>/<second|minute|hour|day>`; `featureDetectOverride` comma-separated `name=true|false|` pairs; `featureGates` comma-separated `name=value` pairs.";
    FELIX_REGEXP = "CR4017", Error, "regular expression does not compile",
        "`bpfDataIfacePattern`, `bpfL3IfacePattern`, `bpfDisableGROForIfaces`, `mtuIfacePattern` and `logDebugFilenameRegex` are Go regular expressions (RE2 syntax), and Calico's validator refuses one that does not compile. We check the grouping: every `(` closed, no `)` without its `(`, every `[` class closed, no trailing `\\`. Other mistakes Go refuses (`a**`, an unknown escape, a repeat count over 1000) are not caught here. The value is the expression itself: no `/.../` around it.";

    INSTALLATION_NAME = "CR5001", Error, "Installation name not allowed",
        "From Calico v3.32 (tigera-operator v1.42) the Installation CRD only accepts the names `default`, `tigera-secure` and `overlay` (a CEL rule, evaluated from the CRD; the v3.30 and v3.31 CRDs accept any name); the operator reconciles `default`.";
    INSTALLATION_ENUM = "CR5002", Error, "unsupported Installation enum value",
        "The field takes one of the listed values, spelled exactly so.";
    INSTALLATION_TOO_MANY_POOLS = "CR5003", Error, "more than 25 IP pools",
        "The Installation CRD accepts at most 25 entries in `spec.calicoNetwork.ipPools`.";
    INSTALLATION_POOL_CIDR = "CR5004", Error, "Installation pool CIDR missing or invalid",
        "Each pool needs a `cidr` that Go's net.ParseCIDR reads (prefix required).";
    INSTALLATION_POOL_DUPLICATE = "CR5005", Error, "pool specified more than once",
        "Two pools in the Installation have the same `cidr` string or the same `name`.";
    INSTALLATION_NODE_SELECTOR = "CR5006", Error, "pool nodeSelector must be all()",
        "The operator requires `nodeSelector: all()` for LoadBalancer pools and for every pool when the CNI is not Calico.";
    INSTALLATION_LB_ENCAP = "CR5007", Error, "LoadBalancer pool encapsulation must be None",
        "IPv4 pools default to IPIP, so a LoadBalancer pool must say `encapsulation: None` explicitly.";
    INSTALLATION_LB_BGP_EXPORT = "CR5008", Error, "LoadBalancer pool disables BGP export",
        "The operator rejects `disableBGPExport: true` on a LoadBalancer pool.";
    INSTALLATION_NEEDS_BGP = "CR5009", Error, "encapsulation needs BGP",
        "With Calico CNI and IPAM and the default BIRD routing mode, pools with IPIP, IPIPCrossSubnet or no encapsulation need `bgp: Enabled`. IPv4 pools default to IPIP, so with `bgp: Disabled` every IPv4 pool must say `encapsulation: VXLAN` or `VXLANCrossSubnet` (or set `clusterRoutingMode: Felix`).";
    INSTALLATION_HOSTLOCAL_VXLAN = "CR5010", Error, "VXLAN with HostLocal IPAM",
        "With Calico CNI and HostLocal IPAM, pools cannot use VXLAN or VXLANCrossSubnet.";
    INSTALLATION_NON_CALICO_CNI = "CR5011", Error, "pool settings not supported with a non-Calico CNI",
        "With a CNI other than Calico, pools must use `encapsulation: None` and `bgp` must not be Enabled.";
    INSTALLATION_AUTODETECTION = "CR5012", Error, "invalid node address autodetection",
        "At most one of interface, skipInterface, canReach, firstFound: true, cidrs, kubernetes per family; `cidrs` entries must be CIDRs. In BPF mode an IPv6 pool needs `nodeAddressAutodetectionV6`.";
    INSTALLATION_VPP = "CR5013", Error, "VPP dataplane requirements not met",
        "The VPP dataplane needs the Calico variant, Calico CNI, `bgp: Enabled` and `hostPorts` not Disabled.";
    INSTALLATION_CALICO_CNI_ONLY = "CR5014", Error, "setting only valid with Calico CNI",
        "`hostPorts: Enabled`, `multiInterfaceMode`, `containerIPForwarding` and `linuxPodInterfaceType` are only valid with Calico CNI.";
    INSTALLATION_SYSCTL = "CR5015", Error, "sysctl key not allowed",
        "Only net.ipv4.tcp_keepalive_intvl, net.ipv4.tcp_keepalive_probes and net.ipv4.tcp_keepalive_time may be set.";
    INSTALLATION_POLICY_TIMEOUT = "CR5016", Error, "invalid linuxPolicySetupTimeoutSeconds",
        "Must be at least 0 and is only valid with the Iptables, BPF or Nftables dataplane.";
    INSTALLATION_CNI = "CR5017", Error, "CNI, IPAM and provider do not fit",
        "Calico CNI takes Calico or HostLocal IPAM; GKE CNI needs HostLocal IPAM and provider GKE; AmazonVPC CNI needs AmazonVPC IPAM and provider EKS; AzureVNET CNI needs AzureVNET IPAM and provider AKS.";
    INSTALLATION_OTHER = "CR5018", Error, "invalid Installation setting",
        "controlPlaneReplicas must be above 0; flexVolumePath and kubeletVolumePluginPath must be `None` or absolute; nodeUpdateStrategy must be RollingUpdate (an empty path or strategy is unset: the operator fills it in first); nonPrivileged cannot be Enabled, nor fipsMode with the TigeraSecureEnterprise variant.";
    INSTALLATION_BPF_BOOTSTRAP = "CR5019", Error, "bpfNetworkBootstrap without the BPF dataplane",
        "The operator bootstraps the API server endpoints (from the `kubernetes` Service and its EndpointSlices) only for the eBPF dataplane: `bpfNetworkBootstrap: Enabled` needs `linuxDataplane: BPF`.";
    INSTALLATION_POOL_OUTSIDE_POD_SUBNET = "CR5020", Error, "IP pool outside the cluster's pod subnet",
        "On a kubeadm cluster the tigera-operator reads `podSubnet` from ConfigMap `kube-system/kubeadm-config` (pass it to `validate` beside the Installation, or set `network.podCIDRs` in a ClusterNetwork) and refuses an Installation whose IP pools do not each lie inside one of those subnets. It checks only while the cluster has no IP pools yet, and not on OpenShift or with a CNI other than Calico. Use pools inside the pod subnet, or change kubeadm's `podSubnet`.";
    INSTALLATION_KUBEADM_SUBNET = "CR5021", Error, "kubeadm's podSubnet cannot be read",
        "The tigera-operator takes the rest of the first `podSubnet: ` line in ConfigMap `kube-system/kubeadm-config`, splits it at commas and reads each part as a CIDR (no spaces, no quotes). A ConfigMap without that line, or a part that is not a CIDR, stops it before it creates IP pools, on a Calico CNI cluster that has none yet. Set `networking.podSubnet` in the ClusterConfiguration.";
    IMAGE_SET = "CR5022", Error, "ImageSet the target operator refuses",
        "The tigera-operator uses an ImageSet (operator.tigera.io/v1) only when it is named `calico-<the Calico version it runs>`, and degrades when ImageSets exist but none has that name, when one lists an image it does not use (\"unexpected images\"), or a digest that does not start with `sha256:`. From v3.33 (tigera-operator v1.44) the component images apiserver, cni, csi, goldmane, guardian, key-cert-provisioner, kube-controllers, node-driver-registrar, pod2daemon-flexvol, typha, webhooks and whisker-backend are gone: those components run from `calico/calico`, which an ImageSet for v3.33 must list instead.";

    APISERVER_NAME = "CR6001", Error, "APIServer name not allowed",
        "From Calico v3.32 (tigera-operator v1.42) the APIServer CRD only accepts the names `default` and `tigera-secure` (a CEL rule, evaluated from the CRD; the v3.30 and v3.31 CRDs accept any name).";
    APISERVER_ENUM = "CR6002", Error, "unsupported APIServer enum value",
        "The APIServer CRD lists the valid values: `logSeverity` of `spec.logging.apiServer` and `spec.logging.queryServer` takes Fatal, Error, Warn, Info, Debug or Trace (`Warn`, not `Warning` as in FelixConfiguration); the containers of `apiServerDeployment` are calico-apiserver, tigera-queryserver and calico-l7-admission-controller (init container calico-apiserver-certs-key-cert-provisioner, ports apiserver, queryserver, l7admctrl), and the container and port of `calicoWebhooksDeployment` are calico-webhooks. The API server rejects other values.";
    ENDPOINT_NAMESPACE = "CR6101", Warning, "endpoint ConfigMap outside the operator's usual namespace",
        "The operator reads `kubernetes-services-endpoint` from its own namespace: `tigera-operator` with the upstream manifests, the release namespace with the Helm chart. A ConfigMap elsewhere is ignored unless the operator runs there, which a manifest alone cannot tell, so this is a lint: allow CR6101 when your operator is installed in that namespace.";
    ENDPOINT_HOST = "CR6102", Error, "invalid KUBERNETES_SERVICE_HOST",
        "The host is an IP address (IPv6 without brackets) or a DNS name, without scheme or port.";
    ENDPOINT_PORT = "CR6103", Error, "KUBERNETES_SERVICE_PORT is not a quoted port",
        "ConfigMap data values are strings: write the port quoted, `\"6443\"`. An unquoted `6443` is an integer and kubectl rejects the object. The value is a decimal port 1-65535.";
    ENDPOINT_NOT_STRING = "CR6104", Error, "ConfigMap value is not a string",
        "ConfigMap data values must be strings. Unquoted numbers and YAML 1.1 words (`on`, `yes`, `y`, `no`, `off`) become numbers or booleans and kubectl rejects them; quote them.";
    ENDPOINT_PAIR = "CR6105", Error, "host and port must be set together",
        "The operator uses a host/port pair only when both are non-empty; set both keys of the pair.";

    POOL_OVERLAP = "CR7001", Error, "IP pools overlap",
        "Calico rejects a pool whose CIDR overlaps another pool (equal, containing or contained); with CRDs applied directly the later pool is marked not allocatable.";
    DUPLICATE_OBJECT = "CR7002", Error, "object defined more than once",
        "Two documents define the same kind and name; one would overwrite the other.";
    BPF_BOOTSTRAP_WITH_ENDPOINT = "CR7003", Error, "bpfNetworkBootstrap Enabled while the endpoint ConfigMap exists",
        "With `bpfNetworkBootstrap: Enabled` the operator finds the API server itself and refuses to run while `kubernetes-services-endpoint` exists. Drop one of them.";

    LINT_LAN_OVERLAP = "CR8001", Warning, "pod pool overlaps a LAN range",
        "192.168.0.0/16 (and any LAN you declare) is where home and office networks live; pod addresses there shadow real hosts. Pick a range such as 172.20.0.0/16.";
    LINT_DEFAULT_POOL = "CR8002", Warning, "no explicit IP pool: the operator creates 192.168.0.0/16",
        "Without `spec.calicoNetwork.ipPools` the operator creates `default-ipv4-ippool` with 192.168.0.0/16 (unless kubeadm's podSubnet is known), which collides with common LANs. List the pool explicitly.";
    LINT_SERVICE_OVERLAP = "CR8003", Warning, "pool overlaps the service range or a node subnet",
        "Pod addresses must not overlap the Service range (10.96.0.0/12 unless declared otherwise) or the nodes' own subnets.";
    LINT_BPF_WITHOUT_ENDPOINT = "CR8004", Warning, "BPF dataplane without the endpoint ConfigMap",
        "Without kube-proxy nothing resolves the `kubernetes` Service until Calico runs, so the operator needs the real API address in ConfigMap `tigera-operator/kubernetes-services-endpoint` (or `bpfNetworkBootstrap: Enabled`). Then restart the operator.";
    LINT_ENDPOINT_IS_CLUSTER_IP = "CR8005", Warning, "endpoint host is the kubernetes Service ClusterIP",
        "The ClusterIP (10.96.0.1 by default) only works through kube-proxy, which BPF mode removes: the chicken-and-egg problem. Use the control-plane VIP or its DNS name.";
    LINT_CRD_GROUP = "CR8006", Warning, "write through crd.projectcalico.org/v1",
        "crd.projectcalico.org/v1 is Calico's storage, without the API server's defaulting and validation. Write projectcalico.org/v3 instead.";
    LINT_BGP_EXPORT_WITHOUT_BGP = "CR8007", Warning, "disableBGPExport while BGP is disabled",
        "`disableBGPExport` has no effect while `bgp: Disabled`; it is kept for when BGP is enabled.";
    LINT_OPERATOR_OWNED_POOL = "CR8008", Warning, "IPPool is owned by the Installation",
        "The operator owns the pools listed in the Installation and reverts edits to them. Change the pool in the Installation (with a JSON patch) instead of the IPPool.";
    LINT_ENDPOINT_KEY = "CR8009", Warning, "unknown key in the endpoint ConfigMap",
        "The operator reads only KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT and their _POD_NETWORK variants; other keys are ignored (a misspelling?).";

    // CR90xx: values for the tigera-operator Helm chart (v3.32.1), checked by calico-render's
    // `chart_values` module; the objects the chart renders from them get the codes above.
    CHART_UNKNOWN_KEY = "CR9001", Warning, "the tigera-operator chart does not read this key",
        "Helm accepts any key in a values file, and the chart reads only its own, so a misspelt or misplaced key is dropped without a word and its setting never reaches the cluster. The hint names the closest key the chart reads at that level or, for an Installation, APIServer or FelixConfiguration field written at the top level, the section it belongs under (`installation`, `apiServer`, `defaultFelixConfiguration`). Keys inside those sections are checked against the object's schema instead (CR0001, CR9002). The known keys are those of chart v3.32.1.";
    CHART_NESTING = "CR9002", Error, "key nested wrong inside a chart section",
        "The chart writes everything under `installation` except `enabled` as the spec of Installation `default`, and `apiServer` and `defaultFelixConfiguration` likewise. So `installation.spec.calicoNetwork` becomes the unknown field `spec.spec`, `installation.metadata` the unknown `spec.metadata`, a key with dots such as `calicoNetwork.bgp` one unknown field of that name, and `installation.bgp` an unknown Installation field (it belongs under `calicoNetwork`); the API server drops them all. Write spec fields directly under the section, nested as in the object: `installation: {calicoNetwork: {bgp: Enabled}}`.";
    CHART_DOTTED_KEY = "CR9003", Warning, "dotted key in a values file",
        "Only `helm --set` splits a key at its dots. In a values file `installation.calicoNetwork.bgp: Enabled` is one key with dots in its name, which the chart never reads, so the setting is lost. Nest the keys instead: `installation:`, `calicoNetwork:` under it and `bgp: Enabled` under that. Inside `installation`, `apiServer` and `defaultFelixConfiguration` such a key reaches the object and is reported as CR9002.";
    CHART_IGNORED_VALUE = "CR9004", Warning, "value the chart ignores",
        "The key is one the chart reads, but here it has no effect: a section whose `enabled` is false renders nothing, so its other keys are ignored (`defaultFelixConfiguration` is disabled by the chart's defaults); `kubernetesServiceEndpoint.port` is ignored while `host` is empty, because the ConfigMap is rendered only with a host; Helm reads only the first YAML document of a values file; Argo CD ignores `helm.values` when `helm.valuesObject` is set. Enable the section, set the missing value, or remove what is ignored.";

    FL_FLEET_FILE = "FL0001", Error, "the fleet file or its cluster list is not usable",
        "A fleet file (kind `Fleet`, calico-render.dev/v1alpha1) is read as strictly as a ClusterNetwork: an unknown field, a range that is not CIDR notation, a cluster entry that names no file, two clusters with one name (a cluster is named by its `metadata.name`, or its file's name without the extension) and a routing group that names an unknown cluster are refused, because each would leave part of the fleet unchecked. `calico-render schema --kind fleet` prints every field.";
    FL_POD_OVERLAP = "FL0101", Warning, "pod pools of two clusters overlap",
        "Two clusters of one fleet give pods the same addresses. Each cluster's own IPAM keeps its pools apart, but nothing compares clusters: once pod routes of both reach one router (BGP to a shared top-of-rack, a cluster mesh, a VPN between sites) the router holds two routes for the same pods and one cluster's pods become unreachable, and a pod cannot tell a local peer from a remote one. Give each cluster its own slice of the fleet's pod space. The message names the range they share; when several clusters hold the very same range (a default copied into each), one finding names them all, reported at the cluster whose name sorts last (text lists the first five and `and N more`; the JSON report's `overlaps` lists every one). The other overlap codes (`FL0102`-`FL0107`) report shared ranges the same way.";
    FL_SERVICE_OVERLAP = "FL0102", Warning, "Service ranges of two routed clusters overlap",
        "Clusters of one routing group (the fleet file's `spec.routing`) share Service ClusterIP ranges. Separate clusters normally reuse one Service range (kubeadm's 10.96.0.0/12), which is why only clusters that route to each other are compared: there a ClusterIP of the other cluster is answered by the local kube-proxy or eBPF programs and never leaves the node, and advertised ClusterIPs (BGPConfiguration `serviceClusterIPs`) clash at the router. Give routed clusters distinct `network.serviceCIDRs` (the API server's `--service-cluster-ip-range`).";
    FL_LOAD_BALANCER_OVERLAP = "FL0103", Warning, "LoadBalancer pools of two clusters overlap",
        "Two clusters can hand out the same LoadBalancer address. Calico announces LoadBalancer addresses over BGP, so two clusters that give the same address to different Services announce the same route and the router sends clients to either at random. Split the range between the clusters.";
    FL_NODE_OVERLAP = "FL0104", Warning, "node subnets of two clusters overlap",
        "Two clusters say their nodes are in overlapping subnets. That is fine when both sit on one shared network by design and their node addresses differ (allow FL0104 then); otherwise it usually means a copied value, and autodetection methods such as `cidrs` or `canReach` that rely on the subnet may pick the wrong interface.";
    FL_KIND_OVERLAP = "FL0105", Warning, "ranges of different kinds overlap across clusters",
        "One cluster's range of one kind (pods, Services, LoadBalancer addresses, nodes) overlaps another cluster's range of another kind: a pod pool on the other cluster's node subnet, a LoadBalancer pool inside its pods. Traffic between the clusters for those addresses is routed to the wrong place; within one cluster calico-render already refuses such overlaps, across clusters only the fleet sees them. Move one of the two ranges.";
    FL_RESERVED_OVERLAP = "FL0106", Warning, "a cluster's range overlaps a range the fleet reserves",
        "The fleet file keeps the range for something else (`spec.reserved`: a VPN, an office, a future region), and a cluster uses part of it. Move the cluster's range, or drop the reservation if it no longer holds.";
    FL_ROUTED_OVERLAP = "FL0107", Warning, "a cluster's range overlaps a network the fleet routes",
        "The fleet file says the range is reached through the routers the clusters share (`spec.routed`), and a cluster uses part of it for pods, Services or LoadBalancer addresses. Inside that cluster those addresses are local, so its pods can no longer reach the real network there (a common trap with 10.0.0.0/8 data-centre ranges and default pod ranges). Node subnets are not compared: nodes usually sit in routed networks.";
    FL_ROUTED_WITHOUT_BGP = "FL0201", Warning, "a cluster routes to other clusters but runs no BGP",
        "The cluster is in a routing group, but `spec.bgp.enabled` is false. In Calico's routed multi-cluster designs each cluster announces its pod blocks to the shared routers over BGP; without BGP the other clusters learn no route to this cluster's pods (only a cluster mesh's own overlay would carry them). Enable BGP and peer with the routers, or leave the cluster out of the group.";
    FL_ROUTED_ENCAPSULATION = "FL0202", Warning, "clusters that route to each other encapsulate differently",
        "Clusters of one routing group use different pod-pool encapsulation families (VXLAN, IP-in-IP, none). Calico's tunnels run only between nodes of one cluster, so a multi-cluster overlay (a cluster mesh over VXLAN) needs every cluster on VXLAN, and in BGP-routed designs a pool that always encapsulates (`IPIP`, `VXLAN`) sends traffic to remote pods through the tunnel device with the tunnel's smaller MTU while the other side answers natively. One family across the group keeps both directions alike; allow FL0202 when the clusters route natively through the underlay and the difference is intended.";
    FL_ROUTED_NAT = "FL0203", Warning, "a routed cluster SNATs traffic to the other clusters' pods",
        "A pod pool of a cluster in a routing group has `natOutgoing` on (the IPv4 default). Calico SNATs pod traffic to any destination outside the cluster's own IP pools, so the other clusters see the node's address instead of the pod's, and their network policies and return paths work on the wrong address. Calico's documented way to skip NAT for a destination is an IP pool for that range with `disabled: true` (here an extra object), or `natOutgoing: false` when the pods need no NAT at all.";
    FL_ROUTED_NO_EXPORT = "FL0204", Warning, "a routed cluster keeps a pod pool's routes from BGP",
        "A pod pool of a cluster in a routing group sets `disableBGPExport: true`, so BIRD never announces its blocks to the routers and the other clusters have no route to those pods. Remove `disableBGPExport` or move the pool's pods out of the routing group.";

    KRM_FUNCTION_CONFIG = "KRM001", Error, "the KRM function config is not usable",
        "`calico-render krm` reads the ClusterNetwork from the ResourceList's `functionConfig`: either a ClusterNetwork itself, or a ConfigMap with `data.file` (the path of a ClusterNetwork file, relative to the directory the KRM tool runs the function in) or `data.clusterNetwork` (its text), not both. Lint levels given there (allow and deny) must name catalogue codes, and only warnings can be allowed. The message says what was found instead.";

    // OP: operational checks (`crate::rules::ops`), objects every layer accepts that break a
    // cluster later. Each entry links the public reports it was drawn from and says the fix.
    // One block per area; add an area's new codes at the end of its block.

    // OP01xx: pools and IPAM.
    OP_POOL_HOLDS_NODE_ADDRESS = "OP0101", Warning, "pod pool contains a node's address",
        "Calico hands out every address of a pod pool to pods and routes each one to the node whose block holds it; it does not know which addresses the hosts already use. When a pool contains a Node's own address (from the Node objects' `status.addresses`), a pod can get that address, and before that the routes Calico programs for the pool's blocks capture traffic meant for the node: the node's kubelet, the API server on it, or calico-node's own connection to the API server break, often only on some nodes. Needs the Node objects (`kubectl get nodes -o yaml`).",
        reports: [
            "https://github.com/projectcalico/node/issues/193",
            "https://github.com/projectcalico/calico/issues/2720",
            "https://github.com/kubernetes-sigs/cluster-api-provider-ibmcloud/pull/191",
        ],
        fix: "Choose a pod range that no node, router or other host on the network uses, for example 172.20.0.0/16 when the nodes live in 10.0.0.0/8; a pool's CIDR cannot change, so create the new pool, move the pods, then disable and delete the old one.";
    OP_IPV6_ULA_WITHOUT_NAT = "OP0102", Warning, "IPv6 pods with unique local addresses do not NAT while IPv4 pods do",
        "The two families have different defaults: the tigera-operator writes `natOutgoing: Enabled` into an IPv4 pool that does not say and `Disabled` into an IPv6 one (`pkg/controller/ippool/defaults.go`), and a projectcalico.org/v3 IPPool's `natOutgoing` is false unless set. A dual-stack cluster written with the IPv4 habit therefore gets IPv6 pods that leave the cluster with their own source address. When that address is a unique local one (fc00::/7, such as fd00::/48), nothing outside the site routes replies back: IPv6 egress from pods fails while IPv4 works, and dual-stack clients that prefer IPv6 stall until they fall back. Reported when an IPv4 pod pool NATs and an IPv6 pod pool in fc00::/7 does not, and no BGPPeer with a `peerIP` could carry the range to a site that routes it.",
        reports: [
            "https://github.com/projectcalico/calico/issues/2954",
            "https://github.com/projectcalico/calico/issues/7183",
            "https://github.com/tigera/operator/issues/1044",
            "https://github.com/tigera/docs/pull/464",
        ],
        fix: "Set `natOutgoing: Enabled` (Installation pool) or `natOutgoing: true` (IPPool) on the IPv6 pool, or give pods a globally routed IPv6 range that the network routes to the nodes (by BGP or static routes).";
    OP_NODE_WITHOUT_POOL = "OP0103", Error, "a node that no pod pool selects",
        "Calico IPAM assigns a pod an address only from enabled pools whose `nodeSelector` matches the pod's node (Calico's Node labels are the Kubernetes Node's). Pools per zone or rack are accepted one by one, and nothing checks that together they cover every node; a node whose labels match none of a family's pod pools (a new node without the zone label, a typo in the selector) gets no address of that family, and the Calico CNI plugin refuses every pod scheduled there (`failed to set up sandbox ... no IP pools available`), so its pods stay in ContainerCreating. Layer: the Calico CNI plugin (IPAM). Needs the Node objects (`kubectl get nodes -o yaml`).",
        reports: [
            "https://github.com/projectcalico/calico/issues/7440",
            "https://github.com/kubesphere/kubesphere/issues/5036",
        ],
        fix: "Label the node so that a pool selects it, or widen a pool's `nodeSelector` (for example keep one pool with `nodeSelector: all()`); check the selectors against `kubectl get nodes --show-labels`.";
    OP_HOST_LOCAL_WITHOUT_POD_CIDR = "OP0104", Error, "host-local IPAM on a node without a pod CIDR",
        "With `spec.cni.ipam.type: HostLocal` the tigera-operator writes the CNI configuration with the subnet `usePodCidr` (and `usePodCidrIPv6` for IPv6 pools), which the Calico CNI plugin replaces with the node's `spec.podCIDRs` from Kubernetes (`ReplaceHostLocalIPAMPodCIDRs` in `cni-plugin/internal/pkg/utils/utils.go`). Those are set only when kube-controller-manager allocates node CIDRs; on a Node without one of the family the plugin refuses every pod (`usePodCidr found but there is no IPv4 CIDR configured`). Layer: the Calico CNI plugin. Needs the Node objects.",
        reports: [
            "https://github.com/projectcalico/calico/issues/2102",
            "https://github.com/projectcalico/calico/blob/release-v3.32/cni-plugin/internal/pkg/utils/utils.go",
        ],
        fix: "Run kube-controller-manager with `--allocate-node-cidrs=true` and a `--cluster-cidr` that covers the pools (kubeadm does this when `networking.podSubnet` is set), or switch to Calico IPAM (`ipam: Calico`), which does not use the Node's pod CIDR.";
    OP_FEWER_BLOCKS_THAN_NODES = "OP0105", Warning, "fewer IPAM blocks than nodes",
        "Calico IPAM splits each pool into blocks of `blockSize` and gives each node blocks of its own (affinity), which the node then advertises or routes as one prefix. A pool of 2^(blockSize - prefix length) blocks, such as a /24 with the default /26 blocks (4 blocks), runs out of blocks once there are more nodes than that; both layers accept it, and the next nodes borrow single addresses from blocks that other nodes own. Each borrowed address then needs a route of its own (/32 or /128) on every node, beside the owner's route for the whole block, and stays with the borrowing node while in use; reports show pods with borrowed addresses unreachable from some nodes. Needs the Node objects.",
        reports: [
            "https://github.com/projectcalico/calico/issues/3246",
            "https://github.com/projectcalico/calico/issues/4021",
        ],
        fix: "Give the family more blocks than nodes, with room to grow: a larger pool (pools cannot be resized: add a second pool) or smaller blocks (`blockSize: 28` gives four times as many blocks as 26; block size is fixed once a pool exists, so this too means a new pool).";
    OP_INSTALLATION_CIDR_NOT_CANONICAL = "OP0106", Error, "Installation pool CIDR the operator cannot match to its IPPool",
        "The tigera-operator keys the IPPools it owns by their stored `spec.cidr` and compares the Installation's pool CIDRs with those keys as text (`pkg/controller/ippool/pool_controller.go`). Calico stores a CIDR in Go's canonical form, so a pool written `2001:db8:42:0::/56` is stored as `2001:db8:42::/56`: on every reconcile the operator finds its pool missing from the Installation, deletes it, and tries to write it again. Pods lose their pool, and the operator stays Degraded. `CR1019` warns about the text itself; this is what the text does to a pool the operator manages. Layer: the tigera-operator.",
        reports: [
            "https://github.com/tigera/operator/issues/3494",
        ],
        fix: "Write the pool's CIDR in canonical form (lowercase IPv6, the longest run of zero groups as `::`, no leading zeros), as the message gives it.";
    OP_PRIVATE_POOL_WITHOUT_NAT = "OP0107", Warning, "private IPv4 pod pool without outgoing NAT and without a router to carry it",
        "A pod's packet to a destination outside the cluster leaves with the pod's address unless the pool NATs outgoing traffic (`natOutgoing`). For a private range (RFC 1918, or 100.64.0.0/10) the replies come back only if the network routes the range to the nodes, which in practice means BGP peering with its routers. A projectcalico.org/v3 IPPool's `natOutgoing` defaults to false (the operator's Installation pools default to Enabled, so there it takes an explicit `Disabled`): without NAT and without a BGPPeer that names a router, pods reach other pods and nodes but nothing beyond the cluster. Reported for a run with an Installation and no BGPPeer with a `peerIP`.",
        reports: [
            "https://github.com/projectcalico/calico/issues/4277",
            "https://github.com/projectcalico/calico/issues/6254",
            "https://github.com/projectcalico/cni-plugin/issues/193",
        ],
        fix: "Enable outgoing NAT on the pool (`natOutgoing: true`, or `Enabled` in an Installation), or peer the nodes with the network's routers (BGPPeer with `peerIP`) so that they route the pod range.";
    OP_NO_TUNNEL_POOL = "OP0108", Warning, "encapsulation without a pool that may hold tunnel addresses",
        "IP-in-IP and VXLAN need a tunnel address on each node, and calico-node takes it only from enabled pools of the same family and encapsulation whose `allowedUses` include `Tunnel` (`node/pkg/allocateip/allocateip.go`). When every such pool says `allowedUses: [Workload]` (often written to add a `namespaceSelector`), calico-node gives the node no tunnel address, Felix does not bring up `tunl0` or `vxlan.calico` routes, and pod traffic between nodes fails although both layers accepted the pools. Layer: calico-node (tunnel address allocation).",
        reports: [
            "https://github.com/projectcalico/calico/issues/8181",
            "https://github.com/projectcalico/calicoctl/issues/2105",
        ],
        fix: "Keep `Tunnel` in `allowedUses` (`[Workload, Tunnel]`, the default) on at least one enabled pool of each encapsulation and family, or add such a pool; a pool with a `namespaceSelector` cannot allow `Tunnel`, so it needs a sibling that does.";
    OP_EVERY_POD_POOL_DISABLED = "OP0109", Error, "every pod pool of a family is disabled",
        "Calico IPAM takes new pod addresses only from enabled pools (`disabled: false` on an IPPool, `disableNewAllocations: false` in an Installation). A pool migration that disables the old pool before the new one exists, or an upgrade that resets a pool's state, leaves a family with pools that are all disabled: running pods keep their addresses, and every new pod fails in the CNI plugin with no address to assign. Layer: the Calico CNI plugin (IPAM). Reported for a run with an Installation, which lists the pools the operator manages.",
        reports: [
            "https://github.com/projectcalico/calico/issues/6150",
            "https://github.com/kubernetes-sigs/kubespray/issues/8879",
        ],
        fix: "Create and enable the replacement pool first, then disable the old one (Calico's pool migration order), and check `kubectl get ippools` for at least one enabled pool per family.";
    OP_EVERY_POD_POOL_MANUAL = "OP0110", Error, "every pod pool of a family assigns manually",
        "A pool with `assignmentMode: Manual` (Calico v3.30 on) is skipped by automatic assignment: Calico IPAM hands out its addresses only to pods that name the pool, with the `cni.projectcalico.org/ipv4pools` or `ipv6pools` annotation (`libcalico-go/lib/ipam/ipam.go`). When every enabled pod pool of a family is Manual, an ordinary pod gets no address of that family and the Calico CNI plugin refuses it. Layer: the Calico CNI plugin (IPAM). Reported for a run with an Installation.",
        reports: [
            "https://github.com/projectcalico/calico/blob/release-v3.32/libcalico-go/lib/ipam/ipam.go",
            "https://github.com/projectcalico/calico/issues/6150",
        ],
        fix: "Keep at least one enabled pod pool per family with `assignmentMode: Automatic` (the default), and reserve Manual pools for the pods that ask for them.";
    OP_POOL_OVERLAPS_DOCKER_BRIDGE = "OP0112", Warning, "pod pool overlaps Docker's default bridge on nodes that run Docker",
        "Docker Engine creates the `docker0` bridge with 172.17.0.0/16 unless told otherwise, and the kernel keeps a connected route for it on every node that runs Docker (cri-dockerd nodes report `containerRuntimeVersion: docker://...`). A Calico pod pool that overlaps 172.17.0.0/16 competes with that route: replies to pods on other nodes, and traffic to pods whose address falls into the bridge's range, go to `docker0` instead of the pod's route, so only some pods are unreachable, often just for health probes. Read from the Nodes' `status.nodeInfo.containerRuntimeVersion`; needs the Node objects.",
        reports: [
            "https://github.com/kontena/pharos-cluster/issues/439",
            "https://github.com/kontena/pharos-cluster/issues/1330",
        ],
        fix: "Pick a pod range outside 172.17.0.0/16, or move Docker's bridge elsewhere (`bip` in /etc/docker/daemon.json) on every node.";
    OP_POOL_SELECTS_NO_NODE = "OP0113", Warning, "pod pool whose nodeSelector selects no node",
        "Calico IPAM uses a pool only for pods on nodes its `nodeSelector` matches (Calico's Node labels are the Kubernetes Node's). A selector that matches none of the Nodes (a misspelt label, a zone label the nodes do not carry) is accepted, and the pool simply never hands out an address: the pods meant for it get addresses from other pools (with those pools' NAT and encapsulation), or none when no other pool selects their node. Needs the Node objects.",
        reports: [
            "https://github.com/projectcalico/calico/issues/7440",
            "https://github.com/kubesphere/kubesphere/issues/5036",
        ],
        fix: "Correct the selector against `kubectl get nodes --show-labels`, or label the nodes the pool is meant for.";

    // OP02xx: MTU, encapsulation and routing.
    OP_BGP_ROUTED_POOL_NOT_EXPORTED = "OP0201", Warning, "BGP export disabled on a pod pool whose routes travel by BGP",
        "`disableBGPExport: true` makes confd write a reject rule for the pool's CIDR into the export filter that BIRD applies to every BGP session, the node-to-node mesh and route reflectors included, not only to routers outside the cluster (`processIPPool` in `confd/pkg/backends/calico/bgp_processor.go`). With IP-in-IP or no encapsulation the other nodes learn the routes to the pool's blocks only over BGP (unless `clusterRoutingMode: Felix`, or `programClusterRoutes: Enabled` in FelixConfiguration, lets Felix program them), so pods in that pool cannot be reached from other nodes. VXLAN pools are not affected: Felix programs their routes.",
        reports: [
            "https://github.com/projectcalico/calico/issues/6704",
            "https://github.com/projectcalico/calico/blob/release-v3.32/confd/tests/compiled_templates/mesh/bgp-export/bird_ipam.cfg",
        ],
        fix: "Remove `disableBGPExport` from the pool, or switch the pool to VXLAN (`encapsulation: VXLAN` or `VXLANCrossSubnet`), which keeps the pool's routes away from outside routers without starving the other nodes.";
    OP_MTU_WITHOUT_ROOM = "OP0202", Warning, "pod MTU leaves no room for the tunnel's overhead",
        "The Installation's `mtu` becomes the MTU of the pods' interfaces and of Calico's tunnel devices (the operator passes it to the CNI configuration and to Felix as `FELIX_IPINIPMTU`, `FELIX_VXLANMTU`, `FELIX_WIREGUARDMTU` and their IPv6 twins, `pkg/render/node.go`). Every packet between nodes then grows by the tunnel's header: 20 bytes for IP-in-IP, 50 for VXLAN over IPv4 and 70 over IPv6, 60 and 80 for WireGuard (Felix's `int_dataplane.go`, which subtracts the same figures when it detects the MTU itself). When `mtu` plus that overhead exceeds the nodes' MTU, full-size packets are dropped or fragmented: small requests work, large transfers and TLS handshakes hang. Needs the nodes' MTU (`validate --node-mtu`).",
        reports: [
            "https://github.com/projectcalico/calico/issues/8953",
            "https://github.com/projectcalico/calico/blob/release-v3.32/felix/dataplane/linux/int_dataplane.go",
        ],
        fix: "Set `mtu` to the nodes' MTU minus the largest overhead in use (1450 for VXLAN on a 1500-byte network, 1440 for WireGuard), or leave it out so that Calico detects it.";
    OP_FELIX_TUNNEL_OFF = "OP0203", Warning, "FelixConfiguration turns off a tunnel the pools use",
        "Felix decides from the IP pools whether to create the IP-in-IP device (`tunl0`) and the IPv4 VXLAN device (`vxlan.calico`); `ipipEnabled` and `vxlanEnabled` in FelixConfiguration override that decision (the FelixConfiguration API's own description). An explicit `false` left over from an earlier setup keeps the device down while a pool still uses the encapsulation, so pod traffic between nodes over that pool goes nowhere.",
        reports: [
            "https://github.com/projectcalico/calico/pull/5576",
            "https://github.com/projectcalico/calico/pull/2181",
        ],
        fix: "Remove `ipipEnabled`/`vxlanEnabled` from FelixConfiguration and let Felix follow the pools, or change the pool's encapsulation to match.";
    OP_IPIP_ON_AZURE = "OP0204", Warning, "IP-in-IP on Azure",
        "Azure's virtual network does not forward IP-in-IP (IP protocol 4) between VMs, so on AKS, or any cluster the Installation marks `kubernetesProvider: AKS`, a Calico pod pool with IP-in-IP accepts the configuration and then drops every pod packet between nodes; Calico's Azure guidance is VXLAN. Neither the operator nor Calico refuses the combination.",
        reports: [
            "https://github.com/projectcalico/calicoctl/issues/949",
            "https://github.com/projectcalico/calico/pull/4457",
            "https://github.com/kubernetes/kops/pull/17832",
        ],
        fix: "Use VXLAN on Azure: `encapsulation: VXLAN` (or `VXLANCrossSubnet`) in the Installation, `vxlanMode: Always` with `ipipMode: Never` on an IPPool.";
    OP_WIREGUARD_IPV4_ONLY = "OP0205", Warning, "WireGuard on for IPv4 only in a dual-stack cluster",
        "`wireguardEnabled` in FelixConfiguration encrypts IPv4 pod traffic between nodes; IPv6 has its own switch, `wireguardEnabledV6`, off by default. With IPv6 pod pools as well, the IPv6 half of the pod traffic keeps crossing the network unencrypted while the cluster looks encrypted (`calicoctl node status`, the IPv4 WireGuard peers).",
        reports: [
            "https://github.com/projectcalico/calico/issues/5727",
            "https://github.com/kubernetes-sigs/kubespray/issues/10059",
            "https://github.com/projectcalico/calico/pull/6387",
        ],
        fix: "Set `wireguardEnabledV6: true` next to `wireguardEnabled: true` in FelixConfiguration `default` (the kernel needs WireGuard either way).";
    OP_UNENCAPSULATED_ON_EKS = "OP0206", Warning, "unencapsulated pod traffic on EKS",
        "On EKS with Calico CNI, a pod pool without encapsulation, or with IPIP/VXLAN `CrossSubnet`, sends traffic between nodes of one subnet with the pods' own addresses. EC2 drops packets whose source or destination is not the instance's own address while the source/destination check is on, which it is by default on every node's network interface; pods on different nodes of the same subnet cannot reach each other while cross-subnet traffic (encapsulated) works. Calico's EKS manifests use VXLAN `Always` for this reason. Silent when FelixConfiguration `default` sets `awsSrcDstCheck: Disable` (Felix then turns the check off, given the IAM permission).",
        reports: [
            "https://github.com/projectcalico/calico/issues/8166",
            "https://github.com/projectcalico/calico/issues/9138",
            "https://github.com/projectcalico/calico/pull/3780",
        ],
        fix: "Use `encapsulation: VXLAN` (Always), or disable the source/destination check on every node (`awsSrcDstCheck: Disable` in FelixConfiguration `default`, with `ec2:ModifyNetworkInterfaceAttribute` allowed to the nodes).";
    OP_VXLAN_CLASHES_WITH_SWARM = "OP0207", Warning, "Calico VXLAN on Docker Swarm's VNI and port on Mirantis Kubernetes Engine",
        "Mirantis Kubernetes Engine (`kubernetesProvider: DockerEnterprise`) runs Docker Swarm's overlay, which uses VXLAN VNI 4096 on UDP 4789 on the same hosts. Calico's VXLAN device with the same VNI and port conflicts with it and `vxlan.calico` gets deleted, so VXLAN pod traffic stops. The tigera-operator therefore writes VNI 10000 into FelixConfiguration `default` on that platform, but only when `vxlanVNI` is unset (`setDefaultsOnFelixConfiguration` in `pkg/controller/installation/core_controller.go`); a FelixConfiguration that spells out 4096 keeps the clash.",
        reports: [
            "https://github.com/tigera/operator/pull/3435",
            "https://github.com/tigera/operator/blob/release-v1.42/pkg/controller/installation/core_controller.go",
        ],
        fix: "Remove `vxlanVNI` from FelixConfiguration `default` (the operator then uses 10000 there), or set another VNI.";
    OP_UNENCAPSULATED_ON_AKS = "OP0208", Warning, "unencapsulated pod traffic on AKS",
        "On AKS with Calico CNI (bring-your-own CNI), a pod pool without encapsulation, or with VXLAN/IPIP `CrossSubnet`, sends traffic between nodes of one subnet with the pods' own addresses. Azure's virtual network delivers packets only to addresses it assigned or has routes for, and Calico programs no Azure route tables, so such traffic is lost: reports show pods on different nodes unreachable with `VXLANCrossSubnet` until the pool is switched to VXLAN (Always), which kOps now uses for Calico on Azure. IP-in-IP itself is `OP0204`.",
        reports: [
            "https://github.com/projectcalico/calico/issues/6568",
            "https://github.com/kubernetes/kops/pull/17832",
        ],
        fix: "Use `encapsulation: VXLAN` (Always) for the pod pools on AKS.";

    // OP03xx: BGP and peering.
    OP_MESH_OFF_WITHOUT_PEERS = "OP0301", Warning, "node-to-node mesh disabled with no BGPPeer to replace it",
        "With `nodeToNodeMeshEnabled: false` in BGPConfiguration `default`, BIRD on each node stops peering with every other node and peers only as BGPPeer objects say (route reflectors, a top-of-rack router). Calico and the API server accept the change on its own; if no BGPPeer is in place, each node learns no route to the other nodes' pod blocks, so pod traffic between nodes stops (with IPIP or no encapsulation; VXLAN routes do not depend on BGP). Reported when the documents given hold an Installation with BGP enabled and no BGPPeer at all (a BGPConfiguration validated on its own is not judged).",
        reports: [
            "https://github.com/projectcalico/calico/issues/1939",
            "https://github.com/projectcalico/calico/issues/3785",
            "https://github.com/tigera/docs/pull/745",
        ],
        fix: "Apply the BGPPeers that replace the mesh (a peer to route reflectors or to the rack's router, with `nodeSelector: all()` or the nodes it serves) before or with the BGPConfiguration change, or keep the mesh on.";
    OP_PEER_SELECTS_NO_NODE = "OP0302", Warning, "BGPPeer selector that selects no node",
        "A BGPPeer's `nodeSelector` chooses which nodes open the session and `peerSelector` which nodes are the peers; both are Calico selectors over the Node labels. Calico accepts any selector, so a misspelt label (`has(routereflector)` for nodes labelled `route-reflector`) or a label never applied leaves the BGPPeer without sessions, and with the mesh off the routes it was meant to carry never spread. Needs the Node objects.",
        reports: [
            "https://github.com/projectcalico/calico/issues/4539",
            "https://github.com/projectcalico/calico/issues/2292",
        ],
        fix: "Compare the selector with `kubectl get nodes --show-labels` and label the nodes (or fix the selector); Calico selectors quote string values: `route-reflector == 'true'`.";
    OP_MESH_AND_NODE_PEERS = "OP0303", Warning, "node-to-node BGPPeers while the mesh is still on",
        "A BGPPeer with `peerSelector` peers nodes with other nodes: route reflector topologies and in-cluster peering with non-default parameters. With the node-to-node mesh still on, confd keeps a mesh session to every node the BGPPeer does not name and replaces only the sessions to the named ones (calico's confd test `mesh/route-reflector-mesh-enabled` shows both kinds side by side), so every node still holds a session to almost every other: the route reflectors save nothing, and the session count and BIRD's load keep growing with the square of the node count, which is what the reflectors were added to stop. Calico's documentation disables the mesh (`nodeToNodeMeshEnabled: false`) once the reflectors' sessions are established; a rollout that stops halfway leaves this state.",
        reports: [
            "https://github.com/tigera/docs/pull/745",
            "https://github.com/projectcalico/calico/issues/1579",
        ],
        fix: "Set `nodeToNodeMeshEnabled: false` in BGPConfiguration `default` together with the BGPPeers that replace the mesh, after checking that they cover every node.";
    OP_PEERS_WITHOUT_ROUTE_REFLECTOR = "OP0304", Warning, "nodes peer with some nodes, none of them a route reflector",
        "With the mesh off and a BGPPeer whose `peerSelector` picks some of the nodes, the picked nodes must be route reflectors (`routeReflectorClusterID` on their Calico Node, stored as the annotation `projectcalico.org/RouteReflectorClusterID` on the Kubernetes Node, `libcalico-go/lib/backend/k8s/resources/node.go`). Plain iBGP peers do not pass on routes learned from another iBGP peer, so without a cluster ID the nodes that peer with them learn only the picked nodes' own blocks, not each other's, and pod traffic between them fails. Needs the Node objects (with annotations).",
        reports: [
            "https://github.com/projectcalico/calico/issues/2735",
            "https://github.com/projectcalico/calico/issues/4539",
        ],
        fix: "Give the selected nodes a route reflector cluster ID (`calicoctl patch node NAME -p '{\"spec\":{\"bgp\":{\"routeReflectorClusterID\":\"244.0.0.1\"}}}'`), or select every node for a full mesh by BGPPeer.";
    OP_METALLB_SAME_ROUTER = "OP0305", Warning, "MetalLB and Calico peer with the same router",
        "A router keeps one BGP session per neighbour address, and both MetalLB's speaker and Calico's BIRD open theirs from the node's address. When a MetalLB BGPPeer (`metallb.io`) and a Calico BGPPeer name the same router, the sessions collide: the router resets one of them (a BGP Cease, connection collision), and either the pod routes or the LoadBalancer addresses flap or vanish. Reported when both BGPPeers are among the documents.",
        reports: [
            "https://github.com/metallb/metallb/issues/114",
            "https://github.com/metallb/metallb/issues/117",
        ],
        fix: "Let one speaker talk to the router: advertise LoadBalancer addresses with Calico (an IPPool with `allowedUses: [LoadBalancer]` and `serviceLoadBalancerIPs`) and drop MetalLB's BGP mode, or peer MetalLB with a different router than Calico.";
    OP_PEERS_WITHOUT_BGP = "OP0306", Warning, "BGPPeers while the Installation runs no BGP",
        "With `spec.calicoNetwork.bgp: Disabled` the tigera-operator starts calico-node with the networking backend `vxlan` (Calico IPAM) or `none` (host-local IPAM), never `bird` (`pkg/render/node.go`): BIRD does not run, so no BGPPeer is ever dialled, no route is advertised to the routers they name, and no route is learnt from them. Users switching to VXLAN keep their peers and expect them to advertise pods or Services; nothing reports the peers as idle because there is no BGP daemon to report.",
        reports: [
            "https://github.com/projectcalico/calico/issues/10337",
            "https://github.com/tigera/operator/blob/release-v1.42/pkg/render/node.go",
        ],
        fix: "Set `bgp: Enabled` in the Installation if the peerings are wanted (VXLAN pools keep working with BGP on), or delete the BGPPeers.";
    OP_MESH_TOO_LARGE = "OP0307", Warning, "node-to-node mesh across more than 100 nodes",
        "The full node-to-node mesh opens a BGP session from every node to every other node, so sessions grow with the square of the node count. Calico tests the mesh to about 100 nodes and recommends route reflectors above that; reports show slow convergence (minutes of unroutable pods after a calico-node restart), high BIRD CPU, lost routes when several nodes restart at once, and calico-node failing to start at several hundred nodes. Counted from the Linux Node objects while BIRD runs (`bgp: Enabled`) and BGPConfiguration `default` leaves the mesh on; needs the Node objects.",
        reports: [
            "https://github.com/projectcalico/calico/issues/9976",
            "https://github.com/projectcalico/calico/issues/1579",
            "https://github.com/kubernetes/kops/pull/6047",
        ],
        fix: "Nominate a few nodes as route reflectors (`routeReflectorClusterID`), peer the other nodes with them by `peerSelector`, then set `nodeToNodeMeshEnabled: false`; or, if BGP only carries pod routes, switch to `VXLANCrossSubnet` with `bgp: Disabled`.";

    // OP04xx: LoadBalancer and service advertisement.
    OP_LB_POOL_NOT_ADVERTISED = "OP0401", Warning, "LoadBalancer pool whose addresses are never advertised",
        "Calico's kube-controllers give Services of type LoadBalancer addresses from pools with `allowedUses: [LoadBalancer]`, but reaching them from outside depends on BIRD advertising them, and confd advertises a LoadBalancer address only when it falls within a CIDR listed under `serviceLoadBalancerIPs` of BGPConfiguration `default` (confd's `isAllowedLoadBalancerIP` in `confd/pkg/backends/calico/routes.go`). So a LoadBalancer pool that this list does not cover, or any LoadBalancer pool while the Installation has `bgp: Disabled`, yields Services with an external address that nothing routes to. Reported when BGPConfiguration `default` is among the documents, or BGP is disabled in the Installation.",
        reports: [
            "https://github.com/projectcalico/calico/issues/10476",
            "https://github.com/projectcalico/confd/pull/422",
        ],
        fix: "List the pool's CIDR under `spec.serviceLoadBalancerIPs` of BGPConfiguration `default` (with BGP enabled in the Installation), or drop the pool and use a load balancer that announces its addresses itself.";
    OP_LB_POOL_HOLDS_NODE_ADDRESS = "OP0402", Warning, "LoadBalancer pool contains a node's address",
        "Calico's kube-controllers hand out every address of a LoadBalancer pool and do not know which ones the nodes use. A Service given a node's address makes kube-proxy (or Calico's eBPF dataplane) capture traffic to that address on every node for the Service's ports, and BGP advertises it from several nodes: SSH, the kubelet or the API server on that node become unreachable from outside, sometimes only after a later Service takes the address. Needs the Node objects.",
        reports: [
            "https://github.com/metallb/metallb/issues/364",
            "https://github.com/metallb/metallb/issues/1397",
            "https://github.com/metallb/metallb/issues/2700",
        ],
        fix: "Give LoadBalancer pools a range that no node or other host uses (a separate /24, or a slice of the node subnet that the DHCP server and the nodes never use).";
    OP_ADVERTISED_RANGE_OVERLAPS_PODS = "OP0403", Warning, "advertised Service range overlaps a pod pool",
        "`serviceClusterIPs`, `serviceExternalIPs` and `serviceLoadBalancerIPs` in BGPConfiguration `default` make every node announce the range (and BIRD installs a blackhole route for it on the nodes). When that range overlaps a pod pool, the routes for the Service range and for the pods' blocks compete: the Calico maintainers' answer is that Service ranges and pools must not overlap, and reports show in-cluster traffic lost to the blackhole route.",
        reports: [
            "https://github.com/projectcalico/calico/issues/2457",
        ],
        fix: "Advertise only the Service ranges (the cluster's `--service-cluster-ip-range`, the external and LoadBalancer ranges), and keep pod pools disjoint from them.";
    OP_ADVERTISED_WITHOUT_BGP = "OP0404", Warning, "Service ranges advertised while BGP is off",
        "`serviceClusterIPs`, `serviceExternalIPs` and `serviceLoadBalancerIPs` are announced by BIRD, which the operator runs only with `bgp: Enabled` in the Installation (with `Disabled`, calico-node runs without a BGP daemon). BGPConfiguration accepts the lists anyway, and the Services stay unreachable from outside with nothing in the logs to say why.",
        reports: [
            "https://github.com/projectcalico/calico/issues/4506",
            "https://github.com/projectcalico/calico/issues/10476",
        ],
        fix: "Enable BGP in the Installation (`spec.calicoNetwork.bgp: Enabled`) and add BGPPeers for the routers that should learn the ranges, or remove the lists.";
    OP_LB_POOL_WITHOUT_ROUTER = "OP0405", Warning, "LoadBalancer addresses advertised to no router",
        "With `serviceLoadBalancerIPs` covering a LoadBalancer pool, BIRD announces the pool's addresses to its BGP peers; with only the node-to-node mesh those peers are the cluster's own nodes. Clients outside the cluster reach a LoadBalancer address only through a router that learned it, so without a BGPPeer naming a router (`peerIP`) the Services get external addresses that nothing outside can route to. Reported for a run with an Installation with BGP enabled.",
        reports: [
            "https://github.com/projectcalico/confd/pull/422",
            "https://github.com/projectcalico/calico/issues/4506",
        ],
        fix: "Add a BGPPeer for the router in front of the clients (`peerIP` and its `asNumber`, with a `nodeSelector` for the nodes that should peer), and check the router accepts the routes.";
    OP_CLUSTER_IPS_NOT_COVERED = "OP0406", Warning, "advertised serviceClusterIPs do not cover the cluster's Service range",
        "BIRD advertises exactly the ranges listed in BGPConfiguration `serviceClusterIPs`; the Service addresses Kubernetes hands out come from the API server's `--service-cluster-ip-range` (kubeadm's `networking.serviceSubnet`, 10.96.0.0/12 by default). A listed range narrower than the Service range, or of another range altogether, leaves the Services outside it unreachable from the routers, with no error anywhere. Judged only when the kubeadm-config ConfigMap gives the Service range.",
        reports: [
            "https://github.com/projectcalico/calico/issues/7921",
            "https://github.com/projectcalico/calico/pull/3127",
        ],
        fix: "List the Service range exactly as the API server has it (`kubectl -n kube-system get cm kubeadm-config -o yaml`, `serviceSubnet`), one entry per family.";

    // OP05xx: eBPF, kube-proxy and the dataplane.
    OP_BPF_ENABLED_NOT_OWNED = "OP0501", Error, "FelixConfiguration default sets bpfEnabled the operator cannot own",
        "The tigera-operator writes `bpfEnabled` of FelixConfiguration `default` itself, together with the annotation `operator.tigera.io/bpfEnabled` holding the same value, and before each write it compares the two: when they differ (a value someone else set) it refuses and the Installation does not reconcile (operator v1.42 `pkg/controller/installation/bpf.go`, `bpfValidateAnnotations`). It writes `true` with `linuxDataplane: BPF` (on a fresh install before it renders calico-node, later once the BPF rollout is done) and `false` with any other dataplane while the field is unset or true. So a hand-written `bpfEnabled` without the matching annotation stops the reconcile, unless it is `false` off BPF. An annotation Go's ParseBool cannot read fails the same way. Layer: the operator (Degraded, or a reconcile error before anything is rendered).",
        reports: [
            "https://github.com/tigera/operator/issues/1693",
            "https://github.com/projectcalico/calico/issues/7599",
        ],
        fix: "Remove `bpfEnabled` from the FelixConfiguration and choose the dataplane with the Installation's `spec.calicoNetwork.linuxDataplane`.";
    OP_NFTABLES_MODE_OVERWRITTEN = "OP0502", Warning, "FelixConfiguration default sets an nftablesMode the operator overwrites",
        "Whenever the Installation has a `linuxDataplane` (always, after its defaults) the operator writes `nftablesMode` of FelixConfiguration `default` on every reconcile: `Disabled` for Iptables and VPP in every supported release, a value other than `Disabled` for Nftables (`Enabled` in v3.31, `Auto` in v3.32; operator `core_controller.go`, `setNftablesMode`). A contradicting value in Git is reverted, and a GitOps tool puts it back, forever.",
        reports: [
            "https://github.com/kubernetes-sigs/kubespray/issues/12198",
            "https://github.com/tigera/operator/pull/4389",
        ],
        fix: "Remove `nftablesMode`; choose the nftables dataplane with `spec.calicoNetwork.linuxDataplane: Nftables`.";
    OP_KUBE_PROXY_MANAGED_ELSEWHERE = "OP0503", Error, "kubeProxyManagement on a kube-proxy DaemonSet another tool manages",
        "With `kubeProxyManagement: Enabled` the operator's kube-proxy controller patches DaemonSet `kube-system/kube-proxy`, but first refuses one that carries the label `app.kubernetes.io/managed-by` or `addonmanager.kubernetes.io/mode`, or the annotation `argocd.argoproj.io/tracking-id` (operator v1.42 `pkg/controller/kubeproxy/controller.go`, `validateDaemonSetUnmanaged`, added by operator PR #4058). Its status goes Degraded and kube-proxy is neither removed for BPF nor restored. Needs kube-proxy's DaemonSet as context. Layer: the operator.",
        reports: [
            "https://github.com/tigera/operator/pull/4058",
        ],
        fix: "Disable kube-proxy through the tool that owns its DaemonSet (Argo CD, the addon manager, Helm) and leave `kubeProxyManagement` Disabled.";
    OP_KUBE_PROXY_MANAGEMENT_NO_DAEMONSET = "OP0504", Error, "kubeProxyManagement on a platform without a kube-proxy DaemonSet",
        "The kube-proxy controller reads DaemonSet `kube-system/kube-proxy` and goes Degraded when it is missing (operator `pkg/controller/kubeproxy/controller.go`). RKE2 runs kube-proxy as a static pod and OpenShift in its own namespace, so with `kubernetesProvider: RKE2` or `OpenShift` there is no such DaemonSet: the status stays Degraded and kube-proxy keeps running beside the BPF dataplane. Said only when no kube-proxy DaemonSet is given as context. Layer: the operator.",
        reports: [
            "https://github.com/rancher/rke2/issues/751",
            "https://github.com/rancher/rke2/issues/2728",
        ],
        fix: "Stop kube-proxy the platform's way (RKE2: `disable-kube-proxy: true`; OpenShift: `deployKubeProxy: false`) and leave `kubeProxyManagement` Disabled.";
    OP_BPF_BESIDE_KUBE_PROXY = "OP0505", Warning, "BPF dataplane while kube-proxy still runs",
        "In BPF mode Felix removes kube-proxy's iptables rules (`bpfKubeProxyIptablesCleanupEnabled`, true by default) and a running kube-proxy writes them back, so the two fight on every sync; users saw calico-node stuck not ready. Nothing stops kube-proxy unless `kubeProxyManagement: Enabled` or you do it. The DaemonSet counts as running when its pod nodeSelector has only OS and architecture keys and it has no node affinity. Needs kube-proxy's DaemonSet as context.",
        reports: [
            "https://github.com/projectcalico/calico/issues/10538",
            "https://github.com/projectcalico/calico/issues/10748",
        ],
        fix: "Set `kubeProxyManagement: Enabled`, or give kube-proxy a nodeSelector no node matches, or keep it on purpose with `bpfKubeProxyIptablesCleanupEnabled: false` (then see OP0506).";
    OP_BPF_KUBE_PROXY_HEALTHZ_PORT = "OP0506", Warning, "BPF keeps kube-proxy on kube-proxy's health-check port",
        "With kube-proxy kept beside the BPF dataplane (`bpfKubeProxyIptablesCleanupEnabled: false`) both serve health checks: kube-proxy on its `healthzBindAddress` (0.0.0.0:10256 by default) and Felix's BPF proxy on `bpfKubeProxyHealthzPort` (10256 by default). Felix cannot bind the port and logs \"BPF Proxy Healthz server failed, restarting\" in a loop. Needs kube-proxy's DaemonSet (and its ConfigMap when the port is set there) as context.",
        reports: [
            "https://github.com/projectcalico/calico/issues/10748",
            "https://github.com/tigera/docs/pull/2575",
        ],
        fix: "Set `bpfKubeProxyHealthzPort` in FelixConfiguration `default` to a port nothing else uses.";
    OP_BPF_FROM_IPVS = "OP0507", Warning, "BPF dataplane on a cluster whose kube-proxy runs in IPVS mode",
        "IPVS mode leaves the `kube-ipvs0` device holding every Service address, which the eBPF dataplane does not expect; Calico does not support moving from IPVS straight to eBPF, and users who did lost all node connectivity (SSH too) until they rebooted, or saw Felix restart in a loop (\"kube-proxy mode changed\"). Read from the DaemonSet's `--proxy-mode` or `mode` in kube-proxy's ConfigMap, given as context.",
        reports: [
            "https://github.com/projectcalico/calico/issues/12476",
            "https://github.com/projectcalico/calico/issues/8530",
            "https://github.com/tigera/docs/pull/1634",
        ],
        fix: "Switch kube-proxy to iptables mode and let the nodes drop `kube-ipvs0` (a reboot) before setting `linuxDataplane: BPF`.";
    OP_NFTABLES_WITHOUT_KUBE_PROXY_NFTABLES = "OP0508", Warning, "nftables dataplane while kube-proxy is not in nftables mode",
        "The nftables dataplane expects kube-proxy in nftables mode. In v3.32 the operator sets `nftablesMode: Auto` and Felix follows kube-proxy, so with kube-proxy in iptables or IPVS mode the nodes silently stay on iptables (Felix `dataplane/linux/int_dataplane.go`); in v3.31 it sets `Enabled` and Felix runs nftables beside kube-proxy's iptables rules. Read from kube-proxy's context documents.",
        reports: [
            "https://github.com/tigera/docs/pull/2347",
            "https://github.com/projectcalico/calico/pull/11629",
        ],
        fix: "Set `mode: nftables` in kube-proxy's KubeProxyConfiguration (kubeadm: the `kube-proxy` ConfigMap) and restart kube-proxy.";
    OP_KUBE_PROXY_LEFT_DISABLED = "OP0509", Warning, "kube-proxy left disabled after leaving the BPF dataplane",
        "The operator stops kube-proxy for BPF with the pod nodeSelector `operator.tigera.io/disable-kube-proxy: \"true\"` and removes it only while `kubeProxyManagement: Enabled` (operator `pkg/controller/kubeproxy/controller.go`). With the dataplane no longer BPF and management off, the selector stays and no kube-proxy serves Services once Felix leaves BPF: kube-proxy may only be off under the BPF dataplane. Needs kube-proxy's DaemonSet as context.",
        reports: [
            "https://github.com/gardener/gardener-extension-networking-calico/pull/179",
            "https://github.com/tigera/docs/pull/3009",
        ],
        fix: "Keep `kubeProxyManagement: Enabled` while switching back, or remove the nodeSelector from kube-proxy's DaemonSet first.";
    OP_DSR_ON_EKS = "OP0510", Warning, "eBPF direct server return on EKS",
        "With `bpfExternalServiceMode: DSR` the node that hosts the backend answers external clients directly, with the Service address as source. AWS drops packets whose source is not the sending interface's address unless the Source/Dest check is disabled on every node, so replies vanish.",
        reports: [
            "https://github.com/projectcalico/calico/pull/4047",
        ],
        fix: "Disable the Source/Dest check on the nodes' network interfaces, or keep `bpfExternalServiceMode: Tunnel`.";
    OP_BPF_OUTSIDE_DEFAULT = "OP0511", Warning, "BPF turned on in a per-node or selector FelixConfiguration",
        "The operator renders calico-node for the Installation's `linuxDataplane` (the bpffs mount and the bootstrap only for BPF) and owns `bpfEnabled` only in FelixConfiguration `default`. A FelixConfiguration `node.<name>` or one with a `nodeSelector` that sets `bpfEnabled: true` switches its nodes to BPF behind the operator's back, with kube-proxy still running there.",
        reports: [
            "https://github.com/projectcalico/calico/issues/7599",
        ],
        fix: "Switch the whole cluster with `spec.calicoNetwork.linuxDataplane: BPF` and drop `bpfEnabled` from the other FelixConfigurations.";
    OP_KUBE_PROXY_CLUSTER_CIDR = "OP0512", Warning, "pod pool outside kube-proxy's clusterCIDR",
        "kube-proxy marks traffic to Service addresses from sources outside its `clusterCIDR` for masquerade (when it detects local traffic by cluster CIDR, the default). Pods of a pool outside it reach Services with the node's address as source, so backends lose the client address and policies that select the client pod stop matching. Read from `--cluster-cidr` or `clusterCIDR` (kubeadm's podSubnet) in kube-proxy's context documents, per family.",
        reports: [
            "https://github.com/projectcalico/calico/issues/683",
            "https://github.com/projectcalico/calico/issues/6545",
            "https://github.com/projectcalico/calico/issues/8812",
        ],
        fix: "Make kube-proxy's `clusterCIDR` cover every pod pool, or choose pools inside it.";
    OP_KUBE_PROXY_NFTABLES_BESIDE_IPTABLES = "OP0513", Warning, "kube-proxy in nftables mode beside the iptables dataplane",
        "With `linuxDataplane: Iptables` the operator writes `nftablesMode: Disabled`, so Felix programs iptables while kube-proxy programs nftables: the mix the Calico docs rule out, which broke Calico when installers moved kube-proxy to nftables. Read from kube-proxy's context documents.",
        reports: [
            "https://github.com/projectcalico/calico/issues/8025",
            "https://github.com/kubernetes-sigs/kubespray/issues/12198",
        ],
        fix: "Set `spec.calicoNetwork.linuxDataplane: Nftables`, or put kube-proxy back in iptables mode.";
    OP_ROUTE_TABLES_OF_OTHER_CNI = "OP0514", Warning, "Felix's route-table range covers the tables of the CNI plugin Calico runs beside",
        "Felix owns the Linux routing tables in `routeTableRange`/`routeTableRanges` and removes routes in them that it did not program. The AWS VPC CNI puts each secondary network interface's routes in table (device number + 1), from 2 up to 16, and the GKE CNI uses the tables below 10; the tigera-operator therefore writes 65-99 (AmazonVPC) or 10-250 (GKE) into FelixConfiguration `default`, but only when no range is set (`setDefaultsOnFelixConfiguration` in `pkg/controller/installation/core_controller.go`). A hand-written range that covers those tables makes Felix delete the other plugin's routes: pods on secondary interfaces lose connectivity.",
        reports: [
            "https://github.com/projectcalico/calico/pull/5432",
            "https://github.com/projectcalico/calico/pull/4811",
            "https://github.com/kubernetes/kubernetes/pull/96615",
        ],
        fix: "Remove `routeTableRange` (the operator then sets a safe one) or choose a range clear of the other plugin's tables (65-99 beside the AWS VPC CNI, 10-250 beside GKE's).";

    // OP06xx: operator ownership, GitOps and chart values.
    OP_PROGRAM_CLUSTER_ROUTES_OVERWRITTEN = "OP0601", Warning, "programClusterRoutes that clusterRoutingMode overwrites",
        "With `clusterRoutingMode` set in the Installation the operator writes `programClusterRoutes` on every reconcile: on FelixConfiguration `default` `Enabled` for `Felix` and `Disabled` otherwise, on BGPConfiguration `default` the opposite (operator `core_controller.go`, `setClusterRoutingOnFelixConfiguration`, `setClusterRoutingOnBGPConfiguration`). A different value in Git is reverted and fought over by a GitOps tool, and BIRD and Felix disagree about who programs the routes in between.",
        reports: [
            "https://github.com/tigera/operator/issues/1693",
            "https://github.com/projectcalico/calico/issues/10735",
        ],
        fix: "Remove `programClusterRoutes` and choose who programs the routes with `spec.calicoNetwork.clusterRoutingMode`.";
    OP_OPERATOR_POOL_NOT_LISTED = "OP0602", Warning, "IPPool labelled as the operator's but not in the Installation",
        "The IP pool controller owns every IPPool labelled `app.kubernetes.io/managed-by: tigera-operator` and deletes the ones whose `cidr` is not, character for character, the `cidr` of a pool in `spec.calicoNetwork.ipPools` (operator `pkg/controller/ippool/pool_controller.go`). Pools exported from a live cluster keep the label, so re-applying them beside an Installation that lists other pools deletes them again. Said only when the Installation lists its pools.",
        reports: [
            "https://github.com/projectcalico/calico/issues/9100",
            "https://github.com/projectcalico/calico/issues/11311",
            "https://github.com/tigera/operator/issues/3494",
        ],
        fix: "Remove the label from pools you manage yourself, or list the pool, spelt the same, in the Installation.";
    OP_UNOWNED_POOL_WITH_INSTALLATION_CIDR = "OP0603", Error, "IPPool with an Installation pool's CIDR that the operator may not take over",
        "The tigera-operator's IP pool controller takes over an existing IPPool only when it carries the label `app.kubernetes.io/managed-by: tigera-operator` or matches the Installation's entry for that CIDR exactly (name, encapsulation, NAT, block size, selector, BGP export, allocation state, uses); any other IPPool with the CIDR of an Installation pool is left alone and the controller reports \"Cannot update an IP pool not owned by the operator\" (`pkg/controller/ippool/pool_controller.go`). The TigeraStatus `ippools` stays Degraded and the Installation's settings for that pool never apply. Layer: the tigera-operator. Typical after installing pools with calicoctl or a manifest and then listing them in the Installation with other settings.",
        reports: [
            "https://github.com/tigera/operator/pull/2658",
            "https://github.com/projectcalico/calico/issues/12131",
        ],
        fix: "Make the IPPool match the Installation's entry exactly (then the operator adopts it), or add the label `app.kubernetes.io/managed-by: tigera-operator` to hand it over, or remove the pool from the Installation.";
    OP_FELIX_FIELD_OVERRIDDEN_BY_OPERATOR = "OP0604", Warning, "FelixConfiguration field that the operator's environment for calico-node overrides",
        "Felix takes a setting from an environment variable before any FelixConfiguration (`SourcesInDescendingOrder` in `felix/config/config_params.go`), and the tigera-operator renders calico-node with several `FELIX_*` variables (`pkg/render/node.go`): always `FELIX_DEFAULTENDPOINTTOHOSTACTION=ACCEPT`, `FELIX_HEALTHENABLED=true` and `FELIX_IPV6SUPPORT`; the tunnel MTUs (`FELIX_IPINIPMTU`, `FELIX_VXLANMTU`, `FELIX_VXLANMTUV6`, `FELIX_WIREGUARDMTU`, `FELIX_WIREGUARDMTUV6`) when the Installation sets `mtu`; the interface prefix and allow actions beside the AWS VPC, GKE and Azure CNIs. The same field in a FelixConfiguration is accepted and silently ignored: a hardening `defaultEndpointToHostAction: Drop` never takes effect.",
        reports: [
            "https://github.com/projectcalico/calico/issues/7398",
            "https://github.com/kubernetes-sigs/kubespray/issues/10766",
            "https://github.com/tigera/operator/blob/release-v1.42/pkg/render/node.go",
        ],
        fix: "Set the value through the Installation where it has a field (`spec.calicoNetwork.mtu`, the pools and autodetection for IPv6); for `defaultEndpointToHostAction` use host endpoint policy (automatic host endpoints and a GlobalNetworkPolicy) instead.";

    // OP07xx: nodes and address autodetection.
    OP_AUTODETECTION_WITHOUT_POOL = "OP0701", Warning, "IPv6 address autodetection without an IPv6 pool",
        "`nodeAddressAutodetectionV6` makes the operator set `IP6=autodetect` (operator `pkg/render/node.go`), and calico-node then requires an IPv6 address on every node: where it finds none it exits with \"failed to autodetect an IPv6 address\" (`node/pkg/lifecycle/startup/startup.go`). Without an IPv6 pool nothing uses the address. Silent when the Nodes are given and each has an IPv6 address.",
        reports: [
            "https://github.com/projectcalico/calico/issues/6443",
            "https://github.com/rancher/rke2/issues/7454",
        ],
        fix: "Remove `nodeAddressAutodetectionV6`, or add the IPv6 pool it is meant for.";
    OP_AUTODETECTION_NO_METHOD = "OP0702", Warning, "node address autodetection block that names no method",
        "Validation counts `firstFound` as a method only when true, so `{firstFound: false}` or an empty block passes, but the operator then finds no method and sets `IP=none` (or `IP6=none`): autodetection is off (operator `pkg/render/node.go`, `getAutodetectionMethod`). Nodes get no Calico address of that family although a pool of it exists, so BGP and the routes to them are missing, and a node left with no address at all makes calico-node exit (\"No IP Addresses configured, and autodetection is not enabled\").",
        reports: [
            "https://github.com/projectcalico/node/pull/569",
            "https://github.com/projectcalico/node/pull/513",
        ],
        fix: "Name one method: `kubernetes: NodeInternalIP`, `interface`, `cidrs`, `canReach` or `firstFound: true`.";
    OP_NODE_INTERNAL_IP_MISSING = "OP0703", Error, "kubernetes: NodeInternalIP on a Node without an InternalIP of the family",
        "With `kubernetes: NodeInternalIP` calico-node takes the Node's InternalIP of the family (`autodetection_methods.go`, `autoDetectUsingK8sInternalIP`); a Node whose `status.addresses` has none gives it nothing, and calico-node exits on that node. Needs the Node objects as context. Layer: calico-node.",
        reports: [
            "https://github.com/projectcalico/calico/issues/7341",
            "https://github.com/projectcalico/calico/issues/8941",
        ],
        fix: "Give the kubelet a `--node-ip` of that family on those nodes, or use another method (`cidrs`, `interface`).";
    OP_NODES_SHARE_ADDRESS = "OP0704", Error, "two Nodes would use one Calico address",
        "calico-node refuses to start on a node whose address another Node already uses (\"Calico node 'x' is already using the IPv4 address\", `startup.go`, `checkConflictingNodes`). Read from the Nodes' `projectcalico.org/IPv4Address`/`IPv6Address` annotations, and with `kubernetes: NodeInternalIP` from the Nodes' InternalIPs (every Vagrant VM has 10.0.2.15; first-found likes a Docker bridge or a node-local DNS address that is the same on each node). Needs the Node objects as context. Layer: calico-node.",
        reports: [
            "https://github.com/projectcalico/calico/issues/1628",
            "https://github.com/projectcalico/calico/issues/2521",
            "https://github.com/projectcalico/calico/issues/5851",
        ],
        fix: "Choose an autodetection method that yields each node's own address (`cidrs` or `interface` naming the node network).";
    OP_FIRST_FOUND_ELSEWHERE = "OP0705", Warning, "first-found chose an address the Node does not report",
        "First-found takes the first interface not on its short exclusion list; on nodes with several networks that can be a bridge, a VPN, a management network or a node-local DNS address. The Node's Calico annotation then names an address that is none of the kubelet's, and IPIP/VXLAN tunnels and BGP run over the wrong network. Needs the Node objects (with Calico's annotations) as context.",
        reports: [
            "https://github.com/k0sproject/k0s/issues/3711",
            "https://github.com/projectcalico/calico/issues/6910",
            "https://github.com/projectcalico/node/issues/255",
        ],
        fix: "Use `kubernetes: NodeInternalIP`, or `interface`/`cidrs` naming the node network.";
    OP_FIRST_FOUND_AMBIGUOUS = "OP0706", Warning, "first-found on Nodes with several InternalIPs of a family",
        "When a Node reports several InternalIPs of a family, which one first-found takes depends on interface order, not on the network you meant, and it can differ from node to node. Needs the Node objects as context.",
        reports: [
            "https://github.com/poseidon/typhoon/issues/124",
            "https://github.com/poseidon/terraform-render-bootstrap/pull/60",
        ],
        fix: "Use `kubernetes: NodeInternalIP`, `interface` or `cidrs` to name the node network.";
    OP_AUTODETECTION_OTHER_FAMILY = "OP0707", Error, "autodetection target of the other IP family",
        "`canReach` with an IPv6 literal in `nodeAddressAutodetectionV4` (or an IPv4 one in V6), or `cidrs` all of the other family, can never yield an address of the family being detected (\"dial udp4: ... no suitable address found\"), so calico-node exits. The operator checks that the CIDRs parse, not their family. Layer: calico-node.",
        reports: [
            "https://github.com/canonical/microk8s/issues/3804",
        ],
        fix: "Give `canReach` or `cidrs` a target of the family being detected.";

    // OP08xx: platform and release (Kubernetes, kernel, runtime).
    OP_BPF_UNSUPPORTED_NODE = "OP0801", Error, "BPF dataplane on a node where Felix turns BPF off",
        "Before enabling BPF Felix checks the kernel (at least 5.3.0, or 4.18.0-193 on a Red Hat kernel) and that the machine is little-endian; otherwise it logs \"BPF dataplane mode enabled but not supported by the kernel\" and runs without BPF (Felix v3.32 `felix/bpf/bpf.go`, `SupportsBPFDataplane`; `felix/daemon/daemon.go`). With kube-proxy removed for BPF, Services then stop working on those nodes. Read from the Nodes' `status.nodeInfo.kernelVersion` (a `.el<digit>` release is a Red Hat kernel) and `architecture` (s390x is big-endian). Layer: Felix.",
        reports: [
            "https://github.com/xunholy/k8s-gitops/pull/98",
            "https://github.com/projectcalico/calico/pull/4047",
        ],
        fix: "Upgrade those nodes' kernels, or keep the iptables dataplane until every node qualifies.";
    OP_NODE_ARCHITECTURE = "OP0802", Error, "Node architecture Calico publishes no image for",
        "Calico's images are built for amd64, arm64, ppc64le and s390x (`lib.Makefile`, `ARCHES`). On a Linux node of another architecture (32-bit `arm` on a Raspberry Pi OS, for one) the pull fails with \"no matching manifest\" and the node gets no pod network. Read from the Nodes' `status.nodeInfo.architecture`. Layer: the container runtime.",
        reports: [
            "https://github.com/projectcalico/cni-plugin/issues/869",
            "https://github.com/projectcalico/calico/issues/6267",
            "https://github.com/raspbernetes/k8s-cluster-installation/issues/119",
        ],
        fix: "Run a 64-bit OS (arm64) on those nodes, or keep them out of the cluster.";
    OP_NFTABLES_OLD_KERNEL = "OP0803", Warning, "nftables dataplane on a kernel older than 5.13",
        "Calico documents Linux 5.13 or later with nft 1.0.1 for the nftables dataplane, the same floor as kube-proxy's nftables mode; older kernels (RHEL 8's 4.18) stay on iptables or miss the nftables features both need. Read from the Nodes' `status.nodeInfo.kernelVersion`.",
        reports: [
            "https://github.com/projectcalico/calico/pull/13176",
            "https://github.com/tigera/docs/pull/2347",
        ],
        fix: "Upgrade those nodes' kernels, or stay on `linuxDataplane: Iptables` until they are.";
    OP_FLEXVOLUME_ON_READ_ONLY_USR = "OP0804", Error, "flexvolume driver path under /usr on nodes whose /usr is read-only",
        "Unless `flexVolumePath` is set, the tigera-operator installs calico-node's flexvolume driver under `/usr/libexec/kubernetes/kubelet-plugins/volume/exec/` (other paths only on OpenShift, GKE, AKS and RKE2; `pkg/controller/installation/core_controller.go`), mounted as a hostPath the kubelet must create (`pkg/render/node.go`). On Talos, Flatcar, Fedora CoreOS and SUSE's MicroOS family `/usr` is read-only: the kubelet cannot create the directory and calico-node stays in `Init` with \"read-only file system\", so the node never gets pod networking. Layer: the kubelet. Read from the Nodes' `status.nodeInfo.osImage`; needs the Node objects.",
        reports: [
            "https://github.com/projectcalico/calico/issues/2712",
            "https://github.com/siderolabs/talos/issues/6902",
            "https://github.com/rancher/rke2/issues/2886",
            "https://github.com/projectcalico/calico/pull/2854",
        ],
        fix: "Set `spec.flexVolumePath: None` in the Installation (or a writable path such as `/var/lib/kubelet/volumeplugins/` that the kubelet's `--volume-plugin-dir` also uses).";
    OP_DISTRIBUTION_CNI_STILL_ON = "OP0805", Warning, "k3s or RKE2 server still starts its own CNI beside Calico",
        "k3s runs flannel unless its servers start with `--flannel-backend=none`, and RKE2 deploys Canal unless `cni: none` (or its own `calico`); both record their command-line arguments in the Node annotation `k3s.io/node-args` or `rke2.io/node-args`. A server whose arguments name another flannel backend or CNI runs that network beside the operator's Calico: two plugins write CNI configurations and routes, pods get addresses from either, and cross-node traffic breaks. Reported only on such positive evidence (arguments from config files do not appear in the annotation); needs the Node objects.",
        reports: [
            "https://github.com/k3s-io/k3s/issues/54",
            "https://github.com/rancher/docs/pull/3927",
            "https://github.com/rancher/rke2/issues/4491",
        ],
        fix: "Start the k3s servers with `--flannel-backend=none --disable-network-policy`, or set `cni: none` in RKE2's config, then reinstall the nodes' networking.";

    // RT0xxx: the router at the other end of the BGP sessions (`calico-render router`,
    // `validate --router`): the ClusterNetwork against the router's FRR configuration. FRR is
    // not an upstream layer of Calico, so every entry is a warning. Measured with FRR 8.4.4 and
    // BIRD 2.0.12 (tests/tests/router_daemons.rs).
    ROUTER_AS_MISMATCH = "RT0001", Warning, "router and cluster disagree on the AS numbers",
        "The router's `router bgp` must be the BGPPeer's `asNumber`, and its `remote-as` for the nodes the cluster's AS (BGPConfiguration `asNumber`, 64512 when unset), or `external` when nodes have their own AS numbers. Otherwise the OPEN is refused with a NOTIFICATION (OPEN Message Error / Bad Peer AS): a listen-range neighbour is deleted again at once, no session comes up and nothing is learnt.",
        reports: [],
        fix: "Make `router bgp` the BGPPeer's `asNumber` and `neighbor <group> remote-as` the cluster's AS (or `external` with per-node AS numbers).";
    ROUTER_NO_INBOUND_POLICY = "RT0002", Warning, "eBGP peer group without an inbound policy",
        "FRR 7.4 and later follow RFC 8212 (`bgp ebgp-requires-policy`, on with `frr defaults traditional`): an eBGP session without a `route-map ... in` comes up and then refuses every route (\"inbound policy missing\", the summary shows `(Policy)`), so no LoadBalancer address is reachable. The tempting fix `no bgp ebgp-requires-policy` without a route-map accepts everything the nodes send, pod blocks and a default route included (RT0003).",
        reports: [
            "https://github.com/FRRouting/frr/issues/5565",
        ],
        fix: "Give the group a `route-map <name> in` whose prefix-list permits exactly the advertised ranges (`le 32`) and the VIP, and a `route-map <name> out`.";
    ROUTER_ADMITS_REFUSED = "RT0003", Warning, "router policy admits what the cluster must not send",
        "The router's inbound policy admits a route that must never come from the nodes: a pod pool's blocks (the nodes announce them unless the pool has `disableBGPExport: true`) or a default route. The router then routes pod addresses to whichever node announced them and can pull outside traffic into the cluster.",
        reports: [],
        fix: "End the prefix-list with `deny any` and permit only the advertised Service ranges and the VIP; keep pod pools out of BGP towards the router with `disableBGPExport: true` where their routes do not depend on BGP.";
    ROUTER_REFUSES_ANNOUNCED = "RT0004", Warning, "router policy refuses what the cluster announces",
        "Calico announces each advertised Service range whole and, for Services with `externalTrafficPolicy: Local`, as single addresses, so the router must permit the range with `le 32` (`le 128`); an exact-only entry drops the /32s, `ge 32` drops the aggregate, and a missing entry drops the range. The API VIP needs its own /32.",
        reports: [
            "https://github.com/metallb/metallb/pull/1103",
        ],
        fix: "Permit every `serviceLoadBalancerIPs`, `serviceClusterIPs` and `serviceExternalIPs` range with `le 32` (`le 128` for IPv6) and the VIP as a /32, in the prefix-list of the family's inbound route-map.";
    ROUTER_POD_POOL_EXPORTED = "RT0005", Warning, "pod pool announced to a router that refuses it",
        "A pod pool without `disableBGPExport: true` has its blocks announced to every BGP peer, the router included, where the rendered policy drops them: nothing works better for it, and a router whose policy is loosened later takes them in. For a VXLAN pool the flag costs nothing (Felix programs VXLAN routes without BGP); for IP-in-IP or unencapsulated pools it would also stop the routes between nodes (OP0201 explains), so only VXLAN pools are reported.",
        reports: [],
        fix: "Set `disableBGPExport: true` on the VXLAN pod pool.";
    ROUTER_ADVERTISED_WITHOUT_POOL = "RT0006", Warning, "advertised LoadBalancer range that no LoadBalancer pool covers",
        "Every node announces each `serviceLoadBalancerIPs` range, but kube-controllers assign LoadBalancer addresses only from IPPools with `allowedUses: [LoadBalancer]`: a range outside every such pool is announced and admitted by the router while no Service can get an address from it, and traffic the router sends there ends in the nodes' blackhole route.",
        reports: [],
        fix: "Add a LoadBalancer pool for the range, or remove the range from `serviceLoadBalancerIPs`.";
    ROUTER_SHARED_SOURCE = "RT0007", Warning, "kube-vip and Calico peer with the router from one address",
        "A router keeps one BGP session per neighbour address. kube-vip in BGP mode and calico-node both open a session to the same router from the node's address, so the router resets one on connection collision (Cease / Connection Collision Resolution) and both flap; measured: kube-vip never got established and the Calico session dropped every few seconds, so the VIP was never accepted.",
        reports: [
            "https://github.com/kube-vip/kube-vip/issues/398",
            "https://github.com/metallb/metallb/issues/114",
            "https://github.com/metallb/metallb/issues/117",
        ],
        fix: "Give kube-vip a second node address (`bgp_sourceip`, `spec.bgp.apiVIP.sourceAddress`) inside the router's listen range, or let Calico announce the VIP (`speaker: Calico`), or run kube-vip in ARP mode.";
    ROUTER_BFD_SINGLE_HOP = "RT0008", Warning, "BFD on the router cannot pair with Calico's multihop sessions",
        "Calico's BIRD peers in multihop mode, so its BFD sessions are multihop too. FRR makes a single-hop BFD session unless the neighbour has `ebgp-multihop`, and a multihop profile expects a minimum TTL of 254 by default, which BIRD's packets do not carry: measured, BFD stayed down in both cases and came up only with `ebgp-multihop` and a profile with `minimum-ttl 1`. A BFD session that never comes up protects nothing.",
        reports: [],
        fix: "Add `neighbor <group> ebgp-multihop` and `neighbor <group> bfd profile <name>` with `bfd` / `profile <name>` / `minimum-ttl 1`.";
    ROUTER_OFF_LINK_NO_MULTIHOP = "RT0009", Warning, "router off the node subnet without ebgp-multihop",
        "When the router is not on the nodes' subnet, the next hops the nodes announce (their own addresses) are not connected to the router; without `ebgp-multihop` (or `disable-connected-check`) FRR marks every path invalid (`show bgp nexthop`: invalid) while the sessions look established, and installs nothing.",
        reports: [
            "https://github.com/metallb/metallb/issues/1980",
        ],
        fix: "Add `neighbor <group> ebgp-multihop` to the node peer group.";
    ROUTER_LISTEN_RANGE_MISSES = "RT0010", Warning, "router accepts no session from some nodes",
        "A `bgp listen range` accepts sessions only from addresses inside it, and explicit neighbours only from those addresses. A node subnet (or listed node) outside all of them gets no session at all, and FRR logs nothing about it at the usual log level: the nodes keep retrying and their addresses are never announced.",
        reports: [
            "https://github.com/metallb/metallb/issues/1980",
        ],
        fix: "Add `bgp listen range <node subnet> peer-group <group>` for every node subnet (or a `neighbor <node> peer-group <group>` per node).";
    ROUTER_GRACEFUL_RESTART_STALE = "RT0011", Warning, "router keeps a dead node's routes",
        "Calico's BIRD announces graceful restart with a 120 s restart time, and FRR is a graceful-restart helper by default: when a node's speaker dies the router keeps that node's paths as stale, still selected and still a kernel ECMP next hop, for the restart time, and a share of the traffic to every LoadBalancer address goes to the dead node. `neighbor <group> graceful-restart-disable` did not help for listen-range peers in FRR 8.4.4; `bgp graceful-restart-disable` withdrew them within 1.5 s.",
        reports: [],
        fix: "Add `bgp graceful-restart-disable` to `router bgp`, or a short `bgp graceful-restart stalepath-time` (at most 30 s).";
    ROUTER_NO_FORWARDING = "RT0012", Warning, "router does not forward",
        "A fresh Linux router has forwarding off; FRR installs the routes and the traffic to the LoadBalancer addresses then dies at the router. `ip forwarding` (and `ipv6 forwarding`) in the FRR configuration makes zebra turn it on.",
        reports: [],
        fix: "Add `ip forwarding` (and `ipv6 forwarding` for IPv6 sessions) to the configuration.";
}

/// Find a rule by code (case-insensitive).
pub fn lookup(code: &str) -> Option<&'static Rule> {
    CATALOGUE
        .iter()
        .find(|rule| rule.code.eq_ignore_ascii_case(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for pair in CATALOGUE.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} before {}",
                pair[0].code,
                pair[1].code
            );
        }
        for rule in CATALOGUE {
            let digits = ["CR", "CN", "FL", "KRM", "OP", "RT"]
                .iter()
                .find_map(|prefix| rule.code.strip_prefix(prefix));
            assert!(
                rule.code.len() == 6
                    && digits
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())),
                "{}",
                rule.code
            );
            assert!(!rule.summary.ends_with('.'), "{}", rule.code);
            assert!(rule.explanation.ends_with('.'), "{}", rule.code);
            // Operational checks say where they come from and how to fix them.
            if rule.code.starts_with("OP") {
                assert!(!rule.reports.is_empty(), "{}", rule.code);
                assert!(
                    rule.reports.iter().all(|link| link.starts_with("https://")),
                    "{}",
                    rule.code
                );
                assert!(rule.fix.ends_with('.'), "{}", rule.code);
            }
        }
        assert_eq!(lookup("cr1003"), Some(&POOL_CIDR_HOST_BITS));
        assert_eq!(lookup("CR9999"), None);
        assert_eq!(lookup("cn0203"), Some(&CN_LINT_BPF_FELIX));
        assert_eq!(lookup("krm001"), Some(&KRM_FUNCTION_CONFIG));
        assert_eq!(lookup("op0101"), Some(&OP_POOL_HOLDS_NODE_ADDRESS));
        // The short form leaves both empty.
        assert!(POOL_CIDR_HOST_BITS.reports.is_empty() && POOL_CIDR_HOST_BITS.fix.is_empty());
    }
}
