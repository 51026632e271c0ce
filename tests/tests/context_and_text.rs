//! What real users trip on beyond single fields (issue 13, item 3): a YAML tag where text was
//! meant, the kubeadm ConfigMap as a context document (and `network.podCIDRs` in a
//! ClusterNetwork), and pool CIDRs that Calico stores in another form.

use calico_spec::cluster_network::{self, ParseError};
use calico_spec::diag::{Diagnostic, Severity};
use calico_spec::rules::{self, Context, SourceText};
use calico_spec::source::Limits;

fn validate(yaml: &str) -> Vec<Diagnostic> {
    let texts = [SourceText {
        name: "in.yaml",
        text: yaml,
    }];
    rules::validate_texts(&texts, &Context::assumed(), &Limits::MANIFESTS)
        .unwrap_or_else(|err| panic!("test input is YAML: {err}\n{yaml}"))
        .diagnostics
}

/// (code, path) of every diagnostic.
fn found(diagnostics: &[Diagnostic]) -> Vec<(&'static str, String)> {
    diagnostics
        .iter()
        .map(|diag| (diag.code, diag.path.clone()))
        .collect()
}

fn pool(name: &str, spec: &str) -> String {
    format!(
        "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: {name}\nspec:\n{spec}"
    )
}

// ---------------------------------------------------------------------------------------------
// YAML tags

#[test]
fn a_tag_where_a_selector_was_meant_is_reported_with_the_quoted_form() {
    let diags = validate(&pool(
        "p",
        "  cidr: 172.20.0.0/16\n  nodeSelector: !all()\n",
    ));
    assert_eq!(found(&diags), [("CR0010", "spec.nodeSelector".to_owned())]);
    let diag = &diags[0];
    assert_eq!(diag.severity, Severity::Warning);
    assert!(diag.message.contains("`!all()`"), "{}", diag.message);
    assert_eq!(
        diag.hint.as_deref(),
        Some("quote it to mean the text: '!all()'")
    );
    // Shown where the (empty) value starts, just after the tag.
    let location = diag.location.as_ref().unwrap();
    assert_eq!((location.line, location.column), (Some(7), Some(23)));
}

#[test]
fn a_tag_keeps_the_rest_as_a_string_as_kubectl_does() {
    // `!x 179` is the string "179" for kubectl, so the integer field refuses it, and the tag
    // is reported too.
    let peer = "apiVersion: projectcalico.org/v3\nkind: BGPPeer\nmetadata:\n  name: p\nspec:\n  peerIP: 10.0.0.1\n  asNumber: !x 64512\n";
    let codes: Vec<_> = found(&validate(peer))
        .into_iter()
        .map(|(code, _)| code)
        .collect();
    assert!(codes.contains(&"CR0010"), "{codes:?}");
    assert!(codes.contains(&"CR0002"), "{codes:?}");
    // Quoted, or with a core tag, nothing is reported.
    assert!(
        validate(&pool(
            "p",
            "  cidr: 172.20.0.0/16\n  nodeSelector: '!all()'\n"
        ))
        .iter()
        .all(|d| d.code != "CR0010")
    );
    assert!(validate(&pool("p", "  cidr: !!str 172.20.0.0/16\n")).is_empty());
}

const CLUSTER_NETWORK: &str = "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: c\nspec:\n  podPools:\n    - name: default-ipv4-ippool\n      cidr: 10.244.0.0/16\n";

#[test]
fn a_tag_in_a_cluster_network_is_refused() {
    let text = CLUSTER_NETWORK.replace(
        "      cidr: 10.244.0.0/16\n",
        "      cidr: 10.244.0.0/16\n      nodeSelector: !all()\n",
    );
    let Err(ParseError::Invalid { diagnostics }) = cluster_network::load("c.yaml", &text) else {
        panic!("a tagged value must be refused");
    };
    let tag = diagnostics
        .iter()
        .find(|diag| diag.code == "CN0003")
        .unwrap_or_else(|| panic!("{diagnostics:?}"));
    assert_eq!(tag.path, "spec.podPools[0].nodeSelector");
    assert_eq!(tag.severity, Severity::Error);
    assert_eq!(
        tag.hint.as_deref(),
        Some("quote it to mean the text: '!all()'")
    );
    assert_eq!(tag.location.as_ref().unwrap().line, Some(9));
}

