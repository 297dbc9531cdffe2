//! [`from_slice`](crate::from_slice) in one pass over unverified bytes.
//!
//! Verifying a buffer and then deserializing it walks every value twice.
//! `from_slice_with` instead deserializes the bytes as they are, with the
//! checked reads every reader of unverified bytes makes (bounds, widths,
//! types, UTF-8), plus what the verifier checks that a read does not: each
//! string's NUL, each map's keys ascending and as many as its values, the
//! nesting limit. A value the visitor skips (an unknown field,
//! [`IgnoredAny`](serde::de::IgnoredAny)) is walked all the same, so every
//! value reachable from the root is checked. The kinds of value one pass
//! does not check itself (vectors of keys, and the deprecated vector of
//! strings) send the read to the verified path.
//!
//! The result must be exactly what verifying first gives, so the one-pass
//! result is kept only when nothing failed along the way:
//!
//! - when the one-pass read fails, for any reason, the bytes are verified
//!   (whose error wins, as it always did) and, when they verify, read again
//!   as a verified buffer, whose result (the same value, or the same
//!   deserialization error) is returned;
//! - a visitor may swallow an error and go on (a field that falls back to a
//!   default when it cannot be read); in one pass that error may be the one
//!   that found the bytes broken, and the part it left unread is unchecked.
//!   So every error that can leave bytes unchecked is counted where it is
//!   made ([`note`]): every error the crate makes, except serde's messages
//!   (a visitor's rejection of a value it has read), and, where a visitor or
//!   a seed handed a container or a value still to read fails, that
//!   failure. A read that counted any is done again the verified way, even
//!   when it succeeded.
//!
//! A buffer that verifies is thus read once (unless a visitor swallows an
//! error), and anything else costs what it cost before plus the attempt.

use core::cell::Cell;

