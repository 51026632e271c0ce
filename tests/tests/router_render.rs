//! `calico-render router` and `validate --router`: the FRR text of every example with BGP
//! peers and of the router cases (`tests/cases/router/`), pinned by snapshots; the rendered
//! router read back by the FRR reader is the same model and draws no finding; and a table of
//! broken router configurations and specs, each with the codes it must draw, beside its fixed
//! twin that draws none.

use std::path::Path;

use calico_render::router as frr;
use calico_render_tests::{example_names, run_calico_render, workspace_root};
use calico_spec::cluster_network;
use calico_spec::router::{self, ClusterSide, Router};

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/router"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn text_of(path: &str) -> String {
    std::fs::read_to_string(workspace_root().join(path)).expect("readable")
}

/// The routers of a ClusterNetwork text, planned.
fn planned(file: &str, text: &str) -> Vec<(ClusterSide, Router)> {
    let parsed = cluster_network::parse(file, text).expect("parses");
    router::cluster_side(&parsed.cluster_network)
        .expect("has routers")
        .into_iter()
        .map(|side| {
            let router = router::plan(&side);
            (side, router)
        })
        .collect()
}

fn without_lines(mut router: Router) -> Router {
    router.bgp_line = None;
    for group in &mut router.groups {
        group.line = None;
    }
    router
}

const CASES: &[&str] = &[
    "tests/cases/router/lab.yaml",
    "tests/cases/router/dual-stack.yaml",
];

/// Every example with BGP peers, and the router cases: FRR text and JSON by snapshot.
/// Examples without peers are refused with a reason (exit 1).
#[test]
fn router_configs_of_examples_and_cases() {
    let mut inputs: Vec<String> = example_names()
        .into_iter()
        .map(|name| format!("examples/{name}/cluster.yaml"))
        .collect();
    inputs.extend(CASES.iter().map(|c| (*c).to_owned()));
    let mut rendered = 0;
    for input in &inputs {
        let text = text_of(input);
        let has_peers = cluster_network::parse(input, &text).is_ok_and(|p| {
            p.cluster_network.spec.bgp.enabled && !p.cluster_network.spec.bgp.peers.is_empty()
        });
        let out = run_calico_render(&["router", "-f", input], &workspace_root(), b"");
        if !has_peers {
            assert_eq!(out.status.code(), Some(1), "{input}");
            assert!(out.stdout.is_empty(), "{input}");
            continue;
        }
        rendered += 1;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{input}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let name = Path::new(input)
            .with_extension("")
            .to_string_lossy()
            .replace(['/', '.'], "-");
        let stdout = String::from_utf8(out.stdout).expect("utf-8");
        let again = run_calico_render(&["router", "-f", input], &workspace_root(), b"");
        assert_eq!(again.stdout, stdout.as_bytes(), "{input}: deterministic");
        snapshot(&format!("{name}.frr"), &stdout);
        let json = run_calico_render(
            &["router", "-f", input, "-o", "json"],
            &workspace_root(),
            b"",
        );
        assert_eq!(json.status.code(), Some(0), "{input}");
        let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
        // The JSON carries the same text.
        let texts: Vec<&str> = value["routers"]
            .as_array()
            .expect("routers")
            .iter()
            .map(|r| r["frrConf"].as_str().expect("frrConf"))
            .collect();
        assert_eq!(texts.join("\n"), stdout, "{input}");
        snapshot(
            &format!("{name}.json"),
            &String::from_utf8_lossy(&json.stdout),
        );
    }
    assert!(rendered >= 3, "{rendered} inputs with peers");
}

/// The rendered text read back is the planned model, and the checks find nothing in it.
#[test]
fn rendered_router_reads_back_and_is_silent() {
    for input in CASES
        .iter()
        .copied()
        .chain(["examples/bgp-loadbalancer/cluster.yaml"])
    {
        let text = text_of(input);
        for (side, router) in planned(input, &text) {
            let conf = frr::frr_config(&router, &side, "x");
            let read = frr::read("frr.conf", &conf).expect("the rendered text reads");
            assert_eq!(without_lines(read.clone()), router, "{input}");
            let findings = router::check(&side, &read, "frr.conf");
            assert!(findings.is_empty(), "{input}: {findings:#?}");
        }
    }
}

/// One broken router configuration: replacements applied to the rendered text of a case, and
/// the codes `validate --router` must report (exactly).
struct Broken {
    name: &'static str,
    case: &'static str,
    edits: &'static [(&'static str, &'static str)],
    codes: &'static [&'static str],
}

