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
    /// The table's generation when this entry was written: entries of an
    /// earlier generation (an earlier document) are empty slots.
    generation: u32,
}

const EMPTY: KeyText = KeyText {
    start: 0,
    text_len: 0,
    len: 0,
    generation: 0,
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
///
/// Its storage outlives one document: dropping the table leaves the slots
/// and the text's capacity to the next table made on the same thread, which
/// starts a new generation instead of clearing or allocating them.
pub(super) struct KeyTexts {
    /// `(position + 1, entry)`; an entry of another generation is empty.
    /// Allocated when the first key is looked up.
    slots: Vec<(usize, KeyText)>,
    /// Texts, each in its own `BLOCK`-byte block (zero-padded) when shorter.
    text: Vec<u8>,
    /// This document's generation (never 0, the generation of [`EMPTY`]).
    generation: u32,
}

/// What a dropped [`KeyTexts`] leaves to the next one (a type without a
/// `Drop` of its own, so replacing the spare never runs `KeyTexts::drop` again).
struct Storage {
    slots: Vec<(usize, KeyText)>,
    text: Vec<u8>,
    generation: u32,
}

std::thread_local! {
    /// The storage of the last table dropped on this thread.
    static SPARE: core::cell::Cell<Option<Storage>> = const { core::cell::Cell::new(None) };
}

impl KeyTexts {
    pub(super) fn new() -> KeyTexts {
        // A table of this thread still alive (a nested conversion) keeps its
        // storage; this one then starts from nothing.
        match SPARE.try_with(core::cell::Cell::take).ok().flatten() {
            Some(Storage {
                slots,
                text,
                generation,
            }) => {
                let mut t = KeyTexts {
                    slots,
                    text,
                    generation,
                };
                t.next_generation();
                t
            }
            None => KeyTexts {
                slots: Vec::new(),
                text: Vec::new(),
                generation: 1,
            },
        }
    }

    /// Forgets every entry: a new generation, and no text.
    fn next_generation(&mut self) {
        self.text.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Entries of the generation about to be reused may remain: clear them.
            self.slots.iter_mut().for_each(|s| *s = (0, EMPTY));
            self.generation = 1;
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
        let g = self.generation;
        let hit = if a.0 == at + 1 && a.1.generation == g {
            (i, a.1)
        } else if b.0 == at + 1 && b.1.generation == g {
            (i + 1, b.1)
        } else {
            // A free slot, else the one of a key met once (the cheaper loss).
            let free = a.1.generation != g || a.1.text_len == SEEN;
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
                generation: self.generation,
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
            self.next_generation();
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
            generation: self.generation,
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

impl Drop for KeyTexts {
    fn drop(&mut self) {
        if self.slots.is_empty() {
            return;
        }
        let spare = Storage {
            slots: core::mem::take(&mut self.slots),
            text: core::mem::take(&mut self.text),
            generation: self.generation,
        };
        // Fails only while the thread's locals are being torn down.
        let _ = SPARE.try_with(|c| c.set(Some(spare)));
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

    #[test]
    fn a_new_table_knows_nothing_of_the_one_dropped_before_it() {
        let quote = |out: &mut Vec<u8>, k: &[u8]| out.extend_from_slice(k);
        let fill = |t: &mut KeyTexts| {
            for at in [3usize, 40, 41] {
                for _ in 0..2 {
                    match t.get(at) {
                        Lookup::New(s) => t.note(s, at),
                        Lookup::Seen(s) => {
                            t.insert(s, at, b"k", false, quote);
                        }
                        Lookup::Cached(_) => {}
                    }
                }
                assert!(matches!(t.get(at), Lookup::Cached(_)));
            }
        };
        let mut t = KeyTexts::new();
        fill(&mut t);
        drop(t);
        // The storage is reused: same slots, a later generation.
        let mut t = KeyTexts::new();
        assert!(!t.slots.is_empty(), "the dropped table's slots are reused");
        for at in [3usize, 40, 41] {
            assert!(matches!(t.get(at), Lookup::New(_)), "position {at}");
        }
        // When the generation wraps, the entries of old generations go.
        fill(&mut t);
        t.generation = u32::MAX;
        for s in t.slots.iter_mut().filter(|s| s.0 != 0) {
            s.1.generation = 1;
        }
        t.next_generation();
        assert_eq!(t.generation, 1);
        for at in [3usize, 40, 41] {
            assert!(matches!(t.get(at), Lookup::New(_)), "position {at}");
        }
    }
}
