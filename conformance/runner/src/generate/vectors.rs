//! Vectors: untyped, typed, fixed, bulk (`Vector(const T *)`, `FixedTypedVector`,
//! our `typed_vector`), bool vectors, empty, one-element and large ones.

use super::{one, Draft, Ops, Topic};
use crate::case::DEVIATION_STRING_VECTOR;
use crate::op::{Op, Scalars};

/// Int values that need exactly 1, 2, 4 and 8 bytes.
const INT_AT: [(u8, [i64; 3]); 4] = [
    (1, [-128, 0, 127]),
    (2, [-129, 1, 32767]),
    (4, [-32769, 2, i32::MAX as i64]),
    (8, [i64::MIN, 3, i64::MAX]),
];

/// Uint values that need exactly 1, 2, 4 and 8 bytes.
const UINT_AT: [(u8, [u64; 3]); 4] = [
    (1, [0, 1, 255]),
    (2, [256, 2, 65535]),
    (4, [65536, 3, u32::MAX as u64]),
    (8, [u32::MAX as u64 + 1, 4, u64::MAX]),
];

fn ints(width: u8, values: &[i64]) -> Scalars {
    match width {
        1 => Scalars::I8(values.iter().map(|&v| v as i8).collect()),
        2 => Scalars::I16(values.iter().map(|&v| v as i16).collect()),
        4 => Scalars::I32(values.iter().map(|&v| v as i32).collect()),
        _ => Scalars::I64(values.to_vec()),
    }
}

fn cycle<T: Copy>(values: &[T], n: usize) -> Vec<T> {
    values.iter().cycle().take(n).copied().collect()
}

fn uints(width: u8, values: &[u64]) -> Scalars {
    match width {
        1 => Scalars::U8(values.iter().map(|&v| v as u8).collect()),
        2 => Scalars::U16(values.iter().map(|&v| v as u16).collect()),
        4 => Scalars::U32(values.iter().map(|&v| v as u32).collect()),
        _ => Scalars::U64(values.to_vec()),
    }
}

pub(super) fn topic() -> Topic {
    let mut drafts = Vec::new();
    untyped(&mut drafts);
    typed(&mut drafts);
    fixed(&mut drafts);
    bulk(&mut drafts);
    bools(&mut drafts);
    Topic {
        stem: "vectors",
        description:
            "Vectors of every kind: untyped, typed, fixed, bulk, bool; empty, single and large.",
        drafts,
    }
}

