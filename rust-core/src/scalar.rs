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

    /// Widest width any of `values` needs (`stop`: the natural width, past
    /// which no scan need look; integers read every value, in one
    /// branch-free pass).
    fn min_width_of(values: &[Self], stop: BitWidth) -> BitWidth;

    /// Appends `self` at `width` bytes, little-endian.
    fn write_at_width(self, out: &mut Vec<u8>, width: BitWidth);

    /// Appends every one of `values` at `width` bytes, little-endian, as
    /// [`write_at_width`](Self::write_at_width) on each in turn would: the
    /// buffer grows once, and each value is one store of a size fixed per
    /// width.
    fn extend_at_width(out: &mut Vec<u8>, values: &[Self], width: BitWidth);

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

/// Appends `le(v)[..N]` for each of `values`, the buffer grown once: with
/// `N` fixed, each copy is a store, not a library call.
#[inline(always)]
fn put_each<const N: usize, const M: usize, T: Copy>(
    out: &mut Vec<u8>,
    values: &[T],
    le: impl Fn(T) -> [u8; M],
) {
    let at = out.len();
    out.resize(at + N * values.len(), 0);
    for (dst, &v) in out[at..].chunks_exact_mut(N).zip(values) {
        dst.copy_from_slice(&le(v)[..N]);
    }
}

/// Appends the low `width` bytes of `le(v)` (a value's eight
/// little-endian bytes) for each of `values`: [`put_each`] at the width's
/// byte count, chosen once.
#[inline(always)]
fn put_low_bytes<T: Copy>(
    out: &mut Vec<u8>,
    values: &[T],
    width: BitWidth,
    le: impl Fn(T) -> [u8; 8],
) {
    match width {
        BitWidth::W8 => put_each::<1, 8, T>(out, values, le),
        BitWidth::W16 => put_each::<2, 8, T>(out, values, le),
        BitWidth::W32 => put_each::<4, 8, T>(out, values, le),
        BitWidth::W64 => put_each::<8, 8, T>(out, values, le),
    }
}

/// The bits whose highest set one gives a signed value's width: `i` shifted
/// left once, complemented when negative, so that
/// `BitWidth::of_u64(signed_bits(i)) == BitWidth::of_i64(i)`; and the
/// width of the OR of such bits is the widest width of any of them.
#[inline(always)]
fn signed_bits(i: i64) -> u64 {
    ((i as u64) << 1) ^ ((i >> 63) as u64)
}

/// [`signed_bits`] for unsigned values: the value itself.
#[inline(always)]
fn unsigned_bits(u: u64) -> u64 {
    u
}

