//! Map keys of up to 16 bytes already found to be UTF-8 in one decode,
//! remembered by their content.
//!
//! A typed `{string: T}` map reads each of its keys as text, and the same
//! few keys come back map after map (the reactions of a chat, the tags of
//! records). A key that is not ASCII costs a SIMD validation each time it is
//! read. [`KeyMemo`] keeps the keys of up to 16 bytes that passed, as the
//! two little-endian words of their bytes padded with zeros, so the next
//! read of the same bytes is one comparison. Keys hold no NUL, so the padded
//! words name one key exactly (its length is where the zeros start); bytes
//! equal to bytes that passed are valid, whichever buffer they are in.

use crate::word::word;

/// Remembered keys: a small table indexed by a hash of the words.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyMemo {
    slots: [(u64, u64); SLOTS],
}

/// Slots of the table (a power of two).
const SLOTS: usize = 16;

impl KeyMemo {
    /// True when `key` (the key's bytes, without its NUL; not all ASCII) is
    /// well-formed UTF-8. `tail` is the buffer from the key's first byte on
    /// (the key, its NUL and what follows): when it holds 16 bytes and the
    /// key is at most 16 long, the answer comes from the table or is
    /// remembered there; otherwise the key is validated.
    #[inline]
    pub(crate) fn valid(&mut self, key: &[u8], tail: &[u8]) -> bool {
        let n = key.len();
        if n > 16 || tail.len() < 16 {
            return validate(key);
        }
        let keep = |bytes: usize| match bytes {
            0 => 0,
            b if b >= 8 => u64::MAX,
            b => (1u64 << (8 * b)) - 1,
        };
        let words = (
            word(tail, 0) & keep(n),
            word(tail, 8) & keep(n.saturating_sub(8)),
        );
        let at = (words.0 ^ words.1.rotate_left(31)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60;
        let slot = &mut self.slots[at as usize % SLOTS];
        if *slot == words && n > 0 {
            return true;
        }
        let ok = validate(key);
        if ok {
            *slot = words;
        }
        ok
    }
}

/// The validator, out of line: the table answers most reads.
#[inline(never)]
fn validate(key: &[u8]) -> bool {
    crate::utf8::validate(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `key` followed by its NUL and filler, as it sits in a buffer.
    fn tail_of(key: &[u8], filler: u8) -> Vec<u8> {
        let mut t = key.to_vec();
        t.push(0);
        t.resize(key.len() + 1 + 24, filler);
        t
    }

    #[test]
    fn answers_what_validation_answers_on_every_length_and_repeat() {
        let mut rng = crate::test_support::Rng::new(0x6b65_795f_6d65_6d6f);
        let mut memo = KeyMemo::default();
        let pieces: [&[u8]; 8] = [
            "é".as_bytes(),
            "👍".as_bytes(),
            "ß".as_bytes(),
            b"a",
            b"\xff",
            b"\xe2\x82",
            b"\x80",
            "日".as_bytes(),
        ];
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for _ in 0..400 {
            let mut k = Vec::new();
            while k.len() < 1 + rng.below(20) {
                k.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
            keys.push(k);
        }
        // Each key read several times, among the others, with different
        // bytes after its NUL.
        for round in 0..6u8 {
            for k in &keys {
                if k.is_ascii() {
                    continue;
                }
                let tail = tail_of(k, round.wrapping_mul(37) | 1);
                let want = core::str::from_utf8(k).is_ok();
                assert_eq!(memo.valid(k, &tail), want, "{k:?}");
            }
        }
    }

    #[test]
    fn a_remembered_key_does_not_vouch_for_its_invalid_neighbours() {
        let mut memo = KeyMemo::default();
        let good = "ключ".as_bytes();
        assert!(memo.valid(good, &tail_of(good, b'x')));
        // The same bytes cut short, or with one byte changed, are other keys.
        let cut = &good[..good.len() - 1];
        assert!(!memo.valid(cut, &tail_of(cut, b'x')));
        let mut bad = good.to_vec();
        bad[1] = 0xff;
        assert!(!memo.valid(&bad, &tail_of(&bad, b'x')));
        // A key too close to the buffer's end to load as words is validated.
        assert!(memo.valid(good, &tail_of(good, b'x')[..good.len() + 1]));
        assert!(!memo.valid(&bad, &bad));
    }
}
