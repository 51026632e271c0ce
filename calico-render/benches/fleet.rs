//! Benchmark of a fleet: 1,000 generated clusters validated and rendered in one process, beside
//! `helm template` of the tigera-operator chart with the same values; peak memory of `validate`
//! and `render --out-dir` at 100, 1,000 and 10,000 clusters; the fleet overlap check alone on
//! 10,000 clusters (goal: under one second).
//!
//! helm renders one cluster per process, so it is timed over `BENCH_HELM_RUNS` runs (default 20;
//! 1000 runs them all) and their total is scaled to 1,000 clusters (said in the output). The values are what `calico-render render -o
//! helm-values` writes for the first generated cluster, and the chart is the repository's
//! `tests/charts/tigera-operator`. helm is looked for as the render bench looks for it; without it
//! the helm side is skipped with a notice.
//!
//! Run with `cargo bench -p calico-render --features cli --bench fleet` (the load average is
//! printed first: the figures are only as quiet as the machine). `BENCH_FLEET_ONLY=checks` runs
//! only the fleet checks (10,000 distinct clusters, and 1,000 identical ones).
// A bench is a harness, not input handling: it may unwrap and panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
use common::find_helm;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use calico_render::bundle::{Format, RenderConfig, Stage};
use calico_render::fleet::{self, Member};
use calico_render::report::LintLevels;
use calico_spec::fleet::AddressPlan;

/// helm runs when `BENCH_HELM_RUNS` does not say.
const HELM_RUNS: usize = 20;

/// Cluster `i` of a generated fleet: its own /24 of pods in 10.0.0.0/8, a /28 of nodes in
/// 172.16.0.0/12, a /30 of LoadBalancer addresses in 192.168.0.0/16 (distinct up to 16,384
/// clusters), the kubeadm Service range (not compared: no routing groups), and BGP on every
/// tenth.
fn cluster(i: usize) -> String {
    let pods = format!("10.{}.{}.0/24", (i >> 8) & 255, i & 255);
    let node = 0xac10_0000u32 + u32::try_from(i).unwrap() * 16;
    let node = format!("{}/28", std::net::Ipv4Addr::from(node));
    let lb = 0xc0a8_0000u32 + u32::try_from(i % 16_384).unwrap() * 4;
    let lb = format!("{}/30", std::net::Ipv4Addr::from(lb));
    let bgp = if i.is_multiple_of(10) {
        "  bgp:\n    enabled: true\n    advertise:\n      serviceLoadBalancerIPs: [LB]\n"
            .replace("LB", &lb)
    } else {
        String::new()
    };
    format!(
        "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: cluster-{i:05}\nspec:\n{bgp}  podPools:\n    - name: pods-ipv4\n      cidr: {pods}\n      blockSize: 28\n      encapsulation: VXLANCrossSubnet\n  loadBalancerPools:\n    - name: lb-ipv4\n      cidr: {lb}\n  network:\n    nodeSubnets: [{node}]\n    serviceCIDRs: [10.96.0.0/12]\n"
    )
}

fn members(n: usize) -> Vec<Member> {
    (0..n)
        .map(|i| Member {
            file: format!("cluster-{i:05}.yaml"),
            text: cluster(i),
        })
        .collect()
}

