//! Expansion of a buffer into Python objects in one pass (`loads`), and of
//! a verified buffer (`Reference.to_python` on a verified reference).
//!
//! The same objects as [`crate::decode::Expander`] (which serves unverified
//! references value by value), under the same budget and depth limit, read
//! straight from the bytes, with keys from the process-wide [`KeyGuard`]
//! table. Two modes share the walk:
//!
//! - `Walk<false>` expands a buffer the verifier has accepted: it keeps only
//!   the bounds checks that make it memory-safe whatever the bytes.
//! - `Walk<true>` expands unverified bytes and checks, on every value it
//!   reaches, what the verifier checks there (type codes, widths, offsets,
//!   sizes and spans, string terminators, UTF-8, strictly ascending map
//!   keys, depth). It reaches every value the verifier does, so it succeeds
//!   only on bytes the verifier accepts. On any failure it gives up, and
//!   [`loads`] takes the strict path (verify, then `Walk<false>`), so errors
//!   are the verifier's own, as they were before the two passes were fused.
//!
//! Maps that repeat a key set (records, the levels of a tree) take their key
//! objects from a [`KeySets`] memo once their keys are seen to resolve to the
//! same positions as an earlier map's.

use flexbuf::raw::key_at;
use flexbuf::{Budget, Error, ErrorKind, FlexType, Reader};
use pyo3::ffi;
use pyo3::prelude::*;
use std::cell::OnceCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;

use crate::decode::{bool_obj, float_obj, int_obj, uint_obj, Fail, MAX_DEPTH};
use crate::dict_fill;
use crate::dict_models::Models;
use crate::input;
use crate::pystr::{str_obj, str_obj_known, KeyGuard, KeysByOffset, KEY_MAX_LEN};

type Out<'py> = Result<Bound<'py, PyAny>, Fail>;

// Type codes of the wire format (the high six bits of a packed type byte).
const NULL: u8 = FlexType::Null as u8;
const INT: u8 = FlexType::Int as u8;
const UINT: u8 = FlexType::UInt as u8;
const FLOAT: u8 = FlexType::Float as u8;
const KEY: u8 = FlexType::Key as u8;
const STRING: u8 = FlexType::String as u8;
const INDIRECT_INT: u8 = FlexType::IndirectInt as u8;
const INDIRECT_UINT: u8 = FlexType::IndirectUInt as u8;
const INDIRECT_FLOAT: u8 = FlexType::IndirectFloat as u8;
const MAP: u8 = FlexType::Map as u8;
const VECTOR: u8 = FlexType::Vector as u8;
const BLOB: u8 = FlexType::Blob as u8;
const BOOL: u8 = FlexType::Bool as u8;

/// One expansion; `CHECK` says whether the bytes are unverified.
pub struct Walk<'py, 'b, const CHECK: bool> {
    py: Python<'py>,
    buf: &'b [u8],
    budget: Budget,
    by_offset: KeysByOffset<'py>,
    table: Option<KeyGuard<'py>>,
    key_sets: KeySets<'py>,
    /// The table of models, taken at the first map that could use it
    /// (`None` until then; `Some(None)` when it is not available).
    models: Option<Option<Models<'py>>>,
}

/// Most keys a map may have for its key set to be remembered.
const KEY_SET_MAX: usize = 32;

/// Fewest keys a map must have for a model of them to be kept across
/// decodes ([`Models`]): the maps too large for a key set of the buffer.
/// (Down to 16 keys, maps met once in a buffer measured no faster as
/// copies: user_profile's root of 31 keys 2% slower, then level.)
const MODEL_MIN: usize = KEY_SET_MAX + 1;

/// Most keys a map may have for a model of them to be kept across decodes
/// ([`Models`]): records of many fields, not dictionaries.
const MODEL_MAX: usize = 128;

/// The key sets of recent maps of one buffer, for the maps that repeat them
/// (the records of a list, the levels of a tree): builders write each key
/// once, so maps with the same keys point their keys vectors at the same
/// key bytes. A set holds, for each key in order, the position its offset
/// resolved to, its length and its object. A map whose keys resolve to the
/// same positions takes them from the set: no lookup per key and no order
/// check, which the set passed when it was first read.
///
/// Direct-mapped by the number of keys and the first key's position. A set
/// is made the second time a slot meets the same number of keys and first
/// key (the first time only marks it), so that a buffer of maps that never
/// repeat pays for none; a set in use stays in its slot (shared), so the
/// maps nested in a map find theirs.
struct KeySets<'py> {
    /// In place rather than allocated: a decode of a small buffer paid more
    /// for allocating, filling and freeing a table than for its maps. Not
    /// dropped as an array (see `Drop`).
    slots: ManuallyDrop<[KeySlot<'py>; KEY_SLOTS]>,
    /// Bit `i` set when `slots[i]` holds a set: the only slots with
    /// anything to drop, so dropping the table visits only those.
    sets: u64,
    /// Sets replaced while no map used them, kept for their capacity.
    spare: Vec<KeyList<'py>>,
}

/// (position, length in bytes, object) of each key of a set, in order.
type KeyList<'py> = Vec<(usize, usize, Bound<'py, PyAny>)>;

