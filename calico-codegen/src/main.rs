//! `calico-codegen`: the engine's own command line, so that generated code can be
//! regenerated even when the crates that use it do not compile.
//!
//! It takes the same flags as `calico-render codegen` (`--crd PATH`..., `--out DIR`,
//! `--docs`) and records the same command line in the headers, so both produce identical
//! files. The flags are parsed by hand to keep the library free of a CLI dependency.

use std::process::ExitCode;

const USAGE: &str = "usage: calico-codegen --crd PATH [--crd PATH ...] --out DIR [--docs]";

fn main() -> ExitCode {
    let mut crds = Vec::new();
    let mut out = None;
    let mut docs = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--crd" | "--out" => {
                let Some(value) = args.next() else {
                    eprintln!("error: missing value for flag {arg}\n{USAGE}");
                    return ExitCode::from(2);
                };
                if arg == "--crd" {
                    crds.push(value);
                } else {
                    out = Some(value);
                }
            }
            "--docs" => docs = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!(
                    "error: unknown argument {other}; valid flags are --crd, --out, --docs\n{USAGE}"
                );
                return ExitCode::from(2);
            }
        }
    }
    let Some(out) = out.filter(|_| !crds.is_empty()) else {
        eprintln!("error: --crd and --out are required\n{USAGE}");
        return ExitCode::from(2);
    };
    let options = calico_codegen::Options {
        docs,
        command: calico_codegen::command_line(&crds, &out, docs),
    };
    let result = calico_codegen::load_sources(&crds)
        .and_then(|sources| calico_codegen::generate(&sources, &options))
        .and_then(|files| calico_codegen::write_output(std::path::Path::new(&out), &files));
    match result {
        Ok(report) => {
            eprintln!(
                "codegen: {} files written, {} unchanged, {} stale files removed in {out}",
                report.written.len(),
                report.unchanged.len(),
                report.removed.len()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(1)
        }
    }
}
