//! What a cluster must have ready before it moves into a release, beyond the objects that
//! `upgrade` patches: the facts of the release notes that no rendered field shows (images to
//! mirror, node runtime and kernel minimums, route ownership, the API mode the operator keeps).
//!
//! Only v3.33 has such a list so far. Its facts come from the 3.33 release notes and upgrade
//! notes (projectcalico/calico #12225 single image, #13352 CNI config 1.0.0, #13470 Felix IPIP
//! routes, #12883 FIPS removed, #12128 eBPF kernel, #13576 netkit) and from tigera/operator
//! `release-v1.44` (b0c1cc5): `api/v1/installation_types.go` (`clusterRoutingMode` unset is
//! FelixIPIPOnly), `pkg/controller/installation/validation.go` (FIPS refused) and
//! `core_controller.go` (`cni.specVersion: Auto`, `cni.installMode: All` written back). The
//! data is the release branch of 2026-08-21, not the v3.33.0 tag.

use serde_json::Value;

use super::Release;

/// The images tigera-operator v1.42.3 names that release-v1.44 (b0c1cc5) no longer names
/// (`pkg/components/calico.go` at both), and `calico/ctl` (the chart's calicoctl image, now
/// `calico/calico`): the 13 images the 3.33 upgrade notes say are no longer published
/// (projectcalico/calico #12225). Those components run from `calico/calico`.
pub const V3_33_DROPPED_IMAGES: [&str; 13] = [
    "calico/apiserver",
    "calico/cni",
    "calico/csi",
    "calico/ctl",
    "calico/goldmane",
    "calico/guardian",
    "calico/key-cert-provisioner",
    "calico/kube-controllers",
    "calico/node-driver-registrar",
    "calico/pod2daemon-flexvol",
    "calico/typha",
    "calico/webhooks",
    "calico/whisker-backend",
];

/// The Calico images release-v1.44's operator still names (`pkg/components/calico.go`), the
/// Windows, Istio and Envoy gateway ones left out: `calico/calico` and the few that keep
/// their own image.
pub const V3_33_IMAGES: [&str; 4] = [
    "calico/calico",
    "calico/node",
    "calico/third-party-cni-plugins",
    "calico/whisker",
];

