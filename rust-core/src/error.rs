//! The one error type of the crate: a kind, plus where in the input it happened.

use core::fmt;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The buffer is shorter than a FlexBuffer can be, or a read ran past its end.
    Truncated,
    /// An offset points outside the buffer (or would wrap around).
    OffsetOutOfBounds,
    /// A width field is not 1, 2, 4 or 8.
    BadWidth(u64),
    /// A packed type byte names no known type.
    UnknownType(u8),
    /// A size multiplied by its element width overflows or runs past the buffer.
    SizeOutOfBounds,
    /// Nesting deeper than the configured limit.
    DepthLimit(usize),
    /// A container reaches itself through offsets.
    Cycle,
    /// A string or key is not valid UTF-8.
    InvalidUtf8,
    /// A key or string lacks its terminating NUL byte.
    MissingNul,
    /// Map keys are not in strictly ascending unsigned-byte order.
    UnsortedKeys,
    /// A map's keys vector and values vector differ in length.
    KeyValueLengthMismatch {
        /// Length of the keys vector.
        keys: u64,
        /// Length of the values vector.
        values: u64,
    },
    /// A value has a different type than the operation needs.
    TypeMismatch {
        /// What the operation needed.
        expected: &'static str,
        /// What the buffer holds.
        found: crate::FlexType,
    },
    /// A number does not fit the requested type.
    OutOfRange,
    /// A vector decoded as a fixed-length array (`[T; N]` in a schema) has
    /// another number of elements.
    ArrayLength {
        /// The array's length.
        expected: usize,
        /// The vector's length.
        found: usize,
    },
    /// An index past the end of a vector.
    IndexOutOfBounds {
        /// The index asked for.
        index: usize,
        /// The vector's length.
        len: usize,
    },
    /// A key absent from a map.
    KeyNotFound,
    /// Expanding the buffer would exceed the expansion budget.
    BudgetExceeded,
    /// The builder was asked for a call sequence the format cannot represent.
    Builder(BuilderError),
    /// Malformed JSON text.
    Json(String),
    /// A floating-point value JSON cannot represent (NaN or infinity).
    NonFiniteFloat,
    /// A schema-directed decode found the data unusable in another way.
    Schema(String),
    /// A required field is absent.
    MissingField,
    /// Null where the schema does not allow it.
    UnexpectedNull,
    /// An integer that names no variant of an enum.
    UnknownEnumValue {
        /// The enum's name.
        name: &'static str,
        /// The value found.
        value: i64,
    },
    /// A union's tag names no variant.
    UnknownUnionVariant {
        /// The union's name.
        name: &'static str,
        /// The tag found.
        tag: String,
    },
    /// A union value must be a map with exactly one entry.
    UnionEntryCount {
        /// The union's name.
        name: &'static str,
        /// Entries found.
        found: usize,
    },
    /// [`ErrorKind::UnknownEnumValue`], [`ErrorKind::UnknownUnionVariant`] or
    /// [`ErrorKind::UnionEntryCount`] about a type named only at run time (a
    /// schema read from bytes, as the Python SDK does), whose name cannot be
    /// a `&'static str`. Reports the variant name, class, typed reason and
    /// message of `kind`, with `type_name` in place of `kind`'s own name.
    /// Made by [`Error::with_type_name`].
    RuntimeName {
        /// One of the three kinds above (its `name` is not used).
        kind: Box<ErrorKind>,
        /// The enum's or union's name.
        type_name: String,
    },
    /// A custom message, for serde and generated code.
    Message(String),
    /// A message envelope that cannot be opened.
    Envelope(EnvelopeError),
}

/// Bytes before an envelope's payload ([`crate::envelope::HEADER_LEN`]),
/// here so that envelope errors print it without this module depending on
/// the envelope module.
pub(crate) const ENVELOPE_HEADER_LEN: usize = 24;

