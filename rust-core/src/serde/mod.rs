//! The serde coverage tier: any `Serialize` type to FlexBuffers and back, by key.
//!
//! Enabled by the cargo feature `serde`. Encoding streams straight into a
//! [`Builder`](crate::Builder) (no intermediate tree), so for the same call
//! sequence the bytes equal the C++ reference's. Decoding accepts exactly the
//! bytes [`verify`](crate::verify) accepts, with the verifier's error for the
//! rest, checking them as it reads them (in one pass; see `one_pass.rs`),
//! under an expansion [`Budget`](crate::Budget) so a small buffer with shared
//! offsets cannot expand into a huge value.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Item<'a> {
//!     name: &'a str,
//!     qty: u32,
//!     tags: Vec<String>,
//! }
//!
//! let bytes = flexbuf::to_vec(&Item { name: "bolt", qty: 3, tags: vec!["m4".into()] }).unwrap();
//! let item: Item = flexbuf::from_slice(&bytes).unwrap();
//! assert_eq!(item.name, "bolt"); // borrowed from `bytes`, not copied
//! assert_eq!(flexbuf::to_json(&bytes).unwrap(), r#"{"name":"bolt","qty":3,"tags":["m4"]}"#);
//! ```
//!
//! # Data model
//!
//! | serde | written as | read from |
//! | --- | --- | --- |
//! | `bool` | bool | bool |
//! | `i8`..`i64` | int (minimal width) | any int or uint, range-checked |
//! | `u8`..`u64` | uint (minimal width) | any int or uint, range-checked |
//! | `i128`, `u128` | int / uint; an error unless the value fits 64 bits | any int or uint |
//! | `f32` | float | any float or integer |
//! | `f64` | double (stored as f32 when exact, as C++ does) | any float or integer |
//! | `char`, `str`, `String` | string | string or key (`char`: exactly one character) |
//! | bytes (`serde_bytes`) | blob | blob, string or key; a vector is offered as a sequence |
//! | `None`, `()`, unit struct | null | null |
//! | `Some(x)` | `x` | anything but null (so `Option<Option<T>>` cannot tell `Some(None)` from `None`) |
//! | newtype struct | its inner value | its inner value |
//! | seq, tuple, tuple struct | typed vector when every element is an int, every one a uint, a float or a bool (a fixed vector for 2 to 4 numbers, as `[f32; 3]` or a `Vec` of a coordinate pair, as the `flexbuffers` crate writes them); untyped vector otherwise | any vector: untyped, typed, fixed, bool; tuples must match the length |
//! | map | map; keys must be strings, integers (written in decimal), chars or unit variants, anything else is an error | map; integer keys are parsed back from their decimal text |
//! | struct | map keyed by field name (the builder sorts keys; a duplicate is an error); with keys shared (the default), values of one struct type with the same fields share one keys vector, as generated coders' maps do | map; unknown keys are skipped, a missing field is an error unless `#[serde(default)]` |
//! | unit variant | string `"Variant"` | string or key |
//! | newtype, tuple, struct variant | map `{"Variant": payload}` | single-entry map (a unit variant also accepts `{"Variant": null}`) |
//!
//! `deserialize_any` (self-describing types, `#[serde(untagged)]`, `flatten`)
//! maps null to unit, bool, int to `i64`, uint to `u64`, every float to `f64`,
//! strings and keys to borrowed `&str`, blobs to borrowed `&[u8]`, every kind
//! of vector to a sequence and maps to maps. Strings and blobs are always
//! offered borrowed, so `&'de str` and `&'de [u8]` fields point into the input.
//!
//! The format is treated as human-readable (serde's default): types such as
//! IP addresses keep their text form, which other languages can read.
//!
//! # Errors
//!
//! Everything returns the crate's [`Error`]. Serde's custom
//! messages become [`ErrorKind::Message`]; numeric
//! overflow is [`ErrorKind::OutOfRange`]; a value of the wrong
//! type is [`ErrorKind::TypeMismatch`]. Decode errors carry
//! the path of the failing value (`$.items[2].qty`) and the byte offset of its
//! slot; encode errors carry the path too.
//!
//! ```
//! #[derive(serde::Serialize)]
//! struct Line { qty: u32 }
//! #[derive(serde::Deserialize, Debug)]
//! struct Small { qty: u8 }
//!
//! let bytes = flexbuf::to_vec(&vec![Line { qty: 1 }, Line { qty: 300 }]).unwrap();
//! let err = flexbuf::from_slice::<Vec<Small>>(&bytes).unwrap_err();
//! assert_eq!(err.kind(), &flexbuf::ErrorKind::OutOfRange);
//! assert_eq!(err.path().unwrap(), "$[1].qty");
//! ```

mod de;
mod keys;
mod leaves;
mod memo;
mod one_pass;
mod ser;

pub(crate) use one_pass::note;

pub use de::{from_slice, from_slice_with, Deserializer};
pub use ser::{to_vec, to_vec_with, Serializer};

use core::fmt::Display;

use crate::error::{Error, ErrorKind};

impl ::serde::ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }
}

impl ::serde::de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }
}
