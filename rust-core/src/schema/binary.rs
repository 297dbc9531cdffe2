//! The compiled form of a schema: the model as a FlexBuffer, so a schema can be
//! handed to the native core (C ABI, Python SDK) as bytes.
//!
//! Root map `{"format": "flexbuf-schema", "version": 1, "messages": [...],
//! "enums": [...], "unions": [...]}`. A message is `{"name", "doc", "fields",
//! "reserved"}`; a field `{"name", "wire_name", "type", "optional",
//! "required", "deprecated", "doc"}` plus `"default"` when it has one; an enum
//! `{"name", "doc", "repr", "variants": [{"name", "value", "doc"}]}`; a union
//! `{"name", "doc", "variants": [{"name", "wire_name", "type", "doc"}]}`.
//! Types are strings: `bool`, `i8` … `u64`, `f32`, `f64`, `string`, `bytes`,
//! `[T]`, `[T; N]`, `{string:T}`, `message:NAME`, `enum:NAME`, `union:NAME`. A default
//! is a one-entry map: `{"bool": b}`, `{"int": i}`, `{"uint": u}`,
//! `{"float": f}`, `{"string": s}`, `{"enum": variant}` or `{"null": null}`.
//! Each field also has `"absent"`, what decoding yields when the field is
//! missing ([`Absent::of`], computed once here): `{"required": null}`,
//! `{"null": null}`, `{"zero": null}` or `{"default": DEFAULT}`, the default
//! typed by the field (`f32` rounding applied). Readers of compiled schemas
//! without it derive it (see [`Compiled::from_bytes`]).

use super::{
    Absent, DefaultValue, EnumDef, EnumVariant, Field, Message, Schema, TypeRef, UnionDef,
    UnionVariant,
};
use crate::builder::Builder;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::{MapReader, Reader};
use crate::verify::verify;

const FORMAT: &str = "flexbuf-schema";
const VERSION: u64 = 1;

/// The type's string form (`[i32]`, `message:ns.Point`, ...).
pub fn type_string(t: &TypeRef) -> String {
    match t {
        TypeRef::Bool => "bool".into(),
        TypeRef::I8 => "i8".into(),
        TypeRef::I16 => "i16".into(),
        TypeRef::I32 => "i32".into(),
        TypeRef::I64 => "i64".into(),
        TypeRef::U8 => "u8".into(),
        TypeRef::U16 => "u16".into(),
        TypeRef::U32 => "u32".into(),
        TypeRef::U64 => "u64".into(),
        TypeRef::F32 => "f32".into(),
        TypeRef::F64 => "f64".into(),
        TypeRef::String => "string".into(),
        TypeRef::Bytes => "bytes".into(),
        TypeRef::Vector(e) => format!("[{}]", type_string(e)),
        TypeRef::Array(e, n) => format!("[{}; {n}]", type_string(e)),
        TypeRef::Map(v) => format!("{{string:{}}}", type_string(v)),
        TypeRef::Message(n) => format!("message:{n}"),
        TypeRef::Enum(n) => format!("enum:{n}"),
        TypeRef::Union(n) => format!("union:{n}"),
    }
}

/// Parses a type string written by [`type_string`].
pub fn parse_type_string(s: &str) -> Option<TypeRef> {
    Some(match s {
        "bool" => TypeRef::Bool,
        "i8" => TypeRef::I8,
        "i16" => TypeRef::I16,
        "i32" => TypeRef::I32,
        "i64" => TypeRef::I64,
        "u8" => TypeRef::U8,
        "u16" => TypeRef::U16,
        "u32" => TypeRef::U32,
        "u64" => TypeRef::U64,
        "f32" => TypeRef::F32,
        "f64" => TypeRef::F64,
        "string" => TypeRef::String,
        "bytes" => TypeRef::Bytes,
        _ => {
            if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                // `[T; N]`: elements are scalars, whose strings hold no `;`.
                match inner.rsplit_once("; ") {
                    Some((elem, n)) if !elem.contains(['[', '{']) => {
                        TypeRef::Array(Box::new(parse_type_string(elem)?), n.parse().ok()?)
                    }
                    _ => TypeRef::Vector(Box::new(parse_type_string(inner)?)),
                }
            } else if let Some(inner) = s.strip_prefix("{string:").and_then(|r| r.strip_suffix('}'))
            {
                TypeRef::Map(Box::new(parse_type_string(inner)?))
            } else if let Some(n) = s.strip_prefix("message:") {
                TypeRef::Message(n.into())
            } else if let Some(n) = s.strip_prefix("enum:") {
                TypeRef::Enum(n.into())
            } else if let Some(n) = s.strip_prefix("union:") {
                TypeRef::Union(n.into())
            } else {
                return None;
            }
        }
    })
}