/// One key set: its keys, and the first map of them that was finished,
/// which the set's later maps start as copies of ([`dict_fill`]).
struct KeySet<'py> {
    keys: KeyList<'py>,
    model: OnceCell<Bound<'py, PyAny>>,
}

/// 16 bytes a slot, so the table of [`KEY_SLOTS`] slots in each decode is
/// 1 KiB. (At 24 bytes a slot it was allocated from glibc's bins, filled,
/// and dropped slot by slot: 30% of the instructions of `loads` of a
/// one-key map.)
enum KeySlot<'py> {
    Empty,
    /// A map of these keys was met once ([`KeySets::seen`]).
    Seen(u64),
    Set(Rc<KeySet<'py>>),
}

/// What a map's slot says about its keys.
enum Known<'py> {
    /// The map's key set.
    Set(Rc<KeySet<'py>>),
    /// Met before: make the set.
    Again,
    /// Not met before (now marked).
    New,
}

impl<'py> KeySets<'py> {
    fn new() -> Self {
        KeySets {
            slots: ManuallyDrop::new([const { KeySlot::Empty }; KEY_SLOTS]),
            sets: 0,
            spare: Vec::new(),
        }
    }

    /// What a [`KeySlot::Seen`] records of a map of `n` keys (at most
    /// [`KEY_SET_MAX`], so six bits), the first at `first`: exact for any
    /// buffer below 2^58 bytes (a collision would only make a set early,
    /// which `find` then checks key by key).
    #[inline]
    fn seen(n: usize, first: usize) -> u64 {
        ((first as u64) << 6) | n as u64
    }

    /// The slot of a set of `n` keys, the first at `first`.
    #[inline]
    fn slot(n: usize, first: usize) -> usize {
        (first
            .wrapping_add(n << 32)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> 58)
            & (KEY_SLOTS - 1)
    }

    /// What slot `slot` knows of a map of `n` keys whose first is at
    /// `first` (a set only when every key matches: `same`).
    #[inline]
    fn find(
        &mut self,
        slot: usize,
        n: usize,
        first: usize,
        same: impl FnOnce(&KeySet<'py>) -> bool,
    ) -> Known<'py> {
        match &self.slots[slot] {
            KeySlot::Set(set) if set.keys.len() == n && same(set) => Known::Set(Rc::clone(set)),
            KeySlot::Seen(k) if *k == Self::seen(n, first) => Known::Again,
            _ => {
                self.replace(slot, KeySlot::Seen(Self::seen(n, first)));
                Known::New
            }
        }
    }

    /// An empty set to fill with `n` keys.
    #[inline]
    fn fresh(&mut self, n: usize) -> KeyList<'py> {
        let mut set = self.spare.pop().unwrap_or_default();
        set.reserve(n);
        set
    }

    /// Takes back a list of keys made by [`fresh`](Self::fresh), for its capacity.
    #[inline]
    fn spare(&mut self, mut list: KeyList<'py>) {
        if self.spare.len() < 4 {
            list.clear();
            self.spare.push(list);
        }
    }

    /// Keeps `set` in slot `slot`, in place of what was there.
    #[inline]
    fn put(&mut self, slot: usize, set: Rc<KeySet<'py>>) {
        self.replace(slot, KeySlot::Set(set));
    }

    #[inline]
    fn replace(&mut self, slot: usize, new: KeySlot<'py>) {
        let bit = 1u64 << slot;
        if matches!(new, KeySlot::Set(_)) {
            self.sets |= bit;
        } else {
            self.sets &= !bit;
        }
        if let KeySlot::Set(old) = std::mem::replace(&mut self.slots[slot], new) {
            if let Ok(old) = Rc::try_unwrap(old) {
                self.spare(old.keys);
            }
        }
    }
}

/// Slots of [`KeySets`]: at most 64, as [`KeySets::sets`] has a bit per slot.
const KEY_SLOTS: usize = 64;

const _: () = assert!(KEY_SLOTS <= 64 && std::mem::size_of::<KeySlot<'static>>() == 16);

impl Drop for KeySets<'_> {
    /// Drops the sets; the other slots (empty or marks) hold nothing, so
    /// the table is not visited slot by slot.
    fn drop(&mut self) {
        let mut sets = self.sets;
        while sets != 0 {
            let i = sets.trailing_zeros() as usize;
            sets &= sets - 1;
            self.slots[i] = KeySlot::Empty;
        }
    }
}

/// True when the `n` keys of the keys vector at `keys` (`kw` bytes an
/// offset) resolve to the positions of `set`, in order. Any offset that
/// cannot be followed is a mismatch (the map's own path then reports it).
#[inline]
fn same_keys(buf: &[u8], keys: usize, kw: usize, set: &KeySet<'_>) -> bool {
    set.keys
        .iter()
        .enumerate()
        .all(|(i, (at, _, _))| follow(buf, keys + i * kw, kw).is_ok_and(|k| k == *at))
}

