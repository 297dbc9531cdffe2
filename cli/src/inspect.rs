//! `flexbuf inspect`: an annotated tree of a verified buffer.
//!
//! Every value gets one line: `LABEL@SLOT TYPE wN [-> @DATA] [details] [= value]`.
//! Shared data is shown wherever it is referenced, so the walk charges a
//! [`Budget`] per line and stops with an error when it runs out.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};

use clap::ValueEnum;
use flexbuf::{verify_with, Budget, ErrorKind, FlexType, PathSegment, Reader, VerifyOptions};

use crate::io::{invalid, Failure};

/// Characters of a string (or key) shown before it is cut with `…`.
const PREVIEW_CHARS: usize = 64;
/// Bytes of a blob shown (in hex) before it is cut with `…`.
const PREVIEW_BYTES: usize = 32;

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and NO_COLOR is unset or empty.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Resolves `auto` against the environment.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                !no_color && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Settings of one inspection.
#[derive(Debug)]
pub struct InspectOptions {
    /// Emit ANSI colours.
    pub color: bool,
    /// Verifier settings (the buffer is verified before anything is printed).
    pub verify: VerifyOptions,
    /// Nodes and output bytes the walk may produce.
    pub budget: Budget,
}

/// Verifies `buf` and writes its annotated tree to `out`.
pub fn inspect(buf: &[u8], options: &InspectOptions, out: &mut dyn Write) -> Result<(), Failure> {
    let root = verify_with(buf, &options.verify).map_err(invalid)?.root();
    let mut p = Printer {
        out,
        budget: options.budget.clone(),
        color: options.color,
        digits: buf.len().to_string().len().max(4),
        line: String::new(),
    };
    let n = buf.len();
    let header = format!(
        "{n} bytes; root: type byte @{:0d$}, width {}",
        n - 2,
        buf[n - 1],
        d = p.digits
    );
    p.emit_raw(&header)?;
    let result = p.value(&root, Label::Root, 0);
    // Whatever was printed before a failure is still useful: flush it first.
    let flushed = p.out.flush();
    match result {
        Ok(()) => flushed.map_err(|e| Failure::write("standard output", e)),
        Err(Stop::Io(e)) => Err(Failure::write("standard output", e)),
        Err(Stop::Data(e)) => {
            flushed.map_err(|e| Failure::write("standard output", e))?;
            let hint = if *e.kind() == ErrorKind::BudgetExceeded {
                "; raise it with --max-nodes"
            } else {
                ""
            };
            Err(Failure::Data(format!("inspect stopped: {e}{hint}")))
        }
    }
}

/// Why the walk ended early.
enum Stop {
    Data(flexbuf::Error),
    Io(std::io::Error),
}

impl From<flexbuf::Error> for Stop {
    fn from(e: flexbuf::Error) -> Self {
        Stop::Data(e)
    }
}

impl Stop {
    fn in_segment(self, seg: PathSegment<'_>) -> Stop {
        match self {
            Stop::Data(e) => Stop::Data(e.in_segment(seg)),
            io => io,
        }
    }
}

/// How a value is reached from its parent.
#[derive(Clone, Copy)]
enum Label<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

/// ANSI styles of the parts of a line.
#[derive(Clone, Copy)]
enum Paint {
    Offset,
    Type,
    Key,
    Text,
    Number,
}

impl Paint {
    fn code(self) -> &'static str {
        match self {
            Paint::Offset => "\x1b[2m",
            Paint::Type => "\x1b[1;36m",
            Paint::Key => "\x1b[34m",
            Paint::Text => "\x1b[32m",
            Paint::Number => "\x1b[35m",
        }
    }
}

struct Printer<'w> {
    out: &'w mut dyn Write,
    budget: Budget,
    color: bool,
    /// Offsets are zero-padded to this many decimal digits.
    digits: usize,
    /// The line being assembled (reused).
    line: String,
}

