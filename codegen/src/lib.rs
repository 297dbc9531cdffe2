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

pub use diag::{Diagnostic, Diagnostics};
pub use parse::{parse_file, parse_str, parse_with_loader, ParsedSchema, SourceFile};
pub mod backend;
pub mod build;
