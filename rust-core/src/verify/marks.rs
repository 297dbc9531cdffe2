//! The verifier's bookkeeping of shared offsets.
//!
//! A tree-shaped buffer (everything a builder writes without explicit reuse)
//! reaches each container and string once; only keys are shared. So the
//! common case must cost one bit per node: [`Bits`] records positions
//! reached (one bit per buffer byte, beside one bit per byte for checked
//! keys: `len / 4` bytes in all). Only a node reached a second time goes
//! into the [`Memo`], a hash table keyed by (position, packed type), and it
//! stays as small as the sharing actually present.

/// Two bits per buffer position: "reached" (containers, long strings and
/// keys vectors) and "a checked key".
///
/// Both live in one allocation, the two words of one 64-position block
/// side by side. One block of `len / 4` bytes, freed whole, is what the
/// allocator keeps for the next verification of a buffer that size (glibc
/// keeps freed blocks up to 32 MiB in its heap once one has been freed),
/// where two blocks of half the size were handed back to the system and
/// came back one page fault per 4 KiB: on a 39 MB buffer that was about a
/// fifth of the verification, and the time per byte grew with the size.
pub(super) struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// Bits for positions `0..len`.
    #[cfg(test)]
    pub(super) fn new(len: usize) -> Bits {
        Bits::reusing(Vec::new(), len)
    }

    /// Bits for positions `0..len` in `words`' memory (its contents are
    /// overwritten).
    pub(super) fn reusing(mut words: Vec<u64>, len: usize) -> Bits {
        words.clear();
        words.resize(2 * (len / 64 + 1), 0);
        Bits { words }
    }

    /// The memory, for [`Scratch::keep`].
    pub(super) fn into_words(self) -> Vec<u64> {
        self.words
    }

    /// Marks `at` reached; returns whether it was already.
    #[inline(always)]
    pub(super) fn reach(&mut self, at: usize) -> bool {
        let word = &mut self.words[2 * (at >> 6)];
        let mask = 1u64 << (at & 63);
        let was = *word & mask != 0;
        *word |= mask;
        was
    }

    /// Whether a checked key starts at `at`.
    #[inline(always)]
    pub(super) fn is_key(&self, at: usize) -> bool {
        self.words[2 * (at >> 6) + 1] & (1u64 << (at & 63)) != 0
    }

    /// Records that a checked key starts at `at`.
    #[inline(always)]
    pub(super) fn set_key(&mut self, at: usize) {
        self.words[2 * (at >> 6) + 1] |= 1u64 << (at & 63);
    }
}

/// Slots of a [`Memo`] when it first holds anything: 256 bytes, which
/// glibc serves from its per-thread cache. A first table of 1 KiB (64 slots)
/// was a "large" request, and glibc merges all its freed small blocks before
/// serving one (`malloc_consolidate`): in the serde tier's `from_slice` of
/// a small struct, whose shared keys vectors put a few entries here, that
/// merge was about 2.4% of the call.
const MEMO_MIN: usize = 16;

/// Results of nodes verified on their second visit: an open-addressed table
/// from (position, packed type) to a value (a container's height).
pub(super) struct Memo {
    /// `(key + 1, value)`; a key of 0 marks an empty slot. Length is a power of two.
    slots: Vec<(u64, u64)>,
    used: usize,
}

impl Memo {
    #[cfg(test)]
    pub(super) fn new() -> Memo {
        Memo::reusing(Vec::new())
    }

    /// An empty memo in `slots`' memory, which must be empty or all empty
    /// slots (as [`into_slots`](Self::into_slots) leaves it).
    pub(super) fn reusing(slots: Vec<(u64, u64)>) -> Memo {
        debug_assert!(slots.iter().all(|&(k, _)| k == 0));
        Memo { slots, used: 0 }
    }

    /// The memory, every slot emptied, for [`Scratch::keep`] (none when it
    /// is more than a thread keeps: not emptied only to be freed).
    pub(super) fn into_slots(mut self) -> Vec<(u64, u64)> {
        if self.slots.capacity() * 16 > KEEP_MAX {
            return Vec::new();
        }
        if self.used > 0 {
            self.slots.iter_mut().for_each(|s| *s = (0, 0));
        }
        self.slots
    }

    #[inline]
    fn key(at: usize, packed: u8) -> u64 {
        ((at as u64) << 8 | packed as u64) + 1
    }

