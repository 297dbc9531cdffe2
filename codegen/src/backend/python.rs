//! The Python backend: one module with a class per message (`__slots__`,
//! keyword-only `__init__`, `__eq__`, `__repr__`, type hints, docstrings), an
//! `enum.IntEnum` per enum, a base class per union with one subclass per
//! variant, and the compiled schema handed to the native core once at import.
//!
//! Decoding and encoding run in the native core (`flexbuf._native`), which
//! builds and reads the objects itself: `Model.decode(data)` and
//! `model.encode()` are one native call each. The contract with the core:
//! every message class lists its fields in `__slots__` **in wire order**, and
//! the classes are passed by qualified name (`"ns.Union|Variant"` for union
//! variants, whose payload lives in the slot `value`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use flexbuf::schema::{short_name, Absent, DefaultValue, EnumDef, Field, TypeRef, UnionDef};

use super::{quoted, Backend, FloatForm, GeneratedFile};
use crate::names::{pascal, snake};
use crate::plan::{FieldPlan, MessagePlan, Plan};
use crate::writer::CodeWriter;

/// The Python backend (`--lang python`).
pub struct Python;

impl Backend for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn summary(&self) -> &'static str {
        "A Python module of classes (slots, type hints) coded by the native core"
    }

    fn keywords(&self) -> &'static [&'static str] {
        RESERVED
    }

    fn reserved_members(&self) -> &'static [&'static str] {
        &["encode", "decode"]
    }

    fn type_name(&self, qualified: &str) -> String {
        let short = short_name(qualified);
        if MODULE_NAMES.contains(&short) || RESERVED.contains(&short) {
            format!("{short}_")
        } else {
            short.to_string()
        }
    }

    fn companion_names(&self, plan: &Plan<'_>, qualified: &str) -> Vec<String> {
        plan.schema
            .union_def(qualified)
            .map(|u| {
                u.variants
                    .iter()
                    .map(|v| variant_class(self, qualified, &v.name))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn field_name(&self, name: &str) -> String {
        attr(name)
    }

    fn variant_name(&self, name: &str) -> String {
        variant_ident(name)
    }

    fn string_literal(&self, s: &str) -> String {
        quoted(s, |c| {
            if (c as u32) < 0x20 || c == '\u{7f}' {
                Some(format!("\\x{:02x}", c as u32))
            } else if c.is_control() || ('\u{2028}'..='\u{2029}').contains(&c) {
                Some(format!("\\u{:04x}", c as u32))
            } else {
                None
            }
        })
    }

    fn float_literal(&self, f: f64, ty: &TypeRef) -> String {
        // Python floats are doubles: an f32 value (already rounded) prints
        // as the double the native core stores.
        match FloatForm::of(f, ty, true) {
            FloatForm::Nan => "float(\"nan\")".into(),
            FloatForm::Infinity => "float(\"inf\")".into(),
            FloatForm::NegInfinity => "float(\"-inf\")".into(),
            FloatForm::Finite(s) => s,
        }
    }

    fn emit(&self, plan: &Plan<'_>) -> Result<Vec<GeneratedFile>, String> {
        let module = python_module_name(plan.stem);
        let g = Gen::new(plan, self);
        Ok(vec![GeneratedFile {
            path: PathBuf::from(format!("{module}.py")),
            contents: g.render(plan.source_name),
        }])
    }
}

/// The class of variant `variant` of union `union`.
fn variant_class(_: &Python, union: &str, variant: &str) -> String {
    format!("{}{}", short_name(union), pascal(variant))
}

/// Python keywords, and the names generated classes use for their own
/// methods and `__init__`'s `self`: a field with one of these names gets a
/// trailing underscore.
const RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "encode", "decode", "self",
];

/// Builtins that generated annotations name: inside a class with an
/// attribute of the same name (or in a module with such a class), they are
/// written as `_builtins.x`.
const BUILTINS: &[&str] = &[
    "bool",
    "int",
    "float",
    "str",
    "bytes",
    "bytearray",
    "memoryview",
    "list",
    "dict",
    "object",
    "classmethod",
];

/// Module-level names the generated code uses itself.
/// Arrays up to this length get an exact tuple type (`tuple[int, int]`),
/// longer ones `tuple[int, ...]`.
const PRECISE_TUPLE: usize = 16;

const MODULE_NAMES: &[&str] = &["_SCHEMA", "_enum", "_flexbuf", "_Final", "annotations"];

/// A file stem as an importable module name (`my-schema` → `my_schema`).
fn python_module_name(stem: &str) -> String {
    let mut s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) || RESERVED.contains(&s.as_str())
    {
        s.insert(0, '_');
    }
    s
}

