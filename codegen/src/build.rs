//! A `build.rs` helper in the style of `prost-build`.
//!
//! In `build.rs` (with `flexbuf-codegen` as a build dependency):
//!
//! ```no_run
//! flexbuf_codegen::build::compile_rust(&["schemas/shop.fxs"]).unwrap();
//! ```
//!
//! and in the crate: `include!(concat!(env!("OUT_DIR"), "/shop.rs"));`.

use std::path::{Path, PathBuf};

/// Generates Rust for each schema into `$OUT_DIR/<file stem>.rs`, and tells
/// cargo to rerun when any schema (or an import) changes.
///
/// Errors carry the schema diagnostics (`file:line:col: error: ...`).
pub fn compile_rust(schemas: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, String> {
    let out_dir = std::env::var_os("OUT_DIR")
        .ok_or("OUT_DIR is not set: call compile_rust from a build script")?;
    compile_rust_to(schemas, Path::new(&out_dir), true)
}

/// Like [`compile_rust`], into an explicit directory; `cargo_hints` prints
/// `cargo:rerun-if-changed` lines.
pub fn compile_rust_to(
    schemas: &[impl AsRef<Path>],
    out_dir: &Path,
    cargo_hints: bool,
) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for schema in schemas {
        written.extend(crate::generate_to_dir_with(
            &crate::backend::rust::Rust,
            schema.as_ref(),
            out_dir,
            |parsed| {
                if cargo_hints {
                    for f in &parsed.files {
                        println!("cargo:rerun-if-changed={}", f.path.display());
                    }
                }
            },
        )?);
    }
    Ok(written)
}