impl Printer<'_> {
    fn paint(&mut self, paint: Paint, text: &str) {
        if self.color {
            self.line.push_str(paint.code());
            self.line.push_str(text);
            self.line.push_str("\x1b[0m");
        } else {
            self.line.push_str(text);
        }
    }

    fn offset(&mut self, at: usize) {
        let s = format!("@{at:0d$}", d = self.digits);
        self.paint(Paint::Offset, &s);
    }

    fn emit_raw(&mut self, text: &str) -> Result<(), Failure> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|e| Failure::write("standard output", e))
    }

    /// Charges and writes the assembled line, which describes the value at `at`.
    fn emit(&mut self, at: usize) -> Result<(), Stop> {
        self.line.push('\n');
        self.budget
            .bytes(self.line.len())
            .map_err(|e| e.with_offset(at))?;
        self.out.write_all(self.line.as_bytes()).map_err(Stop::Io)
    }

    fn value(&mut self, r: &Reader<'_>, label: Label<'_>, depth: usize) -> Result<(), Stop> {
        self.budget.node().map_err(|e| e.with_offset(r.offset()))?;
        self.line.clear();
        for _ in 0..depth {
            self.line.push_str("  ");
        }
        match label {
            Label::Root => {}
            Label::Key(k) => {
                let k = preview(k);
                self.paint(Paint::Key, &k);
                self.line.push_str(": ");
            }
            Label::Index(i) => {
                let _ = write!(self.line, "[{i}]: ");
            }
        }
        self.offset(r.offset());
        self.line.push(' ');
        let ty = r.flex_type();
        self.paint(Paint::Type, ty.name());
        match ty {
            // Scalars are read at their slot's width; keys have no width.
            FlexType::Null | FlexType::Int | FlexType::UInt | FlexType::Float | FlexType::Bool => {
                let _ = write!(self.line, " w{}", r.slot_width());
            }
            FlexType::Key => {}
            _ => {
                let _ = write!(self.line, " w{}", r.bit_width().bytes());
            }
        }
        if !ty.is_inline() {
            self.line.push_str(" -> ");
            self.offset(r.data_offset()?);
        }
        match ty {
            FlexType::Null => {}
            FlexType::Bool => {
                let v = if r.as_bool()? { "true" } else { "false" };
                self.line.push_str(" = ");
                self.paint(Paint::Number, v);
            }
            FlexType::Int | FlexType::IndirectInt => {
                let v = r.as_i64()?.to_string();
                self.line.push_str(" = ");
                self.paint(Paint::Number, &v);
            }
            FlexType::UInt | FlexType::IndirectUInt => {
                let v = r.as_u64()?.to_string();
                self.line.push_str(" = ");
                self.paint(Paint::Number, &v);
            }
            FlexType::Float | FlexType::IndirectFloat => {
                let v = format!("{:?}", r.as_f64()?);
                self.line.push_str(" = ");
                self.paint(Paint::Number, &v);
            }
            FlexType::Key => {
                let v = preview(r.as_str()?);
                self.line.push_str(" = ");
                self.paint(Paint::Text, &v);
            }
            FlexType::String => {
                let s = r.as_str()?;
                let _ = write!(self.line, " len {} = ", s.len());
                self.paint(Paint::Text, &preview(s));
            }
            FlexType::Blob => {
                let b = r.as_blob()?;
                let _ = write!(self.line, " len {} = ", b.len());
                self.paint(Paint::Text, &hex_preview(b));
            }
            FlexType::Map => return self.map(r, depth),
            _ => return self.vector(r, depth),
        }
        self.emit(r.offset())
    }

    fn map(&mut self, r: &Reader<'_>, depth: usize) -> Result<(), Stop> {
        let m = r.as_map()?;
        let _ = write!(self.line, " ({} entries, keys ", m.len());
        self.offset(m.keys_offset());
        let _ = write!(self.line, " w{})", m.keys_width());
        self.emit(r.offset())?;
        for i in 0..m.len() {
            let key = m.key(i)?;
            self.value(&m.value(i)?, Label::Key(key), depth + 1)
                .map_err(|e| e.in_segment(PathSegment::Key(key)))?;
        }
        Ok(())
    }

    fn vector(&mut self, r: &Reader<'_>, depth: usize) -> Result<(), Stop> {
        let v = r.as_vector()?;
        let noun = if v.len() == 1 { "element" } else { "elements" };
        let _ = write!(self.line, " ({} {noun})", v.len());
        self.emit(r.offset())?;
        for i in 0..v.len() {
            self.value(&v.get(i)?, Label::Index(i), depth + 1)
                .map_err(|e| e.in_segment(PathSegment::Index(i)))?;
        }
        Ok(())
    }
}

