//! JSON text → FlexBuffers, streamed into a builder without an intermediate tree.

use std::borrow::Cow;
use std::cell::Cell;
use std::mem::size_of;

use super::JsonOptions;
use crate::builder::{Builder, BuilderOptions};
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::one_shot::{write_kept, Kept, Spare};

/// Parses JSON text into a finished FlexBuffer (keys shared, as the C++ default).
///
/// ```
/// let bytes = flexbuf::from_json(r#"{"n": -1, "big": 18446744073709551615, "x": 0.5}"#).unwrap();
/// let root = flexbuf::verify(&bytes).unwrap().root();
/// assert_eq!(root.get("n").unwrap().flex_type(), flexbuf::FlexType::Int);
/// assert_eq!(root.get("big").unwrap().flex_type(), flexbuf::FlexType::UInt);
/// assert_eq!(root.get("x").unwrap().as_f64().unwrap(), 0.5);
/// ```
pub fn from_json(text: &str) -> Result<Vec<u8>> {
    from_json_with(text, &JsonOptions::default())
}

/// Parses JSON text with explicit options.
///
/// Each thread keeps the builder and the parser's stack of its last call
/// (its value stack and key pool, and a buffer sized by the last output)
/// for the next call with the same sharing flags, as the serde tier's
/// `to_vec` does: a document of a few keys spent more on allocating them
/// than on its bytes. What a thread keeps is bounded as `to_vec`'s is: 256
/// KiB after a small document, up to 32 times a large one's size and 8 MiB
/// at most.
pub fn from_json_with(text: &str, options: &JsonOptions) -> Result<Vec<u8>> {
    let builder_options = BuilderOptions {
        share: options.share,
        ..BuilderOptions::default()
    };
    write_kept(&SPARE, builder_options, |b, stack: &mut Vec<Frame>| {
        b.reserve_buffer(text.len());
        stack.clear();
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
            b,
            stack: core::mem::take(stack),
            max_depth: options.max_depth.min(1024),
        };
        let parsed = p.run().map_err(|e| p.locate(e));
        *stack = core::mem::take(&mut p.stack);
        parsed
    })
}

std::thread_local! {
    /// The builder and parser stack a thread kept from its last
    /// [`from_json_with`] call.
    static SPARE: Spare<Vec<Frame>> = const { Cell::new(None) };
}

impl Kept for Vec<Frame> {
    fn held(&self) -> usize {
        self.capacity() * size_of::<Frame>()
    }

    fn recover(&mut self) {
        self.clear();
    }
}

/// Streams one JSON value into `builder` (as one pushed value; not finished).
pub fn from_json_into(text: &str, options: &JsonOptions, builder: &mut Builder) -> Result<()> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        b: builder,
        stack: Vec::new(),
        max_depth: options.max_depth.min(1024),
    };
    p.run().map_err(|e| p.locate(e))
}

#[derive(Debug)]
enum Frame {
    /// Inside an object; `key_at` is where the current entry's key starts (for error paths).
    Object { key_at: usize },
    /// Inside an array; `index` is the current element.
    Array { index: usize },
}

struct Parser<'t, 'b> {
    /// The JSON text.
    s: &'t [u8],
    i: usize,
    b: &'b mut Builder,
    stack: Vec<Frame>,
    max_depth: usize,
}

