//! The container images a release's tigera-operator pulls for an Installation, as the cluster
//! will pull them (registry, `imagePath` and `imagePrefix` applied): what an air-gapped mirror
//! must hold (`render -o images`, `upgrade`'s readiness list).
//!
//! Sources, per operator (tigera/operator at each tag or branch): the image names are
//! `pkg/components/calico.go` (`CalicoImages`, also the names an ImageSet may hold:
//! `pkg/controller/utils/imageset/imageset.go` `ValidateImageSet`), the reference is
//! `pkg/components/references.go` `GetReference` (registry default `quay.io/`, image path
//! default `calico/`, `imagePrefix` before the name, `UseDefault` as unset), and which
//! component pulls which image under which setting is `pkg/render/node.go`, `typha.go`,
//! `kubecontrollers/`, `csi.go`, `apiserver.go`, `webhooks/` and `windows.go` of v1.42.3 and
//! release-v1.44 (b0c1cc5). v1.38.13 and v1.40.15 name the same Linux images as v1.42.3
//! without `webhooks` and the Istio ones; their render code is assumed to pull them under the
//! same settings (read: v1.42.3's).
//!
//! From v3.33 (release-v1.44) every Linux component runs from `calico/calico` (the
//! `calico` binary's subcommands) except the calico-node container (`calico/node`) and the
//! upstream CNI plugins it stages (`calico/third-party-cni-plugins`, with Calico CNI unless
//! `cni.installMode: CalicoOnly`); projectcalico/calico #12225.

use serde_json::Value;

use super::Release;

/// The Calico images each release's operator names (`CalicoImages`, without the `calico/`
/// path): what it pulls, and the only names an ImageSet may list (any other name degrades the
/// operator: "unexpected images").
pub const OPERATOR_IMAGES: [(&str, &[&str]); 4] = [
    ("v3.30", PRE_V3_32),
    ("v3.31", PRE_V3_32),
    (
        "v3.32",
        &[
            "apiserver",
            "cni",
            "cni-windows",
            "csi",
            "envoy-gateway",
            "envoy-proxy",
            "envoy-ratelimit",
            "goldmane",
            "guardian",
            "istio-install-cni",
            "istio-pilot",
            "istio-proxyv2",
            "istio-ztunnel",
            "key-cert-provisioner",
            "kube-controllers",
            "node",
            "node-driver-registrar",
            "node-windows",
            "pod2daemon-flexvol",
            "typha",
            "webhooks",
            "whisker",
            "whisker-backend",
        ],
    ),
    (
        "v3.33",
        &[
            "calico",
            "cni-windows",
            "envoy-gateway",
            "envoy-proxy",
            "envoy-ratelimit",
            "istio-install-cni",
            "istio-pilot",
            "istio-proxyv2",
            "istio-ztunnel",
            "node",
            "node-windows",
            "third-party-cni-plugins",
            "whisker",
        ],
    ),
];

/// v1.38.13's and v1.40.15's `CalicoImages` (the same names).
const PRE_V3_32: &[&str] = &[
    "apiserver",
    "cni",
    "cni-windows",
    "csi",
    "envoy-gateway",
    "envoy-proxy",
    "envoy-ratelimit",
    "goldmane",
    "guardian",
    "key-cert-provisioner",
    "kube-controllers",
    "node",
    "node-driver-registrar",
    "node-windows",
    "pod2daemon-flexvol",
    "typha",
    "whisker",
    "whisker-backend",
];

/// The image names `release`'s operator knows (see [`OPERATOR_IMAGES`]).
pub fn operator_images(release: &Release) -> &'static [&'static str] {
    OPERATOR_IMAGES
        .iter()
        .find(|(minor, _)| *minor == release.minor)
        .map_or(&[], |(_, names)| *names)
}

/// One image the cluster pulls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pulled {
    /// The full reference (`quay.io/calico/node:v3.32.1`).
    pub reference: String,
    /// Which component pulls it, and under which setting.
    pub by: &'static str,
}

