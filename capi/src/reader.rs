//! Reading verified bytes: `flexbuf_ref`, a plain C value naming one value
//! inside the caller's buffer.
//!
//! A ref holds the caller's pointer and length and the path of element
//! indices from the root (map values count in key order). It holds no pointer
//! into library memory, so refs can be copied, stored and dropped freely; they
//! stay usable while the caller's bytes live unchanged. Each call re-walks the
//! path with the core's checked reader, so even a ref edited by hand can only
//! produce an error, never an out-of-bounds read.
//!
//! The core has no public constructor for a reader at a known position (see
//! the report in the crate docs), hence the path instead of (offset, width,
//! type): walking it costs one bounds-checked step per level.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use flexbuf::{FlexType, Reader};

use crate::memory::{input, input_str, out, zero, FlexbufBytes};
use crate::status::{guard, Failure, FlexbufStatus, Outcome, FLEXBUF_ERR_RANGE, FLEXBUF_ERR_TYPE};

/// Deepest path a ref can hold: the verifier's default nesting limit.
pub const FLEXBUF_MAX_DEPTH: usize = 64;

/// A value inside a verified buffer (`flexbuf_ref` in C).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlexbufRef {
    /// The caller's buffer (borrowed).
    pub buf: *const u8,
    /// Its length.
    pub len: usize,
    /// The value's type code (`FLEXBUF_TYPE_*`), for convenience.
    pub type_: u32,
    /// Number of valid entries in `path`.
    pub depth: u32,
    /// Element index at each level below the root.
    pub path: [u32; FLEXBUF_MAX_DEPTH],
}

const _: () = assert!(std::mem::size_of::<FlexbufRef>() == 280);

impl FlexbufRef {
    /// The zeroed state.
    pub const ZERO: FlexbufRef = FlexbufRef {
        buf: std::ptr::null(),
        len: 0,
        type_: 0,
        depth: 0,
        path: [0; FLEXBUF_MAX_DEPTH],
    };
}

/// The value a ref names, read with the core's checked reader.
///
/// # Safety
/// `r.buf` points to `r.len` readable bytes that live for `'a`.
unsafe fn resolve<'a>(r: &FlexbufRef) -> Outcome<Reader<'a>> {
    if r.buf.is_null() {
        return Err(Failure::invalid(
            "ref is zeroed (the output of a failed call), not a value",
        ));
    }
    let depth = r.depth as usize;
    if depth > FLEXBUF_MAX_DEPTH {
        return Err(Failure::invalid(format!(
            "ref depth {depth} is above {FLEXBUF_MAX_DEPTH}"
        )));
    }
    let buf = input(r.buf, r.len, "ref buffer")?;
    let mut cur = Reader::new(buf)?;
    for &i in &r.path[..depth] {
        cur = element(&cur, i as usize)?;
    }
    Ok(cur)
}

/// Element `i` of a vector, or value `i` of a map.
fn element<'a>(r: &Reader<'a>, i: usize) -> Outcome<Reader<'a>> {
    Ok(if r.flex_type() == FlexType::Map {
        r.as_map()?.value(i)?
    } else {
        r.as_vector()?.get(i)?
    })
}

/// The ref of `child`, element `i` of the value `parent` names.
fn child_ref(parent: &FlexbufRef, i: usize, child: &Reader<'_>) -> Outcome<FlexbufRef> {
    let depth = parent.depth as usize;
    if depth >= FLEXBUF_MAX_DEPTH {
        return Err(Failure::new(
            FLEXBUF_ERR_RANGE,
            format!("values deeper than {FLEXBUF_MAX_DEPTH} levels cannot be referenced"),
        ));
    }
    let index = u32::try_from(i).map_err(|_| {
        Failure::new(
            FLEXBUF_ERR_RANGE,
            format!("index {i} does not fit a ref (max 2^32-1)"),
        )
    })?;
    let mut r = *parent;
    r.path[depth] = index;
    r.depth += 1;
    r.type_ = child.flex_type() as u32;
    Ok(r)
}

