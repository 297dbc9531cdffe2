//! Generated views of vector fields: elements come back through the element
//! type's own view (`VectorView<'a, ItemView<'a>>`, `VectorView<'a, &'a str>`),
//! with checked reads and errors that name the index.

use flexbuf::typed::VectorView;
use flexbuf::ErrorKind;
use flexbuf_typed_tests::typed::defects::{ItemView, OrderView};

const ORDER: &str = r#"{"id": 7,
  "items": [
    {"sku": "a-1", "qty": 2, "price": 1.5, "seller": {"id": 1, "name": "Acme"}, "tags": ["x", "y"]},
    {"sku": "b-2", "qty": 1, "price": 9.0, "seller": {"id": 2, "name": "Bolt"}},
    {"qty": 3, "seller": {"id": 3, "name": "Crux"}}
  ],
  "notes": ["first", "second"]}"#;

#[test]
fn vector_fields_read_through_their_element_view() {
    let bytes = flexbuf::from_json(ORDER).unwrap();
    let order = OrderView::from_bytes(&bytes).unwrap();
    let items: VectorView<'_, ItemView<'_>> = order.items().unwrap();
    assert_eq!(items.len(), 3);
    assert!(!items.is_empty());
    let second = items.get(1).unwrap();
    assert_eq!(second.sku().unwrap(), "b-2");
    assert_eq!(second.qty().unwrap(), 1);
    assert_eq!(second.seller().unwrap().name().unwrap(), "Bolt");
    let first_tags: VectorView<'_, &str> = items.get(0).unwrap().tags().unwrap();
    let tags: Vec<&str> = first_tags.iter().map(Result::unwrap).collect();
    assert_eq!(tags, ["x", "y"]);
    let notes: Vec<&str> = order.notes().unwrap().iter().map(Result::unwrap).collect();
    assert_eq!(notes, ["first", "second"]);
    // The third item has no sku: the view reports it where it is read.
    let e = items.get(2).unwrap().sku().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::KeyNotFound);
    let e = items.get(3).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::IndexOutOfBounds { index: 3, len: 3 }),
        "{e}"
    );
    assert_eq!(e.path().as_deref(), Some("$[3]"));
}

#[test]
fn a_vector_view_refuses_a_map_and_elements_of_the_wrong_kind() {
    let bytes = flexbuf::from_json(r#"{"id": 1, "items": {"a": 1}, "notes": [1, "x"]}"#).unwrap();
    let order = OrderView::from_bytes(&bytes).unwrap();
    assert!(matches!(
        order.items().unwrap_err().kind(),
        ErrorKind::TypeMismatch {
            expected: "vector",
            ..
        }
    ));
    let notes = order.notes().unwrap();
    let e = notes.get(0).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TypeMismatch { .. }), "{e}");
    assert_eq!(e.path().as_deref(), Some("$[0]"));
    assert_eq!(notes.get(1).unwrap(), "x");
}
