//! `cargo xtask bench <suite>`: runs a benchmark suite and records it in
//! `docs/benchmarks.md`.
//!
//! `core` runs `cargo bench -p flexbuf --bench core` (timed with `bench/kit`:
//! the contenders of each comparison interleaved round by round, on the
//! thread's CPU clock) twice, reads every contender's samples from
//! `target/flexbuf-bench/core/run<N>/<group>/<id>.json` and the encoded sizes
//! the bench writes, and replaces the `## Rust core` section of
//! `docs/benchmarks.md` with tables of medians and ratios against each peer,
//! each ratio given per run and a target met only when every run meets it.
//! Other sections of that file are kept as they are.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::kit_runs::{count_from_env, run_suite, Ratio, Row, Runs, Timing};
use crate::report::{fmt_count, fmt_ratio, fmt_time, splice_section, today};
use crate::util::{self, Result};

const USAGE: &str = "usage: cargo xtask bench core";

/// The exact command the suite runs, as printed in the report.
const CORE_COMMAND: &str =
    "cargo bench -p flexbuf --bench core --features reference-verifier,serde";

/// Section heading owned by this suite in `docs/benchmarks.md`.
const CORE_HEADING: &str = "## Rust core";

/// The environment the Rust benchmark processes run in: glibc's malloc
/// thresholds fixed at the values its dynamic adjustment grows them to
/// (mmap 32 MiB, trim twice that). Left dynamic, whether a 128 KiB block
/// (a `Vec` of 4,096 `serde_json::Value`s) is mapped afresh, or the heap
/// trimmed and grown back, on every call depended on what earlier groups
/// had freed: one run of `serde_time_series` measured `from_slice` at 214
/// µs where the run before and the group alone measured 109-119 µs, its
/// time spent in page faults. Every contender runs under the same setting.
pub(crate) const STEADY_MALLOC: (&str, &str) = (
    "GLIBC_TUNABLES",
    "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864",
);

/// Fixtures of the side-by-side comparison, in report order (names match the bench).
const FIXTURES: [&str; 4] = [
    "user_profile",
    "api_response",
    "time_series",
    "unicode_heavy",
];

/// Every shared fixture: the JSON and verify tables.
const ALL_FIXTURES: [&str; 11] = [
    "user_profile",
    "api_response",
    "time_series",
    "unicode_heavy",
    "chat_thread",
    "deep_nesting",
    "metrics_96k",
    "repeated_maps",
    "string_flood",
    "wide_map",
    "width_bomb",
];

/// Fixtures on which the verifier must be at least twice as fast as before.
const VERIFY_TARGETS: [&str; 4] = [
    "api_response",
    "chat_thread",
    "string_flood",
    "unicode_heavy",
];

/// Inputs of the verify-scaling group, in report order.
const LINEAR: [&str; 6] = [
    "metrics_96k",
    "api_x1",
    "api_x10",
    "api_x100",
    "api_x1000",
    "api_x2000",
];

/// JSON columns (from_json_* and to_json_* groups).
const JSON: [Column; 2] = [
    col("flexbuf", "flexbuf", false),
    col("serde_json", "serde_json (Value)", false),
];

/// Record collections of the serde tier beside the fixtures (groups
/// `serde_<name>`), shaped like public serialization benchmarks' datasets.
const SERDE_DATASETS: [&str; 4] = [
    "access_log_10k",
    "mesh_25k",
    "save_data_500",
    "game_updates_1k",
];

/// Serde-tier columns (serde_* groups).
const SERDE: [Column; 6] = [
    col("flexbuf_ser", "flexbuf to_vec", false),
    col("flexbuffers_ser", "flexbuffers to_vec", false),
    col("flexbuf_de", "flexbuf from_slice", false),
    col("flexbuffers_de", "flexbuffers from_slice", false),
    col("flexbuf_de_borrowed", "flexbuf from_slice (borrowed)", true),
    col(
        "flexbuffers_de_borrowed",
        "flexbuffers from_slice (borrowed)",
        true,
    ),
];

/// One column of a comparison table: a benchmark id and its label.
struct Column {
    id: &'static str,
    label: &'static str,
    /// Only benchmarked when the fixture has homogeneous numeric arrays.
    optional: bool,
}

const fn col(id: &'static str, label: &'static str, optional: bool) -> Column {
    Column {
        id,
        label,
        optional,
    }
}

