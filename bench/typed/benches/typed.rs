//! Generated coders vs serde formats, prost and flatbuffers, per fixture.
//!
//! Timed with `bench/kit` (the contenders of a group interleaved round by
//! round on the thread's CPU clock); groups and ids are
//! `<fixture>.<kind>/<format>`:
//!
//! - `encode`: an owned value to bytes. The generated coder reuses one
//!   `Builder` (`encode_with`), prost one `Vec`, flatbuffers one
//!   `FlatBufferBuilder` (`reset`); the serde formats use their `to_vec`.
//! - `decode`: untrusted bytes to an owned value. The generated coder decodes
//!   in one checked pass (`from_flex`); the flexbuf serde tier accepts
//!   what the verifier accepts, also checked in one pass; flatbuffers verifies (`root`) and then reads every field
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

use flatbuffers::FlatBufferBuilder;
use flexbuf::{FlexBorrow, FlexCoder};
use flexbuf_bench_typed::{model, Fixture, Format, Loaded};
use flexbuf_benchkit::Suite;
use prost::Message as _;

/// Encoded sizes: fixture -> format id -> bytes.
type Sizes = BTreeMap<&'static str, BTreeMap<&'static str, usize>>;

fn bench_fixture<F: Fixture>(c: &Suite, sizes: &mut Sizes) {
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

fn encode_group<F: Fixture>(c: &Suite, loaded: &Loaded<F>) {
    let mut g = c.group(format!("{}.encode", F::NAME));
    let mut builder = flexbuf::Builder::with_options(flexbuf::typed::typed_builder_options());
    g.bench(Format::Generated.id(), move || {
        black_box(&loaded.gen)
            .encode_with(&mut builder)
            .unwrap()
            .len()
    });
    g.bench(Format::FlexbufSerde.id(), || {
        flexbuf::to_vec(black_box(&loaded.serde)).unwrap()
    });
    g.bench(Format::SerdeJson.id(), || {
        serde_json::to_vec(black_box(&loaded.serde)).unwrap()
    });
    g.bench(Format::RmpSerde.id(), || {
        rmp_serde::to_vec(black_box(&loaded.serde)).unwrap()
    });
    let mut buf = Vec::new();
    g.bench(Format::Prost.id(), move || {
        buf.clear();
        black_box(&loaded.proto).encode(&mut buf).unwrap();
        buf.len()
    });
    let mut fbb = FlatBufferBuilder::new();
    g.bench(Format::Flatbuffers.id(), move || {
        F::fb_encode(black_box(&loaded.fb), &mut fbb).len()
    });
    g.bench(Format::Flexbuffers.id(), || {
        flexbuffers::to_vec(black_box(&loaded.serde)).unwrap()
    });
    g.finish();
}

fn decode_group<F: Fixture>(c: &Suite, encoded: &BTreeMap<Format, Vec<u8>>) {
    let mut g = c.group(format!("{}.decode", F::NAME));
    let input = |f: Format| encoded[&f].as_slice();
    g.bench(Format::Generated.id(), || {
        F::Gen::from_flex(black_box(input(Format::Generated))).unwrap()
    });
    g.bench("generated_borrowed", || {
        <F::GenRef<'_> as FlexBorrow>::from_flex_borrowed(black_box(input(Format::Generated)))
            .unwrap()
    });
    g.bench("rmp_serde_borrowed", || {
        rmp_serde::from_slice::<F::SerdeRef<'_>>(black_box(input(Format::RmpSerde))).unwrap()
    });
    g.bench(Format::FlexbufSerde.id(), || {
        flexbuf::from_slice::<F::Serde>(black_box(input(Format::FlexbufSerde))).unwrap()
    });
    g.bench(Format::SerdeJson.id(), || {
        serde_json::from_slice::<F::Serde>(black_box(input(Format::SerdeJson))).unwrap()
    });
    g.bench(Format::RmpSerde.id(), || {
        rmp_serde::from_slice::<F::Serde>(black_box(input(Format::RmpSerde))).unwrap()
    });
    g.bench(Format::Prost.id(), || {
        F::Proto::decode(black_box(input(Format::Prost))).unwrap()
    });
    g.bench(Format::Flatbuffers.id(), || {
        F::fb_decode(black_box(input(Format::Flatbuffers))).unwrap()
    });
    g.bench(Format::Flexbuffers.id(), || {
        flexbuffers::from_slice::<F::Serde>(black_box(input(Format::Flexbuffers))).unwrap()
    });
    g.finish();
}

fn partial_group<F: Fixture>(c: &Suite, loaded: &Loaded<F>, encoded: &BTreeMap<Format, Vec<u8>>) {
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

    let mut g = c.group(format!("{}.partial", F::NAME));
    g.bench("generated_view", || F::probe_view(black_box(flex)).unwrap());
    g.bench("flatbuffers_verified", || {
        F::probe_fb_verified(black_box(fb)).unwrap()
    });
    g.bench("flatbuffers_unchecked", || {
        // SAFETY: `fb` was written by the FlatBuffers builder for this root type.
        unsafe { F::probe_fb_unchecked(black_box(fb)) }
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
    let c = Suite::from_env("typed");
    let mut sizes = Sizes::new();
    bench_fixture::<model::user_profile::UserProfile>(&c, &mut sizes);
    bench_fixture::<model::api_response::ApiResponse>(&c, &mut sizes);
    bench_fixture::<model::time_series::TimeSeries>(&c, &mut sizes);
    bench_fixture::<model::chat_thread::ChatThread>(&c, &mut sizes);
    bench_fixture::<model::unicode_heavy::UnicodeHeavy>(&c, &mut sizes);
    bench_fixture::<model::string_flood::StringFlood>(&c, &mut sizes);
    bench_fixture::<model::wide_map::WideMap>(&c, &mut sizes);
    bench_fixture::<model::metrics_96k::Metrics>(&c, &mut sizes);
    bench_fixture::<model::repeated_maps::RepeatedMaps>(&c, &mut sizes);
    bench_fixture::<model::width_bomb::WidthBomb>(&c, &mut sizes);
    print_sizes(&sizes);
    write_sizes(&sizes);
}
