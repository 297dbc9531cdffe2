//! Maps: empty, sorted by unsigned key bytes, Unicode keys, every value type,
//! deep nesting, many keys, and the widths the C++ doubled-index rule yields.

use super::{Draft, Ops, Topic};

pub(super) fn topic() -> Topic {
    let mut drafts = Vec::new();
    let mut o = Ops::new();
    o.map().end_map();
    drafts.push(Draft::new(
        "empty",
        "empty map: an empty keys vector and an empty values vector",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.map().key("a").int(1).end_map();
    drafts.push(Draft::new("one-entry", "{a: 1}", 1, o.take()));
    let mut o = Ops::new();
    o.map()
        .key("c")
        .int(3)
        .key("a")
        .int(1)
        .key("b")
        .int(2)
        .end_map();
    drafts.push(Draft::new(
        "unsorted-insertion",
        "keys pushed c, a, b are stored sorted a, b, c",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.map()
        .key("ab")
        .int(2)
        .key("")
        .int(0)
        .key("b")
        .int(3)
        .key("a")
        .int(1)
        .end_map();
    drafts.push(Draft::new(
        "prefix-keys",
        "keys that are prefixes of each other and the empty key sort like strcmp",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.map()
        .key("z")
        .int(1)
        .key("Z")
        .int(2)
        .key("é")
        .int(3)
        .key("日本")
        .int(4)
        .key("😱")
        .int(5)
        .key("e")
        .int(6)
        .end_map();
    drafts.push(Draft::new(
        "unicode-keys",
        "Unicode keys sort by unsigned UTF-8 bytes (Z < e < z < é < 日本 < 😱)",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.map()
        .key("null")
        .null()
        .key("bool")
        .bool(true)
        .key("int")
        .int(-1)
        .key("uint")
        .uint(1)
        .key("float")
        .f32(1.5)
        .key("double")
        .f64(0.1)
        .key("key")
        .key("k")
        .key("string")
        .string("s")
        .key("blob")
        .blob(&[1, 2])
        .key("indirect_int")
        .ind_int(-9)
        .key("indirect_uint")
        .ind_uint(9)
        .key("indirect_float")
        .ind_f32(9.5)
        .key("vector")
        .vec()
        .int(1)
        .string("two")
        .end_vec()
        .key("typed")
        .vec()
        .int(1)
        .int(2)
        .end_typed()
        .key("fixed")
        .vec()
        .int(1)
        .int(2)
        .end_fixed()
        .key("map")
        .map()
        .key("inner")
        .null()
        .end_map()
        .end_map();
    drafts.push(Draft::new(
        "every-value-type",
        "a map holding one value of every type the builder writes",
        1,
        o.take(),
    ));
    // Nested 64 deep: the verifier's default depth limit, reached exactly.
    let mut o = Ops::new();
    for i in 0..64 {
        o.map().key(&format!("level{i}"));
    }
    o.string("bottom");
    for _ in 0..64 {
        o.end_map();
    }
    drafts.push(Draft::new(
        "nested-64-deep",
        "maps nested 64 deep (the default verifier depth limit), a string at the bottom",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.map();
    for i in 0..1000 {
        o.key(&format!("key{:04}", (i * 7919) % 1000)).int(i);
    }
    o.end_map();
    drafts.push(Draft::new(
        "1000-keys",
        "a map with 1,000 keys pushed out of order: 2-byte keys vector and values",
        1,
        o.take(),
    ));
    let mut o = Ops::new();
    o.vec();
    for i in 0..3 {
        o.map()
            .key("id")
            .int(i)
            .key("name")
            .string(&format!("n{i}"))
            .end_map();
    }
    o.end_vec();
    drafts.push(Draft::new(
        "maps-in-vector",
        "a vector of three maps with the same keys (keys shared by the default flag)",
        1,
        o.take(),
    ));
    // The doubled stack index of the C++ builder: a map whose values are
    // offsets just below the 1-byte limit gets 2-byte slots where an
    // untyped vector of the same values would not.
    for n in [40usize, 60, 80, 100, 120] {
        let mut o = Ops::new();
        o.map();
        for i in 0..n {
            o.key(&format!("k{i:03}")).string("v");
        }
        o.end_map();
        drafts.push(Draft::new(
            format!("string-values-{n}"),
            format!(
                "{n} keys with string values: element widths follow the C++ doubled index \
                 (flags 3 shares the value string)"
            ),
            3,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.map()
        .key("big")
        .string(&"b".repeat(70_000))
        .key("small")
        .int(1)
        .end_map();
    drafts.push(Draft::new(
        "large-value-4-byte-offsets",
        "a 70,000-byte string value: the map's offsets need 4 bytes",
        1,
        o.take(),
    ));
    for w in [2u8, 8] {
        let mut o = Ops::new();
        o.force(w)
            .map()
            .key("a")
            .int(1)
            .key("b")
            .string("x")
            .end_map();
        drafts.push(Draft::new(
            format!("forced-width-{w}"),
            format!("force_min_width {w} widens the keys vector and the values"),
            1,
            o.take(),
        ));
    }
    let mut o = Ops::new();
    o.map()
        .key("v")
        .vec()
        .map()
        .key("w")
        .vec()
        .end_vec()
        .end_map()
        .end_vec()
        .end_map();
    drafts.push(Draft::new(
        "map-vector-map-vector",
        "{v: [{w: []}]}",
        1,
        o.take(),
    ));
    Topic {
        stem: "maps",
        description: "Maps: sorting, Unicode keys, every value type, nesting, size and widths.",
        drafts,
    }
}
