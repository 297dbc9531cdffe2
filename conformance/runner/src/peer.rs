//! Peer column: Google's Rust `flexbuffers` crate reading our goldens.
//!
//! Informational only: the crate is a port with its own choices, recorded in
//! `conformance/PEER_DIFFERENCES.md`. Its reader dereferences indirect scalars
//! (so it reports `int` for `indirect_int`) and reports a typed vector's width
//! for its key elements, so both sides are normalised before comparing: indirect
//! types collapse to their direct type, and key widths are not compared.

use std::panic::{catch_unwind, AssertUnwindSafe};

use flexbuffers::{FlexBufferType, Reader};
use serde_json::Value;

use crate::annotate::float_payload;
use crate::case::CaseFile;
use crate::op::to_hex;
use crate::report::{clip, CategoryResult, VALUES_IDENTICAL};

/// Name of this peer in the matrix.
pub const PEER_LANG: &str = "flexbuffers crate (peer)";

fn type_name(t: FlexBufferType) -> &'static str {
    #[allow(deprecated)]
    match t {
        FlexBufferType::Null => "null",
        FlexBufferType::Int => "int",
        FlexBufferType::UInt => "uint",
        FlexBufferType::Float => "float",
        FlexBufferType::Bool => "bool",
        FlexBufferType::Key => "key",
        FlexBufferType::String => "string",
        FlexBufferType::IndirectInt => "indirect_int",
        FlexBufferType::IndirectUInt => "indirect_uint",
        FlexBufferType::IndirectFloat => "indirect_float",
        FlexBufferType::Map => "map",
        FlexBufferType::Vector => "vector",
        FlexBufferType::VectorInt => "vector_int",
        FlexBufferType::VectorUInt => "vector_uint",
        FlexBufferType::VectorFloat => "vector_float",
        FlexBufferType::VectorKey => "vector_key",
        FlexBufferType::VectorString => "vector_string_deprecated",
        FlexBufferType::VectorInt2 => "vector_int2",
        FlexBufferType::VectorUInt2 => "vector_uint2",
        FlexBufferType::VectorFloat2 => "vector_float2",
        FlexBufferType::VectorInt3 => "vector_int3",
        FlexBufferType::VectorUInt3 => "vector_uint3",
        FlexBufferType::VectorFloat3 => "vector_float3",
        FlexBufferType::VectorInt4 => "vector_int4",
        FlexBufferType::VectorUInt4 => "vector_uint4",
        FlexBufferType::VectorFloat4 => "vector_float4",
        FlexBufferType::Blob => "blob",
        FlexBufferType::VectorBool => "vector_bool",
    }
}

fn annotated(name: &str, width: usize, payload: Value) -> Value {
    // Key widths are not comparable (see the module docs): both sides use 0.
    let width = if name == "key" { 0 } else { width };
    Value::Array(vec![Value::from(name), Value::from(width), payload])
}

fn walk(r: &Reader<&[u8]>, depth: usize) -> Result<Value, String> {
    if depth > 200 {
        return Err("nesting deeper than 200".into());
    }
    let e = |e: flexbuffers::ReaderError| e.to_string();
    let t = r.flexbuffer_type();
    let name = type_name(t);
    let width = r.bitwidth().n_bytes();
    let payload = match t {
        FlexBufferType::Null => Value::Null,
        FlexBufferType::Bool => Value::Bool(r.get_bool().map_err(e)?),
        FlexBufferType::Int => Value::String(r.get_i64().map_err(e)?.to_string()),
        FlexBufferType::UInt => Value::String(r.get_u64().map_err(e)?.to_string()),
        FlexBufferType::Float => Value::String(float_payload(r.get_f64().map_err(e)?)),
        FlexBufferType::Key => Value::String(r.get_key().map_err(e)?.to_string()),
        FlexBufferType::String => Value::String(r.get_str().map_err(e)?.to_string()),
        FlexBufferType::Blob => Value::String(to_hex(r.get_blob().map_err(e)?.0)),
        FlexBufferType::Map => {
            let m = r.get_map().map_err(e)?;
            let keys: Vec<String> = m.iter_keys().map(|k| k.to_string()).collect();
            let mut entries = Vec::new();
            for (k, v) in keys.into_iter().zip(m.iter_values()) {
                entries.push(Value::Array(vec![Value::String(k), walk(&v, depth + 1)?]));
            }
            Value::Array(entries)
        }
        _ => {
            let v = r.get_vector().map_err(e)?;
            let mut items = Vec::new();
            for item in v.iter() {
                items.push(walk(&item, depth + 1)?);
            }
            Value::Array(items)
        }
    };
    Ok(annotated(name, width, payload))
}

/// The peer's reading of `bytes` in the normalised annotated notation.
pub fn peer_annotate(bytes: &[u8]) -> Result<Value, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let root = Reader::get_root(bytes).map_err(|e| e.to_string())?;
        walk(&root, 0)
    }))
    .unwrap_or_else(|_| Err("the flexbuffers crate panicked".into()))
}

/// Our annotated value in the peer's normalisation: indirect types become
/// direct, key widths 0.
pub fn normalize(ours: &Value) -> Value {
    let Some([ty, width, payload]) = ours.as_array().map(Vec::as_slice) else {
        return ours.clone();
    };
    let name = match ty.as_str().unwrap_or_default() {
        "indirect_int" => "int",
        "indirect_uint" => "uint",
        "indirect_float" => "float",
        other => other,
    };
    let payload = match payload {
        Value::Array(items) if name == "map" => Value::Array(
            items
                .iter()
                .map(|pair| match pair.as_array().map(Vec::as_slice) {
                    Some([k, v]) => Value::Array(vec![k.clone(), normalize(v)]),
                    _ => pair.clone(),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        other => other.clone(),
    };
    annotated(name, width.as_u64().unwrap_or(0) as usize, payload)
}

/// The peer column: the crate reads every golden; disagreements are listed.
pub fn run_peer(files: &[CaseFile]) -> CategoryResult {
    let mut result = CategoryResult::new(PEER_LANG, VALUES_IDENTICAL);
    result.informational = true;
    for case in files.iter().flat_map(|f| &f.cases) {
        let want = normalize(&case.value);
        let outcome = match peer_annotate(&case.bytes) {
            Ok(got) if got == want => Ok(()),
            Ok(got) => Err(format!(
                "peer reads {} where the golden holds {}",
                clip(&got.to_string(), 300),
                clip(&want.to_string(), 300)
            )),
            Err(e) => Err(format!("peer failed: {e}")),
        };
        result.record(&case.name, outcome);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_reads_a_simple_map_like_we_do() {
        let mut b = flexbuf::Builder::new();
        b.start_map();
        b.key("a");
        b.indirect_int(-7);
        b.key("k");
        b.start_vector();
        b.key("x");
        b.end_typed_vector().unwrap();
        b.end_map().unwrap();
        let bytes = b.finish_vec().unwrap();
        let ours = crate::annotate::annotate(&flexbuf::verify(&bytes).unwrap().root()).unwrap();
        assert_eq!(peer_annotate(&bytes).unwrap(), normalize(&ours));
    }
}
