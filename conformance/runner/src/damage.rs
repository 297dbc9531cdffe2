//! The agreement category: thousands of damaged buffers, one verdict each.
//!
//! A seeded generator derives damaged copies of valid buffers (every golden
//! case, every JSON fixture of `conformance/fixtures/`, every valid file of the
//! invalid corpus) with structural mutations: truncation at either end, byte
//! noise, type bytes changed with their width bits kept, width bits changed,
//! offsets bent by 1..8 either way, size fields grown, the root width and
//! root type changed, and runs of bytes copied over other places. The sites
//! (type bytes, offsets, size fields) come from a walk of the valid source,
//! so most mutations land on structure rather than on string payloads.
//!
//! Nothing is committed but this generator: `cargo xtask conformance` writes
//! the set to a file with [`write_file`] (`flexbuf-conformance damage --out
//! FILE`) together with the Rust core's verdicts, and every language runner
//! reads that file (its path in `FLEXBUF_DAMAGED`), runs its own verifier and
//! decoders on each buffer and reports the category [`AGREEMENT`]. The file
//! format is specified in `conformance/README.md` ("Agreement").

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use flexbuf::Reader;

use crate::annotate::annotate_with;
use crate::case::CaseFile;
use crate::error::{Error, Result};
use crate::invalid::{self, kind_name, UNTRUSTED};
use crate::random::XorShift;
use crate::report::{CategoryResult, AGREEMENT};
use crate::run::LANG;

/// Seed of the generator unless `FLEXBUF_AGREE_SEED` says otherwise.
pub const DEFAULT_SEED: u64 = 18;
/// Damaged buffers per run unless `FLEXBUF_AGREE_CASES` says otherwise.
pub const DEFAULT_COUNT: usize = 12_000;
/// First bytes of the file written by [`write_file`].
pub const MAGIC: &[u8; 16] = b"FLEXBUF-DAMAGED\x01";

/// One damaged buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damaged {
    /// `source#index mutation@position...`: where it came from and what was done.
    pub name: String,
    /// The damaged bytes.
    pub bytes: Vec<u8>,
}

/// What the Rust core says about one buffer: `ok` or an `ErrorKind` name each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `flexbuf::verify`.
    pub verify: String,
    /// `flexbuf::to_json` (differs from `verify` only on accepted buffers:
    /// `BudgetExceeded`, `NonFiniteFloat`).
    pub json: String,
}

/// The core's verdict on `bytes`.
pub fn verdict(bytes: &[u8]) -> Verdict {
    let name = |r: std::result::Result<(), flexbuf::Error>| match r {
        Ok(()) => "ok".to_string(),
        Err(e) => kind_name(&e),
    };
    Verdict {
        verify: name(flexbuf::verify(bytes).map(|_| ())),
        json: name(flexbuf::to_json(bytes).map(|_| ())),
    }
}

/// Seed and count from `FLEXBUF_AGREE_SEED` / `FLEXBUF_AGREE_CASES`, or the defaults.
pub fn settings() -> (u64, usize) {
    let get = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    (
        get("FLEXBUF_AGREE_SEED").unwrap_or(DEFAULT_SEED),
        get("FLEXBUF_AGREE_CASES").map_or(DEFAULT_COUNT, |n| n as usize),
    )
}

/// The default fixtures directory, `conformance/fixtures`.
pub fn default_fixtures() -> std::path::PathBuf {
    crate::cpp::repo_root().join("conformance/fixtures")
}

/// The valid buffers damage starts from: goldens, fixtures (as `from_json`
/// writes them), and the valid files of the invalid corpus, in a fixed order.
pub fn sources(
    files: &[CaseFile],
    fixtures: &Path,
    invalid_dir: &Path,
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out: Vec<(String, Vec<u8>)> = files
        .iter()
        .flat_map(|f| &f.cases)
        .map(|c| (c.name.clone(), c.bytes.clone()))
        .collect();
    let mut names: Vec<_> = std::fs::read_dir(fixtures)
        .map_err(|e| Error::io(fixtures, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let bytes = flexbuf::from_json(&text)
            .map_err(|e| Error::json(path.display().to_string(), e.to_string()))?;
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        out.push((format!("fixtures/{stem}"), bytes));
    }
    for entry in invalid::load_manifest(invalid_dir)?.unwrap_or_default() {
        if entry.valid {
            let path = invalid_dir.join(&entry.file);
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            out.push((format!("invalid/{}", entry.file), bytes));
        }
    }
    Ok(out)
}

/// Where structural mutations may land in a valid buffer.
#[derive(Clone, Debug, Default)]
struct Sites {
    /// Packed type bytes (the root's and every untyped element's).
    types: Vec<usize>,
    /// Offset slots: (position, width).
    offsets: Vec<(usize, usize)>,
    /// Size fields (and a map's keys-width field): (position, width).
    sizes: Vec<(usize, usize)>,
}

fn read_uint(buf: &[u8], at: usize, w: usize) -> Option<u64> {
    let bytes = buf.get(at..at.checked_add(w)?)?;
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
    )
}

