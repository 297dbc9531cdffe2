//! The serde coverage tier: round trips, borrowing, null semantics, error paths,
//! interop with hand-built buffers, the expansion budget and hostile input.
#![cfg(feature = "serde")]

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use flexbuf::{
    from_slice, from_slice_with, to_vec, to_vec_with, BitWidth, Budget, Builder, BuilderError,
    BuilderOptions, Deserializer, ErrorKind, FlexType, Reader, ShareFlags, VerifyOptions,
};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy, Eq, Hash, PartialOrd, Ord)]
enum Status {
    Open,
    Shipped,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Event {
    Created,
    Note(String),
    Moved(i32, i32),
    Paid { amount: f64, currency: String },
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Meters(f32);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Marker;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Item {
    sku: String,
    qty: u32,
    price: f64,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Customer {
    name: String,
    email: Option<String>,
    initial: char,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Order {
    id: u64,
    delta: i64,
    customer: Customer,
    items: Vec<Item>,
    attrs: HashMap<String, i32>,
    by_line: BTreeMap<u32, String>,
    by_status: BTreeMap<Status, u8>,
    status: Status,
    events: Vec<Event>,
    pair: (i8, String, bool),
    matrix: Vec<Vec<u16>>,
    blob: ByteBuf,
    note: Option<String>,
    distance: Meters,
    marker: Marker,
    unit: (),
    wide: i128,
    big: u64,
    ratio: f32,
}

fn sample_order() -> Order {
    Order {
        id: 9_000_000_001,
        delta: -42,
        customer: Customer {
            name: "Zoë Ω 名前 🚀".into(),
            email: None,
            initial: 'Z',
        },
        items: vec![
            Item {
                sku: "a-1".into(),
                qty: 1,
                price: 9.99,
            },
            Item {
                sku: "b-2".into(),
                qty: 70_000,
                price: 0.5,
            },
            Item {
                sku: "ü-3".into(),
                qty: 3,
                price: -1e300,
            },
        ],
        attrs: HashMap::from([("gift".into(), 1), ("priority".into(), -7)]),
        by_line: BTreeMap::from([(2, "two".into()), (10, "ten".into()), (1, "one".into())]),
        by_status: BTreeMap::from([(Status::Open, 3), (Status::Shipped, 4)]),
        status: Status::Shipped,
        events: vec![
            Event::Created,
            Event::Note("leave at door".into()),
            Event::Moved(-3, 4),
            Event::Paid {
                amount: 12.25,
                currency: "EUR".into(),
            },
        ],
        pair: (-128, "p".into(), true),
        matrix: vec![vec![], vec![1, 65535]],
        blob: ByteBuf::from(vec![0u8, 255, 0, 7]),
        note: Some(String::new()),
        distance: Meters(1.5),
        marker: Marker,
        unit: (),
        wide: -5,
        big: u64::MAX,
        ratio: 0.1,
    }
}

#[test]
fn nested_structures_round_trip() {
    let order = sample_order();
    let bytes = to_vec(&order).unwrap();
    flexbuf::verify(&bytes).unwrap();
    let back: Order = from_slice(&bytes).unwrap();
    assert_eq!(back, order);
    // Other sharing options change the bytes, never the value.
    let opts = BuilderOptions {
        share: ShareFlags::ALL,
        dedup_key_vectors: true,
        ..Default::default()
    };
    let other = to_vec_with(&order, opts).unwrap();
    assert_eq!(from_slice::<Order>(&other).unwrap(), order);
    let unshared = to_vec_with(
        &order,
        BuilderOptions {
            share: ShareFlags::NONE,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(unshared.len() > bytes.len());
    assert_eq!(from_slice::<Order>(&unshared).unwrap(), order);
}

#[test]
fn values_of_one_struct_type_share_one_keys_vector() {
    let items: Vec<Item> = (0..50)
        .map(|i| Item {
            sku: format!("s{i}"),
            qty: i,
            price: f64::from(i) / 4.0,
        })
        .collect();
    let bytes = to_vec(&items).unwrap();
    let root = flexbuf::verify(&bytes).unwrap().root();
    let list = root.as_vector().unwrap();
    // Every map's keys vector: one position for all fifty.
    let keys_at: std::collections::BTreeSet<usize> = list
        .iter()
        .map(|e| e.unwrap().as_map().unwrap().keys_offset())
        .collect();
    assert_eq!(keys_at.len(), 1);
    assert_eq!(from_slice::<Vec<Item>>(&bytes).unwrap(), items);
    // The same values written without sharing are larger by a keys vector
    // per map, and read back the same.
    let mut b = Builder::new();
    b.start_vector();
    for item in &items {
        b.start_map();
        b.key("price");
        b.double(item.price);
        b.key("qty");
        b.uint(u64::from(item.qty));
        b.key("sku");
        b.string(&item.sku);
        b.end_map().unwrap();
    }
    b.end_vector().unwrap();
    let plain = b.finish().unwrap().to_vec();
    assert!(
        plain.len() >= bytes.len() + 49 * 4,
        "{} {}",
        plain.len(),
        bytes.len()
    );
    assert_eq!(from_slice::<Vec<Item>>(&plain).unwrap(), items);
    assert_eq!(
        flexbuf::to_json(&plain).unwrap(),
        flexbuf::to_json(&bytes).unwrap()
    );
    // A struct whose fields change between values (one skipped) still
    // reads back field for field: the keys vector is shared only when the
    // keys are the same.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Sparse {
        a: u8,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        b: Option<u8>,
        c: u8,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        d: Option<u8>,
    }
    // Entry counts change (b only every third value) and, at one count,
    // the keys do (b or d).
    let sparse: Vec<Sparse> = (0..30)
        .map(|i| Sparse {
            a: i,
            b: (i % 3 == 0).then_some(i + 100),
            c: 200 - i,
            d: (i % 3 == 1).then_some(i + 50),
        })
        .collect();
    let bytes = to_vec(&sparse).unwrap();
    assert_eq!(from_slice::<Vec<Sparse>>(&bytes).unwrap(), sparse);
    let root = flexbuf::verify(&bytes).unwrap().root();
    for (i, e) in root.as_vector().unwrap().iter().enumerate() {
        let m = e.unwrap().as_map().unwrap();
        assert_eq!(m.len(), if i % 3 == 2 { 2 } else { 3 }, "{i}");
        assert_eq!(m.get("c").unwrap().as_u64().unwrap(), 200 - i as u64);
        assert_eq!(m.get("b").is_ok(), i % 3 == 0, "{i}");
        assert_eq!(m.get("d").is_ok(), i % 3 == 1, "{i}");
    }
}

#[test]
fn wire_shape_follows_the_documented_mapping() {
    let bytes = to_vec(&sample_order()).unwrap();
    let root = flexbuf::verify(&bytes).unwrap().root();
    let m = root.as_map().unwrap();
    let keys: Vec<&str> = m.iter().map(|e| e.unwrap().0).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "struct fields are written as sorted map keys");
    assert_eq!(m.len(), 19);
    let ty = |k: &str| m.get(k).unwrap().flex_type();
    assert_eq!(ty("id"), FlexType::UInt);
    assert_eq!(ty("delta"), FlexType::Int);
    assert_eq!(ty("blob"), FlexType::Blob);
    assert_eq!(ty("marker"), FlexType::Null);
    assert_eq!(ty("unit"), FlexType::Null);
    assert_eq!(ty("status"), FlexType::String);
    assert_eq!(ty("pair"), FlexType::Vector);
    assert_eq!(ty("ratio"), FlexType::Float);
    assert_eq!(m.get("ratio").unwrap().as_f64().unwrap(), 0.1f32 as f64);
    assert_eq!(m.get("distance").unwrap().as_f64().unwrap(), 1.5);
    assert_eq!(m.get("wide").unwrap().as_i64().unwrap(), -5);
    assert_eq!(
        m.get("customer").unwrap().get("email").unwrap().flex_type(),
        FlexType::Null
    );
    assert_eq!(
        m.get("customer")
            .unwrap()
            .get("initial")
            .unwrap()
            .as_str()
            .unwrap(),
        "Z"
    );
    let by_line = m.get("by_line").unwrap().as_map().unwrap();
    let line_keys: Vec<&str> = by_line.iter().map(|e| e.unwrap().0).collect();
    assert_eq!(
        line_keys,
        ["1", "10", "2"],
        "integer keys are decimal text, byte-sorted"
    );
    assert_eq!(
        m.get("by_status")
            .unwrap()
            .get("Shipped")
            .unwrap()
            .as_u64()
            .unwrap(),
        4
    );
    let events = m.get("events").unwrap().as_vector().unwrap();
    assert_eq!(events.get(0).unwrap().as_str().unwrap(), "Created");
    assert_eq!(
        events
            .get(1)
            .unwrap()
            .get("Note")
            .unwrap()
            .as_str()
            .unwrap(),
        "leave at door"
    );
    let moved = events.get(2).unwrap().get("Moved").unwrap();
    // Two ints of a tuple variant: a fixed vector.
    assert_eq!(moved.flex_type(), FlexType::VectorInt2);
    assert_eq!(moved.index(0).unwrap().as_i64().unwrap(), -3);
    let paid = events.get(3).unwrap().get("Paid").unwrap();
    assert_eq!(paid.get("amount").unwrap().as_f64().unwrap(), 12.25);
    assert_eq!(paid.get("currency").unwrap().as_str().unwrap(), "EUR");
    assert_eq!(
        flexbuf::to_json(&to_vec(&Event::Moved(1, 2)).unwrap()).unwrap(),
        r#"{"Moved":[1,2]}"#
    );
}

#[test]
fn serde_struct_reads_back_with_the_plain_reader() {
    #[derive(Serialize)]
    struct Person<'a> {
        zip: u32,
        name: &'a str,
        age: i8,
        tags: [&'a str; 2],
        address: Address,
    }
    #[derive(Serialize)]
    struct Address {
        street: &'static str,
        city: &'static str,
    }
    let p = Person {
        zip: 12345,
        name: "Ada",
        age: -1,
        tags: ["x", "y"],
        address: Address {
            street: "Main",
            city: "Town",
        },
    };
    let bytes = to_vec(&p).unwrap();
    let root = Reader::new(&bytes).unwrap();
    let m = root.as_map().unwrap();
    let keys: Vec<&str> = m.iter().map(|e| e.unwrap().0).collect();
    assert_eq!(keys, ["address", "age", "name", "tags", "zip"]);
    assert_eq!(m.get("zip").unwrap().as_u64().unwrap(), 12345);
    assert_eq!(m.get("age").unwrap().as_i64().unwrap(), -1);
    assert_eq!(m.get("name").unwrap().as_str().unwrap(), "Ada");
    assert_eq!(
        m.get("tags").unwrap().index(1).unwrap().as_str().unwrap(),
        "y"
    );
    let addr = m.get("address").unwrap().as_map().unwrap();
    let addr_keys: Vec<&str> = addr.iter().map(|e| e.unwrap().0).collect();
    assert_eq!(addr_keys, ["city", "street"]);
    assert_eq!(addr.get("street").unwrap().as_str().unwrap(), "Main");
}

#[test]
fn bytes_equal_the_same_builder_call_sequence() {
    #[derive(Serialize)]
    struct Simple<'a> {
        name: &'a str,
        count: u32,
        ok: bool,
        ratio: f64,
        tags: Vec<&'a str>,
        neg: i16,
        none: Option<u8>,
    }
    let value = Simple {
        name: "widget",
        count: 300,
        ok: true,
        ratio: 0.25,
        tags: vec!["a", "name"],
        neg: -2,
        none: None,
    };
    let mut b = Builder::new();
    b.start_map();
    b.key("name");
    b.string("widget");
    b.key("count");
    b.uint(300);
    b.key("ok");
    b.bool(true);
    b.key("ratio");
    b.double(0.25);
    b.key("tags");
    b.start_vector();
    b.string("a");
    b.string("name");
    b.end_vector().unwrap();
    b.key("neg");
    b.int(-2);
    b.key("none");
    b.null();
    b.end_map().unwrap();
    let manual = b.finish_vec().unwrap();
    assert_eq!(to_vec(&value).unwrap(), manual);

    // Enum variants are single-entry maps made the same way.
    let mut b = Builder::new();
    b.start_map();
    b.key("Paid");
    b.start_map();
    b.key("amount");
    b.double(1.5);
    b.key("currency");
    b.string("USD");
    b.end_map().unwrap();
    b.end_map().unwrap();
    let manual = b.finish_vec().unwrap();
    let paid = Event::Paid {
        amount: 1.5,
        currency: "USD".into(),
    };
    assert_eq!(to_vec(&paid).unwrap(), manual);
}

#[test]
fn hand_built_buffer_deserializes_into_serde_types() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Reading<'a> {
        sensor: &'a str,
        samples: Vec<i64>,
        small: Vec<u16>,
        floats: Vec<f64>,
        flags: Vec<bool>,
        point: (i32, i32, i32),
        rgba: [f32; 4],
        labels: Vec<String>,
        level: u8,
        offset: i32,
        scale: f32,
        count: u64,
        payload: ByteBuf,
        nested: Inner,
        mode: Status,
        event: Event,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Inner {
        b: i64,
        a: String,
    }

    let mut b = Builder::new();
    b.start_map();
    // Keys in no particular order, plus fields the struct does not know.
    b.key("unknown_nested");
    b.start_map();
    b.key("deep");
    b.start_vector();
    b.int(1);
    b.string("s");
    b.end_vector().unwrap();
    b.end_map().unwrap();
    b.key("samples");
    b.typed_vector(&[1i32, -2, 300_000]);
    b.key("small");
    b.typed_vector(&[7u8, 255]);
    b.key("floats");
    b.scalar_vector(&[1.5f32, -0.25]).unwrap();
    b.key("flags");
    b.typed_vector(&[true, false, true]);
    b.key("point");
    b.fixed_vector(&[1i32, -2, 3]).unwrap();
    b.key("rgba");
    b.fixed_vector(&[0.5f32, 1.0, 0.0, 1.0]).unwrap();
    b.key("labels");
    b.start_vector();
    b.key("k1");
    b.key("k2");
    b.end_typed_vector().unwrap();
    b.key("sensor");
    b.string("thermo");
    b.key("level");
    b.indirect_int(200);
    b.key("offset");
    b.uint(70_000);
    b.key("scale");
    b.int(3);
    b.key("count");
    b.indirect_uint(5);
    b.key("payload");
    b.string("text as bytes");
    b.key("nested");
    b.start_map();
    b.key("a");
    b.string("x");
    b.key("zz_unknown");
    b.blob(&[1, 2, 3]);
    b.key("b");
    b.int(-9);
    b.end_map().unwrap();
    b.key("mode");
    b.key("Open");
    b.key("event");
    b.start_map();
    b.key("Moved");
    b.fixed_vector(&[5i64, 6]).unwrap();
    b.end_map().unwrap();
    b.key("extra");
    b.double(2.5);
    b.end_map().unwrap();
    let bytes = b.finish_vec().unwrap();

    let r: Reading = from_slice(&bytes).unwrap();
    assert_eq!(
        r,
        Reading {
            sensor: "thermo",
            samples: vec![1, -2, 300_000],
            small: vec![7, 255],
            floats: vec![1.5, -0.25],
            flags: vec![true, false, true],
            point: (1, -2, 3),
            rgba: [0.5, 1.0, 0.0, 1.0],
            labels: vec!["k1".into(), "k2".into()],
            level: 200,
            offset: 70_000,
            scale: 3.0,
            count: 5,
            payload: ByteBuf::from(b"text as bytes".to_vec()),
            nested: Inner {
                b: -9,
                a: "x".into()
            },
            mode: Status::Open,
            event: Event::Moved(5, 6),
        }
    );
}

#[test]
fn borrowed_strings_and_bytes_point_into_the_input() {
    #[derive(Serialize, Deserialize, Debug)]
    struct Borrowed<'a> {
        #[serde(borrow)]
        name: &'a str,
        #[serde(with = "serde_bytes")]
        data: &'a [u8],
        #[serde(borrow)]
        words: Vec<&'a str>,
        #[serde(borrow)]
        by_key: BTreeMap<&'a str, &'a str>,
    }
    let value = Borrowed {
        name: "borrowed ✓",
        data: &[9, 8, 7, 0],
        words: vec!["alpha", "beta"],
        by_key: BTreeMap::from([("k", "v")]),
    };
    let bytes = to_vec(&value).unwrap();
    let back: Borrowed = from_slice(&bytes).unwrap();
    assert_eq!(back.name, value.name);
    assert_eq!(back.data, value.data);
    assert_eq!(back.words, value.words);
    assert_eq!(back.by_key, value.by_key);
    let range = bytes.as_ptr_range();
    let inside =
        |p: *const u8, len: usize| range.contains(&p) && (p as usize + len) <= range.end as usize;
    assert!(inside(back.name.as_ptr(), back.name.len()));
    assert!(inside(back.data.as_ptr(), back.data.len()));
    for w in &back.words {
        assert!(inside(w.as_ptr(), w.len()));
    }
    for (k, v) in &back.by_key {
        assert!(inside(k.as_ptr(), k.len()));
        assert!(inside(v.as_ptr(), v.len()));
    }
    // A string stored as a map key (FlexType::Key) also borrows.
    let mut b = Builder::new();
    b.key("as-key");
    let key_bytes = b.finish_vec().unwrap();
    let s: &str = from_slice(&key_bytes).unwrap();
    assert_eq!(s, "as-key");
    assert!(key_bytes.as_ptr_range().contains(&s.as_ptr()));
}

fn seven() -> Option<i32> {
    Some(7)
}

#[test]
fn explicit_null_is_not_a_missing_field() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Opt {
        #[serde(default = "seven")]
        with_default: Option<i32>,
        plain: Option<i32>,
        #[serde(default)]
        count: u32,
    }
    let build = |entries: &[(&str, Option<i64>)]| {
        let mut b = Builder::new();
        b.start_map();
        for (k, v) in entries {
            b.key(k);
            match v {
                Some(i) => b.int(*i),
                None => b.null(),
            }
        }
        b.end_map().unwrap();
        b.finish_vec().unwrap()
    };
    // Missing: the default applies (and a missing Option is None).
    let o: Opt = from_slice(&build(&[])).unwrap();
    assert_eq!(
        o,
        Opt {
            with_default: Some(7),
            plain: None,
            count: 0
        }
    );
    // Explicit null: None, not the default.
    let o: Opt = from_slice(&build(&[("with_default", None), ("plain", None)])).unwrap();
    assert_eq!(
        o,
        Opt {
            with_default: None,
            plain: None,
            count: 0
        }
    );
    // Present values win.
    let o: Opt = from_slice(&build(&[
        ("with_default", Some(1)),
        ("plain", Some(2)),
        ("count", Some(3)),
    ]))
    .unwrap();
    assert_eq!(
        o,
        Opt {
            with_default: Some(1),
            plain: Some(2),
            count: 3
        }
    );
    // Null where a number is required is an error, not the default.
    let err = from_slice::<Opt>(&build(&[("count", None)])).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::TypeMismatch {
                found: FlexType::Null,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.path().unwrap(), "$.count");

