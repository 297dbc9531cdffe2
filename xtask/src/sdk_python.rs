//! The Python SDK (`sdk-python/`): a virtual environment in `.venv/`, the
//! wheel built by maturin from the root `pyproject.toml`, pytest, the
//! conformance runner and the benchmarks.
//!
//! Everything is installed inside the repository: the venv holds maturin and
//! the test and benchmark dependencies, and the wheel is installed into it.
//! Only `python3` itself (with `venv` and headers) comes from apt.

use std::path::PathBuf;

use crate::util::{self, root, step, Result};

/// What the venv needs: the build backend, test tools, and the benchmark peers.
const PACKAGES: &[&str] = &[
    "maturin>=1.9.4,<2",
    "pytest",
    "mypy",
    "numpy",
    "orjson",
    "msgspec",
    "flatbuffers",
];

/// Imports proving the venv is complete (module names of [`PACKAGES`]).
const IMPORTS: &str =
    "import maturin, pytest, mypy, numpy, orjson, msgspec, flatbuffers.flexbuffers";

fn python() -> PathBuf {
    root().join(".venv/bin/python")
}

fn venv_tool(name: &str) -> PathBuf {
    root().join(".venv/bin").join(name)
}

/// Creates `.venv` and installs [`PACKAGES`] unless they are already there.
fn ensure_venv() -> Result<()> {
    if !util::have("python3") {
        crate::setup::apt_install(&["python3", "python3-venv", "python3-dev"])?;
    }
    if !python().exists() {
        let made = duct::cmd("python3", ["-m", "venv", ".venv"])
            .dir(root())
            .unchecked()
            .run()?;
        if !made.status.success() {
            // Debian splits venv (and ensurepip) into its own package.
            crate::setup::apt_install(&["python3-venv", "python3-dev"])?;
            step(
                "python3 -m venv .venv",
                duct::cmd("python3", ["-m", "venv", ".venv"]).dir(root()),
            )?;
        }
    }
    let complete = duct::cmd(python(), ["-c", IMPORTS])
        .stdout_null()
        .stderr_null()
        .unchecked()
        .run()?
        .status
        .success();
    if !complete {
        let mut args = vec!["-m", "pip", "install", "-q"];
        args.extend_from_slice(PACKAGES);
        step(
            "pip install (into .venv)",
            duct::cmd(python(), args).dir(root()),
        )?;
    }
    Ok(())
}

/// Builds the wheel into `$CARGO_TARGET_DIR/wheels/` (`target/wheels/` by default) and installs it into `.venv`.
pub fn build() -> Result<()> {
    ensure_venv()?;
    let wheels = util::target_dir().join("wheels");
    // Only this build's wheel may be installed below.
    if let Ok(entries) = std::fs::read_dir(&wheels) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("flexbuf-") && name.ends_with(".whl") {
                std::fs::remove_file(e.path())?;
            }
        }
    }
    step(
        "maturin build --release (sdk-python wheel)",
        duct::cmd(
            venv_tool("maturin"),
            [
                "build",
                "--release",
                "--interpreter",
                &python().to_string_lossy(),
                "--out",
                &wheels.to_string_lossy(),
            ],
        )
        .dir(root()),
    )?;
    let wheel = std::fs::read_dir(&wheels)?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy().starts_with("flexbuf-"))
                .unwrap_or(false)
                && p.extension().is_some_and(|e| e == "whl")
        })
        .ok_or("maturin wrote no wheel")?;
    step(
        "pip install the wheel (into .venv)",
        duct::cmd(
            python(),
            [
                "-m",
                "pip",
                "install",
                "-q",
                "--force-reinstall",
                "--no-deps",
                &wheel.to_string_lossy(),
            ],
        )
        .dir(root()),
    )
}

/// Builds and installs the package, then runs pytest in `sdk-python/tests`
/// (API, Reference, typed models, threads, stubs via mypy.stubtest, the
/// `flatbuffers.flexbuffers` cross-check and the conformance categories),
/// then checks the generated keywords module.
pub fn test() -> Result<()> {
    build()?;
    let cli = util::flexbuf_cli()?;
    step(
        "pytest sdk-python/tests",
        duct::cmd(python(), ["-m", "pytest", "-q", "sdk-python/tests"])
            .dir(root())
            .env("FLEXBUF_CLI", &cli),
    )?;
    keywords_module()?;
    install_test()
}

