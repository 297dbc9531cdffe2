//! Zero-copy reading of FlexBuffers.
//!
//! [`Reader::new`] reads unverified bytes: every access is bounds-checked and
//! returns an error instead of panicking. [`crate::verify`] returns readers
//! marked trusted, which additionally skip UTF-8 validation of strings and keys
//! (the verifier has checked them once).

use crate::error::{Error, ErrorKind, Result};
use crate::scalar::SliceElement;
use crate::types::{unpack_type, BitWidth, FlexType};

/// A view of one value inside a buffer.
///
/// Cheap to copy; it borrows the buffer and never copies data out of it.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    buf: &'a [u8],
    /// Where the value's slot is: the inline scalar, or the offset to the data.
    pos: usize,
    /// Byte width of that slot.
    parent_width: u8,
    /// Byte width from the packed type (element width, size width or scalar width).
    width: u8,
    ty: FlexType,
    trusted: bool,
}

impl core::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reader")
            .field("type", &self.ty)
            .field("offset", &self.pos)
            .field("width", &self.width)
            .finish()
    }
}

/// The bits a `w`-byte read keeps, by `w` (0 to 8).
const WIDTH_MASK: [u64; 9] = {
    let mut m = [0u64; 9];
    let mut w = 1;
    while w < 8 {
        m[w] = (1u64 << (8 * w)) - 1;
        w += 1;
    }
    m[8] = u64::MAX;
    m
};

/// The shift that sign-extends a `w`-byte read, by `w` (0 to 8; 0 for none).
const SIGN_SHIFT: [u32; 9] = [0, 56, 48, 40, 32, 24, 16, 8, 0];

/// Reads the `width`-byte little-endian unsigned integer at `pos`.
///
/// One 8-byte load and a mask when 8 bytes are available (every slot but the
/// last few of a buffer), so the width costs no branch.
#[inline(always)]
pub fn read_uint(buf: &[u8], pos: usize, width: usize) -> Result<u64> {
    // SAFETY: the bound is the buffer's own.
    unsafe { read_uint_below(buf, word_end(buf), pos, width) }
}

/// One past the last position a word (8 bytes) can be read from in `buf`
/// (0 when it is shorter than a word).
#[inline(always)]
pub(crate) fn word_end(buf: &[u8]) -> usize {
    buf.len().saturating_sub(7)
}

/// [`read_uint`] with [`word_end`] of `buf` computed once by a caller that
/// reads many fields of one buffer (the verifier).
///
/// # Safety
/// `end` is at most `word_end(buf)`.
#[inline(always)]
pub(crate) unsafe fn read_uint_below(
    buf: &[u8],
    end: usize,
    pos: usize,
    width: usize,
) -> Result<u64> {
    // One comparison: below `end` a whole word can be read.
    if pos < end {
        // SAFETY: `pos < end <= len - 7`, so `pos + 8 <= len`.
        let v = u64::from_le(unsafe { (buf.as_ptr().add(pos) as *const u64).read_unaligned() });
        // The mask from a table, without a branch: widths above 8 keep all
        // 8 bytes, and width 0 keeps none.
        return Ok(v & WIDTH_MASK[width.min(8)]);
    }
    read_uint_tail(buf, pos, width)
}

/// [`read_uint`] near the end of the buffer.
#[cold]
fn read_uint_tail(buf: &[u8], pos: usize, width: usize) -> Result<u64> {
    let end = pos
        .checked_add(width)
        .ok_or_else(|| Error::at(ErrorKind::Truncated, pos))?;
    let b = buf
        .get(pos..end)
        .ok_or_else(|| Error::at(ErrorKind::Truncated, pos))?;
    // Fewer than 8 bytes remain here, so `b` is shorter than a word.
    let mut word = [0u8; 8];
    word[..b.len()].copy_from_slice(b);
    Ok(u64::from_le_bytes(word))
}

/// The little-endian signed integer of `width` bytes (1, 2, 4 or 8) at `pos`.
#[inline(always)]
pub fn read_int(buf: &[u8], pos: usize, width: usize) -> Result<i64> {
    let u = read_uint(buf, pos, width)?;
    // Sign-extend from the top byte read, without a branch on the width.
    let shift = SIGN_SHIFT[width.min(8)];
    Ok(((u << shift) as i64) >> shift)
}

/// The little-endian float of `width` bytes (4 or 8) at `pos`.
// Always inlined where optimised (a call per value costs more than the read);
// a hint in debug builds, where inlining grows the stack frames of
// recursive callers (a 1,000-deep `inspect` overflowed).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn read_float(buf: &[u8], pos: usize, width: usize) -> Result<f64> {
    let u = read_uint(buf, pos, width)?;
    match width {
        4 => Ok(f32::from_bits(u as u32) as f64),
        8 => Ok(f64::from_bits(u)),
        // The reference never writes 1- or 2-byte floats; reading one is an error, not a guess.
        w => Err(Error::at(ErrorKind::BadWidth(w as u64), pos)),
    }
}

/// Position reached by following the offset stored at `pos` (offsets point backwards).
#[inline(always)]
pub fn follow(buf: &[u8], pos: usize, width: usize) -> Result<usize> {
    // SAFETY: the bound is the buffer's own.
    unsafe { follow_below(buf, word_end(buf), pos, width) }
}

/// [`follow`], reading the offset with [`read_uint_below`].
///
/// # Safety
/// `end` is at most `word_end(buf)`.
#[inline(always)]
pub(crate) unsafe fn follow_below(
    buf: &[u8],
    end: usize,
    pos: usize,
    width: usize,
) -> Result<usize> {
    // SAFETY: the caller's contract.
    let off = unsafe { read_uint_below(buf, end, pos, width) }?;
    if off > pos as u64 {
        return Err(Error::at(ErrorKind::OffsetOutOfBounds, pos));
    }
    Ok(pos - off as usize)
}

/// The bytes of the string or blob whose offset is in the `slot_width`-byte
/// slot at `pos`, with a `size_width`-byte length before them.
#[inline(always)]
fn sized_at(buf: &[u8], pos: usize, slot_width: usize, size_width: usize) -> Result<&[u8]> {
    let data = follow(buf, pos, slot_width)?;
    let len_at = data
        .checked_sub(size_width)
        .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, pos))?;
    let len = read_uint(buf, len_at, size_width)?;
    let end = (data as u64)
        .checked_add(len)
        .filter(|&e| e <= buf.len() as u64)
        .ok_or_else(|| Error::at(ErrorKind::SizeOutOfBounds, len_at))?;
    Ok(&buf[data..end as usize])
}

