//! The Rust backend: structs, enums and unions implementing `flexbuf::FlexCoder`,
//! plus a borrowed view type per message.
//!
//! Types from every namespace are emitted into one file by their short names
//! (a clash is reported); the file is meant for `include!` from `OUT_DIR`
//! (see [`crate::build`]) or to be written into a crate's sources by
//! `flexbuf gen --lang rust`.

use flexbuf::schema::{short_name, DefaultValue, TypeRef};

use super::{quoted, Backend, FloatForm, GeneratedFile};
use crate::names::{accessors, pascal, snake};
use crate::plan::{FieldPlan, MessagePlan, Plan, UnionPlan};
use crate::writer::{CodeWriter, DocStyle};
use flexbuf::schema::{Absent, EnumDef};

/// The Rust backend (`--lang rust`).
pub struct Rust;

impl Backend for Rust {
    fn name(&self) -> &'static str {
        "rust"
    }

    fn summary(&self) -> &'static str {
        "Rust structs implementing `flexbuf::FlexCoder`, with view types"
    }

    fn keywords(&self) -> &'static [&'static str] {
        KEYWORDS
    }

    fn reserved_members(&self) -> &'static [&'static str] {
        &["new", "from_bytes", "raw"]
    }

    fn type_name(&self, qualified: &str) -> String {
        ident(short_name(qualified))
    }

    fn companion_names(&self, plan: &Plan<'_>, qualified: &str) -> Vec<String> {
        if plan.schema.message(qualified).is_some() {
            vec![
                format!("{}View", short_name(qualified)),
                format!("{}Ref", short_name(qualified)),
            ]
        } else if plan.unions.iter().any(|u| u.def.name == qualified) {
            vec![format!("{}Ref", short_name(qualified))]
        } else {
            Vec::new()
        }
    }

    fn field_name(&self, name: &str) -> String {
        // Snake case without empty words (`__proto__` -> `proto`), which
        // the `non_snake_case` lint rejects.
        let words: Vec<String> = snake(name)
            .split('_')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        if words.is_empty() {
            return "field".to_string();
        }
        ident(&words.join("_"))
    }

    fn variant_name(&self, name: &str) -> String {
        ident(&pascal(name))
    }

    fn string_literal(&self, s: &str) -> String {
        quoted(s, |c| {
            ((c as u32) < 0x20).then(|| format!("\\u{{{:x}}}", c as u32))
        })
    }

    fn float_literal(&self, f: f64, ty: &TypeRef) -> String {
        let t = if *ty == TypeRef::F32 { "f32" } else { "f64" };
        match FloatForm::of(f, ty, false) {
            FloatForm::Nan => format!("{t}::NAN"),
            FloatForm::Infinity => format!("{t}::INFINITY"),
            FloatForm::NegInfinity => format!("-{t}::INFINITY"),
            FloatForm::Finite(s) => format!("{s}_{t}"),
        }
    }

    fn emit(&self, plan: &Plan<'_>) -> Result<Vec<GeneratedFile>, String> {
        let mut g = Gen {
            b: self,
            w: CodeWriter::new("    "),
            shadowed: crate::names::declared(self, plan, ""),
            borrowing: plan.borrowing_messages(),
        };
        g.header();
        super::emit_items(plan, &mut g);
        Ok(vec![GeneratedFile {
            path: format!("{}.rs", plan.stem).into(),
            contents: g.w.finish(),
        }])
    }
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Names of the prelude that generated code uses unqualified unless a
/// generated type takes the name, and their full paths.
const PRELUDE: &[(&str, &str)] = &[
    ("Option", "::core::option::Option"),
    ("Some", "::core::option::Option::Some"),
    ("None", "::core::option::Option::None"),
    ("Ok", "::core::result::Result::Ok"),
    ("Err", "::core::result::Result::Err"),
    ("String", "::std::string::String"),
    ("Vec", "::std::vec::Vec"),
    ("Box", "::std::boxed::Box"),
    ("Default", "::core::default::Default"),
];

/// A name usable as a Rust identifier: keywords become raw identifiers, and
/// the four that cannot be raw get a trailing `_`.
/// The body of a Rust byte-string literal holding the UTF-8 bytes of `s`:
/// printable ASCII as itself, everything else as `\xNN`.
fn byte_string_body(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        match c {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out
}

fn ident(name: &str) -> String {
    match name {
        "self" | "Self" | "super" | "crate" => format!("{name}_"),
        n if KEYWORDS.contains(&n) => format!("r#{n}"),
        n => n.to_string(),
    }
}

/// The Rust type of a scalar schema type (`i64` for `i64`, `bool` for
/// `bool`, ...), `None` for the others.
pub fn scalar_name(t: &TypeRef) -> Option<&'static str> {
    Some(match t {
        TypeRef::Bool => "bool",
        TypeRef::I8 => "i8",
        TypeRef::I16 => "i16",
        TypeRef::I32 => "i32",
        TypeRef::I64 => "i64",
        TypeRef::U8 => "u8",
        TypeRef::U16 => "u16",
        TypeRef::U32 => "u32",
        TypeRef::U64 => "u64",
        TypeRef::F32 => "f32",
        TypeRef::F64 => "f64",
        _ => return None,
    })
}

/// The name of a message's borrowed form.
fn ref_name(qualified: &str) -> String {
    format!("{}Ref", short_name(qualified))
}

/// The local variable holding a decoded field.
fn local(name: &str) -> String {
    format!("f_{}", name.trim_start_matches("r#"))
}

struct Gen<'p> {
    b: &'p Rust,
    w: CodeWriter,
    /// Names the generated types take (a prelude name among them is
    /// written by its full path).
    shadowed: std::collections::HashSet<String>,
    /// Messages with something to borrow ([`Plan::borrowing_messages`]); the others
    /// are their own borrowed form.
    borrowing: std::collections::HashSet<String>,
}

impl<'p> Gen<'p> {
    fn line(&mut self, indent: usize, text: &str) {
        self.w.line(indent, text);
    }

    fn docs(&mut self, indent: usize, doc: &[String]) {
        self.w.doc(indent, DocStyle::Lines("///"), doc);
    }

    /// The doc comment, or `fallback` when the schema has none (every
    /// public item is documented, so `missing_docs` holds).
    fn docs_or(&mut self, indent: usize, doc: &[String], fallback: &str) {
        if doc.is_empty() {
            self.docs(indent, &[fallback.to_string()]);
        } else {
            self.docs(indent, doc);
        }
    }

    fn quote(&self, s: &str) -> String {
        self.b.string_literal(s)
    }