/// `data` verified and expanded in one checked pass; when that pass finds
/// anything wrong, by the verifier first (with the GIL released when the
/// buffer is large), whose error is the one raised.
///
/// Every size takes the one pass. Up to 1 MiB only did: larger buffers were
/// verified with the GIL released, then built. But building holds the GIL
/// anyway, and took about twelve times as long as verifying, so other
/// threads gained little, while the second pass cost 10-15% of the `loads`
/// of 1-12 MB documents (`sdk-python/tools/large_loads.py`).
pub fn loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    match Walk::<true>::new(py, data).root() {
        Ok(v) => return Ok(v),
        Err(Fail::Py(e)) => return Err(e),
        Err(Fail::Core(_)) => {}
    }
    let root = input::verify_bytes(py, data)?.root();
    let mut w = Walk::<false>::new(py, data);
    w.value(root.offset(), root.slot_width(), root.packed_type(), 0)
        .map_err(|f| f.into_py(py))
}

impl<'py, 'b> Walk<'py, 'b, false> {
    /// Expands the value `r` reads, which must come from a verified buffer
    /// (`None` for an unverified reader: use `decode::Expander`).
    pub fn expand(py: Python<'py>, r: &Reader<'b>) -> Option<PyResult<Bound<'py, PyAny>>> {
        if !r.is_trusted() {
            return None;
        }
        let mut w = Walk::<false>::new(py, r.buffer());
        let out = w.value(r.offset(), r.slot_width(), r.packed_type(), 0);
        Some(out.map_err(|f| f.into_py(py)))
    }
}

impl<'py, 'b, const CHECK: bool> Walk<'py, 'b, CHECK> {
    fn new(py: Python<'py>, buf: &'b [u8]) -> Self {
        Walk {
            py,
            buf,
            budget: Budget::for_input(buf.len()),
            by_offset: KeysByOffset::new(buf.len()),
            table: KeyGuard::take(py),
            key_sets: KeySets::new(),
            models: None,
        }
    }

