//! Replays every committed case through our builder and reader, applies the
//! invalid corpus, and checks the committed goldens against the C++ replayer.

mod common;

use flexbuf_conformance::case::{default_dir, load_dir, DEVIATIONS};
use flexbuf_conformance::report::CategoryResult;
use flexbuf_conformance::{invalid, peer, run};

fn assert_ok(r: &CategoryResult) {
    assert!(
        r.ok(),
        "{} / {}: {} of {} failed:\n{}",
        r.lang,
        r.category,
        r.total - r.passed,
        r.total,
        r.failures.join("\n")
    );
}

#[test]
fn every_case_builds_and_reads_identically() {
    let files = load_dir(&default_dir()).expect("conformance/cases loads");
    let total: usize = files.iter().map(|f| f.cases.len()).sum();
    assert!(total >= 300, "only {total} cases");
    for r in run::run_cases(&files) {
        assert_eq!(r.total, total);
        assert_ok(&r);
    }
}

#[test]
fn deviations_are_tagged_and_documented() {
    let files = load_dir(&default_dir()).unwrap();
    let doc = std::fs::read_to_string(default_dir().join("../DEVIATIONS.md")).unwrap();
    for tag in DEVIATIONS {
        assert!(doc.contains(tag), "DEVIATIONS.md does not describe {tag}");
        assert!(
            files
                .iter()
                .flat_map(|f| &f.cases)
                .any(|c| c.deviation.as_deref() == Some(tag)),
            "no case shows {tag}"
        );
    }
}

#[test]
fn invalid_corpus_is_rejected() {
    match run::run_invalid(&invalid::default_dir()).expect("manifest loads") {
        Some(r) => assert_ok(&r),
        None => eprintln!("conformance/invalid/manifest.json not present yet"),
    }
}

#[test]
fn committed_goldens_match_the_cpp_replayer() {
    let Some(cpp) = common::replayer() else {
        return;
    };
    let files = load_dir(&default_dir()).unwrap();
    let r = run::check_goldens(&files, &cpp).expect("replayer runs");
    assert_ok(&r);
}

#[test]
fn peer_column_runs_without_failing_the_suite() {
    let files = load_dir(&default_dir()).unwrap();
    let r = peer::run_peer(&files);
    assert!(r.informational);
    assert_eq!(r.total, files.iter().map(|f| f.cases.len()).sum::<usize>());
    // The crate agrees on most goldens; a collapse would mean the comparison broke.
    assert!(
        r.passed * 2 > r.total,
        "peer agrees on only {} of {}",
        r.passed,
        r.total
    );
}
