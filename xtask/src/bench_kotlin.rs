//! The Kotlin benchmark's report: JMH's JSON result (`-rf json`) becomes the
//! `## Kotlin SDK` section of `docs/benchmarks.md` (median time with JMH's
//! error, ratios against the peers, allocation per operation, and issue 16's
//! targets met or missed) and `docs/bench/kotlin.{json,svg}`. A hand-written
//! `### Notes` subsection of the section is kept.

use std::collections::BTreeMap;
use std::path::Path;

use crate::chart::{Panel, Suite};
use crate::util::{root, Result};

/// The section of `docs/benchmarks.md` this report owns.
const HEADING: &str = "## Kotlin SDK";

/// Every benchmark method of `CodecBench`, in table order.
const METHODS: [&str; 14] = [
    "genEncode",
    "genDecode",
    "verify",
    "flexEncode",
    "flexDecode",
    "jsonEncode",
    "jsonEncodeBytes",
    "jsonDecode",
    "jsonDecodeBytes",
    "protoEncode",
    "protoDecode",
    "fbEncode",
    "fbDecode",
    "utf8Strings",
];

/// The JDK's UTF-8 decode of the fixture's string values alone: a floor under
/// any decode from UTF-8 bytes into `String`s.
const FLOOR: &str = "utf8Strings";

/// One benchmark's figures, in nanoseconds and bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cell {
    /// Median of every measured iteration of every fork.
    median: f64,
    /// JMH's error of the mean (99.9% confidence half-width).
    error: Option<f64>,
    /// Bytes allocated per operation (`gc.alloc.rate.norm`).
    alloc: Option<f64>,
}

/// Per fixture, per benchmark method.
type Table = BTreeMap<String, BTreeMap<String, Cell>>;

/// Nanoseconds in one unit of a JMH score unit (`us/op`, `ns/op`, ...).
fn ns_per(unit: &str) -> Option<f64> {
    Some(match unit.split('/').next()? {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    })
}

/// One JMH result entry as (fixture, method, cell); `None` when it is not a
/// fixture-parameterised average-time result.
fn cell(r: &serde_json::Value) -> Option<(String, String, Cell)> {
    let name = r.get("benchmark")?.as_str()?;
    let fixture = r.get("params")?.get("fixture")?.as_str()?;
    let metric = r.get("primaryMetric")?;
    let scale = ns_per(metric.get("scoreUnit")?.as_str()?)?;
    let mut xs: Vec<f64> = metric
        .get("rawData")?
        .as_array()?
        .iter()
        .filter_map(|fork| fork.as_array())
        .flatten()
        .filter_map(|x| x.as_f64())
        .collect();
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    let median = xs[xs.len() / 2] * scale;
    let error = metric
        .get("scoreError")
        .and_then(|e| e.as_f64())
        .filter(|e| e.is_finite())
        .map(|e| e * scale);
    // Older JMH versions prefix secondary metric names with `·`.
    let alloc = r
        .get("secondaryMetrics")
        .and_then(|m| m.as_object())
        .and_then(|m| {
            m.iter()
                .find(|(k, _)| k.trim_start_matches('·') == "gc.alloc.rate.norm")
        })
        .and_then(|(_, v)| v.get("score")?.as_f64());
    let method = name.rsplit('.').next().unwrap_or(name).to_string();
    Some((
        fixture.to_string(),
        method,
        Cell {
            median,
            error,
            alloc,
        },
    ))
}

fn table(results: &serde_json::Value) -> Result<Table> {
    let mut table = Table::new();
    for r in results.as_array().ok_or("JMH result: not an array")? {
        if let Some((fixture, method, c)) = cell(r) {
            table.entry(fixture).or_default().insert(method, c);
        }
    }
    if table.is_empty() {
        return Err("JMH result: no fixture benchmark".into());
    }
    Ok(table)
}

/// `peer / ours` of two methods on one fixture.
fn ratio(row: &BTreeMap<String, Cell>, peer: &str, ours: &str) -> Option<f64> {
    match (row.get(peer), row.get(ours)) {
        (Some(p), Some(o)) if o.median > 0.0 => Some(p.median / o.median),
        _ => None,
    }
}

/// The ratio columns: (header, peer method, our method).
const RATIOS: [(&str, &str, &str); 7] = [
    ("JSON/gen dec", "jsonDecode", "genDecode"),
    ("JSON bytes/gen dec", "jsonDecodeBytes", "genDecode"),
    ("Proto/gen dec", "protoDecode", "genDecode"),
    ("JSON/gen enc", "jsonEncode", "genEncode"),
    ("JSON bytes/gen enc", "jsonEncodeBytes", "genEncode"),
    ("Proto/gen enc", "protoEncode", "genEncode"),
    ("JSON/Flex dec", "jsonDecode", "flexDecode"),
];

