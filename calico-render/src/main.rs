//! The `calico-render` binary: a thin entry point over [`calico_render`] and its `cli` module.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
