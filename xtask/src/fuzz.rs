//! `cargo xtask fuzz <target> [--seconds N]`: installs what a fuzz target
//! needs, builds what it fuzzes when that is missing, and runs it (one
//! process, no `-jobs`/`-workers`) with the flags of `fuzz/README.md`.
//!
//! | target | engine | installs | builds when missing |
//! | --- | --- | --- | --- |
//! | `verify_read`, `json_roundtrip`, `capi`, `serde_from_slice`, `typed_decode`, `schema_gen` | cargo-fuzz (libFuzzer) | cargo-fuzz (`cargo install`), the nightly toolchain | (cargo fuzz builds) |
//! | `python` | atheris | atheris into `.venv` | the package into `.venv`, the CLI |
//! | `kotlin`, `kotlin_typed` | Jazzer (JUnit, Maven resolves it) | Maven and a JDK (apt) | the SDK jar in the local Maven repository and the generated Kotlin coders (`sdk-kotlin/target/generated-test-sources`) |
//! | `ts`, `ts_typed` | @jazzer.js/core (`npm ci` in `fuzz/js`) | node packages | `sdk-ts/dist` (tsc); for `ts_typed` the generated coders (`sdk-ts/test/gen/out`); the native fuzzer from source when its prebuild does not load (`fuzz/js/native/README.md`) |
//!
//! `--build-only` installs and builds without fuzzing. Inputs a run finds go
//! to each engine's corpus directory (gitignored);
//! crashes to `fuzz/artifacts/<target>/`, `sdk-python/fuzz/artifacts/`,
//! the Kotlin test's resource directory, or `fuzz/js/artifacts/`.

use std::path::{Path, PathBuf};

use crate::util::{self, root, step, Result};

/// Every target, as `cargo xtask fuzz` takes it.
pub const TARGETS: &[&str] = &[
    "verify_read",
    "json_roundtrip",
    "capi",
    "serde_from_slice",
    "typed_decode",
    "schema_gen",
    "python",
    "kotlin",
    "kotlin_typed",
    "ts",
    "ts_typed",
];

/// The Kotlin target's duration: Jazzer's JUnit integration takes the total
/// time only from `@FuzzTest(maxDuration = ...)` in `ReaderFuzzTest.kt`.
const KOTLIN_SECONDS: u64 = 1200;

/// libFuzzer flags every target shares (after `-max_total_time`).
const COMMON: &[&str] = &["-rss_limit_mb=2048", "-timeout=10", "-print_final_stats=1"];

fn usage() -> String {
    format!(
        "usage: cargo xtask fuzz <{}> [--seconds N (default {})] [--build-only]",
        TARGETS.join(" | "),
        KOTLIN_SECONDS
    )
}

/// Parses `<target> [--seconds N]` and runs the target.
pub fn run(args: &[String]) -> Result<()> {
    let mut target = None;
    let mut seconds = None;
    let mut build_only = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--build-only" => build_only = true,
            "--seconds" => {
                let n = it.next().ok_or_else(usage)?;
                let n: u64 = n
                    .parse()
                    .map_err(|_| format!("--seconds {n}: not a number"))?;
                if n == 0 {
                    return Err("--seconds must be at least 1".into());
                }
                seconds = Some(n);
            }
            t if target.is_none() && TARGETS.contains(&t) => target = Some(t.to_string()),
            _ => return Err(usage().into()),
        }
    }
    let target = target.ok_or_else(usage)?;
    let secs = seconds.unwrap_or(KOTLIN_SECONDS);
    let run = !build_only;
    match target.as_str() {
        "verify_read" | "json_roundtrip" | "capi" | "serde_from_slice" | "typed_decode"
        | "schema_gen" => cargo_fuzz(&target, secs, run),
        "python" => python(secs, run),
        "kotlin" => kotlin("ReaderFuzzTest", seconds, run),
        "kotlin_typed" => kotlin("TypedFuzzTest", seconds, run),
        "ts" => ts(TsTarget::READER, secs, run),
        "ts_typed" => ts(TsTarget::TYPED, secs, run),
        _ => unreachable!("checked against TARGETS"),
    }
}

fn fuzz_dir() -> PathBuf {
    root().join("fuzz")
}

fn max_total_time(secs: u64) -> String {
    format!("-max_total_time={secs}")
}