/// Why an envelope cannot be opened (see [`crate::envelope`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// Shorter than the header.
    Truncated,
    /// The first three bytes are not `FXE`.
    BadMagic,
    /// An envelope format version this library does not know.
    UnsupportedFormat(u8),
    /// Flags this library does not know.
    UnknownFlags(u16),
    /// The length field disagrees with the bytes present.
    LengthMismatch {
        /// What the header says.
        declared: u64,
        /// What follows the header.
        actual: u64,
    },
    /// The protocol version is not the one expected.
    ProtocolMismatch {
        /// The version the caller expects.
        expected: u16,
        /// The version in the envelope.
        found: u16,
    },
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvelopeError::Truncated => {
                write!(
                    f,
                    "shorter than the {ENVELOPE_HEADER_LEN}-byte envelope header"
                )
            }
            EnvelopeError::BadMagic => f.write_str("not a flexbuf envelope (bad magic)"),
            EnvelopeError::UnsupportedFormat(v) => write!(
                f,
                "envelope format version {v} is not supported (expected 1)"
            ),
            EnvelopeError::UnknownFlags(x) => write!(f, "unknown envelope flags {x:#06x}"),
            EnvelopeError::LengthMismatch { declared, actual } => {
                write!(
                    f,
                    "envelope declares a {declared}-byte payload but {actual} bytes follow"
                )
            }
            EnvelopeError::ProtocolMismatch { expected, found } => {
                write!(
                    f,
                    "protocol version {found} does not match the expected {expected}"
                )
            }
        }
    }
}

/// Builder misuse reported as an error instead of a corrupt buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuilderError {
    /// `end_map`/`end_vector` without a matching start, or the wrong kind of end.
    UnbalancedEnd,
    /// `finish` with open containers or not exactly one root value.
    RootCount(usize),
    /// A map has an odd number of entries or a value where a key should be.
    MapEntryNotKey(usize),
    /// Two entries of one map have the same key.
    DuplicateKey(String),
    /// A key contains a NUL byte, which the format cannot store.
    NulInKey,
    /// A typed vector with elements of different types, or of a type that cannot be typed.
    TypedVectorElement(crate::FlexType),
    /// A fixed vector of a length other than 2, 3 or 4.
    FixedLength(usize),
    /// A natural-width scalar vector whose length does not fit in its element width.
    LengthExceedsWidth,
    /// The builder was already finished; call `clear` first.
    Finished,
    /// A reused value handle from another builder generation.
    StaleValue,
    /// A message map given another number of fields than it has keys: how
    /// many it has, then how many it was given (one more than it has when
    /// it was given more).
    FieldCount(usize, usize),
    /// `pop_field` with no value pushed in the innermost open container.
    NoValue,
}

/// An error with the place it refers to: a byte offset into the input, a path, or both.
///
/// One pointer wide, so `Result`s of readers stay in registers on the hot path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    offset: Option<usize>,
    path: Option<String>,
}

/// Counts every error but serde's messages for the serde tier's one-pass
/// reads (`serde::one_pass`): an error made while reading unverified bytes
/// may have stopped short of bytes nothing has checked yet.
#[cfg(feature = "serde")]
#[inline(always)]
fn counted(kind: &ErrorKind) {
    if !matches!(kind, ErrorKind::Message(_)) {
        crate::serde::note();
    }
}

impl Error {
    /// An error of `kind` with no location.
    #[cold]
    pub fn new(kind: ErrorKind) -> Self {
        #[cfg(feature = "serde")]
        counted(&kind);
        Error(Box::new(Inner {
            kind,
            offset: None,
            path: None,
        }))
    }

    /// An error of `kind` at byte `offset` of the input.
    #[cold]
    pub fn at(kind: ErrorKind, offset: usize) -> Self {
        #[cfg(feature = "serde")]
        counted(&kind);
        Error(Box::new(Inner {
            kind,
            offset: Some(offset),
            path: None,
        }))
    }

