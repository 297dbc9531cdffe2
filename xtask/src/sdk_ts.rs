//! The TypeScript SDK (`sdk-ts/`, npm package `flexbuf`): build, tests,
//! conformance runner and benchmarks.
//!
//! Everything installs inside the repository: npm packages into
//! `sdk-ts/node_modules` (from `package-lock.json`), the native addon is built
//! with cargo from the `sdk-ts/native` neon crate and copied to
//! `sdk-ts/native/index.node`; only Debian's `chromium` (for the browser test)
//! comes from apt.

use std::path::{Path, PathBuf};

use crate::util::{self, Result};

fn sdk() -> PathBuf {
    util::root().join("sdk-ts")
}

fn npm(args: &[&str]) -> duct::Expression {
    duct::cmd("npm", args).dir(sdk())
}

fn node(args: &[&str]) -> duct::Expression {
    duct::cmd("node", args).dir(sdk())
}

fn release_dir() -> PathBuf {
    util::target_dir().join("release")
}

/// Installs npm dependencies (when missing), compiles the TypeScript to
/// `sdk-ts/dist` and builds the native addon into `sdk-ts/native/index.node`.
pub fn build() -> Result<()> {
    if !util::have("node") || !util::have("npm") {
        return Err("the TypeScript SDK needs node (>= 18) and npm on the PATH".into());
    }
    if !sdk().join("node_modules/.bin/tsc").exists() {
        util::step("npm ci (sdk-ts)", npm(&["ci", "--no-audit", "--no-fund"]))?;
    }
    util::step("tsc (sdk-ts)", npm(&["run", "build"]))?;
    util::step(
        "cargo build -p flexbuf-node --release",
        util::cargo(&["build", "-p", "flexbuf-node", "--release"]),
    )?;
    let lib = release_dir().join(util::cdylib_name("flexbuf_node"));
    let dest = sdk().join("native/index.node");
    std::fs::copy(&lib, &dest)
        .map_err(|e| format!("copy {} -> {}: {e}", lib.display(), dest.display()))?;
    println!("==> native addon: {}", dest.display());
    Ok(())
}

fn tool() -> PathBuf {
    release_dir().join(if cfg!(windows) {
        "flexbuf-ts-tool.exe"
    } else {
        "flexbuf-ts-tool"
    })
}

/// Schemas whose generated TypeScript the tests compile and run.
fn test_schemas() -> Result<Vec<PathBuf>> {
    let root = util::root();
    let mut out = Vec::new();
    for dir in ["conformance/schemas", "conformance/typed/schemas"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "fxs"))
            .collect();
        v.sort();
        out.extend(v);
    }
    out.push(root.join("codegen/tests/schemas/shop.fxs"));
    // Names that clash with TypeScript and the generated API: must compile.
    out.push(root.join("codegen/tests/schemas/keywords.fxs"));
    Ok(out)
}