/// True when `expr` runs and exits with success (output discarded).
fn succeeds(expr: duct::Expression) -> bool {
    expr.stdout_null()
        .stderr_null()
        .unchecked()
        .run()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// `cargo +nightly ...` through the rustup proxy, not the toolchain that runs xtask.
fn nightly_cargo(args: &[&str]) -> duct::Expression {
    let mut all = vec!["+nightly"];
    all.extend_from_slice(args);
    duct::cmd("cargo", all)
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO")
        .dir(fuzz_dir())
}

/// The nightly toolchain (cargo fuzz needs it for the sanitizer flags) and cargo-fuzz.
fn ensure_cargo_fuzz() -> Result<()> {
    if !succeeds(duct::cmd(
        "rustup",
        ["run", "nightly", "rustc", "--version"],
    )) {
        step(
            "rustup toolchain install nightly --profile minimal",
            duct::cmd(
                "rustup",
                ["toolchain", "install", "nightly", "--profile", "minimal"],
            ),
        )?;
    }
    if !succeeds(nightly_cargo(&["fuzz", "--version"])) {
        step(
            "cargo install cargo-fuzz",
            duct::cmd("cargo", ["install", "--locked", "cargo-fuzz"]).env_remove("CARGO"),
        )?;
    }
    Ok(())
}

/// A `cargo fuzz` target of `fuzz/`: `-O` optimised, `-a` with debug assertions
/// and overflow checks; new inputs go to `corpus/<target>`, the seeds are read-only.
fn cargo_fuzz(target: &str, secs: u64, run: bool) -> Result<()> {
    ensure_cargo_fuzz()?;
    if !run {
        return step(
            &format!("cargo +nightly fuzz build -O -a {target}"),
            nightly_cargo(&["fuzz", "build", "-O", "-a", target]),
        );
    }
    let corpus = format!("corpus/{target}");
    std::fs::create_dir_all(fuzz_dir().join(&corpus))?;
    let (seeds, max_len): (&[&str], &str) = match target {
        "json_roundtrip" => (
            &["seeds/json_roundtrip", "../conformance/fixtures"],
            "-max_len=8192",
        ),
        "serde_from_slice" => (
            &["seeds/serde_from_slice", "seeds/verify_read"],
            "-max_len=16384",
        ),
        // One byte picks the type, then the buffer.
        "typed_decode" => (&["seeds/typed_decode"], "-max_len=16385"),
        // Schema text: every schema of the repository, with its keywords as a dictionary.
        "schema_gen" => (
            &[
                "../conformance/schemas",
                "../conformance/typed/schemas",
                "../codegen/tests/schemas",
            ],
            "-max_len=8192",
        ),
        _ => (&["seeds/verify_read"], "-max_len=16384"),
    };
    let total = max_total_time(secs);
    let mut args = vec!["fuzz", "run", "-O", "-a", target, corpus.as_str()];
    args.extend_from_slice(seeds);
    args.extend(["--", total.as_str(), max_len]);
    if target == "schema_gen" {
        args.push("-dict=dict/schema.dict");
    }
    args.extend_from_slice(COMMON);
    step(
        &format!("cargo +nightly fuzz run -O -a {target} ({secs} s)"),
        nightly_cargo(&args),
    )
}

fn venv_python() -> PathBuf {
    root().join(".venv/bin/python")
}

/// The atheris target over the installed package (`sdk-python/fuzz/fuzz_flexbuf.py`).
fn python(secs: u64, run: bool) -> Result<()> {
    let py = venv_python();
    if !py.exists() || !succeeds(duct::cmd(&py, ["-c", "import flexbuf"]).dir(root())) {
        crate::sdk_python::build()?;
    }
    if !succeeds(duct::cmd(&py, ["-c", "import atheris"])) {
        step(
            "pip install atheris (into .venv)",
            duct::cmd(&py, ["-m", "pip", "install", "-q", "atheris>=2.3"]).dir(root()),
        )?;
    }
    // The generated classes come from the CLI (`flexbuf gen --lang python`).
    let cli = util::target_dir().join("debug/flexbuf");
    let cli = if cli.exists() {
        cli
    } else {
        util::flexbuf_cli()?
    };
    if !run {
        return Ok(());
    }
    let dir = root().join("sdk-python/fuzz");
    std::fs::create_dir_all(dir.join("corpus"))?;
    std::fs::create_dir_all(dir.join("artifacts"))?;
    let total = max_total_time(secs);
    let mut args = vec![
        "sdk-python/fuzz/fuzz_flexbuf.py",
        total.as_str(),
        "-max_len=16384",
    ];
    args.extend_from_slice(COMMON);
    args.extend([
        "-artifact_prefix=sdk-python/fuzz/artifacts/",
        "sdk-python/fuzz/corpus",
        "fuzz/seeds/verify_read",
    ]);
    step(
        &format!("atheris sdk-python/fuzz/fuzz_flexbuf.py ({secs} s)"),
        duct::cmd(&py, args).dir(root()).env("FLEXBUF_CLI", &cli),
    )
}

/// The installed SDK jar the Kotlin target depends on.
fn kotlin_jar() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    Some(
        Path::new(&home)
            .join(".m2/repository/dev/flexbuf/flexbuf-kotlin/0.1.0/flexbuf-kotlin-0.1.0.jar"),
    )
}

