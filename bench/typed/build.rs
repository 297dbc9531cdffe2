//! Generates every coder the benchmark compares, into `$OUT_DIR`:
//!
//! - `flexbuf/<fixture>.rs`: flexbuf's generated Rust coders, from
//!   `conformance/schemas/<fixture>.fxs` (and `flexbuf/records.rs`, from
//!   `bench/datasets/records.fxs`);
//! - `proto/<fixture>.rs`: prost messages, from `proto/<fixture>.proto`
//!   (needs `protoc`), with a serde `Deserialize` derive so the fixture JSON
//!   loads straight into them (unknown keys are an error, which catches a
//!   field missing from a `.proto`);
//! - `fbs/<fixture>_generated.rs`: FlatBuffers tables and their object API,
//!   from `fbs/<fixture>.fbs` (needs `flatc`);
//! - `serde_ref/<fixture>.rs`: serde structs of the same schema whose strings
//!   and map keys borrow from the input (`&'a str`, `#[serde(borrow)]`), the
//!   peer of the generated `Ref` types in `rmp_serde`'s borrowed decode.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Fixtures compared, by file stem (the same in every schema directory).
const FIXTURES: [&str; 10] = [
    "user_profile",
    "api_response",
    "time_series",
    "chat_thread",
    "unicode_heavy",
    "string_flood",
    "wide_map",
    "metrics_96k",
    "repeated_maps",
    "width_bomb",
];

/// JSON keys that are not identifiers, mapped onto proto fields by serde renames.
const PROTO_RENAMES: [(&str, &str); 10] = [
    ("unicode_heavy.UnicodeHeavy.chinese", "中文"),
    ("unicode_heavy.UnicodeHeavy.japanese", "日本語"),
    ("unicode_heavy.UnicodeHeavy.korean", "한국어"),
    ("unicode_heavy.UnicodeHeavy.russian", "Русский"),
    ("unicode_heavy.UnicodeHeavy.greek", "Ελληνικά"),
    ("unicode_heavy.UnicodeHeavy.arabic", "العربية"),
    ("unicode_heavy.UnicodeHeavy.hebrew", "עברית"),
    ("unicode_heavy.UnicodeHeavy.hindi", "हिन्दी"),
    ("unicode_heavy.UnicodeHeavy.thai", "ไทย"),
    ("unicode_heavy.UnicodeHeavy.mixed", "混合/смешанный/مختلط"),
];

fn main() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let files = |dir: &Path, ext: &str| -> Vec<PathBuf> {
        FIXTURES
            .iter()
            .map(|f| dir.join(format!("{f}.{ext}")))
            .collect()
    };

    let flexbuf_out = out.join("flexbuf");
    std::fs::create_dir_all(&flexbuf_out).expect("create OUT_DIR/flexbuf");
    let schemas = files(&here.join("../../conformance/schemas"), "fxs");
    // The record collections of the SDKs' record benchmarks, for
    // `examples/records.rs`.
    let records = here.join("../datasets/records.fxs");
    let mut all = schemas.clone();
    all.push(records);
    if let Err(e) = flexbuf_codegen::build::compile_rust_to(&all, &flexbuf_out, true) {
        panic!("flexbuf schema generation failed:\n{e}");
    }

    let serde_out = out.join("serde_ref");
    std::fs::create_dir_all(&serde_out).expect("create OUT_DIR/serde_ref");
    for (stem, schema) in FIXTURES.iter().zip(&schemas) {
        let parsed = flexbuf_codegen::parse_file(schema)
            .unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
        let plan = flexbuf_codegen::plan::Plan::new(&parsed)
            .unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
        std::fs::write(serde_out.join(format!("{stem}.rs")), serde_borrowed(&plan))
            .expect("write OUT_DIR/serde_ref");
    }

    let proto_dir = here.join("proto");
    let protos = files(&proto_dir, "proto");
    println!("cargo:rerun-if-changed={}", proto_dir.display());
    let protoc = std::env::var("PROTOC").unwrap_or_else(|_| "protoc".into());
    require_tool(
        &protoc,
        "protoc",
        "apt-get install -y protobuf-compiler (or set PROTOC)",
    );
    let proto_out = out.join("proto");
    std::fs::create_dir_all(&proto_out).expect("create OUT_DIR/proto");
    let mut config = prost_build::Config::new();
    config.out_dir(&proto_out).btree_map(["."]).type_attribute(
        ".",
        "#[derive(serde::Deserialize)] #[serde(default, deny_unknown_fields)]",
    );
    for (field, key) in PROTO_RENAMES {
        config.field_attribute(field, format!("#[serde(rename = \"{key}\")]"));
    }
    if let Err(e) = config.compile_protos(&protos, &[&proto_dir]) {
        panic!("prost generation failed:\n{e}");
    }

    let fbs_dir = here.join("fbs");
    let fbs = files(&fbs_dir, "fbs");
    println!("cargo:rerun-if-changed={}", fbs_dir.display());
    require_tool(
        "flatc",
        "flatc",
        "apt-get install -y flatbuffers-compiler (version 2.0.x, matching the flatbuffers crate)",
    );
    let fbs_out = out.join("fbs");
    let status = Command::new("flatc")
        .args(["--rust", "--gen-object-api", "-o"])
        .arg(&fbs_out)
        .args(&fbs)
        .status()
        .expect("run flatc");
    assert!(status.success(), "flatc --rust failed ({status})");
}

