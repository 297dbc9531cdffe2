//! Wire-level type and width codes shared by the builder, reader and verifier.

use core::fmt;

/// A FlexBuffers value type, as stored in the upper six bits of a packed type byte.
///
/// The numbering is the wire format's and must never change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum FlexType {
    /// Null.
    Null = 0,
    /// Signed integer stored inline.
    Int = 1,
    /// Unsigned integer stored inline.
    UInt = 2,
    /// IEEE-754 float stored inline (4 or 8 bytes).
    Float = 3,
    /// NUL-terminated map key.
    Key = 4,
    /// Length-prefixed, NUL-terminated UTF-8 string.
    String = 5,
    /// Signed integer behind an offset.
    IndirectInt = 6,
    /// Unsigned integer behind an offset.
    IndirectUInt = 7,
    /// Float behind an offset.
    IndirectFloat = 8,
    /// Map: an untyped vector of values prefixed by a keys vector.
    Map = 9,
    /// Untyped vector: elements followed by one type byte each.
    Vector = 10,
    /// Typed vector of signed integers.
    VectorInt = 11,
    /// Typed vector of unsigned integers.
    VectorUInt = 12,
    /// Typed vector of floats.
    VectorFloat = 13,
    /// Typed vector of keys.
    VectorKey = 14,
    /// Deprecated typed vector of strings: read as keys, never written.
    VectorStringDeprecated = 15,
    /// Fixed vector of two signed integers.
    VectorInt2 = 16,
    /// Fixed vector of two unsigned integers.
    VectorUInt2 = 17,
    /// Fixed vector of two floats.
    VectorFloat2 = 18,
    /// Fixed vector of three signed integers.
    VectorInt3 = 19,
    /// Fixed vector of three unsigned integers.
    VectorUInt3 = 20,
    /// Fixed vector of three floats.
    VectorFloat3 = 21,
    /// Fixed vector of four signed integers.
    VectorInt4 = 22,
    /// Fixed vector of four unsigned integers.
    VectorUInt4 = 23,
    /// Fixed vector of four floats.
    VectorFloat4 = 24,
    /// Length-prefixed bytes.
    Blob = 25,
    /// Boolean stored inline.
    Bool = 26,
    /// Typed vector of booleans.
    VectorBool = 36,
}

impl FlexType {
    /// Decodes a type code; `None` for codes the format does not define.
    pub const fn from_code(code: u8) -> Option<FlexType> {
        use FlexType::*;
        Some(match code {
            0 => Null,
            1 => Int,
            2 => UInt,
            3 => Float,
            4 => Key,
            5 => String,
            6 => IndirectInt,
            7 => IndirectUInt,
            8 => IndirectFloat,
            9 => Map,
            10 => Vector,
            11 => VectorInt,
            12 => VectorUInt,
            13 => VectorFloat,
            14 => VectorKey,
            15 => VectorStringDeprecated,
            16 => VectorInt2,
            17 => VectorUInt2,
            18 => VectorFloat2,
            19 => VectorInt3,
            20 => VectorUInt3,
            21 => VectorFloat3,
            22 => VectorInt4,
            23 => VectorUInt4,
            24 => VectorFloat4,
            25 => Blob,
            26 => Bool,
            36 => VectorBool,
            _ => return None,
        })
    }

    /// True for values stored in place rather than behind an offset.
    ///
    /// One shift and mask (every code is below 64), not a chain of compares:
    /// the builder asks it for every element of every vector it ends.
    #[inline(always)]
    pub const fn is_inline(self) -> bool {
        const INLINE: u64 = 1 << FlexType::Null as u8
            | 1 << FlexType::Int as u8
            | 1 << FlexType::UInt as u8
            | 1 << FlexType::Float as u8
            | 1 << FlexType::Bool as u8;
        (INLINE >> (self as u8)) & 1 != 0
    }

    /// True for types that may be elements of a typed vector.
    pub const fn is_typed_vector_element(self) -> bool {
        matches!(
            self,
            FlexType::Int
                | FlexType::UInt
                | FlexType::Float
                | FlexType::Key
                | FlexType::String
                | FlexType::Bool
        )
    }

    /// True for typed vectors with a size prefix (including the deprecated string vector).
    pub const fn is_typed_vector(self) -> bool {
        matches!(
            self,
            FlexType::VectorInt
                | FlexType::VectorUInt
                | FlexType::VectorFloat
                | FlexType::VectorKey
                | FlexType::VectorStringDeprecated
                | FlexType::VectorBool
        )
    }