impl Schema {
    /// The compiled form of this schema.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut b = Builder::new();
        b.start_map();
        b.key("format");
        b.string(FORMAT);
        b.key("version");
        b.uint(VERSION);
        b.key("messages");
        b.start_vector();
        for m in &self.messages {
            write_message(&mut b, m)?;
        }
        b.end_vector()?;
        b.key("enums");
        b.start_vector();
        for e in &self.enums {
            b.start_map();
            b.key("name");
            b.string(&e.name);
            doc(&mut b, &e.doc)?;
            b.key("repr");
            b.string(&type_string(&e.repr));
            b.key("variants");
            b.start_vector();
            for v in &e.variants {
                b.start_map();
                b.key("name");
                b.string(&v.name);
                b.key("value");
                b.int(v.value);
                doc(&mut b, &v.doc)?;
                b.end_map()?;
            }
            b.end_vector()?;
            b.end_map()?;
        }
        b.end_vector()?;
        b.key("unions");
        b.start_vector();
        for u in &self.unions {
            b.start_map();
            b.key("name");
            b.string(&u.name);
            doc(&mut b, &u.doc)?;
            b.key("variants");
            b.start_vector();
            for v in &u.variants {
                b.start_map();
                b.key("name");
                b.string(&v.name);
                b.key("wire_name");
                b.string(&v.wire_name);
                b.key("type");
                b.string(&type_string(&v.ty));
                doc(&mut b, &v.doc)?;
                b.end_map()?;
            }
            b.end_vector()?;
            b.end_map()?;
        }
        b.end_vector()?;
        b.end_map()?;
        b.finish_vec()
    }

    /// Reads a compiled schema (verifying the bytes first).
    pub fn from_bytes(bytes: &[u8]) -> Result<Schema> {
        Compiled::from_bytes(bytes).map(|c| c.schema)
    }
}

/// A compiled schema as read back: the model, plus the absent value of every
/// field as [`Absent::of`] computed it when the schema was compiled, so that
/// a consumer of the bytes (the Python SDK) follows the compiler's rules
/// without deriving them again.
///
/// ```
/// use flexbuf::schema::{Absent, Compiled, Field, Message, Schema, TypeRef};
///
/// let field = Field {
///     name: "id".into(),
///     wire_name: "id".into(),
///     ty: TypeRef::U32,
///     optional: false,
///     required: true,
///     deprecated: false,
///     default: None,
///     doc: vec![],
/// };
/// let schema = Schema {
///     messages: vec![Message { name: "ns.User".into(), fields: vec![field], ..Message::default() }],
///     ..Schema::default()
/// };
/// let compiled = Compiled::from_bytes(&schema.to_bytes()?)?;
/// assert_eq!(compiled.schema, schema);
/// assert_eq!(compiled.wire_fields(0)[0].1, &Absent::Required);
/// # Ok::<(), flexbuf::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compiled {
    /// The schema model.
    pub schema: Schema,
    /// Per message (index order), per field (declaration order).
    absent: Vec<Vec<Absent>>,
}

impl Compiled {
    /// The fields of message `index` that are written and read, in wire order
    /// (as [`Message::wire_fields`]), each with its absent value.
    ///
    /// # Panics
    ///
    /// When `index` is not the index of a message.
    pub fn wire_fields(&self, index: usize) -> Vec<(&Field, &Absent)> {
        let m = &self.schema.messages[index];
        m.wire_indices()
            .into_iter()
            .map(|i| (&m.fields[i], &self.absent[index][i]))
            .collect()
    }

