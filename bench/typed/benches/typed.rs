//! Generated coders vs serde formats, prost and flatbuffers, per fixture.
//!
//! Groups (criterion ids `<fixture>.<kind>/<format>`):
//!
//! - `encode`: an owned value to bytes. The generated coder reuses one
//!   `Builder` (`encode_with`), prost one `Vec`, flatbuffers one
//!   `FlatBufferBuilder` (`reset`); the serde formats use their `to_vec`.
//! - `decode`: untrusted bytes to an owned value. The generated coder decodes
//!   in one checked pass (`from_flex`); the flexbuf serde tier verifies
//!   first; flatbuffers verifies (`root`) and then reads every field
//!   (`unpack`). Beside them, `generated_borrowed` (the generated `Ref`
//!   type's `from_flex_borrowed`: strings and map keys borrowed) and
//!   `rmp_serde_borrowed` (serde structs borrowing `&str`s, `serde_ref`).
//! - `partial`: 1-3 fields (see each fixture's `Fixture::PARTIAL`), through
//!   the generated views (checked reads, no verification) and through
//!   flatbuffers accessors after `root` (verifies the whole buffer) or
//!   `root_unchecked` (trusted bytes only). The full-decode alternative is
//!   `decode/generated` (`from_flex`), which reads the same fields and more.
//!
//! Encoded sizes are printed at the end and, when `FLEXBUF_BENCH_TYPED_SIZES`
//! names a file, written there as `fixture<TAB>format<TAB>bytes` lines.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use flatbuffers::FlatBufferBuilder;
use flexbuf::{FlexBorrow, FlexCoder};
use flexbuf_bench_typed::{model, Fixture, Format, Loaded};
use prost::Message as _;

/// Encoded sizes: fixture -> format id -> bytes.
type Sizes = BTreeMap<&'static str, BTreeMap<&'static str, usize>>;

fn bench_fixture<F: Fixture>(c: &mut Criterion, sizes: &mut Sizes) {
    let loaded = Loaded::<F>::load().unwrap_or_else(|e| panic!("{}: {e}", F::NAME));
    let bytes = |format: Format| -> Vec<u8> {
        let b = loaded
            .encode(format)
            .unwrap_or_else(|e| panic!("{}: {format:?}: {e}", F::NAME));
        let same = loaded
            .decodes_to_original(format, &b)
            .unwrap_or_else(|e| panic!("{}: {format:?}: {e}", F::NAME));
        assert!(same, "{}: {format:?} does not round-trip", F::NAME);
        b
    };
    let encoded: BTreeMap<Format, Vec<u8>> =
        Format::ALL.into_iter().map(|f| (f, bytes(f))).collect();
    let mut row: BTreeMap<&'static str, usize> =
        encoded.iter().map(|(f, b)| (f.id(), b.len())).collect();
    row.insert("json_file", loaded.json.len());
    sizes.insert(F::NAME, row);

    encode_group(c, &loaded);
    decode_group::<F>(c, &encoded);
    partial_group::<F>(c, &loaded, &encoded);
}

fn encode_group<F: Fixture>(c: &mut Criterion, loaded: &Loaded<F>) {
    let mut g = c.benchmark_group(format!("{}.encode", F::NAME));
    let mut builder = flexbuf::Builder::with_options(flexbuf::typed::typed_builder_options());
    g.bench_function(Format::Generated.id(), |b| {
        b.iter(|| {
            black_box(&loaded.gen)
                .encode_with(&mut builder)
                .unwrap()
                .len()
        })
    });
    g.bench_function(Format::FlexbufSerde.id(), |b| {
        b.iter(|| flexbuf::to_vec(black_box(&loaded.serde)).unwrap())
    });
    g.bench_function(Format::SerdeJson.id(), |b| {
        b.iter(|| serde_json::to_vec(black_box(&loaded.serde)).unwrap())
    });
    g.bench_function(Format::RmpSerde.id(), |b| {
        b.iter(|| rmp_serde::to_vec(black_box(&loaded.serde)).unwrap())
    });
    let mut buf = Vec::new();
    g.bench_function(Format::Prost.id(), |b| {
        b.iter(|| {
            buf.clear();
            black_box(&loaded.proto).encode(&mut buf).unwrap();
            buf.len()
        })
    });
    let mut fbb = FlatBufferBuilder::new();
    g.bench_function(Format::Flatbuffers.id(), |b| {
        b.iter(|| F::fb_encode(black_box(&loaded.fb), &mut fbb).len())
    });
    g.bench_function(Format::Flexbuffers.id(), |b| {
        b.iter(|| flexbuffers::to_vec(black_box(&loaded.serde)).unwrap())
    });
    g.finish();
}

