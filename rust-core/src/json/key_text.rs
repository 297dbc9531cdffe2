//! The JSON text of map keys already written, found again by position.
//!
//! Keys are pooled in a buffer (the builder writes each distinct key once),
//! so a document of records repeats the same few key positions thousands of
//! times. The first time a position is met, its key is checked and written
//! as usual, and the position noted; the second time, its text is kept here
//! as `"key":` (`"key": ` when pretty); later maps copy those bytes without
//! scanning the key for its NUL or escapes again. Keys met once (a document
//! of distinct keys) cost only the note.

/// Slots of the table (a power of two), in sets of two: a key may sit in
/// either slot of its set, so two keys that hash alike (records often hold
/// a dozen) do not keep evicting each other.
const SLOTS: usize = 128;
/// Bytes of text reserved per cached key: texts shorter than this are
/// copied as one fixed-size block.
const BLOCK: usize = 32;
/// Text kept before the table starts over (so memory stays bounded).
const MAX_TEXT: usize = 64 << 10;
/// `text_len` of a slot whose key was met once and has no text yet.
const SEEN: u32 = u32::MAX;

/// A cached key.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeyText {
    /// Where the key's text starts in [`KeyTexts::text`].
    start: u32,
    /// Length of the text (quotes, colon and escapes included), or [`SEEN`].
    text_len: u32,
    /// Length of the key in the buffer, NUL excluded.
    pub(super) len: u32,
}

const EMPTY: KeyText = KeyText {
    start: 0,
    text_len: 0,
    len: 0,
};

/// What [`KeyTexts::get`] found for a position.
pub(super) enum Lookup {
    /// Never met (or evicted): note it in the slot given.
    New(usize),
    /// Met once; its text is not kept: keep it in the slot given.
    Seen(usize),
    /// Met before, with its text.
    Cached(KeyText),
}

/// Two-way set-associative table from key position to the key's JSON text.
pub(super) struct KeyTexts {
    /// `(position + 1, entry)`; position 0 marks an empty slot. Allocated
    /// when the first key is looked up.
    slots: Vec<(usize, KeyText)>,
    /// Texts, each in its own `BLOCK`-byte block (zero-padded) when shorter.
    text: Vec<u8>,
}

impl KeyTexts {
    pub(super) fn new() -> KeyTexts {
        KeyTexts {
            slots: Vec::new(),
            text: Vec::new(),
        }
    }