/// Encode columns; the first is the baseline every ratio is relative to.
const ENCODE: [Column; 6] = [
    col("flexbuf", "flexbuf", false),
    col("flexbuf_typed", "flexbuf (typed vectors)", true),
    col("flexbuffers", "flexbuffers", false),
    col("flexbuffers_slices", "flexbuffers (slices)", true),
    col("serde_json", "serde_json", false),
    col("rmp_serde", "rmp_serde", false),
];

/// Full-read columns; the first is the baseline every ratio is relative to.
const READ: [Column; 7] = [
    col("flexbuf_verify_walk", "flexbuf verify + walk", false),
    col("flexbuf_walk", "flexbuf walk (verified)", false),
    col(
        "flexbuf_typed_verify_walk",
        "flexbuf typed: verify + walk",
        true,
    ),
    col("flexbuf_typed_walk", "flexbuf typed: walk (verified)", true),
    col("flexbuffers", "flexbuffers walk", false),
    col("serde_json", "serde_json parse", false),
    col("rmp_serde", "rmp_serde parse", false),
];

/// Runs the named benchmark suite.
pub fn run(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("core") if args.len() == 1 => core(),
        _ => Err(format!("unknown benchmark suite {:?}; {USAGE}", args.first()).into()),
    }
}

/// How many times `cargo xtask bench core` runs the suite (`FLEXBUF_BENCH_RUNS`
/// overrides): ratios are quoted per run and must agree.
const RUNS: usize = 2;

/// `cargo xtask bench core`.
fn core() -> Result<()> {
    let root = util::root();
    let out = util::target_dir().join("flexbuf-bench").join("core");
    let sizes_path = out.join("sizes.tsv");
    let (results, loads) = run_suite(&out, count_from_env(RUNS)?, CORE_COMMAND, || {
        util::cargo(&[
            "bench",
            "-p",
            "flexbuf",
            "--bench",
            "core",
            "--features",
            "reference-verifier,serde",
        ])
        .env("FLEXBUF_BENCH_SIZES", &sizes_path)
        .env(STEADY_MALLOC.0, STEADY_MALLOC.1)
    })?;
    let sizes = read_sizes(&sizes_path)?;
    let report = CoreReport::collect(&results, &sizes)?;
    let mut machine = Machine::detect();
    machine.loads = loads;
    let section = report.render(&machine, &today());
    let doc_path = root.join("docs").join("benchmarks.md");
    let old = std::fs::read_to_string(&doc_path).unwrap_or_default();
    std::fs::write(&doc_path, splice_section(&old, CORE_HEADING, &section))?;
    let svg = report.suite(&today()).write(&crate::chart::dir(&root))?;
    println!("xtask: wrote {} (and its .json)", svg.display());
    println!("{}", report.summary());
    println!("xtask: wrote {}", doc_path.display());
    Ok(())
}

/// Encoded sizes written by the bench: `(fixture, format) -> bytes`.
type Sizes = BTreeMap<(String, String), u64>;

fn read_sizes(path: &Path) -> Result<Sizes> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    parse_sizes(&text)
}

fn parse_sizes(text: &str) -> Result<Sizes> {
    let mut sizes = Sizes::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let mut parts = line.split('\t');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(fixture), Some(format), Some(bytes), None) => {
                sizes.insert((fixture.to_string(), format.to_string()), bytes.parse()?);
            }
            _ => return Err(format!("bad sizes line {line:?}").into()),
        }
    }
    Ok(sizes)
}

// ---- the report ------------------------------------------------------------------

/// A verify measurement: input name, its size and the time.
struct VerifyRow {
    name: String,
    bytes: u64,
    time: Timing,
}

impl VerifyRow {
    fn ns(&self) -> f64 {
        self.time.median()
    }
}

/// The verifier on one fixture, now and before (the replaced one, same run).
struct VerifyPair {
    fixture: &'static str,
    bytes: u64,
    now: Timing,
    before: Timing,
}

impl VerifyPair {
    fn speedup(&self) -> Ratio {
        Ratio::of(&self.before, &self.now)
    }
}

struct CoreReport {
    encode: Vec<Row>,
    read: Vec<Row>,
    verify: Vec<VerifyRow>,
    pairs: Vec<VerifyPair>,
    linear: Vec<VerifyRow>,
    from_json: Vec<Row>,
    to_json: Vec<Row>,
    /// The JSON groups of the documents in `$FLEXBUF_BENCH_JSON_DIR` (none
    /// when it was not set), from and to JSON.
    documents: (Vec<Row>, Vec<Row>),
    serde: Vec<Row>,
    sizes: Sizes,
    /// How many runs the timings hold.
    runs: usize,
}

