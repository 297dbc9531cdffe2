//! FlexBuffers → JSON text.

use core::fmt::Write as _;

use super::decimal::POW10_F64;
use super::key_text::{KeyText, KeyTexts, Lookup};
use super::{JsonOptions, NonFinite};
use crate::budget::Budget;
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::reader::{read_int, read_uint, word_end, Reader};
use crate::types::FlexType;
use crate::verify::verify_with;
use crate::word::{key_word, word};

/// Verifies `buf` and writes it as compact JSON.
///
/// ```
/// let bytes = flexbuf::from_json(r#"{"b":[1,2.5,"x"],"a":null}"#).unwrap();
/// assert_eq!(flexbuf::to_json(&bytes).unwrap(), r#"{"a":null,"b":[1,2.5,"x"]}"#);
/// ```
pub fn to_json(buf: &[u8]) -> Result<String> {
    to_json_with(buf, &JsonOptions::default())
}

/// Verifies `buf` and writes it as JSON with explicit options.
///
/// The bytes are read once: the writer checks what the verifier checks on
/// every value as it writes it. Only when something is wrong does the
/// verifier run, so the error (kind, offset, path) is exactly the one
/// verifying first would give.
pub fn to_json_with(buf: &[u8], options: &JsonOptions) -> Result<String> {
    let budget = || match options.max_output_bytes {
        Some(max) => Budget::new(max, max),
        None => Budget::for_input(buf.len()),
    };
    // JSON text is usually about as long as the buffer; growth covers the rest.
    let mut out = Vec::with_capacity(buf.len() + buf.len() / 4 + 16);
    let mut b = budget();
    if write_checked(buf, options, &mut b, &mut out).is_ok() {
        // SAFETY: the writer appends only ASCII and bytes it checked are UTF-8.
        return Ok(unsafe { String::from_utf8_unchecked(out) });
    }
    let root = verify_with(buf, &options.verify)?.root();
    // The checked attempt's output is dropped; its allocation is kept.
    out.clear();
    let mut text = String::from_utf8(out).unwrap_or_default();
    write_json(&root, options, &mut budget(), &mut text)?;
    Ok(text)
}

/// Writes the JSON of untrusted `buf` to `out`, checking as the verifier
/// does; any error means "not written", without the verifier's detail.
fn write_checked(
    buf: &[u8],
    options: &JsonOptions,
    budget: &mut Budget,
    out: &mut Vec<u8>,
) -> Result<()> {
    let n = buf.len();
    if n < 3 {
        return Err(malformed(0));
    }
    let width = buf[n - 1] as usize;
    if !matches!(width, 1 | 2 | 4 | 8) {
        return Err(malformed(n - 1));
    }
    let slot = (n - 2).checked_sub(width).ok_or_else(|| malformed(0))?;
    let mut w = Fast::<true> {
        out: core::mem::take(out),
        budget: budget.clone(),
        word_end: word_end(buf),
        pretty: options.pretty,
        non_finite: options.non_finite,
        indent: 0,
        buf,
        depth: 0,
        max_depth: options.verify.max_depth.min(1024),
        sorted: options.verify.require_sorted_keys,
        keys: KeyTexts::new(),
        long_floats: false,
    };
    let r = w.element(slot, width, buf[n - 2]);
    *out = w.out;
    *budget = w.budget;
    r
}

/// Appends the JSON text of `value` to `out`, charging `budget` per node and output byte.
pub fn write_json(
    value: &Reader<'_>,
    options: &JsonOptions,
    budget: &mut Budget,
    out: &mut String,
) -> Result<()> {
    let mut w = Writer {
        options,
        budget,
        out: core::mem::take(out).into_bytes(),
        indent: 0,
    };
    let result = if value.is_trusted() {
        let mut t = Fast::<false> {
            out: core::mem::take(&mut w.out),
            budget: w.budget.clone(),
            word_end: word_end(value.buffer()),
            pretty: options.pretty,
            non_finite: options.non_finite,
            indent: 0,
            buf: value.buffer(),
            depth: 0,
            max_depth: usize::MAX,
            sorted: false,
            keys: KeyTexts::new(),
            long_floats: false,
        };
        let r = t.element(value.offset(), value.slot_width(), value.packed_type());
        w.out = t.out;
        *w.budget = t.budget;
        r
    } else {
        w.value(value)
    };
    // SAFETY: the writer appends only ASCII and the bytes of `&str` values, so
    // the buffer stays UTF-8 (and a partial write ends between two values).
    *out = unsafe { String::from_utf8_unchecked(w.out) };
    result
}

struct Writer<'o> {
    options: &'o JsonOptions,
    budget: &'o mut Budget,
    out: Vec<u8>,
    indent: usize,
}

impl Writer<'_> {
    fn value(&mut self, r: &Reader<'_>) -> Result<()> {
        self.budget.node().map_err(|e| e.with_offset(r.offset()))?;
        let before = self.out.len();
        match r.flex_type() {
            FlexType::Null => self.out.extend_from_slice(b"null"),
            FlexType::Bool => {
                self.out
                    .extend_from_slice(if r.as_bool()? { b"true" } else { b"false" })
            }
            FlexType::Int | FlexType::IndirectInt => {
                let i = r.as_i64()?;
                if i < 0 {
                    self.out.push(b'-');
                }
                write_u64(&mut self.out, i.unsigned_abs());
            }
            FlexType::UInt | FlexType::IndirectUInt => write_u64(&mut self.out, r.as_u64()?),
            FlexType::Float | FlexType::IndirectFloat => self
                .float(r.as_f64()?)
                .map_err(|e| e.with_offset(r.offset()))?,
            FlexType::String | FlexType::Key => {
                let s = r.as_str()?;
                self.budget.bytes(s.len())?;
                write_escaped_bytes(&mut self.out, s.as_bytes());
            }
            FlexType::Blob => {
                let b = r.as_blob()?;
                self.budget.bytes(b.len() * 4 / 3 + 4)?;
                self.out.push(b'"');
                base64(&mut self.out, b);
                self.out.push(b'"');
            }
            FlexType::Map => return self.map(r),
            _ => return self.vector(r),
        }
        self.budget.bytes(self.out.len() - before)
    }

    fn float(&mut self, f: f64) -> Result<()> {
        push_float(&mut self.out, self.options.non_finite, f, &mut false)
    }

    fn newline(&mut self) {
        push_newline(&mut self.out, self.options.pretty, self.indent);
    }

    fn map(&mut self, r: &Reader<'_>) -> Result<()> {
        let m = r.as_map()?;
        self.out.push(b'{');
        self.indent += 1;
        for i in 0..m.len() {
            if i > 0 {
                self.out.push(b',');
            }
            self.newline();
            let key = m.key(i)?;
            self.budget.bytes(key.len() + 4)?;
            write_escaped_bytes(&mut self.out, key.as_bytes());
            self.out.push(b':');
            if self.options.pretty {
                self.out.push(b' ');
            }
            self.value(&m.value(i)?)
                .map_err(|e| e.in_segment(PathSegment::Key(key)))?;
        }
        self.indent -= 1;
        if !m.is_empty() {
            self.newline();
        }
        self.out.push(b'}');
        self.budget.bytes(2)
    }

    fn vector(&mut self, r: &Reader<'_>) -> Result<()> {
        let v = r.as_vector()?;
        self.out.push(b'[');
        self.indent += 1;
        for i in 0..v.len() {
            if i > 0 {
                self.out.push(b',');
            }
            self.newline();
            self.value(&v.get(i)?)
                .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
        }
        self.indent -= 1;
        if !v.is_empty() {
            self.newline();
        }
        self.out.push(b']');
        self.budget.bytes(2)
    }
}

/// A bound on the text [`write_f64_hinted`] writes for a finite float: at
/// most 24 bytes (`-2.2250738585072014e-308`: a sign, 17 digits, a point and
/// an exponent; plain decimals and whole numbers are shorter).
const MAX_FLOAT_TEXT: usize = 32;

/// Appends a float, or what `non_finite` says for NaN and infinities
/// (`long` as [`write_f64_hinted`] takes it).
#[inline]
fn push_float(out: &mut Vec<u8>, non_finite: NonFinite, f: f64, long: &mut bool) -> Result<()> {
    if f.is_finite() {
        write_f64_hinted(out, f, long);
        return Ok(());
    }
    match non_finite {
        NonFinite::Error => return Err(Error::new(ErrorKind::NonFiniteFloat)),
        NonFinite::Null => out.extend_from_slice(b"null"),
        NonFinite::Literal => out.extend_from_slice(if f.is_nan() {
            b"NaN"
        } else if f > 0.0 {
            b"Infinity"
        } else {
            b"-Infinity"
        }),
    }
    Ok(())
}

/// Starts a new line at `indent` levels when writing pretty JSON.
#[inline]
fn push_newline(out: &mut Vec<u8>, pretty: bool, indent: usize) {
    if pretty {
        out.push(b'\n');
        for _ in 0..indent {
            out.extend_from_slice(b"  ");
        }
    }
}

/// The writer that reads values straight from the bytes, with no reader
/// built per value.
///
/// With `CHECKED` off it writes a verified buffer and checks nothing. With
/// it on, it writes untrusted bytes and checks, on every value it reaches,
/// what the verifier checks there (offsets, sizes and spans, widths, type
/// codes, NUL terminators, UTF-8, key order, keys and values of equal
/// length, depth): the writer reaches every value the verifier does, so it
/// finishes only on bytes the verifier accepts. Its errors are not the
/// verifier's (no offset or path is worked out here): on any failure,
/// [`to_json_with`] runs the verifier for the error, so callers see the same
/// result as from verifying first.
struct Fast<'b, const CHECKED: bool> {
    out: Vec<u8>,
    /// The caller's budget, held here while writing (one load and store
    /// less per charge than through a reference) and handed back after.
    budget: Budget,
    /// [`word_end`] of `buf`: a word is read straight from any position below it.
    word_end: usize,
    pretty: bool,
    non_finite: NonFinite,
    indent: usize,
    buf: &'b [u8],
    /// Containers open around the value being written (checked mode).
    depth: usize,
    /// Deepest nesting accepted (checked mode).
    max_depth: usize,
    /// Map keys must be strictly ascending (checked mode).
    sorted: bool,
    /// Keys written before, by position.
    keys: KeyTexts,
    /// The last float written needed the digit search: see [`write_f64_hinted`].
    long_floats: bool,
}

