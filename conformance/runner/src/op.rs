//! Builder operations: the language-neutral recipe of a case.
//!
//! One [`Op`] per builder call, mirroring the C++ replayer's protocol
//! (`conformance/cpp/PROTOCOL.md`) one to one, plus `typed_vector` (the
//! minimal-width bulk typed vector), which C++ lacks and which is rendered
//! for it as the equivalent pushes. Ops travel as JSON arrays in case files
//! (`["int", -5]`, see `conformance/README.md`), as protocol lines to the C++
//! replayer, and are replayed into [`flexbuf::Builder`].

use std::fmt;

use flexbuf::{BitWidth, Builder, ShareFlags, ValueHandle};
use serde_json::Value;

use crate::error::{Error, Result};

/// Largest integer magnitude written as a JSON number; beyond it integers are
/// decimal strings so that runners in languages with f64-only numbers read them exactly.
pub const MAX_SAFE_JSON_INT: u64 = (1 << 53) - 1;

/// Element values of a bulk vector op, typed as the C++ array it stands for.
///
/// Floats are kept as bit patterns so NaN payloads, -0.0 and subnormals
/// survive every conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scalars {
    /// `int8_t` elements.
    I8(Vec<i8>),
    /// `int16_t` elements.
    I16(Vec<i16>),
    /// `int32_t` elements.
    I32(Vec<i32>),
    /// `int64_t` elements.
    I64(Vec<i64>),
    /// `uint8_t` elements.
    U8(Vec<u8>),
    /// `uint16_t` elements.
    U16(Vec<u16>),
    /// `uint32_t` elements.
    U32(Vec<u32>),
    /// `uint64_t` elements.
    U64(Vec<u64>),
    /// `float` elements, as bit patterns.
    F32(Vec<u32>),
    /// `double` elements, as bit patterns.
    F64(Vec<u64>),
    /// `bool` elements.
    Bool(Vec<bool>),
}

