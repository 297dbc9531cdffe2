//! Core errors as Python exceptions.
//!
//! The exception classes live in `flexbuf/_errors.py` (so they can inherit
//! from both `FlexError` and the matching built-in exception); this module
//! imports them once and raises them with the error's kind, offset and path.

use flexbuf::{Error, ErrorKind};
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

/// The `ErrorKind` variant name, as exposed in `FlexError.kind`.
pub fn kind_name(kind: &ErrorKind) -> &'static str {
    use ErrorKind::*;
    match kind {
        Truncated => "Truncated",
        OffsetOutOfBounds => "OffsetOutOfBounds",
        BadWidth(_) => "BadWidth",
        UnknownType(_) => "UnknownType",
        SizeOutOfBounds => "SizeOutOfBounds",
        DepthLimit(_) => "DepthLimit",
        Cycle => "Cycle",
        InvalidUtf8 => "InvalidUtf8",
        MissingNul => "MissingNul",
        UnsortedKeys => "UnsortedKeys",
        KeyValueLengthMismatch { .. } => "KeyValueLengthMismatch",
        TypeMismatch { .. } => "TypeMismatch",
        OutOfRange => "OutOfRange",
        IndexOutOfBounds { .. } => "IndexOutOfBounds",
        KeyNotFound => "KeyNotFound",
        BudgetExceeded => "BudgetExceeded",
        Builder(_) => "Builder",
        Json(_) => "Json",
        NonFiniteFloat => "NonFiniteFloat",
        Schema(_) => "Schema",
        MissingField => "MissingField",
        UnexpectedNull => "UnexpectedNull",
        UnknownEnumValue { .. } => "UnknownEnumValue",
        UnknownUnionVariant { .. } => "UnknownUnionVariant",
        UnionEntryCount { .. } => "UnionEntryCount",
        Message(_) => "Message",
        Envelope(_) => "Envelope",
        _ => "Other",
    }
}

/// The language-neutral class of a typed decode error (`SchemaError.reason`),
/// with the wording the core's typed runtime and generated coders use.
pub fn typed_reason(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::TypeMismatch { .. } => "type",
        ErrorKind::OutOfRange => "range",
        ErrorKind::MissingField => "missing",
        ErrorKind::UnexpectedNull => "null",
        ErrorKind::UnknownEnumValue { .. } => "enum",
        ErrorKind::UnknownUnionVariant { .. } | ErrorKind::UnionEntryCount { .. } => "union",
        ErrorKind::Schema(m) if m == "required field is missing" => "missing",
        ErrorKind::Schema(m) if m.starts_with("null for a field") => "null",
        ErrorKind::Schema(m) if m.contains(" is not a value of enum ") => "enum",
        ErrorKind::Schema(m) if m.starts_with("union ") || m.starts_with("unknown variant ") => {
            "union"
        }
        _ => "type",
    }
}

fn class_for(kind: &ErrorKind, cx: Context) -> Class {
    use ErrorKind::*;
    match (kind, cx) {
        (BudgetExceeded, _) => Class::Budget,
        (Builder(_), _) => Class::Encode,
        (Json(_) | NonFiniteFloat, _) => Class::Json,
        (_, Context::Json) => Class::Json,
        (_, Context::Encode) => Class::Encode,
        (
            TypeMismatch { .. }
            | OutOfRange
            | Schema(_)
            | MissingField
            | UnexpectedNull
            | UnknownEnumValue { .. }
            | UnknownUnionVariant { .. }
            | UnionEntryCount { .. },
            Context::Typed,
        ) => Class::Schema,
        (
            Truncated
            | OffsetOutOfBounds
            | BadWidth(_)
            | UnknownType(_)
            | SizeOutOfBounds
            | DepthLimit(_)
            | Cycle
            | InvalidUtf8
            | MissingNul
            | UnsortedKeys
            | KeyValueLengthMismatch { .. },
            _,
        ) => Class::Validation,
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
    let reason = (class == Class::Schema).then(|| typed_reason(e.kind()));
    new_err(
        py,
        class,
        e.to_string(),
        kind_name(e.kind()),
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
