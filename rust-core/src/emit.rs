//! Writing a container's bytes into capacity reserved for all of them at once.
//!
//! [`Builder::end_map`](crate::Builder::end_map) on entries that arrive with
//! their keys ascending knows, before it writes a byte, where every byte of
//! the map goes: the keys vector (padding, size, one offset per key), then
//! the values vector (padding, its three-field header, one slot per value,
//! one type byte per value). [`write_map`] reserves that span once and fills
//! it in one loop over the entries, with the element widths as constants, so
//! each entry costs three stores and no per-store capacity check.
//! [`write_vector`] does the same for a vector (or the values of a map whose
//! keys vector is already written).

use crate::builder::Slot;
use crate::types::{BitWidth, FlexType};

/// Where a map's bytes go, as absolute positions in the buffer; every field
/// is computed by the caller from the widths it chose.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MapPlan {
    /// Number of entries (at least one).
    pub len: usize,
    /// Width of the keys vector's elements (and its size field).
    pub key_width: BitWidth,
    /// Position of the keys vector's first element.
    pub keys_at: usize,
    /// Width of the values vector's elements (and its header fields).
    pub value_width: BitWidth,
    /// Position of the values vector's first element.
    pub values_at: usize,
}

impl MapPlan {
    /// One past the last type byte.
    pub fn end(&self) -> usize {
        self.values_at + self.len * self.value_width.bytes() + self.len
    }
}

/// Appends the map `plan` lays out for `entries` (key, value, key, value,
/// ...) to `buf`, whose length is where the keys vector's padding starts.
/// The entries are written as they stand, or in `order` (entry indices)
/// when given; either way their keys were checked to be keys, ascending.
///
/// Panics when `plan` does not fit `buf`, `entries` and `order` (a bug of
/// the caller: `keys_at` before `buf`'s end plus the size field, `entries`
/// not holding `plan.len` pairs, `order` of another length or with an index
/// out of range), before the buffer's length changes.
pub(crate) fn write_map(
    buf: &mut Vec<u8>,
    entries: &[Slot],
    order: Option<&[u32]>,
    plan: &MapPlan,
) {
    match order {
        None => by_key_width::<false>(buf, entries, &[], plan),
        Some(order) => by_key_width::<true>(buf, entries, order, plan),
    }
}

#[inline(always)]
fn by_key_width<const ORDERED: bool>(
    buf: &mut Vec<u8>,
    entries: &[Slot],
    order: &[u32],
    plan: &MapPlan,
) {
    match plan.key_width {
        BitWidth::W8 => by_value_width::<1, ORDERED>(buf, entries, order, plan),
        BitWidth::W16 => by_value_width::<2, ORDERED>(buf, entries, order, plan),
        BitWidth::W32 => by_value_width::<4, ORDERED>(buf, entries, order, plan),
        BitWidth::W64 => by_value_width::<8, ORDERED>(buf, entries, order, plan),
    }
}

#[inline(always)]
fn by_value_width<const KB: usize, const ORDERED: bool>(
    buf: &mut Vec<u8>,
    entries: &[Slot],
    order: &[u32],
    plan: &MapPlan,
) {
    match plan.value_width {
        BitWidth::W8 => fill::<KB, 1, ORDERED>(buf, entries, order, plan),
        BitWidth::W16 => fill::<KB, 2, ORDERED>(buf, entries, order, plan),
        BitWidth::W32 => fill::<KB, 4, ORDERED>(buf, entries, order, plan),
        BitWidth::W64 => fill::<KB, 8, ORDERED>(buf, entries, order, plan),
    }
}

/// Stores the low `B` bytes of `v`, little-endian, at `p`.
///
/// # Safety
/// `p..p + B` must be writable.
#[inline(always)]
unsafe fn put<const B: usize>(p: *mut u8, v: u64) {
    core::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), p, B);
}

/// Positions `base..end` of a buffer, reserved for raw stores: a writer
/// computes every position first, checks they fit, then stores without
/// checks of its own and sets the length once everything is written.
struct Reserved {
    origin: *mut u8,
    base: usize,
    end: usize,
}