/// A failure of the checked writer: the bytes are not what the verifier
/// accepts (it names the problem), or writing them failed.
#[cold]
fn malformed(at: usize) -> Error {
    Error::at(ErrorKind::Truncated, at)
}

impl<const CHECKED: bool> Fast<'_, CHECKED> {
    #[inline(always)]
    fn uint(&self, at: usize, width: usize) -> Result<u64> {
        if at < self.word_end {
            // `width` is 1, 2, 4 or 8 wherever this is called (slot widths
            // come from two bits, keys vector widths are checked).
            debug_assert!(matches!(width, 1 | 2 | 4 | 8));
            return Ok(self.word(at) & u64::MAX.wrapping_shr(64 - 8 * width as u32));
        }
        if CHECKED {
            read_uint(self.buf, at, width)
        } else {
            Ok(read_uint(self.buf, at, width).unwrap_or(0))
        }
    }

    /// The word (8 bytes, little-endian) at `at`: callers check `at <
    /// word_end` first (this checks again, which the optimiser folds into
    /// theirs; past the end it reads 0).
    #[inline(always)]
    fn word(&self, at: usize) -> u64 {
        if at >= self.word_end {
            return 0;
        }
        // SAFETY: `at < word_end = len - 7`, so `at + 8 <= len`.
        u64::from_le(unsafe { (self.buf.as_ptr().add(at) as *const u64).read_unaligned() })
    }

    #[inline(always)]
    fn int(&self, at: usize, width: usize) -> Result<i64> {
        if at < self.word_end {
            // Sign-extended from the top byte of the `width` read.
            let shift = 64 - 8 * width as u32;
            return Ok((self.word(at).wrapping_shl(shift) as i64).wrapping_shr(shift));
        }
        if CHECKED {
            read_int(self.buf, at, width)
        } else {
            Ok(read_int(self.buf, at, width).unwrap_or(0))
        }
    }

    #[inline(always)]
    fn float(&self, at: usize, width: usize) -> Result<f64> {
        Ok(match width {
            4 => f32::from_bits(self.uint(at, 4)? as u32) as f64,
            _ => f64::from_bits(self.uint(at, 8)?),
        })
    }

    /// The position the offset in the `width`-byte slot at `at` points to.
    #[inline(always)]
    fn target(&self, at: usize, width: usize) -> Result<usize> {
        let off = self.uint(at, width)?;
        if CHECKED && off > at as u64 {
            return Err(malformed(at));
        }
        Ok(at - off as usize)
    }

    /// The size prefix, `w` bytes wide, of the sized value whose data is at `data`.
    #[inline(always)]
    fn size(&self, data: usize, w: usize) -> Result<usize> {
        if !CHECKED {
            return Ok(self.uint(data - w, w)? as usize);
        }
        let at = data.checked_sub(w).ok_or_else(|| malformed(data))?;
        let len = self.uint(at, w)?;
        if len > self.buf.len() as u64 {
            return Err(malformed(at));
        }
        Ok(len as usize)
    }

    /// Checks that `count` units of `unit` bytes from `at` are inside the buffer.
    #[inline(always)]
    fn span(&self, at: usize, count: usize, unit: usize) -> Result<()> {
        if CHECKED
            && count
                .checked_mul(unit)
                .and_then(|b| b.checked_add(at))
                .is_none_or(|end| end > self.buf.len())
        {
            return Err(malformed(at));
        }
        Ok(())
    }

    /// One more level of nesting, as the verifier counts it.
    #[inline(always)]
    fn enter(&mut self, at: usize) -> Result<()> {
        if CHECKED {
            if self.depth >= self.max_depth {
                return Err(malformed(at));
            }
            self.depth += 1;
        }
        Ok(())
    }

    #[inline(always)]
    fn leave(&mut self) {
        if CHECKED {
            self.depth -= 1;
        }
    }

    fn int_text(&mut self, i: i64) {
        if i < 0 {
            self.out.push(b'-');
        }
        write_u64(&mut self.out, i.unsigned_abs());
    }

    /// Bytes of the NUL-terminated key at `at` (checked: found, and UTF-8).
    #[inline]
    fn key(&self, at: usize) -> Result<&'_ [u8]> {
        let tail = &self.buf[at..];
        match crate::utf8::scan_key(tail) {
            Some(k) if !CHECKED || k.ascii || crate::utf8::is_utf8(&tail[..k.len]) => {
                Ok(&tail[..k.len])
            }
            _ => Err(malformed(at)),
        }
    }

    /// Writes the string of `len` bytes at `at` (checked: NUL-terminated
    /// inside the buffer, and UTF-8).
    #[inline(always)]
    fn string(&mut self, at: usize, len: usize) -> Result<()> {
        if CHECKED {
            // `size` bounds `len` by the buffer length: no overflow.
            if at + len >= self.buf.len() || self.buf[at + len] != 0 {
                return Err(malformed(at));
            }
        }
        self.budget.bytes(len)?;
        if len <= 16 && at + 8 < self.word_end {
            if let Some((k0, k1)) = short_ascii(self.word(at), self.word(at + 8), len) {
                self.quoted(k0, k1, len, b'"' as u32, 1);
                return Ok(());
            }
        }
        let bytes = &self.buf[at..at + len];
        let ascii = write_escaped_bytes(&mut self.out, bytes);
        if CHECKED && !ascii && !crate::utf8::is_utf8(bytes) {
            return Err(malformed(at));
        }
        Ok(())
    }

    /// [`element`](Self::element) for a value it does not write itself:
    /// containers, keys, blobs and indirect numbers.
    fn other(&mut self, slot: usize, pw: usize, packed: u8) -> Result<()> {
        // Containers here, everything else in `leaf`: nesting recurses
        // through this function, so its frame is kept small (a debug build
        // writing 1,000 nested arrays must fit the main thread's stack).
        self.budget.node().map_err(|e| e.with_offset(slot))?;
        let w = 1usize << (packed & 3);
        match FlexType::from_code(packed >> 2) {
            Some(FlexType::Map) => {
                let at = self.target(slot, pw)?;
                self.map(at, w)
            }
            Some(FlexType::Vector) => {
                let at = self.target(slot, pw)?;
                self.vector(at, w)
            }
            Some(t) if t.is_typed_vector() || t.is_fixed_typed_vector() => {
                let at = self.target(slot, pw)?;
                self.typed_vector(t, at, w)
            }
            _ => self.leaf(slot, pw, packed),
        }
    }

    /// A typed or fixed vector of type `t` whose data is at `at`.
    fn typed_vector(&mut self, t: FlexType, at: usize, w: usize) -> Result<()> {
        let (elem, len) = match t.fixed_vector_element() {
            Some(fixed) => fixed,
            None => (
                t.typed_vector_element().unwrap_or(FlexType::Key),
                self.size(at, w)?,
            ),
        };
        // No float is 1 or 2 bytes wide; an empty typed vector has no
        // element to misread (the verifier's rule).
        let empty_ok = t.fixed_vector_element().is_none() && len == 0;
        if CHECKED && elem == FlexType::Float && w < 4 && !empty_ok {
            return Err(malformed(at));
        }
        self.span(at, len, w)?;
        self.typed(at, w, elem, len)
    }

    /// A key, a blob or an indirect number (its node is charged already):
    /// what neither [`element`](Self::element) nor [`other`](Self::other)
    /// writes itself.
    #[inline(never)]
    fn leaf(&mut self, slot: usize, pw: usize, packed: u8) -> Result<()> {
        let before = self.out.len();
        let w = 1usize << (packed & 3);
        let Some(ty) = FlexType::from_code(packed >> 2) else {
            return Err(Error::at(ErrorKind::UnknownType(packed), slot));
        };
        match ty {
            FlexType::IndirectInt => {
                let at = self.target(slot, pw)?;
                self.span(at, w, 1)?;
                let i = self.int(at, w)?;
                self.int_text(i)
            }
            FlexType::IndirectUInt => {
                let at = self.target(slot, pw)?;
                self.span(at, w, 1)?;
                let u = self.uint(at, w)?;
                write_u64(&mut self.out, u)
            }
            FlexType::IndirectFloat => {
                let at = self.target(slot, pw)?;
                if CHECKED && w < 4 {
                    return Err(malformed(slot));
                }
                self.span(at, w, 1)?;
                let f = self.float(at, w)?;
                self.float_text(f, slot)?
            }
            FlexType::Key => {
                let at = self.target(slot, pw)?;
                let len = self.key(at)?.len();
                self.budget.bytes(len)?;
                write_escaped_bytes(&mut self.out, &self.buf[at..at + len]);
            }
            FlexType::Blob => {
                let at = self.target(slot, pw)?;
                let len = self.size(at, w)?;
                self.span(at, len, 1)?;
                self.budget.bytes(len * 4 / 3 + 4)?;
                self.out.push(b'"');
                base64(&mut self.out, &self.buf[at..at + len]);
                self.out.push(b'"');
            }
            // `element` writes every inline number it accepts, null,
            // booleans and strings (a float narrower than 4 bytes is all
            // that can reach here), and `other` every container.
            _ => return Err(malformed(slot)),
        }
        self.budget.bytes(self.out.len() - before)
    }

    /// Writes an inline int, uint or float (the elements of numeric arrays):
    /// [`element`](Self::element) starts here; false (nothing written or
    /// charged) for every other type.
    #[inline(always)]
    fn inline_number(&mut self, slot: usize, pw: usize, packed: u8) -> Result<bool> {
        const INT: u8 = FlexType::Int as u8;
        const UINT: u8 = FlexType::UInt as u8;
        const FLOAT: u8 = FlexType::Float as u8;
        let code = packed >> 2;
        if !matches!(code, INT | UINT | FLOAT) || (CHECKED && code == FLOAT && pw < 4) {
            return Ok(false);
        }
        self.budget.node().map_err(|e| e.with_offset(slot))?;
        let before = self.out.len();
        match code {
            INT => {
                let i = self.int(slot, pw)?;
                self.int_text(i)
            }
            UINT => {
                let u = self.uint(slot, pw)?;
                write_u64(&mut self.out, u)
            }
            _ => {
                let f = self.float(slot, pw)?;
                self.float_text(f, slot)?
            }
        }
        self.budget.bytes(self.out.len() - before)?;
        Ok(true)
    }

    fn float_text(&mut self, f: f64, at: usize) -> Result<()> {
        push_float(&mut self.out, self.non_finite, f, &mut self.long_floats)
            .map_err(|e| e.with_offset(at))
    }

    fn map(&mut self, at: usize, w: usize) -> Result<()> {
        self.enter(at)?;
        let len = self.size(at, w)?;
        self.span(at, len, w + 1)?;
        let prefix = if CHECKED {
            at.checked_sub(3 * w).ok_or_else(|| malformed(at))?
        } else {
            at - 3 * w
        };
        let keys = self.target(prefix, w)?;
        let kw = self.uint(prefix + w, w)? as usize;
        if CHECKED {
            if !matches!(kw, 1 | 2 | 4 | 8) || self.size(keys, kw)? != len {
                return Err(malformed(prefix));
            }
            self.span(keys, len, kw)?;
        }
        let types = at + len * w;
        self.out.push(b'{');
        self.indent += 1;
        // The previous key: its position, length and first word.
        let mut prev = (0usize, 0usize, 0u64);
        for i in 0..len {
            if i > 0 {
                self.out.push(b',');
            }
            push_newline(&mut self.out, self.pretty, self.indent);
            let key_at = self.target(keys + i * kw, kw)?;
            // `"key":` written (and checked, the first time), and the key's length.
            let key_len = match self.keys.get(key_at) {
                Lookup::Cached(k) => {
                    self.keys.write(k, &mut self.out);
                    k.len as usize
                }
                Lookup::Seen(slot) => {
                    let k = self.cache_key(slot, key_at)?;
                    self.keys.write(k, &mut self.out);
                    k.len as usize
                }
                Lookup::New(slot) => {
                    self.keys.note(slot, key_at);
                    self.new_key(key_at)?
                }
            };
            self.budget.bytes(key_len + 4)?;
            if CHECKED && self.sorted {
                let word = key_word(self.buf, key_at, key_len);
                if i > 0 {
                    let (p_at, p_len, p_word) = prev;
                    let less = if p_word != word {
                        p_word < word
                    } else {
                        (p_len > 8 || key_len > 8)
                            && crate::verify::key_less(self.buf, p_at, key_at)
                    };
                    if !less {
                        return Err(malformed(keys + i * kw));
                    }
                }
                prev = (key_at, key_len, word);
            }
            let (slot, ty) = (at + i * w, self.buf[types + i]);
            let written = self.element(slot, w, ty);
            written.map_err(|e| self.in_key(e, key_at))?;
        }
        self.indent -= 1;
        if len > 0 {
            push_newline(&mut self.out, self.pretty, self.indent);
        }
        self.out.push(b'}');
        self.leave();
        self.budget.bytes(2)
    }

    /// Keeps in `slot` the text of the key at `key_at`, met for the second time.
    #[inline(never)]
    fn cache_key(&mut self, slot: usize, key_at: usize) -> Result<KeyText> {
        let len = self.key(key_at)?.len();
        let key = &self.buf[key_at..key_at + len];
        Ok(self.keys.insert(slot, key_at, key, self.pretty, |out, k| {
            write_escaped_bytes(out, k);
        }))
    }

    /// Writes a quote, the `n` bytes (`n <= 16`) held by the words `k0` and
    /// `k1` (zero past them), then the first `tail_len` bytes of `tail`
    /// (little-endian: a closing quote, and a colon and space after a key).
    #[inline(always)]
    fn quoted(&mut self, k0: u64, k1: u64, n: usize, tail: u32, tail_len: usize) {
        self.out.reserve(24);
        let at = self.out.len();
        // SAFETY: 24 bytes were reserved past `at`; the writes end by `at +
        // 17` and `at + n + 5 <= at + 21`, and the length then covers only
        // bytes written: the quote, the `n` bytes and `tail_len <= 4` of the tail.
        unsafe {
            let p = self.out.as_mut_ptr().add(at);
            *p = b'"';
            (p.add(1) as *mut [u8; 8]).write_unaligned(k0.to_le_bytes());
            (p.add(9) as *mut [u8; 8]).write_unaligned(k1.to_le_bytes());
            (p.add(n + 1) as *mut [u8; 4]).write_unaligned(tail.to_le_bytes());
            self.out.set_len(at + n + 1 + tail_len);
        }
    }

    /// Writes `"key":` (checked) for the key at `key_at`, met for the first
    /// time, and returns its length. A key of at most 15 ASCII bytes with
    /// nothing to escape (most keys) is found, checked and written as the
    /// two words that hold it and its NUL.
    #[inline(always)]
    fn new_key(&mut self, key_at: usize) -> Result<usize> {
        use crate::word::zero_bytes;
        // `": "` when pretty: the space is written, and counted only then.
        let (tail, tail_len) = (u32::from_le_bytes(*b"\":  "), 2 + self.pretty as usize);
        if key_at < self.word_end {
            let w0 = self.word(key_at);
            let z0 = zero_bytes(w0);
            // The lowest flagged byte is the key's NUL (`zero_bytes` is exact there).
            if z0 != 0 {
                let n = (z0.trailing_zeros() / 8) as usize;
                if let Some(k0) = ascii_word(w0, n) {
                    self.quoted(k0, 0, n, tail, tail_len);
                    return Ok(n);
                }
            } else if key_at + 8 < self.word_end {
                let w1 = self.word(key_at + 8);
                let z1 = zero_bytes(w1);
                if z1 != 0 {
                    let n = (z1.trailing_zeros() / 8) as usize;
                    if let (Some(k0), Some(k1)) = (ascii_word(w0, 8), ascii_word(w1, n)) {
                        self.quoted(k0, k1, 8 + n, tail, tail_len);
                        return Ok(8 + n);
                    }
                }
            }
        }
        let len = self.key(key_at)?.len();
        write_escaped_bytes(&mut self.out, &self.buf[key_at..key_at + len]);
        self.out.push(b':');
        if self.pretty {
            self.out.push(b' ');
        }
        Ok(len)
    }

    /// The value in the `pw`-byte slot at `slot` whose packed type is
    /// `packed` (the root, an element of a map or an untyped vector, or of a
    /// typed vector): numbers, null, booleans and strings are written here,
    /// everything else by [`other`](Self::other).
    #[inline(always)]
    fn element(&mut self, slot: usize, pw: usize, packed: u8) -> Result<()> {
        const NULL: u8 = FlexType::Null as u8;
        const BOOL: u8 = FlexType::Bool as u8;
        const STRING: u8 = FlexType::String as u8;
        if self.inline_number(slot, pw, packed)? {
            return Ok(());
        }
        match packed >> 2 {
            NULL => {
                self.budget.node().map_err(|e| e.with_offset(slot))?;
                self.out.extend_from_slice(b"null");
                self.budget.bytes(4)
            }
            BOOL => {
                self.budget.node().map_err(|e| e.with_offset(slot))?;
                let text: &[u8] = if self.uint(slot, pw)? != 0 {
                    b"true"
                } else {
                    b"false"
                };
                self.out.extend_from_slice(text);
                self.budget.bytes(text.len())
            }
            STRING => self.string_value(slot, pw, packed),
            _ => self.other(slot, pw, packed),
        }
    }

    /// A string element (see [`element`](Self::element)).
    #[inline(never)]
    fn string_value(&mut self, slot: usize, pw: usize, packed: u8) -> Result<()> {
        self.budget.node().map_err(|e| e.with_offset(slot))?;
        let before = self.out.len();
        let at = self.target(slot, pw)?;
        let len = self.size(at, 1usize << (packed & 3))?;
        self.string(at, len)?;
        self.budget.bytes(self.out.len() - before)
    }

    /// `e`, which came out of the value under the (checked) key at `key_at`,
    /// with that key added to its path.
    #[cold]
    fn in_key(&self, e: Error, key_at: usize) -> Error {
        match self.key(key_at) {
            // The key was checked UTF-8 before its value was written (or by the verifier).
            Ok(key) => e.in_segment(PathSegment::Key(unsafe {
                // SAFETY: see above.
                core::str::from_utf8_unchecked(key)
            })),
            Err(_) => e,
        }
    }

    fn vector(&mut self, at: usize, w: usize) -> Result<()> {
        self.enter(at)?;
        let len = self.size(at, w)?;
        self.span(at, len, w + 1)?;
        // Untyped: each element's packed type follows the elements.
        self.array(at, w, len, at + len * w, None)?;
        self.leave();
        Ok(())
    }

    /// Typed and fixed vectors: every element has the type `elem` at width `w`.
    fn typed(&mut self, at: usize, w: usize, elem: FlexType, len: usize) -> Result<()> {
        self.enter(at)?;
        let packed = crate::types::pack_type(
            elem,
            crate::types::BitWidth::from_bytes(w as u64).unwrap_or(crate::types::BitWidth::W8),
        );
        self.array(at, w, len, 0, Some(packed))?;
        self.leave();
        Ok(())
    }

    /// Writes the leading elements of the array [`array`](Self::array) is
    /// given that are finite floats (in compact JSON, `w` 4 or 8), separated
    /// by commas, and returns how many; the array's loop goes on from there.
    /// The text and the budget charged are those of writing each through
    /// [`element`](Self::element), without its per-element dispatch (a
    /// coordinate pair, a series). A run that could exhaust the budget is
    /// left to the loop (0), so the budget fails where it would.
    #[inline]
    fn float_run(
        &mut self,
        at: usize,
        w: usize,
        len: usize,
        types: usize,
        packed: Option<u8>,
    ) -> usize {
        const FLOAT: u8 = FlexType::Float as u8;
        if self.budget.nodes_left() < len as u64
            || self.budget.bytes_left() < (len as u64).saturating_mul(MAX_FLOAT_TEXT as u64)
        {
            return 0;
        }
        // Room for a short run at once; a long one grows the text as it goes
        // (reserving for the longest text of millions of floats could take
        // three times the memory the text needs).
        self.out.reserve(len.min(1024) * (MAX_FLOAT_TEXT + 1));
        let before = self.out.len();
        let mut i = 0;
        while i < len {
            let ty = match packed {
                Some(p) => p,
                None => match self.buf.get(types + i) {
                    Some(&t) => t,
                    None => break,
                },
            };
            if ty >> 2 != FLOAT {
                break;
            }
            let f = match self.float(at + i * w, w) {
                Ok(f) if f.is_finite() => f,
                _ => break,
            };
            if i > 0 {
                self.out.push(b',');
            }
            write_f64_hinted(&mut self.out, f, &mut self.long_floats);
            i += 1;
        }
        // Within the budget checked above: each float's text is at most
        // MAX_FLOAT_TEXT bytes; commas are not charged (as in the loop).
        let text = self.out.len() - before - i.saturating_sub(1);
        let charged = self.budget.nodes(i).and_then(|()| self.budget.bytes(text));
        debug_assert!(charged.is_ok());
        i
    }

    /// Writes the element in the `pw`-byte slot at `slot`, whose packed
    /// type `packed` is an untyped vector's (the caller checks), when that
    /// vector holds one to four finite floats (a coordinate pair of
    /// GeoJSON, a point, a quaternion), in compact JSON, and returns true;
    /// returns false, having written and charged nothing, for any other
    /// vector, which [`element`](Self::element) then writes (and, checked,
    /// rejects where the verifier does).
    ///
    /// The text, the budget charged (a node for the vector and one per
    /// float, the floats' text and the two brackets) and the checks (offset,
    /// nesting depth, size, span, element types and widths) are those of
    /// [`other`](Self::other), [`vector`](Self::vector), [`array`](Self::array)
    /// and [`float_run`](Self::float_run), without their calls: canada.json's
    /// 55,000 pairs spent about 200 instructions each there, floats aside.
    #[inline(never)]
    fn short_floats(&mut self, slot: usize, pw: usize, packed: u8) -> bool {
        const FLOAT: u8 = FlexType::Float as u8;
        debug_assert_eq!(packed >> 2, FlexType::Vector as u8);
        if self.pretty {
            return false;
        }
        // Floats are 4 or 8 bytes wide.
        let w = 1usize << (packed & 3);
        if w < 4 {
            return false;
        }
        let Ok(at) = self.target(slot, pw) else {
            return false;
        };
        if CHECKED && self.depth >= self.max_depth {
            return false;
        }
        let Ok(len) = self.size(at, w) else {
            return false;
        };
        if !(1..=4).contains(&len) || self.span(at, len, w + 1).is_err() {
            return false;
        }
        let types = at + len * w;
        let mut floats = [0f64; 4];
        for (i, f) in floats.iter_mut().enumerate().take(len) {
            if self.buf[types + i] >> 2 != FLOAT {
                return false;
            }
            match self.float(at + i * w, w) {
                Ok(x) if x.is_finite() => *f = x,
                _ => return false,
            }
        }
        // Room for the vector's node, its floats' and their longest text
        // (and the brackets): otherwise the general path fails where it would.
        let n = len as u64;
        if self.budget.nodes_left() < n + 1
            || self.budget.bytes_left() < n * MAX_FLOAT_TEXT as u64 + 2
        {
            return false;
        }
        self.out.reserve(len * (MAX_FLOAT_TEXT + 1) + 2);
        let before = self.out.len();
        self.out.push(b'[');
        for (i, &f) in floats.iter().enumerate().take(len) {
            if i > 0 {
                self.out.push(b',');
            }
            write_f64_hinted(&mut self.out, f, &mut self.long_floats);
        }
        self.out.push(b']');
        // Commas are not charged, brackets are (as in `array`).
        let text = self.out.len() - before - (len - 1);
        let charged = self
            .budget
            .nodes(len + 1)
            .and_then(|()| self.budget.bytes(text));
        debug_assert!(charged.is_ok());
        true
    }

    /// `len` elements of `w` bytes from `at` as a JSON array, each of the type
    /// `packed` or, without one, of the type byte at `types + i`.
    fn array(
        &mut self,
        at: usize,
        w: usize,
        len: usize,
        types: usize,
        packed: Option<u8>,
    ) -> Result<()> {
        self.out.push(b'[');
        self.indent += 1;
        let run = if self.pretty || w < 4 {
            0
        } else {
            self.float_run(at, w, len, types, packed)
        };
        for i in run..len {
            if i > 0 {
                self.out.push(b',');
            }
            push_newline(&mut self.out, self.pretty, self.indent);
            let ty = packed.unwrap_or_else(|| self.buf[types + i]);
            let slot = at + i * w;
            if ty >> 2 == FlexType::Vector as u8 && self.short_floats(slot, w, ty) {
                continue;
            }
            self.element(slot, w, ty)
                .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
        }
        self.indent -= 1;
        if len > 0 {
            push_newline(&mut self.out, self.pretty, self.indent);
        }
        self.out.push(b']');
        self.budget.bytes(2)
    }
}