fn decode_group<F: Fixture>(c: &mut Criterion, encoded: &BTreeMap<Format, Vec<u8>>) {
    let mut g = c.benchmark_group(format!("{}.decode", F::NAME));
    let input = |f: Format| encoded[&f].as_slice();
    g.bench_function(Format::Generated.id(), |b| {
        b.iter(|| F::Gen::from_flex(black_box(input(Format::Generated))).unwrap())
    });
    g.bench_function("generated_borrowed", |b| {
        b.iter(|| {
            <F::GenRef<'_> as FlexBorrow>::from_flex_borrowed(black_box(input(Format::Generated)))
                .unwrap()
        })
    });
    g.bench_function("rmp_serde_borrowed", |b| {
        b.iter(|| {
            rmp_serde::from_slice::<F::SerdeRef<'_>>(black_box(input(Format::RmpSerde))).unwrap()
        })
    });
    g.bench_function(Format::FlexbufSerde.id(), |b| {
        b.iter(|| flexbuf::from_slice::<F::Serde>(black_box(input(Format::FlexbufSerde))).unwrap())
    });
    g.bench_function(Format::SerdeJson.id(), |b| {
        b.iter(|| serde_json::from_slice::<F::Serde>(black_box(input(Format::SerdeJson))).unwrap())
    });
    g.bench_function(Format::RmpSerde.id(), |b| {
        b.iter(|| rmp_serde::from_slice::<F::Serde>(black_box(input(Format::RmpSerde))).unwrap())
    });
    g.bench_function(Format::Prost.id(), |b| {
        b.iter(|| F::Proto::decode(black_box(input(Format::Prost))).unwrap())
    });
    g.bench_function(Format::Flatbuffers.id(), |b| {
        b.iter(|| F::fb_decode(black_box(input(Format::Flatbuffers))).unwrap())
    });
    g.bench_function(Format::Flexbuffers.id(), |b| {
        b.iter(|| {
            flexbuffers::from_slice::<F::Serde>(black_box(input(Format::Flexbuffers))).unwrap()
        })
    });
    g.finish();
}

fn partial_group<F: Fixture>(
    c: &mut Criterion,
    loaded: &Loaded<F>,
    encoded: &BTreeMap<Format, Vec<u8>>,
) {
    let flex = encoded[&Format::Generated].as_slice();
    let fb = encoded[&Format::Flatbuffers].as_slice();
    let expected = F::probe_owned(&loaded.gen);
    assert_eq!(F::probe_view(flex).unwrap(), expected, "{}: view", F::NAME);
    assert_eq!(
        F::probe_fb_verified(fb).unwrap(),
        expected,
        "{}: fb",
        F::NAME
    );

    let mut g = c.benchmark_group(format!("{}.partial", F::NAME));
    // Nanosecond-scale routines: a shorter window keeps the whole run short.
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    g.bench_function("generated_view", |b| {
        b.iter(|| F::probe_view(black_box(flex)).unwrap())
    });
    g.bench_function("flatbuffers_verified", |b| {
        b.iter(|| F::probe_fb_verified(black_box(fb)).unwrap())
    });
    g.bench_function("flatbuffers_unchecked", |b| {
        // SAFETY: `fb` was written by the FlatBuffers builder for this root type.
        b.iter(|| unsafe { F::probe_fb_unchecked(black_box(fb)) })
    });
    g.finish();
}

fn print_sizes(sizes: &Sizes) {
    let mut columns = vec!["json_file"];
    columns.extend(Format::ALL.iter().map(|f| f.id()));
    println!("\nEncoded sizes (bytes)");
    print!("{:<14}", "fixture");
    for col in &columns {
        print!(" {col:>13}");
    }
    println!();
    for (fixture, row) in sizes {
        print!("{fixture:<14}");
        for col in &columns {
            print!(" {:>13}", row.get(col).copied().unwrap_or(0));
        }
        println!();
    }
}

fn write_sizes(sizes: &Sizes) {
    let Some(path) = std::env::var_os("FLEXBUF_BENCH_TYPED_SIZES") else {
        return;
    };
    let mut text = String::new();
    for (fixture, row) in sizes {
        for (format, bytes) in row {
            text.push_str(&format!("{fixture}\t{format}\t{bytes}\n"));
        }
    }
    if let Err(e) = std::fs::write(&path, text) {
        panic!("writing {}: {e}", path.to_string_lossy());
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .nresamples(10_000)
        .without_plots()
        .configure_from_args();
    let mut sizes = Sizes::new();
    bench_fixture::<model::user_profile::UserProfile>(&mut c, &mut sizes);
    bench_fixture::<model::api_response::ApiResponse>(&mut c, &mut sizes);
    bench_fixture::<model::time_series::TimeSeries>(&mut c, &mut sizes);
    bench_fixture::<model::chat_thread::ChatThread>(&mut c, &mut sizes);
    bench_fixture::<model::unicode_heavy::UnicodeHeavy>(&mut c, &mut sizes);
    bench_fixture::<model::string_flood::StringFlood>(&mut c, &mut sizes);
    bench_fixture::<model::wide_map::WideMap>(&mut c, &mut sizes);
    bench_fixture::<model::metrics_96k::Metrics>(&mut c, &mut sizes);
    bench_fixture::<model::repeated_maps::RepeatedMaps>(&mut c, &mut sizes);
    bench_fixture::<model::width_bomb::WidthBomb>(&mut c, &mut sizes);
    c.final_summary();
    print_sizes(&sizes);
    write_sizes(&sizes);
}
