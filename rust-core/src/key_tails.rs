//! The bytes a builder writes after a message type's key block, kept from
//! one buffer to the next.
//!
//! Typed encoders write each type's keys once per buffer: the key block (every
//! key with its NUL), then the keys vector (padding, size, one offset back to
//! each key). Those offsets depend only on the block, on where the block
//! starts modulo 8 (which fixes the padding for every width) and on the
//! builder's minimum width, so they are the same in every buffer where the
//! type starts at the same phase. [`KeyTails`] keeps them and the next buffer
//! copies them, instead of choosing the width and computing each offset again.

use std::sync::Arc;

use crate::builder::{Builder, KeyVector};
use crate::error::Result;
use crate::types::BitWidth;

/// The key bytes a keys vector is written from.
#[derive(Clone, Debug)]
pub(crate) enum KeyBlock {
    /// A generated type's block, in the program's constants.
    Static(&'static [u8]),
    /// A run-time layout's block (an SDK's compiled schema).
    Shared(Arc<[u8]>),
}

impl KeyBlock {
    /// The block's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            KeyBlock::Static(b) => b,
            KeyBlock::Shared(b) => b,
        }
    }

    /// True when both name the same bytes in memory. A kept entry holds its
    /// block (a shared one by its `Arc`), so equal addresses mean equal bytes.
    fn same(&self, other: &KeyBlock) -> bool {
        let (a, b) = (self.bytes(), other.bytes());
        a.len() == b.len() && core::ptr::eq(a.as_ptr(), b.as_ptr())
    }
}

/// Entries kept at most (a schema's message types; beyond, the oldest go).
const MAX: usize = 64;

/// One type's tail at one phase.
#[derive(Debug)]
struct Tail {
    block: KeyBlock,
    /// The block's start modulo 8.
    phase: u8,
    /// The builder's minimum width when it was written.
    min: BitWidth,
    /// Width of the keys vector.
    width: BitWidth,
    /// Number of keys.
    count: usize,
    /// The block, then the padding, size and offsets written after it: one
    /// copy writes both.
    bytes: Box<[u8]>,
}

/// Tails of the key blocks written so far, by block and phase.
#[derive(Debug, Default)]
pub(crate) struct KeyTails {
    entries: Vec<Tail>,
    /// The entry to replace next once full.
    next: usize,
}

impl KeyTails {
    /// Number of tails kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Writes `block` and its keys vector at the end of `b`: from a kept tail
    /// when there is one for this block, phase and minimum width (tried
    /// first at index `hint`, which is set to the tail used), else with
    /// `write` (which writes both), keeping the tail it wrote.
    #[inline]
    pub(crate) fn write(
        &mut self,
        b: &mut Builder,
        block: &KeyBlock,
        hint: &mut usize,
        write: impl FnOnce(&mut Builder) -> Result<KeyVector>,
    ) -> Result<KeyVector> {
        let start = b.len();
        let phase = (start % 8) as u8;
        let min = b.min_width();
        let fits = |t: &Tail| t.phase == phase && t.min == min && t.block.same(block);
        let found = match self.entries.get(*hint) {
            Some(t) if fits(t) => Some(*hint),
            _ => self.entries.iter().position(fits),
        };
        if let Some(i) = found {
            *hint = i;
            let t = &self.entries[i];
            return b.key_vector_from_tail(&t.bytes, t.width, t.count);
        }
        let kv = write(b)?;
        let tail = Tail {
            block: block.clone(),
            phase,
            min,
            width: kv.width(),
            count: kv.len(),
            bytes: b.written_since(start).into(),
        };
        if self.entries.len() < MAX {
            *hint = self.entries.len();
            self.entries.push(tail);
        } else {
            *hint = self.next;
            self.entries[self.next] = tail;
            self.next = (self.next + 1) % MAX;
        }
        Ok(kv)
    }
}
