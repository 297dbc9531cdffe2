//! Writes the seed corpora under `fuzz/seeds/`:
//!
//! * `verify_read/`: every JSON fixture of `conformance/fixtures/` converted to
//!   FlexBuffers (keys shared, as the C++ default; small fixtures also with no
//!   sharing and with every flag), plus hand-built buffers for what JSON cannot
//!   express (blobs, typed, fixed and bool vectors, indirect scalars, f32,
//!   forced widths, shared key vectors, reused subtrees);
//! * `json_roundtrip/`: short JSON texts at the edges of the parser;
//! * `serde_from_slice/`: what `to_vec` writes for each type the serde
//!   target reads (`flexbuf_fuzz::serde_check::seeds`);
//! * `typed_decode/`: the typed conformance inputs and the small fixture
//!   goldens, each behind the byte that picks its generated type, and
//!   `typed_decode.types`, the type each byte picks.
//!
//! Run from `fuzz/`: `cargo run --example make_seeds` (idempotent).

use std::fs;
use std::path::Path;

use flexbuf::{BitWidth, Builder, BuilderOptions, JsonOptions, ShareFlags};

/// Fixtures at most this large also get the no-sharing and all-flags variants.
const SMALL_FIXTURE: u64 = 32 * 1024;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = here.join("../conformance/fixtures");
    let out = here.join("seeds/verify_read");
    fs::create_dir_all(&out)?;

    let mut names: Vec<_> = fs::read_dir(&fixtures)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let mut total = 0usize;
    for path in names {
        let text = fs::read_to_string(&path)?;
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("fixture");
        let small = fs::metadata(&path)?.len() <= SMALL_FIXTURE;
        for (tag, share) in [
            ("keys", ShareFlags::KEYS),
            ("none", ShareFlags::NONE),
            ("all", ShareFlags::ALL),
        ] {
            if tag != "keys" && !small {
                continue;
            }
            let options = JsonOptions {
                share,
                ..JsonOptions::default()
            };
            let bytes = flexbuf::json::from_json_with(&text, &options)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            flexbuf::verify(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            total += bytes.len();
            fs::write(out.join(format!("{stem}.{tag}.flexbuf")), bytes)?;
        }
    }
    for (name, bytes) in hand_built()? {
        flexbuf::verify(&bytes).map_err(|e| format!("{name}: {e}"))?;
        total += bytes.len();
        fs::write(out.join(format!("{name}.flexbuf")), bytes)?;
    }

    let json_out = here.join("seeds/json_roundtrip");
    fs::create_dir_all(&json_out)?;
    for (i, text) in JSON_EDGES.iter().enumerate() {
        total += text.len();
        fs::write(json_out.join(format!("edge_{i:02}.json")), text)?;
    }
    let serde_out = here.join("seeds/serde_from_slice");
    fs::create_dir_all(&serde_out)?;
    for (i, bytes) in flexbuf_fuzz::serde_check::seeds().into_iter().enumerate() {
        total += bytes.len();
        fs::write(serde_out.join(format!("serde_{i}.flexbuf")), bytes)?;
    }
    total += typed_seeds(
        &here.join("seeds/typed_decode"),
        &here.join("seeds/typed_decode.types"),
    )?;
    println!("wrote {total} bytes of seeds");
    Ok(())
}

/// Typed inputs at most this large become seeds of `typed_decode`.
const TYPED_SEED_MAX: usize = 16 * 1024;

/// `seeds/typed_decode/`: each typed case input and each fixture golden of
/// at most [`TYPED_SEED_MAX`] bytes, behind the byte that makes the target
/// decode it as the case's type; and `types`, what each byte names (a line
/// per entry of `dispatch::TYPES`, in order: the schema, a tab, the
/// qualified type), from which the Kotlin and TypeScript targets' seed
/// writers rewrite the byte for their own numbering. Returns the bytes written.
fn typed_seeds(out: &Path, types: &Path) -> Result<usize, Box<dyn std::error::Error>> {
    use flexbuf_typed_tests::cases::{default_dir, input_bytes, load_all, read_rel};
    use flexbuf_typed_tests::definitions::{FIXTURES, GOLDENS};
    use flexbuf_typed_tests::dispatch::TYPES;

    fs::create_dir_all(out)?;
    let listing: String = TYPES
        .iter()
        .map(|(schema, ty, _)| format!("{schema}\t{ty}\n"))
        .collect();
    fs::write(types, listing)?;
    let dir = default_dir();
    let pick = |schema: &str, ty: &str| {
        TYPES
            .iter()
            .position(|(s, t, _)| *s == schema && *t == ty)
            .ok_or_else(|| format!("no coder for {ty} ({schema})"))
    };
    let mut inputs: Vec<(String, usize, Vec<u8>)> = Vec::new();
    for (_, file) in load_all(&dir)? {
        for case in &file.cases {
            let i = pick(&case.schema, &case.ty)?;
            inputs.push((case.name.replace('/', "_"), i, input_bytes(&dir, case)?));
        }
    }
    for &(stem, ty) in FIXTURES {
        let i = pick(&format!("schemas/{stem}.fxs"), ty)?;
        for kind in ["input", "expect"] {
            let bytes = read_rel(&dir, &format!("{GOLDENS}/{stem}.{kind}.bin"))?;
            inputs.push((format!("{stem}.{kind}"), i, bytes));
        }
    }
    let mut total = 0;
    for (name, i, bytes) in inputs {
        if bytes.len() > TYPED_SEED_MAX {
            continue;
        }
        let mut seed = Vec::with_capacity(bytes.len() + 1);
        seed.push(u8::try_from(i)?);
        seed.extend_from_slice(&bytes);
        total += seed.len();
        fs::write(out.join(format!("{name}.typed")), seed)?;
    }
    Ok(total)
}

