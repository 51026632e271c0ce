//! What the index records about each CEL rule so that a validator need not parse it: whether it
//! is a transition rule (it reads `oldSelf`), and the terms that settle it.
//!
//! Most CRD rules are chains of `||` such as `!has(self.x) || self.y == 'Never' || ...`. In CEL
//! `a || b` is true as soon as either side is true, whatever the other side gives (even an
//! error), so a rule holds whenever one of its top-level disjuncts holds. A disjunct is recorded
//! when one field of `self` alone decides it:
//!
//! | rule text                      | index term                              | holds when             |
//! | ------------------------------ | --------------------------------------- | ---------------------- |
//! | `!has(self.f)`                 | `{"absent":"f"}`                        | `f` is absent          |
//! | `self.f == 'text'` (or a bool, an int) | `{"equals":["f","text"]}`        | `f` has that value     |
//! | `size(self.f) == 0`, `self.f.size() == 0` | `{"empty":"f"}`              | `f` is empty           |
//! | `!self.f.contains('t')`        | `{"lacks":["f","t"]}`                   | `f` is a string without `t` |
//! | `self.f.g == 'text'` (any depth) | `{"nested":[["f","g"],"text"]}`       | that field has that text |
//!
//! The validator reads the fields as the rule sees them (nulls dropped, CRD defaults in), and
//! evaluates the rule only when no term holds. The rules are parsed here with the same CEL
//! parser the validator uses; a rule that does not parse gets no terms (the validator then
//! reports it as not evaluable).

use kube_cel::cel::common::ast::{Expr, LiteralValue};
use kube_cel::cel::parser::{Expression, Parser};
use serde_json::{Value, json};

/// What the index says of one rule: `(transition, terms)`; `None` when the rule does not parse.
pub fn analyse(rule: &str) -> Option<(bool, Vec<Value>)> {
    // The API server's CRD environment has the optional syntax (`self.?x`, `[?0]`).
    let expr = Parser::default()
        .enable_optional_syntax(true)
        .parse(rule)
        .ok()?;
    let transition = expr.references().has_variable("oldSelf");
    let mut parts = Vec::new();
    disjuncts(&expr, &mut parts);
    Some((transition, parts.into_iter().filter_map(term).collect()))
}

fn disjuncts<'e>(expr: &'e Expression, out: &mut Vec<&'e Expression>) {
    match &expr.expr {
        Expr::Call(call) if call.func_name == "_||_" && call.target.is_none() => {
            for arg in &call.args {
                disjuncts(arg, out);
            }
        }
        _ => out.push(expr),
    }
}

/// `["f", "g"]` when `expr` is exactly `self.f.g` (any depth, at least one field).
fn self_path(expr: &Expression) -> Option<Vec<String>> {
    let Expr::Select(select) = &expr.expr else {
        return None;
    };
    if select.test {
        return None;
    }
    let mut path = match &select.operand.expr {
        Expr::Ident(name) if name == "self" => Vec::new(),
        _ => self_path(&select.operand)?,
    };
    path.push(select.field.clone());
    Some(path)
}

/// `f` when `expr` is exactly `self.f`.
fn self_field(expr: &Expression) -> Option<&str> {
    match &expr.expr {
        Expr::Select(select)
            if !select.test
                && matches!(&select.operand.expr, Expr::Ident(name) if name == "self") =>
        {
            Some(&select.field)
        }
        _ => None,
    }
}

fn string_literal(expr: &Expression) -> Option<String> {
    match &expr.expr {
        Expr::Literal(LiteralValue::String(text)) => Some(text.inner().to_string()),
        _ => None,
    }
}

