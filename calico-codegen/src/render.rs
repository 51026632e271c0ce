//! Rendering: from the Rust model to source text, through the minijinja templates in
//! `templates/`.
//!
//! Decisions about text that a template cannot make well are taken here: serde attribute
//! layout (one line, or one argument per line when rustfmt would break it), string
//! literals, derive lists and the file headers. The output is meant to be rustfmt-clean as
//! emitted, so that regeneration never depends on whether rustfmt is installed.

use std::collections::BTreeMap;

use minijinja::{AutoEscape, Environment, UndefinedBehavior, syntax::SyntaxConfig};
use serde::Serialize;

use crate::error::CodegenError;
use crate::lower::{Field, Item, KindModel};

/// rustfmt's default `max_width`.
const MAX_WIDTH: usize = 100;

/// rustfmt's default `attr_fn_like_width` (70% of `max_width`).
const ATTR_FN_LIKE_WIDTH: usize = 70;

const KIND_TEMPLATE: &str = include_str!("../templates/kind.rs.jinja");
const MOD_TEMPLATE: &str = include_str!("../templates/mod.rs.jinja");

/// The template environment: strict undefined values, no escaping, block tags that leave no
/// blank lines behind.
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .expect("invariant: the default delimiters form a valid syntax");
    env.set_syntax(syntax);
    env.add_template("kind.rs", KIND_TEMPLATE)
        .expect("invariant: the bundled kind template parses");
    env.add_template("mod.rs", MOD_TEMPLATE)
        .expect("invariant: the bundled mod template parses");
    env
}

fn render<S: Serialize>(
    env: &Environment<'_>,
    template: &str,
    view: &S,
) -> Result<String, CodegenError> {
    let to_err = |err: minijinja::Error| CodegenError::Template {
        template: template.to_string(),
        message: format!("{err:#}"),
    };
    env.get_template(template)
        .map_err(to_err)?
        .render(minijinja::value::Serde(view))
        .map_err(to_err)
}

/// rustfmt's default `array_width` (60% of `max_width`).
const ARRAY_WIDTH: usize = 60;

/// rustfmt's default `short_array_element_width_threshold`.
const SHORT_ARRAY_ELEMENT: usize = 10;

/// `impl {head} for {ty} {`, broken before `for` as rustfmt does when the line is too long.
fn impl_header(head: &str, ty: &str) -> String {
    let one_line = format!("impl{head} for {ty} {{");
    if one_line.len() <= MAX_WIDTH {
        one_line
    } else {
        format!("impl{head}\n    for {ty}\n{{")
    }
}

/// A match arm at `indent`, with the body in a block when the arm does not fit the line.
fn match_arm(indent: usize, pattern: &str, body: &str) -> String {
    let pad = " ".repeat(indent);
    let one_line = format!("{pad}{pattern} => {body},");
    if one_line.len() <= MAX_WIDTH {
        one_line
    } else {
        format!("{pad}{pattern} => {{\n{pad}    {body}\n{pad}}}")
    }
}

/// A `const` holding a slice of string literals at `indent`, laid out as rustfmt lays out
/// array literals: on the line when short, moved after `=` when only the line is too long,
/// otherwise one element per line, or several per line when every element is short.
fn const_str_slice(indent: usize, decl: &str, items: &[String]) -> String {
    let pad = " ".repeat(indent);
    let content = items.join(", ");
    if content.len() <= ARRAY_WIDTH {
        let one_line = format!("{pad}{decl} = &[{content}];");
        if one_line.len() <= MAX_WIDTH {
            return one_line;
        }
        let next_line = format!("{pad}    &[{content}];");
        if next_line.len() <= MAX_WIDTH {
            return format!("{pad}{decl} =\n{next_line}");
        }
    }
    let inner = format!("{pad}    ");
    let mut out = format!("{pad}{decl} = &[\n");
    if items.iter().all(|item| item.len() <= SHORT_ARRAY_ELEMENT) {
        let mut line = String::new();
        for item in items {
            let candidate = if line.is_empty() {
                item.clone()
            } else {
                format!("{line}, {item}")
            };
            if !line.is_empty() && inner.len() + candidate.len() + 1 > MAX_WIDTH {
                out.push_str(&format!("{inner}{line},\n"));
                line = item.clone();
            } else {
                line = candidate;
            }
        }
        out.push_str(&format!("{inner}{line},\n"));
    } else {
        for item in items {
            out.push_str(&format!("{inner}{item},\n"));
        }
    }
    out.push_str(&format!("{pad}];"));
    out
}

