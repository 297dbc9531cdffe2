//! Python buffers of numbers (`array.array`, NumPy arrays and scalars,
//! ctypes arrays, memoryviews) into a [`Builder`].
//!
//! A 1-D buffer becomes a typed vector of its element type (a memoryview of
//! bytes a blob); a 0-D one (a NumPy scalar such as `np.int64(5)`, a 0-D
//! array) the scalar Python's own number would be: `dumps(np.int64(5)) ==
//! dumps(5)`. The element type comes from the buffer's struct format and is
//! checked against its item size; explicit byte orders (`<`, `>`, `!`, `=`)
//! are read as such, with standard sizes. Strided views are gathered.

use std::ffi::CStr;
use std::os::raw::c_long;

use flexbuf::{Builder, Scalar};
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;

use crate::encode::EncodeFail;

/// The kind of number one item of a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Item {
    /// A signed integer of this many bytes.
    Int(usize),
    /// An unsigned integer of this many bytes.
    UInt(usize),
    /// An IEEE half (`e`), widened to `f32`.
    Half,
    Float,
    Double,
    Bool,
}

impl Item {
    fn size(self) -> usize {
        match self {
            Item::Int(n) | Item::UInt(n) => n,
            Item::Half => 2,
            Item::Float => 4,
            Item::Double => 8,
            Item::Bool => 1,
        }
    }
}

/// The item kind of a struct `format` whose items are `itemsize` bytes, and
/// whether they are big-endian; `None` for any other format, or when the
/// sizes disagree.
fn item_of(format: &str, itemsize: usize) -> Option<(Item, bool)> {
    let native_big = cfg!(target_endian = "big");
    // Native order and sizes by default; an explicit order means standard sizes.
    let (native, big, code) = match format.as_bytes().first() {
        Some(b'@') => (true, native_big, &format[1..]),
        Some(b'=') => (false, native_big, &format[1..]),
        Some(b'<') => (false, false, &format[1..]),
        Some(b'>' | b'!') => (false, true, &format[1..]),
        _ => (true, native_big, format),
    };
    let long = if native {
        std::mem::size_of::<c_long>()
    } else {
        4
    };
    let item = match code {
        "b" => Item::Int(1),
        "B" => Item::UInt(1),
        "?" => Item::Bool,
        "h" => Item::Int(2),
        "H" => Item::UInt(2),
        "i" => Item::Int(4),
        "I" => Item::UInt(4),
        "l" => Item::Int(long),
        "L" => Item::UInt(long),
        "q" => Item::Int(8),
        "Q" => Item::UInt(8),
        "n" if native => Item::Int(std::mem::size_of::<isize>()),
        "N" if native => Item::UInt(std::mem::size_of::<usize>()),
        "e" => Item::Half,
        "f" => Item::Float,
        "d" => Item::Double,
        _ => return None,
    };
    (item.size() == itemsize).then_some((item, big))
}

/// The `n` (at most 8) bytes of an item as an unsigned integer.
fn bits(bytes: &[u8], big: bool) -> u64 {
    let mut v = 0u64;
    if big {
        for &x in bytes {
            v = v << 8 | x as u64;
        }
    } else {
        for &x in bytes.iter().rev() {
            v = v << 8 | x as u64;
        }
    }
    v
}

/// The signed integer of an `n`-byte item.
fn signed(bytes: &[u8], big: bool) -> i64 {
    let shift = 64 - 8 * bytes.len() as u32;
    ((bits(bytes, big) << shift) as i64) >> shift
}

/// An IEEE half as the `f32` of the same value (NaN payloads kept).
pub(crate) fn half_to_f32(h: u16) -> f32 {
    let sign = (h as u32 & 0x8000) << 16;
    let exp = (h as u32 >> 10) & 0x1f;
    let frac = h as u32 & 0x3ff;
    match exp {
        // Zero and subnormals: frac * 2^-24, exact in f32.
        0 => {
            let v = frac as f32 * f32::from_bits(0x3380_0000);
            f32::from_bits(v.to_bits() | sign)
        }
        0x1f => f32::from_bits(sign | 0x7f80_0000 | frac << 13),
        _ => f32::from_bits(sign | (exp + 112) << 23 | frac << 13),
    }
}

