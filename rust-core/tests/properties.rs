//! Property tests of the core over random value trees and random bytes.
//!
//! * round trip: any tree built under any sharing flags verifies and reads
//!   back as built (floats bit for bit; f64 narrowed to f32 only when exact);
//! * robustness: arbitrary bytes and mutated valid buffers never panic in the
//!   verifier, the checked reader, `to_json`, `==` or `Hash` (the oracle is
//!   `fuzz/src/walk.rs`, shared with the fuzz targets);
//! * JSON: `to_json -> from_json -> to_json` is a fixed point;
//! * content equality: encodings of one tree are `==` and hash alike, and
//!   readers agree with a model of equality on trees that differ;
//! * maps: keys come back sorted by bytes and every lookup finds its key.
//!
//! * random JSON-ish text through `from_json` never panics (it once did on `{`).
//!
//! Seeds are fixed so runs are reproducible; set `PROPTEST_RNG_SEED` (and
//! `PROPTEST_CASES`) to explore further.

#[path = "../../fuzz/src/walk.rs"]
mod walk;

use std::collections::{BTreeMap, BTreeSet};

use flexbuf::{BitWidth, Builder, BuilderOptions, ErrorKind, FlexType, Reader, ShareFlags};
use proptest::collection::{btree_map, btree_set, vec};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::RngSeed;

/// A value tree, as the tests build it.
#[derive(Clone, Debug)]
enum V {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Blob(Vec<u8>),
    Vec(Vec<V>),
    /// Entries in insertion order; keys unique and free of NUL.
    Map(Vec<(String, V)>),
    Ints(Vec<i64>),
    UInts(Vec<u64>),
    Floats(Vec<f64>),
    F32s(Vec<f32>),
    Bools(Vec<bool>),
}

// ---- strategies ----------------------------------------------------------

fn config(cases: u32) -> ProptestConfig {
    // `default()` already applies PROPTEST_* environment overrides.
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = cases;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = RngSeed::Fixed(0xF1E8_B0F5);
    }
    // Failures print the minimal input; nothing is written into the source tree.
    c.failure_persistence = None;
    c
}

fn special_f64() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f32::MAX as f64,
        f32::MIN_POSITIVE as f64,
        0.1,
        16_777_217.0,
    ])
}

fn float(finite: bool) -> BoxedStrategy<f64> {
    use prop::num::f64 as F;
    if finite {
        let finite_f64 = F::POSITIVE | F::NEGATIVE | F::NORMAL | F::SUBNORMAL | F::ZERO;
        prop_oneof![
            3 => finite_f64,
            2 => any::<f32>().prop_filter("finite", |f| f.is_finite()).prop_map(f64::from),
            1 => special_f64().prop_filter("finite", |f| f.is_finite()),
        ]
        .boxed()
    } else {
        prop_oneof![
            3 => any::<f64>(),
            2 => any::<f32>().prop_map(f64::from),
            1 => special_f64(),
        ]
        .boxed()
    }
}

fn f32s(finite: bool) -> BoxedStrategy<f32> {
    if finite {
        any::<f32>()
            .prop_filter("finite", |f| f.is_finite())
            .boxed()
    } else {
        prop_oneof![any::<f32>(), Just(f32::NAN), Just(f32::NEG_INFINITY)].boxed()
    }
}

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        -300i64..300,
        any::<i64>(),
        prop::sample::select(vec![i64::MIN, i64::MAX, -129, 128, -32_769, 32_768]),
    ]
}

fn uint() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..70_000, any::<u64>(), Just(u64::MAX)]
}

/// Any text, NUL and other controls included.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c]{0,3}",
        vec(any::<char>(), 0..10).prop_map(String::from_iter),
    ]
}

/// Map keys: any text without NUL; short ASCII ones often, so keys repeat.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-e]{0,2}",
        vec(any::<char>().prop_filter("no NUL", |c| *c != '\0'), 0..6).prop_map(String::from_iter),
    ]
}

/// Typed-vector lengths: mostly short, sometimes past 255 so the width grows.
fn len() -> impl Strategy<Value = std::ops::Range<usize>> {
    prop_oneof![8 => Just(0..6usize), 1 => Just(250..300usize)]
}

