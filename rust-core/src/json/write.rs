//! FlexBuffers → JSON text.

use core::fmt::Write as _;

use super::{JsonOptions, NonFinite};
use crate::budget::Budget;
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::reader::Reader;
use crate::types::FlexType;
use crate::verify::verify_with;

/// Verifies `buf` and writes it as compact JSON.
///
/// ```
/// let bytes = flexbuf::from_json(r#"{"b":[1,2.5,"x"],"a":null}"#).unwrap();
/// assert_eq!(flexbuf::to_json(&bytes).unwrap(), r#"{"a":null,"b":[1,2.5,"x"]}"#);
/// ```
pub fn to_json(buf: &[u8]) -> Result<String> {
    to_json_with(buf, &JsonOptions::default())
}

/// Verifies `buf` and writes it as JSON with explicit options.
pub fn to_json_with(buf: &[u8], options: &JsonOptions) -> Result<String> {
    let root = verify_with(buf, &options.verify)?.root();
    let mut budget = match options.max_output_bytes {
        Some(max) => Budget::new(max, max),
        None => Budget::for_input(buf.len()),
    };
    let mut out = String::with_capacity(buf.len() * 2);
    write_json(&root, options, &mut budget, &mut out)?;
    Ok(out)
}

/// Appends the JSON text of `value` to `out`, charging `budget` per node and output byte.
pub fn write_json(
    value: &Reader<'_>,
    options: &JsonOptions,
    budget: &mut Budget,
    out: &mut String,
) -> Result<()> {
    let mut w = Writer {
        options,
        budget,
        out,
        indent: 0,
    };
    w.value(value)
}

struct Writer<'o> {
    options: &'o JsonOptions,
    budget: &'o mut Budget,
    out: &'o mut String,
    indent: usize,
}

impl Writer<'_> {
    fn value(&mut self, r: &Reader<'_>) -> Result<()> {
        self.budget.node().map_err(|e| e.with_offset(r.offset()))?;
        let before = self.out.len();
        match r.flex_type() {
            FlexType::Null => self.out.push_str("null"),
            FlexType::Bool => self
                .out
                .push_str(if r.as_bool()? { "true" } else { "false" }),
            FlexType::Int | FlexType::IndirectInt => {
                let _ = write!(self.out, "{}", r.as_i64()?);
            }
            FlexType::UInt | FlexType::IndirectUInt => {
                let _ = write!(self.out, "{}", r.as_u64()?);
            }
            FlexType::Float | FlexType::IndirectFloat => self
                .float(r.as_f64()?)
                .map_err(|e| e.with_offset(r.offset()))?,
            FlexType::String | FlexType::Key => {
                let s = r.as_str()?;
                self.budget.bytes(s.len())?;
                write_escaped(self.out, s);
            }
            FlexType::Blob => {
                let b = r.as_blob()?;
                self.budget.bytes(b.len() * 4 / 3 + 4)?;
                self.out.push('"');
                base64(self.out, b);
                self.out.push('"');
            }
            FlexType::Map => return self.map(r),
            _ => return self.vector(r),
        }
        self.budget.bytes(self.out.len() - before)
    }

    fn float(&mut self, f: f64) -> Result<()> {
        if f.is_finite() {
            // Debug formatting is the shortest representation that reads back to
            // the same f64, with an exponent for very large or small magnitudes.
            let _ = write!(self.out, "{f:?}");
            return Ok(());
        }
        match self.options.non_finite {
            NonFinite::Error => return Err(Error::new(ErrorKind::NonFiniteFloat)),
            NonFinite::Null => self.out.push_str("null"),
            NonFinite::Literal => self.out.push_str(if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            }),
        }
        Ok(())
    }

    fn newline(&mut self) {
        if self.options.pretty {
            self.out.push('\n');
            for _ in 0..self.indent {
                self.out.push_str("  ");
            }
        }
    }

    fn map(&mut self, r: &Reader<'_>) -> Result<()> {
        let m = r.as_map()?;
        self.out.push('{');
        self.indent += 1;
        for i in 0..m.len() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline();
            let key = m.key(i)?;
            self.budget.bytes(key.len() + 4)?;
            write_escaped(self.out, key);
            self.out.push(':');
            if self.options.pretty {
                self.out.push(' ');
            }
            self.value(&m.value(i)?)
                .map_err(|e| e.in_segment(PathSegment::Key(key)))?;
        }
        self.indent -= 1;
        if !m.is_empty() {
            self.newline();
        }
        self.out.push('}');
        self.budget.bytes(2)
    }

    fn vector(&mut self, r: &Reader<'_>) -> Result<()> {
        let v = r.as_vector()?;
        self.out.push('[');
        self.indent += 1;
        for i in 0..v.len() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline();
            self.value(&v.get(i)?)
                .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
        }
        self.indent -= 1;
        if !v.is_empty() {
            self.newline();
        }
        self.out.push(']');
        self.budget.bytes(2)
    }
}

/// Writes `s` as a JSON string literal (RFC 8259 escapes; non-ASCII kept as UTF-8).
pub(crate) fn write_escaped(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(out: &mut String, data: &[u8]) {
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut s = String::new();
            base64(&mut s, input.as_bytes());
            assert_eq!(s, expected);
        }
    }

    #[test]
    fn escapes_controls_and_quotes() {
        let mut s = String::new();
        write_escaped(&mut s, "a\"b\\c\n\u{1}é");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001é\"");
    }
}
