//! The path of the JSON an instruction-count example reads: a fixture's
//! name (`user_profile`, read from `conformance/fixtures/`), or the path of
//! any JSON file (anything with a `/`).

/// `fixture`'s file.
pub fn path(fixture: &str) -> String {
    if fixture.contains('/') {
        fixture.to_string()
    } else {
        format!(
            "{}/../conformance/fixtures/{fixture}.json",
            env!("CARGO_MANIFEST_DIR")
        )
    }
}