impl Scalars {
    /// `int`, `uint`, `float` or `bool`.
    pub fn kind(&self) -> &'static str {
        match self {
            Scalars::I8(_) | Scalars::I16(_) | Scalars::I32(_) | Scalars::I64(_) => "int",
            Scalars::U8(_) | Scalars::U16(_) | Scalars::U32(_) | Scalars::U64(_) => "uint",
            Scalars::F32(_) | Scalars::F64(_) => "float",
            Scalars::Bool(_) => "bool",
        }
    }

    /// Byte size of one element in memory (the C++ `sizeof(T)`).
    pub fn width(&self) -> u8 {
        match self {
            Scalars::I8(_) | Scalars::U8(_) | Scalars::Bool(_) => 1,
            Scalars::I16(_) | Scalars::U16(_) => 2,
            Scalars::I32(_) | Scalars::U32(_) | Scalars::F32(_) => 4,
            Scalars::I64(_) | Scalars::U64(_) | Scalars::F64(_) => 8,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Scalars::I8(v) => v.len(),
            Scalars::I16(v) => v.len(),
            Scalars::I32(v) => v.len(),
            Scalars::I64(v) => v.len(),
            Scalars::U8(v) => v.len(),
            Scalars::U16(v) => v.len(),
            Scalars::U32(v) => v.len(),
            Scalars::U64(v) => v.len(),
            Scalars::F32(v) => v.len(),
            Scalars::F64(v) => v.len(),
            Scalars::Bool(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements as the single-value ops that push them one by one.
    pub fn element_ops(&self) -> Vec<Op> {
        match self {
            Scalars::I8(v) => v.iter().map(|&x| Op::Int(x.into())).collect(),
            Scalars::I16(v) => v.iter().map(|&x| Op::Int(x.into())).collect(),
            Scalars::I32(v) => v.iter().map(|&x| Op::Int(x.into())).collect(),
            Scalars::I64(v) => v.iter().map(|&x| Op::Int(x)).collect(),
            Scalars::U8(v) => v.iter().map(|&x| Op::UInt(x.into())).collect(),
            Scalars::U16(v) => v.iter().map(|&x| Op::UInt(x.into())).collect(),
            Scalars::U32(v) => v.iter().map(|&x| Op::UInt(x.into())).collect(),
            Scalars::U64(v) => v.iter().map(|&x| Op::UInt(x)).collect(),
            Scalars::F32(v) => v.iter().map(|&x| Op::Float(x)).collect(),
            Scalars::F64(v) => v.iter().map(|&x| Op::Double(x)).collect(),
            Scalars::Bool(v) => v.iter().map(|&x| Op::Bool(x)).collect(),
        }
    }

    /// Element values as protocol tokens.
    fn tokens(&self) -> Vec<String> {
        self.element_ops()
            .iter()
            .map(|op| match op {
                Op::Int(i) => i.to_string(),
                Op::UInt(u) => u.to_string(),
                Op::Float(bits) => format!("{bits:08x}"),
                Op::Double(bits) => format!("{bits:016x}"),
                Op::Bool(b) => u8::from(*b).to_string(),
                _ => unreachable!("element_ops yields scalars only"),
            })
            .collect()
    }

    /// Element values as JSON.
    fn json_values(&self) -> Vec<Value> {
        self.element_ops()
            .iter()
            .map(|op| match op {
                Op::Int(i) => int_json(*i),
                Op::UInt(u) => uint_json(*u),
                Op::Float(bits) => Value::String(format!("{bits:08x}")),
                Op::Double(bits) => Value::String(format!("{bits:016x}")),
                Op::Bool(b) => Value::Bool(*b),
                _ => unreachable!("element_ops yields scalars only"),
            })
            .collect()
    }

    /// Parses `KIND WIDTH [values]` from JSON.
    fn from_json(kind: &str, width: u64, values: &[Value]) -> std::result::Result<Scalars, String> {
        fn ints<T: TryFrom<i64>>(values: &[Value]) -> std::result::Result<Vec<T>, String> {
            values
                .iter()
                .map(|v| {
                    let i = parse_i64(v)?;
                    T::try_from(i).map_err(|_| format!("{i} out of range for the element width"))
                })
                .collect()
        }
        fn uints<T: TryFrom<u64>>(values: &[Value]) -> std::result::Result<Vec<T>, String> {
            values
                .iter()
                .map(|v| {
                    let u = parse_u64(v)?;
                    T::try_from(u).map_err(|_| format!("{u} out of range for the element width"))
                })
                .collect()
        }
        Ok(match (kind, width) {
            ("int", 1) => Scalars::I8(ints(values)?),
            ("int", 2) => Scalars::I16(ints(values)?),
            ("int", 4) => Scalars::I32(ints(values)?),
            ("int", 8) => Scalars::I64(ints(values)?),
            ("uint", 1) => Scalars::U8(uints(values)?),
            ("uint", 2) => Scalars::U16(uints(values)?),
            ("uint", 4) => Scalars::U32(uints(values)?),
            ("uint", 8) => Scalars::U64(uints(values)?),
            ("float", 4) => Scalars::F32(
                values
                    .iter()
                    .map(|v| parse_bits(v, 8).map(|b| b as u32))
                    .collect::<std::result::Result<_, _>>()?,
            ),
            ("float", 8) => Scalars::F64(
                values
                    .iter()
                    .map(|v| parse_bits(v, 16))
                    .collect::<std::result::Result<_, _>>()?,
            ),
            ("bool", 1) => Scalars::Bool(
                values
                    .iter()
                    .map(|v| v.as_bool().ok_or_else(|| format!("bool expected, got {v}")))
                    .collect::<std::result::Result<_, _>>()?,
            ),
            _ => {
                return Err(format!(
                    "unsupported element kind {kind:?} of width {width}"
                ))
            }
        })
    }
}

/// One builder call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `Null()`.
    Null,
    /// `Bool(b)`.
    Bool(bool),
    /// `Int(i)`.
    Int(i64),
    /// `UInt(u)`.
    UInt(u64),
    /// `Float(f)`, as the f32 bit pattern.
    Float(u32),
    /// `Double(f)`, as the f64 bit pattern.
    Double(u64),
    /// `Key(s)`.
    Key(String),
    /// `String(s)`.
    String(String),
    /// `Blob(data)`.
    Blob(Vec<u8>),
    /// `IndirectInt(i)`.
    IndirectInt(i64),
    /// `IndirectUInt(u)`.
    IndirectUInt(u64),
    /// `IndirectFloat(f)`, as the f32 bit pattern.
    IndirectFloat(u32),
    /// `IndirectDouble(f)`, as the f64 bit pattern (f32-exact values follow our deviation).
    IndirectDouble(u64),
    /// `StartMap()`.
    StartMap,
    /// `EndMap(start)`.
    EndMap,
    /// `StartVector()`.
    StartVector,
    /// `EndVector(start, typed, fixed)`.
    EndVector {
        /// Typed vector (one element type, no type bytes).
        typed: bool,
        /// Fixed length (2..4 numbers, no size field).
        fixed: bool,
    },
    /// `Vector(const T *elems, len)`: a typed vector at the natural width of `T`.
    ScalarVector(Scalars),
    /// `FixedTypedVector(const T *elems, len)`.
    FixedVector(Scalars),
    /// Our minimal-width bulk typed vector (`Builder::typed_vector`): the bytes
    /// of pushing each element and ending a typed vector. Not empty.
    TypedVector(Scalars),
    /// `ForceMinimumBitWidth` with a byte width of 1, 2, 4 or 8.
    ForceMinWidth(u8),
    /// Remembers `LastValue()` in the next slot.
    Mark,
    /// `ReuseValue(slot)`.
    Reuse(usize),
}

fn int_json(i: i64) -> Value {
    if i.unsigned_abs() <= MAX_SAFE_JSON_INT {
        Value::from(i)
    } else {
        Value::String(i.to_string())
    }
}

fn uint_json(u: u64) -> Value {
    if u <= MAX_SAFE_JSON_INT {
        Value::from(u)
    } else {
        Value::String(u.to_string())
    }
}

fn parse_i64(v: &Value) -> std::result::Result<i64, String> {
    match v {
        Value::Number(n) => n.as_i64().ok_or_else(|| format!("not an i64: {n}")),
        Value::String(s) => s.parse().map_err(|_| format!("not a decimal i64: {s:?}")),
        other => Err(format!("integer expected, got {other}")),
    }
}

fn parse_u64(v: &Value) -> std::result::Result<u64, String> {
    match v {
        Value::Number(n) => n.as_u64().ok_or_else(|| format!("not a u64: {n}")),
        Value::String(s) => s.parse().map_err(|_| format!("not a decimal u64: {s:?}")),
        other => Err(format!("integer expected, got {other}")),
    }
}

fn parse_bits(v: &Value, digits: usize) -> std::result::Result<u64, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("float bits expected as a hex string, got {v}"))?;
    if s.len() != digits
        || !s
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    {
        return Err(format!(
            "float bits must be {digits} lowercase hex digits: {s:?}"
        ));
    }
    u64::from_str_radix(s, 16).map_err(|e| e.to_string())
}

