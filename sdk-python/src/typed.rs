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

use flexbuf::schema::{short_name, Absent as SchemaAbsent, DefaultValue, Schema, TypeRef};
use flexbuf::typed::{
    field, lookup, missing, typed_builder_options, unexpected_null, union_entry, unknown_enum,
    unknown_variant, DecodeContext, EncodeContext,
};
use flexbuf::{Builder, Error, ErrorKind, PathSegment, Reader};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMapping, PyString, PyTuple, PyType};
use std::cell::RefCell;

use crate::decode::{bool_obj, float_obj, int_obj, str_obj, uint_obj};
use crate::encode::{type_name, utf8, EncodeFail};
use crate::errors::{to_py, Class, Context, IntoPy};
use crate::input;

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
    Map(Box<Ty>),
    Msg(usize),
    Enum(usize),
    Union(usize),
}

impl Ty {
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
    /// Wire names in wire order. `key_strs` borrows these strings.
    _keys: Vec<String>,
    key_strs: Vec<&'static str>,
}

struct EnumIr {
    short: String,
    /// The name for core errors, which take `&'static str` (leaked once per compile).
    error_name: &'static str,
    members: HashMap<i64, Py<PyAny>>,
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
    short: String,
    /// The name for core errors (leaked once per compile).
    error_name: &'static str,
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

/// The byte offset of the object slot `attr` of `class` (a `__slots__` member).
fn slot_offset(class: &Bound<'_, PyType>, attr: &str) -> PyResult<isize> {
    let descr = class.getattr(attr)?;
    // SAFETY: the type check guarantees `descr` is a PyMemberDescrObject, whose
    // `d_member` points at the member definition of the slot.
    unsafe {
        let ty = ffi::Py_TYPE(descr.as_ptr());
        if ty != std::ptr::addr_of_mut!(ffi::PyMemberDescr_Type) {
            return Err(PyTypeError::new_err(format!(
                "{}.{attr} must be a __slots__ attribute",
                class.name()?
            )));
        }
        let member = (*(descr.as_ptr() as *mut ffi::PyMemberDescrObject)).d_member;
        if member.is_null()
            || (*member).type_code != ffi::Py_T_OBJECT_EX
            || ((*member).flags & ffi::Py_READONLY) != 0
        {
            return Err(PyTypeError::new_err(format!(
                "{}.{attr} must be a writable object slot",
                class.name()?
            )));
        }
        Ok((*member).offset)
    }
}

/// Stores `value` (a new reference, consumed) into the slot at `offset` of `obj`.
///
/// # Safety
/// `offset` must come from [`slot_offset`] for `obj`'s class or a base of it.
#[inline]
unsafe fn set_slot(obj: &Bound<'_, PyAny>, offset: isize, value: Bound<'_, PyAny>) {
    // SAFETY: per the contract, `offset` addresses a PyObject* slot inside `obj`.
    unsafe {
        let p = (obj.as_ptr() as *mut u8).offset(offset) as *mut *mut ffi::PyObject;
        let old = *p;
        *p = value.into_ptr();
        ffi::Py_XDECREF(old);
    }
}

/// The value in the slot at `offset` of `obj`, or `None` when it is unset.
///
/// # Safety
/// As for [`set_slot`].
#[inline]
unsafe fn get_slot<'py>(obj: &Bound<'py, PyAny>, offset: isize) -> Option<Bound<'py, PyAny>> {
    // SAFETY: per the contract; the slot holds a strong reference or NULL.
    unsafe {
        let p = (obj.as_ptr() as *mut u8).offset(offset) as *mut *mut ffi::PyObject;
        let v = *p;
        if v.is_null() {
            None
        } else {
            Some(Bound::from_borrowed_ptr(obj.py(), v))
        }
    }
}

