//! The `schema` subcommand: print the JSON Schema of the ClusterNetwork (or Fleet) input kind.

use std::process::ExitCode;

// Arguments of `calico-render schema`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
The schema is JSON Schema draft-07. Editors that speak yaml-language-server pick it up from a
first-line comment such as `# yaml-language-server: $schema=clusternetwork.schema.json`; every
field's default is in the schema's `default` keyword.")]
pub struct Args {
    /// Which input kind's schema to print.
    #[arg(long, value_enum, default_value_t = SchemaKind::ClusterNetwork)]
    kind: SchemaKind,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SchemaKind {
    /// `ClusterNetwork`: one cluster.
    ClusterNetwork,
    /// `Fleet`: many ClusterNetworks that share one address plan (`render` and `validate` read
    /// it).
    Fleet,
}

/// Run the subcommand.
pub fn run(args: Args) -> super::Outcome {
    let text = match args.kind {
        SchemaKind::ClusterNetwork => calico_render::schema::cluster_network_schema(),
        SchemaKind::Fleet => calico_render::schema::fleet_schema(),
    };
    super::input::write_stdout(text)?;
    Ok(ExitCode::SUCCESS)
}