impl<'t> Parser<'t, '_> {
    fn err(&self, msg: &str) -> Error {
        let (line, col) = line_col(self.s, self.i);
        Error::at(
            ErrorKind::Json(format!("{msg} at line {line} column {col}")),
            self.i,
        )
    }

    /// Points a duplicate-key error from `end_map` at the key and the closing brace.
    fn duplicate_at(&self, e: Error) -> Error {
        match e.kind() {
            ErrorKind::Builder(crate::error::BuilderError::DuplicateKey(k)) => {
                let k = k.clone();
                let (line, col) = line_col(self.s, self.i - 1);
                Error::at(
                    ErrorKind::Json(format!(
                        "duplicate key {k:?} in the object ending at line {line} column {col}"
                    )),
                    self.i - 1,
                )
                .in_segment(PathSegment::Key(&k))
            }
            _ => e,
        }
    }

    /// Adds the JSON path of the current position to an error.
    fn locate(&self, mut e: Error) -> Error {
        for f in self.stack.iter().rev() {
            e = match f {
                Frame::Object { key_at } => match self.key_text(*key_at) {
                    Some(key) => e.in_segment(PathSegment::Key(&key)),
                    // The error came before the object's first key.
                    None => e,
                },
                Frame::Array { index } => e.in_segment(PathSegment::Index(*index)),
            };
        }
        e
    }

    /// Skips whitespace. No byte or one (compact text, `": "`) inline; a
    /// longer run out of line, see [`ws_run`](Self::ws_run).
    #[inline]
    fn ws(&mut self) {
        let i = self.i;
        let ws_at = |at: usize| self.s.get(at).is_some_and(|&c| is_ws(c));
        if !ws_at(i) {
            return;
        }
        if ws_at(i + 1) {
            self.ws_run();
        } else {
            self.i = i + 1;
        }
    }

    /// Skips a run of whitespace in a local index, and runs of spaces eight
    /// at a time: the indentation of pretty-printed text (two thirds of
    /// citm_catalog.json and a quarter of twitter.json are spaces).
    #[inline(never)]
    fn ws_run(&mut self) {
        const SPACES: u64 = u64::from_le_bytes(*b"        ");
        let s = self.s;
        let mut i = self.i;
        while let Some(&c) = s.get(i) {
            if !is_ws(c) {
                break;
            }
            i += 1;
            while let Some(w) = s.get(i..i + 8) {
                if crate::word::word(w, 0) != SPACES {
                    break;
                }
                i += 8;
            }
        }
        self.i = i;
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn run(&mut self) -> Result<()> {
        self.ws();
        self.value()?;
        loop {
            self.ws();
            let Some(frame) = self.stack.last() else {
                break;
            };
            let is_obj = matches!(frame, Frame::Object { .. });
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                    if let Some(Frame::Array { index }) = self.stack.last_mut() {
                        *index += 1;
                    }
                    if is_obj {
                        self.key()?;
                    }
                    self.value()?;
                }
                Some(b'}') if is_obj => {
                    self.i += 1;
                    let ended = self.b.end_map();
                    self.stack.pop();
                    ended.map_err(|e| self.duplicate_at(e))?;
                }
                Some(b']') if !is_obj => {
                    self.i += 1;
                    self.stack.pop();
                    self.b.end_vector()?;
                }
                _ => {
                    return Err(self.err(if is_obj {
                        "expected ',' or '}'"
                    } else {
                        "expected ',' or ']'"
                    }))
                }
            }
        }
        if self.i != self.s.len() {
            return Err(self.err("unexpected text after the JSON value"));
        }
        Ok(())
    }

    /// An object key and its colon.
    fn key(&mut self) -> Result<()> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string key"));
        }
        let at = self.i;
        if let Some(Frame::Object { key_at }) = self.stack.last_mut() {
            *key_at = at;
        }
        let k = self.string()?;
        self.b.key(&k);
        self.ws();
        if self.peek() != Some(b':') {
            return Err(self.err("expected ':'"));
        }
        self.i += 1;
        self.ws();
        Ok(())
    }

    /// One value; containers are opened here and closed by `run`.
    fn value(&mut self) -> Result<()> {
        match self.peek() {
            Some(b'{') => {
                self.open()?;
                self.i += 1;
                self.b.start_map();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return self.b.end_map();
                }
                self.stack.push(Frame::Object { key_at: self.i });
                self.key()?;
                self.value()
            }
            Some(b'[') => {
                self.open()?;
                self.i += 1;
                self.b.start_vector();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return self.b.end_vector();
                }
                self.stack.push(Frame::Array { index: 0 });
                self.value()
            }
            Some(b'"') => {
                let s = self.string()?;
                self.b.string(&s);
                Ok(())
            }
            Some(b't') => self.literal(b"true", |b| b.bool(true)),
            Some(b'f') => self.literal(b"false", |b| b.bool(false)),
            Some(b'n') => self.literal(b"null", |b| b.null()),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("expected a JSON value")),
            None => Err(self.err("unexpected end of input")),
        }
    }

    fn open(&self) -> Result<()> {
        if self.stack.len() + 1 > self.max_depth {
            return Err(Error::at(ErrorKind::DepthLimit(self.max_depth), self.i));
        }
        Ok(())
    }

    fn literal(&mut self, word: &[u8], push: impl FnOnce(&mut Builder)) -> Result<()> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            push(self.b);
            Ok(())
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn number(&mut self) -> Result<()> {
        let start = self.i;
        let s = self.s;
        let mut i = self.i;
        let negative = s.get(i) == Some(&b'-');
        i += negative as usize;
        // Up to 19 significant digits are gathered exactly on the way
        // (`digits` past 19 means more were met: the value is not exact).
        let mut mantissa = 0u64;
        let mut digits = 0u32;
        match s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = super::decimal::gather(s, i, &mut mantissa, &mut digits),
            _ => {
                self.i = i;
                return Err(self.err("invalid number"));
            }
        }
        let mut integer = true;
        let mut scale = 0i32;
        if s.get(i) == Some(&b'.') {
            integer = false;
            i += 1;
            if !matches!(s.get(i), Some(b'0'..=b'9')) {
                self.i = i;
                return Err(self.err("digit expected after '.'"));
            }
            let fraction = i;
            if mantissa == 0 {
                // Zeros before the first significant digit only move the point.
                while s.get(i) == Some(&b'0') {
                    i += 1;
                }
            }
            i = super::decimal::gather(s, i, &mut mantissa, &mut digits);
            // A fraction this long is read from the text below.
            scale = -((i - fraction).min(1 << 20) as i32);
        }
        let mut exponent = 0i32;
        if matches!(s.get(i), Some(b'e' | b'E')) {
            integer = false;
            i += 1;
            let negative_exp = s.get(i) == Some(&b'-');
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !matches!(s.get(i), Some(b'0'..=b'9')) {
                self.i = i;
                return Err(self.err("digit expected in exponent"));
            }
            while let Some(&d @ b'0'..=b'9') = s.get(i) {
                exponent = exponent
                    .saturating_mul(10)
                    .saturating_add((d - b'0') as i32);
                i += 1;
            }
            if negative_exp {
                exponent = -exponent;
            }
        }
        self.i = i;
        let exact = digits <= 19;
        if integer && exact && mantissa <= i64::MAX as u64 {
            let v = mantissa as i64;
            self.b.int(if negative { -v } else { v });
            return Ok(());
        }
        // Clinger's fast path: both factors exact in f64, so one correctly
        // rounded operation gives the correctly rounded result.
        let e = scale.saturating_add(exponent);
        if !integer && exact && mantissa <= 1 << 53 && (-22..=22).contains(&e) {
            let m = mantissa as f64;
            let f = if e < 0 {
                m / super::decimal::POW10_F64[(-e) as usize]
            } else {
                m * super::decimal::POW10_F64[e as usize]
            };
            self.b.double(if negative { -f } else { f });
            return Ok(());
        }
        // Up to 19 digits times 10^-19 to 10^19 (doubles printed with all
        // their 17 digits land here): exact integer arithmetic, one rounding.
        if !integer && exact {
            if let Some(f) = super::decimal::exact_decimal(mantissa, e) {
                self.b.double(if negative { -f } else { f });
                return Ok(());
            }
        }
        // SAFETY: the grammar above admits only ASCII digits, signs, `.`,
        // `e` and `E` between `start` and `i`.
        let text = unsafe { core::str::from_utf8_unchecked(&s[start..i]) };
        if integer {
            if let Ok(v) = text.parse::<i64>() {
                self.b.int(v);
                return Ok(());
            }
            if let Ok(v) = text.parse::<u64>() {
                self.b.uint(v);
                return Ok(());
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => {
                self.b.double(f);
                Ok(())
            }
            _ => {
                self.i = start;
                Err(self.err("number out of range of a double"))
            }
        }
    }

    /// Re-reads the key whose opening quote is at `at` (only on the error path).
    fn key_text(&self, at: usize) -> Option<String> {
        if self.s.get(at) != Some(&b'"') {
            return None;
        }
        let mut b = Builder::new();
        let mut p = Parser {
            s: self.s,
            i: at,
            b: &mut b,
            stack: Vec::new(),
            max_depth: 0,
        };
        p.string().ok().map(|c| c.into_owned())
    }

    /// Advances `self.i` to the next quote, backslash or control byte (or the end).
    #[inline(always)]
    fn plain_run(&mut self) {
        let s = self.s;
        let mut i = self.i;
        while i + 8 <= s.len() {
            if super::needs_escape(crate::word::word(s, i)) {
                break;
            }
            i += 8;
        }
        while let Some(&c) = s.get(i) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                break;
            }
            i += 1;
        }
        self.i = i;
    }

    /// The text of `s[from..to]`, a run that starts and ends at ASCII bytes
    /// of the `&str` input, so it is UTF-8 too.
    #[inline(always)]
    fn run_text(&self, from: usize, to: usize) -> &'t str {
        let s: &'t [u8] = self.s;
        // SAFETY: `s` came from a `&str` and both ends are at ASCII bytes (or
        // the ends of the input), which never fall inside a UTF-8 sequence.
        unsafe { core::str::from_utf8_unchecked(&s[from..to]) }
    }

    fn string(&mut self) -> Result<Cow<'t, str>> {
        self.i += 1; // opening quote
        let s: &'t [u8] = self.s;
        let start = self.i;
        self.plain_run();
        if s.get(self.i) == Some(&b'"') {
            let text = self.run_text(start, self.i);
            self.i += 1;
            return Ok(Cow::Borrowed(text));
        }
        self.i = start;
        let mut out = String::new();
        loop {
            let run = self.i;
            self.plain_run();
            out.push_str(self.run_text(run, self.i));
            match s.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = match s.get(self.i) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.i += 1;
                            let hi = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&hi) {
                                if s.get(self.i) != Some(&b'\\') || s.get(self.i + 1) != Some(&b'u')
                                {
                                    return Err(self.err("lone high surrogate in \\u escape"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return Err(self.err("invalid low surrogate in \\u escape"));
                                }
                                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                            } else {
                                hi
                            };
                            let ch = char::from_u32(code)
                                .ok_or_else(|| self.err("lone low surrogate in \\u escape"))?;
                            out.push(ch);
                            continue;
                        }
                        _ => return Err(self.err("invalid escape")),
                    };
                    self.i += 1;
                    out.push(c);
                }
                Some(_) => return Err(self.err("control character in string")),
                None => return Err(self.err("unterminated string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("truncated \\u escape"))?;
        let mut v = 0u32;
        for &d in digits {
            let n = (d as char)
                .to_digit(16)
                .ok_or_else(|| self.err("invalid hex digit in \\u escape"))?;
            v = v * 16 + n;
        }
        self.i += 4;
        Ok(v)
    }
}

