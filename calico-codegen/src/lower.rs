//! Lowering: from the schema IR to a Rust model (named structs and enums with typed fields).
//!
//! This is where every mapping rule lives:
//!
//! - objects with properties become structs named `Kind` + the PascalCase property path
//!   (`spec.calicoNetwork.ipPools[*]` of `Installation` -> `InstallationSpecCalicoNetworkIpPools`;
//!   array items and map values add nothing to the name);
//! - a name already taken in the same group/version gets the smallest free numeric suffix
//!   (`...2`), in the order the schema is walked, so names are deterministic;
//! - a struct or enum identical to one already generated for the same kind under a property
//!   of the same name (same fields, types and docs; same variants) is reused instead of
//!   duplicated, and its doc lists every path it stands for;
//! - a struct identical to one already generated for the same kind under a property of
//!   another name keeps its own name, as a `pub type` alias of the first (the
//!   Installation's `status.computed` is `InstallationSpec`); enums are never aliased (see
//!   `Lowerer::struct_item` for why);
//! - string enums become enums with an `Unknown(String)` catch-all;
//! - `x-kubernetes-int-or-string` -> `IntOrString`, preserve-unknown/untyped/mixed
//!   alternatives -> `serde_json::Value`, `additionalProperties` -> `BTreeMap<String, T>`,
//!   integers by format (`int32` -> i32, otherwise i64) except the [`U32_FIELDS`] overrides,
//!   number -> f64;
//! - core Kubernetes shapes -> k8s-openapi types (see `k8s`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::crd::{Crd, CrdVersion};
use crate::ir::{AnyReason, Property, Schema, SchemaType};
use crate::naming;

/// Integer properties whose real values exceed their declared format, read as `u32`.
///
/// Calico declares AS numbers `format: int32`, but they are unsigned 32-bit values, and
/// 4-byte private AS numbers (4200000000 to 4294967294) do not fit an i32.
/// These are all such fields in the v3.32.1 and release-v3.33 CRDs (BGPConfiguration and
/// BGPPeer, in both API groups); a test scans the pinned CRDs for new ones.
pub const U32_FIELDS: &[&str] = &["asNumber", "localASNumber"];

/// Short names that generated code imports; generated type names never take them.
const IMPORTED: &[&str] = &[
    "BTreeMap",
    "Deserialize",
    "Deserializer",
    "IntOrString",
    "ObjectMeta",
    "Serialize",
    "Serializer",
    "Value",
];

/// Options that change the generated code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LowerOptions {
    /// Add the CRD's own descriptions to doc comments.
    pub docs: bool,
}

/// The Rust model of one kind in one version.
#[derive(Debug, Clone, PartialEq)]
pub struct KindModel {
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Kind, also the root type's name.
    pub kind: String,
    /// Plural resource name (URL path segment).
    pub plural: String,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// The input the CRD came from.
    pub source: String,
    /// The CRD's name.
    pub crd_name: String,
    /// Module (file) name.
    pub module: String,
    /// Doc lines of the root type.
    pub root_doc: Vec<String>,
    /// Root fields after `metadata`, in schema order.
    pub root_fields: Vec<Field>,
    /// Whether the root type can derive `Default`.
    pub root_default: bool,
    /// Nested structs and enums, in schema pre-order.
    pub items: Vec<Item>,
    /// Short names to import: `(short name, full path)`, sorted.
    pub imports: BTreeMap<String, String>,
}

/// A nested type.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A struct.
    Struct(StructItem),
    /// A string enum.
    Enum(EnumItem),
    /// Another name for a struct of the same shape.
    Alias(AliasItem),
}

/// A generated struct.
#[derive(Debug, Clone, PartialEq)]
pub struct StructItem {
    /// Type name.
    pub name: String,
    /// Schema paths the struct stands for (the first one named it).
    pub paths: Vec<String>,
    /// Fields in schema order.
    pub fields: Vec<Field>,
    /// Whether the struct can derive `Default`.
    pub default: bool,
}

/// A generated string enum.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumItem {
    /// Type name.
    pub name: String,
    /// Schema paths the enum stands for.
    pub paths: Vec<String>,
    /// `(variant ident, wire spelling)` in schema order.
    pub variants: Vec<(String, String)>,
}

