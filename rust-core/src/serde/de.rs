//! FlexBuffers → `Deserialize`, under an expansion budget: from a verified
//! buffer, or from unverified bytes in one pass (see `one_pass.rs`).

use ::serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use ::serde::forward_to_deserialize_any;

use crate::budget::Budget;
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::reader::{MapReader, Reader, VectorReader};
use crate::types::FlexType;
use crate::verify::{verify_with, Verified, VerifyOptions};

use super::keys::{Kept, KeyCache};
use super::leaves::{Scalar, Text};
use super::one_pass::{self, note};

/// Deserializes a `T` from `bytes`, which must verify with the default
/// options, under the default budget for their length
/// ([`Budget::for_input`]).
///
/// The result is exactly that of [`verify`](crate::verify) followed by
/// [`Deserializer::new`]: the verifier's error when the bytes do not
/// verify, else the value or the deserialization error. A buffer that
/// verifies is checked as it is read, in one pass.
///
/// Strings and blobs are borrowed from `bytes` when `T` borrows them.
///
/// ```
/// let bytes = flexbuf::to_vec(&vec![(1u8, "one"), (2, "two")]).unwrap();
/// let pairs: Vec<(u64, &str)> = flexbuf::from_slice(&bytes).unwrap();
/// assert_eq!(pairs, [(1, "one"), (2, "two")]);
/// ```
pub fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    from_slice_with(
        bytes,
        &VerifyOptions::default(),
        Budget::for_input(bytes.len()),
    )
}

/// Deserializes a `T` from `bytes`, which must verify with `options`,
/// within `budget`: what [`verify_with`] followed by [`Deserializer::new`]
/// gives (see [`from_slice`]).
pub fn from_slice_with<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    options: &VerifyOptions,
    budget: Budget,
) -> Result<T> {
    // One pass (`one_pass.rs`): kept only when it succeeded and no error
    // that could leave bytes unchecked was made on the way. Without sorted
    // keys required, maps are not read in one pass (their keys are not
    // checked one by one then).
    if options.require_sorted_keys {
        if let Ok(root) = Reader::new(bytes) {
            let before = one_pass::count();
            let mut de = Deserializer {
                root,
                st: State::unverified(budget.clone(), options),
            };
            if let Ok(value) = T::deserialize(&mut de) {
                if one_pass::count() == before {
                    return Ok(value);
                }
            }
            one_pass::retried();
        }
    }
    let verified = verify_with(bytes, options)?;
    T::deserialize(&mut Deserializer::new(verified, budget))
}

/// A serde deserializer over a verified buffer (or a value inside one).
///
/// Every value handed to serde costs one node of the [`Budget`], every string,
/// key and blob its length in bytes, so shared offsets cannot make a small
/// buffer expand without bound. Values a visitor skips (unknown fields,
/// [`IgnoredAny`](serde::de::IgnoredAny)) are not expanded.
///
/// ```
/// use serde::Deserialize;
///
/// let bytes = flexbuf::to_vec(&[1u16, 2, 3]).unwrap();
/// let verified = flexbuf::verify(&bytes).unwrap();
/// let mut de = flexbuf::Deserializer::new(verified, flexbuf::Budget::new(3, 0));
/// assert!(Vec::<u16>::deserialize(&mut de).is_err()); // 4 nodes needed: the vector and 3 ints
/// ```
#[derive(Debug)]
pub struct Deserializer<'de> {
    root: Reader<'de>,
    st: State<'de>,
}

/// What every value read by one deserializer shares: the budget, the keys
/// of the maps met so far, and for a one-pass read of unverified bytes its
/// checks' state.
#[derive(Debug)]
struct State<'de> {
    budget: Budget,
    keys: KeyCache<'de>,
    /// True for a one-pass read: the verifier's checks that reads do not
    /// make are made here (`one_pass.rs`).
    checked: bool,
    /// Containers open (one-pass reads).
    depth: usize,
    /// Most containers open at once (one-pass reads; the verifier's limit).
    max_depth: usize,
}

