//! The verifier's bookkeeping of shared offsets.
//!
//! A tree-shaped buffer (everything a builder writes without explicit reuse)
//! reaches each container and string once; only keys are shared. So the
//! common case must cost one bit per node: [`Bits`] records positions seen
//! (one bit per buffer byte, so `len / 8` bytes, zeroed lazily by the
//! allocator). Only a node reached a second time goes into the [`Memo`], a
//! hash table keyed by (position, packed type), and it stays as small as the
//! sharing actually present.

/// One bit per buffer position.
pub(super) struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// Bits for positions `0..len`.
    pub(super) fn new(len: usize) -> Bits {
        Bits {
            words: vec![0; len / 64 + 1],
        }
    }

    /// Sets the bit of `at`; returns whether it was already set.
    #[inline(always)]
    pub(super) fn test_and_set(&mut self, at: usize) -> bool {
        let word = &mut self.words[at >> 6];
        let mask = 1u64 << (at & 63);
        let was = *word & mask != 0;
        *word |= mask;
        was
    }

    /// Whether the bit of `at` is set.
    #[inline(always)]
    pub(super) fn test(&self, at: usize) -> bool {
        self.words[at >> 6] & (1u64 << (at & 63)) != 0
    }

    /// Sets the bit of `at`.
    #[inline(always)]
    pub(super) fn set(&mut self, at: usize) {
        self.words[at >> 6] |= 1u64 << (at & 63);
    }
}

/// Results of nodes verified on their second visit: an open-addressed table
/// from (position, packed type) to a value (a container's height).
pub(super) struct Memo {
    /// `(key + 1, value)`; a key of 0 marks an empty slot. Length is a power of two.
    slots: Vec<(u64, u64)>,
    used: usize,
}

impl Memo {
    pub(super) fn new() -> Memo {
        Memo {
            slots: Vec::new(),
            used: 0,
        }
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
        self.slots = vec![(0, 0); (old.len() * 2).max(64)];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_memo_remember_what_was_set() {
        let mut b = Bits::new(130);
        assert!(!b.test_and_set(129));
        assert!(b.test_and_set(129));
        assert!(!b.test(0));
        b.set(0);
        assert!(b.test(0));
        let mut m = Memo::new();
        assert_eq!(m.get(5, 0x28), None);
        for i in 0..1000 {
            m.insert(i, 0x28, i as u64 * 3);
        }
        m.insert(7, 0x28, 1);
        assert_eq!(m.get(7, 0x28), Some(1));
        assert_eq!(m.get(999, 0x28), Some(2997));
        assert_eq!(m.get(999, 0x29), None);
    }
}
