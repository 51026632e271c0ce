//! ClusterNetwork parsing: one clear error per mistake, with position, field path and hint.

use calico_spec::cluster_network::{ParseError, parse};

const BASE: &str = "apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
spec:
  podPools:
    - name: default-ipv4-ippool
      cidr: 172.20.0.0/16
";

/// Parse `text` and describe the outcome on one line per diagnostic.
fn outcome(text: &str) -> String {
    let diagnostics = match parse("cluster.yaml", text) {
        Ok(parsed) => parsed.warnings,
        Err(ParseError::Invalid { diagnostics }) => diagnostics,
        Err(other) => return format!("not yaml: {other}"),
    };
    if diagnostics.is_empty() {
        return String::from("ok");
    }
    let lines: Vec<String> = diagnostics
        .iter()
        .map(|diag| {
            let loc = diag.location.as_ref().expect("every diagnostic is located");
            format!(
                "{}:{}:{} {}[{}] {} (at {}); {}",
                loc.file,
                loc.line.unwrap_or(0),
                loc.column.unwrap_or(0),
                diag.severity,
                diag.code,
                diag.message,
                diag.path,
                diag.hint.as_deref().unwrap_or("-")
            )
        })
        .collect();
    lines.join("\n")
}

fn check(from: &str, to: &str, expected: &str) {
    assert!(BASE.contains(from), "fixture does not contain {from:?}");
    let text = BASE.replacen(from, to, 1);
    assert_eq!(outcome(&text), expected, "input:\n{text}");
}

#[test]
fn valid_minimal_input() {
    check("", "", "ok");
}

#[test]
fn unknown_fields_suggest_the_closest_name() {
    check(
        "      cidr:",
        "      blocksize: 26\n      cidr:",
        "cluster.yaml:6:7 error[CN0001] unknown field `blocksize` (at spec.podPools[0].blocksize); did you mean `blockSize`? valid here: `name`, `cidr`, `blockSize`, `encapsulation`, `natOutgoing`, `nodeSelector`, `disableBGPExport`, `allowedUses`",
    );
    check(
        "spec:\n",
        "spec:\n  dataPlane: BPF\n",
        "cluster.yaml:4:3 error[CN0001] unknown field `dataPlane` (at spec.dataPlane); did you mean `dataplane`? valid here: `calicoVersion`, `kubernetesProvider`, `apiEndpoint`, `dataplane`, `manageKubeProxy`, `bpfNetworkBootstrap`, `bgp`, `podPools`, `loadBalancerPools`, `nodeAddressAutodetection`, `network`, `calicoAPIServer`, `goldmane`, `whisker`, `apiMode`, `mtu`, `felix`, `overrides`, `extraObjects`",
    );
    check(
        "kind: ClusterNetwork",
        "kind: ClusterNetwork\nmetdata: {}",
        "cluster.yaml:3:1 error[CN0001] unknown field `metdata` (at metdata); did you mean `metadata`? valid here: `apiVersion`, `kind`, `metadata`, `spec`",
    );
}

#[test]
fn bad_values_name_the_field() {
    check(
        "172.20.0.0/16",
        "172.20.0.0/33",
        "cluster.yaml:6:13 error[CN0002] `172.20.0.0/33` has an invalid prefix length: use 0-32 (at spec.podPools[0].cidr); write an address range in CIDR notation, such as 172.20.0.0/16 or fd00:10::/56",
    );
    check(
        "172.20.0.0/16",
        "172.20.1.0/16",
        "cluster.yaml:6:13 error[CN0102] CIDR 172.20.1.0/16 has host bits set (at spec.podPools[0].cidr); write 172.20.0.0/16",
    );
    check(
        "172.20.0.0/16",
        "172.20.0.0/16\n      encapsulation: VXLANCrosSubnet",
        "cluster.yaml:7:22 error[CN0002] unknown value `VXLANCrosSubnet` (at spec.podPools[0].encapsulation); did you mean `VXLANCrossSubnet`? valid here: `IPIP`, `IPIPCrossSubnet`, `VXLAN`, `VXLANCrossSubnet`, `None`",
    );
    check(
        "spec:\n",
        "spec:\n  bgp:\n    enabled: yes\n",
        "cluster.yaml:5:14 error[CN0002] expected true or false, found string \"yes\" (at spec.bgp.enabled); write `true` or `false`; YAML 1.1 words such as `yes` and `on` are not booleans in a ClusterNetwork",
    );
    check(
        "spec:\n",
        "spec:\n  network:\n    avoid: [10.0.0.0/8, 010.1.0.0/16]\n",
        "cluster.yaml:5:25 error[CN0002] `010.1.0.0/16` is not a valid IP address (at spec.network.avoid[1]); write an address range in CIDR notation, such as 172.20.0.0/16 or fd00:10::/56",
    );
    check(
        "      cidr: 172.20.0.0/16\n",
        "",
        "cluster.yaml:5:7 error[CN0002] missing required field `cidr` (at spec.podPools[0].cidr); add `cidr:`; `calico-render schema` describes every field",
    );
}

