//! The typed-value cases, defined here and written to `conformance/typed/`
//! by `cargo run -p flexbuf-typed-tests --bin typed-cases -- --regen`.
//!
//! Each definition states its expectation by hand: the decoded value (as the
//! JSON of the re-encoded buffer) or the error class and path. Generation
//! replays the input with the generated Rust coders; the expected bytes are
//! what the Rust encoder writes, and only after the decoded value matches the
//! hand-written one. A hand-written error the Rust coders do not reproduce is
//! still written (the schema language says what is right, not the Rust
//! backend) and reported as a disagreement, so the Rust runner fails it.

use std::path::Path;

use flexbuf::typed::typed_builder_options;
use flexbuf::{Builder, FlexCoder};

use crate::cases::{hex, replay, Case, CaseFile, ErrorClass, Expect, ExpectedError, Outcome};
use crate::typed::{arrays, defects, evolution_v1 as evo1, evolution_v2 as evo2};

const ARRAYS: &str = "typed/schemas/arrays.fxs";
const DEFECTS: &str = "typed/schemas/defects.fxs";
const EVO1: &str = "typed/schemas/evolution_v1.fxs";
const EVO2: &str = "typed/schemas/evolution_v2.fxs";

/// Where a case's input comes from.
enum Input {
    /// `flexbuf::from_json` of this text.
    Json(String),
    /// Bytes made by a generated encoder (`encoder NS.Type`) or the builder.
    Bytes { source: String, bytes: Vec<u8> },
    /// `from_json` of `conformance/fixtures/<stem>.json`, kept as files.
    Fixture(&'static str),
}

/// What a case expects.
enum Want {
    /// Decodes; the re-encoded buffer holds this JSON.
    Value(String),
    /// Decodes (fixtures: the value is the fixture itself, not restated).
    Decodes,
    /// Decodes and re-encodes to exactly the input (typed-encoder inputs).
    SameBytes,
    /// Fails with this class at this path.
    Error(ErrorClass, &'static str),
    /// The verifier rejects the input.
    Invalid,
}

struct Def {
    name: String,
    description: String,
    schema: String,
    ty: &'static str,
    input: Input,
    want: Want,
}

/// Cases of one type of one schema.
struct Group<'a> {
    prefix: String,
    schema: String,
    ty: &'static str,
    out: &'a mut Vec<Def>,
}

impl Group<'_> {
    fn push(&mut self, name: &str, description: &str, input: Input, want: Want) {
        self.out.push(Def {
            name: format!("{}/{name}", self.prefix),
            description: description.into(),
            schema: self.schema.clone(),
            ty: self.ty,
            input,
            want,
        });
    }

    fn json(&mut self, name: &str, description: &str, json: &str, want: Want) {
        self.push(name, description, Input::Json(json.into()), want);
    }

    fn encoded<T: FlexCoder>(
        &mut self,
        name: &str,
        description: &str,
        by: &str,
        value: &T,
        want: Want,
    ) {
        let bytes = value.to_flex().expect("generated encoder");
        let source = format!("encoder {by}");
        self.push(name, description, Input::Bytes { source, bytes }, want);
    }

    fn built(&mut self, name: &str, description: &str, bytes: Vec<u8>, want: Want) {
        let source = "builder".to_string();
        self.push(name, description, Input::Bytes { source, bytes }, want);
    }
}

fn group<'a>(out: &'a mut Vec<Def>, prefix: &str, schema: &str, ty: &'static str) -> Group<'a> {
    Group {
        prefix: prefix.into(),
        schema: schema.into(),
        ty,
        out,
    }
}

fn value(json: &str) -> Want {
    Want::Value(json.into())
}

fn err(kind: ErrorClass, path: &'static str) -> Want {
    Want::Error(kind, path)
}

use ErrorClass::{Enum, Missing, Null, Range, Type, Union};

// ---- defects.fxs ---------------------------------------------------------------