/// Runs `f` on the value `r` names.
///
/// # Safety
/// `r` is NULL or points to a ref whose buffer is alive.
unsafe fn with_ref(
    r: *const FlexbufRef,
    f: impl FnOnce(&FlexbufRef, Reader<'_>) -> Outcome,
) -> FlexbufStatus {
    guard(|| {
        let r = r.as_ref().ok_or_else(|| Failure::null("ref"))?;
        f(r, resolve(r)?)
    })
}

/// [`with_ref`] on a copy taken before the outputs were zeroed, for calls
/// whose output may alias their input ref.
///
/// # Safety
/// The ref's buffer is alive.
unsafe fn with_copy(
    r: Option<FlexbufRef>,
    f: impl FnOnce(&FlexbufRef, Reader<'_>) -> Outcome,
) -> FlexbufStatus {
    guard(|| {
        let r = r.ok_or_else(|| Failure::null("ref"))?;
        f(&r, resolve(&r)?)
    })
}

/// Verifies `data` (bounds, widths, types, UTF-8, key order, depth, cycles).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_verify(data: *const u8, len: usize) -> FlexbufStatus {
    guard(|| {
        flexbuf::verify(input(data, len, "data")?)?;
        Ok(())
    })
}

/// Verifies `data` and sets `*root` to its root value.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_root(
    data: *const u8,
    len: usize,
    root: *mut FlexbufRef,
) -> FlexbufStatus {
    zero(root, FlexbufRef::ZERO);
    guard(|| {
        let slot = out(root, "root")?;
        let buf = input(data, len, "data")?;
        let value = flexbuf::verify(buf)?.root();
        *slot = FlexbufRef {
            buf: data,
            len,
            type_: value.flex_type() as u32,
            ..FlexbufRef::ZERO
        };
        Ok(())
    })
}

/// The value's type code.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_type(r: *const FlexbufRef, type_: *mut u32) -> FlexbufStatus {
    zero(type_, 0);
    with_ref(r, |_, v| {
        *out(type_, "type")? = v.flex_type() as u32;
        Ok(())
    })
}

/// The value's slot width (bytes of its place in the parent) and its own width
/// (an inline scalar's stored width, or a container's element/size width).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_widths(
    r: *const FlexbufRef,
    slot_width: *mut u8,
    value_width: *mut u8,
) -> FlexbufStatus {
    zero(slot_width, 0);
    zero(value_width, 0);
    with_ref(r, |_, v| {
        let slot = out(slot_width, "slot_width")?;
        let own = out(value_width, "value_width")?;
        *slot = v.slot_width() as u8;
        *own = v.bit_width().bytes() as u8;
        Ok(())
    })
}

/// A boolean.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_bool(r: *const FlexbufRef, value: *mut bool) -> FlexbufStatus {
    zero(value, false);
    with_ref(r, |_, v| {
        let slot = out(value, "value")?;
        *slot = v.as_bool()?;
        Ok(())
    })
}

/// A signed integer (any integer type; unsigned above INT64_MAX is a range error).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_int(r: *const FlexbufRef, value: *mut i64) -> FlexbufStatus {
    zero(value, 0);
    with_ref(r, |_, v| {
        let slot = out(value, "value")?;
        *slot = v.as_i64()?;
        Ok(())
    })
}

/// An unsigned integer (any integer type; negative is a range error).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_uint(r: *const FlexbufRef, value: *mut u64) -> FlexbufStatus {
    zero(value, 0);
    with_ref(r, |_, v| {
        let slot = out(value, "value")?;
        *slot = v.as_u64()?;
        Ok(())
    })
}

/// A float (f32 widened exactly; integers converted to the nearest double).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_double(
    r: *const FlexbufRef,
    value: *mut f64,
) -> FlexbufStatus {
    zero(value, 0.0);
    with_ref(r, |_, v| {
        let slot = out(value, "value")?;
        *slot = v.as_f64()?;
        Ok(())
    })
}

/// The UTF-8 bytes of a string or key, viewed in the caller's buffer.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_string(
    r: *const FlexbufRef,
    view: *mut FlexbufBytes,
) -> FlexbufStatus {
    zero(view, FlexbufBytes::ZERO);
    with_ref(r, |_, v| {
        let slot = out(view, "view")?;
        let bytes = match v.flex_type() {
            // Verified at the root: the string's bytes need no second UTF-8 pass.
            FlexType::String => v.as_blob()?,
            FlexType::Key => v.as_str()?.as_bytes(),
            found => {
                return Err(Failure::new(
                    FLEXBUF_ERR_TYPE,
                    format!("expected string, found {found}"),
                ))
            }
        };
        *slot = FlexbufBytes::of(bytes);
        Ok(())
    })
}

