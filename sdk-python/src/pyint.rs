//! Reading small `int` objects without a C-API call.
//!
//! CPython stores an `int` as a sign and 30-bit digits inside the object;
//! `PyLong_AsLongLongAndOverflow` costs about 18 instructions for one of up
//! to two digits (magnitudes below 2^60: counters, ids, timestamps), a
//! direct read about 6. The layout
//! differs between versions (3.11: the sign and digit count in `ob_size`;
//! 3.12 on: a tag word), so it is chosen at build time and checked once per
//! process against the C API on sample values; if any disagrees (an
//! interpreter built with 15-bit digits, say), every read goes through the
//! C API instead.

use std::sync::OnceLock;

use pyo3::ffi;

/// Whether [`compact_int`] agrees with the C API on this interpreter.
static LAYOUT_OK: OnceLock<bool> = OnceLock::new();

/// Whether direct reads agree with the C API on this interpreter (checked
/// on first use).
#[inline]
pub fn layout_ok() -> bool {
    *LAYOUT_OK.get_or_init(check_layout)
}

/// The value of an exact `int` that fits in i64, or `None` when `p` is not
/// an exact `int` or does not fit.
///
/// # Safety
/// `p` is a live object, and the GIL is held.
#[inline(always)]
pub unsafe fn exact_i64(p: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: the caller's contract.
    unsafe {
        if ffi::PyLong_CheckExact(p) == 0 {
            return None;
        }
        long_value(p)
    }
}

/// The value of an `int` or an instance of an `int` subclass (an `IntEnum`
/// member; not a `bool`) that fits in i64, or `None` otherwise. A
/// subclass's instance holds its value as an `int` does (`int.__int__` is
/// not called, as `PyLong_AsLongLong` does not call it for them).
///
/// # Safety
/// `p` is a live object, and the GIL is held.
#[inline(always)]
pub unsafe fn int_i64(p: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: the caller's contract.
    unsafe {
        if ffi::PyLong_Check(p) == 0 || ffi::PyBool_Check(p) != 0 {
            return None;
        }
        long_value(p)
    }
}

/// The value of `p`, an `int` or an instance of an `int` subclass, when it
/// fits in i64: read in place when it is compact, else through the C API
/// (which calls no Python code for them).
///
/// # Safety
/// `p` is a live `int` (or subclass instance), and the GIL is held.
#[inline(always)]
unsafe fn long_value(p: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: the caller's contract.
    unsafe {
        if let Some(i) = compact_int(p) {
            return Some(i);
        }
        let mut overflow: std::os::raw::c_int = 0;
        let i = ffi::PyLong_AsLongLongAndOverflow(p, &mut overflow);
        (overflow == 0).then_some(i)
    }
}

/// The value of an `int` of at most two digits read from the object, when
/// the layout check passed; `None` for any other `int` (the caller asks the
/// C API). An instance of an `int` subclass starts as an `int` does (its
/// `__dict__`, if any, comes after the digits), so it is read the same way.
#[inline(always)]
unsafe fn compact_int(p: *mut ffi::PyObject) -> Option<i64> {
    if !layout_ok() {
        return None;
    }
    // SAFETY: `p` is an `int` or an instance of a subclass (the caller
    // checked), read per the layout below.
    unsafe { read_compact(p) }
}

/// CPython 3.11: `ob_size` is the signed digit count, the digits follow it.
#[cfg(not(Py_3_12))]
#[inline(always)]
unsafe fn read_compact(p: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: `p` is an `int`, a PyVarObject followed by its 30-bit digits
    // (in 32-bit words), of which there are `|ob_size|`.
    unsafe {
        let size = (*(p as *mut ffi::PyVarObject)).ob_size as i64;
        let digits = (p as *const u8).add(std::mem::size_of::<ffi::PyVarObject>()) as *const u32;
        // One digit or none (the usual case) first, with one comparison.
        if (size + 1) as u64 <= 2 {
            return Some(size * *digits as i64);
        }
        match size {
            2 => Some(magnitude(digits, 2)),
            -2 => Some(-magnitude(digits, 2)),
            _ => None,
        }
    }
}

/// CPython 3.12 on: a tag word (digit count << 3 | sign: 0 positive,
/// 1 zero, 2 negative), then the digits.
#[cfg(Py_3_12)]
#[inline(always)]
unsafe fn read_compact(p: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: `p` is an `int`, a PyObject followed by its tag and its
    // 30-bit digits (in 32-bit words), of which there are `tag >> 3`.
    unsafe {
        let base = (p as *const u8).add(std::mem::size_of::<ffi::PyObject>());
        let tag = *(base as *const usize);
        let n = tag >> 3;
        if n > 2 {
            return None;
        }
        let digits = base.add(std::mem::size_of::<usize>()) as *const u32;
        Some((1 - (tag & 3) as i64) * magnitude(digits, n))
    }
}

/// The value of `n` (0, 1 or 2) 30-bit digits, least significant first.
#[inline(always)]
unsafe fn magnitude(digits: *const u32, n: usize) -> i64 {
    // SAFETY: the caller passes the object's digit count.
    unsafe {
        match n {
            0 => 0,
            1 => *digits as i64,
            _ => *digits as i64 | (*digits.add(1) as i64) << 30,
        }
    }
}

/// Compares direct reads with the C API on values around every digit edge.
#[cold]
fn check_layout() -> bool {
    const TWO_DIGITS: u64 = 1 << 60;
    const SAMPLES: [i64; 14] = [
        0,
        1,
        -1,
        7,
        -12345,
        (1 << 30) - 1,
        1 << 30,
        -(1 << 30) - 5,
        1_764_000_000_123,
        (1 << 60) - 1,
        -((1 << 60) - 1),
        1 << 60,
        i64::MAX,
        i64::MIN,
    ];
    SAMPLES.iter().all(|&v| {
        // SAFETY: makes and frees an int while the GIL is held (the callers hold it).
        unsafe {
            let obj = ffi::PyLong_FromLongLong(v);
            if obj.is_null() {
                ffi::PyErr_Clear();
                return false;
            }
            let read = read_compact(obj);
            ffi::Py_DECREF(obj);
            // A read of up to two digits must give the value; a wider one must decline.
            match read {
                Some(r) => r == v && v.unsigned_abs() < TWO_DIGITS,
                None => v.unsigned_abs() >= TWO_DIGITS,
            }
        }
    })
}
