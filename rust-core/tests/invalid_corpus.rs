//! Replays the invalid-input corpus in `conformance/invalid/` (written by its
//! `generate.py`, described by its `manifest.json`):
//!
//! - every file marked invalid is rejected by [`flexbuf::verify`], with the
//!   error kind the manifest names (or any error where it says `"any"`);
//! - every control (`"valid": true`) is accepted and converts to the JSON the
//!   manifest gives;
//! - every DAG bomb (`"expand": "budget"`) verifies quickly but fails
//!   [`flexbuf::to_json`] with [`ErrorKind::BudgetExceeded`], quickly;
//! - the checked reader ([`Reader::new`]) walks every file, valid or not,
//!   without panicking, and on valid files agrees with the trusted reader.
//!
//! Each test checks every file and reports all failing files at once.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use flexbuf::{ErrorKind, FlexType, Reader};

/// Every file must verify within this, even in a debug build.
const VERIFY_TIME_LIMIT: Duration = Duration::from_secs(1);
/// A DAG bomb must hit the expansion budget within this, even in a debug build.
const EXPAND_TIME_LIMIT: Duration = Duration::from_secs(5);
/// The checked walk of one file must finish within this.
const WALK_TIME_LIMIT: Duration = Duration::from_secs(5);
/// Values the checked walk visits per file before stopping (cycles, DAG bombs).
const WALK_NODE_CAP: usize = 20_000;
/// Nesting the checked walk follows before stopping (cycles, depth bombs).
const WALK_DEPTH_CAP: usize = 80;

/// Classes whose entries all name the same error kind (or `"any"` where an
/// earlier check may legitimately fire first).
const CLASS_KINDS: &[(&str, &str)] = &[
    ("offset_out_of_range", "OffsetOutOfBounds"),
    ("offset_forward", "OffsetOutOfBounds"),
    ("cycle", "Cycle"),
    ("bad_width", "BadWidth"),
    ("unknown_type", "UnknownType"),
    ("size_overflow", "SizeOutOfBounds"),
    ("size_past_end", "SizeOutOfBounds"),
    ("depth_bomb", "DepthLimit"),
    ("unsorted_keys", "UnsortedKeys"),
    ("duplicate_keys", "UnsortedKeys"),
    ("non_utf8_string", "InvalidUtf8"),
    ("non_utf8_key", "InvalidUtf8"),
    ("key_without_nul", "MissingNul"),
    ("string_without_nul", "MissingNul"),
    ("key_value_length_mismatch", "KeyValueLengthMismatch"),
    ("float_bad_width", "BadWidth"),
];

/// Classes of buffers the verifier must accept.
const VALID_CLASSES: &[&str] = &["valid", "dag_bomb"];

/// One manifest entry with its file's bytes.
struct Entry {
    file: String,
    class: String,
    valid: bool,
    description: String,
    error: Option<String>,
    expand: Option<String>,
    json: Option<String>,
    bytes: Vec<u8>,
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/invalid")
}

/// Reads the manifest with the crate's own JSON reader (the core has no serde).
fn load() -> Vec<Entry> {
    let dir = corpus_dir();
    let text = std::fs::read_to_string(dir.join("manifest.json"))
        .expect("conformance/invalid/manifest.json is readable");
    let buf = flexbuf::from_json(&text).expect("manifest.json is valid JSON");
    let root = flexbuf::verify(&buf)
        .expect("manifest converts to a valid buffer")
        .root();
    let list = root.as_vector().expect("manifest is a JSON array");
    list.iter()
        .map(|item| {
            let m = item.and_then(|i| i.as_map()).expect("entry is an object");
            let text = |k: &str| -> Option<String> {
                m.find(k)
                    .expect("lookup")
                    .map(|r| r.as_str().expect("string field").to_owned())
            };
            let file = text("file").expect("entry has a file");
            let bytes = std::fs::read(dir.join(&file))
                .unwrap_or_else(|e| panic!("{file} listed in the manifest: {e}"));
            Entry {
                class: text("class").expect("entry has a class"),
                valid: m
                    .get("valid")
                    .and_then(|v| v.as_bool())
                    .expect("entry has a boolean `valid`"),
                description: text("description").expect("entry has a description"),
                error: text("error"),
                expand: text("expand"),
                json: text("json"),
                file,
                bytes,
            }
        })
        .collect()
}

