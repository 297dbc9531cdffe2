//! Byte arrays published in Google's own FlexBuffers test suites
//! (github.com/google/flatbuffers), each rebuilt from the call sequence that
//! produced it. The C++ replayer must write exactly the published bytes;
//! arrays from ports that the C++ builder does not reproduce are kept apart as
//! [`PeerDifference`]s (see `conformance/PEER_DIFFERENCES.md`).
//!
//! The arrays are data quoted from those tests, with their file named in each
//! case's description.

use super::{one, Draft, Ops, Topic};
use crate::case::DEVIATION_STRING_VECTOR;
use crate::cpp::CppReplayer;
use crate::error::{Error, Result};
use crate::op::{to_hex, Op, Scalars};

const JS: &str = "tests/ts/JavaScriptFlexBuffersTest.js";
const RUST: &str = "tests/rust_usage_test/tests/flexbuffers_tests/binary_format.rs";
const JAVA: &str = "java/src/test/java/JavaTest.java";
const CPP: &str = "tests/flexbuffers_test.cpp";
const DART: &str = "dart/test/flex_builder_test.dart";
const KOTLIN: &str = "kotlin/flatbuffers-kotlin/src/commonTest/kotlin/com/google/flatbuffers/kotlin/FlexBuffersTest.kt";

/// `tests/gold_flexbuffer_example.bin`, the buffer of the C++ `FlexBuffersTest`
/// call sequence, read by the Rust, Python and JavaScript suites.
const GOLD: [u8; 166] = [
    0x76, 0x65, 0x63, 0x00, 0x04, 0x46, 0x72, 0x65, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x40,
    0x01, 0x4d, 0x06, 0x9c, 0x0f, 0x09, 0x05, 0x00, 0x0c, 0x04, 0x14, 0x22, 0x64, 0x68, 0x22, 0x62,
    0x61, 0x72, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x62, 0x61, 0x72, 0x33, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x62, 0x6f, 0x6f, 0x6c, 0x73, 0x00, 0x04, 0x01,
    0x00, 0x01, 0x00, 0x62, 0x6f, 0x6f, 0x6c, 0x00, 0x66, 0x6f, 0x6f, 0x00, 0x6d, 0x79, 0x6d, 0x61,
    0x70, 0x00, 0x01, 0x0b, 0x01, 0x01, 0x01, 0x62, 0x14, 0x07, 0x4b, 0x37, 0x19, 0x25, 0x16, 0x13,
    0x70, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
    0x58, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3d, 0x00, 0x00, 0x00,
    0x00, 0x00, 0xc8, 0x42, 0x2d, 0x00, 0x00, 0x00, 0x85, 0x00, 0x00, 0x00, 0x2e, 0x4e, 0x6a, 0x90,
    0x0e, 0x24, 0x28, 0x23, 0x26, 0x01,
];

fn published(name: &str, source: &str, what: &str, flags: u8, ops: Vec<Op>, bytes: &[u8]) -> Draft {
    Draft::new(
        name,
        format!("{what} (published in google/flatbuffers {source})"),
        flags,
        ops,
    )
    .published(bytes)
}

fn gold_ops() -> Vec<Op> {
    let mut o = Ops::new();
    o.map()
        .key("vec")
        .vec()
        .int(-100)
        .string("Fred")
        .ind_f32(4.0)
        .mark()
        .blob(&[77])
        .bool(false)
        .reuse(0)
        .end_vec()
        .key("bar")
        .scalar(Scalars::I32(vec![1, 2, 3]))
        .key("bar3")
        .fixed(Scalars::I32(vec![1, 2, 3]))
        .key("bools")
        .scalar(Scalars::Bool(vec![true, false, true, false]))
        .key("bool")
        .bool(true)
        .key("foo")
        .f64(100.0)
        .key("mymap")
        .map()
        .key("foo")
        .string("Fred")
        .end_map()
        .end_map();
    o.take()
}

