//! The JSON Schemas of the input kinds (ClusterNetwork, Fleet), as `calico-render schema`
//! prints them.
//!
//! Draft-07 rather than schemars' default 2020-12, because yaml-language-server (the editor
//! integration the examples use) handles draft-07 best.

use calico_spec::cluster_network::ClusterNetwork;

/// The schema as pretty-printed JSON with a final newline.
#[expect(
    clippy::expect_used,
    reason = "a JSON Schema is plain JSON and always serializes"
)]
pub fn cluster_network_schema() -> String {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<ClusterNetwork>();
    let mut text = serde_json::to_string_pretty(&schema)
        .expect("invariant: a JSON Schema is plain JSON and always serializes");
    text.push('\n');
    text
}

/// The JSON Schema of the Fleet kind (`calico-render schema --kind fleet`), pretty-printed with
/// a final newline.
#[expect(
    clippy::expect_used,
    reason = "a JSON Schema is plain JSON and always serializes"
)]
pub fn fleet_schema() -> String {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<calico_spec::fleet::Fleet>();
    let mut text = serde_json::to_string_pretty(&schema)
        .expect("invariant: a JSON Schema is plain JSON and always serializes");
    text.push('\n');
    text
}
