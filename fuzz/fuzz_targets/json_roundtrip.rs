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
    // A lone number reads as the standard library reads it (integers within
    // i64 or u64 as such, anything else as the correctly rounded double).
    let number = text.trim_matches([' ', '\t', '\n', '\r']);
    if number
        .bytes()
        .all(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
    {
        let root = flexbuf::Reader::new(&buf).expect("verified");
        let integer = !number.contains(['.', 'e', 'E']);
        if let (true, Ok(i)) = (integer, number.parse::<i64>()) {
            assert_eq!(root.as_i64().ok(), Some(i), "{number}");
        } else if let (true, Ok(u)) = (integer, number.parse::<u64>()) {
            assert_eq!(root.as_u64().ok(), Some(u), "{number}");
        } else if let Ok(f) = number.parse::<f64>() {
            let got = root.as_f64().expect("a double");
            assert_eq!(got.to_bits(), f.to_bits(), "{number}: {got:?} != {f:?}");
        }
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
