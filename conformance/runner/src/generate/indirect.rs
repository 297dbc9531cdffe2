//! Indirect scalars: ints, uints and floats stored behind offsets, including
//! `IndirectDouble` of f32-exact values (our recorded deviation).

use super::{one, Draft, Ops, Topic};
use crate::op::Op;

pub(super) fn topic() -> Topic {
    let mut drafts = Vec::new();
    for v in [
        0i64,
        -1,
        127,
        128,
        -129,
        32768,
        i32::MAX as i64,
        i32::MIN as i64 - 1,
        i64::MAX,
        i64::MIN,
    ] {
        drafts.push(Draft::new(
            format!("indirect-int-{v}"),
            format!("IndirectInt({v}) as root: aligned to its own width"),
            0,
            one(Op::IndirectInt(v)),
        ));
    }
    for v in [0u64, 255, 256, 65536, u32::MAX as u64 + 1, u64::MAX] {
        drafts.push(Draft::new(
            format!("indirect-uint-{v}"),
            format!("IndirectUInt({v}) as root"),
            0,
            one(Op::IndirectUInt(v)),
        ));
    }
    for (name, bits) in [
        ("zero", 0u32),
        ("one-and-a-half", 0x3fc0_0000),
        ("nan-payload", 0x7fc0_1234),
        ("negative-infinity", 0xff80_0000),
        ("min-subnormal", 1),
    ] {
        drafts.push(Draft::new(
            format!("indirect-float-{name}"),
            format!("IndirectFloat({})", f32::from_bits(bits)),
            0,
            one(Op::IndirectFloat(bits)),
        ));
    }
    for (name, bits, note) in [
        (
            "0.1",
            0x3fb9_9999_9999_999au64,
            "not exact in f32: 8 bytes as in C++",
        ),
        ("1e300", 0x7e37_e43c_8800_759c, "not exact in f32: 8 bytes"),
        ("2^24+1", 0x4170_0000_1000_0000, "not exact in f32: 8 bytes"),
        ("nan", 0x7ff8_0000_0000_0000, "NaN is never exact: 8 bytes"),
        (
            "3.0",
            0x4008_0000_0000_0000,
            "exact in f32: we write the f32 where C++ writes the low half of the double",
        ),
        ("0.5", 0x3fe0_0000_0000_0000, "exact in f32: deviation"),
        (
            "negative-zero",
            0x8000_0000_0000_0000,
            "exact in f32: deviation",
        ),
        ("infinity", 0x7ff0_0000_0000_0000, "exact in f32: deviation"),
        (
            "f32-min-subnormal",
            0x36a0_0000_0000_0000,
            "exact in f32: deviation",
        ),
        (
            "zero",
            0,
            "exact in f32: deviation (C++ happens to write the same zero bytes)",
        ),
    ] {
        drafts.push(Draft::new(
            format!("indirect-double-{name}"),
            format!("IndirectDouble({}): {note}", f64::from_bits(bits)),
            0,
            one(Op::IndirectDouble(bits)),
        ));
    }
    let mut o = Ops::new();
    o.vec()
        .ind_int(i64::MAX)
        .int(1)
        .ind_uint(u64::MAX)
        .end_vec();
    drafts.push(Draft::new(
        "keep-vector-narrow",
        "64-bit values stored indirectly keep a vector's slots at 1 byte",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .int(1)
        .ind_int(2)
        .ind_f32(2.5)
        .ind_f64(0.1)
        .end_vec();
    drafts.push(Draft::new(
        "alignment",
        "indirect values of 1, 4 and 8 bytes, each aligned to its width",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.map()
        .key("i")
        .ind_int(-300)
        .key("u")
        .ind_uint(300)
        .key("f")
        .ind_f64(1e-10)
        .end_map();
    drafts.push(Draft::new(
        "in-map",
        "indirect values as map values",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().ind_f64(3.0).ind_f64(0.1).end_vec();
    drafts.push(Draft::new(
        "double-exact-in-vector",
        "IndirectDouble(3.0) (deviation: f32) next to IndirectDouble(0.1) (f64)",
        0,
        o.take(),
    ));
    Topic {
        stem: "indirect",
        description:
            "Indirect ints, uints and floats, their alignment, and IndirectDouble's f32 deviation.",
        drafts,
    }
}
