//! Cross-crate integration tests for calico-render live under `tests/`.
