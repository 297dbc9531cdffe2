//! Compiling a schema against the generated classes (`compile_schema`).

use super::*;

pub(super) struct Names {
    msgs: HashMap<String, usize>,
    enums: HashMap<String, usize>,
    unions: HashMap<String, usize>,
}

pub(super) fn resolve(t: &TypeRef, n: &Names) -> PyResult<Ty> {
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
        TypeRef::Array(e, len) => Ty::Array {
            el: Box::new(resolve(e, n)?),
            len: *len,
            fixed: TypeRef::fixed_vector_form(e, *len),
        },
        TypeRef::Map(e) => Ty::Map(Box::new(resolve(e, n)?)),
        TypeRef::Message(m) => Ty::Msg(*n.msgs.get(m).ok_or_else(|| unknown("message", m))?),
        TypeRef::Enum(m) => Ty::Enum(*n.enums.get(m).ok_or_else(|| unknown("enum", m))?),
        TypeRef::Union(m) => Ty::Union(*n.unions.get(m).ok_or_else(|| unknown("union", m))?),
    })
}

pub(super) fn class_for<'py>(
    classes: &Bound<'py, PyMapping>,
    name: &str,
) -> PyResult<Bound<'py, PyType>> {
    let c = classes
        .get_item(name)
        .map_err(|_| PyKeyError::new_err(format!("no class given for {name}")))?;
    Ok(c.cast_into::<PyType>()?)
}

/// The Python value of an absent field, as the compiled schema gives it
/// ([`flexbuf::schema::Absent`], computed once when the schema was compiled:
/// `f32` defaults already rounded, integer defaults of float fields already
/// floats).
pub(super) fn absent_value(
    py: Python<'_>,
    s: &CompiledSchema,
    f: &flexbuf::schema::Field,
    absent: &SchemaAbsent,
    ty: &Ty,
) -> PyResult<Absent> {
    let value = |o: Bound<'_, PyAny>| Ok(Absent::Value(o.unbind()));
    let enum_member = |i: usize, v: Option<i64>| match v.and_then(|v| s.enums[i].members.get(v)) {
        Some(m) => value(m.bind(py).clone()),
        None => Ok(Absent::Missing),
    };
    match (absent, ty) {
        (SchemaAbsent::Required, _) => Ok(Absent::Missing),
        (SchemaAbsent::Null, _) => value(py.None().into_bound(py)),
        (SchemaAbsent::Zero, Ty::Bool) => value(bool_obj(py, false)),
        (SchemaAbsent::Zero, Ty::F32 | Ty::F64) => value(float_obj(py, 0.0)),
        (SchemaAbsent::Zero, Ty::Str) => value(PyString::new(py, "").into_any()),
        (SchemaAbsent::Zero, Ty::Bytes) => value(PyBytes::new(py, b"").into_any()),
        (SchemaAbsent::Zero, Ty::Vec(_)) => Ok(Absent::EmptyList),
        (SchemaAbsent::Zero, Ty::Array { el, len, .. }) => {
            let zero = match **el {
                Ty::Bool => bool_obj(py, false),
                Ty::F32 | Ty::F64 => float_obj(py, 0.0),
                _ => int_obj(py, 0),
            };
            value(PyTuple::new(py, std::iter::repeat_n(zero, *len))?.into_any())
        }
        (SchemaAbsent::Zero, Ty::Map(_)) => Ok(Absent::EmptyDict),
        (SchemaAbsent::Zero, Ty::Enum(i)) => enum_member(*i, s.enums[*i].first),
        (SchemaAbsent::Zero, Ty::Msg(_) | Ty::Union(_)) => Ok(Absent::Missing),
        (SchemaAbsent::Zero, _) => value(int_obj(py, 0)),
        (SchemaAbsent::Default(d), _) => match (d, ty) {
            (DefaultValue::Bool(b), _) => value(bool_obj(py, *b)),
            (DefaultValue::Float(x), _) => value(float_obj(py, *x)),
            (DefaultValue::Int(i), _) => value(int_obj(py, *i)),
            (DefaultValue::UInt(u), _) => value(uint_obj(py, *u)),
            (DefaultValue::String(t), _) => value(PyString::new(py, t).into_any()),
            (DefaultValue::EnumVariant(name), Ty::Enum(i)) => {
                let e = &s.enums[*i];
                let v = e.by_name.get(name).copied().ok_or_else(|| {
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
    let compiled = Compiled::from_bytes(schema).py_err(py, Context::Decode)?;
    let schema = &compiled.schema;
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
        let mut members = Vec::with_capacity(e.variants.len());
        let mut by_name = HashMap::new();
        for v in &e.variants {
            members.push((v.value, class.call1((v.value,))?.unbind()));
            by_name.insert(v.name.clone(), v.value);
        }
        out.enums.push(EnumIr {
            short: short_name(&e.name).to_string(),
            members: EnumMembers::new(members),
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
            variants,
        });
    }
    for (index, m) in schema.messages.iter().enumerate() {
        let class = class_for(classes, &m.name)?;
        let slots = class.getattr("__slots__")?;
        let slots: Vec<String> = if let Ok(s) = slots.cast::<PyString>() {
            vec![s.to_string()]
        } else {
            slots.extract()?
        };
        let wire = compiled.wire_fields(index);
        if slots.len() != wire.len() {
            return Err(PyTypeError::new_err(format!(
                "{}.__slots__ must list the {} fields in wire order, found {} names",
                m.name,
                wire.len(),
                slots.len()
            )));
        }
        let mut fields = Vec::new();
        for (&(f, absent), attr) in wire.iter().zip(slots) {
            let ty = resolve(&f.ty, &names)?;
            fields.push(FieldIr {
                wire: f.wire_name.clone(),
                offset: slot_offset(&class, &attr)?,
                attr,
                absent: absent_value(py, &out, f, absent, &ty)?,
                ty,
                optional: f.optional,
            });
        }
        let keys: Vec<&str> = wire.iter().map(|(f, _)| f.wire_name.as_str()).collect();
        let layout = RuntimeLayout::new(&keys)
            .map_err(|e| PyValueError::new_err(format!("message {}: {e}", m.name)))?;
        out.msgs.push(MsgIr {
            short: m.short_name().to_string(),
            class: class.unbind(),
            fields,
            layout,
        });
    }
    out.schema = compiled.schema;
    Ok(out)
}
