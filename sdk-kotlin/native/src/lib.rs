//! JNI entry points of the Kotlin SDK (`dev.flexbuf.jvm.FlexNative`): the Rust
//! core's verifier, JSON conversion and schema fingerprints, one native call per
//! buffer (never per field), and the code generator (`generate`, behind the
//! Maven plugin). Errors come back as a `dev.flexbuf.FlexException`
//! built by the Kotlin side from (kind name, offset, message, path), so Kotlin
//! code sees the same error type whichever side failed.

use std::path::PathBuf;

use flexbuf_codegen::request::{GenError, GenRequest};
use jni::objects::{JByteArray, JClass, JObject, JString, JValue};
use jni::sys::{jbyteArray, jint, jlong, jobjectArray, jstring};
use jni::JNIEnv;

/// The ABI version the Kotlin loader checks before any other call; bump it on
/// any change of a signature below.
pub const ABI_VERSION: jint = 2;

/// Throws `dev.flexbuf.jvm.FlexNative.NativeError` carrying the core error.
fn throw(env: &mut JNIEnv, e: &flexbuf::Error) {
    let kind = format!("{:?}", e.kind());
    let kind = kind
        .split(['(', ' ', '{'])
        .next()
        .unwrap_or("Message")
        .to_string();
    let offset = e.offset().map(|o| o as i64).unwrap_or(-1);
    let path = e.path().unwrap_or_default();
    let msg = e.to_string();
    let made = (|| -> jni::errors::Result<()> {
        let class = env.find_class("dev/flexbuf/jvm/NativeError")?;
        let k = env.new_string(kind)?;
        let m = env.new_string(msg)?;
        let p = env.new_string(path)?;
        let obj = env.new_object(
            class,
            "(Ljava/lang/String;JLjava/lang/String;Ljava/lang/String;)V",
            &[
                JValue::Object(&k),
                JValue::Long(offset),
                JValue::Object(&m),
                JValue::Object(&p),
            ],
        )?;
        env.throw(jni::objects::JThrowable::from(obj))
    })();
    if made.is_err() && !env.exception_check().unwrap_or(false) {
        let _ = env.throw_new("java/lang/IllegalStateException", e.to_string());
    }
}

fn bytes_of(env: &mut JNIEnv, a: &JByteArray) -> Option<Vec<u8>> {
    match env.convert_byte_array(a) {
        Ok(v) => Some(v),
        Err(_) => {
            let _ = env.throw_new(
                "java/lang/IllegalArgumentException",
                "cannot read the byte array",
            );
            None
        }
    }
}

/// `FlexNative.abiVersion(): Int`.
#[no_mangle]
pub extern "system" fn Java_dev_flexbuf_jvm_FlexNative_abiVersion(
    _env: JNIEnv,
    _c: JClass,
) -> jint {
    ABI_VERSION
}

/// `FlexNative.coreVersion(): String`: the crate version of the core.
#[no_mangle]
pub extern "system" fn Java_dev_flexbuf_jvm_FlexNative_coreVersion(
    env: JNIEnv,
    _c: JClass,
) -> jstring {
    env.new_string(env!("CARGO_PKG_VERSION"))
        .map(|s| s.into_raw())
        .unwrap_or(std::ptr::null_mut())
}

/// `FlexNative.verify(bytes)`: throws on the first problem.
#[no_mangle]
pub extern "system" fn Java_dev_flexbuf_jvm_FlexNative_verify(
    mut env: JNIEnv,
    _c: JClass,
    buf: JByteArray,
) {
    let Some(b) = bytes_of(&mut env, &buf) else {
        return;
    };
    if let Err(e) = flexbuf::verify(&b) {
        throw(&mut env, &e);
    }
}

/// `FlexNative.toJson(bytes): String`.
#[no_mangle]
pub extern "system" fn Java_dev_flexbuf_jvm_FlexNative_toJson(
    mut env: JNIEnv,
    _c: JClass,
    buf: JByteArray,
) -> jstring {
    let Some(b) = bytes_of(&mut env, &buf) else {
        return std::ptr::null_mut();
    };
    match flexbuf::to_json(&b) {
        Ok(s) => env
            .new_string(s)
            .map(|s| s.into_raw())
            .unwrap_or(std::ptr::null_mut()),
        Err(e) => {
            throw(&mut env, &e);
            std::ptr::null_mut()
        }
    }
}

/// `FlexNative.fromJson(text): ByteArray`.
#[no_mangle]
pub extern "system" fn Java_dev_flexbuf_jvm_FlexNative_fromJson(
    mut env: JNIEnv,
    _c: JClass,
    text: JString,
) -> jbyteArray {
    let s: String = match env.get_string(&text) {
        Ok(s) => s.into(),
        Err(_) => {
            let _ = env.throw_new(
                "java/lang/IllegalArgumentException",
                "cannot read the string",
            );
            return std::ptr::null_mut();
        }
    };
    match flexbuf::from_json(&s) {
        Ok(v) => env
            .byte_array_from_slice(&v)
            .map(|a| a.into_raw())
            .unwrap_or(std::ptr::null_mut()),
        Err(e) => {
            throw(&mut env, &e);
            std::ptr::null_mut()
        }
    }
}

