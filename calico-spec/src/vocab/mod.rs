//! The validated vocabulary: CIDRs, block sizes, selectors, AS numbers, ports, durations, hosts.
//!
//! Each item is a small parse function that returns the typed value or an error saying what is
//! wrong and what would be accepted. The rule catalogue (`crate::rules`) maps these errors to
//! diagnostics with codes and field paths; nothing here knows about documents or paths.

pub mod cidr;
pub mod regexp;
pub mod selector;

use std::net::IpAddr;

pub use cidr::{CidrError, Family};
pub use selector::{Selector, SelectorError, parse_selector};

/// Smallest and largest IPv4 block size Calico IPAM accepts.
pub const BLOCK_SIZE_V4: (i64, i64) = (20, 32);
/// Smallest and largest IPv6 block size Calico IPAM accepts.
pub const BLOCK_SIZE_V6: (i64, i64) = (116, 128);
/// Block size used when a pool leaves it unset (or 0): 26 for IPv4.
pub const DEFAULT_BLOCK_SIZE_V4: i64 = 26;
/// Block size used when a pool leaves it unset (or 0): 122 for IPv6.
pub const DEFAULT_BLOCK_SIZE_V6: i64 = 122;

/// Why a block size is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BlockSizeError {
    /// Outside the range for the pool's family.
    #[error("block size {value} is outside the {family} range {min}-{max}")]
    OutOfRange {
        /// The offending value.
        value: i64,
        /// The pool's family.
        family: Family,
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// The pool's prefix is longer than the block size, so not even one block fits.
    #[error("pool prefix /{prefix} is smaller than one block of size /{block_size}")]
    PoolSmallerThanBlock {
        /// The pool's prefix length.
        prefix: u8,
        /// The effective block size.
        block_size: i64,
    },
}

/// The default block size of a family.
pub fn default_block_size(family: Family) -> i64 {
    match family {
        Family::V4 => DEFAULT_BLOCK_SIZE_V4,
        Family::V6 => DEFAULT_BLOCK_SIZE_V6,
    }
}

/// The accepted block size range of a family.
pub fn block_size_range(family: Family) -> (i64, i64) {
    match family {
        Family::V4 => BLOCK_SIZE_V4,
        Family::V6 => BLOCK_SIZE_V6,
    }
}

/// Check a block size against its family's range.
///
/// # Errors
/// [`BlockSizeError::OutOfRange`].
pub fn check_block_size(family: Family, value: i64) -> Result<(), BlockSizeError> {
    let (min, max) = block_size_range(family);
    if value < min || value > max {
        return Err(BlockSizeError::OutOfRange {
            value,
            family,
            min,
            max,
        });
    }
    Ok(())
}

/// Check that at least one block of `block_size` fits in a pool of `prefix`.
///
/// # Errors
/// [`BlockSizeError::PoolSmallerThanBlock`].
pub fn check_pool_fits_block(prefix: u8, block_size: i64) -> Result<(), BlockSizeError> {
    if i64::from(prefix) > block_size {
        return Err(BlockSizeError::PoolSmallerThanBlock { prefix, block_size });
    }
    Ok(())
}

/// Whether `value` is a DNS-1123 label: 1-63 characters of `[a-z0-9-]`, starting and ending
/// with an alphanumeric.
pub fn is_dns_label(value: &str) -> bool {
    let bytes = value.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && bytes.first() != Some(&b'-')
        && bytes.last() != Some(&b'-')
}

/// Whether `value` has the shape of Calico's `name` field rule: dot-separated labels of
/// `[a-z0-9-]` starting and ending with an alphanumeric, with no length limit on the labels or
/// the whole (unlike [`is_dns_subdomain`]; Calico's validator checks only the shape).
pub fn is_calico_name(value: &str) -> bool {
    value.split('.').all(|label| {
        let bytes = label.as_bytes();
        match (bytes.first(), bytes.last()) {
            (Some(&first), Some(&last)) => {
                first != b'-'
                    && last != b'-'
                    && bytes
                        .iter()
                        .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            }
            _ => false,
        }
    })
}