/// A new instance of `class` with every slot empty (`__init__` is not called).
fn alloc<'py>(py: Python<'py>, class: &Py<PyType>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: tp_alloc of a heap type allocates a zeroed, GC-tracked instance.
    unsafe {
        let tp = class.as_ptr() as *mut ffi::PyTypeObject;
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        Bound::from_owned_ptr_or_err(py, alloc(tp, 0))
    }
}

// ---- compiling ------------------------------------------------------------------

/// A name kept for the life of the process: the core's typed errors name the
/// enum or union with a `&'static str`. A generated module compiles its schema
/// once, so this leaks a few bytes per imported module.
fn leak(name: &str) -> &'static str {
    Box::leak(name.to_string().into_boxed_str())
}

struct Names {
    msgs: HashMap<String, usize>,
    enums: HashMap<String, usize>,
    unions: HashMap<String, usize>,
}

fn resolve(t: &TypeRef, n: &Names) -> PyResult<Ty> {
    let unknown = |kind: &str, name: &str| PyValueError::new_err(format!("unknown {kind} {name}"));
    Ok(match t {
        TypeRef::Bool => Ty::Bool,
        TypeRef::I8 => Ty::I8,
        TypeRef::I16 => Ty::I16,
        TypeRef::I32 => Ty::I32,
        TypeRef::I64 => Ty::I64,
        TypeRef::U8 => Ty::U8,
        TypeRef::U16 => Ty::U16,
        TypeRef::U32 => Ty::U32,
        TypeRef::U64 => Ty::U64,
        TypeRef::F32 => Ty::F32,
        TypeRef::F64 => Ty::F64,
        TypeRef::String => Ty::Str,
        TypeRef::Bytes => Ty::Bytes,
        TypeRef::Vector(e) => Ty::Vec(Box::new(resolve(e, n)?)),
        TypeRef::Map(e) => Ty::Map(Box::new(resolve(e, n)?)),
        TypeRef::Message(m) => Ty::Msg(*n.msgs.get(m).ok_or_else(|| unknown("message", m))?),
        TypeRef::Enum(m) => Ty::Enum(*n.enums.get(m).ok_or_else(|| unknown("enum", m))?),
        TypeRef::Union(m) => Ty::Union(*n.unions.get(m).ok_or_else(|| unknown("union", m))?),
    })
}

fn class_for<'py>(classes: &Bound<'py, PyMapping>, name: &str) -> PyResult<Bound<'py, PyType>> {
    let c = classes
        .get_item(name)
        .map_err(|_| PyKeyError::new_err(format!("no class given for {name}")))?;
    Ok(c.cast_into::<PyType>()?)
}