/// Writes `obj`'s buffer: `Ok(None)` when written, `Ok(Some(reason))` when
/// its contents cannot be encoded (nothing written: the caller hands `obj`
/// to `default`, or reports the reason).
pub fn write(b: &mut Builder, obj: &Bound<'_, PyAny>) -> Result<Option<String>, EncodeFail> {
    // SAFETY: `export` hands over a live view of that export.
    match export(obj, |view| unsafe { write_view(b, obj, view) }) {
        Ok(result) => result,
        Err(e) => Ok(Some(format!(
            "cannot read the buffer of {}: {e}",
            crate::encode::type_name(obj)
        ))),
    }
}

/// Runs `f` on `obj`'s buffer exported with `PyBUF_FORMAT | PyBUF_STRIDES`
/// (the export released after), or gives the exporter's error.
fn export<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&ffi::Py_buffer) -> R) -> PyResult<R> {
    // SAFETY: Py_buffer is plain data; PyObject_GetBuffer fills it or fails,
    // and PyBuffer_Release is called after success.
    unsafe {
        let mut view: ffi::Py_buffer = std::mem::zeroed();
        let flags = ffi::PyBUF_FORMAT | ffi::PyBUF_STRIDES;
        if ffi::PyObject_GetBuffer(obj.as_ptr(), &mut view, flags) != 0 {
            return Err(PyErr::fetch(obj.py()));
        }
        let result = f(&view);
        ffi::PyBuffer_Release(&mut view);
        Ok(result)
    }
}

/// Where the items of a view of at most one dimension lie.
struct Layout {
    /// The struct format (`B` when the exporter gives none).
    format: String,
    itemsize: usize,
    count: usize,
    /// Bytes from one item to the next (negative for a reversed view).
    stride: isize,
}

impl Layout {
    /// The layout of `view`, `obj`'s export, or why it has none: more than
    /// one dimension, or items of no bytes.
    ///
    /// # Safety
    ///
    /// `view` was filled by `PyObject_GetBuffer` with `PyBUF_FORMAT |
    /// PyBUF_STRIDES` and is not released yet.
    unsafe fn of(view: &ffi::Py_buffer, obj: &Bound<'_, PyAny>) -> Result<Layout, String> {
        if view.ndim > 1 {
            return Err(format!("cannot encode a {}-dimensional buffer", view.ndim));
        }
        let format = if view.format.is_null() {
            "B".to_string()
        } else {
            // SAFETY: a NUL-terminated string of the live view.
            unsafe { CStr::from_ptr(view.format) }
                .to_string_lossy()
                .into_owned()
        };
        let itemsize = view.itemsize.max(0) as usize;
        if itemsize == 0 {
            return Err(format!(
                "cannot encode a buffer of empty items from {}",
                crate::encode::type_name(obj)
            ));
        }
        // Exporters may leave the shape (PyBUF_STRIDES implies PyBUF_ND,
        // but some ignore it) and the strides (ctypes always does:
        // contiguous) unset.
        let count = if view.ndim == 0 {
            1
        } else if view.shape.is_null() {
            view.len.max(0) as usize / itemsize
        } else {
            // SAFETY: a 1-D view's one extent.
            unsafe { (*view.shape).max(0) as usize }
        };
        let stride = if view.ndim == 0 || view.strides.is_null() {
            itemsize as isize
        } else {
            // SAFETY: a 1-D view's one stride.
            unsafe { *view.strides }
        };
        Ok(Layout {
            format,
            itemsize,
            count,
            stride,
        })
    }

    /// The format's item code, without its byte-order prefix.
    fn code(&self) -> &str {
        self.format.trim_start_matches(['@', '=', '<', '>', '!'])
    }

