//! Typed decode of hostile bytes never panics: every committed case input and
//! every fixture buffer (as `from_json` and as the typed encoder write them),
//! mutated many ways, through the verifying entry point (`from_flex`) and
//! through checked reads of unverified bytes (`decode_from(Reader::new(..))`).
//!
//! Unverified decode is only run for non-recursive types: a recursive type
//! can follow an offset cycle until the stack overflows (a runtime bug pinned
//! by `tests/generator_bugs.rs`).

use std::panic::{catch_unwind, AssertUnwindSafe};

use flexbuf::{DecodeContext, FlexCoder, Reader};
use flexbuf_typed_tests::cases::{default_dir, input_bytes, load_all, read_rel};
use flexbuf_typed_tests::definitions::{FIXTURES, GOLDENS};
use flexbuf_typed_tests::dispatch::lookup;
use flexbuf_typed_tests::fixtures as fx;
use flexbuf_typed_tests::typed::{defects, evolution_v1 as evo1, evolution_v2 as evo2};

type Unverified = fn(&[u8]) -> flexbuf::Result<()>;

fn unverified<T: FlexCoder>(bytes: &[u8]) -> flexbuf::Result<()> {
    let root = Reader::new(bytes)?;
    T::decode_from(root, &mut DecodeContext::new(bytes.len())).map(|_| ())
}

/// Non-recursive types by qualified name.
const UNVERIFIED: &[(&str, Unverified)] = &[
    ("defects.Profile", unverified::<defects::Profile>),
    ("defects.Address", unverified::<defects::Address>),
    ("defects.Contact", unverified::<defects::Contact>),
    ("defects.Settings", unverified::<defects::Settings>),
    ("defects.Empty", unverified::<defects::Empty>),
    ("defects.Shape", unverified::<defects::Shape>),
    ("defects.Canvas", unverified::<defects::Canvas>),
    ("defects.Order", unverified::<defects::Order>),
    ("defects.Ranges", unverified::<defects::Ranges>),
    ("defects.Vectors", unverified::<defects::Vectors>),
    ("evo1.AddOptional", unverified::<evo1::AddOptional>),
    ("evo1.AddRequired", unverified::<evo1::AddRequired>),
    ("evo1.RemoveField", unverified::<evo1::RemoveField>),
    ("evo1.Rename", unverified::<evo1::Rename>),
    ("evo1.Reorder", unverified::<evo1::Reorder>),
    ("evo1.Widen", unverified::<evo1::Widen>),
    ("evo1.Retype", unverified::<evo1::Retype>),
    ("evo1.Team", unverified::<evo1::Team>),
    ("evo1.Owner", unverified::<evo1::Owner>),
    ("evo2.AddOptional", unverified::<evo2::AddOptional>),
    ("evo2.AddRequired", unverified::<evo2::AddRequired>),
    ("evo2.RemoveField", unverified::<evo2::RemoveField>),
    ("evo2.Rename", unverified::<evo2::Rename>),
    ("evo2.Reorder", unverified::<evo2::Reorder>),
    ("evo2.Widen", unverified::<evo2::Widen>),
    ("evo2.Retype", unverified::<evo2::Retype>),
    ("evo2.Team", unverified::<evo2::Team>),
    ("evo2.Owner", unverified::<evo2::Owner>),
    (
        "fixtures.ApiResponse",
        unverified::<fx::api_response::ApiResponse>,
    ),
    (
        "fixtures.ChatThread",
        unverified::<fx::chat_thread::ChatThread>,
    ),
    ("fixtures.Metrics", unverified::<fx::metrics_96k::Metrics>),
    (
        "fixtures.RepeatedMaps",
        unverified::<fx::repeated_maps::RepeatedMaps>,
    ),
    (
        "fixtures.StringFlood",
        unverified::<fx::string_flood::StringFlood>,
    ),
    (
        "fixtures.TimeSeries",
        unverified::<fx::time_series::TimeSeries>,
    ),
    (
        "fixtures.UnicodeHeavy",
        unverified::<fx::unicode_heavy::UnicodeHeavy>,
    ),
    (
        "fixtures.UserProfile",
        unverified::<fx::user_profile::UserProfile>,
    ),
    ("fixtures.WideMap", unverified::<fx::wide_map::WideMap>),
    (
        "fixtures.WidthBomb",
        unverified::<fx::width_bomb::WidthBomb>,
    ),
];

