//! Fleet checks against hand-worked overlaps: each row gives a few clusters and a fleet file and
//! the findings a person works out by comparing the ranges on paper.

use super::*;
use crate::cluster_network::parse;
use crate::rules::catalogue as c;

/// A ClusterNetwork named `name` with `spec` (YAML, indented under `spec:`), checked as
/// `render` checks it.
fn plan(name: &str, spec: &str) -> AddressPlan {
    let text = format!(
        "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: {name}\nspec:\n{spec}"
    );
    let parsed = parse(name, &text).unwrap_or_else(|err| panic!("{name}: {err}"));
    AddressPlan::of(name, &parsed.cluster_network)
}

fn pools(cidrs: &[&str]) -> String {
    let mut out = String::from("  podPools:\n");
    for (i, cidr) in cidrs.iter().enumerate() {
        let encapsulation = if cidr.contains(':') {
            "VXLAN"
        } else {
            "VXLANCrossSubnet"
        };
        out.push_str(&format!(
            "    - name: pool-{i}\n      cidr: {cidr}\n      encapsulation: {encapsulation}\n"
        ));
    }
    out
}

fn fleet(spec: &str) -> Fleet {
    let text = format!(
        "apiVersion: calico-render.dev/v1alpha1\nkind: Fleet\nspec:\n  clusters: ['*.yaml']\n{spec}"
    );
    read("fleet.yaml", &text)
        .unwrap_or_else(|err| panic!("{err:?}"))
        .fleet
}

