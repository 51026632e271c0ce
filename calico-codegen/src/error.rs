//! Errors of the codegen engine.
//!
//! Every error names the input it came from as the user gave it, and where a CRD is involved,
//! the CRD's name and the schema path inside its `openAPIV3Schema`, so that a failed run can
//! be traced to one line of one file.

use std::path::PathBuf;

/// Everything that can go wrong between reading CRD files and writing Rust files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodegenError {
    /// An input file or directory could not be read.
    #[error("cannot read {path}: {source}; check that the path exists and is readable")]
    Read {
        /// The path as given.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An input file is not valid YAML.
    #[error("{file} is not valid YAML: {message}")]
    Yaml {
        /// The file as given.
        file: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A CustomResourceDefinition lacks something the engine needs (group, kind, versions ...).
    #[error("{file}: CustomResourceDefinition {crd}: {message}")]
    InvalidCrd {
        /// The file as given.
        file: String,
        /// The CRD's `metadata.name`, or `document N` when it has none.
        crd: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A schema node has a shape the engine cannot map to Rust.
    #[error(
        "{file}: CustomResourceDefinition {crd}, version {version}, schema path {path}: {message}"
    )]
    UnsupportedSchema {
        /// The file as given.
        file: String,
        /// The CRD's `metadata.name`.
        crd: String,
        /// The CRD version whose schema failed.
        version: String,
        /// The path inside `openAPIV3Schema` (`spec.ipPools[*].cidr`; `.` is the root).
        path: String,
        /// What is wrong and what the engine accepts instead.
        message: String,
    },
    /// Two inputs define the same kind in the same group and version.
    #[error(
        "{group}/{version} {kind} is defined twice, in {first} and in {second}; pass each CRD only once (a directory and a bundle containing the same CRD count twice)"
    )]
    DuplicateKind {
        /// API group.
        group: String,
        /// API version.
        version: String,
        /// Kind.
        kind: String,
        /// The input that defined it first.
        first: String,
        /// The input that defined it again.
        second: String,
    },
    /// None of the inputs contained a CustomResourceDefinition with a served version.
    #[error(
        "no CustomResourceDefinition with a served version found in {inputs}; pass CRD YAML files, multi-document bundles or directories of them"
    )]
    NoCrds {
        /// The inputs, as given, joined with `, `.
        inputs: String,
    },
    /// A template failed to render; this is a bug in the engine, not in the input.
    #[error("internal error rendering template {template}: {message}")]
    Template {
        /// The template name.
        template: String,
        /// minijinja's message.
        message: String,
    },
    /// An output file or directory could not be written or removed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The output path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
