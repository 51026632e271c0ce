//! The typed pass: a document's untyped value read into a Rust type (a generated wire type or
//! the ClusterNetwork), with every problem the type finds and the field path it is at.
//!
//! A type can say four things about a document: a field it does not have, a required field that
//! is missing, an enum value it does not know, and a value it cannot read (wrong type, out of
//! range, a CIDR that does not parse). serde stops at the first; this pass records it, removes
//! the offending node and types the document again, so every such problem is found (up to a
//! fixed number of rounds). Callers turn the problems into diagnostics with their own codes and
//! hints; the messages are already in the user's terms (no Rust type names).
//!
//! Documents read with [`Scalars::AsWritten`] are typed through [`AsWritten`], which lets the
//! field's type decide what a plain scalar means, as a typed YAML reader does.

use serde::de::value::{Error as ValueError, MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Unexpected, Visitor};
use serde_json::Value;

use crate::source::{Scalars, join_index, join_key, parent_path, resolve_int, resolve_plain};
use crate::suggest::closest;

/// One problem the type found, at `path` (the field path in the document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Where: for unknown and missing fields, the path of that field itself.
    pub(crate) path: String,
    /// What.
    pub(crate) kind: ProblemKind,
}

/// What a [`Problem`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProblemKind {
    /// A field the type does not have; `expected` lists the fields it has, in schema order.
    UnknownField {
        field: String,
        expected: Vec<String>,
    },
    /// A required field that is absent.
    MissingField { field: String },
    /// A string that is not one of the enum's values, which `expected` lists.
    UnknownValue {
        value: String,
        expected: Vec<String>,
    },
    /// A value the type cannot read, with a message in the user's terms.
    Invalid { message: String },
}

/// Type `value` as `T`, reporting every problem to `problems`. Returns the typed value once it
/// types, with the offending nodes removed when there were problems (so a caller can still
/// check the rest), or `None` when it cannot be typed at all.
pub(crate) fn read<T: DeserializeOwned>(
    value: &Value,
    scalars: Scalars,
    problems: &mut Vec<Problem>,
) -> Option<T> {
    // The common case, a valid document, is typed without copying it and without the path
    // tracking, which only matters for a document that fails.
    let typed = match scalars {
        Scalars::Kubernetes => T::deserialize(value).ok(),
        Scalars::AsWritten => T::deserialize(AsWritten(value)).ok(),
    };
    if typed.is_some() {
        return typed;
    }
    read_reporting(value, scalars, problems)
}

/// Whether `value` types as `T`, reporting every problem to `problems` when it does not: the
/// verdict of [`read`] for a caller that does not keep the typed value, which saves moving it
/// (a wire type with its metadata is about a kilobyte) out of every valid document.
pub(crate) fn check<T: DeserializeOwned>(
    value: &Value,
    scalars: Scalars,
    problems: &mut Vec<Problem>,
) {
    let types = match scalars {
        Scalars::Kubernetes => T::deserialize(value).is_ok(),
        Scalars::AsWritten => T::deserialize(AsWritten(value)).is_ok(),
    };
    if !types {
        let _ = read_reporting::<T>(value, scalars, problems);
    }
}

