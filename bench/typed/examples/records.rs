//! The generated Rust coders on record collections shaped like the datasets
//! of public Rust serialization benchmarks (an access log of 10,000 hits, a
//! mesh of 25,000 faces of `f32` points; `bench/datasets/records.fxs`, the
//! seeded values of `rust-core/benches/shared/datasets.rs`) and on 5,000
//! metric samples with labels and counters under string keys, against
//! `rmp_serde` (maps with field names, and arrays) and `serde_json` on serde
//! structs holding the same values:
//!
//! ```sh
//! cargo run --release --example records --manifest-path bench/typed/Cargo.toml
//! ```
//!
//! Each contender runs `n` calls in turn, nine rounds; medians per call and
//! peer time / ours are printed. Encodes write into a reused builder or
//! `Vec`; `to_flex` returns a fresh buffer. (The saved players and game
//! updates of `records.fxs` have enums and tuples that the serde structs
//! hold in another form, so they are not compared here.)

use std::hint::black_box;
use std::time::Instant;

use flexbuf::FlexCoder;
use flexbuf_bench_typed::{datasets, records};
use serde::{de::DeserializeOwned, Serialize};

/// Milliseconds per call of `n` calls of `f`.
fn time<R>(n: usize, mut f: impl FnMut() -> R) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    t.elapsed().as_secs_f64() * 1e3 / n as f64
}

/// Times the collection `s` and its generated counterpart `T` (read from
/// `s`'s JSON through `from_json`, by key).
fn compare<S, T>(name: &str, s: &S, n: usize)
where
    S: Serialize + DeserializeOwned,
    T: FlexCoder + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_string(s).expect("serializes");
    let t = T::from_flex(&flexbuf::from_json(&json).expect("parses")).expect("reads as the schema");
    let ours = t.to_flex().expect("encodes");
    assert_eq!(T::from_flex(&ours).expect("decodes"), t);
    let named = rmp_serde::to_vec_named(s).expect("encodes");
    let seq = rmp_serde::to_vec(s).expect("encodes");
    let mut builder = flexbuf::Builder::with_options(flexbuf::typed::typed_builder_options());
    type Call<'a> = Box<dyn FnMut() -> usize + 'a>;
    // An encode into a `Vec` kept from call to call.
    fn into_vec<'a>(write: impl Fn(&mut Vec<u8>) + 'a) -> Call<'a> {
        let mut out = Vec::new();
        Box::new(move || {
            out.clear();
            write(&mut out);
            out.len()
        })
    }
    let mut rows: Vec<(&str, Call<'_>, Vec<f64>)> = vec![
        (
            "decode",
            Box::new(|| T::from_flex(&ours).map(|_| 1).unwrap()),
            vec![],
        ),
        (
            "rmp decode (named)",
            Box::new(|| rmp_serde::from_slice::<S>(&named).map(|_| 1).unwrap()),
            vec![],
        ),
        (
            "rmp decode (arrays)",
            Box::new(|| rmp_serde::from_slice::<S>(&seq).map(|_| 1).unwrap()),
            vec![],
        ),
        (
            "json decode",
            Box::new(|| serde_json::from_str::<S>(&json).map(|_| 1).unwrap()),
            vec![],
        ),
        (
            "encode_with",
            Box::new(|| t.encode_with(&mut builder).unwrap().len()),
            vec![],
        ),
        ("to_flex", Box::new(|| t.to_flex().unwrap().len()), vec![]),
        (
            "rmp encode (named)",
            into_vec(|o| rmp_serde::encode::write_named(o, s).unwrap()),
            vec![],
        ),
        (
            "rmp encode (arrays)",
            into_vec(|o| rmp_serde::encode::write(o, s).unwrap()),
            vec![],
        ),
        (
            "json encode",
            into_vec(|o| serde_json::to_writer(o, s).unwrap()),
            vec![],
        ),
    ];
    for _ in 0..9 {
        for (_, call, times) in rows.iter_mut() {
            times.push(time(n, call));
        }
    }
    let median: Vec<f64> = rows
        .iter_mut()
        .map(|(_, _, t)| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    println!(
        "{name}: {} bytes (rmp_serde {} named, {} arrays)",
        ours.len(),
        named.len(),
        seq.len()
    );
    for ((label, _, _), m) in rows.iter().zip(&median) {
        println!("  {label:20} {m:8.3} ms");
    }
    let r = |peer: usize, ours: usize| median[peer] / median[ours];
    println!(
        "  decode vs rmp named {:.2}x, arrays {:.2}x, json {:.2}x; encode_with vs rmp named {:.2}x, arrays {:.2}x, json {:.2}x; to_flex vs rmp named {:.2}x",
        r(1, 0),
        r(2, 0),
        r(3, 0),
        r(6, 4),
        r(7, 4),
        r(8, 4),
        r(6, 5)
    );
}

fn main() {
    compare::<datasets::AccessLog, records::AccessLog>(
        "access_log",
        &datasets::access_log(10_000),
        20,
    );
    compare::<datasets::Mesh, records::Mesh>("mesh", &datasets::mesh(25_000), 20);
    compare::<datasets::Samples, records::Samples>("samples", &datasets::samples(5_000), 20);
}