#[test]
fn block_size_depends_on_the_family() {
    check(
        "172.20.0.0/16",
        "172.20.0.0/16\n      blockSize: 300",
        "cluster.yaml:7:18 error[CN0103] block size 300 is out of range for IPv4 pool 172.20.0.0/16 (at spec.podPools[0].blockSize); use a block size from 20 to 32 for IPv4 pools",
    );
    check(
        "172.20.0.0/16",
        "fd00::/48\n      blockSize: 26",
        "cluster.yaml:7:18 error[CN0103] block size 26 is out of range for IPv6 pool fd00::/48 (at spec.podPools[0].blockSize); use a block size from 116 to 128 for IPv6 pools",
    );
    check(
        "172.20.0.0/16",
        "172.20.0.0/28",
        "cluster.yaml:5:7 error[CN0103] block size 26 is larger than pool 172.20.0.0/28 itself (at spec.podPools[0].blockSize); use a block size of at least 28",
    );
}

#[test]
fn cross_field_rules_report_every_problem() {
    check(
        "172.20.0.0/16\n",
        "172.20.0.0/16\n      encapsulation: IPIP\n    - name: default-ipv4-ippool\n      cidr: 172.20.128.0/17\n",
        "cluster.yaml:7:22 error[CN0104] encapsulation IPIP needs BGP, but spec.bgp.enabled is false (at spec.podPools[0].encapsulation); use VXLAN or VXLANCrossSubnet, or set spec.bgp.enabled: true\n\
         cluster.yaml:8:13 error[CN0105] pool name `default-ipv4-ippool` is used twice (at spec.podPools[1].name); give every pool its own name\n\
         cluster.yaml:9:13 error[CN0105] pool 172.20.128.0/17 overlaps pool 172.20.0.0/16 (spec.podPools[0]) (at spec.podPools[1].cidr); pools must not share addresses; shrink or move one of them",
    );
    check(
        "spec:\n",
        "spec:\n  bgp:\n    peers:\n      - name: router\n        peerIP: 192.168.10.1\n        asNumber: 65001\n",
        "cluster.yaml:6:7 error[CN0107] spec.bgp.peers is set but BGP is off (at spec.bgp.peers); set spec.bgp.enabled: true, or remove the BGP settings",
    );
}

#[test]
fn bpf_network_bootstrap_needs_bpf_and_no_api_endpoint() {
    check(
        "spec:\n",
        "spec:\n  dataplane: BPF\n  bpfNetworkBootstrap: true\n",
        "ok",
    );
    check(
        "spec:\n",
        "spec:\n  bpfNetworkBootstrap: true\n",
        "cluster.yaml:4:24 error[CN0002] bpfNetworkBootstrap only works with the BPF dataplane, not Iptables (at spec.bpfNetworkBootstrap); set spec.dataplane: BPF, or remove spec.bpfNetworkBootstrap",
    );
    check(
        "spec:\n",
        "spec:\n  dataplane: BPF\n  apiEndpoint: {host: 10.0.0.10}\n  bpfNetworkBootstrap: true\n",
        "cluster.yaml:6:24 error[CN0002] bpfNetworkBootstrap and apiEndpoint exclude each other: the operator refuses to start while the kubernetes-services-endpoint ConfigMap exists (at spec.bpfNetworkBootstrap); keep apiEndpoint (a stable VIP or DNS name) or bpfNetworkBootstrap, not both",
    );
    check(
        "spec:\n",
        "spec:\n  bpfNetworkBootstrap: yes\n",
        "cluster.yaml:4:24 error[CN0002] expected true or false, found string \"yes\" (at spec.bpfNetworkBootstrap); write `true` or `false`; YAML 1.1 words such as `yes` and `on` are not booleans in a ClusterNetwork",
    );
}