/// xorshift64*: deterministic, so a failure names a reproducible mutation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `bytes`, biased towards the bytes decoding depends on most.
fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = bytes.to_vec();
    if m.is_empty() {
        return vec![rng.next() as u8; rng.below(4)];
    }
    let n = m.len();
    match rng.below(7) {
        0 => {
            let i = rng.below(n);
            m[i] = rng.next() as u8;
        }
        1 => {
            let i = rng.below(n);
            m[i] ^= 1 << rng.below(8);
        }
        // The root: offset, packed type and width.
        2 => {
            let i = n - 1 - rng.below(n.min(4));
            m[i] = rng.next() as u8;
        }
        3 => m.truncate(rng.below(n)),
        4 => {
            let i = rng.below(n);
            m[i] = [0, 1, 0x7f, 0x80, 0xff][rng.below(5)];
        }
        5 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(n);
                m[i] = rng.next() as u8;
            }
        }
        _ => {
            let (i, j) = (rng.below(n), rng.below(n));
            m.swap(i, j);
        }
    }
    m
}

/// Decodes every mutation both ways; panics name the mutation that panicked.
fn hammer(label: &str, schema: &str, ty: &str, bytes: &[u8], rounds: usize, seed: u64) {
    let verified = lookup(schema, ty).unwrap_or_else(|| panic!("no coder for {ty}"));
    let unchecked = UNVERIFIED.iter().find(|(t, _)| *t == ty).map(|&(_, f)| f);
    let mut rng = Rng(seed | 1);
    for round in 0..rounds {
        let m = mutate(bytes, &mut rng);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let _ = verified(&m);
            if let Some(f) = unchecked {
                let _ = f(&m);
            }
        }));
        assert!(
            outcome.is_ok(),
            "{label}: mutation {round} (seed {seed}) panicked"
        );
    }
}

#[test]
fn mutated_case_inputs_never_panic() {
    let dir = default_dir();
    for (_, file) in load_all(&dir).unwrap() {
        for (n, case) in file.cases.iter().enumerate() {
            let input = input_bytes(&dir, case).unwrap();
            if input.len() > 4096 {
                continue; // fixtures: below, with fewer rounds
            }
            hammer(
                &case.name,
                &case.schema,
                &case.ty,
                &input,
                150,
                0x5eed + n as u64,
            );
        }
    }
}

#[test]
fn mutated_fixture_buffers_never_panic() {
    let dir = default_dir();
    for (n, &(stem, ty)) in FIXTURES.iter().enumerate() {
        let schema = format!("schemas/{stem}.fxs");
        for kind in ["input", "expect"] {
            let bytes = read_rel(&dir, &format!("{GOLDENS}/{stem}.{kind}.bin")).unwrap();
            let rounds = if bytes.len() > 50_000 { 12 } else { 60 };
            hammer(
                &format!("{stem}.{kind}"),
                &schema,
                ty,
                &bytes,
                rounds,
                0xf1c7 + n as u64,
            );
        }
    }
}

#[test]
fn the_unmutated_fixture_buffers_decode_unverified() {
    // The checked-read path accepts what the verifying path accepts.
    let dir = default_dir();
    for &(stem, ty) in FIXTURES {
        let f = UNVERIFIED.iter().find(|(t, _)| *t == ty).unwrap().1;
        for kind in ["input", "expect"] {
            let bytes = read_rel(&dir, &format!("{GOLDENS}/{stem}.{kind}.bin")).unwrap();
            f(&bytes).unwrap_or_else(|e| panic!("{stem}.{kind}: {e}"));
        }
    }
}
