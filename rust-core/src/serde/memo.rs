//! What the serializer remembers of each struct type between its values.
//!
//! A struct's fields arrive in declaration order, with the same `&'static
//! str` names, value after value. Each type (by the address of its name)
//! keeps, for the current buffer, where each field's key was written
//! (pushed again without hashing the key into the pool), the keys vector
//! of a value it wrote (shared by the next values with the same keys, so it
//! is written once per type, not once per value), and the entry order that
//! sorted that value's keys (the next value's guess for
//! [`Builder::end_map_in_order`]). Everything is checked before use: a key
//! by the address and length of its name and the buffer's generation, a
//! keys vector against a value's keys by [`Builder::end_map_sharing`], an
//! order by the builder (a wrong guess costs one pass and is replaced). Two
//! types that land in one slot only evict each other.
//!
//! **Values without keys.** Once a type's keys vector is in the buffer, its
//! next values with as many fields are written without keys: each field's
//! value is pushed alone, after its name is checked (by address and length)
//! against the name of that field in the value that wrote the keys vector,
//! and the values end as a map on that keys vector
//! ([`Builder::end_struct_values`], in the remembered order). What makes
//! this sound:
//! - the keys vector is recorded only with the value that wrote it, once
//!   the remembered keys of its first `fields` fields are checked to be
//!   that value's keys (the same key slots, so the same text);
//! - a remembered key of those fields is replaced only after the keys
//!   vector is forgotten;
//! - while a value without keys is open on a memo (`busy`), nothing in the
//!   memo changes: its keys and order are read-only, and a type that lands
//!   in its slot gets no memo instead of evicting it.
//!
//! A field whose name differs (one skipped by `skip_serializing_if`, a
//! hand-written impl) turns the values pushed so far back into key/value
//! entries ([`Builder::open_values_as_map`], with the remembered keys they
//! were checked against) and the value goes on with keys.

use crate::builder::{Builder, ShareFlags, Slot};
use crate::error::Result;

/// Slots of the table.
const SLOTS: usize = 32;

/// The slot [`TypeMemos::claim`] gives a type that has no memo (its slot is
/// held by another type's open value without keys): every call then does
/// what the builder does with no memo at all.
const NO_MEMO: usize = SLOTS;

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
    /// The entry order that sorted the keys of the value that wrote
    /// `keys_vector` (empty: they came sorted).
    order: Vec<u32>,
    /// Per field index, where its key was written.
    keys: Vec<KeyMemo>,
    /// The keys vector of a value of the type, and the generation of the
    /// buffer it lives in.
    keys_vector: Option<(u64, Slot)>,
    /// The number of fields of the value that wrote `keys_vector`: the
    /// names of `keys[..fields]`, in field order, are its keys.
    fields: usize,
    /// Values without keys open on this memo (it is read-only meanwhile).
    busy: u32,
}

/// Memos of the struct types met, in a direct-mapped table.
#[derive(Debug, Default)]
pub(super) struct TypeMemos {
    /// Allocated when the first struct is met.
    slots: Vec<Memo>,
}