impl Reserved {
    /// Reserves from `buf`'s end (`base`) up to `end`, which must not be below it.
    #[inline(always)]
    fn new(buf: &mut Vec<u8>, end: usize) -> Reserved {
        let base = buf.len();
        buf.reserve(end - base);
        let origin = buf.spare_capacity_mut()[..end - base]
            .as_mut_ptr()
            .cast::<u8>();
        Reserved { origin, base, end }
    }

    /// The byte at absolute position `pos`.
    ///
    /// # Safety
    /// `pos` must lie in `base..end`, and the buffer must not have been
    /// touched since [`new`](Self::new).
    #[inline(always)]
    unsafe fn at(&self, pos: usize) -> *mut u8 {
        debug_assert!(pos >= self.base && pos < self.end);
        // SAFETY: per the contract, `pos - base` is inside the reserved span.
        unsafe { self.origin.add(pos - self.base) }
    }
}

/// The map's bytes: `entries` as they stand, or (`ORDERED`) in `order`.
#[inline(always)]
fn fill<const KB: usize, const VB: usize, const ORDERED: bool>(
    buf: &mut Vec<u8>,
    entries: &[Slot],
    order: &[u32],
    plan: &MapPlan,
) {
    let n = plan.len;
    let base = buf.len();
    let keys_at = plan.keys_at;
    let keys_end = keys_at + n * KB;
    let header_at = plan.values_at - 3 * VB;
    let types_at = plan.values_at + n * VB;
    let end = types_at + n;
    // Every region below lies in base..end, in this order, and each padding
    // is shorter than the field after it; checked once here so that the
    // stores need no checks of their own.
    assert!(
        n > 0
            && entries.len() == 2 * n
            && (!ORDERED || order.len() == n)
            && base + KB <= keys_at
            && keys_at - KB - base < KB
            && keys_end <= header_at
            && header_at - keys_end < VB
            && header_at + 3 * VB == plan.values_at
            && end == plan.end(),
        "map plan does not fit the buffer"
    );
    let width = BitWidth::from_bytes(VB as u64).unwrap_or(BitWidth::W64);
    let r = Reserved::new(buf, end);
    // SAFETY (every store below): each writes within base..end, which `r`
    // reserved (the assert above orders the regions).
    unsafe {
        // Padding is shorter than the width that follows it: one store of
        // zeros at its start covers it, and the next field overwrites the rest.
        put::<KB>(r.at(base), 0);
        put::<KB>(r.at(keys_at - KB), n as u64);
        put::<VB>(r.at(keys_end), 0);
        put::<VB>(r.at(header_at), (header_at - keys_at) as u64);
        put::<VB>(r.at(header_at + VB), KB as u64);
        put::<VB>(r.at(header_at + 2 * VB), n as u64);
        let (mut k_at, mut v_at, mut t_at) = (keys_at, plan.values_at, types_at);
        let mut entry = |k: &Slot, v: &Slot| {
            // A key is always an offset back to its bytes (the caller's
            // scan checked every key's type).
            debug_assert_eq!(k.value_type(), FlexType::Key);
            put::<KB>(r.at(k_at), k_at as u64 - k.data());
            put::<VB>(r.at(v_at), v.element_bits(v_at as u64, VB));
            *r.at(t_at) = v.stored_packed(width);
            k_at += KB;
            v_at += VB;
            t_at += 1;
        };
        // Exactly `n` entries either way (checked above).
        if ORDERED {
            for &j in order {
                let j = 2 * j as usize;
                entry(&entries[j], &entries[j + 1]);
            }
        } else {
            for pair in entries.chunks_exact(2) {
                entry(&pair[0], &pair[1]);
            }
        }
        debug_assert_eq!(t_at, end);
        // SAFETY: base..end is reserved, and every byte of it was written
        // above: padding, size, keys, padding, header, values, type bytes.
        buf.set_len(end);
    }
}

