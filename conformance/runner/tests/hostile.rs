//! Hostile input stays bounded in the Rust core (issue 18): DAG bombs and
//! 1,000-deep nesting end in a clean error within a second, and the peak of
//! live heap bytes (a counting allocator) stays under a limit.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use flexbuf::{ErrorKind, Reader};
use flexbuf_conformance::annotate::annotate_with;
use flexbuf_conformance::invalid;

use flexbuf_conformance::annotate::Limits;

/// The checked walks use the invalid corpus's bounds (depth 64) with 2,000
/// values and 1 MiB of payload instead of 200,000 and 16 MiB, so that this
/// debug-built walk, which is the test's own and not the SDK's, stays far from
/// the time limit on a busy machine (20,000 values took 1.1 s under load).
const WALK: Limits = Limits {
    max_values: 2_000,
    max_bytes: 1 << 20,
    ..invalid::UNTRUSTED
};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Tests in this file measure one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

const LIMIT: Duration = Duration::from_secs(1);
const MAX_HEAP: usize = 64 << 20;

/// Runs `f`; asserts it took under a second and raised the heap peak by less
/// than [`MAX_HEAP`] over what was live before.
fn bounded<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    let grew = PEAK.load(Ordering::Relaxed) - base;
    assert!(took < LIMIT, "{what} took {took:?}");
    assert!(
        grew < MAX_HEAP,
        "{what} raised the heap peak by {grew} bytes"
    );
    out
}

fn corpus(name: &str) -> Vec<u8> {
    std::fs::read(invalid::default_dir().join(name)).unwrap()
}

fn bombs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(invalid::default_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("dag_bomb_") && n.ends_with(".bin"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    names
}

#[test]
fn dag_bombs_verify_but_expansion_fails_on_the_budget() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for name in bombs() {
        let bytes = corpus(&name);
        bounded(&format!("{name} verify"), || flexbuf::verify(&bytes)).unwrap();
        let e = bounded(&format!("{name} to_json"), || flexbuf::to_json(&bytes)).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::BudgetExceeded), "{name}: {e}");
        let walked = bounded(&format!("{name} checked walk"), || {
            annotate_with(&Reader::new(&bytes).unwrap(), WALK)
        });
        assert!(walked.is_err(), "{name}: the checked walk expanded a bomb");
    }
}

#[test]
fn a_buffer_nested_1000_deep_is_rejected() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = corpus("depth_bomb_1000_vectors.bin");
    let e = bounded("verify", || flexbuf::verify(&bytes)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthLimit(_)), "{e}");
    let e = bounded("to_json", || flexbuf::to_json(&bytes)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthLimit(_)), "{e}");
    let walked = bounded("checked walk", || {
        annotate_with(&Reader::new(&bytes).unwrap(), WALK)
    });
    assert!(walked.is_err(), "the checked walk went 1,000 deep");
}

#[test]
fn json_nested_1000_deep_is_rejected() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let e = bounded("from_json", || flexbuf::from_json(&text)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthLimit(_)), "{e}");
}