/// JSON texts near the parser's edges: number forms, escapes, depth, empties.
const JSON_EDGES: &[&str] = &[
    r#"{"a":[1,-1,0,-0,1.5,-2.5e-3,1E400,18446744073709551615,18446744073709551616,-9223372036854775808]}"#,
    r#"["\u0000","\ud83d\ude00","\"\\\/\b\f\n\r\t","é漢字",""]"#,
    r#"{"":null,"b":true,"a":false,"z":{},"y":[]}"#,
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    r#"[1e-7,1e16,0.1,3.4028234663852886e38,5e-324,1.7976931348623157e308]"#,
    " \t\n{ \"k\" : [ 1 , 2 ] } \r\n",
];

type Seeds = Vec<(&'static str, Vec<u8>)>;

/// Buffers using what `from_json` never writes.
fn hand_built() -> Result<Seeds, flexbuf::Error> {
    let mut seeds = Vec::new();

    let mut b = Builder::new();
    b.start_map();
    b.key("blob");
    b.blob(&[0, 1, 2, 255, 254]);
    b.key("ints");
    b.typed_vector(&[1i64, -300, 70_000, i64::MIN]);
    b.key("uints");
    b.typed_vector(&[1u8, 2, 3]);
    b.key("floats");
    b.typed_vector(&[0.5f32, -1.25, f32::MAX]);
    b.key("doubles");
    b.typed_vector(&[0.1f64, f64::NAN, f64::INFINITY]);
    b.key("bools");
    b.typed_vector(&[true, false, true]);
    b.key("fixed2");
    b.fixed_vector(&[1i32, 2])?;
    b.key("fixed3");
    b.fixed_vector(&[1u16, 2, 3])?;
    b.key("fixed4");
    b.fixed_vector(&[1.0f64, 2.0, 3.0, 4.0])?;
    b.key("indirect");
    b.start_vector();
    b.indirect_int(-5);
    b.indirect_uint(u64::MAX);
    b.indirect_float(1.5);
    b.indirect_double(0.1);
    b.end_vector()?;
    b.key("f32");
    b.float(3.25);
    b.key("nan");
    b.double(f64::NAN);
    b.key("keys");
    b.start_vector();
    b.key("alpha");
    b.key("beta");
    b.end_typed_vector()?;
    b.end_map()?;
    seeds.push(("typed_and_indirect", b.finish_vec()?));

    // Wide slots everywhere, so widths differ from the minimal encoding.
    let mut b = Builder::new();
    b.force_min_width(BitWidth::W64);
    b.start_vector();
    b.int(1);
    b.string("wide");
    b.start_map();
    b.key("x");
    b.bool(true);
    b.end_map()?;
    b.end_vector()?;
    seeds.push(("forced_w64", b.finish_vec()?));

    // One keys vector shared by several maps, and one subtree reached twice.
    let mut b = Builder::with_options(BuilderOptions {
        share: ShareFlags::ALL,
        dedup_key_vectors: true,
        ..BuilderOptions::default()
    });
    b.start_vector();
    let keys = b.key_vector(&["a", "b"])?;
    for i in 0..3 {
        b.start_map();
        b.int(i);
        b.string("shared");
        b.end_map_with_keys(&keys)?;
    }
    b.start_vector();
    b.uint(7);
    b.end_vector()?;
    let reused = b.last_value().expect("a value was pushed");
    b.reuse_value(reused);
    b.reuse_value(reused);
    b.end_vector()?;
    seeds.push(("shared_keys_and_dag", b.finish_vec()?));

    // Scalar roots of every width.
    for (name, v) in [
        ("root_u8", 200u64),
        ("root_u16", 60_000),
        ("root_u32", 4_000_000_000),
        ("root_u64", u64::MAX),
    ] {
        let mut b = Builder::new();
        b.uint(v);
        seeds.push((name, b.finish_vec()?));
    }
    let mut b = Builder::new();
    b.string("");
    seeds.push(("root_empty_string", b.finish_vec()?));
    let mut b = Builder::new();
    b.start_map();
    b.end_map()?;
    seeds.push(("root_empty_map", b.finish_vec()?));
    Ok(seeds)
}