fn leaf(json_safe: bool) -> BoxedStrategy<V> {
    let mut leaves = vec![
        Just(V::Null).boxed(),
        any::<bool>().prop_map(V::Bool).boxed(),
        int().prop_map(V::Int).boxed(),
        uint().prop_map(V::UInt).boxed(),
        float(json_safe).prop_map(V::Float).boxed(),
        text().prop_map(V::Str).boxed(),
        len()
            .prop_flat_map(|n| vec(int(), n))
            .prop_map(V::Ints)
            .boxed(),
        len()
            .prop_flat_map(|n| vec(uint(), n))
            .prop_map(V::UInts)
            .boxed(),
        vec(float(json_safe), 0..5).prop_map(V::Floats).boxed(),
        vec(f32s(json_safe), 0..5).prop_map(V::F32s).boxed(),
        vec(any::<bool>(), 0..5).prop_map(V::Bools).boxed(),
    ];
    if !json_safe {
        leaves.push(vec(any::<u8>(), 0..12).prop_map(V::Blob).boxed());
    }
    prop::strategy::Union::new(leaves).boxed()
}

/// Random trees; `json_safe` leaves out blobs, NaN and infinities.
fn tree(json_safe: bool) -> BoxedStrategy<V> {
    leaf(json_safe)
        .prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                vec(inner.clone(), 0..6).prop_map(V::Vec),
                btree_map(key(), inner, 0..6)
                    .prop_map(|m| m.into_iter().collect::<Vec<_>>())
                    .prop_shuffle()
                    .prop_map(V::Map),
            ]
        })
        .boxed()
}

/// Trees over tiny domains, so two independent draws are often equal in content.
fn small_tree() -> BoxedStrategy<V> {
    let leaf = prop_oneof![
        Just(V::Null),
        any::<bool>().prop_map(V::Bool),
        (-1i64..2).prop_map(V::Int),
        (0u64..2).prop_map(V::UInt),
        prop::sample::select(vec![0.0, -0.0, 1.0, f64::NAN]).prop_map(V::Float),
        prop::sample::select(vec!["", "a"]).prop_map(|s| V::Str(s.into())),
        vec(Just(b'a'), 0..2).prop_map(V::Blob),
        vec(0i64..2, 0..2).prop_map(V::Ints),
        vec(0u64..2, 0..2).prop_map(V::UInts),
        vec(prop::sample::select(vec![0.0, 1.0]), 0..2).prop_map(V::Floats),
        vec(prop::sample::select(vec![0.0f32, 1.0]), 0..2).prop_map(V::F32s),
        vec(any::<bool>(), 0..2).prop_map(V::Bools),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..3).prop_map(V::Vec),
            btree_map(prop::sample::select(vec!["a", "b"]), inner, 0..3)
                .prop_map(|m| { V::Map(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()) }),
        ]
    })
    .boxed()
}

const ALL_FLAGS: [ShareFlags; 8] = [
    ShareFlags::from_bits(0),
    ShareFlags::from_bits(1),
    ShareFlags::from_bits(2),
    ShareFlags::from_bits(3),
    ShareFlags::from_bits(4),
    ShareFlags::from_bits(5),
    ShareFlags::from_bits(6),
    ShareFlags::from_bits(7),
];

/// How a tree is encoded: sharing flags, key-vector dedup, forced width.
#[derive(Clone, Copy, Debug)]
struct Encoding {
    share: ShareFlags,
    dedup_key_vectors: bool,
    force_w64: bool,
}

fn encoding() -> impl Strategy<Value = Encoding> {
    (0u8..8, any::<bool>(), any::<bool>()).prop_map(|(bits, dedup, force)| Encoding {
        share: ShareFlags::from_bits(bits),
        dedup_key_vectors: dedup,
        force_w64: force,
    })
}

// ---- building and reading back -------------------------------------------

