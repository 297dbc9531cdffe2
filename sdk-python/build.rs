//! Exposes the interpreter's version cfgs (`Py_3_11`, `Py_3_14`, ...) to this
//! crate, so version-specific C-API calls can be chosen at build time.
fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
