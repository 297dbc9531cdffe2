//! The builder handle: `flexbuf_builder *`, an opaque pointer owned by the caller.
//!
//! Creation registers the pointer in a set of live builders so that freeing an
//! unknown or already freed pointer is reported, not performed. The other
//! builder calls trust the pointer (checking the set on every push would put a
//! global lock on the hottest path); using a builder after freeing it is
//! undefined behaviour, as with any freed C object.

use std::collections::BTreeSet;
use std::ffi::{c_char, c_void};
use std::sync::{Mutex, MutexGuard};

use flexbuf::{BitWidth, Builder, BuilderOptions, Scalar, ShareFlags, ValueHandle};

use crate::memory::{input, input_str, out, register, try_copy, zero, FlexbufBuffer};
use crate::status::{
    guard, Failure, FlexbufStatus, Outcome, FLEXBUF_ERR_BAD_HANDLE, FLEXBUF_ERR_BUILDER,
    FLEXBUF_ERR_INDEX,
};

/// A builder plus the values remembered with `flexbuf_builder_mark`.
#[derive(Debug)]
pub struct FlexbufBuilder {
    inner: Builder,
    marks: Vec<ValueHandle>,
    /// Set by finish, reset by clear. The core lets pushes after `finish`
    /// append to the finished bytes, so this layer refuses them.
    finished: bool,
}

static LIVE: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

fn live() -> MutexGuard<'static, BTreeSet<usize>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Element kind of a bulk vector (`flexbuf_elem` in C): the C array's element type.
pub type FlexbufElem = u32;
/// `int8_t`
pub const FLEXBUF_ELEM_I8: FlexbufElem = 1;
/// `int16_t`
pub const FLEXBUF_ELEM_I16: FlexbufElem = 2;
/// `int32_t`
pub const FLEXBUF_ELEM_I32: FlexbufElem = 3;
/// `int64_t`
pub const FLEXBUF_ELEM_I64: FlexbufElem = 4;
/// `uint8_t`
pub const FLEXBUF_ELEM_U8: FlexbufElem = 5;
/// `uint16_t`
pub const FLEXBUF_ELEM_U16: FlexbufElem = 6;
/// `uint32_t`
pub const FLEXBUF_ELEM_U32: FlexbufElem = 7;
/// `uint64_t`
pub const FLEXBUF_ELEM_U64: FlexbufElem = 8;
/// `float`
pub const FLEXBUF_ELEM_F32: FlexbufElem = 9;
/// `double`
pub const FLEXBUF_ELEM_F64: FlexbufElem = 10;
/// `bool` stored as one byte (any non-zero byte is true)
pub const FLEXBUF_ELEM_BOOL: FlexbufElem = 11;

/// How a bulk vector is written.
#[derive(Clone, Copy)]
enum Bulk {
    /// Typed vector at the smallest width holding every element (`Builder::typed_vector`).
    Typed,
    /// Typed vector at the element type's own width (C++ `Vector(const T*, len)`).
    Natural,
    /// Fixed typed vector of 2, 3 or 4 numbers (C++ `FixedTypedVector`).
    Fixed,
}

/// The builder behind `b`.
///
/// # Safety
/// `b` is NULL or a live pointer from `flexbuf_builder_new`, used by one thread at a time.
unsafe fn builder<'a>(b: *mut FlexbufBuilder) -> Outcome<&'a mut FlexbufBuilder> {
    b.as_mut().ok_or_else(|| Failure::null("builder"))
}

/// Runs `f` on the builder behind `b`, refusing if it is finished and not cleared.
///
/// # Safety
/// As [`builder`].
unsafe fn with(
    b: *mut FlexbufBuilder,
    f: impl FnOnce(&mut FlexbufBuilder) -> Outcome,
) -> FlexbufStatus {
    with_any(b, |b| {
        if b.finished {
            return Err(Failure::new(
                FLEXBUF_ERR_BUILDER,
                "builder already finished; call flexbuf_builder_clear to start a new buffer",
            ));
        }
        f(b)
    })
}

/// Runs `f` on the builder behind `b` in any state.
///
/// # Safety
/// As [`builder`].
unsafe fn with_any(
    b: *mut FlexbufBuilder,
    f: impl FnOnce(&mut FlexbufBuilder) -> Outcome,
) -> FlexbufStatus {
    guard(|| f(builder(b)?))
}