fn term(expr: &Expression) -> Option<Value> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    if call.target.is_some() {
        return None;
    }
    match (call.func_name.as_str(), call.args.as_slice()) {
        ("!_", [inner]) => match &inner.expr {
            Expr::Select(select)
                if select.test
                    && matches!(&select.operand.expr, Expr::Ident(name) if name == "self") =>
            {
                Some(json!({ "absent": select.field }))
            }
            Expr::Call(contains) if contains.func_name == "contains" => {
                let field = self_field(contains.target.as_deref()?)?;
                let [arg] = contains.args.as_slice() else {
                    return None;
                };
                Some(json!({ "lacks": [field, string_literal(arg)?] }))
            }
            _ => None,
        },
        ("_==_", [left, right]) => {
            for (sized, zero) in [(left, right), (right, left)] {
                if let Some(field) = size_of_field(sized).filter(|_| is_zero(zero)) {
                    return Some(json!({ "empty": field }));
                }
            }
            match (self_field(left), self_field(right)) {
                (Some(field), None) => equals(field, right),
                (None, Some(field)) => equals(field, left),
                (Some(_), Some(_)) => None,
                // A field of a field compared with a string.
                (None, None) => {
                    let (path, other) = match (self_path(left), self_path(right)) {
                        (Some(path), None) => (path, right),
                        (None, Some(path)) => (path, left),
                        _ => return None,
                    };
                    Some(json!({ "nested": [path, string_literal(other)?] }))
                }
            }
        }
        _ => None,
    }
}

fn equals(field: &str, other: &Expression) -> Option<Value> {
    let literal = match &other.expr {
        Expr::Literal(LiteralValue::String(text)) => Value::from(text.inner()),
        Expr::Literal(LiteralValue::Boolean(b)) => Value::from(*b.inner()),
        Expr::Literal(LiteralValue::Int(int)) => Value::from(*int.inner()),
        _ => return None,
    };
    Some(json!({ "equals": [field, literal] }))
}

fn is_zero(expr: &Expression) -> bool {
    matches!(&expr.expr, Expr::Literal(LiteralValue::Int(int)) if *int.inner() == 0)
}

/// `f` when `expr` is `size(self.f)` or `self.f.size()`.
fn size_of_field(expr: &Expression) -> Option<&str> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    if call.func_name != "size" {
        return None;
    }
    match (call.target.as_deref(), call.args.as_slice()) {
        (None, [arg]) => self_field(arg),
        (Some(target), []) => self_field(target),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(rule: &str) -> Vec<String> {
        analyse(rule)
            .map(|(_, terms)| terms.iter().map(Value::to_string).collect())
            .unwrap_or_default()
    }

    #[test]
    fn each_form_of_term_is_recorded() {
        assert_eq!(
            terms("!has(self.a) || self.b == 'Never' || size(self.c) == 0 || 0 == self.d.size()"),
            [
                r#"{"absent":"a"}"#,
                r#"{"equals":["b","Never"]}"#,
                r#"{"empty":"c"}"#,
                r#"{"empty":"d"}"#
            ]
        );
        assert_eq!(
            terms("true == self.e || self.f == 3 || !self.cidr.contains(':')"),
            [
                r#"{"equals":["e",true]}"#,
                r#"{"equals":["f",3]}"#,
                r#"{"lacks":["cidr",":"]}"#
            ]
        );
        assert_eq!(
            terms("self.metadata.name == 'default' || 'x' == self.metadata.name"),
            [
                r#"{"nested":[["metadata","name"],"default"]}"#,
                r#"{"nested":[["metadata","name"],"x"]}"#
            ]
        );
    }

    #[test]
    fn only_top_level_disjuncts_decided_by_one_field_count() {
        // Inside && or a ternary a term settles nothing; so do comparisons of two fields, other
        // operators and non-literal operands.
        assert!(terms("!has(self.a) && !has(self.b)").is_empty());
        assert!(terms("self.a == 'x' ? true : !has(self.b)").is_empty());
        assert!(terms("self.a == self.b || self.a != 'x' || self.a == self.b.c").is_empty());
        assert!(terms("self.allowedUses.exists(u, u == 'LoadBalancer')").is_empty());
        // Parenthesised disjunctions are still disjunctions.
        assert_eq!(
            terms("(!has(self.a) || size(self.a) == 0) || !has(self.b)").len(),
            3
        );
    }

    #[test]
    fn transition_rules_and_unparsable_rules() {
        assert_eq!(analyse("self == oldSelf").map(|(t, _)| t), Some(true));
        assert_eq!(analyse("!has(self.a)").map(|(t, _)| t), Some(false));
        assert_eq!(analyse("self.a ==").map(|(t, _)| t), None);
    }
}
