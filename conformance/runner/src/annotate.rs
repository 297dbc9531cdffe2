//! The annotated notation: a FlexBuffers value as JSON, with its type and width.
//!
//! Every value is `[type_name, width, payload]` (see `conformance/README.md`):
//! the type name is [`flexbuf::FlexType::name`], the width is the byte width
//! of an inline scalar's slot or, for everything else, the width from its
//! packed type; payloads are exact (integers and floats as strings).

use flexbuf::{FlexType, Reader};
use serde_json::Value;

use crate::op::to_hex;

/// Why a value could not be annotated.
#[derive(Debug, Clone, PartialEq)]
pub enum AnnotateError {
    /// A checked read failed.
    Read(flexbuf::Error),
    /// Containers nested deeper than the limit (a cycle in unverified bytes looks like this).
    TooDeep(usize),
    /// More values than the limit (shared subtrees in unverified bytes can expand exponentially).
    TooManyValues(usize),
    /// More string, key and blob bytes than the limit (one large string reached many times).
    TooManyBytes(usize),
    /// A string at this offset is not followed by its NUL terminator.
    MissingStringNul(usize),
}

impl std::fmt::Display for AnnotateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnnotateError::Read(e) => write!(f, "{e}"),
            AnnotateError::TooDeep(d) => write!(f, "nesting deeper than {d}"),
            AnnotateError::TooManyValues(n) => write!(f, "more than {n} values"),
            AnnotateError::TooManyBytes(n) => write!(f, "more than {n} payload bytes"),
            AnnotateError::MissingStringNul(at) => {
                write!(f, "string at offset {at} is not followed by its NUL")
            }
        }
    }
}

impl std::error::Error for AnnotateError {}

impl From<flexbuf::Error> for AnnotateError {
    fn from(e: flexbuf::Error) -> Self {
        AnnotateError::Read(e)
    }
}

/// Bounds and checks of the walk, so unverified bytes cannot make it recurse or
/// expand without end.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest container nesting walked (the root container is level 1).
    pub max_depth: usize,
    /// Most values visited in total.
    pub max_values: usize,
    /// Most string, key and blob bytes copied in total.
    pub max_bytes: usize,
    /// Check that every string is followed by its NUL (checked reads by size
    /// never look at it; verified buffers always have it).
    pub require_string_nul: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 256,
            max_values: 4_000_000,
            max_bytes: 256 << 20,
            require_string_nul: false,
        }
    }
}

/// The annotated notation of `value` and everything below it.
pub fn annotate(value: &Reader<'_>) -> Result<Value, AnnotateError> {
    annotate_with(value, Limits::default())
}

/// [`annotate`] with explicit limits.
pub fn annotate_with(value: &Reader<'_>, limits: Limits) -> Result<Value, AnnotateError> {
    let mut walk = Walk {
        limits,
        visited: 0,
        bytes: 0,
    };
    walk.value(value, 0)
}

/// The payload string of a float: Rust's shortest round-trip form of the value
/// widened to f64, or `nan`, `inf`, `-inf`, `-0.0`.
pub fn float_payload(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f == f64::INFINITY {
        "inf".into()
    } else if f == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        // Debug is the shortest round-trip form and keeps "-0.0" and "1.0".
        format!("{f:?}")
    }
}

struct Walk {
    limits: Limits,
    visited: usize,
    bytes: usize,
}

impl Walk {
    fn value(&mut self, r: &Reader<'_>, depth: usize) -> Result<Value, AnnotateError> {
        self.visited += 1;
        if self.visited > self.limits.max_values {
            return Err(AnnotateError::TooManyValues(self.limits.max_values));
        }
        let ty = r.flex_type();
        let width = if ty.is_inline() {
            r.slot_width()
        } else {
            r.bit_width().bytes()
        };
        let payload = match ty {
            FlexType::Null => Value::Null,
            FlexType::Bool => Value::Bool(r.as_bool()?),
            FlexType::Int | FlexType::IndirectInt => Value::String(r.as_i64()?.to_string()),
            FlexType::UInt | FlexType::IndirectUInt => Value::String(r.as_u64()?.to_string()),
            FlexType::Float | FlexType::IndirectFloat => Value::String(float_payload(r.as_f64()?)),
            FlexType::Key | FlexType::String => {
                let s = r.as_str()?;
                self.charge(s.len())?;
                if ty == FlexType::String && self.limits.require_string_nul {
                    let end = r.data_offset()? + s.len();
                    if r.buffer().get(end) != Some(&0) {
                        return Err(AnnotateError::MissingStringNul(r.data_offset()?));
                    }
                }
                Value::String(s.to_string())
            }
            FlexType::Blob => {
                let b = r.as_blob()?;
                self.charge(b.len())?;
                Value::String(to_hex(b))
            }
            FlexType::Map => {
                let depth = self.enter(depth)?;
                let map = r.as_map()?;
                let mut entries = Vec::with_capacity(map.len());
                for i in 0..map.len() {
                    let key = map.key(i)?;
                    self.charge(key.len())?;
                    let value = self.value(&map.value(i)?, depth)?;
                    entries.push(Value::Array(vec![Value::String(key.to_string()), value]));
                }
                Value::Array(entries)
            }
            _ => {
                // Every remaining type is a vector of some kind.
                let depth = self.enter(depth)?;
                let vector = r.as_vector()?;
                let mut items = Vec::with_capacity(vector.len());
                for i in 0..vector.len() {
                    items.push(self.value(&vector.get(i)?, depth)?);
                }
                Value::Array(items)
            }
        };
        Ok(Value::Array(vec![
            Value::from(ty.name()),
            Value::from(width),
            payload,
        ]))
    }

