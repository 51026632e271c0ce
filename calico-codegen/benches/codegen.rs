//! Benchmark: generating the eight committed Calico kinds, side by side with kopium.
//!
//! Run with `cargo bench -p calico-codegen` (release build). It measures, interleaved in one
//! run so that machine load affects both sides alike:
//!
//! - `engine`: this crate's `generate` in-process for all eight v3.32.1 kinds, reading the
//!   files included;
//! - `cli`: one process of the `calico-codegen` binary doing the same and writing the files;
//! - `kopium`: kopium on six of those CRDs (Installation, APIServer, TigeraStatus, IPPool,
//!   BGPConfiguration, BGPPeer), one process each, as kopium takes one CRD per run.
//!
//! kopium is looked up in `$KOPIUM`, then `/tmp/kopium/bin/kopium`, then `PATH`
//! (`cargo install kopium --root /tmp/kopium`); without it only our figures are printed.
//! It also compares the number of structs generated for Installation.
// A bench is a harness, not input handling: it may unwrap and panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ALL_EIGHT: [&str; 8] = [
    "operator.tigera.io_installations.yaml",
    "operator.tigera.io_apiservers.yaml",
    "operator.tigera.io_tigerastatuses.yaml",
    "projectcalico.org_ippools.yaml",
    "projectcalico.org_bgpconfigurations.yaml",
    "projectcalico.org_bgppeers.yaml",
    "projectcalico.org_felixconfigurations.yaml",
    "projectcalico.org_ipreservations.yaml",
];

const KOPIUM_SIX: [&str; 6] = [
    "operator.tigera.io_installations.yaml",
    "operator.tigera.io_apiservers.yaml",
    "operator.tigera.io_tigerastatuses.yaml",
    "projectcalico.org_ippools.yaml",
    "projectcalico.org_bgpconfigurations.yaml",
    "projectcalico.org_bgppeers.yaml",
];

const ROUNDS: usize = 15;

fn crd_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crds/v3.32.1")
}

fn kopium() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("KOPIUM").map(PathBuf::from),
        Some(PathBuf::from("/tmp/kopium/bin/kopium")),
    ];
    if let Some(found) = candidates.into_iter().flatten().find(|p| p.is_file()) {
        return Some(found);
    }
    let on_path = Command::new("kopium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    on_path
        .is_ok_and(|s| s.success())
        .then(|| PathBuf::from("kopium"))
}

fn engine_once(dir: &Path) -> Vec<calico_codegen::GeneratedFile> {
    let names: Vec<String> = ALL_EIGHT
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    let sources = calico_codegen::load_sources(&names).expect("pinned CRDs are readable");
    let options = calico_codegen::Options {
        docs: false,
        command: calico_codegen::command_line(&names, "out", false),
    };
    calico_codegen::generate(&sources, &options).expect("pinned CRDs generate")
}

/// Time spent in each stage for all eight kinds: (parse, lower, render).
fn stages_once(dir: &Path) -> (Duration, Duration, Duration) {
    use calico_codegen::{crd, lower, render};
    let names: Vec<String> = ALL_EIGHT
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    let sources = calico_codegen::load_sources(&names).expect("pinned CRDs are readable");
    let (parse, crds) = time(|| {
        sources
            .iter()
            .flat_map(|s| crd::parse_source(s).expect("parses"))
            .collect::<Vec<_>>()
    });
    let (lowering, models) = time(|| {
        let mut names = lower::Names::new(crds.iter().map(|c| c.kind.as_str()));
        crds.iter()
            .map(|c| {
                lower::lower_kind(
                    c,
                    &c.versions[0],
                    &mut names,
                    lower::LowerOptions::default(),
                )
            })
            .collect::<Vec<_>>()
    });
    let env = render::environment();
    let (rendering, _) = time(|| {
        models
            .iter()
            .map(|m| render::render_kind(&env, m, Vec::new()).expect("renders"))
            .collect::<Vec<_>>()
    });
    (parse, lowering, rendering)
}

