//! `Serialize` → FlexBuffers, streamed into a [`Builder`].

use core::cell::Cell;
use core::fmt::Write as _;

use ::serde::ser::{self, Serialize};

use super::memo::TypeMemos;
use crate::builder::{Builder, BuilderOptions};
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::one_shot::{write_kept, Kept, Spare};

/// Serializes `value` with the default builder options (keys shared, as in C++).
///
/// ```
/// let bytes = flexbuf::to_vec(&("a", 1u8, [true])).unwrap();
/// assert_eq!(flexbuf::to_json(&bytes).unwrap(), r#"["a",1,[true]]"#);
/// ```
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    to_vec_with(value, BuilderOptions::default())
}

/// Serializes `value` with explicit builder options.
///
/// Each thread keeps the builder of its last call (its value stack and key
/// pool, and a buffer sized by the last output) and reuses it when the
/// options are the same, so a stream of values is written without
/// allocating the builder or growing its buffer and tables. It keeps 256 KiB
/// at most in all after a small value, and after a value of `n` bytes up to
/// `32 * n` bytes, 8 MiB at most: the next smaller value's call gives the
/// excess back.
/// A nested call (a `Serialize` impl that calls `to_vec` itself) gets a
/// builder of its own. What was learnt of each struct type (where its keys
/// and keys vector are, the order that sorts its fields) is kept too.
pub fn to_vec_with<T: Serialize + ?Sized>(value: &T, options: BuilderOptions) -> Result<Vec<u8>> {
    write_kept(&SPARE, options, |builder, memos: &mut TypeMemos| {
        let mut ser = Serializer {
            builder,
            scratch: String::new(),
            memos: core::mem::take(memos),
        };
        let result = value.serialize(&mut ser);
        *memos = ser.memos;
        result
    })
}

std::thread_local! {
    /// The builder, and what was learnt of struct types, a thread kept
    /// from its last [`to_vec_with`] call.
    static SPARE: Spare<TypeMemos> = const { Cell::new(None) };
}

impl Kept for TypeMemos {
    fn held(&self) -> usize {
        TypeMemos::held(self)
    }

    /// Forgets the values without keys that a failed serialization left open.
    fn recover(&mut self) {
        self.release();
    }
}

/// A serde serializer that pushes exactly one value onto a [`Builder`].
///
/// It makes the builder calls a hand-written encoder would (`start_map`,
/// `key`, value, ..., `end_map`), with two choices of its own that the serde
/// tier has no C++ call sequence to match (see the [module](crate::serde)'s
/// data model): sequences of one scalar type become typed vectors, and
/// values of one struct type share their keys vector. The value may also be
/// embedded in a larger buffer: it
/// is pushed where the builder stands, e.g. after a `key` inside an open map.
/// After an error the builder holds a partial value and must be cleared.
///
/// ```
/// use flexbuf::{Builder, Serializer};
/// use serde::Serialize;
///
/// let mut b = Builder::new();
/// b.start_vector();
/// b.int(1);
/// vec!["x", "y"].serialize(&mut Serializer::new(&mut b)).unwrap();
/// b.end_vector().unwrap();
/// let bytes = b.finish_vec().unwrap();
/// assert_eq!(flexbuf::to_json(&bytes).unwrap(), r#"[1,["x","y"]]"#);
/// ```
#[derive(Debug)]
pub struct Serializer<'b> {
    builder: &'b mut Builder,
    /// Scratch for the text of integer map keys.
    scratch: String,
    /// What was learnt of each struct type's fields.
    memos: TypeMemos,
}