macro_rules! int_scalar {
    ($t:ty, $ty:expr, $nat:expr, $bits:expr, $wide:ty) => {
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const TYPE: FlexType = $ty;
            const NATURAL: BitWidth = $nat;

            #[inline]
            fn min_width_of(values: &[Self], _stop: BitWidth) -> BitWidth {
                // `of_u64` of an OR is the widest `of_u64` of its terms (its
                // limits are all ones below a power of two).
                let bits = values.iter().fold(0u64, |acc, &v| acc | $bits(v as $wide));
                BitWidth::of_u64(bits)
            }

            #[inline]
            fn write_at_width(self, out: &mut Vec<u8>, width: BitWidth) {
                out.extend_from_slice(&(self as $wide).to_le_bytes()[..width.bytes()]);
            }

            #[inline]
            fn extend_at_width(out: &mut Vec<u8>, values: &[Self], width: BitWidth) {
                put_low_bytes(out, values, width, |v| (v as $wide).to_le_bytes());
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

int_scalar!(i8, FlexType::Int, BitWidth::W8, signed_bits, i64);
int_scalar!(i16, FlexType::Int, BitWidth::W16, signed_bits, i64);
int_scalar!(i32, FlexType::Int, BitWidth::W32, signed_bits, i64);
int_scalar!(i64, FlexType::Int, BitWidth::W64, signed_bits, i64);
int_scalar!(u8, FlexType::UInt, BitWidth::W8, unsigned_bits, u64);
int_scalar!(u16, FlexType::UInt, BitWidth::W16, unsigned_bits, u64);
int_scalar!(u32, FlexType::UInt, BitWidth::W32, unsigned_bits, u64);
int_scalar!(u64, FlexType::UInt, BitWidth::W64, unsigned_bits, u64);

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

    fn extend_at_width(out: &mut Vec<u8>, values: &[Self], width: BitWidth) {
        put_low_bytes(out, values, width, |v| (v as u64).to_le_bytes());
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

    fn extend_at_width(out: &mut Vec<u8>, values: &[Self], width: BitWidth) {
        if width == BitWidth::W64 {
            put_each::<8, 8, f32>(out, values, |v| (v as f64).to_le_bytes());
        } else {
            put_each::<4, 4, f32>(out, values, f32::to_le_bytes);
        }
    }

    fn extend_le(out: &mut Vec<u8>, values: &[Self]) {
        put_each::<4, 4, f32>(out, values, f32::to_le_bytes);
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

    fn extend_at_width(out: &mut Vec<u8>, values: &[Self], width: BitWidth) {
        if width == BitWidth::W64 {
            put_each::<8, 8, f64>(out, values, f64::to_le_bytes);
        } else {
            put_each::<4, 4, f64>(out, values, |v| (v as f32).to_le_bytes());
        }
    }

    fn extend_le(out: &mut Vec<u8>, values: &[Self]) {
        put_each::<8, 8, f64>(out, values, f64::to_le_bytes);
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
    use crate::test_support::Rng;

    #[test]
    fn widths_of_scalar_lists() {
        assert_eq!(
            i32::min_width_of(&[1, 2, 70000, 3], BitWidth::W32),
            BitWidth::W32
        );
        assert_eq!(i64::min_width_of(&[1, -129], BitWidth::W64), BitWidth::W16);
        assert_eq!(i64::min_width_of(&[-128, 127], BitWidth::W64), BitWidth::W8);
        assert_eq!(i64::min_width_of(&[], BitWidth::W64), BitWidth::W8);
        assert_eq!(i64::min_width_of(&[i64::MIN], BitWidth::W64), BitWidth::W64);
        assert_eq!(u16::min_width_of(&[255], BitWidth::W16), BitWidth::W8);
        assert_eq!(u64::min_width_of(&[256, 0], BitWidth::W64), BitWidth::W16);
        assert_eq!(
            f64::min_width_of(&[1.5, 0.25], BitWidth::W64),
            BitWidth::W32
        );
        assert_eq!(f64::min_width_of(&[1.5, 0.1], BitWidth::W64), BitWidth::W64);
    }

    /// Values drawn around every width's limits (and anywhere), as `T`.
    fn drawn<T>(rng: &mut Rng, n: usize, from: impl Fn(i128) -> T) -> Vec<T> {
        const EDGES: [i128; 8] = [0, 127, 255, 32_767, 65_535, 2_147_483_647, 1 << 32, 1 << 62];
        (0..n)
            .map(|_| {
                let v = match rng.below(3) {
                    0 => EDGES[rng.below(8)] + rng.below(3) as i128 - 1,
                    1 => (rng.bits() as i64 >> rng.below(64)) as i128,
                    _ => rng.bits() as i128,
                };
                from(if rng.below(2) == 0 { -v } else { v })
            })
            .collect()
    }

    /// Each type's list width is the widest of its values' own widths, and
    /// its bulk write at every width is the bytes of writing each value.
    #[test]
    fn lists_take_the_widest_value_and_write_what_each_value_writes() {
        fn check<T: Scalar + core::fmt::Debug>(values: &[T], own: impl Fn(T) -> BitWidth) {
            if let Some(widest) = values.iter().map(|&v| own(v)).max() {
                assert_eq!(T::min_width_of(values, T::NATURAL), widest, "{values:?}");
            }
            for width in [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64] {
                let mut each = vec![9u8; 3];
                for &v in values {
                    v.write_at_width(&mut each, width);
                }
                let mut bulk = vec![9u8; 3];
                T::extend_at_width(&mut bulk, values, width);
                assert_eq!(bulk, each, "{values:?} at {width:?}");
            }
        }
        let mut rng = Rng::new(0x5ca1_ab1e_0ddb_a110);
        for _ in 0..400 {
            let n = rng.below(40);
            let r = &mut rng;
            check(&drawn(r, n, |v| v as i8), |v| BitWidth::of_i64(v as i64));
            check(&drawn(r, n, |v| v as i16), |v| BitWidth::of_i64(v as i64));
            check(&drawn(r, n, |v| v as i32), |v| BitWidth::of_i64(v as i64));
            check(&drawn(r, n, |v| v as i64), BitWidth::of_i64);
            check(&drawn(r, n, |v| v as u8), |v| BitWidth::of_u64(v as u64));
            check(&drawn(r, n, |v| v as u16), |v| BitWidth::of_u64(v as u64));
            check(&drawn(r, n, |v| v as u32), |v| BitWidth::of_u64(v as u64));
            check(&drawn(r, n, |v| v as u64), BitWidth::of_u64);
            check(&drawn(r, n, |v| v & 1 == 0), |_| BitWidth::W8);
            check(&drawn(r, n, |v| v as f32 / 3.0), |_| BitWidth::W32);
            check(&drawn(r, n, |v| v as f64 / 4.0), BitWidth::of_f64);
        }
    }
}
