//! The positional fast path: taken for buffers the typed encoder writes, never
//! for a layout it has not proven, and never returning a value of the wrong
//! type when the keys match but a value does not.

use std::collections::BTreeSet;

use flexbuf::typed::typed_builder_options;
use flexbuf::{verify, Builder, DecodeContext, ErrorKind, FlexCoder, MapReader, Reader};
use flexbuf_typed_tests::typed::defects::{Address, Item, Order, Seller};

fn order(items: u16) -> Order {
    Order {
        id: 1,
        items: (0..items)
            .map(|i| Item {
                sku: format!("sku-{i}"),
                qty: i,
                price: 0.5,
                seller: Seller {
                    id: i as u64,
                    name: "Acme".into(),
                    rating: 3,
                },
                tags: vec![],
            })
            .collect(),
        ..Default::default()
    }
}

/// The item maps and their seller maps of an encoded order.
fn maps<'a>(root: Reader<'a>) -> Vec<(MapReader<'a>, MapReader<'a>)> {
    let items = root.get("items").unwrap().as_vector().unwrap();
    (0..items.len())
        .map(|i| {
            let item = items.get(i).unwrap();
            (
                item.as_map().unwrap(),
                item.get("seller").unwrap().as_map().unwrap(),
            )
        })
        .collect()
}

#[test]
fn typed_buffers_share_one_keys_vector_per_type_and_decode_by_position() {
    let bytes = order(200).to_flex().unwrap();
    let root = verify(&bytes).unwrap().root();
    let maps = maps(root);
    let item_keys: BTreeSet<usize> = maps.iter().map(|(i, _)| i.keys_offset()).collect();
    let seller_keys: BTreeSet<usize> = maps.iter().map(|(_, s)| s.keys_offset()).collect();
    assert_eq!((item_keys.len(), seller_keys.len()), (1, 1));

    let mut cx = DecodeContext::new(bytes.len());
    let decoded = Order::decode_from(root, &mut cx).unwrap();
    assert_eq!(decoded, order(200));
    // The context caches each proof by (type, keys vector). Asking about the
    // same keys vector with a key list that could never match still answers
    // `true`: the decode above proved this layout and read these maps by position.
    for (item, seller) in &maps {
        assert!(cx
            .layout_matches(Item::FINGERPRINT, item, &["never"])
            .unwrap());
        assert!(cx
            .layout_matches(Seller::FINGERPRINT, seller, &["never"])
            .unwrap());
    }
    // A fresh context checks the keys themselves.
    let mut fresh = DecodeContext::new(bytes.len());
    assert!(fresh
        .layout_matches(Item::FINGERPRINT, &maps[0].0, Item::WIRE_KEYS)
        .unwrap());
    assert!(!fresh
        .layout_matches(Seller::FINGERPRINT, &maps[0].1, &["never"])
        .unwrap());
}

#[test]
fn json_buffers_with_the_expected_keys_are_proven_too() {
    let typed = order(3).to_flex().unwrap();
    let json = flexbuf::from_json(&flexbuf::to_json(&typed).unwrap()).unwrap();
    let root = verify(&json).unwrap().root();
    let maps = maps(root);
    // from_json writes one keys vector per map, each proven on its own.
    let offsets: BTreeSet<usize> = maps.iter().map(|(i, _)| i.keys_offset()).collect();
    assert_eq!(offsets.len(), 3);
    let mut cx = DecodeContext::new(json.len());
    assert_eq!(Order::decode_from(root, &mut cx).unwrap(), order(3));
    for (item, _) in &maps {
        assert!(cx
            .layout_matches(Item::FINGERPRINT, item, &["never"])
            .unwrap());
    }
}