impl<'a> Reader<'a> {
    /// The root value of a finished buffer, for checked reads of untrusted bytes.
    pub fn new(buf: &'a [u8]) -> Result<Reader<'a>> {
        Self::root(buf, false)
    }

    /// A checked reader for the value whose slot is at `pos`, `parent_width`
    /// bytes wide, with packed type `packed`: how a value can be addressed
    /// from outside (the C ABI keeps these three numbers).
    pub fn at(buf: &'a [u8], pos: usize, parent_width: u8, packed: u8) -> Result<Reader<'a>> {
        if BitWidth::from_bytes(parent_width as u64).is_none() {
            return Err(Error::at(ErrorKind::BadWidth(parent_width as u64), pos));
        }
        let end = pos.checked_add(parent_width as usize);
        if end.is_none_or(|e| e > buf.len()) {
            return Err(Error::at(ErrorKind::Truncated, pos));
        }
        Self::from_packed(buf, pos, parent_width, packed, false).map_err(|e| e.with_offset(pos))
    }

    /// The packed type byte of this value (type and width).
    pub fn packed_type(&self) -> u8 {
        crate::types::pack_type(self.ty, self.bit_width())
    }

    pub(crate) fn root(buf: &'a [u8], trusted: bool) -> Result<Reader<'a>> {
        let n = buf.len();
        if n < 3 {
            return Err(Error::at(ErrorKind::Truncated, 0));
        }
        let width = buf[n - 1];
        if BitWidth::from_bytes(width as u64).is_none() {
            return Err(Error::at(ErrorKind::BadWidth(width as u64), n - 1));
        }
        let packed = buf[n - 2];
        let pos = (n - 2)
            .checked_sub(width as usize)
            .ok_or_else(|| Error::at(ErrorKind::Truncated, 0))?;
        Self::from_packed(buf, pos, width, packed, trusted).map_err(|e| e.with_offset(n - 2))
    }

    #[inline(always)]
    fn from_packed(
        buf: &'a [u8],
        pos: usize,
        parent_width: u8,
        packed: u8,
        trusted: bool,
    ) -> Result<Self> {
        let (ty, w) =
            unpack_type(packed).ok_or_else(|| Error::new(ErrorKind::UnknownType(packed)))?;
        Ok(Reader {
            buf,
            pos,
            parent_width,
            width: w.bytes() as u8,
            ty,
            trusted,
        })
    }

    /// The value's type.
    #[inline]
    pub fn flex_type(&self) -> FlexType {
        self.ty
    }

    /// Width from the packed type: a scalar's stored width, or a container's element/size width.
    #[inline]
    pub fn bit_width(&self) -> BitWidth {
        BitWidth::from_log2(self.width.trailing_zeros() as u8)
    }

    /// Bytes the value occupies in its slot (the parent's width).
    #[inline]
    pub fn slot_width(&self) -> usize {
        self.parent_width as usize
    }

    /// Offset of the value's slot in the buffer.
    #[inline]
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The whole buffer this value lives in.
    #[inline]
    pub fn buffer(&self) -> &'a [u8] {
        self.buf
    }

    /// True when this reader came from [`crate::verify`].
    #[inline]
    pub fn is_trusted(&self) -> bool {
        self.trusted
    }

    /// True for null.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.ty == FlexType::Null
    }

    fn mismatch(&self, expected: &'static str) -> Error {
        Error::at(
            ErrorKind::TypeMismatch {
                expected,
                found: self.ty,
            },
            self.pos,
        )
    }

    /// Start of the data an offset-typed value points to.
    #[inline]
    pub fn data_offset(&self) -> Result<usize> {
        follow(self.buf, self.pos, self.parent_width as usize)
    }

    /// A boolean.
    // Always inlined where optimised; see `read_float`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn as_bool(&self) -> Result<bool> {
        match self.ty {
            FlexType::Bool => Ok(read_uint(self.buf, self.pos, self.parent_width as usize)? != 0),
            _ => Err(self.mismatch("bool")),
        }
    }

