//! The rendered router config proven with real routing daemons: FRR (zebra, bgpd, bfdd) as the
//! router, BIRD 2 as the nodes, in network namespaces this test creates and deletes, joined by
//! veth pairs and a bridge, with addresses that exist only inside them.
//!
//! Each scenario renders the router of a ClusterNetwork (`calico-render router`), loads it into
//! a running FRR with `vtysh -f`, diffs `show running-config` against the rendered text (FRR can
//! normalise silently), starts one BIRD per node announcing what Calico would announce for that
//! spec plus what the router must refuse (a pod block, a default route, an unrelated prefix),
//! and asserts from FRR's JSON and the router namespace's kernel routes. Broken variants edit
//! the rendered text (or the spec) the way the cross-checks describe, and each must fail the way
//! its check (`validate --router`, the RT codes) says.
//!
//! Needs root, `ip`, FRR 8.4 (`/usr/lib/frr/{zebra,bgpd,bfdd}`, `vtysh`) and BIRD 2 (`bird`).
//! Without them the test says it is skipped; `CALICO_RENDER_E2E=required` makes that a failure.
//! Daemons are stopped by PID and the namespaces deleted on every exit path (`Lab`'s `Drop`).

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use calico_render::router as frr;
use calico_render_tests::{run_calico_render, say_skipped, workspace_root};
use calico_spec::cluster_network;
use calico_spec::ipnet::IpNet;
use calico_spec::router::{self, ClusterSide, Family};

const FRR_DIR: &str = "/usr/lib/frr";

fn missing_tools() -> Option<String> {
    let is_root = std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"))
    });
    if !is_root {
        return Some("not root (network namespaces need it)".to_owned());
    }
    for tool in ["zebra", "bgpd", "bfdd"] {
        if !Path::new(FRR_DIR).join(tool).is_file() {
            return Some(format!("{FRR_DIR}/{tool} missing (apt-get install frr)"));
        }
    }
    for tool in ["vtysh", "bird", "ip"] {
        if Command::new(tool).arg("--version").output().is_err() {
            return Some(format!(
                "`{tool}` missing (apt-get install frr bird2 iproute2)"
            ));
        }
    }
    None
}

