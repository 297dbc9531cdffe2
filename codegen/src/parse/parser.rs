//! Recursive-descent parser: tokens to [`FileAst`], with simple error recovery
//! (skip to the end of the field, or to the next declaration) so that one run
//! reports several syntax errors.

use flexbuf::schema::TypeRef;

use super::ast::*;
use super::lexer::{Pos, Tok, Token};

/// A syntax error.
#[derive(Clone, Debug)]
pub(crate) struct SyntaxError {
    pub pos: Pos,
    pub message: String,
    pub hint: Option<String>,
}

/// Parses one file's tokens (as produced by the lexer, ending with `Eof`).
pub(crate) fn parse(tokens: Vec<Token>) -> (FileAst, Vec<SyntaxError>) {
    let mut p = Parser {
        tokens,
        i: 0,
        errors: Vec::new(),
    };
    let ast = p.file();
    (ast, p.errors)
}

/// An error has been recorded; the caller recovers.
struct Recover;

type PResult<T> = Result<T, Recover>;

struct Parser {
    tokens: Vec<Token>,
    i: usize,
    errors: Vec<SyntaxError>,
}

fn builtin(kw: &str) -> Option<TypeRef> {
    Some(match kw {
        "bool" => TypeRef::Bool,
        "i8" => TypeRef::I8,
        "i16" => TypeRef::I16,
        "i32" => TypeRef::I32,
        "i64" => TypeRef::I64,
        "u8" => TypeRef::U8,
        "u16" => TypeRef::U16,
        "u32" => TypeRef::U32,
        "u64" => TypeRef::U64,
        "f32" => TypeRef::F32,
        "f64" => TypeRef::F64,
        "string" => TypeRef::String,
        "bytes" => TypeRef::Bytes,
        _ => return None,
    })
}

impl Parser {
    fn tok(&self) -> &Tok {
        &self.tokens[self.i].tok
    }