    // A missing required field is an error naming it.
    let err = from_slice::<Item>(&to_vec(&BTreeMap::from([("sku", "x")])).unwrap()).unwrap_err();
    assert!(err.to_string().contains("missing field `qty`"), "{err}");

    // Round trip keeps None and Some apart.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Pair {
        a: Option<String>,
        b: Option<String>,
    }
    let p = Pair {
        a: None,
        b: Some("".into()),
    };
    assert_eq!(from_slice::<Pair>(&to_vec(&p).unwrap()).unwrap(), p);
}

#[test]
fn integer_range_errors_name_the_path() {
    #[derive(Serialize)]
    struct WideLine {
        qty: i64,
    }
    #[derive(Serialize)]
    struct WideOrder {
        items: Vec<WideLine>,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Line {
        qty: u8,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct NarrowOrder {
        items: Vec<Line>,
    }
    let order = |q: i64| WideOrder {
        items: vec![
            WideLine { qty: 1 },
            WideLine { qty: 2 },
            WideLine { qty: q },
        ],
    };
    for bad in [256, -1, i64::MIN] {
        let bytes = to_vec(&order(bad)).unwrap();
        let err = from_slice::<NarrowOrder>(&bytes).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::OutOfRange, "{bad}: {err}");
        assert_eq!(err.path().unwrap(), "$.items[2].qty");
        // The offset is the slot of the offending value.
        let slot = Reader::new(&bytes)
            .unwrap()
            .get("items")
            .unwrap()
            .index(2)
            .unwrap();
        assert_eq!(err.offset(), Some(slot.get("qty").unwrap().offset()));
        assert!(err.to_string().contains("$.items[2].qty"));
    }
    assert_eq!(
        from_slice::<NarrowOrder>(&to_vec(&order(255)).unwrap())
            .unwrap()
            .items[2]
            .qty,
        255
    );

    // uint above i64::MAX into i64, and i64 into i32.
    let err = from_slice::<Vec<i64>>(&to_vec(&[1u64, u64::MAX]).unwrap()).unwrap_err();
    assert_eq!(
        (err.kind(), err.path().unwrap().as_str()),
        (&ErrorKind::OutOfRange, "$[1]")
    );
    let err = from_slice::<BTreeMap<String, i32>>(
        &to_vec(&BTreeMap::from([("odd key", i64::MAX)])).unwrap(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::OutOfRange);
    assert_eq!(err.path().unwrap(), "$[\"odd key\"]");
    // Floats accept integers; integers do not accept floats.
    assert_eq!(from_slice::<f64>(&to_vec(&-3i8).unwrap()).unwrap(), -3.0);
    let err = from_slice::<i32>(&to_vec(&1.0f64).unwrap()).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::TypeMismatch {
            found: FlexType::Float,
            ..
        }
    ));
    // Integer map keys are range-checked too.
    let err = from_slice::<BTreeMap<u8, bool>>(&to_vec(&BTreeMap::from([(300u32, true)])).unwrap())
        .unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::OutOfRange);
    assert_eq!(err.path().unwrap(), "$[\"300\"]");
}

