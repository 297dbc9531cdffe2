//! The builder: writes exactly the bytes of the C++ reference `flexbuffers::Builder`
//! for the same call sequence and sharing flags.
//!
//! Values are pushed onto a stack; `end_vector`/`end_map` write their elements
//! and replace them by one offset value; `finish` writes the root trailer.
//! Width selection, padding and the (sometimes wider than necessary) map widths
//! follow the reference so that goldens produced by it match byte for byte.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::emit::{write_map, write_vector, MapPlan, VectorPlan};
use crate::error::{BuilderError, Error, Result};
use crate::pool::{BytesPool, Probe, SignatureMap};
use crate::scalar::Scalar;
use crate::types::{pack_type, padding, BitWidth, FlexType};

mod message;
pub use message::{Field, MapWidths, MessageMap};

/// What the builder deduplicates, with the C++ `BuilderFlag` numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShareFlags(u8);

impl ShareFlags {
    /// Nothing is shared.
    pub const NONE: ShareFlags = ShareFlags(0);
    /// Equal keys are written once (the C++ default).
    pub const KEYS: ShareFlags = ShareFlags(1);
    /// Equal strings are written once.
    pub const STRINGS: ShareFlags = ShareFlags(2);
    /// Keys and strings.
    pub const KEYS_AND_STRINGS: ShareFlags = ShareFlags(3);
    /// The C++ flag for key vectors, which has no effect there and so none here
    /// (see [`BuilderOptions::dedup_key_vectors`] for real key-vector sharing).
    pub const KEY_VECTORS: ShareFlags = ShareFlags(4);
    /// Every flag.
    pub const ALL: ShareFlags = ShareFlags(7);

    /// From the C++ numeric flag value; bits above 7 are ignored.
    pub const fn from_bits(bits: u8) -> ShareFlags {
        ShareFlags(bits & 7)
    }

    /// The C++ numeric flag value.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// True when every bit of `other` is set.
    pub const fn contains(self, other: ShareFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl Default for ShareFlags {
    fn default() -> Self {
        ShareFlags::KEYS
    }
}

/// Builder configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuilderOptions {
    /// Sharing flags, as the C++ builder's (default: keys).
    pub share: ShareFlags,
    /// Reuse one keys vector for every map with the same sorted keys.
    ///
    /// This is an extension: the C++ builder never shares key vectors, so the
    /// bytes differ from the reference when it is on. Generated coders use it.
    pub dedup_key_vectors: bool,
    /// Bytes reserved up front.
    pub initial_capacity: usize,
    /// Largest buffer capacity kept across [`Builder::clear`]; larger buffers are
    /// shrunk so one giant payload does not pin memory. The value stack and
    /// the pools are bounded alike, each on its own.
    pub max_retained_capacity: usize,
    /// The most [`Builder::clear`] keeps (of the buffer, the stack and each
    /// pool) after a large buffer: after a buffer of `n` bytes, each keeps
    /// up to `max(max_retained_capacity, min(large_retained_capacity, 32 *
    /// n))` bytes. 0, the default, keeps no more than
    /// `max_retained_capacity` ever.
    ///
    /// A stream of large buffers then writes each into the memory of the
    /// one before, where memory allocated anew costs a page fault per 4 KiB
    /// touched (a third of the time of encoding a dict of 50,000 keys,
    /// measured). The stack and the pools take up to 16 bytes per value,
    /// and a value at least a byte of the buffer, hence `32 * n`. The first
    /// `clear` after a small buffer shrinks everything back, so one large
    /// buffer pins its memory until the next buffer is cleared, not for good.
    pub large_retained_capacity: usize,
}

impl Default for BuilderOptions {
    fn default() -> Self {
        BuilderOptions {
            share: ShareFlags::KEYS,
            dedup_key_vectors: false,
            initial_capacity: 256,
            max_retained_capacity: 1 << 20,
            large_retained_capacity: 0,
        }
    }
}

/// One value on the builder's stack: an inline scalar, or an absolute offset.
///
/// Two whole words (`_zero` fills the second), which [`SlotStack::push`]
/// stores as two 8-byte words.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Slot {
    /// Scalar bits (i64/u64/f64 bits) or the absolute position of the target.
    data: u64,
    /// For keys: the key's length (so sorting and signatures need no NUL scan);
    /// `u32::MAX` when it does not fit.
    len: u32,
    ty: FlexType,
    /// For scalars: their own minimal width; otherwise the target's element/size width.
    width: BitWidth,
    /// Always 0 (see above).
    _zero: u16,
}

impl Slot {
    const fn new(data: u64, ty: FlexType, width: BitWidth) -> Slot {
        Slot {
            data,
            len: 0,
            ty,
            width,
            _zero: 0,
        }
    }

    /// A key written at `at`, `len` bytes long (without its NUL).
    const fn key(at: usize, len: usize) -> Slot {
        Slot {
            data: at as u64,
            len: if len < u32::MAX as usize {
                len as u32
            } else {
                u32::MAX
            },
            ty: FlexType::Key,
            width: BitWidth::W8,
            _zero: 0,
        }
    }

    /// Width this value needs as element `index` of a vector written at `buf_len`.
    #[inline]
    fn elem_width(&self, buf_len: usize, index: usize) -> BitWidth {
        self.elem_width_from(buf_len, index, BitWidth::W8)
    }

    /// The wider of `floor` and [`elem_width`](Self::elem_width).
    ///
    /// An offset that fits at some width also fits at every wider one (it grows
    /// by at most the index per doubling while the range squares), so the search
    /// can start at `floor`: usually one check instead of up to four.
    #[inline(always)]
    fn elem_width_from(&self, buf_len: usize, index: usize, floor: BitWidth) -> BitWidth {
        if self.ty.is_inline() {
            return self.width.max(floor);
        }
        let mut bytes = floor.bytes();
        while bytes < 8 {
            let loc = buf_len + padding(buf_len, bytes) + index * bytes;
            let offset = (loc as u64).wrapping_sub(self.data);
            if offset >> (8 * bytes) == 0 {
                return BitWidth::from_bytes(bytes as u64).unwrap_or(BitWidth::W64);
            }
            bytes *= 2;
        }
        BitWidth::W64
    }

    /// [`elem_width_from`](Self::elem_width_from) for the field of a map
    /// that points back to its keys vector (this slot; slot 0 of the map's
    /// fields, written at `buf_len`). The offset is at least the distance
    /// from the vector to `buf_len`, so the search starts at the width that
    /// distance needs: a map far from its keys vector (a typed encoder
    /// writes one per type and buffer) found its 4-byte width after
    /// failing at 1 and 2 bytes, every time.
    #[inline(always)]
    fn keys_field_width(&self, buf_len: usize, floor: BitWidth) -> BitWidth {
        let reach = if keys_field_bound() {
            BitWidth::of_u64((buf_len as u64).saturating_sub(self.data))
        } else {
            BitWidth::W8
        };
        self.elem_width_from(buf_len, 0, floor.max(reach))
    }

    /// The second word: `len`, `ty`, `width` and `_zero` as they lie in memory.
    #[inline(always)]
    fn meta(&self) -> u64 {
        let l = self.len.to_ne_bytes();
        u64::from_ne_bytes([
            l[0],
            l[1],
            l[2],
            l[3],
            self.ty as u8,
            self.width as u8,
            0,
            0,
        ])
    }

    /// The scalar bits (or target position) the slot holds.
    #[inline(always)]
    pub(crate) fn data(&self) -> u64 {
        self.data
    }

    /// The slot's value type.
    #[inline(always)]
    pub(crate) fn value_type(&self) -> FlexType {
        self.ty
    }

    /// The packed type byte stored for this value inside a parent of `parent` width.
    #[inline]
    pub(crate) fn stored_packed(&self, parent: BitWidth) -> u8 {
        let w = if self.ty.is_inline() {
            self.width.max(parent)
        } else {
            self.width
        };
        pack_type(self.ty, w)
    }
}

/// The builder's value stack: a `Vec` of slots whose [`push`](Self::push)
/// stores each slot as two 8-byte words. `Vec::push` stored a slot field by
/// field (`ty` and `width` a byte each, as their values come at run time),
/// and readers that load `ty` and `width` together (4 bytes from `ty` on)
/// then waited for those stores to reach the cache: 18% of the element
/// scan of `end_vector_compact` on 20,000 pairs, in `perf`.
#[derive(Debug, Default)]
struct SlotStack(Vec<Slot>);

impl SlotStack {
    #[inline(always)]
    fn push(&mut self, s: Slot) {
        let v = &mut self.0;
        if v.len() == v.capacity() {
            v.reserve(1);
        }
        let words = [s.data, s.meta()];
        // SAFETY: there is room for one more slot (reserved above); a
        // `Slot` is `repr(C)`, 16 bytes of two `u64`-aligned words with no
        // padding (`_zero` fills the second), whose second word `meta`
        // writes as the fields lie; the slot is initialized before the
        // length covers it.
        unsafe {
            let end = v.as_mut_ptr().add(v.len());
            end.cast::<[u64; 2]>().write(words);
            v.set_len(v.len() + 1);
        }
    }

    /// The top slot, read as the two 8-byte words [`push`](Self::push)
    /// stored. A slot just pushed is still in the store buffer as two
    /// stores; a 16-byte load of it (what copying a `Slot` compiles to)
    /// cannot take its bytes from two stores and waits for both to reach
    /// the cache, about 12 cycles (10% of the Python encoder's own time on
    /// records, where every new key is read back right after its push).
    #[inline(always)]
    fn last_by_words(&self) -> Option<Slot> {
        let v = &self.0;
        let n = v.len();
        if n == 0 {
            return None;
        }
        // SAFETY: slot `n - 1` is initialized; a `Slot` is two `u64`-aligned
        // words (see `push`), read with two volatile loads so that they
        // stay two 8-byte loads, each served by its own store. The words
        // are those of a valid `Slot`, so reading them back as one is valid.
        unsafe {
            let p = v.as_ptr().add(n - 1).cast::<u64>();
            let words = [
                core::ptr::read_volatile(p),
                core::ptr::read_volatile(p.add(1)),
            ];
            Some(core::mem::transmute::<[u64; 2], Slot>(words))
        }
    }
}

impl core::ops::Deref for SlotStack {
    type Target = Vec<Slot>;
    #[inline(always)]
    fn deref(&self) -> &Vec<Slot> {
        &self.0
    }
}

impl core::ops::DerefMut for SlotStack {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Vec<Slot> {
        &mut self.0
    }
}

const _: () = assert!(
    core::mem::size_of::<Slot>() == 16 && core::mem::align_of::<Slot>() == 8,
    "a slot is two words"
);

/// A value already written, to be referenced again with [`Builder::reuse_value`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueHandle {
    slot: Slot,
    generation: u64,
}

/// A keys vector written once and shared by every map of one shape
/// (see [`Builder::key_vector`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyVector {
    /// Position of the first key offset.
    at: u64,
    /// Width of the elements in bytes. Every field is a whole word: a
    /// `Slot` here (with its padding and the niche `Result` packs its tag
    /// into) made the compiler move the value in partial, overlapping
    /// pieces, and the loads that straddled two stores stalled (17% of a
    /// typed encode of user_profile in time, in `EncodeContext::first_use`).
    /// (A `NonZeroU64`, to give `Option` a niche, measured 5% slower on
    /// chat_thread.)
    width: u64,
    len: usize,
    generation: u64,
}

impl KeyVector {
    fn new(slot: Slot, len: usize, generation: u64) -> KeyVector {
        KeyVector {
            at: slot.data,
            width: slot.width.bytes() as u64,
            len,
            generation,
        }
    }

