//! The default damaged set (seed 18, 12,000 buffers) keeps covering what it
//! was built to find: the Kotlin and pure TypeScript verifiers once rejected
//! empty typed float vectors of width 1 or 2 that the core accepts (issue
//! 18). If a change to the generator lost every such buffer, the agreement
//! category would no longer guard that rule.

use flexbuf_conformance::annotate::{annotate_with, Limits};
use flexbuf_conformance::case::{default_dir, load_dir};
use flexbuf_conformance::damage::{self, DEFAULT_COUNT, DEFAULT_SEED};
use flexbuf_conformance::invalid;
use serde_json::Value;

/// Damaged DAG bombs stay valid; their walk stops early.
const WALK: Limits = Limits {
    max_values: 20_000,
    ..invalid::UNTRUSTED
};

/// True when `v` (annotated notation) holds an empty `vector_float` narrower than 4 bytes.
fn has_narrow_empty_float_vector(v: &Value) -> bool {
    let Some([ty, width, payload]) = v.as_array().map(Vec::as_slice) else {
        return false;
    };
    if ty == "vector_float" && width.as_u64().is_some_and(|w| w < 4) {
        return payload.as_array().is_some_and(Vec::is_empty);
    }
    match payload.as_array() {
        Some(items) if ty == "map" => items
            .iter()
            .any(|kv| kv.get(1).is_some_and(has_narrow_empty_float_vector)),
        Some(items) => items.iter().any(has_narrow_empty_float_vector),
        None => false,
    }
}

#[test]
fn the_default_set_is_large_varied_and_holds_the_empty_float_vector_class() {
    let files = load_dir(&default_dir()).unwrap();
    let sources =
        damage::sources(&files, &damage::default_fixtures(), &invalid::default_dir()).unwrap();
    let set = damage::generate(&sources, DEFAULT_SEED, DEFAULT_COUNT);
    assert!(set.len() >= 10_000);
    let mut accepted = 0;
    let mut narrow = 0;
    let mut kinds = std::collections::BTreeSet::new();
    // Fixture copies (up to 225 KB each) are skipped: a debug build would
    // spend a minute on them, and the class lives in small buffers.
    for d in set.iter().filter(|d| d.bytes.len() <= 4096) {
        match flexbuf::verify(&d.bytes) {
            Ok(ok) => {
                accepted += 1;
                if annotate_with(&ok.root(), WALK).is_ok_and(|a| has_narrow_empty_float_vector(&a))
                {
                    narrow += 1;
                }
            }
            Err(e) => {
                kinds.insert(invalid::kind_name(&e));
            }
        }
    }
    println!("{accepted} small buffers accepted, {narrow} with a narrow empty float vector; rejections: {kinds:?}");
    assert!(
        accepted > 1_000 && accepted < set.len() - 1_000,
        "{accepted} accepted"
    );
    assert!(kinds.len() >= 8, "rejections of only {kinds:?}");
    assert!(
        narrow >= 5,
        "only {narrow} accepted buffers hold an empty float vector of width 1 or 2"
    );
}
