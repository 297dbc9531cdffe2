//! The Kotlin SDK (`sdk-kotlin/`): the JNI crate `flexbuf-kotlin-native`, the
//! generated test coders, the Maven build (installed into the local Maven
//! repository as `dev.flexbuf:flexbuf-kotlin:0.1.0`), the Maven plugin
//! (`sdk-kotlin/maven-plugin`, installed as
//! `dev.flexbuf:flexbuf-maven-plugin:0.1.0`) and the consumer project that
//! tests it, JUnit tests, the conformance runner and the JMH benchmarks
//! (`sdk-kotlin/bench`).
//!
//! Maven (and a JDK) come from apt when missing; every Maven artifact is
//! downloaded into the default local repository (`~/.m2`) by Maven itself.

use std::path::{Path, PathBuf};

use crate::util::{cargo, root, step, Result};

fn sdk() -> PathBuf {
    root().join("sdk-kotlin")
}

fn plugin() -> PathBuf {
    sdk().join("maven-plugin")
}

/// A project using the SDK and the plugin as the README says (`mvn verify`
/// generates, compiles and round-trips; its `broken` profile must fail).
fn consumer() -> PathBuf {
    plugin().join("src/it/consumer")
}

/// `<os>-<arch>` as `dev.flexbuf.jvm.FlexNative.platform` spells it.
fn platform() -> (String, String) {
    let os = std::env::consts::OS;
    (
        format!("{os}-{}", std::env::consts::ARCH),
        crate::util::cdylib_name("flexbuf_jni"),
    )
}

fn ensure_tools() -> Result<()> {
    if !crate::util::have("mvn") || !crate::util::have("javac") {
        crate::setup::apt_install(&["maven", "openjdk-17-jdk-headless"])?;
    }
    Ok(())
}

fn mvn(dir: &Path, args: &[&str]) -> duct::Expression {
    let mut all = vec!["-B", "-q", "-Dstyle.color=never"];
    all.extend_from_slice(args);
    duct::cmd("mvn", all).dir(dir)
}

/// The schemas whose generated coders the tests, the conformance runner and the benchmarks use.
fn schemas() -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for dir in ["conformance/typed/schemas", "conformance/schemas"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "fxs"))
            .collect();
        files.sort();
        out.extend(files);
    }
    // Names that clash with Kotlin and the generated API: must compile.
    out.push(root().join("codegen/tests/schemas/keywords.fxs"));
    Ok(out)
}

/// Builds the JNI library, generates the test coders (`flexbuf gen --lang kotlin`),
/// packs the library into the jar's platform folder and installs the jar, then
/// the Maven plugin (which depends on it), into the local Maven repository.
pub fn build() -> Result<()> {
    ensure_tools()?;
    step(
        "cargo build --release -p flexbuf-kotlin-native",
        cargo(&["build", "--release", "-p", "flexbuf-kotlin-native"]),
    )?;
    let (plat, file) = platform();
    let res = sdk()
        .join("target/native-resources/dev/flexbuf/native")
        .join(&plat);
    std::fs::create_dir_all(&res)?;
    std::fs::copy(
        crate::util::target_dir().join("release").join(&file),
        res.join(&file),
    )?;

    let generated = sdk().join("target/generated-test-sources/flexbuf");
    if generated.exists() {
        std::fs::remove_dir_all(&generated)?;
    }
    crate::util::gen("kotlin", &schemas()?, &generated)?;
    step(
        "mvn install (sdk-kotlin, dev.flexbuf:flexbuf-kotlin:0.1.0)",
        mvn(&sdk(), &["install", "-DskipTests"]),
    )?;
    step(
        "mvn install (sdk-kotlin/maven-plugin, dev.flexbuf:flexbuf-maven-plugin:0.1.0)",
        mvn(&plugin(), &["install", "-DskipTests"]),
    )?;
    Ok(())
}

/// Runs the SDK's and the plugin's JUnit 5 suites through Surefire, then the
/// consumer project: `mvn verify` must generate, compile and round-trip, and
/// a scratch project made of the README's Maven lines must do the same, and
/// the consumer's `broken` profile must fail with the generator's diagnostic
/// (builds first).
pub fn test() -> Result<()> {
    build()?;
    step("mvn test (sdk-kotlin)", mvn(&sdk(), &["test"]))?;
    step(
        "mvn test (sdk-kotlin/maven-plugin)",
        mvn(&plugin(), &["test"]),
    )?;
    step(
        "mvn verify (sdk-kotlin/maven-plugin/src/it/consumer)",
        mvn(&consumer(), &["clean", "verify"]),
    )?;
    let readme = readme_project()?;
    step(
        "mvn verify (sdk-kotlin/README.md's Maven lines in target/kotlin-readme-project)",
        mvn(&readme, &["verify"]),
    )?;
    let report = readme.join("target/surefire-reports/TEST-shop.app.RoundTripTest.xml");
    if !report.exists() {
        return Err(format!(
            "the README project ran no round-trip test ({} missing)",
            report.display()
        )
        .into());
    }
    println!("==> mvn -Pbroken generate-sources (consumer, must fail)");
    let out = mvn(&consumer(), &["-Pbroken", "generate-sources"])
        .stderr_to_stdout()
        .stdout_capture()
        .unchecked()
        .run()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let expected = "bad.fxs:5:13: error: unknown type `NoSuchType`";
    if out.status.success() || !text.contains(expected) {
        return Err(format!(
            "the consumer's broken schema must fail the build with `{expected}`; \
             got {} and:\n{text}",
            out.status
        )
        .into());
    }
    Ok(())
}