    /// Reads a compiled schema (verifying the bytes first). Schemas compiled
    /// before absent values were written read too: their absent values are
    /// derived with [`Absent::of`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Compiled> {
        let root = verify(bytes)?.root().as_map()?;
        if root.get("format")?.as_str()? != FORMAT {
            return Err(bad("not a compiled flexbuf schema"));
        }
        let version = root.get("version")?.as_u64()?;
        if version != VERSION {
            return Err(bad(&format!(
                "compiled schema version {version} is not supported (expected {VERSION})"
            )));
        }
        let mut schema = Schema::default();
        let mut absent = Vec::new();
        for m in root.get("messages")?.as_vector()?.iter() {
            let (message, fields) = read_message(&m?.as_map()?)?;
            schema.messages.push(message);
            absent.push(fields);
        }
        for e in root.get("enums")?.as_vector()?.iter() {
            let e = e?.as_map()?;
            let mut variants = Vec::new();
            for v in e.get("variants")?.as_vector()?.iter() {
                let v = v?.as_map()?;
                variants.push(EnumVariant {
                    name: string(&v, "name")?,
                    value: v.get("value")?.as_i64()?,
                    doc: read_doc(&v)?,
                });
            }
            schema.enums.push(EnumDef {
                name: string(&e, "name")?,
                doc: read_doc(&e)?,
                repr: ty(&e, "repr")?,
                variants,
            });
        }
        for u in root.get("unions")?.as_vector()?.iter() {
            let u = u?.as_map()?;
            let mut variants = Vec::new();
            for v in u.get("variants")?.as_vector()?.iter() {
                let v = v?.as_map()?;
                variants.push(UnionVariant {
                    name: string(&v, "name")?,
                    wire_name: string(&v, "wire_name")?,
                    ty: ty(&v, "type")?,
                    doc: read_doc(&v)?,
                });
            }
            schema.unions.push(UnionDef {
                name: string(&u, "name")?,
                doc: read_doc(&u)?,
                variants,
            });
        }
        Ok(Compiled { schema, absent })
    }
}

fn bad(msg: &str) -> Error {
    Error::new(ErrorKind::Schema(msg.to_string()))
}

fn doc(b: &mut Builder, lines: &[String]) -> Result<()> {
    b.key("doc");
    b.start_vector();
    for l in lines {
        b.string(l);
    }
    b.end_vector()
}

fn write_message(b: &mut Builder, m: &Message) -> Result<()> {
    b.start_map();
    b.key("name");
    b.string(&m.name);
    doc(b, &m.doc)?;
    b.key("reserved");
    b.start_vector();
    for r in &m.reserved {
        b.string(r);
    }
    b.end_vector()?;
    b.key("fields");
    b.start_vector();
    for f in &m.fields {
        b.start_map();
        b.key("name");
        b.string(&f.name);
        b.key("wire_name");
        b.string(&f.wire_name);
        b.key("type");
        b.string(&type_string(&f.ty));
        b.key("optional");
        b.bool(f.optional);
        b.key("required");
        b.bool(f.required);
        b.key("deprecated");
        b.bool(f.deprecated);
        doc(b, &f.doc)?;
        if let Some(d) = &f.default {
            b.key("default");
            write_default(b, d)?;
        }
        b.key("absent");
        b.start_map();
        match Absent::of(f) {
            Absent::Required => {
                b.key("required");
                b.null();
            }
            Absent::Null => {
                b.key("null");
                b.null();
            }
            Absent::Zero => {
                b.key("zero");
                b.null();
            }
            Absent::Default(d) => {
                b.key("default");
                write_default(b, &d)?;
            }
        }
        b.end_map()?;
        b.end_map()?;
    }
    b.end_vector()?;
    b.end_map()
}

fn write_default(b: &mut Builder, d: &DefaultValue) -> Result<()> {
    b.start_map();
    match d {
        DefaultValue::Bool(v) => {
            b.key("bool");
            b.bool(*v);
        }
        DefaultValue::Int(v) => {
            b.key("int");
            b.int(*v);
        }
        DefaultValue::UInt(v) => {
            b.key("uint");
            b.uint(*v);
        }
        DefaultValue::Float(v) => {
            b.key("float");
            b.double(*v);
        }
        DefaultValue::String(v) => {
            b.key("string");
            b.string(v);
        }
        DefaultValue::EnumVariant(v) => {
            b.key("enum");
            b.string(v);
        }
        DefaultValue::Null => {
            b.key("null");
            b.null();
        }
    }
    b.end_map()
}

