//! The `.fxs` parser: the documented example, every error with its exact
//! location, imports, fingerprints, and the conformance fixture schemas.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use flexbuf::schema::{DefaultValue, EnumVariant, Field, Schema, TypeRef, UnionVariant};
use flexbuf::{FlexType, Reader};
use flexbuf_codegen::{parse_file, parse_str, parse_with_loader, Diagnostics, ParsedSchema};

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas")
}

fn no_files(path: &Path) -> io::Result<String> {
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!("no file {}", path.display()),
    ))
}

/// Parses `text` as `t.fxs`, without imports.
fn parse(text: &str) -> Result<ParsedSchema, Diagnostics> {
    parse_with_loader("t.fxs", text, &no_files)
}

fn errors(text: &str) -> Diagnostics {
    match parse(text) {
        Ok(_) => panic!("expected errors for:\n{text}"),
        Err(d) => d,
    }
}

/// Asserts that `text` fails with exactly one error, rendered as `expected`
/// (`t.fxs:line:col: error: message`, plus `\nhint: ...` when given).
#[track_caller]
fn assert_error(text: &str, expected: &str) {
    let d = errors(text);
    assert_eq!(d.to_string(), expected, "all diagnostics: {d:?}");
}

fn field<'a>(schema: &'a Schema, message: &str, name: &str) -> &'a Field {
    let m = schema
        .message(message)
        .unwrap_or_else(|| panic!("no message {message}"));
    m.fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {message}.{name}"))
}

// ---------------------------------------------------------------------------
// The example of docs/schema.md
// ---------------------------------------------------------------------------

#[test]
fn documented_example_parses_into_the_expected_model() {
    let parsed = parse_file(&schemas_dir().join("shop.fxs")).unwrap();
    let s = &parsed.schema;

    // Files: the import first, the root last.
    assert_eq!(parsed.files.len(), 2);
    assert_eq!(parsed.root_file, 1);
    let common = &parsed.files[0];
    assert_eq!(common.path, schemas_dir().join("common.fxs"));
    assert_eq!(common.namespace.as_deref(), Some("common"));
    assert_eq!(
        common.types,
        vec!["common.Geo".to_string(), "common.Image".to_string()]
    );
    assert!(common.imports.is_empty());
    let root = parsed.root();
    assert_eq!(root.path, schemas_dir().join("shop.fxs"));
    assert_eq!(root.namespace.as_deref(), Some("acme.shop"));
    assert_eq!(root.imports, vec![0]);
    assert_eq!(
        root.types,
        vec![
            "acme.shop.Address".to_string(),
            "acme.shop.Color".to_string(),
            "acme.shop.Payload".to_string()
        ]
    );
    assert_eq!(parsed.file_of("common.Image").unwrap().path, common.path);

    let names: Vec<&str> = s.messages.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["common.Geo", "common.Image", "acme.shop.Address"]);

    let address = s.message("acme.shop.Address").unwrap();
    // The doc comment above `namespace` attaches to nothing.
    assert_eq!(address.doc, vec!["A postal address.".to_string()]);
    assert_eq!(
        address.reserved,
        vec!["old".to_string(), "older".to_string()]
    );
    let declared: Vec<&str> = address.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        declared,
        [
            "street",
            "zip",
            "city",
            "note",
            "floor",
            "geo",
            "tags",
            "attrs",
            "legacy_code",
            "display"
        ]
    );

    let plain = |name: &str, ty: TypeRef| Field {
        name: name.into(),
        wire_name: name.into(),
        ty,
        optional: false,
        required: false,
        deprecated: false,
        default: None,
        doc: vec![],
    };
    assert_eq!(
        address.fields[0],
        Field {
            required: true,
            ..plain("street", TypeRef::String)
        }
    );
    assert_eq!(address.fields[1], plain("zip", TypeRef::String));
    assert_eq!(
        address.fields[2],
        Field {
            default: Some(DefaultValue::String("Springfield".into())),
            ..plain("city", TypeRef::String)
        }
    );
    assert_eq!(
        address.fields[3],
        Field {
            optional: true,
            doc: vec!["Explicit null and absence stay distinct.".into()],
            ..plain("note", TypeRef::String)
        }
    );
    assert_eq!(
        address.fields[4],
        Field {
            optional: true,
            default: Some(DefaultValue::Int(0)),
            ..plain("floor", TypeRef::I32)
        }
    );
    assert_eq!(
        address.fields[5],
        Field {
            optional: true,
            ..plain("geo", TypeRef::Message("common.Geo".into()))
        }
    );
    assert_eq!(
        address.fields[6],
        plain("tags", TypeRef::Vector(Box::new(TypeRef::String)))
    );
    assert_eq!(
        address.fields[7],
        plain("attrs", TypeRef::Map(Box::new(TypeRef::I64)))
    );
    assert_eq!(
        address.fields[8],
        Field {
            deprecated: true,
            ..plain("legacy_code", TypeRef::I32)
        }
    );
    assert_eq!(
        address.fields[9],
        Field {
            wire_name: "displayName".into(),
            ..plain("display", TypeRef::String)
        }
    );

    // Wire order: non-deprecated fields by wire name, unsigned bytes ("D" < "f").
    let wire: Vec<&str> = address
        .wire_fields()
        .iter()
        .map(|f| f.wire_name.as_str())
        .collect();
    assert_eq!(
        wire,
        [
            "attrs",
            "city",
            "displayName",
            "floor",
            "geo",
            "note",
            "street",
            "tags",
            "zip"
        ]
    );

    let color = s.enum_def("acme.shop.Color").unwrap();
    assert_eq!(color.repr, TypeRef::U8);
    let variant = |name: &str, value: i64| EnumVariant {
        name: name.into(),
        value,
        doc: vec![],
    };
    assert_eq!(
        color.variants,
        vec![variant("Red", 1), variant("Green", 2), variant("Blue", 4)]
    );

    let payload = s.union_def("acme.shop.Payload").unwrap();
    let uv = |name: &str, wire: &str, ty: TypeRef| UnionVariant {
        name: name.into(),
        wire_name: wire.into(),
        ty,
        doc: vec![],
    };
    assert_eq!(
        payload.variants,
        vec![
            uv("Text", "Text", TypeRef::String),
            uv("Image", "Image", TypeRef::Message("common.Image".into())),
            uv("Ref", "ref", TypeRef::Message("acme.shop.Address".into())),
        ]
    );

    let image = s.message("common.Image").unwrap();
    assert_eq!(image.doc, vec!["An image by URL.".to_string()]);
    assert!(field(s, "common.Image", "url").required);
    assert!(field(s, "common.Image", "alt").optional);
    assert!(s.fingerprint("acme.shop.Address").is_some());
}

