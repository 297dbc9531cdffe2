//! Naming across backends: clashes are reported at their declaration with a
//! `file:line:col`, names that a language cannot use are mangled rather
//! than refused, and the defects found in review stay fixed.

use flexbuf_codegen::backend::{find, BACKENDS};
use flexbuf_codegen::{generate, parse_str, GeneratedFile};

fn gen(lang: &str, text: &str) -> Result<Vec<GeneratedFile>, String> {
    let parsed = parse_str("t.fxs", text).map_err(|d| d.to_string())?;
    generate(find(lang).expect("a backend"), &parsed).map_err(|d| d.to_string())
}

fn source(lang: &str, text: &str) -> String {
    gen(lang, text)
        .unwrap_or_else(|e| panic!("{lang}: {e}"))
        .into_iter()
        .map(|f| f.contents)
        .collect()
}

#[test]
fn a_field_clash_is_reported_at_the_later_field() {
    let err = gen(
        "kotlin",
        "namespace n;\nmessage M {\n  a_b: i32;\n  aB: i32;\n}\n",
    )
    .unwrap_err();
    assert_eq!(
        err,
        "t.fxs:4:3: error: fields `a_b` and `aB` of `n.M` are both `aB` in the kotlin output\n\
         hint: rename one of the fields (set `wire_name` to keep the wire format)"
    );
    // Rust and Python convert to snake case, where the same two collide too.
    let err = gen("rust", "namespace n;\nmessage M { aB: i32; a_b: i32; }\n").unwrap_err();
    assert!(
        err.starts_with("t.fxs:2:22: error: fields `aB` and `a_b`"),
        "{err}"
    );
}

#[test]
fn a_type_clash_with_a_generated_companion_is_reported_at_the_type() {
    let err = gen(
        "python",
        "namespace n;\nunion Shape { A: string }\nmessage ShapeA { x: i32; }\n",
    )
    .unwrap_err();
    assert!(
        err.starts_with("t.fxs:3:9: error: types `n.Shape` and `n.ShapeA` both declare `ShapeA`"),
        "{err}"
    );
    let err = gen(
        "rust",
        "namespace n;\nmessage P { x: i32; }\nmessage PView { y: i32; }\n",
    )
    .unwrap_err();
    assert!(err.starts_with("t.fxs:3:9: error:"), "{err}");
}

/// Review defect: fields `read` and `readField` made the TypeScript view
/// declare `readField` three times.
#[test]
fn view_accessors_never_collide_with_the_view_or_each_other() {
    let ts = source(
        "ts",
        "namespace n;\nmessage M { read: i32; readField: i32; }\n",
    );
    let getters: Vec<&str> = ts
        .lines()
        .filter_map(|l| l.trim().strip_prefix("get "))
        .collect();
    assert_eq!(
        getters,
        [
            "readFieldField(): number {",
            "readFieldFieldField(): number {"
        ]
    );
    assert_eq!(ts.matches("  readField<V>(").count(), 1);
}

#[test]
fn names_a_language_cannot_use_are_mangled_not_refused() {
    let text = "namespace n;\nmessage String { self: i32; type: string; readField: i32; }\n";
    for backend in BACKENDS {
        assert!(gen(backend.name(), text).is_ok(), "{}", backend.name());
    }
    let rust = source("rust", text);
    assert!(rust.contains("pub struct String {"), "{rust}");
    assert!(
        rust.contains("pub r#type: ::std::string::String,"),
        "{rust}"
    );
    assert!(rust.contains("pub self_: i32,"), "{rust}");
    assert!(rust.contains("pub read_field: i32,"), "{rust}");
    // The wire names stay as written.
    assert!(
        rust.contains("&[\"readField\", \"self\", \"type\"]"),
        "{rust}"
    );
    let py = source("python", text);
    assert!(
        py.contains("__slots__ = (\"read_field\", \"self_\", \"type\")"),
        "{py}"
    );
}
