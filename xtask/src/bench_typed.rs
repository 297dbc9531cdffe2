//! `cargo xtask bench typed`: benchmarks the generated Rust coders against
//! serde formats, prost and flatbuffers, and records the result in
//! `docs/benchmarks.md`.
//!
//! Runs `cargo bench --manifest-path bench/typed/Cargo.toml` (a standalone
//! crate with its own target directory, timed with `bench/kit`) twice, reads
//! every contender's samples from
//! `bench/typed/target/flexbuf-bench/run<N>/<fixture>.<kind>/<format>.json`
//! and the encoded sizes the bench writes, and replaces the
//! `## Typed coders (Rust)` section of `docs/benchmarks.md`: each ratio per
//! run, a target met only when every run meets it. A `### Notes` subsection
//! already in that section is hand-written analysis: it is kept.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::kit_runs::{count_from_env, run_suite, Ratio, Row, Runs};
use crate::report::{fmt_count, fmt_ratio, fmt_time, splice_section, today};
use crate::util::{self, Result};

/// The command the suite runs, as printed in the report.
const COMMAND: &str = "cargo bench --manifest-path bench/typed/Cargo.toml";

/// The section of `docs/benchmarks.md` this suite owns.
const HEADING: &str = "## Typed coders (Rust)";

/// Fixtures in report order, with the fields the partial read reads (as in
/// each fixture's `Fixture::PARTIAL` in `bench/typed/src/model/`).
const FIXTURES: [(&str, &str); 10] = [
    (
        "user_profile",
        "`username`, `address.geo.lat`, `stats.followers`",
    ),
    (
        "api_response",
        "`items[50].name`, `items[50].price`, `items[50].seller.id`",
    ),
    (
        "time_series",
        "`sensor`, `values[2048]`, `timestamps[2048]`",
    ),
    (
        "chat_thread",
        "`messages[50].author`, `messages[50].text`, `messages[50].reply_to`",
    ),
    (
        "unicode_heavy",
        "`title`, `日本語.paragraphs[3]`, `emoji.paragraphs[0]`",
    ),
    ("string_flood", "`strings[2500]`, `strings[4999]`"),
    ("wide_map", "`i_40`, `f_41`, `s_43`"),
    (
        "metrics_96k",
        "`series[50].name`, `series[50].points[64]`, `counters[256]`",
    ),
    (
        "repeated_maps",
        "`rows[500].name`, `rows[500].balance`, `rows[500].logins`",
    ),
    ("width_bomb", "`values[5000]`, `values[9999]`"),
];

/// Formats of the encode and decode groups: benchmark id and label. The first
/// is the baseline every ratio is relative to.
const FORMATS: [(&str, &str); 7] = [
    ("generated", "generated"),
    ("flexbuf_serde", "flexbuf serde"),
    ("serde_json", "serde_json"),
    ("rmp_serde", "rmp_serde"),
    ("prost", "prost"),
    ("flatbuffers", "flatbuffers"),
    ("flexbuffers", "flexbuffers"),
];

/// Columns of the partial-read table: benchmark id in the `partial` group and
/// label. The full decode is not re-measured there: it is `decode/generated`.
const PARTIAL: [(&str, &str); 4] = [
    ("generated_view", "generated view"),
    (FULL_DECODE, "generated full decode (`from_flex`)"),
    ("flatbuffers_verified", "flatbuffers `root` (verifies)"),
    ("flatbuffers_unchecked", "flatbuffers `root_unchecked`"),
];

/// Columns of the borrowed-decode table, all from the decode group; the first
/// is the baseline.
const BORROWED: [(&str, &str); 3] = [
    (
        "generated_borrowed",
        "generated `Ref` (`from_flex_borrowed`)",
    ),
    ("rmp_serde_borrowed", "rmp_serde borrowing `&str`"),
    ("generated", "generated owned (`from_flex`)"),
];

/// Fixtures with no string anywhere: the borrowed-decode target leaves them out.
const WITHOUT_STRINGS: [&str; 1] = ["width_bomb"];

