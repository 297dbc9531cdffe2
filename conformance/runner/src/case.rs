//! Build cases: ops, the golden bytes the C++ reference wrote for them, and
//! the annotated value those bytes hold. Stored as JSON under `conformance/cases/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::op::{from_hex, ops_from_json, to_hex, Op};

/// Deviation tag: `indirect_double` of an f32-exact value writes the f32
/// (C++ writes the low half of the double; upstream issue 8340).
pub const DEVIATION_INDIRECT_DOUBLE: &str = "indirect-double-f32";

/// Deviation tag: C++ writes a typed vector of strings (deprecated type 15);
/// our builder refuses to. The bytes come from C++ and are read, never built.
pub const DEVIATION_STRING_VECTOR: &str = "typed-string-vector";

/// Every deviation tag a case may carry.
pub const DEVIATIONS: [&str; 2] = [DEVIATION_INDIRECT_DOUBLE, DEVIATION_STRING_VECTOR];

/// One build case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Unique name across all case files.
    pub name: String,
    /// What the case covers (and, for published goldens, where they come from).
    pub description: String,
    /// C++ `BuilderFlag` value, 0..7.
    pub flags: u8,
    /// The builder calls; the buffer is finished after the last one.
    pub ops: Vec<Op>,
    /// The bytes the C++ reference builder wrote.
    pub bytes: Vec<u8>,
    /// The annotated value of `bytes`.
    pub value: Value,
    /// A recorded deviation from C++ (one of [`DEVIATIONS`]), if the case shows one.
    pub deviation: Option<String>,
}

impl Case {
    /// True when our builder is expected to refuse the ops (the bytes are read-only goldens).
    pub fn builder_refuses(&self) -> bool {
        self.deviation.as_deref() == Some(DEVIATION_STRING_VECTOR)
    }

    fn from_json(v: &Value, origin: &str) -> Result<Case> {
        let obj = v
            .as_object()
            .ok_or_else(|| Error::json(origin, "a case is a JSON object"))?;
        let text = |key: &str| -> Result<String> {
            obj.get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| Error::json(origin, format!("case field {key:?} must be a string")))
        };
        let name = text("name")?;
        let at = format!("{origin}: case {name}");
        let flags = obj
            .get("flags")
            .and_then(Value::as_u64)
            .filter(|f| *f <= 7)
            .ok_or_else(|| Error::json(&at, "flags must be an integer in 0..7"))?;
        let ops = ops_from_json(obj.get("ops").unwrap_or(&Value::Null))
            .map_err(|e| Error::json(&at, e))?;
        let bytes = from_hex(&text("bytes")?).map_err(|e| Error::json(&at, e))?;
        let value = obj
            .get("value")
            .cloned()
            .ok_or_else(|| Error::json(&at, "missing value"))?;
        let deviation = match obj.get("deviation") {
            None => None,
            Some(Value::String(d)) if DEVIATIONS.contains(&d.as_str()) => Some(d.clone()),
            Some(other) => return Err(Error::json(&at, format!("unknown deviation {other}"))),
        };
        for key in obj.keys() {
            if ![
                "name",
                "description",
                "flags",
                "deviation",
                "ops",
                "bytes",
                "value",
            ]
            .contains(&key.as_str())
            {
                return Err(Error::json(&at, format!("unknown case field {key:?}")));
            }
        }
        Ok(Case {
            description: text("description")?,
            name,
            flags: flags as u8,
            ops,
            bytes,
            value,
            deviation,
        })
    }

    fn write_json(&self, out: &mut String) {
        let s = |v: &str| Value::from(v).to_string();
        out.push_str("    {\n");
        out.push_str(&format!("      \"name\": {},\n", s(&self.name)));
        out.push_str(&format!(
            "      \"description\": {},\n",
            s(&self.description)
        ));
        out.push_str(&format!("      \"flags\": {},\n", self.flags));
        if let Some(d) = &self.deviation {
            out.push_str(&format!("      \"deviation\": {},\n", s(d)));
        }
        out.push_str("      \"ops\": [");
        for (i, op) in self.ops.iter().enumerate() {
            out.push_str(if i == 0 { "\n        " } else { ",\n        " });
            out.push_str(&op.to_json().to_string());
        }
        out.push_str(if self.ops.is_empty() {
            "],\n"
        } else {
            "\n      ],\n"
        });
        out.push_str(&format!("      \"bytes\": \"{}\",\n", to_hex(&self.bytes)));
        out.push_str(&format!("      \"value\": {}\n", self.value));
        out.push_str("    }");
    }
}