/// The README's lines in a scratch project: `pip install .` (from the
/// repository root) into a fresh virtual environment, then `python -m
/// flexbuf gen --lang python schema.fxs -o pkg/` and a round trip through the
/// generated class, all with that environment's Python.
fn install_test() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("flexbuf-pip-install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let venv = dir.join("venv");
    let result = (|| -> Result<()> {
        step(
            "python3 -m venv (scratch project)",
            duct::cmd(
                "python3",
                ["-m".as_ref(), "venv".as_ref(), venv.as_os_str()],
            ),
        )?;
        let py = venv.join("bin/python");
        step(
            "pip install . (from the repository root, into the scratch venv)",
            duct::cmd(&py, ["-m", "pip", "install", "-q", "."])
                .dir(root())
                // maturin builds into the repository's target directory, so the
                // crates compiled for the wheel are reused.
                .env("CARGO_TARGET_DIR", util::target_dir()),
        )?;
        std::fs::write(
            dir.join("point.fxs"),
            "namespace demo;\nmessage Point { x: f64; y: f64; label: string; tags: [string]; }\n",
        )?;
        step(
            "python -m flexbuf gen --lang python point.fxs -o pkg/",
            duct::cmd(
                &py,
                [
                    "-m",
                    "flexbuf",
                    "gen",
                    "--lang",
                    "python",
                    "point.fxs",
                    "-o",
                    "pkg/",
                ],
            )
            .dir(&dir),
        )?;
        let script = "import flexbuf\n\
            from pkg.point import Point\n\
            p = Point(x=1.5, y=-2.0, label='here', tags=['a', 'b'])\n\
            data = p.encode()\n\
            assert Point.decode(data) == p, Point.decode(data)\n\
            assert flexbuf.loads(data) == {'label': 'here', 'tags': ['a', 'b'], 'x': 1.5, 'y': -2.0}\n\
            print('pip-installed package and generated class work')\n";
        step(
            "round-trip through the generated class (scratch venv)",
            duct::cmd(&py, ["-c", script]).dir(&dir),
        )
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The keywords schema (names that clash with Python and the generated API)
/// generated, checked by `mypy --strict` and round-tripped through the core.
fn keywords_module() -> Result<()> {
    let out = util::target_dir().join("keywords-python");
    util::gen(
        "python",
        &[root().join("codegen/tests/schemas/keywords.fxs")],
        &out,
    )?;
    step(
        "mypy --strict keywords.py",
        duct::cmd(python(), ["-m", "mypy", "--strict", "keywords.py"]).dir(&out),
    )?;
    let script = "import keywords as k\n\
        o = k.Object(self_=1, class_='c', kind=k.Kind.None_)\n\
        assert k.Object.decode(o.encode()) == o\n\
        t = k.TypeClass(k.String(s='s', o=None, v=[1]))\n\
        assert k.Type.decode(t.encode()) == t\n";
    step(
        "import and round-trip keywords.py",
        duct::cmd(python(), ["-c", script]).dir(&out),
    )
}

/// Prepares the conformance runner: the package built from the current tree
/// and installed into `.venv` (maturin is incremental), and the CLI. Building
/// only when `.venv` was missing let the matrix report a wheel older than the
/// core (typed cases failing after a wire change the tree already carried).
pub fn prepare_conformance() -> Result<()> {
    build()?;
    util::flexbuf_cli().map(|_| ())
}

/// The Python conformance runner, printing its JSON result lines.
pub fn conformance_command() -> duct::Expression {
    duct::cmd(
        python(),
        [
            "sdk-python/tools/conformance_runner.py".to_string(),
            "--flexbuf".to_string(),
            util::target_dir()
                .join("debug/flexbuf")
                .to_string_lossy()
                .into_owned(),
        ],
    )
    .dir(root())
}

/// Builds the package and runs `sdk-python/tools/bench.py` on the shared
/// fixtures (flexbuf vs flatbuffers.flexbuffers, json, orjson, msgspec).
pub fn bench() -> Result<()> {
    build()?;
    let cli = util::flexbuf_cli()?;
    let load = crate::report::load_average();
    step(
        "python sdk-python/tools/bench.py",
        duct::cmd(python(), ["sdk-python/tools/bench.py"])
            .dir(root())
            .env("FLEXBUF_CLI", &cli),
    )?;
    write_report(load)
}

/// The section of `docs/benchmarks.md` the Python benchmark writes.
const HEADING: &str = "## Python SDK";

/// Splices `target/python-bench.md` into the Python section of
/// `docs/benchmarks.md` (keeping its `### Notes`) and writes
/// `docs/bench/python.{json,svg}` from `target/python-bench.json`.
fn write_report(load: Option<f64>) -> Result<()> {
    let target = util::target_dir();
    let tables = std::fs::read_to_string(target.join("python-bench.md"))?;
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(target.join("python-bench.json"))?)?;
    let date = crate::report::today();
    let suite = python_suite(&results, &date)?;
    let svg = suite.write(&crate::chart::dir(&root()))?;
    let doc_path = root().join("docs/benchmarks.md");
    let load = load.map_or("unknown".to_string(), |l| format!("{l:.2}"));
    let section = format!(
        "{HEADING}\n\nReproduce with `cargo xtask bench python` (runs \
         `sdk-python/tools/bench.py` with the release wheel installed in `.venv`, then \
         writes this section and `docs/bench/python.{{json,svg}}`; with \
         `FLEXBUF_BENCH_JSON_DIR` naming a directory of `*.json` documents it also \
         writes the public documents table). Date: {date}; load \
         average when it started: {load}. Every figure is a median; ratios come from \
         the same run.\n\n\
         ![Python: peer time / flexbuf time per fixture, log scale](bench/python.svg)\n\n\
         {}\n",
        tables.trim_end()
    );
    crate::report::write_section(&doc_path, HEADING, &section)?;
    println!("xtask: wrote {} and {}", doc_path.display(), svg.display());
    Ok(())
}

/// The chart suite of the Python run: one panel per table, every peer
/// against flexbuf (`columns.flexbuf` first).
fn python_suite(results: &serde_json::Value, date: &str) -> Result<crate::chart::Suite> {
    let panels = results["panels"]
        .as_object()
        .ok_or("python-bench.json: no panels")?;
    let mut out = Vec::new();
    for (name, panel) in panels {
        let fixtures: Vec<String> = panel["fixtures"]
            .as_array()
            .ok_or("python-bench.json: a panel without fixtures")?
            .iter()
            .filter_map(|f| f.as_str().map(str::to_string))
            .collect();
        let columns = panel["columns"]
            .as_object()
            .ok_or("python-bench.json: a panel without columns")?;
        let times = |v: &serde_json::Value| -> Vec<Option<f64>> {
            v.as_array()
                .map(|a| a.iter().map(|t| t.as_f64().map(|s| s * 1e9)).collect())
                .unwrap_or_default()
        };
        let mut cols = vec![(
            "flexbuf".to_string(),
            times(
                columns
                    .get("flexbuf")
                    .ok_or("python-bench.json: no flexbuf column")?,
            ),
        )];
        cols.extend(
            columns
                .iter()
                .filter(|(k, _)| *k != "flexbuf")
                .map(|(k, v)| (k.clone(), times(v))),
        );
        out.push(crate::chart::Panel::from_medians(name, fixtures, cols));
    }
    Ok(crate::chart::Suite {
        name: "python",
        title: "Python SDK: peer time / flexbuf time".into(),
        command: "cargo xtask bench python".into(),
        date: date.to_string(),
        panels: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_puts_flexbuf_first_and_converts_seconds() {
        let results = serde_json::json!({"panels": {"loads": {
            "fixtures": ["a", "b"],
            "columns": {"orjson": [2e-6, null], "flexbuf": [1e-6, 4e-6]}
        }}});
        let suite = python_suite(&results, "2026-12-01").unwrap();
        let p = &suite.panels[0];
        assert_eq!(p.baseline, "flexbuf");
        assert_eq!(p.medians[0].ratios, vec![Some(1000.0), Some(4000.0)]);
        assert_eq!(p.series[0].peer, "orjson");
        assert_eq!(p.series[0].ratios, vec![Some(2.0), None]);
    }
}
