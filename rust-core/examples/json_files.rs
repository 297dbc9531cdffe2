//! Times `from_json` and `to_json` against `serde_json` (parsing into a
//! `serde_json::Value`, and `to_string` of it) on JSON files of any size,
//! such as the public benchmark documents `canada.json`, `citm_catalog.json`
//! and `twitter.json` (the `data/` directory of serde-rs/json-benchmark):
//!
//! ```text
//! cargo run --release -p flexbuf --example json_files -- canada.json twitter.json
//! ```
//!
//! Each file: 15 rounds, each timing 5 calls of every contender in turn
//! (wall clock); medians per call and peer time / ours.

use std::hint::black_box;
use std::time::Instant;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: json_files <file.json>...");
        std::process::exit(2);
    }
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("a readable file");
        let bytes = flexbuf::from_json(&text).expect("JSON that converts");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON that parses");
        let mut times: [Vec<f64>; 4] = Default::default();
        for _ in 0..15 {
            for (i, t) in times.iter_mut().enumerate() {
                let start = Instant::now();
                for _ in 0..5 {
                    match i {
                        0 => drop(black_box(flexbuf::from_json(black_box(&text)))),
                        1 => drop(black_box(serde_json::from_str::<serde_json::Value>(
                            black_box(&text),
                        ))),
                        2 => drop(black_box(flexbuf::to_json(black_box(&bytes)))),
                        _ => drop(black_box(serde_json::to_string(black_box(&value)))),
                    }
                }
                t.push(start.elapsed().as_secs_f64() / 5.0 * 1e3);
            }
        }
        let m: Vec<f64> = times
            .iter_mut()
            .map(|t| {
                t.sort_by(f64::total_cmp);
                t[t.len() / 2]
            })
            .collect();
        println!(
            "{path}: from_json {:.3} ms, serde_json parse {:.3} ms ({:.2}x); to_json {:.3} ms, serde_json to_string {:.3} ms ({:.2}x)",
            m[0],
            m[1],
            m[1] / m[0],
            m[2],
            m[3],
            m[3] / m[2]
        );
    }
}
