//! The operator's defaults, applied to an Installation the way tigera-operator v1.42 writes them back.
