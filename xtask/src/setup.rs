//! Installs what the tests need on a fresh machine.

use std::path::Path;

use crate::util::{self, Result};

/// The C++ reference header and a compiler, for the differential test and goldens.
pub fn native_toolchain() -> Result<()> {
    let header = Path::new("/usr/include/flatbuffers/flexbuffers.h");
    let mut missing = Vec::new();
    if !header.exists() {
        missing.push("libflatbuffers-dev");
    }
    if !util::have("g++") {
        missing.push("g++");
    }
    if missing.is_empty() {
        return Ok(());
    }
    apt_install(&missing)
}

/// Installs Debian packages (as root directly, otherwise through sudo).
pub fn apt_install(packages: &[&str]) -> Result<()> {
    let is_root = duct::cmd("id", ["-u"])
        .read()
        .map(|s| s.trim() == "0")
        .unwrap_or(false);
    let prefix: Vec<&str> = if is_root {
        vec![]
    } else if util::have("sudo") {
        vec!["sudo"]
    } else {
        return Err(format!(
            "missing packages {packages:?}: install them with apt-get (needs root)"
        )
        .into());
    };
    let run = |args: Vec<&str>| -> Result<()> {
        let mut all = prefix.clone();
        all.extend(args);
        util::step(
            &all.join(" "),
            duct::cmd(all[0], &all[1..]).env("DEBIAN_FRONTEND", "noninteractive"),
        )
    };
    run(vec!["apt-get", "update", "-q"])?;
    let mut install = vec!["apt-get", "install", "-y", "-q"];
    install.extend(packages);
    run(install)
}