    /// True for fixed-length typed vectors (2, 3 or 4 elements, no size prefix).
    pub const fn is_fixed_typed_vector(self) -> bool {
        (self as u8) >= 16 && (self as u8) <= 24
    }

    /// True for every vector-like type: untyped, typed, fixed and map.
    pub const fn is_any_vector(self) -> bool {
        matches!(self, FlexType::Vector | FlexType::Map)
            || self.is_typed_vector()
            || self.is_fixed_typed_vector()
    }

    /// Element type of a typed vector (keys for the deprecated string vector, as readers must).
    pub const fn typed_vector_element(self) -> Option<FlexType> {
        Some(match self {
            FlexType::VectorInt => FlexType::Int,
            FlexType::VectorUInt => FlexType::UInt,
            FlexType::VectorFloat => FlexType::Float,
            FlexType::VectorKey | FlexType::VectorStringDeprecated => FlexType::Key,
            FlexType::VectorBool => FlexType::Bool,
            _ => return None,
        })
    }

    /// Element type and length of a fixed typed vector.
    pub const fn fixed_vector_element(self) -> Option<(FlexType, usize)> {
        if !self.is_fixed_typed_vector() {
            return None;
        }
        let n = self as u8 - FlexType::VectorInt2 as u8;
        let elem = match n % 3 {
            0 => FlexType::Int,
            1 => FlexType::UInt,
            _ => FlexType::Float,
        };
        Some((elem, (n / 3 + 2) as usize))
    }

    /// The typed vector type for elements of `self`, or the fixed one when `fixed_len` is 2..=4.
    ///
    /// Returns `None` for element types the builder refuses to write in that form
    /// (strings are never written as a typed vector; fixed vectors hold only numbers).
    pub const fn to_typed_vector(self, fixed_len: usize) -> Option<FlexType> {
        use FlexType::*;
        Some(match (self, fixed_len) {
            (Int, 0) => VectorInt,
            (UInt, 0) => VectorUInt,
            (Float, 0) => VectorFloat,
            (Key, 0) => VectorKey,
            (Bool, 0) => VectorBool,
            (Int, 2) => VectorInt2,
            (UInt, 2) => VectorUInt2,
            (Float, 2) => VectorFloat2,
            (Int, 3) => VectorInt3,
            (UInt, 3) => VectorUInt3,
            (Float, 3) => VectorFloat3,
            (Int, 4) => VectorInt4,
            (UInt, 4) => VectorUInt4,
            (Float, 4) => VectorFloat4,
            _ => return None,
        })
    }

    /// The lowercase name used in the conformance notation (`vector_int2`, `indirect_float`, ...).
    pub const fn name(self) -> &'static str {
        use FlexType::*;
        match self {
            Null => "null",
            Int => "int",
            UInt => "uint",
            Float => "float",
            Key => "key",
            String => "string",
            IndirectInt => "indirect_int",
            IndirectUInt => "indirect_uint",
            IndirectFloat => "indirect_float",
            Map => "map",
            Vector => "vector",
            VectorInt => "vector_int",
            VectorUInt => "vector_uint",
            VectorFloat => "vector_float",
            VectorKey => "vector_key",
            VectorStringDeprecated => "vector_string_deprecated",
            VectorInt2 => "vector_int2",
            VectorUInt2 => "vector_uint2",
            VectorFloat2 => "vector_float2",
            VectorInt3 => "vector_int3",
            VectorUInt3 => "vector_uint3",
            VectorFloat3 => "vector_float3",
            VectorInt4 => "vector_int4",
            VectorUInt4 => "vector_uint4",
            VectorFloat4 => "vector_float4",
            Blob => "blob",
            Bool => "bool",
            VectorBool => "vector_bool",
        }
    }
}

impl fmt::Display for FlexType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A byte width of 1, 2, 4 or 8, stored as its log2 in the low two bits of a packed type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum BitWidth {
    /// One byte.
    W8 = 0,
    /// Two bytes.
    W16 = 1,
    /// Four bytes.
    W32 = 2,
    /// Eight bytes.
    W64 = 3,
}

impl BitWidth {
    /// Number of bytes.
    #[inline]
    pub const fn bytes(self) -> usize {
        1 << (self as u8)
    }

    /// From the low two bits of a packed type.
    #[inline]
    pub const fn from_log2(bits: u8) -> BitWidth {
        match bits & 3 {
            0 => BitWidth::W8,
            1 => BitWidth::W16,
            2 => BitWidth::W32,
            _ => BitWidth::W64,
        }
    }

