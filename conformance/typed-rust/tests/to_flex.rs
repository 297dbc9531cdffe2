//! `to_flex` writes with a builder each thread keeps between calls (and
//! typed builders keep a large buffer's memory for the next). Messages of
//! very different sizes in a row, and a message whose encode fails part-way,
//! must each give exactly the bytes of a fresh builder, and a failure must
//! leave nothing behind for the next call.

use std::collections::BTreeMap;

use flexbuf::typed::typed_builder_options;
use flexbuf::{Builder, FlexCoder};
use flexbuf_typed_tests::typed::defects;

/// `v` encoded by a builder made for it.
fn fresh(v: &impl FlexCoder) -> flexbuf::Result<Vec<u8>> {
    let mut b = Builder::with_options(typed_builder_options());
    v.encode_with(&mut b).map(<[u8]>::to_vec)
}

/// An order of `n` items, each sold under a key of `by_sku` made by `key`.
fn order(n: usize, key: impl Fn(usize) -> String) -> defects::Order {
    let item = |i: usize| defects::Item {
        sku: format!("sku-{i}"),
        qty: (i % 65_536) as u16,
        price: i as f64 * 0.25,
        seller: defects::Seller {
            id: i as u64 * 7,
            name: format!("seller {}", i % 13),
            rating: (i % 256) as u8,
        },
        tags: (0..i % 4).map(|t| format!("t{t}")).collect(),
    };
    defects::Order {
        id: n as i64,
        items: (0..n).map(item).collect(),
        by_sku: (0..n.min(50))
            .map(|i| (key(i), item(i)))
            .collect::<BTreeMap<_, _>>(),
        matrix: vec![vec![1, -2], vec![], vec![i32::MAX]],
        notes: vec!["n".into(); n % 5],
        label: format!("order {n}"),
        ..Default::default()
    }
}

#[test]
fn to_flex_in_a_row_gives_a_fresh_builders_bytes() {
    let plain = |i: usize| format!("k{i}");
    // Large (several MB: its memory kept), small (given back), large again,
    // then sizes around the kept buffer's.
    for n in [40_000, 1, 0, 40_000, 3, 20_000, 20_001, 2] {
        let v = order(n, plain);
        let ours = v.to_flex().unwrap();
        assert_eq!(ours, fresh(&v).unwrap(), "order of {n} items");
        assert_eq!(defects::Order::from_flex(&ours).unwrap(), v);
    }
}

#[test]
fn a_failed_to_flex_leaves_nothing_for_the_next() {
    // A map key with a NUL cannot be written: the encode fails after much
    // of the message was pushed.
    let bad = order(5_000, |i| {
        if i == 40 {
            "a\0b".into()
        } else {
            format!("k{i}")
        }
    });
    let err = bad.to_flex().unwrap_err();
    assert_eq!(err.kind(), fresh(&bad).unwrap_err().kind());
    for n in [0, 7, 5_000] {
        let v = order(n, |i| format!("k{i}"));
        let ours = v.to_flex().unwrap();
        assert_eq!(
            ours,
            fresh(&v).unwrap(),
            "order of {n} items after a failure"
        );
    }
}