impl<'de> State<'de> {
    fn new(budget: Budget) -> State<'de> {
        State {
            budget,
            keys: KeyCache::default(),
            checked: false,
            depth: 0,
            max_depth: 0,
        }
    }

    /// The state of a one-pass read under `options`.
    fn unverified(budget: Budget, options: &VerifyOptions) -> State<'de> {
        State {
            checked: true,
            max_depth: options.max_depth.min(1024),
            ..State::new(budget)
        }
    }

    /// Opens a container at `at`: in a one-pass read, one level deeper, as
    /// the verifier counts them (the root container is level 1).
    #[inline(always)]
    fn enter(&mut self, at: usize) -> Result<()> {
        if self.checked {
            self.depth += 1;
            if self.depth > self.max_depth {
                return Err(Error::at(ErrorKind::DepthLimit(self.max_depth), at));
            }
        }
        Ok(())
    }

    /// Closes the container [`enter`](Self::enter) opened.
    #[inline(always)]
    fn leave(&mut self) {
        if self.checked {
            self.depth -= 1;
        }
    }
}

/// Passes on an error after which part of a value may be left unread, and
/// so unchecked in a one-pass read (`one_pass.rs`), counting it: one a
/// visitor or seed returned for a value or container it was handed, or one
/// of the deserializer's own serde messages (which the crate's error
/// constructors do not count).
#[cold]
fn counted(e: Error) -> Error {
    note();
    e
}

/// The error that sends a one-pass read of a kind of value it does not
/// check (a vector of keys, the deprecated vector of strings) to the
/// verified path: counted, and replaced there by that path's result.
#[cold]
fn verified_path(at: usize) -> Error {
    counted(Error::at(
        ErrorKind::Message("read after verification".into()),
        at,
    ))
}

/// Checks, in a one-pass read, that the string `s` read from `buf` is
/// followed by its NUL, as the verifier does.
#[inline(always)]
fn nul_after(buf: &[u8], s: &[u8]) -> Result<()> {
    if ends_in_nul(buf, s) {
        Ok(())
    } else {
        Err(Error::at(
            ErrorKind::MissingNul,
            s.as_ptr() as usize - buf.as_ptr() as usize,
        ))
    }
}

/// Whether the byte after `s` (a slice of `buf`) is a NUL inside `buf`.
#[inline(always)]
fn ends_in_nul(buf: &[u8], s: &[u8]) -> bool {
    let end = s.as_ptr() as usize - buf.as_ptr() as usize + s.len();
    buf.get(end) == Some(&0)
}

impl<'de> Deserializer<'de> {
    /// A deserializer for the root of a verified buffer.
    pub fn new(verified: Verified<'de>, budget: Budget) -> Deserializer<'de> {
        Deserializer {
            root: verified.root(),
            st: State::new(budget),
        }
    }

    /// A deserializer for one value of a verified buffer, e.g. a field read lazily.
    ///
    /// Fails with [`ErrorKind::Message`] when `reader` does not come from
    /// [`crate::verify`]: unverified bytes could nest without limit.
    pub fn from_reader(reader: Reader<'de>, budget: Budget) -> Result<Deserializer<'de>> {
        if !reader.is_trusted() {
            return Err(Error::at(
                ErrorKind::Message(
                    "serde reads only verified buffers; call flexbuf::verify".into(),
                ),
                reader.offset(),
            ));
        }
        Ok(Deserializer {
            root: reader,
            st: State::new(budget),
        })
    }

    /// The budget left after what has been deserialized so far.
    pub fn budget(&self) -> &Budget {
        &self.st.budget
    }

    fn value(&mut self) -> Value<'de, '_> {
        Value::new(self.root, &mut self.st)
    }
}

macro_rules! forward_to_value {
    ($($method:ident ( $($arg:ident : $ty:ty),* );)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
                self.value().$method($($arg,)* visitor)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    forward_to_value! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }
}

/// One value of a verified buffer, charged once against the budget.
struct Value<'de, 'b> {
    reader: Reader<'de>,
    st: &'b mut State<'de>,
    /// True once this value's node was charged (`Some(x)` and newtypes re-enter).
    charged: bool,
}

/// Converts a wide integer to the target type, or reports it out of range here.
#[inline(always)]
pub(super) fn narrow<T: TryFrom<W>, W>(v: W, at: usize) -> Result<T> {
    T::try_from(v).map_err(|_| Error::at(ErrorKind::OutOfRange, at))
}

/// The error for a value of type `found` at `at` read as `expected`.
pub(super) fn mismatch(expected: &'static str, found: FlexType, at: usize) -> Error {
    Error::at(ErrorKind::TypeMismatch { expected, found }, at)
}

/// Every vector kind except a map (whose values vector is not a sequence here).
fn is_vector(ty: FlexType) -> bool {
    ty.is_any_vector() && ty != FlexType::Map
}

macro_rules! integer {
    ($method:ident, $visit:ident, $read:ident) => {
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
            self.charge()?;
            let at = self.reader.offset();
            let v = narrow(self.reader.$read()?, at)?;
            visitor.$visit(v).map_err(|e: Error| e.with_offset(at))
        }
    };
}

impl<'de, 'b> Value<'de, 'b> {
    fn new(reader: Reader<'de>, st: &'b mut State<'de>) -> Self {
        Value {
            reader,
            st,
            charged: false,
        }
    }