/// Generates the test coders (`flexbuf gen --lang ts`) into `sdk-ts/test/gen`,
/// compiles them, and writes the Rust typed encoders' bytes of every fixture
/// into `sdk-ts/test/gen/ref` (the byte-identity reference). Needs [`build`].
pub fn generate_test_coders() -> Result<()> {
    let gen = sdk().join("test/gen");
    let tool = tool();
    util::gen("ts", &test_schemas()?, &gen)?;
    util::step(
        "tsc (generated test coders)",
        node(&[
            "node_modules/typescript/bin/tsc",
            "-p",
            "test/gen/tsconfig.json",
        ]),
    )?;
    // One module per `--ts-int64` policy (test/int64.test.mjs), and one
    // with per-field `ts_int64` attributes over a `checked` module.
    let int64 = sdk().join("test/int64");
    let cli = util::flexbuf_cli()?;
    let gen_int64 = |policy: &str, schema: &str, out: &str| {
        let (schema, out) = (sdk().join(schema), int64.join(out));
        util::step(
            &format!(
                "flexbuf gen --lang ts --ts-int64 {policy} {}",
                schema.display()
            ),
            duct::cmd(
                &cli,
                [
                    "gen".as_ref(),
                    "--lang".as_ref(),
                    "ts".as_ref(),
                    "--ts-int64".as_ref(),
                    policy.as_ref(),
                    schema.as_os_str(),
                    "-o".as_ref(),
                    out.as_os_str(),
                ],
            )
            .stdout_null(),
        )
    };
    for policy in ["auto", "checked", "bigint"] {
        gen_int64(policy, "test/int64.fxs", policy)?;
    }
    gen_int64("checked", "test/int64_fields.fxs", "fields")?;
    util::step(
        "tsc (--ts-int64 test coders)",
        node(&[
            "node_modules/typescript/bin/tsc",
            "-p",
            "test/int64/tsconfig.json",
        ]),
    )?;
    let refs = gen.join("ref");
    std::fs::create_dir_all(&refs)?;
    for fixture in [
        "api_response",
        "chat_thread",
        "metrics_96k",
        "repeated_maps",
        "string_flood",
        "time_series",
        "unicode_heavy",
        "user_profile",
        "wide_map",
        "width_bomb",
    ] {
        let out = refs
            .join(format!("{fixture}.bin"))
            .to_string_lossy()
            .into_owned();
        util::step(
            &format!("rust typed bytes of {fixture}"),
            duct::cmd(&tool, ["typed", fixture, out.as_str()]),
        )?;
    }
    Ok(())
}

fn ensure_chromium() -> Result<()> {
    if Path::new("/usr/bin/chromium").exists() {
        return Ok(());
    }
    crate::setup::apt_install(&["chromium"])
}

/// Every test of the SDK (builds first): `node --test` over `sdk-ts/test/*.test.mjs`
/// (conformance for the pure-TS and native paths, API and defect regressions,
/// typed coders, the `flatbuffers` peer cross-check, headless Chromium), then
/// `npm pack` installed into a fresh project outside the repository.
pub fn test() -> Result<()> {
    build()?;
    generate_test_coders()?;
    ensure_chromium()?;
    let mut files: Vec<String> = std::fs::read_dir(sdk().join("test"))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".test.mjs"))
        .map(|n| format!("test/{n}"))
        .collect();
    files.sort();
    let mut args = vec!["--test"];
    args.extend(files.iter().map(String::as_str));
    let cli = util::flexbuf_cli()?;
    util::step("node --test (sdk-ts)", node(&args).env("FLEXBUF_CLI", &cli))?;
    // The TypeScript fuzz target's oracle over its seeds (a regression replay),
    // then five seconds of seeded mutations; no Jazzer.js needed.
    util::step(
        "node fuzz/js/smoke.mjs 5 (the ts fuzz target over its seeds, then seeded mutations)",
        duct::cmd("node", ["smoke.mjs", "5", "18", "../seeds/verify_read"])
            .dir(util::root().join("fuzz/js")),
    )?;
    // The same for the generated coders' target (over test/gen/out, made above).
    util::step(
        "node fuzz/js/smoke.mjs --target typed.fuzz.js 5 (the ts_typed fuzz target over its seeds, then seeded mutations)",
        duct::cmd(
            "node",
            [
                "smoke.mjs",
                "--target",
                "typed.fuzz.js",
                "5",
                "18",
                "../seeds/typed_decode_ts",
            ],
        )
        .dir(util::root().join("fuzz/js")),
    )?;
    install_test()
}

