//! Maps of generated message types, written without the value stack (see
//! [`MessageMap`]).

use super::{Builder, KeyVector, ShareFlags, Slot};
use crate::error::{BuilderError, Result};
use crate::types::{pack_type, padding, BitWidth, FlexType};

/// One field of a message being encoded: a scalar, or a value already
/// written (a string, a nested message, a vector) and where it is.
///
/// A `Field` that points into a buffer is only meaningful in that buffer:
/// [`Builder::message_map`] refuses one from before the builder's last
/// [`clear`](Builder::clear) (or from another builder).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    slot: Slot,
    generation: u64,
}

impl Field {
    /// Null (an absent optional field).
    pub const NULL: Field = Field::inline(0, FlexType::Null, BitWidth::W8);

    const fn inline(data: u64, ty: FlexType, width: BitWidth) -> Field {
        Field {
            slot: Slot::new(data, ty, width),
            generation: 0,
        }
    }

    /// A signed integer, at its minimal width.
    #[inline]
    pub const fn int(v: i64) -> Field {
        Field::inline(v as u64, FlexType::Int, BitWidth::of_i64(v))
    }

    /// An unsigned integer, at its minimal width.
    #[inline]
    pub const fn uint(v: u64) -> Field {
        Field::inline(v, FlexType::UInt, BitWidth::of_u64(v))
    }

    /// A 32-bit float (stored with at least 4 bytes).
    #[inline]
    pub fn float(v: f32) -> Field {
        Field::inline((v as f64).to_bits(), FlexType::Float, BitWidth::W32)
    }

    /// A 64-bit float (4 bytes when it survives a round trip through `f32`).
    #[inline]
    pub fn double(v: f64) -> Field {
        Field::inline(v.to_bits(), FlexType::Float, BitWidth::of_f64(v))
    }

    /// A boolean.
    #[inline]
    pub const fn bool(v: bool) -> Field {
        Field::inline(v as u64, FlexType::Bool, BitWidth::W8)
    }
}

/// The width of one message's map, found from its fields in wire order
/// (see [`MessageMap`]); `N` is the number of fields.
#[derive(Clone, Debug)]
pub struct MapWidths<const N: usize> {
    /// The widest scalar so far (at least the narrowest width).
    inline: BitWidth,
    /// The lowest position an offset field points at (`u64::MAX`: none yet).
    first: u64,
    /// The field index of that offset.
    first_at: usize,
    /// Where each offset field points (`u64::MAX` for scalars), for the
    /// exact search when the bounds from `first` do not decide.
    targets: [u64; N],
    /// The builder's generation every offset field must come from.
    generation: u64,
    /// An offset field came from another generation.
    stale: bool,
}

impl<const N: usize> MapWidths<N> {
    /// Widths for a map of `N` fields written by `b`.
    #[inline(always)]
    pub fn new(b: &Builder) -> MapWidths<N> {
        MapWidths {
            inline: BitWidth::W8,
            first: u64::MAX,
            first_at: 0,
            targets: [u64::MAX; N],
            generation: b.generation,
            stale: false,
        }
    }

    /// A field is a signed integer (a scalar only widens the map, so its
    /// index does not matter).
    #[inline(always)]
    pub fn int(&mut self, v: i64) {
        self.inline = self.inline.max(BitWidth::of_i64(v));
    }

    /// A field is an unsigned integer.
    #[inline(always)]
    pub fn uint(&mut self, v: u64) {
        self.inline = self.inline.max(BitWidth::of_u64(v));
    }

    /// A field is a 32-bit float.
    #[inline(always)]
    pub fn float(&mut self) {
        self.inline = self.inline.max(BitWidth::W32);
    }

    /// A field is a 64-bit float.
    #[inline(always)]
    pub fn double(&mut self, v: f64) {
        self.inline = self.inline.max(BitWidth::of_f64(v));
    }

    /// Field `i` is `f`, written before (or a scalar).
    #[inline(always)]
    pub fn field(&mut self, i: usize, f: &Field) {
        if f.slot.ty.is_inline() {
            self.inline = self.inline.max(f.slot.width);
        } else {
            self.child(i, f);
        }
    }

    /// Field `i` is `f`, a value stored behind an offset.
    #[inline(always)]
    pub fn child(&mut self, i: usize, f: &Field) {
        let at = f.slot.data;
        if at < self.first {
            self.first = at;
            self.first_at = i;
        }
        if let Some(t) = self.targets.get_mut(i) {
            *t = at;
        }
        self.stale |= f.generation != self.generation;
    }

    /// The map's element width when it is written at `buf_len` with its
    /// keys vector's offset and width at the minimum `floor`: what
    /// `create_vector` finds from the same values (the same bounds, then
    /// the exact search when they straddle a width).
    fn width(&self, buf_len: usize, floor: BitWidth) -> BitWidth {
        const PREFIX: usize = 3;
        let floor = floor.max(self.inline);
        if N == 0 {
            return floor;
        }
        match super::width_by_bounds(
            buf_len,
            floor,
            self.first_at + PREFIX,
            N - 1 + PREFIX,
            self.first,
        ) {
            Ok(w) => w,
            Err(w) => self.exact(buf_len, w),
        }
    }

