//! The schema index of one release: for every kind its CRDs define, the tree of its fields
//! with the constraints validation consults (type, enum values, bounds, lengths, pattern,
//! format, default, list type `set` or `map` with its keys, CEL rules with their analysis:
//! `transition` and `terms`, see [`crate::cel_terms`]). One JSON object a line, one line per
//! kind, sorted by kind:
//! `{"kind":"IPPool","schema":{"type":"object","properties":{"spec":{...}}}}`. A node longer
//! than 256 bytes is written on a line of its own before its kind's line,
//! `{"at":"Installation spec.typhaDeployment","schema":{...}}`, and its parent holds the byte
//! offset of that line in the file instead of the node, so that reading a node costs its own
//! size, not its subtree's.
//!
//! The generated Rust types are made from the newest release only; the index is how the other
//! releases are known without a second copy of the types. A node has `type` (`object`, `map`,
//! `array`, `string`, `integer`, `number`, `boolean`, `int-or-string`, `any`), `properties`
//! (an object's fields, sorted), `items` (an array's items), `values` (a map's values), and a
//! constraint key only when the schema sets it. `holdsCel` and `holdsListType` (only when
//! true) mark the nodes that have CEL rules or a `set` or `map` list type at or below them, and
//! `celFields` and `listTypeFields` name an object's fields so marked, so that a reader can
//! find those without reading the whole tree or every field. The root's `status` is left
//! out: nothing we write or check carries a status. The same CRDs give the same bytes.
//!
//! The file starts with comment lines (`//`), the first of them [`crate::HEADER_MARKER`], so
//! that `codegen_fresh` and `write_output` recognise it as generated.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::crd::{self, Source};
use crate::error::{CodegenError, DuplicateKind};
use crate::ir::{Schema, SchemaType};
use crate::{GeneratedFile, HEADER_MARKER};

/// The command line that reproduces an index run, as recorded in its header.
pub fn command_line(release: &str, crds: &[String], out: &str) -> String {
    let types = crate::command_line(crds, out, false);
    types.replacen(
        "calico-render codegen",
        &format!("calico-render codegen --index {release}"),
        1,
    )
}

/// The index file of `release` (`<release>.jsonl`) from the CRDs in `sources`.
///
/// # Errors
/// A [`CodegenError`] when a source is not CRD YAML, a schema cannot be read, two sources
/// define the same kind, or no source holds a CRD.
pub fn generate_index(
    release: &str,
    sources: &[Source],
    command: &str,
) -> Result<GeneratedFile, CodegenError> {
    let mut kinds: BTreeMap<String, (String, Value)> = BTreeMap::new();
    for source in sources {
        for crd in crd::parse_source(source)? {
            // One schema per kind: the newest served version (the CRDs we carry serve one).
            let Some(version) = crd.versions.last() else {
                continue;
            };
            if let Some((first, _)) = kinds.get(&crd.kind) {
                return Err(CodegenError::DuplicateKind(Box::new(DuplicateKind {
                    group: crd.group.clone(),
                    version: version.name.clone(),
                    kind: crd.kind.clone(),
                    first: first.clone(),
                    second: crd.source.clone(),
                })));
            }
            let tree = node(&version.schema, true);
            kinds.insert(crd.kind.clone(), (crd.source.clone(), tree));
        }
    }
    if kinds.is_empty() {
        return Err(CodegenError::NoCrds {
            inputs: sources
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let mut text = format!("{HEADER_MARKER}; regenerate instead.\n// Command: {command}\n");
    text.push_str(&format!(
        "// Schema index of Calico {release}: one kind a line (see calico_codegen::index).\n"
    ));
    for (kind, (_, mut schema)) in kinds {
        split(&mut schema, &kind, &mut text);
        push_line(&mut text, "kind", kind, schema);
    }
    Ok(GeneratedFile {
        path: format!("{release}.jsonl"),
        contents: text,
    })
}

/// A node whose JSON is longer than this is written on a line of its own and referred to by
/// the byte offset of that line, so that a reader of its parent skips a number instead of
/// scanning the subtree (an Installation is 52 KB; a render reads a few of its branches). A
/// render of the article's cluster: 2.53 M instructions with 1 KB, 2.42 M with 256 bytes.
const OWN_LINE_ABOVE: usize = 256;

/// Write every node below `node` whose JSON is longer than [`OWN_LINE_ABOVE`] on its own line
/// of `text` (deepest first, so that a line only refers to lines before it) and put the
/// line's byte offset in its place. `at` is the node's path (`Installation spec.calicoNetwork`).
fn split(node: &mut Value, at: &str, text: &mut String) {
    let Some(object) = node.as_object_mut() else {
        return;
    };
    let mut children: Vec<(String, &mut Value)> = Vec::new();
    for (key, value) in object.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(fields)) => {
                let sep = if at.contains(' ') { "." } else { " " };
                children.extend(
                    fields
                        .iter_mut()
                        .map(|(field, child)| (format!("{at}{sep}{field}"), child)),
                );
            }
            ("items", child) => children.push((format!("{at}[*]"), child)),
            ("values", child) => children.push((format!("{at}.*"), child)),
            _ => {}
        }
    }
    for (path, child) in children {
        split(child, &path, text);
        if child.to_string().len() > OWN_LINE_ABOVE {
            let offset = text.len();
            push_line(text, "at", path, child.take());
            *child = Value::from(offset);
        }
    }
}