/// (code, cluster, path, the range named after "both hold" or "all hold").
/// A row: its name, the clusters, the fleet file, the findings.
type Case = (&'static str, Vec<AddressPlan>, Option<Fleet>, Vec<Expected>);

/// Findings sort by cluster, then field path.
type Expected = (
    &'static str,
    Option<&'static str>,
    &'static str,
    &'static str,
);

fn findings(
    fleet: Option<&Fleet>,
    plans: &[AddressPlan],
) -> Vec<(String, Option<String>, String, String)> {
    check(fleet, plans)
        .into_iter()
        .map(|found| {
            let shared = found
                .diagnostic
                .message
                .rsplit_once(" hold ")
                .map(|(_, shared)| shared.to_owned())
                .unwrap_or_default();
            (
                found.diagnostic.code.to_owned(),
                found.cluster,
                found.diagnostic.path,
                shared,
            )
        })
        .collect()
}

fn expect(rows: &[Expected]) -> Vec<(String, Option<String>, String, String)> {
    rows.iter()
        .map(|(code, cluster, path, shared)| {
            (
                (*code).to_owned(),
                cluster.map(str::to_owned),
                (*path).to_owned(),
                (*shared).to_owned(),
            )
        })
        .collect()
}

#[test]
fn overlaps_between_clusters() {
    let svc = |cidr: &str| format!("  network:\n    serviceCIDRs: [{cidr}]\n");
    let rows: Vec<Case> = vec![
        (
            // 10.0.128.0/17 is the upper half of 10.0.0.0/16.
            "contained pod pool",
            vec![
                plan("a", &pools(&["10.0.0.0/16"])),
                plan("b", &pools(&["10.0.128.0/17"])),
            ],
            None,
            vec![(
                c::FL_POD_OVERLAP.code,
                Some("b"),
                "spec.podPools[0].cidr",
                "10.0.128.0/17",
            )],
        ),
        (
            // 10.0.0.0/17 ends at 10.0.127.255, one below where 10.0.128.0/17 starts.
            "adjacent halves do not overlap",
            vec![
                plan("a", &pools(&["10.0.0.0/17"])),
                plan("b", &pools(&["10.0.128.0/17"])),
            ],
            None,
            vec![],
        ),
        (
            "equal pools, reported once at the cluster that sorts last",
            vec![
                plan("b", &pools(&["172.20.0.0/16"])),
                plan("a", &pools(&["172.20.0.0/16"])),
            ],
            None,
            vec![(
                c::FL_POD_OVERLAP.code,
                Some("b"),
                "spec.podPools[0].cidr",
                "172.20.0.0/16",
            )],
        ),
        (
            // fd00:10::/56 spans fd00:10:0:0:: to fd00:10:0:ff:ffff:...; fd00:10:0:80::/57 is its
            // upper half.
            "IPv6 pools",
            vec![
                plan("a", &pools(&["fd00:10::/56"])),
                plan("b", &pools(&["fd00:10:0:80::/57"])),
            ],
            None,
            vec![(
                c::FL_POD_OVERLAP.code,
                Some("b"),
                "spec.podPools[0].cidr",
                "fd00:10:0:80::/57",
            )],
        ),
        (
            // ::a00:0/104 is the same integers as 10.0.0.0/8, in the other family.
            "families never meet",
            vec![
                plan("a", &pools(&["10.0.0.0/8"])),
                plan("b", &pools(&["::a00:0/104"])),
            ],
            None,
            vec![],
        ),
        (
            // Three nested ranges: every pair overlaps in the smaller of the two.
            "nested chain",
            vec![
                plan("a", &pools(&["10.0.0.0/8"])),
                plan("b", &pools(&["10.1.0.0/16"])),
                plan("c", &pools(&["10.1.2.0/24"])),
            ],
            None,
            vec![
                (
                    c::FL_POD_OVERLAP.code,
                    Some("b"),
                    "spec.podPools[0].cidr",
                    "10.1.0.0/16",
                ),
                (
                    c::FL_POD_OVERLAP.code,
                    Some("c"),
                    "spec.podPools[0].cidr",
                    "10.1.2.0/24",
                ),
                (
                    c::FL_POD_OVERLAP.code,
                    Some("c"),
                    "spec.podPools[0].cidr",
                    "10.1.2.0/24",
                ),
            ],
        ),
        (
            "one Service range in clusters that do not route to each other",
            vec![
                plan("a", &(pools(&["10.1.0.0/16"]) + &svc("10.96.0.0/12"))),
                plan("b", &(pools(&["10.2.0.0/16"]) + &svc("10.96.0.0/12"))),
            ],
            None,
            vec![],
        ),
        (
            "one Service range in a routing group",
            vec![
                plan(
                    "a",
                    &(pools(&["10.1.0.0/16"])
                        + "  bgp:\n    enabled: true\n"
                        + &svc("10.96.0.0/12")),
                ),
                plan(
                    "b",
                    &(pools(&["10.2.0.0/16"])
                        + "  bgp:\n    enabled: true\n"
                        + &svc("10.100.0.0/16")),
                ),
            ],
            Some(fleet("  routing:\n    - name: g\n      clusters: [a, b]\n")),
            vec![
                (
                    c::FL_ROUTED_NAT.code,
                    Some("a"),
                    "spec.podPools[0].natOutgoing",
                    "",
                ),
                (
                    c::FL_SERVICE_OVERLAP.code,
                    Some("b"),
                    "spec.network.serviceCIDRs[0]",
                    "10.100.0.0/16",
                ),
                (
                    c::FL_ROUTED_NAT.code,
                    Some("b"),
                    "spec.podPools[0].natOutgoing",
                    "",
                ),
            ],
        ),
        (
            // 192.168.50.0/24 lies inside 192.168.0.0/16.
            "LoadBalancer pool on another cluster's node subnet",
            vec![
                plan(
                    "a",
                    &(pools(&["10.1.0.0/16"])
                        + "  loadBalancerPools:\n    - name: lb\n      cidr: 192.168.50.0/24\n"),
                ),
                plan(
                    "b",
                    &(pools(&["10.2.0.0/16"]) + "  network:\n    nodeSubnets: [192.168.0.0/16]\n"),
                ),
            ],
            None,
            vec![(
                c::FL_KIND_OVERLAP.code,
                Some("b"),
                "spec.network.nodeSubnets[0]",
                "192.168.50.0/24",
            )],
        ),
        (
            "LoadBalancer pools",
            vec![
                plan(
                    "a",
                    &(pools(&["10.1.0.0/16"])
                        + "  loadBalancerPools:\n    - name: lb\n      cidr: 192.168.50.0/24\n"),
                ),
                plan(
                    "b",
                    &(pools(&["10.2.0.0/16"])
                        + "  loadBalancerPools:\n    - name: lb\n      cidr: 192.168.50.128/25\n"),
                ),
            ],
            None,
            vec![(
                c::FL_LOAD_BALANCER_OVERLAP.code,
                Some("b"),
                "spec.loadBalancerPools[0].cidr",
                "192.168.50.128/25",
            )],
        ),
        (
            "node subnets",
            vec![
                plan(
                    "a",
                    &(pools(&["10.1.0.0/16"]) + "  network:\n    nodeSubnets: [192.168.10.0/24]\n"),
                ),
                plan(
                    "b",
                    &(pools(&["10.2.0.0/16"]) + "  network:\n    nodeSubnets: [192.168.10.0/23]\n"),
                ),
            ],
            None,
            vec![(
                c::FL_NODE_OVERLAP.code,
                Some("b"),
                "spec.network.nodeSubnets[0]",
                "192.168.10.0/24",
            )],
        ),
        (
            "avoided ranges are drawn, not compared",
            vec![
                plan(
                    "a",
                    &(pools(&["10.1.0.0/16"]) + "  network:\n    avoid: [10.2.0.0/16]\n"),
                ),
                plan("b", &pools(&["10.2.0.0/16"])),
            ],
            None,
            vec![],
        ),
        (
            // 10.255.128.0/17 is inside the reserved 10.255.0.0/16.
            "reserved range",
            vec![plan("a", &pools(&["10.255.128.0/17"]))],
            Some(fleet(
                "  reserved:\n    - cidr: 10.255.0.0/16\n      reason: office VPN\n",
            )),
            vec![(
                c::FL_RESERVED_OVERLAP.code,
                Some("a"),
                "spec.podPools[0].cidr",
                "10.255.128.0/17",
            )],
        ),
        (
            // The pool sits in the routed 10.0.0.0/8; the node subnet too, which is expected.
            "routed network",
            vec![plan(
                "a",
                &(pools(&["10.244.0.0/16"]) + "  network:\n    nodeSubnets: [10.1.0.0/24]\n"),
            )],
            Some(fleet("  routed:\n    - cidr: 10.0.0.0/8\n")),
            vec![(
                c::FL_ROUTED_OVERLAP.code,
                Some("a"),
                "spec.podPools[0].cidr",
                "10.244.0.0/16",
            )],
        ),
    ];
    for (name, plans, fleet, expected) in rows {
        assert_eq!(
            findings(fleet.as_ref(), &plans),
            expect(&expected),
            "{name}"
        );
    }
}

#[test]
fn routing_groups() {
    let a = plan(
        "a",
        "  bgp:\n    enabled: true\n  podPools:\n    - name: p\n      cidr: 10.1.0.0/16\n      encapsulation: VXLAN\n      natOutgoing: false\n",
    );
    let b = plan(
        "b",
        "  bgp:\n    enabled: true\n  podPools:\n    - name: p\n      cidr: 10.2.0.0/16\n      encapsulation: VXLANCrossSubnet\n      natOutgoing: false\n",
    );
    let c = plan(
        "c",
        "  bgp:\n    enabled: true\n  podPools:\n    - name: p\n      cidr: 10.3.0.0/16\n      encapsulation: IPIP\n      natOutgoing: false\n      disableBGPExport: true\n",
    );
    let d = plan(
        "d",
        "  podPools:\n    - name: p\n      cidr: 10.4.0.0/16\n      encapsulation: VXLAN\n      natOutgoing: false\n",
    );
    let plans = [a, b, c, d];
    // VXLAN and VXLANCrossSubnet are one family: a and b agree, c (IP-in-IP) differs; d runs no
    // BGP; c keeps its routes from BGP. Nothing outside a group is judged.
    let group = fleet("  routing:\n    - name: east\n      clusters: [a, b, c, d]\n");
    assert_eq!(
        findings(Some(&group), &plans),
        expect(&[
            (
                c::FL_ROUTED_NO_EXPORT.code,
                Some("c"),
                "spec.podPools[0].disableBGPExport",
                ""
            ),
            (
                c::FL_ROUTED_ENCAPSULATION.code,
                Some("c"),
                "spec.podPools[0].encapsulation",
                ""
            ),
            (
                c::FL_ROUTED_WITHOUT_BGP.code,
                Some("d"),
                "spec.bgp.enabled",
                ""
            ),
        ])
    );
    let apart = fleet("  routing:\n    - name: east\n      clusters: [a, b]\n");
    assert_eq!(findings(Some(&apart), &plans), expect(&[]));
}

#[test]
fn fleet_file_mistakes() {
    let plans = [
        plan("alpha", &pools(&["10.1.0.0/16"])),
        plan("beta", &pools(&["10.2.0.0/16"])),
        plan("beta", &pools(&["10.3.0.0/16"])),
    ];
    let group = fleet(
        "  routing:\n    - name: g\n      clusters: [alpah, beta]\n    - name: h\n      clusters: [beta, beta]\n",
    );
    let found = check(Some(&group), &plans);
    let summary: Vec<(Option<&str>, &str, &str)> = found
        .iter()
        .filter(|f| f.diagnostic.code == c::FL_FLEET_FILE.code)
        .map(|f| {
            (
                f.cluster.as_deref(),
                f.diagnostic.code,
                f.diagnostic.path.as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (None, c::FL_FLEET_FILE.code, "spec.routing[0].clusters[0]"),
            (None, c::FL_FLEET_FILE.code, "spec.routing[1].clusters"),
            (Some("beta"), c::FL_FLEET_FILE.code, "metadata.name"),
        ]
    );
    assert_eq!(
        found.first().and_then(|f| f.diagnostic.hint.as_deref()),
        Some("did you mean `alpha`?")
    );

    let head = "apiVersion: calico-render.dev/v1alpha1\nkind: Fleet\nspec:\n  clusters: [a.yaml]\n";
    for (tail, path, line) in [
        (
            "  reserved:\n    - cidr: 10.0.0.0/33\n",
            "spec.reserved[0].cidr",
            6,
        ),
        ("  routng: []\n", "spec.routng", 5),
        (
            "  routing:\n    - clusters: [a, b]\n",
            "spec.routing[0].name",
            6,
        ),
    ] {
        let errors = read("fleet.yaml", &format!("{head}{tail}"))
            .err()
            .unwrap_or_default();
        let paths: Vec<(&str, Option<usize>, &str)> = errors
            .iter()
            .map(|d| {
                (
                    d.path.as_str(),
                    d.location.as_ref().and_then(|l| l.line),
                    d.code,
                )
            })
            .collect();
        assert_eq!(paths, [(path, Some(line), c::FL_FLEET_FILE.code)], "{tail}");
    }
}

#[test]
fn blocks_and_nodes() {
    // A /16 in /26 blocks: 2^(26-16) = 1024 blocks of 2^(32-26) = 64 addresses; each node needs
    // a block of its own, so at most 1024 nodes. A /24 pool with /26 blocks: 4 blocks.
    let rows = [
        ("10.0.0.0/16", 26, 1024u128, 64u128),
        ("10.0.0.0/24", 26, 4, 64),
        ("10.0.0.0/24", 24, 1, 256),
        ("fd00::/56", 122, 1 << 66, 64),
        ("fd00::/48", 116, 1 << 68, 4096),
    ];
    for (cidr, block_size, count, per_block) in rows {
        let net: ipnet::IpNet = cidr.parse().unwrap();
        let blocks = Blocks::of(net, block_size);
        assert_eq!(
            (blocks.count, blocks.addresses_per_block, blocks.max_nodes()),
            (count, per_block, count),
            "{cidr}"
        );
    }
}

/// The sweep finds exactly the pairs a comparison of every pair finds, on a few thousand
/// ranges with many nestings (a fixed pseudo-random sequence, so failures replay).
#[test]
fn sweep_agrees_with_every_pair() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut plans = Vec::new();
    for cluster in 0..300 {
        let mut ranges = Vec::new();
        for index in 0..4 {
            let prefix = 8 + (next() % 17) as u8;
            let address = std::net::Ipv4Addr::from(0x0a00_0000 | (next() as u32 & 0x00ff_ffff));
            let v4 = ipnet::Ipv4Net::new(address, prefix).unwrap().trunc();
            let net = if next() % 5 == 0 {
                ipnet::IpNet::V6(
                    ipnet::Ipv6Net::new(v4.network().to_ipv6_mapped(), prefix + 96)
                        .unwrap()
                        .trunc(),
                )
            } else {
                ipnet::IpNet::V4(v4)
            };
            ranges.push(Range {
                kind: RangeKind::PodPool,
                net,
                name: None,
                path: format!("r{index}"),
                blocks: None,
            });
        }
        plans.push(AddressPlan {
            cluster: format!("c{cluster}"),
            ranges,
            bgp: false,
            pools: vec![],
        });
    }
    let mut brute = Vec::new();
    let all: Vec<(usize, usize, ipnet::IpNet)> = plans
        .iter()
        .enumerate()
        .flat_map(|(p, plan)| {
            plan.ranges
                .iter()
                .enumerate()
                .map(move |(r, range)| (p, r, range.net))
        })
        .collect();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.0 != b.0 && (a.2.contains(&b.2) || b.2.contains(&a.2)) {
                let (lo, hi) = if a.0 < b.0 { (a, b) } else { (b, a) };
                brute.push((lo.0, lo.1, hi.0, hi.1));
            }
        }
    }
    // Each overlap the sweep gives stands for the pairs of its owners from different plans:
    // every two owners of one shared range, or each owner of one range with each of the other.
    let cluster = |owner: &Owner| match *owner {
        Owner::Cluster { plan, range } => (plan, range),
        _ => unreachable!(),
    };
    let mut swept: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut push = |a: (usize, usize), b: (usize, usize)| {
        if a.0 != b.0 {
            let (lo, hi) = if a.0 < b.0 { (a, b) } else { (b, a) };
            swept.push((lo.0, lo.1, hi.0, hi.1));
        }
    };
    let found = overlaps(&plans, &[], &[]);
    for overlap in &found {
        if overlap.second.is_empty() {
            for (i, a) in overlap.first.iter().enumerate() {
                for b in &overlap.first[i + 1..] {
                    push(cluster(a), cluster(b));
                }
            }
        } else {
            for a in &overlap.first {
                for b in &overlap.second {
                    push(cluster(a), cluster(b));
                }
            }
        }
    }
    assert!(
        found.iter().any(|overlap| overlap.second.is_empty()),
        "the data should hold some range more than once"
    );
    brute.sort_unstable();
    swept.sort_unstable();
    assert!(
        brute.len() > 100,
        "the data should nest often: {}",
        brute.len()
    );
    assert_eq!(swept, brute);
}