/// The first `n` bytes of `w` (`n <= 8`; the others zeroed) when they are
/// ASCII with nothing JSON escapes.
#[inline(always)]
fn ascii_word(w: u64, n: usize) -> Option<u64> {
    use crate::word::{HI, LO};
    let below = match n {
        0 => 0,
        1..=7 => u64::MAX >> (64 - 8 * n),
        _ => u64::MAX,
    };
    let k = w & below;
    // Bytes past the text read as letters: nothing to escape there.
    let clean = k & HI == 0 && !super::needs_escape(k | ((LO * b'a' as u64) & !below));
    clean.then_some(k)
}

/// The first `n` bytes (`n <= 16`) of the two words `w0` and `w1` (16 bytes
/// read from where a text starts, whatever follows it) as two words, zero
/// past them, when they are ASCII with nothing JSON escapes.
#[inline(always)]
fn short_ascii(w0: u64, w1: u64, n: usize) -> Option<(u64, u64)> {
    let k0 = ascii_word(w0, n.min(8))?;
    let k1 = if n > 8 { ascii_word(w1, n - 8)? } else { 0 };
    Some((k0, k1))
}

/// Writes UTF-8 `s` as a JSON string literal (RFC 8259 escapes, non-ASCII
/// kept as is): runs with nothing to escape are found a word at a time and
/// copied whole; the last word, read overlapping the one before it, covers
/// the tail, so only strings shorter than a word, and the bytes around an
/// escape, are looked at one by one. Returns whether `s` is all ASCII (so
/// a checked writer need not validate it as UTF-8).
#[inline]
fn write_escaped_bytes(out: &mut Vec<u8>, s: &[u8]) -> bool {
    let n = s.len();
    // Most keys and short strings: up to 16 bytes with nothing to escape,
    // decided from two overlapping words (shorter strings padded with a
    // letter) and written with one reservation.
    if n <= 16 {
        let (a, b) = if n >= 8 {
            (word(s, 0), word(s, n - 8))
        } else {
            let mut pad = [b'a'; 8];
            pad[..n].copy_from_slice(s);
            (u64::from_le_bytes(pad), 0x6161_6161_6161_6161)
        };
        if !super::needs_escape(a) && !super::needs_escape(b) {
            // The bytes go out as the two words just read (overlapping when
            // 8 < n < 16; a short string's padding is overwritten by the
            // closing quote or left beyond the length).
            out.reserve(18);
            let at = out.len();
            // SAFETY: 18 bytes were reserved past `at`; the writes end by
            // `at + 1 + max(n, 8) <= at + 17`, and the first `n + 2` bytes
            // are all written (quote, the `n` bytes, quote) before the
            // length is set to cover exactly them.
            unsafe {
                let p = out.as_mut_ptr().add(at);
                *p = b'"';
                (p.add(1) as *mut [u8; 8]).write_unaligned(a.to_le_bytes());
                if n >= 8 {
                    (p.add(n - 7) as *mut [u8; 8]).write_unaligned(b.to_le_bytes());
                }
                *p.add(n + 1) = b'"';
                out.set_len(at + n + 2);
            }
            // The padding of a short string is ASCII.
            return (a | b) & crate::word::HI == 0;
        }
    }
    write_escaped_long(out, s)
}

