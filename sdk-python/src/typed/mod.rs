//! Typed models: generated Python classes decoded and encoded natively.
//!
//! A generated module hands its compiled schema (`Schema::to_bytes()`) and its
//! classes to [`compile_schema`] once, at import. `Model.decode(data)` and
//! `model.encode()` then cross into Rust once each; objects are built and read
//! here, following the wire contract of `flexbuf::typed` exactly (the bytes
//! equal those of the Rust generated encoder for the same values):
//!
//! - fields in wire order, every field written (null for absent optionals),
//!   one keys vector per message type per buffer;
//! - decode by position only after the keys vector is proven to be the
//!   expected one, otherwise by key; absent optional → default, explicit null
//!   → `None`, absent required → `SchemaError` naming the path, null in a
//!   non-optional field → `SchemaError`, unknown fields ignored.
//!
//! Generated classes keep their fields in `__slots__`, listed in wire order.
//! Decoding allocates the instance without calling `__init__` and stores each
//! field straight into its slot; encoding reads the slots the same way.

use std::collections::HashMap;

use flexbuf::schema::{
    short_name, Absent as SchemaAbsent, Compiled, DefaultValue, Schema, TypeRef,
};
use flexbuf::typed::{
    field, lookup_field, missing, typed_builder_options, unexpected_null, union_entry,
    unknown_enum, unknown_variant, DecodeContext, EncodeContext, RuntimeLayout,
};
use flexbuf::{Builder, Error, ErrorKind, PathSegment, Reader};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMapping, PyString, PyTuple, PyType};
use std::cell::RefCell;

use crate::decode::{bool_obj, float_obj, int_obj, str_obj, uint_obj};
use crate::encode::{map_key, push_str_items, type_name, utf8, EncodeFail};
use crate::errors::{to_py, Class, Context, IntoPy};
use crate::input;
use crate::pystr::KeyGuard;

/// A field or element type, with named types resolved to indices.
#[derive(Clone, Debug)]
enum Ty {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    Str,
    Bytes,
    Vec(Box<Ty>),
    /// `[el; len]`; `fixed`: written as a fixed typed vector.
    Array {
        el: Box<Ty>,
        len: usize,
        fixed: bool,
    },
    Map(Box<Ty>),
    Msg(usize),
    Enum(usize),
    Union(usize),
}

impl Ty {
    /// The values an integer type holds, as `i64` (`u64`'s only up to
    /// `i64::MAX`: larger ones are read as unsigned); `None` for other types.
    #[inline(always)]
    fn int_range(&self) -> Option<(i64, i64)> {
        Some(match self {
            Ty::I8 => (i8::MIN.into(), i8::MAX.into()),
            Ty::I16 => (i16::MIN.into(), i16::MAX.into()),
            Ty::I32 => (i32::MIN.into(), i32::MAX.into()),
            Ty::I64 => (i64::MIN, i64::MAX),
            Ty::U8 => (0, u8::MAX.into()),
            Ty::U16 => (0, u16::MAX.into()),
            Ty::U32 => (0, u32::MAX.into()),
            Ty::U64 => (0, i64::MAX),
            _ => return None,
        })
    }

    fn name(&self, s: &CompiledSchema) -> String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 => {
                "int".into()
            }
            Ty::F32 | Ty::F64 => "float".into(),
            Ty::Str => "str".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Vec(e) => format!("list[{}]", e.name(s)),
            Ty::Array { el, .. } => format!("tuple[{}, ...]", el.name(s)),
            Ty::Map(e) => format!("dict[str, {}]", e.name(s)),
            Ty::Msg(i) => s.msgs[*i].short.clone(),
            Ty::Enum(i) => s.enums[*i].short.clone(),
            Ty::Union(i) => s.unions[*i].short.clone(),
        }
    }
}

/// The value an absent field takes.
enum Absent {
    /// An immutable value (number, string, enum member, `None`).
    Value(Py<PyAny>),
    /// A new empty list each time.
    EmptyList,
    /// A new empty dict each time.
    EmptyDict,
    /// Required: absence is an error.
    Missing,
}

struct FieldIr {
    wire: String,
    attr: String,
    offset: isize,
    ty: Ty,
    optional: bool,
    absent: Absent,
}

struct MsgIr {
    short: String,
    class: Py<PyType>,
    fields: Vec<FieldIr>,
    /// The wire names in wire order, checked once: the keys vector written
    /// on encode and proven on decode.
    layout: RuntimeLayout,
}

struct EnumIr {
    /// The unqualified name, also the name in errors.
    short: String,
    members: EnumMembers,
    by_name: HashMap<String, i64>,
    first: Option<i64>,
}

struct VariantIr {
    wire: String,
    ty: Ty,
    class: Py<PyType>,
    offset: isize,
}