/// A `pub type` alias: a node whose struct would be identical to one already generated.
#[derive(Debug, Clone, PartialEq)]
pub struct AliasItem {
    /// Type name, named from the node's own path.
    pub name: String,
    /// Schema paths the alias stands for.
    pub paths: Vec<String>,
    /// The struct it stands for.
    pub target: String,
}

/// A struct field.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Field {
    /// Rust identifier (possibly `r#type`).
    pub ident: String,
    /// Wire name.
    pub wire: String,
    /// Rust type, without the `Option` wrapper.
    pub ty: String,
    /// Wrapped in `Option` and skipped when `None`.
    pub optional: bool,
    /// Doc comment lines (without `///`).
    pub doc: Vec<String>,
}

/// Name registry shared by all kinds of one group/version (they share one Rust module).
#[derive(Debug, Default)]
pub struct Names {
    used: BTreeSet<String>,
}

impl Names {
    /// A registry that already holds the imported names and the given kinds.
    pub fn new<'a>(kinds: impl IntoIterator<Item = &'a str>) -> Self {
        let mut used: BTreeSet<String> = IMPORTED.iter().map(|s| s.to_string()).collect();
        used.extend(crate::k8s::CANDIDATES.iter().flat_map(|(_, types)| {
            types
                .iter()
                .map(|t| t.path.rsplit("::").next().unwrap_or(t.path).to_string())
        }));
        used.extend(kinds.into_iter().map(str::to_string));
        Names { used }
    }

    fn claim(&mut self, hint: &str) -> String {
        if self.used.insert(hint.to_string()) {
            return hint.to_string();
        }
        let mut n = 2usize;
        loop {
            let candidate = format!("{hint}{n}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// Lowers one served version of a CRD.
pub fn lower_kind(
    crd: &Crd,
    version: &CrdVersion,
    names: &mut Names,
    options: LowerOptions,
) -> KindModel {
    let mut lowerer = Lowerer {
        names,
        options,
        items: Vec::new(),
        struct_index: BTreeMap::new(),
        shape_index: BTreeMap::new(),
        enum_index: BTreeMap::new(),
        imports: BTreeMap::new(),
        k8s_schemas: BTreeMap::new(),
        defaults: BTreeMap::new(),
        counter: 0,
    };
    let mut root_fields = Vec::new();
    if let SchemaType::Object { properties, .. } = &version.schema.ty {
        for prop in properties {
            if matches!(prop.name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            root_fields.push(lowerer.field(prop, &crd.kind));
        }
    }
    let root_default = root_fields
        .iter()
        .all(|f| f.optional || lowerer.defaultable(&f.ty));
    let mut root_doc = Vec::new();
    if options.docs {
        push_description(&mut root_doc, version.schema.description.as_deref());
    }
    root_doc.push(format!(
        "`{}/{}` `{}`, the root of the CRD `{}`.",
        crd.group, version.name, crd.kind, crd.name
    ));
    let mut items: Vec<(usize, Item)> = lowerer.items;
    items.sort_by_key(|(seq, _)| *seq);
    KindModel {
        group: crd.group.clone(),
        version: version.name.clone(),
        kind: crd.kind.clone(),
        plural: crd.plural.clone(),
        namespaced: crd.scope == crate::crd::Scope::Namespaced,
        source: crd.source.clone(),
        crd_name: crd.name.clone(),
        module: naming::kind_module(&crd.kind),
        root_doc,
        root_fields,
        root_default,
        items: items.into_iter().map(|(_, item)| item).collect(),
        imports: lowerer.imports,
    }
}

struct Lowerer<'n> {
    names: &'n mut Names,
    options: LowerOptions,
    /// Items with the pre-order sequence number of the node that created them.
    items: Vec<(usize, Item)>,
    /// (property name, fields) -> index in `items` (a struct or an alias).
    struct_index: BTreeMap<(String, Vec<Field>), usize>,
    /// Fields -> name of the first struct generated with them.
    shape_index: BTreeMap<Vec<Field>, String>,
    /// (property name, wire values) -> index in `items`.
    enum_index: BTreeMap<(String, Vec<String>), usize>,
    imports: BTreeMap<String, String>,
    /// Cache of the k8s-openapi JSON schemas checked so far.
    k8s_schemas: BTreeMap<&'static str, Value>,
    /// Whether each generated type implements `Default` (enums never do).
    defaults: BTreeMap<String, bool>,
    /// Pre-order counter giving each item its position in the file.
    counter: usize,
}

impl Lowerer<'_> {
    fn import(&mut self, path: &str) -> String {
        let short = path.rsplit("::").next().unwrap_or(path).to_string();
        self.imports.insert(short.clone(), path.to_string());
        short
    }

    fn defaultable(&self, ty: &str) -> bool {
        // Enums are the only generated types without `Default`; structs that cannot derive it
        // are tracked too. Container types (`Vec`, `BTreeMap`) are always defaultable.
        if ty.starts_with("Vec<") || ty.starts_with("BTreeMap<") {
            return true;
        }
        self.defaults.get(ty).copied().unwrap_or(true)
    }

    fn field(&mut self, prop: &Property, parent: &str) -> Field {
        let hint = format!("{parent}{}", naming::pascal(&prop.name));
        let (ty, summary) = self.type_of(&prop.schema, &hint, &prop.name);
        let mut doc = Vec::new();
        if self.options.docs {
            push_description(&mut doc, prop.schema.description.as_deref());
        }
        doc.push(facts(&prop.name, &prop.schema, &summary, prop.required));
        Field {
            ident: naming::field_ident(&prop.name),
            wire: prop.name.clone(),
            ty,
            optional: !prop.required || prop.schema.constraints.nullable,
            doc,
        }
    }

    /// The Rust type for a schema node and a short description of it for doc comments.
    fn type_of(&mut self, schema: &Schema, hint: &str, property: &str) -> (String, String) {
        match &schema.ty {
            SchemaType::IntOrString => (
                self.import("k8s_openapi::apimachinery::pkg::util::intstr::IntOrString"),
                "integer or string".to_string(),
            ),
            SchemaType::Any { reason } => {
                let why = match reason {
                    AnyReason::PreserveUnknown => {
                        "any JSON value (x-kubernetes-preserve-unknown-fields)"
                    }
                    AnyReason::Untyped => "any JSON value (untyped schema)",
                    AnyReason::Alternatives => {
                        "any JSON value (oneOf/anyOf alternatives of different types)"
                    }
                };
                (self.import("serde_json::Value"), why.to_string())
            }
            SchemaType::String => {
                let values: Option<Vec<String>> = schema
                    .constraints
                    .enum_values
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect();
                match values {
                    Some(values) if !values.is_empty() => {
                        let name = self.enum_item(schema, hint, property, values);
                        (name, "string enum".to_string())
                    }
                    _ => ("String".to_string(), "string".to_string()),
                }
            }
            SchemaType::Integer => {
                let format = schema.constraints.format.as_deref();
                if U32_FIELDS.contains(&property) {
                    return (
                        "u32".to_string(),
                        format!(
                            "integer ({} in the CRD, read as u32 because AS numbers are unsigned 32-bit)",
                            format.unwrap_or("no format")
                        ),
                    );
                }
                match format {
                    Some("int32") => ("i32".to_string(), "integer (int32)".to_string()),
                    Some("int64") => ("i64".to_string(), "integer (int64)".to_string()),
                    _ => ("i64".to_string(), "integer".to_string()),
                }
            }
            SchemaType::Number => ("f64".to_string(), "number".to_string()),
            SchemaType::Boolean => ("bool".to_string(), "boolean".to_string()),
            SchemaType::Array(items) => {
                let (item_ty, item_summary) = self.type_of(items, hint, property);
                (format!("Vec<{item_ty}>"), format!("list of {item_summary}"))
            }
            SchemaType::Object {
                properties,
                additional,
            } => {
                if let Some(additional) = additional {
                    let (value_ty, value_summary) = self.type_of(additional, hint, property);
                    self.import("std::collections::BTreeMap");
                    return (
                        format!("BTreeMap<String, {value_ty}>"),
                        format!("map of {value_summary}"),
                    );
                }
                if properties.is_empty() {
                    let value = self.import("serde_json::Value");
                    self.import("std::collections::BTreeMap");
                    return (
                        format!("BTreeMap<String, {value}>"),
                        "object without declared properties".to_string(),
                    );
                }
                if let Some(path) = self.k8s_match(property, schema) {
                    let short = self.import(path);
                    return (
                        short.clone(),
                        format!("object, the Kubernetes `{short}` shape"),
                    );
                }
                let name = self.struct_item(schema, properties, hint, property);
                (name, "object".to_string())
            }
        }
    }

    fn k8s_match(&mut self, property: &str, schema: &Schema) -> Option<&'static str> {
        for candidate in crate::k8s::candidates(property) {
            let k8s_schema = self
                .k8s_schemas
                .entry(candidate.path)
                .or_insert_with(|| (candidate.schema)());
            if crate::k8s::verifies(schema, k8s_schema) {
                return Some(candidate.path);
            }
        }
        None
    }

    fn struct_item(
        &mut self,
        schema: &Schema,
        properties: &[Property],
        hint: &str,
        property: &str,
    ) -> String {
        // Take the position before the children so that the file reads top-down.
        let seq = self.counter;
        self.counter += 1;
        let mut fields: Vec<Field> = properties.iter().map(|p| self.field(p, hint)).collect();
        dedupe_idents(&mut fields, &[]);
        // Only a node held by a property of the same name reuses a type's name, so that a
        // name always says what it is (`fipsMode` does not become `...CalicoNetworkBgp`).
        let key = (property.to_string(), fields);
        if let Some(&idx) = self.struct_index.get(&key)
            && let Some((_, item)) = self.items.get_mut(idx)
        {
            match item {
                Item::Struct(StructItem { name, paths, .. })
                | Item::Alias(AliasItem { name, paths, .. }) => {
                    paths.push(schema.path.clone());
                    return name.clone();
                }
                Item::Enum(_) => {}
            }
        }
        // A node under another property name with the very same fields (types, wire names
        // and doc lines, so bounds and, with `--docs`, descriptions too) is one shape with two
        // names: it gets its own name as an alias of the first struct, so that the code is
        // written once and both names keep working. Enums are never aliased: an enum is only
        // its list of values, and short lists (`Enabled`, `Disabled`) recur across unrelated
        // settings, where one shared type would let a value of one setting stand for another.
        if let Some(target) = self.shape_index.get(&key.1).cloned() {
            let name = self.names.claim(hint);
            let default = self.defaultable(&target);
            self.defaults.insert(name.clone(), default);
            self.struct_index.insert(key, self.items.len());
            self.items.push((
                seq,
                Item::Alias(AliasItem {
                    name: name.clone(),
                    paths: vec![schema.path.clone()],
                    target,
                }),
            ));
            return name;
        }
        let fields = key.1.clone();
        let default = fields.iter().all(|f| f.optional || self.defaultable(&f.ty));
        let name = self.names.claim(hint);
        self.defaults.insert(name.clone(), default);
        self.shape_index.insert(fields.clone(), name.clone());
        self.struct_index.insert(key, self.items.len());
        self.items.push((
            seq,
            Item::Struct(StructItem {
                name: name.clone(),
                paths: vec![schema.path.clone()],
                fields,
                default,
            }),
        ));
        name
    }

    fn enum_item(
        &mut self,
        schema: &Schema,
        hint: &str,
        property: &str,
        values: Vec<String>,
    ) -> String {
        let key = (property.to_string(), values);
        if let Some(&idx) = self.enum_index.get(&key)
            && let Some((_, Item::Enum(existing))) = self.items.get_mut(idx)
        {
            existing.paths.push(schema.path.clone());
            return existing.name.clone();
        }
        let mut taken: BTreeSet<String> = BTreeSet::from(["Unknown".to_string()]);
        let mut variants = Vec::new();
        for value in &key.1 {
            let base = naming::variant_ident(value);
            let mut ident = if base == "Unknown" {
                "UnknownValue".to_string()
            } else {
                base
            };
            let mut n = 2usize;
            let stem = ident.clone();
            while !taken.insert(ident.clone()) {
                ident = format!("{stem}{n}");
                n += 1;
            }
            variants.push((ident, value.clone()));
        }
        let name = self.names.claim(hint);
        let seq = self.counter;
        self.counter += 1;
        self.defaults.insert(name.clone(), false);
        self.enum_index.insert(key, self.items.len());
        self.items.push((
            seq,
            Item::Enum(EnumItem {
                name: name.clone(),
                paths: vec![schema.path.clone()],
                variants,
            }),
        ));
        name
    }
}

/// Gives fields whose wire names map to the same identifier (`fooBar`, `foo_bar`) distinct
/// ones: the first keeps it, later ones get `_2`, `_3`, ... in schema order.
fn dedupe_idents(fields: &mut [Field], reserved: &[&str]) {
    let mut taken: BTreeSet<String> = reserved.iter().map(|s| s.to_string()).collect();
    for field in fields.iter_mut() {
        if taken.insert(field.ident.clone()) {
            continue;
        }
        let base = field.ident.trim_start_matches("r#").to_string();
        let mut n = 2usize;
        while !taken.insert(format!("{base}_{n}")) {
            n += 1;
        }
        field.ident = format!("{base}_{n}");
    }
}

/// Adds a CRD description as doc lines, followed by an empty line.
///
/// Leading indentation is removed and code fences are marked `text`, because rustdoc would
/// otherwise compile indented or fenced upstream snippets as doctests.
fn push_description(doc: &mut Vec<String>, description: Option<&str>) {
    let Some(description) = description.map(str::trim).filter(|d| !d.is_empty()) else {
        return;
    };
    let mut in_fence = false;
    let mut in_list = false;
    for line in description.lines() {
        let line = line.trim();
        if !in_fence {
            // Upstream ends a list by writing the next sentence on the following line; Markdown
            // would fold that sentence into the last item, so a blank line ends the list here.
            let item = is_list_item(line);
            if in_list && !item && !line.is_empty() {
                doc.push(String::new());
            }
            in_list = item;
        }
        if line.starts_with("```") {
            // Only an opening fence gets a language; the closing one stays bare.
            doc.push(if in_fence { "```" } else { "```text" }.to_string());
            in_fence = !in_fence;
        } else if in_fence {
            doc.push(line.to_string());
        } else {
            doc.push(escape_markdown(line));
        }
    }
    if in_fence {
        doc.push("```".to_string());
    }
    doc.push(String::new());
}

/// Whether a description line starts a Markdown list item (`* `, `- `, `+ ` or `1. `).
fn is_list_item(line: &str) -> bool {
    let numbered = line
        .split_once(". ")
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    numbered || ["* ", "- ", "+ "].iter().any(|m| line.starts_with(m))
}

/// Escapes `<`, `>`, `[` and `]` outside inline code, so that rustdoc reads upstream prose
/// as text rather than HTML tags or intra-doc links, and turns bare URLs into autolinks.
fn escape_markdown(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    let mut rest = line;
    loop {
        let mut chars = rest.chars();
        let Some(ch) = chars.next() else { break };
        // A URL starts a word, or sits in parentheses (the target of a Markdown link, whose
        // brackets are escaped below, so rustdoc would see it bare).
        let at_word_start =
            out.is_empty() || out.ends_with(char::is_whitespace) || out.ends_with('(');
        if !in_code
            && at_word_start
            && (rest.starts_with("https://") || rest.starts_with("http://"))
        {
            let word = rest.split(char::is_whitespace).next().unwrap_or(rest);
            let url = word.trim_end_matches(['.', ',', ';', ':', ')']);
            out.push('<');
            out.push_str(url);
            out.push('>');
            rest = rest.strip_prefix(url).unwrap_or_default();
            continue;
        }
        if ch == '`' {
            in_code = !in_code;
        } else if !in_code && matches!(ch, '<' | '>' | '[' | ']') {
            out.push('\\');
        }
        out.push(ch);
        rest = chars.as_str();
    }
    out
}

/// Inline code for doc comments, safe for values that contain backticks themselves; the
/// empty string shows as `""`.
pub fn code(text: &str) -> String {
    if text.is_empty() {
        return "`\"\"`".to_string();
    }
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

fn number(n: &serde_json::Number) -> String {
    n.to_string()
}

/// The facts line of a field's doc comment: wire name, type, requiredness and every bound
/// the schema states.
fn facts(wire: &str, schema: &Schema, summary: &str, required: bool) -> String {
    let mut parts = vec![format!("{}: {summary}", code(wire))];
    if required {
        parts.push("required".to_string());
    }
    describe_constraints(schema, &mut parts);
    // Bounds of scalar list items and map values matter as much as the container's own.
    let mut inner = schema;
    let mut prefix;
    loop {
        match &inner.ty {
            SchemaType::Array(items) => {
                inner = items;
                prefix = "each item".to_string();
            }
            SchemaType::Object {
                properties,
                additional: Some(additional),
            } if properties.is_empty() => {
                inner = additional;
                prefix = "each value".to_string();
            }
            _ => break,
        }
        let mut item_parts = Vec::new();
        describe_constraints(inner, &mut item_parts);
        if !item_parts.is_empty() {
            parts.push(format!("{prefix}: {}", item_parts.join(", ")));
        }
    }
    let mut line = parts.join("; ");
    line.push('.');
    line
}

fn describe_constraints(schema: &Schema, parts: &mut Vec<String>) {
    let c = &schema.constraints;
    if let Some(default) = &c.default {
        parts.push(format!("default {}", code(&default.to_string())));
    }
    if let Some(min) = &c.minimum {
        let op = if c.exclusive_minimum {
            "greater than"
        } else {
            "minimum"
        };
        parts.push(format!("{op} {}", number(min)));
    }
    if let Some(max) = &c.maximum {
        let op = if c.exclusive_maximum {
            "less than"
        } else {
            "maximum"
        };
        parts.push(format!("{op} {}", number(max)));
    }
    if let Some(n) = c.min_length {
        parts.push(format!("at least {n} characters"));
    }
    if let Some(n) = c.max_length {
        parts.push(format!("at most {n} characters"));
    }
    if let Some(n) = c.min_items {
        parts.push(format!("at least {n} items"));
    }
    if let Some(n) = c.max_items {
        parts.push(format!("at most {n} items"));
    }
    if let Some(n) = c.min_properties {
        parts.push(format!("at least {n} entries"));
    }
    if let Some(n) = c.max_properties {
        parts.push(format!("at most {n} entries"));
    }
    if c.unique_items {
        parts.push("unique items".to_string());
    }
    if let Some(pattern) = &c.pattern {
        parts.push(format!("pattern {}", code(pattern)));
    }
    if let Some(format) = &c.format
        && !matches!(schema.ty, SchemaType::Integer)
    {
        parts.push(format!("format {}", code(format)));
    }
    let is_string_enum = matches!(schema.ty, SchemaType::String)
        && !c.enum_values.is_empty()
        && c.enum_values.iter().all(Value::is_string);
    if !c.enum_values.is_empty() {
        let values: Vec<String> = c
            .enum_values
            .iter()
            .map(|v| match v {
                Value::String(s) => code(s),
                other => code(&other.to_string()),
            })
            .collect();
        let label = if is_string_enum { "values" } else { "one of" };
        parts.push(format!("{label} {}", values.join(", ")));
    }
    if c.nullable {
        parts.push("nullable".to_string());
    }
    if let Some(list_type) = &c.list_type {
        if c.list_map_keys.is_empty() {
            parts.push(format!("list type {}", code(list_type)));
        } else {
            let keys: Vec<String> = c.list_map_keys.iter().map(|k| code(k)).collect();
            parts.push(format!(
                "list type {} keyed by {}",
                code(list_type),
                keys.join(", ")
            ));
        }
    }
    if let Some(map_type) = &c.map_type {
        parts.push(format!("map type {}", code(map_type)));
    }
    if c.embedded_resource {
        parts.push("embedded resource".to_string());
    }
    for (label, alternatives) in [("one of", &c.one_of), ("any of", &c.any_of)] {
        if alternatives.is_empty() || matches!(schema.ty, SchemaType::IntOrString) {
            continue;
        }
        let shapes: Vec<String> = alternatives
            .iter()
            .map(|alt| {
                if alt.constraints.required.is_empty() {
                    alt_summary(alt)
                } else {
                    let keys: Vec<String> =
                        alt.constraints.required.iter().map(|k| code(k)).collect();
                    format!("requires {}", keys.join(" and "))
                }
            })
            .collect();
        parts.push(format!("{label}: {}", shapes.join(" | ")));
    }
    if !c.validations.is_empty() {
        let n_rules = c.validations.len();
        let noun = if n_rules == 1 { "rule" } else { "rules" };
        parts.push(format!("{n_rules} CEL validation {noun}"));
    }
}

fn alt_summary(alt: &Schema) -> String {
    match &alt.ty {
        SchemaType::String => "string".to_string(),
        SchemaType::Integer => "integer".to_string(),
        SchemaType::Number => "number".to_string(),
        SchemaType::Boolean => "boolean".to_string(),
        SchemaType::Array(_) => "list".to_string(),
        SchemaType::Object { .. } => "object".to_string(),
        SchemaType::IntOrString => "integer or string".to_string(),
        SchemaType::Any { .. } => "any value".to_string(),
    }
}
