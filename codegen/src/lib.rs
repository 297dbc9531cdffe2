//! # flexbuf-codegen
//!
//! The `.fxs` schema language (see `docs/schema.md`): a parser that turns a
//! schema file and its imports into the [`flexbuf::schema`] model, with
//! precise `file:line:column` diagnostics, and one code generator per
//! language built on it.
//!
//! Generation runs in three steps: [`plan::Plan`] computes every
//! language-neutral fact once; [`names::check`] checks the names the chosen
//! [`Backend`] gives every declaration; the backend emits text from the plan.
//! [`backend::BACKENDS`] lists the backends, and every caller (`flexbuf gen
//! --lang`, [`build::compile_rust`], the SDK builds) goes through it.
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
//!
//! let rust = flexbuf_codegen::backend::find("rust").unwrap();
//! let files = flexbuf_codegen::generate(rust, &parsed).unwrap();
//! assert_eq!(files[0].path, std::path::PathBuf::from("point.rs"));
//! ```

#![deny(missing_docs)]

mod check;
pub mod diag;
mod load;
mod parse;
mod source;

pub mod backend;
pub mod build;
pub mod names;
pub mod plan;
pub mod request;
pub mod writer;

pub use backend::{Backend, GeneratedFile};
pub use diag::{Diagnostic, Diagnostics};
pub use load::{parse_file, parse_str, parse_with_loader, read_schema_file, MAX_SCHEMA_BYTES};
pub use source::{ParsedSchema, Position, SourceFile};

use std::path::{Path, PathBuf};

/// Generates the files of `backend` from a parsed schema; the root schema
/// file's stem names the output. Name clashes are reported at their
/// declarations.
pub fn generate(
    backend: &dyn Backend,
    parsed: &ParsedSchema,
) -> Result<Vec<GeneratedFile>, Diagnostics> {
    let at_root = |e: String| Diagnostics::from(parsed.diagnostic_at("", "", e));
    let plan = plan::Plan::new(parsed).map_err(at_root)?;
    names::check(backend, &plan)?;
    backend.emit(&plan).map_err(at_root)
}

/// Parses `schema`, generates `backend`'s files and writes them under
/// `out_dir`; returns the paths written. Errors are printable diagnostics.
pub fn generate_to_dir(
    backend: &dyn Backend,
    schema: &Path,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    generate_to_dir_with(backend, schema, out_dir, |_| {})
}

/// [`generate_to_dir`], calling `parsed` with the parsed schema first (to
/// list its files, for example).
pub(crate) fn generate_to_dir_with(
    backend: &dyn Backend,
    schema: &Path,
    out_dir: &Path,
    parsed: impl FnOnce(&ParsedSchema),
) -> Result<Vec<PathBuf>, String> {
    let p = parse_file(schema).map_err(|d| d.to_string())?;
    parsed(&p);
    let files = generate(backend, &p).map_err(|d| d.to_string())?;
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
