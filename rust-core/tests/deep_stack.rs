//! The paths that recurse into nested values (the verifier, `to_json`,
//! `from_json`, the serde tier) end at their depth limit with their own
//! result or error, and the stack they need for it: a stack overflow aborts
//! the process, so it is pinned here, in the unoptimised test build (the
//! largest frames): at the default limit of 64 levels each fits in 1 MiB,
//! at the 1024-level cap in 8 MiB (the main thread's default on Linux; 4 MiB
//! is too little). Optimised, the cap fits in 1 MiB and not in 512 KiB:
//! `VerifyOptions::max_depth` says so.

use flexbuf::json::{from_json_with, to_json_with};
use flexbuf::{verify_with, Error, ErrorKind, JsonOptions, VerifyOptions};

/// Whether `r` failed on the depth limit.
fn too_deep<T>(r: Result<T, Error>) -> bool {
    matches!(
        r.map(|_| ()).map_err(|e| e.kind().clone()),
        Err(ErrorKind::DepthLimit(_))
    )
}

/// `levels` vectors, one inside the other, around one int.
fn nested(levels: usize) -> Vec<u8> {
    let mut b = flexbuf::Builder::new();
    for _ in 0..levels {
        b.start_vector();
    }
    b.int(7);
    for _ in 0..levels {
        b.end_vector().unwrap();
    }
    b.finish().unwrap().to_vec()
}

/// JSON options with both depth limits at `depth`.
fn json_options(depth: usize) -> JsonOptions {
    JsonOptions {
        max_depth: depth,
        verify: options(depth),
        ..JsonOptions::default()
    }
}

fn text(levels: usize) -> String {
    format!("{}7{}", "[".repeat(levels), "]".repeat(levels))
}

/// Runs `f` on a fresh thread of `kib` KiB of stack.
fn on_stack<T: Send + 'static>(kib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(kib << 10)
        .spawn(f)
        .expect("spawns")
        .join()
        .expect("no panic")
}

fn options(depth: usize) -> VerifyOptions {
    VerifyOptions {
        max_depth: depth,
        ..VerifyOptions::default()
    }
}

/// The stack (KiB) each check below runs on at a depth limit: 1 MiB at the
/// default, 8 MiB at the cap.
fn stack_for(depth: usize) -> usize {
    if depth <= 64 {
        1024
    } else {
        8 << 10
    }
}

/// Limits checked: the default and the cap.
const DEPTHS: [usize; 2] = [64, 1024];

#[test]
fn verify_ends_at_its_limit() {
    for depth in DEPTHS {
        let (a, p, o) = (nested(depth), nested(depth + 1), options(depth));
        on_stack(stack_for(depth), move || {
            assert!(verify_with(&a, &o).is_ok());
            assert!(too_deep(verify_with(&p, &o)));
        });
    }
}

#[test]
fn json_ends_at_its_limit() {
    for depth in DEPTHS {
        let (a, p) = (nested(depth), nested(depth + 1));
        on_stack(stack_for(depth), move || {
            assert_eq!(to_json_with(&a, &json_options(depth)).unwrap(), text(depth));
            assert!(too_deep(to_json_with(&p, &json_options(depth))));
            assert_eq!(
                from_json_with(&text(depth), &json_options(depth)).unwrap(),
                a
            );
            assert!(too_deep(from_json_with(
                &text(depth + 1),
                &json_options(depth)
            )));
        });
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_ends_at_its_limit() {
    for depth in DEPTHS {
        let (a, p, o) = (nested(depth), nested(depth + 1), options(depth));
        on_stack(stack_for(depth), move || {
            let value: serde_json::Value =
                flexbuf::from_slice_with(&a, &o, flexbuf::Budget::for_input(a.len())).unwrap();
            let mut v = &value;
            for _ in 0..depth {
                v = &v[0];
            }
            assert_eq!(v, 7);
            let e = flexbuf::from_slice_with::<serde_json::Value>(
                &p,
                &o,
                flexbuf::Budget::for_input(p.len()),
            );
            assert!(too_deep(e));
        });
    }
}
