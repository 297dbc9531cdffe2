//! Semantic analysis: resolves type names across files, checks every rule of
//! the language and builds the [`flexbuf::schema`] model.

mod defaults;
mod recursion;
mod suggest;

use std::collections::{BTreeMap, HashMap};

use flexbuf::schema::{
    EnumDef, EnumVariant, Field, Message, Schema, TypeRef, UnionDef, UnionVariant, MAX_ARRAY_LEN,
};

use crate::diag::Diagnostic;
use crate::parse::ast::{Decl, EnumAst, FieldAst, MessageAst, Spanned, TypeAst, UnionAst};
use crate::parse::lexer::Pos;
use crate::parse::LoadedFile;
use crate::source::{Position, SourceFile};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Message,
    Enum,
    Union,
}

struct DeclInfo<'a> {
    qname: String,
    kind: Kind,
    file: usize,
    decl: &'a Decl,
}

/// Where a message's field was declared, for errors found on the model.
pub(crate) struct FieldLoc {
    pub file: usize,
    pub pos: Pos,
}

/// What [`check`] returns: the model, the files, the declaration positions,
/// the fields' `ts_int64` policies and the diagnostics.
pub(crate) type Checked = (
    Schema,
    Vec<SourceFile>,
    BTreeMap<(String, String), Position>,
    BTreeMap<(String, String), String>,
    Vec<Diagnostic>,
);

/// Checks all files (dependencies first) and builds the model. Returns the
/// diagnostics found; the model is only meaningful when there are none.
pub(crate) fn check(files: &[LoadedFile]) -> Checked {
    let mut c = Checker {
        files,
        decls: Vec::new(),
        by_name: HashMap::new(),
        visible: Vec::new(),
        diags: Vec::new(),
    };
    c.collect_decls();
    c.compute_visibility();
    let mut schema = Schema::default();
    let mut enum_index = HashMap::new();
    for d in c.decls.iter().filter(|d| d.kind == Kind::Enum) {
        if let Decl::Enum(e) = d.decl {
            // Registered even when invalid so that defaults naming it are still checked.
            enum_index.insert(d.qname.clone(), schema.enums.len());
            schema.enums.push(EnumDef {
                name: d.qname.clone(),
                doc: e.doc.clone(),
                repr: TypeRef::I32,
                variants: Vec::new(),
            });
        }
    }
    let decls: Vec<(usize, String, &Decl)> = c
        .decls
        .iter()
        .map(|d| (d.file, d.qname.clone(), d.decl))
        .collect();
    for (file, qname, decl) in &decls {
        if let Decl::Enum(e) = decl {
            let def = c.enum_def(*file, qname, e);
            schema.enums[enum_index[qname]] = def;
        }
    }
    for (file, qname, decl) in &decls {
        if let Decl::Union(u) = decl {
            let def = c.union_def(*file, qname, u);
            schema.unions.push(def);
        }
    }
    let mut locs = HashMap::new();
    for (file, qname, decl) in &decls {
        if let Decl::Message(m) = decl {
            let def = c.message(*file, qname, m, &schema, &mut locs);
            schema.messages.push(def);
        }
    }
    for (file, pos, message, hint) in recursion::check(&schema, &locs) {
        c.error(file, pos, message, hint);
    }
    let mut positions = BTreeMap::new();
    let mut ts_int64 = BTreeMap::new();
    let mut at = |file: usize, ty: &str, member: &str, pos: Pos| {
        let p = Position {
            file,
            line: pos.line,
            column: pos.col,
        };
        positions
            .entry((ty.to_string(), member.to_string()))
            .or_insert(p);
    };
    for (file, qname, decl) in &decls {
        at(*file, qname, "", decl.name().pos);
        match decl {
            Decl::Message(m) => {
                for f in &m.fields {
                    at(*file, qname, &f.name.value, f.name.pos);
                    if let Some(p) = &f.ts_int64 {
                        ts_int64.insert((qname.clone(), f.name.value.clone()), p.value.clone());
                    }
                }
            }
            Decl::Enum(e) => {
                for v in &e.variants {
                    at(*file, qname, &v.name.value, v.name.pos);
                }
            }
            Decl::Union(u) => {
                for v in &u.variants {
                    at(*file, qname, &v.name.value, v.name.pos);
                }
            }
        }
    }
    let sources = files
        .iter()
        .enumerate()
        .map(|(i, f)| SourceFile {
            path: f.path.clone(),
            namespace: f.ast.namespace.as_ref().map(|n| n.value.clone()),
            imports: f.imports.clone(),
            types: c
                .decls
                .iter()
                .filter(|d| d.file == i)
                .map(|d| d.qname.clone())
                .collect(),
        })
        .collect();
    (schema, sources, positions, ts_int64, c.diags)
}

