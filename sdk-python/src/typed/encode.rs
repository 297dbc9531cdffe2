//! Encoding generated objects into a buffer, natively.

use super::*;
use crate::buffers::Number;
use crate::key_memo::KeyMemo;
use flexbuf::KeyVector;
use std::sync::atomic::{AtomicBool, Ordering};

/// A builder and the keys vectors written into its current buffer, reused
/// from one `encode` call to the next on a thread.
pub(super) struct TypedEncodeState(
    pub(super) Builder,
    pub(super) EncodeContext,
    pub(super) Vec<MapEntry>,
    pub(super) Vec<Option<KeyVector>>,
    pub(super) KeyMemo,
);

impl TypedEncodeState {
    pub(super) fn new() -> TypedEncodeState {
        TypedEncodeState(
            // The typed options keep a large buffer's memory for the next
            // call: the 1.6 MB of an access log of 10,000 hits, let go and
            // grown again by doubling on every call, made its encode 1.3x
            // slower when other work ran in between (its memory was then
            // faulted in anew).
            Builder::with_options(typed_builder_options()),
            EncodeContext::default(),
            Vec::new(),
            Vec::new(),
            KeyMemo::default(),
        )
    }
}

/// An entry of a `{string: T}` field's dict: its key (the object, and its
/// UTF-8's address and length) and its value, all borrowed from the dict
/// while it is written (no Python code runs meanwhile; see
/// `borrowed_items`). The entries of every dict being written share one
/// stack, kept from call to call.
#[derive(Clone, Copy)]
pub(super) struct MapEntry {
    /// The key's first eight bytes, big-endian, zero-padded
    /// ([`flexbuf::raw::key_word`]): entries whose prefixes differ are in
    /// the order of their keys' bytes, so most comparisons of a sort need
    /// not read the keys.
    prefix: u64,
    key: *const u8,
    len: usize,
    obj: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
}

impl MapEntry {
    /// The key's UTF-8.
    ///
    /// # Safety
    /// The entry's dict still holds the key (see the type's note).
    #[inline(always)]
    unsafe fn key(&self) -> &[u8] {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(self.key, self.len) }
    }

    /// Whether this entry's key sorts before `other`'s (unsigned bytes, as
    /// a map's keys are stored): by the prefixes, and by the whole keys
    /// only when the prefixes tie (zero padding ties a key with its own
    /// extension by NULs, which the whole keys then tell apart).
    ///
    /// # Safety
    /// As for [`key`](Self::key), for both entries.
    #[inline(always)]
    unsafe fn cmp_key(&self, other: &MapEntry) -> std::cmp::Ordering {
        match self.prefix.cmp(&other.prefix) {
            std::cmp::Ordering::Equal => unsafe { self.key().cmp(other.key()) },
            o => o,
        }
    }
}

thread_local! {
    pub(super) static TYPED_ENCODE: RefCell<TypedEncodeState> = RefCell::new(TypedEncodeState::new());
}

pub(super) struct Encoder<'s, 'b, 'py> {
    pub(super) py: Python<'py>,
    pub(super) s: &'s CompiledSchema,
    pub(super) b: &'b mut Builder,
    pub(super) cx: &'b mut EncodeContext,
    pub(super) entries: &'b mut Vec<MapEntry>,
    /// The keys vector of each message type written in this buffer, by
    /// index (`None` before its first message): read from here, a keys
    /// vector is copied from memory written long before, where the
    /// context's lookup returned it through a `Result` that the compiler
    /// moved in pieces a later load straddled (a store-forwarding stall on
    /// every message).
    pub(super) key_vectors: &'b mut Vec<Option<KeyVector>>,
    /// The keys of `{string: T}` fields written in this buffer, by key
    /// object: on from the second non-empty dict of an encode (see
    /// [`dict`](Self::dict)). Its state lives behind this reference, not
    /// in the encoder: a flag of the encoder's own that `dict` wrote made
    /// the compiler reload the encoder's fields after every value a
    /// message wrote (api_response's typed encode took 4% more
    /// instructions, with no dict in it).
    pub(super) keys: &'b mut KeyMemo,
}