    /// Prelude item `name` (`Option`, `Some`, `String`, ...), by its full
    /// path when a generated type shadows it.
    fn std(&self, name: &str) -> &'static str {
        let (short, full) = PRELUDE
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a PRELUDE name");
        if self.shadowed.contains(*short) {
            full
        } else {
            short
        }
    }

    fn header(&mut self) {
        self.w.raw(
            "// @generated by `flexbuf gen --lang rust`. Do not edit.\n\
             #[allow(unused_imports)]\n\
             use flexbuf::typed::{at_key as __at_key, field as __field, lookup as __lookup, missing as __missing, unexpected_null as __null, union_entry as __union_entry, unknown_enum as __unknown_enum, unknown_variant as __unknown_variant};\n\
             #[allow(unused_imports)]\n\
             use flexbuf::FlexCoder as _;\n\
             #[allow(unused_imports)]\n\
             use flexbuf::FlexBorrow as _;\n\n",
        );
    }

    fn rust_type(&self, t: &TypeRef) -> String {
        if let Some(name) = scalar_name(t) {
            return name.into();
        }
        match t {
            TypeRef::String => self.std("String").into(),
            TypeRef::Bytes => format!("{}<u8>", self.std("Vec")),
            TypeRef::Vector(e) => format!("{}<{}>", self.std("Vec"), self.rust_type(e)),
            TypeRef::Array(e, n) => format!("[{}; {n}]", self.rust_type(e)),
            TypeRef::Map(v) => format!(
                "std::collections::BTreeMap<{}, {}>",
                self.std("String"),
                self.rust_type(v)
            ),
            TypeRef::Message(n) | TypeRef::Enum(n) | TypeRef::Union(n) => self.b.type_name(n),
            scalar => unreachable!("scalar_name names every scalar, not {scalar:?}"),
        }
    }

    fn field_type(&self, f: &FieldPlan<'_>) -> String {
        let mut t = self.rust_type(&f.def.ty);
        if f.recursive {
            t = format!("{}<{t}>", self.std("Box"));
        }
        if f.def.optional {
            t = format!("{}<{t}>", self.std("Option"));
        }
        t
    }
}