/// One file of cases on a topic.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseFile {
    /// File name inside the cases directory, e.g. `scalars.json`.
    pub file: String,
    /// What the file covers.
    pub description: String,
    /// Its cases.
    pub cases: Vec<Case>,
}

/// Parses JSON without serde_json's recursion limit: annotated values of
/// deeply nested maps are legitimately deep.
pub fn parse_json(text: &str, origin: &str) -> Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).map_err(|e| Error::json(origin, e))?;
    de.end().map_err(|e| Error::json(origin, e))?;
    Ok(v)
}

impl CaseFile {
    /// Parses a case file's text.
    pub fn parse(file: &str, text: &str) -> Result<CaseFile> {
        let v = parse_json(text, file)?;
        let obj: &Map<String, Value> = v
            .as_object()
            .ok_or_else(|| Error::json(file, "a case file is a JSON object"))?;
        let description = obj
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let cases = obj
            .get("cases")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::json(file, "missing \"cases\" array"))?
            .iter()
            .map(|c| Case::from_json(c, file))
            .collect::<Result<Vec<_>>>()?;
        Ok(CaseFile {
            file: file.to_string(),
            description,
            cases,
        })
    }

    /// The file's text: stable layout, one op per line, so diffs stay readable.
    pub fn to_json_text(&self) -> String {
        let mut out = String::from("{\n");
        out.push_str(&format!(
            "  \"description\": {},\n  \"cases\": [\n",
            Value::from(self.description.as_str())
        ));
        for (i, case) in self.cases.iter().enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            case.write_json(&mut out);
        }
        out.push_str("\n  ]\n}\n");
        out
    }
}

/// The default cases directory, `conformance/cases`.
pub fn default_dir() -> PathBuf {
    crate::cpp::repo_root().join("conformance/cases")
}

/// Loads every `*.json` file of `dir`, sorted by name, and checks that case
/// names are unique.
pub fn load_dir(dir: &Path) -> Result<Vec<CaseFile>> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let mut files = Vec::new();
    let mut seen = BTreeSet::new();
    for path in names {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let file = CaseFile::parse(&file_name, &text)?;
        for case in &file.cases {
            if !seen.insert(case.name.clone()) {
                return Err(Error::case(
                    &case.name,
                    format!("name repeated in {file_name}"),
                ));
            }
        }
        files.push(file);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_files_round_trip_through_text() {
        let file = CaseFile {
            file: "t.json".into(),
            description: "test \"quoted\"".into(),
            cases: vec![
                Case {
                    name: "a".into(),
                    description: "d".into(),
                    flags: 1,
                    ops: vec![Op::Int(-5)],
                    bytes: vec![0xfb, 4, 1],
                    value: serde_json::json!(["int", 1, "-5"]),
                    deviation: None,
                },
                Case {
                    name: "b".into(),
                    description: "e".into(),
                    flags: 7,
                    ops: vec![Op::IndirectDouble(0x4008_0000_0000_0000)],
                    bytes: vec![0, 0, 0x40, 0x40, 4, 0x22, 1],
                    value: serde_json::json!(["indirect_float", 4, "3.0"]),
                    deviation: Some(DEVIATION_INDIRECT_DOUBLE.into()),
                },
            ],
        };
        let text = file.to_json_text();
        assert!(text.contains("\n        [\"int\",-5]\n"), "{text}");
        assert_eq!(CaseFile::parse("t.json", &text).unwrap(), file);
    }

    #[test]
    fn unknown_fields_and_deviations_are_rejected() {
        let bad = r#"{"cases":[{"name":"x","description":"","flags":0,"ops":[],
                      "bytes":"000001","value":null,"deviation":"made-up"}]}"#;
        assert!(CaseFile::parse("x.json", bad).is_err());
        let bad = r#"{"cases":[{"name":"x","description":"","flags":0,"ops":[],
                      "bytes":"000001","value":null,"extra":1}]}"#;
        assert!(CaseFile::parse("x.json", bad).is_err());
        let bad = r#"{"cases":[{"name":"x","description":"","flags":8,"ops":[],
                      "bytes":"000001","value":null}]}"#;
        assert!(CaseFile::parse("x.json", bad).is_err());
    }

    #[test]
    fn deep_values_parse() {
        let mut text = String::new();
        for _ in 0..300 {
            text.push('[');
        }
        for _ in 0..300 {
            text.push(']');
        }
        assert!(parse_json(&text, "deep").is_ok());
    }
}