/// A fresh directory under the system's temporary directory.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flexbuf-codegen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn imports_of_what_is_not_a_small_regular_file_fail_at_once() {
    let dir = scratch_dir("imports");
    std::fs::create_dir_all(dir.join("folder.fxs")).unwrap();
    // Sparse: one byte past the limit costs no disk.
    let big = std::fs::File::create(dir.join("big.fxs")).unwrap();
    big.set_len(flexbuf_codegen::MAX_SCHEMA_BYTES + 1).unwrap();
    let mut cases = vec![
        ("folder.fxs", "not a regular file"),
        ("big.fxs", "larger than 16 MiB"),
    ];
    // A device that never ends: read whole, it would fill memory.
    if Path::new("/dev/zero").exists() {
        cases.push(("/dev/zero", "not a regular file"));
    }
    // A pipe without a writer: opening it would wait for one.
    #[cfg(unix)]
    if std::process::Command::new("mkfifo")
        .arg(dir.join("pipe.fxs"))
        .status()
        .is_ok_and(|s| s.success())
    {
        cases.push(("pipe.fxs", "not a regular file"));
    }
    for (import, why) in cases {
        let text = format!("namespace a;\nimport \"{import}\";\nmessage M {{ x: i32; }}\n");
        let root = dir.join("a.fxs");
        std::fs::write(&root, &text).unwrap();
        for result in [parse_file(&root), parse_str(&root, &text)] {
            let d = result.expect_err(import).to_string();
            assert!(
                d.contains("cannot read imported file") && d.contains(why),
                "{import}: {d}"
            );
        }
    }
    // The root file itself is checked the same way.
    let d = parse_file(&dir.join("folder.fxs")).unwrap_err().to_string();
    assert!(d.contains("not a regular file"), "{d}");
    // An ordinary file is read whole.
    let small = flexbuf_codegen::read_schema_file(&{
        let p = dir.join("limit.fxs");
        std::fs::write(&p, " ".repeat(1 << 10)).unwrap();
        p
    });
    assert_eq!(small.unwrap().len(), 1 << 10);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parse_str_reads_imports_relative_to_the_named_file() {
    let path = schemas_dir().join("shop.fxs");
    let text = std::fs::read_to_string(&path).unwrap();
    let from_str = parse_str(&path, &text).unwrap();
    assert_eq!(from_str, parse_file(&path).unwrap());
}

#[test]
fn file_without_namespace_gives_unqualified_names() {
    let parsed = parse(
        "message Point { x: f64; next: Point?; }\nenum Kind : i8 { A = -1 }\nunion U { P: Point }",
    )
    .unwrap();
    assert_eq!(parsed.root().namespace, None);
    assert_eq!(
        parsed.root().types,
        vec!["Point".to_string(), "Kind".to_string(), "U".to_string()]
    );
    assert_eq!(
        field(&parsed.schema, "Point", "next").ty,
        TypeRef::Message("Point".into())
    );
    assert_eq!(
        parsed.schema.union_def("U").unwrap().variants[0].ty,
        TypeRef::Message("Point".into())
    );
}

#[test]
fn doc_comments_attach_to_enums_variants_unions_and_their_variants() {
    let text = "namespace d;\n\
        ///  Two spaces: one is kept.\n\
        /// Second line.\n\
        enum E : i32 {\n\
          /// first\n\
          A = 0,\n\
          B = 1, // not a doc\n\
          //// not a doc either\n\
          C = 2,\n\
        }\n\
        /// A union.\n\
        union U {\n\
          /// text\n\
          T: string,\n\
        }\n\
        message M {\n\
          /// ignored: reserved takes no docs\n\
          reserved \"r\";\n\
          /// x doc\n\
          x: i32;\n\
        }\n";
    let s = parse(text).unwrap().schema;
    let e = s.enum_def("d.E").unwrap();
    assert_eq!(
        e.doc,
        vec![
            " Two spaces: one is kept.".to_string(),
            "Second line.".to_string()
        ]
    );
    assert_eq!(e.variants[0].doc, vec!["first".to_string()]);
    assert!(e.variants[1].doc.is_empty());
    assert!(e.variants[2].doc.is_empty());
    let u = s.union_def("d.U").unwrap();
    assert_eq!(u.doc, vec!["A union.".to_string()]);
    assert_eq!(u.variants[0].doc, vec!["text".to_string()]);
    assert_eq!(field(&s, "d.M", "x").doc, vec!["x doc".to_string()]);
    assert!(s.message("d.M").unwrap().doc.is_empty());
}

#[test]
fn defaults_are_typed_and_range_checked_values() {
    let text = "namespace n;\n\
        enum Level : u8 { Low = 0, High = 9 }\n\
        message D {\n\
          a: i8 = -128;\n\
          b: u64 = 18446744073709551615;\n\
          c: i64 = -9223372036854775808;\n\
          d: u16 = 0xFFFF;\n\
          e: f32 = 1;\n\
          f: f64 = -2.5e-3;\n\
          g: f64 = -inf;\n\
          h: bool = true;\n\
          i: string = \"tab\\there \\u{1F600}\";\n\
          j: Level = High;\n\
          k: Level? = null;\n\
          l: [i32]? = null;\n\
          m: f64 = nan;\n\
          o: f32 = inf;\n\
        }\n";
    let s = parse(text).unwrap().schema;
    let default = |name: &str| field(&s, "n.D", name).default.clone().unwrap();
    assert_eq!(default("a"), DefaultValue::Int(-128));
    assert_eq!(default("b"), DefaultValue::UInt(u64::MAX));
    assert_eq!(default("c"), DefaultValue::Int(i64::MIN));
    assert_eq!(default("d"), DefaultValue::Int(65535));
    assert_eq!(default("e"), DefaultValue::Float(1.0));
    assert_eq!(default("f"), DefaultValue::Float(-0.0025));
    assert_eq!(default("g"), DefaultValue::Float(f64::NEG_INFINITY));
    assert_eq!(default("h"), DefaultValue::Bool(true));
    assert_eq!(
        default("i"),
        DefaultValue::String("tab\there \u{1F600}".into())
    );
    assert_eq!(default("j"), DefaultValue::EnumVariant("High".into()));
    assert_eq!(default("k"), DefaultValue::Null);
    assert_eq!(default("l"), DefaultValue::Null);
    assert!(matches!(default("m"), DefaultValue::Float(v) if v.is_nan()));
    assert_eq!(default("o"), DefaultValue::Float(f64::INFINITY));
}

