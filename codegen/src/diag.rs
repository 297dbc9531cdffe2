//! Diagnostics: errors with a file, a 1-based line and column, and an optional hint.
//!
//! Every problem found in a schema is reported as
//!
//! ```text
//! shop.fxs:12:9: error: unknown type `Adress`
//! hint: did you mean `Address`?
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

/// One error in a schema, at a precise place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as it was named to the parser (imports: joined onto the
    /// importing file's directory, then normalized).
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters (Unicode scalar values), not bytes.
    pub column: u32,
    /// What is wrong, in one line.
    pub message: String,
    /// How to fix it, when a fix is known.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic without a hint.
    pub fn new(
        file: impl Into<PathBuf>,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            file: file.into(),
            line,
            column,
            message: message.into(),
            hint: None,
        }
    }

    /// The same diagnostic with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// `file:line:column`, the location part of the rendered error.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: error: message`, then `hint: ...` on its own line when
    /// there is a hint. No trailing newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.location(), self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// All the errors found in one run of the parser (never empty when returned
/// as an error), ordered by file (dependencies first) then position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// No diagnostics yet.
    pub fn new() -> Diagnostics {
        Diagnostics(Vec::new())
    }

    /// Adds one diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// True when there are no diagnostics.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of diagnostics.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Iterates over the diagnostics.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    /// The first diagnostic, if any.
    pub fn first(&self) -> Option<&Diagnostic> {
        self.0.first()
    }

    /// The diagnostics reported for `file`.
    pub fn in_file<'a>(&'a self, file: &'a Path) -> impl Iterator<Item = &'a Diagnostic> + 'a {
        self.0.iter().filter(move |d| d.file == file)
    }
}

impl fmt::Display for Diagnostics {
    /// Each diagnostic as [`Diagnostic`] renders it, separated by newlines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Diagnostics {
        Diagnostics(vec![d])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_message_and_hint() {
        let d = Diagnostic::new("shop.fxs", 12, 9, "unknown type `Adress`")
            .with_hint("did you mean `Address`?");
        assert_eq!(
            d.to_string(),
            "shop.fxs:12:9: error: unknown type `Adress`\nhint: did you mean `Address`?"
        );
        let plain = Diagnostic::new("a.fxs", 1, 2, "expected `;`, found `}`");
        let all = Diagnostics(vec![d.clone(), plain]);
        assert_eq!(
            all.to_string(),
            "shop.fxs:12:9: error: unknown type `Adress`\nhint: did you mean `Address`?\na.fxs:1:2: error: expected `;`, found `}`"
        );
    }
}
