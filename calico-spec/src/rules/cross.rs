//! Checks across all documents of a run: overlapping pools (sorted sweep, O(n log n)),
//! duplicate objects, operator-owned pools, and the lints that need several objects or the
//! declared networks (LAN, Service range, node subnets, BPF and the endpoint ConfigMap).

use std::borrow::Cow;
use std::collections::BTreeMap;

use ipnet::IpNet;
use serde_json::Value;

use super::catalogue as c;
use super::{Context, Fields, Sink, items};
use crate::defaults::DEFAULT_POOL_CIDR_V4;
use crate::vocab::cidr;

/// Where a pool was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolOrigin {
    /// A projectcalico.org/v3 (or crd.projectcalico.org/v1) IPPool object.
    IpPool,
    /// A pool the user listed in an Installation.
    Installation,
    /// The pool the operator creates because the Installation lists none.
    InstallationDefault,
}

/// One pool seen in the run.
#[derive(Debug, Clone)]
pub(crate) struct PoolFact<'a> {
    pub(crate) input_idx: usize,
    /// Path of the pool's `cidr` in its document (a constant for IPPool objects).
    pub(crate) path: Cow<'static, str>,
    pub(crate) net: IpNet,
    /// Borrowed from the input for IPPool objects; owned for Installation pools, which come
    /// from the defaulted copy.
    pub(crate) name: Cow<'a, str>,
    pub(crate) origin: PoolOrigin,
    /// Whether pods get addresses from it.
    pub(crate) workload: bool,
    pub(crate) disable_bgp_export: bool,
}

/// What the cross checks need from an Installation (after defaults).
#[derive(Debug, Clone)]
pub(crate) struct InstallationFact {
    pub(crate) input_idx: usize,
    pub(crate) bpf: bool,
    pub(crate) bpf_bootstrap: bool,
    pub(crate) bgp_disabled: bool,
}

impl InstallationFact {
    pub(crate) fn collect(input_idx: usize, _doc: &Value, defaulted: &Value) -> InstallationFact {
        let network = Fields::of(
            defaulted
                .get("spec")
                .and_then(|spec| spec.get("calicoNetwork")),
            "spec.calicoNetwork",
        );
        InstallationFact {
            input_idx,
            bpf: network.str("linuxDataplane") == Some("BPF"),
            bpf_bootstrap: network.str("bpfNetworkBootstrap") == Some("Enabled"),
            bgp_disabled: network.str("bgp") == Some("Disabled"),
        }
    }
}

/// Everything collected from the documents for the cross checks.
#[derive(Debug, Default)]
pub(crate) struct Facts<'a> {
    pub(crate) pools: Vec<PoolFact<'a>>,
    pub(crate) installations: Vec<InstallationFact>,
    /// Inputs that are the endpoint ConfigMap.
    pub(crate) endpoints: Vec<usize>,
    /// Every known object's name, for the duplicate check.
    pub(crate) names: Vec<NameFact<'a>>,
    /// The documents the operational checks read (`super::ops`).
    pub(crate) ops: super::ops::Gathered<'a>,
}

/// The name of one object, with a hash of it taken while the document was being read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameFact<'a> {
    /// A hash of `name`: the duplicate check sorts by it and compares the names themselves
    /// only when two hashes are equal. By the time the cross checks run, the names of a large
    /// stream have left the processor's caches, and a sort that read them at every comparison
    /// would wait on memory for most of its time.
    hash: u64,
    kind: &'static str,
    name: &'a str,
    input_idx: usize,
}

