//! The SDKs, as data: every per-language step of `build-all`, `test`,
//! `bench` and `conformance` comes from this one table, so a new language is
//! one entry.

use std::path::Path;

use crate::util::{self, Result};

/// One SDK and its steps.
pub struct Sdk {
    /// Its name, as `cargo xtask bench <name>` takes it.
    pub name: &'static str,
    /// Builds it (installing what it needs).
    pub build: fn() -> Result<()>,
    /// Runs every test of it (builds first).
    pub test: fn() -> Result<()>,
    /// Runs its benchmarks and prints or writes the results.
    pub bench: fn() -> Result<()>,
    /// Its runner in the `cargo xtask conformance` matrix.
    pub conformance: Conformance,
}

/// An SDK's conformance runner: a command printing result lines (one JSON
/// object per line and category, see `conformance_runners.rs`).
pub struct Conformance {
    /// True when its toolchain and files exist in this checkout (the repository root).
    pub present: fn(&Path) -> bool,
    /// Installs and builds what the runner needs, inside the repository.
    pub prepare: fn(&Path) -> Result<()>,
    /// The command, run from the repository root.
    pub command: fn(&Path) -> duct::Expression,
    /// The `lang`s of its result lines that must report the `agreement` category.
    pub agreement: &'static [&'static str],
}

/// Every SDK, in the order `build-all` and `test` run them.
pub const SDKS: &[Sdk] = &[
    Sdk {
        name: "c",
        build: crate::sdk_c::build,
        test: crate::sdk_c::test,
        bench: crate::sdk_c::bench,
        conformance: Conformance {
            present: |root| root.join("capi/Cargo.toml").exists() && util::have("cc"),
            prepare: |_| crate::sdk_c::build(),
            command: |_| crate::sdk_c::conformance_command(),
            agreement: &["c"],
        },
    },
    Sdk {
        name: "python",
        build: crate::sdk_python::build,
        test: crate::sdk_python::test,
        bench: crate::sdk_python::bench,
        conformance: Conformance {
            present: |root| {
                root.join("sdk-python/tools/conformance_runner.py").exists()
                    && util::have("python3")
            },
            prepare: |_| crate::sdk_python::prepare_conformance(),
            command: |_| crate::sdk_python::conformance_command(),
            agreement: &["python"],
        },
    },
    Sdk {
        name: "ts",
        build: crate::sdk_ts::build,
        test: crate::sdk_ts::test,
        bench: crate::sdk_ts::bench,
        conformance: Conformance {
            present: |root| root.join("sdk-ts/test/conformance.mjs").exists() && util::have("node"),
            prepare: |_| crate::sdk_ts::prepare_conformance(),
            command: |_| crate::sdk_ts::conformance_command(),
            agreement: &["ts", "ts-native"],
        },
    },
    Sdk {
        name: "kotlin",
        build: crate::sdk_kotlin::build,
        test: crate::sdk_kotlin::test,
        bench: crate::sdk_kotlin::bench,
        conformance: Conformance {
            present: |root| root.join("sdk-kotlin/pom.xml").exists() && util::have("java"),
            prepare: |_| crate::sdk_kotlin::prepare_conformance(),
            command: |_| crate::sdk_kotlin::conformance_command(),
            agreement: &["kotlin"],
        },
    },
];

/// The SDK called `name`.
pub fn find(name: &str) -> Option<&'static Sdk> {
    SDKS.iter().find(|s| s.name == name)
}