impl CoreReport {
    /// The run as `docs/bench/core.{json,svg}`: encode, full read and JSON
    /// transcoding, each peer against flexbuf.
    fn suite(&self, date: &str) -> crate::chart::Suite {
        let panel = |name: &str, rows: &[Row], columns: &[Column]| {
            let fixtures = rows.iter().map(|r| r.fixture.to_string()).collect();
            let cols = columns
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    (
                        c.label.to_string(),
                        rows.iter().map(|r| r.median(i)).collect(),
                    )
                })
                .collect();
            crate::chart::Panel::from_medians(name, fixtures, cols)
        };
        crate::chart::Suite {
            name: "core",
            title: "Rust core: peer time / flexbuf time".into(),
            command: "cargo xtask bench core".into(),
            date: date.to_string(),
            panels: vec![
                panel("encode", &self.encode, &ENCODE),
                panel("full read", &self.read, &READ),
                panel("from_json", &self.from_json, &JSON),
                panel("to_json", &self.to_json, &JSON),
            ],
        }
    }

    fn collect(results: &Runs, sizes: &Sizes) -> Result<CoreReport> {
        let size = |fixture: &str, format: &str| -> Result<u64> {
            sizes
                .get(&(fixture.to_string(), format.to_string()))
                .copied()
                .ok_or_else(|| format!("no size for {fixture}/{format}").into())
        };
        let rows_of = |prefix: &str, fixtures: &[&'static str], columns: &[Column]| {
            fixtures
                .iter()
                .map(|&fixture| {
                    let group = format!("{prefix}_{fixture}");
                    let times = columns
                        .iter()
                        .map(|c| match c.optional {
                            true => results.timing(&group, c.id),
                            false => results.required(&group, c.id).map(Some),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    Ok(Row { fixture, times })
                })
                .collect::<Result<Vec<_>>>()
        };
        let group_rows = |prefix: &str, columns: &[Column]| rows_of(prefix, &FIXTURES, columns);
        let pairs = ALL_FIXTURES
            .iter()
            .map(|&fixture| {
                let group = format!("verify_{fixture}");
                Ok(VerifyPair {
                    fixture,
                    bytes: size(fixture, "json_flexbuf")?,
                    now: results.required(&group, "flexbuf")?,
                    before: results.required(&group, "flexbuf_before")?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let serde_fixtures: Vec<&'static str> = FIXTURES
            .iter()
            .copied()
            .chain(SERDE_DATASETS)
            .chain(["records_100k"])
            .collect();
        let mut verify = Vec::new();
        for fixture in FIXTURES {
            let group = format!("verify_{fixture}");
            verify.push(VerifyRow {
                name: fixture.to_string(),
                bytes: size(fixture, "json_flexbuf")?,
                time: results.required(&group, "flexbuf")?,
            });
            if let Some(time) = results.timing(&group, "flexbuf_typed")? {
                verify.push(VerifyRow {
                    name: format!("{fixture} (typed vectors)"),
                    bytes: size(fixture, "flexbuf_typed")?,
                    time,
                });
            }
        }
        let linear = LINEAR
            .iter()
            .map(|&name| {
                Ok(VerifyRow {
                    name: name.to_string(),
                    bytes: size("verify_linear", name)?,
                    time: results.required("verify_linear", name)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // Any other from_json group is a document of $FLEXBUF_BENCH_JSON_DIR.
        let documents: Vec<&'static str> = results
            .groups_with_prefix("from_json_")?
            .into_iter()
            .filter_map(|g| g.strip_prefix("from_json_").map(str::to_string))
            .filter(|name| !ALL_FIXTURES.contains(&name.as_str()))
            .map(|name| &*Box::leak(name.into_boxed_str()))
            .collect();
        Ok(CoreReport {
            documents: (
                rows_of("from_json", &documents, &JSON)?,
                rows_of("to_json", &documents, &JSON)?,
            ),
            encode: group_rows("encode", &ENCODE)?,
            read: group_rows("read", &READ)?,
            verify,
            pairs,
            linear,
            from_json: rows_of("from_json", &ALL_FIXTURES, &JSON)?,
            to_json: rows_of("to_json", &ALL_FIXTURES, &JSON)?,
            serde: rows_of("serde", &serde_fixtures, &SERDE)?,
            sizes: sizes.clone(),
            runs: results.len(),
        })
    }

    fn size(&self, fixture: &str, format: &str) -> Option<u64> {
        self.sizes
            .get(&(fixture.to_string(), format.to_string()))
            .copied()
    }

    /// The `## Rust core` section, heading included.
    fn render(&self, machine: &Machine, date: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{CORE_HEADING}\n");
        let _ = writeln!(
            s,
            "Reproduce with `cargo xtask bench core`, which runs `{CORE_COMMAND}` \
             {runs} times and rewrites this section from \
             `target/flexbuf-bench/core/run*/<group>/<id>.json`. The bench times with \
             `bench/kit`: the contenders of one comparison run interleaved, round after \
             round (up to 31 rounds of about 4 ms each, in an order that rotates), on \
             the thread's CPU clock, so a neighbour's job on the shared cores slows \
             every contender of a round alike. The process runs with \
             `{tunables_var}={tunables}`: glibc's malloc thresholds fixed where its \
             dynamic adjustment takes them, so that whether a large block is mapped \
             afresh on every call does not depend on what earlier groups freed.\n",
            runs = self.runs,
            tunables_var = STEADY_MALLOC.0,
            tunables = STEADY_MALLOC.1,
        );
        let _ = writeln!(
            s,
            "![Rust core: peer time / flexbuf time per fixture, log scale](bench/core.svg)\n\n\
             (Every median and ratio of this run: `docs/bench/core.json`.)\n"
        );
        let _ = writeln!(
            s,
            "- Date: {date}\n- Machine: {machine}. The cores are shared with other \
             jobs: the machine's speed moves by up to 1.8x between minutes, and not \
             alike for every kind of code, so absolute times are only indicative.\n\
             - Every competitor is measured in the same run, on the same `serde_json::Value` \
             parsed once from `conformance/fixtures/<fixture>.json`.\n\
             - Times are medians over every round of every run. Ratios are *peer time / \
             flexbuf time*, taken per run as the median over rounds of the two times of \
             the same round: `3.0x` means flexbuf takes a third of the peer's time, \
             `0.5x` twice as long. Tables give their geometric mean over the runs; the \
             targets give each run's (`1.23x (1.20x/1.26x)`), mark with † the ratios \
             whose runs disagree by more than 10%, and count a target met only when \
             every run meets it.\n",
            machine = machine.describe(),
        );

        let _ = writeln!(s, "### What is measured\n");
        let _ = writeln!(
            s,
            "- **Encode**: a builder reused across iterations is driven by walking the \
             `Value` tree (maps: key then value; arrays: one element at a time). \
             *flexbuf (typed vectors)* writes all-int and all-float arrays with \
             `Builder::typed_vector` in one call; *flexbuffers (slices)* pushes the same \
             arrays as one slice into the `flexbuffers` crate. `serde_json` and `rmp_serde` \
             serialize the `Value` into a reused `Vec`. Typed variants are only run for \
             fixtures that have homogeneous numeric arrays (— otherwise).\n\
             - **Read**: a full traversal that visits every value and key and sums \
             integers, float bits, string and key lengths into a checksum. \
             *verify + walk* starts from untrusted bytes (`flexbuf::verify`, then the \
             walk on the trusted root); *walk (verified)* reuses a buffer verified once. \
             The `flexbuffers` crate walks with its checked getters (it validates lazily \
             as it reads). `serde_json` and `rmp_serde` parse into a `Value`, which \
             already builds the whole tree.\n\
             - **Verify**: `flexbuf::verify` alone, on each fixture and on growing inputs \
             to show the time per byte stays flat; *before* is the verifier this one \
             replaced (feature `reference-verifier`), timed in the same run.\n\
             - **JSON**: `from_json` parses text into a finished buffer; `to_json` \
             verifies a buffer and writes compact text. The peers parse into and write \
             from `serde_json::Value`.\n\
             - **Serde**: `flexbuf::to_vec`/`from_slice` against `flexbuffers::to_vec`/\
             `from_slice` on the same values; our `from_slice` accepts exactly what the \
             verifier accepts, checking in one pass as it reads.\n\
             - Map keys reach every builder in sorted order (`serde_json::Map` is a \
             `BTreeMap`), so no builder has to sort them.\n"
        );

        let _ = writeln!(s, "### Encode (median time)\n");
        self.render_table(&mut s, &ENCODE, &self.encode);
        let _ = writeln!(s, "### Full read traversal (median time)\n");
        self.render_table(&mut s, &READ, &self.read);

        let _ = writeln!(s, "### Verify throughput\n");
        render_verify(&mut s, "buffer", &self.verify);
        let _ = writeln!(
            s,
            "The verifier against the one it replaced (which recorded every container \
             in a hash table), both in this run, on every fixture as `from_json` \
             builds it:\n"
        );
        self.render_pairs(&mut s);
        let _ = writeln!(
            s,
            "Scaling: the same verifier on `metrics_96k` and on the API response \
             with its 100 records repeated 1x to 2000x (35 KB to 70 MB).\n"
        );
        render_verify(&mut s, "input", &self.linear);

        let _ = writeln!(
            s,
            "### JSON (median time)\n\n`flexbuf::from_json(text)` against \
             `serde_json::from_str::<Value>(text)`, and `flexbuf::to_json(bytes)` \
             (which verifies the bytes first) against `serde_json::to_string(&value)`, \
             on every fixture.\n"
        );
        let _ = writeln!(s, "From JSON text:\n");
        self.render_table(&mut s, &JSON, &self.from_json);
        let _ = writeln!(s, "To JSON text:\n");
        self.render_table(&mut s, &JSON, &self.to_json);
        if !self.documents.0.is_empty() {
            let _ = writeln!(
                s,
                "Public documents (not committed; measured when `FLEXBUF_BENCH_JSON_DIR` \
                 names a directory of `.json` files, such as the `data/` directory of \
                 serde-rs/json-benchmark), from JSON text:\n"
            );
            self.render_table(&mut s, &JSON, &self.documents.0);
            let _ = writeln!(s, "Public documents, to JSON text:\n");
            self.render_table(&mut s, &JSON, &self.documents.1);
        }

        let _ = writeln!(
            s,
            "### Serde tier (median time)\n\n`flexbuf::to_vec` / `from_slice` \
             (which checks what the verifier checks, in one pass) against the \
             `flexbuffers` crate's serde, on the \
             fixtures as `serde_json::Value`, on four record collections shaped like the \
             datasets of public Rust serialization benchmarks (`benches/shared/datasets.rs`, \
             our own types and seeded values: an access log of 10,000 hits, a mesh of \
             25,000 faces of `f32` points, 500 saved game players with nested structs, \
             `Option`s, enums, tuples and arrays, 1,000 game state updates with vectors \
             of bools and bytes and data-carrying enums) and on 100,000 small derived \
             records (strings, a float, a bool, a `Vec<String>`, a `[f32; 3]`, a \
             `Vec<u32>`); *borrowed* decodes into a struct of `&str`.\n"
        );
        self.render_table(&mut s, &SERDE, &self.serde);

        let _ = writeln!(s, "### Encoded sizes (bytes)\n");
        self.render_sizes(&mut s);

        let _ = writeln!(s, "### Targets\n");
        for line in self.targets() {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
        s
    }

    fn render_table(&self, s: &mut String, columns: &[Column], rows: &[Row]) {
        let header: Vec<&str> = columns.iter().map(|c| c.label).collect();
        let _ = writeln!(s, "| fixture | {} |", header.join(" | "));
        let _ = writeln!(s, "|---|{}", "---:|".repeat(columns.len()));
        for row in rows {
            let cells: Vec<String> = (0..row.times.len())
                .map(|i| match (i, row.median(i), row.ratio(i, 0)) {
                    (_, None, _) => "—".to_string(),
                    (0, Some(t), _) => format!("{} (1.0x)", fmt_time(t)),
                    (_, Some(t), Some(r)) => format!("{} ({})", fmt_time(t), fmt_ratio(r.value())),
                    (_, Some(t), None) => fmt_time(t),
                })
                .collect();
            let _ = writeln!(s, "| {} | {} |", row.fixture, cells.join(" | "));
        }
        s.push('\n');
        let _ = writeln!(s, "In words (relative to *{}*):\n", columns[0].label);
        for row in rows {
            let _ = writeln!(s, "- {}: {}", row.fixture, ratio_sentence(columns, row));
        }
        s.push('\n');
    }

    fn render_pairs(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "| fixture | bytes | before | now | speed-up | MB/s now | ns/byte now |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
        for p in &self.pairs {
            let now = p.now.median();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {:.0} | {:.2} |",
                p.fixture,
                fmt_count(p.bytes),
                fmt_time(p.before.median()),
                fmt_time(now),
                p.speedup().show(),
                p.bytes as f64 / now * 1e3,
                now / p.bytes as f64
            );
        }
        s.push('\n');
    }

    fn render_sizes(&self, s: &mut String) {
        let formats = [
            ("source_json", "fixture file"),
            ("flexbuf", "flexbuf"),
            ("flexbuf_typed", "flexbuf (typed vectors)"),
            ("flexbuffers", "flexbuffers"),
            ("serde_json", "serde_json"),
            ("rmp_serde", "rmp_serde"),
        ];
        let labels: Vec<&str> = formats.iter().map(|f| f.1).collect();
        let _ = writeln!(s, "| fixture | {} |", labels.join(" | "));
        let _ = writeln!(s, "|---|{}", "---:|".repeat(formats.len()));
        for fixture in FIXTURES {
            let cells: Vec<String> = formats
                .iter()
                .map(|(f, _)| self.size(fixture, f).map_or("—".into(), fmt_count))
                .collect();
            let _ = writeln!(s, "| {fixture} | {} |", cells.join(" | "));
        }
        s.push('\n');
    }

    /// One verdict per target from the issue.
    fn targets(&self) -> Vec<String> {
        let col = |columns: &[Column], id: &str| columns.iter().position(|c| c.id == id);
        let ratios = |rows: &[Row], base: usize, peer: usize| -> Vec<(&str, Ratio)> {
            rows.iter()
                .filter_map(|r| Some((r.fixture, r.ratio(peer, base)?)))
                .collect()
        };
        let verdict = |name: &str, pairs: &[(&str, Ratio)], needed: f64| -> String {
            let met = pairs.iter().filter(|(_, r)| r.met(needed)).count();
            let status = match met {
                m if m == pairs.len() => "**met**".to_string(),
                0 => "**missed**".to_string(),
                m => format!("**met on {m} of {}**", pairs.len()),
            };
            let detail: Vec<String> = pairs
                .iter()
                .map(|(f, r)| format!("{f} {}", r.show()))
                .collect();
            format!("{name}: {status} ({})", detail.join(", "))
        };
        let mut out = Vec::new();
        let enc = |id| col(&ENCODE, id).unwrap_or(0);
        let read = |id| col(&READ, id).unwrap_or(0);
        let serde = |id| col(&SERDE, id).unwrap_or(0);
        out.push(verdict(
            "Encode faster than `serde_json`",
            &ratios(&self.encode, enc("flexbuf"), enc("serde_json")),
            1.0,
        ));
        let rmp = ratios(&self.encode, enc("flexbuf"), enc("rmp_serde"));
        let rmp_met = rmp.iter().filter(|(_, r)| r.met(1.0)).count();
        out.push(format!(
            "Encode faster than `rmp_serde` on at least 2 of 4: {} ({})",
            if rmp_met >= 2 {
                "**met**"
            } else {
                "**missed**"
            },
            rmp.iter()
                .map(|(f, r)| format!("{f} {}", r.show()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        out.push(verdict(
            "Encode vs the `flexbuffers` crate (for scale; no target)",
            &ratios(&self.encode, enc("flexbuf"), enc("flexbuffers")),
            1.0,
        ));
        let pairs: Vec<(&str, Ratio)> = self
            .pairs
            .iter()
            .filter(|p| VERIFY_TARGETS.contains(&p.fixture))
            .map(|p| (p.fixture, p.speedup()))
            .collect();
        out.push(verdict(
            "Verify at least 2x faster than before (same run)",
            &pairs,
            2.0,
        ));
        let all: Vec<(&str, Ratio)> = self
            .pairs
            .iter()
            .map(|p| (p.fixture, p.speedup()))
            .collect();
        out.push(verdict("Same, every fixture (for scale)", &all, 2.0));
        out.push(linearity(&self.linear));
        out.push(verdict(
            "`from_json` faster than `serde_json::from_str::<Value>`",
            &ratios(&self.from_json, 0, 1),
            1.0,
        ));
        out.push(verdict(
            "`to_json` faster than `serde_json::to_string(&Value)`",
            &ratios(&self.to_json, 0, 1),
            1.0,
        ));
        if !self.documents.0.is_empty() {
            out.push(verdict(
                "`from_json` faster than `serde_json::from_str::<Value>` on the public documents (for scale)",
                &ratios(&self.documents.0, 0, 1),
                1.0,
            ));
            out.push(verdict(
                "`to_json` faster than `serde_json::to_string(&Value)` on the public documents (for scale)",
                &ratios(&self.documents.1, 0, 1),
                1.0,
            ));
        }
        out.push(verdict(
            "Full traversal of a verified buffer at least 2x the `flexbuffers` crate",
            &ratios(&self.read, read("flexbuf_walk"), read("flexbuffers")),
            2.0,
        ));
        out.push(verdict(
            "Same, from untrusted bytes (verify + walk vs flexbuffers walk; for scale)",
            &ratios(&self.read, read("flexbuf_verify_walk"), read("flexbuffers")),
            2.0,
        ));
        out.push(verdict(
            "Serde serialize at least 2x the `flexbuffers` crate",
            &ratios(&self.serde, serde("flexbuf_ser"), serde("flexbuffers_ser")),
            2.0,
        ));
        out.push(verdict(
            "Serde deserialize at least 2x the `flexbuffers` crate",
            &ratios(&self.serde, serde("flexbuf_de"), serde("flexbuffers_de")),
            2.0,
        ));
        out.push(verdict(
            "Borrowing deserialize faster than the `flexbuffers` crate's",
            &ratios(
                &self.serde,
                serde("flexbuf_de_borrowed"),
                serde("flexbuffers_de_borrowed"),
            ),
            1.0,
        ));
        out
    }

    /// Short console summary.
    fn summary(&self) -> String {
        let mut s = String::new();
        for (name, columns, rows) in [
            ("encode", &ENCODE[..], &self.encode),
            ("read", &READ[..], &self.read),
        ] {
            for row in rows {
                let _ = writeln!(
                    s,
                    "{name} {}: {}",
                    row.fixture,
                    ratio_sentence(columns, row)
                );
            }
        }
        for line in self.targets() {
            let _ = writeln!(s, "target: {}", line.replace("**", ""));
        }
        s
    }
}

/// Verdict on verify's linearity: time per byte across the repeated API
/// inputs (same content, growing size), in each run; other inputs are listed
/// for scale only. Met when every run stays within 1.25x.
fn linearity(rows: &[VerifyRow]) -> String {
    let scaled: Vec<&VerifyRow> = rows
        .iter()
        .filter(|v| v.name.starts_with("api_x"))
        .collect();
    let runs = scaled.first().map_or(0, |v| v.time.run_medians().len());
    let spreads: Vec<f64> = (0..runs)
        .map(|run| {
            let per_byte: Vec<f64> = scaled
                .iter()
                .map(|v| v.time.run_medians()[run] / v.bytes as f64)
                .collect();
            let lo = per_byte.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = per_byte.iter().copied().fold(0.0, f64::max);
            hi / lo
        })
        .collect();
    let (small, big) = scaled.iter().fold((f64::INFINITY, 0f64), |(s, b), v| {
        (s.min(v.bytes as f64), b.max(v.bytes as f64))
    });
    let listed: Vec<String> = rows
        .iter()
        .map(|v| format!("{} {:.2} ns/B", v.name, v.ns() / v.bytes as f64))
        .collect();
    let met = scaled.len() >= 2 && !spreads.is_empty() && spreads.iter().all(|&r| r <= 1.25);
    let status = if met { "**met**" } else { "**missed**" };
    let each: Vec<String> = spreads.iter().map(|r| format!("{r:.2}x")).collect();
    format!(
        "Verify time per byte flat from kilobytes to 64 MB and more (within 1.25x): \
         {status} (over a {:.0}x size range of the same records, time per byte varies \
         {} in the runs; medians {})",
        big / small,
        each.join(" / "),
        listed.join(", ")
    )
}

fn render_verify(s: &mut String, what: &str, rows: &[VerifyRow]) {
    let _ = writeln!(s, "| {what} | bytes | median | MB/s | ns/byte |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|");
    for v in rows {
        let ns = v.ns();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.0} | {:.2} |",
            v.name,
            fmt_count(v.bytes),
            fmt_time(ns),
            v.bytes as f64 / ns * 1e3,
            ns / v.bytes as f64
        );
    }
    s.push('\n');
}

/// "flexbuf 1.0x, flexbuffers 1.9x slower, serde_json 1.2x faster".
fn ratio_sentence(columns: &[Column], row: &Row) -> String {
    if row.times[0].is_none() {
        return "no baseline".into();
    }
    let mut parts = vec![format!("{} 1.0x", columns[0].label)];
    for (i, c) in columns.iter().enumerate().skip(1) {
        let Some(r) = row.ratio(i, 0).map(|r| r.value()) else {
            continue;
        };
        let word = if r >= 1.0 {
            format!("{} slower", fmt_ratio(r))
        } else {
            format!("{} faster", fmt_ratio(1.0 / r))
        };
        parts.push(format!("{} {word}", c.label));
    }
    parts.join(", ")
}

// ---- document and environment ------------------------------------------------------

/// What the numbers were measured on.
struct Machine {
    cpu: Option<String>,
    cores: usize,
    rustc: Option<String>,
    /// 1-minute load average before each run and after the last, when known.
    loads: Vec<f64>,
}

impl Machine {
    fn detect() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        });
        let rustc = duct::cmd("rustc", ["--version"]).stderr_null().read().ok();
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rustc,
            loads: Vec::new(),
        }
    }

    fn describe(&self) -> String {
        let mut s = format!("{} cores", self.cores);
        if let Some(cpu) = &self.cpu {
            s.push_str(&format!(" ({cpu})"));
        }
        s.push_str(&format!(", {}", std::env::consts::OS));
        if let Some(rustc) = &self.rustc {
            s.push_str(&format!(", {rustc}"));
        }
        if !self.loads.is_empty() {
            let each: Vec<String> = self.loads.iter().map(|l| format!("{l:.1}")).collect();
            s.push_str(&format!(
                "; 1-minute load average before each run and after the last: {}",
                each.join(", ")
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::civil_from_days;

    #[test]
    fn splices_only_its_section() {
        let doc = "# Benchmarks\n\nintro\n\n## Python\n\npy\n\n## Rust core\n\nold\n\n## TypeScript\n\nts\n";
        let out = splice_section(doc, "## Rust core", "## Rust core\n\nnew\n");
        assert_eq!(
            out,
            "# Benchmarks\n\nintro\n\n## Python\n\npy\n\n## Rust core\n\nnew\n\n## TypeScript\n\nts\n"
        );
        let appended = splice_section(
            "# Benchmarks\n\n## Python\n\npy\n",
            "## Rust core",
            "## Rust core\n\nx\n",
        );
        assert_eq!(
            appended,
            "# Benchmarks\n\n## Python\n\npy\n\n## Rust core\n\nx\n"
        );
        let fresh = splice_section("", "## Rust core", "## Rust core\n\nx\n");
        assert!(fresh.starts_with("# Benchmarks\n") && fresh.ends_with("## Rust core\n\nx\n"));
    }

    #[test]
    fn parses_sizes_and_rejects_garbage() {
        let sizes = parse_sizes("a\tflexbuf\t12\nverify_linear\tapi_x4\t400\n").unwrap();
        assert_eq!(sizes[&("a".to_string(), "flexbuf".to_string())], 12);
        assert_eq!(sizes.len(), 2);
        assert!(parse_sizes("a\tflexbuf\n").is_err());
        assert!(parse_sizes("a\tflexbuf\tx\n").is_err());
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(fmt_time(950.0), "950 ns");
        assert_eq!(fmt_time(8_573.1), "8.57 µs");
        assert_eq!(fmt_time(184_110.0), "184 µs");
        assert_eq!(fmt_time(2_142_400.0), "2.14 ms");
        assert_eq!(fmt_ratio(4.216), "4.22x");
        assert_eq!(fmt_ratio(12.4), "12x");
        assert_eq!(fmt_count(1_234_567), "1,234,567");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(34_799), "34,799");
        assert_eq!(fmt_count(0), "0");
    }

    #[test]
    fn ratio_sentence_names_direction() {
        let t = |ns: f64| Some(Timing::new(vec![vec![ns]]));
        let row = Row {
            fixture: "f",
            times: vec![t(100.0), None, t(420.0), None, t(50.0), t(100.0)],
        };
        assert_eq!(
            ratio_sentence(&ENCODE, &row),
            "flexbuf 1.0x, flexbuffers 4.20x slower, serde_json 2.00x faster, rmp_serde 1.00x slower"
        );
    }

    #[test]
    fn linearity_judges_the_repeated_inputs_only() {
        let row = |name: &str, bytes: u64, ns: f64| VerifyRow {
            name: name.to_string(),
            bytes,
            time: Timing::new(vec![vec![ns], vec![ns * 1.1]]),
        };
        let flat = [
            row("metrics_96k", 1000, 700.0),
            row("api_x1", 1000, 4000.0),
            row("api_x4", 4000, 16800.0),
        ];
        assert!(linearity(&flat).contains("**met**"), "{}", linearity(&flat));
        let quadratic = [row("api_x1", 1000, 4000.0), row("api_x4", 4000, 64000.0)];
        assert!(linearity(&quadratic).contains("**missed**"));
        // Flat in one run but not in the other: missed.
        let mixed = [
            VerifyRow {
                name: "api_x1".into(),
                bytes: 1000,
                time: Timing::new(vec![vec![4000.0], vec![4000.0]]),
            },
            VerifyRow {
                name: "api_x4".into(),
                bytes: 4000,
                time: Timing::new(vec![vec![16000.0], vec![32000.0]]),
            },
        ];
        let verdict = linearity(&mixed);
        assert!(
            verdict.contains("**missed**") && verdict.contains("1.00x / 2.00x"),
            "{verdict}"
        );
    }

    #[test]
    fn dates_from_day_counts() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_422), (2025, 11, 30));
    }
}