/// [`read`] once the plain attempt failed: type a copy again and again with path tracking,
/// recording each problem and removing its node.
fn read_reporting<T: DeserializeOwned>(
    value: &Value,
    scalars: Scalars,
    problems: &mut Vec<Problem>,
) -> Option<T> {
    const MAX_ROUNDS: usize = 64;
    let mut current = value.clone();
    // Paths this pass removed to get on with typing. Removing an object can make a required
    // field of its parent go missing (an IPPool without `cidr` loses `spec`); that is our doing,
    // not the user's, so it is not reported, and typing stops there.
    let mut removed: Vec<Vec<Segment>> = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let (segments, message) = match deserialize_tracked::<T>(&current, scalars) {
            Ok(typed) => return Some(typed),
            Err(err) => err,
        };
        if let Some(field) = quoted_after(&message, "unknown field `") {
            let mut full = segments.clone();
            // serde_path_to_error stops at the mapping that holds the unknown key.
            if full.last() != Some(&Segment::Key(field.clone())) {
                full.push(Segment::Key(field.clone()));
            }
            problems.push(Problem {
                path: render_path(&full),
                kind: ProblemKind::UnknownField {
                    field,
                    expected: expected_names(&message),
                },
            });
            if !remove(&mut current, &full) {
                return None;
            }
            continue;
        }
        if let Some(field) = quoted_after(&message, "missing field `") {
            let mut full = segments.clone();
            full.push(Segment::Key(field.clone()));
            if removed.contains(&full) {
                return None;
            }
            // A misspelt required field is one mistake: the unknown field, whose hint names
            // the field meant, is reported and the missing field it stands for is not.
            let path = render_path(&full);
            let misspelt = problems.iter().any(|problem| match &problem.kind {
                ProblemKind::UnknownField { field: unknown, .. } => {
                    parent_path(&problem.path) == parent_path(&path)
                        && closest(unknown, [field.as_str()]).is_some()
                }
                _ => false,
            });
            if !misspelt {
                problems.push(Problem {
                    path,
                    kind: ProblemKind::MissingField { field },
                });
            }
        } else if let Some(value) = quoted_after(&message, "unknown variant `") {
            problems.push(Problem {
                path: render_path(&segments),
                kind: ProblemKind::UnknownValue {
                    value,
                    expected: expected_names(&message),
                },
            });
        } else {
            problems.push(Problem {
                path: render_path(&segments),
                kind: ProblemKind::Invalid {
                    message: readable(&message),
                },
            });
        }
        // Drop the offending node (for a missing field, the incomplete object) so the rest of
        // the document can still be typed.
        if segments.is_empty() || !remove(&mut current, &segments) {
            return None;
        }
        removed.push(segments);
    }
    None
}

/// A field [`read_lenient`] took out of a document: its path as diagnostics write it, its JSON
/// Pointer (RFC 6901) and its value.
pub(crate) type TakenField = (String, String, Value);

/// Type `value` as `T`, taking out the fields `T` does not have (returned with their values, in
/// the order found) instead of refusing the document. Any other problem is still an error: its
/// field path and a message in the user's terms.
pub(crate) fn read_lenient<T: DeserializeOwned>(
    mut value: Value,
) -> Result<(T, Vec<TakenField>), (String, String)> {
    let mut taken = Vec::new();
    loop {
        let (mut segments, message) = match deserialize_tracked::<T>(&value, Scalars::Kubernetes) {
            Ok(typed) => return Ok((typed, taken)),
            Err(err) => err,
        };
        let Some(field) = quoted_after(&message, "unknown field `") else {
            return Err((render_path(&segments), readable(&message)));
        };
        // serde_path_to_error stops at the mapping that holds the unknown key.
        if segments.last() != Some(&Segment::Key(field.clone())) {
            segments.push(Segment::Key(field.clone()));
        }
        let pointer: String = segments
            .iter()
            .map(|segment| match segment {
                Segment::Key(key) => format!("/{}", key.replace('~', "~0").replace('/', "~1")),
                Segment::Index(idx) => format!("/{idx}"),
            })
            .collect();
        let parent = &pointer[..pointer.rfind('/').unwrap_or(0)];
        let removed = value
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .and_then(|map| map.remove(&field));
        // Each round takes one field out, so this ends; a field that cannot be taken out
        // (serde named a key the document does not hold) is refused like any other problem.
        let Some(removed) = removed else {
            return Err((render_path(&segments), readable(&message)));
        };
        taken.push((render_path(&segments), pointer, removed));
    }
}

