//! Converts the conformance data into line-based text the C runner reads
//! without a JSON parser. The case JSON itself is parsed with the core
//! (`flexbuf::json::from_json_with`) and walked with its reader, so this crate
//! keeps no dependency but the core.
//!
//! Usage: `cargo run --manifest-path capi/Cargo.toml --example export_cases -- <repo root> <out dir>`
//!
//! Writes, in `<out dir>`:
//!
//! - `cases.txt`: every build case of `conformance/cases/*.json`:
//!   ```text
//!   case <flags> <builder refuses: 0|1> <name>
//!   o <op> <args...>          one line per builder call (see write_op)
//!   b <golden bytes hex>
//!   v <type code> <width> <payload>   the annotated value, pre-order:
//!                             scalars: null "-", bool 0|1, ints decimal,
//!                             floats f64 bits as 16 hex digits or "nan",
//!                             strings/keys/blobs hex ("-" when empty);
//!                             maps and vectors: their element count, then
//!                             (maps) "k <key hex>" before each value
//!   end
//!   ```
//! - `invalid.txt`: `inv <valid 0|1> <error kind|-> <expand budget 0|1> <json hex|-> <file>`
//!   per entry of `conformance/invalid/manifest.json`.
//! - `schema.bin` + `schema.txt`: a compiled schema and `<message> <fingerprint hex>`
//!   computed by the core, for the C tests of `flexbuf_schema_fingerprint`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use flexbuf::json::from_json_with;
use flexbuf::schema::{Field, Message, Schema, TypeRef};
use flexbuf::{FlexType, JsonOptions, Reader};

type Result<T> = std::result::Result<T, String>;

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".to_string();
    }
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn parse_json(text: &str, origin: &str) -> Result<Vec<u8>> {
    let options = JsonOptions {
        max_depth: 1024,
        ..JsonOptions::default()
    };
    from_json_with(text, &options).map_err(|e| format!("{origin}: {e}"))
}

fn string<'a>(r: &Reader<'a>, what: &str) -> Result<&'a str> {
    r.as_str().map_err(|e| format!("{what}: {e}"))
}

fn field<'a>(r: &Reader<'a>, key: &str) -> Result<Reader<'a>> {
    r.get(key).map_err(|e| format!("field {key}: {e}"))
}

fn optional<'a>(r: &Reader<'a>, key: &str) -> Result<Option<Reader<'a>>> {
    r.as_map()
        .and_then(|m| m.find(key))
        .map_err(|e| format!("field {key}: {e}"))
}

fn items<'a>(r: &Reader<'a>, what: &str) -> Result<Vec<Reader<'a>>> {
    let v = r.as_vector().map_err(|e| format!("{what}: {e}"))?;
    v.iter()
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| format!("{what}: {e}"))
}

/// An integer given as a JSON number or a decimal string, as text.
fn integer(r: &Reader<'_>) -> Result<String> {
    match r.flex_type() {
        FlexType::String => Ok(string(r, "integer")?.to_string()),
        FlexType::UInt => r.as_u64().map(|u| u.to_string()).map_err(|e| e.to_string()),
        _ => r.as_i64().map(|i| i.to_string()).map_err(|e| e.to_string()),
    }
}