/// A one-entry map `{kind: value}`: its key and value.
fn one_entry<'a>(r: Reader<'a>, what: &str) -> Result<(&'a str, Reader<'a>)> {
    let m = r.as_map()?;
    if m.len() != 1 {
        return Err(bad(&format!("{what} must be a map with one entry")));
    }
    Ok((m.key(0)?, m.value(0)?))
}

fn read_default(r: Reader<'_>) -> Result<DefaultValue> {
    let (kind, v) = one_entry(r, "a default")?;
    Ok(match kind {
        "bool" => DefaultValue::Bool(v.as_bool()?),
        "int" => DefaultValue::Int(v.as_i64()?),
        "uint" => DefaultValue::UInt(v.as_u64()?),
        "float" => DefaultValue::Float(v.as_f64()?),
        "string" => DefaultValue::String(v.as_str()?.to_string()),
        "enum" => DefaultValue::EnumVariant(v.as_str()?.to_string()),
        "null" => DefaultValue::Null,
        other => return Err(bad(&format!("unknown default kind {other:?}"))),
    })
}

fn read_absent(r: Reader<'_>) -> Result<Absent> {
    let (kind, v) = one_entry(r, "an absent value")?;
    Ok(match kind {
        "required" => Absent::Required,
        "null" => Absent::Null,
        "zero" => Absent::Zero,
        "default" => Absent::Default(read_default(v)?),
        other => return Err(bad(&format!("unknown absent kind {other:?}"))),
    })
}

fn string(m: &MapReader<'_>, key: &str) -> Result<String> {
    Ok(m.get(key)?.as_str()?.to_string())
}

fn ty(m: &MapReader<'_>, key: &str) -> Result<TypeRef> {
    let s = m.get(key)?.as_str()?;
    parse_type_string(s).ok_or_else(|| bad(&format!("unknown type {s:?} in compiled schema")))
}

fn read_doc(m: &MapReader<'_>) -> Result<Vec<String>> {
    m.get("doc")?
        .as_vector()?
        .iter()
        .map(|l| Ok(l?.as_str()?.to_string()))
        .collect()
}