    /// An element of a container whose elements were charged together.
    fn charged(reader: Reader<'de>, st: &'b mut State<'de>) -> Self {
        Value {
            reader,
            st,
            charged: true,
        }
    }

    /// Charges this value's node once. Inlined: an element of a vector
    /// (charged with its siblings) pays one test, not a call.
    #[inline(always)]
    fn charge(&mut self) -> Result<()> {
        if self.charged {
            return Ok(());
        }
        self.charge_node()
    }

    /// Charges the node: the first read of a value not charged with its siblings.
    #[inline(never)]
    fn charge_node(&mut self) -> Result<()> {
        self.st
            .budget
            .node()
            .map_err(|e| e.with_offset(self.reader.offset()))?;
        self.charged = true;
        Ok(())
    }

    fn mismatch(&self, expected: &'static str) -> Error {
        mismatch(expected, self.reader.flex_type(), self.reader.offset())
    }

    fn str(&mut self) -> Result<&'de str> {
        let s = self.reader.as_str()?;
        if self.st.checked && self.reader.flex_type() == FlexType::String {
            nul_after(self.reader.buffer(), s.as_bytes())?;
        }
        self.st
            .budget
            .bytes(s.len())
            .map_err(|e| e.with_offset(self.reader.offset()))?;
        Ok(s)
    }