/// Whether `value` is a DNS-1123 subdomain (the Kubernetes object name rule): at most 253
/// characters, dot-separated labels of `[a-z0-9-]` starting and ending with an alphanumeric.
pub fn is_dns_subdomain(value: &str) -> bool {
    value.len() <= 253 && value.split('.').all(is_dns_label)
}

/// Why a host is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// Neither a DNS name nor an IP address.
    #[error("`{value}` is neither an IP address nor a DNS name")]
    Invalid {
        /// The offending value.
        value: String,
    },
}

/// A host: an IP address or a DNS name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// An IPv4 or IPv6 address.
    Ip(IpAddr),
    /// A DNS name (letters of either case are accepted, as DNS is case-insensitive).
    Name(String),
}

/// Parse a host: an IP address (IPv6 without brackets) or a DNS name.
///
/// # Errors
/// [`HostError::Invalid`].
pub fn parse_host(value: &str) -> Result<Host, HostError> {
    if let Ok(addr) = cidr::parse_ip(value) {
        return Ok(Host::Ip(addr));
    }
    let lower = value.to_ascii_lowercase();
    let name = lower.strip_suffix('.').unwrap_or(&lower);
    if !name.is_empty() && is_dns_subdomain(name) {
        return Ok(Host::Name(value.to_owned()));
    }
    Err(HostError::Invalid {
        value: value.to_owned(),
    })
}

/// Why a port is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PortError {
    /// Not a decimal number.
    #[error("`{value}` is not a port number: use a decimal number 1-65535")]
    NotANumber {
        /// The offending value.
        value: String,
    },
    /// Outside 1-65535.
    #[error("port {value} is outside 1-65535")]
    OutOfRange {
        /// The offending value.
        value: i64,
    },
}

/// Check a numeric port, 1-65535.
///
/// # Errors
/// [`PortError::OutOfRange`].
pub fn check_port(value: i64) -> Result<u16, PortError> {
    u16::try_from(value)
        .ok()
        .filter(|&port| port != 0)
        .ok_or(PortError::OutOfRange { value })
}

/// Parse a port written as a decimal string (no sign, no leading zeros), 1-65535.
///
/// # Errors
/// [`PortError`].
pub fn parse_port(value: &str) -> Result<u16, PortError> {
    let not_a_number = || PortError::NotANumber {
        value: value.to_owned(),
    };
    if value.is_empty()
        || value.len() > 6
        || !value.bytes().all(|b| b.is_ascii_digit())
        || (value.len() > 1 && value.starts_with('0'))
    {
        return Err(not_a_number());
    }
    let number: i64 = value.parse().map_err(|_| not_a_number())?;
    check_port(number)
}

/// Largest AS number (AS numbers are unsigned 32-bit).
pub const MAX_AS_NUMBER: i64 = u32::MAX as i64;

/// Check an AS number: 0-4294967295.
pub fn is_as_number(value: i64) -> bool {
    (0..=MAX_AS_NUMBER).contains(&value)
}

/// Largest AS number the API server stores. The v3.32.1 CRDs, `projectcalico.org/v3` and
/// `crd.projectcalico.org/v1` alike, declare `asNumber` and `localASNumber` as
/// `format: int32`, and a current kube-apiserver enforces that format's range, although
/// Calico's own validator takes the unsigned 32-bit range (projectcalico/calico#13494).
pub const MAX_STORED_AS_NUMBER: i64 = i32::MAX as i64;

/// The hint for an AS number above [`MAX_STORED_AS_NUMBER`].
pub const AS_NUMBER_INT32_HINT: &str =
    "use a private 2-byte AS (64512-65534), or a 4-byte AS of at most 2147483647";

