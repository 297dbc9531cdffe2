//! Sharing: every flag value with repeated keys, strings and key sets, and
//! explicit reuse (`LastValue`/`ReuseValue`) of every kind of value.

use super::{Draft, Ops, Topic};

pub(super) fn topic() -> Topic {
    let mut drafts = Vec::new();
    for flags in 0..=7u8 {
        let what = match flags & 3 {
            0 => "nothing shared",
            1 => "keys shared",
            2 => "strings shared",
            _ => "keys and strings shared",
        };
        let kv = if flags & 4 != 0 {
            "; the key-vector flag has no effect in C++"
        } else {
            ""
        };
        let mut o = Ops::new();
        o.vec();
        for i in 0..3 {
            o.map().key("id").int(i).key("tag").string("t").end_map();
        }
        o.end_vec();
        drafts.push(Draft::new(
            format!("flags-{flags}-repeated-keys"),
            format!("three maps with keys id, tag, flags {flags}: {what}{kv}"),
            flags,
            o.take(),
        ));
        let mut o = Ops::new();
        o.vec()
            .string("x")
            .string("yy")
            .string("x")
            .string("")
            .string("yy")
            .string("")
            .string("xy")
            .end_vec();
        drafts.push(Draft::new(
            format!("flags-{flags}-repeated-strings"),
            format!("repeated and prefix-related strings, flags {flags}: {what}"),
            flags,
            o.take(),
        ));
        let mut o = Ops::new();
        o.map()
            .key("name")
            .string("name")
            .key("other")
            .vec()
            .key("name")
            .string("name")
            .key("other")
            .end_vec()
            .end_map();
        drafts.push(Draft::new(
            format!("flags-{flags}-keys-equal-to-strings"),
            format!("keys and strings with the same text are never shared with each other, flags {flags}"),
            flags,
            o.take(),
        ));
        let mut o = Ops::new();
        o.vec()
            .string(&"L".repeat(300))
            .string("a\u{0}b")
            .string("a\u{0}c")
            .string(&"L".repeat(300))
            .string("a\u{0}b")
            .end_vec();
        drafts.push(Draft::new(
            format!("flags-{flags}-long-and-nul-strings"),
            format!("a 300-byte string and strings with embedded NUL, repeated, flags {flags}"),
            flags,
            o.take(),
        ));
    }
    reuse(&mut drafts);
    Topic {
        stem: "sharing",
        description:
            "Sharing flags 0..7 with repeated keys, strings and key sets; explicit value reuse.",
        drafts,
    }
}

fn reuse(drafts: &mut Vec<Draft>) {
    let mut o = Ops::new();
    o.vec()
        .string("shared")
        .mark()
        .int(1)
        .reuse(0)
        .reuse(0)
        .end_vec();
    drafts.push(Draft::new(
        "reuse-string",
        "a string reused twice with ReuseValue: three offsets to one string",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .vec()
        .int(1)
        .int(2)
        .end_vec()
        .mark()
        .reuse(0)
        .end_vec();
    drafts.push(Draft::new(
        "reuse-vector",
        "a vector reused inside its parent",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .map()
        .key("a")
        .int(1)
        .end_map()
        .mark()
        .reuse(0)
        .end_vec();
    drafts.push(Draft::new(
        "reuse-map",
        "a map reused inside its parent",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.map()
        .key("k")
        .mark()
        .int(1)
        .key("other")
        .map()
        .reuse(0)
        .int(2)
        .end_map()
        .end_map();
    drafts.push(Draft::new(
        "reuse-key",
        "a key reused as the key of a nested map (flags 0, so only reuse shares it)",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().ind_int(i64::MIN).mark().reuse(0).reuse(0).end_vec();
    drafts.push(Draft::new(
        "reuse-indirect-int",
        "an indirect i64 reused: the vector stays 1 byte wide",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().int(100_000).mark().reuse(0).end_vec();
    drafts.push(Draft::new(
        "reuse-inline-int",
        "reusing an inline int copies the value",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .vec()
        .blob(&[1, 2, 3])
        .mark()
        .end_vec()
        .mark()
        .vec()
        .reuse(0)
        .reuse(1)
        .end_vec()
        .end_vec();
    drafts.push(Draft::new(
        "reuse-across-levels",
        "a blob and the vector holding it, both reused in a later vector",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.string("root").mark();
    drafts.push(Draft::new(
        "mark-root",
        "marking the root value changes nothing",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec().key("x").mark().reuse(0).key("y").end_typed();
    drafts.push(Draft::new(
        "reuse-key-in-key-vector",
        "a key reused in a typed key vector",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .vec()
        .int(1)
        .int(2)
        .end_typed()
        .mark()
        .vec()
        .reuse(0)
        .reuse(0)
        .end_vec()
        .end_vec();
    drafts.push(Draft::new(
        "reuse-typed-vector",
        "a typed vector reused twice in a nested vector",
        0,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec()
        .string(&"s".repeat(300))
        .mark()
        .blob(&[0; 200])
        .reuse(0)
        .end_vec();
    drafts.push(Draft::new(
        "reuse-far-string",
        "a 300-byte string reused after a blob: the reused offset needs 2 bytes",
        0,
        o.take(),
    ));
}
