//! The serde tier on arbitrary bytes: `flexbuf::from_slice` into structs,
//! enums, options, maps, fixed arrays and `serde_json::Value`.
//!
//! Must hold for any input: nothing panics; `from_slice`, which reads
//! unverified bytes in one pass, gives exactly what verifying first and then
//! deserializing the verified buffer gives (the verifier's error when it
//! rejects the bytes, else the same value or the same error), so it never
//! accepts bytes `verify` rejects; and a value it returns re-encodes
//! (`to_vec`) to bytes that decode and re-encode to the same bytes. Some of
//! the types read skip fields (whose values one pass must still check) or
//! swallow the error of a field (after which one pass must not keep its
//! result).
//! The struct reads go through the deserializer's cache of keys by keys
//! vector, so hostile buffers whose maps share, move or re-width their keys
//! vectors reach it.
//!
//! Shared by the `serde_from_slice` fuzz target and `rust-core/tests/serde_tier.rs`
//! (which replays the seed corpus and one-byte mutations of [`seeds`]).

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize};

/// The records of the core bench's `serde_records_100k` (strings, a float,
/// a bool, a `Vec<String>`, a `[f32; 3]`, a `Vec<u32>`).
#[path = "../../rust-core/benches/shared/records.rs"]
pub mod records;
use records::Record;

/// A point; three of them and a normal make a triangle.
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
pub struct V3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// Nested structs of one type in another: the cache holds both.
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
pub struct Tri {
    pub v0: V3,
    pub v1: V3,
    pub v2: V3,
    pub normal: V3,
}

/// Every enum variant kind.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub enum Shape {
    Dot,
    Circle(f64),
    Rect { w: u32, h: u32 },
    Path(Vec<V3>),
}

/// A recursive struct with optional fields and defaults.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Part {
    pub id: i32,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub kids: Vec<Part>,
}

/// A document mixing the rest, with renamed fields and a string-keyed map.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Doc {
    #[serde(rename = "t")]
    pub title: String,
    pub parts: Vec<Part>,
    pub by_name: BTreeMap<String, i64>,
    pub shape: Option<Shape>,
    pub shapes: Vec<Shape>,
}

/// Two fields of a [`Record`]: the others are skipped.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Slim {
    pub id: u64,
    pub name: String,
}

/// A [`Record`] whose `tags` and `position` fall back to `None` when they
/// cannot be read: the field's error is swallowed.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Lenient {
    pub id: u64,
    #[serde(deserialize_with = "or_none", default)]
    pub tags: Option<Vec<String>>,
    #[serde(deserialize_with = "or_none", default)]
    pub position: Option<[f32; 3]>,
    pub email: String,
    /// The record's `name`, refused unread (by [`Refuse`]) and dropped.
    #[serde(rename = "name", deserialize_with = "or_none", default)]
    pub refused: Option<Option<Refuse>>,
}

/// Refuses whatever it is offered without reading it (a serde message).
#[derive(Serialize, Debug, Clone)]
pub struct Refuse;

impl<'de> Deserialize<'de> for Refuse {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom("refused"))
    }
}

/// A map read by a visitor that asks for each value without its key (so
/// no key is read), and with `REFUSE` drops the [`Refuse`] error of each
/// (so no value is read either); without, it skips each value. The count
/// of entries is the value.
#[derive(Debug, Clone, Default)]
pub struct Careless<const REFUSE: bool>(pub usize);

impl<'de, const REFUSE: bool> Deserialize<'de> for Careless<REFUSE> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<const R: bool>;
        impl<'de, const R: bool> serde::de::Visitor<'de> for Entries<R> {
            type Value = Careless<R>;
            fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut n = 0;
                while m.size_hint().unwrap_or(0) > 0 {
                    if R {
                        let _ = m.next_value::<Refuse>();
                    } else {
                        m.next_value::<IgnoredAny>()?;
                    }
                    n += 1;
                }
                Ok(Careless(n))
            }
        }
        d.deserialize_map(Entries::<REFUSE>)
    }
}

/// A value, or `None` when it cannot be read as a `T` (its error dropped).
fn or_none<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(d).ok())
}

/// Runs every check on `data` (see the module documentation).
pub fn check_serde(data: &[u8]) {
    let verified = flexbuf::verify(data).map(|_| ());
    let value = check_as::<serde_json::Value>(data, &verified, None);
    let value = value.as_ref();
    check_as::<Vec<Record>>(data, &verified, value);
    check_as::<Vec<Tri>>(data, &verified, value);
    check_as::<Doc>(data, &verified, value);
    check_as::<Part>(data, &verified, value);
    check_as::<Vec<Shape>>(data, &verified, value);
    check_as::<Vec<Slim>>(data, &verified, value);
    // Not against the `Value` read: what fails to read (and falls back)
    // differs between the two sources.
    check_as::<Vec<Lenient>>(data, &verified, None);
    check_as::<BTreeMap<String, serde_json::Value>>(data, &verified, value);
    same_as_verified::<Vec<Careless<true>>>(data, |v| v.iter().map(|c| c.0 as u8).collect());
    same_as_verified::<Vec<Careless<false>>>(data, |v| v.iter().map(|c| c.0 as u8).collect());
    same_as_verified::<IgnoredAny>(data, |_| Vec::new());
}