/// The partial-read column taken from the decode group.
const FULL_DECODE: &str = "decode/generated";

/// Runs the suite and rewrites the report section.
pub fn run() -> Result<()> {
    let mut missing = Vec::new();
    if !util::have("protoc") {
        missing.push("protobuf-compiler");
    }
    if !util::have("flatc") {
        missing.push("flatbuffers-compiler");
    }
    if !missing.is_empty() {
        crate::setup::apt_install(&missing)?;
    }

    let root = util::root();
    let out = root.join("bench/typed/target/flexbuf-bench");
    let sizes = out.join(SIZES_FILE);
    let (runs, loads) = run_suite(&out, count_from_env(RUNS)?, COMMAND, || {
        util::cargo(&["bench", "--manifest-path", "bench/typed/Cargo.toml"])
            .env("FLEXBUF_BENCH_TYPED_SIZES", &sizes)
            .env(crate::bench::STEADY_MALLOC.0, crate::bench::STEADY_MALLOC.1)
    })?;
    write_report(&root, &out, runs, &loads)
}

/// How many times the suite runs (`FLEXBUF_BENCH_RUNS` overrides).
const RUNS: usize = 2;

/// Where the bench writes its encoded sizes, inside the output directory.
const SIZES_FILE: &str = "typed-sizes.tsv";

/// Rewrites the report section from the results of `runs`.
fn write_report(root: &Path, out: &Path, runs: Runs, loads: &[f64]) -> Result<()> {
    let sizes_path = out.join(SIZES_FILE);
    let sizes = parse_sizes(
        &std::fs::read_to_string(&sizes_path)
            .map_err(|e| format!("reading {}: {e}", sizes_path.display()))?,
    )?;
    let report = Report::collect(&runs, sizes)?;
    let doc_path = root.join("docs").join("benchmarks.md");
    let old = std::fs::read_to_string(&doc_path).unwrap_or_default();
    let notes = notes_of(&old);
    let mut machine = machine();
    if !loads.is_empty() {
        let each: Vec<String> = loads.iter().map(|l| format!("{l:.1}")).collect();
        let _ = write!(
            machine,
            "; 1-minute load average before each run and after the last: {}",
            each.join(", ")
        );
    }
    let section = report.render(&machine, &today(), notes.as_deref());
    std::fs::write(&doc_path, splice_section(&old, HEADING, &section))?;
    let svg = report.suite(&today()).write(&crate::chart::dir(root))?;
    println!("xtask: wrote {} (and its .json)", svg.display());
    for line in report.targets() {
        println!("{line}");
    }
    println!("xtask: wrote {}", doc_path.display());
    Ok(())
}

// ---- sizes ------------------------------------------------------------------------

/// Encoded sizes: `(fixture, format) -> bytes`, from `fixture\tformat\tbytes` lines.
type Sizes = BTreeMap<(String, String), u64>;

fn parse_sizes(text: &str) -> Result<Sizes> {
    let mut sizes = Sizes::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let parts: Vec<&str> = line.split('\t').collect();
        let [fixture, format, bytes] = parts[..] else {
            return Err(format!("bad sizes line {line:?}").into());
        };
        sizes.insert((fixture.into(), format.into()), bytes.parse()?);
    }
    Ok(sizes)
}

// ---- the report ------------------------------------------------------------------

struct Report {
    encode: Vec<Row>,
    decode: Vec<Row>,
    borrowed: Vec<Row>,
    partial: Vec<Row>,
    sizes: Sizes,
}

