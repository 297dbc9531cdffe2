//! Keys already written in the current encode, by the `str` object that
//! named them.
//!
//! The dicts of one document mostly share their key objects: parsers cache
//! keys (`json.loads` within a document, orjson across documents), literal
//! keys are interned, and records made by one piece of code use the same
//! names. A key object met again is pushed from its handle (one table probe)
//! instead of through the builder's key pool, which hashes and compares the
//! key's bytes.
//!
//! Each remembered object is held (a strong reference) until the encode
//! ends, so its address cannot be freed and reused by another string while
//! the table names it: an address found here is the same immutable object,
//! and so the same key bytes.

use flexbuf::{Builder, ShareFlags, ValueHandle};
use pyo3::ffi;

/// Table slots, direct-mapped by object address (a key that collides with
/// another of the same encode replaces it; both stay correct).
const SLOTS: usize = 512;
/// Most key objects held in one encode; later new keys go through the key
/// pool alone.
const MAX_HELD: usize = 4096;

/// One remembered key: valid only in the encode numbered `epoch`.
#[derive(Clone, Copy, Default)]
struct Entry {
    addr: usize,
    epoch: u64,
    handle: Option<ValueHandle>,
}

/// The key objects of the current encode and the handles of their keys.
///
/// Off at the start of each encode: a document of distinct keys (one wide
/// record) would pay for remembering each and find none again. The caller
/// turns it on ([`activate`](Self::activate)) once a dict shape repeats in
/// the encode.
#[derive(Default)]
pub struct KeyMemo {
    /// Whether keys are looked up and remembered in this encode.
    pub active: bool,
    slots: Vec<Entry>,
    /// Every object remembered in this encode, each holding one reference
    /// taken by [`remember`](Self::remember).
    held: Vec<*mut ffi::PyObject>,
    /// The number of the current encode; entries of earlier ones are empty.
    epoch: u64,
    /// Whether [`dict_met`](Self::dict_met) was called in this encode.
    dict_met: bool,
    /// Keys of typed dicts found here and not found, in this encode.
    dict_hits: u32,
    dict_misses: u32,
    /// Set once the typed dicts' keys were found too rarely to pay for
    /// remembering them: the memo stays off for the rest of the encode.
    dict_gave_up: bool,
}

/// Keys of typed dicts remembered before [`KeyMemo::dict_miss`] judges
/// whether the memo pays.
const DICT_TRIAL: u32 = 32;

impl KeyMemo {
    /// The handle of the key written for the object at `addr` in this encode.
    ///
    /// Borrowed, not copied out: the caller pushes it straight from the
    /// table. A copy held in a local went through the stack in two
    /// overlapping stores that the push then read back as one, which the
    /// processor cannot forward (about a tenth of `dumps` on
    /// citm_catalog.json, whose 10,000 small dicts repeat two keys).
    #[inline]
    pub fn get(&self, addr: usize) -> Option<&ValueHandle> {
        let e = self.slots.get(slot_of(addr))?;
        if e.addr == addr && e.epoch == self.epoch {
            e.handle.as_ref()
        } else {
            None
        }
    }

    /// Remembers the key `b` just pushed ([`Builder::last_key`]) as the key
    /// of `key`, a `str` object, taking a reference to it. Nothing is
    /// remembered once the builder has failed or enough keys are held, nor
    /// when the builder does not pool keys (each `key` call then writes the
    /// key again, and so must this encode).
    #[inline]
    pub fn remember(&mut self, key: *mut ffi::PyObject, b: &Builder) {
        if self.held.len() >= MAX_HELD || !b.options().share.contains(ShareFlags::KEYS) {
            return;
        }
        let Some(handle) = b.last_key() else {
            return;
        };
        if self.slots.is_empty() {
            self.slots.resize(SLOTS, Entry::default());
        }
        self.slots[slot_of(key as usize)] = Entry {
            addr: key as usize,
            epoch: self.epoch,
            handle: Some(handle),
        };
        // SAFETY: `key` is a live object (the caller holds it); the
        // reference taken here is dropped by `release`.
        unsafe { ffi::Py_INCREF(key) };
        self.held.push(key);
    }

    /// Turns the memo on for the rest of this encode.
    #[inline]
    pub fn activate(&mut self) {
        self.active = true;
    }

    /// Records that a dict's keys are about to be written, and turns the
    /// memo on from the second such dict of the encode: a lone dict would
    /// pay for remembering its keys and find none again.
    #[inline]
    pub fn dict_met(&mut self) {
        if self.dict_met && !self.dict_gave_up {
            self.active = true;
        }
        self.dict_met = true;
    }

    /// Counts a typed dict's key found here.
    #[inline]
    pub fn dict_hit(&mut self) {
        self.dict_hits = self.dict_hits.saturating_add(1);
    }

    /// Counts a typed dict's key remembered after a miss, and turns the
    /// memo off for the rest of the encode once [`DICT_TRIAL`] misses have
    /// met fewer than half as many hits: dicts whose key objects are all
    /// new (keys decoded afresh for each dict, as a decoder makes keys
    /// outside ASCII) would otherwise pay for every key remembered (about
    /// 40 instructions) and find none.
    #[inline]
    pub fn dict_miss(&mut self) {
        self.dict_misses += 1;
        if self.dict_misses >= DICT_TRIAL && self.dict_hits < self.dict_misses / 2 {
            self.active = false;
            self.dict_gave_up = true;
        }
    }

    /// Ends the encode: forgets every key and drops the references taken.
    /// Must run with the GIL held (as every encode does) before the next
    /// encode uses the memo.
    pub fn release(&mut self) {
        self.active = false;
        self.dict_met = false;
        self.dict_hits = 0;
        self.dict_misses = 0;
        self.dict_gave_up = false;
        self.epoch += 1;
        for p in self.held.drain(..) {
            // SAFETY: each pointer holds the reference `remember` took.
            unsafe { ffi::Py_DECREF(p) };
        }
    }
}

/// The slot of an object address (objects are 16-byte aligned, so the low
/// bits carry nothing).
#[inline]
fn slot_of(addr: usize) -> usize {
    ((addr as u64 >> 4).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 55) as usize % SLOTS
}