/// A quoted, escaped string, cut after [`PREVIEW_CHARS`] characters with `…` outside the quotes.
fn preview(s: &str) -> String {
    match s.char_indices().nth(PREVIEW_CHARS) {
        // Debug escaping also neutralises control characters such as ESC.
        Some((cut, _)) => format!("{:?}…", &s[..cut]),
        None => format!("{s:?}"),
    }
}

/// The first [`PREVIEW_BYTES`] bytes in hex, then `…` when there are more.
fn hex_preview(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 * PREVIEW_BYTES + 3);
    for byte in b.iter().take(PREVIEW_BYTES) {
        let _ = write!(s, "{byte:02x}");
    }
    if b.len() > PREVIEW_BYTES {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(bytes: &[u8], budget: Budget) -> Result<String, Failure> {
        let options = InspectOptions {
            color: false,
            verify: VerifyOptions::default(),
            budget,
        };
        let mut out = Vec::new();
        inspect(bytes, &options, &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn previews_cut_long_text_and_escape_controls() {
        assert_eq!(preview("a\u{1b}b"), "\"a\\u{1b}b\"");
        let long = "é".repeat(70);
        assert_eq!(preview(&long), format!("{:?}…", "é".repeat(64)));
        assert_eq!(hex_preview(&[1, 0xab]), "01ab");
        assert_eq!(hex_preview(&[0; 33]), format!("{}…", "0".repeat(64)));
    }

    #[test]
    fn tree_shows_offsets_types_widths_and_values() {
        let bytes = flexbuf::from_json(r#"{"name":"Ada","n":-3,"v":[1.5,true]}"#).unwrap();
        let text = render(&bytes, Budget::for_input(bytes.len())).unwrap();
        let expected = "\
46 bytes; root: type byte @0044, width 1
@0043 map w1 -> @0037 (3 entries, keys @0031 w1)
  \"n\": @0037 int w1 = -3
  \"name\": @0038 string w1 -> @0006 len 3 = \"Ada\"
  \"v\": @0039 vector w4 -> @0020 (2 elements)
    [0]: @0020 float w4 = 1.5
    [1]: @0024 bool w4 = true
";
        assert_eq!(text, expected);
    }

    #[test]
    fn colour_wraps_parts_in_ansi_codes() {
        let bytes = flexbuf::from_json(r#"{"k":"v"}"#).unwrap();
        let options = InspectOptions {
            color: true,
            verify: VerifyOptions::default(),
            budget: Budget::for_input(bytes.len()),
        };
        let mut out = Vec::new();
        inspect(&bytes, &options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\x1b[34m\"k\"\x1b[0m: "), "{text:?}");
        assert!(text.contains("\x1b[1;36mstring\x1b[0m"), "{text:?}");
    }

    #[test]
    fn budget_stops_the_walk_with_a_path() {
        let bytes = flexbuf::from_json("[[1,2],[3,4]]").unwrap();
        let err = match render(&bytes, Budget::new(3, u64::MAX)) {
            Err(Failure::Data(m)) => m,
            other => panic!("expected a budget failure, got {other:?}"),
        };
        assert!(err.contains("expansion budget exceeded"), "{err}");
        assert!(err.contains("at $[0][1]"), "{err}");
    }
}
