//! Borrowed inputs, borrowed views, owned outputs and the handle registry.
//!
//! Inputs are `(const uint8_t *data, size_t len)` pairs the caller keeps alive
//! for the call (or, for views into them, for as long as it uses the views).
//! Owned outputs live in a global registry keyed by a 64-bit handle; the
//! caller releases them by handle, never by pointer, so releasing an unknown
//! or already released handle is a checked error instead of a double free.
//! Handles come from a counter passed through a bijective mixer: unique for
//! the life of the process (never reused) and unlikely to collide with a
//! made-up number.

use std::collections::BTreeMap;
use std::ffi::c_char;
use std::sync::{Mutex, MutexGuard};

use crate::status::{guard, Failure, FlexbufStatus, Outcome, FLEXBUF_ERR_BAD_HANDLE};

/// A view of bytes owned by someone else (`flexbuf_bytes` in C): the caller's
/// input, or a string/blob inside it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlexbufBytes {
    /// First byte; NULL only together with `len == 0` in the zeroed state.
    pub data: *const u8,
    /// Number of bytes.
    pub len: usize,
}

impl FlexbufBytes {
    /// The zeroed state: `{NULL, 0}`.
    pub const ZERO: FlexbufBytes = FlexbufBytes {
        data: std::ptr::null(),
        len: 0,
    };

    /// A view of `bytes`.
    pub fn of(bytes: &[u8]) -> FlexbufBytes {
        FlexbufBytes {
            data: bytes.as_ptr(),
            len: bytes.len(),
        }
    }
}

/// An owned result (`flexbuf_buffer` in C): bytes plus the handle that releases them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlexbufBuffer {
    /// First byte, valid until `handle` is released; NULL when empty.
    pub data: *const u8,
    /// Number of bytes.
    pub len: usize,
    /// Release handle; 0 when there is nothing to release.
    pub handle: u64,
}

impl FlexbufBuffer {
    /// The zeroed (and empty) state: `{NULL, 0, 0}`.
    pub const ZERO: FlexbufBuffer = FlexbufBuffer {
        data: std::ptr::null(),
        len: 0,
        handle: 0,
    };
}

/// The caller's input as a slice.
///
/// # Safety
/// `data` must point to `len` readable bytes that stay unchanged for `'a`
/// (unless `len` is 0 or the function returns an error).
pub unsafe fn input<'a>(data: *const u8, len: usize, what: &str) -> Outcome<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Failure::null(what));
    }
    if len > isize::MAX as usize || (data as usize).checked_add(len).is_none() {
        return Err(Failure::invalid(format!(
            "{what}: length {len} exceeds the address space"
        )));
    }
    // SAFETY: non-null, length bounded above; readability is the caller's contract.
    Ok(std::slice::from_raw_parts(data, len))
}

/// The caller's input as UTF-8 text.
///
/// # Safety
/// As [`input`].
pub unsafe fn input_str<'a>(data: *const c_char, len: usize, what: &str) -> Outcome<&'a str> {
    let bytes = input(data.cast(), len, what)?;
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::invalid(format!(
            "{what} is not UTF-8 (invalid byte at {})",
            e.valid_up_to()
        ))
    })
}

/// Sets `*out` to `zero` when `out` is not NULL: the documented failure state,
/// written before any work so every error path leaves it.
///
/// # Safety
/// `out` is NULL or valid for writes.
pub unsafe fn zero<T: Copy>(out: *mut T, zero: T) {
    if !out.is_null() {
        out.write(zero);
    }
}

/// `out` as a reference, or a NULL-argument failure.
///
/// # Safety
/// `out` is NULL or valid for writes of a `T` for `'a`.
pub unsafe fn out<'a, T>(out: *mut T, what: &str) -> Outcome<&'a mut T> {
    out.as_mut().ok_or_else(|| Failure::null(what))
}

