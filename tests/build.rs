//! Hands the target tuple to the shared test helpers: with an explicit target (see
//! `.cargo/config.toml`) cargo puts outputs in `target/<tuple>/<profile>/`, and the helper that
//! builds `calico-render` for the tests has to ask cargo for that same place.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=CALICO_RENDER_TESTS_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
