//! The keys of maps met while deserializing, kept by keys vector.

use crate::reader::MapReader;

/// Keys vectors met recently, each by its position and width, with its keys
/// once the vector is met a second time.
///
/// In the buffers [`to_vec`](crate::to_vec) writes, the maps of one struct
/// type share a keys vector, so a struct read a hundred thousand times would
/// find each key (an offset followed, then a scan for its NUL) a hundred
/// thousand times. Here the keys of a vector met twice are read once into a
/// list, and every later map with that vector takes them from it. A vector
/// met once (every map of a buffer whose keys vectors are not shared) costs
/// one search of the table and no copy.
#[derive(Debug, Default)]
pub(super) struct KeyCache<'de> {
    /// [`SETS`] sets of two entries (empty until the first map). A vector
    /// new to its set goes first, moving the set's first entry second and
    /// dropping its second.
    entries: Vec<Entry<'de>>,
}

/// One keys vector: its identity and, once met twice, its keys in order.
#[derive(Debug)]
struct Entry<'de> {
    id: u64,
    filled: bool,
    keys: Vec<&'de str>,
}

/// Sets of the table (a power of two); each keys vector has one set, by
/// its identity, and each set holds two, so a struct and the struct type
/// nested in it rarely push each other out (a map whose vector was pushed
/// out, or moved within its set, reads its keys the slow way, never wrongly).
const SETS: usize = 8;

/// No vector has this identity (widths are 1 to 8, so the low bits of an
/// identity are never all set).
const NONE: u64 = u64::MAX;

/// Identifies a keys vector: its first element's position and its width
/// (the same position read at another width is another vector).
fn id_of(map: &MapReader<'_>) -> u64 {
    ((map.keys_offset() as u64) << 4) | map.keys_width() as u64
}

/// Where a map's keys are kept: the entry and the vector it must still hold.
#[derive(Clone, Copy, Debug)]
pub(super) struct Kept {
    slot: usize,
    id: u64,
}

