//! A reader of the part of an FRR configuration the router cross-checks need: `frr defaults`,
//! `hostname`, `ip[v6] forwarding`, `ip[v6] prefix-list`, `route-map` (its action, `match ...
//! prefix-list`, `set origin igp`), `router bgp` (router-id, policy and graceful-restart
//! switches, peer groups and neighbours with `remote-as`, `ebgp-multihop`,
//! `disable-connected-check`, `update-source`, `bfd`, `timers`, `bgp listen range`,
//! `address-family ipv4|ipv6 unicast` with `activate`, `route-map`, `soft-reconfiguration`,
//! `maximum-paths`) and `bfd` profiles' `minimum-ttl`.
//!
//! Every other line is kept out of the model and ignored (FRR has hundreds of commands; the
//! checks need these). A line this reader knows but cannot read (a bad prefix, a number out of
//! range, a missing argument) is an error with the file and line. Blocks are found as FRR's
//! own reader finds them, by their opening command, not by indentation: `exit` and
//! `exit-address-family` close them, and a top-level command closes the block it follows.

use std::collections::BTreeMap;
use std::net::IpAddr;

use calico_spec::ipnet::IpNet;
use calico_spec::router::{
    Family, GracefulRestart, GroupFamily, PeerGroup, PrefixEntry, RemoteAs, RouteMapEntry, Router,
};

/// A line of the FRR configuration that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct ReadError {
    /// The file as messages name it.
    pub file: String,
    /// The 1-based line (0 for the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Block {
    Top,
    RouteMap(String, usize),
    Bgp,
    AddressFamily(Family),
    Bfd,
    BfdProfile(String),
    Other,
}

struct Reader<'a> {
    file: &'a str,
    line: usize,
    router: Router,
    seen_bgp: bool,
    default_ipv4_unicast: bool,
    requires_policy: Option<bool>,
    datacenter: bool,
}

