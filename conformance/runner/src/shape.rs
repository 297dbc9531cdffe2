//! The value an op sequence builds, computed from the ops alone (types and
//! payloads, no widths). The generator compares it with what our reader finds
//! in the C++ bytes, so the committed annotated values are checked against
//! something that does not share the reader's code.

use serde_json::Value;

use crate::annotate::float_payload;
use crate::op::{to_hex, Op, Scalars};

fn shape(name: &str, payload: Value) -> Value {
    Value::Array(vec![Value::from(name), payload])
}

fn f32_payload(bits: u32) -> Value {
    Value::String(float_payload(f64::from(f32::from_bits(bits))))
}

fn f64_payload(bits: u64) -> Value {
    Value::String(float_payload(f64::from_bits(bits)))
}

fn element_shapes(s: &Scalars) -> Vec<Value> {
    s.element_ops()
        .iter()
        .map(|op| match op {
            Op::Int(i) => shape("int", Value::String(i.to_string())),
            Op::UInt(u) => shape("uint", Value::String(u.to_string())),
            Op::Float(bits) => shape("float", f32_payload(*bits)),
            Op::Double(bits) => shape("float", f64_payload(*bits)),
            Op::Bool(b) => shape("bool", Value::Bool(*b)),
            _ => unreachable!("element_ops yields scalars only"),
        })
        .collect()
}

fn name_of(v: &Value) -> &str {
    v.get(0).and_then(Value::as_str).unwrap_or_default()
}

/// `[type_name, payload]` of the value `ops` build, as
/// [`strip_widths`](crate::annotate::strip_widths) gives for the annotated value.
pub fn expected_shape(ops: &[Op]) -> Result<Value, String> {
    let mut stack: Vec<Value> = Vec::new();
    let mut opens: Vec<usize> = Vec::new();
    let mut marks: Vec<Value> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let pushed = match op {
            Op::Null => shape("null", Value::Null),
            Op::Bool(b) => shape("bool", Value::Bool(*b)),
            Op::Int(v) => shape("int", Value::String(v.to_string())),
            Op::UInt(v) => shape("uint", Value::String(v.to_string())),
            Op::Float(bits) => shape("float", f32_payload(*bits)),
            Op::Double(bits) => shape("float", f64_payload(*bits)),
            Op::Key(s) => shape("key", Value::from(s.as_str())),
            Op::String(s) => shape("string", Value::from(s.as_str())),
            Op::Blob(b) => shape("blob", Value::String(to_hex(b))),
            Op::IndirectInt(v) => shape("indirect_int", Value::String(v.to_string())),
            Op::IndirectUInt(v) => shape("indirect_uint", Value::String(v.to_string())),
            Op::IndirectFloat(bits) => shape("indirect_float", f32_payload(*bits)),
            // An f32-exact value reads back the same whichever width holds it.
            Op::IndirectDouble(bits) => shape("indirect_float", f64_payload(*bits)),
            Op::StartMap | Op::StartVector => {
                opens.push(stack.len());
                continue;
            }
            Op::EndMap => {
                let start = opens
                    .pop()
                    .ok_or(format!("op {i}: end_map without start"))?;
                let items = stack.split_off(start);
                if items.len() % 2 != 0 {
                    return Err(format!("op {i}: odd number of map items"));
                }
                let mut pairs: Vec<(String, Value)> = Vec::new();
                for pair in items.chunks(2) {
                    let key = pair[0]
                        .get(1)
                        .and_then(Value::as_str)
                        .filter(|_| name_of(&pair[0]) == "key")
                        .ok_or(format!("op {i}: map entry without a key"))?;
                    pairs.push((key.to_string(), pair[1].clone()));
                }
                pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                shape(
                    "map",
                    Value::Array(
                        pairs
                            .into_iter()
                            .map(|(k, v)| Value::Array(vec![Value::String(k), v]))
                            .collect(),
                    ),
                )
            }
            Op::EndVector { typed, fixed } => {
                let start = opens
                    .pop()
                    .ok_or(format!("op {i}: end_vector without start"))?;
                let mut items = stack.split_off(start);
                let name = if !typed {
                    "vector".to_string()
                } else {
                    match items.first().map(name_of) {
                        None => "vector_key".to_string(),
                        Some("string") => {
                            // Deprecated type 15: readers see keys.
                            for item in &mut items {
                                item[0] = Value::from("key");
                            }
                            "vector_string_deprecated".to_string()
                        }
                        Some(t) if *fixed => format!("vector_{t}{}", items.len()),
                        Some(t) => format!("vector_{t}"),
                    }
                };
                shape(&name, Value::Array(items))
            }
            Op::ScalarVector(s) | Op::TypedVector(s) => shape(
                &format!("vector_{}", s.kind()),
                Value::Array(element_shapes(s)),
            ),
            Op::FixedVector(s) => shape(
                &format!("vector_{}{}", s.kind(), s.len()),
                Value::Array(element_shapes(s)),
            ),
            Op::ForceMinWidth(_) => continue,
            Op::Mark => {
                marks.push(
                    stack
                        .last()
                        .cloned()
                        .ok_or(format!("op {i}: mark with no value"))?,
                );
                continue;
            }
            Op::Reuse(slot) => marks
                .get(*slot)
                .cloned()
                .ok_or(format!("op {i}: reuse of an unmarked slot"))?,
        };
        stack.push(pushed);
    }
    if stack.len() != 1 || !opens.is_empty() {
        return Err(format!(
            "ops leave {} values and {} open containers",
            stack.len(),
            opens.len()
        ));
    }
    Ok(stack.remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_sort_by_key_bytes_and_typed_vectors_take_their_type() {
        let ops = vec![
            Op::StartMap,
            Op::Key("é".into()),
            Op::Null,
            Op::Key("z".into()),
            Op::StartVector,
            Op::Float(0x3fc0_0000),
            Op::Double(0x3ff8_0000_0000_0000),
            Op::EndVector {
                typed: true,
                fixed: true,
            },
            Op::EndMap,
        ];
        assert_eq!(
            expected_shape(&ops).unwrap().to_string(),
            r#"["map",[["z",["vector_float2",[["float","1.5"],["float","1.5"]]]],["é",["null",null]]]]"#
        );
    }

    #[test]
    fn unbalanced_ops_are_errors() {
        assert!(expected_shape(&[Op::Int(1), Op::Int(2)]).is_err());
        assert!(expected_shape(&[Op::EndMap]).is_err());
        assert!(expected_shape(&[Op::Reuse(0)]).is_err());
    }
}