impl TypeMemos {
    /// The slot of the type named `name`, cleared when another type held it
    /// ([`NO_MEMO`] when that type has a value without keys open).
    pub(super) fn claim(&mut self, name: &'static str) -> usize {
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, Memo::default);
        }
        let at = name.as_ptr() as usize ^ name.len();
        let i = (at.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as usize) >> 20) % SLOTS;
        let memo = &mut self.slots[i];
        let owner = name.as_ptr() as usize + 1;
        if memo.owner != owner {
            if memo.busy > 0 {
                return NO_MEMO;
            }
            memo.owner = owner;
            memo.order.clear();
            memo.keys.clear();
            memo.keys_vector = None;
            memo.fields = 0;
        }
        i
    }

    /// Heap bytes of the memos' table. (Each type's keys and order grow
    /// with its number of fields, which the program's types bound, not the
    /// data; summing them cost every `to_vec` call a pass over the table.)
    pub(super) fn held(&self) -> usize {
        self.slots.capacity() * core::mem::size_of::<Memo>()
    }

    /// Forgets the values without keys left open by a serialization that
    /// failed (their memos are writable again).
    pub(super) fn release(&mut self) {
        for memo in &mut self.slots {
            memo.busy = 0;
        }
    }

    /// True when a value of `len` fields of the type in `slot` is to be
    /// written without keys (the caller then pushes values only, on an open
    /// vector): the type's keys vector is in this buffer and came from a
    /// value of as many fields. The memo is read-only until
    /// [`add_keys`](Self::add_keys) or [`end_keyless`](Self::end_keyless).
    pub(super) fn keyless(&mut self, slot: usize, len: usize, builder: &Builder) -> bool {
        let Some(memo) = self.slots.get_mut(slot) else {
            return false;
        };
        let ready = matches!(memo.keys_vector, Some((g, _)) if g == builder.generation())
            && len == memo.fields
            && len > 0;
        if ready {
            memo.busy += 1;
        }
        ready
    }

    /// True when field `field` of a value without keys of the type in
    /// `slot` is named `name`, as that field of the value that wrote the
    /// keys vector was.
    #[inline]
    pub(super) fn known_field(&self, slot: usize, field: usize, name: &'static str) -> bool {
        self.slots.get(slot).is_some_and(|memo| {
            field < memo.fields
                && memo
                    .keys
                    .get(field)
                    .is_some_and(|k| k.name == name.as_ptr() as usize && k.len == name.len())
        })
    }

    /// Turns the `count` values of a value without keys of the type in
    /// `slot` (open on `builder`, each field checked by
    /// [`known_field`](Self::known_field)) into key/value entries, to go
    /// on with keys.
    pub(super) fn add_keys(&mut self, slot: usize, count: usize, builder: &mut Builder) {
        let Some(memo) = self.slots.get_mut(slot) else {
            return;
        };
        memo.busy = memo.busy.saturating_sub(1);
        if let Some(keys) = memo.keys.get(..count) {
            builder.open_values_as_map(keys.iter().map(|k| k.slot));
        }
    }

    /// Ends the value without keys of `count` fields of the type in `slot`
    /// open on `builder`: as a map on the type's keys vector when it has
    /// all the fields, else with keys as any value of the type.
    pub(super) fn end_keyless(
        &mut self,
        slot: usize,
        count: usize,
        builder: &mut Builder,
    ) -> Result<()> {
        if let Some(memo) = self.slots.get(slot) {
            if let Some((_, keys)) = memo.keys_vector {
                if count == memo.fields && builder.end_struct_values(keys, &memo.order) {
                    self.slots[slot].busy -= 1;
                    return Ok(());
                }
            }
        }
        self.add_keys(slot, count, builder);
        self.end_struct(slot, builder)
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
        let Some(memo) = self.slots.get_mut(slot) else {
            builder.key(name);
            return;
        };
        if !builder.options().share.contains(ShareFlags::KEYS) {
            builder.key(name);
            return;
        }
        let generation = builder.generation();
        if let Some(k) = memo.keys.get(field) {
            if k.name == name.as_ptr() as usize && k.len == name.len() && k.generation == generation
            {
                builder.push_key_slot(k.slot);
                return;
            }
        }
        builder.key(name);
        if memo.busy > 0 {
            return;
        }
        let Some(written) = builder.top_key() else {
            return;
        };
        let key = KeyMemo {
            name: name.as_ptr() as usize,
            len: name.len(),
            generation,
            slot: written,
        };
        if field < memo.fields {
            // The keys vector's value had another key here.
            memo.keys_vector = None;
            memo.fields = 0;
        }
        if field < memo.keys.len() {
            memo.keys[field] = key;
        } else if field == memo.keys.len() {
            memo.keys.push(key);
        }
    }

    /// Ends the struct value open on `builder`, of the type in `slot`: with
    /// the type's keys vector when its keys are the same
    /// ([`Builder::end_map_sharing`] checks), else as any map, guessing the
    /// order that sorts its fields from the last value, and remembering its
    /// keys vector.
    pub(super) fn end_struct(&mut self, slot: usize, builder: &mut Builder) -> Result<()> {
        let Some(memo) = self.slots.get_mut(slot) else {
            return builder.end_map();
        };
        let generation = builder.generation();
        if let Some((g, keys)) = memo.keys_vector {
            if g == generation && builder.end_map_sharing(keys, &memo.order) {
                return Ok(());
            }
        }
        if memo.busy > 0 {
            // Read-only: another value of the type is open without keys.
            return builder.end_map();
        }
        let fields = builder.open_map_len();
        // Its keys must be the remembered ones (the same slots) for the
        // keys vector to stand for the remembered names.
        let remembered = memo
            .keys
            .get(..fields)
            .is_some_and(|keys| builder.open_map_keys_are(keys.iter().map(|k| k.slot)));
        memo.keys_vector = None;
        memo.fields = 0;
        builder.end_map_in_order(&mut memo.order)?;
        if remembered && builder.options().share.contains(ShareFlags::KEYS) {
            memo.keys_vector = builder.top_map_keys().map(|k| (generation, k));
            memo.fields = fields;
        }
        Ok(())
    }
}