    /// Field by field from `floor`, as `vector_width_exact` does.
    #[cold]
    fn exact(&self, buf_len: usize, floor: BitWidth) -> BitWidth {
        const PREFIX: usize = 3;
        let mut b = floor.bytes();
        let mut base = (buf_len + padding(buf_len, b)) as u64;
        for (j, &t) in self.targets.iter().enumerate() {
            if t != u64::MAX {
                super::widen_to_reach(buf_len, &mut b, &mut base, j + PREFIX, t);
            }
        }
        BitWidth::from_bytes(b as u64).unwrap_or(BitWidth::W64)
    }
}

/// A message's map being written, its elements and type bytes stored
/// straight into capacity reserved for them.
///
/// A generated encoder knows each field's type when it is generated, so it
/// does not need the general path (every value pushed onto the builder's
/// stack, then read back, its width worked out and its element and type
/// byte written by type in a loop). It writes a message in three steps,
/// with the same bytes as pushing each value and calling
/// [`Builder::end_map_with_keys`]:
///
/// 1. the fields stored behind an offset (strings, nested messages,
///    vectors) are written first, in wire order, each kept as a [`Field`]
///    ([`Builder::string_field`], [`FlexCoder::encode_field`](crate::FlexCoder::encode_field),
///    [`Builder::pop_field`]);
/// 2. a [`MapWidths`] is told every field in wire order and finds the
///    map's width (the widest scalar, and how far back the offsets reach);
/// 3. [`Builder::message_map`] writes the map's header and returns this,
///    which is given every field again, in the same order, then
///    [`finish`](Self::finish)ed or [`push`](Self::push)ed. A map given
///    fewer or more fields than it has is not written and fails the builder.
///
/// These are the building blocks of the code `flexbuf gen` writes; code
/// written by hand is better served by `start_map` and `end_map`.
///
/// ```
/// use flexbuf::typed::{Layout, MapWidths};
/// use flexbuf::{Builder, EncodeContext};
///
/// const LAYOUT: Layout = Layout::new(&["id", "name"], b"id\0name\0");
/// let mut b = Builder::new();
/// let mut cx = EncodeContext::default();
/// let keys = cx.key_vector_for(&mut b, 1, &LAYOUT).unwrap();
/// let name = b.string_field("Ada");
/// let mut w = MapWidths::<2>::new(&b);
/// w.int(7);
/// w.child(1, &name);
/// let mut m = b.message_map(&keys, &w).unwrap();
/// m.int(7);
/// m.child(&name);
/// m.push().unwrap();
/// let bytes = b.finish().unwrap().to_vec();
/// let map = flexbuf::Reader::new(&bytes).unwrap().as_map().unwrap();
/// assert_eq!(map.get("name").unwrap().as_str().unwrap(), "Ada");
/// assert_eq!(map.get("id").unwrap().as_i64().unwrap(), 7);
/// ```
pub struct MessageMap<'b> {
    b: &'b mut Builder,
    /// Next element.
    elem: *mut u8,
    /// Next type byte.
    ty: *mut u8,
    /// Fields still to come.
    left: usize,
    /// More fields were given than the map has.
    over: bool,
    /// Element width in bytes.
    bytes: usize,
    width: BitWidth,
    /// Absolute position of the next element (for offsets).
    at: u64,
    /// Absolute position of the first element.
    start: usize,
    /// One past the last type byte.
    end: usize,
}

impl Builder {
    /// Writes a string for a message field (see [`MessageMap`]): the
    /// bytes [`string`](Self::string) writes, kept as a [`Field`] instead
    /// of pushed.
    ///
    /// Not inlined: a message of many strings would repeat the writer at
    /// every field, and its code would then outgrow the instruction cache.
    #[inline(never)]
    pub fn string_field(&mut self, s: &str) -> Field {
        let n = s.len();
        // Most strings of a message are short and unshared: a one-byte
        // length (so no padding), the bytes and the NUL, in 16-byte chunks.
        if n <= 64 && !self.finished && !self.options.share.contains(ShareFlags::STRINGS) {
            let start = self.buf.len();
            self.buf.reserve(n + 2);
            // SAFETY: `n + 2` bytes are reserved past `start`, and exactly
            // those are written (the length, the `n` bytes by chunks that
            // together cover them and no more, the NUL), so every byte up
            // to the new length is initialized.
            unsafe {
                put_short_string(self.buf.as_mut_ptr().add(start), s.as_bytes());
                self.buf.set_len(start + n + 2);
            }
            return self.field_of(Slot::new(start as u64 + 1, FlexType::String, BitWidth::W8));
        }
        self.string_field_general(s)
    }

    /// [`string_field`](Self::string_field) for long strings, shared
    /// strings and a finished builder: in a function of its own, so that
    /// the short path saves few registers.
    #[cold]
    #[inline(never)]
    fn string_field_general(&mut self, s: &str) -> Field {
        match self.string_slot(s) {
            Some(slot) => self.field_of(slot),
            None => Field::NULL,
        }
    }

