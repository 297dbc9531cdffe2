//! Differential tests against Google's `flexbuffers` crate (v25), a peer
//! implementation of the same wire format.
//!
//! * Buffers our builder writes are read by its `Reader`, value for value.
//! * Buffers its builder writes pass our verifier and read back, value for value.
//!
//! The two builders legitimately write different bytes for the same data, so
//! these tests compare values, not bytes, except in the few fixed cases where
//! both follow the C++ layout exactly:
//! * it types homogeneous vectors automatically (all ints -> `VectorInt`, two
//!   to four of them -> a fixed `VectorInt2..4`), where C++ and we write an
//!   untyped vector unless asked;
//! * it does not align indirect scalars;
//! * it computes map element widths from the entry index, not from C++'s
//!   doubled stack index, so some maps get narrower slots than ours.
//!
//! Random trees come from a fixed seed, so every run checks the same few hundred.

use flexbuf::{Builder, BuilderOptions, ErrorKind, FlexType, ShareFlags};
use flexbuffers::{Blob, FlexBufferType, IndirectFloat, IndirectInt, IndirectUInt};

/// The data both builders are asked to write.
#[derive(Clone, Debug)]
enum Tree {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Blob(Vec<u8>),
    List(Vec<Tree>),
    /// Unique, NUL-free keys in insertion order.
    Dict(Vec<(String, Tree)>),
    IntVec(Vec<i64>),
    UIntVec(Vec<u64>),
    FloatVec(Vec<f64>),
    BoolVec(Vec<bool>),
}

/// xorshift64*: a tiny deterministic generator, so the trees are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn int(&mut self) -> i64 {
        match self.below(4) {
            0 => self.below(600) as i64 - 300,
            1 => self.pick(&[
                i64::MIN,
                i64::MAX,
                -129,
                128,
                -32_769,
                65_536,
                i32::MIN as i64,
            ]),
            _ => self.next() as i64 >> self.below(64),
        }
    }

    fn uint(&mut self) -> u64 {
        match self.below(3) {
            0 => self.below(300) as u64,
            1 => self.pick(&[u64::MAX, 255, 256, 65_535, 1 << 32]),
            _ => self.next() >> self.below(64),
        }
    }

    fn float(&mut self) -> f64 {
        match self.below(4) {
            0 => f64::from_bits(self.next()),
            1 => f32::from_bits(self.next() as u32) as f64,
            2 => self.pick(&[
                0.0,
                -0.0,
                0.5,
                0.1,
                f64::INFINITY,
                f64::NAN,
                f64::MAX,
                5e-324,
            ]),
            _ => self.int() as f64 / 8.0,
        }
    }

    fn text(&mut self, allow_nul: bool) -> String {
        const PIECES: &[&str] = &[
            "a", "b", "key", "é", "漢字", "😀", "\u{7f}", " ", "\"", "\u{1}",
        ];
        let mut s = String::new();
        for _ in 0..self.below(4) {
            match self.below(3) {
                0 => s.push(char::from_u32(self.next() as u32 % 0x11_0000).unwrap_or('?')),
                _ => s.push_str(self.pick(PIECES)),
            }
        }
        if allow_nul && self.below(8) == 0 {
            s.push('\0');
        }
        if !allow_nul {
            s.retain(|c| c != '\0');
        }
        s
    }

    fn tree(&mut self, depth: usize) -> Tree {
        if depth < 3 && self.below(2) == 0 {
            return self.container(depth);
        }
        match self.below(10) {
            0 => Tree::Null,
            1 => Tree::Bool(self.below(2) == 1),
            2 | 3 => Tree::Int(self.int()),
            4 => Tree::UInt(self.uint()),
            5 => Tree::Float(self.float()),
            6 | 7 => Tree::Str(self.text(true)),
            8 => Tree::Blob((0..self.below(6)).map(|_| self.next() as u8).collect()),
            _ => match self.below(4) {
                0 => Tree::IntVec((0..self.below(6)).map(|_| self.int()).collect()),
                1 => Tree::UIntVec((0..self.below(6)).map(|_| self.uint()).collect()),
                // Never empty: see `empty_float_slice_from_theirs_is_rejected`.
                2 => Tree::FloatVec((0..1 + self.below(5)).map(|_| self.float()).collect()),
                _ => Tree::BoolVec((0..self.below(6)).map(|_| self.below(2) == 1).collect()),
            },
        }
    }

    fn container(&mut self, depth: usize) -> Tree {
        let n = self.below(7);
        match self.below(5) {
            // Homogeneous scalar lists, which its builder turns into typed vectors.
            0 => match self.below(4) {
                0 => Tree::List((0..n).map(|_| Tree::Int(self.int())).collect()),
                1 => Tree::List((0..n).map(|_| Tree::UInt(self.uint())).collect()),
                2 => Tree::List((0..n).map(|_| Tree::Float(self.float())).collect()),
                _ => Tree::List((0..n).map(|_| Tree::Bool(self.below(2) == 1)).collect()),
            },
            1 | 2 => Tree::List((0..n).map(|_| self.tree(depth + 1)).collect()),
            _ => {
                let mut entries: Vec<(String, Tree)> = Vec::new();
                for _ in 0..n {
                    let k = self.text(false);
                    if entries.iter().all(|(e, _)| *e != k) {
                        entries.push((k, self.tree(depth + 1)));
                    }
                }
                Tree::Dict(entries)
            }
        }
    }
}