    /// A signed integer, from any integer type of any width (an unsigned value
    /// above `i64::MAX` is out of range).
    // Always inlined where optimised; see `read_float`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn as_i64(&self) -> Result<i64> {
        match self.ty {
            FlexType::Int => read_int(self.buf, self.pos, self.parent_width as usize),
            FlexType::UInt => {
                let u = read_uint(self.buf, self.pos, self.parent_width as usize)?;
                i64::try_from(u).map_err(|_| Error::at(ErrorKind::OutOfRange, self.pos))
            }
            FlexType::IndirectInt => read_int(self.buf, self.data_offset()?, self.width as usize),
            FlexType::IndirectUInt => {
                let u = read_uint(self.buf, self.data_offset()?, self.width as usize)?;
                i64::try_from(u).map_err(|_| Error::at(ErrorKind::OutOfRange, self.pos))
            }
            _ => Err(self.mismatch("integer")),
        }
    }

    /// An unsigned integer, from any integer type of any width (a negative value is out of range).
    // Always inlined where optimised; see `read_float`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn as_u64(&self) -> Result<u64> {
        match self.ty {
            FlexType::UInt => read_uint(self.buf, self.pos, self.parent_width as usize),
            FlexType::Int => {
                let i = read_int(self.buf, self.pos, self.parent_width as usize)?;
                u64::try_from(i).map_err(|_| Error::at(ErrorKind::OutOfRange, self.pos))
            }
            FlexType::IndirectUInt => read_uint(self.buf, self.data_offset()?, self.width as usize),
            FlexType::IndirectInt => {
                let i = read_int(self.buf, self.data_offset()?, self.width as usize)?;
                u64::try_from(i).map_err(|_| Error::at(ErrorKind::OutOfRange, self.pos))
            }
            _ => Err(self.mismatch("unsigned integer")),
        }
    }

    /// A float (f32 values widen exactly); integers convert to the nearest f64.
    // Always inlined where optimised; see `read_float`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn as_f64(&self) -> Result<f64> {
        match self.ty {
            FlexType::Float => read_float(self.buf, self.pos, self.parent_width as usize),
            FlexType::IndirectFloat => {
                read_float(self.buf, self.data_offset()?, self.width as usize)
            }
            FlexType::Int | FlexType::IndirectInt => Ok(self.as_i64()? as f64),
            FlexType::UInt | FlexType::IndirectUInt => Ok(self.as_u64()? as f64),
            _ => Err(self.mismatch("number")),
        }
    }

    /// True when this is stored as a float (inline or indirect) rather than an integer.
    pub fn is_float(&self) -> bool {
        matches!(self.ty, FlexType::Float | FlexType::IndirectFloat)
    }

    /// A string, or a key, as `&str` borrowed from the buffer.
    #[inline]
    pub fn as_str(&self) -> Result<&'a str> {
        let bytes = match self.ty {
            FlexType::String => self.sized_bytes()?,
            FlexType::Key => self.key_bytes()?,
            _ => return Err(self.mismatch("string")),
        };
        self.utf8(bytes)
    }

    #[inline]
    fn utf8(&self, bytes: &'a [u8]) -> Result<&'a str> {
        if self.trusted {
            // SAFETY: trusted readers exist only for buffers the verifier walked
            // completely, and it checked every string and key reachable from the root.
            Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
        } else {
            crate::utf8::as_str(bytes).ok_or_else(|| Error::at(ErrorKind::InvalidUtf8, self.pos))
        }
    }

    /// The bytes of a blob (or of a string, without its NUL).
    #[inline]
    pub fn as_blob(&self) -> Result<&'a [u8]> {
        match self.ty {
            FlexType::Blob | FlexType::String => self.sized_bytes(),
            _ => Err(self.mismatch("blob")),
        }
    }

    #[inline]
    fn sized_bytes(&self) -> Result<&'a [u8]> {
        sized_at(
            self.buf,
            self.pos,
            self.parent_width as usize,
            self.width as usize,
        )
    }

    #[inline]
    fn key_bytes(&self) -> Result<&'a [u8]> {
        let data = self.data_offset()?;
        key_at(self.buf, data)
    }

    /// A map view.
    #[inline]
    pub fn as_map(&self) -> Result<MapReader<'a>> {
        self.map_view()
    }

    /// [`as_map`](Self::as_map), always inlined: for callers that move the
    /// view on at once, as [`vector_view`](Self::vector_view) is.
    #[inline(always)]
    pub(crate) fn map_view(&self) -> Result<MapReader<'a>> {
        if let Some(m) = self.map_in_bounds() {
            return Ok(m);
        }
        self.map_or_error()
    }

    /// The map view when the value is a map and every field of its header
    /// and both of its vectors lie inside the buffer (what
    /// [`map_or_error`](Self::map_or_error) checks, and the usual case), read
    /// with word loads and one bounds check per vector; `None` for anything
    /// else, whose error the checked path then names.
    #[inline(always)]
    pub(crate) fn map_in_bounds(&self) -> Option<MapReader<'a>> {
        let (values, keys_at, key_width) = self.map_values()?;
        self.map_keys(values, keys_at, key_width)
    }

    /// The values of a map, the position of its keys vector and its keys'
    /// width as its header gives them, when the value is a map whose header
    /// and values lie inside the buffer (what
    /// [`map_or_error`](Self::map_or_error) checks of them; the keys vector
    /// is not read); `None` for anything else, which [`as_map`](Self::as_map)
    /// then reads or refuses. Word loads, one bounds check per span. With
    /// [`map_keys`](Self::map_keys), the word path of `as_map` in two steps,
    /// for a caller that may know the keys vector already.
    #[inline(always)]
    pub(crate) fn map_values(&self) -> Option<(VectorReader<'a>, usize, u64)> {
        if self.ty != FlexType::Map {
            return None;
        }
        let buf = self.buf;
        let n = buf.len();
        let data = follow(buf, self.pos, self.parent_width as usize).ok()?;
        // 1, 2, 4 or 8: the width of a packed type.
        let w = self.width as usize;
        let mask = WIDTH_MASK[w.min(8)];
        let prefix = data.checked_sub(3 * w)?;
        // The keys offset, the keys' width and the length, one `w`-byte field
        // each, read as words from one checked span (`prefix < n`, so the
        // sum cannot overflow).
        let header = buf.get(prefix..prefix + 2 * w + 8)?;
        let field = |i: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&header[i * w..i * w + 8]);
            u64::from_le_bytes(word) & mask
        };
        let (keys_off, key_width, len) = (field(0), field(1), field(2));
        // A length beyond the buffer's size cannot fit in it; below that,
        // `len * 9` cannot overflow (`n` is at most `isize::MAX`, and an
        // allocation far less).
        let len = usize::try_from(len).ok().filter(|&l| l <= n)?;
        if len.checked_mul(w + 1)? > n - data {
            return None;
        }
        let keys_at = prefix.checked_sub(usize::try_from(keys_off).ok()?)?;
        let values = VectorReader {
            buf,
            data,
            len,
            width: w as u8,
            kind: VectorKind::Untyped,
            trusted: self.trusted,
        };
        Some((values, keys_at, key_width))
    }

    /// The map of `values` (from [`map_values`](Self::map_values)) with its
    /// keys vector at `keys_at` of `key_width`-byte keys, when that vector
    /// lies inside the buffer: the map `as_map` reads. `None` otherwise.
    #[inline(always)]
    pub(crate) fn map_keys(
        &self,
        values: VectorReader<'a>,
        keys_at: usize,
        key_width: u64,
    ) -> Option<MapReader<'a>> {
        // The keys' width is 1, 2, 4 or 8 (bits 1, 2, 4 and 8 of 0x116).
        if key_width > 8 || (0x116u64 >> key_width) & 1 == 0 {
            return None;
        }
        let kw = key_width as usize;
        let buf = self.buf;
        let n = buf.len();
        let len_at = keys_at.checked_sub(kw)?;
        // `len_at < keys_at < n`: no overflow.
        let word: [u8; 8] = buf.get(len_at..len_at + 8)?.try_into().ok()?;
        let keys_len = usize::try_from(u64::from_le_bytes(word) & WIDTH_MASK[kw])
            .ok()
            .filter(|&l| l <= n)?;
        if keys_len.checked_mul(kw)? > n - keys_at {
            return None;
        }
        Some(MapReader::with_keys(values, keys_at, keys_len, kw as u8))
    }

    /// [`as_map`](Self::as_map) with each field checked in turn, so a map
    /// that cannot be read gets the error of its first bad field.
    #[cold]
    fn map_or_error(&self) -> Result<MapReader<'a>> {
        if self.ty != FlexType::Map {
            return Err(self.mismatch("map"));
        }
        let values = self.vector_at(
            self.data_offset()?,
            self.width as usize,
            VectorKind::Untyped,
        )?;
        let w = self.width as usize;
        let prefix = values
            .data
            .checked_sub(3 * w)
            .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, self.pos))?;
        let keys_at = follow(self.buf, prefix, w)?;
        let key_width = read_uint(self.buf, prefix + w, w)?;
        let kw = BitWidth::from_bytes(key_width)
            .ok_or_else(|| Error::at(ErrorKind::BadWidth(key_width), prefix + w))?
            .bytes();
        let keys = self.vector_at(keys_at, kw, VectorKind::Typed(FlexType::Key))?;
        Ok(MapReader { keys, values })
    }

    /// A vector view of any vector type: untyped, typed, fixed, or a map's values.
    #[inline]
    pub fn as_vector(&self) -> Result<VectorReader<'a>> {
        self.vector_view()
    }

    /// [`as_vector`](Self::as_vector), always inlined: for callers that move
    /// the view on at once (the serde tier's sequences), where a call wrote
    /// it to memory field by field and the move read it back 16 bytes at a
    /// time, a load the store buffer cannot forward.
    #[inline(always)]
    pub(crate) fn vector_view(&self) -> Result<VectorReader<'a>> {
        let w = self.width as usize;
        match self.ty {
            FlexType::Vector | FlexType::Map => {
                self.vector_at(self.data_offset()?, w, VectorKind::Untyped)
            }
            t if t.is_typed_vector() => {
                let elem = t.typed_vector_element().unwrap_or(FlexType::Key);
                self.vector_at(self.data_offset()?, w, VectorKind::Typed(elem))
            }
            t if t.is_fixed_typed_vector() => {
                let (elem, len) = t.fixed_vector_element().unwrap_or((FlexType::Int, 2));
                let data = self.data_offset()?;
                check_span(self.buf, data, len, w, 0)?;
                Ok(VectorReader {
                    buf: self.buf,
                    data,
                    len,
                    width: w as u8,
                    kind: VectorKind::Typed(elem),
                    trusted: self.trusted,
                })
            }
            _ => Err(self.mismatch("vector")),
        }
    }

    #[inline]
    fn vector_at(&self, data: usize, w: usize, kind: VectorKind) -> Result<VectorReader<'a>> {
        let len_at = data
            .checked_sub(w)
            .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, self.pos))?;
        let len = read_uint(self.buf, len_at, w)?;
        let len =
            usize::try_from(len).map_err(|_| Error::at(ErrorKind::SizeOutOfBounds, len_at))?;
        let types = if kind == VectorKind::Untyped { 1 } else { 0 };
        check_span(self.buf, data, len, w, types).map_err(|e| e.with_offset(len_at))?;
        Ok(VectorReader {
            buf: self.buf,
            data,
            len,
            width: w as u8,
            kind,
            trusted: self.trusted,
        })
    }

    /// Number of elements of a vector or map, or bytes of a string or blob.
    pub fn len(&self) -> Result<usize> {
        match self.ty {
            FlexType::String | FlexType::Blob => Ok(self.sized_bytes()?.len()),
            FlexType::Key => Ok(self.key_bytes()?.len()),
            _ => Ok(self.as_vector()?.len()),
        }
    }

    /// True for an empty vector, map, string, blob or key.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Map entry by key; [`ErrorKind::KeyNotFound`] when absent.
    pub fn get(&self, key: &str) -> Result<Reader<'a>> {
        self.as_map()?.get(key)
    }

    /// Vector element by index.
    pub fn index(&self, i: usize) -> Result<Reader<'a>> {
        self.as_vector()?.get(i)
    }

    /// A typed vector of `T` as a slice borrowed from the buffer, when its element
    /// type and width match `T` exactly and the data is aligned (little-endian hosts only).
    pub fn typed_slice<T: SliceElement>(&self) -> Option<&'a [T]> {
        let v = self.as_vector().ok()?;
        v.typed_slice()
    }
}

