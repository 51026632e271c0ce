//! Structure-aware `patch`: the input is read (through `arbitrary`) as the choices of the
//! Installation generator, which gives two valid Installations; the patch applied to the first
//! gives the second on every managed field, or it is refused with a reason.
//! The body lives in `calico_render_tests::fuzz` (tests/src/fuzz.rs), shared with the
//! stable corpus replay.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| calico_render_tests::fuzz::patch_installations(data));
