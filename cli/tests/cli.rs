//! End-to-end tests of the `flexbuf` binary: exit codes, messages and output.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_flexbuf");

/// Runs the binary with `args`, feeding `stdin` from a separate thread so large
/// inputs and outputs cannot deadlock on full pipes.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn flexbuf");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        // The child may exit without reading (usage errors): a broken pipe is fine.
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for flexbuf");
    feeder.join().unwrap();
    out
}

fn code(out: &Output) -> i32 {
    // None means killed by a signal, which must never happen.
    out.status
        .code()
        .unwrap_or_else(|| panic!("terminated by a signal: {out:?}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// Asserts success and returns stdout as bytes.
fn ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = run(args, stdin);
    assert_eq!(code(&out), 0, "{args:?} failed: {}", stderr(&out));
    out.stdout
}

/// Asserts exit code `expected` and returns the one-line stderr message.
fn fails(args: &[&str], stdin: &[u8], expected: i32) -> String {
    let out = run(args, stdin);
    assert_eq!(code(&out), expected, "{args:?}: {}", stderr(&out));
    let msg = stderr(&out);
    if expected == 1 {
        assert!(
            msg.lines().count() <= 2,
            "one line (and a hint) expected: {msg:?}"
        );
    }
    msg
}

fn to_flex(json: &str, share: &str) -> Vec<u8> {
    ok(&["from-json", "--share", share], json.as_bytes())
}

fn to_json(flex: &[u8]) -> String {
    String::from_utf8(ok(&["to-json"], flex)).expect("JSON output is UTF-8")
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:.200}"))
}

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// 30 levels of two-element untyped vectors whose elements both point at the
/// level below, over a leaf `[1, 2]`: 158 bytes that expand to 2^31 leaves.
fn dag_bomb() -> Vec<u8> {
    const VECTOR_W1: u8 = 10 << 2;
    const INT_W1: u8 = 1 << 2;
    // Each level is [size 2][elem][elem][type][type]; data starts after the size byte.
    let mut buf = vec![2, 1, 2, INT_W1, INT_W1];
    for _ in 0..30 {
        // Elements at data+0 and data+1 point 5 and 6 bytes back to the previous data.
        buf.extend_from_slice(&[2, 5, 6, VECTOR_W1, VECTOR_W1]);
    }
    // Root slot: offset back to the last level's data (4 bytes before it), type, width.
    buf.extend_from_slice(&[4, VECTOR_W1, 1]);
    buf
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "fixtures missing in {}", dir.display());
    files
}

#[test]
fn documents_round_trip() {
    let docs = [
        r#"{"name":"Ada","age":36,"tags":["math","engines"],"address":{"city":"London","geo":{"lat":51.5,"lon":-0.12}}}"#,
        r#"["Grüße","日本語","Привет","emoji 👩‍👩‍👧 🇸🇪","\u0000 \u001f \"quoted\" \\ / \n\t"]"#,
        r#"{"é":1,"z":2,"A":3,"日":4,"":5}"#,
        r#"[0,-1,127,128,-129,9223372036854775807,-9223372036854775808,18446744073709551615]"#,
        r#"[3.0,-0.5,1e300,2.5e-308,0.1,100.0,1.7976931348623157e308]"#,
        r#"[[[[[[]]]]],{},[{}],{"a":{"b":{"c":[null,true,false]}}}]"#,
        r#""just a string""#,
        "42",
        "null",
    ];
    for doc in docs {
        for share in ["none", "keys", "strings", "keys-and-strings", "all"] {
            let back = to_json(&to_flex(doc, share));
            assert!(back.ends_with('\n'));
            assert_eq!(parse(&back), parse(doc), "share {share}: {doc}");
        }
    }
}

#[test]
fn integral_floats_stay_floats() {
    let back = to_json(&to_flex("[3.0, 3, -0.0, 1e2]", "keys"));
    assert_eq!(back, "[3.0,3,-0.0,100.0]\n");
}