    /// Writes a list of strings for a message field (a `[string]`): the
    /// bytes of `start_vector`, [`strings`](Self::strings) and `end_vector`,
    /// kept as a [`Field`] instead of pushed.
    ///
    /// The vector is written by a loop of its own: every element is an
    /// offset back to a string written just before, in order, so the first
    /// string is the farthest target and the width follows from it and the
    /// last slot (the element-by-element search only when those two
    /// straddle a width), with no per-element type dispatch. With strings
    /// shared, on an empty list or on a closed builder it takes the general
    /// path.
    pub fn strings_field<S: AsRef<str>>(&mut self, list: &[S]) -> Result<Field> {
        let n = list.len();
        if n == 0 || self.finished || self.options.share.contains(ShareFlags::STRINGS) {
            self.start_vector();
            self.strings(list);
            self.end_vector()?;
            return self.pop_field();
        }
        self.check()?;
        let buf_len = self.buf.len();
        let floor = self.force_min_width.max(BitWidth::of_u64(n as u64));
        // Strings below 256 bytes take a one-byte length and no padding:
        // the block of strings is their lengths plus 2 each, and the first
        // string's bytes (at `buf_len + 1`) are the farthest target.
        let (block, longest) = list.iter().fold((0usize, 0usize), |(sum, max), s| {
            let len = s.as_ref().len();
            (sum.saturating_add(len + 2), max.max(len))
        });
        if let (true, Some(vec_at)) = (longest < 256, buf_len.checked_add(block)) {
            if let Ok(width) = super::width_by_bounds(vec_at, floor, 1, n, buf_len as u64 + 1) {
                if let Some(field) = self.short_strings_field(list, block, width) {
                    return Ok(field);
                }
            }
        }
        self.strings(list);
        let start = self.stack.len() - n;
        let buf_len = self.buf.len();
        let first = self.stack[start].data;
        let width = match super::width_by_bounds(buf_len, floor, 1, n, first) {
            Ok(w) => w,
            Err(w) => super::vector_width_exact::<1>(&self.stack[start..], buf_len, 1, w),
        };
        let bytes = width.bytes();
        let size_at = buf_len + padding(buf_len, bytes);
        let at = size_at + bytes;
        let end = at + n * bytes + n;
        // The size and each element are stored 8 bytes at a time: 8 bytes
        // of room past the end.
        self.buf.reserve(end + 8 - buf_len);
        let base = self.buf.as_mut_ptr();
        // SAFETY: `end + 8 - buf_len` bytes are reserved past `buf_len`.
        // The stores are: 8 zeros from `buf_len` (the padding, below
        // `size_at < buf_len + 8`), the size's 8 bytes from `size_at`, each
        // element's 8 bytes from `at + i * bytes` (`i < n`, so below `at +
        // n * bytes + 8 <= end + 8`) and each type byte below `end`. Every
        // byte up to `end` is written before the length is set: the padding
        // and the size by the first two stores, the elements in order (each
        // store's bytes past its element are overwritten by the next one or,
        // after the last, by the type bytes), then the `n` type bytes.
        unsafe {
            (base.add(buf_len) as *mut u64).write_unaligned(0);
            (base.add(size_at) as *mut u64).write_unaligned((n as u64).to_le());
            let (mut p, mut pos) = (base.add(at), at as u64);
            for slot in &self.stack[start..] {
                (p as *mut u64).write_unaligned(pos.wrapping_sub(slot.data).to_le());
                p = p.add(bytes);
                pos += bytes as u64;
            }
            for slot in &self.stack[start..] {
                *p = pack_type(FlexType::String, slot.width);
                p = p.add(1);
            }
            self.buf.set_len(end);
        }
        self.stack.truncate(start);
        Ok(self.field_of(Slot::new(at as u64, FlexType::Vector, width)))
    }

    /// [`strings_field`](Self::strings_field) when every string is below
    /// 256 bytes and the vector's `width` is known: each string (its length
    /// byte, its bytes and its NUL, `block` bytes in all) and its element
    /// are written in one loop, with nothing on the value stack.
    ///
    /// `None`, with nothing written, when the strings are not the ones that
    /// were measured (an `AsRef` that answers differently from one call to
    /// the next): every store stays inside the measured block.
    fn short_strings_field<S: AsRef<str>>(
        &mut self,
        list: &[S],
        block: usize,
        width: BitWidth,
    ) -> Option<Field> {
        let n = list.len();
        let buf_len = self.buf.len();
        let bytes = width.bytes();
        let vec_at = buf_len + block;
        let size_at = vec_at + padding(vec_at, bytes);
        let at = size_at + bytes;
        let end = at + n * bytes + n;
        self.buf.reserve(end + 8 - buf_len);
        // SAFETY: `end + 8 - buf_len` bytes are reserved past `buf_len`.
        // The strings fill `buf_len..vec_at` exactly: each is written within
        // its own bytes (up to 64 by `copy_short`'s chunks, which stay inside
        // them), only while the bytes used so far, its own included, stay
        // within `block`, and the length is set only when they add up to
        // `block` (otherwise nothing is kept: the length is unchanged). Then,
        // from `vec_at`: 8 zeros (the padding, `size_at < vec_at + 8`), the
        // size's 8 bytes at `size_at`, each element's 8 bytes at `at + i *
        // bytes` (below `end + 8`), written in order so each store's excess
        // is overwritten by the next element or, after the last, by the `n`
        // type bytes, which end at `end`. Every byte below `end` is written
        // before the length is set.
        unsafe {
            let base = self.buf.as_mut_ptr();
            (base.add(vec_at) as *mut u64).write_unaligned(0);
            (base.add(size_at) as *mut u64).write_unaligned((n as u64).to_le());
            let mut p = base.add(buf_len);
            let (mut e, mut pos) = (base.add(at), at as u64);
            let mut loc = buf_len as u64 + 1;
            let mut used = 0usize;
            for s in list {
                let data = s.as_ref().as_bytes();
                let len = data.len();
                used += len + 2;
                if (len > 255) | (used > block) {
                    return None;
                }
                p = put_short_string(p, data);
                (e as *mut u64).write_unaligned((pos - loc).to_le());
                loc += len as u64 + 2;
                e = e.add(bytes);
                pos += bytes as u64;
            }
            if used != block {
                return None;
            }
            core::ptr::write_bytes(e, pack_type(FlexType::String, BitWidth::W8), n);
            self.buf.set_len(end);
        }
        Some(self.field_of(Slot::new(at as u64, FlexType::Vector, width)))
    }

