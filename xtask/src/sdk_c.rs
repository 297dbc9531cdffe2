//! The C ABI (`capi/`, crate `flexbuf-capi`, its own workspace root).
//!
//! - `build`: installs a C toolchain (gcc, make, binutils) when missing and
//!   builds the static and shared libraries in release
//!   (`cargo build --manifest-path capi/Cargo.toml --release --offline`).
//! - `test`: calls `build`, installs valgrind when missing, then runs the
//!   crate's lints and Rust tests (including the header/exports drift test)
//!   and `make -C capi/tests all`: the C ownership tests and the C
//!   conformance runner under `-fsanitize=address,undefined` and under
//!   valgrind, and the `nm` check of exported symbols against `flexbuf.h`.
//! - `bench`: the C and Rust sides of the ABI round-trip benchmark; rewrites
//!   the `## C ABI` section of `docs/benchmarks.md`.
//! - `conformance`: the C runner's result lines (cases replayed through the
//!   ABI builder, goldens read through the ABI reader, invalid corpus rejected
//!   through the ABI).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::report::{load_average, splice_section, today};
use crate::util::{self, Result};

const MANIFEST: &str = "capi/Cargo.toml";
const HEADING: &str = "## C ABI";

/// `cargo <subcommand> --manifest-path capi/Cargo.toml --offline <rest...>`.
fn capi_cargo(args: &[&str]) -> duct::Expression {
    let (subcommand, rest) = args.split_first().expect("a cargo subcommand");
    let mut all = vec![*subcommand, "--manifest-path", MANIFEST, "--offline"];
    all.extend(rest);
    util::cargo(&all)
}

fn make(targets: &[&str]) -> duct::Expression {
    let mut args = vec!["-s", "-C", "capi/tests"];
    args.extend(targets);
    duct::cmd("make", args).dir(util::root())
}

fn install_missing(tools: &[(&str, &'static str)]) -> Result<()> {
    let missing: Vec<&str> = tools
        .iter()
        .filter(|(program, _)| !util::have(program))
        .map(|(_, package)| *package)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        crate::setup::apt_install(&missing)
    }
}

/// Installs a C toolchain when missing and builds the library in release.
pub fn build() -> Result<()> {
    install_missing(&[("gcc", "gcc"), ("make", "make"), ("nm", "binutils")])?;
    util::step(
        "cargo build (capi, release)",
        capi_cargo(&["build", "--release"]),
    )
}

/// Every test of the C ABI (calls [`build`] first).
pub fn test() -> Result<()> {
    build()?;
    install_missing(&[("valgrind", "valgrind")])?;
    util::step(
        "cargo fmt --check (capi)",
        util::cargo(&["fmt", "--manifest-path", MANIFEST, "--check"]),
    )?;
    util::step(
        "cargo clippy (capi)",
        capi_cargo(&["clippy", "--all-targets", "--", "-D", "warnings"]),
    )?;
    util::step("cargo test (capi)", capi_cargo(&["test"]))?;
    util::step(
        "C tests: ASan/UBSan, valgrind, exported symbols",
        make(&["all"]),
    )
}

/// `case fixture -> (bytes, median ns)` from the bench programs' output.
fn parse_bench(text: &str) -> Result<BTreeMap<(String, String), (u64, f64)>> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [case, fixture, bytes, ns] = parts.as_slice() else {
            return Err(format!("unexpected bench line {line:?}").into());
        };
        out.insert(
            (case.to_string(), fixture.to_string()),
            (bytes.parse()?, ns.parse()?),
        );
    }
    Ok(out)
}

fn format_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// The C conformance runner (`make -C capi/tests conformance`), printing JSON result lines.
pub fn conformance_command() -> duct::Expression {
    duct::cmd("make", ["-s", "-C", "capi/tests", "conformance"]).dir(util::root())
}

