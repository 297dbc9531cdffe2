//! Code generators, one module per target language.

pub mod kotlin;
pub mod python;
pub mod rust;
pub mod typescript;

use std::path::PathBuf;

/// One file a backend produces, with its path relative to the output directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Where to write it, relative to the output directory.
    pub path: PathBuf,
    /// Its contents.
    pub contents: String,
}

/// The file stem of the root schema (`shop` for `schemas/shop.fxs`), which
/// names the generated output.
pub(crate) fn root_stem(parsed: &crate::ParsedSchema) -> Result<&str, String> {
    let root = parsed.root();
    root.path
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{}: not a schema file name", root.path.display()))
}

/// Escapes `s` as the body of a double-quoted string literal in C-like languages.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
