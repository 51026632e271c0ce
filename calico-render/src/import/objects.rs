//! The objects beside the Installation: the endpoint ConfigMap, APIServer, FelixConfiguration,
//! BGPConfiguration, BGPPeers and IPPools.
//!
//! Each goes into the vocabulary when the vocabulary can say its identity and the fields it
//! owns, with the rest in `spec.overrides`; otherwise it goes whole into `spec.extraObjects`
//! (FelixConfiguration `node.<name>`, a peer with `peerSelector`, a workload IPPool, anything
//! while BGP is off). What the operator writes itself is dropped.

use calico_spec::cluster_network::{
    self, Advertise, ApiEndpoint, BgpPeer, ClusterNetwork, DEFAULT_NAME, EndpointOverride,
    ExtraObject, Felix, LoadBalancerPool, ObjectOverride, OverrideMetadata,
    default_load_balancer_block_size,
};
use calico_spec::rules::catalogue as c;
use calico_spec::vocab::cidr::parse_cidr;
use serde_json::{Map, Value, json};

use super::read::Live;
use super::{Report, listed, metadata_override, residual, value_paths};

/// The prefix of the annotations the operator writes.
const OPERATOR_ANNOTATIONS: &str = "operator.tigera.io/";
/// The label of the IPPools the operator makes from the Installation's pools.
const MANAGED_BY: &str = "app.kubernetes.io/managed-by";

/// Read every object but the Installation into `cluster_network`; each object with the value
/// the rendering must give back.
pub(super) fn import<'a>(
    lives: &'a [Live],
    cluster_network: &mut ClusterNetwork,
    report: &mut Report,
) -> Vec<(&'a Live, Value)> {
    let mut out = Vec::new();
    let of = |kind: &'static str| lives.iter().filter(move |live| live.kind == kind);
    for live in of("ConfigMap") {
        if let Some(value) = endpoint(live, cluster_network, report) {
            out.push((live, value));
        }
    }
    let mut api_server = false;
    for live in of("APIServer") {
        api_server = true;
        set_override(
            live,
            live.value.get("spec"),
            report,
            "apiServer",
            |o| &mut o.api_server,
            cluster_network,
        );
        out.push((live, live.value.clone()));
    }
    cluster_network.spec.calico_api_server = api_server;
    // Goldmane and Whisker `default` (the v3.30+ quickstart's): the switch, and a spec the
    // switch does not say in their overrides (CN0404), as for the APIServer.
    type Slot = fn(&mut cluster_network::Overrides) -> &mut Option<ObjectOverride>;
    let observability: [(&str, &str, Slot); 2] = [
        ("Goldmane", "goldmane", |o| &mut o.goldmane),
        ("Whisker", "whisker", |o| &mut o.whisker),
    ];
    for (kind, place, slot) in observability {
        for live in of(kind) {
            set_override(
                live,
                live.value.get("spec"),
                report,
                place,
                slot,
                cluster_network,
            );
            out.push((live, live.value.clone()));
        }
    }
    cluster_network.spec.goldmane = of("Goldmane").next().is_some();
    cluster_network.spec.whisker = of("Whisker").next().is_some();
    if !api_server {
        report.push(
            &c::CN_IMPORT_ABSENT,
            None,
            "spec.calicoAPIServer",
            "the live objects hold no APIServer `default`, so the ClusterNetwork says \
             `calicoAPIServer: false`"
                .to_owned(),
            "if the cluster runs the Calico API server, add `apiserver` to the `kubectl get` \
             command and import again",
        );
    }
    for live in of("FelixConfiguration") {
        if let Some(value) = felix(live, cluster_network, report) {
            out.push((live, value));
        }
    }
    for live in of("BGPConfiguration") {
        bgp_configuration(live, cluster_network, report);
        out.push((live, live.value.clone()));
    }
    for live in of("BGPPeer") {
        bgp_peer(live, cluster_network, report);
        out.push((live, live.value.clone()));
    }
    for live in of("IPPool") {
        if ip_pool(live, cluster_network, report) {
            out.push((live, live.value.clone()));
        }
    }
    out
}