    fn charge(&mut self, bytes: usize) -> Result<(), AnnotateError> {
        self.bytes += bytes;
        if self.bytes > self.limits.max_bytes {
            return Err(AnnotateError::TooManyBytes(self.limits.max_bytes));
        }
        Ok(())
    }

    fn enter(&self, depth: usize) -> Result<usize, AnnotateError> {
        if depth >= self.limits.max_depth {
            return Err(AnnotateError::TooDeep(self.limits.max_depth));
        }
        Ok(depth + 1)
    }
}

/// `value` without widths: `[type_name, payload]` at every level, for comparing
/// with something that does not know widths.
pub fn strip_widths(value: &Value) -> Value {
    let Some([ty, _width, payload]) = value.as_array().map(Vec::as_slice) else {
        return value.clone();
    };
    let name = ty.as_str().unwrap_or_default();
    let payload = match payload {
        Value::Array(items) if name == "map" => Value::Array(
            items
                .iter()
                .map(|pair| match pair.as_array().map(Vec::as_slice) {
                    Some([k, v]) => Value::Array(vec![k.clone(), strip_widths(v)]),
                    _ => pair.clone(),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_widths).collect()),
        other => other.clone(),
    };
    Value::Array(vec![ty.clone(), payload])
}

#[cfg(test)]
mod tests {
    use super::*;
    use flexbuf::Builder;

    #[test]
    fn floats_use_the_shortest_round_trip_form() {
        assert_eq!(float_payload(1.0), "1.0");
        assert_eq!(float_payload(-0.0), "-0.0");
        assert_eq!(float_payload(0.1), "0.1");
        assert_eq!(float_payload(f64::from(0.1f32)), "0.10000000149011612");
        assert_eq!(float_payload(1e300), "1e300");
        assert_eq!(float_payload(f64::NAN), "nan");
        assert_eq!(float_payload(-f64::INFINITY), "-inf");
        assert_eq!(float_payload(5e-324), "5e-324");
    }

    #[test]
    fn annotates_a_map_with_widths() {
        let mut b = Builder::new();
        b.start_map();
        b.key("v");
        b.start_vector();
        b.int(-1);
        b.uint(300);
        b.string("é");
        b.end_vector().unwrap();
        b.key("f");
        b.double(0.5);
        b.end_map().unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = flexbuf::verify(&bytes).unwrap().root();
        let got = annotate(&root).unwrap();
        let want: Value = serde_json::from_str(
            r#"["map",4,[["f",["float",4,"0.5"]],
                        ["v",["vector",2,[["int",2,"-1"],["uint",2,"300"],["string",1,"é"]]]]]]"#,
        )
        .unwrap();
        assert_eq!(got, want);
        assert_eq!(
            strip_widths(&got).to_string(),
            r#"["map",[["f",["float","0.5"]],["v",["vector",[["int","-1"],["uint","300"],["string","é"]]]]]]"#
        );
    }

    #[test]
    fn limits_stop_deep_walks() {
        let mut b = Builder::new();
        for _ in 0..10 {
            b.start_vector();
        }
        for _ in 0..10 {
            b.end_vector().unwrap();
        }
        let bytes = b.finish_vec().unwrap();
        let root = Reader::new(&bytes).unwrap();
        let limits = Limits {
            max_depth: 5,
            ..Limits::default()
        };
        assert_eq!(annotate_with(&root, limits), Err(AnnotateError::TooDeep(5)));
        let limits = Limits {
            max_values: 3,
            ..Limits::default()
        };
        assert_eq!(
            annotate_with(&root, limits),
            Err(AnnotateError::TooManyValues(3))
        );
        assert!(annotate(&root).is_ok());

        let mut b = Builder::new();
        b.start_vector();
        b.string("abcd");
        b.string("efgh");
        b.end_vector().unwrap();
        let bytes = b.finish_vec().unwrap();
        let root = Reader::new(&bytes).unwrap();
        let limits = Limits {
            max_bytes: 7,
            ..Limits::default()
        };
        assert_eq!(
            annotate_with(&root, limits),
            Err(AnnotateError::TooManyBytes(7))
        );
    }
}
