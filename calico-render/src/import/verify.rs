//! The guarantee, checked on every import: the ClusterNetwork text passes every check `render`
//! runs, reads back as the value import built, and renders every live value that was not
//! dropped for a reason, unchanged.

use calico_spec::cluster_network::{self, ClusterNetwork, ParseError};
use calico_spec::diag::Severity;
use calico_spec::rules::catalogue as c;
use serde_json::Value;

use super::installation::POOLS_PATH;
use super::read::Live;
use super::{Report, listed};

/// How the check names the ClusterNetwork text in its messages.
const TEXT_NAME: &str = "<imported ClusterNetwork>";

/// Load `text`, then compare what it renders with each live object (as import left it).
pub(super) fn verify(
    cluster_network: &ClusterNetwork,
    text: &str,
    comparable: &[(&Live, Value)],
    report: &mut Report,
) {
    let loaded = match cluster_network::load(TEXT_NAME, text) {
        Ok(loaded) => loaded,
        Err(ParseError::Invalid { diagnostics }) => {
            for diag in diagnostics {
                if diag.severity == Severity::Error {
                    report.push(
                        &c::CN_IMPORT_INEXPRESSIBLE,
                        None,
                        &diag.path,
                        format!(
                            "the live objects together break a ClusterNetwork rule: {}[{}] {}",
                            diag.severity, diag.code, diag.message
                        ),
                        diag.hint.as_deref().unwrap_or(""),
                    );
                } else {
                    report.diagnostics.push(without_location(diag));
                }
            }
            return;
        }
        Err(other) => {
            report.push(
                &c::CN_IMPORT_INEXPRESSIBLE,
                None,
                "",
                format!("the imported ClusterNetwork does not read back: {other}"),
                "please report this with the live objects",
            );
            return;
        }
    };
    if loaded.cluster_network != *cluster_network {
        report.push(
            &c::CN_IMPORT_INEXPRESSIBLE,
            None,
            "",
            "the imported ClusterNetwork reads back differently from what import built".to_owned(),
            "please report this with the live objects",
        );
        return;
    }
    report
        .diagnostics
        .extend(loaded.warnings.into_iter().map(without_location));

    let rendered: Vec<Value> = loaded
        .objects
        .iter()
        .map(|object| object.to_value())
        .collect();
    let identity = |value: &Value| {
        (
            value.get("kind").cloned(),
            value.pointer("/metadata/name").cloned(),
            value.pointer("/metadata/namespace").cloned(),
        )
    };
    for (live, expected) in comparable {
        let Some(object) = rendered
            .iter()
            .find(|object| identity(object) == identity(expected))
        else {
            report.push(
                &c::CN_IMPORT_INEXPRESSIBLE,
                Some(&live.at),
                "",
                format!(
                    "{} `{}` would not be rendered by the imported ClusterNetwork",
                    live.kind, live.name
                ),
                "please report this with the live objects",
            );
            continue;
        };
        let mut found = Found::default();
        compare(&live.kind, "", expected, object, &mut found);
        for (path, rendered) in found.lost {
            let shown = match rendered {
                Some(value) => format!("renders {value}"),
                None => "does not render it".to_owned(),
            };
            report.push(
                &c::CN_IMPORT_INEXPRESSIBLE,
                Some(&live.at),
                &path,
                format!(
                    "{} `{}`: the imported ClusterNetwork {shown}; the live value cannot be said",
                    live.kind, live.name
                ),
                "please report this with the live objects",
            );
        }
        if !found.added.is_empty() {
            report.push(
                &c::CN_IMPORT_ADDS,
                Some(&live.at),
                "",
                format!(
                    "{} `{}`: render writes {}, which the live object lacks (`patch` would add \
                     them)",
                    live.kind,
                    live.name,
                    listed(&found.added)
                ),
                "the operator writes them on its next reconcile; if it has reconciled already, the \
                 cluster runs another Calico release: import with its `--calico-version`",
            );
        }
    }
    for object in &rendered {
        if !comparable
            .iter()
            .any(|(_, expected)| identity(expected) == identity(object))
        {
            let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
            let name = object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            report.push(
                &c::CN_IMPORT_ADDS,
                None,
                "",
                format!("render writes {kind} `{name}`, which the live objects do not hold"),
                "",
            );
        }
    }
}

fn without_location(mut diag: calico_spec::diag::Diagnostic) -> calico_spec::diag::Diagnostic {
    diag.location = None;
    diag
}

/// What the comparison of one object found.
#[derive(Default)]
struct Found {
    /// Live values rendered otherwise (with what is rendered) or not at all.
    lost: Vec<(String, Option<Value>)>,
    /// Rendered values the live object lacks.
    added: Vec<String>,
}

fn compare(kind: &str, path: &str, live: &Value, rendered: &Value, found: &mut Found) {
    let join = |key: &str| calico_spec::source::join_key(path, key);
    match (live, rendered) {
        (Value::Object(live), Value::Object(rendered)) => {
            for (key, value) in live {
                match rendered.get(key) {
                    Some(other) => compare(kind, &join(key), value, other, found),
                    None => found.lost.push((join(key), None)),
                }
            }
            for key in rendered.keys().filter(|key| !live.contains_key(*key)) {
                found.added.push(join(key));
            }
        }
        (Value::Array(live), Value::Array(rendered))
            if kind == "Installation" && path == POOLS_PATH =>
        {
            let name = |pool: &Value| pool.get("name").cloned();
            for pool in live {
                let at = format!("{path}[name={}]", name(pool).unwrap_or_default());
                match rendered.iter().find(|other| name(other) == name(pool)) {
                    Some(other) => compare(kind, &at, pool, other, found),
                    None => found.lost.push((at, None)),
                }
            }
            for pool in rendered {
                if !live.iter().any(|other| name(other) == name(pool)) {
                    found
                        .added
                        .push(format!("{path}[name={}]", name(pool).unwrap_or_default()));
                }
            }
        }
        (live, rendered) if live == rendered => {}
        (_, rendered) => found.lost.push((path.to_owned(), Some(rendered.clone()))),
    }
}
