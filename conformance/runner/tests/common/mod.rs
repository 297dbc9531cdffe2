//! Shared by the integration tests: the C++ replayer, built once into the target dir.

use std::path::Path;
use std::sync::OnceLock;

use flexbuf_conformance::cpp::CppReplayer;
use flexbuf_conformance::cpp_json::CppJsonParser;

/// True when the caller asked to skip everything that needs the C++ toolchain.
pub fn skip_cpp() -> bool {
    std::env::var("FLEXBUF_SKIP_CPP").as_deref() == Ok("1")
}

/// The replayer, or `None` when `FLEXBUF_SKIP_CPP=1`. Without that variable a
/// missing compiler or header fails the test: skipping silently would let the
/// differential test pass without comparing anything.
#[allow(dead_code)]
pub fn replayer() -> Option<CppReplayer> {
    static REPLAYER: OnceLock<Result<CppReplayer, String>> = OnceLock::new();
    if skip_cpp() {
        eprintln!("FLEXBUF_SKIP_CPP=1: skipping the comparison with the C++ reference");
        return None;
    }
    let built = REPLAYER.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay");
        CppReplayer::build(&out).map_err(|e| e.to_string())
    });
    match built {
        Ok(r) => Some(r.clone()),
        Err(e) => panic!("{e}\n(set FLEXBUF_SKIP_CPP=1 to skip the C++ comparison)"),
    }
}

/// The C++ JSON parser, or `None` when `FLEXBUF_SKIP_CPP=1` (as [`replayer`]).
#[allow(dead_code)]
pub fn json_parser() -> Option<CppJsonParser> {
    static PARSER: OnceLock<Result<CppJsonParser, String>> = OnceLock::new();
    if skip_cpp() {
        eprintln!("FLEXBUF_SKIP_CPP=1: skipping the comparison with the C++ reference");
        return None;
    }
    let built = PARSER.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("json_parse");
        CppJsonParser::build(&out).map_err(|e| e.to_string())
    });
    match built {
        Ok(p) => Some(p.clone()),
        Err(e) => panic!("{e}\n(set FLEXBUF_SKIP_CPP=1 to skip the C++ comparison)"),
    }
}
