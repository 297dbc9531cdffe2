//! Tokens of the `.fxs` language, with their positions and the doc comments
//! that precede them.

use std::fmt;

/// A 1-based position: line and column in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Pos {
    pub line: u32,
    pub col: u32,
}

/// Words that may not be used as identifiers: every word the grammar spells
/// out, plus the float literals `inf` and `nan` (which would otherwise be
/// ambiguous with an enum-variant default).
pub(crate) const KEYWORDS: &[&str] = &[
    "namespace",
    "import",
    "message",
    "enum",
    "union",
    "reserved",
    "required",
    "deprecated",
    "wire_name",
    "true",
    "false",
    "null",
    "inf",
    "nan",
    "bool",
    "i8",
    "i16",
    "i32",
    "i64",
    "u8",
    "u16",
    "u32",
    "u64",
    "f32",
    "f64",
    "string",
    "bytes",
];

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// An identifier that is not a keyword.
    Ident(String),
    /// A keyword (see [`KEYWORDS`]); `inf` and `nan` are float literals
    /// where a literal is expected.
    Keyword(&'static str),
    /// An integer literal: decimal or `0x` hex, with an optional `-`.
    Int(i128),
    /// A float literal (`-inf` included), with its source text (for messages).
    Float(f64, String),
    /// A string literal, escapes resolved.
    Str(String),
    /// One of `; : ? = ( ) , { } [ ] .`
    Punct(char),
    /// Text the lexer already reported as an error (a bad number, an
    /// unterminated string, a stray character); the parser skips it without
    /// reporting it again.
    Invalid,
    /// End of input.
    Eof,
}

impl fmt::Display for Tok {
    /// How a token is named in "found ..." messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::Keyword(s) => write!(f, "keyword `{s}`"),
            Tok::Int(i) => write!(f, "integer `{i}`"),
            Tok::Float(_, text) => write!(f, "float `{text}`"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Invalid => f.write_str("invalid text"),
            Tok::Eof => f.write_str("end of file"),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: Pos,
    /// `///` lines seen since the previous token, in order, with the `///`
    /// and one following space removed.
    pub doc: Vec<String>,
}

/// A lexical error: where and what.
#[derive(Clone, Debug)]
pub(crate) struct LexError {
    pub pos: Pos,
    pub message: String,
    pub hint: Option<String>,
}

/// Splits `text` into tokens, ending with [`Tok::Eof`]. Errors do not stop
/// lexing: the bad text is skipped and lexing goes on, so that several
/// errors can be reported; the token stream is then only used for more
/// syntax errors.
pub(crate) fn lex(text: &str) -> (Vec<Token>, Vec<LexError>) {
    let mut lx = Lexer {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
        col: 1,
        tokens: Vec::new(),
        errors: Vec::new(),
        doc: Vec::new(),
    };
    lx.run();
    (lx.tokens, lx.errors)
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
    tokens: Vec<Token>,
    errors: Vec<LexError>,
    doc: Vec<String>,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.i).copied()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn error(&mut self, pos: Pos, message: impl Into<String>, hint: Option<&str>) {
        self.errors.push(LexError {
            pos,
            message: message.into(),
            hint: hint.map(str::to_string),
        });
    }

    /// Reports an error for the text starting at `pos` and stands in for it
    /// with a [`Tok::Invalid`].
    fn invalid(&mut self, pos: Pos, message: impl Into<String>, hint: Option<&str>) {
        self.error(pos, message, hint);
        self.push(Tok::Invalid, pos);
    }

