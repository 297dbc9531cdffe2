//! The verifier as it was before shared-offset bookkeeping moved to bitsets
//! (kept verbatim in tests as an oracle): the current verifier must accept
//! and reject exactly the same buffers, with the same error kinds.

use super::VerifyOptions;
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::reader::{follow, key_at, read_uint};
use crate::types::{pack_type, unpack_type, BitWidth, FlexType};

/// The old `verify_with`.
pub(crate) fn verify_with(buf: &[u8], options: &VerifyOptions) -> Result<()> {
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
    let mut v = Verifier {
        buf,
        max_depth: options.max_depth.min(1024),
        sorted: options.require_sorted_keys,
        memo: Memo::for_buffer(buf.len()),
    };
    v.value(slot, width, buf[n - 2], n - 2, 0)?;
    Ok(())
}

/// Strings and keys up to this many bytes are re-checked at each reference
/// (bounded work); longer ones are checked once per position.
const SHORT: usize = 32;

const IN_PROGRESS: u64 = 1;
const DONE: u64 = 2;

/// Memo of verified nodes: an open-addressed table from (position, packed
/// type) to a state word. Only containers, long strings and keys go in, so it
/// stays small and costs nothing proportional to the buffer up front.
struct Memo {
    /// `(key + 1, value)`; a key of 0 marks an empty slot. Length is a power of two.
    slots: Vec<(u64, u64)>,
    used: usize,
}

impl Memo {
    #[inline]
    fn slot(&mut self, at: usize, packed: u8) -> &mut u64 {
        if (self.used + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let key = ((at as u64) << 8 | packed as u64) + 1;
        let mask = self.slots.len() - 1;
        let mut i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask;
        loop {
            let k = self.slots[i].0;
            if k == key {
                return &mut self.slots[i].1;
            }
            if k == 0 {
                self.slots[i] = (key, 0);
                self.used += 1;
                return &mut self.slots[i].1;
            }
            i = (i + 1) & mask;
        }
    }

    /// A memo sized for a buffer of `len` bytes (memoised nodes are a fraction
    /// of all nodes; the table grows when needed).
    fn for_buffer(len: usize) -> Memo {
        Memo {
            slots: vec![(0, 0); (len / 32).next_power_of_two().clamp(64, 1 << 14)],
            used: 0,
        }
    }

    fn grow(&mut self) {
        let old = core::mem::take(&mut self.slots);
        self.slots = vec![(0, 0); (old.len() * 2).max(64)];
        let mask = self.slots.len() - 1;
        for (k, v) in old.into_iter().filter(|&(k, _)| k != 0) {
            let mut i = (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask;
            while self.slots[i].0 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = (k, v);
        }
    }
}

struct Verifier<'a> {
    buf: &'a [u8],
    max_depth: usize,
    sorted: bool,
    /// Containers and long strings: state (bits 0-1) and height (bits 8+).
    /// Keys: their length + 1.
    memo: Memo,
}

/// What to do at a memoised position.
enum Visit {
    /// Verify it now (it has been marked in progress).
    Fresh,
    /// Already verified, with this many container levels at and below it.
    Done(usize),
}

impl<'a> Verifier<'a> {
    fn enter(&mut self, at: usize, packed: u8) -> Result<Visit> {
        let entry = self.memo.slot(at, packed);
        match *entry & 3 {
            0 => {
                *entry = IN_PROGRESS;
                Ok(Visit::Fresh)
            }
            IN_PROGRESS => Err(Error::at(ErrorKind::Cycle, at)),
            _ => Ok(Visit::Done((*entry >> 8) as usize)),
        }
    }

    fn leave(&mut self, at: usize, packed: u8, height: usize) {
        *self.memo.slot(at, packed) = DONE | (height as u64) << 8;
    }