/// One line of the index: `{"<name>":"<value>","schema":{...}}` (keys in that order).
fn push_line(text: &mut String, name: &str, value: String, schema: Value) {
    let mut line = Map::new();
    line.insert(name.into(), Value::from(value));
    line.insert("schema".into(), schema);
    text.push_str(&Value::Object(line).to_string());
    text.push('\n');
}

/// The index node of `schema` and everything under it (`root`: leave out `status`).
fn node(schema: &Schema, root: bool) -> Value {
    let mut map = constraints(schema);
    match &schema.ty {
        SchemaType::Object {
            properties,
            additional,
        } => {
            let fields: BTreeMap<&str, Value> = properties
                .iter()
                .filter(|prop| !(root && prop.name == "status"))
                .map(|prop| (prop.name.as_str(), node(&prop.schema, false)))
                .collect();
            if !fields.is_empty() {
                let fields = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                map.insert("properties".into(), Value::Object(fields));
            }
            if let Some(additional) = additional {
                map.insert("values".into(), node(additional, false));
            }
        }
        SchemaType::Array(items) => {
            map.insert("items".into(), node(items, false));
        }
        _ => {}
    }
    // Where the CEL rules and the list types are, so that a reader walks only the branches
    // that have one instead of reading the whole tree (an Installation's is 52 KB).
    for (own, flag) in [("cel", "holdsCel"), ("listType", "holdsListType")] {
        let below = |child: &Value| child.get(flag).is_some();
        let holds = map.contains_key(own)
            || ["items", "values"]
                .iter()
                .filter_map(|key| map.get(*key))
                .any(below)
            || map
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|fields| fields.values().any(below));
        if holds {
            map.insert(flag.into(), Value::Bool(true));
        }
    }
    // And which fields lead there, so that a reader finds them without reading every field.
    for (flag, names) in [
        ("holdsCel", "celFields"),
        ("holdsListType", "listTypeFields"),
    ] {
        let leading: Vec<Value> = map
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(_, child)| child.get(flag).is_some())
            .map(|(name, _)| Value::from(name.as_str()))
            .collect();
        if !leading.is_empty() {
            map.insert(names.into(), Value::Array(leading));
        }
    }
    Value::Object(map)
}

