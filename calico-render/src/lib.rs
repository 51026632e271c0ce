//! Rendering of Calico bundles, patches and stream adapters.

pub mod patch;
pub mod helm_values;
pub mod krm;
pub mod post_render;
pub mod scan;
pub mod yaml;
pub mod schema;
pub mod report;
pub mod bundle;
