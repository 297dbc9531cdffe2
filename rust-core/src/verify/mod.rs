//! The verifier: one pass over untrusted bytes, linear in their size.
//!
//! Every offset and size is checked with overflow-safe arithmetic, widths must
//! be 1, 2, 4 or 8, type codes known, strings and keys UTF-8 and terminated,
//! map keys strictly ascending, and nesting bounded. Shared offsets cost
//! little: each key position is scanned once (a bit per position), and a
//! container, map keys vector or long string reached a second time is
//! verified again once and then remembered by (position, type), so DAG-shaped
//! buffers cost at most twice their size while tree-shaped ones pay one bit per
//! node (see `marks`). A container reached again while it is being verified is
//! a cycle.
//!
//! Alignment is not required: readers here never depend on it (typed slices
//! check it themselves), and Google's Rust crate writes unaligned indirect
//! values. Depth counts every vector and map, fixed-length ones included, so it
//! equals the nesting depth of the JSON the buffer converts to.

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::reader::{follow_below, key_at, read_uint_below, word_end, Reader};
use crate::types::{pack_type, unpack_type, BitWidth, FlexType};
use crate::utf8;
use crate::word::{word, zero_bytes};

mod marks;
#[cfg(any(test, feature = "reference-verifier"))]
mod reference;

/// The verifier before this one (hashing every container), for benchmarks.
#[cfg(feature = "reference-verifier")]
#[doc(hidden)]
pub fn verify_reference(buf: &[u8]) -> Result<()> {
    reference::verify_with(buf, &VerifyOptions::default())
}

use marks::{Bits, Memo, Scratch};

/// Verifier settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Deepest nesting of vectors and maps accepted (the root container is level 1).
    /// Values above 1024 are treated as 1024. Verification recurses once per
    /// level, as do `to_json` and the serde tier: at the default of 64 levels
    /// they need well under 64 KiB of stack in an optimised build, but a
    /// buffer nested to the cap of 1024 needs up to 1 MiB there (8 MiB
    /// unoptimised), so raise the limit only on threads with that much stack
    /// (`std::thread::Builder::stack_size`); a stack overflow aborts the process.
    pub max_depth: usize,
    /// Reject maps whose keys are not strictly ascending (lookups would silently miss).
    pub require_sorted_keys: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            max_depth: 64,
            require_sorted_keys: true,
        }
    }
}

/// Proof that a buffer passed [`verify`]: its readers skip re-validation.
#[derive(Clone, Copy, Debug)]
pub struct Verified<'a> {
    buf: &'a [u8],
}

impl<'a> Verified<'a> {
    /// The root value, as a trusted reader.
    pub fn root(&self) -> Reader<'a> {
        // Cannot fail: verification already read the root trailer.
        match Reader::root(self.buf, true) {
            Ok(r) => r,
            Err(_) => unreachable!("verified buffer has a valid root"),
        }
    }

    /// The verified bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.buf
    }
}

/// Verifies `buf` with the default options (depth 64, sorted keys required).
///
/// ```
/// let mut b = flexbuf::Builder::new();
/// b.int(7);
/// let bytes = b.finish().unwrap().to_vec();
/// let v = flexbuf::verify(&bytes).unwrap();
/// assert_eq!(v.root().as_i64().unwrap(), 7);
/// assert!(flexbuf::verify(&[0xff, 0xff, 0xff]).is_err());
/// ```
pub fn verify(buf: &[u8]) -> Result<Verified<'_>> {
    verify_with(buf, &VerifyOptions::default())
}

/// Verifies `buf` with explicit options.
///
/// The verifier's working memory (a bit per buffer byte, and a few tables)
/// is kept by each thread for its next verification, up to 64 KiB (what a
/// buffer of about 256 KiB needs); a larger buffer's is freed when its
/// verification ends. Memory kept never changes what is accepted.
pub fn verify_with<'a>(buf: &'a [u8], options: &VerifyOptions) -> Result<Verified<'a>> {
    let n = buf.len();
    if n < 3 {
        return Err(Error::at(ErrorKind::Truncated, 0));
    }
    let width = buf[n - 1] as usize;
    if BitWidth::from_bytes(width as u64).is_none() {
        return Err(Error::at(ErrorKind::BadWidth(width as u64), n - 1));
    }
    let slot = (n - 2)
        .checked_sub(width)
        .ok_or_else(|| Error::at(ErrorKind::Truncated, 0))?;
    let mut scratch = Scratch::take();
    let s = &mut *scratch;
    s.key_sets.iter_mut().for_each(Vec::clear);
    s.open.clear();
    let mut v = Verifier {
        buf,
        word_end: word_end(buf),
        max_depth: options.max_depth.min(1024),
        sorted: options.require_sorted_keys,
        marks: Bits::reusing(core::mem::take(&mut s.words), n),
        memo: Memo::reusing(core::mem::take(&mut s.memo)),
        key_sets: &mut s.key_sets,
        open: &mut s.open,
    };
    let verified = v.value(slot, width, buf[n - 2], n - 2, 0);
    let (words, memo) = (v.marks.into_words(), v.memo.into_slots());
    s.words = words;
    s.memo = memo;
    Scratch::keep(scratch);
    verified.map(|_| Verified { buf })
}

