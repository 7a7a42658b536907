//! The error of a settings file (a scenario, a lesson): one line naming
//! the file, the line, the field and what is wrong. Every surface that
//! reads a file reports through it, so every message has the same form.

use std::fmt;
use std::ops::Range;

/// Why a scenario could not be read: the file, the 1-based line (when the
/// problem has a place), the field (when one is at fault) and what is wrong.
/// `Display` gives the one-line message: `FILE:LINE: FIELD: MESSAGE`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line of the problem, if it has one.
    pub line: Option<usize>,
    /// The field at fault, if one is.
    pub field: Option<String>,
    /// What is wrong, and the allowed values.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// 1-based line of byte offset `at` in `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The one-line error of `file` (whose text is `text`) at byte range
/// `span`: its line, the field, and `message` with its white space
/// collapsed (a quoted key or a value may hold newlines).
pub(crate) fn one_line_error(
    text: &str,
    file: &str,
    span: Option<Range<usize>>,
    field: Option<String>,
    message: String,
) -> ScenarioError {
    ScenarioError {
        file: file.to_string(),
        line: span.map(|s| line_of(text, s.start)),
        field: field.map(|f| f.split_whitespace().collect::<Vec<_>>().join(" ")),
        message: message.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}
