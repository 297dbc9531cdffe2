//! The plan: every language-neutral fact the backends need, computed once per
//! parsed schema, so backends only name things and emit text.
//!
//! For each message: its fields in declaration order and in wire order, what
//! each field decodes to when absent ([`Absent`], `f32` rounding applied), the
//! fingerprint, whether a field reaches its own message without an
//! indirection (recursion a value type must break with a box), whether floats
//! occur anywhere inside (no total equality), and whether every field has a
//! value without input (a default constructor). For unions the same
//! fingerprint, float and recursion facts; for enums the zero variant.
//!
//! ```
//! let parsed = flexbuf_codegen::parse_str(
//!     "t.fxs",
//!     "namespace t;\nmessage M { zeta: i32; alpha: f32 = 0.1; }",
//! )
//! .unwrap();
//! let plan = flexbuf_codegen::plan::Plan::new(&parsed).unwrap();
//! let m = &plan.messages[0];
//! let wire: Vec<&str> = m.wire_fields().map(|f| f.def.wire_name.as_str()).collect();
//! assert_eq!(wire, ["alpha", "zeta"]);
//! assert!(m.has_float && m.defaultable);
//! ```

use flexbuf::schema::{
    short_name, Absent, EnumDef, Field, Message, Schema, TypeRef, UnionDef, UnionVariant,
};

use crate::ParsedSchema;

/// The facts of one parsed schema.
#[derive(Debug)]
pub struct Plan<'p> {
    /// What was parsed (files, positions).
    pub parsed: &'p ParsedSchema,
    /// The schema model.
    pub schema: &'p Schema,
    /// The root file's stem (`shop` for `schemas/shop.fxs`): names the output.
    pub stem: &'p str,
    /// The root file's name (`shop.fxs`), for headers.
    pub source_name: &'p str,
    /// Messages, in schema order.
    pub messages: Vec<MessagePlan<'p>>,
    /// Enums, in schema order.
    pub enums: Vec<EnumPlan<'p>>,
    /// Unions, in schema order.
    pub unions: Vec<UnionPlan<'p>>,
}

/// One message.
#[derive(Debug)]
pub struct MessagePlan<'p> {
    /// The message.
    pub def: &'p Message,
    /// Its schema fingerprint.
    pub fingerprint: u64,
    /// Fields that are written and read (not deprecated), in declaration order.
    pub fields: Vec<FieldPlan<'p>>,
    /// Indices into [`MessagePlan::fields`] in wire order (the keys vector's order).
    pub wire: Vec<usize>,
    /// A float occurs somewhere inside (no total equality).
    pub has_float: bool,
    /// Every field has a value without input: none is a required message or union.
    pub defaultable: bool,
    /// A buffer may hold many values of it: it is an element of a vector or
    /// map, or sits inside one (through fields and unions), or contains
    /// itself. Decoders of such messages expect the keys vector they met
    /// last ([`Plan::repeated_messages`]).
    pub repeated: bool,
}

/// One field that is written and read.
#[derive(Debug)]
pub struct FieldPlan<'p> {
    /// The field.
    pub def: &'p Field,
    /// Its position in wire order (its index in the keys vector).
    pub wire_index: usize,
    /// What decoding yields when the field is missing.
    pub absent: Absent,
    /// Its type reaches the owning message without a vector or map between:
    /// a value type needs an indirection (a box) here.
    pub recursive: bool,
}

/// One enum.
#[derive(Debug)]
pub struct EnumPlan<'p> {
    /// The enum.
    pub def: &'p EnumDef,
}

/// One union.
#[derive(Debug)]
pub struct UnionPlan<'p> {
    /// The union.
    pub def: &'p UnionDef,
    /// Its fingerprint ([`Schema::union_fingerprint`]).
    pub fingerprint: u64,
    /// A float occurs somewhere inside.
    pub has_float: bool,
    /// Variants in declaration order.
    pub variants: Vec<VariantPlan<'p>>,
}

/// One union variant.
#[derive(Debug)]
pub struct VariantPlan<'p> {
    /// The variant.
    pub def: &'p UnionVariant,
    /// Its payload reaches the union without an indirection.
    pub recursive: bool,
}

