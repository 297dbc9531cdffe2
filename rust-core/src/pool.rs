//! Deduplication pools for the builder's key and string sharing.
//!
//! Entries are ranges of the builder's own buffer, so a lookup never
//! allocates per key; ranges of up to 16 bytes are compared by two words
//! kept with the entry, longer ones in place.

/// Open-addressed set of byte ranges of one buffer, keyed by content.
#[derive(Default, Clone, Debug)]
pub(crate) struct BytesPool {
    /// Every pooled range, with the words of its probe.
    entries: Vec<Entry>,
    /// Index + 1 into `entries`; 0 marks an empty slot. Length is a power of two.
    table: Vec<u32>,
}

/// A pooled range: where it lives, and the words that identify it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    off: usize,
    len: usize,
    hash: u64,
    words: (u64, u64),
}

use crate::word::{load, word, zero_bytes};

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

/// Bytes looked up in a pool, with what every lookup needs computed once:
/// the hash and, for up to 16 bytes, the two words that identify them, so
/// a short key is compared with pooled ones without reading the buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe<'a> {
    bytes: &'a [u8],
    words: (u64, u64),
    hash: u64,
}

/// Longest range compared by its words alone.
const SHORT: usize = 16;

impl<'a> Probe<'a> {
    /// The probe of `bytes`.
    #[inline(always)]
    pub(crate) fn new(bytes: &'a [u8]) -> Probe<'a> {
        let words = if bytes.len() <= SHORT {
            short_words(bytes)
        } else {
            (0, 0)
        };
        Probe {
            bytes,
            words,
            hash: hash_with(bytes, words),
        }
    }

    /// The bytes looked up.
    #[inline(always)]
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// True when the bytes contain a NUL (which a key cannot hold). Short
    /// ranges are answered from the words already loaded: the bytes of a
    /// word that do not come from the input are set before the zero test.
    #[inline(always)]
    pub(crate) fn has_nul(&self) -> bool {
        let n = self.bytes.len();
        let (a, b) = self.words;
        if n > SHORT {
            return long_has_nul(self.bytes);
        }
        let pad = match n {
            8.. => 0,
            4..=7 => 0xffff_ffff_0000_0000,
            1..=3 => {
                return zero_bytes(a | 0xffff_ffff_ff00_0000) != 0;
            }
            _ => return false,
        };
        zero_bytes(a | pad) | zero_bytes(b | pad) != 0
    }
}

/// True when `bytes` (more than 8 of them) contain a NUL: a word at a time
/// inline up to 256 bytes (keys are short; the library search costs about a
/// hundred instructions a call on them), the library search beyond.
#[inline]
fn long_has_nul(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n > 256 {
        return bytes.contains(&0);
    }
    let mut acc = zero_bytes(word(bytes, n - 8));
    let mut i = 0;
    while i + 8 <= n {
        acc |= zero_bytes(word(bytes, i));
        i += 8;
    }
    acc != 0
}

/// A fast, non-cryptographic hash over bytes (16 bytes per step); `words`
/// are the probe's words when there are at most 16 bytes.
#[inline(always)]
fn hash_with(bytes: &[u8], words: (u64, u64)) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = bytes.len() as u64;
    if bytes.len() <= SHORT {
        // One 64x64-bit product of the two words, its halves folded: every
        // input bit reaches the low bits, which pick the table slot. (Two
        // products folded with two shifts left those bits to the first
        // bytes: 50,000 keys `key0`..`key49999` sat 6 slots from their
        // home slot on average and up to 110, so each lookup probed 7.)
        let (a, b) = words;
        let p = (a ^ K ^ h) as u128 * (b ^ 0x9e37_79b9_7f4a_7c15) as u128;
        return p as u64 ^ (p >> 64) as u64;
    } else {
        // Two lanes of 8 bytes each per step, so the chain of products the
        // table lookup waits on is half as long; a last partial step takes
        // the final 16 bytes (overlapping what came before).
        const K2: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut g: u64 = K2;
        let mut chunks = bytes.chunks_exact(16);
        for c in &mut chunks {
            h = (h.rotate_left(5) ^ word(c, 0)).wrapping_mul(K);
            g = (g.rotate_left(5) ^ word(c, 8)).wrapping_mul(K2);
        }
        if !chunks.remainder().is_empty() {
            let n = bytes.len();
            h = (h.rotate_left(5) ^ word(bytes, n - 16)).wrapping_mul(K);
            g = (g.rotate_left(5) ^ word(bytes, n - 8)).wrapping_mul(K2);
        }
        h ^= g.rotate_left(31);
    }
    // Final avalanche so the low bits used for the table index depend on every input bit.
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^ (h >> 29)
}