impl Report {
    fn collect(runs: &Runs, sizes: Sizes) -> Result<Report> {
        let rows = |kind: &str, ids: &[&str]| -> Result<Vec<Row>> {
            FIXTURES
                .iter()
                .map(|&(fixture, _)| {
                    let group = format!("{fixture}.{kind}");
                    let times = ids
                        .iter()
                        .map(|id| runs.timing(&group, id))
                        .collect::<Result<_>>()?;
                    Ok(Row { fixture, times })
                })
                .collect()
        };
        let formats: Vec<&str> = FORMATS.iter().map(|f| f.0).collect();
        let partial_ids: Vec<&str> = PARTIAL
            .iter()
            .map(|f| f.0)
            .filter(|&id| id != FULL_DECODE)
            .collect();
        let decode = rows("decode", &formats)?;
        let mut partial = rows("partial", &partial_ids)?;
        let at = PARTIAL.iter().position(|p| p.0 == FULL_DECODE).unwrap_or(1);
        for (row, full) in partial.iter_mut().zip(&decode) {
            row.times.insert(at, full.times[0].clone());
        }
        let borrowed_ids: Vec<&str> = BORROWED.iter().map(|f| f.0).collect();
        let report = Report {
            encode: rows("encode", &formats)?,
            decode,
            borrowed: rows("decode", &borrowed_ids)?,
            partial,
            sizes,
        };
        let measured = [&report.encode, &report.decode, &report.partial]
            .iter()
            .flat_map(|rows| rows.iter())
            .any(|r| r.times.iter().any(Option::is_some));
        if !measured {
            return Err("no benchmark result from this run".into());
        }
        Ok(report)
    }

    /// The whole section, heading included; `notes` is the kept subsection.
    fn render(&self, machine: &str, date: &str, notes: Option<&str>) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{HEADING}\n");
        let _ = writeln!(
            s,
            "Reproduce with `cargo xtask bench typed`, which runs `{COMMAND}` \
             twice and rewrites this section from \
             `bench/typed/target/flexbuf-bench/run*/*/*.json`. The bench times with \
             `bench/kit`: the formats of one fixture and kind run interleaved, round \
             after round (up to 31 rounds of about 4 ms each, in an order that \
             rotates), on the thread's CPU clock, in a process run with `{}={}` \
             (glibc's malloc thresholds fixed where its dynamic adjustment takes \
             them; see the core section).\n",
            crate::bench::STEADY_MALLOC.0,
            crate::bench::STEADY_MALLOC.1
        );
        let _ = writeln!(
            s,
            "- Date: {date}\n- Machine: {machine}. The cores are shared with other \
             jobs: the machine's speed moves by up to 1.8x between minutes, and not \
             alike for every kind of code, so absolute times are only indicative.\n\
             - Every format is measured in the same run on the same data: each \
             `conformance/fixtures/<fixture>.json` is loaded once into the generated \
             type (`flexbuf::from_json` + `from_flex`), into serde structs mirroring \
             the schema, into prost messages (`bench/typed/proto/`) and into the \
             flatbuffers object API (`bench/typed/fbs/`, `flatc --rust \
             --gen-object-api`); `bench/typed/tests/` checks they hold the same data.\n\
             - Times are medians over every round of both runs. Ratios are *peer time \
             / generated time*, per run the median over rounds of the two times of the \
             same round: `3.0x` means the generated coder takes a third of the peer's \
             time, `0.5x` twice as long. Tables give their geometric mean over the \
             runs; the targets give each run's (`1.23x (1.20x/1.26x)`), mark with † \
             the ratios whose runs disagree by more than 10%, and count a target met \
             only when every run meets it.\n"
        );
        let _ = writeln!(s, "### What is measured\n");
        let _ = writeln!(
            s,
            "- **Encode**: owned value to bytes. *generated*: `encode_with` into one \
             reused `Builder`; *flexbuf serde*: `flexbuf::to_vec`; `serde_json`, \
             `rmp_serde` (structs as arrays, its default) and the `flexbuffers` crate: \
             their `to_vec`; *prost*: `encode` into a reused `Vec`; *flatbuffers*: \
             the object API's `pack` into a reused builder (`reset`).\n\
             - **Decode**: untrusted bytes to an owned value. *generated*: `from_flex` \
             (one checked pass: every read bounds-, type- and UTF-8-checked, no separate \
             verifier; `from_flex_strict` verifies first); *flexbuf serde*: `flexbuf::from_slice` \
             (accepts what the verifier accepts, checked in one pass); *flatbuffers*: `root` (verifies) then `unpack` (every field \
             into owned `String`s and `Vec`s); the others: their `from_slice` / \
             `decode`.\n\
             - **Partial read**: the fields listed below. *generated view*: the \
             generated `View` types on unverified bytes (every read checked); \
             *generated full decode*: `from_flex` (the decode table's figure, which \
             reads the same fields and all others); *flatbuffers `root`*: verifies the whole buffer, then accessors; \
             *flatbuffers `root_unchecked`*: accessors with no check at all (only \
             for trusted bytes; shown as the floor).\n"
        );