    /// The root value, from the buffer's last two bytes (its width and type).
    fn root(&mut self) -> Out<'py> {
        let n = self.buf.len();
        if n < 3 {
            return Err(Error::at(ErrorKind::Truncated, 0).into());
        }
        let width = self.buf[n - 1] as usize;
        if !matches!(width, 1 | 2 | 4 | 8) {
            return Err(Error::at(ErrorKind::BadWidth(width as u64), n - 1).into());
        }
        let slot = (n - 2)
            .checked_sub(width)
            .ok_or_else(|| Error::at(ErrorKind::Truncated, 0))?;
        self.value(slot, width, self.buf[n - 2], 0)
    }

    /// The value in the slot at `pos`, `pw` bytes wide, of packed type `packed`.
    fn value(&mut self, pos: usize, pw: usize, packed: u8, depth: usize) -> Out<'py> {
        self.budget.node()?;
        let py = self.py;
        let ty = packed >> 2;
        let bw = 1usize << (packed & 3);
        Ok(match ty {
            NULL => py.None().into_bound(py),
            INT => int_obj(py, int(self.buf, pos, pw)?),
            UINT => uint_obj(py, uint(self.buf, pos, pw)?),
            FLOAT => float_obj(py, float(self.buf, pos, pw)?),
            BOOL => bool_obj(py, uint(self.buf, pos, pw)? != 0),
            KEY => {
                let at = follow(self.buf, pos, pw)?;
                self.key(at)?.0
            }
            STRING => {
                let at = follow(self.buf, pos, pw)?;
                let bytes = sized(self.buf, at, bw)?;
                self.budget.bytes(bytes.len())?;
                let (s, ascii) = if CHECK {
                    let end = at + bytes.len();
                    if self.buf.get(end) != Some(&0) {
                        return Err(Error::at(ErrorKind::MissingNul, end).into());
                    }
                    flexbuf::utf8::as_str_ascii(bytes)
                        .ok_or_else(|| Error::at(ErrorKind::InvalidUtf8, at))?
                } else {
                    // SAFETY: a verified buffer's strings (sized, under a
                    // String type byte) are valid UTF-8: the verifier
                    // checked this one.
                    let s = unsafe { std::str::from_utf8_unchecked(bytes) };
                    (s, s.is_ascii())
                };
                str_obj_known(py, s, ascii)?
            }
            INDIRECT_INT => int_obj(py, int(self.buf, follow(self.buf, pos, pw)?, bw)?),
            INDIRECT_UINT => uint_obj(py, uint(self.buf, follow(self.buf, pos, pw)?, bw)?),
            INDIRECT_FLOAT => float_obj(py, float(self.buf, follow(self.buf, pos, pw)?, bw)?),
            BLOB => {
                let at = follow(self.buf, pos, pw)?;
                let bytes = sized(self.buf, at, bw)?;
                self.budget.bytes(bytes.len())?;
                pyo3::types::PyBytes::new(py, bytes).into_any()
            }
            MAP => {
                let depth = enter(depth, pos)?;
                self.map(follow(self.buf, pos, pw)?, bw, depth)?
            }
            VECTOR => {
                let depth = enter(depth, pos)?;
                let at = follow(self.buf, pos, pw)?;
                let n = size(self.buf, at, bw)?;
                let types = at + n * bw;
                // Elements and type bytes inside the buffer (`n` is at most
                // the buffer's length, so this cannot overflow).
                if types + n > self.buf.len() {
                    return Err(Error::at(ErrorKind::SizeOutOfBounds, at).into());
                }
                self.list(n, |t, i| {
                    let packed = byte(t.buf, types + i)?;
                    t.element(at + i * bw, bw, packed, depth)
                })?
            }
            _ => {
                let depth = enter(depth, pos)?;
                self.typed(packed, follow(self.buf, pos, pw)?, bw, depth)?
            }
        })
    }

    /// An element of an untyped vector or map: numbers read here, anything
    /// else through [`value`](Self::value).
    #[inline(always)]
    fn element(&mut self, pos: usize, w: usize, packed: u8, depth: usize) -> Out<'py> {
        let py = self.py;
        match packed >> 2 {
            INT => {
                self.budget.node()?;
                Ok(int_obj(py, int(self.buf, pos, w)?))
            }
            FLOAT => {
                self.budget.node()?;
                Ok(float_obj(py, float(self.buf, pos, w)?))
            }
            _ => self.value(pos, w, packed, depth),
        }
    }

    /// A typed vector (with a length, or of fixed length 2-4) at `at`.
    fn typed(&mut self, packed: u8, at: usize, bw: usize, depth: usize) -> Out<'py> {
        let py = self.py;
        let (elem, n) = match FlexType::from_code(packed >> 2) {
            Some(t) if t.is_typed_vector() => (
                t.typed_vector_element().unwrap_or(FlexType::Key),
                size(self.buf, at, bw)?,
            ),
            Some(t) if t.is_fixed_typed_vector() => {
                t.fixed_vector_element().unwrap_or((FlexType::Int, 2))
            }
            _ => return Err(Error::at(ErrorKind::UnknownType(packed), at).into()),
        };
        // Scalars are read in place; keys and (deprecated) strings as values
        // whose type byte says width 1, as a typed vector's readers do.
        match elem {
            FlexType::Int => self.list(n, |t, i| {
                t.budget.node()?;
                Ok(int_obj(py, int(t.buf, at + i * bw, bw)?))
            }),
            FlexType::UInt => self.list(n, |t, i| {
                t.budget.node()?;
                Ok(uint_obj(py, uint(t.buf, at + i * bw, bw)?))
            }),
            FlexType::Float => self.list(n, |t, i| {
                t.budget.node()?;
                Ok(float_obj(py, float(t.buf, at + i * bw, bw)?))
            }),
            FlexType::Bool => self.list(n, |t, i| {
                t.budget.node()?;
                Ok(bool_obj(py, uint(t.buf, at + i * bw, bw)? != 0))
            }),
            FlexType::Key => self.list(n, |t, i| {
                t.budget.node()?;
                let k = follow(t.buf, at + i * bw, bw)?;
                Ok(t.key(k)?.0)
            }),
            // A deprecated string vector: the verifier reads its elements
            // as keys, this walk as strings; the strict path decides.
            _ if CHECK => Err(Error::at(ErrorKind::UnknownType(packed), at).into()),
            other => {
                let packed = (other as u8) << 2;
                self.list(n, |t, i| t.checked_value(at + i * bw, bw, packed, depth))
            }
        }
    }

    /// A value the verifier did not check as this walk reads it (a string
    /// inside a deprecated string vector): through the checked expander's
    /// rules, so its UTF-8 is validated here.
    fn checked_value(&mut self, pos: usize, pw: usize, packed: u8, depth: usize) -> Out<'py> {
        if packed >> 2 != STRING {
            return self.value(pos, pw, packed, depth);
        }
        self.budget.node()?;
        let at = follow(self.buf, pos, pw)?;
        let bytes = sized(self.buf, at, 1)?;
        let s = std::str::from_utf8(bytes).map_err(|_| Error::at(ErrorKind::InvalidUtf8, at))?;
        self.budget.bytes(s.len())?;
        Ok(str_obj(self.py, s)?)
    }

    /// A list of `n` items made by `item` (one node for the list itself).
    #[inline(always)]
    fn list(&mut self, n: usize, mut item: impl FnMut(&mut Self, usize) -> Out<'py>) -> Out<'py> {
        self.budget.node()?;
        // A length the verifier accepted fits in the buffer, so this
        // allocation is bounded by the input size.
        // SAFETY: PyList_New returns a new list of `n` NULL items, or NULL
        // with an exception set.
        let list = unsafe {
            Bound::from_owned_ptr_or_err(self.py, ffi::PyList_New(n as ffi::Py_ssize_t))?
        };
        for i in 0..n {
            let v = item(self, i)?;
            // SAFETY: i < n; PyList_SET_ITEM steals the reference into an empty slot.
            unsafe { ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, v.into_ptr()) };
        }
        Ok(list)
    }

    /// The map whose values start at `at`, `bw` bytes each.
    fn map(&mut self, at: usize, bw: usize, depth: usize) -> Out<'py> {
        let py = self.py;
        let n = size(self.buf, at, bw)?;
        let prefix = at
            .checked_sub(3 * bw)
            .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, at))?;
        let keys = follow(self.buf, prefix, bw)?;
        let kw = uint(self.buf, prefix + bw, bw)? as usize;
        if !matches!(kw, 1 | 2 | 4 | 8) {
            return Err(Error::at(ErrorKind::BadWidth(kw as u64), prefix + bw).into());
        }
        let klen = size(self.buf, keys, kw)?;
        if klen != n {
            let e = ErrorKind::KeyValueLengthMismatch {
                keys: klen as u64,
                values: n as u64,
            };
            return Err(Error::at(e, at).into());
        }
        let types = at + n * bw;
        // Both vectors inside the buffer (sizes are at most its length).
        if types + n > self.buf.len() || keys + n * kw > self.buf.len() {
            return Err(Error::at(ErrorKind::SizeOutOfBounds, at).into());
        }
        if n == 0 || n > KEY_SET_MAX {
            if (MODEL_MIN..=MODEL_MAX).contains(&n)
                && self
                    .models
                    .get_or_insert_with(|| Models::take(py))
                    .is_some()
            {
                return self.modeled_map(at, bw, keys, kw, n, depth);
            }
            let dict = new_dict(py, n)?;
            self.entries(&dict, at, bw, keys, kw, n, depth)?;
            return Ok(dict);
        }
        let first = follow(self.buf, keys, kw)?;
        let slot = KeySets::slot(n, first);
        let buf = self.buf;
        let set = match self
            .key_sets
            .find(slot, n, first, |s| same_keys(buf, keys, kw, s))
        {
            Known::Set(set) => {
                // The budget counts the keys' bytes, remembered or not.
                for (_, len, _) in set.keys.iter() {
                    self.budget.bytes(*len)?;
                }
                set
            }
            Known::Again => {
                // Every key first, so that the maps nested in this one find
                // the set when they have the same keys.
                let set = Rc::new(KeySet {
                    keys: self.key_set(keys, kw, n)?,
                    model: OnceCell::new(),
                });
                self.key_sets.put(slot, Rc::clone(&set));
                set
            }
            Known::New => {
                let dict = new_dict(py, n)?;
                self.entries(&dict, at, bw, keys, kw, n, depth)?;
                return Ok(dict);
            }
        };
        if let Some(model) = set.model.get() {
            return self.copied_map(model, &set.keys, at, bw, n, depth);
        }
        // The first map of the set to be finished becomes the model of the
        // later ones: a plain dict, so that its copies are of the compact
        // kind (see `dict_fill`).
        let copies = dict_fill::usable();
        let dict = if copies {
            // SAFETY: returns a new reference, or NULL with an exception set.
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyDict_New())? }
        } else {
            new_dict(py, n)?
        };
        self.fill(&dict, &set.keys, at, bw, n, depth)?;
        if copies {
            let _ = set.model.set(dict.clone());
        }
        Ok(dict)
    }

    /// A map not of a key set of this buffer: its keys first, then, when
    /// the process-wide table has a model of them ([`Models`]), a copy of
    /// the model filled in place, else a dict filled entry by entry.
    #[allow(clippy::too_many_arguments)]
    fn modeled_map(
        &mut self,
        at: usize,
        bw: usize,
        keys: usize,
        kw: usize,
        n: usize,
        depth: usize,
    ) -> Out<'py> {
        let list = self.key_set(keys, kw, n)?;
        // Only keys the shared key table hands out (short ASCII keys) are
        // the same objects in the next decode; a model of other keys would
        // never be met again, and would keep its keys alive.
        let buf = self.buf;
        let shared = self.table.is_some()
            && list.iter().all(|(at, len, _)| {
                *len <= KEY_MAX_LEN && buf.get(*at..at + len).is_some_and(<[u8]>::is_ascii)
            });
        let model = match self.models.as_mut().and_then(Option::as_mut) {
            Some(m) if shared => m.model(list.iter().map(|(_, _, k)| k))?,
            _ => None,
        };
        let out = match model {
            Some(model) => self.copied_map(&model, &list, at, bw, n, depth),
            None => self.filled_map(&list, at, bw, n, depth),
        };
        self.key_sets.spare(list);
        out
    }

    /// A new dict of the keys `keys` and the values that start at `at`,
    /// `bw` bytes each, filled entry by entry.
    fn filled_map(
        &mut self,
        keys: &KeyList<'py>,
        at: usize,
        bw: usize,
        n: usize,
        depth: usize,
    ) -> Out<'py> {
        let dict = new_dict(self.py, n)?;
        self.fill(&dict, keys, at, bw, n, depth)?;
        Ok(dict)
    }

    /// Fills `dict` with the keys `keys` and the values that start at
    /// `at`, `bw` bytes each, entry by entry.
    fn fill(
        &mut self,
        dict: &Bound<'py, PyAny>,
        keys: &KeyList<'py>,
        at: usize,
        bw: usize,
        n: usize,
        depth: usize,
    ) -> Result<(), Fail> {
        for (i, (_, _, k)) in keys.iter().enumerate() {
            self.budget.node()?;
            self.entry_value(dict, k, at, bw, i, n, depth)?;
        }
        Ok(())
    }

    /// A map of the `n` keys of `keys` (whose values start at `at`, `bw`
    /// bytes each) made as a copy of `model`, an earlier map of the same
    /// keys in the same order, with each value stored in place of the
    /// model's.
    #[allow(clippy::too_many_arguments)]
    fn copied_map(
        &mut self,
        model: &Bound<'py, PyAny>,
        keys: &KeyList<'py>,
        at: usize,
        bw: usize,
        n: usize,
        depth: usize,
    ) -> Out<'py> {
        // SAFETY: `model` is a dict; returns a new reference, or NULL with
        // an exception set.
        let dict =
            unsafe { Bound::from_owned_ptr_or_err(self.py, ffi::PyDict_Copy(model.as_ptr()))? };
        let mut entries = dict_fill::Entries::of(&dict, n);
        for (i, (_, _, k)) in keys.iter().enumerate() {
            self.budget.node()?;
            let v = self.map_value(at, bw, i, n, depth)?;
            let v = match entries.as_mut() {
                Some(e) => match e.replace(i, k, v) {
                    Ok(()) => continue,
                    Err(v) => v,
                },
                None => v,
            };
            self.set_entry(&dict, k, &v)?;
        }
        if let Some(e) = entries {
            e.finish(&dict);
        }
        Ok(dict)
    }

    /// The `n` entries of a map into `dict` without a key set, each key
    /// found by [`key`](Self::key) (and, unverified, checked to follow the
    /// one before).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn entries(
        &mut self,
        dict: &Bound<'py, PyAny>,
        at: usize,
        bw: usize,
        keys: usize,
        kw: usize,
        n: usize,
        depth: usize,
    ) -> Result<(), Fail> {
        let mut prev: Option<KeyPos> = None;
        for i in 0..n {
            self.budget.node()?;
            let (k, _) = self.next_key(keys + i * kw, kw, &mut prev)?;
            self.entry_value(dict, &k, at, bw, i, n, depth)?;
        }
        Ok(())
    }

    /// Value `i` of the map of `n` values at `at` (`bw` bytes each), set in
    /// `dict` under `k`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn entry_value(
        &mut self,
        dict: &Bound<'py, PyAny>,
        k: &Bound<'py, PyAny>,
        at: usize,
        bw: usize,
        i: usize,
        n: usize,
        depth: usize,
    ) -> Result<(), Fail> {
        let v = self.map_value(at, bw, i, n, depth)?;
        self.set_entry(dict, k, &v)
    }

    /// Value `i` of the map of `n` values at `at` (`bw` bytes each): its
    /// slot and its type byte after the `n` slots.
    #[inline(always)]
    fn map_value(&mut self, at: usize, bw: usize, i: usize, n: usize, depth: usize) -> Out<'py> {
        let packed = byte(self.buf, at + n * bw + i)?;
        self.element(at + i * bw, bw, packed, depth)
    }

    /// `dict[k] = v`, CPython's error taken when it fails.
    #[inline(always)]
    fn set_entry(
        &self,
        dict: &Bound<'py, PyAny>,
        k: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
    ) -> Result<(), Fail> {
        if set_str_item(dict, k, v) != 0 {
            return Err(PyErr::fetch(self.py).into());
        }
        Ok(())
    }

    /// The `n` keys of the keys vector at `keys` (`kw` bytes an offset) as a
    /// key set, each found by [`key`](Self::key) and, unverified, checked
    /// to follow the one before.
    fn key_set(&mut self, keys: usize, kw: usize, n: usize) -> Result<KeyList<'py>, Fail> {
        let mut set = self.key_sets.fresh(n);
        let mut prev: Option<KeyPos> = None;
        for i in 0..n {
            let (k, pos) = self.next_key(keys + i * kw, kw, &mut prev)?;
            set.push((pos.at, pos.len, k));
        }
        Ok(set)
    }

    /// The key whose offset is in the `kw`-byte slot at `slot`, found by
    /// [`key`](Self::key) and, unverified, checked to follow `prev` (the key
    /// before it in the map, which this then becomes).
    #[inline(always)]
    fn next_key(
        &mut self,
        slot: usize,
        kw: usize,
        prev: &mut Option<KeyPos>,
    ) -> Result<(Bound<'py, PyAny>, KeyPos), Fail> {
        let k_at = follow(self.buf, slot, kw)?;
        let (k, pos) = self.key(k_at)?;
        if CHECK {
            if prev.is_some_and(|p| !p.before(&pos, self.buf)) {
                return Err(Error::at(ErrorKind::UnsortedKeys, k_at).into());
            }
            *prev = Some(pos);
        }
        Ok((k, pos))
    }

    /// The key whose bytes start at `at`, and its length in bytes: by offset
    /// within this buffer, then from the process-wide table, else made. In
    /// either mode the key is found terminated and valid UTF-8.
    ///
    /// Inlined into its callers, so that a short key's position and order
    /// words stay in registers: returned through memory, the order (two
    /// 8-byte stores) was read back as one 16-byte load that the stores
    /// could not serve, a stall that `perf` put at 40% of `map`'s samples
    /// in `loads` of user_profile.
    #[inline(always)]
    fn key(&mut self, at: usize) -> Result<(Bound<'py, PyAny>, KeyPos), Fail> {
        // Short ASCII keys (most keys) come straight from the table, which
        // costs less than a miss in the cache by offset.
        if let Some(table) = &mut self.table {
            if let Some((n, head)) = self.buf.get(at..).and_then(short_ascii) {
                self.budget.bytes(n)?;
                let order =
                    (u128::from(head[0].swap_bytes()) << 64) | u128::from(head[1].swap_bytes());
                let pos = KeyPos {
                    at,
                    len: n,
                    order: Some(order),
                };
                let obj = table.short_ascii_key(n, head)?;
                if table.thrashing() {
                    self.table = None;
                }
                return Ok((obj, pos));
            }
        }
        self.other_key(at)
    }

    /// [`key`](Self::key) for a key that is not short ASCII with 16 bytes of
    /// buffer after its start (or when the shared table is not used).
    #[inline(never)]
    fn other_key(&mut self, at: usize) -> Result<(Bound<'py, PyAny>, KeyPos), Fail> {
        if let Some((obj, len)) = self.by_offset.get(at) {
            // The budget counts bytes produced, cached or not.
            self.budget.bytes(len)?;
            let pos = KeyPos {
                at,
                len,
                order: None,
            };
            return Ok((obj, pos));
        }
        let bytes = key_at(self.buf, at)?;
        let n = bytes.len();
        self.budget.bytes(n)?;
        let pos = KeyPos {
            at,
            len: n,
            order: None,
        };
        if let Some(table) = &mut self.table {
            if n <= KEY_MAX_LEN && bytes.is_ascii() {
                let obj = table.ascii_key(bytes)?;
                if table.thrashing() {
                    self.table = None;
                }
                // A short key is found again in the table as cheaply as by
                // its offset, so it is not put in that cache (which a small
                // buffer then never allocates); a longer one is (the table
                // hashes and compares all its bytes: twitter.json's user
                // objects, 40 keys of up to 34 bytes, each too many keys
                // for a key set, took 7% longer without it).
                if n >= 16 {
                    self.by_offset.put(at, n, &obj);
                }
                return Ok((obj, pos));
            }
        }
        let s =
            flexbuf::utf8::as_str(bytes).ok_or_else(|| Error::at(ErrorKind::InvalidUtf8, at))?;
        let obj = str_obj(self.py, s)?;
        self.by_offset.put(at, n, &obj);
        Ok((obj, pos))
    }
}

