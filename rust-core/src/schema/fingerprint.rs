//! The schema fingerprint: a stable 64-bit identity of a message type's wire contract.
//!
//! `fingerprint = FNV-1a-64(canonical bytes)`, with offset basis
//! `0xcbf29ce484222325` and prime `0x100000001b3`. The canonical bytes of a
//! message are, in order (integers little-endian):
//!
//! - the magic `b"FXS1"`;
//! - the number of wire fields as `u32`;
//! - for each wire field in wire order (non-deprecated fields sorted by wire
//!   name, unsigned bytes): the wire name as `u32` length + UTF-8 bytes, the
//!   type (below), a flags byte (bit 0 optional, bit 1 required), then the
//!   default: `0x00` for none, or `0x01` followed by the default's encoding
//!   (below).
//!
//! Types: `bool 0x01, i8 0x02, i16 0x03, i32 0x04, i64 0x05, u8 0x06, u16 0x07,
//! u32 0x08, u64 0x09, f32 0x0a, f64 0x0b, string 0x0c, bytes 0x0d`;
//! `[T]` is `0x10` + T; `{string: T}` is `0x11` + T; the array `[T; N]` is
//! `0x16` + T + N as `u32`; a message is `0x12` + the
//! canonical bytes of that message (nested, so its fields count), except that
//! a message already being encoded further up (recursion) is `0x13` + its
//! distance up that stack as `u32` (1 = the innermost); an enum is `0x14` +
//! its integer type + the variant count as `u32` + each variant sorted by
//! value (`i64` value, then `u32` length + name); a union is `0x15` + the
//! variant count as `u32` + each variant in declaration order (`u32` length +
//! wire name, then its type).
//!
//! Defaults: bool `0x01` + 1 byte; signed integer `0x02` + `i64`; unsigned
//! integer above `i64::MAX` `0x03` + `u64`; float `0x04` + the `f64` bits as
//! `u64`; string `0x05` + `u32` length + bytes; enum variant `0x02` + its
//! value as `i64` (the same as the integer). An explicit `= null` default
//! counts as no default (`0x00`), since it means the same.
//!
//! A union has a fingerprint too (its coders use it like a message's): the
//! canonical bytes of a message with one required field `u` of that union
//! type, so `FXS1`, count 1, `u`, `0x15` + the union, flags `0x02`, no default.
//!
//! Type names are not part of the fingerprint (renaming a type keeps the
//! wire contract); wire names, types, nullability, nesting, defaults and the
//! wire order of fields are.

use super::{DefaultValue, Schema, TypeRef};

/// FNV-1a, 64-bit.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The canonical bytes of message `name` (empty when the schema lacks it).
pub fn fingerprint_bytes(schema: &Schema, name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    message(schema, name, &mut stack, &mut out);
    out
}

/// The canonical bytes of union `name` (see the module docs; empty when the
/// schema lacks it).
pub fn union_fingerprint_bytes(schema: &Schema, name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    if schema.union_def(name).is_none() {
        return out;
    }
    out.extend_from_slice(b"FXS1");
    out.extend_from_slice(&1u32.to_le_bytes());
    put_str(&mut out, "u");
    ty(
        schema,
        &TypeRef::Union(name.to_string()),
        &mut Vec::new(),
        &mut out,
    );
    out.push(0x02);
    out.push(0x00);
    out
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn message<'s>(schema: &'s Schema, name: &'s str, stack: &mut Vec<&'s str>, out: &mut Vec<u8>) {
    let Some(m) = schema.message(name) else {
        return;
    };
    stack.push(name);
    out.extend_from_slice(b"FXS1");
    let fields = m.wire_fields();
    out.extend_from_slice(&(fields.len() as u32).to_le_bytes());
    for f in fields {
        put_str(out, &f.wire_name);
        ty(schema, &f.ty, stack, out);
        out.push(f.optional as u8 | (f.required as u8) << 1);
        match &f.default {
            // `= null` on an optional field means the same as no default.
            None | Some(DefaultValue::Null) => out.push(0),
            Some(d) => {
                out.push(1);
                default(schema, &f.ty, d, out);
            }
        }
    }
    stack.pop();
}