/// One typing attempt with path tracking: the typed value, or the path and message of the
/// first problem.
fn deserialize_tracked<T: DeserializeOwned>(
    value: &Value,
    scalars: Scalars,
) -> Result<T, (Vec<Segment>, String)> {
    fn split<E: std::fmt::Display>(err: serde_path_to_error::Error<E>) -> (Vec<Segment>, String) {
        let segments = err.path().iter().filter_map(Segment::from_serde).collect();
        (segments, err.inner().to_string())
    }
    match scalars {
        Scalars::Kubernetes => serde_path_to_error::deserialize(value).map_err(split),
        Scalars::AsWritten => serde_path_to_error::deserialize(AsWritten(value)).map_err(split),
    }
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

impl Segment {
    fn from_serde(segment: &serde_path_to_error::Segment) -> Option<Segment> {
        match segment {
            serde_path_to_error::Segment::Map { key } => Some(Segment::Key(key.clone())),
            serde_path_to_error::Segment::Seq { index } => Some(Segment::Index(*index)),
            // Struct fields that serde reads through `deserialize_struct` are map keys in an
            // untyped value, so only the unknown-segment case is left.
            _ => None,
        }
    }
}

fn render_path(segments: &[Segment]) -> String {
    let mut path = String::new();
    for segment in segments {
        path = match segment {
            Segment::Key(key) => join_key(&path, key),
            Segment::Index(idx) => join_index(&path, *idx),
        };
    }
    path
}

/// Remove the node at `segments` from `value`; false when there is nothing to remove.
fn remove(value: &mut Value, segments: &[Segment]) -> bool {
    let Some((last, parents)) = segments.split_last() else {
        return false;
    };
    let mut node = value;
    for segment in parents {
        node = match (segment, node) {
            (Segment::Key(key), Value::Object(map)) => match map.get_mut(key) {
                Some(child) => child,
                None => return false,
            },
            (Segment::Index(idx), Value::Array(items)) => match items.get_mut(*idx) {
                Some(child) => child,
                None => return false,
            },
            _ => return false,
        };
    }
    match (last, node) {
        (Segment::Key(key), Value::Object(map)) => map.remove(key).is_some(),
        (Segment::Index(idx), Value::Array(items)) if *idx < items.len() => {
            items.remove(*idx);
            true
        }
        _ => false,
    }
}

/// The name in serde's "<prefix>x`..." messages (`unknown field `x``, `missing field `x``,
/// `unknown variant `x``).
fn quoted_after(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    Some(rest.split('`').next()?.to_owned())
}

/// The names listed in serde's "expected one of `a`, `b`", "expected `a` or `b`" or
/// "expected `a`" tail.
fn expected_names(message: &str) -> Vec<String> {
    let Some((_, list)) = message.split_once("expected") else {
        return Vec::new();
    };
    list.split('`')
        .enumerate()
        .filter(|(idx, _)| idx % 2 == 1)
        .map(|(_, name)| name.to_owned())
        .collect()
}

/// serde's messages made to read as ours: "invalid type: string \"x\", expected a boolean" ->
/// "expected a boolean, found string \"x\"", with Rust's names for what was expected (`u16`,
/// `i64`, `struct IPPoolSpec`) said in words.
fn readable(message: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((found, expected)) = rest.split_once(", expected ")
        {
            // serde calls null "unit value".
            let found = if found == "unit value" { "null" } else { found };
            return one_line(&format!("expected {}, found {found}", in_words(expected)));
        }
    }
    one_line(message)
}

/// `message` with control characters (a newline in a block scalar the message quotes) escaped,
/// so a diagnostic stays on one line.
pub(crate) fn one_line(message: &str) -> String {
    message
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// What serde's primitive visitors and derived structs say they expect, in words.
fn in_words(expected: &str) -> String {
    let words = match expected {
        "u8" => "an integer from 0 to 255",
        "u16" => "an integer from 0 to 65535",
        "u32" => "an integer from 0 to 4294967295",
        "i8" => "an integer from -128 to 127",
        "i16" => "an integer from -32768 to 32767",
        "i32" => "an integer from -2147483648 to 2147483647",
        "u64" | "u128" | "usize" => "a non-negative integer",
        "i64" | "i128" | "isize" => "an integer",
        "f32" | "f64" => "a number",
        "unit" => "null",
        _ if expected.starts_with("struct ") || expected.starts_with("tuple struct ") => {
            "a mapping"
        }
        _ if expected.starts_with("enum ") => "one of the field's values",
        _ => expected,
    };
    words.to_owned()
}

/// A document read with [`Scalars::AsWritten`], typed the way a typed YAML reader types it: a
/// plain scalar is text until the field's type reads it, so `name: 123` is the name `123`,
/// `port: "6443"` is the port 6443, and a boolean is `true` or `false` (any case of those two
/// words), never YAML 1.1's `yes` or `on`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AsWritten<'a>(pub(crate) &'a Value);

impl<'de> IntoDeserializer<'de, ValueError> for AsWritten<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> AsWritten<'de> {
    /// What the value is, for "found ..." in messages.
    fn unexpected(&self) -> Unexpected<'de> {
        match self.0 {
            Value::Null => Unexpected::Other("null"),
            Value::Bool(b) => Unexpected::Bool(*b),
            Value::Number(n) => n
                .as_i64()
                .map(Unexpected::Signed)
                .or_else(|| n.as_u64().map(Unexpected::Unsigned))
                .unwrap_or_else(|| Unexpected::Float(n.as_f64().unwrap_or_default())),
            Value::String(s) => Unexpected::Str(s),
            Value::Array(_) => Unexpected::Seq,
            Value::Object(_) => Unexpected::Map,
        }
    }

    /// Read a number field: the text as [`resolve_plain`] reads numbers.
    fn number<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        let number = match self.0 {
            Value::String(text) => resolve_int(text).or_else(|| match resolve_plain(text) {
                Value::Number(number) => Some(number),
                _ => None,
            }),
            Value::Number(number) => Some(number.clone()),
            _ => None,
        };
        match number {
            Some(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (None, None, Some(f)) => visitor.visit_f64(f),
                _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
            },
            None => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }
}

