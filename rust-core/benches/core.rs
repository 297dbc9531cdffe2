//! `cargo bench -p flexbuf --bench core`: the Rust core beside its peers, in one run.
//!
//! Four shared fixtures (`conformance/fixtures/`) are parsed once into
//! `serde_json::Value`, then for each one:
//!
//! - `encode_<fixture>`: our [`Builder`] walked over the tree (per-value, and
//!   with all-int / all-float arrays written by [`Builder::typed_vector`]), the
//!   `flexbuffers` crate's builder walked the same way, `serde_json::to_vec` and
//!   `rmp_serde::to_vec`;
//! - `read_<fixture>`: a full traversal summing every value into a checksum,
//!   with our reader on untrusted bytes (verify + walk) and on an already
//!   verified buffer, the `flexbuffers` reader, and parsing with `serde_json` /
//!   `rmp_serde` into a `Value`;
//! - `verify_<fixture>`: [`flexbuf::verify`] alone (criterion records the byte
//!   throughput);
//! - `verify_linear`: verify on `metrics_96k` and on the API response with its
//!   records repeated 1x, 4x and 16x, to show time per byte stays flat.
//!
//! `cargo xtask bench core` runs this and turns criterion's estimates into
//! `docs/benchmarks.md`. When `FLEXBUF_BENCH_SIZES` names a file, the encoded
//! size of every fixture in every format is written there as TSV.

use std::hint::black_box;

use flexbuf::{verify, Builder, FlexType, Reader};
use flexbuf_benchkit::{Group, Suite};
use serde::Deserialize;
use serde_json::{Map, Value};

#[path = "shared/datasets.rs"]
mod datasets;
#[path = "shared/records.rs"]
mod records;
use records::records;

/// The fixtures compared side by side, by name.
const FIXTURES: [(&str, &str); 4] = [
    (
        "user_profile",
        include_str!("../../conformance/fixtures/user_profile.json"),
    ),
    (
        "api_response",
        include_str!("../../conformance/fixtures/api_response.json"),
    ),
    (
        "time_series",
        include_str!("../../conformance/fixtures/time_series.json"),
    ),
    (
        "unicode_heavy",
        include_str!("../../conformance/fixtures/unicode_heavy.json"),
    ),
];

/// Numeric-only fixture of about 96 KiB, used to show verify throughput.
const METRICS_96K: &str = include_str!("../../conformance/fixtures/metrics_96k.json");

/// Every shared fixture, for the JSON and verify groups.
const ALL_FIXTURES: [(&str, &str); 11] = [
    FIXTURES[0],
    FIXTURES[1],
    FIXTURES[2],
    FIXTURES[3],
    (
        "chat_thread",
        include_str!("../../conformance/fixtures/chat_thread.json"),
    ),
    (
        "deep_nesting",
        include_str!("../../conformance/fixtures/deep_nesting.json"),
    ),
    ("metrics_96k", METRICS_96K),
    (
        "repeated_maps",
        include_str!("../../conformance/fixtures/repeated_maps.json"),
    ),
    (
        "string_flood",
        include_str!("../../conformance/fixtures/string_flood.json"),
    ),
    (
        "wide_map",
        include_str!("../../conformance/fixtures/wide_map.json"),
    ),
    (
        "width_bomb",
        include_str!("../../conformance/fixtures/width_bomb.json"),
    ),
];

/// Copies of the API response's records in the verify-scaling group: 35 KB to 70 MB.
const SCALES: [usize; 5] = [1, 10, 100, 1000, 2000];

// ---- encoding with our builder ---------------------------------------------

/// Our builder plus scratch space for bulk typed vectors, reused across iterations.
struct Encoder {
    builder: Builder,
    ints: Vec<i64>,
    floats: Vec<f64>,
}

impl Encoder {
    fn new() -> Encoder {
        Encoder {
            builder: Builder::new(),
            ints: Vec::new(),
            floats: Vec::new(),
        }
    }

    /// Encodes `value`; with `typed`, homogeneous numeric arrays become typed vectors.
    fn encode(&mut self, value: &Value, typed: bool) -> flexbuf::Result<&[u8]> {
        self.builder.clear();
        self.push_value(value, typed)?;
        self.builder.finish()
    }