fn bool_token(r: &Reader<'_>) -> Result<&'static str> {
    Ok(if r.as_bool().map_err(|e| e.to_string())? {
        "1"
    } else {
        "0"
    })
}

fn from_hex(s: &str) -> Result<Vec<u8>> {
    if s.len() % 2 != 0 {
        return Err(format!("odd hex length in {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("{s:?}: {e}")))
        .collect()
}

/// One op line: the case's JSON op `[name, args...]` with strings hex-encoded.
fn write_op(out: &mut String, op: &Reader<'_>) -> Result<()> {
    let parts = items(op, "op")?;
    let name = string(parts.first().ok_or("empty op")?, "op name")?;
    let args = &parts[1..];
    out.push_str("o ");
    out.push_str(name);
    match name {
        "null" | "start_map" | "end_map" | "start_vector" | "mark" => {}
        "bool" => write!(out, " {}", bool_token(&args[0])?).unwrap(),
        "int" | "uint" | "indirect_int" | "indirect_uint" | "force_min_width" | "reuse" => {
            write!(out, " {}", integer(&args[0])?).unwrap()
        }
        "float" | "indirect_float" | "double" | "indirect_double" => {
            write!(out, " {}", string(&args[0], name)?).unwrap()
        }
        "key" | "string" => write!(out, " {}", hex(string(&args[0], name)?.as_bytes())).unwrap(),
        "blob" => write!(out, " {}", hex(&from_hex(string(&args[0], name)?)?)).unwrap(),
        "end_vector" => {
            write!(out, " {} {}", bool_token(&args[0])?, bool_token(&args[1])?).unwrap()
        }
        "scalar_vector" | "fixed_vector" | "typed_vector" => {
            let kind = string(&args[0], "kind")?;
            let width = integer(&args[1])?;
            let values = items(&args[2], "values")?;
            write!(out, " {kind} {width} {}", values.len()).unwrap();
            for v in &values {
                let token = match kind {
                    "float" => string(v, "float bits")?.to_string(),
                    "bool" => bool_token(v)?.to_string(),
                    _ => integer(v)?,
                };
                write!(out, " {token}").unwrap();
            }
        }
        other => return Err(format!("unknown op {other:?}")),
    }
    out.push('\n');
    Ok(())
}

fn type_code(name: &str) -> Result<u8> {
    (0..64u8)
        .find(|&c| FlexType::from_code(c).is_some_and(|t| t.name() == name))
        .ok_or_else(|| format!("unknown type name {name:?}"))
}

/// The annotated value `[type, width, payload]`, pre-order.
fn write_value(out: &mut String, v: &Reader<'_>) -> Result<()> {
    let parts = items(v, "value")?;
    let [ty, width, payload] = parts.as_slice() else {
        return Err("an annotated value has three parts".into());
    };
    let name = string(ty, "type name")?;
    let code = type_code(name)?;
    write!(out, "v {code} {} ", integer(width)?).unwrap();
    let t = FlexType::from_code(code).ok_or("bad code")?;
    match t {
        FlexType::Null => out.push_str("-\n"),
        FlexType::Bool => writeln!(out, "{}", bool_token(payload)?).unwrap(),
        FlexType::Int | FlexType::UInt | FlexType::IndirectInt | FlexType::IndirectUInt => {
            writeln!(out, "{}", string(payload, "integer payload")?).unwrap()
        }
        FlexType::Float | FlexType::IndirectFloat => {
            let text = string(payload, "float payload")?;
            let f: f64 = text.parse().map_err(|e| format!("float {text:?}: {e}"))?;
            if f.is_nan() {
                out.push_str("nan\n");
            } else {
                writeln!(out, "{:016x}", f.to_bits()).unwrap();
            }
        }
        FlexType::String | FlexType::Key => writeln!(
            out,
            "{}",
            hex(string(payload, "string payload")?.as_bytes())
        )
        .unwrap(),
        FlexType::Blob => {
            writeln!(out, "{}", hex(&from_hex(string(payload, "blob payload")?)?)).unwrap()
        }
        FlexType::Map => {
            let entries = items(payload, "map entries")?;
            writeln!(out, "{}", entries.len()).unwrap();
            for e in &entries {
                let pair = items(e, "map entry")?;
                let [k, value] = pair.as_slice() else {
                    return Err("a map entry is [key, value]".into());
                };
                writeln!(out, "k {}", hex(string(k, "key")?.as_bytes())).unwrap();
                write_value(out, value)?;
            }
        }
        _ => {
            let elems = items(payload, "vector elements")?;
            writeln!(out, "{}", elems.len()).unwrap();
            for e in &elems {
                write_value(out, e)?;
            }
        }
    }
    Ok(())
}

fn export_cases(dir: &Path) -> Result<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = String::new();
    for path in files {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{origin}: {e}"))?;
        let bytes = parse_json(&text, &origin)?;
        let root = Reader::new(&bytes).map_err(|e| format!("{origin}: {e}"))?;
        for case in items(&field(&root, "cases")?, "cases")? {
            let name = string(&field(&case, "name")?, "name")?;
            let at = |e: String| format!("{origin}: case {name}: {e}");
            let flags = integer(&field(&case, "flags")?).map_err(at)?;
            let refuses = match optional(&case, "deviation").map_err(at)? {
                Some(d) => string(&d, "deviation").map_err(at)? == "typed-string-vector",
                None => false,
            };
            writeln!(out, "case {flags} {} {name}", u8::from(refuses)).unwrap();
            for op in items(&field(&case, "ops")?, "ops").map_err(at)? {
                write_op(&mut out, &op).map_err(at)?;
            }
            let golden = string(&field(&case, "bytes")?, "bytes").map_err(at)?;
            writeln!(out, "b {golden}").unwrap();
            write_value(&mut out, &field(&case, "value")?).map_err(at)?;
            out.push_str("end\n");
        }
    }
    Ok(out)
}

fn export_invalid(dir: &Path) -> Result<String> {
    let path = dir.join("manifest.json");
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{origin}: {e}"))?;
    let bytes = parse_json(&text, &origin)?;
    let root = Reader::new(&bytes).map_err(|e| format!("{origin}: {e}"))?;
    let mut out = String::new();
    for entry in items(&root, "manifest")? {
        let file = string(&field(&entry, "file")?, "file")?;
        let valid = bool_token(&field(&entry, "valid")?)?;
        let text_of = |key: &str| -> Result<Option<&str>> {
            optional(&entry, key)?.map(|r| string(&r, key)).transpose()
        };
        let error = text_of("error")?.unwrap_or("-");
        let expand = u8::from(text_of("expand")? == Some("budget"));
        let json = text_of("json")?
            .map(|j| hex(j.as_bytes()))
            .unwrap_or_else(|| "-".into());
        writeln!(out, "inv {valid} {error} {expand} {json} {file}").unwrap();
    }
    Ok(out)
}

/// A small compiled schema and the fingerprint the core computes for it.
fn export_schema(out_dir: &Path) -> Result<()> {
    let field = |name: &str, ty: TypeRef, optional: bool| Field {
        name: name.into(),
        wire_name: name.into(),
        ty,
        optional,
        required: false,
        deprecated: false,
        default: None,
        doc: Vec::new(),
    };
    let schema = Schema {
        messages: vec![Message {
            name: "capi.test.Point".into(),
            fields: vec![
                field("x", TypeRef::I32, false),
                field("y", TypeRef::I32, false),
                field("label", TypeRef::String, true),
            ],
            ..Message::default()
        }],
        ..Schema::default()
    };
    let bytes = schema.to_bytes().map_err(|e| e.to_string())?;
    let fp = schema
        .fingerprint("capi.test.Point")
        .ok_or("no fingerprint")?;
    std::fs::write(out_dir.join("schema.bin"), bytes).map_err(|e| e.to_string())?;
    std::fs::write(
        out_dir.join("schema.txt"),
        format!("capi.test.Point {fp:016x}\n"),
    )
    .map_err(|e| e.to_string())
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, out_dir] = args.as_slice() else {
        return Err("usage: export_cases <repo root> <out dir>".into());
    };
    let root = Path::new(root);
    let out_dir = Path::new(out_dir);
    std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let cases = export_cases(&root.join("conformance/cases"))?;
    std::fs::write(out_dir.join("cases.txt"), cases).map_err(|e| e.to_string())?;
    let invalid = export_invalid(&root.join("conformance/invalid"))?;
    std::fs::write(out_dir.join("invalid.txt"), invalid).map_err(|e| e.to_string())?;
    export_schema(out_dir)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("export_cases: {e}");
        std::process::exit(1);
    }
}
