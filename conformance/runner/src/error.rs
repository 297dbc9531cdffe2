//! Errors of the conformance tooling, each naming where it happened.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong while loading, replaying or checking cases.
#[derive(Debug)]
pub enum Error {
    /// A file could not be read or written.
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A JSON document (case file, manifest, runner output) is malformed.
    Json {
        /// Where the document came from.
        origin: String,
        /// What is wrong with it.
        message: String,
    },
    /// An operation of a case is malformed (wrong arity, bad value, ...).
    Op {
        /// Index of the operation in its case.
        index: usize,
        /// What is wrong with it.
        message: String,
    },
    /// Our builder rejected an operation sequence.
    Build {
        /// Index of the operation that failed (the op count for `finish`).
        index: usize,
        /// The builder's error.
        source: flexbuf::Error,
    },
    /// The C++ replayer could not be built or run, or answered unexpectedly.
    Cpp(String),
    /// A case is inconsistent (golden bytes, value, generator invariant).
    Case {
        /// The case's name.
        name: String,
        /// What is inconsistent.
        message: String,
    },
}

impl Error {
    /// A JSON error for a document from `origin`.
    pub fn json(origin: impl Into<String>, message: impl fmt::Display) -> Error {
        Error::Json {
            origin: origin.into(),
            message: message.to_string(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A malformed operation at `index`.
    pub fn op(index: usize, message: impl fmt::Display) -> Error {
        Error::Op {
            index,
            message: message.to_string(),
        }
    }

    /// An inconsistency in case `name`.
    pub fn case(name: impl Into<String>, message: impl fmt::Display) -> Error {
        Error::Case {
            name: name.into(),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Json { origin, message } => write!(f, "{origin}: {message}"),
            Error::Op { index, message } => write!(f, "op {index}: {message}"),
            Error::Build { index, source } => write!(f, "builder rejected op {index}: {source}"),
            Error::Cpp(message) => write!(f, "C++ replayer: {message}"),
            Error::Case { name, message } => write!(f, "case {name}: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Build { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