impl<'b> Serializer<'b> {
    /// A serializer that writes into `builder`.
    pub fn new(builder: &'b mut Builder) -> Serializer<'b> {
        Serializer {
            builder,
            scratch: String::new(),
            memos: TypeMemos::default(),
        }
    }

    /// The builder being written to.
    pub fn builder(&mut self) -> &mut Builder {
        self.builder
    }
}

fn out_of_range() -> Error {
    Error::new(ErrorKind::OutOfRange)
}

impl<'s, 'b> ser::Serializer for &'s mut Serializer<'b> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'s, 'b>;
    type SerializeTuple = Seq<'s, 'b>;
    type SerializeTupleStruct = Seq<'s, 'b>;
    type SerializeTupleVariant = Seq<'s, 'b>;
    type SerializeMap = Map<'s, 'b>;
    type SerializeStruct = Struct<'s, 'b>;
    type SerializeStructVariant = Struct<'s, 'b>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.builder.bool(v);
        Ok(())
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.serialize_i64(v.into())
    }

    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.serialize_i64(v.into())
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.serialize_i64(v.into())
    }

    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.builder.int(v);
        Ok(())
    }

    fn serialize_i128(self, v: i128) -> Result<()> {
        self.serialize_i64(i64::try_from(v).map_err(|_| out_of_range())?)
    }

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.serialize_u64(v.into())
    }

    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.serialize_u64(v.into())
    }

    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.serialize_u64(v.into())
    }

    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.builder.uint(v);
        Ok(())
    }

    fn serialize_u128(self, v: u128) -> Result<()> {
        self.serialize_u64(u64::try_from(v).map_err(|_| out_of_range())?)
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.builder.float(v);
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.builder.double(v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.builder.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.builder.string(v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.builder.blob(v);
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.builder.null();
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        self.builder.null();
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.builder.null();
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.builder.string(variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.builder.start_map();
        self.builder.key(variant);
        value
            .serialize(&mut *self)
            .map_err(|e| e.in_segment(PathSegment::Key(variant)))?;
        self.builder.end_map()
    }

    #[inline]
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'s, 'b>> {
        self.builder.start_vector();
        Ok(Seq {
            ser: self,
            index: 0,
            variant: None,
            fixed: true,
        })
    }

    #[inline]
    fn serialize_tuple(self, _len: usize) -> Result<Seq<'s, 'b>> {
        self.builder.start_vector();
        Ok(Seq {
            ser: self,
            index: 0,
            variant: None,
            fixed: true,
        })
    }

    #[inline]
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'s, 'b>> {
        self.serialize_tuple(len)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'s, 'b>> {
        self.builder.start_map();
        self.builder.key(variant);
        self.builder.start_vector();
        Ok(Seq {
            ser: self,
            index: 0,
            variant: Some(variant),
            fixed: true,
        })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'s, 'b>> {
        self.builder.start_map();
        Ok(Map {
            ser: self,
            key_at: usize::MAX,
        })
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Struct<'s, 'b>> {
        let memo = self.memos.claim(name);
        let keyless = self.memos.keyless(memo, len, self.builder);
        if keyless {
            self.builder.start_vector();
        } else {
            self.builder.start_map();
        }
        Ok(Struct {
            ser: self,
            memo,
            field: 0,
            keyless,
            variant: None,
        })
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Struct<'s, 'b>> {
        self.builder.start_map();
        self.builder.key(variant);
        let memo = self.memos.claim(variant);
        let keyless = self.memos.keyless(memo, len, self.builder);
        if keyless {
            self.builder.start_vector();
        } else {
            self.builder.start_map();
        }
        Ok(Struct {
            ser: self,
            memo,
            field: 0,
            keyless,
            variant: Some(variant),
        })
    }
}

/// Elements of a sequence, tuple, tuple struct or tuple variant.
#[doc(hidden)]
pub struct Seq<'s, 'b> {
    ser: &'s mut Serializer<'b>,
    index: usize,
    /// For a tuple variant, the variant name: the vector is inside `{variant: ...}`.
    variant: Option<&'static str>,
    /// Whether 2 to 4 numbers of one type become a fixed vector (as the
    /// `flexbuffers` crate writes them, for sequences too: a coordinate pair
    /// then takes no size field).
    fixed: bool,
}

impl Seq<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser).map_err(|e| {
            let e = e.in_segment(PathSegment::Index(self.index));
            match self.variant {
                Some(v) => e.in_segment(PathSegment::Key(v)),
                None => e,
            }
        })?;
        self.index += 1;
        Ok(())
    }

    fn end(self) -> Result<()> {
        // Homogeneous scalars become typed (or, for 2-4 numbers, fixed)
        // vectors: smaller, and read without a type byte per element.
        self.ser.builder.end_vector_compact(self.fixed)?;
        if self.variant.is_some() {
            self.ser.builder.end_map()?;
        }
        Ok(())
    }
}

impl ser::SerializeSeq for Seq<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        Seq::end(self)
    }
}

impl ser::SerializeTuple for Seq<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        Seq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        Seq::end(self)
    }
}

