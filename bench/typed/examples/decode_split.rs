//! Splits the generated decode of each fixture into its parts, to see where
//! the time goes (used for the notes in `docs/benchmarks.md`):
//!
//! - `from_flex`: what the benchmark measures (one checked pass);
//! - `verify`: `flexbuf::verify` alone;
//! - `decode (verified)`: `decode_from` on the verified root;
//! - `decode (checked)`: `decode_from` on `Reader::new`, with no verify pass
//!   (every read bounds- and UTF-8-checked; what `from_flex` does);
//! - `clone`: cloning the decoded value, the cost of building the owned
//!   `String`s and `Vec`s that any decoder into these types pays;
//! - `serde_json` and `rmp_serde` decode, and the generated `encode_with`.
//!
//! Run with `cargo run --release --example decode_split --manifest-path
//! bench/typed/Cargo.toml`. Each figure is the best of 15 rounds (ns per
//! operation), which is steadier than a median on a shared machine.

use std::hint::black_box;
use std::time::Instant;

use flexbuf::{DecodeContext, FlexCoder, Reader};
use flexbuf_bench_typed::{model, Fixture, Format, Loaded};

/// Best time per call over 15 rounds of `n` calls, in ns.
fn best<R>(n: u32, mut f: impl FnMut() -> R) -> f64 {
    (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                black_box(f());
            }
            t.elapsed().as_nanos() as f64 / f64::from(n)
        })
        .fold(f64::MAX, f64::min)
}

fn split<F: Fixture>(n: u32) {
    let loaded = Loaded::<F>::load().unwrap_or_else(|e| panic!("{}: {e}", F::NAME));
    let encoded = |f: Format| {
        loaded
            .encode(f)
            .unwrap_or_else(|e| panic!("{}: {f:?}: {e}", F::NAME))
    };
    let (flex, json, rmp) = (
        encoded(Format::Generated),
        encoded(Format::SerdeJson),
        encoded(Format::RmpSerde),
    );
    let len = flex.len();
    let root = flexbuf::verify(&flex).expect("verifies").root();
    let mut builder = flexbuf::Builder::with_options(flexbuf::typed::typed_builder_options());
    let figures = [
        best(n, || F::Gen::from_flex(&flex).unwrap()),
        best(n, || flexbuf::verify(&flex).unwrap().root().offset()),
        best(n, || {
            F::Gen::decode_from(root, &mut DecodeContext::new(len)).unwrap()
        }),
        best(n, || {
            let r = Reader::new(&flex).unwrap();
            F::Gen::decode_from(r, &mut DecodeContext::new(len)).unwrap()
        }),
        best(n, || loaded.gen.clone()),
        best(n, || serde_json::from_slice::<F::Serde>(&json).unwrap()),
        best(n, || rmp_serde::from_slice::<F::Serde>(&rmp).unwrap()),
        best(n, || loaded.gen.encode_with(&mut builder).unwrap().len()),
    ];
    let cells: Vec<String> = figures
        .iter()
        .map(|ns| format!("{:.1}", ns / 1e3))
        .collect();
    println!("| {} | {} |", F::NAME, cells.join(" | "));
}

fn main() {
    println!(
        "| fixture (µs) | from_flex | verify | decode (verified) | decode (checked) | clone | \
         serde_json | rmp_serde | encode |"
    );
    println!("|---|{}", "---:|".repeat(8));
    split::<model::user_profile::UserProfile>(2000);
    split::<model::api_response::ApiResponse>(100);
    split::<model::time_series::TimeSeries>(100);
    split::<model::chat_thread::ChatThread>(100);
    split::<model::unicode_heavy::UnicodeHeavy>(50);
    split::<model::string_flood::StringFlood>(20);
    split::<model::wide_map::WideMap>(2000);
    split::<model::metrics_96k::Metrics>(100);
    split::<model::repeated_maps::RepeatedMaps>(20);
    split::<model::width_bomb::WidthBomb>(200);
}
