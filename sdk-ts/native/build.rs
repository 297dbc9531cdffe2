//! Generates the Rust typed coders of every conformance schema for the
//! `flexbuf-ts-tool` binary, which writes their bytes as the reference the
//! TypeScript generated encoders are compared with.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("conformance/schemas");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut schemas: Vec<_> = std::fs::read_dir(&dir)
        .expect("conformance/schemas")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fxs"))
        .collect();
    schemas.sort();
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    flexbuf_codegen::build::compile_rust(&schemas).expect("schema generation");
    // One module per schema, and a table of (fixture name, root message) below.
    let mut modules = String::new();
    for s in &schemas {
        let stem = s.file_stem().and_then(|x| x.to_str()).expect("stem");
        modules.push_str(&format!(
            "#[allow(dead_code, clippy::all)]\npub mod {stem} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{stem}.rs\")); }}\n"
        ));
    }
    std::fs::write(Path::new(&out).join("fixture_modules.rs"), modules).expect("write modules");
}