/// The attribute name of a field.
fn attr(name: &str) -> String {
    let name = snake(name);
    // A leading `__` would be name-mangled by Python: move the underscores to the end.
    let bare = name.trim_start_matches('_');
    if bare.len() + 1 < name.len() {
        return format!("{bare}{}", &name[..name.len() - bare.len()]);
    }
    if RESERVED.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

struct Gen<'p> {
    plan: &'p Plan<'p>,
    b: &'p Python,
    w: CodeWriter,
    /// Union qualified name → class name of each variant, in declaration order.
    variant_classes: HashMap<&'p str, Vec<String>>,
    /// Names that shadow builtins where annotations are being written: the
    /// module's classes and the current class's attributes.
    scope: std::collections::HashSet<String>,
    /// Some class or attribute shadows a builtin: `import builtins` is emitted.
    needs_builtins: bool,
}

impl<'p> Gen<'p> {
    fn new(plan: &'p Plan<'p>, b: &'p Python) -> Self {
        let mut variant_classes = HashMap::new();
        for u in &plan.unions {
            let names = u
                .variants
                .iter()
                .map(|v| variant_class(b, &u.def.name, &v.def.name))
                .collect();
            variant_classes.insert(u.def.name.as_str(), names);
        }
        let module: std::collections::HashSet<String> = crate::names::declared(b, plan, "");
        let needs_builtins = BUILTINS.iter().any(|n| {
            module.contains(*n)
                || plan
                    .messages
                    .iter()
                    .any(|m| m.fields.iter().any(|f| b.field_name(&f.def.name) == *n))
        });
        Gen {
            plan,
            b,
            w: CodeWriter::new("    "),
            variant_classes,
            scope: module,
            needs_builtins,
        }
    }

    fn line(&mut self, indent: usize, s: &str) {
        self.w.line(indent, s);
    }

    /// Builtin `name` as an annotation in the current scope.
    fn py(&self, name: &str) -> String {
        if self.scope.contains(name) {
            format!("_builtins.{name}")
        } else {
            name.to_string()
        }
    }

    /// Enters a class whose attributes are `attrs` (for [`Gen::py`]).
    fn enter_class(&mut self, attrs: impl IntoIterator<Item = String>) {
        self.scope = crate::names::declared(self.b, self.plan, "");
        self.scope.extend(attrs);
    }

    fn render(mut self, source: &str) -> String {
        self.line(
            0,
            &format!("# @generated by `flexbuf gen --lang python` from {source}. Do not edit."),
        );
        self.line(
            0,
            &format!(
                "\"\"\"Typed FlexBuffers models generated from ``{}``.",
                doc_escape(source)
            ),
        );
        self.line(0, "");
        self.line(
            0,
            "``Model.decode(data)`` and ``model.encode()`` each make one call into the",
        );
        self.line(0, "native core, which builds or reads the objects itself.");
        self.line(0, "\"\"\"");
        self.line(0, "");
        self.line(0, "from __future__ import annotations");
        self.line(0, "");
        self.line(0, "import enum as _enum");
        self.line(0, "from typing import Final as _Final");
        self.line(0, "");
        if self.needs_builtins {
            self.line(0, "import builtins as _builtins");
        }
        self.line(0, "import flexbuf as _flexbuf");
        let mut all: Vec<String> = Vec::new();
        all.extend(
            self.plan
                .schema
                .enums
                .iter()
                .map(|e| self.b.type_name(&e.name)),
        );
        all.extend(
            self.plan
                .schema
                .messages
                .iter()
                .map(|m| self.b.type_name(&m.name)),
        );
        for u in &self.plan.schema.unions {
            all.push(self.b.type_name(&u.name));
            all.extend(self.variant_classes[u.name.as_str()].iter().cloned());
        }
        self.line(0, "");
        self.line(0, "__all__ = [");
        for n in &all {
            self.line(1, &format!("{},", self.b.string_literal(n)));
        }
        self.line(0, "]");
        let schema = self.plan.schema;
        for e in &schema.enums {
            self.enum_def(e);
        }
        let plan = self.plan;
        for m in &plan.messages {
            self.message(m);
        }
        for u in &schema.unions {
            self.union_def(u);
        }
        self.footer();
        self.w.finish()
    }