        let _ = writeln!(
            s,
            "![Typed coders: peer time / generated time per fixture, log scale](bench/typed.svg)\n\n\
             (Every median and ratio of this run: `docs/bench/typed.json`.)\n"
        );
        let labels: Vec<&str> = FORMATS.iter().map(|f| f.1).collect();
        let _ = writeln!(s, "### Decode (median time)\n");
        render_table(&mut s, &labels, &self.decode);
        let _ = writeln!(s, "### Borrowed decode (median time)\n");
        let _ = writeln!(
            s,
            "Untrusted bytes to a value whose strings and map keys borrow from \
             the input. *generated `Ref`*: the generated `{{Name}}Ref<'a>` types' \
             `from_flex_borrowed` (the same checked pass as `from_flex`; numeric \
             vectors borrowed when stored as the field type and aligned); \
             *rmp_serde*: serde structs of the same schema with `&'a str` fields \
             and map keys (`#[serde(borrow)]`, generated by `bench/typed/build.rs`), \
             numeric vectors copied. Ratios are relative to the generated `Ref`.\n"
        );
        let blabels: Vec<&str> = BORROWED.iter().map(|f| f.1).collect();
        render_table(&mut s, &blabels, &self.borrowed);
        let _ = writeln!(s, "### Encode (median time)\n");
        render_table(&mut s, &labels, &self.encode);

        let _ = writeln!(s, "### Partial read (median time)\n");
        let _ = writeln!(
            s,
            "Ratios are relative to the generated view: `250x` means the view is \
             250 times faster than that column.\n"
        );
        let plabels: Vec<&str> = PARTIAL.iter().map(|p| p.1).collect();
        let _ = writeln!(s, "| fixture | fields | {} |", plabels.join(" | "));
        let _ = writeln!(s, "|---|---|{}", "---:|".repeat(PARTIAL.len()));
        for (row, (_, fields)) in self.partial.iter().zip(FIXTURES) {
            let _ = writeln!(
                s,
                "| {} | {fields} | {} |",
                row.fixture,
                cells(row).join(" | ")
            );
        }
        s.push('\n');

        let _ = writeln!(s, "### Encoded sizes (bytes)\n");
        self.render_sizes(&mut s);

        let _ = writeln!(s, "### Targets\n");
        for line in self.targets() {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
        if let Some(notes) = notes {
            s.push_str(notes.trim_end());
            s.push_str("\n\n");
        }
        s
    }

    fn render_sizes(&self, s: &mut String) {
        let mut columns = vec![("json_file", "fixture file")];
        columns.extend(FORMATS);
        let labels: Vec<&str> = columns.iter().map(|c| c.1).collect();
        let _ = writeln!(s, "| fixture | {} |", labels.join(" | "));
        let _ = writeln!(s, "|---|{}", "---:|".repeat(columns.len()));
        for (fixture, _) in FIXTURES {
            let cells: Vec<String> = columns
                .iter()
                .map(|(id, _)| {
                    self.sizes
                        .get(&(fixture.to_string(), id.to_string()))
                        .map_or("—".into(), |&n| fmt_count(n))
                })
                .collect();
            let _ = writeln!(s, "| {fixture} | {} |", cells.join(" | "));
        }
        s.push('\n');
    }

