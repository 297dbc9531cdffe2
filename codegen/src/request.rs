//! One `gen` request, as every host of the generator passes it: the `flexbuf`
//! CLI, `python -m flexbuf gen` (the wheel's native module), `npx flexbuf
//! gen` (the Node addon) and the Maven plugin (the Kotlin SDK's native
//! library). Each host parses its own command line the way its ecosystem
//! expects and hands the result here, so every one of them generates the same
//! files from the same schema and reports the same diagnostics.
//!
//! The Swift SDK (the next phase) plugs in the same way: a `swift` backend
//! joins [`backend::BACKENDS`] (so every host above can generate Swift too),
//! and a SwiftPM build-tool plugin declared in the root `Package.swift` runs
//! the `flexbuf` CLI, built from this workspace offline, as
//! `flexbuf gen --lang swift <schema> -o <the plugin's work directory>` for
//! each `.fxs` file of a target, so SwiftPM compiles the output as part of the
//! build. Nothing in this module needs to change for it.
//!
//! ```
//! use flexbuf_codegen::request::{GenError, GenRequest};
//! let dir = std::env::temp_dir().join(format!("fxs-request-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let schema = dir.join("point.fxs");
//! std::fs::write(&schema, "namespace geo;\nmessage Point { x: f64; y: f64; }\n").unwrap();
//! let written = GenRequest::new("python", &schema, &dir.join("out")).run().unwrap();
//! assert!(written[0].ends_with("point.py"));
//! let bad = GenRequest::new("cobol", &schema, &dir).run().unwrap_err();
//! assert!(matches!(bad, GenError::Usage(_)));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use crate::backend::typescript::{Int64, TypeScript};
use crate::backend::{self, Backend};

/// What to generate and where.
#[derive(Clone, Debug)]
pub struct GenRequest<'a> {
    /// A backend name of [`backend::BACKENDS`] (`rust`, `python`, `ts`, `kotlin`).
    pub lang: &'a str,
    /// The root schema file; its imports are followed.
    pub schema: &'a Path,
    /// The output directory (created when missing).
    pub output: &'a Path,
    /// With `lang == "ts"`: how `i64`/`u64` are typed (`auto`, `checked` or
    /// `bigint`; `None` is `auto`).
    pub ts_int64: Option<&'a str>,
}

/// Why a request produced nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The request itself is wrong (unknown language, an option for another
    /// language, an output directory that cannot be created): a usage error.
    Usage(String),
    /// The schema has errors (printable `file:line:column` diagnostics), or a
    /// file could not be read or written.
    Schema(String),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Usage(m) | GenError::Schema(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for GenError {}

/// The `--ts-int64` values, for hosts that list choices.
pub const TS_INT64: [&str; 3] = ["auto", "checked", "bigint"];

/// Names and one-line summaries of every backend, for hosts that list choices.
pub fn languages() -> Vec<(&'static str, &'static str)> {
    backend::BACKENDS
        .iter()
        .map(|b| (b.name(), b.summary()))
        .collect()
}

impl<'a> GenRequest<'a> {
    /// A request with default options.
    pub fn new(lang: &'a str, schema: &'a Path, output: &'a Path) -> GenRequest<'a> {
        GenRequest {
            lang,
            schema,
            output,
            ts_int64: None,
        }
    }

    /// Generates the files and returns the paths written.
    pub fn run(&self) -> Result<Vec<PathBuf>, GenError> {
        let chosen = backend::find(self.lang).ok_or_else(|| {
            let names: Vec<&str> = languages().iter().map(|l| l.0).collect();
            GenError::Usage(format!(
                "unknown language `{}` (expected one of: {})",
                self.lang,
                names.join(", ")
            ))
        })?;
        let ts;
        let chosen: &dyn Backend = match self.ts_int64 {
            None | Some("auto") => chosen,
            Some(_) if self.lang != "ts" => {
                return Err(GenError::Usage(
                    "the TypeScript int64 policy applies to `ts` only".into(),
                ))
            }
            Some(policy) => {
                let int64 = Int64::from_name(policy).ok_or_else(|| {
                    GenError::Usage(format!(
                        "unknown TypeScript int64 policy `{policy}` (expected one of: {})",
                        TS_INT64.join(", ")
                    ))
                })?;
                ts = TypeScript { int64 };
                &ts
            }
        };
        std::fs::create_dir_all(self.output).map_err(|e| {
            GenError::Usage(format!("cannot create {}: {e}", self.output.display()))
        })?;
        crate::generate_to_dir(chosen, self.schema, self.output).map_err(GenError::Schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fxs-request-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_schema_error_names_its_position_and_writes_nothing() {
        let dir = scratch("bad");
        let schema = dir.join("bad.fxs");
        std::fs::write(&schema, "message A { x: nosuch; }\n").unwrap();
        let out = dir.join("out");
        let e = GenRequest::new("kotlin", &schema, &out).run().unwrap_err();
        let GenError::Schema(text) = &e else {
            panic!("{e:?}")
        };
        assert!(text.contains("bad.fxs:1:"), "{text}");
        assert!(std::fs::read_dir(&out).unwrap().next().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_int64_policy_is_checked_and_changes_typescript_only() {
        let dir = scratch("int64");
        let schema = dir.join("n.fxs");
        std::fs::write(&schema, "message N { v: i64; }\n").unwrap();
        let mut r = GenRequest::new("ts", &schema, &dir);
        r.ts_int64 = Some("bigint");
        let bigint = std::fs::read_to_string(&r.run().unwrap()[0]).unwrap();
        r.ts_int64 = None;
        let auto = std::fs::read_to_string(&r.run().unwrap()[0]).unwrap();
        assert_ne!(bigint, auto);
        r.ts_int64 = Some("huge");
        assert!(matches!(r.run(), Err(GenError::Usage(m)) if m.contains("huge")));
        r.lang = "python";
        r.ts_int64 = Some("bigint");
        assert!(matches!(r.run(), Err(GenError::Usage(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
