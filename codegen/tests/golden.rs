//! Golden files: every backend's output for every fixture schema, pinned under
//! `tests/golden/<lang>/<schema stem>/`.
//!
//! A change to generated code shows up here as a diff to review. To accept
//! it, rewrite the goldens with
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p flexbuf-codegen --test golden
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flexbuf_codegen::backend::BACKENDS;
use flexbuf_codegen::{generate, parse_file};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen lives in the repository root")
        .to_path_buf()
}

/// The fixture schemas: the conformance fixtures, the typed-conformance
/// schemas, the codegen test schema and the keywords schema (names that
/// clash with every target language).
fn schemas() -> Vec<PathBuf> {
    let root = repo();
    let mut out = Vec::new();
    for dir in ["conformance/schemas", "conformance/typed/schemas"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("schema directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "fxs"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out.push(root.join("codegen/tests/schemas/shop.fxs"));
    out.push(root.join("codegen/tests/schemas/keywords.fxs"));
    out
}

/// Every file under `dir`, by path relative to it.
fn read_tree(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let path = e.expect("entry").path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let text = std::fs::read_to_string(&path).expect("golden file");
                out.insert(
                    path.strip_prefix(base).expect("under base").to_path_buf(),
                    text,
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn generated_code_matches_the_goldens() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v != "0");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut failures = Vec::new();
    for schema in schemas() {
        let stem = schema.file_stem().and_then(|s| s.to_str()).expect("stem");
        let parsed = parse_file(&schema).unwrap_or_else(|d| panic!("{d}"));
        for backend in BACKENDS {
            let dir = backend.name();
            let files = generate(*backend, &parsed)
                .unwrap_or_else(|e| panic!("{}: {dir}: {e}", schema.display()));
            let want: BTreeMap<PathBuf, String> =
                files.into_iter().map(|f| (f.path, f.contents)).collect();
            let place = golden.join(dir).join(stem);
            if update {
                let _ = std::fs::remove_dir_all(&place);
                for (path, text) in &want {
                    let path = place.join(path);
                    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                    std::fs::write(&path, text).expect("write golden");
                }
                continue;
            }
            let have = read_tree(&place);
            if have != want {
                let first = want
                    .iter()
                    .find(|(p, t)| have.get(*p) != Some(*t))
                    .map(|(p, _)| p.display().to_string())
                    .or_else(|| {
                        have.keys()
                            .find(|p| !want.contains_key(*p))
                            .map(|p| p.display().to_string())
                    })
                    .unwrap_or_default();
                failures.push(format!("{dir}/{stem}: {first}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "generated code differs from the goldens (review, then UPDATE_GOLDEN=1 cargo test -p flexbuf-codegen --test golden):\n{}",
        failures.join("\n")
    );
}
