//! The serde tier against the `flexbuffers` crate's serde, on the record
//! collections of the core bench (`benches/shared/datasets.rs`: structs,
//! `Option`s, unit and data-carrying enums, tuples, arrays, vectors of
//! bools, bytes and numbers) and on the 100,000-record bench's records:
//! what `flexbuf::to_vec` writes, the crate's `from_slice` reads back as the
//! same value, and what the crate's `to_vec` writes, `flexbuf::from_slice`
//! reads back as the same value. The bytes differ (we share keys vectors
//! and pool keys); the conventions (a struct as a map by field name, an
//! enum variant as its name or a one-entry map, `None` as null) agree.

#![cfg(feature = "serde")]

#[path = "../benches/shared/datasets.rs"]
mod datasets;
#[path = "../benches/shared/records.rs"]
mod records;

use serde::de::DeserializeOwned;
use serde::Serialize;

fn both_ways<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(name: &str, value: &T) {
    let ours = flexbuf::to_vec(value).unwrap();
    let read_by_crate: T = flexbuffers::from_slice(&ours)
        .unwrap_or_else(|e| panic!("{name}: the crate cannot read our bytes: {e}"));
    assert!(
        read_by_crate == *value,
        "{name}: the crate read our bytes as another value"
    );
    let theirs = flexbuffers::to_vec(value).unwrap();
    let read_by_us: T = flexbuf::from_slice(&theirs)
        .unwrap_or_else(|e| panic!("{name}: we cannot read the crate's bytes: {e}"));
    assert!(
        read_by_us == *value,
        "{name}: we read the crate's bytes as another value"
    );
}

#[test]
fn record_collections_cross_both_ways() {
    both_ways("access log", &datasets::access_log(500));
    both_ways("mesh", &datasets::mesh(500));
    both_ways("saved players", &datasets::save_data(100));
    both_ways("game updates", &datasets::updates(100));
    both_ways("records", &records::records(500));
}

#[test]
fn short_sequences_are_fixed_vectors_as_the_crate_writes_them() {
    // A pair, a triple and a quadruple of numbers in `Vec`s: fixed vectors
    // in both encodings, so the two buffers of a list of them are the same
    // size.
    let pairs: Vec<Vec<f64>> = (0..50).map(|i| vec![i as f64 * 0.5, -1.25]).collect();
    let triples: Vec<Vec<u32>> = (0..50).map(|i| vec![i, i + 1, 70_000]).collect();
    let quads: Vec<Vec<i16>> = (0..50).map(|i| vec![i, -i, 7, -300]).collect();
    for (ours, theirs) in [
        (
            flexbuf::to_vec(&pairs).unwrap(),
            flexbuffers::to_vec(&pairs).unwrap(),
        ),
        (
            flexbuf::to_vec(&triples).unwrap(),
            flexbuffers::to_vec(&triples).unwrap(),
        ),
        (
            flexbuf::to_vec(&quads).unwrap(),
            flexbuffers::to_vec(&quads).unwrap(),
        ),
    ] {
        assert_eq!(ours.len(), theirs.len());
    }
    both_ways("pairs", &pairs);
    both_ways("triples", &triples);
    both_ways("quadruples", &quads);
}
