//! Runtime support for generated typed coders (`flexbuf gen --lang rust`).
//!
//! A message is an ordinary FlexBuffers map. Generated encoders write every
//! field in wire order (unsigned byte order of wire names, null for absent
//! optionals) and one keys vector per type per buffer, shared by every map of
//! that type, right after the type's keys written as one block
//! ([`Layout`], [`Builder::key_vector_for`]). Generated decoders read fields
//! **by position** only after [`DecodeContext::layout_proven`] has proven the
//! map's keys are exactly the expected ones; otherwise they look every field
//! up by key. A layout mismatch therefore can never yield a neighbouring
//! field's value.
//!
//! [`FlexCoder::from_flex`] decodes untrusted bytes in one checked pass;
//! [`FlexCoder::from_flex_strict`] runs the verifier first.

use crate::budget::Budget;
use crate::builder::{Builder, BuilderOptions, KeyVector, ShareFlags};
pub use crate::builder::{Field, MapWidths, MessageMap};
use crate::key_tails::{KeyBlock, KeyTails};
use std::sync::Arc;

use crate::error::{BuilderError, Error, ErrorKind, PathSegment, Result};
use crate::reader::{MapReader, Reader};
use crate::types::FlexType;
use crate::verify::verify;

/// A type with a generated (or hand-written) FlexBuffers coder.
pub trait FlexCoder: Sized {
    /// Stable 64-bit identity of the type's wire contract (see `flexbuf::schema`).
    const FINGERPRINT: u64;

    /// Pushes `self` as one value onto `b`.
    fn encode_into(&self, b: &mut Builder, cx: &mut EncodeContext) -> Result<()>;

    /// Writes `self` as a field of an enclosing message (see [`MessageMap`]).
    ///
    /// The default pushes it with [`encode_into`](Self::encode_into) and
    /// takes it back; generated messages write their map without the push.
    fn encode_field(&self, b: &mut Builder, cx: &mut EncodeContext) -> Result<Field> {
        self.encode_into(b, cx)?;
        b.pop_field()
    }

    /// Decodes a value from `r`.
    fn decode_from(r: Reader<'_>, cx: &mut DecodeContext) -> Result<Self>;

    /// Encodes `self` as a complete buffer.
    ///
    /// The builder is one a thread keeps between calls (as `to_vec` and
    /// `from_json` keep theirs), so a stream of messages is written without
    /// a builder, or a grown buffer, for each: a fresh builder cost a 3.7 MB
    /// message its buffer's growth by doubling and a page fault per 4 KiB.
    fn to_flex(&self) -> Result<Vec<u8>> {
        crate::one_shot::write_kept(
            &TO_FLEX,
            typed_builder_options(),
            |b, _: &mut NothingKept| with_encode_context(|cx| self.encode_into(b, cx)),
        )
    }

    /// Encodes `self` into `b` (cleared first) and finishes it, so one builder
    /// can be reused across messages; returns the bytes, borrowed from `b`.
    fn encode_with<'b>(&self, b: &'b mut Builder) -> Result<&'b [u8]> {
        b.clear();
        with_encode_context(|cx| self.encode_into(b, cx))?;
        b.finish()
    }

    /// Decodes the root value of untrusted `bytes` in one checked pass.
    ///
    /// Every read is checked (bounds, widths, the field's declared type, the
    /// UTF-8 of every string returned) under [`MAX_DECODE_DEPTH`] and the
    /// default expansion budget, with no separate verification pass: for every
    /// buffer [`verify`] accepts the result is exactly that of
    /// [`from_flex_strict`](Self::from_flex_strict). Parts of the buffer the
    /// type does not read (unknown fields, the keys of maps whose layout is
    /// already proven) are not checked; the keys of a map read by key are
    /// (once per keys vector: in the buffer, NUL-terminated, UTF-8, strictly
    /// ascending, as many as the values), so a key is never missed. Use
    /// `from_flex_strict` to refuse any buffer that is not valid FlexBuffers
    /// as a whole.
    fn from_flex(bytes: &[u8]) -> Result<Self> {
        let root = Reader::new(bytes)?;
        Self::decode_from(root, &mut DecodeContext::new(bytes.len()))
    }

    /// Verifies the whole of untrusted `bytes` (structure, key order, every
    /// string's UTF-8), then decodes the root value.
    fn from_flex_strict(bytes: &[u8]) -> Result<Self> {
        let root = verify(bytes)?.root();
        Self::decode_from(root, &mut DecodeContext::new(bytes.len()))
    }

    /// Encodes `self` inside a message envelope carrying `protocol` and
    /// [`FINGERPRINT`](Self::FINGERPRINT).
    fn to_envelope(&self, protocol: u16) -> Result<Vec<u8>> {
        Ok(crate::envelope::wrap(
            protocol,
            Self::FINGERPRINT,
            &self.to_flex()?,
        ))
    }

    /// Opens an envelope (the protocol version must match), verifies the
    /// payload and decodes it. When the envelope's fingerprint differs from
    /// [`FINGERPRINT`](Self::FINGERPRINT) the writer used another schema
    /// version, so every field is looked up by key (never by position).
    fn from_envelope(bytes: &[u8], protocol: u16) -> Result<Self> {
        let env = crate::envelope::open_protocol(bytes, protocol)?;
        let root = verify(env.payload)?.root();
        let mut cx = DecodeContext::new(env.payload.len());
        cx.keyed_only = env.fingerprint != Self::FINGERPRINT;
        Self::decode_from(root, &mut cx)
    }
}

/// A generated type's borrowed form (`{Name}Ref<'a>`): strings, blobs and
/// map keys are slices of the buffer, numeric vectors are borrowed where the
/// stored vector is exactly the field's type and aligned for it (copied
/// otherwise). A message without anything to borrow is its own borrowed form.
///
/// Decoding follows the owned decoder read for read: the same checks, the
/// same budget (a borrowed string is charged as if copied, so both forms
/// accept and refuse exactly the same buffers) and the same errors.
pub trait FlexBorrow<'a>: Sized {
    /// The owned type this borrows from (`UserProfile` for `UserProfileRef<'a>`).
    type Owned;

    /// Decodes a value from `r`, borrowing from the buffer `r` reads.
    fn decode_borrowed(r: Reader<'a>, cx: &mut DecodeContext) -> Result<Self>;

    /// Copies every borrowed part out into the owned type.
    fn into_owned(self) -> Self::Owned;

    /// Decodes the root of untrusted `bytes` in one checked pass (as
    /// [`FlexCoder::from_flex`] does), borrowing from `bytes`.
    fn from_flex_borrowed(bytes: &'a [u8]) -> Result<Self> {
        let root = Reader::new(bytes)?;
        Self::decode_borrowed(root, &mut DecodeContext::new(bytes.len()))
    }

    /// Verifies the whole of `bytes` first, then decodes the root borrowing
    /// from it (as [`FlexCoder::from_flex_strict`] does).
    fn from_flex_borrowed_strict(bytes: &'a [u8]) -> Result<Self> {
        let root = verify(bytes)?.root();
        Self::decode_borrowed(root, &mut DecodeContext::new(bytes.len()))
    }
}

std::thread_local! {
    /// The context [`FlexCoder::to_flex`] and [`FlexCoder::encode_with`]
    /// encode with, kept by each thread so its allocations and the keys
    /// vectors' bytes it learnt serve the next buffer.
    static ENCODE_CONTEXT: core::cell::Cell<Option<EncodeContext>> =
        const { core::cell::Cell::new(None) };
}

/// Runs `f` with this thread's kept context (cleared when it was put back),
/// or a fresh one when a caller up the stack holds it.
fn with_encode_context<T>(f: impl FnOnce(&mut EncodeContext) -> T) -> T {
    let mut cx = ENCODE_CONTEXT
        .with(core::cell::Cell::take)
        .unwrap_or_default();
    let out = f(&mut cx);
    cx.clear();
    ENCODE_CONTEXT.with(|c| c.set(Some(cx)));
    out
}

/// What a typed builder keeps of a large buffer's memory for the next
/// buffer ([`BuilderOptions::large_retained_capacity`]; within 32 times the
/// large buffer's size, and given back at the first clear after a small
/// one).
pub const TYPED_LARGE_RETAINED: usize = 256 << 20;

thread_local! {
    /// The builder [`FlexCoder::to_flex`] keeps per thread between calls.
    static TO_FLEX: crate::one_shot::Spare<NothingKept> = const { core::cell::Cell::new(None) };
}

/// What [`FlexCoder::to_flex`] keeps beside its builder: nothing (its
/// encode context is kept per thread by [`with_encode_context`]).
#[derive(Default)]
struct NothingKept;

impl crate::one_shot::Kept for NothingKept {
    fn held(&self) -> usize {
        0
    }

    fn recover(&mut self) {}
}

/// Builder options for typed encoding: keys shared, key vectors
/// deduplicated, and a large buffer's memory kept for the next
/// ([`TYPED_LARGE_RETAINED`]): a builder reused for a stream of large
/// messages let each one's memory go at `clear` and grew and faulted in the
/// next anew (a mesh of 25,000 faces, 3.7 MB, encoded in 1.81 ms instead of
/// 1.24).
pub fn typed_builder_options() -> BuilderOptions {
    BuilderOptions {
        share: ShareFlags::KEYS,
        dedup_key_vectors: true,
        large_retained_capacity: TYPED_LARGE_RETAINED,
        ..BuilderOptions::default()
    }
}

/// Per-buffer encoding state: the keys vector written for each message type.
///
/// A type's keys are written once per buffer, on first use, from its
/// [`Layout`] ([`Builder::key_vector_for`]); a later type with exactly the
/// same keys shares that keys vector. A context serves buffer after buffer
/// ([`clear`](Self::clear) between them): it keeps the bytes of each keys
/// vector it wrote, which the next buffer copies when the type's keys start
/// at the same position modulo 8.
#[derive(Debug, Default)]
pub struct EncodeContext {
    keys: Vec<(u64, KeyVector)>,
    /// By [`TypeSlot`] index: the keys vector last written for the type
    /// (current while its builder generation is the builder's), and the
    /// kept tail it came from (a hint for the next buffer).
    slots: Vec<(Option<KeyVector>, usize)>,
    /// The key blocks written in this buffer, and (at the same index) the
    /// keys vector of each. Two vectors, not one of pairs: pushing a pair
    /// assembled it on the stack and copied it in loads that straddled
    /// its stores, which stalled.
    blocks: Vec<KeyBlock>,
    block_keys: Vec<KeyVector>,
    /// Kept across buffers: the keys vectors' bytes by block and phase.
    tails: KeyTails,
}

/// A generated message type's place in the per-type table of every
/// [`EncodeContext`] ([`EncodeContext::key_vector_at`]): one `static` per
/// type, numbered on first use.
///
/// ```
/// use flexbuf::typed::TypeSlot;
/// static SLOT: TypeSlot = TypeSlot::new();
/// ```
#[derive(Debug, Default)]
pub struct TypeSlot(core::sync::atomic::AtomicUsize);

impl TypeSlot {
    /// A slot not numbered yet.
    pub const fn new() -> TypeSlot {
        TypeSlot(core::sync::atomic::AtomicUsize::new(0))
    }

    /// The slot's number, from 0 (given on first use).
    #[inline(always)]
    fn index(&self) -> usize {
        match self.0.load(core::sync::atomic::Ordering::Relaxed) {
            0 => self.number(),
            n => n - 1,
        }
    }

    #[cold]
    fn number(&self) -> usize {
        use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let n = NEXT.fetch_add(1, Relaxed);
        // Two threads numbering one slot at once: the first number stays.
        match self.0.compare_exchange(0, n, Relaxed, Relaxed) {
            Ok(_) => n - 1,
            Err(taken) => taken - 1,
        }
    }
}

/// The wire keys of a message type known only at run time (a schema an SDK
/// compiled), checked once when made: the run-time form of [`Layout`].
///
/// Encoding with it ([`EncodeContext::key_vector_runtime`]) writes exactly
/// what [`EncodeContext::key_vector_for`] writes for a [`Layout`] of the same
/// keys, without re-checking or re-joining the keys for every buffer.
#[derive(Debug, Clone)]
pub struct RuntimeLayout {
    lens: Box<[usize]>,
    /// Where each key starts in `block` (empty if the block passes 4 GiB).
    starts: Box<[u32]>,
    block: Arc<[u8]>,
}

impl RuntimeLayout {
    /// The layout of wire names `keys`, which must be strictly ascending in
    /// byte order and contain no NUL.
    pub fn new<S: AsRef<str>>(keys: &[S]) -> Result<RuntimeLayout> {
        if let Some(e) = crate::builder::unordered_keys(keys) {
            return Err(e.into());
        }
        let mut block = Vec::with_capacity(keys.iter().map(|k| k.as_ref().len() + 1).sum());
        for k in keys {
            let k = k.as_ref().as_bytes();
            if k.contains(&0) {
                return Err(BuilderError::NulInKey.into());
            }
            block.extend_from_slice(k);
            block.push(0);
        }
        let lens: Box<[usize]> = keys.iter().map(|k| k.as_ref().len()).collect();
        let starts = lens
            .iter()
            .scan(0usize, |at, &len| {
                let start = u32::try_from(*at).ok();
                *at += len + 1;
                Some(start)
            })
            .collect::<Option<_>>()
            .unwrap_or_default();
        Ok(RuntimeLayout {
            lens,
            starts,
            block: block.into(),
        })
    }

    /// The byte length of each key, in wire order.
    pub fn key_lens(&self) -> &[usize] {
        &self.lens
    }

