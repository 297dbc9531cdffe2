//! Differential test of `from_json`: the benchmark fixtures and thousands of
//! random JSON documents, parsed by the C++ reference's JSON parser
//! (`flatbuffers::Parser::ParseFlexBuffer`, `conformance/cpp/json_parse.cpp`)
//! and by ours; the bytes must be identical. The documents stay inside RFC
//! 8259 and outside the deviations `DEVIATIONS.md` lists for JSON text,
//! which `documented_json_deviations_hold` shows.
//!
//! `FLEXBUF_JSON_SEED` and `FLEXBUF_JSON_CASES` change the seed and the count
//! (default 2,000); `FLEXBUF_SKIP_CPP=1` skips the test where no C++
//! toolchain exists (without it, a missing g++ or libflatbuffers fails it).

mod common;

use flexbuf_conformance::cpp::repo_root;
use flexbuf_conformance::generate::INT_BOUNDARIES;
use flexbuf_conformance::op::to_hex;
use flexbuf_conformance::random::XorShift;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Random JSON text: RFC 8259, every kind of number and escape the format
/// allows, keys drawn from a small pool (so maps share them) and fresh ones.
struct Doc<'r> {
    rng: &'r mut XorShift,
    out: String,
}

const KEYS: [&str; 12] = [
    "id",
    "name",
    "a",
    "b",
    "ab",
    "é",
    "中文",
    "🌐",
    "",
    "Z",
    "_x",
    "longer key name",
];

