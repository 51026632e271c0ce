//! `OP08xx`: what the nodes' platform allows, read from the Nodes' `status.nodeInfo`.
//!
//! Facts (Calico v3.32): Felix enables BPF only on a kernel of at least 5.3.0, or 4.18.0-193 on
//! a Red Hat kernel, and only on a little-endian machine; otherwise it logs "BPF dataplane mode
//! enabled but not supported by the kernel" and runs without BPF (`felix/bpf/bpf.go`
//! `SupportsBPFDataplane`, `felix/environment/versionparse.go`, `felix/daemon/daemon.go`). Calico
//! publishes images for amd64, arm64, ppc64le and s390x (`lib.Makefile`, `ARCHES`). The nftables
//! dataplane needs kernel 5.13 (with nft 1.0.1), as kube-proxy's nftables mode does.

use std::cmp::Ordering;

use serde_json::Value;

use super::dataplane::Install;
use super::{ContextDocument, Facts, Findings, Node};
use crate::rules::catalogue as c;

/// The architectures Calico publishes images for.
const IMAGE_ARCHITECTURES: [&str; 4] = ["amd64", "arm64", "ppc64le", "s390x"];

pub(super) fn check(facts: &Facts<'_>, out: &mut Findings) {
    let Some(install) = Install::of(facts) else {
        return;
    };
    if !facts.has_nodes() {
        out.lacks(&c::OP_NODE_ARCHITECTURE, ContextDocument::Nodes);
        if install.bpf() {
            out.lacks(&c::OP_BPF_UNSUPPORTED_NODE, ContextDocument::Nodes);
        }
        if install.dataplane() == "Nftables" {
            out.lacks(&c::OP_NFTABLES_OLD_KERNEL, ContextDocument::Nodes);
        }
        if flex_volume_path(&install).is_some_and(|path| path.starts_with("/usr/")) {
            out.lacks(&c::OP_FLEXVOLUME_ON_READ_ONLY_USR, ContextDocument::Nodes);
        }
        if install.cni() == Some("Calico") {
            out.lacks(&c::OP_DISTRIBUTION_CNI_STILL_ON, ContextDocument::Nodes);
        }
        return;
    }
    bpf_unsupported(facts, &install, out);
    architecture(facts, &install, out);
    nftables_old_kernel(facts, &install, out);
    flex_volume_on_read_only_usr(facts, &install, out);
    distribution_cni_still_on(facts, &install, out);
}

/// A kernel version as Felix compares it: up to four numbers from `major.minor.patch[-build]`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Kernel(Vec<u64>);

impl Kernel {
    /// The leading `\d+\.\d+\.\d+(-\d+)?` of `uname -r` (Felix's reading of /proc/version).
    fn parse(text: &str) -> Option<Kernel> {
        let mut parts = Vec::new();
        let mut rest = text;
        for at in 0..3 {
            let (number, tail) = leading_number(rest)?;
            parts.push(number);
            rest = if at < 2 {
                tail.strip_prefix('.')?
            } else {
                tail
            };
        }
        if let Some((build, _)) = rest.strip_prefix('-').and_then(leading_number) {
            parts.push(build);
        }
        Some(Kernel(parts))
    }

    /// Felix's `Version.Compare`: number by number, then the longer is newer.
    fn compare(&self, other: &Kernel) -> Ordering {
        for (mine, theirs) in self.0.iter().zip(&other.0) {
            match mine.cmp(theirs) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        self.0.len().cmp(&other.0.len())
    }
}

/// The decimal number `text` starts with, and the rest.
fn leading_number(text: &str) -> Option<(u64, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, rest) = text.split_at_checked(digits)?;
    Some((number.parse().ok()?, rest))
}

/// `status.nodeInfo.<key>` of a Node.
fn node_info<'a>(node: &Node<'a>, key: &str) -> Option<&'a str> {
    node.doc
        .value
        .pointer("/status/nodeInfo")
        .and_then(|info| info.get(key))
        .and_then(Value::as_str)
}

fn is_linux(node: &Node<'_>) -> bool {
    node_info(node, "operatingSystem").is_none_or(|os| os == "linux")
}

/// Whether a kernel release is a Red Hat build (`4.18.0-372.9.1.el8.x86_64`, `el9_2`), which
/// Felix holds to the lower minimum.
fn red_hat_kernel(release: &str) -> bool {
    release.match_indices(".el").any(|(at, found)| {
        release
            .get(at + found.len()..)
            .is_some_and(|tail| tail.starts_with(|ch: char| ch.is_ascii_digit()))
    })
}

