//! Python objects into a [`Builder`] (`dumps`, `Builder.add`).
//!
//! The call sequence is the one `from_json` uses for the same data: `dict` →
//! map (keys must be `str`), `list`/`tuple` → untyped vector, `int` → int
//! (uint only above `i64::MAX`), `float` → double, `str` → string, `bool`,
//! `None` → null; so `dumps(obj)` equals `from_json(json.dumps(obj))`. On top of
//! JSON: `bytes`/`bytearray` → blob, any other 1-D buffer of numbers
//! (`array.array`, NumPy arrays) → a typed vector of its element type, and a
//! 0-D one (a NumPy scalar) → that number (see [`crate::buffers`]).

use std::os::raw::c_int;

use flexbuf::{Builder, Error, ErrorKind, PathSegment};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use pyo3::Borrowed;

use crate::dict_fill;
use crate::dict_order::DictOrders;
use crate::errors::{new_err, to_py, Class, Context};

/// Deepest container nesting written (what the verifier accepts by default).
pub const MAX_DEPTH: usize = 64;

/// The shortest list `dumps` writes in one piece when it is all `str`s
/// (below it, the scan costs more than the pushes it saves).
const STRING_RUN: usize = 8;

/// Lists of up to this many exact `int`s or `float`s (coordinate pairs,
/// small rows) are gathered on the stack for [`Encoder::numeric_list`]
/// instead of in a heap vector.
const SMALL_NUMERIC: usize = 16;

/// Why encoding stopped, with the path built while unwinding (boxed: errors
/// are rare and the `Ok` path should stay small).
pub struct EncodeFail(Box<Inner>);

struct Inner {
    class: Class,
    error: Error,
    py: Option<PyErr>,
}

impl EncodeFail {
    /// A failure of `class` with `message`.
    pub fn new(class: Class, message: String) -> Self {
        EncodeFail(Box::new(Inner {
            class,
            error: Error::new(ErrorKind::Message(message)),
            py: None,
        }))
    }

    /// A failure of `class` with a core error `kind` (its name becomes the
    /// exception's `kind`).
    pub fn of_kind(class: Class, kind: ErrorKind) -> Self {
        EncodeFail(Box::new(Inner {
            class,
            error: Error::new(kind),
            py: None,
        }))
    }

    /// A Python exception raised while reading the object.
    pub fn py(e: PyErr) -> Self {
        EncodeFail(Box::new(Inner {
            class: Class::Encode,
            error: Error::new(ErrorKind::Message(String::new())),
            py: Some(e),
        }))
    }

    /// A builder error.
    pub fn core(e: Error) -> Self {
        EncodeFail(Box::new(Inner {
            class: Class::Encode,
            error: e,
            py: None,
        }))
    }

    /// Prepends a path segment.
    pub fn at(mut self, seg: PathSegment<'_>) -> Self {
        let e = std::mem::replace(&mut self.0.error, Error::new(ErrorKind::KeyNotFound));
        self.0.error = e.in_segment(seg);
        self
    }

    /// The Python exception (the message names the path).
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        let inner = *self.0;
        if let Some(e) = inner.py {
            // Where it happened, as a note on the exception (PEP 678; the
            // exception itself is the one raised, from `default` or a
            // buffer's exporter).
            if let Some(path) = inner.error.path() {
                let note = format!("while encoding the value at {path}");
                if let Ok(add) = e.value(py).getattr("add_note") {
                    let _ = add.call1((note,));
                }
            }
            return e;
        }
        if let ErrorKind::Message(m) = inner.error.kind() {
            let path = inner.error.path().unwrap_or_else(|| "$".into());
            return new_err(
                py,
                inner.class,
                format!("{m} at {path}"),
                "Message",
                None,
                Some(path),
                None,
            );
        }
        to_py(py, &inner.error, Context::Encode)
    }
}

impl From<Error> for EncodeFail {
    fn from(e: Error) -> Self {
        EncodeFail::core(e)
    }
}

impl From<PyErr> for EncodeFail {
    fn from(e: PyErr) -> Self {
        EncodeFail::py(e)
    }
}