const BROKEN: &[Broken] = &[
    Broken {
        name: "AS mismatch (remote-as)",
        case: "lab",
        edits: &[("remote-as 64512", "remote-as 64599")],
        codes: &["RT0001"],
    },
    Broken {
        name: "AS mismatch (router bgp)",
        case: "lab",
        edits: &[("router bgp 65000", "router bgp 65010")],
        codes: &["RT0001"],
    },
    Broken {
        name: "missing inbound policy",
        case: "lab",
        edits: &[("  neighbor CALICO route-map CALICO-IN in\n", "")],
        codes: &["RT0002"],
    },
    Broken {
        name: "policy switched off instead of written",
        case: "lab",
        edits: &[
            ("  neighbor CALICO route-map CALICO-IN in\n", ""),
            (
                " no bgp default ipv4-unicast\n",
                " no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n",
            ),
        ],
        // The pod pool's blocks and the default route.
        codes: &["RT0003", "RT0003"],
    },
    Broken {
        name: "prefix-list admits everything",
        case: "lab",
        edits: &[("seq 1000 deny any", "seq 1000 permit any")],
        codes: &["RT0003", "RT0003"],
    },
    Broken {
        name: "exact-only entry loses the /32s",
        case: "lab",
        edits: &[("permit 10.250.0.0/24 le 32", "permit 10.250.0.0/24")],
        codes: &["RT0004"],
    },
    Broken {
        name: "ge 32 loses the aggregate",
        case: "lab",
        edits: &[("permit 10.96.0.0/12 le 32", "permit 10.96.0.0/12 ge 32")],
        codes: &["RT0004"],
    },
    Broken {
        name: "route-map names an undefined prefix-list",
        case: "lab",
        edits: &[(
            "match ip address prefix-list CALICO-IN\n",
            "match ip address prefix-list CALICO-NOPE\n",
        )],
        // The LoadBalancer, ClusterIP and external ranges, and the VIP.
        codes: &["RT0004", "RT0004", "RT0004", "RT0004"],
    },
    Broken {
        name: "wrong listen range",
        case: "lab",
        edits: &[(
            "bgp listen range 172.31.0.0/24",
            "bgp listen range 172.31.1.0/24",
        )],
        codes: &["RT0010"],
    },
    Broken {
        name: "off-link without multihop",
        case: "bgp-loadbalancer",
        edits: &[(" neighbor CALICO ebgp-multihop 255\n", "")],
        codes: &["RT0009"],
    },
    Broken {
        name: "BFD single-hop",
        case: "dual-stack",
        edits: &[(" neighbor CALICO ebgp-multihop 255\n", "")],
        codes: &["RT0008"],
    },
    Broken {
        name: "BFD profile keeps the 254 minimum TTL",
        case: "dual-stack",
        edits: &[("  minimum-ttl 1\n", "")],
        codes: &["RT0008", "RT0008"],
    },
    Broken {
        name: "graceful restart helper",
        case: "lab",
        edits: &[(" bgp graceful-restart-disable\n", "")],
        codes: &["RT0011"],
    },
    Broken {
        name: "long stalepath time",
        case: "lab",
        edits: &[(
            " bgp graceful-restart-disable\n",
            " bgp graceful-restart stalepath-time 360\n",
        )],
        codes: &["RT0011"],
    },
    Broken {
        name: "no forwarding",
        case: "lab",
        edits: &[("ip forwarding\n", "")],
        codes: &["RT0012"],
    },
    Broken {
        name: "IPv6 family never activated",
        case: "dual-stack",
        edits: &[("  neighbor CALICO6 activate\n", "")],
        codes: &["RT0004"],
    },
];

fn case_path(case: &str) -> String {
    match case {
        "bgp-loadbalancer" => "examples/bgp-loadbalancer/cluster.yaml".to_owned(),
        other => format!("tests/cases/router/{other}.yaml"),
    }
}

