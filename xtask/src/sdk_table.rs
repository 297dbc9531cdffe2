//! The SDKs, as data: every per-language step of `build-all`, `test` and
//! `bench` comes from this one table, so a new language is one entry.

use crate::util::Result;

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
}

/// Every SDK, in the order `build-all` and `test` run them.
pub const SDKS: &[Sdk] = &[
    Sdk {
        name: "c",
        build: crate::sdk_c::build,
        test: crate::sdk_c::test,
        bench: crate::sdk_c::bench,
    },
    Sdk {
        name: "python",
        build: crate::sdk_python::build,
        test: crate::sdk_python::test,
        bench: crate::sdk_python::bench,
    },
    Sdk {
        name: "ts",
        build: crate::sdk_ts::build,
        test: crate::sdk_ts::test,
        bench: crate::sdk_ts::bench,
    },
    Sdk {
        name: "kotlin",
        build: crate::sdk_kotlin::build,
        test: crate::sdk_kotlin::test,
        bench: crate::sdk_kotlin::bench,
    },
];

/// The SDK called `name`.
pub fn find(name: &str) -> Option<&'static Sdk> {
    SDKS.iter().find(|s| s.name == name)
}