struct UnionIr {
    /// The unqualified name, also the name in errors.
    short: String,
    variants: Vec<VariantIr>,
}

/// A schema compiled against the classes of one generated module.
#[pyclass(frozen, module = "flexbuf", name = "CompiledSchema")]
pub struct CompiledSchema {
    schema: Schema,
    msgs: Vec<MsgIr>,
    enums: Vec<EnumIr>,
    unions: Vec<UnionIr>,
    by_name: HashMap<String, usize>,
}

mod compile;
mod decode;
mod encode;
mod enum_members;
mod slots;

pub use compile::compile_schema;
use decode::*;
use encode::*;
pub(crate) use encode::{bulk_string_lists, typed_encode_capacity};
use enum_members::EnumMembers;
use slots::*;

impl CompiledSchema {
    /// The root type of index `index`: messages first, then unions.
    fn root_type(&self, index: usize) -> PyResult<Ty> {
        if index < self.msgs.len() {
            Ok(Ty::Msg(index))
        } else if index - self.msgs.len() < self.unions.len() {
            Ok(Ty::Union(index - self.msgs.len()))
        } else {
            Err(PyValueError::new_err("type index out of range"))
        }
    }
}

#[pymethods]
impl CompiledSchema {
    /// The index of the message or union `name` (qualified), for `decode` and `encode`.
    fn index(&self, name: &str) -> PyResult<usize> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| PyKeyError::new_err(format!("no message or union {name} in the schema")))
    }

    /// Qualified names of the messages, in index order.
    #[getter]
    fn messages(&self) -> Vec<String> {
        self.schema
            .messages
            .iter()
            .map(|m| m.name.clone())
            .collect()
    }

    /// The wire names of message `index`'s fields, in wire order (the order of
    /// its class's `__slots__`).
    fn wire_names(&self, index: usize) -> PyResult<Vec<String>> {
        let m = self
            .msgs
            .get(index)
            .ok_or_else(|| PyValueError::new_err("message index out of range"))?;
        Ok(m.fields.iter().map(|f| f.wire.clone()).collect())
    }

    /// The 64-bit fingerprint of message `index`'s wire contract.
    fn fingerprint(&self, index: usize) -> PyResult<u64> {
        let m = self
            .schema
            .messages
            .get(index)
            .ok_or_else(|| PyValueError::new_err("message index out of range"))?;
        Ok(self.schema.fingerprint(&m.name).unwrap_or(0))
    }

    /// Decodes the root of untrusted `data` as message or union `index` (one
    /// native call): in one checked pass, as the Rust generated `from_flex`
    /// does (every read checked, depth and budget bounded; for every buffer
    /// the verifier accepts the result is that of `strict`), or, with
    /// `strict`, after verifying the whole buffer.
    ///
    /// The one-pass decode builds Python objects as it reads, so it holds the
    /// GIL throughout; the strict one releases it while verifying large buffers.
    #[pyo3(signature = (index, data, strict = false))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        index: usize,
        data: &Bound<'py, PyAny>,
        strict: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ty = self.root_type(index)?;
        let owner = input::to_bytes(data)?;
        let bytes = input::slice(&owner);
        let root = if strict {
            input::verify_bytes(py, bytes)?.root()
        } else {
            Reader::new(bytes).py_err(py, Context::Decode)?
        };
        let mut d = Decoder {
            s: self,
            py,
            cx: DecodeContext::new(bytes.len()),
            keys: KeyGuard::take(py),
        };
        d.value(&ty, root).map_err(|f| match f {
            DFail::Core(e) => to_py(py, &e, Context::Typed),
            DFail::Py(e) => e,
        })
    }

    /// Encodes `obj`, an instance of message (or union variant) `index`'s class, as a buffer.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        index: usize,
        obj: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let ty = self.root_type(index)?;
        let run = |state: &mut TypedEncodeState| -> PyResult<Bound<'py, PyBytes>> {
            let TypedEncodeState(b, cx, entries, key_vectors, keys) = state;
            b.clear();
            keys.release();
            cx.clear();
            entries.clear();
            key_vectors.clear();
            key_vectors.resize(self.msgs.len(), None);
            let mut e = Encoder {
                py,
                s: self,
                b,
                cx,
                entries,
                key_vectors,
                keys,
            };
            let written = e.value(&ty, obj);
            // The references the key memo took go at the end of every
            // encode, failed or not.
            keys.release();
            written.map_err(|f| f.into_py(py))?;
            let out = b.finish().py_err(py, Context::Encode)?;
            Ok(PyBytes::new(py, out))
        };
        // A class's `encode` can run inside another's (a field type's
        // custom method): the inner call then gets a state of its own.
        TYPED_ENCODE.with(|cell| match cell.try_borrow_mut() {
            Ok(mut state) => run(&mut state),
            Err(_) => run(&mut TypedEncodeState::new()),
        })
    }
}
