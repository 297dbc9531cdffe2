//! Every format must carry the same data, or the benchmark compares unequal work.

use flexbuf::{FlexBorrow, FlexCoder};
use flexbuf_bench_typed::{model, Field, Fixture, Format, Loaded};
use serde_json::Value;

/// `value` without object members that are null: the fixtures leave some
/// optional fields out, while both coders write absent optionals as null.
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

fn check<F: Fixture>() {
    let loaded = Loaded::<F>::load().unwrap();
    let fixture = without_nulls(serde_json::from_str(&loaded.json).unwrap());

    // The serde structs and the generated types hold the whole fixture.
    let serde_json = without_nulls(serde_json::to_value(&loaded.serde).unwrap());
    assert!(serde_json == fixture, "{}: serde struct differs", F::NAME);
    let gen_bytes = loaded.gen.to_flex().unwrap();
    let gen_json = serde_json::from_str(&flexbuf::to_json(&gen_bytes).unwrap()).unwrap();
    assert!(
        without_nulls(gen_json) == fixture,
        "{}: generated type differs",
        F::NAME
    );

    // Every format decodes what it encoded back to the loaded value.
    for format in Format::ALL {
        let bytes = loaded.encode(format).unwrap();
        assert!(!bytes.is_empty(), "{}: {format:?} wrote nothing", F::NAME);
        assert!(
            loaded.decodes_to_original(format, &bytes).unwrap(),
            "{}: {format:?} did not round-trip",
            F::NAME
        );
    }

    // The borrowed forms decode the same data: the generated `Ref` back to
    // the owned value, the borrowing serde structs to the same MessagePack.
    let borrowed = <F::GenRef<'_> as FlexBorrow>::from_flex_borrowed(&gen_bytes).unwrap();
    assert!(
        borrowed.into_owned() == loaded.gen,
        "{}: generated Ref differs",
        F::NAME
    );
    let rmp = loaded.encode(Format::RmpSerde).unwrap();
    let serde_ref: F::SerdeRef<'_> = rmp_serde::from_slice(&rmp).unwrap();
    assert!(
        rmp_serde::to_vec(&serde_ref).unwrap() == rmp,
        "{}: borrowing serde struct differs",
        F::NAME
    );

    // The partial reads see the same fields in every path.
    let expected = F::probe_owned(&loaded.gen);
    assert_ne!(
        expected[0],
        Field::Absent,
        "{}: probe reads nothing",
        F::NAME
    );
    assert_eq!(
        F::probe_view(&gen_bytes).unwrap(),
        expected,
        "{}: view",
        F::NAME
    );
    let fb_bytes = loaded.encode(Format::Flatbuffers).unwrap();
    assert_eq!(
        F::probe_fb_verified(&fb_bytes).unwrap(),
        expected,
        "{}: fb",
        F::NAME
    );
    // SAFETY: the bytes were just written by the FlatBuffers builder for this root type.
    assert_eq!(unsafe { F::probe_fb_unchecked(&fb_bytes) }, expected);

    // A partial read on foreign bytes fails cleanly instead of reading garbage.
    assert!(F::probe_view(&fb_bytes).is_err() || F::probe_view(&fb_bytes).unwrap() != expected);
    assert!(F::Gen::from_flex(&fb_bytes).is_err());
}

macro_rules! fixture_tests {
    ($($name:ident => $root:ty),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check::<$root>();
            }
        )*
    };
}

fixture_tests!(
    user_profile => model::user_profile::UserProfile,
    api_response => model::api_response::ApiResponse,
    time_series => model::time_series::TimeSeries,
    chat_thread => model::chat_thread::ChatThread,
    unicode_heavy => model::unicode_heavy::UnicodeHeavy,
    string_flood => model::string_flood::StringFlood,
    wide_map => model::wide_map::WideMap,
    metrics_96k => model::metrics_96k::Metrics,
    repeated_maps => model::repeated_maps::RepeatedMaps,
    width_bomb => model::width_bomb::WidthBomb,
);

#[test]
fn a_corrupted_buffer_is_rejected_by_every_checked_path() {
    let loaded = Loaded::<model::api_response::ApiResponse>::load().unwrap();
    let mut bytes = loaded.gen.to_flex().unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0xff; // the root offset
    assert!(<model::api_response::ApiResponse as Fixture>::Gen::from_flex(&bytes).is_err());
    let mut fb = loaded.encode(Format::Flatbuffers).unwrap();
    fb[0] ^= 0x80; // the root table offset
    assert!(model::api_response::ApiResponse::fb_decode(&fb).is_err());
}
