//! Regression tests for generator and runtime bugs found by the typed-value
//! conformance work (union payload paths, vectors given maps, lint-clean
//! generated code, Rust-hostile type names, decode depth on unverified bytes).

use flexbuf::{DecodeContext, ErrorKind, FlexCoder, Reader};
use flexbuf_typed_tests::fixtures::deep_nesting::DeepLevel;
use flexbuf_typed_tests::typed::defects::{Canvas, Order, Shape};

fn decode_err<T: FlexCoder + std::fmt::Debug>(json: &str) -> flexbuf::Error {
    T::from_flex(&flexbuf::from_json(json).unwrap()).unwrap_err()
}

/// Union decoders do not add the variant's wire name to the path of an error
/// inside the payload (the serde tier does): `$.shape.radius` instead of
/// `$.shape.Circle.radius`, and `$.shape` for a string variant holding an int.
#[test]
fn union_payload_errors_name_the_variant() {
    let e = decode_err::<Canvas>(r#"{"shape":{"Circle":{}}}"#);
    assert_eq!(e.path().as_deref(), Some("$.shape.Circle.radius"));
    let e = decode_err::<Canvas>(r#"{"shape":{"Label":5}}"#);
    assert_eq!(e.path().as_deref(), Some("$.shape.Label"));
    let e = decode_err::<Shape>(r#"{"square":{"side":-1}}"#);
    assert_eq!(e.path().as_deref(), Some("$.square.side"));
}

/// `flexbuf::typed::field::vec` and `scalar_vec` read the field with
/// `Reader::as_vector`, which also accepts a map (as its values vector), so
/// a `[string]` field given `{"a":"x","b":"y"}` decodes as `["x","y"]`.
#[test]
fn vector_fields_reject_a_map() {
    for json in [
        r#"{"id":1,"notes":{"a":"x","b":"y"}}"#,
        r#"{"id":1,"matrix":{"a":[1]}}"#,
        r#"{"id":1,"matrix":[{"a":1}]}"#,
    ] {
        let bytes = flexbuf::from_json(json).unwrap();
        match Order::from_flex(&bytes) {
            Err(e) => assert!(
                matches!(e.kind(), ErrorKind::TypeMismatch { .. }),
                "{json}: {e}"
            ),
            Ok(o) => panic!("{json} decoded as {o:?}"),
        }
    }
}

fn generate(name: &str, text: &str) -> Result<String, String> {
    let parsed = flexbuf_codegen::parse_str(name, text).map_err(|d| d.to_string())?;
    let rust = flexbuf_codegen::backend::find("rust").expect("the Rust backend");
    let files = flexbuf_codegen::generate(rust, &parsed).map_err(|d| d.to_string())?;
    Ok(files.into_iter().map(|f| f.contents).collect())
}

/// Two lint failures in generated code (worked around by the `allow` on
/// `flexbuf_typed_tests::typed`): a message without fields binds `fast`
/// without using it (`unused_variables`), and the view accessor of an
/// optional union field is `Ok(v).map(Some)` (clippy
/// `unnecessary_map_on_constructor`).
#[test]
fn generated_code_is_lint_clean() {
    let code = generate(
        "lint.fxs",
        "namespace lint;\nmessage Empty {}\nunion U { A: string }\nmessage M { u: U?; }\n",
    )
    .unwrap();
    for body in code.split("fn decode_from").skip(1) {
        let body = body.split("\n    fn ").next().unwrap_or(body);
        if body.contains("let fast =") {
            assert!(
                body.contains("fast,"),
                "`fast` is bound but unused:\n{body}"
            );
        }
    }
    assert!(
        !code.contains("Ok(v).map(Some)"),
        "Ok(v).map(Some) in generated code"
    );
}

/// A type named after a Rust keyword (`type`, `match`, `Self`) or a prelude
/// type the generated code uses (`String`, `Vec`, `Option`, `Box`) must
/// still compile: keywords become raw identifiers, and a prelude name that a
/// generated type shadows is written by its full path (the keywords schema,
/// compiled by this crate, covers every case).
#[test]
fn keyword_and_prelude_type_names_are_rejected_or_escaped() {
    let keyword = generate("kw.fxs", "namespace kw;\nmessage type { a: i32; }\n");
    if let Ok(code) = keyword {
        assert!(
            !code.contains("pub struct type "),
            "unescaped keyword type name"
        );
    }
    let prelude = generate(
        "prelude.fxs",
        "namespace prelude;\nmessage String { s: string; o: i32?; v: [i32]; }\n",
    );
    if let Ok(code) = prelude {
        assert!(
            !code.contains("pub s: String,") && code.contains("pub s: ::std::string::String,"),
            "a message named String shadows the std type the generated fields use"
        );
    }
}

/// Checked reads of unverified bytes must never crash (DESIGN principle 2),
/// but `DecodeContext` has no depth limit: a recursive type whose map
/// reaches itself through an offset cycle (offset 0) recurses until the
/// stack overflows, which aborts the process. The budget (64 Ki nodes for
/// small inputs) is far deeper than the stack. `from_flex` is safe (the
/// verifier rejects cycles).
#[test]
fn unverified_decode_of_an_offset_cycle_does_not_crash() {
    // The decode runs in a child process, since a stack overflow aborts.
    if std::env::var_os("FLEXBUF_TYPED_CYCLE_CHILD").is_some() {
        let bytes = cyclic_deep_level();
        assert!(flexbuf::verify(&bytes).is_err());
        let root = Reader::new(&bytes).unwrap();
        let result = DeepLevel::decode_from(root, &mut DecodeContext::new(bytes.len()));
        assert!(result.is_err());
        return;
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "unverified_decode_of_an_offset_cycle_does_not_crash",
            "--ignored",
            "--quiet",
        ])
        .env("FLEXBUF_TYPED_CYCLE_CHILD", "1")
        .output()
        .unwrap()
        .status;
    assert!(status.success(), "the decoding process died: {status}");
}

/// A `DeepLevel` whose `child` (value 0 of its map) is an offset of 0, so
/// the map's first value is the map itself.
fn cyclic_deep_level() -> Vec<u8> {
    let v = DeepLevel {
        depth: 1,
        weight: 1.0,
        label: "a".into(),
        even: true,
        child: Some(Box::new(DeepLevel::default())),
    };
    let mut bytes = v.to_flex().unwrap();
    let root = Reader::new(&bytes).unwrap();
    let map = root.as_map().unwrap();
    assert_eq!(map.key(0).unwrap(), "child");
    let at = root.data_offset().unwrap();
    let width = map.values().element_width();
    bytes[at..at + width].fill(0);
    bytes
}

/// The fixture for the test above is what it claims: verification rejects
/// it as a cycle (this part runs in the normal suite), so the strict entry
/// point reports the cycle; the one-pass decode follows it until the depth
/// limit stops it.
#[test]
fn the_cyclic_fixture_is_rejected_by_the_verifier() {
    let bytes = cyclic_deep_level();
    let e = flexbuf::verify(&bytes).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Cycle);
    assert_eq!(
        DeepLevel::from_flex_strict(&bytes).unwrap_err().kind(),
        &ErrorKind::Cycle
    );
    assert_eq!(
        DeepLevel::from_flex(&bytes).unwrap_err().kind(),
        &ErrorKind::DepthLimit(flexbuf::typed::MAX_DECODE_DEPTH)
    );
}

/// One stored string referred to from every element of a vector: the
/// verifier accepts the sharing, and copying the string out for each element
/// would need 64 KiB × 20,000 = 1.3 GB from a 150 KB buffer. String bytes are
/// charged to the expansion budget, so both entry points stop cleanly.
#[test]
fn a_string_shared_by_every_element_hits_the_budget() {
    use flexbuf_typed_tests::fixtures::string_flood::StringFlood;
    let big = "x".repeat(64 * 1024);
    let mut b = flexbuf::Builder::new();
    b.start_map();
    b.key("strings");
    b.start_vector();
    b.string(&big);
    let h = b.last_value().unwrap();
    for _ in 1..20_000 {
        b.reuse_value(h);
    }
    b.end_vector().unwrap();
    b.end_map().unwrap();
    let bytes = b.finish_vec().unwrap();
    assert!(bytes.len() < 200_000, "{} bytes", bytes.len());
    flexbuf::verify(&bytes).expect("sharing is valid");
    let t = std::time::Instant::now();
    for e in [
        StringFlood::from_flex(&bytes).unwrap_err(),
        StringFlood::from_flex_strict(&bytes).unwrap_err(),
    ] {
        assert_eq!(e.kind(), &ErrorKind::BudgetExceeded, "{e}");
        assert!(
            e.path()
                .as_deref()
                .is_some_and(|p| p.starts_with("$.strings[")),
            "{e}"
        );
    }
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        t.elapsed()
    );
}