fn explicit_null(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/explicit-null", DEFECTS, "defects.Profile");
    g.json(
        "all-null",
        "explicit null in optional fields with non-null defaults stays null",
        r#"{"id":1,"nickname":null,"age":null,"note":null,"score":null,"active":null,"tint":null}"#,
        value(r#"{"active":null,"age":null,"id":1,"nickname":null,"note":null,"score":null,"tint":null}"#),
    );
    g.json(
        "all-absent",
        "absent optional fields take their defaults (null when none is declared)",
        r#"{"id":1}"#,
        value(
            r#"{"active":true,"age":18,"id":1,"nickname":"anon","note":null,"score":1.5,"tint":2}"#,
        ),
    );
    g.json(
        "mixed",
        "null and absence side by side: nickname null stays null, age absent becomes 18",
        r#"{"id":7,"nickname":null,"score":null,"active":false}"#,
        value(
            r#"{"active":false,"age":18,"id":7,"nickname":null,"note":null,"score":null,"tint":2}"#,
        ),
    );
    g.json(
        "zero-values",
        "zero, false and empty values are values, not absence",
        r#"{"id":0,"nickname":"","age":0,"note":"","score":0.0,"active":false,"tint":1}"#,
        value(r#"{"active":false,"age":0,"id":0,"nickname":"","note":"","score":0.0,"tint":1}"#),
    );
    g.json(
        "set",
        "set values are kept",
        r#"{"id":4294967295,"nickname":"bo","age":-3,"note":"hi","score":2.25,"active":true,"tint":4}"#,
        value(r#"{"active":true,"age":-3,"id":4294967295,"nickname":"bo","note":"hi","score":2.25,"tint":4}"#),
    );
    g.json(
        "null-in-required",
        "null in a required, non-optional field is an error",
        r#"{"id":null}"#,
        err(Null, "$.id"),
    );
    g.json(
        "required-absent",
        "a required field without a value is an error even when the others are set",
        r#"{"nickname":"x","age":1}"#,
        err(Missing, "$.id"),
    );
    g.encoded(
        "typed-encoder-null",
        "the typed encoder writes null for None, and it decodes back to None",
        "defects.Profile",
        &defects::Profile {
            id: 9,
            nickname: None,
            age: None,
            note: None,
            score: None,
            active: None,
            tint: None,
        },
        value(r#"{"active":null,"age":null,"id":9,"nickname":null,"note":null,"score":null,"tint":null}"#),
    );
}

fn missing_required(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/missing-required", DEFECTS, "defects.Address");
    g.json(
        "valid",
        "both required fields present",
        r#"{"street":"Main St","zip":"12345"}"#,
        value(r#"{"street":"Main St","zip":"12345"}"#),
    );
    g.json(
        "only-zip",
        "street absent: an error at $.street, never zip's value",
        r#"{"zip":"12345"}"#,
        err(Missing, "$.street"),
    );
    g.json(
        "only-street",
        "zip absent: an error at $.zip",
        r#"{"street":"Main St"}"#,
        err(Missing, "$.zip"),
    );
    g.json(
        "street-would-read-zip",
        "keys [zip, zz]: by position street would read zip's value (the street=Zip defect)",
        r#"{"zip":"12345","zz":"x"}"#,
        err(Missing, "$.street"),
    );
    g.json(
        "renamed-key-same-count",
        "keys [street2, zip]: same count, different names; street2 is not street",
        r#"{"street2":"Main St","zip":"12345"}"#,
        err(Missing, "$.street"),
    );
    g.json(
        "neighbour-key",
        "keys [city, zip]: by position street would read city's value",
        r#"{"city":"Springfield","zip":"12345"}"#,
        err(Missing, "$.street"),
    );
    g.json(
        "empty",
        "both absent: the first field in wire order is reported",
        r#"{}"#,
        err(Missing, "$.street"),
    );
    g.json(
        "extra-keys",
        "unknown keys around the known ones are skipped and not re-encoded",
        r#"{"country":"NL","street":"Main St","note":null,"zip":"12345","zzz":[1,2]}"#,
        value(r#"{"street":"Main St","zip":"12345"}"#),
    );
    g.json(
        "same-keys-wrong-type-first",
        "the keys are exactly the expected ones but street holds an int: a type error, not a value",
        r#"{"street":42,"zip":"12345"}"#,
        err(Type, "$.street"),
    );
    g.json(
        "same-keys-wrong-type-second",
        "the keys are exactly the expected ones but zip holds an int",
        r#"{"street":"Main St","zip":12345}"#,
        err(Type, "$.zip"),
    );
    g.json(
        "same-keys-null",
        "null in a required field",
        r#"{"street":null,"zip":"12345"}"#,
        err(Null, "$.street"),
    );
    g.json(
        "root-not-a-map",
        "a vector of the two strings is not an Address",
        r#"["Main St","12345"]"#,
        err(Type, "$"),
    );
    let mut b = Builder::new();
    b.start_map();
    b.key("street");
    b.blob(b"Main St");
    b.key("zip");
    b.string("12345");
    b.end_map().expect("map");
    g.built(
        "blob-for-string",
        "a blob where a string field is expected is a type error",
        b.finish_vec().expect("finish"),
        err(Type, "$.street"),
    );
}

fn layout_fallback(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/layout-fallback", DEFECTS, "defects.Contact");
    g.json(
        "same-count-other-name",
        "keys [email, phone2]: phone takes its default, never phone2's value",
        r#"{"email":"a@b.c","phone2":"555"}"#,
        value(r#"{"email":"a@b.c","phone":"none"}"#),
    );
    g.json(
        "same-count-first-renamed",
        "keys [e, phone]: email takes its default, phone is found by key",
        r#"{"e":"x","phone":"555"}"#,
        value(r#"{"email":"","phone":"555"}"#),
    );
    g.json(
        "extra-keys",
        "extra keys before, between and after the known ones",
        r#"{"a":1,"email":"a@b.c","m":true,"phone":"555","z":null}"#,
        value(r#"{"email":"a@b.c","phone":"555"}"#),
    );
    g.json(
        "fewer-keys",
        "one known key only",
        r#"{"phone":"555"}"#,
        value(r#"{"email":"","phone":"555"}"#),
    );
    g.json(
        "same-keys-wrong-type",
        "exact keys, phone holds a float: a type error at $.phone",
        r#"{"email":"a@b.c","phone":5.5}"#,
        err(Type, "$.phone"),
    );
}

fn empty_maps(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/empty-map", DEFECTS, "defects.Settings");
    g.json(
        "settings-empty",
        "{} is valid when every field is optional or defaulted",
        r#"{}"#,
        value(r#"{"color":1,"limits":{},"muted":false,"nickname":null,"ratio":0.5,"tags":[],"theme":"light","volume":5}"#),
    );
    g.json(
        "settings-empty-containers",
        "empty vector and empty map values decode",
        r#"{"tags":[],"limits":{}}"#,
        value(r#"{"color":1,"limits":{},"muted":false,"nickname":null,"ratio":0.5,"tags":[],"theme":"light","volume":5}"#),
    );
    g.encoded(
        "settings-typed-default",
        "the typed encoding of the default value decodes to it",
        "defects.Settings",
        &defects::Settings::default(),
        value(r#"{"color":1,"limits":{},"muted":false,"nickname":null,"ratio":0.5,"tags":[],"theme":"light","volume":5}"#),
    );
    let mut g = group(out, "defects/empty-map", DEFECTS, "defects.Empty");
    g.json(
        "no-fields",
        "a message without fields decodes from {}",
        r#"{}"#,
        value(r#"{}"#),
    );
    g.json(
        "no-fields-extra-keys",
        "unknown keys are skipped for a message without fields too",
        r#"{"x":1,"y":[]}"#,
        value(r#"{}"#),
    );
    g.encoded(
        "no-fields-typed",
        "the typed encoding of a message without fields (an empty keys vector)",
        "defects.Empty",
        &defects::Empty {},
        value(r#"{}"#),
    );
    g.json(
        "not-a-map",
        "a null root is not a message",
        r#"null"#,
        err(Type, "$"),
    );
}

fn enums(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/enum", DEFECTS, "defects.Canvas");
    g.json(
        "valid",
        "every enum and union position set",
        r#"{"color":4,"level":-1,"tint":null,"palette":[1,2,4],"shape":{"Circle":{"radius":1.5}},"shapes":[{"square":{"side":3}},{"Label":"hi"}],"layers":{"bg":{"Label":"sky"},"fg":{"Circle":{"radius":2.0}}}}"#,
        value(r#"{"color":4,"layers":{"bg":{"Label":"sky"},"fg":{"Circle":{"radius":2.0}}},"level":-1,"palette":[1,2,4],"shape":{"Circle":{"radius":1.5}},"shapes":[{"square":{"side":3}},{"Label":"hi"}],"tint":null}"#),
    );
    g.json(
        "defaults",
        "absent enums take the first variant, or the declared default",
        r#"{}"#,
        value(r#"{"color":1,"layers":{},"level":1,"palette":[],"shape":null,"shapes":[],"tint":null}"#),
    );
    g.json(
        "unknown-value",
        "3 is not a Color",
        r#"{"color":3}"#,
        err(Enum, "$.color"),
    );
    g.json(
        "zero-not-a-variant",
        "0 is not a Color (its first variant is 1)",
        r#"{"tint":0}"#,
        err(Enum, "$.tint"),
    );
    g.json(
        "negative-unknown",
        "-2 is not a Level",
        r#"{"level":-2}"#,
        err(Enum, "$.level"),
    );
    g.json(
        "beyond-underlying-type",
        "257 does not fit Color's u8: still an enum error, not a range error",
        r#"{"color":257}"#,
        err(Enum, "$.color"),
    );
    g.json(
        "in-vector",
        "an unknown value inside a vector of enums names its index",
        r#"{"palette":[1,2,5]}"#,
        err(Enum, "$.palette[2]"),
    );
    g.json(
        "as-string",
        "enums are written as integers; a variant name is a type error",
        r#"{"color":"Red"}"#,
        err(Type, "$.color"),
    );
    g.json(
        "null",
        "null in a non-optional enum",
        r#"{"color":null}"#,
        err(Null, "$.color"),
    );
    g.json(
        "float",
        "a float is not an enum value",
        r#"{"color":1.0}"#,
        err(Type, "$.color"),
    );
}

fn unions(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/union", DEFECTS, "defects.Canvas");
    g.json(
        "unknown-variant",
        "Triangle is not a variant of Shape",
        r#"{"shape":{"Triangle":{"side":1}}}"#,
        err(Union, "$.shape"),
    );
    g.json(
        "two-entries",
        "a union is a map of exactly one entry",
        r#"{"shape":{"Circle":{"radius":1.0},"Label":"x"}}"#,
        err(Union, "$.shape"),
    );
    g.json(
        "no-entries",
        "an empty map is not a union value",
        r#"{"shape":{}}"#,
        err(Union, "$.shape"),
    );
    g.json(
        "declared-name-not-wire-name",
        "Square's wire name is \"square\"; the declared name is unknown on the wire",
        r#"{"shape":{"Square":{"side":1}}}"#,
        err(Union, "$.shape"),
    );
    g.json(
        "not-a-map",
        "a string is not a union value",
        r#"{"shape":"Circle"}"#,
        err(Type, "$.shape"),
    );
    g.json(
        "in-vector",
        "a two-entry union inside a vector names its index",
        r#"{"shapes":[{"Label":"a"},{"Label":"b","square":{"side":2}}]}"#,
        err(Union, "$.shapes[1]"),
    );
    g.json(
        "null-in-vector",
        "null elements are not allowed in a vector of unions",
        r#"{"shapes":[null]}"#,
        err(Null, "$.shapes[0]"),
    );
    g.json(
        "in-map",
        "an unknown variant inside a map of unions names its key",
        r#"{"layers":{"fg":{"Hexagon":1}}}"#,
        err(Union, "$.layers.fg"),
    );
    g.json(
        "payload-missing-field",
        "an error inside the payload names the variant's wire name in the path",
        r#"{"shape":{"Circle":{}}}"#,
        err(Missing, "$.shape.Circle.radius"),
    );
    g.json(
        "payload-wrong-type",
        "a string variant holding an int",
        r#"{"shape":{"Label":5}}"#,
        err(Type, "$.shape.Label"),
    );
    g.json(
        "payload-range",
        "a u32 inside a union payload given -1",
        r#"{"shape":{"square":{"side":-1}}}"#,
        err(Range, "$.shape.square.side"),
    );
    let mut g = group(out, "defects/union", DEFECTS, "defects.Shape");
    g.json(
        "root",
        "a union as the root value",
        r#"{"square":{"side":7}}"#,
        value(r#"{"square":{"side":7}}"#),
    );
    g.json(
        "root-payload-error",
        "an error inside a root union's payload",
        r#"{"Circle":{"radius":"big"}}"#,
        err(Type, "$.Circle.radius"),
    );
}

/// An `Order` written with the builder and the typed keys vectors, so every
/// `Item` and `Seller` map shares the expected keys and decodes by position;
/// `bad` makes one field of item `bad.0` hold the wrong type.
fn built_order(bad: (usize, &str)) -> Vec<u8> {
    let mut b = Builder::with_options(typed_builder_options());
    let order_keys = b.key_vector(defects::Order::WIRE_KEYS).expect("keys");
    let item_keys = b.key_vector(defects::Item::WIRE_KEYS).expect("keys");
    let seller_keys = b.key_vector(defects::Seller::WIRE_KEYS).expect("keys");
    b.start_map();
    b.start_map();
    b.end_map().expect("by_sku");
    b.string("built");
    b.int(1);
    b.start_vector();
    for i in 0..3 {
        let broken = |field: &str| bad.0 == i && bad.1 == field;
        b.start_map();
        b.double(2.5); // price
        if broken("qty") {
            b.string("three");
        } else {
            b.uint(3);
        }
        b.start_map(); // seller
        b.uint(10 + i as u64);
        if broken("seller.name") {
            b.int(99);
        } else {
            b.string("Acme");
        }
        b.uint(5);
        b.end_map_with_keys(&seller_keys).expect("seller");
        b.string(&format!("sku-{i}"));
        b.start_vector();
        b.end_vector().expect("tags");
        b.end_map_with_keys(&item_keys).expect("item");
    }
    b.end_vector().expect("items");
    b.start_vector();
    b.end_vector().expect("matrix");
    b.start_vector();
    b.end_vector().expect("notes");
    b.start_map();
    b.end_map().expect("sellers");
    b.end_map_with_keys(&order_keys).expect("order");
    b.finish_vec().expect("finish")
}

const ITEM: &str =
    r#"{"sku":"a","qty":1,"price":1.25,"seller":{"id":1,"name":"Acme","rating":5},"tags":["x"]}"#;

fn nested_paths(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/nested", DEFECTS, "defects.Order");
    let valid = format!(
        r#"{{"id":1,"items":[{ITEM},{ITEM}],"by_sku":{{"a":{ITEM}}},"sellers":{{"s1":{{"id":2,"name":"Bolt"}}}},"matrix":[[1,2],[],[-3]],"notes":["n"],"display label":"Order 1"}}"#
    );
    let item_json = r#"{"price":1.25,"qty":1,"seller":{"id":1,"name":"Acme","rating":5},"sku":"a","tags":["x"]}"#;
    let want = format!(
        r#"{{"by_sku":{{"a":{item_json}}},"display label":"Order 1","id":1,"items":[{item_json},{item_json}],"matrix":[[1,2],[],[-3]],"notes":["n"],"sellers":{{"s1":{{"id":2,"name":"Bolt","rating":0}}}}}}"#
    );
    g.json(
        "valid",
        "vectors and maps of messages, a vector of vectors, a wire name with a space",
        &valid,
        value(&want),
    );
    let item_no_name = r#"{"sku":"d","seller":{"id":4}}"#;
    g.json(
        "items-3-seller-name",
        "a missing field four levels down names the whole path",
        &format!(r#"{{"id":1,"items":[{ITEM},{ITEM},{ITEM},{item_no_name}]}}"#),
        err(Missing, "$.items[3].seller.name"),
    );
    g.json(
        "items-1-qty-range",
        "a u16 given 70000",
        &format!(r#"{{"id":1,"items":[{ITEM},{{"sku":"b","qty":70000,"seller":{{"id":1,"name":"n"}}}}]}}"#),
        err(Range, "$.items[1].qty"),
    );
    g.json(
        "items-2-seller-missing",
        "a required message field absent",
        &format!(r#"{{"id":1,"items":[{ITEM},{ITEM},{{"sku":"c"}}]}}"#),
        err(Missing, "$.items[2].seller"),
    );
    g.json(
        "items-0-seller-null",
        "null in a required message field",
        r#"{"id":1,"items":[{"sku":"a","seller":null}]}"#,
        err(Null, "$.items[0].seller"),
    );
    g.json(
        "items-1-price-type",
        "a string in an f64 field",
        &format!(r#"{{"id":1,"items":[{ITEM},{{"sku":"b","price":"cheap","seller":{{"id":1,"name":"n"}}}}]}}"#),
        err(Type, "$.items[1].price"),
    );
    g.json(
        "price-int-accepted",
        "an integer in an f64 field is accepted and re-encoded as a float",
        r#"{"id":2,"items":[{"sku":"a","price":3,"seller":{"id":1,"name":"n"}}]}"#,
        value(r#"{"by_sku":{},"display label":"","id":2,"items":[{"price":3.0,"qty":0,"seller":{"id":1,"name":"n","rating":0},"sku":"a","tags":[]}],"matrix":[],"notes":[],"sellers":{}}"#),
    );
    g.json(
        "items-0-tags-1-type",
        "an int in a vector of strings",
        r#"{"id":1,"items":[{"sku":"a","seller":{"id":1,"name":"n"},"tags":["x",2]}]}"#,
        err(Type, "$.items[0].tags[1]"),
    );
    g.json(
        "by-sku-rating-range",
        "a u8 given 300 inside a map of messages",
        r#"{"id":1,"by_sku":{"abc":{"sku":"abc","seller":{"id":1,"name":"n","rating":300}}}}"#,
        err(Range, "$.by_sku.abc.seller.rating"),
    );
    g.json(
        "by-sku-quoted-key",
        "a map key that is not an identifier is quoted in the path",
        r#"{"id":1,"by_sku":{"sku 9":{"seller":{"id":1,"name":"n"}}}}"#,
        err(Missing, "$.by_sku[\"sku 9\"].sku"),
    );
    g.json(
        "sellers-id-negative",
        "a u64 given -1",
        r#"{"id":1,"sellers":{"s1":{"id":-1,"name":"n"}}}"#,
        err(Range, "$.sellers.s1.id"),
    );
    g.json(
        "matrix-1-2-type",
        "a string inside a vector of vectors of i32",
        r#"{"id":1,"matrix":[[1],[2,3,"x"]]}"#,
        err(Type, "$.matrix[1][2]"),
    );
    g.json(
        "matrix-0-0-float",
        "a float inside a vector of i32",
        r#"{"id":1,"matrix":[[1.5]]}"#,
        err(Type, "$.matrix[0][0]"),
    );
    g.json(
        "matrix-0-null",
        "null in a vector of vectors",
        r#"{"id":1,"matrix":[null]}"#,
        err(Null, "$.matrix[0]"),
    );
    g.json(
        "notes-1-null",
        "null in a vector of strings",
        r#"{"id":1,"notes":["a",null]}"#,
        err(Null, "$.notes[1]"),
    );
    g.json(
        "notes-map-for-vector",
        "a map where a vector of strings is expected is a type error, not its values",
        r#"{"id":1,"notes":{"a":"x","b":"y"}}"#,
        err(Type, "$.notes"),
    );
    g.json(
        "matrix-map-for-vector",
        "a map where a vector of vectors of i32 is expected",
        r#"{"id":1,"matrix":{"a":[1]}}"#,
        err(Type, "$.matrix"),
    );
    g.json(
        "items-vector-for-map",
        "a vector where a map of messages is expected",
        r#"{"id":1,"by_sku":[]}"#,
        err(Type, "$.by_sku"),
    );
    g.json(
        "quoted-wire-name",
        "a wire name with a space is quoted in the path",
        r#"{"id":1,"display label":5}"#,
        err(Type, "$[\"display label\"]"),
    );
    g.json(
        "first-error-in-wire-order",
        "with several errors, the first field in wire order (by_sku < display label < id < items) is reported",
        r#"{"items":[{"qty":1}]}"#,
        err(Missing, "$.id"),
    );
    g.built(
        "shared-keys-seller-name-type",
        "every Seller map shares the expected keys vector (positional decode); items[1].seller.name holds an int",
        built_order((1, "seller.name")),
        err(Type, "$.items[1].seller.name"),
    );
    g.built(
        "shared-keys-qty-type",
        "every Item map shares the expected keys vector; items[2].qty holds a string",
        built_order((2, "qty")),
        err(Type, "$.items[2].qty"),
    );
    g.built(
        "shared-keys-valid",
        "the same builder layout with every field well typed",
        built_order((usize::MAX, "")),
        value(r#"{"by_sku":{},"display label":"built","id":1,"items":[{"price":2.5,"qty":3,"seller":{"id":10,"name":"Acme","rating":5},"sku":"sku-0","tags":[]},{"price":2.5,"qty":3,"seller":{"id":11,"name":"Acme","rating":5},"sku":"sku-1","tags":[]},{"price":2.5,"qty":3,"seller":{"id":12,"name":"Acme","rating":5},"sku":"sku-2","tags":[]}],"matrix":[],"notes":[],"sellers":{}}"#),
    );
}

fn ranges(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/range", DEFECTS, "defects.Ranges");
    g.json(
        "extremes",
        "the extreme values of every integer type fit",
        r#"{"u8v":255,"i8v":-128,"u16v":65535,"i16v":-32768,"u32v":4294967295,"i32v":-2147483648,"u64v":18446744073709551615,"i64v":-9223372036854775808}"#,
        value(r#"{"data":"","f32v":0.0,"f64v":0.0,"flag":false,"i16v":-32768,"i32v":-2147483648,"i64v":-9223372036854775808,"i8v":-128,"u16v":65535,"u32v":4294967295,"u64v":18446744073709551615,"u8v":255}"#),
    );
    g.json(
        "other-extremes",
        "the other extremes",
        r#"{"i8v":127,"i16v":32767,"i32v":2147483647,"i64v":9223372036854775807}"#,
        value(r#"{"data":"","f32v":0.0,"f64v":0.0,"flag":false,"i16v":32767,"i32v":2147483647,"i64v":9223372036854775807,"i8v":127,"u16v":0,"u32v":0,"u64v":0,"u8v":0}"#),
    );
    let over: &[(&str, &str, &str, &str)] = &[
        ("u8-300", "a u8 given 300", r#"{"u8v":300}"#, "$.u8v"),
        ("u8-negative", "a u8 given -1", r#"{"u8v":-1}"#, "$.u8v"),
        ("i8-128", "an i8 given 128", r#"{"i8v":128}"#, "$.i8v"),
        (
            "i8-minus-129",
            "an i8 given -129",
            r#"{"i8v":-129}"#,
            "$.i8v",
        ),
        (
            "u16-65536",
            "a u16 given 65536",
            r#"{"u16v":65536}"#,
            "$.u16v",
        ),
        (
            "i16-32768",
            "an i16 given 32768",
            r#"{"i16v":32768}"#,
            "$.i16v",
        ),
        (
            "u32-2-pow-32",
            "a u32 given 2^32",
            r#"{"u32v":4294967296}"#,
            "$.u32v",
        ),
        ("u32-negative", "a u32 given -1", r#"{"u32v":-1}"#, "$.u32v"),
        (
            "i32-2-pow-31",
            "an i32 given 2^31",
            r#"{"i32v":2147483648}"#,
            "$.i32v",
        ),
        (
            "i32-below-min",
            "an i32 given -2^31-1",
            r#"{"i32v":-2147483649}"#,
            "$.i32v",
        ),
        ("u64-negative", "a u64 given -1", r#"{"u64v":-1}"#, "$.u64v"),
        (
            "i64-2-pow-63",
            "an i64 given 2^63 (stored as a uint)",
            r#"{"i64v":9223372036854775808}"#,
            "$.i64v",
        ),
    ];
    for &(name, description, json, path) in over {
        g.json(name, description, json, err(Range, path));
    }
    g.json(
        "int-field-float",
        "a whole float in an integer field is a type error, not a conversion",
        r#"{"i32v":1.0}"#,
        err(Type, "$.i32v"),
    );
    g.json(
        "int-field-bool",
        "a bool in an integer field",
        r#"{"u8v":true}"#,
        err(Type, "$.u8v"),
    );
    g.json(
        "bool-field-int",
        "an int in a bool field",
        r#"{"flag":1}"#,
        err(Type, "$.flag"),
    );
    g.json(
        "bool-field-null",
        "null in a bool field",
        r#"{"flag":null}"#,
        err(Null, "$.flag"),
    );
    g.json(
        "floats",
        "an int in f64 becomes a float; f32 keeps single precision (0.1 widens to 0.10000000149011612)",
        r#"{"f64v":7,"f32v":0.1}"#,
        value(r#"{"data":"","f32v":0.10000000149011612,"f64v":7.0,"flag":false,"i16v":0,"i32v":0,"i64v":0,"i8v":0,"u16v":0,"u32v":0,"u64v":0,"u8v":0}"#),
    );
    g.json(
        "f32-overflow",
        "a finite double beyond f32's range is an error in an f32 field, not an infinity",
        r#"{"f32v":1e39}"#,
        err(Range, "$.f32v"),
    );
    g.json(
        "f32-negative-overflow",
        "the same below f32's range",
        r#"{"f32v":-1e39}"#,
        err(Range, "$.f32v"),
    );
    g.json(
        "bytes-field-int",
        "an int in a bytes field",
        r#"{"data":1}"#,
        err(Type, "$.data"),
    );
    g.encoded(
        "bytes-blob",
        "a blob in a bytes field (JSON shows it as base64)",
        "defects.Ranges",
        &defects::Ranges {
            data: vec![0, 1, 2, 255],
            flag: true,
            ..Default::default()
        },
        value(r#"{"data":"AAEC/w==","f32v":0.0,"f64v":0.0,"flag":true,"i16v":0,"i32v":0,"i64v":0,"i8v":0,"u16v":0,"u32v":0,"u64v":0,"u8v":0}"#),
    );
}

fn vectors(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/vectors", DEFECTS, "defects.Vectors");
    g.json(
        "from-json",
        "untyped vectors from JSON re-encode as typed vectors of each scalar type",
        r#"{"bools":[true,false,true],"u8s":[0,255],"i16s":[-300,300],"u32s":[70000],"i64s":[-1,4294967296],"u64s":[18446744073709551615],"f32s":[0.5,-1.25],"f64s":[0.1,2],"colors":[4,1],"blobs":[]}"#,
        value(r#"{"blobs":[],"bools":[true,false,true],"colors":[4,1],"f32s":[0.5,-1.25],"f64s":[0.1,2.0],"i16s":[-300,300],"i64s":[-1,4294967296],"u32s":[70000],"u64s":[18446744073709551615],"u8s":[0,255]}"#),
    );
    g.encoded(
        "typed",
        "the typed encoder's vectors, including blobs and a 300-element u8 vector (wider than its length byte)",
        "defects.Vectors",
        &defects::Vectors {
            bools: vec![false],
            u8s: (0..300).map(|i| (i % 256) as u8).collect(),
            i16s: vec![i16::MIN, i16::MAX],
            u32s: vec![],
            i64s: vec![i64::MIN],
            u64s: vec![u64::MAX, 0],
            f32s: vec![f32::MAX],
            f64s: vec![1e300, -0.0],
            colors: vec![defects::Color::Green],
            blobs: vec![vec![], vec![0xde, 0xad]],
        },
        Want::SameBytes,
    );
    g.json(
        "u8-element-range",
        "an element beyond u8",
        r#"{"u8s":[1,2,256]}"#,
        err(Range, "$.u8s[2]"),
    );
    g.json(
        "u64-element-negative",
        "a negative element in a u64 vector",
        r#"{"u64s":[1,-1]}"#,
        err(Range, "$.u64s[1]"),
    );
    g.json(
        "bool-element-type",
        "an int in a bool vector",
        r#"{"bools":[true,0]}"#,
        err(Type, "$.bools[1]"),
    );
    g.json(
        "f32-element-type",
        "a string in an f32 vector",
        r#"{"f32s":[1.0,"x"]}"#,
        err(Type, "$.f32s[1]"),
    );
    g.json(
        "f32-element-range",
        "an f32 vector element beyond f32's range is an error naming its index",
        r#"{"f32s":[1.0,1e300]}"#,
        err(Range, "$.f32s[1]"),
    );
    g.json(
        "null-element",
        "null in a vector of i64",
        r#"{"i64s":[1,null]}"#,
        err(Null, "$.i64s[1]"),
    );
    g.json(
        "enum-element",
        "an unknown value in a vector of enums",
        r#"{"colors":[1,8]}"#,
        err(Enum, "$.colors[1]"),
    );
}

fn invalid(out: &mut Vec<Def>) {
    let mut g = group(out, "defects/invalid", DEFECTS, "defects.Address");
    let valid = flexbuf::from_json(r#"{"street":"Main St","zip":"12345"}"#).expect("json");
    g.built(
        "truncated",
        "the valid Address buffer without its first byte: the verifier rejects it",
        valid[1..].to_vec(),
        Want::Invalid,
    );
    g.built("empty-input", "zero bytes", Vec::new(), Want::Invalid);
}

// ---- arrays.fxs -----------------------------------------------------------------

/// A `Body` with every array set to values that need each element's full range.
fn full_body() -> arrays::Body {
    arrays::Body {
        pos: [1.5, -2.0, 0.25],
        uuid: [1, 2, 3, u32::MAX],
        span: [i16::MIN, i16::MAX],
        quat: [0.0, 0.0, -0.5, 1e300],
        level: [255],
        matrix: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        flags: [true, false],
        tint: Some([1, 2, 3]),
        big: [i64::MIN, 1],
        ubig: [u64::MAX, 0, 1],
        small: [-128, 0, 127],
    }
}

fn arrays(out: &mut Vec<Def>) {
    let mut g = group(out, "arrays/body", ARRAYS, "arrays.Body");
    g.encoded(
        "encoder",
        "the typed encoder's arrays: fixed typed vectors at the element's natural width for 2 to 4 numbers, typed vectors for 1 and 9 elements and for bools",
        "arrays.Body",
        &full_body(),
        Want::SameBytes,
    );
    g.json(
        "from-json",
        "untyped vectors (as an older writer or `[T]` would leave them) decode and re-encode as fixed or typed vectors",
        r#"{"pos":[1,2.5,3],"uuid":[1,2,3,4],"span":[-1,1],"quat":[1,2,3,4],"level":[9],"matrix":[1,2,3,4,5,6,7,8,9],"flags":[false,true],"tint":[7,8,9],"big":[-1,4294967296],"ubig":[18446744073709551615,1,2],"small":[-1,0,1]}"#,
        value(r#"{"big":[-1,4294967296],"flags":[false,true],"level":[9],"matrix":[1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0,9.0],"pos":[1.0,2.5,3.0],"quat":[1.0,2.0,3.0,4.0],"small":[-1,0,1],"span":[-1,1],"tint":[7,8,9],"ubig":[18446744073709551615,1,2],"uuid":[1,2,3,4]}"#),
    );
    let mut b = Builder::new();
    b.start_map();
    b.key("uuid");
    b.typed_vector(&[5u8, 6, 7, 8]);
    b.key("pos");
    b.typed_vector(&[0.5f64, 1.0, 2.0]);
    b.key("level");
    b.fixed_vector(&[1u16, 2]).expect("fixed vector");
    b.end_map().expect("end map");
    g.built(
        "other-vector-kinds",
        "typed vectors of another element width and a fixed vector of another length are read as vectors: the 2-element fixed vector is too long for `level`",
        b.finish_vec().expect("finish"),
        err(Type, "$.level"),
    );
    let mut b = Builder::new();
    b.start_map();
    b.key("uuid");
    b.typed_vector(&[5u8, 6, 7, 8]);
    b.key("pos");
    b.typed_vector(&[0.5f64, 1.0, 2.0]);
    b.key("span");
    b.fixed_vector(&[-7i64, 7]).expect("fixed vector");
    b.end_map().expect("end map");
    g.built(
        "widened-and-narrowed",
        "a typed vector of u8 for `[u32; 4]`, of f64 for `[f32; 3]` and a fixed vector of i64 for `[i16; 2]` convert element by element",
        b.finish_vec().expect("finish"),
        value(r#"{"big":[0,0],"flags":[false,false],"level":[0],"matrix":[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0],"pos":[0.5,1.0,2.0],"quat":[0.0,0.0,0.0,0.0],"small":[0,0,0],"span":[-7,7],"tint":null,"ubig":[0,0,0],"uuid":[5,6,7,8]}"#),
    );
    g.json(
        "absent",
        "absent arrays are zeros (null for the optional one)",
        r#"{"uuid":[1,2,3,4]}"#,
        value(r#"{"big":[0,0],"flags":[false,false],"level":[0],"matrix":[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0],"pos":[0.0,0.0,0.0],"quat":[0.0,0.0,0.0,0.0],"small":[0,0,0],"span":[0,0],"tint":null,"ubig":[0,0,0],"uuid":[1,2,3,4]}"#),
    );
    g.json(
        "explicit-null",
        "null in the optional array stays null",
        r#"{"uuid":[1,2,3,4],"tint":null}"#,
        value(r#"{"big":[0,0],"flags":[false,false],"level":[0],"matrix":[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0],"pos":[0.0,0.0,0.0],"quat":[0.0,0.0,0.0,0.0],"small":[0,0,0],"span":[0,0],"tint":null,"ubig":[0,0,0],"uuid":[1,2,3,4]}"#),
    );
    g.json(
        "missing-required",
        "the required array is absent",
        "{}",
        err(Missing, "$.uuid"),
    );
    g.json(
        "too-short",
        "three elements for `[u32; 4]`",
        r#"{"uuid":[1,2,3]}"#,
        err(Type, "$.uuid"),
    );
    g.json(
        "too-long",
        "four elements for `[f32; 3]`",
        r#"{"uuid":[1,2,3,4],"pos":[1,2,3,4]}"#,
        err(Type, "$.pos"),
    );
    g.json(
        "empty",
        "no elements for `[u8; 1]`",
        r#"{"uuid":[1,2,3,4],"level":[]}"#,
        err(Type, "$.level"),
    );
    g.json(
        "element-range",
        "an element beyond u32",
        r#"{"uuid":[1,2,3,4294967296]}"#,
        err(Range, "$.uuid[3]"),
    );
    g.json(
        "element-type",
        "a string in an f32 array",
        r#"{"uuid":[1,2,3,4],"pos":[1,"x",3]}"#,
        err(Type, "$.pos[1]"),
    );
    g.json(
        "element-null",
        "null in an array",
        r#"{"uuid":[1,2,null,4]}"#,
        err(Null, "$.uuid[2]"),
    );
    g.json(
        "field-null",
        "null for an array that is not optional",
        r#"{"uuid":[1,2,3,4],"pos":null}"#,
        err(Null, "$.pos"),
    );
    g.json(
        "not-a-vector",
        "a number for an array",
        r#"{"uuid":[1,2,3,4],"pos":5}"#,
        err(Type, "$.pos"),
    );
    g.json(
        "map-for-array",
        "a map of four values for an array (a map reads as the vector of its values elsewhere)",
        r#"{"uuid":{"a":1,"b":2,"c":3,"d":4}}"#,
        err(Type, "$.uuid"),
    );

    let mut g = group(out, "arrays/track", ARRAYS, "arrays.Track");
    g.encoded(
        "encoder",
        "arrays as vector elements, map values and a union payload",
        "arrays.Track",
        &arrays::Track {
            points: vec![[1.0, 2.0], [-3.5, 4.0]],
            marks: [("a".to_string(), [1, -2, 3]), ("b".to_string(), [0, 0, 0])]
                .into_iter()
                .collect(),
            anchor: Some(arrays::Anchor::At([0.5, 0.25])),
        },
        Want::SameBytes,
    );
    g.json(
        "element-length",
        "a vector element of the wrong length",
        r#"{"points":[[1,2],[3]]}"#,
        err(Type, "$.points[1]"),
    );
    g.json(
        "map-value-length",
        "a map value of the wrong length",
        r#"{"marks":{"a":[1,2]}}"#,
        err(Type, "$.marks.a"),
    );
    g.json(
        "union-payload-length",
        "a union payload of the wrong length",
        r#"{"anchor":{"At":[1,2,3]}}"#,
        err(Type, "$.anchor.At"),
    );
    let mut g = group(out, "arrays/wide", ARRAYS, "arrays.Wide");
    g.encoded(
        "encoder",
        "a 40-element array: a typed vector",
        "arrays.Wide",
        &arrays::Wide {
            samples: core::array::from_fn(|i| (i * 1000) as u16),
        },
        Want::SameBytes,
    );
    let zeros = vec!["0"; 40].join(",");
    g.json(
        "absent",
        "an absent 40-element array is 40 zeros",
        "{}",
        Want::Value(format!(r#"{{"samples":[{zeros}]}}"#)),
    );
}

// ---- evolution ----------------------------------------------------------------

fn evolution(out: &mut Vec<Def>) {
    let mut g = group(out, "evolution/add-optional", EVO2, "evo2.AddOptional");
    g.encoded(
        "v1-to-v2",
        "fields added in v2 are absent from v1 data and take their defaults",
        "evo1.AddOptional",
        &evo1::AddOptional { id: 5 },
        value(r#"{"count":7,"id":5,"nickname":"new","note":null}"#),
    );
    let mut g = group(out, "evolution/add-optional", EVO1, "evo1.AddOptional");
    g.encoded(
        "v2-to-v1",
        "fields v1 does not know are skipped",
        "evo2.AddOptional",
        &evo2::AddOptional {
            id: 5,
            nickname: None,
            count: 9,
            note: Some("x".into()),
        },
        value(r#"{"id":5}"#),
    );

    let mut g = group(out, "evolution/add-required", EVO2, "evo2.AddRequired");
    g.encoded(
        "v1-to-v2",
        "a field required in v2 is missing from v1 data",
        "evo1.AddRequired",
        &evo1::AddRequired { id: 3 },
        err(Missing, "$.owner"),
    );
    let mut g = group(out, "evolution/add-required", EVO1, "evo1.AddRequired");
    g.encoded(
        "v2-to-v1",
        "v1 ignores the new required field",
        "evo2.AddRequired",
        &evo2::AddRequired {
            id: 3,
            owner: "ann".into(),
        },
        value(r#"{"id":3}"#),
    );

    let mut g = group(out, "evolution/remove-field", EVO2, "evo2.RemoveField");
    g.encoded(
        "v1-to-v2",
        "the removed field is skipped",
        "evo1.RemoveField",
        &evo1::RemoveField {
            id: 1,
            legacy: "old".into(),
        },
        value(r#"{"id":1}"#),
    );
    let mut g = group(out, "evolution/remove-field", EVO1, "evo1.RemoveField");
    g.encoded(
        "v2-to-v1",
        "v1 reads its field as absent: the zero value",
        "evo2.RemoveField",
        &evo2::RemoveField { id: 1 },
        value(r#"{"id":1,"legacy":""}"#),
    );

    let mut g = group(out, "evolution/rename", EVO2, "evo2.Rename");
    g.encoded(
        "v1-to-v2",
        "v2's name has wire name title: it reads v1's title (same bytes out)",
        "evo1.Rename",
        &evo1::Rename {
            title: "Dune".into(),
            year: 1965,
        },
        value(r#"{"title":"Dune","year":1965}"#),
    );
    let mut g = group(out, "evolution/rename", EVO1, "evo1.Rename");
    g.encoded(
        "v2-to-v1",
        "and v1 reads v2's name as title",
        "evo2.Rename",
        &evo2::Rename {
            name: "Emma".into(),
            year: 1815,
        },
        value(r#"{"title":"Emma","year":1815}"#),
    );

    let mut g = group(out, "evolution/reorder", EVO2, "evo2.Reorder");
    g.encoded(
        "v1-to-v2",
        "declaration order does not change the wire layout (same bytes out)",
        "evo1.Reorder",
        &evo1::Reorder {
            a: -1,
            b: "bee".into(),
            c: true,
        },
        value(r#"{"a":-1,"b":"bee","c":true}"#),
    );
    let mut g = group(out, "evolution/reorder", EVO1, "evo1.Reorder");
    g.encoded(
        "v2-to-v1",
        "the other direction",
        "evo2.Reorder",
        &evo2::Reorder {
            c: false,
            a: 2,
            b: "b".into(),
        },
        value(r#"{"a":2,"b":"b","c":false}"#),
    );

    let mut g = group(out, "evolution/widen", EVO2, "evo2.Widen");
    g.encoded(
        "v1-to-v2",
        "i32 data reads as i64, scalars and vectors",
        "evo1.Widen",
        &evo1::Widen {
            count: i32::MIN,
            samples: vec![1, -2, i32::MAX],
        },
        value(r#"{"count":-2147483648,"samples":[1,-2,2147483647]}"#),
    );
    let mut g = group(out, "evolution/widen", EVO1, "evo1.Widen");
    g.encoded(
        "v2-to-v1-fits",
        "i64 data that fits reads as i32",
        "evo2.Widen",
        &evo2::Widen {
            count: 42,
            samples: vec![-7, 7],
        },
        value(r#"{"count":42,"samples":[-7,7]}"#),
    );
    g.encoded(
        "v2-to-v1-too-big",
        "an i64 value beyond i32 is a range error",
        "evo2.Widen",
        &evo2::Widen {
            count: 1 << 40,
            samples: vec![],
        },
        err(Range, "$.count"),
    );
    g.encoded(
        "v2-to-v1-too-small",
        "below i32::MIN",
        "evo2.Widen",
        &evo2::Widen {
            count: -(1 << 40),
            samples: vec![],
        },
        err(Range, "$.count"),
    );
    g.encoded(
        "v2-to-v1-vector-element",
        "an element of a typed i64 vector beyond i32 names its index",
        "evo2.Widen",
        &evo2::Widen {
            count: 0,
            samples: vec![1, 1 << 33, 3],
        },
        err(Range, "$.samples[1]"),
    );

    let mut g = group(out, "evolution/retype", EVO2, "evo2.Retype");
    g.encoded(
        "v1-to-v2",
        "string data where v2 expects i64",
        "evo1.Retype",
        &evo1::Retype { code: "A7".into() },
        err(Type, "$.code"),
    );
    let mut g = group(out, "evolution/retype", EVO1, "evo1.Retype");
    g.encoded(
        "v2-to-v1",
        "i64 data where v1 expects a string",
        "evo2.Retype",
        &evo2::Retype { code: 7 },
        err(Type, "$.code"),
    );

    let mut g = group(out, "evolution/nested", EVO2, "evo2.Team");
    g.encoded(
        "v1-to-v2",
        "the new required field is missing in the first member",
        "evo1.Team",
        &evo1::Team {
            members: vec![
                evo1::Member {
                    name: "a".into(),
                    status: evo1::Status::Active,
                },
                evo1::Member {
                    name: "b".into(),
                    status: evo1::Status::Inactive,
                },
            ],
        },
        err(Missing, "$.members[0].role"),
    );
    let member = |name: &str, status| evo2::Member {
        name: name.into(),
        status,
        role: "dev".into(),
    };
    let mut g = group(out, "evolution/nested", EVO1, "evo1.Team");
    g.encoded(
        "v2-to-v1",
        "v1 skips role",
        "evo2.Team",
        &evo2::Team {
            members: vec![
                member("a", evo2::Status::Active),
                member("b", evo2::Status::Inactive),
            ],
        },
        value(r#"{"members":[{"name":"a","status":1},{"name":"b","status":2}]}"#),
    );
    g.encoded(
        "v2-to-v1-new-enum-value",
        "an enum value added in v2 is unknown to v1",
        "evo2.Team",
        &evo2::Team {
            members: vec![
                member("a", evo2::Status::Active),
                member("b", evo2::Status::Banned),
            ],
        },
        err(Enum, "$.members[1].status"),
    );

    let mut g = group(out, "evolution/union", EVO2, "evo2.Owner");
    g.encoded(
        "v1-to-v2",
        "v1's variants are still v2 variants",
        "evo1.Owner",
        &evo1::Owner {
            pet: Some(evo1::Pet::Cat("Tom".into())),
        },
        value(r#"{"pet":{"Cat":"Tom"}}"#),
    );
    let mut g = group(out, "evolution/union", EVO1, "evo1.Owner");
    g.encoded(
        "v2-to-v1",
        "a known variant",
        "evo2.Owner",
        &evo2::Owner {
            pet: Some(evo2::Pet::Dog("Rex".into())),
        },
        value(r#"{"pet":{"Dog":"Rex"}}"#),
    );
    g.encoded(
        "v2-to-v1-new-variant",
        "a variant added in v2 is unknown to v1",
        "evo2.Owner",
        &evo2::Owner {
            pet: Some(evo2::Pet::Fish("Nemo".into())),
        },
        err(Union, "$.pet"),
    );
}

// ---- fixtures --------------------------------------------------------------------

/// Every fixture with its schema and root type (the first message of the schema).
pub const FIXTURES: &[(&str, &str)] = &[
    ("api_response", "fixtures.ApiResponse"),
    ("chat_thread", "fixtures.ChatThread"),
    ("metrics_96k", "fixtures.Metrics"),
    ("repeated_maps", "fixtures.RepeatedMaps"),
    ("string_flood", "fixtures.StringFlood"),
    ("time_series", "fixtures.TimeSeries"),
    ("unicode_heavy", "fixtures.UnicodeHeavy"),
    ("user_profile", "fixtures.UserProfile"),
    ("wide_map", "fixtures.WideMap"),
    ("width_bomb", "fixtures.WidthBomb"),
];

fn fixtures(out: &mut Vec<Def>) {
    for &(stem, ty) in FIXTURES {
        let mut g = group(out, "fixtures", &format!("schemas/{stem}.fxs"), ty);
        g.push(
            stem,
            &format!("fixtures/{stem}.json decoded as {ty} and re-encoded"),
            Input::Fixture(stem),
            Want::Decodes,
        );
    }
    let mut g = group(
        out,
        "fixtures",
        "schemas/deep_nesting.fxs",
        "fixtures.DeepLevel",
    );
    g.push(
        "deep_nesting",
        "deep_nesting.json alternates maps and lists; its schema types every level as a map, so the root's child (a list) is a type error",
        Input::Fixture("deep_nesting"),
        err(Type, "$.child"),
    );
}

// ---- generation --------------------------------------------------------------

/// The case files and golden files, with the Rust coders' disagreements.
#[derive(Debug)]
pub struct Generated {
    /// (path relative to `conformance/`, contents), in a stable order.
    pub files: Vec<(String, Vec<u8>)>,
    /// `case: what Rust gives` for every case whose hand-written error the
    /// generated Rust coders do not reproduce (bugs to fix in the generator or
    /// runtime; the Rust runner fails these cases).
    pub disagreements: Vec<String>,
}

/// Adds the definitions of one case file.
type Define = fn(&mut Vec<Def>);

/// Where golden binary files live, relative to `conformance/`.
pub const GOLDENS: &str = "typed/goldens";

/// Builds every case file from the definitions above; `dir` is `conformance/`.
pub fn generate(dir: &Path) -> Result<Generated, String> {
    let mut files = Vec::new();
    let mut disagreements = Vec::new();
    let sets: [(&str, &str, Define); 4] = [
        (
            "typed/arrays.json",
            "Fixed-length arrays (`[T; N]`): the fixed and typed vector forms, vectors of other kinds and widths read as arrays, length, element and null errors with their paths (schema typed/schemas/arrays.fxs).",
            arrays,
        ),
        (
            "typed/defects.json",
            "The previous implementation's data defects (explicit null, missing required fields, layout fallback, empty maps), enums, unions, nested error paths and integer ranges (schema typed/schemas/defects.fxs).",
            |d| {
                explicit_null(d);
                missing_required(d);
                layout_fallback(d);
                empty_maps(d);
                enums(d);
                unions(d);
                nested_paths(d);
                ranges(d);
                vectors(d);
                invalid(d);
            },
        ),
        (
            "typed/evolution.json",
            "Schema evolution: data written by one version's generated encoder, read by the other's decoder (typed/schemas/evolution_v1.fxs and evolution_v2.fxs).",
            evolution,
        ),
        (
            "typed/fixtures.json",
            "The shared fixtures (conformance/fixtures/*.json through from_json) decoded with their schema's root type and re-encoded; buffers are files in typed/goldens/.",
            fixtures,
        ),
    ];
    for (path, description, define) in sets {
        let mut defs = Vec::new();
        define(&mut defs);
        let mut cases = Vec::new();
        for def in defs {
            let case = build_case(dir, def, &mut files, &mut disagreements)?;
            cases.push(case);
        }
        let file = CaseFile {
            description: description.into(),
            cases,
        };
        let mut text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
        text.push('\n');
        files.push((path.to_string(), text.into_bytes()));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Generated {
        files,
        disagreements,
    })
}

fn build_case(
    dir: &Path,
    def: Def,
    files: &mut Vec<(String, Vec<u8>)>,
    disagreements: &mut Vec<String>,
) -> Result<Case, String> {
    let name = def.name.clone();
    let fail = |m: String| format!("{name}: {m}");
    let mut case = Case {
        name: def.name.clone(),
        description: def.description,
        schema: def.schema.clone(),
        ty: def.ty.into(),
        input: None,
        input_file: None,
        input_source: String::new(),
        input_json: None,
        input_json_file: None,
        expect: Expect {
            bytes: None,
            bytes_file: None,
            json: None,
            error: None,
        },
    };
    let mut stem = None;
    let input = match def.input {
        Input::Json(text) => {
            let bytes = flexbuf::from_json(&text).map_err(|e| fail(e.to_string()))?;
            case.input_source = "from_json".into();
            case.input_json = Some(text);
            case.input = Some(hex(&bytes));
            bytes
        }
        Input::Bytes { source, bytes } => {
            case.input_source = source;
            case.input_json = flexbuf::to_json(&bytes).ok();
            case.input = Some(hex(&bytes));
            bytes
        }
        Input::Fixture(s) => {
            let json_rel = format!("fixtures/{s}.json");
            let text = String::from_utf8(crate::cases::read_rel(dir, &json_rel)?)
                .map_err(|e| fail(e.to_string()))?;
            let bytes = flexbuf::from_json(&text).map_err(|e| fail(e.to_string()))?;
            let input_rel = format!("{GOLDENS}/{s}.input.bin");
            case.input_source = "from_json".into();
            case.input_json_file = Some(json_rel);
            case.input_file = Some(input_rel.clone());
            files.push((input_rel, bytes.clone()));
            stem = Some(s);
            bytes
        }
    };
    let outcome = replay(&def.schema, def.ty, &input).map_err(fail)?;
    match def.want {
        Want::Value(json) => {
            let Outcome::Bytes(bytes) = outcome else {
                return Err(fail(format!("expected a value, Rust gives {outcome}")));
            };
            let got = flexbuf::to_json(&bytes).map_err(|e| fail(e.to_string()))?;
            let same = serde_json::from_str::<serde_json::Value>(&got).ok()
                == Some(
                    serde_json::from_str::<serde_json::Value>(&json)
                        .map_err(|e| fail(e.to_string()))?,
                );
            if !same {
                return Err(fail(format!("expected the value {json}, Rust gives {got}")));
            }
            case.expect.bytes = Some(hex(&bytes));
            case.expect.json = Some(got);
        }
        Want::SameBytes => {
            match outcome {
                Outcome::Bytes(bytes) if bytes == input => {}
                other => {
                    return Err(fail(format!(
                        "expected the input bytes back, Rust gives {other}"
                    )))
                }
            }
            case.expect.json = flexbuf::to_json(&input).ok();
            case.expect.bytes = Some(hex(&input));
        }
        Want::Decodes => {
            let Outcome::Bytes(bytes) = outcome else {
                return Err(fail(format!("expected a value, Rust gives {outcome}")));
            };
            let rel = format!("{GOLDENS}/{}.expect.bin", stem.unwrap_or("unnamed"));
            case.expect.bytes_file = Some(rel.clone());
            files.push((rel, bytes));
        }
        Want::Error(kind, path) => {
            let want = ExpectedError {
                kind,
                path: Some(path.into()),
            };
            if outcome != Outcome::Error(want.clone()) {
                disagreements.push(format!(
                    "{name}: expected {kind} error at {path}, Rust gives {outcome}"
                ));
            }
            case.expect.error = Some(want);
        }
        Want::Invalid => {
            let want = ExpectedError {
                kind: ErrorClass::Invalid,
                path: None,
            };
            if outcome != Outcome::Error(want.clone()) {
                disagreements.push(format!("{name}: expected invalid, Rust gives {outcome}"));
            }
            case.expect.error = Some(want);
        }
    }
    Ok(case)
}
