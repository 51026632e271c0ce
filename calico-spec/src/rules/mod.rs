//! The rule catalogue: every upstream validation rule and our lints, with stable codes.