    fn bytes(&mut self) -> Result<&'de [u8]> {
        let b = match self.reader.flex_type() {
            FlexType::Key => self.reader.as_str()?.as_bytes(),
            // Unverified, a string is checked as the verifier checks one.
            FlexType::String if self.st.checked => {
                let s = self.reader.as_str()?.as_bytes();
                nul_after(self.reader.buffer(), s)?;
                s
            }
            _ => self.reader.as_blob()?,
        };
        self.st
            .budget
            .bytes(b.len())
            .map_err(|e| e.with_offset(self.reader.offset()))?;
        Ok(b)
    }

    /// A map (charged as one node) to `visitor`; see [`map`](Self::map).
    fn open_map<V: Visitor<'de>>(mut self, visitor: V, structs: bool) -> Result<V::Value> {
        self.charge()?;
        if self.reader.flex_type() != FlexType::Map {
            return Err(self.mismatch("map"));
        }
        self.map(visitor, structs)
    }

    /// The vector here, to `visitor`. By reference: a move of `self` here
    /// copied the value's reader with 16-byte loads of bytes its caller had
    /// just stored field by field, which the store buffer cannot forward.
    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let at = self.reader.offset();
        let vector = self.reader.vector_view()?;
        if self.st.checked {
            if matches!(
                self.reader.flex_type(),
                FlexType::VectorKey | FlexType::VectorStringDeprecated
            ) {
                return Err(verified_path(at));
            }
            self.st.enter(at)?;
        }
        // Every element's node at once: each is then read as charged.
        self.st
            .budget
            .nodes(vector.len())
            .map_err(|e| e.with_offset(at))?;
        let mut access = Seq {
            vector,
            next: 0,
            st: &mut *self.st,
        };
        let value = visitor
            .visit_seq(&mut access)
            .map_err(|e: Error| counted(e).with_offset(at))?;
        if access.next < vector.len() {
            let expected = format!("{} elements", access.next);
            return Err(counted(
                <Error as de::Error>::invalid_length(vector.len(), &expected.as_str())
                    .with_offset(at),
            ));
        }
        self.st.leave();
        Ok(value)
    }

    /// The map here, to `visitor`; with `structs`, its keys are taken from
    /// (or kept in) the key cache: the maps of a struct type share their
    /// keys vector in the buffers `to_vec` writes, other maps do not.
    fn map<V: Visitor<'de>>(&mut self, visitor: V, structs: bool) -> Result<V::Value> {
        // The usual map is read inline and any other through the checked
        // path, each going on in its own copy of `map_with`: with one
        // continuation the two paths' views met in memory, and the view was
        // read back with 16-byte loads the store buffer cannot forward.
        // Only for structs: in `deserialize_any` (maps into `Value`s and
        // the like) the second copy cost more than the stall (unicode_heavy
        // into `serde_json::Value` 5% slower).
        if !structs {
            let map = self.reader.map_view()?;
            return self.map_with(map, visitor, false);
        }
        match self.reader.map_in_bounds() {
            Some(map) => self.map_with(map, visitor, true),
            None => {
                let map = self.reader.as_map()?;
                self.map_with(map, visitor, true)
            }
        }
    }

    /// [`map`](Self::map) of the view `map` of this value.
    #[inline(always)]
    fn map_with<V: Visitor<'de>>(
        &mut self,
        map: MapReader<'de>,
        visitor: V,
        structs: bool,
    ) -> Result<V::Value> {
        let at = self.reader.offset();
        if self.st.checked {
            map.check_lengths()?;
            self.st.enter(at)?;
        }
        // Every value's node at once: each is then read as charged.
        self.st
            .budget
            .nodes(map.len())
            .map_err(|e| e.with_offset(at))?;
        let kept = if structs {
            self.st.keys.find(&map)
        } else {
            None
        };
        let mut access = Map {
            map,
            kept,
            next: 0,
            ordered: 0,
            key: "",
            st: &mut *self.st,
        };
        let value = visitor
            .visit_map(&mut access)
            .map_err(|e: Error| counted(e).with_offset(at))?;
        if access.next < map.len() {
            let expected = format!("{} entries", access.next);
            return Err(counted(
                <Error as de::Error>::invalid_length(map.len(), &expected.as_str()).with_offset(at),
            ));
        }
        // Keys the visitor did not take in order, in a one-pass read of a
        // keys vector not met before: checked here, as the verifier does.
        let unordered = access.ordered < map.len();
        if self.st.checked && kept.is_none() && unordered {
            map.check_keys()?;
        }
        self.st.leave();
        Ok(value)
    }

    /// The enum of the `{"Variant": payload}` map `map` of this value, to
    /// `visitor` (see [`deserialize_enum`](de::Deserializer::deserialize_enum)).
    #[inline(always)]
    fn variant<V: Visitor<'de>>(self, map: MapReader<'de>, visitor: V) -> Result<V::Value> {
        let at = self.reader.offset();
        if self.st.checked {
            map.check_lengths()?;
            self.st.enter(at)?;
        }
        if map.len() != 1 {
            return Err(counted(
                <Error as de::Error>::invalid_length(
                    map.len(),
                    &"a map with exactly one entry (the variant)",
                )
                .with_offset(at),
            ));
        }
        let name = map.key(0)?;
        self.st
            .budget
            .bytes(name.len())
            .map_err(|e: Error| e.with_offset(at))?;
        let mut parts = VariantParts {
            name,
            payload: map.value(0)?,
            used: false,
            st: self.st,
        };
        let value = visitor
            .visit_enum(Variant { parts: &mut parts })
            .map_err(|e: Error| counted(e).with_offset(at))?;
        if parts.st.checked {
            // A visitor that took the variant's name and not its payload
            // left the payload unread: walked here, so it is checked.
            if !parts.used {
                de::Deserializer::deserialize_ignored_any(parts.payload(), de::IgnoredAny)?;
            }
            parts.st.leave();
        }
        Ok(value)
    }
}