/// Where a key's bytes are, and for a short ASCII key its first 16 bytes as
/// a big-endian number (zero past its end): comparing two such numbers
/// orders the keys as `strcmp` does, since keys hold no NUL.
#[derive(Clone, Copy)]
struct KeyPos {
    at: usize,
    len: usize,
    order: Option<u128>,
}

impl KeyPos {
    /// True when `self` sorts strictly before `next` (unsigned bytes).
    #[inline]
    fn before(&self, next: &KeyPos, buf: &[u8]) -> bool {
        match (self.order, next.order) {
            (Some(a), Some(b)) => a < b,
            _ => buf.get(self.at..self.at + self.len) < buf.get(next.at..next.at + next.len),
        }
    }
}

/// The length and the two words (zero past the end) of an ASCII key of at
/// most 15 bytes at the start of `tail`, when `tail` has 16 bytes to read.
#[inline(always)]
fn short_ascii(tail: &[u8]) -> Option<(usize, [u64; 2])> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let b: &[u8; 16] = tail.get(..16)?.try_into().ok()?;
    let w0 = u64::from_le_bytes(b[..8].try_into().ok()?);
    let w1 = u64::from_le_bytes(b[8..].try_into().ok()?);
    // The lowest flagged byte of `(w - LO) & !w & HI` is the first zero byte.
    let z0 = w0.wrapping_sub(LO) & !w0 & HI;
    let (n, head) = if z0 != 0 {
        let n = (z0.trailing_zeros() / 8) as usize;
        (n, [w0 & low_bytes(n), 0])
    } else {
        let z1 = w1.wrapping_sub(LO) & !w1 & HI;
        if z1 == 0 {
            return None;
        }
        let n = (z1.trailing_zeros() / 8) as usize;
        (8 + n, [w0, w1 & low_bytes(n)])
    };
    ((head[0] | head[1]) & HI == 0).then_some((n, head))
}