/// Reads `data` as verifying first and then deserializing did before
/// `from_slice` read in one pass: the reference for it.
fn verified_read<'de, T: Deserialize<'de>>(data: &'de [u8]) -> Result<T, flexbuf::Error> {
    let verified = flexbuf::verify(data)?;
    let budget = flexbuf::Budget::for_input(data.len());
    T::deserialize(&mut flexbuf::Deserializer::new(verified, budget))
}

/// `from_slice` of `data` as a `T` gives what [`verified_read`] gives: the
/// same error, or values that `bytes_of` turns into the same bytes.
fn same_as_verified<T: DeserializeOwned>(data: &[u8], bytes_of: impl Fn(&T) -> Vec<u8>) {
    match (flexbuf::from_slice::<T>(data), verified_read::<T>(data)) {
        (Err(e), Err(v)) => assert_eq!(e, v, "from_slice must give the verified read's error"),
        (Ok(read), Ok(reference)) => assert_eq!(
            bytes_of(&read),
            bytes_of(&reference),
            "from_slice must read what the verified read reads"
        ),
        (Ok(_), Err(v)) => panic!("from_slice accepted what the verified read rejects ({v})"),
        (Err(e), Ok(_)) => panic!("from_slice rejected what the verified read accepts ({e})"),
    }
}

/// The checks for reading `data` as a `T`, and the value read. With
/// `value` (the same bytes read as `serde_json::Value`, whose maps are read
/// key by key, without the key cache), a `T` read from both must be the
/// same `T`: a struct read never takes a field from another key.
fn check_as<T: DeserializeOwned + Serialize>(
    data: &[u8],
    verified: &Result<(), flexbuf::Error>,
    value: Option<&serde_json::Value>,
) -> Option<T> {
    same_as_verified::<T>(data, |v| flexbuf::to_vec(v).unwrap_or_default());
    match (flexbuf::from_slice::<T>(data), verified) {
        (Err(e), Err(v)) => {
            assert_eq!(&e, v, "from_slice must report verify's error");
            None
        }
        (Ok(_), Err(v)) => panic!("from_slice accepted bytes verify rejects ({v})"),
        (Err(_), Ok(())) => None,
        (Ok(read), Ok(())) => {
            let encoded = flexbuf::to_vec(&read).ok();
            if let (Some(value), Some(bytes)) = (value, &encoded) {
                if let Ok(by_value) = serde_json::from_value::<T>(value.clone()) {
                    assert_eq!(
                        flexbuf::to_vec(&by_value).ok().as_ref(),
                        Some(bytes),
                        "a struct read differs from the same bytes read key by key"
                    );
                }
            }
            check_round_trip::<T>(encoded);
            Some(read)
        }
    }
}

/// `encoded` (`to_vec` of a value read, when it encodes: every value here
/// does) decodes, and re-encodes to itself.
fn check_round_trip<T: DeserializeOwned + Serialize>(encoded: Option<Vec<u8>>) {
    let Some(bytes) = encoded else {
        return;
    };
    let again: T = flexbuf::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("a re-encoded value does not decode: {e}"));
    assert_eq!(
        flexbuf::to_vec(&again).expect("encodes as it did before"),
        bytes,
        "a decoded value re-encodes differently"
    );
}

/// Buffers of every type [`check_serde`] reads, as `to_vec` writes them:
/// seeds for the fuzzer, and the inputs the tests mutate.
pub fn seeds() -> Vec<Vec<u8>> {
    let v3 = |i: u32| V3 {
        x: i as f32,
        y: -(i as f32) * 0.5,
        z: 1.25,
    };
    let records = records::records(3);
    let tris: Vec<Tri> = (0..3)
        .map(|i| Tri {
            v0: v3(i),
            v1: v3(i + 1),
            v2: v3(i + 2),
            normal: v3(7),
        })
        .collect();
    let leaf = |id: i32| Part {
        id,
        label: None,
        kids: Vec::new(),
    };
    let part = Part {
        id: 1,
        label: Some("root".into()),
        kids: vec![
            leaf(2),
            Part {
                id: 3,
                label: Some("inner".into()),
                kids: vec![leaf(4), leaf(5)],
            },
        ],
    };
    let shapes = vec![
        Shape::Dot,
        Shape::Circle(2.5),
        Shape::Rect { w: 3, h: 4 },
        Shape::Path(vec![v3(1), v3(2)]),
    ];
    let doc = Doc {
        title: "doc".into(),
        parts: vec![part.clone(), leaf(9)],
        by_name: [("a".to_string(), 1), ("bb".to_string(), -2)].into(),
        shape: Some(Shape::Rect { w: 1, h: 2 }),
        shapes: shapes.clone(),
    };
    vec![
        flexbuf::to_vec(&records).expect("records encode"),
        flexbuf::to_vec(&tris).expect("triangles encode"),
        flexbuf::to_vec(&part).expect("parts encode"),
        flexbuf::to_vec(&shapes).expect("shapes encode"),
        flexbuf::to_vec(&doc).expect("documents encode"),
    ]
}
