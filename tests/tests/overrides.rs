//! `spec.overrides` and `spec.extraObjects`: each merge kind, conflicts, typos with their
//! position, keyed-list merge by name, the rule catalogue over merged objects, extra objects.

use calico_spec::cluster_network::{ParseError, load};
use serde_json::{Value, json};

const BASE: &str = "apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
spec:
  bgp:
    enabled: true
    asNumber: 64600
    peers:
      - name: rack-1
        peerIP: 10.0.0.1
        asNumber: 65001
  podPools:
    - name: pods-a
      cidr: 172.20.0.0/16
    - name: pods-b
      cidr: 172.21.0.0/16
  loadBalancerPools:
    - name: lb
      cidr: 10.250.0.0/24
";

/// `BASE` with `tail` appended under `spec` (indented by two spaces already).
fn with(tail: &str) -> String {
    format!("{BASE}{tail}")
}

/// The objects `load` compiles, as wire values.
fn objects(text: &str) -> Vec<Value> {
    match load("cluster.yaml", text) {
        Ok(loaded) => loaded.objects.iter().map(|o| o.to_value()).collect(),
        Err(err) => panic!("expected a valid ClusterNetwork, got {err}\n{text}"),
    }
}

fn object<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in {objects:#?}"))
}

/// The errors `load` reports, one line each: `line:column code path: message; hint`.
fn errors(text: &str) -> Vec<String> {
    let diagnostics = match load("cluster.yaml", text) {
        Ok(loaded) => panic!(
            "expected errors, got objects; warnings {:?}",
            loaded.warnings
        ),
        Err(ParseError::Invalid { diagnostics }) => diagnostics,
        Err(other) => panic!("not yaml: {other}"),
    };
    // BASE's LoadBalancer pool is not advertised (`OP0401`, a warning beside the errors these
    // tests are about); the operational checks have their own tests in `ops_checks`.
    diagnostics
        .iter()
        .filter(|diag| !diag.code.starts_with("OP"))
        .map(|diag| {
            let loc = diag.location.as_ref().expect("located");
            format!(
                "{}:{} {} {}: {}; {}",
                loc.line.unwrap_or(0),
                loc.column.unwrap_or(0),
                diag.code,
                diag.path,
                diag.message,
                diag.hint.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

/// One error per expected prefix, in order.
fn assert_starts(found: &[String], expected: &[&str]) {
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (found, expected) in found.iter().zip(expected) {
        assert!(
            found.starts_with(expected),
            "{found}\nshould start with\n{expected}"
        );
    }
}

#[test]
fn maps_merge_and_keep_what_the_vocabulary_rendered() {
    let objects = objects(&with(
        "  overrides:
    installation:
      metadata:
        labels:
          team: net
      spec:
        registry: registry.example.com/
        calicoNetwork:
          hostPorts: Disabled
",
    ));
    let installation = object(&objects, "Installation", "default");
    assert_eq!(installation["metadata"]["labels"], json!({"team": "net"}));
    assert_eq!(installation["spec"]["registry"], "registry.example.com/");
    assert_eq!(
        installation["spec"]["calicoNetwork"]["hostPorts"],
        "Disabled"
    );
    // Vocabulary fields next to the override are untouched, operator defaults still added.
    assert_eq!(installation["spec"]["calicoNetwork"]["bgp"], "Enabled");
    assert_eq!(installation["spec"]["variant"], "Calico");
}

#[test]
fn operator_defaults_follow_the_overrides() {
    // The chart's choices: what the operator would default is overridden, not added again.
    let objects = objects(&with(
        "  overrides:
    installation:
      spec:
        kubeletVolumePluginPath: None
        flexVolumePath: None
",
    ));
    let spec = &object(&objects, "Installation", "default")["spec"];
    assert_eq!(spec["kubeletVolumePluginPath"], "None");
    assert_eq!(spec["flexVolumePath"], "None");
}

#[test]
fn lists_replace_as_a_whole() {
    let objects = objects(&with(
        "  overrides:
    installation:
      spec:
        imagePullSecrets:
          - name: one
          - name: two
        controlPlaneTolerations:
          - key: dedicated
            operator: Exists
",
    ));
    let spec = &object(&objects, "Installation", "default")["spec"];
    assert_eq!(
        spec["imagePullSecrets"],
        json!([{"name": "one"}, {"name": "two"}])
    );
    assert_eq!(
        spec["controlPlaneTolerations"],
        json!([{"key": "dedicated", "operator": "Exists"}])
    );
}

#[test]
fn null_removes_a_key() {
    let objects = objects(&with(
        "  overrides:
    bgpConfiguration:
      spec:
        logSeverityScreen: null
        serviceLoadBalancerAggregation: Disabled
",
    ));
    let spec = &object(&objects, "BGPConfiguration", "default")["spec"];
    assert_eq!(spec.get("logSeverityScreen"), None, "{spec}");
    assert_eq!(spec["serviceLoadBalancerAggregation"], "Disabled");
    assert_eq!(spec["asNumber"], 64600);
}

#[test]
fn installation_pools_merge_by_name_not_position() {
    let objects = objects(&with(
        "  overrides:
    installation:
      spec:
        calicoNetwork:
          ipPools:
            - name: pods-b
              disableNewAllocations: true
",
    ));
    let pools = &object(&objects, "Installation", "default")["spec"]["calicoNetwork"]["ipPools"];
    assert_eq!(pools[0]["name"], "pods-a");
    assert_eq!(pools[0]["disableNewAllocations"], false);
    assert_eq!(pools[1]["name"], "pods-b");
    assert_eq!(pools[1]["disableNewAllocations"], true);
    assert_eq!(pools[1]["cidr"], "172.21.0.0/16");
}

#[test]
fn peers_and_pools_by_name_and_created_objects() {
    let objects = objects(&with(
        "  overrides:
    bgpPeers:
      rack-1:
        spec:
          sourceAddress: None
    ipPools:
      lb:
        spec:
          assignmentMode: Manual
    felixConfiguration:
      spec:
        prometheusMetricsEnabled: true
        prometheusMetricsPort: 9091
",
    ));
    assert_eq!(
        object(&objects, "BGPPeer", "rack-1")["spec"]["sourceAddress"],
        "None"
    );
    assert_eq!(
        object(&objects, "IPPool", "lb")["spec"]["assignmentMode"],
        "Manual"
    );
    // spec.felix is empty: the override alone renders FelixConfiguration default, in its stage.
    let felix = object(&objects, "FelixConfiguration", "default");
    assert_eq!(
        felix["spec"],
        json!({"prometheusMetricsEnabled": true, "prometheusMetricsPort": 9091})
    );
    let kinds: Vec<&str> = objects
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "Installation",
            "APIServer",
            "FelixConfiguration",
            "BGPConfiguration",
            "BGPPeer",
            "IPPool"
        ]
    );
}

#[test]
fn extra_objects_are_typed_and_land_in_their_stage() {
    let objects = objects(&with(
        "  extraObjects:
    - apiVersion: projectcalico.org/v3
      kind: FelixConfiguration
      metadata:
        name: node.worker-1
      spec:
        logSeverityScreen: Debug
    - apiVersion: projectcalico.org/v3
      kind: BGPPeer
      metadata:
        name: rack-2
      spec:
        peerIP: 10.0.0.2
        asNumber: 65002
",
    ));
    let names: Vec<String> = objects
        .iter()
        .map(|o| {
            format!(
                "{} {}",
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "Installation default",
            "APIServer default",
            "FelixConfiguration node.worker-1",
            "BGPConfiguration default",
            "BGPPeer rack-1",
            "BGPPeer rack-2",
            "IPPool lb",
        ]
    );
}

#[test]
fn a_field_the_vocabulary_sets_names_both_places() {
    assert_eq!(
        errors(&with(
            "  mtu: 1400
  overrides:
    installation:
      spec:
        calicoNetwork:
          mtu: 1450
          ipPools:
            - name: pods-a
              encapsulation: VXLAN
    bgpConfiguration:
      spec:
        asNumber: 65000
    felixConfiguration:
      spec:
        bpfEnabled: true
",
        )),
        [
            "24:11 CN0303 spec.overrides.installation.spec.calicoNetwork.mtu: `spec.overrides.installation.spec.calicoNetwork.mtu` overrides a field the ClusterNetwork sets at `spec.mtu`; one source of truth per field: set it at `spec.mtu` and remove it from `spec.overrides.installation`",
            "27:15 CN0303 spec.overrides.installation.spec.calicoNetwork.ipPools[0].encapsulation: `spec.overrides.installation.spec.calicoNetwork.ipPools[0].encapsulation` overrides a field the ClusterNetwork sets at `spec.podPools[0].encapsulation`; one source of truth per field: set it at `spec.podPools[0].encapsulation` and remove it from `spec.overrides.installation`",
            "30:9 CN0303 spec.overrides.bgpConfiguration.spec.asNumber: `spec.overrides.bgpConfiguration.spec.asNumber` overrides a field the ClusterNetwork sets at `spec.bgp.asNumber`; one source of truth per field: set it at `spec.bgp.asNumber` and remove it from `spec.overrides.bgpConfiguration`",
            "33:9 CN0303 spec.overrides.felixConfiguration.spec.bpfEnabled: `spec.overrides.felixConfiguration.spec.bpfEnabled` is written by the tigera-operator from the Installation; an override would be reverted; remove it; `spec.dataplane` and the Installation decide it",
        ]
    );
}

#[test]
fn a_vocabulary_field_left_at_its_default_still_belongs_to_the_vocabulary() {
    // `spec.mtu` is not set, so the Installation has no mtu; the override is still refused.
    let found = errors(&with(
        "  overrides:
    installation:
      spec:
        kubernetesProvider: EKS
",
    ));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].contains("CN0303") && found[0].contains("`spec.kubernetesProvider`"),
        "{found:#?}"
    );
}

#[test]
fn typos_are_found_with_did_you_mean_and_position() {
    let found = errors(&with(
        "  overrides:
    installation:
      spec:
        registyr: registry.example.com/
        calicoNetwork:
          ipPools:
            - name: pods-b
              disableNewAlocations: true
    felixConfiguration:
      spec:
        prometheusMetricsPort: \"9091\"
",
    ));
    let expected = [
        "22:9 CN0301 spec.overrides.installation.spec.registyr: unknown field `registyr`; did you mean `registry`?",
        "26:15 CN0301 spec.overrides.installation.spec.calicoNetwork.ipPools[0].disableNewAlocations: unknown field `disableNewAlocations`; did you mean `disableNewAllocations`?",
        "29:32 CN0302 spec.overrides.felixConfiguration.spec.prometheusMetricsPort: expected an integer, found string \"9091\"",
    ];
    assert_starts(&found, &expected);
}

#[test]
fn overrides_of_objects_that_are_not_rendered() {
    let found = errors(&with(
        "  calicoAPIServer: false
  overrides:
    apiServer:
      spec: {}
    endpointConfigMap:
      data:
        KUBERNETES_SERVICE_HOST_POD_NETWORK: 10.0.0.10
    bgpPeers:
      rack-l:
        spec:
          sourceAddress: None
    installation:
      spec:
        calicoNetwork:
          ipPools:
            - name: pods-c
              disableNewAllocations: true
            - disableNewAllocations: true
",
    ));
    let expected = [
        "21:5 CN0304 spec.overrides.apiServer: there is no APIServer to override",
        "23:5 CN0304 spec.overrides.endpointConfigMap: there is no endpoint ConfigMap to override",
        "27:7 CN0304 spec.overrides.bgpPeers.rack-l: no BGPPeer `rack-l` is rendered; did you mean `rack-1`?",
        "34:21 CN0304 spec.overrides.installation.spec.calicoNetwork.ipPools[0].name: `spec.podPools` has no pool `pods-c`",
        "36:15 CN0302 spec.overrides.installation.spec.calicoNetwork.ipPools[1]: a pool in the Installation override needs `name`",
    ];
    assert_starts(&found, &expected);
}

#[test]
fn merged_objects_go_through_the_rule_catalogue() {
    // disableBGPExport on a LoadBalancer pool is a catalogue lint (CR1013), and natOutgoing
    // takes true/false on a v3 IPPool: both come from the override and are reported there.
    let found = errors(&with(
        "  overrides:
    ipPools:
      lb:
        spec:
          disableBGPExport: true
          natOutgoing: Enabled
",
    ));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with(
            "24:24 CN0302 spec.overrides.ipPools.lb.spec.natOutgoing: expected a boolean"
        ),
        "{found:#?}"
    );
    // An upstream rule (the operator refuses OnDelete), reported at the override.
    let found = errors(&with(
        "  overrides:
    installation:
      spec:
        nodeUpdateStrategy:
          type: OnDelete
",
    ));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0]
            .starts_with("23:17 CR5018 spec.overrides.installation.spec.nodeUpdateStrategy.type:"),
        "{found:#?}"
    );
    // A rule of Calico's IPPool validator on the merged pool (a LoadBalancer pool must be
    // exported), reported at the override.
    let found = errors(&with(
        "  overrides:
    ipPools:
      lb:
        spec:
          disableBGPExport: true
",
    ));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("23:29 CR1013 spec.overrides.ipPools.lb.spec.disableBGPExport:"),
        "{found:#?}"
    );
}