fn sh(args: &[&str]) -> String {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .unwrap_or_else(|err| panic!("{args:?}: {err}"));
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The namespaces and daemons of one scenario; dropping it stops every daemon by PID and deletes
/// the namespaces, whatever happened before.
struct Lab {
    prefix: String,
    namespaces: Vec<String>,
    pids: Vec<u32>,
    dir: tempfile::TempDir,
}

impl Lab {
    fn new(tag: usize) -> Lab {
        let dir = tempfile::tempdir().expect("tempdir");
        sh(&["chmod", "755", &dir.path().to_string_lossy()]);
        Lab {
            prefix: format!("crt{}-{tag}", std::process::id() % 100_000),
            namespaces: Vec::new(),
            pids: Vec::new(),
            dir,
        }
    }

    fn ns(&mut self, name: &str) -> String {
        let ns = format!("{}-{name}", self.prefix);
        sh(&["ip", "netns", "add", &ns]);
        self.namespaces.push(ns.clone());
        sh(&["ip", "-n", &ns, "link", "set", "lo", "up"]);
        ns
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Run a daemon that writes a pid file, and remember its PID.
    fn daemon(&mut self, ns: &str, args: &[&str], pid_file: &Path) {
        let mut command = vec!["ip", "netns", "exec", ns];
        command.extend_from_slice(args);
        sh(&command);
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(pid) = std::fs::read_to_string(pid_file)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok())
            {
                self.pids.push(pid);
                return;
            }
            assert!(Instant::now() < deadline, "{args:?} wrote no pid file");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn vtysh(&self, ns: &str, command: &str) -> String {
        let run = self.path("run");
        let out = Command::new("ip")
            .args(["netns", "exec", ns, "vtysh", "--vty_socket"])
            .arg(&run)
            .args(["-c", command])
            .output()
            .expect("vtysh runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn json(&self, ns: &str, command: &str) -> serde_json::Value {
        serde_json::from_str(&self.vtysh(ns, command)).unwrap_or(serde_json::Value::Null)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for pid in &self.pids {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .output();
        }
        // Anything else still running in our namespaces was started by this lab.
        for ns in &self.namespaces {
            if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
                for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                    let _ = Command::new("kill").args(["-KILL", pid]).output();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
        for ns in &self.namespaces {
            let _ = Command::new("ip").args(["netns", "del", ns]).output();
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Node {
    /// As Calico: what the spec announces.
    Calico,
    /// Announces nothing inside the LoadBalancer ranges (a pool with `disableBGPExport: true`:
    /// confd's export filter rejects the pool before anything else).
    NoLoadBalancer,
}

/// One scenario: a spec, edits to the rendered text, and what the daemons must show.
struct Scenario {
    name: &'static str,
    spec: &'static str,
    spec_edits: &'static [(&'static str, &'static str)],
    frr_edits: &'static [(&'static str, &'static str)],
    nodes: Node,
    /// A kube-vip stand-in (a second BIRD) on node 0, from node 0's address.
    kube_vip_shared: bool,
    /// The codes `validate --router` (or `router`, for the spec) reports first.
    codes: &'static [&'static str],
    expect: Expect,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// Every node established, exactly the announced set accepted with ECMP over the nodes
    /// announcing each prefix, in BGP and in the kernel.
    Exact,
    /// No session comes up.
    NoSession,
    /// Sessions up, nothing accepted.
    NothingAccepted,
    /// Sessions up, routes received but none valid or installed.
    NothingInstalled,
    /// The announced set without the LoadBalancer ranges.
    NoLoadBalancer,
    /// BFD stays down on every session.
    BfdDown,
    /// After node 0's speaker is killed, its paths stay selected.
    StaleAfterKill,
    /// After node 0's speaker is killed, its paths go.
    WithdrawnAfterKill,
    /// The VIP is not accepted stably and sessions from node 0 flap.
    Collision,
}

const LAB: &str = "tests/cases/router/lab.yaml";
const DUAL: &str = "tests/cases/router/dual-stack.yaml";
const EXAMPLE: &str = "examples/bgp-loadbalancer/cluster.yaml";
const OFF_LINK: &[(&str, &str)] = &[("peerIP: 172.31.0.1\n", "peerIP: 172.31.254.1\n")];

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "lab as rendered",
        spec: LAB,
        spec_edits: &[],
        frr_edits: &[],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &[],
        expect: Expect::Exact,
    },
    Scenario {
        name: "example bgp-loadbalancer as rendered",
        spec: EXAMPLE,
        spec_edits: &[],
        frr_edits: &[],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &[],
        expect: Expect::Exact,
    },
    Scenario {
        name: "dual-stack with BFD as rendered",
        spec: DUAL,
        spec_edits: &[],
        frr_edits: &[],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &[],
        expect: Expect::Exact,
    },
    Scenario {
        name: "router off the node subnet as rendered",
        spec: LAB,
        spec_edits: OFF_LINK,
        frr_edits: &[],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &[],
        expect: Expect::Exact,
    },
    Scenario {
        name: "AS mismatch",
        spec: LAB,
        spec_edits: &[],
        frr_edits: &[("remote-as 64512", "remote-as 64599")],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &["RT0001"],
        expect: Expect::NoSession,
    },
    Scenario {
        name: "missing inbound policy",
        spec: LAB,
        spec_edits: &[],
        frr_edits: &[("  neighbor CALICO route-map CALICO-IN in\n", "")],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &["RT0002"],
        expect: Expect::NothingAccepted,
    },
    Scenario {
        name: "wrong listen range",
        spec: LAB,
        spec_edits: &[],
        frr_edits: &[(
            "bgp listen range 172.31.0.0/24",
            "bgp listen range 172.31.1.0/24",
        )],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &["RT0010"],
        expect: Expect::NoSession,
    },
    Scenario {
        name: "off-link without multihop",
        spec: LAB,
        spec_edits: OFF_LINK,
        frr_edits: &[(" neighbor CALICO ebgp-multihop 255\n", "")],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &["RT0009"],
        expect: Expect::NothingInstalled,
    },
    Scenario {
        name: "kube-vip and Calico from one address",
        spec: LAB,
        spec_edits: &[("speaker: Calico", "speaker: KubeVip")],
        frr_edits: &[],
        nodes: Node::Calico,
        kube_vip_shared: true,
        codes: &["RT0007"],
        expect: Expect::Collision,
    },
    Scenario {
        name: "LoadBalancer pool not exported",
        spec: LAB,
        spec_edits: &[(
            "  network:\n",
            "  overrides:\n    ipPools:\n      lb:\n        spec:\n          disableBGPExport: true\n  network:\n",
        )],
        frr_edits: &[],
        nodes: Node::NoLoadBalancer,
        kube_vip_shared: false,
        codes: &["CR1013"],
        expect: Expect::NoLoadBalancer,
    },
    Scenario {
        name: "BFD without multihop",
        spec: DUAL,
        spec_edits: &[],
        frr_edits: &[
            (" neighbor CALICO ebgp-multihop 255\n", ""),
            (" neighbor CALICO6 ebgp-multihop 255\n", ""),
        ],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &["RT0008", "RT0008"],
        expect: Expect::BfdDown,
    },
    Scenario {
        name: "graceful restart keeps a dead node's routes",
        spec: LAB,
        spec_edits: &[],
        frr_edits: &[(" bgp graceful-restart-disable\n", "")],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &["RT0011"],
        expect: Expect::StaleAfterKill,
    },
    Scenario {
        name: "graceful restart disabled withdraws a dead node's routes",
        spec: LAB,
        spec_edits: &[],
        frr_edits: &[],
        nodes: Node::Calico,
        kube_vip_shared: false,
        codes: &[],
        expect: Expect::WithdrawnAfterKill,
    },
];

/// What the nodes announce: prefix -> the indexes of the nodes announcing it; and what they
/// leak, which must be refused.
struct Announcements {
    per_node: Vec<Vec<IpNet>>,
    expected: BTreeMap<IpNet, BTreeSet<usize>>,
}

fn announcements(
    side: &ClusterSide,
    nodes: usize,
    kind: Node,
    families: &[Family],
) -> Announcements {
    let mut per_node: Vec<Vec<IpNet>> = vec![Vec::new(); nodes];
    let mut expected: BTreeMap<IpNet, BTreeSet<usize>> = BTreeMap::new();
    let lb: Vec<IpNet> = side
        .announced
        .iter()
        .filter(|r| r.source.contains("serviceLoadBalancerIPs"))
        .map(|r| r.prefix)
        .collect();
    for routed in &side.announced {
        if !families.contains(&Family::of_net(&routed.prefix)) {
            continue;
        }
        let mut nets = vec![routed.prefix];
        if routed.longer {
            // A Service with `externalTrafficPolicy: Local`: its address as a host route.
            let max = Family::of_net(&routed.prefix).max_len();
            let host = match routed.prefix.network() {
                IpAddr::V4(v4) => IpAddr::V4((u32::from(v4) + 10).into()),
                IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) + 10).into()),
            };
            nets.push(IpNet::new(host, max).expect("host route"));
        }
        for net in nets {
            let in_lb = lb.iter().any(|l| l.contains(&net));
            // The VIP is held by one node; everything else is announced by every node.
            let holders: Vec<usize> = if routed.longer {
                (0..nodes).collect()
            } else {
                vec![0]
            };
            for &i in &holders {
                if !per_node[i].contains(&net) {
                    per_node[i].push(net);
                }
                if !(kind == Node::NoLoadBalancer && in_lb) {
                    expected.entry(net).or_default().insert(i);
                }
            }
        }
    }
    if kind == Node::NoLoadBalancer {
        for list in &mut per_node {
            list.retain(|net| !lb.iter().any(|l| l.contains(net)));
        }
    }
    // What must be refused: a pod block per node, a default route, an unrelated prefix.
    for (i, list) in per_node.iter_mut().enumerate() {
        for routed in &side.refused {
            let family = Family::of_net(&routed.prefix);
            if !families.contains(&family) {
                continue;
            }
            if routed.longer {
                let (len, step) = match family {
                    Family::Ipv4 => (26, 64u128),
                    Family::Ipv6 => (122, 64u128),
                };
                let base = match routed.prefix.network() {
                    IpAddr::V4(v4) => IpAddr::V4(
                        (u32::from(v4) + u32::try_from(step * i as u128).expect("small")).into(),
                    ),
                    IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) + step * i as u128).into()),
                };
                list.push(IpNet::new(base, len).expect("block"));
            } else {
                list.push(routed.prefix);
            }
        }
        for family in families {
            list.push(match family {
                Family::Ipv4 => "192.0.2.0/24".parse().expect("net"),
                Family::Ipv6 => "2001:db8::/32".parse().expect("net"),
            });
        }
    }
    Announcements { per_node, expected }
}

