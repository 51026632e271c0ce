//! Rendering of Calico bundles, patches and stream adapters.

pub mod bundle;
pub mod chart;
pub mod chart_values;
pub mod helm_values;
pub mod krm;
pub mod patch;
pub mod post_render;
pub mod report;
pub mod scan;
pub mod schema;
pub mod yaml;

/// The model this crate renders (wire types, rules, ClusterNetwork), so one dependency is enough.
pub use calico_spec;
/// The ipnet crate of the ClusterNetwork's CIDRs.
pub use calico_spec::ipnet;
/// The k8s-openapi crate the wire types use; its Kubernetes version is the final binary's choice.
pub use calico_spec::k8s_openapi;
/// The json-patch crate (version 5) of [`patch::ObjectPatch::patch`]. For a crate that takes
/// another version (kube takes json-patch 4), [`patch::ObjectPatch::to_rfc6902`] is the same
/// patch as plain RFC 6902 JSON.
pub use json_patch;