#[test]
fn recursion_through_optional_vector_or_map_is_allowed() {
    let text = "namespace r;\n\
        message Tree { label: string; children: [Tree]; parent: Tree?; index: {string: Tree}; }\n\
        message A { b: B (required); }\n\
        message B { a: A?; }\n\
        union Node { Leaf: i32, Branch: Branching }\n\
        message Branching { node: Node (required); }\n";
    let s = parse(text).unwrap().schema;
    assert_eq!(s.messages.len(), 4);
    // The core's fingerprint terminates on them too.
    assert!(s.fingerprint("r.Tree").is_some());
    assert!(s.fingerprint("r.A").is_some());
}

// ---------------------------------------------------------------------------
// Errors, each at its exact place
// ---------------------------------------------------------------------------

#[test]
fn unknown_type_suggests_the_closest_visible_name() {
    assert_error(
        "namespace shop;\nmessage Address { street: string; }\nmessage Order {\n  to: Adress?;\n}\n",
        "t.fxs:4:7: error: unknown type `Adress`\nhint: did you mean `Address`?",
    );
    assert_error(
        "message A { x: Zebra; }",
        "t.fxs:1:16: error: unknown type `Zebra`",
    );
    assert_error(
        "message A { x: double; }",
        "t.fxs:1:16: error: unknown type `double`\nhint: did you mean `f64`?",
    );
    // Types of other namespaces are suggested qualified.
    let loader = |p: &Path| match p.to_str() {
        Some("common.fxs") => Ok("namespace common; message Geo { lat: f64; }".to_string()),
        _ => no_files(p),
    };
    let err = parse_with_loader(
        "t.fxs",
        "namespace app;\nimport \"common.fxs\";\nmessage P { g: comon.Geo?; }",
        &loader,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.fxs:3:16: error: unknown type `comon.Geo`\nhint: did you mean `common.Geo`?"
    );
}

#[test]
fn enum_variant_used_as_a_type_is_reported() {
    assert_error(
        "namespace e;\nenum Color : u8 { Red = 1 }\nmessage M { c: Red; }",
        "t.fxs:3:16: error: `Red` is a variant of enum `Color`, not a type\nhint: use the enum type `Color` (and `= Red` as a default)",
    );
}

#[test]
fn duplicates_are_reported_where_they_repeat() {
    assert_error(
        "namespace d;\nmessage A { x: i32; }\nenum A : u8 { X = 0 }",
        "t.fxs:3:6: error: duplicate type `d.A`\nhint: `d.A` is first declared at t.fxs:2:9",
    );
    assert_error(
        "message M {\n  x: i32;\n  y: i32;\n  x: string;\n}",
        "t.fxs:4:3: error: duplicate field `x` in message `M`\nhint: first declared at 2:3",
    );
    assert_error(
        "message M {\n  x: i32 (wire_name = \"k\");\n  k: i32;\n}",
        "t.fxs:3:3: error: duplicate wire name `k` in message `M`: field `x` already uses it\nhint: give one of them another (wire_name = \"...\")",
    );
    // A deprecated field keeps its wire name.
    assert_error(
        "message M {\n  old: i32 (deprecated);\n  new: i32 (wire_name = \"old\");\n}",
        "t.fxs:3:25: error: duplicate wire name `old` in message `M`: field `old` already uses it\nhint: give one of them another (wire_name = \"...\")",
    );
    assert_error(
        "enum E : u8 {\n  A = 1,\n  B = 2,\n  A = 3,\n}",
        "t.fxs:4:3: error: duplicate variant `A` in enum `E`\nhint: first declared at 2:3",
    );
    assert_error(
        "enum E : u8 { A = 1, B = 1 }",
        "t.fxs:1:26: error: duplicate value `1` in enum `E`: `A` already has it",
    );
    assert_error(
        "union U { A: string, B: i32, A: bool }",
        "t.fxs:1:30: error: duplicate variant `A` in union `U`\nhint: first declared at 1:11",
    );
    assert_error(
        "union U { A: string, B: i32 (wire_name = \"A\") }",
        "t.fxs:1:42: error: duplicate wire name `A` in union `U`: variant `A` already uses it\nhint: give one of them another (wire_name = \"...\")",
    );
}

