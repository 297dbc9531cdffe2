//! Default values: each literal must suit its field's type and fit its range.

use flexbuf::schema::{DefaultValue, Schema, TypeRef};

use super::{builtin_name, int_range, suggest, type_src, Checker};
use crate::parse::ast::{FieldAst, Literal, Spanned};

/// Checks `lit` as the default of field `f` (of resolved type `ty`) and
/// returns the model's value; reports and returns `None` when it does not fit.
pub(super) fn check(
    c: &mut Checker<'_>,
    file: usize,
    f: &FieldAst,
    ty: &TypeRef,
    lit: &Spanned<Literal>,
    schema: &Schema,
) -> Option<DefaultValue> {
    let field = &f.name.value;
    let written = type_src(&f.ty);
    let mismatch = |c: &mut Checker<'_>, expected: &str, hint: Option<String>| {
        let message = format!(
            "default value for `{field}: {written}` must be {expected}, found {}",
            lit.value.describe()
        );
        c.error(file, lit.pos, message, hint);
        None
    };
    if lit.value == Literal::Null {
        if f.optional.is_some() {
            return Some(DefaultValue::Null);
        }
        let hint = format!("make it `{written}?` to allow null");
        c.error(
            file,
            lit.pos,
            format!("`null` default on non-optional field `{field}`"),
            Some(hint),
        );
        return None;
    }
    match ty {
        TypeRef::Bool => match lit.value {
            Literal::Bool(b) => Some(DefaultValue::Bool(b)),
            _ => mismatch(c, "`true` or `false`", None),
        },
        t if t.is_integer() => match lit.value {
            Literal::Int(v) => {
                let (min, max) = int_range(t)?;
                if v < min || v > max {
                    let message = format!(
                        "default value `{v}` is out of range for `{}` ({min} to {max})",
                        builtin_name(t)
                    );
                    c.error(file, lit.pos, message, None);
                    return None;
                }
                Some(match i64::try_from(v) {
                    Ok(i) => DefaultValue::Int(i),
                    Err(_) => DefaultValue::UInt(u64::try_from(v).ok()?),
                })
            }
            Literal::Float(..) => {
                let hint = format!(
                    "`{}` takes an integer default; use `f32` or `f64` for fractions",
                    builtin_name(t)
                );
                mismatch(c, "an integer", Some(hint))
            }
            _ => mismatch(c, "an integer", None),
        },
        t if t.is_float() => {
            let v = match &lit.value {
                Literal::Float(v, _) => *v,
                Literal::Int(i) => *i as f64,
                _ => return mismatch(c, "a number", None),
            };
            if *t == TypeRef::F32 && v.is_finite() && v.abs() > f32::MAX as f64 {
                let message = format!(
                    "default value {} is out of range for `f32`",
                    lit.value.describe()
                );
                c.error(file, lit.pos, message, Some("use `f64`".into()));
                return None;
            }
            Some(DefaultValue::Float(v))
        }
        TypeRef::String => match &lit.value {
            Literal::Str(s) => Some(DefaultValue::String(s.clone())),
            Literal::Int(i) => mismatch(
                c,
                "a string",
                Some(format!("write it in quotes: `\"{i}\"`")),
            ),
            Literal::Float(_, text) => mismatch(
                c,
                "a string",
                Some(format!("write it in quotes: `\"{text}\"`")),
            ),
            _ => mismatch(c, "a string", None),
        },
        TypeRef::Enum(name) => {
            let e = schema.enum_def(name)?;
            match &lit.value {
                Literal::Ident(v) if e.variants.iter().any(|x| &x.name == v) => {
                    Some(DefaultValue::EnumVariant(v.clone()))
                }
                Literal::Ident(v) => {
                    let names: Vec<String> = e.variants.iter().map(|x| x.name.clone()).collect();
                    let hint = match suggest::closest(v, &names) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("its variants are {}", names.join(", ")),
                    };
                    c.error(
                        file,
                        lit.pos,
                        format!("enum `{written}` has no variant `{v}`"),
                        Some(hint),
                    );
                    None
                }
                Literal::Int(i) => {
                    let hint = e
                        .variants
                        .iter()
                        .find(|x| i128::from(x.value) == *i)
                        .map(|x| format!("write the variant name: `{}`", x.name));
                    mismatch(c, &format!("a variant of enum `{written}`"), hint)
                }
                _ => mismatch(c, &format!("a variant of enum `{written}`"), None),
            }
        }
        TypeRef::Bytes
        | TypeRef::Vector(_)
        | TypeRef::Array(..)
        | TypeRef::Map(_)
        | TypeRef::Message(_)
        | TypeRef::Union(_) => {
            let what = match ty {
                TypeRef::Bytes => "`bytes`",
                TypeRef::Vector(_) => "vector",
                TypeRef::Array(..) => "array",
                TypeRef::Map(_) => "map",
                TypeRef::Message(_) => "message",
                _ => "union",
            };
            let zero = match ty {
                TypeRef::Bytes => "absence already gives empty bytes; ",
                TypeRef::Vector(_) => "absence already gives an empty vector; ",
                TypeRef::Array(..) => "absence already gives an array of zeros; ",
                TypeRef::Map(_) => "absence already gives an empty map; ",
                _ => "",
            };
            let hint = format!("{zero}only `null` is allowed, on an optional field (`{written}?`)");
            c.error(
                file,
                lit.pos,
                format!("{what} fields cannot have a default value"),
                Some(hint),
            );
            None
        }
        _ => None,
    }
}
