//! Status codes, the thread-local last error, and the guard every export runs in.
//!
//! Every export returns a [`FlexbufStatus`]. A failing call records a
//! [`Failure`] in a thread-local slot (message, core error kind, byte offset,
//! path) that the `flexbuf_last_error_*` functions read back; successful calls
//! leave it untouched, as `errno` does. Panics never cross the boundary: the
//! guard catches them and reports [`FLEXBUF_ERR_PANIC`].

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use flexbuf::{ErrorClass, ErrorKind};

/// The status every export returns (`flexbuf_status` in C).
pub type FlexbufStatus = i32;

/// Success.
pub const FLEXBUF_OK: FlexbufStatus = 0;
/// A required pointer was NULL (or NULL with a non-zero length).
pub const FLEXBUF_ERR_NULL_ARG: FlexbufStatus = 1;
/// An argument is out of its domain: a length above `PTRDIFF_MAX`, text that is not UTF-8,
/// an unknown element kind or width, a misaligned array, a ref that was not made by this library.
pub const FLEXBUF_ERR_INVALID_ARG: FlexbufStatus = 2;
/// The bytes are not a valid FlexBuffer (verification failed).
pub const FLEXBUF_ERR_INVALID_BUFFER: FlexbufStatus = 3;
/// The value has another type than the call needs.
pub const FLEXBUF_ERR_TYPE: FlexbufStatus = 4;
/// A number does not fit the requested C type.
pub const FLEXBUF_ERR_RANGE: FlexbufStatus = 5;
/// A vector or map index past the end.
pub const FLEXBUF_ERR_INDEX: FlexbufStatus = 6;
/// A key absent from a map, or a message absent from a schema.
pub const FLEXBUF_ERR_NOT_FOUND: FlexbufStatus = 7;
/// Builder misuse: unbalanced end, duplicate key, finish with open containers, ...
pub const FLEXBUF_ERR_BUILDER: FlexbufStatus = 8;
/// Malformed JSON text, or a NaN/infinity that JSON cannot hold.
pub const FLEXBUF_ERR_JSON: FlexbufStatus = 9;
/// Expanding shared data (to JSON) would exceed the expansion budget.
pub const FLEXBUF_ERR_BUDGET: FlexbufStatus = 10;
/// The bytes are not a well-formed envelope, or its protocol version is not the expected one.
pub const FLEXBUF_ERR_ENVELOPE: FlexbufStatus = 11;
/// The envelope's schema fingerprint is not the expected one.
pub const FLEXBUF_ERR_FINGERPRINT: FlexbufStatus = 12;
/// A compiled schema that cannot be read.
pub const FLEXBUF_ERR_SCHEMA: FlexbufStatus = 13;
/// A handle that is not live: unknown, foreign, or already released/freed.
pub const FLEXBUF_ERR_BAD_HANDLE: FlexbufStatus = 14;
/// Memory for a result could not be allocated.
pub const FLEXBUF_ERR_ALLOC: FlexbufStatus = 15;
/// An internal panic was caught at the boundary (a bug: please report it).
pub const FLEXBUF_ERR_PANIC: FlexbufStatus = 16;
/// Any other error of the core.
pub const FLEXBUF_ERR_OTHER: FlexbufStatus = 17;

/// Every status with its C name, in numeric order.
pub const STATUS_NAMES: [(FlexbufStatus, &str); 18] = [
    (FLEXBUF_OK, "FLEXBUF_OK"),
    (FLEXBUF_ERR_NULL_ARG, "FLEXBUF_ERR_NULL_ARG"),
    (FLEXBUF_ERR_INVALID_ARG, "FLEXBUF_ERR_INVALID_ARG"),
    (FLEXBUF_ERR_INVALID_BUFFER, "FLEXBUF_ERR_INVALID_BUFFER"),
    (FLEXBUF_ERR_TYPE, "FLEXBUF_ERR_TYPE"),
    (FLEXBUF_ERR_RANGE, "FLEXBUF_ERR_RANGE"),
    (FLEXBUF_ERR_INDEX, "FLEXBUF_ERR_INDEX"),
    (FLEXBUF_ERR_NOT_FOUND, "FLEXBUF_ERR_NOT_FOUND"),
    (FLEXBUF_ERR_BUILDER, "FLEXBUF_ERR_BUILDER"),
    (FLEXBUF_ERR_JSON, "FLEXBUF_ERR_JSON"),
    (FLEXBUF_ERR_BUDGET, "FLEXBUF_ERR_BUDGET"),
    (FLEXBUF_ERR_ENVELOPE, "FLEXBUF_ERR_ENVELOPE"),
    (FLEXBUF_ERR_FINGERPRINT, "FLEXBUF_ERR_FINGERPRINT"),
    (FLEXBUF_ERR_SCHEMA, "FLEXBUF_ERR_SCHEMA"),
    (FLEXBUF_ERR_BAD_HANDLE, "FLEXBUF_ERR_BAD_HANDLE"),
    (FLEXBUF_ERR_ALLOC, "FLEXBUF_ERR_ALLOC"),
    (FLEXBUF_ERR_PANIC, "FLEXBUF_ERR_PANIC"),
    (FLEXBUF_ERR_OTHER, "FLEXBUF_ERR_OTHER"),
];