impl Reader<'_> {
    fn error(&self, message: impl Into<String>) -> ReadError {
        ReadError {
            file: self.file.to_owned(),
            line: self.line,
            message: message.into(),
        }
    }

    fn net(&self, text: &str) -> Result<IpNet, ReadError> {
        text.parse::<IpNet>()
            .map_err(|_| self.error(format!("`{text}` is not a prefix (address/length)")))
    }

    fn ip(&self, text: &str) -> Result<IpAddr, ReadError> {
        text.parse::<IpAddr>()
            .map_err(|_| self.error(format!("`{text}` is not an IP address")))
    }

    fn number<T: std::str::FromStr>(
        &self,
        text: Option<&&str>,
        what: &str,
    ) -> Result<T, ReadError> {
        let text = text.ok_or_else(|| self.error(format!("{what} is missing")))?;
        text.parse::<T>()
            .map_err(|_| self.error(format!("`{text}` is not a valid {what}")))
    }

    /// The group a `neighbor X ...` line talks about: a peer group by name, or an address
    /// (a standalone neighbour is a group of its own, named by its address).
    fn group(&mut self, name: &str) -> Result<&mut PeerGroup, ReadError> {
        let index = match self.router.groups.iter().position(|g| g.name == name) {
            Some(index) => index,
            None => {
                let Ok(ip) = name.parse::<IpAddr>() else {
                    return Err(self.error(format!(
                        "`neighbor {name}` names no peer group defined above and no address"
                    )));
                };
                // A member of a peer group is configured through its group.
                if let Some(index) = self
                    .router
                    .groups
                    .iter()
                    .position(|g| g.neighbors.contains(&ip))
                {
                    index
                } else {
                    self.router
                        .groups
                        .push(new_group(name, vec![ip], self.line));
                    self.router.groups.len() - 1
                }
            }
        };
        let error = self.error("internal: peer group vanished");
        self.router.groups.get_mut(index).ok_or(error)
    }

    fn prefix_list(&mut self, family: Family, words: &[&str]) -> Result<(), ReadError> {
        // ip prefix-list NAME [seq N] (permit|deny) (PREFIX|any) [ge N] [le N]
        let name = words
            .get(2)
            .ok_or_else(|| self.error("prefix-list without a name"))?
            .to_string();
        let mut rest = words.get(3..).unwrap_or_default();
        if rest.first() == Some(&"description") {
            return Ok(());
        }
        let list = self
            .router
            .prefix_lists
            .entry(family)
            .or_default()
            .entry(name.clone())
            .or_default();
        let next_seq = list.entries.iter().map(|e| e.seq).max().unwrap_or(0) + 5;
        let mut seq = next_seq;
        if rest.first() == Some(&"seq") {
            seq = self.number(rest.get(1), "sequence number")?;
            rest = rest.get(2..).unwrap_or_default();
        }
        let permit = match rest.first() {
            Some(&"permit") => true,
            Some(&"deny") => false,
            _ => return Err(self.error("prefix-list entry needs `permit` or `deny`")),
        };
        let prefix = match rest.get(1) {
            Some(&"any") => None,
            Some(text) => {
                let net = self.net(text)?;
                if Family::of_net(&net) != family {
                    return Err(self.error(format!(
                        "{net} in an {} prefix-list: FRR moves it to the other family's list \
                         of that name without a word",
                        if family == Family::Ipv4 {
                            "`ip`"
                        } else {
                            "`ipv6`"
                        }
                    )));
                }
                if net.trunc() != net {
                    return Err(self.error(format!(
                        "{net} has host bits set: FRR silently reads it as {}",
                        net.trunc()
                    )));
                }
                Some(net)
            }
            None => return Err(self.error("prefix-list entry needs a prefix or `any`")),
        };
        let mut ge = None;
        let mut le = None;
        let mut i = 2;
        while let Some(word) = rest.get(i) {
            match *word {
                "ge" => ge = Some(self.number(rest.get(i + 1), "`ge` length")?),
                "le" => le = Some(self.number(rest.get(i + 1), "`le` length")?),
                other => {
                    return Err(self.error(format!("unexpected `{other}` in a prefix-list entry")));
                }
            }
            i += 2;
        }
        let list = self
            .router
            .prefix_lists
            .entry(family)
            .or_default()
            .entry(name)
            .or_default();
        list.entries.retain(|e| e.seq != seq);
        list.entries.push(PrefixEntry {
            seq,
            permit,
            prefix,
            ge,
            le,
        });
        list.entries.sort_by_key(|e| e.seq);
        Ok(())
    }

    fn bgp_line(&mut self, words: &[&str], family: Option<Family>) -> Result<(), ReadError> {
        match words {
            ["bgp", "router-id", id] => self.router.router_id = Some(self.ip(id)?),
            ["no", "bgp", "ebgp-requires-policy"] => self.requires_policy = Some(false),
            ["bgp", "ebgp-requires-policy"] => self.requires_policy = Some(true),
            ["no", "bgp", "default", "ipv4-unicast"] => self.default_ipv4_unicast = false,
            ["bgp", "graceful-restart-disable"] => {
                self.router.graceful_restart = GracefulRestart::Disabled;
            }
            ["bgp", "graceful-restart", "stalepath-time", seconds]
                if self.router.graceful_restart != GracefulRestart::Disabled =>
            {
                self.router.graceful_restart =
                    GracefulRestart::StalepathTime(self.number(Some(seconds), "time")?);
            }
            ["bgp", "bestpath", "as-path", "multipath-relax", ..] => {
                self.router.multipath_relax = true;
            }
            ["bgp", "listen", "range", net, "peer-group", group] => {
                let net = self.net(net)?;
                let line = self.line;
                let group = self.group(group)?;
                group.listen_ranges.push(net);
                group.line = group.line.or(Some(line));
            }
            ["maximum-paths", "ibgp", n, ..] | ["maximum-paths", n, ..] => {
                let paths = self.number(Some(n), "path count")?;
                self.router
                    .maximum_paths
                    .insert(family.unwrap_or(Family::Ipv4), paths);
            }
            ["neighbor", name, "peer-group"]
                if !self.router.groups.iter().any(|g| g.name == *name) =>
            {
                self.router
                    .groups
                    .push(new_group(name, Vec::new(), self.line));
            }
            ["neighbor", addr, "peer-group", group] => {
                let ip = self.ip(addr)?;
                let group = self.group(group)?;
                if !group.neighbors.contains(&ip) {
                    group.neighbors.push(ip);
                }
            }
            ["neighbor", name, rest @ ..] => self.neighbor(name, rest, family)?,
            _ => {}
        }
        Ok(())
    }

    fn neighbor(
        &mut self,
        name: &str,
        rest: &[&str],
        family: Option<Family>,
    ) -> Result<(), ReadError> {
        let af_family = family.unwrap_or(Family::Ipv4);
        match rest {
            ["remote-as", asn] => {
                let remote = match *asn {
                    "external" => RemoteAs::External,
                    "internal" => RemoteAs::Internal,
                    number => RemoteAs::Number(self.number(Some(&number), "AS number")?),
                };
                self.group(name)?.remote_as = Some(remote);
            }
            ["ebgp-multihop"] => self.group(name)?.ebgp_multihop = Some(255),
            ["ebgp-multihop", ttl] => {
                let ttl = self.number(Some(ttl), "TTL")?;
                self.group(name)?.ebgp_multihop = Some(ttl);
            }
            ["disable-connected-check"] => self.group(name)?.disable_connected_check = true,
            ["update-source", source] => {
                let source = source.parse::<IpAddr>().ok();
                self.group(name)?.update_source = source;
            }
            ["bfd"] => {
                let group = self.group(name)?;
                if group.bfd.is_none() {
                    group.bfd = Some(None);
                }
            }
            ["bfd", "profile", profile] => {
                self.group(name)?.bfd = Some(Some((*profile).to_owned()));
            }
            ["timers", keepalive, hold] => {
                let timers = (
                    self.number(Some(keepalive), "keepalive")?,
                    self.number(Some(hold), "hold time")?,
                );
                self.group(name)?.timers = Some(timers);
            }
            ["activate"] => self.af(name, af_family)?.activate = true,
            ["soft-reconfiguration", "inbound"] => {
                self.af(name, af_family)?.soft_reconfiguration = true;
            }
            ["route-map", map, "in"] => {
                self.af(name, af_family)?.route_map_in = Some((*map).to_owned());
            }
            ["route-map", map, "out"] => {
                self.af(name, af_family)?.route_map_out = Some((*map).to_owned());
            }
            _ => {}
        }
        Ok(())
    }

    fn af(&mut self, name: &str, family: Family) -> Result<&mut GroupFamily, ReadError> {
        Ok(self.group(name)?.families.entry(family).or_default())
    }
}