#[test]
fn bgp_peer_session_settings_are_checked() {
    let bgp = "spec:\n  bgp:\n    enabled: true\n    peers:\n      - name: router\n        peerIP: 192.168.10.1\n        asNumber: 65001\n";
    check(
        "spec:\n",
        &format!(
            "{bgp}        keepaliveTime: 20s\n        maxRestartTime: 1.5m\n        nextHopMode: Self\n        password: {{name: bgp-secrets, key: router.password}}\n"
        ),
        "ok",
    );
    check(
        "spec:\n",
        &format!("{bgp}        keepaliveTime: 20\n"),
        "cluster.yaml:10:24 error[CN0002] `20` is not a duration (at spec.bgp.peers[0].keepaliveTime); write a number with a unit, such as 20s, 90s or 2m (units: ms, s, m, h)",
    );
    check(
        "spec:\n",
        &format!("{bgp}        maxRestartTime: 2 minutes\n"),
        "cluster.yaml:10:25 error[CN0002] `2 minutes` is not a duration (at spec.bgp.peers[0].maxRestartTime); write a number with a unit, such as 20s, 90s or 2m (units: ms, s, m, h)",
    );
    check(
        "spec:\n",
        &format!("{bgp}        password: {{name: Bgp_Secrets, key: \"a b\"}}\n"),
        "cluster.yaml:10:26 error[CN0109] name `Bgp_Secrets` is not a valid Kubernetes object name (at spec.bgp.peers[0].password.name); use lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit\n\
         cluster.yaml:10:44 error[CN0002] `a b` is not a Secret key (at spec.bgp.peers[0].password.key); a Secret key has letters, digits, `-`, `_` and `.` only",
    );
    check(
        "spec:\n",
        &format!("{bgp}        nextHopMode: Next\n"),
        "cluster.yaml:10:22 error[CN0002] unknown value `Next` (at spec.bgp.peers[0].nextHopMode); valid here: `Auto`, `Self`, `Keep`",
    );
}

/// The session settings reach the BGPPeer as the CRD spells them.
#[test]
fn bgp_peer_session_settings_are_rendered() {
    let text = BASE.replacen(
        "spec:\n",
        "spec:\n  bgp:\n    enabled: true\n    peers:\n      - name: router\n        peerIP: 192.168.10.1\n        asNumber: 65001\n        keepaliveTime: 20s\n        maxRestartTime: 120s\n        nextHopMode: Self\n        password: {name: bgp-secrets, key: router}\n",
        1,
    );
    let loaded = calico_spec::cluster_network::load("cluster.yaml", &text).expect("loads");
    let peer = loaded
        .objects
        .iter()
        .find(|object| object.kind() == "BGPPeer")
        .expect("a BGPPeer is rendered")
        .to_value();
    assert_eq!(
        peer["spec"],
        serde_json::json!({
            "peerIP": "192.168.10.1",
            "asNumber": 65001,
            "keepaliveTime": "20s",
            "maxRestartTime": "120s",
            "nextHopMode": "Self",
            "password": {"secretKeyRef": {"name": "bgp-secrets", "key": "router"}},
        })
    );
}

#[test]
fn lints_are_warnings() {
    check(
        "spec:\n",
        "spec:\n  felix:\n    bpfLogLevel: Debug\n",
        "cluster.yaml:5:18 warning[CN0203] spec.felix.bpfLogLevel only matters with the BPF dataplane (at spec.felix.bpfLogLevel); set spec.dataplane: BPF, or remove the setting",
    );
}

/// `load` also runs the rule catalogue over the compiled objects and reports its findings at
/// the ClusterNetwork field they came from.
#[test]
fn catalogue_findings_point_into_the_cluster_network() {
    let text = BASE.replacen(
        "spec:\n",
        "spec:\n  network:\n    avoid: [172.20.5.0/24]\n",
        1,
    );
    let loaded = calico_spec::cluster_network::load("cluster.yaml", &text).expect("loads");
    let found: Vec<String> = loaded
        .warnings
        .iter()
        .map(|diag| {
            let loc = diag.location.as_ref().expect("located");
            format!(
                "{}:{} {} {}",
                loc.line.unwrap_or(0),
                loc.column.unwrap_or(0),
                diag.code,
                diag.path
            )
        })
        .collect();
    assert_eq!(found, ["8:13 CR8001 spec.podPools[0].cidr"]);
}

#[test]
fn text_that_is_not_yaml() {
    assert_eq!(
        outcome("a: [\n"),
        "not yaml: cluster.yaml:1:4: unclosed bracket '['"
    );
    assert_eq!(
        outcome(&format!("{BASE}  bgp: [\n")),
        "not yaml: cluster.yaml:7:8: unclosed bracket '['"
    );
}