/// The Python value of an absent field, from the core's one definition
/// ([`flexbuf::schema::Absent`]: `f32` defaults already rounded, integer
/// defaults of float fields already floats).
fn absent_value(
    py: Python<'_>,
    s: &CompiledSchema,
    f: &flexbuf::schema::Field,
    ty: &Ty,
) -> PyResult<Absent> {
    let value = |o: Bound<'_, PyAny>| Ok(Absent::Value(o.unbind()));
    let enum_member = |i: usize, v: Option<i64>| match v.and_then(|v| s.enums[i].members.get(&v)) {
        Some(m) => value(m.bind(py).clone()),
        None => Ok(Absent::Missing),
    };
    match (SchemaAbsent::of(f), ty) {
        (SchemaAbsent::Required, _) => Ok(Absent::Missing),
        (SchemaAbsent::Null, _) => value(py.None().into_bound(py)),
        (SchemaAbsent::Zero, Ty::Bool) => value(bool_obj(py, false)),
        (SchemaAbsent::Zero, Ty::F32 | Ty::F64) => value(float_obj(py, 0.0)),
        (SchemaAbsent::Zero, Ty::Str) => value(PyString::new(py, "").into_any()),
        (SchemaAbsent::Zero, Ty::Bytes) => value(PyBytes::new(py, b"").into_any()),
        (SchemaAbsent::Zero, Ty::Vec(_)) => Ok(Absent::EmptyList),
        (SchemaAbsent::Zero, Ty::Map(_)) => Ok(Absent::EmptyDict),
        (SchemaAbsent::Zero, Ty::Enum(i)) => enum_member(*i, s.enums[*i].first),
        (SchemaAbsent::Zero, Ty::Msg(_) | Ty::Union(_)) => Ok(Absent::Missing),
        (SchemaAbsent::Zero, _) => value(int_obj(py, 0)),
        (SchemaAbsent::Default(d), _) => match (d, ty) {
            (DefaultValue::Bool(b), _) => value(bool_obj(py, b)),
            (DefaultValue::Float(x), _) => value(float_obj(py, x)),
            (DefaultValue::Int(i), _) => value(int_obj(py, i)),
            (DefaultValue::UInt(u), _) => value(uint_obj(py, u)),
            (DefaultValue::String(t), _) => value(PyString::new(py, &t).into_any()),
            (DefaultValue::EnumVariant(name), Ty::Enum(i)) => {
                let e = &s.enums[*i];
                let v = e.by_name.get(&name).copied().ok_or_else(|| {
                    PyValueError::new_err(format!("unknown variant {name} of {}", e.short))
                })?;
                enum_member(*i, Some(v))
            }
            _ => Err(PyValueError::new_err(format!(
                "default of field {} does not fit its type",
                f.name
            ))),
        },
    }
}

