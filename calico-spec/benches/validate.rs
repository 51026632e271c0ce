//! Validation benchmark: n projectcalico.org/v3 IPPools plus an Installation, for n = 1k, 10k
//! and 100k, measured side by side in one run.
//!
//! Run with `cargo bench -p calico-spec --bench validate` (release profile). For each n it
//! prints the time to validate the already parsed stream (overlap checks included: the best of
//! several rounds, wall clock, with the mean CPU time of a round beside it), the parse time and
//! the end-to-end time, then the growth ratios. Quadratic overlap checking would grow about 100x per
//! tenfold n; n log n grows about 11-13x. Validation reads every document once, so its cost
//! follows memory: 1k parsed pools fit in the processor's caches and 10k do not, which makes the
//! first ratio larger than the algorithm alone would; the 10k to 100k ratio, both out of cache,
//! shows the growth. The target is under 20 ms for n = 10k, once parsed.
//!
//! Old and new side by side: every round validates the stream twice, with the catalogue's own
//! checks only (`Context::release: None`, validation before the CRDs' CEL rules were evaluated)
//! and with the newest release's CEL rules too (what `validate` runs), and the table shows both
//! and the cost of the CEL rules and list types in percent. That column is the feature's own
//! cost; the 10% budget for new features compares whole runs of two builds, the commit before
//! the CEL rules (59d26b8^) and the current one, interleaved on one machine, so that work saved
//! elsewhere since then counts as well (both validate the stream below). Half of the pools are
//! `vxlanMode: CrossSubnet` only, whose rules the `!has(...)` terms settle; the other half also
//! say `ipipMode: Never`, which the `== 'Never'` terms settle. No pool reaches the interpreter
//! (a callgrind profile shows no call to it), so the column is the cost of reading the fields
//! the rules' terms and the list types name.
// A bench is a harness, not input handling: it may unwrap and panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use calico_spec::rules::{self, Context, InputDocument};
use calico_spec::source::{Limits, parse_stream};

/// A stream of `n_pools` disjoint /26 IPv4 pools (outside the LAN and Service ranges, so no
/// lint fires) and one Installation with its own pool.
fn stream(n_pools: usize) -> String {
    let mut out = String::with_capacity(n_pools * 160);
    out.push_str(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  calicoNetwork:\n    bgp: Disabled\n    ipPools:\n    - cidr: 172.20.0.0/16\n      encapsulation: VXLAN\n",
    );
    // 10.0.0.0/8 in /26 steps, skipping the Service range 10.96.0.0/12.
    let base: u32 = 10 << 24;
    let service = (base + (96 << 16))..(base + (112 << 16));
    let mut addr = base;
    for pool_idx in 0..n_pools {
        if service.contains(&addr) {
            addr = service.end;
        }
        let octets = addr.to_be_bytes();
        let ipip = if pool_idx % 2 == 1 {
            "  ipipMode: Never\n"
        } else {
            ""
        };
        let _ = write!(
            out,
            "---\napiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: pool-{pool_idx}\nspec:\n  cidr: {}.{}.{}.{}/26\n  vxlanMode: CrossSubnet\n{ipip}  natOutgoing: true\n  nodeSelector: all()\n",
            octets[0], octets[1], octets[2], octets[3]
        );
        addr += 64;
    }
    out
}

struct Measurement {
    n_pools: usize,
    parse: Duration,
    /// With the CRDs' CEL rules (new).
    validate: Duration,
    /// The catalogue's own checks only (old).
    validate_old: Duration,
    /// Mean CPU time of a validate round with the CEL rules, when the system reports it.
    validate_cpu: Option<Duration>,
}

/// The CPU time this thread has run so far, from `/proc/thread-self/schedstat` (Linux; `None`
/// elsewhere). On a loaded machine the wall time of a round includes the time other processes
/// held the CPU; the CPU time does not, so the two side by side show how much of a slow round
/// was waiting rather than working. The kernel brings the figure up to date only at scheduler
/// ticks, so one reading can lag by a few milliseconds: only the mean over many rounds, read
/// once before and once after them, is meaningful.
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