fn constraints(schema: &Schema) -> Map<String, Value> {
    let c = &schema.constraints;
    let mut map = Map::new();
    let ty = match &schema.ty {
        SchemaType::Object { additional, .. } if additional.is_some() => "map",
        SchemaType::Object { .. } => "object",
        SchemaType::Array(_) => "array",
        SchemaType::String => "string",
        SchemaType::Integer => "integer",
        SchemaType::Number => "number",
        SchemaType::Boolean => "boolean",
        SchemaType::IntOrString => "int-or-string",
        SchemaType::Any { .. } => "any",
    };
    map.insert("type".into(), Value::from(ty));
    if !c.enum_values.is_empty() {
        map.insert("enum".into(), Value::Array(c.enum_values.clone()));
    }
    let numbers = [
        ("minimum", c.minimum.clone()),
        ("maximum", c.maximum.clone()),
    ];
    for (key, number) in numbers {
        if let Some(number) = number {
            map.insert(key.into(), Value::Number(number));
        }
    }
    if c.exclusive_minimum {
        map.insert("exclusiveMinimum".into(), Value::Bool(true));
    }
    if c.exclusive_maximum {
        map.insert("exclusiveMaximum".into(), Value::Bool(true));
    }
    let counts = [
        ("minLength", c.min_length),
        ("maxLength", c.max_length),
        ("minItems", c.min_items),
        ("maxItems", c.max_items),
    ];
    for (key, count) in counts {
        if let Some(count) = count {
            map.insert(key.into(), Value::from(count));
        }
    }
    if let Some(pattern) = &c.pattern {
        map.insert("pattern".into(), Value::from(pattern.clone()));
    }
    if let Some(format) = &c.format {
        map.insert("format".into(), Value::from(format.clone()));
    }
    if let Some(default) = &c.default {
        map.insert("default".into(), default.clone());
    }
    // Only the list types that refuse something (duplicates): `set` and `map` with its keys.
    if let Some(list_type) = c.list_type.as_deref().filter(|t| *t != "atomic") {
        map.insert("listType".into(), Value::from(list_type));
        if !c.list_map_keys.is_empty() {
            map.insert("listMapKeys".into(), Value::from(c.list_map_keys.clone()));
        }
    }
    if !c.validations.is_empty() {
        let rules = c
            .validations
            .iter()
            .map(|rule| {
                let mut r = Map::new();
                r.insert("rule".into(), Value::from(rule.rule.clone()));
                let optional = [
                    ("message", &rule.message),
                    ("messageExpression", &rule.message_expression),
                    ("reason", &rule.reason),
                    ("fieldPath", &rule.field_path),
                ];
                for (key, value) in optional {
                    if let Some(value) = value {
                        r.insert(key.into(), Value::from(value.clone()));
                    }
                }
                if let Some(optional_old_self) = rule.optional_old_self {
                    r.insert("optionalOldSelf".into(), Value::Bool(optional_old_self));
                }
                // The rule's analysis (crate::cel_terms), so that a validator parses it only
                // when none of its terms settles it.
                if let Some((transition, terms)) = crate::cel_terms::analyse(&rule.rule) {
                    if transition {
                        r.insert("transition".into(), Value::Bool(true));
                    }
                    if !terms.is_empty() {
                        r.insert("terms".into(), Value::Array(terms));
                    }
                }
                Value::Object(r)
            })
            .collect();
        map.insert("cel".into(), Value::Array(rules));
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pools.example.org}
spec:
  group: example.org
  scope: Cluster
  names: {kind: Pool, plural: pools}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "has(self.cidr)"
              message: needs a cidr
            properties:
              cidr: {type: string, maxLength: 48}
              mode: {type: string, enum: [A, B]}
              size: {type: integer, minimum: 0, maximum: 128}
              uses: {type: array, items: {type: string}, x-kubernetes-list-type: set}
              labels: {type: object, additionalProperties: {type: string}}
          status:
            type: object
            properties:
              ready: {type: boolean}
"#;

    #[test]
    fn one_line_per_kind_with_its_field_tree() {
        let sources = [Source {
            name: "pool.yaml".into(),
            text: CRD.into(),
        }];
        let file = generate_index("v9.9.9", &sources, "cmd").expect("indexes");
        assert_eq!(file.path, "v9.9.9.jsonl");
        let lines: Vec<&str> = file.contents.lines().collect();
        assert!(lines[0].starts_with(HEADER_MARKER));
        // The kinds' lines, with the nodes that moved to lines of their own put back.
        fn put_back(node: &mut Value, text: &str) {
            if let Some(offset) = node.as_u64() {
                let line = text[offset as usize..].lines().next().expect("a line");
                let moved: Value = serde_json::from_str(line).expect("JSON line");
                *node = moved["schema"].clone();
            }
            if let Some(fields) = node.get_mut("properties").and_then(Value::as_object_mut) {
                fields.values_mut().for_each(|child| put_back(child, text));
            }
            for key in ["items", "values"] {
                if let Some(child) = node.get_mut(key) {
                    put_back(child, text);
                }
            }
        }
        let body: Vec<Value> = lines
            .iter()
            .filter(|l| !l.starts_with("//") && !l.starts_with(r#"{"at":"#))
            .map(|l| {
                let mut line: Value = serde_json::from_str(l).expect("JSON line");
                put_back(&mut line["schema"], &file.contents);
                line
            })
            .collect();
        assert_eq!(body.len(), 1);
        assert_eq!(body[0]["kind"], "Pool");
        let root = &body[0]["schema"];
        assert!(root["properties"].get("status").is_none());
        let spec = &root["properties"]["spec"];
        let fields: Vec<&String> = spec["properties"].as_object().unwrap().keys().collect();
        assert_eq!(fields, ["cidr", "labels", "mode", "size", "uses"]);
        let field = |name: &str| &spec["properties"][name];
        assert_eq!(field("cidr")["maxLength"], 48);
        assert_eq!(field("mode")["enum"], serde_json::json!(["A", "B"]));
        assert_eq!(field("size")["maximum"], 128);
        assert_eq!(field("labels")["type"], "map");
        assert_eq!(field("labels")["values"]["type"], "string");
        assert_eq!(field("uses")["items"]["type"], "string");
        assert_eq!(spec["cel"][0]["message"], "needs a cidr");
        // The marks lead from the root to the rules and the set, and nowhere else.
        assert_eq!(root["holdsCel"], true);
        assert_eq!(spec["holdsCel"], true);
        assert!(field("cidr").get("holdsCel").is_none());
        assert_eq!(field("uses")["holdsListType"], true);
        assert_eq!(spec["holdsListType"], true);
        assert!(field("labels").get("holdsListType").is_none());
        assert!(field("uses")["items"].get("holdsListType").is_none());
        assert_eq!(root["celFields"], serde_json::json!(["spec"]));
        assert!(spec.get("celFields").is_none());
        assert_eq!(spec["listTypeFields"], serde_json::json!(["uses"]));
    }

    /// A node longer than the limit moves to its own line, deepest first, and its parent holds
    /// the byte offset of that line; small nodes stay where they are.
    #[test]
    fn large_nodes_get_a_line_of_their_own() {
        let big = |n: usize| {
            let fields: Map<String, Value> = (0..n)
                .map(|i| {
                    (
                        format!("field{i:03}"),
                        serde_json::json!({"type": "string"}),
                    )
                })
                .collect();
            serde_json::json!({"type": "object", "properties": fields})
        };
        let mut inner = big(60);
        inner["properties"]["field000"] = serde_json::json!({"type": "array", "items": big(60)});
        let mut root = serde_json::json!({"type": "object", "properties": {
            "spec": inner, "small": {"type": "integer"}}});
        let mut text = String::from("// header\n");
        split(&mut root, "Kind", &mut text);

        let line_at = |offset: &Value| -> Value {
            let at = usize::try_from(offset.as_u64().expect("an offset")).unwrap();
            let line = text[at..].lines().next().unwrap();
            serde_json::from_str(line).unwrap()
        };
        assert_eq!(root["properties"]["small"]["type"], "integer");
        let spec = line_at(&root["properties"]["spec"]);
        assert_eq!(spec["at"], "Kind spec");
        let items = line_at(&spec["schema"]["properties"]["field000"]["items"]);
        assert_eq!(items["at"], "Kind spec.field000[*]");
        assert_eq!(items["schema"]["properties"]["field059"]["type"], "string");
        // The items' line comes first, so a line refers only to lines before it.
        assert!(text.find("[*]").unwrap() < text.find(r#""at":"Kind spec""#).unwrap());
        assert!(root.to_string().len() <= OWN_LINE_ABOVE);
    }
}