impl<'de> KeyCache<'de> {
    /// Finds `map`'s keys vector: its entry when its keys are kept (read now
    /// when this is the vector's second time), `None` the first time (the
    /// vector is recorded) or when a key cannot be read (the map's own
    /// `key` then reports it).
    pub(super) fn find(&mut self, map: &MapReader<'de>) -> Option<Kept> {
        if map.is_empty() {
            return None;
        }
        if self.entries.is_empty() {
            self.entries.resize_with(2 * SETS, || Entry {
                id: NONE,
                filled: false,
                keys: Vec::new(),
            });
        }
        let id = id_of(map);
        let set =
            2 * (id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SETS.trailing_zeros())) as usize;
        let slot = if self.entries[set].id == id {
            set
        } else if self.entries[set + 1].id == id {
            set + 1
        } else {
            // New here: first in its set, the set's other vector dropped
            // (its list's allocation kept for this one).
            self.entries.swap(set, set + 1);
            let entry = &mut self.entries[set];
            entry.id = id;
            entry.filled = false;
            entry.keys.clear();
            return None;
        };
        let entry = &mut self.entries[slot];
        if !entry.filled {
            for i in 0..map.len() {
                match map.key(i) {
                    Ok(k) => entry.keys.push(k),
                    Err(_) => {
                        entry.keys.clear();
                        return None;
                    }
                }
            }
            entry.filled = true;
        }
        Some(Kept { slot, id })
    }

    /// Key `i` of the vector `kept` names, when its entry still holds it.
    #[inline]
    pub(super) fn get(&self, kept: Kept, i: usize) -> Option<&'de str> {
        let entry = self.entries.get(kept.slot)?;
        if entry.id != kept.id {
            return None;
        }
        entry.keys.get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Builder, Reader};

    #[test]
    fn a_keys_vector_read_at_another_width_is_another_vector() {
        use crate::types::{pack_type, BitWidth, FlexType};
        // Map B has 256 keys, so its keys vector's 2-byte size is the bytes
        // 00 01; map A (built by hand) names the same position with 1-byte
        // keys: a size of 1 (that 01) and one key, wherever the first byte
        // there points back into B's keys. Both verify, and a cache keyed
        // by the position alone would hand B the key list kept for A.
        let mut b = Builder::new();
        b.start_map();
        for i in 0..256 {
            b.key(&format!("k{i:03}"));
            b.int(i);
        }
        b.end_map().unwrap();
        let mut bytes = b.finish_vec().unwrap();
        let (p, width) = {
            let m = Reader::new(&bytes).unwrap().as_map().unwrap();
            (m.keys_offset(), m.keys_width())
        };
        assert_eq!((width, &bytes[p - 2..p]), (2, &[0u8, 1][..]));
        let root_width = bytes[bytes.len() - 1] as usize;
        let b_type = bytes[bytes.len() - 2];
        let end = bytes.len() - 2 - root_width;
        let mut off = [0u8; 8];
        off[..root_width].copy_from_slice(&bytes[end..end + root_width]);
        let b_at = end - u64::from_le_bytes(off) as usize;
        bytes.truncate(end);
        let u16 =
            |bytes: &mut Vec<u8>, v: usize| bytes.extend_from_slice(&(v as u16).to_le_bytes());
        if bytes.len() % 2 == 1 {
            bytes.push(0);
        }
        // A, 2 bytes wide: keys offset, keys byte width 1, size 1, one int.
        let at = bytes.len();
        u16(&mut bytes, at - p);
        u16(&mut bytes, 1);
        u16(&mut bytes, 1);
        let a_at = bytes.len();
        u16(&mut bytes, 7);
        bytes.push(pack_type(FlexType::Int, BitWidth::W8));
        bytes.push(0);
        // The root: a vector [B, A], 2 bytes wide.
        u16(&mut bytes, 2);
        let root = bytes.len();
        u16(&mut bytes, root - b_at);
        u16(&mut bytes, root + 2 - a_at);
        bytes.push(pack_type(
            FlexType::Map,
            BitWidth::from_bytes(1 << (b_type & 3)).unwrap(),
        ));
        bytes.push(pack_type(FlexType::Map, BitWidth::W16));
        bytes.push((bytes.len() - root) as u8);
        bytes.push(pack_type(FlexType::Vector, BitWidth::W16));
        bytes.push(1);
        crate::verify(&bytes).expect("both maps verify");
        let list = Reader::new(&bytes).unwrap().as_vector().unwrap();
        let (map_b, map_a) = (
            list.get(0).unwrap().as_map().unwrap(),
            list.get(1).unwrap().as_map().unwrap(),
        );
        assert_eq!(
            (map_a.keys_offset(), map_a.keys_width(), map_a.len()),
            (p, 1, 1)
        );
        assert_ne!(map_a.key(0).unwrap(), map_b.key(0).unwrap());
        let mut cache = KeyCache::default();
        cache.find(&map_a);
        let a = cache.find(&map_a).expect("kept the second time");
        assert_eq!(cache.get(a, 0), Some(map_a.key(0).unwrap()));
        for _ in 0..2 {
            if let Some(kept) = cache.find(&map_b) {
                assert_eq!(cache.get(kept, 0), Some("k000"));
            }
        }
    }

    #[test]
    fn kept_keys_are_the_maps_own_or_none_after_other_vectors_pass() {
        // Forty maps of three keys each, every key set its own; each map
        // twice in the list, so its vector is met twice and its keys kept.
        let mut b = Builder::new();
        b.start_vector();
        for round in 0..2 {
            for m in 0..40 {
                b.start_map();
                for k in 0..3 {
                    b.key(&format!("m{m}k{k}"));
                    b.int(round);
                }
                b.end_map().unwrap();
            }
        }
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        let list = Reader::new(&bytes).unwrap().as_vector().unwrap();
        let map = |i: usize| list.get(i).unwrap().as_map().unwrap();
        // Each map's own keys vector (every map wrote its own).
        let mut cache = KeyCache::default();
        let (mut hits, mut gone) = (0, 0);
        for first in 0..40 {
            // Met (once more), then again: kept.
            cache.find(&map(first));
            let kept = cache.find(&map(first)).expect("kept the second time");
            for (k, want) in (0..3).map(|k| (k, format!("m{first}k{k}"))) {
                assert_eq!(cache.get(kept, k).unwrap(), want);
            }
            // Some other vectors (none to all 39) met twice in between.
            for other in (0..40).filter(|&o| o != first).take(first) {
                cache.find(&map(other));
                cache.find(&map(other));
            }
            // What the entry still says is this map's key, or nothing.
            for k in 0..3 {
                match cache.get(kept, k) {
                    Some(key) => {
                        assert_eq!(key, map(first).key(k).unwrap());
                        hits += 1;
                    }
                    None => gone += 1,
                }
            }
        }
        assert!(gone > 0 && hits > 0, "{gone} {hits}");
    }
}
