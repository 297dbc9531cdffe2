//! `flexbuf.Builder`: the core builder, call for call, for exact control of
//! the bytes (the same call sequence gives the bytes of the C++ reference).

use flexbuf::{BitWidth, Builder, BuilderOptions, ShareFlags, ValueHandle};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::encode::Encoder;
use crate::errors::{Context, IntoPy};

/// A FlexBuffers builder.
#[pyclass(module = "flexbuf", name = "Builder")]
pub struct PyBuilder {
    inner: Builder,
}

/// A value already pushed, to push again with `Builder.reuse_value` (its bytes are shared).
#[pyclass(frozen, module = "flexbuf", name = "ValueHandle")]
pub struct PyValueHandle {
    handle: ValueHandle,
}

fn element_error(element: &str) -> PyErr {
    PyValueError::new_err(format!(
        "unknown element type {element:?}: expected one of i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, bool"
    ))
}

/// Which of the bulk vector calls to make.
#[derive(Clone, Copy)]
enum Bulk {
    Scalar,
    Fixed,
    Typed,
}

fn bulk<T: flexbuf::Scalar>(b: &mut Builder, how: Bulk, values: &[T]) -> flexbuf::Result<()> {
    match how {
        Bulk::Scalar => b.scalar_vector(values),
        Bulk::Fixed => b.fixed_vector(values),
        Bulk::Typed => {
            b.typed_vector(values);
            Ok(())
        }
    }
}

fn ints<'py, T: TryFrom<i128>>(values: &Bound<'py, PyAny>) -> PyResult<Vec<T>> {
    let mut out = Vec::new();
    for v in values.try_iter()? {
        let i: i128 = v?.extract()?;
        out.push(
            T::try_from(i).map_err(|_| {
                PyOverflowError::new_err(format!("{i} does not fit the element type"))
            })?,
        );
    }
    Ok(out)
}

fn extract_all<'py, T: for<'a> FromPyObject<'a, 'py>>(
    values: &Bound<'py, PyAny>,
) -> PyResult<Vec<T>>
where
    for<'a> PyErr: From<<T as FromPyObject<'a, 'py>>::Error>,
{
    let mut out = Vec::new();
    for v in values.try_iter()? {
        out.push(v?.extract::<T>()?);
    }
    Ok(out)
}

impl PyBuilder {
    fn bulk(
        &mut self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        element: &str,
        how: Bulk,
    ) -> PyResult<()> {
        let b = &mut self.inner;
        let r = match element {
            "i8" => bulk(b, how, &ints::<i8>(values)?),
            "i16" => bulk(b, how, &ints::<i16>(values)?),
            "i32" => bulk(b, how, &ints::<i32>(values)?),
            "i64" => bulk(b, how, &ints::<i64>(values)?),
            "u8" => bulk(b, how, &ints::<u8>(values)?),
            "u16" => bulk(b, how, &ints::<u16>(values)?),
            "u32" => bulk(b, how, &ints::<u32>(values)?),
            "u64" => bulk(b, how, &ints::<u64>(values)?),
            "f32" => {
                let v: Vec<f32> = extract_all::<f64>(values)?
                    .into_iter()
                    .map(|f| f as f32)
                    .collect();
                bulk(b, how, &v)
            }
            "f64" => bulk(b, how, &extract_all::<f64>(values)?),
            "bool" => bulk(b, how, &extract_all::<bool>(values)?),
            other => return Err(element_error(other)),
        };
        r.py_err(py, Context::Encode)
    }
}

#[pymethods]
impl PyBuilder {
    /// A builder; `share_keys` and `share_strings` are the C++ builder's
    /// sharing flags, `dedup_key_vectors` shares one keys vector between maps
    /// with the same keys (an extension the C++ builder does not have).
    #[new]
    #[pyo3(signature = (*, share_keys = true, share_strings = false, dedup_key_vectors = false))]
    fn new(share_keys: bool, share_strings: bool, dedup_key_vectors: bool) -> Self {
        let mut bits = 0;
        if share_keys {
            bits |= ShareFlags::KEYS.bits();
        }
        if share_strings {
            bits |= ShareFlags::STRINGS.bits();
        }
        PyBuilder {
            inner: Builder::with_options(BuilderOptions {
                share: ShareFlags::from_bits(bits),
                dedup_key_vectors,
                ..BuilderOptions::default()
            }),
        }
    }

    /// Pushes null.
    fn null(&mut self) {
        self.inner.null();
    }

    /// Pushes a boolean.
    fn bool(&mut self, value: bool) {
        self.inner.bool(value);
    }

    /// Pushes a signed integer at its minimal width.
    fn int(&mut self, value: i64) {
        self.inner.int(value);
    }