/// Strings up to this many bytes are re-checked at each reference (bounded
/// work, cheaper than any bookkeeping); longer ones are checked once per
/// position however many offsets share them.
const SHORT: usize = 32;

/// Tag of "the keys vector of a map, order checked" in the memo: no real
/// packed type uses it, so the same bytes reached as a plain key vector are
/// checked separately.
const MAP_KEYS: u8 = 0xfc;

/// Slots of the verifier's cache of recent map key sets (a power of two).
const KEY_SETS: usize = 8;

struct Verifier<'a, 's> {
    buf: &'a [u8],
    /// `reader::word_end(buf)`: below it, a field is read with one
    /// comparison ([`uint`](Self::uint)).
    word_end: usize,
    max_depth: usize,
    sorted: bool,
    /// Positions of containers, long strings and map keys vectors reached
    /// once, and of keys already found NUL-terminated and UTF-8.
    marks: Bits,
    /// Heights of nodes reached more than once (see `marks`).
    memo: Memo,
    /// Key positions of recently checked map keys vectors, a few slots chosen
    /// by the first key and the length: maps of one shape (records, and the
    /// maps nested in them) repeat them, and a repeated prefix is known
    /// verified and ascending.
    key_sets: &'s mut [Vec<usize>; KEY_SETS],
    /// Containers being verified, by nesting level (`open[d]` is the one at
    /// depth `d`, valid up to the current depth): a node found here again is a cycle.
    open: &'s mut Vec<(usize, u8)>,
}