/// Creates a builder with the C++ sharing flags `share` (0..7; 1 = keys, the C++ default).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_new(
    share: u32,
    out_builder: *mut *mut FlexbufBuilder,
) -> FlexbufStatus {
    zero(out_builder, std::ptr::null_mut());
    guard(|| {
        let slot = out(out_builder, "out_builder")?;
        if share > 7 {
            return Err(Failure::invalid(format!(
                "sharing flags {share} are not in 0..7"
            )));
        }
        let b = Box::new(FlexbufBuilder {
            inner: Builder::with_options(BuilderOptions {
                share: ShareFlags::from_bits(share as u8),
                ..BuilderOptions::default()
            }),
            marks: Vec::new(),
            finished: false,
        });
        let ptr = Box::into_raw(b);
        live().insert(ptr as usize);
        *slot = ptr;
        Ok(())
    })
}

/// Frees a builder; NULL is a no-op, an unknown or freed pointer is `FLEXBUF_ERR_BAD_HANDLE`.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_free(b: *mut FlexbufBuilder) -> FlexbufStatus {
    guard(|| {
        if b.is_null() {
            return Ok(());
        }
        if !live().remove(&(b as usize)) {
            return Err(Failure::new(
                FLEXBUF_ERR_BAD_HANDLE,
                "builder pointer is unknown or already freed",
            ));
        }
        // SAFETY: the pointer was in the live set, so it came from Box::into_raw
        // in flexbuf_builder_new and has not been freed.
        drop(Box::from_raw(b));
        Ok(())
    })
}

/// Resets the builder for a new buffer (keeps its capacity; forgets marks).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_clear(b: *mut FlexbufBuilder) -> FlexbufStatus {
    with_any(b, |b| {
        b.inner.clear();
        b.marks.clear();
        b.finished = false;
        Ok(())
    })
}

/// Pushes null.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_null(b: *mut FlexbufBuilder) -> FlexbufStatus {
    with(b, |b| {
        b.inner.null();
        Ok(())
    })
}

/// Pushes a boolean.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_bool(
    b: *mut FlexbufBuilder,
    value: bool,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.bool(value);
        Ok(())
    })
}

/// Pushes a signed integer.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_int(b: *mut FlexbufBuilder, value: i64) -> FlexbufStatus {
    with(b, |b| {
        b.inner.int(value);
        Ok(())
    })
}

/// Pushes an unsigned integer.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_uint(b: *mut FlexbufBuilder, value: u64) -> FlexbufStatus {
    with(b, |b| {
        b.inner.uint(value);
        Ok(())
    })
}

/// Pushes a 32-bit float.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_float(
    b: *mut FlexbufBuilder,
    value: f32,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.float(value);
        Ok(())
    })
}

/// Pushes a 64-bit float (stored as f32 when exact, as C++ does).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_double(
    b: *mut FlexbufBuilder,
    value: f64,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.double(value);
        Ok(())
    })
}

/// Pushes a UTF-8 string.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_string(
    b: *mut FlexbufBuilder,
    text: *const c_char,
    len: usize,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.string(input_str(text, len, "text")?);
        Ok(())
    })
}

/// Pushes a map key (UTF-8, no NUL).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_key(
    b: *mut FlexbufBuilder,
    key: *const c_char,
    len: usize,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.key(input_str(key, len, "key")?);
        Ok(())
    })
}

/// Pushes a blob.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_blob(
    b: *mut FlexbufBuilder,
    data: *const u8,
    len: usize,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.blob(input(data, len, "data")?);
        Ok(())
    })
}

/// Pushes a signed integer behind an offset.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_indirect_int(
    b: *mut FlexbufBuilder,
    value: i64,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.indirect_int(value);
        Ok(())
    })
}

/// Pushes an unsigned integer behind an offset.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_indirect_uint(
    b: *mut FlexbufBuilder,
    value: u64,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.indirect_uint(value);
        Ok(())
    })
}

/// Pushes a 32-bit float behind an offset.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_indirect_float(
    b: *mut FlexbufBuilder,
    value: f32,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.indirect_float(value);
        Ok(())
    })
}

/// Pushes a 64-bit float behind an offset (as f32 when exact).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_indirect_double(
    b: *mut FlexbufBuilder,
    value: f64,
) -> FlexbufStatus {
    with(b, |b| {
        b.inner.indirect_double(value);
        Ok(())
    })
}

