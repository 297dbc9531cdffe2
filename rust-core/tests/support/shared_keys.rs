//! Test inputs shared by the crate's unit tests (`src/lib.rs` includes this
//! file under `cfg(test)`) and the serde integration tests
//! (`tests/serde_tier.rs`), each with `#[path]` from its crate root, which
//! provides `Builder`, `BitWidth`, `Reader` and the `typed` module.

use super::typed::typed_builder_options;
use super::{BitWidth, Builder, Reader};

/// `bytes`, then a copy of it for each position and each of `values` with
/// that byte set to that value.
pub fn byte_variants(bytes: &[u8], values: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![bytes.to_vec()];
    for at in 0..bytes.len() {
        for &v in values {
            let mut m = bytes.to_vec();
            m[at] = v;
            out.push(m);
        }
    }
    out
}

/// Two lists (narrowest width 1 and 2 bytes) of four maps written with the
/// typed coders' options: maps 0, 1 and 3 (`{"id": i, "name": "n"}`) share
/// one keys vector, map 2 (`{"other": 9}`) has its own.
pub fn shared_keys_lists() -> Vec<Vec<u8>> {
    let mut lists = Vec::new();
    for min in [BitWidth::W8, BitWidth::W16] {
        let mut b = Builder::with_options(typed_builder_options());
        b.force_min_width(min);
        b.start_vector();
        for i in 0..4 {
            b.start_map();
            if i == 2 {
                b.key("other");
                b.int(9);
            } else {
                b.key("id");
                b.int(i);
                b.key("name");
                b.string("n");
            }
            b.end_map().unwrap();
        }
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        let list = Reader::new(&bytes).unwrap().as_vector().unwrap();
        let at = |i| list.get(i).unwrap().as_map().unwrap().keys_offset();
        assert!(at(0) == at(1) && at(1) == at(3) && at(2) != at(0));
        lists.push(bytes);
    }
    lists
}
