//! Typed, validated model of a cluster's Calico network.
//!
//! calico-spec holds the wire types generated from Calico's CRDs, the validated vocabulary
//! (CIDRs, block sizes, selectors, ...), the rule catalogue with upstream parity, and the
//! `ClusterNetwork` spec with its compilation into wire objects.
//! It opens no files and prints nothing; it may parse text it is handed so that diagnostics
//! keep their line and column.

pub mod cluster_network;
pub mod defaults;
pub mod diag;
pub mod generated;
pub mod objects;
pub mod release;
pub mod rules;
pub mod source;
mod suggest;
mod typed;
pub mod vocab;

/// The k8s-openapi crate these types are built on (`ObjectMeta` is in every object), so a
/// dependent uses the same version without naming it. calico-spec enables no Kubernetes version
/// feature of k8s-openapi: the final binary picks one (`k8s-openapi = { version = "0.29",
/// features = ["v1_35"] }`, or `latest`), as k8s-openapi requires.
pub use k8s_openapi;

/// The ipnet crate whose `IpNet` the ClusterNetwork and the vocabulary use for CIDRs.
pub use ipnet;