/// The hash of `bytes`, as a probe computes it.
#[cfg(test)]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    Probe::new(bytes).hash
}

/// Byte equality, without a library call for short ranges.
#[inline(always)]
#[cfg(test)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= SHORT {
        return short_words(a) == short_words(b);
    }
    a == b
}

impl BytesPool {
    /// Forgets every entry but keeps the allocations.
    ///
    /// A table much larger than its entries (grown by an earlier, larger
    /// buffer) is cleared slot by slot, so a reused builder does not pay for
    /// its largest buffer on every small one: entries are removed newest
    /// first, so each one's probe run is still intact when it is walked.
    pub(crate) fn clear(&mut self) {
        if self.entries.len() * 8 < self.table.len() {
            let mask = self.table.len() - 1;
            for (n, e) in self.entries.iter().enumerate().rev() {
                let idx = n as u32 + 1;
                let mut i = e.hash as usize & mask;
                while self.table[i] != idx {
                    i = (i + 1) & mask;
                }
                self.table[i] = 0;
            }
        } else {
            self.table.iter_mut().for_each(|s| *s = 0);
        }
        self.entries.clear();
    }

    /// Heap bytes held by the table and the entries.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.entries.capacity() * core::mem::size_of::<Entry>() + self.table.capacity() * 4
    }

    /// [`clear`](Self::clear), but drops the allocations when they hold more
    /// than `limit` bytes.
    pub(crate) fn clear_within(&mut self, limit: usize) {
        if self.heap_bytes() > limit {
            *self = BytesPool::default();
        } else {
            self.clear();
        }
    }

    /// Offset of a pooled range equal to `bytes`, if any.
    #[cfg(test)]
    fn find(&self, buf: &[u8], bytes: &[u8]) -> Option<usize> {
        self.find_probe(buf, &Probe::new(bytes))
    }

    /// The offset of a pooled range equal to the probe's bytes.
    #[inline(always)]
    pub(crate) fn find_probe(&self, buf: &[u8], probe: &Probe) -> Option<usize> {
        self.find_probe_or_slot(buf, probe).ok()
    }

    /// Looks `bytes` up; when absent, records that it will live at `new_offset`.
    #[inline]
    pub(crate) fn find_or_insert(
        &mut self,
        buf: &[u8],
        bytes: &[u8],
        new_offset: usize,
    ) -> Option<usize> {
        let probe = Probe::new(bytes);
        let found = self.find_probe(buf, &probe);
        if found.is_none() {
            self.insert_probe(&probe, new_offset);
        }
        found
    }

    /// Records that the probe's bytes, known to be absent, will live at `off`.
    pub(crate) fn insert_probe(&mut self, probe: &Probe, off: usize) {
        self.insert(Entry {
            off,
            len: probe.bytes.len(),
            hash: probe.hash,
            words: probe.words,
        });
    }

    /// [`find_probe`](Self::find_probe), or on a miss the empty table slot
    /// where the search ended (`usize::MAX` before the table exists), for
    /// [`insert_probe_at`](Self::insert_probe_at) to fill without probing
    /// again.
    #[inline(always)]
    pub(crate) fn find_probe_or_slot(&self, buf: &[u8], probe: &Probe) -> Result<usize, usize> {
        if self.table.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.table.len() - 1;
        let mut i = probe.hash as usize & mask;
        let n = probe.bytes.len();
        loop {
            let slot = self.table[i];
            if slot == 0 {
                return Err(i);
            }
            let e = &self.entries[slot as usize - 1];
            // Short ranges: the length and words decide; long ones: the hash, then the bytes.
            let same = if n <= SHORT {
                e.len == n && e.words == probe.words
            } else {
                e.hash == probe.hash && e.len == n && buf.get(e.off..e.off + n) == Some(probe.bytes)
            };
            if same {
                return Ok(e.off);
            }
            i = (i + 1) & mask;
        }
    }

    /// Records `probe`'s bytes at `off` in table slot `free`, which
    /// [`find_probe_or_slot`](Self::find_probe_or_slot) returned for it with
    /// nothing inserted since; probes again when the table must grow first.
    #[inline]
    pub(crate) fn insert_probe_at(&mut self, probe: &Probe, off: usize, free: usize) {
        let entry = Entry {
            off,
            len: probe.bytes.len(),
            hash: probe.hash,
            words: probe.words,
        };
        if (self.entries.len() + 1) * 2 > self.table.len() || self.table.get(free) != Some(&0) {
            return self.insert(entry);
        }
        self.entries.push(entry);
        self.table[free] = self.entries.len() as u32;
    }

    /// Not cold: documents of distinct keys (a record, a wide row) insert
    /// nearly every key they push (marked cold, user_profile encoded 6%
    /// slower and wide_map 10-15%).
    #[inline]
    fn insert(&mut self, entry: Entry) {
        if (self.entries.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        self.entries.push(entry);
        let idx = self.entries.len() as u32;
        let mask = self.table.len() - 1;
        let mut i = entry.hash as usize & mask;
        while self.table[i] != 0 {
            i = (i + 1) & mask;
        }
        self.table[i] = idx;
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.table.len() * 2).max(16);
        self.table.clear();
        self.table.resize(cap, 0);
        let mask = cap - 1;
        for (n, e) in self.entries.iter().enumerate() {
            let mut i = e.hash as usize & mask;
            while self.table[i] != 0 {
                i = (i + 1) & mask;
            }
            self.table[i] = n as u32 + 1;
        }
    }
}

