//! Reading CustomResourceDefinitions out of YAML files, bundles and directories.
//!
//! A source may hold any number of YAML documents; those that are not
//! `apiextensions.k8s.io/v1` CustomResourceDefinitions (admission policies, empty documents,
//! anything else) are skipped. Each served version of each CRD becomes one `CrdVersion`.

use std::path::Path;

use crate::error::{CodegenError, SchemaError};
use crate::ir::{self, Schema};
use crate::tree::Tree;

/// One input text and the name it is reported under (the path as the user gave it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The name used in headers and error messages: the path as given, never made absolute.
    pub name: String,
    /// The YAML text.
    pub text: String,
}

/// Whether a kind's objects live in a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `scope: Namespaced`.
    Namespaced,
    /// `scope: Cluster`.
    Cluster,
}

/// A CRD as the engine needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Crd {
    /// The source the CRD came from.
    pub source: String,
    /// `metadata.name`.
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `spec.scope`.
    pub scope: Scope,
    /// The served versions, in the CRD's order.
    pub versions: Vec<CrdVersion>,
}

/// One served version of a CRD with its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct CrdVersion {
    /// The version name (`v1`, `v3`).
    pub name: String,
    /// The version's `openAPIV3Schema`.
    pub schema: Schema,
}

/// Reads the inputs as given: files are read as they are, directories contribute their
/// `*.yaml`/`*.yml` files in name order (not recursively).
pub fn load_sources(paths: &[String]) -> Result<Vec<Source>, CodegenError> {
    let mut sources = Vec::new();
    for given in paths {
        let path = Path::new(given);
        let read_err = |source| CodegenError::Read {
            path: given.clone(),
            source,
        };
        if path.is_dir() {
            let mut names = Vec::new();
            for entry in std::fs::read_dir(path).map_err(read_err)? {
                let entry = entry.map_err(read_err)?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let is_yaml = name.ends_with(".yaml") || name.ends_with(".yml");
                if is_yaml && entry.path().is_file() {
                    names.push(name);
                }
            }
            names.sort();
            for name in names {
                let shown = format!("{}/{name}", given.trim_end_matches('/'));
                let text = std::fs::read_to_string(path.join(&name)).map_err(|source| {
                    CodegenError::Read {
                        path: shown.clone(),
                        source,
                    }
                })?;
                sources.push(Source { name: shown, text });
            }
        } else {
            let text = std::fs::read_to_string(path).map_err(read_err)?;
            sources.push(Source {
                name: given.clone(),
                text,
            });
        }
    }
    Ok(sources)
}

/// Parser options: CRD bundles are large (the Installation CRD alone is 1.5 MB), so the
/// default node budget is raised; anchors and aliases keep the library's protection.
fn yaml_options() -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    if let Some(budget) = options.budget.as_mut() {
        budget.max_events = budget.max_events.max(50_000_000);
        budget.max_nodes = budget.max_nodes.max(50_000_000);
        budget.max_total_scalar_bytes = budget.max_total_scalar_bytes.max(1 << 30);
        budget.max_documents = budget.max_documents.max(100_000);
    }
    options
}

/// Extracts every CRD of one source.
pub fn parse_source(source: &Source) -> Result<Vec<Crd>, CodegenError> {
    let docs: Vec<Tree> = serde_saphyr::from_multiple_with_options(&source.text, yaml_options())
        .map_err(|err| CodegenError::Yaml {
            file: source.name.clone(),
            message: err.to_string(),
        })?;
    let mut crds = Vec::new();
    for (doc_idx, doc) in docs.iter().enumerate() {
        let is_crd = doc.get("kind").and_then(Tree::as_str) == Some("CustomResourceDefinition")
            && doc
                .get("apiVersion")
                .and_then(Tree::as_str)
                .is_some_and(|v| v.starts_with("apiextensions.k8s.io/"));
        if is_crd {
            crds.push(parse_crd(source, doc_idx, doc)?);
        }
    }
    Ok(crds)
}

fn parse_crd(source: &Source, doc_idx: usize, doc: &Tree) -> Result<Crd, CodegenError> {
    let name = doc
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Tree::as_str)
        .map_or_else(|| format!("(document {doc_idx})"), str::to_string);
    let invalid = |message: String| CodegenError::InvalidCrd {
        file: source.name.clone(),
        crd: name.clone(),
        message,
    };
    let spec = doc
        .get("spec")
        .ok_or_else(|| invalid("missing `spec`".to_string()))?;
    let text = |node: Option<&Tree>, what: &str| -> Result<String, CodegenError> {
        node.and_then(Tree::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| invalid(format!("missing or empty `{what}`")))
    };
    let group = text(spec.get("group"), "spec.group")?;
    let names = spec.get("names");
    let kind = text(names.and_then(|n| n.get("kind")), "spec.names.kind")?;
    let plural = text(names.and_then(|n| n.get("plural")), "spec.names.plural")?;
    let scope = match spec.get("scope").and_then(Tree::as_str) {
        Some("Namespaced") => Scope::Namespaced,
        Some("Cluster") => Scope::Cluster,
        other => {
            return Err(invalid(format!(
                "`spec.scope` is {}, expected Namespaced or Cluster",
                other.map_or_else(|| "missing".to_string(), |s| format!("`{s}`"))
            )));
        }
    };
    let Some(Tree::Seq(version_nodes)) = spec.get("versions") else {
        return Err(invalid(
            "`spec.versions` is missing or not a list; only apiextensions.k8s.io/v1 CRDs are supported".to_string(),
        ));
    };
    let mut versions = Vec::new();
    for (idx, node) in version_nodes.iter().enumerate() {
        let version = text(node.get("name"), &format!("spec.versions[{idx}].name"))?;
        if node.get("served") != Some(&Tree::Bool(true)) {
            continue;
        }
        let schema_tree = node
            .get("schema")
            .and_then(|s| s.get("openAPIV3Schema"))
            .ok_or_else(|| {
                invalid(format!(
                    "version {version} has no `schema.openAPIV3Schema`; the engine needs a structural schema"
                ))
            })?;
        let schema = ir::parse_schema(schema_tree, ".").map_err(|p| {
            CodegenError::UnsupportedSchema(Box::new(SchemaError {
                file: source.name.clone(),
                crd: name.clone(),
                version: version.clone(),
                path: p.path,
                message: p.message,
            }))
        })?;
        versions.push(CrdVersion {
            name: version,
            schema,
        });
    }
    Ok(Crd {
        source: source.name.clone(),
        name,
        group,
        kind,
        plural,
        scope,
        versions,
    })
}
