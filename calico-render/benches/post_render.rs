//! Benchmark of `calico-render post-render` on a 50 MB stream of chart output and on a 1 MB one
//! (the size of a real chart's output), side by side in one run with `cat` (the ceiling: a pure
//! copy through the same pipes), with the usual alternative post-renderer, `kustomize build`
//! over the stream with a JSON patch on the Installation, and with `helm template` of a chart
//! that renders the 1 MB stream (post-render's share of a Helm run).
//!
//! Each command gets the stream on a pipe to its standard input and writes to a pipe we drain,
//! as Helm does; wall time and peak RSS (`/usr/bin/time -f %M`) are measured per run, best of
//! `RUNS` (kustomize runs once, under a time limit, `BENCH_KUSTOMIZE_SECS`, default 900: it
//! is slow and memory-hungry on streams this size, and a limit hit is reported as such). Run
//! with `cargo bench -p calico-render --bench post_render`; set `BENCH_MB` for another size of
//! the large stream. kustomize and helm are looked for as the e2e tests do
//! (`CALICO_RENDER_E2E_TOOLS`, else `~/.cache/calico-render-e2e/bin`) and skipped with a notice
//! when absent. Targets: at least 1/6 of `cat`'s throughput on the large stream, a peak of at
//! most 32 MiB whatever the size, at most 5% of `helm template` on the small one.
//!
//! To compare two builds side by side, set `BENCH_BASELINE` to another `calico-render` binary
//! (an older build): `cat`, it and this build then take turns, run after run, so a change in
//! the machine's load hits all three alike; its output must be byte-identical to this build's.
// A bench is a harness, not input handling: it may unwrap and panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 3;

/// One document per kind the chart renders, with a placeholder for a unique suffix.
const TEMPLATE: &str = "\
---
# Source: tigera-operator/templates/tigera-operator/02-serviceaccount-tigera-operator.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tigera-operator-@
  namespace: tigera-operator
