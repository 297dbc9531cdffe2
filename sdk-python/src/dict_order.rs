//! Sorted entry orders of the dict shapes `dumps` has seen, per thread.
//!
//! FlexBuffers maps are sorted by key; Python dicts keep insertion order, so
//! most dicts arrive unsorted and each would be sorted again. Dicts of one
//! shape (the same key objects in the same order: records made by one piece of
//! code, or parsed from one document, whose parser shares key objects) sort
//! the same way, so the order is kept per shape and given to the builder as a
//! guess ([`flexbuf::Builder::end_map_in_order`]), which checks it in one pass.
//! A stale guess (a key object freed and its address reused by another) costs
//! that pass and a sort, never a wrong map; so does a shape taken for another
//! whose key addresses hash alike, which is why shapes are told apart by
//! their hash and key count alone.

use std::cell::RefCell;

use flexbuf::Builder;

use crate::key_memo::KeyMemo;

/// Shapes remembered, in sets of [`WAYS`] chosen by a hash of their key
/// addresses (a document's few dozen shapes rarely fill a set; when one is
/// full, the shape met least recently makes room).
const SLOTS: usize = 256;
/// Shapes per set.
const WAYS: usize = 4;
/// Dicts with more keys (dictionaries rather than records) are not remembered,
/// so the cache holds at most `SLOTS * MAX_KEYS` indices.
const MAX_KEYS: usize = 128;

/// The remembered orders, and the key addresses of the dicts being encoded.
#[derive(Default)]
pub struct DictOrders {
    slots: Vec<Shape>,
    /// Key addresses of every dict open in the current encode, innermost last.
    open_keys: Vec<usize>,
    /// The keys written in the current encode, by key object: turned on
    /// when a shape repeats within the encode (its key objects then recur).
    pub keys: KeyMemo,
    /// Encodes started on this set, the current one's number.
    encodes: u64,
    /// Shapes this encode added (see [`FRESH_MAX`]).
    fresh: usize,
}

/// New shapes one encode may add; dicts of other new shapes are sorted as
/// they come. Past a few hundred, new shapes are one-offs (a dict keyed by
/// ids in each record), and each would only evict a shape that recurs.
const FRESH_MAX: usize = 256;

/// One shape: the hash of its key addresses in insertion order and their
/// count, and the order that sorts them. The addresses themselves are not
/// kept: comparing them read a heap block per dict (a third of `end_map`'s
/// samples on records), and a wrong guess is caught by the builder.
#[derive(Default)]
struct Shape {
    /// [`shape_hash`] of the key addresses.
    hash: u64,
    /// How many keys.
    len: usize,
    order: Vec<u32>,
    /// The encode ([`DictOrders::encodes`]) that last ended a dict of this shape.
    last_encode: u64,
}

/// A hash of a dict's key addresses in their order. Each address is mixed
/// with its position and multiplied on its own, and the products are
/// summed: the multiplications do not wait on each other (a chain of
/// multiply-and-rotate steps, one per key, was most of `end_map`'s time on
/// small dicts). `dumps`' orders trust an equal hash and key count (the
/// builder checks every guessed order); `loads`' models of key sets
/// (`dict_models`), found by the same hash, check the addresses.
#[inline]
pub(crate) fn shape_hash(keys: impl ExactSizeIterator<Item = usize>) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    const P: u64 = 0xc2b2_ae3d_27d4_eb4f;
    let mut h = (keys.len() as u64).wrapping_mul(P);
    for (i, a) in keys.enumerate() {
        h = h.wrapping_add((a as u64 ^ (i as u64).wrapping_mul(P)).wrapping_mul(K));
    }
    h ^ (h >> 29)
}

thread_local! {
    static ORDERS: RefCell<DictOrders> = RefCell::new(DictOrders::default());
}

/// Runs `f` (one encode, with the GIL held) with this thread's orders (a
/// fresh, empty set when they are in use already, as when an encode
/// re-enters itself through a callback). The key memo starts and ends empty.
pub fn with_orders<R>(f: impl FnOnce(&mut DictOrders) -> R) -> R {
    let run = |orders: &mut DictOrders| {
        orders.open_keys.clear();
        orders.keys.release();
        orders.encodes += 1;
        orders.fresh = 0;
        let r = f(orders);
        orders.keys.release();
        r
    };
    ORDERS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut orders) => run(&mut orders),
        Err(_) => run(&mut DictOrders::default()),
    })
}

impl DictOrders {
    /// Where the keys of a dict about to be encoded start.
    #[inline]
    pub fn mark(&self) -> usize {
        self.open_keys.len()
    }

    /// Records the next key of the innermost open dict (by its object's address).
    #[inline]
    pub fn key(&mut self, addr: usize) {
        self.open_keys.push(addr);
    }

    /// Ends the builder's innermost map, whose keys were recorded since `mark`.
    pub fn end_map(&mut self, b: &mut Builder, mark: usize) -> flexbuf::Result<()> {
        let keys = &self.open_keys[mark.min(self.open_keys.len())..];
        let n = keys.len();
        if !(2..=MAX_KEYS).contains(&n) {
            self.open_keys.truncate(mark);
            return b.end_map();
        }
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, Shape::default);
        }
        let h = shape_hash(keys.iter().copied());
        let set = &mut self.slots[(h >> 32) as usize % (SLOTS / WAYS) * WAYS..][..WAYS];
        let shape = match set.iter().position(|s| s.hash == h && s.len == n) {
            Some(i) => {
                let shape = &mut set[i];
                if shape.last_encode == self.encodes {
                    self.keys.activate();
                }
                shape
            }
            None if self.fresh >= FRESH_MAX => {
                self.open_keys.truncate(mark);
                return b.end_map();
            }
            None => {
                self.fresh += 1;
                // The way met least recently (the first of equals).
                let mut i = 0;
                for j in 1..WAYS {
                    if set[j].last_encode < set[i].last_encode {
                        i = j;
                    }
                }
                let shape = &mut set[i];
                shape.hash = h;
                shape.len = n;
                shape.order.clear();
                shape
            }
        };
        shape.last_encode = self.encodes;
        let r = b.end_map_in_order(&mut shape.order);
        self.open_keys.truncate(mark);
        r
    }
}