fn cli_once(dir: &Path, out: &Path) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_calico-codegen"));
    for file in ALL_EIGHT {
        cmd.arg("--crd").arg(dir.join(file));
    }
    let status = cmd
        .arg("--out")
        .arg(out)
        .stderr(Stdio::null())
        .status()
        .expect("calico-codegen runs");
    assert!(status.success(), "calico-codegen failed");
}

fn kopium_once(kopium: &Path, dir: &Path) -> Vec<String> {
    KOPIUM_SIX
        .iter()
        .map(|file| {
            let output = Command::new(kopium)
                .arg("-f")
                .arg(dir.join(file))
                .stderr(Stdio::null())
                .output()
                .expect("kopium runs");
            assert!(output.status.success(), "kopium failed on {file}");
            String::from_utf8_lossy(&output.stdout).into_owned()
        })
        .collect()
}

fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let value = f();
    (start.elapsed(), value)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn count_structs(text: &str) -> usize {
    text.lines()
        .filter(|l| l.trim_start().starts_with("pub struct "))
        .count()
}

fn main() {
    let dir = crd_dir();
    if !dir.is_dir() {
        println!("notice: {} is absent; nothing to benchmark", dir.display());
        return;
    }
    let out = std::env::temp_dir().join(format!("calico-codegen-bench-{}", std::process::id()));
    let kopium = kopium();
    if kopium.is_none() {
        println!("notice: kopium not found ($KOPIUM, /tmp/kopium/bin/kopium, PATH); ours only");
    }
    // Warm-up: page cache, binary loading.
    let files = engine_once(&dir);
    cli_once(&dir, &out);
    let kopium_outputs = kopium.as_deref().map(|k| kopium_once(k, &dir));

    let (mut engine, mut cli, mut kop) = (Vec::new(), Vec::new(), Vec::new());
    let (mut parse, mut lowering, mut rendering) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        engine.push(time(|| engine_once(&dir)).0);
        let (p, l, r) = stages_once(&dir);
        parse.push(p);
        lowering.push(l);
        rendering.push(r);
        cli.push(time(|| cli_once(&dir, &out)).0);
        if let Some(k) = kopium.as_deref() {
            kop.push(time(|| kopium_once(k, &dir)).0);
        }
    }
    let _ = std::fs::remove_dir_all(&out);

    let ours_installation = files
        .iter()
        .find(|f| f.path.ends_with("/installation.rs"))
        .map_or(0, |f| count_structs(&f.contents));
    let (engine, cli) = (median(engine), median(cli));
    println!("codegen benchmark, median of {ROUNDS} interleaved rounds (release build)");
    println!(
        "  engine, 8 kinds in-process:          {:8.1} ms",
        ms(engine)
    );
    println!(
        "    stages: parse {:.1} ms, lower {:.1} ms, render {:.1} ms",
        ms(median(parse)),
        ms(median(lowering)),
        ms(median(rendering))
    );
    println!("  calico-codegen, 8 kinds, 1 process:  {:8.1} ms", ms(cli));
    if let (Some(outputs), false) = (kopium_outputs, kop.is_empty()) {
        let kop = median(kop);
        let kopium_installation = count_structs(&outputs[0]);
        println!("  kopium, 6 kinds, 6 processes:        {:8.1} ms", ms(kop));
        println!(
            "  ratio engine / kopium:  {:.3}   ratio 1 process / kopium: {:.3}   (target <= 0.5)",
            ms(engine) / ms(kop),
            ms(cli) / ms(kop)
        );
        println!(
            "  Installation structs: ours {ours_installation}, kopium {kopium_installation}, ratio {:.3} (target <= 0.333)",
            ours_installation as f64 / kopium_installation as f64
        );
    } else {
        println!("  Installation structs: ours {ours_installation}");
    }
}
