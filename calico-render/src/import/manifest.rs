//! Manifest installs: a cluster installed from `calico.yaml` (the calico-node DaemonSet, the
//! `calico-config` ConfigMap, the calico-kube-controllers and calico-typha Deployments) becomes
//! the operator objects its take-over by the tigera-operator would write, which the rest of
//! `import` then reads like live objects.
//!
//! The rules are those of the operator's own migration (tigera/operator
//! `pkg/controller/migration/convert/` on release-v1.42): what it maps, what it refuses
//! (`CN0410`, before anything is written), what it changes (`CN0411`), and what it leaves to the
//! operator (`CN0412`). One difference: the migration reads the pools from the cluster's
//! IPPools; from a manifest alone, `import` computes the pools calico-node creates at its first
//! start from the `CALICO_IPV*POOL_*` variables (`node/pkg/lifecycle/startup/startup.go`), unless
//! the input holds the cluster's IPPools too.

use std::collections::BTreeMap;

use calico_spec::cluster_network::{ENDPOINT_CONFIG_MAP, OPERATOR_NAMESPACE};
use calico_spec::release::Release;
use calico_spec::rules::catalogue as c;
use serde_json::{Map, Value, json};

use super::read::Source;
use super::{At, Report, listed};

/// Where the migration's rules are read, for the messages.
const CONVERT: &str = "tigera/operator pkg/controller/migration/convert";

/// The calico-node environment variables the operator ignores and sets itself (`core.go`).
const OPERATOR_SETS: &[&str] = &[
    "WAIT_FOR_DATASTORE",
    "CLUSTER_TYPE",
    "CALICO_DISABLE_FILE_LOGGING",
    "FELIX_LOGSEVERITYSCREEN",
    "FELIX_HEALTHENABLED",
    "FELIX_USAGEREPORTINGENABLED",
    "FELIX_TYPHAK8SSERVICENAME",
    "FELIX_LOGSEVERITYSYS",
];

/// The variables of calico-node's first-start pools (`ippools.go` ignores them: it reads the
/// IPPools); the suffixes after `CALICO_IPV4POOL_` / `CALICO_IPV6POOL_`.
const POOL_SUFFIXES: &[&str] = &[
    "CIDR",
    "BLOCK_SIZE",
    "IPIP",
    "VXLAN",
    "NAT_OUTGOING",
    "NODE_SELECTOR",
    "DISABLE_BGP_EXPORT",
];

/// The MTU variables whose values must agree (`mtu.go`).
const MTU_VARS: &[&str] = &[
    "FELIX_IPINIPMTU",
    "FELIX_VXLANMTU",
    "FELIX_VXLANMTUV6",
    "FELIX_WIREGUARDMTU",
    "FELIX_WIREGUARDMTUV6",
];

/// The host path volumes calico-node must keep (`core.go`, checkNodeHostPathVolume).
const HOST_PATHS: &[(&str, &str)] = &[
    ("lib-modules", "/lib/modules"),
    ("var-run-calico", "/var/run/calico"),
    ("var-lib-calico", "/var/lib/calico"),
    ("xtables-lock", "/run/xtables.lock"),
    ("cni-bin-dir", "/opt/cni/bin"),
    ("cni-net-dir", "/etc/cni/net.d"),
];

/// One object of the input with where it is.
struct Doc {
    value: Value,
    at: At,
}

/// One environment variable of a container: its name, its value when it has one we can read,
/// and its path in the DaemonSet.
struct Env {
    name: String,
    value: Option<String>,
    /// `fieldRef`'s path, for NODENAME and KUBERNETES_NODE_NAME.
    field_ref: Option<String>,
    path: String,
}

/// The objects to import: `sources` unchanged when they hold no calico-node DaemonSet;
/// otherwise the manifest's objects replaced by the operator objects of its migration (an
/// Installation, the first-start IPPools, FelixConfiguration `default` from `FELIX_`
/// variables, the endpoint ConfigMap), every other object kept.
pub(super) fn convert(sources: Vec<Source>, release: &Release, report: &mut Report) -> Vec<Source> {
    let mut docs: Vec<Doc> = Vec::new();
    for source in &sources {
        let at = At {
            file: source.file.clone(),
            document: source.document,
            prefix: String::new(),
            spans: source.spans.clone(),
        };
        match calico_spec::rules::list_items(&source.value) {
            Some(items) => {
                for (item_idx, item) in items.iter().enumerate() {
                    let at = At {
                        prefix: format!("items[{item_idx}]."),
                        ..at.clone()
                    };
                    docs.push(Doc {
                        value: item.clone().into_owned(),
                        at,
                    });
                }
            }
            None => docs.push(Doc {
                value: source.value.clone(),
                at,
            }),
        }
    }
    let is = |doc: &Doc, kind: &str, name: &str| {
        doc.value.get("kind").and_then(Value::as_str) == Some(kind)
            && doc.value.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
    };
    let Some(node) = docs.iter().find(|doc| is(doc, "DaemonSet", "calico-node")) else {
        return sources;
    };
    let config = docs
        .iter()
        .find(|doc| is(doc, "ConfigMap", "calico-config"));
    let kube_controllers = docs
        .iter()
        .find(|doc| is(doc, "Deployment", "calico-kube-controllers"));
    let typha = docs
        .iter()
        .find(|doc| is(doc, "Deployment", "calico-typha"));
    let endpoint = docs
        .iter()
        .find(|doc| is(doc, "ConfigMap", ENDPOINT_CONFIG_MAP));
    // The cluster's IPPools, when the input holds them (v3 or crd.projectcalico.org/v1).
    let cluster_pools: Vec<Value> = docs
        .iter()
        .map(|doc| &doc.value)
        .filter(|value| {
            value.get("kind").and_then(Value::as_str) == Some("IPPool")
                && !is_manifest_object(value)
        })
        .cloned()
        .collect();

    let mut conversion = Conversion {
        node,
        config,
        release,
        report,
        installation: Map::new(),
        network: Map::new(),
        felix: Map::new(),
        checked: BTreeMap::new(),
    };
    conversion.run(kube_controllers, typha, &cluster_pools);

    // The manifest's other objects: named, replaced by the operator's own.
    let mut replaced: BTreeMap<String, (Vec<String>, &At)> = BTreeMap::new();
    for doc in &docs {
        if !is_manifest_object(&doc.value) {
            continue;
        }
        let kind = doc.value.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = doc
            .value
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if matches!(
            (kind, name),
            ("DaemonSet", "calico-node") | ("ConfigMap", "calico-config")
        ) {
            continue;
        }
        let entry = replaced
            .entry(kind.to_owned())
            .or_insert_with(|| (Vec::new(), &doc.at));
        entry.0.push(name.to_owned());
    }
    for (kind, (names, at)) in &replaced {
        let why = match kind.as_str() {
            "ConfigMap" if names.iter().any(|name| name == ENDPOINT_CONFIG_MAP) => {
                "; its data moves to the operator's endpoint ConfigMap in tigera-operator"
            }
            "Deployment" => {
                "; the operator runs calico-kube-controllers and Typha itself (Typha scaled with \
                 the number of nodes)"
            }
            _ => "",
        };
        conversion.report.push(
            &c::CN_IMPORT_MANIFEST_NOTE,
            Some(at),
            "",
            format!(
                "{kind} {}: part of the manifest install, replaced by the operator install's own \
                 objects{why}",
                listed(names)
            ),
            "",
        );
    }

    let node_at = node.at.clone();
    let Conversion {
        installation,
        network,
        felix,
        ..
    } = conversion;
    let mut installation = installation;
    if !network.is_empty() {
        installation.insert("calicoNetwork".into(), Value::Object(network));
    }
    let converted_file = format!(
        "{} (converted from the calico-node DaemonSet)",
        node_at.file
    );
    let synthetic = |value: Value| Source {
        file: converted_file.clone(),
        document: node_at.document,
        value,
        spans: None,
    };
    let mut out: Vec<Source> = Vec::new();
    // Keep every source that is not (only) manifest objects; Lists lose their manifest items.
    for source in sources {
        match calico_spec::rules::list_items(&source.value) {
            Some(items) => {
                let kept: Vec<Value> = items
                    .iter()
                    .filter(|item| !is_manifest_object(item))
                    .map(|item| item.clone().into_owned())
                    .collect();
                if !kept.is_empty() {
                    let mut value = source.value.clone();
                    if let Some(list) = value.get_mut("items") {
                        *list = Value::Array(kept);
                    }
                    out.push(Source { value, ..source });
                }
            }
            None => {
                if !is_manifest_object(&source.value) {
                    out.push(source);
                }
            }
        }
    }
    out.push(synthetic(json!({
        "apiVersion": "operator.tigera.io/v1",
        "kind": "Installation",
        "metadata": {"name": "default"},
        "spec": installation,
    })));
    if !felix.is_empty() {
        out.push(synthetic(json!({
            "apiVersion": "projectcalico.org/v3",
            "kind": "FelixConfiguration",
            "metadata": {"name": "default"},
            "spec": felix,
        })));
    }
    if let Some(data) = endpoint.and_then(|doc| doc.value.get("data")) {
        out.push(synthetic(json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": ENDPOINT_CONFIG_MAP, "namespace": OPERATOR_NAMESPACE},
            "data": data,
        })));
    }
    out
}

