//! Typed decode of hostile bytes never panics, and the one-pass decode
//! agrees with the verifying one: every committed case input and every
//! fixture buffer (as `from_json` and as the typed encoder write them),
//! mutated many ways, through `from_flex` (one checked pass, no verifier) and
//! `from_flex_strict` (verify, then decode). Whenever `verify` accepts a
//! mutation, both must return the same value (compared by re-encoding) or
//! the same error (kind and path).

use std::panic::{catch_unwind, AssertUnwindSafe};

use flexbuf_typed_tests::cases::{default_dir, input_bytes, load_all, read_rel};
use flexbuf_typed_tests::definitions::{FIXTURES, GOLDENS};
use flexbuf_typed_tests::dispatch::{agreement, coders, Coder};

/// xorshift64*: deterministic, so a failure names a reproducible mutation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `bytes`, biased towards the bytes decoding depends on most.
fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = bytes.to_vec();
    if m.is_empty() {
        return vec![rng.next() as u8; rng.below(4)];
    }
    let n = m.len();
    match rng.below(7) {
        0 => {
            let i = rng.below(n);
            m[i] = rng.next() as u8;
        }
        1 => {
            let i = rng.below(n);
            m[i] ^= 1 << rng.below(8);
        }
        // The root: offset, packed type and width.
        2 => {
            let i = n - 1 - rng.below(n.min(4));
            m[i] = rng.next() as u8;
        }
        3 => m.truncate(rng.below(n)),
        4 => {
            let i = rng.below(n);
            m[i] = [0, 1, 0x7f, 0x80, 0xff][rng.below(5)];
        }
        5 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(n);
                m[i] = rng.next() as u8;
            }
        }
        _ => {
            let (i, j) = (rng.below(n), rng.below(n));
            m.swap(i, j);
        }
    }
    m
}

/// Checks one input through every entry point; panics name `label`.
fn check(label: &str, c: Coder, m: &[u8]) {
    match catch_unwind(AssertUnwindSafe(|| agreement(c, m))) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => panic!("{label}: {why}"),
        Err(_) => panic!("{label} panicked"),
    }
}

/// Decodes every mutation both ways.
fn hammer(label: &str, schema: &str, ty: &str, bytes: &[u8], rounds: usize, seed: u64) {
    let c = coders(schema, ty).unwrap_or_else(|| panic!("no coder for {ty}"));
    check(&format!("{label} (unmutated)"), c, bytes);
    let mut rng = Rng(seed | 1);
    for round in 0..rounds {
        let m = mutate(bytes, &mut rng);
        check(&format!("{label}: mutation {round} (seed {seed})"), c, &m);
    }
}

#[test]
fn mutated_case_inputs_never_panic() {
    let dir = default_dir();
    for (_, file) in load_all(&dir).unwrap() {
        for (n, case) in file.cases.iter().enumerate() {
            let input = input_bytes(&dir, case).unwrap();
            if input.len() > 4096 {
                continue; // fixtures: below, with fewer rounds
            }
            hammer(
                &case.name,
                &case.schema,
                &case.ty,
                &input,
                150,
                0x5eed + n as u64,
            );
        }
    }
}

#[test]
fn mutated_fixture_buffers_never_panic() {
    let dir = default_dir();
    for (n, &(stem, ty)) in FIXTURES.iter().enumerate() {
        let schema = format!("schemas/{stem}.fxs");
        for kind in ["input", "expect"] {
            let bytes = read_rel(&dir, &format!("{GOLDENS}/{stem}.{kind}.bin")).unwrap();
            let rounds = if bytes.len() > 50_000 { 12 } else { 60 };
            hammer(
                &format!("{stem}.{kind}"),
                &schema,
                ty,
                &bytes,
                rounds,
                0xf1c7 + n as u64,
            );
        }
    }
}

#[test]
fn the_unmutated_fixture_buffers_decode_both_ways() {
    let dir = default_dir();
    for &(stem, ty) in FIXTURES {
        let c = coders(&format!("schemas/{stem}.fxs"), ty).unwrap();
        for kind in ["input", "expect"] {
            let bytes = read_rel(&dir, &format!("{GOLDENS}/{stem}.{kind}.bin")).unwrap();
            let one = (c.one_pass)(&bytes).unwrap_or_else(|e| panic!("{stem}.{kind}: {e}"));
            assert_eq!(
                Ok(&one),
                (c.strict)(&bytes).map_err(|e| e.to_string()).as_ref(),
                "{stem}.{kind}"
            );
            assert_eq!(
                Ok(&one),
                (c.borrowed)(&bytes).map_err(|e| e.to_string()).as_ref(),
                "{stem}.{kind} borrowed"
            );
        }
    }
}

/// Every file of the invalid corpus (`conformance/invalid/*.bin`, including
/// its must-accept controls), decoded as every generated type through both
/// entry points, unmutated and mutated.
#[test]
fn the_invalid_corpus_decodes_the_same_both_ways() {
    use flexbuf_typed_tests::dispatch::TYPES;
    let invalid = default_dir().join("invalid");
    let mut files: Vec<_> = std::fs::read_dir(&invalid)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    files.sort();
    assert!(
        files.len() > 200,
        "{} files in {}",
        files.len(),
        invalid.display()
    );
    for (n, path) in files.iter().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        for &(schema, ty, _) in TYPES {
            let rounds = if bytes.len() > 4096 { 0 } else { 4 };
            hammer(
                &format!("{name} as {ty}"),
                schema,
                ty,
                &bytes,
                rounds,
                0x1a7 + n as u64,
            );
        }
    }
}