fn build(b: &mut Builder, v: &V) -> flexbuf::Result<()> {
    match v {
        V::Null => b.null(),
        V::Bool(x) => b.bool(*x),
        V::Int(i) => b.int(*i),
        V::UInt(u) => b.uint(*u),
        V::Float(f) => b.double(*f),
        V::Str(s) => b.string(s),
        V::Blob(d) => b.blob(d),
        V::Vec(items) => {
            b.start_vector();
            for item in items {
                build(b, item)?;
            }
            b.end_vector()?;
        }
        V::Map(entries) => {
            b.start_map();
            for (k, item) in entries {
                b.key(k);
                build(b, item)?;
            }
            b.end_map()?;
        }
        V::Ints(xs) => b.typed_vector(xs),
        V::UInts(xs) => b.typed_vector(xs),
        V::Floats(xs) => b.typed_vector(xs),
        V::F32s(xs) => b.typed_vector(xs),
        V::Bools(xs) => b.typed_vector(xs),
    }
    Ok(())
}

fn encode(v: &V, e: Encoding) -> Vec<u8> {
    let mut b = Builder::with_options(BuilderOptions {
        share: e.share,
        dedup_key_vectors: e.dedup_key_vectors,
        ..BuilderOptions::default()
    });
    if e.force_w64 {
        b.force_min_width(BitWidth::W64);
    }
    build(&mut b, v).expect("tree builds");
    b.finish_vec().expect("tree finishes")
}

fn plain(share: ShareFlags) -> Encoding {
    Encoding {
        share,
        dedup_key_vectors: false,
        force_w64: false,
    }
}

/// Bitwise equality, except that any NaN matches any NaN.
fn same_float(got: f64, want: f64) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else {
        got.to_bits() == want.to_bits()
    }
}

/// True when `f` survives f64 -> f32 -> f64 bit for bit (NaN never counts).
fn exact_in_f32(f: f64) -> bool {
    !f.is_nan() && ((f as f32) as f64).to_bits() == f.to_bits()
}

fn entries_sorted(entries: &[(String, V)]) -> Vec<&(String, V)> {
    let mut sorted: Vec<_> = entries.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    sorted
}

/// Asserts that `r` holds exactly `v`: same types, values and (for floats) bits.
fn assert_reads(r: &Reader<'_>, v: &V) {
    let ty = r.flex_type();
    match v {
        V::Null => assert!(r.is_null(), "{ty:?}"),
        V::Bool(x) => assert_eq!(r.as_bool().unwrap(), *x),
        V::Int(i) => {
            assert_eq!(ty, FlexType::Int);
            assert_eq!(r.as_i64().unwrap(), *i);
        }
        V::UInt(u) => {
            assert_eq!(ty, FlexType::UInt);
            assert_eq!(r.as_u64().unwrap(), *u);
        }
        V::Float(f) => {
            assert_eq!(ty, FlexType::Float);
            let got = r.as_f64().unwrap();
            assert!(same_float(got, *f), "read {got:?}, built {f:?}");
            // Narrowed to four bytes only when that loses nothing.
            if r.slot_width() < 8 {
                assert!(exact_in_f32(*f), "{f:?} stored in {} bytes", r.slot_width());
            }
        }
        V::Str(s) => {
            assert_eq!(ty, FlexType::String);
            assert_eq!(r.as_str().unwrap(), s);
        }
        V::Blob(d) => {
            assert_eq!(ty, FlexType::Blob);
            assert_eq!(r.as_blob().unwrap(), &d[..]);
        }
        V::Vec(items) => {
            assert_eq!(ty, FlexType::Vector);
            let vr = r.as_vector().unwrap();
            assert_eq!(vr.len(), items.len());
            for (i, item) in items.iter().enumerate() {
                assert_reads(&vr.get(i).unwrap(), item);
            }
        }
        V::Map(entries) => {
            assert_eq!(ty, FlexType::Map);
            let m = r.as_map().unwrap();
            assert_eq!(m.len(), entries.len());
            for (i, (k, item)) in entries_sorted(entries).into_iter().enumerate() {
                assert_eq!(m.key(i).unwrap(), k);
                assert_reads(&m.value(i).unwrap(), item);
                assert_reads(&m.get(k).unwrap(), item);
            }
        }
        V::Ints(xs) => {
            let got = typed(r, FlexType::VectorInt, xs.len(), |e| e.as_i64().unwrap());
            assert_eq!(&got, xs);
        }
        V::UInts(xs) => {
            let got = typed(r, FlexType::VectorUInt, xs.len(), |e| e.as_u64().unwrap());
            assert_eq!(&got, xs);
        }
        V::Floats(xs) => {
            let got = typed(r, FlexType::VectorFloat, xs.len(), |e| e.as_f64().unwrap());
            for (g, x) in got.iter().zip(xs) {
                assert!(same_float(*g, *x), "read {g:?}, built {x:?}");
            }
            if r.as_vector().unwrap().element_width() < 8 {
                assert!(xs.iter().all(|&x| exact_in_f32(x)), "{xs:?} narrowed");
            }
        }
        V::F32s(xs) => {
            let got = typed(r, FlexType::VectorFloat, xs.len(), |e| e.as_f64().unwrap());
            for (g, x) in got.iter().zip(xs) {
                assert!(same_float(*g, f64::from(*x)), "read {g:?}, built {x:?}");
            }
        }
        V::Bools(xs) => {
            let got = typed(r, FlexType::VectorBool, xs.len(), |e| e.as_bool().unwrap());
            assert_eq!(&got, xs);
        }
    }
}

