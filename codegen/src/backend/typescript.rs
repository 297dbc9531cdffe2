//! The TypeScript backend (`flexbuf gen --lang ts`): interfaces, enums and
//! discriminated unions, `encodeX`/`decodeX` functions over the pure-TS
//! runtime of the `flexbuf` npm package, and a lazy `XView` accessor class
//! per message.
//!
//! The generated coders follow the typed wire contract of the Rust core
//! (`rust-core/src/typed.rs`) call for call, so their bytes equal those of the
//! Rust backend's coders: fields in wire order, every field written (null for
//! absent optionals), one shared keys vector per type per buffer, `{string: T}`
//! entries in unsigned byte order of their keys. Decoders read by position only
//! after the runtime proved the keys vector, otherwise by key.
//!
//! Types from every namespace go into one module by their short names (a
//! clash is reported), as in the Rust backend.

use std::cell::{Cell, RefCell};

use flexbuf::schema::{short_name, Absent, DefaultValue, EnumDef, Field, Message, TypeRef};

use super::{quoted, Backend, FloatForm, GeneratedFile};
use crate::names::{accessors, camel};
use crate::plan::{FieldPlan, MessagePlan, Plan, UnionPlan};
use crate::writer::{CodeWriter, DocStyle};

/// Globals the generated module uses (and its import `fb`): a type with one
/// of these names gets a trailing `_`.
const GLOBALS: &[&str] = &[
    "Array",
    "Uint8Array",
    "Set",
    "ReadonlySet",
    "Math",
    "JSON",
    "NaN",
    "Infinity",
    "fb",
];

/// How generated TypeScript types `i64` and `u64` (`flexbuf gen --lang ts
/// --ts-int64 ...`). None is lossy: a value a mode cannot hold exactly is an
/// `OutOfRange` error, never a rounded number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Int64 {
    /// `number | bigint`: a number when the value is a safe integer, a bigint
    /// otherwise (the default: exact, but callers must handle both).
    #[default]
    Auto,
    /// `number`: decode throws `OutOfRange` beyond ±(2^53 - 1); the fast,
    /// JSON-friendly choice when values are known to fit.
    Checked,
    /// `bigint` always: exact, and `JSON.stringify` needs a replacer.
    BigInt,
}

impl Int64 {
    /// The policy named `name` (`"auto"`, `"checked"` or `"bigint"`, as
    /// `--ts-int64` and the `ts_int64` attribute spell them).
    pub fn from_name(name: &str) -> Option<Int64> {
        match name {
            "auto" => Some(Int64::Auto),
            "checked" => Some(Int64::Checked),
            "bigint" => Some(Int64::BigInt),
            _ => None,
        }
    }
}

/// The TypeScript backend (`--lang ts`).
pub struct TypeScript {
    /// How `i64`/`u64` fields are typed.
    pub int64: Int64,
}

impl TypeScript {
    /// The backend with the default policies (the one in `BACKENDS`).
    pub const DEFAULT: TypeScript = TypeScript { int64: Int64::Auto };
}

impl Backend for TypeScript {
    fn name(&self) -> &'static str {
        "ts"
    }

    fn summary(&self) -> &'static str {
        "A TypeScript module over the pure-TS runtime of the `flexbuf` npm package"
    }

    fn keywords(&self) -> &'static [&'static str] {
        &[]
    }

    fn reserved_members(&self) -> &'static [&'static str] {
        &["map", "fromBytes", "read", "readField", "cx", "constructor"]
    }

    fn type_name(&self, qualified: &str) -> String {
        let short = short_name(qualified);
        if GLOBALS.contains(&short) {
            format!("{short}_")
        } else {
            short.to_string()
        }
    }

    fn companion_names(&self, plan: &Plan<'_>, qualified: &str) -> Vec<String> {
        let name = self.type_name(qualified);
        if plan.schema.message(qualified).is_some() {
            vec![format!("{name}View")]
        } else if plan.schema.enum_def(qualified).is_some() {
            vec![format!("{name}Values")]
        } else {
            Vec::new()
        }
    }

    fn field_name(&self, name: &str) -> String {
        // TypeScript's convention (`display_name` -> `displayName`); the wire name stays.
        let name = camel(name);
        // `__proto__` in an object literal sets the prototype instead of a property.
        if name == "__proto__" {
            format!("{name}_")
        } else {
            name
        }
    }

    fn variant_name(&self, name: &str) -> String {
        name.to_string()
    }

    fn string_literal(&self, s: &str) -> String {
        quoted(s, |c| match c {
            '\u{2028}' | '\u{2029}' => Some(format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => Some(format!("\\u{:04x}", c as u32)),
            _ => None,
        })
    }

    fn float_literal(&self, f: f64, ty: &TypeRef) -> String {
        let text = match FloatForm::of(f, ty, false) {
            FloatForm::Nan => "NaN".into(),
            FloatForm::Infinity => "Infinity".into(),
            FloatForm::NegInfinity => "-Infinity".into(),
            FloatForm::Finite(s) => s,
        };
        if *ty == TypeRef::F32 {
            format!("Math.fround({text})")
        } else {
            text
        }
    }

    fn emit(&self, plan: &Plan<'_>) -> Result<Vec<GeneratedFile>, String> {
        check_int64_defaults(plan, self.int64)?;
        let mut g = Gen {
            plan,
            b: self,
            int64: Cell::new(self.int64),
            w: CodeWriter::new("  "),
            helpers: RefCell::new(Vec::new()),
        };
        g.header();
        super::emit_items(plan, &mut g);
        g.emit_helpers();
        Ok(vec![GeneratedFile {
            path: format!("{}.ts", plan.stem).into(),
            contents: g.w.finish(),
        }])
    }
}