/// Where a vector's bytes go (an untyped or typed vector, or the values of
/// a map whose keys vector is already written), as absolute positions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VectorPlan {
    /// Number of elements.
    pub len: usize,
    /// Width of the elements and of the fields before them.
    pub width: BitWidth,
    /// Position of the first element.
    pub at: usize,
    /// For a map's values: the keys vector's position and width, written
    /// as the first two fields (an offset to it, and its width in bytes).
    pub keys: Option<(usize, BitWidth)>,
    /// Whether a size field comes before the elements (all but fixed
    /// typed vectors).
    pub sized: bool,
    /// Whether a type byte per element follows the elements (untyped
    /// vectors and maps).
    pub types: bool,
    /// For a vector (`STEP` 1, typed or not): the one inline type every
    /// element has, when they all have the same. Each element is then its
    /// scalar bits, and each type byte (untyped vectors) the same.
    pub uniform: Option<FlexType>,
}

impl VectorPlan {
    /// Number of fields before the first element.
    fn fields(&self) -> usize {
        self.sized as usize + 2 * self.keys.is_some() as usize
    }

    /// One past the last byte.
    pub fn end(&self) -> usize {
        let b = self.width.bytes();
        self.at + self.len * b + if self.types { self.len } else { 0 }
    }
}

/// Appends the vector `plan` lays out, with the elements `elems[0],
/// elems[STEP], ...` (`plan.len` of them), to `buf`, whose length is where
/// the vector's padding starts.
///
/// Panics when `plan` does not fit `buf` and `elems` (a bug of the caller),
/// before anything is written.
#[inline(always)]
pub(crate) fn write_vector<const STEP: usize>(
    buf: &mut Vec<u8>,
    elems: &[Slot],
    plan: &VectorPlan,
) {
    if plan.types {
        by_width::<STEP, true>(buf, elems, plan)
    } else {
        by_width::<STEP, false>(buf, elems, plan)
    }
}

#[inline(always)]
fn by_width<const STEP: usize, const TYPES: bool>(
    buf: &mut Vec<u8>,
    elems: &[Slot],
    plan: &VectorPlan,
) {
    match plan.width {
        BitWidth::W8 => fill_vector::<1, STEP, TYPES>(buf, elems, plan),
        BitWidth::W16 => fill_vector::<2, STEP, TYPES>(buf, elems, plan),
        BitWidth::W32 => fill_vector::<4, STEP, TYPES>(buf, elems, plan),
        BitWidth::W64 => fill_vector::<8, STEP, TYPES>(buf, elems, plan),
    }
}

#[inline(always)]
fn fill_vector<const B: usize, const STEP: usize, const TYPES: bool>(
    buf: &mut Vec<u8>,
    elems: &[Slot],
    plan: &VectorPlan,
) {
    let n = plan.len;
    let base = buf.len();
    let fields_at = plan.at - plan.fields() * B;
    let types_at = plan.at + n * B;
    let end = plan.end();
    let expected = if n == 0 { 0 } else { (n - 1) * STEP + 1 };
    assert!(
        elems.len() == expected
            && base <= fields_at
            && fields_at - base < B
            && end - base >= B
            && plan.width.bytes() == B
            && plan.types == TYPES,
        "vector plan does not fit the buffer"
    );
    let r = Reserved::new(buf, end);
    // SAFETY (every store below): each writes within base..end, which `r`
    // reserved (the assert above orders the regions).
    unsafe {
        // The padding is shorter than a field or element: one store of zeros
        // at its start covers it, and what follows overwrites the rest.
        put::<B>(r.at(base), 0);
        let mut field = fields_at;
        if let Some((keys_at, key_width)) = plan.keys {
            put::<B>(r.at(field), (field - keys_at) as u64);
            put::<B>(r.at(field + B), key_width.bytes() as u64);
            field += 2 * B;
        }
        if plan.sized {
            put::<B>(r.at(field), n as u64);
        }
        if let (1, Some(ty)) = (STEP, plan.uniform) {
            // One scalar type throughout (numeric arrays): no per-element
            // dispatch, and the type bytes (if any) are one fill.
            debug_assert!(ty.is_inline() && elems.iter().all(|e| e.value_type() == ty));
            let mut e_at = plan.at;
            if ty == FlexType::Float && B == 4 {
                for e in elems {
                    put::<B>(r.at(e_at), crate::builder::f32_bits(e.data()));
                    e_at += B;
                }
            } else {
                for e in elems {
                    put::<B>(r.at(e_at), e.data());
                    e_at += B;
                }
            }
            if TYPES {
                core::ptr::write_bytes(r.at(types_at), crate::types::pack_type(ty, plan.width), n);
            }
            buf.set_len(end);
            return;
        }
        put_elements::<B, STEP, TYPES>(&r, elems, plan.at, types_at, plan.width);
        // SAFETY: base..end is reserved, and every byte of it was written
        // above: padding, fields, elements, type bytes.
        buf.set_len(end);
    }
}

