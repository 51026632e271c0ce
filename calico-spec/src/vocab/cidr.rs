//! CIDRs and IP addresses with Go's parsing rules, strict masks, link-local checks and overlap.
//!
//! ipnet alone is too lenient for upstream parity: it accepts leading zeros in IPv4 octets
//! (`010.0.0.0/8`) and keeps host bits. Calico reads CIDRs with Go's `net.ParseCIDR`, which
//! rejects leading zeros in IPv4 octets but reads the prefix length as any run of decimal
//! digits (`10.0.0.0/016` is `/16`), and then rejects pools whose address has host bits set.
//! [`canonical`] is the text Go writes back for a network (`cidr.String()`), which is what
//! Calico stores for an IP pool.

use std::cmp::Ordering;
use std::fmt;
use std::net::IpAddr;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

/// An IP family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// IPv4.
    V4,
    /// IPv6.
    V6,
}

impl Family {
    /// The family of an address.
    pub fn of_addr(addr: IpAddr) -> Family {
        match addr {
            IpAddr::V4(_) => Family::V4,
            IpAddr::V6(_) => Family::V6,
        }
    }

    /// The family of an address as Go's `net.IP.To4` sees it, which Calico's validators use for
    /// bare addresses: an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is IPv4.
    pub fn of_go_addr(addr: IpAddr) -> Family {
        match addr {
            IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => Family::V4,
            other => Family::of_addr(other),
        }
    }

    /// The family of a network.
    pub fn of_net(net: &IpNet) -> Family {
        Family::of_addr(net.addr())
    }

    /// The number of bits in an address of this family.
    pub fn bits(self) -> u8 {
        match self {
            Family::V4 => 32,
            Family::V6 => 128,
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Family::V4 => "IPv4",
            Family::V6 => "IPv6",
        })
    }
}

/// Why a CIDR or address was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CidrError {
    /// The string is empty.
    #[error("a CIDR is required")]
    Empty,
    /// There is no `/prefix` part.
    #[error("`{value}` has no prefix length: write it as address/prefix, e.g. `{value}/{bits}`")]
    MissingPrefix {
        /// The offending value.
        value: String,
        /// The full-length prefix for the address's family, for the hint.
        bits: u8,
    },
    /// The address part does not parse as an IPv4 or IPv6 address.
    #[error("`{value}` is not a valid IP address")]
    InvalidAddress {
        /// The offending value.
        value: String,
    },
    /// The prefix length is not a decimal number within the family's bits.
    #[error("`{value}` has an invalid prefix length: use 0-{bits}")]
    InvalidPrefix {
        /// The offending value.
        value: String,
        /// The largest prefix for the family.
        bits: u8,
    },
    /// The address has bits set beyond the prefix.
    #[error("`{value}` is not strictly masked: the address has host bits set; use `{network}`")]
    HostBits {
        /// The offending value.
        value: String,
        /// The masked network the user most likely meant.
        network: IpNet,
    },
}

/// Parse an IP address like Go's `net.ParseIP`: dotted decimal IPv4 without leading zeros, or
/// IPv6 (no zone).
///
/// # Errors
/// [`CidrError::InvalidAddress`] otherwise.
pub fn parse_ip(value: &str) -> Result<IpAddr, CidrError> {
    // Rust's parser already rejects IPv4 octets with leading zeros, like Go since 1.17.
    value
        .parse::<IpAddr>()
        .map_err(|_| CidrError::InvalidAddress {
            value: value.to_owned(),
        })
}

/// Parse a CIDR like Go's `net.ParseCIDR`: a prefix is required; host bits are allowed.
///
/// # Errors
/// [`CidrError`] for an empty value, a missing or bad prefix, or a bad address.
pub fn parse_cidr(value: &str) -> Result<IpNet, CidrError> {
    if value.is_empty() {
        return Err(CidrError::Empty);
    }
    let Some((addr_text, prefix_text)) = value.split_once('/') else {
        let bits = match parse_ip(value) {
            Ok(addr) => Family::of_addr(addr).bits(),
            Err(err) => return Err(err),
        };
        return Err(CidrError::MissingPrefix {
            value: value.to_owned(),
            bits,
        });
    };
    let addr = parse_ip(addr_text).map_err(|_| CidrError::InvalidAddress {
        value: value.to_owned(),
    })?;
    let bits = Family::of_addr(addr).bits();
    let bad_prefix = || CidrError::InvalidPrefix {
        value: value.to_owned(),
        bits,
    };
    // Go reads the prefix as decimal digits, leading zeros allowed; no sign, no spaces.
    if prefix_text.is_empty() || !prefix_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_prefix());
    }
    let digits = prefix_text.trim_start_matches('0');
    let prefix: u8 = if digits.is_empty() {
        0
    } else if digits.len() > 3 {
        return Err(bad_prefix());
    } else {
        digits.parse().map_err(|_| bad_prefix())?
    };
    IpNet::new(addr, prefix).map_err(|_| bad_prefix())
}