/// [`write_escaped_bytes`] for strings longer than 16 bytes or with
/// something to escape (out of line, so the short path stays small): the
/// runs between escapes are found by [`next_escape`] and copied whole.
#[inline(never)]
fn write_escaped_long(out: &mut Vec<u8>, s: &[u8]) -> bool {
    let mut high = false;
    out.reserve(s.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(i) = next_escape(s, start, &mut high) {
        out.extend_from_slice(&s[start..i]);
        let b = s[i];
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            _ => b"",
        };
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 15) as usize]);
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
    out.push(b'"');
    !high
}

/// The position of the first byte of `s` at or after `from` that JSON
/// escapes (a quote, a backslash, a control character), if any. Sets
/// `high` when a byte it looked at is not ASCII; every byte from `from` up
/// to the position returned (or the end) is looked at. Sixteen bytes at a
/// time with SSE2 (part of every x86-64 processor).
#[cfg(target_arch = "x86_64")]
#[inline]
fn next_escape(s: &[u8], from: usize, high: &mut bool) -> Option<usize> {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128, _mm_subs_epu8,
    };
    let n = s.len();
    // The bits of the bytes to escape among the 16 at `at`, and whether any is not ASCII.
    let chunk = |at: usize| -> (u32, bool) {
        // SAFETY: callers pass `at + 16 <= n`; SSE2 is in the x86-64 baseline.
        unsafe {
            let v = _mm_loadu_si128(s.as_ptr().add(at) as *const __m128i);
            // Unsigned `v <= 0x1f` is `v - 0x1f` saturating at zero.
            let control =
                _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1f)), _mm_setzero_si128());
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let escape = _mm_or_si128(control, _mm_or_si128(quote, backslash));
            (_mm_movemask_epi8(escape) as u32, _mm_movemask_epi8(v) != 0)
        }
    };
    let mut i = from;
    while i + 16 <= n {
        let (escape, h) = chunk(i);
        *high |= h;
        if escape != 0 {
            return Some(i + escape.trailing_zeros() as usize);
        }
        i += 16;
    }
    if i >= n {
        return None;
    }
    if n >= 16 {
        // The last 16 bytes, overlapping bytes looked at already (or, before
        // `from`, by the calls before): only escapes from `i` on count.
        let (escape, h) = chunk(n - 16);
        *high |= h;
        let escape = escape >> (i - (n - 16));
        return (escape != 0).then(|| i + escape.trailing_zeros() as usize);
    }
    next_escape_bytes(s, i, high)
}

