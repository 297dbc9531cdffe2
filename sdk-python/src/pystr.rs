//! Python `str` objects from UTF-8, and the process-wide cache of map keys.
//!
//! [`str_obj`] builds a compact string in one step: ASCII is copied, other
//! text is measured (characters and widest character) in one pass and decoded
//! straight into a string of the right kind (by simdutf's vectorised
//! transcoders from 16 bytes up), instead of going through CPython's general
//! decoder (which validates again and may grow its buffer).
//!
//! [`KeyTable`] keeps one `str` per short ASCII key across calls, as the
//! fastest JSON parsers do: a service decoding many messages of one shape
//! makes each key's object (and its hash, which CPython caches in the object)
//! once instead of once per call.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;

/// Non-ASCII strings of at least this many bytes are transcoded by
/// `simdutf` (vectorised); shorter ones by [`fill`], whose loop costs less
/// than the library call on a few characters.
const SIMD_MIN: usize = 16;

/// A `str` from valid UTF-8.
#[inline]
pub fn str_obj<'py>(py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyAny>> {
    str_obj_known(py, s, s.is_ascii())
}

/// [`str_obj`] for a string whose caller already knows whether it is all
/// ASCII (`ascii` must be exactly that), so the bytes are not scanned again.
#[inline]
pub fn str_obj_known<'py>(py: Python<'py>, s: &str, ascii: bool) -> PyResult<Bound<'py, PyAny>> {
    debug_assert_eq!(ascii, s.is_ascii());
    let bytes = s.as_bytes();
    if ascii {
        return ascii_obj(py, bytes);
    }
    // Characters are the bytes that do not continue a sequence (10xxxxxx);
    // the largest lead byte decides the kind: F0-F4 starts a character
    // beyond U+FFFF, C4-EF one beyond U+00FF, C2-C3 one in U+0080..U+00FF.
    let (mut chars, mut top) = (0usize, 0u8);
    // In blocks whose counts fit a byte, so the loop runs in vector lanes.
    for block in bytes.chunks(128) {
        let (mut n, mut t) = (0u8, 0u8);
        for &b in block {
            n += u8::from((b as i8) >= -64);
            t = t.max(b);
        }
        chars += usize::from(n);
        top = top.max(t);
    }
    let (maxchar, kind) = match top {
        0xF0.. => (0x10_FFFF, 4),
        0xC4.. => (0xFFFF, 2),
        _ => (0xFF, 1),
    };
    // SAFETY: PyUnicode_New(n, maxchar) returns a compact string (or NULL with
    // an exception) whose data area holds n characters of the kind that
    // maxchar selects, which is `kind` above; `s.chars()` yields exactly
    // `chars` characters, the widest of which needs that kind, so the string
    // is filled completely and is canonical.
    unsafe {
        let obj = ffi::PyUnicode_New(chars as ffi::Py_ssize_t, maxchar);
        let obj = Bound::from_owned_ptr_or_err(py, obj)?;
        let data = ffi::PyUnicode_DATA(obj.as_ptr());
        if bytes.len() >= SIMD_MIN {
            // SAFETY: `s` is valid UTF-8; the data area holds `chars` units of
            // `kind`, exactly the units each conversion writes (every
            // character fits one unit of that kind: no surrogate pairs below
            // U+10000, nothing above U+00FF for Latin-1).
            let written = match kind {
                1 => simdutf::convert_valid_utf8_to_latin1(
                    bytes.as_ptr(),
                    bytes.len(),
                    data as *mut u8,
                ),
                2 => simdutf::convert_valid_utf8_to_utf16le(
                    bytes.as_ptr(),
                    bytes.len(),
                    data as *mut u16,
                ),
                _ => simdutf::convert_valid_utf8_to_utf32(
                    bytes.as_ptr(),
                    bytes.len(),
                    data as *mut u32,
                ),
            };
            assert_eq!(
                written, chars,
                "UTF-8 transcoding wrote another count than measured"
            );
            return Ok(obj);
        }
        match kind {
            1 => fill(std::slice::from_raw_parts_mut(data as *mut u8, chars), s),
            2 => fill(std::slice::from_raw_parts_mut(data as *mut u16, chars), s),
            _ => fill(std::slice::from_raw_parts_mut(data as *mut u32, chars), s),
        }
        Ok(obj)
    }
}