fn spec_of(value: &Value) -> Map<String, Value> {
    value
        .get("spec")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// An override of the object's labels, annotations and `spec` (when not empty); reported.
fn set_override(
    live: &Live,
    spec: Option<&Value>,
    report: &mut Report,
    place: &str,
    slot: impl FnOnce(&mut cluster_network::Overrides) -> &mut Option<ObjectOverride>,
    cluster_network: &mut ClusterNetwork,
) {
    let spec = spec
        .and_then(Value::as_object)
        .filter(|spec| !spec.is_empty())
        .cloned();
    let over = ObjectOverride {
        metadata: metadata_override(&live.value),
        spec,
    };
    report_override(live, &over, place, report);
    *slot(&mut cluster_network.spec.overrides) =
        (over != ObjectOverride::default()).then_some(over);
}

/// Report what an override of `live` keeps (CN0404), when it keeps anything.
pub(super) fn report_override(
    live: &Live,
    over: &ObjectOverride,
    place: &str,
    report: &mut Report,
) {
    let mut paths = Vec::new();
    if let Some(spec) = &over.spec {
        value_paths("spec", &Value::Object(spec.clone()), &mut paths);
    }
    metadata_paths(over.metadata.as_ref(), &mut paths);
    if !paths.is_empty() {
        report.push(
            &c::CN_IMPORT_OVERRIDE,
            Some(&live.at),
            "spec",
            format!(
                "{} `{}`: kept {} in spec.overrides.{place} (the vocabulary does not say them)",
                live.kind,
                live.name,
                listed(&paths)
            ),
            "",
        );
    }
}

/// `metadata.labels.<key>` and `metadata.annotations.<key>` of an override, for reports.
fn metadata_paths(metadata: Option<&OverrideMetadata>, out: &mut Vec<String>) {
    let Some(metadata) = metadata else {
        return;
    };
    for (key, map) in [
        ("labels", &metadata.labels),
        ("annotations", &metadata.annotations),
    ] {
        for name in map.iter().flat_map(|map| map.keys()) {
            out.push(format!("metadata.{key}.{name}"));
        }
    }
}

/// The object whole, as an extra object; reported with the reason.
fn extra(live: &Live, why: &str, cluster_network: &mut ClusterNetwork, report: &mut Report) {
    let mut metadata = live
        .value
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    metadata.remove("namespace");
    let mut spec = live.value.get("spec").and_then(Value::as_object).cloned();
    // The release's CRD defaults, which `render` writes into extra objects too.
    if let Some(spec) = spec.as_mut() {
        let defaults = crd_defaults(cluster_network, &live.kind);
        let dropped: Vec<String> = spec
            .iter()
            .filter(|(key, value)| defaults.get(*key) == Some(*value))
            .map(|(key, _)| format!("spec.{key}"))
            .collect();
        spec.retain(|key, value| defaults.get(key) != Some(value));
        if !dropped.is_empty() {
            report_crd_defaults(cluster_network, live, &dropped, report);
        }
    }
    cluster_network.spec.extra_objects.push(ExtraObject {
        api_version: "projectcalico.org/v3".to_owned(),
        kind: live.kind.clone(),
        metadata,
        spec,
    });
    report.push(
        &c::CN_IMPORT_OVERRIDE,
        Some(&live.at),
        "",
        format!(
            "{} `{}`: kept whole in spec.extraObjects ({why})",
            live.kind, live.name
        ),
        "",
    );
}

/// The spec of the object `kind`/`name` as the ClusterNetwork states it (no overrides).
fn stated_spec(cluster_network: &ClusterNetwork, kind: &str, name: &str) -> Map<String, Value> {
    let mut bare = cluster_network.clone();
    bare.spec.overrides = Default::default();
    bare.spec.extra_objects.clear();
    cluster_network::stated_objects(&bare)
        .into_iter()
        .find(|value| {
            value.get("kind") == Some(&json!(kind))
                && value.pointer("/metadata/name") == Some(&json!(name))
        })
        .map(|value| spec_of(&value))
        .unwrap_or_default()
}

/// The live spec beyond what the ClusterNetwork states, or `None` when a stated field holds
/// another value (no override can change it).
/// Top-level values equal to the `default:` of their field in the CRD are left out: for a
/// release whose rendering writes those defaults (v3.33), `render` gives them back.
fn rest(
    cluster_network: &ClusterNetwork,
    live: &Live,
    report: &mut Report,
) -> Option<Map<String, Value>> {
    let stated = stated_spec(cluster_network, &live.kind, &live.name);
    let mut conflicts = Vec::new();
    let mut rest = residual("spec", &spec_of(&live.value), &stated, &mut conflicts);
    let defaults = crd_defaults(cluster_network, &live.kind);
    let mut dropped = Vec::new();
    rest.retain(|key, value| {
        let default = defaults.get(key) == Some(value);
        if default {
            dropped.push(format!("spec.{key}"));
        }
        !default
    });
    if !dropped.is_empty() {
        report_crd_defaults(cluster_network, live, &dropped, report);
    }
    conflicts.is_empty().then_some(rest)
}

/// CN0402 for values dropped as the defaults of the release's CRD.
pub(super) fn report_crd_defaults(
    cluster_network: &ClusterNetwork,
    live: &Live,
    dropped: &[String],
    report: &mut Report,
) {
    report.push(
        &c::CN_IMPORT_OPERATOR_DEFAULT,
        Some(&live.at),
        "spec",
        format!(
            "{} `{}`: dropped {}, the defaults of Calico {}'s CRD, which the API server writes \
             (render writes them again)",
            live.kind,
            live.name,
            listed(dropped),
            cluster_network.spec.calico_version
        ),
        "",
    );
}

/// The top-level `spec` values `render` writes for `kind` from the CRD's `default:`s (none for a
/// release that does not render them), as [`calico_spec::release::fill_crd_defaults`] gives them
/// to an empty spec; the FelixConfiguration fields the operator owns are not among them.
pub(super) fn crd_defaults(cluster_network: &ClusterNetwork, kind: &str) -> Map<String, Value> {
    let Ok(release) =
        calico_spec::release::Release::for_version(&cluster_network.spec.calico_version)
    else {
        return Map::new();
    };
    if !release.renders_crd_defaults {
        return Map::new();
    }
    let mut object = json!({ "spec": {} });
    calico_spec::release::fill_crd_defaults(release, kind, &mut object, &[]);
    let mut spec = spec_of(&object);
    for field in cluster_network::OPERATOR_FELIX_FIELDS {
        if kind == "FelixConfiguration" {
            spec.remove(*field);
        }
    }
    spec
}

fn endpoint(
    live: &Live,
    cluster_network: &mut ClusterNetwork,
    report: &mut Report,
) -> Option<Value> {
    let at = &live.at;
    for key in ["binaryData", "immutable"] {
        if live.value.get(key).is_some() {
            report.push(
                &c::CN_IMPORT_INEXPRESSIBLE,
                Some(at),
                key,
                format!("the endpoint ConfigMap's `{key}` has no place in a ClusterNetwork"),
                "remove it from the live ConfigMap, or from the input",
            );
            return None;
        }
    }
    let mut data = live
        .value
        .get("data")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let host = data
        .remove("KUBERNETES_SERVICE_HOST")
        .and_then(|host| host.as_str().map(str::to_owned));
    let port_text = data
        .remove("KUBERNETES_SERVICE_PORT")
        .and_then(|port| port.as_str().map(str::to_owned));
    let port = port_text
        .as_deref()
        .and_then(|port| port.parse::<u16>().ok())
        .filter(|port| *port > 0);
    let (Some(host), Some(port)) = (host, port) else {
        report.push(
            &c::CN_IMPORT_INEXPRESSIBLE,
            Some(at),
            "data",
            format!(
                "the endpoint ConfigMap needs KUBERNETES_SERVICE_HOST and a port number in \
                 KUBERNETES_SERVICE_PORT (found {})",
                port_text.as_deref().unwrap_or("none")
            ),
            "a ClusterNetwork's `apiEndpoint` always renders both",
        );
        return None;
    };
    cluster_network.spec.api_endpoint = Some(ApiEndpoint { host, port });
    let over = EndpointOverride {
        metadata: metadata_override(&live.value),
        data: (!data.is_empty()).then_some(data),
    };
    let mut paths: Vec<String> = over
        .data
        .iter()
        .flat_map(|data| data.keys().map(|key| format!("data.{key}")))
        .collect();
    metadata_paths(over.metadata.as_ref(), &mut paths);
    if !paths.is_empty() {
        report.push(
            &c::CN_IMPORT_OVERRIDE,
            Some(at),
            "data",
            format!(
                "ConfigMap `{}`: kept {} in spec.overrides.endpointConfigMap",
                live.name,
                listed(&paths)
            ),
            "",
        );
    }
    cluster_network.spec.overrides.endpoint_config_map =
        (over != EndpointOverride::default()).then_some(over);
    Some(live.value.clone())
}

/// FelixConfiguration `default`: the vocabulary's Felix fields, the operator's own dropped,
/// the rest overridden; `node.<name>` and the others are extra objects.
fn felix(live: &Live, cluster_network: &mut ClusterNetwork, report: &mut Report) -> Option<Value> {
    if live.name != DEFAULT_NAME {
        extra(
            live,
            "the vocabulary renders FelixConfiguration `default` only",
            cluster_network,
            report,
        );
        return Some(live.value.clone());
    }
    let mut comparable = live.value.clone();
    let mut dropped = Vec::new();
    if let Some(Value::Object(spec)) = comparable.get_mut("spec") {
        for field in cluster_network::OPERATOR_FELIX_FIELDS {
            if spec.remove(*field).is_some() {
                dropped.push(format!("spec.{field}"));
            }
        }
    }
    if let Some(Value::Object(metadata)) = comparable.get_mut("metadata")
        && let Some(Value::Object(annotations)) = metadata.get_mut("annotations")
    {
        let operator: Vec<String> = annotations
            .keys()
            .filter(|key| key.starts_with(OPERATOR_ANNOTATIONS))
            .cloned()
            .collect();
        for key in operator {
            annotations.remove(&key);
            dropped.push(format!("metadata.annotations.{key}"));
        }
        if annotations.is_empty() {
            metadata.remove("annotations");
        }
    }
    if !dropped.is_empty() {
        report.push(
            &c::CN_IMPORT_OPERATOR_WRITTEN,
            Some(&live.at),
            "spec",
            format!(
                "FelixConfiguration `default`: dropped {}, which the operator writes from the \
                 Installation",
                listed(&dropped)
            ),
            "",
        );
    }
    let spec = spec_of(&comparable);
    if spec.is_empty() && metadata_override(&comparable).is_none() {
        // Only the operator's own fields: the operator makes this object, we do not.
        return None;
    }
    let names = felix_fields();
    let vocabulary: Map<String, Value> = spec
        .iter()
        .filter(|(key, _)| names.contains(key))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let Ok(chosen) = serde_json::from_value::<Felix>(Value::Object(vocabulary)) else {
        let trimmed = Live {
            value: comparable.clone(),
            ..live.clone()
        };
        extra(
            &trimmed,
            "a Felix setting of `spec.felix` has a value the vocabulary does not spell",
            cluster_network,
            report,
        );
        return Some(comparable);
    };
    cluster_network.spec.felix = chosen;
    let trimmed = Live {
        value: comparable.clone(),
        ..live.clone()
    };
    let rest = rest(cluster_network, &trimmed, report).unwrap_or(spec);
    set_override(
        &trimmed,
        Some(&Value::Object(rest)),
        report,
        "felixConfiguration",
        |o| &mut o.felix_configuration,
        cluster_network,
    );
    Some(comparable)
}

/// The wire names of the vocabulary's Felix settings, from its schema.
fn felix_fields() -> Vec<String> {
    let schema = serde_json::to_value(schemars::schema_for!(Felix)).unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// BGPConfiguration `default` with BGP on: AS number, mesh and advertisements into the
/// vocabulary, the rest overridden; otherwise an extra object.
fn bgp_configuration(live: &Live, cluster_network: &mut ClusterNetwork, report: &mut Report) {
    if live.name != DEFAULT_NAME {
        extra(
            live,
            "the vocabulary renders BGPConfiguration `default` only",
            cluster_network,
            report,
        );
        return;
    }
    if !cluster_network.spec.bgp.enabled {
        extra(
            live,
            "BGP is off in the Installation",
            cluster_network,
            report,
        );
        return;
    }
    let spec = spec_of(&live.value);
    let before = cluster_network.clone();
    let bgp = &mut cluster_network.spec.bgp;
    let mut sayable = true;
    if let Some(number) = spec.get("asNumber") {
        match number.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(number) => bgp.as_number = Some(number),
            None => sayable = false,
        }
    }
    if let Some(mesh) = spec.get("nodeToNodeMeshEnabled") {
        match mesh.as_bool() {
            Some(mesh) => bgp.node_to_node_mesh = Some(mesh),
            None => sayable = false,
        }
    }
    let mut advertise = Advertise::default();
    for (field, list) in [
        ("serviceClusterIPs", &mut advertise.service_cluster_ips),
        ("serviceExternalIPs", &mut advertise.service_external_ips),
        (
            "serviceLoadBalancerIPs",
            &mut advertise.service_load_balancer_ips,
        ),
    ] {
        for item in spec
            .get(field)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let only_cidr = item.as_object().is_some_and(|item| item.len() == 1);
            match item.get("cidr").and_then(Value::as_str).map(parse_cidr) {
                Some(Ok(cidr)) if only_cidr => list.push(cidr),
                _ => sayable = false,
            }
        }
    }
    bgp.advertise = advertise;
    let rest = if sayable {
        rest(cluster_network, live, report)
    } else {
        None
    };
    let Some(rest) = rest else {
        *cluster_network = before;
        extra(
            live,
            "its AS number, mesh switch or advertised ranges are not in the vocabulary's form",
            cluster_network,
            report,
        );
        return;
    };
    set_override(
        live,
        Some(&Value::Object(rest)),
        report,
        "bgpConfiguration",
        |o| &mut o.bgp_configuration,
        cluster_network,
    );
}