/// A few hundred trees from a fixed seed, containers at the root more often than not.
fn trees() -> Vec<Tree> {
    let mut rng = Rng(0x00F1_E8B0_F5C0_FFEE);
    (0..400)
        .map(|i| {
            if i % 4 == 0 {
                rng.tree(0)
            } else {
                rng.container(0)
            }
        })
        .collect()
}

fn same_float(got: f64, want: f64) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else {
        got.to_bits() == want.to_bits()
    }
}

fn sorted(entries: &[(String, Tree)]) -> Vec<&(String, Tree)> {
    let mut s: Vec<_> = entries.iter().collect();
    s.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    s
}

// ---- ours -> theirs --------------------------------------------------------------

fn build_ours(b: &mut Builder, t: &Tree) {
    match t {
        Tree::Null => b.null(),
        Tree::Bool(x) => b.bool(*x),
        Tree::Int(i) => b.int(*i),
        Tree::UInt(u) => b.uint(*u),
        Tree::Float(f) => b.double(*f),
        Tree::Str(s) => b.string(s),
        Tree::Blob(d) => b.blob(d),
        Tree::List(items) => {
            b.start_vector();
            items.iter().for_each(|i| build_ours(b, i));
            b.end_vector().unwrap();
        }
        Tree::Dict(entries) => {
            b.start_map();
            for (k, v) in entries {
                b.key(k);
                build_ours(b, v);
            }
            b.end_map().unwrap();
        }
        Tree::IntVec(xs) => b.typed_vector(xs),
        Tree::UIntVec(xs) => b.typed_vector(xs),
        Tree::FloatVec(xs) => b.typed_vector(xs),
        Tree::BoolVec(xs) => b.typed_vector(xs),
    }
}

fn ours(t: &Tree, share: ShareFlags) -> Vec<u8> {
    let mut b = Builder::with_share(share);
    build_ours(&mut b, t);
    b.finish_vec().unwrap()
}

type TheirReader<'a> = flexbuffers::Reader<&'a [u8]>;

