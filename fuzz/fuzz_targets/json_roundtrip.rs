//! Arbitrary text through `from_json`: whatever it accepts must verify, and
//! `to_json` of it must succeed (or fail only for NaN/infinity, which JSON
//! numbers such as `1e999` produce, or the budget), with output that is a
//! fixed point of another round trip.
#![no_main]

use flexbuf::ErrorKind;
use flexbuf_fuzz::walk::{check_bytes, Caps};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(buf) = flexbuf::from_json(text) else {
        return;
    };
    if let Err(e) = flexbuf::verify(&buf) {
        panic!("from_json wrote a buffer the verifier rejects: {e}");
    }
    match flexbuf::to_json(&buf) {
        Ok(_) => {}
        Err(e) => assert!(
            matches!(
                e.kind(),
                ErrorKind::NonFiniteFloat | ErrorKind::BudgetExceeded
            ),
            "to_json of from_json output failed: {e}"
        ),
    }
    // The full oracle (readers, lookups, equality, JSON fixed point) as well.
    check_bytes(&buf, Caps::default());
});
