//! `patch` over two objects (the input split at the first `\n---\n`): never panics, and a
//! patch it makes, applied to the live object, leaves nothing more to patch.
//! The body lives in `calico_render_tests::fuzz` (tests/src/fuzz.rs), shared with the
//! stable corpus replay.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| calico_render_tests::fuzz::patch(data));
