//! The post-render stream: arbitrary bytes as a chart, our objects from an example. Never
//! panics; when it succeeds, the output is a YAML stream that parses.
//! The body lives in `calico_render_tests::fuzz` (tests/src/fuzz.rs), shared with the
//! stable corpus replay.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| calico_render_tests::fuzz::post_render(data));
