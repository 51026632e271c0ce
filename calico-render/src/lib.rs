//! Rendering of Calico bundles, patches and stream adapters.

pub mod patch;
pub mod post_render;
pub mod scan;
pub mod yaml;
pub mod schema;