/// Jazzer over one fuzz test class of `fuzz/kotlin` (`JAZZER_FUZZ=1 mvn test
/// -Dtest=<class>`): `ReaderFuzzTest` (the reader, verifier and JSON) or
/// `TypedFuzzTest` (the generated coders of every conformance schema).
fn kotlin(class: &str, seconds: Option<u64>, run: bool) -> Result<()> {
    if let Some(s) = seconds.filter(|s| *s != KOTLIN_SECONDS) {
        return Err(format!(
            "kotlin: --seconds {s} is not supported: Jazzer's JUnit integration takes the \
             duration only from @FuzzTest(maxDuration) in {class}.kt ({KOTLIN_SECONDS} s); \
             edit it for a shorter run"
        )
        .into());
    }
    if !util::have("mvn") || !util::have("javac") {
        crate::setup::apt_install(&["maven", "openjdk-17-jdk-headless"])?;
    }
    // The SDK jar, and the generated coders TypedFuzzTest compiles with.
    let generated = root().join("sdk-kotlin/target/generated-test-sources/flexbuf");
    if !kotlin_jar().is_some_and(|j| j.exists()) || !generated.exists() {
        crate::sdk_kotlin::build()?;
    }
    if !run {
        return step(
            "mvn test-compile (fuzz/kotlin)",
            duct::cmd("mvn", ["-B", "-q", "-Dstyle.color=never", "test-compile"])
                .dir(fuzz_dir().join("kotlin")),
        );
    }
    let only = format!("-Dtest={class}");
    step(
        &format!("JAZZER_FUZZ=1 mvn test {only} (fuzz/kotlin, {KOTLIN_SECONDS} s)"),
        duct::cmd("mvn", ["-B", "-Dstyle.color=never", "test", only.as_str()])
            .dir(fuzz_dir().join("kotlin"))
            .env("JAZZER_FUZZ", "1"),
    )
}

/// Why the Jazzer.js native fuzzer cannot run here, or `None` when it loads.
fn jazzer_js_unavailable(js: &Path) -> Option<String> {
    let out = duct::cmd("node", ["-e", "require('@jazzer.js/fuzzer')"])
        .dir(js)
        .stdout_capture()
        .stderr_capture()
        .unchecked()
        .run();
    match out {
        Ok(o) if o.status.success() => None,
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            let line = err
                .lines()
                .find(|l| l.contains("Error") || l.contains("GLIBC"))
                .unwrap_or("it fails to load");
            Some(line.trim().to_string())
        }
        Err(e) => Some(e.to_string()),
    }
}

/// One Jazzer.js target of `fuzz/js`: its module, the directory its new
/// inputs go to, and its seeds (relative to `fuzz/js`).
struct TsTarget {
    module: &'static str,
    corpus: &'static str,
    seeds: &'static str,
}

impl TsTarget {
    /// The pure TypeScript runtime (`reader.fuzz.js`).
    const READER: TsTarget = TsTarget {
        module: "reader.fuzz.js",
        corpus: "corpus",
        seeds: "../seeds/verify_read",
    };
    /// The TypeScript coders generated from every conformance schema (`typed.fuzz.js`).
    const TYPED: TsTarget = TsTarget {
        module: "typed.fuzz.js",
        corpus: "corpus_typed",
        seeds: "../seeds/typed_decode_ts",
    };
}