/// `OP0801`: the BPF dataplane on nodes where Felix turns BPF off.
fn bpf_unsupported(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    if !install.bpf() {
        return;
    }
    let mut refused = Vec::new();
    for node in facts.nodes.iter().filter(|node| is_linux(node)) {
        if node_info(node, "architecture") == Some("s390x") {
            refused.push(format!("`{}` (s390x is big-endian)", node.doc.name));
            continue;
        }
        let Some(release) = node_info(node, "kernelVersion") else {
            continue;
        };
        let Some(kernel) = Kernel::parse(release) else {
            continue;
        };
        let (minimum, text) = if red_hat_kernel(release) {
            (
                Kernel(vec![4, 18, 0, 193]),
                "4.18.0-193 for Red Hat kernels",
            )
        } else {
            (Kernel(vec![5, 3, 0]), "5.3.0")
        };
        if kernel.compare(&minimum) == Ordering::Less {
            refused.push(format!(
                "`{}` (kernel {release}, below {text})",
                node.doc.name
            ));
        }
    }
    if refused.is_empty() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_BPF_UNSUPPORTED_NODE,
        install.network.at("linuxDataplane"),
        format!(
            "`linuxDataplane: BPF`, and Felix turns BPF off on {}: those nodes run the iptables dataplane instead, and once kube-proxy is removed for BPF no Service works there",
            refused.join(", ")
        ),
        Some("upgrade those nodes' kernels, or keep the iptables dataplane until every node qualifies".into()),
    );
}

/// `OP0802`: Linux nodes of an architecture Calico publishes no image for.
fn architecture(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    let unsupported: Vec<String> = facts
        .nodes
        .iter()
        .filter(|node| is_linux(node))
        .filter_map(|node| {
            let arch = node_info(node, "architecture")?;
            (!IMAGE_ARCHITECTURES.contains(&arch)).then(|| format!("`{}` ({arch})", node.doc.name))
        })
        .collect();
    if unsupported.is_empty() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_NODE_ARCHITECTURE,
        "spec",
        format!(
            "Calico publishes images for {} only, and Nodes {} are of another architecture: calico-node cannot be pulled there (\"no matching manifest\") and those nodes get no pod network",
            IMAGE_ARCHITECTURES.join(", "),
            unsupported.join(", ")
        ),
        Some("run a 64-bit OS (arm64 rather than arm) on those nodes, or keep them out of the cluster".into()),
    );
}

/// `OP0803`: the nftables dataplane on kernels older than 5.13.
fn nftables_old_kernel(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    if install.dataplane() != "Nftables" {
        return;
    }
    let minimum = Kernel(vec![5, 13, 0]);
    let old: Vec<String> = facts
        .nodes
        .iter()
        .filter(|node| is_linux(node))
        .filter_map(|node| {
            let release = node_info(node, "kernelVersion")?;
            let kernel = Kernel::parse(release)?;
            (kernel.compare(&minimum) == Ordering::Less)
                .then(|| format!("`{}` ({release})", node.doc.name))
        })
        .collect();
    if old.is_empty() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_NFTABLES_OLD_KERNEL,
        install.network.at("linuxDataplane"),
        format!(
            "`linuxDataplane: Nftables` needs kernel 5.13 or later (kube-proxy's nftables mode too), and Nodes {} run older kernels",
            old.join(", ")
        ),
        Some("upgrade those nodes, or stay on `Iptables` until they are".into()),
    );
}

/// The flexvolume driver's host directory as the operator sets it: `spec.flexVolumePath`, else
/// its per-provider default (`core_controller.go`); `None` when the driver is off (`None`).
fn flex_volume_path<'f>(install: &Install<'f, '_>) -> Option<&'f str> {
    let path = install
        .doc
        .value
        .pointer("/spec/flexVolumePath")
        .and_then(Value::as_str)
        .filter(|path| !path.is_empty())
        .unwrap_or(match install.provider() {
            "OpenShift" => "/etc/kubernetes/kubelet-plugins/volume/exec/",
            "GKE" => "/home/kubernetes/flexvolume/",
            "AKS" => "/etc/kubernetes/volumeplugins/",
            "RKE2" => "/var/lib/kubelet/volumeplugins/",
            _ => "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
        });
    (path != "None").then_some(path)
}

/// Operating systems whose `/usr` is read-only, by the start of `status.nodeInfo.osImage`.
const READ_ONLY_USR: [&str; 7] = [
    "Talos",
    "Flatcar Container Linux",
    "Fedora CoreOS",
    "Container Linux by CoreOS",
    "SUSE Linux Enterprise Micro",
    "openSUSE MicroOS",
    "openSUSE Leap Micro",
];

