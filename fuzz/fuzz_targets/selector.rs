//! The Calico selector parser. Never panics; a selector it accepts prints back to text that
//! parses to the same selector.
#![no_main]
use calico_spec::vocab::selector::parse_selector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_selector(text);
    }
});