fn new_group(name: &str, neighbors: Vec<IpAddr>, line: usize) -> PeerGroup {
    PeerGroup {
        name: name.to_owned(),
        remote_as: None,
        listen_ranges: Vec::new(),
        neighbors,
        ebgp_multihop: None,
        disable_connected_check: false,
        update_source: None,
        bfd: None,
        timers: None,
        families: BTreeMap::new(),
        line: Some(line),
    }
}

/// Words that continue a block when written without indentation.
fn continues(block: &Block, first: &str) -> bool {
    match block {
        Block::RouteMap(..) => matches!(
            first,
            "match" | "set" | "on-match" | "call" | "description" | "continue"
        ),
        Block::Bgp | Block::AddressFamily(_) => matches!(
            first,
            "bgp"
                | "neighbor"
                | "address-family"
                | "no"
                | "network"
                | "maximum-paths"
                | "timers"
                | "redistribute"
                | "aggregate-address"
        ),
        Block::Bfd | Block::BfdProfile(_) => matches!(
            first,
            "profile"
                | "peer"
                | "minimum-ttl"
                | "receive-interval"
                | "transmit-interval"
                | "detect-multiplier"
                | "passive-mode"
                | "echo-mode"
        ),
        Block::Top | Block::Other => false,
    }
}

/// Read an FRR configuration. `file` names it in errors.
pub fn read(file: &str, text: &str) -> Result<Router, ReadError> {
    let mut reader = Reader {
        file,
        line: 0,
        router: Router {
            hostname: String::new(),
            local_as: 0,
            router_id: None,
            ebgp_requires_policy: true,
            graceful_restart: GracefulRestart::Helper,
            multipath_relax: false,
            ip_forwarding: false,
            ipv6_forwarding: false,
            groups: Vec::new(),
            prefix_lists: BTreeMap::new(),
            route_maps: BTreeMap::new(),
            bfd_profiles: BTreeMap::new(),
            maximum_paths: BTreeMap::new(),
            bgp_line: None,
        },
        seen_bgp: false,
        default_ipv4_unicast: true,
        requires_policy: None,
        datacenter: false,
    };
    let mut block = Block::Top;
    for (index, raw) in text.lines().enumerate() {
        reader.line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('!') || trimmed.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        let first = words.first().copied().unwrap_or_default();
        let indented = raw.starts_with([' ', '\t']);
        match first {
            "exit-address-family" => {
                if matches!(block, Block::AddressFamily(_)) {
                    block = Block::Bgp;
                }
                continue;
            }
            "exit" | "quit" => {
                block = match block {
                    Block::AddressFamily(_) => Block::Bgp,
                    Block::BfdProfile(_) => Block::Bfd,
                    _ => Block::Top,
                };
                continue;
            }
            "end" => {
                block = Block::Top;
                continue;
            }
            _ => {}
        }
        if !indented && !continues(&block, first) {
            block = Block::Top;
        }
        match &block {
            Block::Top => block = reader.top(&words)?,
            Block::RouteMap(name, idx) => {
                let (name, idx) = (name.clone(), *idx);
                let entry = reader
                    .router
                    .route_maps
                    .get_mut(&name)
                    .and_then(|entries| entries.get_mut(idx));
                if let Some(entry) = entry {
                    match words.as_slice() {
                        ["match", "ip", "address", "prefix-list", list] => {
                            entry.match_prefix_list = Some((Family::Ipv4, (*list).to_owned()));
                        }
                        ["match", "ipv6", "address", "prefix-list", list] => {
                            entry.match_prefix_list = Some((Family::Ipv6, (*list).to_owned()));
                        }
                        ["set", "origin", "igp"] => entry.set_origin_igp = true,
                        _ => {}
                    }
                }
            }
            Block::Bgp => {
                if let ["address-family", family, "unicast"] = words.as_slice() {
                    block = match *family {
                        "ipv4" => Block::AddressFamily(Family::Ipv4),
                        "ipv6" => Block::AddressFamily(Family::Ipv6),
                        _ => Block::Other,
                    };
                } else if first == "address-family" {
                    block = Block::Other;
                } else {
                    reader.bgp_line(&words, None)?;
                }
            }
            Block::AddressFamily(family) => {
                let family = *family;
                reader.bgp_line(&words, Some(family))?;
            }
            Block::Bfd => {
                if let ["profile", name] = words.as_slice() {
                    reader
                        .router
                        .bfd_profiles
                        .entry((*name).to_owned())
                        .or_default();
                    block = Block::BfdProfile((*name).to_owned());
                } else if first == "peer" {
                    block = Block::Other;
                }
            }
            Block::BfdProfile(name) => {
                if let ["minimum-ttl", ttl] = words.as_slice() {
                    let ttl = reader.number(Some(ttl), "TTL")?;
                    if let Some(profile) = reader.router.bfd_profiles.get_mut(name) {
                        profile.minimum_ttl = Some(ttl);
                    }
                }
            }
            Block::Other => {}
        }
    }
    if !reader.seen_bgp {
        return Err(ReadError {
            file: file.to_owned(),
            line: 0,
            message: "no `router bgp` in the configuration".to_owned(),
        });
    }
    let requires = reader.requires_policy.unwrap_or(!reader.datacenter);
    reader.router.ebgp_requires_policy = requires;
    if reader.default_ipv4_unicast {
        for group in &mut reader.router.groups {
            let af = group.families.entry(Family::Ipv4).or_default();
            af.activate = true;
        }
    }
    Ok(reader.router)
}