/// The node addresses: per node, its address in each family's first node range (or the
/// router's listen ranges in order, spreading nodes over them).
fn node_addresses(side: &ClusterSide, nodes: usize) -> Vec<BTreeMap<Family, (IpAddr, IpNet)>> {
    let mut out = vec![BTreeMap::new(); nodes];
    for family in side.families() {
        let ranges: Vec<IpNet> = side
            .sessions_of(family)
            .flat_map(|s| s.node_ranges.iter().copied())
            .collect();
        for (i, node) in out.iter_mut().enumerate() {
            // Node i goes to range i (the last range takes the rest).
            let range = ranges[i.min(ranges.len() - 1)];
            let offset = 11 + i as u128;
            let ip = match range.network() {
                IpAddr::V4(v4) => IpAddr::V4((u32::from(v4) + offset as u32).into()),
                IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) + offset).into()),
            };
            node.insert(family, (ip, range));
        }
    }
    out
}

fn gateway(range: &IpNet) -> IpAddr {
    match range.network() {
        IpAddr::V4(v4) => IpAddr::V4((u32::from(v4) + 1).into()),
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) + 1).into()),
    }
}

fn bird_config(
    side: &ClusterSide,
    addrs: &BTreeMap<Family, (IpAddr, IpNet)>,
    announce: &[IpNet],
    bfd: bool,
    name: &str,
) -> String {
    let v4 = addrs
        .get(&Family::Ipv4)
        .map(|(ip, _)| ip.to_string())
        .unwrap_or_else(|| "10.255.255.1".to_owned());
    let mut out = format!("router id {v4};\nprotocol device {{ }}\n");
    if bfd {
        out.push_str("protocol bfd { }\n");
    }
    for (family, kw) in [(Family::Ipv4, "ipv4"), (Family::Ipv6, "ipv6")] {
        let routes: Vec<&IpNet> = announce
            .iter()
            .filter(|n| Family::of_net(n) == family)
            .collect();
        let Some((local, _)) = addrs.get(&family) else {
            continue;
        };
        let Some(session) = side.sessions_of(family).next() else {
            continue;
        };
        out.push_str(&format!("protocol static s_{kw} {{ {kw};\n"));
        for net in routes {
            out.push_str(&format!("  route {net} blackhole;\n"));
        }
        out.push_str("}\n");
        // As Calico's BIRD: multihop, graceful restart, add paths, short connect timers.
        out.push_str(&format!(
            "protocol bgp {name}_{kw} {{\n  local {local} as {};\n  neighbor {} as {};\n  \
             hold time 9; keepalive time 3; connect delay time 1; connect retry time 2; \
             error wait time 1, 5;\n  {kw} {{ import none; export where source = RTS_STATIC; \
             add paths on; }};\n  multihop; graceful restart;{}\n}}\n",
            side.cluster_as,
            session.address,
            side.router_as,
            if bfd { " bfd on;" } else { "" }
        ));
    }
    out
}