/// Every broken configuration draws exactly its codes through `validate --router` (the CLI,
/// file and line included); its fixed twin, the rendered text, draws none.
#[test]
fn broken_router_configs_draw_their_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    for broken in BROKEN {
        let cluster = case_path(broken.case);
        let text = text_of(&cluster);
        let (side, router) = planned(&cluster, &text).remove(0);
        let good = frr::frr_config(&router, &side, "x");
        let mut bad = good.clone();
        for (from, to) in broken.edits {
            assert!(
                bad.contains(from),
                "{}: `{from}` not in the rendered text",
                broken.name
            );
            bad = bad.replace(from, to);
        }
        for (conf, want) in [(&good, &[][..]), (&bad, broken.codes)] {
            let path = dir.path().join("frr.conf");
            std::fs::write(&path, conf).expect("write");
            let path = path.to_string_lossy().into_owned();
            let out = run_calico_render(
                &["validate", "-f", &cluster, "--router", &path, "-o", "json"],
                &workspace_root(),
                b"",
            );
            let report: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
                    panic!("{}: {}", broken.name, String::from_utf8_lossy(&out.stderr))
                });
            let mut codes: Vec<&str> = report["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .map(|d| d["code"].as_str().expect("code"))
                .filter(|code| code.starts_with("RT"))
                .collect();
            codes.sort_unstable();
            assert_eq!(codes, want, "{}: {report:#}", broken.name);
            if !want.is_empty() {
                // A warning by default; `--deny warnings` makes it fail.
                assert_eq!(out.status.code(), Some(0), "{}", broken.name);
                let denied = run_calico_render(
                    &[
                        "validate", "-f", &cluster, "--router", &path, "--deny", "warnings",
                    ],
                    &workspace_root(),
                    b"",
                );
                assert_eq!(denied.status.code(), Some(1), "{}", broken.name);
            }
        }
    }
}

/// One broken ClusterNetwork: YAML replacements in a case, and the codes `router` prints.
struct BrokenSpec {
    name: &'static str,
    case: &'static str,
    edits: &'static [(&'static str, &'static str)],
    codes: &'static [&'static str],
}

const BROKEN_SPECS: &[BrokenSpec] = &[
    BrokenSpec {
        name: "pod pool exported to the router",
        case: "lab",
        edits: &[("      disableBGPExport: true\n", "")],
        codes: &["RT0005"],
    },
    BrokenSpec {
        name: "advertised range without a pool",
        case: "lab",
        edits: &[(
            "        - 10.250.0.0/24\n      serviceClusterIPs",
            "        - 10.250.0.0/24\n        - 10.252.0.0/24\n      serviceClusterIPs",
        )],
        codes: &["RT0006"],
    },
    BrokenSpec {
        name: "kube-vip from the node's address",
        case: "lab",
        edits: &[("speaker: Calico", "speaker: KubeVip")],
        codes: &["RT0007"],
    },
];

/// The spec's own router findings, printed by `router` on standard error; the fixed twin (the
/// case as committed) prints none.
#[test]
fn broken_specs_draw_their_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixed = BROKEN_SPECS
        .iter()
        .map(|b| (b.case, text_of(&case_path(b.case)), &[][..]));
    let broken = BROKEN_SPECS.iter().map(|b| {
        let mut text = text_of(&case_path(b.case));
        for (from, to) in b.edits {
            assert!(text.contains(from), "{}: `{from}`", b.name);
            text = text.replace(from, to);
        }
        (b.name, text, b.codes)
    });
    for (name, text, want) in fixed.chain(broken) {
        let path = dir.path().join("cluster.yaml");
        std::fs::write(&path, &text).expect("write");
        let path = path.to_string_lossy().into_owned();
        let out = run_calico_render(&["router", "-f", &path], &workspace_root(), b"");
        assert_eq!(out.status.code(), Some(0), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut codes: Vec<&str> = stderr
            .match_indices("[RT")
            .map(|(i, _)| stderr.get(i + 1..i + 7).unwrap_or(""))
            .collect();
        codes.sort_unstable();
        assert_eq!(codes, want, "{name}: {stderr}");
    }
}

/// The reader refuses what it knows but cannot read, with file and line, and keeps and
/// ignores what it does not know.
#[test]
fn frr_reader_errors_and_unknown_lines() {
    let base = "frr defaults traditional\nhostname r\nrouter bgp 65000\n neighbor G peer-group\n";
    let table: &[(&str, Option<&str>)] = &[
        (
            "ip prefix-list L seq 5 permit 10.0.0.0/33\n",
            Some("frr.conf:6:"),
        ),
        (
            "ip prefix-list L seq 5 permit 10.0.0.7/24\n",
            Some("host bits"),
        ),
        (
            "ip prefix-list L seq 5 permit fd00::/64\n",
            Some("other family"),
        ),
        ("router bgp 65000\n", Some("a second `router bgp`")),
        ("route-map M allow 10\n", Some("`permit` or `deny`")),
        ("interface eth0\n ip address 10.0.0.1/24\n", None),
        ("log file /var/log/frr.log\nline vty\n", None),
    ];
    for (extra, want) in table {
        let text = format!("{base}exit\n{extra}");
        match (frr::read("frr.conf", &text), want) {
            (Ok(_), None) => {}
            (Err(err), Some(want)) => assert!(err.to_string().contains(want), "{extra}: {err}"),
            (got, want) => panic!("{extra}: {got:?}, wanted {want:?}"),
        }
    }
    assert!(frr::read("frr.conf", "hostname r\n").is_err());
}