    /// Adds a byte offset unless one is set already.
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.0.offset.get_or_insert(offset);
        self
    }

    /// Sets the path (`$.items[3].name` style).
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.0.path = Some(path.into());
        self
    }

    /// Prepends one path segment: a map key (`.key`) or a vector index (`[3]`).
    pub fn in_segment(mut self, segment: PathSegment<'_>) -> Self {
        let rest = self.0.path.take().unwrap_or_default();
        let seg = match segment {
            PathSegment::Key(k) if is_plain_identifier(k) => format!(".{k}"),
            PathSegment::Key(k) => format!("[{k:?}]"),
            PathSegment::Index(i) => format!("[{i}]"),
        };
        self.0.path = Some(seg + &rest);
        self
    }

    /// Names the enum or union of an [`ErrorKind::UnknownEnumValue`],
    /// [`ErrorKind::UnknownUnionVariant`] or [`ErrorKind::UnionEntryCount`]
    /// error with a name known only at run time (see
    /// [`ErrorKind::RuntimeName`]); other errors are returned unchanged.
    ///
    /// ```
    /// use flexbuf::{Error, ErrorKind};
    ///
    /// let e = Error::at(ErrorKind::UnknownEnumValue { name: "", value: 7 }, 3)
    ///     .with_type_name(&String::from("Color"));
    /// assert_eq!(e.to_string(), "7 is not a value of enum Color (offset 3)");
    /// assert_eq!(e.kind().name(), "UnknownEnumValue");
    /// assert_eq!(e.kind().typed_reason(), Some("enum"));
    /// ```
    pub fn with_type_name(mut self, type_name: &str) -> Self {
        use ErrorKind::*;
        if matches!(
            self.0.kind,
            UnknownEnumValue { .. } | UnknownUnionVariant { .. } | UnionEntryCount { .. }
        ) {
            let kind = core::mem::replace(&mut self.0.kind, ErrorKind::Cycle);
            self.0.kind = RuntimeName {
                kind: Box::new(kind),
                type_name: type_name.to_string(),
            };
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Byte offset into the input, when known.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// Path from the root (`$.a[2].b`), when known.
    pub fn path(&self) -> Option<String> {
        self.0.path.as_ref().map(|p| format!("${p}"))
    }
}

/// One step of a path inside a value.
#[derive(Clone, Copy, Debug)]
pub enum PathSegment<'a> {
    /// A map entry.
    Key(&'a str),
    /// A vector element.
    Index(usize),
}

fn is_plain_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl From<BuilderError> for Error {
    fn from(e: BuilderError) -> Self {
        Error::new(ErrorKind::Builder(e))
    }
}

/// The coarse class of an error: the one classification that the bindings
/// map onto their own codes and exception types (the C ABI's statuses,
/// Python's exception classes), so that they agree.
///
/// ```
/// use flexbuf::{ErrorClass, ErrorKind};
///
/// assert_eq!(ErrorKind::Cycle.class(), ErrorClass::InvalidBuffer);
/// assert_eq!(ErrorKind::MissingField.class(), ErrorClass::Typed);
/// assert_eq!(ErrorKind::MissingField.typed_reason(), Some("missing"));
/// assert_eq!(ErrorKind::Cycle.name(), "Cycle");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// The bytes are not a valid FlexBuffer (what the verifier rejects).
    InvalidBuffer,
    /// A value has another type than the reader asked for.
    Type,
    /// A number does not fit the requested type.
    Range,
    /// A vector or map index past the end.
    Index,
    /// A key absent from a map.
    NotFound,
    /// Expanding shared data would exceed the budget.
    Budget,
    /// Builder misuse.
    Builder,
    /// Malformed JSON, or a float JSON cannot hold.
    Json,
    /// A compiled schema that cannot be read.
    Schema,
    /// Typed data that does not fit its schema: a missing required field, a
    /// null where none is allowed, an unknown enum value or union variant
    /// (see [`ErrorKind::typed_reason`]).
    Typed,
    /// A message envelope that cannot be opened.
    Envelope,
    /// Anything else (custom messages).
    Other,
}

