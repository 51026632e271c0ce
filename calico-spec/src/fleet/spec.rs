//! The `Fleet` input kind: which ClusterNetworks make up a fleet, the ranges the fleet keeps for
//! other uses, and which clusters route to each other.

use ipnet::IpNet;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::cluster_network::Metadata;

/// The `kind` of a fleet file.
pub const KIND: &str = "Fleet";

/// Many clusters that share one address plan: the ClusterNetwork files that describe them, the
/// ranges kept for other uses, and the groups of clusters that route to each other.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(title = "Fleet")]
pub struct Fleet {
    /// `calico-render.dev/v1alpha1`.
    pub api_version: crate::cluster_network::ApiVersion,
    /// `Fleet`.
    pub kind: FleetKind,
    /// A name for the fleet (used in messages and the picture's title).
    #[serde(default)]
    pub metadata: Metadata,
    /// The fleet.
    pub spec: FleetSpec,
}

/// The one value of a fleet file's `kind`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum FleetKind {
    /// `Fleet`.
    #[default]
    Fleet,
}

/// What a fleet is made of.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FleetSpec {
    /// ClusterNetwork files, relative to the fleet file: a path, a folder (its `*.yaml` and
    /// `*.yml` files) or a pattern whose last part holds `*` (`clusters/*.yaml`). Each cluster is
    /// named by its `metadata.name`, or by its file's name without the extension.
    pub clusters: Vec<String>,
    /// Ranges no cluster may use (kept for other networks: VPNs, offices, a future region).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reserved: Vec<NamedRange>,
    /// Ranges reached through the routers the clusters share (data centres, other sites): a
    /// cluster's pod, Service or LoadBalancer range inside one would hide it from the cluster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routed: Vec<NamedRange>,
    /// Groups of clusters whose pods reach each other by routing (pod routes exchanged through
    /// BGP with a shared router, or a cluster mesh). Clusters in a group must not share pod,
    /// Service or LoadBalancer addresses and need matching routing settings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routing: Vec<RoutingGroup>,
}

/// A range the fleet keeps for something else.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NamedRange {
    /// The range, in CIDR notation.
    #[serde(deserialize_with = "one_cidr")]
    #[schemars(with = "String")]
    pub cidr: IpNet,
    /// What the range is for (shown in messages and the picture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Clusters whose pods reach each other by routing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RoutingGroup {
    /// The group's name.
    pub name: String,
    /// The clusters, by name (at least two).
    pub clusters: Vec<String>,
}

fn one_cidr<'de, D: Deserializer<'de>>(deserializer: D) -> Result<IpNet, D::Error> {
    let text = String::deserialize(deserializer)?;
    crate::vocab::cidr::parse_cidr(&text).map_err(serde::de::Error::custom)
}