/// Asserts that its reader sees `t` in a buffer we built (where vectors are
/// typed exactly when the tree says so).
fn theirs_reads(r: &TheirReader<'_>, t: &Tree) {
    let ty = r.flexbuffer_type();
    match t {
        Tree::Null => assert_eq!(ty, FlexBufferType::Null),
        Tree::Bool(x) => assert_eq!(r.get_bool().unwrap(), *x),
        Tree::Int(i) => assert_eq!(r.get_i64().unwrap(), *i),
        Tree::UInt(u) => assert_eq!(r.get_u64().unwrap(), *u),
        Tree::Float(f) => {
            let got = r.get_f64().unwrap();
            assert!(same_float(got, *f), "read {got:?}, wrote {f:?}");
        }
        Tree::Str(s) => assert_eq!(r.get_str().unwrap(), s),
        Tree::Blob(d) => assert_eq!(r.get_blob().unwrap().0, &d[..]),
        Tree::List(items) => {
            assert_eq!(ty, FlexBufferType::Vector);
            let v = r.get_vector().unwrap();
            assert_eq!(v.len(), items.len());
            for (i, item) in items.iter().enumerate() {
                theirs_reads(&v.index(i).unwrap(), item);
            }
        }
        Tree::Dict(entries) => {
            let m = r.get_map().unwrap();
            assert_eq!(m.len(), entries.len());
            let keys: Vec<&str> = m.iter_keys().collect();
            let want: Vec<&str> = sorted(entries).iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(keys, want);
            for (k, v) in entries {
                theirs_reads(&m.index(k.as_str()).unwrap(), v);
            }
        }
        Tree::IntVec(xs) => {
            assert_typed(ty, FlexBufferType::VectorInt, xs.is_empty());
            let v = r.get_vector().unwrap();
            let got: Vec<i64> = v.iter().map(|e| e.get_i64().unwrap()).collect();
            assert_eq!(&got, xs);
        }
        Tree::UIntVec(xs) => {
            assert_typed(ty, FlexBufferType::VectorUInt, xs.is_empty());
            let v = r.get_vector().unwrap();
            let got: Vec<u64> = v.iter().map(|e| e.get_u64().unwrap()).collect();
            assert_eq!(&got, xs);
        }
        Tree::FloatVec(xs) => {
            assert_typed(ty, FlexBufferType::VectorFloat, xs.is_empty());
            let v = r.get_vector().unwrap();
            assert_eq!(v.len(), xs.len());
            for (e, x) in v.iter().zip(xs) {
                assert!(same_float(e.get_f64().unwrap(), *x));
            }
        }
        Tree::BoolVec(xs) => {
            assert_typed(ty, FlexBufferType::VectorBool, xs.is_empty());
            let v = r.get_vector().unwrap();
            let got: Vec<bool> = v.iter().map(|e| e.get_bool().unwrap()).collect();
            assert_eq!(&got, xs);
        }
    }
}

/// Our typed vectors keep their type, except that an empty one may be written
/// as a key vector (C++ types an empty typed vector by its absent first
/// element, which defaults to key).
fn assert_typed(got: FlexBufferType, want: FlexBufferType, empty: bool) {
    assert!(
        got == want || (empty && got == FlexBufferType::VectorKey),
        "{got:?}, expected {want:?}"
    );
}

#[test]
fn our_buffers_read_by_theirs() {
    let flags = [
        ShareFlags::NONE,
        ShareFlags::KEYS,
        ShareFlags::STRINGS,
        ShareFlags::ALL,
    ];
    for (n, t) in trees().iter().enumerate() {
        let bytes = ours(t, flags[n % flags.len()]);
        let root = flexbuffers::Reader::get_root(&bytes[..])
            .unwrap_or_else(|e| panic!("tree {n} {t:?}: {e:?}"));
        theirs_reads(&root, t);
    }
}

// ---- theirs -> ours ----------------------------------------------------------------

fn push_vec(v: &mut flexbuffers::VectorBuilder<'_>, t: &Tree) {
    match t {
        Tree::Null => v.push(()),
        Tree::Bool(x) => v.push(*x),
        Tree::Int(i) => v.push(*i),
        Tree::UInt(u) => v.push(*u),
        Tree::Float(f) => v.push(*f),
        Tree::Str(s) => v.push(s.as_str()),
        Tree::Blob(d) => v.push(Blob(&d[..])),
        Tree::List(items) => {
            let mut inner = v.start_vector();
            items.iter().for_each(|i| push_vec(&mut inner, i));
            inner.end_vector();
        }
        Tree::Dict(entries) => {
            let mut inner = v.start_map();
            entries.iter().for_each(|(k, e)| push_map(&mut inner, k, e));
            inner.end_map();
        }
        Tree::IntVec(xs) => v.push(&xs[..]),
        Tree::UIntVec(xs) => v.push(&xs[..]),
        Tree::FloatVec(xs) => v.push(&xs[..]),
        Tree::BoolVec(xs) => v.push(&xs[..]),
    }
}

