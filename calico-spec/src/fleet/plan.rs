//! One cluster's address plan, read from its ClusterNetwork: every range it uses, with what it
//! is, where it is written and, for pools, how many blocks and nodes it can hold.

use ipnet::IpNet;

use crate::cluster_network::{
    ClusterNetwork, Encapsulation, PodPool, default_block_size, default_load_balancer_block_size,
};

/// What a range in a plan is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RangeKind {
    /// A pod pool (`spec.podPools[]`).
    PodPool,
    /// A Service ClusterIP range (`spec.network.serviceCIDRs[]`).
    Service,
    /// A LoadBalancer pool (`spec.loadBalancerPools[]`).
    LoadBalancer,
    /// A subnet the nodes' own addresses are in (`spec.network.nodeSubnets[]`).
    NodeSubnet,
    /// A range the cluster keeps its pools out of (`spec.network.avoid[]`).
    Avoided,
}

impl RangeKind {
    /// How messages name the kind.
    pub fn describe(self) -> &'static str {
        match self {
            RangeKind::PodPool => "pod pool",
            RangeKind::Service => "Service range",
            RangeKind::LoadBalancer => "LoadBalancer pool",
            RangeKind::NodeSubnet => "node subnet",
            RangeKind::Avoided => "avoided range",
        }
    }

    /// Every kind, in the order legends list them.
    pub const ALL: [RangeKind; 5] = [
        RangeKind::PodPool,
        RangeKind::Service,
        RangeKind::LoadBalancer,
        RangeKind::NodeSubnet,
        RangeKind::Avoided,
    ];
}

/// One range of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    /// What it is for.
    pub kind: RangeKind,
    /// The range.
    pub net: IpNet,
    /// The pool's name, for pools.
    pub name: Option<String>,
    /// The ClusterNetwork field it is written in, e.g. `spec.podPools[0].cidr`.
    pub path: String,
    /// For pools: the block size and what the pool holds.
    pub blocks: Option<Blocks>,
}

impl Range {
    /// `pod pool `name` (10.0.0.0/16)` or `Service range 10.96.0.0/12`.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{} `{name}` ({})", self.kind.describe(), self.net),
            None => format!("{} {}", self.kind.describe(), self.net),
        }
    }
}

/// What a pool holds in IPAM blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocks {
    /// The block prefix length.
    pub block_size: u32,
    /// How many blocks the pool splits into: 2^(block size - pool prefix), saturated at
    /// `u128::MAX`.
    pub count: u128,
    /// Addresses per block: 2^(address bits - block size).
    pub addresses_per_block: u128,
}

impl Blocks {
    /// The blocks of `net` at `block_size` (a block larger than the pool counts as one).
    pub fn of(net: IpNet, block_size: u32) -> Blocks {
        let bits = u32::from(net.max_prefix_len());
        let prefix = u32::from(net.prefix_len());
        let block_size = block_size.clamp(prefix, bits);
        Blocks {
            block_size,
            count: pow2(block_size.saturating_sub(prefix)),
            addresses_per_block: pow2(bits.saturating_sub(block_size)),
        }
    }

    /// The most nodes the pool can serve: Calico's IPAM gives each node its own blocks (a node
    /// claims a block before it takes addresses from it), so every node needs at least one block
    /// and a pool of N blocks serves at most N nodes.
    pub fn max_nodes(&self) -> u128 {
        self.count
    }
}

fn pow2(exponent: u32) -> u128 {
    1u128.checked_shl(exponent).unwrap_or(u128::MAX)
}

/// A cluster's address plan and the settings routing between clusters depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressPlan {
    /// The cluster's name (its `metadata.name`, or its file's name).
    pub cluster: String,
    /// Every range, in the order the ClusterNetwork writes them (pools, LoadBalancer pools,
    /// node subnets, Service ranges, avoided ranges).
    pub ranges: Vec<Range>,
    /// Whether the cluster runs BGP.
    pub bgp: bool,
    /// Each pod pool's encapsulation, NAT and BGP export, in pool order.
    pub pools: Vec<PoolRouting>,
}

/// A pod pool's settings that decide how its pods reach other clusters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRouting {
    /// The pool's name.
    pub name: String,
    /// Its range.
    pub net: IpNet,
    /// Its ClusterNetwork path (`spec.podPools[N]`).
    pub path: String,
    /// Its encapsulation (default applied).
    pub encapsulation: Encapsulation,
    /// Whether traffic leaving the pool is SNATed (default applied: on for IPv4).
    pub nat_outgoing: bool,
    /// Whether BIRD keeps the pool's routes to itself.
    pub disable_bgp_export: bool,
}

impl AddressPlan {
    /// The plan of a ClusterNetwork, named `cluster`.
    pub fn of(cluster: &str, network: &ClusterNetwork) -> AddressPlan {
        let spec = &network.spec;
        let mut ranges = Vec::new();
        let mut pools = Vec::new();
        for (index, pool) in spec.pod_pools.iter().enumerate() {
            let block_size = pool
                .block_size
                .unwrap_or_else(|| default_block_size(pool.cidr));
            ranges.push(Range {
                kind: RangeKind::PodPool,
                net: pool.cidr,
                name: Some(pool.name.clone()),
                path: format!("spec.podPools[{index}].cidr"),
                blocks: Some(Blocks::of(pool.cidr, block_size)),
            });
            pools.push(PoolRouting {
                name: pool.name.clone(),
                net: pool.cidr,
                path: format!("spec.podPools[{index}]"),
                encapsulation: pool.encapsulation.unwrap_or(PodPool::DEFAULT_ENCAPSULATION),
                nat_outgoing: pool
                    .nat_outgoing
                    .unwrap_or(matches!(pool.cidr, IpNet::V4(_))),
                disable_bgp_export: pool
                    .disable_bgp_export
                    .unwrap_or(PodPool::DEFAULT_DISABLE_BGP_EXPORT),
            });
        }
        for (index, pool) in spec.load_balancer_pools.iter().enumerate() {
            let block_size = pool
                .block_size
                .unwrap_or_else(|| default_load_balancer_block_size(pool.cidr));
            ranges.push(Range {
                kind: RangeKind::LoadBalancer,
                net: pool.cidr,
                name: Some(pool.name.clone()),
                path: format!("spec.loadBalancerPools[{index}].cidr"),
                blocks: Some(Blocks::of(pool.cidr, block_size)),
            });
        }
        let plain = [
            (
                RangeKind::NodeSubnet,
                "nodeSubnets",
                &spec.network.node_subnets,
            ),
            (
                RangeKind::Service,
                "serviceCIDRs",
                &spec.network.service_cidrs,
            ),
            (RangeKind::Avoided, "avoid", &spec.network.avoid),
        ];
        for (kind, field, nets) in plain {
            for (index, net) in nets.iter().enumerate() {
                ranges.push(Range {
                    kind,
                    net: *net,
                    name: None,
                    path: format!("spec.network.{field}[{index}]"),
                    blocks: None,
                });
            }
        }
        AddressPlan {
            cluster: cluster.to_owned(),
            ranges,
            bgp: spec.bgp.enabled,
            pools,
        }
    }
}