/// Compiles `schema` (the bytes of `Schema::to_bytes()`) against the generated
/// classes: `{"ns.Message": cls, "ns.Enum": cls, "ns.Union|Variant": cls}`.
#[pyfunction]
pub fn compile_schema(
    py: Python<'_>,
    schema: &[u8],
    classes: &Bound<'_, PyMapping>,
) -> PyResult<CompiledSchema> {
    let schema = Schema::from_bytes(schema).py_err(py, Context::Decode)?;
    let names = Names {
        msgs: schema
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), i))
            .collect(),
        enums: schema
            .enums
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.clone(), i))
            .collect(),
        unions: schema
            .unions
            .iter()
            .enumerate()
            .map(|(i, u)| (u.name.clone(), i))
            .collect(),
    };
    let mut out = CompiledSchema {
        schema: Schema::default(),
        msgs: Vec::new(),
        enums: Vec::new(),
        unions: Vec::new(),
        by_name: names
            .msgs
            .iter()
            .map(|(n, i)| (n.clone(), *i))
            .chain(
                names
                    .unions
                    .iter()
                    .map(|(n, i)| (n.clone(), schema.messages.len() + i)),
            )
            .collect(),
    };
    for e in &schema.enums {
        let class = class_for(classes, &e.name)?;
        let mut members = HashMap::new();
        let mut by_name = HashMap::new();
        for v in &e.variants {
            members.insert(v.value, class.call1((v.value,))?.unbind());
            by_name.insert(v.name.clone(), v.value);
        }
        out.enums.push(EnumIr {
            short: short_name(&e.name).to_string(),
            error_name: leak(short_name(&e.name)),
            members,
            by_name,
            first: e.variants.first().map(|v| v.value),
        });
    }
    for u in &schema.unions {
        let mut variants = Vec::new();
        for v in &u.variants {
            let class = class_for(classes, &format!("{}|{}", u.name, v.name))?;
            variants.push(VariantIr {
                wire: v.wire_name.clone(),
                ty: resolve(&v.ty, &names)?,
                offset: slot_offset(&class, "value")?,
                class: class.unbind(),
            });
        }
        out.unions.push(UnionIr {
            short: short_name(&u.name).to_string(),
            error_name: leak(short_name(&u.name)),
            variants,
        });
    }
    for m in &schema.messages {
        let class = class_for(classes, &m.name)?;
        let slots = class.getattr("__slots__")?;
        let slots: Vec<String> = if let Ok(s) = slots.cast::<PyString>() {
            vec![s.to_string()]
        } else {
            slots.extract()?
        };
        let wire = m.wire_fields();
        if slots.len() != wire.len() {
            return Err(PyTypeError::new_err(format!(
                "{}.__slots__ must list the {} fields in wire order, found {} names",
                m.name,
                wire.len(),
                slots.len()
            )));
        }
        let mut fields = Vec::new();
        for (f, attr) in wire.iter().zip(slots) {
            let ty = resolve(&f.ty, &names)?;
            fields.push(FieldIr {
                wire: f.wire_name.clone(),
                offset: slot_offset(&class, &attr)?,
                attr,
                absent: absent_value(py, &out, f, &ty)?,
                ty,
                optional: f.optional,
            });
        }
        let keys: Vec<String> = wire.iter().map(|f| f.wire_name.clone()).collect();
        // SAFETY: the strings' heap buffers never move or change: `_keys` is
        // never mutated and is dropped together with `key_strs`.
        let key_strs = keys
            .iter()
            .map(|k| unsafe { std::mem::transmute::<&str, &'static str>(k.as_str()) })
            .collect();
        out.msgs.push(MsgIr {
            short: m.short_name().to_string(),
            class: class.unbind(),
            fields,
            _keys: keys,
            key_strs,
        });
    }
    out.schema = schema;
    Ok(out)
}

// ---- decoding ---------------------------------------------------------------------

enum DFail {
    Core(Error),
    Py(PyErr),
}

impl From<Error> for DFail {
    fn from(e: Error) -> Self {
        DFail::Core(e)
    }
}

impl From<PyErr> for DFail {
    fn from(e: PyErr) -> Self {
        DFail::Py(e)
    }
}

impl DFail {
    fn at(self, seg: PathSegment<'_>) -> Self {
        match self {
            DFail::Core(e) => DFail::Core(e.in_segment(seg)),
            p => p,
        }
    }
}

type DOut<'py> = Result<Bound<'py, PyAny>, DFail>;

struct Decoder<'s, 'py> {
    s: &'s CompiledSchema,
    py: Python<'py>,
    cx: DecodeContext,
}

impl<'py> Decoder<'_, 'py> {
    fn message(&mut self, idx: usize, r: Reader<'_>) -> DOut<'py> {
        let s = self.s;
        let msg = &s.msgs[idx];
        let m = r.as_map()?;
        let fast = self.cx.layout_matches(idx as u64, &m, &msg.key_strs)?;
        let obj = alloc(self.py, &msg.class)?;
        for (i, f) in msg.fields.iter().enumerate() {
            let v = match lookup(&m, fast, i, &f.wire)? {
                Some(v) if v.is_null() => {
                    if f.optional {
                        self.py.None().into_bound(self.py)
                    } else {
                        return Err(DFail::Core(
                            unexpected_null(&v).in_segment(PathSegment::Key(&f.wire)),
                        ));
                    }
                }
                Some(v) => self
                    .value(&f.ty, v)
                    .map_err(|e| e.at(PathSegment::Key(&f.wire)))?,
                None => match &f.absent {
                    Absent::Value(p) => p.bind(self.py).clone(),
                    Absent::EmptyList => PyList::empty(self.py).into_any(),
                    Absent::EmptyDict => PyDict::new(self.py).into_any(),
                    Absent::Missing => return Err(DFail::Core(missing(&f.wire))),
                },
            };
            // SAFETY: the offset was read from this class's slot descriptor.
            unsafe { set_slot(&obj, f.offset, v) };
        }
        Ok(obj)
    }

    fn value(&mut self, ty: &Ty, r: Reader<'_>) -> DOut<'py> {
        let py = self.py;
        Ok(match ty {
            Ty::Bool => bool_obj(py, field::bool(r)?),
            Ty::I8 => int_obj(py, field::i8(r)?.into()),
            Ty::I16 => int_obj(py, field::i16(r)?.into()),
            Ty::I32 => int_obj(py, field::i32(r)?.into()),
            Ty::I64 => int_obj(py, field::i64(r)?),
            Ty::U8 => int_obj(py, field::u8(r)?.into()),
            Ty::U16 => int_obj(py, field::u16(r)?.into()),
            Ty::U32 => int_obj(py, field::u32(r)?.into()),
            Ty::U64 => uint_obj(py, field::u64(r)?),
            Ty::F32 => float_obj(py, field::f32(r)?.into()),
            Ty::F64 => float_obj(py, field::f64(r)?),
            Ty::Str => str_obj(py, field::str(r)?)?,
            Ty::Bytes => {
                if r.is_null() {
                    return Err(unexpected_null(&r).into());
                }
                PyBytes::new(py, r.as_blob()?).into_any()
            }
            Ty::Vec(el) => {
                if r.is_null() {
                    return Err(unexpected_null(&r).into());
                }
                if r.flex_type() == flexbuf::FlexType::Map {
                    // A map reads as the vector of its values; a vector field must not accept one.
                    let found = r.flex_type();
                    return Err(Error::at(
                        ErrorKind::TypeMismatch {
                            expected: "vector",
                            found,
                        },
                        r.offset(),
                    )
                    .into());
                }
                let v = r.as_vector()?;
                let n = v.len();
                // SAFETY: PyList_New returns a new list of n NULL items, or NULL with an exception.
                let list = unsafe {
                    Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))?
                };
                for i in 0..n {
                    self.cx.charge()?;
                    let e = v.get(i)?;
                    let item = if e.is_null() {
                        Err(DFail::Core(unexpected_null(&e)))
                    } else {
                        self.value(el, e)
                    }
                    .map_err(|f| f.at(PathSegment::Index(i)))?;
                    // SAFETY: i < n; PyList_SET_ITEM steals the reference into an empty slot.
                    unsafe {
                        ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr())
                    };
                }
                list
            }
            Ty::Map(el) => {
                if r.is_null() {
                    return Err(unexpected_null(&r).into());
                }
                let m = r.as_map()?;
                let dict = PyDict::new(py);
                for i in 0..m.len() {
                    self.cx.charge()?;
                    let k = m.key(i)?;
                    let e = m.value(i)?;
                    let item = if e.is_null() {
                        Err(DFail::Core(unexpected_null(&e)))
                    } else {
                        self.value(el, e)
                    }
                    .map_err(|f| f.at(PathSegment::Key(k)))?;
                    dict.set_item(str_obj(py, k)?, item)?;
                }
                dict.into_any()
            }
            Ty::Msg(i) => self.message(*i, r)?,
            Ty::Enum(i) => {
                let raw = field::i64(r)?;
                let e = &self.s.enums[*i];
                match e.members.get(&raw) {
                    Some(m) => m.bind(py).clone(),
                    None => return Err(unknown_enum(e.error_name, raw, &r).into()),
                }
            }
            Ty::Union(i) => {
                self.cx.charge()?;
                let u = &self.s.unions[*i];
                let (tag, v) = union_entry(u.error_name, r)?;
                let Some(variant) = u.variants.iter().find(|x| x.wire == tag) else {
                    return Err(unknown_variant(u.error_name, tag, &r).into());
                };
                let payload = self
                    .value(&variant.ty, v)
                    .map_err(|f| f.at(PathSegment::Key(&variant.wire)))?;
                let obj = alloc(py, &variant.class)?;
                // SAFETY: the offset was read from this class's `value` slot.
                unsafe { set_slot(&obj, variant.offset, payload) };
                obj
            }
        })
    }
}