/// A message and the absent values of its fields (declaration order).
fn read_message(m: &MapReader<'_>) -> Result<(Message, Vec<Absent>)> {
    let mut fields = Vec::new();
    let mut absent = Vec::new();
    for f in m.get("fields")?.as_vector()?.iter() {
        let f = f?.as_map()?;
        let default = f.find("default")?.map(read_default).transpose()?;
        let field = Field {
            name: string(&f, "name")?,
            wire_name: string(&f, "wire_name")?,
            ty: ty(&f, "type")?,
            optional: f.get("optional")?.as_bool()?,
            required: f.get("required")?.as_bool()?,
            deprecated: f.get("deprecated")?.as_bool()?,
            default,
            doc: read_doc(&f)?,
        };
        // Schemas compiled before absent values were written: derive them.
        absent.push(match f.find("absent")? {
            Some(a) => read_absent(a)?,
            None => Absent::of(&field),
        });
        fields.push(field);
    }
    let reserved = m
        .get("reserved")?
        .as_vector()?
        .iter()
        .map(|r| Ok(r?.as_str()?.to_string()))
        .collect::<Result<_>>()?;
    let message = Message {
        name: string(m, "name")?,
        doc: read_doc(m)?,
        fields,
        reserved,
    };
    Ok((message, absent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_schema_round_trips() {
        let schema = Schema {
            messages: vec![Message {
                name: "ns.Point".into(),
                doc: vec!["A point.".into()],
                fields: vec![Field {
                    name: "x".into(),
                    wire_name: "X".into(),
                    ty: TypeRef::Vector(Box::new(TypeRef::Map(Box::new(TypeRef::Enum(
                        "ns.Color".into(),
                    ))))),
                    optional: true,
                    required: false,
                    deprecated: false,
                    default: Some(DefaultValue::Float(1.5)),
                    doc: vec![],
                }],
                reserved: vec!["old".into()],
            }],
            enums: vec![EnumDef {
                name: "ns.Color".into(),
                doc: vec![],
                repr: TypeRef::U8,
                variants: vec![EnumVariant {
                    name: "Red".into(),
                    value: 1,
                    doc: vec!["r".into()],
                }],
            }],
            unions: vec![UnionDef {
                name: "ns.U".into(),
                doc: vec![],
                variants: vec![UnionVariant {
                    name: "P".into(),
                    wire_name: "p".into(),
                    ty: TypeRef::Message("ns.Point".into()),
                    doc: vec![],
                }],
            }],
        };
        let bytes = schema.to_bytes().unwrap();
        assert_eq!(Schema::from_bytes(&bytes).unwrap(), schema);
        assert!(Schema::from_bytes(&bytes[1..]).is_err());
    }

    #[test]
    fn type_strings_round_trip() {
        let array = |t: TypeRef, n| TypeRef::Array(Box::new(t), n);
        let vector = |t: TypeRef| TypeRef::Vector(Box::new(t));
        for (t, s) in [
            (array(TypeRef::F32, 3), "[f32; 3]"),
            (vector(array(TypeRef::U32, 4)), "[[u32; 4]]"),
            (
                TypeRef::Map(Box::new(array(TypeRef::Bool, 1))),
                "{string:[bool; 1]}",
            ),
            (vector(vector(TypeRef::I8)), "[[i8]]"),
            (vector(TypeRef::Message("ns.M".into())), "[message:ns.M]"),
        ] {
            assert_eq!(type_string(&t), s);
            assert_eq!(parse_type_string(s), Some(t));
        }
        assert_eq!(parse_type_string("[f32; x]"), None);
    }

    fn field(name: &str, ty: TypeRef, optional: bool, default: Option<DefaultValue>) -> Field {
        Field {
            name: name.into(),
            wire_name: name.into(),
            ty,
            optional,
            required: false,
            deprecated: false,
            default,
            doc: vec![],
        }
    }

    fn absent_schema() -> Schema {
        let mut required = field("a_req", TypeRef::I32, false, None);
        required.required = true;
        let mut gone = field("old", TypeRef::I32, false, None);
        gone.deprecated = true;
        Schema {
            messages: vec![Message {
                name: "ns.M".into(),
                fields: vec![
                    field(
                        "z_ratio",
                        TypeRef::F32,
                        false,
                        Some(DefaultValue::Float(0.1)),
                    ),
                    gone,
                    required,
                    field("m_opt", TypeRef::String, true, None),
                    field(
                        "n_zero",
                        TypeRef::Vector(Box::new(TypeRef::U8)),
                        false,
                        None,
                    ),
                    field("f_int", TypeRef::F64, true, Some(DefaultValue::UInt(3))),
                ],
                ..Message::default()
            }],
            ..Schema::default()
        }
    }

    fn expected_absent() -> Vec<(&'static str, Absent)> {
        vec![
            ("a_req", Absent::Required),
            ("f_int", Absent::Default(DefaultValue::Float(3.0))),
            ("m_opt", Absent::Null),
            ("n_zero", Absent::Zero),
            (
                "z_ratio",
                Absent::Default(DefaultValue::Float(f64::from(0.1f32))),
            ),
        ]
    }

    fn wire_absent(c: &Compiled) -> Vec<(&str, Absent)> {
        c.wire_fields(0)
            .into_iter()
            .map(|(f, a)| (f.wire_name.as_str(), a.clone()))
            .collect()
    }

    #[test]
    fn absent_values_are_written_and_read_back() {
        let schema = absent_schema();
        let compiled = Compiled::from_bytes(&schema.to_bytes().unwrap()).unwrap();
        assert_eq!(compiled.schema, schema);
        assert_eq!(wire_absent(&compiled), expected_absent());
        // What is read is what was written, not derived again.
        let json = crate::to_json(&schema.to_bytes().unwrap()).unwrap();
        assert!(json.contains(r#""absent":{"default":{"float":0.10000000149011612}}"#));
    }

    #[test]
    fn schemas_compiled_without_absent_values_still_read() {
        let schema = absent_schema();
        let mut old: serde_json::Value =
            serde_json::from_str(&crate::to_json(&schema.to_bytes().unwrap()).unwrap()).unwrap();
        for f in old["messages"][0]["fields"].as_array_mut().unwrap() {
            assert!(f.as_object_mut().unwrap().remove("absent").is_some());
        }
        let old = crate::from_json(&old.to_string()).unwrap();
        let compiled = Compiled::from_bytes(&old).unwrap();
        assert_eq!(compiled.schema, schema);
        assert_eq!(wire_absent(&compiled), expected_absent());
    }
}