    /// The API response with its `items` records written `times` times over
    /// (without building the repeated tree: the largest input is 70 MB).
    fn encode_api(&mut self, api: &Value, times: usize) -> flexbuf::Result<Vec<u8>> {
        self.builder.clear();
        self.builder.start_map();
        for (k, v) in api.as_object().expect("api_response is an object") {
            self.builder.key(k);
            match (k.as_str(), v) {
                ("items", Value::Array(items)) => {
                    self.builder.start_vector();
                    for _ in 0..times {
                        for item in items {
                            self.push_value(item, false)?;
                        }
                    }
                    self.builder.end_vector()?;
                }
                _ => self.push_value(v, false)?,
            }
        }
        self.builder.end_map()?;
        let out = self.builder.finish()?.to_vec();
        self.builder.clear();
        Ok(out)
    }

    fn push_value(&mut self, value: &Value, typed: bool) -> flexbuf::Result<()> {
        match value {
            Value::Null => self.builder.null(),
            Value::Bool(b) => self.builder.bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    self.builder.int(i);
                } else if let Some(u) = n.as_u64() {
                    self.builder.uint(u);
                } else {
                    self.builder.double(n.as_f64().unwrap_or(f64::NAN));
                }
            }
            Value::String(s) => self.builder.string(s),
            Value::Array(items) => {
                if typed && self.push_typed(items) {
                    return Ok(());
                }
                self.builder.start_vector();
                for item in items {
                    self.push_value(item, typed)?;
                }
                self.builder.end_vector()?;
            }
            Value::Object(map) => {
                self.builder.start_map();
                for (k, v) in map {
                    self.builder.key(k);
                    self.push_value(v, typed)?;
                }
                self.builder.end_map()?;
            }
        }
        Ok(())
    }

    /// Writes a non-empty all-int or all-float array as one typed vector.
    fn push_typed(&mut self, items: &[Value]) -> bool {
        match numeric_kind(items) {
            Some(Numeric::Int) => {
                self.ints.clear();
                self.ints.extend(items.iter().filter_map(|v| v.as_i64()));
                self.builder.typed_vector(&self.ints);
                true
            }
            Some(Numeric::Float) => {
                self.floats.clear();
                self.floats.extend(items.iter().filter_map(|v| v.as_f64()));
                self.builder.typed_vector(&self.floats);
                true
            }
            None => false,
        }
    }
}

/// The element kind of a homogeneous, non-empty numeric array.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Numeric {
    Int,
    Float,
}

fn numeric_kind(items: &[Value]) -> Option<Numeric> {
    let kind = match items.first()? {
        Value::Number(n) if n.is_i64() => Numeric::Int,
        Value::Number(n) if n.is_f64() => Numeric::Float,
        _ => return None,
    };
    let same = items.iter().all(|v| match v {
        Value::Number(n) => match kind {
            Numeric::Int => n.is_i64(),
            Numeric::Float => n.is_f64(),
        },
        _ => false,
    });
    same.then_some(kind)
}

// ---- encoding with the flexbuffers crate -----------------------------------

/// The `flexbuffers` builder plus scratch space for its slice variant.
struct PeerEncoder {
    builder: flexbuffers::Builder,
    scratch: Scratch,
}

#[derive(Default)]
struct Scratch {
    /// Push homogeneous numeric arrays as one slice instead of element by element.
    slices: bool,
    ints: Vec<i64>,
    floats: Vec<f64>,
}

impl Scratch {
    /// Fills the scratch vector matching the array's kind, when slices are on.
    fn fill(&mut self, items: &[Value]) -> Option<Numeric> {
        if !self.slices {
            return None;
        }
        let kind = numeric_kind(items)?;
        match kind {
            Numeric::Int => {
                self.ints.clear();
                self.ints.extend(items.iter().filter_map(|v| v.as_i64()));
            }
            Numeric::Float => {
                self.floats.clear();
                self.floats.extend(items.iter().filter_map(|v| v.as_f64()));
            }
        }
        Some(kind)
    }
}

impl PeerEncoder {
    fn new() -> PeerEncoder {
        PeerEncoder {
            builder: flexbuffers::Builder::default(),
            scratch: Scratch::default(),
        }
    }

