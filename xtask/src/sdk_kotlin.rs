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
    step(
        "mvn install (gradle/, dev.flexbuf:flexbuf-catalog:0.1.0, the Gradle version catalog)",
        mvn(&root().join("gradle"), &["install"]),
    )?;
    Ok(())
}

/// `[versions]` of the Gradle version catalog `text` (`name = "value"` lines).
fn catalog_versions(text: &str) -> Vec<(String, String)> {
    let mut in_versions = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_versions = line == "[versions]";
        } else if let (true, Some((k, v))) = (in_versions, line.split_once('=')) {
            out.push((k.trim().to_string(), v.trim().trim_matches('"').to_string()));
        }
    }
    out
}

/// The text of `<tag>` in a pom (its first occurrence).
fn pom_value<'a>(pom: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = pom.find(&open)? + open.len();
    let end = start + pom[start..].find(&format!("</{tag}>"))?;
    Some(pom[start..end].trim())
}

/// The catalog names the SDK's own version and the Kotlin and
/// kotlinx-serialization versions its pom builds with, and the installed
/// artifact is the catalog file Gradle resolves.
fn check_catalog() -> Result<()> {
    let text = std::fs::read_to_string(root().join("gradle/libs.versions.toml"))?;
    let pom = std::fs::read_to_string(sdk().join("pom.xml"))?;
    let versions = catalog_versions(&text);
    for (key, tag) in [
        ("flexbuf", "version"),
        ("kotlin", "kotlin.version"),
        ("kotlinx-serialization", "serialization.version"),
    ] {
        let catalog = versions
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str());
        let built = pom_value(&pom, tag);
        if catalog.is_none() || catalog != built {
            return Err(format!(
                "gradle/libs.versions.toml: `{key}` is {catalog:?}, sdk-kotlin/pom.xml's <{tag}> is {built:?}"
            )
            .into());
        }
    }
    let home = std::env::var_os("HOME").ok_or("HOME is not set")?;
    let installed = Path::new(&home)
        .join(".m2/repository/dev/flexbuf/flexbuf-catalog/0.1.0/flexbuf-catalog-0.1.0.toml");
    if std::fs::read_to_string(&installed)? != text {
        return Err(format!("{} is not the catalog", installed.display()).into());
    }
    println!(
        "==> Gradle version catalog: versions agree with sdk-kotlin/pom.xml; installed as {}",
        installed.display()
    );
    Ok(())
}

/// Runs the SDK's and the plugin's JUnit 5 suites through Surefire, then the
/// consumer project: `mvn verify` must generate, compile and round-trip, and
/// a scratch project made of the README's Maven lines must do the same, and
/// the consumer's `broken` profile must fail with the generator's diagnostic,
/// and the Jazzer fuzz target replays its regression inputs (builds first).
pub fn test() -> Result<()> {
    build()?;
    check_catalog()?;
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
    // Without JAZZER_FUZZ, Jazzer's JUnit integration replays the target's
    // seeds and regression inputs (the minimised findings) as tests.
    step(
        "mvn test (fuzz/kotlin: the Jazzer target replays its regression inputs)",
        mvn(&root().join("fuzz/kotlin"), &["test"]).env_remove("JAZZER_FUZZ"),
    )?;
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
/// format's decode, the kotlinx JSON (text and bytes) and ProtoBuf peers, and
/// the JDK's UTF-8 decode of the fixture's strings (the floor under a decode
/// from UTF-8 bytes).
/// `FLEXBUF_BENCH_ALL=1` runs every benchmark of `CodecBench`.
pub(crate) const JUDGED: &str = r"\.(genEncode|genDecode|flexDecode|jsonEncode|jsonEncodeBytes|jsonDecode|jsonDecodeBytes|protoEncode|protoDecode|utf8Strings)$";

/// Runs the JMH benchmarks (`sdk-kotlin/bench`) with issue 16's settings (two
/// forks, three 1 s warm-ups, five 1 s measurements, JMH's GC profiler for
/// allocation per operation), then writes the Kotlin section of
/// `docs/benchmarks.md` and `docs/bench/kotlin.{json,svg}`. About 25 minutes.
///
/// With `FLEXBUF_BENCH_REPORT_ONLY=1` it only rewrites the report from the
/// last run's `sdk-kotlin/bench/target/jmh-result.json`.
pub fn bench() -> Result<()> {
    let bench = sdk().join("bench");
    if std::env::var_os("FLEXBUF_BENCH_REPORT_ONLY").is_some_and(|v| v != "0") {
        return crate::bench_kotlin::write_report(&bench.join("target/jmh-result.json"), None);
    }
    // Before the build, which would raise the one-minute average itself.
    let load = crate::report::load_average();
    build()?;
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
    crate::bench_kotlin::write_report(&out, load)
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

    #[test]
    fn catalog_versions_are_read_from_the_versions_table_only() {
        let text = "# c\n[versions]\nflexbuf = \"0.1.0\"\nkotlin=\"2\"\n[libraries]\nx = { module = \"a:b\" }\n";
        assert_eq!(
            catalog_versions(text),
            [
                ("flexbuf".to_string(), "0.1.0".to_string()),
                ("kotlin".to_string(), "2".to_string())
            ]
        );
        assert_eq!(
            pom_value("<a><version>1</version><version>2</version>", "version"),
            Some("1")
        );
        assert_eq!(pom_value("<a/>", "version"), None);
    }
}