#[test]
fn other_layouts_are_not_proven_and_decode_by_key() {
    // Same count, other names: `city` sits where `street` is expected.
    let bytes = flexbuf::from_json(r#"{"city":"Springfield","zip":"12345"}"#).unwrap();
    let root = verify(&bytes).unwrap().root();
    let mut cx = DecodeContext::new(bytes.len());
    let err = Address::decode_from(root, &mut cx).unwrap_err();
    assert_eq!(err.path().as_deref(), Some("$.street"));
    assert!(!cx
        .layout_matches(
            Address::FINGERPRINT,
            &root.as_map().unwrap(),
            Address::WIRE_KEYS
        )
        .unwrap());

    // Extra keys: not proven, yet every field is found by key.
    let bytes = flexbuf::from_json(r#"{"a":0,"street":"S","y":1,"zip":"Z"}"#).unwrap();
    let root = verify(&bytes).unwrap().root();
    let mut cx = DecodeContext::new(bytes.len());
    let address = Address::decode_from(root, &mut cx).unwrap();
    assert_eq!((address.street.as_str(), address.zip.as_str()), ("S", "Z"));
    assert!(!cx
        .layout_matches(Address::FINGERPRINT, &root.as_map().unwrap(), &["never"])
        .unwrap());
}

/// Items written with the shared typed keys vectors; `mutate` pushes the
/// values of item `i` (in wire order: price, qty, seller, sku, tags).
fn built_items(
    n: usize,
    mut mutate: impl FnMut(usize, &mut Builder, &flexbuf::KeyVector),
) -> Vec<u8> {
    let mut b = Builder::with_options(typed_builder_options());
    let order_keys = b.key_vector(Order::WIRE_KEYS).unwrap();
    let seller_keys = b.key_vector(Seller::WIRE_KEYS).unwrap();
    let item_keys = b.key_vector(Item::WIRE_KEYS).unwrap();
    b.start_map();
    b.start_map();
    b.end_map().unwrap(); // by_sku
    b.string(""); // display label
    b.int(1); // id
    b.start_vector();
    for i in 0..n {
        b.start_map();
        mutate(i, &mut b, &seller_keys);
        b.end_map_with_keys(&item_keys).unwrap();
    }
    b.end_vector().unwrap();
    for _ in 0..2 {
        b.start_vector();
        b.end_vector().unwrap(); // matrix, notes
    }
    b.start_map();
    b.end_map().unwrap(); // sellers
    b.end_map_with_keys(&order_keys).unwrap();
    b.finish_vec().unwrap()
}

/// Pushes the well-typed value of item field `pos` (wire order).
fn item_value(b: &mut Builder, seller_keys: &flexbuf::KeyVector, pos: usize) {
    match pos {
        0 => b.double(1.5),
        1 => b.uint(2),
        2 => {
            b.start_map();
            b.uint(1);
            b.string("n");
            b.uint(0);
            b.end_map_with_keys(seller_keys).unwrap();
        }
        3 => b.string("s"),
        _ => {
            b.start_vector();
            b.end_vector().unwrap();
        }
    }
}

#[test]
fn matching_keys_with_an_incompatible_value_fail_with_the_path() {
    // (position of the bad value, what to write there, expected path)
    type Writer = fn(&mut Builder);
    let bad: &[(usize, Writer, &str)] = &[
        (0, |b| b.string("1.5"), "$.items[3].price"),
        (1, |b| b.double(2.0), "$.items[3].qty"),
        (1, |b| b.bool(true), "$.items[3].qty"),
        (2, |b| b.string("seller"), "$.items[3].seller"),
        (3, |b| b.int(5), "$.items[3].sku"),
        (3, |b| b.blob(b"s"), "$.items[3].sku"),
        (4, |b| b.string("tags"), "$.items[3].tags"),
        (4, |b| b.typed_vector(&[1i64, 2]), "$.items[3].tags[0]"),
    ];
    for (n, &(at, write, path)) in bad.iter().enumerate() {
        let bytes = built_items(5, |i, b, sk| {
            for pos in 0..5 {
                if i == 3 && pos == at {
                    write(b);
                } else {
                    item_value(b, sk, pos);
                }
            }
        });
        let root = verify(&bytes).unwrap().root();
        let items = maps_of_items(root);
        assert_eq!(
            items
                .iter()
                .map(|m| m.keys_offset())
                .collect::<BTreeSet<_>>()
                .len(),
            1,
            "case {n}: every item shares the keys vector"
        );
        let err = Order::from_flex(&bytes).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
            "case {n}: {err}"
        );
        assert_eq!(err.path().as_deref(), Some(path), "case {n}");
    }
    // The same layout with good values decodes.
    let ok = built_items(5, |_, b, sk| (0..5).for_each(|pos| item_value(b, sk, pos)));
    assert_eq!(Order::from_flex(&ok).unwrap().items.len(), 5);
}

fn maps_of_items(root: Reader<'_>) -> Vec<MapReader<'_>> {
    let v = root.get("items").unwrap().as_vector().unwrap();
    (0..v.len())
        .map(|i| v.get(i).unwrap().as_map().unwrap())
        .collect()
}