#[test]
fn extra_objects_are_checked() {
    let found = errors(&with(
        "  extraObjects:
    - apiVersion: projectcalico.org/v3
      kind: BGPPeers
      metadata:
        name: x
    - apiVersion: projectcalico.org/v3
      kind: BGPPeer
      metadata:
        name: rack-1
      spec:
        peerIP: 10.0.0.3
    - apiVersion: projectcalico.org/v3
      kind: BGPPeer
      metadata:
        name: rack-3
      spec:
        peerIP: 10.0.0.3
        asNumbr: 65003
    - apiVersion: operator.tigera.io/v1
      kind: Installation
      metadata:
        name: second
",
    ));
    let expected = [
        "21:13 CN0305 spec.extraObjects[0].kind: `BGPPeers` cannot be an extra object; did you mean `BGPPeer`?",
        "27:15 CN0305 spec.extraObjects[1].metadata.name: BGPPeer `rack-1` is already rendered by this ClusterNetwork",
        "36:9 CN0301 spec.extraObjects[2].spec.asNumbr: unknown field `asNumbr`; did you mean `asNumber`?",
        "37:19 CN0305 spec.extraObjects[3].apiVersion: extra objects are projectcalico.org/v3 objects",
    ];
    assert_starts(&found, &expected);
}

#[test]
fn values_are_read_as_kubectl_reads_them() {
    // An unquoted number is a number, so a string field refuses it; quoted it is text.
    let found = errors(&with(
        "  overrides:
    installation:
      spec:
        registry: 1234
",
    ));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with(
            "22:19 CN0302 spec.overrides.installation.spec.registry: expected a string"
        ),
        "{found:#?}"
    );
    let objects = objects(&with(
        "  overrides:
    installation:
      spec:
        registry: \"1234\"
",
    ));
    assert_eq!(
        object(&objects, "Installation", "default")["spec"]["registry"],
        "1234"
    );
}