#[test]
fn every_fixture_round_trips_to_equal_json() {
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = parse(&text);
        let p = path.to_str().unwrap();
        for share in ["none", "keys", "all"] {
            let flex = ok(&["from-json", "--share", share, p], b"");
            let back = to_json(&flex);
            assert_eq!(
                parse(&back),
                expected,
                "{} with --share {share}",
                path.display()
            );
        }
        // The buffer also validates and inspects cleanly.
        let flex = to_flex(&text, "keys");
        assert!(stdout(&run(&["validate"], &flex)).starts_with("valid ("));
        let tree = ok(&["inspect"], &flex);
        assert!(tree.starts_with(format!("{} bytes; root:", flex.len()).as_bytes()));
    }
}

#[test]
fn sharing_modes_change_the_size() {
    let strings =
        r#"["a repeated string value","a repeated string value","a repeated string value"]"#;
    let none = to_flex(strings, "none");
    let shared = to_flex(strings, "strings");
    assert!(
        shared.len() < none.len(),
        "{} vs {}",
        shared.len(),
        none.len()
    );
    assert_eq!(
        to_flex(strings, "keys"),
        none,
        "keys mode does not share strings"
    );
    assert_eq!(to_flex(strings, "all"), shared);

    let keys = r#"[{"a long key name":1},{"a long key name":2},{"a long key name":3}]"#;
    let none = to_flex(keys, "none");
    let shared = to_flex(keys, "keys");
    assert!(
        shared.len() < none.len(),
        "{} vs {}",
        shared.len(),
        none.len()
    );
    assert_eq!(
        to_flex(keys, "strings"),
        none,
        "strings mode does not share keys"
    );
    assert_eq!(to_flex(keys, "keys-and-strings"), shared);
    // The default is keys, as in the C++ builder.
    assert_eq!(ok(&["from-json"], keys.as_bytes()), shared);
}