/// Appends the untyped vector of the `n` elements `elems[0]`,
/// `elems[STEP]`, ... (at least one) at width `B`, or with `keys` (the keys
/// vector's position and its keys' width) a map's values on that keys
/// vector: the padding, the offset back to the keys
/// vector and their width in bytes (maps only), the size, one slot and one
/// type byte per element, the bytes [`write_vector`] writes for the same
/// elements, keys and width. Returns the position of the first element.
/// For vectors and maps of a few elements (pairs, coordinates, short lists
/// of tags, records of a few fields), for which the general writer's plan
/// cost more than writing their bytes.
#[inline(always)]
pub(crate) fn write_small_vector<const B: usize, const STEP: usize>(
    buf: &mut Vec<u8>,
    elems: &[Slot],
    n: usize,
    keys: Option<(usize, BitWidth)>,
) -> usize {
    let base = buf.len();
    let fields = base + crate::types::padding(base, B);
    let at = fields + if keys.is_some() { 3 * B } else { B };
    let end = at + n * (B + 1);
    let width = BitWidth::from_bytes(B as u64).unwrap_or(BitWidth::W64);
    if let Some((keys_at, _)) = keys {
        assert!(
            keys_at <= base,
            "a map's keys vector comes before its values"
        );
    }
    let r = Reserved::new(buf, end);
    // SAFETY: base..end is reserved; the padding and the fields take
    // `at - base` bytes (at least one field of B), the elements n * B and
    // the type bytes n, each written below before the length is set.
    unsafe {
        // The padding (fewer than B bytes), then the fields over its tail.
        put::<B>(r.at(base), 0);
        if let Some((keys_at, key_width)) = keys {
            put::<B>(r.at(fields), (fields - keys_at) as u64);
            put::<B>(r.at(fields + B), key_width.bytes() as u64);
        }
        put::<B>(r.at(at - B), n as u64);
        put_elements::<B, STEP, true>(&r, elems, at, at + n * B, width);
        buf.set_len(end);
    }
    at
}

/// Stores `elems[0], elems[STEP], ...` as `B`-byte slots from `at` (each a
/// scalar or the offset back to its target) and, with `TYPES`, their type
/// bytes from `types_at` for a vector of `width`.
///
/// # Safety
/// Every slot and type byte position must be inside `r`.
#[inline(always)]
unsafe fn put_elements<const B: usize, const STEP: usize, const TYPES: bool>(
    r: &Reserved,
    elems: &[Slot],
    at: usize,
    types_at: usize,
    width: BitWidth,
) {
    let (mut e_at, mut t_at) = (at, types_at);
    let mut i = 0;
    while i < elems.len() {
        let e = &elems[i];
        unsafe {
            put::<B>(r.at(e_at), e.element_bits(e_at as u64, B));
            if TYPES {
                *r.at(t_at) = e.stored_packed(width);
            }
        }
        e_at += B;
        t_at += 1;
        i += STEP;
    }
}