impl ErrorKind {
    /// The variant's name (`BadWidth(3)` -> `"BadWidth"`), as bindings expose it.
    pub fn name(&self) -> &'static str {
        use ErrorKind::*;
        match self {
            Truncated => "Truncated",
            OffsetOutOfBounds => "OffsetOutOfBounds",
            BadWidth(_) => "BadWidth",
            UnknownType(_) => "UnknownType",
            SizeOutOfBounds => "SizeOutOfBounds",
            DepthLimit(_) => "DepthLimit",
            Cycle => "Cycle",
            InvalidUtf8 => "InvalidUtf8",
            MissingNul => "MissingNul",
            UnsortedKeys => "UnsortedKeys",
            KeyValueLengthMismatch { .. } => "KeyValueLengthMismatch",
            TypeMismatch { .. } => "TypeMismatch",
            OutOfRange => "OutOfRange",
            ArrayLength { .. } => "ArrayLength",
            IndexOutOfBounds { .. } => "IndexOutOfBounds",
            KeyNotFound => "KeyNotFound",
            BudgetExceeded => "BudgetExceeded",
            Builder(_) => "Builder",
            Json(_) => "Json",
            NonFiniteFloat => "NonFiniteFloat",
            Schema(_) => "Schema",
            MissingField => "MissingField",
            UnexpectedNull => "UnexpectedNull",
            UnknownEnumValue { .. } => "UnknownEnumValue",
            UnknownUnionVariant { .. } => "UnknownUnionVariant",
            UnionEntryCount { .. } => "UnionEntryCount",
            RuntimeName { kind, .. } => kind.name(),
            Message(_) => "Message",
            Envelope(_) => "Envelope",
        }
    }

    /// The error's class (see [`ErrorClass`]).
    pub fn class(&self) -> ErrorClass {
        use ErrorKind::*;
        match self {
            Truncated
            | OffsetOutOfBounds
            | BadWidth(_)
            | UnknownType(_)
            | SizeOutOfBounds
            | DepthLimit(_)
            | Cycle
            | InvalidUtf8
            | MissingNul
            | UnsortedKeys
            | KeyValueLengthMismatch { .. } => ErrorClass::InvalidBuffer,
            TypeMismatch { .. } | ArrayLength { .. } => ErrorClass::Type,
            OutOfRange => ErrorClass::Range,
            IndexOutOfBounds { .. } => ErrorClass::Index,
            KeyNotFound => ErrorClass::NotFound,
            BudgetExceeded => ErrorClass::Budget,
            Builder(_) => ErrorClass::Builder,
            Json(_) | NonFiniteFloat => ErrorClass::Json,
            Schema(_) => ErrorClass::Schema,
            MissingField
            | UnexpectedNull
            | UnknownEnumValue { .. }
            | UnknownUnionVariant { .. }
            | UnionEntryCount { .. } => ErrorClass::Typed,
            Envelope(_) => ErrorClass::Envelope,
            Message(_) => ErrorClass::Other,
            RuntimeName { kind, .. } => kind.class(),
        }
    }

    /// Why typed data does not fit its schema, in the language-neutral words
    /// of the typed conformance cases: `type`, `range`, `missing`, `null`,
    /// `enum` or `union`; `None` for errors that are not about typed data.
    pub fn typed_reason(&self) -> Option<&'static str> {
        use ErrorKind::*;
        Some(match self {
            TypeMismatch { .. } | ArrayLength { .. } => "type",
            OutOfRange => "range",
            MissingField => "missing",
            UnexpectedNull => "null",
            UnknownEnumValue { .. } => "enum",
            UnknownUnionVariant { .. } | UnionEntryCount { .. } => "union",
            RuntimeName { kind, .. } => return kind.typed_reason(),
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            Truncated => f.write_str("buffer ends before the data it describes"),
            OffsetOutOfBounds => f.write_str("offset points outside the buffer"),
            BadWidth(w) => write!(f, "width {w} is not 1, 2, 4 or 8"),
            UnknownType(t) => write!(
                f,
                "unknown type code {} in packed type byte {t:#04x}",
                t >> 2
            ),
            SizeOutOfBounds => f.write_str("size runs past the end of the buffer"),
            DepthLimit(d) => write!(f, "nesting deeper than the limit of {d}"),
            Cycle => f.write_str("a container contains itself (offset cycle)"),
            InvalidUtf8 => f.write_str("string or key is not valid UTF-8"),
            MissingNul => f.write_str("string or key lacks its terminating NUL byte"),
            UnsortedKeys => f.write_str("map keys are not sorted in ascending byte order"),
            KeyValueLengthMismatch { keys, values } => {
                write!(f, "map has {keys} keys but {values} values")
            }
            TypeMismatch { expected, found } => write!(f, "expected {expected}, found {found}"),
            OutOfRange => f.write_str("number out of range for the requested type"),
            ArrayLength { expected, found } => write!(
                f,
                "expected an array of {expected} elements, found a vector of {found}"
            ),
            IndexOutOfBounds { index, len } => {
                write!(f, "index {index} out of bounds for length {len}")
            }
            KeyNotFound => f.write_str("key not found"),
            BudgetExceeded => f.write_str(
                "expansion budget exceeded (shared offsets would expand into too much output)",
            ),
            Builder(e) => write!(f, "builder: {e}"),
            Json(m) => write!(f, "JSON: {m}"),
            NonFiniteFloat => f.write_str("NaN or infinity cannot be written as JSON"),
            Schema(m) => f.write_str(m),
            MissingField => f.write_str("required field is missing"),
            UnexpectedNull => f.write_str("null for a field that is not optional"),
            UnknownEnumValue { name, .. }
            | UnknownUnionVariant { name, .. }
            | UnionEntryCount { name, .. } => named_type_message(f, self, name),
            RuntimeName { kind, type_name } => named_type_message(f, kind, type_name),
            Message(m) => f.write_str(m),
            Envelope(e) => write!(f, "envelope: {e}"),
        }
    }
}

