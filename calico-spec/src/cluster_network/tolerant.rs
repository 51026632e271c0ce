//! Checking what did read when some fields of a ClusterNetwork did not: every problem of a
//! file in one run.
//!
//! A field that fails to read (wrong type, unknown value, bad CIDR text, a typo in its key) is
//! reported by the reader; the cross-field checks and the rule catalogue need a typed
//! description. Rather than a second, lenient copy of the model (and of every check written
//! against it), the failed fields are given stand-ins: the field left out, each value its enum
//! allows, the key the "did you mean" names, or samples of its type (an IPv4 and an IPv6 range
//! for a CIDR, both booleans, ...). Each combination that types is a *variant*; the checks run
//! on every variant, and a problem is reported only when every variant has it, word for word. A
//! problem that depends on a failed field (a block size that fits one family, BPF-only settings
//! beside an unreadable `dataplane`, a pool missing because its `cidr` did not read) differs
//! between variants and stays silent, so there is no cascade and no false alarm from a stand-in.
//! Where a failed field has nothing to stand in for it but its absence (its type has no sample
//! here), or the combinations exceed [`MAX_VARIANTS`], no variant is made and only the reading
//! problems are reported, as before.

use serde_json::Value;

use super::spec::ClusterNetwork;
use crate::diag::Diagnostic;
use crate::source::Scalars;
use crate::typed::{self, Problem, ProblemKind};

/// The most variants checked for one file (each is checked, compiled and validated).
pub(super) const MAX_VARIANTS: usize = 64;

/// One way to stand in for a failed field.
#[derive(Debug, Clone)]
enum Edit {
    /// Leave the field out.
    Remove,
    /// Give it this value.
    Set(Value),
    /// Move the value to this key of the same mapping (the field the user meant).
    Rename(String),
}

/// The typed descriptions `value` could have meant, given the reading `problems` found in it;
/// empty when no variant can be made (see the module docs).
pub(super) fn variants(value: &Value, problems: &[Problem]) -> Vec<ClusterNetwork> {
    let mut choices: Vec<(Vec<Step>, Vec<Edit>)> = Vec::new();
    for problem in problems {
        let Some(steps) = steps(&problem.path) else {
            return Vec::new();
        };
        let edits = edits(problem);
        let only_absence = matches!(edits.as_slice(), [Edit::Remove] | []);
        if only_absence && !matches!(problem.kind, ProblemKind::UnknownField { .. }) {
            return Vec::new();
        }
        choices.push((steps, edits));
    }
    let total = choices
        .iter()
        .try_fold(1usize, |acc, (_, edits)| acc.checked_mul(edits.len()));
    if !matches!(total, Some(1..=MAX_VARIANTS)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut picks = vec![0usize; choices.len()];
    loop {
        let mut candidate = value.clone();
        let applied = choices.iter().zip(&picks).all(|((steps, edits), &pick)| {
            edits
                .get(pick)
                .is_some_and(|edit| apply(&mut candidate, steps, edit))
        });
        if applied {
            let mut problems = Vec::new();
            let typed =
                typed::read::<ClusterNetwork>(&candidate, Scalars::AsWritten, &mut problems);
            if let (Some(cluster_network), true) = (typed, problems.is_empty()) {
                out.push(cluster_network);
            }
        }
        // The next combination, the first choice turning fastest.
        let mut carried = true;
        for (pick, (_, edits)) in picks.iter_mut().zip(&choices) {
            *pick += 1;
            if *pick < edits.len() {
                carried = false;
                break;
            }
            *pick = 0;
        }
        if carried {
            break;
        }
    }
    out
}

/// The problems every one of `found` (one list per variant) has, in the first list's order.
pub(super) fn agreed(found: Vec<Vec<Diagnostic>>) -> Vec<Diagnostic> {
    let mut lists = found.into_iter();
    let Some(first) = lists.next() else {
        return Vec::new();
    };
    let rest: Vec<Vec<Diagnostic>> = lists.collect();
    first
        .into_iter()
        .filter(|diag| rest.iter().all(|other| other.contains(diag)))
        .collect()
}

/// The stand-ins for one failed field.
fn edits(problem: &Problem) -> Vec<Edit> {
    let name = field_name(&problem.path);
    match &problem.kind {
        ProblemKind::UnknownField { field, expected } => {
            let mut out = vec![Edit::Remove];
            if let Some(meant) = crate::suggest::closest(field, expected.iter().map(String::as_str))
            {
                out.push(Edit::Rename(meant.to_owned()));
            }
            out
        }
        // Left out too: an optional field's absence is a meaning of its own (a lint about a
        // setting that is there stays silent when the setting did not read).
        ProblemKind::UnknownValue { expected, .. } => std::iter::once(Edit::Remove)
            .chain(
                expected
                    .iter()
                    .map(|value| Edit::Set(Value::String(value.clone()))),
            )
            .collect(),
        ProblemKind::MissingField { field } => {
            samples(field, "").into_iter().map(Edit::Set).collect()
        }
        ProblemKind::Invalid { message } => {
            let mut out = vec![Edit::Remove];
            out.extend(samples(name, message).into_iter().map(Edit::Set));
            out
        }
    }
}

/// Valid values of the field called `name`, of different kinds where its kind matters to the
/// checks (both address families), for a field whose value did not read.
fn samples(name: &str, message: &str) -> Vec<Value> {
    let strings = |values: &[&str]| {
        values
            .iter()
            .map(|value| Value::String((*value).to_owned()))
            .collect()
    };
    if message.starts_with("expected true or false") {
        return vec![Value::Bool(true), Value::Bool(false)];
    }
    match name {
        "cidr" | "avoid" | "nodeSubnets" | "serviceCIDRs" | "podCIDRs" | "cidrs" => {
            strings(&["198.18.0.0/16", "fd00:5e:1::/48"])
        }
        "peerIP" => strings(&["198.18.0.1", "fd00:5e:1::1"]),
        "asNumber" => vec![Value::from(64512u32), Value::from(65010u32)],
        "port" => vec![Value::from(6443u32), Value::from(443u32)],
        "blockSize" => vec![Value::from(26u32), Value::from(122u32)],
        "mtu" => vec![Value::from(1450u32), Value::from(9000u32)],
        _ => Vec::new(),
    }
}

/// The field a path names: its last key, without an index (`avoid` for `spec.network.avoid[1]`).
fn field_name(path: &str) -> &str {
    let last = path.rsplit('.').next().unwrap_or(path);
    last.split('[').next().unwrap_or(last)
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of a field path as [`crate::source::join_key`] and `join_index` write it
/// (`spec.podPools[0].cidr`, `metadata.labels["app.kubernetes.io/name"]`).
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix("[\"") {
            // A JSON string: find its end, then read it with JSON's escapes.
            let mut escaped = false;
            let end = quoted.char_indices().find_map(|(idx, ch)| {
                let found = ch == '"' && !escaped;
                escaped = ch == '\\' && !escaped;
                found.then_some(idx)
            })?;
            let (body, after) = quoted.split_at(end);
            let key: String = serde_json::from_str(&format!("\"{body}\"")).ok()?;
            out.push(Step::Key(key));
            rest = after.strip_prefix("\"]")?;
        } else if let Some(index) = rest.strip_prefix('[') {
            let (number, after) = index.split_once(']')?;
            out.push(Step::Index(number.parse().ok()?));
            rest = after;
        } else {
            let key = rest.strip_prefix('.').unwrap_or(rest);
            let end = key.find(['.', '[']).unwrap_or(key.len());
            let (name, after) = key.split_at(end);
            if name.is_empty() {
                return None;
            }
            out.push(Step::Key(name.to_owned()));
            rest = after;
        }
    }
    Some(out)
}