/// The readiness items of a move from `from` to `to` for a cluster whose target rendering
/// holds `installation` (the `operator.tigera.io/v1` Installation as JSON) and that runs the
/// native projectcalico.org/v3 CRDs when `native_v3`. Empty unless the move enters v3.33.
pub fn entering(
    from: &Release,
    to: &Release,
    installation: &Value,
    native_v3: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    if to.minor != "v3.33" || from.minor == "v3.33" {
        return out;
    }
    let text = |pointer: &str| installation.pointer(pointer).and_then(Value::as_str);
    if let Some(provenance) = to.provenance {
        out.push(format!(
            "calico-render's v3.33 is {provenance}: re-check these items against the v3.33.x \
             release notes"
        ));
    }
    out.push(if native_v3 {
        "API mode: native projectcalico.org/v3 CRDs, kept (the operator never switches an \
         existing cluster); v3.33's v3_projectcalico_org.yaml also carries admission policies \
         (MutatingAdmissionPolicy at admissionregistration.k8s.io/v1, GA in Kubernetes 1.36; \
         on 1.34/1.35 use v3_projectcalico_org-v1beta1.yaml)"
            .to_owned()
    } else {
        "API mode: the Calico API server over the crd.projectcalico.org/v1 CRDs, kept (the \
         operator never switches an existing cluster; only new installs default to native v3 \
         CRDs)"
            .to_owned()
    });
    let registry = text("/spec/registry").filter(|r| !r.is_empty());
    let image_path = text("/spec/imagePath").filter(|p| !p.is_empty());
    let mirror = match (registry, image_path) {
        (None, None) => "from the default registries".to_owned(),
        _ => format!(
            "into {}{}",
            registry.unwrap_or("the default registry "),
            image_path.map_or_else(String::new, |p| format!(" (imagePath {p})"))
        ),
    };
    out.push(format!(
        "images: v3.33 no longer publishes {}, whose components run from calico/calico; \
         mirror {} (tag {}, and the Windows, Istio or Envoy images the cluster uses) and \
         tigera/operator:{} {mirror} before step 2 (after step 0, `calico-render render -o \
         images` lists the references this cluster pulls); an ImageSet must be renamed and \
         list only these",
        V3_33_DROPPED_IMAGES.join(", "),
        V3_33_IMAGES.join(", "),
        to.calico,
        to.operator
    ));
    out.push(match text("/spec/calicoNetwork/clusterRoutingMode") {
        None => "cluster routes: `clusterRoutingMode` is unset, which from v3.33 means \
                 FelixIPIPOnly: Felix programs the routes of IPIP pools (BIRD's IPIP route \
                 programming is deprecated, to be removed in v3.35), BIRD those of \
                 unencapsulated pools"
            .to_owned(),
        Some("BIRD") => "cluster routes: `clusterRoutingMode: BIRD` keeps BIRD programming \
                         IPIP routes, deprecated in v3.33 and to be removed in v3.35; plan \
                         FelixIPIPOnly or Felix"
            .to_owned(),
        Some(mode) => format!("cluster routes: `clusterRoutingMode: {mode}` is kept"),
    });
    if text("/spec/cni/type").is_none_or(|t| t == "Calico") {
        out.push(
            "CNI: the default CNI config version becomes 1.0.0 (`cni.specVersion: Auto`, \
             written back by the operator): every node needs containerd >= 1.6 or CRI-O >= 1.24"
                .to_owned(),
        );
    }
    if text("/spec/calicoNetwork/linuxDataplane") == Some("BPF") {
        out.push(
            "eBPF: every node needs kernel 5.10 or later with BTF; Felix's default BPF attach \
             type becomes Netkit (set FelixConfiguration `bpfAttachType` to keep TCX or TC)"
                .to_owned(),
        );
    }
    out.push(match text("/spec/fipsMode") {
        Some("Enabled") => "FIPS: `fipsMode: Enabled` marks the installation degraded in \
                            v3.33 (FIPS mode was removed): set it to Disabled first"
            .to_owned(),
        _ => "FIPS: not enabled (v3.33 removed FIPS mode)".to_owned(),
    });
    out.push(
        "IP pools: the v3.33 CRDs refuse invalid and overlapping pools at write time; the pools \
         this file renders pass v3.33's rules, but pools created outside it do not go through \
         calico-render: check them with `kubectl get ippools.projectcalico.org -o yaml | \
         calico-render validate -f - --calico-version v3.33.0`"
            .to_owned(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn release(version: &str) -> &'static Release {
        Release::for_version(version).unwrap()
    }

    #[test]
    fn only_a_move_into_v3_33_has_items() {
        let installation = json!({"spec": {}});
        assert!(entering(release("v3.31.7"), release("v3.32.1"), &installation, false).is_empty());
        assert!(entering(release("v3.33.0"), release("v3.33.1"), &installation, true).is_empty());
        let items = entering(release("v3.32.1"), release("v3.33.0"), &installation, false);
        let (first, rest) = items.split_first().unwrap();
        assert!(first.starts_with(
            "calico-render's v3.33 is data from projectcalico/calico's release-v3.33 branch at \
             6609dea (2026-08-21)"
        ));
        let heads: Vec<&str> = rest
            .iter()
            .map(|item| item.split(':').next().unwrap_or_default())
            .collect();
        assert_eq!(
            heads,
            [
                "API mode",
                "images",
                "cluster routes",
                "CNI",
                "FIPS",
                "IP pools"
            ]
        );
    }

    #[test]
    fn the_items_follow_the_installation() {
        let installation = json!({"spec": {
            "registry": "registry.example.com/",
            "fipsMode": "Enabled",
            "cni": {"type": "AmazonVPC"},
            "calicoNetwork": {"linuxDataplane": "BPF", "clusterRoutingMode": "BIRD"}
        }});
        let items = entering(release("v3.31.7"), release("v3.33.0"), &installation, true);
        let text = items.join("\n");
        assert!(text.contains("native projectcalico.org/v3 CRDs, kept"));
        assert!(text.contains("into registry.example.com/ before step 2"));
        assert!(text.contains("(tag v3.33.0, and the Windows"));
        assert!(text.contains("tigera/operator:v1.44.0 into registry.example.com/"));
        assert!(text.contains("calico/typha"));
        assert!(text.contains("`clusterRoutingMode: BIRD` keeps BIRD"));
        assert!(!text.contains("containerd"), "not Calico CNI: {text}");
        assert!(text.contains("kernel 5.10"));
        assert!(text.contains("marks the installation degraded"));
    }
}