    /// Writes a blob for a message field, as [`blob`](Self::blob) would.
    #[inline(never)]
    pub fn blob_field(&mut self, data: &[u8]) -> Field {
        if self.closed() {
            return Field::NULL;
        }
        let slot = self.write_blob_slot(data, false, FlexType::Blob);
        self.field_of(slot)
    }

    #[inline(always)]
    fn field_of(&self, slot: Slot) -> Field {
        Field {
            slot,
            generation: self.generation,
        }
    }

    /// Takes back the value pushed last (a vector or map just ended, a
    /// message encoded through the stack) as a [`Field`].
    ///
    /// Fails when nothing was pushed since the innermost open vector or map
    /// started (or at all).
    pub fn pop_field(&mut self) -> Result<Field> {
        self.check()?;
        let floor = match self.opens.last() {
            Some(super::Open::Vector(s) | super::Open::Map(s)) => *s,
            None => 0,
        };
        if self.stack.len() <= floor {
            return Err(self.fail(BuilderError::NoValue.into()));
        }
        Ok(self.pop_last())
    }

    /// Pushes `f`, as the call that made it would have.
    ///
    /// Fails (and fails the builder) when `f` points into a buffer from
    /// before the last [`clear`](Self::clear) or into another builder's.
    #[inline]
    pub fn push_field(&mut self, f: Field) -> Result<()> {
        if !f.slot.ty.is_inline() && f.generation != self.generation {
            return Err(self.fail(BuilderError::StaleValue.into()));
        }
        if !self.closed() {
            self.stack.push(f.slot);
        }
        Ok(())
    }

    /// The top slot as a field.
    #[inline(always)]
    fn pop_last(&mut self) -> Field {
        match self.stack.pop() {
            Some(slot) => self.field_of(slot),
            None => Field::NULL,
        }
    }

    /// Starts the map of a message whose `N` fields `widths` was told, with
    /// the keys vector `keys` (see [`MessageMap`]).
    ///
    /// Fails when the builder has failed or finished, when `keys` or a
    /// field of `widths` is from before the last [`clear`](Self::clear), or
    /// when `keys` does not hold `N` keys.
    #[inline(always)]
    pub fn message_map<const N: usize>(
        &mut self,
        keys: &KeyVector,
        widths: &MapWidths<N>,
    ) -> Result<MessageMap<'_>> {
        self.check()?;
        if self.finished {
            return Err(self.fail(BuilderError::Finished.into()));
        }
        if keys.generation != self.generation
            || widths.generation != self.generation
            || widths.stale
        {
            return Err(self.fail(BuilderError::StaleValue.into()));
        }
        if keys.len != N {
            return Err(self.fail(BuilderError::MapEntryNotKey(N.min(keys.len)).into()));
        }
        let buf_len = self.buf.len();
        let floor = self.force_min_width.max(BitWidth::of_u64(N as u64));
        let floor = keys.slot().keys_field_width(buf_len, floor);
        let width = widths.width(buf_len, floor);
        let bytes = width.bytes();
        let fields_at = buf_len + padding(buf_len, bytes);
        let start = fields_at + 3 * bytes;
        let end = start + N * bytes + N;
        // The header is stored 8 bytes at a time: 8 bytes of room past the end.
        self.buf.reserve(end + 8 - buf_len);
        let base = self.buf.as_mut_ptr();
        // SAFETY: `end + 8 - buf_len` bytes are reserved past `buf_len`, so
        // every store below (the padding's 8 zeros from `buf_len`, three
        // 8-byte header stores from `fields_at`, at most `start + 8`) stays
        // inside the allocation. Nothing past `buf_len` is part of the
        // vector until `finish` sets the length, after every byte up to
        // `end` was written.
        unsafe {
            (base.add(buf_len) as *mut u64).write_unaligned(0);
            let keys_offset = (fields_at as u64).wrapping_sub(keys.at);
            let p = base.add(fields_at);
            (p as *mut u64).write_unaligned(keys_offset.to_le());
            (p.add(bytes) as *mut u64).write_unaligned(keys.width.to_le());
            (p.add(2 * bytes) as *mut u64).write_unaligned((N as u64).to_le());
        }
        // SAFETY: `start` and `start + N * bytes` are at most `end`, inside
        // the reservation.
        let (elem, ty) = unsafe { (base.add(start), base.add(start + N * bytes)) };
        Ok(MessageMap {
            b: self,
            elem,
            ty,
            left: N,
            over: false,
            bytes,
            width,
            at: start as u64,
            start,
            end,
        })
    }
}

