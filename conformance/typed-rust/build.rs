//! Generates Rust coders for every schema the conformance suite uses.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut schemas = Vec::new();
    for dir in ["conformance/schemas", "conformance/typed/schemas"] {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .expect("schema dir")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        schemas.extend(
            entries
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "fxs")),
        );
    }
    schemas.push(root.join("codegen/tests/schemas/shop.fxs"));
    schemas.push(root.join("codegen/tests/schemas/keywords.fxs"));
    if let Err(e) = flexbuf_codegen::build::compile_rust(&schemas) {
        panic!("schema generation failed:\n{e}");
    }
}