#[test]
fn map_keys_and_128_bit_integers() {
    let ints: HashMap<i64, String> = HashMap::from([(-1, "m".into()), (i64::MAX, "x".into())]);
    assert_eq!(
        from_slice::<HashMap<i64, String>>(&to_vec(&ints).unwrap()).unwrap(),
        ints
    );
    let chars: BTreeMap<char, u8> = BTreeMap::from([('é', 1), ('a', 2)]);
    assert_eq!(
        from_slice::<BTreeMap<char, u8>>(&to_vec(&chars).unwrap()).unwrap(),
        chars
    );

    let err = to_vec(&HashMap::from([(true, 1)])).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Message(m) if m.contains("map keys")),
        "{err}"
    );
    let err = to_vec(&HashMap::from([((1, 2), 1)])).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Message(_)));
    let err = to_vec(&BTreeMap::from([("a\0b", 1)])).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::Builder(BuilderError::NulInKey));
    assert_eq!(err.path().unwrap(), r#"$["a\0b"]"#);
    // Under its own key, after keys that were fine (one pooled already).
    let nested = BTreeMap::from([(
        "outer",
        BTreeMap::from([("ok", 1), ("outer", 2), ("x\0", 3)]),
    )]);
    let err = to_vec(&nested).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::Builder(BuilderError::NulInKey));
    assert_eq!(err.path().unwrap(), r#"$.outer["x\0"]"#);

    assert_eq!(
        from_slice::<i128>(&to_vec(&(i64::MIN as i128)).unwrap()).unwrap(),
        i64::MIN as i128
    );
    assert_eq!(
        from_slice::<u128>(&to_vec(&(u64::MAX as u128)).unwrap()).unwrap(),
        u64::MAX as u128
    );
    assert_eq!(
        from_slice::<i128>(&to_vec(&u64::MAX).unwrap()).unwrap(),
        u64::MAX as i128
    );

    #[derive(Serialize)]
    struct Big {
        values: Vec<u128>,
    }
    let err = to_vec(&Big {
        values: vec![0, u64::MAX as u128 + 1],
    })
    .unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::OutOfRange);
    assert_eq!(err.path().unwrap(), "$.values[1]");
    let err = to_vec(&BTreeMap::from([("k", vec![i128::MIN])])).unwrap_err();
    assert_eq!(err.path().unwrap(), "$.k[0]");
}