impl super::ModuleItems for Gen<'_> {
    // ---- enums -------------------------------------------------------------

    fn enum_def(&mut self, e: &EnumDef) {
        let name = self.b.type_name(&e.name);
        self.docs_or(0, &e.doc, &format!("The `{}` enum.", e.name));
        self.line(
            0,
            "#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]",
        );
        self.line(0, &format!("pub enum {name} {{"));
        for (i, v) in e.variants.iter().enumerate() {
            self.docs_or(
                1,
                &v.doc,
                &format!("`{}` (wire value {}).", v.name, v.value),
            );
            if i == 0 {
                self.line(1, "#[default]");
            }
            self.line(1, &format!("{},", self.b.variant_name(&v.name)));
        }
        self.line(0, "}\n");
        self.line(0, &format!("impl {name} {{"));
        self.line(1, "/// The variant with this wire value.");
        self.line(
            1,
            &format!(
                "pub fn from_value(value: i64) -> {}<Self> {{",
                self.std("Option")
            ),
        );
        self.line(2, "match value {");
        for v in &e.variants {
            self.line(
                3,
                &format!(
                    "{} => {}(Self::{}),",
                    v.value,
                    self.std("Some"),
                    self.b.variant_name(&v.name)
                ),
            );
        }
        self.line(3, &format!("_ => {},", self.std("None")));
        self.line(2, "}");
        self.line(1, "}\n");
        self.line(1, "/// The wire value.");
        self.line(1, "pub fn value(self) -> i64 {");
        self.line(2, "match self {");
        for v in &e.variants {
            self.line(
                3,
                &format!("Self::{} => {},", self.b.variant_name(&v.name), v.value),
            );
        }
        self.line(2, "}");
        self.line(1, "}");
        self.line(0, "}\n");
    }

    // ---- unions ------------------------------------------------------------

    fn union_def(&mut self, up: &UnionPlan<'_>) {
        let u = up.def;
        let name = self.b.type_name(&u.name);
        let eq = if up.has_float { "" } else { ", Eq" };
        self.docs_or(0, &u.doc, &format!("The `{}` union.", u.name));
        self.line(0, &format!("#[derive(Clone, Debug, PartialEq{eq})]"));
        self.line(0, &format!("pub enum {name} {{"));
        for vp in &up.variants {
            let v = vp.def;
            self.docs_or(1, &v.doc, &format!("The `{}` variant.", v.wire_name));
            let mut t = self.rust_type(&v.ty);
            if vp.recursive {
                t = format!("{}<{t}>", self.std("Box"));
            }
            self.line(1, &format!("{}({t}),", self.b.variant_name(&v.name)));
        }
        self.line(0, "}\n");
        let fp = up.fingerprint;
        self.line(0, &format!("impl flexbuf::FlexCoder for {name} {{"));
        self.line(1, &format!("const FINGERPRINT: u64 = {fp:#018x};\n"));
        self.line(1, "fn encode_into(&self, b: &mut flexbuf::Builder, cx: &mut flexbuf::EncodeContext) -> flexbuf::Result<()> {");
        self.line(2, "let _ = &cx;");
        self.line(2, "b.start_map();");
        self.line(2, "match self {");
        for v in &u.variants {
            self.line(
                3,
                &format!("Self::{}(v) => {{", self.b.variant_name(&v.name)),
            );
            self.line(4, &format!("b.key({});", self.quote(&v.wire_name)));
            let enc = self.encode_expr(&v.ty, "v", 4);
            self.w.raw(&enc);
            self.line(3, "}");
        }
        self.line(2, "}");
        self.line(2, "b.end_map()");
        self.line(1, "}\n");
        self.line(1, "fn decode_from(r: flexbuf::Reader<'_>, cx: &mut flexbuf::DecodeContext) -> flexbuf::Result<Self> {");
        self.line(2, "cx.enter()?;");
        self.line(
            2,
            &format!(
                "let (tag, v) = __union_entry({}, r)?;",
                self.quote(short_name(&u.name))
            ),
        );
        self.line(2, "let out = match tag {");
        for vp in &up.variants {
            let v = vp.def;
            let dec = self.decode_expr(&v.ty, "v", 1, false);
            let variant = self.b.variant_name(&v.name);
            let key = self.quote(&v.wire_name);
            let wrap = if vp.recursive {
                format!(
                    "{dec}.map(|x| Self::{variant}({}::new(x)))",
                    self.std("Box")
                )
            } else {
                format!("{dec}.map(Self::{variant})")
            };
            self.line(3, &format!("{key} => {wrap}.map_err(__at_key({key})),"));
        }
        self.line(
            3,
            &format!(
                "other => {}(__unknown_variant({}, other, &r)),",
                self.std("Err"),
                self.quote(short_name(&u.name))
            ),
        );
        self.line(2, "};");
        self.line(2, "cx.leave();");
        self.line(2, "out");
        self.line(1, "}");
        self.line(0, "}\n");
        self.own_borrowed_form(&u.name);
    }

    // ---- messages ------------------------------------------------------------

    fn message(&mut self, mp: &MessagePlan<'_>) {
        let m = mp.def;
        let name = self.b.type_name(&m.name);
        let eq = if mp.has_float { "" } else { ", Eq" };
        self.docs_or(0, &m.doc, &format!("The `{}` message.", m.name));
        let absent: Vec<String> = mp
            .fields
            .iter()
            .map(|f| self.absent_value(f, false))
            .collect();
        // `Default` is derived only for arrays of up to 32 elements.
        let derivable = mp.fields.iter().all(|f| {
            !matches!(f.absent, Absent::Default(_))
                && !matches!(f.def.ty, TypeRef::Array(_, n) if n > 32 && !f.def.optional)
        });
        let default = if mp.defaultable && derivable {
            ", Default"
        } else {
            ""
        };
        self.line(
            0,
            &format!("#[derive(Clone, Debug{default}, PartialEq{eq})]"),
        );
        self.line(0, &format!("pub struct {name} {{"));
        for f in &mp.fields {
            self.docs_or(1, &f.def.doc, &format!("The `{}` field.", f.def.name));
            let t = self.field_type(f);
            self.line(1, &format!("pub {}: {t},", self.b.field_name(&f.def.name)));
        }
        self.line(0, "}\n");

        let keys: Vec<String> = mp
            .wire_fields()
            .map(|f| self.quote(&f.def.wire_name))
            .collect();
        self.line(0, &format!("impl {name} {{"));
        self.line(
            1,
            "/// Wire names in wire order: the keys vector every encoded map of this type shares.",
        );
        self.line(
            1,
            &format!(
                "pub const WIRE_KEYS: &'static [&'static str] = &[{}];",
                keys.join(", ")
            ),
        );
        let block: String = mp
            .wire_fields()
            .map(|f| format!("{}\\0", byte_string_body(&f.def.wire_name)))
            .collect();
        self.line(
            1,
            "/// The keys and how generated encoders lay them out (proves a map's keys in one comparison).",
        );
        let starts: Vec<String> = mp
            .wire_fields()
            .scan(0usize, |at, f| {
                let start = *at;
                *at += f.def.wire_name.len() + 1;
                Some(start.to_string())
            })
            .collect();
        self.line(
            1,
            &format!(
                "pub const LAYOUT: flexbuf::typed::Layout = flexbuf::typed::Layout::with_starts(Self::WIRE_KEYS, b\"{block}\", &[{}]);",
                starts.join(", ")
            ),
        );
        self.line(0, "}\n");

        if mp.defaultable && !derivable {
            self.line(0, &format!("impl {} for {name} {{", self.std("Default")));
            self.line(1, "fn default() -> Self {");
            self.line(2, "Self {");
            for (f, d) in mp.fields.iter().zip(&absent) {
                self.line(3, &format!("{}: {d},", self.b.field_name(&f.def.name)));
            }
            self.line(2, "}");
            self.line(1, "}");
            self.line(0, "}\n");
        }

        let fp = mp.fingerprint;
        self.line(0, &format!("impl flexbuf::FlexCoder for {name} {{"));
        self.line(1, &format!("const FINGERPRINT: u64 = {fp:#018x};\n"));
        self.line(1, "fn encode_into(&self, b: &mut flexbuf::Builder, cx: &mut flexbuf::EncodeContext) -> flexbuf::Result<()> {");
        self.line(2, "let f = self.encode_field(b, cx)?;");
        self.line(2, "b.push_field(f)");
        self.line(1, "}\n");
        self.encode_field(mp);

        self.line(1, "fn decode_from(r: flexbuf::Reader<'_>, cx: &mut flexbuf::DecodeContext) -> flexbuf::Result<Self> {");
        self.decode_body(mp, None);
        self.line(1, "}");
        self.line(0, "}\n");
        self.borrowed(mp, derivable);
    }

    // ---- views -------------------------------------------------------------------

    fn view(&mut self, mp: &MessagePlan<'_>) {
        let m = mp.def;
        let name = format!("{}View", short_name(&m.name));
        self.line(
            0,
            &format!(
                "/// Reads single fields of a [`{}`] straight from the bytes.",
                self.b.type_name(&m.name)
            ),
        );
        self.line(0, "#[derive(Clone, Copy, Debug)]");
        self.line(0, &format!("pub struct {name}<'a> {{"));
        self.line(1, "map: flexbuf::MapReader<'a>,");
        self.line(0, "}\n");
        self.line(0, &format!("impl<'a> {name}<'a> {{"));
        self.line(1, "/// A view of the map `r` refers to.");
        self.line(
            1,
            "pub fn new(r: flexbuf::Reader<'a>) -> flexbuf::Result<Self> {",
        );
        self.line(
            2,
            &format!("{}(Self {{ map: r.as_map()? }})", self.std("Ok")),
        );
        self.line(1, "}\n");
        self.line(1, "/// A view of the root of `bytes` (checked reads: safe on untrusted bytes, no full verification).");
        self.line(
            1,
            "pub fn from_bytes(bytes: &'a [u8]) -> flexbuf::Result<Self> {",
        );
        self.line(2, "Self::new(flexbuf::Reader::new(bytes)?)");
        self.line(1, "}\n");
        self.line(1, "/// The underlying map.");
        self.line(1, "pub fn raw(&self) -> flexbuf::MapReader<'a> {");
        self.line(2, "self.map");
        self.line(1, "}");
        let fields: Vec<String> = mp
            .wire_fields()
            .map(|f| self.b.field_name(&f.def.name))
            .collect();
        let names = accessors(&fields, self.b.reserved_members(), "_field");
        let (some, none, ok) = (self.std("Some"), self.std("None"), self.std("Ok"));
        for (f, accessor) in mp.wire_fields().map(|f| f.def).zip(names) {
            let key = self.quote(&f.wire_name);
            let (ret, conv) = self.view_accessor(&f.ty);
            self.line(0, "");
            self.docs_or(1, &f.doc, &format!("The `{}` field.", f.name));
            if f.optional {
                self.line(
                    1,
                    &format!(
                        "pub fn {accessor}(&self) -> flexbuf::Result<{}<{ret}>> {{",
                        self.std("Option")
                    ),
                );
                self.line(2, &format!("match self.map.find({key})? {{"));
                self.line(3, &format!("{some}(v) if v.is_null() => {ok}({none}),"));
                if conv == "v" {
                    self.line(3, &format!("{some}(v) => {ok}({some}(v)),"));
                } else {
                    self.line(3, &format!("{some}(v) => {conv}.map({some}),"));
                }
                self.line(3, &format!("{none} => {ok}({none}),"));
                self.line(2, "}");
            } else {
                self.line(
                    1,
                    &format!("pub fn {accessor}(&self) -> flexbuf::Result<{ret}> {{"),
                );
                self.line(2, &format!("let v = self.map.get({key})?;"));
                if conv == "v" {
                    self.line(2, &format!("{ok}(v)"));
                } else {
                    self.line(2, &conv);
                }
            }
            self.line(1, "}");
        }
        self.line(0, "}\n");
        self.line(
            0,
            &format!("impl<'a> flexbuf::typed::View<'a> for {name}<'a> {{"),
        );
        self.line(
            1,
            "fn view(r: flexbuf::Reader<'a>) -> flexbuf::Result<Self> {",
        );
        self.line(2, "Self::new(r)");
        self.line(1, "}");
        self.line(0, "}\n");
    }
}

