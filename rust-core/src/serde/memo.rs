//! What the serializer remembers of each struct type between its values.
//!
//! A struct's fields arrive in declaration order, with the same `&'static
//! str` names, value after value. Each type (by the address of its name)
//! keeps, for the current buffer, where each field's key was written
//! (pushed again without hashing the key into the pool) and the keys vector
//! of its last value (shared by the next value with the same keys, so it is
//! written once per type, not once per value), and the entry order that
//! sorted its keys (the next value's guess for
//! [`Builder::end_map_in_order`]). Everything is checked before use: a key
//! by the address and length of its name and the buffer's generation, a
//! keys vector against the value's keys by [`Builder::end_map_sharing`], an
//! order by the builder (a wrong guess costs one pass and is replaced). Two
//! types that land in one slot only evict each other.

use crate::builder::{Builder, ShareFlags, Slot};
use crate::error::Result;

/// Slots of the table.
const SLOTS: usize = 32;

/// A key written for a field: its name's address and length, the
/// generation of the buffer it lives in, and its slot.
#[derive(Clone, Copy, Debug)]
struct KeyMemo {
    name: usize,
    len: usize,
    generation: u64,
    slot: Slot,
}

/// One struct type's memo.
#[derive(Debug, Default)]
struct Memo {
    /// Address of the type's name, plus one (0: empty).
    owner: usize,
    /// The entry order that sorted its keys (empty: they came sorted).
    order: Vec<u32>,
    /// Per field index, where its key was written.
    keys: Vec<KeyMemo>,
    /// The keys vector of the type's last value, and the generation of the
    /// buffer it lives in.
    keys_vector: Option<(u64, Slot)>,
}

/// Memos of the struct types met, in a direct-mapped table.
#[derive(Debug, Default)]
pub(super) struct TypeMemos {
    /// Allocated when the first struct is met.
    slots: Vec<Memo>,
}

impl TypeMemos {
    /// The slot of the type named `name`, cleared when another type held it.
    pub(super) fn claim(&mut self, name: &'static str) -> usize {
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, Memo::default);
        }
        let at = name.as_ptr() as usize ^ name.len();
        let i = (at.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as usize) >> 20) % SLOTS;
        let memo = &mut self.slots[i];
        let owner = name.as_ptr() as usize + 1;
        if memo.owner != owner {
            memo.owner = owner;
            memo.order.clear();
            memo.keys.clear();
            memo.keys_vector = None;
        }
        i
    }

    /// Pushes the key of field `field` (named `name`) of the type in
    /// `slot`: the key written for it earlier in this buffer when there is
    /// one and keys are pooled, else through [`Builder::key`].
    pub(super) fn push_key(
        &mut self,
        slot: usize,
        field: usize,
        name: &'static str,
        builder: &mut Builder,
    ) {
        if !builder.options().share.contains(ShareFlags::KEYS) {
            builder.key(name);
            return;
        }
        let generation = builder.generation();
        let keys = &mut self.slots[slot].keys;
        if let Some(k) = keys.get(field) {
            if k.name == name.as_ptr() as usize && k.len == name.len() && k.generation == generation
            {
                builder.push_key_slot(k.slot);
                return;
            }
        }
        builder.key(name);
        let Some(written) = builder.top_key() else {
            return;
        };
        let memo = KeyMemo {
            name: name.as_ptr() as usize,
            len: name.len(),
            generation,
            slot: written,
        };
        if field < keys.len() {
            keys[field] = memo;
        } else if field == keys.len() {
            keys.push(memo);
        }
    }

    /// Ends the struct value open on `builder`, of the type in `slot`: with
    /// the keys vector of the type's last value in this buffer when its
    /// keys are the same ([`Builder::end_map_sharing`] checks), else as any
    /// map, guessing the order that sorts its fields from the last value.
    pub(super) fn end_struct(&mut self, slot: usize, builder: &mut Builder) -> Result<()> {
        let memo = &mut self.slots[slot];
        let generation = builder.generation();
        if let Some((g, keys)) = memo.keys_vector {
            if g == generation && builder.end_map_sharing(keys, &memo.order) {
                return Ok(());
            }
        }
        builder.end_map_in_order(&mut memo.order)?;
        memo.keys_vector = if builder.options().share.contains(ShareFlags::KEYS) {
            builder.top_map_keys().map(|k| (generation, k))
        } else {
            None
        };
        Ok(())
    }
}
