//! The native core of the `flexbuf` Python package (`flexbuf._native`).
//!
//! Every entry point crosses into Rust once and does all of its work here:
//! `loads` checks the bytes as it builds the Python objects natively; `dumps`
//! walks the objects and writes the buffer; typed models decode and encode
//! through a compiled schema.

mod buffers;
mod builder;
mod decode;
mod dict_fill;
mod dict_models;
mod dict_order;
mod encode;
mod errors;
mod expand;
mod generate;
mod input;
mod key_memo;
mod pyint;
mod pystr;
mod reference;
mod typed;

use std::cell::RefCell;

use flexbuf::{Builder, BuilderOptions, JsonOptions, ShareFlags};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::encode::Encoder;
use crate::errors::{Context, IntoPy};

thread_local! {
    /// One reusable builder per thread and sharing mode, so `dumps` does not
    /// allocate a fresh buffer each call. What a builder keeps between calls
    /// is capped by the core: 1 MiB each of the buffer, the value stack and
    /// the pools, or after a call that wrote `n` bytes up to `32 * n` of each
    /// (at most [`LARGE_RETAINED`]).
    static BUILDERS: [RefCell<Builder>; 2] = [
        RefCell::new(dumps_builder(ShareFlags::KEYS)),
        RefCell::new(dumps_builder(ShareFlags::KEYS_AND_STRINGS)),
    ];
}

/// What a `dumps` builder keeps of its buffer, value stack and each pool
/// while one large buffer follows another: a dict of 50,000 keys encoded
/// again took 3.5 ms where, its memory allocated and faulted in anew, it took
/// 5.5 ms (`tools/large_dicts.py`). (The generated classes' builder keeps
/// as much through `flexbuf::typed::typed_builder_options`.)
const LARGE_RETAINED: usize = 256 << 20;

/// A builder for `dumps`, sharing keys (and strings) as `share` says.
fn dumps_builder(share: ShareFlags) -> Builder {
    Builder::with_options(BuilderOptions {
        share,
        large_retained_capacity: LARGE_RETAINED,
        ..BuilderOptions::default()
    })
}

fn encode_with(
    py: Python<'_>,
    b: &mut Builder,
    obj: &Bound<'_, PyAny>,
    default: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyBytes>> {
    b.clear();
    dict_order::with_orders(|orders| {
        Encoder {
            b: &mut *b,
            orders,
            default,
        }
        .value(obj, 0)
    })
    .map_err(|e| e.into_py(py))?;
    let bytes = b.finish().py_err(py, Context::Encode)?;
    Ok(PyBytes::new(py, bytes).unbind())
}

/// Encodes `obj` (dict, list, tuple, str, int, float, bool, None, bytes, numeric
/// buffers) as a FlexBuffer. Equal keys are always written once; equal strings
/// too when `share_strings` is true. `default`, when given, is called with
/// each object of another type, and what it returns is written instead (as
/// `json.dumps` and orjson do); an exception it raises propagates.
#[pyfunction]
#[pyo3(signature = (obj, *, share_strings = false, default = None))]
fn dumps(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    share_strings: bool,
    default: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyBytes>> {
    if let Some(f) = default {
        if !f.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "default must be callable, not {}",
                f.get_type().name()?
            )));
        }
    }
    BUILDERS.with(|builders| {
        let cell = &builders[share_strings as usize];
        match cell.try_borrow_mut() {
            Ok(mut b) => encode_with(py, &mut b, obj, default),
            // Re-entered from inside an encode (a buffer exporter calling back): use a fresh builder.
            Err(_) => {
                let share = if share_strings {
                    ShareFlags::KEYS_AND_STRINGS
                } else {
                    ShareFlags::KEYS
                };
                encode_with(py, &mut Builder::with_share(share), obj, default)
            }
        }
    })
}

/// Checks `data` as the verifier does and expands it into Python objects
/// (maps → dict, vectors → list, ...), under the expansion budget, in one
/// pass (see `expand`).
#[pyfunction]
fn loads<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let owner = input::to_bytes(data)?;
    expand::loads(py, input::slice(&owner))
}

