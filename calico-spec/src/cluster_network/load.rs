//! One call from ClusterNetwork text to validated wire objects: parse, check, compile, run the
//! rule catalogue over the compiled objects, and report every problem in the user's terms.
//!
//! **Invariant:** [`load`] returns objects only when neither the ClusterNetwork checks nor the
//! rule catalogue found an error in them, so a caller that prints what `load` returns never
//! prints a bundle calico-render would reject.

use super::compile::{compile, origin};
use super::overrides;
use super::parse::{ParseError, Reading, Unread, checked, locate, read};
use super::spec::ClusterNetwork;
use crate::diag::{Diagnostic, Severity};
use crate::objects::Object;
use crate::rules::catalogue as c;
use crate::rules::{self, Context};
use crate::source::SpanMap;

/// A ClusterNetwork read, compiled and validated.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The description as written.
    pub cluster_network: ClusterNetwork,
    /// The compiled objects, in bundle order.
    pub objects: Vec<Object>,
    /// Warnings (lints), located in the ClusterNetwork text, sorted by position.
    pub warnings: Vec<Diagnostic>,
}

/// The validation context a ClusterNetwork describes: its provider and the network facts the
/// lints compare pools against (`network.avoid`, `network.serviceCIDRs`,
/// `network.nodeSubnets`), and the pod subnets the operator checks pools against
/// (`network.podCIDRs`).
pub fn context(cluster_network: &ClusterNetwork) -> Context {
    let spec = &cluster_network.spec;
    Context {
        provider: spec.kubernetes_provider.operator_value().map(str::to_owned),
        lans: spec.network.avoid.clone(),
        service_cidrs: spec.network.service_cidrs.clone(),
        node_subnets: spec.network.node_subnets.clone(),
        pod_cidrs: (!spec.network.pod_cidrs.is_empty()).then(|| spec.network.pod_cidrs.clone()),
        release: Some(
            crate::release::Release::for_version(&spec.calico_version)
                .unwrap_or_else(|_| crate::release::Release::default_target()),
        ),
        node_mtu: None,
    }
}

/// Run the rule catalogue over compiled objects and report each problem at the ClusterNetwork
/// field it came from (paths only; `locate` adds positions).
pub fn validate_objects(cluster_network: &ClusterNetwork, objects: &[Object]) -> Vec<Diagnostic> {
    let mut diagnostics = rules::validate_compiled(objects, &context(cluster_network));
    if let Ok(release) = crate::release::Release::for_version(&cluster_network.spec.calico_version)
    {
        let values: Vec<_> = objects.iter().map(Object::to_value).collect();
        crate::defaults::apply_operator_verdicts_to_objects(release, &values, &mut diagnostics);
    }
    for diag in &mut diagnostics {
        let object_idx = diag.location.as_ref().map_or(0, |loc| loc.document);
        if let Some(object) = objects.get(object_idx) {
            diag.path = overrides::origin(cluster_network, &object.to_value(), &diag.path)
                .unwrap_or_else(|| origin(cluster_network, object, &diag.path));
        }
        diag.location = None;
    }
    diagnostics
}

/// Parse, check, compile and validate a ClusterNetwork. `file` is how the user named the
/// input; it only appears in positions.
pub fn load(file: &str, text: &str) -> Result<Loaded, ParseError> {
    load_for(file, text, None)
}

/// [`load`] as if `spec.calicoVersion` were `calico_version` (when given): what the same
/// ClusterNetwork renders to for another release, with every problem placed in `text` (what
/// `calico-render upgrade` compares). The API mode stays the one of the text's own release
/// (`spec.apiMode` is set to it where the other release's default differs), as the operator keeps an existing cluster's mode. The version must name a supported release (see
/// [`crate::release::Release::for_version`]); the text's own `calicoVersion` is still checked.
pub fn load_for(
    file: &str,
    text: &str,
    calico_version: Option<&str>,
) -> Result<Loaded, ParseError> {
    let Reading {
        spans,
        index,
        read: outcome,
    } = read(file, text)?;
    let read = Read {
        file,
        text,
        index,
        spans: &spans,
    };
    match outcome {
        Ok(cluster_network) => read
            .load(cluster_network, calico_version)
            .map_err(|diagnostics| ParseError::Invalid { diagnostics }),
        // Every check on the fields that did read: what every variant finds.
        Err(Unread {
            mut diagnostics,
            variants,
        }) => {
            let found = variants
                .into_iter()
                .map(|variant| match read.load(variant, calico_version) {
                    Ok(loaded) => loaded.warnings,
                    Err(diagnostics) => diagnostics,
                })
                .collect();
            diagnostics.extend(super::tolerant::agreed(found));
            sort(&mut diagnostics);
            diagnostics.dedup();
            Err(ParseError::Invalid { diagnostics })
        }
    }
}

/// The text a description was read from, for checking it and placing what is found.
struct Read<'a> {
    file: &'a str,
    text: &'a str,
    index: usize,
    spans: &'a SpanMap,
}

impl Read<'_> {
    /// Check, compile and validate one description; every diagnostic when there is an error.
    fn load(
        &self,
        cluster_network: ClusterNetwork,
        calico_version: Option<&str>,
    ) -> Result<Loaded, Vec<Diagnostic>> {
        let (file, spans) = (self.file, self.spans);
        let (mut cluster_network, warnings) =
            checked(file, self.text, self.index, spans, cluster_network);
        if warnings.iter().any(|diag| diag.severity == Severity::Error) {
            return Err(warnings);
        }
        if let Some(version) = calico_version {
            // The cluster keeps the API mode it runs: the operator never switches it, whatever
            // mode the other release starts a new install in.
            let spec = &mut cluster_network.spec;
            let kept = spec.resolved_api_mode();
            version.clone_into(&mut spec.calico_version);
            if spec.resolved_api_mode() != kept {
                spec.api_mode = Some(kept);
            }
        }
        // Compilation of checked input only fails on a bug; report it as an error diagnostic so
        // the caller's handling of invalid input applies.
        let objects = compile(&cluster_network).map_err(|err| {
            let mut diagnostics = vec![Diagnostic {
                severity: c::CN_INVALID_VALUE.severity,
                code: c::CN_INVALID_VALUE.code,
                path: String::from("spec"),
                message: err.to_string(),
                hint: None,
                location: None,
            }];
            locate(file, spans, &mut diagnostics);
            diagnostics
        })?;
        let mut found = validate_objects(&cluster_network, &objects);
        // What the release in `spec.calicoVersion` cannot express (CN0112).
        found.extend(crate::release::cluster_network_problems(
            &cluster_network,
            &objects,
        ));
        locate(file, spans, &mut found);
        let mut diagnostics = warnings;
        diagnostics.extend(found);
        sort(&mut diagnostics);
        diagnostics.dedup();
        if diagnostics
            .iter()
            .any(|diag| diag.severity == Severity::Error)
        {
            return Err(diagnostics);
        }
        Ok(Loaded {
            cluster_network,
            objects,
            warnings: diagnostics,
        })
    }
}

fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.severity, &a.location, a.code, &a.path).cmp(&(b.severity, &b.location, b.code, &b.path))
    });
}
