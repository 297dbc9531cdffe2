//! A builder kept per thread between one-shot writes ([`crate::from_json`],
//! and the serde tier's `to_vec`), so that a stream of values is written
//! without allocating a builder, or growing its buffer and tables, for each.

use std::cell::Cell;
use std::thread::LocalKey;

use crate::builder::{spare_limit, Builder, BuilderOptions};
use crate::error::Result;

/// What a one-shot writer keeps beside its builder between calls (the JSON
/// parser's stack, the serializer's struct memos).
pub(crate) trait Kept: Default {
    /// Heap bytes held, counted with the builder's against what a thread
    /// may keep.
    fn held(&self) -> usize;
    /// Makes it fit for the next call after a write that failed part-way.
    fn recover(&mut self);
}

/// A thread's kept builder and state, empty while a call has them (a
/// nested call then makes its own).
pub(crate) type Spare<S> = Cell<Option<(Builder, S)>>;

/// Runs `write` on the builder and state this thread kept from its last
/// call with the same `options` (or new ones), and returns the finished
/// buffer. The buffer is handed over without a copy; the builder keeps a
/// new one a little larger than this output. After an error the builder
/// is cleared and the state recovered. The two are kept for the next call
/// while the memory they hold is in proportion to the value just written
/// ([`spare_limit`]: 256 KiB after a small value, up to 32 times a large
/// one's size, 8 MiB at most); otherwise they are dropped here.
pub(crate) fn write_kept<S: Kept>(
    spare: &'static LocalKey<Spare<S>>,
    options: BuilderOptions,
    write: impl FnOnce(&mut Builder, &mut S) -> Result<()>,
) -> Result<Vec<u8>> {
    let (mut builder, mut state) = match spare.with(Cell::take) {
        Some((builder, state)) if builder.options() == &options => (builder, state),
        _ => (Builder::with_options(options), S::default()),
    };
    let written = write(&mut builder, &mut state);
    let len = builder.len();
    let out = written.and_then(|()| builder.finish_vec_for_next());
    if out.is_err() {
        builder.clear();
        state.recover();
    }
    if builder.capacity() + builder.scratch_capacity() + state.held() <= spare_limit(len) {
        spare.with(|s| s.set(Some((builder, state))));
    }
    out
}