pub(super) fn type_fail(expected: &str, got: &Bound<'_, PyAny>) -> EncodeFail {
    EncodeFail::new(
        Class::EncodeType,
        format!("expected {expected}, got {}", type_name(got)),
    )
}

/// An exact `int` that fits in i64: the common case.
#[inline(always)]
fn exact_i64(v: &Bound<'_, PyAny>) -> Option<i64> {
    // SAFETY: `v` is a live object and the GIL is held.
    unsafe { crate::pyint::exact_i64(v.as_ptr()) }
}

/// An `int` (not a `bool`) as i128, for range checks against any field type.
pub(super) fn int_value(v: &Bound<'_, PyAny>, expected: &str) -> Result<i128, EncodeFail> {
    if let Some(i) = exact_i64(v) {
        return Ok(i.into());
    }
    // SAFETY: type checks on a live object.
    let is_int =
        unsafe { ffi::PyLong_Check(v.as_ptr()) != 0 && ffi::PyBool_Check(v.as_ptr()) == 0 };
    if !is_int {
        // A NumPy integer (`np.int64(5)`), or a ctypes one.
        return match buffer_scalar(v) {
            Some(Number::Int(i)) => Ok(i),
            _ => Err(type_fail(expected, v)),
        };
    }
    let mut overflow: std::os::raw::c_int = 0;
    // SAFETY: `v` is an int; the call reports a value beyond i64 through
    // `overflow` instead of raising.
    let i = unsafe { ffi::PyLong_AsLongLongAndOverflow(v.as_ptr(), &mut overflow) };
    if overflow == 0 {
        return Ok(i.into());
    }
    // Beyond i64 (rare): the exact value, or an overflow beyond i128.
    v.extract::<i128>().map_err(|_| {
        EncodeFail::new(
            Class::EncodeOverflow,
            format!("{} does not fit in {expected}", v),
        )
    })
}

/// A `float`, or an `int` (not a `bool`) converted exactly as `float(v)`
/// converts a plain `int` (an `int` subclass's own `__float__` is not called).
#[inline(always)]
pub(super) fn float_value(v: &Bound<'_, PyAny>) -> Result<f64, EncodeFail> {
    let p = v.as_ptr();
    // SAFETY: a type check and a read of a live object.
    unsafe {
        if ffi::PyFloat_CheckExact(p) != 0 {
            return Ok(ffi::PyFloat_AS_DOUBLE(p));
        }
    }
    float_value_other(v)
}

/// [`float_value`] for anything but an exact `float`.
fn float_value_other(v: &Bound<'_, PyAny>) -> Result<f64, EncodeFail> {
    // SAFETY: type checks and reads of a live object.
    unsafe {
        if ffi::PyFloat_Check(v.as_ptr()) != 0 {
            return Ok(ffi::PyFloat_AS_DOUBLE(v.as_ptr()));
        }
        if ffi::PyLong_Check(v.as_ptr()) != 0 && ffi::PyBool_Check(v.as_ptr()) == 0 {
            let f = ffi::PyLong_AsDouble(v.as_ptr());
            if f == -1.0 && !ffi::PyErr_Occurred().is_null() {
                // The only failure for an int: beyond the range of a float.
                drop(PyErr::fetch(v.py()));
                return Err(EncodeFail::new(
                    Class::EncodeOverflow,
                    "int too large to convert to a float".into(),
                ));
            }
            return Ok(f);
        }
    }
    // A NumPy number (`np.float32(1.5)`, `np.int64(2)`), or a ctypes one.
    match buffer_scalar(v) {
        Some(Number::Float(f)) => Ok(f),
        Some(Number::Int(i)) => Ok(i as f64),
        _ => Err(type_fail("float", v)),
    }
}

/// One element of a numeric list or array field: a Python object, or a
/// number read from a buffer ([`Number`]).
trait Element {
    /// The element as an integer of the field's type `name`.
    fn int<T: TryFrom<i64> + TryFrom<i128>>(&self, name: &str) -> Result<T, EncodeFail>;
    /// The element as a float.
    fn float(&self) -> Result<f64, EncodeFail>;
    /// The element as a bool.
    fn boolean(&self) -> Result<bool, EncodeFail>;
}

