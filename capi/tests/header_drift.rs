//! Fails when `include/flexbuf.h` and the Rust exports drift apart: every
//! function declared in the header must be exported with the same parameter
//! and return types (mapped to C), and every export must be declared; the
//! header's constants must equal the Rust ones.
//!
//! (The C side checks the built library too: `capi/tests/Makefile`'s `symbols`
//! target compares `nm -D` of the shared library with the header.)

use std::collections::BTreeMap;
use std::path::Path;

/// name -> (return type, parameter types), all in canonical C spelling.
type Signatures = BTreeMap<String, (String, Vec<String>)>;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Removes `/* ... */` and `// ...` comments.
fn strip_c_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        match rest[i..].find("*/") {
            Some(j) => rest = &rest[i + j + 2..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Canonical C spelling: typedef aliases resolved to their integer type,
/// single spaces, no space before `*`.
fn canonical_c(ty: &str) -> String {
    let spaced = ty.replace('*', " * ");
    let words: Vec<&str> = spaced
        .split_whitespace()
        .map(|w| match w {
            "flexbuf_status" => "int32_t",
            "flexbuf_type" | "flexbuf_elem" => "uint32_t",
            other => other,
        })
        .collect();
    words.join(" ").replace(" *", "*")
}

/// The C type of a Rust FFI type.
fn rust_to_c(ty: &str) -> String {
    let ty = ty.trim();
    if let Some(inner) = ty.strip_prefix("*const ") {
        let c = rust_to_c(inner);
        return if c.ends_with('*') {
            format!("{c} const*")
        } else {
            format!("const {c}*")
        };
    }
    if let Some(inner) = ty.strip_prefix("*mut ") {
        return format!("{}*", rust_to_c(inner));
    }
    let base = match ty {
        "u8" => "uint8_t",
        "u16" => "uint16_t",
        "u32" => "uint32_t",
        "u64" => "uint64_t",
        "i32" => "int32_t",
        "i64" => "int64_t",
        "usize" => "size_t",
        "f32" => "float",
        "f64" => "double",
        "bool" => "bool",
        "c_char" => "char",
        "c_void" => "void",
        "FlexbufStatus" => "int32_t",
        "FlexbufElem" => "uint32_t",
        "FlexbufBuilder" => "flexbuf_builder",
        "FlexbufBuffer" => "flexbuf_buffer",
        "FlexbufBytes" => "flexbuf_bytes",
        "FlexbufRef" => "flexbuf_ref",
        "FlexbufEnvelope" => "flexbuf_envelope",
        other => panic!("no C mapping for Rust type {other:?}: extend rust_to_c"),
    };
    base.to_string()
}

/// Splits a parameter list on top-level commas.
fn split_params(params: &str) -> Vec<String> {
    params
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

fn header_signatures() -> Signatures {
    let text = std::fs::read_to_string(crate_dir().join("include/flexbuf.h")).unwrap();
    let text = strip_c_comments(&text);
    let mut sigs = Signatures::new();
    for decl in text.split(';') {
        let decl = decl.split_whitespace().collect::<Vec<_>>().join(" ");
        let decl = decl
            .rsplit(['{', '}'])
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        if decl.starts_with("typedef") || decl.starts_with('#') || !decl.contains('(') {
            continue;
        }
        let Some(open) = decl.find('(') else { continue };
        let head = &decl[..open];
        let Some(name_at) = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_')) else {
            continue;
        };
        let name = head[name_at + 1..].to_string();
        if !name.starts_with("flexbuf_") {
            continue;
        }
        let ret = canonical_c(&head[..=name_at]);
        let close = decl.rfind(')').unwrap();
        let params = &decl[open + 1..close];
        let types = if params.trim() == "void" {
            Vec::new()
        } else {
            split_params(params)
                .iter()
                .map(|p| {
                    // Drop the parameter name: the last identifier.
                    let cut = p
                        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .expect("every header parameter is named");
                    canonical_c(&p[..=cut])
                })
                .collect()
        };
        assert!(
            sigs.insert(name.clone(), (ret, types)).is_none(),
            "{name} declared twice"
        );
    }
    sigs
}

fn rust_signatures() -> Signatures {
    let mut sigs = Signatures::new();
    let mut files: Vec<_> = std::fs::read_dir(crate_dir().join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("#[no_mangle]") {
            rest = &rest[i + "#[no_mangle]".len()..];
            let fn_at = rest.find("fn ").unwrap();
            let prefix = rest[..fn_at]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            assert!(
                prefix == "pub extern \"C\"" || prefix == "pub unsafe extern \"C\"",
                "{}: #[no_mangle] item is not a pub extern \"C\" fn: {prefix}",
                file.display()
            );
            let sig = &rest[fn_at + 3..rest.find('{').unwrap()];
            let open = sig.find('(').unwrap();
            let close = sig.rfind(')').unwrap();
            let name = sig[..open].trim().to_string();
            let types = split_params(&sig[open + 1..close])
                .iter()
                .map(|p| {
                    let (_, ty) = p.split_once(':').expect("named parameter");
                    canonical_c(&rust_to_c(ty))
                })
                .collect();
            let ret = match sig[close + 1..].trim().strip_prefix("->") {
                Some(r) => canonical_c(&rust_to_c(r)),
                None => "void".to_string(),
            };
            assert!(
                sigs.insert(name.clone(), (ret, types)).is_none(),
                "{name} exported twice"
            );
        }
    }
    sigs
}

#[test]
fn header_and_exports_declare_the_same_functions() {
    let header = header_signatures();
    let rust = rust_signatures();
    assert!(
        header.len() > 50,
        "parsed only {} declarations",
        header.len()
    );
    let only_header: Vec<_> = header.keys().filter(|k| !rust.contains_key(*k)).collect();
    let only_rust: Vec<_> = rust.keys().filter(|k| !header.contains_key(*k)).collect();
    assert!(
        only_header.is_empty(),
        "declared in flexbuf.h but not exported: {only_header:?}"
    );
    assert!(
        only_rust.is_empty(),
        "exported but not declared in flexbuf.h: {only_rust:?}"
    );
    for (name, sig) in &header {
        assert_eq!(
            &rust[name], sig,
            "{name}: Rust (left) and header (right) differ"
        );
    }
}

/// `NAME = value` pairs of the header's enums and `#define NAME value` lines.
fn header_constants() -> BTreeMap<String, u64> {
    let text =
        strip_c_comments(&std::fs::read_to_string(crate_dir().join("include/flexbuf.h")).unwrap());
    let mut out = BTreeMap::new();
    let parse = |v: &str| -> Option<u64> {
        let v = v
            .trim()
            .trim_end_matches(',')
            .trim_matches(|c| c == '(' || c == ')');
        if let Some((a, b)) = v.split_once("<<") {
            let a: u64 = a.trim().trim_end_matches("ull").parse().ok()?;
            let b: u64 = b.trim().trim_end_matches(')').parse().ok()?;
            return Some(a << b);
        }
        v.trim_end_matches('u').parse().ok()
    };
    for line in text.lines() {
        let line = line.trim();
        if let Some(def) = line.strip_prefix("#define ") {
            if let Some((name, value)) = def.split_once(' ') {
                if let Some(v) = parse(value) {
                    out.insert(name.to_string(), v);
                }
            }
        } else if let Some((name, value)) = line.split_once(" = ") {
            if name.starts_with("FLEXBUF_") {
                out.insert(name.to_string(), parse(value).expect(line));
            }
        }
    }
    out
}

#[test]
fn header_constants_match_the_library() {
    use flexbuf_capi::{builder::*, codec::*, reader::*, status::*, *};
    let c = header_constants();
    let get = |name: &str| {
        *c.get(name)
            .unwrap_or_else(|| panic!("{name} missing from flexbuf.h"))
    };
    assert_eq!(get("FLEXBUF_ABI_VERSION"), u64::from(FLEXBUF_ABI_VERSION));
    assert_eq!(get("FLEXBUF_ABI_VERSION"), u64::from(flexbuf_abi_version()));
    for (name, value) in [
        ("FLEXBUF_CAP_READER", FLEXBUF_CAP_READER),
        ("FLEXBUF_CAP_BUILDER", FLEXBUF_CAP_BUILDER),
        ("FLEXBUF_CAP_JSON", FLEXBUF_CAP_JSON),
        ("FLEXBUF_CAP_ENVELOPE", FLEXBUF_CAP_ENVELOPE),
        ("FLEXBUF_CAP_SCHEMA", FLEXBUF_CAP_SCHEMA),
        ("FLEXBUF_JSON_PRETTY", u64::from(FLEXBUF_JSON_PRETTY)),
        ("FLEXBUF_MAX_DEPTH", FLEXBUF_MAX_DEPTH as u64),
    ] {
        assert_eq!(get(name), value, "{name}");
    }
    let statuses: Vec<_> = c
        .keys()
        .filter(|k| k.starts_with("FLEXBUF_ERR_") || *k == "FLEXBUF_OK")
        .collect();
    assert_eq!(statuses.len(), STATUS_NAMES.len());
    for (code, name) in STATUS_NAMES {
        assert_eq!(get(name), code as u64, "{name}");
    }
    for (name, value) in [
        ("FLEXBUF_ELEM_I8", FLEXBUF_ELEM_I8),
        ("FLEXBUF_ELEM_I16", FLEXBUF_ELEM_I16),
        ("FLEXBUF_ELEM_I32", FLEXBUF_ELEM_I32),
        ("FLEXBUF_ELEM_I64", FLEXBUF_ELEM_I64),
        ("FLEXBUF_ELEM_U8", FLEXBUF_ELEM_U8),
        ("FLEXBUF_ELEM_U16", FLEXBUF_ELEM_U16),
        ("FLEXBUF_ELEM_U32", FLEXBUF_ELEM_U32),
        ("FLEXBUF_ELEM_U64", FLEXBUF_ELEM_U64),
        ("FLEXBUF_ELEM_F32", FLEXBUF_ELEM_F32),
        ("FLEXBUF_ELEM_F64", FLEXBUF_ELEM_F64),
        ("FLEXBUF_ELEM_BOOL", FLEXBUF_ELEM_BOOL),
    ] {
        assert_eq!(get(name), u64::from(value), "{name}");
    }
    // Type codes: FLEXBUF_TYPE_<NAME> is the core's code of the type named <name>.
    let mut types = 0;
    for (name, &code) in c.iter().filter(|(k, _)| k.starts_with("FLEXBUF_TYPE_")) {
        let t = flexbuf::FlexType::from_code(code as u8)
            .unwrap_or_else(|| panic!("{name}: no type {code}"));
        assert_eq!(
            name["FLEXBUF_TYPE_".len()..].to_ascii_lowercase(),
            t.name(),
            "{name}"
        );
        types += 1;
    }
    assert_eq!(
        types,
        (0..64u8)
            .filter(|&c| flexbuf::FlexType::from_code(c).is_some())
            .count()
    );
}

#[test]
fn struct_sizes_match_the_header_layout() {
    use flexbuf_capi::{codec::FlexbufEnvelope, memory::*, reader::FlexbufRef};
    // The C tests assert the same sizes with _Static_assert.
    assert_eq!(std::mem::size_of::<FlexbufBytes>(), 16);
    assert_eq!(std::mem::size_of::<FlexbufBuffer>(), 24);
    assert_eq!(std::mem::size_of::<FlexbufRef>(), 280);
    assert_eq!(std::mem::size_of::<FlexbufEnvelope>(), 32);
}