/// A JavaScript number (or bigint) literal for an integer.
fn int_lit(i: i128) -> String {
    if i.unsigned_abs() < (1u128 << 53) {
        i.to_string()
    } else {
        format!("{i}n")
    }
}

/// A field's 64-bit integer policy: its `ts_int64` attribute, else `module`'s.
fn field_int64(plan: &Plan<'_>, message: &str, field: &str, module: Int64) -> Int64 {
    let key = (message.to_string(), field.to_string());
    // The checker accepts no other names than `from_name`'s.
    plan.parsed
        .ts_int64
        .get(&key)
        .and_then(|name| Int64::from_name(name))
        .unwrap_or(module)
}

/// Under the `checked` policy (`--ts-int64 checked`, or a field's
/// `ts_int64 = "checked"`), a 64-bit field's default must be a safe integer:
/// a `number` literal beyond 2^53 would silently round.
fn check_int64_defaults(plan: &Plan<'_>, module: Int64) -> Result<(), String> {
    for mp in &plan.messages {
        for f in mp.wire_fields() {
            if !matches!(f.def.ty, TypeRef::I64 | TypeRef::U64) {
                continue;
            }
            if field_int64(plan, &mp.def.name, &f.def.name, module) != Int64::Checked {
                continue;
            }
            let big = match &f.absent {
                Absent::Default(DefaultValue::Int(i)) => i.unsigned_abs() >= 1 << 53,
                Absent::Default(DefaultValue::UInt(u)) => *u >= 1 << 53,
                _ => false,
            };
            if big {
                let attr = plan
                    .parsed
                    .ts_int64
                    .contains_key(&(mp.def.name.clone(), f.def.name.clone()));
                let (why, fix) = if attr {
                    (
                        "its ts_int64 = \"checked\"",
                        "ts_int64 = \"auto\" or \"bigint\"",
                    )
                } else {
                    ("--ts-int64 checked", "--ts-int64 auto or bigint")
                };
                return Err(format!(
                    "{}.{}: its default is beyond 2^53, which a number cannot hold exactly \
                     ({why}); use {fix}",
                    mp.def.name, f.def.name
                ));
            }
        }
    }
    Ok(())
}

/// Range of a narrow integer type (up to 32 bits).
fn int_range(t: &TypeRef) -> Option<(i64, i64)> {
    Some(match t {
        TypeRef::I8 => (-128, 127),
        TypeRef::I16 => (-32768, 32767),
        TypeRef::I32 => (-2147483648, 2147483647),
        TypeRef::U8 => (0, 255),
        TypeRef::U16 => (0, 65535),
        TypeRef::U32 => (0, 4294967295),
        _ => return None,
    })
}

struct Gen<'p> {
    plan: &'p Plan<'p>,
    b: &'p TypeScript,
    /// The 64-bit integer policy of the field being written: its
    /// `ts_int64` attribute, else the module's (`--ts-int64`).
    int64: Cell<Int64>,
    w: CodeWriter,
    /// Module-level decoders of vector, map and element types, as
    /// `(name, definition)`, one per distinct definition: a field decoder
    /// calls them instead of creating a closure on every decode.
    helpers: RefCell<Vec<(String, String)>>,
}

impl Gen<'_> {
    /// Makes `f` of message `m` the field being written: its 64-bit
    /// integer policy applies until [`Self::leave_field`].
    fn enter_field(&self, m: &Message, f: &Field) {
        self.int64
            .set(field_int64(self.plan, &m.name, &f.name, self.b.int64));
    }

    /// Back to the module's 64-bit integer policy.
    fn leave_field(&self) {
        self.int64.set(self.b.int64);
    }

    fn line(&mut self, indent: usize, text: &str) {
        self.w.line(indent, text);
    }

    fn docs(&mut self, indent: usize, doc: &[String]) {
        self.w.doc(indent, DocStyle::Block("*\\/"), doc);
    }

    fn header(&mut self) {
        self.w.raw(
            "// @generated by `flexbuf gen --lang ts`. Do not edit.\n\
             /* eslint-disable */\n\
             import * as fb from \"flexbuf\";\n\n",
        );
    }

    fn ts_type(&self, t: &TypeRef) -> String {
        match t {
            TypeRef::Bool => "boolean".into(),
            TypeRef::I64 | TypeRef::U64 => match self.int64.get() {
                Int64::Auto => "number | bigint".into(),
                Int64::Checked => "number".into(),
                Int64::BigInt => "bigint".into(),
            },
            TypeRef::String => "string".into(),
            TypeRef::Bytes => "Uint8Array".into(),
            TypeRef::Vector(e) | TypeRef::Array(e, _) => format!("Array<{}>", self.ts_type(e)),
            TypeRef::Map(e) => format!("{{ [key: string]: {} }}", self.ts_type(e)),
            TypeRef::Message(n) | TypeRef::Enum(n) | TypeRef::Union(n) => self.b.type_name(n),
            _ => "number".into(),
        }
    }
}