/// A BGPPeer the vocabulary can say (BGP on, a peer IP without a port, an AS number): into
/// `spec.bgp.peers`, the rest overridden by name; otherwise an extra object.
fn bgp_peer(live: &Live, cluster_network: &mut ClusterNetwork, report: &mut Report) {
    if !cluster_network.spec.bgp.enabled {
        extra(
            live,
            "BGP is off in the Installation",
            cluster_network,
            report,
        );
        return;
    }
    let spec = spec_of(&live.value);
    let names = bgp_peer_fields();
    let mut vocabulary: Map<String, Value> = spec
        .iter()
        .filter(|(key, _)| names.contains(key))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    vocabulary.insert("name".into(), json!(live.name));
    let peer = if spec.contains_key("peerSelector") {
        None
    } else {
        serde_json::from_value::<BgpPeer>(Value::Object(vocabulary)).ok()
    };
    let Some(peer) = peer else {
        extra(
            live,
            "the vocabulary's peers have a peer IP without a port and an AS number, and no \
             peerSelector",
            cluster_network,
            report,
        );
        return;
    };
    let before = cluster_network.clone();
    cluster_network.spec.bgp.peers.push(peer);
    let Some(rest) = rest(cluster_network, live, report) else {
        *cluster_network = before;
        extra(
            live,
            "a field the vocabulary writes differs",
            cluster_network,
            report,
        );
        return;
    };
    put_named_override(live, rest, "bgpPeers", cluster_network, report);
}