/// A Rust string literal for `text`.
fn lit(text: &str) -> String {
    format!("{text:?}")
}

/// A serde attribute with the given arguments, laid out as rustfmt lays it out at `indent`.
fn serde_attr(args: &[String], indent: usize) -> Option<String> {
    if args.is_empty() {
        return None;
    }
    let one_line = format!("#[serde({})]", args.join(", "));
    // rustfmt keeps a function-like attribute on one line while its arguments fit
    // `attr_fn_like_width` (70 with the default `max_width` of 100) and the line fits too;
    // a single argument stays on the line in any case.
    let args_width = args.iter().map(String::len).sum::<usize>() + 2 * (args.len() - 1);
    let fits_line = indent + one_line.len() <= MAX_WIDTH;
    if fits_line && (args.len() == 1 || args_width <= ATTR_FN_LIKE_WIDTH) {
        return Some(one_line);
    }
    let pad = " ".repeat(indent);
    let mut out = String::from("#[serde(\n");
    for (idx, arg) in args.iter().enumerate() {
        out.push_str(&pad);
        out.push_str("    ");
        out.push_str(arg);
        if idx + 1 < args.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str(&pad);
    out.push_str(")]");
    Some(out)
}

fn rename_arg(field: &Field) -> Option<String> {
    let plain = field.ident.trim_start_matches("r#");
    (plain != field.wire).then(|| format!("rename = {}", lit(&field.wire)))
}

#[derive(Serialize)]
struct FieldView {
    doc: Vec<String>,
    ident: String,
    ty: String,
    /// `pub ident: Type,` for a struct field, broken after the colon when too long.
    decl: String,
    attr: Option<String>,
    ser_attr: Option<String>,
    de_attr: Option<String>,
    ser_ty: String,
    ser_expr: String,
}

fn field_view(field: &Field) -> FieldView {
    let ty = if field.optional {
        format!("Option<{}>", field.ty)
    } else {
        field.ty.clone()
    };
    let skip = "skip_serializing_if = \"Option::is_none\"".to_string();
    let mut args: Vec<String> = rename_arg(field).into_iter().collect();
    let de_args = args.clone();
    if field.optional {
        args.push(skip);
    }
    let (ser_ty, ser_expr) = if field.optional {
        (
            format!("Option<&'a {}>", field.ty),
            format!("self.{}.as_ref()", field.ident),
        )
    } else {
        (
            format!("&'a {}", field.ty),
            format!("&self.{}", field.ident),
        )
    };
    let one_line = format!("    pub {}: {ty},", field.ident);
    let decl = if one_line.len() <= MAX_WIDTH {
        one_line
    } else {
        format!("    pub {}:\n        {ty},", field.ident)
    };
    FieldView {
        doc: field.doc.clone(),
        ident: field.ident.clone(),
        decl,
        ty,
        attr: serde_attr(&args, 4),
        ser_attr: serde_attr(&args, 12),
        de_attr: serde_attr(&de_args, 12),
        ser_ty,
        ser_expr,
    }
}

#[derive(Serialize)]
struct VariantView {
    ident: String,
    wire: String,
    /// The `as_str` match arm.
    to_wire: String,
    /// The `From<&str>` match arm.
    from_wire: String,
}

#[derive(Serialize)]
struct ItemView {
    is_enum: bool,
    name: String,
    doc: Vec<String>,
    derive: String,
    fields: Vec<FieldView>,
    variants: Vec<VariantView>,
    variants_const: String,
    impl_from: String,
    impl_display: String,
    impl_serialize: String,
    impl_deserialize: String,
}

#[derive(Serialize)]
struct KindView {
    header: Vec<String>,
    api_version: String,
    kind: String,
    crd_name: String,
    needs_allow: bool,
    uses: Vec<String>,
    root_doc: Vec<String>,
    root_derive: String,
    root_fields: Vec<FieldView>,
    api_version_lit: String,
    group_lit: String,
    kind_lit: String,
    version_lit: String,
    plural_lit: String,
    scope: String,
    items: Vec<ItemView>,
}

fn path_doc(paths: &[String]) -> Vec<String> {
    let show = |p: &String| {
        if p == "." {
            "(root)".to_string()
        } else {
            format!("`{p}`")
        }
    };
    let mut doc = vec![format!("Schema path {}.", show(&paths[0]))];
    if paths.len() > 1 {
        let others: Vec<String> = paths[1..].iter().map(show).collect();
        doc.push(String::new());
        doc.push(format!("Also used for {}.", others.join(", ")));
    }
    doc
}

/// Renders one kind's file.
pub fn render_kind(
    env: &Environment<'_>,
    model: &KindModel,
    header: Vec<String>,
) -> Result<String, CodegenError> {
    let mut uses: Vec<String> = vec![
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta".to_string(),
        "serde::{Deserialize, Deserializer, Serialize, Serializer}".to_string(),
    ];
    let mut imports: BTreeMap<String, String> = model.imports.clone();
    imports.remove("ObjectMeta");
    uses.extend(imports.values().cloned());
    uses.sort();
    uses.dedup();
    let items: Vec<ItemView> = model
        .items
        .iter()
        .map(|item| match item {
            Item::Struct(s) => {
                let default = if s.default { "Default, " } else { "" };
                ItemView {
                    is_enum: false,
                    name: s.name.clone(),
                    doc: path_doc(&s.paths),
                    derive: format!("Debug, Clone, PartialEq, {default}Serialize, Deserialize"),
                    fields: s.fields.iter().map(field_view).collect(),
                    variants: Vec::new(),
                    variants_const: String::new(),
                    impl_from: String::new(),
                    impl_display: String::new(),
                    impl_serialize: String::new(),
                    impl_deserialize: String::new(),
                }
            }
            Item::Enum(e) => ItemView {
                is_enum: true,
                name: e.name.clone(),
                doc: path_doc(&e.paths),
                derive: String::new(),
                fields: Vec::new(),
                variants: e
                    .variants
                    .iter()
                    .map(|(ident, wire)| VariantView {
                        ident: ident.clone(),
                        wire: crate::lower::code(wire),
                        to_wire: match_arm(12, &format!("Self::{ident}"), &lit(wire)),
                        from_wire: match_arm(12, &lit(wire), &format!("Self::{ident}")),
                    })
                    .collect(),
                variants_const: const_str_slice(
                    4,
                    "pub const VARIANTS: &'static [&'static str]",
                    &e.variants.iter().map(|(_, w)| lit(w)).collect::<Vec<_>>(),
                ),
                impl_from: impl_header(" From<&str>", &e.name),
                impl_display: impl_header(" std::fmt::Display", &e.name),
                impl_serialize: impl_header(" Serialize", &e.name),
                impl_deserialize: impl_header("<'de> Deserialize<'de>", &e.name),
            },
        })
        .collect();
    let needs_allow = model.items.iter().any(|i| matches!(i, Item::Enum(_)));
    let root_default = if model.root_default { ", Default" } else { "" };
    let view = KindView {
        header,
        api_version: format!("{}/{}", model.group, model.version),
        kind: model.kind.clone(),
        crd_name: model.crd_name.clone(),
        needs_allow,
        uses,
        root_doc: model.root_doc.clone(),
        root_derive: format!("Debug, Clone, PartialEq{root_default}"),
        root_fields: model.root_fields.iter().map(field_view).collect(),
        api_version_lit: lit(&format!("{}/{}", model.group, model.version)),
        group_lit: lit(&model.group),
        kind_lit: lit(&model.kind),
        version_lit: lit(&model.version),
        plural_lit: lit(&model.plural),
        scope: if model.namespaced {
            "NamespaceResourceScope".to_string()
        } else {
            "ClusterResourceScope".to_string()
        },
        items,
    };
    render(env, "kind.rs", &view)
}

#[derive(Serialize)]
struct ModView<'a> {
    header: &'a [String],
    doc: &'a str,
    modules: &'a [String],
    reexports: &'a [String],
}

/// Renders a `mod.rs` declaring `modules` and, when `reexport` is set, re-exporting them.
pub fn render_mod(
    env: &Environment<'_>,
    header: &[String],
    doc: &str,
    modules: &[String],
    reexport: bool,
) -> Result<String, CodegenError> {
    let empty: [String; 0] = [];
    let view = ModView {
        header,
        doc,
        modules,
        reexports: if reexport { modules } else { &empty },
    };
    render(env, "mod.rs", &view)
}