/// The elements of a typed vector of type `ty` and length `n`, read with `get`.
///
/// An empty one may also be a key vector: the C++ builder types an empty
/// typed vector by its (absent) first element, which defaults to key.
fn typed<T>(r: &Reader<'_>, ty: FlexType, n: usize, get: impl Fn(&Reader<'_>) -> T) -> Vec<T> {
    let got = r.flex_type();
    assert!(
        got == ty || (n == 0 && got == FlexType::VectorKey),
        "{got:?} for {n} elements, expected {ty:?}"
    );
    let v = r.as_vector().unwrap();
    assert_eq!(v.len(), n);
    (0..n).map(|i| get(&v.get(i).unwrap())).collect()
}

// ---- a model of content equality ------------------------------------------

/// The logical value content equality compares: numbers by value, every kind
/// of vector alike, floats with one NaN and one zero.
#[derive(Debug, PartialEq, Eq)]
enum Canon {
    Null,
    Bool(bool),
    Int(i128),
    Float(u64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
    Vector(Vec<Canon>),
    Map(Vec<(Vec<u8>, Canon)>),
}

fn canon_float(f: f64) -> Canon {
    Canon::Float(if f.is_nan() {
        f64::NAN.to_bits()
    } else if f == 0.0 {
        0
    } else {
        f.to_bits()
    })
}

fn canon(v: &V) -> Canon {
    fn vector<T: Copy>(xs: &[T], f: impl Fn(T) -> Canon) -> Canon {
        Canon::Vector(xs.iter().map(|&x| f(x)).collect())
    }
    match v {
        V::Null => Canon::Null,
        V::Bool(b) => Canon::Bool(*b),
        V::Int(i) => Canon::Int(*i as i128),
        V::UInt(u) => Canon::Int(*u as i128),
        V::Float(f) => canon_float(*f),
        V::Str(s) => Canon::Text(s.as_bytes().to_vec()),
        V::Blob(d) => Canon::Blob(d.clone()),
        V::Vec(items) => Canon::Vector(items.iter().map(canon).collect()),
        V::Map(entries) => Canon::Map(
            entries_sorted(entries)
                .into_iter()
                .map(|(k, v)| (k.as_bytes().to_vec(), canon(v)))
                .collect(),
        ),
        V::Ints(xs) => vector(xs, |x| Canon::Int(x as i128)),
        V::UInts(xs) => vector(xs, |x| Canon::Int(x as i128)),
        V::Floats(xs) => vector(xs, canon_float),
        V::F32s(xs) => vector(xs, |x| canon_float(x.into())),
        V::Bools(xs) => vector(xs, Canon::Bool),
    }
}

/// A copy of `v` with one value changed; `pick` chooses which.
fn perturb(v: &V, pick: usize) -> V {
    fn at<T: Clone>(items: &[T], pick: usize, change: impl Fn(&T, usize) -> T) -> Vec<T> {
        let mut out = items.to_vec();
        let i = pick % items.len();
        out[i] = change(&items[i], pick / items.len());
        out
    }
    match v {
        V::Null => V::Bool(false),
        V::Bool(b) => V::Bool(!b),
        V::Int(i) => V::Int(i.wrapping_add(1)),
        V::UInt(u) => V::UInt(u.wrapping_add(1)),
        V::Float(f) if f.is_nan() => V::Float(0.0),
        V::Float(f) if *f == 0.0 => V::Float(1.0),
        V::Float(f) => V::Float(-f),
        V::Str(s) => V::Str(format!("{s}!")),
        V::Blob(d) => V::Blob([&d[..], &[0]].concat()),
        V::Vec(items) if items.is_empty() => V::Vec(vec![V::Null]),
        V::Vec(items) => V::Vec(at(items, pick, perturb)),
        V::Map(entries) if entries.is_empty() => V::Map(vec![("k".into(), V::Null)]),
        V::Map(entries) => V::Map(at(entries, pick, |(k, v), p| (k.clone(), perturb(v, p)))),
        V::Ints(xs) => V::Ints([&xs[..], &[0]].concat()),
        V::UInts(xs) => V::UInts([&xs[..], &[0]].concat()),
        V::Floats(xs) => V::Floats([&xs[..], &[0.0]].concat()),
        V::F32s(xs) => V::F32s([&xs[..], &[0.0]].concat()),
        V::Bools(xs) => V::Bools([&xs[..], &[false]].concat()),
    }
}

/// The same content written differently: signed/unsigned, typed/untyped
/// vectors, f32/f64 vectors, the sign of zero and NaN, map insertion order.
/// `bits` decides, a bit per choice.
fn reexpress(v: &V, bits: &mut u64) -> V {
    let mut flip = || {
        *bits = bits.rotate_right(1);
        *bits & 1 == 1
    };
    let all = |items: &[V], f: fn(&V) -> bool| !items.is_empty() && items.iter().all(f);
    match v {
        V::Int(i) if *i >= 0 && flip() => V::UInt(*i as u64),
        V::UInt(u) if i64::try_from(*u).is_ok() && flip() => V::Int(*u as i64),
        V::Float(f) if (f.is_nan() || *f == 0.0) && flip() => V::Float(-f),
        V::Vec(items) if all(items, |x| matches!(x, V::Int(_))) && flip() => V::Ints(
            items
                .iter()
                .map(|x| if let V::Int(i) = x { *i } else { 0 })
                .collect(),
        ),
        V::Vec(items) if all(items, |x| matches!(x, V::Bool(_))) && flip() => {
            V::Bools(items.iter().map(|x| matches!(x, V::Bool(true))).collect())
        }
        V::Vec(items) => V::Vec(items.iter().map(|x| reexpress(x, bits)).collect()),
        V::Map(entries) => V::Map(
            entries
                .iter()
                .rev()
                .map(|(k, x)| (k.clone(), reexpress(x, bits)))
                .collect(),
        ),
        V::Ints(xs) if flip() => V::Vec(xs.iter().map(|&i| V::Int(i)).collect()),
        V::UInts(xs) if flip() => V::Vec(xs.iter().map(|&u| V::UInt(u)).collect()),
        V::Floats(xs) if xs.iter().all(|&x| exact_in_f32(x)) && flip() => {
            V::F32s(xs.iter().map(|&x| x as f32).collect())
        }
        V::F32s(xs) if flip() => V::Floats(xs.iter().map(|&x| f64::from(x)).collect()),
        V::Bools(xs) if flip() => V::Vec(xs.iter().map(|&b| V::Bool(b)).collect()),
        other => other.clone(),
    }
}

// ---- mutations of valid buffers ---------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(Index, u8),
    SetByte(Index, u8),
    Truncate(Index),
    DropFront(Index),
    /// Copies `len` bytes from one place over another.
    Splice(Index, Index, usize),
    Insert(Index, Vec<u8>),
    Remove(Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::SetByte(i, b)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        1 => any::<Index>().prop_map(Mutation::DropFront),
        2 => (any::<Index>(), any::<Index>(), 1usize..16)
            .prop_map(|(a, b, n)| Mutation::Splice(a, b, n)),
        1 => (any::<Index>(), vec(any::<u8>(), 1..4)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<Index>(), 1usize..8).prop_map(|(i, n)| Mutation::Remove(i, n)),
    ]
}

