//! The syntax tree of one `.fxs` file: what was written, with positions, before
//! names are resolved and rules are checked.

use flexbuf::schema::TypeRef;

use super::lexer::Pos;

/// A name and where it was written.
#[derive(Clone, Debug)]
pub(crate) struct Spanned<T> {
    pub value: T,
    pub pos: Pos,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct FileAst {
    pub namespace: Option<Spanned<String>>,
    pub imports: Vec<Spanned<String>>,
    pub decls: Vec<Decl>,
}

#[derive(Clone, Debug)]
pub(crate) enum Decl {
    Message(MessageAst),
    Enum(EnumAst),
    Union(UnionAst),
}

impl Decl {
    pub fn name(&self) -> &Spanned<String> {
        match self {
            Decl::Message(m) => &m.name,
            Decl::Enum(e) => &e.name,
            Decl::Union(u) => &u.name,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct MessageAst {
    pub name: Spanned<String>,
    pub doc: Vec<String>,
    pub fields: Vec<FieldAst>,
    pub reserved: Vec<Spanned<String>>,
}

#[derive(Clone, Debug)]
pub(crate) struct FieldAst {
    pub name: Spanned<String>,
    pub doc: Vec<String>,
    pub ty: TypeAst,
    /// Position of the `?`, when the field is optional.
    pub optional: Option<Pos>,
    pub default: Option<Spanned<Literal>>,
    /// Position of the `required` attribute.
    pub required: Option<Pos>,
    /// Position of the `deprecated` attribute.
    pub deprecated: Option<Pos>,
    /// The `wire_name = "..."` string and its position.
    pub wire_name: Option<Spanned<String>>,
    /// The `ts_int64 = "..."` policy (how the TypeScript coders type this
    /// field's 64-bit integers) and its position.
    pub ts_int64: Option<Spanned<String>>,
}

#[derive(Clone, Debug)]
pub(crate) enum TypeAst {
    /// A built-in type (scalar, `string`, `bytes`).
    Builtin(TypeRef, Pos),
    /// `[T]`, or the array `[T; N]` when `len` is written; `elem_optional`
    /// is the position of a `?` written after `T`.
    Vector {
        elem: Box<TypeAst>,
        elem_optional: Option<Pos>,
        len: Option<Spanned<i128>>,
        pos: Pos,
    },
    /// `{K: V}`; `value_optional` is the position of a `?` after V.
    Map {
        key: Box<TypeAst>,
        value: Box<TypeAst>,
        value_optional: Option<Pos>,
        pos: Pos,
    },
    /// A (possibly qualified) type name.
    Named(String, Pos),
}

impl TypeAst {
    pub fn pos(&self) -> Pos {
        match self {
            TypeAst::Builtin(_, pos) | TypeAst::Named(_, pos) => *pos,
            TypeAst::Vector { pos, .. } | TypeAst::Map { pos, .. } => *pos,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct EnumAst {
    pub name: Spanned<String>,
    pub doc: Vec<String>,
    pub repr: TypeAst,
    pub variants: Vec<VariantAst>,
}

#[derive(Clone, Debug)]
pub(crate) struct VariantAst {
    pub name: Spanned<String>,
    pub doc: Vec<String>,
    pub value: Spanned<i128>,
}

#[derive(Clone, Debug)]
pub(crate) struct UnionAst {
    pub name: Spanned<String>,
    pub doc: Vec<String>,
    pub variants: Vec<UVariantAst>,
}

#[derive(Clone, Debug)]
pub(crate) struct UVariantAst {
    pub name: Spanned<String>,
    pub doc: Vec<String>,
    pub ty: TypeAst,
    pub wire_name: Option<Spanned<String>>,
}

/// A default value as written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Literal {
    Int(i128),
    /// The value and its source text.
    Float(f64, String),
    Str(String),
    Bool(bool),
    Null,
    /// An identifier: an enum variant name.
    Ident(String),
}

impl Literal {
    /// How the literal is quoted in messages.
    pub fn describe(&self) -> String {
        match self {
            Literal::Int(i) => format!("integer `{i}`"),
            Literal::Float(_, text) => format!("float `{text}`"),
            Literal::Str(s) => format!("string {s:?}"),
            Literal::Bool(b) => format!("`{b}`"),
            Literal::Null => "`null`".to_string(),
            Literal::Ident(name) => format!("`{name}`"),
        }
    }
}