fn write_uint(buf: &mut [u8], at: usize, w: usize, v: u64) {
    for i in 0..w {
        if let Some(b) = buf.get_mut(at + i) {
            *b = (v >> (8 * i)) as u8;
        }
    }
}

/// Walks a valid buffer once (shared values once) and collects its sites.
fn sites(buf: &[u8]) -> Sites {
    let mut s = Sites::default();
    let n = buf.len();
    if n < 3 {
        return s;
    }
    let rw = usize::from(buf[n - 1]);
    s.types.push(n - 2);
    if let Some(slot) = (n - 2).checked_sub(rw) {
        let mut seen = HashSet::new();
        walk(buf, slot, rw, buf[n - 2], 0, &mut s, &mut seen);
    }
    s
}

fn walk(
    buf: &[u8],
    slot: usize,
    pw: usize,
    packed: u8,
    depth: usize,
    s: &mut Sites,
    seen: &mut HashSet<(usize, u8)>,
) -> Option<()> {
    let t = packed >> 2;
    let w = 1usize << (packed & 3);
    if matches!(t, 0..=3 | 26) || depth > 80 {
        return Some(());
    }
    s.offsets.push((slot, pw));
    let target = slot.checked_sub(read_uint(buf, slot, pw)? as usize)?;
    if !seen.insert((target, packed)) {
        return Some(());
    }
    match t {
        5 | 25 | 11..=13 | 36 => s.sizes.push((target.checked_sub(w)?, w)),
        14 | 15 => {
            let len = read_uint(buf, target.checked_sub(w)?, w)? as usize;
            s.sizes.push((target - w, w));
            for i in 0..len.min(4096) {
                s.offsets.push((target + i * w, w));
            }
        }
        9 | 10 => {
            let len = read_uint(buf, target.checked_sub(w)?, w)? as usize;
            s.sizes.push((target - w, w));
            if t == 9 {
                let prefix = target.checked_sub(3 * w)?;
                s.offsets.push((prefix, w));
                s.sizes.push((prefix + w, w));
                let kw = read_uint(buf, prefix + w, w)? as usize;
                let keys = prefix.checked_sub(read_uint(buf, prefix, w)? as usize)?;
                s.sizes.push((keys.checked_sub(kw)?, kw));
                for i in 0..len.min(4096) {
                    s.offsets.push((keys + i * kw, kw));
                }
            }
            for i in 0..len.min(4096) {
                let type_at = target + len * w + i;
                s.types.push(type_at);
                walk(
                    buf,
                    target + i * w,
                    w,
                    *buf.get(type_at)?,
                    depth + 1,
                    s,
                    seen,
                );
            }
        }
        _ => {}
    }
    Some(())
}

/// The kinds of damage, in the order a source goes through them.
const MUTATIONS: [&str; 10] = [
    "truncate",
    "drop-front",
    "noise",
    "type",
    "width-bits",
    "bend-offset",
    "grow-size",
    "root-width",
    "root-type",
    "copy-run",
];

/// One of `fields` that lies wholly inside `n` bytes (a first mutation may
/// have shortened the buffer).
fn pick_field(fields: &[(usize, usize)], n: usize, rng: &mut XorShift) -> Option<(usize, usize)> {
    let inside: Vec<(usize, usize)> = fields
        .iter()
        .copied()
        .filter(|&(at, w)| at + w <= n)
        .collect();
    (!inside.is_empty()).then(|| inside[rng.below(inside.len())])
}

