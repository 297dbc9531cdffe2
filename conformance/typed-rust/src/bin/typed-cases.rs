//! `typed-cases`: writes or checks the typed-value case files.
//!
//! ```text
//! typed-cases --regen [--dir CONFORMANCE]   rewrite conformance/typed/*.json and typed/goldens/
//! typed-cases [--check] [--dir CONFORMANCE] exit 1 when the committed files differ
//! ```
//!
//! Both print, on stderr, every case whose hand-written error the generated
//! Rust coders do not reproduce.

use std::path::PathBuf;
use std::process::ExitCode;

use flexbuf_typed_tests::cases::default_dir;
use flexbuf_typed_tests::definitions::{generate, GOLDENS};

const USAGE: &str = "usage: typed-cases [--regen | --check] [--dir CONFORMANCE_DIR]";

fn main() -> ExitCode {
    let mut regen = false;
    let mut dir = default_dir();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--regen" => regen = true,
            "--check" => regen = false,
            "--dir" => match args.next() {
                Some(d) => dir = PathBuf::from(d),
                None => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let generated = match generate(&dir) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("typed-cases: {e}");
            return ExitCode::from(2);
        }
    };
    for d in &generated.disagreements {
        eprintln!("Rust disagrees: {d}");
    }
    if regen {
        let goldens = dir.join(GOLDENS);
        if let Err(e) = std::fs::create_dir_all(&goldens) {
            eprintln!("typed-cases: {}: {e}", goldens.display());
            return ExitCode::from(2);
        }
        // Goldens no definition produces any more would otherwise linger.
        if let Ok(entries) = std::fs::read_dir(&goldens) {
            for e in entries.flatten() {
                let rel = format!("{GOLDENS}/{}", e.file_name().to_string_lossy());
                if !generated.files.iter().any(|(p, _)| *p == rel) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        for (rel, contents) in &generated.files {
            if let Err(e) = std::fs::write(dir.join(rel), contents) {
                eprintln!("typed-cases: {rel}: {e}");
                return ExitCode::from(2);
            }
        }
        eprintln!("wrote {} files", generated.files.len());
        return ExitCode::SUCCESS;
    }
    let mut stale = 0;
    for (rel, contents) in &generated.files {
        if std::fs::read(dir.join(rel)).ok().as_deref() != Some(contents.as_slice()) {
            eprintln!("differs from the definitions: {rel}");
            stale += 1;
        }
    }
    if stale > 0 {
        eprintln!("run `cargo run -p flexbuf-typed-tests --bin typed-cases -- --regen`");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
