//! The integration-test suite, one binary with a module per area (one link instead of one per
//! file). Run one area with a filter: `cargo test -p calico-render-tests -- render_cli::`.
//!
//! `codegen_compile` is ignored by default: it compiles a scratch crate of every pinned CRD,
//! which takes minutes on two cores. CI runs it with `cargo test -p calico-render-tests --
//! --ignored`.
// Test code: an unwrap or a panic is a failing test, which is what a test should do.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod cel_rules;
mod chart_releases;
mod cli_consistency;
mod cluster_network_build;
mod codegen_cli;
mod codegen_compile;
mod codegen_errors;
mod codegen_fresh;
mod codegen_roundtrip;
mod codegen_snapshots;
mod context_and_text;
mod day_two;
mod e2e_k8s;
mod e2e_operator;
mod e2e_operator_patch;
mod e2e_plan;
mod e2e_releases;
mod first_hour;
mod fleet_cli;
mod fuzz_corpus;
mod hostile_input;
mod import;
mod import_manifests;
mod krm_function;
mod lists;
mod messages;
mod observability;
mod ops_checks;
mod ops_checks_runtime;
mod oracle_diff;
mod out_dir_writes;
mod overrides;
mod patch_cli;
mod patch_property;
mod patch_snapshots;
mod patch_table;
mod patch_unstated;
mod picture;
mod plan;
mod post_render_cli;
mod post_render_stream;
mod post_render_tools;
mod provenance;
mod real_corpus;
mod releases;
mod render_cli;
mod render_examples;
mod render_parse;
mod router_daemons;
mod router_render;
mod scan_differential;
mod skip_tally;
mod standalone_docs;
mod tidy;
mod upgrade;
mod v333_examples;
mod validate_chart_values;
mod validate_cli;
mod validate_rules;