fn ty<'s>(schema: &'s Schema, t: &'s TypeRef, stack: &mut Vec<&'s str>, out: &mut Vec<u8>) {
    match t {
        TypeRef::Bool => out.push(0x01),
        TypeRef::I8 => out.push(0x02),
        TypeRef::I16 => out.push(0x03),
        TypeRef::I32 => out.push(0x04),
        TypeRef::I64 => out.push(0x05),
        TypeRef::U8 => out.push(0x06),
        TypeRef::U16 => out.push(0x07),
        TypeRef::U32 => out.push(0x08),
        TypeRef::U64 => out.push(0x09),
        TypeRef::F32 => out.push(0x0a),
        TypeRef::F64 => out.push(0x0b),
        TypeRef::String => out.push(0x0c),
        TypeRef::Bytes => out.push(0x0d),
        TypeRef::Vector(e) => {
            out.push(0x10);
            ty(schema, e, stack, out);
        }
        TypeRef::Map(v) => {
            out.push(0x11);
            ty(schema, v, stack, out);
        }
        TypeRef::Array(e, n) => {
            out.push(0x16);
            ty(schema, e, stack, out);
            out.extend_from_slice(&(*n as u32).to_le_bytes());
        }
        TypeRef::Message(name) => match stack.iter().rev().position(|s| s == name) {
            Some(up) => {
                out.push(0x13);
                out.extend_from_slice(&(up as u32 + 1).to_le_bytes());
            }
            None => {
                out.push(0x12);
                message(schema, name, stack, out);
            }
        },
        TypeRef::Enum(name) => {
            out.push(0x14);
            if let Some(e) = schema.enum_def(name) {
                ty(schema, &e.repr, stack, out);
                let mut variants: Vec<_> = e.variants.iter().collect();
                variants.sort_by_key(|v| v.value);
                out.extend_from_slice(&(variants.len() as u32).to_le_bytes());
                for v in variants {
                    out.extend_from_slice(&v.value.to_le_bytes());
                    put_str(out, &v.name);
                }
            }
        }
        TypeRef::Union(name) => {
            out.push(0x15);
            if let Some(u) = schema.union_def(name) {
                out.extend_from_slice(&(u.variants.len() as u32).to_le_bytes());
                for v in &u.variants {
                    put_str(out, &v.wire_name);
                    ty(schema, &v.ty, stack, out);
                }
            }
        }
    }
}