/// The variant name of an error kind, as the manifest spells it.
fn kind_name(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Truncated => "Truncated",
        ErrorKind::OffsetOutOfBounds => "OffsetOutOfBounds",
        ErrorKind::BadWidth(_) => "BadWidth",
        ErrorKind::UnknownType(_) => "UnknownType",
        ErrorKind::SizeOutOfBounds => "SizeOutOfBounds",
        ErrorKind::DepthLimit(_) => "DepthLimit",
        ErrorKind::Cycle => "Cycle",
        ErrorKind::InvalidUtf8 => "InvalidUtf8",
        ErrorKind::MissingNul => "MissingNul",
        ErrorKind::UnsortedKeys => "UnsortedKeys",
        ErrorKind::KeyValueLengthMismatch { .. } => "KeyValueLengthMismatch",
        ErrorKind::BudgetExceeded => "BudgetExceeded",
        _ => "other",
    }
}

/// Fails the test with every failure found, one per line.
fn report(test: &str, failures: Vec<String>) {
    if !failures.is_empty() {
        panic!(
            "{test}: {} failure(s):\n  {}",
            failures.len(),
            failures.join("\n  ")
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    const MAX: usize = 64;
    let mut s: String = bytes.iter().take(MAX).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > MAX {
        s.push_str(&format!("... ({} bytes)", bytes.len()));
    }
    s
}

#[test]
fn manifest_lists_every_file_once_with_a_known_class() {
    let entries = load();
    let mut failures = Vec::new();
    assert!(
        entries.len() >= 100,
        "corpus has only {} files",
        entries.len()
    );
    let mut listed: Vec<&str> = entries.iter().map(|e| e.file.as_str()).collect();
    listed.sort_unstable();
    for pair in listed.windows(2) {
        if pair[0] == pair[1] {
            failures.push(format!("{}: listed twice", pair[0]));
        }
    }
    let on_disk = std::fs::read_dir(corpus_dir()).expect("corpus directory");
    for f in on_disk {
        let name = f.expect("directory entry").file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".bin") && listed.binary_search(&name.as_ref()).is_err() {
            failures.push(format!("{name}: on disk but not in manifest.json"));
        }
    }
    for e in &entries {
        let kind = CLASS_KINDS.iter().find(|(c, _)| *c == e.class);
        let valid_class = VALID_CLASSES.contains(&e.class.as_str());
        if kind.is_none() && !valid_class && e.class != "truncated" {
            failures.push(format!("{}: unknown class {:?}", e.file, e.class));
        }
        if e.valid != valid_class {
            failures.push(format!(
                "{}: class {} but valid = {}",
                e.file, e.class, e.valid
            ));
        }
        if e.description.is_empty() {
            failures.push(format!("{}: empty description", e.file));
        }
        match (&e.error, e.valid) {
            (Some(_), true) => failures.push(format!("{}: a valid file names an error", e.file)),
            (None, false) => failures.push(format!("{}: no expected error", e.file)),
            (Some(err), false) => {
                if let Some((_, k)) = kind {
                    if err != k && err != "any" {
                        failures.push(format!(
                            "{}: class {} must expect {k} (or \"any\"), not {err}",
                            e.file, e.class
                        ));
                    }
                }
            }
            (None, true) => {}
        }
        if e.expand.is_some() != (e.class == "dag_bomb") {
            failures.push(format!("{}: `expand` is only for dag_bomb", e.file));
        }
    }
    report("manifest", failures);
}

#[test]
fn verify_rejects_every_invalid_file_and_accepts_every_control() {
    let mut failures = Vec::new();
    for e in load() {
        let start = Instant::now();
        let outcome = catch_unwind(|| flexbuf::verify(&e.bytes).map(|_| ()));
        let took = start.elapsed();
        let Ok(result) = outcome else {
            failures.push(format!("{}: verify PANICKED on {}", e.file, hex(&e.bytes)));
            continue;
        };
        if took > VERIFY_TIME_LIMIT {
            failures.push(format!("{}: verify took {took:?}", e.file));
        }
        match (result, e.valid) {
            (Ok(()), true) => {}
            (Ok(()), false) => failures.push(format!(
                "{}: verify ACCEPTED an invalid buffer ({}; {}): {}",
                e.file,
                e.class,
                e.description,
                hex(&e.bytes)
            )),
            (Err(err), true) => failures.push(format!(
                "{}: verify REJECTED a valid control ({}): {err}; bytes {}",
                e.file,
                e.description,
                hex(&e.bytes)
            )),
            (Err(err), false) => {
                let want = e.error.as_deref().unwrap_or("any");
                let got = kind_name(err.kind());
                if want != "any" && got != want {
                    failures.push(format!(
                        "{}: expected {want}, verify said {err} ({}); bytes {}",
                        e.file,
                        e.description,
                        hex(&e.bytes)
                    ));
                }
                // to_json verifies first, so it must fail the same way.
                match flexbuf::to_json(&e.bytes) {
                    Ok(_) => failures.push(format!("{}: to_json accepted it", e.file)),
                    Err(j) if j.kind() != err.kind() => failures.push(format!(
                        "{}: to_json failed with {j}, verify with {err}",
                        e.file
                    )),
                    Err(_) => {}
                }
            }
        }
    }
    report("verify", failures);
}

#[test]
fn dag_bombs_hit_the_expansion_budget_quickly() {
    let mut failures = Vec::new();
    let mut bombs = 0;
    for e in load().into_iter().filter(|e| e.expand.is_some()) {
        assert_eq!(e.expand.as_deref(), Some("budget"), "{}", e.file);
        bombs += 1;
        let start = Instant::now();
        let outcome = catch_unwind(|| flexbuf::to_json(&e.bytes).map(|s| s.len()));
        let took = start.elapsed();
        match outcome {
            Err(_) => failures.push(format!("{}: to_json PANICKED", e.file)),
            Ok(Ok(len)) => failures.push(format!(
                "{}: to_json expanded a DAG bomb into {len} bytes",
                e.file
            )),
            Ok(Err(err)) if err.kind() != &ErrorKind::BudgetExceeded => {
                failures.push(format!("{}: expected BudgetExceeded, got {err}", e.file))
            }
            Ok(Err(_)) => {}
        }
        if took > EXPAND_TIME_LIMIT {
            failures.push(format!("{}: to_json took {took:?}", e.file));
        }
    }
    assert!(bombs >= 3, "only {bombs} DAG bombs in the corpus");
    report("dag bombs", failures);
}

#[test]
fn valid_controls_convert_to_the_expected_json() {
    let mut failures = Vec::new();
    for e in load().into_iter().filter(|e| e.valid && e.expand.is_none()) {
        match (flexbuf::to_json(&e.bytes), &e.json) {
            (Ok(got), Some(want)) if &got != want => {
                failures.push(format!("{}: to_json gave {got}, expected {want}", e.file))
            }
            (Ok(_), _) => {}
            (Err(err), _) => failures.push(format!("{}: to_json failed: {err}", e.file)),
        }
    }
    report("controls to JSON", failures);
}

#[test]
fn checked_reader_walks_every_file_without_panicking() {
    let mut failures = Vec::new();
    for e in load() {
        let strict = e.valid;
        let start = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut w = Walker::new(strict);
            match Reader::new(&e.bytes) {
                Ok(root) => w.value(&root, 0, "$"),
                Err(err) if strict => w.problems.push(format!("Reader::new: {err}")),
                Err(_) => {}
            }
            w
        }));
        let took = start.elapsed();
        let walker = match outcome {
            Ok(w) => w,
            Err(_) => {
                failures.push(format!(
                    "{}: checked reader PANICKED ({}); bytes {}",
                    e.file,
                    e.description,
                    hex(&e.bytes)
                ));
                continue;
            }
        };
        if took > WALK_TIME_LIMIT {
            failures.push(format!("{}: checked walk took {took:?}", e.file));
        }
        for p in &walker.problems {
            failures.push(format!("{}: checked reader on a valid buffer: {p}", e.file));
        }
        if strict {
            // The trusted reader must see exactly what the checked reader saw.
            let root = flexbuf::verify(&e.bytes).map(|v| v.root());
            match root {
                Ok(root) => {
                    let mut trusted = Walker::new(true);
                    trusted.value(&root, 0, "$");
                    if trusted.dump != walker.dump {
                        failures.push(format!("{}: trusted and checked readers disagree", e.file));
                    }
                }
                // Reported by the verify test.
                Err(_) => continue,
            }
        }
    }
    report("checked reader", failures);
}