/// Panics with an install hint when `program --version` does not run.
fn require_tool(program: &str, name: &str, install: &str) {
    let ok = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        panic!("`{name}` was not found ({program}); install it: {install}");
    }
}

/// Serde structs of every message of `plan`, field for field in declaration
/// order (so they read what `rmp_serde` writes for the `model` structs, which
/// serializes structs as arrays), each with a lifetime `'a` that strings,
/// map keys and nested messages borrow.
fn serde_borrowed(plan: &flexbuf_codegen::plan::Plan<'_>) -> String {
    use flexbuf_codegen::Backend;
    let rust = flexbuf_codegen::backend::rust::Rust;
    let mut out = String::from("// @generated by bench/typed/build.rs\n");
    for m in &plan.messages {
        let name = rust.type_name(&m.def.name);
        out.push_str("#[derive(Debug, serde::Serialize, serde::Deserialize)]\n");
        out.push_str(&format!("pub struct {name}<'a> {{\n"));
        let mut borrows = false;
        for f in &m.fields {
            let mut ty = serde_type(&rust, &f.def.ty);
            if f.recursive {
                ty = format!("Box<{ty}>");
            }
            if f.def.optional {
                ty = format!("Option<{ty}>");
            }
            if ty.contains("'a") {
                borrows = true;
                out.push_str("    #[serde(borrow)]\n");
            }
            out.push_str(&format!(
                "    #[serde(rename = {:?})]\n    pub {}: {ty},\n",
                f.def.wire_name,
                rust.field_name(&f.def.name)
            ));
        }
        if !borrows {
            out.push_str("    #[serde(skip)]\n    _borrows: std::marker::PhantomData<&'a ()>,\n");
        }
        out.push_str("}\n\n");
    }
    out
}

/// The field type of `t` in [`serde_borrowed`]'s structs.
fn serde_type(rust: &flexbuf_codegen::backend::rust::Rust, t: &flexbuf::schema::TypeRef) -> String {
    use flexbuf::schema::TypeRef;
    use flexbuf_codegen::Backend;
    match t {
        TypeRef::String => "&'a str".into(),
        TypeRef::Vector(e) => format!("Vec<{}>", serde_type(rust, e)),
        TypeRef::Array(e, n) => format!("[{}; {n}]", serde_type(rust, e)),
        TypeRef::Map(v) => format!(
            "std::collections::BTreeMap<&'a str, {}>",
            serde_type(rust, v)
        ),
        TypeRef::Message(n) => format!("{}<'a>", rust.type_name(n)),
        TypeRef::Bytes | TypeRef::Enum(_) | TypeRef::Union(_) => {
            panic!("the benchmark's borrowed serde peers do not model {t:?} (no fixture uses it)")
        }
        scalar => flexbuf_codegen::backend::rust::scalar_name(scalar)
            .expect("every other type is matched above")
            .to_string(),
    }
}