pub(super) fn topic() -> Topic {
    let mut d = Vec::new();
    d.push(published(
        "cpp-gold-flexbuffer-example",
        "tests/gold_flexbuffer_example.bin",
        "the gold buffer of the C++ FlexBuffersTest call sequence (tests/flexbuffers_test.cpp), \
         keys and strings shared",
        3,
        gold_ops(),
        &GOLD,
    ));
    let mut o = Ops::new();
    o.vec();
    for _ in 0..130 {
        o.uint(255);
    }
    o.vec();
    for _ in 0..130 {
        o.uint(255);
    }
    o.vec().end_vec().end_vec().end_vec();
    let mut size_664 = Draft::new(
        "cpp-nested-uint8-vectors-664",
        format!(
            "two nested vectors of 130 uint8 255 and an empty one: FlexBuffersTest checks the \
             size is 664 bytes (published in google/flatbuffers {CPP})"
        ),
        3,
        o.take(),
    );
    size_664.published_len = Some(664);
    d.push(size_664);
    for (value, size) in [
        (127i64, 3usize),
        (32767, 4),
        (i32::MAX as i64, 6),
        (i64::MAX, 10),
    ] {
        let mut c = Draft::new(
            format!("kotlin-int-{value}-size"),
            format!(
                "int {value} shrinks to a {size}-byte buffer (size published in google/flatbuffers \
                 {KOTLIN} testWriteInt)"
            ),
            1,
            one(Op::Int(value)),
        );
        c.published_len = Some(size);
        d.push(c);
    }
    for (value, size) in [
        (255u64, 3usize),
        (65535, 4),
        (u32::MAX as u64, 6),
        (u64::MAX, 10),
    ] {
        let mut c = Draft::new(
            format!("kotlin-uint-{value}-size"),
            format!(
                "uint {value} shrinks to a {size}-byte buffer (size published in \
                 google/flatbuffers {KOTLIN} testWriteUInt)"
            ),
            1,
            one(Op::UInt(value)),
        );
        c.published_len = Some(size);
        d.push(c);
    }
    js(&mut d);
    rust(&mut d);
    let mut o = Ops::new();
    o.vec();
    for _ in 0..4 {
        o.string("abc");
    }
    o.end_typed();
    d.push(
        published(
            "java-deprecated-typed-vector-string",
            JAVA,
            "[\"abc\" x4] as the deprecated typed string vector, strings not shared \
             (testDeprecatedTypedVectorString)",
            0,
            o.take(),
            &[
                0x03, 0x61, 0x62, 0x63, 0x00, 0x03, 0x61, 0x62, 0x63, 0x00, 0x03, 0x61, 0x62, 0x63,
                0x00, 0x03, 0x61, 0x62, 0x63, 0x00, 0x04, 0x14, 0x10, 0x0c, 0x08, 0x04, 0x3c, 0x01,
            ],
        )
        .deviation(DEVIATION_STRING_VECTOR),
    );
    let mut o = Ops::new();
    o.vec().f64(1.1).f64(-256.0).end_fixed();
    d.push(published(
        "dart-fixed-float2",
        DART,
        "[1.1, -256.0] as a fixed float2 vector of 8-byte elements",
        1,
        o.take(),
        &[
            154, 153, 153, 153, 153, 153, 241, 63, 0, 0, 0, 0, 0, 0, 112, 192, 16, 75, 1,
        ],
    ));
    Topic {
        stem: "google",
        description: "Byte arrays published in Google's FlexBuffers test suites (C++, JavaScript, \
                      Rust, Java, Dart, Kotlin), rebuilt from their call sequences.",
        drafts: d,
    }
}