fn line_col(s: &[u8], at: usize) -> (usize, usize) {
    let before = &s[..at.min(s.len())];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
    (line, col)
}

/// JSON's whitespace: space, line feed, carriage return, tab.
#[inline(always)]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_objects_are_errors_not_panics() {
        for text in ["{", " {\n", "[{", "{\"a\":{", "{\"a\"", "{\"a\":1,"] {
            let e = from_json(text).unwrap_err();
            assert!(matches!(e.kind(), ErrorKind::Json(_)), "{text:?}: {e}");
        }
        let e = from_json("{\"a\":[1,{").unwrap_err();
        assert_eq!(e.path().as_deref(), Some("$.a[1]"));
    }

    /// Whitespace of any run length between tokens (spaces skipped eight at
    /// a time, tabs, newlines, carriage returns) reads as the compact text
    /// does, up to the input's end, and an error after a run names the
    /// offending token's line and column.
    #[test]
    fn whitespace_runs_of_every_length_read_as_compact_text() {
        let tokens = [
            "{", "\"a\"", ":", "[", "1", ",", "2.5", ",", "\"x y\"", ",", "{", "\"b\"", ":",
            "null", "}", "]", ",", "\"c\"", ":", "true", ",", "\"d\"", ":", "{", "}", "}",
        ];
        let want = from_json(&tokens.concat()).unwrap();
        let mut rng = crate::test_support::Rng::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..2_000 {
            let mut text = String::new();
            let mut pad = |text: &mut String| {
                let n = rng.below(if round % 3 == 0 { 40 } else { 12 });
                for _ in 0..n {
                    text.push([' ', ' ', ' ', '\n', '\t', '\r'][rng.below(6)]);
                }
            };
            pad(&mut text);
            for t in tokens {
                text.push_str(t);
                pad(&mut text);
            }
            assert_eq!(from_json(&text).unwrap(), want, "{text:?}");
        }
        for n in 0..40 {
            let text = format!("[1,\n{}x]", " ".repeat(n));
            let e = from_json(&text).unwrap_err();
            let ErrorKind::Json(msg) = e.kind() else {
                panic!("{text:?}: {e}");
            };
            assert!(msg.ends_with(&format!("line 2 column {}", n + 1)), "{msg}");
        }
    }

    /// What the parser must push for a number: the standard library's reading.
    fn expected(text: &str) -> Vec<u8> {
        let mut b = Builder::new();
        let integer = !text.contains(['.', 'e', 'E']);
        match (
            text.parse::<i64>(),
            text.parse::<u64>(),
            text.parse::<f64>(),
        ) {
            (Ok(i), _, _) if integer => b.int(i),
            (_, Ok(u), _) if integer => b.uint(u),
            (_, _, Ok(f)) => b.double(f),
            _ => unreachable!("{text}"),
        }
        b.finish_vec().unwrap()
    }

    #[test]
    fn numbers_read_as_the_standard_library_reads_them() {
        let mut rng = crate::test_support::Rng::new(0x853c_49e6_748f_ea9bu64);
        let mut next = || rng.bits();
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1",
            "-1",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "12345678901234567890123",
            "0.1",
            "1e22",
            "1e23",
            "9007199254740993.0",
            "123456789012345678.5",
            "1.7976931348623157e308",
            "5e-324",
            "2.5E-3",
            "1E+2",
            "0.000001",
            "100e-2",
            "4.35",
            "883.51",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..50_000 {
            let m = next() >> (next() % 64);
            let frac = next() % 1000;
            let exp = (next() % 60) as i32 - 30;
            texts.push(format!("{m}"));
            texts.push(format!("-{m}.{frac:03}"));
            texts.push(format!("{m}e{exp}"));
            texts.push(format!("{}", f64::from_bits(next() >> 2)));
        }
        for text in texts {
            if text.parse::<f64>().map_or(true, |f| !f.is_finite()) {
                continue;
            }
            assert_eq!(from_json(&text).unwrap(), expected(&text), "{text}");
        }
    }

    /// `from_json_with` keeps its builder and stack per thread: documents in
    /// any order (large and small, sharing strings or not, failing in the
    /// middle of a map or at the end, nested deeper than the limit) give
    /// the bytes or the error a fresh builder gives for each.
    #[test]
    fn documents_in_turn_read_as_each_alone() {
        use crate::builder::ShareFlags;
        let big: String = format!(
            "[{}]",
            (0..3_000)
                .map(|i| format!(
                    r#"{{"id":{i},"name":"n{}","tags":["a","b{i}"],"x":{i}.5}}"#,
                    i % 7
                ))
                .collect::<Vec<_>>()
                .join(",")
        );
        let deep = format!("{}{}", "[".repeat(70), "]".repeat(70));
        let texts = [
            r#"{"a": 1}"#,
            big.as_str(),
            r#"{"b": [1, 2, {"c": "s", "d": "s"}], "a": "s"}"#,
            r#"{"a": [1, {"b": "#,
            "1e999",
            deep.as_str(),
            r#"{"z": "s", "y": "s", "x": {"w": "s"}}"#,
            "[]",
            r#""just a string""#,
            r#"{"a": 1, "a": 2}"#,
        ];
        let alone = |text: &str, options: &JsonOptions| -> Result<Vec<u8>> {
            let mut b = Builder::with_options(BuilderOptions {
                share: options.share,
                ..BuilderOptions::default()
            });
            from_json_into(text, options, &mut b)?;
            b.finish_vec()
        };
        let mut rng = crate::test_support::Rng::new(0x51a7_e5ed_0f0e_4321);
        for round in 0..200 {
            let text = texts[rng.below(texts.len())];
            let options = JsonOptions {
                share: [ShareFlags::KEYS, ShareFlags::KEYS_AND_STRINGS][rng.below(2)],
                ..JsonOptions::default()
            };
            let got = from_json_with(text, &options);
            let want = alone(text, &options);
            match (&got, &want) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "round {round}: {text:.40}"),
                (Err(a), Err(b)) => assert_eq!(
                    (a.kind(), a.offset(), a.path()),
                    (b.kind(), b.offset(), b.path()),
                    "round {round}: {text:.40}"
                ),
                _ => panic!("round {round}: {text:.40}: {got:?} against {want:?}"),
            }
        }
    }
}
