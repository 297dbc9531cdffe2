//! Strings, keys and blobs: empty, ASCII, multi-byte UTF-8, embedded NUL,
//! lengths across the 1-, 2- and 4-byte size fields.

use super::{one, Draft, Ops, Topic};
use crate::op::Op;

/// Strings worth a root case each.
const STRINGS: [(&str, &str); 12] = [
    ("empty", ""),
    ("ascii-1", "a"),
    ("ascii", "hello, world"),
    ("utf8-2-byte", "é"),
    ("utf8-2-byte-word", "ñandú"),
    ("utf8-3-byte", "€"),
    ("utf8-3-byte-word", "日本語"),
    ("utf8-4-byte", "😱"),
    ("utf8-4-byte-music", "𝄞"),
    ("utf8-mixed", "aé€😱"),
    ("embedded-nul", "a\u{0}b"),
    ("control-and-quote", "tab\tquote\"backslash\\"),
];

pub(super) fn topic() -> Topic {
    let mut drafts = Vec::new();
    for (name, s) in STRINGS {
        drafts.push(Draft::new(
            format!("string-{name}"),
            format!("String({s:?}) as root"),
            0,
            one(Op::String(s.into())),
        ));
    }
    for (len, what) in [
        (255usize, "the longest with a 1-byte size"),
        (256, "the shortest with a 2-byte size"),
        (65535, "the longest with a 2-byte size"),
        (
            65536,
            "the shortest with a 4-byte size; as root, its offset needs a 4-byte root width",
        ),
    ] {
        drafts.push(Draft::new(
            format!("string-length-{len}"),
            format!("an ASCII string of {len} bytes, {what}"),
            0,
            one(Op::String("s".repeat(len))),
        ));
    }
    drafts.push(Draft::new(
        "string-2-byte-chars-crossing-255",
        "128 two-byte characters: 256 bytes of UTF-8 from 128 chars, so the size counts bytes",
        0,
        one(Op::String("é".repeat(128))),
    ));
    drafts.push(Draft::new(
        "string-4-byte-chars-crossing-255",
        "64 four-byte characters: 256 bytes",
        0,
        one(Op::String("😱".repeat(64))),
    ));
    for (name, k) in [
        ("empty", ""),
        ("ascii", "key"),
        ("utf8-2-byte", "ключ"),
        ("utf8-4-byte", "🔑"),
        ("long", &"k".repeat(300)),
    ] {
        drafts.push(Draft::new(
            format!("key-{name}"),
            format!("Key({k:?}) as root"),
            1,
            one(Op::Key(k.to_string())),
        ));
    }
    for (name, b) in [
        ("empty", vec![]),
        ("one-zero", vec![0]),
        ("all-byte-values", (0..=255u8).collect::<Vec<_>>()),
        ("length-255", vec![0xab; 255]),
        ("length-256", vec![0xcd; 256]),
    ] {
        drafts.push(Draft::new(
            format!("blob-{name}"),
            format!("Blob of {} bytes as root", b.len()),
            0,
            one(Op::Blob(b)),
        ));
    }
    // A large blob after a short string: the vector's offset to the string
    // passes 65535, so its elements need 4 bytes.
    let mut o = Ops::new();
    o.vec()
        .string("first")
        .blob(&vec![0u8; 65536])
        .int(1)
        .end_vec();
    drafts.push(Draft::new(
        "large-blob-pushes-offsets-to-4-bytes",
        "a 65,536-byte blob (4-byte size) between a string and its vector: 4-byte offsets",
        0,
        o.take(),
    ));
    // Strings in vectors, with offsets crossing one byte.
    let mut o = Ops::new();
    o.vec();
    for i in 0..12 {
        o.string(&format!("{i:02}-{}", "x".repeat(30)));
    }
    o.end_vec();
    drafts.push(Draft::new(
        "string-offsets-cross-255",
        "12 strings of 33 bytes: the first offsets exceed 255, so the vector needs 2-byte slots",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec();
    for (_, s) in STRINGS {
        o.string(s);
    }
    o.end_vec();
    drafts.push(Draft::new(
        "strings-in-vector",
        "every string of this file in one untyped vector",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().key("k").string("k").blob(b"k").end_vec();
    drafts.push(Draft::new(
        "key-string-blob-side-by-side",
        "the same byte as key, string and blob in one vector: three encodings",
        0,
        o.take(),
    ));
    Topic {
        stem: "strings",
        description:
            "Strings, keys and blobs: empty, ASCII, UTF-8 of every length class, size-field widths.",
        drafts,
    }
}