impl<'b> MessageMap<'b> {
    /// Stores the low `bytes` bytes of `v` as the next element and `packed`
    /// as its type byte.
    #[inline(always)]
    fn put(&mut self, v: u64, packed: u8) {
        if self.left == 0 {
            self.over = true;
            return;
        }
        // SAFETY: fewer than `N` fields were stored (`left` counts down from
        // `N`), so this element lies in `start..start + N * bytes` and this
        // type byte in `start + N * bytes..end`, both reserved by
        // `message_map`; `self` borrows the builder mutably, so the buffer
        // has not moved since.
        unsafe {
            match self.bytes {
                1 => *self.elem = v as u8,
                2 => (self.elem as *mut u16).write_unaligned((v as u16).to_le()),
                4 => (self.elem as *mut u32).write_unaligned((v as u32).to_le()),
                _ => (self.elem as *mut u64).write_unaligned(v.to_le()),
            }
            *self.ty = packed;
            self.elem = self.elem.add(self.bytes);
            self.ty = self.ty.add(1);
        }
        self.at += self.bytes as u64;
        self.left -= 1;
    }

    /// The next field is a signed integer.
    #[inline(always)]
    pub fn int(&mut self, v: i64) {
        self.put(v as u64, pack_type(FlexType::Int, self.width));
    }

    /// The next field is an unsigned integer.
    #[inline(always)]
    pub fn uint(&mut self, v: u64) {
        self.put(v, pack_type(FlexType::UInt, self.width));
    }

    /// The next field is a boolean.
    #[inline(always)]
    pub fn bool(&mut self, v: bool) {
        self.put(v as u64, pack_type(FlexType::Bool, self.width));
    }

    /// The next field is null.
    #[inline(always)]
    pub fn null(&mut self) {
        self.put(0, pack_type(FlexType::Null, self.width));
    }

    /// The next field is a 32-bit float.
    #[inline(always)]
    pub fn float(&mut self, v: f32) {
        self.double_bits((v as f64).to_bits());
    }

    /// The next field is a 64-bit float.
    #[inline(always)]
    pub fn double(&mut self, v: f64) {
        self.double_bits(v.to_bits());
    }

    #[inline(always)]
    fn double_bits(&mut self, bits: u64) {
        // A map holding a float is at least 4 bytes wide.
        let v = if self.bytes == 8 {
            bits
        } else {
            super::f32_bits(bits)
        };
        self.put(v, pack_type(FlexType::Float, self.width));
    }

    /// The next field is `f`, written before (or a scalar).
    #[inline(always)]
    pub fn field(&mut self, f: &Field) {
        if f.slot.ty.is_inline() {
            let v = match f.slot.ty {
                FlexType::Float if self.bytes != 8 => super::f32_bits(f.slot.data),
                _ => f.slot.data,
            };
            self.put(v, pack_type(f.slot.ty, self.width));
        } else {
            self.child(f);
        }
    }

    /// The next field is `f`, a value stored behind an offset.
    #[inline(always)]
    pub fn child(&mut self, f: &Field) {
        let offset = self.at.wrapping_sub(f.slot.data);
        self.put(offset, pack_type(f.slot.ty, f.slot.width));
    }

    /// Ends the map and returns it as a [`Field`] of its parent.
    ///
    /// Fails (and fails the builder) when the map was given another number
    /// of fields than it has; nothing of it is then part of the buffer.
    #[inline]
    pub fn finish(self) -> Result<Field> {
        self.end().map(|(_, f)| f)
    }

    /// Ends the map and pushes it, as [`Builder::end_map_with_keys`] does.
    #[inline]
    pub fn push(self) -> Result<()> {
        let (b, f) = self.end()?;
        b.stack.push(f.slot);
        Ok(())
    }

    #[inline(always)]
    fn end(self) -> Result<(&'b mut Builder, Field)> {
        let b = self.b;
        if self.left != 0 || self.over {
            let n = (self.end - self.start) / (self.bytes + 1);
            let given = if self.over { n + 1 } else { n - self.left };
            return Err(b.fail(BuilderError::FieldCount(n, given).into()));
        }
        // SAFETY: every byte from the old length to `end` was written: the
        // padding and header by `message_map`, the `N` elements and type
        // bytes by `put`.
        unsafe { b.buf.set_len(self.end) };
        let f = Field {
            slot: Slot::new(self.start as u64, FlexType::Map, self.width),
            generation: b.generation,
        };
        Ok((b, f))
    }
}

