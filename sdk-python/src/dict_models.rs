//! Model dicts of the key sets `loads` meets again from one call to the next.
//!
//! A service decodes many messages of one shape, and the shared key table
//! (`pystr`) hands every decode the same `str` object for a short key. So a
//! map's key objects identify its shape across calls: the first time a
//! shape is met it is only marked; the second time a model is made, a dict
//! of those keys (each to `None`); and from then on a map of that shape
//! starts as a copy of the model, whose values are stored in place
//! (`dict_fill`), as the maps of a key set repeated within one buffer do.
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

/// Slots of the table, direct-mapped by a hash of the key objects.
const SLOTS: usize = 512;

/// Most models one decode may make: a buffer of hundreds of shapes met
/// twice would otherwise replace every model the next decodes use.
const MADE_MAX: u32 = 64;

/// Most keys the models may hold together (each a short `str` the shared
/// key table hands out, so at most a few hundred kilobytes in all).
const HELD_MAX: usize = 4096;

#[derive(Clone, Copy)]
struct Slot {
    /// The hash of the model's keys (0 with no model).
    hash: u64,
    /// The model: a dict of `str` keys to `None`, held by the table.
    model: *mut ffi::PyObject,
    /// The model's number of keys.
    n: usize,
    /// The hash of the shape met last without a model here, which makes
    /// its model when met again (so a shape met once evicts nothing).
    seen: u64,
}

const EMPTY: Slot = Slot {
    hash: 0,
    model: std::ptr::null_mut(),
    n: 0,
    seen: 0,
};

struct ModelTable {
    busy: AtomicBool,
    slots: UnsafeCell<Held>,
}

/// The slots, and the keys their models hold in all.
struct Held {
    slots: [Slot; SLOTS],
    keys: usize,
}

// SAFETY: `slots` is only touched through a `Models` guard, which exists
// for one caller at a time (the `busy` flag, taken with acquire and
// released with release ordering), and only while that caller is attached
// to the interpreter (it holds a `Python` token), as reference counting
// requires.
unsafe impl Sync for ModelTable {}

static TABLE: ModelTable = ModelTable {
    busy: AtomicBool::new(false),
    slots: UnsafeCell::new(Held {
        slots: [EMPTY; SLOTS],
        keys: 0,
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
        Some(Models { py, held, made: 0 })
    }

    /// The model of a map whose keys are `keys` (the objects, in order),
    /// when the table has one or this is the second time it meets them.
    pub(crate) fn model<'k, I>(&mut self, keys: I) -> PyResult<Option<Bound<'py, PyAny>>>
    where
        'py: 'k,
        I: ExactSizeIterator<Item = &'k Bound<'py, PyAny>> + Clone,
    {
        let hash = shape_hash(keys.clone().map(|k| k.as_ptr()));
        let n = keys.len();
        let slot = &mut self.held.slots[(hash >> 55) as usize & (SLOTS - 1)];
        if slot.hash == hash && !slot.model.is_null() {
            // SAFETY: the table holds a reference to the model.
            let model = unsafe { Bound::from_borrowed_ptr(self.py, slot.model) };
            if dict_fill::holds_keys(&model, keys.clone().map(|k| k.as_ptr())) {
                return Ok(Some(model));
            }
        }
        if slot.seen != hash {
            slot.seen = hash;
            return Ok(None);
        }
        let old_n = if slot.model.is_null() { 0 } else { slot.n };
        if self.made >= MADE_MAX || self.held.keys - old_n + n > HELD_MAX {
            return Ok(None);
        }
        self.made += 1;
        // SAFETY: returns a new reference, or NULL with an exception set.
        let model = unsafe { Bound::from_owned_ptr_or_err(self.py, ffi::PyDict_New())? };
        let none = self.py.None().into_bound(self.py);
        for k in keys {
            if crate::expand::set_str_item(&model, k, &none) != 0 {
                return Err(PyErr::fetch(self.py));
            }
        }
        let old = std::mem::replace(&mut slot.model, model.clone().into_ptr());
        slot.hash = hash;
        slot.n = n;
        slot.seen = 0;
        self.held.keys = self.held.keys - old_n + n;
        if !old.is_null() {
            // SAFETY: the reference the table held; dropping a dict of
            // `str` keys and `None` values runs no Python code.
            unsafe { ffi::Py_DECREF(old) };
        }
        Ok(Some(model))
    }
}

impl Drop for Models<'_> {
    fn drop(&mut self) {
        TABLE.busy.store(false, Ordering::Release);
    }
}

/// A hash of key object addresses in their order, never 0.
fn shape_hash(keys: impl ExactSizeIterator<Item = *mut ffi::PyObject>) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    const P: u64 = 0xc2b2_ae3d_27d4_eb4f;
    let mut h = (keys.len() as u64).wrapping_mul(P);
    for (i, a) in keys.enumerate() {
        h = h.wrapping_add((a as u64 ^ (i as u64).wrapping_mul(P)).wrapping_mul(K));
    }
    (h ^ (h >> 29)) | 1
}
