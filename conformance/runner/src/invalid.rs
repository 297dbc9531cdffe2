//! The invalid-input corpus (`conformance/invalid/`): a manifest of raw files
//! that every reader must reject (or, for `valid: true`, accept).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use flexbuf::Reader;
use serde_json::Value;

use crate::annotate::{annotate, annotate_with, Limits};
use crate::case::parse_json;
use crate::error::{Error, Result};

/// One manifest entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// File name next to the manifest.
    pub file: String,
    /// Rejection class (what is wrong with it).
    pub class: String,
    /// True for files that must be accepted (near misses of a rejection class).
    pub valid: bool,
    /// What the file exercises.
    pub description: String,
    /// For invalid files: the Rust core's `ErrorKind` variant, or `any`.
    pub error: Option<String>,
    /// `budget` for valid files whose expansion into a tree must fail.
    pub expand: Option<String>,
    /// For some valid files: the exact compact JSON `to_json` must produce.
    pub json: Option<String>,
}

/// Classes whose defect only a verifier can see: checked reads of the value
/// legitimately succeed (they follow the keys vector's length and look keys up
/// without assuming an order), so for these the checked walk must only not crash.
pub const VERIFIER_ONLY_CLASSES: [&str; 3] = [
    "unsorted_keys",
    "duplicate_keys",
    "key_value_length_mismatch",
];

/// The default corpus directory, `conformance/invalid`.
pub fn default_dir() -> PathBuf {
    crate::cpp::repo_root().join("conformance/invalid")
}

/// The manifest's entries, or `None` when `dir` has no `manifest.json`.
pub fn load_manifest(dir: &Path) -> Result<Option<Vec<Entry>>> {
    let path = dir.join("manifest.json");
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let origin = path.display().to_string();
    let v = parse_json(&text, &origin)?;
    let items = v
        .as_array()
        .ok_or_else(|| Error::json(&origin, "the manifest is a JSON array"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_string);
            let bad = |what: &str| Error::json(&origin, format!("entry {i}: {what}"));
            Ok(Entry {
                file: field("file").ok_or_else(|| bad("missing \"file\""))?,
                class: field("class").ok_or_else(|| bad("missing \"class\""))?,
                valid: item
                    .get("valid")
                    .and_then(Value::as_bool)
                    .ok_or_else(|| bad("\"valid\" must be true or false"))?,
                description: field("description").unwrap_or_default(),
                error: field("error"),
                expand: field("expand"),
                json: field("json"),
            })
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// Bounds for walking unverified bytes: the verifier's default depth (so a
/// cycle ends as "too deep"), budgets small enough that DAG bombs end fast,
/// and string terminators checked.
pub const UNTRUSTED: Limits = Limits {
    max_depth: 64,
    max_values: 200_000,
    max_bytes: 16 << 20,
    require_string_nul: true,
};

fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| format!("{what} panicked"))
}

/// The `ErrorKind` variant name of an error (`BadWidth(3)` -> `BadWidth`).
pub fn kind_name(e: &flexbuf::Error) -> String {
    let debug = format!("{:?}", e.kind());
    debug
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Checks one file against its entry; `Err` describes the failure.
///
/// Nothing may panic. An invalid file must fail [`flexbuf::verify`] (with the
/// manifest's error kind unless it says `any`) and [`flexbuf::to_json`]; the
/// checked reader walked over the whole value (`Reader::new` and every child,
/// with the limits above) must fail too, except for
/// [`VERIFIER_ONLY_CLASSES`]. A valid file must verify and read to the same
/// annotated value through the verified and checked paths; one marked
/// `expand: budget` must instead fail to expand (to_json and the walk); one
/// with `json` must convert to exactly that text.
pub fn check(entry: &Entry, bytes: &[u8]) -> std::result::Result<(), String> {
    let verdict = guarded("verify", || flexbuf::verify(bytes).map(|_| ()))?;
    let json = guarded("to_json", || flexbuf::to_json(bytes))?;
    let walked = guarded("checked read", || {
        Reader::new(bytes)
            .map_err(|e| e.to_string())
            .and_then(|root| annotate_with(&root, UNTRUSTED).map_err(|e| e.to_string()))
    })?;
    if entry.valid {
        if let Err(e) = verdict {
            return Err(format!("valid file rejected by verify: {e}"));
        }
        if entry.expand.as_deref() == Some("budget") {
            if let Ok(text) = json {
                return Err(format!(
                    "to_json expanded a DAG bomb to {} bytes",
                    text.len()
                ));
            }
            if walked.is_ok() {
                return Err("the checked walk expanded a DAG bomb without hitting a limit".into());
            }
            return Ok(());
        }
        if let Some(want) = &entry.json {
            match &json {
                Ok(text) if text == want => {}
                Ok(text) => return Err(format!("to_json gives {text}, the manifest {want}")),
                Err(e) => return Err(format!("to_json failed: {e}")),
            }
        }
        let trusted = flexbuf::verify(bytes)
            .map_err(|e| e.to_string())
            .and_then(|v| annotate(&v.root()).map_err(|e| e.to_string()))?;
        return match walked {
            Ok(v) if v == trusted => Ok(()),
            Ok(v) => Err(format!(
                "checked read {v} differs from verified read {trusted}"
            )),
            Err(e) => Err(format!("checked read of a valid file failed: {e}")),
        };
    }
    match verdict {
        Ok(()) => return Err("verify accepted an invalid file".into()),
        Err(e) => {
            if let Some(want) = entry.error.as_deref().filter(|w| *w != "any") {
                let got = kind_name(&e);
                if got != want {
                    return Err(format!(
                        "verify fails with {got} ({e}), the manifest says {want}"
                    ));
                }
            }
        }
    }
    if json.is_ok() {
        return Err("to_json accepted an invalid file".into());
    }
    if let Ok(v) = walked {
        if !VERIFIER_ONLY_CLASSES.contains(&entry.class.as_str()) {
            return Err(format!("checked read accepted an invalid file as {v}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(valid: bool) -> Entry {
        Entry {
            file: "x.bin".into(),
            class: "test".into(),
            valid,
            description: String::new(),
            error: None,
            expand: None,
            json: None,
        }
    }

    #[test]
    fn truncated_input_is_rejected_everywhere() {
        assert_eq!(check(&entry(false), &[1, 4]), Ok(()));
        assert!(check(&entry(true), &[1, 4]).is_err());
    }

    #[test]
    fn a_valid_buffer_is_flagged_when_claimed_invalid() {
        let bytes = [1, 4, 1];
        assert_eq!(check(&entry(true), &bytes), Ok(()));
        assert_eq!(
            check(&entry(false), &bytes),
            Err("verify accepted an invalid file".into())
        );
    }

    #[test]
    fn error_kinds_are_compared_by_variant() {
        let mut e = entry(false);
        e.error = Some("BadWidth".into());
        assert_eq!(check(&e, &[1, 4, 3]), Ok(()));
        e.error = Some("Truncated".into());
        assert!(check(&e, &[1, 4, 3]).unwrap_err().contains("BadWidth"));
    }

    #[test]
    fn json_of_valid_files_is_checked() {
        let mut e = entry(true);
        e.json = Some("1".into());
        assert_eq!(check(&e, &[1, 4, 1]), Ok(()));
        e.json = Some("2".into());
        assert!(check(&e, &[1, 4, 1]).is_err());
    }

    #[test]
    fn missing_manifest_is_none() {
        let dir = std::env::temp_dir().join("flexbuf-conformance-no-manifest");
        let _ = std::fs::create_dir_all(&dir);
        assert_eq!(load_manifest(&dir).unwrap(), None);
    }
}