    /// The run as `docs/bench/typed.{json,svg}`: decode, borrowed decode and
    /// encode, each peer against the generated coder.
    fn suite(&self, date: &str) -> crate::chart::Suite {
        let fixtures: Vec<String> = FIXTURES.iter().map(|f| f.0.to_string()).collect();
        let panel = |name: &str, rows: &[Row], labels: &[&str]| {
            let columns = labels
                .iter()
                .enumerate()
                .map(|(i, l)| (l.to_string(), rows.iter().map(|r| r.median(i)).collect()))
                .collect();
            crate::chart::Panel::from_medians(name, fixtures.clone(), columns)
        };
        let formats: Vec<&str> = FORMATS.iter().map(|f| f.1).collect();
        let borrowed: Vec<&str> = BORROWED.iter().map(|f| f.1).collect();
        crate::chart::Suite {
            name: "typed",
            title: "Typed coders (Rust): peer time / generated time".into(),
            command: "cargo xtask bench typed".into(),
            date: date.to_string(),
            panels: vec![
                panel("decode", &self.decode, &formats),
                panel("borrowed decode", &self.borrowed, &borrowed[..2]),
                panel("encode", &self.encode, &formats),
            ],
        }
    }

    /// One verdict per target of the typed-coders issue (13).
    fn targets(&self) -> Vec<String> {
        let col = |id: &str| FORMATS.iter().position(|f| f.0 == id).unwrap_or(0);
        let ratios = |rows: &[Row], peer: usize, base: usize| -> Vec<(&str, Ratio)> {
            rows.iter()
                .filter_map(|r| Some((r.fixture, r.ratio(peer, base)?)))
                .collect()
        };
        let gen = col("generated");
        let full_decode = PARTIAL.iter().position(|p| p.0 == FULL_DECODE).unwrap_or(1);
        vec![
            verdict(
                "Owned decode faster than prost (on at least 8 of 10)",
                &ratios(&self.decode, col("prost"), gen),
                1.0,
            ),
            verdict(
                "Owned decode at least 2x faster than `serde_json` (on all 10)",
                &ratios(&self.decode, col("serde_json"), gen),
                2.0,
            ),
            verdict(
                "Borrowed decode faster than `rmp_serde`'s borrowed decode (on every \
                 fixture with strings)",
                &self
                    .borrowed
                    .iter()
                    .filter(|r| !WITHOUT_STRINGS.contains(&r.fixture))
                    .filter_map(|r| Some((r.fixture, r.ratio(1, 0)?)))
                    .collect::<Vec<_>>(),
                1.0,
            ),
            verdict(
                "Encode faster than `rmp_serde` (on at least 8 of 10)",
                &ratios(&self.encode, col("rmp_serde"), gen),
                1.0,
            ),
            verdict(
                "Encode within 1.5x of prost, ratio at least 0.67x (on all 10)",
                &ratios(&self.encode, col("prost"), gen),
                1.0 / 1.5,
            ),
            // Issue 11 (the core's serde tier) asks this of every core and
            // typed fixture; the core's bench gives its own fixtures.
            verdict(
                "Serde tier serialize (`flexbuf::to_vec`) at least 2x the `flexbuffers` \
                 crate's (issue 11, on all 10)",
                &ratios(&self.encode, col("flexbuffers"), col("flexbuf_serde")),
                2.0,
            ),
            verdict(
                "Serde tier deserialize (`flexbuf::from_slice`, checked as the verifier checks) at least 2x \
                 the `flexbuffers` crate's (issue 11, on all 10)",
                &ratios(&self.decode, col("flexbuffers"), col("flexbuf_serde")),
                2.0,
            ),
            verdict(
                "Partial read at least 100x cheaper than a full decode, api_response \
                 (generated view vs generated full decode)",
                &self
                    .partial
                    .iter()
                    .filter(|r| r.fixture == "api_response")
                    .filter_map(|r| Some((r.fixture, r.ratio(full_decode, 0)?)))
                    .collect::<Vec<_>>(),
                100.0,
            ),
        ]
    }
}

