//! `flexbuf._native.generate` and `languages`: the Rust code generator inside
//! the wheel, behind `python -m flexbuf gen` (no Rust toolchain needed).

use std::path::PathBuf;

use flexbuf_codegen::request::{GenError, GenRequest};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Generates coders for `lang` from the schema file `schema` into `output`;
/// returns the paths written. A bad request or a schema with errors raises
/// `ValueError` with the generator's diagnostics (`file:line:column: ...`).
#[pyfunction]
#[pyo3(signature = (lang, schema, output, ts_int64 = None))]
pub fn generate(
    py: Python<'_>,
    lang: &str,
    schema: PathBuf,
    output: PathBuf,
    ts_int64: Option<&str>,
) -> PyResult<Vec<PathBuf>> {
    let request = GenRequest {
        lang,
        schema: &schema,
        output: &output,
        ts_int64,
    };
    // Pure Rust work on the file system: other threads may run meanwhile.
    py.detach(|| request.run()).map_err(|e| match e {
        GenError::Usage(m) | GenError::Schema(m) => PyValueError::new_err(m),
    })
}

/// `(name, summary)` of every language the generator knows.
#[pyfunction]
pub fn languages() -> Vec<(&'static str, &'static str)> {
    flexbuf_codegen::request::languages()
}
