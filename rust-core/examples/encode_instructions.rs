//! Encodes one fixture `N` times, as `cargo xtask bench core`'s encode rows
//! do (a reused builder driven by walking a `serde_json::Value`; the peers
//! serialize the same `Value` into a reused `Vec`), for instruction counts
//! under `valgrind --tool=callgrind`:
//!
//! ```text
//! cargo build --release -p flexbuf --example encode_instructions
//! valgrind --tool=callgrind target/release/examples/encode_instructions user_profile flexbuf 11
//! ```
//!
//! Modes: `flexbuf`, `flexbuf_unsorted` (keys pushed descending, maps
//! ended with a kept guess at their order, as Python's `dumps` does),
//! `serde_json`, `rmp_serde`; for the serde tier,
//! `to_vec` (`flexbuf::to_vec`, with `--features serde`) and
//! `flexbuffers_to_vec` (the `flexbuffers` crate's), and the other way,
//! `from_slice` and `flexbuffers_from_slice` (each crate's `to_vec` bytes
//! back into a `Value`). `records_to_vec` and `records_flexbuffers_to_vec`
//! serialize 10,000 records shaped like the core bench's `records_100k`
//! (the fixture argument is then only loaded). Counts for `N` = 1 and 11
//! differ by ten runs; setup cancels out.

#[path = "shared/fixture.rs"]
mod fixture;

use std::hint::black_box;

use flexbuf::Builder;
use serde_json::Value;

fn push(b: &mut Builder, value: &Value) -> flexbuf::Result<()> {
    match value {
        Value::Null => b.null(),
        Value::Bool(v) => b.bool(*v),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                b.int(i);
            } else if let Some(u) = n.as_u64() {
                b.uint(u);
            } else {
                b.double(n.as_f64().unwrap_or(f64::NAN));
            }
        }
        Value::String(s) => b.string(s),
        Value::Array(items) => {
            b.start_vector();
            for item in items {
                push(b, item)?;
            }
            b.end_vector()?;
        }
        Value::Object(map) => {
            b.start_map();
            for (k, v) in map {
                b.key(k);
                push(b, v)?;
            }
            b.end_map()?;
        }
    }
    Ok(())
}

/// [`push`] with each map's keys pushed in descending order and the map
/// ended with a guess at its order kept per map ordinal, as the Python
/// SDK's `dumps` ends the dicts it meets again (insertion order, unsorted).
fn push_unsorted(
    b: &mut Builder,
    value: &Value,
    orders: &mut Vec<Vec<u32>>,
    next: &mut usize,
) -> flexbuf::Result<()> {
    match value {
        Value::Array(items) => {
            b.start_vector();
            for item in items {
                push_unsorted(b, item, orders, next)?;
            }
            b.end_vector()?;
        }
        Value::Object(map) => {
            b.start_map();
            for (k, v) in map.iter().rev() {
                b.key(k);
                push_unsorted(b, v, orders, next)?;
            }
            let i = *next;
            *next += 1;
            if orders.len() <= i {
                orders.resize_with(i + 1, Vec::new);
            }
            b.end_map_in_order(&mut orders[i])?;
        }
        other => push(b, other)?,
    }
    Ok(())
}

#[path = "../benches/shared/records.rs"]
mod records;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fixture, mode, times] = &args[..] else {
        eprintln!("usage: encode_instructions <fixture> <flexbuf|flexbuf_unsorted|serde_json|rmp_serde|to_vec|flexbuffers_to_vec|from_slice|flexbuffers_from_slice|records_to_vec|records_flexbuffers_to_vec|records_from_slice|records_flexbuffers_from_slice> <times>");
        std::process::exit(2);
    };
    let path = fixture::path(fixture);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let value: Value = serde_json::from_str(&text).expect("fixture parses");
    let times: usize = times.parse().expect("a count");
    // The serde tier's own bytes for the decode modes.
    #[cfg(feature = "serde")]
    let ours = flexbuf::to_vec(&value).unwrap();
    let theirs = flexbuffers::to_vec(&value).unwrap();
    let recs = if mode.starts_with("records_") {
        records::records(10_000)
    } else {
        Vec::new()
    };
    #[cfg(feature = "serde")]
    let recs_ours = flexbuf::to_vec(&recs).unwrap();
    let recs_theirs = flexbuffers::to_vec(&recs).unwrap();
    let mut builder = Builder::new();
    let mut out = Vec::new();
    let mut orders: Vec<Vec<u32>> = Vec::new();
    for _ in 0..times {
        let n = match mode.as_str() {
            "serde_json" => {
                out.clear();
                serde_json::to_writer(&mut out, black_box(&value)).unwrap();
                out.len()
            }
            "rmp_serde" => {
                out.clear();
                rmp_serde::encode::write(&mut out, black_box(&value)).unwrap();
                out.len()
            }
            #[cfg(feature = "serde")]
            "to_vec" => flexbuf::to_vec(black_box(&value)).unwrap().len(),
            "flexbuffers_to_vec" => flexbuffers::to_vec(black_box(&value)).unwrap().len(),
            #[cfg(feature = "serde")]
            "records_to_vec" => flexbuf::to_vec(black_box(&recs)).unwrap().len(),
            "records_flexbuffers_to_vec" => flexbuffers::to_vec(black_box(&recs)).unwrap().len(),
            #[cfg(feature = "serde")]
            "records_from_slice" => {
                flexbuf::from_slice::<Vec<records::Record>>(black_box(&recs_ours))
                    .unwrap()
                    .len()
            }
            "records_flexbuffers_from_slice" => {
                flexbuffers::from_slice::<Vec<records::Record>>(black_box(&recs_theirs))
                    .unwrap()
                    .len()
            }
            #[cfg(feature = "serde")]
            "from_slice" => match flexbuf::from_slice::<Value>(black_box(&ours)).unwrap() {
                Value::Object(m) => m.len(),
                _ => 0,
            },
            "flexbuffers_from_slice" => {
                match flexbuffers::from_slice::<Value>(black_box(&theirs)).unwrap() {
                    Value::Object(m) => m.len(),
                    _ => 0,
                }
            }
            "flexbuf_unsorted" => {
                builder.clear();
                let mut next = 0;
                push_unsorted(&mut builder, black_box(&value), &mut orders, &mut next).unwrap();
                builder.finish().unwrap().len()
            }
            _ => {
                builder.clear();
                push(&mut builder, black_box(&value)).unwrap();
                builder.finish().unwrap().len()
            }
        };
        black_box(n);
    }
}