/// Walks a value tree through the public reader API, calling every accessor.
///
/// In strict mode (valid buffers) the accessor that fits each value's type
/// must succeed; otherwise errors are expected and only panics matter.
struct Walker {
    strict: bool,
    nodes_left: usize,
    problems: Vec<String>,
    /// A compact rendering of everything visited, to compare two readers.
    dump: String,
}

impl Walker {
    fn new(strict: bool) -> Self {
        Walker {
            strict,
            nodes_left: WALK_NODE_CAP,
            problems: Vec::new(),
            dump: String::new(),
        }
    }

    fn need<T>(&mut self, r: flexbuf::Result<T>, what: &str, path: &str) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(err) => {
                if self.strict {
                    self.problems.push(format!("{what} at {path}: {err}"));
                }
                None
            }
        }
    }

    fn value(&mut self, r: &Reader<'_>, depth: usize, path: &str) {
        if self.nodes_left == 0 || depth > WALK_DEPTH_CAP {
            return;
        }
        self.nodes_left -= 1;
        let ty = r.flex_type();
        // Every accessor, whatever the type: none may panic.
        let _ = (r.bit_width(), r.slot_width(), r.offset(), r.is_null());
        let _ = (r.is_float(), r.is_trusted(), r.buffer().len());
        let (b, i, u, f) = (r.as_bool(), r.as_i64(), r.as_u64(), r.as_f64());
        let (s, blob, len) = (r.as_str(), r.as_blob(), r.len());
        let _ = (r.get("a"), r.get(""), r.index(0), r.index(usize::MAX));
        let _ = r.data_offset();
        typed_slices(r);
        self.dump.push_str(ty.name());
        self.dump.push(' ');
        match ty {
            FlexType::Null => {}
            FlexType::Bool => {
                if let Some(b) = self.need(b, "as_bool", path) {
                    self.dump.push_str(if b { "true" } else { "false" });
                }
            }
            FlexType::Int | FlexType::IndirectInt => {
                if let Some(i) = self.need(i, "as_i64", path) {
                    self.dump.push_str(&i.to_string());
                }
            }
            FlexType::UInt | FlexType::IndirectUInt => {
                if let Some(u) = self.need(u, "as_u64", path) {
                    self.dump.push_str(&u.to_string());
                }
            }
            FlexType::Float | FlexType::IndirectFloat => {
                if let Some(f) = self.need(f, "as_f64", path) {
                    self.dump.push_str(&format!("{:#x}", f.to_bits()));
                }
            }
            FlexType::String | FlexType::Key => {
                if let Some(s) = self.need(s, "as_str", path) {
                    self.dump_bytes(s.as_bytes());
                }
                if ty == FlexType::String {
                    self.need(len, "len", path);
                }
            }
            FlexType::Blob => {
                if let Some(b) = self.need(blob, "as_blob", path) {
                    self.dump_bytes(b);
                }
            }
            FlexType::Map => self.map(r, depth, path),
            _ => self.vector(r, depth, path),
        }
        self.dump.push(';');
    }

    /// Length and the first bytes: enough to tell readers apart, cheap on floods.
    fn dump_bytes(&mut self, b: &[u8]) {
        self.dump
            .push_str(&format!("{}:{:?}", b.len(), &b[..b.len().min(16)]));
    }

    fn map(&mut self, r: &Reader<'_>, depth: usize, path: &str) {
        let Some(m) = self.need(r.as_map(), "as_map", path) else {
            return;
        };
        let _ = (m.keys_offset(), m.keys_width(), m.is_empty());
        let _ = (m.keys().element_type(), m.values().packed_type(0));
        let _ = (m.find("a"), m.index_of("zz"), m.iter().count());
        self.dump.push_str(&format!("{{{}", m.len()));
        for i in 0..m.len() {
            if self.nodes_left == 0 {
                break;
            }
            let key = self.need(m.key(i), "key", path);
            let value = self.need(m.value(i), "value", path);
            let Some(key) = key else {
                continue;
            };
            // Lookup by key must find the same entry (keys are unique in a valid map).
            let found = m.index_of(key);
            if self.strict && !matches!(found, Ok(Some(j)) if j == i) {
                self.problems.push(format!(
                    "index_of({key:?}) at {path} gave {found:?}, not {i}"
                ));
            }
            self.dump.push_str(&format!("{key:?}:"));
            if let Some(v) = value {
                self.value(&v, depth + 1, &format!("{path}.{key}"));
            }
        }
        self.dump.push('}');
    }

    fn vector(&mut self, r: &Reader<'_>, depth: usize, path: &str) {
        let Some(v) = self.need(r.as_vector(), "as_vector", path) else {
            return;
        };
        let _ = (v.element_type(), v.element_width(), v.data_offset());
        let _ = (v.is_empty(), v.packed_type(0), v.get(v.len()));
        self.dump.push_str(&format!("[{}", v.len()));
        for i in 0..v.len() {
            if self.nodes_left == 0 {
                break;
            }
            let _ = v.packed_type(i);
            if let Some(x) = self.need(v.get(i), "get", path) {
                self.value(&x, depth + 1, &format!("{path}[{i}]"));
            }
        }
        self.dump.push(']');
    }
}

