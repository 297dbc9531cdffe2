//! Arbitrary text as a schema (`.fxs`) through the code generator: parse and
//! check it (imports resolve against a small in-memory set, so a schema can
//! neither read the disk nor hang on a device file), then, when it is
//! accepted, plan it and emit every backend's files. Nothing may panic or
//! hang; every rejection is a diagnostic with a position inside its file,
//! and every backend either emits files or reports diagnostics.
#![no_main]

use std::io;
use std::path::Path;

use flexbuf_codegen::backend::BACKENDS;
use flexbuf_codegen::{generate, parse_with_loader};
use libfuzzer_sys::fuzz_target;

/// The files an import may name: one that parses and one that does not.
fn load(path: &Path) -> io::Result<String> {
    match path.file_name().and_then(|n| n.to_str()) {
        Some("common.fxs") => Ok("namespace common;\nmessage Geo { lat: f64; lon: f64; }\n".into()),
        Some("broken.fxs") => Ok("namespace broken;\nmessage {".into()),
        _ => Err(io::Error::from(io::ErrorKind::NotFound)),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = match parse_with_loader("fuzz/app.fxs", text, &load) {
        Ok(parsed) => parsed,
        Err(diags) => {
            assert!(!diags.is_empty(), "a rejection without a diagnostic");
            for d in diags.iter() {
                let lines = if d.file.ends_with("app.fxs") {
                    text.lines().count().max(1)
                } else {
                    usize::MAX
                };
                assert!(
                    d.line >= 1 && d.line as usize <= lines.saturating_add(1) && d.column >= 1,
                    "diagnostic at line {} of a {lines}-line file: {d}",
                    d.line
                );
            }
            return;
        }
    };
    for backend in BACKENDS {
        match generate(*backend, &parsed) {
            Ok(files) => assert!(!files.is_empty(), "{} emitted no file", backend.name()),
            Err(diags) => assert!(
                !diags.is_empty(),
                "{} failed without a diagnostic",
                backend.name()
            ),
        }
    }
});