/// Values recorded under byte signatures of their own (not ranges of the
/// builder's buffer): the keys vectors a builder has written, found by their
/// key set, for `BuilderOptions::dedup_key_vectors`.
///
/// Signatures are kept one after another in an arena, each followed by the
/// index of its value, and pooled by content, so neither a lookup nor an
/// insert allocates per signature.
#[derive(Clone, Debug)]
pub(crate) struct SignatureMap<V> {
    arena: Vec<u8>,
    pool: BytesPool,
    values: Vec<V>,
}

impl<V> Default for SignatureMap<V> {
    fn default() -> Self {
        SignatureMap {
            arena: Vec::new(),
            pool: BytesPool::default(),
            values: Vec::new(),
        }
    }
}

impl<V: Copy> SignatureMap<V> {
    /// Forgets every entry, keeping the allocations unless they hold more
    /// than `limit` bytes.
    pub(crate) fn clear_within(&mut self, limit: usize) {
        if self.heap_bytes() > limit {
            *self = SignatureMap::default();
        } else {
            self.arena.clear();
            self.pool.clear();
            self.values.clear();
        }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.arena.capacity()
            + self.values.capacity() * core::mem::size_of::<V>()
            + self.pool.heap_bytes()
    }

    /// The value recorded under `sig`.
    #[inline]
    pub(crate) fn get(&self, sig: &[u8]) -> Option<V> {
        let at = self.pool.find_probe(&self.arena, &Probe::new(sig))?;
        let index = load::<4>(&self.arena, at + sig.len());
        Some(self.values[u32::from_le_bytes(index) as usize])
    }

