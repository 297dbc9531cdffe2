//! The C ABI (`capi/`) on arbitrary bytes, called exactly as a C program does.
//!
//! Must hold: no call returns `FLEXBUF_ERR_PANIC` (a panic caught at the
//! boundary is still a bug; the guard would otherwise hide it from the
//! fuzzer); `flexbuf_verify`, `flexbuf_root` and `flexbuf_to_json` agree on
//! whether the bytes are valid; on failure every out-parameter is zeroed; a
//! bounded walk of an accepted buffer through the `flexbuf_ref_*` accessors
//! fails only with type, index or budget statuses, never `INVALID_BUFFER`;
//! the same bytes as JSON text go through `flexbuf_from_json`, whose output
//! must verify; and no owned buffer outlives its release.
#![no_main]

use flexbuf_capi::codec::{flexbuf_from_json, flexbuf_to_json};
use flexbuf_capi::memory::{
    flexbuf_buffer_release, flexbuf_live_buffers, FlexbufBuffer, FlexbufBytes,
};
use flexbuf_capi::reader::*;
use flexbuf_capi::status::*;
use libfuzzer_sys::fuzz_target;

fn no_panic(s: FlexbufStatus, what: &str) -> FlexbufStatus {
    assert_ne!(s, FLEXBUF_ERR_PANIC, "{what} panicked inside the C ABI");
    s
}

/// Reads every value below `r` (at most `budget` values in all).
unsafe fn walk(r: &FlexbufRef, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let (mut b, mut i, mut u, mut d) = (false, 0i64, 0u64, 0f64);
    let mut bytes = FlexbufBytes {
        data: std::ptr::null(),
        len: 0,
    };
    let statuses = [
        no_panic(flexbuf_ref_bool(r, &mut b), "ref_bool"),
        no_panic(flexbuf_ref_int(r, &mut i), "ref_int"),
        no_panic(flexbuf_ref_uint(r, &mut u), "ref_uint"),
        no_panic(flexbuf_ref_double(r, &mut d), "ref_double"),
        no_panic(flexbuf_ref_string(r, &mut bytes), "ref_string"),
        no_panic(flexbuf_ref_blob(r, &mut bytes), "ref_blob"),
    ];
    for s in statuses {
        assert_ne!(
            s, FLEXBUF_ERR_INVALID_BUFFER,
            "an accessor found a verified buffer invalid"
        );
    }
    let mut n = 0usize;
    if no_panic(flexbuf_ref_len(r, &mut n), "ref_len") != FLEXBUF_OK {
        return;
    }
    for k in 0..n.min(64) {
        let mut key = FlexbufBytes {
            data: std::ptr::null(),
            len: 0,
        };
        let s = no_panic(flexbuf_ref_key_at(r, k, &mut key), "ref_key_at");
        let mut child = std::mem::zeroed::<FlexbufRef>();
        if s == FLEXBUF_OK {
            // Lookup by the stored key must find a value (keys are sorted and unique).
            let mut found = std::mem::zeroed::<FlexbufRef>();
            let l = no_panic(
                flexbuf_ref_lookup(r, key.data.cast(), key.len, &mut found),
                "ref_lookup",
            );
            assert_eq!(l, FLEXBUF_OK, "lookup of stored key {k} failed");
        }
        let s = no_panic(flexbuf_ref_index(r, k, &mut child), "ref_index");
        match s {
            FLEXBUF_OK => walk(&child, budget),
            // Depth beyond the ref's path capacity is refused, not a crash.
            // Strings and blobs have a length but no children.
            FLEXBUF_ERR_RANGE | FLEXBUF_ERR_INDEX | FLEXBUF_ERR_TYPE => {}
            other => panic!("ref_index returned {other}"),
        }
    }
}

fuzz_target!(|data: &[u8]| unsafe {
    let v = no_panic(flexbuf_verify(data.as_ptr(), data.len()), "verify");
    let mut root = std::mem::zeroed::<FlexbufRef>();
    let r = no_panic(flexbuf_root(data.as_ptr(), data.len(), &mut root), "root");
    let mut json = FlexbufBuffer {
        data: std::ptr::null(),
        len: 0,
        handle: 0,
    };
    let j = no_panic(
        flexbuf_to_json(data.as_ptr(), data.len(), 0, &mut json),
        "to_json",
    );
    if v == FLEXBUF_OK {
        assert_eq!(r, FLEXBUF_OK);
        assert!(
            matches!(j, FLEXBUF_OK | FLEXBUF_ERR_JSON | FLEXBUF_ERR_BUDGET),
            "to_json {j}"
        );
        let mut budget = 2000;
        walk(&root, &mut budget);
    } else {
        assert_eq!(v, FLEXBUF_ERR_INVALID_BUFFER);
        assert_eq!(r, FLEXBUF_ERR_INVALID_BUFFER);
        assert_eq!(j, FLEXBUF_ERR_INVALID_BUFFER);
        assert!(root.buf.is_null() && root.len == 0, "root left non-zero");
    }
    if j != FLEXBUF_OK {
        assert!(
            json.data.is_null() && json.len == 0 && json.handle == 0,
            "json left non-zero"
        );
    }
    assert_eq!(flexbuf_buffer_release(json.handle), FLEXBUF_OK);

    let mut parsed = FlexbufBuffer {
        data: std::ptr::null(),
        len: 0,
        handle: 0,
    };
    let p = no_panic(
        flexbuf_from_json(data.as_ptr().cast(), data.len(), &mut parsed),
        "from_json",
    );
    if p == FLEXBUF_OK {
        assert_eq!(
            flexbuf_verify(parsed.data, parsed.len),
            FLEXBUF_OK,
            "from_json wrote an invalid buffer"
        );
    }
    assert_eq!(flexbuf_buffer_release(parsed.handle), FLEXBUF_OK);
    let mut live = 1;
    flexbuf_live_buffers(&mut live);
    assert_eq!(live, 0, "an owned buffer outlived its release");
});
