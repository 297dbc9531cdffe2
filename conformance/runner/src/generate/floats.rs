//! Floats: f32 and f64 roots, exactness, NaN, infinities, -0.0, subnormals, widths.

use super::{one, Draft, Ops, Topic};
use crate::op::{Op, Scalars};

/// Doubles worth a case each, with a name.
pub const DOUBLES: [(&str, u64); 24] = [
    ("zero", 0x0000_0000_0000_0000),
    ("negative-zero", 0x8000_0000_0000_0000),
    ("one", 0x3ff0_0000_0000_0000),
    ("minus-one", 0xbff0_0000_0000_0000),
    ("half", 0x3fe0_0000_0000_0000),
    ("hundred", 0x4059_0000_0000_0000),
    ("0.1", 0x3fb9_9999_9999_999a),
    ("one-third", 0x3fd5_5555_5555_5555),
    ("pi", 0x4009_21fb_5444_2d18),
    ("1e300", 0x7e37_e43c_8800_759c),
    ("-1e-300", 0x81d3_3cd6_cc7e_94d8),
    ("max", 0x7fef_ffff_ffff_ffff),
    ("min-positive-normal", 0x0010_0000_0000_0000),
    ("max-subnormal", 0x000f_ffff_ffff_ffff),
    ("min-subnormal", 0x0000_0000_0000_0001),
    ("f32-max", 0x47ef_ffff_e000_0000),
    ("f32-min-subnormal", 0x36a0_0000_0000_0000),
    ("2^24+1", 0x4170_0000_1000_0000),
    ("2^24", 0x4170_0000_0000_0000),
    ("nan", 0x7ff8_0000_0000_0000),
    ("nan-payload", 0x7ff8_0000_dead_beef),
    ("negative-nan", 0xfff8_0000_0000_0000),
    ("infinity", 0x7ff0_0000_0000_0000),
    ("negative-infinity", 0xfff0_0000_0000_0000),
];

/// Floats (f32 bit patterns) worth a case each.
pub const FLOATS: [(&str, u32); 13] = [
    ("zero", 0x0000_0000),
    ("negative-zero", 0x8000_0000),
    ("one-and-a-half", 0x3fc0_0000),
    ("0.1", 0x3dcc_cccd),
    ("max", 0x7f7f_ffff),
    ("min-positive-normal", 0x0080_0000),
    ("min-subnormal", 0x0000_0001),
    ("max-subnormal", 0x007f_ffff),
    ("nan", 0x7fc0_0000),
    ("nan-payload", 0x7fc0_1234),
    ("negative-nan", 0xffc0_0000),
    ("infinity", 0x7f80_0000),
    ("negative-infinity", 0xff80_0000),
];

pub(super) fn topic() -> Topic {
    let mut drafts = Vec::new();
    for (name, bits) in DOUBLES {
        drafts.push(Draft::new(
            format!("double-{name}"),
            format!(
                "Double({}) as root: 4 bytes when exact in f32, else 8 (NaN always 8)",
                f64::from_bits(bits)
            ),
            0,
            one(Op::Double(bits)),
        ));
    }
    for (name, bits) in FLOATS {
        drafts.push(Draft::new(
            format!("float-{name}"),
            format!("Float({}) as root: always 4 bytes", f32::from_bits(bits)),
            0,
            one(Op::Float(bits)),
        ));
    }
    // Every float of the lists in an 8-byte vector, so f32 values widen to f64 slots.
    let mut o = Ops::new();
    o.vec();
    for (_, bits) in FLOATS {
        o.push(Op::Float(bits));
    }
    o.f64(0.1).end_vec();
    drafts.push(Draft::new(
        "floats-in-8-byte-slots",
        "f32 values (NaN, infinities, subnormals included) stored in an 8-byte vector",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec();
    for (_, bits) in DOUBLES {
        if super::f32_exact(bits) {
            o.push(Op::Double(bits));
        }
    }
    o.end_vec();
    drafts.push(Draft::new(
        "f32-exact-doubles-in-4-byte-slots",
        "doubles exact in f32 stay in a 4-byte vector",
        0,
        o.take(),
    ));
    // Typed float vectors at both widths.
    let mut o = Ops::new();
    o.vec().f32(1.5).f64(-0.25).f32(f32::INFINITY).end_typed();
    drafts.push(Draft::new(
        "typed-float-4",
        "typed float vector of f32-exact values: 4-byte elements",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .f32(1.5)
        .f64(0.1)
        .push(Op::Double(0x7ff8_0000_0000_0000))
        .end_typed();
    drafts.push(Draft::new(
        "typed-float-8",
        "typed float vector with a value needing f64: 8-byte elements",
        0,
        o.take(),
    ));
    // Bulk float vectors keep raw bit patterns.
    let specials32 = vec![
        0x8000_0000,
        0x7fc0_1234,
        0x0000_0001,
        0xff80_0000,
        0x3dcc_cccd,
    ];
    drafts.push(Draft::new(
        "scalar-vector-float-4",
        "Vector(const float *) with -0.0, a NaN payload, a subnormal, -inf and 0.1f",
        0,
        one(Op::ScalarVector(Scalars::F32(specials32.clone()))),
    ));
    let specials64 = vec![
        0x8000_0000_0000_0000,
        0x7ff8_0000_dead_beef,
        0x0000_0000_0000_0001,
        0x7ff0_0000_0000_0000,
        0x3fb9_9999_9999_999a,
    ];
    drafts.push(Draft::new(
        "scalar-vector-float-8",
        "Vector(const double *) with -0.0, a NaN payload, a subnormal, inf and 0.1",
        0,
        one(Op::ScalarVector(Scalars::F64(specials64.clone()))),
    ));
    for n in 2..=4 {
        drafts.push(Draft::new(
            format!("fixed-vector-float-4-len-{n}"),
            format!("FixedTypedVector(const float *, {n})"),
            0,
            one(Op::FixedVector(Scalars::F32(specials32[..n].to_vec()))),
        ));
        drafts.push(Draft::new(
            format!("fixed-vector-float-8-len-{n}"),
            format!("FixedTypedVector(const double *, {n})"),
            0,
            one(Op::FixedVector(Scalars::F64(specials64[..n].to_vec()))),
        ));
    }
    // A float map value next to wide ints.
    let mut o = Ops::new();
    o.map().key("f").f32(-2.5).key("i").int(i64::MIN).end_map();
    drafts.push(Draft::new(
        "float-map-value-in-8-byte-slot",
        "an f32 map value widened to 8 bytes by an i64 sibling",
        1,
        o.take(),
    ));
    Topic {
        stem: "floats",
        description:
            "Floats: f32 and f64, exact and not, NaN, infinities, -0.0, subnormals, both widths.",
        drafts,
    }
}