impl Reader<'_> {
    fn top(&mut self, words: &[&str]) -> Result<Block, ReadError> {
        match words {
            ["frr", "defaults", profile] => self.datacenter = *profile == "datacenter",
            ["hostname", name] => (*name).clone_into(&mut self.router.hostname),
            ["ip", "forwarding"] => self.router.ip_forwarding = true,
            ["no", "ip", "forwarding"] => self.router.ip_forwarding = false,
            ["ipv6", "forwarding"] => self.router.ipv6_forwarding = true,
            ["no", "ipv6", "forwarding"] => self.router.ipv6_forwarding = false,
            ["ip", "prefix-list", ..] => self.prefix_list(Family::Ipv4, words)?,
            ["ipv6", "prefix-list", ..] => self.prefix_list(Family::Ipv6, words)?,
            ["route-map", name, action, seq] => {
                let permit = match *action {
                    "permit" => true,
                    "deny" => false,
                    other => {
                        return Err(
                            self.error(format!("route-map action `{other}`: `permit` or `deny`"))
                        );
                    }
                };
                let seq = self.number(Some(seq), "sequence number")?;
                let entries = self
                    .router
                    .route_maps
                    .entry((*name).to_owned())
                    .or_default();
                entries.retain(|e| e.seq != seq);
                entries.push(RouteMapEntry {
                    seq,
                    permit,
                    match_prefix_list: None,
                    set_origin_igp: false,
                });
                entries.sort_by_key(|e| e.seq);
                let idx = entries.iter().position(|e| e.seq == seq).unwrap_or(0);
                return Ok(Block::RouteMap((*name).to_owned(), idx));
            }
            ["router", "bgp", asn] => {
                if self.seen_bgp {
                    return Err(
                        self.error("a second `router bgp` (only the default VRF's one is read)")
                    );
                }
                self.seen_bgp = true;
                self.router.local_as = self.number(Some(asn), "AS number")?;
                self.router.bgp_line = Some(self.line);
                return Ok(Block::Bgp);
            }
            ["router", "bgp", ..] => return Ok(Block::Other),
            ["bfd"] => return Ok(Block::Bfd),
            [first, ..] if is_block_opener(first) => return Ok(Block::Other),
            _ => {}
        }
        Ok(Block::Top)
    }
}

/// Top-level commands that open a block this reader does not read.
fn is_block_opener(word: &str) -> bool {
    matches!(
        word,
        "interface"
            | "router"
            | "line"
            | "vrf"
            | "key"
            | "segment-routing"
            | "mpls"
            | "pbr-map"
            | "nexthop-group"
            | "bmp"
            | "rpki"
    )
}
