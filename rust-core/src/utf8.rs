//! UTF-8 validation and NUL scanning shared by the verifier, the checked
//! reader and the JSON parser.
//!
//! Short ASCII runs (the usual key or field value) are checked a word at a
//! time without a function call; anything longer or non-ASCII goes to the
//! SIMD validator of the `simdutf8` crate when the default `simd-utf8`
//! feature is on, and to `core::str::from_utf8` otherwise. Both accept
//! exactly the same inputs (well-formed UTF-8, RFC 3629).

use crate::word::{word, zero_bytes, HI};

/// True when `bytes` is well-formed UTF-8.
#[inline]
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    short_ascii(bytes) == Some(true) || validate(bytes)
}

/// Whether `bytes` is all ASCII, for up to 64 bytes (word tests, no call);
/// `None` for longer input, which the SIMD validator checks faster whole.
#[inline(always)]
fn short_ascii(bytes: &[u8]) -> Option<bool> {
    if bytes.len() <= 16 {
        Some(is_ascii_short(bytes))
    } else if bytes.len() <= 64 {
        Some(is_ascii_upto64(bytes))
    } else {
        None
    }
}

/// `bytes` as `&str` when it is well-formed UTF-8 (the validator the
/// verifier uses: SIMD with the default `simd-utf8` feature).
///
/// ```
/// assert_eq!(flexbuf::utf8::as_str("héllo".as_bytes()), Some("héllo"));
/// assert_eq!(flexbuf::utf8::as_str(&[0xff]), None);
/// ```
#[inline]
pub fn as_str(bytes: &[u8]) -> Option<&str> {
    if is_utf8(bytes) {
        // SAFETY: just validated.
        Some(unsafe { core::str::from_utf8_unchecked(bytes) })
    } else {
        None
    }
}

/// `bytes` as `&str` when it is well-formed UTF-8, with whether it is all
/// ASCII: what [`as_str`] decides, plus the flag a caller would otherwise
/// find by scanning the bytes again (to build a one-byte string, say).
///
/// ```
/// assert_eq!(flexbuf::utf8::as_str_ascii(b"plain"), Some(("plain", true)));
/// assert_eq!(flexbuf::utf8::as_str_ascii("héllo".as_bytes()), Some(("héllo", false)));
/// assert_eq!(flexbuf::utf8::as_str_ascii(&[b'a', 0xff]), None);
/// ```
#[inline]
pub fn as_str_ascii(bytes: &[u8]) -> Option<(&str, bool)> {
    let ascii = short_ascii(bytes).unwrap_or_else(|| bytes.is_ascii());
    if ascii || validate(bytes) {
        // SAFETY: ASCII, or just validated.
        Some((unsafe { core::str::from_utf8_unchecked(bytes) }, ascii))
    } else {
        None
    }
}

/// ASCII check of at most 16 bytes with two overlapping word loads.
#[inline(always)]
fn is_ascii_short(b: &[u8]) -> bool {
    let n = b.len();
    if n >= 8 {
        (word(b, 0) | word(b, n - 8)) & HI == 0
    } else {
        let mut acc = 0u8;
        for &c in b {
            acc |= c;
        }
        acc < 0x80
    }
}

/// The high bit of each of 16 bytes.
const HI_16: u128 = (HI as u128) << 64 | HI as u128;

/// ASCII check of 16 to 64 bytes with two or four 16-byte loads that may
/// overlap (the first and last 32 bytes cover the rest): no loop.
#[inline(always)]
fn is_ascii_upto64(b: &[u8]) -> bool {
    let n = b.len();
    debug_assert!((16..=64).contains(&n));
    let chunk = |i: usize| {
        let mut c = [0u8; 16];
        c.copy_from_slice(&b[i..i + 16]);
        u128::from_le_bytes(c)
    };
    let mut acc = chunk(0) | chunk(n - 16);
    if n > 32 {
        acc |= chunk(16) | chunk(n - 32);
    }
    acc & HI_16 == 0
}

/// The SIMD validator's block: shorter inputs are checked as one block.
#[cfg(feature = "simd-utf8")]
const BLOCK: usize = 64;