/// The text Go's `net.IPNet.String` gives for `net` as parsed from `text` (the masked network,
/// lowercase IPv6 with the longest run of zero groups compressed, the prefix without leading
/// zeros), when it differs from `text`. Calico stores an IP pool's CIDR in this form. `None`
/// when the text is already canonical, and for IPv4-mapped IPv6 networks (which Go writes in
/// yet another form).
pub fn canonical(text: &str, net: &IpNet) -> Option<String> {
    match net {
        // The address part of a parsed IPv4 CIDR is canonical already (no leading zeros, four
        // octets); only the prefix can differ. Checked without formatting: this runs per pool.
        IpNet::V4(_) => {
            let (_, prefix) = text.rsplit_once('/')?;
            (prefix.len() > 1 && prefix.starts_with('0')).then(|| net.trunc().to_string())
        }
        IpNet::V6(v6) if v6.addr().to_ipv4_mapped().is_some() => None,
        IpNet::V6(_) => {
            // Rust's IPv6 formatting is RFC 5952's, as Go's is.
            let canonical = net.trunc().to_string();
            (canonical != text).then_some(canonical)
        }
    }
}

/// Parse a CIDR and require it to be strictly masked (no host bits), as Calico does for pools.
///
/// # Errors
/// As [`parse_cidr`], plus [`CidrError::HostBits`] carrying the masked network as the hint.
pub fn parse_strict_cidr(value: &str) -> Result<IpNet, CidrError> {
    let net = parse_cidr(value)?;
    if net.addr() != net.network() {
        return Err(CidrError::HostBits {
            value: value.to_owned(),
            network: net.trunc(),
        });
    }
    Ok(net)
}

/// Parse a bare IP or a CIDR (host bits allowed); a bare IP becomes a full-length network.
///
/// # Errors
/// As [`parse_cidr`].
pub fn parse_ip_or_cidr(value: &str) -> Result<IpNet, CidrError> {
    if value.contains('/') {
        parse_cidr(value)
    } else {
        parse_ip(value).map(IpNet::from)
    }
}

/// The IPv4 link-local range, 169.254.0.0/16.
pub fn link_local_v4() -> IpNet {
    // Checked when compiled: a constant prefix length within range.
    const LINK_LOCAL: Ipv4Net = Ipv4Net::new_assert(std::net::Ipv4Addr::new(169, 254, 0, 0), 16);
    IpNet::V4(LINK_LOCAL)
}

/// The IPv6 link-local range, fe80::/10.
pub fn link_local_v6() -> IpNet {
    const LINK_LOCAL: Ipv6Net =
        Ipv6Net::new_assert(std::net::Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10);
    IpNet::V6(LINK_LOCAL)
}

/// The link-local range of the network's family, when the network overlaps it.
pub fn overlapped_link_local(net: &IpNet) -> Option<IpNet> {
    let link_local = match net {
        IpNet::V4(_) => link_local_v4(),
        IpNet::V6(_) => link_local_v6(),
    };
    overlaps(net, &link_local).then_some(link_local)
}

/// Whether two networks share at least one address (same family; one contains the other's
/// network address).
pub fn overlaps(a: &IpNet, b: &IpNet) -> bool {
    match (a, b) {
        (IpNet::V4(_), IpNet::V4(_)) | (IpNet::V6(_), IpNet::V6(_)) => {
            a.contains(&b.network()) || b.contains(&a.network())
        }
        _ => false,
    }
}

/// A network as an integer range `[first, last]` in a common 128-bit space, tagged with its
/// family, so that overlap can be found by sorting.
fn range_of(net: &IpNet) -> (Family, u128, u128) {
    match net {
        IpNet::V4(v4) => (
            Family::V4,
            u128::from(u32::from(v4.network())),
            u128::from(u32::from(v4.broadcast())),
        ),
        IpNet::V6(v6) => (
            Family::V6,
            u128::from(v6.network()),
            u128::from(v6.broadcast()),
        ),
    }
}

/// Every pair of overlapping networks among `nets`, as index pairs `(earlier, later)` in input
/// order, found in O(n log n + k) for k reported pairs: sort by start address and sweep while
/// keeping the networks whose range is still open. CIDR ranges nest or are disjoint, so the open
/// set is a chain of nested networks and every member of it overlaps the next network.
pub fn overlapping_pairs(nets: &[IpNet]) -> Vec<(usize, usize)> {
    let mut order: Vec<(Family, u128, u128, usize)> = nets
        .iter()
        .enumerate()
        .map(|(idx, net)| {
            let (family, first, last) = range_of(net);
            (family, first, last, idx)
        })
        .collect();
    // Wider networks first when they start at the same address, so they enclose the narrower.
    // The input index ends every key, so no two keys are equal and an unstable sort gives the
    // one order a stable sort would.
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.cmp(&b.1))
            .then(b.2.cmp(&a.2))
            .then(a.3.cmp(&b.3))
    });
    let mut pairs = Vec::new();
    let mut open: Vec<(Family, u128, usize)> = Vec::new();
    for &(family, first, last, idx) in &order {
        while let Some(&(open_family, open_last, _)) = open.last() {
            if open_family != family || open_last < first {
                open.pop();
            } else {
                break;
            }
        }
        for &(_, _, open_idx) in &open {
            pairs.push(if open_idx < idx {
                (open_idx, idx)
            } else {
                (idx, open_idx)
            });
        }
        open.push((family, last, idx));
    }
    pairs.sort_unstable();
    pairs
}

