//! The validated vocabulary: CIDRs, block sizes, selectors, AS numbers, ports, durations, hosts.