/// An object of a manifest install rather than one `import` reads as live: anything but the
/// operator's kinds, the Calico kinds and the operator's endpoint ConfigMap.
fn is_manifest_object(value: &Value) -> bool {
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
    match (text("/apiVersion"), text("/kind")) {
        (Some("operator.tigera.io/v1"), _) => false,
        (Some("projectcalico.org/v3" | "crd.projectcalico.org/v1"), Some(kind)) => !matches!(
            kind,
            "FelixConfiguration" | "BGPConfiguration" | "BGPPeer" | "IPPool"
        ),
        (Some("v1"), Some("ConfigMap")) => {
            text("/metadata/namespace") != Some(OPERATOR_NAMESPACE)
                || text("/metadata/name") != Some(ENDPOINT_CONFIG_MAP)
        }
        (Some(_), Some(_)) => true,
        _ => false,
    }
}

/// The state of one conversion.
struct Conversion<'a> {
    node: &'a Doc,
    config: Option<&'a Doc>,
    release: &'a Release,
    report: &'a mut Report,
    /// The Installation's spec, without `calicoNetwork`.
    installation: Map<String, Value>,
    /// `spec.calicoNetwork`.
    network: Map<String, Value>,
    /// FelixConfiguration `default`'s spec.
    felix: Map<String, Value>,
    /// Per container, the variables some rule looked at.
    checked: BTreeMap<String, Vec<String>>,
}

