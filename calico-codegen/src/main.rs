//! `calico-codegen`: the engine's own command line, so that generated code can be
//! regenerated even when the crates that use it do not compile.
//!
//! It takes the same flags as `calico-render codegen` (`--crd PATH`..., `--out DIR`,
//! `--docs`) and records the same command line in the headers, so both produce identical
//! files. The flags are parsed by hand to keep the library free of a CLI dependency.
//! `--index RELEASE` writes that release's schema index (`<out>/<RELEASE>.jsonl`) instead of types.

use std::process::ExitCode;

const USAGE: &str =
    "usage: calico-codegen [--index RELEASE] --crd PATH [--crd PATH ...] --out DIR [--docs]";

fn main() -> ExitCode {
    let mut crds = Vec::new();
    let mut out = None;
    let mut docs = false;
    let mut index = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--crd" | "--out" | "--index" => {
                let Some(value) = args.next() else {
                    eprintln!("error: missing value for flag {arg}\n{USAGE}");
                    return ExitCode::from(2);
                };
                match arg.as_str() {
                    "--crd" => crds.push(value),
                    "--index" => index = Some(value),
                    _ => out = Some(value),
                }
            }
            "--docs" => docs = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!(
                    "error: unknown argument {other}; valid flags are --index, --crd, --out, --docs\n{USAGE}"
                );
                return ExitCode::from(2);
            }
        }
    }
    let Some(out) = out.filter(|_| !crds.is_empty()) else {
        eprintln!("error: --crd and --out are required\n{USAGE}");
        return ExitCode::from(2);
    };
    if let Some(release) = index {
        let command = calico_codegen::index::command_line(&release, &crds, &out);
        let result = calico_codegen::load_sources(&crds)
            .and_then(|sources| calico_codegen::index::generate_index(&release, &sources, &command))
            .and_then(|file| calico_codegen::write_output(std::path::Path::new(&out), &[file]));
        return match result {
            Ok(_) => {
                eprintln!("codegen: schema index of {release} written in {out}");
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::from(1)
            }
        };
    }
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
