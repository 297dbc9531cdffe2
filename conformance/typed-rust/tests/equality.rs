//! Defect: equal buffer-backed maps hashed differently. The same value
//! written by the typed encoder, by `from_json` and by serde gives three
//! different buffers whose roots compare and hash equal.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};

use flexbuf::{verify, FlexCoder, Reader};
use flexbuf_typed_tests::typed::defects;
use serde::Serialize;

fn hash_of(r: &Reader<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    r.hash(&mut h);
    h.finish()
}

/// Asserts that every buffer's root equals every other's and hashes alike.
fn assert_all_equal(buffers: &[&[u8]]) {
    let roots: Vec<Reader<'_>> = buffers.iter().map(|b| verify(b).unwrap().root()).collect();
    for (i, a) in roots.iter().enumerate() {
        for (j, b) in roots.iter().enumerate() {
            assert!(a == b, "buffer {i} != buffer {j}");
            assert_eq!(hash_of(a), hash_of(b), "hash {i} != hash {j}");
        }
    }
    let set: HashSet<Reader<'_>> = roots.into_iter().collect();
    assert_eq!(set.len(), 1);
}

#[derive(Serialize)]
struct SerdeProfile {
    id: u32,
    nickname: Option<String>,
    age: Option<i32>,
    note: Option<String>,
    score: Option<f64>,
    active: Option<bool>,
    tint: Option<u8>,
}

#[test]
fn profile_from_three_encoders_is_one_value() {
    let typed = defects::Profile {
        id: 7,
        nickname: None,
        age: Some(-3),
        note: Some("ünïcode".into()),
        score: Some(0.1),
        active: Some(false),
        tint: Some(defects::Color::Blue),
    }
    .to_flex()
    .unwrap();
    // Different key order in the text; the builder sorts keys.
    let json = flexbuf::from_json(
        r#"{"tint":4,"score":0.1,"note":"ünïcode","nickname":null,"id":7,"age":-3,"active":false}"#,
    )
    .unwrap();
    let serde = flexbuf::to_vec(&SerdeProfile {
        id: 7,
        nickname: None,
        age: Some(-3),
        note: Some("ünïcode".into()),
        score: Some(0.1),
        active: Some(false),
        tint: Some(4),
    })
    .unwrap();
    assert_ne!(typed, json);
    assert_ne!(typed, serde);
    assert_all_equal(&[&typed, &json, &serde]);
}

#[derive(Serialize)]
struct SerdeSeller {
    id: u64,
    name: String,
    rating: u8,
}

#[derive(Serialize)]
struct SerdeItem {
    sku: String,
    qty: u16,
    price: f64,
    seller: SerdeSeller,
    tags: Vec<String>,
}

#[derive(Serialize)]
struct SerdeOrder {
    id: i64,
    items: Vec<SerdeItem>,
    by_sku: BTreeMap<String, SerdeItem>,
    sellers: BTreeMap<String, SerdeSeller>,
    matrix: Vec<Vec<i32>>,
    notes: Vec<String>,
    #[serde(rename = "display label")]
    label: String,
}

fn typed_item(i: u16) -> defects::Item {
    defects::Item {
        sku: format!("sku-{i}"),
        qty: i,
        price: 1.25 * i as f64,
        seller: defects::Seller {
            id: 100 + i as u64,
            name: "Acme".into(),
            rating: 4,
        },
        tags: vec!["a".into(); i as usize],
    }
}

fn serde_item(i: u16) -> SerdeItem {
    SerdeItem {
        sku: format!("sku-{i}"),
        qty: i,
        price: 1.25 * i as f64,
        seller: SerdeSeller {
            id: 100 + i as u64,
            name: "Acme".into(),
            rating: 4,
        },
        tags: vec!["a".into(); i as usize],
    }
}

#[test]
fn nested_order_from_three_encoders_is_one_value() {
    let typed = defects::Order {
        id: -1,
        items: (0..5).map(typed_item).collect(),
        by_sku: [("x".to_string(), typed_item(9))].into_iter().collect(),
        sellers: BTreeMap::new(),
        // Scalar vectors: a typed vector from the typed encoder, untyped ones from the others.
        matrix: vec![vec![1, -2, 300_000], vec![]],
        notes: vec![],
        label: "L".into(),
    }
    .to_flex()
    .unwrap();
    let serde = flexbuf::to_vec(&SerdeOrder {
        id: -1,
        items: (0..5).map(serde_item).collect(),
        by_sku: [("x".to_string(), serde_item(9))].into_iter().collect(),
        sellers: BTreeMap::new(),
        matrix: vec![vec![1, -2, 300_000], vec![]],
        notes: vec![],
        label: "L".into(),
    })
    .unwrap();
    let json_text = flexbuf::to_json(&typed).unwrap();
    let json = flexbuf::from_json(&json_text).unwrap();
    assert_all_equal(&[&typed, &json, &serde]);

    // A message nested in one buffer equals the same message as another's root.
    let seller = defects::Seller {
        id: 102,
        name: "Acme".into(),
        rating: 4,
    }
    .to_flex()
    .unwrap();
    let nested = verify(&typed)
        .unwrap()
        .root()
        .get("items")
        .unwrap()
        .index(2)
        .unwrap()
        .get("seller")
        .unwrap();
    let root = verify(&seller).unwrap().root();
    assert!(nested == root);
    assert_eq!(hash_of(&nested), hash_of(&root));
}

#[test]
fn different_values_are_not_equal() {
    let a = defects::Address {
        street: "Main St".into(),
        zip: "1".into(),
    }
    .to_flex()
    .unwrap();
    let b = flexbuf::from_json(r#"{"street":"Main St","zip":"2"}"#).unwrap();
    let c = flexbuf::from_json(r#"{"street":"Main St","zip":"1","x":null}"#).unwrap();
    let (ra, rb, rc) = (
        verify(&a).unwrap().root(),
        verify(&b).unwrap().root(),
        verify(&c).unwrap().root(),
    );
    assert!(ra != rb);
    assert!(ra != rc);
    // An int and a float of the same magnitude are different values.
    let i = flexbuf::from_json(r#"{"v":3}"#).unwrap();
    let f = flexbuf::from_json(r#"{"v":3.0}"#).unwrap();
    assert!(verify(&i).unwrap().root() != verify(&f).unwrap().root());
}

#[test]
fn empty_maps_from_every_encoder_are_equal() {
    let typed = defects::Empty {}.to_flex().unwrap();
    let json = flexbuf::from_json("{}").unwrap();
    let serde = flexbuf::to_vec(&BTreeMap::<String, i32>::new()).unwrap();
    assert_all_equal(&[&typed, &json, &serde]);
}
