//! Inputs shared by unit tests: the conformance goldens, the invalid corpus
//! and the fixtures, read from the repository, and a seeded random source.

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

/// A small seeded random source (xorshift64) for randomized unit tests:
/// the same seed gives the same sequence, so a failure can be replayed.
pub(crate) struct Rng(u64);

impl Rng {
    /// A source starting from `seed` (not zero).
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub(crate) fn bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.bits() % n.max(1) as u64) as usize
    }
}