    fn push(&mut self, tok: Tok, pos: Pos) {
        let doc = std::mem::take(&mut self.doc);
        self.tokens.push(Token { tok, pos, doc });
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            let pos = self.pos();
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '/' if self.peek(1) == Some('/') => self.line_comment(),
                '/' if self.peek(1) == Some('*') => self.block_comment(pos),
                '"' => self.string(pos),
                c if c.is_ascii_digit() => self.number(pos),
                '-' if self.peek(1).is_some_and(|c| c.is_ascii_digit()) => self.number(pos),
                '-' if self.word_at(1) == "inf" => {
                    for _ in 0..4 {
                        self.bump();
                    }
                    self.push(Tok::Float(f64::NEG_INFINITY, "-inf".into()), pos);
                }
                c if is_ident_start(c) => {
                    let word = self.word_at(0);
                    for _ in 0..word.chars().count() {
                        self.bump();
                    }
                    // `inf` and `nan` stay keywords here (so that using them as
                    // names is reported as such); the parser reads them as
                    // float literals where a literal is expected.
                    let tok = match KEYWORDS.iter().find(|k| **k == word) {
                        Some(k) => Tok::Keyword(k),
                        None => Tok::Ident(word),
                    };
                    self.push(tok, pos);
                }
                ';' | ':' | '?' | '=' | '(' | ')' | ',' | '{' | '}' | '[' | ']' | '.' => {
                    self.bump();
                    self.push(Tok::Punct(c), pos);
                }
                other => {
                    self.bump();
                    self.invalid(
                        pos,
                        format!("unexpected character `{}`", other.escape_debug()),
                        (other.is_alphabetic()).then_some(
                            "identifiers are ASCII letters, digits and `_`; other keys can be given with (wire_name = \"...\")",
                        ),
                    );
                }
            }
        }
        let pos = self.pos();
        self.push(Tok::Eof, pos);
    }

    /// The identifier starting `ahead` characters from here ("" if none).
    fn word_at(&self, ahead: usize) -> String {
        let mut s = String::new();
        let mut j = self.i + ahead;
        if !self.chars.get(j).copied().is_some_and(is_ident_start) {
            return s;
        }
        while let Some(&c) = self.chars.get(j) {
            if !is_ident_char(c) {
                break;
            }
            s.push(c);
            j += 1;
        }
        s
    }

    fn line_comment(&mut self) {
        // `///` starts a doc comment, but `////...` is an ordinary comment.
        let is_doc = self.peek(2) == Some('/') && self.peek(3) != Some('/');
        let mut body = String::new();
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            body.push(c);
            self.bump();
        }
        if is_doc {
            let text = &body[3..];
            let text = text.strip_prefix(' ').unwrap_or(text);
            self.doc.push(text.trim_end_matches('\r').to_string());
        }
    }

    fn block_comment(&mut self, start: Pos) {
        self.bump();
        self.bump();
        loop {
            match self.bump() {
                None => {
                    self.error(
                        start,
                        "unterminated block comment",
                        Some("close it with `*/`"),
                    );
                    return;
                }
                Some('*') if self.peek(0) == Some('/') => {
                    self.bump();
                    return;
                }
                Some(_) => {}
            }
        }
    }

    fn string(&mut self, start: Pos) {
        self.bump();
        let mut s = String::new();
        loop {
            let pos = self.pos();
            match self.peek(0) {
                None | Some('\n') => {
                    self.invalid(
                        start,
                        "unterminated string",
                        Some("close it with `\"` on the same line"),
                    );
                    return;
                }
                Some('"') => {
                    self.bump();
                    self.push(Tok::Str(s), start);
                    return;
                }
                Some('\\') => {
                    self.bump();
                    match self.peek(0) {
                        Some('"') => s.push('"'),
                        Some('\\') => s.push('\\'),
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('r') => s.push('\r'),
                        Some('u') if self.peek(1) == Some('{') => {
                            self.bump();
                            self.bump();
                            match self.unicode_escape() {
                                Some(c) => s.push(c),
                                None => self.error(
                                    pos,
                                    "invalid unicode escape",
                                    Some("write `\\u{XXXX}` with 1 to 6 hex digits naming a Unicode scalar value"),
                                ),
                            }
                            continue;
                        }
                        None | Some('\n') => continue,
                        Some(other) => self.error(
                            pos,
                            format!("unknown escape `\\{}`", other.escape_debug()),
                            Some("the escapes are \\\" \\\\ \\n \\t \\r and \\u{XXXX}"),
                        ),
                    }
                    self.bump();
                }
                Some(c) => {
                    s.push(c);
                    self.bump();
                }
            }
        }
    }

    /// After `\u{`: hex digits and `}`. Consumes up to the `}` (or the end
    /// of the hex digits when it is missing).
    fn unicode_escape(&mut self) -> Option<char> {
        let mut hex = String::new();
        while let Some(c) = self.peek(0) {
            if !c.is_ascii_hexdigit() {
                break;
            }
            hex.push(c);
            self.bump();
        }
        if self.peek(0) != Some('}') {
            return None;
        }
        self.bump();
        if hex.is_empty() || hex.len() > 6 {
            return None;
        }
        char::from_u32(u32::from_str_radix(&hex, 16).ok()?)
    }

    fn number(&mut self, start: Pos) {
        let mut text = String::new();
        if self.peek(0) == Some('-') {
            text.push('-');
            self.bump();
        }
        let negative = !text.is_empty();
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X')) {
            self.bump();
            self.bump();
            let mut hex = String::new();
            while let Some(c) = self.peek(0).filter(|c| c.is_ascii_hexdigit()) {
                hex.push(c);
                self.bump();
            }
            if self.trailing_garbage(start, &format!("{text}0x{hex}")) {
                return;
            }
            match u128::from_str_radix(&hex, 16)
                .ok()
                .and_then(|v| i128::try_from(v).ok())
            {
                Some(v) if !hex.is_empty() => {
                    self.push(Tok::Int(if negative { -v } else { v }), start)
                }
                _ if hex.is_empty() => self.invalid(start, "expected hex digits after `0x`", None),
                _ => self.invalid(
                    start,
                    format!("integer literal `{text}0x{hex}` is too large"),
                    None,
                ),
            }
            return;
        }
        self.digits(&mut text);
        let mut is_float = false;
        if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
            is_float = true;
            text.push('.');
            self.bump();
            self.digits(&mut text);
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign = usize::from(matches!(self.peek(1), Some('+' | '-')));
            if self.peek(1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                is_float = true;
                for _ in 0..=sign {
                    text.push(self.bump().unwrap_or('e'));
                }
                self.digits(&mut text);
            }
        }
        if self.trailing_garbage(start, &text) {
            return;
        }
        if is_float {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => self.push(Tok::Float(v, text), start),
                _ => self.invalid(
                    start,
                    format!("float literal `{text}` is out of range"),
                    Some("use `inf` or `-inf` for infinities"),
                ),
            }
        } else {
            match text.parse::<i128>() {
                Ok(v) => self.push(Tok::Int(v), start),
                Err(_) => self.invalid(
                    start,
                    format!("integer literal `{text}` is too large"),
                    None,
                ),
            }
        }
    }

    fn digits(&mut self, text: &mut String) {
        while let Some(c) = self.peek(0).filter(|c| c.is_ascii_digit()) {
            text.push(c);
            self.bump();
        }
    }

    /// A number running straight into letters (`12ab`) is one bad token:
    /// reports it, skips it and returns true.
    fn trailing_garbage(&mut self, start: Pos, text: &str) -> bool {
        if !self.peek(0).is_some_and(|c| is_ident_char(c) || c == '.') {
            return false;
        }
        let mut bad = text.to_string();
        while let Some(c) = self.peek(0).filter(|&c| is_ident_char(c) || c == '.') {
            bad.push(c);
            self.bump();
        }
        self.invalid(start, format!("invalid number literal `{bad}`"), None);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        let (tokens, errors) = lex(text);
        assert!(errors.is_empty(), "{errors:?}");
        tokens.into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(
            toks("0 -12 0x1F -0x10 18446744073709551615"),
            vec![
                Tok::Int(0),
                Tok::Int(-12),
                Tok::Int(31),
                Tok::Int(-16),
                Tok::Int(u64::MAX as i128),
                Tok::Eof
            ]
        );
        let t = toks("1.5 -2e3 1E-2 inf -inf nan");
        assert_eq!(t[0], Tok::Float(1.5, "1.5".into()));
        assert_eq!(t[1], Tok::Float(-2000.0, "-2e3".into()));
        assert_eq!(t[2], Tok::Float(0.01, "1E-2".into()));
        assert_eq!(t[3], Tok::Keyword("inf"));
        assert_eq!(t[4], Tok::Float(f64::NEG_INFINITY, "-inf".into()));
        assert_eq!(t[5], Tok::Keyword("nan"));
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(
            toks(r#""a\"b\\c\n\t\r\u{48}\u{1F600}""#)[0],
            Tok::Str("a\"b\\c\n\t\r\u{48}\u{1F600}".into())
        );
        let (_, errors) = lex(r#""\q" "\u{D800}""#);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].message, "unknown escape `\\q`");
        assert_eq!(errors[0].pos, Pos { line: 1, col: 2 });
        assert_eq!(errors[1].message, "invalid unicode escape");
    }

    #[test]
    fn positions_count_characters_and_docs_attach_to_the_next_token() {
        let (tokens, _) = lex("/// é doc\n///  two\n//// not doc\n  \"é\" x");
        assert_eq!(tokens[0].pos, Pos { line: 4, col: 3 });
        assert_eq!(tokens[0].doc, vec!["é doc".to_string(), " two".to_string()]);
        assert_eq!(tokens[1].pos, Pos { line: 4, col: 7 });
        assert!(tokens[1].doc.is_empty());
    }

    #[test]
    fn unterminated_things_are_reported_at_their_start() {
        let (_, errors) = lex("a /* never closed");
        assert_eq!(errors[0].message, "unterminated block comment");
        assert_eq!(errors[0].pos, Pos { line: 1, col: 3 });
        let (_, errors) = lex("x \"abc\ny");
        assert_eq!(errors[0].message, "unterminated string");
        assert_eq!(errors[0].pos, Pos { line: 1, col: 3 });
        let (_, errors) = lex("12ab 1e999");
        assert_eq!(errors[0].message, "invalid number literal `12ab`");
        assert_eq!(errors[1].message, "float literal `1e999` is out of range");
    }
}