/// The images the operator of `release` pulls for the Installation `installation` (JSON, as
/// rendered: operator defaults spelled out) at Calico version `version`, with an APIServer
/// when `api_server` (`aggregated`: the Calico API server; else the calico-webhooks of native
/// mode), and with Goldmane and Whisker `default` when `goldmane` / `whisker`. `None` for the
/// TigeraSecureEnterprise/CalicoEnterprise variants, whose images are Tigera's. The operator's
/// own image comes first.
pub fn pulled(
    release: &Release,
    version: &str,
    installation: &Value,
    api_server: bool,
    aggregated: bool,
    goldmane: bool,
    whisker: bool,
) -> Option<Vec<Pulled>> {
    let text = |pointer: &str| {
        installation
            .pointer(&format!("/spec{pointer}"))
            .and_then(Value::as_str)
            .filter(|value| !value.is_empty() && *value != "UseDefault")
    };
    if text("/variant").is_some_and(|variant| variant != "Calico") {
        return None;
    }
    let registry = text("/registry").unwrap_or("quay.io/");
    let path = text("/imagePath").unwrap_or("calico");
    let prefix = text("/imagePrefix").unwrap_or("");
    let reference = |name: &str| {
        let joined: Vec<&str> = [registry, path]
            .iter()
            .map(|part| part.trim_matches('/'))
            .filter(|part| !part.is_empty())
            .collect();
        format!("{}/{prefix}{name}:{version}", joined.join("/"))
    };
    let calico_cni = text("/cni/type").is_none_or(|t| t == "Calico");
    let windows = text("/calicoNetwork/windowsDataplane").is_some_and(|d| d != "Disabled");
    let mut names: Vec<(&'static str, &'static str)> = Vec::new();
    if release.minor == "v3.33" {
        names.push((
            "calico",
            "kube-controllers, typha, CNI install, CSI, the API server or calico-webhooks, and \
             every other Linux component but calico-node's main container",
        ));
        names.push(("node", "calico-node"));
        if calico_cni && text("/cni/installMode") != Some("CalicoOnly") {
            names.push((
                "third-party-cni-plugins",
                "calico-node's init container staging the upstream CNI plugins (Calico CNI, \
                 cni.installMode All)",
            ));
        }
        // Goldmane and Whisker's backend run from `calico` too; the UI keeps an image.
        if whisker {
            names.push(("whisker", "the Whisker Deployment's UI container (Whisker)"));
        }
    } else {
        names.push(("node", "calico-node"));
        if calico_cni {
            names.push((
                "cni",
                "calico-node's install-cni init container (Calico CNI)",
            ));
        }
        if text("/flexVolumePath") != Some("None") {
            names.push((
                "pod2daemon-flexvol",
                "calico-node's flexvol-driver init container (flexVolumePath)",
            ));
        }
        if text("/kubeletVolumePluginPath") != Some("None") {
            names.push((
                "csi",
                "the csi-node-driver DaemonSet (kubeletVolumePluginPath)",
            ));
            names.push(("node-driver-registrar", "the csi-node-driver DaemonSet"));
        }
        names.push(("kube-controllers", "calico-kube-controllers"));
        names.push(("typha", "calico-typha"));
        if api_server && aggregated {
            names.push((
                "apiserver",
                "the Calico API server (APIServer, aggregated mode)",
            ));
        }
        if api_server && !aggregated && release.minor == "v3.32" {
            names.push(("webhooks", "calico-webhooks (APIServer, native v3 mode)"));
        }
        if goldmane {
            names.push(("goldmane", "the Goldmane Deployment (Goldmane)"));
        }
        if whisker {
            names.push(("whisker", "the Whisker Deployment's UI container (Whisker)"));
            names.push((
                "whisker-backend",
                "the Whisker Deployment's backend container (Whisker)",
            ));
        }
        if installation
            .pointer("/spec/certificateManagement")
            .is_some()
        {
            names.push((
                "key-cert-provisioner",
                "the CSR init containers (certificateManagement)",
            ));
        }
    }
    if windows {
        names.push(("node-windows", "calico-node-windows (windowsDataplane)"));
        names.push(("cni-windows", "calico-node-windows (windowsDataplane)"));
    }
    let mut out = vec![Pulled {
        reference: format!("quay.io/tigera/operator:{}", release.operator),
        by: "the tigera-operator Deployment (its image is set in tigera-operator.yaml or the \
             chart's tigeraOperator values, not by the Installation)",
    }];
    out.extend(names.into_iter().map(|(name, by)| Pulled {
        reference: reference(name),
        by,
    }));
    Some(out)
}

