//! The Rust runner: every category, over the committed cases and corpus.

use std::path::Path;

use flexbuf::Reader;

use crate::annotate::annotate;
use crate::case::{Case, CaseFile};
use crate::cpp::CppReplayer;
use crate::error::Result;
use crate::invalid;
use crate::op::{build, to_hex, Op};
use crate::report::{
    clip, CategoryResult, BYTES_IDENTICAL, GOLDENS_MATCH_CPP, INVALID_REJECTED, VALUES_IDENTICAL,
};

/// Language name of this runner in the matrix.
pub const LANG: &str = "rust";

/// Name of the reference column (goldens re-checked against the C++ replayer).
pub const CPP_LANG: &str = "c++ reference";

/// Our builder on one case: `Ok` when it writes the golden bytes (or, for a
/// recorded refusal, refuses).
pub fn check_bytes(case: &Case) -> std::result::Result<(), String> {
    match build(case.flags, &case.ops) {
        Ok(bytes) if case.builder_refuses() => Err(format!(
            "builder wrote {} although this case records that it refuses",
            clip(&to_hex(&bytes), 200)
        )),
        Err(_) if case.builder_refuses() => Ok(()),
        Ok(bytes) if bytes == case.bytes => Ok(()),
        Ok(bytes) => Err(format!(
            "bytes differ\n  ours:   {}\n  golden: {}",
            clip(&to_hex(&bytes), 400),
            clip(&to_hex(&case.bytes), 400)
        )),
        Err(e) => Err(format!("builder failed: {e}")),
    }
}

/// Our verifier and reader on one golden: `Ok` when it verifies and both the
/// verified and the checked read give the case's annotated value.
pub fn check_value(case: &Case) -> std::result::Result<(), String> {
    let verified = flexbuf::verify(&case.bytes).map_err(|e| format!("verify failed: {e}"))?;
    let trusted = annotate(&verified.root()).map_err(|e| format!("verified read failed: {e}"))?;
    if trusted != case.value {
        return Err(format!(
            "value differs\n  ours:   {}\n  golden: {}",
            clip(&trusted.to_string(), 400),
            clip(&case.value.to_string(), 400)
        ));
    }
    let root = Reader::new(&case.bytes).map_err(|e| format!("checked root failed: {e}"))?;
    let checked = annotate(&root).map_err(|e| format!("checked read failed: {e}"))?;
    if checked != case.value {
        return Err(format!(
            "checked read differs: {}",
            clip(&checked.to_string(), 400)
        ));
    }
    Ok(())
}

/// "bytes identical" and "values identical" over every case.
pub fn run_cases(files: &[CaseFile]) -> Vec<CategoryResult> {
    let mut bytes = CategoryResult::new(LANG, BYTES_IDENTICAL);
    let mut values = CategoryResult::new(LANG, VALUES_IDENTICAL);
    for case in files.iter().flat_map(|f| &f.cases) {
        bytes.record(&case.name, check_bytes(case));
        values.record(&case.name, check_value(case));
    }
    vec![bytes, values]
}

/// "invalid rejected" over the corpus in `dir`, or `None` without a manifest.
pub fn run_invalid(dir: &Path) -> Result<Option<CategoryResult>> {
    let Some(entries) = invalid::load_manifest(dir)? else {
        return Ok(None);
    };
    let mut result = CategoryResult::new(LANG, INVALID_REJECTED);
    for entry in &entries {
        let path = dir.join(&entry.file);
        let outcome = match std::fs::read(&path) {
            Ok(bytes) => invalid::check(entry, &bytes),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        };
        result.record(&format!("{} ({})", entry.file, entry.class), outcome);
    }
    Ok(Some(result))
}

/// "goldens match C++": re-runs the C++ replayer on every case's ops and
/// compares with the committed bytes.
pub fn check_goldens(files: &[CaseFile], replayer: &CppReplayer) -> Result<CategoryResult> {
    let cases: Vec<&Case> = files.iter().flat_map(|f| &f.cases).collect();
    let input: Vec<(u8, &[Op])> = cases.iter().map(|c| (c.flags, c.ops.as_slice())).collect();
    let outputs = replayer.run(&input)?;
    let mut result = CategoryResult::new(CPP_LANG, GOLDENS_MATCH_CPP);
    for (case, out) in cases.iter().zip(&outputs) {
        let outcome = if *out == case.bytes {
            Ok(())
        } else {
            Err(format!(
                "C++ now writes {}, golden is {}",
                clip(&to_hex(out), 300),
                clip(&to_hex(&case.bytes), 300)
            ))
        };
        result.record(&case.name, outcome);
    }
    Ok(result)
}
