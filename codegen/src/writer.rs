//! The code writer every backend emits through: lines at an indentation,
//! blocks, and doc comments in the two styles the target languages use.
//!
//! ```
//! use flexbuf_codegen::writer::{CodeWriter, DocStyle};
//!
//! let mut w = CodeWriter::new("    ");
//! w.doc(0, DocStyle::Lines("///"), &["A point.".to_string()]);
//! w.block(0, "pub struct Point {", "}", |w| w.line(1, "x: f64,"));
//! assert_eq!(w.finish(), "/// A point.\npub struct Point {\n    x: f64,\n}\n");
//! ```

use std::fmt;

/// How doc comments are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocStyle<'a> {
    /// One comment per line with this prefix (`///`, `#:`); an empty line is
    /// the bare prefix.
    Lines(&'a str),
    /// A `/** ... */` block with ` * ` lines; `*/` inside is replaced by the
    /// given text so the comment cannot end early.
    Block(&'a str),
}

/// Accumulates generated source text.
#[derive(Clone, Debug)]
pub struct CodeWriter {
    out: String,
    unit: &'static str,
}

impl CodeWriter {
    /// An empty writer indenting by `unit` per level.
    pub fn new(unit: &'static str) -> CodeWriter {
        CodeWriter {
            out: String::new(),
            unit,
        }
    }

    /// `text` on its own line at indentation level `indent`.
    pub fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str(self.unit);
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// An empty line.
    pub fn blank(&mut self) {
        self.out.push('\n');
    }

    /// Text as it is (it carries its own newlines and indentation).
    pub fn raw(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// `open`, the body one level deeper, then `close`, at level `indent`.
    pub fn block(
        &mut self,
        indent: usize,
        open: &str,
        close: &str,
        body: impl FnOnce(&mut CodeWriter),
    ) {
        self.line(indent, open);
        body(self);
        self.line(indent, close);
    }

    /// A doc comment of `lines` at level `indent` (nothing for no lines).
    pub fn doc(&mut self, indent: usize, style: DocStyle<'_>, lines: &[String]) {
        if lines.is_empty() {
            return;
        }
        match style {
            DocStyle::Lines(prefix) => {
                for l in lines {
                    if l.is_empty() {
                        self.line(indent, prefix);
                    } else {
                        self.line(indent, &format!("{prefix} {l}"));
                    }
                }
            }
            DocStyle::Block(end) => {
                self.line(indent, "/**");
                for l in lines {
                    let l = l.replace("*/", end);
                    if l.is_empty() {
                        self.line(indent, " *");
                    } else {
                        self.line(indent, &format!(" * {l}"));
                    }
                }
                self.line(indent, " */");
            }
        }
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        &self.out
    }

    /// The text.
    pub fn finish(self) -> String {
        self.out
    }
}

impl fmt::Write for CodeWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.push_str(s);
        Ok(())
    }
}