fn measure(n_pools: usize, rounds: usize) -> Measurement {
    let text = stream(n_pools);
    let started = Instant::now();
    let documents =
        parse_stream(&text, &Limits::LARGE_STREAMS).expect("the generated stream is YAML");
    let parse = started.elapsed();
    let inputs: Vec<InputDocument<'_>> = documents
        .iter()
        .map(|document| InputDocument {
            file: "bench.yaml",
            document,
        })
        .collect();
    let ctx = Context::assumed();
    let old_ctx = Context {
        release: None,
        ..Context::assumed()
    };
    let round = |ctx: &Context| {
        let started = Instant::now();
        let outcome = rules::validate(black_box(&inputs), ctx);
        let elapsed = started.elapsed();
        assert!(
            outcome.diagnostics.is_empty(),
            "the generated stream is valid: {:?}",
            outcome.diagnostics.first()
        );
        drop(outcome);
        elapsed
    };
    let mut best = Duration::MAX;
    let mut best_old = Duration::MAX;
    let mut cpu = Duration::ZERO;
    for _ in 0..rounds {
        best_old = best_old.min(round(&old_ctx));
        let cpu_before = thread_cpu_time();
        best = best.min(round(&ctx));
        if let (Some(after), Some(before)) = (thread_cpu_time(), cpu_before) {
            cpu += after.saturating_sub(before);
        }
    }
    let rounds_u32 = u32::try_from(rounds).unwrap_or(u32::MAX);
    let mean_cpu = thread_cpu_time().map(|_| cpu / rounds_u32);
    Measurement {
        n_pools,
        parse,
        validate: best,
        validate_old: best_old,
        validate_cpu: mean_cpu,
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent; keep that fast.
    let quick = !std::env::args().any(|arg| arg == "--bench");
    // `VALIDATE_BENCH_ONLY=10000:1` (pools:rounds) measures one size only, for a profiler
    // (`valgrind --tool=callgrind` on the bench binary); the table is the same work per round.
    let only: Option<(usize, usize)> = std::env::var("VALIDATE_BENCH_ONLY").ok().map(|spec| {
        let (n, rounds) = spec
            .split_once(':')
            .expect("VALIDATE_BENCH_ONLY is pools:rounds");
        (n.parse().unwrap(), rounds.parse().unwrap())
    });
    let sizes: &[(usize, usize)] = if let Some(only) = &only {
        std::slice::from_ref(only)
    } else if quick {
        &[(100, 1), (1_000, 1)]
    } else {
        &[(1_000, 200), (10_000, 40), (100_000, 4)]
    };
    let results: Vec<Measurement> = sizes
        .iter()
        .map(|&(n, rounds)| measure(n, rounds))
        .collect();
    println!(
        "{:>8}  {:>12}  {:>12}  {:>12}  {:>8}  {:>12}  {:>14}",
        "pools", "validate ms", "(mean cpu)", "old ms", "CEL", "parse ms", "end-to-end ms"
    );
    for result in &results {
        let cpu = result
            .validate_cpu
            .map_or_else(|| "-".to_owned(), |cpu| format!("{:.2}", ms(cpu)));
        let extra =
            (result.validate.as_secs_f64() / result.validate_old.as_secs_f64() - 1.0) * 100.0;
        println!(
            "{:>8}  {:>12.2}  {:>12}  {:>12.2}  {:>7.1}%  {:>12.2}  {:>14.2}",
            result.n_pools,
            ms(result.validate),
            cpu,
            ms(result.validate_old),
            extra,
            ms(result.parse),
            ms(result.validate + result.parse)
        );
    }
    for pair in results.windows(2) {
        let n_ratio = pair[1].n_pools as f64 / pair[0].n_pools as f64;
        let time_ratio = pair[1].validate.as_secs_f64() / pair[0].validate.as_secs_f64();
        let n_log_n = n_ratio * (pair[1].n_pools as f64).ln() / (pair[0].n_pools as f64).ln();
        println!(
            "n x{n_ratio:.0}: validate time x{time_ratio:.1} (n log n predicts x{n_log_n:.1}, n^2 x{:.0})",
            n_ratio * n_ratio
        );
    }
    if !quick && only.is_none() {
        let ten_k = results
            .iter()
            .find(|result| result.n_pools == 10_000)
            .expect("10k measured");
        println!(
            "10k pools + Installation, once parsed: {:.2} ms (target < 20 ms): {}",
            ms(ten_k.validate),
            if ten_k.validate < Duration::from_millis(20) {
                "met"
            } else {
                "NOT met"
            }
        );
    }
}