impl Gen<'_> {
    // ---- borrowed forms --------------------------------------------------------

    /// Whether the `Ref` form of type `t` borrows from the buffer (else it
    /// is the owned type).
    fn borrows(&self, t: &TypeRef) -> bool {
        crate::plan::borrows_given(t, &|n| self.borrowing.contains(n))
    }

    /// The type of `t` in a `Ref` struct.
    fn ref_type(&self, t: &TypeRef) -> String {
        match t {
            TypeRef::String => "&'a str".into(),
            TypeRef::Bytes => "&'a [u8]".into(),
            TypeRef::Vector(e) if e.is_scalar() && **e != TypeRef::Bool => {
                format!("::std::borrow::Cow<'a, [{}]>", self.rust_type(e))
            }
            TypeRef::Vector(e) => format!("{}<{}>", self.std("Vec"), self.ref_type(e)),
            TypeRef::Map(v) => format!("std::collections::BTreeMap<&'a str, {}>", self.ref_type(v)),
            TypeRef::Message(n) => format!("{}<'a>", ref_name(n)),
            other => self.rust_type(other),
        }
    }

    /// The function turning a `Ref`-form value of type `t` into the owned
    /// type, when one function does it.
    fn own_fn(&self, t: &TypeRef) -> Option<String> {
        match t {
            _ if !self.borrows(t) => None,
            TypeRef::String => Some(format!("{}::from", self.std("String"))),
            TypeRef::Bytes => Some("<[u8]>::to_vec".into()),
            TypeRef::Vector(el) if el.is_scalar() => Some("::std::borrow::Cow::into_owned".into()),
            TypeRef::Message(_) => Some("flexbuf::FlexBorrow::into_owned".into()),
            _ => None,
        }
    }

    /// `v` (a value of type `t`) mapped by `f` inside `wrap` (`.map(...)`),
    /// naming the function when one does it (no redundant closure).
    fn own_map(&self, t: &TypeRef, v: &str, depth: usize) -> String {
        let e = format!("e{depth}");
        match self.own_fn(t) {
            Some(f) => format!("{v}.map({f})"),
            None => format!("{v}.map(|{e}| {})", self.own_expr(t, &e, depth + 1)),
        }
    }

    /// An expression turning `v` (a `Ref`-form value of type `t`, by value)
    /// into the owned type; `depth` names closure variables.
    fn own_expr(&self, t: &TypeRef, v: &str, depth: usize) -> String {
        if let Some(f) = self.own_fn(t) {
            return format!("{f}({v})");
        }
        if !self.borrows(t) {
            return v.to_string();
        }
        let e = format!("e{depth}");
        match t {
            TypeRef::Vector(el) => format!(
                "{}.collect()",
                self.own_map(el, &format!("{v}.into_iter()"), depth)
            ),
            TypeRef::Map(el) => format!(
                "{v}.into_iter().map(|(k, {e})| ({}::from(k), {})).collect()",
                self.std("String"),
                self.own_expr(el, &e, depth + 1)
            ),
            _ => unreachable!("own_fn covers every other borrowing type"),
        }
    }

    /// The borrowed form of a type with nothing to borrow: an alias of the
    /// owned type, whose [`flexbuf::FlexBorrow`] decodes it owned.
    fn own_borrowed_form(&mut self, qualified: &str) {
        let owned = self.b.type_name(qualified);
        let name = ref_name(qualified);
        self.line(
            0,
            &format!(
                "/// [`{owned}`] has nothing to borrow from a buffer: it is its own borrowed form."
            ),
        );
        self.line(0, &format!("pub type {name}<'a> = {owned};\n"));
        self.line(
            0,
            &format!("impl<'a> flexbuf::FlexBorrow<'a> for {owned} {{"),
        );
        self.line(1, "type Owned = Self;\n");
        self.line(1, "fn decode_borrowed(r: flexbuf::Reader<'a>, cx: &mut flexbuf::DecodeContext) -> flexbuf::Result<Self> {");
        self.line(2, "<Self as flexbuf::FlexCoder>::decode_from(r, cx)");
        self.line(1, "}\n");
        self.line(1, "fn into_owned(self) -> Self {");
        self.line(2, "self");
        self.line(1, "}");
        self.line(0, "}\n");
    }

    /// A message's borrowed form: `{Name}Ref<'a>` with [`flexbuf::FlexBorrow`]
    /// when it has anything to borrow, else an alias of the owned type.
    fn borrowed(&mut self, mp: &MessagePlan<'_>, derivable: bool) {
        let m = mp.def;
        let owned = self.b.type_name(&m.name);
        let name = ref_name(&m.name);
        let boxed = self.std("Box");
        if !self.borrowing.contains(&m.name) {
            self.own_borrowed_form(&m.name);
            return;
        }
        let eq = if mp.has_float { "" } else { ", Eq" };
        let default = if mp.defaultable && derivable {
            ", Default"
        } else {
            ""
        };
        self.line(
            0,
            &format!("/// [`{owned}`] with its strings, blobs, map keys and numeric vectors borrowed from the buffer (see [`flexbuf::FlexBorrow`])."),
        );
        self.line(
            0,
            &format!("#[derive(Clone, Debug{default}, PartialEq{eq})]"),
        );
        self.line(0, &format!("pub struct {name}<'a> {{"));
        for f in &mp.fields {
            self.docs_or(1, &f.def.doc, &format!("The `{}` field.", f.def.name));
            let mut t = self.ref_type(&f.def.ty);
            if f.recursive {
                t = format!("{boxed}<{t}>");
            }
            if f.def.optional {
                t = format!("{}<{t}>", self.std("Option"));
            }
            self.line(1, &format!("pub {}: {t},", self.b.field_name(&f.def.name)));
        }
        self.line(0, "}\n");
        if mp.defaultable && !derivable {
            self.line(
                0,
                &format!("impl {} for {name}<'_> {{", self.std("Default")),
            );
            self.line(1, "fn default() -> Self {");
            self.line(2, "Self {");
            for f in &mp.fields {
                let d = self.absent_value(f, true);
                self.line(3, &format!("{}: {d},", self.b.field_name(&f.def.name)));
            }
            self.line(2, "}");
            self.line(1, "}");
            self.line(0, "}\n");
        }
        self.line(
            0,
            &format!("impl<'a> flexbuf::FlexBorrow<'a> for {name}<'a> {{"),
        );
        self.line(1, &format!("type Owned = {owned};\n"));
        self.line(1, "fn decode_borrowed(r: flexbuf::Reader<'a>, cx: &mut flexbuf::DecodeContext) -> flexbuf::Result<Self> {");
        self.decode_body(mp, Some(&owned));
        self.line(1, "}\n");
        self.line(1, &format!("fn into_owned(self) -> {owned} {{"));
        self.line(2, &format!("{owned} {{"));
        for f in &mp.fields {
            let field = self.b.field_name(&f.def.name);
            let own = |g: &Self, x: &str| -> String {
                if f.recursive && g.borrows(&f.def.ty) {
                    format!(
                        "{boxed}::new({})",
                        g.own_expr(&f.def.ty, &format!("*{x}"), 1)
                    )
                } else {
                    g.own_expr(&f.def.ty, x, 1)
                }
            };
            let value = if f.def.optional {
                if !self.borrows(&f.def.ty) {
                    format!("self.{field}")
                } else if f.recursive {
                    format!("self.{field}.map(|v| {})", own(self, "v"))
                } else {
                    self.own_map(&f.def.ty, &format!("self.{field}"), 1)
                }
            } else {
                own(self, &format!("self.{field}"))
            };
            self.line(3, &format!("{field}: {value},"));
        }
        self.line(2, "}");
        self.line(1, "}");
        self.line(0, "}\n");
    }

    /// The statements of a message's decoder: fields read by position once
    /// the layout is proven. `borrowed_from` names the owned type when this is
    /// its `Ref` form's decoder.
    fn decode_body(&mut self, mp: &MessagePlan<'_>, borrowed_from: Option<&str>) {
        let borrowed = borrowed_from.is_some();
        let owner = match borrowed_from {
            Some(owned) => format!("<{owned} as flexbuf::FlexCoder>"),
            None => "Self".to_string(),
        };
        self.line(2, "cx.enter()?;");
        if mp.fields.is_empty() {
            // Nothing to read, but the map is checked as any message's is
            // (keys as many as values; keys not the type's checked).
            let layout = borrowed_from.unwrap_or("Self");
            self.line(2, "let m = r.as_map()?;");
            self.line(
                2,
                &format!("cx.layout_proven({owner}::FINGERPRINT, &m, &{layout}::LAYOUT)?;"),
            );
        } else {
            let layout = borrowed_from.unwrap_or("Self");
            if mp.repeated {
                // Many maps of this type share a keys vector: checked once.
                self.line(
                    2,
                    &format!(
                        "let (m, fast) = cx.message(&r, {owner}::FINGERPRINT, &{layout}::LAYOUT)?;"
                    ),
                );
            } else {
                self.line(2, "let m = r.as_map()?;");
                self.line(
                    2,
                    &format!(
                        "let fast = cx.layout_proven({owner}::FINGERPRINT, &m, &{layout}::LAYOUT)?;"
                    ),
                );
            }
        }
        for f in mp.wire_fields() {
            let var = local(&self.b.field_name(&f.def.name));
            let key = self.quote(&f.def.wire_name);
            // Each field has one call to a shared, out-of-line reader (see
            // `flexbuf::typed::field::get`), so wide messages stay small.
            let (get, args) = self.field_reader(f, borrowed);
            let boxed = self.std("Box");
            let mut boxing = match (f.recursive, f.def.optional) {
                (false, _) => String::new(),
                (true, false) => format!(".map({boxed}::new)"),
                (true, true) => format!(".map(|v| v.map({boxed}::new))"),
            };
            let absent = match &f.absent {
                Absent::Required => format!(".ok_or_else(|| __missing({key}))?"),
                Absent::Null if f.recursive => {
                    boxing.clear();
                    format!(".and_then(|v| v.map({boxed}::new))")
                }
                Absent::Null => ".flatten()".into(),
                Absent::Zero if !matches!(f.def.ty, TypeRef::Array(_, n) if n > 32) => {
                    ".unwrap_or_default()".into()
                }
                // Literals of scalars and enums cost nothing to build; other
                // defaults (strings, long arrays) only when absent.
                _ if f.def.ty.is_scalar()
                    || matches!(f.def.ty, TypeRef::Enum(_))
                    || (borrowed && f.def.ty == TypeRef::String) =>
                {
                    format!(".unwrap_or({})", self.absent_value(f, borrowed))
                }
                _ => format!(".unwrap_or_else(|| {})", self.absent_value(f, borrowed)),
            };
            let index = f.wire_index;
            let read = format!("__field::{get}(&m, fast, {index}, {key}{args})?{boxing}{absent}");
            // Integers of every width, floats, booleans and strings, and a
            // null in any optional field, are first read from their slot by
            // a small inlined reader (`__field::*_slot`; strings out of line
            // but answering in registers); the call reads (or refuses) the
            // rest. (`f32` and the narrower integers once went straight to
            // the call: about 110 instructions a field, four fifths of the
            // decode of a mesh of `f32` points.)
            let slot = match (&f.def.ty, f.def.optional) {
                _ if f.recursive => None,
                (_, false) => match get {
                    "get_i64" | "get_f64" | "get_bool" | "get_str" | "get_string" => {
                        Some(&get[4..])
                    }
                    // The narrower integers and `f32`, read through `get`
                    // with their decoder: the slot reader first.
                    "get" => match f.def.ty {
                        TypeRef::I8 => Some("i8"),
                        TypeRef::I16 => Some("i16"),
                        TypeRef::I32 => Some("i32"),
                        TypeRef::U8 => Some("u8"),
                        TypeRef::U16 => Some("u16"),
                        TypeRef::U32 => Some("u32"),
                        TypeRef::U64 => Some("u64"),
                        TypeRef::F32 => Some("f32"),
                        _ => None,
                    },
                    _ => None,
                },
                // Optional fields absent as null (`.flatten()`).
                (ty, true) if matches!(f.absent, Absent::Null) => match ty {
                    TypeRef::I64 => Some("opt_i64"),
                    TypeRef::F64 => Some("opt_f64"),
                    TypeRef::Bool => Some("opt_bool"),
                    TypeRef::String if borrowed => Some("opt_str"),
                    TypeRef::String => Some("opt_string"),
                    _ => Some("null"),
                },
                _ => None,
            };
            let slot_args = match (&f.def.ty, slot) {
                (TypeRef::String, Some(t)) if t != "null" => ", cx",
                _ => "",
            };
            let line = match slot {
                Some(t) => format!(
                    "let {var} = match __field::{t}_slot(&m, fast, {index}{slot_args}) {{ Some(v) => v, None => {read} }};"
                ),
                None => format!("let {var} = {read};"),
            };
            self.line(2, &line);
        }
        self.line(2, "cx.leave();");
        self.line(2, &format!("{}(Self {{", self.std("Ok")));
        for f in &mp.fields {
            self.line(
                3,
                &format!(
                    "{}: {},",
                    self.b.field_name(&f.def.name),
                    local(&self.b.field_name(&f.def.name))
                ),
            );
        }
        self.line(2, "})");
    }

    /// The expression for an absent field that is not required (or the
    /// field's value in `Default`); `borrowed` for the `Ref` form.
    fn absent_value(&self, f: &FieldPlan<'_>, borrowed: bool) -> String {
        let lit = match &f.absent {
            Absent::Null => return self.std("None").into(),
            Absent::Zero | Absent::Required => {
                let zero = format!("{}::default()", self.std("Default"));
                return match &f.def.ty {
                    // Arrays of any length (`Default` stops at 32 elements).
                    TypeRef::Array(_, n) => format!("[{zero}; {n}]"),
                    _ => zero,
                };
            }
            Absent::Default(d) => self.literal(&f.def.ty, d, borrowed),
        };
        let lit = if f.recursive {
            format!("{}::new({lit})", self.std("Box"))
        } else {
            lit
        };
        if f.def.optional {
            format!("{}({lit})", self.std("Some"))
        } else {
            lit
        }
    }

    fn literal(&self, t: &TypeRef, d: &DefaultValue, borrowed: bool) -> String {
        match d {
            DefaultValue::String(s) if borrowed => self.quote(s),
            DefaultValue::Bool(b) => b.to_string(),
            DefaultValue::Int(i) => format!("{i}_{}", self.rust_type(t)),
            DefaultValue::UInt(u) => format!("{u}_{}", self.rust_type(t)),
            DefaultValue::Float(f) => self.b.float_literal(*f, t),
            DefaultValue::String(s) if self.shadowed.contains("ToString") => {
                format!("::std::string::ToString::to_string({})", self.quote(s))
            }
            DefaultValue::String(s) => format!("{}.to_string()", self.quote(s)),
            DefaultValue::EnumVariant(v) => {
                format!("{}::{}", self.rust_type(t), self.b.variant_name(v))
            }
            DefaultValue::Null => self.std("None").into(),
        }
    }

    /// `encode_field` of a message: its offset fields written first (each
    /// kept in `f{i}`), then every field told to a `MapWidths` and stored
    /// by a `MessageMap`, in wire order (see `flexbuf::typed::MessageMap`).
    fn encode_field(&mut self, mp: &MessagePlan<'_>) {
        self.line(1, "fn encode_field(&self, b: &mut flexbuf::Builder, cx: &mut flexbuf::EncodeContext) -> flexbuf::Result<flexbuf::typed::Field> {");
        self.line(
            2,
            "static SLOT: flexbuf::typed::TypeSlot = flexbuf::typed::TypeSlot::new();",
        );
        self.line(
            2,
            "let keys = cx.key_vector_at(b, &SLOT, Self::FINGERPRINT, &Self::LAYOUT)?;",
        );
        let fields: Vec<&FieldPlan<'_>> = mp.wire_fields().collect();
        // How each field reaches the map: a scalar read again from `self`,
        // or a `Field` kept from the first step.
        let mut kept = Vec::with_capacity(fields.len());
        for (i, f) in fields.iter().enumerate() {
            let access = format!("self.{}", self.b.field_name(&f.def.name));
            let scalar = !f.def.optional && scalar_field(&f.def.ty);
            if scalar {
                kept.push(None);
                continue;
            }
            if f.def.optional {
                self.line(2, &format!("let f{i} = match &{access} {{"));
                let some = self.field_value(&f.def.ty, "v", 3);
                self.line(3, &format!("{}(v) => {some},", self.std("Some")));
                self.line(
                    3,
                    &format!("{} => flexbuf::typed::Field::NULL,", self.std("None")),
                );
                self.line(2, "};");
            } else {
                let value = self.field_value(&f.def.ty, &format!("&{access}"), 2);
                self.line(2, &format!("let f{i} = {value};"));
            }
            kept.push(Some(f.def.optional));
        }
        let mut calls = Vec::new();
        for (i, (f, k)) in fields.iter().zip(&kept).enumerate() {
            let access = format!("self.{}", self.b.field_name(&f.def.name));
            match k {
                Some(true) => calls.push(format!("w.field({i}, &f{i});")),
                Some(false) => calls.push(format!("w.child({i}, &f{i});")),
                None => {
                    if let Some(call) = width_call(&f.def.ty, &access) {
                        calls.push(format!("w.{call};"));
                    }
                }
            }
        }
        // Booleans alone leave the widths as they start.
        let mutable = if calls.is_empty() { "" } else { "mut " };
        let n = fields.len();
        self.line(
            2,
            &format!("let {mutable}w = flexbuf::typed::MapWidths::<{n}>::new(b);"),
        );
        for c in &calls {
            self.line(2, c);
        }
        let mutable = if fields.is_empty() { "" } else { "mut " };
        self.line(2, &format!("let {mutable}m = b.message_map(&keys, &w)?;"));
        for (i, (f, k)) in fields.iter().zip(&kept).enumerate() {
            let access = format!("self.{}", self.b.field_name(&f.def.name));
            match k {
                Some(true) => self.line(2, &format!("m.field(&f{i});")),
                Some(false) => self.line(2, &format!("m.child(&f{i});")),
                None => self.line(2, &format!("m.{};", store_call(&f.def.ty, &access))),
            }
        }
        self.line(2, "m.finish()");
        self.line(1, "}\n");
    }

    /// An expression making the `flexbuf::typed::Field` of the value `v`
    /// (of type `&T`) of type `t`, writing what it points at first.
    fn field_value(&self, t: &TypeRef, v: &str, indent: usize) -> String {
        let place = v.strip_prefix('&').unwrap_or(v);
        let val = match v.strip_prefix('&') {
            Some(p) => p.to_string(),
            None => format!("*{v}"),
        };
        match t {
            _ if scalar_field(t) => {
                // An enum's `value()` is called through the reference.
                let v = if matches!(t, TypeRef::Enum(_)) {
                    place
                } else {
                    &val
                };
                let (method, arg) = scalar_call(t, v);
                format!("flexbuf::typed::Field::{method}({arg})")
            }
            TypeRef::String => format!("b.string_field({v})"),
            TypeRef::Bytes => format!("b.blob_field({v})"),
            TypeRef::Vector(e) if **e == TypeRef::String => format!("b.strings_field({v})?"),
            // Method-call syntax derefs through `&` and `Box` alike.
            TypeRef::Message(_) | TypeRef::Union(_) => format!("{place}.encode_field(b, cx)?"),
            _ => {
                let pad = "    ".repeat(indent);
                let push = self.encode_expr(t, v, indent + 1);
                format!("{{\n{push}{pad}    b.pop_field()?\n{pad}}}")
            }
        }
    }

    /// Statements pushing the value `v` (an expression of type `&T`) of type `t`.
    fn encode_expr(&self, t: &TypeRef, v: &str, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        // `&self.x` is used as the place `self.x`; a plain reference `v` as `*v`.
        let place = v.strip_prefix('&').unwrap_or(v);
        let val = match v.strip_prefix('&') {
            Some(p) => p.to_string(),
            None => format!("*{v}"),
        };
        let wide = matches!(t, TypeRef::I64 | TypeRef::U64);
        match t {
            TypeRef::Bool => format!("{pad}b.bool({val});\n"),
            TypeRef::I8 | TypeRef::I16 | TypeRef::I32 | TypeRef::I64 => {
                format!("{pad}b.int({val}{});\n", if wide { "" } else { " as i64" })
            }
            TypeRef::U8 | TypeRef::U16 | TypeRef::U32 | TypeRef::U64 => {
                format!("{pad}b.uint({val}{});\n", if wide { "" } else { " as u64" })
            }
            TypeRef::F32 => format!("{pad}b.float({val});\n"),
            TypeRef::F64 => format!("{pad}b.double({val});\n"),
            TypeRef::String => format!("{pad}b.string({v});\n"),
            TypeRef::Bytes => format!("{pad}b.blob({v});\n"),
            TypeRef::Vector(e) if e.is_scalar() => format!("{pad}b.typed_vector({v});\n"),
            TypeRef::Array(e, n) if TypeRef::fixed_vector_form(e, *n) => {
                format!("{pad}b.fixed_vector({v})?;\n")
            }
            TypeRef::Array(..) => format!("{pad}b.typed_vector({v});\n"),
            TypeRef::Vector(e) if **e == TypeRef::String => {
                format!("{pad}b.start_vector();\n{pad}b.strings({v});\n{pad}b.end_vector()?;\n")
            }
            // Empty lists and maps (common in records) in one builder call.
            TypeRef::Vector(e) => {
                let inner = self.encode_expr(e, "e", indent + 2);
                format!("{pad}if {place}.is_empty() {{\n{pad}    b.empty_vector()?;\n{pad}}} else {{\n{pad}    b.start_vector();\n{pad}    for e in {place}.iter() {{\n{inner}{pad}    }}\n{pad}    b.end_vector()?;\n{pad}}}\n")
            }
            TypeRef::Map(e) => {
                let inner = self.encode_expr(e, "e", indent + 2);
                format!("{pad}if {place}.is_empty() {{\n{pad}    b.empty_map()?;\n{pad}}} else {{\n{pad}    b.start_map();\n{pad}    for (k, e) in {place}.iter() {{\n{pad}        b.key(k);\n{inner}{pad}    }}\n{pad}    b.end_map()?;\n{pad}}}\n")
            }
            // Method-call syntax derefs through `&` and `Box` alike.
            TypeRef::Message(_) | TypeRef::Union(_) => {
                format!("{pad}{place}.encode_into(b, cx)?;\n")
            }
            TypeRef::Enum(_) => format!("{pad}b.int({place}.value());\n"),
        }
    }

    /// The `flexbuf::typed::field` reader of field `f` and the arguments
    /// after its key: the commonest required fields have readers of their
    /// own that take the value straight from its slot; the rest go through
    /// `get` (and its `_cx` / `_opt` forms) with their decoder.
    fn field_reader(&self, f: &FieldPlan<'_>, borrowed: bool) -> (&'static str, String) {
        let (cx, dec) = self.decode_callable(&f.def.ty, borrowed);
        let direct = match &f.def.ty {
            _ if f.def.optional => None,
            TypeRef::I64 => Some("get_i64"),
            TypeRef::F64 => Some("get_f64"),
            TypeRef::Bool => Some("get_bool"),
            TypeRef::String if borrowed => Some("get_str"),
            TypeRef::String => Some("get_string"),
            _ => None,
        };
        let cx_arg = if cx { ", cx" } else { "" };
        match (direct, f.def.optional, cx) {
            (Some(get), _, _) => (get, cx_arg.into()),
            (None, false, false) => ("get", format!(", {dec}")),
            (None, false, true) => ("get_cx", format!("{cx_arg}, {dec}")),
            (None, true, false) => ("get_opt", format!(", {dec}")),
            (None, true, true) => ("get_opt_cx", format!("{cx_arg}, {dec}")),
        }
    }

    /// What decodes a (non-null) field of type `t` (its `Ref` form when
    /// `borrowed`), as a function or closure: whether it takes the decode
    /// context, and its text. Shared decoders are named, so every field of
    /// a type calls the same code; the rest are closures over
    /// [`decode_expr`](Self::decode_expr).
    fn decode_callable(&self, t: &TypeRef, borrowed: bool) -> (bool, String) {
        match t {
            TypeRef::Message(n) if borrowed => (
                true,
                format!("<{} as flexbuf::FlexBorrow>::decode_borrowed", ref_name(n)),
            ),
            TypeRef::String if borrowed => (true, "__field::str_charged".into()),
            TypeRef::Bytes if borrowed => (true, "__field::blob".into()),
            // A union is its own borrowed form.
            TypeRef::Message(n) | TypeRef::Union(n) => (
                true,
                format!(
                    "<{} as flexbuf::FlexCoder>::decode_from",
                    self.b.type_name(n)
                ),
            ),
            TypeRef::String => (true, "__field::string".into()),
            TypeRef::Bytes => (true, "__field::bytes".into()),
            t if t.is_scalar() => (false, format!("__field::{}", self.rust_type(t))),
            _ => {
                let expr = self.decode_expr(t, "v", 1, borrowed);
                (true, format!("|v, cx| {{ let _ = &cx; {expr} }}"))
            }
        }
    }

    /// A `flexbuf::Result<T>` expression decoding reader `r` (non-null) as type
    /// `t` (its `Ref` form when `borrowed`); `depth` names closure variables.
    fn decode_expr(&self, t: &TypeRef, r: &str, depth: usize, borrowed: bool) -> String {
        let e = format!("e{depth}");
        match t {
            TypeRef::Vector(el) if borrowed && el.is_scalar() && **el != TypeRef::Bool => {
                let f = self.rust_type(el);
                format!("__field::scalar_cow::<{f}>({r}, cx, __field::{f})")
            }
            TypeRef::Map(el) if borrowed => {
                let inner = self.decode_expr(el, &e, depth + 1, true);
                let err = self.std("Err");
                let map = match &**el {
                    TypeRef::String => "str_map",
                    _ => "map_borrowed",
                };
                format!("__field::{map}({r}, cx, |{e}, cx| {{ let _ = &cx; if {e}.is_null() {{ return {err}(__null(&{e})); }} {inner} }})")
            }
            TypeRef::Message(n) if borrowed => format!(
                "<{} as flexbuf::FlexBorrow>::decode_borrowed({r}, cx)",
                ref_name(n)
            ),
            TypeRef::String if borrowed => format!("__field::str_charged({r}, cx)"),
            TypeRef::Bytes if borrowed => format!("__field::blob({r}, cx)"),
            TypeRef::Array(el, n) => {
                let f = self.rust_type(el);
                let read = if **el == TypeRef::Bool {
                    "array"
                } else {
                    "scalar_array"
                };
                format!("__field::{read}::<{f}, {n}>({r}, cx, __field::{f})")
            }
            TypeRef::Vector(el) if el.is_scalar() && **el != TypeRef::Bool => {
                let f = self.rust_type(el);
                format!("__field::scalar_vec::<{f}>({r}, cx, __field::{f})")
            }
            TypeRef::Vector(el) => {
                let inner = self.decode_expr(el, &e, depth + 1, borrowed);
                let err = self.std("Err");
                let list = match (&**el, borrowed) {
                    (TypeRef::String, false) => "strings",
                    (TypeRef::String, true) => "strs",
                    _ => "vec",
                };
                format!("__field::{list}({r}, cx, |{e}, cx| {{ let _ = &cx; if {e}.is_null() {{ return {err}(__null(&{e})); }} {inner} }})")
            }
            TypeRef::Map(el) => {
                let inner = self.decode_expr(el, &e, depth + 1, borrowed);
                let err = self.std("Err");
                let map = match &**el {
                    TypeRef::String => "string_map",
                    _ => "map",
                };
                format!("__field::{map}({r}, cx, |{e}, cx| {{ let _ = &cx; if {e}.is_null() {{ return {err}(__null(&{e})); }} {inner} }})")
            }
            TypeRef::Message(n) | TypeRef::Union(n) => format!(
                "<{} as flexbuf::FlexCoder>::decode_from({r}, cx)",
                self.b.type_name(n)
            ),
            TypeRef::Enum(n) => {
                let name = self.b.type_name(n);
                format!("__field::i64({r}).and_then(|raw| {name}::from_value(raw).ok_or_else(|| __unknown_enum({}, raw, &{r})))", self.quote(short_name(n)))
            }
            TypeRef::String => format!("__field::string({r}, cx)"),
            TypeRef::Bytes => format!("__field::bytes({r}, cx)"),
            scalar => format!("__field::{}({r})", self.rust_type(scalar)),
        }
    }

    /// The return type of a view accessor and a `flexbuf::Result` expression for it from reader `v`
    /// (just `v` when the accessor returns the reader itself).
    fn view_accessor(&self, t: &TypeRef) -> (String, String) {
        match t {
            TypeRef::String => ("&'a str".into(), "__field::str(v)".into()),
            TypeRef::Bytes => ("&'a [u8]".into(), "v.as_blob()".into()),
            // Elements read through their own view: the wrong view does not compile.
            TypeRef::Vector(e) if matches!(**e, TypeRef::Message(_) | TypeRef::String) => {
                let elem = match &**e {
                    TypeRef::Message(n) => format!("{}View<'a>", short_name(n)),
                    _ => "&'a str".into(),
                };
                (
                    format!("flexbuf::typed::VectorView<'a, {elem}>"),
                    "flexbuf::typed::VectorView::new(v)".into(),
                )
            }
            TypeRef::Vector(_) => ("flexbuf::VectorReader<'a>".into(), "v.as_vector()".into()),
            TypeRef::Map(_) => ("flexbuf::MapReader<'a>".into(), "v.as_map()".into()),
            TypeRef::Message(n) => (
                format!("{}View<'a>", short_name(n)),
                format!("{}View::new(v)", short_name(n)),
            ),
            TypeRef::Union(_) => ("flexbuf::Reader<'a>".into(), "v".into()),
            TypeRef::Array(..) => ("flexbuf::VectorReader<'a>".into(), "v.as_vector()".into()),
            TypeRef::Enum(_) => (self.rust_type(t), self.decode_expr(t, "v", 1, false)),
            scalar => (
                self.rust_type(scalar),
                self.decode_expr(scalar, "v", 1, false),
            ),
        }
    }
}