/// The name of `obj`'s type, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// An `int` as i64, or as u64 when above `i64::MAX`; `OverflowError` otherwise.
#[inline]
pub fn push_int(b: &mut Builder, obj: &Bound<'_, PyAny>) -> Result<(), EncodeFail> {
    // SAFETY: `obj` is a live object and the GIL is held.
    if let Some(v) = unsafe { crate::pyint::exact_i64(obj.as_ptr()) } {
        b.int(v);
        return Ok(());
    }
    let mut overflow: c_int = 0;
    // SAFETY: `obj` is an int (checked by the caller).
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(obj.as_ptr(), &mut overflow) };
    if overflow == 0 {
        if v == -1 && PyErr::occurred(obj.py()) {
            return Err(PyErr::fetch(obj.py()).into());
        }
        b.int(v);
        return Ok(());
    }
    if overflow > 0 {
        // SAFETY: as above.
        let u = unsafe { ffi::PyLong_AsUnsignedLongLong(obj.as_ptr()) };
        if u == u64::MAX && PyErr::occurred(obj.py()) {
            drop(PyErr::fetch(obj.py()));
        } else {
            b.uint(u);
            return Ok(());
        }
    }
    Err(EncodeFail::new(
        Class::EncodeOverflow,
        "int does not fit in 64 bits".into(),
    ))
}

/// A `str` as UTF-8 borrowed from the object (CPython caches it).
#[inline]
pub fn utf8<'a>(obj: &'a Bound<'_, PyAny>) -> Result<&'a str, EncodeFail> {
    // A compact ASCII string is its own UTF-8: read it in place (the C call
    // below costs about 40 instructions even then). The state bits are
    // read through pyo3's accessors, which exist up to CPython 3.13.
    #[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy, Py_3_14)))]
    // SAFETY: `obj` is a str (the callers checked); a compact ASCII string
    // keeps its `length` bytes right after its header, alive as long as `obj`.
    unsafe {
        let p = obj.as_ptr();
        if ffi::PyUnicode_IS_COMPACT_ASCII(p) != 0 {
            let data = ffi::PyUnicode_DATA(p) as *const u8;
            let n = ffi::PyUnicode_GET_LENGTH(p) as usize;
            return Ok(std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                data, n,
            )));
        }
    }
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `obj` is a str; the returned buffer lives as long as the object.
    unsafe {
        let p = ffi::PyUnicode_AsUTF8AndSize(obj.as_ptr(), &mut len);
        if p.is_null() {
            return Err(PyErr::fetch(obj.py()).into());
        }
        let bytes = std::slice::from_raw_parts(p as *const u8, len as usize);
        Ok(std::str::from_utf8_unchecked(bytes))
    }
}

/// Writes `items` as one vector of strings (`Builder::strings_field`: the
/// bytes of pushing each, with no value-stack slot per item) when each is a
/// `str` (with `exact`, of type `str` itself, no subclass) whose UTF-8
/// Python can give: true then; false (nothing written) otherwise, and the
/// caller writes the items one by one, which reports the item that fails (a
/// lone surrogate's error is Python's, raised again then).
///
/// # Safety
///
/// `items` are live objects of a sequence that no Python code changes while
/// this runs (the strings borrow the items' UTF-8).
pub unsafe fn push_str_items(
    b: &mut Builder,
    py: Python<'_>,
    items: &[*mut ffi::PyObject],
    exact: bool,
) -> Result<bool, EncodeFail> {
    // SAFETY: the caller's contract.
    let Some(strs) = (unsafe { str_items(py, items, exact) }) else {
        return Ok(false);
    };
    let field = b.strings_field(&strs)?;
    b.push_field(field)?;
    Ok(true)
}

/// The UTF-8 of every item of `items` for [`push_str_items`]; `None` when
/// one is not a `str` (of type `str` itself with `exact`) with UTF-8.
///
/// # Safety
///
/// As for [`push_str_items`], until the strings returned are no longer used.
unsafe fn str_items<'a>(
    py: Python<'_>,
    items: &'a [*mut ffi::PyObject],
    exact: bool,
) -> Option<Vec<&'a str>> {
    let mut strs: Vec<&'a str> = Vec::with_capacity(items.len());
    for &item in items {
        // SAFETY: a live item (the caller's contract).
        let is_str = unsafe {
            if exact {
                ffi::PyUnicode_CheckExact(item)
            } else {
                ffi::PyUnicode_Check(item)
            }
        } != 0;
        if !is_str {
            return None;
        }
        // SAFETY: as above.
        let item = unsafe { Borrowed::from_ptr(py, item) };
        let s = utf8(&item).ok()?;
        // SAFETY: the UTF-8 of a str the sequence holds, which lives (with
        // that buffer) as long as the sequence is unchanged.
        strs.push(unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(s.as_ptr(), s.len()))
        });
    }
    Some(strs)
}

