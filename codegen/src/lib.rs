//! # flexbuf-codegen
//!
//! The `.fxs` schema language (see `docs/schema.md`): a parser that turns a
//! schema file and its imports into the [`flexbuf::schema`] model, with
//! precise `file:line:column` diagnostics. Code generators for each language
//! build on the parsed model.
//!
//! ```
//! let parsed = flexbuf_codegen::parse_str(
//!     "point.fxs",
//!     "namespace geo;\n/// A point.\nmessage Point { x: f64; y: f64; label: string? = null; }",
//! )
//! .unwrap();
//! let point = parsed.schema.message("geo.Point").unwrap();
//! assert_eq!(point.doc, vec!["A point.".to_string()]);
//! assert!(parsed.schema.fingerprint("geo.Point").is_some());
//! ```

#![deny(missing_docs)]

mod check;
pub mod diag;
pub mod parse;

pub mod backend;
pub mod build;

pub use backend::GeneratedFile;
pub use diag::{Diagnostic, Diagnostics};
pub use parse::{parse_file, parse_str, parse_with_loader, ParsedSchema, SourceFile};

use std::path::{Path, PathBuf};

/// A language the generators target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// Rust structs implementing `flexbuf::FlexCoder`.
    Rust,
    /// A Python module of classes decoded and encoded by the native core.
    Python,
    /// A TypeScript module of interfaces, encode/decode functions and views.
    TypeScript,
    /// Kotlin data classes and `XxxFlexCoder` objects, one file per namespace.
    Kotlin,
}

/// Generates the files for `lang` from a parsed schema; the root schema
/// file's stem names the output.
pub fn generate(lang: Language, parsed: &ParsedSchema) -> Result<Vec<GeneratedFile>, String> {
    match lang {
        Language::Rust => Ok(vec![GeneratedFile {
            path: PathBuf::from(format!("{}.rs", backend::root_stem(parsed)?)),
            contents: backend::rust::generate(&parsed.schema)?,
        }]),
        Language::Python => backend::python::generate(parsed),
        Language::TypeScript => backend::typescript::generate(parsed),
        Language::Kotlin => backend::kotlin::generate(parsed),
    }
}

/// Parses `schema` and writes the generated files for `lang` under `out_dir`;
/// returns the paths written. Errors are printable diagnostics.
pub fn generate_to_dir(
    lang: Language,
    schema: &Path,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    let parsed = parse_file(schema).map_err(|d| d.to_string())?;
    let files = generate(lang, &parsed).map_err(|e| format!("{}: error: {e}", schema.display()))?;
    let mut written = Vec::new();
    for f in files {
        let path = out_dir.join(&f.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, f.contents).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
