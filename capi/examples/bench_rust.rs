//! Rust side of the ABI round-trip benchmark (the C side is `capi/bench/bench.c`):
//! the same work — verify + one field read, and the read alone on a verified
//! root — done with the core directly, and through the exported ABI functions
//! called from Rust. The two are sampled alternately in one process, so load
//! on the machine affects both alike. Prints `<case> <fixture> <bytes> <median ns>`
//! with cases `verify_read`, `read` (direct) and `abi_verify_read`, `abi_read`.
//!
//! Usage: `cargo run --release --manifest-path capi/Cargo.toml --example bench_rust -- <conformance/fixtures dir>`

use std::hint::black_box;
use std::path::Path;

/// Thread CPU time in ns: time spent descheduled on the shared machine does not count.
#[cfg(target_os = "linux")]
fn now_ns() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec (64-bit Linux layout).
    unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.sec as f64 * 1e9 + ts.nsec as f64
}

/// Wall time elsewhere.
#[cfg(not(target_os = "linux"))]
fn now_ns() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as f64
}

use flexbuf_capi::reader::{flexbuf_ref_int, flexbuf_ref_lookup, flexbuf_root, FlexbufRef};

const SAMPLES: usize = 31;

/// Iterations of `f` that take about 2 ms.
fn calibrate(f: &mut impl FnMut() -> i64) -> u64 {
    let mut iters: u64 = 1;
    loop {
        let t0 = now_ns();
        for _ in 0..iters {
            black_box(f());
        }
        if now_ns() - t0 > 2e6 || iters > 1 << 26 {
            return iters;
        }
        iters *= 2;
    }
}

fn sample(f: &mut impl FnMut() -> i64, iters: u64) -> f64 {
    let t0 = now_ns();
    for _ in 0..iters {
        black_box(f());
    }
    (now_ns() - t0) / iters as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median ns per call of `f` and of `g`, over [`SAMPLES`] alternating samples.
fn measure_pair(mut f: impl FnMut() -> i64, mut g: impl FnMut() -> i64) -> (f64, f64) {
    let (fi, gi) = (calibrate(&mut f), calibrate(&mut g));
    let (mut fs, mut gs) = (Vec::new(), Vec::new());
    for _ in 0..SAMPLES {
        fs.push(sample(&mut f, fi));
        gs.push(sample(&mut g, gi));
    }
    (median(fs), median(gs))
}

/// Verify + one field read through the exported C functions.
fn abi_verify_read(bytes: &[u8], field: &str) -> i64 {
    let mut root = FlexbufRef::ZERO;
    let mut v = FlexbufRef::ZERO;
    let mut x = 0i64;
    // SAFETY: valid pointers and lengths for the duration of the calls.
    unsafe {
        assert_eq!(flexbuf_root(bytes.as_ptr(), bytes.len(), &mut root), 0);
        abi_read(&root, field, &mut v, &mut x);
    }
    x
}

/// One field read through the exported C functions.
///
/// # Safety
/// `root` names a value in live bytes.
unsafe fn abi_read(root: &FlexbufRef, field: &str, v: &mut FlexbufRef, x: &mut i64) {
    assert_eq!(
        flexbuf_ref_lookup(root, field.as_ptr().cast(), field.len(), v),
        0
    );
    assert_eq!(flexbuf_ref_int(v, x), 0);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: bench_rust <conformance/fixtures dir>")?;
    for (fixture, field) in [
        ("user_profile", "id"),
        ("api_response", "total"),
        ("time_series", "interval_ms"),
    ] {
        let text = std::fs::read_to_string(Path::new(&dir).join(format!("{fixture}.json")))?;
        let bytes = flexbuf::from_json(&text)?;
        let (round_trip, abi_round_trip) = measure_pair(
            || {
                let root = flexbuf::verify(black_box(&bytes)).unwrap().root();
                root.get(field).unwrap().as_i64().unwrap()
            },
            || abi_verify_read(black_box(&bytes), field),
        );
        let root = flexbuf::verify(&bytes)?.root();
        let mut abi_root = FlexbufRef::ZERO;
        // SAFETY: valid pointers; `bytes` outlives every use of `abi_root`.
        assert_eq!(
            unsafe { flexbuf_root(bytes.as_ptr(), bytes.len(), &mut abi_root) },
            0
        );
        let (read, abi_read_only) = measure_pair(
            || black_box(root).get(field).unwrap().as_i64().unwrap(),
            || {
                let (mut v, mut x) = (FlexbufRef::ZERO, 0);
                // SAFETY: `abi_root` names a value in `bytes`, alive here.
                unsafe { abi_read(black_box(&abi_root), field, &mut v, &mut x) };
                x
            },
        );
        let n = bytes.len();
        println!("verify_read {fixture} {n} {round_trip:.1}");
        println!("read {fixture} {n} {read:.1}");
        println!("abi_verify_read {fixture} {n} {abi_round_trip:.1}");
        println!("abi_read {fixture} {n} {abi_read_only:.1}");
    }
    Ok(())
}