impl<'p> Plan<'p> {
    /// Computes the plan of `parsed`. Fails only when the root file has no
    /// usable name.
    pub fn new(parsed: &'p ParsedSchema) -> Result<Plan<'p>, String> {
        let schema = &parsed.schema;
        let root = parsed.root();
        let stem = root
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: not a schema file name", root.path.display()))?;
        let source_name = root
            .path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or(stem);
        let facts = Facts { schema };
        let repeated = repeated_messages(schema);
        let messages = schema
            .messages
            .iter()
            .map(|m| {
                let wire_order = m.wire_fields();
                let decl: Vec<&Field> = m.fields.iter().filter(|f| !f.deprecated).collect();
                let wire: Vec<usize> = wire_order
                    .iter()
                    .map(|w| decl.iter().position(|f| std::ptr::eq(*f, *w)).unwrap_or(0))
                    .collect();
                let fields = decl
                    .iter()
                    .map(|f| FieldPlan {
                        def: f,
                        wire_index: wire_order
                            .iter()
                            .position(|w| std::ptr::eq(*w, *f))
                            .unwrap_or(0),
                        absent: Absent::of(f),
                        recursive: facts.recursive(&m.name, &f.ty),
                    })
                    .collect();
                MessagePlan {
                    def: m,
                    fingerprint: schema.fingerprint(&m.name).unwrap_or(0),
                    defaultable: decl.iter().all(|f| {
                        f.optional || !matches!(f.ty, TypeRef::Message(_) | TypeRef::Union(_))
                    }),
                    has_float: facts.has_float(&TypeRef::Message(m.name.clone()), &mut Vec::new()),
                    repeated: repeated.contains(&m.name),
                    fields,
                    wire,
                }
            })
            .collect();
        let enums = schema.enums.iter().map(|e| EnumPlan { def: e }).collect();
        let unions = schema
            .unions
            .iter()
            .map(|u| UnionPlan {
                def: u,
                fingerprint: schema.union_fingerprint(&u.name).unwrap_or(0),
                has_float: facts.has_float(&TypeRef::Union(u.name.clone()), &mut Vec::new()),
                variants: u
                    .variants
                    .iter()
                    .map(|v| VariantPlan {
                        def: v,
                        recursive: facts.recursive(&u.name, &v.ty),
                    })
                    .collect(),
            })
            .collect();
        Ok(Plan {
            parsed,
            schema,
            stem,
            source_name,
            messages,
            enums,
            unions,
        })
    }

    /// The namespace of the root file (`""` when it declares none).
    pub fn root_namespace(&self) -> &'p str {
        self.parsed.root().namespace.as_deref().unwrap_or("")
    }

    /// The qualified names of every type: messages, enums, then unions.
    pub fn type_names(&self) -> impl Iterator<Item = &'p str> + '_ {
        self.messages
            .iter()
            .map(|m| m.def.name.as_str())
            .chain(self.enums.iter().map(|e| e.def.name.as_str()))
            .chain(self.unions.iter().map(|u| u.def.name.as_str()))
    }

    /// The qualified names of the messages that hold anything a borrowed
    /// decode takes from the buffer ([`borrows_given`]), directly or through
    /// other messages: the fixed point of "some field borrows".
    pub fn borrowing_messages(&self) -> std::collections::HashSet<String> {
        let mut set = std::collections::HashSet::new();
        loop {
            let before = set.len();
            for m in &self.messages {
                if !set.contains(&m.def.name)
                    && m.fields
                        .iter()
                        .any(|f| borrows_given(&f.def.ty, &|n| set.contains(n)))
                {
                    set.insert(m.def.name.clone());
                }
            }
            if set.len() == before {
                return set;
            }
        }
    }

    /// The first variant of enum `name`: the value of an absent field
    /// without a default ([`Absent::Zero`]).
    pub fn enum_zero(&self, name: &str) -> Option<&'p str> {
        Absent::zero_variant(self.schema, name)
    }
}

impl<'p> MessagePlan<'p> {
    /// The unqualified name.
    pub fn short_name(&self) -> &'p str {
        short_name(&self.def.name)
    }

    /// The fields in wire order.
    pub fn wire_fields(&self) -> impl Iterator<Item = &FieldPlan<'p>> + '_ {
        self.wire.iter().map(|&i| &self.fields[i])
    }
}

/// Recursion and float facts over the schema.
struct Facts<'s> {
    schema: &'s Schema,
}