fn mutate(buf: &mut Vec<u8>, m: &Mutation) {
    if buf.is_empty() {
        return;
    }
    let n = buf.len();
    match m {
        Mutation::FlipBit(i, bit) => buf[i.index(n)] ^= 1 << bit,
        Mutation::SetByte(i, b) => buf[i.index(n)] = *b,
        Mutation::Truncate(i) => buf.truncate(i.index(n)),
        Mutation::DropFront(i) => {
            buf.drain(..i.index(n));
        }
        Mutation::Splice(from, to, len) => {
            let (from, to) = (from.index(n), to.index(n));
            let len = (*len).min(n - from).min(n - to);
            buf.copy_within(from..from + len, to);
        }
        Mutation::Insert(i, bytes) => {
            let at = i.index(n + 1);
            buf.splice(at..at, bytes.iter().copied());
        }
        Mutation::Remove(i, len) => {
            let at = i.index(n);
            buf.drain(at..(at + len).min(n));
        }
    }
}

/// Tighter caps than the fuzzer's: debug builds are slow.
fn caps() -> walk::Caps {
    walk::Caps {
        max_depth: 40,
        max_nodes: 2_000,
        max_children: 16,
    }
}

// ---- (a) round trip ----------------------------------------------------------

proptest! {
    #![proptest_config(config(128))]

    /// Every sharing flag value (and key-vector dedup, and forced 64-bit
    /// widths) verifies and reads back the tree exactly.
    #[test]
    fn trees_read_back_under_every_share_flag(v in tree(false)) {
        for share in ALL_FLAGS {
            for (dedup, force_w64) in [(false, false), (true, false), (false, true)] {
                let bytes = encode(&v, Encoding { share, dedup_key_vectors: dedup, force_w64 });
                let verified = flexbuf::verify(&bytes)
                    .unwrap_or_else(|e| panic!("flags {share:?}: {e}"));
                assert_reads(&verified.root(), &v);
                assert_reads(&Reader::new(&bytes).unwrap(), &v);
            }
            // The C++ key-vector flag is a no-op there, so it is here.
            let with = encode(&v, plain(ShareFlags::from_bits(share.bits() | 4)));
            let without = encode(&v, plain(ShareFlags::from_bits(share.bits() & 3)));
            prop_assert_eq!(with, without);
        }
        // Everything the walker checks holds for built buffers too.
        let summary = walk::check_bytes(&encode(&v, plain(ShareFlags::ALL)), caps());
        prop_assert!(summary.is_some());
    }

    /// A root double takes four bytes exactly when f32 holds it bit for bit.
    #[test]
    fn doubles_narrow_only_when_exact(f in float(false)) {
        let mut b = Builder::new();
        b.double(f);
        let bytes = b.finish_vec().unwrap();
        let root = flexbuf::verify(&bytes).unwrap().root();
        prop_assert!(same_float(root.as_f64().unwrap(), f));
        prop_assert_eq!(root.slot_width() == 4, exact_in_f32(f), "{:?}", f);
        prop_assert_eq!(root.slot_width() == 8, !exact_in_f32(f), "{:?}", f);
    }
}