impl<'a> Verifier<'a, '_> {
    /// The unsigned `width`-byte field at `at` (`read_uint`, with the
    /// buffer's `word_end` computed once).
    #[inline(always)]
    fn uint(&self, at: usize, width: usize) -> Result<u64> {
        // SAFETY: `word_end` is `word_end(buf)`, set with `buf`.
        unsafe { read_uint_below(self.buf, self.word_end, at, width) }
    }

    /// The position the `width`-byte offset at `pos` points back to
    /// (`reader::follow`, with the buffer's `word_end` computed once).
    #[inline(always)]
    fn follow(&self, pos: usize, width: usize) -> Result<usize> {
        // SAFETY: as in `uint`.
        unsafe { follow_below(self.buf, self.word_end, pos, width) }
    }

    /// Verifies the value whose slot is at `slot` (width `pw`), with the packed
    /// type found at `type_at`, nested under `depth` containers. Returns the
    /// number of container levels at and below it.
    #[inline]
    fn value(
        &mut self,
        slot: usize,
        pw: usize,
        packed: u8,
        type_at: usize,
        depth: usize,
    ) -> Result<usize> {
        let (ty, w) = unpack_type(packed)
            .ok_or_else(|| Error::at(ErrorKind::UnknownType(packed), type_at))?;
        let w = w.bytes();
        if ty.is_inline() {
            if ty == FlexType::Float && pw < 4 {
                return Err(Error::at(ErrorKind::BadWidth(pw as u64), slot));
            }
            return Ok(0);
        }
        let target = self.follow(slot, pw)?;
        match ty {
            FlexType::String => {
                self.string(target, w, packed)?;
                Ok(0)
            }
            FlexType::Key => {
                self.key(target)?;
                Ok(0)
            }
            FlexType::IndirectInt | FlexType::IndirectUInt | FlexType::IndirectFloat => {
                if ty == FlexType::IndirectFloat && w < 4 {
                    return Err(Error::at(ErrorKind::BadWidth(w as u64), type_at));
                }
                self.span(target, w, 1)?;
                Ok(0)
            }
            FlexType::Blob => {
                let len = self.size(target, w)?;
                self.span(target, len, 1)?;
                Ok(0)
            }
            t if t.is_fixed_typed_vector() => {
                let (elem, len) = t.fixed_vector_element().unwrap_or((FlexType::Int, 2));
                if elem == FlexType::Float && w < 4 {
                    return Err(Error::at(ErrorKind::BadWidth(w as u64), type_at));
                }
                self.depth_ok(depth + 1, target)?;
                self.span(target, len, w)?;
                Ok(1)
            }
            _ => self.container(ty, target, w, packed, depth),
        }
    }

    /// A string whose data starts at `target`, its size prefix `w` bytes wide.
    #[inline(always)]
    fn string(&mut self, target: usize, w: usize, packed: u8) -> Result<()> {
        let len = self.size(target, w)?;
        let n = self.buf.len();
        // `size` bounds `len` by the buffer length, so these cannot overflow.
        if target + len > n {
            return Err(Error::at(ErrorKind::SizeOutOfBounds, target));
        }
        if target + len >= n {
            return Err(Error::at(ErrorKind::SizeOutOfBounds, target + len));
        }
        if self.buf[target + len] != 0 {
            return Err(Error::at(ErrorKind::MissingNul, target + len));
        }
        let long = len > SHORT;
        if long && self.marks.reach(target) {
            if self.memo.get(target, packed).is_some() {
                return Ok(());
            }
            self.utf8(target, len)?;
            self.memo.insert(target, packed, 0);
            return Ok(());
        }
        self.utf8(target, len)
    }

    #[inline(always)]
    fn utf8(&self, at: usize, len: usize) -> Result<()> {
        if utf8::is_utf8(&self.buf[at..at + len]) {
            Ok(())
        } else {
            Err(Error::at(ErrorKind::InvalidUtf8, at))
        }
    }

    #[inline]
    fn depth_ok(&self, level: usize, at: usize) -> Result<()> {
        if level > self.max_depth {
            return Err(Error::at(ErrorKind::DepthLimit(self.max_depth), at));
        }
        Ok(())
    }

    /// Vectors (untyped and typed) and maps: verified in full the first time
    /// their position is reached, from the memo afterwards.
    fn container(
        &mut self,
        ty: FlexType,
        target: usize,
        w: usize,
        packed: u8,
        depth: usize,
    ) -> Result<usize> {
        self.depth_ok(depth + 1, target)?;
        let again = self.marks.reach(target);
        if again {
            if let Some(h) = self.memo.get(target, packed) {
                let h = h as usize;
                self.depth_ok(depth + h, target)?;
                return Ok(h);
            }
            if self.open[..depth].contains(&(target, packed)) {
                return Err(Error::at(ErrorKind::Cycle, target));
            }
        }
        if self.open.len() <= depth {
            self.open.resize(depth + 1, (0, 0));
        }
        self.open[depth] = (target, packed);
        let height = self.container_body(ty, target, w, depth)?;
        if again {
            self.memo.insert(target, packed, height as u64);
        }
        Ok(height)
    }

    fn container_body(
        &mut self,
        ty: FlexType,
        target: usize,
        w: usize,
        depth: usize,
    ) -> Result<usize> {
        let len = self.size(target, w)?;
        match ty {
            FlexType::Vector | FlexType::Map => {
                self.span(target, len, w + 1)?;
                let keys = if ty == FlexType::Map {
                    Some(self.map_keys(target, w, len)?)
                } else {
                    None
                };
                let mut h = 0;
                let types = target + len * w;
                for i in 0..len {
                    let type_at = types + i;
                    let packed = self.buf[type_at];
                    // Inline scalars (null, int, uint, bool; floats at least 4
                    // bytes wide) need nothing beyond their type byte.
                    let code = packed >> 2;
                    if code <= 2
                        || code == FlexType::Bool as u8
                        || (code == FlexType::Float as u8 && w >= 4)
                    {
                        continue;
                    }
                    // Strings (most of what records hold besides scalars),
                    // maps and untyped vectors are dispatched here, as `value`
                    // dispatches them, without its call.
                    let slot = target + i * w;
                    let child_w = 1 << (packed & 3);
                    const STRING: u8 = FlexType::String as u8;
                    const MAP: u8 = FlexType::Map as u8;
                    const VECTOR: u8 = FlexType::Vector as u8;
                    let r = match code {
                        STRING => self
                            .follow(slot, w)
                            .and_then(|at| self.string(at, child_w, packed))
                            .map(|()| 0),
                        MAP => self.follow(slot, w).and_then(|at| {
                            self.container(FlexType::Map, at, child_w, packed, depth + 1)
                        }),
                        VECTOR => self.follow(slot, w).and_then(|at| {
                            self.container(FlexType::Vector, at, child_w, packed, depth + 1)
                        }),
                        _ => self.value(slot, w, packed, type_at, depth + 1),
                    };
                    match r {
                        Ok(child) => h = h.max(child),
                        Err(e) => return Err(self.locate(e, keys, i)),
                    }
                }
                Ok(h + 1)
            }
            FlexType::VectorKey | FlexType::VectorStringDeprecated => {
                self.span(target, len, w)?;
                for i in 0..len {
                    let key = self.follow(target + i * w, w)?;
                    self.key(key)
                        .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
                }
                Ok(1)
            }
            // No float is 1 or 2 bytes wide; an empty vector (as Google's Rust
            // crate writes for an empty slice) has no element to misread.
            FlexType::VectorFloat if w < 4 && len > 0 => {
                Err(Error::at(ErrorKind::BadWidth(w as u64), target))
            }
            FlexType::VectorInt
            | FlexType::VectorUInt
            | FlexType::VectorFloat
            | FlexType::VectorBool => {
                self.span(target, len, w)?;
                Ok(1)
            }
            other => Err(Error::at(
                ErrorKind::UnknownType(pack_type(other, BitWidth::W8)),
                target,
            )),
        }
    }

    /// Adds the entry's key (or index) to an error coming out of a child.
    fn locate(&self, e: Error, keys: Option<(usize, usize)>, i: usize) -> Error {
        if let Some((at, kw)) = keys {
            let name = self
                .follow(at + i * kw, kw)
                .ok()
                .and_then(|k| key_at(self.buf, k).ok())
                .and_then(|k| core::str::from_utf8(k).ok());
            if let Some(name) = name {
                return e.in_segment(PathSegment::Key(name));
            }
        }
        e.in_segment(PathSegment::Index(i))
    }

    /// Verifies the keys vector of the map whose values start at `values`;
    /// returns its (data position, width).
    fn map_keys(&mut self, values: usize, w: usize, len: usize) -> Result<(usize, usize)> {
        let prefix = values
            .checked_sub(3 * w)
            .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, values))?;
        let keys = self.follow(prefix, w)?;
        let kw = self.uint(prefix + w, w)?;
        let kwidth = BitWidth::from_bytes(kw)
            .ok_or_else(|| Error::at(ErrorKind::BadWidth(kw), prefix + w))?;
        let kw = kwidth.bytes();
        let klen = self.size(keys, kw)?;
        if klen != len {
            return Err(Error::at(
                ErrorKind::KeyValueLengthMismatch {
                    keys: klen as u64,
                    values: len as u64,
                },
                values,
            ));
        }
        let tag = MAP_KEYS | kwidth as u8;
        let again = self.marks.reach(keys);
        if again && self.memo.get(keys, tag).is_some() {
            return Ok((keys, kw));
        }
        self.span(keys, klen, kw)?;
        if klen == 0 {
            return Ok((keys, kw));
        }
        let first = self.follow(keys, kw)?;
        let slot = (first ^ (first >> 7) ^ klen.wrapping_mul(0x9e37)) & (KEY_SETS - 1);
        let mut seen = core::mem::take(&mut self.key_sets[slot]);
        let checked = self.map_key_list(keys, kw, klen, &mut seen);
        self.key_sets[slot] = seen;
        checked?;
        if again {
            self.memo.insert(keys, tag, 0);
        }
        Ok((keys, kw))
    }

    /// Checks the `klen` keys of the keys vector at `keys`: verified, and
    /// ascending when sorted keys are required. `seen` holds the positions of
    /// a key list checked earlier; while this one repeats them, nothing needs
    /// checking again, and it is left holding this one's positions.
    fn map_key_list(
        &mut self,
        keys: usize,
        kw: usize,
        klen: usize,
        seen: &mut Vec<usize>,
    ) -> Result<()> {
        let mut prev = None;
        let mut repeated = true;
        for i in 0..klen {
            let at = self.follow(keys + i * kw, kw)?;
            repeated &= seen.get(i) == Some(&at);
            if !repeated {
                self.key(at)
                    .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
                if self.sorted {
                    if let Some(p) = prev {
                        if !key_less(self.buf, p, at) {
                            return Err(Error::at(ErrorKind::UnsortedKeys, keys + i * kw));
                        }
                    }
                }
                // Positions past a mismatch are rewritten, so the list stays exact.
                match seen.get_mut(i) {
                    Some(slot) => *slot = at,
                    None => seen.push(at),
                }
            }
            prev = Some(at);
        }
        seen.truncate(klen);
        Ok(())
    }

    /// Checks that a NUL-terminated UTF-8 key starts at `at`; each position is
    /// scanned once however many maps share the key.
    #[inline]
    fn key(&mut self, at: usize) -> Result<()> {
        if self.marks.is_key(at) {
            return Ok(());
        }
        let tail = &self.buf[at..];
        let scan = utf8::scan_key(tail).ok_or_else(|| Error::at(ErrorKind::MissingNul, at))?;
        if !scan.ascii && !utf8::is_utf8(&tail[..scan.len]) {
            return Err(Error::at(ErrorKind::InvalidUtf8, at));
        }
        self.marks.set_key(at);
        Ok(())
    }

    /// The size prefix of the sized value whose data starts at `data`.
    #[inline(always)]
    fn size(&self, data: usize, w: usize) -> Result<usize> {
        let at = data
            .checked_sub(w)
            .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, data))?;
        let len = self.uint(at, w)?;
        if len > self.buf.len() as u64 {
            return Err(Error::at(ErrorKind::SizeOutOfBounds, at));
        }
        Ok(len as usize)
    }

    /// Checks that `count * unit` bytes from `at` are inside the buffer, without overflow.
    #[inline(always)]
    fn span(&self, at: usize, count: usize, unit: usize) -> Result<()> {
        count
            .checked_mul(unit)
            .and_then(|b| b.checked_add(at))
            .filter(|&end| end <= self.buf.len())
            .map(|_| ())
            .ok_or_else(|| Error::at(ErrorKind::SizeOutOfBounds, at))
    }
}

