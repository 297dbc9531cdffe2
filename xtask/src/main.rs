//! `cargo xtask`: the project's orchestrator.
//!
//! - `build-all`: builds every package that exists (Rust crates in release).
//! - `test`: installs what the tests need, then runs every test of every language,
//!   lints included, and the conformance matrix.
//! - `conformance [--regen]`: runs every language runner and prints the matrix.
//! - `bench <suite>`: runs the named benchmark suite: `typed`, an SDK of
//!   [`sdk_table::SDKS`], or a core suite.
//! - `fuzz <target> [--seconds N] [--build-only]`: installs the fuzz tooling, builds what the
//!   target fuzzes when missing, and runs it ([`fuzz::TARGETS`], `fuzz/README.md`).
//! - `ci`: what `.ci/run` calls; runs the README's test command.

mod bench;
mod bench_kotlin;
mod bench_typed;
mod chart;
mod conformance;
mod fuzz;
mod kit_runs;
mod report;
mod sdk_c;
mod sdk_kotlin;
mod sdk_python;
mod sdk_table;
mod sdk_ts;
mod setup;
mod util;

use std::process::ExitCode;

use util::Result;

fn usage() -> String {
    let sdks: Vec<&str> = sdk_table::SDKS.iter().map(|s| s.name).collect();
    format!(
        "usage: cargo xtask <build-all | test | conformance [--regen] | bench <core | typed | {}> \
         | fuzz <{}> [--seconds N] [--build-only] | chart | ci>",
        sdks.join(" | "),
        fuzz::TARGETS.join(" | ")
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build-all") => build_all(),
        Some("test") | Some("ci") => test(),
        Some("conformance") => conformance::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("chart") => chart::redraw(&util::root()),
        Some("bench") => match args.get(1).map(String::as_str) {
            Some("typed") => bench_typed::run(),
            Some(name) if sdk_table::find(name).is_some() => {
                (sdk_table::find(name).expect("found above").bench)()
            }
            _ => bench::run(&args[1..]),
        },
        _ => {
            eprintln!("{}", usage());
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Builds every package that exists.
fn build_all() -> Result<()> {
    util::step(
        "cargo build --release --workspace",
        util::cargo(&["build", "--release", "--workspace"]),
    )?;
    for sdk in sdk_table::SDKS {
        (sdk.build)()?;
    }
    Ok(())
}

/// Every test of every language, lints, and the conformance matrix.
fn test() -> Result<()> {
    setup::native_toolchain()?;
    util::step(
        "cargo fmt --check",
        util::cargo(&["fmt", "--all", "--check"]),
    )?;
    util::step(
        "cargo clippy",
        util::cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    util::step(
        "cargo test",
        util::cargo(&["test", "--workspace", "--all-features"]),
    )?;
    for sdk in sdk_table::SDKS {
        (sdk.test)()?;
    }
    conformance::run(&[])?;
    println!("xtask: all tests passed");
    Ok(())
}
