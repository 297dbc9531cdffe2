//! The deterministic case generator behind `cargo xtask conformance --regen`.
//!
//! Each topic module lists drafts (name, description, flags, ops). The C++
//! replayer writes their bytes; our verifier must accept them; our reader
//! turns them into the annotated value, which must agree with the value the
//! ops describe ([`crate::shape`]). Drafts that reproduce a byte array
//! published in one of Google's FlexBuffers test suites carry it, and the C++
//! output must equal it. Our own builder's output is compared too, but only
//! reported: goldens always come from C++.

mod floats;
mod google;
mod indirect;
mod maps;
mod roots;
mod scalars;
mod sharing;
mod strings;
mod vectors;

use std::collections::BTreeSet;
use std::path::Path;

use crate::annotate::{annotate, strip_widths};
use crate::case::{Case, CaseFile, DEVIATION_INDIRECT_DOUBLE, DEVIATION_STRING_VECTOR};
use crate::cpp::CppReplayer;
use crate::error::{Error, Result};
use crate::op::{build, to_hex, Op, Scalars};
use crate::shape::expected_shape;

pub use google::{peer_differences, PeerDifference};
pub use scalars::INT_BOUNDARIES;

/// A case before the C++ replayer has written its bytes.
#[derive(Clone, Debug)]
pub struct Draft {
    /// Name inside its topic (the case name is `topic/name`).
    pub name: String,
    /// What the case covers.
    pub description: String,
    /// C++ `BuilderFlag`.
    pub flags: u8,
    /// The builder calls.
    pub ops: Vec<Op>,
    /// A deviation the case shows (indirect-double-f32 is tagged automatically).
    pub deviation: Option<&'static str>,
    /// Bytes published in one of Google's test suites that C++ must reproduce.
    pub published: Option<Vec<u8>>,
    /// A buffer size published in one of Google's test suites.
    pub published_len: Option<usize>,
}

impl Draft {
    /// A draft without published data.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        flags: u8,
        ops: Vec<Op>,
    ) -> Draft {
        Draft {
            name: name.into(),
            description: description.into(),
            flags,
            ops,
            deviation: None,
            published: None,
            published_len: None,
        }
    }

    /// The same draft, tagged with a deviation.
    pub fn deviation(mut self, tag: &'static str) -> Draft {
        self.deviation = Some(tag);
        self
    }

    /// The same draft, with the bytes a Google test suite publishes for it.
    pub fn published(mut self, bytes: &[u8]) -> Draft {
        self.published = Some(bytes.to_vec());
        self
    }
}

/// One case file's worth of drafts.
#[derive(Clone, Debug)]
pub struct Topic {
    /// File stem, e.g. `scalars`.
    pub stem: &'static str,
    /// What the file covers.
    pub description: &'static str,
    /// Its drafts.
    pub drafts: Vec<Draft>,
}

/// Every topic, in file order.
pub fn topics() -> Vec<Topic> {
    vec![
        scalars::topic(),
        floats::topic(),
        strings::topic(),
        vectors::topic(),
        maps::topic(),
        sharing::topic(),
        indirect::topic(),
        roots::topic(),
        google::topic(),
    ]
}

/// A tiny op-list builder so topic modules read like builder code; each
/// method pushes the op of the same name.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ops(Vec<Op>);