/// Apply `edit` at `steps` in `root`; false when the path's parent is not there, or the edit
/// cannot apply (a rename onto a key the mapping already has).
fn apply(root: &mut Value, steps: &[Step], edit: &Edit) -> bool {
    let Some((last, parents)) = steps.split_last() else {
        return false;
    };
    let mut node = root;
    for step in parents {
        let next = match step {
            Step::Key(key) => node.get_mut(key.as_str()),
            Step::Index(idx) => node.get_mut(*idx),
        };
        let Some(next) = next else {
            // Inside a field another edit took out: that edit decides.
            return true;
        };
        node = next;
    }
    match (last, edit, node) {
        (Step::Key(key), Edit::Remove, Value::Object(map)) => {
            map.remove(key);
            true
        }
        (Step::Key(key), Edit::Set(value), Value::Object(map)) => {
            map.insert(key.clone(), value.clone());
            true
        }
        (Step::Key(key), Edit::Rename(meant), Value::Object(map)) => {
            if map.contains_key(meant) {
                return false;
            }
            match map.remove(key) {
                Some(value) => {
                    map.insert(meant.clone(), value);
                    true
                }
                None => false,
            }
        }
        (Step::Index(idx), Edit::Set(value), Value::Array(items)) => match items.get_mut(*idx) {
            Some(item) => {
                *item = value.clone();
                true
            }
            None => false,
        },
        // An item cannot be left out without renumbering the others: no variant.
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_as_the_reader_writes_them() {
        assert_eq!(
            steps("spec.podPools[1].cidr"),
            Some(vec![
                Step::Key("spec".into()),
                Step::Key("podPools".into()),
                Step::Index(1),
                Step::Key("cidr".into()),
            ])
        );
        assert_eq!(
            steps("metadata.labels[\"a.b/c\\\"d\"]"),
            Some(vec![
                Step::Key("metadata".into()),
                Step::Key("labels".into()),
                Step::Key("a.b/c\"d".into()),
            ])
        );
        assert_eq!(steps("spec..x"), None);
        assert_eq!(field_name("spec.network.avoid[1]"), "avoid");
    }

    #[test]
    fn only_what_every_variant_has_is_agreed() {
        let diag = |code: &'static str| Diagnostic {
            severity: crate::diag::Severity::Error,
            code,
            path: String::new(),
            message: String::new(),
            hint: None,
            location: None,
        };
        let agreed = agreed(vec![vec![diag("A"), diag("B")], vec![diag("B"), diag("C")]]);
        assert_eq!(agreed, vec![diag("B")]);
    }
}