/// A TypeScript target over `sdk-ts/dist` (and, for the typed one, the
/// generated coders in `sdk-ts/test/gen/out`): Jazzer.js when its native
/// fuzzer loads, else `smoke.mjs` (seeded random mutations, not
/// coverage-guided) for the same time.
fn ts(target: TsTarget, secs: u64, run: bool) -> Result<()> {
    if !util::have("node") || !util::have("npm") {
        return Err("the ts target needs node (>= 18) and npm on the PATH".into());
    }
    let sdk = root().join("sdk-ts");
    if !sdk.join("dist/index.js").exists() {
        if !sdk.join("node_modules/.bin/tsc").exists() {
            step(
                "npm ci (sdk-ts)",
                duct::cmd("npm", ["ci", "--no-audit", "--no-fund"]).dir(&sdk),
            )?;
        }
        step("tsc (sdk-ts)", duct::cmd("npm", ["run", "build"]).dir(&sdk))?;
    }
    let js = fuzz_dir().join("js");
    if !js.join("node_modules/@jazzer.js/core").exists() {
        step(
            "npm ci (fuzz/js)",
            duct::cmd("npm", ["ci", "--no-audit", "--no-fund"]).dir(&js),
        )?;
    }
    if target.module == TsTarget::TYPED.module && !root().join("sdk-ts/test/gen/out").exists() {
        crate::sdk_ts::build()?;
        crate::sdk_ts::generate_test_coders()?;
    }
    std::fs::create_dir_all(js.join(target.corpus))?;
    std::fs::create_dir_all(js.join("artifacts"))?;
    if let Some(why) = jazzer_js_unavailable(&js) {
        println!("==> the prebuilt Jazzer.js native fuzzer does not load ({why})");
        if let Err(e) = build_jazzer_js_native(&js) {
            if !run {
                return Err(format!("building the Jazzer.js native fuzzer failed: {e}").into());
            }
            println!("==> building it from source failed: {e}");
        }
    }
    if !run {
        return Ok(());
    }
    match jazzer_js_unavailable(&js) {
        None => {
            let total = max_total_time(secs);
            // The remote-code-execution detector reports any `Function`
            // source holding its canary, and steers the fuzzer towards
            // putting it there; `decode` compiles map makers whose source
            // holds keys from the input, each as a `JSON.stringify` string
            // literal, so the canary arrives as a key within minutes. The
            // target's own oracle (every decoded map holds exactly the keys
            // the checked reader reads, and nothing throws but `FlexError`)
            // is what would catch a key that got out of its literal.
            let mut args = vec![
                "jazzer",
                target.module,
                "--sync",
                "--disable_bug_detectors=remote-code-execution",
                "--",
                total.as_str(),
            ];
            args.push("-max_len=16384");
            args.extend_from_slice(COMMON);
            args.extend(["-artifact_prefix=artifacts/", target.corpus, target.seeds]);
            step(
                &format!("jazzer {} ({secs} s)", target.module),
                duct::cmd("npx", args).dir(&js),
            )
        }
        Some(why) => {
            println!(
                "==> the Jazzer.js native fuzzer does not load ({why}); running smoke.mjs \
                 instead: seeded random mutations, not coverage-guided"
            );
            let s = secs.to_string();
            step(
                &format!("node smoke.mjs --target {} {secs}", target.module),
                duct::cmd("node", ["smoke.mjs", "--target", target.module, s.as_str()]).dir(&js),
            )
        }
    }
}

/// The @jazzer.js/fuzzer release whose npm package still carries its C++
/// sources (4.0.0 ships only prebuilt binaries).
const JAZZER_JS_SOURCES: &str = "@jazzer.js/fuzzer@2.1.0";