    /// Pushes an unsigned integer at its minimal width.
    fn uint(&mut self, value: u64) {
        self.inner.uint(value);
    }

    /// Pushes a 32-bit float (`value` is rounded to f32).
    fn float(&mut self, value: f64) {
        self.inner.float(value as f32);
    }

    /// Pushes a 64-bit float (stored in 4 bytes when that is exact).
    fn double(&mut self, value: f64) {
        self.inner.double(value);
    }

    /// Pushes a map key (or an element of a key vector).
    fn key(&mut self, value: &str) {
        self.inner.key(value);
    }

    /// Pushes a string.
    fn string(&mut self, value: &str) {
        self.inner.string(value);
    }

    /// Pushes a blob.
    fn blob(&mut self, value: &[u8]) {
        self.inner.blob(value);
    }

    /// Pushes a signed integer stored behind an offset.
    fn indirect_int(&mut self, value: i64) {
        self.inner.indirect_int(value);
    }

    /// Pushes an unsigned integer stored behind an offset.
    fn indirect_uint(&mut self, value: u64) {
        self.inner.indirect_uint(value);
    }

    /// Pushes a 32-bit float stored behind an offset.
    fn indirect_float(&mut self, value: f64) {
        self.inner.indirect_float(value as f32);
    }

    /// Pushes a 64-bit float stored behind an offset (4 bytes when exact).
    fn indirect_double(&mut self, value: f64) {
        self.inner.indirect_double(value);
    }

    /// Pushes any value `dumps` accepts (dict, list, str, int, ...).
    fn add(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        crate::dict_order::with_orders(|orders| {
            Encoder {
                b: &mut self.inner,
                orders,
                default: None,
            }
            .value(value, 0)
        })
        .map_err(|e| e.into_py(py))
    }

    /// Starts a vector (untyped, typed or fixed: decided by `end_vector`).
    fn start_vector(&mut self) {
        self.inner.start_vector();
    }

    /// Ends the innermost vector; `typed` writes one element type and no type
    /// bytes, `fixed` (with `typed`) a fixed vector of 2 to 4 numbers.
    #[pyo3(signature = (typed = false, fixed = false))]
    fn end_vector(&mut self, py: Python<'_>, typed: bool, fixed: bool) -> PyResult<()> {
        self.inner
            .end_vector_as(typed, fixed)
            .py_err(py, Context::Encode)
    }

    /// Starts a map: push key, value, key, value, ... then call `end_map`.
    fn start_map(&mut self) {
        self.inner.start_map();
    }

    /// Ends the innermost map (entries are sorted by key; duplicates are an error).
    fn end_map(&mut self, py: Python<'_>) -> PyResult<()> {
        self.inner.end_map().py_err(py, Context::Encode)
    }

    /// A typed vector of `values` at the minimal width (`element`: `"i8"` ...
    /// `"u64"`, `"f32"`, `"f64"`, `"bool"`).
    fn typed_vector(
        &mut self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        element: &str,
    ) -> PyResult<()> {
        self.bulk(py, values, element, Bulk::Typed)
    }

    /// A typed vector at the element type's natural width, as the C++ `Vector(elems, len)`.
    fn scalar_vector(
        &mut self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        element: &str,
    ) -> PyResult<()> {
        self.bulk(py, values, element, Bulk::Scalar)
    }

    /// A fixed vector of 2 to 4 numbers at the natural width, as the C++ `FixedTypedVector`.
    fn fixed_vector(
        &mut self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        element: &str,
    ) -> PyResult<()> {
        self.bulk(py, values, element, Bulk::Fixed)
    }

    /// Forces elements of later vectors and maps to at least `width` bytes (1, 2, 4 or 8).
    fn force_min_width(&mut self, width: u64) -> PyResult<()> {
        let w = BitWidth::from_bytes(width)
            .ok_or_else(|| PyValueError::new_err("width must be 1, 2, 4 or 8"))?;
        self.inner.force_min_width(w);
        Ok(())
    }

    /// The most recently pushed value, for `reuse_value`; `None` when nothing was pushed.
    fn last_value(&self) -> Option<PyValueHandle> {
        self.inner
            .last_value()
            .map(|handle| PyValueHandle { handle })
    }

    /// Pushes a value captured with `last_value` again (offsets share its bytes).
    fn reuse_value(&mut self, handle: &PyValueHandle) {
        self.inner.reuse_value(handle.handle);
    }

    /// Writes the root and returns the buffer; the builder is then cleared for reuse.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let result = self.inner.finish().map(|b| PyBytes::new(py, b));
        self.inner.clear();
        result.py_err(py, Context::Encode)
    }

    /// Discards everything pushed so far.
    fn clear(&mut self) {
        self.inner.clear();
    }
}
