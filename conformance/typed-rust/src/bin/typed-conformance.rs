//! `typed-conformance`: replays every typed-value case with the generated
//! Rust coders and prints one JSON result line:
//!
//! ```json
//! {"lang":"rust","category":"typed","passed":N,"total":M,"failures":["case: reason"]}
//! ```
//!
//! With `FLEXBUF_TYPED_DAMAGED` naming a file of damaged inputs, a second
//! line reports the category `typed agreement` on them
//! (`conformance/typed/README.md`, "Typed agreement").
//!
//! Usage:
//! - `typed-conformance [--dir CONFORMANCE_DIR]`;
//! - `typed-conformance damage --out FILE [--dir CONFORMANCE_DIR]` writes the
//!   damaged inputs with the Rust outcomes (seed `FLEXBUF_AGREE_SEED`, count
//!   `FLEXBUF_TYPED_AGREE_CASES`) and prints how many decode, and how many
//!   fail with each kind.
//!
//! Exit status 1 when a case fails, 2 on bad usage or unreadable files.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use flexbuf_typed_tests::cases::{check, default_dir, load_all};
use flexbuf_typed_tests::damaged;

/// Failure messages kept in the result line (the counts stay exact).
const MAX_FAILURES: usize = 50;

const USAGE: &str =
    "usage: typed-conformance [--dir CONFORMANCE_DIR] | damage --out FILE [--dir CONFORMANCE_DIR]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (damage, rest) = match args.first().map(String::as_str) {
        Some("damage") => (true, &args[1..]),
        _ => (false, &args[..]),
    };
    let (mut dir, mut out) = (default_dir(), None);
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--dir", Some(d)) => dir = PathBuf::from(d),
            ("--out", Some(f)) if damage => out = Some(PathBuf::from(f)),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    if damage {
        let Some(out) = out else {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        };
        return write_damaged(&dir, &out);
    }
    let files = match load_all(&dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("typed-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    let mut tally = Tally::default();
    for (_, file) in &files {
        for case in &file.cases {
            tally.add(&case.name, check(&dir, case));
        }
    }
    let mut ok = tally.print("typed");
    if let Some(path) = std::env::var_os("FLEXBUF_TYPED_DAMAGED") {
        let items = match damaged::read_file(path.as_ref()) {
            Ok(items) => items,
            Err(e) => {
                eprintln!("typed-conformance: {e}");
                return ExitCode::from(2);
            }
        };
        let mut tally = Tally::default();
        for item in &items {
            let result = std::panic::catch_unwind(|| damaged::check(item))
                .unwrap_or_else(|_| Err("panicked".into()));
            tally.add(&item.name, result);
        }
        ok &= tally.print("typed agreement");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Writes the damaged inputs and a summary of their Rust outcomes.
fn write_damaged(dir: &std::path::Path, out: &std::path::Path) -> ExitCode {
    let (seed, count) = damaged::settings();
    let items = match damaged::generate(dir, seed, count) {
        Ok(items) => items,
        Err(e) => {
            eprintln!("typed-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = damaged::write_file(out, &items) {
        eprintln!("typed-conformance: {e}");
        return ExitCode::from(2);
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for item in &items {
        let kind = item.expect.split(' ').next().unwrap_or_default();
        *kinds.entry(kind).or_default() += 1;
    }
    let summary: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "typed agreement: {} damaged inputs (seed {seed}) written to {}; Rust outcomes: {}",
        items.len(),
        out.display(),
        summary.join(", ")
    );
    ExitCode::SUCCESS
}

/// Pass and failure counts of one category.
#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    failures: Vec<String>,
}

impl Tally {
    fn add(&mut self, name: &str, result: Result<(), String>) {
        self.total += 1;
        match result {
            Ok(()) => self.passed += 1,
            Err(reason) if self.failures.len() < MAX_FAILURES => {
                self.failures.push(format!("{name}: {reason}"));
            }
            Err(_) => {}
        }
    }

    /// Prints the category's result line; true when every item passed.
    fn print(&self, category: &str) -> bool {
        let line = serde_json::json!({
            "lang": "rust",
            "category": category,
            "passed": self.passed,
            "total": self.total,
            "failures": self.failures,
        });
        println!("{line}");
        self.passed == self.total
    }
}