#[test]
fn duplicate_keys_are_an_error() {
    struct Dup;
    impl Serialize for Dup {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map([("a", 1), ("b", 2), ("a", 3)])
        }
    }
    let err = to_vec(&Dup).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::Builder(BuilderError::DuplicateKey("a".into()))
    );
}

#[test]
fn enums_shapes_and_mismatches() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Holder {
        e: Event,
    }
    let bytes = to_vec(&BTreeMap::from([("e", BTreeMap::from([("Created", ())]))])).unwrap();
    assert_eq!(
        from_slice::<Holder>(&bytes).unwrap(),
        Holder { e: Event::Created }
    );

    let two = to_vec(&BTreeMap::from([(
        "e",
        BTreeMap::from([("Note", "a"), ("Paid", "b")]),
    )]))
    .unwrap();
    let err = from_slice::<Holder>(&two).unwrap_err();
    assert_eq!(err.path().unwrap(), "$.e");
    assert!(err.to_string().contains("exactly one entry"), "{err}");

    let unknown = to_vec(&BTreeMap::from([("e", "Nope")])).unwrap();
    assert!(from_slice::<Holder>(&unknown)
        .unwrap_err()
        .to_string()
        .contains("unknown variant"));

    // A newtype variant needs its payload; a unit name alone is not enough.
    let err = from_slice::<Event>(&to_vec("Note").unwrap()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Message(_)));

    // Payload errors carry the variant in the path.
    let bad = to_vec(&BTreeMap::from([("Moved", vec![1i64, i64::MAX])])).unwrap();
    let err = from_slice::<Event>(&bad).unwrap_err();
    assert_eq!(
        (err.kind(), err.path().unwrap().as_str()),
        (&ErrorKind::OutOfRange, "$.Moved[1]")
    );

    // Internally tagged and untagged enums go through deserialize_any.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "type")]
    enum Shape {
        Circle { r: f64 },
        Square { side: u32 },
    }
    let shapes = vec![Shape::Circle { r: 0.5 }, Shape::Square { side: 3 }];
    assert_eq!(
        from_slice::<Vec<Shape>>(&to_vec(&shapes).unwrap()).unwrap(),
        shapes
    );
}

#[test]
fn homogeneous_scalar_sequences_are_typed_vectors() {
    // Two to four numbers of one type make a fixed vector, sequences as
    // well as tuples and arrays (as the `flexbuffers` crate writes them);
    // one, or five and more, a typed vector with its size.
    let cases: [(Vec<u8>, FlexType); 10] = [
        (to_vec(&vec![1u8, 2, 3]).unwrap(), FlexType::VectorUInt3),
        (to_vec(&vec![-1i64, 2]).unwrap(), FlexType::VectorInt2),
        (
            to_vec(&vec![0.5f64, 1e300]).unwrap(),
            FlexType::VectorFloat2,
        ),
        (to_vec(&[1.5f32, 2.0, 3.0]).unwrap(), FlexType::VectorFloat3),
        (to_vec(&vec![true, false]).unwrap(), FlexType::VectorBool),
        (to_vec(&(1u8, "x")).unwrap(), FlexType::Vector),
        (to_vec(&vec![7u16]).unwrap(), FlexType::VectorUInt),
        (
            to_vec(&vec![1i32, -2, 3, -4]).unwrap(),
            FlexType::VectorInt4,
        ),
        (
            to_vec(&vec![1i32, -2, 3, -4, 5]).unwrap(),
            FlexType::VectorInt,
        ),
        (to_vec(&vec![1e9f64, 0.25]).unwrap(), FlexType::VectorFloat2),
    ];
    for (bytes, ty) in &cases {
        assert_eq!(flexbuf::verify(bytes).unwrap().root().flex_type(), *ty);
    }
    assert_eq!(from_slice::<Vec<u8>>(&cases[0].0).unwrap(), [1, 2, 3]);
    assert_eq!(from_slice::<Vec<i64>>(&cases[1].0).unwrap(), [-1, 2]);
    assert_eq!(from_slice::<Vec<f64>>(&cases[2].0).unwrap(), [0.5, 1e300]);
    assert_eq!(
        from_slice::<[f32; 3]>(&cases[3].0).unwrap(),
        [1.5, 2.0, 3.0]
    );
    assert_eq!(from_slice::<Vec<bool>>(&cases[4].0).unwrap(), [true, false]);
    assert_eq!(from_slice::<Vec<u16>>(&cases[6].0).unwrap(), [7]);
    assert_eq!(from_slice::<Vec<i32>>(&cases[7].0).unwrap(), [1, -2, 3, -4]);
    assert_eq!(
        from_slice::<Vec<i32>>(&cases[8].0).unwrap(),
        [1, -2, 3, -4, 5]
    );
    assert_eq!(from_slice::<(f64, f64)>(&cases[9].0).unwrap(), (1e9, 0.25));
    // A pair read back as a JSON value is an array, as any vector is.
    let pair: serde_json::Value = from_slice(&cases[9].0).unwrap();
    assert_eq!(pair, serde_json::json!([1e9, 0.25]));
    // 300 small ints: the length needs two bytes, so do the elements.
    let many: Vec<u8> = (0..=255).chain(0..44).collect();
    assert_eq!(
        from_slice::<Vec<u8>>(&to_vec(&many).unwrap()).unwrap(),
        many
    );
    let empty: Vec<u32> = Vec::new();
    assert_eq!(
        from_slice::<Vec<u32>>(&to_vec(&empty).unwrap()).unwrap(),
        empty
    );
}