impl super::ModuleItems for Gen<'_> {
    // ---- enums -----------------------------------------------------------------

    fn enum_def(&mut self, e: &EnumDef) {
        let name = self.b.type_name(&e.name);
        self.docs(0, &e.doc);
        self.line(0, &format!("export enum {name} {{"));
        for v in &e.variants {
            self.docs(1, &v.doc);
            self.line(
                1,
                &format!("{} = {},", self.b.variant_name(&v.name), v.value),
            );
        }
        self.line(0, "}\n");
        let values: Vec<String> = e.variants.iter().map(|v| v.value.to_string()).collect();
        self.line(
            0,
            &format!("/** The wire values of `{name}`. */\nexport const {name}Values: ReadonlySet<number> = new Set([{}]);\n", values.join(", ")),
        );
    }

    // ---- unions ----------------------------------------------------------------

    fn union_def(&mut self, up: &UnionPlan<'_>) {
        let u = up.def;
        let name = self.b.type_name(&u.name);
        self.docs(0, &u.doc);
        let arms: Vec<String> = u
            .variants
            .iter()
            .map(|v| {
                format!(
                    "{{ kind: {}; value: {} }}",
                    self.b.string_literal(&v.name),
                    self.ts_type(&v.ty)
                )
            })
            .collect();
        self.line(
            0,
            &format!("export type {name} =\n  | {};\n", arms.join("\n  | ")),
        );

        self.line(
            0,
            &format!("/** Pushes a `{name}` (a one-entry map `{{wire_name: value}}`). */"),
        );
        self.line(0, &format!("export function encode{name}Into(b: fb.Builder, cx: fb.EncodeContext, v: {name}): void {{"));
        self.line(1, "b.startMap();");
        self.line(1, "switch (v.kind) {");
        for var in &u.variants {
            self.line(2, &format!("case {}: {{", self.b.string_literal(&var.name)));
            self.line(
                3,
                &format!("b.key({});", self.b.string_literal(&var.wire_name)),
            );
            let enc = self.encode_stmt(&var.ty, "v.value", 3, 1);
            self.w.raw(&enc);
            self.line(3, "break;");
            self.line(2, "}");
        }
        self.line(2, "default:");
        self.line(
            3,
            &format!("throw new fb.FlexError(\"UnknownUnionVariant\", `unknown variant ${{(v as {{ kind: string }}).kind}} of union {name}`);"),
        );
        self.line(1, "}");
        self.line(1, "b.endMap();");
        self.line(0, "}\n");

        self.line(0, &format!("/** Decodes a `{name}` from the value at slot `p` (width `w`, packed type `t`). */"));
        self.line(0, &format!("export function decode{name}From(c: fb.DecodeContext, p: number, w: number, t: number): {name} {{"));
        self.line(1, "const d = c.map(p, w, c.nn(t, p));");
        self.line(1, "const mw = c.w, n = c.c;");
        self.line(1, "if (n !== 1) {");
        self.line(
            2,
            &format!("throw new fb.FlexError(\"UnionEntryCount\", `union {name} needs a map with exactly one entry, found ${{n}}`, p);"),
        );
        self.line(1, "}");
        self.line(1, "c.layout(d, mw, n, fb.NO_KEYS);");
        self.line(1, "const k = c.key(c.ka, c.kw, 0);");
        self.line(1, "const vt = c.type(d, mw, 1, -1, 0);");
        self.line(1, &format!("let out: {name};"));
        self.line(1, "try {");
        self.line(1, "switch (k) {");
        for var in &u.variants {
            let dec = self.decode_expr(&var.ty, "d", "mw", "vt", 1);
            self.line(
                2,
                &format!(
                    "case {}: out = {{ kind: {}, value: {dec} }}; break;",
                    self.b.string_literal(&var.wire_name),
                    self.b.string_literal(&var.name)
                ),
            );
        }
        self.line(2, "default:");
        self.line(
            3,
            &format!("throw new fb.FlexError(\"UnknownUnionVariant\", `unknown variant ${{JSON.stringify(k)}} of union {name}`, p);"),
        );
        self.line(1, "}");
        self.line(1, "} catch (e) {");
        self.line(2, "throw e instanceof fb.FlexError && e.kind !== \"UnknownUnionVariant\" ? c.at(e, k) : e;");
        self.line(1, "}");
        self.line(1, "c.leave();");
        self.line(1, "return out;");
        self.line(0, "}\n");
        self.root_functions(&name);
    }

    // ---- messages ----------------------------------------------------------------

    fn message(&mut self, mp: &MessagePlan<'_>) {
        let m = mp.def;
        let name = self.b.type_name(&m.name);
        let fields: Vec<&FieldPlan<'_>> = mp.wire_fields().collect();
        self.docs(0, &m.doc);
        self.line(0, &format!("export interface {name} {{"));
        for fp in &mp.fields {
            let f = fp.def;
            self.enter_field(m, f);
            self.docs(1, &f.doc);
            let ty = self.ts_type(&f.ty);
            let ty = if f.optional {
                format!("{ty} | null")
            } else {
                ty
            };
            self.line(1, &format!("{}: {ty};", self.b.field_name(&f.name)));
        }
        self.leave_field();
        self.line(0, "}\n");

        let fp = mp.fingerprint;
        self.line(
            0,
            &format!(
                "/** Fingerprint of `{}`'s wire contract (see `flexbuf::schema`). */",
                m.name
            ),
        );
        self.line(
            0,
            &format!("export const {name}Fingerprint = 0x{fp:016x}n;\n"),
        );
        let names: Vec<String> = fields
            .iter()
            .map(|f| self.b.string_literal(&f.def.wire_name))
            .collect();
        self.line(
            0,
            &format!(
                "const __{name}_keys: fb.KeySet = fb.keySet([{}]);\n",
                names.join(", ")
            ),
        );

        // Encoder.
        self.line(0, &format!("/** Pushes a `{name}` (every field, in wire order, with the shared keys vector). */"));
        self.line(0, &format!("export function encode{name}Into(b: fb.Builder, cx: fb.EncodeContext, v: {name}): void {{"));
        self.line(1, &format!("const keys = cx.keyVector(b, __{name}_keys);"));
        self.line(1, "b.startMap();");
        for &fp in &fields {
            let f = fp.def;
            self.enter_field(m, f);
            let access = format!("v.{}", self.b.field_name(&f.name));
            self.line(1, "{");
            self.line(2, &format!("const x = {access};"));
            if f.optional {
                self.line(2, "if (x === null || x === undefined) b.null();");
                self.line(2, "else {");
                let enc = self.encode_stmt(&f.ty, "x", 3, 1);
                self.w.raw(&enc);
                self.line(2, "}");
            } else {
                match self.zero_or_default(fp) {
                    Some(def) => {
                        let enc = self.encode_stmt(&f.ty, &format!("(x ?? {def})"), 2, 1);
                        self.w.raw(&enc);
                    }
                    None => {
                        self.line(
                            2,
                            &format!(
                                "if (x === null || x === undefined) throw fb.missing({});",
                                self.b.string_literal(&f.wire_name)
                            ),
                        );
                        let enc = self.encode_stmt(&f.ty, "x", 2, 1);
                        self.w.raw(&enc);
                    }
                }
            }
            self.line(1, "}");
        }
        self.leave_field();
        self.line(1, "b.endMapWithKeys(keys);");
        self.line(0, "}\n");

        // Decoder.
        self.line(0, &format!("/** Decodes a `{name}` from the value at slot `p` (width `w`, packed type `t`). */"));
        self.line(0, &format!("export function decode{name}From(c: fb.DecodeContext, p: number, w: number, t: number): {name} {{"));
        self.line(1, "const d = c.map(p, w, t);");
        self.line(1, "const mw = c.w, n = c.c;");
        if fields.is_empty() {
            self.line(1, &format!("c.layout(d, mw, n, __{name}_keys);"));
            self.line(1, "c.leave();");
            self.line(1, "return {};");
            self.line(0, "}\n");
            self.root_functions(&name);
            return;
        }
        self.line(
            1,
            &format!("const fast = c.layout(d, mw, n, __{name}_keys);"),
        );
        self.line(1, "const ka = c.ka, kw = c.kw;");
        // The values' type bytes follow the values; `c.map` bounds-checked them.
        self.line(1, "const u8 = c.u8, tb = d + n * mw;");
        self.line(1, "let f = \"\";");
        self.line(1, "try {");
        self.line(2, "let i: number, ft: number;");
        for (idx, &fp) in fields.iter().enumerate() {
            let f = fp.def;
            self.enter_field(m, f);
            let var = format!("f_{}", self.b.field_name(&f.name));
            let key = self.b.string_literal(&f.wire_name);
            let ty = self.ts_type(&f.ty);
            let ty = if f.optional {
                format!("{ty} | null")
            } else {
                ty
            };
            self.line(2, &format!("f = {key};"));
            self.line(
                2,
                &format!("i = fast ? {idx} : c.find(ka, kw, n, __{name}_keys.bytes[{idx}]);"),
            );
            self.line(2, &format!("let {var}: {ty};"));
            let absent = if fp.absent == Absent::Required {
                "throw fb.missing()".to_string()
            } else {
                format!("{var} = {}", self.absent_value(fp))
            };
            self.line(2, &format!("if (i < 0) {absent};"));
            self.line(2, "else {");
            self.line(3, "ft = u8[tb + i];");
            let dec = self.decode_expr(&f.ty, "d + i * mw", "mw", "ft", 1);
            if f.optional {
                self.line(3, &format!("{var} = c.isNull(ft) ? null : {dec};"));
            } else {
                let dec = self.decode_expr(&f.ty, "d + i * mw", "mw", "c.nn(ft)", 1);
                self.line(3, &format!("{var} = {dec};"));
            }
            self.line(2, "}");
        }
        self.leave_field();
        self.line(2, "c.leave();");
        let inits: Vec<String> = mp
            .fields
            .iter()
            .map(|f| {
                let name = self.b.field_name(&f.def.name);
                format!("{name}: f_{name}")
            })
            .collect();
        self.line(2, &format!("return {{ {} }};", inits.join(", ")));
        self.line(1, "} catch (e) {");
        self.line(2, "throw c.at(e, f);");
        self.line(1, "}");
        self.line(0, "}\n");
        self.root_functions(&name);
    }

    // ---- views -------------------------------------------------------------------

    fn view(&mut self, mp: &MessagePlan<'_>) {
        let name = self.b.type_name(&mp.def.name);
        let view = format!("{name}View");
        self.line(0, &format!("/** Reads single fields of a `{name}` straight from the bytes (lazy, zero-copy, checked). */"));
        self.line(0, &format!("export class {view} {{"));
        self.line(1, "/** The underlying map. */");
        self.line(1, "readonly map: fb.MapRef;");
        self.line(1, "private cx: fb.DecodeContext | undefined;\n");
        self.line(1, "/** A view of the map `r` refers to. */");
        self.line(1, "constructor(r: fb.Ref) {");
        self.line(2, "this.map = r.asMap();");
        self.line(1, "}\n");
        self.line(1, "/** A view of the root of `bytes` (checked reads: safe on untrusted bytes, no full verification). */");
        self.line(
            1,
            &format!("static fromBytes(bytes: fb.BytesLike): {view} {{"),
        );
        self.line(2, &format!("return new {view}(fb.root(bytes));"));
        self.line(1, "}\n");
        self.line(
            1,
            "/** Decodes the value `r` refers to with a generated field decoder. */",
        );
        self.line(1, "readField<V>(r: fb.Ref, f: (c: fb.DecodeContext, p: number, w: number, t: number) => V): V {");
        self.line(
            2,
            "const c = this.cx ?? (this.cx = new fb.DecodeContext(r.b.u8));",
        );
        self.line(
            2,
            "const lw = r.width === 1 ? 0 : r.width === 2 ? 1 : r.width === 4 ? 2 : 3;",
        );
        self.line(2, "return f(c, r.pos, r.slotWidth, (r.type << 2) | lw);");
        self.line(1, "}");
        let fields: Vec<String> = mp
            .wire_fields()
            .map(|f| self.b.field_name(&f.def.name))
            .collect();
        let names = accessors(&fields, self.b.reserved_members(), "Field");
        for (f, accessor) in mp.wire_fields().map(|f| f.def).zip(names) {
            self.enter_field(mp.def, f);
            let key = self.b.string_literal(&f.wire_name);
            let (ret, conv) = match &f.ty {
                TypeRef::String => ("string".to_string(), "r.asString()".to_string()),
                TypeRef::Bytes => ("Uint8Array".into(), "r.asBlob()".into()),
                TypeRef::Vector(_) => ("fb.VectorRef".into(), "r.asVector()".into()),
                TypeRef::Map(_) => ("fb.MapRef".into(), "r.asMap()".into()),
                TypeRef::Message(n) => (
                    format!("{}View", self.b.type_name(n)),
                    format!("new {}View(r)", self.b.type_name(n)),
                ),
                TypeRef::Union(_) => ("fb.Ref".into(), "r".into()),
                other => {
                    let dec = self.decode_expr(other, "p", "w", "t", 1);
                    (
                        self.ts_type(other),
                        format!("this.readField(r, (c, p, w, t) => {dec})"),
                    )
                }
            };
            self.line(0, "");
            self.docs(1, &f.doc);
            if f.doc.is_empty() {
                self.line(1, &format!("/** The `{}` field. */", f.name));
            }
            if f.optional {
                self.line(1, &format!("get {accessor}(): {ret} | null {{"));
                self.line(2, &format!("const r = this.map.find({key});"));
                self.line(2, "if (r === undefined || r.isNull) return null;");
                self.line(2, &format!("return {conv};"));
            } else {
                self.line(1, &format!("get {accessor}(): {ret} {{"));
                self.line(2, &format!("const r = this.map.get({key});"));
                self.line(2, &format!("return {conv};"));
            }
            self.line(1, "}");
        }
        self.leave_field();
        self.line(0, "}\n");
    }
}

