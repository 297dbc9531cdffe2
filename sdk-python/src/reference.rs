//! `flexbuf.Reference`: a lazy, zero-copy view of one value in a buffer.
//!
//! A reference holds the `bytes` object it reads (for `bytearray` and
//! `memoryview` inputs, an immutable copy made once by `read`), so views stay
//! valid however long they live and whatever happens to the caller's buffer.
//! Scalars read through a reference come back as Python values; vectors and
//! maps as further references. Typed vectors and blobs export the buffer
//! protocol, so `memoryview(ref)` and `numpy.frombuffer(ref, dtype)` see the
//! numbers in place.

use std::collections::hash_map::DefaultHasher;
use std::ffi::CStr;
use std::hash::{Hash, Hasher};
use std::os::raw::c_int;

use flexbuf::{ErrorKind, FlexType, Reader};
use pyo3::exceptions::{PyBufferError, PyIndexError, PyKeyError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyInt, PyList, PyString};

use crate::decode::{bool_obj, checked_str, float_obj, int_obj, str_obj, uint_obj, Expander};
use crate::errors::{to_py, Context, IntoPy};
use crate::input;

/// A lazy view of one value inside a FlexBuffer.
#[pyclass(frozen, module = "flexbuf", name = "Reference")]
pub struct Reference {
    owner: Py<PyBytes>,
    /// Borrows `owner`'s contents; see [`Reference::new`] for why that is sound.
    reader: Reader<'static>,
}

impl Reference {
    /// A reference to `reader`, which must read the contents of `owner`.
    fn new(owner: Py<PyBytes>, reader: Reader<'_>) -> Reference {
        // SAFETY: `reader` borrows the contents of `owner`, a `bytes` object:
        // immutable, and its storage never moves while the object is alive.
        // The reference holds `owner`, so the borrow lives as long as `self`.
        let reader: Reader<'static> = unsafe { std::mem::transmute(reader) };
        Reference { owner, reader }
    }

    /// The root of `data` (copied into `bytes` unless it is one), verified
    /// first when `verify` is true.
    pub fn open(data: &Bound<'_, PyAny>, verify: bool) -> PyResult<Reference> {
        let py = data.py();
        let owner = input::to_bytes(data)?;
        let bytes = input::slice(&owner);
        let reader = if verify {
            input::verify_bytes(py, bytes)?.root()
        } else {
            Reader::new(bytes).py_err(py, Context::Decode)?
        };
        Ok(Reference::new(owner.clone().unbind(), reader))
    }

    fn child(&self, py: Python<'_>, r: Reader<'static>) -> Reference {
        Reference {
            owner: self.owner.clone_ref(py),
            reader: r,
        }
    }

    /// A scalar as its Python value, a container as a new reference.
    fn natural<'py>(&self, py: Python<'py>, r: Reader<'static>) -> PyResult<Bound<'py, PyAny>> {
        let e = |e| to_py(py, &e, Context::Decode);
        Ok(match r.flex_type() {
            FlexType::Null => py.None().into_bound(py),
            FlexType::Bool => bool_obj(py, r.as_bool().map_err(e)?),
            FlexType::Int | FlexType::IndirectInt => int_obj(py, r.as_i64().map_err(e)?),
            FlexType::UInt | FlexType::IndirectUInt => uint_obj(py, r.as_u64().map_err(e)?),
            FlexType::Float | FlexType::IndirectFloat => float_obj(py, r.as_f64().map_err(e)?),
            FlexType::String | FlexType::Key => str_obj(py, checked_str(&r).map_err(e)?)?,
            FlexType::Blob => PyBytes::new(py, r.as_blob().map_err(e)?).into_any(),
            _ => Bound::new(py, self.child(py, r))?.into_any(),
        })
    }