/// `FlexNative.fingerprint(compiledSchema, typeName): Long`: the fingerprint of a
/// type in a compiled schema (`Schema::to_bytes`); throws when the schema cannot
/// be read or has no such message.
#[no_mangle]
pub extern "system" fn Java_dev_flexbuf_jvm_FlexNative_fingerprint(
    mut env: JNIEnv,
    _c: JClass,
    schema: JByteArray,
    name: JString,
) -> jlong {
    let Some(b) = bytes_of(&mut env, &schema) else {
        return 0;
    };
    let name: String = match env.get_string(&name) {
        Ok(s) => s.into(),
        Err(_) => return 0,
    };
    let schema = match flexbuf::schema::Schema::from_bytes(&b) {
        Ok(s) => s,
        Err(e) => {
            throw(&mut env, &e);
            return 0;
        }
    };
    match schema.fingerprint(&name) {
        Some(f) => f as jlong,
        None => {
            let e = flexbuf::Error::new(flexbuf::ErrorKind::Message(format!(
                "no message {name} in the schema"
            )));
            throw(&mut env, &e);
            0
        }
    }
}

/// Reads a Java string argument; `None` (with `IllegalArgumentException`
/// thrown) when it cannot be read. A null reference reads as `None` without
/// throwing only when `optional`.
fn string_arg(env: &mut JNIEnv, s: &JString, optional: bool) -> Result<Option<String>, ()> {
    if s.is_null() {
        if optional {
            return Ok(None);
        }
        let _ = env.throw_new("java/lang/NullPointerException", "null argument");
        return Err(());
    }
    match env.get_string(s) {
        Ok(v) => Ok(Some(v.into())),
        Err(_) => {
            let _ = env.throw_new(
                "java/lang/IllegalArgumentException",
                "cannot read the string",
            );
            Err(())
        }
    }
}

/// `FlexNative.generate(lang, schema, output, tsInt64): Array<String>`: runs
/// the code generator ([`GenRequest`], the one every host shares) and returns
/// the paths written. Failures throw `dev.flexbuf.jvm.GenerateException` with
/// `usage` true for a bad request and false for schema errors, the message
/// being the generator's `file:line:column` diagnostics.
#[no_mangle]
pub extern "system" fn Java_dev_flexbuf_jvm_FlexNative_generate(
    mut env: JNIEnv,
    _c: JClass,
    lang: JString,
    schema: JString,
    output: JString,
    ts_int64: JString,
) -> jobjectArray {
    let args = (|| {
        Ok::<_, ()>((
            string_arg(&mut env, &lang, false)?.unwrap_or_default(),
            string_arg(&mut env, &schema, false)?.unwrap_or_default(),
            string_arg(&mut env, &output, false)?.unwrap_or_default(),
            string_arg(&mut env, &ts_int64, true)?,
        ))
    })();
    let Ok((lang, schema, output, ts_int64)) = args else {
        return std::ptr::null_mut();
    };
    let (schema, output) = (PathBuf::from(schema), PathBuf::from(output));
    let request = GenRequest {
        lang: &lang,
        schema: &schema,
        output: &output,
        ts_int64: ts_int64.as_deref(),
    };
    let made = match request.run() {
        Ok(paths) => paths_array(&mut env, &paths),
        Err(e) => {
            let usage = matches!(e, GenError::Usage(_));
            throw_generate(&mut env, usage, &e.to_string());
            return std::ptr::null_mut();
        }
    };
    match made {
        Ok(a) => a,
        Err(_) => {
            if !env.exception_check().unwrap_or(false) {
                let _ = env.throw_new(
                    "java/lang/IllegalStateException",
                    "cannot return the generated paths",
                );
            }
            std::ptr::null_mut()
        }
    }
}

fn paths_array(env: &mut JNIEnv, paths: &[PathBuf]) -> jni::errors::Result<jobjectArray> {
    let class = env.find_class("java/lang/String")?;
    let array = env.new_object_array(paths.len() as i32, class, JObject::null())?;
    for (i, p) in paths.iter().enumerate() {
        let s = env.new_string(p.to_string_lossy())?;
        env.set_object_array_element(&array, i as i32, s)?;
    }
    Ok(array.into_raw())
}

/// Throws `dev.flexbuf.jvm.GenerateException(usage, message)`.
fn throw_generate(env: &mut JNIEnv, usage: bool, message: &str) {
    let made = (|| -> jni::errors::Result<()> {
        let class = env.find_class("dev/flexbuf/jvm/GenerateException")?;
        let m = env.new_string(message)?;
        let obj = env.new_object(
            class,
            "(ZLjava/lang/String;)V",
            &[JValue::Bool(usage.into()), JValue::Object(&m)],
        )?;
        env.throw(jni::objects::JThrowable::from(obj))
    })();
    if made.is_err() && !env.exception_check().unwrap_or(false) {
        let _ = env.throw_new("java/lang/IllegalStateException", message);
    }
}