/// [`next_escape`] on other processors: eight bytes at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn next_escape(s: &[u8], from: usize, high: &mut bool) -> Option<usize> {
    let n = s.len();
    let mut i = from;
    while i + 8 <= n {
        let w = word(s, i);
        *high |= w & crate::word::HI != 0;
        if super::needs_escape(w) {
            return next_escape_bytes(&s[..i + 8], i, high);
        }
        i += 8;
    }
    next_escape_bytes(s, i, high)
}

/// [`next_escape`] one byte at a time.
fn next_escape_bytes(s: &[u8], from: usize, high: &mut bool) -> Option<usize> {
    for (i, &b) in s.iter().enumerate().skip(from) {
        *high |= b >= 0x80;
        if b < 0x20 || b == b'"' || b == b'\\' {
            return Some(i);
        }
    }
    None
}

/// Two decimal digits of every number below 100.
const DIGITS2: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The four digits of `v < 10^4`, leading zeros included.
#[inline(always)]
fn four_digits(v: u64) -> [u8; 4] {
    let (hi, lo) = ((v / 100) as usize * 2, (v % 100) as usize * 2);
    [DIGITS2[hi], DIGITS2[hi + 1], DIGITS2[lo], DIGITS2[lo + 1]]
}

/// Appends the decimal digits of `v`: below 10^4 as one word (see below);
/// otherwise the length comes first (from the base-10 logarithm), then the
/// digits are written from the last one back, four at a time, straight into
/// the reserved spare capacity.
pub(crate) fn write_u64(out: &mut Vec<u8>, mut v: u64) {
    if v < 10_000 {
        // Most integers in data (counts, small ids, sizes): the four digits
        // with their leading zeros as one word, shifted past those zeros,
        // and stored whole; no branch on the digit count (which data that
        // mixes one- and two-digit numbers mispredicts).
        let text = u32::from_le_bytes(four_digits(v));
        let n = 1 + (v >= 10) as usize + (v >= 100) as usize + (v >= 1000) as usize;
        out.reserve(4);
        let len = out.len();
        // SAFETY: 4 bytes are reserved past `len` and written; the length
        // then grows by the `n <= 4` digits, which the word's low bytes hold
        // after the shift drops the `4 - n` leading zeros.
        unsafe {
            (out.as_mut_ptr().add(len) as *mut u32)
                .write_unaligned((text >> (8 * (4 - n))).to_le());
            out.set_len(len + n);
        }
        return;
    }
    let n = v.ilog10() as usize + 1;
    out.reserve(n);
    let len = out.len();
    // SAFETY: `n` bytes after `len` are reserved. `at` starts at `n` and every
    // write below first moves it down by the bytes it writes, so each write
    // lands inside those `n` bytes; the digit count of `v` makes `at` end at
    // exactly 0 (asserted in debug builds), so all `n` are written before
    // `set_len`. `DIGITS2` reads are at `2 * d` for `d < 100`.
    unsafe {
        let dst = out.as_mut_ptr().add(len);
        let pair = |d: u64, to: *mut u8| {
            core::ptr::copy_nonoverlapping(DIGITS2.as_ptr().add(d as usize * 2), to, 2)
        };
        let mut at = n;
        while v >= 10_000 {
            let four = v % 10_000;
            v /= 10_000;
            at -= 4;
            pair(four / 100, dst.add(at));
            pair(four % 100, dst.add(at + 2));
        }
        if v >= 100 {
            at -= 2;
            pair(v % 100, dst.add(at));
            v /= 100;
        }
        if v >= 10 {
            at -= 2;
            pair(v, dst.add(at));
        } else {
            at -= 1;
            *dst.add(at) = b'0' + v as u8;
        }
        debug_assert_eq!(at, 0);
        out.set_len(len + n);
    }
}

/// Appends a finite float exactly as `format!("{f:?}")` writes it: the
/// shortest digits that read back to the same `f64`, with an exponent below
/// 1e-4 and from 1e16 up. Whole numbers below 2^53 (counts, timestamps,
/// prices like 3.0) and fractions whose exact decimal value has at most 15
/// digits (356.5, 0.25) skip the digit search.
///
/// A writer of many floats carries `long` from one to the next (the text
/// does not depend on it, only the order things are tried in). Floats come in
/// runs of one kind (readings with a few decimals; or results of arithmetic,
/// such as projected coordinates, whose shortest digits are 16 or 17 long).
/// A float of the second kind sets `long`, and while it is set floats go
/// straight to the digit search, skipping the two tries (a division
/// each) that cannot find their digits; the first short text the search
/// writes clears it. (Floats whose exact decimal is short, as -65.625,
/// still take the tries, and leave it set.)
#[inline]
fn write_f64_hinted(out: &mut Vec<u8>, f: f64, long: &mut bool) {
    let a = f.abs();
    if (1.0..9_007_199_254_740_992.0).contains(&a) {
        // SAFETY: `a` is finite and below 2^53, so it fits an i64 (exactly,
        // when whole). This is one instruction, where `fract` is a library
        // call on the baseline x86-64 target and `as` adds saturation checks.
        let whole = unsafe { a.to_int_unchecked::<i64>() } as u64;
        if whole as i64 as f64 == a {
            if f < 0.0 {
                out.push(b'-');
            }
            write_u64(out, whole);
            out.extend_from_slice(b".0");
            return;
        }
    }
    if *long {
        let before = out.len();
        if searched_f64(out, f) {
            // 16 bytes hold a sign, a point and 14 digits: the tries find those.
            *long = out.len() - before > 16;
            return;
        }
    }
    if (1e-4..1e4).contains(&a) && four_decimals(out, f, a) {
        return;
    }
    if (1e-4..1e14).contains(&a) {
        // Below 10^4 its first try repeats `four_decimals`' failed one: the
        // optimiser folds it away (an explicit flag to skip it measured
        // 1.7% more instructions on metrics_96k).
        if let Some((digits, k)) = fifteen_digits(a) {
            if f < 0.0 {
                out.push(b'-');
            }
            write_fraction(out, digits, k);
            return;
        }
        // More than 15 digits.
        *long = true;
    }
    shortest_f64(out, f);
}

/// Writes `f` (whose absolute value `a` is below 10^4 and not whole) when
/// its shortest digits have at most four decimals, as most data's
/// decimals do (prices, readings, coordinates), and returns true; writes
/// nothing and returns false otherwise. The text is the one
/// [`fifteen_digits`] and [`write_fraction`] give (see there why these
/// digits are the shortest), made with constant divisors only: `a` is
/// scaled to ten-thousandths, rounded and checked, and the whole part, the
/// point and the fraction's digits without trailing zeros are laid out in
/// one word-sized block.
#[inline]
fn four_decimals(out: &mut Vec<u8>, f: f64, a: f64) -> bool {
    // Below 10^8: exact in an f64, and adding a half is exact too.
    // SAFETY: `a * 10^4 + 0.5` is finite and below 2^27, inside `i64`.
    let n = unsafe { (a * POW10_F64[4] + 0.5).to_int_unchecked::<i64>() } as u64;
    if n as f64 / POW10_F64[4] != a {
        return false;
    }
    // `a` is not whole, so `frac` is not 0 and has at most three trailing zeros.
    let (int, frac) = (n / 10_000, n % 10_000);
    let zeros =
        (frac % 10 == 0) as usize + (frac % 100 == 0) as usize + (frac % 1000 == 0) as usize;
    let int_digits = 1 + (int >= 10) as usize + (int >= 100) as usize + (int >= 1000) as usize;
    // `-`, up to four digits, the point and four decimals: 10 bytes, built
    // in a 16-byte block that starts 5 - int_digits bytes in.
    let mut text = [0u8; 16];
    text[1..5].copy_from_slice(&four_digits(int));
    text[5] = b'.';
    text[6..10].copy_from_slice(&four_digits(frac));
    let mut start = 5 - int_digits;
    if f < 0.0 {
        start -= 1;
        text[start] = b'-';
    }
    let len = 10 - zeros - start;
    out.reserve(16);
    let at = out.len();
    // SAFETY: 16 bytes are reserved past `at` and written whole (a block
    // of 16 from `text`, which `start <= 4` keeps inside it after shifting);
    // the length then covers the `len <= 10` bytes of the number.
    unsafe {
        let block = u128::from_le_bytes(text) >> (8 * start);
        (out.as_mut_ptr().add(at) as *mut [u8; 16]).write_unaligned(block.to_le_bytes());
        out.set_len(at + len);
    }
    true
}

/// `f` (finite, not zero) as `m * 2^e` with `m` odd.
#[cfg(feature = "zmij")]
#[inline(always)]
fn odd_significand(f: f64) -> (u64, i32) {
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | 1u64 << 52, biased - 1075)
    };
    let tz = m.trailing_zeros();
    (m >> tz, e + tz as i32)
}

