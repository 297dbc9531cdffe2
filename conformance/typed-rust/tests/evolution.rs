//! Fingerprints across schema versions: a wire-compatible change keeps the
//! fingerprint, an incompatible one changes it.

use flexbuf::FlexCoder;
use flexbuf_typed_tests::typed::{evolution_v1 as evo1, evolution_v2 as evo2};

#[test]
fn reordered_fields_keep_the_fingerprint_and_the_keys() {
    assert_eq!(evo1::Reorder::FINGERPRINT, evo2::Reorder::FINGERPRINT);
    assert_eq!(evo1::Reorder::WIRE_KEYS, evo2::Reorder::WIRE_KEYS);
}

#[test]
fn a_rename_that_keeps_the_wire_name_keeps_the_fingerprint() {
    assert_eq!(evo1::Rename::FINGERPRINT, evo2::Rename::FINGERPRINT);
    assert_eq!(evo2::Rename::WIRE_KEYS, ["title", "year"]);
}

#[test]
fn wire_changes_change_the_fingerprint() {
    assert_ne!(
        evo1::AddOptional::FINGERPRINT,
        evo2::AddOptional::FINGERPRINT
    );
    assert_ne!(
        evo1::AddRequired::FINGERPRINT,
        evo2::AddRequired::FINGERPRINT
    );
    assert_ne!(
        evo1::RemoveField::FINGERPRINT,
        evo2::RemoveField::FINGERPRINT
    );
    assert_ne!(evo1::Widen::FINGERPRINT, evo2::Widen::FINGERPRINT);
    assert_ne!(evo1::Retype::FINGERPRINT, evo2::Retype::FINGERPRINT);
    // A new enum variant and a new union variant are part of the contract too.
    assert_ne!(evo1::Team::FINGERPRINT, evo2::Team::FINGERPRINT);
    assert_ne!(evo1::Owner::FINGERPRINT, evo2::Owner::FINGERPRINT);
}

#[test]
fn reordered_encoders_write_identical_bytes() {
    let v1 = evo1::Reorder {
        a: 1,
        b: "x".into(),
        c: true,
    };
    let v2 = evo2::Reorder {
        c: true,
        a: 1,
        b: "x".into(),
    };
    assert_eq!(v1.to_flex().unwrap(), v2.to_flex().unwrap());
}
