//! A root of every type the builder writes, and roots at every root width.

use super::{one, Draft, Ops, Topic};
use crate::case::DEVIATION_STRING_VECTOR;
use crate::op::{Op, Scalars};

pub(super) fn topic() -> Topic {
    let mut drafts = Vec::new();
    let mut add = |ty: &str, ops: Vec<Op>| {
        drafts.push(Draft::new(
            format!("type-{ty}"),
            format!("a root of type {ty}"),
            1,
            ops,
        ));
    };
    add("null", one(Op::Null));
    add("int", one(Op::Int(-42)));
    add("uint", one(Op::UInt(42)));
    add("float", one(Op::Double(0x3ff8_0000_0000_0000)));
    add("key", one(Op::Key("root".into())));
    add("string", one(Op::String("root".into())));
    add("indirect_int", one(Op::IndirectInt(-42)));
    add("indirect_uint", one(Op::IndirectUInt(42)));
    add("indirect_float", one(Op::IndirectFloat(0x3fc0_0000)));
    let mut o = Ops::new();
    o.map().key("k").int(1).end_map();
    add("map", o.take());
    let mut o = Ops::new();
    o.vec().int(1).string("s").end_vec();
    add("vector", o.take());
    add(
        "vector_int",
        one(Op::ScalarVector(Scalars::I16(vec![-1, 1000]))),
    );
    add(
        "vector_uint",
        one(Op::ScalarVector(Scalars::U32(vec![1, 70000]))),
    );
    add(
        "vector_float",
        one(Op::ScalarVector(Scalars::F64(vec![0x4000_0000_0000_0000]))),
    );
    let mut o = Ops::new();
    o.vec().key("a").key("b").end_typed();
    add("vector_key", o.take());
    for (ty, op) in [
        ("vector_int2", Op::FixedVector(Scalars::I8(vec![-1, 1]))),
        ("vector_uint2", Op::FixedVector(Scalars::U16(vec![1, 2]))),
        (
            "vector_float2",
            Op::FixedVector(Scalars::F32(vec![0, 0x3f80_0000])),
        ),
        ("vector_int3", Op::FixedVector(Scalars::I32(vec![-1, 0, 1]))),
        ("vector_uint3", Op::FixedVector(Scalars::U64(vec![1, 2, 3]))),
        (
            "vector_float3",
            Op::FixedVector(Scalars::F64(vec![
                0,
                0x3ff0_0000_0000_0000,
                0x4000_0000_0000_0000,
            ])),
        ),
        (
            "vector_int4",
            Op::FixedVector(Scalars::I64(vec![-2, -1, 1, 2])),
        ),
        (
            "vector_uint4",
            Op::FixedVector(Scalars::U8(vec![1, 2, 3, 4])),
        ),
        (
            "vector_float4",
            Op::FixedVector(Scalars::F32(vec![0, 0x3f80_0000, 0x4000_0000, 0x4040_0000])),
        ),
    ] {
        add(ty, one(op));
    }
    add("blob", one(Op::Blob(vec![0xde, 0xad])));
    add("bool", one(Op::Bool(true)));
    add(
        "vector_bool",
        one(Op::ScalarVector(Scalars::Bool(vec![true, false]))),
    );
    let mut o = Ops::new();
    o.vec().string("a").string("b").end_typed();
    drafts.push(
        Draft::new(
            "type-vector_string_deprecated",
            "a root of the deprecated type 15, as C++ writes it; our builder refuses to",
            1,
            o.take(),
        )
        .deviation(DEVIATION_STRING_VECTOR),
    );
    // The root slot's own width.
    for (w, v) in [(1u8, 1i64), (2, 1000), (4, 100_000), (8, 1 << 40)] {
        drafts.push(Draft::new(
            format!("root-width-{w}-int"),
            format!("an inline int root needing {w} bytes: the root width byte is {w}"),
            0,
            one(Op::Int(v)),
        ));
    }
    drafts.push(Draft::new(
        "root-width-2-offset",
        "a 300-byte string root: the root offset passes 255 and needs 2 bytes",
        0,
        one(Op::String("r".repeat(300))),
    ));
    Topic {
        stem: "roots",
        description: "A root of every type the builder writes, and every root width.",
        drafts,
    }
}
