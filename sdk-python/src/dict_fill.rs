//! Dicts of a recurring key set made as copies of one of their kind.
//!
//! `loads` meets the same keys in many maps of a buffer (the records of a
//! list). The first such map is built as a plain dict of `str` keys; every
//! later one starts as [`PyDict_Copy`](ffi::PyDict_Copy) of it, which
//! copies its key table in one block, and then has each value stored into
//! the entry of its key, in place of the copied one. Inserting every key
//! again (a probe of the hash table and an entry written per key) is what
//! this saves. The copies are also dicts of the compact "all keys are
//! `str`" kind: `_PyDict_NewPresized`, the other way to make a dict of a
//! known size, makes the general kind, whose entries are half as large
//! again and whose lookups take the generic path.
//!
//! Writing an entry's value needs CPython's layout of a dict's key table,
//! which is not public API. It is used only on the CPython versions whose
//! layout this module describes (3.11 to 3.13, with the GIL), only after a
//! self-test on a dict of known contents agrees with it, and every entry
//! is checked to hold the key expected before its value is replaced; a
//! dict that fails any check is filled through `PyDict_SetItem` instead.
//!
//! `dumps` reads through the same layout: [`str_entries`] hands it the
//! entries of a dict of `str` keys to walk in place, where `PyDict_Next`
//! would cost a call and its checks per entry.

use pyo3::ffi;
use pyo3::prelude::*;

/// True when this interpreter's dicts have the layout [`Entries`] writes
/// into (checked once per process on a dict of known contents).
#[inline]
pub(crate) fn usable() -> bool {
    imp::usable()
}

/// True when `dict` is a dict of exactly the keys `keys`, the objects
/// themselves, in this order (`false` whenever its layout is not the one
/// [`Entries`] writes into).
pub(crate) fn holds_keys(
    dict: &Bound<'_, PyAny>,
    keys: impl ExactSizeIterator<Item = *mut ffi::PyObject>,
) -> bool {
    imp::holds_keys(dict, keys)
}

/// The (key, value) pairs of `dict`'s key table and how many there are,
/// deleted ones included (their value is null), in insertion order: what
/// `PyDict_Next` walks, for a dict whose table is of the compact all-`str`
/// kind. `None` for any other dict or interpreter (split tables, other key
/// types, a layout that failed the self-test). Valid while no Python code
/// runs: code that changes the dict may replace or free the table.
///
/// # Safety
/// `dict` is a live dict (of any subclass).
#[inline]
pub(crate) unsafe fn str_entries(
    dict: *mut ffi::PyObject,
) -> Option<(*const [*mut ffi::PyObject; 2], usize)> {
    imp::str_entries(dict)
}

/// The entries of a fresh copy of a dict of `str` keys, whose values
/// [`Entries::replace`] stores in place.
pub(crate) struct Entries {
    #[cfg_attr(not(dict_layout_known), allow(dead_code))]
    entries: *mut [*mut ffi::PyObject; 2],
    /// Set once a value that the cycle collector follows was stored.
    #[cfg_attr(not(dict_layout_known), allow(dead_code))]
    holds_gc: bool,
}

impl Entries {
    /// The entries of `dict`, a dict of exactly `n` entries and no others
    /// made by [`PyDict_Copy`](ffi::PyDict_Copy) and not yet seen by any
    /// other code; `None` unless its key table has the expected layout.
    pub(crate) fn of(dict: &Bound<'_, PyAny>, n: usize) -> Option<Entries> {
        imp::entries(dict, n).map(|entries| Entries {
            entries,
            holds_gc: false,
        })
    }

    /// Stores `v` as the value of entry `i` when that entry's key is `k`
    /// (the object itself); otherwise hands `v` back untouched.
    pub(crate) fn replace<'py>(
        &mut self,
        i: usize,
        k: &Bound<'py, PyAny>,
        v: Bound<'py, PyAny>,
    ) -> Result<(), Bound<'py, PyAny>> {
        imp::replace(self, i, k, v)
    }

    /// Lets the cycle collector see `dict` when a stored value needs it
    /// to (as `PyDict_SetItem` does when it stores a container).
    pub(crate) fn finish(self, dict: &Bound<'_, PyAny>) {
        if self.holds_gc {
            // SAFETY: `dict` is a live dict; tracking is only asked of an
            // untracked object.
            unsafe {
                if ffi::PyObject_GC_IsTracked(dict.as_ptr()) == 0 {
                    ffi::PyObject_GC_Track(dict.as_ptr().cast());
                }
            }
        }
    }
}