    /// The bytes of each key (without its NUL), in wire order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &[u8]> + Clone + '_ {
        let mut at = 0;
        self.lens.iter().map(move |&len| {
            let key = &self.block[at..at + len];
            at += len + 1;
            key
        })
    }

    /// True when the keys of `map` are exactly these keys, in order: the
    /// proof [`Layout::proves`] makes, for a run-time layout.
    pub fn proves(&self, map: &MapReader<'_>) -> bool {
        let starts = if self.starts.len() == self.lens.len() {
            Starts::Given(&self.starts)
        } else {
            Starts::FromLengths
        };
        proves_keys(map, &self.block, starts, self.keys())
    }

    /// Every key followed by its NUL, concatenated.
    pub fn block(&self) -> &[u8] {
        &self.block
    }
}

impl EncodeContext {
    /// The keys vector for the type `id` with layout `layout`, written on
    /// first use in this buffer.
    #[inline]
    pub fn key_vector_for(
        &mut self,
        b: &mut Builder,
        id: u64,
        layout: &Layout,
    ) -> Result<KeyVector> {
        if let Some(kv) = self.written(b, id) {
            return Ok(kv);
        }
        self.first_use(b, id, KeyBlock::Static(layout.block()), |b| {
            b.key_vector_for(layout)
        })
    }

    /// [`key_vector_for`](Self::key_vector_for) for a type with its own
    /// [`TypeSlot`] (a generated type's `static`): the keys vector written
    /// for it in this buffer is found by the slot's index rather than
    /// looked up by `id`, and the kept bytes of the last buffer's by a hint.
    #[inline]
    pub fn key_vector_at(
        &mut self,
        b: &mut Builder,
        slot: &TypeSlot,
        id: u64,
        layout: &Layout,
    ) -> Result<KeyVector> {
        let i = slot.index();
        if let Some((Some(kv), _)) = self.slots.get(i) {
            if kv.is_current(b) {
                return Ok(*kv);
            }
        }
        self.first_use_at(b, i, id, layout)
    }

    #[cold]
    fn first_use_at(
        &mut self,
        b: &mut Builder,
        i: usize,
        id: u64,
        layout: &Layout,
    ) -> Result<KeyVector> {
        if self.slots.len() <= i {
            self.slots.resize(i + 1, (None, 0));
        }
        // A type first written by `id` in this buffer is found among the
        // blocks written, by its keys.
        let mut hint = self.slots[i].1;
        // Not kept by `id`: the slot finds it, and a caller asking by `id`
        // finds it among the blocks written by its bytes.
        let block = KeyBlock::Static(layout.block());
        let kv =
            self.first_use_hinted(b, id, block, &mut hint, false, |b| b.key_vector_for(layout))?;
        self.slots[i] = (Some(kv), hint);
        Ok(kv)
    }

    /// The keys vector for the type `id` with the run-time layout `layout`,
    /// written on first use in this buffer exactly as
    /// [`key_vector_for`](Self::key_vector_for) writes it (for the SDKs'
    /// compiled schemas).
    #[inline]
    pub fn key_vector_runtime(
        &mut self,
        b: &mut Builder,
        id: u64,
        layout: &RuntimeLayout,
    ) -> Result<KeyVector> {
        if let Some(kv) = self.written(b, id) {
            return Ok(kv);
        }
        self.first_use(b, id, KeyBlock::Shared(layout.block.clone()), |b| {
            b.key_vector_layout(layout)
        })
    }

    /// The keys vector for the type `id` whose wire names are `keys` (strictly
    /// ascending), as [`key_vector_runtime`](Self::key_vector_runtime) writes
    /// it; the keys are checked on every first use, so a caller that encodes
    /// the same type often should make its [`RuntimeLayout`] once.
    pub fn key_vector<S: AsRef<str>>(
        &mut self,
        b: &mut Builder,
        id: u64,
        keys: &[S],
    ) -> Result<KeyVector> {
        if let Some(kv) = self.written(b, id) {
            return Ok(kv);
        }
        let layout = RuntimeLayout::new(keys).map_err(|e| b.fail(e))?;
        self.key_vector_runtime(b, id, &layout)
    }

    /// The keys vector already written for the type `id` in this buffer.
    #[inline]
    fn written(&self, b: &Builder, id: u64) -> Option<KeyVector> {
        self.keys
            .iter()
            .find(|(i, _)| *i == id)
            .map(|&(_, kv)| kv)
            .filter(|kv| kv.is_current(b))
    }

    /// Forgets the keys vectors of the last buffer (keeping the capacity),
    /// so one context can serve buffer after buffer.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.blocks.clear();
        self.block_keys.clear();
    }

    #[cold]
    fn first_use(
        &mut self,
        b: &mut Builder,
        id: u64,
        block: KeyBlock,
        write: impl FnOnce(&mut Builder) -> Result<KeyVector>,
    ) -> Result<KeyVector> {
        let mut hint = usize::MAX;
        self.first_use_hinted(b, id, block, &mut hint, true, write)
    }

    /// The type `id`'s first use in this buffer: the keys vector of an
    /// earlier type with the same keys, else `block` and its keys vector
    /// written (from the tail kept at index `hint` of the kept tails when
    /// it fits; `hint` is updated to the tail used). Kept for lookups by
    /// `id` when `by_id` (a type slot's caller keeps it in the slot).
    #[inline(always)]
    fn first_use_hinted(
        &mut self,
        b: &mut Builder,
        id: u64,
        block: KeyBlock,
        hint: &mut usize,
        by_id: bool,
        write: impl FnOnce(&mut Builder) -> Result<KeyVector>,
    ) -> Result<KeyVector> {
        // Keys vectors of an earlier buffer (the context was not cleared
        // since) are forgotten rather than offered.
        if self.block_keys.first().is_some_and(|kv| !kv.is_current(b)) {
            self.keys.clear();
            self.blocks.clear();
            self.block_keys.clear();
        }
        let bytes = block.bytes();
        let known = self.blocks.iter().position(|k| k.bytes() == bytes);
        let kv = match known.and_then(|i| self.block_keys.get(i)) {
            Some(kv) => *kv,
            None => {
                let kv = self.tails.write(b, &block, hint, write)?;
                self.blocks.push(block);
                self.block_keys.push(kv);
                kv
            }
        };
        if by_id {
            self.keys.push((id, kv));
        }
        Ok(kv)
    }
}

/// Per-buffer decoding state: proven layouts and the expansion budget.
#[derive(Debug)]
pub struct DecodeContext {
    /// The keys vectors proven (or refused) for a type in this buffer.
    layouts: Vec<Proof>,
    /// The last of them met for a type, by its id modulo [`RECENT`] (an
    /// entry of width 0 is empty).
    recent: [Proof; RECENT],
    budget: Budget,
    keyed_only: bool,
    depth: usize,
    /// Short map keys found to be UTF-8 in this decode.
    keys: crate::key_memo::KeyMemo,
}

/// A keys vector met in this buffer and whether it proved a type's layout:
/// by the type's id, the vector's position and the width of its keys (the
/// same position read at another width is another vector), with its length.
#[derive(Clone, Copy, Debug, Default)]
struct Proof {
    id: u64,
    at: usize,
    width: u8,
    len: usize,
    ok: bool,
}

impl Proof {
    /// The proof (`ok`) of `map`'s keys vector for the type `id`.
    #[inline(always)]
    fn of(id: u64, map: &MapReader<'_>, ok: bool) -> Proof {
        Proof {
            id,
            at: map.keys_offset(),
            width: map.keys_width() as u8,
            len: map.len(),
            ok,
        }
    }
}

/// Places in [`DecodeContext`]'s table of the keys vectors met last.
const RECENT: usize = 8;

/// Deepest nesting of messages and unions a decode accepts. Verified buffers
/// are already limited to 64 levels; this guards decodes of unverified bytes
/// (and cycles in them) against exhausting the stack.
pub const MAX_DECODE_DEPTH: usize = 128;

/// Layouts a context remembers at most (the memo of proven keys vectors).
const MAX_LAYOUTS: usize = 64;

std::thread_local! {
    /// The memo's storage of the last context dropped on this thread (empty,
    /// with its capacity), so a decode does not allocate and grow it again.
    static LAYOUT_MEMO: core::cell::Cell<Vec<Proof>> =
        const { core::cell::Cell::new(Vec::new()) };
}

impl DecodeContext {
    /// A context for a buffer of `len` bytes, with the default expansion budget.
    pub fn new(len: usize) -> DecodeContext {
        DecodeContext::with_budget(Budget::for_input(len))
    }

    /// A context with an explicit budget.
    pub fn with_budget(budget: Budget) -> DecodeContext {
        DecodeContext {
            // A context of this thread still alive (a nested decode) keeps
            // its storage; this one then starts from nothing.
            layouts: LAYOUT_MEMO
                .try_with(core::cell::Cell::take)
                .unwrap_or_default(),
            recent: [Proof::default(); RECENT],
            budget,
            keyed_only: false,
            depth: 0,
            keys: Default::default(),
        }
    }

    /// A context that never reads by position: every field is looked up by key.
    /// Used when the writer's schema is known to differ (fingerprint mismatch).
    pub fn keyed_only(len: usize) -> DecodeContext {
        let mut cx = DecodeContext::new(len);
        cx.keyed_only = true;
        cx
    }

    /// Enters one message or union level; fails beyond [`MAX_DECODE_DEPTH`].
    #[inline]
    pub fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DECODE_DEPTH {
            return Err(Error::new(ErrorKind::DepthLimit(MAX_DECODE_DEPTH)));
        }
        self.charge()
    }

    /// Leaves the level entered last.
    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Charges one decoded node against the budget.
    #[inline]
    pub fn charge(&mut self) -> Result<()> {
        self.budget.node()
    }

    /// Charges `n` bytes of decoded output (a string, a blob, a map key)
    /// against the budget: one stored string may be referred to from many
    /// places, and each reference becomes its own copy.
    #[inline]
    pub fn charge_bytes(&mut self, n: usize) -> Result<()> {
        self.budget.bytes(n)
    }

    /// True when `map`'s keys are exactly those of `layout` (same strings,
    /// same order), so fields may be read by position. Proven once per keys
    /// vector per buffer and type; see [`Layout::proves`].
    #[inline]
    pub fn layout_proven(&mut self, id: u64, map: &MapReader<'_>, layout: &Layout) -> Result<bool> {
        self.proven(id, map, |m| layout.proves(m))
    }

    /// [`layout_proven`](Self::layout_proven) for a [`RuntimeLayout`] (the
    /// SDKs' compiled schemas).
    #[inline]
    pub fn runtime_layout_proven(
        &mut self,
        id: u64,
        map: &MapReader<'_>,
        layout: &RuntimeLayout,
    ) -> Result<bool> {
        self.proven(id, map, |m| layout.proves(m))
    }

    /// True when `map`'s keys are exactly `keys` (same strings, same order),
    /// compared key by key: for key lists that have no layout.
    #[inline]
    pub fn layout_matches<S: AsRef<str>>(
        &mut self,
        id: u64,
        map: &MapReader<'_>,
        keys: &[S],
    ) -> Result<bool> {
        self.proven(id, map, |m| {
            m.len() == keys.len()
                && keys
                    .iter()
                    .enumerate()
                    .all(|(i, k)| key_is(&m.keys(), i, k.as_ref().as_bytes()))
        })
    }

    #[inline]
    fn proven(
        &mut self,
        id: u64,
        map: &MapReader<'_>,
        prove: impl FnOnce(&MapReader<'_>) -> bool,
    ) -> Result<bool> {
        self.charge()?;
        map.check_lengths()?;
        if self.keyed_only {
            if !map.is_trusted() {
                map.check_keys()?;
            }
            return Ok(false);
        }
        let (at, width) = (map.keys_offset(), map.keys_width() as u8);
        if let Some(p) = self.proof(id, at, width) {
            return Ok(p.ok);
        }
        let ok = prove(map);
        // Fields of a map not proven are looked up by key (binary search):
        // its keys are checked first, once per keys vector and type.
        if !ok && !map.is_trusted() {
            map.check_keys()?;
        }
        if self.layouts.len() < MAX_LAYOUTS {
            self.layouts.push(Proof::of(id, map, ok));
        }
        Ok(ok)
    }

    /// The proof kept for type `id` and the keys vector at `at` of
    /// `width`-byte keys.
    #[inline(always)]
    fn proof(&self, id: u64, at: usize, width: u8) -> Option<&Proof> {
        self.layouts
            .iter()
            .find(|p| p.at == at && p.id == id && p.width == width)
    }

    /// The map `r` for a message of type `id` and whether its fields may be
    /// read by position: what [`Reader::as_map`] and then
    /// [`layout_proven`](Self::layout_proven) give (the same map, the same
    /// answer, the same errors and charge). When the map's keys vector is
    /// the one last met for a type of `id`'s place in a small table (the
    /// usual case: a list of messages of one type shares one keys vector),
    /// only its values are checked: the keys vector was read and proven (or
    /// refused) then.
    #[inline(always)]
    pub fn message<'a>(
        &mut self,
        r: &Reader<'a>,
        id: u64,
        layout: &Layout,
    ) -> Result<(MapReader<'a>, bool)> {
        if let Some((values, at, width)) = r.map_values() {
            let p = &self.recent[id as usize % RECENT];
            if p.at == at && u64::from(p.width) == width && p.id == id && p.width != 0 {
                let (len, ok) = (p.len, p.ok);
                self.charge()?;
                let m = MapReader::with_keys(values, at, len, width as u8);
                m.check_lengths()?;
                return Ok((m, ok));
            }
            if let Some(m) = r.map_keys(values, at, width) {
                return self.message_met(m, id, layout);
            }
        }
        let m = r.as_map()?;
        let fast = self.layout_proven(id, &m, layout)?;
        Ok((m, fast))
    }

    /// [`message`](Self::message) for a keys vector not the last one met for
    /// its place: proven (or found proven) and remembered there.
    #[inline(always)]
    fn message_met<'a>(
        &mut self,
        m: MapReader<'a>,
        id: u64,
        layout: &Layout,
    ) -> Result<(MapReader<'a>, bool)> {
        let fast = self.layout_proven(id, &m, layout)?;
        if !self.keyed_only {
            self.recent[id as usize % RECENT] = Proof::of(id, &m, fast);
        }
        Ok((m, fast))
    }
}