#[test]
fn defaults_must_fit_their_type() {
    assert_error(
        "message M {\n  x: u8 = 300;\n}",
        "t.fxs:2:11: error: default value `300` is out of range for `u8` (0 to 255)",
    );
    assert_error(
        "message M { x: i8 = -129; }",
        "t.fxs:1:21: error: default value `-129` is out of range for `i8` (-128 to 127)",
    );
    assert_error(
        "message M { x: u32 = -1; }",
        "t.fxs:1:22: error: default value `-1` is out of range for `u32` (0 to 4294967295)",
    );
    assert_error(
        "message M {\n  s: string = 5;\n}",
        "t.fxs:2:15: error: default value for `s: string` must be a string, found integer `5`\nhint: write it in quotes: `\"5\"`",
    );
    assert_error(
        "message M {\n  f: i32 = 1.5;\n}",
        "t.fxs:2:12: error: default value for `f: i32` must be an integer, found float `1.5`\nhint: `i32` takes an integer default; use `f32` or `f64` for fractions",
    );
    assert_error("message M { b: bool = 1; }", "t.fxs:1:23: error: default value for `b: bool` must be `true` or `false`, found integer `1`");
    assert_error(
        "message M { f: f32 = 1e39; }",
        "t.fxs:1:22: error: default value float `1e39` is out of range for `f32`\nhint: use `f64`",
    );
    assert_error(
        "enum Color : u8 { Red = 1, Green = 2 }\nmessage M {\n  c: Color = Gren;\n}",
        "t.fxs:3:14: error: enum `Color` has no variant `Gren`\nhint: did you mean `Green`?",
    );
    assert_error(
        "enum Color : u8 { Red = 1, Green = 2 }\nmessage M { c: Color = Purple; }",
        "t.fxs:2:24: error: enum `Color` has no variant `Purple`\nhint: its variants are Red, Green",
    );
    assert_error(
        "enum Color : u8 { Red = 1 }\nmessage M { c: Color = 1; }",
        "t.fxs:2:24: error: default value for `c: Color` must be a variant of enum `Color`, found integer `1`\nhint: write the variant name: `Red`",
    );
    assert_error(
        "message M {\n  n: i32 = null;\n}",
        "t.fxs:2:12: error: `null` default on non-optional field `n`\nhint: make it `i32?` to allow null",
    );
    assert_error(
        "message M { v: [i32] = 1; }",
        "t.fxs:1:24: error: vector fields cannot have a default value\nhint: absence already gives an empty vector; only `null` is allowed, on an optional field (`[i32]?`)",
    );
    assert_error(
        "message M { x: i32 = 1 (required); }",
        "t.fxs:1:22: error: required field `x` cannot have a default\nhint: absence of a required field is an error, so the default is never used: remove one of them",
    );
}

#[test]
fn reserved_names_cannot_be_used() {
    assert_error(
        "message M {\n  reserved \"old\", \"gone\";\n  gone: i32;\n}",
        "t.fxs:3:3: error: field name `gone` is reserved\nhint: `gone` is listed in `reserved` at 2:19; choose another name",
    );
    assert_error(
        "message M {\n  reserved \"old\";\n  fresh: i32 (wire_name = \"old\");\n}",
        "t.fxs:3:27: error: wire name `old` is reserved\nhint: `old` is listed in `reserved` at 2:12; choose another wire name",
    );
}

#[test]
fn unsupported_container_shapes_are_errors() {
    assert_error(
        "message M {\n  m: {i32: string};\n}",
        "t.fxs:2:7: error: map keys must be string\nhint: FlexBuffers map keys are strings: write `{string: string}` and convert the keys, or use a vector of entry messages",
    );
    assert_error(
        "message M {\n  v: [string?];\n}",
        "t.fxs:2:13: error: vectors of optional elements (`[T?]`) are not supported\nhint: use `[string]`, or a vector of messages with an optional field",
    );
    assert_error(
        "message M { m: {string: i32?}; }",
        "t.fxs:1:28: error: maps with optional values (`{string: T?}`) are not supported\nhint: use `{string: i32}` and leave the key out instead of storing null",
    );
}

#[test]
fn message_and_union_fields_must_be_optional_or_required() {
    assert_error(
        "namespace s;\nmessage Geo { lat: f64; }\nmessage P {\n  geo: Geo;\n}",
        "t.fxs:4:3: error: field `geo` of message type `Geo` has no default value\nhint: make it `Geo?` or mark it (required)",
    );
    assert_error(
        "union U { A: i32 }\nmessage P { u: U; }",
        "t.fxs:2:13: error: field `u` of union type `U` has no default value\nhint: make it `U?` or mark it (required)",
    );
    // Vectors of messages are fine: their zero is empty.
    assert!(parse("message G { x: i32; }\nmessage P { all: [G]; by_name: {string: G}; }").is_ok());
}

#[test]
fn required_and_deprecated_together_is_an_error() {
    assert_error(
        "message M {\n  x: i32 (required, deprecated);\n}",
        "t.fxs:2:21: error: field `x` cannot be both required and deprecated\nhint: a deprecated field is never read, so it cannot be required: drop `required`",
    );
}

#[test]
fn enum_representation_and_values_are_checked() {
    assert_error(
        "enum E : f32 { A = 0 }",
        "t.fxs:1:10: error: enum representation must be an integer type, found `f32`\nhint: use one of i8, i16, i32, i64, u8, u16, u32 or u64",
    );
    assert_error(
        "enum E : u8 {\n  A = 0,\n  B = 256,\n}",
        "t.fxs:3:7: error: value `256` is out of range for `u8` (0 to 255)\nhint: pick a value that fits, or a wider integer type",
    );
    assert_error(
        "enum E : i8 { A = -129 }",
        "t.fxs:1:19: error: value `-129` is out of range for `i8` (-128 to 127)\nhint: pick a value that fits, or a wider integer type",
    );
    assert_error(
        "enum E : u64 { A = 0xFFFFFFFFFFFFFFFF }",
        "t.fxs:1:20: error: enum values above 9223372036854775807 are not supported",
    );
    assert_error(
        "enum E { A = 0 }",
        "t.fxs:1:8: error: expected `:` and an integer type after the enum name, found `{`\nhint: write `enum E : i32 { ... }` (any integer type)",
    );
}

#[test]
fn wire_names_must_be_non_empty_and_free_of_nul() {
    assert_error(
        "message M {\n  x: i32 (wire_name = \"\");\n}",
        "t.fxs:2:23: error: wire name must not be empty",
    );
    assert_error(
        "message M { x: i32 (wire_name = \"a\\u{0}b\"); }",
        "t.fxs:1:33: error: wire name must not contain NUL\nhint: FlexBuffers keys are NUL-terminated",
    );
    assert_error(
        "union U { A: i32 (wire_name = \"\\u{0}\") }",
        "t.fxs:1:31: error: wire name must not contain NUL\nhint: FlexBuffers keys are NUL-terminated",
    );
}

