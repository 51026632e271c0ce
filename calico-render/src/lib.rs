//! Rendering of Calico bundles, patches and stream adapters.

pub mod bundle;
pub mod chart;
pub mod chart_values;
pub mod helm_values;
pub mod krm;
pub mod patch;
pub mod post_render;
pub mod report;
pub mod scan;
pub mod schema;
pub mod yaml;