/// Positions come from the one YAML reader whatever the shape: flow collections, aliases,
/// block scalars and nested mappings are placed like plain block YAML.
#[test]
fn positions_follow_the_reader_in_every_yaml_shape() {
    check(
        "    - name: default-ipv4-ippool\n      cidr: 172.20.0.0/16\n",
        "    - {name: a, cidr: 10.0.0.1/16, blockSize: 300}\n",
        "cluster.yaml:5:23 error[CN0102] CIDR 10.0.0.1/16 has host bits set (at spec.podPools[0].cidr); write 10.0.0.0/16\n\
         cluster.yaml:5:47 error[CN0103] block size 300 is out of range for IPv4 pool 10.0.0.1/16 (at spec.podPools[0].blockSize); use a block size from 20 to 32 for IPv4 pools",
    );
    // A pool copied by an alias is shown where the alias is.
    check(
        "    - name: default-ipv4-ippool\n      cidr: 172.20.0.0/16\n",
        "    - &pool\n      name: a\n      cidr: 10.0.0.0/16\n    - *pool\n",
        "cluster.yaml:8:7 error[CN0105] pool 10.0.0.0/16 overlaps pool 10.0.0.0/16 (spec.podPools[0]) (at spec.podPools[1].cidr); pools must not share addresses; shrink or move one of them\n\
         cluster.yaml:8:7 error[CN0105] pool name `a` is used twice (at spec.podPools[1].name); give every pool its own name",
    );
    // A block scalar is shown where its text starts, and its newline is escaped so the
    // diagnostic stays on one line.
    check(
        "spec:\n",
        "spec:\n  felix:\n    bpfLogLevel: |\n      Debug\n",
        "cluster.yaml:6:7 error[CN0002] unknown value `Debug\\n` (at spec.felix.bpfLogLevel); did you mean `Debug`? valid here: `Off`, `Info`, `Debug`",
    );
    // A missing field is shown at the mapping that lacks it.
    check(
        "spec:\n",
        "spec:\n  apiEndpoint:\n    port: 6443\n",
        "cluster.yaml:5:5 error[CN0002] missing required field `host` (at spec.apiEndpoint.host); add `host:`; `calico-render schema` describes every field",
    );
}

/// The reading rules: every type problem at once, in words rather than Rust types; a
/// duplicated key; a misspelt required field is one mistake; one document per file.
#[test]
fn reading_rules() {
    check(
        "spec:\n",
        "spec:\n  bgp:\n    enabled: true\n    asNumber: 99999999999\n  mtu: 70000.5\n",
        "cluster.yaml:6:15 error[CN0002] expected an integer from 0 to 4294967295, found integer `99999999999` (at spec.bgp.asNumber); write an AS number between 1 and 2147483647\n\
         cluster.yaml:7:8 error[CN0002] expected an integer from 0 to 4294967295, found floating point `70000.5` (at spec.mtu); write an MTU between 576 and 65535, or leave it out to let Calico detect it",
    );
    check(
        "spec:\n",
        "spec:\n  dataplane: BPF\n  dataplane: Iptables\n",
        "cluster.yaml:5:3 error[CR0003] key `dataplane` appears more than once in the same mapping (line 5) (at spec.dataplane); remove one of the entries; kubectl rejects duplicated fields",
    );
    check(
        "spec:\n",
        "spc:\n",
        "cluster.yaml:3:1 error[CN0001] unknown field `spc` (at spc); did you mean `spec`? valid here: `apiVersion`, `kind`, `metadata`, `spec`",
    );
    // Plain scalars are read by the field's type: a number-like name is a name. A quoted port
    // is refused, as the JSON Schema editors check with refuses it (issue 35).
    check(
        "spec:\n",
        "spec:\n  apiEndpoint: {host: 10.0.0.10, port: \"6443\"}\n",
        "cluster.yaml:4:40 error[CN0002] expected an integer, found the quoted string \"6443\" (at spec.apiEndpoint.port); write it unquoted, `port: 6443`: the ClusterNetwork's JSON Schema, which editors check with, takes a number here, as kubeconfig and kubeadm write ports (a quoted port belongs in the endpoint ConfigMap, whose values are all strings)",
    );
    check("    - name: default-ipv4-ippool", "    - name: 123", "ok");
    check(
        "      cidr: 172.20.0.0/16\n",
        "      cidr: 172.20.0.0/16\n---\nkind: Other\n",
        "cluster.yaml:8:1 error[CN0002] more than one YAML document in a ClusterNetwork file (at ); keep one ClusterNetwork per file",
    );
    // A final `---` (as generators write) starts no second document.
    check(
        "      cidr: 172.20.0.0/16\n",
        "      cidr: 172.20.0.0/16\n---\n",
        "ok",
    );
    assert_eq!(
        outcome("# nothing here\n"),
        "not yaml: cluster.yaml:2:1: no YAML document: the input is empty or only comments"
    );
}