/// The lines of an FRR configuration that `show running-config` must repeat: no comments,
/// no headers, no `hostname` (vtysh adds the machine's own), no forwarding (zebra applies it
/// and shows only `no ... forwarding`).
fn config_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| {
            let t = l.trim();
            !(t.is_empty()
                || t.starts_with('!')
                || t.starts_with("frr version")
                || t.starts_with("hostname")
                || t == "Building configuration..."
                || t == "Current configuration:"
                || t == "end"
                || t == "service integrated-vtysh-config"
                || t.ends_with("ip forwarding")
                || t.ends_with("ipv6 forwarding"))
        })
        .map(str::to_owned)
        .collect()
}

/// Accepted paths from FRR's JSON: prefix -> neighbour addresses of the selected paths.
fn accepted(table: &serde_json::Value) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    if let Some(routes) = table["routes"].as_object() {
        for (prefix, paths) in routes {
            let chosen: BTreeSet<String> = paths
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["valid"] == true && (p["bestpath"] == true || p["multipath"] == true))
                .filter_map(|p| p["peerId"].as_str().map(str::to_owned))
                .collect();
            if !chosen.is_empty() {
                out.insert(prefix.clone(), chosen);
            }
        }
    }
    out
}

fn received(table: &serde_json::Value) -> usize {
    table["routes"].as_object().map_or(0, |r| r.len())
}

fn established(summary: &serde_json::Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for af in ["ipv4Unicast", "ipv6Unicast"] {
        if let Some(peers) = summary[af]["peers"].as_object() {
            for (addr, peer) in peers {
                if peer["state"] == "Established" {
                    out.insert(addr.trim_start_matches('*').to_owned());
                }
            }
        }
    }
    out
}

fn kernel_nexthops(lab: &Lab, ns: &str, net: &IpNet) -> BTreeSet<String> {
    let family = if Family::of_net(net) == Family::Ipv4 {
        "-4"
    } else {
        "-6"
    };
    let out = Command::new("ip")
        .args(["-n", ns, family, "-j", "route", "show", &net.to_string()])
        .output()
        .expect("ip route");
    let _ = lab;
    let routes: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    let mut hops = BTreeSet::new();
    for route in routes.as_array().into_iter().flatten() {
        if let Some(gw) = route["gateway"].as_str() {
            hops.insert(gw.to_owned());
        }
        for hop in route["nexthops"].as_array().into_iter().flatten() {
            if let Some(gw) = hop["gateway"].as_str() {
                hops.insert(gw.to_owned());
            }
        }
    }
    hops
}

