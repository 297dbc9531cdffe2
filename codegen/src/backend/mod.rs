//! The backends: one [`Backend`] per target language, listed once in
//! [`BACKENDS`].
//!
//! A backend is naming (identifiers, keywords, literals, the member names its
//! generated API reserves) plus emission from the [`Plan`]; everything
//! language-neutral is in the plan, and the name-clash check
//! ([`crate::names::check`]) runs over every backend's names alike. See
//! `codegen/README.md` for adding one.

pub mod kotlin;
pub mod python;
pub mod rust;
pub mod typescript;

use std::path::PathBuf;

use flexbuf::schema::{EnumDef, TypeRef};

use crate::plan::{MessagePlan, Plan, UnionPlan};

/// One file a backend produces, with its path relative to the output directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Where to write it, relative to the output directory.
    pub path: PathBuf,
    /// Its contents.
    pub contents: String,
}

/// A code generator for one language.
///
/// The naming methods decide every identifier the generated code declares;
/// [`Backend::emit`] uses them (never raw schema names) so that the clash
/// check sees exactly what is emitted.
pub trait Backend: Sync {
    /// The `--lang` value (`rust`, `ts`, ...).
    fn name(&self) -> &'static str;

    /// One line for `flexbuf gen --help`.
    fn summary(&self) -> &'static str;

    /// The language's reserved words.
    fn keywords(&self) -> &'static [&'static str];

    /// Member names the generated API itself declares next to field
    /// accessors (view methods and the like); a field whose name is one of
    /// these gets a different accessor name.
    fn reserved_members(&self) -> &'static [&'static str] {
        &[]
    }

    /// The identifier of type `qualified` in generated code.
    fn type_name(&self, qualified: &str) -> String;

    /// Names type `qualified` declares besides its own (views, coder
    /// objects, variant classes), for the clash check.
    fn companion_names(&self, plan: &Plan<'_>, qualified: &str) -> Vec<String> {
        let _ = (plan, qualified);
        Vec::new()
    }

    /// The scope type `qualified` is declared in: types in one scope must
    /// have distinct names. One module for every namespace unless overridden.
    fn type_scope(&self, qualified: &str) -> String {
        let _ = qualified;
        String::new()
    }

    /// The identifier of a message field.
    fn field_name(&self, name: &str) -> String;

    /// The identifier of an enum or union variant.
    fn variant_name(&self, name: &str) -> String;

    /// A string literal holding `s`.
    fn string_literal(&self, s: &str) -> String;

    /// A literal of float type `ty` with value `f` (for `f32`, already rounded).
    fn float_literal(&self, f: f64, ty: &TypeRef) -> String;

    /// The generated files.
    fn emit(&self, plan: &Plan<'_>) -> Result<Vec<GeneratedFile>, String>;
}

/// The items of a backend that writes every type into one module, in the
/// order [`emit_items`] visits them: enums, unions, then each message and
/// its view.
pub(crate) trait ModuleItems {
    /// An enum.
    fn enum_def(&mut self, e: &EnumDef);
    /// A union.
    fn union_def(&mut self, u: &UnionPlan<'_>);
    /// A message's type and coder.
    fn message(&mut self, m: &MessagePlan<'_>);
    /// A message's view.
    fn view(&mut self, m: &MessagePlan<'_>);
}

/// Visits every item of `plan` in module order.
pub(crate) fn emit_items(plan: &Plan<'_>, g: &mut impl ModuleItems) {
    for e in &plan.enums {
        g.enum_def(e.def);
    }
    for u in &plan.unions {
        g.union_def(u);
    }
    for m in &plan.messages {
        g.message(m);
        g.view(m);
    }
}

/// Every backend, in the order `flexbuf gen --help` lists them. Every host of
/// the generator (see [`crate::request`]) lists and finds languages here, so a
/// backend added to this list (`swift` is next) is available in all of them.
pub static BACKENDS: &[&dyn Backend] = &[
    &rust::Rust,
    &python::Python,
    &typescript::TypeScript::DEFAULT,
    &kotlin::Kotlin,
];

/// The backend whose [`Backend::name`] is `name`.
pub fn find(name: &str) -> Option<&'static dyn Backend> {
    BACKENDS.iter().copied().find(|b| b.name() == name)
}

/// A double-quoted string literal: `"` and `\` escaped, `\n`, `\r`, `\t`
/// written as such, and every other character passed to `escape`, which
/// returns the language's escape for it or `None` to keep it.
pub fn quoted(s: &str, escape: impl Fn(char) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => match escape(c) {
                Some(e) => out.push_str(&e),
                None => out.push(c),
            },
        }
    }
    out.push('"');
    out
}

/// A finite float, infinity or NaN, for [`Backend::float_literal`].
#[derive(Clone, Debug, PartialEq)]
pub enum FloatForm {
    /// Not a number.
    Nan,
    /// Positive infinity.
    Infinity,
    /// Negative infinity.
    NegInfinity,
    /// The shortest text that reads back as the value (Rust's `{:?}`: it has
    /// a `.` or an exponent), at `f32` precision for `f32`.
    Finite(String),
}

impl FloatForm {
    /// The form of `f` as a value of type `ty`; `f32` values print at `f32`
    /// precision unless `as_f64` (for languages whose only float is `f64`).
    pub fn of(f: f64, ty: &TypeRef, as_f64: bool) -> FloatForm {
        if f.is_nan() {
            FloatForm::Nan
        } else if f.is_infinite() {
            if f < 0.0 {
                FloatForm::NegInfinity
            } else {
                FloatForm::Infinity
            }
        } else if *ty == TypeRef::F32 && !as_f64 {
            FloatForm::Finite(format!("{:?}", f as f32))
        } else {
            FloatForm::Finite(format!("{f:?}"))
        }
    }
}
