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
    keywords_module()
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
    step(
        "python sdk-python/tools/bench.py",
        duct::cmd(python(), ["sdk-python/tools/bench.py"])
            .dir(root())
            .env("FLEXBUF_CLI", &cli),
    )
}