fn main() {
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_calico-render"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scratch = tempfile::tempdir().unwrap();
    let levels = LintLevels::default();
    let config = RenderConfig {
        stage: Stage::All,
        format: Format::Yaml,
    };
    println!(
        "threads: {} (RAYON_NUM_THREADS or the cores); load average: {}",
        rayon::current_num_threads(),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    if std::env::var("BENCH_FLEET_ONLY").is_ok_and(|only| only == "checks") {
        checks();
        return;
    }

    // 1,000 clusters validated and rendered in one process (the library, bytes in memory).
    let thousand = members(1_000);
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let run = fleet::run(&thousand, None, &levels, Some(config));
        times.push(started.elapsed());
        assert!(!run.failed(), "the generated fleet is valid");
        let files: usize = run.clusters.iter().map(|c| c.files.len()).sum();
        assert!(files >= 2_000, "{files}");
    }
    let library = median(&mut times);
    println!(
        "1,000 clusters, load + check + render in one process (library): median {:.1} ms over 5 runs ({:.3} ms per cluster)",
        ms(library),
        ms(library) / 1_000.0
    );

    // The same as a user runs it: one `render -f DIR --out-dir OUT` process, files written.
    let dirs: Vec<(usize, PathBuf)> = [100, 1_000, 10_000]
        .into_iter()
        .map(|n| {
            let dir = scratch.path().join(format!("fleet-{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            for member in members(n) {
                std::fs::write(dir.join(&member.file), &member.text).unwrap();
            }
            (n, dir)
        })
        .collect();
    let dir_1000 = &dirs[1].1;
    let mut process_times = Vec::new();
    for run in 0..3 {
        let out = scratch.path().join(format!("out-{run}"));
        let started = Instant::now();
        let status = Command::new(&ours)
            .args(["render", "-f"])
            .arg(dir_1000)
            .arg("--out-dir")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        process_times.push(started.elapsed());
        assert!(status.success());
        std::fs::remove_dir_all(&out).unwrap();
    }
    let process = median(&mut process_times);
    println!(
        "1,000 clusters, `calico-render render -f DIR --out-dir OUT` (one process, every file synced): median {:.1} ms over 3 runs",
        ms(process)
    );

    // helm: one cluster per process, scaled.
    match find_helm() {
        Some(helm) => {
            let values = scratch.path().join("values.yaml");
            let first = scratch.path().join("cluster-00000.yaml");
            std::fs::write(&first, cluster(0)).unwrap();
            let output = Command::new(&ours)
                .args(["render", "-o", "helm-values", "-f"])
                .arg(&first)
                .output()
                .unwrap();
            assert!(output.status.success());
            std::fs::write(&values, &output.stdout).unwrap();
            let chart = root.join("tests/charts/tigera-operator");
            let runs: usize = std::env::var("BENCH_HELM_RUNS")
                .ok()
                .and_then(|runs| runs.parse().ok())
                .filter(|runs| *runs > 0)
                .unwrap_or(HELM_RUNS);
            let mut helm_times = Vec::new();
            for _ in 0..runs {
                let started = Instant::now();
                let status = Command::new(&helm)
                    .arg("template")
                    .arg("calico")
                    .arg(&chart)
                    .arg("-f")
                    .arg(&values)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .unwrap();
                helm_times.push(started.elapsed());
                assert!(status.success(), "helm template failed");
            }
            let helm_total: Duration = helm_times.iter().sum();
            let helm_thousand = helm_total * 1_000 / u32::try_from(runs).unwrap();
            let helm_one = median(&mut helm_times);
            println!(
                "helm template (tigera-operator chart, same values): {runs} runs in {:.1} s, median {:.1} ms per cluster; 1,000 clusters {} = {:.1} s",
                helm_total.as_secs_f64(),
                ms(helm_one),
                if runs == 1_000 {
                    "measured"
                } else {
                    "scaled from their total"
                },
                helm_thousand.as_secs_f64()
            );
            println!(
                "1,000 clusters: calico-render {:.2} s (process) / {:.2} s (library) vs helm {:.1} s: {:.0}x / {:.0}x faster",
                process.as_secs_f64(),
                library.as_secs_f64(),
                helm_thousand.as_secs_f64(),
                helm_thousand.as_secs_f64() / process.as_secs_f64(),
                helm_thousand.as_secs_f64() / library.as_secs_f64()
            );
        }
        None => println!(
            "notice: helm not found (CALICO_RENDER_E2E_TOOLS or ~/.cache/calico-render-e2e/bin): helm side skipped"
        ),
    }

    // Peak RSS of whole processes, per fleet size.
    for (n, dir) in &dirs {
        let validate = peak_rss_kib(&ours, &["validate", "-f", dir.to_str().unwrap()]);
        let out = scratch.path().join(format!("rss-out-{n}"));
        let render = peak_rss_kib(
            &ours,
            &[
                "render",
                "-f",
                dir.to_str().unwrap(),
                "--out-dir",
                out.to_str().unwrap(),
            ],
        );
        let _ = std::fs::remove_dir_all(&out);
        println!(
            "{n:>6} clusters: peak RSS validate {:.1} MiB, render --out-dir {:.1} MiB",
            validate as f64 / 1024.0,
            render as f64 / 1024.0
        );
    }

    checks();
}

/// The fleet checks alone: 10,000 distinct clusters' plans, and 1,000 clusters that share every
/// range (one finding per shared range, not one per pair).
fn checks() {
    // The fleet checks alone on 10,000 clusters' plans (40,000 ranges).
    let plans: Vec<AddressPlan> = members(10_000)
        .iter()
        .map(|member| {
            let parsed = calico_spec::cluster_network::parse(&member.file, &member.text).unwrap();
            let name = parsed.cluster_network.metadata.name.clone().unwrap();
            AddressPlan::of(&name, &parsed.cluster_network)
        })
        .collect();
    let ranges: usize = plans.iter().map(|plan| plan.ranges.len()).sum();
    let mut check_times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let found = calico_spec::fleet::check(None, &plans);
        check_times.push(started.elapsed());
        assert!(found.is_empty(), "{:?}", found.first());
    }
    let check = median(&mut check_times);
    println!(
        "fleet checks on 10,000 clusters ({ranges} ranges): median {:.1} ms over 5 runs (goal < 1,000 ms: {})",
        ms(check),
        if check < Duration::from_secs(1) {
            "met"
        } else {
            "MISSED"
        }
    );

    // 1,000 copies of cluster 0 in one routing group: every range shared by all of them.
    let identical: Vec<AddressPlan> = (0..1_000)
        .map(|i| {
            let mut plan = plans[0].clone();
            plan.cluster = format!("same-{i:04}");
            plan
        })
        .collect();
    let names: Vec<String> = identical.iter().map(|p| p.cluster.clone()).collect();
    let fleet_text = format!(
        "apiVersion: calico-render.dev/v1alpha1\nkind: Fleet\nspec:\n  clusters: ['*.yaml']\n  routing:\n    - name: all\n      clusters: [{}]\n",
        names.join(", ")
    );
    let group = calico_spec::fleet::read("fleet.yaml", &fleet_text)
        .unwrap()
        .fleet;
    let mut identical_times = Vec::new();
    let mut findings = 0;
    for _ in 0..3 {
        let started = Instant::now();
        let found = calico_spec::fleet::check(Some(&group), &identical);
        identical_times.push(started.elapsed());
        findings = found.len();
    }
    let identical_check = median(&mut identical_times);
    println!(
        "fleet checks on 1,000 identical clusters in one routing group: median {:.1} ms over 3 runs, {findings} findings",
        ms(identical_check)
    );
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

/// Peak RSS of one run, from `/usr/bin/time -f %M` (KiB).
fn peak_rss_kib(program: &Path, args: &[&str]) -> u64 {
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .stdout(Stdio::null())
        .output()
        .expect("/usr/bin/time runs");
    let text = String::from_utf8_lossy(&output.stderr);
    text.lines()
        .last()
        .and_then(|line| line.trim().parse().ok())
        .expect("a peak RSS figure")
}