/// The shortest digits of `a` (`1e-4 <= a < 1e14`, not a whole number) when
/// they are at most 15: `(n, k)` with `n / 10^k` reading back as `a`, and
/// `n` not a multiple of ten. Most decimals that data holds (prices,
/// readings, coordinates) are found here without a digit search, and
/// those with up to four decimals with one try.
///
/// Why the answer is the shortest: every decimal of at most 15 significant
/// digits reads back from its nearest `f64` (`f64::DIGITS` is 15), so no two
/// of them read as the same `f64`. If one reads as `a`, it is the only one,
/// and so the shortest. It is found by scaling `a` to 15 digits and rounding
/// (`n`), and kept only when `n / 10^k`, one correctly rounded division of
/// two exact values, is `a` again; trailing zeros of `n` then go.
#[inline]
fn fifteen_digits(a: f64) -> Option<(u64, u32)> {
    const LIMIT: f64 = 1e15;
    // Most data has one to four decimals: those are found by one try at
    // four (scaled by 10^4, rounded, checked), and the trailing zeros of a
    // shorter one stripped without branching on how many there are (a try
    // per count of decimals mispredicted on data that mixes them). `a` is
    // not whole (whole numbers are written before this is called), so
    // `n` has at most three trailing zeros.
    let scaled = a * POW10_F64[4];
    if scaled < LIMIT {
        // SAFETY: as below.
        let n = unsafe { (scaled + 0.5).to_int_unchecked::<i64>() };
        if n as f64 / POW10_F64[4] == a {
            let (mut n, mut k) = (n as u64, 4u32);
            let (q, zeros) = (n / 100, n % 100 == 0);
            n = if zeros { q } else { n };
            k -= 2 * zeros as u32;
            let (q, zero) = (n / 10, n % 10 == 0);
            n = if zero { q } else { n };
            k -= zero as u32;
            return Some((n, k));
        }
    }
    // floor(log2 a) * log10(2), rounded down: floor(log10 a) or one less.
    let e2 = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let e10 = (e2 * 78_913) >> 18;
    // Scale to 15 digits before the point (14 when `e10` was one less).
    let mut k = (14 - e10) as usize;
    let mut scaled = a * POW10_F64[k];
    if scaled >= LIMIT {
        k -= 1;
        scaled = a * POW10_F64[k];
    }
    // `scaled` is below 1e15 (< 2^50): adding a half is exact, and the
    // conversion truncates, so this rounds half up.
    // SAFETY: the value is finite and in 0..2^50, inside `i64`. (One
    // instruction; `as u64` adds range checks on the baseline x86-64 target.)
    let n = unsafe { (scaled + 0.5).to_int_unchecked::<i64>() };
    if k == 0 || n as f64 / POW10_F64[k] != a {
        return None;
    }
    let mut n = n as u64;
    let mut k = k as u32;
    for (step, p) in [(8, 100_000_000), (4, 10_000), (2, 100), (1, 10)] {
        if k > step && n % p == 0 {
            n /= p;
            k -= step;
        }
    }
    Some((n, k))
}

/// Writes `n / 10^k` (`1 <= k <= 18`, `n < 10^16` and not a multiple of
/// 10) as a plain decimal: `356.5`, `0.025`. The text is laid out from its
/// last digit back in a zero-filled block, two digits at a time, and leaves
/// it as one fixed-size copy.
fn write_fraction(out: &mut Vec<u8>, n: u64, k: u32) {
    /// Writes the digits of `v` (none for 0) to end at `text[end]`; returns where they start.
    fn digits_before(text: &mut [u8; 64], end: usize, mut v: u64) -> usize {
        let mut at = end;
        while v >= 100 {
            let d = (v % 100) as usize * 2;
            v /= 100;
            at -= 2;
            text[at..at + 2].copy_from_slice(&DIGITS2[d..d + 2]);
        }
        if v >= 10 {
            at -= 2;
            let d = v as usize * 2;
            text[at..at + 2].copy_from_slice(&DIGITS2[d..d + 2]);
        } else if v > 0 {
            at -= 1;
            text[at] = b'0' + v as u8;
        }
        at
    }
    let k = k as usize;
    debug_assert!((1..=18).contains(&k) && n < 10_000_000_000_000_000);
    let pow = super::decimal::POW10_U64[k];
    let (int, frac) = (n / pow, n % pow);
    // The text ends at 32: `k` fraction digits (the fill gives their leading
    // zeros), the point, then at least one digit of the whole part.
    let mut text = [b'0'; 64];
    let point = 32 - k - 1;
    // Fewer than five decimals with a whole part below 10^4 never come here:
    // `four_decimals` writes those.
    digits_before(&mut text, 32, frac);
    text[point] = b'.';
    let start = digits_before(&mut text, point, int).min(point - 1);
    out.reserve(32);
    let at = out.len();
    let block: &[u8; 32] = text[start..start + 32]
        .try_into()
        .expect("the text starts at most 20 bytes before 32");
    // SAFETY: 32 bytes are reserved past `at` and all written; the length
    // then grows by the `32 - start` bytes of the text.
    unsafe {
        (out.as_mut_ptr().add(at) as *mut [u8; 32]).write_unaligned(*block);
        out.set_len(at + 32 - start);
    }
}

/// `{f:?}` of a finite float that is not a small whole number.
#[cfg(not(feature = "zmij"))]
fn shortest_f64(out: &mut Vec<u8>, f: f64) {
    std_debug_f64(out, f)
}

/// True when the exact decimal value of a non-zero `f` may have at most 18
/// significant digits (as 0.5 or 797.25 do; 0.1 does not). Conservative.
#[cfg(feature = "zmij")]
fn short_exact_decimal(f: f64) -> bool {
    const LIMIT: u128 = 1_000_000_000_000_000_000;
    let (m, e) = odd_significand(f);
    if e < 0 {
        // f = m * 5^k / 10^k: the digits of m * 5^k (odd times five: no trailing zero).
        let k = (-e) as u32;
        k <= 25 && (m as u128) * 5u128.pow(k) < LIMIT
    } else if e <= 70 {
        let mut v = (m as u128) << e;
        while v % 10 == 0 {
            v /= 10;
        }
        v < LIMIT
    } else {
        // Trailing zeros need factors of five in m.
        m % 5 == 0
    }
}

/// The standard library's `{f:?}`.
fn std_debug_f64(out: &mut Vec<u8>, f: f64) {
    struct Sink<'a>(&'a mut Vec<u8>);
    impl core::fmt::Write for Sink<'_> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.0.extend_from_slice(s.as_bytes());
            Ok(())
        }
    }
    let _ = write!(Sink(out), "{f:?}");
}

/// `{f:?}` of a finite float that is not a small whole number: zmij finds the
/// same shortest round-trip digits as the standard library, and they are laid
/// out by the standard library's rule (plain from 1e-4 up to 1e16, `1.5e-7`
/// style outside; zmij writes `1.5e-07` and `1e+16`, and plain from 1e-5).
#[cfg(feature = "zmij")]
#[inline(never)]
fn shortest_f64(out: &mut Vec<u8>, f: f64) {
    if f == 0.0 {
        out.extend_from_slice(if f.is_sign_negative() {
            b"-0.0"
        } else {
            b"0.0"
        });
        return;
    }
    // The two pick differently only between two equally close shortest
    // candidates, which needs a value whose exact decimal is that short.
    if short_exact_decimal(f) {
        return std_debug_f64(out, f);
    }
    zmij_f64(out, f);
}

/// [`shortest_f64`] straight to the digit search for a float whose
/// shortest digits are likely longer than the tries find ([`write_f64_hinted`]);
/// false, writing nothing, for zero and for a float whose exact decimal is
/// short (as -65.625 is), which the tries write faster.
#[cfg(feature = "zmij")]
#[inline(always)]
fn searched_f64(out: &mut Vec<u8>, f: f64) -> bool {
    if f == 0.0 || short_exact_decimal(f) {
        return false;
    }
    zmij_f64(out, f);
    true
}

/// [`shortest_f64`] without zmij: the standard library's text.
#[cfg(not(feature = "zmij"))]
fn searched_f64(out: &mut Vec<u8>, f: f64) -> bool {
    std_debug_f64(out, f);
    true
}

/// zmij's digits of a finite, non-zero `f` whose exact decimal is not short
/// (see [`shortest_f64`]), laid out by the standard library's rule.
#[cfg(feature = "zmij")]
#[inline(always)]
fn zmij_f64(out: &mut Vec<u8>, f: f64) {
    // zmij formats into a `Buffer` of its own. Made in `out`'s spare
    // capacity, the text lands where it belongs: copying it out of a
    // buffer on the stack read it back with wide loads right after zmij's
    // narrower stores, a store-forwarding stall that took about a third of
    // this function's time on canada.json's 17-digit floats.
    const SIZE: usize = core::mem::size_of::<zmij::Buffer>();
    const _: () = assert!(core::mem::align_of::<zmij::Buffer>() == 1);
    out.reserve(SIZE);
    let at = out.len();
    // SAFETY: `SIZE` bytes are reserved past `at`, and `Buffer` (an array of
    // `MaybeUninit<u8>`, alignment 1 as asserted) may hold any bytes,
    // uninitialised included; nothing else refers to that memory while the
    // buffer is borrowed.
    let buffer = unsafe { &mut *out.as_mut_ptr().add(at).cast::<zmij::Buffer>() };
    let text = buffer.format_finite(f).as_bytes();
    let (from, len) = (text.as_ptr(), text.len());
    // Between 1e-4 and 1e16 both write plain decimals: the text is the same.
    if (1e-4..1e16).contains(&f.abs()) {
        // SAFETY: the text lies within the buffer, inside the reserved
        // capacity; it is moved to `at` in case it does not start there
        // (zmij writes from the buffer's start), and its bytes are
        // initialised.
        unsafe {
            let to = out.as_mut_ptr().add(at);
            if from != to.cast_const() {
                core::ptr::copy(from, to, len);
            }
            out.set_len(at + len);
        }
        return;
    }
    let mut copy = [0u8; SIZE];
    copy[..len].copy_from_slice(text);
    exponent_layout(out, &copy[..len]);
}

/// Lays out zmij's `text` of a float below 1e-4 or from 1e16 up by the
/// standard library's rule (out of line: [`shortest_f64`]'s common case,
/// a plain decimal copied as it is, then needs no stack frame for this).
#[cfg(feature = "zmij")]
#[inline(never)]
fn exponent_layout(out: &mut Vec<u8>, text: &[u8]) {
    let (sign, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    // Split into digits and the decimal exponent: value = 0.DIGITS x 10^point.
    let (mantissa, exp) = match text.iter().position(|&c| c == b'e') {
        Some(e) => (&text[..e], parse_exp(&text[e + 1..])),
        None => (text, 0),
    };
    let mut digits = [0u8; 32];
    let mut n = 0;
    // Digits before the point, leading zeros excluded (they move the point left).
    let mut point = 0i32;
    let mut after_dot = false;
    for &c in mantissa {
        if c == b'.' {
            after_dot = true;
        } else if n == 0 && c == b'0' {
            point -= after_dot as i32;
        } else {
            digits[n] = c;
            n += 1;
            point += !after_dot as i32;
        }
    }
    let point = point + exp;
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = &digits[..n];
    if sign {
        out.push(b'-');
    }
    if (-3..=16).contains(&point) {
        if point <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(core::iter::repeat_n(b'0', (-point) as usize));
            out.extend_from_slice(digits);
        } else if (point as usize) < n {
            out.extend_from_slice(&digits[..point as usize]);
            out.push(b'.');
            out.extend_from_slice(&digits[point as usize..]);
        } else {
            out.extend_from_slice(digits);
            out.extend(core::iter::repeat_n(b'0', point as usize - n));
            out.extend_from_slice(b".0");
        }
    } else {
        out.push(digits[0]);
        if n > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        let e = point - 1;
        if e < 0 {
            out.push(b'-');
        }
        write_u64(out, e.unsigned_abs() as u64);
    }
}

