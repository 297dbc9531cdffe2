//! The typed-value case format (`conformance/typed/*.json`, documented in
//! `conformance/typed/README.md`) and its replay with the generated Rust coders.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use flexbuf::{Error, ErrorKind};

/// One case file: a description and its cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseFile {
    /// What the file covers.
    pub description: String,
    /// The cases, in a stable order.
    pub cases: Vec<Case>,
}

/// One typed-value case: decode `input` as `type`, then re-encode it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Unique name, `file/group/detail`.
    pub name: String,
    /// What the case checks.
    pub description: String,
    /// The schema, relative to `conformance/`.
    pub schema: String,
    /// The qualified type to decode (`namespace.Name`).
    #[serde(rename = "type")]
    pub ty: String,
    /// The input buffer as lowercase hex (or see `input_file`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The input buffer as a binary file, relative to `conformance/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_file: Option<String>,
    /// How the input was made: `from_json`, `encoder NS.Type`, or `builder`.
    pub input_source: String,
    /// Informative: the JSON the input holds (the text given to `from_json`,
    /// or `to_json` of the input for other sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_json: Option<String>,
    /// Informative: the same as a file, relative to `conformance/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_json_file: Option<String>,
    /// The outcome every language must reproduce.
    pub expect: Expect,
}

/// The expected outcome: re-encoded bytes, or a decode error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expect {
    /// The generated encoder's bytes for the decoded value, lowercase hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    /// The same as a binary file, relative to `conformance/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_file: Option<String>,
    /// Informative: `to_json` of the expected bytes (the decoded value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<String>,
    /// The decode error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ExpectedError>,
}

/// A decode error every language must report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedError {
    /// What went wrong.
    pub kind: ErrorClass,
    /// Where: `$`, `$.items[3].seller.name`, `$.by_sku["sku 9"]`; absent for
    /// [`ErrorClass::Invalid`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// The language-neutral class of a typed decode error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorClass {
    /// A required field is absent.
    Missing,
    /// Null where the field (or element) is not optional.
    Null,
    /// The stored value has a type the field cannot take.
    Type,
    /// An integer that does not fit the field's type.
    Range,
    /// An integer that is not a value of the field's enum.
    Enum,
    /// A union value that is not a map of exactly one known variant.
    Union,
    /// The bytes are not a valid FlexBuffer (rejected by the verifier).
    Invalid,
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            ErrorClass::Missing => "missing",
            ErrorClass::Null => "null",
            ErrorClass::Type => "type",
            ErrorClass::Range => "range",
            ErrorClass::Enum => "enum",
            ErrorClass::Union => "union",
            ErrorClass::Invalid => "invalid",
        };
        f.write_str(s)
    }
}

/// The class of an error from a generated decoder, or `None` for errors no
/// case expects (budget, builder misuse).
pub fn classify(e: &Error) -> Option<ErrorClass> {
    match e.kind() {
        ErrorKind::TypeMismatch { .. } | ErrorKind::ArrayLength { .. } => Some(ErrorClass::Type),
        ErrorKind::OutOfRange => Some(ErrorClass::Range),
        ErrorKind::MissingField => Some(ErrorClass::Missing),
        ErrorKind::UnexpectedNull => Some(ErrorClass::Null),
        ErrorKind::UnknownEnumValue { .. } => Some(ErrorClass::Enum),
        ErrorKind::UnknownUnionVariant { .. } | ErrorKind::UnionEntryCount { .. } => {
            Some(ErrorClass::Union)
        }
        _ => None,
    }
}

/// What replaying a case with the Rust coders gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Decoded and re-encoded.
    Bytes(Vec<u8>),
    /// Failed with an error of a known class.
    Error(ExpectedError),
    /// Failed with an error no class covers (the message).
    Unclassified(String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Bytes(b) if b.len() > 24 => {
                write!(f, "{} bytes {}...", b.len(), hex(&b[..24]))
            }
            Outcome::Bytes(b) => write!(f, "{} bytes {}", b.len(), hex(b)),
            Outcome::Error(e) => write!(
                f,
                "{} error at {}",
                e.kind,
                e.path.as_deref().unwrap_or("(no path)")
            ),
            Outcome::Unclassified(m) => write!(f, "unclassified error: {m}"),
        }
    }
}