/// The keys vector of `bytes`' root map, with key slots `a` and `b` pointing
/// at each other's key (so the keys are out of order, each value still at
/// its own index).
fn swap_keys(bytes: &[u8], a: usize, b: usize) -> Vec<u8> {
    let m = Reader::new(bytes).unwrap().as_map().unwrap();
    let (at, w) = (m.keys_offset(), m.keys_width());
    let target = |i: usize| {
        let slot = at + i * w;
        let mut word = [0u8; 8];
        word[..w].copy_from_slice(&bytes[slot..slot + w]);
        slot - u64::from_le_bytes(word) as usize
    };
    let (ka, kb) = (target(a), target(b));
    let mut out = bytes.to_vec();
    for (i, key) in [(a, kb), (b, ka)] {
        let slot = at + i * w;
        out[slot..slot + w].copy_from_slice(&((slot - key) as u64).to_le_bytes()[..w]);
    }
    out
}

/// A one-pass decode looked the fields of a map whose layout it had not
/// proven up by binary search over keys it never checked: with keys out of
/// order the search missed keys that were there, and those fields silently
/// took their defaults (found by the typed agreement of `cargo xtask
/// conformance`, where the TypeScript coders, which check such keys, refused
/// the buffer). Now the keys of a map not proven are checked once, as the
/// verifier checks them, and a keys vector whose length differs from the
/// values' is refused.
#[test]
fn keys_out_of_order_are_refused_not_read_as_absent() {
    use flexbuf_typed_tests::typed::defects::Profile;
    let bytes = flexbuf::from_json(r#"{"age": 30, "id": 7, "note": "x"}"#).unwrap();
    let p = Profile::from_flex(&bytes).unwrap();
    assert_eq!((p.id, p.age, p.note.as_deref()), (7, Some(30), Some("x")));
    // Keys "note", "id", "age": a search for "age" or "note" finds nothing.
    let unsorted = swap_keys(&bytes, 0, 2);
    assert!(matches!(
        flexbuf::verify(&unsorted).unwrap_err().kind(),
        ErrorKind::UnsortedKeys
    ));
    let e = Profile::from_flex(&unsorted).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnsortedKeys), "{e}");
    assert_eq!(e.path(), None, "the root map's own keys");
    let borrowed = <flexbuf_typed_tests::typed::defects::ProfileRef<'_> as flexbuf::FlexBorrow>::from_flex_borrowed(&unsorted);
    assert!(matches!(
        borrowed.unwrap_err().kind(),
        ErrorKind::UnsortedKeys
    ));
}

#[test]
fn a_keys_vector_longer_than_the_values_is_refused() {
    use flexbuf_typed_tests::typed::defects::Profile;
    let bytes = flexbuf::from_json(r#"{"age": 30, "id": 7, "note": "x"}"#).unwrap();
    let m = Reader::new(&bytes).unwrap().as_map().unwrap();
    // The values vector's length field sits just before its first element.
    let (data, w) = (m.values().data_offset(), m.values().element_width());
    let mut short = bytes.clone();
    short[data - w] = 2;
    let e = Profile::from_flex(&short).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::KeyValueLengthMismatch { keys: 3, values: 2 }
        ),
        "{e}"
    );
}
