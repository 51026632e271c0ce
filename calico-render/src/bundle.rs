//! Bundles: which objects go out, in which order, and in which shape (YAML stream, JSON
//! `v1` `List`, or one file per object).
//!
//! **Invariant:** the order is fixed: endpoint ConfigMap, Installation, APIServer, then the
//! projectcalico.org/v3 kinds (FelixConfiguration, BGPConfiguration, BGPPeer, IPPool), objects
//! of one kind in the order they were compiled. File names in `--out-dir` take their number
//! from the object's position in the *whole* bundle, so a file keeps its name whichever stage
//! is selected.

use serde::Serialize;

use calico_spec::objects::Object;

use crate::yaml::{self, EmitError};

/// Which part of the bundle to emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// What can be created right after the operator: the endpoint ConfigMap, Installation and
    /// APIServer.
    Operator,
    /// The projectcalico.org/v3 objects, which need the Calico API server (or the native v3
    /// CRDs) first. The operator creates FelixConfiguration `default` itself, so this stage is
    /// for `kubectl apply --server-side`, not `kubectl create`.
    Calico,
    /// Everything.
    All,
}

impl Stage {
    /// Whether `object` belongs to this stage.
    pub fn includes(self, object: &Object) -> bool {
        match self {
            Stage::Operator => object.is_operator_stage(),
            Stage::Calico => !object.is_operator_stage(),
            Stage::All => true,
        }
    }
}

/// How to write the bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A multi-document YAML stream.
    Yaml,
    /// One JSON `v1` `List` holding every object.
    Json,
}

/// What [`render_bundle`] is asked to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderConfig {
    /// The part of the bundle to emit.
    pub stage: Stage,
    /// The output shape.
    pub format: Format,
}

/// One file of an `--out-dir` bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    /// The file name, `NN-<kind>-<name>.yaml`.
    pub name: String,
    /// The object as one YAML document.
    pub contents: String,
}

/// `objects` sorted into bundle order (stable: same-kind objects keep their order).
pub fn in_bundle_order(objects: &[Object]) -> Vec<&Object> {
    let mut ordered: Vec<&Object> = objects.iter().collect();
    ordered.sort_by_key(|object| object.rank());
    ordered
}

/// The selected stage of `objects` as text: a YAML stream or a JSON `v1` `List`, ending in a
/// newline. An empty selection gives an empty YAML stream or a `List` with no items.
pub fn render_bundle(config: &RenderConfig, objects: &[Object]) -> Result<String, EmitError> {
    let selected: Vec<&Object> = in_bundle_order(objects)
        .into_iter()
        .filter(|object| config.stage.includes(object))
        .collect();
    match config.format {
        Format::Yaml => yaml::to_yaml_stream(&selected),
        Format::Json => Ok(to_json_list(&selected)),
    }
}

/// The selected stage of `objects` as one YAML file per object, named
/// `NN-<lowercase kind>-<name>.yaml` with NN the object's 1-based position in the whole bundle.
pub fn bundle_files(
    config: &RenderConfig,
    objects: &[Object],
) -> Result<Vec<BundleFile>, EmitError> {
    let mut files = Vec::new();
    for (object_idx, object) in in_bundle_order(objects).into_iter().enumerate() {
        if !config.stage.includes(object) {
            continue;
        }
        files.push(BundleFile {
            name: file_name(object_idx + 1, object),
            contents: yaml::to_yaml(object)?,
        });
    }
    Ok(files)
}

/// `NN-<lowercase kind>-<name>.yaml`.
fn file_name(position: usize, object: &Object) -> String {
    format!(
        "{position:02}-{}-{}.yaml",
        object.kind().to_lowercase(),
        object.name()
    )
}

/// Whether `name` looks like a file [`bundle_files`] writes (`NN-<kind>-<name>.yaml` with a
/// kind calico-render emits), so that stale files of an earlier render can be recognised.
pub fn is_bundle_file_name(name: &str) -> bool {
    const KINDS: [&str; 7] = [
        "configmap",
        "installation",
        "apiserver",
        "felixconfiguration",
        "bgpconfiguration",
        "bgppeer",
        "ippool",
    ];
    let Some(stem) = name.strip_suffix(".yaml") else {
        return false;
    };
    let Some((number, rest)) = stem.split_once('-') else {
        return false;
    };
    let Some((kind, object_name)) = rest.split_once('-') else {
        return false;
    };
    number.len() >= 2
        && number.bytes().all(|b| b.is_ascii_digit())
        && KINDS.contains(&kind)
        && !object_name.is_empty()
}

/// A `v1` `List`, pretty-printed, as `kubectl create -f` reads it.
fn to_json_list(items: &[&Object]) -> String {
    #[derive(Serialize)]
    struct List<'a> {
        #[serde(rename = "apiVersion")]
        api_version: &'static str,
        kind: &'static str,
        items: &'a [&'a Object],
    }
    let list = List {
        api_version: "v1",
        kind: "List",
        items,
    };
    let mut text = serde_json::to_string_pretty(&list)
        .expect("invariant: wire objects hold only strings, numbers, booleans, lists and maps");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_file_names() {
        for (name, expected) in [
            ("01-configmap-kubernetes-services-endpoint.yaml", true),
            ("07-ippool-loadbalancer-ipv4.yaml", true),
            ("01-configmap-.yaml", false),
            ("1-configmap-x.yaml", false),
            ("01-secret-x.yaml", false),
            ("01-configmap-x.yml", false),
            ("kustomization.yaml", false),
        ] {
            assert_eq!(is_bundle_file_name(name), expected, "{name}");
        }
    }
}