fn parse_str(v: &Value) -> std::result::Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("string expected, got {v}"))
}

/// Lowercase hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        s.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    s
}

/// Bytes of a lowercase (or uppercase) hex string.
pub fn from_hex(s: &str) -> std::result::Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", s.len()));
    }
    s.as_bytes()
        .chunks(2)
        .map(|pair| {
            let text = std::str::from_utf8(pair).map_err(|e| e.to_string())?;
            u8::from_str_radix(text, 16).map_err(|_| format!("not hex: {text:?}"))
        })
        .collect()
}

impl Op {
    /// The op's name: the first element of its JSON form and its protocol keyword.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Null => "null",
            Op::Bool(_) => "bool",
            Op::Int(_) => "int",
            Op::UInt(_) => "uint",
            Op::Float(_) => "float",
            Op::Double(_) => "double",
            Op::Key(_) => "key",
            Op::String(_) => "string",
            Op::Blob(_) => "blob",
            Op::IndirectInt(_) => "indirect_int",
            Op::IndirectUInt(_) => "indirect_uint",
            Op::IndirectFloat(_) => "indirect_float",
            Op::IndirectDouble(_) => "indirect_double",
            Op::StartMap => "start_map",
            Op::EndMap => "end_map",
            Op::StartVector => "start_vector",
            Op::EndVector { .. } => "end_vector",
            Op::ScalarVector(_) => "scalar_vector",
            Op::FixedVector(_) => "fixed_vector",
            Op::TypedVector(_) => "typed_vector",
            Op::ForceMinWidth(_) => "force_min_width",
            Op::Mark => "mark",
            Op::Reuse(_) => "reuse",
        }
    }

    /// The JSON form used in case files, e.g. `["int", -5]`.
    pub fn to_json(&self) -> Value {
        let name = Value::from(self.name());
        let rest: Vec<Value> = match self {
            Op::Null | Op::StartMap | Op::EndMap | Op::StartVector | Op::Mark => vec![],
            Op::Bool(b) => vec![Value::Bool(*b)],
            Op::Int(i) | Op::IndirectInt(i) => vec![int_json(*i)],
            Op::UInt(u) | Op::IndirectUInt(u) => vec![uint_json(*u)],
            Op::Float(bits) | Op::IndirectFloat(bits) => {
                vec![Value::String(format!("{bits:08x}"))]
            }
            Op::Double(bits) | Op::IndirectDouble(bits) => {
                vec![Value::String(format!("{bits:016x}"))]
            }
            Op::Key(s) | Op::String(s) => vec![Value::String(s.clone())],
            Op::Blob(b) => vec![Value::String(to_hex(b))],
            Op::EndVector { typed, fixed } => vec![Value::Bool(*typed), Value::Bool(*fixed)],
            Op::ScalarVector(s) | Op::FixedVector(s) | Op::TypedVector(s) => vec![
                Value::from(s.kind()),
                Value::from(s.width()),
                Value::Array(s.json_values()),
            ],
            Op::ForceMinWidth(w) => vec![Value::from(*w)],
            Op::Reuse(slot) => vec![Value::from(*slot)],
        };
        let mut all = vec![name];
        all.extend(rest);
        Value::Array(all)
    }

    /// Parses the JSON form; `index` is only used in error messages.
    pub fn from_json(v: &Value, index: usize) -> Result<Op> {
        Self::parse(v).map_err(|m| Error::op(index, format!("{m} in {v}")))
    }

    fn parse(v: &Value) -> std::result::Result<Op, String> {
        let items = v.as_array().ok_or("an op is a JSON array")?;
        let (name, args) = items.split_first().ok_or("empty op")?;
        let name = name.as_str().ok_or("op name must be a string")?;
        let arity = |n: usize| -> std::result::Result<(), String> {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "'{name}' takes {n} argument(s), got {}",
                    args.len()
                ))
            }
        };
        let op = match name {
            "null" | "start_map" | "end_map" | "start_vector" | "mark" => {
                arity(0)?;
                match name {
                    "null" => Op::Null,
                    "start_map" => Op::StartMap,
                    "end_map" => Op::EndMap,
                    "start_vector" => Op::StartVector,
                    _ => Op::Mark,
                }
            }
            "bool" => {
                arity(1)?;
                Op::Bool(args[0].as_bool().ok_or("bool expects true or false")?)
            }
            "int" => {
                arity(1)?;
                Op::Int(parse_i64(&args[0])?)
            }
            "indirect_int" => {
                arity(1)?;
                Op::IndirectInt(parse_i64(&args[0])?)
            }
            "uint" => {
                arity(1)?;
                Op::UInt(parse_u64(&args[0])?)
            }
            "indirect_uint" => {
                arity(1)?;
                Op::IndirectUInt(parse_u64(&args[0])?)
            }
            "float" => {
                arity(1)?;
                Op::Float(parse_bits(&args[0], 8)? as u32)
            }
            "indirect_float" => {
                arity(1)?;
                Op::IndirectFloat(parse_bits(&args[0], 8)? as u32)
            }
            "double" => {
                arity(1)?;
                Op::Double(parse_bits(&args[0], 16)?)
            }
            "indirect_double" => {
                arity(1)?;
                Op::IndirectDouble(parse_bits(&args[0], 16)?)
            }
            "key" => {
                arity(1)?;
                Op::Key(parse_str(&args[0])?)
            }
            "string" => {
                arity(1)?;
                Op::String(parse_str(&args[0])?)
            }
            "blob" => {
                arity(1)?;
                Op::Blob(from_hex(&parse_str(&args[0])?)?)
            }
            "end_vector" => {
                arity(2)?;
                Op::EndVector {
                    typed: args[0].as_bool().ok_or("typed must be true or false")?,
                    fixed: args[1].as_bool().ok_or("fixed must be true or false")?,
                }
            }
            "scalar_vector" | "fixed_vector" | "typed_vector" => {
                arity(3)?;
                let kind = args[0].as_str().ok_or("KIND must be a string")?;
                let width = args[1].as_u64().ok_or("WIDTH must be an integer")?;
                let values = args[2].as_array().ok_or("values must be an array")?;
                let s = Scalars::from_json(kind, width, values)?;
                match name {
                    "scalar_vector" => Op::ScalarVector(s),
                    "fixed_vector" => {
                        if !(2..=4).contains(&s.len()) || s.kind() == "bool" {
                            return Err("fixed_vector takes 2 to 4 ints, uints or floats".into());
                        }
                        Op::FixedVector(s)
                    }
                    _ => {
                        if s.is_empty() {
                            return Err("typed_vector takes at least one value".into());
                        }
                        Op::TypedVector(s)
                    }
                }
            }
            "force_min_width" => {
                arity(1)?;
                match args[0].as_u64() {
                    Some(w @ (1 | 2 | 4 | 8)) => Op::ForceMinWidth(w as u8),
                    _ => return Err("force_min_width takes 1, 2, 4 or 8".into()),
                }
            }
            "reuse" => {
                arity(1)?;
                let slot = args[0].as_u64().ok_or("reuse takes a slot number")?;
                Op::Reuse(usize::try_from(slot).map_err(|e| e.to_string())?)
            }
            other => return Err(format!("unknown op {other:?}")),
        };
        Ok(op)
    }

    /// Appends the op's protocol line(s) for the C++ replayer.
    ///
    /// `typed_vector` becomes the pushes it is byte-identical to (an empty one
    /// becomes an empty typed vector, which is a key vector in both builders).
    pub fn write_protocol(&self, out: &mut String) {
        fn hex_or_dash(bytes: &[u8]) -> String {
            if bytes.is_empty() {
                "-".to_string()
            } else {
                to_hex(bytes)
            }
        }
        let line = match self {
            Op::Null | Op::StartMap | Op::EndMap | Op::StartVector | Op::Mark => {
                self.name().to_string()
            }
            Op::Bool(b) => format!("bool {}", u8::from(*b)),
            Op::Int(i) | Op::IndirectInt(i) => format!("{} {i}", self.name()),
            Op::UInt(u) | Op::IndirectUInt(u) => format!("{} {u}", self.name()),
            Op::Float(bits) | Op::IndirectFloat(bits) => format!("{} {bits:08x}", self.name()),
            Op::Double(bits) | Op::IndirectDouble(bits) => {
                format!("{} {bits:016x}", self.name())
            }
            Op::Key(s) | Op::String(s) => format!("{} {}", self.name(), hex_or_dash(s.as_bytes())),
            Op::Blob(b) => format!("blob {}", hex_or_dash(b)),
            Op::EndVector { typed, fixed } => {
                format!("end_vector {} {}", u8::from(*typed), u8::from(*fixed))
            }
            Op::ScalarVector(s) | Op::FixedVector(s) => {
                let mut line = format!("{} {} {}", self.name(), s.kind(), s.width());
                for t in s.tokens() {
                    line.push(' ');
                    line.push_str(&t);
                }
                line
            }
            Op::TypedVector(s) => {
                out.push_str("start_vector\n");
                for op in s.element_ops() {
                    op.write_protocol(out);
                }
                "end_vector 1 0".to_string()
            }
            Op::ForceMinWidth(w) => format!("force_min_width {w}"),
            Op::Reuse(slot) => format!("reuse {slot}"),
        };
        out.push_str(&line);
        out.push('\n');
    }
}

