//! The message envelope: a small frame around a FlexBuffers payload that
//! carries a protocol version and the schema fingerprint of its root type.
//!
//! Layout (24 bytes, little-endian, then the payload, which therefore starts
//! 8-byte aligned relative to the frame):
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic `b"FXE\x01"` (the last byte is the envelope format version, 1) |
//! | 4 | 2 | protocol version: the application's own, opaque to flexbuf |
//! | 6 | 2 | flags, must be 0 |
//! | 8 | 8 | schema fingerprint of the payload's root type (0: untyped) |
//! | 16 | 8 | payload length; must equal the bytes that follow |
//!
//! Three compatibility values stay independent: the C ABI version (of the
//! library), the protocol version (of the application's conversation) and the
//! schema fingerprint (of the payload's type). A fingerprint mismatch never
//! allows positional decoding: [`crate::FlexCoder::from_envelope`] then
//! decodes by key only.

pub use crate::error::EnvelopeError;
use crate::error::{Error, ErrorKind, Result, ENVELOPE_HEADER_LEN};

/// Bytes before the payload.
pub const HEADER_LEN: usize = ENVELOPE_HEADER_LEN;
/// The magic, including the envelope format version.
pub const MAGIC: [u8; 4] = *b"FXE\x01";

/// A parsed envelope borrowing its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// The application's protocol version.
    pub protocol: u16,
    /// Schema fingerprint of the payload's root type (0 when untyped).
    pub fingerprint: u64,
    /// The FlexBuffers payload (not yet verified).
    pub payload: &'a [u8],
}

fn err(e: EnvelopeError, at: usize) -> Error {
    Error::at(ErrorKind::Envelope(e), at)
}

/// Frames `payload`.
pub fn wrap(protocol: u16, fingerprint: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&protocol.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&fingerprint.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Parses the header of `bytes` (the payload is not verified here).
pub fn open(bytes: &[u8]) -> Result<Envelope<'_>> {
    if bytes.len() < HEADER_LEN {
        return Err(err(EnvelopeError::Truncated, bytes.len()));
    }
    if bytes[..3] != MAGIC[..3] {
        return Err(err(EnvelopeError::BadMagic, 0));
    }
    if bytes[3] != MAGIC[3] {
        return Err(err(EnvelopeError::UnsupportedFormat(bytes[3]), 3));
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let u64_at = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[i..i + 8]);
        u64::from_le_bytes(b)
    };
    let flags = u16_at(6);
    if flags != 0 {
        return Err(err(EnvelopeError::UnknownFlags(flags), 6));
    }
    let declared = u64_at(16);
    let actual = (bytes.len() - HEADER_LEN) as u64;
    if declared != actual {
        return Err(err(EnvelopeError::LengthMismatch { declared, actual }, 16));
    }
    Ok(Envelope {
        protocol: u16_at(4),
        fingerprint: u64_at(8),
        payload: &bytes[HEADER_LEN..],
    })
}

/// Opens `bytes` and checks the protocol version.
pub fn open_protocol(bytes: &[u8], protocol: u16) -> Result<Envelope<'_>> {
    let env = open(bytes)?;
    if env.protocol != protocol {
        return Err(err(
            EnvelopeError::ProtocolMismatch {
                expected: protocol,
                found: env.protocol,
            },
            4,
        ));
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_and_opens() {
        let framed = wrap(3, 0xfeed, b"\x01\x04\x01");
        assert_eq!(framed.len(), HEADER_LEN + 3);
        assert_eq!(&framed[..4], b"FXE\x01");
        let env = open_protocol(&framed, 3).unwrap();
        assert_eq!(
            env,
            Envelope {
                protocol: 3,
                fingerprint: 0xfeed,
                payload: b"\x01\x04\x01"
            }
        );
    }

    #[test]
    fn rejects_damaged_frames() {
        let framed = wrap(1, 7, b"abc");
        let kind = |b: &[u8]| open(b).unwrap_err().kind().clone();
        assert_eq!(
            kind(&framed[..10]),
            ErrorKind::Envelope(EnvelopeError::Truncated)
        );
        let mut bad = framed.clone();
        bad[0] = b'X';
        assert_eq!(kind(&bad), ErrorKind::Envelope(EnvelopeError::BadMagic));
        let mut bad = framed.clone();
        bad[3] = 2;
        assert_eq!(
            kind(&bad),
            ErrorKind::Envelope(EnvelopeError::UnsupportedFormat(2))
        );
        let mut bad = framed.clone();
        bad[6] = 1;
        assert_eq!(
            kind(&bad),
            ErrorKind::Envelope(EnvelopeError::UnknownFlags(1))
        );
        assert_eq!(
            kind(&framed[..framed.len() - 1]),
            ErrorKind::Envelope(EnvelopeError::LengthMismatch {
                declared: 3,
                actual: 2
            })
        );
        assert!(matches!(
            open_protocol(&framed, 2).unwrap_err().kind(),
            ErrorKind::Envelope(EnvelopeError::ProtocolMismatch {
                expected: 2,
                found: 1
            })
        ));
    }
}
