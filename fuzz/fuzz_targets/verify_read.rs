//! Arbitrary bytes through the verifier, the checked and trusted readers,
//! equality, hashing and `to_json`: nothing may panic, hang or exhaust memory,
//! and verified buffers must read consistently (see `flexbuf_fuzz::walk`).
#![no_main]

use flexbuf_fuzz::walk::{check_bytes, Caps};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_bytes(data, Caps::default());
});
