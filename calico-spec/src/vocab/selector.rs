//! The Calico selector language: a tokenizer and a recursive-descent parser with upstream's
//! whitespace and quoting rules.
//!
//! Grammar (loosest binding first):
//!
//! ```text
//! selector  := <empty> | or
//! or        := and ( "||" and )*
//! and       := unary ( "&&" unary )*
//! unary     := "!"* term
//! term      := "all()" | "global()" | "has(" label ")" | "(" or ")"
//!            | label ( "==" | "!=" | "contains" | "starts with" | "ends with" ) string
//!            | label ( "in" | "not in" ) "{" [ string ( "," string )* ] "}"
//! ```
//!
//! Whitespace is only space and tab; a newline or any other character is an error. Labels are
//! runs of `[A-Za-z0-9_./-]`, at most 512 characters. Strings are single- or double-quoted and
//! have no escapes. The word operators are recognised only right after a label and only when a
//! word boundary follows them; `not`, `starts` and `ends` need at least one blank before `in`
//! or `with`.

use std::fmt;

/// The longest label the tokenizer accepts.
pub const MAX_LABEL_LEN: usize = 512;

/// Deepest nesting of parentheses and `!` a selector may have. Real selectors nest a few
/// levels; the parser recurses once per level, so without a bound a long run of `(` would
/// overflow the stack (found by the `selector` fuzz target).
pub const MAX_NESTING: usize = 100;

/// Why a selector does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectorError {
    /// A character that cannot start any token.
    #[error("unexpected character `{found}` at offset {offset}")]
    UnexpectedChar {
        /// The character.
        found: char,
        /// Byte offset in the selector.
        offset: usize,
    },
    /// A quoted string without its closing quote.
    #[error("unterminated string starting at offset {offset}")]
    UnterminatedString {
        /// Byte offset of the opening quote.
        offset: usize,
    },
    /// A single `=`, `&` or `|`.
    #[error("`{found}` at offset {offset} must be doubled (`{found}{found}`)")]
    SingleOperator {
        /// The operator character.
        found: char,
        /// Byte offset in the selector.
        offset: usize,
    },
    /// A label longer than [`MAX_LABEL_LEN`].
    #[error("label at offset {offset} is longer than 512 characters")]
    LabelTooLong {
        /// Byte offset of the label.
        offset: usize,
    },
    /// Parentheses and `!` nested more than [`MAX_NESTING`] deep.
    #[error("parentheses and `!` nest more than 100 deep at offset {offset}")]
    TooDeep {
        /// Byte offset where the limit is passed.
        offset: usize,
    },
    /// `has(` without a label and a closing parenthesis.
    #[error("`has(` at offset {offset} must contain exactly one label and `)`")]
    BadHas {
        /// Byte offset of `has(`.
        offset: usize,
    },
    /// A token that the grammar does not allow at this point.
    #[error("expected {expected} at offset {offset}, found {found}")]
    Unexpected {
        /// What the parser wanted.
        expected: &'static str,
        /// What it found.
        found: String,
        /// Byte offset in the selector.
        offset: usize,
    },
}

/// A token of the selector language; labels and strings borrow from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token<'a> {
    Label(&'a str),
    Str(&'a str),
    LBrace,
    RBrace,
    Comma,
    Eq,
    Ne,
    In,
    NotIn,
    Contains,
    StartsWith,
    EndsWith,
    All,
    Global,
    Has(&'a str),
    Not,
    LParen,
    RParen,
    And,
    Or,
    Eof,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Label(label) => write!(f, "label `{label}`"),
            Token::Str(text) => write!(f, "string \"{text}\""),
            Token::LBrace => f.write_str("`{`"),
            Token::RBrace => f.write_str("`}`"),
            Token::Comma => f.write_str("`,`"),
            Token::Eq => f.write_str("`==`"),
            Token::Ne => f.write_str("`!=`"),
            Token::In => f.write_str("`in`"),
            Token::NotIn => f.write_str("`not in`"),
            Token::Contains => f.write_str("`contains`"),
            Token::StartsWith => f.write_str("`starts with`"),
            Token::EndsWith => f.write_str("`ends with`"),
            Token::All => f.write_str("`all()`"),
            Token::Global => f.write_str("`global()`"),
            Token::Has(label) => write!(f, "`has({label})`"),
            Token::Not => f.write_str("`!`"),
            Token::LParen => f.write_str("`(`"),
            Token::RParen => f.write_str("`)`"),
            Token::And => f.write_str("`&&`"),
            Token::Or => f.write_str("`||`"),
            Token::Eof => f.write_str("the end of the selector"),
        }
    }
}

