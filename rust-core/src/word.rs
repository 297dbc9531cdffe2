//! Eight bytes at a time: little-endian word loads and the zero-byte test
//! that the UTF-8, NUL, key-order and JSON-escape scans share.

/// `0x01` in every byte.
pub(crate) const LO: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte.
pub(crate) const HI: u64 = 0x8080_8080_8080_8080;

/// The 8 bytes at `b[i..i + 8]` as a little-endian word (caller checks bounds).
#[inline(always)]
pub(crate) fn word(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// The high bit of each zero byte of `w` set: exact at the first (lowest)
/// zero byte, possibly also set above it, and zero when `w` has no zero byte.
#[inline(always)]
pub(crate) fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(LO) & !w & HI
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_zero_byte_is_found_exactly() {
        assert_eq!(zero_bytes(u64::MAX), 0);
        assert_eq!(word(b"abcdefgh!", 1), u64::from_le_bytes(*b"bcdefgh!"));
        for i in 0..8 {
            let mut b = [0x7fu8; 8];
            b[i] = 0;
            let z = zero_bytes(u64::from_le_bytes(b));
            assert_eq!(z.trailing_zeros() / 8, i as u32);
            // A 0x01 above a zero byte borrows; the lowest bit stays exact.
            b = [0x01; 8];
            b[i] = 0;
            assert_eq!(
                zero_bytes(u64::from_le_bytes(b)).trailing_zeros() / 8,
                i as u32
            );
        }
    }
}
