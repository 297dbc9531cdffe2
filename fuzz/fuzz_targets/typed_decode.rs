//! Arbitrary bytes through the generated Rust decoders of every conformance
//! schema: the first byte picks the type (`TYPES[byte % len]` of
//! `flexbuf_typed_tests::dispatch`), the rest is the buffer. `from_flex` (one
//! checked pass), `from_flex_strict` (verify, then decode) and the borrowed
//! `from_flex_borrowed` must not panic, and must keep the contract
//! `dispatch::agreement` checks.
#![no_main]

use flexbuf_typed_tests::dispatch::{agreement, TYPES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let (schema, ty, coder) = TYPES[pick as usize % TYPES.len()];
    if let Err(why) = agreement(coder, bytes) {
        panic!("{ty} ({schema}): {why}");
    }
});