#[test]
fn keywords_cannot_be_identifiers() {
    assert_error(
        "message M {\n  string: i32;\n}",
        "t.fxs:2:3: error: `string` is a keyword and cannot be used as a field name\nhint: rename the field and keep `string` on the wire with (wire_name = \"string\")",
    );
    assert_error(
        "message union { x: i32; }",
        "t.fxs:1:9: error: `union` is a keyword and cannot be used as a message name\nhint: choose another name than `union`",
    );
    assert_error(
        "enum E : u8 { null = 0 }",
        "t.fxs:1:15: error: `null` is a keyword and cannot be used as a variant name\nhint: choose another name than `null`",
    );
    assert_error(
        "namespace a.message;",
        "t.fxs:1:13: error: `message` is a keyword and cannot be used as a name after `.`\nhint: choose another name than `message`",
    );
    assert_error(
        "message M { inf: f64 = inf; }",
        "t.fxs:1:13: error: `inf` is a keyword and cannot be used as a field name\nhint: rename the field and keep `inf` on the wire with (wire_name = \"inf\")",
    );
    assert_error(
        "message M { café: i32; }",
        "t.fxs:1:16: error: unexpected character `é`\nhint: identifiers are ASCII letters, digits and `_`; other keys can be given with (wire_name = \"...\")",
    );
    // The keyword is only a problem as a name: as a wire name it is fine.
    let s = parse("message M { kind: string (wire_name = \"string\"); }")
        .unwrap()
        .schema;
    assert_eq!(field(&s, "M", "kind").wire_name, "string");
}

#[test]
fn unterminated_strings_and_comments() {
    assert_error(
        "message M {\n  x: string = \"abc;\n}",
        "t.fxs:2:15: error: unterminated string\nhint: close it with `\"` on the same line",
    );
    assert_error(
        "message M { x: i32; }\n/* started\n but never ended",
        "t.fxs:2:1: error: unterminated block comment\nhint: close it with `*/`",
    );
    assert_error("message M { x: string = \"\\q\"; }", "t.fxs:1:26: error: unknown escape `\\q`\nhint: the escapes are \\\" \\\\ \\n \\t \\r and \\u{XXXX}");
}

#[test]
fn unexpected_tokens_name_what_was_expected() {
    assert_error(
        "message M {\n  x: i32\n}",
        "t.fxs:3:1: error: expected `;`, found `}`",
    );
    assert_error(
        "message M { x i32; }",
        "t.fxs:1:15: error: expected `:`, found keyword `i32`",
    );
    assert_error(
        "message M { x: ; }",
        "t.fxs:1:16: error: expected a type, found `;`",
    );
    assert_error("message M { x: i32 (optional); }", "t.fxs:1:21: error: expected `required`, `deprecated`, `wire_name` or `ts_int64`, found identifier `optional`");
    assert_error(
        "struct M {}",
        "t.fxs:1:1: error: expected `message`, `enum` or `union`, found identifier `struct`",
    );
    assert_error(
        "message M { x: i32; ",
        "t.fxs:1:21: error: expected `}` to close message `M`, found end of file",
    );
    assert_error(
        "message M { x: i32 (required) = 1; }",
        "t.fxs:1:31: error: expected `;`, found `=`\nhint: write the default before the attributes: `name: T = value (attributes);`",
    );
    assert_error(
        "message A { x: i32; }\nimport \"b.fxs\";",
        "t.fxs:2:1: error: imports must come before declarations\nhint: move the import above the first declaration",
    );
    assert_error("message M {\n  reserved old;\n}", "t.fxs:2:12: error: expected a quoted name, found identifier `old`\nhint: reserved names are quoted: reserved \"old\";");
    assert_error(
        "message M { x: i32 = 12ab; }",
        "t.fxs:1:22: error: invalid number literal `12ab`",
    );
    assert_error(
        "message M { x: i32 = 1; } #",
        "t.fxs:1:27: error: unexpected character `#`",
    );
}

#[test]
fn recursion_that_never_ends_is_an_error() {
    assert_error(
        "namespace r;\nmessage Node {\n  value: i32;\n  next: Node (required);\n}",
        "t.fxs:4:3: error: recursive message `r.Node` can never end: Node.next -> Node\nhint: make a field on this cycle optional (`T?`), or hold the recursion in a vector or map",
    );
    // Through two messages: reported once, at the first.
    assert_error(
        "namespace r;\nmessage A { b: B (required); }\nmessage B { x: i32; a: A (required); }\nmessage C { a: A (required); }",
        "t.fxs:2:13: error: recursive message `r.A` can never end: A.b -> B.a -> A\nhint: make a field on this cycle optional (`T?`), or hold the recursion in a vector or map",
    );
    // Through a union whose every variant needs the message again.
    assert_error(
        "namespace r;\nunion U { X: Loop, Y: Loop }\nmessage Loop { u: U (required); }",
        "t.fxs:3:16: error: recursive message `r.Loop` can never end: Loop.u -> Loop\nhint: make a field on this cycle optional (`T?`), or hold the recursion in a vector or map",
    );
    // A required but nullable field ends the recursion.
    assert!(parse("message N { next: N? (required); }").is_ok());
}

