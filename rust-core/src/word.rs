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

/// Little-endian load of `N` bytes at `i` (caller checks bounds).
#[inline(always)]
pub(crate) fn load<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    let mut w = [0u8; N];
    w.copy_from_slice(&b[i..i + N]);
    w
}

/// The first 8 bytes of the `len`-byte key at `b[at..]`, big-endian, padded
/// with zeros: keys whose words differ are ordered as their words, as
/// `strcmp` orders them (a key that ends first has a zero where the other
/// has a byte, and keys hold no NUL); equal words decide only when both
/// keys are at most 8 bytes long (then they are equal). One word load when
/// 8 bytes are there to read (the key's NUL and what follows it in a
/// buffer); otherwise two overlapping 4-byte loads of the bytes there are
/// (one byte at a time below 4), with no library call: a key given as its
/// own slice (the Python SDK's dict keys) always takes this path.
#[inline(always)]
pub(crate) fn key_word(b: &[u8], at: usize, len: usize) -> u64 {
    let w = if at + 8 <= b.len() {
        let w = word(b, at);
        if len < 8 {
            w & ((1u64 << (8 * len)) - 1)
        } else {
            w
        }
    } else {
        // Only the key's bytes are read: nothing above them to clear.
        let n = len.min(8).min(b.len() - at);
        let head = &b[at..at + n];
        if n >= 4 {
            // The bytes the two loads share are the same bytes.
            let lo = u32::from_le_bytes(load(head, 0)) as u64;
            let hi = u32::from_le_bytes(load(head, n - 4)) as u64;
            lo | hi << (8 * (n - 4))
        } else {
            head.iter()
                .enumerate()
                .fold(0, |w, (i, &c)| w | (c as u64) << (8 * i))
        }
    };
    w.swap_bytes()
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
        copy_upto16(bytes, p);
        if nul {
            *p.add(n) = 0;
        }
        out.set_len(at + n + nul as usize);
    }
}

/// Copies `src` (at most 64 bytes) to `dst` in chunks of 16, 8, 4 or 1
/// bytes that may overlap each other but stay within `src.len()` bytes.
///
/// # Safety
/// `dst..dst + src.len()` must be writable and not overlap `src`.
#[inline(always)]
pub(crate) unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let s = src.as_ptr();
    let chunk = |from: usize| Chunk16::load(s.add(from));
    let put = |at: usize, c: Chunk16| c.store(dst.add(at));
    if n >= 16 {
        // Up to four chunks: the first, the last, and for longer strings
        // the second and the one before the last.
        let (first, last) = (chunk(0), chunk(n - 16));
        if n > 32 {
            let (second, third) = (chunk(16), chunk(n - 32));
            put(16, second);
            put(n - 32, third);
        }
        put(0, first);
        put(n - 16, last);
    } else {
        copy_upto16(src, dst);
    }
}

/// Sixteen bytes held in a vector register where the target has one
/// (SSE2, part of every x86_64): as a `[u8; 16]` the compiler kept the
/// chunks of [`copy_short`] on the stack, a store and a load more per chunk.
#[derive(Clone, Copy)]
struct Chunk16(
    #[cfg(target_arch = "x86_64")] core::arch::x86_64::__m128i,
    #[cfg(not(target_arch = "x86_64"))] [u8; 16],
);

impl Chunk16 {
    /// The 16 bytes at `p`.
    ///
    /// # Safety
    /// `p..p + 16` must be readable.
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Chunk16 {
        #[cfg(target_arch = "x86_64")]
        return Chunk16(core::arch::x86_64::_mm_loadu_si128(p.cast()));
        #[cfg(not(target_arch = "x86_64"))]
        return Chunk16((p as *const [u8; 16]).read_unaligned());
    }

