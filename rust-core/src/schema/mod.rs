//! The schema model: what a `.fxs` file describes, independent of its syntax.
//!
//! `flexbuf-codegen` parses `.fxs` text into this model and generates coders
//! from it; the core uses it for fingerprints (and, in the SDKs, for decoding
//! typed values natively). Names of messages, enums and unions are fully
//! qualified (`acme.shop.Order`); field lists keep declaration order, and
//! [`Message::wire_fields`] gives the wire (sorted) order.

mod absent;
mod binary;
mod fingerprint;

pub use absent::Absent;
pub use binary::{parse_type_string, type_string, Compiled};
pub use fingerprint::{fingerprint_bytes, fnv1a64, union_fingerprint_bytes};

/// A whole schema: every type declared in a file and in the files it imports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// Message types.
    pub messages: Vec<Message>,
    /// Enum types.
    pub enums: Vec<EnumDef>,
    /// Union types.
    pub unions: Vec<UnionDef>,
}

/// A message: encoded as a FlexBuffers map from wire names to field values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Message {
    /// Fully qualified name.
    pub name: String,
    /// Doc comment lines (without the `///`).
    pub doc: Vec<String>,
    /// Fields in declaration order, deprecated ones included.
    pub fields: Vec<Field>,
    /// Names that fields may not use.
    pub reserved: Vec<String>,
}

/// One field of a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Name in the schema (and in generated code, adapted to each language's case).
    pub name: String,
    /// Key on the wire (the name unless overridden with `wire_name`).
    pub wire_name: String,
    /// Value type.
    pub ty: TypeRef,
    /// `T?`: explicit null is a value distinct from absence.
    pub optional: bool,
    /// Absence is an error when decoding.
    pub required: bool,
    /// Deprecated fields are neither written nor read; their name stays reserved.
    pub deprecated: bool,
    /// Value used when the field is absent.
    pub default: Option<DefaultValue>,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeRef {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `string`
    String,
    /// `bytes` (a blob)
    Bytes,
    /// `[T]`
    Vector(Box<TypeRef>),
    /// `[T; N]`: exactly `N` elements of a scalar `T` (bool, an integer or a
    /// float), `1 <= N <=` [`MAX_ARRAY_LEN`]. Written as a FlexBuffers fixed
    /// typed vector when `N` is 2, 3 or 4 and `T` is not bool (see
    /// [`TypeRef::fixed_vector_form`]), else as a typed vector; decoded from
    /// any vector of `N` convertible elements.
    Array(Box<TypeRef>, usize),
    /// `{string: T}`
    Map(Box<TypeRef>),
    /// A message, by qualified name.
    Message(String),
    /// An enum, by qualified name.
    Enum(String),
    /// A union, by qualified name.
    Union(String),
}

impl TypeRef {
    /// True for the integer types.
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            TypeRef::I8
                | TypeRef::I16
                | TypeRef::I32
                | TypeRef::I64
                | TypeRef::U8
                | TypeRef::U16
                | TypeRef::U32
                | TypeRef::U64
        )
    }

    /// True for `f32` and `f64`.
    pub fn is_float(&self) -> bool {
        matches!(self, TypeRef::F32 | TypeRef::F64)
    }

    /// True for bool, integers and floats (written as typed vectors when in `[T]`).
    pub fn is_scalar(&self) -> bool {
        *self == TypeRef::Bool || self.is_integer() || self.is_float()
    }

    /// True when an `[elem; len]` array is written as a FlexBuffers fixed
    /// typed vector: the format has them for 2, 3 or 4 integers or floats
    /// (there is no fixed vector of bools); other arrays are typed vectors.
    ///
    /// ```
    /// use flexbuf::schema::TypeRef;
    ///
    /// assert!(TypeRef::fixed_vector_form(&TypeRef::F32, 3));
    /// assert!(!TypeRef::fixed_vector_form(&TypeRef::F32, 5));
    /// assert!(!TypeRef::fixed_vector_form(&TypeRef::Bool, 2));
    /// ```
    pub fn fixed_vector_form(elem: &TypeRef, len: usize) -> bool {
        (2..=4).contains(&len) && (elem.is_integer() || elem.is_float())
    }
}