/// The bytes of the key starting at `at`, up to its NUL (not checked for UTF-8).
#[inline]
pub fn key_at(buf: &[u8], at: usize) -> Result<&[u8]> {
    let tail = buf
        .get(at..)
        .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, at))?;
    match crate::utf8::scan_key(tail) {
        Some(k) => Ok(&tail[..k.len]),
        None => Err(Error::at(ErrorKind::MissingNul, at)),
    }
}

/// Checks that `len` elements of `w` bytes (plus one type byte each when
/// `types` is 1) starting at `data` fit in the buffer.
#[inline]
fn check_span(buf: &[u8], data: usize, len: usize, w: usize, types: usize) -> Result<()> {
    let bytes = len
        .checked_mul(w + types)
        .and_then(|b| b.checked_add(data))
        .filter(|&end| end <= buf.len());
    match bytes {
        Some(_) => Ok(()),
        None => Err(Error::at(ErrorKind::SizeOutOfBounds, data)),
    }
}

/// Whether a vector stores a type byte per element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VectorKind {
    Untyped,
    Typed(FlexType),
}

/// A scalar stored inline in a vector's slot, read by
/// [`VectorReader::inline_at`].
#[cfg(feature = "serde")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Inline {
    /// [`FlexType::Int`], sign-extended.
    Int(i64),
    /// [`FlexType::UInt`].
    UInt(u64),
    /// [`FlexType::Float`] (an `f32` widened exactly).
    Float(f64),
    /// [`FlexType::Bool`] (any non-zero slot is true).
    Bool(bool),
}

#[cfg(feature = "serde")]
impl Inline {
    /// The type the value was stored as.
    pub(crate) fn flex_type(self) -> FlexType {
        match self {
            Inline::Int(_) => FlexType::Int,
            Inline::UInt(_) => FlexType::UInt,
            Inline::Float(_) => FlexType::Float,
            Inline::Bool(_) => FlexType::Bool,
        }
    }
}

/// A vector of any kind, with its bounds already checked.
#[derive(Clone, Copy, Debug)]
pub struct VectorReader<'a> {
    buf: &'a [u8],
    data: usize,
    len: usize,
    width: u8,
    kind: VectorKind,
    trusted: bool,
}

impl<'a> VectorReader<'a> {
    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element width in bytes.
    #[inline]
    pub fn element_width(&self) -> usize {
        self.width as usize
    }

    /// The element type for typed and fixed vectors; `None` for untyped ones.
    pub fn element_type(&self) -> Option<FlexType> {
        match self.kind {
            VectorKind::Typed(t) => Some(t),
            VectorKind::Untyped => None,
        }
    }

    /// Offset of the first element.
    pub fn data_offset(&self) -> usize {
        self.data
    }