/// Builds the Jazzer.js native fuzzer from source and puts it where
/// @jazzer.js/fuzzer 4.0.0 loads its prebuilt from (the prebuilt is kept
/// beside it as `.prebuilt`). 4.0.0's prebuilt for Linux needs glibc 2.38
/// (`__isoc23_strtol`), and its npm package has no sources, so this compiles
/// the 2.1.0 sources (the same native API less one function, which
/// `native/module_counters.inc` adds) against the local Node headers and
/// upstream libFuzzer from the `libfuzzer-sys` crate cargo-fuzz already uses,
/// with the two hooks and the death callback of Code Intelligence's libFuzzer
/// fork that the sources expect (`native/`). Linux only.
fn build_jazzer_js_native(js: &Path) -> Result<()> {
    if !cfg!(target_os = "linux") {
        return Err("only implemented for Linux".into());
    }
    let name = format!(
        "fuzzer-linux-{}.node",
        match std::env::consts::ARCH {
            "x86_64" => "x64",
            "aarch64" => "arm64",
            other => other,
        }
    );
    let build = js.join("target/native");
    let out = build.join(&name);
    if !out.exists() {
        compile_jazzer_js_native(js, &build, &out)?;
    }
    let prebuilds = js.join("node_modules/@jazzer.js/fuzzer/prebuilds");
    let installed = prebuilds.join(&name);
    let kept = prebuilds.join(format!("{name}.prebuilt"));
    if installed.exists() && !kept.exists() {
        std::fs::rename(&installed, &kept)?;
    }
    std::fs::copy(&out, &installed)?;
    println!(
        "==> Jazzer.js native fuzzer built from source: {}",
        installed.display()
    );
    Ok(())
}

/// The directory of `libfuzzer-sys`'s libFuzzer sources (fetched by cargo if absent).
fn libfuzzer_sources() -> Result<PathBuf> {
    let meta = nightly_cargo(&["metadata", "--format-version", "1"]).read()?;
    let meta: serde_json::Value = serde_json::from_str(&meta)?;
    let manifest = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "libfuzzer-sys")
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or("libfuzzer-sys is not a dependency of fuzz/")?;
    let dir = Path::new(manifest)
        .parent()
        .ok_or("libfuzzer-sys manifest has no parent")?
        .join("libfuzzer");
    if !dir.join("FuzzerTracePC.cpp").exists() {
        return Err(format!("no libFuzzer sources in {}", dir.display()).into());
    }
    Ok(dir)
}

/// The Node headers (`node_api.h`): `npm_config_nodedir`, else beside the running node.
fn node_headers() -> Result<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::var_os("npm_config_nodedir") {
        candidates.push(PathBuf::from(dir).join("include/node"));
    }
    let exec = duct::cmd("node", ["-p", "process.execPath"]).read()?;
    if let Some(prefix) = Path::new(exec.trim()).parent().and_then(Path::parent) {
        candidates.push(prefix.join("include/node"));
    }
    candidates
        .into_iter()
        .find(|d| d.join("node_api.h").exists())
        .ok_or_else(|| {
            "no Node headers (node_api.h) beside node or in $npm_config_nodedir/include/node".into()
        })
}

/// Replaces `anchor` (which must occur) in the file at `path`.
fn patch(path: &Path, anchor: &str, with: &str) -> Result<()> {
    let text = std::fs::read_to_string(path)?;
    if !text.contains(anchor) {
        return Err(format!("{}: patch anchor not found", path.display()).into());
    }
    std::fs::write(path, text.replacen(anchor, with, 1))?;
    Ok(())
}

fn append(path: &Path, extra: &Path) -> Result<()> {
    let mut text = std::fs::read_to_string(path)?;
    text.push('\n');
    text.push_str(&std::fs::read_to_string(extra)?);
    std::fs::write(path, text)?;
    Ok(())
}