/// A parsed selector expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// `all()`, or an empty selector: matches everything.
    All,
    /// `global()`: matches non-namespaced resources.
    Global,
    /// `has(label)`.
    Has(String),
    /// `label OP "value"` for the string comparison operators.
    Compare {
        /// The label.
        label: String,
        /// The operator.
        op: CompareOp,
        /// The literal on the right-hand side.
        value: String,
    },
    /// `label in {...}` or `label not in {...}`.
    InSet {
        /// The label.
        label: String,
        /// Whether the operator is `not in`.
        negated: bool,
        /// The set members, in source order.
        values: Vec<String>,
    },
    /// `!expr`.
    Not(Box<Selector>),
    /// `a && b && ...`.
    And(Vec<Selector>),
    /// `a || b || ...`.
    Or(Vec<Selector>),
}

/// A string comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `contains`.
    Contains,
    /// `starts with`.
    StartsWith,
    /// `ends with`.
    EndsWith,
}

impl Selector {
    /// Whether the expression uses `global()` anywhere.
    pub fn uses_global(&self) -> bool {
        match self {
            Selector::Global => true,
            Selector::Not(inner) => inner.uses_global(),
            Selector::And(parts) | Selector::Or(parts) => parts.iter().any(Selector::uses_global),
            _ => false,
        }
    }
}

/// Parse a selector.
///
/// # Errors
/// [`SelectorError`] naming the first problem and its byte offset.
pub fn parse_selector(input: &str) -> Result<Selector, SelectorError> {
    // Every tokenizing error comes before any grammar error, wherever it is in the text, so
    // the whole text is tokenized once up front; the parser then reads tokens as it goes
    // (tokenizing a second time, which is cheaper than keeping a token list per selector).
    let mut lexer = Lexer::new(input);
    while lexer.next_token()?.0 != Token::Eof {}
    let mut parser = SelectorParser::new(input)?;
    if parser.peek() == &Token::Eof {
        return Ok(Selector::All);
    }
    let expr = parser.or()?;
    match parser.peek() {
        Token::Eof => Ok(expr),
        _ => Err(parser.unexpected("`&&`, `||` or the end of the selector")),
    }
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_label_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-')
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `rest` starts with `word` followed by a word boundary.
fn keyword(rest: &[u8], word: &str) -> Option<usize> {
    let word = word.as_bytes();
    if rest.starts_with(word) && rest.get(word.len()).is_none_or(|&b| !is_word_byte(b)) {
        Some(word.len())
    } else {
        None
    }
}

/// Whether `rest` starts with `first`, one or more blanks, then `second` at a word boundary.
fn two_words(rest: &[u8], first: &str, second: &str) -> Option<usize> {
    let first_bytes = first.as_bytes();
    if !rest.starts_with(first_bytes) {
        return None;
    }
    let mut idx = first_bytes.len();
    let blanks_start = idx;
    while rest.get(idx).is_some_and(|&b| is_blank(b)) {
        idx += 1;
    }
    if idx == blanks_start {
        return None;
    }
    keyword(rest.get(idx..)?, second).map(|len| idx + len)
}

/// Whether `rest` starts with `name`, optional blanks, `(`, optional blanks, `)`.
fn empty_call(rest: &[u8], name: &str) -> Option<usize> {
    let name = name.as_bytes();
    if !rest.starts_with(name) || rest.get(name.len()) != Some(&b'(') {
        return None;
    }
    let mut idx = name.len() + 1;
    while rest.get(idx).is_some_and(|&b| is_blank(b)) {
        idx += 1;
    }
    (rest.get(idx) == Some(&b')')).then_some(idx + 1)
}

/// Reads the tokens of a selector one at a time.
struct Lexer<'a> {
    input: &'a str,
    idx: usize,
    /// Whether the previous token was a label: word operators (`in`, `contains`, ...) are
    /// recognised only there.
    after_label: bool,
}

