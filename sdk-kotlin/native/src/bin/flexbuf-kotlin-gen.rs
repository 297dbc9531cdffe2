//! `flexbuf-kotlin-gen SCHEMA.fxs... -o DIR`: runs the Kotlin backend
//! (`flexbuf_codegen::backend::kotlin`) on each schema, as `flexbuf gen --lang
//! kotlin` does, so xtask can generate test coders before the CLI option exists.
//! With `--schema-bin DIR` it also writes each compiled schema
//! (`Schema::to_bytes`) as `DIR/<stem>.schema.bin`, for fingerprint checks.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(o) = args.iter().position(|a| a == "-o") else {
        eprintln!("usage: flexbuf-kotlin-gen SCHEMA.fxs... -o DIR");
        return ExitCode::from(2);
    };
    let Some(out) = args.get(o + 1).map(PathBuf::from) else {
        eprintln!("-o needs a directory");
        return ExitCode::from(2);
    };
    let bin_dir = args
        .iter()
        .position(|a| a == "--schema-bin")
        .and_then(|i| args.get(i + 1).map(|d| (i, PathBuf::from(d))));
    let skip = |i: usize| {
        i == o
            || i == o + 1
            || bin_dir
                .as_ref()
                .is_some_and(|(b, _)| i == *b || i == *b + 1)
    };
    let schemas = args.iter().enumerate().filter(|(i, _)| !skip(*i));
    for (_, schema) in schemas {
        let parsed = match flexbuf_codegen::parse_file(std::path::Path::new(schema)) {
            Ok(p) => p,
            Err(d) => {
                eprintln!("{d}");
                return ExitCode::from(1);
            }
        };
        let files = match flexbuf_codegen::backend::kotlin::generate(&parsed) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{schema}: error: {e}");
                return ExitCode::from(1);
            }
        };
        if let Some((_, dir)) = &bin_dir {
            let stem = std::path::Path::new(schema)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("schema");
            let written = parsed
                .schema
                .to_bytes()
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    std::fs::create_dir_all(dir)
                        .and_then(|_| std::fs::write(dir.join(format!("{stem}.schema.bin")), b))
                        .map_err(|e| e.to_string())
                });
            if let Err(e) = written {
                eprintln!("{schema}: compiled schema: {e}");
                return ExitCode::from(1);
            }
        }
        for f in files {
            let path = out.join(&f.path);
            if let Some(dir) = path.parent() {
                if let Err(e) = std::fs::create_dir_all(dir) {
                    eprintln!("{}: {e}", dir.display());
                    return ExitCode::from(1);
                }
            }
            if let Err(e) = std::fs::write(&path, f.contents) {
                eprintln!("{}: {e}", path.display());
                return ExitCode::from(1);
            }
            println!("wrote {}", path.display());
        }
    }
    ExitCode::SUCCESS
}
