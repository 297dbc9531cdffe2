//! Primitive element types for bulk typed vectors and zero-copy slices.

use crate::types::{BitWidth, FlexType};

mod sealed {
    pub trait Sealed {}
}

/// A primitive that can be written as a typed-vector element: `i8..i64`,
/// `u8..u64`, `f32`, `f64` and `bool`.
pub trait Scalar: Copy + sealed::Sealed + 'static {
    /// Element type in a typed vector.
    const TYPE: FlexType;
    /// The width of `Self` in memory.
    const NATURAL: BitWidth;

    /// Widest width any of `values` needs, scanning only until `stop` is reached.
    fn min_width_of(values: &[Self], stop: BitWidth) -> BitWidth;

    /// Appends `self` at `width` bytes, little-endian.
    fn write_at_width(self, out: &mut Vec<u8>, width: BitWidth);

    /// Appends all values at their natural width, in one copy on little-endian hosts.
    fn extend_le(out: &mut Vec<u8>, values: &[Self]);

    /// True when pushing a value one at a time (as the C++ `Float()` call does,
    /// through a double) can change its bits: only f32 signalling NaNs, which
    /// the conversion quiets.
    const PUSH_CHANGES_BITS: bool = false;

    /// `self` as a one-at-a-time push stores it.
    #[inline]
    fn as_pushed(self) -> Self {
        self
    }

    /// True when [`as_pushed`](Self::as_pushed) changes the bits of `self`.
    #[inline]
    fn pushed_differs(self) -> bool {
        false
    }
}

macro_rules! int_scalar {
    ($t:ty, $ty:expr, $nat:expr, $width_fn:expr, $wide:ty) => {
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const TYPE: FlexType = $ty;
            const NATURAL: BitWidth = $nat;

            #[inline]
            fn min_width_of(values: &[Self], stop: BitWidth) -> BitWidth {
                let mut w = BitWidth::W8;
                for &v in values {
                    let vw = $width_fn(v as $wide);
                    if vw > w {
                        w = vw;
                        if w >= stop {
                            break;
                        }
                    }
                }
                w
            }

            #[inline]
            fn write_at_width(self, out: &mut Vec<u8>, width: BitWidth) {
                out.extend_from_slice(&(self as $wide).to_le_bytes()[..width.bytes()]);
            }

            #[inline]
            fn extend_le(out: &mut Vec<u8>, values: &[Self]) {
                if cfg!(target_endian = "little") {
                    // SAFETY: integers have no padding and every bit pattern is a valid byte.
                    let bytes = unsafe {
                        core::slice::from_raw_parts(
                            values.as_ptr() as *const u8,
                            core::mem::size_of_val(values),
                        )
                    };
                    out.extend_from_slice(bytes);
                } else {
                    for v in values {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
    };
}

int_scalar!(i8, FlexType::Int, BitWidth::W8, BitWidth::of_i64, i64);
int_scalar!(i16, FlexType::Int, BitWidth::W16, BitWidth::of_i64, i64);
int_scalar!(i32, FlexType::Int, BitWidth::W32, BitWidth::of_i64, i64);
int_scalar!(i64, FlexType::Int, BitWidth::W64, BitWidth::of_i64, i64);
int_scalar!(u8, FlexType::UInt, BitWidth::W8, BitWidth::of_u64, u64);
int_scalar!(u16, FlexType::UInt, BitWidth::W16, BitWidth::of_u64, u64);
int_scalar!(u32, FlexType::UInt, BitWidth::W32, BitWidth::of_u64, u64);
int_scalar!(u64, FlexType::UInt, BitWidth::W64, BitWidth::of_u64, u64);

impl sealed::Sealed for bool {}
impl Scalar for bool {
    const TYPE: FlexType = FlexType::Bool;
    const NATURAL: BitWidth = BitWidth::W8;

    fn min_width_of(_: &[Self], _: BitWidth) -> BitWidth {
        BitWidth::W8
    }

    fn write_at_width(self, out: &mut Vec<u8>, width: BitWidth) {
        out.extend_from_slice(&(self as u64).to_le_bytes()[..width.bytes()]);
    }

    fn extend_le(out: &mut Vec<u8>, values: &[Self]) {
        out.extend(values.iter().map(|&b| b as u8));
    }
}

impl sealed::Sealed for f32 {}
impl Scalar for f32 {
    const TYPE: FlexType = FlexType::Float;
    const NATURAL: BitWidth = BitWidth::W32;
    const PUSH_CHANGES_BITS: bool = true;

    /// Sets the quiet bit of a NaN, as the f32 -> f64 -> f32 round trip does.
    #[inline]
    fn as_pushed(self) -> Self {
        if self.is_nan() {
            f32::from_bits(self.to_bits() | 0x0040_0000)
        } else {
            self
        }
    }

    #[inline]
    fn pushed_differs(self) -> bool {
        self.is_nan() && self.to_bits() & 0x0040_0000 == 0
    }

    fn min_width_of(_: &[Self], _: BitWidth) -> BitWidth {
        BitWidth::W32
    }

    fn write_at_width(self, out: &mut Vec<u8>, width: BitWidth) {
        if width == BitWidth::W64 {
            out.extend_from_slice(&(self as f64).to_le_bytes());
        } else {
            out.extend_from_slice(&self.to_le_bytes());
        }
    }

    fn extend_le(out: &mut Vec<u8>, values: &[Self]) {
        out.reserve(values.len() * 4);
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

impl sealed::Sealed for f64 {}
impl Scalar for f64 {
    const TYPE: FlexType = FlexType::Float;
    const NATURAL: BitWidth = BitWidth::W64;

    #[inline]
    fn min_width_of(values: &[Self], _: BitWidth) -> BitWidth {
        if values.iter().all(|&v| BitWidth::of_f64(v) == BitWidth::W32) {
            BitWidth::W32
        } else {
            BitWidth::W64
        }
    }

    fn write_at_width(self, out: &mut Vec<u8>, width: BitWidth) {
        if width == BitWidth::W64 {
            out.extend_from_slice(&self.to_le_bytes());
        } else {
            out.extend_from_slice(&(self as f32).to_le_bytes());
        }
    }

    fn extend_le(out: &mut Vec<u8>, values: &[Self]) {
        out.reserve(values.len() * 8);
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Element types that can be viewed in place as a slice of a typed vector
/// (fixed-size little-endian integers and floats).
pub trait SliceElement: Scalar {
    /// The typed-vector element type this slice reads.
    const ELEMENT: FlexType;
}

macro_rules! slice_elem {
    ($($t:ty),*) => {$(
        impl SliceElement for $t { const ELEMENT: FlexType = <$t as Scalar>::TYPE; }
    )*};
}
slice_elem!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_stops_at_widest() {
        assert_eq!(
            i32::min_width_of(&[1, 2, 70000, 3], BitWidth::W32),
            BitWidth::W32
        );
        assert_eq!(i64::min_width_of(&[1, -129], BitWidth::W64), BitWidth::W16);
        assert_eq!(u16::min_width_of(&[255], BitWidth::W16), BitWidth::W8);
        assert_eq!(
            f64::min_width_of(&[1.5, 0.25], BitWidth::W64),
            BitWidth::W32
        );
        assert_eq!(f64::min_width_of(&[1.5, 0.1], BitWidth::W64), BitWidth::W64);
    }
}