impl<'a> Lexer<'a> {
    fn new(input: &'a str) -> Lexer<'a> {
        Lexer {
            input,
            idx: 0,
            after_label: false,
        }
    }

    /// The next token and its byte offset; `Eof` at the end, again and again.
    fn next_token(&mut self) -> Result<(Token<'a>, usize), SelectorError> {
        let input = self.input;
        let bytes = input.as_bytes();
        let mut idx = self.idx;
        while bytes.get(idx).is_some_and(|&b| is_blank(b)) {
            idx += 1;
        }
        let Some(rest @ &[first, ..]) = bytes.get(idx..) else {
            self.idx = idx;
            self.after_label = false;
            return Ok((Token::Eof, idx));
        };
        let start = idx;
        let after_label = self.after_label;
        let (token, len) = match first {
            b'(' => (Token::LParen, 1),
            b')' => (Token::RParen, 1),
            b'{' => (Token::LBrace, 1),
            b'}' => (Token::RBrace, 1),
            b',' => (Token::Comma, 1),
            quote @ (b'"' | b'\'') => {
                let Some(end) = rest.iter().skip(1).position(|&b| b == quote) else {
                    return Err(SelectorError::UnterminatedString { offset: start });
                };
                (Token::Str(&input[start + 1..start + 1 + end]), end + 2)
            }
            b'=' if rest.get(1) == Some(&b'=') => (Token::Eq, 2),
            b'!' if rest.get(1) == Some(&b'=') => (Token::Ne, 2),
            b'!' => (Token::Not, 1),
            b'&' if rest.get(1) == Some(&b'&') => (Token::And, 2),
            b'|' if rest.get(1) == Some(&b'|') => (Token::Or, 2),
            op @ (b'=' | b'&' | b'|') => {
                return Err(SelectorError::SingleOperator {
                    found: char::from(op),
                    offset: start,
                });
            }
            _ => {
                let word_op = if after_label {
                    keyword(rest, "in")
                        .map(|len| (Token::In, len))
                        .or_else(|| two_words(rest, "not", "in").map(|len| (Token::NotIn, len)))
                        .or_else(|| keyword(rest, "contains").map(|len| (Token::Contains, len)))
                        .or_else(|| {
                            two_words(rest, "starts", "with").map(|len| (Token::StartsWith, len))
                        })
                        .or_else(|| {
                            two_words(rest, "ends", "with").map(|len| (Token::EndsWith, len))
                        })
                } else {
                    None
                };
                if let Some(found) = word_op {
                    found
                } else if let Some(len) = empty_call(rest, "all") {
                    (Token::All, len)
                } else if let Some(len) = empty_call(rest, "global") {
                    (Token::Global, len)
                } else if rest.starts_with(b"has(") {
                    has_token(input, start)?
                } else if is_label_byte(first) {
                    let len = rest.iter().take_while(|&&b| is_label_byte(b)).count();
                    if len > MAX_LABEL_LEN {
                        return Err(SelectorError::LabelTooLong { offset: start });
                    }
                    (Token::Label(&input[start..start + len]), len)
                } else {
                    let found = input[start..].chars().next().unwrap_or('?');
                    return Err(SelectorError::UnexpectedChar {
                        found,
                        offset: start,
                    });
                }
            }
        };
        self.idx = start + len;
        self.after_label = matches!(token, Token::Label(_));
        Ok((token, start))
    }
}

/// Read `has( label )` starting at `start`.
fn has_token(input: &str, start: usize) -> Result<(Token<'_>, usize), SelectorError> {
    let bytes = input.as_bytes();
    let bad = SelectorError::BadHas { offset: start };
    let mut idx = start + 4;
    while bytes.get(idx).is_some_and(|&b| is_blank(b)) {
        idx += 1;
    }
    let label_start = idx;
    while bytes.get(idx).is_some_and(|&b| is_label_byte(b)) {
        idx += 1;
    }
    if idx == label_start || idx - label_start > MAX_LABEL_LEN {
        return Err(bad);
    }
    let label = &input[label_start..idx];
    while bytes.get(idx).is_some_and(|&b| is_blank(b)) {
        idx += 1;
    }
    if bytes.get(idx) != Some(&b')') {
        return Err(bad);
    }
    Ok((Token::Has(label), idx + 1 - start))
}

struct SelectorParser<'a> {
    lexer: Lexer<'a>,
    /// The token under the cursor and its offset.
    current: (Token<'a>, usize),
    /// Parentheses and `!` open around the cursor.
    depth: usize,
}

impl<'a> SelectorParser<'a> {
    fn new(input: &'a str) -> Result<SelectorParser<'a>, SelectorError> {
        let mut lexer = Lexer::new(input);
        let current = lexer.next_token()?;
        Ok(SelectorParser {
            lexer,
            current,
            depth: 0,
        })
    }

    /// Goes `levels` deeper, refusing to pass [`MAX_NESTING`].
    fn enter(&mut self, levels: usize) -> Result<(), SelectorError> {
        self.depth += levels;
        if self.depth > MAX_NESTING {
            return Err(SelectorError::TooDeep {
                offset: self.offset(),
            });
        }
        Ok(())
    }

    fn peek(&self) -> &Token<'a> {
        &self.current.0
    }

