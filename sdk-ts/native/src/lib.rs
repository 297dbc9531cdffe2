//! Native core of the `flexbuf` npm package, loaded on Node through neon.
//!
//! One call per message, `Uint8Array` in and out: the bytes are read in place
//! from the JS typed array (no per-byte copies) and results come back as one
//! string or one new buffer. Failures are returned, not thrown, as
//! `[kind, message, offset]` so the TypeScript side raises its own typed
//! `FlexError` with the Rust core's error kind.

use neon::prelude::*;
use neon::types::buffer::TypedArray;

use flexbuf::json::NonFinite;
use flexbuf::{Error, JsonOptions, ShareFlags, VerifyOptions};

/// The `ErrorKind` variant name of `e` (e.g. `"Cycle"`), as the TS side names kinds.
fn kind_name(e: &Error) -> String {
    let debug = format!("{:?}", e.kind());
    debug
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// `[kind, message, offset | -1]` for the TS side to rethrow.
fn error_tuple<'a>(cx: &mut FunctionContext<'a>, e: &Error) -> JsResult<'a, JsArray> {
    let out = cx.empty_array();
    let kind = cx.string(kind_name(e));
    out.set(cx, 0, kind)?;
    let msg = cx.string(e.to_string());
    out.set(cx, 1, msg)?;
    let offset = cx.number(e.offset().map_or(-1.0, |o| o as f64));
    out.set(cx, 2, offset)?;
    Ok(out)
}

fn verify_options(cx: &mut FunctionContext, index: usize) -> NeonResult<VerifyOptions> {
    let mut options = VerifyOptions::default();
    if let Some(depth) = cx.argument_opt(index) {
        if let Ok(d) = depth.downcast::<JsNumber, _>(cx) {
            options.max_depth = d.value(cx) as usize;
        }
    }
    Ok(options)
}

/// `verify(bytes, maxDepth?) -> null | [kind, message, offset]`.
fn verify(mut cx: FunctionContext) -> JsResult<JsValue> {
    let buf = cx.argument::<JsTypedArray<u8>>(0)?;
    let options = verify_options(&mut cx, 1)?;
    let result = flexbuf::verify_with(buf.as_slice(&cx), &options).map(|_| ());
    match result {
        Ok(()) => Ok(cx.null().upcast()),
        Err(e) => Ok(error_tuple(&mut cx, &e)?.upcast()),
    }
}

/// `toJSON(bytes, pretty, nonFinite, maxOutputBytes) -> string | [kind, message, offset]`.
fn to_json(mut cx: FunctionContext) -> JsResult<JsValue> {
    let buf = cx.argument::<JsTypedArray<u8>>(0)?;
    let pretty = cx.argument::<JsBoolean>(1)?.value(&mut cx);
    let non_finite = match cx.argument::<JsString>(2)?.value(&mut cx).as_str() {
        "null" => NonFinite::Null,
        "literal" => NonFinite::Literal,
        _ => NonFinite::Error,
    };
    let max = cx.argument::<JsNumber>(3)?.value(&mut cx);
    let options = JsonOptions {
        pretty,
        non_finite,
        max_output_bytes: (max >= 0.0).then_some(max as u64),
        ..JsonOptions::default()
    };
    let result = flexbuf::json::to_json_with(buf.as_slice(&cx), &options);
    match result {
        Ok(text) => Ok(cx.string(text).upcast()),
        Err(e) => Ok(error_tuple(&mut cx, &e)?.upcast()),
    }
}

/// `fromJSON(text, share, maxDepth) -> Uint8Array | [kind, message, offset]`.
fn from_json(mut cx: FunctionContext) -> JsResult<JsValue> {
    let text = cx.argument::<JsString>(0)?.value(&mut cx);
    let share = cx.argument::<JsNumber>(1)?.value(&mut cx) as u8;
    let max_depth = cx.argument::<JsNumber>(2)?.value(&mut cx) as usize;
    let options = JsonOptions {
        share: ShareFlags::from_bits(share),
        max_depth,
        ..JsonOptions::default()
    };
    match flexbuf::json::from_json_with(&text, &options) {
        Ok(bytes) => {
            let out = JsUint8Array::from_slice(&mut cx, &bytes)?;
            Ok(out.upcast())
        }
        Err(e) => Ok(error_tuple(&mut cx, &e)?.upcast()),
    }
}

/// `generate(lang, schema, output, tsInt64 | null) -> { written: string[] } |
/// { error: "usage" | "schema", message }`: the Rust code generator
/// (`flexbuf_codegen::request`), for `npx flexbuf gen`. A `"usage"` error is a
/// wrong request; a `"schema"` one carries the diagnostics
/// (`file:line:column: ...`) or names a file that could not be read or written.
fn generate(mut cx: FunctionContext) -> JsResult<JsObject> {
    use flexbuf_codegen::request::{GenError, GenRequest};
    let lang = cx.argument::<JsString>(0)?.value(&mut cx);
    let schema = cx.argument::<JsString>(1)?.value(&mut cx);
    let output = cx.argument::<JsString>(2)?.value(&mut cx);
    let ts_int64 = match cx.argument_opt(3) {
        Some(v) => v
            .downcast::<JsString, _>(&mut cx)
            .ok()
            .map(|s| s.value(&mut cx)),
        None => None,
    };
    let request = GenRequest {
        lang: &lang,
        schema: std::path::Path::new(&schema),
        output: std::path::Path::new(&output),
        ts_int64: ts_int64.as_deref(),
    };
    let out = cx.empty_object();
    match request.run() {
        Ok(paths) => {
            let written = cx.empty_array();
            for (i, p) in paths.iter().enumerate() {
                let s = cx.string(p.to_string_lossy());
                written.set(&mut cx, i as u32, s)?;
            }
            out.set(&mut cx, "written", written)?;
        }
        Err(e) => {
            let (kind, message) = match e {
                GenError::Usage(m) => ("usage", m),
                GenError::Schema(m) => ("schema", m),
            };
            let k = cx.string(kind);
            out.set(&mut cx, "error", k)?;
            let m = cx.string(message);
            out.set(&mut cx, "message", m)?;
        }
    }
    Ok(out)
}

/// Registers the exported functions.
#[neon::main]
fn main(mut cx: ModuleContext) -> NeonResult<()> {
    cx.export_function("verify", verify)?;
    cx.export_function("toJSON", to_json)?;
    cx.export_function("fromJSON", from_json)?;
    cx.export_function("generate", generate)?;
    Ok(())
}