#[test]
fn lengths_must_match_and_types_must_fit() {
    let three = to_vec(&(1, 2, 3)).unwrap();
    let err = from_slice::<(i32, i32)>(&three).unwrap_err();
    assert!(err.to_string().contains("invalid length 3"), "{err}");
    assert!(from_slice::<(i32, i32, i32, i32)>(&three).is_err());
    assert_eq!(from_slice::<[u8; 3]>(&three).unwrap(), [1, 2, 3]);

    let err = from_slice::<Item>(&three).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::TypeMismatch {
            expected: "map",
            found: FlexType::VectorInt3
        }
    ));
    let err = from_slice::<Vec<u8>>(
        &to_vec(&Item {
            sku: "s".into(),
            qty: 1,
            price: 1.0,
        })
        .unwrap(),
    )
    .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::TypeMismatch {
            expected: "vector",
            found: FlexType::Map
        }
    ));
    let err = from_slice::<String>(&to_vec(&5u8).unwrap()).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::TypeMismatch {
            found: FlexType::UInt,
            ..
        }
    ));
    assert!(from_slice::<char>(&to_vec("ab").unwrap()).is_err());
    assert_eq!(from_slice::<char>(&to_vec("ß").unwrap()).unwrap(), 'ß');
    // serde_bytes accepts a vector of numbers too (how other SDKs may write bytes).
    assert_eq!(from_slice::<ByteBuf>(&three).unwrap().into_vec(), [1, 2, 3]);
}

#[test]
fn deserialize_any_agrees_with_json() {
    let mut b = Builder::new();
    b.start_map();
    b.key("n");
    b.null();
    b.key("i");
    b.indirect_int(-70_000);
    b.key("u");
    b.uint(u64::MAX);
    b.key("f");
    b.indirect_double(0.1);
    b.key("t");
    b.typed_vector(&[1u8, 2]);
    b.key("fx");
    b.fixed_vector(&[1.5f64, 2.5, 3.5]).unwrap();
    b.key("bv");
    b.typed_vector(&[false, true]);
    b.key("k");
    b.key("keyval");
    b.key("m");
    b.start_map();
    b.key("z");
    b.bool(true);
    b.end_map().unwrap();
    b.end_map().unwrap();
    let bytes = b.finish_vec().unwrap();
    let via_serde: serde_json::Value = from_slice(&bytes).unwrap();
    let via_json: serde_json::Value =
        serde_json::from_str(&flexbuf::to_json(&bytes).unwrap()).unwrap();
    assert_eq!(via_serde, via_json);
    assert_eq!(via_serde["u"], serde_json::json!(u64::MAX));
    assert_eq!(via_serde["bv"], serde_json::json!([false, true]));
}

#[test]
fn every_value_read_costs_one_node_of_the_budget() {
    // {"a": [1, 2], "b": "x", "c": {"d": null}}: the root, the vector, its
    // two ints, the string, the inner map and its null: seven nodes, charged
    // whether containers charge their elements together or one by one.
    let bytes = flexbuf::from_json(r#"{"a":[1,2],"b":"x","c":{"d":null}}"#).unwrap();
    let read = |nodes: u64| {
        let verified = flexbuf::verify(&bytes).unwrap();
        let mut de = Deserializer::new(verified, Budget::new(nodes, 1000));
        serde_json::Value::deserialize(&mut de).map(|v| (v, de.budget().nodes_left()))
    };
    let (value, left) = read(7).unwrap();
    assert_eq!(
        value,
        serde_json::json!({"a": [1, 2], "b": "x", "c": {"d": null}})
    );
    assert_eq!(left, 0);
    assert_eq!(read(6).unwrap_err().kind(), &ErrorKind::BudgetExceeded);
    assert_eq!(read(9).unwrap().1, 2);
}

#[test]
fn ignored_values_are_not_expanded_and_charge_once() {
    let bytes = dag(40);
    let t = Instant::now();
    let _: IgnoredAny = from_slice(&bytes).unwrap();
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct OnlyName {
        name: String,
    }
    let mut b = Builder::new();
    b.start_map();
    b.key("name");
    b.string("n");
    b.key("huge");
    b.start_vector();
    for _ in 0..10_000 {
        b.int(1);
    }
    b.end_vector().unwrap();
    b.end_map().unwrap();
    let wide = b.finish_vec().unwrap();
    // One node for the map, one for the name, one for the skipped vector.
    let verified = flexbuf::verify(&wide).unwrap();
    let mut de = Deserializer::new(verified, Budget::new(3, 1000));
    assert_eq!(OnlyName::deserialize(&mut de).unwrap().name, "n");
    assert_eq!(de.budget().nodes_left(), 0);
    assert!(t.elapsed() < Duration::from_secs(5));
}

/// `levels` nested 2-element vectors, each holding the level below twice (by
/// offset): a few hundred bytes describing 2^levels leaves.
fn dag(levels: usize) -> Vec<u8> {
    let mut b = Builder::new();
    for _ in 0..levels {
        b.start_vector();
    }
    b.string("leaf");
    for _ in 0..levels {
        let h = b.last_value().unwrap();
        b.reuse_value(h);
        b.end_vector().unwrap();
    }
    b.finish_vec().unwrap()
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Tree {
    Leaf(String),
    Node(Vec<Tree>),
}

#[test]
fn dag_bomb_hits_the_budget_quickly() {
    let small = dag(3);
    let leaf = || Tree::Leaf("leaf".into());
    let pair = |a: Tree, b: Tree| Tree::Node(vec![a, b]);
    let l2 = || pair(pair(leaf(), leaf()), pair(leaf(), leaf()));
    assert_eq!(from_slice::<Tree>(&small).unwrap(), pair(l2(), l2()));

    let bomb = dag(40);
    assert!(bomb.len() < 1000, "{} bytes", bomb.len());
    let t = Instant::now();
    let err = from_slice::<Tree>(&bomb).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BudgetExceeded, "{err}");
    assert!(err.path().is_some());
    let err = from_slice::<serde_json::Value>(&bomb).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BudgetExceeded);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());

    // A larger explicit budget still stops; bytes are charged for strings too.
    let err = from_slice_with::<Tree>(
        &bomb,
        &VerifyOptions::default(),
        Budget::new(u64::MAX, 4096),
    )
    .unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BudgetExceeded);
}

