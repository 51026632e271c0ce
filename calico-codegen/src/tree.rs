//! An order-preserving YAML document tree.
//!
//! CRD schemas are read into this tree rather than into `serde_json::Value` or k8s-openapi's
//! `JSONSchemaProps`, because both sort `properties` alphabetically, and generated structs
//! must keep the field order the CRD author wrote. Walking the tree by hand also lets every
//! error name the schema path it came from.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// One YAML node; mappings keep their keys in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Tree {
    /// `null`, `~` or an empty value.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number, kept as JSON numbers are.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// A sequence.
    Seq(Vec<Tree>),
    /// A mapping with string keys, in document order.
    Map(Vec<(String, Tree)>),
}

impl Tree {
    /// The value under `key` when this is a mapping.
    pub fn get(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string value, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Tree::String(s) => Some(s),
            _ => None,
        }
    }

    /// A short name of the node's YAML type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Tree::Null => "null",
            Tree::Bool(_) => "boolean",
            Tree::Number(_) => "number",
            Tree::String(_) => "string",
            Tree::Seq(_) => "sequence",
            Tree::Map(_) => "mapping",
        }
    }

    /// The same data as a JSON value (mapping order becomes serde_json's key order).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Tree::Null => serde_json::Value::Null,
            Tree::Bool(b) => serde_json::Value::Bool(*b),
            Tree::Number(n) => serde_json::Value::Number(n.clone()),
            Tree::String(s) => serde_json::Value::String(s.clone()),
            Tree::Seq(items) => serde_json::Value::Array(items.iter().map(Tree::to_json).collect()),
            Tree::Map(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Tree, E> {
        Ok(Tree::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Tree, E> {
        Ok(Tree::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tree, E> {
        Ok(Tree::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Tree, E> {
        // Non-finite floats have no JSON form; keep their text so nothing is lost silently.
        Ok(serde_json::Number::from_f64(v)
            .map_or_else(|| Tree::String(v.to_string()), Tree::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tree, E> {
        Ok(Tree::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Tree, E> {
        Ok(Tree::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tree, D::Error> {
        Tree::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Tree::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut entries: Vec<(String, Tree)> = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((key, value)) = map.next_entry::<String, Tree>()? {
            entries.push((key, value));
        }
        Ok(Tree::Map(entries))
    }
}
