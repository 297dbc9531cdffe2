//! Deduplication pools for the builder's key and string sharing.
//!
//! Entries are `(offset, len)` pairs into the builder's own buffer, so a lookup
//! compares bytes in place and never allocates per key.

/// Open-addressed set of byte ranges of one buffer, keyed by content.
#[derive(Default, Clone, Debug)]
pub(crate) struct BytesPool {
    /// `(offset, len, hash)` of every pooled range.
    entries: Vec<(usize, usize, u64)>,
    /// Index + 1 into `entries`; 0 marks an empty slot. Length is a power of two.
    table: Vec<u32>,
}

use crate::word::word;

/// Little-endian load of `N` bytes at `i` (caller checks bounds).
#[inline(always)]
fn load<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    let mut w = [0u8; N];
    w.copy_from_slice(&b[i..i + N]);
    w
}

/// Up to 16 bytes folded into two words with overlapping loads, so a short
/// key (the usual case) costs no loop: equal inputs give equal words, and
/// together with the length the words determine the bytes.
#[inline(always)]
fn short_words(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    if n >= 8 {
        (word(b, 0), word(b, n - 8))
    } else if n >= 4 {
        (
            u32::from_le_bytes(load(b, 0)) as u64,
            u32::from_le_bytes(load(b, n - 4)) as u64,
        )
    } else if n > 0 {
        let v = b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16;
        (v, 0)
    } else {
        (0, 0)
    }
}

/// A fast, non-cryptographic hash over bytes (8 bytes per step).
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = bytes.len() as u64;
    if bytes.len() <= 16 {
        let (a, b) = short_words(bytes);
        h = (h ^ a).wrapping_mul(K);
        h = (h.rotate_left(23) ^ b).wrapping_mul(K);
    } else {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = word(c, 0);
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let w = word(bytes, bytes.len() - 8);
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
    }
    // Final avalanche so the low bits used for the table index depend on every input bit.
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^ (h >> 29)
}

/// Byte equality, without a library call for short ranges.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 16 {
        return short_words(a) == short_words(b);
    }
    a == b
}

impl BytesPool {
    /// Forgets every entry but keeps the allocations.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.table.iter_mut().for_each(|s| *s = 0);
    }

    /// Offset of a pooled range equal to `bytes`, if any.
    #[cfg(test)]
    fn find(&self, buf: &[u8], bytes: &[u8]) -> Option<usize> {
        if self.table.is_empty() {
            return None;
        }
        let hash = hash_bytes(bytes);
        self.find_hashed(buf, bytes, hash).ok()
    }

    /// Either the offset of an equal range, or `Err(hash)` for a following [`insert`](Self::insert).
    fn find_hashed(&self, buf: &[u8], bytes: &[u8], hash: u64) -> Result<usize, u64> {
        if self.table.is_empty() {
            return Err(hash);
        }
        let mask = self.table.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match self.table[i] {
                0 => return Err(hash),
                slot => {
                    let (off, len, h) = self.entries[slot as usize - 1];
                    if h == hash && same_bytes(&buf[off..off + len], bytes) {
                        return Ok(off);
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Looks `bytes` up; when absent, records that it will live at `new_offset`.
    #[inline]
    pub(crate) fn find_or_insert(
        &mut self,
        buf: &[u8],
        bytes: &[u8],
        new_offset: usize,
    ) -> Option<usize> {
        match self.find_hashed(buf, bytes, hash_bytes(bytes)) {
            Ok(off) => Some(off),
            Err(hash) => {
                self.insert(new_offset, bytes.len(), hash);
                None
            }
        }
    }

    fn insert(&mut self, off: usize, len: usize, hash: u64) {
        if (self.entries.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        self.entries.push((off, len, hash));
        let idx = self.entries.len() as u32;
        let mask = self.table.len() - 1;
        let mut i = hash as usize & mask;
        while self.table[i] != 0 {
            i = (i + 1) & mask;
        }
        self.table[i] = idx;
    }

    fn grow(&mut self) {
        let cap = (self.table.len() * 2).max(16);
        self.table.clear();
        self.table.resize(cap, 0);
        let mask = cap - 1;
        for (n, &(_, _, hash)) in self.entries.iter().enumerate() {
            let mut i = hash as usize & mask;
            while self.table[i] != 0 {
                i = (i + 1) & mask;
            }
            self.table[i] = n as u32 + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_equal_ranges_only() {
        let buf = b"abcabcxyz".to_vec();
        let mut pool = BytesPool::default();
        assert_eq!(pool.find_or_insert(&buf, b"abc", 0), None);
        assert_eq!(pool.find_or_insert(&buf, b"abc", 3), Some(0));
        assert_eq!(pool.find_or_insert(&buf, b"xyz", 6), None);
        assert_eq!(pool.find(&buf, b"ab"), None);
        assert_eq!(pool.find(&buf, b"xyz"), Some(6));
    }

    #[test]
    fn short_equality_and_hash_see_every_byte() {
        let base = b"0123456789abcdef".to_vec();
        for n in 0..=16 {
            let a = &base[..n];
            for i in 0..n {
                let mut b = a.to_vec();
                b[i] ^= 0x20;
                assert!(!same_bytes(a, &b), "{n} {i}");
                assert_ne!(hash_bytes(a), hash_bytes(&b), "{n} {i}");
            }
            assert!(same_bytes(a, &base[..n]));
        }
        assert!(!same_bytes(b"ab", b"abc"));
    }

    #[test]
    fn survives_growth() {
        let mut buf = Vec::new();
        let mut pool = BytesPool::default();
        for i in 0..1000u32 {
            let s = format!("k{i}");
            let off = buf.len();
            buf.extend_from_slice(s.as_bytes());
            assert_eq!(pool.find_or_insert(&buf, s.as_bytes(), off), None);
        }
        assert_eq!(pool.find(&buf, b"k999"), Some(buf.len() - 4));
        pool.clear();
        assert_eq!(pool.find(&buf, b"k999"), None);
    }
}
