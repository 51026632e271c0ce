//! The CRD list types that refuse duplicates (`x-kubernetes-list-type`), per release.
//!
//! The API server refuses an object when a list its CRD declares `set` holds an item twice, or
//! a list it declares `map` holds two items with the same values of the keys
//! (`x-kubernetes-list-map-keys`; an absent key counts as a value of its own). It names the
//! second occurrence of each repeated value (the third and later are not named again). The
//! schema index of each release carries the list types (see `calico_codegen::index`), so every
//! such field of every kind is checked from the target release's own CRDs, after the schema
//! defaults a missing key would get.

use serde_json::{Map, Value};

use super::{Node, Release};
use crate::diag::Diagnostic;
use crate::rules::catalogue as c;
use crate::source::{join_index, join_key};

/// Report every repeated item of a `set` or `map` list of `top` (a whole object of the kind at
/// `slot` of the release's index), as the target `release`'s API server does.
pub(crate) fn check_at(
    release: &Release,
    slot: usize,
    top: super::Top<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(root) = release
        .index()
        .kind_at(slot)
        .filter(|root| root.holds_list_type)
    else {
        return;
    };
    if !top.object.is_object() {
        return;
    }
    let mut found = Vec::new();
    // Metadata is the API server's own type, not the CRD's.
    for key in root
        .list_type_fields()
        .iter()
        .filter(|key| **key != "metadata")
    {
        // The schema's field is read only for a field the object has.
        if let Some(child) = top.field(key)
            && let Some(node) = root.property(key)
        {
            walk(release, child, node, At::Key(&At::Root, key), &mut found);
        }
    }
    // A kind's own check that already refuses the repeat (IPPool `allowedUses`, CR1010) keeps
    // its code: an error at the list or at the repeated item stands for this one.
    for diag in found {
        let list = diag.path.rsplit_once('[').map_or("", |(list, _)| list);
        let covered = diagnostics.iter().any(|other| {
            other.severity == crate::diag::Severity::Error
                && (other.path == diag.path || other.path == list)
        });
        if !covered {
            diagnostics.push(diag);
        }
    }
}

/// Where a value sits in the object, kept as a chain of steps and written out only for a
/// diagnostic (a document without repeats allocates no path).
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn path(&self) -> String {
        match self {
            At::Root => String::new(),
            At::Key(parent, key) => join_key(&parent.path(), key),
            At::Index(parent, idx) => join_index(&parent.path(), *idx),
        }
    }
}

fn walk(release: &Release, value: &Value, node: &Node, at: At<'_>, out: &mut Vec<Diagnostic>) {
    if !node.holds_list_type {
        return;
    }
    match value {
        Value::Object(map) => {
            // The schema's fields that can hold a list are looked up in the object (a pool's
            // spec: one lookup, `allowedUses`), rather than every field of the object in the
            // schema; a map's values are each walked.
            for key in node.list_type_fields() {
                if let Some(child) = map.get(*key)
                    && let Some(field) = node.property(key)
                {
                    walk(release, child, field, At::Key(&at, key), out);
                }
            }
            if let Some(values) = node.values().filter(|n| n.holds_list_type) {
                for (key, child) in map {
                    if !node.has_property(key) {
                        walk(release, child, values, At::Key(&at, key), out);
                    }
                }
            }
        }
        Value::Array(items) => {
            match node.list_type.as_deref() {
                Some("set") => set_duplicates(release, items, at, out),
                Some("map") => map_duplicates(release, items, node, at, out),
                _ => {}
            }
            if let Some(item_node) = node.items().filter(|node| node.holds_list_type) {
                for (idx, item) in items.iter().enumerate() {
                    walk(release, item, item_node, At::Index(&at, idx), out);
                }
            }
        }
        _ => {}
    }
}

/// For each value that occurs more than once, the index of its first and second occurrence.
fn repeats<T: PartialEq>(values: &[T]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (second, value) in values.iter().enumerate() {
        let Some(first) = values.iter().position(|v| v == value) else {
            continue;
        };
        if first == second {
            continue;
        }
        // Only the second occurrence is named: a third finds an earlier repeat.
        let earlier_repeat = values
            .iter()
            .enumerate()
            .skip(first + 1)
            .take(second - first - 1)
            .any(|(_, v)| v == value);
        if !earlier_repeat {
            out.push((first, second));
        }
    }
    out
}

fn set_duplicates(release: &Release, items: &[Value], at: At<'_>, out: &mut Vec<Diagnostic>) {
    let repeated = repeats(items);
    if repeated.is_empty() {
        return;
    }
    let path = &at.path();
    for (first, second) in repeated {
        let text = items.get(second).map(Value::to_string).unwrap_or_default();
        out.push(Diagnostic {
            severity: c::DUPLICATE_LIST_ITEM.severity,
            code: c::DUPLICATE_LIST_ITEM.code,
            path: join_index(path, second),
            message: format!(
                "duplicate item {text} (also item {first}): the API server's CRD schema refuses \
                 it, because the {} CRD declares `{path}` a set (`x-kubernetes-list-type: set`)",
                release.calico
            ),
            hint: Some(format!("list {text} once: remove item {second}")),
            location: None,
        });
    }
}

fn map_duplicates(
    release: &Release,
    items: &[Value],
    node: &Node,
    at: At<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let keys = &node.list_map_keys;
    if keys.is_empty() {
        return;
    }
    let empty = Map::new();
    // Each item's key tuple; `None` is an absent key (after its schema default, if any).
    let tuples: Vec<Vec<Option<&Value>>> = items
        .iter()
        .map(|item| {
            let fields = item.as_object().unwrap_or(&empty);
            keys.iter()
                .map(|key| {
                    fields.get(key).or_else(|| {
                        node.items()
                            .and_then(|items| items.property(key))
                            .and_then(|key_node| key_node.default.as_ref())
                    })
                })
                .collect()
        })
        .collect();
    let repeated = repeats(&tuples);
    if repeated.is_empty() {
        return;
    }
    let path = &at.path();
    let names: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
    let names = names.join(", ");
    for (first, second) in repeated {
        let tuple: Vec<String> = keys
            .iter()
            .zip(tuples.get(second).into_iter().flatten())
            .map(|(key, value)| match value {
                Some(value) => format!("{key}: {value}"),
                None => format!("{key} absent"),
            })
            .collect();
        let tuple = tuple.join(", ");
        out.push(Diagnostic {
            severity: c::DUPLICATE_LIST_ITEM.severity,
            code: c::DUPLICATE_LIST_ITEM.code,
            path: join_index(path, second),
            message: format!(
                "item {second} has the same key as item {first} ({tuple}): the API server's CRD \
                 schema refuses it, because the {} CRD declares `{path}` a map keyed by {names} \
                 (`x-kubernetes-list-type: map`)",
                release.calico
            ),
            hint: Some(format!(
                "give each item its own {names}, or merge item {second} into item {first}"
            )),
            location: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_name_the_second_occurrence_once() {
        assert_eq!(repeats(&[1, 2, 1, 1, 2, 3]), vec![(0, 2), (1, 4)]);
        assert!(repeats::<i32>(&[]).is_empty());
        assert!(repeats(&[1, 2, 3]).is_empty());
    }
}