impl<'de> de::Deserializer<'de> for Value<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        let r = self.reader;
        let result = match r.flex_type() {
            FlexType::Null => visitor.visit_unit(),
            FlexType::Bool => visitor.visit_bool(r.as_bool()?),
            FlexType::Int | FlexType::IndirectInt => visitor.visit_i64(r.as_i64()?),
            FlexType::UInt | FlexType::IndirectUInt => visitor.visit_u64(r.as_u64()?),
            FlexType::Float | FlexType::IndirectFloat => visitor.visit_f64(r.as_f64()?),
            FlexType::String | FlexType::Key => {
                let s = self.str()?;
                visitor.visit_borrowed_str(s)
            }
            FlexType::Blob => {
                let b = self.bytes()?;
                visitor.visit_borrowed_bytes(b)
            }
            FlexType::Map => return self.map(visitor, false),
            t if is_vector(t) => return self.seq(visitor),
            _ => return Err(self.mismatch("a value")),
        };
        result.map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_bool<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        visitor
            .visit_bool(self.reader.as_bool()?)
            .map_err(|e: Error| e.with_offset(at))
    }

    integer!(deserialize_i8, visit_i8, as_i64);
    integer!(deserialize_i16, visit_i16, as_i64);
    integer!(deserialize_i32, visit_i32, as_i64);
    integer!(deserialize_i64, visit_i64, as_i64);
    integer!(deserialize_u8, visit_u8, as_u64);
    integer!(deserialize_u16, visit_u16, as_u64);
    integer!(deserialize_u32, visit_u32, as_u64);
    integer!(deserialize_u64, visit_u64, as_u64);

    fn deserialize_i128<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        let result = match self.reader.flex_type() {
            FlexType::UInt | FlexType::IndirectUInt => {
                visitor.visit_i128(self.reader.as_u64()?.into())
            }
            _ => visitor.visit_i128(self.reader.as_i64()?.into()),
        };
        result.map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_u128<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        visitor
            .visit_u128(self.reader.as_u64()?.into())
            .map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_f32<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        visitor
            .visit_f32(self.reader.as_f64()? as f32)
            .map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_f64<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        visitor
            .visit_f64(self.reader.as_f64()?)
            .map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // serde's char visitor accepts a string of exactly one character.
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        let s = self.str()?;
        visitor
            .visit_borrowed_str(s)
            .map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        match self.reader.flex_type() {
            FlexType::Blob | FlexType::String | FlexType::Key => {
                let b = self.bytes()?;
                visitor
                    .visit_borrowed_bytes(b)
                    .map_err(|e: Error| e.with_offset(at))
            }
            // Other SDKs may write bytes as a vector of numbers; byte visitors accept sequences.
            t if is_vector(t) => self.seq(visitor),
            _ => Err(self.mismatch("blob")),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        if self.reader.is_null() {
            let at = self.reader.offset();
            visitor.visit_none().map_err(|e: Error| e.with_offset(at))
        } else {
            visitor.visit_some(self).map_err(counted)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        if !self.reader.is_null() {
            return Err(self.mismatch("null"));
        }
        let at = self.reader.offset();
        visitor.visit_unit().map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.charge()?;
        visitor.visit_newtype_struct(self).map_err(counted)
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        if !is_vector(self.reader.flex_type()) {
            return Err(self.mismatch("vector"));
        }
        self.seq(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.open_map(visitor, false)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.open_map(visitor, true)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.charge()?;
        let at = self.reader.offset();
        let result = match self.reader.flex_type() {
            FlexType::String | FlexType::Key => {
                let name = self.str()?;
                visitor.visit_enum(name.into_deserializer())
            }
            // As in `map`: the usual map inline, each path with its own
            // copy of the rest.
            FlexType::Map => match self.reader.map_in_bounds() {
                Some(map) => return self.variant(map, visitor),
                None => {
                    let map = self.reader.as_map()?;
                    return self.variant(map, visitor);
                }
            },
            _ => return Err(self.mismatch("enum (string or single-entry map)")),
        };
        result.map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.charge()?;
        if self.st.checked {
            // Unverified bytes: the skipped value is read (and so checked)
            // all the same, each part of it charged as any value is.
            let at = self.reader.offset();
            self.deserialize_any(de::IgnoredAny)?;
            return visitor.visit_unit().map_err(|e: Error| e.with_offset(at));
        }
        // Skipping costs nothing to expand: the verifier has already checked the bytes.
        visitor.visit_unit()
    }
}

#[cfg(test)]
std::thread_local! {
    /// Off in tests that compare leaves read by [`leaf`] with the same
    /// elements and map values read through `Value`.
    pub(super) static LEAVES: core::cell::Cell<bool> = const { core::cell::Cell::new(true) };
}

fast_path_switch! {
    /// Whether [`leaf`] reads inline scalars and strings.
    fn leaves_on = LEAVES;
}

/// Deserializes element `i` of `vector` (a sequence's, or a map's values)
/// through a leaf deserializer when it is an inline number or bool
/// ([`Scalar`]) or a string ([`Text`]), whose node was charged with its
/// siblings; gives `seed` back for anything else, which `Value` reads.
#[inline(always)]
fn leaf<'de, T: DeserializeSeed<'de>>(
    vector: &VectorReader<'de>,
    i: usize,
    st: &mut State<'de>,
    seed: T,
) -> core::result::Result<Result<T::Value>, T> {
    if !leaves_on() {
        return Err(seed);
    }
    let at = || vector.data_offset() + i * vector.element_width();
    if let Some(value) = vector.inline_at(i) {
        return Ok(seed.deserialize(Scalar::new(value, at())));
    }
    match vector.str_in_bounds(i) {
        // Unverified, a string without its NUL goes the general way, which
        // reports it.
        Some(text) if st.checked && !ends_in_nul(vector.buffer(), text.as_bytes()) => Err(seed),
        Some(text) => Ok(seed.deserialize(Text::new(text, at(), &mut st.budget))),
        None => Err(seed),
    }
}

/// Elements of any kind of vector.
struct Seq<'de, 'b> {
    vector: VectorReader<'de>,
    next: usize,
    st: &'b mut State<'de>,
}

impl<'de> de::SeqAccess<'de> for Seq<'de, '_> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.next >= self.vector.len() {
            return Ok(None);
        }
        let i = self.next;
        self.next += 1;
        // A leaf was read (and so checked) whole before the seed got it:
        // its error leaves nothing unchecked.
        let seed = match leaf(&self.vector, i, self.st, seed) {
            Ok(read) => {
                return read
                    .map(Some)
                    .map_err(|e| e.in_segment(PathSegment::Index(i)))
            }
            Err(seed) => seed,
        };
        let element = self.vector.get(i)?;
        seed.deserialize(Value::charged(element, self.st))
            .map(Some)
            .map_err(|e| counted(e).in_segment(PathSegment::Index(i)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.vector.len() - self.next)
    }
}

