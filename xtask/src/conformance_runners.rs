//! The language runners the conformance matrix knows about.
//!
//! A runner is any command that prints result lines on stdout, one JSON
//! object per line and category (see `conformance/README.md`):
//!
//! ```json
//! {"lang":"python","category":"values identical","passed":461,"total":461,"failures":[]}
//! ```
//!
//! An SDK's runner is part of its entry in [`crate::sdk_table::SDKS`] (so a
//! new language is still one entry there); the Rust runners and the peers
//! are listed here. A [`Runner`]: `present` says whether its toolchain and
//! files exist here, `prepare` installs what it needs (inside the repository
//! only, never globally), `command` runs it from the repository root. Lines with `"informational": true` (peers) are shown but never fail
//! the matrix. A runner that exits without printing any result line fails the
//! matrix as a crash; a peer whose `prepare` fails (offline, say) is skipped.
//! Every runner gets `FLEXBUF_DAMAGED`, the path of the damaged-buffer file of
//! the agreement category (`agreement` lists the languages that must use it),
//! and `FLEXBUF_TYPED_DAMAGED`, the damaged typed inputs that every language
//! reporting `typed` must also replay as `typed agreement`.

use std::path::Path;

use crate::util::{self, Result};

/// One runner: whether it exists here, how to install its needs, how to run it.
pub struct Runner {
    /// Name shown in progress and crash messages (result lines carry their own `lang`).
    pub name: &'static str,
    /// True when the runner's toolchain and files exist in this checkout.
    pub present: fn(&Path) -> bool,
    /// Installs what the runner needs, inside the repository.
    pub prepare: fn(&Path) -> Result<()>,
    /// The command, run from the repository root.
    pub command: fn(&Path) -> duct::Expression,
    /// Peers: a failure to prepare skips them instead of failing the matrix.
    pub optional: bool,
    /// The `lang`s of its result lines that must report the `agreement`
    /// category (its verifiers on the damaged buffers named by
    /// `FLEXBUF_DAMAGED`); a missing line fails the matrix.
    pub agreement: &'static [&'static str],
}

/// `flexbuf-conformance` (the Rust runner and the corpus tools) with `args`.
pub fn conformance_bin(args: &[&str]) -> duct::Expression {
    let mut all = vec!["run", "-q", "-p", "flexbuf-conformance", "--"];
    all.extend_from_slice(args);
    util::cargo(&all)
}

/// `typed-conformance` (the Rust typed runner) with `args`.
pub fn typed_conformance_bin(args: &[&str]) -> duct::Expression {
    let mut all = vec![
        "run",
        "-q",
        "-p",
        "flexbuf-typed-tests",
        "--bin",
        "typed-conformance",
        "--",
    ];
    all.extend_from_slice(args);
    util::cargo(&all)
}

fn nothing(_: &Path) -> Result<()> {
    Ok(())
}

fn python_peer_dir(root: &Path) -> std::path::PathBuf {
    root.join("conformance/peers/python")
}

/// A virtual environment under `conformance/peers/python/.venv` with the
/// pinned PyPI `flatbuffers`.
fn prepare_python(root: &Path) -> Result<()> {
    let dir = python_peer_dir(root);
    let python = dir.join(".venv/bin/python");
    if python.exists() {
        let ok = duct::cmd(&python, ["-c", "import flatbuffers.flexbuffers"])
            .stdout_null()
            .stderr_null()
            .unchecked()
            .run()?
            .status
            .success();
        if ok {
            return Ok(());
        }
    }
    util::step(
        "python3 -m venv conformance/peers/python/.venv",
        duct::cmd("python3", ["-m", "venv", ".venv"]).dir(&dir),
    )?;
    util::step(
        "pip install -r conformance/peers/python/requirements.txt",
        duct::cmd(
            &python,
            ["-m", "pip", "install", "-q", "-r", "requirements.txt"],
        )
        .dir(&dir),
    )
}

/// `npm ci` in `conformance/peers/js` (the lock file pins npm `flatbuffers`).
fn prepare_js(root: &Path) -> Result<()> {
    let dir = root.join("conformance/peers/js");
    if dir.join("node_modules/flatbuffers/package.json").exists() {
        return Ok(());
    }
    util::step(
        "npm ci in conformance/peers/js",
        duct::cmd("npm", ["ci", "--no-audit", "--no-fund"]).dir(&dir),
    )
}

/// Every runner, in matrix order: the Rust runners, each SDK's (from
/// [`crate::sdk_table::SDKS`]), then the peers.
pub fn runners() -> Vec<Runner> {
    let mut all = rust_runners();
    all.extend(crate::sdk_table::SDKS.iter().map(|sdk| {
        let c = &sdk.conformance;
        Runner {
            name: sdk.name,
            present: c.present,
            prepare: c.prepare,
            command: c.command,
            optional: false,
            agreement: c.agreement,
        }
    }));
    all.extend(peer_runners());
    all
}

fn rust_runners() -> Vec<Runner> {
    vec![
        Runner {
            name: "rust",
            present: |root| root.join("conformance/runner/Cargo.toml").exists(),
            prepare: nothing,
            command: |_| conformance_bin(&["run"]),
            optional: false,
            agreement: &["rust"],
        },
        Runner {
            name: "rust (typed)",
            present: |root| root.join("conformance/typed-rust/Cargo.toml").exists(),
            prepare: nothing,
            command: |_| typed_conformance_bin(&[]),
            optional: false,
            agreement: &[],
        },
    ]
}

fn peer_runners() -> Vec<Runner> {
    vec![
        Runner {
            name: "flexbuffers crate (peer)",
            present: |root| root.join("conformance/runner/Cargo.toml").exists(),
            prepare: nothing,
            command: |_| conformance_bin(&["peers"]),
            optional: true,
            agreement: &[],
        },
        Runner {
            name: "python flatbuffers (peer)",
            present: |root| {
                util::have("python3") && python_peer_dir(root).join("read_goldens.py").exists()
            },
            prepare: prepare_python,
            command: |root| {
                let dir = python_peer_dir(root);
                duct::cmd(
                    dir.join(".venv/bin/python"),
                    [dir.join("read_goldens.py"), root.join("conformance/cases")],
                )
            },
            optional: true,
            agreement: &[],
        },
        Runner {
            name: "npm flatbuffers (peer)",
            present: |root| {
                util::have("node")
                    && util::have("npm")
                    && root.join("conformance/peers/js/read_goldens.mjs").exists()
            },
            prepare: prepare_js,
            command: |root| {
                duct::cmd(
                    "node",
                    [
                        root.join("conformance/peers/js/read_goldens.mjs"),
                        root.join("conformance/cases"),
                    ],
                )
            },
            optional: true,
            agreement: &[],
        },
    ]
}