#[test]
fn files_and_dash_work_for_input_and_output() {
    let dir = std::env::temp_dir().join(format!("flexbuf-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("in.json");
    let flex = dir.join("out.flex");
    let back = dir.join("back.json");
    std::fs::write(&json, r#"{"k":[1,"two"]}"#).unwrap();
    let (json_s, flex_s, back_s) = (
        json.to_str().unwrap(),
        flex.to_str().unwrap(),
        back.to_str().unwrap(),
    );
    assert!(ok(&["from-json", json_s, "-o", flex_s], b"").is_empty());
    let bytes = std::fs::read(&flex).unwrap();
    assert_eq!(
        ok(&["from-json", "-", "-o", "-"], br#"{"k":[1,"two"]}"#),
        bytes
    );
    assert!(ok(&["to-json", flex_s, "-o", back_s], b"").is_empty());
    assert_eq!(
        std::fs::read_to_string(&back).unwrap(),
        "{\"k\":[1,\"two\"]}\n"
    );
    assert_eq!(
        stdout(&run(&["validate", "-"], &bytes)),
        format!("valid ({} bytes)\n", bytes.len())
    );
    // A failed conversion leaves no output file behind.
    let never = dir.join("never.flex");
    fails(&["from-json", "-o", never.to_str().unwrap()], b"[1,", 1);
    assert!(!never.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pretty_printing_indents() {
    let flex = to_flex(r#"{"a":[1,{"b":null}],"c":{}}"#, "keys");
    let pretty = String::from_utf8(ok(&["to-json", "--pretty"], &flex)).unwrap();
    let expected = "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {}\n}\n";
    assert_eq!(pretty, expected);
}

#[test]
fn validate_reports_valid_and_invalid() {
    let flex = to_flex(r#"{"a":"b"}"#, "keys");
    let out = run(&["validate"], &flex);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out), format!("valid ({} bytes)\n", flex.len()));

    // Point the root at a string whose length runs past the end.
    let bad = [0x7f, b'a', 0, 2, 0x14, 1];
    let msg = fails(&["validate"], &bad, 1);
    assert!(msg.starts_with("flexbuf: invalid FlexBuffer: "), "{msg}");
    assert!(msg.contains("offset"), "{msg}");

    // A corrupted key inside a map names the path and offset.
    let mut corrupt = flex.clone();
    let at = corrupt.iter().position(|&b| b == b'b').unwrap();
    corrupt[at] = 0xff;
    let msg = fails(&["validate"], &corrupt, 1);
    assert!(
        msg.contains("UTF-8") && msg.contains("at $.a") && msg.contains("(offset "),
        "{msg}"
    );

    // Depth limits are configurable.
    let deep = to_flex("[[[[1]]]]", "keys");
    assert!(fails(&["validate", "--max-depth", "3"], &deep, 1).contains("nesting deeper"));
    ok(&["validate", "--max-depth", "4"], &deep);
}

#[test]
fn inspect_prints_the_annotated_tree() {
    let flex = to_flex(r#"{"name":"Ada","n":-3,"v":[1.5,true]}"#, "keys");
    let text = stdout(&run(&["inspect"], &flex));
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
    // Piped output is plain unless colour is forced.
    assert!(!text.contains('\x1b'));
    let coloured = stdout(&run(&["inspect", "--color", "always"], &flex));
    assert!(coloured.contains("\x1b["), "{coloured:?}");
    let out = Command::new(BIN)
        .args(["inspect", "--color", "auto", "-"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(&flex)?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn inspect_shortens_long_strings_and_blobs_and_shows_indirect_values() {
    let mut b = flexbuf::Builder::new();
    b.start_vector();
    b.string(&"x".repeat(200));
    b.blob(&[0xab; 100]);
    b.indirect_int(-7);
    b.typed_vector(&[1u16, 2, 3]);
    b.end_vector().unwrap();
    let flex = b.finish_vec().unwrap();
    let text = stdout(&run(&["inspect"], &flex));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[2].ends_with(&format!("len 200 = \"{}\"…", "x".repeat(64))),
        "{text}"
    );
    assert!(
        lines[3].ends_with(&format!("len 100 = {}…", "ab".repeat(32))),
        "{text}"
    );
    assert!(
        lines[4].contains("indirect_int w1 -> @") && lines[4].ends_with("= -7"),
        "{text}"
    );
    assert!(
        lines[5].contains("vector_uint w1 -> @") && lines[5].ends_with("(3 elements)"),
        "{text}"
    );
    assert!(
        lines[8].starts_with("    [2]: @") && lines[8].ends_with("uint w1 = 3"),
        "{text}"
    );
}

#[test]
fn inspect_verifies_first() {
    let msg = fails(&["inspect"], &[0x7f, b'a', 0, 2, 0x14, 1], 1);
    assert!(
        msg.starts_with("flexbuf: invalid FlexBuffer: ") && msg.contains("offset"),
        "{msg}"
    );
}

#[test]
fn non_finite_floats_follow_the_flag() {
    let mut b = flexbuf::Builder::new();
    b.start_vector();
    b.double(f64::NAN);
    b.double(f64::NEG_INFINITY);
    b.end_vector().unwrap();
    let flex = b.finish_vec().unwrap();
    let msg = fails(&["to-json"], &flex, 1);
    assert!(msg.contains("NaN or infinity"), "{msg}");
    fails(&["to-json", "--non-finite", "error"], &flex, 1);
    assert_eq!(
        ok(&["to-json", "--non-finite", "null"], &flex),
        b"[null,null]\n"
    );
    assert_eq!(
        ok(&["to-json", "--non-finite", "literal"], &flex),
        b"[NaN,-Infinity]\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["from-json", "--share", "sometimes"],
        &["to-json", "--non-finite", "maybe"],
        &["validate", "--max-depth", "deep"],
        &["inspect", "--color", "purple"],
        &["validate", "a", "b"],
        &["to-json", "--no-such-flag"],
    ] {
        let out = run(args, b"");
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let msg = stderr(&out);
        assert!(
            msg.starts_with("error:") || msg.contains("Usage: flexbuf <COMMAND>"),
            "{args:?}: {msg}"
        );
        assert!(out.stdout.is_empty());
    }
    let msg = fails(&["validate", "/definitely/not/here.flex"], b"", 2);
    assert!(
        msg.contains("cannot read /definitely/not/here.flex"),
        "{msg}"
    );
    let msg = fails(&["from-json", "-o", "/definitely/not/here.flex"], b"[]", 2);
    assert!(msg.contains("cannot write"), "{msg}");
}

#[test]
fn help_and_version() {
    let help = String::from_utf8(ok(&["--help"], b"")).unwrap();
    for word in ["from-json", "to-json", "validate", "inspect", "Exit codes"] {
        assert!(help.contains(word), "{word} missing from help:\n{help}");
    }
    let sub = String::from_utf8(ok(&["from-json", "--help"], b"")).unwrap();
    assert!(
        sub.contains("keys-and-strings") && sub.contains("--output"),
        "{sub}"
    );
    let version = String::from_utf8(ok(&["--version"], b"")).unwrap();
    assert_eq!(version, format!("flexbuf {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn empty_input_is_bad_data() {
    assert!(fails(&["from-json"], b"", 1).contains("unexpected end of input"));
    for cmd in ["to-json", "validate", "inspect"] {
        let msg = fails(&[cmd], b"", 1);
        assert!(
            msg.contains("invalid FlexBuffer") && msg.contains("offset 0"),
            "{msg}"
        );
    }
}

#[test]
fn json_errors_name_line_column_and_path() {
    let msg = fails(&["from-json"], b"{\"a\": [1,\n  2,, 3]}", 1);
    assert!(
        msg.contains("invalid JSON") && msg.contains("line 2 column 5"),
        "{msg}"
    );
    assert!(msg.contains("at $.a[2]"), "{msg}");

    let msg = fails(&["from-json"], br#"{"outer":{"x":1,"y":2,"x":3}}"#, 1);
    assert!(
        msg.contains(r#"duplicate key "x""#)
            && msg.contains("$.outer.x")
            && msg.contains("line 1 column 28"),
        "{msg}"
    );

    let msg = fails(&["from-json"], b"[\"caf\xe9\"]", 1);
    assert!(
        msg.contains("not valid UTF-8") && msg.contains("line 1 column 6"),
        "{msg}"
    );

    // A byte order mark is accepted.
    ok(&["from-json"], b"\xef\xbb\xbf[1]");
}

#[test]
fn depth_limits_are_configurable_end_to_end() {
    let depth = 1000;
    let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(
        fails(&["from-json"], json.as_bytes(), 1).contains("nesting deeper than the limit of 64")
    );
    let flex = ok(&["from-json", "--max-depth", "1000"], json.as_bytes());
    assert!(fails(&["to-json"], &flex, 1).contains("nesting deeper"));
    assert_eq!(
        ok(&["to-json", "--max-depth", "1000"], &flex),
        format!("{json}\n").into_bytes()
    );
    ok(&["validate", "--max-depth", "1024"], &flex);
    let tree = ok(&["inspect", "--max-depth", "1000"], &flex);
    assert_eq!(tree.iter().filter(|&&b| b == b'\n').count(), depth + 1);
}

#[test]
fn dag_bomb_is_stopped_by_the_budget_quickly() {
    let bomb = dag_bomb();
    assert_eq!(stdout(&run(&["validate"], &bomb)), "valid (158 bytes)\n");
    for cmd in ["to-json", "inspect"] {
        let start = Instant::now();
        let msg = fails(&[cmd], &bomb, 1);
        assert!(msg.contains("expansion budget exceeded"), "{cmd}: {msg}");
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{cmd} took {:?}",
            start.elapsed()
        );
    }
    // Output before the stop is bounded by the default budget (1 MiB for small inputs).
    let out = run(&["inspect"], &bomb);
    assert!(
        out.stdout.len() <= (1 << 20) + 4096,
        "{} bytes",
        out.stdout.len()
    );
    let out = run(&["inspect", "--max-nodes", "10"], &bomb);
    assert_eq!(code(&out), 1);
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 11);
    assert!(stderr(&out).contains("--max-nodes"));
    // An explicit output cap for to-json.
    let small = to_flex(r#"["0123456789","0123456789"]"#, "keys");
    assert!(fails(&["to-json", "--max-output", "10"], &small, 1).contains("budget"));
}

#[test]
fn random_bytes_never_crash() {
    let mut rng = Rng(0x5eed_f1e7_b0f5_0001);
    let seeds: Vec<Vec<u8>> = [
        r#"{"a":[1,2.5,"x",{"b":null}],"c":true}"#,
        r#"[[1,2],[3,4],"s",-1,18446744073709551615]"#,
    ]
    .iter()
    .map(|j| to_flex(j, "all"))
    .collect();
    for round in 0..300 {
        let input: Vec<u8> = if round % 2 == 0 {
            // Pure noise, biased to small lengths and plausible trailer widths.
            let len = rng.below(48);
            let mut v: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            if len > 0 && rng.below(2) == 0 {
                v[len - 1] = [1, 2, 4, 8][rng.below(4)];
            }
            v
        } else {
            // A valid buffer with a few bytes changed.
            let mut v = seeds[rng.below(seeds.len())].clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            v
        };
        let valid = code(&run(&["validate"], &input));
        assert!(valid == 0 || valid == 1, "validate {input:?}");
        for cmd in ["to-json", "inspect", "from-json"] {
            let out = run(&[cmd], &input);
            let c = code(&out);
            assert!(
                c == 0 || c == 1,
                "{cmd} exited {c} on {input:?}: {}",
                stderr(&out)
            );
            if cmd != "from-json" && valid == 1 {
                assert_eq!(c, 1, "{cmd} accepted what validate rejected: {input:?}");
            }
        }
    }
}

#[test]
fn closed_stdout_is_not_a_crash() {
    let big = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/fixtures/string_flood.json"),
    )
    .unwrap();
    let flex = to_flex(std::str::from_utf8(&big).unwrap(), "keys");
    let mut child = Command::new(BIN)
        .arg("inspect")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || pipe.write_all(&flex));
    let mut head = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // Dropping our end closes the pipe while the child is still writing.
    let status = child.wait().unwrap();
    feeder.join().unwrap().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn gen_writes_rust_coders_and_reports_schema_errors_with_position() {
    let dir = std::env::temp_dir().join(format!("flexbuf-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("point.fxs");
    std::fs::write(
        &schema,
        "namespace geo;\n/// A point.\nmessage Point { x: f64; y: f64; }\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = ok(
        &[
            "gen",
            "--lang",
            "rust",
            schema.to_str().unwrap(),
            "-o",
            out_dir.to_str().unwrap(),
        ],
        b"",
    );
    assert!(String::from_utf8_lossy(&out).contains("point.rs"));
    let code = std::fs::read_to_string(out_dir.join("point.rs")).unwrap();
    assert!(code.contains("pub struct Point"), "{code}");
    assert!(code.contains("/// A point."));
    assert!(code.contains("impl flexbuf::FlexCoder for Point"));

    let bad = dir.join("bad.fxs");
    std::fs::write(
        &bad,
        "message A {\n  x: Pont;\n}\nmessage Point { x: i32; }\n",
    )
    .unwrap();
    let msg = fails(
        &[
            "gen",
            "--lang",
            "rust",
            bad.to_str().unwrap(),
            "-o",
            out_dir.to_str().unwrap(),
        ],
        b"",
        1,
    );
    assert!(
        msg.contains("bad.fxs:2:6: error: unknown type `Pont`"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