/// True for the types a message stores inline (numbers, booleans, enums).
fn scalar_field(t: &TypeRef) -> bool {
    t.is_scalar() || matches!(t, TypeRef::Enum(_))
}

/// The method (of `Field`, `MapWidths` and `MessageMap` alike) taking a
/// scalar of type `t`, and its argument made from the value `v`.
fn scalar_call(t: &TypeRef, v: &str) -> (&'static str, String) {
    match t {
        TypeRef::Bool => ("bool", v.to_string()),
        TypeRef::I8 | TypeRef::I16 | TypeRef::I32 => ("int", format!("{v} as i64")),
        TypeRef::I64 => ("int", v.to_string()),
        TypeRef::U8 | TypeRef::U16 | TypeRef::U32 => ("uint", format!("{v} as u64")),
        TypeRef::U64 => ("uint", v.to_string()),
        TypeRef::F32 => ("float", v.to_string()),
        TypeRef::F64 => ("double", v.to_string()),
        TypeRef::Enum(_) => ("int", format!("{v}.value()")),
        _ => unreachable!("scalar_call is only made for scalar fields"),
    }
}

/// The `MapWidths` call for the required scalar `access` of type `t`
/// (`None` for booleans, which the narrowest width holds; a 32-bit float's
/// width needs no value).
fn width_call(t: &TypeRef, access: &str) -> Option<String> {
    match t {
        TypeRef::Bool => None,
        TypeRef::F32 => Some("float()".into()),
        _ => Some(store_call(t, access)),
    }
}

/// The `MessageMap` call storing the required scalar `access` of type `t`.
fn store_call(t: &TypeRef, access: &str) -> String {
    let (method, arg) = scalar_call(t, access);
    format!("{method}({arg})")
}