/// Issue 16's targets: (what, peer method, our method).
const TARGETS: [(&str, &str, &str); 4] = [
    (
        "Generated decode faster than kotlinx JSON",
        "jsonDecode",
        "genDecode",
    ),
    (
        "Generated decode faster than kotlinx ProtoBuf",
        "protoDecode",
        "genDecode",
    ),
    (
        "Generated encode faster than kotlinx JSON to bytes",
        "jsonEncodeBytes",
        "genEncode",
    ),
    (
        "`Flex` format decode faster than kotlinx JSON",
        "jsonDecode",
        "flexDecode",
    ),
];

fn fmt_us(ns: f64) -> String {
    format!("{:.2}", ns / 1e3)
}

/// The tables and targets (everything of the section after its preamble).
fn tables(table: &Table) -> String {
    let cols: Vec<&str> = METHODS
        .iter()
        .copied()
        .filter(|c| table.values().any(|row| row.contains_key(*c)))
        .collect();
    let header = |out: &mut String, first: &str, cols: &[&str]| {
        out.push_str(&format!("| {first} | {} |\n", cols.join(" | ")));
        out.push_str(&format!("|---|{}\n", "---:|".repeat(cols.len())));
    };
    let mut out = String::new();
    out.push_str("**Median microseconds per operation** (± JMH error, 99.9% interval):\n\n");
    header(&mut out, "fixture", &cols);
    for (fixture, row) in table {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| match row.get(*c) {
                Some(Cell {
                    median,
                    error: Some(e),
                    ..
                }) => format!("{} ± {}", fmt_us(*median), fmt_us(*e)),
                Some(c) => fmt_us(c.median),
                None => "n/a".into(),
            })
            .collect();
        out.push_str(&format!("| {fixture} | {} |\n", cells.join(" | ")));
    }

    out.push_str("\n**Ratios** (peer time / ours: above 1.00x we are faster):\n\n");
    let names: Vec<&str> = RATIOS.iter().map(|r| r.0).collect();
    header(&mut out, "fixture", &names);
    for (fixture, row) in table {
        let cells: Vec<String> = RATIOS
            .iter()
            .map(|(_, peer, ours)| {
                ratio(row, peer, ours).map_or("n/a".into(), |r| format!("{r:.2}x"))
            })
            .collect();
        out.push_str(&format!("| {fixture} | {} |\n", cells.join(" | ")));
    }

    out.push_str("\n**Bytes allocated per operation** (JMH `-prof gc`, `gc.alloc.rate.norm`):\n\n");
    header(&mut out, "fixture", &cols);
    for (fixture, row) in table {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| match row.get(*c).and_then(|c| c.alloc) {
                Some(a) => crate::report::fmt_count(a.round() as u64),
                None => "n/a".into(),
            })
            .collect();
        out.push_str(&format!("| {fixture} | {} |\n", cells.join(" | ")));
    }

    out.push_str("\n### Targets\n\n");
    for (what, peer, ours) in TARGETS {
        let rs: Vec<(&String, f64)> = table
            .iter()
            .filter_map(|(f, row)| Some((f, ratio(row, peer, ours)?)))
            .collect();
        let met = rs.iter().filter(|(_, r)| *r > 1.0).count();
        let verdict = if met == rs.len() {
            "**met**".to_string()
        } else {
            format!("**met on {met} of {}**", rs.len())
        };
        let missed: Vec<String> = rs
            .iter()
            .filter(|(_, r)| *r <= 1.0)
            .map(|(f, r)| format!("{f} {r:.2}x{}", out_of_reach(&table[*f], peer, ours)))
            .collect();
        let detail = if missed.is_empty() {
            let lo = rs.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
            let hi = rs.iter().map(|r| r.1).fold(0.0, f64::max);
            format!("{lo:.2}x-{hi:.2}x")
        } else {
            format!("missed: {}", missed.join(", "))
        };
        out.push_str(&format!(
            "- {what} on every fixture: {verdict} ({detail})\n"
        ));
    }
    out
}

/// For a decode target missed on a fixture, what the floor says: when the
/// JDK's UTF-8 decode of the fixture's string values alone takes longer than
/// the peer's whole decode, no decoder from UTF-8 bytes can meet it on this
/// JVM; the note gives both times. Empty otherwise.
fn out_of_reach(row: &BTreeMap<String, Cell>, peer: &str, ours: &str) -> String {
    let decode = ours.ends_with("Decode");
    match (row.get(peer), row.get(FLOOR)) {
        (Some(p), Some(f)) if decode && f.median >= p.median => format!(
            " (out of reach on this JVM: its UTF-8 decode of the fixture's string values alone \
             takes {} µs, the peer's whole decode {} µs)",
            fmt_us(f.median),
            fmt_us(p.median)
        ),
        _ => String::new(),
    }
}