    /// Encodes `value` (the builder resets itself when a new root starts).
    fn encode(&mut self, value: &Value, slices: bool) -> &[u8] {
        self.scratch.slices = slices;
        match value {
            Value::Object(map) => {
                let mut m = self.builder.start_map();
                peer_map(&mut m, map, &mut self.scratch);
                m.end_map();
            }
            Value::Array(items) => {
                let mut v = self.builder.start_vector();
                peer_vector(&mut v, items, &mut self.scratch);
                v.end_vector();
            }
            // Every fixture has a map at the root; scalars are not benchmarked.
            _ => self.builder.build_singleton(()),
        }
        self.builder.view()
    }
}

fn peer_map(m: &mut flexbuffers::MapBuilder<'_>, map: &Map<String, Value>, s: &mut Scratch) {
    for (k, v) in map {
        match v {
            Value::Null => m.push(k, ()),
            Value::Bool(b) => m.push(k, *b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    m.push(k, i);
                } else if let Some(u) = n.as_u64() {
                    m.push(k, u);
                } else {
                    m.push(k, n.as_f64().unwrap_or(f64::NAN));
                }
            }
            Value::String(text) => m.push(k, text.as_str()),
            Value::Array(items) => match s.fill(items) {
                Some(Numeric::Int) => m.push(k, &s.ints[..]),
                Some(Numeric::Float) => m.push(k, &s.floats[..]),
                None => {
                    let mut child = m.start_vector(k);
                    peer_vector(&mut child, items, s);
                    child.end_vector();
                }
            },
            Value::Object(inner) => {
                let mut child = m.start_map(k);
                peer_map(&mut child, inner, s);
                child.end_map();
            }
        }
    }
}

fn peer_vector(v: &mut flexbuffers::VectorBuilder<'_>, items: &[Value], s: &mut Scratch) {
    for item in items {
        match item {
            Value::Null => v.push(()),
            Value::Bool(b) => v.push(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    v.push(i);
                } else if let Some(u) = n.as_u64() {
                    v.push(u);
                } else {
                    v.push(n.as_f64().unwrap_or(f64::NAN));
                }
            }
            Value::String(text) => v.push(text.as_str()),
            Value::Array(inner) => match s.fill(inner) {
                Some(Numeric::Int) => v.push(&s.ints[..]),
                Some(Numeric::Float) => v.push(&s.floats[..]),
                None => {
                    let mut child = v.start_vector();
                    peer_vector(&mut child, inner, s);
                    child.end_vector();
                }
            },
            Value::Object(map) => {
                let mut child = v.start_map();
                peer_map(&mut child, map, s);
                child.end_map();
            }
        }
    }
}

// ---- full traversal ----------------------------------------------------------

/// Sums every value reachable from `r`: integers, float bits, string and key
/// lengths, booleans, and 1 per null.
fn walk(r: Reader<'_>) -> flexbuf::Result<u64> {
    Ok(match r.flex_type() {
        FlexType::Null => 1,
        FlexType::Bool => r.as_bool()? as u64,
        FlexType::Int | FlexType::IndirectInt => r.as_i64()? as u64,
        FlexType::UInt | FlexType::IndirectUInt => r.as_u64()?,
        FlexType::Float | FlexType::IndirectFloat => r.as_f64()?.to_bits(),
        FlexType::Key | FlexType::String => r.as_str()?.len() as u64,
        FlexType::Blob => r.as_blob()?.len() as u64,
        FlexType::Map => {
            let map = r.as_map()?;
            let mut sum = 0u64;
            for i in 0..map.len() {
                let entry = (map.key(i)?.len() as u64).wrapping_add(walk(map.value(i)?)?);
                sum = sum.wrapping_add(entry);
            }
            sum
        }
        _ => {
            let vector = r.as_vector()?;
            let mut sum = 0u64;
            for i in 0..vector.len() {
                sum = sum.wrapping_add(walk(vector.get(i)?)?);
            }
            sum
        }
    })
}

/// The same traversal with the `flexbuffers` crate's checked getters.
fn peer_walk(r: flexbuffers::Reader<&[u8]>) -> Result<u64, flexbuffers::ReaderError> {
    use flexbuffers::FlexBufferType as T;
    Ok(match r.flexbuffer_type() {
        T::Null => 1,
        T::Bool => r.get_bool()? as u64,
        T::Int | T::IndirectInt => r.get_i64()? as u64,
        T::UInt | T::IndirectUInt => r.get_u64()?,
        T::Float | T::IndirectFloat => r.get_f64()?.to_bits(),
        T::Key => r.get_key()?.len() as u64,
        T::String => r.get_str()?.len() as u64,
        T::Blob => r.get_blob()?.0.len() as u64,
        T::Map => {
            let map = r.get_map()?;
            let mut sum = 0u64;
            for (key, value) in map.keys_vector().iter().zip(map.iter_values()) {
                let entry = (key.get_key()?.len() as u64).wrapping_add(peer_walk(value)?);
                sum = sum.wrapping_add(entry);
            }
            sum
        }
        _ => {
            let mut sum = 0u64;
            for item in r.get_vector()?.iter() {
                sum = sum.wrapping_add(peer_walk(item)?);
            }
            sum
        }
    })
}