/// Starts a map.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_start_map(b: *mut FlexbufBuilder) -> FlexbufStatus {
    with(b, |b| {
        b.inner.start_map();
        Ok(())
    })
}

/// Ends the innermost map (keys are sorted here).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_end_map(b: *mut FlexbufBuilder) -> FlexbufStatus {
    with(b, |b| Ok(b.inner.end_map()?))
}

/// Starts a vector (untyped, typed or fixed, decided by the end call).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_start_vector(b: *mut FlexbufBuilder) -> FlexbufStatus {
    with(b, |b| {
        b.inner.start_vector();
        Ok(())
    })
}

/// Ends the innermost vector as an untyped vector.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_end_vector(b: *mut FlexbufBuilder) -> FlexbufStatus {
    with(b, |b| Ok(b.inner.end_vector()?))
}

/// Ends the innermost vector as a typed (`typed`) and/or fixed-length (`fixed`) vector.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_end_vector_as(
    b: *mut FlexbufBuilder,
    typed: bool,
    fixed: bool,
) -> FlexbufStatus {
    with(b, |b| Ok(b.inner.end_vector_as(typed, fixed)?))
}

/// Forces elements of later vectors and maps to at least `width` bytes (1, 2, 4 or 8).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_force_min_width(
    b: *mut FlexbufBuilder,
    width: u32,
) -> FlexbufStatus {
    with(b, |b| {
        let w = BitWidth::from_bytes(u64::from(width))
            .ok_or_else(|| Failure::invalid(format!("width {width} is not 1, 2, 4 or 8")))?;
        b.inner.force_min_width(w);
        Ok(())
    })
}

/// Remembers the last pushed value; `*slot` receives the number to pass to `flexbuf_builder_reuse`.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_mark(
    b: *mut FlexbufBuilder,
    slot: *mut usize,
) -> FlexbufStatus {
    zero(slot, 0);
    with(b, |b| {
        let slot = out(slot, "slot")?;
        let value = b
            .inner
            .last_value()
            .ok_or_else(|| Failure::new(FLEXBUF_ERR_BUILDER, "mark: no value pushed yet"))?;
        b.marks
            .try_reserve(1)
            .map_err(|_| Failure::alloc(std::mem::size_of::<ValueHandle>()))?;
        b.marks.push(value);
        *slot = b.marks.len() - 1;
        Ok(())
    })
}

/// Pushes a marked value again (offset values then share their bytes).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_reuse(
    b: *mut FlexbufBuilder,
    slot: usize,
) -> FlexbufStatus {
    with(b, |b| {
        let value = *b.marks.get(slot).ok_or_else(|| {
            Failure::new(
                FLEXBUF_ERR_INDEX,
                format!(
                    "reuse: slot {slot} is not marked (marks: {})",
                    b.marks.len()
                ),
            )
        })?;
        b.inner.reuse_value(value);
        Ok(())
    })
}

/// `count` elements of `T` at `values`, checked for NULL and alignment.
unsafe fn elements<'a, T>(values: *const c_void, count: usize) -> Outcome<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if values.is_null() {
        return Err(Failure::null("values"));
    }
    if values.align_offset(std::mem::align_of::<T>()) != 0 {
        return Err(Failure::invalid(
            "values are not aligned for their element type",
        ));
    }
    let bytes = count
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Failure::invalid(format!("{count} elements exceed the address space")))?;
    input(values.cast(), bytes, "values")?;
    Ok(std::slice::from_raw_parts(values.cast(), count))
}

fn push_bulk<T: Scalar>(b: &mut Builder, values: &[T], how: Bulk) -> Outcome {
    match how {
        Bulk::Typed => b.typed_vector(values),
        Bulk::Natural => b.scalar_vector(values)?,
        Bulk::Fixed => b.fixed_vector(values)?,
    }
    Ok(())
}