    /// The keys vector as a value of the stack.
    fn slot(&self) -> Slot {
        Slot::new(self.at, FlexType::VectorKey, self.width())
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the vector was written in the buffer `b` is writing now.
    #[inline(always)]
    pub(crate) fn is_current(&self, b: &Builder) -> bool {
        self.generation == b.generation
    }

    /// True when the vector has no keys.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Width of the vector's elements.
    pub(crate) fn width(&self) -> BitWidth {
        BitWidth::from_bytes(self.width).unwrap_or(BitWidth::W64)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    Vector(usize),
    Map(usize),
}

static GENERATIONS: AtomicU64 = AtomicU64::new(1);

/// The unsigned `w`-byte field at `at`, if inside `buf`.
#[cfg(feature = "serde")]
fn read_field(buf: &[u8], at: usize, w: usize) -> Option<u64> {
    crate::reader::read_uint(buf, at, w).ok()
}

/// Empties `v`, dropping its allocation when it holds more than `limit` bytes.
fn clear_within<T>(v: &mut Vec<T>, limit: usize) {
    if v.capacity() * core::mem::size_of::<T>() > limit {
        *v = Vec::new();
    } else {
        v.clear();
    }
}

/// Heap bytes worth keeping after a buffer of `written` bytes: `small` at
/// least, and in proportion to the buffer up to `large`. The value stack
/// and the pools take up to 16 bytes per value (the sort of an unordered
/// map 32 more per entry), and a value at least a byte of the buffer,
/// hence `32 * written`.
pub(crate) fn retention_bound(small: usize, large: usize, written: usize) -> usize {
    small.max(large.min(written.saturating_mul(32)))
}

/// Most heap bytes (buffer and scratch) a thread keeps, between calls of a
/// one-shot writer that reuses its builder (`to_vec`, `from_json`), after
/// a small value.
pub(crate) const SPARE_MAX: usize = 256 << 10;

/// Most heap bytes such a thread keeps after a large value.
pub(crate) const SPARE_LARGE: usize = 8 << 20;

/// Heap bytes a thread may keep between such calls after a value of `len`
/// bytes: the proportion a builder keeps (see [`retention_bound`]).
pub(crate) fn spare_limit(len: usize) -> usize {
    retention_bound(SPARE_MAX, SPARE_LARGE, len)
}

fn next_generation() -> u64 {
    GENERATIONS.fetch_add(1, Ordering::Relaxed)
}

/// Writes FlexBuffers.
///
/// ```
/// use flexbuf::Builder;
/// let mut b = Builder::new();
/// b.start_map();
/// b.key("name");
/// b.string("Ada");
/// b.key("born");
/// b.int(1815);
/// b.end_map().unwrap();
/// let bytes = b.finish().unwrap().to_vec();
/// let root = flexbuf::Reader::new(&bytes).unwrap();
/// assert_eq!(root.get("born").unwrap().as_i64().unwrap(), 1815);
/// ```
#[derive(Debug)]
pub struct Builder {
    buf: Vec<u8>,
    stack: SlotStack,
    opens: Vec<Open>,
    options: BuilderOptions,
    force_min_width: BitWidth,
    key_pool: BytesPool,
    string_pool: BytesPool,
    key_vectors: SignatureMap<Slot>,
    /// The key signature being looked up (reused between maps).
    signature: Vec<u8>,
    /// Map entries being sorted, one word each: the key's first eight bytes
    /// (big-endian) above the entry's index, so that one integer compare
    /// orders most entries.
    sort_words: Vec<u128>,
    /// The radix sort's second buffer of words (see [`sort_words`]).
    radix_words: Vec<u128>,
    /// Copy of the entries being rearranged.
    moved: Vec<Slot>,
    error: Option<Error>,
    finished: bool,
    generation: u64,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// A builder with the default options (keys shared, as in C++).
    pub fn new() -> Builder {
        Builder::with_options(BuilderOptions::default())
    }

    /// A builder with the given sharing flags and otherwise default options.
    pub fn with_share(share: ShareFlags) -> Builder {
        Builder::with_options(BuilderOptions {
            share,
            ..BuilderOptions::default()
        })
    }

    /// A builder with explicit options.
    pub fn with_options(options: BuilderOptions) -> Builder {
        Builder {
            buf: Vec::with_capacity(options.initial_capacity),
            stack: SlotStack::default(),
            opens: Vec::new(),
            options,
            force_min_width: BitWidth::W8,
            key_pool: BytesPool::default(),
            string_pool: BytesPool::default(),
            key_vectors: SignatureMap::default(),
            signature: Vec::new(),
            sort_words: Vec::new(),
            radix_words: Vec::new(),
            moved: Vec::new(),
            error: None,
            finished: false,
            generation: next_generation(),
        }
    }

    /// The options this builder was created with.
    pub fn options(&self) -> &BuilderOptions {
        &self.options
    }

    /// Resets all state for a new buffer, keeping capacity up to
    /// [`BuilderOptions::max_retained_capacity`] (or, after a longer
    /// buffer, [`BuilderOptions::large_retained_capacity`]).
    pub fn clear(&mut self) {
        self.clear_after(self.buf.len());
    }

    /// The capacity [`clear`](Self::clear) keeps after a buffer of
    /// `written` bytes.
    fn retained_capacity(&self, written: usize) -> usize {
        retention_bound(
            self.options.max_retained_capacity,
            self.options.large_retained_capacity,
            written,
        )
    }

    /// [`clear`](Self::clear) after a buffer of `written` bytes (handed out
    /// already when the buffer was moved out of the builder).
    fn clear_after(&mut self, written: usize) {
        let limit = self.retained_capacity(written);
        self.buf.clear();
        if self.buf.capacity() > limit {
            self.buf.shrink_to(limit);
        }
        // The value stack and the pools are bounded alike (a vector of a
        // million values leaves a stack of 16 MB behind).
        clear_within(&mut self.stack, limit);
        clear_within(&mut self.sort_words, limit);
        clear_within(&mut self.radix_words, limit);
        clear_within(&mut self.moved, limit);
        clear_within(&mut self.opens, limit);
        clear_within(&mut self.signature, limit);
        self.force_min_width = BitWidth::W8;
        self.key_pool.clear_within(limit);
        self.string_pool.clear_within(limit);
        self.key_vectors.clear_within(limit);
        self.error = None;
        self.finished = false;
        self.generation = next_generation();
    }

    /// Current buffer capacity (for observing retention).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Heap bytes held besides the buffer: the value stack, the key and
    /// string pools and the keys-vector table (for observing retention; each
    /// is kept across [`clear`](Self::clear) only up to
    /// [`BuilderOptions::max_retained_capacity`]).
    pub fn scratch_capacity(&self) -> usize {
        self.stack.capacity() * core::mem::size_of::<Slot>()
            + (self.sort_words.capacity() + self.radix_words.capacity())
                * core::mem::size_of::<u128>()
            + self.moved.capacity() * core::mem::size_of::<Slot>()
            + self.opens.capacity() * core::mem::size_of::<Open>()
            + self.signature.capacity()
            + self.key_pool.heap_bytes()
            + self.string_pool.heap_bytes()
            + self.key_vectors.heap_bytes()
    }

    /// Bytes written so far (unfinished values included only once their container ended).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Forces elements of later vectors and maps to at least this width, as
    /// `ForceMinimumBitWidth` does (so values can be mutated in place later).
    pub fn force_min_width(&mut self, width: BitWidth) {
        self.force_min_width = width;
    }

    // ---- scalars -------------------------------------------------------

    /// Pushes null.
    #[inline]
    pub fn null(&mut self) {
        if self.closed() {
            return;
        }
        self.stack.push(Slot::new(0, FlexType::Null, BitWidth::W8));
    }

    /// Pushes a boolean.
    #[inline]
    pub fn bool(&mut self, b: bool) {
        if self.closed() {
            return;
        }
        self.stack
            .push(Slot::new(b as u64, FlexType::Bool, BitWidth::W8));
    }

    /// Pushes a signed integer at its minimal width.
    #[inline]
    pub fn int(&mut self, i: i64) {
        if self.closed() {
            return;
        }
        self.stack
            .push(Slot::new(i as u64, FlexType::Int, BitWidth::of_i64(i)));
    }

    /// Pushes an unsigned integer at its minimal width.
    #[inline]
    pub fn uint(&mut self, u: u64) {
        if self.closed() {
            return;
        }
        self.stack
            .push(Slot::new(u, FlexType::UInt, BitWidth::of_u64(u)));
    }

    /// Pushes a 32-bit float (always stored with at least 4 bytes).
    #[inline]
    pub fn float(&mut self, f: f32) {
        if self.closed() {
            return;
        }
        self.stack.push(Slot::new(
            (f as f64).to_bits(),
            FlexType::Float,
            BitWidth::W32,
        ));
    }

    /// Pushes a 64-bit float, stored as f32 when that is exact (NaN is always 8 bytes).
    #[inline]
    pub fn double(&mut self, f: f64) {
        if self.closed() {
            return;
        }
        self.stack
            .push(Slot::new(f.to_bits(), FlexType::Float, BitWidth::of_f64(f)));
    }

    // ---- strings, keys, blobs -----------------------------------------

    /// Pushes a map key (or an element of a typed key vector).
    ///
    /// A key containing NUL cannot be stored; the builder then reports
    /// [`BuilderError::NulInKey`] from the next `end_*` or `finish`.
    #[inline]
    pub fn key(&mut self, key: &str) {
        if self.closed() {
            return;
        }
        let bytes = key.as_bytes();
        let probe = Probe::new(bytes);
        let pooled = self.options.share.contains(ShareFlags::KEYS);
        // The common case, inlined: a key already in the pool (it was
        // checked for NUL when it came first).
        // `free`: the pool's empty slot for a new key (`None`: not pooled).
        let free = if pooled {
            match self.key_pool.find_probe_or_slot(&self.buf, &probe) {
                Ok(at) => {
                    self.stack.push(Slot::key(at, bytes.len()));
                    return;
                }
                Err(free) => Some(free),
            }
        } else {
            None
        };
        self.new_key(&probe, free);
    }

    /// A key not written yet (the probe's bytes): checked, written, and
    /// pooled in table slot `free` when given. The probe comes by
    /// reference: by value, with the key's slice beside it, it was copied
    /// to the stack for every call (a third of this function's samples on
    /// a map of 80 new keys were its entry and exit).
    #[inline(never)]
    fn new_key(&mut self, probe: &Probe, free: Option<usize>) {
        let key = probe.bytes();
        if probe.has_nul() {
            self.fail(BuilderError::NulInKey.into());
        }
        let loc = self.buf.len();
        if let Some(free) = free {
            self.key_pool.insert_probe_at(probe, loc, free);
        }
        self.write_key_bytes(key);
        self.stack.push(Slot::key(loc, key.len()));
    }

    #[inline]
    fn write_key_bytes(&mut self, key: &[u8]) {
        crate::word::append_short(&mut self.buf, key, true);
    }

    /// Pushes a UTF-8 string (deduplicated with [`ShareFlags::STRINGS`]).
    #[inline]
    pub fn string(&mut self, s: &str) {
        if let Some(slot) = self.string_slot(s) {
            self.stack.push(slot);
        }
    }

    /// Writes `s` (or finds it written, with [`ShareFlags::STRINGS`]) and
    /// returns its slot; `None` when the builder is closed.
    #[inline(always)]
    fn string_slot(&mut self, s: &str) -> Option<Slot> {
        if self.closed() {
            return None;
        }
        let bytes = s.as_bytes();
        if self.options.share.contains(ShareFlags::STRINGS) {
            // The pool holds (offset of the string's first byte, length).
            let width = BitWidth::of_u64(bytes.len() as u64);
            let len_at = self.buf.len() + padding(self.buf.len(), width.bytes());
            let data_at = len_at + width.bytes();
            if let Some(existing) = self.string_pool.find_or_insert(&self.buf, bytes, data_at) {
                return Some(Slot::new(existing as u64, FlexType::String, width));
            }
        }
        Some(self.write_blob_slot(bytes, true, FlexType::String))
    }

    /// Pushes every string of `list`, as calling [`string`](Self::string)
    /// on each in turn would (the same bytes): the buffer and the value stack
    /// grow once for all of them, and each string is written with no call of
    /// its own.
    ///
    /// ```
    /// use flexbuf::Builder;
    /// let mut b = Builder::new();
    /// b.start_vector();
    /// b.strings(&["a", "bc"]);
    /// b.end_vector().unwrap();
    /// let bytes = b.finish().unwrap().to_vec();
    /// let v = flexbuf::Reader::new(&bytes).unwrap().as_vector().unwrap();
    /// assert_eq!(v.get(1).unwrap().as_str().unwrap(), "bc");
    /// ```
    pub fn strings<S: AsRef<str>>(&mut self, list: &[S]) {
        if self.closed() {
            return;
        }
        if self.options.share.contains(ShareFlags::STRINGS) {
            for s in list {
                self.string(s.as_ref());
            }
            return;
        }
        // Each string takes at most 7 bytes of padding, 8 of size and its NUL.
        let room = list
            .iter()
            .fold(0usize, |n, s| n.saturating_add(s.as_ref().len() + 16));
        self.buf.reserve(room);
        self.stack.reserve(list.len());
        for s in list {
            self.write_blob(s.as_ref().as_bytes(), true, FlexType::String);
        }
    }

    /// Pushes a blob of raw bytes.
    #[inline]
    pub fn blob(&mut self, data: &[u8]) {
        if self.closed() {
            return;
        }
        self.create_blob(data, false, FlexType::Blob);
    }

    fn create_blob(&mut self, data: &[u8], nul: bool, ty: FlexType) {
        self.write_blob(data, nul, ty);
    }

    /// [`create_blob`](Self::create_blob), inlined where it is called in a loop.
    ///
    /// One reservation and plain stores: the padding (up to 7 bytes) is
    /// cleared by one 8-byte store of zeros, the length by one 8-byte store
    /// (its bytes above the width are zeros, which the data then covers), and
    /// short data by two overlapping word stores.
    #[inline(always)]
    fn write_blob(&mut self, data: &[u8], nul: bool, ty: FlexType) {
        let slot = self.write_blob_slot(data, nul, ty);
        self.stack.push(slot);
    }

    /// [`write_blob`](Self::write_blob) without the push: the blob's slot.
    #[inline(always)]
    fn write_blob_slot(&mut self, data: &[u8], nul: bool, ty: FlexType) -> Slot {
        let n = data.len();
        let width = BitWidth::of_u64(n as u64);
        let wb = width.bytes();
        let start = self.buf.len();
        let at = start + padding(start, wb);
        let loc = at + wb;
        // Padding below 8, then at least 8 bytes from `at`, or the length,
        // the data and the NUL, whichever ends later: at most `n + 16`.
        self.buf.reserve(n + 16);
        // SAFETY: `n + 16` bytes are reserved past `start`. The zero store
        // covers `start..start + 8`, the length store `at..at + 8` (`at <
        // start + 8`), the data `loc..loc + n` and the NUL `loc + n`, all
        // below `start + 7 + 8 + n + 1`. Every byte up to the new length is
        // written: `start..at` by the zeros, `at..loc` by the length, then
        // the data and the NUL.
        unsafe {
            let base = self.buf.as_mut_ptr();
            (base.add(start) as *mut u64).write_unaligned(0);
            (base.add(at) as *mut u64).write_unaligned((n as u64).to_le());
            let p = base.add(loc);
            if n > 16 {
                core::ptr::copy_nonoverlapping(data.as_ptr(), p, n);
            } else {
                crate::word::copy_upto16(data, p);
            }
            *p.add(n) = 0;
            self.buf.set_len(loc + n + nul as usize);
        }
        Slot::new(loc as u64, ty, width)
    }

    // ---- indirect scalars ---------------------------------------------

    /// Pushes a signed integer stored behind an offset.
    pub fn indirect_int(&mut self, i: i64) {
        self.push_indirect(i as u64, FlexType::IndirectInt, BitWidth::of_i64(i));
    }

    /// Pushes an unsigned integer stored behind an offset.
    pub fn indirect_uint(&mut self, u: u64) {
        self.push_indirect(u, FlexType::IndirectUInt, BitWidth::of_u64(u));
    }

    /// Pushes a 32-bit float stored behind an offset.
    pub fn indirect_float(&mut self, f: f32) {
        self.push_indirect(f.to_bits() as u64, FlexType::IndirectFloat, BitWidth::W32);
    }

    /// Pushes a 64-bit float stored behind an offset, as f32 when exact.
    ///
    /// Deviation from the C++ reference (upstream issue 8340): C++ writes the low
    /// four bytes of the double there, which reads back as 0; we write the f32.
    pub fn indirect_double(&mut self, f: f64) {
        match BitWidth::of_f64(f) {
            BitWidth::W32 => self.indirect_float(f as f32),
            w => self.push_indirect(f.to_bits(), FlexType::IndirectFloat, w),
        }
    }

    fn push_indirect(&mut self, bits: u64, ty: FlexType, width: BitWidth) {
        if self.closed() {
            return;
        }
        self.align(width);
        let loc = self.buf.len();
        self.write_uint(bits, width.bytes());
        self.stack.push(Slot::new(loc as u64, ty, width));
    }

    // ---- explicit reuse -------------------------------------------------

    /// The most recently pushed value, to push again later with [`reuse_value`](Self::reuse_value).
    pub fn last_value(&self) -> Option<ValueHandle> {
        self.stack.last().map(|&slot| ValueHandle {
            slot,
            generation: self.generation,
        })
    }

    /// The key just pushed with [`key`](Self::key) (the top of the stack,
    /// when it is a key and nothing has failed), to push again in a later
    /// map with [`reuse_value`](Self::reuse_value): the same bytes as
    /// calling `key` with the same text under [`ShareFlags::KEYS`], without
    /// hashing it.
    #[inline]
    pub fn last_key(&self) -> Option<ValueHandle> {
        if self.error.is_some() {
            return None;
        }
        let slot = self.stack.last_by_words()?;
        (slot.ty == FlexType::Key).then_some(ValueHandle {
            slot,
            generation: self.generation,
        })
    }

    /// Pushes a value captured with [`last_value`](Self::last_value) again; offset
    /// values then point at the same bytes.
    #[inline(always)]
    pub fn reuse_value(&mut self, handle: ValueHandle) {
        if self.closed() {
            return;
        }
        if handle.generation != self.generation {
            self.fail(BuilderError::StaleValue.into());
            return;
        }
        self.stack.push(handle.slot);
    }

    // ---- containers -----------------------------------------------------

    /// Starts an untyped, typed or fixed vector; close it with the matching `end_*`.
    #[inline]
    pub fn start_vector(&mut self) {
        if self.closed() {
            return;
        }
        self.opens.push(Open::Vector(self.stack.len()));
    }

    /// Starts a map; push key/value pairs, then call [`end_map`](Self::end_map).
    #[inline]
    pub fn start_map(&mut self) {
        if self.closed() {
            return;
        }
        self.opens.push(Open::Map(self.stack.len()));
    }

    /// Pushes an empty untyped vector: the bytes and the errors of
    /// [`start_vector`](Self::start_vector) then [`end_vector`](Self::end_vector),
    /// in one call (documents hold many `[]`).
    ///
    /// ```
    /// let mut a = flexbuf::Builder::new();
    /// a.empty_vector().unwrap();
    /// let mut b = flexbuf::Builder::new();
    /// b.start_vector();
    /// b.end_vector().unwrap();
    /// assert_eq!(a.finish().unwrap(), b.finish().unwrap());
    /// ```
    pub fn empty_vector(&mut self) -> Result<()> {
        self.closed();
        self.check()?;
        let v = self.create_empty(false, None);
        self.stack.push(v);
        Ok(())
    }

    /// Pushes an empty map: the bytes and the errors of
    /// [`start_map`](Self::start_map) then [`end_map`](Self::end_map), in
    /// one call (documents hold many `{}`).
    pub fn empty_map(&mut self) -> Result<()> {
        self.closed();
        self.check()?;
        let keys = self.create_empty(true, None);
        let map = self.create_empty(false, Some(keys));
        self.stack.push(map);
        Ok(())
    }

    /// Ends an untyped vector.
    pub fn end_vector(&mut self) -> Result<()> {
        self.end_vector_as(false, false)
    }

    /// Ends a typed vector: every element must have one type among int, uint,
    /// float, bool and key. An empty typed vector is a key vector, as in C++.
    pub fn end_typed_vector(&mut self) -> Result<()> {
        self.end_vector_as(true, false)
    }

    /// Ends a fixed typed vector of 2, 3 or 4 ints, uints or floats.
    pub fn end_fixed_vector(&mut self) -> Result<()> {
        self.end_vector_as(true, true)
    }

    /// Ends a vector in its most compact form: a typed vector when every element
    /// is an int, every one a uint, a float or a bool (a fixed vector for 2 to 4
    /// numbers when `fixed` allows it), an untyped vector otherwise.
    ///
    /// Not a C++ call sequence: the serde tier uses it, where no reference
    /// bytes exist and typed vectors are smaller and faster to read.
    #[cfg(feature = "serde")]
    pub(crate) fn end_vector_compact(&mut self, fixed: bool) -> Result<()> {
        let Some(&Open::Vector(start)) = self.opens.last() else {
            return self.end_vector();
        };
        // One scalar type throughout; null is inline but no typed vector holds it.
        let known = match uniform_inline(&self.stack[start..]) {
            Some(k) if k.0 != FlexType::Null => k,
            _ => return self.end_vector(),
        };
        let len = self.stack.len() - start;
        let fixed = fixed && (2..=4).contains(&len) && known.0 != FlexType::Bool;
        // What `check_typed` would check again was checked above.
        self.check()?;
        self.opens.pop();
        let vec = self.create_vector_of::<1>(start, len, true, fixed, None, Some(known));
        self.stack.truncate(start);
        self.stack.push(vec);
        Ok(())
    }

    /// Ends a vector with the C++ `EndVector(start, typed, fixed)` flags.
    pub fn end_vector_as(&mut self, typed: bool, fixed: bool) -> Result<()> {
        self.check()?;
        let start = match self.opens.pop() {
            Some(Open::Vector(s)) => s,
            other => return self.unbalanced(other),
        };
        let len = self.stack.len() - start;
        if !typed && !fixed && (1..=SMALL_VECTOR).contains(&len) && small_vectors() {
            let vec = self.small_vector::<1>(start, len, None);
            self.stack.truncate(start);
            self.stack.push(vec);
            return Ok(());
        }
        if typed {
            if let Err(e) = self.check_typed(start, len, fixed) {
                return Err(self.fail(e));
            }
        }
        let vec = self.create_vector::<1>(start, len, typed, fixed, None);
        self.stack.truncate(start);
        self.stack.push(vec);
        Ok(())
    }

    /// The untyped vector of the `len` (1 to [`SMALL_VECTOR`]) values at
    /// `stack[start..]`, or with `keys` the values of a map on that keys
    /// vector, written straight from its width: the bytes
    /// [`create_vector`](Self::create_vector) writes for it, without the
    /// plan it makes for vectors of any size (a pair's end cost about 280
    /// instructions there, most of them that plan; deep_nesting, whose
    /// lists have five elements, took 70.4k instructions to encode when
    /// only vectors of up to four came here, and takes 63.5k; for the maps
    /// of a typed encoder's records the plan was about 20 of the 160
    /// instructions a map took).
    ///
    /// `STEP` 2 takes every other slot from `start` (a map's values between
    /// its keys on the stack, as `create_vector::<2>` takes them).
    #[inline(always)]
    fn small_vector<const STEP: usize>(
        &mut self,
        start: usize,
        len: usize,
        keys: Option<Slot>,
    ) -> Slot {
        let elems = &self.stack[start..start + (len - 1) * STEP + 1];
        let buf_len = self.buf.len();
        // The size (at most SMALL_VECTOR) fits a byte: the floor is the
        // forced minimum, or what a map's keys field (slot 0 of its three
        // fields) needs.
        let (floor, prefix) = match keys {
            Some(k) => (k.keys_field_width(buf_len, self.force_min_width), 3),
            None => (self.force_min_width, 1),
        };
        let width = vector_width::<STEP>(elems, buf_len, prefix, floor);
        let fields = keys.map(|k| (k.data as usize, k.width));
        let buf = &mut self.buf;
        let at = match width {
            BitWidth::W8 => crate::emit::write_small_vector::<1, STEP>(buf, elems, len, fields),
            BitWidth::W16 => crate::emit::write_small_vector::<2, STEP>(buf, elems, len, fields),
            BitWidth::W32 => crate::emit::write_small_vector::<4, STEP>(buf, elems, len, fields),
            BitWidth::W64 => crate::emit::write_small_vector::<8, STEP>(buf, elems, len, fields),
        };
        let ty = if keys.is_some() {
            FlexType::Map
        } else {
            FlexType::Vector
        };
        Slot::new(at as u64, ty, width)
    }

    fn check_typed(&self, start: usize, len: usize, fixed: bool) -> Result<()> {
        if fixed && !(2..=4).contains(&len) {
            return Err(BuilderError::FixedLength(len).into());
        }
        let Some(first) = self.stack.get(start) else {
            return Ok(());
        };
        let ty = first.ty;
        let ok = if fixed {
            matches!(ty, FlexType::Int | FlexType::UInt | FlexType::Float)
        } else {
            matches!(
                ty,
                FlexType::Int | FlexType::UInt | FlexType::Float | FlexType::Bool | FlexType::Key
            )
        };
        if !ok {
            return Err(BuilderError::TypedVectorElement(ty).into());
        }
        match self.stack[start..].iter().find(|s| s.ty != ty) {
            Some(other) => Err(BuilderError::TypedVectorElement(other.ty).into()),
            None => Ok(()),
        }
    }

    /// Ends a map: sorts entries by key (unsigned bytes) and writes the keys vector
    /// and the values. Two equal keys are an error.
    pub fn end_map(&mut self) -> Result<()> {
        self.end_map_sorting(None)
    }

    /// Ends a map as [`end_map`](Self::end_map) does (same bytes, same
    /// errors), with a guess at the order that sorts its entries, for callers
    /// that push maps of one shape with their keys out of order again and
    /// again (a language's dictionaries keep their insertion order).
    ///
    /// `order` comes in as the guess: entry indices (in push order) in
    /// ascending key order, as an earlier call on the same keys left it, or
    /// empty. It is checked against the keys in one pass; a wrong or stale
    /// guess costs that pass and the map is sorted as usual. On return
    /// `order` holds the order that sorted this map, or is empty when the
    /// entries came ascending.
    pub fn end_map_in_order(&mut self, order: &mut Vec<u32>) -> Result<()> {
        self.end_map_sorting(Some(order))
    }

    fn end_map_sorting(&mut self, mut order: Option<&mut Vec<u32>>) -> Result<()> {
        self.check()?;
        let start = match self.opens.pop() {
            Some(Open::Map(s)) => s,
            other => return self.unbalanced(other),
        };
        // An empty map: nothing to sort or scan, and (as below) its empty
        // keys vector is never shared.
        if start == self.stack.len() {
            if let Some(o) = order {
                o.clear();
            }
            let keys = self.create_empty(true, None);
            let map = self.create_empty(false, Some(keys));
            self.stack.push(map);
            return Ok(());
        }
        // A right guess: written in its order, the entries left in place.
        // Tried first: a caller with a guess has met this shape unsorted
        // (an empty guess means the entries came ascending).
        if let Some(o) = order.as_deref_mut().filter(|o| !o.is_empty()) {
            if self.one_pass_map_in(start, o) {
                if o.iter().enumerate().all(|(i, &j)| i == j as usize) {
                    o.clear();
                }
                return Ok(());
            }
        }
        if self.one_pass_map(start) {
            if let Some(o) = order {
                o.clear();
            }
            return Ok(());
        }
        let guessed = match order.as_deref() {
            Some(o) if self.orders_keys(start, o) => {
                self.permute_entries(start, o);
                true
            }
            _ => false,
        };
        if !guessed {
            if let Err(e) = self.sort_map_entries(start, order) {
                return Err(self.fail(e));
            }
        }
        // Sorted now, so the one-pass writer takes it unless it never does.
        if self.one_pass_map(start) {
            return Ok(());
        }
        let len = (self.stack.len() - start) / 2;
        let keys = if self.options.dedup_key_vectors && len > 0 {
            match self.shared_keys_vector(start) {
                Some(k) => k,
                None => {
                    let k = self.create_vector::<2>(start, len, true, false, None);
                    self.key_vectors.insert(&self.signature, k);
                    k
                }
            }
        } else {
            self.create_vector::<2>(start, len, true, false, None)
        };
        self.end_map_values(start, len, keys);
        Ok(())
    }

    /// The keys vector already written for the key set of the entries at
    /// `stack[start..]`, in their order (recorded only for key sets found
    /// strictly ascending); `None` when a key slot holds something else.
    /// On a miss the signature is left in `self.signature`, for the caller
    /// to insert under once it has checked the keys (it is a key set's
    /// only when every key slot holds a key).
    fn shared_keys_vector(&mut self, start: usize) -> Option<Slot> {
        let sig = core::mem::take(&mut self.signature);
        let (sig, complete) = self.key_signature(start, sig);
        self.signature = sig;
        if !complete {
            return None;
        }
        let keys = self.key_vectors.get(&self.signature)?;
        // Checked on a hit only: a miss is scanned or sorted, which checks.
        let keys_only = self.stack[start..]
            .iter()
            .step_by(2)
            .all(|k| k.ty == FlexType::Key);
        keys_only.then_some(keys)
    }

    /// Writes the values of the `len` entries at `stack[start..]` as a map
    /// on the keys vector `keys` and puts the map in their place.
    fn end_map_values(&mut self, start: usize, len: usize, keys: Slot) {
        let map = if (1..=SMALL_VECTOR).contains(&len) && small_vectors() {
            self.small_vector::<2>(start + 1, len, Some(keys))
        } else {
            self.create_vector::<2>(start + 1, len, false, false, Some(keys))
        };
        self.stack.truncate(start);
        self.stack.push(map);
    }

    /// True when `order` lists every entry at `stack[start..]` once and
    /// puts their keys in strictly ascending order (so it is the one order
    /// that sorts them; a repeated index would repeat a key).
    fn orders_keys(&self, start: usize, order: &[u32]) -> bool {
        let entries = &self.stack[start..];
        let n = entries.len() / 2;
        if order.len() != n || entries.len() % 2 != 0 {
            return false;
        }
        let mut prev: &[u8] = &[];
        for (i, &j) in order.iter().enumerate() {
            let Some(k) = entries.get(2 * j as usize) else {
                return false;
            };
            if k.ty != FlexType::Key {
                return false;
            }
            let key = slot_key(&self.buf, k);
            if i > 0 && key_order(prev, key) != core::cmp::Ordering::Less {
                return false;
            }
            prev = key;
        }
        true
    }

    /// Rearranges the entries at `stack[start..]` into `order` (checked by
    /// [`orders_keys`](Self::orders_keys)): entry `order[i]` goes to place
    /// `i`, copied from a snapshot of the entries.
    fn permute_entries(&mut self, start: usize, order: &[u32]) {
        let mut moved = core::mem::take(&mut self.moved);
        moved.clear();
        moved.extend_from_slice(&self.stack[start..]);
        for (i, &j) in order.iter().enumerate() {
            let j = j as usize;
            self.stack[start + 2 * i] = moved[2 * j];
            self.stack[start + 2 * i + 1] = moved[2 * j + 1];
        }
        self.moved = moved;
    }

    /// Writes the map of the entries at `stack[start..]` in one pass when
    /// they are keys in ascending order each followed by its value; false,
    /// writing nothing, otherwise. When keys vectors are shared by key set
    /// (`dedup_key_vectors`), a key set met before has its values written
    /// against the kept keys vector.
    fn one_pass_map(&mut self, start: usize) -> bool {
        if !one_pass_maps() {
            return false;
        }
        let entries = &self.stack[start..];
        if entries.is_empty() || entries.len() % 2 != 0 {
            return false;
        }
        let dedup = self.options.dedup_key_vectors;
        // Keys vectors shared by key set: an earlier map's when one has
        // these keys in this order, else this map's, written with its
        // values and kept. A key set is recorded only once its keys were
        // found strictly ascending (here, or sorted by the general path),
        // and its signature names every key in order, so a map that finds
        // one needs no scan of its keys.
        if dedup {
            if let Some(keys) = self.shared_keys_vector(start) {
                let len = (self.stack.len() - start) / 2;
                self.end_map_values(start, len, keys);
                return true;
            }
        }
        let entries = &self.stack[start..];
        let Some(scan) = scan_map(&self.buf, entries) else {
            return false;
        };
        if !dedup {
            return self.write_scanned_map(start, scan, None).is_some();
        }
        // (The scan found every key slot a key, so the miss above left
        // this map's signature.)
        match self.write_scanned_map(start, scan, None) {
            Some(keys) => {
                self.key_vectors.insert(&self.signature, keys);
                true
            }
            None => false,
        }
    }

    /// [`one_pass_map`](Self::one_pass_map) for entries that `order` (entry
    /// indices, as [`end_map_in_order`](Self::end_map_in_order) takes them)
    /// puts in ascending key order: the map is written in that order
    /// straight from the stack, without moving the entries. False, writing
    /// nothing, when `order` does not sort them (or is not a permutation of
    /// them: any index out of range, or one repeated, which repeats a key).
    fn one_pass_map_in(&mut self, start: usize, order: &[u32]) -> bool {
        if self.options.dedup_key_vectors || !one_pass_maps() {
            return false;
        }
        let entries = &self.stack[start..];
        let n = entries.len() / 2;
        if n == 0 || entries.len() % 2 != 0 || order.len() != n {
            return false;
        }
        match scan_map_in(&self.buf, entries, order) {
            Some(scan) => self.write_scanned_map(start, scan, Some(order)).is_some(),
            None => false,
        }
    }

    /// The map of the `scan.len` entries at `stack[start..]`, which
    /// [`scan_map`] found to be keys in ascending order (in `order` when
    /// given, else as they stand) each with its value: the bytes
    /// [`create_vector`](Self::create_vector) writes for its keys vector and
    /// then its values, with each width taken from the bound the scan
    /// gathered when that bound fits. When it does not, the exact search
    /// runs on entries as they stand; entries in another `order` are then
    /// left for the general path (`None`, nothing written). Returns the
    /// slot of the keys vector it wrote.
    #[inline(always)]
    fn write_scanned_map(
        &mut self,
        start: usize,
        scan: MapScan,
        order: Option<&[u32]>,
    ) -> Option<Slot> {
        let n = scan.len;
        let floor = self.force_min_width.max(BitWidth::of_u64(n as u64));
        // Element `j` of the stack range sits `j + prefix` slots into the vector.
        let keys_end = start + 2 * n - 1;
        let buf_len = self.buf.len();
        let at_first = 2 * scan.first_key.1 + 1;
        let key_width =
            match width_by_bounds(buf_len, floor, at_first, 2 * (n - 1) + 1, scan.first_key.0) {
                Ok(w) => w,
                Err(_) if order.is_some() => return None,
                Err(w) => vector_width_exact::<2>(&self.stack[start..keys_end], buf_len, 1, w),
            };
        let kb = key_width.bytes();
        let keys_at = buf_len + padding(buf_len, kb) + kb;
        // The values vector is written where the keys vector ends.
        let buf_len = keys_at + n * kb;
        let keys = Slot::new(keys_at as u64, FlexType::VectorKey, key_width);
        let floor = keys.elem_width_from(buf_len, 0, floor).max(scan.inline);
        let at_first = 2 * scan.first_value.1 + 3;
        let value_width = match width_by_bounds(
            buf_len,
            floor,
            at_first,
            2 * (n - 1) + 3,
            scan.first_value.0,
        ) {
            Ok(w) => w,
            Err(_) if order.is_some() => return None,
            Err(w) => vector_width_exact::<2>(&self.stack[start + 1..start + 2 * n], buf_len, 3, w),
        };
        let vb = value_width.bytes();
        let plan = MapPlan {
            len: n,
            key_width,
            keys_at,
            value_width,
            values_at: buf_len + padding(buf_len, vb) + 3 * vb,
        };
        write_map(
            &mut self.buf,
            &self.stack[start..start + 2 * n],
            order,
            &plan,
        );
        self.stack.truncate(start);
        self.stack
            .push(Slot::new(plan.values_at as u64, FlexType::Map, value_width));
        Some(keys)
    }

    /// Writes a typed vector of `keys` (which must be strictly ascending in byte
    /// order) for [`end_map_with_keys`](Self::end_map_with_keys).
    pub fn key_vector(&mut self, keys: &[&str]) -> Result<KeyVector> {
        self.closed();
        self.check()?;
        self.check_ascending(keys)?;
        let start = self.stack.len();
        for k in keys {
            self.key(k);
        }
        self.check()?;
        let slot = self.create_vector::<1>(start, keys.len(), true, false, None);
        self.stack.truncate(start);
        Ok(KeyVector::new(slot, keys.len(), self.generation))
    }

    /// Fails unless `keys` are strictly ascending in byte order.
    fn check_ascending(&mut self, keys: &[&str]) -> Result<()> {
        match unordered_keys(keys) {
            Some(e) => Err(self.fail(e.into())),
            None => Ok(()),
        }
    }

    /// Writes the keys of `layout` one after the other, each with its NUL,
    /// from its precomputed bytes, then their keys vector, for
    /// [`end_map_with_keys`](Self::end_map_with_keys). The key pool is
    /// neither read nor filled, so the bytes written depend only on `layout`
    /// and the current end of the buffer: this is how generated typed
    /// encoders of every language lay out a type's keys (see `flexbuf::typed`).
    pub fn key_vector_for(&mut self, layout: &crate::typed::Layout) -> Result<KeyVector> {
        self.closed();
        self.check()?;
        self.buf.extend_from_slice(layout.block());
        Ok(self.key_vector_after_block(layout.keys().iter().map(|k| k.len())))
    }

    /// Makes room for `bytes` more bytes in the buffer (one allocation
    /// instead of growing by doubling, when the size is known roughly).
    pub(crate) fn reserve_buffer(&mut self, bytes: usize) {
        self.buf.reserve(bytes);
    }

    /// The minimum width set by [`force_min_width`](Self::force_min_width).
    pub(crate) fn min_width(&self) -> BitWidth {
        self.force_min_width
    }

    /// The bytes written from position `at` to the end.
    pub(crate) fn written_since(&self, at: usize) -> &[u8] {
        &self.buf[at.min(self.buf.len())..]
    }

    /// Writes `bytes`: a key block and the bytes [`key_vector_for`](Self::key_vector_for)
    /// wrote after it when it started at the same position modulo 8 under
    /// the same minimum width (`crate::key_tails` keeps them): the keys
    /// vector of `count` keys of `width`, whose offsets depend on nothing
    /// else.
    #[inline]
    pub(crate) fn key_vector_from_tail(
        &mut self,
        bytes: &[u8],
        width: BitWidth,
        count: usize,
    ) -> Result<KeyVector> {
        self.closed();
        self.check()?;
        self.buf.extend_from_slice(bytes);
        let loc = self.buf.len() - count * width.bytes();
        Ok(KeyVector::new(
            Slot::new(loc as u64, FlexType::VectorKey, width),
            count,
            self.generation,
        ))
    }

    /// [`key_vector_for`](Self::key_vector_for) for keys known only at run
    /// time, checked when `layout` was made: written the same way.
    pub fn key_vector_layout(&mut self, layout: &crate::typed::RuntimeLayout) -> Result<KeyVector> {
        self.closed();
        self.check()?;
        self.buf.extend_from_slice(layout.block());
        Ok(self.key_vector_after_block(layout.key_lens().iter().copied()))
    }

    /// The keys vector of `keys`, whose bytes (each with its NUL) were just
    /// written one after the other at the end of the buffer.
    ///
    /// Written directly, without the value stack: with the block of `B` bytes
    /// just behind, key `i` (starting `c_i` bytes into the block) is stored
    /// in a `w`-byte vector after `p` bytes of alignment as the offset
    /// `B + p + (i + 1) * w - c_i`, so the narrowest width that holds every
    /// offset (and the length) is found by arithmetic alone. The bytes are
    /// those `create_vector` writes for the same keys.
    fn key_vector_after_block<L>(&mut self, lens: L) -> KeyVector
    where
        L: ExactSizeIterator<Item = usize> + Clone,
    {
        let count = lens.len();
        let block: usize = lens.clone().map(|l| l + 1).sum();
        let end = self.buf.len();
        let mut width = self.force_min_width.max(BitWidth::of_u64(count as u64));
        while width < BitWidth::W64 {
            let w = width.bytes();
            let base = block + padding(end, w) + w;
            let (mut at, mut widest) = (0usize, 0usize);
            for (i, l) in lens.clone().enumerate() {
                widest = widest.max(base + i * w - at);
                at += l + 1;
            }
            if (widest as u64) >> (8 * w) == 0 {
                break;
            }
            width = BitWidth::from_bytes(2 * w as u64).unwrap_or(BitWidth::W64);
        }
        let w = width.bytes();
        self.align(width);
        self.buf.reserve((count + 1) * w);
        self.write_uint(count as u64, w);
        let loc = self.buf.len();
        let mut key_at = end - block;
        for l in lens {
            let here = self.buf.len();
            self.write_uint((here - key_at) as u64, w);
            key_at += l + 1;
        }
        KeyVector::new(
            Slot::new(loc as u64, FlexType::VectorKey, width),
            count,
            self.generation,
        )
    }

    /// Ends a map whose values were pushed (without keys) in the order of `keys`.
    pub fn end_map_with_keys(&mut self, keys: &KeyVector) -> Result<()> {
        self.check()?;
        if keys.generation != self.generation {
            return Err(self.fail(BuilderError::StaleValue.into()));
        }
        let start = match self.opens.pop() {
            Some(Open::Map(s)) => s,
            other => return self.unbalanced(other),
        };
        let len = self.stack.len() - start;
        if len != keys.len {
            return Err(self.fail(BuilderError::MapEntryNotKey(len.min(keys.len)).into()));
        }
        let map = if (1..=SMALL_VECTOR).contains(&len) && small_vectors() {
            self.small_vector::<1>(start, len, Some(keys.slot()))
        } else {
            self.create_vector::<1>(start, len, false, false, Some(keys.slot()))
        };
        self.stack.truncate(start);
        self.stack.push(map);
        Ok(())
    }

    /// Identifies a sorted key set exactly, written into `sig` (cleared
    /// first): the key offsets when keys are shared (equal keys then have
    /// equal offsets), else every key's bytes, each followed by its NUL (keys
    /// cannot contain NUL, so the join is unambiguous).
    ///
    /// Also returns false when the signature is incomplete: without shared
    /// keys, at the first key slot that holds something else (whose bytes
    /// are not read). With them the offsets of any slots are taken, and the
    /// caller checks the slots.
    fn key_signature(&self, start: usize, mut sig: Vec<u8>) -> (Vec<u8>, bool) {
        sig.clear();
        let keys = self.stack[start..].iter().step_by(2);
        if self.options.share.contains(ShareFlags::KEYS) {
            for k in keys {
                sig.extend_from_slice(&k.data.to_le_bytes());
            }
        } else {
            for k in keys {
                if k.ty != FlexType::Key {
                    return (sig, false);
                }
                sig.extend_from_slice(slot_key(&self.buf, k));
                sig.push(0);
            }
        }
        (sig, true)
    }

    /// Sorts the entries at `stack[start..]` by key, checking them; when
    /// `order` is given it receives the entry indices in sorted order (left
    /// empty when they were sorted already).
    fn sort_map_entries(&mut self, start: usize, mut order: Option<&mut Vec<u32>>) -> Result<()> {
        if let Some(o) = order.as_deref_mut() {
            o.clear();
        }
        let n = self.stack.len() - start;
        if n % 2 != 0 {
            return Err(BuilderError::MapEntryNotKey(n / 2).into());
        }
        if let Some(i) = self.stack[start..]
            .iter()
            .step_by(2)
            .position(|s| s.ty != FlexType::Key)
        {
            return Err(BuilderError::MapEntryNotKey(i).into());
        }
        let entries = &self.stack[start..];
        let buf = &self.buf;
        let key = |s: &Slot| slot_key(buf, s);
        // Already ascending (common for generated code and sorted JSON): no sort.
        let mut sorted = true;
        for i in (2..entries.len()).step_by(2) {
            match key_order(key(&entries[i - 2]), key(&entries[i])) {
                core::cmp::Ordering::Less => {}
                core::cmp::Ordering::Equal => {
                    return Err(BuilderError::DuplicateKey(
                        String::from_utf8_lossy(key(&entries[i])).into_owned(),
                    )
                    .into())
                }
                core::cmp::Ordering::Greater => {
                    sorted = false;
                    break;
                }
            }
        }
        if sorted {
            return Ok(());
        }
        // Each entry's word holds its key's first eight bytes above its
        // index: sorting the words (integers, compared without branches)
        // orders every entry whose first eight bytes differ from the others'.
        let mut words = core::mem::take(&mut self.sort_words);
        words.clear();
        words.extend(entries.chunks_exact(2).enumerate().map(|(i, c)| {
            let k = key(&c[0]);
            (u128::from(crate::word::key_word(k, 0, k.len())) << 32) | i as u128
        }));
        sort_words(&mut words, &mut self.radix_words);
        let at = |w: u128| 2 * (w as u32 as usize);
        // The entries in that order, noting whether two first words tie
        // (no head reaches u128::MAX, 96 bits at most).
        let mut moved = core::mem::take(&mut self.moved);
        let gather = |moved: &mut Vec<Slot>, words: &[u128]| {
            moved.clear();
            let (mut tied, mut prev) = (false, u128::MAX);
            for &w in words {
                tied |= w >> 32 == prev;
                prev = w >> 32;
                moved.extend_from_slice(&entries[at(w)..at(w) + 2]);
            }
            tied
        };
        if gather(&mut moved, &words) {
            // Rare: runs of one first word, ordered by their whole keys.
            let mut dup = None;
            let mut i = 0;
            while i < words.len() && dup.is_none() {
                let head = words[i] >> 32;
                let mut j = i + 1;
                while j < words.len() && words[j] >> 32 == head {
                    j += 1;
                }
                if j - i > 1 {
                    let run = &mut words[i..j];
                    run.sort_unstable_by(|a, b| key(&entries[at(*a)]).cmp(key(&entries[at(*b)])));
                    dup = run
                        .windows(2)
                        .map(|w| (key(&entries[at(w[0])]), key(&entries[at(w[1])])))
                        .find(|(a, b)| a == b)
                        .map(|(a, _)| a);
                }
                i = j;
            }
            if let Some(k) = dup {
                let e = BuilderError::DuplicateKey(String::from_utf8_lossy(k).into_owned());
                self.sort_words = words;
                self.moved = moved;
                return Err(e.into());
            }
            gather(&mut moved, &words);
        }
        self.stack[start..].copy_from_slice(&moved);
        self.moved = moved;
        if let Some(o) = order {
            o.extend(words.iter().map(|&w| w as u32));
        }
        self.sort_words = words;
        Ok(())
    }

    /// The reference's `CreateVector`: elements are `stack[start], stack[start + STEP], ...`.
    ///
    /// The element index used for width selection is the stack distance, so map
    /// entries (step 2) count double; this over-estimates some widths exactly as C++ does.
    #[inline(always)]
    fn create_vector<const STEP: usize>(
        &mut self,
        start: usize,
        len: usize,
        typed: bool,
        fixed: bool,
        keys: Option<Slot>,
    ) -> Slot {
        self.create_vector_of::<STEP>(start, len, typed, fixed, keys, None)
    }

    /// [`create_vector`](Self::create_vector) for elements the caller found
    /// to be inline scalars of one type and widest width (`known`, from
    /// [`uniform_inline`]): their width is not searched again.
    #[inline(always)]
    fn create_vector_of<const STEP: usize>(
        &mut self,
        start: usize,
        len: usize,
        typed: bool,
        fixed: bool,
        keys: Option<Slot>,
        known: Option<(FlexType, BitWidth)>,
    ) -> Slot {
        if len == 0 && !fixed {
            return self.create_empty(typed, keys);
        }
        let buf_len = self.buf.len();
        let mut width = self.force_min_width.max(BitWidth::of_u64(len as u64));
        let mut prefix = 1;
        if let Some(k) = keys {
            width = k.keys_field_width(buf_len, width);
            prefix += 2;
        }
        // Just past the last element (a map's values start one slot late).
        let range = if len == 0 {
            0..0
        } else {
            start..start + (len - 1) * STEP + 1
        };
        // Untyped vectors of one scalar type (numeric arrays) need no
        // offsets: their width is the widest element's, found in the scan
        // that finds them uniform.
        let uniform = match (typed, keys, STEP) {
            (false, None, 1) if uniform_vectors() => {
                known.or_else(|| uniform_inline(&self.stack[range.clone()]))
            }
            // A typed vector of scalars the caller found uniform: filled
            // without the per-element dispatch.
            (true, None, 1) if uniform_vectors() => known,
            _ => None,
        };
        // Scalars of one type (found here or by the caller): the widest
        // element's width, with no search.
        width = match uniform.or(known) {
            Some((_, w)) => width.max(w),
            None => vector_width::<STEP>(&self.stack[range.clone()], buf_len, prefix, width),
        };
        let elem_type = match self.stack.get(start) {
            Some(s) if typed && len > 0 => s.ty,
            _ => FlexType::Key,
        };
        let bytes = width.bytes();
        let fields = usize::from(!fixed) + if keys.is_some() { 2 } else { 0 };
        let plan = VectorPlan {
            len,
            width,
            at: buf_len + padding(buf_len, bytes) + fields * bytes,
            keys: keys.map(|k| (k.data as usize, k.width)),
            sized: !fixed,
            types: !typed,
            uniform: uniform.map(|(ty, _)| ty),
        };
        write_vector::<STEP>(&mut self.buf, &self.stack[range], &plan);
        let loc = plan.at;
        let ty = if keys.is_some() {
            FlexType::Map
        } else if typed {
            // check_typed/key_vector guarantee a representable combination.
            elem_type
                .to_typed_vector(if fixed { len } else { 0 })
                .unwrap_or(FlexType::VectorKey)
        } else {
            FlexType::Vector
        };
        Slot::new(loc as u64, ty, width)
    }

    /// The empty vector [`create_vector`](Self::create_vector) writes (an
    /// empty key vector when `typed`, a map's empty values when `keys` is
    /// given), without its planning: the width is the minimum (or what the
    /// offset to `keys` needs), then the padding, the fields and a size of 0.
    ///
    /// Inlined so that its slot is pushed from registers: returned through
    /// memory field by field, the 16-byte load of the push stalled on
    /// those stores (a sixth of `end_map_with_keys` on chat_thread).
    #[inline(always)]
    fn create_empty(&mut self, typed: bool, keys: Option<Slot>) -> Slot {
        let ty = match keys {
            Some(_) => FlexType::Map,
            None if typed => FlexType::VectorKey,
            None => FlexType::Vector,
        };
        if keys.is_none() && self.force_min_width == BitWidth::W8 {
            // The usual `[]`: a one-byte size of zero, with no padding.
            self.buf.push(0);
            return Slot::new(self.buf.len() as u64, ty, BitWidth::W8);
        }
        let buf_len = self.buf.len();
        let mut width = self.force_min_width.max(BitWidth::W8);
        if let Some(k) = keys {
            width = k.elem_width_from(buf_len, 0, width);
        }
        let b = width.bytes();
        let fields_at = buf_len + padding(buf_len, b);
        self.buf.resize(fields_at, 0);
        if let Some(k) = keys {
            self.write_uint(fields_at as u64 - k.data, b);
            self.write_uint(k.width.bytes() as u64, b);
        }
        self.write_uint(0, b);
        Slot::new(self.buf.len() as u64, ty, width)
    }

    // ---- bulk vectors ---------------------------------------------------

    /// Pushes a typed vector of `values` at the minimal width, exactly as pushing
    /// each value and calling [`end_typed_vector`](Self::end_typed_vector) would.
    ///
    /// The width is found in one scan that stops once the widest width the
    /// element type allows is reached; data already at its natural width is
    /// copied in one block on little-endian hosts.
    pub fn typed_vector<T: Scalar>(&mut self, values: &[T]) {
        if self.closed() {
            return;
        }
        let width = self.scalars_width(values);
        // An empty typed vector is a key vector, as when nothing is pushed.
        let ty = if values.is_empty() {
            Some(FlexType::VectorKey)
        } else {
            T::TYPE.to_typed_vector(0)
        };
        self.write_pushed_scalars(values, width, ty);
    }

    /// Pushes an untyped vector of the numbers `values`: the bytes of
    /// [`start_vector`](Self::start_vector), a push of each value
    /// ([`int`](Self::int), [`uint`](Self::uint), [`double`](Self::double),
    /// ...) and [`end_vector`](Self::end_vector), in one pass with no
    /// value-stack slot per element: the width is the widest value's (a
    /// float at 4 bytes when every one survives `f32`), and every type byte
    /// is the element type at that width. For encoders that meet a list of
    /// numbers (a JSON array, a Python list of `int`s) and must write it as
    /// the reference writes such a list, untyped.
    ///
    /// ```
    /// use flexbuf::Builder;
    /// let mut b = Builder::new();
    /// b.untyped_vector(&[1i64, -300, 7]);
    /// let bytes = b.finish().unwrap().to_vec();
    /// let v = flexbuf::Reader::new(&bytes).unwrap().as_vector().unwrap();
    /// assert_eq!(v.get(1).unwrap().as_i64().unwrap(), -300);
    /// ```
    pub fn untyped_vector<T: Scalar>(&mut self, values: &[T]) {
        if self.closed() {
            return;
        }
        if values.is_empty() {
            // An empty untyped vector, as when nothing is pushed.
            self.start_vector();
            let _ = self.end_vector();
            return;
        }
        let width = self.scalars_width(values);
        self.write_pushed_scalars(values, width, Some(FlexType::Vector));
        let n = values.len();
        let at = self.buf.len();
        self.buf.resize(at + n, pack_type(T::TYPE, width));
    }

    /// Pushes a typed vector at the natural width of `T`, as the C++
    /// `Vector(const T *elems, size_t len)` does.
    ///
    /// Fails when the length does not fit in that width (e.g. more than 255
    /// `u8` values): use [`typed_vector`](Self::typed_vector) or a blob then.
    pub fn scalar_vector<T: Scalar>(&mut self, values: &[T]) -> Result<()> {
        self.closed();
        self.check()?;
        if BitWidth::of_u64(values.len() as u64) > T::NATURAL {
            return Err(self.fail(BuilderError::LengthExceedsWidth.into()));
        }
        self.write_scalar_vector(values, T::NATURAL, true, T::TYPE.to_typed_vector(0));
        Ok(())
    }

    /// Pushes a fixed typed vector of 2, 3 or 4 numbers at the natural width of
    /// `T`, as the C++ `FixedTypedVector` does.
    pub fn fixed_vector<T: Scalar>(&mut self, values: &[T]) -> Result<()> {
        self.closed();
        self.check()?;
        let ty = match T::TYPE.to_typed_vector(values.len()) {
            Some(t) if T::TYPE != FlexType::Bool => t,
            _ => {
                let e = if (2..=4).contains(&values.len()) {
                    BuilderError::TypedVectorElement(T::TYPE)
                } else {
                    BuilderError::FixedLength(values.len())
                };
                return Err(self.fail(e.into()));
            }
        };
        self.write_scalar_vector(values, T::NATURAL, false, Some(ty));
        Ok(())
    }

    /// The narrowest width of a vector of `values` (with its size), at
    /// least the forced minimum: what pushing each value finds. The scan of
    /// the values stops once their natural width is reached.
    fn scalars_width<T: Scalar>(&self, values: &[T]) -> BitWidth {
        let width = self
            .force_min_width
            .max(BitWidth::of_u64(values.len() as u64));
        if width < T::NATURAL && !values.is_empty() {
            width.max(T::min_width_of(values, T::NATURAL))
        } else {
            width
        }
    }

    /// Writes the sized vector of `values` at `width` as pushing each stores
    /// them (a signalling f32 NaN quieted, as its f64 round trip does).
    fn write_pushed_scalars<T: Scalar>(
        &mut self,
        values: &[T],
        width: BitWidth,
        ty: Option<FlexType>,
    ) {
        if T::PUSH_CHANGES_BITS && values.iter().any(|v| v.pushed_differs()) {
            let pushed: Vec<T> = values.iter().map(|v| v.as_pushed()).collect();
            self.write_scalar_vector(&pushed, width, true, ty);
        } else {
            self.write_scalar_vector(values, width, true, ty);
        }
    }

    fn write_scalar_vector<T: Scalar>(
        &mut self,
        values: &[T],
        width: BitWidth,
        prefixed: bool,
        ty: Option<FlexType>,
    ) {
        let bytes = width.bytes();
        self.align(width);
        if prefixed {
            self.write_uint(values.len() as u64, bytes);
        }
        let loc = self.buf.len();
        if width == T::NATURAL && cfg!(target_endian = "little") {
            T::extend_le(&mut self.buf, values);
        } else {
            T::extend_at_width(&mut self.buf, values, width);
        }
        let ty = ty.unwrap_or(FlexType::VectorKey);
        self.stack.push(Slot::new(loc as u64, ty, width));
    }

    // ---- finishing --------------------------------------------------------

    /// Writes the root trailer and returns the finished bytes, borrowed.
    ///
    /// Exactly one value must be on the stack and no container open.
    pub fn finish(&mut self) -> Result<&[u8]> {
        self.check()?;
        if self.finished {
            return Err(BuilderError::Finished.into());
        }
        if self.stack.len() != 1 || !self.opens.is_empty() {
            return Err(BuilderError::RootCount(self.stack.len()).into());
        }
        let root = self.stack[0];
        let width = root.elem_width(self.buf.len(), 0);
        self.align(width);
        self.write_any(root, width.bytes());
        self.buf.push(root.stored_packed(BitWidth::W8));
        self.buf.push(width.bytes() as u8);
        self.finished = true;
        Ok(&self.buf)
    }

    /// The finished bytes, if [`finish`](Self::finish) succeeded since the last clear.
    pub fn finished_bytes(&self) -> Option<&[u8]> {
        (self.finished && self.error.is_none()).then_some(&self.buf[..])
    }

    /// Finishes and returns the bytes as an owned vector, leaving the builder
    /// cleared and ready for the next buffer (with no capacity retained).
    pub fn finish_vec(&mut self) -> Result<Vec<u8>> {
        self.finish()?;
        let out = core::mem::take(&mut self.buf);
        self.clear_after(out.len());
        Ok(out)
    }

    /// The generation of the buffer being built (changes with every clear):
    /// what the serde serializer remembers of key positions holds for one
    /// generation only.
    #[cfg(feature = "serde")]
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The key on top of the stack, as a slot to push again with
    /// [`push_key_slot`](Self::push_key_slot).
    #[cfg(feature = "serde")]
    pub(crate) fn top_key(&self) -> Option<Slot> {
        self.stack.last().copied().filter(|s| s.ty == FlexType::Key)
    }

    /// Pushes a key written earlier in this generation (from
    /// [`top_key`](Self::top_key)) again, as [`key`](Self::key) pushes a
    /// pooled key.
    #[cfg(feature = "serde")]
    pub(crate) fn push_key_slot(&mut self, slot: Slot) {
        if self.closed() {
            return;
        }
        self.stack.push(slot);
    }

    /// The keys vector of the map on top of the stack (one just ended), to
    /// share with [`end_map_sharing`](Self::end_map_sharing).
    #[cfg(feature = "serde")]
    pub(crate) fn top_map_keys(&self) -> Option<Slot> {
        let map = self.stack.last().filter(|s| s.ty == FlexType::Map)?;
        let w = map.width.bytes();
        let values_at = usize::try_from(map.data).ok()?;
        let field = values_at.checked_sub(3 * w)?;
        let offset = read_field(&self.buf, field, w)?;
        let key_width = BitWidth::from_bytes(read_field(&self.buf, field + w, w)?)?;
        let keys_at = field.checked_sub(usize::try_from(offset).ok()?)?;
        Some(Slot::new(keys_at as u64, FlexType::VectorKey, key_width))
    }

    /// Ends the open map by sharing `keys`, the keys vector of a map this
    /// buffer already holds ([`top_map_keys`](Self::top_map_keys)): only
    /// the values vector is written. The map's keys must be those of `keys`,
    /// element for element, once `order` (entry indices; empty: as pushed)
    /// sorts them; that is checked against the keys vector's bytes, and
    /// when it does not hold (or anything else is off) nothing is done and
    /// false returned, the map still open for [`end_map`](Self::end_map).
    #[cfg(feature = "serde")]
    pub(crate) fn end_map_sharing(&mut self, keys: Slot, order: &[u32]) -> bool {
        if self.error.is_some() || keys.ty != FlexType::VectorKey {
            return false;
        }
        let Some(&Open::Map(start)) = self.opens.last() else {
            return false;
        };
        let entries = &self.stack[start..];
        let n = entries.len() / 2;
        if n == 0 || entries.len() % 2 != 0 || !(order.is_empty() || order.len() == n) {
            return false;
        }
        if self.keys_len(keys) != Some(n as u64) {
            return false;
        }
        let (w, loc) = (keys.width.bytes(), keys.data as usize);
        for i in 0..n {
            let j = if order.is_empty() {
                i
            } else {
                order[i] as usize
            };
            let Some(k) = entries.get(2 * j) else {
                return false;
            };
            let at = loc + i * w;
            let Some(offset) = read_field(&self.buf, at, w) else {
                return false;
            };
            // Keys of one vector sit at distinct positions, so an order that
            // repeats an index fails here too.
            if k.ty != FlexType::Key || (at as u64).checked_sub(offset) != Some(k.data) {
                return false;
            }
        }
        self.opens.pop();
        self.map_of_values::<2>(start, start + 1, n, order, keys);
        true
    }

    /// The length of the keys vector `keys`, if its size field is in the buffer.
    #[cfg(feature = "serde")]
    #[inline(always)]
    fn keys_len(&self, keys: Slot) -> Option<u64> {
        let w = keys.width.bytes();
        (keys.data as usize)
            .checked_sub(w)
            .and_then(|at| read_field(&self.buf, at, w))
    }

    /// Replaces the stack from `start` by the map on `keys` whose `n`
    /// values stand at `stack[first + STEP * i]` (a map's entries with
    /// `STEP` 2, bare values with 1): key `i`'s value is the `order[i]`-th
    /// (the `i`-th when `order` is empty; indices checked by the caller).
    #[cfg(feature = "serde")]
    #[inline(always)]
    fn map_of_values<const STEP: usize>(
        &mut self,
        start: usize,
        first: usize,
        n: usize,
        order: &[u32],
        keys: Slot,
    ) {
        let map = if order.is_empty() {
            self.create_vector::<STEP>(first, n, false, false, Some(keys))
        } else {
            // The values in key order, copied past the stack's top.
            let end = self.stack.len();
            self.stack.reserve(n);
            for &j in order {
                let v = self.stack[first + STEP * j as usize];
                self.stack.push(v);
            }
            self.create_vector::<1>(end, n, false, false, Some(keys))
        };
        self.stack.truncate(start);
        self.stack.push(map);
    }

    /// Ends the open vector, whose values are the fields of a struct in the
    /// order they were pushed, as a map on `keys` (a keys vector this
    /// buffer holds): the value of the `i`-th key is the `order[i]`-th
    /// pushed (the `i`-th when `order` is empty). The caller (the serde
    /// serializer's memo of the type) vouches that these are the fields'
    /// keys; the count of values, the keys vector's length and the order's
    /// indices are checked here, and when any is off nothing is done and
    /// false returned, the vector still open.
    #[cfg(feature = "serde")]
    pub(crate) fn end_struct_values(&mut self, keys: Slot, order: &[u32]) -> bool {
        if self.error.is_some() || keys.ty != FlexType::VectorKey {
            return false;
        }
        let Some(&Open::Vector(start)) = self.opens.last() else {
            return false;
        };
        let n = self.stack.len() - start;
        if n == 0 || !(order.is_empty() || order.len() == n) {
            return false;
        }
        if self.keys_len(keys) != Some(n as u64) || order.iter().any(|&j| j as usize >= n) {
            return false;
        }
        self.opens.pop();
        self.map_of_values::<1>(start, start, n, order, keys);
        true
    }

    /// Turns the open vector, whose values are the first fields of a
    /// struct, into an open map of those fields under `keys` (one key
    /// written earlier in this generation per value, in order), for a
    /// struct value that stopped matching what the serde serializer learnt
    /// of its type. Nothing is done unless there are as many keys as values.
    #[cfg(feature = "serde")]
    pub(crate) fn open_values_as_map(&mut self, keys: impl ExactSizeIterator<Item = Slot>) {
        let Some(&Open::Vector(start)) = self.opens.last() else {
            return;
        };
        let n = self.stack.len() - start;
        if keys.len() != n {
            return;
        }
        // Value i moves to 2i + 1 (from the last down, so none is
        // overwritten before it moves), key i to 2i.
        self.stack.extend_from_within(start..);
        for i in (0..n).rev() {
            self.stack[start + 2 * i + 1] = self.stack[start + i];
        }
        for (i, k) in keys.enumerate() {
            self.stack[start + 2 * i] = k;
        }
        if let Some(open) = self.opens.last_mut() {
            *open = Open::Map(start);
        }
    }

    /// The number of entries of the open map (0 when a map is not open).
    #[cfg(feature = "serde")]
    pub(crate) fn open_map_len(&self) -> usize {
        match self.opens.last() {
            Some(&Open::Map(start)) => (self.stack.len() - start) / 2,
            _ => 0,
        }
    }

    /// True when the open map's entries have exactly the keys `keys` (key
    /// slots, so the same positions and text), in order.
    #[cfg(feature = "serde")]
    pub(crate) fn open_map_keys_are(&self, keys: impl ExactSizeIterator<Item = Slot>) -> bool {
        let Some(&Open::Map(start)) = self.opens.last() else {
            return false;
        };
        let entries = &self.stack[start..];
        entries.len() == 2 * keys.len()
            && keys.zip(entries.chunks_exact(2)).all(|(k, e)| {
                k.ty == FlexType::Key && e[0].ty == FlexType::Key && k.data == e[0].data
            })
    }

    /// Number of values on the stack (the serde serializer remembers where a
    /// map's current key stands, to name it in an error).
    #[cfg(feature = "serde")]
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The text of the key at stack position `at`, if a key stands there.
    #[cfg(feature = "serde")]
    pub(crate) fn key_at_depth(&self, at: usize) -> Option<&str> {
        let slot = self.stack.get(at)?;
        if slot.ty != FlexType::Key {
            return None;
        }
        core::str::from_utf8(slot_key(&self.buf, slot)).ok()
    }

    /// [`finish_vec`](Self::finish_vec) for a builder a thread keeps
    /// between one-shot calls (`to_vec`, `from_json`): the builder keeps a
    /// fresh buffer a little larger than this output (at most half of what
    /// the thread may keep, and at most the retained capacity), so a stream
    /// of similar values writes without growing.
    pub(crate) fn finish_vec_for_next(&mut self) -> Result<Vec<u8>> {
        let len = self.len();
        let next = (len + len / 8 + 64).min(spare_limit(len) / 2);
        self.finish()?;
        let next = next.min(self.retained_capacity(next));
        let out = core::mem::replace(&mut self.buf, Vec::with_capacity(next));
        self.clear_after(out.len());
        Ok(out)
    }

    // ---- helpers ----------------------------------------------------------

    /// True (and the error recorded) when the buffer is finished: values pushed
    /// now would be appended after the root trailer.
    #[inline]
    fn closed(&mut self) -> bool {
        if self.finished {
            self.fail(BuilderError::Finished.into());
        }
        self.finished
    }

    /// The builder's sticky error, if a call failed since the last clear.
    #[inline]
    pub(crate) fn check(&self) -> Result<()> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Records a sticky error: the builder must be cleared before reuse.
    pub(crate) fn fail(&mut self, e: Error) -> Error {
        if self.error.is_none() {
            self.error = Some(e.clone());
        }
        e
    }

    fn unbalanced(&mut self, popped: Option<Open>) -> Result<()> {
        if let Some(o) = popped {
            self.opens.push(o);
        }
        Err(BuilderError::UnbalancedEnd.into())
    }

    #[inline]
    fn align(&mut self, width: BitWidth) {
        let pad = padding(self.buf.len(), width.bytes());
        if pad > 0 {
            self.buf.resize(self.buf.len() + pad, 0);
        }
    }

    #[inline]
    fn write_uint(&mut self, v: u64, bytes: usize) {
        // Fixed-size copies per width, rather than one copy of a variable length.
        match bytes {
            1 => self.buf.push(v as u8),
            2 => self.buf.extend_from_slice(&(v as u16).to_le_bytes()),
            4 => self.buf.extend_from_slice(&(v as u32).to_le_bytes()),
            _ => self.buf.extend_from_slice(&v.to_le_bytes()),
        }
    }

    #[inline]
    fn write_any(&mut self, s: Slot, bytes: usize) {
        let at = self.buf.len() as u64;
        self.write_uint(s.element_bits(at, bytes), bytes);
    }
}

/// The error for `keys` that are not strictly ascending in byte order (a
/// repeated key is named), or `None` when they are.
pub(crate) fn unordered_keys<S: AsRef<str>>(keys: &[S]) -> Option<BuilderError> {
    keys.windows(2).find_map(|pair| {
        let (a, b) = (pair[0].as_ref(), pair[1].as_ref());
        match a.as_bytes().cmp(b.as_bytes()) {
            core::cmp::Ordering::Less => None,
            core::cmp::Ordering::Equal => Some(BuilderError::DuplicateKey(a.to_string())),
            core::cmp::Ordering::Greater => Some(BuilderError::MapEntryNotKey(0)),
        }
    })
}

/// The narrowest width, at least `floor`, that holds every element of
/// `elems[0], elems[STEP], ...` (element `j` sits `j + prefix` slots into a
/// vector written at `buf_len`, after alignment): what
/// [`Slot::elem_width_from`] gives element by element.
///
/// One pass gathers the widest inline value and the lowest target of the
/// offset values; [`width_by_bounds`] then decides from two bounds, and the
/// element-by-element search ([`vector_width_exact`]) runs only when they
/// straddle a width limit.
#[inline]
fn vector_width<const STEP: usize>(
    elems: &[Slot],
    buf_len: usize,
    prefix: usize,
    floor: BitWidth,
) -> BitWidth {
    let mut inline = floor;
    let (mut first, mut first_at) = (u64::MAX, 0);
    let mut j = 0;
    while j < elems.len() {
        let e = &elems[j];
        if e.ty.is_inline() {
            inline = inline.max(e.width);
        } else if e.data < first {
            (first, first_at) = (e.data, j);
        }
        j += STEP;
    }
    let last = match elems.len() {
        0 => prefix,
        n => (n - 1) / STEP * STEP + prefix,
    };
    match width_by_bounds(buf_len, inline, first_at + prefix, last, first) {
        Ok(w) => w,
        Err(w) => vector_width_exact::<STEP>(elems, buf_len, prefix, w),
    }
}

/// The bits of a float held as `f64` bits, stored 4 bytes wide.
#[inline(always)]
pub(crate) fn f32_bits(f64_bits: u64) -> u64 {
    (f64::from_bits(f64_bits) as f32).to_bits() as u64
}

/// The one inline type of every slot of `elems` and the widest of their
/// widths, or `None` when they are not all of one inline type (or empty).
#[inline]
fn uniform_inline(elems: &[Slot]) -> Option<(FlexType, BitWidth)> {
    let first = elems.first()?;
    if !first.ty.is_inline() {
        return None;
    }
    // Branch-free within a chunk, with no chain of compares: the types'
    // differences and the widths' one-hot bits are ORed (a running `max`
    // costs a compare and a conditional move per element, one after the
    // other); a chunk with another type ends the scan.
    let ty = first.ty as u8;
    let mut widths = 0u8;
    for chunk in elems.chunks(16) {
        let mut other = 0u8;
        for e in chunk {
            other |= e.ty as u8 ^ ty;
            widths |= 1 << (e.width as u8);
        }
        if other != 0 {
            return None;
        }
    }
    // The highest bit set is the widest width.
    Some((
        first.ty,
        BitWidth::from_log2(7 - widths.leading_zeros() as u8),
    ))
}

/// [`vector_width`] element by element, with the alignment and the limit
/// recomputed only when the width grows.
#[inline(never)]
pub(crate) fn vector_width_exact<const STEP: usize>(
    elems: &[Slot],
    buf_len: usize,
    prefix: usize,
    floor: BitWidth,
) -> BitWidth {
    let mut b = floor.bytes();
    let mut base = (buf_len + padding(buf_len, b)) as u64;
    let mut j = 0;
    while j < elems.len() {
        let e = &elems[j];
        if e.ty.is_inline() {
            let need = e.width.bytes();
            if need > b {
                b = need;
                base = (buf_len + padding(buf_len, b)) as u64;
            }
        } else {
            widen_to_reach(buf_len, &mut b, &mut base, j + prefix, e.data);
        }
        j += STEP;
    }
    BitWidth::from_bytes(b as u64).unwrap_or(BitWidth::W64)
}

/// Doubles `b` (the element width in bytes of a vector written at
/// `buf_len`, whose first slot is at `base`) until the slot `slots` in can
/// hold its offset back to `target`, or `b` is 8; `base` follows `b`.
#[inline(always)]
pub(crate) fn widen_to_reach(
    buf_len: usize,
    b: &mut usize,
    base: &mut u64,
    slots: usize,
    target: u64,
) {
    while *b < 8 {
        let offset = (*base + (slots * *b) as u64).wrapping_sub(target);
        if offset >> (8 * *b) == 0 {
            break;
        }
        *b *= 2;
        *base = (buf_len + padding(buf_len, *b)) as u64;
    }
}

impl Slot {
    /// The bits this value stores in a `bytes`-wide element at position `at`:
    /// the scalar itself, a float narrowed to f32 below 8 bytes, or the offset
    /// back to the target.
    #[inline(always)]
    pub(crate) fn element_bits(&self, at: u64, bytes: usize) -> u64 {
        if !self.ty.is_inline() {
            return at - self.data;
        }
        // Floats are never narrower than 4 bytes (their minimal width is 32 bits).
        if bytes < 8 && self.ty == FlexType::Float {
            return f32_bits(self.data);
        }
        self.data
    }
}

#[cfg(test)]
thread_local! {
    /// Off in tests that compare the one-pass map path with the general one.
    static ONE_PASS_MAPS: core::cell::Cell<bool> = const { core::cell::Cell::new(true) };
    /// Off in tests that compare vectors of one scalar type with the general path.
    static UNIFORM_VECTORS: core::cell::Cell<bool> = const { core::cell::Cell::new(true) };
    /// Off in tests that compare vectors of a few elements with the general path.
    static SMALL_VECTORS: core::cell::Cell<bool> = const { core::cell::Cell::new(true) };
    /// Off in tests that compare the keys field's width search from the
    /// distance's width with one from a byte.
    static KEYS_FIELD_BOUND: core::cell::Cell<bool> = const { core::cell::Cell::new(true) };
}

/// Most elements of a vector [`Builder::small_vector`] writes. Its width is
/// found as the general path finds it; only the plan for vectors of any
/// size is skipped.
const SMALL_VECTOR: usize = 16;

fast_path_switch! {
    /// Whether untyped vectors of up to [`SMALL_VECTOR`] elements take their own path.
    fn small_vectors = SMALL_VECTORS;
}

fast_path_switch! {
    /// Whether a keys field's width search starts from the width of its
    /// distance to the keys vector ([`Slot::keys_field_width`]).
    fn keys_field_bound = KEYS_FIELD_BOUND;
}

fast_path_switch! {
    /// Whether untyped vectors of one scalar type take their own path.
    fn uniform_vectors = UNIFORM_VECTORS;
}

fast_path_switch! {
    /// Whether `end_map` may take the one-pass path.
    fn one_pass_maps = ONE_PASS_MAPS;
}

/// What one pass over a map's entries found, for
/// [`Builder::write_scanned_map`].
#[derive(Clone, Copy, Debug)]
struct MapScan {
    /// Number of entries (at least one).
    len: usize,
    /// Lowest position any key points at, and that key's entry index.
    first_key: (u64, usize),
    /// Lowest position any offset value points at (`u64::MAX` when none
    /// does), and that value's entry index.
    first_value: (u64, usize),
    /// Widest inline value.
    inline: BitWidth,
}

impl MapScan {
    /// Nothing scanned yet, for a map of `len` entries.
    fn new(len: usize) -> MapScan {
        MapScan {
            len,
            first_key: (u64::MAX, 0),
            first_value: (u64::MAX, 0),
            inline: BitWidth::W8,
        }
    }

    /// Takes entry `i` (key `k`, value `v`) of the written order: false when
    /// `k` is not a key or does not sort strictly after `prev`, the key
    /// before it (which this then updates).
    #[inline(always)]
    fn take<'b>(
        &mut self,
        buf: &'b [u8],
        prev: &mut &'b [u8],
        i: usize,
        k: &Slot,
        v: &Slot,
    ) -> bool {
        if k.ty != FlexType::Key {
            return false;
        }
        let key = slot_key(buf, k);
        if i > 0 && key_order(prev, key) != core::cmp::Ordering::Less {
            return false;
        }
        *prev = key;
        if k.data < self.first_key.0 {
            self.first_key = (k.data, i);
        }
        if v.ty.is_inline() {
            self.inline = self.inline.max(v.width);
        } else if v.data < self.first_value.0 {
            self.first_value = (v.data, i);
        }
        true
    }
}

/// One pass over a map's entries as they stand (key, value, key, value,
/// ...): `None` unless there is at least one, every key slot is a key and
/// the keys are strictly ascending, in which case nothing needs sorting and
/// no error is possible. Anything else goes the general way, which sorts and
/// reports.
#[inline]
fn scan_map(buf: &[u8], entries: &[Slot]) -> Option<MapScan> {
    let mut scan = MapScan::new(entries.len() / 2);
    let mut prev: &[u8] = &[];
    for (i, pair) in entries.chunks_exact(2).enumerate() {
        if !scan.take(buf, &mut prev, i, &pair[0], &pair[1]) {
            return None;
        }
    }
    (scan.len > 0).then_some(scan)
}

/// [`scan_map`] of the entries in `order` (entry indices; `None` when one
/// is out of range, as when the keys are out of order). A loop of its own,
/// not an iterator shared with `scan_map`: that form measured 5-10% slower
/// on the encode of records (in time, with fewer instructions), and
/// `scan_map` is the path of every sorted map.
#[inline]
fn scan_map_in(buf: &[u8], entries: &[Slot], order: &[u32]) -> Option<MapScan> {
    let mut scan = MapScan::new(order.len());
    let mut prev: &[u8] = &[];
    let n = entries.len() / 2;
    for (i, &j) in order.iter().enumerate() {
        // An index out of range is a wrong guess (a repeated one fails the
        // order check: its key is not above itself).
        let j = j as usize;
        if j >= n {
            return None;
        }
        if !scan.take(buf, &mut prev, i, &entries[2 * j], &entries[2 * j + 1]) {
            return None;
        }
    }
    (scan.len > 0).then_some(scan)
}

/// Sorts map entries' words (a key's first eight bytes above the entry's
/// index, as [`Builder::sort_map_entries`] makes them, in index order) into
/// integer order. From [`RADIX_MIN`] words on by a radix sort of the eight
/// key bytes, the least significant first, each pass stable, skipping
/// the bytes every key shares (the words start in index order, so entries
/// of equal bytes stay in index order: the integer order); `scratch` is its
/// second buffer. On 50,000 keys `key<n>` it took 0.6 ms where
/// `sort_unstable` took 1.3-1.5 ms, on 1,000 keys half the time.
fn sort_words(words: &mut Vec<u128>, scratch: &mut Vec<u128>) {
    let n = words.len();
    if n < RADIX_MIN || n > u32::MAX as usize {
        words.sort_unstable();
        return;
    }
    let mut counts = [[0u32; 256]; 8];
    for &w in words.iter() {
        let key = (w >> 32) as u64;
        for (d, c) in counts.iter_mut().enumerate() {
            c[(key >> (8 * d)) as usize & 0xff] += 1;
        }
    }
    scratch.clear();
    scratch.resize(n, 0);
    for (d, c) in counts.iter_mut().enumerate() {
        if c.iter().any(|&k| k as usize == n) {
            continue;
        }
        let mut sum = 0u32;
        for k in c.iter_mut() {
            let here = *k;
            *k = sum;
            sum += here;
        }
        for &w in words.iter() {
            let b = ((w >> 32) as u64 >> (8 * d)) as usize & 0xff;
            scratch[c[b] as usize] = w;
            c[b] += 1;
        }
        core::mem::swap(words, scratch);
    }
}

/// Fewest map entries [`sort_words`] sorts by radix.
const RADIX_MIN: usize = 512;

/// The width of a vector written at `buf_len` whose offset elements point
/// no lower than `first`, decided from two bounds where they suffice: at
/// each width from `floor` up, the element pointing at `first` (sitting
/// `at_first` slots in) has an offset no larger than the largest, and the
/// last slot (`last` slots in) minus `first` is no smaller. `Ok(w)` when
/// the upper bound fits at a width `w` whose narrower widths the lower
/// bound ruled out: what the exact search gives. `Err(w)` when the bounds
/// straddle the limit at `w`: the exact search must decide, from `w`.
#[inline(always)]
pub(crate) fn width_by_bounds(
    buf_len: usize,
    floor: BitWidth,
    at_first: usize,
    last: usize,
    first: u64,
) -> core::result::Result<BitWidth, BitWidth> {
    if first == u64::MAX {
        return Ok(floor);
    }
    let mut b = floor.bytes();
    while b < 8 {
        let base = (buf_len + padding(buf_len, b)) as u64;
        let width = BitWidth::from_bytes(b as u64).unwrap_or(BitWidth::W64);
        let fits = |slots: usize| (base + (slots * b) as u64 - first) >> (8 * b) == 0;
        if fits(last) {
            return Ok(width);
        }
        if fits(at_first) {
            return Err(width);
        }
        b *= 2;
    }
    Ok(BitWidth::W64)
}

/// The bytes (without the NUL) of the key a slot points at.
#[inline]
fn slot_key<'b>(buf: &'b [u8], s: &Slot) -> &'b [u8] {
    let tail = &buf[s.data as usize..];
    if s.len != u32::MAX {
        return &tail[..s.len as usize];
    }
    &tail[..tail.iter().position(|&b| b == 0).unwrap_or(tail.len())]
}

