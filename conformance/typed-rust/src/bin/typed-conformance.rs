//! `typed-conformance`: replays every typed-value case with the generated
//! Rust coders and prints one JSON result line:
//!
//! ```json
//! {"lang":"rust","category":"typed","passed":N,"total":M,"failures":["case: reason"]}
//! ```
//!
//! Usage: `typed-conformance [--dir CONFORMANCE_DIR]`. Exit status 1 when a
//! case fails, 2 when the case files cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use flexbuf_typed_tests::cases::{check, default_dir, load_all};

/// Failure messages kept in the result line (the counts stay exact).
const MAX_FAILURES: usize = 50;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let dir = match (args.next().as_deref(), args.next()) {
        (None, _) => default_dir(),
        (Some("--dir"), Some(d)) => PathBuf::from(d),
        _ => {
            eprintln!("usage: typed-conformance [--dir CONFORMANCE_DIR]");
            return ExitCode::from(2);
        }
    };
    let files = match load_all(&dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("typed-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut passed, mut total, mut failures) = (0usize, 0usize, Vec::new());
    for (_, file) in &files {
        for case in &file.cases {
            total += 1;
            match check(&dir, case) {
                Ok(()) => passed += 1,
                Err(reason) if failures.len() < MAX_FAILURES => {
                    failures.push(format!("{}: {reason}", case.name));
                }
                Err(_) => {}
            }
        }
    }
    let line = serde_json::json!({
        "lang": "rust",
        "category": "typed",
        "passed": passed,
        "total": total,
        "failures": failures,
    });
    println!("{line}");
    if passed == total {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
