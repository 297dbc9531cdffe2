//! Decimal numbers of up to 19 significant digits as `f64`, correctly
//! rounded, with integer arithmetic only.
//!
//! JSON parsing gathers a number's significant digits as an exact `u64`
//! while it scans them. Clinger's fast path turns that into an `f64` when
//! both the digits (at most 2^53) and the power of ten (at most 10^22) are
//! exact doubles. Doubles printed with their full 16 or 17 digits (GeoJSON
//! coordinates, computed values) are past 2^53; for those the standard
//! library's parser would read the whole text again. Here `m * 10^e` is
//! worked out exactly in 128-bit integers for `|e| <= 19` and rounded once
//! (to nearest, ties to even), as the standard library rounds.

/// 10^0 to 10^19, every power of ten below 2^64.
pub(crate) const POW10_U64: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// 10^0 to 10^22, the powers of ten that are exact as `f64` (for Clinger's
/// fast path when reading, and the quick decimal tries when writing).
pub(crate) const POW10_F64: [f64; 23] = {
    let mut p = [1.0; 23];
    let mut i = 1;
    while i < 23 {
        p[i] = p[i - 1] * 10.0;
        i += 1;
    }
    p
};

/// Reads the ASCII digits of `s` from `i` on and returns where they end,
/// appending them to `m` while `n`, the count appended so far, stays at
/// most 19 (so `m < 10^19`); past that, `n` is set to 20 and the remaining
/// digits are only skipped. While eight more digits would fit, the next
/// eight bytes are read as one word: the run of digits at its start (one
/// to eight of them) is found, checked and converted at once.
#[inline(always)]
pub(crate) fn gather(s: &[u8], mut i: usize, m: &mut u64, n: &mut u32) -> usize {
    const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);
    while *n <= 11 {
        let Some(chunk) = s.get(i..i + 8) else { break };
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) ^ ZEROS;
        // Each byte is now its digit (0..=9) exactly when it was one. A byte
        // above 9 sets its top bit in `x + 0x76` or had it set already, and
        // no carry leaves a byte below it that is a digit: the lowest flagged
        // byte is the first that is not a digit.
        let flags = (x | x.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
        let k = flags.trailing_zeros() / 8;
        if k == 0 {
            return i;
        }
        // The `k` digits moved to the top of the word, zeros below them.
        *m = *m * POW10_U64[k as usize] + eight_digits(x << (64 - 8 * k));
        *n += k;
        i += k as usize;
        if k < 8 {
            return i;
        }
    }
    while let Some(&d @ b'0'..=b'9') = s.get(i) {
        if *n < 19 {
            *m = *m * 10 + (d - b'0') as u64;
            *n += 1;
        } else {
            *n = 20;
        }
        i += 1;
    }
    i
}

/// The value of eight decimal digits, one per byte of `x` (the first, most
/// significant, in the lowest byte): pairs, then fours, then all eight are
/// combined in place.
#[inline(always)]
fn eight_digits(x: u64) -> u64 {
    let x = (x.wrapping_mul(10) + (x >> 8)) & 0x00ff_00ff_00ff_00ff;
    let x = (x.wrapping_mul(100) + (x >> 16)) & 0x0000_ffff_0000_ffff;
    (x.wrapping_mul(10_000) + (x >> 32)) & 0xffff_ffff
}

/// `m * 10^e` correctly rounded to the nearest `f64` (ties to even), for
/// `m` not zero and `-19 <= e <= 19`; `None` outside that range.
///
/// With `e >= 0` the product is exact in a `u128` (`m < 2^64`, `10^e <
/// 2^64`). With `e < 0`, `m` is shifted left so that its quotient by `10^-e`
/// has 63 or 64 bits (a `u64`, which a 128-by-64-bit division gives in one
/// step): the quotient's bits and whether a remainder is left decide the
/// rounding exactly. Every result is a normal double (between 10^-19 and 2^128).
#[inline]
pub(crate) fn exact_decimal(m: u64, e: i32) -> Option<f64> {
    if m == 0 || !(-19..=19).contains(&e) {
        return None;
    }
    if e >= 0 {
        let v = m as u128 * POW10_U64[e as usize] as u128;
        return Some(round(v, false, 0));
    }
    let d = POW10_U64[(-e) as usize];
    let (m_bits, d_bits) = (64 - m.leading_zeros(), 64 - d.leading_zeros());
    // n = m * 2^s has 63 + d_bits bits: below d * 2^64 (so the quotient fits
    // a u64) and at least d * 2^62 (so it has 63 or more bits).
    let s = 63 + d_bits - m_bits;
    let n = (m as u128) << s;
    let q = (n / d as u128) as u64;
    let sticky = n != q as u128 * d as u128;
    Some(round(q as u128, sticky, -(s as i32)))
}