/// Copies `bytes` into a new vector, reporting allocation failure as a status.
pub fn try_copy(bytes: &[u8], extra: usize) -> Outcome<Vec<u8>> {
    let mut v = Vec::new();
    let want = bytes.len().saturating_add(extra);
    v.try_reserve_exact(want)
        .map_err(|_| Failure::alloc(want))?;
    v.extend_from_slice(bytes);
    Ok(v)
}

struct Registry {
    counter: u64,
    live: BTreeMap<u64, Vec<u8>>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    counter: 0,
    live: BTreeMap::new(),
});

fn registry() -> MutexGuard<'static, Registry> {
    // A panic while the lock was held cannot leave the map inconsistent
    // (inserts and removes are single calls), so a poisoned lock is still usable.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// SplitMix64's finaliser: a bijection on u64, so distinct counters give distinct handles.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Registers `bytes` (of which the first `len` are the result; any rest is a
/// terminator the caller may rely on) and returns the owned-buffer struct.
pub fn register(bytes: Vec<u8>, len: usize) -> FlexbufBuffer {
    debug_assert!(len <= bytes.len());
    if len == 0 {
        return FlexbufBuffer::ZERO;
    }
    let data = bytes.as_ptr();
    let mut reg = registry();
    let handle = loop {
        reg.counter += 1;
        let h = mix(reg.counter);
        if h != 0 {
            break h;
        }
    };
    // The heap block does not move when the vector is moved into the map.
    reg.live.insert(handle, bytes);
    FlexbufBuffer { data, len, handle }
}

/// Releases a registered buffer.
pub fn release(handle: u64) -> Outcome {
    if handle == 0 {
        return Ok(());
    }
    let removed = registry().live.remove(&handle);
    match removed {
        Some(bytes) => {
            drop(bytes);
            Ok(())
        }
        None => Err(Failure::new(
            FLEXBUF_ERR_BAD_HANDLE,
            format!("handle {handle:#018x} is unknown or already released"),
        )),
    }
}

/// Releases the owned buffer with this handle (0 is a no-op).
#[no_mangle]
pub extern "C" fn flexbuf_buffer_release(handle: u64) -> FlexbufStatus {
    guard(|| release(handle))
}

/// Number of owned buffers not yet released (for leak checks).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_live_buffers(count: *mut usize) -> FlexbufStatus {
    zero(count, 0);
    guard(|| {
        let count = out(count, "count")?;
        *count = registry().live.len();
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::FLEXBUF_OK;

    #[test]
    fn handles_release_once() {
        let buf = register(vec![1, 2, 3], 3);
        assert_ne!(buf.handle, 0);
        assert_eq!(unsafe { *buf.data.add(2) }, 3);
        assert_eq!(flexbuf_buffer_release(buf.handle), FLEXBUF_OK);
        assert_eq!(flexbuf_buffer_release(buf.handle), FLEXBUF_ERR_BAD_HANDLE);
        assert_eq!(flexbuf_buffer_release(0x1234), FLEXBUF_ERR_BAD_HANDLE);
        assert_eq!(flexbuf_buffer_release(0), FLEXBUF_OK);
    }

    #[test]
    fn empty_results_are_not_registered() {
        assert_eq!(register(Vec::new(), 0), FlexbufBuffer::ZERO);
    }

    #[test]
    fn mixed_handles_are_distinct() {
        let hs: std::collections::BTreeSet<u64> = (1..10_000).map(mix).collect();
        assert_eq!(hs.len(), 9_999);
    }

    #[test]
    fn huge_lengths_are_rejected() {
        let b = [0u8; 4];
        let r = unsafe { input(b.as_ptr(), usize::MAX, "data") };
        assert_eq!(
            r.unwrap_err().status,
            crate::status::FLEXBUF_ERR_INVALID_ARG
        );
        let r = unsafe { input(std::ptr::null(), 1, "data") };
        assert_eq!(r.unwrap_err().status, crate::status::FLEXBUF_ERR_NULL_ARG);
        assert_eq!(unsafe { input(std::ptr::null(), 0, "data") }.unwrap(), &[]);
    }
}