    /// What the table knows of the key at position `at`, and where it goes.
    #[inline(always)]
    pub(super) fn get(&mut self, at: usize) -> Lookup {
        if self.slots.is_empty() {
            self.slots = vec![(0, EMPTY); SLOTS];
        }
        let i = ((at as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 57) as usize & (SLOTS - 2);
        let (a, b) = (self.slots[i], self.slots[i + 1]);
        let hit = if a.0 == at + 1 {
            (i, a.1)
        } else if b.0 == at + 1 {
            (i + 1, b.1)
        } else {
            // A free slot, else the one of a key met once (the cheaper loss).
            let free = a.0 == 0 || a.1.text_len == SEEN;
            return Lookup::New(if free { i } else { i + 1 });
        };
        if hit.1.text_len == SEEN {
            Lookup::Seen(hit.0)
        } else {
            Lookup::Cached(hit.1)
        }
    }

    /// Notes in `slot` that the key at `at` was met (its text is not kept yet).
    #[inline(always)]
    pub(super) fn note(&mut self, slot: usize, at: usize) {
        self.slots[slot] = (
            at + 1,
            KeyText {
                text_len: SEEN,
                ..EMPTY
            },
        );
    }

    /// Keeps in `slot` the text of `key` (checked already), found at
    /// position `at`, written by `escape` (which appends the quoted key).
    pub(super) fn insert(
        &mut self,
        slot: usize,
        at: usize,
        key: &[u8],
        pretty: bool,
        escape: impl FnOnce(&mut Vec<u8>, &[u8]),
    ) -> KeyText {
        if self.text.len() > MAX_TEXT {
            // Start over, so memory stays bounded; the slot is empty then.
            self.text.clear();
            self.slots.iter_mut().for_each(|s| *s = (0, EMPTY));
        }
        let start = self.text.len();
        escape(&mut self.text, key);
        self.text.push(b':');
        if pretty {
            self.text.push(b' ');
        }
        let text_len = self.text.len() - start;
        if text_len < BLOCK {
            self.text.resize(start + BLOCK, 0);
        }
        let e = KeyText {
            start: start as u32,
            text_len: text_len as u32,
            len: key.len() as u32,
        };
        self.slots[slot] = (at + 1, e);
        e
    }

    /// Appends the text of `e` to `out`.
    #[inline(always)]
    pub(super) fn write(&self, e: KeyText, out: &mut Vec<u8>) {
        let (start, n) = (e.start as usize, e.text_len as usize);
        if n < BLOCK {
            // One fixed-size copy of the whole block; the length then
            // covers only the text.
            out.reserve(BLOCK);
            let at = out.len();
            let block: &[u8; BLOCK] = self.text[start..start + BLOCK]
                .try_into()
                .expect("a short text has a whole block");
            // SAFETY: `BLOCK` bytes were reserved past `at` and are all
            // written; the length then grows by `n < BLOCK` of them.
            unsafe {
                (out.as_mut_ptr().add(at) as *mut [u8; BLOCK]).write_unaligned(*block);
                out.set_len(at + n);
            }
        } else {
            out.extend_from_slice(&self.text[start..start + n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_round_trip_short_and_long_and_are_found_by_position() {
        let mut t = KeyTexts::new();
        let quote = |out: &mut Vec<u8>, k: &[u8]| {
            out.push(b'"');
            out.extend_from_slice(k);
            out.push(b'"');
        };
        let slot = |l: Lookup| match l {
            Lookup::New(s) | Lookup::Seen(s) => s,
            Lookup::Cached(_) => panic!("cached"),
        };
        let s7 = slot(t.get(7));
        t.note(s7, 7);
        assert!(matches!(t.get(7), Lookup::Seen(s) if s == s7));
        let long = vec![b'k'; 100];
        let short = t.insert(s7, 7, b"id", false, quote);
        let s9 = slot(t.get(9));
        let big = t.insert(s9, 9, &long, true, quote);
        assert!(matches!(t.get(8), Lookup::New(_)));
        let cached = |l| match l {
            Lookup::Cached(e) => e,
            _ => panic!("not cached"),
        };
        let mut out = b"{".to_vec();
        let (e7, e9) = (cached(t.get(7)), cached(t.get(9)));
        t.write(e7, &mut out);
        t.write(e9, &mut out);
        let mut expected = b"{\"id\":\"".to_vec();
        expected.extend_from_slice(&long);
        expected.extend_from_slice(b"\": ");
        assert_eq!(out, expected);
        assert_eq!((short.len, big.len), (2, 100));
    }

    #[test]
    fn many_keys_in_one_set_keep_the_table_consistent() {
        let mut t = KeyTexts::new();
        let quote = |out: &mut Vec<u8>, k: &[u8]| out.extend_from_slice(k);
        // Positions all over: whatever is found for a position is its own text.
        for round in 0..3 {
            for at in 0..500usize {
                let key = format!("k{at}");
                match t.get(at) {
                    Lookup::New(s) => t.note(s, at),
                    Lookup::Seen(s) => {
                        t.insert(s, at, key.as_bytes(), false, quote);
                    }
                    Lookup::Cached(e) => {
                        let mut out = Vec::new();
                        t.write(e, &mut out);
                        assert_eq!(out, format!("{key}:").as_bytes(), "round {round}");
                    }
                }
            }
        }
    }
}
