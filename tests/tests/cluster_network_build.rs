//! A ClusterNetwork built in Rust: the documented defaults in one place (serde, the JSON
//! Schema and what compile writes agree), `ClusterNetwork::compile` with the guarantee `load`
//! gives text, and the round trip value -> YAML -> `load` -> the same value.

use std::path::{Path, PathBuf};

use calico_render::yaml;
use calico_spec::cluster_network::{
    self, Advertise, ApiEndpoint, AutodetectionMethod, Bgp, BgpPeer, BpfExternalServiceMode,
    ClusterNetwork, ClusterNetworkSpec, Dataplane, Encapsulation, Felix, KubernetesProvider,
    LoadBalancerPool, LogSeverity, NetworkFacts, NextHopMode, NodeAddressAutodetection, PodPool,
    PodPoolUse, SecretKeyRef,
};
use calico_spec::objects::Object;
use serde_json::{Value, json};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_example(name: &str) -> String {
    let path = workspace_root().join(format!("examples/{name}/cluster.yaml"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn as_values(objects: &[Object]) -> Vec<Value> {
    objects.iter().map(Object::to_value).collect()
}

/// The article's cluster (examples/ha-ebpf/cluster.yaml) in Rust, with the API as it is.
fn article() -> ClusterNetwork {
    ClusterNetwork::new(
        "ha-ebpf",
        ClusterNetworkSpec {
            api_endpoint: Some(ApiEndpoint::new("control.k8s.example.com")),
            dataplane: Dataplane::Bpf,
            pod_pools: vec![PodPool {
                disable_bgp_export: Some(true),
                ..PodPool::new("default-ipv4-ippool", "172.20.0.0/16".parse().unwrap())
            }],
            network: NetworkFacts {
                avoid: vec!["192.168.0.0/16".parse().unwrap()],
                ..NetworkFacts::default()
            },
            ..ClusterNetworkSpec::default()
        },
    )
}

/// The same cluster as a tool had to write it before `Default` and the constructors: every
/// field spelt out (the figure "lines of Rust for the article" compares the two).
fn article_as_a_full_struct_literal() -> ClusterNetwork {
    ClusterNetwork {
        api_version: cluster_network::ApiVersion::V1alpha1,
        kind: cluster_network::Kind::ClusterNetwork,
        metadata: cluster_network::Metadata {
            name: Some("ha-ebpf".to_owned()),
            ..Default::default()
        },
        spec: ClusterNetworkSpec {
            calico_version: "v3.32.1".to_owned(),
            kubernetes_provider: KubernetesProvider::None,
            api_endpoint: Some(ApiEndpoint {
                host: "control.k8s.example.com".to_owned(),
                port: 6443,
            }),
            dataplane: Dataplane::Bpf,
            manage_kube_proxy: false,
            bpf_network_bootstrap: false,
            bgp: Bgp::default(),
            pod_pools: vec![PodPool {
                name: "default-ipv4-ippool".to_owned(),
                cidr: "172.20.0.0/16".parse().unwrap(),
                block_size: None,
                encapsulation: None,
                nat_outgoing: None,
                node_selector: None,
                disable_bgp_export: Some(true),
                allowed_uses: None,
            }],
            load_balancer_pools: Vec::new(),
            node_address_autodetection: NodeAddressAutodetection::default(),
            network: NetworkFacts {
                avoid: vec!["192.168.0.0/16".parse().unwrap()],
                ..Default::default()
            },
            calico_api_server: true,
            goldmane: false,
            whisker: false,
            api_mode: None,
            mtu: None,
            felix: Felix::default(),
            overrides: Default::default(),
            extra_objects: Vec::new(),
        },
    }
}

/// A value with every section set, so the round trip covers every field's writer.
fn everything() -> ClusterNetwork {
    let mut cluster = ClusterNetwork::new(
        "everything",
        ClusterNetworkSpec {
            // Not RKE2: its kube-proxy is a static pod, so `manage_kube_proxy` would leave the
            // operator Degraded (OP0504).
            kubernetes_provider: KubernetesProvider::Tkg,
            api_endpoint: Some(ApiEndpoint {
                port: 443,
                ..ApiEndpoint::new("10.0.0.10")
            }),
            dataplane: Dataplane::Bpf,
            manage_kube_proxy: true,
            bgp: Bgp {
                enabled: true,
                as_number: Some(64_513),
                node_to_node_mesh: Some(false),
                peers: vec![BgpPeer {
                    node_selector: Some("rack == 'a'".to_owned()),
                    password: Some(SecretKeyRef::new("bgp-secrets", "router")),
                    keepalive_time: Some("20s".to_owned()),
                    max_restart_time: Some("120s".to_owned()),
                    next_hop_mode: Some(NextHopMode::SelfAddress),
                    ..BgpPeer::new("router", "192.168.10.1".parse().unwrap(), 65_000)
                }],
                advertise: Advertise {
                    service_cluster_ips: vec!["10.96.0.0/12".parse().unwrap()],
                    service_load_balancer_ips: vec!["192.168.50.0/24".parse().unwrap()],
                    ..Advertise::default()
                },
                api_vip: None,
            },
            pod_pools: vec![
                PodPool {
                    block_size: Some(24),
                    encapsulation: Some(Encapsulation::IpipCrossSubnet),
                    nat_outgoing: Some(false),
                    node_selector: Some("all()".to_owned()),
                    disable_bgp_export: Some(false),
                    allowed_uses: Some(vec![PodPoolUse::Workload]),
                    ..PodPool::new("pods-v4", "172.20.0.0/16".parse().unwrap())
                },
                PodPool::new("pods-v6", "fd00:10:20::/56".parse().unwrap()),
            ],
            load_balancer_pools: vec![LoadBalancerPool::new(
                "loadbalancer-ipv4",
                "192.168.50.0/24".parse().unwrap(),
            )],
            node_address_autodetection: NodeAddressAutodetection {
                ipv4: Some(AutodetectionMethod {
                    cidrs: Some(vec!["10.0.0.0/16".parse().unwrap()]),
                    ..AutodetectionMethod::default()
                }),
                ipv6: Some(AutodetectionMethod {
                    first_found: Some(true),
                    ..AutodetectionMethod::default()
                }),
            },
            network: NetworkFacts {
                node_subnets: vec!["10.0.0.0/16".parse().unwrap()],
                service_cidrs: vec!["10.96.0.0/12".parse().unwrap()],
                avoid: vec!["192.168.0.0/24".parse().unwrap()],
                pod_cidrs: Vec::new(),
            },
            calico_api_server: false,
            goldmane: true,
            whisker: true,
            api_mode: Some(cluster_network::ApiMode::NativeV3),
            mtu: Some(1400),
            felix: Felix {
                bpf_external_service_mode: Some(BpfExternalServiceMode::Dsr),
                log_severity_screen: Some(LogSeverity::Warning),
                ..Felix::default()
            },
            ..ClusterNetworkSpec::default()
        },
    );
    cluster
        .metadata
        .labels
        .insert("team".to_owned(), "net".to_owned());
    cluster
}

/// Write `cluster` as calico-render writes YAML, read it back with `load`.
fn round_trip(cluster: &ClusterNetwork) -> ClusterNetwork {
    let text = yaml::to_yaml(cluster).expect("a ClusterNetwork writes as YAML");
    match cluster_network::load("written.yaml", &text) {
        Ok(loaded) => loaded.cluster_network,
        Err(err) => panic!("the written file does not load: {err}\n{text}"),
    }
}

#[test]
fn the_article_in_rust_compiles_to_the_article_yaml_objects() {
    let from_text =
        cluster_network::load("cluster.yaml", &read_example("ha-ebpf")).expect("the article loads");
    let from_rust = article().compile().expect("the article compiles");
    assert_eq!(as_values(&from_rust.objects), as_values(&from_text.objects));
    assert_eq!(from_rust.warnings.len(), from_text.warnings.len());
    assert_eq!(article(), article_as_a_full_struct_literal());
}

#[test]
fn values_round_trip_through_yaml_and_load() {
    for cluster in [article(), everything()] {
        assert_eq!(round_trip(&cluster), cluster);
        cluster.compile().expect("a valid value compiles");
    }
    for name in [
        "bgp-loadbalancer",
        "dual-stack",
        "ebpf-self-managed",
        "ha-ebpf",
        "iptables-ipip",
    ] {
        let loaded = cluster_network::load("cluster.yaml", &read_example(name))
            .unwrap_or_else(|err| panic!("examples/{name}: {err}"));
        let cluster = loaded.cluster_network;
        assert_eq!(round_trip(&cluster), cluster, "examples/{name}");
        let again = cluster.compile().expect("a loaded value compiles");
        assert_eq!(
            as_values(&again.objects),
            as_values(&loaded.objects),
            "examples/{name}"
        );
    }
}

#[test]
fn defaults_are_one_set_for_rust_serde_and_the_schema() {
    // serde's defaults are Default's: a spec with only the required field reads as Default.
    let read: ClusterNetworkSpec =
        serde_json::from_value(json!({"podPools": []})).expect("a spec with no pool reads");
    assert_eq!(read, ClusterNetworkSpec::default());

    // Every default the schema shows is the value Default writes, or (for a pool's optional
    // fields) the value compile writes when the field is left out.
    let schema: Value = serde_json::from_str(&calico_render::schema::cluster_network_schema())
        .expect("the schema is JSON");
    let defaults_of = |definition: &str| -> Vec<(String, Value)> {
        let properties = schema["definitions"][definition]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("definition {definition} has properties"));
        properties
            .iter()
            .filter_map(|(key, property)| Some((key.clone(), property.get("default")?.clone())))
            .collect()
    };
    let spec = serde_json::to_value(ClusterNetworkSpec::default()).expect("spec writes");
    let spec_defaults = defaults_of("ClusterNetworkSpec");
    assert_eq!(spec_defaults.len(), 6, "{spec_defaults:?}");
    for (key, default) in spec_defaults {
        assert_eq!(spec[&key], default, "spec.{key}");
    }
    let endpoint = serde_json::to_value(ApiEndpoint::new("h")).expect("endpoint writes");
    assert_eq!(
        defaults_of("ApiEndpoint"),
        [("port".to_owned(), json!(6443))]
    );
    assert_eq!(endpoint["port"], json!(6443));

    let compiled = ClusterNetwork::new(
        "defaults",
        ClusterNetworkSpec {
            pod_pools: vec![PodPool::new("p", "10.48.0.0/16".parse().unwrap())],
            ..ClusterNetworkSpec::default()
        },
    )
    .compile()
    .expect("the defaults compile");
    let installation = compiled
        .objects
        .iter()
        .map(Object::to_value)
        .find(|object| object["kind"] == "Installation")
        .expect("an Installation");
    let pool = &installation["spec"]["calicoNetwork"]["ipPools"][0];
    let pool_defaults = defaults_of("PodPool");
    assert_eq!(pool_defaults.len(), 4, "{pool_defaults:?}");
    for (key, default) in pool_defaults {
        assert_eq!(pool[&key], default, "podPools[0].{key}");
    }
    assert_eq!(
        installation["spec"]["calicoNetwork"]["linuxDataplane"],
        spec["dataplane"]
    );
    assert!(
        compiled
            .objects
            .iter()
            .any(|object| matches!(object, Object::APIServer(_))),
        "calicoAPIServer defaults to true"
    );
}

/// What `load` says about the same value written as text: codes and paths.
fn findings_of_text(cluster: &ClusterNetwork) -> Vec<(&'static str, String)> {
    let text = yaml::to_yaml(cluster).expect("writes");
    match cluster_network::load("cluster.yaml", &text) {
        Ok(_) => panic!("the text loads:\n{text}"),
        Err(cluster_network::ParseError::Invalid { diagnostics }) => diagnostics
            .into_iter()
            .map(|diag| (diag.code, diag.path))
            .collect(),
        Err(other) => panic!("not a diagnostic: {other}"),
    }
}

#[test]
fn compile_refuses_every_value_load_refuses_with_the_same_findings() {
    let with_pool = |pool: PodPool, bgp: bool| {
        ClusterNetwork::new(
            "bad",
            ClusterNetworkSpec {
                bgp: Bgp {
                    enabled: bgp,
                    ..Bgp::default()
                },
                pod_pools: vec![pool],
                ..ClusterNetworkSpec::default()
            },
        )
    };
    let pool = || PodPool::new("p", "10.48.0.0/16".parse().unwrap());
    let cases = [
        // The two the issue names: a block size out of range, IPIP without BGP.
        with_pool(
            PodPool {
                block_size: Some(40),
                ..pool()
            },
            false,
        ),
        with_pool(
            PodPool {
                encapsulation: Some(Encapsulation::Ipip),
                ..pool()
            },
            false,
        ),
        // ipnet keeps host bits; the text reader refuses them, and so does compile.
        with_pool(PodPool::new("p", "10.48.1.0/16".parse().unwrap()), true),
        // No pod pool (Default has none: one is required).
        ClusterNetwork::default(),
    ];
    for cluster in cases {
        let Err(cluster_network::ParseError::Invalid { diagnostics }) = cluster.compile() else {
            panic!("compiled: {cluster:?}");
        };
        assert!(
            diagnostics.iter().all(|diag| diag.location.is_none()),
            "a value has no positions: {diagnostics:?}"
        );
        let found: Vec<(&str, String)> = diagnostics
            .into_iter()
            .map(|diag| (diag.code, diag.path))
            .collect();
        assert!(!found.is_empty());
        assert_eq!(found, findings_of_text(&cluster), "{cluster:?}");
    }
}
