//! Serde structs mirroring each fixture schema, their conversion to the
//! FlatBuffers object API, and the [`Fixture`](crate::Fixture) impl on each
//! root struct.
//!
//! Required message fields are plain fields, optional ones `Option`, and
//! `{string: T}` maps `BTreeMap`s, as in the generated types.

pub mod api_response;
pub mod chat_thread;
pub mod metrics_96k;
pub mod repeated_maps;
pub mod string_flood;
pub mod time_series;
pub mod unicode_heavy;
pub mod user_profile;
pub mod wide_map;
pub mod width_bomb;

use flatbuffers::{Follow, Vector};

use crate::Field;

/// A string as the object API holds it (an absent string is `None`).
fn fb_str(s: &str) -> Option<String> {
    Some(s.to_owned())
}

/// A list converted element by element for the object API.
fn fb_vec<'a, T: 'a, U: From<&'a T>>(items: &'a [T]) -> Option<Vec<U>> {
    Some(items.iter().map(U::from).collect())
}

/// A required nested table for the object API.
fn fb_box<'a, T: 'a, U: From<&'a T>>(value: &'a T) -> Option<Box<U>> {
    Some(Box::new(U::from(value)))
}

/// Element `i` of an optional FlatBuffers vector, `None` when out of range.
fn fb_at<'a, T: Follow<'a> + 'a>(v: Option<Vector<'a, T>>, i: usize) -> Option<T::Inner> {
    v.filter(|v| i < v.len()).map(|v| v.get(i))
}

/// A probe slot for an optional string.
fn str_field(s: Option<&str>) -> Field<'_> {
    s.map_or(Field::Absent, Field::Str)
}