    /// The child at `key` (a `str` for maps, an `int` for vectors, negative from the end).
    fn lookup(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Reader<'static>> {
        let r = self.reader;
        let ty = r.flex_type();
        if let Ok(k) = key.cast::<PyString>() {
            if ty != FlexType::Map {
                return Err(PyTypeError::new_err(format!(
                    "a {} is indexed by int, not str",
                    ty.name()
                )));
            }
            let k = k.to_str()?;
            let m = r.as_map().py_err(py, Context::Decode)?;
            return match m.find(k).py_err(py, Context::Decode)? {
                Some(v) => Ok(v),
                None => Err(PyKeyError::new_err(k.to_string())),
            };
        }
        if key.is_instance_of::<PyInt>() {
            if !ty.is_any_vector() || ty == FlexType::Map {
                return Err(PyTypeError::new_err(format!(
                    "a {} cannot be indexed by int",
                    ty.name()
                )));
            }
            let v = r.as_vector().py_err(py, Context::Decode)?;
            let i: i64 = key.extract()?;
            let len = v.len() as i64;
            let idx = if i < 0 { i + len } else { i };
            if idx < 0 || idx >= len {
                return Err(PyIndexError::new_err("index out of range"));
            }
            return v.get(idx as usize).py_err(py, Context::Decode);
        }
        Err(PyTypeError::new_err(format!(
            "keys are str (maps) or int (vectors), not {}",
            key.get_type().name()?
        )))
    }

    fn map(&self, py: Python<'_>) -> PyResult<flexbuf::MapReader<'static>> {
        if self.reader.flex_type() != FlexType::Map {
            return Err(PyTypeError::new_err(format!(
                "a {} is not a map",
                self.reader.flex_type().name()
            )));
        }
        self.reader.as_map().py_err(py, Context::Decode)
    }

    fn len_of(&self, py: Python<'_>) -> PyResult<usize> {
        let ty = self.reader.flex_type();
        if ty.is_any_vector() || ty == FlexType::Blob {
            self.reader.len().py_err(py, Context::Decode)
        } else {
            Err(PyTypeError::new_err(format!(
                "a {} has no len()",
                ty.name()
            )))
        }
    }

    /// The slice, item size and struct format of a typed vector or blob.
    fn buffer_parts(&self) -> Result<(&'static [u8], usize, &'static CStr), String> {
        let r = self.reader;
        let ty = r.flex_type();
        if ty == FlexType::Blob {
            let b = r.as_blob().map_err(|e| e.to_string())?;
            return Ok((b, 1, c"B"));
        }
        if !(ty.is_typed_vector() || ty.is_fixed_typed_vector()) || !cfg!(target_endian = "little")
        {
            return Err(format!(
                "a {} does not export a buffer (only typed vectors and blobs do)",
                ty.name()
            ));
        }
        let v = r.as_vector().map_err(|e| e.to_string())?;
        let w = v.element_width();
        let format: &'static CStr = match (v.element_type(), w) {
            (Some(FlexType::Int), 1) => c"b",
            (Some(FlexType::Int), 2) => c"h",
            (Some(FlexType::Int), 4) => c"i",
            (Some(FlexType::Int), 8) => c"q",
            (Some(FlexType::UInt | FlexType::Bool), 1) if ty != FlexType::VectorBool => c"B",
            (Some(FlexType::Bool), 1) => c"?",
            (Some(FlexType::UInt | FlexType::Bool), 2) => c"H",
            (Some(FlexType::UInt | FlexType::Bool), 4) => c"I",
            (Some(FlexType::UInt | FlexType::Bool), 8) => c"Q",
            (Some(FlexType::Float), 4) => c"f",
            (Some(FlexType::Float), 8) => c"d",
            (t, w) => {
                return Err(format!(
                    "a {} of {w}-byte {} elements does not export a buffer",
                    ty.name(),
                    t.map(FlexType::name).unwrap_or("?")
                ))
            }
        };
        let start = v.data_offset();
        let bytes = r
            .buffer()
            .get(start..start + v.len() * w)
            .ok_or_else(|| "typed vector runs past the end of the buffer".to_string())?;
        Ok((bytes, w, format))
    }
}

