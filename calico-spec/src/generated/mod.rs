//! Wire types generated from the pinned Calico CRDs by `calico-render codegen` (placeholder until the first generation).