fn js(d: &mut Vec<Draft>) {
    // Single values (testSingleValueBuffers, testEncode, testIndirectAdd).
    let singles: Vec<(&str, Op, Vec<u8>)> = vec![
        ("null", Op::Null, vec![0, 0, 1]),
        ("true", Op::Bool(true), vec![1, 104, 1]),
        ("false", Op::Bool(false), vec![0, 104, 1]),
        ("int-0", Op::Int(0), vec![0, 4, 1]),
        ("int-1", Op::Int(1), vec![1, 4, 1]),
        ("int-25", Op::Int(25), vec![25, 4, 1]),
        ("int-minus-25", Op::Int(-25), vec![231, 4, 1]),
        ("uint-230", Op::UInt(230), vec![230, 8, 1]),
        ("int-230", Op::Int(230), vec![230, 0, 5, 2]),
        ("int-minus-1025", Op::Int(-1025), vec![255, 251, 5, 2]),
        ("uint-1025", Op::UInt(1025), vec![1, 4, 9, 2]),
        ("int-1025", Op::Int(1025), vec![1, 4, 5, 2]),
        (
            "int-i32-max",
            Op::Int(2147483647),
            vec![255, 255, 255, 127, 6, 4],
        ),
        (
            "int-i32-min",
            Op::Int(-2147483648),
            vec![0, 0, 0, 128, 6, 4],
        ),
        (
            "int-u32-max",
            Op::Int(4294967295),
            vec![255, 255, 255, 255, 0, 0, 0, 0, 7, 8],
        ),
        (
            "int-2^32+1",
            Op::Int(0x1_0000_0001),
            vec![1, 0, 0, 0, 1, 0, 0, 0, 7, 8],
        ),
        (
            "int-i64-max",
            Op::Int(i64::MAX),
            vec![255, 255, 255, 255, 255, 255, 255, 127, 7, 8],
        ),
        (
            "int-i64-min",
            Op::Int(i64::MIN),
            vec![0, 0, 0, 0, 0, 0, 0, 128, 7, 8],
        ),
        (
            "uint-u64-max",
            Op::UInt(u64::MAX),
            vec![255, 255, 255, 255, 255, 255, 255, 255, 11, 8],
        ),
        (
            "double-4.5",
            Op::Double(4.5f64.to_bits()),
            vec![0, 0, 144, 64, 14, 4],
        ),
        (
            "float-0.1",
            Op::Float(0.1f32.to_bits()),
            vec![205, 204, 204, 61, 14, 4],
        ),
        (
            "double-0.1",
            Op::Double(0.1f64.to_bits()),
            vec![154, 153, 153, 153, 153, 153, 185, 63, 15, 8],
        ),
        (
            "double-0.5",
            Op::Double(0.5f64.to_bits()),
            vec![0, 0, 0, 63, 14, 4],
        ),
        ("double-0", Op::Double(0), vec![0, 0, 0, 0, 14, 4]),
        (
            "blob-1-2-3",
            Op::Blob(vec![1, 2, 3]),
            vec![3, 1, 2, 3, 3, 100, 1],
        ),
        (
            "string-maxim",
            Op::String("Maxim".into()),
            vec![5, 77, 97, 120, 105, 109, 0, 6, 20, 1],
        ),
        (
            "string-hello-emoji",
            Op::String("hello 😱".into()),
            vec![
                10, 104, 101, 108, 108, 111, 32, 240, 159, 152, 177, 0, 11, 20, 1,
            ],
        ),
        ("indirect-int-0", Op::IndirectInt(0), vec![0, 1, 24, 1]),
        ("int-255", Op::Int(255), vec![255, 0, 5, 2]),
        ("uint-0", Op::UInt(0), vec![0, 8, 1]),
        ("indirect-uint-0", Op::IndirectUInt(0), vec![0, 1, 28, 1]),
        ("uint-255", Op::UInt(255), vec![255, 8, 1]),
        (
            "uint-2345234523452345",
            Op::UInt(2345234523452345),
            vec![185, 115, 175, 118, 250, 84, 8, 0, 11, 8],
        ),
        (
            "indirect-uint-2345234523452345",
            Op::IndirectUInt(2345234523452345),
            vec![185, 115, 175, 118, 250, 84, 8, 0, 8, 31, 1],
        ),
        (
            "int-2345234523452345",
            Op::Int(2345234523452345),
            vec![185, 115, 175, 118, 250, 84, 8, 0, 7, 8],
        ),
        (
            "indirect-int-2345234523452345",
            Op::IndirectInt(2345234523452345),
            vec![185, 115, 175, 118, 250, 84, 8, 0, 8, 27, 1],
        ),
        (
            "indirect-double-0.1",
            Op::IndirectDouble(0.1f64.to_bits()),
            vec![154, 153, 153, 153, 153, 153, 185, 63, 8, 35, 1],
        ),
        (
            "indirect-double-0",
            Op::IndirectDouble(0),
            vec![0, 0, 0, 0, 4, 34, 1],
        ),
    ];
    for (name, op, bytes) in singles {
        d.push(published(
            &format!("js-{name}"),
            JS,
            &format!("single value {op}"),
            1,
            one(op),
            &bytes,
        ));
    }
    let mut o = Ops::new();
    o.map().key("a").int(12).end_map();
    d.push(published(
        "js-map-a-12",
        JS,
        "{a: 12}",
        3,
        o.take(),
        &[97, 0, 1, 3, 1, 1, 1, 12, 4, 2, 36, 1],
    ));
    let mut o = Ops::new();
    o.map().key("").int(45).key("a").int(12).end_map();
    d.push(published(
        "js-map-empty-key-first",
        JS,
        "{'': 45, a: 12}, keys pushed in sorted order",
        3,
        o.take(),
        &[0, 97, 0, 2, 4, 4, 2, 1, 2, 45, 12, 4, 4, 4, 36, 1],
    ));
    let mut o = Ops::new();
    o.map().key("a").int(12).key("").int(45).end_map();
    d.push(published(
        "js-map-builder",
        JS,
        "map builder: key a then the empty key (testMapBuilder)",
        3,
        o.take(),
        &[97, 0, 0, 2, 2, 5, 2, 1, 2, 45, 12, 4, 4, 4, 36, 1],
    ));
    let fixed: Vec<(&str, Vec<i64>, Vec<u8>)> = vec![
        ("1-2", vec![1, 2], vec![1, 2, 2, 64, 1]),
        ("minus-1-256", vec![-1, 256], vec![255, 255, 0, 1, 4, 65, 1]),
        (
            "minus-45-256000",
            vec![-45, 256000],
            vec![211, 255, 255, 255, 0, 232, 3, 0, 8, 66, 1],
        ),
        ("1-2-4", vec![1, 2, 4], vec![1, 2, 4, 3, 76, 1]),
        (
            "minus-1-256-4",
            vec![-1, 256, 4],
            vec![255, 255, 0, 1, 4, 0, 6, 77, 1],
        ),
    ];
    for (name, values, bytes) in fixed {
        let mut o = Ops::new();
        o.vec();
        for v in &values {
            o.int(*v);
        }
        o.end_fixed();
        d.push(published(
            &format!("js-fixed-int-{name}"),
            JS,
            &format!("{values:?} encoded as a fixed int vector"),
            3,
            o.take(),
            &bytes,
        ));
    }
    let mut o = Ops::new();
    o.vec().vec().int(61).end_typed().int(64).end_vec();
    d.push(published(
        "js-nested-typed",
        JS,
        "[[61], 64]: a typed int vector inside an untyped one",
        3,
        o.take(),
        &[1, 61, 2, 2, 64, 44, 4, 4, 40, 1],
    ));
    let mut o = Ops::new();
    o.vec()
        .string("foo")
        .string("bar")
        .string("baz")
        .end_typed();
    d.push(
        published(
            "js-typed-strings",
            JS,
            "['foo', 'bar', 'baz'] as a typed string vector (type 15)",
            3,
            o.take(),
            &[
                3, 102, 111, 111, 0, 3, 98, 97, 114, 0, 3, 98, 97, 122, 0, 3, 15, 11, 7, 3, 60, 1,
            ],
        )
        .deviation(DEVIATION_STRING_VECTOR),
    );
    let mut o = Ops::new();
    o.vec();
    for s in ["foo", "bar", "baz", "foo", "bar", "baz"] {
        o.string(s);
    }
    o.end_typed();
    d.push(
        published(
            "js-typed-strings-shared",
            JS,
            "['foo', 'bar', 'baz', 'foo', 'bar', 'baz'] as a typed string vector, strings shared",
            3,
            o.take(),
            &[
                3, 102, 111, 111, 0, 3, 98, 97, 114, 0, 3, 98, 97, 122, 0, 6, 15, 11, 7, 18, 14,
                10, 6, 60, 1,
            ],
        )
        .deviation(DEVIATION_STRING_VECTOR),
    );
    let mut o = Ops::new();
    o.vec().bool(true).bool(false).bool(true).end_typed();
    d.push(published(
        "js-typed-bools",
        JS,
        "[true, false, true] as a typed bool vector",
        3,
        o.take(),
        &[3, 1, 0, 1, 3, 144, 1],
    ));
    let two_maps = |o: &mut Ops| {
        o.vec()
            .map()
            .key("something")
            .int(12)
            .end_map()
            .map()
            .key("something")
            .int(45)
            .end_map()
            .end_vec();
    };
    let mut o = Ops::new();
    two_maps(&mut o);
    d.push(published(
        "js-two-maps-keys-shared",
        JS,
        "[{something: 12}, {something: 45}], keys shared, key vectors not (testDeduplicationOff)",
        1,
        o.take(),
        &[
            115, 111, 109, 101, 116, 104, 105, 110, 103, 0, 1, 11, 1, 1, 1, 12, 4, 1, 18, 1, 1, 1,
            45, 4, 2, 10, 4, 36, 36, 4, 40, 1,
        ],
    ));
    let mut o = Ops::new();
    two_maps(&mut o);
    d.push(published(
        "js-two-maps-nothing-shared",
        JS,
        "[{something: 12}, {something: 45}], nothing shared (testDeduplicationOff)",
        0,
        o.take(),
        &[
            115, 111, 109, 101, 116, 104, 105, 110, 103, 0, 1, 11, 1, 1, 1, 12, 4, 115, 111, 109,
            101, 116, 104, 105, 110, 103, 0, 1, 11, 1, 1, 1, 45, 4, 2, 20, 4, 36, 36, 4, 40, 1,
        ],
    ));
    for (flags, bytes) in [
        (
            2u8,
            vec![
                9, 115, 111, 109, 101, 116, 104, 105, 110, 103, 0, 4, 100, 97, 114, 107, 0, 3, 17,
                18, 8, 3, 60, 1,
            ],
        ),
        (
            0,
            vec![
                9, 115, 111, 109, 101, 116, 104, 105, 110, 103, 0, 9, 115, 111, 109, 101, 116, 104,
                105, 110, 103, 0, 4, 100, 97, 114, 107, 0, 3, 28, 18, 8, 3, 60, 1,
            ],
        ),
    ] {
        let mut o = Ops::new();
        o.vec()
            .string("something")
            .string("something")
            .string("dark")
            .end_typed();
        d.push(
            published(
                &format!("js-typed-strings-flags-{flags}"),
                JS,
                &format!(
                    "['something', 'something', 'dark'] as a typed string vector, strings {} \
                     (testDeduplicationOff)",
                    if flags == 2 { "shared" } else { "not shared" }
                ),
                flags,
                o.take(),
                &bytes,
            )
            .deviation(DEVIATION_STRING_VECTOR),
        );
    }
    for (kind, op, ty) in [
        ("int", Op::IndirectInt(2345234523452345), 27u8),
        ("uint", Op::IndirectUInt(2345234523452345), 31),
    ] {
        let mut o = Ops::new();
        o.vec().push(op).mark().reuse(0).reuse(0).reuse(0).end_vec();
        d.push(published(
            &format!("js-indirect-{kind}-reused"),
            JS,
            &format!("four references to one indirect {kind} (testIndirectWithCache)"),
            1,
            o.take(),
            &[
                185, 115, 175, 118, 250, 84, 8, 0, 4, 9, 10, 11, 12, ty, ty, ty, ty, 8, 40, 1,
            ],
        ));
    }
    let mut o = Ops::new();
    o.vec()
        .ind_f64(0.1)
        .mark()
        .reuse(0)
        .reuse(0)
        .reuse(0)
        .end_vec();
    d.push(published(
        "js-indirect-float-reused",
        JS,
        "four references to one indirect double 0.1 (testIndirectWithCache)",
        1,
        o.take(),
        &[
            154, 153, 153, 153, 153, 153, 185, 63, 4, 9, 10, 11, 12, 35, 35, 35, 35, 8, 40, 1,
        ],
    ));
    let mut o = Ops::new();
    o.map();
    for (k, v) in [
        ("channels_in", 64),
        ("dilation_height_factor", 1),
        ("dilation_width_factor", 1),
        ("fused_activation_function", 1),
        ("pad_values", 1),
        ("padding", 0),
        ("stride_height", 1),
        ("stride_width", 1),
    ] {
        o.key(k).int(v);
    }
    o.end_map();
    let mut bytes: Vec<u8> = Vec::new();
    for k in [
        "channels_in",
        "dilation_height_factor",
        "dilation_width_factor",
        "fused_activation_function",
        "pad_values",
        "padding",
        "stride_height",
        "stride_width",
    ] {
        bytes.extend(k.as_bytes());
        bytes.push(0);
    }
    bytes.extend([
        8, 130, 119, 97, 76, 51, 41, 34, 21, 8, 1, 8, 64, 1, 1, 1, 1, 0, 1, 1, 4, 4, 4, 4, 4, 4, 4,
        4, 16, 36, 1,
    ]);
    d.push(published(
        "js-offsets-unsigned",
        JS,
        "a map whose key offsets exceed 127 (testBugWhereOffestWereStoredAsIntInsteadOfUInt)",
        3,
        o.take(),
        &bytes,
    ));
}

