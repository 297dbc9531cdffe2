//! The deserializers of leaves read where their container is walked:
//! inline numbers and bools ([`Scalar`]) and strings ([`Text`]), as vector
//! elements and as map values.
//!
//! A `Vec<i64>`, `[f32; 3]` or `Vec<serde_json::Value>` of numbers asks for
//! each element through serde's per-element calls. Through the general
//! `Value` deserializer (in `de.rs`) each one built a reader in memory,
//! called out to charge the budget and to a type dispatch over every kind
//! of value, and read the slot: 125 instructions an element of a
//! `Vec<i64>` in all (with serde's own push), 49 now. An element or map
//! value stored inline as an integer, unsigned integer, float or bool is
//! instead read where the sequence or map is walked
//! (`VectorReader::inline_at`) and handed over as a [`Scalar`]: a value and
//! its offset, whose methods inline into the caller's loop. A string
//! element or value is found the same way (`VectorReader::str_in_bounds`:
//! its slot, offset and size read as words) and handed over as a [`Text`],
//! which charges the budget for its bytes when they are taken.
//!
//! Every method gives what `Value` gives for the same element (its node
//! already charged against the budget with its siblings): the same
//! conversions, the same range, type and budget errors at the same offset.

use ::serde::de::{self, IntoDeserializer, Visitor};

use crate::budget::Budget;
use crate::error::{Error, Result};
use crate::reader::Inline;
use crate::types::FlexType;

use super::de::{mismatch, narrow};

/// An inline scalar element of a vector, already read.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scalar {
    value: Inline,
    /// The element's slot, for errors.
    at: usize,
}

impl Scalar {
    #[inline(always)]
    pub(super) fn new(value: Inline, at: usize) -> Scalar {
        Scalar { value, at }
    }

    fn mismatch(&self, expected: &'static str) -> Error {
        mismatch(expected, self.value.flex_type(), self.at)
    }

    /// `Reader::as_i64`.
    #[inline(always)]
    fn i64(&self) -> Result<i64> {
        match self.value {
            Inline::Int(i) => Ok(i),
            Inline::UInt(u) => narrow(u, self.at),
            _ => Err(self.mismatch("integer")),
        }
    }

    /// `Reader::as_u64`.
    #[inline(always)]
    fn u64(&self) -> Result<u64> {
        match self.value {
            Inline::UInt(u) => Ok(u),
            Inline::Int(i) => narrow(i, self.at),
            _ => Err(self.mismatch("unsigned integer")),
        }
    }

    /// `Reader::as_f64`.
    #[inline(always)]
    fn f64(&self) -> Result<f64> {
        match self.value {
            Inline::Float(f) => Ok(f),
            Inline::Int(i) => Ok(i as f64),
            Inline::UInt(u) => Ok(u as f64),
            Inline::Bool(_) => Err(self.mismatch("number")),
        }
    }

    /// `Reader::as_bool`.
    #[inline(always)]
    fn bool(&self) -> Result<bool> {
        match self.value {
            Inline::Bool(b) => Ok(b),
            _ => Err(self.mismatch("bool")),
        }
    }
}

macro_rules! integer {
    ($method:ident, $visit:ident, $read:ident) => {
        #[inline(always)]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let v = narrow(self.$read()?, self.at)?;
            visitor.$visit(v).map_err(|e: Error| e.with_offset(self.at))
        }
    };
}

macro_rules! refuse {
    ($($method:ident => $expected:literal;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
                Err(self.mismatch($expected))
            }
        )*
    };
}

/// The methods both leaves share: an option is `Some` (a null slot is
/// neither), a newtype wraps the leaf itself, an ignored value costs
/// nothing, an identifier is read as any value, and the container and unit
/// kinds are refused as `Value` refuses a scalar or a string.
macro_rules! leaf_common {
    () => {
        fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_some(self)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            visitor: V,
        ) -> Result<V::Value> {
            visitor.visit_newtype_struct(self)
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            _visitor: V,
        ) -> Result<V::Value> {
            Err(self.mismatch("null"))
        }

        fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
            Err(self.mismatch("vector"))
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            _len: usize,
            _visitor: V,
        ) -> Result<V::Value> {
            Err(self.mismatch("vector"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            _fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value> {
            Err(self.mismatch("map"))
        }

        fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_any(visitor)
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_unit()
        }
    };
}

impl<'de> de::Deserializer<'de> for Scalar {
    type Error = Error;

