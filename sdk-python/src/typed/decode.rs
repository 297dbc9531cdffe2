//! Decoding a buffer into generated objects, natively.

use flexbuf::raw::{read_float, read_int, read_uint};

use super::*;

pub(super) enum DFail {
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

pub(super) type DOut<'py> = Result<Bound<'py, PyAny>, DFail>;

pub(super) struct Decoder<'s, 'py> {
    pub(super) s: &'s CompiledSchema,
    pub(super) py: Python<'py>,
    pub(super) cx: DecodeContext,
}

impl<'py> Decoder<'_, 'py> {
    fn message(&mut self, idx: usize, r: Reader<'_>) -> DOut<'py> {
        // Messages (and unions) are where a recursive schema recurses: the
        // depth limit also ends a map that contains itself.
        self.cx.enter()?;
        let out = self.message_fields(idx, r);
        self.cx.leave();
        out
    }

    fn message_fields(&mut self, idx: usize, r: Reader<'_>) -> DOut<'py> {
        let s = self.s;
        let msg = &s.msgs[idx];
        let m = r.as_map()?;
        let fast = self.cx.layout_matches(idx as u64, &m, &msg.keys)?;
        let obj = alloc(self.py, &msg.class)?;
        let mut atomic = true;
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
            atomic &= !gc_tracked(&v);
            // SAFETY: the offset was read from this class's slot descriptor.
            unsafe { set_slot(&obj, f.offset, v) };
        }
        if atomic {
            // SAFETY: `alloc` returned a tracked instance of a GC type.
            unsafe { gc_untrack(&obj) };
        }
        Ok(obj)
    }

    /// A vector of `el` as a list (the value of a `[T]` or `[T; N]` field).
    fn list(&mut self, el: &Ty, r: Reader<'_>) -> Result<Bound<'py, PyList>, DFail> {
        let py = self.py;
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
        if let Some(list) = self.numbers(el, &v)? {
            return Ok(list);
        }
        let n = v.len();
        // SAFETY: PyList_New returns a new list of n NULL items, or NULL with an exception.
        let list =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))? };
        let mut atomic = true;
        for i in 0..n {
            self.cx.charge()?;
            let e = v.get(i)?;
            let item = if e.is_null() {
                Err(DFail::Core(unexpected_null(&e)))
            } else {
                self.value(el, e)
            }
            .map_err(|f| f.at(PathSegment::Index(i)))?;
            atomic &= !gc_tracked(&item);
            // SAFETY: i < n; PyList_SET_ITEM steals the reference into an empty slot.
            unsafe { ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr()) };
        }
        if atomic {
            // SAFETY: PyList_New returned a tracked list.
            unsafe { gc_untrack(&list) };
        }
        // SAFETY: PyList_New returned a list.
        Ok(unsafe { list.cast_into_unchecked::<PyList>() })
    }

    /// A typed vector whose elements `el` reads without conversion (`i64`
    /// from ints, `u64` from uints, `f64` from 4- or 8-byte floats), read
    /// in one loop: the values [`value`](Self::value) would give, element
    /// by element, without a reader per element. `None` for any other
    /// vector.
    fn numbers(
        &mut self,
        el: &Ty,
        v: &flexbuf::VectorReader<'_>,
    ) -> Result<Option<Bound<'py, PyList>>, DFail> {
        use flexbuf::FlexType;
        let w = v.element_width();
        let kind = match (el, v.element_type()) {
            (Ty::I64, Some(FlexType::Int)) => Num::Int,
            (Ty::U64, Some(FlexType::UInt)) => Num::UInt,
            (Ty::F64, Some(FlexType::Float)) if w >= 4 => Num::Float,
            _ => return Ok(None),
        };
        let (n, buf, at) = (v.len(), v.buffer(), v.data_offset());
        let py = self.py;
        // SAFETY: PyList_New returns a new list of n NULL items, or NULL with an exception.
        let list =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))? };
        for i in 0..n {
            self.cx.charge()?;
            let pos = at + i * w;
            let item = match kind {
                Num::Int => int_obj(py, read_int(buf, pos, w)?),
                Num::UInt => uint_obj(py, read_uint(buf, pos, w)?),
                Num::Float => float_obj(py, read_float(buf, pos, w)?),
            };
            // SAFETY: i < n; PyList_SET_ITEM steals the reference into an empty slot.
            unsafe { ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr()) };
        }
        // Numbers cannot form cycles.
        // SAFETY: PyList_New returned a tracked list.
        unsafe { gc_untrack(&list) };
        // SAFETY: PyList_New returned a list.
        Ok(Some(unsafe { list.cast_into_unchecked::<PyList>() }))
    }

    pub(super) fn value(&mut self, ty: &Ty, r: Reader<'_>) -> DOut<'py> {
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
            // Strings, blobs and keys are charged by their length: each
            // reference to one stored string becomes its own Python object.
            Ty::Str => str_obj(py, field::str_charged(r, &mut self.cx)?)?,
            Ty::Bytes => PyBytes::new(py, field::blob(r, &mut self.cx)?).into_any(),
            Ty::Array { el, len, .. } => {
                let list = self.list(el, r)?;
                if list.len() != *len {
                    return Err(Error::at(
                        ErrorKind::ArrayLength {
                            expected: *len,
                            found: list.len(),
                        },
                        r.offset(),
                    )
                    .into());
                }
                list.to_tuple().into_any()
            }
            Ty::Vec(el) => self.list(el, r)?.into_any(),
            Ty::Map(el) => {
                if r.is_null() {
                    return Err(unexpected_null(&r).into());
                }
                let m = r.as_map()?;
                let dict = PyDict::new(py);
                for i in 0..m.len() {
                    self.cx.charge()?;
                    let k = m.key(i)?;
                    self.cx.charge_bytes(k.len())?;
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
                    None => return Err(unknown_enum("", raw, &r).with_type_name(&e.short).into()),
                }
            }
            Ty::Union(i) => {
                self.cx.charge()?;
                self.cx.enter()?;
                let out = self.union(*i, r);
                self.cx.leave();
                out?
            }
        })
    }

    /// A value of union `i`: its one-entry map, the payload in its variant's class.
    fn union(&mut self, i: usize, r: Reader<'_>) -> DOut<'py> {
        let u = &self.s.unions[i];
        let (tag, v) = union_entry("", r).map_err(|e| e.with_type_name(&u.short))?;
        let Some(variant) = u.variants.iter().find(|x| x.wire == tag) else {
            return Err(unknown_variant("", tag, &r).with_type_name(&u.short).into());
        };
        let payload = self
            .value(&variant.ty, v)
            .map_err(|f| f.at(PathSegment::Key(&variant.wire)))?;
        let obj = alloc(self.py, &variant.class)?;
        // SAFETY: the offset was read from this class's `value` slot.
        unsafe { set_slot(&obj, variant.offset, payload) };
        Ok(obj)
    }
}

/// The numbers [`Decoder::numbers`] reads in bulk.
#[derive(Clone, Copy)]
enum Num {
    Int,
    UInt,
    Float,
}