/// The fenced blocks of `markdown` whose info string is `lang`.
fn fenced<'a>(markdown: &'a str, lang: &str) -> Vec<&'a str> {
    let open = format!("```{lang}\n");
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find(&open) {
        let body = &rest[start + open.len()..];
        let Some(end) = body.find("\n```") else {
            break;
        };
        out.push(&body[..end + 1]);
        rest = &body[end + 4..];
    }
    out
}

/// A scratch project (`target/kotlin-readme-project`) built from the Maven
/// lines of `sdk-kotlin/README.md` exactly as written (the `flexbuf-kotlin`
/// dependency and the `<build>` section with the plugin), plus JUnit for the
/// consumer's sources it copies (schema, code, round-trip test).
fn readme_project() -> Result<PathBuf> {
    let readme = std::fs::read_to_string(sdk().join("README.md"))?;
    let blocks = fenced(&readme, "xml");
    let find = |start: &str, has: &str| {
        blocks
            .iter()
            .find(|b| b.trim_start().starts_with(start) && b.contains(has))
            .copied()
            .ok_or_else(|| format!("sdk-kotlin/README.md has no ```xml block {start}...{has}"))
    };
    let dependency = find("<dependency>", "<artifactId>flexbuf-kotlin</artifactId>")?;
    let build = find("<build>", "<artifactId>flexbuf-maven-plugin</artifactId>")?;
    let dir = crate::util::target_dir().join("kotlin-readme-project");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    copy_tree(&consumer().join("src/main"), &dir.join("src/main"))?;
    copy_tree(&consumer().join("src/test"), &dir.join("src/test"))?;
    let pom = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.flexbuf.it</groupId>
  <artifactId>readme-project</artifactId>
  <version>1.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
{dependency}    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.14.4</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
{build}</project>
"#
    );
    std::fs::write(dir.join("pom.xml"), pom)?;
    Ok(dir)
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The benchmarks issue 16 judges: generated encode and decode, the `Flex`
/// format's decode, and the kotlinx JSON (text and bytes) and ProtoBuf peers.
/// `FLEXBUF_BENCH_ALL=1` runs every benchmark of `CodecBench`.
const JUDGED: &str = r"\.(genEncode|genDecode|flexDecode|jsonEncode|jsonEncodeBytes|jsonDecode|protoEncode|protoDecode)$";

/// Runs the JMH benchmarks (`sdk-kotlin/bench`) with issue 16's settings (two
/// forks, three 1 s warm-ups, five 1 s measurements, JMH's GC profiler for
/// allocation per operation) and prints the tables. About 20 minutes.
pub fn bench() -> Result<()> {
    build()?;
    let bench = sdk().join("bench");
    step("mvn package (sdk-kotlin/bench)", mvn(&bench, &["package"]))?;
    let jar = bench.join("target/benchmarks.jar");
    let out = bench.join("target/jmh-result.json");
    let fixtures = root().join("conformance/fixtures");
    let mut args: Vec<String> = vec![
        format!("-Dflexbuf.fixtures={}", fixtures.display()),
        "-jar".into(),
        jar.display().to_string(),
    ];
    if std::env::var_os("FLEXBUF_BENCH_ALL").is_none_or(|v| v == "0") {
        args.push(JUDGED.into());
    }
    for a in [
        "-f", "2", "-wi", "3", "-i", "5", "-w", "1s", "-r", "1s", "-prof", "gc", "-rf", "json",
    ] {
        args.push(a.into());
    }
    args.push("-rff".into());
    args.push(out.display().to_string());
    step(
        "java -jar benchmarks.jar",
        duct::cmd("java", args).dir(&bench),
    )?;
    summarize(&out)
}

/// Median of a benchmark's raw iteration scores (microseconds per operation).
fn median(v: &serde_json::Value) -> Option<f64> {
    let mut xs: Vec<f64> = v
        .get("primaryMetric")?
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
    Some(xs[xs.len() / 2])
}

/// JMH's error of the mean (99.9% confidence half-width), microseconds.
fn error(v: &serde_json::Value) -> Option<f64> {
    v.get("primaryMetric")?.get("scoreError")?.as_f64()
}

