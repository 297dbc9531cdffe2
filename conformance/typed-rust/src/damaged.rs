//! Typed agreement: damaged inputs of the typed cases, and what the Rust
//! one-pass decoders make of each.
//!
//! The generated decoders of every language read untrusted bytes in one
//! checked pass. A buffer that one language's decoder turns into a value and
//! another's rejects (or turns into another value, or rejects at another
//! field) is a message that works in one client and fails in the next. So
//! `cargo xtask conformance` damages the input of every typed case of up to
//! [`MAX_SOURCE`] bytes with the agreement category's mutations
//! (`flexbuf_conformance::damage`), decodes each damaged buffer as the case's
//! type with the Rust coders, and writes the outcomes to a file
//! ([`write_file`]) that every language's typed runner replays with its own
//! generated coders (its path in `FLEXBUF_TYPED_DAMAGED`). The format and
//! the contract are in `conformance/typed/README.md` ("Typed agreement").

use std::path::Path;

use flexbuf::Error;

use crate::cases::{classify, hex, input_bytes, load_all};
use crate::dispatch::{coders, Coder};

/// Largest case input that is damaged (larger ones would make the file
/// large for little: their structure repeats).
pub const MAX_SOURCE: usize = 8 * 1024;
/// Damaged buffers per run unless `FLEXBUF_TYPED_AGREE_CASES` says otherwise.
pub const DEFAULT_COUNT: usize = 6_000;
/// Seed of the generator unless `FLEXBUF_AGREE_SEED` says otherwise (the
/// agreement category's variable: one seed reproduces both).
pub const DEFAULT_SEED: u64 = 18;

/// One damaged input with the Rust outcome.
#[derive(Clone, Debug)]
pub struct Item {
    /// `case name#index mutation@position...`.
    pub name: String,
    /// The case's schema, relative to `conformance/`.
    pub schema: String,
    /// The qualified type decoded.
    pub ty: String,
    /// The damaged bytes.
    pub bytes: Vec<u8>,
    /// `ok`, or the `ErrorKind` name `flexbuf::verify` fails with.
    pub verify: String,
    /// [`outcome_text`] of the Rust one-pass decode.
    pub expect: String,
}

/// The text every runner compares: `bytes HEX` (decoded, and re-encoded by
/// the same type's generated encoder), or `KIND at PATH` for an error, where
/// KIND is the case class (`missing`, `null`, `type`, `range`, `enum`,
/// `union`) of a schema error and the core's `ErrorKind` name (`InvalidUtf8`,
/// `OffsetOutOfBounds`, `DepthLimit`, ...) of any other, and PATH the field
/// path in wire names (`$` for the root).
pub fn outcome_text(r: &flexbuf::Result<Vec<u8>>) -> String {
    match r {
        Ok(bytes) => format!("bytes {}", hex(bytes)),
        Err(e) => format!(
            "{} at {}",
            error_kind(e),
            e.path().unwrap_or_else(|| "$".into())
        ),
    }
}

/// The KIND of [`outcome_text`].
fn error_kind(e: &Error) -> String {
    match classify(e) {
        Some(class) => class.to_string(),
        None => flexbuf_conformance::invalid::kind_name(e),
    }
}

/// Seed and count from `FLEXBUF_AGREE_SEED` / `FLEXBUF_TYPED_AGREE_CASES`.
pub fn settings() -> (u64, usize) {
    let get = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    (
        get("FLEXBUF_AGREE_SEED").unwrap_or(DEFAULT_SEED),
        get("FLEXBUF_TYPED_AGREE_CASES").map_or(DEFAULT_COUNT, |n| n as usize),
    )
}

/// `count` damaged inputs of the typed cases under `dir` (`conformance/`),
/// the same for the same seed, each with its Rust outcome.
pub fn generate(dir: &Path, seed: u64, count: usize) -> Result<Vec<Item>, String> {
    let mut sources = Vec::new();
    let mut targets: Vec<(String, String, Coder)> = Vec::new();
    for (_, file) in load_all(dir)? {
        for case in &file.cases {
            let bytes = input_bytes(dir, case)?;
            if bytes.len() > MAX_SOURCE {
                continue;
            }
            let coder = coders(&case.schema, &case.ty)
                .ok_or_else(|| format!("{}: no generated Rust type {}", case.name, case.ty))?;
            sources.push((case.name.clone(), bytes));
            targets.push((case.schema.clone(), case.ty.clone(), coder));
        }
    }
    if sources.is_empty() {
        return Err(format!("no typed case inputs under {}", dir.display()));
    }
    let damaged = flexbuf_conformance::damage::generate(&sources, seed, count);
    Ok(damaged
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            // `generate` feeds buffer i from source i % sources.len().
            let (schema, ty, coder) = &targets[i % targets.len()];
            let expect = outcome_text(&(coder.one_pass)(&d.bytes));
            let verify = match flexbuf::verify(&d.bytes) {
                Ok(_) => "ok".to_string(),
                Err(e) => flexbuf_conformance::invalid::kind_name(&e),
            };
            Item {
                verify,
                name: d.name,
                schema: schema.clone(),
                ty: ty.clone(),
                bytes: d.bytes,
                expect,
            }
        })
        .collect())
}

/// Writes `items` as JSON: `{"items": [{"name", "schema", "type", "input"
/// (lowercase hex), "verify", "expect"}, ...]}`.
pub fn write_file(path: &Path, items: &[Item]) -> Result<(), String> {
    let list: Vec<serde_json::Value> = items
        .iter()
        .map(|it| {
            serde_json::json!({
                "name": it.name,
                "schema": it.schema,
                "type": it.ty,
                "input": hex(&it.bytes),
                "verify": it.verify,
                "expect": it.expect,
            })
        })
        .collect();
    let text =
        serde_json::to_string(&serde_json::json!({ "items": list })).map_err(|e| e.to_string())?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a file [`write_file`] wrote.
pub fn read_file(path: &Path) -> Result<Vec<Item>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let list = v["items"]
        .as_array()
        .ok_or_else(|| format!("{}: no items", path.display()))?;
    list.iter()
        .map(|it| {
            let field = |k: &str| {
                it[k]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{}: an item without {k}", path.display()))
            };
            Ok(Item {
                name: field("name")?,
                schema: field("schema")?,
                ty: field("type")?,
                bytes: crate::cases::unhex(&field("input")?)?,
                verify: field("verify")?,
                expect: field("expect")?,
            })
        })
        .collect()
}

/// Checks one item with the Rust coders: the one-pass outcome is the file's
/// (the file is Rust's, so this catches a stale file or a nondeterministic
/// decoder), and the borrowed and verifying decoders keep their contract
/// with it ([`crate::dispatch::agreement`]).
pub fn check(item: &Item) -> Result<(), String> {
    let coder = coders(&item.schema, &item.ty)
        .ok_or_else(|| format!("no generated Rust type {}", item.ty))?;
    let got = outcome_text(&(coder.one_pass)(&item.bytes));
    if got != item.expect {
        return Err(format!(
            "got {}, the file says {}",
            short(&got),
            short(&item.expect)
        ));
    }
    crate::dispatch::agreement(coder, &item.bytes)
}

/// An outcome cut to a readable length for failure messages.
pub fn short(outcome: &str) -> String {
    if outcome.len() > 120 {
        format!("{}... ({} chars)", &outcome[..120], outcome.len())
    } else {
        outcome.to_string()
    }
}