    // ---- types -------------------------------------------------------------------

    fn hint(&self, t: &TypeRef) -> String {
        match t {
            TypeRef::Bool => self.py("bool"),
            TypeRef::I8
            | TypeRef::I16
            | TypeRef::I32
            | TypeRef::I64
            | TypeRef::U8
            | TypeRef::U16
            | TypeRef::U32
            | TypeRef::U64 => self.py("int"),
            TypeRef::F32 | TypeRef::F64 => self.py("float"),
            TypeRef::String => self.py("str"),
            TypeRef::Bytes => self.py("bytes"),
            TypeRef::Vector(e) => format!("{}[{}]", self.py("list"), self.hint(e)),
            // Exact for short arrays (`tuple[float, float, float]`).
            TypeRef::Array(e, n) if *n <= PRECISE_TUPLE => {
                format!(
                    "{}[{}]",
                    self.py("tuple"),
                    vec![self.hint(e); *n].join(", ")
                )
            }
            TypeRef::Array(e, _) => format!("{}[{}, ...]", self.py("tuple"), self.hint(e)),
            TypeRef::Map(e) => format!("{}[{}, {}]", self.py("dict"), self.py("str"), self.hint(e)),
            TypeRef::Message(n) | TypeRef::Enum(n) | TypeRef::Union(n) => self.b.type_name(n),
        }
    }

    fn field_hint(&self, f: &Field) -> String {
        let h = self.hint(&f.ty);
        if f.optional {
            format!("{h} | None")
        } else {
            h
        }
    }

    /// The `__init__` default of a field: `None` for required ones (no default).
    fn init_default(&self, fp: &FieldPlan<'_>) -> Result<Option<String>, String> {
        let f = fp.def;
        let lit = match &fp.absent {
            Absent::Required => return Ok(None),
            Absent::Null => "None".to_string(),
            Absent::Zero => match &f.ty {
                TypeRef::Bool => "False".into(),
                TypeRef::F32 | TypeRef::F64 => "0.0".into(),
                TypeRef::String => "\"\"".into(),
                TypeRef::Bytes => "b\"\"".into(),
                TypeRef::Vector(_) | TypeRef::Map(_) => "None".into(),
                TypeRef::Array(e, n) => {
                    let zero = match **e {
                        TypeRef::Bool => "False",
                        TypeRef::F32 | TypeRef::F64 => "0.0",
                        _ => "0",
                    };
                    if *n <= PRECISE_TUPLE {
                        format!(
                            "({})",
                            vec![zero; *n].join(", ") + if *n == 1 { "," } else { "" }
                        )
                    } else {
                        format!("({zero},) * {n}")
                    }
                }
                TypeRef::Enum(n) => {
                    let v = self
                        .plan
                        .enum_zero(n)
                        .ok_or_else(|| format!("enum {n} has no variants"))?;
                    format!("{}.{}", self.b.type_name(n), self.b.variant_name(v))
                }
                TypeRef::Message(_) | TypeRef::Union(_) => {
                    return Err(format!(
                        "field `{}` of message type must be `required` or optional",
                        f.name
                    ))
                }
                _ => "0".into(),
            },
            Absent::Default(d) => self.literal(&f.ty, d)?,
        };
        Ok(Some(lit))
    }

    fn literal(&self, t: &TypeRef, d: &DefaultValue) -> Result<String, String> {
        Ok(match d {
            DefaultValue::Bool(b) => if *b { "True" } else { "False" }.into(),
            DefaultValue::Int(i) => i.to_string(),
            DefaultValue::UInt(u) => u.to_string(),
            DefaultValue::Float(f) => self.b.float_literal(*f, t),
            DefaultValue::String(s) => self.b.string_literal(s),
            DefaultValue::EnumVariant(v) => match t {
                TypeRef::Enum(n) => format!("{}.{}", self.b.type_name(n), self.b.variant_name(v)),
                _ => return Err(format!("enum default {v} for a non-enum field")),
            },
            DefaultValue::Null => "None".into(),
        })
    }

    // ---- enums -------------------------------------------------------------------

