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
    #[error("{0}")]
    UnsupportedSchema(Box<SchemaError>),
    /// Two inputs define the same kind in the same group and version.
    #[error("{0}")]
    DuplicateKind(Box<DuplicateKind>),
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

/// Where and why a schema could not be mapped (boxed inside [`CodegenError`] to keep it small).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaError {
    /// The file as given.
    pub file: String,
    /// The CRD's `metadata.name`.
    pub crd: String,
    /// The CRD version whose schema failed.
    pub version: String,
    /// The path inside `openAPIV3Schema` (`spec.ipPools[*].cidr`; `.` is the root).
    pub path: String,
    /// What is wrong and what the engine accepts instead.
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: CustomResourceDefinition {}, version {}, schema path {}: {}",
            self.file, self.crd, self.version, self.path, self.message
        )
    }
}

/// A kind defined by two inputs (boxed inside [`CodegenError`] to keep it small).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DuplicateKind {
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// The input that defined it first.
    pub first: String,
    /// The input that defined it again.
    pub second: String,
}

impl std::fmt::Display for DuplicateKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} {} is defined twice, in {} and in {}; pass each CRD only once (a directory and a bundle containing the same CRD count twice)",
            self.group, self.version, self.kind, self.first, self.second
        )
    }
}
