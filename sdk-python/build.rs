//! Exposes the interpreter's version cfgs (`Py_3_11`, `Py_3_14`, ...) to this
//! crate, so version-specific C-API calls can be chosen at build time, and
//! sets `dict_layout_known` for the interpreters whose dict key table
//! `src/dict_fill.rs` describes (CPython 3.11 to 3.13 with the GIL, not
//! the stable ABI).
use pyo3_build_config::{GilUsed, PythonAbiKind, PythonImplementation};

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
    println!("cargo::rustc-check-cfg=cfg(dict_layout_known)");
    let config = pyo3_build_config::get();
    let version = config.version();
    let known = config.implementation() == PythonImplementation::CPython
        && config.target_abi().kind() == PythonAbiKind::VersionSpecific(GilUsed::GilEnabled)
        && version.major == 3
        && (11..=13).contains(&version.minor);
    if known {
        println!("cargo:rustc-cfg=dict_layout_known");
    }
}