/// A mask of the low `n` bytes of a word (`n` < 8).
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    (1u64 << (8 * n)) - 1
}

/// `dict[k] = v` for a dict `dict` and a key `k` of type `str` (as every
/// map key is): 0, or -1 with an exception set. A key whose hash is cached
/// (every key after its first map: the key table hands out the same
/// objects) goes in by that hash, as orjson's keys do, skipping the
/// dict type check and the hash lookup of `PyDict_SetItem`.
#[inline(always)]
pub(crate) fn set_str_item(
    dict: &Bound<'_, PyAny>,
    k: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
) -> std::os::raw::c_int {
    #[cfg(all(not(Py_LIMITED_API), not(PyPy), not(GraalPy), not(Py_3_13)))]
    {
        extern "C" {
            // In CPython's headers (cpython/dictobject.h) up to 3.12.
            fn _PyDict_SetItem_KnownHash(
                mp: *mut ffi::PyObject,
                key: *mut ffi::PyObject,
                item: *mut ffi::PyObject,
                hash: ffi::Py_hash_t,
            ) -> std::os::raw::c_int;
        }
        debug_assert!(k.is_exact_instance_of::<pyo3::types::PyString>());
        // SAFETY: `k` is a `str` (the caller's contract), whose object
        // starts with a `PyASCIIObject` header; -1 means not computed yet.
        let hash = unsafe { (*k.as_ptr().cast::<ffi::PyASCIIObject>()).hash };
        if hash != -1 {
            // SAFETY: `dict` is a dict, `hash` is `k`'s own; no reference is stolen.
            return unsafe {
                _PyDict_SetItem_KnownHash(dict.as_ptr(), k.as_ptr(), v.as_ptr(), hash)
            };
        }
    }
    // SAFETY: all are valid objects; PyDict_SetItem does not steal references.
    unsafe { ffi::PyDict_SetItem(dict.as_ptr(), k.as_ptr(), v.as_ptr()) }
}

