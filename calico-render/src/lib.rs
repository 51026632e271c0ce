//! Rendering of Calico bundles, patches and stream adapters.
