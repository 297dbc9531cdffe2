//! The typed agreement's generator and file (`src/damaged.rs`).

use flexbuf_typed_tests::cases::default_dir;
use flexbuf_typed_tests::damaged::{check, generate, outcome_text, read_file, write_file};

#[test]
fn the_damaged_inputs_are_reproducible_and_survive_the_file() {
    let dir = default_dir();
    let a = generate(&dir, 7, 400).unwrap();
    let b = generate(&dir, 7, 400).unwrap();
    assert_eq!(a.len(), 400);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            (&x.name, &x.bytes, &x.expect),
            (&y.name, &y.bytes, &y.expect)
        );
    }
    let other = generate(&dir, 8, 400).unwrap();
    assert!(a.iter().zip(&other).any(|(x, y)| x.bytes != y.bytes));

    let path = std::env::temp_dir().join(format!("typed_damaged_{}.json", std::process::id()));
    write_file(&path, &a).unwrap();
    let back = read_file(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back.len(), a.len());
    for (x, y) in a.iter().zip(&back) {
        assert_eq!(
            (&x.name, &x.schema, &x.ty, &x.bytes, &x.verify, &x.expect),
            (&y.name, &y.schema, &y.ty, &y.bytes, &y.verify, &y.expect)
        );
        check(y).unwrap_or_else(|e| panic!("{}: {e}", y.name));
    }
    // Both kinds of outcome occur, on accepted and on rejected buffers.
    assert!(a
        .iter()
        .any(|i| i.verify == "ok" && i.expect.starts_with("bytes ")));
    assert!(a
        .iter()
        .any(|i| i.verify == "ok" && !i.expect.starts_with("bytes ")));
    assert!(a
        .iter()
        .any(|i| i.verify != "ok" && !i.expect.starts_with("bytes ")));
}

#[test]
fn a_stale_expectation_fails_the_check() {
    let mut items = generate(&default_dir(), 7, 400).unwrap();
    let item = items
        .iter_mut()
        .find(|i| i.expect.starts_with("bytes "))
        .unwrap();
    item.expect.push_str("00");
    assert!(check(item).is_err());
}

#[test]
fn outcomes_name_the_class_of_schema_errors_and_the_kind_of_others() {
    assert_eq!(outcome_text(&Ok(vec![1, 0xab])), "bytes 01ab");
    let missing = flexbuf::Error::new(flexbuf::ErrorKind::MissingField)
        .in_segment(flexbuf::PathSegment::Key("id"));
    assert_eq!(outcome_text(&Err(missing)), "missing at $.id");
    let cut = flexbuf::Error::at(flexbuf::ErrorKind::OffsetOutOfBounds, 3);
    assert_eq!(outcome_text(&Err(cut)), "OffsetOutOfBounds at $");
}