    leaf_common!();

    #[inline(always)]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let result = match self.value {
            Inline::Bool(b) => visitor.visit_bool(b),
            Inline::Int(i) => visitor.visit_i64(i),
            Inline::UInt(u) => visitor.visit_u64(u),
            Inline::Float(f) => visitor.visit_f64(f),
        };
        result.map_err(|e: Error| e.with_offset(self.at))
    }

    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor
            .visit_bool(self.bool()?)
            .map_err(|e: Error| e.with_offset(self.at))
    }

    integer!(deserialize_i8, visit_i8, i64);
    integer!(deserialize_i16, visit_i16, i64);
    integer!(deserialize_i32, visit_i32, i64);
    integer!(deserialize_i64, visit_i64, i64);
    integer!(deserialize_u8, visit_u8, u64);
    integer!(deserialize_u16, visit_u16, u64);
    integer!(deserialize_u32, visit_u32, u64);
    integer!(deserialize_u64, visit_u64, u64);

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let result = match self.value {
            Inline::UInt(u) => visitor.visit_i128(u.into()),
            _ => visitor.visit_i128(self.i64()?.into()),
        };
        result.map_err(|e: Error| e.with_offset(self.at))
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor
            .visit_u128(self.u64()?.into())
            .map_err(|e: Error| e.with_offset(self.at))
    }

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor
            .visit_f32(self.f64()? as f32)
            .map_err(|e: Error| e.with_offset(self.at))
    }

    #[inline(always)]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor
            .visit_f64(self.f64()?)
            .map_err(|e: Error| e.with_offset(self.at))
    }

    // What `Value` refuses a number or bool with: the same expected kind.
    refuse! {
        deserialize_char => "string";
        deserialize_str => "string";
        deserialize_string => "string";
        deserialize_bytes => "blob";
        deserialize_byte_buf => "blob";
        deserialize_unit => "null";
        deserialize_seq => "vector";
        deserialize_map => "map";
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value> {
        Err(self.mismatch("enum (string or single-entry map)"))
    }
}

/// A string element or map value, already found (and, the buffer being
/// verified, known to be UTF-8); its bytes are charged to the budget when
/// a visitor takes them, as `Value` charges them.
pub(super) struct Text<'de, 'b> {
    text: &'de str,
    /// The element's slot, for errors.
    at: usize,
    budget: &'b mut Budget,
}

impl<'de, 'b> Text<'de, 'b> {
    #[inline(always)]
    pub(super) fn new(text: &'de str, at: usize, budget: &'b mut Budget) -> Text<'de, 'b> {
        Text { text, at, budget }
    }

    fn mismatch(&self, expected: &'static str) -> Error {
        mismatch(expected, FlexType::String, self.at)
    }

    /// The text, its bytes charged (`Value::str`).
    #[inline(always)]
    fn take(&mut self) -> Result<&'de str> {
        self.budget
            .bytes(self.text.len())
            .map_err(|e| e.with_offset(self.at))?;
        Ok(self.text)
    }

    #[inline(always)]
    fn visit_str<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let s = self.take()?;
        visitor
            .visit_borrowed_str(s)
            .map_err(|e: Error| e.with_offset(self.at))
    }
}

impl<'de> de::Deserializer<'de> for Text<'de, '_> {
    type Error = Error;

