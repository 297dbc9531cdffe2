//! Bounded walks over FlexBuffers that call every reader accessor, and the
//! oracle the fuzz targets and `rust-core/tests/properties.rs` share (that test
//! includes this file by path, so both check exactly the same properties):
//!
//! * on any bytes, `verify`, every checked accessor, `to_json`, `==` and
//!   `Hash` return normally, and an accessor asked for the wrong type fails
//!   with `TypeMismatch`, never anything else;
//! * on bytes the verifier accepted, every accessor that matches a value's type
//!   succeeds, trusted and checked readers see identical values, every map key
//!   is found by binary search, equality is reflexive, and `to_json` fails only
//!   for NaN/infinity or the expansion budget, with output that parses back to
//!   the same JSON.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use flexbuf::{ErrorKind, FlexType, MapReader, Reader, VectorReader};

/// Limits that keep a walk bounded on hostile, DAG-shaped or cyclic buffers.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Deepest nesting walked.
    pub max_depth: usize,
    /// Most values visited in one walk.
    pub max_nodes: usize,
    /// Elements visited per vector or map: the first ones, then the last one.
    pub max_children: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            max_depth: 80,
            max_nodes: 2_000,
            max_children: 32,
        }
    }
}

/// What one walk saw.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Values visited (keys included).
    pub nodes: usize,
    /// Bytes of strings, keys and blobs visited.
    pub text_bytes: usize,
    /// True when no cap cut the walk short (every value was visited).
    pub complete: bool,
    /// Hash of every type and value read, in visiting order.
    pub digest: u64,
}

/// Walks from `root`, calling every accessor on every value reached.
///
/// With `strict` (for buffers that passed `flexbuf::verify`), accessors that
/// match a value's type must succeed and lookups must agree; without it only
/// the absence of panics (and the `TypeMismatch` contract) is checked.
pub fn walk(root: &Reader<'_>, caps: Caps, strict: bool) -> Summary {
    let mut w = Walker {
        caps,
        strict,
        nodes: 0,
        text_bytes: 0,
        capped: false,
        digest: DefaultHasher::new(),
    };
    w.value(root, 0);
    Summary {
        nodes: w.nodes,
        text_bytes: w.text_bytes,
        complete: !w.capped,
        digest: w.digest.finish(),
    }
}

/// Hash of `r` with the standard library's `DefaultHasher`.
pub fn std_hash(r: &Reader<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    r.hash(&mut h);
    h.finish()
}

/// Runs the whole oracle on arbitrary bytes; panics on any violation.
///
/// Returns the summary of the strict walk when the verifier accepted `data`.
pub fn check_bytes(data: &[u8], caps: Caps) -> Option<Summary> {
    if let Ok(root) = Reader::new(data) {
        walk(&root, caps, false);
        // Results are unspecified for unreadable values; they must only return.
        let same = root;
        let _ = root == same;
        std_hash(&root);
    }
    let verified = match flexbuf::verify(data) {
        Ok(v) => v,
        Err(_) => {
            assert!(
                flexbuf::to_json(data).is_err(),
                "to_json accepted bytes the verifier rejects"
            );
            return None;
        }
    };
    let trusted = verified.root();
    assert!(trusted.is_trusted());
    let seen = walk(&trusted, caps, true);
    let plain = Reader::new(data).expect("a verified buffer has a readable root");
    assert!(!plain.is_trusted());
    let plain_seen = walk(&plain, caps, true);
    assert_eq!(
        seen.digest, plain_seen.digest,
        "trusted and checked readers disagree"
    );
    // Equality and hashing run under a budget of at least 64 Ki nodes and 1 MiB
    // of text; a value the walk saw completely is far below that, so it must
    // equal itself.
    if seen.complete && seen.nodes < 60_000 && seen.text_bytes < 1 << 19 {
        let same = trusted;
        assert!(trusted == same, "verified value unequal to itself");
        assert!(trusted == plain, "trusted and checked readers unequal");
        assert_eq!(std_hash(&trusted), std_hash(&plain));
    }
    check_json(data);
    Some(seen)
}

/// `to_json` of a verified buffer fails only for NaN/infinity or the budget, and
/// its output parses back into a buffer that writes the same JSON again.
fn check_json(data: &[u8]) {
    match flexbuf::to_json(data) {
        // Re-parsing is skipped for the large outputs of shared-offset bombs,
        // which would only slow the fuzzer down.
        Ok(json) if json.len() > 64 * 1024 => {}
        Ok(json) => {
            let again = flexbuf::from_json(&json)
                .unwrap_or_else(|e| panic!("to_json output does not parse: {e}"));
            match flexbuf::to_json(&again) {
                Ok(second) => assert_eq!(second, json, "JSON round trip is not a fixed point"),
                Err(e) => assert_eq!(e.kind(), &ErrorKind::BudgetExceeded, "{e}"),
            }
        }
        Err(e) => assert!(
            matches!(
                e.kind(),
                ErrorKind::NonFiniteFloat | ErrorKind::BudgetExceeded
            ),
            "to_json failed on a verified buffer: {e}"
        ),
    }
}