impl fmt::Display for Op {
    /// The compact JSON form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

/// Renders one case (`case FLAGS`, its ops, `finish`) in the replayer protocol.
pub fn protocol_case(flags: u8, ops: &[Op]) -> String {
    let mut out = format!("case {flags}\n");
    for op in ops {
        op.write_protocol(&mut out);
    }
    out.push_str("finish\n");
    out
}

/// Parses a JSON array of ops.
pub fn ops_from_json(v: &Value) -> Result<Vec<Op>> {
    let items = v
        .as_array()
        .ok_or_else(|| Error::op(0, "ops must be a JSON array"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, op)| Op::from_json(op, i))
        .collect()
}

/// Replays `ops` into a fresh [`Builder`] with the C++ sharing `flags` and finishes it.
pub fn build(flags: u8, ops: &[Op]) -> Result<Vec<u8>> {
    let mut b = Builder::with_share(ShareFlags::from_bits(flags));
    let mut marks: Vec<ValueHandle> = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        apply(&mut b, &mut marks, op).map_err(|e| match e {
            Applied::Builder(source) => Error::Build { index, source },
            Applied::Op(message) => Error::op(index, message),
        })?;
    }
    b.finish_vec().map_err(|source| Error::Build {
        index: ops.len(),
        source,
    })
}