/// The problem with an AS number the API server refuses for its CRD's `format: int32`
/// (`None` when it is stored): the message names the layer and the upstream issue.
pub fn as_number_int32_problem(field: &str, value: i64) -> Option<String> {
    (value > MAX_STORED_AS_NUMBER && value <= MAX_AS_NUMBER).then(|| {
        format!(
            "`{field}: {value}` is above 2147483647: the API server refuses it because the \
             v3.32.1 CRD declares the field `format: int32` (projectcalico/calico#13494), \
             although Calico's own validator accepts up to 4294967295"
        )
    })
}

/// Whether `value` is what Go's `time.ParseDuration` takes, as the API types' `metav1.Duration`
/// fields are decoded: an optional sign, then `0` alone or one or more groups of a decimal
/// number (`1`, `1.5`, `.5`, `1.`) and a unit `ns`, `us`, `µs`, `μs`, `ms`, `s`, `m` or `h`,
/// within Go's range (see [`go_duration_nanos`]).
pub fn is_go_duration(value: &str) -> bool {
    go_duration_nanos(value).is_some()
}

/// The value in nanoseconds of a duration Go's `time.ParseDuration` takes, `None` for one it
/// refuses. Go's rules (its `time/format.go`): a sign `-` or `+` may lead; `0` alone (after the
/// sign) needs no unit, but any other number does (`00`, `1` and `0.0` are refused); each group
/// needs a digit before or after its `.`; a whole part above 2^63 or a group or total above
/// 2^63 ns is refused (2^63 - 1 ns for a positive total); a fraction's digits beyond what 63
/// bits hold are dropped, not refused, and a fraction is scaled in floating point as Go does.
pub fn go_duration_nanos(value: &str) -> Option<i128> {
    const LIMIT: u64 = 1 << 63;
    let negative = value.starts_with('-');
    let rest = value.strip_prefix(['+', '-']).unwrap_or(value);
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut rest = rest;
    let mut total: u64 = 0;
    while !rest.is_empty() {
        // The whole part: refused once it passes 2^63.
        let whole_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut whole: u64 = 0;
        for digit in rest.bytes().take(whole_len) {
            if whole > LIMIT / 10 {
                return None;
            }
            whole = whole * 10 + u64::from(digit - b'0');
            if whole > LIMIT {
                return None;
            }
        }
        rest = rest.get(whole_len..)?;
        // The fraction: digits past 63 bits of precision are read and dropped.
        let mut fraction: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut fraction_len = 0;
        if let Some(after) = rest.strip_prefix('.') {
            fraction_len = after.bytes().take_while(u8::is_ascii_digit).count();
            let mut full = false;
            for digit in after.bytes().take(fraction_len) {
                if full {
                    continue;
                }
                if fraction > (LIMIT - 1) / 10 {
                    full = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(digit - b'0');
                if next > LIMIT {
                    full = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            rest = after.get(fraction_len..)?;
        }
        if whole_len == 0 && fraction_len == 0 {
            return None;
        }
        let unit_len = rest
            .find(|ch: char| ch == '.' || ch.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit: u64 = match rest.get(..unit_len)? {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = rest.get(unit_len..)?;
        if whole > LIMIT / unit {
            return None;
        }
        let mut group = whole * unit;
        if fraction > 0 {
            // Go's own arithmetic: float64(f) * (float64(unit) / scale), truncated.
            let part = (fraction as f64 * (unit as f64 / scale)) as u64;
            group = group.checked_add(part)?;
            if group > LIMIT {
                return None;
            }
        }
        total = total.checked_add(group)?;
        if total > LIMIT {
            return None;
        }
    }
    if negative {
        return Some(-i128::from(total));
    }
    (total < LIMIT).then_some(i128::from(total))
}

/// How much of Go's duration syntax a duration field admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationForm {
    /// Whole numbers per unit only (`90s`, `1m30s`, `1s500ms`). Most FelixConfiguration duration
    /// fields of the v3.32.1 CRD carry the pattern `^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$` as a
    /// plain YAML scalar, so the regular expression the API server compiles has `\\` (a literal
    /// backslash) before the `.`: a fraction such as `1.5s` never matches.
    Whole,
    /// A decimal fraction is allowed (`1.5h`): fields whose pattern escapes the dot once, and
    /// fields without a pattern, which Felix reads with Go's duration parser.
    Fraction,
}

/// Whether `value` is a duration of the given form: one or more groups of a decimal number
/// (with a fraction only when `form` allows it) followed by a unit `ms`, `s`, `m` or `h`.
pub fn is_duration(value: &str, form: DurationForm) -> bool {
    let bytes = value.as_bytes();
    if bytes.is_empty() {
        return false;
    }
    let mut idx = 0;
    while idx < bytes.len() {
        let digits_start = idx;
        while bytes.get(idx).is_some_and(u8::is_ascii_digit) {
            idx += 1;
        }
        if idx == digits_start {
            return false;
        }
        if bytes.get(idx) == Some(&b'.') {
            if form == DurationForm::Whole {
                return false;
            }
            idx += 1;
            let frac_start = idx;
            while bytes.get(idx).is_some_and(u8::is_ascii_digit) {
                idx += 1;
            }
            if idx == frac_start {
                return false;
            }
        }
        if bytes.get(idx..).is_some_and(|rest| rest.starts_with(b"ms")) {
            idx += 2;
        } else if matches!(bytes.get(idx), Some(b's' | b'm' | b'h')) {
            idx += 1;
        } else {
            return false;
        }
    }
    true
}

/// The same duration written with whole numbers only, when `value` is a valid
/// [`DurationForm::Fraction`] duration that has a fraction and converts exactly
/// (`1.5s` -> `1s500ms`, `0.5h` -> `30m`); `None` otherwise. Used for hints.
pub fn whole_duration(value: &str) -> Option<String> {
    if !is_duration(value, DurationForm::Fraction) || !value.contains('.') {
        return None;
    }
    // Sum everything in milliseconds; a fraction finer than a millisecond has no whole form.
    let mut total_ms: u128 = 0;
    let mut rest = value;
    while !rest.is_empty() {
        let number_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let (number, tail) = rest.split_at(number_len);
        let (unit_ms, unit_len) = if tail.starts_with("ms") {
            (1u128, 2)
        } else {
            match tail.as_bytes().first()? {
                b's' => (1_000, 1),
                b'm' => (60_000, 1),
                b'h' => (3_600_000, 1),
                _ => return None,
            }
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        let whole: u128 = whole.parse().ok()?;
        let scale = 10u128.checked_pow(u32::try_from(fraction.len()).ok()?)?;
        let fraction_value: u128 = if fraction.is_empty() {
            0
        } else {
            fraction.parse().ok()?
        };
        let fraction_ms = fraction_value.checked_mul(unit_ms)?;
        if fraction_ms % scale != 0 {
            return None;
        }
        total_ms = total_ms
            .checked_add(whole.checked_mul(unit_ms)?)?
            .checked_add(fraction_ms / scale)?;
        rest = &tail[unit_len..];
    }
    let mut out = String::new();
    for (unit, unit_ms) in [("h", 3_600_000u128), ("m", 60_000), ("s", 1_000), ("ms", 1)] {
        let count = total_ms / unit_ms;
        total_ms %= unit_ms;
        if count > 0 {
            out.push_str(&count.to_string());
            out.push_str(unit);
        }
    }
    if out.is_empty() {
        out.push_str("0s");
    }
    Some(out)
}

/// Whether `value` is accepted by the pattern of the `bpfConntrackTimeouts` fields,
/// `^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`: `Auto`, or groups of an optional decimal
/// number (fraction allowed) followed by one or more units among `ms`, `s`, `h`, `m`, `us`.
pub fn is_conntrack_timeout(value: &str) -> bool {
    if value == "Auto" {
        return true;
    }
    let bytes = value.as_bytes();
    if bytes.is_empty() {
        return false;
    }
    let mut idx = 0;
    while idx < bytes.len() {
        while bytes.get(idx).is_some_and(u8::is_ascii_digit) {
            idx += 1;
        }
        if bytes.get(idx) == Some(&b'.') {
            idx += 1;
            while bytes.get(idx).is_some_and(u8::is_ascii_digit) {
                idx += 1;
            }
        }
        let units_start = idx;
        loop {
            let rest = bytes.get(idx..).unwrap_or_default();
            if rest.starts_with(b"ms") || rest.starts_with(b"us") {
                idx += 2;
            } else if matches!(rest.first(), Some(b's' | b'h' | b'm')) {
                idx += 1;
            } else {
                break;
            }
        }
        if idx == units_start {
            return false;
        }
    }
    true
}

/// Whether `value` is a Linux interface name: 1-15 characters of `[A-Za-z0-9_.-]`.
pub fn is_interface_name(value: &str) -> bool {
    (1..=15).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Why a BGP community value is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommunityError {
    /// Not `aa:nn` or `aa:nn:mm`.
    #[error("`{value}` is not a community: use `aa:nn` (standard) or `aa:nn:mm` (large)")]
    Format {
        /// The offending value.
        value: String,
    },
    /// A part exceeds 16 bits (standard) or 32 bits (large).
    #[error("`{value}`: each part of a {kind} community must be at most {max}")]
    Overflow {
        /// The offending value.
        value: String,
        /// `standard` or `large`.
        kind: &'static str,
        /// The largest part.
        max: u64,
    },
}

/// Check a BGP community literal: `aa:nn` with 16-bit parts or `aa:nn:mm` with 32-bit parts.
///
/// # Errors
/// [`CommunityError`].
pub fn check_community(value: &str) -> Result<(), CommunityError> {
    let parts: Vec<&str> = value.split(':').collect();
    let format = || CommunityError::Format {
        value: value.to_owned(),
    };
    if value.len() > 40
        || !(2..=3).contains(&parts.len())
        || parts.iter().any(|part| {
            part.is_empty() || part.len() > 10 || !part.bytes().all(|b| b.is_ascii_digit())
        })
    {
        return Err(format());
    }
    let (kind, max) = if parts.len() == 2 {
        ("standard", u64::from(u16::MAX))
    } else {
        ("large", u64::from(u32::MAX))
    };
    for part in parts {
        let number: u64 = part.parse().map_err(|_| format())?;
        if number > max {
            return Err(CommunityError::Overflow {
                value: value.to_owned(),
                kind,
                max,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let check = |value: &str, whole: bool, fraction: bool| {
            assert_eq!(is_duration(value, DurationForm::Whole), whole, "{value}");
            assert_eq!(
                is_duration(value, DurationForm::Fraction),
                fraction,
                "{value}"
            );
        };
        check("90s", true, true);
        check("1m30s", true, true);
        check("1s500ms", true, true);
        check("1.5h", false, true);
        check("1.5s", false, true);
        check("100ms", true, true);
        check("0s", true, true);
        check("", false, false);
        check("90", false, false);
        check("1.s", false, false);
        check("s", false, false);
        check("1d", false, false);
        check("-1s", false, false);
        check("1 s", false, false);
        check("1\\.5s", false, false);
    }

    #[test]
    fn go_durations() {
        // Facts of Go's time.ParseDuration (the oracle agrees on each).
        let check = |value: &str, expected: Option<i128>| {
            assert_eq!(go_duration_nanos(value), expected, "{value}");
            assert_eq!(is_go_duration(value), expected.is_some(), "{value}");
        };
        check("0", Some(0));
        check("-0", Some(0));
        check("+0", Some(0));
        check("-0s", Some(0));
        check("00", None);
        check("0.0", None);
        check("1", None);
        check("", None);
        check("-", None);
        check(".", None);
        check(".s", None);
        check("s", None);
        check("+1s", Some(1_000_000_000));
        check("-1s", Some(-1_000_000_000));
        check(".5s", Some(500_000_000));
        check("1.s", Some(1_000_000_000));
        check("1.5h", Some(5_400_000_000_000));
        check("1h30m", Some(5_400_000_000_000));
        check("1µs", Some(1_000));
        check("1μs", Some(1_000));
        check("1us", Some(1_000));
        check("1ns", Some(1));
        check("1d", None);
        check("1S", None);
        check("1 s", None);
        check("1h-1s", None);
        check("1.0000000000000000000001s", Some(1_000_000_000));
        check("2562047h", Some(9_223_369_200_000_000_000));
        check("2562048h", None);
        check("9223372036854775807ns", Some(9_223_372_036_854_775_807));
        check("9223372036854775808ns", None);
        check("-9223372036854775808ns", Some(-9_223_372_036_854_775_808));
        check("-9223372036854775809ns", None);
        check("9999999999h", None);
    }

    #[test]
    fn whole_durations() {
        let check = |value: &str, expected: Option<&str>| {
            assert_eq!(whole_duration(value).as_deref(), expected, "{value}");
        };
        check("1.5s", Some("1s500ms"));
        check("0.5h", Some("30m"));
        check("1.25m10s", Some("1m25s"));
        check("0.0s", Some("0s"));
        check("1.0001s", None);
        check("90s", None);
        check("x", None);
    }

    #[test]
    fn conntrack_timeouts() {
        let check = |value: &str, ok: bool| assert_eq!(is_conntrack_timeout(value), ok, "{value}");
        check("Auto", true);
        check("30s", true);
        check("1.5m", true);
        check("500us", true);
        check("1h2m", true);
        check("s", true);
        check("", false);
        check("auto", false);
        check("30", false);
        check("30d", false);
    }

    #[test]
    fn ports() {
        let check =
            |value: &str, ok: Option<u16>| assert_eq!(parse_port(value).ok(), ok, "{value}");
        check("6443", Some(6443));
        check("1", Some(1));
        check("65535", Some(65535));
        check("0", None);
        check("65536", None);
        check("06443", None);
        check("+6443", None);
        check("", None);
        check("https", None);
    }

    #[test]
    fn hosts() {
        let check = |value: &str, ok: bool| assert_eq!(parse_host(value).is_ok(), ok, "{value}");
        check("control.k8s.example.com", true);
        check("Control.Example.com", true);
        check("10.0.0.1", true);
        check("fd00::1", true);
        check("localhost", true);
        check("[fd00::1]", false);
        check("10.0.0.1:6443", false);
        check("https://x", false);
        check("-bad.example.com", false);
        check("", false);
        check("a..b", false);
    }

    #[test]
    fn names() {
        assert!(is_dns_subdomain("default-ipv4-ippool"));
        assert!(is_dns_subdomain("a.b"));
        assert!(!is_dns_subdomain("Default"));
        assert!(!is_dns_subdomain("a_b"));
        assert!(!is_dns_subdomain(&"a".repeat(254)));
        assert!(is_dns_label(&"a".repeat(63)));
        assert!(!is_dns_label(&"a".repeat(64)));
    }

    #[test]
    fn communities() {
        let check =
            |value: &str, ok: bool| assert_eq!(check_community(value).is_ok(), ok, "{value}");
        check("65001:100", true);
        check("65535:65535", true);
        check("65536:1", false);
        check("4147483647:1", false);
        check("4294967295:1:1", true);
        check("4294967296:1:1", false);
        check("1", false);
        check("1:2:3:4", false);
        check("a:b", false);
    }

    #[test]
    fn block_sizes() {
        let check = |family: Family, value: i64, ok: bool| {
            assert_eq!(
                check_block_size(family, value).is_ok(),
                ok,
                "{family} {value}"
            );
        };
        check(Family::V4, 19, false);
        check(Family::V4, 20, true);
        check(Family::V4, 32, true);
        check(Family::V4, 33, false);
        check(Family::V6, 115, false);
        check(Family::V6, 116, true);
        check(Family::V6, 128, true);
        check(Family::V6, 129, false);
        assert!(check_pool_fits_block(26, 26).is_ok());
        assert!(check_pool_fits_block(27, 26).is_err());
    }
}