/// The longest `[T; N]` array a schema may declare. Arrays are for small
/// fixed shapes (a position, a colour, an id); longer data is a vector.
pub const MAX_ARRAY_LEN: usize = 4096;

/// A default value, as written in the schema.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultValue {
    /// `true` / `false`
    Bool(bool),
    /// A signed integer literal.
    Int(i64),
    /// An unsigned integer literal above `i64::MAX`.
    UInt(u64),
    /// A float literal.
    Float(f64),
    /// A string literal.
    String(String),
    /// An enum variant, by name (its integer value is what the fingerprint uses).
    EnumVariant(String),
    /// `null`, only for optional fields.
    Null,
}

/// An enum: named integer values, written on the wire as their integer.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDef {
    /// Fully qualified name.
    pub name: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// The integer type (one of the integer [`TypeRef`]s).
    pub repr: TypeRef,
    /// Variants in declaration order.
    pub variants: Vec<EnumVariant>,
}

/// One enum variant.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumVariant {
    /// Name.
    pub name: String,
    /// Integer value.
    pub value: i64,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// A union: exactly one of several typed variants, written as a one-entry map
/// `{wire_name: payload}` (the externally tagged form serde also uses).
#[derive(Clone, Debug, PartialEq)]
pub struct UnionDef {
    /// Fully qualified name.
    pub name: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Variants in declaration order.
    pub variants: Vec<UnionVariant>,
}

/// One union variant.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionVariant {
    /// Name in the schema.
    pub name: String,
    /// Tag on the wire.
    pub wire_name: String,
    /// Payload type.
    pub ty: TypeRef,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

impl Schema {
    /// The message with this qualified name.
    pub fn message(&self, name: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.name == name)
    }

    /// The enum with this qualified name.
    pub fn enum_def(&self, name: &str) -> Option<&EnumDef> {
        self.enums.iter().find(|e| e.name == name)
    }

    /// The union with this qualified name.
    pub fn union_def(&self, name: &str) -> Option<&UnionDef> {
        self.unions.iter().find(|u| u.name == name)
    }

    /// The fingerprint of a message type (see [`fingerprint_bytes`] for the definition).
    pub fn fingerprint(&self, message: &str) -> Option<u64> {
        self.message(message)?;
        Some(fnv1a64(&fingerprint_bytes(self, message)))
    }

    /// The fingerprint of a union type (see [`union_fingerprint_bytes`]).
    pub fn union_fingerprint(&self, union: &str) -> Option<u64> {
        self.union_def(union)?;
        Some(fnv1a64(&union_fingerprint_bytes(self, union)))
    }
}

impl Message {
    /// Fields that are written and read (not deprecated), sorted by wire name in
    /// unsigned byte order: the order of the keys vector and of the values.
    pub fn wire_fields(&self) -> Vec<&Field> {
        self.wire_indices()
            .into_iter()
            .map(|i| &self.fields[i])
            .collect()
    }

    /// The indices into [`Message::fields`] of [`Message::wire_fields`].
    pub fn wire_indices(&self) -> Vec<usize> {
        let mut indices: Vec<usize> = (0..self.fields.len())
            .filter(|&i| !self.fields[i].deprecated)
            .collect();
        indices.sort_by(|&a, &b| {
            let name = |i: usize| self.fields[i].wire_name.as_bytes();
            name(a).cmp(name(b))
        });
        indices
    }

    /// The unqualified name (after the last `.`).
    pub fn short_name(&self) -> &str {
        short_name(&self.name)
    }
}

/// The part of a qualified name after the last `.`.
pub fn short_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}