// ---- (b) robustness ------------------------------------------------------------

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn arbitrary_bytes_never_panic(data in vec(any::<u8>(), 0..96)) {
        walk::check_bytes(&data, caps());
    }

    /// Random bodies behind a plausible root trailer (known width, any type).
    #[test]
    fn arbitrary_bodies_with_a_root_trailer_never_panic(
        mut data in vec(any::<u8>(), 0..96),
        packed in any::<u8>(),
        width in prop::sample::select(vec![1u8, 2, 4, 8]),
    ) {
        data.push(packed);
        data.push(width);
        walk::check_bytes(&data, caps());
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn mutated_buffers_never_panic(
        v in tree(false),
        share in 0u8..8,
        mutations in vec(mutation(), 1..4),
    ) {
        let mut bytes = encode(&v, plain(ShareFlags::from_bits(share)));
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        walk::check_bytes(&bytes, caps());
    }
}

/// JSON-ish text: tokens, fragments of valid JSON and stray bytes.
fn json_soup() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            " ",
            "\"",
            "\"k\"",
            "\"\\u0000\"",
            "\"\\ud800\"",
            "\\",
            "0",
            "-0",
            "1e999",
            "-1.5e-3",
            "18446744073709551616",
            "true",
            "null",
            "nul",
        ])
        .prop_map(String::from),
        text(),
    ];
    vec(token, 0..24).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(config(1024))]

    /// Whatever text `from_json` gets, it returns; what it accepts verifies and
    /// passes the whole oracle.
    #[test]
    fn json_text_never_panics(text in json_soup()) {
        if let Ok(bytes) = flexbuf::from_json(&text) {
            prop_assert!(walk::check_bytes(&bytes, caps()).is_some(), "{}", text);
        }
    }
}