    fn offset(&self) -> usize {
        self.current.1
    }

    /// Move past the current token and return it; the cursor stays on `Eof` at the end.
    fn advance(&mut self) -> Result<Token<'a>, SelectorError> {
        let token = self.current.0;
        if token != Token::Eof {
            self.current = self.lexer.next_token()?;
        }
        Ok(token)
    }

    fn unexpected(&self, expected: &'static str) -> SelectorError {
        SelectorError::Unexpected {
            expected,
            found: self.peek().to_string(),
            offset: self.offset(),
        }
    }

    // A list of operands is built only when there is a second one: most selectors (`all()`,
    // one comparison) have a single term, and pools are checked by the thousand.
    fn or(&mut self) -> Result<Selector, SelectorError> {
        let first = self.and()?;
        if self.peek() != &Token::Or {
            return Ok(first);
        }
        let mut parts = vec![first];
        while self.peek() == &Token::Or {
            self.advance()?;
            parts.push(self.and()?);
        }
        Ok(Selector::Or(parts))
    }

    fn and(&mut self) -> Result<Selector, SelectorError> {
        let first = self.unary()?;
        if self.peek() != &Token::And {
            return Ok(first);
        }
        let mut parts = vec![first];
        while self.peek() == &Token::And {
            self.advance()?;
            parts.push(self.unary()?);
        }
        Ok(Selector::And(parts))
    }

    fn unary(&mut self) -> Result<Selector, SelectorError> {
        let mut n_not = 0usize;
        while self.peek() == &Token::Not {
            self.advance()?;
            n_not += 1;
        }
        self.enter(n_not)?;
        let mut term = self.term()?;
        self.depth -= n_not;
        for _ in 0..n_not {
            term = Selector::Not(Box::new(term));
        }
        Ok(term)
    }

    fn term(&mut self) -> Result<Selector, SelectorError> {
        match *self.peek() {
            Token::All => {
                self.advance()?;
                Ok(Selector::All)
            }
            Token::Global => {
                self.advance()?;
                Ok(Selector::Global)
            }
            Token::Has(label) => {
                self.advance()?;
                Ok(Selector::Has(label.to_owned()))
            }
            Token::LParen => {
                self.advance()?;
                self.enter(1)?;
                let inner = self.or()?;
                self.depth -= 1;
                if self.peek() != &Token::RParen {
                    return Err(self.unexpected("`)`"));
                }
                self.advance()?;
                Ok(inner)
            }
            Token::Label(label) => {
                self.advance()?;
                let op = match self.peek() {
                    Token::Eq => CompareOp::Eq,
                    Token::Ne => CompareOp::Ne,
                    Token::Contains => CompareOp::Contains,
                    Token::StartsWith => CompareOp::StartsWith,
                    Token::EndsWith => CompareOp::EndsWith,
                    Token::In | Token::NotIn => {
                        let negated = self.advance()? == Token::NotIn;
                        let values = self.string_set()?;
                        return Ok(Selector::InSet {
                            label: label.to_owned(),
                            negated,
                            values,
                        });
                    }
                    _ => {
                        return Err(self.unexpected(
                            "an operator (`==`, `!=`, `in`, `not in`, `contains`, `starts with`, `ends with`) after the label",
                        ));
                    }
                };
                self.advance()?;
                match *self.peek() {
                    Token::Str(value) => {
                        self.advance()?;
                        Ok(Selector::Compare {
                            label: label.to_owned(),
                            op,
                            value: value.to_owned(),
                        })
                    }
                    _ => Err(self.unexpected("a quoted string")),
                }
            }
            _ => Err(self.unexpected("a label, `has(...)`, `all()`, `global()`, `!` or `(`")),
        }
    }

