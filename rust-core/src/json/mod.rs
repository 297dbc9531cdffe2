//! JSON transcoding.
//!
//! **To JSON** ([`to_json`]): the buffer is verified first, then written as
//! RFC 8259 JSON under an expansion [`Budget`](crate::Budget). Maps become objects, every
//! kind of vector an array, integers are written exactly, floats in the
//! shortest form that reads back to the same `f64` (an f32 is widened first,
//! so re-encoding it gives the same bytes), NaN and infinities are an error
//! unless [`NonFinite`] says otherwise, and blobs are base64 strings
//! (RFC 4648, standard alphabet, padded).
//!
//! **From JSON** ([`from_json`]): the text streams straight into a
//! [`Builder`](crate::Builder) with the C++ JSON parser's call sequence:
//! object → map, array → untyped vector, integer → int (uint only beyond
//! `i64`; integers beyond `u64` become doubles), other numbers → double
//! (the nearest one, ties to even, as `str::parse::<f64>` reads them),
//! string → string, `true`/`false` → bool, `null` → null. A duplicate key in
//! one object is an error naming its path.

mod decimal;
mod key_text;
mod parse;
mod write;

pub use parse::{from_json, from_json_into, from_json_with};
pub use write::{to_json, to_json_with, write_json};

use crate::builder::ShareFlags;
use crate::verify::VerifyOptions;

/// What to write for NaN and infinities, which JSON cannot represent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NonFinite {
    /// Fail with [`ErrorKind::NonFiniteFloat`](crate::ErrorKind::NonFiniteFloat).
    #[default]
    Error,
    /// Write `null`.
    Null,
    /// Write the JavaScript literals `NaN`, `Infinity`, `-Infinity` (not valid JSON).
    Literal,
}

/// Options for both directions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonOptions {
    /// Indent output with two spaces per level.
    pub pretty: bool,
    /// Handling of NaN and infinities when writing.
    pub non_finite: NonFinite,
    /// Verifier settings applied before writing.
    pub verify: VerifyOptions,
    /// Output budget in bytes, also used as the cap on values written; `None`
    /// means [`Budget::for_input`](crate::Budget::for_input) of the buffer.
    pub max_output_bytes: Option<u64>,
    /// Sharing flags of the builder when reading JSON (default: keys, as C++).
    pub share: ShareFlags,
    /// Deepest nesting accepted when reading JSON (default 64, at most 1024).
    pub max_depth: usize,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions {
            pretty: false,
            non_finite: NonFinite::Error,
            verify: VerifyOptions::default(),
            max_output_bytes: None,
            share: ShareFlags::KEYS,
            max_depth: 64,
        }
    }
}

/// True when one of the 8 bytes of `w` is a quote, a backslash or a control character.
#[inline(always)]
pub(crate) fn needs_escape(w: u64) -> bool {
    use crate::word::{zero_bytes, HI, LO};
    // Bytes below 0x20 (a high bit of the input excludes them), '"' and '\\'.
    let control = w.wrapping_sub(LO * 0x20) & !w & HI;
    (control | zero_bytes(w ^ (LO * b'"' as u64)) | zero_bytes(w ^ (LO * b'\\' as u64))) != 0
}