    /// The whole buffer the vector lives in.
    #[inline]
    pub fn buffer(&self) -> &'a [u8] {
        self.buf
    }

    /// Element `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Result<Reader<'a>> {
        if i >= self.len {
            return Err(Error::at(
                ErrorKind::IndexOutOfBounds {
                    index: i,
                    len: self.len,
                },
                self.data,
            ));
        }
        let w = self.width as usize;
        let pos = self.data + i * w;
        match self.kind {
            VectorKind::Typed(ty) => Ok(Reader {
                buf: self.buf,
                pos,
                parent_width: self.width,
                width: 1,
                ty,
                trusted: self.trusted,
            }),
            VectorKind::Untyped => {
                let packed = self.buf[self.data + self.len * w + i];
                Reader::from_packed(self.buf, pos, self.width, packed, self.trusted)
                    .map_err(|e| e.with_offset(self.data + self.len * w + i))
            }
        }
    }

    /// Element `i` when it is stored inline as an integer, an unsigned
    /// integer, a float or a bool (in a typed, fixed or untyped vector):
    /// its value, as [`get`](Self::get)`(i)` followed by `as_i64`,
    /// `as_u64`, `as_f64` or `as_bool` (whichever its type calls for) reads
    /// it, without making a reader. `None` for any other element, out of
    /// range, or when that read would fail (a float narrower than 4 bytes):
    /// take `get` then, which reports what is wrong.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn inline_at(&self, i: usize) -> Option<Inline> {
        if i >= self.len {
            return None;
        }
        let w = self.width as usize;
        let code = match self.kind {
            VectorKind::Typed(t) => t as u8,
            VectorKind::Untyped => *self.buf.get(self.data + self.len * w + i)? >> 2,
        };
        let pos = self.data + i * w;
        const INT: u8 = FlexType::Int as u8;
        const UINT: u8 = FlexType::UInt as u8;
        const FLOAT: u8 = FlexType::Float as u8;
        const BOOL: u8 = FlexType::Bool as u8;
        match code {
            INT => read_int(self.buf, pos, w).ok().map(Inline::Int),
            UINT => read_uint(self.buf, pos, w).ok().map(Inline::UInt),
            FLOAT => read_float(self.buf, pos, w).ok().map(Inline::Float),
            BOOL => read_uint(self.buf, pos, w)
                .ok()
                .map(|u| Inline::Bool(u != 0)),
            _ => None,
        }
    }

    /// Element `i` of an untyped vector when it is a string: exactly what
    /// `get(i)?.as_str()` gives for it (the same checks and errors), without
    /// making a reader. `Ok(None)` when element `i` is anything else (or
    /// out of range, or the vector is typed): take [`get`](Self::get) then.
    // Always inlined: callers loop over the elements, and the checks that do
    // not depend on `i` are hoisted out of the loop.
    #[inline(always)]
    pub fn string_at(&self, i: usize) -> Result<Option<&'a str>> {
        const STRING: u8 = FlexType::String as u8;
        if i >= self.len || self.kind != VectorKind::Untyped {
            return Ok(None);
        }
        let w = self.width as usize;
        let packed = self.buf[self.data + self.len * w + i];
        if packed >> 2 != STRING {
            return Ok(None);
        }
        let pos = self.data + i * w;
        let bytes = sized_at(self.buf, pos, w, 1 << (packed & 3))?;
        if self.trusted {
            // SAFETY: as in `Reader::utf8`: the verifier checked every
            // string reachable from the root of a trusted buffer.
            return Ok(Some(unsafe { core::str::from_utf8_unchecked(bytes) }));
        }
        match crate::utf8::as_str(bytes) {
            Some(s) => Ok(Some(s)),
            None => Err(Error::at(ErrorKind::InvalidUtf8, pos)),
        }
    }

    /// Reads elements `start..` of an untyped vector for as long as each is
    /// a string that reads cleanly (in bounds, UTF-8 unless the buffer is
    /// trusted), handing each to `f` with its index: what
    /// [`string_at`](Self::string_at) gives for them, from word loads with
    /// no error built. Returns the index of the first element not read
    /// (`len` when every one was): anything but a string, a string
    /// `string_at` must refuse, or one within 8 bytes of the buffer's end;
    /// `string_at` and [`get`](Self::get) read or refuse that one. An error
    /// of `f` ends the loop and is returned.
    #[inline(always)]
    pub(crate) fn strings_from(
        &self,
        start: usize,
        mut f: impl FnMut(usize, &'a str) -> Result<()>,
    ) -> Result<usize> {
        let mut i = start;
        while i < self.len {
            let Some(s) = self.str_in_bounds(i) else {
                break;
            };
            f(i, s)?;
            i += 1;
        }
        Ok(i)
    }

    /// Element `i` of an untyped vector as its packed type byte, slot
    /// position and slot width, for readers that decode a slot directly
    /// (`None` when out of range or the vector is typed).
    #[inline(always)]
    pub(crate) fn slot(&self, i: usize) -> Option<(u8, usize, usize)> {
        if i >= self.len || self.kind != VectorKind::Untyped {
            return None;
        }
        let w = self.width as usize;
        // In bounds: the span of `len` elements and their type bytes was checked.
        let packed = self.buf[self.data + self.len * w + i];
        Some((packed, self.data + i * w, w))
    }

    /// Element `i` of an untyped vector as its packed type byte, its slot
    /// read as an unsigned word of the vector's width, and that width, for
    /// inline readers of scalar fields: `None` when out of range, typed, or
    /// within 8 bytes of the buffer's end (where the caller's checked path
    /// reads it instead). One load for the slot, no error to build or drop.
    #[inline(always)]
    pub(crate) fn slot_word(&self, i: usize) -> Option<(u8, u64, usize)> {
        let (packed, pos, w) = self.slot(i)?;
        let word: [u8; 8] = self.buf.get(pos..pos.wrapping_add(8))?.try_into().ok()?;
        Some((packed, u64::from_le_bytes(word) & WIDTH_MASK[w.min(8)], w))
    }

    /// Element `i` of an untyped vector when it is a string that can be
    /// read (in bounds, UTF-8 unless the buffer is trusted): what
    /// [`string_at`](Self::string_at) reads, from word loads with no error
    /// built; `None` for anything else (and near the buffer's end), which
    /// `string_at` then reads or refuses.
    #[inline(always)]
    pub(crate) fn str_in_bounds(&self, i: usize) -> Option<&'a str> {
        const STRING: u8 = FlexType::String as u8;
        let (packed, off, w) = self.slot_word(i)?;
        if packed >> 2 != STRING {
            return None;
        }
        // The offset points back from the slot; the length sits just before
        // the string, in a field as wide as the type byte says.
        let data = (self.data + i * w).checked_sub(usize::try_from(off).ok()?)?;
        let size = 1usize << (packed & 3);
        let len_at = data.checked_sub(size)?;
        let word: [u8; 8] = self.buf.get(len_at..len_at + 8)?.try_into().ok()?;
        let len = usize::try_from(u64::from_le_bytes(word) & WIDTH_MASK[size]).ok()?;
        let bytes = self.buf.get(data..data.checked_add(len)?)?;
        if self.trusted {
            // SAFETY: as in `Reader::utf8`: the verifier checked every
            // string reachable from the root of a trusted buffer.
            return Some(unsafe { core::str::from_utf8_unchecked(bytes) });
        }
        crate::utf8::as_str(bytes)
    }

    /// The shift that sign-extends a `w`-byte word read by
    /// [`slot_word`](Self::slot_word).
    #[inline(always)]
    pub(crate) fn sign_shift(w: usize) -> u32 {
        SIGN_SHIFT[w.min(8)]
    }

    /// Packed type byte of element `i` of an untyped vector.
    pub fn packed_type(&self, i: usize) -> Option<u8> {
        match self.kind {
            VectorKind::Untyped if i < self.len => {
                Some(self.buf[self.data + self.len * self.width as usize + i])
            }
            _ => None,
        }
    }

    /// Iterates over the elements.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Result<Reader<'a>>> + 'a {
        let v = *self;
        (0..v.len).map(move |i| v.get(i))
    }

    /// The elements as a slice of `T` borrowed from the buffer, when the element
    /// type and width match `T` and the data is aligned for it.
    pub fn typed_slice<T: SliceElement>(&self) -> Option<&'a [T]> {
        if self.kind != VectorKind::Typed(T::ELEMENT)
            || self.width as usize != core::mem::size_of::<T>()
            || cfg!(target_endian = "big")
        {
            return None;
        }
        let bytes = &self.buf[self.data..self.data + self.len * self.width as usize];
        // SAFETY: T is a plain integer or float type for which every bit pattern is
        // valid; align_to only yields the middle part when it is properly aligned.
        let (head, mid, tail) = unsafe { bytes.align_to::<T>() };
        (head.is_empty() && tail.is_empty()).then_some(mid)
    }
}

/// A map: sorted keys and their values, bounds already checked.
#[derive(Clone, Copy, Debug)]
pub struct MapReader<'a> {
    keys: VectorReader<'a>,
    values: VectorReader<'a>,
}

impl<'a> MapReader<'a> {
    /// A map of `values` whose keys vector of `len` keys, `width` bytes
    /// each, is at `keys_at` in the same buffer (checked by the caller).
    #[inline(always)]
    pub(crate) fn with_keys(
        values: VectorReader<'a>,
        keys_at: usize,
        len: usize,
        width: u8,
    ) -> Self {
        MapReader {
            keys: VectorReader {
                data: keys_at,
                len,
                width,
                kind: VectorKind::Typed(FlexType::Key),
                ..values
            },
            values,
        }
    }

    /// Number of entries (the keys vector's length).
    #[inline]
    pub fn len(&self) -> usize {
        self.keys.len
    }

    /// [`ErrorKind::KeyValueLengthMismatch`] when the keys vector and the
    /// values do not have the same length (the verifier's check; a map read
    /// from unverified bytes may have any two lengths).
    #[inline(always)]
    pub fn check_lengths(&self) -> Result<()> {
        if self.keys.len == self.values.len {
            Ok(())
        } else {
            Err(Error::at(
                ErrorKind::KeyValueLengthMismatch {
                    keys: self.keys.len as u64,
                    values: self.values.len as u64,
                },
                self.values.data,
            ))
        }
    }

    /// True when the map comes from a verified buffer.
    #[inline(always)]
    pub(crate) fn is_trusted(&self) -> bool {
        self.values.trusted
    }