    /// The kind of number each item of `obj`'s export is, and whether the
    /// items are big-endian; or why they are no numbers.
    fn numeric(&self, obj: &Bound<'_, PyAny>) -> Result<(Item, bool), String> {
        if self.code() == "B" {
            // NumPy exports some values that are no numbers as raw bytes (a
            // `datetime64` scalar is a buffer of 8 `B`): its dtype says what
            // they are. (Other formats say so themselves.)
            if let Some(reason) = non_numeric_dtype(obj) {
                return Err(reason);
            }
        }
        item_of(&self.format, self.itemsize).ok_or_else(|| {
            format!(
                "cannot encode a buffer of format {:?} from {}",
                self.format,
                crate::encode::type_name(obj)
            )
        })
    }

    /// The bytes of item `i` (`< count`).
    ///
    /// # Safety
    ///
    /// `view` is the live view this layout was read from.
    unsafe fn item<'v>(&self, view: &'v ffi::Py_buffer, i: usize) -> &'v [u8] {
        // SAFETY: item `i < count` lies at `buf + i * stride` within the export.
        unsafe {
            std::slice::from_raw_parts(
                (view.buf as *const u8).offset(i as isize * self.stride),
                self.itemsize,
            )
        }
    }
}

/// [`write`] of the exported `view` of `obj`.
///
/// # Safety
///
/// `view` was filled by `PyObject_GetBuffer` with `PyBUF_FORMAT |
/// PyBUF_STRIDES` and is not released yet.
unsafe fn write_view(
    b: &mut Builder,
    obj: &Bound<'_, PyAny>,
    view: &ffi::Py_buffer,
) -> Result<Option<String>, EncodeFail> {
    // SAFETY: the caller's contract.
    let layout = match unsafe { Layout::of(view, obj) } {
        Ok(layout) => layout,
        Err(reason) => return Ok(Some(reason)),
    };
    let (itemsize, count, stride) = (layout.itemsize, layout.count, layout.stride);
    // SAFETY: the caller's contract.
    let item = |i: usize| unsafe { layout.item(view, i) };
    // SAFETY: a type check on a live object.
    let is_memoryview = unsafe { ffi::PyMemoryView_Check(obj.as_ptr()) } != 0;
    let code = layout.code();
    if is_memoryview && view.ndim == 1 && itemsize == 1 && (code == "B" || code == "c") {
        if stride == 1 {
            // SAFETY: a contiguous export of `count` bytes.
            b.blob(unsafe { std::slice::from_raw_parts(view.buf as *const u8, count) });
        } else {
            let bytes: Vec<u8> = (0..count).map(|i| item(i)[0]).collect();
            b.blob(&bytes);
        }
        return Ok(None);
    }
    let (kind, big) = match layout.numeric(obj) {
        Ok(kind) => kind,
        Err(reason) => return Ok(Some(reason)),
    };
    if view.ndim == 0 {
        match Number::of(kind, item(0), big) {
            // As a Python int: an int while it fits i64, a uint beyond.
            Number::Int(i) => match i64::try_from(i) {
                Ok(v) => b.int(v),
                Err(_) => b.uint(i as u64),
            },
            Number::Float(f) => b.double(f),
            Number::Bool(x) => b.bool(x),
        }
        return Ok(None);
    }
    // Converted item by item in the items' own byte order: straight from
    // the export's bytes when the items lie one after another (the usual
    // array, where this compiles to plain loads), else each at its stride.
    let contiguous = stride == itemsize as isize;
    macro_rules! items {
        ($t:ty, $n:literal) => {{
            let conv: fn([u8; $n]) -> $t = if big {
                <$t>::from_be_bytes
            } else {
                <$t>::from_le_bytes
            };
            let one = |x: &[u8]| {
                conv(
                    x.try_into()
                        .expect("each item has the size item_of checked"),
                )
            };
            if contiguous {
                // SAFETY: `count` items of `$n` bytes, one after another.
                let bytes =
                    unsafe { std::slice::from_raw_parts(view.buf as *const u8, count * $n) };
                bytes.chunks_exact($n).map(one).collect::<Vec<$t>>()
            } else {
                (0..count).map(|i| one(item(i))).collect::<Vec<$t>>()
            }
        }};
    }
    match kind {
        Item::Int(1) => vector(b, items!(i8, 1))?,
        Item::Int(2) => vector(b, items!(i16, 2))?,
        Item::Int(4) => vector(b, items!(i32, 4))?,
        Item::Int(_) => vector(b, items!(i64, 8))?,
        Item::UInt(1) => vector(b, items!(u8, 1))?,
        Item::UInt(2) => vector(b, items!(u16, 2))?,
        Item::UInt(4) => vector(b, items!(u32, 4))?,
        Item::UInt(_) => vector(b, items!(u64, 8))?,
        Item::Half => {
            let halves = items!(u16, 2);
            vector(b, halves.into_iter().map(half_to_f32).collect())?
        }
        Item::Float => vector(b, items!(f32, 4))?,
        Item::Double => vector(b, items!(f64, 8))?,
        Item::Bool => {
            let bytes = items!(u8, 1);
            vector(b, bytes.into_iter().map(|x| x != 0).collect())?
        }
    }
    Ok(None)
}