/// A dict key as UTF-8 borrowed from the object; a map key must be a `str`.
#[inline]
pub fn map_key<'a>(k: &'a Bound<'_, PyAny>) -> Result<&'a str, EncodeFail> {
    if !k.is_instance_of::<PyString>() {
        return Err(EncodeFail::new(
            Class::EncodeType,
            format!("map keys must be str, not {}", type_name(k)),
        ));
    }
    utf8(k)
}

/// Writes any supported Python value.
pub struct Encoder<'b, 'py> {
    /// The builder written to.
    pub b: &'b mut Builder,
    /// Sorted key orders of dict shapes seen before.
    pub orders: &'b mut DictOrders,
    /// `dumps`'s `default`: called with an object of no supported type, and
    /// what it returns is written in its place.
    pub default: Option<&'b Bound<'py, PyAny>>,
}

impl Encoder<'_, '_> {
    /// Pushes `obj` (and everything in it) as one value.
    pub fn value(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Result<(), EncodeFail> {
        if self.exact_scalar(obj)? {
            return Ok(());
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            return self.dict(d, depth);
        }
        if let Ok(l) = obj.cast::<PyList>() {
            return self.list(l, depth);
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            let depth = enter(depth)?;
            self.b.start_vector();
            for (i, item) in t.iter().enumerate() {
                self.value(&item, depth)
                    .map_err(|e| e.at(PathSegment::Index(i)))?;
            }
            self.b.end_vector()?;
            return Ok(());
        }
        // Subclasses of the scalar types (IntEnum, str enums, float subclasses).
        if obj.is_instance_of::<PyString>() {
            let s = utf8(obj)?;
            self.b.string(s);
            return Ok(());
        }
        if obj.is_instance_of::<pyo3::types::PyInt>() {
            return push_int(self.b, obj);
        }
        if let Ok(f) = obj.cast::<pyo3::types::PyFloat>() {
            self.b.double(f.value());
            return Ok(());
        }
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            self.b.blob(bytes.as_bytes());
            return Ok(());
        }
        if let Ok(ba) = obj.cast::<PyByteArray>() {
            let data = ba.to_vec();
            self.b.blob(&data);
            return Ok(());
        }
        // SAFETY: a type check on a live object.
        let mut reason = None;
        if unsafe { ffi::PyObject_CheckBuffer(obj.as_ptr()) } != 0 {
            reason = crate::buffers::write(self.b, obj)?;
            if reason.is_none() {
                return Ok(());
            }
        }
        if let Some(default) = self.default {
            // One level deeper each time: a `default` that keeps returning
            // objects it is called with again ends at the nesting limit.
            let depth = enter(depth)?;
            let replaced = default.call1((obj,))?;
            return self.value(&replaced, depth);
        }
        Err(EncodeFail::new(
            Class::EncodeType,
            reason.unwrap_or_else(|| format!("cannot encode an object of type {}", type_name(obj))),
        ))
    }

    /// Writes `obj` when it is a `str`, `int`, `float`, `bool` or `None`
    /// (not a subclass): true then, false (nothing written) otherwise.
    /// Runs no Python code, so `obj` may be a borrowed reference.
    #[inline(always)]
    fn exact_scalar(&mut self, obj: &Bound<'_, PyAny>) -> Result<bool, EncodeFail> {
        let ptr = obj.as_ptr();
        // SAFETY: type checks on a live object.
        unsafe {
            if ffi::PyUnicode_CheckExact(ptr) != 0 {
                let s = utf8(obj)?;
                self.b.string(s);
                return Ok(true);
            }
            if ffi::PyLong_CheckExact(ptr) != 0 {
                push_int(self.b, obj)?;
                return Ok(true);
            }
            if ffi::PyFloat_CheckExact(ptr) != 0 {
                self.b.double(ffi::PyFloat_AS_DOUBLE(ptr));
                return Ok(true);
            }
            if ptr == ffi::Py_True() || ptr == ffi::Py_False() {
                self.b.bool(ptr == ffi::Py_True());
                return Ok(true);
            }
            if ptr == ffi::Py_None() {
                self.b.null();
                return Ok(true);
            }
        }
        Ok(false)
    }