    fn peek_tok(&self, ahead: usize) -> &Tok {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.i + ahead).min(last)].tok
    }

    fn pos(&self) -> Pos {
        self.tokens[self.i].pos
    }

    fn doc(&self) -> Vec<String> {
        self.tokens[self.i].doc.clone()
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.i].clone();
        if t.tok != Tok::Eof {
            self.i += 1;
        }
        t
    }

    fn is_punct(&self, c: char) -> bool {
        *self.tok() == Tok::Punct(c)
    }

    fn is_keyword(&self, kw: &str) -> bool {
        matches!(self.tok(), Tok::Keyword(k) if *k == kw)
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let hit = self.is_punct(c);
        if hit {
            self.bump();
        }
        hit
    }

    fn error_at(&mut self, pos: Pos, message: impl Into<String>, hint: Option<String>) {
        self.errors.push(SyntaxError {
            pos,
            message: message.into(),
            hint,
        });
    }

    /// "expected X, found <current token>" at the current token.
    fn expected<T>(&mut self, what: &str) -> PResult<T> {
        if *self.tok() == Tok::Invalid {
            // Already reported by the lexer.
            return Err(Recover);
        }
        let message = format!("expected {what}, found {}", self.tok());
        let pos = self.pos();
        self.error_at(pos, message, None);
        Err(Recover)
    }

    fn expect_punct(&mut self, c: char) -> PResult<Pos> {
        let pos = self.pos();
        if self.eat_punct(c) {
            Ok(pos)
        } else {
            self.expected(&format!("`{c}`"))
        }
    }

    /// An identifier naming `what` (for messages). A keyword in its place is
    /// reported but accepted, so parsing goes on.
    fn ident(&mut self, what: &str, hint: Option<String>) -> PResult<Spanned<String>> {
        let pos = self.pos();
        match self.tok().clone() {
            Tok::Ident(name) => {
                self.bump();
                Ok(Spanned { value: name, pos })
            }
            Tok::Keyword(kw) => {
                self.bump();
                let hint = hint.unwrap_or_else(|| format!("choose another name than `{kw}`"));
                self.error_at(
                    pos,
                    format!("`{kw}` is a keyword and cannot be used as {what}"),
                    Some(hint),
                );
                Ok(Spanned {
                    value: kw.to_string(),
                    pos,
                })
            }
            _ => self.expected(what),
        }
    }

    /// `IDENT { "." IDENT }`, joined with dots.
    fn qualident(&mut self, what: &str) -> PResult<Spanned<String>> {
        let first = self.ident(what, None)?;
        let mut name = first.value;
        while self.is_punct('.') {
            self.bump();
            let part = self.ident("a name after `.`", None)?;
            name.push('.');
            name.push_str(&part.value);
        }
        Ok(Spanned {
            value: name,
            pos: first.pos,
        })
    }

    fn string_lit(&mut self, what: &str) -> PResult<Spanned<String>> {
        let pos = self.pos();
        match self.tok().clone() {
            Tok::Str(s) => {
                self.bump();
                Ok(Spanned { value: s, pos })
            }
            _ => self.expected(what),
        }
    }

    /// Skips to just after the next `;` or to a `}` (not consumed) or to the
    /// end, whichever comes first, skipping balanced brackets on the way.
    fn recover_in_body(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok() {
                Tok::Eof => return,
                Tok::Punct(';') if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::Punct('}') if depth == 0 => return,
                Tok::Punct('{' | '[' | '(') => depth += 1,
                Tok::Punct('}' | ']' | ')') => depth = depth.saturating_sub(1),
                Tok::Keyword("message" | "enum" | "union") if depth == 0 => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the next `message`, `enum` or `union` keyword.
    fn recover_to_decl(&mut self) {
        while !matches!(
            self.tok(),
            Tok::Eof | Tok::Keyword("message" | "enum" | "union")
        ) {
            self.bump();
        }
    }

    fn file(&mut self) -> FileAst {
        let mut ast = FileAst::default();
        if self.is_keyword("namespace") {
            self.bump();
            match self
                .qualident("a namespace name")
                .and_then(|ns| self.expect_punct(';').map(|_| ns))
            {
                Ok(ns) => ast.namespace = Some(ns),
                Err(Recover) => self.recover_in_body(),
            }
        }
        while self.is_keyword("import") {
            self.bump();
            match self
                .string_lit("a quoted file path")
                .and_then(|path| self.expect_punct(';').map(|_| path))
            {
                Ok(path) => ast.imports.push(path),
                Err(Recover) => self.recover_in_body(),
            }
        }
        loop {
            let pos = self.pos();
            let result = match self.tok() {
                Tok::Eof => break,
                Tok::Keyword("message") => self.message().map(Decl::Message),
                Tok::Keyword("enum") => self.enum_decl().map(Decl::Enum),
                Tok::Keyword("union") => self.union_decl().map(Decl::Union),
                Tok::Keyword("namespace") => {
                    let hint = "a file has at most one `namespace`, written first".to_string();
                    self.error_at(
                        pos,
                        "`namespace` must come before imports and declarations",
                        Some(hint),
                    );
                    self.bump();
                    Err(Recover)
                }
                Tok::Keyword("import") => {
                    let hint = "move the import above the first declaration".to_string();
                    self.error_at(pos, "imports must come before declarations", Some(hint));
                    self.bump();
                    Err(Recover)
                }
                _ => self.expected("`message`, `enum` or `union`"),
            };
            match result {
                Ok(decl) => ast.decls.push(decl),
                Err(Recover) => self.recover_to_decl(),
            }
        }
        ast
    }

    fn message(&mut self) -> PResult<MessageAst> {
        let doc = self.doc();
        self.bump();
        let name = self.ident("a message name", None)?;
        self.expect_punct('{')?;
        let mut msg = MessageAst {
            name,
            doc,
            fields: Vec::new(),
            reserved: Vec::new(),
        };
        loop {
            match self.tok() {
                Tok::Punct('}') => {
                    self.bump();
                    return Ok(msg);
                }
                Tok::Eof => {
                    let message = format!(
                        "expected `}}` to close message `{}`, found end of file",
                        msg.name.value
                    );
                    let pos = self.pos();
                    self.error_at(pos, message, None);
                    return Err(Recover);
                }
                Tok::Keyword("message" | "enum" | "union")
                    if *self.peek_tok(1) != Tok::Punct(':') =>
                {
                    let message = format!(
                        "expected `}}` to close message `{}`, found {}",
                        msg.name.value,
                        self.tok()
                    );
                    let pos = self.pos();
                    self.error_at(pos, message, None);
                    return Ok(msg);
                }
                Tok::Keyword("reserved") if *self.peek_tok(1) != Tok::Punct(':') => {
                    if self.reserved(&mut msg.reserved).is_err() {
                        self.recover_in_body();
                    }
                }
                Tok::Ident(_) | Tok::Keyword(_) => match self.field() {
                    Ok(field) => msg.fields.push(field),
                    Err(Recover) => self.recover_in_body(),
                },
                _ => {
                    let _ = self.expected::<()>("a field name, `reserved` or `}`");
                    self.bump();
                    self.recover_in_body();
                }
            }
        }
    }

    fn reserved(&mut self, out: &mut Vec<Spanned<String>>) -> PResult<()> {
        self.bump();
        loop {
            if let Tok::Ident(name) = self.tok().clone() {
                let pos = self.pos();
                let hint = format!("reserved names are quoted: reserved \"{name}\";");
                self.error_at(
                    pos,
                    format!("expected a quoted name, found identifier `{name}`"),
                    Some(hint),
                );
                return Err(Recover);
            }
            out.push(self.string_lit("a quoted name")?);
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(())
    }

    fn field(&mut self) -> PResult<FieldAst> {
        let doc = self.doc();
        let keyword_hint = match self.tok() {
            Tok::Keyword(kw) => Some(format!(
                "rename the field and keep `{kw}` on the wire with (wire_name = \"{kw}\")"
            )),
            _ => None,
        };
        let name = self.ident("a field name", keyword_hint)?;
        self.expect_punct(':')?;
        let ty = self.ty()?;
        let mut field = FieldAst {
            name,
            doc,
            ty,
            optional: None,
            default: None,
            required: None,
            deprecated: None,
            wire_name: None,
            ts_int64: None,
        };
        if self.is_punct('?') {
            field.optional = Some(self.bump().pos);
        }
        if self.eat_punct('=') {
            field.default = Some(self.literal()?);
        }
        if self.is_punct('(') {
            self.bump();
            loop {
                self.field_attr(&mut field)?;
                if self.eat_punct(')') {
                    break;
                }
                if !self.eat_punct(',') {
                    return self.expected("`,` or `)`");
                }
            }
        }
        if self.is_punct(';') {
            self.bump();
            return Ok(field);
        }
        match self.tok() {
            Tok::Punct('?') if field.default.is_some() || field.required.is_some() => {
                let hint =
                    "write `?` right after the type: `name: T? = value (attributes);`".to_string();
                let pos = self.pos();
                self.error_at(pos, "expected `;`, found `?`", Some(hint));
                Err(Recover)
            }
            Tok::Punct('=')
                if field.required.is_some()
                    || field.deprecated.is_some()
                    || field.wire_name.is_some()
                    || field.ts_int64.is_some() =>
            {
                let hint =
                    "write the default before the attributes: `name: T = value (attributes);`"
                        .to_string();
                let pos = self.pos();
                self.error_at(pos, "expected `;`, found `=`", Some(hint));
                Err(Recover)
            }
            _ => self.expected("`;`"),
        }
    }

    fn field_attr(&mut self, field: &mut FieldAst) -> PResult<()> {
        let pos = self.pos();
        match self.tok() {
            Tok::Keyword("required") => {
                self.bump();
                if field.required.replace(pos).is_some() {
                    self.error_at(pos, "duplicate attribute `required`", None);
                }
            }
            Tok::Keyword("deprecated") => {
                self.bump();
                if field.deprecated.replace(pos).is_some() {
                    self.error_at(pos, "duplicate attribute `deprecated`", None);
                }
            }
            Tok::Keyword("wire_name") => {
                self.bump();
                self.expect_punct('=')?;
                let name = self.string_lit("a quoted wire name")?;
                if field.wire_name.replace(name).is_some() {
                    self.error_at(pos, "duplicate attribute `wire_name`", None);
                }
            }
            // Not a keyword: a field may still be called `ts_int64`.
            Tok::Ident(name) if name == "ts_int64" => {
                self.bump();
                self.expect_punct('=')?;
                let policy =
                    self.string_lit("a quoted policy: \"auto\", \"checked\" or \"bigint\"")?;
                if field.ts_int64.replace(policy).is_some() {
                    self.error_at(pos, "duplicate attribute `ts_int64`", None);
                }
            }
            _ => return self.expected("`required`, `deprecated`, `wire_name` or `ts_int64`"),
        }
        Ok(())
    }

    fn ty(&mut self) -> PResult<TypeAst> {
        let pos = self.pos();
        match self.tok().clone() {
            Tok::Keyword(kw) => match builtin(kw) {
                Some(t) => {
                    self.bump();
                    Ok(TypeAst::Builtin(t, pos))
                }
                None => self.expected("a type"),
            },
            Tok::Punct('[') => {
                self.bump();
                let elem = Box::new(self.ty()?);
                let elem_optional = if self.is_punct('?') {
                    Some(self.bump().pos)
                } else {
                    None
                };
                let len = if self.eat_punct(';') {
                    let at = self.pos();
                    match *self.tok() {
                        Tok::Int(n) => {
                            self.bump();
                            Some(Spanned { value: n, pos: at })
                        }
                        _ => return self.expected("an array length (an integer)"),
                    }
                } else {
                    None
                };
                self.expect_punct(']')?;
                Ok(TypeAst::Vector {
                    elem,
                    elem_optional,
                    len,
                    pos,
                })
            }
            Tok::Punct('{') => {
                self.bump();
                let key = Box::new(self.ty()?);
                self.expect_punct(':')?;
                let value = Box::new(self.ty()?);
                let value_optional = if self.is_punct('?') {
                    Some(self.bump().pos)
                } else {
                    None
                };
                self.expect_punct('}')?;
                Ok(TypeAst::Map {
                    key,
                    value,
                    value_optional,
                    pos,
                })
            }
            Tok::Ident(_) => {
                let name = self.qualident("a type name")?;
                Ok(TypeAst::Named(name.value, name.pos))
            }
            _ => self.expected("a type"),
        }
    }

    fn literal(&mut self) -> PResult<Spanned<Literal>> {
        let pos = self.pos();
        let value = match self.tok().clone() {
            Tok::Int(i) => Literal::Int(i),
            Tok::Float(v, text) => Literal::Float(v, text),
            Tok::Str(s) => Literal::Str(s),
            Tok::Keyword("true") => Literal::Bool(true),
            Tok::Keyword("false") => Literal::Bool(false),
            Tok::Keyword("null") => Literal::Null,
            Tok::Keyword("inf") => Literal::Float(f64::INFINITY, "inf".into()),
            Tok::Keyword("nan") => Literal::Float(f64::NAN, "nan".into()),
            Tok::Ident(name) => Literal::Ident(name),
            _ => return self.expected("a default value"),
        };
        self.bump();
        Ok(Spanned { value, pos })
    }

    fn enum_decl(&mut self) -> PResult<EnumAst> {
        let doc = self.doc();
        self.bump();
        let name = self.ident("an enum name", None)?;
        if !self.is_punct(':') {
            let message = format!(
                "expected `:` and an integer type after the enum name, found {}",
                self.tok()
            );
            let hint = format!(
                "write `enum {} : i32 {{ ... }}` (any integer type)",
                name.value
            );
            let pos = self.pos();
            self.error_at(pos, message, Some(hint));
            return Err(Recover);
        }
        self.bump();
        let repr = self.ty()?;
        self.expect_punct('{')?;
        let mut variants = Vec::new();
        loop {
            if self.is_punct('}') {
                if variants.is_empty() {
                    let pos = self.pos();
                    self.error_at(
                        pos,
                        format!("enum `{}` has no variants", name.value),
                        Some("add `Name = 0`".into()),
                    );
                }
                self.bump();
                break;
            }
            let doc = self.doc();
            let vname = self.ident("a variant name", None)?;
            self.expect_punct('=')?;
            let vpos = self.pos();
            let value = match self.tok().clone() {
                Tok::Int(i) => i,
                Tok::Float(_, text) => {
                    self.error_at(
                        vpos,
                        format!("enum values must be integers, found `{text}`"),
                        None,
                    );
                    0
                }
                _ => return self.expected("an integer value"),
            };
            self.bump();
            variants.push(VariantAst {
                name: vname,
                doc,
                value: Spanned { value, pos: vpos },
            });
            if !self.eat_punct(',') && !self.is_punct('}') {
                return self.expected("`,` or `}`");
            }
        }
        Ok(EnumAst {
            name,
            doc,
            repr,
            variants,
        })
    }

    fn union_decl(&mut self) -> PResult<UnionAst> {
        let doc = self.doc();
        self.bump();
        let name = self.ident("a union name", None)?;
        self.expect_punct('{')?;
        let mut variants = Vec::new();
        loop {
            if self.is_punct('}') {
                if variants.is_empty() {
                    let pos = self.pos();
                    self.error_at(
                        pos,
                        format!("union `{}` has no variants", name.value),
                        Some("add `Name: Type`".into()),
                    );
                }
                self.bump();
                break;
            }
            let doc = self.doc();
            let vname = self.ident("a variant name", None)?;
            self.expect_punct(':')?;
            let ty = self.ty()?;
            if self.is_punct('?') {
                let pos = self.pos();
                let hint = "make the field that holds the union optional instead".to_string();
                self.error_at(pos, "union variants cannot be optional", Some(hint));
                self.bump();
            }
            let mut wire_name = None;
            if self.eat_punct('(') {
                if !self.is_keyword("wire_name") {
                    return self.expected("`wire_name` (the only attribute of a union variant)");
                }
                self.bump();
                self.expect_punct('=')?;
                wire_name = Some(self.string_lit("a quoted wire name")?);
                self.expect_punct(')')?;
            }
            variants.push(UVariantAst {
                name: vname,
                doc,
                ty,
                wire_name,
            });
            if !self.eat_punct(',') && !self.is_punct('}') {
                return self.expected("`,` or `}`");
            }
        }
        Ok(UnionAst {
            name,
            doc,
            variants,
        })
    }
}