fn untyped(drafts: &mut Vec<Draft>) {
    let mut o = Ops::new();
    o.vec().end_vec();
    drafts.push(Draft::new("empty", "empty untyped vector", 0, o.take()));
    for (name, op) in [
        ("null", Op::Null),
        ("int", Op::Int(-3)),
        ("string", Op::String("one".into())),
        ("key", Op::Key("one".into())),
        ("blob", Op::Blob(vec![1])),
    ] {
        let mut o = Ops::new();
        o.vec().push(op).end_vec();
        drafts.push(Draft::new(
            format!("one-{name}"),
            format!("untyped vector holding one {name}"),
            0,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.vec()
        .null()
        .bool(true)
        .int(-5)
        .uint(5)
        .f32(0.5)
        .f64(0.1)
        .key("k")
        .string("s")
        .blob(&[9])
        .ind_int(-6)
        .ind_uint(6)
        .ind_f32(6.5)
        .end_vec();
    drafts.push(Draft::new(
        "mixed",
        "untyped vector with one value of every scalar, string-like and indirect type",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .vec()
        .vec()
        .end_vec()
        .end_vec()
        .vec()
        .end_vec()
        .end_vec();
    drafts.push(Draft::new(
        "nested-empty",
        "[[[]], []]: empty vectors nested",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .int(1)
        .vec()
        .int(2)
        .vec()
        .int(3)
        .end_vec()
        .end_vec()
        .end_vec();
    drafts.push(Draft::new("nested", "[1, [2, [3]]]", 0, o.take()));
    let mut o = Ops::new();
    o.vec();
    for i in 0..1000 {
        o.int(i * 37 - 5000);
    }
    o.end_vec();
    drafts.push(Draft::new(
        "large-1000-ints",
        "1,000 ints: a 2-byte length and 2-byte elements",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec();
    for i in 0..300 {
        o.string(&format!("s{i}"));
    }
    o.end_vec();
    drafts.push(Draft::new(
        "large-300-strings",
        "300 strings: offsets beyond 255 need 2-byte elements",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec();
    for _ in 0..300 {
        o.vec().end_vec();
    }
    o.end_vec();
    drafts.push(Draft::new(
        "large-300-empty-vectors",
        "300 empty vectors in one vector",
        0,
        o.take(),
    ));
    for w in [2u8, 4, 8] {
        let mut o = Ops::new();
        o.force(w).vec().string("a").int(1).end_vec();
        drafts.push(Draft::new(
            format!("forced-width-{w}"),
            format!("force_min_width {w}: small offsets and ints in {w}-byte slots"),
            0,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.vec()
        .int(1)
        .force(4)
        .vec()
        .int(2)
        .end_vec()
        .force(1)
        .end_vec();
    drafts.push(Draft::new(
        "forced-width-inner-only",
        "force_min_width applies to vectors ended while it is set, then is reset to 1",
        0,
        o.take(),
    ));
}

fn typed(drafts: &mut Vec<Draft>) {
    let mut o = Ops::new();
    o.vec().end_typed();
    drafts.push(Draft::new(
        "typed-empty",
        "an empty typed vector is a key vector (the C++ default element type)",
        0,
        o.take(),
    ));
    for (w, values) in INT_AT {
        let mut o = Ops::new();
        o.vec();
        for v in values {
            o.int(v);
        }
        o.end_typed();
        drafts.push(Draft::new(
            format!("typed-int-width-{w}"),
            format!("typed int vector {values:?}: {w}-byte elements"),
            0,
            o.take(),
        ));
    }
    for (w, values) in UINT_AT {
        let mut o = Ops::new();
        o.vec();
        for v in values {
            o.uint(v);
        }
        o.end_typed();
        drafts.push(Draft::new(
            format!("typed-uint-width-{w}"),
            format!("typed uint vector {values:?}: {w}-byte elements"),
            0,
            o.take(),
        ));
    }
    for w in [1u8, 2, 4, 8] {
        let mut o = Ops::new();
        o.force(w).vec().int(1).int(2).end_typed();
        drafts.push(Draft::new(
            format!("typed-int-forced-{w}"),
            format!("typed int vector of small values with force_min_width {w}"),
            0,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.vec().int(7).end_typed();
    drafts.push(Draft::new(
        "typed-int-one",
        "typed int vector of one element",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec();
    for i in 0..300 {
        o.uint(i);
    }
    o.end_typed();
    drafts.push(Draft::new(
        "typed-uint-300",
        "300 small uints: the length needs 2 bytes, so the elements take 2",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().key("b").key("a").key("").key("é").end_typed();
    drafts.push(Draft::new(
        "typed-keys",
        "typed key vector (order kept: only maps sort)",
        1,
        o.take(),
    ));
    for w in [4u8, 8] {
        let mut o = Ops::new();
        o.force(w).vec().key("x").key("y").end_typed();
        drafts.push(Draft::new(
            format!("typed-keys-forced-{w}"),
            format!("typed key vector with {w}-byte offsets (force_min_width {w})"),
            1,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.vec();
    for i in 0..40 {
        o.key(&format!("key-{i:02}-{}", "k".repeat(i)));
    }
    o.end_typed();
    drafts.push(Draft::new(
        "typed-keys-2-byte-offsets",
        "40 keys of growing length: offsets beyond 255 widen the key vector to 2 bytes",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().string(&"A".repeat(300)).string("hello").end_typed();
    drafts.push(
        Draft::new(
            "typed-strings-deprecated",
            "EndVector(typed) of strings writes the deprecated type 15 (after \
             tests/flexbuffers_test.cpp FlexBuffersDeprecatedTest); readers read its elements \
             as keys; our builder refuses to write it",
            0,
            o.take(),
        )
        .deviation(DEVIATION_STRING_VECTOR),
    );
}

fn fixed(drafts: &mut Vec<Draft>) {
    for n in 2..=4usize {
        for (w, values) in INT_AT {
            let mut o = Ops::new();
            o.vec();
            for i in 0..n {
                o.int(values[i % 3]);
            }
            o.end_fixed();
            drafts.push(Draft::new(
                format!("fixed-int{n}-width-{w}"),
                format!("EndVector(typed, fixed) of {n} ints needing {w} bytes"),
                0,
                o.take(),
            ));
        }
        for (w, values) in UINT_AT {
            let mut o = Ops::new();
            o.vec();
            for i in 0..n {
                o.uint(values[i % 3]);
            }
            o.end_fixed();
            drafts.push(Draft::new(
                format!("fixed-uint{n}-width-{w}"),
                format!("EndVector(typed, fixed) of {n} uints needing {w} bytes"),
                0,
                o.take(),
            ));
        }
        let mut o = Ops::new();
        o.vec();
        for i in 0..n {
            o.f32(i as f32 + 0.5);
        }
        o.end_fixed();
        drafts.push(Draft::new(
            format!("fixed-float{n}-width-4"),
            format!("EndVector(typed, fixed) of {n} f32 values"),
            0,
            o.take(),
        ));
        let mut o = Ops::new();
        o.vec();
        for i in 0..n {
            o.f64(i as f64 + 0.1);
        }
        o.end_fixed();
        drafts.push(Draft::new(
            format!("fixed-float{n}-width-8"),
            format!("EndVector(typed, fixed) of {n} doubles needing f64"),
            0,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.force(8).vec().int(1).int(2).end_fixed();
    drafts.push(Draft::new(
        "fixed-int2-forced-8",
        "fixed int2 of small values with force_min_width 8",
        0,
        o.take(),
    ));
}

fn bulk(drafts: &mut Vec<Draft>) {
    // Fixed lengths rotate so every length meets several widths.
    let fixed_len = |w: u8| [2usize, 3, 4, 2][w.trailing_zeros() as usize];
    for (w, values) in INT_AT {
        let small: Vec<i64> = values.iter().map(|&v| v.clamp(-100, 100)).collect();
        drafts.push(Draft::new(
            format!("scalar-vector-int-{w}"),
            format!("Vector(const int{}_t *): natural width {w}", w * 8),
            0,
            one(Op::ScalarVector(ints(w, &small))),
        ));
        let n = fixed_len(w);
        drafts.push(Draft::new(
            format!("fixed-vector-int-{w}-len-{n}"),
            format!("FixedTypedVector(const int{}_t *, {n})", w * 8),
            0,
            one(Op::FixedVector(ints(w, &cycle(&values, n)))),
        ));
        drafts.push(Draft::new(
            format!("typed-vector-i{}", w * 8),
            format!(
                "our typed_vector::<i{}> of {values:?}: minimal width {w}",
                w * 8
            ),
            0,
            one(Op::TypedVector(ints(w, &values))),
        ));
    }
    for (w, values) in UINT_AT {
        let small: Vec<u64> = values.iter().map(|&v| v.min(200)).collect();
        drafts.push(Draft::new(
            format!("scalar-vector-uint-{w}"),
            format!("Vector(const uint{}_t *): natural width {w}", w * 8),
            0,
            one(Op::ScalarVector(uints(w, &small))),
        ));
        let n = [4usize, 2, 3, 4][w.trailing_zeros() as usize];
        drafts.push(Draft::new(
            format!("fixed-vector-uint-{w}-len-{n}"),
            format!("FixedTypedVector(const uint{}_t *, {n})", w * 8),
            0,
            one(Op::FixedVector(uints(w, &cycle(&values, n)))),
        ));
        drafts.push(Draft::new(
            format!("typed-vector-u{}", w * 8),
            format!(
                "our typed_vector::<u{}> of {values:?}: minimal width {w}",
                w * 8
            ),
            0,
            one(Op::TypedVector(uints(w, &values))),
        ));
    }
    drafts.push(Draft::new(
        "typed-vector-i64-small-values",
        "our typed_vector::<i64> of small values: 1-byte elements despite i64",
        0,
        one(Op::TypedVector(Scalars::I64(vec![1, -2, 3]))),
    ));
    drafts.push(Draft::new(
        "typed-vector-f32",
        "our typed_vector::<f32>: 4-byte elements",
        0,
        one(Op::TypedVector(Scalars::F32(vec![
            0x3fc0_0000,
            0xbf80_0000,
        ]))),
    ));
    drafts.push(Draft::new(
        "typed-vector-f64-exact",
        "our typed_vector::<f64> of f32-exact values: 4-byte elements",
        0,
        one(Op::TypedVector(Scalars::F64(vec![
            0x3ff8_0000_0000_0000,
            0x4000_0000_0000_0000,
        ]))),
    ));
    drafts.push(Draft::new(
        "typed-vector-f64-inexact",
        "our typed_vector::<f64> with 0.1: 8-byte elements",
        0,
        one(Op::TypedVector(Scalars::F64(vec![
            0x3ff8_0000_0000_0000,
            0x3fb9_9999_9999_999a,
        ]))),
    ));
    drafts.push(Draft::new(
        "typed-vector-u8-300",
        "our typed_vector::<u8> of 300 values: the length widens elements to 2 bytes",
        0,
        one(Op::TypedVector(Scalars::U8(
            (0..300).map(|i| i as u8).collect(),
        ))),
    ));
    let mut o = Ops::new();
    o.force(4).typed(Scalars::I8(vec![1, 2]));
    drafts.push(Draft::new(
        "typed-vector-forced-4",
        "our typed_vector::<i8> with force_min_width 4",
        0,
        o.take(),
    ));
    drafts.push(Draft::new(
        "scalar-vector-empty-int-4",
        "Vector(const int32_t *, 0): empty but typed int at width 4",
        0,
        one(Op::ScalarVector(Scalars::I32(vec![]))),
    ));
    drafts.push(Draft::new(
        "scalar-vector-uint-1-len-255",
        "Vector(const uint8_t *, 255): the longest a 1-byte length allows",
        0,
        one(Op::ScalarVector(Scalars::U8(
            (0..255).map(|i| i as u8).collect(),
        ))),
    ));
    drafts.push(Draft::new(
        "scalar-vector-int-2-len-300",
        "Vector(const int16_t *, 300)",
        0,
        one(Op::ScalarVector(Scalars::I16(
            (0..300).map(|i| i * 100 - 15000).collect(),
        ))),
    ));
}

fn bools(drafts: &mut Vec<Draft>) {
    let mut o = Ops::new();
    o.vec().bool(true).bool(false).bool(true).end_typed();
    drafts.push(Draft::new(
        "bool-typed",
        "typed bool vector from pushes",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().bool(false).end_typed();
    drafts.push(Draft::new(
        "bool-typed-one",
        "typed bool vector of one element",
        0,
        o.take(),
    ));
    drafts.push(Draft::new(
        "bool-scalar-vector",
        "Vector(const bool *)",
        0,
        one(Op::ScalarVector(Scalars::Bool(vec![
            true, false, false, true,
        ]))),
    ));
    drafts.push(Draft::new(
        "bool-scalar-vector-empty",
        "Vector(const bool *, 0)",
        0,
        one(Op::ScalarVector(Scalars::Bool(vec![]))),
    ));
    drafts.push(Draft::new(
        "bool-typed-vector",
        "our typed_vector::<bool>",
        0,
        one(Op::TypedVector(Scalars::Bool(vec![false, true]))),
    ));
    for w in [2u8, 4, 8] {
        let mut o = Ops::new();
        o.force(w).vec().bool(true).bool(false).end_typed();
        drafts.push(Draft::new(
            format!("bool-typed-forced-{w}"),
            format!("typed bool vector with {w}-byte elements (force_min_width {w})"),
            0,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.vec();
    for i in 0..260 {
        o.bool(i % 3 == 0);
    }
    o.end_typed();
    drafts.push(Draft::new(
        "bool-typed-260",
        "260 bools: a 2-byte length, so 2-byte elements",
        0,
        o.take(),
    ));
}