/// `OP0804`: the flexvolume driver under `/usr` on nodes whose `/usr` is read-only.
fn flex_volume_on_read_only_usr(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    let Some(path) = flex_volume_path(install).filter(|path| path.starts_with("/usr/")) else {
        return;
    };
    let read_only: Vec<String> = facts
        .nodes
        .iter()
        .filter(|node| is_linux(node))
        .filter_map(|node| {
            let image = node_info(node, "osImage")?;
            READ_ONLY_USR
                .iter()
                .any(|os| image.starts_with(os))
                .then(|| format!("`{}` ({image})", node.doc.name))
        })
        .collect();
    if read_only.is_empty() {
        return;
    }
    out.report(
        install.doc.input_idx,
        &c::OP_FLEXVOLUME_ON_READ_ONLY_USR,
        "spec.flexVolumePath",
        format!(
            "calico-node's flexvolume driver goes to `{path}`, and Nodes {} keep `/usr` read-only: the kubelet cannot create the directory and calico-node stays in Init",
            read_only.join(", ")
        ),
        Some("set `spec.flexVolumePath: None` (or a writable path the kubelet's `--volume-plugin-dir` uses)".into()),
    );
}

/// What a k3s or RKE2 server's recorded arguments say about its own CNI: the distribution and
/// the network it starts, when the arguments name one other than none (or RKE2's `calico`).
fn distribution_cni(node: &Node<'_>) -> Option<(&'static str, String)> {
    let annotations = node.doc.value.pointer("/metadata/annotations")?;
    for (distribution, key, flag) in [
        ("k3s", "k3s.io/node-args", "--flannel-backend"),
        ("RKE2", "rke2.io/node-args", "--cni"),
    ] {
        let Some(text) = annotations.get(key).and_then(Value::as_str) else {
            continue;
        };
        let Ok(args) = serde_json::from_str::<Vec<String>>(text) else {
            continue;
        };
        // Only servers choose the CNI; the annotation splits `--flag=value` into two items.
        if args.first().map(String::as_str) != Some("server") {
            continue;
        }
        let value = args
            .iter()
            .position(|arg| arg == flag)
            .and_then(|at| args.get(at + 1));
        let Some(value) = value else {
            continue;
        };
        let other: Vec<&str> = value
            .split(',')
            .map(str::trim)
            .filter(|cni| !matches!(*cni, "" | "none" | "calico" | "multus"))
            .collect();
        if !other.is_empty() {
            let network = if distribution == "k3s" {
                format!("flannel (`--flannel-backend {value}`)")
            } else {
                format!("`{}` (`--cni {value}`)", other.join(","))
            };
            return Some((distribution, network));
        }
    }
    None
}

/// `OP0805`: a k3s or RKE2 server whose arguments still start the distribution's own CNI.
fn distribution_cni_still_on(facts: &Facts<'_>, install: &Install<'_, '_>, out: &mut Findings) {
    if install.cni() != Some("Calico") {
        return;
    }
    for node in &facts.nodes {
        let Some((distribution, network)) = distribution_cni(node) else {
            continue;
        };
        out.report(
            install.doc.input_idx,
            &c::OP_DISTRIBUTION_CNI_STILL_ON,
            "spec.cni.type",
            format!(
                "{distribution} server `{}` starts {network} beside the operator's Calico CNI: two plugins configure pod networking on the same nodes",
                node.doc.name
            ),
            Some(if distribution == "k3s" {
                "start the k3s servers with `--flannel-backend=none --disable-network-policy`".into()
            } else {
                "set `cni: none` in RKE2's config (/etc/rancher/rke2/config.yaml)".into()
            }),
        );
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_read_and_compare_as_felix_does() {
        let parse = |text: &str| Kernel::parse(text).map(|kernel| kernel.0);
        assert_eq!(parse("5.15.0-91-generic"), Some(vec![5, 15, 0, 91]));
        assert_eq!(
            parse("4.18.0-372.9.1.el8.x86_64"),
            Some(vec![4, 18, 0, 372])
        );
        assert_eq!(parse("6.1.0"), Some(vec![6, 1, 0]));
        assert_eq!(parse("6.8.0+rpt-rpi-v8"), Some(vec![6, 8, 0]));
        assert_eq!(parse("5.10"), None);
        let rhel_min = Kernel(vec![4, 18, 0, 193]);
        assert_eq!(Kernel(vec![4, 18, 0]).compare(&rhel_min), Ordering::Less);
        assert_eq!(
            Kernel(vec![4, 18, 0, 372]).compare(&rhel_min),
            Ordering::Greater
        );
        assert_eq!(
            Kernel(vec![5, 3, 0, 1]).compare(&Kernel(vec![5, 3, 0])),
            Ordering::Greater
        );
        assert!(red_hat_kernel("4.18.0-372.9.1.el8.x86_64"));
        assert!(red_hat_kernel("5.14.0-284.11.1.el9_2.x86_64"));
        assert!(!red_hat_kernel("5.15.0-1051-azure"));
    }
}
