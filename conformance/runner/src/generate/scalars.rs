//! Inline scalars: null, bools, ints and uints at every boundary and every slot width.

use super::{one, Draft, Ops, Topic};
use crate::op::Op;

/// Signed boundaries: each side of every width change.
pub const INT_BOUNDARIES: [i64; 23] = [
    0,
    1,
    -1,
    127,
    128,
    -128,
    -129,
    255,
    256,
    32767,
    32768,
    -32768,
    -32769,
    65535,
    65536,
    i32::MAX as i64,
    i32::MAX as i64 + 1,
    i32::MIN as i64,
    i32::MIN as i64 - 1,
    u32::MAX as i64,
    u32::MAX as i64 + 1,
    i64::MAX,
    i64::MIN,
];

/// Unsigned boundaries.
pub const UINT_BOUNDARIES: [u64; 13] = [
    0,
    1,
    127,
    128,
    255,
    256,
    65535,
    65536,
    u32::MAX as u64,
    u32::MAX as u64 + 1,
    i64::MAX as u64,
    i64::MAX as u64 + 1,
    u64::MAX,
];

pub(super) fn topic() -> Topic {
    let mut drafts = vec![
        Draft::new("null", "null root", 0, one(Op::Null)),
        Draft::new("bool-true", "true root", 0, one(Op::Bool(true))),
        Draft::new("bool-false", "false root", 0, one(Op::Bool(false))),
    ];
    for v in INT_BOUNDARIES {
        drafts.push(Draft::new(
            format!("int-{v}"),
            format!("int {v} as root: the smallest two's-complement width that holds it"),
            1,
            one(Op::Int(v)),
        ));
    }
    for v in UINT_BOUNDARIES {
        drafts.push(Draft::new(
            format!("uint-{v}"),
            format!("uint {v} as root: the smallest unsigned width that holds it"),
            1,
            one(Op::UInt(v)),
        ));
    }
    // Every inline type at every slot width, the width forced from outside.
    for w in [1u8, 2, 4, 8] {
        let mut o = Ops::new();
        o.force(w)
            .vec()
            .null()
            .bool(true)
            .bool(false)
            .int(-1)
            .int(5)
            .uint(200)
            .uint(0)
            .end_vec();
        drafts.push(Draft::new(
            format!("inline-at-width-{w}"),
            format!(
                "null, bools, ints and uints stored in {w}-byte slots \
                 (force_min_width {w}); type bytes carry the slot width"
            ),
            1,
            o.take(),
        ));
    }
    // The same, with the width forced by a wide sibling instead.
    for (wide, w) in [(300i64, 2), (70000, 4), (1 << 40, 8)] {
        let mut o = Ops::new();
        o.vec()
            .null()
            .bool(true)
            .int(-7)
            .uint(7)
            .int(wide)
            .end_vec();
        drafts.push(Draft::new(
            format!("inline-widened-by-sibling-{w}"),
            format!("small scalars widened to {w} bytes by the int {wide} in the same vector"),
            1,
            o.take(),
        ));
    }
    // Negative values sign-extend into wider slots.
    for v in [-1i64, -128, -129, -32769, i32::MIN as i64] {
        let mut o = Ops::new();
        o.vec().int(v).int(i64::MAX).end_vec();
        drafts.push(Draft::new(
            format!("sign-extended-{v}"),
            format!("int {v} sign-extended into an 8-byte slot"),
            1,
            o.take(),
        ));
    }
    // Unsigned values above the signed range of their width.
    for v in [200u64, 40000, 3_000_000_000] {
        let mut o = Ops::new();
        o.vec().uint(v).int(-1).end_vec();
        drafts.push(Draft::new(
            format!("uint-next-to-int-{v}"),
            format!("uint {v} and int -1 share a vector; the uint keeps its own minimal width"),
            1,
            o.take(),
        ));
    }
    // Scalars as map values, at every width of the values vector.
    for w in [1u8, 2, 4, 8] {
        let mut o = Ops::new();
        o.force(w)
            .map()
            .key("n")
            .null()
            .key("b")
            .bool(true)
            .key("i")
            .int(-2)
            .key("u")
            .uint(2)
            .end_map();
        drafts.push(Draft::new(
            format!("map-values-at-width-{w}"),
            format!("inline scalars as map values in {w}-byte slots"),
            1,
            o.take(),
        ));
    }
    Topic {
        stem: "scalars",
        description: "Inline scalars: null, bool, int and uint at every boundary and slot width.",
        drafts,
    }
}
