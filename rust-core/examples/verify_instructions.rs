//! Runs the verifier (or, with `before`, the one it replaced) `N` times on one
//! fixture, for instruction counts under `valgrind --tool=callgrind`, which
//! stay the same on a machine whose shared cores make timings noisy:
//!
//! ```text
//! cargo build --release --example verify_instructions --features reference-verifier
//! valgrind --tool=callgrind target/release/examples/verify_instructions api_response now 11
//! ```
//!
//! Counts for `N` = 1 and 11 differ by ten verifications; setup cancels out.

use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fixture, mode, times] = &args[..] else {
        eprintln!("usage: verify_instructions <fixture> <now|before> <times>");
        std::process::exit(2);
    };
    let path = format!(
        "{}/../conformance/fixtures/{fixture}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let bytes = flexbuf::from_json(&text).expect("fixture converts");
    let times: usize = times.parse().expect("a count");
    for _ in 0..times {
        let ok = match mode.as_str() {
            "before" => flexbuf::verify_reference(black_box(&bytes)).is_ok(),
            _ => flexbuf::verify(black_box(&bytes)).is_ok(),
        };
        assert!(black_box(ok));
    }
}
