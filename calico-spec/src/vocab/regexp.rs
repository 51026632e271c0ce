//! The part of Go's regular expression syntax (RE2, `regexp.Compile`) that Calico's `regexp`
//! field rule can be checked against without Go's parser: grouping.
//!
//! Go's parser and the `regex` crate's disagree on many constructs (`\Q...\E`, octal escapes,
//! a literal `{`, `[[]`, `a**`, `a{1001}`, `(?x)`, measured on a set of probes), so neither
//! crate can stand in for it. What is checked here is what both would refuse and what people
//! get wrong: a `(` without its `)`, a `)` without its `(`, a `[` class without its `]`, and a
//! trailing `\`. Other mistakes Go refuses (`a**`, an unknown escape such as `\e`, a repeat
//! count over 1000, an unknown class name) pass here.

/// Why a pattern does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegexpError {
    /// A group is opened and never closed.
    #[error("missing `)`: a group opened at character {0} is not closed")]
    Unclosed(usize),
    /// A `)` closes no group.
    #[error("unexpected `)` at character {0}: no group is open")]
    Unopened(usize),
    /// A character class is not closed.
    #[error("missing `]`: the class opened at character {0} is not closed")]
    ClassUnclosed(usize),
    /// The pattern ends with a lone backslash.
    #[error("trailing `\\`")]
    TrailingBackslash,
}

/// Check the grouping of `pattern` as Go's parser reads it (positions are 1-based character
/// counts).
///
/// # Errors
/// [`RegexpError`] for the first unbalanced group or class, or a trailing backslash.
pub fn check_grouping(pattern: &str) -> Result<(), RegexpError> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut open: Vec<usize> = Vec::new();
    let mut idx = 0;
    while let Some(&ch) = chars.get(idx) {
        match ch {
            '\\' if chars.get(idx + 1) == Some(&'Q') => {
                // `\Q...\E`: literal text up to `\E` or the end.
                idx += 2;
                while idx < chars.len()
                    && !(chars.get(idx) == Some(&'\\') && chars.get(idx + 1) == Some(&'E'))
                {
                    idx += 1;
                }
                idx += 2;
                continue;
            }
            '\\' if idx + 1 >= chars.len() => return Err(RegexpError::TrailingBackslash),
            '\\' => idx += 1,
            '(' => open.push(idx + 1),
            // The guard pops the group a `)` closes; with none open it is an error.
            ')' if open.pop().is_none() => return Err(RegexpError::Unopened(idx + 1)),
            '[' => idx = class_end(&chars, idx)?,
            _ => {}
        }
        idx += 1;
    }
    match open.last() {
        Some(&at) => Err(RegexpError::Unclosed(at)),
        None => Ok(()),
    }
}

/// The index of the `]` that closes the class opened at `start`. Go reads a `]` or `^]` right
/// after the `[` as a literal, `[:name:]` as a named class and any other `[` as a literal.
fn class_end(chars: &[char], start: usize) -> Result<usize, RegexpError> {
    let mut idx = start + 1;
    if chars.get(idx) == Some(&'^') {
        idx += 1;
    }
    if chars.get(idx) == Some(&']') {
        idx += 1;
    }
    while let Some(&ch) = chars.get(idx) {
        match ch {
            ']' => return Ok(idx),
            '\\' if idx + 1 >= chars.len() => return Err(RegexpError::TrailingBackslash),
            '\\' => idx += 1,
            '[' if chars.get(idx + 1) == Some(&':') => {
                if let Some(end) = (idx + 2..chars.len().saturating_sub(1))
                    .find(|&at| chars.get(at) == Some(&':') && chars.get(at + 1) == Some(&']'))
                {
                    idx = end + 1;
                }
            }
            _ => {}
        }
        idx += 1;
    }
    Err(RegexpError::ClassUnclosed(start + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_as_go_reads_it() {
        // Each verdict was checked against Go's regexp.Compile.
        for ok in [
            "^eth.*",
            "eth[0-9]+",
            "^((en|wl|ww|sl|ib)[Popsx].*|(eth|wlan|wwan).*)",
            r"\Q(\E",
            r"\Qa(",
            r"\(",
            "[(]",
            "[)]",
            "[]a]",
            "[^]a]",
            "[[]",
            "[[:alpha:]]",
            "[[:alpha:]()]",
            "]",
            "()",
            "(?i)abc",
            "(?P<n>a)",
            "",
        ] {
            assert_eq!(check_grouping(ok), Ok(()), "{ok}");
        }
        for (bad, err) in [
            ("(bad", RegexpError::Unclosed(1)),
            ("/(bad/", RegexpError::Unclosed(2)),
            ("a)", RegexpError::Unopened(2)),
            ("(a))", RegexpError::Unopened(4)),
            ("[a", RegexpError::ClassUnclosed(1)),
            ("[]", RegexpError::ClassUnclosed(1)),
            ("[[:alpha:]", RegexpError::ClassUnclosed(1)),
            (r"a\", RegexpError::TrailingBackslash),
            ("(?i", RegexpError::Unclosed(1)),
            (r"\Q(\E)", RegexpError::Unopened(6)),
        ] {
            assert_eq!(check_grouping(bad), Err(err), "{bad}");
        }
    }
}