/// Runs the C and Rust sides of the round-trip benchmark and records them.
pub fn bench() -> Result<()> {
    build()?;
    let root = util::root();
    let fixtures = root.join("conformance/fixtures");
    let fixtures_arg = fixtures.to_string_lossy().into_owned();
    let load_before = load_average();
    println!("==> C ABI bench (C side)");
    let c = make(&["bench"]).read()?;
    println!("{c}");
    println!("==> C ABI bench (Rust side)");
    let rust = capi_cargo(&[
        "run",
        "--release",
        "-q",
        "--example",
        "bench_rust",
        "--",
        &fixtures_arg,
    ])
    .read()?;
    println!("{rust}");
    let load_after = load_average();
    let c = parse_bench(&c)?;
    let rust = parse_bench(&rust)?;

    let mut s = String::new();
    let _ = writeln!(s, "{HEADING}\n");
    let _ = writeln!(
        s,
        "Written by `sdk_c::bench` of `cargo xtask bench` (C side: `make -C capi/tests bench`, \
         `capi/bench/bench.c`; Rust side: `cargo run --release --manifest-path capi/Cargo.toml \
         --example bench_rust -- conformance/fixtures`). Each figure is the **median** of 31 \
         samples of a timed loop of at least ~2 ms, timed with the thread's CPU clock so time \
         spent descheduled on the shared machine does not count. The Rust program samples the \
         direct call and the ABI call alternately in one process; the C program runs right before it.\n"
    );
    let rustc = duct::cmd("rustc", ["--version"])
        .stderr_null()
        .read()
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = match (load_before, load_after) {
        (Some(a), Some(b)) => format!("; 1-minute load average {a:.1} before, {b:.1} after"),
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "- Date: {}. Machine: {cores} cores, {rustc}, C compiled with gcc -O2{load}.",
        today()
    );
    let _ = writeln!(
        s,
        "- Messages: shared fixtures converted with `from_json` (the same bytes on every side): \
         `user_profile` is the small message, `api_response` and `time_series` the large ones; \
         the field is one top-level integer (`id`, `total`, `interval_ms`).\n\
         - **Rust** = `flexbuf::verify(bytes)?.root().get(field)?.as_i64()`; **ABI** = \
         `flexbuf_root` (verify) + `flexbuf_ref_lookup` + `flexbuf_ref_int`, called from Rust \
         (same process) and from C.\n\
         - Ratio = ABI median / Rust median (`1.10x`: the ABI takes 10% longer).\n"
    );
    type Row<'a> = (&'a str, &'a str, &'a str);
    let tables: [(&str, Row<'_>); 2] = [
        (
            "### Verify + one field read (one ABI round trip)",
            ("verify_read", "abi_verify_read", "verify_read"),
        ),
        (
            "### The field read alone (root verified once: two boundary crossings)",
            ("read", "abi_read", "read"),
        ),
    ];
    for (title, (direct, abi_rust, abi_c)) in tables {
        let _ = writeln!(s, "{title}\n");
        let _ = writeln!(
            s,
            "| message | bytes | Rust | ABI from Rust | ratio | ABI from C | ratio |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
        for fixture in ["user_profile", "api_response", "time_series"] {
            let get = |m: &BTreeMap<(String, String), (u64, f64)>, case: &str| {
                m.get(&(case.to_string(), fixture.to_string())).copied()
            };
            let (Some((bytes, r)), Some((_, ar)), Some((_, ac))) =
                (get(&rust, direct), get(&rust, abi_rust), get(&c, abi_c))
            else {
                return Err(format!("bench output lacks {fixture}").into());
            };
            let _ = writeln!(
                s,
                "| {fixture} | {bytes} | {} | {} | {:.2}x | {} | {:.2}x |",
                format_ns(r),
                format_ns(ar),
                ar / r,
                format_ns(ac),
                ac / r
            );
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "Reading: verification dominates a round trip, so on large messages the ABI costs \
         the same as Rust. A read through the ABI costs a fixed few hundred ns more than the \
         direct read: each call zeroes and copies a 280-byte `flexbuf_ref`, re-walks its path \
         from the root with the checked reader, and guards against panics. Batch reads per \
         message (DESIGN.md, \"cross once\") rather than per field."
    );
    let doc_path = root.join("docs/benchmarks.md");
    let old = std::fs::read_to_string(&doc_path).unwrap_or_default();
    std::fs::write(&doc_path, splice_section(&old, HEADING, &s))?;
    println!("==> wrote the {HEADING} section of docs/benchmarks.md");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_its_section() {
        let doc = "# B\n\n## Rust core\n\nx\n\n## C ABI\n\nold\n\n## Python SDK\n\ny\n";
        let out = splice_section(doc, HEADING, "## C ABI\n\nnew\n");
        assert_eq!(
            out,
            "# B\n\n## Rust core\n\nx\n\n## C ABI\n\nnew\n\n## Python SDK\n\ny\n"
        );
        let out = splice_section("# B\n\n## Rust core\n\nx\n", HEADING, "## C ABI\n\nnew\n");
        assert_eq!(out, "# B\n\n## Rust core\n\nx\n\n## C ABI\n\nnew\n");
    }

    #[test]
    fn bench_lines_parse() {
        let m = parse_bench("verify_read user_profile 2020 7434.9\nread user_profile 2020 70.5\n")
            .unwrap();
        assert_eq!(m[&("read".into(), "user_profile".into())], (2020, 70.5));
        assert!(parse_bench("garbage").is_err());
    }
}
