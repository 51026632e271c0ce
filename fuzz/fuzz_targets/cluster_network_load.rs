//! ClusterNetwork load: parse, check, compile and validate arbitrary text. Never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = calico_spec::cluster_network::load("fuzz.yaml", text);
    }
});