// ---- encoding ---------------------------------------------------------------------

thread_local! {
    static TYPED_BUILDER: RefCell<Builder> = RefCell::new(Builder::with_options(typed_builder_options()));
}

struct Encoder<'s, 'b> {
    s: &'s CompiledSchema,
    b: &'b mut Builder,
    cx: EncodeContext,
}

fn type_fail(expected: &str, got: &Bound<'_, PyAny>) -> EncodeFail {
    EncodeFail::new(
        Class::EncodeType,
        format!("expected {expected}, got {}", type_name(got)),
    )
}

/// An `int` (not a `bool`) as i128, for range checks against any field type.
fn int_value(v: &Bound<'_, PyAny>, expected: &str) -> Result<i128, EncodeFail> {
    // SAFETY: type checks on a live object.
    let is_int =
        unsafe { ffi::PyLong_Check(v.as_ptr()) != 0 && ffi::PyBool_Check(v.as_ptr()) == 0 };
    if !is_int {
        return Err(type_fail(expected, v));
    }
    v.extract::<i128>().map_err(|_| {
        EncodeFail::new(
            Class::EncodeOverflow,
            format!("{} does not fit in {expected}", v),
        )
    })
}

fn float_value(v: &Bound<'_, PyAny>) -> Result<f64, EncodeFail> {
    // SAFETY: type checks on a live object.
    unsafe {
        if ffi::PyFloat_Check(v.as_ptr()) != 0 {
            return Ok(ffi::PyFloat_AS_DOUBLE(v.as_ptr()));
        }
        if ffi::PyLong_Check(v.as_ptr()) != 0 && ffi::PyBool_Check(v.as_ptr()) == 0 {
            return v.extract::<f64>().map_err(EncodeFail::py);
        }
    }
    Err(type_fail("float", v))
}