impl Facts<'_> {
    /// Whether a value of type `t` inside `owner` contains `owner` again without
    /// a vector or map in between.
    fn recursive(&self, owner: &str, t: &TypeRef) -> bool {
        match t {
            TypeRef::Message(m) | TypeRef::Union(m) => self.reaches(m, owner, &mut Vec::new()),
            _ => false,
        }
    }

    /// Whether message or union `from` contains `to` without an indirection.
    fn reaches(&self, from: &str, to: &str, seen: &mut Vec<String>) -> bool {
        if from == to {
            return true;
        }
        if seen.iter().any(|s| s == from) {
            return false;
        }
        seen.push(from.to_string());
        let direct = |t: &TypeRef| -> Vec<String> {
            match t {
                TypeRef::Message(m) => vec![m.clone()],
                TypeRef::Union(u) => self
                    .schema
                    .union_def(u)
                    .map(|u| {
                        u.variants
                            .iter()
                            .filter_map(|v| match &v.ty {
                                TypeRef::Message(m) => Some(m.clone()),
                                _ => None,
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                _ => vec![],
            }
        };
        let targets: Vec<String> = match self.schema.message(from) {
            Some(m) => m.wire_fields().iter().flat_map(|f| direct(&f.ty)).collect(),
            None => self
                .schema
                .union_def(from)
                .map(|u| u.variants.iter().flat_map(|v| direct(&v.ty)).collect())
                .unwrap_or_default(),
        };
        targets.iter().any(|t| self.reaches(t, to, seen))
    }

    /// Whether a float occurs anywhere inside `t`.
    fn has_float(&self, t: &TypeRef, seen: &mut Vec<String>) -> bool {
        match t {
            TypeRef::F32 | TypeRef::F64 => true,
            TypeRef::Vector(e) | TypeRef::Array(e, _) | TypeRef::Map(e) => self.has_float(e, seen),
            TypeRef::Message(n) | TypeRef::Union(n) => {
                if seen.contains(n) {
                    return false;
                }
                seen.push(n.clone());
                if let Some(m) = self.schema.message(n) {
                    m.wire_fields().iter().any(|f| self.has_float(&f.ty, seen))
                } else if let Some(u) = self.schema.union_def(n) {
                    u.variants.iter().any(|v| self.has_float(&v.ty, seen))
                } else {
                    false
                }
            }
            _ => false,
        }
    }
}

/// The qualified names of the messages a buffer may hold many values of:
/// those inside the element type of a vector, array or map anywhere in the
/// schema, those a message reaches again from itself, and everything inside
/// any of them (through fields and union variants), to a fixed point.
fn repeated_messages(schema: &Schema) -> std::collections::HashSet<String> {
    use std::collections::HashSet;
    /// Adds to `out` the messages type `t` holds: all of them when
    /// `in_list`, else only those inside a vector, array or map.
    fn visit(schema: &Schema, t: &TypeRef, in_list: bool, out: &mut HashSet<String>) {
        match t {
            TypeRef::Vector(e) | TypeRef::Array(e, _) | TypeRef::Map(e) => {
                visit(schema, e, true, out)
            }
            TypeRef::Message(n) if in_list => {
                out.insert(n.clone());
            }
            TypeRef::Union(u) => {
                for v in schema.union_def(u).map_or(&[][..], |u| &u.variants[..]) {
                    visit(schema, &v.ty, in_list, out);
                }
            }
            _ => {}
        }
    }
    let facts = Facts { schema };
    let mut set = HashSet::new();
    for m in &schema.messages {
        for f in m.wire_fields() {
            visit(schema, &f.ty, false, &mut set);
            if facts.recursive(&m.name, &f.ty) {
                set.insert(m.name.clone());
            }
        }
    }
    for u in &schema.unions {
        for v in &u.variants {
            visit(schema, &v.ty, false, &mut set);
        }
    }
    loop {
        let before = set.len();
        let members: Vec<String> = set.iter().cloned().collect();
        for name in members {
            if let Some(m) = schema.message(&name) {
                for f in m.wire_fields() {
                    visit(schema, &f.ty, true, &mut set);
                }
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// Whether a value of type `t` holds anything a borrowed decode takes from
/// the buffer: a string, a blob, a map (its keys) or a vector of numbers,
/// directly or through a message for which `message` says so. Enums, unions
/// and fixed-length arrays are always decoded owned.
pub fn borrows_given(t: &TypeRef, message: &dyn Fn(&str) -> bool) -> bool {
    match t {
        TypeRef::String | TypeRef::Bytes | TypeRef::Map(_) => true,
        TypeRef::Vector(e) if e.is_scalar() => **e != TypeRef::Bool,
        TypeRef::Vector(e) => borrows_given(e, message),
        TypeRef::Message(n) => message(n),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages in lists and maps, inside them, in unions inside them, and
    /// those that contain themselves are repeated; a root and its plain
    /// fields are not.
    #[test]
    fn repeated_messages_are_those_a_buffer_may_hold_many_of() {
        let parsed = crate::parse_str(
            "t.fxs",
            "namespace t;\n\
             message Root { items: [Item]; single: Single (required); by_name: {string: Valued}; tree: Tree?; pick: Pick?; }\n\
             message Item { sub: Sub (required); alt: Alt?; }\n\
             message Sub { x: i32; }\n\
             message Single { y: i32; }\n\
             message Valued { z: i32; }\n\
             message Tree { child: Tree?; }\n\
             message InUnion { w: i32; }\n\
             message Deep { v: i32; }\n\
             union Pick { A: InUnion }\n\
             union Alt { B: Deep }\n",
        )
        .unwrap();
        let plan = Plan::new(&parsed).unwrap();
        let repeated: Vec<&str> = plan
            .messages
            .iter()
            .filter(|m| m.repeated)
            .map(|m| m.short_name())
            .collect();
        assert_eq!(repeated, ["Item", "Sub", "Valued", "Tree", "Deep"]);
    }
}