#[cfg(dict_layout_known)]
mod imp {
    use super::Entries;
    use pyo3::ffi;
    use pyo3::prelude::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    /// CPython's `struct _dictkeysobject` (Include/internal/pycore_dict.h,
    /// the same from 3.11 to 3.13 in builds with the GIL), up to its index
    /// table; the entries follow the index table.
    #[repr(C)]
    struct KeysHead {
        dk_refcnt: ffi::Py_ssize_t,
        dk_log2_size: u8,
        dk_log2_index_bytes: u8,
        dk_kind: u8,
        dk_version: u32,
        dk_usable: ffi::Py_ssize_t,
        dk_nentries: ffi::Py_ssize_t,
    }

    /// `DICT_KEYS_UNICODE`: a combined table whose keys are all `str` and
    /// whose entries are (key, value) pairs.
    const KEYS_UNICODE: u8 = 1;

    /// The self-test's answer: 0 before it ran, then 1 (usable) or 2.
    /// Not a `OnceLock`: the test makes a dict, which may run the cycle
    /// collector and so other threads' Python code; a thread that then
    /// asked would wait on the lock while holding the GIL the first one
    /// needs. Threads that race here each run the test, to the same answer.
    static USABLE: AtomicU8 = AtomicU8::new(0);

    #[inline]
    pub(super) fn usable() -> bool {
        match USABLE.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => first_use(),
        }
    }

    /// [`usable`] the first time: runs the self-test and keeps its answer.
    #[cold]
    #[inline(never)]
    fn first_use() -> bool {
        let ok = Python::attach(self_test);
        USABLE.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
        ok
    }

    /// Makes `{"a": None, "b": True}` through the API and reads it back
    /// through the layout: every field where the layout puts it.
    fn self_test(py: Python<'_>) -> bool {
        let dict = pyo3::types::PyDict::new(py);
        let a = pyo3::types::PyString::new(py, "a");
        let b = pyo3::types::PyString::new(py, "b");
        let none = py.None().into_bound(py);
        let yes = pyo3::types::PyBool::new(py, true).to_owned().into_any();
        if dict.set_item(&a, &none).is_err() || dict.set_item(&b, &yes).is_err() {
            return false;
        }
        // SAFETY: a dict of two entries has a combined table of 8 slots
        // (PyDict_MINSIZE), at least 32 + 8 + 5 * 16 bytes: the header
        // read here first, and when it is as expected (8 one-byte
        // indices), the two entries after them.
        unsafe {
            let d = dict.as_ptr().cast::<ffi::PyDictObject>();
            let keys = (*d).ma_keys.cast::<KeysHead>();
            if keys.is_null()
                || !(*d).ma_values.is_null()
                || (*d).ma_used != 2
                || (*keys).dk_log2_size != 3
                || (*keys).dk_log2_index_bytes != 3
                || (*keys).dk_kind != KEYS_UNICODE
                || (*keys).dk_nentries != 2
                || (*keys).dk_usable != 3
            {
                return false;
            }
            let e = entries_of(keys);
            (*e)[0] == a.as_ptr()
                && (*e)[1] == none.as_ptr()
                && (*e.add(1))[0] == b.as_ptr()
                && (*e.add(1))[1] == yes.as_ptr()
        }
    }

    /// `DK_UNICODE_ENTRIES(keys)`.
    ///
    /// # Safety
    /// `keys` is a live key table of the layout of [`KeysHead`].
    unsafe fn entries_of(keys: *const KeysHead) -> *mut [*mut ffi::PyObject; 2] {
        let indices = keys.cast::<u8>().add(std::mem::size_of::<KeysHead>());
        indices
            .add(1usize << (*keys).dk_log2_index_bytes)
            .cast_mut()
            .cast()
    }

    /// The key table of the dict at `dict` when it is a combined table of
    /// `str` keys (the kind whose entries are (key, value) pairs).
    ///
    /// # Safety
    /// `dict` is a live dict.
    #[inline]
    unsafe fn str_table(dict: *mut ffi::PyObject) -> Option<*const KeysHead> {
        if !usable() {
            return None;
        }
        // SAFETY: `dict` is a live dict (the caller's contract) and the
        // layout passed the self-test.
        unsafe {
            let d = dict.cast::<ffi::PyDictObject>();
            let table = (*d).ma_keys.cast::<KeysHead>();
            let fits =
                !table.is_null() && (*d).ma_values.is_null() && (*table).dk_kind == KEYS_UNICODE;
            fits.then_some(table.cast_const())
        }
    }

    /// The key table of `dict` when it is a combined table of exactly `n`
    /// entries, all with `str` keys, and no others.
    fn table_of(dict: &Bound<'_, PyAny>, n: usize) -> Option<*const KeysHead> {
        // SAFETY: `dict` is a dict (the callers' contract).
        unsafe {
            let table = str_table(dict.as_ptr())?;
            let d = dict.as_ptr().cast::<ffi::PyDictObject>();
            let fits = (*d).ma_used as usize == n && (*table).dk_nentries as usize == n;
            fits.then_some(table)
        }
    }

    #[inline]
    pub(super) unsafe fn str_entries(
        dict: *mut ffi::PyObject,
    ) -> Option<(*const [*mut ffi::PyObject; 2], usize)> {
        // SAFETY: `dict` is a live dict (the caller's contract); a combined
        // table's `dk_nentries` entries follow its index table.
        unsafe {
            let table = str_table(dict)?;
            let n = usize::try_from((*table).dk_nentries).ok()?;
            Some((entries_of(table).cast_const(), n))
        }
    }

    pub(super) fn entries(
        dict: &Bound<'_, PyAny>,
        n: usize,
    ) -> Option<*mut [*mut ffi::PyObject; 2]> {
        let table = table_of(dict, n)?;
        // SAFETY: a live key table (`table_of`), which a copy holds alone.
        unsafe { ((*table).dk_refcnt == 1).then(|| entries_of(table)) }
    }

    pub(super) fn holds_keys(
        dict: &Bound<'_, PyAny>,
        keys: impl ExactSizeIterator<Item = *mut ffi::PyObject>,
    ) -> bool {
        let Some(table) = table_of(dict, keys.len()) else {
            return false;
        };
        // SAFETY: a table of `keys.len()` entries holds them all.
        unsafe {
            let e = entries_of(table);
            keys.enumerate().all(|(i, k)| (*e.add(i))[0] == k)
        }
    }

    pub(super) fn replace<'py>(
        e: &mut Entries,
        i: usize,
        k: &Bound<'py, PyAny>,
        v: Bound<'py, PyAny>,
    ) -> Result<(), Bound<'py, PyAny>> {
        // SAFETY: `i` is below the `n` entries `entries` checked the
        // table to hold; the entry's key is compared before its value is
        // replaced. The old value is a reference the copy took on an
        // object its original still holds, so dropping it frees nothing.
        unsafe {
            let entry = e.entries.add(i);
            if (*entry)[0] != k.as_ptr() {
                return Err(v);
            }
            e.holds_gc |= ffi::PyObject_IS_GC(v.as_ptr()) != 0;
            let old = std::mem::replace(&mut (*entry)[1], v.into_ptr());
            ffi::Py_DECREF(old);
        }
        Ok(())
    }
}

#[cfg(not(dict_layout_known))]
mod imp {
    use super::Entries;
    use pyo3::ffi;
    use pyo3::prelude::*;

    pub(super) fn usable() -> bool {
        false
    }

    pub(super) unsafe fn str_entries(
        _: *mut ffi::PyObject,
    ) -> Option<(*const [*mut ffi::PyObject; 2], usize)> {
        None
    }

    pub(super) fn entries(_: &Bound<'_, PyAny>, _: usize) -> Option<*mut [*mut ffi::PyObject; 2]> {
        None
    }

    pub(super) fn holds_keys(
        _: &Bound<'_, PyAny>,
        _: impl ExactSizeIterator<Item = *mut ffi::PyObject>,
    ) -> bool {
        false
    }

    pub(super) fn replace<'py>(
        _: &mut Entries,
        _: usize,
        _: &Bound<'py, PyAny>,
        v: Bound<'py, PyAny>,
    ) -> Result<(), Bound<'py, PyAny>> {
        Err(v)
    }
}
