//! The serde tier's `from_slice` on common shapes the fixtures do not have
//! (20,000-element collections of enums, pairs, floats, tuples and small
//! structs), beside the `flexbuffers` crate and `rmp_serde` decoding their own
//! bytes of the same values: median of 9 x 20 calls each, one process, not
//! interleaved (for finding cliffs, not for verdicts).
//!
//! ```text
//! cargo run --release -p flexbuf --example serde_shapes --features serde [enums|pairs|f64|tuples|structs]
//! ```
//!
//! With `PROF=1` set it only decodes the chosen shape 300 times with
//! `flexbuf::from_slice`, for `perf record`.

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::Instant;

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
enum Ev {
    Click { x: u32, y: u32 },
    Key(String),
    Idle,
    Scroll(i32, i32),
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
struct Three {
    a: u32,
    b: String,
    c: bool,
}

fn time<F: FnMut()>(mut f: F) -> f64 {
    let mut v = Vec::new();
    for _ in 0..9 {
        let t = Instant::now();
        for _ in 0..20 {
            f();
        }
        v.push(t.elapsed().as_secs_f64() / 20.0 * 1e6);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[4]
}

fn run<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(name: &str, v: &T) {
    let ours = flexbuf::to_vec(v).unwrap();
    let theirs = flexbuffers::to_vec(v).unwrap();
    let rmp = rmp_serde::to_vec(v).unwrap();
    assert_eq!(&flexbuf::from_slice::<T>(&ours).unwrap(), v);
    if std::env::var("PROF").as_deref() == Ok("ser") {
        for _ in 0..300 {
            black_box(flexbuf::to_vec(black_box(v)).unwrap());
        }
        return;
    }
    if std::env::var("PROF").is_ok() {
        for _ in 0..300 {
            black_box(flexbuf::from_slice::<T>(black_box(&ours)).unwrap());
        }
        return;
    }
    compare(
        name,
        "from_slice",
        || black_box(flexbuf::from_slice::<T>(black_box(&ours)).unwrap()),
        || black_box(flexbuffers::from_slice::<T>(black_box(&theirs)).unwrap()),
        || black_box(rmp_serde::from_slice::<T>(black_box(&rmp)).unwrap()),
    );
    compare(
        name,
        "to_vec",
        || black_box(flexbuf::to_vec(black_box(v)).unwrap()),
        || black_box(flexbuffers::to_vec(black_box(v)).unwrap()),
        || black_box(rmp_serde::to_vec(black_box(v)).unwrap()),
    );
}

/// Times ours, the `flexbuffers` crate's and `rmp_serde`'s version of one
/// operation and prints the medians with each peer's time over ours.
fn compare<A, B, C>(
    name: &str,
    what: &str,
    mut ours: impl FnMut() -> A,
    mut flexbuffers: impl FnMut() -> B,
    mut rmp: impl FnMut() -> C,
) {
    let a = time(|| drop(ours()));
    let b = time(|| drop(flexbuffers()));
    let c = time(|| drop(rmp()));
    println!(
        "{name:14} {what:10} {a:8.1} µs  flexbuffers {b:8.1} ({:.2}x)  rmp {c:8.1} ({:.2}x)",
        b / a,
        c / a
    );
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let n = 20_000u32;
    if which.is_empty() || which == "enums" {
        let evs: Vec<Ev> = (0..n)
            .map(|i| match i % 4 {
                0 => Ev::Click { x: i, y: i * 2 },
                1 => Ev::Key(format!("k{i}")),
                2 => Ev::Idle,
                _ => Ev::Scroll(i as i32, -(i as i32)),
            })
            .collect();
        run("enums", &evs);
    }
    if which.is_empty() || which == "pairs" {
        let pairs: Vec<Vec<u32>> = (0..n).map(|i| vec![i, i + 1]).collect();
        run("vec_pairs", &pairs);
    }
    if which.is_empty() || which == "f64" {
        let f: Vec<f64> = (0..n).map(|i| i as f64 * 0.37).collect();
        run("vec_f64", &f);
    }
    if which.is_empty() || which == "tuples" {
        let t: Vec<(u32, String, bool)> =
            (0..n).map(|i| (i, format!("s{i}"), i % 2 == 0)).collect();
        run("tuples", &t);
    }
    if which.is_empty() || which == "hashmap" {
        let m: std::collections::HashMap<String, u32> =
            (0..n).map(|i| (format!("key{i}"), i)).collect();
        run("hashmap", &m);
    }
    if which.is_empty() || which == "btreemap" {
        let m: std::collections::BTreeMap<String, u32> =
            (0..n).map(|i| (format!("key{i}"), i)).collect();
        run("btreemap", &m);
    }
    if which.is_empty() || which == "structs" {
        let t: Vec<Three> = (0..n)
            .map(|i| Three {
                a: i,
                b: format!("s{i}"),
                c: i % 2 == 0,
            })
            .collect();
        run("structs", &t);
    }
}
