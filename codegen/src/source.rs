//! What parsing yields: the schema model, its files, and where every
//! declaration was written.

use std::collections::BTreeMap;
use std::path::PathBuf;

use flexbuf::schema::Schema;

use crate::diag::Diagnostic;

/// One `.fxs` file of a parsed schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The path it was read from: the root file's path as given, an import's
    /// path joined onto its importer's directory; both lexically normalized
    /// (`.` and `dir/..` removed).
    pub path: PathBuf,
    /// Its `namespace`, if it declares one.
    pub namespace: Option<String>,
    /// The files it imports directly, as indices into [`ParsedSchema::files`],
    /// in the order of its `import` lines (duplicates removed).
    pub imports: Vec<usize>,
    /// Qualified names of the types it declares, in declaration order
    /// (messages, enums and unions mixed; look them up in the schema).
    pub types: Vec<String>,
}

/// Where a declaration's name was written: a file of [`ParsedSchema::files`]
/// and a 1-based line and column (characters), as in diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Index into [`ParsedSchema::files`].
    pub file: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// A schema parsed from a root file and everything it imports.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedSchema {
    /// Every type of every file. Messages, enums and unions are each listed
    /// file by file in the order of [`ParsedSchema::files`], then in
    /// declaration order.
    pub schema: Schema,
    /// The files, each after the files it imports (so dependencies come
    /// first and the root file is last).
    pub files: Vec<SourceFile>,
    /// Index of the root file in [`ParsedSchema::files`].
    pub root_file: usize,
    /// Where each name was declared, keyed by (qualified type name, member):
    /// the member is `""` for the type itself, else a field, enum variant or
    /// union variant name.
    pub positions: BTreeMap<(String, String), Position>,
    /// The `ts_int64 = "..."` attribute of each field that has one, keyed
    /// by (qualified message name, field name): how the TypeScript coders
    /// type that field's 64-bit integers (`auto`, `checked` or `bigint`),
    /// overriding `--ts-int64` for it. No other backend reads it, and it
    /// changes nothing on the wire.
    pub ts_int64: BTreeMap<(String, String), String>,
}

impl ParsedSchema {
    /// The file that was parsed (not an import).
    pub fn root(&self) -> &SourceFile {
        &self.files[self.root_file]
    }

    /// A diagnostic at the declaration of `member` of type `type_name`
    /// (`""` for the type itself); at the root file's start when unknown.
    pub fn diagnostic_at(
        &self,
        type_name: &str,
        member: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        let key = (type_name.to_string(), member.to_string());
        match self.positions.get(&key) {
            Some(p) => Diagnostic::new(self.files[p.file].path.clone(), p.line, p.column, message),
            None => Diagnostic::new(self.root().path.clone(), 1, 1, message),
        }
    }

    /// The file that declares the type with this qualified name.
    pub fn file_of(&self, type_name: &str) -> Option<&SourceFile> {
        self.files
            .iter()
            .find(|f| f.types.iter().any(|t| t == type_name))
    }
}
