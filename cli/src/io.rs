//! Reading inputs, writing outputs, and turning failures into messages and exit codes.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Why a command stopped early.
#[derive(Debug)]
pub enum Failure {
    /// The input is not what the command needs (exit 1).
    Data(String),
    /// The invocation cannot be carried out: a file that cannot be read or written (exit 2).
    Usage(String),
    /// Standard output was closed by the reader (e.g. `| head`): stop quietly (exit 0).
    Closed,
}

impl Failure {
    /// Prints the one-line message to stderr and returns the exit code.
    pub fn report(self) -> ExitCode {
        let (msg, code) = match self {
            Failure::Data(m) => (m, 1),
            Failure::Usage(m) => (m, 2),
            Failure::Closed => return ExitCode::SUCCESS,
        };
        // Nothing more can be done if stderr is gone too.
        let _ = writeln!(io::stderr().lock(), "flexbuf: {msg}");
        ExitCode::from(code)
    }

    /// A write to `what` failed.
    pub fn write(what: &str, e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::Closed
        } else {
            Failure::Usage(format!("cannot write {what}: {e}"))
        }
    }
}

/// The one-line report of a buffer that failed verification.
pub fn invalid(e: flexbuf::Error) -> Failure {
    let place = if e.offset().is_some() {
        ""
    } else {
        " (offset unknown)"
    };
    Failure::Data(format!("invalid FlexBuffer: {e}{place}"))
}

fn is_stdio(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p == Path::new("-"))
}

/// Reads the whole input: the named file, or stdin when `path` is absent or `-`.
pub fn read_input(path: Option<&Path>) -> Result<Vec<u8>, Failure> {
    match path {
        Some(p) if !is_stdio(Some(p)) => {
            fs::read(p).map_err(|e| Failure::Usage(format!("cannot read {}: {e}", p.display())))
        }
        _ => {
            let mut bytes = Vec::new();
            io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::Usage(format!("cannot read standard input: {e}")))?;
            Ok(bytes)
        }
    }
}

/// The input as UTF-8 text, without a leading byte order mark (RFC 8259 §8.1 allows ignoring it).
pub fn utf8_text(bytes: &[u8]) -> Result<&str, Failure> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        // `before` is valid UTF-8, so counting chars gives the column in characters.
        let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
        Failure::Data(format!(
            "input is not valid UTF-8: bad byte {:#04x} at line {line} column {column} (offset {at})",
            bytes[at]
        ))
    })
}

/// Where a command writes its result.
#[derive(Debug)]
pub enum Output {
    /// Standard output.
    Stdout,
    /// A file, created or truncated only once the result is ready.
    File(PathBuf),
}

impl Output {
    /// From an `-o` argument: stdout when absent or `-`.
    pub fn new(path: Option<PathBuf>) -> Output {
        match path {
            Some(p) if !is_stdio(Some(&p)) => Output::File(p),
            _ => Output::Stdout,
        }
    }

    /// Writes all of `bytes` and flushes.
    pub fn write(&self, bytes: &[u8]) -> Result<(), Failure> {
        match self {
            Output::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| Failure::write("standard output", e))
            }
            Output::File(p) => fs::write(p, bytes)
                .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", p.display()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_message(f: Failure) -> String {
        match f {
            Failure::Data(m) => m,
            other => panic!("expected a data failure, got {other:?}"),
        }
    }

    #[test]
    fn utf8_errors_give_line_column_and_offset() {
        let m = data_message(utf8_text(b"{\n  \"\xc3\xa9\xff\": 1}").unwrap_err());
        assert_eq!(
            m,
            "input is not valid UTF-8: bad byte 0xff at line 2 column 5 (offset 7)"
        );
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        assert_eq!(utf8_text(b"\xef\xbb\xbf[1]").unwrap(), "[1]");
    }

    #[test]
    fn dash_means_standard_streams() {
        assert!(matches!(
            Output::new(Some(PathBuf::from("-"))),
            Output::Stdout
        ));
        assert!(matches!(Output::new(Some("x".into())), Output::File(_)));
    }
}
