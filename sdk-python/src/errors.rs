//! Core errors as Python exceptions.
//!
//! The exception classes live in `flexbuf/_errors.py` (so they can inherit
//! from both `FlexError` and the matching built-in exception); this module
//! imports them once and raises them with the error's kind, offset and path.

use flexbuf::{Error, ErrorClass, ErrorKind};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule};

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The exception classes of `flexbuf._errors`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `DecodeError`: bytes that cannot become the requested value.
    Decode,
    /// `ValidationError`: rejected by the verifier.
    Validation,
    /// `BudgetError`: expansion budget exceeded.
    Budget,
    /// `SchemaError`: typed data does not fit the schema.
    Schema,
    /// `JsonError`.
    Json,
    /// `EncodeError`.
    Encode,
    /// `EncodeTypeError`.
    EncodeType,
    /// `EncodeOverflowError`.
    EncodeOverflow,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Decode => "DecodeError",
            Class::Validation => "ValidationError",
            Class::Budget => "BudgetError",
            Class::Schema => "SchemaError",
            Class::Json => "JsonError",
            Class::Encode => "EncodeError",
            Class::EncodeType => "EncodeTypeError",
            Class::EncodeOverflow => "EncodeOverflowError",
        }
    }
}

/// Where an error came from, which decides its Python class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Reading bytes (verify, loads, Reference).
    Decode,
    /// Typed decoding with a schema.
    Typed,
    /// JSON text in or out.
    Json,
    /// Building bytes.
    Encode,
}

/// The exception class of a core error in context `cx`, from the core's
/// classification.
fn class_for(kind: &ErrorKind, cx: Context) -> Class {
    match (kind.class(), cx) {
        (ErrorClass::Budget, _) => Class::Budget,
        (ErrorClass::Builder, _) => Class::Encode,
        (ErrorClass::Json, _) | (_, Context::Json) => Class::Json,
        (_, Context::Encode) => Class::Encode,
        (
            ErrorClass::Type | ErrorClass::Range | ErrorClass::Schema | ErrorClass::Typed,
            Context::Typed,
        ) => Class::Schema,
        (ErrorClass::InvalidBuffer, _) => Class::Validation,
        _ => Class::Decode,
    }
}

/// Builds an exception of `class` with its attributes set.
pub fn new_err(
    py: Python<'_>,
    class: Class,
    message: String,
    kind: &str,
    offset: Option<usize>,
    path: Option<String>,
    reason: Option<&str>,
) -> PyErr {
    let built = (|| -> PyResult<PyErr> {
        let module = ERRORS.get_or_try_init(py, || {
            PyModule::import(py, "flexbuf._errors").map(Bound::unbind)
        })?;
        let cls = module.bind(py).getattr(class.name())?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("kind", kind)?;
        kwargs.set_item("offset", offset)?;
        kwargs.set_item("path", path)?;
        if let Some(r) = reason {
            kwargs.set_item("reason", r)?;
        }
        let exc = cls.call((message,), Some(&kwargs))?;
        Ok(PyErr::from_value(exc))
    })();
    built.unwrap_or_else(|e| e)
}

/// The Python exception for a core error raised in context `cx`.
pub fn to_py(py: Python<'_>, e: &Error, cx: Context) -> PyErr {
    let class = class_for(e.kind(), cx);
    // `SchemaError.reason`: the core's language-neutral reason, `type` for the rest.
    let reason = (class == Class::Schema).then(|| e.kind().typed_reason().unwrap_or("type"));
    new_err(
        py,
        class,
        e.to_string(),
        e.kind().name(),
        e.offset(),
        e.path(),
        reason,
    )
}

/// Extension to convert `flexbuf::Result` into `PyResult`.
pub trait IntoPy<T> {
    /// Maps the error with [`to_py`].
    fn py_err(self, py: Python<'_>, cx: Context) -> PyResult<T>;
}

impl<T> IntoPy<T> for flexbuf::Result<T> {
    fn py_err(self, py: Python<'_>, cx: Context) -> PyResult<T> {
        self.map_err(|e| to_py(py, &e, cx))
    }
}