    fn enum_def(&mut self, e: &EnumDef) {
        let name = self.b.type_name(&e.name);
        self.line(0, "");
        self.line(0, "");
        self.line(0, &format!("class {name}(_enum.IntEnum):"));
        let doc = docstring(&e.doc, &format!("The enum ``{}``.", e.name), &[]);
        self.docstring(1, &doc);
        self.line(0, "");
        for v in &e.variants {
            for d in &v.doc {
                self.line(1, &format!("#: {}", d.trim()));
            }
            self.line(1, &format!("{} = {}", variant_ident(&v.name), v.value));
        }
    }

    // ---- messages -----------------------------------------------------------------

    fn message(&mut self, mp: &MessagePlan<'_>) {
        let m = mp.def;
        let name = self.b.type_name(&m.name);
        let decl: Vec<&Field> = mp.fields.iter().map(|f| f.def).collect();
        let wire: Vec<&Field> = mp.wire_fields().map(|f| f.def).collect();
        self.enter_class(decl.iter().map(|f| self.b.field_name(&f.name)));
        self.line(0, "");
        self.line(0, "");
        self.line(0, &format!("class {name}:"));
        let attrs: Vec<(String, Vec<String>)> = decl
            .iter()
            .map(|f| {
                let mut d = f.doc.clone();
                if f.wire_name != f.name {
                    d.push(format!("Wire name ``{}``.", f.wire_name));
                }
                (attr(&f.name), d)
            })
            .collect();
        let doc = docstring(&m.doc, &format!("The message ``{}``.", m.name), &attrs);
        self.docstring(1, &doc);
        self.line(0, "");
        // The native core reads and writes the slots by position: wire order.
        let slots: Vec<String> = wire
            .iter()
            .map(|f| self.b.string_literal(&attr(&f.name)))
            .collect();
        self.line(1, &format!("__slots__ = ({})", tuple_body(&slots)));
        let args: Vec<String> = decl
            .iter()
            .map(|f| self.b.string_literal(&attr(&f.name)))
            .collect();
        self.line(1, &format!("__match_args__ = ({})", tuple_body(&args)));
        self.line(0, "");
        for f in &decl {
            let h = self.field_hint(f);
            self.line(1, &format!("{}: {h}", attr(&f.name)));
        }
        if !decl.is_empty() {
            self.line(0, "");
        }

        // __init__: keyword-only, required fields first.
        let mut params = Vec::new();
        let mut body = Vec::new();
        let mut ordered: Vec<&FieldPlan<'_>> =
            mp.fields.iter().filter(|f| f.def.required).collect();
        ordered.extend(mp.fields.iter().filter(|f| !f.def.required));
        for fp in ordered {
            let f = fp.def;
            let a = attr(&f.name);
            let h = self.field_hint(f);
            let default = match self.init_default(fp) {
                Ok(d) => d,
                Err(e) => {
                    // The parser rejects such schemas; keep the module importable anyway.
                    self.line(1, &format!("# error: {e}"));
                    None
                }
            };
            let fresh = !f.optional && matches!(f.ty, TypeRef::Vector(_) | TypeRef::Map(_));
            match default {
                None => params.push(format!("{a}: {h}")),
                Some(_) if fresh => {
                    params.push(format!("{a}: {h} | None = None"));
                    let empty = if matches!(f.ty, TypeRef::Vector(_)) {
                        "[]"
                    } else {
                        "{}"
                    };
                    body.push(format!("self.{a} = {empty} if {a} is None else {a}"));
                    continue;
                }
                Some(d) => params.push(format!("{a}: {h} = {d}")),
            }
            body.push(format!("self.{a} = {a}"));
        }
        if params.is_empty() {
            self.line(1, "def __init__(self) -> None:");
            self.line(2, "pass");
        } else {
            self.line(1, "def __init__(");
            self.line(2, "self,");
            self.line(2, "*,");
            for p in &params {
                self.line(2, &format!("{p},"));
            }
            self.line(1, ") -> None:");
            for b in &body {
                self.line(2, b);
            }
        }
        self.line(0, "");

        // __eq__ and __repr__ over the declared fields.
        self.eq_start(&name);
        if decl.is_empty() {
            self.line(2, "return True");
        } else {
            let mine: Vec<String> = decl
                .iter()
                .map(|f| format!("self.{}", attr(&f.name)))
                .collect();
            let theirs: Vec<String> = decl
                .iter()
                .map(|f| format!("other.{}", attr(&f.name)))
                .collect();
            self.line(2, &format!("return ({}) == (", tuple_body(&mine)));
            self.line(3, &tuple_body(&theirs));
            self.line(2, ")");
        }
        self.line(0, "");
        let repr = format!("def __repr__(self) -> {}:", self.py("str"));
        self.line(1, &repr);
        if decl.is_empty() {
            self.line(2, &format!("return \"{name}()\""));
        } else {
            let parts: Vec<String> = decl
                .iter()
                .map(|f| {
                    let a = attr(&f.name);
                    format!("{a}={{self.{a}!r}}")
                })
                .collect();
            self.line(2, &format!("return f\"{name}({})\"", parts.join(", ")));
        }
        self.line(0, "");

        // One native call each way.
        let decode_doc = [
            format!("Decodes one ``{name}`` from untrusted ``data`` (one native call)."),
            String::new(),
            "One checked pass: every read is checked (bounds, widths, field types,".to_string(),
            "UTF-8), under the depth limit and the expansion budget. Parts of the".to_string(),
            "buffer the type does not read are not checked; ``strict=True`` verifies".to_string(),
            "the whole buffer first, as ``flexbuf.validate`` does.".to_string(),
            String::new(),
            "Raises:".to_string(),
            "    flexbuf.ValidationError: ``data`` is not a valid FlexBuffer.".to_string(),
            "    flexbuf.SchemaError: the data does not fit the schema (``.path`` says where)."
                .to_string(),
            "    flexbuf.BudgetError: shared data would expand past the budget.".to_string(),
        ];
        let encode_doc = format!("Encodes this ``{name}`` as a FlexBuffer (one native call).");
        self.codec_methods(&name, &decode_doc, &encode_doc);
    }