/// Number fields read the scalar's text as a number (see `AsWritten::number`).
macro_rules! numbers_by_text {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
                self.number(visitor)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for AsWritten<'de> {
    type Error = ValueError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(_) => self.number(visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => {
                let mut seq = SeqDeserializer::new(items.iter().map(AsWritten));
                let out = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(out)
            }
            Value::Object(map) => {
                let mut entries =
                    MapDeserializer::new(map.iter().map(|(k, v)| (k.as_str(), AsWritten(v))));
                let out = visitor.visit_map(&mut entries)?;
                entries.end()?;
                Ok(out)
            }
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        match self.0 {
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::String(s) if matches!(s.as_str(), "true" | "True" | "TRUE") => {
                visitor.visit_bool(true)
            }
            Value::String(s) if matches!(s.as_str(), "false" | "False" | "FALSE") => {
                visitor.visit_bool(false)
            }
            _ => Err(de::Error::invalid_value(
                self.unexpected(),
                &"true or false",
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ValueError> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(self.unexpected(), &"a mapping")),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ValueError> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => {
                let listed: Vec<String> = variants.iter().map(|v| format!("`{v}`")).collect();
                let expected = format!("one of {}", listed.join(", "));
                Err(de::Error::invalid_type(
                    self.unexpected(),
                    &expected.as_str(),
                ))
            }
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ValueError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        visitor.visit_unit()
    }

    numbers_by_text! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
        deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        identifier
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Pool {
        name: String,
        block_size: Option<u16>,
        nat: Option<bool>,
        mode: Option<Mode>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    enum Mode {
        Always,
        Never,
    }

    fn problems<T: DeserializeOwned>(value: Value, scalars: Scalars) -> Vec<Problem> {
        let mut found = Vec::new();
        read::<T>(&value, scalars, &mut found);
        found
    }

    fn invalid(path: &str, message: &str) -> Problem {
        Problem {
            path: path.into(),
            kind: ProblemKind::Invalid {
                message: message.into(),
            },
        }
    }

    #[test]
    fn the_field_type_reads_text_as_written() {
        let value = json!({"name": "123", "blockSize": "0x1A", "nat": "True", "mode": "Never"});
        let mut found = Vec::new();
        let pool: Pool = read(&value, Scalars::AsWritten, &mut found).expect("types");
        assert_eq!(
            pool,
            Pool {
                name: "123".into(),
                block_size: Some(26),
                nat: Some(true),
                mode: Some(Mode::Never)
            }
        );
        assert_eq!(
            problems::<Pool>(json!({"name": "a", "nat": "yes"}), Scalars::AsWritten),
            [invalid(
                "nat",
                "expected true or false, found string \"yes\""
            )]
        );
    }

    #[test]
    fn every_problem_is_found_in_the_users_terms() {
        let value = json!({"name": null, "blockSize": "99999", "nat": [1], "mode": "Sometimes", "extra": 1});
        // In the order of the value's keys; callers sort diagnostics by position.
        assert_eq!(
            problems::<Pool>(value, Scalars::AsWritten),
            [
                invalid(
                    "blockSize",
                    "expected an integer from 0 to 65535, found integer `99999`"
                ),
                Problem {
                    path: "extra".into(),
                    kind: ProblemKind::UnknownField {
                        field: "extra".into(),
                        expected: vec![
                            "name".into(),
                            "blockSize".into(),
                            "nat".into(),
                            "mode".into()
                        ],
                    },
                },
                Problem {
                    path: "mode".into(),
                    kind: ProblemKind::UnknownValue {
                        value: "Sometimes".into(),
                        expected: vec!["Always".into(), "Never".into()],
                    },
                },
                invalid("name", "expected a string, found null"),
                invalid("nat", "expected true or false, found sequence"),
            ]
        );
        assert_eq!(
            problems::<Pool>(json!({}), Scalars::AsWritten),
            [Problem {
                path: "name".into(),
                kind: ProblemKind::MissingField {
                    field: "name".into()
                },
            }]
        );
        assert_eq!(
            problems::<Pool>(json!(5), Scalars::AsWritten),
            [invalid("", "expected a mapping, found integer `5`")]
        );
    }

    #[test]
    fn a_misspelt_required_field_is_one_problem() {
        let found = problems::<Pool>(json!({"nme": "a"}), Scalars::AsWritten);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            matches!(&found[0].kind, ProblemKind::UnknownField { field, .. } if field == "nme")
        );
        // An unknown field that is not a spelling of the missing one leaves both reported.
        let found = problems::<Pool>(json!({"zzzzzz": "a"}), Scalars::AsWritten);
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn messages_stay_on_one_line() {
        assert_eq!(
            readable("`a\nb` is not a valid IP address"),
            "`a\\nb` is not a valid IP address"
        );
    }

    #[test]
    fn resolved_documents_keep_their_types() {
        assert_eq!(
            problems::<Pool>(json!({"name": 123}), Scalars::Kubernetes),
            [invalid("name", "expected a string, found integer `123`")]
        );
        assert_eq!(
            problems::<Pool>(json!({"name": "a", "blockSize": -1}), Scalars::Kubernetes),
            [invalid(
                "blockSize",
                "expected an integer from 0 to 65535, found integer `-1`"
            )]
        );
    }

    /// The generated types read their string enums without a copy of a listed value; what a
    /// reader sees stays the same: a listed value, an unlisted one kept as written, and a value
    /// that is not a string refused in the words a string field uses. `check` gives the verdict
    /// and the problems of `read` without the typed value.
    #[test]
    fn generated_kinds_read_enums_and_check_as_they_read() {
        use crate::generated::projectcalico_org::v3::{IPPool, IPPoolSpecVxlanMode};

        let pool = |vxlan: Value| {
            json!({"apiVersion": "projectcalico.org/v3", "kind": "IPPool",
                   "metadata": {"name": "p"}, "spec": {"cidr": "10.0.0.0/16", "vxlanMode": vxlan}})
        };
        for (written, expected) in [
            ("CrossSubnet", IPPoolSpecVxlanMode::CrossSubnet),
            (
                "Sometimes",
                IPPoolSpecVxlanMode::Unknown("Sometimes".into()),
            ),
        ] {
            let mut found = Vec::new();
            let typed: IPPool =
                read(&pool(json!(written)), Scalars::Kubernetes, &mut found).expect("types");
            assert_eq!(typed.spec.vxlan_mode, Some(expected));
            assert!(found.is_empty(), "{found:?}");
            check::<IPPool>(&pool(json!(written)), Scalars::Kubernetes, &mut found);
            assert!(found.is_empty(), "{found:?}");
        }
        let wrong = pool(json!(5));
        let read_problems = problems::<IPPool>(wrong.clone(), Scalars::Kubernetes);
        assert_eq!(
            read_problems,
            [invalid(
                "spec.vxlanMode",
                "expected a string, found integer `5`"
            )]
        );
        let mut checked = Vec::new();
        check::<IPPool>(&wrong, Scalars::Kubernetes, &mut checked);
        assert_eq!(checked, read_problems);
        // A kind of another group is refused by the apiVersion check, read borrowed.
        let mut other = pool(json!("Never"));
        other["apiVersion"] = json!("crd.projectcalico.org/v1");
        assert_eq!(problems::<IPPool>(other, Scalars::Kubernetes).len(), 1);
    }

    #[test]
    fn removal() {
        let mut value = json!({"a": {"b": [1, {"c": 2}]}});
        assert!(remove(
            &mut value,
            &[
                Segment::Key("a".into()),
                Segment::Key("b".into()),
                Segment::Index(1),
                Segment::Key("c".into())
            ]
        ));
        assert_eq!(value, json!({"a": {"b": [1, {}]}}));
        assert!(!remove(&mut value, &[Segment::Key("x".into())]));
    }
}