impl Gen<'_> {
    /// `encodeX` / `decodeX` over whole buffers.
    fn root_functions(&mut self, name: &str) {
        self.line(
            0,
            &format!("/** Encodes a `{name}` as a complete buffer. */"),
        );
        self.line(
            0,
            &format!("export function encode{name}(v: {name}): Uint8Array {{"),
        );
        self.line(1, &format!("return fb.encodeTyped(v, encode{name}Into);"));
        self.line(0, "}\n");
        self.line(0, &format!("/** Decodes a `{name}` from the root of `bytes` (checked: safe on untrusted bytes). */"));
        self.line(0, &format!("export function decode{name}(bytes: fb.BytesLike, options?: fb.TypedDecodeOptions): {name} {{"));
        self.line(
            1,
            &format!("return fb.decodeTyped(bytes, decode{name}From, options);"),
        );
        self.line(0, "}\n");
    }

    /// The value written for a non-optional field that is `undefined`: its
    /// default, else its type's zero; `None` for messages and unions (no zero).
    fn zero_or_default(&self, f: &FieldPlan<'_>) -> Option<String> {
        match &f.absent {
            Absent::Default(d) => Some(self.literal(&f.def.ty, d)),
            _ => self.zero(&f.def.ty),
        }
    }

    fn zero(&self, t: &TypeRef) -> Option<String> {
        Some(match t {
            TypeRef::Bool => "false".into(),
            TypeRef::String => "\"\"".into(),
            TypeRef::Bytes => "new Uint8Array(0)".into(),
            TypeRef::Vector(_) => "[]".into(),
            TypeRef::Array(e, n) => format!(
                "new Array<{}>({n}).fill({})",
                self.ts_type(e),
                self.zero(e)?
            ),
            TypeRef::Map(_) => "{}".into(),
            TypeRef::I64 | TypeRef::U64 if self.int64.get() == Int64::BigInt => "0n".into(),
            TypeRef::Message(_) | TypeRef::Union(_) => return None,
            TypeRef::Enum(n) => format!(
                "{}.{}",
                self.b.type_name(n),
                self.b.variant_name(self.plan.enum_zero(n)?)
            ),
            _ => "0".into(),
        })
    }

    /// The decoded value of an absent field that is not required.
    fn absent_value(&self, f: &FieldPlan<'_>) -> String {
        match &f.absent {
            Absent::Default(d) => self.literal(&f.def.ty, d),
            Absent::Zero => self.zero(&f.def.ty).unwrap_or_else(|| "null".into()),
            Absent::Null | Absent::Required => "null".into(),
        }
    }

    fn literal(&self, t: &TypeRef, d: &DefaultValue) -> String {
        match d {
            DefaultValue::Bool(b) => b.to_string(),
            DefaultValue::Int(i) => self.int_default(t, i128::from(*i)),
            DefaultValue::UInt(u) => self.int_default(t, i128::from(*u)),
            DefaultValue::Float(f) => self.b.float_literal(*f, t),
            DefaultValue::String(s) => self.b.string_literal(s),
            DefaultValue::EnumVariant(v) => {
                format!("{}.{}", self.ts_type(t), self.b.variant_name(v))
            }
            DefaultValue::Null => "null".into(),
        }
    }

    /// An integer default of a field of type `t`, typed as its field is.
    fn int_default(&self, t: &TypeRef, i: i128) -> String {
        match t {
            TypeRef::I64 | TypeRef::U64 if self.int64.get() == Int64::BigInt => format!("{i}n"),
            _ => int_lit(i),
        }
    }

    /// Statements pushing `v` (an expression of the TS type of `t`).
    fn encode_stmt(&self, t: &TypeRef, v: &str, indent: usize, depth: usize) -> String {
        let pad = "  ".repeat(indent);
        match t {
            TypeRef::Bool => format!("{pad}b.bool({v});\n"),
            TypeRef::I8 | TypeRef::I16 | TypeRef::I32 | TypeRef::I64 | TypeRef::Enum(_) => {
                format!("{pad}b.int({v});\n")
            }
            TypeRef::U8 | TypeRef::U16 | TypeRef::U32 | TypeRef::U64 => {
                format!("{pad}b.uint({v});\n")
            }
            TypeRef::F32 => format!("{pad}b.float({v});\n"),
            TypeRef::F64 => format!("{pad}b.double({v});\n"),
            TypeRef::String => format!("{pad}b.string({v});\n"),
            TypeRef::Bytes => format!("{pad}b.blob({v});\n"),
            TypeRef::Vector(e) if e.is_scalar() => {
                format!(
                    "{pad}b.typedVector({v}, {});\n",
                    self.b.string_literal(&flexbuf::schema::type_string(e))
                )
            }
            TypeRef::Array(e, n) => {
                let kind = self.b.string_literal(&flexbuf::schema::type_string(e));
                let push = if TypeRef::fixed_vector_form(e, *n) {
                    "fixedVector"
                } else {
                    "typedVector"
                };
                format!("{pad}b.{push}(fb.checkArray({v}, {n}), {kind});\n")
            }
            TypeRef::Vector(e) if **e == TypeRef::String => {
                format!("{pad}b.stringVector({v});\n")
            }
            // Empty lists and maps (common in records) in one builder call.
            TypeRef::Vector(e) => {
                let (l, el) = (format!("l{depth}"), format!("e{depth}"));
                let inner = self.encode_stmt(e, &el, indent + 2, depth + 1);
                format!(
                    "{pad}const {l} = {v};\n{pad}if ({l}.length === 0) b.emptyVector();\n{pad}else {{\n{pad}  b.startVector();\n{pad}  for (const {el} of {l}) {{\n{inner}{pad}  }}\n{pad}  b.endVector();\n{pad}}}\n"
                )
            }
            TypeRef::Map(e) => {
                let (m, ks, k) = (
                    format!("m{depth}"),
                    format!("ks{depth}"),
                    format!("k{depth}"),
                );
                let inner = self.encode_stmt(e, &format!("{m}[{k}]"), indent + 2, depth + 1);
                format!(
                    "{pad}const {m} = {v};\n{pad}const {ks} = fb.sortedKeys({m});\n{pad}if ({ks}.length === 0) b.emptyMap();\n{pad}else {{\n{pad}  b.startMap();\n{pad}  for (const {k} of {ks}) {{\n{pad}    b.key({k});\n{inner}{pad}  }}\n{pad}  b.endMap();\n{pad}}}\n"
                )
            }
            TypeRef::Message(n) | TypeRef::Union(n) => {
                format!("{pad}encode{}Into(b, cx, {v});\n", self.b.type_name(n))
            }
        }
    }

    /// The name of the module-level function `{prefix}N` with `signature_and_body`
    /// (everything after its name), registered on first use.
    fn helper(&self, prefix: &str, signature_and_body: &str) -> String {
        let mut helpers = self.helpers.borrow_mut();
        if let Some((name, _)) = helpers
            .iter()
            .find(|(n, def)| n.starts_with(prefix) && def == signature_and_body)
        {
            return name.clone();
        }
        let name = format!("{prefix}{}", helpers.len() + 1);
        helpers.push((name.clone(), signature_and_body.to_string()));
        name
    }

    /// Writes the helpers registered by [`Self::helper`] (function declarations
    /// are hoisted, so the module's functions may call them from above).
    fn emit_helpers(&mut self) {
        let helpers = self.helpers.take();
        for (name, def) in helpers {
            self.w.raw(&format!("function {name}{def}\n\n"));
        }
    }

    /// An expression decoding the non-null value at slot `p` (width `w`, packed type `t`).
    fn decode_expr(&self, ty: &TypeRef, p: &str, w: &str, t: &str, depth: usize) -> String {
        match ty {
            TypeRef::Bool => format!("c.bool({p}, {w}, {t})"),
            TypeRef::I64 | TypeRef::U64 => {
                let read = match (ty, self.int64.get()) {
                    (TypeRef::I64, Int64::Auto) => "i64",
                    (TypeRef::I64, Int64::Checked) => "i64n",
                    (TypeRef::I64, Int64::BigInt) => "i64b",
                    (_, Int64::Auto) => "u64",
                    (_, Int64::Checked) => "u64n",
                    (_, Int64::BigInt) => "u64b",
                };
                format!("c.{read}({p}, {w}, {t})")
            }
            TypeRef::F32 => format!("c.f32({p}, {w}, {t})"),
            TypeRef::F64 => format!("c.f64({p}, {w}, {t})"),
            TypeRef::String => format!("c.str({p}, {w}, {t})"),
            TypeRef::Bytes => format!("c.blob({p}, {w}, {t})"),
            TypeRef::Enum(n) => {
                let s = self.b.type_name(n);
                format!(
                    "(c.enumValue({p}, {w}, {t}, {s}Values, {}) as {s})",
                    self.b.string_literal(&s)
                )
            }
            TypeRef::Message(n) | TypeRef::Union(n) => {
                format!("decode{}From(c, {p}, {w}, {t})", self.b.type_name(n))
            }
            TypeRef::Array(e, n) => {
                let vector = self.decode_expr(&TypeRef::Vector(e.clone()), p, w, t, depth);
                format!("fb.checkArray({vector}, {n}, {p})")
            }
            TypeRef::Vector(e) if matches!(**e, TypeRef::F32 | TypeRef::F64) => {
                let read = self.decode_expr(e, "q", "qw", "qt", depth + 1);
                let reader = self.helper(
                    "__read",
                    &format!("(c: fb.DecodeContext, q: number, qw: number, qt: number): number {{\n  return {read};\n}}"),
                );
                let f32 = if **e == TypeRef::F32 { ", true" } else { "" };
                format!("c.numbers({p}, {w}, {t}, {reader}{f32})")
            }
            TypeRef::Vector(e) if e.is_integer() => {
                // Integers: elements inside [lo, hi] are taken in one loop,
                // the reader decides the rest (bigints, range errors).
                let read = self.decode_expr(e, "q", "qw", "qt", depth + 1);
                let ety = self.ts_type(e);
                let reader = self.helper(
                    "__read",
                    &format!("(c: fb.DecodeContext, q: number, qw: number, qt: number): {ety} {{\n  return {read};\n}}"),
                );
                let (lo, hi) = match (&**e, self.int64.get()) {
                    // Every element goes through the reader: it makes the bigints.
                    (TypeRef::I64 | TypeRef::U64, Int64::BigInt) => {
                        ("1".to_string(), "0".to_string())
                    }
                    (TypeRef::I64, _) => (
                        "-9007199254740991".to_string(),
                        "9007199254740991".to_string(),
                    ),
                    (TypeRef::U64, _) => ("0".to_string(), "9007199254740991".to_string()),
                    (narrow, _) => {
                        let (lo, hi) = int_range(narrow).unwrap_or((1, 0));
                        (lo.to_string(), hi.to_string())
                    }
                };
                format!("c.ints({p}, {w}, {t}, {lo}, {hi}, {reader})")
            }
            TypeRef::Vector(e) if **e == TypeRef::String => format!("c.strs({p}, {w}, {t})"),
            TypeRef::Vector(e) => {
                let (d, vw, vn, ve, j) = (
                    format!("d{depth}"),
                    format!("w{depth}"),
                    format!("n{depth}"),
                    format!("e{depth}"),
                    format!("j{depth}"),
                );
                let inner = self.decode_expr(
                    e,
                    &format!("{d} + {j} * {vw}"),
                    &vw,
                    &format!("c.nn(c.type({d}, {vw}, {vn}, {ve}, {j}))"),
                    depth + 1,
                );
                let ety = self.ts_type(e);
                let f = self.helper(
                    "__decodeList",
                    &format!(
                        "(c: fb.DecodeContext, p: number, w: number, t: number): Array<{ety}> {{\n  const {d} = c.vector(p, w, c.nn(t, p));\n  const {vw} = c.w, {vn} = c.c, {ve} = c.e;\n  const out: Array<{ety}> = new Array({vn});\n  for (let {j} = 0; {j} < {vn}; {j}++) {{\n    try {{\n      out[{j}] = {inner};\n    }} catch (x) {{\n      throw c.at(x, {j});\n    }}\n  }}\n  c.leave();\n  return out;\n}}"
                    ),
                );
                format!("{f}(c, {p}, {w}, {t})")
            }
            TypeRef::Map(e) => {
                let (d, mw, mn, j, k) = (
                    format!("d{depth}"),
                    format!("w{depth}"),
                    format!("n{depth}"),
                    format!("j{depth}"),
                    format!("k{depth}"),
                );
                // String values: decoded together when they form one ASCII
                // run (`strRun`), each still charged and checked in entry
                // order (`runStr`).
                let (run, inner) = if **e == TypeRef::String {
                    let r = format!("r{depth}");
                    (
                        format!("  const {r} = c.strRun({d}, {mw}, {mn});\n"),
                        format!("c.runStr({r}, {j}, {d}, {mw}, {mn})"),
                    )
                } else {
                    (
                        String::new(),
                        self.decode_expr(
                            e,
                            &format!("{d} + {j} * {mw}"),
                            &mw,
                            &format!("c.nn(c.type({d}, {mw}, {mn}, -1, {j}))"),
                            depth + 1,
                        ),
                    )
                };
                let ety = self.ts_type(e);
                let f = self.helper(
                    "__decodeDict",
                    &format!(
                        "(c: fb.DecodeContext, p: number, w: number, t: number): {{ [key: string]: {ety} }} {{\n  const {d} = c.map(p, w, c.nn(t, p));\n  const {mw} = c.w, {mn} = c.c;\n  c.layout({d}, {mw}, {mn}, fb.NO_KEYS);\n  const ka = c.ka, kw = c.kw;\n{run}  const out: {{ [key: string]: {ety} }} = {{}};\n  for (let {j} = 0; {j} < {mn}; {j}++) {{\n    c.node();\n    const {k} = c.key(ka, kw, {j});\n    try {{\n      fb.setEntry(out, {k}, {inner});\n    }} catch (x) {{\n      throw c.at(x, {k});\n    }}\n  }}\n  c.leave();\n  return out;\n}}"
                    ),
                );
                format!("{f}(c, {p}, {w}, {t})")
            }
            narrow => {
                let (lo, hi) = int_range(narrow).unwrap_or((i64::MIN, i64::MAX));
                format!("c.int({p}, {w}, {t}, {lo}, {hi})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(policy: Int64, schema: &str) -> Result<String, String> {
        let parsed = crate::parse_str("t.fxs", schema).map_err(|d| d.to_string())?;
        let files =
            crate::generate(&TypeScript { int64: policy }, &parsed).map_err(|d| d.to_string())?;
        Ok(files[0].contents.clone())
    }

    #[test]
    fn a_fields_ts_int64_overrides_the_module_policy() {
        let schema =
            "namespace t;\nmessage M {\n  plain: i64;\n  id: u64 (ts_int64 = \"bigint\");\n  \
                      n: i64 (ts_int64 = \"checked\");\n  any: [i64] (ts_int64 = \"auto\");\n}";
        let ts = module(Int64::Checked, schema).unwrap();
        assert!(
            ts.contains(
                "  plain: number;\n  id: bigint;\n  n: number;\n  any: Array<number | bigint>;\n"
            ),
            "{ts}"
        );
        // Each field is read with its own policy, and so are the view's getters.
        for read in [
            "f_plain = c.i64n(d + i * mw",
            "f_id = c.u64b(d + i * mw",
            "f_n = c.i64n(d + i * mw",
            // The list's element reader (a helper) under `auto`.
            "return c.i64(q, qw, qt);",
        ] {
            assert!(ts.contains(read), "{read} in {ts}");
        }
        assert!(
            ts.contains("get id(): bigint {") && ts.contains("c.u64b(p, w, t)"),
            "{ts}"
        );
        assert!(ts.contains("get plain(): number {"), "{ts}");
        let ts = module(Int64::BigInt, schema).unwrap();
        assert!(
            ts.contains("  plain: bigint;\n  id: bigint;\n  n: number;\n"),
            "{ts}"
        );
        assert!(ts.contains("x ?? 0n") && ts.contains("x ?? 0)"), "{ts}");
    }

    #[test]
    fn types_after_a_field_with_ts_int64_keep_the_module_policy() {
        let ts = module(
            Int64::Auto,
            "namespace t;\nmessage M { id: u64 (ts_int64 = \"bigint\"); }\n\
             union U { N: i64, S: string }\nmessage After { n: i64; u: U?; }",
        )
        .unwrap();
        assert!(ts.contains("  id: bigint;\n"), "{ts}");
        assert!(
            ts.contains("{ kind: \"N\"; value: number | bigint }"),
            "{ts}"
        );
        assert!(ts.contains("  n: number | bigint;\n"), "{ts}");
        assert!(ts.contains("get n(): number | bigint {"), "{ts}");
    }

    #[test]
    fn a_default_beyond_2_53_needs_a_policy_that_holds_it() {
        let field =
            |attr: &str| format!("message M {{\n  big: u64 = 18446744073709551615{attr};\n}}");
        assert!(module(Int64::Auto, &field("")).is_ok());
        let e = module(Int64::Auto, &field(" (ts_int64 = \"checked\")")).unwrap_err();
        assert!(
            e.contains("M.big: its default is beyond 2^53, which a number cannot hold exactly (its ts_int64 = \"checked\"); use ts_int64 = \"auto\" or \"bigint\""),
            "{e}"
        );
        let e = module(Int64::Checked, &field("")).unwrap_err();
        assert!(
            e.contains("(--ts-int64 checked); use --ts-int64 auto or bigint"),
            "{e}"
        );
        let ts = module(Int64::Checked, &field(" (ts_int64 = \"bigint\")")).unwrap();
        assert!(ts.contains("18446744073709551615n"), "{ts}");
    }
}