    /// Records `value` under `sig`, which must not be recorded yet.
    pub(crate) fn insert(&mut self, sig: &[u8], value: V) {
        let at = self.arena.len();
        self.arena.extend_from_slice(sig);
        self.arena
            .extend_from_slice(&(self.values.len() as u32).to_le_bytes());
        self.values.push(value);
        self.pool.insert_probe(&Probe::new(sig), at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Average and longest distance of the entries from their home slot
    /// (the probes a lookup of each takes, less one).
    fn displacement(pool: &BytesPool) -> (f64, usize) {
        let mask = pool.table.len() - 1;
        let (mut sum, mut max) = (0usize, 0usize);
        for (i, &slot) in pool.table.iter().enumerate() {
            if slot == 0 {
                continue;
            }
            let home = pool.entries[slot as usize - 1].hash as usize & mask;
            let d = i.wrapping_sub(home) & mask;
            sum += d;
            max = max.max(d);
        }
        (sum as f64 / pool.entries.len() as f64, max)
    }

    /// Short keys that differ only in their last bytes (ids, numbered
    /// fields) spread over the table as random ones would: the slot comes
    /// from every byte, not the first few. Fails with the earlier short-key
    /// hash, which put 50,000 `key<n>` keys 6.07 slots from home on average
    /// and one 110 away.
    #[test]
    fn short_keys_with_a_shared_prefix_spread_over_the_table() {
        let sets: [(&str, Vec<String>); 4] = [
            ("key<n>", (0..50_000).map(|i| format!("key{i}")).collect()),
            ("<n>", (100_000..150_000).map(|i| i.to_string()).collect()),
            (
                "id-<12 digits>",
                (0..50_000).map(|i| format!("id-{i:012}")).collect(),
            ),
            (
                "field_<n>_x",
                (0..20_000).map(|i| format!("field_{i}_x")).collect(),
            ),
        ];
        for (name, keys) in sets {
            let mut buf = Vec::new();
            let mut pool = BytesPool::default();
            for k in &keys {
                let off = buf.len();
                buf.extend_from_slice(k.as_bytes());
                assert_eq!(pool.find_or_insert(&buf, k.as_bytes(), off), None, "{k}");
            }
            let (avg, max) = displacement(&pool);
            assert!(
                avg < 1.0 && max < 64,
                "{name}: {avg:.2} slots from home on average, {max} at most"
            );
        }
    }

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
    fn clearing_a_sparse_table_empties_every_slot() {
        // Keys "k0".."k4095" one after another in the buffer.
        let mut buf = Vec::new();
        let mut at = Vec::new();
        for n in 0..4096 {
            at.push(buf.len());
            buf.extend_from_slice(format!("k{n}").as_bytes());
        }
        let key = |n: usize| &buf[at[n]..at.get(n + 1).copied().unwrap_or(buf.len())];
        let mut pool = BytesPool::default();
        for (n, &off) in at.iter().enumerate() {
            assert_eq!(pool.find_or_insert(&buf, key(n), off), None);
        }
        pool.clear();
        assert!(pool.table.iter().all(|&s| s == 0));
        // Few entries in the large table: the slot-by-slot path, probe runs included.
        for round in 0..3 {
            for (n, &off) in at.iter().enumerate().skip(round * 100).take(300) {
                assert_eq!(pool.find_or_insert(&buf, key(n), off), None, "{n}");
                assert_eq!(pool.find(&buf, key(n)), Some(off));
            }
            assert!(pool.entries.len() * 8 < pool.table.len());
            pool.clear();
            assert!(pool.table.iter().all(|&s| s == 0), "round {round}");
            assert_eq!(pool.find(&buf, key(round * 100)), None);
        }
    }

    /// Keys inserted into the slot a failed lookup found (through every
    /// growth of the table, short and long) are all found again, at their
    /// own offsets, and a lookup after the insert finds what was inserted.
    #[test]
    fn inserting_at_the_slot_a_miss_found_keeps_every_key() {
        let mut buf = Vec::new();
        let mut at = Vec::new();
        let mut pool = BytesPool::default();
        for i in 0..2000u32 {
            let key = if i % 3 == 0 {
                format!("a long key number {i:08}")
            } else {
                format!("k{i}")
            };
            let off = buf.len();
            let probe = Probe::new(key.as_bytes());
            let free = pool.find_probe_or_slot(&buf, &probe).expect_err("new key");
            buf.extend_from_slice(key.as_bytes());
            pool.insert_probe_at(&probe, off, free);
            assert_eq!(pool.find_probe_or_slot(&buf, &probe), Ok(off), "{key}");
            at.push((key, off));
        }
        for (key, off) in &at {
            assert_eq!(
                pool.find_probe(&buf, &Probe::new(key.as_bytes())),
                Some(*off),
                "{key}"
            );
        }
        assert_eq!(pool.find_probe(&buf, &Probe::new(b"absent")), None);
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

    /// Every byte of a longer range reaches its hash (both lanes and the
    /// overlapping last step), at every length up to a few steps.
    #[test]
    fn long_hash_sees_every_byte() {
        let base: Vec<u8> = (0..80u8).map(|i| b'!' + i).collect();
        for n in 17..=80 {
            let a = &base[..n];
            for i in 0..n {
                let mut b = a.to_vec();
                b[i] ^= 0x20;
                assert_ne!(hash_bytes(a), hash_bytes(&b), "{n} {i}");
            }
            assert_ne!(hash_bytes(a), hash_bytes(&base[..n - 1]), "{n}");
        }
    }

    #[test]
    fn a_nul_is_seen_at_every_position_and_length() {
        for n in (0..=40usize).chain([63, 64, 65, 255, 256, 257, 300]) {
            let clean: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(!Probe::new(&clean).has_nul(), "{n}");
            // High bytes must not read as NUL either.
            assert!(!Probe::new(&vec![0xffu8; n]).has_nul(), "{n}");
            for i in 0..n {
                let mut k = clean.clone();
                k[i] = 0;
                assert!(Probe::new(&k).has_nul(), "{n} {i}");
            }
        }
    }

    #[test]
    fn probes_of_long_ranges_compare_in_place() {
        let long = b"a key that is longer than sixteen bytes".to_vec();
        let mut buf = long.clone();
        buf.extend_from_slice(b"a key that is longer than sixteen byteZ");
        let mut pool = BytesPool::default();
        assert_eq!(pool.find_or_insert(&buf, &long, 0), None);
        assert_eq!(pool.find(&buf, &long), Some(0));
        assert_eq!(pool.find(&buf, &buf[long.len()..]), None);
    }

    #[test]
    fn signature_maps_find_exactly_what_was_recorded() {
        let mut m = SignatureMap::default();
        let sigs: Vec<Vec<u8>> = (0..300u32)
            .map(|i| {
                let n = (i % 40) as usize;
                (0..n).map(|j| (i as usize * 7 + j) as u8).collect()
            })
            .collect();
        for (i, sig) in sigs.iter().enumerate() {
            if m.get(sig).is_none() {
                m.insert(sig, i);
            }
        }
        for sig in &sigs {
            let first = sigs.iter().position(|s| s == sig).unwrap();
            assert_eq!(m.get(sig), Some(first));
        }
        assert_eq!(m.get(b"not recorded at all, longer than sixteen"), None);
        // A prefix or an extension of a recorded signature is another signature.
        assert_eq!(m.get(&sigs[20][..10]), None);
        let mut longer = sigs[20].clone();
        longer.push(0);
        assert_eq!(m.get(&longer), None);
        m.clear_within(usize::MAX);
        assert_eq!(m.get(&sigs[20]), None);
        m.insert(&sigs[20], 7);
        assert_eq!(m.get(&sigs[20]), Some(7));
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