/// The message of an error about the enum or union `name`.
fn named_type_message(f: &mut fmt::Formatter<'_>, kind: &ErrorKind, name: &str) -> fmt::Result {
    match kind {
        ErrorKind::UnknownEnumValue { value, .. } => {
            write!(f, "{value} is not a value of enum {name}")
        }
        ErrorKind::UnknownUnionVariant { tag, .. } => {
            write!(f, "unknown variant {tag:?} of union {name}")
        }
        ErrorKind::UnionEntryCount { found, .. } => write!(
            f,
            "union {name} needs a map with exactly one entry, found {found}"
        ),
        other => write!(f, "{other}"),
    }
}

impl fmt::Display for BuilderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BuilderError::*;
        match self {
            UnbalancedEnd => f.write_str("end without a matching start of that kind"),
            RootCount(n) => write!(
                f,
                "finish needs exactly one root value and no open container, found {n} values"
            ),
            MapEntryNotKey(i) => write!(f, "map entry {i} does not start with a key"),
            DuplicateKey(k) => write!(f, "duplicate map key {k:?}"),
            NulInKey => f.write_str("keys cannot contain a NUL byte"),
            TypedVectorElement(t) => write!(f, "typed vector cannot hold {t} elements here"),
            FixedLength(n) => write!(f, "fixed vectors hold 2, 3 or 4 elements, not {n}"),
            LengthExceedsWidth => f.write_str("vector length does not fit in its element width"),
            Finished => f.write_str("builder already finished; call clear() to reuse it"),
            StaleValue => f.write_str("value handle refers to a cleared buffer"),
            FieldCount(n, given) if given > n => {
                write!(f, "message map of {n} fields given more")
            }
            FieldCount(n, given) => write!(f, "message map of {n} fields given {given}"),
            NoValue => f.write_str("no value was pushed to take back"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.kind)?;
        if let Some(p) = self.path() {
            write!(f, " at {p}")?;
        }
        if let Some(o) = self.0.offset {
            write!(f, " (offset {o})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Result with the crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compose_from_the_leaf_up() {
        let e = Error::new(ErrorKind::KeyNotFound)
            .in_segment(PathSegment::Key("zip"))
            .in_segment(PathSegment::Index(2))
            .in_segment(PathSegment::Key("odd key"));
        assert_eq!(e.path().unwrap(), "$[\"odd key\"][2].zip");
        assert_eq!(e.to_string(), "key not found at $[\"odd key\"][2].zip");
    }

    #[test]
    fn a_run_time_type_name_reads_like_a_static_one() {
        let name = String::from("Shape");
        let e = Error::at(ErrorKind::UnionEntryCount { name: "", found: 2 }, 5)
            .with_type_name(&name)
            .in_segment(PathSegment::Key("shape"));
        let static_named = Error::at(
            ErrorKind::UnionEntryCount {
                name: "Shape",
                found: 2,
            },
            5,
        )
        .in_segment(PathSegment::Key("shape"));
        assert_eq!(e.to_string(), static_named.to_string());
        assert_eq!(e.kind().name(), "UnionEntryCount");
        assert_eq!(e.kind().class(), ErrorClass::Typed);
        assert_eq!(e.kind().typed_reason(), Some("union"));
        let other = Error::new(ErrorKind::Cycle).with_type_name(&name);
        assert_eq!(other.kind(), &ErrorKind::Cycle);
    }

    #[test]
    fn offset_is_kept_once_set() {
        let e = Error::at(ErrorKind::Truncated, 4).with_offset(9);
        assert_eq!(e.offset(), Some(4));
    }
}