#[test]
fn verification_comes_first_and_readers_must_be_trusted() {
    let bytes = to_vec(&vec![vec![vec![1u8]]]).unwrap();
    let shallow = VerifyOptions {
        max_depth: 2,
        ..Default::default()
    };
    let err =
        from_slice_with::<Vec<Vec<Vec<u8>>>>(&bytes, &shallow, Budget::unlimited()).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::DepthLimit(2));
    assert!(from_slice::<u8>(&[1, 2]).is_err());

    let untrusted = Reader::new(&bytes).unwrap();
    assert!(matches!(
        Deserializer::from_reader(untrusted, Budget::unlimited())
            .unwrap_err()
            .kind(),
        ErrorKind::Message(_)
    ));
    let inner = flexbuf::verify(&bytes).unwrap().root().index(0).unwrap();
    let mut de = Deserializer::from_reader(inner, Budget::unlimited()).unwrap();
    assert_eq!(Vec::<Vec<u8>>::deserialize(&mut de).unwrap(), [vec![1]]);
}

#[test]
fn hostile_bytes_never_panic() {
    let good = to_vec(&sample_order()).unwrap();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut accepted = 0;
    let mut check = |bytes: &[u8]| {
        if from_slice::<Order>(bytes).is_ok() {
            accepted += 1;
        }
        let _ = from_slice::<serde_json::Value>(bytes);
        let _ = from_slice::<Tree>(bytes);
        let _ = from_slice::<IgnoredAny>(bytes);
    };
    for i in 0..good.len() {
        check(&good[i..]);
        check(&good[..i]);
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[i] ^= flip;
            check(&bad);
        }
    }
    for _ in 0..2000 {
        let mut bad = good.clone();
        for _ in 0..4 {
            let at = (next() as usize) % bad.len();
            bad[at] = next() as u8;
        }
        check(&bad);
        let len = (next() % 64) as usize + 3;
        let noise: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        check(&noise);
    }
    assert!(
        accepted >= 1,
        "the unmodified buffer (i = 0 suffix) must decode"
    );
}

#[test]
fn min_width_and_wide_builders_still_decode() {
    let order = sample_order();
    let mut b = Builder::new();
    b.force_min_width(BitWidth::W64);
    order
        .serialize(&mut flexbuf::Serializer::new(&mut b))
        .unwrap();
    let bytes = b.finish_vec().unwrap();
    assert_eq!(from_slice::<Order>(&bytes).unwrap(), order);
}

#[test]
fn flatten_and_deny_unknown_fields() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Base {
        id: u32,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Extended {
        #[serde(flatten)]
        base: Base,
        name: String,
        #[serde(flatten)]
        rest: BTreeMap<String, i64>,
    }
    let value = Extended {
        base: Base { id: 7 },
        name: "n".into(),
        rest: BTreeMap::from([("x".into(), -1)]),
    };
    let bytes = to_vec(&value).unwrap();
    assert_eq!(
        flexbuf::to_json(&bytes).unwrap(),
        r#"{"id":7,"name":"n","x":-1}"#
    );
    assert_eq!(from_slice::<Extended>(&bytes).unwrap(), value);

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        id: u32,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Outer {
        inner: Strict,
    }
    let bytes = to_vec(&BTreeMap::from([(
        "inner",
        BTreeMap::from([("id", 1), ("extra", 2)]),
    )]))
    .unwrap();
    let err = from_slice::<Outer>(&bytes).unwrap_err();
    assert!(err.to_string().contains("unknown field `extra`"), "{err}");
    assert_eq!(err.path().unwrap(), "$.inner.extra");
}

/// A value whose `Serialize` calls `to_vec` itself and embeds the result.
struct Nested(BTreeMap<String, u32>);

impl Serialize for Nested {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let inner = to_vec(&self.0).map_err(serde::ser::Error::custom)?;
        (&self.0, ByteBuf::from(inner)).serialize(s)
    }
}

/// The same bytes as a builder of its own would write, fresh each time.
fn fresh<T: Serialize>(value: &T, options: BuilderOptions) -> Vec<u8> {
    let mut b = Builder::with_options(options);
    value
        .serialize(&mut flexbuf::Serializer::new(&mut b))
        .unwrap();
    b.finish().unwrap().to_vec()
}

#[test]
fn the_kept_builder_writes_what_a_fresh_one_writes() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Row {
        id: u64,
        status: Status,
        items: Vec<Item>,
        note: Option<String>,
        tags: Vec<String>,
        by_line: BTreeMap<u32, String>,
    }
    let order = |n: usize| Row {
        id: n as u64,
        status: if n % 2 == 0 {
            Status::Open
        } else {
            Status::Shipped
        },
        items: (0..n % 5)
            .map(|i| Item {
                sku: format!("sku-{i}"),
                qty: i as u32,
                price: i as f64 * 1.5,
            })
            .collect(),
        note: (n % 3 == 0).then(|| format!("note {n}")),
        tags: vec![format!("t{n}"); n % 4],
        by_line: (0..n % 3)
            .map(|i| (i as u32 * 7, format!("l{i}")))
            .collect(),
    };
    let shared = BuilderOptions {
        share: ShareFlags::KEYS_AND_STRINGS,
        ..BuilderOptions::default()
    };
    let small = BuilderOptions {
        max_retained_capacity: 512,
        ..BuilderOptions::default()
    };
    // Sizes up and down, options changing between calls, errors in between.
    for n in [3usize, 400, 1, 2000, 7, 7, 150] {
        let value: Vec<Row> = (0..n).map(order).collect();
        for options in [BuilderOptions::default(), shared.clone(), small.clone()] {
            let bytes = to_vec_with(&value, options.clone()).unwrap();
            assert_eq!(bytes, fresh(&value, options.clone()), "{n} {options:?}");
            let back: Vec<Row> = from_slice(&bytes).unwrap();
            assert_eq!(back, value);
        }
        let mut bad = BTreeMap::new();
        bad.insert("a\0b".to_string(), 1u8);
        assert!(to_vec(&bad).is_err());
        let mut bad = BTreeMap::new();
        bad.insert("k", 1u128 << 100);
        assert_eq!(to_vec(&bad).unwrap_err().path().unwrap(), "$.k");
        assert_eq!(
            to_vec(&value).unwrap(),
            fresh(&value, BuilderOptions::default())
        );
    }
    // A nested call gets a builder of its own and leaves the outer one intact.
    let nested = Nested((0..50).map(|i| (format!("k{i}"), i)).collect());
    let bytes = to_vec(&nested).unwrap();
    assert_eq!(bytes, fresh(&nested, BuilderOptions::default()));
    let (outer, inner): (BTreeMap<String, u32>, ByteBuf) = from_slice(&bytes).unwrap();
    assert_eq!(outer, nested.0);
    assert_eq!(
        from_slice::<BTreeMap<String, u32>>(&inner).unwrap(),
        nested.0
    );
}

mod shared_struct_keys {
    //! Values of one struct type share a keys vector only when their keys
    //! are the same: random sequences of structs with skipped fields, struct
    //! variants and nesting read back as written, field for field.

