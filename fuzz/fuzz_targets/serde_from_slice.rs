//! Arbitrary bytes through the serde tier's `from_slice` into structs, enums,
//! options, maps and `serde_json::Value` (see `flexbuf_fuzz::serde_check`).
#![no_main]

use flexbuf_fuzz::serde_check::check_serde;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_serde(data);
});
