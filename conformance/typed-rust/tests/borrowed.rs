//! The borrowed form of generated types (`{Name}Ref<'a>`): strings, map keys
//! and numeric vectors of the stored type point into the buffer, other
//! numeric vectors are copies, and `into_owned` gives exactly what the owned
//! decoder returns. (Agreement on hostile bytes is in `hostile.rs`.)

use std::borrow::Cow;

use flexbuf::{FlexBorrow, FlexCoder};
use flexbuf_typed_tests::cases::{default_dir, read_rel};
use flexbuf_typed_tests::definitions::GOLDENS;
use flexbuf_typed_tests::fixtures::time_series::{TimeSeries, TimeSeriesRef};
use flexbuf_typed_tests::fixtures::user_profile::{UserProfile, UserProfileRef};
use flexbuf_typed_tests::typed::defects::{Order, OrderRef};

/// Whether the elements of `s` lie inside `buf`.
fn inside<T>(buf: &[u8], s: &[T]) -> bool {
    let range = buf.as_ptr_range();
    let (start, end) = (s.as_ptr().cast::<u8>(), s.as_ptr_range().end.cast::<u8>());
    range.contains(&start) && end <= range.end
}

#[test]
fn strings_and_nested_strings_borrow_from_the_buffer() {
    let bytes = read_rel(
        &default_dir(),
        &format!("{GOLDENS}/user_profile.expect.bin"),
    )
    .unwrap();
    let r = UserProfileRef::from_flex_borrowed(&bytes).unwrap();
    assert!(inside(&bytes, r.uuid.as_bytes()));
    assert!(inside(&bytes, r.bio.as_bytes()));
    assert!(inside(&bytes, r.address.city.as_bytes()));
    assert!(r.tags.iter().all(|t| inside(&bytes, t.as_bytes())));
    assert_eq!(
        r.clone().into_owned(),
        UserProfile::from_flex(&bytes).unwrap()
    );
    assert_eq!(
        UserProfileRef::from_flex_borrowed_strict(&bytes).unwrap(),
        r
    );
}

#[test]
fn numeric_vectors_borrow_when_stored_as_the_field_type_and_copy_otherwise() {
    let bytes = read_rel(&default_dir(), &format!("{GOLDENS}/time_series.expect.bin")).unwrap();
    let r = TimeSeriesRef::from_flex_borrowed(&bytes).unwrap();
    // The typed encoder writes `values: [f64]` as a typed vector of 8-byte
    // floats (aligned by the builder), so the decode borrows it.
    assert!(matches!(r.values, Cow::Borrowed(_)), "values were copied");
    assert!(inside(&bytes, &r.values));
    assert_eq!(
        r.clone().into_owned(),
        TimeSeries::from_flex(&bytes).unwrap()
    );

    // The same data written narrower (JSON picks the smallest width for
    // `quality`'s small ints) cannot be borrowed as `[i64]`: it is widened.
    let json = r#"{"sensor": "s", "unit": "u", "start": 1, "interval_ms": 2,
        "timestamps": [1, 2], "values": [0.5], "quality": [0, 1, 2]}"#;
    let narrow = flexbuf::from_json(json).unwrap();
    let n = TimeSeriesRef::from_flex_borrowed(&narrow).unwrap();
    assert!(matches!(n.quality, Cow::Owned(_)));
    assert_eq!(&*n.quality, &[0, 1, 2]);
    assert_eq!(n.into_owned(), TimeSeries::from_flex(&narrow).unwrap());
}

#[test]
fn borrowed_errors_name_the_field_path_as_the_owned_ones_do() {
    let json = r#"{"id": 7, "items": [{"sku": "a", "qty": 1, "price": 1.0,
        "seller": {"id": 1, "name": 5}}]}"#;
    let bytes = flexbuf::from_json(json).unwrap();
    let owned = Order::from_flex(&bytes).unwrap_err();
    let borrowed = OrderRef::from_flex_borrowed(&bytes).unwrap_err();
    assert_eq!(borrowed.path().as_deref(), Some("$.items[0].seller.name"));
    assert_eq!(
        (borrowed.kind(), borrowed.path()),
        (owned.kind(), owned.path())
    );
}
