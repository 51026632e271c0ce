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
pub mod rules;
pub mod source;
mod suggest;
mod typed;
pub mod vocab;