/// A failed call: its status and where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The status returned to C.
    pub status: FlexbufStatus,
    /// Human-readable description.
    pub message: String,
    /// The core's `ErrorKind` variant name (`Truncated`, `Cycle`, ...), or empty.
    pub kind: String,
    /// Byte offset into the input, when known.
    pub offset: Option<usize>,
    /// Path from the root (`$.a[2]`), when known.
    pub path: Option<String>,
}

impl Failure {
    /// A failure that is not a core error.
    pub fn new(status: FlexbufStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
            kind: String::new(),
            offset: None,
            path: None,
        }
    }

    /// A NULL pointer where `what` was required.
    pub fn null(what: &str) -> Failure {
        Failure::new(FLEXBUF_ERR_NULL_ARG, format!("{what} is NULL"))
    }

    /// An argument out of its domain.
    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(FLEXBUF_ERR_INVALID_ARG, message)
    }

    /// An allocation of `bytes` that failed.
    pub fn alloc(bytes: usize) -> Failure {
        Failure::new(
            FLEXBUF_ERR_ALLOC,
            format!("cannot allocate {bytes} bytes for the result"),
        )
    }
}

/// The status a core error kind maps to (by the core's one classification).
pub fn status_of(kind: &ErrorKind) -> FlexbufStatus {
    match kind.class() {
        ErrorClass::InvalidBuffer => FLEXBUF_ERR_INVALID_BUFFER,
        ErrorClass::Type => FLEXBUF_ERR_TYPE,
        ErrorClass::Range => FLEXBUF_ERR_RANGE,
        ErrorClass::Index => FLEXBUF_ERR_INDEX,
        ErrorClass::NotFound => FLEXBUF_ERR_NOT_FOUND,
        ErrorClass::Budget => FLEXBUF_ERR_BUDGET,
        ErrorClass::Builder => FLEXBUF_ERR_BUILDER,
        ErrorClass::Json => FLEXBUF_ERR_JSON,
        ErrorClass::Schema => FLEXBUF_ERR_SCHEMA,
        ErrorClass::Envelope => FLEXBUF_ERR_ENVELOPE,
        _ => FLEXBUF_ERR_OTHER,
    }
}

impl From<flexbuf::Error> for Failure {
    fn from(e: flexbuf::Error) -> Failure {
        Failure {
            status: status_of(e.kind()),
            message: e.to_string(),
            kind: e.kind().name().to_string(),
            offset: e.offset(),
            path: e.path(),
        }
    }
}

/// Result of an export's body.
pub type Outcome<T = ()> = Result<T, Failure>;

/// The thread's last error, kept as C strings so borrowed pointers stay valid
/// until the next failing call on the thread.
struct LastError {
    status: FlexbufStatus,
    message: CString,
    kind: CString,
    path: CString,
    offset: i64,
}

impl LastError {
    fn empty() -> LastError {
        LastError {
            status: FLEXBUF_OK,
            message: CString::default(),
            kind: CString::default(),
            path: CString::default(),
            offset: -1,
        }
    }
}

thread_local! {
    static LAST: RefCell<LastError> = RefCell::new(LastError::empty());
}

/// A C string of `s`, with any NUL byte written as `\0` so nothing is cut off.
fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap_or_default()
}

/// Records `f` as this thread's last error.
pub fn set_last_error(f: &Failure) {
    let value = LastError {
        status: f.status,
        message: c_string(&f.message),
        kind: c_string(&f.kind),
        path: c_string(f.path.as_deref().unwrap_or_default()),
        offset: f.offset.and_then(|o| i64::try_from(o).ok()).unwrap_or(-1),
    };
    // During thread teardown the slot may be gone; the status still reports the failure.
    let _ = LAST.try_with(|l| {
        if let Ok(mut slot) = l.try_borrow_mut() {
            *slot = value;
        }
    });
}