/// Bytes allocated per operation (`gc.alloc.rate.norm` of JMH's GC profiler;
/// older JMH versions prefix secondary metric names with `·`).
fn alloc(v: &serde_json::Value) -> Option<f64> {
    v.get("secondaryMetrics")?
        .as_object()?
        .iter()
        .find(|(k, _)| k.trim_start_matches('·') == "gc.alloc.rate.norm")?
        .1
        .get("score")?
        .as_f64()
}

/// One benchmark's figures.
#[derive(Clone, Copy)]
struct Cell {
    median: f64,
    error: Option<f64>,
    alloc: Option<f64>,
}

/// Prints the JMH results as the markdown tables of `docs/benchmarks.md`:
/// time (median and error), ratios against the peers, and allocation.
fn summarize(path: &Path) -> Result<()> {
    use std::collections::BTreeMap;
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let mut table: BTreeMap<String, BTreeMap<String, Cell>> = Default::default();
    for r in results.as_array().into_iter().flatten() {
        let (Some(name), Some(fixture), Some(m)) = (
            r.get("benchmark").and_then(|b| b.as_str()),
            r.get("params")
                .and_then(|p| p.get("fixture"))
                .and_then(|f| f.as_str()),
            median(r),
        ) else {
            continue;
        };
        let op = name.rsplit('.').next().unwrap_or(name).to_string();
        let cell = Cell {
            median: m,
            error: error(r),
            alloc: alloc(r),
        };
        table
            .entry(fixture.to_string())
            .or_default()
            .insert(op, cell);
    }
    let all = [
        "genEncode",
        "genDecode",
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
    ];
    let cols: Vec<&str> = all
        .iter()
        .copied()
        .filter(|c| table.values().any(|row| row.contains_key(*c)))
        .collect();
    let ratio = |row: &BTreeMap<String, Cell>, a: &str, b: &str| match (row.get(a), row.get(b)) {
        (Some(x), Some(y)) if y.median > 0.0 => format!("{:.2}x", x.median / y.median),
        _ => "n/a".to_string(),
    };

    println!("\nmedian microseconds per operation (± JMH error, 99.9%)\n");
    println!("| fixture | {} |", cols.join(" | "));
    println!("|---|{}", "---|".repeat(cols.len()));
    for (fixture, row) in &table {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| match row.get(*c) {
                Some(Cell {
                    median,
                    error: Some(e),
                    ..
                }) => format!("{median:.2} ± {e:.2}"),
                Some(c) => format!("{:.2}", c.median),
                None => "n/a".into(),
            })
            .collect();
        println!("| {fixture} | {} |", cells.join(" | "));
    }

    println!("\nratios (peer time / ours: above 1.00x we are faster)\n");
    println!("| fixture | JSON/gen dec | Proto/gen dec | JSON/gen enc | JSON bytes/gen enc | Proto/gen enc | JSON/Flex dec |");
    println!("|---|---|---|---|---|---|---|");
    for (fixture, row) in &table {
        println!(
            "| {fixture} | {} | {} | {} | {} | {} | {} |",
            ratio(row, "jsonDecode", "genDecode"),
            ratio(row, "protoDecode", "genDecode"),
            ratio(row, "jsonEncode", "genEncode"),
            ratio(row, "jsonEncodeBytes", "genEncode"),
            ratio(row, "protoEncode", "genEncode"),
            ratio(row, "jsonDecode", "flexDecode"),
        );
    }

    println!("\nbytes allocated per operation (JMH -prof gc, gc.alloc.rate.norm)\n");
    println!("| fixture | {} |", cols.join(" | "));
    println!("|---|{}", "---|".repeat(cols.len()));
    for (fixture, row) in &table {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| match row.get(*c).and_then(|c| c.alloc) {
                Some(a) => format!("{a:.0}"),
                None => "n/a".into(),
            })
            .collect();
        println!("| {fixture} | {} |", cells.join(" | "));
    }
    Ok(())
}

/// Prepares the Kotlin conformance runner (native library, generated coders, jar).
pub fn prepare_conformance() -> Result<()> {
    build()
}

/// The Kotlin conformance runner (`mvn exec:java`), printing JSON result lines.
pub fn conformance_command() -> duct::Expression {
    mvn(&sdk(), &["exec:java"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_has_the_maven_lines_the_scratch_project_is_built_from() {
        let dir = readme_project().unwrap();
        let pom = std::fs::read_to_string(dir.join("pom.xml")).unwrap();
        assert!(
            pom.contains("<artifactId>flexbuf-kotlin</artifactId>"),
            "{pom}"
        );
        assert!(pom.contains("<goal>generate</goal>"), "{pom}");
        assert!(dir.join("src/main/flexbuf/shop.fxs").exists());
        assert_eq!(
            fenced("a\n```xml\n<x/>\n```\n```sh\nls\n```\n", "xml"),
            ["<x/>\n"]
        );
    }
}