    leaf_common!();

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_str(visitor)
    }

    // What `Value` refuses a string with: the same expected kind.
    refuse! {
        deserialize_bool => "bool";
        deserialize_i8 => "integer";
        deserialize_i16 => "integer";
        deserialize_i32 => "integer";
        deserialize_i64 => "integer";
        deserialize_i128 => "integer";
        deserialize_u8 => "unsigned integer";
        deserialize_u16 => "unsigned integer";
        deserialize_u32 => "unsigned integer";
        deserialize_u64 => "unsigned integer";
        deserialize_u128 => "unsigned integer";
        deserialize_f32 => "number";
        deserialize_f64 => "number";
        deserialize_unit => "null";
        deserialize_seq => "vector";
        deserialize_map => "map";
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_str(visitor)
    }

    #[inline(always)]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_str(visitor)
    }

    #[inline(always)]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let s = self.take()?;
        visitor
            .visit_borrowed_bytes(s.as_bytes())
            .map_err(|e: Error| e.with_offset(self.at))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // A unit variant by name.
        let name = self.take()?;
        visitor
            .visit_enum(name.into_deserializer())
            .map_err(|e: Error| e.with_offset(self.at))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::super::de::LEAVES;
    use crate::budget::Budget;
    use crate::builder::Builder;
    use crate::types::BitWidth;

    #[derive(Deserialize, Debug)]
    struct Unit;

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Newtype(i64);

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Pair(u8, u8);

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Record {
        a: i64,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum Kind {
        A,
        B(i64),
    }

    /// What `from_slice_with::<T>` gives within `budget`, as text: the
    /// value, or the error's kind, offset and path.
    fn outcome<T: for<'de> Deserialize<'de> + core::fmt::Debug>(
        bytes: &[u8],
        budget: Budget,
    ) -> String {
        match crate::from_slice_with::<T>(bytes, &crate::VerifyOptions::default(), budget) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("{:?} at {:?} {:?}", e.kind(), e.offset(), e.path()),
        }
    }

    /// A map's single entry `a`, as a struct field.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct One<T> {
        a: T,
    }

    /// Every target type below, read both ways (with leaves taken as
    /// [`Scalar`](super::Scalar)s and [`Text`](super::Text)s, and with every
    /// element and map value through `Value`): as a sequence's elements, as
    /// a struct field and as a map's values.
    fn both_ways(bytes: &[u8]) -> Vec<(String, String, &'static str)> {
        fn one<T: for<'de> Deserialize<'de> + core::fmt::Debug>(
            bytes: &[u8],
            out: &mut Vec<(String, String, &'static str)>,
            name: &'static str,
        ) {
            // The default budget, and one too small for strings of more
            // than four bytes.
            for budget in [Budget::for_input(bytes.len()), Budget::new(1_000, 4)] {
                LEAVES.with(|c| c.set(true));
                let fast = outcome::<T>(bytes, budget.clone());
                LEAVES.with(|c| c.set(false));
                let slow = outcome::<T>(bytes, budget);
                LEAVES.with(|c| c.set(true));
                out.push((fast, slow, name));
            }
        }
        macro_rules! each {
            ($($t:ty),* $(,)?) => {{
                let mut out = Vec::new();
                $(
                    one::<Vec<$t>>(bytes, &mut out, stringify!(Vec<$t>));
                    one::<One<$t>>(bytes, &mut out, stringify!(One<$t>));
                    one::<BTreeMap<String, $t>>(bytes, &mut out, stringify!(BTreeMap<String, $t>));
                )*
                one::<(i64, f64, bool)>(bytes, &mut out, "(i64, f64, bool)");
                one::<[u16; 3]>(bytes, &mut out, "[u16; 3]");
                out
            }};
        }
        each!(
            i8,
            i16,
            i32,
            i64,
            u8,
            u16,
            u32,
            u64,
            i128,
            u128,
            f32,
            f64,
            bool,
            char,
            String,
            Option<i64>,
            Option<f32>,
            (),
            Unit,
            Newtype,
            Pair,
            (i64,),
            Vec<i64>,
            Record,
            Kind,
            BTreeMap<String, i64>,
            serde_bytes::ByteBuf,
            serde::de::IgnoredAny,
            serde_json::Value,
        )
    }

    /// Vectors of one inline kind at every width, typed, fixed and untyped,
    /// and untyped vectors mixing them with other kinds.
    fn buffers() -> Vec<Vec<u8>> {
        let ints = [
            0i64,
            1,
            -1,
            127,
            -128,
            128,
            255,
            256,
            -129,
            32767,
            -32769,
            65536,
            i32::MAX as i64,
            i32::MIN as i64,
            1 << 40,
            i64::MAX,
            i64::MIN,
        ];
        let uints = [
            0u64,
            1,
            255,
            256,
            65535,
            65536,
            u32::MAX as u64,
            i64::MAX as u64,
            i64::MAX as u64 + 1,
            u64::MAX,
        ];
        let floats = [
            0.0f64,
            1.5,
            -2.25,
            3.0e38,
            1e300,
            -1e-300,
            0.1,
            f64::INFINITY,
        ];
        let widths = [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64];
        let mut out = Vec::new();
        let mut one = |push: &dyn Fn(&mut Builder), typed: bool, fixed: bool, w: BitWidth| {
            let mut b = Builder::new();
            b.force_min_width(w);
            b.start_vector();
            push(&mut b);
            if b.end_vector_as(typed, fixed).is_ok() {
                if let Ok(bytes) = b.finish_vec() {
                    out.push(bytes);
                }
            }
        };
        for w in widths {
            for typed in [false, true] {
                for &i in &ints {
                    one(&|b| b.int(i), typed, false, w);
                    one(
                        &|b| (0..3).for_each(|k| b.int(i.wrapping_add(k))),
                        typed,
                        true,
                        w,
                    );
                }
                for &u in &uints {
                    one(&|b| b.uint(u), typed, false, w);
                    one(
                        &|b| (0..2).for_each(|k| b.uint(u.wrapping_sub(k))),
                        typed,
                        true,
                        w,
                    );
                }
                for &f in &floats {
                    one(&|b| b.double(f), typed, false, w);
                    one(&|b| b.float(f as f32), typed, false, w);
                    one(&|b| (0..3).for_each(|_| b.double(f)), typed, true, w);
                }
                for v in [false, true] {
                    one(&|b| b.bool(v), typed, false, w);
                }
            }
            // Untyped vectors mixing inline scalars with everything else.
            one(
                &|b| {
                    b.int(-5);
                    b.uint(7);
                    b.double(2.5);
                    b.bool(true);
                    b.null();
                    b.string("x");
                    b.start_vector();
                    b.int(1);
                    b.end_vector().unwrap();
                },
                false,
                false,
                w,
            );
            one(
                &|b| {
                    b.uint(3);
                    b.null();
                    b.int(4);
                },
                false,
                false,
                w,
            );
        }
        // Strings: empty, one character (a `char`), a unit variant's name,
        // multi-byte, longer than the small budget and than a word.
        let long = "long text ".repeat(12);
        let texts = [
            "",
            "a",
            "é",
            "A",
            "B",
            "日本語",
            "x\u{1F600}",
            long.as_str(),
        ];
        for w in widths {
            for t in texts {
                one(&|b| b.string(t), false, false, w);
            }
            one(&|b| texts.iter().for_each(|t| b.string(t)), false, false, w);
            one(
                &|b| {
                    b.string("A");
                    b.int(1);
                    b.string("B");
                },
                false,
                false,
                w,
            );
        }
        // Maps whose values are inline scalars or strings (a struct's
        // fields, a map's values).
        let mut map = |push: &dyn Fn(&mut Builder), w: BitWidth| {
            let mut b = Builder::new();
            b.force_min_width(w);
            b.start_map();
            push(&mut b);
            if b.end_map().is_ok() {
                if let Ok(bytes) = b.finish_vec() {
                    out.push(bytes);
                }
            }
        };
        for w in widths {
            for &i in &ints {
                map(
                    &|b| {
                        b.key("a");
                        b.int(i)
                    },
                    w,
                );
            }
            for &u in &uints {
                map(
                    &|b| {
                        b.key("a");
                        b.uint(u)
                    },
                    w,
                );
            }
            for &f in &floats {
                map(
                    &|b| {
                        b.key("a");
                        b.double(f)
                    },
                    w,
                );
                map(
                    &|b| {
                        b.key("a");
                        b.float(f as f32)
                    },
                    w,
                );
            }
            for v in [false, true] {
                map(
                    &|b| {
                        b.key("a");
                        b.bool(v)
                    },
                    w,
                );
            }
            for t in texts {
                map(
                    &|b| {
                        b.key("a");
                        b.string(t)
                    },
                    w,
                );
            }
            map(
                &|b| {
                    b.key("a");
                    b.int(-3);
                    b.key("b");
                    b.string("y");
                    b.key("c");
                    b.double(0.5);
                },
                w,
            );
        }
        out
    }

    /// Leaves read as `Scalar`s and `Text`s give exactly what `Value` gives
    /// for them: the same values, and the same errors (kind, offset, path,
    /// budget), for every target type, as elements of every kind, width and
    /// layout of vector and as map values.
    #[test]
    fn leaves_read_as_value_reads_them() {
        let mut compared = 0;
        let mut errors = 0;
        for bytes in buffers() {
            for (fast, slow, ty) in both_ways(&bytes) {
                assert_eq!(fast, slow, "{ty} from {bytes:02x?}");
                compared += 1;
                errors += usize::from(fast.contains(" at Some("));
            }
        }
        // Both outcomes are exercised: values and errors of every kind.
        assert!(compared > 100_000, "{compared}");
        assert!(
            errors > compared / 3 && errors < compared,
            "{errors} of {compared}"
        );
        eprintln!("{compared} outcomes compared, {errors} of them errors");
    }
}
