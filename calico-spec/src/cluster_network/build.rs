//! Building a ClusterNetwork in Rust, and compiling a value with the guarantee [`super::load`]
//! gives text.
//!
//! The types are plain structs: [`Default`] holds the documented defaults (the same functions
//! feed serde's defaults and the JSON Schema's `default` keyword), and the constructors below
//! take the fields that have none, so a value is written with struct update syntax:
//!
//! ```
//! use calico_spec::cluster_network::{ClusterNetwork, ClusterNetworkSpec, Dataplane, PodPool};
//!
//! let cluster = ClusterNetwork::new("lab", ClusterNetworkSpec {
//!     dataplane: Dataplane::Nftables,
//!     pod_pools: vec![PodPool::new("default-ipv4-ippool", "10.48.0.0/16".parse()?)],
//!     ..ClusterNetworkSpec::default()
//! });
//! let loaded = cluster.compile()?;
//! assert_eq!(loaded.objects.len(), 2); // the Installation and the APIServer
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`ClusterNetwork::compile`] is the one way from a value to objects that checks: a Rust value
//! can hold what the text reader refuses (a CIDR with host bits set, a block size of 40, IPIP
//! without BGP), so the value is written out and read back by [`super::load`], which runs the
//! typed pass, the ClusterNetwork checks, the compilation and the rule catalogue. What it
//! returns is exactly what `load` returns for the same file; [`super::compile_unchecked`] skips
//! all of that and is for callers that have just run the checks themselves.

use std::net::IpAddr;

use ipnet::IpNet;

use super::load::{Loaded, load};
use super::parse::ParseError;
use super::spec::{
    ApiEndpoint, BgpPeer, ClusterNetwork, ClusterNetworkSpec, DEFAULT_API_PORT, LoadBalancerPool,
    Metadata, PodPool, SecretKeyRef,
};
use crate::diag::Diagnostic;
use crate::rules::catalogue as c;

impl ClusterNetwork {
    /// A ClusterNetwork named `name` (the name appears in messages only).
    pub fn new(name: impl Into<String>, spec: ClusterNetworkSpec) -> ClusterNetwork {
        ClusterNetwork {
            metadata: Metadata {
                name: Some(name.into()),
                ..Metadata::default()
            },
            spec,
            ..ClusterNetwork::default()
        }
    }

    /// Check, compile and validate this value: the objects, in bundle order, with the
    /// warnings, or every problem at once. The same guarantee as [`super::load`] for text (it
    /// is `load` on the value written out): objects only when nothing is an error.
    ///
    /// Diagnostics carry field paths (`spec.podPools[0].blockSize`) and no positions, since the
    /// value has no text.
    ///
    /// # Errors
    /// [`ParseError::Invalid`] with every problem found.
    pub fn compile(&self) -> Result<Loaded, ParseError> {
        let text = serde_json::to_string(self).map_err(|err| invalid(err.to_string()))?;
        let mut loaded = load("<ClusterNetwork value>", &text).map_err(|err| match err {
            ParseError::Invalid { mut diagnostics } => {
                unlocate(&mut diagnostics);
                ParseError::Invalid { diagnostics }
            }
            other => other,
        })?;
        // Reading back must give this value: anything else is a field that does not survive
        // being written out, and the objects would describe another ClusterNetwork.
        if loaded.cluster_network != *self {
            return Err(invalid(String::from(
                "internal error: this ClusterNetwork does not read back as written; please \
                 report this",
            )));
        }
        unlocate(&mut loaded.warnings);
        Ok(loaded)
    }
}

fn unlocate(diagnostics: &mut [Diagnostic]) {
    for diag in diagnostics {
        diag.location = None;
    }
}

fn invalid(message: String) -> ParseError {
    ParseError::Invalid {
        diagnostics: vec![Diagnostic {
            severity: c::CN_INVALID_VALUE.severity,
            code: c::CN_INVALID_VALUE.code,
            path: String::new(),
            message,
            hint: None,
            location: None,
        }],
    }
}

impl ApiEndpoint {
    /// The API server at `host` (a DNS name or an IP address), on the default port 6443.
    pub fn new(host: impl Into<String>) -> ApiEndpoint {
        ApiEndpoint {
            host: host.into(),
            port: DEFAULT_API_PORT,
        }
    }
}

impl PodPool {
    /// A pod pool with every optional field left to its documented default.
    pub fn new(name: impl Into<String>, cidr: IpNet) -> PodPool {
        PodPool {
            name: name.into(),
            cidr,
            block_size: None,
            encapsulation: None,
            nat_outgoing: None,
            node_selector: None,
            disable_bgp_export: None,
            allowed_uses: None,
        }
    }
}

impl LoadBalancerPool {
    /// A LoadBalancer pool with the default block size.
    pub fn new(name: impl Into<String>, cidr: IpNet) -> LoadBalancerPool {
        LoadBalancerPool {
            name: name.into(),
            cidr,
            block_size: None,
        }
    }
}

impl BgpPeer {
    /// A BGP peer every node peers with, with Calico's timers and no password.
    pub fn new(name: impl Into<String>, peer_ip: IpAddr, as_number: u32) -> BgpPeer {
        BgpPeer {
            name: name.into(),
            peer_ip,
            as_number,
            node_selector: None,
            password: None,
            keepalive_time: None,
            max_restart_time: None,
            next_hop_mode: None,
            router: None,
        }
    }
}

impl SecretKeyRef {
    /// The key `key` of the Secret `name`.
    pub fn new(name: impl Into<String>, key: impl Into<String>) -> SecretKeyRef {
        SecretKeyRef {
            name: name.into(),
            key: key.into(),
        }
    }
}