/// An empty dict with room for `n` entries, so filling it never resizes
/// (`n` is bounded by the input: a verified map of `n` entries spans at
/// least `n` bytes).
#[inline]
pub(crate) fn new_dict(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyAny>> {
    #[cfg(all(not(Py_LIMITED_API), not(PyPy), not(GraalPy), not(Py_3_14)))]
    {
        extern "C" {
            // In CPython's headers (cpython/dictobject.h) from 3.11 to 3.13.
            fn _PyDict_NewPresized(minused: ffi::Py_ssize_t) -> *mut ffi::PyObject;
        }
        // SAFETY: returns a new reference, or NULL with an exception set.
        unsafe { Bound::from_owned_ptr_or_err(py, _PyDict_NewPresized(n as ffi::Py_ssize_t)) }
    }
    #[cfg(any(Py_LIMITED_API, PyPy, GraalPy, Py_3_14))]
    {
        let _ = n;
        // SAFETY: returns a new reference, or NULL with an exception set.
        unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyDict_New()) }
    }
}

fn enter(depth: usize, pos: usize) -> Result<usize, Error> {
    if depth >= MAX_DEPTH {
        return Err(Error::at(ErrorKind::DepthLimit(MAX_DEPTH), pos));
    }
    Ok(depth + 1)
}

