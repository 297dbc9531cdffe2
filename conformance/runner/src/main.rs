//! `flexbuf-conformance`: the Rust conformance runner.
//!
//! ```text
//! flexbuf-conformance run [--cases DIR] [--invalid DIR]   Rust categories, JSON lines
//! flexbuf-conformance damage --out FILE [--cases DIR] [--invalid DIR]
//!                                                         damaged buffers + core verdicts
//! flexbuf-conformance peers [--cases DIR]                 peer columns, JSON lines
//! flexbuf-conformance check-goldens --replay BIN [--cases DIR]
//! flexbuf-conformance regen --replay BIN [--cases DIR]
//! ```
//!
//! Result lines follow `conformance/README.md`; the exit status is 1 when a
//! non-informational category has failures, 2 on usage or setup errors.

use std::path::PathBuf;
use std::process::ExitCode;

use flexbuf_conformance::case::{self, load_dir};
use flexbuf_conformance::cpp::CppReplayer;
use flexbuf_conformance::report::CategoryResult;
use flexbuf_conformance::{damage, generate, invalid, laid, peer, run, Error};

const USAGE: &str = "usage: flexbuf-conformance <run [--cases DIR] [--invalid DIR] \
                     | damage --out FILE [--cases DIR] [--invalid DIR] | peers [--cases DIR] | check-goldens --replay BIN [--cases DIR] \
                     | regen --replay BIN [--cases DIR]>";

struct Args {
    command: String,
    cases: PathBuf,
    invalid: PathBuf,
    replay: Option<PathBuf>,
    out: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let command = it.next().ok_or("missing command")?;
    let mut args = Args {
        command,
        cases: case::default_dir(),
        invalid: invalid::default_dir(),
        replay: None,
        out: None,
    };
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--cases" => args.cases = value.into(),
            "--invalid" => args.invalid = value.into(),
            "--replay" => args.replay = Some(value.into()),
            "--out" => args.out = Some(value.into()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(args)
}

fn print(results: &[CategoryResult]) -> ExitCode {
    for r in results {
        println!("{}", r.to_json());
    }
    if results.iter().all(|r| r.ok() || r.informational) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn replayer(args: &Args) -> Result<CppReplayer, Error> {
    args.replay
        .clone()
        .map(CppReplayer::at)
        .ok_or_else(|| Error::Cpp("--replay BIN is required".into()))
}

/// The seeded damaged buffers (`FLEXBUF_AGREE_SEED`, `FLEXBUF_AGREE_CASES`).
fn damaged(args: &Args, files: &[case::CaseFile]) -> Result<Vec<damage::Damaged>, Error> {
    let sources = damage::sources(files, &damage::default_fixtures(), &args.invalid)?;
    let (seed, count) = damage::settings();
    let mut all = damage::generate(&sources, seed, count);
    all.extend(laid::generate(seed, laid::COUNT));
    Ok(all)
}

fn main_inner(args: &Args) -> Result<ExitCode, Error> {
    match args.command.as_str() {
        "run" => {
            let files = load_dir(&args.cases)?;
            let mut results = run::run_cases(&files);
            if let Some(r) = run::run_invalid(&args.invalid)? {
                results.push(r);
            }
            results.push(damage::run(&damaged(args, &files)?));
            Ok(print(&results))
        }
        "damage" => {
            let files = load_dir(&args.cases)?;
            let out = args
                .out
                .clone()
                .ok_or_else(|| Error::json("command line", "damage needs --out FILE"))?;
            let set = damaged(args, &files)?;
            damage::write_file(&out, &set)?;
            eprintln!("wrote {} damaged buffers to {}", set.len(), out.display());
            Ok(ExitCode::SUCCESS)
        }
        "peers" => {
            let files = load_dir(&args.cases)?;
            Ok(print(&[peer::run_peer(&files)]))
        }
        "check-goldens" => {
            let files = load_dir(&args.cases)?;
            let r = run::check_goldens(&files, &replayer(args)?)?;
            Ok(print(&[r]))
        }
        "regen" => {
            let report = generate::regenerate(&replayer(args)?, &args.cases)?;
            println!("wrote {} cases to {}", report.cases, args.cases.display());
            for p in &report.peer_differences {
                println!("peer difference confirmed: {p}");
            }
            if report.builder_mismatches.is_empty() {
                println!("our builder writes the C++ bytes for every case");
                Ok(ExitCode::SUCCESS)
            } else {
                for m in &report.builder_mismatches {
                    println!("BUILDER MISMATCH {m}");
                }
                Ok(ExitCode::from(1))
            }
        }
        other => Err(Error::json(
            "command line",
            format!("unknown command {other:?}"),
        )),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("flexbuf-conformance: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match main_inner(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("flexbuf-conformance: {e}");
            ExitCode::from(2)
        }
    }
}