/// FNV-1a over the bytes of `text`: cheap, and good enough to keep the duplicate check's
/// string comparisons rare. Not a defence against chosen collisions, and not meant as one: the
/// check sorts, so colliding names cost extra comparisons, never a slower algorithm.
fn name_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl<'a> Facts<'a> {
    /// Empty facts with room for `n_documents` pools and names, the most a run of that many
    /// documents has in the common case (one pool or one object per document), so that the
    /// vectors do not grow step by step over a large stream.
    pub(crate) fn with_capacity(n_documents: usize) -> Self {
        Facts {
            pools: Vec::with_capacity(n_documents),
            installations: Vec::new(),
            endpoints: Vec::new(),
            names: Vec::with_capacity(n_documents),
            ops: super::ops::Gathered::default(),
        }
    }

    /// Record the object `kind`/`name` of input `input_idx` for the duplicate check (an empty
    /// name, already reported as missing or invalid, is not recorded).
    pub(crate) fn add_name(&mut self, input_idx: usize, kind: &'static str, name: &'a str) {
        if name.is_empty() {
            return;
        }
        self.names.push(NameFact {
            hash: name_hash(name),
            kind,
            name,
            input_idx,
        });
    }
}

/// The pools of an Installation after defaults, with paths into the document as written.
pub(crate) fn installation_pools(
    input_idx: usize,
    doc: &Value,
    defaulted: &Value,
) -> Vec<PoolFact<'static>> {
    let written_pools = doc
        .get("spec")
        .and_then(|spec| spec.get("calicoNetwork"))
        .and_then(|network| network.get("ipPools"))
        .filter(|pools| !pools.is_null());
    // A written `ipPools` that is not a list is a type error already; the pools the defaults
    // put in its place are not the user's, and lints about them would only be noise.
    if written_pools.is_some_and(|pools| !pools.is_array()) {
        return Vec::new();
    }
    let written = written_pools.is_some();
    let network = defaulted
        .get("spec")
        .and_then(|spec| spec.get("calicoNetwork"));
    let pools_path = "spec.calicoNetwork.ipPools";
    let mut out = Vec::new();
    for (path, pool) in items(
        network
            .and_then(|n| n.get("ipPools"))
            .and_then(Value::as_array),
        pools_path,
    ) {
        let pool = Fields::of(Some(pool), &path);
        let Some(net) = pool
            .str("cidr")
            .and_then(|text| cidr::parse_cidr(text).ok())
        else {
            continue;
        };
        let uses: Vec<&str> = pool
            .list("allowedUses")
            .map(|list| list.iter().filter_map(Value::as_str).collect())
            .unwrap_or_else(|| vec!["Workload", "Tunnel"]);
        out.push(PoolFact {
            input_idx,
            path: Cow::Owned(pool.at("cidr")),
            net: net.trunc(),
            name: Cow::Owned(pool.str("name").unwrap_or_default().to_owned()),
            origin: if written {
                PoolOrigin::Installation
            } else {
                PoolOrigin::InstallationDefault
            },
            workload: uses.contains(&"Workload"),
            disable_bgp_export: pool.bool("disableBGPExport") == Some(true),
        });
    }
    out
}