    /// The start of `__eq__`: other instances of `class` only.
    fn eq_start(&mut self, class: &str) {
        let eq = format!(
            "def __eq__(self, other: {}) -> {}:",
            self.py("object"),
            self.py("bool")
        );
        self.line(1, &eq);
        self.line(2, &format!("if not isinstance(other, {class}):"));
        self.line(3, "return NotImplemented");
    }

    /// `decode` (a classmethod) and `encode`: one native call each.
    fn codec_methods(&mut self, name: &str, decode_doc: &[String], encode_doc: &str) {
        let cm = format!("@{}", self.py("classmethod"));
        self.line(1, &cm);
        self.line(
            1,
            &format!(
                "def decode(cls, data: {} | {} | {}, *, strict: {} = False) -> {name}:",
                self.py("bytes"),
                self.py("bytearray"),
                self.py("memoryview"),
                self.py("bool")
            ),
        );
        self.docstring(2, decode_doc);
        self.line(
            2,
            &format!("value: {name} = _SCHEMA.decode(_T_{name}, data, strict)"),
        );
        self.line(2, "return value");
        self.line(0, "");
        let enc = format!("def encode(self) -> {}:", self.py("bytes"));
        self.line(1, &enc);
        self.docstring(2, &[encode_doc.to_string()]);
        self.line(2, &format!("return _SCHEMA.encode(_T_{name}, self)"));
    }

    // ---- unions -------------------------------------------------------------------

