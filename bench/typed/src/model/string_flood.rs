//! `conformance/schemas/string_flood.fxs`.

use std::collections::BTreeMap;

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_at, fb_str, str_field};
use crate::{fb::string_flood as fb, gen::string_flood as gen, pb::string_flood as pb};
use crate::{Field, Fixture, Probe};

/// 6,000 unique strings (the root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StringFlood {
    pub strings: Vec<String>,
    pub map: BTreeMap<String, String>,
}

impl From<&StringFlood> for fb::StringFloodT {
    fn from(v: &StringFlood) -> Self {
        fb::StringFloodT {
            strings: Some(v.strings.clone()),
            map: Some(
                v.map
                    .iter()
                    .map(|(key, value)| fb::StringEntryT {
                        key: fb_str(key),
                        value: fb_str(value),
                    })
                    .collect(),
            ),
        }
    }
}

/// The strings the partial read looks at.
const AT: [usize; 2] = [2500, 4999];

impl Fixture for StringFlood {
    const NAME: &'static str = "string_flood";
    const PARTIAL: &'static str = "`strings[2500]`, `strings[4999]`";

    type Gen = gen::StringFlood;
    type GenRef<'a> = gen::StringFloodRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::string_flood::StringFlood<'a>;
    type Proto = pb::StringFlood;
    type Fb = fb::StringFloodT;
    type FbRoot<'a> = fb::StringFlood<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::StringFlood) -> Probe<'_> {
        let at = |i: usize| {
            value
                .strings
                .get(i)
                .map_or(Field::Absent, |s| Field::Str(s))
        };
        [at(AT[0]), at(AT[1]), Field::Absent]
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let strings = gen::StringFloodView::from_bytes(bytes)?.strings()?;
        Ok([
            Field::Str(strings.get(AT[0])?),
            Field::Str(strings.get(AT[1])?),
            Field::Absent,
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        let at = |i: usize| str_field(fb_at(root.strings(), i));
        [at(AT[0]), at(AT[1]), Field::Absent]
    }
}