/// The checksum [`walk`] must produce, computed from the JSON tree itself.
fn json_sum(v: &Value) -> u64 {
    match v {
        Value::Null => 1,
        Value::Bool(b) => *b as u64,
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i as u64,
            (None, Some(u)) => u,
            // Floats exact in f32 are stored narrow; widening gives the same f64 back.
            _ => n.as_f64().unwrap_or(f64::NAN).to_bits(),
        },
        Value::String(s) => s.len() as u64,
        Value::Array(items) => items.iter().fold(0u64, |s, x| s.wrapping_add(json_sum(x))),
        Value::Object(map) => map.iter().fold(0u64, |s, (k, x)| {
            s.wrapping_add(k.len() as u64).wrapping_add(json_sum(x))
        }),
    }
}

// ---- fixtures ------------------------------------------------------------------

/// One fixture, parsed and pre-encoded in every format.
struct Prepared {
    name: &'static str,
    value: Value,
    flexbuf: Vec<u8>,
    flexbuf_typed: Vec<u8>,
    flexbuffers: Vec<u8>,
    json: Vec<u8>,
    msgpack: Vec<u8>,
}

impl Prepared {
    fn new(name: &'static str, text: &str) -> Prepared {
        let value: Value = serde_json::from_str(text).expect("fixture is valid JSON");
        let mut ours = Encoder::new();
        let flexbuf = ours.encode(&value, false).expect("encodes").to_vec();
        let flexbuf_typed = ours.encode(&value, true).expect("encodes").to_vec();
        let flexbuffers = PeerEncoder::new().encode(&value, false).to_vec();
        let json = serde_json::to_vec(&value).expect("serializes");
        let msgpack = rmp_serde::to_vec(&value).expect("serializes");
        let p = Prepared {
            name,
            value,
            flexbuf,
            flexbuf_typed,
            flexbuffers,
            json,
            msgpack,
        };
        p.check();
        p
    }

    /// Every encoder and reader agrees on the content before anything is timed.
    fn check(&self) {
        let expected = json_sum(&self.value);
        for (label, bytes) in [("flexbuf", &self.flexbuf), ("typed", &self.flexbuf_typed)] {
            let verified = verify(bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(walk(verified.root()).unwrap(), expected, "{label}");
            assert_eq!(
                walk(Reader::new(bytes).unwrap()).unwrap(),
                expected,
                "{label}"
            );
        }
        let peer = flexbuffers::Reader::get_root(&self.flexbuffers[..]).unwrap();
        assert_eq!(peer_walk(peer).unwrap(), expected, "flexbuffers");
        let mut slices = PeerEncoder::new();
        let peer_slices = slices.encode(&self.value, true);
        let peer = flexbuffers::Reader::get_root(peer_slices).unwrap();
        assert_eq!(peer_walk(peer).unwrap(), expected, "flexbuffers slices");
        let from_json: Value = serde_json::from_slice(&self.json).unwrap();
        let from_msgpack: Value = rmp_serde::from_slice(&self.msgpack).unwrap();
        assert_eq!(from_json, self.value);
        assert_eq!(from_msgpack, self.value);
    }

    /// True when the typed-vector variant writes different bytes (the fixture
    /// has homogeneous numeric arrays); otherwise it is not benchmarked twice.
    fn has_typed(&self) -> bool {
        self.flexbuf != self.flexbuf_typed
    }
}

/// One fixture for the JSON and verify groups: its text, its `Value` and the
/// buffer `from_json` makes of it.
struct JsonCase {
    name: &'static str,
    text: &'static str,
    value: Value,
    flexbuf: Vec<u8>,
}

impl JsonCase {
    fn new(name: &'static str, text: &'static str) -> JsonCase {
        let value: Value = serde_json::from_str(text).expect("fixture is valid JSON");
        let flexbuf = flexbuf::from_json(text).expect("fixture converts");
        // Both writers must agree before anything is timed: on the
        // fixtures with serde_json's reading; on any document, our writing
        // of our reading of our writing is that writing again (serde_json's
        // default float parser may differ from a correctly rounded one in
        // the last bit).
        let written = flexbuf::to_json(&flexbuf).unwrap();
        let again = flexbuf::to_json(&flexbuf::from_json(&written).unwrap()).unwrap();
        assert_eq!(again, written, "{name}");
        if ALL_FIXTURES.iter().any(|(fixture, _)| *fixture == name) {
            let back: Value = serde_json::from_str(&written).unwrap();
            assert_eq!(back, value, "{name}");
        }
        JsonCase {
            name,
            text,
            value,
            flexbuf,
        }
    }
}

/// The `*.json` files of `$FLEXBUF_BENCH_JSON_DIR`, when it is set, for the
/// JSON groups beside the fixtures (public benchmark documents such as
/// serde-rs/json-benchmark's `data/canada.json`, which are not committed),
/// named by their file stems and in name order.
fn extra_documents() -> Vec<JsonCase> {
    let Some(dir) = std::env::var_os("FLEXBUF_BENCH_JSON_DIR") else {
        return Vec::new();
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("FLEXBUF_BENCH_JSON_DIR {dir:?}: {e}"))
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            // Leaked once per run: the cases borrow names and texts for 'static.
            JsonCase::new(Box::leak(stem.into()), Box::leak(text.into_boxed_str()))
        })
        .collect()
}