impl Element for pyo3::Borrowed<'_, '_, PyAny> {
    #[inline(always)]
    fn int<T: TryFrom<i64> + TryFrom<i128>>(&self, name: &str) -> Result<T, EncodeFail> {
        ranged::<T>(self, name)
    }
    #[inline(always)]
    fn float(&self) -> Result<f64, EncodeFail> {
        float_value(self)
    }
    #[inline(always)]
    fn boolean(&self) -> Result<bool, EncodeFail> {
        bool_value(self)
    }
}

impl Element for Number {
    fn int<T: TryFrom<i64> + TryFrom<i128>>(&self, name: &str) -> Result<T, EncodeFail> {
        match *self {
            Number::Int(i) => T::try_from(i).map_err(|_| does_not_fit(i, name)),
            other => Err(element_fail(name, other)),
        }
    }
    /// Integers are converted as `float(int)` converts them.
    fn float(&self) -> Result<f64, EncodeFail> {
        match *self {
            Number::Float(f) => Ok(f),
            Number::Int(i) => Ok(i as f64),
            other => Err(element_fail("float", other)),
        }
    }
    fn boolean(&self) -> Result<bool, EncodeFail> {
        match *self {
            Number::Bool(b) => Ok(b),
            other => Err(element_fail("bool", other)),
        }
    }
}

/// The number of `v` when it is a 0-D buffer of one (a NumPy scalar).
fn buffer_scalar(v: &Bound<'_, PyAny>) -> Option<Number> {
    match crate::buffers::numbers(v) {
        Some((n, true)) => n.first().copied(),
        _ => None,
    }
}

/// A `bool`, or a NumPy one (`np.bool_`).
fn bool_value(v: &Bound<'_, PyAny>) -> Result<bool, EncodeFail> {
    // SAFETY: a type check on a live object.
    if unsafe { ffi::PyBool_Check(v.as_ptr()) } != 0 {
        return Ok(v.as_ptr() == unsafe { ffi::Py_True() });
    }
    match buffer_scalar(v) {
        Some(Number::Bool(b)) => Ok(b),
        _ => Err(type_fail("bool", v)),
    }
}

/// An integer out of the range of the field's type `name`.
fn does_not_fit(i: i128, name: &str) -> EncodeFail {
    EncodeFail::new(Class::EncodeOverflow, format!("{i} does not fit in {name}"))
}

/// An array field of `len` elements given `got`.
fn length_fail(name: &str, len: usize, got: usize) -> EncodeFail {
    EncodeFail::new(
        Class::EncodeType,
        format!("expected {name} of {len} elements, got {got}"),
    )
}

/// A buffer element of the wrong kind for a field element of type `name`.
fn element_fail(name: &str, n: Number) -> EncodeFail {
    let kind = match n {
        Number::Int(_) => "an integer",
        Number::Float(_) => "a float",
        Number::Bool(_) => "a bool",
    };
    EncodeFail::new(
        Class::EncodeType,
        format!("expected {name}, got {kind} element of a buffer"),
    )
}

/// An `int` in the range of `T`.
#[inline(always)]
pub(super) fn ranged<T: TryFrom<i64> + TryFrom<i128>>(
    v: &Bound<'_, PyAny>,
    name: &str,
) -> Result<T, EncodeFail> {
    match exact_i64(v).and_then(|i| T::try_from(i).ok()) {
        Some(t) => Ok(t),
        None => ranged_slow(v, name),
    }
}

/// [`ranged`] for everything but an exact `int` in range: `int`
/// subclasses, values beyond i64, and the errors.
#[cold]
#[inline(never)]
fn ranged_slow<T: TryFrom<i128>>(v: &Bound<'_, PyAny>, name: &str) -> Result<T, EncodeFail> {
    let i = int_value(v, name)?;
    T::try_from(i).map_err(|_| does_not_fit(i, name))
}

/// Numeric lists and arrays of at most this many elements are converted
/// into a buffer on the stack (`Encoder::scalars`).
const STACK_SCALARS: usize = 16;