/// Writes `data` (below 256 bytes) at `p` as a string with a one-byte
/// length: the length, the bytes (up to 64 by `word::copy_short`'s chunks,
/// longer ones by one copy) and the NUL. Returns the position past the NUL.
///
/// # Safety
/// `p..p + data.len() + 2` must be writable and not overlap `data`.
#[inline(always)]
unsafe fn put_short_string(p: *mut u8, data: &[u8]) -> *mut u8 {
    let len = data.len();
    debug_assert!(len < 256);
    *p = len as u8;
    let dst = p.add(1);
    if len > 64 {
        core::ptr::copy_nonoverlapping(data.as_ptr(), dst, len);
    } else {
        crate::word::copy_short(data, dst);
    }
    *dst.add(len) = 0;
    dst.add(len + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{BuilderOptions, ShareFlags};
    use crate::test_support::Rng;

    /// One field of a random message, as both writers are given it.
    #[derive(Clone, Debug)]
    enum Value {
        Int(i64),
        UInt(u64),
        Float(f32),
        Double(f64),
        Bool(bool),
        Null,
        /// A string written as the field's child.
        Text(String),
        /// A vector of `n` ints, written through the stack and taken back.
        Ints(Vec<i64>),
    }

    fn random_value(rng: &mut Rng) -> Value {
        let widths = [0x7f, 0x7fff, 0x7fff_ffff, i64::MAX];
        match rng.below(8) {
            0 => {
                let v = (rng.bits() as i64) % widths[rng.below(4)].max(1);
                Value::Int(v)
            }
            1 => Value::UInt(rng.bits() >> (8 * rng.below(8))),
            2 => Value::Float(rng.bits() as u32 as f32 / 7.0),
            3 if rng.below(2) == 0 => Value::Double(rng.below(1000) as f64 * 0.5),
            3 => Value::Double(rng.bits() as f64 / 3.0),
            4 => Value::Bool(rng.below(2) == 0),
            5 => Value::Null,
            6 => {
                let len = [0, 5, 40, 300][rng.below(4)] + rng.below(5);
                Value::Text("x".repeat(len))
            }
            _ => Value::Ints((0..rng.below(4)).map(|i| i as i64 * 1000).collect()),
        }
    }

    /// Writes `v`'s child (if any) into `b` and returns its field.
    fn child(b: &mut Builder, v: &Value) -> Field {
        match v {
            Value::Int(i) => Field::int(*i),
            Value::UInt(u) => Field::uint(*u),
            Value::Float(f) => Field::float(*f),
            Value::Double(d) => Field::double(*d),
            Value::Bool(x) => Field::bool(*x),
            Value::Null => Field::NULL,
            Value::Text(s) => b.string_field(s),
            Value::Ints(list) => {
                b.start_vector();
                for i in list {
                    b.int(*i);
                }
                b.end_vector().unwrap();
                b.pop_field().unwrap()
            }
        }
    }

    /// How a test map is laid out around its fields.
    struct Shape {
        options: BuilderOptions,
        /// The minimum width forced before the map.
        min: BitWidth,
        /// Bytes written before anything else.
        filler: usize,
        /// The keys vector is written after the children (generated code
        /// writes it before them, so its offset is the longest).
        keys_last: bool,
    }

    /// The bytes of a buffer holding `filler` bytes, then a map of `values`
    /// (each child preceded by a blob of `gaps[i]` bytes), written by the
    /// stack (`direct` false) or by `MessageMap`, with scalars given by
    /// their own calls (`typed`) or as `Field`s.
    fn write<const N: usize>(
        shape: &Shape,
        values: &[Value; N],
        gaps: &[usize; N],
        direct: bool,
        typed: bool,
    ) -> Vec<u8> {
        let mut b = Builder::with_options(shape.options.clone());
        b.start_vector();
        b.blob(&vec![7; shape.filler]);
        let names: Vec<String> = (0..N).map(|i| format!("k{i:03}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let mut keys = None;
        if !shape.keys_last {
            keys = Some(b.key_vector(&names).unwrap());
        }
        b.force_min_width(shape.min);
        let mut fields = Vec::new();
        for (v, gap) in values.iter().zip(gaps) {
            b.blob_field(&vec![1; *gap]);
            fields.push(child(&mut b, v));
        }
        let keys = match keys {
            Some(k) => k,
            None => b.key_vector(&names).unwrap(),
        };
        if direct {
            let mut w = MapWidths::<N>::new(&b);
            for (i, (v, f)) in values.iter().zip(&fields).enumerate() {
                match v {
                    Value::Int(x) if typed => w.int(*x),
                    Value::UInt(x) if typed => w.uint(*x),
                    Value::Float(_) if typed => w.float(),
                    Value::Double(x) if typed => w.double(*x),
                    Value::Bool(_) | Value::Null if typed => {}
                    Value::Text(_) | Value::Ints(_) if typed => w.child(i, f),
                    _ => w.field(i, f),
                }
            }
            let mut m = b.message_map(&keys, &w).unwrap();
            for (v, f) in values.iter().zip(&fields) {
                match v {
                    Value::Int(x) if typed => m.int(*x),
                    Value::UInt(x) if typed => m.uint(*x),
                    Value::Float(x) if typed => m.float(*x),
                    Value::Double(x) if typed => m.double(*x),
                    Value::Bool(x) if typed => m.bool(*x),
                    Value::Null if typed => m.null(),
                    Value::Text(_) | Value::Ints(_) if typed => m.child(f),
                    _ => m.field(f),
                }
            }
            m.push().unwrap();
        } else {
            b.start_map();
            for f in &fields {
                b.push_field(*f).unwrap();
            }
            b.end_map_with_keys(&keys).unwrap();
        }
        b.end_vector().unwrap();
        b.finish().unwrap().to_vec()
    }

    fn agree<const N: usize>(rng: &mut Rng, rounds: usize) {
        for round in 0..rounds {
            let values: [Value; N] = core::array::from_fn(|_| random_value(rng));
            // Gaps and fillers around the 1- and 2-byte offset limits.
            let near = [0, 1, 3, 60, 120, 250, 255, 300, 65_000, 65_530];
            let gaps: [usize; N] = core::array::from_fn(|_| {
                if rng.below(4) == 0 {
                    near[rng.below(near.len())] + rng.below(8)
                } else {
                    rng.below(3)
                }
            });
            let shape = Shape {
                options: BuilderOptions {
                    share: [ShareFlags::KEYS, ShareFlags::ALL][rng.below(2)],
                    dedup_key_vectors: rng.below(2) == 0,
                    ..BuilderOptions::default()
                },
                min: [BitWidth::W8, BitWidth::W8, BitWidth::W16, BitWidth::W32][rng.below(4)],
                filler: near[rng.below(near.len())] + rng.below(16),
                keys_last: rng.below(2) == 0,
            };
            let stack = write(&shape, &values, &gaps, false, false);
            for typed in [false, true] {
                let direct = write(&shape, &values, &gaps, true, typed);
                assert!(
                    stack == direct,
                    "N = {N}, round {round}, typed {typed}: {values:?}, gaps {gaps:?}, filler {}, min {:?}",
                    shape.filler, shape.min
                );
            }
        }
    }

    #[test]
    fn message_maps_write_the_bytes_of_the_stack_path() {
        let mut rng = Rng::new(0x5eed_f3e5_5a6e);
        agree::<0>(&mut rng, 20);
        agree::<1>(&mut rng, 400);
        agree::<2>(&mut rng, 400);
        agree::<3>(&mut rng, 400);
        agree::<7>(&mut rng, 200);
        agree::<31>(&mut rng, 60);
        agree::<80>(&mut rng, 20);
        agree::<300>(&mut rng, 4);
    }

    #[test]
    fn the_exact_search_decides_where_the_bounds_straddle_a_width() {
        // With strings shared, fields 0 and 1 point at the same string: at
        // some distances field 0's offset fits in one byte and field 1's
        // (one slot later) does not, while the bound from the last slot
        // cannot decide (the keys vector, written last, is close).
        let shape = Shape {
            options: BuilderOptions {
                share: ShareFlags::ALL,
                ..BuilderOptions::default()
            },
            min: BitWidth::W8,
            filler: 0,
            keys_last: true,
        };
        let mut widths = std::collections::BTreeSet::new();
        for gap in 220..300 {
            let values = [
                Value::Text("a".into()),
                Value::Text("a".into()),
                Value::Int(1),
            ];
            let gaps = [0, 0, gap];
            let stack = write(&shape, &values, &gaps, false, false);
            let direct = write(&shape, &values, &gaps, true, true);
            assert_eq!(stack, direct, "gap {gap}");
            let root = crate::Reader::new(&stack).unwrap().as_vector().unwrap();
            widths.insert(
                root.get(1)
                    .unwrap()
                    .as_map()
                    .unwrap()
                    .values()
                    .element_width(),
            );
        }
        assert!(widths.len() > 1, "the sweep crosses the one-byte limit");
    }

    #[test]
    fn string_fields_write_what_strings_write_at_every_length() {
        for share in [ShareFlags::KEYS, ShareFlags::ALL] {
            for prefix in 0..9 {
                for n in 0..=300 {
                    let text: String = (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect();
                    let build = |direct: bool| {
                        let mut b = Builder::with_share(share);
                        b.start_vector();
                        b.blob(&vec![9; prefix]);
                        if direct {
                            let f = b.string_field(&text);
                            b.push_field(f).unwrap();
                        } else {
                            b.string(&text);
                        }
                        b.end_vector().unwrap();
                        b.finish().unwrap().to_vec()
                    };
                    let bytes = build(true);
                    assert_eq!(
                        bytes,
                        build(false),
                        "{share:?}, prefix {prefix}, length {n}"
                    );
                    // Both copied the text, not just the same bytes.
                    let root = crate::verify(&bytes).unwrap().root();
                    let v = root.as_vector().unwrap();
                    assert_eq!(v.get(1).unwrap().as_str().unwrap(), text);
                }
            }
        }
    }

    #[test]
    fn string_list_fields_write_what_the_stack_path_writes() {
        let mut rng = Rng::new(0x5771_4e65);
        for round in 0..600 {
            // Two rounds in three keep every string below 256 bytes (the
            // path that writes strings and elements in one loop); one in
            // three has only strings of 200 to 255 bytes, enough of them to
            // need offsets of 4 bytes.
            let class = round % 3;
            let n = [0, 1, 2, 3, 40, 300, 600][rng.below(7)] + rng.below(3);
            let list: Vec<String> = (0..n)
                .map(|i| {
                    let len = match class {
                        0 => [0, 3, 20, 70, 300][rng.below(5)] + rng.below(4),
                        1 => [0, 1, 3, 20, 70, 252][rng.below(6)] + rng.below(4),
                        _ => 200 + rng.below(56),
                    };
                    (0..len)
                        .map(|j| (b'a' + ((i + j) % 26) as u8) as char)
                        .collect()
                })
                .collect();
            let filler = [0, 1, 200, 255, 300, 65_000, 65_530][rng.below(7)] + rng.below(9);
            let min = [BitWidth::W8, BitWidth::W8, BitWidth::W16, BitWidth::W32][rng.below(4)];
            let share = [ShareFlags::KEYS, ShareFlags::KEYS, ShareFlags::ALL][rng.below(3)];
            let build = |direct: bool| {
                let mut b = Builder::with_share(share);
                b.start_vector();
                b.blob(&vec![5; filler]);
                b.force_min_width(min);
                if direct {
                    let f = b.strings_field(&list).unwrap();
                    b.push_field(f).unwrap();
                } else {
                    b.start_vector();
                    b.strings(&list);
                    b.end_vector().unwrap();
                }
                b.int(7);
                b.end_vector().unwrap();
                b.finish().unwrap().to_vec()
            };
            let bytes = build(true);
            assert!(
                bytes == build(false),
                "round {round}: {n} strings, filler {filler}, min {min:?}, {share:?}"
            );
            let root = crate::verify(&bytes).unwrap().root().as_vector().unwrap();
            let v = root.get(1).unwrap().as_vector().unwrap();
            assert_eq!(v.len(), n);
            for (i, s) in list.iter().enumerate() {
                assert_eq!(v.get(i).unwrap().as_str().unwrap(), s);
            }
        }
    }

    /// An `AsRef<str>` that answers differently on every call (longer,
    /// then shorter) cannot make the one-loop path write outside what it
    /// measured: the list is written by the stack path from what each call
    /// returns, and the buffer verifies.
    #[test]
    fn a_string_list_whose_strings_change_between_calls_stays_in_bounds() {
        struct Fickle(core::cell::Cell<usize>, &'static [&'static str]);
        impl AsRef<str> for Fickle {
            fn as_ref(&self) -> &str {
                let i = self.0.get();
                self.0.set(i + 1);
                self.1[i % self.1.len()]
            }
        }
        let cases: [&'static [&'static str]; 3] =
            [&["ab", "x"], &["a", "longer string than before"], &["ok"]];
        for answers in cases {
            let list: Vec<Fickle> = (0..50)
                .map(|_| Fickle(core::cell::Cell::new(0), answers))
                .collect();
            let mut b = Builder::new();
            b.start_vector();
            let f = b.strings_field(&list).unwrap();
            b.push_field(f).unwrap();
            b.end_vector().unwrap();
            let bytes = b.finish().unwrap().to_vec();
            let root = crate::verify(&bytes).unwrap().root().as_vector().unwrap();
            assert_eq!(root.get(0).unwrap().as_vector().unwrap().len(), 50);
        }
    }

    #[test]
    fn a_string_list_field_of_a_failed_or_finished_builder_is_an_error() {
        let mut b = Builder::new();
        b.int(1);
        b.finish().unwrap();
        assert!(b.strings_field(&["a"]).is_err());
        let mut b = Builder::new();
        b.start_vector();
        b.key("a\0b");
        assert!(b.strings_field(&["a"]).is_err());
    }

    #[test]
    fn a_map_given_the_wrong_number_of_fields_is_not_written() {
        for given in [1usize, 3] {
            let mut b = Builder::new();
            let keys = b.key_vector(&["a", "b"]).unwrap();
            let len = b.len();
            let mut w = MapWidths::<2>::new(&b);
            w.int(1);
            w.int(2);
            let mut m = b.message_map(&keys, &w).unwrap();
            for i in 0..given {
                m.int(i as i64);
            }
            let e = m.push().unwrap_err();
            assert_eq!(
                e.kind(),
                &crate::ErrorKind::Builder(BuilderError::FieldCount(2, given))
            );
            assert_eq!(b.len(), len, "nothing of the map is in the buffer");
            assert!(b.finish().is_err(), "the builder stays failed");
        }
    }

    #[test]
    fn fields_and_keys_from_before_a_clear_are_refused() {
        let mut b = Builder::new();
        let old = b.string_field("old");
        let keys = b.key_vector(&["a"]).unwrap();
        b.clear();
        let fresh_keys = b.key_vector(&["a"]).unwrap();
        let mut w = MapWidths::<1>::new(&b);
        w.child(0, &old);
        let e = b.message_map(&fresh_keys, &w).err().unwrap();
        assert_eq!(
            e.kind(),
            &crate::ErrorKind::Builder(BuilderError::StaleValue)
        );

        b.clear();
        let mut w = MapWidths::<1>::new(&b);
        w.int(1);
        assert!(b.message_map(&keys, &w).is_err(), "stale keys vector");

        b.clear();
        let e = b.push_field(old).unwrap_err();
        assert_eq!(
            e.kind(),
            &crate::ErrorKind::Builder(BuilderError::StaleValue)
        );
        // Scalars belong to no buffer.
        b.clear();
        b.push_field(Field::int(5)).unwrap();
        assert_eq!(
            crate::Reader::new(b.finish().unwrap())
                .unwrap()
                .as_i64()
                .unwrap(),
            5
        );
    }

    #[test]
    fn pop_field_takes_only_from_the_innermost_open_container() {
        let mut b = Builder::new();
        b.start_vector();
        b.int(1);
        b.start_vector();
        let e = b.pop_field().unwrap_err();
        assert_eq!(e.kind(), &crate::ErrorKind::Builder(BuilderError::NoValue));
        let mut empty = Builder::new();
        assert!(empty.pop_field().is_err());
    }
}