fn ranged<T: TryFrom<i128>>(v: &Bound<'_, PyAny>, name: &str) -> Result<T, EncodeFail> {
    let i = int_value(v, name)?;
    T::try_from(i)
        .map_err(|_| EncodeFail::new(Class::EncodeOverflow, format!("{i} does not fit in {name}")))
}

/// The items of a list or tuple.
fn sequence<'py>(
    v: &Bound<'py, PyAny>,
    expected: &str,
) -> Result<Vec<Bound<'py, PyAny>>, EncodeFail> {
    if let Ok(l) = v.cast::<PyList>() {
        return Ok(l.iter().collect());
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        return Ok(t.iter().collect());
    }
    Err(type_fail(expected, v))
}

impl Encoder<'_, '_> {
    fn message(&mut self, idx: usize, obj: &Bound<'_, PyAny>) -> Result<(), EncodeFail> {
        let s = self.s;
        let msg = &s.msgs[idx];
        // SAFETY: a type check on live objects.
        if unsafe {
            ffi::PyObject_TypeCheck(obj.as_ptr(), msg.class.as_ptr() as *mut ffi::PyTypeObject)
        } == 0
        {
            return Err(type_fail(&msg.short, obj));
        }
        let kv = self.cx.key_vector(self.b, idx as u64, &msg.key_strs)?;
        self.b.start_map();
        for f in &msg.fields {
            // SAFETY: `obj` is an instance of the class the offset was read from.
            let v = unsafe { get_slot(obj, f.offset) };
            let r = match v {
                None => Err(EncodeFail::new(
                    Class::EncodeType,
                    "field is not set".into(),
                )),
                Some(v) if v.is_none() => {
                    if f.optional {
                        self.b.null();
                        Ok(())
                    } else {
                        Err(EncodeFail::new(
                            Class::EncodeType,
                            format!("None for a field of type {}", f.ty.name(s)),
                        ))
                    }
                }
                Some(v) => self.value(&f.ty, &v),
            };
            r.map_err(|e| e.at(PathSegment::Key(&f.attr)))?;
        }
        self.b.end_map_with_keys(&kv)?;
        Ok(())
    }