enum Applied {
    Builder(flexbuf::Error),
    Op(String),
}

impl From<flexbuf::Error> for Applied {
    fn from(e: flexbuf::Error) -> Self {
        Applied::Builder(e)
    }
}

fn apply(
    b: &mut Builder,
    marks: &mut Vec<ValueHandle>,
    op: &Op,
) -> std::result::Result<(), Applied> {
    match op {
        Op::Null => b.null(),
        Op::Bool(v) => b.bool(*v),
        Op::Int(i) => b.int(*i),
        Op::UInt(u) => b.uint(*u),
        Op::Float(bits) => b.float(f32::from_bits(*bits)),
        Op::Double(bits) => b.double(f64::from_bits(*bits)),
        Op::Key(s) => b.key(s),
        Op::String(s) => b.string(s),
        Op::Blob(data) => b.blob(data),
        Op::IndirectInt(i) => b.indirect_int(*i),
        Op::IndirectUInt(u) => b.indirect_uint(*u),
        Op::IndirectFloat(bits) => b.indirect_float(f32::from_bits(*bits)),
        Op::IndirectDouble(bits) => b.indirect_double(f64::from_bits(*bits)),
        Op::StartMap => b.start_map(),
        Op::EndMap => b.end_map()?,
        Op::StartVector => b.start_vector(),
        Op::EndVector { typed, fixed } => b.end_vector_as(*typed, *fixed)?,
        Op::ScalarVector(s) => match s {
            Scalars::I8(v) => b.scalar_vector(v)?,
            Scalars::I16(v) => b.scalar_vector(v)?,
            Scalars::I32(v) => b.scalar_vector(v)?,
            Scalars::I64(v) => b.scalar_vector(v)?,
            Scalars::U8(v) => b.scalar_vector(v)?,
            Scalars::U16(v) => b.scalar_vector(v)?,
            Scalars::U32(v) => b.scalar_vector(v)?,
            Scalars::U64(v) => b.scalar_vector(v)?,
            Scalars::F32(v) => b.scalar_vector(&f32s(v))?,
            Scalars::F64(v) => b.scalar_vector(&f64s(v))?,
            Scalars::Bool(v) => b.scalar_vector(v)?,
        },
        Op::FixedVector(s) => match s {
            Scalars::I8(v) => b.fixed_vector(v)?,
            Scalars::I16(v) => b.fixed_vector(v)?,
            Scalars::I32(v) => b.fixed_vector(v)?,
            Scalars::I64(v) => b.fixed_vector(v)?,
            Scalars::U8(v) => b.fixed_vector(v)?,
            Scalars::U16(v) => b.fixed_vector(v)?,
            Scalars::U32(v) => b.fixed_vector(v)?,
            Scalars::U64(v) => b.fixed_vector(v)?,
            Scalars::F32(v) => b.fixed_vector(&f32s(v))?,
            Scalars::F64(v) => b.fixed_vector(&f64s(v))?,
            Scalars::Bool(v) => b.fixed_vector(v)?,
        },
        Op::TypedVector(s) => match s {
            Scalars::I8(v) => b.typed_vector(v),
            Scalars::I16(v) => b.typed_vector(v),
            Scalars::I32(v) => b.typed_vector(v),
            Scalars::I64(v) => b.typed_vector(v),
            Scalars::U8(v) => b.typed_vector(v),
            Scalars::U16(v) => b.typed_vector(v),
            Scalars::U32(v) => b.typed_vector(v),
            Scalars::U64(v) => b.typed_vector(v),
            Scalars::F32(v) => b.typed_vector(&f32s(v)),
            Scalars::F64(v) => b.typed_vector(&f64s(v)),
            Scalars::Bool(v) => b.typed_vector(v),
        },
        Op::ForceMinWidth(w) => {
            let width = BitWidth::from_bytes(u64::from(*w))
                .ok_or_else(|| Applied::Op(format!("force_min_width {w}")))?;
            b.force_min_width(width)
        }
        Op::Mark => marks.push(
            b.last_value()
                .ok_or_else(|| Applied::Op("mark with no value to remember".into()))?,
        ),
        Op::Reuse(slot) => {
            let handle = *marks.get(*slot).ok_or_else(|| {
                Applied::Op(format!(
                    "reuse of slot {slot} but only {} marked",
                    marks.len()
                ))
            })?;
            b.reuse_value(handle)
        }
    }
    Ok(())
}