impl Conversion<'_> {
    fn refuse(&mut self, at: &At, path: &str, message: String, hint: &str) {
        self.report.push(
            &c::CN_IMPORT_MANIFEST_REFUSED,
            Some(at),
            path,
            message,
            hint,
        );
    }

    fn changed(&mut self, path: &str, message: String) {
        let at = self.node.at.clone();
        self.report
            .push(&c::CN_IMPORT_MANIFEST_CHANGED, Some(&at), path, message, "");
    }

    fn note(&mut self, path: &str, message: String) {
        let at = self.node.at.clone();
        self.report
            .push(&c::CN_IMPORT_MANIFEST_NOTE, Some(&at), path, message, "");
    }

    /// The containers and init containers of a pod template, with their paths.
    fn containers(doc: &Doc) -> Vec<(String, &Value, String)> {
        let mut out = Vec::new();
        for list in ["initContainers", "containers"] {
            if let Some(items) = doc
                .value
                .pointer(&format!("/spec/template/spec/{list}"))
                .and_then(Value::as_array)
            {
                for (idx, container) in items.iter().enumerate() {
                    let name = container
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    out.push((name, container, format!("spec.template.spec.{list}[{idx}]")));
                }
            }
        }
        out
    }

    /// The environment of container `name` of `doc`, values read through `calico-config`.
    fn env(&mut self, doc: &Doc, name: &str) -> Vec<Env> {
        let mut out = Vec::new();
        let Some((_, container, path)) = Self::containers(doc)
            .into_iter()
            .find(|(container, _, _)| container == name)
        else {
            return out;
        };
        let items = container.get("env").and_then(Value::as_array);
        for (idx, item) in items.into_iter().flatten().enumerate() {
            let var_name = item.get("name").and_then(Value::as_str).unwrap_or("");
            let path = format!("{path}.env[{idx}]");
            let mut value = item.get("value").and_then(Value::as_str).map(str::to_owned);
            let field_ref = item
                .pointer("/valueFrom/fieldRef/fieldPath")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if let Some(key_ref) = item.pointer("/valueFrom/configMapKeyRef") {
                let map = key_ref.get("name").and_then(Value::as_str).unwrap_or("");
                let key = key_ref.get("key").and_then(Value::as_str).unwrap_or("");
                let found = (map == "calico-config")
                    .then(|| self.config_value(key))
                    .flatten();
                if found.is_none() {
                    let at = doc.at.clone();
                    self.refuse(
                        &at,
                        &path,
                        format!(
                            "{var_name} reads key `{key}` of ConfigMap `{map}`, which the input \
                             does not hold"
                        ),
                        "give the ConfigMap too (`kubectl -n kube-system get cm calico-config -o \
                         yaml`)",
                    );
                }
                value = found;
            } else if item.get("valueFrom").is_some() && field_ref.is_none() {
                let at = doc.at.clone();
                self.refuse(
                    &at,
                    &path,
                    format!(
                        "{var_name} takes its value from a Secret or a resource field; the \
                         operator's migration reads only explicit values and `calico-config` keys \
                         ({CONVERT}/k8s.go, getEnv)"
                    ),
                    "write the value into the manifest",
                );
            }
            out.push(Env {
                name: var_name.to_owned(),
                value,
                field_ref,
                path,
            });
        }
        out
    }

    fn config_value(&self, key: &str) -> Option<String> {
        self.config?
            .value
            .pointer(&format!("/data/{key}"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn check(&mut self, container: &str, var: &str) {
        self.checked
            .entry(container.to_owned())
            .or_default()
            .push(var.to_owned());
    }

    /// Every rule of the migration, in its order.
    fn run(
        &mut self,
        kube_controllers: Option<&Doc>,
        typha: Option<&Doc>,
        cluster_pools: &[Value],
    ) {
        let node = self.node;
        let node_at = node.at.clone();
        let env = self.env(node, "calico-node");
        let get = |name: &str| env.iter().find(|var| var.name == name);
        let value = |name: &str| get(name).and_then(|var| var.value.clone());
        let path_of = |name: &str| get(name).map(|var| var.path.clone()).unwrap_or_default();
        let lower = |name: &str| value(name).map(|text| text.to_ascii_lowercase());

        // core.go: the datastore, NODENAME, the host path volumes, the update strategy.
        self.check("calico-node", "DATASTORE_TYPE");
        if let Some(datastore) = value("DATASTORE_TYPE").filter(|text| text != "kubernetes") {
            self.refuse(
                &node_at,
                &path_of("DATASTORE_TYPE"),
                format!(
                    "DATASTORE_TYPE={datastore}: the operator runs Calico on the Kubernetes \
                     datastore only ({CONVERT}/core.go)"
                ),
                "migrate the data to the Kubernetes datastore first",
            );
        }
        self.check("calico-node", "NODENAME");
        if let Some(var) = get("NODENAME")
            && var.field_ref.as_deref() != Some("spec.nodeName")
        {
            self.refuse(
                &node_at,
                &var.path,
                "NODENAME must be unset or a fieldRef to `spec.nodeName` ({CONVERT}/core.go)"
                    .replace("{CONVERT}", CONVERT),
                "remove NODENAME or make it a fieldRef to spec.nodeName",
            );
        }
        for var in OPERATOR_SETS {
            self.check("calico-node", var);
            if let Some(found) = get(var) {
                let shown = found.value.clone().unwrap_or_default();
                self.note(
                    &found.path,
                    format!(
                        "{var}={shown}: the operator sets this itself; no ClusterNetwork field \
                         says it ({CONVERT}/core.go ignores it)"
                    ),
                );
            }
        }
        self.host_paths();
        self.annotations();
        self.node_selectors(kube_controllers);
        if let Some(strategy) = node.value.pointer("/spec/updateStrategy") {
            self.installation
                .insert("nodeUpdateStrategy".into(), strategy.clone());
        }
        match node
            .value
            .pointer("/spec/template/spec/volumes")
            .and_then(Value::as_array)
            .and_then(|volumes| {
                volumes.iter().find(|volume| {
                    volume.get("name").and_then(Value::as_str) == Some("flexvol-driver-host")
                })
            })
            .and_then(|volume| volume.pointer("/hostPath/path"))
            .and_then(Value::as_str)
        {
            Some(path) => {
                self.installation
                    .insert("flexVolumePath".into(), Value::String(path.to_owned()));
            }
            None => {
                self.installation
                    .insert("flexVolumePath".into(), Value::String("None".to_owned()));
            }
        }
        if let Some((_, container, path)) = Self::containers(node)
            .into_iter()
            .find(|(name, _, _)| name == "calico-node")
            && let Some(resources) = container
                .get("resources")
                .filter(|r| r.as_object().is_some_and(|m| !m.is_empty()))
        {
            self.installation.insert(
                "calicoNodeDaemonSet".into(),
                json!({"spec": {"template": {"spec": {"containers": [
                    {"name": "calico-node", "resources": resources}
                ]}}}}),
            );
            self.changed(
                &format!("{path}.resources"),
                "the calico-node resources move into the Installation (the migration's \
                 componentResources, written today as calicoNodeDaemonSet)"
                    .to_owned(),
            );
        }

        // network.go: the endpoint-to-host action, the CNI plugin, the backend, IP and IP6.
        self.check("calico-node", "FELIX_DEFAULTENDPOINTTOHOSTACTION");
        if let Some(action) = value("FELIX_DEFAULTENDPOINTTOHOSTACTION")
            && !action.eq_ignore_ascii_case("accept")
        {
            self.refuse(
                &node_at,
                &path_of("FELIX_DEFAULTENDPOINTTOHOSTACTION"),
                format!(
                    "FELIX_DEFAULTENDPOINTTOHOSTACTION={action}: the operator sets Accept and its \
                     migration takes over only that ({CONVERT}/network.go, handleNetwork)"
                ),
                "set it to ACCEPT, or remove it",
            );
        }
        self.check("calico-node", "FELIX_INTERFACEPREFIX");
        if let Some(prefix) = value("FELIX_INTERFACEPREFIX").filter(|p| p != "cali") {
            self.refuse(
                &node_at,
                &path_of("FELIX_INTERFACEPREFIX"),
                format!(
                    "FELIX_INTERFACEPREFIX={prefix}: a CNI plugin other than Calico's (the \
                     migration knows eni, azv and gke); a ClusterNetwork describes Calico CNI \
                     clusters only"
                ),
                "import reads Calico CNI manifest installs",
            );
        }
        self.check("calico-node", "CALICO_NETWORKING_BACKEND");
        let backend = value("CALICO_NETWORKING_BACKEND").unwrap_or_default();
        let backend = if backend.is_empty() {
            "bird".to_owned()
        } else {
            backend
        };
        let cni = self.cni();
        let ipam = cni
            .as_ref()
            .and_then(|cni| cni.calico.pointer("/ipam/type"))
            .and_then(Value::as_str)
            .unwrap_or("calico-ipam")
            .to_owned();
        let bgp = match (ipam.as_str(), backend.as_str()) {
            ("calico-ipam", "bird") | ("host-local", "bird") => Some("Enabled"),
            ("calico-ipam", "vxlan") | ("host-local", "none") => Some("Disabled"),
            _ => None,
        };
        match bgp {
            Some(bgp) => {
                self.network.insert("bgp".into(), Value::String(bgp.into()));
            }
            None => self.refuse(
                &node_at,
                &path_of("CALICO_NETWORKING_BACKEND"),
                format!(
                    "CALICO_NETWORKING_BACKEND={backend} with {ipam} IPAM: the migration takes \
                     bird or vxlan with calico-ipam, bird or none with host-local \
                     ({CONVERT}/network.go, subhandleCalicoIPAM)"
                ),
                "",
            ),
        }
        let mut cni_spec = json!({"type": "Calico", "ipam": {"type": "Calico"}});
        if ipam == "host-local" {
            cni_spec = json!({"type": "Calico", "ipam": {"type": "HostLocal"}});
        }
        self.installation.insert("cni".into(), cni_spec);

        self.check("calico-node", "IP");
        self.check("calico-node", "IP_AUTODETECTION_METHOD");
        let ip = lower("IP");
        let v4 = match ip.as_deref() {
            None | Some("autodetect") => {
                if let Some(method) = value("IP_AUTODETECTION_METHOD") {
                    match autodetection(&method) {
                        Some(detect) => {
                            self.network
                                .insert("nodeAddressAutodetectionV4".into(), detect);
                        }
                        None => self.refuse(
                            &node_at,
                            &path_of("IP_AUTODETECTION_METHOD"),
                            format!(
                                "IP_AUTODETECTION_METHOD={method} is not a method the migration \
                                 knows ({CONVERT}/network.go, getAutoDetectionMethod)"
                            ),
                            "use first-found, can-reach=, interface=, skip-interface=, cidr= or \
                             kubernetes-internal-ip",
                        ),
                    }
                }
                true
            }
            Some("none") => false,
            Some(other) => {
                self.refuse(
                    &node_at,
                    &path_of("IP"),
                    format!("IP={other}: only autodetect or none ({CONVERT}/network.go)"),
                    "remove IP or set it to autodetect or none",
                );
                true
            }
        };
        for var in [
            "IP6",
            "IP6_AUTODETECTION_METHOD",
            "FELIX_IPV6SUPPORT",
            "CALICO_ROUTER_ID",
        ] {
            self.check("calico-node", var);
        }
        let ip6 = lower("IP6");
        let v6support = lower("FELIX_IPV6SUPPORT");
        let v6 = match ip6.as_deref() {
            Some("autodetect") => {
                if v6support.as_deref().is_some_and(|s| s != "true") {
                    self.refuse(
                        &node_at,
                        &path_of("FELIX_IPV6SUPPORT"),
                        "IP6=autodetect needs FELIX_IPV6SUPPORT true or unset (network.go)"
                            .to_owned(),
                        "",
                    );
                }
                if let Some(method) = value("IP6_AUTODETECTION_METHOD") {
                    match autodetection(&method) {
                        Some(detect) => {
                            self.network
                                .insert("nodeAddressAutodetectionV6".into(), detect);
                        }
                        None => self.refuse(
                            &node_at,
                            &path_of("IP6_AUTODETECTION_METHOD"),
                            format!(
                                "IP6_AUTODETECTION_METHOD={method} is not a method the migration \
                                 knows ({CONVERT}/network.go)"
                            ),
                            "",
                        ),
                    }
                }
                true
            }
            None | Some("none") => {
                if v6support.as_deref().is_some_and(|s| s != "false") {
                    self.refuse(
                        &node_at,
                        &path_of("FELIX_IPV6SUPPORT"),
                        "FELIX_IPV6SUPPORT is true but IP6 is not autodetect: the migration needs \
                         them to agree (network.go)"
                            .to_owned(),
                        "set IP6=autodetect, or FELIX_IPV6SUPPORT=false",
                    );
                }
                if ip6.is_some() && lower("IP6_AUTODETECTION_METHOD").is_some_and(|m| m != "none") {
                    self.refuse(
                        &node_at,
                        &path_of("IP6_AUTODETECTION_METHOD"),
                        "IP6=none takes IP6_AUTODETECTION_METHOD none or unset (network.go)"
                            .to_owned(),
                        "",
                    );
                }
                false
            }
            Some(other) => {
                self.refuse(
                    &node_at,
                    &path_of("IP6"),
                    format!("IP6={other}: only autodetect or none ({CONVERT}/network.go)"),
                    "",
                );
                false
            }
        };
        if let Some(router_id) = get("CALICO_ROUTER_ID") {
            let ok =
                !v4 && v6 && bgp == Some("Enabled") && router_id.value.as_deref() == Some("hash");
            if !ok {
                let path = router_id.path.clone();
                self.refuse(
                    &node_at,
                    &path,
                    "CALICO_ROUTER_ID is taken over only as `hash` in an IPv6-only cluster with \
                     BGP (network.go)"
                        .to_owned(),
                    "remove CALICO_ROUTER_ID",
                );
            }
        }

        // The CNI config: host ports, IP forwarding, the network name, the IPAM options.
        if let Some(cni) = &cni {
            self.cni_options(cni);
        }

        // mtu.go.
        self.mtu(&env, cni.as_ref());

        // core.go: the metrics port.
        for var in [
            "FELIX_PROMETHEUSMETRICSENABLED",
            "FELIX_PROMETHEUSMETRICSPORT",
        ] {
            self.check("calico-node", var);
        }
        if lower("FELIX_PROMETHEUSMETRICSENABLED").as_deref() == Some("true") {
            let port = match value("FELIX_PROMETHEUSMETRICSPORT") {
                Some(text) => text.parse::<u16>().ok().filter(|port| *port > 0),
                None => Some(9091),
            };
            match port {
                Some(port) => {
                    self.installation
                        .insert("nodeMetricsPort".into(), Value::from(port));
                }
                None => self.refuse(
                    &node_at,
                    &path_of("FELIX_PROMETHEUSMETRICSPORT"),
                    "FELIX_PROMETHEUSMETRICSPORT is not a port in 1-65535 (core.go)".to_owned(),
                    "",
                ),
            }
        }

        // bpf.go and nftables.go: the dataplane.
        for var in ["FELIX_BPFENABLED", "FELIX_NFTABLESMODE"] {
            self.check("calico-node", var);
        }
        if lower("FELIX_BPFENABLED").as_deref() == Some("true") {
            self.network
                .insert("linuxDataplane".into(), Value::String("BPF".into()));
        } else if lower("FELIX_NFTABLESMODE").as_deref() == Some("enabled") {
            self.network
                .insert("linuxDataplane".into(), Value::String("Nftables".into()));
        }

        // ippools.go, and calico-node's first start.
        let mut pool_vars = Vec::new();
        for family in ["4", "6"] {
            for suffix in POOL_SUFFIXES {
                let var = format!("CALICO_IPV{family}POOL_{suffix}");
                self.check("calico-node", &var);
                if get(&var).is_some() {
                    pool_vars.push(var);
                }
            }
        }
        self.check("calico-node", "NO_DEFAULT_POOLS");
        let pools = if !cluster_pools.is_empty() {
            if !pool_vars.is_empty() {
                self.changed(
                    "",
                    format!(
                        "{} describe the pools calico-node created at its first start; the \
                         IPPools given are imported instead, as the operator's migration reads \
                         them (ippools.go)",
                        listed(&pool_vars)
                    ),
                );
            }
            initial_pools(cluster_pools)
        } else if lower("NO_DEFAULT_POOLS").as_deref() == Some("true") {
            self.refuse(
                &node_at,
                &path_of("NO_DEFAULT_POOLS"),
                "NO_DEFAULT_POOLS=true: the pools are not in the manifest".to_owned(),
                "give the cluster's IPPools too (`kubectl get ippools.crd.projectcalico.org -o \
                 yaml`)",
            );
            Vec::new()
        } else {
            let mut pools = Vec::new();
            for (family, enabled, why) in [("4", v4, "IP=none"), ("6", v6, "IP6 is not autodetect")]
            {
                if enabled {
                    pools.extend(self.first_start_pool(family, &env));
                    continue;
                }
                let unused: Vec<String> = pool_vars
                    .iter()
                    .filter(|var| var.starts_with(&format!("CALICO_IPV{family}POOL_")))
                    .cloned()
                    .collect();
                if !unused.is_empty() {
                    self.note(
                        "",
                        format!(
                            "{}: {why}, so calico-node makes no IPv{family} pool and these have \
                             no effect",
                            listed(&unused)
                        ),
                    );
                }
            }
            pools
        };
        let mut operator_pools = Vec::new();
        for pool in &pools {
            match operator_pool(pool) {
                Some(pool) => operator_pools.push(pool),
                None => {
                    let name = pool
                        .pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    self.refuse(
                        &node_at,
                        "",
                        format!(
                            "IPPool `{name}` enables both IPIP and VXLAN; the migration refuses \
                             that combination (ippools.go, convertPool)"
                        ),
                        "set one of the two modes to Never",
                    );
                }
            }
        }
        if !operator_pools.is_empty() {
            self.network
                .insert("ipPools".into(), Value::Array(operator_pools));
        }

        // The other FELIX_ variables: FelixConfiguration `default` (felix_vars.go).
        self.felix_vars(&env);

        // kube-controllers (core.go) and Typha.
        if let Some(doc) = kube_controllers {
            self.kube_controllers(doc);
        }
        if typha.is_none() {
            self.changed(
                "",
                "the manifest runs no Typha; the operator install does (scaled with the number of \
                 nodes)"
                    .to_owned(),
            );
        }

        // What was taken over as the operator sets it anyway: named once.
        let mut same = Vec::new();
        for (container, vars) in [
            (
                "calico-node",
                &[
                    "DATASTORE_TYPE",
                    "NODENAME",
                    "FELIX_DEFAULTENDPOINTTOHOSTACTION",
                    "FELIX_IPV6SUPPORT",
                ][..],
            ),
            (
                "install-cni",
                &[
                    "CNI_CONF_NAME",
                    "KUBERNETES_NODE_NAME",
                    "CNI_NETWORK_CONFIG",
                ][..],
            ),
            (
                "upgrade-ipam",
                &["KUBERNETES_NODE_NAME", "CALICO_NETWORKING_BACKEND"][..],
            ),
        ] {
            let present = self.env_quiet(node, container);
            for var in vars {
                if present.iter().any(|(name, _)| name == var) {
                    same.push(format!("{container} {var}"));
                }
            }
        }
        if !same.is_empty() {
            self.note(
                "",
                format!(
                    "taken over as the operator install sets them anyway: {}",
                    listed(&same)
                ),
            );
        }

        // Everything no rule looked at: convert.go refuses it (`unexpected env vars`).
        for container in [
            "calico-node",
            "install-cni",
            "upgrade-ipam",
            "flexvol-driver",
        ] {
            self.unexpected(container);
        }
    }

    /// The variables of `container` that no rule looked at.
    fn unexpected(&mut self, container: &str) {
        let node = self.node;
        let at = node.at.clone();
        let checked = self.checked.get(container).cloned().unwrap_or_default();
        let env = self.env_quiet(node, container);
        for (name, path) in env {
            let known = checked.contains(&name)
                || (container == "calico-node" && name.starts_with("FELIX_"));
            if !known {
                self.refuse(
                    &at,
                    &path,
                    format!(
                        "{name} on the {container} container: the operator's migration refuses a \
                         variable it does not check (`unexpected env vars`, {CONVERT}/convert.go)"
                    ),
                    &if name.starts_with("KUBERNETES_SERVICE_") {
                        format!(
                            "remove {name} from the {container} container; the API server's \
                             address belongs in the kubernetes-services-endpoint ConfigMap, which \
                             the migration copies to the operator"
                        )
                    } else {
                        format!("remove {name} from the {container} container")
                    },
                );
            }
        }
    }

    /// Names and paths of a container's variables, without reading them.
    fn env_quiet(&self, doc: &Doc, name: &str) -> Vec<(String, String)> {
        let Some((_, container, path)) = Self::containers(doc)
            .into_iter()
            .find(|(container, _, _)| container == name)
        else {
            return Vec::new();
        };
        container
            .get("env")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(idx, item)| {
                (
                    item.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    format!("{path}.env[{idx}]"),
                )
            })
            .collect()
    }

    fn host_paths(&mut self) {
        let node = self.node;
        let at = node.at.clone();
        let volumes = node
            .value
            .pointer("/spec/template/spec/volumes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (name, expected) in HOST_PATHS {
            let found = volumes
                .iter()
                .find(|volume| volume.get("name").and_then(Value::as_str) == Some(name))
                .and_then(|volume| volume.pointer("/hostPath/path"))
                .and_then(Value::as_str);
            if found != Some(expected) {
                self.refuse(
                    &at,
                    "spec.template.spec.volumes",
                    format!(
                        "calico-node has no volume `{name}` with hostPath `{expected}` (found {}): \
                         the operator mounts it there ({CONVERT}/core.go, \
                         checkNodeHostPathVolume)",
                        found.unwrap_or("none")
                    ),
                    "restore the volume's usual host path",
                );
            }
        }
        // install-cni's own variables (core.go).
        let env = self.env(node, "install-cni");
        for var in env {
            match var.name.as_str() {
                "CNI_CONF_NAME" if var.value.as_deref() != Some("10-calico.conflist") => {
                    self.refuse(
                        &at,
                        &var.path,
                        format!(
                            "CNI_CONF_NAME={}: the operator writes 10-calico.conflist (core.go)",
                            var.value.unwrap_or_default()
                        ),
                        "",
                    );
                }
                "KUBERNETES_NODE_NAME" if var.field_ref.as_deref() != Some("spec.nodeName") => {
                    self.refuse(
                        &at,
                        &var.path,
                        "KUBERNETES_NODE_NAME must be a fieldRef to spec.nodeName (core.go)"
                            .to_owned(),
                        "",
                    );
                }
                "SLEEP" => self.note(
                    &var.path,
                    "install-cni SLEEP: the operator sets it itself".to_owned(),
                ),
                _ => {}
            }
        }
        for var in [
            "CNI_CONF_NAME",
            "KUBERNETES_NODE_NAME",
            "SLEEP",
            "CNI_NETWORK_CONFIG",
            "CNI_MTU",
        ] {
            self.check("install-cni", var);
        }
        for var in ["KUBERNETES_NODE_NAME", "CALICO_NETWORKING_BACKEND"] {
            self.check("upgrade-ipam", var);
        }
    }

    fn annotations(&mut self) {
        let node = self.node;
        let at = node.at.clone();
        for (pointer, path, allowed) in [
            ("/metadata/annotations", "metadata.annotations", None),
            (
                "/spec/template/metadata/annotations",
                "spec.template.metadata.annotations",
                Some(("cluster-autoscaler.kubernetes.io/daemonset-pod", "true")),
            ),
        ] {
            let Some(annotations) = node.value.pointer(pointer).and_then(Value::as_object) else {
                continue;
            };
            let unexpected: Vec<String> = annotations
                .iter()
                .filter(|(key, value)| {
                    !(key.starts_with("kubectl.kubernetes.io")
                        || *key == "deprecated.daemonset.template.generation"
                        || *key == "scheduler.alpha.kubernetes.io/critical-pod"
                        || allowed.is_some_and(|(k, v)| *key == k && value.as_str() == Some(v)))
                })
                .map(|(key, _)| key.clone())
                .collect();
            if !unexpected.is_empty() {
                self.refuse(
                    &at,
                    path,
                    format!(
                        "annotations {} on calico-node: the migration refuses annotations the \
                         operator would drop ({CONVERT}/core.go, handleAnnotations)",
                        listed(&unexpected)
                    ),
                    "remove them from the DaemonSet",
                );
            }
        }
    }

    fn node_selectors(&mut self, kube_controllers: Option<&Doc>) {
        let node = self.node;
        let at = node.at.clone();
        if node.value.pointer("/spec/template/spec/affinity").is_some() {
            self.refuse(
                &at,
                "spec.template.spec.affinity",
                "calico-node has an affinity; the migration refuses one (core.go, \
                 handleNodeSelectors)"
                    .to_owned(),
                "remove the affinity",
            );
        }
        let others = |selector: Option<&Value>| -> Vec<(String, Value)> {
            selector
                .and_then(Value::as_object)
                .map(|map| {
                    map.iter()
                        .filter(|(key, value)| {
                            !((*key == "kubernetes.io/os" || *key == "beta.kubernetes.io/os")
                                && value.as_str() == Some("linux"))
                                && *key != "projectcalico.org/operator-node-migration"
                        })
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default()
        };
        let node_others = others(node.value.pointer("/spec/template/spec/nodeSelector"));
        if !node_others.is_empty() {
            let keys: Vec<String> = node_others.into_iter().map(|(key, _)| key).collect();
            self.refuse(
                &at,
                "spec.template.spec.nodeSelector",
                format!(
                    "calico-node's nodeSelector {}: the operator runs calico-node on every Linux \
                     node (core.go, handleNodeSelectors)",
                    listed(&keys)
                ),
                "remove the nodeSelector",
            );
        }
        if let Some(doc) = kube_controllers {
            let selector = others(doc.value.pointer("/spec/template/spec/nodeSelector"));
            if !selector.is_empty() {
                self.installation.insert(
                    "controlPlaneNodeSelector".into(),
                    Value::Object(selector.into_iter().collect()),
                );
            }
            if doc.value.pointer("/spec/template/spec/affinity").is_some() {
                let at = doc.at.clone();
                self.refuse(
                    &at,
                    "spec.template.spec.affinity",
                    "calico-kube-controllers has an affinity; the migration refuses one (core.go)"
                        .to_owned(),
                    "remove the affinity",
                );
            }
        }
    }

    fn kube_controllers(&mut self, doc: &Doc) {
        let at = doc.at.clone();
        for var in self.env(doc, "calico-kube-controllers") {
            let value = var.value.clone().unwrap_or_default().to_ascii_lowercase();
            match var.name.as_str() {
                "ENABLED_CONTROLLERS" if value != "node" && value != "node,loadbalancer" => {
                    self.refuse(
                        &at,
                        &var.path,
                        format!(
                            "ENABLED_CONTROLLERS={value}: the migration takes node or \
                             node,loadbalancer (core.go)"
                        ),
                        "",
                    );
                }
                "AUTO_HOST_ENDPOINTS" if value != "disabled" => {
                    self.refuse(
                        &at,
                        &var.path,
                        format!(
                            "AUTO_HOST_ENDPOINTS={value}: the migration takes disabled (core.go)"
                        ),
                        "",
                    );
                }
                _ => {}
            }
        }
    }

    /// The CNI network config of `calico-config`, placeholders filled.
    fn cni(&mut self) -> Option<Cni> {
        let text = self.config_value("cni_network_config")?;
        let mtu = self
            .config_value("veth_mtu")
            .unwrap_or_else(|| "1500".to_owned());
        let filled = text.replace("__CNI_MTU__", &mtu);
        let at = self.config.map(|doc| doc.at.clone())?;
        let parsed: Value = match serde_json::from_str(&filled) {
            Ok(value) => value,
            Err(err) => {
                self.refuse(
                    &at,
                    "data.cni_network_config",
                    format!(
                        "the CNI network config is not JSON once its placeholders are filled: {err}"
                    ),
                    "",
                );
                return None;
            }
        };
        let plugins: Vec<Value> = match parsed.get("plugins").and_then(Value::as_array) {
            Some(plugins) => plugins.clone(),
            None => vec![parsed.clone()],
        };
        let calico = plugins
            .iter()
            .find(|plugin| plugin.get("type").and_then(Value::as_str) == Some("calico"))
            .cloned();
        let Some(calico) = calico else {
            self.refuse(
                &at,
                "data.cni_network_config",
                "Calico CNI without a plugin of type calico (network.go)".to_owned(),
                "",
            );
            return None;
        };
        Some(Cni {
            name: parsed
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned),
            plugins: plugins
                .iter()
                .filter_map(|plugin| {
                    plugin
                        .get("type")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .collect(),
            calico,
            at,
        })
    }

    fn cni_options(&mut self, cni: &Cni) {
        let at = cni.at.clone();
        let path = "data.cni_network_config";
        if cni.name.as_deref() != Some("k8s-pod-network") {
            self.refuse(
                &at,
                path,
                format!(
                    "the CNI network is named {}; the migration takes k8s-pod-network only \
                     (network.go)",
                    cni.name.clone().unwrap_or_default()
                ),
                "name it k8s-pod-network",
            );
        }
        let host_ports = if cni.plugins.iter().any(|p| p == "portmap") {
            "Enabled"
        } else {
            "Disabled"
        };
        self.network
            .insert("hostPorts".into(), Value::String(host_ports.into()));
        for field in ["subnet", "ipv4_pools", "ipv6_pools"] {
            if cni.calico.pointer(&format!("/ipam/{field}")).is_some()
                && cni.calico.pointer("/ipam/type").and_then(Value::as_str) == Some("calico-ipam")
            {
                self.refuse(
                    &at,
                    path,
                    format!("the calico-ipam config sets `{field}`, which the migration refuses (network.go)"),
                    "remove it; the pools are IPPools",
                );
            }
        }
        for (flag, what) in [
            ("/feature_control/floating_ips", "floating IPs"),
            ("/feature_control/ip_addrs_no_ipam", "ip_addrs_no_ipam"),
        ] {
            if cni.calico.pointer(flag).and_then(Value::as_bool) == Some(true) {
                self.refuse(
                    &at,
                    path,
                    format!(
                        "the CNI config enables {what}, which the migration refuses (network.go)"
                    ),
                    "",
                );
            }
        }
        if cni
            .calico
            .pointer("/container_settings/allow_ip_forwarding")
            .and_then(Value::as_bool)
            == Some(true)
        {
            self.network.insert(
                "containerIPForwarding".into(),
                Value::String("Enabled".into()),
            );
        }
        let mut notes = Vec::new();
        for key in [
            "log_level",
            "log_file_path",
            "policy",
            "kubernetes",
            "datastore_type",
            "nodename",
        ] {
            if cni.calico.get(key).is_some() {
                notes.push(key.to_owned());
            }
        }
        if !notes.is_empty() {
            self.report.push(
                &c::CN_IMPORT_MANIFEST_NOTE,
                Some(&at),
                path,
                format!(
                    "the calico CNI plugin's {}: the operator writes its own CNI config",
                    listed(&notes)
                ),
                "",
            );
        }
        let others: Vec<String> = cni
            .plugins
            .iter()
            .filter(|p| !matches!(p.as_str(), "calico" | "portmap" | "bandwidth"))
            .cloned()
            .collect();
        if !others.is_empty() {
            self.report.push(
                &c::CN_IMPORT_MANIFEST_NOTE,
                Some(&at),
                path,
                format!(
                    "CNI plugins {}: the operator's CNI config chains calico, bandwidth and \
                     portmap (when hostPorts is Enabled) and no others",
                    listed(&others)
                ),
                "",
            );
        }
    }

    fn mtu(&mut self, env: &[Env], cni: Option<&Cni>) {
        let at = self.node.at.clone();
        let mut current: Option<(i64, String)> = None;
        let mut sources = Vec::new();
        for var in MTU_VARS {
            self.check("calico-node", var);
            let Some(found) = env.iter().find(|e| e.name == *var) else {
                continue;
            };
            let Some(text) = found.value.clone() else {
                continue;
            };
            sources.push((*var).to_owned());
            match text.trim().parse::<i64>() {
                Ok(mtu) => match &current {
                    Some((seen, from)) if *seen != mtu => {
                        let message = format!("{var}={mtu} does not match {from}={seen} (mtu.go)");
                        self.refuse(&at, &found.path, message, "make them match or unset one");
                    }
                    _ => current = Some((mtu, (*var).to_owned())),
                },
                Err(_) => self.refuse(
                    &at,
                    &found.path,
                    format!("{var}={text} is not an integer (mtu.go)"),
                    "",
                ),
            }
        }
        if let Some(mtu) = cni
            .and_then(|cni| cni.calico.get("mtu"))
            .and_then(Value::as_i64)
        {
            match &current {
                Some((seen, from)) if *seen != mtu => {
                    let message =
                        format!("the CNI config's mtu {mtu} does not match {from}={seen} (mtu.go)");
                    self.refuse(&at, "", message, "make them match");
                }
                _ => current = Some((mtu, "veth_mtu".to_owned())),
            }
        }
        if cni.is_some_and(|cni| cni.calico.get("mtu").is_some()) {
            sources.push("CNI_MTU".to_owned());
        }
        match current {
            Some((0, _)) => self.changed(
                "",
                format!(
                    "MTU 0 ({}, from `veth_mtu: \"0\"`): calico-node detects the MTU; the \
                     ClusterNetwork leaves `mtu` unset, so the operator install detects it too",
                    listed(&sources)
                ),
            ),
            Some((mtu, _)) => {
                self.network.insert("mtu".into(), Value::from(mtu));
            }
            None => {}
        }
    }

    /// The pool calico-node creates at its first start from the variables of one family.
    fn first_start_pool(&mut self, family: &str, env: &[Env]) -> Option<Value> {
        let at = self.node.at.clone();
        let get = |suffix: &str| {
            env.iter()
                .find(|e| e.name == format!("CALICO_IPV{family}POOL_{suffix}"))
                .and_then(|e| e.value.clone())
                .filter(|v| !v.is_empty())
        };
        let cidr = match (get("CIDR"), family) {
            (Some(cidr), _) => cidr,
            (None, "4") => {
                self.changed(
                    "",
                    "CALICO_IPV4POOL_CIDR is unset: calico-node created 192.168.0.0/16 unless that \
                     overlapped an address of the node (then another free /16 of 192.168/172.16); \
                     give the cluster's IPPools when in doubt"
                        .to_owned(),
                );
                "192.168.0.0/16".to_owned()
            }
            (None, _) => {
                self.refuse(
                    &at,
                    "",
                    "IP6=autodetect without CALICO_IPV6POOL_CIDR: calico-node made up a random \
                     IPv6 ULA pool at its first start, which no manifest says"
                        .to_owned(),
                    "give the cluster's IPPools too (`kubectl get ippools.crd.projectcalico.org -o \
                     yaml`)",
                );
                return None;
            }
        };
        let block = get("BLOCK_SIZE")
            .and_then(|text| text.parse::<u32>().ok())
            .unwrap_or(if family == "4" { 26 } else { 122 });
        let mode = |value: Option<String>| match value.map(|v| v.to_ascii_lowercase()).as_deref() {
            Some("always") => "Always",
            Some("crosssubnet" | "cross-subnet") => "CrossSubnet",
            _ => "Never",
        };
        let ipip = if family == "4" {
            mode(get("IPIP"))
        } else {
            "Never"
        };
        let vxlan = mode(get("VXLAN"));
        let nat = get("NAT_OUTGOING")
            .map(|v| v.eq_ignore_ascii_case("true"))
            .unwrap_or(family == "4");
        let export = get("DISABLE_BGP_EXPORT")
            .map(|v| v.eq_ignore_ascii_case("true"))
            .unwrap_or(false);
        let mut spec = json!({
            "cidr": cidr,
            "blockSize": block,
            "ipipMode": ipip,
            "vxlanMode": vxlan,
            "natOutgoing": nat,
            "nodeSelector": get("NODE_SELECTOR").unwrap_or_else(|| "all()".to_owned()),
        });
        if export && let Some(map) = spec.as_object_mut() {
            map.insert("disableBGPExport".into(), Value::Bool(true));
        }
        let from: Vec<String> = env
            .iter()
            .filter(|e| e.name.starts_with(&format!("CALICO_IPV{family}POOL_")))
            .map(|e| e.name.clone())
            .collect();
        self.changed(
            "",
            format!(
                "IPv{family} pool `default-ipv{family}-ippool` {cidr}: computed from {} as \
                 calico-node creates it at its first start (IPIP {ipip}, VXLAN {vxlan}, block size \
                 {block}, natOutgoing {nat}); the migration reads the cluster's IPPools instead",
                if from.is_empty() {
                    "calico-node's defaults".to_owned()
                } else {
                    listed(&from)
                }
            ),
        );
        Some(json!({
            "apiVersion": "projectcalico.org/v3",
            "kind": "IPPool",
            "metadata": {"name": format!("default-ipv{family}-ippool")},
            "spec": spec,
        }))
    }

    /// `FELIX_` variables no other rule took: FelixConfiguration `default` fields.
    fn felix_vars(&mut self, env: &[Env]) {
        let at = self.node.at.clone();
        let checked = self.checked.get("calico-node").cloned().unwrap_or_default();
        let Some(spec) = self.release.index().node("FelixConfiguration", "spec") else {
            return;
        };
        let fields: Vec<(String, String, Option<String>)> = spec
            .properties()
            .map(|(name, node)| {
                (
                    name.to_owned(),
                    node.ty.clone(),
                    node.items().map(|items| items.ty.clone()),
                )
            })
            .collect();
        for var in env {
            if !var.name.starts_with("FELIX_") || checked.contains(&var.name) {
                continue;
            }
            let Some(text) = var.value.clone() else {
                continue;
            };
            let key = var.name.trim_start_matches("FELIX_").to_ascii_lowercase();
            if var.name == "FELIX_IPTABLESBACKEND" && text.eq_ignore_ascii_case("auto") {
                self.changed(
                    &var.path,
                    "FELIX_IPTABLESBACKEND=auto: left to Felix's default (auto), as the migration \
                     does (felix_vars.go)"
                        .to_owned(),
                );
                continue;
            }
            let Some((field, ty, items)) = fields
                .iter()
                .find(|(name, _, _)| name.to_ascii_lowercase() == key)
            else {
                self.refuse(
                    &at,
                    &var.path,
                    format!(
                        "{}: FelixConfiguration has no field `{key}`, and the migration refuses a \
                         Felix setting it cannot place (`unrecognized felix config setting`, \
                         {CONVERT}/felix_vars.go)",
                        var.name
                    ),
                    "remove the variable, or check its spelling against FelixConfiguration's fields",
                );
                continue;
            };
            let mut text = text;
            if var.name == "FELIX_IPTABLESREFRESHINTERVAL" && !text.ends_with('s') {
                self.changed(
                    &var.path,
                    format!("FELIX_IPTABLESREFRESHINTERVAL={text} has no unit: seconds ({text}s), as the migration reads it (felix_vars.go)"),
                );
                text.push('s');
            }
            let value = match (ty.as_str(), items.as_deref()) {
                ("boolean", _) => match text.to_ascii_lowercase().as_str() {
                    "true" | "1" | "t" => Some(Value::Bool(true)),
                    "false" | "0" | "f" => Some(Value::Bool(false)),
                    _ => None,
                },
                ("integer", _) => text.trim().parse::<i64>().ok().map(Value::from),
                ("array", Some("string")) => Some(Value::Array(
                    text.split(',')
                        .map(|s| Value::String(s.to_owned()))
                        .collect(),
                )),
                ("array", Some("object")) => proto_ports(&text),
                ("string" | "int-or-string", _) => Some(Value::String(text.clone())),
                _ => None,
            };
            match value {
                Some(value) => {
                    self.felix.insert(field.clone(), value);
                }
                None => self.refuse(
                    &at,
                    &var.path,
                    format!(
                        "{}={text}: not a value of FelixConfiguration `{field}` ({ty})",
                        var.name
                    ),
                    "",
                ),
            }
        }
    }
}

/// The CNI network config, read.
struct Cni {
    name: Option<String>,
    plugins: Vec<String>,
    calico: Value,
    at: At,
}

/// The pools the migration takes into the Installation (`selectInitialPool`): per family, the
/// first enabled pool named `default-ipv*`, else the first enabled one.
fn initial_pools(pools: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for v6 in [false, true] {
        let family: Vec<&Value> = pools
            .iter()
            .filter(|pool| pool.pointer("/spec/disabled").and_then(Value::as_bool) != Some(true))
            .filter(|pool| {
                pool.pointer("/spec/cidr")
                    .and_then(Value::as_str)
                    .is_some_and(|cidr| cidr.contains(':') == v6)
            })
            .collect();
        let named = family.iter().find(|pool| {
            pool.pointer("/metadata/name")
                .and_then(Value::as_str)
                .is_some_and(|name| name.starts_with("default-ipv"))
        });
        if let Some(pool) = named.or(family.first()) {
            out.push((*pool).clone());
        }
    }
    out
}

/// `tcp:22,udp:68` as Felix's ProtoPort list; `none` is empty.
fn proto_ports(text: &str) -> Option<Value> {
    if text == "none" {
        return Some(Value::Array(Vec::new()));
    }
    let mut out = Vec::new();
    for item in text.split(',') {
        let (protocol, port) = item.split_once(':')?;
        let port: u16 = port.parse().ok()?;
        out.push(json!({"protocol": protocol, "port": port}));
    }
    Some(Value::Array(out))
}

/// An autodetection method as the Installation says it (`getAutoDetectionMethod`).
fn autodetection(method: &str) -> Option<Value> {
    if method.is_empty() || method == "first-found" {
        return Some(json!({"firstFound": true}));
    }
    if method == "kubernetes-internal-ip" {
        return Some(json!({"kubernetes": "NodeInternalIP"}));
    }
    for (prefix, key) in [
        ("interface=", "interface"),
        ("can-reach=", "canReach"),
        ("skip-interface=", "skipInterface"),
    ] {
        if let Some(rest) = method.strip_prefix(prefix) {
            return Some(json!({ key: rest }));
        }
    }
    method
        .strip_prefix("cidr=")
        .map(|rest| json!({"cidrs": rest.split(',').collect::<Vec<_>>()}))
}

/// A calico-node first-start pool as the Installation's pool (`convertPool`).
fn operator_pool(pool: &Value) -> Option<Value> {
    let spec = pool.get("spec")?;
    let mode = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or("Never");
    let encapsulation = match (mode("ipipMode"), mode("vxlanMode")) {
        ("Never", "Never") => "None",
        ("Never", "Always") => "VXLAN",
        ("Never", "CrossSubnet") => "VXLANCrossSubnet",
        ("Always", "Never") => "IPIP",
        ("CrossSubnet", "Never") => "IPIPCrossSubnet",
        _ => return None,
    };
    let nat = if spec.get("natOutgoing").and_then(Value::as_bool) == Some(true) {
        "Enabled"
    } else {
        "Disabled"
    };
    Some(json!({
        "name": pool.pointer("/metadata/name")?,
        "cidr": spec.get("cidr")?,
        "encapsulation": encapsulation,
        "natOutgoing": nat,
        "blockSize": spec.get("blockSize").cloned().unwrap_or(Value::from(if spec.get("cidr")?.as_str()?.contains(':') { 122 } else { 26 })),
        "nodeSelector": spec.get("nodeSelector").cloned().unwrap_or(Value::String("all()".into())),
        "disableBGPExport": spec.get("disableBGPExport").and_then(Value::as_bool).unwrap_or(false),
    }))
}