fn default(schema: &Schema, t: &TypeRef, d: &DefaultValue, out: &mut Vec<u8>) {
    match d {
        DefaultValue::Bool(b) => out.extend_from_slice(&[0x01, *b as u8]),
        DefaultValue::Int(i) => {
            out.push(0x02);
            out.extend_from_slice(&i.to_le_bytes());
        }
        DefaultValue::UInt(u) => {
            out.push(0x03);
            out.extend_from_slice(&u.to_le_bytes());
        }
        DefaultValue::Float(f) => {
            out.push(0x04);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        DefaultValue::String(s) => {
            out.push(0x05);
            put_str(out, s);
        }
        DefaultValue::EnumVariant(v) => {
            let value = match t {
                TypeRef::Enum(e) => schema
                    .enum_def(e)
                    .and_then(|e| e.variants.iter().find(|x| &x.name == v))
                    .map(|x| x.value),
                _ => None,
            };
            out.push(0x02);
            out.extend_from_slice(&value.unwrap_or(0).to_le_bytes());
        }
        DefaultValue::Null => out.push(0x06),
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    fn field(name: &str, ty: TypeRef) -> Field {
        Field {
            name: name.into(),
            wire_name: name.into(),
            ty,
            optional: false,
            required: false,
            deprecated: false,
            default: None,
            doc: vec![],
        }
    }

    fn schema(fields: Vec<Field>) -> Schema {
        Schema {
            messages: vec![Message {
                name: "t.Address".into(),
                fields,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn fnv_matches_published_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn canonical_bytes_are_as_documented() {
        let s = schema(vec![
            field("zip", TypeRef::I32),
            field("street", TypeRef::String),
        ]);
        let mut expected = b"FXS1".to_vec();
        expected.extend_from_slice(&2u32.to_le_bytes());
        expected.extend_from_slice(&6u32.to_le_bytes());
        expected.extend_from_slice(b"street");
        expected.extend_from_slice(&[0x0c, 0, 0]);
        expected.extend_from_slice(&3u32.to_le_bytes());
        expected.extend_from_slice(b"zip");
        expected.extend_from_slice(&[0x04, 0, 0]);
        assert_eq!(fingerprint_bytes(&s, "t.Address"), expected);
    }

    #[test]
    fn array_bytes_are_as_documented_and_differ_from_vectors_and_other_lengths() {
        let s = schema(vec![field(
            "pos",
            TypeRef::Array(Box::new(TypeRef::F32), 3),
        )]);
        let mut expected = b"FXS1".to_vec();
        expected.extend_from_slice(&1u32.to_le_bytes());
        expected.extend_from_slice(&3u32.to_le_bytes());
        expected.extend_from_slice(b"pos");
        expected.extend_from_slice(&[0x16, 0x0a]);
        expected.extend_from_slice(&3u32.to_le_bytes());
        expected.extend_from_slice(&[0, 0]);
        assert_eq!(fingerprint_bytes(&s, "t.Address"), expected);
        let vector = schema(vec![field("pos", TypeRef::Vector(Box::new(TypeRef::F32)))]);
        let four = schema(vec![field(
            "pos",
            TypeRef::Array(Box::new(TypeRef::F32), 4),
        )]);
        let f = s.fingerprint("t.Address");
        assert_ne!(f, vector.fingerprint("t.Address"));
        assert_ne!(f, four.fingerprint("t.Address"));
    }

    #[test]
    fn declaration_order_and_names_do_not_matter_but_wire_contract_does() {
        let a = schema(vec![
            field("zip", TypeRef::I32),
            field("street", TypeRef::String),
        ]);
        let b = schema(vec![
            field("street", TypeRef::String),
            field("zip", TypeRef::I32),
        ]);
        assert_eq!(a.fingerprint("t.Address"), b.fingerprint("t.Address"));
        let mut c = a.clone();
        c.messages[0].fields[0].optional = true;
        assert_ne!(a.fingerprint("t.Address"), c.fingerprint("t.Address"));
        let mut d = a.clone();
        d.messages[0].fields[0].ty = TypeRef::I64;
        assert_ne!(a.fingerprint("t.Address"), d.fingerprint("t.Address"));
        let mut e = a.clone();
        e.messages[0].fields[0].default = Some(DefaultValue::Int(7));
        assert_ne!(a.fingerprint("t.Address"), e.fingerprint("t.Address"));
    }

    #[test]
    fn recursive_messages_terminate() {
        let s = Schema {
            messages: vec![Message {
                name: "t.Tree".into(),
                fields: vec![field(
                    "children",
                    TypeRef::Vector(Box::new(TypeRef::Message("t.Tree".into()))),
                )],
                ..Default::default()
            }],
            ..Default::default()
        };
        let bytes = fingerprint_bytes(&s, "t.Tree");
        assert!(bytes.ends_with(&[0x10, 0x13, 1, 0, 0, 0, 0, 0]));
    }

    #[test]
    fn a_union_fingerprint_is_that_of_a_one_field_wrapper_message() {
        let mut s = schema(vec![field("zip", TypeRef::I32)]);
        s.unions.push(UnionDef {
            name: "t.U".into(),
            doc: vec![],
            variants: vec![UnionVariant {
                name: "A".into(),
                wire_name: "a".into(),
                ty: TypeRef::Message("t.Address".into()),
                doc: vec![],
            }],
        });
        let mut wrapper = s.clone();
        let mut u = field("u", TypeRef::Union("t.U".into()));
        u.required = true;
        wrapper.messages.push(Message {
            name: "w.Wrapper".into(),
            fields: vec![u],
            ..Default::default()
        });
        assert_eq!(s.union_fingerprint("t.U"), wrapper.fingerprint("w.Wrapper"));
        assert_eq!(s.union_fingerprint("t.Nope"), None);
    }
}