impl Drop for DecodeContext {
    /// Hands the memo's storage, emptied, to the next context of this thread.
    fn drop(&mut self) {
        let mut memo = core::mem::take(&mut self.layouts);
        if memo.capacity() <= MAX_LAYOUTS {
            memo.clear();
            // Fails only while the thread's locals are being torn down.
            let _ = LAYOUT_MEMO.try_with(|c| c.set(memo));
        }
    }
}

/// True when `a` sorts strictly before `b` (unsigned bytes), at compile time.
const fn ascending(a: &[u8], b: &[u8]) -> bool {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// True when key `i` of the keys vector `kv` is exactly `key` (its bytes, then
/// a NUL). A key that cannot be read is not `key`.
#[inline]
fn key_is(kv: &crate::VectorReader<'_>, i: usize, key: &[u8]) -> bool {
    let (buf, w) = (kv.buffer(), kv.element_width());
    crate::reader::follow(buf, kv.data_offset() + i * w, w).is_ok_and(|p| {
        let n = key.len();
        buf.get(p..p.wrapping_add(n)) == Some(key) && buf.get(p + n) == Some(&0)
    })
}

/// The wire layout of a generated message type: its wire names in wire order.
///
/// Generated encoders of every language write a type's keys one after the
/// other, each with its NUL, followed by the keys vector, once per type per
/// buffer and without the key pool ([`Builder::key_vector_for`]);
/// [`block`](Self::block) is those bytes. Proving a map's keys vector then
/// costs one read of its offsets and one comparison of bytes; keys laid out
/// any other way (by another writer) are compared one by one.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    keys: &'static [&'static str],
    block: &'static [u8],
    /// Where each key starts in `block`, when the generated code gave them
    /// ([`with_starts`](Self::with_starts)); empty otherwise.
    starts: &'static [u32],
}

impl Layout {
    /// The layout of a type whose wire names are `keys` (strictly ascending in
    /// byte order, none containing NUL), with `block` their bytes each
    /// followed by a NUL. Checked when evaluated, so a generated constant that
    /// breaks a rule fails to compile.
    pub const fn new(keys: &'static [&'static str], block: &'static [u8]) -> Layout {
        let mut at = 0;
        let mut i = 0;
        while i < keys.len() {
            let k = keys[i].as_bytes();
            let mut j = 0;
            while j < k.len() {
                assert!(k[j] != 0, "a key contains NUL");
                assert!(
                    at + j < block.len() && block[at + j] == k[j],
                    "block differs from keys"
                );
                j += 1;
            }
            assert!(
                at + j < block.len() && block[at + j] == 0,
                "block differs from keys"
            );
            if i > 0 {
                assert!(
                    ascending(keys[i - 1].as_bytes(), k),
                    "keys are not strictly ascending"
                );
            }
            at += k.len() + 1;
            i += 1;
        }
        assert!(at == block.len(), "block differs from keys");
        Layout {
            keys,
            block,
            starts: &[],
        }
    }

    /// [`new`](Self::new), with `starts[i]` the position of key `i` in
    /// `block` (what code generators emit): the proof then checks every
    /// offset of a keys vector against its key's start independently, in
    /// one pass the compiler vectorises, where without them each offset
    /// depends on the lengths of the keys before it. Checked when evaluated.
    pub const fn with_starts(
        keys: &'static [&'static str],
        block: &'static [u8],
        starts: &'static [u32],
    ) -> Layout {
        let mut layout = Layout::new(keys, block);
        assert!(starts.len() == keys.len(), "one start per key");
        let mut at = 0;
        let mut i = 0;
        while i < keys.len() {
            assert!(starts[i] as usize == at, "start differs from the block");
            at += keys[i].len() + 1;
            i += 1;
        }
        layout.starts = starts;
        layout
    }

    /// Wire names in wire order.
    pub const fn keys(&self) -> &'static [&'static str] {
        self.keys
    }

    /// Every key followed by its NUL, concatenated.
    pub const fn block(&self) -> &'static [u8] {
        self.block
    }

    /// True when the keys of `map` are exactly [`keys`](Self::keys), in order.
    /// Never reads outside the buffer; a key that cannot be read is a mismatch.
    pub fn proves(&self, map: &MapReader<'_>) -> bool {
        let keys = self.keys.iter().map(|k| k.as_bytes());
        if self.starts.len() == self.keys.len() {
            proves_keys(map, self.block, Starts::Given(self.starts), keys)
        } else {
            proves_keys(map, self.block, Starts::FromLengths, keys)
        }
    }
}

/// How [`proves_keys`] learns where each key starts in its block.
#[derive(Clone, Copy)]
enum Starts<'s> {
    /// Precomputed: each offset is checked on its own (vectorised).
    Given(&'s [u32]),
    /// Summed from the keys' lengths as the offsets are read.
    FromLengths,
}

/// True when the keys of `map` are exactly `keys` (in order), which are the
/// keys of `block` (each followed by its NUL): the block in one piece with
/// every offset pointing at its key in it costs one comparison of bytes and
/// one read of the offsets; keys laid out any other way (by another writer)
/// are compared one by one. Never reads outside the buffer; a key that
/// cannot be read is a mismatch.
fn proves_keys<'k, K>(map: &MapReader<'_>, block: &[u8], starts: Starts<'_>, keys: K) -> bool
where
    K: ExactSizeIterator<Item = &'k [u8]> + Clone,
{
    let kv = map.keys();
    if kv.len() != keys.len() {
        return false;
    }
    let (buf, data, w) = (kv.buffer(), kv.data_offset(), kv.element_width());
    if keys.len() == 0 {
        return true;
    }
    let Ok(p0) = crate::reader::follow(buf, data, w) else {
        return false;
    };
    if buf.get(p0..p0.wrapping_add(block.len())) == Some(block) {
        let together = match starts {
            Starts::Given(starts) => match w {
                1 => offsets_at_starts::<1>(buf, data, p0, starts),
                2 => offsets_at_starts::<2>(buf, data, p0, starts),
                4 => offsets_at_starts::<4>(buf, data, p0, starts),
                _ => offsets_at_starts::<8>(buf, data, p0, starts),
            },
            Starts::FromLengths => {
                let lens = keys.clone().map(<[u8]>::len);
                match w {
                    1 => offsets_into_block::<1>(buf, data, p0, lens),
                    2 => offsets_into_block::<2>(buf, data, p0, lens),
                    4 => offsets_into_block::<4>(buf, data, p0, lens),
                    _ => offsets_into_block::<8>(buf, data, p0, lens),
                }
            }
        };
        if together {
            return true;
        }
    }
    keys.enumerate().all(|(i, k)| key_is(&kv, i, k))
}

/// True when the `W`-byte offsets of the keys vector at `data` point at the
/// consecutive keys (of byte lengths `lens`) of the block that starts at
/// `p0`: offset `i` is `data + i * W - (p0 + start of key i)`, so each
/// differs from the previous by `W` minus the previous key's length with
/// its NUL.
#[inline]
fn offsets_into_block<const W: usize>(
    buf: &[u8],
    data: usize,
    p0: usize,
    lens: impl ExactSizeIterator<Item = usize>,
) -> bool {
    let Some(offsets) = buf.get(data..data + lens.len() * W) else {
        return false;
    };
    let mut expect = (data - p0) as u64;
    for (chunk, len) in offsets.chunks_exact(W).zip(lens) {
        let mut word = [0u8; 8];
        word[..W].copy_from_slice(chunk);
        if u64::from_le_bytes(word) != expect {
            return false;
        }
        expect = expect.wrapping_add(W as u64).wrapping_sub(len as u64 + 1);
    }
    true
}

/// [`offsets_into_block`] with the keys' starts in the block given: offset
/// `i` must be `data + i * W - (p0 + starts[i])`, so `offset + starts[i] -
/// i * W` is `data - p0` for every `i`. Each term is independent of the
/// others and they are folded without an early exit, so the loop
/// vectorises (in 32-bit lanes when every expected offset fits in 32 bits).
/// In wrapping arithmetic the equality holds for exactly one offset value
/// below the lanes' modulus, and the true offset is below it.
#[inline]
fn offsets_at_starts<const W: usize>(buf: &[u8], data: usize, p0: usize, starts: &[u32]) -> bool {
    let Some(offsets) = buf.get(data..data + starts.len() * W) else {
        return false;
    };
    let base = data - p0;
    // Every expected offset is at most `base + len * W`.
    if W <= 4 && u32::try_from(base + starts.len() * W).is_ok() {
        let base = base as u32;
        let mut differs = 0u32;
        for (i, (chunk, &start)) in offsets.chunks_exact(W).zip(starts).enumerate() {
            let mut word = [0u8; 4];
            word[..W].copy_from_slice(chunk);
            let at = u32::from_le_bytes(word)
                .wrapping_add(start)
                .wrapping_sub((i * W) as u32);
            differs |= at ^ base;
        }
        return differs == 0;
    }
    let base = base as u64;
    let mut differs = 0u64;
    for (i, (chunk, &start)) in offsets.chunks_exact(W).zip(starts).enumerate() {
        let mut word = [0u8; 8];
        word[..W].copy_from_slice(chunk);
        let at = u64::from_le_bytes(word)
            .wrapping_add(u64::from(start))
            .wrapping_sub((i * W) as u64);
        differs |= at ^ base;
    }
    differs == 0
}

/// The value of a field: by position when the layout is proven, else by key.
#[inline(always)]
pub fn lookup<'a>(
    map: &MapReader<'a>,
    positional: bool,
    index: usize,
    wire_name: &str,
) -> Result<Option<Reader<'a>>> {
    field_index(map, positional, index, wire_name)?
        .map(|i| map.value(i))
        .transpose()
}

/// [`lookup`] for the field `wire_name`: an error finding the field (in the
/// keys vector) has the map's path, an error reading the value found (its
/// slot or type byte) the field's, as every language's coders report them.
#[inline(always)]
pub fn lookup_field<'a>(
    map: &MapReader<'a>,
    positional: bool,
    index: usize,
    wire_name: &str,
) -> Result<Option<Reader<'a>>> {
    field_index(map, positional, index, wire_name)?
        .map(|i| {
            map.value(i)
                .map_err(|e| e.in_segment(PathSegment::Key(wire_name)))
        })
        .transpose()
}

/// The entry of field `wire_name` in `map`: `index` when the layout is
/// proven, else found by key (`None` when absent).
#[inline(always)]
fn field_index(
    map: &MapReader<'_>,
    positional: bool,
    index: usize,
    wire_name: &str,
) -> Result<Option<usize>> {
    if positional {
        Ok(Some(index))
    } else {
        map.index_of(wire_name)
    }
}

/// Adds a map-key segment to an error's path.
pub fn at_key(key: &'static str) -> impl Fn(Error) -> Error {
    move |e| e.in_segment(PathSegment::Key(key))
}

/// The error for an absent required field.
pub fn missing(key: &str) -> Error {
    Error::new(ErrorKind::MissingField).in_segment(PathSegment::Key(key))
}

/// The error for null in a field that is not optional.
pub fn unexpected_null(r: &Reader<'_>) -> Error {
    Error::at(ErrorKind::UnexpectedNull, r.offset())
}

/// The error for an integer that names no variant of enum `name`.
pub fn unknown_enum(name: &'static str, value: i64, r: &Reader<'_>) -> Error {
    Error::at(ErrorKind::UnknownEnumValue { name, value }, r.offset())
}

/// Decodes a union value: a map with exactly one entry. Returns the tag and
/// the payload; errors name the union.
pub fn union_entry<'a>(name: &'static str, r: Reader<'a>) -> Result<(&'a str, Reader<'a>)> {
    if r.is_null() {
        return Err(unexpected_null(&r));
    }
    let m = r.as_map()?;
    m.check_lengths()?;
    if m.len() != 1 {
        return Err(Error::at(
            ErrorKind::UnionEntryCount {
                name,
                found: m.len(),
            },
            r.offset(),
        ));
    }
    Ok((m.key(0)?, m.value(0)?))
}

/// The error for a union tag that names no variant of union `name`.
pub fn unknown_variant(name: &'static str, tag: &str, r: &Reader<'_>) -> Error {
    Error::at(
        ErrorKind::UnknownUnionVariant {
            name,
            tag: tag.to_string(),
        },
        r.offset(),
    )
}

/// A generated view type (`FooView<'a>`): reads single fields of one value
/// straight from the bytes, with checked reads.
pub trait View<'a>: Sized {
    /// The view of the value `r` refers to.
    fn view(r: Reader<'a>) -> Result<Self>;
}

impl<'a> View<'a> for &'a str {
    fn view(r: Reader<'a>) -> Result<Self> {
        field::str(r)
    }
}

/// A vector field read through the element type's view: `get` returns a
/// `V`, so reading elements with the wrong view does not compile.
pub struct VectorView<'a, V> {
    vector: crate::VectorReader<'a>,
    element: core::marker::PhantomData<fn() -> V>,
}

impl<V> Clone for VectorView<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for VectorView<'_, V> {}

impl<V> core::fmt::Debug for VectorView<'_, V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("VectorView")
            .field("len", &self.vector.len())
            .field("element", &core::any::type_name::<V>())
            .finish()
    }
}

