//! Generates every coder the benchmark compares, into `$OUT_DIR`:
//!
//! - `flexbuf/<fixture>.rs`: flexbuf's generated Rust coders, from
//!   `conformance/schemas/<fixture>.fxs`;
//! - `proto/<fixture>.rs`: prost messages, from `proto/<fixture>.proto`
//!   (needs `protoc`), with a serde `Deserialize` derive so the fixture JSON
//!   loads straight into them (unknown keys are an error, which catches a
//!   field missing from a `.proto`);
//! - `fbs/<fixture>_generated.rs`: FlatBuffers tables and their object API,
//!   from `fbs/<fixture>.fbs` (needs `flatc`).

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
    if let Err(e) = flexbuf_codegen::build::compile_rust_to(&schemas, &flexbuf_out, true) {
        panic!("flexbuf schema generation failed:\n{e}");
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