    /// Stores the 16 bytes at `p`.
    ///
    /// # Safety
    /// `p..p + 16` must be writable.
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        #[cfg(target_arch = "x86_64")]
        core::arch::x86_64::_mm_storeu_si128(p.cast(), self.0);
        #[cfg(not(target_arch = "x86_64"))]
        (p as *mut [u8; 16]).write_unaligned(self.0);
    }
}

/// Copies `src` (at most 16 bytes) to `dst` by two overlapping fixed-size
/// loads and stores (8 or 4 bytes each), or byte by byte below 4: no
/// library call, which costs more than the copy at these lengths.
///
/// # Safety
/// `dst..dst + src.len()` must be writable and not overlap `src`.
#[inline(always)]
pub(crate) unsafe fn copy_upto16(src: &[u8], dst: *mut u8) {
    let n = src.len();
    debug_assert!(n <= 16);
    let s = src.as_ptr();
    if n >= 8 {
        let (a, b) = (
            (s as *const u64).read_unaligned(),
            (s.add(n - 8) as *const u64).read_unaligned(),
        );
        (dst as *mut u64).write_unaligned(a);
        (dst.add(n - 8) as *mut u64).write_unaligned(b);
    } else if n >= 4 {
        let (a, b) = (
            (s as *const u32).read_unaligned(),
            (s.add(n - 4) as *const u32).read_unaligned(),
        );
        (dst as *mut u32).write_unaligned(a);
        (dst.add(n - 4) as *mut u32).write_unaligned(b);
    } else {
        for i in 0..n {
            *dst.add(i) = *s.add(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_words_order_keys_as_their_bytes_or_defer() {
        let keys: [&[u8]; 15] = [
            b"",
            b"a",
            b"ab",
            b"abcdefgh",
            b"abcdefghi",
            b"abcdefgz",
            b"b",
            b"\xc3\xa9",
            b"\xff",
            b"abcdefghij",
            b"abcd",
            b"abcde",
            b"abcdef",
            b"abcdefg",
            b"\xc3\xa9z\x01",
        ];
        // Each key NUL-terminated in one buffer; the last ends the buffer,
        // so the short-tail load is used too. Each key is also read as a
        // slice of its own (the tail path at every length), which must give
        // the word read from the buffer.
        let mut buf = Vec::new();
        let mut at = Vec::new();
        for k in keys {
            at.push(buf.len());
            buf.extend_from_slice(k);
            buf.push(0);
        }
        for (i, a) in keys.iter().enumerate() {
            assert_eq!(
                key_word(a, 0, a.len()),
                key_word(&buf, at[i], a.len()),
                "{a:?}"
            );
            for (j, b) in keys.iter().enumerate() {
                let (wa, wb) = (
                    key_word(&buf, at[i], a.len()),
                    key_word(&buf, at[j], b.len()),
                );
                if wa != wb {
                    assert_eq!(wa < wb, a < b, "{a:?} {b:?}");
                } else if a.len() <= 8 && b.len() <= 8 {
                    assert_eq!(a, b);
                }
            }
        }
    }

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

    /// `copy_short` writes each length up to 64 exactly: every source byte
    /// in place, in order, and nothing before or after the range, from
    /// sources and destinations at every offset within a word.
    #[test]
    fn short_copies_write_exactly_their_bytes() {
        let src: Vec<u8> = (0..80u8)
            .map(|i| i.wrapping_mul(37).wrapping_add(11))
            .collect();
        for n in 0..=64 {
            for from in 0..8 {
                for to in 0..8 {
                    let mut dst = [0xeeu8; 96];
                    // SAFETY: `to + n <= 71 < 96` bytes of `dst` are writable.
                    unsafe { copy_short(&src[from..from + n], dst.as_mut_ptr().add(to)) };
                    assert_eq!(&dst[to..to + n], &src[from..from + n], "{n} {from} {to}");
                    assert!(dst[..to].iter().all(|&b| b == 0xee), "{n} {from} {to}");
                    assert!(dst[to + n..].iter().all(|&b| b == 0xee), "{n} {from} {to}");
                }
            }
        }
    }
}
