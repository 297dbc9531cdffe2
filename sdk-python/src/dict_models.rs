//! Model dicts of the key sets `loads` meets again from one call to the next.
//!
//! A service decodes many messages of one shape, and the shared key table
//! (`pystr`) hands every decode the same `str` object for a short key. So a
//! map's key objects identify its shape across calls: the first time a
//! shape is met it is only marked; met again in a later call, it gets a
//! model, a dict of those keys (each to `None`); and from then on a map of
//! that shape starts as a copy of the model, whose values are stored in
//! place (`dict_fill`), as the maps of a key set repeated within one buffer
//! do. `loads` asks for models only for maps too large for its key sets
//! (33 to 128 keys, all short ASCII): smaller ones measured no faster.
//!
//! Models that go unused (a shape whose key objects change at every call)
//! are counted, and while they keep coming no models are made at all, so
//! such a workload pays for a model now and then, not at every call.
//!
//! The table is process-wide, like the key table, and used by one decode
//! at a time (a decode that finds it taken goes without). A model holds
//! its keys, so no address it is compared by can be another object's while
//! it is kept.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;

use crate::dict_fill;
use crate::dict_order::shape_hash;

/// Sets of the table, chosen by a hash of the key objects; each holds the
/// models of two shapes (two shapes of one document that share a set then
/// keep their models, where one slot would make one of them again at every
/// other map).
const SETS: usize = 256;

/// Most models one decode may make: a buffer of hundreds of shapes met
/// twice would otherwise replace every model the next decodes use.
const MADE_MAX: u32 = 64;

/// Most keys the models may hold together (each a short `str` the shared
/// key table hands out, so at most a few hundred kilobytes in all). To
/// make a model that would pass it, the models used longest ago go first
/// (never one this decode used: the model is not made then).
const HELD_MAX: usize = 8192;

#[derive(Clone, Copy)]
struct Way {
    /// The hash of the model's keys.
    hash: u64,
    /// The model: a dict of `str` keys to `None`, held by the table (null
    /// when the way is empty).
    model: *mut ffi::PyObject,
    /// The model's number of keys.
    n: usize,
    /// The decode ([`Held::decodes`]) that last used the model.
    used: u64,
    /// Whether a map found the model after the one it was made for.
    hit: bool,
}

#[derive(Clone, Copy)]
struct Set {
    /// The model met most recently first.
    ways: [Way; 2],
    /// The hash of the shape met last without a model here, which makes
    /// its model when met again in a later decode (so a shape met once
    /// evicts nothing, and neither does one whose key objects change from
    /// call to call, as a key the shared table lost and made again does).
    seen: u64,
    /// The decode that met `seen`.
    seen_in: u64,
}

const EMPTY_WAY: Way = Way {
    hash: 0,
    model: std::ptr::null_mut(),
    n: 0,
    used: 0,
    hit: false,
};

const EMPTY: Set = Set {
    ways: [EMPTY_WAY; 2],
    seen: 0,
    seen_in: 0,
};

struct ModelTable {
    busy: AtomicBool,
    slots: UnsafeCell<Held>,
}

/// The sets, and the keys their models hold in all.
struct Held {
    sets: [Set; SETS],
    keys: usize,
    /// Decodes that took the table, the current one's number.
    decodes: u64,
    /// Models dropped without a map having found them, 32 each, less a
    /// 32nd at every decode: past [`WASTE_MAX`], models are made for no
    /// shape, only found, for [`PAUSE`] decodes.
    waste: u32,
    /// The first decode that may make models again.
    paused_until: u64,
}

/// See [`Held::waste`]: about one model made in vain per decode, kept up
/// (a shape whose key objects change at every call, as those of a key the
/// shared key table loses within each decode do, gets a model at every
/// call that no later call finds).
const WASTE_MAX: u32 = 512;

/// Decodes without new models after [`WASTE_MAX`] is passed.
const PAUSE: u64 = 1024;

// SAFETY: `slots` is only touched through a `Models` guard, which exists
// for one caller at a time (the `busy` flag, taken with acquire and
// released with release ordering), and only while that caller is attached
// to the interpreter (it holds a `Python` token), as reference counting
// requires.
unsafe impl Sync for ModelTable {}

static TABLE: ModelTable = ModelTable {
    busy: AtomicBool::new(false),
    slots: UnsafeCell::new(Held {
        sets: [EMPTY; SETS],
        keys: 0,
        decodes: 0,
        waste: 0,
        paused_until: 0,
    }),
};

/// Exclusive use of the model table for one decode.
pub(crate) struct Models<'py> {
    py: Python<'py>,
    held: &'static mut Held,
    made: u32,
}