#[pymethods]
impl Reference {
    /// The FlexBuffers type name (`"map"`, `"vector_int"`, `"string"`, ...).
    #[getter(r#type)]
    fn flex_type(&self) -> &'static str {
        self.reader.flex_type().name()
    }

    /// Byte width: of the slot for inline scalars, else from the packed type.
    #[getter]
    fn width(&self) -> usize {
        if self.reader.flex_type().is_inline() {
            self.reader.slot_width()
        } else {
            self.reader.bit_width().bytes()
        }
    }

    /// Byte offset of the value's slot in the buffer.
    #[getter]
    fn offset(&self) -> usize {
        self.reader.offset()
    }

    /// True when the whole buffer was verified when it was opened.
    #[getter]
    fn verified(&self) -> bool {
        self.reader.is_trusted()
    }

    /// The buffer this reference reads (the caller's `bytes`, or the copy `read` made).
    #[getter]
    fn buffer(&self, py: Python<'_>) -> Py<PyBytes> {
        self.owner.clone_ref(py)
    }

    /// This value as a Python value (scalars) or itself (containers).
    #[getter]
    fn value<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let me = slf.get();
        if me.reader.flex_type().is_any_vector() {
            return Ok(slf.clone().into_any());
        }
        me.natural(slf.py(), me.reader)
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let r = self.lookup(py, key)?;
        self.natural(py, r)
    }

    /// The child at `key` as a `Reference`, even when it is a scalar.
    fn at(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Reference> {
        let r = self.lookup(py, key)?;
        Ok(self.child(py, r))
    }

    /// `self[key]`, or `default` when a map lacks the key.
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.lookup(py, key) {
            Ok(r) => self.natural(py, r),
            Err(e)
                if e.is_instance_of::<PyKeyError>(py) || e.is_instance_of::<PyIndexError>(py) =>
            {
                Ok(default.unwrap_or_else(|| py.None().into_bound(py)))
            }
            Err(e) => Err(e),
        }
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.len_of(py)
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let m = self.map(py)?;
        let Ok(k) = key.cast::<PyString>() else {
            return Ok(false);
        };
        Ok(m.index_of(k.to_str()?)
            .py_err(py, Context::Decode)?
            .is_some())
    }

    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<ReferenceIter> {
        let me = slf.get();
        let py = slf.py();
        let ty = me.reader.flex_type();
        if !ty.is_any_vector() {
            return Err(PyTypeError::new_err(format!(
                "a {} is not iterable",
                ty.name()
            )));
        }
        Ok(ReferenceIter {
            parent: slf.clone().unbind(),
            index: 0,
            len: me.len_of(py)?,
        })
    }

    /// The keys of a map, in key order.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let m = self.map(py)?;
        let list = PyList::empty(py);
        for i in 0..m.len() {
            list.append(m.key(i).py_err(py, Context::Decode)?)?;
        }
        Ok(list)
    }

    /// The values of a map, in key order (scalars as values, containers as references).
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let m = self.map(py)?;
        let list = PyList::empty(py);
        for i in 0..m.len() {
            list.append(self.natural(py, m.value(i).py_err(py, Context::Decode)?)?)?;
        }
        Ok(list)
    }

    /// `(key, value)` pairs of a map, in key order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let m = self.map(py)?;
        let list = PyList::empty(py);
        for i in 0..m.len() {
            let k = m.key(i).py_err(py, Context::Decode)?;
            let v = self.natural(py, m.value(i).py_err(py, Context::Decode)?)?;
            list.append((k, v))?;
        }
        Ok(list)
    }

    /// Expands this value and everything below it into Python objects (as
    /// `loads` does), under the expansion budget of the whole buffer.
    fn to_python<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Expander::new(py, self.reader.buffer().len()).expand(&self.reader)
    }

    /// Content equality with another reference: the same logical value,
    /// whatever buffer or widths hold it (ints by value, floats by value with
    /// NaN equal to NaN, maps entry by entry).
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<Reference>() else {
            return Ok(py.NotImplemented());
        };
        let eq = self.reader == other.get().reader;
        Ok(match op {
            CompareOp::Eq => eq.into_pyobject(py)?.to_owned().into_any().unbind(),
            CompareOp::Ne => (!eq).into_pyobject(py)?.to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }

    /// A hash consistent with `==`: equal content hashes equally.
    fn __hash__(&self) -> isize {
        let mut h = DefaultHasher::new();
        self.reader.hash(&mut h);
        let v = h.finish() as isize;
        if v == -1 {
            -2
        } else {
            v
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let ty = self.reader.flex_type();
        match self.len_of(py) {
            Ok(n) if ty.is_any_vector() => format!("<flexbuf.Reference {} of {n}>", ty.name()),
            _ => format!(
                "<flexbuf.Reference {} at offset {}>",
                ty.name(),
                self.reader.offset()
            ),
        }
    }

    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("view is null"));
        }
        if (flags & ffi::PyBUF_WRITABLE) == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("a flexbuf.Reference is read-only"));
        }
        let (bytes, itemsize, format) = slf.get().buffer_parts().map_err(PyBufferError::new_err)?;
        // shape[0] = element count, strides[0] = item size; freed in __releasebuffer__.
        let dims = Box::into_raw(Box::new([
            (bytes.len() / itemsize) as ffi::Py_ssize_t,
            itemsize as ffi::Py_ssize_t,
        ]));
        // SAFETY: `view` is a valid Py_buffer to fill (checked non-null above);
        // `bytes` lives inside the owner `bytes` object, which `view.obj` keeps alive.
        unsafe {
            (*view).obj = slf.into_any().into_ptr();
            (*view).buf = bytes.as_ptr() as *mut std::os::raw::c_void;
            (*view).len = bytes.len() as ffi::Py_ssize_t;
            (*view).readonly = 1;
            (*view).itemsize = itemsize as ffi::Py_ssize_t;
            (*view).format = if (flags & ffi::PyBUF_FORMAT) == ffi::PyBUF_FORMAT {
                format.as_ptr() as *mut _
            } else {
                std::ptr::null_mut()
            };
            (*view).ndim = 1;
            (*view).shape = if (flags & ffi::PyBUF_ND) == ffi::PyBUF_ND {
                dims as *mut ffi::Py_ssize_t
            } else {
                std::ptr::null_mut()
            };
            (*view).strides = if (flags & ffi::PyBUF_STRIDES) == ffi::PyBUF_STRIDES {
                (dims as *mut ffi::Py_ssize_t).add(1)
            } else {
                std::ptr::null_mut()
            };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = dims as *mut std::os::raw::c_void;
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, view: *mut ffi::Py_buffer) {
        // SAFETY: `internal` was set by __getbuffer__ to a leaked box of two sizes.
        unsafe {
            let dims = (*view).internal as *mut [ffi::Py_ssize_t; 2];
            if !dims.is_null() {
                drop(Box::from_raw(dims));
                (*view).internal = std::ptr::null_mut();
            }
        }
    }
}

/// Iterator over a vector's elements or a map's keys.
#[pyclass(module = "flexbuf")]
pub struct ReferenceIter {
    parent: Py<Reference>,
    index: usize,
    len: usize,
}

#[pymethods]
impl ReferenceIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if self.index >= self.len {
            return Ok(None);
        }
        let i = self.index;
        self.index += 1;
        let parent = self.parent.get();
        let r = parent.reader;
        if r.flex_type() == FlexType::Map {
            let m = r.as_map().py_err(py, Context::Decode)?;
            return Ok(Some(str_obj(py, m.key(i).py_err(py, Context::Decode)?)?));
        }
        let v = r.as_vector().py_err(py, Context::Decode)?;
        let e = v.get(i).map_err(|e| match e.kind() {
            ErrorKind::IndexOutOfBounds { .. } => PyIndexError::new_err("index out of range"),
            _ => to_py(py, &e, Context::Decode),
        })?;
        parent.natural(py, e).map(Some)
    }
}