/// A lazy view of the root of `data`. With `verify=True` the whole buffer is
/// verified first; otherwise every read is checked as it happens.
#[pyfunction]
#[pyo3(signature = (data, *, verify = false))]
fn read(data: &Bound<'_, PyAny>, verify: bool) -> PyResult<reference::Reference> {
    reference::Reference::open(data, verify)
}

/// Raises `ValidationError` (with the offset) unless `data` is a valid FlexBuffer.
#[pyfunction]
fn validate(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
    let owner = input::to_bytes(data)?;
    input::verify_bytes(py, input::slice(&owner))?;
    Ok(())
}

/// The buffer as JSON text (verified first; blobs become base64 strings).
#[pyfunction]
#[pyo3(signature = (data, *, pretty = false))]
fn to_json(py: Python<'_>, data: &Bound<'_, PyAny>, pretty: bool) -> PyResult<String> {
    let owner = input::to_bytes(data)?;
    let bytes = input::slice(&owner);
    let options = JsonOptions {
        pretty,
        ..JsonOptions::default()
    };
    let result = if bytes.len() >= input::DETACH_THRESHOLD {
        py.detach(|| flexbuf::json::to_json_with(bytes, &options))
    } else {
        flexbuf::json::to_json_with(bytes, &options)
    };
    // Verifier errors stay `ValidationError`; NaN/infinity become `JsonError`.
    result.py_err(py, Context::Decode)
}

/// Parses JSON text (`str`, or UTF-8 `bytes`) straight into a FlexBuffer.
#[pyfunction]
#[pyo3(signature = (text, *, share_strings = false))]
fn from_json<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    share_strings: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let options = JsonOptions {
        share: if share_strings {
            ShareFlags::KEYS_AND_STRINGS
        } else {
            ShareFlags::KEYS
        },
        ..JsonOptions::default()
    };
    let owned;
    let s: &str = if let Ok(s) = text.cast::<PyString>() {
        s.to_str()?
    } else {
        let raw = input::to_bytes(text)?;
        owned = String::from_utf8(raw.as_bytes().to_vec()).map_err(|e| {
            errors::new_err(
                py,
                errors::Class::Json,
                format!("JSON text is not UTF-8: {e}"),
                "Json",
                Some(e.utf8_error().valid_up_to()),
                None,
                None,
            )
        })?;
        &owned
    };
    let out = flexbuf::json::from_json_with(s, &options).py_err(py, Context::Json)?;
    Ok(PyBytes::new(py, &out))
}

/// Whether `int` objects of up to two digits are read straight from the
/// object on this interpreter (see `pyint.rs`); for tests.
#[pyfunction]
fn _direct_int_reads() -> bool {
    pyint::layout_ok()
}

/// Turns the one-pass writing of `[string]` fields by generated classes on
/// or off (with `enabled`), and says whether it is on; for tests, which
/// compare its bytes and errors with the element-by-element path.
#[pyfunction]
#[pyo3(signature = (enabled=None))]
fn _bulk_string_lists(enabled: Option<bool>) -> bool {
    typed::bulk_string_lists(enabled)
}

/// The buffer capacity this thread's builder for generated classes'
/// `encode` keeps between calls (`None` while an encode runs); for tests of
/// what a large message leaves behind.
#[pyfunction]
fn _typed_encode_capacity() -> Option<usize> {
    typed::typed_encode_capacity()
}

/// The `flexbuf._native` module.
#[pymodule(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(to_json, m)?)?;
    m.add_function(wrap_pyfunction!(from_json, m)?)?;
    m.add_function(wrap_pyfunction!(_direct_int_reads, m)?)?;
    m.add_function(wrap_pyfunction!(_bulk_string_lists, m)?)?;
    m.add_function(wrap_pyfunction!(_typed_encode_capacity, m)?)?;
    m.add_function(wrap_pyfunction!(typed::compile_schema, m)?)?;
    m.add_function(wrap_pyfunction!(generate::generate, m)?)?;
    m.add_function(wrap_pyfunction!(generate::languages, m)?)?;
    m.add_class::<reference::Reference>()?;
    m.add_class::<reference::ReferenceIter>()?;
    m.add_class::<builder::PyBuilder>()?;
    m.add_class::<builder::PyValueHandle>()?;
    m.add_class::<typed::CompiledSchema>()?;
    Ok(())
}