fn compile_jazzer_js_native(js: &Path, build: &Path, out: &Path) -> Result<()> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    if !util::have(&cxx) {
        crate::setup::apt_install(&["g++"])?;
    }
    let node = node_headers()?;
    let addon_api = js.join("node_modules/node-addon-api");
    if !addon_api.join("napi.h").exists() {
        return Err("node-addon-api is not installed in fuzz/js/node_modules".into());
    }
    let libfuzzer = libfuzzer_sources()?;
    if build.exists() {
        std::fs::remove_dir_all(build)?;
    }
    std::fs::create_dir_all(build.join("obj"))?;

    // The 2.1.0 sources, from the npm registry.
    step(
        &format!("npm pack {JAZZER_JS_SOURCES}"),
        duct::cmd("npm", ["pack", "--silent", JAZZER_JS_SOURCES])
            .dir(build)
            .stdout_null(),
    )?;
    step(
        "tar xzf jazzer.js-fuzzer-2.1.0.tgz",
        duct::cmd("tar", ["xzf", "jazzer.js-fuzzer-2.1.0.tgz"]).dir(build),
    )?;
    let src = build.join("package");
    let native = js.join("native");
    append(
        &src.join("shared/coverage.cpp"),
        &native.join("module_counters.inc"),
    )?;
    patch(
        &src.join("shared/coverage.h"),
        "void RegisterNewCounters(const Napi::CallbackInfo &info);",
        "void RegisterNewCounters(const Napi::CallbackInfo &info);\n\
         void RegisterModuleCounters(const Napi::CallbackInfo &info);",
    )?;
    patch(
        &src.join("shared/callbacks.cpp"),
        "  exports[\"registerNewCounters\"] =",
        "  exports[\"registerModuleCounters\"] =\n      \
         Napi::Function::New<RegisterModuleCounters>(env);\n  \
         exports[\"registerNewCounters\"] =",
    )?;
    // Upstream libFuzzer cannot be told by the callback to stop (the fork's
    // RETURN_EXIT). Jazzer.js has printed the finding and dumped the input
    // (printAndDumpCrashingInput) before it throws, so exit as for a crash;
    // after a SIGINT (Jazzer.js throws its "signal finding" then), end as
    // libFuzzer ends an interrupted run: final stats, exit code 72.
    patch(
        &src.join("fuzzing_sync.cpp"),
        "#include \"utils.h\"",
        "#include \"utils.h\"\n#include <fuzzer/FuzzerInternal.h>",
    )?;
    patch(
        &src.join("fuzzing_sync.cpp"),
        "    gFuzzTarget->deferred.Reject(error.Value());\n    return libfuzzer::RETURN_EXIT;",
        "    gFuzzTarget->deferred.Reject(error.Value());\n    \
         if (gSignalStatus == SIGINT) {\n      \
         fuzzer::Fuzzer::StaticInterruptCallback();\n    \
         }\n    \
         _Exit(libfuzzer::EXIT_ERROR_CODE);",
    )?;

    // libFuzzer as `<inc>/fuzzer/` (the sources include <fuzzer/FuzzerDefs.h>).
    let inc = build.join("inc");
    let lf = inc.join("fuzzer");
    std::fs::create_dir_all(&lf)?;
    let mut units = Vec::new();
    for e in std::fs::read_dir(&libfuzzer)?.flatten() {
        if !e.path().is_file() {
            continue;
        }
        let file = e.file_name().to_string_lossy().into_owned();
        std::fs::copy(e.path(), lf.join(&file))?;
        if file.ends_with(".cpp") && file != "FuzzerMain.cpp" && file != "FuzzerInterceptors.cpp" {
            units.push((lf.join(&file), false));
        }
    }
    append(
        &lf.join("FuzzerTracePC.cpp"),
        &native.join("libfuzzer_compat.inc"),
    )?;
    for dir in [src.clone(), src.join("shared")] {
        for e in std::fs::read_dir(&dir)?.flatten() {
            if e.path().extension().is_some_and(|x| x == "cpp") {
                units.push((e.path(), true));
            }
        }
    }
    units.push((native.join("death_callback.cpp"), true));
    units.sort();

    let mut objects = Vec::new();
    for (i, (unit, addon)) in units.iter().enumerate() {
        let obj = build.join("obj").join(format!("{i:02}.o"));
        let mut args: Vec<String> = ["-O2", "-fPIC", "-std=c++17", "-DNDEBUG", "-w", "-c"]
            .map(String::from)
            .to_vec();
        if *addon {
            args.extend([
                "-DNAPI_VERSION=4".to_string(),
                "-DNAPI_CPP_EXCEPTIONS".to_string(),
                format!("-I{}", node.display()),
                format!("-I{}", addon_api.display()),
                format!("-I{}", inc.display()),
            ]);
        }
        args.extend([
            unit.display().to_string(),
            "-o".to_string(),
            obj.display().to_string(),
        ]);
        let file = unit.file_name().unwrap_or_default().to_string_lossy();
        step(&format!("{cxx} -c {file}"), duct::cmd(&cxx, &args))?;
        objects.push(obj.display().to_string());
    }
    let mut args = vec!["-shared".to_string(), "-o".to_string()];
    args.push(out.display().to_string());
    args.extend(objects);
    args.push("-lpthread".to_string());
    step("link the Jazzer.js native fuzzer", duct::cmd(&cxx, &args))
}