fn push_map(m: &mut flexbuffers::MapBuilder<'_>, k: &str, t: &Tree) {
    match t {
        Tree::Null => m.push(k, ()),
        Tree::Bool(x) => m.push(k, *x),
        Tree::Int(i) => m.push(k, *i),
        Tree::UInt(u) => m.push(k, *u),
        Tree::Float(f) => m.push(k, *f),
        Tree::Str(s) => m.push(k, s.as_str()),
        Tree::Blob(d) => m.push(k, Blob(&d[..])),
        Tree::List(items) => {
            let mut inner = m.start_vector(k);
            items.iter().for_each(|i| push_vec(&mut inner, i));
            inner.end_vector();
        }
        Tree::Dict(entries) => {
            let mut inner = m.start_map(k);
            entries.iter().for_each(|(k, e)| push_map(&mut inner, k, e));
            inner.end_map();
        }
        Tree::IntVec(xs) => m.push(k, &xs[..]),
        Tree::UIntVec(xs) => m.push(k, &xs[..]),
        Tree::FloatVec(xs) => m.push(k, &xs[..]),
        Tree::BoolVec(xs) => m.push(k, &xs[..]),
    }
}

fn theirs(t: &Tree) -> Vec<u8> {
    let mut b = flexbuffers::Builder::default();
    match t {
        Tree::List(items) => {
            let mut v = b.start_vector();
            items.iter().for_each(|i| push_vec(&mut v, i));
            v.end_vector();
        }
        Tree::Dict(entries) => {
            let mut m = b.start_map();
            entries.iter().for_each(|(k, e)| push_map(&mut m, k, e));
            m.end_map();
        }
        Tree::Null => b.build_singleton(()),
        Tree::Bool(x) => b.build_singleton(*x),
        Tree::Int(i) => b.build_singleton(*i),
        Tree::UInt(u) => b.build_singleton(*u),
        Tree::Float(f) => b.build_singleton(*f),
        Tree::Str(s) => b.build_singleton(s.as_str()),
        Tree::Blob(d) => b.build_singleton(Blob(&d[..])),
        Tree::IntVec(xs) => b.build_singleton(&xs[..]),
        Tree::UIntVec(xs) => b.build_singleton(&xs[..]),
        Tree::FloatVec(xs) => b.build_singleton(&xs[..]),
        Tree::BoolVec(xs) => b.build_singleton(&xs[..]),
    }
    b.take_buffer()
}

/// The element type its builder gives a vector of these scalars, if it types it.
fn their_vector_type(items: &[Tree]) -> Option<(FlexType, bool)> {
    let first = items.first()?;
    let same = |f: fn(&Tree) -> bool| items.iter().all(f);
    let (elem, fixable) = match first {
        Tree::Int(_) if same(|t| matches!(t, Tree::Int(_))) => (FlexType::Int, true),
        Tree::UInt(_) if same(|t| matches!(t, Tree::UInt(_))) => (FlexType::UInt, true),
        Tree::Float(_) if same(|t| matches!(t, Tree::Float(_))) => (FlexType::Float, true),
        Tree::Bool(_) if same(|t| matches!(t, Tree::Bool(_))) => (FlexType::Bool, false),
        _ => return None,
    };
    Some((elem, fixable && (2..=4).contains(&items.len())))
}