fn poll<T>(seconds: u64, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn edited(text: &str, edits: &[(&str, &str)], what: &str) -> String {
    let mut out = text.to_owned();
    for (from, to) in edits {
        assert!(out.contains(from), "{what}: `{from}` not found");
        out = out.replace(from, to);
    }
    out
}

/// What one scenario measured, for the summary.
struct Outcome {
    name: &'static str,
    seconds: f64,
    note: String,
}

fn run_scenario(tag: usize, scenario: &Scenario) -> Outcome {
    let started = Instant::now();
    let mut lab = Lab::new(tag);
    let spec_text = edited(
        &std::fs::read_to_string(workspace_root().join(scenario.spec)).expect("spec"),
        scenario.spec_edits,
        scenario.name,
    );
    let spec_path = lab.path("cluster.yaml");
    std::fs::write(&spec_path, &spec_text).expect("write spec");
    let spec_arg = spec_path.to_string_lossy().into_owned();
    let parsed = cluster_network::parse("cluster.yaml", &spec_text).expect("spec parses");
    let side = router::cluster_side(&parsed.cluster_network)
        .expect("routers")
        .remove(0);
    // The text the user would deploy: `calico-render router`, edited as the variant says.
    let rendered_out = run_calico_render(&["router", "-f", &spec_arg], &workspace_root(), b"");
    let rendered = if rendered_out.status.success() {
        String::from_utf8(rendered_out.stdout.clone()).expect("utf-8")
    } else {
        // A spec calico-render refuses (the LoadBalancer pool variant) still has a router.
        frr::frr_config(&router::plan(&side), &side, "refused")
    };
    let conf = edited(&rendered, scenario.frr_edits, scenario.name);
    let conf_path = lab.path("frr.conf");
    std::fs::write(&conf_path, &conf).expect("write frr.conf");

    // The cross-checks catch it before any daemon runs.
    let codes_before = codes_of(scenario, &spec_arg, &conf_path, &rendered_out);
    assert_eq!(codes_before, scenario.codes, "{}: codes", scenario.name);

    // Topology.
    let families = side.families();
    let nodes = 3;
    let addrs = node_addresses(&side, nodes);
    let bfd = side.bfd;
    // The router is off the node subnets when its address is in none of them: a routed hop.
    let off_link = side
        .sessions
        .iter()
        .any(|s| !s.node_ranges.iter().any(|r| r.contains(&s.address)));
    let r = lab.ns("r");
    let lan = if off_link { lab.ns("s") } else { r.clone() };
    sh(&["ip", "-n", &lan, "link", "add", "br0", "type", "bridge"]);
    sh(&["ip", "-n", &lan, "link", "set", "br0", "up"]);
    let mut lan_addrs: BTreeSet<String> = BTreeSet::new();
    for node in &addrs {
        for (ip, range) in node.values() {
            let _ = ip;
            let session = side.sessions.iter().find(|s| range.contains(&s.address));
            let gw = session.map_or_else(|| gateway(range), |s| s.address);
            lan_addrs.insert(format!("{gw}/{}", range.prefix_len()));
        }
    }
    for addr in &lan_addrs {
        let mut args = vec!["ip", "-n", &lan, "addr", "add", addr, "dev", "br0"];
        if addr.contains(':') {
            args.push("nodad");
        }
        sh(&args);
    }
    if off_link {
        // The router sits behind a routed hop: r:t0 172.31.254.1/30 <-> s:t0 172.31.254.2/30.
        sh(&[
            "ip", "-n", &r, "link", "add", "t0", "type", "veth", "peer", "name", "t0", "netns",
            &lan,
        ]);
        sh(&[
            "ip",
            "-n",
            &r,
            "addr",
            "add",
            "172.31.254.1/30",
            "dev",
            "t0",
        ]);
        sh(&[
            "ip",
            "-n",
            &lan,
            "addr",
            "add",
            "172.31.254.2/30",
            "dev",
            "t0",
        ]);
        sh(&["ip", "-n", &r, "link", "set", "t0", "up"]);
        sh(&["ip", "-n", &lan, "link", "set", "t0", "up"]);
        sh(&[
            "ip",
            "netns",
            "exec",
            &lan,
            "sysctl",
            "-qw",
            "net.ipv4.ip_forward=1",
        ]);
        for range in side.sessions.iter().flat_map(|s| s.node_ranges.iter()) {
            sh(&[
                "ip",
                "-n",
                &r,
                "route",
                "add",
                &range.to_string(),
                "via",
                "172.31.254.2",
            ]);
        }
    }
    let mut node_ns = Vec::new();
    for (i, node) in addrs.iter().enumerate() {
        let ns = lab.ns(&format!("n{i}"));
        let port = format!("p{i}");
        sh(&[
            "ip", "-n", &ns, "link", "add", "eth0", "type", "veth", "peer", "name", &port, "netns",
            &lan,
        ]);
        sh(&["ip", "-n", &lan, "link", "set", &port, "master", "br0"]);
        sh(&["ip", "-n", &lan, "link", "set", &port, "up"]);
        sh(&["ip", "-n", &ns, "link", "set", "eth0", "up"]);
        for (family, (ip, range)) in node {
            let addr = format!("{ip}/{}", range.prefix_len());
            if *family == Family::Ipv6 {
                sh(&[
                    "ip", "-n", &ns, "addr", "add", &addr, "dev", "eth0", "nodad",
                ]);
            } else {
                sh(&["ip", "-n", &ns, "addr", "add", &addr, "dev", "eth0"]);
            }
            let session = side.sessions_of(*family).next().expect("session");
            if !range.contains(&session.address) {
                let gw = gateway(range).to_string();
                let fam = if *family == Family::Ipv4 { "-4" } else { "-6" };
                sh(&["ip", "-n", &ns, fam, "route", "add", "default", "via", &gw]);
            }
        }
        node_ns.push(ns);
    }

    // FRR: zebra, bgpd, bfdd as the `frr` user with their own socket directory.
    let run = lab.path("run");
    std::fs::create_dir_all(&run).expect("run dir");
    let log = lab.path("frr.log");
    std::fs::write(&log, "").expect("log");
    std::fs::write(lab.path("empty.conf"), "").expect("empty");
    sh(&[
        "chown",
        "-R",
        "frr:frr",
        &run.to_string_lossy(),
        &log.to_string_lossy(),
    ]);
    let run_s = run.to_string_lossy().into_owned();
    let zserv = run.join("zserv.api").to_string_lossy().into_owned();
    let empty = lab.path("empty.conf").to_string_lossy().into_owned();
    for daemon in ["zebra", "bgpd", "bfdd"] {
        let bin = format!("{FRR_DIR}/{daemon}");
        let pid = run.join(format!("{daemon}.pid"));
        let pid_s = pid.to_string_lossy().into_owned();
        let mut args = vec![
            bin.as_str(),
            "-d",
            "-P",
            "0",
            "--vty_socket",
            &run_s,
            "-z",
            &zserv,
            "-f",
            &empty,
            "-i",
            &pid_s,
        ];
        if daemon == "bgpd" {
            args.extend(["-p", "179"]);
        }
        lab.daemon(&r, &args, &pid);
    }
    poll(5, || {
        lab.vtysh(&r, "show version")
            .contains("FRRouting")
            .then_some(())
    })
    .expect("FRR answers");
    let load = Command::new("ip")
        .args(["netns", "exec", &r, "vtysh", "--vty_socket", &run_s, "-f"])
        .arg(&conf_path)
        .output()
        .expect("vtysh -f");
    let load_text = format!(
        "{}{}",
        String::from_utf8_lossy(&load.stdout),
        String::from_utf8_lossy(&load.stderr)
    );
    assert!(
        !load_text
            .lines()
            .any(|l| l.starts_with('%') || l.contains("Unknown command")),
        "{}: FRR refused part of the config:\n{load_text}",
        scenario.name
    );
    // FRR must hold exactly what was written.
    let running = lab.vtysh(&r, "show running-config");
    let (want, got) = (config_lines(&conf), config_lines(&running));
    assert_eq!(
        got, want,
        "{}: running-config differs from the text",
        scenario.name
    );
    for (line, off) in [
        ("\nip forwarding\n", "no ip forwarding"),
        ("\nipv6 forwarding\n", "no ipv6 forwarding"),
    ] {
        if conf.contains(line) {
            assert!(!running.contains(off), "{}: {off}", scenario.name);
        }
    }
    if conf.contains("\nip forwarding\n") {
        let forwarding = sh(&[
            "ip",
            "netns",
            "exec",
            &r,
            "sysctl",
            "-n",
            "net.ipv4.ip_forward",
        ]);
        assert_eq!(forwarding.trim(), "1", "{}: ip forwarding", scenario.name);
    }

    // The nodes.
    let plan = announcements(&side, nodes, scenario.nodes, &families);
    for (i, ns) in node_ns.iter().enumerate() {
        let conf = bird_config(&side, &addrs[i], &plan.per_node[i], bfd, "calico");
        let path = lab.path(&format!("n{i}.conf"));
        std::fs::write(&path, conf).expect("bird conf");
        let pid = lab.path(&format!("n{i}.pid"));
        let ctl = lab.path(&format!("n{i}.ctl"));
        lab.daemon(
            ns,
            &[
                "bird",
                "-c",
                &path.to_string_lossy(),
                "-s",
                &ctl.to_string_lossy(),
                "-P",
                &pid.to_string_lossy(),
            ],
            &pid,
        );
    }
    if scenario.kube_vip_shared {
        // kube-vip stand-in on node 0, from node 0's own address, announcing the VIP.
        let vip: Vec<IpNet> = side
            .announced
            .iter()
            .filter(|r| !r.longer)
            .map(|r| r.prefix)
            .collect();
        let conf = bird_config(&side, &addrs[0], &vip, false, "kubevip");
        let path = lab.path("kv.conf");
        std::fs::write(&path, conf).expect("kube-vip conf");
        let pid = lab.path("kv.pid");
        let ctl = lab.path("kv.ctl");
        let ns = node_ns[0].clone();
        lab.daemon(
            &ns,
            &[
                "bird",
                "-c",
                &path.to_string_lossy(),
                "-s",
                &ctl.to_string_lossy(),
                "-P",
                &pid.to_string_lossy(),
            ],
            &pid,
        );
    }

    let node_ips: Vec<BTreeMap<Family, String>> = addrs
        .iter()
        .map(|m| m.iter().map(|(f, (ip, _))| (*f, ip.to_string())).collect())
        .collect();
    let all_peers: BTreeSet<String> = node_ips.iter().flat_map(|m| m.values().cloned()).collect();
    let expected: BTreeMap<String, BTreeSet<String>> = plan
        .expected
        .iter()
        .map(|(net, holders)| {
            let f = Family::of_net(net);
            (
                net.to_string(),
                holders.iter().map(|&i| node_ips[i][&f].clone()).collect(),
            )
        })
        .collect();
    let table = |lab: &Lab| {
        let mut all = BTreeMap::new();
        for family in &families {
            let cmd = match family {
                Family::Ipv4 => "show bgp ipv4 unicast json",
                Family::Ipv6 => "show bgp ipv6 unicast json",
            };
            all.extend(accepted(&lab.json(&r, cmd)));
        }
        all
    };
    let received_count = |lab: &Lab| {
        families
            .iter()
            .map(|family| {
                let cmd = match family {
                    Family::Ipv4 => "show bgp ipv4 unicast json",
                    Family::Ipv6 => "show bgp ipv6 unicast json",
                };
                received(&lab.json(&r, cmd))
            })
            .sum::<usize>()
    };
    let peers_up = |lab: &Lab| established(&lab.json(&r, "show bgp summary json"));
    let mut note = String::new();
    match scenario.expect {
        Expect::Exact
        | Expect::NoLoadBalancer
        | Expect::StaleAfterKill
        | Expect::WithdrawnAfterKill => {
            let got = poll(15, || {
                let got = table(&lab);
                (peers_up(&lab) == all_peers && got == expected).then_some(got)
            });
            let got = got.unwrap_or_else(|| {
                panic!(
                    "{}: accepted {:#?}\nwanted {expected:#?}\npeers {:?}",
                    scenario.name,
                    table(&lab),
                    peers_up(&lab)
                )
            });
            // The kernel holds every accepted prefix with ECMP over the same next hops.
            // Off-link, the kernel resolves the nodes' next hops through the transit hop: one
            // kernel next hop (the routed hop's), and ECMP to the nodes is that hop's job.
            let transit: BTreeSet<String> = ["172.31.254.2".to_owned()].into();
            if off_link {
                note.push_str("kernel next hop: the transit hop only; ");
            }
            for (prefix, hops) in &got {
                let hops = if off_link { &transit } else { hops };
                let net: IpNet = prefix.parse().expect("prefix");
                let kernel = poll(5, || {
                    let k = kernel_nexthops(&lab, &r, &net);
                    (k == *hops).then_some(k)
                });
                assert!(
                    kernel.is_some(),
                    "{}: kernel next hops of {prefix}: {:?}, wanted {hops:?}",
                    scenario.name,
                    kernel_nexthops(&lab, &r, &net)
                );
            }
            if bfd {
                let up = poll(10, || {
                    let peers = lab.json(&r, "show bfd peers json");
                    let n = peers
                        .as_array()
                        .map_or(0, |a| a.iter().filter(|p| p["status"] == "up").count());
                    (n == all_peers.len()).then_some(n)
                });
                assert!(
                    up.is_some(),
                    "{}: BFD {}",
                    scenario.name,
                    lab.vtysh(&r, "show bfd peers")
                );
                note.push_str("BFD up; ");
            }
            if matches!(
                scenario.expect,
                Expect::StaleAfterKill | Expect::WithdrawnAfterKill
            ) {
                let victim = lab.pids[3];
                sh(&["kill", "-KILL", &victim.to_string()]);
                let node0 = node_ips[0][&Family::Ipv4].clone();
                let killed = Instant::now();
                // Calico's restart time is 120 s; look for 5 s.
                let gone = poll(5, || {
                    (!table(&lab).values().any(|hops| hops.contains(&node0))).then_some(())
                });
                match scenario.expect {
                    Expect::StaleAfterKill => {
                        assert!(gone.is_none(), "{}: node 0's paths went", scenario.name);
                        let lb: IpNet = "10.250.0.10/32".parse().expect("net");
                        assert!(
                            kernel_nexthops(&lab, &r, &lb).contains(&node0),
                            "{}: stale path not in the kernel",
                            scenario.name
                        );
                        note.push_str("dead node still a kernel ECMP next hop after 5 s; ");
                    }
                    _ => {
                        assert!(gone.is_some(), "{}: node 0's paths stayed", scenario.name);
                        note.push_str(&format!(
                            "dead node withdrawn in {:.1} s; ",
                            killed.elapsed().as_secs_f64()
                        ));
                    }
                }
            }
        }
        Expect::NoSession => {
            std::thread::sleep(Duration::from_secs(4));
            assert!(
                peers_up(&lab).is_empty(),
                "{}: {:?}",
                scenario.name,
                peers_up(&lab)
            );
            // FRR logs nothing here at its default level (no `log file` in the text).
            note.push_str("no session within 4 s; ");
        }
        Expect::NothingAccepted => {
            let up = poll(10, || (peers_up(&lab) == all_peers).then_some(()));
            assert!(
                up.is_some(),
                "{}: peers {:?}",
                scenario.name,
                peers_up(&lab)
            );
            std::thread::sleep(Duration::from_secs(2));
            assert!(
                table(&lab).is_empty(),
                "{}: {:?}",
                scenario.name,
                table(&lab)
            );
            note.push_str("sessions up, nothing accepted; ");
        }
        Expect::NothingInstalled => {
            let up = poll(10, || {
                (peers_up(&lab) == all_peers && received_count(&lab) > 0).then_some(())
            });
            assert!(
                up.is_some(),
                "{}: peers {:?}",
                scenario.name,
                peers_up(&lab)
            );
            std::thread::sleep(Duration::from_secs(2));
            assert!(
                table(&lab).is_empty(),
                "{}: {:?}",
                scenario.name,
                table(&lab)
            );
            let lb: IpNet = "10.250.0.10/32".parse().expect("net");
            assert!(
                kernel_nexthops(&lab, &r, &lb).is_empty(),
                "{}: installed",
                scenario.name
            );
            note.push_str(&format!(
                "sessions up, {} paths received, none valid; ",
                received_count(&lab)
            ));
        }
        Expect::BfdDown => {
            let up = poll(10, || (peers_up(&lab) == all_peers).then_some(()));
            assert!(
                up.is_some(),
                "{}: peers {:?}",
                scenario.name,
                peers_up(&lab)
            );
            std::thread::sleep(Duration::from_secs(4));
            let peers = lab.json(&r, "show bfd peers json");
            let up = peers
                .as_array()
                .map_or(0, |a| a.iter().filter(|p| p["status"] == "up").count());
            assert_eq!(
                up,
                0,
                "{}: {}",
                scenario.name,
                lab.vtysh(&r, "show bfd peers")
            );
            note.push_str(&format!(
                "BGP up, BFD sessions {} none up; ",
                peers.as_array().map_or(0, Vec::len)
            ));
        }
        Expect::Collision => {
            let vip = side
                .announced
                .iter()
                .find(|r| !r.longer)
                .map(|r| r.prefix.to_string())
                .expect("VIP");
            // Watch for at least 8 s and 20 samples (a loaded machine samples slowly): the trap
            // shows as a VIP the router does not keep (missing from some samples) or as node 0's
            // session flapping. A sound setup keeps the VIP in every sample, so the assertion can
            // fail. How often the VIP is seen varies from run to run (8/20 and 4/9 seen), so the
            // test asserts that it was lost at least once, not a share.
            let mut vip_seen = 0;
            let mut samples = 0;
            let mut node0_down = 0;
            let node0 = node_ips[0][&Family::Ipv4].clone();
            let until = Instant::now() + Duration::from_secs(8);
            while Instant::now() < until || samples < 20 {
                samples += 1;
                if table(&lab).contains_key(&vip) {
                    vip_seen += 1;
                }
                if !peers_up(&lab).contains(&node0) {
                    node0_down += 1;
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            assert!(
                vip_seen < samples || node0_down > 0,
                "{}: VIP held {vip_seen}/{samples}, node 0 down {node0_down}",
                scenario.name
            );
            note.push_str(&format!(
                "VIP accepted in {vip_seen}/{samples} samples, node 0 down in {node0_down}; "
            ));
        }
    }
    drop(lab);
    Outcome {
        name: scenario.name,
        seconds: started.elapsed().as_secs_f64(),
        note,
    }
}

/// The codes the variant draws before any daemon runs: `validate --router` on the edited text,
/// and the spec's own (from `router` or `render`).
fn codes_of(
    scenario: &Scenario,
    spec: &str,
    conf: &Path,
    rendered: &std::process::Output,
) -> Vec<String> {
    let mut codes: Vec<String> = if rendered.status.success() {
        let out = run_calico_render(
            &[
                "validate",
                "-f",
                spec,
                "--router",
                &conf.to_string_lossy(),
                "-o",
                "json",
            ],
            &workspace_root(),
            b"",
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["code"].as_str().map(str::to_owned))
            .collect()
    } else {
        // `router` refused the spec: the error codes it printed.
        let stderr = String::from_utf8_lossy(&rendered.stderr);
        stderr
            .match_indices("error[")
            .filter_map(|(i, _)| stderr.get(i + 6..i + 12).map(str::to_owned))
            .collect()
    };
    codes.retain(|code| code.starts_with("RT") || scenario.codes.contains(&code.as_str()));
    codes.sort_unstable();
    codes
}

#[test]
fn rendered_router_against_real_daemons() {
    if let Some(reason) = missing_tools() {
        if std::env::var("CALICO_RENDER_E2E").as_deref() == Ok("required") {
            panic!("router daemons: {reason}");
        }
        say_skipped(
            "FRR and BIRD (as root)",
            &format!("router_daemons: {reason}"),
        );
        return;
    }
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for (tag, scenario) in SCENARIOS.iter().enumerate() {
        outcomes.push(run_scenario(tag, scenario));
    }
    let versions = format!(
        "{} / {}",
        sh(&[&format!("{FRR_DIR}/bgpd"), "--version"])
            .lines()
            .next()
            .unwrap_or(""),
        String::from_utf8_lossy(
            &Command::new("bird")
                .arg("--version")
                .output()
                .expect("bird")
                .stderr
        )
        .trim()
    );
    let mut summary = format!(
        "router_daemons: {} scenarios in {:.1} s ({versions})\n",
        outcomes.len(),
        started.elapsed().as_secs_f64()
    );
    for outcome in &outcomes {
        summary.push_str(&format!(
            "  {:5.1} s  {}: {}\n",
            outcome.seconds, outcome.name, outcome.note
        ));
    }
    use std::io::Write as _;
    let _ = std::io::stderr().lock().write_all(summary.as_bytes());
}