/// The chart: generated decode and encode, and the `Flex` format's decode,
/// each against its peers.
fn suite(table: &Table, date: &str) -> Suite {
    let fixtures: Vec<String> = table.keys().cloned().collect();
    let column = |label: &str, method: &str| -> (String, Vec<Option<f64>>) {
        (
            label.to_string(),
            table
                .values()
                .map(|row| row.get(method).map(|c| c.median))
                .collect(),
        )
    };
    let panel = |name: &str, columns: Vec<(String, Vec<Option<f64>>)>| {
        Panel::from_medians(name, fixtures.clone(), columns)
    };
    Suite {
        name: "kotlin",
        title: "Kotlin SDK (JVM): peer time / flexbuf time".into(),
        command: "cargo xtask bench kotlin".into(),
        date: date.to_string(),
        panels: vec![
            panel(
                "generated decode",
                vec![
                    column("generated", "genDecode"),
                    column("kotlinx JSON", "jsonDecode"),
                    column("kotlinx JSON from bytes", "jsonDecodeBytes"),
                    column("kotlinx ProtoBuf", "protoDecode"),
                ],
            ),
            panel(
                "generated encode",
                vec![
                    column("generated", "genEncode"),
                    column("kotlinx JSON to bytes", "jsonEncodeBytes"),
                    column("kotlinx JSON to String", "jsonEncode"),
                    column("kotlinx ProtoBuf", "protoEncode"),
                ],
            ),
            panel(
                "Flex format decode",
                vec![
                    column("Flex", "flexDecode"),
                    column("kotlinx JSON", "jsonDecode"),
                ],
            ),
        ],
    }
}

/// The section's preamble: what runs, with which settings, and when.
fn preamble(date: &str, load: Option<f64>, java: &str) -> String {
    let load = load.map_or("unknown".to_string(), |l| format!("{l:.2}"));
    format!(
        "{HEADING}\n\n\
         Reproduce with `cargo xtask bench kotlin`, which builds everything, runs `mvn package` \
         in `sdk-kotlin/bench`, then\n\n\
         ```sh\n\
         java -Dflexbuf.fixtures=conformance/fixtures -jar sdk-kotlin/bench/target/benchmarks.jar \\\n    \
         '{}' \\\n    \
         -f 2 -wi 3 -i 5 -w 1s -r 1s -prof gc -rf json -rff sdk-kotlin/bench/target/jmh-result.json\n\
         ```\n\n\
         and writes this section and `docs/bench/kotlin.{{json,svg}}` from the JMH result \
         (`FLEXBUF_BENCH_ALL=1` runs every benchmark of `CodecBench`). Settings are issue 16's: \
         two forks, three one-second warm-ups, five one-second measurements, JMH's GC profiler. \
         Date: {date}; {java}; load average before it started: {load}. Times are medians of the \
         ten measured iterations, errors JMH's 99.9% interval.\n\n\
         Codecs: `gen` = generated coders (`FlexBuffers.encode` / `FlexBuffers.decode`, the \
         one-pass checked decode of untrusted bytes); `flex` = the `Flex` kotlinx.serialization \
         format; `json` = kotlinx JSON `encodeToString` / `decodeFromString` (on `String`s), \
         `jsonEncodeBytes` = `encodeToString(...).encodeToByteArray()`, `jsonDecodeBytes` = \
         `decodeFromString(bytes.decodeToString())` (JSON that arrives as bytes, as ours \
         does: the UTF-8 decode `jsonDecode` does not pay; no target counts it); `proto` = kotlinx \
         `ProtoBuf`, all on the same generated `@Serializable` classes and the typed golden \
         inputs (`conformance/typed/goldens`; `deep_nesting` is left out: its typed case \
         expects a type error by design); `verify` (with `FLEXBUF_BENCH_ALL=1`) = \
         `dev.flexbuf.verify` alone on the generated coders' bytes, the pass `decodeStrict` and \
         `Json.toJson` make first; `utf8Strings` = the JDK's `String(bytes, offset, length, UTF_8)` \
         of every string value of the fixture (keys left out), one after the other: a floor under \
         any decode from UTF-8 bytes into `String`s, shown so that a decode target it puts out of \
         reach says so.\n\n\
         ![Kotlin: peer time / flexbuf time per fixture, log scale](bench/kotlin.svg)\n\n",
        crate::sdk_kotlin::JUDGED
    )
}

/// `java -version`'s first line, for the section's preamble.
fn java_version() -> String {
    duct::cmd("java", ["-version"])
        .stderr_to_stdout()
        .stdout_capture()
        .unchecked()
        .run()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "java version unknown".into())
}

