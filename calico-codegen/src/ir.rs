//! The intermediate representation: CRD schemas as typed trees, before any Rust naming.
//!
//! The IR keeps what validation needs later (defaults, bounds, patterns, enums, formats,
//! list and map semantics, CEL rules, `oneOf`/`anyOf`/`allOf` alternatives) next to the
//! shape the Rust mapping needs. It knows nothing about Rust: names, types and text are
//! decided in `lower` and `render`.

use serde_json::Value;

use crate::tree::Tree;

/// One schema node of a CRD version's `openAPIV3Schema`.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// Path from the schema root: properties joined with `.`, array items as `[*]`, map values
    /// as `.*`; the root itself is `.`.
    pub path: String,
    /// The shape the node's values have.
    pub ty: SchemaType,
    /// Everything about the node that constrains values without changing their shape.
    pub constraints: Constraints,
    /// The CRD's own description, used only with `--docs`.
    pub description: Option<String>,
}

/// The shape of a schema node's values.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaType {
    /// An object; `properties` in schema order, `additional` from `additionalProperties`.
    Object {
        /// Declared properties, in the order the CRD lists them.
        properties: Vec<Property>,
        /// The schema of undeclared keys' values (`additionalProperties`), if allowed.
        additional: Option<Box<Schema>>,
    },
    /// An array of `items`.
    Array(Box<Schema>),
    /// A string.
    String,
    /// An integer.
    Integer,
    /// A floating-point number.
    Number,
    /// A boolean.
    Boolean,
    /// `x-kubernetes-int-or-string`: an integer or a string.
    IntOrString,
    /// Any JSON value: `x-kubernetes-preserve-unknown-fields`, an untyped schema, or
    /// alternatives of different types.
    Any {
        /// Why the node accepts anything (for doc comments).
        reason: AnyReason,
    },
}

/// Why a schema node maps to an arbitrary JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyReason {
    /// `x-kubernetes-preserve-unknown-fields: true`.
    PreserveUnknown,
    /// The node has no `type` and nothing else that implies one.
    Untyped,
    /// `oneOf`/`anyOf` alternatives of different types.
    Alternatives,
}

/// A declared property of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// The exact wire name.
    pub name: String,
    /// Listed in the object's `required`.
    pub required: bool,
    /// The property's schema.
    pub schema: Schema,
}