    fn string_set(&mut self) -> Result<Vec<String>, SelectorError> {
        if self.peek() != &Token::LBrace {
            return Err(self.unexpected("`{`"));
        }
        self.advance()?;
        let mut values = Vec::new();
        if self.peek() == &Token::RBrace {
            self.advance()?;
            return Ok(values);
        }
        loop {
            match *self.peek() {
                Token::Str(value) => {
                    self.advance()?;
                    values.push(value.to_owned());
                }
                _ => return Err(self.unexpected("a quoted string")),
            }
            match self.peek() {
                Token::Comma => {
                    self.advance()?;
                }
                Token::RBrace => {
                    self.advance()?;
                    return Ok(values);
                }
                _ => return Err(self.unexpected("`,` or `}`")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, ok: bool) {
        let got = parse_selector(input);
        assert_eq!(got.is_ok(), ok, "{input:?}: {got:?}");
    }

    #[test]
    fn nesting_is_bounded() {
        let nested = |depth: usize| format!("{}a == 'b'{}", "(".repeat(depth), ")".repeat(depth));
        check(&nested(MAX_NESTING), true);
        check(&format!("{}has(a)", "!".repeat(MAX_NESTING)), true);
        for deep in [
            nested(MAX_NESTING + 1),
            "(".repeat(100_000),
            format!("{}has(a)", "!".repeat(100_000)),
            format!("{}has(a)", "!(".repeat(60)),
        ] {
            assert!(
                matches!(parse_selector(&deep), Err(SelectorError::TooDeep { .. })),
                "{:?}",
                parse_selector(&deep)
            );
        }
    }

    #[test]
    fn accepted() {
        for input in [
            "",
            "   ",
            "\t",
            "all()",
            "all( )",
            " all() ",
            "global()",
            "has(a)",
            "has( a )",
            "!has(a)",
            "!!has(a)",
            "a == 'b'",
            "a == \"b\"",
            "a=='b'",
            "a != 'b'",
            "a in {'x', \"y\"}",
            "a in {}",
            "a in{'x'}",
            "a not in {'x'}",
            "a not  in {'x'}",
            "a contains 'x'",
            "a starts with 'x'",
            "a ends with 'x'",
            "a starts\twith 'x'",
            "kubernetes.io/hostname == 'node-1'",
            "a == 'b' && c != 'd' || has(e)",
            "(a == 'b' || c == 'd') && !has(e)",
            "a == ''",
            "a == 'x y'",
        ] {
            check(input, true);
        }
    }

    #[test]
    fn rejected() {
        for input in [
            "a",
            "a = 'b'",
            "a == b",
            "'b' == a",
            "a == 'b' &&",
            "a == 'b' & c == 'd'",
            "a == 'b' | c == 'd'",
            "(a == 'b'",
            "a == 'b')",
            "a == 'b",
            "a\n== 'b'",
            "all",
            "all() all()",
            "has()",
            "has(a",
            "a in {'x',}",
            "a in {'x' 'y'}",
            "a in 'x'",
            "a notin {'x'}",
            "a startswith 'x'",
            "a contains",
            "a == 'b' c == 'd'",
            "&& a == 'b'",
            "!",
            "a ∈ 'b'",
            "a == 'it\\'s'",
        ] {
            check(input, false);
        }
    }

    #[test]
    fn label_length() {
        check(&format!("{} == 'x'", "a".repeat(512)), true);
        check(&format!("{} == 'x'", "a".repeat(513)), false);
    }

    #[test]
    fn errors_name_what_was_found() {
        let err = parse_selector("a contains").unwrap_err();
        assert!(
            err.to_string().contains("found the end of the selector"),
            "{err}"
        );
        let err = parse_selector("a == b").unwrap_err();
        assert!(err.to_string().contains("found label `b`"), "{err}");
    }

    #[test]
    fn global_is_found() {
        assert!(parse_selector("!global() && has(a)").unwrap().uses_global());
        assert!(!parse_selector("has(global)").unwrap().uses_global());
    }
}