#[test]
fn several_errors_are_reported_in_one_run_in_order() {
    let d = errors(
        "namespace m;\nmessage A {\n  x: u8 = 300;\n  y: Strng;\n  z: i32\n}\nmessage B { a: i32; a: i32; }\n",
    );
    // Syntax errors come alone (resolution after them would be noise).
    assert_eq!(d.to_string(), "t.fxs:6:1: error: expected `;`, found `}`");
    let d = errors("namespace m;\nmessage A {\n  x: u8 = 300;\n  y: Strng;\n}\nmessage B { a: i32; a: i32; }\n");
    let found: Vec<(u32, u32)> = d.iter().map(|x| (x.line, x.column)).collect();
    assert_eq!(found, vec![(3, 11), (4, 6), (6, 21)]);
    let d = errors("message A {\n  x i32;\n  y: i32\n  z: i32;\n}\nmessage B { q: }");
    let found: Vec<String> = d
        .iter()
        .map(|x| format!("{}:{} {}", x.line, x.column, x.message))
        .collect();
    assert_eq!(
        found,
        vec![
            "2:5 expected `:`, found keyword `i32`".to_string(),
            "4:3 expected `;`, found identifier `z`".to_string(),
            "6:16 expected a type, found `}`".to_string(),
        ]
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    assert_error(
        "message M { x: string = \"héllo→\"; y: Nope; }",
        "t.fxs:1:38: error: unknown type `Nope`",
    );
}

// ---------------------------------------------------------------------------
// Imports
// ---------------------------------------------------------------------------

#[test]
fn imports_are_relative_and_transitive() {
    let dir = schemas_dir().join("imports");
    let parsed = parse_file(&dir.join("root.fxs")).unwrap();
    let paths: Vec<PathBuf> = parsed.files.iter().map(|f| f.path.clone()).collect();
    // `sub/mid.fxs` imports `../leaf.fxs`: normalized to imports/leaf.fxs.
    assert_eq!(
        paths,
        vec![
            dir.join("leaf.fxs"),
            dir.join("sub/mid.fxs"),
            dir.join("root.fxs")
        ]
    );
    assert_eq!(parsed.root_file, 2);
    assert_eq!(parsed.files[1].imports, vec![0]);
    assert_eq!(parsed.files[2].imports, vec![1]);
    let s = &parsed.schema;
    assert_eq!(
        field(s, "app.Root", "mid").ty,
        TypeRef::Message("mid.Mid".into())
    );
    // leaf.fxs is not imported by root.fxs directly, but transitively visible.
    assert_eq!(
        field(s, "app.Root", "leaf").ty,
        TypeRef::Message("leaf.Leaf".into())
    );
    assert_eq!(
        field(s, "mid.Mid", "leaf").ty,
        TypeRef::Message("leaf.Leaf".into())
    );
}

#[test]
fn import_cycles_are_errors_at_the_import() {
    let err = parse_file(&schemas_dir().join("imports/cycle_a.fxs")).unwrap_err();
    let a = schemas_dir().join("imports/cycle_a.fxs");
    let b = schemas_dir().join("imports/cycle_b.fxs");
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3:8: error: import cycle: {} -> {} -> {}\nhint: move the shared types into a file that both can import",
            b.display(),
            a.display(),
            b.display(),
            a.display()
        )
    );
    let self_import = parse_with_loader("x.fxs", "import \"./x.fxs\";", &no_files).unwrap_err();
    assert_eq!(
        self_import.to_string(),
        "x.fxs:1:8: error: import cycle: x.fxs -> x.fxs\nhint: move the shared types into a file that both can import"
    );
}

#[test]
fn missing_import_points_at_the_import_statement() {
    let path = schemas_dir().join("imports/missing.fxs");
    let err = parse_file(&path).unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    let d = err.first().unwrap();
    assert_eq!(
        (d.file.as_path(), d.line, d.column),
        (path.as_path(), 3, 10)
    );
    assert!(
        d.message
            .starts_with("cannot read imported file `nowhere/gone.fxs`: "),
        "{}",
        d.message
    );
    let looked = schemas_dir().join("imports/nowhere/gone.fxs");
    assert_eq!(
        d.hint.as_deref(),
        Some(
            format!(
                "looked for `{}` (import paths are relative to the importing file)",
                looked.display()
            )
            .as_str()
        )
    );
    let root = parse_file(&schemas_dir().join("no_such_root.fxs")).unwrap_err();
    assert_eq!(
        (root.first().unwrap().line, root.first().unwrap().column),
        (1, 1)
    );
    assert!(root.first().unwrap().message.starts_with("cannot read `"));
}

#[test]
fn a_file_imported_twice_is_parsed_once() {
    let files: HashMap<&str, &str> = HashMap::from([
        ("dir/left.fxs", "namespace left; import \"base.fxs\"; message L { b: base.B?; }"),
        ("dir/right.fxs", "namespace right; import \"./base.fxs\"; import \"../dir/base.fxs\"; message R { b: base.B?; }"),
        ("dir/base.fxs", "namespace base; message B { x: i32; }"),
    ]);
    let calls = RefCell::new(Vec::new());
    let load = |p: &Path| {
        calls.borrow_mut().push(p.to_path_buf());
        files
            .get(p.to_str().unwrap())
            .map(|s| s.to_string())
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    };
    let root = "namespace top; import \"left.fxs\"; import \"right.fxs\"; message T { l: left.L?; r: right.R?; b: base.B?; }";
    let parsed = parse_with_loader("dir/top.fxs", root, &load).unwrap();
    assert_eq!(
        *calls.borrow(),
        vec![
            PathBuf::from("dir/left.fxs"),
            PathBuf::from("dir/base.fxs"),
            PathBuf::from("dir/right.fxs")
        ]
    );
    let paths: Vec<&Path> = parsed.files.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(
        paths,
        [
            Path::new("dir/base.fxs"),
            Path::new("dir/left.fxs"),
            Path::new("dir/right.fxs"),
            Path::new("dir/top.fxs")
        ]
    );
    assert_eq!(parsed.files[2].imports, vec![0]);
    assert_eq!(
        parsed
            .schema
            .messages
            .iter()
            .filter(|m| m.name == "base.B")
            .count(),
        1
    );
}

#[test]
fn types_of_files_not_imported_are_not_visible() {
    let files: HashMap<&str, &str> = HashMap::from([
        ("a.fxs", "namespace a; message A { b: b.B?; }"),
        ("b.fxs", "namespace b; message B { x: i32; }"),
    ]);
    let load = |p: &Path| {
        files
            .get(p.to_str().unwrap())
            .map(|s| s.to_string())
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    };
    let err =
        parse_with_loader("top.fxs", "import \"a.fxs\";\nimport \"b.fxs\";", &load).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a.fxs:1:29: error: type `b.B` is not visible here\nhint: it is declared in `b.fxs`; import that file"
    );
}

#[test]
fn duplicate_types_across_files_are_reported() {
    let load = |p: &Path| match p.to_str() {
        Some("other.fxs") => Ok("namespace n;\nmessage Same { x: i32; }".to_string()),
        _ => no_files(p),
    };
    let err = parse_with_loader(
        "main.fxs",
        "namespace n;\nimport \"other.fxs\";\nmessage Same { y: i32; }",
        &load,
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "main.fxs:3:9: error: duplicate type `n.Same`\nhint: `n.Same` is first declared at other.fxs:2:9");
}

// ---------------------------------------------------------------------------
// Fingerprints
// ---------------------------------------------------------------------------