    fn union_def(&mut self, u: &UnionDef) {
        let name = self.b.type_name(&u.name);
        let classes = self.variant_classes[u.name.as_str()].clone();
        self.enter_class(["value".to_string()]);
        let payloads: Vec<String> = u.variants.iter().map(|v| self.hint(&v.ty)).collect();
        let mut unique: Vec<String> = Vec::new();
        for p in &payloads {
            if !unique.contains(p) {
                unique.push(p.clone());
            }
        }
        self.line(0, "");
        self.line(0, "");
        self.line(0, &format!("class {name}:"));
        let mut doc = if u.doc.is_empty() {
            vec![format!("The union ``{}``.", u.name)]
        } else {
            u.doc.iter().map(|d| d.trim().to_string()).collect()
        };
        doc.push(String::new());
        doc.push(format!(
            "Exactly one of: {}. Each holds its payload in ``value``.",
            classes
                .iter()
                .map(|c| format!("``{c}``"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        self.docstring(1, &doc);
        self.line(0, "");
        self.line(1, "__slots__ = (\"value\",)");
        self.line(0, "");
        self.line(1, &format!("value: {}", unique.join(" | ")));
        self.line(0, "");
        self.codec_methods(
            &name,
            &[
                format!(
                    "Decodes one ``{name}`` variant from untrusted ``data`` (one native call)."
                ),
                String::new(),
                "One checked pass, as a message's ``decode``; ``strict=True`` verifies the"
                    .to_string(),
                "whole buffer first.".to_string(),
            ],
            "Encodes this variant as a FlexBuffer (one native call).",
        );
        for ((v, class), payload) in u.variants.iter().zip(&classes).zip(&payloads) {
            self.line(0, "");
            self.line(0, "");
            self.line(0, &format!("class {class}({name}):"));
            let mut doc = vec![format!(
                "Variant ``{}`` of ``{name}`` (wire tag ``{}``).",
                v.name, v.wire_name
            )];
            if !v.doc.is_empty() {
                doc.push(String::new());
                doc.extend(v.doc.iter().map(|d| d.trim().to_string()));
            }
            self.docstring(1, &doc);
            self.line(0, "");
            self.line(1, "__slots__ = ()");
            self.line(1, "__match_args__ = (\"value\",)");
            self.line(0, "");
            self.line(1, &format!("value: {payload}"));
            self.line(0, "");
            self.line(1, &format!("def __init__(self, value: {payload}) -> None:"));
            self.line(2, "self.value = value");
            self.line(0, "");
            self.eq_start(class);
            self.line(2, "return self.value == other.value");
            self.line(0, "");
            let repr = format!("def __repr__(self) -> {}:", self.py("str"));
            self.line(1, &repr);
            self.line(2, &format!("return f\"{class}({{self.value!r}})\""));
        }
    }

    // ---- the compiled schema -----------------------------------------------------------

    fn footer(&mut self) {
        let bytes = match self.plan.schema.to_bytes() {
            Ok(b) => b,
            Err(e) => {
                self.line(0, "");
                self.line(
                    0,
                    &format!(
                        "raise ImportError(\"the schema could not be compiled: {}\")",
                        doc_escape(&e.to_string())
                    ),
                );
                return;
            }
        };
        self.line(0, "");
        self.line(0, "");
        self.line(
            0,
            "# The compiled schema (`Schema::to_bytes()`), handed to the native core once.",
        );
        self.line(0, "_SCHEMA: _Final = _flexbuf.compile_schema(");
        for chunk in bytes.chunks(24) {
            let mut lit = String::from("b\"");
            for b in chunk {
                let _ = write!(lit, "\\x{b:02x}");
            }
            lit.push('"');
            self.line(1, &lit);
        }
        self.line(1, ",");
        self.line(1, "{");
        let schema = self.plan.schema;
        for e in &schema.enums {
            self.line(
                2,
                &format!(
                    "{}: {},",
                    self.b.string_literal(&e.name),
                    self.b.type_name(&e.name)
                ),
            );
        }
        for m in &schema.messages {
            self.line(
                2,
                &format!(
                    "{}: {},",
                    self.b.string_literal(&m.name),
                    self.b.type_name(&m.name)
                ),
            );
        }
        for u in &schema.unions {
            let classes = self.variant_classes[u.name.as_str()].clone();
            for (v, class) in u.variants.iter().zip(classes) {
                self.line(
                    2,
                    &format!(
                        "{}: {class},",
                        self.b.string_literal(&format!("{}|{}", u.name, v.name))
                    ),
                );
            }
        }
        self.line(1, "},");
        self.line(0, ")");
        for n in schema
            .messages
            .iter()
            .map(|m| &m.name)
            .chain(schema.unions.iter().map(|u| &u.name))
        {
            self.line(
                0,
                &format!(
                    "_T_{}: _Final = _SCHEMA.index({})",
                    self.b.type_name(n),
                    self.b.string_literal(n)
                ),
            );
        }
    }

    fn docstring(&mut self, indent: usize, lines: &[String]) {
        match lines {
            [] => {}
            [one] => self.line(indent, &format!("\"\"\"{}\"\"\"", doc_escape(one))),
            [first, rest @ ..] => {
                self.line(indent, &format!("\"\"\"{}", doc_escape(first)));
                for l in rest {
                    if l.is_empty() {
                        self.w.blank();
                    } else {
                        self.line(indent, &doc_escape(l));
                    }
                }
                self.line(indent, "\"\"\"");
            }
        }
    }
}

/// Docstring lines: the doc comment (or `fallback`) and an `Attributes:` section.
fn docstring(doc: &[String], fallback: &str, attrs: &[(String, Vec<String>)]) -> Vec<String> {
    let mut out: Vec<String> = if doc.is_empty() {
        vec![fallback.to_string()]
    } else {
        doc.iter().map(|d| d.trim().to_string()).collect()
    };
    let documented: Vec<&(String, Vec<String>)> =
        attrs.iter().filter(|(_, d)| !d.is_empty()).collect();
    if !documented.is_empty() {
        out.push(String::new());
        out.push("Attributes:".into());
        for (a, d) in documented {
            let text: Vec<&str> = d.iter().map(|l| l.trim()).collect();
            out.push(format!("    {a}: {}", text.join(" ")));
        }
    }
    out
}

/// An enum variant as a Python identifier.
fn variant_ident(name: &str) -> String {
    if RESERVED.contains(&name) || name.starts_with("_") {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// `a, b` → `"a", "b"` with a trailing comma for one element.
fn tuple_body(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => format!("{one},"),
        _ => items.join(", "),
    }
}

/// Text safe inside a triple-quoted docstring.
fn doc_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(src: &str) -> Result<String, String> {
        let parsed = crate::parse_str("t.fxs", src).map_err(|d| d.to_string())?;
        let files = crate::generate(&Python, &parsed).map_err(|d| d.to_string())?;
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, PathBuf::from("t.py"));
        Ok(files[0].contents.clone())
    }

    #[test]
    fn slots_are_in_wire_order_and_init_in_declaration_order() {
        let out =
            gen("namespace n;\nmessage M { zeta: i32; alpha: string (required); mid: f32 = 0.1; }")
                .unwrap();
        assert!(
            out.contains("__slots__ = (\"alpha\", \"mid\", \"zeta\")"),
            "{out}"
        );
        assert!(
            out.contains("__match_args__ = (\"zeta\", \"alpha\", \"mid\")"),
            "{out}"
        );
        // Required first, keyword-only; the f32 default is rounded as the core stores it.
        assert!(out.contains("        alpha: str,\n        zeta: int = 0,\n        mid: float = 0.10000000149011612,"), "{out}");
        assert!(out.contains("\"n.M\": M,"), "{out}");
    }

    #[test]
    fn keywords_get_an_underscore_and_clashes_are_errors() {
        let out = gen("namespace n;\nmessage M { class: i32; }").unwrap();
        assert!(out.contains("__slots__ = (\"class_\",)"), "{out}");
        let err = gen("namespace n;\nmessage M { class: i32; class_: i32; }").unwrap_err();
        assert!(err.contains("class_"), "{err}");
        let err =
            gen("namespace n;\nmessage ShapeA { a: i32; }\nunion Shape { A: string }").unwrap_err();
        assert!(err.contains("ShapeA"), "{err}");
    }

    #[test]
    fn unions_get_a_base_and_one_class_per_variant() {
        let out = gen("namespace n;\nmessage C { r: f64; }\nunion Shape { Circle: C, Label: string (wire_name = \"l\") }").unwrap();
        assert!(out.contains("class ShapeCircle(Shape):"), "{out}");
        assert!(out.contains("class ShapeLabel(Shape):"), "{out}");
        assert!(out.contains("    value: C | str"), "{out}");
        assert!(out.contains("\"n.Shape|Label\": ShapeLabel,"), "{out}");
    }

    #[test]
    fn strings_and_docs_are_escaped() {
        assert_eq!(
            Python.string_literal("a\"b\\c\n\u{1}é"),
            "\"a\\\"b\\\\c\\n\\x01é\""
        );
        assert_eq!(doc_escape("say \"\"\" \\"), "say \\\"\\\"\\\" \\\\");
        assert_eq!(Python.float_literal(1e300, &TypeRef::F64), "1e300");
        assert_eq!(
            Python.float_literal(f64::NEG_INFINITY, &TypeRef::F64),
            "float(\"-inf\")"
        );
        assert_eq!(python_module_name("my-schema"), "my_schema");
        assert_eq!(python_module_name("class"), "_class");
    }
}