/// Asserts that our reader sees `t` in a buffer its builder wrote.
fn ours_reads(r: &flexbuf::Reader<'_>, t: &Tree) {
    let ty = r.flex_type();
    let elements = |n: usize| {
        let v = r.as_vector().unwrap();
        assert_eq!(v.len(), n, "{ty:?}");
        v
    };
    match t {
        Tree::Null => assert!(r.is_null()),
        Tree::Bool(x) => assert_eq!(r.as_bool().unwrap(), *x),
        Tree::Int(i) => {
            assert_eq!(ty, FlexType::Int);
            assert_eq!(r.as_i64().unwrap(), *i);
        }
        Tree::UInt(u) => {
            assert_eq!(ty, FlexType::UInt);
            assert_eq!(r.as_u64().unwrap(), *u);
        }
        Tree::Float(f) => {
            assert_eq!(ty, FlexType::Float);
            assert!(same_float(r.as_f64().unwrap(), *f));
        }
        Tree::Str(s) => assert_eq!(r.as_str().unwrap(), s),
        Tree::Blob(d) => assert_eq!(r.as_blob().unwrap(), &d[..]),
        Tree::List(items) => {
            // Legitimate difference: it types homogeneous scalar vectors, and
            // writes two to four numbers as a fixed vector.
            let expected = match their_vector_type(items) {
                None => FlexType::Vector,
                Some((elem, fixed)) => elem
                    .to_typed_vector(if fixed { items.len() } else { 0 })
                    .unwrap(),
            };
            assert_eq!(ty, expected, "{items:?}");
            let v = elements(items.len());
            for (i, item) in items.iter().enumerate() {
                ours_reads(&v.get(i).unwrap(), item);
            }
        }
        Tree::Dict(entries) => {
            let m = r.as_map().unwrap();
            assert_eq!(m.len(), entries.len());
            for (i, (k, v)) in sorted(entries).into_iter().enumerate() {
                assert_eq!(m.key(i).unwrap(), k);
                ours_reads(&m.get(k).unwrap(), v);
            }
        }
        Tree::IntVec(xs) => {
            assert!(
                matches!(
                    ty,
                    FlexType::VectorInt
                        | FlexType::VectorInt2
                        | FlexType::VectorInt3
                        | FlexType::VectorInt4
                ),
                "{ty:?}"
            );
            let v = elements(xs.len());
            let got: Vec<i64> = v.iter().map(|e| e.unwrap().as_i64().unwrap()).collect();
            assert_eq!(&got, xs);
        }
        Tree::UIntVec(xs) => {
            assert!(
                matches!(
                    ty,
                    FlexType::VectorUInt
                        | FlexType::VectorUInt2
                        | FlexType::VectorUInt3
                        | FlexType::VectorUInt4
                ),
                "{ty:?}"
            );
            let v = elements(xs.len());
            let got: Vec<u64> = v.iter().map(|e| e.unwrap().as_u64().unwrap()).collect();
            assert_eq!(&got, xs);
        }
        Tree::FloatVec(xs) => {
            assert!(
                matches!(
                    ty,
                    FlexType::VectorFloat
                        | FlexType::VectorFloat2
                        | FlexType::VectorFloat3
                        | FlexType::VectorFloat4
                ),
                "{ty:?}"
            );
            let v = elements(xs.len());
            for (e, x) in v.iter().zip(xs) {
                assert!(same_float(e.unwrap().as_f64().unwrap(), *x));
            }
        }
        Tree::BoolVec(xs) => {
            assert_eq!(ty, FlexType::VectorBool);
            let v = elements(xs.len());
            let got: Vec<bool> = v.iter().map(|e| e.unwrap().as_bool().unwrap()).collect();
            assert_eq!(&got, xs);
        }
    }
}

#[test]
fn their_buffers_verified_and_read_by_ours() {
    for (n, t) in trees().iter().enumerate() {
        let bytes = theirs(t);
        let root = flexbuf::verify(&bytes)
            .unwrap_or_else(|e| panic!("tree {n} {t:?}: {e}"))
            .root();
        ours_reads(&root, t);
        ours_reads(&flexbuf::Reader::new(&bytes).unwrap(), t);
    }
}