    /// Checks every key as the verifier does: in the buffer, NUL-terminated,
    /// UTF-8, and strictly ascending (unsigned bytes). A one-pass decoder
    /// that looks keys up by binary search needs this of a keys vector it
    /// has not proven: in keys out of order the search can miss a key that
    /// is there, and a field read as absent takes its default.
    #[cold]
    pub(crate) fn check_keys(&self) -> Result<()> {
        let mut prev: Option<&str> = None;
        for i in 0..self.keys.len {
            // The checked read of the key: in the buffer, NUL-terminated, UTF-8.
            let key = self.key(i)?;
            if prev.is_some_and(|p| p >= key) {
                let slot = self.keys.data + i * self.keys.width as usize;
                return Err(Error::at(ErrorKind::UnsortedKeys, slot));
            }
            prev = Some(key);
        }
        Ok(())
    }

    /// True when the map has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.len == 0
    }

    /// The keys vector.
    pub fn keys(&self) -> VectorReader<'a> {
        self.keys
    }

    /// The values vector.
    pub fn values(&self) -> VectorReader<'a> {
        self.values
    }

    /// Offset of the keys vector's first element (used to recognise shared key vectors).
    pub fn keys_offset(&self) -> usize {
        self.keys.data
    }

    /// Byte width of the keys vector.
    pub fn keys_width(&self) -> usize {
        self.keys.width as usize
    }

    /// The key of entry `i`.
    #[inline]
    pub fn key(&self, i: usize) -> Result<&'a str> {
        match self.short_key(i) {
            Some(key) => Ok(key),
            None => self.long_key(i),
        }
    }

    /// [`key`](Self::key) for a key [`short_key`](Self::short_key) does not
    /// read.
    #[inline]
    pub(crate) fn long_key(&self, i: usize) -> Result<&'a str> {
        // The usual key in one step: its offset, a word-at-a-time scan for
        // its NUL that also tells whether it is all ASCII, and a UTF-8
        // check only for a key of an unverified buffer that is not. A key
        // that cannot be read so goes the general way, which names what
        // is wrong with it.
        if let Some((bytes, _, known)) = self.key_parts(i) {
            if known {
                // SAFETY: `known` holds for an all-ASCII key, and for any
                // key of a trusted buffer (the verifier checked them all).
                return Ok(unsafe { core::str::from_utf8_unchecked(bytes) });
            }
            if let Some(s) = crate::utf8::as_str(bytes) {
                return Ok(s);
            }
        }
        self.key_or_error(i)
    }

    /// [`key`](Self::key) by the general reader: the same key, or the
    /// error of the first thing wrong with it.
    #[cold]
    fn key_or_error(&self, i: usize) -> Result<&'a str> {
        self.keys.get(i)?.as_str()
    }

    /// Key `i` when it is shorter than 16 bytes and far enough from the
    /// buffer's end to be read as two words: what [`key`](Self::key) gives
    /// for it, from at most three word loads (and a UTF-8 check when the
    /// buffer is not trusted and the key not ASCII). `None` for anything
    /// else, which `key` then reads or refuses.
    #[inline(always)]
    pub(crate) fn short_key(&self, i: usize) -> Option<&'a str> {
        use crate::word::{zero_bytes, HI};
        let k = &self.keys;
        if i >= k.len {
            return None;
        }
        let buf = k.buf;
        // Below `end`, 8 bytes can be read.
        let end = word_end(buf);
        let load = |at: usize| {
            // SAFETY: every caller checks `at < end`, and `end + 7 <= len`.
            u64::from_le(unsafe { (buf.as_ptr().add(at) as *const u64).read_unaligned() })
        };
        let w = k.width as usize;
        let slot = k.data + i * w;
        if slot >= end {
            return None;
        }
        let off = usize::try_from(load(slot) & WIDTH_MASK[w.min(8)]).ok()?;
        // The offset points back from the slot (`follow`), so `at <= slot < end`.
        let at = slot.checked_sub(off)?;
        let first = load(at);
        let (len, bytes) = match zero_bytes(first) {
            0 => {
                if at + 8 >= end {
                    return None;
                }
                let second = load(at + 8);
                let zero = zero_bytes(second);
                if zero == 0 {
                    return None;
                }
                let n = (zero.trailing_zeros() / 8) as usize;
                (8 + n, first | (second & ((1u64 << (8 * n)) - 1)))
            }
            zero => {
                let n = (zero.trailing_zeros() / 8) as usize;
                (n, first & ((1u64 << (8 * n)) - 1))
            }
        };
        // SAFETY: `at + len` is the position of a NUL inside the buffer.
        let key = unsafe { buf.get_unchecked(at..at + len) };
        if !k.trusted && bytes & HI != 0 {
            return crate::utf8::as_str(key);
        }
        // SAFETY: the bytes are ASCII, or the buffer is trusted (the
        // verifier checked every key).
        Some(unsafe { core::str::from_utf8_unchecked(key) })
    }

    /// Key `i`'s bytes (before its NUL), the buffer from its first byte on,
    /// and whether the bytes are known to be UTF-8 already (all ASCII, or a
    /// trusted buffer); `None` when the key cannot be read, which
    /// [`key`](Self::key) then reports.
    #[inline]
    pub(crate) fn key_parts(&self, i: usize) -> Option<(&'a [u8], &'a [u8], bool)> {
        let k = &self.keys;
        if i >= k.len {
            return None;
        }
        let w = k.width as usize;
        let at = follow(k.buf, k.data + i * w, w).ok()?;
        let tail = k.buf.get(at..)?;
        let scan = crate::utf8::scan_key(tail)?;
        Some((&tail[..scan.len], tail, k.trusted || scan.ascii))
    }

    /// The value of entry `i`.
    #[inline(always)]
    pub fn value(&self, i: usize) -> Result<Reader<'a>> {
        self.values.get(i)
    }

    /// Index of `key` by binary search over the sorted keys, without allocating.
    pub fn index_of(&self, key: &str) -> Result<Option<usize>> {
        let probe = key.as_bytes();
        if probe.contains(&0) {
            return Ok(None);
        }
        let (mut lo, mut hi) = (0usize, self.keys.len);
        let w = self.keys.width as usize;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let at = follow(self.keys.buf, self.keys.data + mid * w, w)?;
            match compare_key(self.keys.buf, at, probe)? {
                core::cmp::Ordering::Less => lo = mid + 1,
                core::cmp::Ordering::Greater => hi = mid,
                core::cmp::Ordering::Equal => return Ok(Some(mid)),
            }
        }
        Ok(None)
    }

    /// The value for `key`, or `None` when absent.
    #[inline]
    pub fn find(&self, key: &str) -> Result<Option<Reader<'a>>> {
        match self.index_of(key)? {
            Some(i) => self.values.get(i).map(Some),
            None => Ok(None),
        }
    }

    /// The value for `key`; [`ErrorKind::KeyNotFound`] when absent.
    pub fn get(&self, key: &str) -> Result<Reader<'a>> {
        self.find(key)?.ok_or_else(|| {
            Error::at(ErrorKind::KeyNotFound, self.keys.data)
                .in_segment(crate::error::PathSegment::Key(key))
        })
    }

    /// Iterates over `(key, value)` entries in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Result<(&'a str, Reader<'a>)>> + 'a {
        let m = *self;
        (0..m.len()).map(move |i| Ok((m.key(i)?, m.value(i)?)))
    }
}

