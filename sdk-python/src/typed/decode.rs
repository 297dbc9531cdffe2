//! Decoding a buffer into generated objects, natively.

use flexbuf::raw::{read_float, read_int, read_uint};

use crate::expand::new_dict;
use crate::pystr::{KeyGuard, KEY_MAX_LEN};

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
    /// The process-wide table of short ASCII key strings, for the keys of
    /// `{string: T}` fields (`None` when another decode holds it).
    pub(super) keys: Option<KeyGuard<'py>>,
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
        let fast = self.cx.runtime_layout_proven(idx as u64, &m, &msg.layout)?;
        let obj = alloc(self.py, &msg.class)?;
        let mut atomic = true;
        let values = m.values();
        for (i, f) in msg.fields.iter().enumerate() {
            // With the layout proven, field `i` is value `i`: strings and
            // inline numbers of the field's type are read from their slot.
            let direct = if fast {
                self.direct(&f.ty, &values, i)
                    .map_err(|e| e.at(PathSegment::Key(&f.wire)))?
            } else {
                None
            };
            let v = match direct {
                // Strings, ints, floats and bools are never tracked; an
                // enum member may be (see `direct`).
                Some(v) => {
                    if let Ty::Enum(_) = f.ty {
                        atomic &= !gc_tracked(&v);
                    }
                    v
                }
                None => {
                    let v = self.field(f, &m, fast, i)?;
                    atomic &= !gc_tracked(&v);
                    v
                }
            };
            // SAFETY: the offset was read from this class's slot descriptor.
            unsafe { set_slot(&obj, f.offset, v) };
        }
        if atomic {
            // SAFETY: `alloc` returned a tracked instance of a GC type.
            unsafe { gc_untrack(&obj) };
        }
        Ok(obj)
    }

    /// Field `f`, the `i`-th of its message, of the map `m`: by position
    /// when the layout is proven, else by key.
    fn field(
        &mut self,
        f: &FieldIr,
        m: &flexbuf::MapReader<'_>,
        fast: bool,
        i: usize,
    ) -> DOut<'py> {
        Ok(match lookup_field(m, fast, i, &f.wire)? {
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
        })
    }

    /// Element `i` of `v` (a list's element or a map's value) as a value of
    /// `el`, and whether it was read straight from its slot
    /// ([`direct`](Self::direct)); else through [`value`](Self::value),
    /// refusing null. Errors of reading the element itself carry no path;
    /// every other error gets `seg`.
    #[inline(always)]
    fn element(
        &mut self,
        el: &Ty,
        v: &flexbuf::VectorReader<'_>,
        i: usize,
        seg: PathSegment<'_>,
    ) -> Result<(Bound<'py, PyAny>, bool), DFail> {
        if let Some(item) = self.direct(el, v, i).map_err(|f| f.at(seg))? {
            return Ok((item, true));
        }
        let e = v.get(i)?;
        let item = if e.is_null() {
            Err(DFail::Core(unexpected_null(&e)))
        } else {
            self.value(el, e)
        }
        .map_err(|f| f.at(seg))?;
        Ok((item, false))
    }

    /// Element `i` of the untyped vector `v` read straight from its slot
    /// when it is a string for a `string` type, an inline integer (signed
    /// or unsigned) within an integer type's range, an inline float of 4
    /// or 8 bytes for a float type (within `f32`'s range for `f32`), a
    /// bool for `bool`, or a signed integer that is the value of a member
    /// of an enum type: what [`value`](Self::value) gives for it, with the
    /// same checks and charges. `None` for anything else (the caller takes
    /// the general path, which also decides nulls, conversions and the
    /// errors of values out of range).
    #[inline(always)]
    fn direct(
        &mut self,
        ty: &Ty,
        v: &flexbuf::VectorReader<'_>,
        i: usize,
    ) -> Result<Option<Bound<'py, PyAny>>, DFail> {
        use flexbuf::FlexType;
        const INT: u8 = FlexType::Int as u8;
        const UINT: u8 = FlexType::UInt as u8;
        const FLOAT: u8 = FlexType::Float as u8;
        const BOOL: u8 = FlexType::Bool as u8;
        let py = self.py;
        if let Ty::Str = ty {
            return match v.string_at(i)? {
                Some(s) => {
                    self.cx.charge_bytes(s.len())?;
                    Ok(Some(str_obj(py, s)?))
                }
                None => Ok(None),
            };
        }
        let Some(packed) = v.packed_type(i) else {
            return Ok(None);
        };
        let (buf, w) = (v.buffer(), v.element_width());
        let pos = v.data_offset() + i * w;
        // A value the general path would refuse (out of the field's range,
        // a float beyond f32's) goes there for its error.
        Ok(Some(match (ty, packed >> 2) {
            (Ty::Bool, BOOL) => bool_obj(py, read_uint(buf, pos, w)? != 0),
            (Ty::F64, FLOAT) if w >= 4 => float_obj(py, read_float(buf, pos, w)?),
            (Ty::F32, FLOAT) if w >= 4 => {
                let f = read_float(buf, pos, w)?;
                let narrow = f as f32;
                if f.is_finite() && !narrow.is_finite() {
                    return Ok(None);
                }
                float_obj(py, narrow.into())
            }
            (Ty::U64, UINT) => uint_obj(py, read_uint(buf, pos, w)?),
            // An enum's member, looked up by the integer the encoders
            // write (an unknown value goes to the general path for its
            // error). Unlike the other values here, a member is an object
            // the collector may track: the callers check.
            (Ty::Enum(e), INT) => match self.s.enums[*e].members.get(read_int(buf, pos, w)?) {
                Some(m) => m.bind(py).clone(),
                None => return Ok(None),
            },
            (_, INT) => match ty.int_range() {
                Some((lo, hi)) => match read_int(buf, pos, w)? {
                    x if x >= lo && x <= hi => int_obj(py, x),
                    _ => return Ok(None),
                },
                None => return Ok(None),
            },
            (_, UINT) => match ty.int_range() {
                Some((_, hi)) => match read_uint(buf, pos, w)? {
                    x if x <= hi as u64 => int_obj(py, x as i64),
                    _ => return Ok(None),
                },
                None => return Ok(None),
            },
            _ => return Ok(None),
        }))
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
            let (item, direct) = self.element(el, &v, i, PathSegment::Index(i))?;
            // Items read straight from their slot are never tracked, but
            // for enum members (see `direct`).
            if !direct || matches!(el, Ty::Enum(_)) {
                atomic &= !gc_tracked(&item);
            }
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
                let tuple = list.to_tuple().into_any();
                // A tuple of untracked items (numbers, strings) cannot be
                // part of a cycle, as its list could not: untracked too,
                // so that the message holding it can be.
                if !gc_tracked(list.as_any()) && gc_tracked(&tuple) {
                    // SAFETY: a tracked tuple of this decode's making.
                    unsafe { gc_untrack(&tuple) };
                }
                tuple
            }
            Ty::Vec(el) => self.list(el, r)?.into_any(),
            Ty::Map(el) => {
                if r.is_null() {
                    return Err(unexpected_null(&r).into());
                }
                let m = r.as_map()?;
                m.check_lengths()?;
                let dict = new_dict(py, m.len())?;
                let values = m.values();
                for i in 0..m.len() {
                    self.cx.charge()?;
                    let k = m.key(i)?;
                    self.cx.charge_bytes(k.len())?;
                    let (item, _) = self.element(el, &values, i, PathSegment::Key(k))?;
                    let key = match &mut self.keys {
                        Some(table) if k.len() <= KEY_MAX_LEN && k.is_ascii() => {
                            table.ascii_key(k.as_bytes())?
                        }
                        _ => str_obj(py, k)?,
                    };
                    // SAFETY: both are live objects; PyDict_SetItem does not steal them.
                    if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), item.as_ptr()) }
                        != 0
                    {
                        return Err(PyErr::fetch(py).into());
                    }
                }
                dict
            }
            Ty::Msg(i) => self.message(*i, r)?,
            Ty::Enum(i) => {
                let raw = field::i64(r)?;
                let e = &self.s.enums[*i];
                match e.members.get(raw) {
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
        let atomic = !gc_tracked(&payload);
        // SAFETY: the offset was read from this class's `value` slot.
        unsafe { set_slot(&obj, variant.offset, payload) };
        if atomic {
            // As for a message: a variant whose payload is untracked (a
            // number, a string, a message of such fields) cannot be part
            // of a cycle as decoded.
            // SAFETY: `alloc` returned a tracked instance of a GC type.
            unsafe { gc_untrack(&obj) };
        }
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