/// The same data through either builder is the same content (the bytes may differ).
#[test]
fn both_builders_agree_on_content() {
    for t in trees() {
        let (a, b) = (ours(&t, ShareFlags::KEYS), theirs(&t));
        let (ra, rb) = (
            flexbuf::verify(&a).unwrap().root(),
            flexbuf::verify(&b).unwrap().root(),
        );
        assert!(ra == rb, "{t:?}");
        if !has_non_finite(&t) {
            assert_eq!(flexbuf::to_json(&a).unwrap(), flexbuf::to_json(&b).unwrap());
        }
    }
}

fn has_non_finite(t: &Tree) -> bool {
    match t {
        Tree::Float(f) => !f.is_finite(),
        Tree::FloatVec(xs) => xs.iter().any(|f| !f.is_finite()),
        Tree::List(items) => items.iter().any(has_non_finite),
        Tree::Dict(entries) => entries.iter().any(|(_, v)| has_non_finite(v)),
        _ => false,
    }
}

// ---- fixed cases -----------------------------------------------------------------

/// Where both follow the C++ layout (scalars, strings, blobs, untyped mixed
/// vectors, small maps) the bytes are identical, not just the values.
#[test]
fn bytes_agree_where_both_follow_cpp() {
    let cases = [
        Tree::Null,
        Tree::Bool(true),
        Tree::Int(-1),
        Tree::Int(i64::MIN),
        Tree::UInt(u64::MAX),
        Tree::Float(0.5),
        Tree::Float(0.1),
        Tree::Str("héllo".into()),
        Tree::Blob(vec![1, 2, 3]),
        Tree::List(vec![
            Tree::Int(1),
            Tree::Str("a".into()),
            Tree::Null,
            Tree::Float(2.5),
        ]),
        Tree::Dict(vec![
            ("b".into(), Tree::Int(1)),
            ("a".into(), Tree::Str("x".into())),
            ("c".into(), Tree::List(vec![Tree::Null, Tree::Bool(false)])),
        ]),
    ];
    for t in &cases {
        assert_eq!(ours(t, ShareFlags::KEYS), theirs(t), "{t:?}");
    }
}

/// Typed vectors: it writes `[1, 2, 3]` as a fixed `VectorInt3`, C++ and we as
/// an untyped vector; different bytes, equal content.
#[test]
fn homogeneous_vector_bytes_differ_but_content_agrees() {
    let t = Tree::List(vec![Tree::Int(1), Tree::Int(2), Tree::Int(3)]);
    let (a, b) = (ours(&t, ShareFlags::KEYS), theirs(&t));
    assert_ne!(a, b);
    let (ra, rb) = (
        flexbuf::verify(&a).unwrap().root(),
        flexbuf::verify(&b).unwrap().root(),
    );
    assert_eq!(ra.flex_type(), FlexType::Vector);
    assert_eq!(rb.flex_type(), FlexType::VectorInt3);
    assert!(ra == rb);
}

/// Indirect scalars: it does not align them; our verifier and reader do not
/// require alignment. Its `push_indirect_float` stores an exact-in-f32 double
/// as f32, as our `indirect_double` does (C++ writes the wrong bytes there).
#[test]
fn indirect_scalars_cross_both_ways() {
    let mut b = flexbuffers::Builder::default();
    let mut v = b.start_vector();
    v.push(true);
    v.push(IndirectInt(-5));
    v.push(IndirectUInt(u64::MAX));
    v.push(IndirectFloat(3.0));
    v.push(IndirectFloat(0.1));
    v.end_vector();
    let bytes = b.take_buffer();
    let root = flexbuf::verify(&bytes).unwrap().root();
    let v = root.as_vector().unwrap();
    assert_eq!(v.get(1).unwrap().flex_type(), FlexType::IndirectInt);
    assert_eq!(v.get(1).unwrap().as_i64().unwrap(), -5);
    assert_eq!(v.get(2).unwrap().as_u64().unwrap(), u64::MAX);
    assert_eq!(v.get(3).unwrap().as_f64().unwrap(), 3.0);
    assert_eq!(v.get(4).unwrap().as_f64().unwrap(), 0.1);

    let mut ob = Builder::new();
    ob.start_vector();
    ob.indirect_int(-5);
    ob.indirect_uint(u64::MAX);
    ob.indirect_double(3.0);
    ob.indirect_double(0.1);
    ob.indirect_float(-1.5);
    ob.end_vector().unwrap();
    let ours = ob.finish_vec().unwrap();
    let r = flexbuffers::Reader::get_root(&ours[..])
        .unwrap()
        .as_vector();
    assert_eq!(r.idx(0).get_i64().unwrap(), -5);
    assert_eq!(r.idx(1).get_u64().unwrap(), u64::MAX);
    assert_eq!(r.idx(2).get_f64().unwrap(), 3.0);
    assert_eq!(r.idx(3).get_f64().unwrap(), 0.1);
    assert_eq!(r.idx(4).get_f64().unwrap(), -1.5);
}

