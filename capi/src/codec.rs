//! Whole-buffer conversions: JSON, the message envelope, schema fingerprints.

use std::ffi::c_char;

use flexbuf::envelope;
use flexbuf::json::{from_json_with, to_json_with};
use flexbuf::schema::Schema;
use flexbuf::JsonOptions;

use crate::memory::{input, input_str, out, register, zero, FlexbufBuffer, FlexbufBytes};
use crate::status::{
    guard, Failure, FlexbufStatus, FLEXBUF_ERR_ALLOC, FLEXBUF_ERR_FINGERPRINT,
    FLEXBUF_ERR_INVALID_BUFFER, FLEXBUF_ERR_JSON, FLEXBUF_ERR_NOT_FOUND, FLEXBUF_ERR_SCHEMA,
};

/// `flexbuf_to_json` option: indent with two spaces per level.
pub const FLEXBUF_JSON_PRETTY: u32 = 1;

/// Verifies `data` and writes it as JSON into an owned, NUL-terminated result.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_to_json(
    data: *const u8,
    len: usize,
    options: u32,
    json: *mut FlexbufBuffer,
) -> FlexbufStatus {
    zero(json, FlexbufBuffer::ZERO);
    guard(|| {
        let slot = out(json, "json")?;
        if options & !FLEXBUF_JSON_PRETTY != 0 {
            return Err(Failure::invalid(format!(
                "unknown JSON options {options:#x}"
            )));
        }
        let opts = JsonOptions {
            pretty: options & FLEXBUF_JSON_PRETTY != 0,
            ..JsonOptions::default()
        };
        let mut text = to_json_with(input(data, len, "data")?, &opts)?.into_bytes();
        let n = text.len();
        text.try_reserve_exact(1)
            .map_err(|_| Failure::new(FLEXBUF_ERR_ALLOC, "cannot allocate the JSON terminator"))?;
        text.push(0);
        *slot = register(text, n);
        Ok(())
    })
}

/// Parses JSON text (UTF-8) into an owned FlexBuffer (keys shared, as C++).
#[no_mangle]
pub unsafe extern "C" fn flexbuf_from_json(
    text: *const c_char,
    len: usize,
    result: *mut FlexbufBuffer,
) -> FlexbufStatus {
    zero(result, FlexbufBuffer::ZERO);
    guard(|| {
        let slot = out(result, "result")?;
        let bytes = from_json_with(input_str(text, len, "text")?, &JsonOptions::default())
            .map_err(json_text_failure)?;
        let n = bytes.len();
        *slot = register(bytes, n);
        Ok(())
    })
}

/// A failure parsing JSON text: nesting past the depth limit (the core's
/// `DepthLimit`, classed with invalid buffers) is a JSON error here, as the
/// header promises for any text `from_json` refuses; the kind stays `DepthLimit`.
fn json_text_failure(e: flexbuf::Error) -> Failure {
    let mut f = Failure::from(e);
    if f.status == FLEXBUF_ERR_INVALID_BUFFER {
        f.status = FLEXBUF_ERR_JSON;
    }
    f
}

/// An opened envelope (`flexbuf_envelope` in C).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlexbufEnvelope {
    /// The application's protocol version.
    pub protocol: u16,
    /// Reserved, 0.
    pub reserved: u16,
    /// Reserved, 0.
    pub reserved2: u32,
    /// Schema fingerprint of the payload's root type (0: untyped).
    pub fingerprint: u64,
    /// The payload, viewed in the caller's envelope bytes (not verified).
    pub payload: FlexbufBytes,
}

impl FlexbufEnvelope {
    /// The zeroed state.
    pub const ZERO: FlexbufEnvelope = FlexbufEnvelope {
        protocol: 0,
        reserved: 0,
        reserved2: 0,
        fingerprint: 0,
        payload: FlexbufBytes::ZERO,
    };
}

/// Frames `payload` with a protocol version and schema fingerprint into an owned result.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_envelope_wrap(
    protocol: u16,
    fingerprint: u64,
    payload: *const u8,
    len: usize,
    framed: *mut FlexbufBuffer,
) -> FlexbufStatus {
    zero(framed, FlexbufBuffer::ZERO);
    guard(|| {
        let slot = out(framed, "framed")?;
        let payload = input(payload, len, "payload")?;
        if payload.len() > isize::MAX as usize - envelope::HEADER_LEN {
            return Err(Failure::invalid("payload too large for an envelope"));
        }
        let bytes = envelope::wrap(protocol, fingerprint, payload);
        let n = bytes.len();
        *slot = register(bytes, n);
        Ok(())
    })
}

/// Parses an envelope's header; the payload view points into `data`.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_envelope_open(
    data: *const u8,
    len: usize,
    opened: *mut FlexbufEnvelope,
) -> FlexbufStatus {
    zero(opened, FlexbufEnvelope::ZERO);
    guard(|| {
        let slot = out(opened, "opened")?;
        let env = envelope::open(input(data, len, "data")?)?;
        *slot = FlexbufEnvelope {
            protocol: env.protocol,
            fingerprint: env.fingerprint,
            payload: FlexbufBytes::of(env.payload),
            ..FlexbufEnvelope::ZERO
        };
        Ok(())
    })
}

/// Opens an envelope that must carry `protocol` and `fingerprint`: a protocol
/// mismatch is `FLEXBUF_ERR_ENVELOPE`, a fingerprint mismatch `FLEXBUF_ERR_FINGERPRINT`.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_envelope_open_expect(
    data: *const u8,
    len: usize,
    protocol: u16,
    fingerprint: u64,
    opened: *mut FlexbufEnvelope,
) -> FlexbufStatus {
    zero(opened, FlexbufEnvelope::ZERO);
    guard(|| {
        let slot = out(opened, "opened")?;
        let env = envelope::open_protocol(input(data, len, "data")?, protocol)?;
        if env.fingerprint != fingerprint {
            return Err(Failure {
                offset: Some(8),
                ..Failure::new(
                    FLEXBUF_ERR_FINGERPRINT,
                    format!(
                        "schema fingerprint {:#018x} does not match the expected {fingerprint:#018x}: \
                         decode by key (flexbuf_envelope_open + flexbuf_ref_lookup), never by position",
                        env.fingerprint
                    ),
                )
            });
        }
        *slot = FlexbufEnvelope {
            protocol: env.protocol,
            fingerprint: env.fingerprint,
            payload: FlexbufBytes::of(env.payload),
            ..FlexbufEnvelope::ZERO
        };
        Ok(())
    })
}

/// The schema fingerprint of message `name` (fully qualified) in a compiled schema.
#[no_mangle]
pub unsafe extern "C" fn flexbuf_schema_fingerprint(
    schema: *const u8,
    schema_len: usize,
    name: *const c_char,
    name_len: usize,
    fingerprint: *mut u64,
) -> FlexbufStatus {
    zero(fingerprint, 0);
    guard(|| {
        let slot = out(fingerprint, "fingerprint")?;
        let name = input_str(name, name_len, "name")?;
        let schema = Schema::from_bytes(input(schema, schema_len, "schema")?).map_err(|e| {
            // Bytes that verify but lack a schema's fields are a bad schema,
            // not a missing key or a type error of the caller's.
            let mut f = Failure::from(e);
            if f.status != FLEXBUF_ERR_INVALID_BUFFER {
                f.status = FLEXBUF_ERR_SCHEMA;
            }
            f
        })?;
        *slot = schema.fingerprint(name).ok_or_else(|| {
            Failure::new(
                FLEXBUF_ERR_NOT_FOUND,
                format!("no message named {name:?} in the schema"),
            )
        })?;
        Ok(())
    })
}
