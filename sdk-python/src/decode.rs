//! Expansion of a buffer into Python objects, all in native code (`loads`,
//! `Reference.to_python`).
//!
//! Maps become `dict` (keys `str`), every kind of vector `list`, strings `str`,
//! blobs `bytes`, integers `int`, floats `float`, booleans `bool`, null `None`.
//! Expansion is charged against a [`Budget`] (one node per value, the length of
//! every string, key and blob), so a small buffer whose shared offsets
//! describe a huge tree fails with `BudgetError` instead of exhausting memory.
//! Containers nested deeper than [`MAX_DEPTH`] fail too, so even unverified
//! bytes (a lazy [`crate::reference::Reference`]) cannot recurse without end.

use flexbuf::raw::{key_at, read_uint as read_le};
use flexbuf::{Budget, Error, ErrorKind, FlexType, MapReader, Reader, VectorReader};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::errors::{to_py, Context};
use crate::expand::{set_str_item, Walk};
pub use crate::pystr::str_obj;
use crate::pystr::KeysByOffset;

/// Deepest container nesting expanded (the verifier's default limit).
pub const MAX_DEPTH: usize = 64;

/// Why an expansion stopped.
pub enum Fail {
    /// A core error (budget, depth, or a checked read of unverified bytes).
    Core(Error),
    /// A Python error (out of memory).
    Py(PyErr),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Core(e)
    }
}

impl From<PyErr> for Fail {
    fn from(e: PyErr) -> Self {
        Fail::Py(e)
    }
}

impl Fail {
    /// The Python exception.
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Fail::Core(e) => to_py(py, &e, Context::Decode),
            Fail::Py(e) => e,
        }
    }
}

type Out<'py> = Result<Bound<'py, PyAny>, Fail>;

/// One expansion: its budget, depth limit and key cache.
pub struct Expander<'py> {
    py: Python<'py>,
    budget: Budget,
    keys: KeysByOffset<'py>,
}

impl<'py> Expander<'py> {
    /// An expander for a buffer of `len` bytes with the core's default budget.
    pub fn new(py: Python<'py>, len: usize) -> Self {
        Expander {
            py,
            budget: Budget::for_input(len),
            keys: KeysByOffset::new(len),
        }
    }