---
# Source: tigera-operator/templates/tigera-operator/02-role-tigera-operator.yaml
kind: ClusterRole
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: tigera-operator-@
rules:
  - apiGroups: [\"\"]
    resources: [\"namespaces\", \"pods\", \"services\", \"configmaps\", \"secrets\"]
    verbs: [\"get\", \"list\", \"watch\", \"create\", \"update\", \"delete\"]
  - apiGroups: [\"operator.tigera.io\"]
    resources: [\"*\"]
    verbs: [\"*\"]
---
# Source: tigera-operator/templates/tigera-operator/02-tigera-operator.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tigera-operator-@
  namespace: tigera-operator
  labels:
    k8s-app: tigera-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      name: tigera-operator-@
  template:
    metadata:
      labels:
        name: tigera-operator-@
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      tolerations:
        - effect: NoExecute
          operator: Exists
      serviceAccountName: tigera-operator
      hostNetwork: true
      containers:
        - name: tigera-operator
          image: quay.io/tigera/operator:v1.42.3
          args:
            - -manage-crds=true
          env:
            - name: WATCH_NAMESPACE
              value: \"\"
          envFrom:
            - configMapRef:
                name: kubernetes-services-endpoint
                optional: true
---
# Source: tigera-operator/templates/extra/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings-@
  namespace: tigera-operator
data:
  config.yaml: |
    ---
    kind: Installation
    key: value
  flag: \"on\"
";

/// The chart's own operator objects, placed in the middle of the stream.
const CHART_OBJECTS: &str = "\
---
# Source: tigera-operator/templates/crs/custom-resources.yaml
apiVersion: operator.tigera.io/v1
kind: Installation
metadata:
  name: default
spec:
  kubeletVolumePluginPath: None
  registry: registry.example/
---
# Source: tigera-operator/templates/crs/custom-resources.yaml
apiVersion: operator.tigera.io/v1
kind: APIServer
metadata:
  name: default
spec: {}
";

const CLUSTER: &str = "\
apiVersion: calico-render.dev/v1alpha1
kind: ClusterNetwork
metadata:
  name: bench
spec:
  apiEndpoint:
    host: control.k8s.example.com
    port: 6443
  dataplane: BPF
  podPools:
    - name: default-ipv4-ippool
      cidr: 172.20.0.0/16
      blockSize: 26
      encapsulation: VXLANCrossSubnet
";

/// What kustomize applies in the same role: the dataplane switch and the pool, as a JSON patch.
const KUSTOMIZATION: &str = "\
resources:
  - all.yaml
patches:
  - target:
      group: operator.tigera.io
      version: v1
      kind: Installation
      name: default
    patch: |-
      - op: add
        path: /spec/calicoNetwork
        value:
          bgp: Disabled
          linuxDataplane: BPF
          ipPools:
            - name: default-ipv4-ippool
              cidr: 172.20.0.0/16
              blockSize: 26
              encapsulation: VXLANCrossSubnet
";

struct Measure {
    name: &'static str,
    wall: Duration,
    peak_kib: u64,
    out_bytes: usize,
    /// False when the command was stopped by its time limit.
    finished: bool,
}

fn stream(target: usize) -> String {
    let mut text = String::with_capacity(target + TEMPLATE.len() * 2);
    let mut idx = 0usize;
    let mut placed = false;
    while text.len() < target {
        text.push_str(&TEMPLATE.replace('@', &idx.to_string()));
        if !placed && text.len() >= target / 2 {
            text.push_str(CHART_OBJECTS);
            placed = true;
        }
        idx += 1;
    }
    text
}

/// Run `command` with `input` on a pipe, drain its output; wall time and peak RSS.
fn measure(
    name: &'static str,
    program: &Path,
    args: &[&str],
    input: &[u8],
    runs: usize,
) -> Measure {
    let mut best: Option<Measure> = None;
    for _ in 0..runs {
        let started = Instant::now();
        let mut child = Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {}: {err}", program.display()));
        let mut stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let out_bytes = std::thread::scope(|scope| {
            scope.spawn(move || {
                // The command may stop reading early on error; the status says so.
                let _ = stdin.write_all(input);
            });
            let reader = scope.spawn(move || {
                let mut buf = vec![0u8; 1 << 20];
                let mut total = 0;
                loop {
                    match stdout.read(&mut buf) {
                        Ok(0) | Err(_) => break total,
                        Ok(n) => total += n,
                    }
                }
            });
            reader.join().expect("reader thread")
        });
        let output = child.wait_with_output().expect("wait");
        let wall = started.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // `timeout` exits 124 when it stopped the command.
        let finished = output.status.code() != Some(124);
        assert!(
            output.status.success() || !finished,
            "{name} failed: {stderr}"
        );
        let peak_kib = stderr
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or(0);
        let run = Measure {
            name,
            wall,
            peak_kib,
            out_bytes,
            finished,
        };
        eprintln!(
            "  {name}: {:.1} ms, peak {:.1} MiB{}",
            wall.as_secs_f64() * 1e3,
            peak_kib as f64 / 1024.0,
            if finished {
                ""
            } else {
                " (stopped by the time limit)"
            }
        );
        if best.as_ref().is_none_or(|b| run.wall < b.wall) {
            best = Some(run);
        }
    }
    best.expect("at least one run")
}

/// The whole standard output of `program` run on `input` (not timed).
fn output_of(program: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {}: {err}", program.display()));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let output = std::thread::scope(|scope| {
        scope.spawn(move || {
            let _ = stdin.write_all(input);
        });
        child.wait_with_output().expect("wait")
    });
    assert!(output.status.success(), "{} failed", program.display());
    output.stdout
}

/// A real tool (`kustomize`, `helm`), when installed where the e2e tests look for it.
fn tool(name: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("CALICO_RENDER_E2E_TOOLS").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(&std::env::var_os("HOME")?).join(".cache/calico-render-e2e/bin"),
    };
    let path = dir.join(name);
    path.is_file().then_some(path)
}

/// `cat`, this build and the baseline (if any) on `input`, in turns, best of [`RUNS`] rounds;
/// the baseline's output must be byte-identical to this build's.
fn compare(input: &[u8], args: &[&str], ours: &Path, baseline: Option<&Path>) -> Vec<Measure> {
    let mut best: Vec<Option<Measure>> = Vec::new();
    for _ in 0..RUNS {
        let mut round = vec![
            measure("cat", Path::new("cat"), &[], input, 1),
            measure("calico-render post-render", ours, args, input, 1),
        ];
        if let Some(baseline) = baseline {
            round.push(measure("baseline post-render", baseline, args, input, 1));
        }
        best.resize_with(round.len(), || None);
        for (slot, run) in best.iter_mut().zip(round) {
            if slot.as_ref().is_none_or(|b| run.wall < b.wall) {
                *slot = Some(run);
            }
        }
    }
    if let Some(baseline) = baseline {
        // Outside the timed runs: both outputs whole, compared byte for byte.
        let theirs = output_of(baseline, args, input);
        let mine = output_of(ours, args, input);
        assert!(
            theirs == mine,
            "the baseline's output differs from this build's ({} and {} bytes)",
            theirs.len(),
            mine.len()
        );
        eprintln!("baseline output: byte-identical ({} bytes)", mine.len());
    }
    best.into_iter().flatten().collect()
}

/// The table of one stream size.
fn table(report: &mut String, input: &str, results: &[Measure]) {
    let mb = input.len() as f64 / f64::from(1 << 20);
    let cat_rate = mb / results[0].wall.as_secs_f64();
    let _ = writeln!(
        report,
        "post-render benchmark: {mb:.1} MiB, {} documents, best of {RUNS}",
        input.matches("\n---\n").count() + 1
    );
    let _ = writeln!(
        report,
        "{:<30} {:>9} {:>10} {:>12} {:>10} {:>10}",
        "command", "wall ms", "MiB/s", "vs cat", "peak MiB", "out MiB"
    );
    for m in results {
        let rate = mb / m.wall.as_secs_f64();
        let _ = writeln!(
            report,
            "{:<30} {:>9.1} {:>10.0} {:>11.2}x {:>10.1} {:>10.1}{}",
            m.name,
            m.wall.as_secs_f64() * 1e3,
            rate,
            rate / cat_rate,
            m.peak_kib as f64 / 1024.0,
            m.out_bytes as f64 / f64::from(1 << 20),
            if m.finished {
                ""
            } else {
                "  (stopped by the time limit: at least this slow)"
            }
        );
    }
}

/// `helm template` of a chart whose one template is `stream` (as static text), best of
/// [`RUNS`].
fn helm_template(helm: &Path, dir: &Path, stream: &str) -> Measure {
    let chart = dir.join("chart");
    std::fs::create_dir_all(chart.join("templates")).expect("mkdir");
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: bench\nversion: 0.1.0\n",
    )
    .expect("write");
    std::fs::write(chart.join("templates/all.yaml"), stream).expect("write");
    let chart = chart.to_str().expect("utf-8 temp path").to_owned();
    measure(
        "helm template",
        helm,
        &["template", "bench", &chart],
        b"",
        RUNS,
    )
}

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no arguments.
    let megabytes: usize = std::env::var("BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let input = stream(megabytes << 20);
    // A real chart's output is about 1 MB: where post-render's cost sits beside `helm template`.
    let small = stream(1 << 20);
    let dir = tempfile::tempdir().expect("temp dir");
    let cluster = dir.path().join("cluster.yaml");
    std::fs::write(&cluster, CLUSTER).expect("write cluster");
    let cluster_arg = cluster.to_str().expect("utf-8 temp path");

    let args = ["post-render", "-f", cluster_arg];
    let ours = Path::new(env!("CARGO_BIN_EXE_calico-render"));
    let baseline = std::env::var_os("BENCH_BASELINE").map(PathBuf::from);
    let mut results = compare(input.as_bytes(), &args, ours, baseline.as_deref());
    let small_results = compare(small.as_bytes(), &args, ours, baseline.as_deref());
    match tool("kustomize") {
        Some(kustomize) => {
            let kdir = dir.path().join("kustomize");
            std::fs::create_dir(&kdir).expect("mkdir");
            std::fs::write(kdir.join("kustomization.yaml"), KUSTOMIZATION).expect("write");
            // The kustomize post-renderer pattern: save the stream, build with the patch.
            let script = dir.path().join("kustomize-post-renderer");
            std::fs::write(
                &script,
                format!(
                    "#!/bin/sh\ncat > '{k}/all.yaml' && exec timeout {secs} '{bin}' build '{k}'\n",
                    k = kdir.display(),
                    bin = kustomize.display(),
                    secs = std::env::var("BENCH_KUSTOMIZE_SECS")
                        .ok()
                        .and_then(|v| v.parse::<u64>().ok())
                        .unwrap_or(900),
                ),
            )
            .expect("write");
            let mut perms = std::fs::metadata(&script).expect("stat").permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
            std::fs::set_permissions(&script, perms).expect("chmod");
            results.push(measure(
                "kustomize build + JSON patch",
                &script,
                &[],
                input.as_bytes(),
                1,
            ));
        }
        None => eprintln!("note: kustomize not found; its column is skipped"),
    }

    let mut report = String::new();
    table(&mut report, &input, &results);
    if let Some(kustomize) = results.iter().find(|m| m.name.starts_with("kustomize")) {
        let _ = writeln!(
            report,
            "post-render is {:.1}x faster than kustomize and uses {:.1}x less memory",
            kustomize.wall.as_secs_f64() / results[1].wall.as_secs_f64(),
            kustomize.peak_kib as f64 / results[1].peak_kib.max(1) as f64
        );
    }
    table(&mut report, &small, &small_results);
    let small_ours = &small_results[1];
    let helm = tool("helm").map(|helm| helm_template(&helm, dir.path(), &small));
    match &helm {
        Some(helm) => {
            let _ = writeln!(
                report,
                "helm template of the same {:.1} MiB: {:.1} ms; post-render adds {:.1}%",
                small.len() as f64 / f64::from(1 << 20),
                helm.wall.as_secs_f64() * 1e3,
                100.0 * small_ours.wall.as_secs_f64() / helm.wall.as_secs_f64()
            );
        }
        None => eprintln!("note: helm not found; the share of `helm template` is skipped"),
    }
    print!("{report}");
    let mb = input.len() as f64 / f64::from(1 << 20);
    let cat_rate = mb / results[0].wall.as_secs_f64();
    let ours = &results[1];
    let ok_rate = mb / ours.wall.as_secs_f64() >= cat_rate / 6.0;
    let ok_memory = ours.peak_kib <= 32 * 1024;
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "targets: throughput >= 1/6 of cat on {mb:.0} MiB: {}; peak <= 32 MiB at {mb:.0} MiB \
         ({:.1} MiB; {:.1} MiB at 1 MiB): {}; at most 5% of helm template on 1 MiB: {}",
        verdict(ok_rate),
        ours.peak_kib as f64 / 1024.0,
        small_ours.peak_kib as f64 / 1024.0,
        verdict(ok_memory),
        match &helm {
            Some(helm) => verdict(small_ours.wall.as_secs_f64() <= 0.05 * helm.wall.as_secs_f64()),
            None => "not measured (no helm)",
        }
    );
}