/// Applies mutation `kind` to `buf`; returns what was done, or `None` when the
/// buffer has no site for it.
fn mutate(kind: &str, buf: &mut Vec<u8>, s: &Sites, rng: &mut XorShift) -> Option<String> {
    let n = buf.len();
    if n == 0 {
        return None;
    }
    Some(match kind {
        "truncate" => {
            let keep = if rng.chance(50) {
                n.saturating_sub(1 + rng.below(8.min(n)))
            } else {
                rng.below(n)
            };
            buf.truncate(keep);
            format!("truncate@{keep}")
        }
        "drop-front" => {
            let k = 1 + rng.below((n - 1).clamp(1, 16));
            buf.drain(..k.min(n));
            format!("drop-front {k}")
        }
        "noise" => {
            let mut what = String::from("noise");
            for _ in 0..1 + rng.below(4) {
                let at = if rng.chance(50) {
                    n - 1 - rng.below(16.min(n))
                } else {
                    rng.below(n)
                };
                let v = rng.next_u64() as u8;
                buf[at] = v;
                what.push_str(&format!(" @{at}={v:02x}"));
            }
            what
        }
        "type" | "width-bits" => {
            let types: Vec<usize> = s.types.iter().copied().filter(|&at| at < n).collect();
            if types.is_empty() {
                return None;
            }
            let at = types[rng.below(types.len())];
            let old = buf[at];
            let new = if kind == "type" {
                let code = if rng.chance(80) {
                    rng.below(27) as u8
                } else {
                    rng.pick(&[36u8, 27, 35, 37, 63])
                };
                (code << 2) | (old & 3)
            } else {
                (old & !3) | (((old & 3) + 1 + rng.below(3) as u8) % 4)
            };
            buf[at] = new;
            format!("{kind}@{at} {old:02x}->{new:02x}")
        }
        "bend-offset" => {
            let (at, w) = pick_field(&s.offsets, n, rng)?;
            let old = read_uint(buf, at, w)?;
            let d = 1 + rng.below(8) as u64;
            let new = if rng.chance(50) {
                old.wrapping_add(d)
            } else {
                old.wrapping_sub(d)
            };
            write_uint(buf, at, w, new);
            format!("bend-offset@{at}/{w} {old}->{}", read_uint(buf, at, w)?)
        }
        "grow-size" => {
            let (at, w) = pick_field(&s.sizes, n, rng)?;
            let old = read_uint(buf, at, w)?;
            let max = if w >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * w)) - 1
            };
            let new = match rng.below(4) {
                0 | 1 => old.saturating_add(1 + rng.below(8) as u64),
                2 => old.saturating_mul(2).saturating_add(1),
                _ => rng.pick(&[max, max / 2 + 1, max / 8 + 1, max / 9 + 1]),
            };
            write_uint(buf, at, w, new);
            format!("grow-size@{at}/{w} {old}->{}", read_uint(buf, at, w)?)
        }
        "root-width" => {
            let old = buf[n - 1];
            let new = rng.pick(&[1u8, 2, 4, 8, 0, 3, 16, 255]);
            buf[n - 1] = if new == old { old.wrapping_mul(2) } else { new };
            format!("root-width {old}->{}", buf[n - 1])
        }
        "root-type" => {
            if n < 2 {
                return None;
            }
            let old = buf[n - 2];
            buf[n - 2] = if rng.chance(50) {
                ((rng.below(27) as u8) << 2) | (old & 3)
            } else {
                rng.next_u64() as u8
            };
            format!("root-type {old:02x}->{:02x}", buf[n - 2])
        }
        "copy-run" => {
            let len = 1 + rng.below(16.min(n));
            let from = rng.below(n - len + 1);
            let to = rng.below(n - len + 1);
            buf.copy_within(from..from + len, to);
            format!("copy-run {from}..{} to {to}", from + len)
        }
        _ => unreachable!("unknown mutation {kind}"),
    })
}

/// `count` damaged buffers from `sources`, the same for the same seed.
///
/// Source `i % sources.len()` feeds buffer `i`, and each source goes through
/// the mutation kinds in turn; one buffer in eight gets a second mutation on
/// top. A mutation without a site (no offsets in a scalar root) falls back to
/// byte noise.
pub fn generate(sources: &[(String, Vec<u8>)], seed: u64, count: usize) -> Vec<Damaged> {
    let mut rng = XorShift::new(seed);
    let sites: Vec<Sites> = sources.iter().map(|(_, b)| sites(b)).collect();
    (0..count)
        .map(|i| {
            let k = i % sources.len();
            let (name, original) = &sources[k];
            let mut bytes = original.clone();
            let mut what = Vec::new();
            let rounds = if rng.chance(12) { 2 } else { 1 };
            for round in 0..rounds {
                let kind = if round == 0 {
                    MUTATIONS[(i / sources.len()) % MUTATIONS.len()]
                } else {
                    MUTATIONS[rng.below(MUTATIONS.len())]
                };
                // Sites are those of the original; after a first mutation they
                // may be off, which is more damage, not less.
                let done = mutate(kind, &mut bytes, &sites[k], &mut rng)
                    .or_else(|| mutate("noise", &mut bytes, &sites[k], &mut rng))
                    .unwrap_or_else(|| "unchanged".into());
                what.push(done);
            }
            Damaged {
                name: format!("{name}#{i} {}", what.join(", ")),
                bytes,
            }
        })
        .collect()
}

