//! CIDR and address parsing. Never panics; a strict CIDR is also a CIDR, and whatever parses
//! prints back to text that parses to the same network.
//! The body lives in `calico_render_tests::fuzz` (tests/src/fuzz.rs), shared with the
//! stable corpus replay.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| calico_render_tests::fuzz::cidr(data));