/// `ns.name`, or `name` without a namespace.
fn qualify(ns: Option<&str>, name: &str) -> String {
    match ns {
        Some(ns) => format!("{ns}.{name}"),
        None => name.to_string(),
    }
}

/// The inclusive range of an integer type.
pub(crate) fn int_range(t: &TypeRef) -> Option<(i128, i128)> {
    Some(match t {
        TypeRef::I8 => (i8::MIN.into(), i8::MAX.into()),
        TypeRef::I16 => (i16::MIN.into(), i16::MAX.into()),
        TypeRef::I32 => (i32::MIN.into(), i32::MAX.into()),
        TypeRef::I64 => (i64::MIN.into(), i64::MAX.into()),
        TypeRef::U8 => (0, u8::MAX.into()),
        TypeRef::U16 => (0, u16::MAX.into()),
        TypeRef::U32 => (0, u32::MAX.into()),
        TypeRef::U64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// The schema spelling of a built-in type.
pub(crate) fn builtin_name(t: &TypeRef) -> &'static str {
    match t {
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
        TypeRef::String => "string",
        TypeRef::Bytes => "bytes",
        TypeRef::Vector(_) => "vector",
        TypeRef::Array(..) => "array",
        TypeRef::Map(_) => "map",
        TypeRef::Message(_) => "message",
        TypeRef::Enum(_) => "enum",
        TypeRef::Union(_) => "union",
    }
}

/// A type as it was written.
pub(crate) fn type_src(t: &TypeAst) -> String {
    match t {
        TypeAst::Builtin(b, _) => builtin_name(b).to_string(),
        TypeAst::Named(n, _) => n.clone(),
        TypeAst::Vector {
            elem,
            elem_optional,
            len,
            ..
        } => {
            format!(
                "[{}{}{}]",
                type_src(elem),
                if elem_optional.is_some() { "?" } else { "" },
                len.as_ref()
                    .map(|n| format!("; {}", n.value))
                    .unwrap_or_default()
            )
        }
        TypeAst::Map {
            key,
            value,
            value_optional,
            ..
        } => {
            format!(
                "{{{}: {}{}}}",
                type_src(key),
                type_src(value),
                if value_optional.is_some() { "?" } else { "" }
            )
        }
    }
}

fn line_col(pos: Pos) -> String {
    format!("{}:{}", pos.line, pos.col)
}

const INT_TYPES: &str = "i8, i16, i32, i64, u8, u16, u32 or u64";

struct Checker<'a> {
    files: &'a [LoadedFile],
    decls: Vec<DeclInfo<'a>>,
    by_name: HashMap<String, usize>,
    /// `visible[f][g]`: file `f` sees the types of file `g` (itself, or
    /// imported directly or transitively).
    visible: Vec<Vec<bool>>,
    diags: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    fn error(&mut self, file: usize, pos: Pos, message: impl Into<String>, hint: Option<String>) {
        let mut d = Diagnostic::new(self.files[file].path.clone(), pos.line, pos.col, message);
        d.hint = hint;
        self.diags.push(d);
    }

    fn namespace(&self, file: usize) -> Option<&'a str> {
        self.files[file]
            .ast
            .namespace
            .as_ref()
            .map(|n| n.value.as_str())
    }

    fn collect_decls(&mut self) {
        for (fi, f) in self.files.iter().enumerate() {
            let ns = f.ast.namespace.as_ref().map(|n| n.value.as_str());
            for decl in &f.ast.decls {
                let kind = match decl {
                    Decl::Message(_) => Kind::Message,
                    Decl::Enum(_) => Kind::Enum,
                    Decl::Union(_) => Kind::Union,
                };
                let name = decl.name();
                let qname = qualify(ns, &name.value);
                if let Some(&prev) = self.by_name.get(&qname) {
                    let p = &self.decls[prev];
                    let first = format!(
                        "{}:{}",
                        self.files[p.file].path.display(),
                        line_col(p.decl.name().pos)
                    );
                    let hint = Some(format!("`{qname}` is first declared at {first}"));
                    self.error(fi, name.pos, format!("duplicate type `{qname}`"), hint);
                    continue;
                }
                self.by_name.insert(qname.clone(), self.decls.len());
                self.decls.push(DeclInfo {
                    qname,
                    kind,
                    file: fi,
                    decl,
                });
            }
        }
    }

    fn compute_visibility(&mut self) {
        let n = self.files.len();
        self.visible = vec![vec![false; n]; n];
        for start in 0..n {
            let mut stack = vec![start];
            while let Some(f) = stack.pop() {
                if !self.visible[start][f] {
                    self.visible[start][f] = true;
                    stack.extend(self.files[f].imports.iter().copied());
                }
            }
        }
    }

    /// Resolves a type written in `file`; reports and returns `None` when it
    /// cannot be resolved or is unsupported.
    fn resolve(&mut self, file: usize, t: &TypeAst) -> Option<TypeRef> {
        match t {
            TypeAst::Builtin(b, _) => Some(b.clone()),
            TypeAst::Vector {
                elem,
                elem_optional,
                len: Some(len),
                ..
            } => self.resolve_array(file, elem, *elem_optional, len),
            TypeAst::Vector {
                elem,
                elem_optional,
                len: None,
                ..
            } => {
                let inner = self.resolve(file, elem);
                if let Some(pos) = elem_optional {
                    let hint = format!(
                        "use `[{}]`, or a vector of messages with an optional field",
                        type_src(elem)
                    );
                    self.error(
                        file,
                        *pos,
                        "vectors of optional elements (`[T?]`) are not supported",
                        Some(hint),
                    );
                    return None;
                }
                Some(TypeRef::Vector(Box::new(inner?)))
            }
            TypeAst::Map {
                key,
                value,
                value_optional,
                ..
            } => {
                let key_ok = matches!(**key, TypeAst::Builtin(TypeRef::String, _));
                if !key_ok {
                    let hint = format!(
                        "FlexBuffers map keys are strings: write `{{string: {}}}` and convert the keys, or use a vector of entry messages",
                        type_src(value)
                    );
                    self.error(file, key.pos(), "map keys must be string", Some(hint));
                }
                let inner = self.resolve(file, value);
                if let Some(pos) = value_optional {
                    let hint = format!(
                        "use `{{string: {}}}` and leave the key out instead of storing null",
                        type_src(value)
                    );
                    self.error(
                        file,
                        *pos,
                        "maps with optional values (`{string: T?}`) are not supported",
                        Some(hint),
                    );
                    return None;
                }
                if !key_ok {
                    return None;
                }
                Some(TypeRef::Map(Box::new(inner?)))
            }
            TypeAst::Named(name, pos) => self.resolve_name(file, name, *pos),
        }
    }

    /// `[elem; len]`: `len` elements of a scalar type.
    fn resolve_array(
        &mut self,
        file: usize,
        elem: &TypeAst,
        elem_optional: Option<Pos>,
        len: &Spanned<i128>,
    ) -> Option<TypeRef> {
        let inner = self.resolve(file, elem);
        let mut ok = true;
        if let Some(pos) = elem_optional {
            let hint = format!(
                "use `[{}; {}]` (arrays always hold every element)",
                type_src(elem),
                len.value
            );
            self.error(
                file,
                pos,
                "arrays of optional elements (`[T?; N]`) are not supported",
                Some(hint),
            );
            ok = false;
        }
        if let Some(t) = &inner {
            if !t.is_scalar() {
                let hint = format!(
                    "arrays hold bool, integers or floats; use a vector `[{}]`, or a message with one field per element",
                    type_src(elem)
                );
                self.error(
                    file,
                    elem.pos(),
                    format!(
                        "array elements must be bool, an integer or a float type, found `{}`",
                        type_src(elem)
                    ),
                    Some(hint),
                );
                ok = false;
            }
        }
        let max = MAX_ARRAY_LEN as i128;
        if !(1..=max).contains(&len.value) {
            let hint = format!(
                "use a vector `[{}]` for data of varying or larger size",
                type_src(elem)
            );
            self.error(
                file,
                len.pos,
                format!(
                    "array length must be between 1 and {max}, found {}",
                    len.value
                ),
                Some(hint),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        Some(TypeRef::Array(Box::new(inner?), len.value as usize))
    }

    fn resolve_name(&mut self, file: usize, name: &str, pos: Pos) -> Option<TypeRef> {
        let ns = self.namespace(file);
        let mut candidates = Vec::new();
        if let Some(ns) = ns {
            candidates.push(format!("{ns}.{name}"));
        }
        candidates.push(name.to_string());
        let mut hidden = None;
        for cand in &candidates {
            if let Some(&d) = self.by_name.get(cand) {
                let info = &self.decls[d];
                if self.visible[file][info.file] {
                    return Some(match info.kind {
                        Kind::Message => TypeRef::Message(info.qname.clone()),
                        Kind::Enum => TypeRef::Enum(info.qname.clone()),
                        Kind::Union => TypeRef::Union(info.qname.clone()),
                    });
                }
                hidden.get_or_insert(d);
            }
        }
        if let Some(d) = hidden {
            let info = &self.decls[d];
            let hint = format!(
                "it is declared in `{}`; import that file",
                self.files[info.file].path.display()
            );
            self.error(
                file,
                pos,
                format!("type `{}` is not visible here", info.qname),
                Some(hint),
            );
            return None;
        }
        if let Some((enum_name, variant)) = self.variant_named(file, name) {
            let hint = format!("use the enum type `{enum_name}` (and `= {variant}` as a default)");
            self.error(
                file,
                pos,
                format!("`{name}` is a variant of enum `{enum_name}`, not a type"),
                Some(hint),
            );
            return None;
        }
        let hint = suggest::type_suggestion(name, &self.visible_type_names(file))
            .map(|s| format!("did you mean `{s}`?"));
        self.error(file, pos, format!("unknown type `{name}`"), hint);
        None
    }

    /// Type names visible from `file`, spelled as they would be written there
    /// (unqualified when in the same namespace).
    fn visible_type_names(&self, file: usize) -> Vec<String> {
        let ns = self.namespace(file);
        self.decls
            .iter()
            .filter(|d| self.visible[file][d.file])
            .map(|d| {
                if self.namespace(d.file) == ns {
                    d.decl.name().value.clone()
                } else {
                    d.qname.clone()
                }
            })
            .collect()
    }

    /// A visible enum with a variant called `name`: (enum as written, variant).
    fn variant_named(&self, file: usize, name: &str) -> Option<(String, String)> {
        let short = name.rsplit('.').next().unwrap_or(name);
        self.decls
            .iter()
            .filter(|d| self.visible[file][d.file])
            .find_map(|d| match d.decl {
                Decl::Enum(e) if e.variants.iter().any(|v| v.name.value == short) => {
                    let written = if self.namespace(d.file) == self.namespace(file) {
                        e.name.value.clone()
                    } else {
                        d.qname.clone()
                    };
                    Some((written, short.to_string()))
                }
                _ => None,
            })
    }

    /// Checks a wire name given with `wire_name = "..."`.
    fn check_wire_name(&mut self, file: usize, w: &Spanned<String>) {
        if w.value.is_empty() {
            self.error(file, w.pos, "wire name must not be empty", None);
        } else if w.value.contains('\0') {
            self.error(
                file,
                w.pos,
                "wire name must not contain NUL",
                Some("FlexBuffers keys are NUL-terminated".into()),
            );
        }
    }

    fn enum_def(&mut self, file: usize, qname: &str, e: &EnumAst) -> EnumDef {
        let repr = match &e.repr {
            TypeAst::Builtin(t, _) if t.is_integer() => t.clone(),
            other => {
                let message = format!(
                    "enum representation must be an integer type, found `{}`",
                    type_src(other)
                );
                self.error(
                    file,
                    other.pos(),
                    message,
                    Some(format!("use one of {INT_TYPES}")),
                );
                TypeRef::I64
            }
        };
        let (min, max) = int_range(&repr).unwrap_or((i64::MIN.into(), i64::MAX.into()));
        let mut variants: Vec<EnumVariant> = Vec::new();
        let mut seen: HashMap<&str, Pos> = HashMap::new();
        let mut values: HashMap<i128, (&str, Pos)> = HashMap::new();
        for v in &e.variants {
            let value = v.value.value;
            if let Some(first) = seen.get(v.name.value.as_str()) {
                let hint = format!("first declared at {}", line_col(*first));
                self.error(
                    file,
                    v.name.pos,
                    format!(
                        "duplicate variant `{}` in enum `{}`",
                        v.name.value, e.name.value
                    ),
                    Some(hint),
                );
                continue;
            }
            seen.insert(&v.name.value, v.name.pos);
            if value < min || value > max {
                let message = format!(
                    "value `{value}` is out of range for `{}` ({min} to {max})",
                    builtin_name(&repr)
                );
                self.error(
                    file,
                    v.value.pos,
                    message,
                    Some("pick a value that fits, or a wider integer type".into()),
                );
                continue;
            }
            let Ok(value64) = i64::try_from(value) else {
                let message = format!("enum values above {} are not supported", i64::MAX);
                self.error(file, v.value.pos, message, None);
                continue;
            };
            if let Some((other, _)) = values.get(&value) {
                let message = format!(
                    "duplicate value `{value}` in enum `{}`: `{other}` already has it",
                    e.name.value
                );
                self.error(file, v.value.pos, message, None);
                continue;
            }
            values.insert(value, (&v.name.value, v.value.pos));
            variants.push(EnumVariant {
                name: v.name.value.clone(),
                value: value64,
                doc: v.doc.clone(),
            });
        }
        EnumDef {
            name: qname.to_string(),
            doc: e.doc.clone(),
            repr,
            variants,
        }
    }

    fn union_def(&mut self, file: usize, qname: &str, u: &UnionAst) -> UnionDef {
        let mut variants = Vec::new();
        let mut names: HashMap<&str, Pos> = HashMap::new();
        let mut wires: HashMap<String, (&str, Pos)> = HashMap::new();
        for v in &u.variants {
            let ty = self.resolve(file, &v.ty);
            if let Some(first) = names.get(v.name.value.as_str()) {
                let hint = format!("first declared at {}", line_col(*first));
                self.error(
                    file,
                    v.name.pos,
                    format!(
                        "duplicate variant `{}` in union `{}`",
                        v.name.value, u.name.value
                    ),
                    Some(hint),
                );
                continue;
            }
            names.insert(&v.name.value, v.name.pos);
            if let Some(w) = &v.wire_name {
                self.check_wire_name(file, w);
            }
            let wire = v
                .wire_name
                .as_ref()
                .map_or(&v.name.value, |w| &w.value)
                .clone();
            let wire_pos = v.wire_name.as_ref().map_or(v.name.pos, |w| w.pos);
            if let Some((other, _)) = wires.get(&wire) {
                let message = format!(
                    "duplicate wire name `{wire}` in union `{}`: variant `{other}` already uses it",
                    u.name.value
                );
                self.error(
                    file,
                    wire_pos,
                    message,
                    Some("give one of them another (wire_name = \"...\")".into()),
                );
                continue;
            }
            wires.insert(wire.clone(), (&v.name.value, wire_pos));
            if let Some(ty) = ty {
                variants.push(UnionVariant {
                    name: v.name.value.clone(),
                    wire_name: wire,
                    ty,
                    doc: v.doc.clone(),
                });
            }
        }
        UnionDef {
            name: qname.to_string(),
            doc: u.doc.clone(),
            variants,
        }
    }

    fn message(
        &mut self,
        file: usize,
        qname: &str,
        m: &MessageAst,
        schema: &Schema,
        locs: &mut HashMap<(String, String), FieldLoc>,
    ) -> Message {
        let reserved: HashMap<&str, Pos> = m
            .reserved
            .iter()
            .map(|r| (r.value.as_str(), r.pos))
            .collect();
        let mut names: HashMap<&str, Pos> = HashMap::new();
        let mut wires: HashMap<&str, (&str, Pos)> = HashMap::new();
        let mut fields = Vec::new();
        for f in &m.fields {
            let ty = self.resolve(file, &f.ty);
            if let Some(first) = names.get(f.name.value.as_str()) {
                let hint = format!("first declared at {}", line_col(*first));
                let message = format!(
                    "duplicate field `{}` in message `{}`",
                    f.name.value, m.name.value
                );
                self.error(file, f.name.pos, message, Some(hint));
                continue;
            }
            names.insert(&f.name.value, f.name.pos);
            if let Some(at) = reserved.get(f.name.value.as_str()) {
                let hint = format!(
                    "`{}` is listed in `reserved` at {}; choose another name",
                    f.name.value,
                    line_col(*at)
                );
                self.error(
                    file,
                    f.name.pos,
                    format!("field name `{}` is reserved", f.name.value),
                    Some(hint),
                );
            }
            if let Some(w) = &f.wire_name {
                self.check_wire_name(file, w);
                if w.value != f.name.value {
                    if let Some(at) = reserved.get(w.value.as_str()) {
                        let hint = format!(
                            "`{}` is listed in `reserved` at {}; choose another wire name",
                            w.value,
                            line_col(*at)
                        );
                        self.error(
                            file,
                            w.pos,
                            format!("wire name `{}` is reserved", w.value),
                            Some(hint),
                        );
                    }
                }
            }
            let wire: &str = f.wire_name.as_ref().map_or(&f.name.value, |w| &w.value);
            let wire_pos = f.wire_name.as_ref().map_or(f.name.pos, |w| w.pos);
            if let Some((other, _)) = wires.get(wire) {
                let message = format!(
                    "duplicate wire name `{wire}` in message `{}`: field `{other}` already uses it",
                    m.name.value
                );
                self.error(
                    file,
                    wire_pos,
                    message,
                    Some("give one of them another (wire_name = \"...\")".into()),
                );
            } else {
                wires.insert(wire, (&f.name.value, wire_pos));
            }
            if let (Some(_), Some(dep)) = (f.required, f.deprecated) {
                let hint =
                    "a deprecated field is never read, so it cannot be required: drop `required`"
                        .to_string();
                self.error(
                    file,
                    dep,
                    format!(
                        "field `{}` cannot be both required and deprecated",
                        f.name.value
                    ),
                    Some(hint),
                );
            }
            let Some(ty) = ty else { continue };
            self.check_needs_presence(file, f, &ty);
            if let Some(policy) = &f.ts_int64 {
                self.check_ts_int64(file, f, &ty, policy);
            }
            let default = f
                .default
                .as_ref()
                .and_then(|lit| defaults::check(self, file, f, &ty, lit, schema));
            if let (Some(_), Some(lit)) = (f.required, &f.default) {
                let hint = "absence of a required field is an error, so the default is never used: remove one of them".to_string();
                self.error(
                    file,
                    lit.pos,
                    format!("required field `{}` cannot have a default", f.name.value),
                    Some(hint),
                );
            }
            locs.insert(
                (qname.to_string(), f.name.value.clone()),
                FieldLoc {
                    file,
                    pos: f.name.pos,
                },
            );
            fields.push(Field {
                name: f.name.value.clone(),
                wire_name: wire.to_string(),
                ty,
                optional: f.optional.is_some(),
                required: f.required.is_some(),
                deprecated: f.deprecated.is_some(),
                default,
                doc: f.doc.clone(),
            });
        }
        let reserved = m.reserved.iter().map(|r| r.value.clone()).collect();
        Message {
            name: qname.to_string(),
            doc: m.doc.clone(),
            fields,
            reserved,
        }
    }

    /// `ts_int64 = "..."` names a policy the TypeScript backend knows, on a
    /// field that holds 64-bit integers (itself, or as the elements of its
    /// lists, arrays or maps).
    fn check_ts_int64(
        &mut self,
        file: usize,
        f: &FieldAst,
        ty: &TypeRef,
        policy: &Spanned<String>,
    ) {
        if !crate::request::TS_INT64.contains(&policy.value.as_str()) {
            let message = format!("unknown `ts_int64` policy \"{}\"", policy.value);
            let hint = format!(
                "use one of {}",
                crate::request::TS_INT64
                    .map(|p| format!("\"{p}\""))
                    .join(", ")
            );
            self.error(file, policy.pos, message, Some(hint));
        }
        fn holds_64(t: &TypeRef) -> bool {
            match t {
                TypeRef::I64 | TypeRef::U64 => true,
                TypeRef::Vector(e) | TypeRef::Array(e, _) | TypeRef::Map(e) => holds_64(e),
                _ => false,
            }
        }
        if !holds_64(ty) {
            let message = format!(
                "`ts_int64` on field `{}` of type `{}`, which holds no 64-bit integer",
                f.name.value,
                type_src(&f.ty)
            );
            let hint =
                "it applies to i64 and u64 fields and to lists, arrays and maps of them: remove it"
                    .to_string();
            self.error(file, policy.pos, message, Some(hint));
        }
    }

    /// Message- and union-typed fields have no zero value: they must be
    /// optional or required.
    fn check_needs_presence(&mut self, file: usize, f: &FieldAst, ty: &TypeRef) {
        if f.optional.is_some() || f.required.is_some() || f.deprecated.is_some() {
            return;
        }
        let kind = match ty {
            TypeRef::Message(_) => "message",
            TypeRef::Union(_) => "union",
            _ => return,
        };
        let written = type_src(&f.ty);
        let message = format!(
            "field `{}` of {kind} type `{written}` has no default value",
            f.name.value
        );
        let hint = format!("make it `{written}?` or mark it (required)");
        self.error(file, f.name.pos, message, Some(hint));
    }
}
