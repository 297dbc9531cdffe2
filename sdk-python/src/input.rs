//! Input buffers: `bytes` is read in place; anything else is copied once.
//!
//! A `bytearray` (or a memoryview of one) can change while we read it, and we
//! read without the GIL while verifying large buffers (`validate`, `read`
//! with `verify=True`, and the error path of `loads`). Only `bytes` is
//! immutable, so every other buffer is copied into a new `bytes` object first;
//! readers then keep that object alive instead of the caller's.

use flexbuf::{verify, Error, Verified};
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{Context, IntoPy};

/// Buffers at least this large are verified with the GIL released.
pub const DETACH_THRESHOLD: usize = 64 * 1024;

/// `data` as an immutable `bytes` object (itself when it is one).
pub fn to_bytes<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.clone());
    }
    let py = data.py();
    // SAFETY: plain C-API calls on a live object while attached to the interpreter.
    unsafe {
        if ffi::PyObject_CheckBuffer(data.as_ptr()) == 0 {
            return Err(PyTypeError::new_err(format!(
                "expected bytes, bytearray or memoryview, got {}",
                data.get_type().name()?
            )));
        }
        let copy = ffi::PyBytes_FromObject(data.as_ptr());
        Ok(Bound::from_owned_ptr_or_err(py, copy)?.cast_into_unchecked())
    }
}

/// The contents of a `bytes` object; valid while the object is alive.
pub fn slice<'a>(b: &'a Bound<'_, PyBytes>) -> &'a [u8] {
    b.as_bytes()
}

/// Verifies `bytes`, releasing the GIL when the buffer is large.
pub fn verify_bytes<'a>(py: Python<'_>, bytes: &'a [u8]) -> PyResult<Verified<'a>> {
    let result: Result<Verified<'a>, Error> = if bytes.len() >= DETACH_THRESHOLD {
        // `bytes` borrows an immutable `bytes` object the caller keeps alive.
        py.detach(|| verify(bytes))
    } else {
        verify(bytes)
    };
    result.py_err(py, Context::Decode)
}