    #[inline]
    fn home(key: u64, mask: usize) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask
    }

    /// The value recorded for (`at`, `packed`), if any.
    pub(super) fn get(&self, at: usize, packed: u8) -> Option<u64> {
        if self.slots.is_empty() {
            return None;
        }
        let key = Self::key(at, packed);
        let mask = self.slots.len() - 1;
        let mut i = Self::home(key, mask);
        loop {
            match self.slots[i] {
                (0, _) => return None,
                (k, v) if k == key => return Some(v),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Records `value` for (`at`, `packed`), replacing an earlier one.
    pub(super) fn insert(&mut self, at: usize, packed: u8, value: u64) {
        if (self.used + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let key = Self::key(at, packed);
        let mask = self.slots.len() - 1;
        let mut i = Self::home(key, mask);
        loop {
            match self.slots[i].0 {
                0 => {
                    self.slots[i] = (key, value);
                    self.used += 1;
                    return;
                }
                k if k == key => {
                    self.slots[i].1 = value;
                    return;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let old = core::mem::take(&mut self.slots);
        self.slots = vec![(0, 0); (old.len() * 2).max(MEMO_MIN)];
        let mask = self.slots.len() - 1;
        for (k, v) in old.into_iter().filter(|&(k, _)| k != 0) {
            let mut i = Self::home(k, mask);
            while self.slots[i].0 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = (k, v);
        }
    }
}

/// The memory of one verification, kept per thread for the next: a
/// verification of a small buffer spent a third of its instructions
/// allocating and freeing it (`verify` of `{"a": 1}`: about 550 of 1,515).
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) words: Vec<u64>,
    pub(super) memo: Vec<(u64, u64)>,
    pub(super) open: Vec<(usize, u8)>,
    pub(super) key_sets: [Vec<usize>; super::KEY_SETS],
}

/// Most bytes of memory a thread keeps for its next verification: what a
/// buffer of about 256 KiB uses. A larger one allocates and frees its own,
/// as every verification did before (glibc keeps such blocks for reuse);
/// its allocation is a small part of its verification anyway.
const KEEP_MAX: usize = 64 * 1024;

std::thread_local! {
    /// Boxed, so that taking and keeping it moves a pointer.
    static SCRATCH: core::cell::Cell<Option<Box<Scratch>>> = const { core::cell::Cell::new(None) };
}

impl Scratch {
    /// This thread's kept memory, or new (empty) memory when none is kept
    /// (the first verification, one nested in another, or one that runs
    /// while the thread's storage is being torn down).
    pub(super) fn take() -> Box<Scratch> {
        SCRATCH
            .try_with(|c| c.take())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Keeps `scratch` for this thread's next verification, unless it holds
    /// more than [`KEEP_MAX`] bytes.
    pub(super) fn keep(scratch: Box<Scratch>) {
        let bytes = scratch.words.capacity() * 8
            + scratch.memo.capacity() * 16
            + scratch.open.capacity() * 16
            + scratch
                .key_sets
                .iter()
                .map(|k| k.capacity() * 8)
                .sum::<usize>();
        if bytes <= KEEP_MAX {
            let _ = SCRATCH.try_with(|c| c.set(Some(scratch)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_memo_remember_what_was_set() {
        let mut b = Bits::new(130);
        assert!(!b.reach(129));
        assert!(b.reach(129));
        assert!(!b.is_key(129));
        assert!(!b.is_key(0));
        b.set_key(0);
        assert!(b.is_key(0));
        assert!(!b.reach(0));
        // The two bits of a position are apart, at the edges of blocks too.
        for at in [63, 64, 65, 127, 128] {
            assert!(!b.is_key(at));
            b.set_key(at);
            assert!(b.is_key(at) && !b.reach(at) && b.reach(at));
            assert!(!b.is_key(at + 1));
        }
        let mut m = Memo::new();
        assert_eq!(m.get(5, 0x28), None);
        for i in 0..1000 {
            m.insert(i, 0x28, i as u64 * 3);
        }
        m.insert(7, 0x28, 1);
        assert_eq!(m.get(7, 0x28), Some(1));
        assert_eq!(m.get(999, 0x29), None);
        // Every entry survives the table's growth from MEMO_MIN slots.
        for i in (0..1000).filter(|&i| i != 7) {
            assert_eq!(m.get(i, 0x28), Some(i as u64 * 3), "entry {i}");
        }
        assert!(m.slots.len() >= 2000 && m.slots.len().is_power_of_two());
    }
}