impl<'a, V: View<'a> + 'a> VectorView<'a, V> {
    /// The vector `r` refers to (not null, and not a map, whose values would
    /// otherwise pass as a vector).
    pub fn new(r: Reader<'a>) -> Result<Self> {
        if r.is_null() {
            return Err(unexpected_null(&r));
        }
        Ok(VectorView {
            vector: field::list(&r)?,
            element: core::marker::PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.vector.len()
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.vector.is_empty()
    }

    /// Element `i` through its view; errors name the index.
    pub fn get(&self, i: usize) -> Result<V> {
        self.vector
            .get(i)
            .and_then(V::view)
            .map_err(|e| e.in_segment(PathSegment::Index(i)))
    }

    /// Every element through its view, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Result<V>> + 'a {
        let v = *self;
        (0..v.len()).map(move |i| v.get(i))
    }

    /// The underlying vector.
    pub fn raw(&self) -> crate::VectorReader<'a> {
        self.vector
    }
}

/// Field decoders shared by generated code: strict about types, widening
/// integers of any width with a range check, naming the offset on errors.
pub mod field {
    use super::*;

    /// The value of a field that is not optional: `None` when absent, found
    /// by position when `fast` (the layout is proven), else by key; null is
    /// [`ErrorKind::UnexpectedNull`] at the key.
    #[inline(always)]
    fn present<'a>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
    ) -> Result<Option<Reader<'a>>> {
        match lookup_field(m, fast, index, key)? {
            Some(v) if v.is_null() => Err(unexpected_null(&v).in_segment(PathSegment::Key(key))),
            found => Ok(found),
        }
    }

    /// The value of an optional field: `None` when absent, `Some(None)` for
    /// an explicit null.
    #[inline(always)]
    fn present_or_null<'a>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
    ) -> Result<Option<Option<Reader<'a>>>> {
        // A null in its slot (the usual absent value of an optional field)
        // is answered from the type byte, without a reader.
        if fast
            && matches!(m.values().slot(index), Some((p, _, _)) if p >> 2 == FlexType::Null as u8)
        {
            return Ok(Some(None));
        }
        Ok(lookup_field(m, fast, index, key)?.map(|v| (!v.is_null()).then_some(v)))
    }

    /// One field of a message that is not optional, decoded by `dec`:
    /// `Ok(None)` when absent (see `present`); `dec`'s errors gain the key
    /// in their path, as do errors reading the value's slot (errors finding
    /// the field in the keys vector do not).
    ///
    /// Out of line and shared by every field decoded by the same `dec`
    /// (`field::i64`, a message's `decode_from`, ...), so the decoder of a
    /// message of many fields stays small: generated code inlining each
    /// field's lookup and read grew to 1.5 KB a field, and decoding an
    /// 80-field message then missed the instruction cache hundreds of
    /// times.
    #[inline(never)]
    pub fn get<'a, T>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
        dec: impl FnOnce(Reader<'a>) -> Result<T>,
    ) -> Result<Option<T>> {
        present(m, fast, index, key)?
            .map(|v| dec(v).map_err(at_key(key)))
            .transpose()
    }

    /// [`get`] for decoders that need the context.
    #[inline(never)]
    pub fn get_cx<'a, T>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
        cx: &mut DecodeContext,
        dec: impl FnOnce(Reader<'a>, &mut DecodeContext) -> Result<T>,
    ) -> Result<Option<T>> {
        present(m, fast, index, key)?
            .map(|v| dec(v, cx).map_err(at_key(key)))
            .transpose()
    }

    /// One optional field: `Ok(None)` when absent, `Ok(Some(None))` for an
    /// explicit null, else `dec`'s value (errors as in [`get`]).
    #[inline(never)]
    pub fn get_opt<'a, T>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
        dec: impl FnOnce(Reader<'a>) -> Result<T>,
    ) -> Result<Option<Option<T>>> {
        present_or_null(m, fast, index, key)?
            .map(|v| v.map(dec).transpose().map_err(at_key(key)))
            .transpose()
    }

    /// [`get_opt`] for decoders that need the context.
    #[inline(never)]
    pub fn get_opt_cx<'a, T>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
        cx: &mut DecodeContext,
        dec: impl FnOnce(Reader<'a>, &mut DecodeContext) -> Result<T>,
    ) -> Result<Option<Option<T>>> {
        present_or_null(m, fast, index, key)?
            .map(|v| v.map(|v| dec(v, cx)).transpose().map_err(at_key(key)))
            .transpose()
    }

    /// A required scalar field, read by `read` straight from its slot when
    /// the layout is proven (`fast`) and the slot holds an inline value of
    /// type `ty` at least `min` bytes wide, else by [`get`] with `dec` (the
    /// same checks and errors, without a reader per field on the fast path).
    #[inline(always)]
    fn scalar<'a, T>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
        (ty, min): (FlexType, usize),
        read: impl FnOnce(&'a [u8], usize, usize) -> Result<T>,
        dec: impl FnOnce(Reader<'a>) -> Result<T>,
    ) -> Result<Option<T>> {
        let values = m.values();
        match values.slot(index) {
            Some((packed, pos, w)) if fast && packed >> 2 == ty as u8 && w >= min => {
                read(values.buffer(), pos, w).map(Some).map_err(at_key(key))
            }
            _ => get(m, fast, index, key, dec),
        }
    }

    /// The `i64` in slot `index` of a proven layout (`fast`) when the slot
    /// holds an inline integer that can be read; `None` for anything else,
    /// which [`get_i64`] then reads (or refuses) with its checks and errors.
    /// Inlined into generated decoders: a few instructions where the call
    /// to [`get_i64`] costs about sixty.
    #[inline(always)]
    pub fn i64_slot(m: &MapReader<'_>, fast: bool, index: usize) -> Option<i64> {
        let (packed, v, w) = fast.then(|| m.values().slot_word(index)).flatten()?;
        if packed >> 2 != FlexType::Int as u8 {
            return None;
        }
        let shift = crate::VectorReader::sign_shift(w);
        Some(((v << shift) as i64) >> shift)
    }

    /// The `f64` in slot `index` of a proven layout, as [`i64_slot`] reads
    /// an integer (a float of 4 or 8 bytes); `None` sends the field to
    /// [`get_f64`].
    #[inline(always)]
    pub fn f64_slot(m: &MapReader<'_>, fast: bool, index: usize) -> Option<f64> {
        let (packed, v, w) = fast.then(|| m.values().slot_word(index)).flatten()?;
        match (packed >> 2 == FlexType::Float as u8, w) {
            (true, 8) => Some(f64::from_bits(v)),
            (true, 4) => Some(f32::from_bits(v as u32) as f64),
            _ => None,
        }
    }

    /// The `f32` in slot `index` of a proven layout, as [`f64_slot`] reads
    /// a float, narrowed as [`f32`] narrows it; `None` (a finite value
    /// beyond `f32`'s range, or anything but a float) sends the field to
    /// [`get`] with [`f32`], for its value or its error.
    #[inline(always)]
    pub fn f32_slot(m: &MapReader<'_>, fast: bool, index: usize) -> Option<f32> {
        let f = f64_slot(m, fast, index)?;
        let narrow = f as f32;
        (!f.is_finite() || narrow.is_finite()).then_some(narrow)
    }

    /// The integer of type `T` in slot `index` of a proven layout, as
    /// [`i64_slot`] reads one (an inline signed or unsigned integer), when
    /// it is within `T`'s range; `None` sends the field to [`get`] with the
    /// type's decoder (`u8`, `i32`, ...), for its value or its error.
    #[inline(always)]
    fn int_slot<T: TryFrom<i64> + TryFrom<u64>>(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
    ) -> Option<T> {
        let (packed, v, w) = fast.then(|| m.values().slot_word(index)).flatten()?;
        match packed >> 2 {
            t if t == FlexType::Int as u8 => {
                let shift = crate::VectorReader::sign_shift(w);
                T::try_from(((v << shift) as i64) >> shift).ok()
            }
            t if t == FlexType::UInt as u8 => T::try_from(v).ok(),
            _ => None,
        }
    }

    macro_rules! int_slot {
        ($name:ident, $t:ty) => {
            #[doc = concat!("The `", stringify!($t), "` in slot `index` of a proven layout (see `int_slot`).")]
            #[inline(always)]
            pub fn $name(m: &MapReader<'_>, fast: bool, index: usize) -> Option<$t> {
                int_slot(m, fast, index)
            }
        };
    }
    int_slot!(i8_slot, i8);
    int_slot!(i16_slot, i16);
    int_slot!(i32_slot, i32);
    int_slot!(u8_slot, u8);
    int_slot!(u16_slot, u16);
    int_slot!(u32_slot, u32);
    int_slot!(u64_slot, u64);

    /// The `bool` in slot `index` of a proven layout, as [`i64_slot`] reads
    /// an integer; `None` sends the field to [`get_bool`].
    #[inline(always)]
    pub fn bool_slot(m: &MapReader<'_>, fast: bool, index: usize) -> Option<bool> {
        let (packed, v, _) = fast.then(|| m.values().slot_word(index)).flatten()?;
        (packed >> 2 == FlexType::Bool as u8).then_some(v != 0)
    }

    /// The string in slot `index` of a proven layout, charged to the
    /// budget, when the slot holds a string that can be read (in bounds,
    /// UTF-8) and the budget allows it; `None` for anything else, which
    /// [`get_str`] then reads (or refuses) with its checks and errors. A
    /// refused charge leaves the budget as it was, so `get_str` meets the
    /// same refusal. Out of line (its UTF-8 check would grow every
    /// decoder of many string fields), but cheaper to call than `get_str`:
    /// its answer comes back in registers.
    #[inline(never)]
    pub fn str_slot<'a>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        cx: &mut DecodeContext,
    ) -> Option<&'a str> {
        if !fast {
            return None;
        }
        let s = m.values().str_in_bounds(index)?;
        cx.budget.bytes(s.len()).ok()?;
        Some(s)
    }

    /// [`str_slot`], copied (what [`get_string`] reads when it can).
    #[inline(never)]
    pub fn string_slot(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
        cx: &mut DecodeContext,
    ) -> Option<String> {
        str_slot(m, fast, index, cx).map(str::to_owned)
    }

    /// An optional field's slot of a proven layout when it answers without
    /// a call: `Some(None)` for a null, `Some(Some(v))` for what `read`
    /// finds in it; `None` for anything else (a decoder's `get_opt` path).
    #[inline(always)]
    fn opt_slot<T>(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
        read: impl FnOnce() -> Option<T>,
    ) -> Option<Option<T>> {
        let (packed, _, _) = fast.then(|| m.values().slot(index)).flatten()?;
        if packed >> 2 == FlexType::Null as u8 {
            return Some(None);
        }
        read().map(Some)
    }

    /// An optional field of any type whose slot holds a null: `Some(None)`
    /// without a call; `None` sends the field to its `get_opt` reader.
    #[inline(always)]
    pub fn null_slot<T>(m: &MapReader<'_>, fast: bool, index: usize) -> Option<Option<T>> {
        opt_slot(m, fast, index, || None)
    }

    /// An optional `i64` field from its slot (see `opt_slot`, [`i64_slot`]).
    #[inline(always)]
    pub fn opt_i64_slot(m: &MapReader<'_>, fast: bool, index: usize) -> Option<Option<i64>> {
        opt_slot(m, fast, index, || i64_slot(m, fast, index))
    }

    /// An optional `f64` field from its slot (see `opt_slot`, [`f64_slot`]).
    #[inline(always)]
    pub fn opt_f64_slot(m: &MapReader<'_>, fast: bool, index: usize) -> Option<Option<f64>> {
        opt_slot(m, fast, index, || f64_slot(m, fast, index))
    }

    /// An optional `bool` field from its slot (see `opt_slot`, [`bool_slot`]).
    #[inline(always)]
    pub fn opt_bool_slot(m: &MapReader<'_>, fast: bool, index: usize) -> Option<Option<bool>> {
        opt_slot(m, fast, index, || bool_slot(m, fast, index))
    }

    /// An optional string field of a borrowed decode from its slot (see
    /// `opt_slot`, [`str_slot`]).
    #[inline(always)]
    pub fn opt_str_slot<'a>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        cx: &mut DecodeContext,
    ) -> Option<Option<&'a str>> {
        opt_slot(m, fast, index, || str_slot(m, fast, index, cx))
    }

    /// An optional string field from its slot, copied (see `opt_slot`,
    /// [`string_slot`]).
    #[inline(always)]
    pub fn opt_string_slot(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
        cx: &mut DecodeContext,
    ) -> Option<Option<String>> {
        opt_slot(m, fast, index, || string_slot(m, fast, index, cx))
    }

    /// An `i64` field (see `scalar`).
    #[inline(never)]
    pub fn get_i64(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
        key: &'static str,
    ) -> Result<Option<i64>> {
        scalar(
            m,
            fast,
            index,
            key,
            (FlexType::Int, 1),
            crate::reader::read_int,
            i64,
        )
    }

    /// An `f64` field (see `scalar`).
    #[inline(never)]
    pub fn get_f64(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
        key: &'static str,
    ) -> Result<Option<f64>> {
        scalar(
            m,
            fast,
            index,
            key,
            (FlexType::Float, 4),
            crate::reader::read_float,
            f64,
        )
    }

    /// A `bool` field (see `scalar`).
    #[inline(never)]
    pub fn get_bool(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
        key: &'static str,
    ) -> Result<Option<bool>> {
        let read = |b: &[u8], at, w| crate::reader::read_uint(b, at, w).map(|v| v != 0);
        scalar(m, fast, index, key, (FlexType::Bool, 1), read, bool)
    }

    /// A string field of a borrowed decode, as [`get_cx`] with
    /// [`str_charged`] reads it, straight from its slot when the layout is
    /// proven and it holds a string.
    #[inline(never)]
    pub fn get_str<'a>(
        m: &MapReader<'a>,
        fast: bool,
        index: usize,
        key: &'static str,
        cx: &mut DecodeContext,
    ) -> Result<Option<&'a str>> {
        if fast {
            let direct = m.values().string_at(index).and_then(|s| match s {
                Some(s) => cx.budget.bytes(s.len()).map(|()| Some(s)),
                None => Ok(None),
            });
            match direct {
                Ok(Some(s)) => return Ok(Some(s)),
                Ok(None) => {}
                Err(e) => return Err(at_key(key)(e)),
            }
        }
        get_cx(m, fast, index, key, cx, str_charged)
    }

    /// A string field, copied out of [`get_str`]'s (what [`get_cx`] with
    /// [`string`] reads).
    #[inline(never)]
    pub fn get_string(
        m: &MapReader<'_>,
        fast: bool,
        index: usize,
        key: &'static str,
        cx: &mut DecodeContext,
    ) -> Result<Option<String>> {
        Ok(get_str(m, fast, index, key, cx)?.map(str::to_owned))
    }

    /// A vector of any kind, but not a map (whose values would otherwise pass as one).
    pub(super) fn list<'a>(r: &Reader<'a>) -> Result<crate::VectorReader<'a>> {
        if r.flex_type() == FlexType::Map {
            return Err(Error::at(
                ErrorKind::TypeMismatch {
                    expected: "vector",
                    found: FlexType::Map,
                },
                r.offset(),
            ));
        }
        r.as_vector()
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn reject_null(r: &Reader<'_>) -> Result<()> {
        if r.is_null() {
            Err(unexpected_null(r))
        } else {
            Ok(())
        }
    }

    macro_rules! int_decoder {
        ($name:ident, $t:ty) => {
            #[doc = concat!("An integer field read as `", stringify!($t), "` (any stored width, range-checked).")]
            // Always inlined where optimised: a call per field cost more than
            // the read (the generated code is in another crate, where
            // `#[inline]` is a hint); a hint in debug builds, whose frames it
            // would grow.
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            pub fn $name(r: Reader<'_>) -> Result<$t> {
                reject_null(&r)?;
                let out = match r.flex_type() {
                    FlexType::UInt | FlexType::IndirectUInt => <$t>::try_from(r.as_u64()?).ok(),
                    _ => <$t>::try_from(r.as_i64()?).ok(),
                };
                out.ok_or_else(|| Error::at(ErrorKind::OutOfRange, r.offset()))
            }
        };
    }
    int_decoder!(i8, i8);
    int_decoder!(i16, i16);
    int_decoder!(i32, i32);
    int_decoder!(i64, i64);
    int_decoder!(u8, u8);
    int_decoder!(u16, u16);
    int_decoder!(u32, u32);
    int_decoder!(u64, u64);

    /// A boolean field.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn bool(r: Reader<'_>) -> Result<bool> {
        reject_null(&r)?;
        r.as_bool()
    }

    /// An `f64` field (integers are accepted and converted).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn f64(r: Reader<'_>) -> Result<f64> {
        reject_null(&r)?;
        r.as_f64()
    }

    /// An `f32` field.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn f32(r: Reader<'_>) -> Result<f32> {
        reject_null(&r)?;
        let f = r.as_f64()?;
        let narrow = f as f32;
        // Finite values beyond f32's range would silently become infinities.
        if f.is_finite() && !narrow.is_finite() {
            return Err(Error::at(ErrorKind::OutOfRange, r.offset()));
        }
        Ok(narrow)
    }

    /// A string field, copied out; its bytes are charged to the budget (one
    /// stored string may be referred to from many places).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn string(r: Reader<'_>, cx: &mut DecodeContext) -> Result<String> {
        str_charged(r, cx).map(str::to_owned)
    }

    /// A string field, borrowed from the buffer.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn str<'a>(r: Reader<'a>) -> Result<&'a str> {
        reject_null(&r)?;
        r.as_str()
    }

    /// A string field of a borrowed decode: borrowed from the buffer, and
    /// charged to the budget as [`string`] charges it.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn str_charged<'a>(r: Reader<'a>, cx: &mut DecodeContext) -> Result<&'a str> {
        let s = str(r)?;
        cx.budget.bytes(s.len())?;
        Ok(s)
    }

    /// A bytes field, copied out; its bytes are charged to the budget.
    #[inline]
    pub fn bytes(r: Reader<'_>, cx: &mut DecodeContext) -> Result<Vec<u8>> {
        blob(r, cx).map(<[u8]>::to_vec)
    }

    /// A bytes field, borrowed from the buffer; its bytes are charged to the
    /// budget as [`bytes`] charges them.
    #[inline]
    pub fn blob<'a>(r: Reader<'a>, cx: &mut DecodeContext) -> Result<&'a [u8]> {
        reject_null(&r)?;
        if r.flex_type() != FlexType::Blob {
            return Err(Error::at(
                ErrorKind::TypeMismatch {
                    expected: "blob",
                    found: r.flex_type(),
                },
                r.offset(),
            ));
        }
        let b = r.as_blob()?;
        cx.budget.bytes(b.len())?;
        Ok(b)
    }

    /// A vector field, decoding each element with `elem` (errors name the index).
    #[inline]
    pub fn vec<'a, T>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        mut elem: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<T>,
    ) -> Result<Vec<T>> {
        reject_null(&r)?;
        let v = list(&r)?;
        let mut out = Vec::with_capacity(v.len());
        for i in 0..v.len() {
            cx.charge()?;
            out.push(elem(v.get(i)?, cx).map_err(|e| e.in_segment(PathSegment::Index(i)))?);
        }
        Ok(out)
    }

    /// A `[string]` field: what [`vec`](fn@vec) gives with `elem` (a null check and
    /// [`string`]), with each string element of an untyped vector read in
    /// place ([`VectorReader::string_at`](crate::VectorReader::string_at):
    /// the same checks, errors and budget charges) and only any other
    /// element handed to `elem`.
    #[inline]
    pub fn strings<'a>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        elem: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<String>,
    ) -> Result<Vec<String>> {
        string_list(r, cx, str::to_owned, elem)
    }

    /// [`strings`] for a borrowed decode: each string borrowed from the
    /// buffer (charged to the budget as [`strings`] charges it).
    #[inline]
    pub fn strs<'a>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        elem: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<&'a str>,
    ) -> Result<Vec<&'a str>> {
        string_list(r, cx, |s| s, elem)
    }

    #[inline(always)]
    fn string_list<'a, T>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        make: impl Fn(&'a str) -> T,
        mut elem: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<T>,
    ) -> Result<Vec<T>> {
        reject_null(&r)?;
        let v = list(&r)?;
        let mut out = Vec::with_capacity(v.len());
        let mut i = 0;
        loop {
            // The run of strings that read cleanly, charged as below (a
            // node, then the string's bytes) in one loop.
            i = v.strings_from(i, |i, s| {
                cx.charge()?;
                cx.budget
                    .bytes(s.len())
                    .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
                out.push(make(s));
                Ok(())
            })?;
            if i >= v.len() {
                return Ok(out);
            }
            // Anything else: a string `string_at` must refuse, or another
            // type for `elem`.
            cx.charge()?;
            let item = match v.string_at(i) {
                Ok(Some(s)) => cx.budget.bytes(s.len()).map(|()| make(s)),
                Ok(None) => elem(v.get(i)?, cx),
                Err(e) => Err(e),
            };
            out.push(item.map_err(|e| e.in_segment(PathSegment::Index(i)))?);
            i += 1;
        }
    }

    /// A vector of scalars: one copy when stored as a typed vector of exactly
    /// `T`; one tight widening loop over a typed or fixed vector of other
    /// numbers (any width); otherwise element by element. Every path accepts
    /// and refuses exactly what `elem` does element by element: a value out
    /// of `T`'s range sends the whole vector to the element path, which names
    /// the offending index.
    #[inline]
    pub fn scalar_vec<T: Widen>(
        r: Reader<'_>,
        cx: &mut DecodeContext,
        elem: fn(Reader<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        if let Some(s) = r.typed_slice::<T>() {
            cx.budget.bytes(core::mem::size_of_val(s))?;
            return Ok(s.to_vec());
        }
        if r.flex_type().is_typed_vector() || r.flex_type().is_fixed_typed_vector() {
            let v = r.as_vector()?;
            cx.budget
                .bytes(v.len().saturating_mul(core::mem::size_of::<T>()))?;
            if let Some(out) = widen::<T>(&v) {
                for _ in 0..v.len() {
                    cx.charge()?;
                }
                return Ok(out);
            }
        }
        vec(r, cx, |e, _| elem(e))
    }

    /// A vector of scalars for a borrowed decode: the stored slice itself
    /// when it is a typed vector of exactly `T`, aligned for it; otherwise
    /// the copy [`scalar_vec`] makes. Accepts, refuses and charges exactly
    /// what `scalar_vec` does.
    #[inline]
    pub fn scalar_cow<'a, T: Widen>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        elem: fn(Reader<'_>) -> Result<T>,
    ) -> Result<std::borrow::Cow<'a, [T]>> {
        if let Some(s) = r.typed_slice::<T>() {
            cx.budget.bytes(core::mem::size_of_val(s))?;
            return Ok(std::borrow::Cow::Borrowed(s));
        }
        scalar_vec(r, cx, elem).map(std::borrow::Cow::Owned)
    }

    /// The numbers of typed vector `v` converted to `T` in one loop, or `None`
    /// when the element type is not a number or a value does not convert.
    fn widen<T: Widen>(v: &crate::VectorReader<'_>) -> Option<Vec<T>> {
        let w = v.element_width();
        let bytes = v
            .buffer()
            .get(v.data_offset()..v.data_offset() + v.len() * w)?;
        match (v.element_type()?, w) {
            (FlexType::Int, 1) => bytes.iter().map(|&b| T::from_int(b as i8 as i64)).collect(),
            (FlexType::Int, 2) => words::<2, T>(bytes, |u| T::from_int(u as u16 as i16 as i64)),
            (FlexType::Int, 4) => words::<4, T>(bytes, |u| T::from_int(u as u32 as i32 as i64)),
            (FlexType::Int, _) => words::<8, T>(bytes, |u| T::from_int(u as i64)),
            (FlexType::UInt, 1) => bytes.iter().map(|&b| T::from_uint(b as u64)).collect(),
            (FlexType::UInt, 2) => words::<2, T>(bytes, T::from_uint),
            (FlexType::UInt, 4) => words::<4, T>(bytes, T::from_uint),
            (FlexType::UInt, _) => words::<8, T>(bytes, T::from_uint),
            (FlexType::Float, 4) => {
                words::<4, T>(bytes, |u| T::from_float(f32::from_bits(u as u32) as f64))
            }
            (FlexType::Float, 8) => words::<8, T>(bytes, |u| T::from_float(f64::from_bits(u))),
            _ => None,
        }
    }

    /// `bytes` read as little-endian `W`-byte words, each converted by `f`.
    #[inline(always)]
    fn words<const W: usize, T>(bytes: &[u8], f: impl Fn(u64) -> Option<T>) -> Option<Vec<T>> {
        bytes
            .chunks_exact(W)
            .map(|c| {
                let mut word = [0u8; 8];
                word[..W].copy_from_slice(c);
                f(u64::from_le_bytes(word))
            })
            .collect()
    }

    /// Conversion of stored numbers to a scalar field type, with the same
    /// rules as the element decoders ([`i64()`], [`f32()`], ...): integers by
    /// range, floats never to integers, `f32` refusing finite values beyond
    /// its range.
    pub trait Widen: crate::SliceElement {
        /// From a stored signed integer.
        fn from_int(v: i64) -> Option<Self>;
        /// From a stored unsigned integer.
        fn from_uint(v: u64) -> Option<Self>;
        /// From a stored float.
        fn from_float(v: f64) -> Option<Self>;
    }

    macro_rules! widen_int {
        ($($t:ty),*) => {$(
            impl Widen for $t {
                #[inline(always)]
                fn from_int(v: i64) -> Option<Self> { <$t>::try_from(v).ok() }
                #[inline(always)]
                fn from_uint(v: u64) -> Option<Self> { <$t>::try_from(v).ok() }
                #[inline(always)]
                fn from_float(_: f64) -> Option<Self> { None }
            }
        )*};
    }
    widen_int!(i8, i16, i32, i64, u8, u16, u32, u64);

    impl Widen for f64 {
        #[inline(always)]
        fn from_int(v: i64) -> Option<Self> {
            Some(v as f64)
        }
        #[inline(always)]
        fn from_uint(v: u64) -> Option<Self> {
            Some(v as f64)
        }
        #[inline(always)]
        fn from_float(v: f64) -> Option<Self> {
            Some(v)
        }
    }

    impl Widen for f32 {
        #[inline(always)]
        fn from_int(v: i64) -> Option<Self> {
            Some(v as f64 as f32)
        }
        #[inline(always)]
        fn from_uint(v: u64) -> Option<Self> {
            Some(v as f64 as f32)
        }
        #[inline(always)]
        fn from_float(v: f64) -> Option<Self> {
            let narrow = v as f32;
            (!v.is_finite() || narrow.is_finite()).then_some(narrow)
        }
    }

    /// A `[T; N]` field (a fixed-length array in the schema): any vector of
    /// `N` elements, each read with `elem` (errors name the index). Another
    /// length is an [`ErrorKind::ArrayLength`] error, reported after the
    /// elements' own errors, as every SDK's decoder does.
    #[inline]
    pub fn array<T: Copy + Default, const N: usize>(
        r: Reader<'_>,
        cx: &mut DecodeContext,
        elem: fn(Reader<'_>) -> Result<T>,
    ) -> Result<[T; N]> {
        reject_null(&r)?;
        let v = list(&r)?;
        let mut out = [T::default(); N];
        for i in 0..v.len() {
            cx.charge()?;
            let e = elem(v.get(i)?).map_err(|e| e.in_segment(PathSegment::Index(i)))?;
            if let Some(slot) = out.get_mut(i) {
                *slot = e;
            }
        }
        if v.len() != N {
            return Err(Error::at(
                ErrorKind::ArrayLength {
                    expected: N,
                    found: v.len(),
                },
                r.offset(),
            ));
        }
        Ok(out)
    }

    /// A `[T; N]` field of numbers: one copy when stored as a typed vector of
    /// exactly `N` elements of `T`, otherwise read as [`scalar_vec`] reads a
    /// vector (any width, element errors by index), then length-checked.
    #[inline]
    pub fn scalar_array<T: Widen + Default, const N: usize>(
        r: Reader<'_>,
        cx: &mut DecodeContext,
        elem: fn(Reader<'_>) -> Result<T>,
    ) -> Result<[T; N]> {
        if let Some(s) = r.typed_slice::<T>() {
            if let Ok(a) = <[T; N]>::try_from(s) {
                cx.budget.bytes(core::mem::size_of_val(s))?;
                return Ok(a);
            }
        }
        let at = r.offset();
        let v = scalar_vec(r, cx, elem)?;
        let found = v.len();
        <[T; N]>::try_from(v)
            .map_err(|_| Error::at(ErrorKind::ArrayLength { expected: N, found }, at))
    }

    /// A `{string: T}` field.
    #[inline]
    pub fn map<'a, T>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        value: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<T>,
    ) -> Result<std::collections::BTreeMap<String, T>> {
        map_keyed(r, cx, str::to_owned, |_, _, _| None, value)
    }

    /// A `{string: string}` field: what [`map`] gives with `value` (a null
    /// check and [`string`]), with each string value of an untyped values
    /// vector read in place (the same checks, errors and budget charges)
    /// and only any other value handed to `value`.
    #[inline]
    pub fn string_map<'a>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        value: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<String>,
    ) -> Result<std::collections::BTreeMap<String, String>> {
        map_keyed(r, cx, str::to_owned, str_value(str::to_owned), value)
    }

    /// [`string_map`] for a borrowed decode: keys and values borrowed from
    /// the buffer (charged to the budget as `string_map` charges them).
    #[inline]
    pub fn str_map<'a>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        value: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<&'a str>,
    ) -> Result<std::collections::BTreeMap<&'a str, &'a str>> {
        map_keyed(r, cx, |k| k, str_value(|s| s), value)
    }

    /// The in-place read of a string map's value `i` for [`map_keyed`]:
    /// `None` unless it is a string that reads cleanly, and then its bytes
    /// charged to the budget as [`str_charged`] charges them.
    #[inline(always)]
    fn str_value<'a, T>(
        make: impl Fn(&'a str) -> T,
    ) -> impl Fn(&MapReader<'a>, usize, &mut DecodeContext) -> Option<Result<T>> {
        #[inline(always)]
        move |m, i, cx| {
            let s = m.values().str_in_bounds(i)?;
            Some(cx.budget.bytes(s.len()).map(|()| make(s)))
        }
    }

    /// A `{string: T}` field of a borrowed decode: keys borrowed from the
    /// buffer (charged to the budget as [`map`] charges them).
    #[inline]
    pub fn map_borrowed<'a, T>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        value: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<T>,
    ) -> Result<std::collections::BTreeMap<&'a str, T>> {
        map_keyed(r, cx, |k| k, |_, _, _| None, value)
    }

    /// Key `i` of `m` as [`MapReader::key`] reads it, with keys that are
    /// not ASCII checked through the context's memo of short keys (the same
    /// few keys come back map after map).
    #[inline]
    fn map_key<'a>(m: &MapReader<'a>, i: usize, cx: &mut DecodeContext) -> Result<&'a str> {
        if let Some((key, tail, known)) = m.key_parts(i) {
            if known || cx.keys.valid(key, tail) {
                // SAFETY: ASCII, in a verified buffer, or just found (or
                // remembered by its bytes) to be UTF-8.
                return Ok(unsafe { core::str::from_utf8_unchecked(key) });
            }
        }
        m.key(i)
    }

    /// A `{string: T}` map with keys made by `key`, each value read by
    /// `fast` when it answers (`Some`) and by `value` otherwise.
    #[inline]
    fn map_keyed<'a, K: Ord, T>(
        r: Reader<'a>,
        cx: &mut DecodeContext,
        key: impl Fn(&'a str) -> K,
        fast: impl Fn(&MapReader<'a>, usize, &mut DecodeContext) -> Option<Result<T>>,
        mut value: impl FnMut(Reader<'a>, &mut DecodeContext) -> Result<T>,
    ) -> Result<std::collections::BTreeMap<K, T>> {
        reject_null(&r)?;
        let m = r.as_map()?;
        m.check_lengths()?;
        let mut entry = |i: usize, cx: &mut DecodeContext| -> Result<(K, T)> {
            cx.charge()?;
            let k = map_key(&m, i, cx)?;
            cx.budget.bytes(k.len())?;
            let v = match fast(&m, i, cx) {
                Some(v) => v,
                None => value(m.value(i)?, cx),
            };
            Ok((key(k), v.map_err(|e| e.in_segment(PathSegment::Key(k)))?))
        };
        if m.len() <= 8 {
            let mut out = std::collections::BTreeMap::new();
            for i in 0..m.len() {
                let (k, v) = entry(i, cx)?;
                out.insert(k, v);
            }
            return Ok(out);
        }
        // Keys arrive sorted (always, in a buffer the verifier accepts), so a
        // larger map is built in bulk from the sorted run rather than by inserts.
        let mut entries = Vec::with_capacity(m.len());
        for i in 0..m.len() {
            entries.push(entry(i, cx)?);
        }
        Ok(entries.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::BitWidth;

    use crate::shared_keys::{byte_variants, shared_keys_lists};

    #[test]
    fn layout_is_proven_once_and_mismatches_are_not_positional() {
        let mut b = Builder::with_options(typed_builder_options());
        b.start_vector();
        for keys in [&["street", "zip"][..], &["street", "zip"], &["city", "zip"]] {
            b.start_map();
            for k in keys {
                b.key(k);
                b.string(k);
            }
            b.end_map().unwrap();
        }
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = verify(&bytes).unwrap().root();
        let mut cx = DecodeContext::new(bytes.len());
        let expected = ["street", "zip"];
        let m0 = root.index(0).unwrap().as_map().unwrap();
        let m1 = root.index(1).unwrap().as_map().unwrap();
        let m2 = root.index(2).unwrap().as_map().unwrap();
        // Keys written through the pool (not as one block) are proven key by key.
        let layout = RuntimeLayout::new(&expected).unwrap();
        assert!(layout.proves(&m0) && layout.proves(&m1) && !layout.proves(&m2));
        assert!(cx.layout_matches(1, &m0, &expected).unwrap());
        assert_eq!(m0.keys_offset(), m1.keys_offset());
        assert!(cx.layout_matches(1, &m1, &expected).unwrap());
        assert!(!cx.layout_matches(1, &m2, &expected).unwrap());
        // Keyed lookup on the mismatching map never returns the neighbour.
        let street = lookup(&m2, false, 0, "street").unwrap();
        assert!(street.is_none());
        assert_eq!(
            lookup(&m2, false, 1, "zip")
                .unwrap()
                .unwrap()
                .as_str()
                .unwrap(),
            "zip"
        );
    }

    /// A context kept across buffers copies the keys vectors it wrote
    /// before; the bytes are those a fresh context writes, whatever the
    /// position of the keys (every phase modulo 8, widths 1 to 4 bytes), the
    /// builder's minimum width, and static or run-time layouts.
    #[test]
    fn slot_reads_agree_with_the_field_readers_on_every_kind_and_mutation() {
        // One map holding each kind of value a field can meet, at 1- and
        // 8-byte slots; then every byte of it changed to several values.
        let build = |wide: bool| {
            let mut b = Builder::new();
            if wide {
                b.force_min_width(BitWidth::W64);
            }
            b.start_map();
            let mut n = 0;
            let mut key = |b: &mut Builder| {
                b.key(&format!("k{n:02}"));
                n += 1;
            };
            key(&mut b);
            b.int(-5);
            key(&mut b);
            b.int(i64::MIN);
            key(&mut b);
            b.uint(u64::MAX);
            key(&mut b);
            b.float(1.5);
            key(&mut b);
            b.double(0.1);
            key(&mut b);
            b.bool(true);
            key(&mut b);
            b.null();
            key(&mut b);
            b.string("plain");
            key(&mut b);
            b.string("ünïcödé and more than sixteen bytes");
            key(&mut b);
            // A length of two bytes.
            b.string(&"long string ".repeat(25));
            key(&mut b);
            b.blob(b"\xff\xfe");
            key(&mut b);
            b.indirect_int(7);
            key(&mut b);
            b.typed_vector(&[1i32, 2]);
            // Integers on either side of the narrower types' limits, and a
            // double beyond `f32`'s range.
            for v in [200, -129, 70_000, 1 << 40] {
                key(&mut b);
                b.int(v);
            }
            for v in [255, 65_535, u64::from(u32::MAX) + 1] {
                key(&mut b);
                b.uint(v);
            }
            key(&mut b);
            b.double(1e300);
            b.end_map().unwrap();
            b.finish_vec().unwrap()
        };
        let mut checked = 0;
        for bytes in [build(false), build(true)] {
            let values = [0u8, 1, 0x0c, 0x14, 0x20, 0x68, 0x7f, 0x80, 0xc3, 0xff];
            for buf in &byte_variants(&bytes, &values) {
                let Ok(m) = Reader::new(buf).and_then(|r| r.as_map()) else {
                    continue;
                };
                let mut cx = DecodeContext::new(buf.len());
                for i in 0..m.len() + 1 {
                    if let Some(v) = field::i64_slot(&m, true, i) {
                        assert_eq!(field::get_i64(&m, true, i, "k"), Ok(Some(v)), "{buf:?}");
                        checked += 1;
                    }
                    if let Some(v) = field::f64_slot(&m, true, i) {
                        let got = field::get_f64(&m, true, i, "k").unwrap().unwrap();
                        assert_eq!(got.to_bits(), v.to_bits(), "{buf:?}");
                        checked += 1;
                    }
                    if let Some(v) = field::bool_slot(&m, true, i) {
                        assert_eq!(field::get_bool(&m, true, i, "k"), Ok(Some(v)), "{buf:?}");
                        checked += 1;
                    }
                    if let Some(v) = field::f32_slot(&m, true, i) {
                        let got = field::get(&m, true, i, "k", field::f32).unwrap().unwrap();
                        assert_eq!(got.to_bits(), v.to_bits(), "{buf:?}");
                        checked += 1;
                    }
                    // Each narrower integer: a value from the slot is what
                    // `get` with the type's decoder reads.
                    macro_rules! agree {
                        ($slot:ident, $dec:ident) => {
                            if let Some(v) = field::$slot(&m, true, i) {
                                assert_eq!(field::get(&m, true, i, "k", field::$dec), Ok(Some(v)));
                                checked += 1;
                            }
                            assert_eq!(field::$slot(&m, false, i), None);
                        };
                    }
                    agree!(i8_slot, i8);
                    agree!(i16_slot, i16);
                    agree!(i32_slot, i32);
                    agree!(u8_slot, u8);
                    agree!(u16_slot, u16);
                    agree!(u32_slot, u32);
                    agree!(u64_slot, u64);
                    if let Some(v) = field::str_slot(&m, true, i, &mut cx) {
                        let mut fresh = DecodeContext::new(buf.len());
                        assert_eq!(field::get_str(&m, true, i, "k", &mut fresh), Ok(Some(v)));
                        checked += 1;
                    }
                    if let Some(v) = field::string_slot(&m, true, i, &mut cx) {
                        let mut fresh = DecodeContext::new(buf.len());
                        assert_eq!(field::get_string(&m, true, i, "k", &mut fresh), Ok(Some(v)));
                    }
                    // Optional fields: a null or a value from the slot is
                    // what `get_opt` reads.
                    let fresh = || DecodeContext::new(buf.len());
                    if let Some(v) = field::opt_i64_slot(&m, true, i) {
                        assert_eq!(field::get_opt(&m, true, i, "k", field::i64), Ok(Some(v)));
                        checked += 1;
                    }
                    if let Some(v) = field::opt_f64_slot(&m, true, i) {
                        let got = field::get_opt(&m, true, i, "k", field::f64)
                            .unwrap()
                            .unwrap();
                        assert_eq!(got.map(f64::to_bits), v.map(f64::to_bits), "{buf:?}");
                    }
                    if let Some(v) = field::opt_bool_slot(&m, true, i) {
                        assert_eq!(field::get_opt(&m, true, i, "k", field::bool), Ok(Some(v)));
                    }
                    if let Some(v) = field::opt_str_slot(&m, true, i, &mut cx) {
                        let want =
                            field::get_opt_cx(&m, true, i, "k", &mut fresh(), field::str_charged);
                        assert_eq!(want, Ok(Some(v)), "{buf:?}");
                        checked += 1;
                    }
                    if let Some(v) = field::opt_string_slot(&m, true, i, &mut cx) {
                        let want = field::get_opt_cx(&m, true, i, "k", &mut fresh(), field::string);
                        assert_eq!(want, Ok(Some(v)), "{buf:?}");
                    }
                    if let Some(v) = field::null_slot::<Vec<i64>>(&m, true, i) {
                        let want = field::get_opt_cx(&m, true, i, "k", &mut fresh(), |r, cx| {
                            field::vec(r, cx, |e, _| field::i64(e))
                        });
                        assert_eq!(want, Ok(Some(v)), "{buf:?}");
                        checked += 1;
                    }
                    // Nothing is read by position from a layout not proven.
                    assert_eq!(field::i64_slot(&m, false, i), None);
                    assert_eq!(field::f64_slot(&m, false, i), None);
                    assert_eq!(field::bool_slot(&m, false, i), None);
                    assert_eq!(field::str_slot(&m, false, i, &mut cx), None);
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        // A length of four bytes, at both slot widths (not mutated: too long).
        for wide in [false, true] {
            let mut b = Builder::new();
            if wide {
                b.force_min_width(BitWidth::W64);
            }
            b.start_map();
            b.key("s");
            b.string(&"x".repeat(70_000));
            b.end_map().unwrap();
            let buf = b.finish_vec().unwrap();
            let m = Reader::new(&buf).unwrap().as_map().unwrap();
            let mut cx = DecodeContext::new(buf.len());
            let got = field::str_slot(&m, true, 0, &mut cx).map(str::len);
            assert_eq!(got, Some(70_000), "wide {wide}");
        }
    }

    #[test]
    fn a_refused_charge_sends_a_string_to_the_field_reader() {
        let mut b = Builder::new();
        b.start_map();
        b.key("s");
        b.string("twelve bytes");
        // Later entries, so the string's slot is not among the last 8
        // bytes (which slot readers leave to the field readers).
        for k in ["t", "u", "v", "w"] {
            b.key(k);
            b.int(1);
        }
        b.end_map().unwrap();
        let bytes = b.finish_vec().unwrap();
        let m = Reader::new(&bytes).unwrap().as_map().unwrap();
        let mut cx = DecodeContext::with_budget(Budget::new(100, 11));
        assert_eq!(field::str_slot(&m, true, 0, &mut cx), None);
        let err = field::get_str(&m, true, 0, "s", &mut cx).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::BudgetExceeded);
        let mut cx = DecodeContext::with_budget(Budget::new(100, 12));
        assert_eq!(field::str_slot(&m, true, 0, &mut cx), Some("twelve bytes"));
        assert_eq!(cx.budget.bytes_left(), 0);
    }

    #[test]
    fn a_new_context_remembers_no_layout_of_the_last_one() {
        // Two buffers of the same type whose keys vectors sit at the same
        // offset: the second's keys differ, so it must be proven on its own.
        const AB: Layout = Layout::new(&["a", "b"], b"a\0b\0");
        let build = |keys: [&str; 2]| {
            let mut b = Builder::with_options(typed_builder_options());
            b.start_map();
            for (i, k) in keys.iter().enumerate() {
                b.key(k);
                b.int(i as i64);
            }
            b.end_map().unwrap();
            b.finish_vec().unwrap()
        };
        let (good, other) = (build(["a", "b"]), build(["a", "c"]));
        let prove = |bytes: &[u8], cx: &mut DecodeContext| {
            let m = Reader::new(bytes).unwrap().as_map().unwrap();
            cx.layout_proven(7, &m, &AB).unwrap()
        };
        let offsets = |bytes: &[u8]| {
            let m = Reader::new(bytes).unwrap().as_map().unwrap();
            m.keys_offset()
        };
        assert_eq!(offsets(&good), offsets(&other));
        let mut first = DecodeContext::new(good.len());
        assert!(prove(&good, &mut first));
        assert!(prove(&good, &mut first), "remembered");
        drop(first);
        // The next context of this thread reuses the storage, emptied.
        let mut second = DecodeContext::new(other.len());
        assert!(second.layouts.is_empty() && second.layouts.capacity() > 0);
        assert!(!prove(&other, &mut second));
        // One made while `second` is alive starts from nothing of its own.
        let mut nested = DecodeContext::keyed_only(good.len());
        assert_eq!(nested.layouts.capacity(), 0);
        assert!(!prove(&good, &mut nested), "keyed only");
        let mut third = DecodeContext::new(good.len());
        assert!(prove(&good, &mut third));
    }

    #[test]
    fn kept_keys_vectors_write_what_fresh_ones_write() {
        const SHORT: Layout = Layout::new(&["a", "b", "c"], b"a\0b\0c\0");
        // 300 bytes of keys: their offsets need two bytes.
        const LONG_KEYS: [&str; 3] = [
            "k_0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
            "k_1111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111",
            "k_2222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222",
        ];
        const LONG_BLOCK: &[u8] = b"k_0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\0k_1111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111\0k_2222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222\0";
        const LONG: Layout = Layout::new(&LONG_KEYS, LONG_BLOCK);
        let runtime = RuntimeLayout::new(&["a", "b", "c"]).unwrap();
        let build = |cx: &mut EncodeContext, prefix: usize, min: BitWidth, which: u8| {
            let mut b = Builder::with_options(typed_builder_options());
            b.force_min_width(min);
            b.start_vector();
            b.string(&"p".repeat(prefix));
            for round in 0..2 {
                let kv = match which {
                    0 => cx.key_vector_for(&mut b, 1, &SHORT),
                    1 => cx.key_vector_for(&mut b, 2, &LONG),
                    _ => cx.key_vector_runtime(&mut b, 3, &runtime),
                }
                .unwrap();
                b.start_map();
                for i in 0..3 {
                    b.int(round * 10 + i);
                }
                b.end_map_with_keys(&kv).unwrap();
            }
            b.end_vector().unwrap();
            b.finish_vec().unwrap()
        };
        let mut kept = EncodeContext::default();
        for pass in 0..2 {
            for prefix in 0..20 {
                for min in [BitWidth::W8, BitWidth::W16, BitWidth::W32] {
                    for which in 0..3 {
                        kept.clear();
                        let again = build(&mut kept, prefix, min, which);
                        let fresh = build(&mut EncodeContext::default(), prefix, min, which);
                        assert_eq!(again, fresh, "pass {pass} prefix {prefix} {min:?} {which}");
                        let root = verify(&again).unwrap().root();
                        let m = root.index(1).unwrap().as_map().unwrap();
                        assert_eq!(m.len(), 3);
                    }
                }
            }
        }
        // Every phase, width and layout was kept, and the second pass used them.
        assert!(kept.tails.len() >= 3 * 3 * 8 / 2, "{}", kept.tails.len());
    }

    /// Keys vectors found by type slot are those found by id: the same
    /// bytes, buffer after buffer (from kept tails, at every phase), with a
    /// type whose keys equal another's sharing its keys vector, and with the
    /// two lookups mixed in one buffer.
    #[test]
    fn slots_find_the_keys_vectors_ids_find() {
        const A: Layout = Layout::new(&["a", "b", "c"], b"a\0b\0c\0");
        const B: Layout = Layout::new(&["x", "y"], b"x\0y\0");
        // The keys of A again, as a second type with the same wire names.
        const A2: Layout = Layout::new(&["a", "b", "c"], b"a\0b\0c\0");
        static SLOTS: [TypeSlot; 3] = [TypeSlot::new(), TypeSlot::new(), TypeSlot::new()];
        let layouts = [(&A, 11), (&B, 12), (&A2, 13)];
        // `order` lists (type, by slot) pairs: each type's map is written
        // after its keys vector is asked for.
        let build = |cx: &mut EncodeContext, prefix: usize, order: &[(usize, bool)]| {
            let mut b = Builder::with_options(typed_builder_options());
            b.start_vector();
            b.string(&"p".repeat(prefix));
            for &(t, by_slot) in order {
                let (layout, id) = layouts[t];
                let kv = if by_slot {
                    cx.key_vector_at(&mut b, &SLOTS[t], id, layout)
                } else {
                    cx.key_vector_for(&mut b, id, layout)
                }
                .unwrap();
                b.start_map();
                for i in 0..kv.len() {
                    b.int(i as i64 + prefix as i64);
                }
                b.end_map_with_keys(&kv).unwrap();
            }
            b.end_vector().unwrap();
            b.finish_vec().unwrap()
        };
        let orders: [&[(usize, bool)]; 5] = [
            &[(0, true), (1, true), (0, true), (2, true), (1, true)],
            &[(0, false), (0, true), (2, true), (1, false), (1, true)],
            &[(2, true), (0, true), (1, true), (1, true)],
            &[(1, true), (2, false), (0, true)],
            // A type asked for by slot, then by id (found by its bytes).
            &[(0, true), (0, false), (1, true), (1, false), (2, false)],
        ];
        let mut kept = EncodeContext::default();
        for pass in 0..3 {
            for prefix in 0..12 {
                for order in orders {
                    kept.clear();
                    let by_slots = build(&mut kept, prefix, order);
                    let by_ids: Vec<(usize, bool)> =
                        order.iter().map(|&(t, _)| (t, false)).collect();
                    let fresh = build(&mut EncodeContext::default(), prefix, &by_ids);
                    assert_eq!(by_slots, fresh, "pass {pass}, prefix {prefix}, {order:?}");
                    verify(&by_slots).unwrap();
                }
            }
        }
        assert_ne!(SLOTS[0].index(), SLOTS[1].index());
        assert_ne!(SLOTS[1].index(), SLOTS[2].index());
    }

    /// A keys vector from a cleared builder is never reused (found by slot
    /// or by id): the builder's next buffer writes its own, even when the
    /// context was not cleared.
    #[test]
    fn a_slot_forgets_keys_vectors_of_a_cleared_builder() {
        const A: Layout = Layout::new(&["a"], b"a\0");
        static SLOT: TypeSlot = TypeSlot::new();
        let mut cx = EncodeContext::default();
        let mut b = Builder::with_options(typed_builder_options());
        let first = cx.key_vector_at(&mut b, &SLOT, 1, &A).unwrap();
        b.clear();
        // The context is not cleared: only the builder's generation differs.
        let second = cx.key_vector_at(&mut b, &SLOT, 1, &A).unwrap();
        assert_ne!(first, second);
        b.start_map();
        b.int(5);
        b.end_map_with_keys(&second).unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = verify(&bytes).unwrap().root();
        assert_eq!(root.get("a").unwrap().as_i64().unwrap(), 5);
        // Looked up by id, likewise.
        b.clear();
        let by_id = cx.key_vector_for(&mut b, 1, &A).unwrap();
        b.clear();
        let again = cx.key_vector_for(&mut b, 1, &A).unwrap();
        assert_ne!(by_id, again);
        b.start_map();
        b.int(6);
        b.end_map_with_keys(&again).unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = verify(&bytes).unwrap().root();
        assert_eq!(root.get("a").unwrap().as_i64().unwrap(), 6);
    }

    /// Slots numbered from several threads at once get distinct numbers.
    #[test]
    fn slots_numbered_at_once_get_distinct_numbers() {
        static MANY: [TypeSlot; 16] = [const { TypeSlot::new() }; 16];
        let seen: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| MANY.iter().map(TypeSlot::index).collect::<Vec<_>>()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for other in &seen[1..] {
            assert_eq!(other, &seen[0], "every thread sees each slot's one number");
        }
        let mut numbers = seen[0].clone();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), 16);
    }

    /// The proof from precomputed key starts (what generated code uses), the
    /// proof from key lengths and a key-by-key comparison accept exactly the
    /// same maps: on keys vectors of 1-, 2- and 4-byte offsets, each of
    /// whose bytes (and the size and block before it) is changed in turn.
    #[test]
    fn proofs_from_starts_and_from_lengths_agree_on_mutations() {
        const KEYS: [&str; 3] = ["a", "bb", "ccc"];
        const BLOCK: &[u8] = b"a\0bb\0ccc\0";
        const BY_LENGTH: Layout = Layout::new(&KEYS, BLOCK);
        const BY_START: Layout = Layout::with_starts(&KEYS, BLOCK, &[0, 2, 5]);
        let runtime = RuntimeLayout::new(&KEYS).unwrap();
        let mut checked = 0;
        for (prefix, min) in [(0, BitWidth::W8), (300, BitWidth::W8), (0, BitWidth::W32)] {
            let mut cx = EncodeContext::default();
            let mut b = Builder::with_options(typed_builder_options());
            b.force_min_width(min);
            b.start_vector();
            b.string(&"p".repeat(prefix));
            let kv = cx.key_vector_for(&mut b, 1, &BY_START).unwrap();
            b.start_map();
            for i in 0..3 {
                b.int(i);
            }
            b.end_map_with_keys(&kv).unwrap();
            b.end_vector().unwrap();
            let bytes = b.finish_vec().unwrap();
            let m = verify(&bytes)
                .unwrap()
                .root()
                .index(1)
                .unwrap()
                .as_map()
                .unwrap();
            assert!(BY_START.proves(&m) && BY_LENGTH.proves(&m) && runtime.proves(&m));
            let (data, w) = (m.keys().data_offset(), m.keys().element_width());
            let from = data - w - BLOCK.len() - 1;
            for at in from..data + 3 * w {
                for delta in [1u8, 2, 3, 0x80, 0xff] {
                    let mut bad = bytes.clone();
                    bad[at] = bad[at].wrapping_add(delta);
                    // The same map read from the changed bytes (unverified).
                    let Ok(m) = Reader::new(&bad)
                        .and_then(|r| r.index(1))
                        .and_then(|r| r.as_map())
                    else {
                        continue;
                    };
                    let kv = m.keys();
                    let by_key = kv.len() == 3
                        && KEYS
                            .iter()
                            .enumerate()
                            .all(|(i, k)| key_is(&kv, i, k.as_bytes()));
                    assert_eq!(
                        BY_START.proves(&m),
                        by_key,
                        "byte {at} + {delta}, {prefix} {min:?}"
                    );
                    assert_eq!(BY_LENGTH.proves(&m), by_key, "byte {at} + {delta}");
                    assert_eq!(runtime.proves(&m), by_key, "byte {at} + {delta}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn runtime_layouts_write_what_static_layouts_write() {
        const A: Layout = Layout::new(&["id", "name"], b"id\0name\0");
        const B: Layout = Layout::new(&["x"], b"x\0");
        let ra = RuntimeLayout::new(&["id", "name"]).unwrap();
        let rb = RuntimeLayout::new(&["x"]).unwrap();
        // Types 1 and 3 share keys, so they share one keys vector.
        let order = [(1, 'a'), (2, 'b'), (3, 'a'), (1, 'a'), (2, 'b')];
        let build = |runtime: bool, cx: &mut EncodeContext| {
            let mut b = Builder::with_options(typed_builder_options());
            b.start_vector();
            b.string("a prefix that moves the keys");
            for (id, which) in order {
                let kv = match (runtime, which) {
                    (true, 'a') => cx.key_vector_runtime(&mut b, id, &ra),
                    (true, _) => cx.key_vector_runtime(&mut b, id, &rb),
                    (false, 'a') => cx.key_vector_for(&mut b, id, &A),
                    (false, _) => cx.key_vector_for(&mut b, id, &B),
                }
                .unwrap();
                b.start_map();
                for i in 0..if which == 'a' { 2 } else { 1 } {
                    b.int(id as i64 * 10 + i);
                }
                b.end_map_with_keys(&kv).unwrap();
            }
            b.end_vector().unwrap();
            b.finish_vec().unwrap()
        };
        let mut cx = EncodeContext::default();
        let fixed = build(false, &mut cx);
        cx.clear();
        let runtime = build(true, &mut cx);
        assert_eq!(fixed, runtime);
        // A context reused after `clear` writes the keys again.
        cx.clear();
        assert_eq!(build(true, &mut cx), fixed);
        let root = verify(&fixed).unwrap().root();
        let m = root.index(3).unwrap().as_map().unwrap();
        assert_eq!(m.get("name").unwrap().as_i64().unwrap(), 31);
        // Both layouts prove the same maps: their own keys vectors, and no other.
        for i in 1..=5 {
            let m = root.index(i).unwrap().as_map().unwrap();
            assert_eq!(ra.proves(&m), A.proves(&m), "map {i}");
            assert_eq!(rb.proves(&m), B.proves(&m), "map {i}");
            assert_ne!(ra.proves(&m), rb.proves(&m), "map {i}");
        }
        assert_eq!(
            m.keys_offset(),
            root.index(1).unwrap().as_map().unwrap().keys_offset()
        );
    }

    #[test]
    fn runtime_layouts_refuse_bad_keys() {
        let kind = |keys: &[&str]| RuntimeLayout::new(keys).unwrap_err().kind().clone();
        assert_eq!(
            kind(&["a", "a"]),
            ErrorKind::Builder(BuilderError::DuplicateKey("a".into()))
        );
        assert_eq!(
            kind(&["b", "a"]),
            ErrorKind::Builder(BuilderError::MapEntryNotKey(0))
        );
        assert_eq!(kind(&["a\0b"]), ErrorKind::Builder(BuilderError::NulInKey));
        assert_eq!(RuntimeLayout::new::<&str>(&[]).unwrap().block(), b"");
        let l = RuntimeLayout::new(&["ab", "c"]).unwrap();
        assert_eq!((l.block(), l.key_lens()), (&b"ab\0c\0"[..], &[2, 1][..]));
    }

    #[test]
    fn integer_fields_widen_and_range_check() {
        let mut b = Builder::new();
        b.start_vector();
        b.int(-5);
        b.uint(300);
        b.null();
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        let v = verify(&bytes).unwrap().root().as_vector().unwrap();
        assert_eq!(field::i64(v.get(0).unwrap()).unwrap(), -5);
        assert_eq!(field::u16(v.get(1).unwrap()).unwrap(), 300);
        assert_eq!(
            field::u8(v.get(1).unwrap()).unwrap_err().kind(),
            &ErrorKind::OutOfRange
        );
        assert_eq!(
            field::u32(v.get(0).unwrap()).unwrap_err().kind(),
            &ErrorKind::OutOfRange
        );
        assert!(matches!(
            field::i32(v.get(2).unwrap()).unwrap_err().kind(),
            ErrorKind::UnexpectedNull
        ));
    }
    /// The string items the in-place tests read, as a list (`map` false)
    /// or as the values of a map: short, non-ASCII, empty, long and
    /// one-byte strings, with a null and an integer among them when `mixed`,
    /// in 4-byte slots when `wide`.
    fn string_items(map: bool, wide: bool, mixed: bool) -> Vec<u8> {
        /// One item of the list or map.
        enum Item<'s> {
            Str(&'s str),
            Null,
            Int,
            /// A key element: a string to `as_str`, read by the element path.
            Key,
        }
        let mut b = Builder::new();
        if wide {
            b.force_min_width(BitWidth::W32);
        }
        let long = "long string ".repeat(25);
        let mut items = vec![
            Item::Str("plain"),
            Item::Str("ünïcödé and more than sixteen bytes"),
            Item::Str(""),
        ];
        if mixed {
            items.extend([Item::Null, Item::Int]);
            if !map {
                items.push(Item::Key);
            }
        }
        items.extend([Item::Str(&long), Item::Str("z")]);
        if map {
            b.start_map();
        } else {
            b.start_vector();
        }
        for (i, item) in items.iter().enumerate() {
            if map {
                b.key(&format!("k{i}"));
            }
            match item {
                Item::Str(s) => b.string(s),
                Item::Null => b.null(),
                Item::Int => b.int(3),
                Item::Key => b.key("k"),
            }
        }
        if map {
            b.end_map().unwrap();
        } else {
            b.end_vector().unwrap();
        }
        b.finish_vec().unwrap()
    }

    /// The owned decoder generated code passes for a string element.
    fn owned_string(e: Reader<'_>, cx: &mut DecodeContext) -> Result<String> {
        if e.is_null() {
            return Err(unexpected_null(&e));
        }
        field::string(e, cx)
    }

    /// The borrowed decoder generated code passes for a string element.
    fn borrowed_str<'a>(e: Reader<'a>, cx: &mut DecodeContext) -> Result<&'a str> {
        if e.is_null() {
            return Err(unexpected_null(&e));
        }
        field::str_charged(e, cx)
    }

    /// Runs `compare` on every byte of the four [`string_items`] buffers of
    /// one shape (narrow or wide, mixed or not) set to ten values, under
    /// four budgets (none, few nodes, few bytes, very few bytes), with a
    /// fresh context per side; `compare` returns whether the decode
    /// succeeded, and enough of them must.
    fn agree_under_mutations(
        map: bool,
        mut compare: impl FnMut(&[u8], Reader<'_>, &dyn Fn() -> DecodeContext) -> bool,
    ) {
        let mut compared = 0;
        for bytes in [false, true]
            .map(|w| [string_items(map, w, false), string_items(map, w, true)])
            .concat()
        {
            let values = [0u8, 1, 0x05, 0x14, 0x15, 0x20, 0x7f, 0x80, 0xc3, 0xff];
            for buf in &byte_variants(&bytes, &values) {
                let Ok(r) = Reader::new(buf) else { continue };
                for (nodes, bytes) in [(u64::MAX, u64::MAX), (4, u64::MAX), (9, 40), (9, 5)] {
                    let cx = || DecodeContext::with_budget(Budget::new(nodes, bytes));
                    compared += compare(buf, r, &cx) as usize;
                }
            }
        }
        assert!(compared > 100, "{compared}");
    }

    /// The same budget left in two contexts.
    fn same_budget(a: &DecodeContext, b: &DecodeContext) {
        assert_eq!(a.budget.bytes_left(), b.budget.bytes_left());
        assert_eq!(a.budget.nodes_left(), b.budget.nodes_left());
    }

    /// `strings` and `strs` (string elements read in place) give what
    /// `vec` gives with the element decoders the generated code passes:
    /// the same values, the same error (kind, offset and index) and the
    /// same budget left, on every byte of four lists changed to several
    /// values and under budgets that run out part way.
    #[test]
    fn string_lists_read_in_place_agree_with_the_element_path() {
        agree_under_mutations(false, |buf, r, cx| {
            let (mut a, mut b) = (cx(), cx());
            let direct = field::strings(r, &mut a, owned_string);
            assert_eq!(direct, field::vec(r, &mut b, owned_string), "{buf:?}");
            same_budget(&a, &b);
            let (mut a, mut b) = (cx(), cx());
            let direct = field::strs(r, &mut a, borrowed_str);
            assert_eq!(direct, field::vec(r, &mut b, borrowed_str), "{buf:?}");
            same_budget(&a, &b);
            direct.is_ok()
        });
    }

    /// `string_map` and `str_map` (values read in place) give what `map`
    /// and `map_borrowed` give with the value decoders: the same maps,
    /// errors (kind, offset, key) and budget left, on every byte of four
    /// maps set to ten values, under four budgets.
    #[test]
    fn string_maps_read_in_place_agree_with_the_value_path() {
        agree_under_mutations(true, |buf, r, cx| {
            let (mut a, mut b) = (cx(), cx());
            let direct = field::string_map(r, &mut a, owned_string);
            assert_eq!(direct, field::map(r, &mut b, owned_string), "{buf:?}");
            same_budget(&a, &b);
            let (mut a, mut b) = (cx(), cx());
            let direct = field::str_map(r, &mut a, borrowed_str);
            assert_eq!(
                direct,
                field::map_borrowed(r, &mut b, borrowed_str),
                "{buf:?}"
            );
            same_budget(&a, &b);
            direct.is_ok()
        });
    }

    /// `DecodeContext::message` gives what `as_map` and then
    /// `layout_proven` give (the map, whether it is positional, the error,
    /// the budget left) for each map of a list read in turn, on every byte
    /// of lists of maps that share one keys vector (and maps of other keys
    /// between them) set to values that land on every width: a header whose
    /// keys width or keys offset changed must not pass for the keys vector
    /// met before, and the memo of proofs must answer what a proof of the
    /// map at hand would.
    #[test]
    fn message_maps_agree_with_as_map_and_the_layout_proof() {
        static LAYOUT: Layout = Layout::new(&["id", "name"], b"id\0name\0");
        const ID: u64 = 0x51;
        let parts = |m: &MapReader<'_>| {
            let (k, v) = (m.keys(), m.values());
            [
                (k.data_offset(), k.len(), k.element_width()),
                (v.data_offset(), v.len(), v.element_width()),
            ]
        };
        let lists = shared_keys_lists();
        let (mut compared, mut fast) = (0, 0);
        for bytes in &lists {
            let values = [0u8, 1, 2, 3, 4, 8, 0x10, 0x7f, 0x80, 0xff];
            for buf in &byte_variants(bytes, &values) {
                let Ok(list) = Reader::new(buf).and_then(|r| r.as_vector()) else {
                    continue;
                };
                for (nodes, bytes) in [(u64::MAX, u64::MAX), (3, u64::MAX)] {
                    let budget = || DecodeContext::with_budget(Budget::new(nodes, bytes));
                    let (mut a, mut b) = (budget(), budget());
                    for i in 0..list.len() {
                        let Ok(r) = list.get(i) else { break };
                        let one = a.message(&r, ID, &LAYOUT);
                        let two = r
                            .as_map()
                            .and_then(|m| Ok((m, b.layout_proven(ID, &m, &LAYOUT)?)));
                        match (&one, &two) {
                            (Ok((m1, f1)), Ok((m2, f2))) => {
                                assert_eq!((parts(m1), f1), (parts(m2), f2), "{buf:?} {i}");
                                // The memo answers what a proof of this map would.
                                assert_eq!(*f2, LAYOUT.proves(m2), "{buf:?} {i}");
                                fast += *f1 as usize;
                                compared += 1;
                            }
                            (Err(e1), Err(e2)) => assert_eq!(e1, e2, "{buf:?} {i}"),
                            _ => panic!("{one:?} against {two:?} on {buf:?} at {i}"),
                        }
                        same_budget(&a, &b);
                    }
                }
            }
        }
        assert!(compared > 1000 && fast > 500, "{compared} {fast}");
    }

    /// The widening loop of `scalar_vec` agrees with the element decoders on
    /// every stored width and type, for every target type, in range or not.
    #[test]
    fn bulk_widening_agrees_with_the_element_path() {
        fn both<T: field::Widen + core::fmt::Debug + PartialEq>(
            bytes: &[u8],
            elem: fn(Reader<'_>) -> Result<T>,
        ) {
            let r = Reader::new(bytes).unwrap();
            let bulk = field::scalar_vec::<T>(r, &mut DecodeContext::new(bytes.len()), elem);
            let one = field::vec(r, &mut DecodeContext::new(bytes.len()), |e, _| elem(e));
            match (&bulk, &one) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => assert_eq!((a.kind(), a.path()), (b.kind(), b.path())),
                _ => panic!("bulk {bulk:?} vs elements {one:?}"),
            }
        }
        fn all(bytes: &[u8]) {
            both::<i8>(bytes, field::i8);
            both::<i16>(bytes, field::i16);
            both::<i32>(bytes, field::i32);
            both::<i64>(bytes, field::i64);
            both::<u8>(bytes, field::u8);
            both::<u16>(bytes, field::u16);
            both::<u32>(bytes, field::u32);
            both::<u64>(bytes, field::u64);
            both::<f32>(bytes, field::f32);
            both::<f64>(bytes, field::f64);
        }
        let ints: [&[i64]; 4] = [&[1, -2, 3], &[300, -5], &[70_000, 1], &[i64::MIN, i64::MAX]];
        for v in ints {
            let mut b = Builder::new();
            b.typed_vector(v);
            all(&b.finish_vec().unwrap());
            let mut b = Builder::new();
            b.fixed_vector(&v[..2]).unwrap();
            all(&b.finish_vec().unwrap());
        }
        let uints: [&[u64]; 3] = [&[1, 255], &[65_535, 3], &[u64::MAX, 0]];
        for v in uints {
            let mut b = Builder::new();
            b.typed_vector(v);
            all(&b.finish_vec().unwrap());
        }
        let floats: [&[f64]; 2] = [&[1.5, -0.25], &[1e300, f64::INFINITY]];
        for v in floats {
            let mut b = Builder::new();
            b.typed_vector(v);
            all(&b.finish_vec().unwrap());
        }
        let mut b = Builder::new();
        b.typed_vector(&[0.5f32, 2.0]);
        all(&b.finish_vec().unwrap());
        let mut b = Builder::new();
        b.typed_vector(&[true, false]);
        all(&b.finish_vec().unwrap());
    }
}