    // The two loops below read their items as borrowed references (the
    // container holds them) and write the exact scalars among them without
    // touching a reference count. Anything else is held by a strong
    // reference while it is written: writing it may run Python code (a
    // buffer's `__buffer__` from Python 3.12), which could drop it from
    // its container. A container changed meanwhile is an error, as it is
    // for Python's own iterators.

    fn list(&mut self, l: &Bound<'_, PyList>, depth: usize) -> Result<(), EncodeFail> {
        let depth = enter(depth)?;
        let lp = l.as_ptr();
        // SAFETY: `lp` is a live list; its items are read by the one-piece
        // writers below while no Python code runs (nothing can change it
        // meanwhile), each a live object.
        // An empty list's item array may be null: no slice of it is made.
        let items: &[*mut ffi::PyObject] = match unsafe { ffi::PyList_GET_SIZE(lp) } as usize {
            0 => return Ok(self.b.empty_vector()?),
            n => unsafe {
                std::slice::from_raw_parts((*(lp as *mut ffi::PyListObject)).ob_item, n)
            },
        };
        if items.len() >= 2 && self.numeric_list(items) {
            return Ok(());
        }
        if items.len() >= STRING_RUN && self.string_list(l.py(), items)? {
            return Ok(());
        }
        self.b.start_vector();
        // SAFETY: `l` is a list; the size is read again before every item,
        // so the index stays inside it even if it shrinks.
        let n = unsafe { ffi::PyList_GET_SIZE(lp) };
        let mut i = 0;
        while i < unsafe { ffi::PyList_GET_SIZE(lp) } {
            // SAFETY: 0 <= i < the list's current size; the list holds the
            // item until it changes, and nothing below runs code before the
            // item is either written or held.
            let item = unsafe { Borrowed::from_ptr(l.py(), ffi::PyList_GET_ITEM(lp, i)) };
            let written = match self.exact_scalar(&item) {
                Ok(written) => written,
                Err(e) => return Err(e.at(PathSegment::Index(i as usize))),
            };
            if !written {
                let item = item.to_owned();
                self.value(&item, depth)
                    .map_err(|e| e.at(PathSegment::Index(i as usize)))?;
            }
            i += 1;
        }
        // SAFETY: as above.
        if unsafe { ffi::PyList_GET_SIZE(lp) } != n {
            return Err(changed("list"));
        }
        self.b.end_vector()?;
        Ok(())
    }

    /// Writes the list of `items` (two or more) when they are all exact
    /// `int`s within i64 or all exact `float`s (a numeric column, a series, a
    /// coordinate pair), as one untyped vector (`Builder::untyped_vector`:
    /// the bytes of pushing each item), with no value-stack slot per item:
    /// true then, false (nothing written) for any other list. Reads the
    /// items as borrowed references and runs no Python code.
    fn numeric_list(&mut self, items: &[*mut ffi::PyObject]) -> bool {
        // SAFETY: live items of a list no Python code changes meanwhile (see
        // `list`), at least one of them.
        unsafe {
            let first = items[0];
            let int = ffi::PyLong_CheckExact(first) != 0;
            if !int && ffi::PyFloat_CheckExact(first) == 0 {
                return false;
            }
            // A short list is checked to be of one type (a pointer compare
            // an item) before any conversion, so a mixed pair costs none; a
            // long one is read once, each item checked as it is converted
            // (a second pass would read every object's header twice).
            if items.len() <= SMALL_NUMERIC {
                let ty = ffi::Py_TYPE(first);
                if items.iter().any(|&item| ffi::Py_TYPE(item) != ty) {
                    return false;
                }
            }
            if int {
                self.numbers(items, |item| crate::pyint::exact_i64(item))
            } else {
                self.numbers(items, |item| {
                    (ffi::PyFloat_CheckExact(item) != 0).then(|| ffi::PyFloat_AS_DOUBLE(item))
                })
            }
        }
    }

