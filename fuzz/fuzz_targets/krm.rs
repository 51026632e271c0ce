//! The KRM ResourceList path over arbitrary text. Never panics.
//! The body lives in `calico_render_tests::fuzz` (tests/src/fuzz.rs), shared with the
//! stable corpus replay.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| calico_render_tests::fuzz::krm(data));