/// A table with one row per fixture; the first column is the baseline.
fn render_table(s: &mut String, labels: &[&str], rows: &[Row]) {
    let _ = writeln!(s, "| fixture | {} |", labels.join(" | "));
    let _ = writeln!(s, "|---|{}", "---:|".repeat(labels.len()));
    for row in rows {
        let _ = writeln!(s, "| {} | {} |", row.fixture, cells(row).join(" | "));
    }
    s.push('\n');
}

/// "190 µs" for the baseline, "257 µs (1.35x)" for the others.
fn cells(row: &Row) -> Vec<String> {
    (0..row.times.len())
        .map(|i| match (row.median(i), row.ratio(i, 0)) {
            (None, _) => "—".to_string(),
            (Some(t), _) if i == 0 => fmt_time(t),
            (Some(t), Some(r)) => format!("{} ({})", fmt_time(t), fmt_ratio(r.value())),
            (Some(t), None) => fmt_time(t),
        })
        .collect()
}

/// "name: **met** (a 3.1x, b 4.0x)", or missed / met on k of n; a fixture
/// counts only when every run meets the bar.
fn verdict(name: &str, pairs: &[(&str, Ratio)], needed: f64) -> String {
    let met = pairs.iter().filter(|(_, r)| r.met(needed)).count();
    let status = match met {
        _ if pairs.is_empty() => "**not measured**".to_string(),
        m if m == pairs.len() => "**met**".to_string(),
        0 => "**missed**".to_string(),
        m => format!("**met on {m} of {}**", pairs.len()),
    };
    let detail: Vec<String> = pairs
        .iter()
        .map(|(f, r)| format!("{f} {}", r.show()))
        .collect();
    format!("{name}: {status} ({})", detail.join(", "))
}

// ---- document and environment ------------------------------------------------------

/// The hand-written `### Notes` subsection of the current section, if any.
fn notes_of(doc: &str) -> Option<String> {
    crate::report::notes_of(doc, HEADING)
}