/// `npm pack` the SDK, install the tarball into a new project and use it there.
fn install_test() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("flexbuf-npm-install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let packed = npm(&[
        "pack",
        "--silent",
        "--pack-destination",
        &dir.to_string_lossy(),
    ])
    .read()?;
    let tarball = dir.join(packed.trim().lines().last().unwrap_or_default());
    std::fs::write(
        dir.join("package.json"),
        "{\"name\":\"consumer\",\"private\":true,\"type\":\"module\"}",
    )?;
    util::step(
        "npm install flexbuf tarball into a fresh project",
        duct::cmd(
            "npm",
            [
                "install",
                "--no-audit",
                "--no-fund",
                &tarball.to_string_lossy(),
            ],
        )
        .dir(&dir),
    )?;
    let script = "import * as fb from 'flexbuf'; \
        const b = fb.encode({ok: true, n: [1, 2.5]}); \
        if (fb.toJSON(b) !== '{\"n\":[1,2.5],\"ok\":true}') throw new Error('round trip'); \
        if (fb.backend !== 'native') throw new Error('native addon not loaded from the installed package'); \
        const p = await import('flexbuf/pure'); if (p.backend !== 'pure') throw new Error('pure entry'); \
        console.log('installed package works, backend', fb.backend);";
    let result = util::step(
        "use the installed package",
        duct::cmd("node", ["--input-type=module", "-e", script]).dir(&dir),
    )
    .and_then(|()| generated_coders_in(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// In the consumer project `dir` (the tarball installed): `npx flexbuf gen
/// --lang ts` through the installed package's native addon, the output
/// compiled with tsc against the installed `flexbuf`, and one message round-tripped.
fn generated_coders_in(dir: &Path) -> Result<()> {
    std::fs::write(
        dir.join("point.fxs"),
        "namespace demo;\n/// A labelled point.\nmessage Point { x: f64; y: f64; label: string; tags: [string]; }\n",
    )?;
    util::step(
        "npx flexbuf gen --lang ts point.fxs -o src/gen (installed package)",
        duct::cmd(
            "npx",
            [
                "--no-install",
                "flexbuf",
                "gen",
                "--lang",
                "ts",
                "point.fxs",
                "-o",
                "src/gen",
            ],
        )
        .dir(dir),
    )?;
    std::fs::write(
        dir.join("tsconfig.json"),
        r#"{"compilerOptions": {"target": "ES2020", "module": "NodeNext", "moduleResolution": "NodeNext",
            "strict": true, "types": [], "lib": ["ES2020"], "outDir": "out"}, "include": ["src/gen/*.ts"]}"#,
    )?;
    let tsc = sdk().join("node_modules/typescript/bin/tsc");
    util::step(
        "tsc (generated coders against the installed package)",
        duct::cmd(
            "node",
            [tsc.to_string_lossy().as_ref(), "-p", "tsconfig.json"],
        )
        .dir(dir),
    )?;
    let script = "import * as fb from 'flexbuf'; \
        const { encodePoint, decodePoint } = await import('./out/point.js'); \
        const p = { x: 1.5, y: -2, label: 'here', tags: ['a', 'b'] }; \
        const bytes = encodePoint(p); \
        const back = decodePoint(bytes); \
        if (JSON.stringify(back) !== JSON.stringify(p)) throw new Error('round trip: ' + JSON.stringify(back)); \
        if (fb.toJSON(bytes) !== '{\"label\":\"here\",\"tags\":[\"a\",\"b\"],\"x\":1.5,\"y\":-2.0}') throw new Error('bytes: ' + fb.toJSON(bytes)); \
        console.log('generated coders work in the consumer project');";
    // The consumer is an ES module package (`"type": "module"`), so `out/point.js` loads as ESM.
    util::step(
        "round-trip through the generated coders",
        duct::cmd("node", ["--input-type=module", "-e", script]).dir(dir),
    )
}

/// Prepares the conformance runner: the package and addon built, test coders generated.
pub fn prepare_conformance() -> Result<()> {
    build()?;
    generate_test_coders()
}

/// The TS conformance runner (pure and native paths), printing JSON result lines.
pub fn conformance_command() -> duct::Expression {
    node(&["test/conformance.mjs"])
}