#[test]
fn fingerprint_ignores_declaration_order_but_not_the_wire_contract() {
    let a = "namespace ns;\nenum K : u8 { X = 1, Y = 2 }\nmessage Inner { v: f64; }\n\
             message Msg { id: i64; name: string = \"n\"; tags: [string]; inner: Inner?; kind: K = Y; note: string (wire_name = \"Note\"); }";
    let b = "namespace ns;\nmessage Msg { kind: K = Y; note: string (wire_name = \"Note\"); inner: Inner?; tags: [string]; name: string = \"n\"; id: i64; }\n\
             message Inner { v: f64; }\nenum K : u8 { Y = 2, X = 1 }";
    let fa = parse(a).unwrap().schema.fingerprint("ns.Msg").unwrap();
    let fb = parse(b).unwrap().schema.fingerprint("ns.Msg").unwrap();
    assert_eq!(fa, fb);
    // Parsing is deterministic.
    assert_eq!(parse(a).unwrap(), parse(a).unwrap());
    let changed_wire = a.replace("\"Note\"", "\"note\"");
    assert_ne!(
        parse(&changed_wire)
            .unwrap()
            .schema
            .fingerprint("ns.Msg")
            .unwrap(),
        fa
    );
    let changed_default = a.replace("= Y", "= X");
    assert_ne!(
        parse(&changed_default)
            .unwrap()
            .schema
            .fingerprint("ns.Msg")
            .unwrap(),
        fa
    );
}

// ---------------------------------------------------------------------------
// Schemas of the shared benchmark fixtures
// ---------------------------------------------------------------------------

const FIXTURES: &[(&str, &str)] = &[
    ("user_profile", "fixtures.UserProfile"),
    ("api_response", "fixtures.ApiResponse"),
    ("time_series", "fixtures.TimeSeries"),
    ("chat_thread", "fixtures.ChatThread"),
    ("unicode_heavy", "fixtures.UnicodeHeavy"),
    ("string_flood", "fixtures.StringFlood"),
    ("wide_map", "fixtures.WideMap"),
    ("metrics_96k", "fixtures.Metrics"),
    ("width_bomb", "fixtures.WidthBomb"),
    ("deep_nesting", "fixtures.DeepLevel"),
    ("repeated_maps", "fixtures.RepeatedMaps"),
];

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

#[test]
fn fixture_schemas_all_parse_and_declare_distinct_types() {
    let dir = conformance_dir().join("schemas");
    let mut listed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".fxs"))
        .collect();
    listed.sort();
    let mut expected: Vec<String> = FIXTURES.iter().map(|(f, _)| format!("{f}.fxs")).collect();
    expected.sort();
    assert_eq!(listed, expected);
    for (file, root) in FIXTURES {
        let parsed = parse_file(&dir.join(format!("{file}.fxs"))).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.root().namespace.as_deref(), Some("fixtures"));
        assert!(parsed.schema.message(root).is_some(), "{file}: no {root}");
    }
    // All together in one schema: no type name is declared twice.
    let all: String = FIXTURES
        .iter()
        .map(|(f, _)| format!("import \"{f}.fxs\";\n"))
        .collect();
    let parsed = parse_str(dir.join("all.fxs"), &all).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.files.len(), FIXTURES.len() + 1);
}

