//! # flexbuf
//!
//! A FlexBuffers codec: a builder that writes exactly the bytes of the C++
//! reference (`flexbuffers.h`), a zero-copy reader, a linear-time verifier,
//! content equality and hashing for buffer-backed values, and JSON transcoding.
//!
//! ```
//! use flexbuf::{Builder, verify};
//!
//! let mut b = Builder::new();
//! b.start_map();
//! b.key("id");
//! b.uint(42);
//! b.key("tags");
//! b.start_vector();
//! b.string("a");
//! b.string("b");
//! b.end_vector().unwrap();
//! b.end_map().unwrap();
//! let bytes = b.finish().unwrap().to_vec();
//!
//! // Untrusted bytes: verify once, then read without re-validation.
//! let root = verify(&bytes).unwrap().root();
//! let map = root.as_map().unwrap();
//! assert_eq!(map.get("id").unwrap().as_u64().unwrap(), 42);
//! assert_eq!(map.get("tags").unwrap().index(1).unwrap().as_str().unwrap(), "b");
//! assert_eq!(flexbuf::to_json(&bytes).unwrap(), r#"{"id":42,"tags":["a","b"]}"#);
//! ```

#![deny(missing_docs)]

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// Defines `fn $name() -> bool`, whether a fast path is taken: always
/// outside tests; in tests, as the thread-local `$switch` says (tests turn
/// it off to compare the fast path's outcome with the general path's).
macro_rules! fast_path_switch {
    ($(#[$doc:meta])* fn $name:ident = $switch:ident;) => {
        $(#[$doc])*
        #[inline(always)]
        fn $name() -> bool {
            #[cfg(test)]
            return $switch.with(|c| c.get());
            #[cfg(not(test))]
            true
        }
    };
}

mod budget;
mod builder;
mod content;
mod emit;
pub mod envelope;
mod error;
pub mod json;
mod key_memo;
mod key_tails;
mod one_shot;
mod pool;
mod reader;
mod scalar;
pub mod schema;
#[cfg(feature = "serde")]
pub mod serde;
#[cfg(test)]
mod test_support;
// Inputs the unit tests share with `tests/serde_tier.rs`.
#[cfg(test)]
#[path = "../tests/support/shared_keys.rs"]
mod shared_keys;
pub mod typed;
mod types;
pub mod utf8;

/// Checked reads of the wire format's primitives, for walkers outside this
/// crate (the Python SDK expands buffers with them): little-endian integers
/// and floats of a given width, and offsets followed backwards. Every read is
/// bounds-checked and returns an error (never panics) outside the buffer.
pub mod raw {
    pub use crate::reader::{follow, key_at, read_float, read_int, read_uint};

    /// The first 8 bytes of `key`, big-endian, padded with zeros: keys
    /// whose words differ are in the order of their bytes (the order of a
    /// map's keys); equal words leave the order to the whole keys. The
    /// word the builder sorts map keys by, for callers that sort keys
    /// before they push them (the Python SDK's `{string: T}` fields).
    #[inline]
    pub fn key_word(key: &[u8]) -> u64 {
        crate::word::key_word(key, 0, key.len())
    }
}
mod verify;
mod word;

#[cfg(feature = "serde")]
pub use crate::serde::{
    from_slice, from_slice_with, to_vec, to_vec_with, Deserializer, Serializer,
};
pub use budget::Budget;
pub use builder::{Builder, BuilderOptions, KeyVector, ShareFlags, ValueHandle};
pub use error::{BuilderError, Error, ErrorClass, ErrorKind, PathSegment, Result};
pub use json::{from_json, to_json, JsonOptions};
pub use reader::{MapReader, Reader, VectorReader};
pub use scalar::{Scalar, SliceElement};
pub use typed::{DecodeContext, EncodeContext, FlexBorrow, FlexCoder};
pub use types::{pack_type, padding, unpack_type, BitWidth, FlexType};
#[cfg(feature = "reference-verifier")]
#[doc(hidden)]
pub use verify::verify_reference;
pub use verify::{verify, verify_with, Verified, VerifyOptions};