/// Order networks by family, then address, then prefix (for stable output).
pub fn compare(a: &IpNet, b: &IpNet) -> Ordering {
    range_of(a)
        .cmp(&range_of(b))
        .then(a.prefix_len().cmp(&b.prefix_len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: Result<&str, &str>) {
        let got = parse_strict_cidr(input);
        match (got, expected) {
            (Ok(net), Ok(want)) => assert_eq!(net.to_string(), want, "{input}"),
            (Err(err), Err(want)) => assert!(err.to_string().contains(want), "{input}: {err}"),
            (got, want) => panic!("{input}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn canonical_forms() {
        let canon = |text: &str| canonical(text, &parse_cidr(text).unwrap());
        assert_eq!(canon("10.0.0.0/16"), None);
        assert_eq!(canon("10.0.0.0/016").as_deref(), Some("10.0.0.0/16"));
        assert_eq!(canon("2001:db8::/64"), None);
        assert_eq!(canon("2001:db8::00/64").as_deref(), Some("2001:db8::/64"));
        assert_eq!(canon("2001:DB8::/64").as_deref(), Some("2001:db8::/64"));
        assert_eq!(
            canon("2001:0db8:0:0::/64").as_deref(),
            Some("2001:db8::/64")
        );
        assert_eq!(
            canon("fd00:0:1:0:0:0:0:0/64").as_deref(),
            Some("fd00:0:1::/64")
        );
        // One zero group is not compressed (RFC 5952, and Go).
        assert_eq!(canon("fd00:1:2:3:4:5:6:0/128"), None);
        assert_eq!(canon("::ffff:10.0.0.0/104"), None);
    }

    #[test]
    fn strict_cidrs() {
        check("10.0.0.0/16", Ok("10.0.0.0/16"));
        check("172.20.0.0/16", Ok("172.20.0.0/16"));
        check("0.0.0.0/0", Ok("0.0.0.0/0"));
        check("10.0.0.1/32", Ok("10.0.0.1/32"));
        check("fd00:0:0::/64", Ok("fd00::/64"));
        check("FD00::/48", Ok("fd00::/48"));
        check("10.0.0.1/24", Err("use `10.0.0.0/24`"));
        check("192.168.1.5/24", Err("use `192.168.1.0/24`"));
        check("010.0.0.0/8", Err("not a valid IP address"));
        // Go's net.ParseCIDR reads the prefix as digits, leading zeros included.
        check("10.0.0.0/08", Ok("10.0.0.0/8"));
        check("10.0.0.0/00000016", Ok("10.0.0.0/16"));
        check("0.0.0.0/000", Ok("0.0.0.0/0"));
        check("10.0.0.0/+8", Err("invalid prefix length"));
        check("10.0.0.0/ 8", Err("invalid prefix length"));
        check("10.0.0.0/", Err("invalid prefix length"));
        check("10.0.0.0/0033", Err("invalid prefix length"));
        check("10.0.0.0/33", Err("use 0-32"));
        check("fd00::/129", Err("use 0-128"));
        check("10.0.0.0", Err("no prefix length"));
        check("10.0.0.0/", Err("invalid prefix length"));
        check("10.0.0.0/-1", Err("invalid prefix length"));
        check("256.0.0.0/8", Err("not a valid IP address"));
        check("fe80::1%eth0/64", Err("not a valid IP address"));
        check("", Err("required"));
        check(" 10.0.0.0/8", Err("not a valid IP address"));
    }

    #[test]
    fn link_local() {
        let check = |cidr: &str, hit: bool| {
            let net = parse_cidr(cidr).unwrap();
            assert_eq!(overlapped_link_local(&net).is_some(), hit, "{cidr}");
        };
        check("169.254.0.0/16", true);
        check("169.254.10.0/24", true);
        check("169.0.0.0/8", true);
        check("0.0.0.0/0", true);
        check("169.255.0.0/16", false);
        check("10.0.0.0/8", false);
        check("fe80::/64", true);
        check("::/0", true);
        check("fe00::/7", true);
        check("fec0::/10", false);
    }

    #[test]
    fn overlap_by_sorting() {
        let nets: Vec<IpNet> = [
            "10.0.0.0/16",
            "10.0.1.0/24",
            "192.168.0.0/16",
            "10.0.0.0/8",
            "fd00::/48",
            "fd00::/64",
            "10.1.0.0/16",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        assert_eq!(
            overlapping_pairs(&nets),
            vec![(0, 1), (0, 3), (1, 3), (3, 6), (4, 5)]
        );
        let brute: Vec<(usize, usize)> = (0..nets.len())
            .flat_map(|i| (i + 1..nets.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| overlaps(&nets[i], &nets[j]))
            .collect();
        assert_eq!(overlapping_pairs(&nets), brute);
    }
}
