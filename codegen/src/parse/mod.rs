//! Reading `.fxs` files: lexing, parsing, following imports, then checking
//! (see `docs/schema.md` for the language).
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

pub(crate) mod ast;
pub(crate) mod lexer;
mod parser;

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Component, Path, PathBuf};

use flexbuf::schema::Schema;

use crate::check::{self, LoadedFile};
use crate::diag::{Diagnostic, Diagnostics};
use lexer::Pos;

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

/// Parses the schema file at `path` and the files it imports (import paths
/// are relative to the importing file). A file imported several times is read
/// and parsed once; an import cycle is an error.
///
/// An unreadable root file is reported at line 1, column 1 of that path.
pub fn parse_file(path: &Path) -> Result<ParsedSchema, Diagnostics> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostic::new(
            normalize(path),
            1,
            1,
            format!("cannot read `{}`: {e}", path.display()),
        )
    })?;
    parse_with_loader(path, &text, &|p: &Path| std::fs::read_to_string(p))
}

/// Parses schema text held in memory, named `file_name` in diagnostics.
/// Imports are read from the file system, relative to `file_name`'s directory
/// (the current directory for a bare name).
pub fn parse_str(file_name: impl AsRef<Path>, text: &str) -> Result<ParsedSchema, Diagnostics> {
    parse_with_loader(file_name, text, &|p: &Path| std::fs::read_to_string(p))
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
    let mut loader = Loader {
        load,
        files: Vec::new(),
        index: HashMap::new(),
        in_progress: Vec::new(),
        diags: Vec::new(),
    };
    let root_file = loader.visit(normalize(file_name.as_ref()), text);
    let Loader {
        files, mut diags, ..
    } = loader;
    if diags.is_empty() {
        let (schema, sources, positions, check_diags) = check::check(&files);
        if check_diags.is_empty() {
            return Ok(ParsedSchema {
                schema,
                files: sources,
                root_file,
                positions,
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

/// Removes `.` components and folds `dir/..` pairs, without touching the file
/// system (so in-memory loaders see stable keys).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !matches!(
                    out.components().next_back(),
                    Some(Component::RootDir | Component::Prefix(_))
                ) {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

struct Loader<'l> {
    load: &'l dyn Fn(&Path) -> io::Result<String>,
    files: Vec<LoadedFile>,
    index: HashMap<PathBuf, usize>,
    /// Files whose imports are being loaded (the current import chain).
    in_progress: Vec<PathBuf>,
    diags: Vec<Diagnostic>,
}

impl Loader<'_> {
    fn error(&mut self, path: &Path, pos: Pos, message: String, hint: Option<String>) {
        let mut d = Diagnostic::new(path, pos.line, pos.col, message);
        d.hint = hint;
        self.diags.push(d);
    }

    /// Parses `text` (the file at `path`) and, depth first, its imports;
    /// returns the file's index. Files are stored after their imports.
    fn visit(&mut self, path: PathBuf, text: &str) -> usize {
        let (tokens, lex_errors) = lexer::lex(text);
        for e in lex_errors {
            self.error(&path, e.pos, e.message, e.hint);
        }
        let (ast, syntax_errors) = parser::parse(tokens);
        for e in syntax_errors {
            self.error(&path, e.pos, e.message, e.hint);
        }
        self.in_progress.push(path.clone());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut imports = Vec::new();
        for import in &ast.imports {
            let target = normalize(&dir.join(&import.value));
            if let Some(at) = self.in_progress.iter().position(|p| *p == target) {
                let chain: Vec<String> = self.in_progress[at..]
                    .iter()
                    .chain([&target])
                    .map(|p| p.display().to_string())
                    .collect();
                let message = format!("import cycle: {}", chain.join(" -> "));
                self.error(
                    &path,
                    import.pos,
                    message,
                    Some("move the shared types into a file that both can import".into()),
                );
                continue;
            }
            let index = match self.index.get(&target) {
                Some(&i) => i,
                None => match (self.load)(&target) {
                    Ok(text) => self.visit(target, &text),
                    Err(e) => {
                        let message = format!("cannot read imported file `{}`: {e}", import.value);
                        let hint = format!(
                            "looked for `{}` (import paths are relative to the importing file)",
                            target.display()
                        );
                        self.error(&path, import.pos, message, Some(hint));
                        continue;
                    }
                },
            };
            if !imports.contains(&index) {
                imports.push(index);
            }
        }
        self.in_progress.pop();
        let index = self.files.len();
        self.index.insert(path.clone(), index);
        self.files.push(LoadedFile { path, ast, imports });
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_folds_dots() {
        assert_eq!(
            normalize(Path::new("./a/b/../c.fxs")),
            PathBuf::from("a/c.fxs")
        );
        assert_eq!(
            normalize(Path::new("../x/./y.fxs")),
            PathBuf::from("../x/y.fxs")
        );
        assert_eq!(
            normalize(Path::new("a/../../b.fxs")),
            PathBuf::from("../b.fxs")
        );
        assert_eq!(normalize(Path::new("/r/../s.fxs")), PathBuf::from("/s.fxs"));
    }
}