unsafe fn bulk(
    b: *mut FlexbufBuilder,
    elem: FlexbufElem,
    values: *const c_void,
    count: usize,
    how: Bulk,
) -> FlexbufStatus {
    with(b, |b| {
        let inner = &mut b.inner;
        match elem {
            FLEXBUF_ELEM_I8 => push_bulk(inner, elements::<i8>(values, count)?, how),
            FLEXBUF_ELEM_I16 => push_bulk(inner, elements::<i16>(values, count)?, how),
            FLEXBUF_ELEM_I32 => push_bulk(inner, elements::<i32>(values, count)?, how),
            FLEXBUF_ELEM_I64 => push_bulk(inner, elements::<i64>(values, count)?, how),
            FLEXBUF_ELEM_U8 => push_bulk(inner, elements::<u8>(values, count)?, how),
            FLEXBUF_ELEM_U16 => push_bulk(inner, elements::<u16>(values, count)?, how),
            FLEXBUF_ELEM_U32 => push_bulk(inner, elements::<u32>(values, count)?, how),
            FLEXBUF_ELEM_U64 => push_bulk(inner, elements::<u64>(values, count)?, how),
            FLEXBUF_ELEM_F32 => push_bulk(inner, elements::<f32>(values, count)?, how),
            FLEXBUF_ELEM_F64 => push_bulk(inner, elements::<f64>(values, count)?, how),
            FLEXBUF_ELEM_BOOL => {
                // C bools arrive as bytes; any byte pattern other than 0/1 would
                // be an invalid Rust bool, so convert instead of reinterpreting.
                let bytes = elements::<u8>(values, count)?;
                let mut bools = Vec::new();
                bools
                    .try_reserve_exact(bytes.len())
                    .map_err(|_| Failure::alloc(bytes.len()))?;
                bools.extend(bytes.iter().map(|&x| x != 0));
                push_bulk(inner, &bools, how)
            }
            other => Err(Failure::invalid(format!("unknown element kind {other}"))),
        }
    })
}

/// Pushes a typed vector of `count` elements at the smallest width that holds them all.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_typed_vector(
    b: *mut FlexbufBuilder,
    elem: FlexbufElem,
    values: *const c_void,
    count: usize,
) -> FlexbufStatus {
    bulk(b, elem, values, count, Bulk::Typed)
}

/// Pushes a typed vector at the element type's own width (C++ `Vector(const T *, size_t)`).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_scalar_vector(
    b: *mut FlexbufBuilder,
    elem: FlexbufElem,
    values: *const c_void,
    count: usize,
) -> FlexbufStatus {
    bulk(b, elem, values, count, Bulk::Natural)
}

/// Pushes a fixed typed vector of 2, 3 or 4 numbers (C++ `FixedTypedVector`).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_fixed_vector(
    b: *mut FlexbufBuilder,
    elem: FlexbufElem,
    values: *const c_void,
    count: usize,
) -> FlexbufStatus {
    bulk(b, elem, values, count, Bulk::Fixed)
}

/// Pushes a typed vector of `int64_t` at the smallest width.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_vector_int64(
    b: *mut FlexbufBuilder,
    values: *const i64,
    count: usize,
) -> FlexbufStatus {
    bulk(b, FLEXBUF_ELEM_I64, values.cast(), count, Bulk::Typed)
}

/// Pushes a typed vector of `uint64_t` at the smallest width.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_vector_uint64(
    b: *mut FlexbufBuilder,
    values: *const u64,
    count: usize,
) -> FlexbufStatus {
    bulk(b, FLEXBUF_ELEM_U64, values.cast(), count, Bulk::Typed)
}

/// Pushes a typed vector of `double` at the smallest width.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_vector_double(
    b: *mut FlexbufBuilder,
    values: *const f64,
    count: usize,
) -> FlexbufStatus {
    bulk(b, FLEXBUF_ELEM_F64, values.cast(), count, Bulk::Typed)
}

/// Finishes the buffer and copies it into an owned result.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_builder_finish(
    b: *mut FlexbufBuilder,
    result: *mut FlexbufBuffer,
) -> FlexbufStatus {
    zero(result, FlexbufBuffer::ZERO);
    with_any(b, |b| {
        let result = out(result, "result")?;
        // A second finish before clear returns the same bytes again (so a
        // caller can retry after FLEXBUF_ERR_ALLOC).
        if !b.finished {
            b.inner.finish()?;
            b.finished = true;
        }
        let bytes = b.inner.finished_bytes().unwrap_or_default();
        let copy = try_copy(bytes, 0)?;
        let len = copy.len();
        *result = register(copy, len);
        Ok(())
    })
}
