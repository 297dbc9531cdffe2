//! Recursion that never ends: a message that must contain itself.
//!
//! A value of a message can be built when every field that must be present
//! (not optional, not deprecated) can be built: scalars, strings, bytes,
//! vectors and maps always can (they may be empty), an enum can, a message
//! can when its own mandatory fields can, and a union can when one of its
//! variants can. The buildable messages are the least fixed point of these
//! rules; every other message needs an infinite value, which is reported
//! once per cycle of mandatory fields.

use std::collections::{HashMap, HashSet};

use flexbuf::schema::{short_name, Field, Schema, TypeRef};

use super::FieldLoc;
use crate::parse::lexer::Pos;

/// (file, position, message, hint) for each cycle found.
pub(super) fn check(
    schema: &Schema,
    locs: &HashMap<(String, String), FieldLoc>,
) -> Vec<(usize, Pos, String, Option<String>)> {
    let mut buildable: HashSet<&str> = HashSet::new();
    loop {
        let before = buildable.len();
        for m in &schema.messages {
            if !buildable.contains(m.name.as_str())
                && mandatory(&m.fields)
                    .all(|f| can_build(schema, &buildable, &f.ty, &mut Vec::new()))
            {
                buildable.insert(&m.name);
            }
        }
        if buildable.len() == before {
            break;
        }
    }
    // For each unbuildable message: the first mandatory field that cannot be
    // built, and the unbuildable message it leads to.
    let mut witness: HashMap<&str, (&Field, &str)> = HashMap::new();
    for m in schema
        .messages
        .iter()
        .filter(|m| !buildable.contains(m.name.as_str()))
    {
        for f in mandatory(&m.fields) {
            if let Some(next) = blocking_message(schema, &buildable, &f.ty, &mut Vec::new()) {
                witness.insert(&m.name, (f, next));
                break;
            }
        }
    }
    let mut reported: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for m in &schema.messages {
        let start = m.name.as_str();
        if !witness.contains_key(start) || reported.contains(start) {
            continue;
        }
        // Follow the witnesses until a message repeats; only report when the
        // walk comes back to `start` (messages that merely lead into another
        // cycle are fixed by fixing that cycle).
        let mut path = vec![start];
        let mut cur = start;
        while let Some(&(_, next)) = witness.get(cur) {
            if next == start || path.contains(&next) {
                cur = next;
                break;
            }
            path.push(next);
            cur = next;
        }
        if cur != start {
            continue;
        }
        reported.extend(path.iter().copied());
        let (field, _) = witness[start];
        let chain: Vec<String> = path
            .iter()
            .map(|n| format!("{}.{}", short_name(n), witness[n].0.name))
            .collect();
        let message = format!(
            "recursive message `{start}` can never end: {} -> {}",
            chain.join(" -> "),
            short_name(start)
        );
        let hint =
            "make a field on this cycle optional (`T?`), or hold the recursion in a vector or map"
                .to_string();
        if let Some(loc) = locs.get(&(start.to_string(), field.name.clone())) {
            out.push((loc.file, loc.pos, message, Some(hint)));
        }
    }
    // Unions whose every variant leads back into the union itself have no
    // message on their cycle to name.
    for m in schema
        .messages
        .iter()
        .filter(|m| !buildable.contains(m.name.as_str()) && !witness.contains_key(m.name.as_str()))
    {
        let Some(f) =
            mandatory(&m.fields).find(|f| !can_build(schema, &buildable, &f.ty, &mut Vec::new()))
        else {
            continue;
        };
        let TypeRef::Union(u) = &f.ty else { continue };
        let message = format!(
            "field `{}` can never be built: every variant of union `{u}` leads back to itself",
            f.name
        );
        if let Some(loc) = locs.get(&(m.name.clone(), f.name.clone())) {
            out.push((
                loc.file,
                loc.pos,
                message,
                Some("make the field optional, or add a variant that ends".into()),
            ));
        }
    }
    out
}

/// Fields that must hold a value. Message- and union-typed fields count only
/// when `required`: without it they are already reported as lacking a
/// default, and reporting them again as a cycle would be noise.
fn mandatory(fields: &[Field]) -> impl Iterator<Item = &Field> {
    fields.iter().filter(|f| {
        !f.optional
            && !f.deprecated
            && (f.required || !matches!(f.ty, TypeRef::Message(_) | TypeRef::Union(_)))
    })
}

/// Whether a value of `ty` can be built given the buildable messages so far.
/// `unions` guards against unions that contain themselves.
fn can_build<'s>(
    schema: &'s Schema,
    buildable: &HashSet<&str>,
    ty: &'s TypeRef,
    unions: &mut Vec<&'s str>,
) -> bool {
    match ty {
        TypeRef::Message(name) => {
            buildable.contains(name.as_str()) || schema.message(name).is_none()
        }
        TypeRef::Union(name) => {
            let Some(u) = schema.union_def(name) else {
                return true;
            };
            if unions.contains(&name.as_str()) {
                return false;
            }
            unions.push(name);
            let ok = u
                .variants
                .iter()
                .any(|v| can_build(schema, buildable, &v.ty, unions));
            unions.pop();
            ok
        }
        _ => true,
    }
}

/// The unbuildable message that keeps `ty` from being built.
fn blocking_message<'s>(
    schema: &'s Schema,
    buildable: &HashSet<&str>,
    ty: &'s TypeRef,
    unions: &mut Vec<&'s str>,
) -> Option<&'s str> {
    match ty {
        TypeRef::Message(name) if !can_build(schema, buildable, ty, &mut Vec::new()) => Some(name),
        TypeRef::Union(name)
            if !can_build(schema, buildable, ty, &mut Vec::new())
                && !unions.contains(&name.as_str()) =>
        {
            unions.push(name);
            let u = schema.union_def(name)?;
            let found = u
                .variants
                .iter()
                .find_map(|v| blocking_message(schema, buildable, &v.ty, unions));
            unions.pop();
            found
        }
        _ => None,
    }
}
