//! Runs `to_json` (or, with `serde`, `serde_json::to_string` of the same
//! document as a `serde_json::Value`) `N` times on one fixture, for
//! instruction counts under `valgrind --tool=callgrind`; `from_json` and
//! `serde_parse` time the other direction (text to a buffer, text to a
//! `serde_json::Value`):
//!
//! ```text
//! cargo build --release --example json_instructions
//! valgrind --tool=callgrind target/release/examples/json_instructions api_response to_json 11
//! ```
//!
//! Counts for `N` = 1 and 11 differ by ten conversions; setup cancels out.

#[path = "shared/fixture.rs"]
mod fixture;

use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fixture, mode, times] = &args[..] else {
        eprintln!(
            "usage: json_instructions <fixture> <to_json|serde|from_json|serde_parse> <times>"
        );
        std::process::exit(2);
    };
    let path = fixture::path(fixture);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let bytes = flexbuf::from_json(&text).expect("fixture converts");
    let value: serde_json::Value = serde_json::from_str(&text).expect("fixture parses");
    let times: usize = times.parse().expect("a count");
    for _ in 0..times {
        let n = match mode.as_str() {
            "serde" => serde_json::to_string(black_box(&value)).unwrap().len(),
            "from_json" => flexbuf::from_json(black_box(&text)).unwrap().len(),
            "serde_parse" => match serde_json::from_str::<serde_json::Value>(black_box(&text)) {
                Ok(serde_json::Value::Object(m)) => m.len(),
                Ok(_) => 1,
                Err(e) => panic!("{e}"),
            },
            _ => flexbuf::to_json(black_box(&bytes)).unwrap().len(),
        };
        black_box(n);
    }
}