/// Writes the characters of `s` into `out` (one unit each; the caller chose
/// a unit wide enough for every character and `out` has one per character).
#[inline(always)]
fn fill<T: Copy>(out: &mut [T], s: &str)
where
    u32: AsUnit<T>,
{
    let b = s.as_bytes();
    let n = out.len().min(b.len());
    let (mut i, mut j) = (0, 0);
    // SAFETY: `s` is valid UTF-8, so a lead byte is followed by all of its
    // continuation bytes: every `b` index below is inside `b`. `out` has one
    // unit per character (the caller counted them), and `j < n <= out.len()`
    // holds at each write.
    unsafe {
        while j < n && i < b.len() {
            let c = *b.get_unchecked(i) as u32;
            let cont = |k: usize| *b.get_unchecked(i + k) as u32 & 0x3F;
            let (cp, step) = if c < 0x80 {
                (c, 1)
            } else if c < 0xE0 {
                (((c & 0x1F) << 6) | cont(1), 2)
            } else if c < 0xF0 {
                (((c & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
            } else {
                (
                    ((c & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
                    4,
                )
            };
            *out.get_unchecked_mut(j) = cp.unit();
            i += step;
            j += 1;
        }
    }
}

/// Narrowing of a code point to a string unit that is known to hold it.
trait AsUnit<T> {
    fn unit(self) -> T;
}

impl AsUnit<u8> for u32 {
    #[inline(always)]
    fn unit(self) -> u8 {
        self as u8
    }
}

impl AsUnit<u16> for u32 {
    #[inline(always)]
    fn unit(self) -> u16 {
        self as u16
    }
}

impl AsUnit<u32> for u32 {
    #[inline(always)]
    fn unit(self) -> u32 {
        self
    }
}

/// A compact ASCII `str` holding `bytes` (which must be ASCII).
#[inline]
fn ascii_obj<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    debug_assert!(bytes.is_ascii());
    // SAFETY: PyUnicode_New(n, 127) makes a compact ASCII string whose data
    // area holds n bytes plus a NUL; we fill exactly n bytes of ASCII.
    unsafe {
        let obj = ffi::PyUnicode_New(bytes.len() as ffi::Py_ssize_t, 127);
        let obj = Bound::from_owned_ptr_or_err(py, obj)?;
        let data = ffi::PyUnicode_DATA(obj.as_ptr()) as *mut u8;
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
        Ok(obj)
    }
}

/// Key objects of one buffer by the offset of their bytes: builders write
/// each distinct key once, so the maps of a buffer share a handful of key
/// objects. A direct-mapped cache, allocated on the first `put`.
pub struct KeysByOffset<'py> {
    /// (offset, length in bytes, the key).
    slots: Vec<(usize, usize, Option<Bound<'py, PyAny>>)>,
    mask: usize,
}

impl<'py> KeysByOffset<'py> {
    /// A cache sized for a buffer of `len` bytes (one slot per 32 bytes,
    /// between 16 and 512).
    pub fn new(len: usize) -> Self {
        let n = (len / 32).clamp(16, 512).next_power_of_two();
        KeysByOffset {
            slots: Vec::new(),
            mask: n - 1,
        }
    }

    #[inline]
    fn slot(&self, at: usize) -> usize {
        (at.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) & self.mask
    }

    /// The key at offset `at` and its length in bytes, if cached.
    #[inline]
    pub fn get(&self, at: usize) -> Option<(Bound<'py, PyAny>, usize)> {
        match self.slots.get(self.slot(at)) {
            Some((o, len, Some(obj))) if *o == at => Some((obj.clone(), *len)),
            _ => None,
        }
    }

    /// Remembers `obj`, the key of `len` bytes at offset `at`.
    #[inline]
    pub fn put(&mut self, at: usize, len: usize, obj: &Bound<'py, PyAny>) {
        if self.slots.is_empty() {
            self.slots.resize(self.mask + 1, (usize::MAX, 0, None));
        }
        let slot = self.slot(at);
        self.slots[slot] = (at, len, Some(obj.clone()));
    }
}

/// Keys up to this many bytes are cached across calls.
pub const KEY_MAX_LEN: usize = 64;
/// Slots of the key table, in sets of two (a key may sit in either slot of its set).
const SLOTS: usize = 2048;

/// One cached key: its length, its first 16 bytes (zero padded) and the
/// `str` (a strong reference owned by the table; null when empty).
#[derive(Clone, Copy)]
struct Entry {
    len: usize,
    head: [u64; 2],
    obj: *mut ffi::PyObject,
}

const EMPTY: Entry = Entry {
    len: 0,
    head: [0; 2],
    obj: std::ptr::null_mut(),
};

/// The process-wide table of key strings. One caller uses it at a time
/// (the `busy` flag); a caller that finds it taken (another thread, or a
/// finalizer that re-enters `loads` during an allocation) goes without it.
/// Entries are replaced, never freed: at most [`SLOTS`] short strings stay
/// alive for the life of the process.
pub struct KeyTable {
    busy: AtomicBool,
    slots: UnsafeCell<[Entry; SLOTS]>,
}

// SAFETY: `slots` is only touched through a `KeyGuard`, which exists for one
// caller at a time (the `busy` flag is taken with acquire and released with
// release ordering), and only while that caller is attached to the
// interpreter (it holds a `Python` token), as reference counting requires.
unsafe impl Sync for KeyTable {}

static TABLE: KeyTable = KeyTable {
    busy: AtomicBool::new(false),
    slots: UnsafeCell::new([EMPTY; SLOTS]),
};

/// Exclusive use of the key table for one decode.
pub struct KeyGuard<'py> {
    py: Python<'py>,
    slots: &'static mut [Entry; SLOTS],
    /// Keys found in the table, and keys made and put in, by this decode.
    found: u32,
    made: u32,
}

impl<'py> KeyGuard<'py> {
    /// The table, unless another decode is using it.
    pub fn take(py: Python<'py>) -> Option<KeyGuard<'py>> {
        TABLE
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()?;
        // SAFETY: the flag was false and is now ours, so no other reference
        // to the slots exists until `drop` clears it.
        let slots = unsafe { &mut *TABLE.slots.get() };
        Some(KeyGuard {
            py,
            slots,
            found: 0,
            made: 0,
        })
    }

    /// True once this decode has made at least [`THRASH_MIN`] keys and found
    /// fewer than one in eight of its keys in the table: a buffer of one-off
    /// keys (a map keyed by ids), where each key made costs a replaced
    /// entry's release (a cache miss on an old object) and gains nothing. The
    /// decode then makes its keys without the table.
    #[inline]
    pub fn thrashing(&self) -> bool {
        self.made >= THRASH_MIN && self.made / 8 > self.found
    }

    /// The `str` for the key `bytes` (ASCII, at most [`KEY_MAX_LEN`] bytes),
    /// from the table or made and remembered.
    #[inline]
    pub fn ascii_key(&mut self, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
        debug_assert!(bytes.len() <= KEY_MAX_LEN && bytes.is_ascii());
        let mut pad = [0u8; 16];
        let n = bytes.len().min(16);
        pad[..n].copy_from_slice(&bytes[..n]);
        let head = [
            u64::from_le_bytes(pad[..8].try_into().unwrap_or_default()),
            u64::from_le_bytes(pad[8..].try_into().unwrap_or_default()),
        ];
        let mut h = hash_head(bytes.len(), head);
        if bytes.len() > 16 {
            for c in bytes[16..].chunks(8) {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                h = (h ^ u64::from_le_bytes(w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            }
        }
        self.lookup(bytes, head, h)
    }

    /// [`ascii_key`](Self::ascii_key) for a key of `len` < 16 bytes given
    /// as two little-endian words, zero past its end.
    #[inline]
    pub fn short_ascii_key(&mut self, len: usize, head: [u64; 2]) -> PyResult<Bound<'py, PyAny>> {
        debug_assert!(len < 16);
        let slot = slot_of(hash_head(len, head));
        // Up to 15 bytes: the head is the whole key.
        if let Some(obj) = self.probe(slot, len, head, |_| true) {
            return Ok(obj);
        }
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&head[0].to_le_bytes());
        bytes[8..].copy_from_slice(&head[1].to_le_bytes());
        self.insert(slot, &bytes[..len], head)
    }

    #[inline(always)]
    fn lookup(&mut self, bytes: &[u8], head: [u64; 2], h: u64) -> PyResult<Bound<'py, PyAny>> {
        let slot = slot_of(h);
        let tail_matches = |e: &Entry| {
            bytes.len() <= 16
                // SAFETY: the entry holds a strong reference to a compact
                // ASCII str of `e.len` bytes (`bytes.len()`, checked by
                // `probe`); its first 16 bytes matched already.
                || unsafe {
                    let data = ffi::PyUnicode_DATA(e.obj) as *const u8;
                    std::slice::from_raw_parts(data.add(16), e.len - 16) == &bytes[16..]
                }
        };
        if let Some(obj) = self.probe(slot, bytes.len(), head, tail_matches) {
            return Ok(obj);
        }
        self.insert(slot, bytes, head)
    }

    /// The key in the set of `slot` (it or the slot after it) of `len`
    /// bytes whose first 16 are `head` and the rest of which `tail_matches`
    /// accepts, counted as found; `None` when neither slot holds it.
    #[inline(always)]
    fn probe(
        &mut self,
        slot: usize,
        len: usize,
        head: [u64; 2],
        tail_matches: impl Fn(&Entry) -> bool,
    ) -> Option<Bound<'py, PyAny>> {
        for s in [slot, slot + 1] {
            let e = self.slots[s];
            if !e.obj.is_null() && e.len == len && same_head(e.head, head) && tail_matches(&e) {
                self.found += 1;
                // SAFETY: a new strong reference to a live object.
                return Some(unsafe { Bound::from_borrowed_ptr(self.py, e.obj) });
            }
        }
        None
    }

    /// Makes the `str` for `bytes` and puts it in `slot`, the first of the
    /// two slots of its set: what was there moves to the second
    /// (`slot + 1`), whose entry, if any, is released (the one put in
    /// longest ago). Two keys of one document that hash to one set thus
    /// both stay: with one slot a key, they evicted each other on every
    /// decode (each then made anew, and hashed anew by the dict it went
    /// into), which a document of 60 keys meets about once in two.
    #[cold]
    fn insert(&mut self, slot: usize, bytes: &[u8], head: [u64; 2]) -> PyResult<Bound<'py, PyAny>> {
        self.made += 1;
        let obj = ascii_obj(self.py, bytes)?;
        let moved = self.slots[slot];
        let old = if moved.obj.is_null() {
            std::ptr::null_mut()
        } else {
            std::mem::replace(&mut self.slots[slot + 1], moved).obj
        };
        // SAFETY: the table takes its own strong reference and drops the one
        // to the entry it replaces (a str, whose dealloc runs no Python code).
        unsafe {
            ffi::Py_INCREF(obj.as_ptr());
            if !old.is_null() {
                ffi::Py_DECREF(old);
            }
        }
        self.slots[slot] = Entry {
            len: bytes.len(),
            head,
            obj: obj.as_ptr(),
        };
        Ok(obj)
    }
}

/// Keys a decode makes before [`KeyGuard::thrashing`] can judge the table.
const THRASH_MIN: u32 = 512;

/// The first slot of the set (of two slots) of a key hash.
#[inline(always)]
fn slot_of(h: u64) -> usize {
    ((h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 53) as usize % SLOTS) & !1
}

/// True when two keys' first 16 bytes are the same, compared word by word:
/// `==` on the arrays compared 16 bytes of the caller's stack, where the
/// two words had just been stored one by one, a load the store buffer
/// cannot forward (15% of `Walk::key`'s samples on `loads` of api_response).
#[inline(always)]
fn same_head(a: [u64; 2], b: [u64; 2]) -> bool {
    (a[0] ^ b[0]) | (a[1] ^ b[1]) == 0
}

/// The hash of a key from its length and first 16 bytes.
#[inline(always)]
fn hash_head(len: usize, head: [u64; 2]) -> u64 {
    head[0] ^ head[1].rotate_left(23) ^ (len as u64).rotate_left(50)
}

impl Drop for KeyGuard<'_> {
    fn drop(&mut self) {
        TABLE.busy.store(false, Ordering::Release);
    }
}