/// Lists of strings at least this long are written by `Encoder::string_items`
/// (shorter ones cost less element by element than gathering them).
const STR_ITEMS_MIN: usize = 4;

/// Whether `Encoder::string_items` is used (tests turn it off to compare).
static BULK_STRING_LISTS: AtomicBool = AtomicBool::new(true);

/// The capacity of this thread's builder for generated classes' `encode`
/// (its buffer), or `None` while an encode holds it; see
/// `flexbuf._native._typed_encode_capacity`.
pub(crate) fn typed_encode_capacity() -> Option<usize> {
    TYPED_ENCODE.with(|cell| cell.try_borrow().ok().map(|state| state.0.capacity()))
}

/// Sets (with `Some`) and returns whether `[string]` fields are written in
/// one pass; see `flexbuf._native._bulk_string_lists`.
pub(crate) fn bulk_string_lists(enabled: Option<bool>) -> bool {
    if let Some(on) = enabled {
        BULK_STRING_LISTS.store(on, Ordering::Relaxed);
    }
    BULK_STRING_LISTS.load(Ordering::Relaxed)
}

/// The items of a list or tuple as borrowed pointers, or `None` for any
/// other object.
///
/// The pointers stay valid while no Python code runs (nothing can then
/// change the sequence): the scalar conversions that read them call none.
fn borrowed_items<'a>(v: &'a Bound<'_, PyAny>) -> Option<&'a [*mut ffi::PyObject]> {
    let p = v.as_ptr();
    // SAFETY: exact layout reads of a live list or tuple, after type checks;
    // the slice borrows `v`, which keeps the sequence alive.
    unsafe {
        if ffi::PyList_Check(p) != 0 {
            let list = p as *mut ffi::PyListObject;
            let n = ffi::PyList_GET_SIZE(p) as usize;
            if n == 0 {
                return Some(&[]);
            }
            return Some(std::slice::from_raw_parts((*list).ob_item, n));
        }
        if ffi::PyTuple_Check(p) != 0 {
            let tuple = p as *mut ffi::PyTupleObject;
            let n = ffi::PyTuple_GET_SIZE(p) as usize;
            return Some(std::slice::from_raw_parts(
                std::ptr::addr_of!((*tuple).ob_item) as *const *mut ffi::PyObject,
                n,
            ));
        }
    }
    None
}

