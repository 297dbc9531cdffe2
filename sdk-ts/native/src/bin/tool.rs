//! Developer tool of the TypeScript SDK (used by its tests and `cargo xtask`):
//! `flexbuf-ts-tool typed FIXTURE OUT.bin` writes the bytes the Rust
//! generated coder of the fixture's root message encodes for
//! `conformance/fixtures/FIXTURE.json` (JSON -> generic buffer -> Rust typed
//! decode -> Rust typed encode): the reference for byte identity of the
//! TypeScript generated encoders. (Generate TypeScript with `flexbuf gen --lang ts`.)

use std::path::Path;
use std::process::ExitCode;

use flexbuf::FlexCoder;

mod fixtures {
    include!(concat!(env!("OUT_DIR"), "/fixture_modules.rs"));
}

fn typed_bytes(fixture: &str, generic: &[u8]) -> Result<Vec<u8>, String> {
    fn re<T: FlexCoder>(generic: &[u8]) -> Result<Vec<u8>, String> {
        let value = T::from_flex(generic).map_err(|e| e.to_string())?;
        value.to_flex().map_err(|e| e.to_string())
    }
    match fixture {
        "api_response" => re::<fixtures::api_response::ApiResponse>(generic),
        "chat_thread" => re::<fixtures::chat_thread::ChatThread>(generic),
        "deep_nesting" => re::<fixtures::deep_nesting::DeepLevel>(generic),
        "metrics_96k" => re::<fixtures::metrics_96k::Metrics>(generic),
        "repeated_maps" => re::<fixtures::repeated_maps::RepeatedMaps>(generic),
        "string_flood" => re::<fixtures::string_flood::StringFlood>(generic),
        "time_series" => re::<fixtures::time_series::TimeSeries>(generic),
        "unicode_heavy" => re::<fixtures::unicode_heavy::UnicodeHeavy>(generic),
        "user_profile" => re::<fixtures::user_profile::UserProfile>(generic),
        "wide_map" => re::<fixtures::wide_map::WideMap>(generic),
        "width_bomb" => re::<fixtures::width_bomb::WidthBomb>(generic),
        other => Err(format!("unknown fixture {other}")),
    }
}

fn run(args: &[String]) -> Result<(), String> {
    match args {
        [cmd, fixture, out] if cmd == "typed" => {
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/fixtures");
            let path = root.join(format!("{fixture}.json"));
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let generic = flexbuf::from_json(&text).map_err(|e| e.to_string())?;
            let bytes = typed_bytes(fixture, &generic)?;
            std::fs::write(out, bytes).map_err(|e| format!("{out}: {e}"))
        }
        _ => Err("usage: flexbuf-ts-tool typed FIXTURE OUT.bin".into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