impl<'py> Models<'py> {
    /// The table, unless another decode is using it or this interpreter's
    /// dicts cannot be filled in place.
    pub(crate) fn take(py: Python<'py>) -> Option<Models<'py>> {
        if !dict_fill::usable() {
            return None;
        }
        TABLE
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()?;
        // SAFETY: the flag was false and is now ours, so no other reference
        // to the slots exists until `drop` clears it.
        let held = unsafe { &mut *TABLE.slots.get() };
        held.decodes += 1;
        held.waste -= held.waste >> 5;
        Some(Models { py, held, made: 0 })
    }

    /// The model of a map whose keys are `keys` (the objects, in order),
    /// when the table has one or this is the second time it meets them.
    pub(crate) fn model<'k, I>(&mut self, keys: I) -> PyResult<Option<Bound<'py, PyAny>>>
    where
        'py: 'k,
        I: ExactSizeIterator<Item = &'k Bound<'py, PyAny>> + Clone,
    {
        // Never 0: a set's `seen` is 0 when it marks no shape.
        let hash = shape_hash(keys.clone().map(|k| k.as_ptr() as usize)) | 1;
        let n = keys.len();
        let set = &mut self.held.sets[(hash >> 56) as usize & (SETS - 1)];
        for w in 0..2 {
            let way = set.ways[w];
            if way.hash == hash && !way.model.is_null() {
                // SAFETY: the table holds a reference to the model.
                let model = unsafe { Bound::from_borrowed_ptr(self.py, way.model) };
                if dict_fill::holds_keys(&model, keys.clone().map(|k| k.as_ptr())) {
                    set.ways[w].used = self.held.decodes;
                    set.ways[w].hit = true;
                    set.ways.swap(0, w);
                    return Ok(Some(model));
                }
            }
        }
        if set.seen != hash {
            set.seen = hash;
            set.seen_in = self.held.decodes;
            return Ok(None);
        }
        if set.seen_in == self.held.decodes {
            return Ok(None);
        }
        if self.made >= MADE_MAX || self.held.decodes < self.held.paused_until {
            return Ok(None);
        }
        self.made += 1;
        let set_at = (hash >> 56) as usize & (SETS - 1);
        // The model goes first, the first moves second, the second goes.
        let gone = self.held.sets[set_at].ways[1];
        let gone_n = if gone.model.is_null() { 0 } else { gone.n };
        if self.held.keys - gone_n + n > HELD_MAX && !self.make_room(n) {
            return Ok(None);
        }
        // SAFETY: returns a new reference, or NULL with an exception set.
        let model = unsafe { Bound::from_owned_ptr_or_err(self.py, ffi::PyDict_New())? };
        let none = self.py.None().into_bound(self.py);
        for k in keys {
            if crate::expand::set_str_item(&model, k, &none) != 0 {
                return Err(PyErr::fetch(self.py));
            }
        }
        let set = &mut self.held.sets[set_at];
        let gone = set.ways[1];
        set.ways[1] = set.ways[0];
        set.ways[0] = Way {
            hash,
            model: model.clone().into_ptr(),
            n,
            used: self.held.decodes,
            hit: false,
        };
        set.seen = 0;
        self.drop_way(gone);
        self.held.keys += n;
        Ok(Some(model))
    }
}

impl Models<'_> {
    /// Drops the models used longest ago, but none this decode used, until
    /// `n` more keys fit (so that the models of shapes no longer met go,
    /// and those of the shapes met now stay); false when they do not.
    fn make_room(&mut self, n: usize) -> bool {
        while self.held.keys + n > HELD_MAX {
            let mut oldest: Option<(usize, usize)> = None;
            let mut when = self.held.decodes;
            for (s, set) in self.held.sets.iter().enumerate() {
                for (w, way) in set.ways.iter().enumerate() {
                    if !way.model.is_null() && way.used < when {
                        when = way.used;
                        oldest = Some((s, w));
                    }
                }
            }
            let Some((s, w)) = oldest else {
                return false;
            };
            let gone = std::mem::replace(&mut self.held.sets[s].ways[w], EMPTY_WAY);
            self.drop_way(gone);
        }
        true
    }

    /// Releases the model of `way`, taken out of the table, if any,
    /// counting it as waste when no map found it.
    fn drop_way(&mut self, way: Way) {
        if way.model.is_null() {
            return;
        }
        self.held.keys -= way.n;
        if !way.hit {
            self.held.waste += 32;
            if self.held.waste > WASTE_MAX {
                self.held.waste = 0;
                self.held.paused_until = self.held.decodes + PAUSE;
            }
        }
        // SAFETY: the reference the table held; dropping a dict of `str`
        // keys and `None` values runs no Python code.
        unsafe { ffi::Py_DECREF(way.model) };
    }
}

impl Drop for Models<'_> {
    fn drop(&mut self) {
        TABLE.busy.store(false, Ordering::Release);
    }
}
