//! The committed typed-value cases: all pass with the Rust coders (except the
//! known generator/runtime bugs, listed exactly), and they are what the
//! definitions generate today.

use std::collections::BTreeSet;

use flexbuf_typed_tests::cases::{check, default_dir, input_bytes, load_all, unhex, ErrorClass};
use flexbuf_typed_tests::definitions::generate;
use flexbuf_typed_tests::dispatch::lookup;

/// Cases whose hand-written expectation the generated Rust coders do not meet
/// yet; each is pinned by an ignored test in `tests/generator_bugs.rs`. When a
/// bug is fixed, its cases pass and must leave this list.
/// Cases the Rust coders are known to fail (none at the moment; a bug found
/// later is listed here with its cases until fixed).
const KNOWN_BUGS: &[&str] = &[];

#[test]
fn every_case_passes_except_the_known_bugs() {
    let dir = default_dir();
    let files = load_all(&dir).unwrap();
    assert_eq!(
        files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        [
            "arrays.json",
            "defects.json",
            "evolution.json",
            "fixtures.json"
        ]
    );
    let mut failing = BTreeSet::new();
    let mut total = 0;
    for (_, file) in &files {
        for case in &file.cases {
            total += 1;
            if let Err(reason) = check(&dir, case) {
                if !KNOWN_BUGS.contains(&case.name.as_str()) {
                    panic!("{}: {reason}", case.name);
                }
                failing.insert(case.name.as_str());
            }
        }
    }
    let known: BTreeSet<&str> = KNOWN_BUGS.iter().copied().collect();
    assert_eq!(
        failing, known,
        "a known bug is fixed: remove its cases from KNOWN_BUGS"
    );
    assert!(total > 100, "only {total} cases");
}

#[test]
fn committed_files_are_what_the_definitions_generate() {
    let dir = default_dir();
    let generated = generate(&dir).unwrap();
    for (rel, contents) in &generated.files {
        let committed = std::fs::read(dir.join(rel)).unwrap_or_default();
        assert!(
            committed == *contents,
            "{rel} is stale: run `cargo run -p flexbuf-typed-tests --bin typed-cases -- --regen`"
        );
    }
    let goldens: BTreeSet<String> = std::fs::read_dir(dir.join("typed/goldens"))
        .unwrap()
        .map(|e| format!("typed/goldens/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    let produced: BTreeSet<String> = generated
        .files
        .iter()
        .map(|(p, _)| p.clone())
        .filter(|p| p.starts_with("typed/goldens/"))
        .collect();
    assert_eq!(goldens, produced, "unreferenced or missing golden files");
    let disagreeing: BTreeSet<&str> = generated
        .disagreements
        .iter()
        .map(|d| d.split(':').next().unwrap())
        .collect();
    assert_eq!(disagreeing, KNOWN_BUGS.iter().copied().collect());
}

#[test]
fn cases_are_well_formed() {
    let dir = default_dir();
    let mut names = BTreeSet::new();
    for (file, cf) in load_all(&dir).unwrap() {
        for case in &cf.cases {
            assert!(
                names.insert(case.name.clone()),
                "duplicate case {}",
                case.name
            );
            assert!(
                case.name.starts_with(file.trim_end_matches(".json")),
                "{} is not named after {file}",
                case.name
            );
            assert!(
                dir.join(&case.schema).is_file(),
                "{}: no schema {}",
                case.name,
                case.schema
            );
            let namespace = case.ty.split('.').next().unwrap();
            let schema_text = std::fs::read_to_string(dir.join(&case.schema)).unwrap();
            assert!(
                schema_text.contains(&format!("namespace {namespace};")),
                "{}: {} is not in {}",
                case.name,
                case.ty,
                case.schema
            );
            assert!(
                lookup(&case.schema, &case.ty).is_some(),
                "{}: no coder",
                case.name
            );
            assert!(
                input_bytes(&dir, case).is_ok(),
                "{}: unreadable input",
                case.name
            );
            let e = &case.expect;
            let forms = [e.bytes.is_some(), e.bytes_file.is_some(), e.error.is_some()];
            assert_eq!(forms.iter().filter(|&&f| f).count(), 1, "{}", case.name);
            if let Some(err) = &e.error {
                assert_eq!(
                    err.path.is_none(),
                    err.kind == ErrorClass::Invalid,
                    "{}",
                    case.name
                );
                if let Some(p) = &err.path {
                    assert!(p.starts_with('$'), "{}: path {p}", case.name);
                }
            }
            if let Some(f) = &case.input_json_file {
                assert!(dir.join(f).is_file(), "{}: no {f}", case.name);
            }
        }
    }
}

/// Renaming a field while keeping its wire name, and reordering declarations,
/// leave the wire format alone: the other version re-encodes the same bytes.
#[test]
fn rename_and_reorder_keep_the_bytes() {
    let dir = default_dir();
    let files = load_all(&dir).unwrap();
    let mut seen = 0;
    for case in files.iter().flat_map(|(_, f)| &f.cases) {
        if case.name.starts_with("evolution/rename/") || case.name.starts_with("evolution/reorder/")
        {
            let input = input_bytes(&dir, case).unwrap();
            assert_eq!(
                unhex(case.expect.bytes.as_ref().unwrap()).unwrap(),
                input,
                "{}",
                case.name
            );
            seen += 1;
        }
    }
    assert_eq!(seen, 4);
}

/// Each error class appears in the cases, so other languages' runners
/// exercise every one.
#[test]
fn every_error_class_is_covered() {
    let dir = default_dir();
    let classes: BTreeSet<String> = load_all(&dir)
        .unwrap()
        .iter()
        .flat_map(|(_, f)| &f.cases)
        .filter_map(|c| c.expect.error.as_ref())
        .map(|e| e.kind.to_string())
        .collect();
    let all: BTreeSet<String> = [
        "missing", "null", "type", "range", "enum", "union", "invalid",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(classes, all);
}