/// Entries of a map, in key order.
struct Map<'de, 'b> {
    map: MapReader<'de>,
    /// Where the map's keys are kept, when its keys vector was met before.
    kept: Option<Kept>,
    next: usize,
    /// In a one-pass read of a keys vector not met before: how many keys,
    /// from the first, were taken in order and found ascending.
    ordered: usize,
    /// Key of the entry whose value comes next.
    key: &'de str,
    st: &'b mut State<'de>,
}

impl Map<'_, '_> {
    /// The error of a key not above the one before it.
    #[cold]
    fn unsorted(&self) -> Error {
        let slot = self.map.keys().data_offset() + self.next * self.map.keys_width();
        Error::at(ErrorKind::UnsortedKeys, slot)
    }
}

impl<'de> de::MapAccess<'de> for Map<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.next >= self.map.len() {
            return Ok(None);
        }
        let kept = self.kept.and_then(|k| self.st.keys.get(k, self.next));
        let key = match kept.or_else(|| self.map.short_key(self.next)) {
            Some(k) => k,
            None => self.map.long_key(self.next)?,
        };
        // One pass: each key of a keys vector met for the first time above
        // the one before it (the verifier's order). A vector met before was
        // checked then (`map_with` checks what was not taken in order).
        if self.st.checked && self.kept.is_none() && self.next == self.ordered {
            if self.next > 0 && self.key >= key {
                return Err(self.unsorted());
            }
            self.ordered += 1;
        }
        self.key = key;
        self.st.budget.bytes(key.len())?;
        seed.deserialize(Key { key })
            .map(Some)
            .map_err(|e| counted(e).in_segment(PathSegment::Key(key)))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let i = self.next;
        self.next += 1;
        // As in `Seq`: a leaf's error leaves nothing unchecked.
        let seed = match leaf(&self.map.values(), i, self.st, seed) {
            Ok(read) => return read.map_err(|e| e.in_segment(PathSegment::Key(self.key))),
            Err(seed) => seed,
        };
        let value = self.map.value(i)?;
        seed.deserialize(Value::charged(value, self.st))
            .map_err(|e| counted(e).in_segment(PathSegment::Key(self.key)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.map.len() - self.next)
    }
}