/// "2 cores (CPU model), linux, rustc x.y.z".
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut s = format!("{cores} cores");
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    if let Some(cpu) = cpu {
        let _ = write!(s, " ({cpu})");
    }
    let _ = write!(s, ", {}", std::env::consts::OS);
    if let Ok(rustc) = duct::cmd("rustc", ["--version"]).stderr_null().read() {
        let _ = write!(s, ", {}", rustc.trim());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit_runs::Timing;

    fn row(fixture: &'static str, times: &[Option<f64>]) -> Row {
        Row {
            fixture,
            times: times
                .iter()
                .map(|t| t.map(|ns| Timing::new(vec![vec![ns]])))
                .collect(),
        }
    }

    fn one(r: f64) -> Ratio {
        Ratio::from_runs(vec![r])
    }

    #[test]
    fn parses_sizes_and_rejects_garbage() {
        let sizes =
            parse_sizes("api_response\tprost\t14877\napi_response\tgenerated\t30827\n").unwrap();
        assert_eq!(sizes[&("api_response".into(), "prost".into())], 14877);
        assert!(parse_sizes("api_response\tprost\n").is_err());
        assert!(parse_sizes("a\tb\tmany\n").is_err());
    }

    #[test]
    fn cells_show_peer_over_baseline() {
        let r = row("x", &[Some(100.0), Some(300.0), None, Some(50.0)]);
        assert_eq!(
            cells(&r),
            ["100 ns", "300 ns (3.00x)", "—", "50.0 ns (0.50x)"]
        );
    }

    #[test]
    fn verdicts_count_fixtures_that_meet_the_bar() {
        assert!(verdict("t", &[("a", one(3.5)), ("b", one(3.0))], 3.0)
            .starts_with("t: **met** (a 3.50x, b 3.00x"));
        assert!(
            verdict("t", &[("a", one(3.5)), ("b", one(1.2))], 3.0).contains("**met on 1 of 2**")
        );
        assert!(verdict("t", &[("a", one(0.4))], 0.5).contains("**missed**"));
        assert!(verdict("t", &[], 1.0).contains("**not measured**"));
        // Met in one run only: not met.
        let split = Ratio::from_runs(vec![1.2, 0.9]);
        let v = verdict("t", &[("a", split)], 1.0);
        assert!(
            v.contains("**missed**") && v.contains("(1.20x/0.90x) †"),
            "{v}"
        );
    }

    #[test]
    fn targets_use_the_right_columns() {
        let mut times = vec![Some(100.0); FORMATS.len()];
        times[2] = Some(400.0); // serde_json
        times[4] = Some(90.0); // prost
        times[6] = Some(250.0); // flexbuffers
        let decode = vec![row("user_profile", &times), row("api_response", &times)];
        let mut encode = [Some(1.0); 7];
        encode[1] = Some(2.0); // flexbuf serde
        encode[6] = Some(3.0); // flexbuffers
        let report = Report {
            encode: vec![row("user_profile", &encode)],
            decode,
            borrowed: vec![
                row("user_profile", &[Some(10.0), Some(12.0), Some(20.0)]),
                row("width_bomb", &[Some(10.0), Some(5.0), Some(20.0)]),
            ],
            partial: vec![
                row("user_profile", &[Some(1.0), Some(5.0), None, None]),
                row("api_response", &[Some(1.0), Some(250.0), None, None]),
            ],
            sizes: Sizes::new(),
        };
        let t = report.targets();
        assert!(
            t[0].contains("**missed**") && t[0].contains("0.90x"),
            "{}",
            t[0]
        );
        assert!(t[1].contains("**met**"), "{}", t[1]);
        // width_bomb has no strings: its slower peer does not count.
        assert!(
            t[2].contains("**met**") && !t[2].contains("width_bomb"),
            "{}",
            t[2]
        );
        assert!(t[3].contains("**met**"), "{}", t[3]);
        assert!(t[4].contains("**met**"), "{}", t[4]);
        // The serde tier against the flexbuffers crate: 3 / 2 and 250 / 100.
        assert!(
            t[5].contains("**missed**") && t[5].contains("user_profile 1.50x"),
            "{}",
            t[5]
        );
        assert!(
            t[6].contains("**met**") && t[6].contains("user_profile 2.50x"),
            "{}",
            t[6]
        );
        assert!(
            t[7].contains("**met**") && t[7].contains("api_response 250x"),
            "{}",
            t[7]
        );
    }

    #[test]
    fn splices_only_its_section_and_keeps_the_notes() {
        let doc = "# Benchmarks\n\nintro\n\n## Rust core\n\ncore text\n\n\
                   ## Typed coders (Rust)\n\nold table\n\n### Notes\n\nwhy it is slow\n\n\
                   ## Later\n\nlater text\n";
        let notes = notes_of(doc).unwrap();
        assert_eq!(notes, "### Notes\n\nwhy it is slow\n\n");
        let section = Report {
            encode: vec![],
            decode: vec![],
            borrowed: vec![],
            partial: vec![],
            sizes: Sizes::new(),
        }
        .render("2 cores", "2026-01-01", Some(&notes));
        let out = splice_section(doc, HEADING, &section);
        assert!(out.contains("## Rust core\n\ncore text\n\n## Typed coders (Rust)\n"));
        assert!(!out.contains("old table"));
        assert!(out.contains("### Notes\n\nwhy it is slow\n\n## Later\n\nlater text\n"));
        assert!(out.contains("- Date: 2026-01-01"));
        // Appended when absent, created when the file is empty.
        let appended = splice_section("# Benchmarks\n\n## Rust core\n\nx\n", HEADING, &section);
        assert!(appended.ends_with(&section) && appended.contains("## Rust core\n\nx\n\n## Typed"));
        assert!(splice_section("", HEADING, &section).starts_with("# Benchmarks\n"));
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(fmt_time(1_075.3), "1.08 µs");
        assert_eq!(fmt_time(157_630.0), "158 µs");
        assert_eq!(fmt_time(2_500_000.0), "2.50 ms");
        assert_eq!(fmt_ratio(236.4), "236x");
        assert_eq!(fmt_count(1_234_567), "1,234,567");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(1_000), "1,000");
    }
}
