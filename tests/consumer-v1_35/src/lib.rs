//! A dependent of calico-spec and calico-render on its own Kubernetes version: it names
//! k8s-openapi and ipnet only through the re-exports, loads a ClusterNetwork, builds one in
//! Rust, renders it, computes a patch and reads a live object leniently.

use calico_render::bundle::{Format, RenderConfig, Stage, render_bundle};
use calico_spec::ipnet::IpNet;
use calico_spec::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// The bundle a ClusterNetwork text renders to, or the error messages.
pub fn render(file: &str, text: &str) -> Result<String, String> {
    let loaded = calico_spec::cluster_network::load(file, text).map_err(|err| err.to_string())?;
    let config = RenderConfig {
        stage: Stage::All,
        format: Format::Yaml,
    };
    render_bundle(&config, &loaded.objects).map_err(|err| err.to_string())
}

/// Object metadata built with the re-exported k8s-openapi.
pub fn named(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        ..ObjectMeta::default()
    }
}

/// A CIDR parsed with the re-exported ipnet.
pub fn cidr(text: &str) -> Option<IpNet> {
    text.parse().ok()
}

/// The article's ClusterNetwork built in Rust and compiled with the checks `load` runs.
pub fn article_in_rust() -> Result<calico_spec::cluster_network::Loaded, String> {
    use calico_spec::cluster_network::{
        ApiEndpoint, ClusterNetwork, ClusterNetworkSpec, Dataplane, NetworkFacts, PodPool,
    };
    let cidr = |text: &str| text.parse::<IpNet>().map_err(|err| err.to_string());
    let cluster = ClusterNetwork::new(
        "ha-ebpf",
        ClusterNetworkSpec {
            api_endpoint: Some(ApiEndpoint::new("control.k8s.example.com")),
            dataplane: Dataplane::Bpf,
            pod_pools: vec![PodPool {
                disable_bgp_export: Some(true),
                ..PodPool::new("default-ipv4-ippool", cidr("172.20.0.0/16")?)
            }],
            network: NetworkFacts {
                avoid: vec![cidr("192.168.0.0/16")?],
                ..NetworkFacts::default()
            },
            ..ClusterNetworkSpec::default()
        },
    );
    cluster.compile().map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_article_renders_and_patches_on_this_kubernetes_version() {
        let text = include_str!("../../../examples/ha-ebpf/cluster.yaml");
        let bundle = render("cluster.yaml", text).expect("the article's ClusterNetwork renders");
        assert!(bundle.contains("kind: Installation"), "{bundle}");
        assert_eq!(named("default").name.as_deref(), Some("default"));
        assert_eq!(cidr("10.48.0.0/16").map(|net| net.prefix_len()), Some(16));

        let desired = serde_json::json!({
            "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
            "metadata": {"name": "default"}, "spec": {"calicoNetwork": {"mtu": 1400}},
        });
        let live = serde_json::json!({
            "apiVersion": "operator.tigera.io/v1", "kind": "Installation",
            "metadata": {"name": "default"}, "spec": {"calicoNetwork": {"mtu": 1450}},
        });
        let patch = calico_render::patch::diff_object(&desired, &live).expect("a patch");
        let ops: calico_render::json_patch::Patch =
            serde_json::from_value(patch.to_rfc6902()).expect("plain RFC 6902 reads back");
        assert_eq!(ops.0.len(), 1);

        let built = article_in_rust().expect("the article built in Rust compiles");
        let from_text = calico_spec::cluster_network::load("cluster.yaml", text).expect("loads");
        let values = |loaded: &calico_spec::cluster_network::Loaded| -> Vec<serde_json::Value> {
            loaded
                .objects
                .iter()
                .map(|object| object.to_value())
                .collect()
        };
        assert_eq!(values(&built), values(&from_text));

        use calico_spec::generated::operator_tigera_io::v1::Installation;
        let mut newer = live.clone();
        newer["spec"]["calicoNetwork"]["fieldOfANewerOperator"] = serde_json::json!(1);
        let read: calico_spec::live::Lenient<Installation> =
            serde_json::from_value(newer.clone()).expect("read leniently");
        assert_eq!(read.unknown.len(), 1);
        assert_eq!(serde_json::to_value(&read).expect("writes"), newer);
    }
}
