//! One generated operation repeated, for instruction counts under callgrind
//! (stable on a shared machine, unlike times):
//!
//! ```sh
//! cargo build --release --example typed_profile --manifest-path bench/typed/Cargo.toml
//! valgrind --tool=callgrind bench/typed/target/release/examples/typed_profile user_profile decode 1000
//! ```
//!
//! Arguments: fixture, operation (`decode`: `from_flex`; `strict`:
//! `from_flex_strict`; `borrowed`: the `Ref` type's `from_flex_borrowed`;
//! `encode`: `encode_with`; `to_flex`: a fresh buffer each call; `json`, `rmp`, `prost`: the peers' decode;
//! `rmp_borrowed`: `rmp_serde` into the borrowing serde structs; `serde`:
//! `flexbuf::from_slice` into the serde structs, `flexbuffers`: the
//! `flexbuffers` crate's `from_slice` into them;
//! `rmp_encode`, `prost_encode`: theirs into a reused `Vec`), and the
//! repetition count. The difference between the totals of
//! two counts, divided by the difference of the counts, is the cost of one
//! operation without the set-up.

use std::hint::black_box;

use flexbuf::{FlexBorrow, FlexCoder};
use flexbuf_bench_typed::{model, Fixture, Format, Loaded};
use prost::Message as _;

fn run<F: Fixture>(op: &str, n: usize) {
    let loaded = Loaded::<F>::load().unwrap_or_else(|e| panic!("{}: {e}", F::NAME));
    let bytes = |f: Format| loaded.encode(f).expect("encodes");
    match op {
        "decode" => {
            let b = bytes(Format::Generated);
            for _ in 0..n {
                black_box(F::Gen::from_flex(black_box(&b)).unwrap());
            }
        }
        "borrowed" => {
            let b = bytes(Format::Generated);
            for _ in 0..n {
                black_box(
                    <F::GenRef<'_> as FlexBorrow>::from_flex_borrowed(black_box(&b)).unwrap(),
                );
            }
        }
        "rmp_borrowed" => {
            let b = bytes(Format::RmpSerde);
            for _ in 0..n {
                black_box(rmp_serde::from_slice::<F::SerdeRef<'_>>(black_box(&b)).unwrap());
            }
        }
        "strict" => {
            let b = bytes(Format::Generated);
            for _ in 0..n {
                black_box(F::Gen::from_flex_strict(black_box(&b)).unwrap());
            }
        }
        "encode" => {
            let mut builder =
                flexbuf::Builder::with_options(flexbuf::typed::typed_builder_options());
            for _ in 0..n {
                black_box(loaded.gen.encode_with(&mut builder).unwrap().len());
            }
        }
        "to_flex" => {
            for _ in 0..n {
                black_box(loaded.gen.to_flex().unwrap().len());
            }
        }
        "rmp_encode" => {
            let mut buf = Vec::new();
            for _ in 0..n {
                buf.clear();
                rmp_serde::encode::write(&mut buf, black_box(&loaded.serde)).unwrap();
                black_box(buf.len());
            }
        }
        "prost_encode" => {
            let mut buf = Vec::new();
            for _ in 0..n {
                buf.clear();
                black_box(&loaded.proto).encode(&mut buf).unwrap();
                black_box(buf.len());
            }
        }
        "json" => {
            let b = bytes(Format::SerdeJson);
            for _ in 0..n {
                black_box(serde_json::from_slice::<F::Serde>(black_box(&b)).unwrap());
            }
        }
        "rmp" => {
            let b = bytes(Format::RmpSerde);
            for _ in 0..n {
                black_box(rmp_serde::from_slice::<F::Serde>(black_box(&b)).unwrap());
            }
        }
        "serde" => {
            let b = bytes(Format::FlexbufSerde);
            for _ in 0..n {
                black_box(flexbuf::from_slice::<F::Serde>(black_box(&b)).unwrap());
            }
        }
        "flexbuffers" => {
            let b = bytes(Format::Flexbuffers);
            for _ in 0..n {
                black_box(flexbuffers::from_slice::<F::Serde>(black_box(&b)).unwrap());
            }
        }
        "prost" => {
            let b = bytes(Format::Prost);
            for _ in 0..n {
                black_box(F::Proto::decode(black_box(&b[..])).unwrap());
            }
        }
        other => panic!("unknown operation {other}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fixture, op, n] = &args[..] else {
        panic!("usage: typed_profile <fixture> <decode|strict|encode|json|rmp|prost|rmp_encode|prost_encode> <count>");
    };
    let n: usize = n.parse().expect("count");
    match fixture.as_str() {
        "user_profile" => run::<model::user_profile::UserProfile>(op, n),
        "api_response" => run::<model::api_response::ApiResponse>(op, n),
        "time_series" => run::<model::time_series::TimeSeries>(op, n),
        "chat_thread" => run::<model::chat_thread::ChatThread>(op, n),
        "unicode_heavy" => run::<model::unicode_heavy::UnicodeHeavy>(op, n),
        "string_flood" => run::<model::string_flood::StringFlood>(op, n),
        "wide_map" => run::<model::wide_map::WideMap>(op, n),
        "metrics_96k" => run::<model::metrics_96k::Metrics>(op, n),
        "repeated_maps" => run::<model::repeated_maps::RepeatedMaps>(op, n),
        "width_bomb" => run::<model::width_bomb::WidthBomb>(op, n),
        other => panic!("unknown fixture {other}"),
    }
}