/// One number read from a buffer ([`numbers`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
    Bool(bool),
}

impl Number {
    /// Item `x` of kind `kind` (`big`: its bytes are big-endian).
    fn of(kind: Item, x: &[u8], big: bool) -> Number {
        match kind {
            Item::Int(_) => Number::Int(signed(x, big).into()),
            Item::UInt(_) => Number::Int(bits(x, big).into()),
            Item::Half => Number::Float(half_to_f32(bits(x, big) as u16).into()),
            Item::Float => Number::Float(f32::from_bits(bits(x, big) as u32).into()),
            Item::Double => Number::Float(f64::from_bits(bits(x, big))),
            Item::Bool => Number::Bool(x[0] != 0),
        }
    }
}

/// The numbers of `obj` when it is a buffer of numbers of at most one
/// dimension (a NumPy scalar or array, an `array.array`, a ctypes number or
/// array), with whether it is a single number (0-D); `None` for any other
/// object, nothing raised. For the generated classes' numeric fields.
pub fn numbers(obj: &Bound<'_, PyAny>) -> Option<(Vec<Number>, bool)> {
    // SAFETY: a type check on a live object.
    if unsafe { ffi::PyObject_CheckBuffer(obj.as_ptr()) } == 0 {
        return None;
    }
    export(obj, |view| {
        // SAFETY: `export` hands over a live view of that export.
        let layout = unsafe { Layout::of(view, obj) }.ok()?;
        let (kind, big) = layout.numeric(obj).ok()?;
        let values = (0..layout.count)
            // SAFETY: as above.
            .map(|i| Number::of(kind, unsafe { layout.item(view, i) }, big))
            .collect();
        Some((values, view.ndim == 0))
    })
    .ok()
    .flatten()
}

/// Why `obj`, a NumPy array or scalar whose dtype is not a number or a
/// bool, cannot be encoded; `None` for anything else.
fn non_numeric_dtype(obj: &Bound<'_, PyAny>) -> Option<String> {
    let py = obj.py();
    let dtype = obj.getattr(intern!(py, "dtype")).ok()?;
    let kind: char = dtype.getattr(intern!(py, "kind")).ok()?.extract().ok()?;
    (!matches!(kind, 'i' | 'u' | 'f' | 'b')).then(|| {
        format!(
            "cannot encode a NumPy value of dtype {} (kind {kind:?})",
            dtype.str().map(|s| s.to_string()).unwrap_or_default()
        )
    })
}

/// The values as a typed vector at their natural width (widened when their
/// count does not fit that width).
fn vector<T: Scalar>(b: &mut Builder, values: Vec<T>) -> Result<(), EncodeFail> {
    if flexbuf::BitWidth::of_u64(values.len() as u64) > T::NATURAL {
        // The length does not fit the natural width (e.g. 300 bytes): widen.
        b.typed_vector(&values);
    } else {
        b.scalar_vector(&values)?;
    }
    Ok(())
}
