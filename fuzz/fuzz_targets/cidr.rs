//! CIDR and address parsing. Never panics; a strict CIDR is also a CIDR, and whatever parses
//! prints back to text that parses to the same network.
#![no_main]
use calico_spec::vocab::cidr::{parse_cidr, parse_ip, parse_ip_or_cidr, parse_strict_cidr};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_ip(text);
    let _ = parse_ip_or_cidr(text);
    if let Ok(net) = parse_cidr(text) {
        assert_eq!(parse_cidr(&net.to_string()).ok(), Some(net), "{text:?}");
    }
    if let Ok(net) = parse_strict_cidr(text) {
        assert!(parse_cidr(text).is_ok(), "strict but not a CIDR: {text:?}");
        assert_eq!(parse_strict_cidr(&net.to_string()).ok(), Some(net), "{text:?}");
    }
});