#[inline(always)]
fn byte(buf: &[u8], pos: usize) -> Result<u8, Error> {
    buf.get(pos)
        .copied()
        .ok_or_else(|| Error::at(ErrorKind::Truncated, pos))
}

/// The little-endian unsigned integer of `w` bytes (1, 2, 4 or 8) at `pos`.
///
/// Not `flexbuf::raw::read_uint` (one 8-byte load and a mask, best for the
/// verifier): in this walk a branch on the width, which repeats from slot to
/// slot, measured about 5% fewer instructions per `loads` (api_response
/// 1.38M against 1.45M, width_bomb 0.82M against 0.87M).
#[inline(always)]
fn uint(buf: &[u8], pos: usize, w: usize) -> Result<u64, Error> {
    let b = pos
        .checked_add(w)
        .and_then(|end| buf.get(pos..end))
        .ok_or_else(|| Error::at(ErrorKind::Truncated, pos))?;
    Ok(match w {
        1 => b[0] as u64,
        2 => u16::from_le_bytes([b[0], b[1]]) as u64,
        4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
        // `w` is 8 here: callers pass widths from type bytes or checked ones.
        _ => b.try_into().map(u64::from_le_bytes).unwrap_or(0),
    })
}

/// The signed integer of `w` bytes at `pos`.
#[inline(always)]
fn int(buf: &[u8], pos: usize, w: usize) -> Result<i64, Error> {
    let shift = 64 - 8 * w as u32;
    Ok(((uint(buf, pos, w)? << shift) as i64) >> shift)
}

/// The float of `w` bytes (4 or 8) at `pos`.
#[inline(always)]
fn float(buf: &[u8], pos: usize, w: usize) -> Result<f64, Error> {
    let u = uint(buf, pos, w)?;
    match w {
        4 => Ok(f32::from_bits(u as u32) as f64),
        8 => Ok(f64::from_bits(u)),
        _ => Err(Error::at(ErrorKind::BadWidth(w as u64), pos)),
    }
}

/// The target of the offset in the slot at `pos`.
#[inline(always)]
fn follow(buf: &[u8], pos: usize, w: usize) -> Result<usize, Error> {
    let off = uint(buf, pos, w)?;
    if off > pos as u64 {
        return Err(Error::at(ErrorKind::OffsetOutOfBounds, pos));
    }
    Ok(pos - off as usize)
}

/// The size prefix (`w` bytes just before `at`) of a vector, string or blob.
#[inline(always)]
fn size(buf: &[u8], at: usize, w: usize) -> Result<usize, Error> {
    let len_at = at
        .checked_sub(w)
        .ok_or_else(|| Error::at(ErrorKind::OffsetOutOfBounds, at))?;
    let n = uint(buf, len_at, w)?;
    // No vector of `n` elements fits in fewer than `n` bytes.
    if n > buf.len() as u64 {
        return Err(Error::at(ErrorKind::SizeOutOfBounds, len_at));
    }
    Ok(n as usize)
}

/// The bytes of the string or blob at `at` with a `w`-byte size prefix.
#[inline(always)]
fn sized(buf: &[u8], at: usize, w: usize) -> Result<&[u8], Error> {
    let n = size(buf, at, w)?;
    at.checked_add(n)
        .and_then(|end| buf.get(at..end))
        .ok_or_else(|| Error::at(ErrorKind::SizeOutOfBounds, at))
}