    /// Verifies the value whose slot is at `slot` (width `pw`), with the packed
    /// type found at `type_at`, nested under `depth` containers. Returns the
    /// number of container levels at and below it.
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
        let target = follow(self.buf, slot, pw)?;
        match ty {
            FlexType::IndirectInt | FlexType::IndirectUInt | FlexType::IndirectFloat => {
                if ty == FlexType::IndirectFloat && w < 4 {
                    return Err(Error::at(ErrorKind::BadWidth(w as u64), type_at));
                }
                self.span(target, w, 1)?;
                Ok(0)
            }
            FlexType::Key => {
                self.key(target)?;
                Ok(0)
            }
            FlexType::Blob => {
                let len = self.size(target, w)?;
                self.span(target, len, 1)?;
                Ok(0)
            }
            FlexType::String => {
                let len = self.size(target, w)?;
                self.span(target, len, 1)
                    .and_then(|_| self.span(target + len, 1, 1))?;
                if self.buf[target + len] != 0 {
                    return Err(Error::at(ErrorKind::MissingNul, target + len));
                }
                // Short strings are cheaper to check again than to memoise; long
                // ones are checked once however many offsets share them.
                let long = len > SHORT;
                if long {
                    if let Visit::Done(_) = self.enter(target, packed)? {
                        return Ok(0);
                    }
                }
                if core::str::from_utf8(&self.buf[target..target + len]).is_err() {
                    return Err(Error::at(ErrorKind::InvalidUtf8, target));
                }
                if long {
                    self.leave(target, packed, 0);
                }
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

    fn depth_ok(&self, level: usize, at: usize) -> Result<()> {
        if level > self.max_depth {
            return Err(Error::at(ErrorKind::DepthLimit(self.max_depth), at));
        }
        Ok(())
    }

    /// Vectors (untyped and typed) and maps.
    fn container(
        &mut self,
        ty: FlexType,
        target: usize,
        w: usize,
        packed: u8,
        depth: usize,
    ) -> Result<usize> {
        self.depth_ok(depth + 1, target)?;
        match self.enter(target, packed)? {
            Visit::Done(h) => {
                self.depth_ok(depth + h, target)?;
                return Ok(h);
            }
            Visit::Fresh => {}
        }
        let len = self.size(target, w)?;
        let height = match ty {
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
                    let r = self.value(target + i * w, w, packed, type_at, depth + 1);
                    match r {
                        Ok(child) => h = h.max(child),
                        Err(e) => return Err(self.locate(e, keys, i)),
                    }
                }
                h + 1
            }
            FlexType::VectorKey | FlexType::VectorStringDeprecated => {
                self.span(target, len, w)?;
                for i in 0..len {
                    let key = follow(self.buf, target + i * w, w)?;
                    self.key(key)
                        .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
                }
                1
            }
            // No float is 1 or 2 bytes wide; an empty vector (as Google's Rust
            // crate writes for an empty slice) has no element to misread.
            FlexType::VectorFloat if w < 4 && len > 0 => {
                return Err(Error::at(ErrorKind::BadWidth(w as u64), target))
            }
            FlexType::VectorInt
            | FlexType::VectorUInt
            | FlexType::VectorFloat
            | FlexType::VectorBool => {
                self.span(target, len, w)?;
                1
            }
            other => {
                return Err(Error::at(
                    ErrorKind::UnknownType(pack_type(other, BitWidth::W8)),
                    target,
                ))
            }
        };
        self.leave(target, packed, height);
        Ok(height)
    }