    /// Writes `items` as the untyped vector of `value` of each, when `value`
    /// gives one for every item (gathered on the stack up to
    /// [`SMALL_NUMERIC`] items, in a vector beyond): true then, false
    /// (nothing written) otherwise.
    #[inline(always)]
    fn numbers<T: flexbuf::Scalar + Copy + Default>(
        &mut self,
        items: &[*mut ffi::PyObject],
        value: impl Fn(*mut ffi::PyObject) -> Option<T>,
    ) -> bool {
        if items.len() <= SMALL_NUMERIC {
            let mut values = [T::default(); SMALL_NUMERIC];
            for (slot, &item) in values.iter_mut().zip(items) {
                match value(item) {
                    Some(v) => *slot = v,
                    None => return false,
                }
            }
            self.b.untyped_vector(&values[..items.len()]);
            return true;
        }
        let mut values = Vec::with_capacity(items.len());
        for &item in items {
            match value(item) {
                Some(v) => values.push(v),
                None => return false,
            }
        }
        self.b.untyped_vector(&values);
        true
    }

    /// Writes the list of `items` when they are all exact `str`s with UTF-8
    /// (a list of names, tags, lines) as one vector of strings
    /// ([`push_str_items`]): true then, false (nothing written) for any other
    /// list, which the item-by-item path writes or reports. Reads the items
    /// as borrowed references and runs no Python code.
    fn string_list(
        &mut self,
        py: Python<'_>,
        items: &[*mut ffi::PyObject],
    ) -> Result<bool, EncodeFail> {
        // SAFETY: live items of a list no Python code changes meanwhile (see
        // `list`), at least one of them.
        unsafe {
            if ffi::PyUnicode_CheckExact(items[0]) == 0 {
                return Ok(false);
            }
            push_str_items(self.b, py, items, true)
        }
    }

    fn dict(&mut self, d: &Bound<'_, PyDict>, depth: usize) -> Result<(), EncodeFail> {
        let depth = enter(depth)?;
        let dp = d.as_ptr();
        let py = d.py();
        // SAFETY: `d` is a dict (possibly of a subclass, whose own iteration
        // is not used, as before).
        let n = unsafe { ffi::PyDict_Size(dp) };
        if n == 0 {
            // No entries, so no key order to remember.
            return Ok(self.b.empty_map()?);
        }
        self.b.start_map();
        let mark = self.orders.mark();
        let mut seen: ffi::Py_ssize_t = 0;
        // SAFETY: `dp` is a live dict.
        let mut entries = unsafe { DictEntries::new(dp) };
        // SAFETY: `next` and `reread` on the live dict `entries` was made
        // for; each (key, value) pair is borrowed from the dict while no
        // Python code runs (`entry` holds its own references when it runs
        // any, and the table is read again after).
        while let Some((kp, vp)) = unsafe { entries.next() } {
            seen += 1;
            if unsafe { self.entry(py, kp, vp, depth)? } {
                unsafe { entries.reread() }.ok_or_else(|| changed("dict"))?;
            }
        }
        // SAFETY: as above.
        if seen != n || unsafe { ffi::PyDict_Size(dp) } != n {
            return Err(changed("dict"));
        }
        self.orders.end_map(self.b, mark)?;
        Ok(())
    }

    /// Pushes the dict entry of key `kp` and value `vp`: true when writing
    /// the value may have run Python code (it was not an exact scalar).
    ///
    /// # Safety
    /// `kp` and `vp` are live objects that their dict holds while no Python
    /// code runs.
    #[inline(always)]
    unsafe fn entry(
        &mut self,
        py: Python<'_>,
        kp: *mut ffi::PyObject,
        vp: *mut ffi::PyObject,
        depth: usize,
    ) -> Result<bool, EncodeFail> {
        // SAFETY: live objects (the caller's contract).
        let (k, v) = unsafe { (Borrowed::from_ptr(py, kp), Borrowed::from_ptr(py, vp)) };
        // A key object met before in this encode is a `str` whose key is
        // written: pushed again by its handle.
        let memo = self.orders.keys.active;
        let hit = if memo {
            self.orders.keys.get(kp as usize)
        } else {
            None
        };
        match hit {
            Some(h) => self.b.reuse_value(*h),
            None => {
                self.b.key(map_key(&k)?);
                if memo {
                    self.orders.keys.remember(kp, self.b);
                }
            }
        }
        self.orders.key(kp as usize);
        match self.exact_scalar(&v) {
            Ok(true) => Ok(false),
            Ok(false) => {
                // Owned: encoding the value may run Python code.
                let (k, v) = (k.to_owned(), v.to_owned());
                self.value(&v, depth).map_err(|e| at_key(&k, e))?;
                Ok(true)
            }
            Err(e) => Err(at_key(&k, e)),
        }
    }
}