std::thread_local! {
    /// Errors counted on this thread (see the module documentation).
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// Counts an error that may leave bytes of a one-pass read unchecked.
#[cold]
#[inline(never)]
pub(crate) fn note() {
    COUNT.with(|c| c.set(c.get().wrapping_add(1)));
}

/// The errors counted on this thread so far: a one-pass read whose count
/// moved is done again the verified way.
pub(super) fn count() -> u64 {
    COUNT.with(Cell::get)
}

#[cfg(test)]
std::thread_local! {
    /// One-pass reads done again the verified way on this thread (tests).
    pub(super) static RETRIES: Cell<u64> = const { Cell::new(0) };
}

/// Notes, in tests, that a one-pass read was done again the verified way.
#[inline]
pub(super) fn retried() {
    #[cfg(test)]
    RETRIES.with(|c| c.set(c.get() + 1));
}

#[cfg(test)]
mod tests {
    use super::RETRIES;
    use serde::{Deserialize, Serialize};

    /// A record, as record-heavy datasets hold them.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Record {
        id: u64,
        name: String,
        email: String,
        score: f64,
        active: bool,
        tags: Vec<String>,
        position: [f32; 3],
        counts: Vec<u32>,
    }

    fn records(n: usize) -> Vec<Record> {
        (0..n)
            .map(|i| Record {
                id: 1_000 + i as u64,
                name: format!("user {i}"),
                email: format!("user{i}@example.org"),
                score: i as f64 * 0.25,
                active: i % 2 == 0,
                tags: (0..i % 4).map(|t| format!("tag{t}")).collect(),
                position: [i as f32, 0.5, -1.0],
                counts: vec![i as u32, 7],
            })
            .collect()
    }

    fn retries() -> u64 {
        RETRIES.with(|c| c.get())
    }

    /// Reads `bytes` as a `T` and says whether it was read in one pass.
    fn one_pass<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> (T, bool) {
        let before = retries();
        let value = crate::from_slice::<T>(bytes).expect("reads");
        (value, retries() == before)
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Slim {
        id: u64,
        name: String,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Borrowed<'a> {
        name: &'a str,
        email: &'a str,
        tags: Vec<&'a str>,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Shape {
        Dot,
        Circle(f64),
        Rect { w: u32, h: u32 },
    }

    #[test]
    fn buffers_that_verify_are_read_in_one_pass() {
        let recs = records(500);
        let bytes = crate::to_vec(&recs).unwrap();
        let (read, once) = one_pass::<Vec<Record>>(&bytes);
        assert_eq!(read, recs);
        assert!(once, "records");
        let (slim, once) = one_pass::<Vec<Slim>>(&bytes);
        assert_eq!(
            slim[7],
            Slim {
                id: recs[7].id,
                name: recs[7].name.clone()
            }
        );
        assert!(once, "records with fields skipped");
        let (borrowed, once) = one_pass::<Vec<Borrowed<'_>>>(&bytes);
        assert_eq!(borrowed[3].email, recs[3].email);
        assert!(once, "borrowed records");
        let shapes = vec![Shape::Dot, Shape::Circle(1.5), Shape::Rect { w: 2, h: 3 }];
        let bytes = crate::to_vec(&shapes).unwrap();
        let (read, once) = one_pass::<Vec<Shape>>(&bytes);
        assert_eq!(read, shapes);
        assert!(once, "enums");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/fixtures");
        let mut fixtures = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                let bytes = crate::from_json(&text).unwrap();
                let (value, once) = one_pass::<serde_json::Value>(&bytes);
                assert_eq!(
                    value,
                    serde_json::from_str::<serde_json::Value>(&text).unwrap()
                );
                assert!(once, "{}", path.display());
                let (_, once) = one_pass::<serde::de::IgnoredAny>(&bytes);
                assert!(once, "{} skipped", path.display());
                fixtures += 1;
            }
        }
        assert!(fixtures >= 10, "{fixtures} fixtures");
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Loose {
        Number(u64),
        Text(String),
        Pair { a: u32, b: u32 },
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Outer {
        id: u32,
        #[serde(flatten)]
        rest: std::collections::BTreeMap<String, u32>,
    }

    #[test]
    fn untagged_enums_and_flatten_stay_in_one_pass() {
        // Their visitors try and drop serde messages of their own (on
        // values already read); those do not send the read to the verifier.
        let loose = vec![
            Loose::Text("x".into()),
            Loose::Pair { a: 1, b: 2 },
            Loose::Number(3),
        ];
        let bytes = crate::to_vec(&loose).unwrap();
        let (read, once) = one_pass::<Vec<Loose>>(&bytes);
        assert_eq!(read, loose);
        assert!(once, "untagged");
        let outer = Outer {
            id: 1,
            rest: [("x".to_string(), 2), ("y".to_string(), 3)].into(),
        };
        let bytes = crate::to_vec(&outer).unwrap();
        let (read, once) = one_pass::<Outer>(&bytes);
        assert_eq!(read, outer);
        assert!(once, "flatten");
    }

    #[test]
    fn vectors_of_keys_are_read_verified() {
        let mut b = crate::Builder::new();
        b.start_vector();
        b.key("a");
        b.key("bc");
        b.end_typed_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        assert_eq!(
            crate::verify(&bytes).unwrap().root().flex_type(),
            crate::FlexType::VectorKey
        );
        let before = retries();
        let keys: Vec<String> = crate::from_slice(&bytes).unwrap();
        assert_eq!(keys, ["a", "bc"]);
        assert_eq!(retries(), before + 1);
    }

    #[test]
    fn a_field_error_swallowed_sends_the_read_to_the_verifier() {
        #[derive(Deserialize, Debug)]
        struct Lenient {
            #[serde(deserialize_with = "or_none")]
            name: Option<u32>,
        }
        fn or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
            Ok(u32::deserialize(d).ok())
        }
        let mut b = crate::Builder::new();
        b.start_map();
        b.key("name");
        b.string("abc");
        b.end_map().unwrap();
        let mut bytes = b.finish_vec().unwrap();
        // Valid: the string is refused as a `u32`, the field falls back to
        // `None`, and the verified read agrees.
        let before = retries();
        assert!(crate::from_slice::<Lenient>(&bytes).unwrap().name.is_none());
        assert_eq!(retries(), before + 1, "a swallowed error is read again");
        // The string's bytes broken: one pass never reads them (the type
        // is refused first), so only the verifier can see it.
        let at = bytes.windows(3).position(|w| w == b"abc").unwrap();
        bytes[at + 1] = 0xff;
        let err = crate::from_slice::<Lenient>(&bytes).unwrap_err();
        assert_eq!(err, crate::verify(&bytes).unwrap_err());
        assert_eq!(err.kind(), &crate::ErrorKind::InvalidUtf8);
    }
}