fn rust(d: &mut Vec<Draft>) {
    d.push(published(
        "rust-store-13",
        RUST,
        "13i32",
        1,
        one(Op::Int(13)),
        &[13, 4, 1],
    ));
    d.push(published(
        "rust-store-2pow20",
        RUST,
        "2^20 as i32",
        1,
        one(Op::Int(1 << 20)),
        &[0, 0, 16, 0, 6, 4],
    ));
    d.push(published(
        "rust-store-u64",
        RUST,
        "u64::MAX - 10",
        1,
        one(Op::UInt(u64::MAX - 10)),
        &[245, 255, 255, 255, 255, 255, 255, 255, 11, 8],
    ));
    let strings: Vec<String> = (0..8)
        .map(|i| format!("{i}aaabbbbccccddddeeeeffffgggghhh"))
        .collect();
    let mut o = Ops::new();
    o.vec();
    let mut bytes = Vec::new();
    for s in &strings {
        o.string(s);
        bytes.push(s.len() as u8);
        bytes.extend(s.as_bytes());
        bytes.push(0);
    }
    o.end_vec();
    bytes.extend(8u16.to_le_bytes());
    for i in 0..8u16 {
        bytes.extend((32 * (8 - i) + 9 + i).to_le_bytes());
    }
    bytes.extend([20u8; 8]);
    bytes.extend([24, 41, 1]);
    d.push(published(
        "rust-strings-force-16-bit-vector",
        RUST,
        "eight 31-character strings: offsets force a 2-byte vector \
         (heterogenous_vector_of_string_because_width)",
        1,
        o.take(),
        &bytes,
    ));
    let mut o = Ops::new();
    o.vec()
        .uint(256)
        .uint(257)
        .uint(258)
        .uint(259)
        .uint(0)
        .end_typed();
    d.push(published(
        "rust-typed-uint-16",
        RUST,
        "typed uint vector [256, 257, 258, 259, 0] at 2 bytes (store_vec_uint_16)",
        1,
        o.take(),
        &[5, 0, 0, 1, 1, 1, 2, 1, 3, 1, 0, 0, 10, 49, 1],
    ));
    d.push(published(
        "rust-fixed-uint4-16",
        RUST,
        "fixed uint4 [4, 16, 64, 256] at 2 bytes (singleton_vector_uint_4_16bit)",
        1,
        one(Op::FixedVector(Scalars::U16(vec![4, 16, 64, 256]))),
        &[4, 0, 16, 0, 64, 0, 0, 1, 8, 93, 1],
    ));
    let mut o = Ops::new();
    o.vec().uint(2).uint(3).uint(5).uint(7).end_fixed();
    d.push(published(
        "rust-fixed-uint4",
        RUST,
        "fixed uint4 [2, 3, 5, 7] (vector_uint4)",
        1,
        o.take(),
        &[2, 3, 5, 7, 4, 92, 1],
    ));
    let nested = [1, 2, 3, 3, 0, 5, 214, 8, 80, 4, 6, 40, 1];
    let mut o = Ops::new();
    o.vec()
        .uint(0)
        .vec()
        .uint(1)
        .uint(2)
        .uint(3)
        .end_fixed()
        .int(-42)
        .end_vec();
    d.push(published(
        "rust-nested-vector",
        RUST,
        "[0u8, [1u8, 2, 3], -42i8] with a fixed uint3 inside (nested_vector)",
        1,
        o.take(),
        &nested,
    ));
    let mut o = Ops::new();
    o.vec()
        .uint(0)
        .fixed(Scalars::U8(vec![1, 2, 3]))
        .int(-42)
        .end_vec();
    d.push(published(
        "rust-nested-vector-push-direct",
        RUST,
        "the same with the fixed vector pushed in bulk (nested_vector_push_direct)",
        1,
        o.take(),
        &nested,
    ));
    let mut o = Ops::new();
    o.map()
        .key("foo")
        .uint(17)
        .key("bar")
        .uint(33)
        .key("baz")
        .uint(41)
        .end_map();
    d.push(published(
        "rust-map",
        RUST,
        "{foo: 17, bar: 33, baz: 41} (store_map_index_into_it)",
        1,
        o.take(),
        &[
            b'f', b'o', b'o', 0, b'b', b'a', b'r', 0, b'b', b'a', b'z', 0, 3, 9, 6, 15, 3, 1, 3,
            33, 41, 17, 8, 8, 8, 6, 36, 1,
        ],
    ));
    d.push(published(
        "rust-utf8-snowman",
        RUST,
        "\"snowman ☃︎\" with a variation selector (utf8_snowman)",
        1,
        one(Op::String("snowman ☃\u{fe0e}".into())),
        &[
            14, b's', b'n', b'o', b'w', b'm', b'a', b'n', b' ', 226, 152, 131, 239, 184, 142, 0,
            15, 20, 1,
        ],
    ));
    let mut o = Ops::new();
    o.vec()
        .ind_uint(u64::MAX)
        .ind_int(i64::MIN)
        .ind_f64(std::f64::consts::PI)
        .uint(0)
        .end_vec();
    d.push(published(
        "rust-indirect-numbers",
        RUST,
        "indirect u64::MAX, i64::MIN and PI next to an inline 0 (indirect_numbers)",
        1,
        o.take(),
        &[
            255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 128, 24, 45, 68, 84, 251,
            33, 9, 64, 4, 25, 18, 11, 0, 31, 27, 35, 8, 8, 40, 1,
        ],
    ));
    let mut o = Ops::new();
    o.vec();
    for _ in 0..2 {
        o.map()
            .key("a")
            .uint(42)
            .key("b")
            .uint(42)
            .key("c")
            .uint(42)
            .end_map();
    }
    o.end_vec();
    d.push(published(
        "rust-key-pool",
        RUST,
        "two maps {a, b, c: 42}: keys shared, key vectors not (key_pool)",
        1,
        o.take(),
        &[
            b'a', 0, b'b', 0, b'c', 0, 3, 7, 6, 5, 3, 1, 3, 42, 42, 42, 8, 8, 8, 3, 20, 19, 18, 3,
            1, 3, 42, 42, 42, 8, 8, 8, 2, 20, 8, 36, 36, 4, 40, 1,
        ],
    ));
}