/// Clears this thread's last error.
pub fn clear_last_error() {
    let _ = LAST.try_with(|l| {
        if let Ok(mut slot) = l.try_borrow_mut() {
            *slot = LastError::empty();
        }
    });
}

fn with_last<T>(default: T, f: impl FnOnce(&LastError) -> T) -> T {
    LAST.try_with(|l| l.try_borrow().map(|slot| f(&slot)).ok())
        .ok()
        .flatten()
        .unwrap_or(default)
}

const EMPTY: &[u8; 1] = b"\0";

/// Which string of the last error to read.
#[derive(Clone, Copy, Debug)]
pub enum LastErrorField {
    /// The message.
    Message,
    /// The core error kind name.
    Kind,
    /// The path.
    Path,
}

/// Pointer to one string of the last error, stable until the slot is replaced
/// (the next failing call or clear on this thread).
pub fn last_error_ptr(field: LastErrorField) -> *const c_char {
    with_last(EMPTY.as_ptr().cast(), |l| match field {
        LastErrorField::Message => l.message.as_ptr(),
        LastErrorField::Kind => l.kind.as_ptr(),
        LastErrorField::Path => l.path.as_ptr(),
    })
}

/// The last error's status.
pub fn last_error_status() -> FlexbufStatus {
    with_last(FLEXBUF_OK, |l| l.status)
}

/// The last error's offset, -1 when unknown.
pub fn last_error_offset() -> i64 {
    with_last(-1, |l| l.offset)
}

/// A copy of the last error's message, for copying into caller memory.
pub fn last_error_message_bytes() -> Vec<u8> {
    with_last(Vec::new(), |l| l.message.as_bytes().to_vec())
}

/// The text of a panic payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Runs an export's body: catches panics, records failures, returns the status.
///
/// The body must write its outputs only once everything has succeeded, so a
/// failure leaves them in the zeroed state the caller set up before.
pub fn guard(body: impl FnOnce() -> Outcome) -> FlexbufStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => FLEXBUF_OK,
        Ok(Err(f)) => {
            set_last_error(&f);
            f.status
        }
        Err(payload) => {
            let f = Failure::new(
                FLEXBUF_ERR_PANIC,
                format!(
                    "internal panic caught at the C boundary: {}",
                    panic_text(&*payload)
                ),
            );
            set_last_error(&f);
            FLEXBUF_ERR_PANIC
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn panics_become_a_status_and_a_message() {
        let status = guard(|| panic!("boom"));
        assert_eq!(status, FLEXBUF_ERR_PANIC);
        assert_eq!(last_error_status(), FLEXBUF_ERR_PANIC);
        let msg = unsafe { CStr::from_ptr(last_error_ptr(LastErrorField::Message)) };
        assert!(msg.to_str().unwrap().contains("boom"), "{msg:?}");
    }

    #[test]
    fn core_errors_keep_kind_offset_and_path() {
        let e = flexbuf::Error::at(ErrorKind::KeyNotFound, 7).with_path(".a[2]");
        let status = guard(|| Err(e.into()));
        assert_eq!(status, FLEXBUF_ERR_NOT_FOUND);
        assert_eq!(last_error_offset(), 7);
        let kind = unsafe { CStr::from_ptr(last_error_ptr(LastErrorField::Kind)) };
        assert_eq!(kind.to_str().unwrap(), "KeyNotFound");
        let path = unsafe { CStr::from_ptr(last_error_ptr(LastErrorField::Path)) };
        assert_eq!(path.to_str().unwrap(), "$.a[2]");
        // Success leaves the last error alone; clearing resets it.
        assert_eq!(guard(|| Ok(())), FLEXBUF_OK);
        assert_eq!(last_error_status(), FLEXBUF_ERR_NOT_FOUND);
        clear_last_error();
        assert_eq!(last_error_status(), FLEXBUF_OK);
        assert_eq!(last_error_offset(), -1);
    }

    #[test]
    fn nul_bytes_in_messages_are_escaped() {
        set_last_error(&Failure::invalid("a\0b"));
        assert_eq!(last_error_message_bytes(), b"a\\0b");
    }

    #[test]
    fn status_names_are_in_numeric_order() {
        for (i, (code, _)) in STATUS_NAMES.iter().enumerate() {
            assert_eq!(*code as usize, i);
        }
    }
}
