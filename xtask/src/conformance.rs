//! `cargo xtask conformance [--regen]`: every language runner and the matrix.
//!
//! 1. Builds the C++ reference replayer into `target/conformance/replay` when
//!    it is missing or older than its sources.
//! 2. With `--regen`, rewrites `conformance/cases/*.json` from the generator
//!    and the C++ replayer.
//! 3. Checks the committed goldens against the C++ replayer.
//! 4. Writes the damaged buffers of the agreement category, with the core's
//!    verdicts, to `target/conformance/damaged.bin` (`flexbuf-conformance
//!    damage`; seed and count from `FLEXBUF_AGREE_SEED`/`FLEXBUF_AGREE_CASES`),
//!    and the damaged typed inputs of the typed agreement, with the Rust
//!    coders' outcomes, to `target/conformance/typed_damaged.json`
//!    (`typed-conformance damage`; count from `FLEXBUF_TYPED_AGREE_CASES`).
//! 5. Runs every runner present (see `conformance_runners.rs`) with
//!    `FLEXBUF_DAMAGED` and `FLEXBUF_TYPED_DAMAGED` naming those files, and
//!    prints a matrix of language x category with passed/total.
//!
//! Fails when any non-informational category has a failure, a runner crashes,
//! a language that must report the agreement category does not, or a
//! language that reports `typed` does not report `typed agreement`.

#[path = "conformance_runners.rs"]
mod conformance_runners;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{self, Result};

/// One result line of a runner.
struct Line {
    lang: String,
    category: String,
    passed: u64,
    total: u64,
    failures: Vec<String>,
    informational: bool,
}

