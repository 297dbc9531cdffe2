//! Building and driving the C++ reference replayer (`conformance/cpp`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::op::{from_hex, protocol_case, Op};

/// The C++ header the replayer compiles against.
pub const HEADER: &str = "/usr/include/flatbuffers/flexbuffers.h";

/// The repository root (this crate lives in `conformance/runner`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// Why the replayer cannot be built here, if it cannot: the header or the
/// compiler is missing.
pub fn missing_toolchain() -> Option<String> {
    let mut missing = Vec::new();
    if !Path::new(HEADER).exists() {
        missing.push(format!("{HEADER} (apt-get install libflatbuffers-dev)"));
    }
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    let found = Command::new(&cxx)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !found {
        missing.push(format!("C++ compiler {cxx} (apt-get install g++)"));
    }
    (!missing.is_empty()).then(|| missing.join(" and "))
}

/// A built replayer binary.
#[derive(Clone, Debug)]
pub struct CppReplayer {
    path: PathBuf,
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl CppReplayer {
    /// A replayer already built at `path`.
    pub fn at(path: impl Into<PathBuf>) -> CppReplayer {
        CppReplayer { path: path.into() }
    }

    /// The binary's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Builds `conformance/cpp/replay.cpp` into `out` with `build.sh`, unless
    /// `out` is newer than the sources. Concurrent builders do not collide:
    /// each compiles to its own file and renames it into place.
    pub fn build(out: &Path) -> Result<CppReplayer> {
        build_tool("build.sh", &["replay.cpp", "build.sh", "toolchain.sh"], out)?;
        Ok(CppReplayer::at(out))
    }

    /// Replays cases (sharing flags and ops) and returns each finished buffer.
    ///
    /// A sequence the C++ builder rejects aborts the replayer; the error then
    /// names the first case without output.
    pub fn run(&self, cases: &[(u8, &[Op])]) -> Result<Vec<Vec<u8>>> {
        let mut input = String::new();
        let mut texts = Vec::with_capacity(cases.len());
        for (flags, ops) in cases {
            let text = protocol_case(*flags, ops);
            input.push_str(&text);
            texts.push(text);
        }
        let (status, stdout, stderr) = self.run_text(&input)?;
        let mut out = Vec::with_capacity(cases.len());
        for line in stdout.lines() {
            if line.starts_with("error ") {
                return Err(Error::Cpp(format!("protocol {line}")));
            }
            out.push(from_hex(line).map_err(|e| Error::Cpp(format!("bad output line: {e}")))?);
        }
        if out.len() != cases.len() || !status.success() {
            let failed = out.len().min(cases.len().saturating_sub(1));
            let mut text = texts.get(failed).cloned().unwrap_or_default();
            if text.len() > 4000 {
                text.truncate(4000);
                text.push_str("...\n");
            }
            return Err(Error::Cpp(format!(
                "replayer exited with {status} after {} of {} cases; \
                 the C++ builder rejected case {failed}:\n{text}{}",
                out.len(),
                cases.len(),
                stderr.trim()
            )));
        }
        Ok(out)
    }

    /// Runs the replayer on raw protocol text; returns its status, stdout and stderr.
    pub fn run_text(&self, input: &str) -> Result<(std::process::ExitStatus, String, String)> {
        pipe(&self.path, input)
    }
}

/// Builds a tool of `conformance/cpp` into `out` with its build `script`,
/// unless `out` is newer than every one of `sources` (file names there).
/// Concurrent builders do not collide: each compiles to its own file and
/// renames it into place.
pub(crate) fn build_tool(script: &str, sources: &[&str], out: &Path) -> Result<()> {
    let cpp = repo_root().join("conformance/cpp");
    if let Some(built) = modified(out) {
        if sources
            .iter()
            .all(|s| modified(&cpp.join(s)).is_some_and(|m| m <= built))
        {
            return Ok(());
        }
    }
    if let Some(missing) = missing_toolchain() {
        return Err(Error::Cpp(format!(
            "cannot build {}: missing {missing}",
            out.display()
        )));
    }
    let tmp = out.with_extension(format!("tmp{}", std::process::id()));
    let output = Command::new("bash")
        .arg(cpp.join(script))
        .arg(&tmp)
        .output()
        .map_err(|e| Error::Cpp(format!("running {script}: {e}")))?;
    if !output.status.success() {
        return Err(Error::Cpp(format!(
            "{script} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    std::fs::rename(&tmp, out).map_err(|e| Error::io(out, e))?;
    Ok(())
}

/// Runs the tool at `path` with `input` on its standard input; returns its
/// status, stdout and stderr.
pub(crate) fn pipe(path: &Path, input: &str) -> Result<(std::process::ExitStatus, String, String)> {
    let mut child = Command::new(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Cpp(format!("starting {}: {e}", path.display())))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let bytes = input.as_bytes().to_vec();
    // Write from a thread: the tool prints while it reads, so writing
    // everything before reading could fill both pipes and deadlock.
    let writer = std::thread::spawn(move || {
        // A tool that aborted early closes the pipe; that shows in its status.
        let _ = stdin.write_all(&bytes);
    });
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut s) = child.stdout.take() {
        s.read_to_string(&mut stdout)
            .map_err(|e| Error::Cpp(format!("reading output: {e}")))?;
    }
    if let Some(mut s) = child.stderr.take() {
        s.read_to_string(&mut stderr)
            .map_err(|e| Error::Cpp(format!("reading stderr: {e}")))?;
    }
    let status = child
        .wait()
        .map_err(|e| Error::Cpp(format!("waiting for {}: {e}", path.display())))?;
    let _ = writer.join();
    Ok((status, stdout, stderr))
}