    /// Adds the entry's key (or index) to an error coming out of a child.
    fn locate(&self, e: Error, keys: Option<(usize, usize)>, i: usize) -> Error {
        if let Some((at, kw)) = keys {
            let name = follow(self.buf, at + i * kw, kw)
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
        let keys = follow(self.buf, prefix, w)?;
        let kw = read_uint(self.buf, prefix + w, w)?;
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
        // A tag no real packed type uses: "keys vector of a map, order checked",
        // distinct from the same bytes reached as a plain key vector.
        let packed = 0xfc | kwidth as u8;
        if let Visit::Done(_) = self.enter(keys, packed)? {
            return Ok((keys, kw));
        }
        self.span(keys, klen, kw)?;
        let mut prev: Option<&[u8]> = None;
        for i in 0..klen {
            let at = follow(self.buf, keys + i * kw, kw)?;
            let key = self
                .key(at)
                .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
            if self.sorted {
                if let Some(p) = prev {
                    if p >= key {
                        return Err(Error::at(ErrorKind::UnsortedKeys, keys + i * kw));
                    }
                }
            }
            prev = Some(key);
        }
        self.leave(keys, packed, 0);
        Ok((keys, kw))
    }

    /// A NUL-terminated UTF-8 key at `at`; verified once per position.
    fn key(&mut self, at: usize) -> Result<&'a [u8]> {
        let buf = self.buf;
        let tail = buf
            .get(at..)
            .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, at))?;
        // Short keys (the usual case) are checked at each reference: bounded work,
        // cheaper than a memo lookup.
        let head = &tail[..tail.len().min(SHORT + 1)];
        if let Some(n) = head.iter().position(|&b| b == 0) {
            let bytes = &tail[..n];
            if !bytes.is_ascii() && core::str::from_utf8(bytes).is_err() {
                return Err(Error::at(ErrorKind::InvalidUtf8, at));
            }
            return Ok(bytes);
        }
        // Long keys are scanned and validated once, then remembered with their length.
        let packed = pack_type(FlexType::Key, BitWidth::W8);
        let entry = self.memo.slot(at, packed);
        if *entry != 0 {
            return Ok(&tail[..(*entry - 1) as usize]);
        }
        let bytes = key_at(buf, at)?;
        if core::str::from_utf8(bytes).is_err() {
            return Err(Error::at(ErrorKind::InvalidUtf8, at));
        }
        *self.memo.slot(at, packed) = bytes.len() as u64 + 1;
        Ok(bytes)
    }

    /// The size prefix of the sized value whose data starts at `data`.
    fn size(&self, data: usize, w: usize) -> Result<usize> {
        let at = data
            .checked_sub(w)
            .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, data))?;
        let len = read_uint(self.buf, at, w)?;
        usize::try_from(len)
            .ok()
            .filter(|&l| l <= self.buf.len())
            .ok_or_else(|| Error::at(ErrorKind::SizeOutOfBounds, at))
    }

    /// Checks that `count * unit` bytes from `at` are inside the buffer, without overflow.
    fn span(&self, at: usize, count: usize, unit: usize) -> Result<()> {
        count
            .checked_mul(unit)
            .and_then(|b| b.checked_add(at))
            .filter(|&end| end <= self.buf.len())
            .map(|_| ())
            .ok_or_else(|| Error::at(ErrorKind::SizeOutOfBounds, at))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{verify_with, VerifyOptions};
    use crate::error::ErrorKind;
    use crate::test_support::seeds;

    fn verdict(f: impl Fn() -> crate::Result<()>) -> Result<(), ErrorKind> {
        f().map_err(|e| e.kind().clone())
    }

    fn same(buf: &[u8], options: &VerifyOptions) {
        let new = verdict(|| verify_with(buf, options).map(|_| ()));
        let old = verdict(|| super::verify_with(buf, options));
        assert_eq!(new, old, "buffer {:02x?}", &buf[..buf.len().min(96)]);
    }

    /// Damages a copy of `seed` the way hostile bytes do: byte noise, bent
    /// offsets, changed type and width bits, truncation, copied runs.
    fn damage(seed: &[u8], rng: &mut u64) -> Vec<u8> {
        let mut next = || {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            *rng
        };
        let mut b = seed.to_vec();
        for _ in 0..1 + next() % 3 {
            let n = b.len();
            let at = next() as usize % n;
            match next() % 7 {
                0 => b[at] = next() as u8,
                1 => b[at] = b[at].wrapping_add(1 + next() as u8 % 8),
                2 => b[at] = b[at].wrapping_sub(1 + next() as u8 % 8),
                3 => b[at] ^= 1 << (next() % 8),
                4 => b[at] = (b[at] & 3) | ((next() as u8 % 40) << 2),
                5 => {
                    let from = next() as usize % n;
                    let len = (next() as usize % 8).min(n - at).min(n - from);
                    let run = b[from..from + len].to_vec();
                    b[at..at + len].copy_from_slice(&run);
                }
                _ => {
                    if b.len() > 3 {
                        b.remove(next() as usize % (b.len() - 2));
                    }
                }
            }
        }
        b
    }

    #[test]
    fn new_verifier_agrees_with_the_old_one_on_damaged_buffers() {
        let options = [
            VerifyOptions::default(),
            VerifyOptions {
                max_depth: 3,
                require_sorted_keys: false,
            },
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut rejected = 0;
        let mut total = 0;
        for seed in seeds() {
            if seed.len() < 3 {
                continue;
            }
            for o in &options {
                same(&seed, o);
            }
            for _ in 0..40 {
                let b = damage(&seed, &mut rng);
                same(&b, &options[0]);
                rejected += verify_with(&b, &options[0]).is_err() as usize;
                total += 1;
            }
        }
        // The mutations must exercise both verdicts.
        assert!(
            rejected > total / 10 && rejected < total,
            "{rejected} of {total}"
        );
    }
}
