//! What a decoder yields for a field missing from a message's map.
//!
//! Every decoder (generated Rust, Kotlin, TypeScript and the native Python
//! decode) follows this one definition, so the rules live here once:
//!
//! - a `required` field: missing is an error;
//! - an optional field (`T?`) without a non-null default: `null`;
//! - a field with a default: that default, typed by the field (an integer
//!   literal on a float field is a float, and an `f32` field's default is
//!   rounded to `f32` here, once);
//! - any other field: the zero of its type (`false`, `0`, `0.0`, `""`, empty
//!   bytes, vector or map, the enum's first variant).
//!
//! ```
//! use flexbuf::schema::{Absent, DefaultValue, Field, TypeRef};
//!
//! let f = Field {
//!     name: "ratio".into(),
//!     wire_name: "ratio".into(),
//!     ty: TypeRef::F32,
//!     optional: false,
//!     required: false,
//!     deprecated: false,
//!     default: Some(DefaultValue::Int(1)),
//!     doc: vec![],
//! };
//! assert_eq!(Absent::of(&f), Absent::Default(DefaultValue::Float(1.0)));
//! ```

use super::{DefaultValue, Field, Schema, TypeRef};

/// The value of an absent field (see the module docs for the rules).
#[derive(Clone, Debug, PartialEq)]
pub enum Absent {
    /// The field is `required`: decoding fails.
    Required,
    /// Explicit null (`None`): an optional field without a non-null default.
    Null,
    /// The zero of the field's type; for an enum, [`Absent::zero_variant`].
    Zero,
    /// The schema's default, typed by the field: integers on float fields
    /// become [`DefaultValue::Float`], and `f32` values are already rounded
    /// to `f32`. Never [`DefaultValue::Null`].
    Default(DefaultValue),
}

impl Absent {
    /// What decoding `field` yields when the field is missing.
    pub fn of(field: &Field) -> Absent {
        if field.required {
            return Absent::Required;
        }
        match &field.default {
            None | Some(DefaultValue::Null) if field.optional => Absent::Null,
            None | Some(DefaultValue::Null) => Absent::Zero,
            Some(d) => Absent::Default(typed_default(&field.ty, d)),
        }
    }

    /// The enum variant that is the zero of enum `name`: its first declared variant.
    pub fn zero_variant<'s>(schema: &'s Schema, name: &str) -> Option<&'s str> {
        schema
            .enum_def(name)
            .and_then(|e| e.variants.first())
            .map(|v| v.name.as_str())
    }
}

/// `d` as a value of type `t`: floats for float fields, `f32` rounding applied.
fn typed_default(t: &TypeRef, d: &DefaultValue) -> DefaultValue {
    let float = |f: f64| {
        DefaultValue::Float(if *t == TypeRef::F32 {
            f64::from(f as f32)
        } else {
            f
        })
    };
    match d {
        DefaultValue::Int(i) if t.is_float() => float(*i as f64),
        DefaultValue::UInt(u) if t.is_float() => float(*u as f64),
        DefaultValue::Float(f) => float(*f),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(ty: TypeRef, optional: bool, default: Option<DefaultValue>) -> Field {
        Field {
            name: "f".into(),
            wire_name: "f".into(),
            ty,
            optional,
            required: false,
            deprecated: false,
            default,
            doc: vec![],
        }
    }

    #[test]
    fn rules() {
        let mut req = field(TypeRef::I32, false, None);
        req.required = true;
        assert_eq!(Absent::of(&req), Absent::Required);
        assert_eq!(
            Absent::of(&field(TypeRef::I32, true, Some(DefaultValue::Null))),
            Absent::Null
        );
        assert_eq!(
            Absent::of(&field(TypeRef::String, false, None)),
            Absent::Zero
        );
        assert_eq!(
            Absent::of(&field(TypeRef::F32, false, Some(DefaultValue::Float(0.1)))),
            Absent::Default(DefaultValue::Float(f64::from(0.1f32)))
        );
        assert_eq!(
            Absent::of(&field(TypeRef::F64, true, Some(DefaultValue::UInt(3)))),
            Absent::Default(DefaultValue::Float(3.0))
        );
    }
}