    fn scalars<T: flexbuf::Scalar>(
        &mut self,
        items: &[Bound<'_, PyAny>],
        conv: impl Fn(&Bound<'_, PyAny>) -> Result<T, EncodeFail>,
    ) -> Result<(), EncodeFail> {
        let mut out = Vec::with_capacity(items.len());
        for (i, e) in items.iter().enumerate() {
            out.push(conv(e).map_err(|f| f.at(PathSegment::Index(i)))?);
        }
        self.b.typed_vector(&out);
        Ok(())
    }

    fn value(&mut self, ty: &Ty, v: &Bound<'_, PyAny>) -> Result<(), EncodeFail> {
        let s = self.s;
        match ty {
            Ty::Bool => {
                // SAFETY: a type check on a live object.
                if unsafe { ffi::PyBool_Check(v.as_ptr()) } == 0 {
                    return Err(type_fail("bool", v));
                }
                self.b.bool(v.is_truthy()?);
            }
            Ty::I8 => self.b.int(ranged::<i8>(v, "i8")?.into()),
            Ty::I16 => self.b.int(ranged::<i16>(v, "i16")?.into()),
            Ty::I32 => self.b.int(ranged::<i32>(v, "i32")?.into()),
            Ty::I64 => self.b.int(ranged::<i64>(v, "i64")?),
            Ty::U8 => self.b.uint(ranged::<u8>(v, "u8")?.into()),
            Ty::U16 => self.b.uint(ranged::<u16>(v, "u16")?.into()),
            Ty::U32 => self.b.uint(ranged::<u32>(v, "u32")?.into()),
            Ty::U64 => self.b.uint(ranged::<u64>(v, "u64")?),
            Ty::F32 => self.b.float(float_value(v)? as f32),
            Ty::F64 => self.b.double(float_value(v)?),
            Ty::Str => {
                if !v.is_instance_of::<PyString>() {
                    return Err(type_fail("str", v));
                }
                self.b.string(utf8(v)?);
            }
            Ty::Bytes => {
                if let Ok(b) = v.cast::<PyBytes>() {
                    self.b.blob(b.as_bytes());
                } else if let Ok(b) = v.cast::<pyo3::types::PyByteArray>() {
                    self.b.blob(&b.to_vec());
                } else {
                    return Err(type_fail("bytes", v));
                }
            }
            Ty::Vec(el) => {
                let items = sequence(v, &ty.name(s))?;
                match &**el {
                    Ty::Bool => self.scalars(&items, |e| {
                        // SAFETY: a type check on a live object.
                        if unsafe { ffi::PyBool_Check(e.as_ptr()) } == 0 {
                            return Err(type_fail("bool", e));
                        }
                        Ok(e.is_truthy()?)
                    })?,
                    Ty::I8 => self.scalars(&items, |e| ranged::<i8>(e, "i8"))?,
                    Ty::I16 => self.scalars(&items, |e| ranged::<i16>(e, "i16"))?,
                    Ty::I32 => self.scalars(&items, |e| ranged::<i32>(e, "i32"))?,
                    Ty::I64 => self.scalars(&items, |e| ranged::<i64>(e, "i64"))?,
                    Ty::U8 => self.scalars(&items, |e| ranged::<u8>(e, "u8"))?,
                    Ty::U16 => self.scalars(&items, |e| ranged::<u16>(e, "u16"))?,
                    Ty::U32 => self.scalars(&items, |e| ranged::<u32>(e, "u32"))?,
                    Ty::U64 => self.scalars(&items, |e| ranged::<u64>(e, "u64"))?,
                    Ty::F32 => self.scalars(&items, |e| Ok(float_value(e)? as f32))?,
                    Ty::F64 => self.scalars(&items, float_value)?,
                    el => {
                        self.b.start_vector();
                        for (i, e) in items.iter().enumerate() {
                            let r = if e.is_none() {
                                Err(EncodeFail::new(
                                    Class::EncodeType,
                                    format!("None for an element of type {}", el.name(s)),
                                ))
                            } else {
                                self.value(el, e)
                            };
                            r.map_err(|f| f.at(PathSegment::Index(i)))?;
                        }
                        self.b.end_vector()?;
                    }
                }
            }
            Ty::Map(el) => {
                let d = v.cast::<PyDict>().map_err(|_| type_fail(&ty.name(s), v))?;
                let mut entries = Vec::with_capacity(d.len());
                for (k, e) in d.iter() {
                    if !k.is_instance_of::<PyString>() {
                        return Err(EncodeFail::new(
                            Class::EncodeType,
                            format!("map keys must be str, not {}", type_name(&k)),
                        ));
                    }
                    entries.push((k, e));
                }
                let mut keyed = Vec::with_capacity(entries.len());
                for (k, e) in &entries {
                    keyed.push((utf8(k)?, e));
                }
                // The Rust coders iterate a BTreeMap: keys in byte order.
                keyed.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                self.b.start_map();
                for (k, e) in keyed {
                    self.b.key(k);
                    let r = if e.is_none() {
                        Err(EncodeFail::new(
                            Class::EncodeType,
                            format!("None for a value of type {}", el.name(s)),
                        ))
                    } else {
                        self.value(el, e)
                    };
                    r.map_err(|f| f.at(PathSegment::Key(k)))?;
                }
                self.b.end_map()?;
            }
            Ty::Msg(i) => self.message(*i, v)?,
            Ty::Enum(i) => {
                let e = &s.enums[*i];
                let raw = int_value(v, &e.short)?;
                let raw = i64::try_from(raw)
                    .ok()
                    .filter(|r| e.members.contains_key(r))
                    .ok_or_else(|| {
                        EncodeFail::new(
                            Class::Encode,
                            format!("{raw} is not a value of enum {}", e.short),
                        )
                    })?;
                self.b.int(raw);
            }
            Ty::Union(i) => {
                let u = &s.unions[*i];
                let variant = u.variants.iter().find(|x| {
                    // SAFETY: a type check on live objects.
                    unsafe {
                        ffi::PyObject_TypeCheck(
                            v.as_ptr(),
                            x.class.as_ptr() as *mut ffi::PyTypeObject,
                        ) != 0
                    }
                });
                let Some(variant) = variant else {
                    return Err(type_fail(&format!("a variant of union {}", u.short), v));
                };
                // SAFETY: `v` is an instance of the variant class the offset was read from.
                let payload = unsafe { get_slot(v, variant.offset) }
                    .filter(|p| !p.is_none())
                    .ok_or_else(|| {
                        EncodeFail::new(Class::EncodeType, "union value is not set".into())
                    })?;
                self.b.start_map();
                self.b.key(&variant.wire);
                self.value(&variant.ty, &payload)?;
                self.b.end_map()?;
            }
        }
        Ok(())
    }
}

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

    /// Verifies `data` and decodes its root as message or union `index` (one native call).
    fn decode<'py>(
        &self,
        py: Python<'py>,
        index: usize,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ty = self.root_type(index)?;
        let owner = input::to_bytes(data)?;
        let bytes = input::slice(&owner);
        let root = input::verify_bytes(py, bytes)?.root();
        let mut d = Decoder {
            s: self,
            py,
            cx: DecodeContext::new(bytes.len()),
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
        let run = |b: &mut Builder| -> PyResult<Bound<'py, PyBytes>> {
            b.clear();
            let mut e = Encoder {
                s: self,
                b: &mut *b,
                cx: EncodeContext::default(),
            };
            e.value(&ty, obj).map_err(|f| f.into_py(py))?;
            let out = b.finish().py_err(py, Context::Encode)?;
            Ok(PyBytes::new(py, out))
        };
        TYPED_BUILDER.with(|cell| match cell.try_borrow_mut() {
            Ok(mut b) => run(&mut b),
            Err(_) => run(&mut Builder::with_options(typed_builder_options())),
        })
    }
}