/// `(v + f) * 2^exp2` rounded to the nearest `f64`, ties to even, where `v`
/// is not zero and `0 <= f < 1` is a fraction that is not zero exactly when
/// `sticky`. The result must be a normal double (the caller's range makes
/// it so).
#[inline(always)]
fn round(v: u128, sticky: bool, exp2: i32) -> f64 {
    let bits = 128 - v.leading_zeros() as i32;
    // `mant` holds the top 53 bits of `v`; `shift` bits were dropped.
    let (mut mant, mut shift) = if bits <= 53 {
        ((v as u64) << (53 - bits), bits - 53)
    } else {
        let shift = bits - 53;
        let mant = (v >> shift) as u64;
        let dropped = v & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let up = dropped > half || (dropped == half && (sticky || mant & 1 == 1));
        (mant + up as u64, shift)
    };
    if mant == 1 << 53 {
        mant >>= 1;
        shift += 1;
    }
    // value = mant * 2^(exp2 + shift), mant in [2^52, 2^53).
    let biased = (exp2 + shift + 52 + 1023) as u64;
    debug_assert!((1..2047).contains(&biased));
    f64::from_bits(biased << 52 | (mant & ((1 << 52) - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard library's reading of `m` followed by `e` zeros or with
    /// the point moved `-e` places.
    fn std_reading(m: u64, e: i32) -> f64 {
        format!("{m}e{e}").parse().unwrap()
    }

    fn check(m: u64, e: i32) {
        let got = exact_decimal(m, e).unwrap();
        let want = std_reading(m, e);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{m}e{e}: {got:?} != {want:?}"
        );
    }

    #[test]
    fn power_tables_hold_the_exact_powers_of_ten() {
        for (k, &p) in POW10_U64.iter().enumerate() {
            assert_eq!(p.to_string(), format!("1{}", "0".repeat(k)));
        }
        for (k, &p) in POW10_F64.iter().enumerate() {
            assert_eq!(p.to_bits(), std_reading(1, k as i32).to_bits(), "1e{k}");
            assert_eq!(p as u128, 10u128.pow(k as u32), "1e{k} is not exact");
        }
    }

    #[test]
    fn random_digits_round_as_the_standard_library_rounds() {
        let mut rng = crate::test_support::Rng::new(0x9e37_79b9_7f4a_7c15u64);
        let mut next = || rng.bits();
        for _ in 0..400_000 {
            // Up to 19 digits: below 10^19, every length alike.
            let digits = 1 + next() % 19;
            let m = next() % POW10_U64[digits as usize];
            let e = (next() % 39) as i32 - 19;
            if m != 0 {
                check(m, e);
            }
        }
    }

    #[test]
    fn ties_go_to_even_and_anything_above_a_tie_goes_up() {
        let mut rng = crate::test_support::Rng::new(0x2545_f491_4f6c_dd1du64);
        let mut next = || rng.bits();
        // 2^53 + 1, + 3: exactly between two doubles (ties); read as
        // integers with a point, so through the division.
        for (m, e) in [
            (90_071_992_547_409_930, -1),
            (90_071_992_547_409_950, -1),
            (9_007_199_254_740_993, 0),
            (9_007_199_254_740_995, 0),
            (18_014_398_509_481_985, 0),
        ] {
            check(m, e);
        }
        for _ in 0..200_000 {
            // An odd multiple of the half-unit of a 53-bit significand,
            // scaled by 2^k (whole) or 2^-j (j decimals, as (2n+1) * 5^j / 10^j).
            let n = (next() >> 11) | 1 << 52;
            let tie = 2 * n + 1;
            let k = next() % 11;
            if let Some(v) = tie.checked_shl(k as u32).filter(|v| v >> k == tie) {
                if v < POW10_U64[19] {
                    check(v, 0);
                    // Just above and below the tie.
                    check(v + 1, 0);
                    check(v - 1, 0);
                }
            }
            let small = (next() >> 24) | 1;
            let j = 1 + next() % 12;
            if let Some(v) = small.checked_mul(5u64.pow(j as u32)) {
                if v < POW10_U64[19] {
                    check(v, -(j as i32));
                    check(v + 1, -(j as i32));
                    check(v - 1, -(j as i32));
                }
            }
        }
    }

    #[test]
    fn the_ends_of_the_range() {
        for m in [1, 9, 10, u64::MAX / 10, 9_999_999_999_999_999_999, u64::MAX] {
            for e in [-19, -18, -1, 0, 1, 18, 19] {
                if m <= 9_999_999_999_999_999_999 {
                    check(m, e);
                }
            }
        }
        assert_eq!(exact_decimal(0, 0), None);
        assert_eq!(exact_decimal(1, 20), None);
        assert_eq!(exact_decimal(1, -20), None);
    }

    #[test]
    fn gathered_digits_are_the_texts_value_up_to_nineteen() {
        let mut rng = crate::test_support::Rng::new(0x1234_5678_9abc_def1u64);
        let mut next = || rng.bits();
        for _ in 0..100_000 {
            let len = 1 + (next() % 26) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
            // Something after the digits, sometimes a near-digit byte.
            let end = [b',', b'.', b'e', b'/', b':', 0x80 | b'0', b' '][(next() % 7) as usize];
            text.push(end);
            let skip = (next() % 3) as usize;
            let mut padded = vec![b'x'; skip];
            padded.extend_from_slice(&text);
            let n0 = (next() % 4) as u32;
            let (mut m, mut n) = (next() % 10u64.pow(n0), n0);
            let m0 = m;
            let at = gather(&padded, skip, &mut m, &mut n);
            assert_eq!(at, skip + len, "{:?}", String::from_utf8_lossy(&text));
            let kept = len.min(19 - n0 as usize);
            let want: u64 = core::str::from_utf8(&text[..kept])
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(m, m0 * 10u64.pow(kept as u32) + want);
            assert_eq!(n, if len > kept { 20 } else { n0 + len as u32 });
        }
        // No digit at all, and a non-digit inside the first eight.
        let (mut m, mut n) = (0, 0);
        assert_eq!(gather(b"abc", 0, &mut m, &mut n), 0);
        assert_eq!(gather(b"1234/6789", 0, &mut m, &mut n), 4);
        assert_eq!((m, n), (1234, 4));
    }
}
