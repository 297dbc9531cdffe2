//! Inputs shared by unit tests: the conformance goldens, the invalid corpus
//! and the fixtures, read from the repository.

use crate::builder::ShareFlags;
use crate::json::{from_json_with, JsonOptions};

fn conformance() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// Golden bytes of every build case, the invalid corpus, and the fixtures
/// built from JSON with each sharing flag.
pub(crate) fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let root = conformance();
    for entry in std::fs::read_dir(root.join("cases")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for part in text.split("\"bytes\": \"").skip(1) {
            out.push(unhex(&part[..part.find('"').unwrap()]));
        }
    }
    for entry in std::fs::read_dir(root.join("invalid")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "bin") {
            out.push(std::fs::read(path).unwrap());
        }
    }
    for name in ["user_profile", "wide_map", "deep_nesting", "api_response"] {
        let text = std::fs::read_to_string(root.join(format!("fixtures/{name}.json"))).unwrap();
        for share in [ShareFlags::NONE, ShareFlags::KEYS, ShareFlags::ALL] {
            let opts = JsonOptions {
                share,
                ..JsonOptions::default()
            };
            out.push(from_json_with(&text, &opts).unwrap());
        }
    }
    assert!(out.len() > 600, "found {} seeds", out.len());
    out
}