fn f32s(bits: &[u32]) -> Vec<f32> {
    bits.iter().map(|&b| f32::from_bits(b)).collect()
}

fn f64s(bits: &[u64]) -> Vec<f64> {
    bits.iter().map(|&b| f64::from_bits(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(op: Op) {
        let json = op.to_json();
        assert_eq!(Op::from_json(&json, 0).unwrap(), op, "{json}");
    }

    #[test]
    fn json_round_trips_every_op() {
        for op in [
            Op::Null,
            Op::Bool(true),
            Op::Int(i64::MIN),
            Op::Int(-5),
            Op::UInt(u64::MAX),
            Op::Float(0x7fc0_0001),
            Op::Double(0x8000_0000_0000_0000),
            Op::Key("ké".into()),
            Op::String(String::new()),
            Op::Blob(vec![0, 255]),
            Op::IndirectInt(-1),
            Op::IndirectUInt(1 << 60),
            Op::IndirectFloat(1),
            Op::IndirectDouble(2),
            Op::StartMap,
            Op::EndMap,
            Op::StartVector,
            Op::EndVector {
                typed: true,
                fixed: false,
            },
            Op::ScalarVector(Scalars::I16(vec![-300, 2])),
            Op::FixedVector(Scalars::F32(vec![1, 2, 3])),
            Op::TypedVector(Scalars::U64(vec![u64::MAX])),
            Op::ScalarVector(Scalars::Bool(vec![true, false])),
            Op::ForceMinWidth(4),
            Op::Mark,
            Op::Reuse(3),
        ] {
            round_trip(op);
        }
    }

    #[test]
    fn big_integers_travel_as_strings() {
        assert_eq!(Op::Int(-5).to_json().to_string(), r#"["int",-5]"#);
        assert_eq!(
            Op::UInt(u64::MAX).to_json().to_string(),
            r#"["uint","18446744073709551615"]"#
        );
        assert_eq!(
            Op::Int(1 << 53).to_json().to_string(),
            r#"["int","9007199254740992"]"#
        );
    }

    #[test]
    fn malformed_ops_are_rejected_with_their_index() {
        for bad in [
            r#"["int"]"#,
            r#"["int", 1.5]"#,
            r#"["float", "3F800000"]"#,
            r#"["double", "3f800000"]"#,
            r#"["scalar_vector", "int", 3, []]"#,
            r#"["scalar_vector", "int", 1, [300]]"#,
            r#"["fixed_vector", "int", 1, [1]]"#,
            r#"["typed_vector", "int", 1, []]"#,
            r#"["force_min_width", 3]"#,
            r#"["blob", "abc"]"#,
            r#"["frobnicate"]"#,
        ] {
            let v: Value = serde_json::from_str(bad).unwrap();
            match Op::from_json(&v, 7) {
                Err(Error::Op { index: 7, .. }) => {}
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn protocol_lines_follow_protocol_md() {
        let ops = vec![
            Op::StartVector,
            Op::String(String::new()),
            Op::Blob(vec![1, 2]),
            Op::Double(0x3ff0_0000_0000_0000),
            Op::TypedVector(Scalars::I8(vec![1, -1])),
            Op::EndVector {
                typed: false,
                fixed: false,
            },
        ];
        assert_eq!(
            protocol_case(3, &ops),
            "case 3\nstart_vector\nstring -\nblob 0102\ndouble 3ff0000000000000\n\
             start_vector\nint 1\nint -1\nend_vector 1 0\nend_vector 0 0\nfinish\n"
        );
    }

    #[test]
    fn replay_matches_the_smoke_test_bytes() {
        // Expected bytes from conformance/cpp/smoke_test.sh (hand-derived from flexbuffers.h).
        let ops = [
            Op::StartMap,
            Op::Key("b".into()),
            Op::Int(2),
            Op::Key("a".into()),
            Op::Int(1),
            Op::EndMap,
        ];
        assert_eq!(
            to_hex(&build(1, &ops).unwrap()),
            "6200610002030602010201020404042401"
        );
        let reuse = [
            Op::StartVector,
            Op::String("ab".into()),
            Op::Mark,
            Op::Reuse(0),
            Op::EndVector {
                typed: false,
                fixed: false,
            },
        ];
        assert_eq!(
            to_hex(&build(0, &reuse).unwrap()),
            "026162000204051414042801"
        );
    }

    #[test]
    fn replay_errors_name_the_op() {
        match build(0, &[Op::Mark]) {
            Err(Error::Op { index: 0, .. }) => {}
            other => panic!("{other:?}"),
        }
        let dup = [
            Op::StartMap,
            Op::Key("a".into()),
            Op::Null,
            Op::Key("a".into()),
            Op::Null,
            Op::EndMap,
        ];
        match build(0, &dup) {
            Err(Error::Build { index: 5, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hex_round_trips() {
        assert_eq!(to_hex(&[0, 0xab, 0x10]), "00ab10");
        assert_eq!(from_hex("00ab10").unwrap(), vec![0, 0xab, 0x10]);
        assert!(from_hex("0").is_err());
        assert!(from_hex("zz").is_err());
    }
}