    use proptest::prelude::*;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Inner {
        #[serde(skip_serializing_if = "Option::is_none", default)]
        x: Option<i32>,
        y: String,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Row {
        zeta: u8,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        alpha: Option<u16>,
        mid: Inner,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        beta: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        list: Vec<Inner>,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    enum Item {
        Row(Row),
        Pair { b: u8, a: String },
        Other { a: String, c: Option<bool> },
        Inner(Inner),
    }

    fn inner() -> impl Strategy<Value = Inner> {
        (proptest::option::of(any::<i32>()), "[a-c]{0,3}").prop_map(|(x, y)| Inner { x, y })
    }

    fn row() -> impl Strategy<Value = Row> {
        (
            any::<u8>(),
            proptest::option::of(any::<u16>()),
            inner(),
            proptest::option::of("[xy]{0,2}"),
            proptest::collection::vec(inner(), 0..3),
        )
            .prop_map(|(zeta, alpha, mid, beta, list)| Row {
                zeta,
                alpha,
                mid,
                beta,
                list,
            })
    }

    fn item() -> impl Strategy<Value = Item> {
        prop_oneof![
            row().prop_map(Item::Row),
            (any::<u8>(), "[a-z]{0,2}").prop_map(|(b, a)| Item::Pair { b, a }),
            ("[a-z]{0,2}", proptest::option::of(any::<bool>()))
                .prop_map(|(a, c)| Item::Other { a, c }),
            inner().prop_map(Item::Inner),
        ]
    }

    /// Fixed seed (reproducible; `PROPTEST_RNG_SEED` and `PROPTEST_CASES`
    /// explore further), nothing written into the source tree.
    fn config() -> ProptestConfig {
        let mut c = ProptestConfig::default();
        if std::env::var_os("PROPTEST_CASES").is_none() {
            c.cases = 256;
        }
        if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
            c.rng_seed = proptest::test_runner::RngSeed::Fixed(0x5EED_57C7);
        }
        c.failure_persistence = None;
        c
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn structs_read_back_field_for_field(items in proptest::collection::vec(item(), 0..24)) {
            let bytes = flexbuf::to_vec(&items).unwrap();
            flexbuf::verify(&bytes).unwrap();
            let back: Vec<Item> = flexbuf::from_slice(&bytes).unwrap();
            prop_assert_eq!(&back, &items);
            // The text names every value by its own key (no shared keys
            // vector put a value under a neighbour's key).
            let ours: serde_json::Value =
                serde_json::from_str(&flexbuf::to_json(&bytes).unwrap()).unwrap();
            prop_assert_eq!(ours, serde_json::to_value(&items).unwrap());
            // A second call (the kept builder and memos) writes the same bytes.
            prop_assert_eq!(flexbuf::to_vec(&items).unwrap(), bytes);
        }
    }
}

/// Every field optional and unknown keys ignored, so any map reads as one:
/// what a struct read makes of a map, to compare with its keys read one by one.
#[derive(Deserialize, Debug, PartialEq)]
struct Loose {
    id: Option<i64>,
    name: Option<String>,
    other: Option<i64>,
}

#[path = "support/shared_keys.rs"]
mod shared_keys;
use flexbuf::typed;
use shared_keys::{byte_variants, shared_keys_lists};

#[test]
fn struct_keys_kept_by_keys_vector_read_what_the_map_holds() {
    // Maps 0, 1 and 3 share a keys vector (struct reads keep its keys after
    // the second); every byte of the list set to ten values gives maps
    // whose vectors move, change width, length or keys. Whatever verifies
    // must read as struct what the maps hold key by key (through
    // `serde_json::Value`, which reads maps without the key cache).
    let lists = shared_keys_lists();
    let mut compared = 0;
    for bytes in &lists {
        let values = [0u8, 1, 2, 3, 4, 8, 0x10, 0x7f, 0x80, 0xff];
        for buf in byte_variants(bytes, &values) {
            let direct = from_slice::<Vec<Loose>>(&buf);
            let by_value = from_slice::<serde_json::Value>(&buf)
                .ok()
                .and_then(|v| serde_json::from_value::<Vec<Loose>>(v).ok());
            if let (Ok(direct), Some(by_value)) = (&direct, &by_value) {
                assert_eq!(direct, by_value, "{buf:?}");
                compared += 1;
            }
            // A struct read never succeeds where reading the keys one by one fails.
            if by_value.is_none() {
                assert!(direct.is_err(), "{buf:?}");
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn many_struct_types_nested_read_back_whatever_the_key_cache_keeps() {
    // More struct types open at once than the key cache holds, each with
    // its own keys, read many times over: whatever the cache keeps or
    // drops, every struct reads back as written.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Leaf {
        z: u8,
        zy: bool,
        zz: String,
    }
    impl Leaf {
        fn make(i: usize) -> Leaf {
            Leaf {
                z: i as u8,
                zy: i % 2 == 0,
                zz: format!("leaf {i}"),
            }
        }
        fn tail(i: usize) -> Vec<Leaf> {
            (0..1 + i % 3).map(Leaf::make).collect()
        }
    }
    // Keys in order a, b, c: the last is read after the nested struct,
    // when another type may have taken its vector's place in the cache.
    macro_rules! levels {
        ($inner:ident; $($name:ident $a:ident $b:ident $c:ident),*) => {
            levels!(@ $inner; $($name $a $b $c),*);
        };
        (@ $inner:ident; $name:ident $a:ident $b:ident $c:ident $(, $rest:ident $ra:ident $rb:ident $rc:ident)*) => {
            #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
            struct $name {
                $a: u32,
                $b: $inner,
                $c: Vec<Leaf>,
            }
            impl $name {
                fn make(i: usize) -> $name {
                    $name { $a: i as u32, $b: $inner::make(i + 1), $c: Leaf::tail(i) }
                }
            }
            levels!(@ $name; $($rest $ra $rb $rc),*);
        };
        (@ $inner:ident;) => {};
    }
    levels!(Leaf; L1 a1 b1 c1, L2 a2 b2 c2, L3 a3 b3 c3, L4 a4 b4 c4, L5 a5 b5 c5,
        L6 a6 b6 c6, L7 a7 b7 c7, L8 a8 b8 c8, L9 a9 b9 c9, L10 a10 b10 c10,
        L11 a11 b11 c11, L12 a12 b12 c12, L13 a13 b13 c13, L14 a14 b14 c14,
        L15 a15 b15 c15, L16 a16 b16 c16, L17 a17 b17 c17, L18 a18 b18 c18);
    let all: Vec<L18> = (0..40).map(L18::make).collect();
    let bytes = to_vec(&all).unwrap();
    assert_eq!(from_slice::<Vec<L18>>(&bytes).unwrap(), all);
    // And read as values (no cache), the same document.
    let value: serde_json::Value = from_slice(&bytes).unwrap();
    assert_eq!(value, serde_json::to_value(&all).unwrap());
}

/// The oracle of the `serde_from_slice` fuzz target.
#[path = "../../fuzz/src/serde_check.rs"]
mod serde_check;

#[test]
fn the_serde_fuzz_oracle_holds_on_the_seeds_and_their_mutations() {
    // Every byte-level seed of the fuzzers (goldens, fixtures, hand-built
    // buffers), then the serde seeds and each of their one-byte mutations.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/verify_read");
    let mut files = 0;
    for e in std::fs::read_dir(&dir).expect("the seed corpus is there") {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        serde_check::check_serde(&bytes);
        files += 1;
    }
    assert!(files > 10, "{files} seeds");
    let mut accepted = 0;
    for seed in serde_check::seeds() {
        for buf in byte_variants(&seed, &[0, 1, 0x7f, 0x80, 0xff]) {
            serde_check::check_serde(&buf);
            accepted += flexbuf::verify(&buf).is_ok() as usize;
        }
    }
    assert!(accepted > 1000, "{accepted} mutations verified");
}

/// A struct whose field names at each position depend on the value (as a
/// hand-written impl may do), announced with the same count each time:
/// values after the first are written without keys only when every name
/// matches.
#[derive(Debug, Clone)]
struct Shifty {
    shift: usize,
    values: [u32; 3],
    inner: Option<Box<Shifty>>,
}

impl Shifty {
    const NAMES: [&'static str; 4] = ["north", "east", "south", "west"];

    /// The document this value should read back as.
    fn json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (i, v) in self.values.iter().enumerate() {
            m.insert(Self::NAMES[(self.shift + i) % 4].into(), (*v).into());
        }
        if let Some(inner) = &self.inner {
            m.insert("inner".into(), inner.json());
        }
        serde_json::Value::Object(m)
    }
}

impl Serialize for Shifty {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // Always announced as four fields, though `inner` is left out
        // when there is none.
        let mut st = s.serialize_struct("Shifty", 4)?;
        for (i, v) in self.values.iter().enumerate() {
            st.serialize_field(Self::NAMES[(self.shift + i) % 4], v)?;
        }
        if let Some(inner) = &self.inner {
            st.serialize_field("inner", inner)?;
        }
        st.end()
    }
}

/// A tree whose nodes skip fields at some depths, written inside values of
/// its own type that may be open without keys.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Node {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    label: Option<String>,
    weight: u32,
    kids: Vec<Node>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    tail: Option<u8>,
}

fn node(seed: u32, depth: u32) -> Node {
    Node {
        label: (seed % 3 != 0).then(|| format!("n{seed}")),
        weight: seed,
        kids: if depth == 0 {
            Vec::new()
        } else {
            (0..seed % 4)
                .map(|k| {
                    node(
                        seed.wrapping_mul(31).wrapping_add(k * 7 + 1) % 1000,
                        depth - 1,
                    )
                })
                .collect()
        },
        tail: (seed % 5 == 1).then_some(seed as u8),
    }
}

#[test]
fn values_written_without_keys_read_back_under_their_own_keys() {
    // Names that change place between values of one count, nested in values
    // of the same type: never a value under another field's key.
    let shifty: Vec<Shifty> = (0..40)
        .map(|i| Shifty {
            shift: (i * 7 / 3) % 4,
            values: [i as u32, 100 + i as u32, 200 + i as u32],
            inner: (i % 3 == 1).then(|| {
                Box::new(Shifty {
                    shift: (i + 1) % 4,
                    values: [7, 8, 9],
                    inner: None,
                })
            }),
        })
        .collect();
    let expected = serde_json::Value::Array(shifty.iter().map(Shifty::json).collect());
    for options in [
        BuilderOptions::default(),
        BuilderOptions {
            share: ShareFlags::KEYS_AND_STRINGS,
            ..BuilderOptions::default()
        },
    ] {
        let bytes = to_vec_with(&shifty, options.clone()).unwrap();
        assert_eq!(from_slice::<serde_json::Value>(&bytes).unwrap(), expected);
        assert_eq!(bytes, fresh(&shifty, options));
    }
    // Recursion with fields skipped at some depths and not at others.
    // Two of three roots have every field (and leaves that do too).
    let full_node = |i: u32| Node {
        label: Some(format!("f{i}")),
        weight: i,
        kids: (0..i % 3)
            .map(|k| Node {
                label: Some(format!("leaf{k}")),
                weight: k,
                kids: Vec::new(),
                tail: Some(k as u8),
            })
            .collect(),
        tail: Some(i as u8),
    };
    let forest: Vec<Node> = (0..90)
        .map(|i| {
            if i % 3 == 2 {
                node(i * 13 + 2, 4)
            } else {
                full_node(i)
            }
        })
        .collect();
    let bytes = to_vec(&forest).unwrap();
    assert_eq!(from_slice::<Vec<Node>>(&bytes).unwrap(), forest);
    assert_eq!(
        from_slice::<serde_json::Value>(&bytes).unwrap(),
        serde_json::to_value(&forest).unwrap()
    );
    // Roots with all four fields share keys vectors (the type keeps the
    // last one written, which nested nodes of other key sets replace), so
    // some were written without keys, and all read as maps of four keys.
    let root = flexbuf::verify(&bytes).unwrap().root();
    let full: Vec<usize> = root
        .as_vector()
        .unwrap()
        .iter()
        .map(|e| e.unwrap().as_map().unwrap())
        .filter(|m| m.len() == 4)
        .map(|m| m.keys_offset())
        .collect();
    let distinct: std::collections::BTreeSet<&usize> = full.iter().collect();
    assert!(
        distinct.len() < full.len(),
        "{} {}",
        distinct.len(),
        full.len()
    );
}

#[test]
fn a_failure_inside_a_value_without_keys_leaves_the_next_call_sound() {
    #[derive(Serialize, Debug, Clone)]
    struct Rec {
        id: u32,
        extra: BTreeMap<String, u8>,
        name: String,
    }
    let good: Vec<Rec> = (0..20)
        .map(|i| Rec {
            id: i,
            extra: BTreeMap::from([(format!("k{i}"), i as u8)]),
            name: format!("r{i}"),
        })
        .collect();
    let mut bad = good.clone();
    // The fifth value (written without keys) fails in its second field.
    bad[4].extra.insert("a\0b".into(), 1);
    assert!(to_vec(&bad).is_err());
    let mut b = Builder::new();
    let mut ser = flexbuf::Serializer::new(&mut b);
    assert!(bad.serialize(&mut ser).is_err());
    for _ in 0..2 {
        let bytes = to_vec(&good).unwrap();
        assert_eq!(bytes, fresh(&good, BuilderOptions::default()));
        let back: serde_json::Value = from_slice(&bytes).unwrap();
        assert_eq!(back, serde_json::to_value(&good).unwrap());
    }
}

/// A struct type named at run time (hand-written impls may pass any name):
/// hundreds of names land in every slot of the serializer's memo table.
#[derive(Debug, Clone)]
struct Named {
    name: &'static str,
    x: u32,
    y: u32,
}

impl Serialize for Named {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct(self.name, 2)?;
        st.serialize_field("x", &self.x)?;
        st.serialize_field("y", &self.y)?;
        st.end()
    }
}

#[test]
fn types_met_inside_a_value_without_keys_never_lend_it_their_keys() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Outer {
        first: u32,
        many: serde_json::Value,
        last: u32,
    }
    #[derive(Serialize)]
    struct OuterOut {
        first: u32,
        many: Vec<Named>,
        last: u32,
    }
    // Distinct names at distinct addresses: some share the outer type's slot.
    let names: Vec<&'static str> = (0..600)
        .map(|i| &*Box::leak(format!("T{i}").into_boxed_str()))
        .collect();
    let values: Vec<OuterOut> = (0..4)
        .map(|v| OuterOut {
            first: v,
            // The first value has none: its keys vector is remembered,
            // and the next values are written without keys.
            many: names[..if v == 0 { 0 } else { 600 }]
                .iter()
                .enumerate()
                .map(|(i, &name)| Named {
                    name,
                    x: i as u32,
                    y: v,
                })
                .collect(),
            last: 1000 + v,
        })
        .collect();
    let bytes = to_vec(&values).unwrap();
    let back: Vec<Outer> = from_slice(&bytes).unwrap();
    assert_eq!(back.len(), 4);
    for (v, o) in back.iter().enumerate() {
        assert_eq!((o.first, o.last), (v as u32, 1000 + v as u32));
        let many = o.many.as_array().unwrap();
        assert_eq!(many.len(), if v == 0 { 0 } else { 600 });
        for (i, n) in many.iter().enumerate() {
            assert_eq!(n, &serde_json::json!({"x": i, "y": v}));
        }
    }
}
