//! # flexbuf-capi
//!
//! The C ABI of the flexbuf core: a versioned, bytes-in/bytes-out contract
//! with explicit ownership. `include/flexbuf.h` is the contract of record; it
//! documents every function's ownership, lifetime, thread-safety and failure
//! state. This crate implements it:
//!
//! - every export returns a status ([`status`]) and runs inside a guard that
//!   catches panics and records the thread-local last error;
//! - outputs are set to a documented zeroed state before any work, and written
//!   only once everything succeeded;
//! - inputs are borrowed `(pointer, length)` pairs; owned results are released
//!   by handle through a registry ([`memory`]), so a double or foreign release
//!   is an error status, never a crash;
//! - readers ([`reader`]) are plain C values holding the caller's pointer and a
//!   path of indices: no pointer into library memory ever reaches C.
//!
//! Three compatibility values stay independent: [`FLEXBUF_ABI_VERSION`] (this
//! library's C interface), the protocol version and the schema fingerprint
//! (both carried by the message envelope, see `flexbuf::envelope`).

// Every export is `unsafe extern "C"`; its safety contract (valid pointers and
// lengths, live buffers) is written once, in include/flexbuf.h, rather than
// repeated on each Rust function.
#![allow(clippy::missing_safety_doc)]

pub mod builder;
pub mod codec;
pub mod memory;
pub mod reader;
pub mod status;

use std::ffi::c_char;

use memory::{out, zero};
use status::{guard, FlexbufStatus};

/// Version of this C interface. It changes only when an existing function,
/// struct or constant changes meaning or layout; additions are announced by
/// capability bits instead.
pub const FLEXBUF_ABI_VERSION: u32 = 1;

/// Capability: the verifier and the reader (`flexbuf_verify`, `flexbuf_root`, `flexbuf_ref_*`).
pub const FLEXBUF_CAP_READER: u64 = 1;
/// Capability: the builder (`flexbuf_builder_*`).
pub const FLEXBUF_CAP_BUILDER: u64 = 1 << 1;
/// Capability: JSON conversion (`flexbuf_to_json`, `flexbuf_from_json`).
pub const FLEXBUF_CAP_JSON: u64 = 1 << 2;
/// Capability: the message envelope (`flexbuf_envelope_*`).
pub const FLEXBUF_CAP_ENVELOPE: u64 = 1 << 3;
/// Capability: schema fingerprints of compiled schemas (`flexbuf_schema_fingerprint`).
pub const FLEXBUF_CAP_SCHEMA: u64 = 1 << 4;

/// The ABI version this library implements; check it before any other call.
#[no_mangle]
pub extern "C" fn flexbuf_abi_version() -> u32 {
    FLEXBUF_ABI_VERSION
}

/// Bitmask of the `FLEXBUF_CAP_*` features this library provides.
#[no_mangle]
pub extern "C" fn flexbuf_capabilities() -> u64 {
    FLEXBUF_CAP_READER
        | FLEXBUF_CAP_BUILDER
        | FLEXBUF_CAP_JSON
        | FLEXBUF_CAP_ENVELOPE
        | FLEXBUF_CAP_SCHEMA
}

/// Static name of a status code (`"FLEXBUF_ERR_TYPE"`), `"FLEXBUF_ERR_UNKNOWN"` for others.
#[no_mangle]
pub extern "C" fn flexbuf_status_name(status: FlexbufStatus) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        status::STATUS_NAMES
            .iter()
            .map(|(_, n)| std::ffi::CString::new(*n).unwrap_or_default())
            .collect()
    });
    match usize::try_from(status).ok().and_then(|i| names.get(i)) {
        Some(name) => name.as_ptr(),
        None => b"FLEXBUF_ERR_UNKNOWN\0".as_ptr().cast(),
    }
}

/// Status of this thread's last failed call (`FLEXBUF_OK` when none or cleared).
#[no_mangle]
pub extern "C" fn flexbuf_last_error_status() -> FlexbufStatus {
    status::last_error_status()
}

/// Message of this thread's last failed call (`""` when none).
#[no_mangle]
pub extern "C" fn flexbuf_last_error_message() -> *const c_char {
    status::last_error_ptr(status::LastErrorField::Message)
}

/// The core's error kind name of this thread's last failure (`"Cycle"`, ...; `""` when none).
#[no_mangle]
pub extern "C" fn flexbuf_last_error_kind() -> *const c_char {
    status::last_error_ptr(status::LastErrorField::Kind)
}

/// Path (`$.a[2]`) of this thread's last failure, `""` when unknown.
#[no_mangle]
pub extern "C" fn flexbuf_last_error_path() -> *const c_char {
    status::last_error_ptr(status::LastErrorField::Path)
}

/// Byte offset of this thread's last failure, -1 when unknown.
#[no_mangle]
pub extern "C" fn flexbuf_last_error_offset() -> i64 {
    status::last_error_offset()
}

/// Copies the last error message into `buf` (NUL-terminated, truncated to
/// `cap`); `*needed` receives the full length without the NUL.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_last_error_copy(
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> FlexbufStatus {
    zero(needed, 0);
    // Read before the guard: a failure inside would replace the message.
    let message = status::last_error_message_bytes();
    guard(|| {
        let needed = out(needed, "needed")?;
        if cap > 0 {
            if buf.is_null() {
                return Err(status::Failure::null("buf"));
            }
            let n = message.len().min(cap - 1);
            std::ptr::copy_nonoverlapping(message.as_ptr(), buf.cast::<u8>(), n);
            buf.add(n).write(0);
        }
        *needed = message.len();
        Ok(())
    })
}

/// Resets this thread's last error to none.
#[no_mangle]
pub extern "C" fn flexbuf_clear_last_error() -> FlexbufStatus {
    status::clear_last_error();
    status::FLEXBUF_OK
}
