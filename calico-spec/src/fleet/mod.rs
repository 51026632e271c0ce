//! Fleets: many clusters that share one address plan.
//!
//! [`plan::AddressPlan::of`] reads a ClusterNetwork's ranges (pod pools with the blocks and nodes
//! they hold, Service ranges, LoadBalancer pools, node subnets, avoided ranges) and the settings
//! routing between clusters depends on; [`check`] compares the plans of a fleet (`FL` codes):
//! overlaps between clusters and with the fleet file's reserved and routed ranges, found by one
//! sort-and-sweep over every distinct range with the clusters that hold it ([`overlaps`]; one
//! finding per shared range, not per pair), and the routing settings clusters in one
//! routing group must share. [`read`] reads a fleet file ([`Fleet`]). No IO: the caller resolves
//! the fleet file's cluster list and reads the files.

mod check;
pub mod plan;
mod spec;

pub use check::{
    FleetDiagnostic, LISTED, Overlap, Owner, Routing, check, list_clusters, overlaps,
    overlaps_where, reported_overlaps,
};
pub use plan::{AddressPlan, Blocks, Range, RangeKind};
pub use spec::{Fleet, FleetKind, FleetSpec, KIND, NamedRange, RoutingGroup};

use crate::diag::{Diagnostic, Location};
use crate::rules::catalogue as c;
use crate::source::{Limits, Scalars, SourceError, SpanMap, parse_stream_with};
use crate::typed::{self, ProblemKind};

/// A fleet file read from text, with the positions of its fields.
#[derive(Debug, Clone)]
pub struct ReadFleet {
    /// The fleet.
    pub fleet: Fleet,
    /// Field path -> position, for placing fleet-file diagnostics.
    pub spans: SpanMap,
}

/// Read a fleet file strictly (unknown fields, wrong types and bad CIDRs refused, every problem
/// at once); `file` names it in positions. Problems are `FL0001` errors.
pub fn read(file: &str, text: &str) -> Result<ReadFleet, Vec<Diagnostic>> {
    let at = |document: usize, line: usize, column: usize| Location {
        file: file.to_owned(),
        document,
        line: Some(line),
        column: Some(column),
    };
    let refuse = |message: String, location: Location| Diagnostic {
        severity: c::FL_FLEET_FILE.severity,
        code: c::FL_FLEET_FILE.code,
        path: String::new(),
        message,
        hint: None,
        location: Some(location),
    };
    let documents =
        parse_stream_with(text, &Limits::CLUSTER_NETWORK, Scalars::AsWritten).map_err(|err| {
            let (line, column) = match &err {
                SourceError::Syntax { line, column, .. }
                | SourceError::Budget { line, column, .. } => (*line, *column),
            };
            vec![refuse(
                format!("the fleet file is not YAML: {err}"),
                at(0, line, column),
            )]
        })?;
    let Some(document) = documents.into_iter().find(|doc| !doc.is_empty()) else {
        return Err(vec![refuse(
            String::from("the fleet file is empty"),
            at(0, 1, 1),
        )]);
    };
    let mut problems = Vec::new();
    let fleet = typed::read::<Fleet>(&document.value, Scalars::AsWritten, &mut problems);
    let spans = document.spans;
    let mut diagnostics = Vec::new();
    for problem in problems {
        let (message, position) = match problem.kind {
            ProblemKind::UnknownField { field, expected } => (
                format!(
                    "unknown field `{field}` (valid here: {})",
                    expected.join(", ")
                ),
                spans.locate_key(&problem.path),
            ),
            ProblemKind::MissingField { field } => (
                format!("missing required field `{field}`"),
                spans.locate_value(crate::source::parent_path(&problem.path).unwrap_or_default()),
            ),
            ProblemKind::UnknownValue { value, expected } => (
                format!("unknown value `{value}` (valid: {})", expected.join(", ")),
                spans.locate_value(&problem.path),
            ),
            ProblemKind::Invalid { message } => (message, spans.locate_value(&problem.path)),
        };
        diagnostics.push(Diagnostic {
            path: problem.path,
            hint: Some(String::from(
                "`calico-render schema --kind fleet` describes every field",
            )),
            location: Some(Location {
                file: file.to_owned(),
                document: document.index,
                line: position.map(|p| p.line),
                column: position.map(|p| p.column),
            }),
            ..refuse(message, at(0, 1, 1))
        });
    }
    match fleet {
        Some(fleet) if diagnostics.is_empty() => Ok(ReadFleet { fleet, spans }),
        _ => {
            crate::diag::sort_diagnostics(&mut diagnostics);
            Err(diagnostics)
        }
    }
}

/// Whether a YAML text's first document says `kind: Fleet` (how `render` and `validate` tell a
/// fleet file from a ClusterNetwork).
pub fn is_fleet_file(text: &str) -> bool {
    crate::source::parse_stream(text, &Limits::CLUSTER_NETWORK)
        .ok()
        .and_then(|documents| {
            let first = documents.into_iter().find(|doc| !doc.is_empty())?;
            Some(first.kind() == Some(KIND))
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests;