/// Byte order of two keys, deciding on the first byte without a library call
/// when it differs (as it usually does between neighbouring keys).
#[inline(always)]
fn key_order(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        (Some(_), Some(_)) => shared_head_order(a, b),
        _ => a.cmp(b),
    }
}

/// [`key_order`] of two keys whose first bytes are equal, as neighbouring
/// keys' often are ("lat" and "lng", "created_at" and "comments"): the
/// next bytes are compared here, up to eight, where a call to `memcmp`
/// (and the caller's registers saved around it) cost more than the one or
/// two more bytes that usually decide.
#[inline(always)]
fn shared_head_order(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    let n = a.len().min(b.len());
    let mut i = 1;
    while i < n && i < 8 {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
        i += 1;
    }
    if i == n {
        a.len().cmp(&b.len())
    } else {
        a[i..].cmp(&b[i..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `key_order` is the byte order of the keys: pairs that share heads of
    /// every length from 0 to 12 bytes, then differ, or end (one a prefix
    /// of the other), with bytes above 0x7f. It fails when the comparison
    /// of shared heads stops early, misorders a prefix, or compares signed.
    #[test]
    fn key_order_is_byte_order() {
        let mut rng = crate::test_support::Rng::new(0x006b_6579);
        let alphabet = [b'a', b'b', b'z', 0x7f, 0x80, 0xc3, 0xff];
        for _ in 0..20_000 {
            let shared = rng.below(13);
            let head: Vec<u8> = (0..shared).map(|_| alphabet[rng.below(7)]).collect();
            let tail = |rng: &mut crate::test_support::Rng| -> Vec<u8> {
                let n = rng.below(4);
                (0..n).map(|_| alphabet[rng.below(7)]).collect()
            };
            let a = [head.as_slice(), &tail(&mut rng)].concat();
            let b = [head.as_slice(), &tail(&mut rng)].concat();
            assert_eq!(key_order(&a, &b), a.cmp(&b), "{a:?} {b:?}");
            assert_eq!(key_order(&b, &a), b.cmp(&a), "{b:?} {a:?}");
        }
    }

    /// `untyped_vector` writes what pushing each value into an untyped
    /// vector writes: every scalar type, widths from the values, the length
    /// and a forced minimum, NaNs (a signalling f32 NaN is quieted by a
    /// push), at every alignment.
    #[test]
    fn untyped_vectors_write_what_pushing_each_value_writes() {
        fn agree<T: Scalar + Copy + core::fmt::Debug>(
            values: &[T],
            push: impl Fn(&mut Builder, T),
            filler: usize,
            min: BitWidth,
        ) {
            let build = |direct: bool| {
                let mut b = Builder::new();
                b.start_vector();
                b.blob(&vec![3; filler]);
                b.force_min_width(min);
                if direct {
                    b.untyped_vector(values);
                } else {
                    b.start_vector();
                    for &v in values {
                        push(&mut b, v);
                    }
                    b.end_vector().unwrap();
                }
                b.int(1);
                b.end_vector().unwrap();
                b.finish().unwrap().to_vec()
            };
            assert_eq!(
                build(true),
                build(false),
                "{values:?}, filler {filler}, {min:?}"
            );
        }
        let mut rng = crate::test_support::Rng::new(0x0b1e_c7ed_5ca1_a125);
        let widths = [BitWidth::W8, BitWidth::W8, BitWidth::W16, BitWidth::W64];
        for round in 0..3_000 {
            let n = [0, 1, 2, 5, 40, 300][rng.below(6)] + rng.below(3);
            let filler = rng.below(9);
            let min = widths[rng.below(4)];
            let shift = [56, 48, 32, 0][round % 4];
            let ints: Vec<i64> = (0..n).map(|_| (rng.bits() as i64) >> shift).collect();
            agree(&ints, |b, v| b.int(v), filler, min);
            let uints: Vec<u64> = (0..n).map(|_| rng.bits() >> shift).collect();
            agree(&uints, |b, v| b.uint(v), filler, min);
            let doubles: Vec<f64> = (0..n)
                .map(|_| match rng.below(5) {
                    0 => f64::from_bits(rng.bits()),
                    1 => f64::NAN,
                    2 => rng.below(1000) as f64 * 0.25,
                    _ => rng.bits() as f64 / 7.0,
                })
                .collect();
            let exact: Vec<f64> = doubles.iter().map(|&d| d as f32 as f64).collect();
            agree(&doubles, |b, v| b.double(v), filler, min);
            agree(&exact, |b, v| b.double(v), filler, min);
            let floats: Vec<f32> = (0..n)
                .map(|_| match rng.below(4) {
                    0 => f32::from_bits(0x7f80_0001),
                    _ => f32::from_bits(rng.bits() as u32),
                })
                .collect();
            agree(&floats, |b, v| b.float(v), filler, min);
            let bools: Vec<bool> = (0..n).map(|_| rng.below(2) == 0).collect();
            agree(&bools, |b, v| b.bool(v), filler, min);
        }
    }

    /// The width from the two bounds is the width of the element-by-element
    /// search, for vectors and map values alike: random offsets that point
    /// near and far (across the 1-, 2- and 4-byte limits), inline values of
    /// every width, floors, and buffer lengths that need alignment.
    #[test]
    fn bounded_vector_widths_match_the_exact_search() {
        let mut rng = crate::test_support::Rng::new(0x0bad_cafe_f00d_1234);
        let widths = [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64];
        for round in 0..20_000 {
            let buf_len = 70_000 + rng.below(300_000);
            let n = rng.below(40);
            // Most targets clustered just inside a width limit, so that the
            // lowest one fits while a later, nearby one may not: the bounds
            // straddle and the exact search must decide.
            let limit = [255usize, 65_535][round % 2];
            let centre = limit - rng.below(48);
            let elems: Vec<Slot> = (0..n)
                .map(|_| {
                    if rng.below(4) == 0 {
                        let w = widths[rng.below(4)];
                        Slot::new(rng.bits(), FlexType::Int, w)
                    } else {
                        let back = if rng.below(8) == 0 {
                            1 + rng.below(buf_len)
                        } else {
                            centre - rng.below(8)
                        };
                        Slot::new((buf_len - back) as u64, FlexType::String, BitWidth::W8)
                    }
                })
                .collect();
            let floor = widths[rng.below(3)];
            for prefix in [1, 3] {
                assert_eq!(
                    vector_width::<1>(&elems, buf_len, prefix, floor),
                    vector_width_exact::<1>(&elems, buf_len, prefix, floor),
                    "round {round}"
                );
                assert_eq!(
                    vector_width::<2>(&elems, buf_len, prefix, floor),
                    vector_width_exact::<2>(&elems, buf_len, prefix, floor),
                    "round {round}"
                );
            }
        }
    }

    /// Ends the open vector as the serde tier does (typed, or fixed when
    /// `fixed`, if its elements are uniform) when `compact`, else untyped.
    fn end_test_vector(b: &mut Builder, compact: bool, fixed: bool) {
        #[cfg(feature = "serde")]
        if compact {
            b.end_vector_compact(fixed).unwrap();
            return;
        }
        let _ = (compact, fixed);
        b.end_vector().unwrap();
    }

    /// Values written before a vector or map under test (a string, a key,
    /// a vector, a map), for its elements to point back to.
    struct Targets {
        string: Slot,
        key: Slot,
        vector: Slot,
        map: Slot,
    }

    impl Targets {
        /// Writes the targets into `b` (the string's length from `round`).
        fn write(b: &mut Builder, round: usize) -> Targets {
            let string = b.string_slot(&"s".repeat(round % 7)).unwrap();
            b.key("k");
            let key = b.stack.pop().unwrap();
            b.start_vector();
            b.int(7);
            b.end_vector().unwrap();
            let vector = b.stack.pop().unwrap();
            b.start_map();
            b.key("m");
            b.null();
            b.end_map().unwrap();
            let map = b.stack.pop().unwrap();
            Targets {
                string,
                key,
                vector,
                map,
            }
        }

        /// Pushes a value of kind `kind` (0-9: scalars of every type made
        /// from the bits `v`, or one of the targets).
        fn push(&self, b: &mut Builder, kind: usize, v: u64) {
            match kind {
                0 => b.int(v as i64),
                1 => b.uint(v),
                2 => b.double(f64::from_bits(v) / 3.0),
                3 => b.double((v as u32) as f32 as f64),
                4 => b.bool(v % 2 == 0),
                5 => b.null(),
                6 => b.stack.push(self.string),
                7 => b.stack.push(self.key),
                8 => b.stack.push(self.vector),
                _ => b.stack.push(self.map),
            }
        }
    }

    /// The bytes of a buffer whose root vector `fill` fills, built with the
    /// writers for small vectors and maps and without them (elements at
    /// least `force` wide).
    fn small_and_general(force: BitWidth, fill: impl Fn(&mut Builder)) -> (Vec<u8>, Vec<u8>) {
        small_and_general_with(BuilderOptions::default(), force, fill)
    }

    /// [`small_and_general`] with builders made with `options`.
    fn small_and_general_with(
        options: BuilderOptions,
        force: BitWidth,
        fill: impl Fn(&mut Builder),
    ) -> (Vec<u8>, Vec<u8>) {
        let build = |small: bool| {
            SMALL_VECTORS.with(|c| c.set(small));
            let mut b = Builder::with_options(options.clone());
            b.force_min_width(force);
            b.start_vector();
            fill(&mut b);
            b.end_vector().unwrap();
            let bytes = b.finish().unwrap().to_vec();
            SMALL_VECTORS.with(|c| c.set(true));
            bytes
        };
        (build(true), build(false))
    }

    /// Maps of one to seventeen entries in a builder that shares keys
    /// vectors by key set: the values of those of up to sixteen are written
    /// by `small_vector` (every other slot of the stack), with the bytes of
    /// the general path, whether the keys vector is new, shared from an
    /// earlier map near, or far back: every kind of value at every forced
    /// width, targets 1 to 70,000 bytes back.
    #[test]
    fn small_maps_on_shared_keys_vectors_match_the_general_path() {
        let mut rng = crate::test_support::Rng::new(0x51a7_ed0c_5e7a_0002);
        let widths = [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64];
        let names: Vec<String> = (0..=SMALL_VECTOR + 1).map(|i| format!("m{i:02}")).collect();
        let plan: Vec<(usize, Vec<usize>, Vec<u64>, usize)> = (0..600)
            .map(|_| {
                let len = 1 + rng.below(SMALL_VECTOR + 1);
                let kinds = (0..len).map(|_| rng.below(10)).collect();
                let values = (0..len).map(|_| rng.bits() >> (8 * rng.below(8))).collect();
                let gap = [0, 3, 250, 300, 65_600][rng.below(5)];
                (len, kinds, values, gap)
            })
            .collect();
        let shared = BuilderOptions {
            dedup_key_vectors: true,
            ..BuilderOptions::default()
        };
        for force in widths {
            let (small, general) = small_and_general_with(shared.clone(), force, |b| {
                for (round, (_, kinds, values, gap)) in plan.iter().enumerate() {
                    let targets = Targets::write(b, round);
                    b.blob(&vec![1; *gap]);
                    b.start_map();
                    for (i, (&k, &v)) in kinds.iter().zip(values).enumerate() {
                        b.key(&names[i]);
                        targets.push(b, k, v);
                    }
                    b.end_map().unwrap();
                }
            });
            assert_eq!(small, general, "forced {force:?}");
            let root = crate::verify(&small).unwrap().root().as_vector().unwrap();
            let last = root.get(root.len() - 1).unwrap().as_map().unwrap();
            assert_eq!(last.len(), plan[plan.len() - 1].0);
        }
    }

    /// Untyped vectors of one to sixteen elements, written by `small_vector`,
    /// hold exactly the bytes of the general path: every kind of element
    /// (scalars of every width, f32-exact and other doubles, strings,
    /// nested vectors and maps, keys as values) at every forced
    /// width, with the elements' targets far enough back (blobs of up to
    /// 70,000 bytes in between) that their offsets need 1, 2 or 4 bytes.
    #[test]
    fn small_vectors_match_the_general_path() {
        let mut rng = crate::test_support::Rng::new(0x5a11_7ec5_0f0e_1234);
        let widths = [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64];
        for round in 0..4_000 {
            // SMALL_VECTOR + 1 takes the general path in both builds.
            let len = 1 + rng.below(SMALL_VECTOR + 1);
            let kinds: Vec<usize> = (0..len).map(|_| rng.below(10)).collect();
            let values: Vec<u64> = (0..len).map(|_| rng.bits() >> (8 * rng.below(8))).collect();
            // Fixed gaps, and gaps that put the offsets of vectors of any
            // length within a few slots of the 1- and 2-byte limits.
            let gap = match rng.below(8) {
                6 => 200 + rng.below(60),
                7 => 65_440 + rng.below(100),
                g => [0, 3, 250, 300, 65_600, 70_000][g],
            };
            let force = widths[round % 4];
            // Now and then the flags C++ rejects (an untyped "fixed" vector,
            // written without its size): left to the general path, as before.
            let fixed = round % 10 == 9;
            let (small, general) = small_and_general(force, |b| {
                // Targets written first, then the gap, so offsets span it.
                let targets = Targets::write(b, round);
                b.blob(&vec![1; gap]);
                b.start_vector();
                for (&k, &v) in kinds.iter().zip(&values) {
                    targets.push(b, k, v);
                }
                b.end_vector_as(false, fixed).unwrap();
            });
            assert_eq!(
                small, general,
                "round {round}: {kinds:?} gap {gap} {force:?} fixed {fixed}"
            );
            if !fixed {
                crate::verify(&small).unwrap();
            }
        }
    }

    /// Maps on keys vectors written once and then further and further
    /// back (as typed encoders write them), through `end_map_with_keys` at
    /// every size and through `message_map`, with the forced width moving:
    /// a search for the keys field's width started from its distance's
    /// width gives the bytes of one started from a byte.
    #[test]
    fn keys_field_widths_searched_from_the_distance_match_a_search_from_one_byte() {
        use crate::builder::message::MapWidths;
        let names: Vec<String> = (0..24).map(|i| format!("k{i:02}")).collect();
        let build = |bound: bool| {
            KEYS_FIELD_BOUND.with(|c| c.set(bound));
            let mut rng = crate::test_support::Rng::new(0x4ee9_5eac_0b0e_1234);
            let mut b = Builder::new();
            b.start_vector();
            let kvs: Vec<(usize, KeyVector)> = [1, 3, 7, 16, 17, 20]
                .iter()
                .map(|&n| {
                    let keys: Vec<&str> = names[..n].iter().map(String::as_str).collect();
                    (n, b.key_vector(&keys).unwrap())
                })
                .collect();
            for round in 0..3_000 {
                let (n, kv) = kvs[rng.below(kvs.len())];
                if round % 7 == 0 {
                    b.force_min_width([BitWidth::W8, BitWidth::W16][rng.below(2)]);
                }
                // Gaps that walk the keys field across the 1- and 2-byte
                // limits, with every padding.
                b.blob(&vec![0; [0, 1, 3, 40, 250][rng.below(5)]]);
                if n == 3 && rng.below(2) == 0 {
                    let mut w = MapWidths::<3>::new(&b);
                    w.float();
                    w.int(-5);
                    w.uint(7);
                    let mut m = b.message_map(&kv, &w).unwrap();
                    m.float(1.5);
                    m.int(-5);
                    m.uint(7);
                    let f = m.finish().unwrap();
                    b.push_field(f).unwrap();
                } else {
                    b.start_map();
                    for i in 0..n {
                        b.int((round * 31 + i) as i64 % 120);
                    }
                    b.end_map_with_keys(&kv).unwrap();
                }
            }
            b.end_vector().unwrap();
            KEYS_FIELD_BOUND.with(|c| c.set(true));
            b.finish().unwrap().to_vec()
        };
        let (bounded, searched) = (build(true), build(false));
        assert!(bounded.len() > 200_000, "{}", bounded.len());
        assert_eq!(bounded, searched);
        crate::verify(&bounded).unwrap();
    }

    /// Maps of up to [`SMALL_VECTOR`] values ended on a keys vector
    /// ([`Builder::end_map_with_keys`], as typed encoders end theirs) hold
    /// exactly the bytes of the general path: every kind of value at every
    /// forced width, with the keys vector and the values' targets far
    /// enough back (gaps around the 1- and 2-byte limits, and past them)
    /// that the keys field and the offsets need 1, 2 or 4 bytes.
    #[test]
    fn small_maps_on_a_keys_vector_match_the_general_path() {
        let mut rng = crate::test_support::Rng::new(0x6a95_3e1c_0f0e_7777);
        let widths = [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64];
        let names: Vec<String> = (0..=SMALL_VECTOR + 1).map(|i| format!("f{i:02}")).collect();
        let gap = |rng: &mut crate::test_support::Rng| match rng.below(8) {
            6 => 150 + rng.below(110),
            7 => 65_440 + rng.below(100),
            g => [0, 3, 250, 300, 65_600, 70_000][g],
        };
        for round in 0..4_000 {
            // SMALL_VECTOR + 1 takes the general path in both builds.
            let len = 1 + rng.below(SMALL_VECTOR + 1);
            let kinds: Vec<usize> = (0..len).map(|_| rng.below(10)).collect();
            let values: Vec<u64> = (0..len).map(|_| rng.bits() >> (8 * rng.below(8))).collect();
            let (keys_gap, values_gap) = (gap(&mut rng), gap(&mut rng));
            let force = widths[round % 4];
            let keys: Vec<&str> = names[..len].iter().map(String::as_str).collect();
            // The keys vector before the values' targets (as typed encoders
            // write it, once per buffer), or after them: then the values'
            // offsets, not the keys field, set the width.
            let keys_first = rng.below(2) == 0;
            let (small, general) = small_and_general(force, |b| {
                let mut kv = None;
                if keys_first {
                    kv = Some(b.key_vector(&keys).unwrap());
                    b.blob(&vec![2; keys_gap]);
                }
                // Targets written first, then the gap, so offsets span it.
                let targets = Targets::write(b, round);
                let kv = match kv {
                    Some(kv) => kv,
                    None => b.key_vector(&keys).unwrap(),
                };
                b.blob(&vec![1; values_gap]);
                b.start_map();
                for (&k, &v) in kinds.iter().zip(&values) {
                    targets.push(b, k, v);
                }
                b.end_map_with_keys(&kv).unwrap();
            });
            assert_eq!(
                small, general,
                "round {round}: {kinds:?} gaps {keys_gap} {values_gap} {force:?} keys first {keys_first}"
            );
            let root = crate::verify(&small).unwrap().root().as_vector().unwrap();
            let read = root.get(root.len() - 1).unwrap().as_map().unwrap();
            assert_eq!(read.len(), len);
            assert_eq!(read.key(len - 1).unwrap(), keys[len - 1]);
        }
        // Every gap that puts the last value's offset (to a string written
        // before the keys vector) on either side of the 1- and 2-byte
        // limits, at every length: a width found from the wrong slot fails.
        for len in 1..=SMALL_VECTOR {
            let keys: Vec<&str> = names[..len].iter().map(String::as_str).collect();
            let gaps = (150..270).chain(if len % 5 == 1 { 65_380..65_545 } else { 0..0 });
            for gap in gaps {
                let (small, general) = small_and_general(BitWidth::W8, |b| {
                    let s = b.string_slot("target").unwrap();
                    let kv = b.key_vector(&keys).unwrap();
                    b.blob(&vec![1; gap]);
                    b.start_map();
                    for i in 1..len {
                        b.int(i as i64);
                    }
                    b.stack.push(s);
                    b.end_map_with_keys(&kv).unwrap();
                });
                assert_eq!(small, general, "{len} values, gap {gap}");
            }
        }
    }

    /// The value stack's own `push` (two word stores) holds exactly the
    /// slots pushed, through its growth: every type and width, keys of
    /// every length (and the one too long to record), all bits of `data`.
    #[test]
    fn the_slot_stack_holds_what_was_pushed() {
        let widths = [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64];
        let mut rng = crate::test_support::Rng::new(0x51a7_57ac_0f0e_9876);
        let mut stack = SlotStack::default();
        let mut plain = Vec::new();
        for i in 0..5_000usize {
            let slot = if i % 5 == 0 {
                let len = [0, 1, 255, 65_536, u32::MAX as usize - 1, usize::MAX][i / 5 % 6];
                Slot::key(rng.bits() as usize, len)
            } else {
                let ty = FlexType::from_code((i % 37) as u8).unwrap_or(FlexType::Map);
                Slot::new(rng.bits(), ty, widths[i % 4])
            };
            stack.push(slot);
            plain.push(slot);
        }
        assert_eq!(*stack, plain);
    }

    /// Vectors of one scalar type (untyped, and typed or fixed as the serde
    /// tier ends them) write exactly the bytes of the general path: values
    /// of every width, forced minimum widths, and odd elements that make
    /// the vector mixed.
    #[test]
    fn vectors_of_one_scalar_type_match_the_general_path() {
        let mut rng = crate::test_support::Rng::new(0x7e57_0f0e_5ca1_a125);
        let mut compared = 0;
        for round in 0..3_000 {
            let kind = round % 6;
            // A third of them short (untyped vectors of up to SMALL_VECTOR
            // elements have a writer of their own).
            let len = if rng.below(3) == 0 {
                rng.below(SMALL_VECTOR + 2)
            } else {
                rng.below(40)
            };
            // Values of every width, so the vector's width comes from the widest.
            let values: Vec<u64> = (0..len).map(|_| rng.bits() >> (8 * rng.below(8))).collect();
            let force = [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64][round % 4];
            // Round 5 of each 6 mixes in one value of another type at a random place.
            let odd = (kind == 5 && len > 0).then(|| rng.below(len));
            // Every other dozen rounds end as the serde tier does.
            let compact = cfg!(feature = "serde") && (round / 12) % 2 == 1;
            let build = |uniform: bool| {
                UNIFORM_VECTORS.with(|c| c.set(uniform));
                SMALL_VECTORS.with(|c| c.set(uniform));
                let mut b = Builder::new();
                b.force_min_width(force);
                b.start_map();
                b.key("pad");
                b.string(&"p".repeat(round % 9));
                b.key("v");
                b.start_vector();
                for (i, &v) in values.iter().enumerate() {
                    if odd == Some(i) {
                        b.string("odd");
                        continue;
                    }
                    match kind {
                        0 => b.int(v as i64),
                        1 => b.uint(v),
                        // Doubles, and every other round floats exact as f32 (4 bytes wide).
                        2 if (round / 6) % 2 == 0 => b.double(f64::from_bits(v) / 3.0),
                        2 => b.double((v as u32) as f32 as f64),
                        3 => b.bool(v % 2 == 0),
                        4 => b.null(),
                        _ => b.int(v as i64 - (1 << 40)),
                    }
                }
                end_test_vector(&mut b, compact, round % 3 == 0);
                b.end_map().unwrap();
                let bytes = b.finish().unwrap().to_vec();
                UNIFORM_VECTORS.with(|c| c.set(true));
                SMALL_VECTORS.with(|c| c.set(true));
                bytes
            };
            let (fast, general) = (build(true), build(false));
            assert_eq!(fast, general, "round {round}");
            crate::verify(&fast).unwrap();
            compared += 1;
        }
        assert_eq!(compared, 3_000);
    }

    #[test]
    fn one_pass_maps_match_the_general_path() {
        let mut rng = crate::test_support::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| rng.below(n);
        for round in 0..400 {
            let count = 1 + next(30);
            let keys: Vec<String> = (0..count).map(|i| format!("k{i:03}")).collect();
            let values: Vec<(usize, usize)> = (0..count)
                .map(|_| (next(6), next(if round % 4 == 0 { 70_000 } else { 300 })))
                .collect();
            let force = [BitWidth::W8, BitWidth::W16, BitWidth::W32][round % 3];
            // Every other round adds the keys out of order (sorted by end_map).
            let mut order: Vec<usize> = (0..count).collect();
            if round % 2 == 1 {
                for i in (1..count).rev() {
                    order.swap(i, next(i + 1));
                }
            }
            // The order that sorts the entries as pushed: a right guess for
            // end_map_in_order, which then writes them without moving them.
            let mut sorting: Vec<u32> = (0..count as u32).collect();
            sorting.sort_by_key(|&j| &keys[order[j as usize]]);
            let build = |one_pass: bool, guess: bool, dedup: bool| {
                ONE_PASS_MAPS.with(|c| c.set(one_pass));
                let mut b = Builder::with_options(BuilderOptions {
                    dedup_key_vectors: dedup,
                    ..BuilderOptions::default()
                });
                b.force_min_width(force);
                b.start_vector();
                // Copies 0, 1 and 3 have the same keys (sharing a keys
                // vector when `dedup`); copy 2 leaves one key out.
                for copy in 0..4 {
                    let skip = if copy == 2 && count > 1 {
                        order[0]
                    } else {
                        usize::MAX
                    };
                    let mut sorting = sorting.clone();
                    if skip != usize::MAX {
                        // A guess for the other key set is stale: checked
                        // and replaced.
                        sorting.pop();
                    }
                    b.start_map();
                    for &i in order.iter().filter(|&&i| i != skip) {
                        b.key(&keys[i]);
                        let (kind, size) = values[i];
                        match kind {
                            0 => b.int(-(size as i64) * 40_000 * (copy + 1)),
                            1 => b.double(size as f64 + 0.1),
                            2 => b.string(&"x".repeat(size)),
                            3 => b.uint(u64::MAX >> (size % 64)),
                            4 => b.bool(size % 2 == 0),
                            _ => b.blob(&vec![7u8; size % 600]),
                        }
                    }
                    if guess {
                        b.end_map_in_order(&mut sorting).unwrap();
                    } else {
                        b.end_map().unwrap();
                    }
                }
                b.end_vector().unwrap();
                b.finish().unwrap().to_vec()
            };
            for dedup in [false, true] {
                let general = build(false, false, dedup);
                assert_eq!(build(true, false, dedup), general, "round {round} {dedup}");
                assert_eq!(
                    build(true, true, dedup),
                    general,
                    "round {round} {dedup}, guessed"
                );
            }
        }
        ONE_PASS_MAPS.with(|c| c.set(true));
    }

    /// The radix sort of entry words gives `sort_unstable`'s order: words of
    /// random keys, of keys sharing some of their eight bytes (skipped
    /// passes), of tied keys (kept in index order), of every size around
    /// the radix threshold.
    #[test]
    fn radix_sorted_words_match_sort_unstable() {
        let mut rng = crate::test_support::Rng::new(0x0e96_645b_1944_2026);
        let mut scratch = Vec::new();
        for round in 0..300 {
            let n = match round % 3 {
                0 => RADIX_MIN - 2 + rng.below(5),
                1 => rng.below(3000),
                _ => RADIX_MIN + rng.below(20_000),
            };
            // Which of the eight key bytes vary, and over how many values.
            let varying = rng.below(256) as u8;
            let spread = 1 + rng.below(256) as u64;
            let shared = rng.below(u64::MAX as usize) as u64;
            let mut words: Vec<u128> = (0..n)
                .map(|i| {
                    let mut key = shared;
                    for d in 0..8 {
                        if varying & (1 << d) != 0 {
                            let byte = rng.below(spread as usize) as u64;
                            key = (key & !(0xff << (8 * d))) | (byte << (8 * d));
                        }
                    }
                    (u128::from(key) << 32) | i as u128
                })
                .collect();
            let mut want = words.clone();
            want.sort_unstable();
            sort_words(&mut words, &mut scratch);
            assert_eq!(words, want, "round {round}, {n} words");
        }
    }

    /// Maps of more keys than the radix threshold, pushed shuffled, with
    /// keys that share or tie on their first eight bytes, come out in byte
    /// order with the order `end_map_in_order` reports.
    #[test]
    fn maps_of_thousands_of_keys_sort_by_their_bytes() {
        let mut rng = crate::test_support::Rng::new(0x2026_1205_1945);
        for round in 0..12 {
            let n = 600 + rng.below(4000);
            let stem = ["", "key", "abcdefgh", "\u{e9}t\u{e9}"][round % 4];
            let mut keys: Vec<String> = (0..n)
                .map(|i| format!("{stem}{}", (i * 7919) % (n + 13)))
                .collect();
            keys.sort();
            keys.dedup();
            for i in (1..keys.len()).rev() {
                keys.swap(i, rng.below(i + 1));
            }
            let keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
            let found = assert_sorted_map_of_indices(&keys, true, &format!("round {round}"));
            assert!(!found.is_empty());
        }
    }

    /// Builds a map of `pushed` keys (in that order) to their indices, ended
    /// by `end_map_in_order` or `end_map`, and checks that it reads back in
    /// byte order with each key's own index, and that the order
    /// `end_map_in_order` reports (empty when the keys came sorted) is the
    /// entries' in that order. Returns that order.
    fn assert_sorted_map_of_indices(pushed: &[&str], in_order: bool, label: &str) -> Vec<u32> {
        let mut b = Builder::new();
        b.start_map();
        for (i, k) in pushed.iter().enumerate() {
            b.key(k);
            b.uint(i as u64);
        }
        let mut found = Vec::new();
        if in_order {
            b.end_map_in_order(&mut found).unwrap();
        } else {
            b.end_map().unwrap();
        }
        let bytes = b.finish().unwrap().to_vec();
        let map = crate::verify(&bytes).unwrap().root().as_map().unwrap();
        let mut want: Vec<&str> = pushed.to_vec();
        want.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        assert_eq!(map.len(), want.len(), "{label}");
        for (i, k) in want.iter().enumerate() {
            assert_eq!(map.key(i).unwrap(), *k, "{label}");
            let at = map.value(i).unwrap().as_u64().unwrap() as usize;
            assert_eq!(pushed[at], *k, "{label}");
            if !found.is_empty() {
                assert_eq!(found[i] as usize, at, "{label}");
            }
        }
        found
    }

    /// Keys that tie on their first eight bytes (the sort's integer word) are
    /// ordered by their whole bytes, in maps past any small-sort size, and a
    /// key repeated within such a tie is reported.
    #[test]
    fn keys_tied_on_their_first_eight_bytes_sort_by_their_whole_bytes() {
        let heads = [
            "",
            "a",
            "abcdefgh",
            "abcdefgz",
            "\u{e9}\u{e9}\u{e9}\u{e9}",
            "k",
        ];
        let tails = ["", "a", "aa", "b", "\u{e9}", "\u{10000}", "zzzzzzzzz", "~"];
        let mut all: Vec<String> = Vec::new();
        for h in heads {
            for t in tails {
                for n in 0..6 {
                    all.push(format!("{h}{t}{}", "0".repeat(n)));
                }
            }
        }
        all.sort();
        all.dedup();
        let mut rng = crate::test_support::Rng::new(0x51_7cc1_b727_220a);
        for round in 0..200 {
            let mut push: Vec<&str> = all.iter().map(|s| s.as_str()).collect();
            for i in (1..push.len()).rev() {
                push.swap(i, rng.below(i + 1));
            }
            push.truncate(1 + rng.below(push.len()));
            let mut want: Vec<&str> = push.clone();
            want.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            assert_sorted_map_of_indices(&push, round % 2 == 0, &format!("round {round}"));
            // The same map with one key of the longest tie pushed twice.
            let tied = want
                .iter()
                .filter(|k| {
                    k.len() >= 8 && want.iter().filter(|o| o.get(..8) == k.get(..8)).count() > 1
                })
                .nth(rng.below(4));
            if let Some(&repeated) = tied {
                let mut b = Builder::new();
                b.start_map();
                for k in push.iter().chain([&repeated]) {
                    b.key(k);
                    b.null();
                }
                let e = b.end_map().unwrap_err();
                assert_eq!(
                    e.kind(),
                    &crate::ErrorKind::Builder(BuilderError::DuplicateKey(repeated.into())),
                    "round {round}"
                );
            }
        }
    }

    /// `end_map_in_order` writes what `end_map` writes whatever the guess
    /// (none, the right one, another permutation, a repeated or missing
    /// index, one out of range, a wrong length), reports the order that
    /// sorted the entries, and fails as `end_map` does on a repeated key.
    #[test]
    fn guessed_map_orders_write_what_end_map_writes() {
        let mut rng = crate::test_support::Rng::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..300 {
            let count = 1 + rng.below(24);
            let keys: Vec<String> = (0..count)
                .map(|i| format!("k{:03}", (i * 7) % 100))
                .collect();
            let mut push: Vec<usize> = (0..count).collect();
            for i in (1..count).rev() {
                push.swap(i, rng.below(i + 1));
            }
            let mut sorting: Vec<u32> = (0..count as u32).collect();
            sorting.sort_by_key(|&j| &keys[push[j as usize]]);
            let mut other = sorting.clone();
            other.rotate_left(1);
            // The right order but for its last index, out of range.
            let mut last_out = sorting.clone();
            last_out[count - 1] = [count as u32, u32::MAX][round % 2];
            let guesses: Vec<Vec<u32>> = vec![
                vec![],
                sorting.clone(),
                other,
                vec![0; count],
                vec![count as u32; count],
                sorting[..count - 1].to_vec(),
                last_out,
            ];
            let build = |guess: Option<&Vec<u32>>| {
                let mut b = Builder::new();
                let mut found = guess.cloned().unwrap_or_default();
                b.start_vector();
                for copy in 0..2 {
                    b.start_map();
                    for &i in &push {
                        b.key(&keys[i]);
                        b.int((i as i64 + 1) * 1000 * (copy + 1));
                    }
                    match guess {
                        Some(_) => b.end_map_in_order(&mut found).unwrap(),
                        None => b.end_map().unwrap(),
                    }
                }
                b.end_vector().unwrap();
                (b.finish().unwrap().to_vec(), found)
            };
            let (want, _) = build(None);
            let ascending = push.windows(2).all(|w| keys[w[0]] < keys[w[1]]);
            for guess in &guesses {
                let (got, found) = build(Some(guess));
                assert_eq!(got, want, "round {round}, guess {guess:?}");
                let expect = if ascending { vec![] } else { sorting.clone() };
                assert_eq!(found, expect, "round {round}, guess {guess:?}");
            }
        }
        // A repeated key fails as end_map fails, with or without a guess.
        let attempt = |guess: Option<Vec<u32>>| {
            let mut b = Builder::new();
            b.start_map();
            for k in ["b", "a", "b"] {
                b.key(k);
                b.null();
            }
            match guess {
                Some(mut g) => b.end_map_in_order(&mut g).unwrap_err().to_string(),
                None => b.end_map().unwrap_err().to_string(),
            }
        };
        let want = attempt(None);
        assert!(want.contains("duplicate"), "{want}");
        for g in [vec![], vec![1, 0, 2], vec![1, 2, 0]] {
            assert_eq!(attempt(Some(g)), want);
        }
    }

    /// The width bounds of the one-pass map path at the edge of a width:
    /// values that all point at one string (their offsets grow along the
    /// vector, so the first and last disagree) and keys written earlier
    /// close together (two bytes apart, so at two-byte width later keys
    /// are farther away), swept across the 1- and 2-byte limits.
    #[test]
    fn map_widths_at_the_limits_match_the_general_path() {
        let build = |one_pass: bool, pad: usize, keys_first: bool| {
            ONE_PASS_MAPS.with(|c| c.set(one_pass));
            let mut b = Builder::new();
            b.start_vector();
            let keys = ["b", "c", "d", "e", "f", "g"];
            if keys_first {
                b.start_vector();
                for k in keys {
                    b.key(k);
                }
                b.end_typed_vector().unwrap();
            }
            b.blob(&vec![1u8; pad]);
            b.string("shared");
            let shared = b.last_value().unwrap();
            b.start_map();
            for k in keys {
                b.key(k);
                if keys_first {
                    b.null();
                } else {
                    b.reuse_value(shared);
                }
            }
            b.end_map().unwrap();
            b.end_vector().unwrap();
            b.finish().unwrap().to_vec()
        };
        for pad in (150..400).chain(65_200..65_560) {
            for keys_first in [false, true] {
                let general = build(false, pad, keys_first);
                assert_eq!(build(true, pad, keys_first), general, "{pad} {keys_first}");
            }
        }
        ONE_PASS_MAPS.with(|c| c.set(true));
    }

    /// The block path writes exactly the bytes the value-stack path writes
    /// for keys not yet in the pool: every key count up to 40, key lengths
    /// up to 300 (offsets of 1, 2 and 4 bytes), any alignment before the
    /// block, and forced minimum widths.
    #[test]
    fn key_blocks_match_the_value_stack_path() {
        let mut rng = crate::test_support::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| rng.below(n);
        for round in 0..600 {
            let count = next(41);
            let long = round % 3 == 0;
            let mut keys: Vec<String> = (0..count)
                .map(|i| {
                    let len = if long { next(300) } else { next(12) };
                    format!("{i:03}{}", "k".repeat(len))
                })
                .collect();
            keys.sort();
            keys.dedup();
            let names: Vec<&str> = keys.iter().map(String::as_str).collect();
            let prefix = "p".repeat(next(9));
            let force = [BitWidth::W8, BitWidth::W16, BitWidth::W32][next(3)];
            let layout = crate::typed::RuntimeLayout::new(&names).unwrap();
            let build = |block: bool| {
                let mut b = Builder::with_share(ShareFlags::KEYS);
                b.force_min_width(force);
                b.start_vector();
                b.string(&prefix);
                let kv = if block {
                    b.key_vector_layout(&layout).unwrap()
                } else {
                    b.key_vector(&names).unwrap()
                };
                b.start_map();
                for i in 0..names.len() {
                    b.int(i as i64);
                }
                b.end_map_with_keys(&kv).unwrap();
                b.end_vector().unwrap();
                b.finish_vec().unwrap()
            };
            assert_eq!(hex(&build(true)), hex(&build(false)), "round {round}");
        }
        let layout = crate::typed::Layout::new(&["a", "bb", "ccc"], b"a\0bb\0ccc\0");
        let mut b = Builder::new();
        let kv = b.key_vector_for(&layout).unwrap();
        b.start_map();
        for i in 0..3 {
            b.int(i);
        }
        b.end_map_with_keys(&kv).unwrap();
        let bytes = b.finish_vec().unwrap();
        let m = crate::verify(&bytes).unwrap().root().as_map().unwrap();
        assert_eq!(m.key(2).unwrap(), "ccc");
        assert_eq!(m.get("bb").unwrap().as_i64().unwrap(), 1);
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn built(share: ShareFlags, f: impl FnOnce(&mut Builder)) -> String {
        let mut b = Builder::with_share(share);
        f(&mut b);
        hex(b.finish().expect("finish"))
    }

    // Expected bytes below were produced by the C++ reference replayer
    // (conformance/cpp/replay.cpp against libflatbuffers-dev 2.0.8).
    #[test]
    fn scalar_roots_match_reference() {
        assert_eq!(built(ShareFlags::KEYS, |b| b.int(1)), "010401");
        assert_eq!(built(ShareFlags::KEYS, |b| b.double(1.0)), "0000803f0e04");
        assert_eq!(built(ShareFlags::KEYS, |b| b.bool(true)), "016801");
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.int(i64::MIN)),
            "00000000000000800708"
        );
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.uint(u64::MAX)),
            "ffffffffffffffff0b08"
        );
        assert_eq!(built(ShareFlags::KEYS, |b| b.indirect_int(-1)), "ff011801");
    }

    #[test]
    fn strings_keys_blobs_match_reference() {
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.string("abc")),
            "0361626300041401"
        );
        assert_eq!(built(ShareFlags::KEYS, |b| b.key("a")), "6100021001");
        assert_eq!(built(ShareFlags::KEYS, |b| b.blob(&[1, 2])), "020102026401");
        assert_eq!(built(ShareFlags::KEYS, |b| b.blob(&[])), "00006401");
    }

    #[test]
    fn containers_match_reference() {
        let empty_vec = built(ShareFlags::KEYS, |b| {
            b.start_vector();
            b.end_vector().unwrap();
        });
        assert_eq!(empty_vec, "00002801");
        let empty_map = built(ShareFlags::KEYS, |b| {
            b.start_map();
            b.end_map().unwrap();
        });
        assert_eq!(empty_map, "00000100002401");
        let map = built(ShareFlags::KEYS, |b| {
            b.start_map();
            b.key("b");
            b.int(2);
            b.key("a");
            b.int(1);
            b.end_map().unwrap();
        });
        assert_eq!(map, "6200610002030602010201020404042401");
        let typed = built(ShareFlags::KEYS, |b| {
            b.start_vector();
            b.int(1);
            b.int(2);
            b.int(3);
            b.end_typed_vector().unwrap();
        });
        assert_eq!(typed, "03010203032c01");
        let empty_typed = built(ShareFlags::KEYS, |b| {
            b.start_vector();
            b.end_typed_vector().unwrap();
        });
        assert_eq!(empty_typed, "00003801");
    }

    #[test]
    fn bulk_vectors_match_reference() {
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.fixed_vector(&[1i32, 2, 3]).unwrap()),
            "0100000002000000030000000c4e01"
        );
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.scalar_vector(&[1u8, 2, 3]).unwrap()),
            "03010203033001"
        );
        assert_eq!(
            built(ShareFlags::KEYS, |b| b
                .scalar_vector(&[true, false, true])
                .unwrap()),
            "03010001039001"
        );
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.scalar_vector(&[1.0f32]).unwrap()),
            "010000000000803f043601"
        );
        // The minimal-width bulk path equals pushing each value and ending a typed vector.
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.typed_vector(&[1i64, 2, 3])),
            "03010203032c01"
        );
    }

    #[test]
    fn indirect_double_deviation_writes_f32() {
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.indirect_double(3.0)),
            "00004040042201"
        );
        assert_eq!(
            built(ShareFlags::KEYS, |b| b.indirect_double(0.1)),
            "9a9999999999b93f082301"
        );
    }

    #[test]
    fn strings_write_what_string_writes_for_each() {
        let mut rng = crate::test_support::Rng::new(0x5151_7777);
        for round in 0..300 {
            let n = rng.below(12);
            let list: Vec<String> = (0..n)
                .map(|i| {
                    let len = match rng.below(8) {
                        0 => 0,
                        1 => 255 + rng.below(3),
                        2 if round % 10 == 0 => 65_535 + rng.below(3),
                        _ => rng.below(40),
                    };
                    let c = if i % 3 == 0 { 'é' } else { 'x' };
                    core::iter::repeat_n(c, len).collect::<String>()
                })
                .collect();
            let before = rng.below(4);
            for share in [ShareFlags::KEYS, ShareFlags::KEYS_AND_STRINGS] {
                let build = |bulk: bool| {
                    let mut b = Builder::with_share(share);
                    b.start_vector();
                    for i in 0..before {
                        b.string(&"p".repeat(i + 1));
                    }
                    if round % 2 == 1 {
                        b.double(0.5);
                    }
                    if bulk {
                        b.strings(&list);
                    } else {
                        for s in &list {
                            b.string(s);
                        }
                    }
                    // One of them again (shared when strings are).
                    if let Some(s) = list.first() {
                        b.string(s);
                    }
                    b.end_vector().unwrap();
                    b.finish().unwrap().to_vec()
                };
                assert_eq!(build(true), build(false), "round {round}, share {share:?}");
            }
        }
    }

    #[test]
    fn sharing_and_reuse_match_reference() {
        let shared = built(ShareFlags::STRINGS, |b| {
            b.start_vector();
            b.string("ab");
            b.string("ab");
            b.end_vector().unwrap();
        });
        assert_eq!(shared, "026162000204051414042801");
        let reused = built(ShareFlags::NONE, |b| {
            b.start_vector();
            b.string("ab");
            let h = b.last_value().unwrap();
            b.reuse_value(h);
            b.end_vector().unwrap();
        });
        assert_eq!(reused, shared);
        let unshared = built(ShareFlags::NONE, |b| {
            b.start_vector();
            b.string("ab");
            b.string("ab");
            b.end_vector().unwrap();
        });
        assert_eq!(unshared, "02616200026162000208051414042801");
        let forced = built(ShareFlags::KEYS, |b| {
            b.force_min_width(BitWidth::W32);
            b.start_vector();
            b.int(1);
            b.end_vector().unwrap();
        });
        assert_eq!(forced, "010000000100000006052a01");
    }

    #[test]
    fn a_nul_anywhere_in_a_key_is_an_error() {
        for n in 0..=20 {
            let clean = "x".repeat(n);
            let mut b = Builder::new();
            b.key(&clean);
            assert!(b.finish().is_ok(), "{n}");
            let mut high = clean.clone().into_bytes();
            high.extend_from_slice("é".as_bytes());
            let mut b = Builder::new();
            b.key(core::str::from_utf8(&high).unwrap());
            assert!(b.finish().is_ok(), "{n}");
            for i in 0..n {
                let mut k = clean.clone().into_bytes();
                k[i] = 0;
                let mut b = Builder::new();
                b.key(core::str::from_utf8(&k).unwrap());
                assert_eq!(
                    b.finish().unwrap_err().kind(),
                    &crate::ErrorKind::Builder(BuilderError::NulInKey),
                    "{n} {i}"
                );
            }
        }
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let mut b = Builder::new();
        b.start_map();
        b.key("x");
        b.int(1);
        b.key("x");
        b.int(2);
        let err = b.end_map().unwrap_err();
        assert_eq!(
            err.kind(),
            &crate::ErrorKind::Builder(BuilderError::DuplicateKey("x".into()))
        );
        // The builder stays failed until cleared.
        assert!(b.finish().is_err());
        b.clear();
        b.int(1);
        assert!(b.finish().is_ok());
    }

    #[test]
    fn misuse_is_reported_not_written() {
        let mut b = Builder::new();
        b.start_vector();
        b.int(1);
        b.string("s");
        assert!(matches!(
            b.end_typed_vector().unwrap_err().kind(),
            crate::ErrorKind::Builder(BuilderError::TypedVectorElement(FlexType::String))
        ));
        let mut b = Builder::new();
        assert!(b.end_map().is_err());
        let mut b = Builder::new();
        b.int(1);
        b.int(2);
        assert!(matches!(
            b.finish().unwrap_err().kind(),
            crate::ErrorKind::Builder(BuilderError::RootCount(2))
        ));
        let mut b = Builder::new();
        b.start_map();
        b.key("a\0b");
        b.int(1);
        assert!(b.end_map().is_err());
        let mut b = Builder::new();
        assert!(b.scalar_vector(&[0u8; 256]).is_err());
        let mut b = Builder::new();
        assert!(b.fixed_vector(&[1i32; 5]).is_err());
        let mut b = Builder::new();
        assert!(b.fixed_vector(&[true, false]).is_err());
    }

    #[test]
    fn clear_caps_retained_capacity() {
        let mut b = Builder::with_options(BuilderOptions {
            max_retained_capacity: 4096,
            ..BuilderOptions::default()
        });
        b.blob(&vec![7u8; 1 << 20]);
        b.finish().unwrap();
        assert!(b.capacity() >= 1 << 20);
        b.clear();
        assert!(
            b.capacity() <= 4096,
            "capacity {} kept after clear",
            b.capacity()
        );
        b.int(5);
        assert_eq!(hex(b.finish().unwrap()), "050401");
    }

    /// Empty vectors, key vectors and maps (opened and ended, or pushed by
    /// `empty_vector` and `empty_map`) are written as the format lays them
    /// out (what the C++ reference writes): after 0 to 8 bytes, at every
    /// forced minimum width, each a size of 0 at its width, a map's values
    /// preceded by the offset back to its empty keys vector and that
    /// vector's width; checked against bytes assembled here.
    #[test]
    fn empty_vectors_and_maps_are_laid_out_as_the_format_says() {
        for before in 0..=8usize {
            for min in [BitWidth::W8, BitWidth::W16, BitWidth::W32, BitWidth::W64] {
                for kind in ["vector", "typed", "map", "empty_vector", "empty_map"] {
                    let mut b = Builder::new();
                    b.force_min_width(min);
                    b.start_vector();
                    if before > 0 {
                        b.blob(&vec![0xee; before - 1]);
                    }
                    let start = b.buf.len();
                    match kind {
                        "vector" => {
                            b.start_vector();
                            b.end_vector().unwrap();
                        }
                        "typed" => {
                            b.start_vector();
                            b.end_typed_vector().unwrap();
                        }
                        "empty_vector" => b.empty_vector().unwrap(),
                        "empty_map" => b.empty_map().unwrap(),
                        _ => {
                            b.start_map();
                            b.end_map().unwrap();
                        }
                    }
                    let w = min.bytes();
                    let mut expected = vec![0u8; padding(start, w) + w];
                    if kind.ends_with("map") {
                        // The keys vector's size ends at `keys`; the values
                        // vector's fields follow at the same width (the
                        // offset back is at most 3 words, whatever the width).
                        let keys = start + expected.len();
                        let fields = keys + padding(keys, w);
                        expected.resize(fields - start, 0);
                        expected.extend_from_slice(&((fields - keys) as u64).to_le_bytes()[..w]);
                        expected.extend_from_slice(&(w as u64).to_le_bytes()[..w]);
                        expected.extend_from_slice(&0u64.to_le_bytes()[..w]);
                    }
                    assert_eq!(
                        &b.buf[start..],
                        &expected[..],
                        "{kind} after {before} at {min:?}"
                    );
                    let top = *b.stack.last().unwrap();
                    let ty = match kind {
                        "vector" | "empty_vector" => FlexType::Vector,
                        "typed" => FlexType::VectorKey,
                        _ => FlexType::Map,
                    };
                    assert_eq!(
                        (top.ty, top.data as usize, top.width),
                        (ty, b.buf.len(), min)
                    );
                    b.end_vector().unwrap();
                    let bytes = b.finish_vec().unwrap();
                    let root = crate::verify(&bytes).unwrap().root();
                    let last = root.index(root.len().unwrap() - 1).unwrap();
                    assert_eq!((last.flex_type(), last.len().unwrap()), (ty, 0));
                }
            }
        }
    }

    /// Empty maps never share their (empty) keys vector, with or without
    /// `dedup_key_vectors`, and any guessed order comes back empty.
    #[test]
    fn empty_maps_write_their_own_keys_vectors_under_every_option() {
        let build = |dedup: bool| {
            let mut b = Builder::with_options(BuilderOptions {
                dedup_key_vectors: dedup,
                ..BuilderOptions::default()
            });
            b.start_vector();
            for i in 0..3 {
                b.start_map();
                let mut order = vec![1, 0];
                b.end_map_in_order(&mut order).unwrap();
                assert!(order.is_empty());
                b.int(i);
            }
            b.end_vector().unwrap();
            b.finish_vec().unwrap()
        };
        let plain = build(false);
        assert_eq!(build(true), plain);
        let root = crate::verify(&plain).unwrap().root();
        let keys: Vec<usize> = (0..3)
            .map(|i| root.index(2 * i).unwrap().as_map().unwrap().keys_offset())
            .collect();
        assert!(keys[0] < keys[1] && keys[1] < keys[2], "{keys:?}");
    }

    /// Strings and blobs are laid out as the format says, whatever the
    /// alignment they start at: zeros up to the length's width, the length
    /// in that width, the bytes, and a NUL after a string; checked against
    /// bytes assembled here, for lengths around every word-store case and
    /// width limit, after 0 to 8 bytes already in the buffer.
    #[test]
    fn strings_and_blobs_are_padded_sized_and_terminated() {
        for n in (0..=40).chain([255, 256, 257, 65_535, 65_536]) {
            let text: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            for before in 0..=8usize {
                for string in [true, false] {
                    let mut b = Builder::new();
                    b.start_vector();
                    // `before` bytes of blob data after a one-byte length.
                    if before > 0 {
                        b.blob(&vec![0xee; before - 1]);
                    }
                    let start = b.buf.len();
                    if string {
                        b.string(core::str::from_utf8(&text).unwrap());
                    } else {
                        b.blob(&text);
                    }
                    let w = BitWidth::of_u64(n as u64).bytes();
                    let mut expected = vec![0u8; padding(start, w)];
                    expected.extend_from_slice(&(n as u64).to_le_bytes()[..w]);
                    expected.extend_from_slice(&text);
                    if string {
                        expected.push(0);
                    }
                    assert_eq!(
                        &b.buf[start..],
                        &expected[..],
                        "n {n} before {before} string {string}"
                    );
                    let slot = *b.stack.last().unwrap();
                    assert_eq!(
                        slot.data as usize,
                        start + expected.len() - n - string as usize
                    );
                    b.end_vector().unwrap();
                    let bytes = b.finish_vec().unwrap();
                    let root = crate::verify(&bytes).unwrap().root();
                    let last = root.index(root.len().unwrap() - 1).unwrap();
                    let read = if string {
                        last.as_str().unwrap().as_bytes()
                    } else {
                        last.as_blob().unwrap()
                    };
                    assert_eq!(read, &text[..]);
                }
            }
        }
    }

    #[test]
    fn clear_caps_retained_scratch() {
        let options = BuilderOptions {
            max_retained_capacity: 4096,
            ..BuilderOptions::default()
        };
        let mut b = Builder::with_options(options.clone());
        // A vector of 10,000 maps of distinct keys: a long value stack and a
        // large key pool.
        b.start_vector();
        for n in 0..10_000 {
            b.start_map();
            b.key(&format!("k{n}"));
            b.int(n);
            b.end_map().unwrap();
        }
        b.end_vector().unwrap();
        b.finish().unwrap();
        assert!(b.scratch_capacity() > 100_000, "{}", b.scratch_capacity());
        b.clear();
        assert!(
            b.scratch_capacity() <= 6 * 4096,
            "scratch {} kept after clear",
            b.scratch_capacity()
        );
        // Small scratch is kept: a second small buffer allocates nothing new.
        let small = |b: &mut Builder| {
            b.start_map();
            b.key("a");
            b.string("x");
            b.end_map().unwrap();
            hex(b.finish().unwrap())
        };
        let first = small(&mut b);
        let held = b.scratch_capacity();
        b.clear();
        assert_eq!(b.scratch_capacity(), held);
        assert_eq!(small(&mut b), first);
        assert_eq!(first, small(&mut Builder::new()));
    }

    /// With `large_retained_capacity`, a large buffer's memory is kept for
    /// the next buffer (within `32 * n` and the cap, each part), reused by a
    /// buffer of the same size, and given back at the first clear after a
    /// small buffer; `finish_vec` keeps the scratch alike.
    #[test]
    fn large_buffers_keep_their_memory_until_a_small_one() {
        let options = BuilderOptions {
            max_retained_capacity: 4096,
            large_retained_capacity: 8 << 20,
            ..BuilderOptions::default()
        };
        // 20,000 unsorted keys: a long stack, the sort's scratch, a large
        // key pool, and a buffer of about 200 KB.
        let fill = |b: &mut Builder| {
            b.start_map();
            for n in 0..20_000u32 {
                b.key(&format!("k{}", n.wrapping_mul(7919) % 20_000));
                b.int(i64::from(n));
            }
            b.end_map().unwrap();
        };
        let large = |b: &mut Builder| {
            fill(b);
            b.finish().unwrap().len()
        };
        let small = |b: &mut Builder| {
            b.int(5);
            b.finish().unwrap().len()
        };
        let mut b = Builder::with_options(options.clone());
        let n = large(&mut b);
        let (buf, scratch) = (b.capacity(), b.scratch_capacity());
        assert!(buf >= n && scratch > 1 << 20, "{buf} {scratch}");
        b.clear();
        assert_eq!((b.capacity(), b.scratch_capacity()), (buf, scratch));
        // The same buffer again grows nothing.
        assert_eq!(large(&mut b), n);
        assert_eq!((b.capacity(), b.scratch_capacity()), (buf, scratch));
        b.clear();
        small(&mut b);
        b.clear();
        assert!(b.capacity() <= 4096, "{}", b.capacity());
        assert!(b.scratch_capacity() <= 8 * 4096, "{}", b.scratch_capacity());

        // Each part within the cap, however large the buffer.
        let mut b = Builder::with_options(BuilderOptions {
            large_retained_capacity: 64 << 10,
            ..options.clone()
        });
        large(&mut b);
        b.clear();
        assert!(b.capacity() <= 64 << 10, "{}", b.capacity());
        assert!(
            b.scratch_capacity() <= 8 * (64 << 10),
            "{}",
            b.scratch_capacity()
        );

        // Within 32 bytes per byte written: nothing is written while a
        // vector of 1,000 integers is open, so its stack is not kept.
        let mut b = Builder::with_options(options.clone());
        b.start_vector();
        for n in 0..1_000 {
            b.int(n);
        }
        b.clear();
        assert!(b.scratch_capacity() <= 8 * 4096, "{}", b.scratch_capacity());

        // `finish_vec` hands the buffer out and keeps the scratch.
        let mut b = Builder::with_options(options);
        fill(&mut b);
        let bytes = b.finish_vec().unwrap();
        assert_eq!(bytes.len(), n);
        assert_eq!(b.capacity(), 0);
        assert_eq!(b.scratch_capacity(), scratch);
    }

    #[test]
    fn pushes_after_finish_are_refused() {
        let mut b = Builder::new();
        b.int(1);
        assert_eq!(hex(b.finish().unwrap()), "010401");
        b.string("xyz");
        assert!(b.finished_bytes().is_none());
        assert!(matches!(
            b.finish().unwrap_err().kind(),
            crate::ErrorKind::Builder(BuilderError::Finished)
        ));
        b.clear();
        b.int(2);
        assert_eq!(hex(b.finish().unwrap()), "020401");
    }

    #[test]
    fn stale_handles_are_rejected() {
        let mut b = Builder::new();
        b.string("x");
        let h = b.last_value().unwrap();
        b.clear();
        b.reuse_value(h);
        assert!(matches!(
            b.finish().unwrap_err().kind(),
            crate::ErrorKind::Builder(BuilderError::StaleValue)
        ));
    }

    #[test]
    fn a_key_pushed_again_by_handle_writes_what_key_writes() {
        // Keys pushed by `key` every time, and by the handle of each
        // one's first push: the same bytes.
        let build = |by_handle: bool| {
            let mut b = Builder::new();
            let mut handles: Vec<Option<ValueHandle>> = vec![None; 3];
            let names = ["id", "name", "é"];
            b.start_vector();
            for i in 0..4i64 {
                b.start_map();
                for (j, name) in names.iter().enumerate() {
                    match handles[j].filter(|_| by_handle) {
                        Some(h) => b.reuse_value(h),
                        None => {
                            b.key(name);
                            handles[j] = b.last_key();
                            assert!(handles[j].is_some());
                        }
                    }
                    b.int(i * 300 + j as i64);
                }
                b.end_map().unwrap();
            }
            b.end_vector().unwrap();
            b.finish().unwrap().to_vec()
        };
        assert_eq!(build(true), build(false));
        // Only a key on top, and nothing after a failure.
        let mut b = Builder::new();
        b.start_map();
        assert!(b.last_key().is_none());
        b.key("k");
        assert!(b.last_key().is_some());
        b.int(1);
        assert!(b.last_key().is_none());
        b.key("bad\0key");
        assert!(b.last_key().is_none());
    }

    #[test]
    fn empty_containers_in_one_call_write_what_start_and_end_write() {
        // Empties at every offset width and alignment the buffer can put
        // them at: after a blob of 1..300 bytes, with a forced width too.
        for pad in [0usize, 1, 3, 7, 250, 300] {
            for force in [None, Some(BitWidth::W16), Some(BitWidth::W64)] {
                let build = |one_call: bool| {
                    let mut b = Builder::new();
                    if let Some(w) = force {
                        b.force_min_width(w);
                    }
                    b.start_vector();
                    b.blob(&vec![7u8; pad]);
                    for i in 0..3 {
                        if one_call {
                            b.empty_vector().unwrap();
                            b.empty_map().unwrap();
                        } else {
                            b.start_vector();
                            b.end_vector().unwrap();
                            b.start_map();
                            b.end_map().unwrap();
                        }
                        b.int(i);
                    }
                    b.end_vector().unwrap();
                    b.finish_vec().unwrap()
                };
                assert_eq!(build(true), build(false), "pad {pad}, force {force:?}");
            }
        }
        // As the root, and after the buffer is finished: the same error.
        let mut b = Builder::new();
        b.empty_map().unwrap();
        let mut c = Builder::new();
        c.start_map();
        c.end_map().unwrap();
        assert_eq!(b.finish_vec().unwrap(), c.finish_vec().unwrap());
        let mut b = Builder::new();
        b.null();
        b.finish().unwrap();
        let one_call = b.empty_vector().unwrap_err();
        let mut c = Builder::new();
        c.null();
        c.finish().unwrap();
        c.start_vector();
        assert_eq!(one_call, c.end_vector().unwrap_err());
        assert!(b.empty_map().is_err());
    }

    #[test]
    fn key_vectors_are_shared_when_asked() {
        let build = |dedup: bool| {
            let mut b = Builder::with_options(BuilderOptions {
                dedup_key_vectors: dedup,
                ..BuilderOptions::default()
            });
            b.start_vector();
            for i in 0..3 {
                b.start_map();
                b.key("a");
                b.int(i);
                b.key("b");
                b.int(i);
                b.end_map().unwrap();
            }
            b.end_vector().unwrap();
            b.finish_vec().unwrap()
        };
        let (plain, dedup) = (build(false), build(true));
        assert!(dedup.len() < plain.len());
        let (r1, r2) = (
            crate::verify(&plain).unwrap().root(),
            crate::verify(&dedup).unwrap().root(),
        );
        assert_eq!(r1, r2);
        let maps: Vec<_> = (0..3)
            .map(|i| r2.index(i).unwrap().as_map().unwrap().keys_offset())
            .collect();
        assert!(maps.iter().all(|&o| o == maps[0]));
    }

    /// A map whose key set was met before takes that keys vector without
    /// another scan of its keys; a non-key in a key's place must still be
    /// refused, even when its bits equal the offset of a recorded key (the
    /// first key of a buffer is at 0, as is the integer 0). Every key
    /// set seen again in another order, or missing one key, is sorted and
    /// found as the general path finds it.
    #[test]
    fn maps_on_recorded_key_sets_still_refuse_non_keys() {
        let mut b = Builder::with_options(crate::typed::typed_builder_options());
        b.start_vector();
        b.start_map();
        b.key("a");
        b.int(1);
        b.end_map().unwrap();
        b.start_map();
        b.int(0);
        b.int(1);
        assert_eq!(
            b.end_map().map_err(|e| e.kind().clone()),
            Err(crate::ErrorKind::Builder(BuilderError::MapEntryNotKey(0)))
        );
        // Recorded in key order; met again in key order, reversed, and short.
        let mut b = Builder::with_options(crate::typed::typed_builder_options());
        b.start_vector();
        for keys in [
            &["a", "b", "c"][..],
            &["a", "b", "c"],
            &["c", "b", "a"],
            &["b", "a"],
        ] {
            b.start_map();
            for (i, k) in keys.iter().enumerate() {
                b.key(k);
                b.int(i as i64);
            }
            b.end_map().unwrap();
        }
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = crate::verify(&bytes).unwrap().root();
        let map = |i: usize| root.index(i).unwrap().as_map().unwrap();
        assert_eq!(map(0).keys_offset(), map(1).keys_offset());
        assert_eq!(map(0).keys_offset(), map(2).keys_offset());
        assert_ne!(map(0).keys_offset(), map(3).keys_offset());
        assert_eq!(map(2).get("a").unwrap().as_i64().unwrap(), 2);
        assert_eq!(map(3).get("a").unwrap().as_i64().unwrap(), 1);
    }

    #[test]
    fn explicit_key_vector_writes_maps_by_position() {
        let mut b = Builder::with_share(ShareFlags::KEYS);
        b.start_vector();
        let kv = b.key_vector(&["street", "zip"]).unwrap();
        for (s, z) in [("Main", 1), ("Elm", 2)] {
            b.start_map();
            b.string(s);
            b.int(z);
            b.end_map_with_keys(&kv).unwrap();
        }
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = crate::verify(&bytes).unwrap().root();
        assert_eq!(
            root.index(1)
                .unwrap()
                .get("street")
                .unwrap()
                .as_str()
                .unwrap(),
            "Elm"
        );
        assert_eq!(
            root.index(0).unwrap().get("zip").unwrap().as_i64().unwrap(),
            1
        );
        let mut b = Builder::new();
        assert!(b.key_vector(&["b", "a"]).is_err());
    }
}