/// Run the cross checks; diagnostics are grouped per input document.
pub(crate) fn check(facts: &Facts<'_>, ctx: &Context) -> BTreeMap<usize, Sink> {
    let mut sinks: BTreeMap<usize, Sink> = BTreeMap::new();
    let managed: Vec<&str> = facts
        .pools
        .iter()
        .filter(|pool| pool.origin != PoolOrigin::IpPool)
        .map(|pool| pool.name.as_ref())
        .collect();

    // Overlap: an IPPool object with the name of an Installation pool is the same pool (the
    // operator's copy), so that pair is the ownership lint, not an overlap.
    let nets: Vec<IpNet> = facts.pools.iter().map(|pool| pool.net).collect();
    for (first_idx, second_idx) in cidr::overlapping_pairs(&nets) {
        let (Some(first), Some(second)) = (facts.pools.get(first_idx), facts.pools.get(second_idx))
        else {
            continue;
        };
        let same_pool = first.origin != second.origin
            && (first.origin == PoolOrigin::IpPool || second.origin == PoolOrigin::IpPool)
            && first.name == second.name;
        if same_pool {
            continue;
        }
        let describe = |pool: &PoolFact<'_>| {
            if pool.name.is_empty() {
                format!("`{}`", pool.net)
            } else {
                format!("`{}` ({})", pool.name, pool.net)
            }
        };
        sinks.entry(second.input_idx).or_default().report(
            &c::POOL_OVERLAP,
            second.path.to_string(),
            format!(
                "pool {} overlaps pool {}",
                describe(second),
                describe(first)
            ),
            Some("give each pool its own range".into()),
        );
    }

    for pool in &facts.pools {
        // Entries are created only for pools with findings: most pools have none.
        let mut sink = Sink::default();
        if pool.origin == PoolOrigin::IpPool && managed.contains(&pool.name.as_ref()) {
            sink.report(
                &c::LINT_OPERATOR_OWNED_POOL,
                "metadata.name",
                format!("IPPool `{}` is managed by the Installation; the operator reverts edits to it", pool.name),
                Some("change the pool in the Installation, with a JSON patch (`kubectl patch installation default --type=json`)".into()),
            );
        }
        // The operator's own default pool gets its dedicated lint (CR8002) instead.
        let default_pool = pool.origin == PoolOrigin::InstallationDefault
            && pool.net.to_string() == DEFAULT_POOL_CIDR_V4;
        // One diagnostic per overlapping range, each naming it: fixing the first one reported
        // must not reveal the next only on the following run.
        let lans = ctx.lans.iter().filter(|lan| cidr::overlaps(lan, &pool.net));
        for lan in lans.filter(|_| pool.workload && !default_pool) {
            sink.report(
                &c::LINT_LAN_OVERLAP,
                pool.path.to_string(),
                format!("pod pool {} overlaps the LAN range {lan}", pool.net),
                Some("pick a range such as 172.20.0.0/16".into()),
            );
        }
        for range in ctx
            .service_cidrs
            .iter()
            .chain(&ctx.node_subnets)
            .filter(|range| cidr::overlaps(range, &pool.net))
        {
            let what = if ctx.service_cidrs.contains(range) {
                "the Service range"
            } else {
                "the node subnet"
            };
            sink.report(
                &c::LINT_SERVICE_OVERLAP,
                pool.path.to_string(),
                format!("pool {} overlaps {what} {range}", pool.net),
                None,
            );
        }
        if !sink.diagnostics.is_empty() {
            sinks
                .entry(pool.input_idx)
                .or_default()
                .diagnostics
                .append(&mut sink.diagnostics);
        }
    }

    for installation in &facts.installations {
        let sink = sinks.entry(installation.input_idx).or_default();
        let has_endpoint = !facts.endpoints.is_empty();
        if installation.bpf && installation.bpf_bootstrap && has_endpoint {
            sink.report(
                &c::BPF_BOOTSTRAP_WITH_ENDPOINT,
                "spec.calicoNetwork.bpfNetworkBootstrap",
                "`bpfNetworkBootstrap: Enabled` while ConfigMap `kubernetes-services-endpoint` is given",
                Some("remove the ConfigMap or the bpfNetworkBootstrap setting".into()),
            );
        }
        if installation.bpf && !installation.bpf_bootstrap && !has_endpoint {
            sink.report(
                &c::LINT_BPF_WITHOUT_ENDPOINT,
                "spec.calicoNetwork.linuxDataplane",
                "the BPF dataplane replaces kube-proxy, but no `kubernetes-services-endpoint` ConfigMap is given",
                Some("add the ConfigMap in namespace tigera-operator with the API server's real address (or set `bpfNetworkBootstrap: Enabled`)".into()),
            );
        }
        if installation.bgp_disabled {
            for pool in facts
                .pools
                .iter()
                .filter(|pool| pool.input_idx == installation.input_idx && pool.disable_bgp_export)
            {
                sink.report(
                    &c::LINT_BGP_EXPORT_WITHOUT_BGP,
                    crate::source::parent_path(&pool.path)
                        .map(|parent| format!("{parent}.disableBGPExport"))
                        .unwrap_or_default(),
                    "`disableBGPExport: true` has no effect while `bgp: Disabled`",
                    // How to silence a lint depends on the command; the caller says it.
                    Some("fine to keep for when BGP is enabled".into()),
                );
            }
        }
    }

    // Duplicate objects: IPPools from both API groups are the same resource. Sorting (hash,
    // position) pairs brings the definitions of one object together without reading a single
    // name; only a run of equal hashes (a duplicate, or a rare collision) has its names
    // compared, sorted by kind, name and input so that the first definition leads its group and
    // every later one is reported. A sort is O(n log n) whatever the names are (a hash set
    // keyed by user-chosen strings is not), and the reports land in per-document sinks, so the
    // output order does not depend on it.
    let mut by_hash: Vec<(u64, usize)> = facts
        .names
        .iter()
        .enumerate()
        .map(|(position, fact)| (fact.hash, position))
        .collect();
    by_hash.sort_unstable();
    for run in by_hash.chunk_by(|a, b| a.0 == b.0) {
        if run.len() < 2 {
            continue;
        }
        let mut group: Vec<&NameFact<'_>> = run
            .iter()
            .filter_map(|&(_, position)| facts.names.get(position))
            .collect();
        group.sort_unstable_by_key(|fact| (fact.kind, fact.name, fact.input_idx));
        for (first, later) in group.iter().zip(group.iter().skip(1)) {
            if first.kind == later.kind && first.name == later.name {
                sinks.entry(later.input_idx).or_default().report(
                    &c::DUPLICATE_OBJECT,
                    "metadata.name",
                    format!("{} `{}` is defined more than once", later.kind, later.name),
                    Some("keep one definition per name".into()),
                );
            }
        }
    }
    sinks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The duplicate reports of `names`, as (input, message), for names given with their hash
    /// so that collisions can be forced.
    fn duplicates(names: &[(u64, &'static str, &'static str)]) -> Vec<(usize, String)> {
        let facts = Facts {
            names: names
                .iter()
                .enumerate()
                .map(|(input_idx, &(hash, kind, name))| NameFact {
                    hash,
                    kind,
                    name,
                    input_idx,
                })
                .collect(),
            ..Facts::default()
        };
        check(&facts, &Context::assumed())
            .into_iter()
            .flat_map(|(input_idx, sink)| {
                sink.diagnostics
                    .into_iter()
                    .map(move |diag| (input_idx, diag.message))
            })
            .collect()
    }

    fn check_duplicates(names: &[(u64, &'static str, &'static str)], want: &[(usize, &str)]) {
        let want: Vec<(usize, String)> = want
            .iter()
            .map(|&(idx, message)| (idx, message.to_owned()))
            .collect();
        assert_eq!(duplicates(names), want, "{names:?}");
    }

    #[test]
    fn duplicates_are_found_by_hash_then_name() {
        let h = name_hash;
        // Later definitions are reported, the first one written is not.
        check_duplicates(
            &[
                (h("a"), "IPPool", "a"),
                (h("b"), "IPPool", "b"),
                (h("a"), "IPPool", "a"),
                (h("a"), "IPPool", "a"),
            ],
            &[
                (2, "IPPool `a` is defined more than once"),
                (3, "IPPool `a` is defined more than once"),
            ],
        );
        // The same name in two kinds is two objects.
        check_duplicates(&[(h("a"), "IPPool", "a"), (h("a"), "BGPPeer", "a")], &[]);
        // Colliding hashes: different names are not duplicates, equal names still are,
        // whatever the interleaving.
        check_duplicates(
            &[
                (7, "IPPool", "x"),
                (7, "IPPool", "y"),
                (7, "IPPool", "x"),
                (7, "BGPPeer", "x"),
                (7, "IPPool", "y"),
            ],
            &[
                (2, "IPPool `x` is defined more than once"),
                (4, "IPPool `y` is defined more than once"),
            ],
        );
    }
}