/// Writes encoded sizes as `fixture<TAB>format<TAB>bytes` lines for the xtask report.
fn write_sizes(prepared: &[Prepared], linear: &[(String, Vec<u8>)], json: &[JsonCase]) {
    let Some(path) = std::env::var_os("FLEXBUF_BENCH_SIZES") else {
        return;
    };
    let mut out = String::new();
    for p in prepared {
        for (format, bytes) in [
            (
                "source_json",
                FIXTURES
                    .iter()
                    .find(|f| f.0 == p.name)
                    .map_or(0, |f| f.1.len()),
            ),
            ("flexbuf", p.flexbuf.len()),
            ("flexbuf_typed", p.flexbuf_typed.len()),
            ("flexbuffers", p.flexbuffers.len()),
            ("serde_json", p.json.len()),
            ("rmp_serde", p.msgpack.len()),
        ] {
            out.push_str(&format!("{}\t{format}\t{bytes}\n", p.name));
        }
    }
    for (name, bytes) in linear {
        out.push_str(&format!("verify_linear\t{name}\t{}\n", bytes.len()));
    }
    for j in json {
        out.push_str(&format!("{}\tjson_text\t{}\n", j.name, j.text.len()));
        out.push_str(&format!("{}\tjson_flexbuf\t{}\n", j.name, j.flexbuf.len()));
    }
    std::fs::write(&path, out).expect("FLEXBUF_BENCH_SIZES is writable");
}

// ---- the serde tier ---------------------------------------------------------------

/// The same record with its strings borrowed from the buffer.
#[derive(Deserialize, Debug, PartialEq)]
struct RecordRef<'a> {
    id: u64,
    #[serde(borrow)]
    name: &'a str,
    #[serde(borrow)]
    email: &'a str,
    score: f64,
    active: bool,
    #[serde(borrow)]
    tags: Vec<&'a str>,
    position: [f32; 3],
    counts: Vec<u32>,
}

// ---- benchmarks ----------------------------------------------------------------