/// What an ImageSet `images[].image` name means for `release`: `None` when its operator uses
/// the image, else why it is refused (the operator's `ValidateImageSet` degrades on any name
/// not in its `CalicoImages`), naming the releases that still use it.
pub fn image_set_refusal(release: &Release, image: &str) -> Option<String> {
    let name = image.strip_prefix("calico/")?;
    if operator_images(release).contains(&name) {
        return None;
    }
    let users: Vec<&str> = OPERATOR_IMAGES
        .iter()
        .filter(|(_, names)| names.contains(&name))
        .map(|(minor, _)| *minor)
        .collect();
    Some(if users.is_empty() {
        format!(
            "no Calico release's operator uses `{image}`; tigera-operator {} degrades on an \
             ImageSet naming it (\"unexpected images\")",
            release.operator
        )
    } else {
        format!(
            "tigera-operator {} ({}) no longer uses `{image}` (used by {}): it degrades on an \
             ImageSet naming it (\"unexpected images\"){}",
            release.operator,
            release.minor,
            users.join(", "),
            if release.minor == "v3.33" {
                "; from v3.33 the component runs from `calico/calico`"
            } else {
                ""
            }
        )
    })
}

/// Check an ImageSet against the operator of `release` (the default target's without one):
/// its name, each image it lists and each digest, as that operator's `GetImageSet` and
/// `ValidateImageSet` judge them (CR5022; the operator marks itself degraded).
pub(crate) fn check_image_set(
    sink: &mut crate::rules::Sink,
    release: Option<&Release>,
    value: &Value,
) {
    use crate::rules::catalogue as c;
    let release = release.unwrap_or_else(|| Release::default_target());
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let wanted = format!("calico-{}.", release.minor);
    if name.starts_with("calico-") && !name.starts_with(&wanted) {
        sink.report(
            &c::IMAGE_SET,
            "metadata.name",
            format!(
                "tigera-operator {} uses only the ImageSet named `calico-<its Calico version>` \
                 ({wanted}x): with `{name}` and no such ImageSet it degrades (\"ImageSets exist \
                 but none with the expected name\")",
                release.operator
            ),
            Some(format!(
                "name the ImageSet for the version the cluster runs (`calico-{}` for {}), with \
                 that release's images",
                release.calico, release.calico
            )),
        );
    }
    let images = value
        .pointer("/spec/images")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (idx, entry) in images.iter().enumerate() {
        if let Some(image) = entry.get("image").and_then(Value::as_str)
            && let Some(why) = image_set_refusal(release, image)
        {
            sink.report(
                &c::IMAGE_SET,
                format!("spec.images[{idx}].image"),
                why,
                Some(format!(
                    "list only images of {} (`calico-render render -o images` prints those this \
                     cluster pulls)",
                    release.minor
                )),
            );
        }
        if let Some(digest) = entry.get("digest").and_then(Value::as_str)
            && !digest.starts_with("sha256:")
        {
            sink.report(
                &c::IMAGE_SET,
                format!("spec.images[{idx}].digest"),
                format!(
                    "tigera-operator {} takes only `sha256:` digests (\"bad digest images\")",
                    release.operator
                ),
                None,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn release(version: &str) -> &'static Release {
        Release::for_version(version).unwrap()
    }

    #[test]
    fn the_tables_agree_with_the_readiness_lists() {
        // What v3.33 dropped: v3.32's names that v3.33's operator lacks, and calicoctl's image.
        let v3_32 = operator_images(release("v3.32.1"));
        let v3_33 = operator_images(release("v3.33.0"));
        let mut dropped: Vec<String> = v3_32
            .iter()
            .filter(|name| !v3_33.contains(name))
            .map(|name| format!("calico/{name}"))
            .collect();
        dropped.push("calico/ctl".to_owned());
        dropped.sort();
        // istio-proxyv2 is in both, so not dropped.
        assert_eq!(dropped, super::super::readiness::V3_33_DROPPED_IMAGES);
    }

    #[test]
    fn references_follow_registry_path_and_prefix() {
        let installation = json!({"spec": {
            "registry": "registry.corp.internal:5000/",
            "imagePath": "mirror/calico",
            "imagePrefix": "x-",
            "cni": {"type": "Calico"},
            "kubeletVolumePluginPath": "None",
            "flexVolumePath": "None",
        }});
        let v3_33 = pulled(
            release("v3.33.0"),
            "v3.33.0",
            &installation,
            true,
            false,
            false,
            false,
        )
        .unwrap();
        let refs: Vec<&str> = v3_33.iter().map(|p| p.reference.as_str()).collect();
        assert_eq!(
            refs,
            [
                "quay.io/tigera/operator:v1.44.0",
                "registry.corp.internal:5000/mirror/calico/x-calico:v3.33.0",
                "registry.corp.internal:5000/mirror/calico/x-node:v3.33.0",
                "registry.corp.internal:5000/mirror/calico/x-third-party-cni-plugins:v3.33.0",
            ]
        );
        let v3_32 = pulled(
            release("v3.32.1"),
            "v3.32.1",
            &json!({"spec": {}}),
            true,
            true,
            false,
            false,
        )
        .unwrap();
        let refs: Vec<&str> = v3_32.iter().map(|p| p.reference.as_str()).collect();
        assert_eq!(
            refs,
            [
                "quay.io/tigera/operator:v1.42.3",
                "quay.io/calico/node:v3.32.1",
                "quay.io/calico/cni:v3.32.1",
                "quay.io/calico/pod2daemon-flexvol:v3.32.1",
                "quay.io/calico/csi:v3.32.1",
                "quay.io/calico/node-driver-registrar:v3.32.1",
                "quay.io/calico/kube-controllers:v3.32.1",
                "quay.io/calico/typha:v3.32.1",
                "quay.io/calico/apiserver:v3.32.1",
            ]
        );
        let enterprise = json!({"spec": {"variant": "TigeraSecureEnterprise"}});
        assert_eq!(
            pulled(
                release("v3.32.1"),
                "v3.32.1",
                &enterprise,
                true,
                true,
                false,
                false
            ),
            None
        );
        // Goldmane and Whisker: their own images before v3.33 (tigera/operator's
        // `CalicoImages` lists goldmane, whisker and whisker-backend); from v3.33 only the
        // Whisker UI keeps one, Goldmane and the Whisker backend run from `calico`.
        let observability = |calico: &str| -> Vec<String> {
            let all = pulled(
                release(calico),
                calico,
                &json!({"spec": {}}),
                false,
                false,
                true,
                true,
            )
            .unwrap();
            let without = pulled(
                release(calico),
                calico,
                &json!({"spec": {}}),
                false,
                false,
                false,
                false,
            )
            .unwrap();
            all.iter()
                .filter(|p| !without.contains(p))
                .map(|p| p.reference.clone())
                .collect()
        };
        assert_eq!(
            observability("v3.30.7"),
            [
                "quay.io/calico/goldmane:v3.30.7",
                "quay.io/calico/whisker:v3.30.7",
                "quay.io/calico/whisker-backend:v3.30.7",
            ]
        );
        assert_eq!(observability("v3.33.0"), ["quay.io/calico/whisker:v3.33.0"]);
    }

    #[test]
    fn an_image_set_name_is_judged_by_the_target_operator() {
        assert_eq!(image_set_refusal(release("v3.32.1"), "calico/typha"), None);
        let refusal = image_set_refusal(release("v3.33.0"), "calico/typha").unwrap();
        assert!(refusal.contains("used by v3.30, v3.31, v3.32"), "{refusal}");
        assert!(refusal.contains("calico/calico"), "{refusal}");
        assert_eq!(image_set_refusal(release("v3.33.0"), "calico/calico"), None);
        assert!(image_set_refusal(release("v3.32.1"), "calico/calico").is_some());
        assert!(image_set_refusal(release("v3.31.7"), "calico/webhooks").is_some());
        // Tigera's images are judged elsewhere.
        assert_eq!(
            image_set_refusal(release("v3.33.0"), "tigera/operator"),
            None
        );
    }
}