/// Whether the verified key at `a` sorts strictly before the one at `b`
/// (unsigned bytes, a prefix first), comparing a word at a time up to the
/// first difference or the end of the keys.
#[inline]
pub(crate) fn key_less(buf: &[u8], a: usize, b: usize) -> bool {
    if a == b {
        return false;
    }
    let (x, y) = (&buf[a..], &buf[b..]);
    let mut i = 0;
    while i + 8 <= x.len() && i + 8 <= y.len() {
        let (va, vb) = (word(x, i), word(y, i));
        let zero = zero_bytes(va);
        let diff = va ^ vb;
        // Byte indexes of the first NUL of `a` and of the first difference (8: none).
        let z = (zero.trailing_zeros() / 8) as usize;
        let d = (diff.trailing_zeros() / 8) as usize;
        if d < 8 && d <= z {
            // A difference at or before `a`'s end decides (a NUL sorts first).
            return x[i + d] < y[i + d];
        }
        if z < 8 {
            // Equal through `a`'s NUL: the keys are equal.
            return false;
        }
        i += 8;
    }
    loop {
        // Both keys end with a NUL inside the buffer, so `i` stays in bounds.
        let (c, d) = (x[i], y[i]);
        if c != d {
            return c < d;
        }
        if c == 0 {
            return false;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{Builder, ShareFlags};

    /// `levels` nested 2-element vectors whose elements both reuse the level below:
    /// a few hundred bytes describing 2^levels leaves.
    fn dag(levels: usize) -> Vec<u8> {
        let mut b = Builder::with_share(ShareFlags::NONE);
        for _ in 0..levels {
            b.start_vector();
        }
        b.string("leaf");
        for _ in 0..levels {
            // Each level holds the level below twice: once as written, once by offset.
            let h = b.last_value().unwrap();
            b.reuse_value(h);
            b.end_vector().unwrap();
        }
        b.finish_vec().unwrap()
    }

    #[test]
    fn shared_subtrees_verify_in_linear_time() {
        let bytes = dag(60);
        assert!(bytes.len() < 2000);
        let start = std::time::Instant::now();
        verify(&bytes).unwrap();
        assert!(start.elapsed().as_secs() < 1);
        // Expanding it must hit the budget instead of producing 2^60 strings.
        let err = crate::to_json(&bytes).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::BudgetExceeded);
    }

    #[test]
    fn depth_counts_through_shared_subtrees() {
        let bytes = dag(40);
        assert!(verify_with(
            &bytes,
            &VerifyOptions {
                max_depth: 40,
                ..Default::default()
            }
        )
        .is_ok());
        let err = verify_with(
            &bytes,
            &VerifyOptions {
                max_depth: 39,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::DepthLimit(39));
    }

    #[test]
    fn key_order_matches_byte_order_of_the_keys() {
        let words = [
            "",
            "a",
            "ab",
            "abc",
            "abcdefgh",
            "abcdefghi",
            "abcdefgh\u{e9}",
            "abcdefgz",
            "b_02",
            "b_07",
            "f_01",
            "same-prefix-long-key-1",
            "same-prefix-long-key-2",
            "same-prefix-long-key",
            "\u{ff}",
            "z",
        ];
        let mut buf = Vec::new();
        let mut at = Vec::new();
        for w in words {
            at.push(buf.len());
            buf.extend_from_slice(w.as_bytes());
            buf.push(0);
        }
        for (i, a) in words.iter().enumerate() {
            for (j, b) in words.iter().enumerate() {
                let expected = a.as_bytes() < b.as_bytes();
                assert_eq!(key_less(&buf, at[i], at[j]), expected, "{a:?} < {b:?}");
            }
        }
    }

    #[test]
    fn self_referencing_vector_is_a_cycle() {
        // [len=1][elem: offset 0, i.e. the vector's own data][type: vector w1]
        // then the root: offset 2 back to the data, type vector w1, width 1.
        let bytes = [1u8, 0, 0x28, 2, 0x28, 1];
        assert_eq!(verify(&bytes).unwrap_err().kind(), &ErrorKind::Cycle);
    }

    #[test]
    fn empty_containers_anywhere_are_valid() {
        let mut b = Builder::new();
        b.start_map();
        b.key("m");
        b.start_map();
        b.end_map().unwrap();
        b.key("v");
        b.start_vector();
        b.start_map();
        b.end_map().unwrap();
        b.string("");
        b.blob(&[]);
        b.end_vector().unwrap();
        b.end_map().unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = verify(&bytes).unwrap().root();
        assert!(root.get("m").unwrap().as_map().unwrap().is_empty());
        assert_eq!(root.get("v").unwrap().len().unwrap(), 3);
    }

    #[test]
    fn unsorted_keys_are_rejected_even_if_seen_as_plain_key_vector_first() {
        // Build {"a":1,"b":2}, then swap the two key offsets' targets by editing bytes.
        let mut b = Builder::new();
        b.start_map();
        b.key("a");
        b.int(1);
        b.key("b");
        b.int(2);
        b.end_map().unwrap();
        let mut bytes = b.finish_vec().unwrap();
        assert!(verify(&bytes).is_ok());
        // Keys "a\0b\0" sit at offsets 0..4; rename them to "b" and "a".
        bytes[0] = b'b';
        bytes[2] = b'a';
        assert_eq!(verify(&bytes).unwrap_err().kind(), &ErrorKind::UnsortedKeys);
        let lenient = VerifyOptions {
            require_sorted_keys: false,
            ..Default::default()
        };
        assert!(verify_with(&bytes, &lenient).is_ok());
    }

    #[test]
    fn heavy_string_sharing_is_accepted() {
        let mut b = Builder::with_share(ShareFlags::STRINGS);
        b.start_vector();
        for _ in 0..1000 {
            b.string("shared string value");
        }
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        assert!(verify(&bytes).is_ok());
    }

    #[test]
    fn short_and_garbage_inputs_fail_cleanly() {
        assert_eq!(verify(&[]).unwrap_err().kind(), &ErrorKind::Truncated);
        assert_eq!(
            verify(&[0, 0, 3]).unwrap_err().kind(),
            &ErrorKind::BadWidth(3)
        );
        assert_eq!(
            verify(&[0, 0xff, 1]).unwrap_err().kind(),
            &ErrorKind::UnknownType(0xff)
        );
        // A float stored one byte wide cannot be read.
        assert!(verify(&[0, 0x0c, 1]).is_err());
        // A string whose size runs past the end.
        assert_eq!(
            verify(&[0xff, b'a', 0, 1, 0x14, 1]).unwrap_err().kind(),
            &ErrorKind::SizeOutOfBounds
        );
    }
}
