//! `conformance/schemas/unicode_heavy.fxs`.

use std::collections::BTreeMap;

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_at, fb_box, fb_str, str_field};
use crate::{fb::unicode_heavy as fb, gen::unicode_heavy as gen, pb::unicode_heavy as pb};
use crate::{Field, Fixture, Probe};

/// A multilingual document (the root); most keys are not ASCII.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnicodeHeavy {
    pub title: String,
    #[serde(rename = "中文")]
    pub chinese: ScriptSection,
    #[serde(rename = "日本語")]
    pub japanese: ScriptSection,
    #[serde(rename = "한국어")]
    pub korean: ScriptSection,
    #[serde(rename = "Русский")]
    pub russian: ScriptSection,
    #[serde(rename = "Ελληνικά")]
    pub greek: ScriptSection,
    #[serde(rename = "العربية")]
    pub arabic: ScriptSection,
    #[serde(rename = "עברית")]
    pub hebrew: ScriptSection,
    #[serde(rename = "हिन्दी")]
    pub hindi: ScriptSection,
    #[serde(rename = "ไทย")]
    pub thai: ScriptSection,
    pub emoji: ScriptSection,
    #[serde(rename = "混合/смешанный/مختلط")]
    pub mixed: BTreeMap<String, String>,
}

/// The text of one script.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptSection {
    pub glossary: BTreeMap<String, String>,
    pub paragraphs: Vec<String>,
}

/// A `{string: string}` map as the object API's entry list.
fn entries(map: &BTreeMap<String, String>) -> Option<Vec<fb::StringEntryT>> {
    Some(
        map.iter()
            .map(|(key, value)| fb::StringEntryT {
                key: fb_str(key),
                value: fb_str(value),
            })
            .collect(),
    )
}

impl From<&UnicodeHeavy> for fb::UnicodeHeavyT {
    fn from(v: &UnicodeHeavy) -> Self {
        fb::UnicodeHeavyT {
            title: fb_str(&v.title),
            chinese: fb_box(&v.chinese),
            japanese: fb_box(&v.japanese),
            korean: fb_box(&v.korean),
            russian: fb_box(&v.russian),
            greek: fb_box(&v.greek),
            arabic: fb_box(&v.arabic),
            hebrew: fb_box(&v.hebrew),
            hindi: fb_box(&v.hindi),
            thai: fb_box(&v.thai),
            emoji: fb_box(&v.emoji),
            mixed: entries(&v.mixed),
        }
    }
}

impl From<&ScriptSection> for fb::ScriptSectionT {
    fn from(v: &ScriptSection) -> Self {
        fb::ScriptSectionT {
            glossary: entries(&v.glossary),
            paragraphs: Some(v.paragraphs.clone()),
        }
    }
}

impl Fixture for UnicodeHeavy {
    const NAME: &'static str = "unicode_heavy";
    const PARTIAL: &'static str = "`title`, `日本語.paragraphs[3]`, `emoji.paragraphs[0]`";

    type Gen = gen::UnicodeHeavy;
    type GenRef<'a> = gen::UnicodeHeavyRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::unicode_heavy::UnicodeHeavy<'a>;
    type Proto = pb::UnicodeHeavy;
    type Fb = fb::UnicodeHeavyT;
    type FbRoot<'a> = fb::UnicodeHeavy<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::UnicodeHeavy) -> Probe<'_> {
        fn para(s: &[String], i: usize) -> Field<'_> {
            s.get(i).map_or(Field::Absent, |p| Field::Str(p))
        }
        [
            Field::Str(&value.title),
            para(&value.japanese.paragraphs, 3),
            para(&value.emoji.paragraphs, 0),
        ]
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::UnicodeHeavyView::from_bytes(bytes)?;
        Ok([
            Field::Str(root.title()?),
            Field::Str(root.japanese()?.paragraphs()?.get(3)?),
            Field::Str(root.emoji()?.paragraphs()?.get(0)?),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        let para = |s: Option<fb::ScriptSection<'a>>, i: usize| {
            str_field(s.and_then(|s| fb_at(s.paragraphs(), i)))
        };
        [
            str_field(root.title()),
            para(root.japanese(), 3),
            para(root.emoji(), 0),
        ]
    }
}