/// True when `bytes` is well-formed UTF-8, without the ASCII shortcut (for
/// callers that know it is not all ASCII).
#[cfg(feature = "simd-utf8")]
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> bool {
    if bytes.len() < BLOCK {
        // `simdutf8` hands inputs shorter than its block to the scalar
        // validator of `core`, which is several times slower on the short
        // non-ASCII strings most text holds. Padded with NUL to one block,
        // they take the SIMD path: NUL is a whole character and never a
        // continuation byte, so the padded bytes are valid exactly when
        // the string is (a sequence cut short at the end stays invalid).
        let mut block = [0u8; BLOCK];
        block[..bytes.len()].copy_from_slice(bytes);
        return simdutf8::basic::from_utf8(&block).is_ok();
    }
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// True when `bytes` is well-formed UTF-8, without the ASCII shortcut.
#[cfg(not(feature = "simd-utf8"))]
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> bool {
    core::str::from_utf8(bytes).is_ok()
}

/// What [`scan_key`] found at the start of a key.
pub(crate) struct KeyScan {
    /// Bytes before the NUL.
    pub len: usize,
    /// True when every one of them is ASCII.
    pub ascii: bool,
}

/// Finds the NUL that ends the key starting at `bytes[0]`, a word at a time,
/// noting whether the bytes before it are all ASCII. `None` when there is no NUL.
#[inline]
pub(crate) fn scan_key(bytes: &[u8]) -> Option<KeyScan> {
    let mut i = 0;
    let mut high = 0u64;
    while i + 8 <= bytes.len() {
        let w = word(bytes, i);
        let zero = zero_bytes(w);
        if zero != 0 {
            let n = (zero.trailing_zeros() / 8) as usize;
            // Only the bytes before the NUL count for the ASCII flag.
            let below = if n == 0 { 0 } else { u64::MAX >> (64 - 8 * n) };
            high |= w & below & HI;
            return Some(KeyScan {
                len: i + n,
                ascii: high == 0,
            });
        }
        high |= w & HI;
        i += 8;
    }
    while i < bytes.len() {
        let c = bytes[i];
        if c == 0 {
            return Some(KeyScan {
                len: i,
                ascii: high == 0,
            });
        }
        high |= (c & 0x80) as u64;
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_std_on_every_short_input_shape() {
        let samples: [&[u8]; 11] = [
            b"",
            b"a",
            b"plain ascii text",
            b"seventeen bytes!!",
            "é".as_bytes(),
            "日本語テキスト".as_bytes(),
            &[0xff],
            &[b'a'; 15],
            "a somewhat longer ASCII line of text, over sixteen bytes".as_bytes(),
            "a somewhat longer line of text that ends in ü".as_bytes(),
            &[0xe6, 0x97],
        ];
        for s in samples {
            for end in 0..=s.len() {
                let part = &s[..end];
                assert_eq!(
                    is_utf8(part),
                    core::str::from_utf8(part).is_ok(),
                    "{part:?}"
                );
            }
        }
    }

    /// The word and 16-byte checks see a high bit at every position of
    /// every length they take (their loads overlap; none may leave a gap).
    #[test]
    fn short_ascii_finds_a_high_byte_anywhere() {
        for len in 0..=64 {
            let plain = vec![b'~'; len];
            assert_eq!(short_ascii(&plain), Some(true), "{len}");
            for at in 0..len {
                let mut high = plain.clone();
                high[at] = 0x80;
                assert_eq!(short_ascii(&high), Some(false), "{len} {at}");
            }
        }
        assert_eq!(short_ascii(&[b'a'; 65]), None);
    }

    /// Every length around the SIMD block, valid text cut at every byte
    /// and with bytes flipped: the padded short path agrees with `core`.
    #[test]
    fn agrees_with_std_around_the_simd_block() {
        let text = "añb日c😀d€ef".repeat(12);
        let bytes = text.as_bytes();
        let mut rng = crate::test_support::Rng::new(0x9e37_79b9_7f4a_7c15);
        for end in 0..=bytes.len().min(140) {
            let part = &bytes[..end];
            assert_eq!(is_utf8(part), core::str::from_utf8(part).is_ok(), "{end}");
            for _ in 0..8 {
                if end == 0 {
                    break;
                }
                let mut bad = part.to_vec();
                bad[rng.below(end)] = (rng.bits() >> 32) as u8;
                assert_eq!(is_utf8(&bad), core::str::from_utf8(&bad).is_ok(), "{bad:?}");
            }
        }
    }

    #[test]
    fn scan_key_finds_the_first_nul_and_ascii_flag() {
        for len in 0..40 {
            let mut k = vec![b'k'; len];
            k.push(0);
            k.extend_from_slice(&[0x80; 9]);
            let s = scan_key(&k).unwrap();
            assert_eq!((s.len, s.ascii), (len, true), "len {len}");
            if len > 0 {
                k[len - 1] = 0xc3;
                let s = scan_key(&k).unwrap();
                assert_eq!((s.len, s.ascii), (len, false), "len {len}");
            }
        }
        assert!(scan_key(b"no terminator here").is_none());
        assert!(scan_key(b"").is_none());
    }
}
