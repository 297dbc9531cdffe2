//! Names: case conversion shared by the backends, and the one name-clash
//! check that runs over the plan with any backend's naming.
//!
//! ```
//! use flexbuf_codegen::names::{camel, pascal, snake};
//!
//! assert_eq!(camel("display_name"), "displayName");
//! assert_eq!(pascal("user_profile"), "UserProfile");
//! assert_eq!(snake("readField"), "read_field");
//! ```

use std::collections::{HashMap, HashSet};

use crate::backend::Backend;
use crate::diag::Diagnostics;
use crate::plan::Plan;

/// `display_name` -> `displayName` (a trailing `_` is kept).
pub fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for (i, c) in s.chars().enumerate() {
        if c == '_' && i > 0 {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    if s.ends_with('_') {
        out.push('_');
    }
    out
}

/// `user_profile` (or `user-profile`, `user.profile`) -> `UserProfile`.
pub fn pascal(s: &str) -> String {
    let c = camel(&s.replace(['-', '.'], "_"));
    let mut chars = c.chars();
    match chars.next() {
        Some(f) => f.to_uppercase().chain(chars).collect(),
        None => c,
    }
}

/// `readField` -> `read_field`; `HTTPCode` -> `http_code`; snake case stays.
pub fn snake(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(|n| n.is_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `base`, or `base` + `suffix` (repeated) until it is not in `taken`.
pub fn avoid(base: String, suffix: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base;
    while taken(&name) {
        name.push_str(suffix);
    }
    name
}

/// Every name `backend` declares at the top level of scope `scope` (types
/// and their companions): what generated code must not use unqualified for
/// a builtin of the same name.
pub fn declared(backend: &dyn Backend, plan: &Plan<'_>, scope: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for t in plan.type_names() {
        if backend.type_scope(t) == scope {
            out.insert(backend.type_name(t));
            out.extend(backend.companion_names(plan, t));
        }
    }
    out
}

/// Field accessor names that avoid `reserved` member names: a field whose
/// name is reserved gets `suffix` appended until the name is free (neither
/// reserved nor another field's). `fields` are the field identifiers, in
/// order; the result is parallel to it.
pub fn accessors(fields: &[String], reserved: &[&str], suffix: &str) -> Vec<String> {
    let mut taken: HashSet<String> = reserved.iter().map(|r| r.to_string()).collect();
    taken.extend(
        fields
            .iter()
            .filter(|f| !reserved.contains(&f.as_str()))
            .cloned(),
    );
    fields
        .iter()
        .map(|f| {
            if !reserved.contains(&f.as_str()) {
                return f.clone();
            }
            let name = avoid(f.clone(), suffix, |n| taken.contains(n));
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// Checks that the names `backend` gives the plan's declarations are
/// distinct where they must be: types (and their companions) within a
/// scope, fields within a message, variants within an enum or union. Each
/// clash is reported at the later declaration, with its `file:line:col`.
pub fn check(backend: &dyn Backend, plan: &Plan<'_>) -> Result<(), Diagnostics> {
    let lang = backend.name();
    let mut diags = Diagnostics::new();
    let mut types: HashMap<(String, String), &str> = HashMap::new();
    // In declaration order, so that a clash is reported at the later one.
    let mut in_order: Vec<&str> = plan.type_names().collect();
    in_order.sort_by_key(|t| {
        plan.parsed
            .positions
            .get(&(t.to_string(), String::new()))
            .map(|p| (p.file, p.line, p.column))
    });
    for t in in_order {
        let scope = backend.type_scope(t);
        let mut names = vec![backend.type_name(t)];
        names.extend(backend.companion_names(plan, t));
        for n in names {
            if let Some(prev) = types.insert((scope.clone(), n.clone()), t) {
                let what = if prev == t {
                    format!("type `{t}` declares `{n}` twice in the {lang} output")
                } else {
                    format!("types `{prev}` and `{t}` both declare `{n}` in the {lang} output")
                };
                diags.push(plan.parsed.diagnostic_at(t, "", what).with_hint(
                    "rename one of the types (wire names are not affected; type names are not part of the fingerprint)",
                ));
            }
        }
    }
    let mut members = |owner: &str, kind: &str, names: Vec<(&str, String)>| {
        let mut seen: HashMap<String, &str> = HashMap::new();
        for (schema_name, n) in names {
            if let Some(prev) = seen.insert(n.clone(), schema_name) {
                diags.push(
                    plan.parsed
                        .diagnostic_at(
                            owner,
                            schema_name,
                            format!(
                                "{kind}s `{prev}` and `{schema_name}` of `{owner}` are both `{n}` in the {lang} output"
                            ),
                        )
                        .with_hint(format!(
                            "rename one of the {kind}s (set `wire_name` to keep the wire format)"
                        )),
                );
            }
        }
    };
    for m in &plan.messages {
        let names = m
            .fields
            .iter()
            .map(|f| (f.def.name.as_str(), backend.field_name(&f.def.name)))
            .collect();
        members(&m.def.name, "field", names);
    }
    for e in &plan.enums {
        let names = e
            .def
            .variants
            .iter()
            .map(|v| (v.name.as_str(), backend.variant_name(&v.name)))
            .collect();
        members(&e.def.name, "variant", names);
    }
    for u in &plan.unions {
        let names = u
            .variants
            .iter()
            .map(|v| (v.def.name.as_str(), backend.variant_name(&v.def.name)))
            .collect();
        members(&u.def.name, "variant", names);
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(snake("read_field"), "read_field");
        assert_eq!(snake("readField"), "read_field");
        assert_eq!(snake("HTTPCode"), "http_code");
        assert_eq!(snake("v2Name"), "v2_name");
        assert_eq!(camel("a_b_c"), "aBC");
        assert_eq!(camel("trailing_"), "trailing_");
        assert_eq!(pascal("my-schema"), "MySchema");
        assert_eq!(
            avoid("read".into(), "Field", |n| n == "read" || n == "readField"),
            "readFieldField"
        );
    }
}