fn main() {
    let suite = Suite::from_env("core");
    let prepared: Vec<Prepared> = FIXTURES
        .iter()
        .map(|(name, text)| Prepared::new(name, text))
        .collect();

    let api = &prepared[1].value;
    let metrics: Value = serde_json::from_str(METRICS_96K).expect("fixture is valid JSON");
    let mut enc = Encoder::new();
    let mut linear: Vec<(String, Vec<u8>)> = vec![(
        "metrics_96k".into(),
        enc.encode(&metrics, false).unwrap().to_vec(),
    )];
    for times in SCALES {
        linear.push((format!("api_x{times}"), enc.encode_api(api, times).unwrap()));
    }
    let mut json: Vec<JsonCase> = ALL_FIXTURES
        .iter()
        .map(|(name, text)| JsonCase::new(name, text))
        .collect();
    json.extend(extra_documents());
    write_sizes(&prepared, &linear, &json);

    for p in &prepared {
        let mut g = suite.group(format!("encode_{}", p.name));
        let mut ours = Encoder::new();
        g.bench("flexbuf", move || {
            ours.encode(black_box(&p.value), false).unwrap().len()
        });
        if p.has_typed() {
            let mut ours = Encoder::new();
            g.bench("flexbuf_typed", move || {
                ours.encode(black_box(&p.value), true).unwrap().len()
            });
        }
        let mut peer = PeerEncoder::new();
        g.bench("flexbuffers", move || {
            peer.encode(black_box(&p.value), false).len()
        });
        if p.has_typed() {
            let mut peer = PeerEncoder::new();
            g.bench("flexbuffers_slices", move || {
                peer.encode(black_box(&p.value), true).len()
            });
        }
        let mut json_out = Vec::new();
        g.bench("serde_json", move || {
            json_out.clear();
            serde_json::to_writer(&mut json_out, black_box(&p.value)).unwrap();
            json_out.len()
        });
        let mut msgpack_out = Vec::new();
        g.bench("rmp_serde", move || {
            msgpack_out.clear();
            rmp_serde::encode::write(&mut msgpack_out, black_box(&p.value)).unwrap();
            msgpack_out.len()
        });
        g.finish();
    }

    for p in &prepared {
        let mut g = suite.group(format!("read_{}", p.name));
        let mut ours = vec![("flexbuf", &p.flexbuf)];
        if p.has_typed() {
            ours.push(("flexbuf_typed", &p.flexbuf_typed));
        }
        for (label, bytes) in ours {
            g.bench(format!("{label}_verify_walk"), move || {
                let root = verify(black_box(bytes)).unwrap().root();
                walk(root).unwrap()
            });
            let verified = verify(bytes).unwrap();
            g.bench(format!("{label}_walk"), move || {
                walk(black_box(verified).root()).unwrap()
            });
        }
        g.bench("flexbuffers", || {
            let root = flexbuffers::Reader::get_root(black_box(&p.flexbuffers[..])).unwrap();
            peer_walk(root).unwrap()
        });
        g.bench("serde_json", || {
            serde_json::from_slice::<Value>(black_box(&p.json)).unwrap()
        });
        g.bench("rmp_serde", || {
            rmp_serde::from_slice::<Value>(black_box(&p.msgpack)).unwrap()
        });
        g.finish();
    }

    // The verifier on every fixture beside the one it replaced (same run, for
    // the speed-up), and on the typed-vector variants.
    for j in &json {
        let mut g = suite.group(format!("verify_{}", j.name));
        g.bytes(j.flexbuf.len() as u64);
        g.bench("flexbuf", || verify(black_box(&j.flexbuf)).is_ok());
        g.bench("flexbuf_before", || {
            flexbuf::verify_reference(black_box(&j.flexbuf)).is_ok()
        });
        if let Some(p) = prepared.iter().find(|p| p.name == j.name && p.has_typed()) {
            g.bytes(p.flexbuf_typed.len() as u64);
            g.bench("flexbuf_typed", || {
                verify(black_box(&p.flexbuf_typed)).is_ok()
            });
        }
        g.finish();
    }

    for p in &prepared {
        let mut g = suite.group(format!("serde_{}", p.name));
        g.bench("flexbuf_ser", || {
            flexbuf::to_vec(black_box(&p.value)).unwrap().len()
        });
        g.bench("flexbuffers_ser", || {
            flexbuffers::to_vec(black_box(&p.value)).unwrap().len()
        });
        let ours = flexbuf::to_vec(&p.value).unwrap();
        let theirs = flexbuffers::to_vec(&p.value).unwrap();
        assert_eq!(flexbuf::from_slice::<Value>(&ours).unwrap(), p.value);
        assert_eq!(flexbuffers::from_slice::<Value>(&theirs).unwrap(), p.value);
        g.bench("flexbuf_de", move || {
            flexbuf::from_slice::<Value>(black_box(&ours)).unwrap()
        });
        g.bench("flexbuffers_de", move || {
            flexbuffers::from_slice::<Value>(black_box(&theirs)).unwrap()
        });
        g.finish();
    }
    // Time per byte from 120 KB to 78 MB: one group, so every size sees the
    // same machine.
    let mut g = suite.group("verify_linear");
    for (name, bytes) in &linear {
        g.bytes(bytes.len() as u64);
        g.bench(name.as_str(), || verify(black_box(bytes)).is_ok());
    }
    g.finish();

    for j in &json {
        let mut g = suite.group(format!("from_json_{}", j.name));
        g.bench("flexbuf", || {
            flexbuf::from_json(black_box(j.text)).unwrap().len()
        });
        g.bench("serde_json", || {
            serde_json::from_str::<Value>(black_box(j.text)).unwrap()
        });
        g.finish();
        let mut g = suite.group(format!("to_json_{}", j.name));
        g.bench("flexbuf", || {
            flexbuf::to_json(black_box(&j.flexbuf)).unwrap().len()
        });
        g.bench("serde_json", || {
            serde_json::to_string(black_box(&j.value)).unwrap().len()
        });
        g.finish();
    }
    // Record collections shaped like public serialization benchmarks'
    // datasets (see `shared/datasets.rs`).
    serde_dataset(
        &suite,
        "access_log_10k",
        &datasets::access_log(10_000),
        |_, _, _| {},
    );
    serde_dataset(&suite, "mesh_25k", &datasets::mesh(25_000), |_, _, _| {});
    serde_dataset(
        &suite,
        "save_data_500",
        &datasets::save_data(500),
        |_, _, _| {},
    );
    serde_dataset(
        &suite,
        "game_updates_1k",
        &datasets::updates(1_000),
        |_, _, _| {},
    );
    // Last: building and dropping 100,000 records leaves glibc's heap full
    // of small free blocks, and a later group's first large allocation
    // would pay for merging them (to_json measured 3-10x slower after it).
    let recs = records(100_000);
    serde_dataset(&suite, "records_100k", &recs, |g, ours, theirs| {
        let borrowed = flexbuf::from_slice::<Vec<RecordRef<'_>>>(ours).unwrap();
        assert_eq!(borrowed[7].name, recs[7].name);
        g.bench("flexbuf_de_borrowed", move || {
            flexbuf::from_slice::<Vec<RecordRef<'_>>>(black_box(ours))
                .unwrap()
                .len()
        });
        g.bench("flexbuffers_de_borrowed", move || {
            flexbuffers::from_slice::<Vec<RecordRef<'_>>>(black_box(theirs))
                .unwrap()
                .len()
        });
    });
}