/// Value constraints and Kubernetes extensions of a schema node, kept for validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constraints {
    /// `default`.
    pub default: Option<Value>,
    /// `minimum`.
    pub minimum: Option<serde_json::Number>,
    /// `maximum`.
    pub maximum: Option<serde_json::Number>,
    /// `exclusiveMinimum`.
    pub exclusive_minimum: bool,
    /// `exclusiveMaximum`.
    pub exclusive_maximum: bool,
    /// `minLength`.
    pub min_length: Option<u64>,
    /// `maxLength`.
    pub max_length: Option<u64>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `pattern`.
    pub pattern: Option<String>,
    /// `enum` values; for `allOf` enums this is the intersection of all of them.
    pub enum_values: Vec<Value>,
    /// `format` (`int32`, `int64`, `date-time`, `byte`, `cidr`, ...).
    pub format: Option<String>,
    /// `nullable`.
    pub nullable: bool,
    /// `x-kubernetes-validations` (CEL rules).
    pub validations: Vec<CelRule>,
    /// `x-kubernetes-list-type` (`atomic`, `set`, `map`).
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type` (`atomic`, `granular`).
    pub map_type: Option<String>,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `oneOf` alternatives (often `required` lists that make fields mutually exclusive).
    pub one_of: Vec<Schema>,
    /// `anyOf` alternatives.
    pub any_of: Vec<Schema>,
    /// `allOf` parts.
    pub all_of: Vec<Schema>,
    /// `required` of an alternative that declares no properties itself (inside `oneOf`).
    pub required: Vec<String>,
}

/// One `x-kubernetes-validations` entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CelRule {
    /// The CEL expression.
    pub rule: String,
    /// `message`.
    pub message: Option<String>,
    /// `messageExpression`.
    pub message_expression: Option<String>,
    /// `reason`.
    pub reason: Option<String>,
    /// `fieldPath`.
    pub field_path: Option<String>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
}

/// A schema problem found while reading, before the file and CRD names are attached.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaProblem {
    /// Schema path of the offending node.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// Keywords the engine understands or knowingly ignores; anything else is an error, so that
/// a schema feature that would change the mapping is never dropped silently.
const KNOWN_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "additionalProperties",
    "items",
    "required",
    "description",
    "title",
    "example",
    "externalDocs",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "multipleOf",
    "pattern",
    "enum",
    "format",
    "nullable",
    "oneOf",
    "anyOf",
    "allOf",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-validations",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
];

fn problem(path: &str, message: impl Into<String>) -> SchemaProblem {
    SchemaProblem {
        path: path.to_string(),
        message: message.into(),
    }
}

fn child_path(parent: &str, segment: &str) -> String {
    if parent == "." {
        segment.to_string()
    } else {
        format!("{parent}.{segment}")
    }
}

/// Reads a schema node (and everything below it) from the YAML tree.
pub fn parse_schema(tree: &Tree, path: &str) -> Result<Schema, SchemaProblem> {
    let Tree::Map(entries) = tree else {
        return Err(problem(
            path,
            format!("expected a schema mapping, found a {}", tree.type_name()),
        ));
    };
    for (key, _) in entries {
        if !KNOWN_KEYWORDS.contains(&key.as_str()) {
            return Err(problem(
                path,
                format!(
                    "schema keyword `{key}` is not supported; supported keywords are {}",
                    KNOWN_KEYWORDS.join(", ")
                ),
            ));
        }
    }
    let constraints = parse_constraints(tree, path)?;
    let description = opt_string(tree, "description", path)?;
    let declared = opt_string(tree, "type", path)?;
    let int_or_string = opt_bool(tree, "x-kubernetes-int-or-string", path)?;
    let preserve = opt_bool(tree, "x-kubernetes-preserve-unknown-fields", path)?;

    let ty = if int_or_string {
        SchemaType::IntOrString
    } else if preserve {
        // Unknown fields are kept by the API server, so only an arbitrary value is lossless.
        SchemaType::Any {
            reason: AnyReason::PreserveUnknown,
        }
    } else {
        let implied = match declared.as_deref() {
            Some(t) => Some(t.to_string()),
            None if tree.get("properties").is_some()
                || tree.get("additionalProperties").is_some() =>
            {
                Some("object".to_string())
            }
            None if tree.get("items").is_some() => Some("array".to_string()),
            None => None,
        };
        match implied.as_deref() {
            Some("object") => parse_object(tree, path)?,
            Some("array") => {
                let items = tree
                    .get("items")
                    .ok_or_else(|| problem(path, "an array schema needs `items`"))?;
                if let Tree::Seq(_) = items {
                    return Err(problem(
                        path,
                        "tuple-style `items` (a list of schemas) is not supported; use one `items` schema",
                    ));
                }
                SchemaType::Array(Box::new(parse_schema(items, &format!("{path}[*]"))?))
            }
            Some("string") => SchemaType::String,
            Some("integer") => SchemaType::Integer,
            Some("number") => SchemaType::Number,
            Some("boolean") => SchemaType::Boolean,
            Some(other) => {
                return Err(problem(
                    path,
                    format!(
                        "type `{other}` is not supported; valid types are object, array, string, integer, number, boolean"
                    ),
                ));
            }
            None if !constraints.one_of.is_empty() || !constraints.any_of.is_empty() => {
                SchemaType::Any {
                    reason: AnyReason::Alternatives,
                }
            }
            None => SchemaType::Any {
                reason: AnyReason::Untyped,
            },
        }
    };
    Ok(Schema {
        path: path.to_string(),
        ty,
        constraints,
        description,
    })
}

fn parse_object(tree: &Tree, path: &str) -> Result<SchemaType, SchemaProblem> {
    let required: Vec<String> = string_list(tree, "required", path)?;
    let mut properties = Vec::new();
    match tree.get("properties") {
        None | Some(Tree::Null) => {}
        Some(Tree::Map(entries)) => {
            for (name, sub) in entries {
                let schema = parse_schema(sub, &child_path(path, name))?;
                properties.push(Property {
                    name: name.clone(),
                    required: required.contains(name),
                    schema,
                });
            }
        }
        Some(other) => {
            return Err(problem(
                path,
                format!(
                    "`properties` must be a mapping, found a {}",
                    other.type_name()
                ),
            ));
        }
    }
    for name in &required {
        if !properties.is_empty() && !properties.iter().any(|p| &p.name == name) {
            return Err(problem(
                path,
                format!("`required` lists `{name}`, which is not among the declared properties"),
            ));
        }
    }
    let additional = match tree.get("additionalProperties") {
        None | Some(Tree::Null) | Some(Tree::Bool(false)) => None,
        Some(Tree::Bool(true)) => Some(Box::new(Schema {
            path: format!("{path}.*"),
            ty: SchemaType::Any {
                reason: AnyReason::Untyped,
            },
            constraints: Constraints::default(),
            description: None,
        })),
        Some(sub @ Tree::Map(_)) => Some(Box::new(parse_schema(
            sub,
            &format!("{}.*", path_or_root(path)),
        )?)),
        Some(other) => {
            return Err(problem(
                path,
                format!(
                    "`additionalProperties` must be a boolean or a schema, found a {}",
                    other.type_name()
                ),
            ));
        }
    };
    if !properties.is_empty() && additional.is_some() {
        return Err(problem(
            path,
            "an object with both `properties` and `additionalProperties` is not supported; Kubernetes structural schemas forbid it",
        ));
    }
    Ok(SchemaType::Object {
        properties,
        additional,
    })
}

fn path_or_root(path: &str) -> &str {
    if path == "." { "" } else { path }
}

fn parse_constraints(tree: &Tree, path: &str) -> Result<Constraints, SchemaProblem> {
    let mut c = Constraints {
        default: tree.get("default").map(Tree::to_json),
        minimum: opt_number(tree, "minimum", path)?,
        maximum: opt_number(tree, "maximum", path)?,
        exclusive_minimum: opt_bool(tree, "exclusiveMinimum", path)?,
        exclusive_maximum: opt_bool(tree, "exclusiveMaximum", path)?,
        min_length: opt_u64(tree, "minLength", path)?,
        max_length: opt_u64(tree, "maxLength", path)?,
        min_items: opt_u64(tree, "minItems", path)?,
        max_items: opt_u64(tree, "maxItems", path)?,
        min_properties: opt_u64(tree, "minProperties", path)?,
        max_properties: opt_u64(tree, "maxProperties", path)?,
        unique_items: opt_bool(tree, "uniqueItems", path)?,
        pattern: opt_string(tree, "pattern", path)?,
        enum_values: match tree.get("enum") {
            None | Some(Tree::Null) => Vec::new(),
            Some(Tree::Seq(items)) => items.iter().map(Tree::to_json).collect(),
            Some(other) => {
                return Err(problem(
                    path,
                    format!("`enum` must be a list, found a {}", other.type_name()),
                ));
            }
        },
        format: opt_string(tree, "format", path)?,
        nullable: opt_bool(tree, "nullable", path)?,
        validations: parse_validations(tree, path)?,
        list_type: opt_string(tree, "x-kubernetes-list-type", path)?,
        list_map_keys: string_list(tree, "x-kubernetes-list-map-keys", path)?,
        map_type: opt_string(tree, "x-kubernetes-map-type", path)?,
        embedded_resource: opt_bool(tree, "x-kubernetes-embedded-resource", path)?,
        one_of: alternatives(tree, "oneOf", path)?,
        any_of: alternatives(tree, "anyOf", path)?,
        all_of: alternatives(tree, "allOf", path)?,
        required: Vec::new(),
    };
    if tree.get("properties").is_none() {
        c.required = string_list(tree, "required", path)?;
    }
    // An `allOf` of enums (controller-gen emits one per enum marker) allows only the values
    // every part allows.
    for part in &c.all_of {
        if part.constraints.enum_values.is_empty() {
            continue;
        }
        if c.enum_values.is_empty() {
            c.enum_values = part.constraints.enum_values.clone();
        } else {
            c.enum_values
                .retain(|v| part.constraints.enum_values.contains(v));
        }
    }
    Ok(c)
}

fn alternatives(tree: &Tree, key: &str, path: &str) -> Result<Vec<Schema>, SchemaProblem> {
    match tree.get(key) {
        None | Some(Tree::Null) => Ok(Vec::new()),
        Some(Tree::Seq(items)) => items
            .iter()
            .enumerate()
            .map(|(idx, item)| parse_schema(item, &format!("{path}({key}[{idx}])")))
            .collect(),
        Some(other) => Err(problem(
            path,
            format!(
                "`{key}` must be a list of schemas, found a {}",
                other.type_name()
            ),
        )),
    }
}

fn parse_validations(tree: &Tree, path: &str) -> Result<Vec<CelRule>, SchemaProblem> {
    let Some(node) = tree.get("x-kubernetes-validations") else {
        return Ok(Vec::new());
    };
    let Tree::Seq(items) = node else {
        return Err(problem(
            path,
            "`x-kubernetes-validations` must be a list of rules",
        ));
    };
    items
        .iter()
        .map(|item| {
            let rule = opt_string(item, "rule", path)?
                .ok_or_else(|| problem(path, "an `x-kubernetes-validations` entry needs `rule`"))?;
            Ok(CelRule {
                rule,
                message: opt_string(item, "message", path)?,
                message_expression: opt_string(item, "messageExpression", path)?,
                reason: opt_string(item, "reason", path)?,
                field_path: opt_string(item, "fieldPath", path)?,
                optional_old_self: match item.get("optionalOldSelf") {
                    Some(Tree::Bool(b)) => Some(*b),
                    _ => None,
                },
            })
        })
        .collect()
}

fn opt_string(tree: &Tree, key: &str, path: &str) -> Result<Option<String>, SchemaProblem> {
    match tree.get(key) {
        None | Some(Tree::Null) => Ok(None),
        Some(Tree::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(problem(
            path,
            format!("`{key}` must be a string, found a {}", other.type_name()),
        )),
    }
}

fn opt_bool(tree: &Tree, key: &str, path: &str) -> Result<bool, SchemaProblem> {
    match tree.get(key) {
        None | Some(Tree::Null) => Ok(false),
        Some(Tree::Bool(b)) => Ok(*b),
        Some(other) => Err(problem(
            path,
            format!(
                "`{key}` must be true or false, found a {}",
                other.type_name()
            ),
        )),
    }
}

fn opt_number(
    tree: &Tree,
    key: &str,
    path: &str,
) -> Result<Option<serde_json::Number>, SchemaProblem> {
    match tree.get(key) {
        None | Some(Tree::Null) => Ok(None),
        Some(Tree::Number(n)) => Ok(Some(n.clone())),
        Some(other) => Err(problem(
            path,
            format!("`{key}` must be a number, found a {}", other.type_name()),
        )),
    }
}

fn opt_u64(tree: &Tree, key: &str, path: &str) -> Result<Option<u64>, SchemaProblem> {
    match tree.get(key) {
        None | Some(Tree::Null) => Ok(None),
        Some(Tree::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
        Some(other) => Err(problem(
            path,
            format!(
                "`{key}` must be a non-negative integer, found {}",
                describe(other)
            ),
        )),
    }
}

fn describe(tree: &Tree) -> String {
    match tree {
        Tree::Number(n) => format!("`{n}`"),
        other => format!("a {}", other.type_name()),
    }
}

fn string_list(tree: &Tree, key: &str, path: &str) -> Result<Vec<String>, SchemaProblem> {
    match tree.get(key) {
        None | Some(Tree::Null) => Ok(Vec::new()),
        Some(Tree::Seq(items)) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_string).ok_or_else(|| {
                    problem(
                        path,
                        format!(
                            "`{key}` must be a list of strings, found a {}",
                            item.type_name()
                        ),
                    )
                })
            })
            .collect(),
        Some(other) => Err(problem(
            path,
            format!(
                "`{key}` must be a list of strings, found a {}",
                other.type_name()
            ),
        )),
    }
}