#[cfg(feature = "zmij")]
fn parse_exp(text: &[u8]) -> i32 {
    let (neg, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    let v = digits.iter().fold(0i32, |v, &d| v * 10 + (d - b'0') as i32);
    if neg {
        -v
    } else {
        v
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(out: &mut Vec<u8>, data: &[u8]) {
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_agrees_with_a_byte_by_byte_escaper_at_every_length() {
        fn reference(s: &[u8]) -> Vec<u8> {
            let mut out = vec![b'"'];
            for &b in s {
                match b {
                    b'"' => out.extend_from_slice(b"\\\""),
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    0x08 => out.extend_from_slice(b"\\b"),
                    0x0c => out.extend_from_slice(b"\\f"),
                    0..=0x1f => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
                    _ => out.push(b),
                }
            }
            out.push(b'"');
            out
        }
        let specials = [b'"', b'\\', b'\n', 0x01, 0x1f, 0x20, 0x7f, 0x80, 0xc3, b'a'];
        let mut rng = crate::test_support::Rng::new(0x0e5c_a9e5);
        for n in 0..=72 {
            let plain: Vec<u8> = (0..n).map(|i| b'A' + (i % 26) as u8).collect();
            let mut cases = vec![plain.clone()];
            for at in 0..n {
                for &c in &specials {
                    let mut s = plain.clone();
                    s[at] = c;
                    cases.push(s);
                }
            }
            // Several escapes and non-ASCII bytes anywhere, in runs of every length.
            for _ in 0..if n > 0 { 300 } else { 0 } {
                let mut s = plain.clone();
                for _ in 0..1 + rng.below(5) {
                    s[rng.below(n)] = specials[rng.below(specials.len())];
                }
                cases.push(s);
            }
            for s in cases {
                // Written after other output, as inside a document.
                let mut out = b"[1,".to_vec();
                let ascii = write_escaped_bytes(&mut out, &s);
                assert_eq!(&out[3..], &reference(&s)[..], "{s:?}");
                assert_eq!(out.len(), 3 + reference(&s).len());
                assert_eq!(ascii, s.is_ascii(), "{s:?}");
            }
        }
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut s = Vec::new();
            base64(&mut s, input.as_bytes());
            assert_eq!(s, expected.as_bytes());
        }
    }

    #[test]
    fn escapes_controls_and_quotes() {
        let escaped = |s: &str| {
            let mut out = Vec::new();
            write_escaped_bytes(&mut out, s.as_bytes());
            String::from_utf8(out).unwrap()
        };
        assert_eq!(escaped("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\u0001é\"");
        // Every byte position inside and across the 8-byte words.
        // Every length up to three words, so the overlapping tail word and
        // strings shorter than a word are both covered; one and two escapes.
        for c in ['"', '\\', '\n', '\u{1f}', '\u{7f}', 'é', ' ', '\u{10}'] {
            for len in 1..=24 {
                for pad in 0..len {
                    let text = format!("{}{c}{}", "x".repeat(pad), "y".repeat(len - 1 - pad));
                    assert_eq!(escaped(&text), reference_escape(&text), "{text:?}");
                    for second in pad + 1..len {
                        let mut two: Vec<char> = text.chars().collect();
                        two[second] = '\t';
                        let two: String = two.into_iter().collect();
                        assert_eq!(escaped(&two), reference_escape(&two), "{two:?}");
                    }
                }
            }
        }
    }

    /// One escape at a time, as RFC 8259 says.
    fn reference_escape(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn verified_and_checked_readers_write_the_same_text() {
        let options = [
            JsonOptions::default(),
            JsonOptions {
                pretty: true,
                non_finite: NonFinite::Literal,
                ..JsonOptions::default()
            },
        ];
        let mut compared = 0;
        for seed in crate::test_support::seeds() {
            let Ok(verified) = crate::verify(&seed) else {
                continue;
            };
            let checked = Reader::new(&seed).unwrap();
            assert!(!checked.is_trusted());
            for o in &options {
                let run = |r: &Reader<'_>| {
                    let mut out = String::new();
                    let mut budget = Budget::for_input(seed.len());
                    write_json(r, o, &mut budget, &mut out)
                        .map(|_| out)
                        .map_err(|e| e.kind().clone())
                };
                assert_eq!(run(&verified.root()), run(&checked), "{seed:02x?}");
                compared += 1;
            }
        }
        assert!(compared > 1000, "{compared}");
    }

    /// What `to_json_with` returned before it read the bytes once: verify,
    /// then write the verified buffer.
    fn verify_then_write(buf: &[u8], o: &JsonOptions) -> Result<String> {
        let root = verify_with(buf, &o.verify)?.root();
        let mut budget = match o.max_output_bytes {
            Some(max) => Budget::new(max, max),
            None => Budget::for_input(buf.len()),
        };
        let mut out = String::new();
        write_json(&root, o, &mut budget, &mut out)?;
        Ok(out)
    }

    /// The one-pass checked writer gives exactly what verifying first gives
    /// (the text, or the same error kind, offset and path) on every golden,
    /// the invalid corpus, the fixtures and byte mutations of all of them,
    /// under options that move each check: sorted keys off, a shallow depth
    /// limit, a small output budget, non-finite floats as literals.
    /// Checks that the one-pass writer gives each input, under each option
    /// set, what verifying first gives (the same text, or the same error),
    /// and counts the texts and the errors.
    fn tally_as_verified(inputs: &[Vec<u8>], options: &[JsonOptions]) -> (usize, usize) {
        let (mut valid, mut invalid) = (0, 0);
        for input in inputs {
            for o in options {
                match (verify_then_write(input, o), to_json_with(input, o)) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{input:02x?}");
                        valid += 1;
                    }
                    (Err(a), Err(b)) => {
                        assert_eq!(a.to_string(), b.to_string(), "{input:02x?}");
                        invalid += 1;
                    }
                    (a, b) => panic!("{input:02x?}: {a:?} vs {b:?}"),
                }
            }
        }
        (valid, invalid)
    }

    #[test]
    fn one_pass_equals_verify_then_write_on_seeds_and_mutations() {
        let options = [
            JsonOptions::default(),
            JsonOptions {
                pretty: true,
                non_finite: NonFinite::Literal,
                verify: crate::VerifyOptions {
                    max_depth: 3,
                    require_sorted_keys: false,
                },
                ..JsonOptions::default()
            },
            JsonOptions {
                max_output_bytes: Some(200),
                non_finite: NonFinite::Null,
                ..JsonOptions::default()
            },
        ];
        let mut rng = crate::test_support::Rng::new(0x51ed_2701_a5f1_0003);
        let (mut valid, mut invalid) = (0, 0);
        for seed in crate::test_support::seeds() {
            let mut inputs = vec![seed.clone()];
            for _ in 0..12 {
                if seed.is_empty() {
                    break;
                }
                let mut m = seed.clone();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(m.len());
                    m[at] = match rng.below(4) {
                        0 => m[at] ^ (1 << rng.below(8)),
                        1 => m[at].wrapping_add(1),
                        2 => 0,
                        _ => rng.bits() as u8,
                    };
                }
                inputs.push(m);
            }
            let (v, i) = tally_as_verified(&inputs, &options);
            valid += v;
            invalid += i;
        }
        assert!(
            valid > 5_000 && invalid > 5_000,
            "{valid} valid, {invalid} invalid"
        );
    }

    /// A float as the float-run tests draw it: short decimals, long ones,
    /// whole numbers, tiny and huge ones, and now and then a non-finite one.
    fn drawn_float(rng: &mut crate::test_support::Rng) -> f64 {
        match rng.below(12) {
            0 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][rng.below(3)],
            1 => rng.below(1000) as f64 - 500.0,
            2 => (rng.below(8000) as f64 - 4000.0) / 8.0,
            3 => f64::from_bits(rng.bits() >> 2) * if rng.below(2) == 0 { 1.0 } else { -1.0 },
            4 => 1e-7 * rng.below(100) as f64,
            _ => (rng.bits() >> 11) as f64 / (1u64 << 53) as f64 * 360.0 - 180.0,
        }
    }

    /// The least `m` up to `hi` for which `ok` holds, `ok` being monotone
    /// (`hi` when none below it does).
    fn least(hi: u64, ok: impl Fn(u64) -> bool) -> u64 {
        let (mut lo, mut hi) = (0, hi);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if ok(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Buffers of short float vectors (coordinate pairs, which
    /// `short_floats` writes whole), broken at random and cut short: the
    /// checked one-pass writer gives what verifying first gives, text or
    /// error, and never reads out of bounds. It fails when the span of such
    /// a vector is not checked before its type bytes are read, or its
    /// nesting depth not checked.
    #[test]
    fn short_float_vectors_broken_or_cut_write_as_verified() {
        let mut rng = crate::test_support::Rng::new(0x5407_f10a_7000_0001);
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..150 {
            let mut b = crate::Builder::new();
            b.start_vector();
            for _ in 0..1 + rng.below(6) {
                b.start_vector();
                for _ in 0..1 + rng.below(4) {
                    b.double(drawn_float(&mut rng));
                }
                b.end_vector().unwrap();
            }
            b.end_vector().unwrap();
            let bytes = b.finish().unwrap().to_vec();
            let mut inputs: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[n..].to_vec()).collect();
            for _ in 0..40 {
                let mut m = bytes.clone();
                for _ in 0..1 + rng.below(2) {
                    let at = rng.below(m.len());
                    m[at] = match rng.below(3) {
                        0 => m[at] ^ (1 << rng.below(8)),
                        1 => m[at].wrapping_add(rng.below(40) as u8),
                        _ => rng.bits() as u8,
                    };
                }
                inputs.push(m);
            }
            // Also nested one level too deep, and with too little output room.
            let options = [
                JsonOptions::default(),
                JsonOptions {
                    verify: crate::VerifyOptions {
                        max_depth: 1,
                        ..crate::VerifyOptions::default()
                    },
                    ..JsonOptions::default()
                },
                JsonOptions {
                    max_output_bytes: Some(rng.below(60) as u64),
                    ..JsonOptions::default()
                },
            ];
            let (v, i) = tally_as_verified(&inputs, &options);
            valid += v;
            invalid += i;
        }
        assert!(
            valid > 500 && invalid > 2_000,
            "{valid} valid, {invalid} invalid"
        );
    }

    /// Arrays whose elements run as floats are written by `float_run`, the
    /// rest by the per-element loop: the text (or the error) is the one the
    /// reader-based writer gives, element by element, and the checked
    /// one-pass writer gives what verifying first gives. Untyped vectors at
    /// widths 4 and 8 with non-finite floats and other types at every
    /// position, typed and fixed vectors of f32 and f64, vectors of short
    /// float vectors (some holding another type or more than four), each
    /// non-finite policy, and output budgets that run out inside a run.
    #[test]
    fn float_runs_write_what_writing_each_element_writes() {
        let mut rng = crate::test_support::Rng::new(0x0f10_a7c3_5eed_0001u64);
        let mut compared = 0;
        for case in 0..1_200 {
            let n = 1 + rng.below(14);
            let mut b = crate::Builder::new();
            match case % 6 {
                5 => {
                    // Many short runs, as coordinate pairs are: with a
                    // budget that just fits, the early runs take the fast
                    // path and the late ones the loop.
                    // Vectors of one to four floats are written whole
                    // (`short_floats`); some here hold an int, a string,
                    // narrow floats (4-byte vectors) or five or six floats,
                    // which the general path writes.
                    b.start_vector();
                    let narrow = rng.below(4) == 0;
                    for _ in 0..2 + rng.below(30) {
                        b.start_vector();
                        let most = if rng.below(8) == 0 { 6 } else { 4 };
                        for _ in 0..1 + rng.below(most) {
                            match rng.below(24) {
                                0 => b.int(rng.bits() as i64 >> rng.below(64)),
                                1 => b.string("x"),
                                _ if narrow => b.float(drawn_float(&mut rng) as f32),
                                _ => b.double(drawn_float(&mut rng)),
                            }
                        }
                        b.end_vector().unwrap();
                    }
                    b.end_vector().unwrap();
                }
                0..=2 => {
                    b.start_vector();
                    let narrow = case % 6 == 1;
                    for _ in 0..n {
                        match rng.below(16) {
                            0 => b.int(rng.bits() as i64 >> rng.below(64)),
                            1 => b.string("x"),
                            2 => b.null(),
                            3 => b.bool(true),
                            _ if narrow => b.float(drawn_float(&mut rng) as f32),
                            _ => b.double(drawn_float(&mut rng)),
                        }
                    }
                    b.end_vector().unwrap();
                }
                3 => {
                    let values: Vec<f64> = (0..n).map(|_| drawn_float(&mut rng)).collect();
                    if rng.below(2) == 0 {
                        b.typed_vector(&values);
                    } else {
                        let narrow: Vec<f32> = values.iter().map(|&f| f as f32).collect();
                        b.typed_vector(&narrow);
                    }
                }
                _ => {
                    let values: Vec<f64> = (0..2 + n % 3).map(|_| drawn_float(&mut rng)).collect();
                    if rng.below(2) == 0 {
                        b.fixed_vector(&values).unwrap();
                    } else {
                        let narrow: Vec<f32> = values.iter().map(|&f| f as f32).collect();
                        b.fixed_vector(&narrow).unwrap();
                    }
                }
            }
            let bytes = b.finish().unwrap().to_vec();
            for non_finite in [NonFinite::Error, NonFinite::Null, NonFinite::Literal] {
                // The least budget that writes it all (when anything does),
                // and one less.
                let fits = |m: u64| {
                    let o = JsonOptions {
                        non_finite,
                        max_output_bytes: Some(m),
                        ..JsonOptions::default()
                    };
                    verify_then_write(&bytes, &o).is_ok()
                };
                let mut budgets = vec![None, Some(rng.below(40) as u64)];
                let all = JsonOptions {
                    non_finite,
                    ..JsonOptions::default()
                };
                if let Ok(text) = verify_then_write(&bytes, &all) {
                    // Nothing charges more than it writes.
                    let lo = least(text.len() as u64, fits);
                    budgets.extend([Some(lo), Some(lo.saturating_sub(1))]);
                }
                // The same for a budget of nodes alone, on the two writers.
                let nodes = |k: u64, r: &Reader<'_>| {
                    let o = JsonOptions {
                        non_finite,
                        ..JsonOptions::default()
                    };
                    let mut out = String::new();
                    write_json(r, &o, &mut Budget::new(k, 1 << 30), &mut out)
                        .map(|_| out)
                        .map_err(|e| e.kind().clone())
                };
                let untrusted = Reader::new(&bytes).unwrap();
                let trusted = crate::verify(&bytes).unwrap().root();
                let fewest = least(bytes.len() as u64, |k| nodes(k, &untrusted).is_ok());
                for k in [fewest, fewest.saturating_sub(1)] {
                    assert_eq!(nodes(k, &trusted), nodes(k, &untrusted), "{bytes:02x?}");
                }
                for max in budgets {
                    let o = JsonOptions {
                        non_finite,
                        max_output_bytes: max,
                        ..JsonOptions::default()
                    };
                    let budget = || match max {
                        Some(m) => Budget::new(m, m),
                        None => Budget::for_input(bytes.len()),
                    };
                    let write = |r: &Reader<'_>| {
                        let mut out = String::new();
                        write_json(r, &o, &mut budget(), &mut out)
                            .map(|_| out)
                            .map_err(|e| e.kind().clone())
                    };
                    let per_element = write(&Reader::new(&bytes).unwrap());
                    let fast = write(&crate::verify(&bytes).unwrap().root());
                    assert_eq!(fast, per_element, "{bytes:02x?} {non_finite:?} {max:?}");
                    let one_pass = to_json_with(&bytes, &o).map_err(|e| e.to_string());
                    let verified_first = verify_then_write(&bytes, &o).map_err(|e| e.to_string());
                    assert_eq!(one_pass, verified_first, "{bytes:02x?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 12_000, "{compared}");
    }

    #[test]
    fn numbers_are_written_as_std_formats_them() {
        let mut rng = crate::test_support::Rng::new(0x2545_f491_4f6c_dd1du64);
        let mut next = || rng.bits();
        let mut specials = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            3.0,
            1e15,
            1e16,
            9007199254740992.0,
            9007199254740993.0,
            1e-4,
            0.0001234,
            1e-5,
            123456789.0,
            -2.5,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            // Fractions with a short exact decimal, written without the
            // digit search: around 15 digits and around 1e-4.
            356.5,
            0.25,
            0.0001220703125,
            0.00006103515625,
            99999999999999.5,
            999999999999999.5,
            9999999999999.25,
            1234567890123456.0 + 0.75,
        ];
        for i in 0..20_000u64 {
            // n / 2^k for small n and k: every such value is an exact short decimal.
            let (n, k) = (i % 5000 + 1, (i / 5000 + 1) as i32 * 3);
            specials.push(n as f64 / 2f64.powi(k));
            specials.push((n * 1_000_003) as f64 / 2f64.powi(k));
        }
        for _ in 0..200_000 {
            let bits = next();
            specials.push(f64::from_bits(bits));
            specials.push((bits % 10_000_000) as f64 / 100.0);
            specials.push((bits >> 11) as f64);
            // Quarters and halves of large numbers: ties between shortest candidates.
            specials.push((bits >> 14) as f64 + 0.25 * (bits % 4) as f64);
            specials.push(f64::from_bits(bits) * 1e-300);
            specials.push((bits % 1000) as f64 * 10f64.powi((bits % 40) as i32 - 20));
        }
        // Decimals of 1 to 17 significant digits at every scale the plain
        // form covers, as data holds them (read from text), and the floats
        // next to them (whose shortest digits are longer).
        for _ in 0..300_000 {
            let digits = 1 + next() % 17;
            let n = next() % 10u64.pow(digits as u32);
            let text = format!("{n}e{}", (next() % 24) as i64 - 20);
            let f: f64 = text.parse().unwrap();
            specials.extend([f, f.next_up(), f.next_down()]);
        }
        // Up to four decimals below 10^4 (`four_decimals`), both signs, and
        // their neighbours: every fraction with a sample of whole parts.
        for frac in 1..10_000u64 {
            let int = next() % 10_000;
            for text in [
                format!("{int}.{frac:04}"),
                format!("-{}.{frac:04}", frac % 7),
            ] {
                let f: f64 = text.parse().unwrap();
                specials.extend([f, f.next_up(), f.next_down()]);
            }
        }
        for p in -5..17 {
            let f = 10f64.powi(p);
            specials.extend([f, f.next_up(), f.next_down(), f * 1.5, 1e14 - 0.5]);
        }
        // Both ways in: the tries first, and the digit search first (as
        // after a float with long digits), which must give the same text.
        // After text of every length up to 40 (the digit search formats
        // in the output's spare room, past what is there).
        for (i, f) in specials.into_iter().filter(|f| f.is_finite()).enumerate() {
            let before = "[".repeat(i % 41);
            for hint in [false, true] {
                let mut out = before.clone().into_bytes();
                let mut long = hint;
                write_f64_hinted(&mut out, f, &mut long);
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    format!("{before}{f:?}"),
                    "{f:e}"
                );
            }
        }
        for v in 0..20_000u64 {
            let mut out = b"[".to_vec();
            write_u64(&mut out, v);
            assert_eq!(out, format!("[{v}").into_bytes());
        }
        for _ in 0..100_000 {
            let v = next() >> (next() % 64);
            let mut out = Vec::new();
            write_u64(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
        let mut out = Vec::new();
        write_u64(&mut out, u64::MAX);
        write_u64(&mut out, 0);
        assert_eq!(out, b"184467440737095516150");
    }
}