/// The serde tier's group `serde_<name>` on one dataset: serialize and
/// deserialize against the `flexbuffers` crate, after checking that both
/// give the value back; `more` adds contenders of its own on the two
/// crates' bytes (ours, then theirs).
fn serde_dataset<T>(
    suite: &Suite,
    name: &str,
    value: &T,
    more: impl for<'g> FnOnce(&mut Group<'g>, &'g [u8], &'g [u8]),
) where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let ours = flexbuf::to_vec(value).unwrap();
    let theirs = flexbuffers::to_vec(value).unwrap();
    assert_eq!(&flexbuf::from_slice::<T>(&ours).unwrap(), value);
    assert_eq!(&flexbuffers::from_slice::<T>(&theirs).unwrap(), value);
    let mut g = suite.group(format!("serde_{name}"));
    g.bench("flexbuf_ser", || {
        flexbuf::to_vec(black_box(value)).unwrap().len()
    });
    g.bench("flexbuffers_ser", || {
        flexbuffers::to_vec(black_box(value)).unwrap().len()
    });
    g.bench("flexbuf_de", || {
        flexbuf::from_slice::<T>(black_box(&ours)).unwrap()
    });
    g.bench("flexbuffers_de", || {
        flexbuffers::from_slice::<T>(black_box(&theirs)).unwrap()
    });
    more(&mut g, &ours, &theirs);
    g.finish();
    serde_sizes(name, ours.len(), theirs.len());
}

/// Appends the sizes of one serde group's buffers to the sizes file.
fn serde_sizes(name: &str, ours: usize, theirs: usize) {
    let Some(path) = std::env::var_os("FLEXBUF_BENCH_SIZES") else {
        return;
    };
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    text.push_str(&format!("serde_{name}\tflexbuf\t{ours}\n"));
    text.push_str(&format!("serde_{name}\tflexbuffers\t{theirs}\n"));
    std::fs::write(&path, text).expect("FLEXBUF_BENCH_SIZES is writable");
}