/// Lengths of the zero-copy slices `r` offers, one per element type.
fn slice_lens(r: &Reader<'_>) -> [Option<usize>; 10] {
    fn len<T: flexbuf::SliceElement>(r: &Reader<'_>) -> Option<usize> {
        r.typed_slice::<T>().map(<[T]>::len)
    }
    [
        len::<i8>(r),
        len::<i16>(r),
        len::<i32>(r),
        len::<i64>(r),
        len::<u8>(r),
        len::<u16>(r),
        len::<u32>(r),
        len::<u64>(r),
        len::<f32>(r),
        len::<f64>(r),
    ]
}

struct Walker {
    caps: Caps,
    strict: bool,
    nodes: usize,
    text_bytes: usize,
    capped: bool,
    digest: DefaultHasher,
}

/// Asserts that `r` failed with `TypeMismatch` when `applies` is false.
fn mismatch_unless<T: core::fmt::Debug>(applies: bool, r: &flexbuf::Result<T>, what: &str) {
    if !applies {
        match r {
            Err(e) if matches!(e.kind(), ErrorKind::TypeMismatch { .. }) => {}
            other => panic!("{what} on the wrong type gave {other:?}, not TypeMismatch"),
        }
    }
}

impl Walker {
    fn enter(&mut self, depth: usize) -> bool {
        if depth > self.caps.max_depth || self.nodes >= self.caps.max_nodes {
            self.capped = true;
            return false;
        }
        self.nodes += 1;
        true
    }

    /// Indices visited of a container of `n` elements.
    fn indices(&mut self, n: usize) -> Vec<usize> {
        let cap = self.caps.max_children;
        if n <= cap {
            return (0..n).collect();
        }
        self.capped = true;
        (0..cap.saturating_sub(1))
            .chain(std::iter::once(n - 1))
            .collect()
    }

    fn value(&mut self, r: &Reader<'_>, depth: usize) {
        if !self.enter(depth) {
            return;
        }
        use FlexType as T;
        let ty = r.flex_type();
        let strict = self.strict;
        (ty as u8).hash(&mut self.digest);
        let _ = (r.bit_width(), r.slot_width(), r.offset(), r.buffer().len());
        let _ = (r.is_trusted(), r.data_offset());
        assert_eq!(r.is_null(), ty == T::Null);
        assert_eq!(r.is_float(), matches!(ty, T::Float | T::IndirectFloat));

        let int_like = matches!(ty, T::Int | T::UInt | T::IndirectInt | T::IndirectUInt);
        let b = r.as_bool();
        mismatch_unless(ty == T::Bool, &b, "as_bool");
        let i = r.as_i64();
        mismatch_unless(int_like, &i, "as_i64");
        let u = r.as_u64();
        mismatch_unless(int_like, &u, "as_u64");
        let f = r.as_f64();
        mismatch_unless(int_like || r.is_float(), &f, "as_f64");
        let s = r.as_str();
        mismatch_unless(matches!(ty, T::String | T::Key), &s, "as_str");
        let blob = r.as_blob();
        mismatch_unless(matches!(ty, T::String | T::Blob), &blob, "as_blob");
        let map = r.as_map();
        mismatch_unless(ty == T::Map, &map, "as_map");
        let vec = r.as_vector();
        mismatch_unless(ty.is_any_vector(), &vec, "as_vector");
        let len = r.len();
        let _ = (r.get(""), r.get("a"), r.index(0), r.index(usize::MAX));
        // A zero-copy slice, when offered, covers the whole vector.
        for n in slice_lens(r).into_iter().flatten() {
            let v = vec
                .as_ref()
                .expect("typed_slice of a value that is not a vector");
            assert_eq!(n, v.len());
        }

        if strict {
            match ty {
                T::Bool => assert!(b.is_ok(), "{b:?}"),
                T::Int | T::IndirectInt => {
                    let v = i.as_ref().expect("verified int reads");
                    assert_eq!(u.is_ok(), *v >= 0, "{u:?}");
                    assert_eq!(f.as_ref().ok(), Some(&(*v as f64)));
                }
                T::UInt | T::IndirectUInt => {
                    let v = u.as_ref().expect("verified uint reads");
                    assert_eq!(i.is_ok(), *v <= i64::MAX as u64, "{i:?}");
                    assert_eq!(f.as_ref().ok(), Some(&(*v as f64)));
                }
                T::Float | T::IndirectFloat => assert!(f.is_ok(), "{f:?}"),
                T::Key => {
                    let s = s.as_ref().expect("verified key reads");
                    assert_eq!(len.as_ref().ok(), Some(&s.len()));
                }
                T::String => {
                    let s = s.as_ref().expect("verified string reads");
                    assert_eq!(blob.as_ref().ok(), Some(&s.as_bytes()));
                    assert_eq!(len.as_ref().ok(), Some(&s.len()));
                }
                T::Blob => {
                    let bytes = blob.as_ref().expect("verified blob reads");
                    assert_eq!(len.as_ref().ok(), Some(&bytes.len()));
                }
                T::Map => {
                    let m = map.as_ref().expect("verified map reads");
                    assert_eq!(len.as_ref().ok(), Some(&m.len()));
                    assert!(vec.is_ok(), "{vec:?}");
                }
                T::Null => {}
                _ => {
                    let v = vec.as_ref().expect("verified vector reads");
                    assert_eq!(len.as_ref().ok(), Some(&v.len()));
                }
            }
        }

        // Everything read goes into the digest, so trusted and checked walks
        // of one verified buffer can be compared.
        let d = &mut self.digest;
        b.ok().hash(d);
        i.ok().hash(d);
        u.ok().hash(d);
        f.ok().map(f64::to_bits).hash(d);
        s.as_ref().ok().hash(d);
        blob.as_ref().ok().hash(d);
        len.as_ref().ok().hash(d);
        self.text_bytes += blob.map_or(0, <[_]>::len) + s.map_or(0, str::len);

        if let Ok(m) = map {
            self.map(&m, depth);
        } else if let Ok(v) = vec {
            self.vector(&v, depth);
        }
    }