/// Our fixed vectors, key vectors, forced widths and shared key vectors are
/// readable by it.
#[test]
fn our_extended_layouts_read_by_theirs() {
    let mut b = Builder::with_options(BuilderOptions {
        share: ShareFlags::ALL,
        dedup_key_vectors: true,
        ..BuilderOptions::default()
    });
    b.force_min_width(flexbuf::BitWidth::W64);
    b.start_map();
    b.key("fixed");
    b.fixed_vector(&[1.5f32, -2.0, 4.0]).unwrap();
    b.key("keys");
    b.start_vector();
    b.key("x");
    b.key("y");
    b.end_typed_vector().unwrap();
    b.key("maps");
    b.start_vector();
    for i in 0..3 {
        b.start_map();
        b.key("n");
        b.int(i);
        b.key("s");
        b.string("same");
        b.end_map().unwrap();
    }
    b.end_vector().unwrap();
    b.end_map().unwrap();
    let bytes = b.finish_vec().unwrap();
    flexbuf::verify(&bytes).unwrap();

    let root = flexbuffers::Reader::get_root(&bytes[..]).unwrap().as_map();
    let fixed = root.idx("fixed");
    assert_eq!(fixed.flexbuffer_type(), FlexBufferType::VectorFloat3);
    let got: Vec<f64> = fixed
        .as_vector()
        .iter()
        .map(|e| e.get_f64().unwrap())
        .collect();
    assert_eq!(got, [1.5, -2.0, 4.0]);
    let keys: Vec<String> = root
        .idx("keys")
        .as_vector()
        .iter()
        .map(|k| k.get_key().unwrap().to_string())
        .collect();
    assert_eq!(keys, ["x", "y"]);
    let maps = root.idx("maps").as_vector();
    for i in 0..3 {
        let m = maps.idx(i).as_map();
        assert_eq!(m.idx("n").get_i64().unwrap(), i as i64);
        assert_eq!(m.idx("s").get_str().unwrap(), "same");
    }
}

/// A peer difference: it writes an empty `&[f64]` as a float vector of byte
/// width 1 (its width comes from the elements, and there are none). Floats are
/// never narrower than 4 bytes, and our verifier rejects the width even though
/// no element would ever be read. C++ writes width 4 or 8 for any float vector.
#[test]
fn empty_float_slice_from_theirs_is_accepted() {
    let bytes = flexbuffers::singleton(&[0f64; 0][..]);
    assert_eq!(
        bytes,
        [0, 0, 0x34, 1],
        "its encoding changed; revisit this case"
    );
    // One-byte floats cannot exist, but an empty vector has none to misread.
    let ours = flexbuf::verify(&bytes).unwrap().root();
    assert_eq!(ours.as_vector().unwrap().len(), 0);
    // A non-empty one is still rejected.
    assert_eq!(
        flexbuf::verify(&[1, 0, 1, 0x34, 1]).unwrap_err().kind(),
        &ErrorKind::BadWidth(1)
    );
    // Its reader accepts it as an empty vector too.
    let r = flexbuffers::Reader::get_root(&bytes[..]).unwrap();
    assert_eq!(r.get_vector().unwrap().len(), 0);
}