/// Checks a FlexBuffers value against a schema type, strictly: no unknown
/// keys, nulls only where optional, ints as ints and floats as floats.
fn conforms(s: &Schema, ty: &TypeRef, v: Reader<'_>, path: &str) -> Result<(), String> {
    let fail = |what: &str| {
        Err(format!(
            "{path}: expected {what}, found {:?}",
            v.flex_type()
        ))
    };
    let t = v.flex_type();
    match ty {
        TypeRef::Bool => (t == FlexType::Bool)
            .then_some(())
            .map_or_else(|| fail("bool"), Ok),
        TypeRef::I64 => match t {
            FlexType::Int | FlexType::IndirectInt => Ok(()),
            FlexType::UInt | FlexType::IndirectUInt if v.as_u64().unwrap() <= i64::MAX as u64 => {
                Ok(())
            }
            _ => fail("i64"),
        },
        TypeRef::F64 => matches!(t, FlexType::Float | FlexType::IndirectFloat)
            .then_some(())
            .map_or_else(|| fail("f64"), Ok),
        TypeRef::String => v
            .as_str()
            .map(|_| ())
            .map_err(|_| format!("{path}: expected string, found {t:?}")),
        TypeRef::Vector(e) => {
            let vec = v
                .as_vector()
                .map_err(|_| format!("{path}: expected vector, found {t:?}"))?;
            for i in 0..vec.len() {
                conforms(s, e, vec.get(i).unwrap(), &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        TypeRef::Map(e) => {
            let map = v
                .as_map()
                .map_err(|_| format!("{path}: expected map, found {t:?}"))?;
            for i in 0..map.len() {
                conforms(
                    s,
                    e,
                    map.value(i).unwrap(),
                    &format!("{path}.{}", map.key(i).unwrap()),
                )?;
            }
            Ok(())
        }
        TypeRef::Message(name) => {
            let m = s.message(name).unwrap();
            let map = v
                .as_map()
                .map_err(|_| format!("{path}: expected message {name}, found {t:?}"))?;
            for i in 0..map.len() {
                let key = map.key(i).unwrap();
                if !m.wire_fields().iter().any(|f| f.wire_name == key) {
                    return Err(format!("{path}: unknown key {key:?} for {name}"));
                }
            }
            for f in m.wire_fields() {
                let sub = format!("{path}.{}", f.wire_name);
                match map.find(&f.wire_name).unwrap() {
                    None if f.required => return Err(format!("{sub}: required field missing")),
                    Some(x) if x.is_null() && !f.optional => {
                        return Err(format!("{sub}: null in a non-optional field"))
                    }
                    Some(x) if !x.is_null() => conforms(s, &f.ty, x, &sub)?,
                    _ => {}
                }
            }
            Ok(())
        }
        other => Err(format!("{path}: fixture schemas should not use {other:?}")),
    }
}

#[test]
fn fixture_json_conforms_to_its_schema() {
    let dir = conformance_dir();
    for (file, root) in FIXTURES {
        let parsed = parse_file(&dir.join(format!("schemas/{file}.fxs"))).unwrap();
        let json = std::fs::read_to_string(dir.join(format!("fixtures/{file}.json"))).unwrap();
        let bytes = flexbuf::from_json(&json).unwrap();
        let value = flexbuf::verify(&bytes).unwrap().root();
        let result = conforms(
            &parsed.schema,
            &TypeRef::Message(root.to_string()),
            value,
            "$",
        );
        if *file == "deep_nesting" {
            // Documented in deep_nesting.fxs: its list levels are
            // heterogeneous tuples that no `.fxs` type describes.
            assert_eq!(
                result,
                Err("$.child: expected message fixtures.DeepLevel, found Vector".to_string())
            );
        } else {
            result.unwrap_or_else(|e| panic!("{file}: {e}"));
        }
    }
}

#[test]
fn fixed_length_arrays_parse_into_the_model() {
    let parsed = parse(
        "namespace a;\nmessage M {\n  pos: [f32; 3];\n  id: [u32; 4]?;\n  path: [[i16; 2]];\n  named: {string: [bool; 1]};\n}\n",
    )
    .expect("parses");
    let s = &parsed.schema;
    let array = |t: TypeRef, n| TypeRef::Array(Box::new(t), n);
    assert_eq!(field(s, "a.M", "pos").ty, array(TypeRef::F32, 3));
    let id = field(s, "a.M", "id");
    assert_eq!(id.ty, array(TypeRef::U32, 4));
    assert!(id.optional);
    assert_eq!(
        field(s, "a.M", "path").ty,
        TypeRef::Vector(Box::new(array(TypeRef::I16, 2)))
    );
    assert_eq!(
        field(s, "a.M", "named").ty,
        TypeRef::Map(Box::new(array(TypeRef::Bool, 1)))
    );
    assert!(parse(&format!(
        "message M {{ x: [u8; {}]; }}",
        flexbuf::schema::MAX_ARRAY_LEN
    ))
    .is_ok());
}

#[test]
fn arrays_that_cannot_be_written_are_positioned_errors() {
    assert_error(
        "message M { x: [string; 3]; }",
        "t.fxs:1:17: error: array elements must be bool, an integer or a float type, found `string`\nhint: arrays hold bool, integers or floats; use a vector `[string]`, or a message with one field per element",
    );
    assert_error(
        "message P { x: i32; }\nmessage M { x: [P; 2]; }",
        "t.fxs:2:17: error: array elements must be bool, an integer or a float type, found `P`\nhint: arrays hold bool, integers or floats; use a vector `[P]`, or a message with one field per element",
    );
    assert_error(
        "message M { x: [f32; 0]; }",
        "t.fxs:1:22: error: array length must be between 1 and 4096, found 0\nhint: use a vector `[f32]` for data of varying or larger size",
    );
    assert_error(
        "message M { x: [f32; 4097]; }",
        "t.fxs:1:22: error: array length must be between 1 and 4096, found 4097\nhint: use a vector `[f32]` for data of varying or larger size",
    );
    assert_error(
        "message M { x: [f32?; 2]; }",
        "t.fxs:1:20: error: arrays of optional elements (`[T?; N]`) are not supported\nhint: use `[f32; 2]` (arrays always hold every element)",
    );
    assert_error(
        "message M { x: [f32; n]; }",
        "t.fxs:1:22: error: expected an array length (an integer), found identifier `n`",
    );
    assert_error(
        "message M { x: [f32; 2] = 1; }",
        "t.fxs:1:27: error: array fields cannot have a default value\nhint: absence already gives an array of zeros; only `null` is allowed, on an optional field (`[f32; 2]?`)",
    );
}

#[test]
fn ts_int64_attributes_are_kept_per_field_and_change_nothing_else() {
    let with = parse(
        "namespace t;\nmessage M {\n  id: u64 (ts_int64 = \"bigint\");\n  n: i64;\n  ids: [i64] (wire_name = \"all\", ts_int64 = \"checked\");\n  m: {string: u64}? (ts_int64 = \"auto\");\n  ts_int64: i32;\n}",
    )
    .unwrap();
    let policies: Vec<(&str, &str, &str)> = with
        .ts_int64
        .iter()
        .map(|((m, f), p)| (m.as_str(), f.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        policies,
        [
            ("t.M", "id", "bigint"),
            ("t.M", "ids", "checked"),
            ("t.M", "m", "auto")
        ]
    );
    // The model (and so the wire contract and its fingerprint) is the same without them.
    let without = parse(
        "namespace t;\nmessage M {\n  id: u64;\n  n: i64;\n  ids: [i64] (wire_name = \"all\");\n  m: {string: u64}?;\n  ts_int64: i32;\n}",
    )
    .unwrap();
    assert_eq!(with.schema, without.schema);
    assert!(without.ts_int64.is_empty());
}

#[test]
fn ts_int64_attributes_are_checked() {
    assert_error(
        "message M {\n  x: i64 (ts_int64 = \"float\");\n}",
        "t.fxs:2:22: error: unknown `ts_int64` policy \"float\"\nhint: use one of \"auto\", \"checked\", \"bigint\"",
    );
    assert_error(
        "message M {\n  x: i32 (ts_int64 = \"bigint\");\n}",
        "t.fxs:2:22: error: `ts_int64` on field `x` of type `i32`, which holds no 64-bit integer\nhint: it applies to i64 and u64 fields and to lists, arrays and maps of them: remove it",
    );
    assert_error(
        "message M {\n  x: [string] (ts_int64 = \"auto\");\n}",
        "t.fxs:2:27: error: `ts_int64` on field `x` of type `[string]`, which holds no 64-bit integer\nhint: it applies to i64 and u64 fields and to lists, arrays and maps of them: remove it",
    );
    assert_error(
        "message M {\n  x: i64 (ts_int64 = \"auto\", ts_int64 = \"bigint\");\n}",
        "t.fxs:2:30: error: duplicate attribute `ts_int64`",
    );
    assert_error(
        "message M {\n  x: i64 (ts_int64 = bigint);\n}",
        "t.fxs:2:22: error: expected a quoted policy: \"auto\", \"checked\" or \"bigint\", found identifier `bigint`",
    );
}