/// `cargo xtask bench ts`: runs `sdk-ts/bench/bench.mjs` (interleaved rounds, `bench/suite.mjs`) on the
/// shared fixtures in Node (one process per fixture) and then in headless
/// Chromium (`bench/browser.mjs`, playwright-core), and rewrites the
/// "## TypeScript SDK" section of `docs/benchmarks.md` with both tables.
/// Builds first.
pub fn bench() -> Result<()> {
    build()?;
    generate_test_coders()?;
    ensure_chromium()?;
    util::step(
        "node bench/bench.mjs --write",
        node(&["bench/bench.mjs", "--write"]),
    )?;
    let raw = util::root().join("target/ts-bench.json");
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&raw)?)?;
    let svg =
        ts_suite(&results, &crate::report::today())?.write(&crate::chart::dir(&util::root()))?;
    println!("xtask: wrote {} (and its .json)", svg.display());
    Ok(())
}

/// The columns of each chart panel: the typed coder (the baseline) first.
const CHART_COLUMNS: [&str; 5] = [
    "flexbuf typed",
    "flexbuf",
    "JSON.parse",
    "msgpackr",
    "flatbuffers",
];

/// The chart suite of a `bench.mjs` run: decode and encode in Node and in
/// Chromium, each peer against the generated coder. `JSON.parse` stands for
/// `JSON.stringify` in the encode panels (the same column of the tables).
fn ts_suite(results: &serde_json::Value, date: &str) -> Result<crate::chart::Suite> {
    let mut panels = Vec::new();
    for (env, label) in [("node", "Node"), ("chromium", "Chromium")] {
        let Some(rows) = results[env].as_array() else {
            continue;
        };
        let fixtures: Vec<String> = rows
            .iter()
            .filter_map(|r| r["fixture"].as_str().map(str::to_string))
            .collect();
        for op in ["decode", "encode"] {
            let columns = CHART_COLUMNS
                .iter()
                .map(|&c| {
                    let key = if op == "encode" && c == "JSON.parse" {
                        "JSON.stringify"
                    } else {
                        c
                    };
                    let times = rows.iter().map(|r| r[op][key].as_f64()).collect();
                    (key.to_string(), times)
                })
                .collect();
            panels.push(crate::chart::Panel::from_medians(
                &format!("{label} {op}"),
                fixtures.clone(),
                columns,
            ));
        }
    }
    if panels.is_empty() {
        return Err("ts-bench.json: no node or chromium rows".into());
    }
    Ok(crate::chart::Suite {
        name: "ts",
        title: "TypeScript SDK: peer time / flexbuf typed time".into(),
        command: "cargo xtask bench ts".into(),
        date: date.to_string(),
        panels,
    })
}

#[cfg(test)]
mod chart_tests {
    use super::*;

    #[test]
    fn the_suite_has_a_panel_per_environment_and_operation() {
        let row = serde_json::json!({"fixture": "user_profile",
            "decode": {"flexbuf typed": 2.0, "flexbuf": 3.0, "JSON.parse": 4.0, "msgpackr": 1.0, "flatbuffers": null},
            "encode": {"flexbuf typed": 1.0, "flexbuf": 2.0, "JSON.stringify": 3.0, "msgpackr": 2.0, "flatbuffers": 9.0}});
        let results = serde_json::json!({"node": [row.clone()], "chromium": [row]});
        let suite = ts_suite(&results, "2026-12-01").unwrap();
        let names: Vec<&str> = suite.panels.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Node decode",
                "Node encode",
                "Chromium decode",
                "Chromium encode"
            ]
        );
        let decode = &suite.panels[0];
        assert_eq!(decode.baseline, "flexbuf typed");
        assert_eq!(decode.series[1].peer, "JSON.parse");
        assert_eq!(decode.series[1].ratios, vec![Some(2.0)]);
        assert_eq!(decode.series[3].ratios, vec![None]);
        assert_eq!(suite.panels[1].series[1].peer, "JSON.stringify");
        assert_eq!(suite.panels[1].series[1].ratios, vec![Some(3.0)]);
    }
}