/// Asks for every zero-copy slice type; only the absence of panics matters.
fn typed_slices(r: &Reader<'_>) {
    let _ = r.typed_slice::<i8>().map(|s| s.len());
    let _ = r.typed_slice::<i16>().map(|s| s.len());
    let _ = r.typed_slice::<i32>().map(|s| s.len());
    let _ = r.typed_slice::<i64>().map(|s| s.len());
    let _ = r.typed_slice::<u8>().map(|s| s.len());
    let _ = r.typed_slice::<u16>().map(|s| s.len());
    let _ = r.typed_slice::<u32>().map(|s| s.len());
    let _ = r.typed_slice::<u64>().map(|s| s.len());
    let _ = r.typed_slice::<f32>().map(|s| s.len());
    let _ = r.typed_slice::<f64>().map(|s| s.len());
}

/// What `verify` says of `bytes`: accepted, or the error's kind and offset.
fn outcome(bytes: &[u8]) -> Result<(), String> {
    flexbuf::verify(bytes)
        .map(|_| ())
        .map_err(|e| format!("{:?} at {:?}", e.kind(), e.offset()))
}

/// A thread keeps the verifier's memory (its bits, its memo of shared
/// nodes, its recent key sets and its open containers) for the next
/// verification. Nothing of one verification may show in the next: every
/// file of the corpus, and the fixtures' buffers, verified in three
/// shuffled orders on one thread (so each follows buffers of every class,
/// DAGs and maps of other keys at the same positions included) must give
/// what it gives on a thread of its own, where it is the first.
#[test]
fn a_verification_does_not_depend_on_the_ones_before_it() {
    let mut buffers: Vec<(String, Vec<u8>)> =
        load().into_iter().map(|e| (e.file, e.bytes)).collect();
    let fixtures = corpus_dir().join("../fixtures");
    for name in ["user_profile", "api_response", "wide_map", "deep_nesting"] {
        let text = std::fs::read_to_string(fixtures.join(format!("{name}.json"))).expect("fixture");
        buffers.push((
            name.to_owned(),
            flexbuf::from_json(&text).expect("fixture converts"),
        ));
    }
    let alone: Vec<Result<(), String>> = buffers
        .iter()
        .map(|(_, b)| {
            let b = b.clone();
            std::thread::spawn(move || outcome(&b))
                .join()
                .expect("no panic")
        })
        .collect();
    let mut failures = Vec::new();
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..3 {
        for i in (1..order.len()).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            order.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        for &i in &order {
            let got = outcome(&buffers[i].1);
            if got != alone[i] {
                failures.push(format!(
                    "round {round}, {}: {got:?} after others, {:?} alone",
                    buffers[i].0, alone[i]
                ));
            }
        }
    }
    report(
        "a_verification_does_not_depend_on_the_ones_before_it",
        failures,
    );
}