    fn vector(&mut self, v: &VectorReader<'_>, depth: usize) {
        let n = v.len();
        assert_eq!(v.is_empty(), n == 0);
        let _ = (v.element_width(), v.data_offset());
        let elem = v.element_type();
        for i in self.indices(n) {
            assert_eq!(v.packed_type(i).is_some(), elem.is_none());
            match v.get(i) {
                Ok(e) => {
                    if let Some(t) = elem {
                        assert_eq!(e.flex_type(), t);
                    }
                    self.value(&e, depth + 1);
                }
                Err(e) => assert!(!self.strict, "verified vector element {i}: {e}"),
            }
        }
        match v.get(n) {
            Err(e) => assert_eq!(e.kind(), &ErrorKind::IndexOutOfBounds { index: n, len: n }),
            Ok(_) => panic!("element {n} of a vector of length {n}"),
        }
        for e in v.iter().take(2) {
            let _ = e;
        }
    }

    fn map(&mut self, m: &MapReader<'_>, depth: usize) {
        let n = m.len();
        assert_eq!(m.is_empty(), n == 0);
        let _ = (m.keys_offset(), m.keys_width());
        let (keys, values) = (m.keys(), m.values());
        if self.strict {
            assert_eq!(values.len(), n);
            assert_eq!(keys.element_type(), Some(FlexType::Key));
        }
        let mut seen_keys = Vec::new();
        for i in self.indices(n) {
            if let Ok(k) = keys.get(i) {
                self.value(&k, depth + 1);
            }
            match m.value(i) {
                Ok(v) => self.value(&v, depth + 1),
                Err(e) => assert!(!self.strict, "verified map value {i}: {e}"),
            }
            let key = match m.key(i) {
                Ok(k) => k,
                Err(e) => {
                    assert!(!self.strict, "verified map key {i}: {e}");
                    continue;
                }
            };
            seen_keys.push(key);
            let found = m.index_of(key);
            if self.strict {
                assert_eq!(found, Ok(Some(i)), "lookup of key {key:?}");
                let got = m.get(key).expect("verified key found");
                assert_eq!(got.offset(), m.value(i).map(|v| v.offset()).ok().unwrap());
                assert!(matches!(m.find(key), Ok(Some(_))));
            } else if let Ok(Some(j)) = found {
                if let Ok(kj) = m.key(j) {
                    assert_eq!(kj, key, "index_of returned a different key");
                }
            }
        }
        for probe in ["", "\u{7f}~", "zz\u{10ffff}"] {
            match m.index_of(probe) {
                Ok(Some(j)) => {
                    if let Ok(k) = m.key(j) {
                        assert_eq!(k, probe);
                    }
                }
                Ok(None) => {
                    if self.strict {
                        assert!(!seen_keys.contains(&probe), "present key {probe:?} missed");
                        let e = m.get(probe).expect_err("absent key");
                        assert_eq!(e.kind(), &ErrorKind::KeyNotFound);
                    }
                }
                Err(e) => assert!(!self.strict, "lookup in a verified map: {e}"),
            }
        }
        for e in m.iter().take(2) {
            let _ = e;
        }
    }
}