/// A map key: text, parsed as a number when the target is numeric (the
/// serializer writes integer keys in decimal).
struct Key<'de> {
    key: &'de str,
}

impl Key<'_> {
    fn parse<T: core::str::FromStr>(&self) -> Result<T> {
        self.key.parse().map_err(|_| {
            // Distinguish a number too big for the target from text that is no number.
            if self.key.parse::<i128>().is_ok() {
                Error::new(ErrorKind::OutOfRange)
            } else {
                <Error as de::Error>::invalid_type(de::Unexpected::Str(self.key), &"an integer key")
            }
        })
    }
}

macro_rules! integer_key {
    ($($method:ident => $visit:ident,)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                visitor.$visit(self.parse()?)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.key)
    }

    integer_key! {
        deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128,
        deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32,
        deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128,
    }

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

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self.key.into_deserializer())
    }

    forward_to_deserialize_any! {
        bool f32 f64 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// The variant of a `{"Variant": payload}` map: its parts by reference, so
/// the access passes through serde's calls in a register (by value, its
/// reader was copied with 16-byte loads of fields just stored one by one,
/// which the store buffer cannot forward).
struct Variant<'de, 'b, 'p> {
    parts: &'p mut VariantParts<'de, 'b>,
}

/// What a [`Variant`] reads: the variant's name, its payload and the state.
struct VariantParts<'de, 'b> {
    name: &'de str,
    payload: Reader<'de>,
    /// True once the visitor asked for the payload (or its absence).
    used: bool,
    st: &'b mut State<'de>,
}

impl<'de, 'b> VariantParts<'de, 'b> {
    /// The payload, not yet charged.
    fn payload(&mut self) -> Value<'de, '_> {
        self.used = true;
        Value::new(self.payload, &mut *self.st)
    }
}

impl<'de> de::EnumAccess<'de> for Variant<'de, '_, '_> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self)> {
        let name = self.parts.name;
        let v = seed
            .deserialize(Key { key: name })
            .map_err(|e| e.in_segment(PathSegment::Key(name)))?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'de, '_, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        let payload = self.parts.payload();
        // A null is all there is to check of the payload.
        if payload.reader.is_null() {
            Ok(())
        } else {
            Err(payload
                .mismatch("null (payload of a unit variant)")
                .in_segment(PathSegment::Key(self.parts.name)))
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        let name = self.parts.name;
        seed.deserialize(self.parts.payload())
            .map_err(|e| counted(e).in_segment(PathSegment::Key(name)))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        let name = self.parts.name;
        de::Deserializer::deserialize_tuple(self.parts.payload(), len, visitor)
            .map_err(|e| counted(e).in_segment(PathSegment::Key(name)))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let name = self.parts.name;
        de::Deserializer::deserialize_struct(self.parts.payload(), "", fields, visitor)
            .map_err(|e| counted(e).in_segment(PathSegment::Key(name)))
    }
}