impl Line {
    fn parse(v: &Value) -> Option<Line> {
        Some(Line {
            lang: v.get("lang")?.as_str()?.to_string(),
            category: canonical_category(v.get("category")?.as_str()?),
            passed: v.get("passed")?.as_u64()?,
            total: v.get("total")?.as_u64()?,
            failures: v
                .get("failures")
                .and_then(Value::as_array)
                .map(|f| {
                    f.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            informational: v
                .get("informational")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }

    fn ok(&self) -> bool {
        self.passed == self.total
    }
}

/// Runs the conformance matrix (`--regen` rebuilds goldens from the C++ replayer first).
pub fn run(args: &[String]) -> Result<()> {
    let regen = match args {
        [] => false,
        [flag] if flag == "--regen" => true,
        _ => return Err(format!("usage: cargo xtask conformance [--regen], got {args:?}").into()),
    };
    let root = util::root();
    let replay = build_replayer(&root)?;
    let replay_arg = replay.to_string_lossy().into_owned();
    if regen {
        util::step(
            "regenerate conformance/cases from the C++ replayer",
            conformance_runners::conformance_bin(&["regen", "--replay", &replay_arg]),
        )?;
    }

    let mut lines = Vec::new();
    let mut crashed = Vec::new();
    let goldens = conformance_runners::conformance_bin(&["check-goldens", "--replay", &replay_arg]);
    collect("goldens vs C++", goldens, &mut lines, &mut crashed)?;
    let damaged = target_dir(&root).join("conformance/damaged.bin");
    let damaged_arg = damaged.to_string_lossy().into_owned();
    util::step(
        "write the damaged buffers of the agreement category",
        conformance_runners::conformance_bin(&["damage", "--out", &damaged_arg]),
    )?;
    let typed_damaged = target_dir(&root).join("conformance/typed_damaged.json");
    let typed_damaged_arg = typed_damaged.to_string_lossy().into_owned();
    util::step(
        "write the damaged inputs of the typed agreement category",
        conformance_runners::typed_conformance_bin(&["damage", "--out", &typed_damaged_arg]),
    )?;
    for runner in conformance_runners::runners() {
        if !(runner.present)(&root) {
            println!("==> {}: not present, skipped", runner.name);
            continue;
        }
        if let Err(e) = (runner.prepare)(&root) {
            if runner.optional {
                println!("==> {}: could not be prepared ({e}), skipped", runner.name);
                continue;
            }
            return Err(e);
        }
        collect(
            runner.name,
            (runner.command)(&root)
                .env("FLEXBUF_DAMAGED", &damaged)
                .env("FLEXBUF_TYPED_DAMAGED", &typed_damaged),
            &mut lines,
            &mut crashed,
        )?;
        for lang in runner.agreement {
            if !lines
                .iter()
                .any(|l| l.lang == *lang && l.category == "agreement")
            {
                crashed.push(format!("{}: no agreement line for {lang}", runner.name));
            }
        }
    }
    for typed in lines.iter().filter(|l| l.category == "typed") {
        if !lines
            .iter()
            .any(|l| l.lang == typed.lang && l.category == "typed agreement")
        {
            crashed.push(format!("no typed agreement line for {}", typed.lang));
        }
    }
    print_matrix(&lines);

    let failed: Vec<&Line> = lines
        .iter()
        .filter(|l| !l.ok() && !l.informational)
        .collect();
    for l in &failed {
        println!(
            "\nFAILED {} / {}: {} of {}",
            l.lang,
            l.category,
            l.total - l.passed,
            l.total
        );
        for f in l.failures.iter().take(10) {
            println!("  {f}");
        }
    }
    for l in lines.iter().filter(|l| !l.ok() && l.informational) {
        println!(
            "\npeer disagreement (informational, see conformance/PEER_DIFFERENCES.md) {} / {}: {} of {}",
            l.lang,
            l.category,
            l.total - l.passed,
            l.total
        );
        for f in l.failures.iter().take(3) {
            println!("  {}", f.chars().take(200).collect::<String>());
        }
    }
    if !failed.is_empty() || !crashed.is_empty() {
        for c in &crashed {
            println!("\nCRASHED {c}");
        }
        return Err("conformance matrix has failures".into());
    }
    println!("\nconformance: every category passed");
    Ok(())
}

/// Builds the replayer unless an up-to-date one exists; returns its path.
/// Cargo's target directory (`CARGO_TARGET_DIR` or `target/`).
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

fn build_replayer(root: &Path) -> Result<PathBuf> {
    let target = target_dir(root);
    let out = target.join("conformance/replay");
    let cpp = root.join("conformance/cpp");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = modified(&out).is_some_and(|built| {
        ["replay.cpp", "build.sh", "toolchain.sh"]
            .iter()
            .all(|s| modified(&cpp.join(s)).is_some_and(|m| m <= built))
    });
    if !fresh {
        crate::setup::native_toolchain()?;
        std::fs::create_dir_all(target.join("conformance"))?;
        let out_arg = out.to_string_lossy().into_owned();
        let script = cpp.join("build.sh").to_string_lossy().into_owned();
        util::step(
            "build the C++ reference replayer",
            duct::cmd("bash", [script.as_str(), out_arg.as_str()]).dir(root),
        )?;
    }
    Ok(out)
}

/// The matrix column of a category: short names some runners print map to
/// the names in `conformance/README.md`.
fn canonical_category(name: &str) -> String {
    match name {
        "bytes" => "bytes identical",
        "values" => "values identical",
        "invalid" => "invalid rejected",
        other => other,
    }
    .to_string()
}

/// Runs one runner and keeps its result lines; a run without any line is a crash.
fn collect(
    name: &str,
    expr: duct::Expression,
    lines: &mut Vec<Line>,
    crashed: &mut Vec<String>,
) -> Result<()> {
    println!("==> {name}");
    let out = expr.stdout_capture().unchecked().run()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut found = 0;
    for text in stdout.lines() {
        // Some build tools (Maven) may put escape codes before a runner's line.
        let json = text.find('{').map_or(text, |i| &text[i..]);
        let parsed = serde_json::from_str::<Value>(json)
            .ok()
            .and_then(|v| Line::parse(&v));
        match parsed {
            Some(line) => {
                found += 1;
                lines.push(line);
            }
            None => println!("{text}"),
        }
    }
    if found == 0 {
        crashed.push(format!("{name}: no result lines ({})", out.status));
    }
    Ok(())
}

fn print_matrix(lines: &[Line]) {
    let mut categories: Vec<&str> = Vec::new();
    let mut langs: Vec<(&str, bool)> = Vec::new();
    let mut cells: BTreeMap<(&str, &str), String> = BTreeMap::new();
    for l in lines {
        if !categories.contains(&l.category.as_str()) {
            categories.push(&l.category);
        }
        if !langs.iter().any(|(name, _)| *name == l.lang) {
            langs.push((&l.lang, l.informational));
        }
        let mark = if l.ok() || l.informational {
            ""
        } else {
            " FAIL"
        };
        cells.insert(
            (&l.lang, &l.category),
            format!("{}/{}{mark}", l.passed, l.total),
        );
    }
    let first = langs
        .iter()
        .map(|(l, _)| l.len() + 2)
        .max()
        .unwrap_or(8)
        .max("language".len());
    let widths: Vec<usize> = categories.iter().map(|c| c.len().max(14)).collect();
    println!();
    print!("{:first$}", "language");
    for (c, w) in categories.iter().zip(&widths) {
        print!("  {c:>w$}");
    }
    println!();
    for (lang, informational) in &langs {
        let label = if *informational {
            format!("{lang} *")
        } else {
            lang.to_string()
        };
        print!("{label:first$}");
        for (c, w) in categories.iter().zip(&widths) {
            let cell = cells.get(&(*lang, *c)).map(String::as_str).unwrap_or("-");
            print!("  {cell:>w$}");
        }
        println!();
    }
    if langs.iter().any(|(_, i)| *i) {
        println!("* informational: shown, never fails the matrix");
    }
}