/// A byte array published by a port whose builder does not match C++ for the
/// same calls: kept out of the cases, confirmed by every regeneration.
#[derive(Clone, Debug)]
pub struct PeerDifference {
    /// Short name.
    pub name: &'static str,
    /// The test file that publishes the array.
    pub source: &'static str,
    /// Sharing flags of the equivalent C++ calls.
    pub flags: u8,
    /// The equivalent C++ calls.
    pub ops: Vec<Op>,
    /// The published array.
    pub published: Vec<u8>,
    /// Why the port differs.
    pub why: &'static str,
}

impl PeerDifference {
    /// Runs the ops through C++ and returns a one-line summary; an error if C++
    /// now writes the published bytes (then the array belongs in the cases).
    pub fn confirm(&self, replayer: &CppReplayer) -> Result<String> {
        let out = replayer.run(&[(self.flags, &self.ops)])?;
        let cpp = &out[0];
        if *cpp == self.published {
            return Err(Error::case(
                self.name,
                "C++ writes the published bytes: make it a case instead of a peer difference",
            ));
        }
        Ok(format!(
            "{} ({}): published {} / C++ {}: {}",
            self.name,
            self.source,
            to_hex(&self.published),
            to_hex(cpp),
            self.why
        ))
    }
}

/// Published arrays the C++ builder does not reproduce.
pub fn peer_differences() -> Vec<PeerDifference> {
    let inline_width = "the JavaScript builder stores an inline element's type with the \
                        element's own width, C++ with max(own, vector width)";
    let mut list = Vec::new();
    let mut o = Ops::new();
    o.vec().f64(1.1).int(-256).end_vec();
    list.push(PeerDifference {
        name: "js-mixed-float-int",
        source: JS,
        flags: 3,
        ops: o.take(),
        published: vec![
            2, 0, 0, 0, 0, 0, 0, 0, 154, 153, 153, 153, 153, 153, 241, 63, 0, 255, 255, 255, 255,
            255, 255, 255, 15, 5, 18, 43, 1,
        ],
        why: inline_width,
    });
    let mut o = Ops::new();
    o.vec()
        .string("foo")
        .int(1)
        .int(-5)
        .f64(1.3)
        .bool(true)
        .end_vec();
    list.push(PeerDifference {
        name: "js-mixed-string-numbers-bool",
        source: JS,
        flags: 3,
        ops: o.take(),
        published: vec![
            3, 102, 111, 111, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
            0, 0, 0, 0, 0, 251, 255, 255, 255, 255, 255, 255, 255, 205, 204, 204, 204, 204, 204,
            244, 63, 1, 0, 0, 0, 0, 0, 0, 0, 20, 4, 4, 15, 104, 45, 43, 1,
        ],
        why: inline_width,
    });
    let mut o = Ops::new();
    o.vec()
        .int(1)
        .f64(3.3)
        .string("max")
        .bool(true)
        .null()
        .bool(false)
        .end_vec();
    list.push(PeerDifference {
        name: "js-mixed-with-null",
        source: JS,
        flags: 3,
        ops: o.take(),
        published: vec![
            3, 109, 97, 120, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 102, 102,
            102, 102, 102, 102, 10, 64, 31, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 15, 20, 104, 0, 104, 54, 43, 1,
        ],
        why: inline_width,
    });
    let mut o = Ops::new();
    o.vec()
        .map()
        .key("something")
        .int(12)
        .end_map()
        .map()
        .key("something")
        .int(45)
        .end_map()
        .end_vec();
    list.push(PeerDifference {
        name: "js-shared-key-vector",
        source: JS,
        flags: 7,
        ops: o.take(),
        published: vec![
            115, 111, 109, 101, 116, 104, 105, 110, 103, 0, 1, 11, 1, 1, 1, 12, 4, 6, 1, 1, 45, 4,
            2, 8, 4, 36, 36, 4, 40, 1,
        ],
        why: "the JavaScript builder shares key vectors by default; C++ ignores \
              BUILDER_FLAG_SHARE_KEY_VECTORS",
    });
    list
}
