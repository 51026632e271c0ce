//! CRD to Rust codegen engine.