/// Compares the NUL-terminated key stored at `at` with `probe` (which has no NUL).
#[inline]
fn compare_key(buf: &[u8], at: usize, probe: &[u8]) -> Result<core::cmp::Ordering> {
    let tail = buf
        .get(at..)
        .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, at))?;
    let n = probe.len().min(tail.len());
    // A NUL in the stored key sorts below any probe byte, so a shorter stored key
    // compares as smaller, exactly as strcmp would.
    match tail[..n].cmp(&probe[..n]) {
        core::cmp::Ordering::Equal => match tail.get(n) {
            _ if n < probe.len() => Err(Error::at(ErrorKind::MissingNul, at)),
            Some(0) => Ok(core::cmp::Ordering::Equal),
            Some(_) => Ok(core::cmp::Ordering::Greater),
            None => Err(Error::at(ErrorKind::MissingNul, at)),
        },
        o => Ok(o),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{Builder, ShareFlags};

    /// `MapReader::key` (a short key from word loads, any other the usual
    /// way) against the general reader (`keys().get(i)?.as_str()`), on maps
    /// of keys of every length around the word sizes, ASCII and not, in
    /// buffers small enough that keys sit near the end, and on every
    /// one-byte mutation of them, unverified and verified.
    #[test]
    fn keys_read_in_one_step_are_what_the_general_reader_reads() {
        let mut texts: Vec<String> = (0..20).map(|n| "k".repeat(n)).collect();
        texts.extend(
            ["é", "日本", "ключи-ключи", "a\u{1F600}", "0123456789abcdé"].map(String::from),
        );
        let mut buffers = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            for count in [1, 2, 3] {
                let mut b = Builder::new();
                b.start_map();
                for j in 0..count {
                    b.key(&format!("{t}{}", "z".repeat(j)));
                    b.int(i as i64);
                }
                b.end_map().unwrap();
                buffers.push(b.finish_vec().unwrap());
            }
        }
        let same = |buf: &[u8], m: &MapReader<'_>| {
            for i in 0..m.len() + 1 {
                let general = m.keys().get(i).and_then(|k| k.as_str());
                assert_eq!(m.key(i), general, "key {i} of {buf:?}");
            }
        };
        let mut read = 0;
        for buf in &buffers {
            let mut variants = vec![buf.clone()];
            for at in 0..buf.len() {
                for byte in [0x00, 0x80, 0xff, 0x7f] {
                    let mut v = buf.clone();
                    v[at] = byte;
                    variants.push(v);
                }
            }
            for v in &variants {
                if let Ok(m) = Reader::new(v).and_then(|r| r.as_map()) {
                    same(v, &m);
                    read += 1;
                }
                if let Ok(verified) = crate::verify(v) {
                    if let Ok(m) = verified.root().as_map() {
                        same(v, &m);
                    }
                }
            }
        }
        assert!(read > 5_000, "{read} maps read");
    }

    #[test]
    fn integer_reads_mask_and_sign_extend_at_every_width_and_position() {
        let all: Vec<u8> = (0..24u8).map(|i| i.wrapping_mul(0x9d) ^ 0x80).collect();
        // Every buffer length (shorter than a word too), every position up
        // to a few past the end: the word read and the tail agree.
        for len in 0..=all.len() {
            let bytes = &all[..len];
            for pos in 0..len + 3 {
                check_reads(bytes, pos);
            }
        }
    }

    fn check_reads(bytes: &[u8], pos: usize) {
        for w in [1usize, 2, 4, 8] {
            let Some(b) = bytes.get(pos..pos + w) else {
                assert!(
                    read_uint(bytes, pos, w).is_err(),
                    "{} {pos} {w}",
                    bytes.len()
                );
                assert!(
                    read_int(bytes, pos, w).is_err(),
                    "{} {pos} {w}",
                    bytes.len()
                );
                continue;
            };
            let mut le = [0u8; 8];
            le[..w].copy_from_slice(b);
            let u = u64::from_le_bytes(le);
            let i = match w {
                1 => b[0] as i8 as i64,
                2 => i16::from_le_bytes([b[0], b[1]]) as i64,
                4 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
                _ => u as i64,
            };
            assert_eq!(read_uint(bytes, pos, w).unwrap(), u, "{pos} {w}");
            assert_eq!(read_int(bytes, pos, w).unwrap(), i, "{pos} {w}");
        }
        // Width 0 reads nothing (inside the buffer or at its end).
        if pos <= bytes.len() {
            assert_eq!(read_uint(bytes, pos, 0).unwrap(), 0);
            assert_eq!(read_int(bytes, pos, 0).unwrap(), 0);
        }
    }

    fn sample() -> Vec<u8> {
        let mut b = Builder::new();
        b.start_map();
        b.key("name");
        b.string("Ada ✓");
        b.key("n");
        b.int(-300);
        b.key("u");
        b.uint(u64::MAX);
        b.key("f");
        b.float(0.5);
        b.key("ints");
        b.typed_vector(&[1i32, 2, 3]);
        b.key("floats");
        b.scalar_vector(&[1.5f64, 2.5]).unwrap();
        b.key("blob");
        b.blob(b"\x00\x01");
        b.key("ind");
        b.indirect_uint(7);
        b.end_map().unwrap();
        b.finish_vec().unwrap()
    }

    /// The parts of a map view that say what it reads.
    fn map_parts(m: &MapReader<'_>) -> [(usize, usize, u8, VectorKind); 2] {
        [m.keys, m.values].map(|v| (v.data, v.len, v.width, v.kind))
    }

    #[test]
    fn maps_read_by_words_agree_with_the_field_by_field_path_on_mutations() {
        // Maps at every width (narrow, forced wide, with a long keys vector
        // pointing far back), each byte of each buffer set to values that
        // land on every width and length and flip offsets past the ends.
        let mut buffers = Vec::new();
        for min in [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64] {
            for entries in [0usize, 1, 3, 40] {
                let mut b = Builder::new();
                b.force_min_width(min);
                b.start_vector();
                b.start_map();
                for i in 0..entries {
                    b.key(&format!("key{i:03}"));
                    b.int(i as i64 * 1000);
                }
                b.end_map().unwrap();
                b.string("after");
                b.end_vector().unwrap();
                buffers.push(b.finish_vec().unwrap());
            }
        }
        let (mut fast, mut compared) = (0, 0);
        for bytes in &buffers {
            fn map_of(buf: &[u8]) -> Option<Reader<'_>> {
                Reader::new(buf)
                    .and_then(|r| r.as_vector())
                    .and_then(|v| v.get(0))
                    .ok()
            }
            let r = map_of(bytes).unwrap();
            // Well-formed maps take the word path.
            assert!(r.map_in_bounds().is_some(), "{bytes:?}");
            for at in 0..bytes.len() {
                for v in [0u8, 1, 2, 3, 4, 7, 8, 9, 0x7f, 0x80, 0xfe, 0xff] {
                    let mut m = bytes.clone();
                    m[at] = v;
                    let Some(r) = map_of(&m) else { continue };
                    compared += 1;
                    let checked = r.map_or_error();
                    // `as_map` reads by words only what is typed a map.
                    let words = r.map_in_bounds();
                    if let Some(words) = words {
                        fast += 1;
                        let checked = checked.as_ref().unwrap_or_else(|e| {
                            panic!("words read a map the checked path refuses ({e}): {m:?}")
                        });
                        assert_eq!(map_parts(&words), map_parts(checked), "{m:?}");
                    }
                    match (r.as_map(), checked) {
                        (Ok(a), Ok(b)) => assert_eq!(map_parts(&a), map_parts(&b)),
                        (Err(a), Err(b)) => assert_eq!(a, b),
                        (a, b) => panic!("{a:?} against {b:?} on {m:?}"),
                    }
                }
            }
        }
        assert!(fast > 1000 && compared > fast, "{fast} of {compared}");
    }

    #[test]
    fn reads_every_kind_with_widening() {
        let bytes = sample();
        for root in [
            Reader::new(&bytes).unwrap(),
            crate::verify(&bytes).unwrap().root(),
        ] {
            let m = root.as_map().unwrap();
            assert_eq!(m.get("name").unwrap().as_str().unwrap(), "Ada ✓");
            assert_eq!(m.get("n").unwrap().as_i64().unwrap(), -300);
            assert_eq!(m.get("n").unwrap().as_f64().unwrap(), -300.0);
            assert_eq!(
                m.get("n").unwrap().as_u64().unwrap_err().kind(),
                &ErrorKind::OutOfRange
            );
            assert_eq!(m.get("u").unwrap().as_u64().unwrap(), u64::MAX);
            assert_eq!(
                m.get("u").unwrap().as_i64().unwrap_err().kind(),
                &ErrorKind::OutOfRange
            );
            assert_eq!(m.get("f").unwrap().as_f64().unwrap(), 0.5);
            assert_eq!(m.get("blob").unwrap().as_blob().unwrap(), b"\x00\x01");
            assert_eq!(m.get("ind").unwrap().as_u64().unwrap(), 7);
            let ints = m.get("ints").unwrap().as_vector().unwrap();
            assert_eq!(ints.element_type(), Some(FlexType::Int));
            let vals: Vec<i64> = ints.iter().map(|r| r.unwrap().as_i64().unwrap()).collect();
            assert_eq!(vals, [1, 2, 3]);
            assert_eq!(
                m.get("floats").unwrap().index(1).unwrap().as_f64().unwrap(),
                2.5
            );
            let keys: Vec<&str> = m.iter().map(|e| e.unwrap().0).collect();
            assert_eq!(
                keys,
                ["blob", "f", "floats", "ind", "ints", "n", "name", "u"]
            );
            assert_eq!(
                m.get("missing").unwrap_err().kind(),
                &ErrorKind::KeyNotFound
            );
            assert_eq!(m.find("nam").unwrap().map(|r| r.flex_type()), None);
            assert_eq!(m.find("namez").unwrap().map(|r| r.flex_type()), None);
            assert!(m.get("name").unwrap().as_i64().is_err());
        }
    }

    #[test]
    fn typed_slices_are_zero_copy_when_aligned() {
        let mut b = Builder::new();
        b.scalar_vector(&[1.5f64, -2.0, 3.25]).unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = crate::verify(&bytes).unwrap().root();
        // Vec<u8> allocations are at least 8-aligned in practice; check instead of assuming.
        let data = &bytes[root.data_offset().unwrap()..];
        if (data.as_ptr() as usize) % 8 == 0 {
            assert_eq!(root.typed_slice::<f64>().unwrap(), &[1.5, -2.0, 3.25]);
            assert_eq!(
                root.typed_slice::<f64>().unwrap().as_ptr() as *const u8,
                data.as_ptr()
            );
        }
        assert!(root.typed_slice::<i64>().is_none());
        assert!(root.typed_slice::<f32>().is_none());
    }

    #[test]
    fn equal_content_is_equal_across_buffers_and_widths() {
        use std::hash::{BuildHasher, RandomState};
        let build = |share: ShareFlags, wide: bool| {
            let mut b = Builder::with_share(share);
            if wide {
                b.force_min_width(BitWidth::W64);
            }
            b.start_map();
            b.key("street");
            b.string("Main");
            b.key("zip");
            b.uint(12345);
            b.key("tags");
            b.start_vector();
            b.int(1);
            b.double(2.5);
            b.end_vector().unwrap();
            b.end_map().unwrap();
            b.finish_vec().unwrap()
        };
        let (a, b) = (
            build(ShareFlags::KEYS, false),
            build(ShareFlags::NONE, true),
        );
        assert_ne!(a, b);
        let (ra, rb) = (Reader::new(&a).unwrap(), Reader::new(&b).unwrap());
        assert_eq!(ra, rb);
        let s = RandomState::new();
        assert_eq!(s.hash_one(ra), s.hash_one(rb));
        let mut c = Builder::new();
        c.start_map();
        c.end_map().unwrap();
        let empty = c.finish_vec().unwrap();
        assert_ne!(ra, Reader::new(&empty).unwrap());
    }

    #[test]
    fn string_at_agrees_with_get_then_as_str_on_any_bytes() {
        let mut b = Builder::new();
        b.start_vector();
        for s in [
            "",
            "a",
            "Ada ✓",
            "a longer string of more than sixteen bytes",
        ] {
            b.string(s);
        }
        b.int(7);
        b.key("k");
        b.null();
        b.end_vector().unwrap();
        let good = b.finish_vec().unwrap();
        let check = |bytes: &[u8]| {
            let Ok(v) = Reader::new(bytes).and_then(|r| r.as_vector()) else {
                return 0;
            };
            let mut strings = 0;
            for i in 0..v.len() + 1 {
                let general = v.get(i).ok().filter(|e| e.flex_type() == FlexType::String);
                match (v.string_at(i), general) {
                    (Ok(None), None) => {}
                    (got, Some(e)) => {
                        assert_eq!(got.map(|s| s.unwrap()), e.as_str(), "element {i}");
                        strings += 1;
                    }
                    (got, None) => panic!("element {i}: {got:?} for a non-string"),
                }
            }
            strings
        };
        assert_eq!(check(&good), 4);
        for i in 0..good.len() {
            for flip in [0x01, 0x80, 0xa5, 0xff] {
                let mut bad = good.clone();
                bad[i] ^= flip;
                check(&bad);
            }
        }
        // A trusted reader gives the same strings.
        let v = crate::verify(&good).unwrap().root().as_vector().unwrap();
        assert_eq!(v.string_at(2).unwrap(), Some("Ada ✓"));
        assert_eq!(v.string_at(5).unwrap(), None);
    }

    #[test]
    fn hostile_bytes_never_panic() {
        let good = sample();
        for cut in 0..good.len() {
            let r = Reader::new(&good[cut..]);
            if let Ok(r) = r {
                let _ = r.as_map().map(|m| m.iter().count());
                let _ = r.as_vector().map(|v| v.iter().count());
            }
            for i in 0..good.len() {
                let mut bad = good.clone();
                bad[i] ^= 0xa5;
                if let Ok(r) = Reader::new(&bad) {
                    if let Ok(m) = r.as_map() {
                        for e in m.iter().flatten() {
                            let _ = (
                                e.1.as_str(),
                                e.1.as_i64(),
                                e.1.as_f64(),
                                e.1.as_blob(),
                                e.1.len(),
                            );
                        }
                        let _ = m.get("name");
                    }
                    let _ = r == r;
                }
            }
        }
    }
}
