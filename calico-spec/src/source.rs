//! Parsing input text into documents with spans, so diagnostics can name line and column.