impl Doc<'_> {
    fn space(&mut self) {
        if self.rng.chance(20) {
            let ws = [" ", "  ", "\n", "\t", "\r\n", " \n  "];
            self.out.push_str(self.rng.pick(&ws));
        }
    }

    fn digits(&mut self, n: usize) {
        for i in 0..n {
            let d = if i == 0 {
                1 + self.rng.below(9)
            } else {
                self.rng.below(10)
            };
            self.out.push(char::from(b'0' + d as u8));
        }
    }

    fn number(&mut self) {
        match self.rng.below(10) {
            // Integers of every magnitude within i64, the limits included.
            0 => {
                let v = self.rng.next_u64() as i64 >> self.rng.below(64);
                self.out.push_str(&v.to_string());
            }
            1 => {
                let v = self.rng.pick(&INT_BOUNDARIES);
                self.out.push_str(&v.to_string());
            }
            2 => self.out.push_str(
                self.rng
                    .pick(&["-0", "0", "0.0", "-0.0", "1.0", "0e0", "-0E-0"]),
            ),
            // Decimals with a fraction and maybe an exponent.
            3..=5 => {
                if self.rng.chance(40) {
                    self.out.push('-');
                }
                if self.rng.chance(30) {
                    self.out.push('0');
                } else {
                    let n = 1 + self.rng.below(8);
                    self.digits(n);
                }
                self.out.push('.');
                let most = if self.rng.chance(10) { 30 } else { 6 };
                let n = 1 + self.rng.below(most);
                for _ in 0..n {
                    let d = self.rng.below(10) as u8;
                    self.out.push(char::from(b'0' + d));
                }
                if self.rng.chance(30) {
                    self.exponent(300);
                }
            }
            // Integers with an exponent (doubles), tiny and huge ones.
            6 => {
                let n = 1 + self.rng.below(3);
                self.digits(n);
                self.exponent(300);
            }
            7 => self.out.push_str(self.rng.pick(&[
                "5e-324",
                "4.9406564584124654e-324",
                "2.2250738585072014e-308",
                "2.225073858507201e-308",
                "1.7976931348623157e308",
                "1e-320",
                "3.4028234663852886e38",
                "3.4028235e38",
                "1.401298464324817e-45",
                "0.1",
                "0.30000000000000004",
                "9007199254740993",
                "9007199254740993.0",
                "123456789012345678901234567890e-20",
                "2.5",
                "1e23",
                "8.98846567431158e307",
            ])),
            // Floats exact in f32 (written 4 bytes wide) and not.
            8 => {
                let f = (self.rng.next_u64() % 100_000) as f64 / 64.0;
                self.out.push_str(&format!("{f:?}"));
            }
            _ => {
                let f = f64::from_bits(self.rng.next_u64() >> 2);
                if f.is_finite() {
                    self.out.push_str(&format!("{f:e}"));
                } else {
                    self.out.push_str("1.5");
                }
            }
        }
    }

    fn exponent(&mut self, max: usize) {
        self.out.push(self.rng.pick(&['e', 'E']));
        let sign = self.rng.pick(&["", "+", "-"]);
        self.out.push_str(sign);
        let e = self.rng.below(max);
        self.out.push_str(&e.to_string());
    }

    /// A string's contents (without quotes); `key` leaves out `\u0000`.
    fn chars(&mut self, key: bool) {
        let most = if self.rng.chance(10) { 80 } else { 10 };
        let n = self.rng.below(most);
        for _ in 0..n {
            match self.rng.below(12) {
                0 => {
                    let e = self
                        .rng
                        .pick(&["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]);
                    self.out.push_str(e);
                }
                1 => {
                    // A BMP escape outside the surrogates (NUL only in values).
                    let lo = if key { 1 } else { 0 };
                    let mut c = lo + self.rng.below(0xffff - lo);
                    if (0xd800..0xe000).contains(&c) {
                        c -= 0x800;
                    }
                    let hex = if self.rng.chance(50) {
                        format!("\\u{c:04x}")
                    } else {
                        format!("\\u{c:04X}")
                    };
                    self.out.push_str(&hex);
                }
                2 => {
                    // A surrogate pair escape.
                    let c = 0x10000 + self.rng.below(0x10_0000) as u32;
                    let (hi, lo) = (
                        0xd800 + ((c - 0x10000) >> 10),
                        0xdc00 + ((c - 0x10000) & 0x3ff),
                    );
                    self.out.push_str(&format!("\\u{hi:04x}\\u{lo:04x}"));
                }
                3 => self.out.push(
                    self.rng
                        .pick(&['é', 'ß', 'Ω', 'ж', '中', '語', '한', '🌐', '😀', '𓂀']),
                ),
                _ => {
                    let c = char::from(0x20 + self.rng.below(0x5f) as u8);
                    match c {
                        '"' | '\\' => self.out.push('x'),
                        c => self.out.push(c),
                    }
                }
            }
        }
    }

    fn value(&mut self, depth: usize) {
        self.space();
        let kind = self.rng.below(if depth == 0 { 6 } else { 8 });
        match kind {
            0 => self.out.push_str(self.rng.pick(&["null", "true", "false"])),
            1 | 2 => self.number(),
            3 => {
                self.out.push('"');
                self.chars(false);
                self.out.push('"');
            }
            4 | 5 if depth == 0 => self.number(),
            4 | 6 => {
                self.out.push('[');
                let n = self.rng.below(7);
                for i in 0..n {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(depth - 1);
                }
                self.space();
                self.out.push(']');
            }
            _ => {
                self.out.push('{');
                let n = self.rng.below(7);
                let mut used: Vec<String> = Vec::new();
                for _ in 0..n {
                    // Keys are unique within an object (a duplicate is an
                    // error on both sides).
                    let key = loop {
                        let start = self.out.len();
                        if self.rng.chance(60) {
                            let k = self.rng.pick(&KEYS);
                            self.out.push_str(k);
                        } else {
                            self.chars(true);
                        }
                        let text = self.out.split_off(start);
                        if !used.contains(&text) {
                            break text;
                        }
                    };
                    if !used.is_empty() {
                        self.out.push(',');
                    }
                    self.space();
                    self.out.push('"');
                    self.out.push_str(&key);
                    self.out.push('"');
                    self.space();
                    self.out.push(':');
                    used.push(key);
                    self.value(depth - 1);
                }
                self.space();
                self.out.push('}');
            }
        }
        self.space();
    }
}

fn compare(docs: &[String], what: &str) {
    let Some(cpp) = common::json_parser() else {
        return;
    };
    let bytes: Vec<&[u8]> = docs.iter().map(|d| d.as_bytes()).collect();
    let theirs = cpp.parse(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut failures = Vec::new();
    let mut rejected = 0;
    for (doc, cpp) in docs.iter().zip(&theirs) {
        let ours = flexbuf::from_json(doc);
        match (cpp, &ours) {
            (Ok(c), Ok(o)) if c == o => {}
            // Both refuse it: a key spelt twice (escapes can spell one
            // already present), an error on both sides.
            (Err(c), Err(e))
                if c.contains("duplicate keys")
                    && matches!(e.kind(), flexbuf::ErrorKind::Json(m) if m.starts_with("duplicate key")) =>
            {
                rejected += 1
            }
            _ => failures.push(format!(
                "{}\n  C++:  {:?}\n  ours: {:?}",
                if doc.len() > 300 { &doc[..300] } else { doc },
                cpp.as_ref().map(|b| to_hex(b)),
                ours.as_ref().map(|b| to_hex(b)),
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: {} of {} documents differ from the C++ parser:\n{}",
        failures.len(),
        docs.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        rejected * 20 <= docs.len(),
        "{what}: {rejected} of {} documents rejected by both",
        docs.len()
    );
}

#[test]
fn fixtures_parse_to_the_cpp_bytes() {
    let dir = repo_root().join("conformance/fixtures");
    let mut docs = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            docs.push(std::fs::read_to_string(&path).unwrap());
        }
    }
    assert!(docs.len() >= 11, "{} fixtures", docs.len());
    compare(&docs, "fixtures");
}

/// `count` random documents from `seed`.
fn random_docs(seed: u64, count: usize) -> Vec<String> {
    let mut rng = XorShift::new(seed);
    let mut docs = Vec::with_capacity(count);
    while docs.len() < count {
        let depth = rng.below(6);
        let mut doc = Doc {
            rng: &mut rng,
            out: String::new(),
        };
        doc.value(depth);
        docs.push(doc.out);
    }
    docs
}

#[test]
fn random_documents_parse_to_the_cpp_bytes() {
    let seed = env_u64("FLEXBUF_JSON_SEED", 0x150a_d1ff);
    let count = env_u64("FLEXBUF_JSON_CASES", 2000) as usize;
    compare(&random_docs(seed, count), &format!("seed {seed:#x}"));
}

/// Documents whose C++ bytes are committed (`conformance/json/documents.json`)
/// for the SDKs that parse JSON themselves (TypeScript's `fromJSON`): numbers,
/// strings and escapes on the edges, then random documents.
const EDGES: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "0.0",
    "-0.0",
    "1.0",
    "0.1",
    "1e2",
    "1E-7",
    "1.5e300",
    "5e-324",
    "1e-320",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "255",
    "256",
    "-128",
    "-129",
    "3.4028234663852886e38",
    "0.30000000000000004",
    "9007199254740993",
    "123456789012345678901234567890e-20",
    r#""""#,
    r#""a\u0000b""#,
    r#""\ud83d\ude00""#,
    r#""\u00e9\u4e2d""#,
    r#""esc \" \\ \/ \b \f \n \r \t""#,
    r#""\u0001\u001f""#,
    "[]",
    "{}",
    "[[]]",
    "[{}]",
    r#"{"a":{}}"#,
    r#"{"b":1,"a":2}"#,
    r#"{"":1}"#,
    r#"{"a":1,"A":2,"_":3,"é":4}"#,
    r#"[1,2.5,"x",null,true,false]"#,
    "[1,2,3]",
    "[1.5,2.5]",
    "[true,false]",
    r#"["a","b","a"]"#,
    r#"{"k":"v","v":"k"}"#,
    "[1,-1,255,-129,70000]",
    r#"{"x":[1,2],"y":[1,2]}"#,
    "[[1,2],[1,2]]",
    "[0.5,1]",
    "[1,0.5]",
    " [  1 ,\n\t2 ] ",
    r#"{"a" : [ ] }"#,
];

fn committed_path() -> std::path::PathBuf {
    repo_root().join("conformance/json/documents.json")
}

/// Writes `conformance/json/documents.json` from the C++ parser.
fn regenerate() {
    let cpp = common::json_parser().expect("regenerating needs the C++ parser");
    let mut docs: Vec<String> = EDGES.iter().map(|s| s.to_string()).collect();
    docs.extend(random_docs(0x00d0_c5ee_d000, 400));
    let bytes: Vec<&[u8]> = docs.iter().map(|d| d.as_bytes()).collect();
    let parsed = cpp.parse(&bytes).unwrap();
    let cases: Vec<serde_json::Value> = docs
        .iter()
        .zip(parsed)
        .filter_map(|(text, b)| {
            let hex = to_hex(&b.ok()?);
            Some(serde_json::json!({ "text": text, "hex": hex }))
        })
        .collect();
    let file = serde_json::json!({
        "about": "JSON documents and the FlexBuffer that the C++ reference's JSON parser \
                  (flatbuffers::Parser::ParseFlexBuffer, libflatbuffers 2.0.8, default \
                  builder flags) makes of each. Regenerate with FLEXBUF_JSON_REGEN=1 cargo \
                  test -p flexbuf-conformance --test json_differential.",
        "cases": cases,
    });
    std::fs::create_dir_all(committed_path().parent().unwrap()).unwrap();
    let text = serde_json::to_string_pretty(&file).unwrap();
    std::fs::write(committed_path(), text + "\n").unwrap();
}

#[test]
fn committed_json_documents_parse_to_their_cpp_bytes() {
    if std::env::var("FLEXBUF_JSON_REGEN").as_deref() == Ok("1") {
        regenerate();
    }
    let text = std::fs::read_to_string(committed_path()).expect("conformance/json/documents.json");
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 400, "{} documents", cases.len());
    let docs: Vec<&str> = cases.iter().map(|c| c["text"].as_str().unwrap()).collect();
    let hexes: Vec<&str> = cases.iter().map(|c| c["hex"].as_str().unwrap()).collect();
    // Ours, against the committed bytes (no C++ toolchain needed).
    for (doc, hex) in docs.iter().zip(&hexes) {
        let ours = flexbuf::from_json(doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
        assert_eq!(to_hex(&ours), *hex, "{doc}");
    }
    // The C++ parser, against the committed bytes.
    let Some(cpp) = common::json_parser() else {
        return;
    };
    let bytes: Vec<&[u8]> = docs.iter().map(|d| d.as_bytes()).collect();
    for ((doc, hex), b) in docs.iter().zip(&hexes).zip(cpp.parse(&bytes).unwrap()) {
        let b = b.unwrap_or_else(|e| panic!("C++ rejects {doc}: {e}"));
        assert_eq!(to_hex(&b), *hex, "{doc}");
    }
}

/// What `DEVIATIONS.md` says of JSON text, shown: numbers C++ writes as 0 or
/// infinity, a NUL in a key, and text that is not JSON.
#[test]
fn documented_json_deviations_hold() {
    let Some(cpp) = common::json_parser() else {
        return;
    };
    let docs: [&[u8]; 8] = [
        b"18446744073709551615",
        b"-9223372036854775809",
        b"1e400",
        br#"{"a\u0000b":1}"#,
        b"[1,2,]",
        b"{a:1}",
        b"nan",
        b"[1] [2]",
    ];
    let theirs = cpp.parse(&docs).unwrap();
    let zero = flexbuf::from_json("0").unwrap();
    // Integers beyond i64: C++ writes 0; ours a uint, then a double.
    assert_eq!(theirs[0].as_ref().unwrap(), &zero);
    assert_eq!(theirs[1].as_ref().unwrap(), &zero);
    let big = flexbuf::from_json("18446744073709551615").unwrap();
    let root = flexbuf::verify(&big).unwrap().root();
    assert_eq!(root.as_u64().unwrap(), u64::MAX);
    let below = flexbuf::from_json("-9223372036854775809").unwrap();
    let root = flexbuf::verify(&below).unwrap().root();
    assert_eq!(root.as_f64().unwrap(), -9223372036854775809.0);
    // Beyond f64: C++ writes infinity; ours is an error.
    let inf = flexbuf::verify(theirs[2].as_ref().unwrap()).unwrap().root();
    assert_eq!(inf.as_f64().unwrap(), f64::INFINITY);
    assert!(flexbuf::from_json("1e400").is_err());
    // A NUL in a key: C++ cuts the key there; ours is an error.
    let cut = flexbuf::verify(theirs[3].as_ref().unwrap()).unwrap().root();
    assert_eq!(cut.as_map().unwrap().key(0).unwrap(), "a");
    assert!(flexbuf::from_json(r#"{"a\u0000b":1}"#).is_err());
    // Text that is not JSON, which the C++ parser accepts and we reject.
    for (i, doc) in docs.iter().enumerate().skip(4) {
        assert!(
            theirs[i].is_ok(),
            "C++ rejects {:?}",
            String::from_utf8_lossy(doc)
        );
        assert!(
            flexbuf::from_json(std::str::from_utf8(doc).unwrap()).is_err(),
            "we accept {:?}",
            String::from_utf8_lossy(doc)
        );
    }
}
