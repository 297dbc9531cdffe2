//! "Did you mean" suggestions by edit distance.

/// Levenshtein distance between `a` and `b` in characters, ignoring ASCII
/// case (so `address` is distance 0 from `Address`).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `name`, if it is close enough to be a likely
/// typo: at most a third of the name's length apart (and at least 1).
pub(crate) fn closest(name: &str, candidates: &[String]) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= limit && c.as_str() != name)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.clone())
}

/// Types people write by habit from other languages, and ours.
const ALIASES: &[(&str, &str)] = &[
    ("int", "i32"),
    ("integer", "i64"),
    ("long", "i64"),
    ("short", "i16"),
    ("byte", "u8"),
    ("uint", "u32"),
    ("ulong", "u64"),
    ("float", "f32"),
    ("double", "f64"),
    ("boolean", "bool"),
    ("str", "string"),
    ("String", "string"),
    ("blob", "bytes"),
];

const BUILTINS: &[&str] = &[
    "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "string", "bytes",
];

/// Suggestion for an unknown type name among the visible `types` and the
/// built-in types.
pub(crate) fn type_suggestion(name: &str, types: &[String]) -> Option<String> {
    if let Some((_, ours)) = ALIASES.iter().find(|(alias, _)| *alias == name) {
        return Some((*ours).to_string());
    }
    let mut all: Vec<String> = types.to_vec();
    all.extend(BUILTINS.iter().map(|b| b.to_string()));
    closest(name, &all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("Adress", "Address"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("address", "Address"), 0);
    }

    #[test]
    fn suggestions() {
        let types = vec!["Address".to_string(), "common.Geo".to_string()];
        assert_eq!(
            type_suggestion("Adress", &types).as_deref(),
            Some("Address")
        );
        assert_eq!(
            type_suggestion("comon.Geo", &types).as_deref(),
            Some("common.Geo")
        );
        assert_eq!(type_suggestion("double", &types).as_deref(), Some("f64"));
        assert_eq!(type_suggestion("strng", &types).as_deref(), Some("string"));
        assert_eq!(type_suggestion("Zebra", &types), None);
    }
}
