//! Lexing and parsing `.fxs` files and following their imports: the syntax
//! trees, before names are resolved (`check`) and the model is built.

pub(crate) mod ast;
pub(crate) mod lexer;
mod parser;

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::diag::Diagnostic;
use ast::FileAst;
use lexer::Pos;

/// One parsed file and the files it imports (indices into the file list).
pub(crate) struct LoadedFile {
    pub path: PathBuf,
    pub ast: FileAst,
    pub imports: Vec<usize>,
}

/// Parses `text` (the file `file_name`) and, depth first, the files it
/// imports (read with `load`). Returns the files, each after its imports,
/// the root file's index, and the lexical, syntax and import errors.
pub(crate) fn load(
    file_name: &Path,
    text: &str,
    load: &dyn Fn(&Path) -> io::Result<String>,
) -> (Vec<LoadedFile>, usize, Vec<Diagnostic>) {
    let mut loader = Loader {
        load,
        files: Vec::new(),
        index: HashMap::new(),
        in_progress: Vec::new(),
        diags: Vec::new(),
    };
    let root = loader.visit(normalize(file_name), text);
    (loader.files, root, loader.diags)
}

/// Removes `.` components and folds `dir/..` pairs, without touching the file
/// system (so in-memory loaders see stable keys).
pub(crate) fn normalize(path: &Path) -> PathBuf {
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