impl ser::SerializeTupleVariant for Seq<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        Seq::end(self)
    }
}

/// Entries of a map; keys go through a [`KeySerializer`].
#[doc(hidden)]
pub struct Map<'s, 'b> {
    ser: &'s mut Serializer<'b>,
    /// Where this map's current key stands on the builder's stack (read back
    /// from the builder to name the key in an error, so keys are not copied).
    key_at: usize,
}

impl ser::SerializeMap for Map<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key_at = self.ser.builder.depth();
        key.serialize(KeySerializer { ser: self.ser })
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let result = value.serialize(&mut *self.ser);
        result.map_err(|e| {
            let key = self.ser.builder.key_at_depth(self.key_at).unwrap_or("");
            e.in_segment(PathSegment::Key(key))
        })
    }

    fn end(self) -> Result<()> {
        self.ser.builder.end_map()
    }
}

/// Fields of a struct or struct variant.
#[doc(hidden)]
pub struct Struct<'s, 'b> {
    ser: &'s mut Serializer<'b>,
    /// The slot of the type's memo (by the struct's name; a struct
    /// variant's by the variant's).
    memo: usize,
    /// Index of the next field.
    field: usize,
    /// True while the fields' values are pushed without their keys (see
    /// [`TypeMemos`]): a vector is open, not a map.
    keyless: bool,
    /// For a struct variant, the variant name: the map is inside `{variant: ...}`.
    variant: Option<&'static str>,
}

impl Struct<'_, '_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        let ser = &mut *self.ser;
        if self.keyless && !ser.memos.known_field(self.memo, self.field, key) {
            ser.memos.add_keys(self.memo, self.field, ser.builder);
            self.keyless = false;
        }
        if !self.keyless {
            ser.memos.push_key(self.memo, self.field, key, ser.builder);
        }
        self.field += 1;
        value.serialize(&mut *self.ser).map_err(|e| {
            let e = e.in_segment(PathSegment::Key(key));
            match self.variant {
                Some(v) => e.in_segment(PathSegment::Key(v)),
                None => e,
            }
        })
    }

    fn end(self) -> Result<()> {
        if self.keyless {
            (self.ser.memos).end_keyless(self.memo, self.field, self.ser.builder)?;
        } else {
            self.ser.memos.end_struct(self.memo, self.ser.builder)?;
        }
        if self.variant.is_some() {
            self.ser.builder.end_map()?;
        }
        Ok(())
    }
}

impl ser::SerializeStruct for Struct<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<()> {
        Struct::end(self)
    }
}

impl ser::SerializeStructVariant for Struct<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<()> {
        Struct::end(self)
    }
}

/// Pushes a map key: strings as they are, integers as their decimal text.
struct KeySerializer<'s, 'b> {
    ser: &'s mut Serializer<'b>,
}

fn key_error(what: &str) -> Error {
    Error::new(ErrorKind::Message(format!(
        "map keys must be strings, integers, chars or unit variants, not {what}"
    )))
}

impl KeySerializer<'_, '_> {
    fn text(self, s: &str) -> Result<()> {
        // The builder checks a key for NUL when it is new to the buffer
        // (pooled keys were checked when first written) and then fails:
        // that error is returned here, under the key.
        self.ser.builder.key(s);
        self.ser
            .builder
            .check()
            .map_err(|e| e.in_segment(PathSegment::Key(s)))
    }