/// Verifies `input`, decodes it as `ty` of `schema` and re-encodes it.
///
/// `Err` when the pair names no generated type.
pub fn replay(schema: &str, ty: &str, input: &[u8]) -> Result<Outcome, String> {
    let coder = crate::dispatch::lookup(schema, ty)
        .ok_or_else(|| format!("no generated Rust type {ty} for {schema}"))?;
    if flexbuf::verify(input).is_err() {
        return Ok(Outcome::Error(ExpectedError {
            kind: ErrorClass::Invalid,
            path: None,
        }));
    }
    Ok(match coder(input) {
        Ok(bytes) => Outcome::Bytes(bytes),
        Err(e) => match classify(&e) {
            Some(kind) => Outcome::Error(ExpectedError {
                kind,
                path: Some(e.path().unwrap_or_else(|| "$".into())),
            }),
            None => Outcome::Unclassified(e.to_string()),
        },
    })
}

/// The `conformance/` directory of this checkout.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Reads a file named relative to `conformance/`.
pub fn read_rel(dir: &Path, rel: &str) -> Result<Vec<u8>, String> {
    std::fs::read(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))
}

/// The input bytes of `case`.
pub fn input_bytes(dir: &Path, case: &Case) -> Result<Vec<u8>, String> {
    match (&case.input, &case.input_file) {
        (Some(h), None) => unhex(h),
        (None, Some(f)) => read_rel(dir, f),
        _ => Err("needs exactly one of input, input_file".into()),
    }
}

/// Replays `case` and compares with its expectation.
pub fn check(dir: &Path, case: &Case) -> Result<(), String> {
    let input = input_bytes(dir, case)?;
    let got = replay(&case.schema, &case.ty, &input)?;
    let e = &case.expect;
    match (&e.bytes, &e.bytes_file, &e.error) {
        (Some(_), None, None) | (None, Some(_), None) => {
            let want = match (&e.bytes, &e.bytes_file) {
                (Some(h), _) => unhex(h)?,
                (_, Some(f)) => read_rel(dir, f)?,
                _ => unreachable!("matched above"),
            };
            match got {
                Outcome::Bytes(b) if b == want => Ok(()),
                Outcome::Bytes(b) => Err(format!(
                    "re-encoded bytes differ from the expected ones at byte {} ({} vs {} bytes)",
                    first_difference(&b, &want),
                    b.len(),
                    want.len()
                )),
                other => Err(format!("expected bytes, got {other}")),
            }
        }
        (None, None, Some(want)) => match got {
            Outcome::Error(g)
                if g.kind == want.kind && (want.path.is_none() || g.path == want.path) =>
            {
                Ok(())
            }
            other => Err(format!(
                "expected {} error at {}, got {other}",
                want.kind,
                want.path.as_deref().unwrap_or("(no path)")
            )),
        },
        _ => Err("expect needs exactly one of bytes, bytes_file, error".into()),
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Every `*.json` case file in `conformance/typed/`, sorted by file name.
pub fn load_all(dir: &Path) -> Result<Vec<(String, CaseFile)>, String> {
    let typed = dir.join("typed");
    let mut names: Vec<String> = std::fs::read_dir(&typed)
        .map_err(|e| format!("{}: {e}", typed.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(typed.join(&n)).map_err(|e| format!("{n}: {e}"))?;
            let file: CaseFile = serde_json::from_str(&text).map_err(|e| format!("{n}: {e}"))?;
            Ok((n, file))
        })
        .collect()
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// The bytes of a hex string (either case).
pub fn unhex(text: &str) -> Result<Vec<u8>, String> {
    if text.len() & 1 == 1 {
        return Err("hex text of odd length".into());
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).map_err(|_| "non-ASCII hex".to_string())?;
            u8::from_str_radix(s, 16).map_err(|_| format!("bad hex digits {s:?}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bytes = [0u8, 1, 0x7f, 0x80, 0xff];
        assert_eq!(hex(&bytes), "00017f80ff");
        assert_eq!(unhex("00017F80ff").unwrap(), bytes);
        assert!(unhex("0").is_err());
        assert!(unhex("zz").is_err());
    }

    #[test]
    fn classes_serialize_lowercase() {
        let e = ExpectedError {
            kind: ErrorClass::Missing,
            path: Some("$.street".into()),
        };
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"kind":"missing","path":"$.street"}"#
        );
    }
}