/// An override by object name (`bgpPeers`, `ipPools`), when it holds anything; reported.
fn put_named_override(
    live: &Live,
    rest: Map<String, Value>,
    place: &str,
    cluster_network: &mut ClusterNetwork,
    report: &mut Report,
) {
    let over = ObjectOverride {
        metadata: metadata_override(&live.value),
        spec: (!rest.is_empty()).then_some(rest),
    };
    report_override(live, &over, &format!("{place}.{}", live.name), report);
    if over != ObjectOverride::default() {
        let overrides = &mut cluster_network.spec.overrides;
        let map = if place == "bgpPeers" {
            &mut overrides.bgp_peers
        } else {
            &mut overrides.ip_pools
        };
        map.insert(live.name.clone(), over);
    }
}

/// The wire names of the vocabulary's BGP peer fields (its own `name` aside).
fn bgp_peer_fields() -> Vec<String> {
    let schema = serde_json::to_value(schemars::schema_for!(BgpPeer)).unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .keys()
                .filter(|key| *key != "name")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// An IPPool: the operator's copy of an Installation pool is dropped (false), a LoadBalancer
/// pool of the vocabulary's shape goes into `spec.loadBalancerPools`, the others are extra
/// objects.
fn ip_pool(live: &Live, cluster_network: &mut ClusterNetwork, report: &mut Report) -> bool {
    let by_operator = live.value.pointer(&format!(
        "/metadata/labels/{}",
        MANAGED_BY.replace('/', "~1")
    )) == Some(&json!("tigera-operator"));
    let pod_pool = cluster_network
        .spec
        .pod_pools
        .iter()
        .any(|pool| pool.name == live.name);
    if by_operator || pod_pool {
        report.push(
            &c::CN_IMPORT_OPERATOR_WRITTEN,
            Some(&live.at),
            "",
            format!(
                "IPPool `{}` is the operator's copy of the Installation's pool; dropped (the \
                 pool is imported from the Installation)",
                live.name
            ),
            "",
        );
        return false;
    }
    let spec = spec_of(&live.value);
    let is = |field: &str, allowed: &[Value]| spec.get(field).is_none_or(|v| allowed.contains(v));
    let load_balancer = spec.get("allowedUses") == Some(&json!(["LoadBalancer"]))
        && is("ipipMode", &[json!("Never")])
        && is("vxlanMode", &[json!("Never")])
        && is("nodeSelector", &[json!("all()")]);
    let cidr = spec
        .get("cidr")
        .and_then(Value::as_str)
        .and_then(|cidr| parse_cidr(cidr).ok());
    let (true, Some(cidr)) = (load_balancer, cidr) else {
        extra(
            live,
            "the vocabulary's IPPools are LoadBalancer pools on every node without \
             encapsulation; pod pools live in the Installation",
            cluster_network,
            report,
        );
        return true;
    };
    let block_size = spec
        .get("blockSize")
        .and_then(Value::as_u64)
        .and_then(|size| u32::try_from(size).ok())
        .filter(|size| *size != default_load_balancer_block_size(cidr));
    let before = cluster_network.clone();
    cluster_network
        .spec
        .load_balancer_pools
        .push(LoadBalancerPool {
            name: live.name.clone(),
            cidr,
            block_size,
        });
    let Some(rest) = rest(cluster_network, live, report) else {
        *cluster_network = before;
        extra(
            live,
            "a field the vocabulary writes differs",
            cluster_network,
            report,
        );
        return true;
    };
    put_named_override(live, rest, "ipPools", cluster_network, report);
    true
}