// ---- (c) JSON fixed point --------------------------------------------------------

proptest! {
    #![proptest_config(config(192))]

    #[test]
    fn json_round_trip_is_a_fixed_point(v in tree(true), e in encoding()) {
        let bytes = encode(&v, e);
        let json = flexbuf::to_json(&bytes).unwrap();
        let again = flexbuf::from_json(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
        prop_assert_eq!(&flexbuf::to_json(&again).unwrap(), &json);
        // JSON keeps content: typed vectors come back untyped, f32 as f64 and
        // unsigned as signed where they fit, all of which content equality ignores.
        let (before, after) = (flexbuf::verify(&bytes).unwrap().root(),
                               flexbuf::verify(&again).unwrap().root());
        prop_assert!(before == after, "{}", json);
        prop_assert_eq!(walk::std_hash(&before), walk::std_hash(&after));
    }
}

// ---- (d) content equality ----------------------------------------------------------

proptest! {
    #![proptest_config(config(192))]

    #[test]
    fn encodings_of_one_tree_are_equal(
        v in tree(false), a in encoding(), b in encoding(), mut bits in any::<u64>()
    ) {
        // Same tree, or the same content written with other types.
        let w = if bits & 1 == 1 { reexpress(&v, &mut bits) } else { v.clone() };
        prop_assert_eq!(canon(&v), canon(&w));
        let (x, y) = (encode(&v, a), encode(&w, b));
        let (rx, ry) = (flexbuf::verify(&x).unwrap().root(), Reader::new(&y).unwrap());
        prop_assert!(rx == ry);
        prop_assert_eq!(walk::std_hash(&rx), walk::std_hash(&ry));
    }

    #[test]
    fn a_changed_tree_is_unequal(v in tree(false), pick in any::<usize>(), e in encoding()) {
        let w = perturb(&v, pick);
        prop_assert_ne!(canon(&v), canon(&w), "perturb must change the content");
        let (x, y) = (encode(&v, e), encode(&w, e));
        prop_assert!(Reader::new(&x).unwrap() != Reader::new(&y).unwrap());
    }

    /// Small trees, independent or re-expressed: readers are equal exactly
    /// when the model says so.
    #[test]
    fn equality_matches_the_model(
        a in small_tree(),
        other in small_tree(),
        mut bits in any::<u64>(),
        ea in encoding(),
        eb in encoding(),
    ) {
        let b = if bits & 1 == 1 { reexpress(&a, &mut bits) } else { other };
        let (x, y) = (encode(&a, ea), encode(&b, eb));
        let (rx, ry) = (Reader::new(&x).unwrap(), Reader::new(&y).unwrap());
        let equal = canon(&a) == canon(&b);
        prop_assert_eq!(rx == ry, equal, "{:?} vs {:?}", a, b);
        prop_assert_eq!(ry == rx, equal);
        if equal {
            prop_assert_eq!(walk::std_hash(&rx), walk::std_hash(&ry));
        }
    }
}

// ---- (e) maps ---------------------------------------------------------------------

fn sorted_keys_and_order() -> impl Strategy<Value = (BTreeSet<String>, Vec<String>)> {
    btree_set(key(), 0..40).prop_flat_map(|keys| {
        let order = Just(keys.iter().cloned().collect::<Vec<_>>()).prop_shuffle();
        (Just(keys), order)
    })
}

proptest! {
    #![proptest_config(config(192))]

    #[test]
    fn maps_sort_keys_and_find_each(
        (keys, order) in sorted_keys_and_order(),
        absent in vec(key(), 0..6),
        share in 0u8..8,
    ) {
        // Values record the insertion position, so a lookup proves which entry it found.
        let mut b = Builder::with_share(ShareFlags::from_bits(share));
        b.start_map();
        for (i, k) in order.iter().enumerate() {
            b.key(k);
            b.uint(i as u64);
        }
        b.end_map().unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = flexbuf::verify(&bytes).unwrap().root();
        let m = root.as_map().unwrap();
        prop_assert_eq!(m.len(), keys.len());

        let position: BTreeMap<&str, u64> =
            order.iter().enumerate().map(|(i, k)| (k.as_str(), i as u64)).collect();
        let mut by_bytes: Vec<&String> = keys.iter().collect();
        by_bytes.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        for (i, k) in by_bytes.iter().enumerate() {
            prop_assert_eq!(m.key(i).unwrap(), k.as_str());
            prop_assert_eq!(m.get(k).unwrap().as_u64().unwrap(), position[k.as_str()]);
            prop_assert_eq!(root.get(k).unwrap().as_u64().unwrap(), position[k.as_str()]);
            prop_assert_eq!(m.index_of(k).unwrap(), Some(i));
        }
        for k in absent.iter().filter(|k| !keys.contains(*k)) {
            let (e1, e2) = (m.get(k).unwrap_err(), root.get(k).unwrap_err());
            prop_assert_eq!(e1.kind(), &ErrorKind::KeyNotFound);
            prop_assert_eq!(e2.kind(), &ErrorKind::KeyNotFound);
            prop_assert!(m.find(k).unwrap().is_none());
        }
        // A probe with a NUL can never match a stored key.
        let e = m.get("a\0").unwrap_err();
        prop_assert_eq!(e.kind(), &ErrorKind::KeyNotFound);
    }

    #[test]
    fn a_repeated_key_is_an_error(keys in btree_set(key(), 1..8), dup in any::<Index>()) {
        let keys: Vec<_> = keys.into_iter().collect();
        let repeated = keys[dup.index(keys.len())].clone();
        let mut b = Builder::new();
        b.start_map();
        for k in keys.iter().chain(std::iter::once(&repeated)) {
            b.key(k);
            b.null();
        }
        let e = b.end_map().unwrap_err();
        prop_assert_eq!(
            e.kind(),
            &ErrorKind::Builder(flexbuf::BuilderError::DuplicateKey(repeated))
        );
    }
}

// ---- (c) the fuzz seed corpora -------------------------------------------------

/// Every file of `fuzz/<dir>`, sorted by name.
fn seed_files(dir: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(dir);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The seeds every byte-level fuzz target starts from (`verify_read`, `capi`,
/// Python, Kotlin, TypeScript) pass the core fuzz oracle, so `cargo test`
/// replays what a fuzz run begins with.
#[test]
fn the_byte_level_fuzz_seeds_pass_the_oracle() {
    let seeds = seed_files("seeds/verify_read");
    assert!(seeds.len() >= 30, "{} seeds", seeds.len());
    let accepted = seeds
        .iter()
        .filter(|(_, data)| walk::check_bytes(data, caps()).is_some())
        .count();
    // The seeds are valid buffers (fixtures and hand-built edge cases).
    assert_eq!(accepted, seeds.len());
}

/// The `json_roundtrip` target's seeds: what `from_json` accepts verifies,
/// converts back (or fails only on a non-finite number or the budget) and
/// passes the byte-level oracle.
#[test]
fn the_json_fuzz_seeds_pass_the_oracle() {
    let seeds = seed_files("seeds/json_roundtrip");
    assert!(!seeds.is_empty());
    let mut converted = 0;
    for (name, data) in &seeds {
        let Ok(text) = std::str::from_utf8(data) else {
            continue;
        };
        let Ok(buf) = flexbuf::from_json(text) else {
            continue;
        };
        flexbuf::verify(&buf).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = flexbuf::to_json(&buf) {
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::NonFiniteFloat | ErrorKind::BudgetExceeded
                ),
                "{name}: {e}"
            );
        }
        assert!(walk::check_bytes(&buf, caps()).is_some(), "{name}");
        converted += 1;
    }
    assert!(converted > 0);
}