    /// Expands `r` and everything below it (through [`Walk`] when `r`
    /// comes from a verified buffer).
    pub fn expand(&mut self, r: &Reader<'_>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        if let Some(out) = Walk::expand(py, r) {
            return out;
        }
        self.value(r, 0).map_err(|f| f.into_py(py))
    }

    fn value(&mut self, r: &Reader<'_>, depth: usize) -> Out<'py> {
        self.budget.node()?;
        let py = self.py;
        match r.flex_type() {
            FlexType::Null => Ok(py.None().into_bound(py)),
            FlexType::Bool => Ok(bool_obj(py, r.as_bool()?)),
            FlexType::Int | FlexType::IndirectInt => Ok(int_obj(py, r.as_i64()?)),
            FlexType::UInt | FlexType::IndirectUInt => Ok(uint_obj(py, r.as_u64()?)),
            FlexType::Float | FlexType::IndirectFloat => Ok(float_obj(py, r.as_f64()?)),
            FlexType::String => {
                let s = checked_str(r)?;
                self.budget.bytes(s.len())?;
                Ok(str_obj(py, s)?)
            }
            FlexType::Key => self.key(r),
            FlexType::Blob => {
                let b = r.as_blob()?;
                self.budget.bytes(b.len())?;
                Ok(pyo3::types::PyBytes::new(py, b).into_any())
            }
            FlexType::Map => {
                let depth = enter(depth, r)?;
                self.map(r.buffer(), &r.as_map()?, depth)
            }
            _ => {
                let depth = enter(depth, r)?;
                self.vector(r.buffer(), &r.as_vector()?, depth)
            }
        }
    }

    fn key(&mut self, r: &Reader<'_>) -> Out<'py> {
        self.key_at(r.buffer(), r.data_offset()?)
    }

    /// The key whose bytes start at `at`, through the cache.
    #[inline]
    fn key_at(&mut self, buf: &[u8], at: usize) -> Out<'py> {
        if let Some((obj, len)) = self.keys.get(at) {
            // Charge the output again: the budget counts bytes produced.
            self.budget.bytes(len)?;
            return Ok(obj);
        }
        let bytes = key_at(buf, at)?;
        let s = std::str::from_utf8(bytes).map_err(|_| Error::at(ErrorKind::InvalidUtf8, at))?;
        self.budget.bytes(s.len())?;
        let obj = str_obj(self.py, s)?;
        self.keys.put(at, s.len(), &obj);
        Ok(obj)
    }

    fn map(&mut self, buf: &[u8], m: &MapReader<'_>, depth: usize) -> Out<'py> {
        let py = self.py;
        // SAFETY: PyDict_New returns a new reference or NULL with an exception set.
        let dict = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyDict_New())? };
        let keys = m.keys();
        let values = m.values();
        if values.len() < keys.len() {
            let e = ErrorKind::KeyValueLengthMismatch {
                keys: keys.len() as u64,
                values: values.len() as u64,
            };
            return Err(Error::at(e, values.data_offset()).into());
        }
        let kw = keys.element_width();
        for i in 0..m.len() {
            self.budget.node()?;
            let slot = keys.data_offset() + i * kw;
            let off = read_le(buf, slot, kw)?;
            let at = (slot as u64)
                .checked_sub(off)
                .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, slot))?
                as usize;
            let k = self.key_at(buf, at)?;
            let v = self.element(buf, &values, i, depth)?;
            if set_str_item(&dict, &k, &v) != 0 {
                return Err(PyErr::fetch(py).into());
            }
        }
        Ok(dict)
    }

    fn vector(&mut self, buf: &[u8], v: &VectorReader<'_>, depth: usize) -> Out<'py> {
        let py = self.py;
        let n = v.len();
        // A hostile length cannot over-allocate: the reader checked that the
        // elements lie inside the buffer, and the budget bounds the total.
        self.budget.node()?;
        // SAFETY: PyList_New returns a new reference (items NULL) or NULL with an exception.
        let list =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))? };
        for i in 0..n {
            let item = self.element(buf, v, i, depth)?;
            // SAFETY: i < n; PyList_SET_ITEM steals the reference into an empty slot.
            unsafe { ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr()) };
        }
        Ok(list)
    }

    /// Element `i` of `v`, reading inline scalars straight from the buffer.
    #[inline]
    fn element(&mut self, buf: &[u8], v: &VectorReader<'_>, i: usize, depth: usize) -> Out<'py> {
        let py = self.py;
        let w = v.element_width();
        let ty = match v.element_type() {
            Some(t) => Some(t),
            None => v
                .packed_type(i)
                .and_then(|p| flexbuf::unpack_type(p).map(|(t, _)| t)),
        };
        if let Some(t) = ty {
            if t.is_inline() {
                self.budget.node()?;
                let pos = v.data_offset() + i * w;
                return Ok(match t {
                    FlexType::Null => py.None().into_bound(py),
                    FlexType::Bool => bool_obj(py, read_le(buf, pos, w)? != 0),
                    FlexType::Int => {
                        let u = read_le(buf, pos, w)?;
                        let shift = 64 - 8 * w as u32;
                        int_obj(py, ((u << shift) as i64) >> shift)
                    }
                    FlexType::UInt => uint_obj(py, read_le(buf, pos, w)?),
                    _ => {
                        let u = read_le(buf, pos, w)?;
                        let f = match w {
                            4 => f32::from_bits(u as u32) as f64,
                            8 => f64::from_bits(u),
                            _ => return Err(Error::at(ErrorKind::BadWidth(w as u64), pos).into()),
                        };
                        float_obj(py, f)
                    }
                });
            }
        }
        self.value(&v.get(i)?, depth)
    }
}

/// A string, also checking its NUL terminator when the buffer was not verified
/// (a sized read never looks at it; the verifier always does).
pub fn checked_str<'a>(r: &Reader<'a>) -> Result<&'a str, Error> {
    let s = r.as_str()?;
    if !r.is_trusted() && r.flex_type() == FlexType::String {
        let end = r.data_offset()? + s.len();
        if r.buffer().get(end) != Some(&0) {
            return Err(Error::at(ErrorKind::MissingNul, end));
        }
    }
    Ok(s)
}

fn enter(depth: usize, r: &Reader<'_>) -> Result<usize, Error> {
    if depth >= MAX_DEPTH {
        return Err(Error::at(ErrorKind::DepthLimit(MAX_DEPTH), r.offset()));
    }
    Ok(depth + 1)
}

/// `None`, `True` or `False` as a new reference.
#[inline]
pub fn bool_obj(py: Python<'_>, b: bool) -> Bound<'_, PyAny> {
    // SAFETY: PyBool_FromLong never fails.
    unsafe { Bound::from_owned_ptr(py, ffi::PyBool_FromLong(b as std::os::raw::c_long)) }
}

/// An `int` from an `i64`.
#[inline]
pub fn int_obj(py: Python<'_>, i: i64) -> Bound<'_, PyAny> {
    // SAFETY: PyLong_FromLongLong only fails on out-of-memory, which pyo3 treats as fatal here.
    unsafe { Bound::from_owned_ptr(py, ffi::PyLong_FromLongLong(i)) }
}

/// An `int` from a `u64`.
#[inline]
pub fn uint_obj(py: Python<'_>, u: u64) -> Bound<'_, PyAny> {
    // SAFETY: as for `int_obj`.
    unsafe { Bound::from_owned_ptr(py, ffi::PyLong_FromUnsignedLongLong(u)) }
}

/// A `float`.
#[inline]
pub fn float_obj(py: Python<'_>, f: f64) -> Bound<'_, PyAny> {
    // SAFETY: as for `int_obj`.
    unsafe { Bound::from_owned_ptr(py, ffi::PyFloat_FromDouble(f)) }
}
