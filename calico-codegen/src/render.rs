//! Rendering: from the Rust model to source text, through the minijinja templates in
//! `templates/`.
//!
//! Logic that would be the same in every kind file (the root type's `Resource`, `Metadata`
//! and serde impls, a string enum's impls) is not templated per kind: `support.rs` holds it
//! once as macros, and the kind template emits invocations that carry only data.
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
const SUPPORT_TEMPLATE: &str = include_str!("../templates/support.rs.jinja");

/// The template environment: strict undefined values, no escaping, block tags that leave no
/// blank lines behind.
#[expect(
    clippy::expect_used,
    reason = "the templates are bundled; every codegen test renders all three"
)]
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
    env.add_template("support.rs", SUPPORT_TEMPLATE)
        .expect("invariant: the bundled support template parses");
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
    /// The field's serde attribute in a struct.
    attr: Option<String>,
    /// The rename, if any, in a `custom_resource!` invocation (skipping `None` is the
    /// macro's business there).
    resource_attr: Option<String>,
}

fn field_view(field: &Field) -> FieldView {
    let ty = if field.optional {
        format!("Option<{}>", field.ty)
    } else {
        field.ty.clone()
    };
    let skip = "skip_serializing_if = \"Option::is_none\"".to_string();
    let mut args: Vec<String> = rename_arg(field).into_iter().collect();
    let resource_args = args.clone();
    if field.optional {
        args.push(skip);
    }
    let one_line = format!("    pub {}: {ty},", field.ident);
    let broken = format!("    pub {}:\n        {ty},", field.ident);
    let decl = if one_line.len() <= MAX_WIDTH {
        one_line
    } else if 8 + ty.len() < MAX_WIDTH {
        broken
    } else {
        // Still too long on its own line: rustfmt breaks inside the generic instead
        // (`Option<\n        Inner,\n    >`), as the v3.33 Installation's long probe types need.
        ty.split_once('<')
            .and_then(|(outer, rest)| Some((outer, rest.strip_suffix('>')?)))
            // Only for a plain inner type that then fits (what rustfmt 1.8 was seen to do);
            // otherwise rustfmt leaves the long line as it is.
            .filter(|(_, inner)| !inner.contains('<') && 8 + inner.len() < MAX_WIDTH)
            .map_or(broken, |(outer, inner)| {
                format!(
                    "    pub {}: {outer}<\n        {inner},\n    >,",
                    field.ident
                )
            })
    };
    FieldView {
        doc: field.doc.clone(),
        ident: field.ident.clone(),
        decl,
        ty,
        attr: serde_attr(&args, 4),
        resource_attr: serde_attr(&resource_args, 4),
    }
}

#[derive(Serialize)]
struct VariantView {
    ident: String,
    /// The wire spelling as a Rust string literal.
    wire: String,
}

#[derive(Serialize)]
struct ItemView {
    is_enum: bool,
    is_alias: bool,
    name: String,
    doc: Vec<String>,
    derive: String,
    fields: Vec<FieldView>,
    variants: Vec<VariantView>,
    /// `pub type Name = Target;` for an alias, broken after `=` when too long.
    alias_decl: String,
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
    group_lit: String,
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
    let mut doc = Vec::new();
    if let Some((first, others)) = paths.split_first() {
        doc.push(format!("Schema path {}.", show(first)));
        if !others.is_empty() {
            let others: Vec<String> = others.iter().map(show).collect();
            doc.push(String::new());
            doc.push(format!("Also used for {}.", others.join(", ")));
        }
    }
    doc
}

/// `pub type name = target;`, laid out as rustfmt lays it out.
fn alias_decl(name: &str, target: &str) -> String {
    let one_line = format!("pub type {name} = {target};");
    if one_line.len() <= MAX_WIDTH {
        one_line
    } else {
        format!("pub type {name} =\n    {target};")
    }
}

/// The doc of an alias: its paths, and that it is the same type as `target`.
fn alias_doc(paths: &[String], target: &str) -> Vec<String> {
    let mut doc = path_doc(paths);
    if let Some(first) = doc.first_mut() {
        *first = format!(
            "{}: the same shape as [`{target}`], so the same type.",
            first.trim_end_matches('.')
        );
    }
    doc
}

/// Renders one kind's file.
pub fn render_kind(
    env: &Environment<'_>,
    model: &KindModel,
    header: Vec<String>,
) -> Result<String, CodegenError> {
    let mut uses: Vec<String> =
        vec!["k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta".to_string()];
    // The macros name serde by its full path; only the struct derives need the short names.
    if model.items.iter().any(|i| matches!(i, Item::Struct(_))) {
        uses.push("serde::{Deserialize, Serialize}".to_string());
    }
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
                    is_alias: false,
                    name: s.name.clone(),
                    doc: path_doc(&s.paths),
                    derive: format!("Debug, Clone, PartialEq, {default}Serialize, Deserialize"),
                    fields: s.fields.iter().map(field_view).collect(),
                    variants: Vec::new(),
                    alias_decl: String::new(),
                }
            }
            Item::Enum(e) => ItemView {
                is_enum: true,
                is_alias: false,
                name: e.name.clone(),
                doc: path_doc(&e.paths),
                derive: String::new(),
                fields: Vec::new(),
                variants: e
                    .variants
                    .iter()
                    .map(|(ident, wire)| VariantView {
                        ident: ident.clone(),
                        wire: lit(wire),
                    })
                    .collect(),
                alias_decl: String::new(),
            },
            Item::Alias(a) => ItemView {
                is_enum: false,
                is_alias: true,
                name: a.name.clone(),
                doc: alias_doc(&a.paths, &a.target),
                derive: String::new(),
                fields: Vec::new(),
                variants: Vec::new(),
                alias_decl: alias_decl(&a.name, &a.target),
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
        group_lit: lit(&model.group),
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
    support: bool,
    modules: &'a [String],
    reexports: &'a [String],
}

/// What a `mod.rs` declares besides its child modules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModKind {
    /// The root of the tree: declares the `support` module of shared macros first.
    Root,
    /// A group module: declares its version modules.
    Group,
    /// A version module: declares its kind modules and re-exports their items.
    Version,
}

/// Renders a `mod.rs` declaring `modules`, as `kind` says.
pub fn render_mod(
    env: &Environment<'_>,
    header: &[String],
    doc: &str,
    modules: &[String],
    kind: ModKind,
) -> Result<String, CodegenError> {
    let empty: [String; 0] = [];
    let view = ModView {
        header,
        doc,
        support: kind == ModKind::Root,
        modules,
        reexports: if kind == ModKind::Version {
            modules
        } else {
            &empty
        },
    };
    render(env, "mod.rs", &view)
}

#[derive(Serialize)]
struct SupportView<'a> {
    header: &'a [String],
    doc: &'a [&'a str],
    enums: bool,
}

/// Renders `support.rs`, the macros the kind files invoke: `custom_resource!` always and
/// `string_enum!` when `enums` is set (an unused macro would be a warning).
pub fn render_support(
    env: &Environment<'_>,
    header: &[String],
    enums: bool,
) -> Result<String, CodegenError> {
    let doc: &[&str] = if enums {
        &[
            "The logic every generated kind and string enum shares, written once as macros.",
            "",
            "Each kind file invokes them with its own data (names, wire spellings, field types);",
            "the code they expand to is written only here.",
        ]
    } else {
        &[
            "The logic every generated kind shares, written once as a macro.",
            "",
            "Each kind file invokes it with its own data (names, field types); the code it",
            "expands to is written only here.",
        ]
    };
    let view = SupportView { header, doc, enums };
    render(env, "support.rs", &view)
}