/// The entries of a dict, in the order `PyDict_Next` gives them: read in
/// place from a key table of CPython's compact all-`str` kind
/// ([`dict_fill::str_entries`]; `PyDict_Next`'s call and checks per entry
/// were 10% of `dumps`' time on records), through `PyDict_Next` for any
/// other dict.
pub(crate) struct DictEntries {
    dict: *mut ffi::PyObject,
    /// The (key, value) pairs of the table read in place and how many
    /// (deleted ones included), or `None` for `PyDict_Next`.
    table: Option<(*const [*mut ffi::PyObject; 2], usize)>,
    /// The next entry's index, or `PyDict_Next`'s position.
    pos: usize,
}

impl DictEntries {
    /// # Safety
    /// `dict` is a live dict.
    #[inline(always)]
    pub(crate) unsafe fn new(dict: *mut ffi::PyObject) -> DictEntries {
        DictEntries {
            dict,
            // SAFETY: the caller's contract.
            table: unsafe { dict_fill::str_entries(dict) },
            pos: 0,
        }
    }

    /// The next (key, value) pair, borrowed from the dict.
    ///
    /// # Safety
    /// The dict is alive, and no Python code ran since this was made or
    /// last [`reread`](Self::reread).
    #[inline(always)]
    pub(crate) unsafe fn next(&mut self) -> Option<(*mut ffi::PyObject, *mut ffi::PyObject)> {
        match self.table {
            Some((entries, n)) => {
                while self.pos < n {
                    // SAFETY: entry `pos` of the table's `n` (the contract).
                    let [k, v] = unsafe { *entries.add(self.pos) };
                    self.pos += 1;
                    // A deleted entry has no value.
                    if !v.is_null() {
                        return Some((k, v));
                    }
                }
                None
            }
            None => {
                let mut pos = self.pos as ffi::Py_ssize_t;
                let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
                // SAFETY: PyDict_Next on a live dict (the contract).
                let more = unsafe { ffi::PyDict_Next(self.dict, &mut pos, &mut k, &mut v) } != 0;
                self.pos = pos as usize;
                more.then_some((k, v))
            }
        }
    }

    /// Reads the table again after Python code ran, which may have changed
    /// or replaced it; `None` when the dict is no longer of the kind read
    /// in place (it changed).
    ///
    /// # Safety
    /// The dict is alive.
    #[inline]
    unsafe fn reread(&mut self) -> Option<()> {
        if self.table.is_some() {
            // SAFETY: the contract.
            self.table = Some(unsafe { dict_fill::str_entries(self.dict) }?);
        }
        Some(())
    }
}

/// `e` below the dict key `k` (a `str`; a key that is not valid UTF-8
/// leaves the path as it is).
fn at_key(k: &Bound<'_, PyAny>, e: EncodeFail) -> EncodeFail {
    match utf8(k) {
        Ok(key) => e.at(PathSegment::Key(key)),
        Err(_) => e,
    }
}

/// The error for a container that changed while it was being encoded.
fn changed(what: &str) -> EncodeFail {
    EncodeFail::py(pyo3::exceptions::PyRuntimeError::new_err(format!(
        "{what} changed size during encoding"
    )))
}

fn enter(depth: usize) -> Result<usize, EncodeFail> {
    if depth >= MAX_DEPTH {
        // A reference cycle (`x = []; x.append(x)`) ends here too.
        return Err(EncodeFail::of_kind(
            Class::Encode,
            ErrorKind::DepthLimit(MAX_DEPTH),
        ));
    }
    Ok(depth + 1)
}
