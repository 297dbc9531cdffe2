//! Reading a schema: [`crate::parse`] lexes, parses and follows imports,
//! then the checker resolves names and builds the model (see
//! `docs/schema.md` for the language).
//!
//! ```
//! use flexbuf::schema::TypeRef;
//!
//! let parsed = flexbuf_codegen::parse_str(
//!     "shop.fxs",
//!     "namespace shop;\nmessage Item { name: string (required); qty: u32 = 1; }",
//! )
//! .unwrap();
//! let item = parsed.schema.message("shop.Item").unwrap();
//! assert_eq!(item.fields[1].ty, TypeRef::U32);
//!
//! let err = flexbuf_codegen::parse_str("bad.fxs", "message A { x: Strin; }").unwrap_err();
//! assert_eq!(err.to_string(), "bad.fxs:1:16: error: unknown type `Strin`\nhint: did you mean `string`?");
//! ```

use std::collections::HashMap;
use std::io;
use std::path::Path;

use crate::check;
use crate::diag::{Diagnostic, Diagnostics};
use crate::parse;
use crate::source::ParsedSchema;

/// Parses the schema file at `path` and the files it imports (import paths
/// are relative to the importing file). A file imported several times is read
/// and parsed once; an import cycle is an error.
///
/// An unreadable root file is reported at line 1, column 1 of that path.
pub fn parse_file(path: &Path) -> Result<ParsedSchema, Diagnostics> {
    let text = read_schema_file(path).map_err(|e| {
        Diagnostic::new(
            parse::normalize(path),
            1,
            1,
            format!("cannot read `{}`: {e}", path.display()),
        )
    })?;
    parse_with_loader(path, &text, &read_schema_file)
}

/// Parses schema text held in memory, named `file_name` in diagnostics.
/// Imports are read from the file system, relative to `file_name`'s directory
/// (the current directory for a bare name).
pub fn parse_str(file_name: impl AsRef<Path>, text: &str) -> Result<ParsedSchema, Diagnostics> {
    parse_with_loader(file_name, text, &read_schema_file)
}

/// Largest schema file read from disk (16 MiB): far above any real schema,
/// it bounds what an import of the wrong file costs.
pub const MAX_SCHEMA_BYTES: u64 = 16 << 20;

/// Reads a schema file from disk: a regular file of at most
/// [`MAX_SCHEMA_BYTES`], as UTF-8. Anything else is an error, so that an
/// import of a device or a pipe (`/dev/zero`, a FIFO) fails at once instead
/// of reading without end or waiting for a writer.
pub fn read_schema_file(path: &Path) -> io::Result<String> {
    use std::io::Read;
    // Checked before opening: opening a FIFO waits for a writer. (Whatever
    // the path names by the time it is opened, at most one byte past the
    // limit is read.)
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} MiB", MAX_SCHEMA_BYTES >> 20),
        )
    };
    if meta.len() > MAX_SCHEMA_BYTES {
        return Err(too_large());
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_SCHEMA_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_SCHEMA_BYTES {
        return Err(too_large());
    }
    Ok(text)
}

/// Parses schema text held in memory, reading imports with `load`, which is
/// called with the import's path joined onto the importing file's directory
/// and lexically normalized, at most once per distinct path.
///
/// ```
/// use std::io;
/// use std::path::Path;
///
/// let load = |p: &Path| match p.to_str() {
///     Some("schemas/common.fxs") => Ok("namespace common; message Geo { lat: f64; lon: f64; }".to_string()),
///     _ => Err(io::Error::from(io::ErrorKind::NotFound)),
/// };
/// let text = "namespace app;\nimport \"common.fxs\";\nmessage Place { geo: common.Geo?; }";
/// let parsed = flexbuf_codegen::parse_with_loader("schemas/app.fxs", text, &load).unwrap();
/// assert_eq!(parsed.files.len(), 2);
/// assert_eq!(parsed.root().types, vec!["app.Place".to_string()]);
/// ```
pub fn parse_with_loader(
    file_name: impl AsRef<Path>,
    text: &str,
    load: &dyn Fn(&Path) -> io::Result<String>,
) -> Result<ParsedSchema, Diagnostics> {
    let (files, root_file, mut diags) = parse::load(file_name.as_ref(), text, load);
    if diags.is_empty() {
        let (schema, sources, positions, ts_int64, check_diags) = check::check(&files);
        if check_diags.is_empty() {
            return Ok(ParsedSchema {
                schema,
                files: sources,
                root_file,
                positions,
                ts_int64,
            });
        }
        diags = check_diags;
    }
    let order: HashMap<&Path, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_path(), i))
        .collect();
    diags.sort_by_key(|d| {
        (
            order.get(d.file.as_path()).copied().unwrap_or(usize::MAX),
            d.line,
            d.column,
        )
    });
    Err(Diagnostics(diags))
}