impl Encoder<'_, '_, '_> {
    fn message(&mut self, idx: usize, obj: &Bound<'_, PyAny>) -> Result<(), EncodeFail> {
        let s = self.s;
        let msg = &s.msgs[idx];
        // SAFETY: a type check on live objects.
        if unsafe {
            ffi::PyObject_TypeCheck(obj.as_ptr(), msg.class.as_ptr() as *mut ffi::PyTypeObject)
        } == 0
        {
            return Err(type_fail(&msg.short, obj));
        }
        let kv = match self.key_vectors.get(idx) {
            Some(Some(kv)) => *kv,
            _ => {
                let kv = self
                    .cx
                    .key_vector_runtime(self.b, idx as u64, &msg.layout)?;
                if let Some(slot) = self.key_vectors.get_mut(idx) {
                    *slot = Some(kv);
                }
                kv
            }
        };
        self.b.start_map();
        for f in &msg.fields {
            // SAFETY: `obj` is an instance of the class the offset was read
            // from; no Python code runs while the field is written.
            let v = unsafe { get_slot_borrowed(obj, f.offset) };
            let r = match v {
                None => Err(EncodeFail::new(
                    Class::EncodeType,
                    "field is not set".into(),
                )),
                Some(v) if v.is_none() => {
                    if f.optional {
                        self.b.null();
                        Ok(())
                    } else {
                        Err(EncodeFail::new(
                            Class::EncodeType,
                            format!("None for a field of type {}", f.ty.name(s)),
                        ))
                    }
                }
                Some(v) => self.item(&f.ty, &v, "a field"),
            };
            r.map_err(|e| e.at(PathSegment::Key(&f.attr)))?;
        }
        self.b.end_map_with_keys(&kv)?;
        Ok(())
    }

    /// `e`, a field's value, an element or a map value (`role`) of type
    /// `ty`: through [`exact_field`](Self::exact_field) when it writes it,
    /// else through [`inner`](Self::inner), which names `role` when `e` is
    /// `None`.
    #[inline(always)]
    fn item(&mut self, ty: &Ty, e: &Bound<'_, PyAny>, role: &str) -> Result<(), EncodeFail> {
        if self.exact_field(ty, e)? {
            return Ok(());
        }
        self.inner(ty, e, role)
    }

    /// Writes a value of type `string`, an integer type, `f32`, `f64` or
    /// `bool` when it is exactly that Python type (a `str`, an `int` in the
    /// type's range, a `float`, a `bool`), and a message: what
    /// [`value`](Self::value) writes for it, without its dispatch. False
    /// (nothing written) for anything else, `None` included, which
    /// `value`'s callers then write or refuse.
    #[inline(always)]
    fn exact_field(&mut self, ty: &Ty, v: &Bound<'_, PyAny>) -> Result<bool, EncodeFail> {
        let p = v.as_ptr();
        // SAFETY: type checks and reads of a live object.
        unsafe {
            match ty {
                Ty::Str if ffi::PyUnicode_CheckExact(p) != 0 => {
                    self.b.string(utf8(v)?);
                    Ok(true)
                }
                Ty::I64 if ffi::PyLong_CheckExact(p) != 0 => match crate::pyint::exact_i64(p) {
                    Some(i) => {
                        self.b.int(i);
                        Ok(true)
                    }
                    None => Ok(false),
                },
                // The narrower integers: an exact `int` in the field's
                // range, written as `value` writes it (signed types with
                // `int`, unsigned with `uint`); anything else, errors
                // included, goes to `value`.
                Ty::I8 | Ty::I16 | Ty::I32 | Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64
                    if ffi::PyLong_CheckExact(p) != 0 =>
                {
                    let Some((lo, hi)) = ty.int_range() else {
                        return Ok(false);
                    };
                    match crate::pyint::exact_i64(p) {
                        Some(i) if lo <= i && i <= hi => {
                            if lo < 0 {
                                self.b.int(i);
                            } else {
                                self.b.uint(i as u64);
                            }
                            Ok(true)
                        }
                        _ => Ok(false),
                    }
                }
                Ty::F64 if ffi::PyFloat_CheckExact(p) != 0 => {
                    self.b.double(ffi::PyFloat_AS_DOUBLE(p));
                    Ok(true)
                }
                Ty::F32 if ffi::PyFloat_CheckExact(p) != 0 => {
                    self.b.float(ffi::PyFloat_AS_DOUBLE(p) as f32);
                    Ok(true)
                }
                Ty::Bool if ffi::PyBool_Check(p) != 0 => {
                    self.b.bool(p == ffi::Py_True());
                    Ok(true)
                }
                // `None` goes to `value`'s callers, which name the role it
                // is missing in.
                Ty::Msg(i) if p != ffi::Py_None() => {
                    self.message(*i, v)?;
                    Ok(true)
                }
                _ => Ok(false),
            }
        }
    }

    /// Writes `items` as a typed (or, with `fixed`, a fixed typed) vector of
    /// `el`; false when `el` is not a scalar type (nothing written).
    fn typed_items<E: Element>(
        &mut self,
        el: &Ty,
        items: impl ExactSizeIterator<Item = E>,
        fixed: bool,
    ) -> Result<bool, EncodeFail> {
        match el {
            Ty::Bool => self.scalars(items, fixed, E::boolean)?,
            Ty::I8 => self.scalars(items, fixed, |e| e.int::<i8>("i8"))?,
            Ty::I16 => self.scalars(items, fixed, |e| e.int::<i16>("i16"))?,
            Ty::I32 => self.scalars(items, fixed, |e| e.int::<i32>("i32"))?,
            Ty::I64 => self.scalars(items, fixed, |e| e.int::<i64>("i64"))?,
            Ty::U8 => self.scalars(items, fixed, |e| e.int::<u8>("u8"))?,
            Ty::U16 => self.scalars(items, fixed, |e| e.int::<u16>("u16"))?,
            Ty::U32 => self.scalars(items, fixed, |e| e.int::<u32>("u32"))?,
            Ty::U64 => self.scalars(items, fixed, |e| e.int::<u64>("u64"))?,
            Ty::F32 => self.scalars(items, fixed, |e| Ok(e.float()? as f32))?,
            Ty::F64 => self.scalars(items, fixed, E::float)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn scalars<E, T: flexbuf::Scalar + Default>(
        &mut self,
        items: impl ExactSizeIterator<Item = E>,
        fixed: bool,
        conv: impl Fn(&E) -> Result<T, EncodeFail>,
    ) -> Result<(), EncodeFail> {
        if items.len() <= STACK_SCALARS {
            // Short lists and arrays (a point's coordinates, a few flags):
            // converted on the stack, where a `Vec` cost a heap
            // allocation and its release for each.
            let mut stack = [T::default(); STACK_SCALARS];
            let mut n = 0;
            for (slot, (i, e)) in stack.iter_mut().zip(items.enumerate()) {
                *slot = conv(&e).map_err(|f| f.at(PathSegment::Index(i)))?;
                n += 1;
            }
            return self.write_scalars(&stack[..n], fixed);
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, e) in items.enumerate() {
            out.push(conv(&e).map_err(|f| f.at(PathSegment::Index(i)))?);
        }
        self.write_scalars(&out, fixed)
    }

    /// Writes `values` as a typed vector, or with `fixed` a fixed one.
    #[inline(always)]
    fn write_scalars<T: flexbuf::Scalar>(
        &mut self,
        values: &[T],
        fixed: bool,
    ) -> Result<(), EncodeFail> {
        if fixed {
            self.b.fixed_vector(values)?;
        } else {
            self.b.typed_vector(values);
        }
        Ok(())
    }

    /// [`typed_items`](Self::typed_items) of the items of a list or tuple.
    fn scalar_items(
        &mut self,
        el: &Ty,
        items: &[*mut ffi::PyObject],
        fixed: bool,
    ) -> Result<bool, EncodeFail> {
        let py = self.py;
        // SAFETY: each is an item of a live sequence that no Python code
        // can change while the conversions run (see `borrowed_items`).
        let items = items
            .iter()
            .map(|&e| unsafe { pyo3::Borrowed::from_ptr(py, e) });
        self.typed_items(el, items, fixed)
    }

    /// Writes `items` as a `[string]` in one pass (the builder's
    /// `strings_field`: no value stack) when there are at least
    /// [`STR_ITEMS_MIN`] and every one is a `str` with UTF-8; false (nothing
    /// written) otherwise, and the element path then writes the list, or
    /// reports the item that is not a string as it always has.
    fn string_items(&mut self, items: &[*mut ffi::PyObject]) -> Result<bool, EncodeFail> {
        if items.len() < STR_ITEMS_MIN || !BULK_STRING_LISTS.load(Ordering::Relaxed) {
            return Ok(false);
        }
        // SAFETY: the items of a live sequence that no Python code can
        // change meanwhile (see `borrowed_items`).
        unsafe { push_str_items(self.b, self.py, items, false) }
    }

    /// A numeric list (`len` `None`) or array field of type `ty` given `v`,
    /// which is no list or tuple: a 1-D buffer of numbers (a NumPy array,
    /// an `array.array`) is written as its items; anything else is the
    /// field's type error.
    fn buffer_field(
        &mut self,
        ty: &Ty,
        el: &Ty,
        len: Option<usize>,
        fixed: bool,
        v: &Bound<'_, PyAny>,
    ) -> Result<(), EncodeFail> {
        if let Some((nums, false)) = crate::buffers::numbers(v) {
            if let Some(len) = len.filter(|&len| len != nums.len()) {
                return Err(length_fail(&ty.name(self.s), len, nums.len()));
            }
            if self.typed_items(el, nums.iter().copied(), fixed)? {
                return Ok(());
            }
        }
        Err(type_fail(&ty.name(self.s), v))
    }

    /// The dict of a `{string: el}` field, its entries gathered above
    /// `start` on the entry stack and written in key order.
    fn dict(&mut self, el: &Ty, d: &Bound<'_, PyDict>, start: usize) -> Result<(), EncodeFail> {
        // SAFETY: a size read of a live dict.
        if unsafe { ffi::PyDict_Size(d.as_ptr()) } == 0 {
            // The bytes of an empty map, in one call (many `{}` in records).
            self.b.empty_map()?;
            return Ok(());
        }
        // SAFETY: `d` is a live dict; its entries are borrowed from it, and
        // no Python code changes it while this runs (the table of an
        // all-`str` dict is read in place, any other through PyDict_Next).
        let mut table = unsafe { crate::encode::DictEntries::new(d.as_ptr()) };
        while let Some((kp, vp)) = unsafe { table.next() } {
            // SAFETY: live entries of the dict.
            let k = unsafe { pyo3::Borrowed::from_ptr(self.py, kp) };
            let key = map_key(&k)?.as_bytes();
            self.entries.push(MapEntry {
                prefix: flexbuf::raw::key_word(key),
                key: key.as_ptr(),
                len: key.len(),
                obj: kp,
                value: vp,
            });
        }
        // Key objects recur across the dicts of one encode (literal keys
        // are interned, parsers cache keys, records made by one piece of
        // code share them): from the second dict on, a key object met
        // before is pushed by the handle of its key, without the key
        // pool's hash and compare. Off for the first, which a lone dict
        // would pay for and never use.
        self.keys.dict_met();
        // The Rust coders iterate a BTreeMap: keys in byte order (often the
        // dict's own order already: a decoded dict's, a sorted one's).
        let entries = &mut self.entries[start..];
        // SAFETY (the comparisons): the dict holds every key (see above).
        if !entries.is_sorted_by(|a, b| unsafe { a.cmp_key(b) }.is_lt()) {
            entries.sort_unstable_by(|a, b| unsafe { a.cmp_key(b) });
        }
        self.b.start_map();
        for i in start..self.entries.len() {
            let entry = self.entries[i];
            // SAFETY: the bytes are a `str`'s UTF-8 (see above); the value
            // is borrowed from the dict.
            let (k, e) = unsafe {
                (
                    std::str::from_utf8_unchecked(entry.key()),
                    pyo3::Borrowed::from_ptr(self.py, entry.value),
                )
            };
            let memo = self.keys.active;
            match memo.then(|| self.keys.get(entry.obj as usize)).flatten() {
                Some(h) => {
                    self.b.reuse_value(*h);
                    self.keys.dict_hit();
                }
                None => {
                    self.b.key(k);
                    if memo {
                        self.keys.remember(entry.obj, self.b);
                        self.keys.dict_miss();
                    }
                }
            }
            self.item(el, &e, "a value")
                .map_err(|f| f.at(PathSegment::Key(k)))?;
        }
        self.b.end_map()?;
        Ok(())
    }

    /// `e`, `role` (an element or a value) of a vector or map of `el`,
    /// which may not be `None`.
    fn inner(&mut self, el: &Ty, e: &Bound<'_, PyAny>, role: &str) -> Result<(), EncodeFail> {
        if e.is_none() {
            return Err(EncodeFail::new(
                Class::EncodeType,
                format!("None for {role} of type {}", el.name(self.s)),
            ));
        }
        self.value(el, e)
    }

    pub(super) fn value(&mut self, ty: &Ty, v: &Bound<'_, PyAny>) -> Result<(), EncodeFail> {
        let s = self.s;
        match ty {
            Ty::Bool => self.b.bool(bool_value(v)?),
            Ty::I8 => self.b.int(ranged::<i8>(v, "i8")?.into()),
            Ty::I16 => self.b.int(ranged::<i16>(v, "i16")?.into()),
            Ty::I32 => self.b.int(ranged::<i32>(v, "i32")?.into()),
            Ty::I64 => self.b.int(ranged::<i64>(v, "i64")?),
            Ty::U8 => self.b.uint(ranged::<u8>(v, "u8")?.into()),
            Ty::U16 => self.b.uint(ranged::<u16>(v, "u16")?.into()),
            Ty::U32 => self.b.uint(ranged::<u32>(v, "u32")?.into()),
            Ty::U64 => self.b.uint(ranged::<u64>(v, "u64")?),
            Ty::F32 => self.b.float(float_value(v)? as f32),
            Ty::F64 => self.b.double(float_value(v)?),
            Ty::Str => {
                if !v.is_instance_of::<PyString>() {
                    return Err(type_fail("str", v));
                }
                self.b.string(utf8(v)?);
            }
            Ty::Bytes => {
                if let Ok(b) = v.cast::<PyBytes>() {
                    self.b.blob(b.as_bytes());
                } else if let Ok(b) = v.cast::<pyo3::types::PyByteArray>() {
                    self.b.blob(&b.to_vec());
                } else {
                    return Err(type_fail("bytes", v));
                }
            }
            Ty::Array { el, len, fixed } => {
                let Some(items) = borrowed_items(v) else {
                    return self.buffer_field(ty, el, Some(*len), *fixed, v);
                };
                if items.len() != *len {
                    return Err(length_fail(&ty.name(s), *len, items.len()));
                }
                self.scalar_items(el, items, *fixed)?;
            }
            Ty::Vec(el) => {
                let Some(items) = borrowed_items(v) else {
                    return self.buffer_field(ty, el, None, false, v);
                };
                if matches!(**el, Ty::Str) && self.string_items(items)? {
                    return Ok(());
                }
                if self.scalar_items(el, items, false)? {
                    return Ok(());
                }
                if items.is_empty() {
                    // The bytes of an empty untyped vector, in one call.
                    self.b.empty_vector()?;
                } else {
                    self.b.start_vector();
                    for (i, &e) in items.iter().enumerate() {
                        // SAFETY: an item of a live sequence that no Python
                        // code can change meanwhile (see `borrowed_items`).
                        let e = unsafe { pyo3::Borrowed::from_ptr(self.py, e) };
                        self.item(el, &e, "an element")
                            .map_err(|f| f.at(PathSegment::Index(i)))?;
                    }
                    self.b.end_vector()?;
                }
            }
            Ty::Map(el) => {
                let d = v.cast::<PyDict>().map_err(|_| type_fail(&ty.name(s), v))?;
                let start = self.entries.len();
                let r = self.dict(el, d, start);
                self.entries.truncate(start);
                r?;
            }
            Ty::Msg(i) => self.message(*i, v)?,
            Ty::Enum(i) => {
                let e = &s.enums[*i];
                // SAFETY: a type check and a read of a live object.
                let raw = match unsafe { crate::pyint::int_i64(v.as_ptr()) } {
                    // A member (an `int` subclass) or an `int`, read in place.
                    Some(r) => i128::from(r),
                    None => int_value(v, &e.short)?,
                };
                let raw = i64::try_from(raw)
                    .ok()
                    .filter(|r| e.members.contains(*r))
                    .ok_or_else(|| {
                        EncodeFail::new(
                            Class::Encode,
                            format!("{raw} is not a value of enum {}", e.short),
                        )
                    })?;
                self.b.int(raw);
            }
            Ty::Union(i) => {
                let u = &s.unions[*i];
                let variant = u.variants.iter().find(|x| {
                    // SAFETY: a type check on live objects.
                    unsafe {
                        ffi::PyObject_TypeCheck(
                            v.as_ptr(),
                            x.class.as_ptr() as *mut ffi::PyTypeObject,
                        ) != 0
                    }
                });
                let Some(variant) = variant else {
                    return Err(type_fail(&format!("a variant of union {}", u.short), v));
                };
                // SAFETY: `v` is an instance of the variant class the offset
                // was read from; no Python code runs while the payload is written.
                let payload = unsafe { get_slot_borrowed(v, variant.offset) }
                    .filter(|p| !p.is_none())
                    .ok_or_else(|| {
                        EncodeFail::new(Class::EncodeType, "union value is not set".into())
                    })?;
                self.b.start_map();
                self.b.key(&variant.wire);
                self.value(&variant.ty, &payload)?;
                self.b.end_map()?;
            }
        }
        Ok(())
    }
}