impl Ops {
    pub fn new() -> Ops {
        Ops::default()
    }
    pub fn push(&mut self, op: Op) -> &mut Self {
        self.0.push(op);
        self
    }
    pub fn null(&mut self) -> &mut Self {
        self.push(Op::Null)
    }
    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.push(Op::Bool(b))
    }
    pub fn int(&mut self, i: i64) -> &mut Self {
        self.push(Op::Int(i))
    }
    pub fn uint(&mut self, u: u64) -> &mut Self {
        self.push(Op::UInt(u))
    }
    pub fn f32(&mut self, f: f32) -> &mut Self {
        self.push(Op::Float(f.to_bits()))
    }
    pub fn f64(&mut self, f: f64) -> &mut Self {
        self.push(Op::Double(f.to_bits()))
    }
    pub fn key(&mut self, k: &str) -> &mut Self {
        self.push(Op::Key(k.into()))
    }
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.push(Op::String(s.into()))
    }
    pub fn blob(&mut self, b: &[u8]) -> &mut Self {
        self.push(Op::Blob(b.to_vec()))
    }
    pub fn ind_int(&mut self, i: i64) -> &mut Self {
        self.push(Op::IndirectInt(i))
    }
    pub fn ind_uint(&mut self, u: u64) -> &mut Self {
        self.push(Op::IndirectUInt(u))
    }
    pub fn ind_f32(&mut self, f: f32) -> &mut Self {
        self.push(Op::IndirectFloat(f.to_bits()))
    }
    pub fn ind_f64(&mut self, f: f64) -> &mut Self {
        self.push(Op::IndirectDouble(f.to_bits()))
    }
    pub fn map(&mut self) -> &mut Self {
        self.push(Op::StartMap)
    }
    pub fn end_map(&mut self) -> &mut Self {
        self.push(Op::EndMap)
    }
    pub fn vec(&mut self) -> &mut Self {
        self.push(Op::StartVector)
    }
    pub fn end_vec(&mut self) -> &mut Self {
        self.push(Op::EndVector {
            typed: false,
            fixed: false,
        })
    }
    pub fn end_typed(&mut self) -> &mut Self {
        self.push(Op::EndVector {
            typed: true,
            fixed: false,
        })
    }
    pub fn end_fixed(&mut self) -> &mut Self {
        self.push(Op::EndVector {
            typed: true,
            fixed: true,
        })
    }
    pub fn scalar(&mut self, s: Scalars) -> &mut Self {
        self.push(Op::ScalarVector(s))
    }
    pub fn fixed(&mut self, s: Scalars) -> &mut Self {
        self.push(Op::FixedVector(s))
    }
    pub fn typed(&mut self, s: Scalars) -> &mut Self {
        self.push(Op::TypedVector(s))
    }
    pub fn force(&mut self, width: u8) -> &mut Self {
        self.push(Op::ForceMinWidth(width))
    }
    pub fn mark(&mut self) -> &mut Self {
        self.push(Op::Mark)
    }
    pub fn reuse(&mut self, slot: usize) -> &mut Self {
        self.push(Op::Reuse(slot))
    }
    /// The ops collected so far (the builder is left empty).
    pub fn take(&mut self) -> Vec<Op> {
        std::mem::take(&mut self.0)
    }
}

/// Ops of a single value.
pub(crate) fn one(op: Op) -> Vec<Op> {
    vec![op]
}

/// True when `bits` is an f64 that `IndirectDouble` stores as f32 (our deviation applies).
pub fn f32_exact(bits: u64) -> bool {
    let f = f64::from_bits(bits);
    f64::from(f as f32) == f
}

/// What a regeneration found besides the files themselves.
#[derive(Debug, Default)]
pub struct RegenReport {
    /// Cases written.
    pub cases: usize,
    /// Cases where our builder disagrees with the C++ bytes (the most important finding).
    pub builder_mismatches: Vec<String>,
    /// Published peer arrays confirmed to differ from C++.
    pub peer_differences: Vec<String>,
}

