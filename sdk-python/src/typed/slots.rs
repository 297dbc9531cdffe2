//! Object slots of the generated classes: offsets, reads, writes, allocation.

use super::*;

/// The byte offset of the object slot `attr` of `class` (a `__slots__` member).
pub(super) fn slot_offset(class: &Bound<'_, PyType>, attr: &str) -> PyResult<isize> {
    let descr = class.getattr(attr)?;
    // SAFETY: the type check guarantees `descr` is a PyMemberDescrObject, whose
    // `d_member` points at the member definition of the slot.
    unsafe {
        let ty = ffi::Py_TYPE(descr.as_ptr());
        if ty != std::ptr::addr_of_mut!(ffi::PyMemberDescr_Type) {
            return Err(PyTypeError::new_err(format!(
                "{}.{attr} must be a __slots__ attribute",
                class.name()?
            )));
        }
        let member = (*(descr.as_ptr() as *mut ffi::PyMemberDescrObject)).d_member;
        if member.is_null()
            || (*member).type_code != ffi::Py_T_OBJECT_EX
            || ((*member).flags & ffi::Py_READONLY) != 0
        {
            return Err(PyTypeError::new_err(format!(
                "{}.{attr} must be a writable object slot",
                class.name()?
            )));
        }
        Ok((*member).offset)
    }
}

/// Stores `value` (a new reference, consumed) into the slot at `offset` of `obj`.
///
/// # Safety
/// `offset` must come from [`slot_offset`] for `obj`'s class or a base of it.
#[inline]
pub(super) unsafe fn set_slot(obj: &Bound<'_, PyAny>, offset: isize, value: Bound<'_, PyAny>) {
    // SAFETY: per the contract, `offset` addresses a PyObject* slot inside `obj`.
    unsafe {
        let p = (obj.as_ptr() as *mut u8).offset(offset) as *mut *mut ffi::PyObject;
        let old = *p;
        *p = value.into_ptr();
        ffi::Py_XDECREF(old);
    }
}

/// The value in the slot at `offset` of `obj`, or `None` when it is unset,
/// as a borrowed reference, which the object holds while its slot is not
/// set again: for the encoder, during which no Python code runs (see
/// `encode::borrowed_items`).
///
/// # Safety
/// As for [`set_slot`], and the slot must not change while the result is used.
#[inline]
pub(super) unsafe fn get_slot_borrowed<'a, 'py>(
    obj: &'a Bound<'py, PyAny>,
    offset: isize,
) -> Option<pyo3::Borrowed<'a, 'py, PyAny>> {
    // SAFETY: per the contract; the slot holds a strong reference or NULL.
    unsafe {
        let p = (obj.as_ptr() as *mut u8).offset(offset) as *mut *mut ffi::PyObject;
        pyo3::Borrowed::from_ptr_or_opt(obj.py(), *p)
    }
}

/// A new instance of `class` with every slot empty (`__init__` is not called).
pub(super) fn alloc<'py>(py: Python<'py>, class: &Py<PyType>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: tp_alloc of a heap type allocates a zeroed, GC-tracked instance.
    unsafe {
        let tp = class.as_ptr() as *mut ffi::PyTypeObject;
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        Bound::from_owned_ptr_or_err(py, alloc(tp, 0))
    }
}

/// Whether the cyclic garbage collector tracks `v` (only containers that
/// could be part of a reference cycle are tracked).
#[inline]
pub(super) fn gc_tracked(v: &Bound<'_, PyAny>) -> bool {
    // SAFETY: any live object may be asked; non-GC types answer 0.
    unsafe { ffi::PyObject_GC_IsTracked(v.as_ptr()) == 1 }
}

/// Stops the cyclic garbage collector tracking `obj`, a freshly decoded
/// instance or list whose every reference is to an untracked object: it
/// cannot be part of a cycle as decoded (msgspec does the same for its
/// Structs), so collections need not visit it.
///
/// # Safety
/// `obj` must be a tracked object of a GC type (a generated class instance or
/// a list, as [`alloc`] and `PyList_New` return them).
#[inline]
pub(super) unsafe fn gc_untrack(obj: &Bound<'_, PyAny>) {
    // SAFETY: per the contract, `obj` is tracked, so untracking it once is valid.
    unsafe { ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) }
}