/// Many clusters share one Service range by design (kubeadm's 10.96.0.0/12), and no rule
/// compares Service ranges outside a routing group: the sweep must not hand those pairs to the
/// rules. It once did (every pair found, then dropped: 10,000 clusters made about 50 million),
/// which this counts rather than times: with that sweep, 2,000 clusters give 1,999,000 pairs
/// instead of the 3 below.
#[test]
fn a_shared_service_range_is_not_swept_pairwise() {
    let template = plan(
        "template",
        "  bgp:\n    enabled: true\n  podPools:\n    - name: p\n      cidr: 10.0.0.0/24\n      encapsulation: VXLAN\n      natOutgoing: false\n  network:\n    serviceCIDRs: [10.96.0.0/12]\n",
    );
    let n: u32 = 2_000;
    let plans: Vec<AddressPlan> = (0..n)
        .map(|i| {
            let mut plan = template.clone();
            plan.cluster = format!("c{i}");
            // Each cluster's own /24 of pods, in 10.64.0.0/10 (clear of the Service range).
            let pods = ipnet::IpNet::V4(
                ipnet::Ipv4Net::new(std::net::Ipv4Addr::from(0x0a40_0000 + (i << 8)), 24).unwrap(),
            );
            for range in &mut plan.ranges {
                if range.kind == RangeKind::PodPool {
                    range.net = pods;
                }
            }
            plan
        })
        .collect();
    assert_eq!(
        plans[0].ranges.iter().map(|r| r.kind).collect::<Vec<_>>(),
        [RangeKind::PodPool, RangeKind::Service]
    );
    // No fleet file: nothing compared, nothing found.
    let (found, counts) = super::check::check_counting(None, &plans);
    assert_eq!((found.len(), counts.overlaps, counts.owners), (0, 0, 0));
    // Three clusters route to each other: their one Service range is swept once with its three
    // holders; the 1,997 others that hold it are never handed to the rules.
    let group = fleet("  routing:\n    - name: east\n      clusters: [c0, c1, c2]\n");
    let (found, counts) = super::check::check_counting(Some(&group), &plans);
    assert_eq!((counts.overlaps, counts.owners), (1, 3));
    let service: Vec<(Option<&str>, &str, &[String])> = found
        .iter()
        .filter(|f| f.diagnostic.code == c::FL_SERVICE_OVERLAP.code)
        .map(|f| {
            (
                f.cluster.as_deref(),
                f.diagnostic.path.as_str(),
                f.clusters.as_slice(),
            )
        })
        .collect();
    // One finding for the three, reported on the cluster whose name sorts last.
    assert_eq!(
        service,
        [(
            Some("c2"),
            "spec.network.serviceCIDRs[0]",
            &[String::from("c0"), String::from("c1"), String::from("c2")][..]
        )]
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

/// A cluster with the pods, LoadBalancer pool, node subnet and Service range every cluster of
/// [`identical_clusters`] copies, BGP on and no NAT (so routing groups add no findings).
fn copied(name: &str) -> AddressPlan {
    plan(
        name,
        "  bgp:\n    enabled: true\n  podPools:\n    - name: pods\n      cidr: 10.244.0.0/16\n      encapsulation: VXLAN\n      natOutgoing: false\n  loadBalancerPools:\n    - name: lb\n      cidr: 192.168.50.0/24\n  network:\n    nodeSubnets: [10.0.0.0/24]\n    serviceCIDRs: [10.96.0.0/12]\n",
    )
}

fn all_in_one_group(plans: &[AddressPlan]) -> Fleet {
    let names: Vec<&str> = plans.iter().map(|p| p.cluster.as_str()).collect();
    fleet(&format!(
        "  routing:\n    - name: all\n      clusters: [{}]\n",
        names.join(", ")
    ))
}

/// n clusters that copy one another's ranges: one finding per shared range naming all n (two
/// are named as a pair, as two different ranges are), not n(n-1)/2 pairs.
#[test]
fn identical_clusters() {
    // The four ranges are disjoint: 10.0.0.0/24, 10.96.0.0/12 (10.96.0.0-10.111.255.255),
    // 10.244.0.0/16 and 192.168.50.0/24.
    let kinds = [
        (
            c::FL_POD_OVERLAP.code,
            "spec.podPools[0].cidr",
            "pod pool",
            "10.244.0.0/16",
            "pod pool `pods` (10.244.0.0/16)",
        ),
        (
            c::FL_LOAD_BALANCER_OVERLAP.code,
            "spec.loadBalancerPools[0].cidr",
            "LoadBalancer pool",
            "192.168.50.0/24",
            "LoadBalancer pool `lb` (192.168.50.0/24)",
        ),
        (
            c::FL_NODE_OVERLAP.code,
            "spec.network.nodeSubnets[0]",
            "node subnet",
            "10.0.0.0/24",
            "node subnet 10.0.0.0/24",
        ),
        (
            c::FL_SERVICE_OVERLAP.code,
            "spec.network.serviceCIDRs[0]",
            "Service range",
            "10.96.0.0/12",
            "Service range 10.96.0.0/12",
        ),
    ];
    for n in [2usize, 3, 50] {
        let plans: Vec<AddressPlan> = (0..n).map(|i| copied(&format!("c{i:02}"))).collect();
        let group = all_in_one_group(&plans);
        let found = check(Some(&group), &plans);
        let names: Vec<String> = (0..n).map(|i| format!("c{i:02}")).collect();
        let last = format!("c{:02}", n - 1);
        let mut got: Vec<(&str, Option<&str>, &str, &[String])> = found
            .iter()
            .map(|f| {
                (
                    f.diagnostic.code,
                    f.cluster.as_deref(),
                    f.diagnostic.path.as_str(),
                    f.clusters.as_slice(),
                )
            })
            .collect();
        got.sort_by_key(|row| row.0);
        let mut want: Vec<(&str, Option<&str>, &str, &[String])> = kinds
            .iter()
            .map(|(code, path, ..)| (*code, Some(last.as_str()), *path, names.as_slice()))
            .collect();
        want.sort_by_key(|row| row.0);
        assert_eq!(got, want, "{n} clusters");
        for (code, _, what, range, label) in kinds {
            let Some(message) = found
                .iter()
                .find(|f| f.diagnostic.code == code)
                .map(|f| f.diagnostic.message.as_str())
            else {
                panic!("{n}: no {code}");
            };
            let group = if code == c::FL_SERVICE_OVERLAP.code {
                " of routing group `all`"
            } else {
                ""
            };
            let expected = match n {
                2 => format!(
                    "{label} of cluster `c01` overlaps {label} of cluster `c00`: both hold {range}"
                ),
                3 => format!(
                    "{what} {range} is used by 3 clusters{group}: `c00`, `c01`, `c02`; all hold {range}"
                ),
                _ => format!(
                    "{what} {range} is used by 50 clusters{group}: `c00`, `c01`, `c02`, `c03`, `c04` and 45 more; all hold {range}"
                ),
            };
            assert_eq!(message, expected, "{n} clusters, {code}");
        }
    }
}

/// Identical and different ranges together, and Service ranges in and out of routing groups,
/// worked by hand.
#[test]
fn shared_ranges_and_pairs() {
    let svc = |cidr: &str| format!("  network:\n    serviceCIDRs: [{cidr}]\n");
    // a, b and c hold 10.244.0.0/16; d holds 10.244.128.0/17, its upper half (10.244.128.0 -
    // 10.244.255.255): one group of three and one pair of the /17 with the /16 of all three.
    let mixed = vec![
        plan("a", &pools(&["10.244.0.0/16"])),
        plan("b", &pools(&["10.244.0.0/16"])),
        plan("c", &pools(&["10.244.0.0/16"])),
        plan("d", &pools(&["10.244.128.0/17"])),
    ];
    let found = check(None, &mixed);
    let got: Vec<(&str, Option<&str>, &str, Vec<&str>)> = found
        .iter()
        .map(|f| {
            (
                f.diagnostic.code,
                f.cluster.as_deref(),
                f.diagnostic.message.as_str(),
                f.clusters.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                c::FL_POD_OVERLAP.code,
                Some("c"),
                "pod pool 10.244.0.0/16 is used by 3 clusters: `a`, `b`, `c`; all hold 10.244.0.0/16",
                vec!["a", "b", "c"]
            ),
            (
                c::FL_POD_OVERLAP.code,
                Some("d"),
                "pod pool `pool-0` (10.244.128.0/17) of cluster `d` overlaps pod pool 10.244.0.0/16 of 3 clusters (`a`, `b`, `c`): both hold 10.244.128.0/17",
                vec!["a", "b", "c", "d"]
            ),
        ]
    );

    // One Service range in four clusters (each with its own pods).
    let four: Vec<AddressPlan> = ["a", "b", "c", "d"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            plan(
                name,
                &(pools(&[&format!("10.{}.0.0/16", i + 1)])
                    + "  bgp:\n    enabled: true\n"
                    + &svc("10.96.0.0/12")),
            )
        })
        .collect();
    let service = |fleet: Option<&Fleet>| -> Vec<(Option<String>, Vec<String>, String)> {
        check(fleet, &four)
            .into_iter()
            .filter(|f| f.diagnostic.code == c::FL_SERVICE_OVERLAP.code)
            .map(|f| (f.cluster, f.clusters, f.diagnostic.message))
            .collect()
    };
    let strings = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
    // No routing groups: separate clusters reuse one Service range by design, nothing found.
    assert_eq!(service(None), []);
    // a and b route to each other, c and d do not: one pair.
    assert_eq!(
        service(Some(&fleet(
            "  routing:\n    - name: g\n      clusters: [a, b]\n"
        ))),
        [(
            Some(String::from("b")),
            strings(&["a", "b"]),
            String::from(
                "Service range 10.96.0.0/12 of cluster `b` overlaps Service range 10.96.0.0/12 of cluster `a`: both hold 10.96.0.0/12"
            )
        )]
    );
    // Two groups, {a, b, c} and {c, d}: a group of three, and c with d as a pair (a and d do
    // not route to each other, so no finding names them together).
    assert_eq!(
        service(Some(&fleet(
            "  routing:\n    - name: g\n      clusters: [a, b, c]\n    - name: h\n      clusters: [c, d]\n"
        ))),
        [
            (
                Some(String::from("c")),
                strings(&["a", "b", "c"]),
                String::from(
                    "Service range 10.96.0.0/12 is used by 3 clusters of routing group `g`: `a`, `b`, `c`; all hold 10.96.0.0/12"
                )
            ),
            (
                Some(String::from("d")),
                strings(&["c", "d"]),
                String::from(
                    "Service range 10.96.0.0/12 of cluster `d` overlaps Service range 10.96.0.0/12 of cluster `c`: both hold 10.96.0.0/12"
                )
            ),
        ]
    );
}

/// 1,000 clusters that copy one another's four ranges: the rules see each shared range once with
/// its 1,000 holders (4 overlaps, 4,000 owners: linear), where a pairwise sweep handed them
/// 4 x 499,500 pairs; and one finding per range names all 1,000.
#[test]
fn identical_clusters_are_judged_in_linear_work() {
    let n = 1_000;
    let template = copied("template");
    let plans: Vec<AddressPlan> = (0..n)
        .map(|i| {
            let mut plan = template.clone();
            plan.cluster = format!("c{i:04}");
            plan
        })
        .collect();
    let group = all_in_one_group(&plans);
    let (found, counts) = super::check::check_counting(Some(&group), &plans);
    assert_eq!((counts.overlaps, counts.owners), (4, 4 * n));
    assert_eq!(found.len(), 4, "{:?}", found.first());
    for finding in &found {
        assert_eq!(finding.clusters.len(), n, "{}", finding.diagnostic.code);
        assert!(
            finding
                .diagnostic
                .message
                .contains("is used by 1000 clusters"),
            "{}",
            finding.diagnostic.message
        );
    }
}