/// Generates every case file: C++ bytes, checks, annotated values.
pub fn generate(replayer: &CppReplayer) -> Result<(Vec<CaseFile>, RegenReport)> {
    let topics = topics();
    let mut names = BTreeSet::new();
    let mut drafts: Vec<(usize, Draft)> = Vec::new();
    for (t, topic) in topics.iter().enumerate() {
        for d in &topic.drafts {
            let mut d = d.clone();
            d.name = format!("{}/{}", topic.stem, d.name);
            if !names.insert(d.name.clone()) {
                return Err(Error::case(&d.name, "name repeated"));
            }
            let exact_indirect = d
                .ops
                .iter()
                .any(|op| matches!(op, Op::IndirectDouble(bits) if f32_exact(*bits)));
            match (exact_indirect, d.deviation) {
                (true, None) => d.deviation = Some(DEVIATION_INDIRECT_DOUBLE),
                (true, Some(tag)) if tag != DEVIATION_INDIRECT_DOUBLE => {
                    return Err(Error::case(&d.name, "shows two deviations; split it"))
                }
                _ => {}
            }
            drafts.push((t, d));
        }
    }
    let input: Vec<(u8, &[Op])> = drafts
        .iter()
        .map(|(_, d)| (d.flags, d.ops.as_slice()))
        .collect();
    let outputs = replayer.run(&input)?;

    let mut report = RegenReport::default();
    let mut files: Vec<CaseFile> = topics
        .iter()
        .map(|t| CaseFile {
            file: format!("{}.json", t.stem),
            description: t.description.to_string(),
            cases: Vec::new(),
        })
        .collect();
    for ((t, d), bytes) in drafts.into_iter().zip(outputs) {
        let case = finish_draft(d, bytes, &mut report)?;
        files[t].cases.push(case);
    }
    report.cases = files.iter().map(|f| f.cases.len()).sum();
    for p in peer_differences() {
        report.peer_differences.push(p.confirm(replayer)?);
    }
    Ok((files, report))
}

fn finish_draft(d: Draft, bytes: Vec<u8>, report: &mut RegenReport) -> Result<Case> {
    if let Some(published) = &d.published {
        if *published != bytes {
            return Err(Error::case(
                &d.name,
                format!(
                    "C++ writes {} but the published array is {}",
                    to_hex(&bytes),
                    to_hex(published)
                ),
            ));
        }
    }
    if let Some(len) = d.published_len {
        if bytes.len() != len {
            return Err(Error::case(
                &d.name,
                format!(
                    "C++ writes {} bytes, the published size is {len}",
                    bytes.len()
                ),
            ));
        }
    }
    let verified = flexbuf::verify(&bytes).map_err(|e| {
        Error::case(
            &d.name,
            format!("our verifier rejects the C++ bytes {}: {e}", to_hex(&bytes)),
        )
    })?;
    let value = annotate(&verified.root())
        .map_err(|e| Error::case(&d.name, format!("our reader fails on the C++ bytes: {e}")))?;
    let expected = expected_shape(&d.ops).map_err(|e| Error::case(&d.name, e))?;
    if strip_widths(&value) != expected {
        return Err(Error::case(
            &d.name,
            format!("our reader reads {value} but the ops build {expected}"),
        ));
    }
    let ours = build(d.flags, &d.ops);
    let refuses = d.deviation == Some(DEVIATION_STRING_VECTOR);
    match (&ours, refuses) {
        (Ok(b), false) if *b == bytes => {}
        (Err(_), true) => {}
        (Ok(b), _) => report.builder_mismatches.push(format!(
            "{}: ours {} vs C++ {}",
            d.name,
            to_hex(b),
            to_hex(&bytes)
        )),
        (Err(e), false) => report
            .builder_mismatches
            .push(format!("{}: our builder fails: {e}", d.name)),
    }
    Ok(Case {
        name: d.name,
        description: d.description,
        flags: d.flags,
        ops: d.ops,
        bytes,
        value,
        deviation: d.deviation.map(str::to_string),
    })
}

/// Regenerates the case files in `dir` (removing stale `*.json` there).
pub fn regenerate(replayer: &CppReplayer, dir: &Path) -> Result<RegenReport> {
    let (files, report) = generate(replayer)?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let keep: BTreeSet<&str> = files.iter().map(|f| f.file.as_str()).collect();
    for entry in std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && !keep.contains(name.as_str()) {
            std::fs::remove_file(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
        }
    }
    for f in &files {
        let path = dir.join(&f.file);
        std::fs::write(&path, f.to_json_text()).map_err(|e| Error::io(&path, e))?;
    }
    Ok(report)
}
