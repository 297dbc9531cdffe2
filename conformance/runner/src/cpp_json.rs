//! Building and driving the C++ reference JSON parser (`conformance/cpp/json_parse.cpp`):
//! JSON text into a FlexBuffer by `flatbuffers::Parser::ParseFlexBuffer`, the
//! call sequence `flexbuf::from_json` follows.

use std::path::{Path, PathBuf};

use crate::cpp::{build_tool, pipe};
use crate::error::{Error, Result};
use crate::op::{from_hex, to_hex};

/// A built JSON parser binary.
#[derive(Clone, Debug)]
pub struct CppJsonParser {
    path: PathBuf,
}

impl CppJsonParser {
    /// Builds `json_parse.cpp` into `out` with `build_json.sh`, unless `out`
    /// is newer than the sources.
    pub fn build(out: &Path) -> Result<CppJsonParser> {
        build_tool(
            "build_json.sh",
            &["json_parse.cpp", "build_json.sh", "toolchain.sh"],
            out,
        )?;
        Ok(CppJsonParser {
            path: out.to_path_buf(),
        })
    }

    /// Parses each document: the finished buffer, or the parser's message
    /// when it rejects the text.
    pub fn parse(&self, docs: &[&[u8]]) -> Result<Vec<std::result::Result<Vec<u8>, String>>> {
        let mut input = String::new();
        for doc in docs {
            if doc.is_empty() {
                input.push('-');
            } else {
                input.push_str(&to_hex(doc));
            }
            input.push('\n');
        }
        let (status, stdout, stderr) = pipe(&self.path, &input)?;
        let mut out = Vec::with_capacity(docs.len());
        for line in stdout.lines() {
            if line.starts_with("error ") {
                return Err(Error::Cpp(format!("json_parse {line}")));
            }
            out.push(match line.strip_prefix("rejected ") {
                Some(message) => Err(message.to_string()),
                None => {
                    Ok(from_hex(line).map_err(|e| Error::Cpp(format!("bad output line: {e}")))?)
                }
            });
        }
        if out.len() != docs.len() || !status.success() {
            return Err(Error::Cpp(format!(
                "json_parse exited with {status} after {} of {} documents: {}",
                out.len(),
                docs.len(),
                stderr.trim()
            )));
        }
        Ok(out)
    }
}