    fn number(self, n: impl core::fmt::Display) -> Result<()> {
        let mut text = core::mem::take(&mut self.ser.scratch);
        text.clear();
        // Writing to a String cannot fail.
        let _ = write!(text, "{n}");
        self.ser.builder.key(&text);
        self.ser.scratch = text;
        Ok(())
    }
}

impl ser::Serializer for KeySerializer<'_, '_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<()> {
        self.text(v)
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.text(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.text(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        self.number(v)
    }

    fn serialize_i16(self, v: i16) -> Result<()> {
        self.number(v)
    }

    fn serialize_i32(self, v: i32) -> Result<()> {
        self.number(v)
    }

    fn serialize_i64(self, v: i64) -> Result<()> {
        self.number(v)
    }

    fn serialize_i128(self, v: i128) -> Result<()> {
        self.number(v)
    }

    fn serialize_u8(self, v: u8) -> Result<()> {
        self.number(v)
    }

    fn serialize_u16(self, v: u16) -> Result<()> {
        self.number(v)
    }

    fn serialize_u32(self, v: u32) -> Result<()> {
        self.number(v)
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        self.number(v)
    }

    fn serialize_u128(self, v: u128) -> Result<()> {
        self.number(v)
    }

    fn serialize_bool(self, _: bool) -> Result<()> {
        Err(key_error("a bool"))
    }

    fn serialize_f32(self, _: f32) -> Result<()> {
        Err(key_error("a float"))
    }

    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(key_error("a float"))
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(key_error("bytes"))
    }

    fn serialize_none(self) -> Result<()> {
        Err(key_error("an option"))
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(key_error("an option"))
    }

    fn serialize_unit(self) -> Result<()> {
        Err(key_error("a unit"))
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Err(key_error("a unit struct"))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(key_error("a newtype variant"))
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_error("a sequence"))
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_error("a tuple"))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_error("a tuple struct"))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_error("a tuple variant"))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_error("a map"))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_error("a struct"))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_error("a struct variant"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{spare_limit, SPARE_LARGE, SPARE_MAX};

    /// Heap bytes of the builder and memos this thread keeps between calls (0 when none).
    fn kept() -> usize {
        SPARE.with(|s| {
            let spare = s.take();
            let bytes = spare
                .as_ref()
                .map_or(0, |(b, m)| b.capacity() + b.scratch_capacity() + m.held());
            s.set(spare);
            bytes
        })
    }

    /// After a large value the thread keeps a builder whose memory is in
    /// proportion to it (so the next large value reuses it), never more
    /// than `SPARE_LARGE`, and the next small value gives it back.
    #[test]
    fn a_large_value_keeps_memory_in_proportion_until_a_small_one() {
        let map: std::collections::BTreeMap<String, u32> =
            (0..20_000).map(|i| (format!("key{i}"), i)).collect();
        let bytes = to_vec(&map).unwrap();
        let after_large = kept();
        assert!(after_large > SPARE_MAX, "kept {after_large} bytes");
        assert!(after_large <= spare_limit(bytes.len()).min(SPARE_LARGE));
        // The same value again: written into the kept memory, same bytes.
        assert_eq!(to_vec(&map).unwrap(), bytes);
        assert!(kept() <= SPARE_LARGE);
        // A small value: what is kept is back under the small bound (the
        // builder is dropped when its stack and pools, each shrunk to
        // `max_retained_capacity`, still hold more).
        to_vec(&[1u8, 2, 3]).unwrap();
        let after_small = kept();
        assert!(after_small <= SPARE_MAX, "kept {after_small} bytes");
        // A value past every bound: what is kept stays under it (the
        // builder shrinks its buffer, stack and pools to
        // `max_retained_capacity` each, and the thread keeps it only when
        // their sum is in bound).
        let huge: Vec<String> = (0..1_000_000).map(|i| format!("s{i}")).collect();
        to_vec(&huge).unwrap();
        assert!(kept() <= SPARE_LARGE);
    }
}
