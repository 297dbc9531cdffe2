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

/// Appends `bytes`, then a NUL when `nul`: up to 16 bytes with two
/// overlapping fixed-size stores into reserved space (no library call, which
/// costs more than the copy on the short keys and strings records hold),
/// longer ones with one copy.
#[inline(always)]
pub(crate) fn append_short(out: &mut Vec<u8>, bytes: &[u8], nul: bool) {
    let n = bytes.len();
    if n > 16 {
        out.extend_from_slice(bytes);
        if nul {
            out.push(0);
        }
        return;
    }
    out.reserve(17);
    let at = out.len();
    // SAFETY: 17 bytes are reserved past `at`. Every store below lands in
    // `at..at + n` (two overlapping stores cover all `n` bytes, one byte at
    // a time below 4), and the NUL at `at + n <= at + 16`; the length then
    // covers exactly the bytes written.
    unsafe {
        let p = out.as_mut_ptr().add(at);
        if n >= 8 {
            (p as *mut u64).write_unaligned(word(bytes, 0).to_le());
            (p.add(n - 8) as *mut u64).write_unaligned(word(bytes, n - 8).to_le());
        } else if n >= 4 {
            let head = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let tail = u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]);
            (p as *mut u32).write_unaligned(head.to_le());
            (p.add(n - 4) as *mut u32).write_unaligned(tail.to_le());
        } else {
            for (i, &b) in bytes.iter().enumerate() {
                *p.add(i) = b;
            }
        }
        if nul {
            *p.add(n) = 0;
        }
        out.set_len(at + n + nul as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_appends_copy_every_length_exactly() {
        let src: Vec<u8> = (1..=40).collect();
        for n in 0..=40 {
            for nul in [false, true] {
                let mut out = b"xyz".to_vec();
                append_short(&mut out, &src[..n], nul);
                let mut expected = b"xyz".to_vec();
                expected.extend_from_slice(&src[..n]);
                if nul {
                    expected.push(0);
                }
                assert_eq!(out, expected, "{n} {nul}");
            }
        }
    }

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