/// The bytes of a blob, viewed in the caller's buffer.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_blob(
    r: *const FlexbufRef,
    view: *mut FlexbufBytes,
) -> FlexbufStatus {
    zero(view, FlexbufBytes::ZERO);
    with_ref(r, |_, v| {
        let slot = out(view, "view")?;
        if v.flex_type() != FlexType::Blob {
            return Err(Failure::new(
                FLEXBUF_ERR_TYPE,
                format!("expected blob, found {}", v.flex_type()),
            ));
        }
        *slot = FlexbufBytes::of(v.as_blob()?);
        Ok(())
    })
}

/// Elements of a vector or map, or bytes of a string, key or blob.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_len(r: *const FlexbufRef, len: *mut usize) -> FlexbufStatus {
    zero(len, 0);
    with_ref(r, |_, v| {
        let slot = out(len, "len")?;
        *slot = v.len()?;
        Ok(())
    })
}

/// Element `index` of a vector, or the value of entry `index` of a map (keys in sorted order).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_index(
    r: *const FlexbufRef,
    index: usize,
    child: *mut FlexbufRef,
) -> FlexbufStatus {
    let parent = r.as_ref().copied();
    zero(child, FlexbufRef::ZERO);
    with_copy(parent, |parent, v| {
        let slot = out(child, "child")?;
        let c = element(&v, index)?;
        *slot = child_ref(parent, index, &c)?;
        Ok(())
    })
}

/// The key of entry `index` of a map, viewed in the caller's buffer.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_key_at(
    r: *const FlexbufRef,
    index: usize,
    key: *mut FlexbufBytes,
) -> FlexbufStatus {
    zero(key, FlexbufBytes::ZERO);
    with_ref(r, |_, v| {
        let slot = out(key, "key")?;
        *slot = FlexbufBytes::of(v.as_map()?.key(index)?.as_bytes());
        Ok(())
    })
}

/// The value stored under `key` in a map (binary search over the sorted keys).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_ref_lookup(
    r: *const FlexbufRef,
    key: *const c_char,
    key_len: usize,
    child: *mut FlexbufRef,
) -> FlexbufStatus {
    let parent = r.as_ref().copied();
    zero(child, FlexbufRef::ZERO);
    with_copy(parent, |parent, v| {
        let slot = out(child, "child")?;
        let key = input_str(key, key_len, "key")?;
        let map = v.as_map()?;
        let i = map
            .index_of(key)?
            .ok_or_else(|| Failure::from(flexbuf::Error::new(flexbuf::ErrorKind::KeyNotFound)))?;
        *slot = child_ref(parent, i, &map.value(i)?)?;
        Ok(())
    })
}

/// Static name of a type code (`"map"`, `"vector_int"`, ...), `"unknown"` for other codes.
#[no_mangle]
pub extern "C" fn flexbuf_type_name(type_: u32) -> *const c_char {
    // NUL-terminated copies of `FlexType::name` for every 6-bit code, made once.
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        (0..64u8)
            .map(|code| {
                let name = FlexType::from_code(code).map_or("unknown", FlexType::name);
                CString::new(name).unwrap_or_default()
            })
            .collect()
    });
    match usize::try_from(type_).ok().and_then(|i| names.get(i)) {
        Some(name) => name.as_ptr(),
        None => b"unknown\0".as_ptr().cast(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_match_the_core() {
        for code in 0..64u8 {
            if let Some(t) = FlexType::from_code(code) {
                let c = unsafe { std::ffi::CStr::from_ptr(flexbuf_type_name(code.into())) };
                assert_eq!(c.to_str().unwrap(), t.name());
            }
        }
        let c = unsafe { std::ffi::CStr::from_ptr(flexbuf_type_name(99)) };
        assert_eq!(c.to_str().unwrap(), "unknown");
    }
}