    /// From a byte count; `None` unless it is 1, 2, 4 or 8.
    #[inline]
    pub const fn from_bytes(bytes: u64) -> Option<BitWidth> {
        match bytes {
            1 => Some(BitWidth::W8),
            2 => Some(BitWidth::W16),
            4 => Some(BitWidth::W32),
            8 => Some(BitWidth::W64),
            _ => None,
        }
    }

    /// Smallest width holding `u` as an unsigned number.
    #[inline]
    pub const fn of_u64(u: u64) -> BitWidth {
        if u <= 0xff {
            BitWidth::W8
        } else if u <= 0xffff {
            BitWidth::W16
        } else if u <= 0xffff_ffff {
            BitWidth::W32
        } else {
            BitWidth::W64
        }
    }

    /// Smallest two's-complement width holding `i`.
    #[inline]
    pub const fn of_i64(i: i64) -> BitWidth {
        let u = (i as u64) << 1;
        BitWidth::of_u64(if i >= 0 { u } else { !u })
    }

    /// 4 bytes when `f` survives a round trip through f32, else 8 (NaN is always 8).
    #[inline]
    pub fn of_f64(f: f64) -> BitWidth {
        if (f as f32) as f64 == f {
            BitWidth::W32
        } else {
            BitWidth::W64
        }
    }
}

/// Packs a type and a width into the type byte the wire format stores.
#[inline]
pub const fn pack_type(ty: FlexType, width: BitWidth) -> u8 {
    ((ty as u8) << 2) | width as u8
}

/// Splits a packed type byte; `None` when the type code is unknown.
#[inline]
pub const fn unpack_type(packed: u8) -> Option<(FlexType, BitWidth)> {
    match FlexType::from_code(packed >> 2) {
        Some(t) => Some((t, BitWidth::from_log2(packed))),
        None => None,
    }
}

/// Padding needed to align `len` to `align` bytes (a power of two).
#[inline]
pub const fn padding(len: usize, align: usize) -> usize {
    len.wrapping_neg() & (align - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit table names exactly the five types stored in place.
    #[test]
    fn inline_types_are_the_five_scalars() {
        let mut inline = 0;
        for code in 0..=255u8 {
            if let Some(t) = FlexType::from_code(code) {
                let expected = matches!(
                    t,
                    FlexType::Null
                        | FlexType::Int
                        | FlexType::UInt
                        | FlexType::Float
                        | FlexType::Bool
                );
                assert_eq!(t.is_inline(), expected, "{t:?}");
                inline += usize::from(expected);
            }
        }
        assert_eq!(inline, 5);
    }

    #[test]
    fn type_codes_round_trip() {
        for code in 0..=255u8 {
            if let Some(t) = FlexType::from_code(code) {
                assert_eq!(t as u8, code);
            }
        }
        assert_eq!(FlexType::from_code(27), None);
        assert_eq!(FlexType::from_code(37), None);
    }

    #[test]
    fn signed_widths_match_twos_complement() {
        assert_eq!(BitWidth::of_i64(127), BitWidth::W8);
        assert_eq!(BitWidth::of_i64(128), BitWidth::W16);
        assert_eq!(BitWidth::of_i64(-128), BitWidth::W8);
        assert_eq!(BitWidth::of_i64(-129), BitWidth::W16);
        assert_eq!(BitWidth::of_i64(i32::MIN as i64), BitWidth::W32);
        assert_eq!(BitWidth::of_i64(i32::MAX as i64 + 1), BitWidth::W64);
        assert_eq!(BitWidth::of_i64(i64::MIN), BitWidth::W64);
    }

    #[test]
    fn fixed_vector_types_decode() {
        assert_eq!(
            FlexType::VectorFloat3.fixed_vector_element(),
            Some((FlexType::Float, 3))
        );
        assert_eq!(
            FlexType::VectorUInt4.fixed_vector_element(),
            Some((FlexType::UInt, 4))
        );
        assert_eq!(FlexType::Int.to_typed_vector(3), Some(FlexType::VectorInt3));
        assert_eq!(FlexType::Key.to_typed_vector(2), None);
        assert_eq!(FlexType::String.to_typed_vector(0), None);
    }

    #[test]
    fn padding_aligns() {
        assert_eq!(padding(5, 4), 3);
        assert_eq!(padding(8, 8), 0);
        assert_eq!(padding(9, 1), 0);
    }
}