/// Writes the Kotlin section of `docs/benchmarks.md` (keeping its `### Notes`)
/// and `docs/bench/kotlin.{json,svg}` from the JMH result at `path`.
pub fn write_report(path: &Path, load: Option<f64>) -> Result<()> {
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let table = table(&results)?;
    let date = crate::report::today();
    let svg = suite(&table, &date).write(&crate::chart::dir(&root()))?;
    let doc_path = root().join("docs/benchmarks.md");
    let tables = tables(&table);
    let section = preamble(&date, load, &java_version()) + &tables;
    crate::report::write_section(&doc_path, HEADING, &section)?;
    println!("xtask: wrote {} and {}", doc_path.display(), svg.display());
    print!("{tables}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(method: &str, fixture: &str, unit: &str, raw: &[&[f64]]) -> serde_json::Value {
        serde_json::json!({
            "benchmark": format!("dev.flexbuf.bench.CodecBench.{method}"),
            "params": {"fixture": fixture},
            "primaryMetric": {"score": 0.0, "scoreError": 0.5, "scoreUnit": unit, "rawData": raw},
            "secondaryMetrics": {"·gc.alloc.rate.norm": {"score": 1234.4}}
        })
    }

    #[test]
    fn medians_are_taken_over_every_fork_in_nanoseconds() {
        let results = serde_json::json!([
            result("genDecode", "a", "us/op", &[&[3.0, 1.0], &[2.0]]),
            result("jsonDecode", "a", "ns/op", &[&[4000.0]]),
            {"benchmark": "x.CodecBench.genDecode", "primaryMetric": {}},
        ]);
        let t = table(&results).unwrap();
        let row = &t["a"];
        assert_eq!(row["genDecode"].median, 2000.0);
        assert_eq!(row["genDecode"].error, Some(500.0));
        assert_eq!(row["genDecode"].alloc, Some(1234.4));
        assert_eq!(row["jsonDecode"].median, 4000.0);
        assert_eq!(ratio(row, "jsonDecode", "genDecode"), Some(2.0));
        assert!(table(&serde_json::json!([])).is_err());
    }

    #[test]
    fn targets_name_the_fixtures_they_miss() {
        let results = serde_json::json!([
            result("genDecode", "a", "us/op", &[&[1.0]]),
            result("jsonDecode", "a", "us/op", &[&[2.0]]),
            result("genDecode", "b", "us/op", &[&[4.0]]),
            result("jsonDecode", "b", "us/op", &[&[2.0]]),
        ]);
        let text = tables(&table(&results).unwrap());
        assert!(
            text.contains("Generated decode faster than kotlinx JSON on every fixture: **met on 1 of 2** (missed: b 0.50x)"),
            "{text}"
        );
        assert!(text.contains("| a | 1.00 ± 0.50 | 2.00 ± 0.50 |"), "{text}");
        assert!(text.contains("| a | 1,234 | 1,234 |"), "{text}");
        assert!(!text.contains("out of reach"), "{text}");
        let s = suite(&table(&results).unwrap(), "today");
        assert_eq!(s.panels[0].series[0].ratios, vec![Some(2.0), Some(0.5)]);
    }

    #[test]
    fn a_decode_miss_below_the_strings_floor_says_it_is_out_of_reach() {
        let results = serde_json::json!([
            result("genDecode", "a", "us/op", &[&[4.0]]),
            result("flexDecode", "a", "us/op", &[&[4.0]]),
            result("jsonDecode", "a", "us/op", &[&[2.0]]),
            result("utf8Strings", "a", "us/op", &[&[3.0]]),
            result("genDecode", "b", "us/op", &[&[4.0]]),
            result("jsonDecode", "b", "us/op", &[&[2.0]]),
            result("utf8Strings", "b", "us/op", &[&[1.0]]),
            result("genEncode", "a", "us/op", &[&[4.0]]),
            result("jsonEncodeBytes", "a", "us/op", &[&[2.0]]),
        ]);
        let text = tables(&table(&results).unwrap());
        let reach = "(out of reach on this JVM: its UTF-8 decode of the fixture's string values \
                     alone takes 3.00 µs, the peer's whole decode 2.00 µs)";
        assert!(
            text.contains(&format!(
                "Generated decode faster than kotlinx JSON on every fixture: **met on 0 of 2** \
                 (missed: a 0.50x {reach}, b 0.50x)"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!("decode faster than kotlinx JSON on every fixture: **met on 0 of 1** (missed: a 0.50x {reach})")),
            "{text}"
        );
        assert!(
            text.contains(
                "kotlinx JSON to bytes on every fixture: **met on 0 of 1** (missed: a 0.50x)\n"
            ),
            "{text}"
        );
    }
}