// ---------------------------------------------------------------------------------------------
// The kubeadm ConfigMap

fn kubeadm(networking: &str) -> String {
    let mut out = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubeadm-config\n  namespace: kube-system\ndata:\n  ClusterConfiguration: |\n    apiVersion: kubeadm.k8s.io/v1beta4\n    kind: ClusterConfiguration\n    networking:\n      dnsDomain: cluster.local\n",
    );
    for line in networking.lines() {
        out.push_str("      ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn installation(pools: &str) -> String {
    let mut out = String::from(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  calicoNetwork:\n",
    );
    out.push_str(pools);
    out
}

const POOL_10_244: &str =
    "    ipPools:\n      - name: p\n        cidr: 10.244.0.0/16\n        encapsulation: VXLAN\n";

#[test]
fn pools_must_lie_inside_kubeadms_pod_subnet() {
    let subnet = kubeadm("podSubnet: 10.244.0.0/16\nserviceSubnet: 10.96.0.0/12");
    let inside = format!("{subnet}---\n{}", installation(POOL_10_244));
    assert_eq!(found(&validate(&inside)), []);
    // A smaller pool inside the subnet is fine; the operator checks the network address and
    // the prefix.
    let smaller = POOL_10_244.replace("10.244.0.0/16", "10.244.128.0/17");
    assert_eq!(
        found(&validate(&format!(
            "{subnet}---\n{}",
            installation(&smaller)
        ))),
        []
    );
    for outside in ["10.245.0.0/16", "10.0.0.0/8", "fd00::/48"] {
        let pools = POOL_10_244.replace("10.244.0.0/16", outside);
        let diags = validate(&format!("{subnet}---\n{}", installation(&pools)));
        let codes = found(&diags);
        assert!(
            codes.contains(&("CR5020", "spec.calicoNetwork.ipPools[0].cidr".to_owned())),
            "{outside}: {codes:?}"
        );
        let diag = diags.iter().find(|d| d.code == "CR5020").unwrap();
        assert_eq!(diag.severity, Severity::Error);
        assert!(diag.message.contains("10.244.0.0/16"), "{}", diag.message);
        // Located in the Installation's document.
        assert_eq!(diag.location.as_ref().unwrap().document, 1);
    }
    // Without the ConfigMap nothing is known, nothing is reported.
    let pools = POOL_10_244.replace("10.244.0.0/16", "10.245.0.0/16");
    assert!(
        validate(&installation(&pools))
            .iter()
            .all(|d| d.code != "CR5020")
    );
    // Dual stack: one subnet per family, comma-separated (the IPv6 pool NATs like the IPv4
    // one, or its unique local addresses get no way out: `OP0102`).
    let dual = kubeadm("podSubnet: 10.244.0.0/16,fd00:10:244::/56");
    let pools = format!(
        "{POOL_10_244}      - name: p6\n        cidr: fd00:10:244::/64\n        encapsulation: None\n        natOutgoing: Enabled\n"
    );
    assert_eq!(
        found(&validate(&format!("{dual}---\n{}", installation(&pools)))),
        []
    );
}

#[test]
fn the_rule_follows_the_operators_conditions() {
    let subnet = kubeadm("podSubnet: 10.244.0.0/16");
    let pools = POOL_10_244.replace("10.244.0.0/16", "10.245.0.0/16");
    // On OpenShift the operator reads OpenShift's network config instead.
    let openshift =
        installation(&pools).replace("spec:\n", "spec:\n  kubernetesProvider: OpenShift\n");
    assert!(
        validate(&format!("{subnet}---\n{openshift}"))
            .iter()
            .all(|d| d.code != "CR5020")
    );
    // An empty pool list is left alone.
    let empty = installation("    ipPools: []\n");
    assert!(
        validate(&format!("{subnet}---\n{empty}"))
            .iter()
            .all(|d| d.code != "CR5020")
    );
}

#[test]
fn without_pools_the_operator_makes_them_from_the_pod_subnet() {
    // No ipPools: the operator's pools come from podSubnet, so there is no 192.168.0.0/16
    // default (CR8002), and those pools are checked like written ones: here against the
    // Service range kubeadm declares.
    let subnet = kubeadm("podSubnet: 10.96.0.0/16\nserviceSubnet: 10.96.0.0/12");
    let bare = "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec: {}\n";
    let codes: Vec<_> = found(&validate(&format!("{subnet}---\n{bare}")))
        .into_iter()
        .map(|(code, _)| code)
        .collect();
    assert_eq!(codes, ["CR8003"]);
    // Without the ConfigMap: the operator's 192.168.0.0/16.
    let codes: Vec<_> = found(&validate(bare))
        .into_iter()
        .map(|(code, _)| code)
        .collect();
    assert!(codes.contains(&"CR8002"), "{codes:?}");
}

#[test]
fn a_pod_subnet_the_operator_cannot_read_is_an_error() {
    for networking in [
        "serviceSubnet: 10.96.0.0/12",
        "podSubnet: 10.244.0.0/16, fd00::/56",
        "podSubnet: \"10.244.0.0/16\"",
    ] {
        let diags = validate(&kubeadm(networking));
        assert_eq!(
            found(&diags)
                .iter()
                .map(|(code, _)| *code)
                .collect::<Vec<_>>(),
            ["CR5021"],
            "{networking}"
        );
    }
}

#[test]
fn kubeadms_service_subnet_replaces_the_assumed_one() {
    // 10.96.0.0/12 is assumed; kubeadm says the Services are elsewhere.
    let subnet = kubeadm("podSubnet: 10.96.0.0/16\nserviceSubnet: 10.100.0.0/16");
    let pools = POOL_10_244.replace("10.244.0.0/16", "10.96.0.0/16");
    assert_eq!(
        found(&validate(&format!("{subnet}---\n{}", installation(&pools)))),
        []
    );
    let pools = POOL_10_244.replace("10.244.0.0/16", "10.100.0.0/16");
    let codes: Vec<_> = found(&validate(&format!("{subnet}---\n{}", installation(&pools))))
        .into_iter()
        .map(|(code, _)| code)
        .collect();
    assert_eq!(codes, ["CR5020", "CR8003"]);
}

#[test]
fn cluster_network_pod_cidrs_give_the_same_rule() {
    let text = format!("{CLUSTER_NETWORK}  network:\n    podCIDRs:\n      - 10.245.0.0/16\n");
    let Err(ParseError::Invalid { diagnostics }) = cluster_network::load("c.yaml", &text) else {
        panic!("a pool outside podCIDRs must be refused");
    };
    assert_eq!(
        found(&diagnostics),
        [("CR5020", "spec.podPools[0].cidr".to_owned())]
    );
    let inside = format!("{CLUSTER_NETWORK}  network:\n    podCIDRs:\n      - 10.244.0.0/16\n");
    cluster_network::load("c.yaml", &inside).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Text Calico stores in another form

#[test]
fn non_canonical_pool_cidrs_warn_with_the_stored_form() {
    for (written, stored) in [
        ("2001:db8::00/64", "2001:db8::/64"),
        ("2001:DB8::/64", "2001:db8::/64"),
        ("2001:0db8:0000::/64", "2001:db8::/64"),
        ("172.20.0.0/016", "172.20.0.0/16"),
    ] {
        let diags = validate(&pool("p", &format!("  cidr: {written}\n")));
        assert_eq!(
            found(&diags),
            [("CR1019", "spec.cidr".to_owned())],
            "{written}"
        );
        assert_eq!(diags[0].severity, Severity::Warning);
        assert_eq!(
            diags[0].hint.as_deref(),
            Some(format!("write `{stored}`").as_str())
        );
    }
    assert_eq!(found(&validate(&pool("p", "  cidr: 2001:db8::/64\n"))), []);
    // In an Installation too: the operator creates the IPPool with the text as written.
    let pools = POOL_10_244
        .replace("10.244.0.0/16", "fd00:0::/48")
        .replace("VXLAN", "None");
    // The operator matches its IPPool by that text, too: the operational error OP0106.
    assert_eq!(
        found(&validate(&installation(&pools))),
        [
            ("CR1019", "spec.calicoNetwork.ipPools[0].cidr".to_owned()),
            ("OP0106", "spec.calicoNetwork.ipPools[0].cidr".to_owned())
        ]
    );
}