/// Writes `damaged` with the core's verdicts to `path`:
///
/// ```text
/// MAGIC (16 bytes) | count: u32 LE | count records
/// record: meta_len: u32 LE | meta: UTF-8 "name\tverify\tjson" | data_len: u32 LE | data
/// ```
///
/// `verify` and `json` are `ok` or the core's `ErrorKind` name (see [`Verdict`]).
pub fn write_file(path: &Path, damaged: &[Damaged]) -> Result<()> {
    let mut out = Vec::with_capacity(damaged.iter().map(|d| d.bytes.len() + 96).sum());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(damaged.len() as u32).to_le_bytes());
    for d in damaged {
        let v = verdict(&d.bytes);
        let meta = format!("{}\t{}\t{}", d.name.replace('\t', " "), v.verify, v.json);
        out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        out.extend_from_slice(meta.as_bytes());
        out.extend_from_slice(&(d.bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&d.bytes);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(path, out).map_err(|e| Error::io(path, e))
}

/// The Rust row of the category: on every damaged buffer nothing panics,
/// `to_json` rejects what `verify` rejects (with the same kind), and the
/// checked reader (`Reader::new` and every child, bounded as for the invalid
/// corpus) reads what the verified reader reads whenever `verify` accepts, and
/// fails only with a `flexbuf::Error` or a walk limit otherwise.
pub fn check(d: &Damaged) -> std::result::Result<(), String> {
    let bytes = &d.bytes;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let v = verdict(bytes);
        let checked = Reader::new(bytes)
            .map_err(|e| e.to_string())
            .and_then(|r| annotate_with(&r, UNTRUSTED).map_err(|e| e.to_string()));
        if v.verify != "ok" {
            return if v.json == v.verify {
                Ok(())
            } else {
                Err(format!(
                    "verify fails with {}, to_json with {}",
                    v.verify, v.json
                ))
            };
        }
        if !matches!(v.json.as_str(), "ok" | "BudgetExceeded" | "NonFiniteFloat") {
            return Err(format!("verify accepts, to_json fails with {}", v.json));
        }
        let trusted = flexbuf::verify(bytes)
            .map_err(|e| e.to_string())
            .and_then(|ok| annotate_with(&ok.root(), UNTRUSTED).map_err(|e| e.to_string()));
        match (&trusted, &checked) {
            (Ok(a), Ok(b)) if a == b => Ok(()),
            (Err(_), Err(_)) => Ok(()),
            (a, b) => Err(format!(
                "verified read {} but checked read {}",
                crate::report::clip(&format!("{a:?}"), 160),
                crate::report::clip(&format!("{b:?}"), 160)
            )),
        }
    }));
    outcome.unwrap_or_else(|_| Err("panicked".into()))
}

/// The Rust row of [`AGREEMENT`] over `damaged`.
pub fn run(damaged: &[Damaged]) -> CategoryResult {
    let mut result = CategoryResult::new(LANG, AGREEMENT);
    for d in damaged {
        result.record(&d.name, check(d));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(String, Vec<u8>)> {
        // {"a": [1, "x"], "b": 2.5} built by the core.
        let bytes = flexbuf::from_json(r#"{"a": [1, "x"], "b": 2.5}"#).unwrap();
        vec![("sample".into(), bytes)]
    }

    #[test]
    fn the_same_seed_gives_the_same_buffers() {
        let s = sample();
        assert_eq!(generate(&s, 7, 200), generate(&s, 7, 200));
        assert_ne!(generate(&s, 7, 200), generate(&s, 8, 200));
    }

    #[test]
    fn every_mutation_kind_is_used_and_most_buffers_change() {
        let s = sample();
        let out = generate(&s, 1, 200);
        for kind in MUTATIONS {
            assert!(
                out.iter().any(|d| d.name.contains(kind)),
                "{kind} never used"
            );
        }
        let changed = out.iter().filter(|d| d.bytes != s[0].1).count();
        assert!(changed > 150, "only {changed} of 200 changed");
    }

    #[test]
    fn sites_of_a_map_cover_offsets_sizes_and_types() {
        let s = sites(&sample()[0].1);
        assert!(s.types.len() >= 3, "{s:?}");
        assert!(s.offsets.len() >= 4, "{s:?}");
        assert!(s.sizes.len() >= 4, "{s:?}");
    }

    #[test]
    fn the_rust_row_passes_on_a_small_set() {
        let r = run(&generate(&sample(), 3, 500));
        assert!(r.ok(), "{:?}", r.failures);
    }

    #[test]
    fn the_file_starts_with_magic_and_count() {
        let path = std::env::temp_dir().join("flexbuf-damaged-test.bin");
        let d = generate(&sample(), 3, 5);
        write_file(&path, &d).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..16], MAGIC);
        assert_eq!(u32::from_le_bytes(bytes[16..20].try_into().unwrap()), 5);
    }
}
