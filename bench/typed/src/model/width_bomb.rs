//! `conformance/schemas/width_bomb.fxs`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::fb_at;
use crate::{fb::width_bomb as fb, gen::width_bomb as gen, pb::width_bomb as pb};
use crate::{Field, Fixture, Probe};

/// 10,000 small ints and one `i64::MAX` (the root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WidthBomb {
    pub values: Vec<i64>,
}

impl From<&WidthBomb> for fb::WidthBombT {
    fn from(v: &WidthBomb) -> Self {
        fb::WidthBombT {
            values: Some(v.values.clone()),
        }
    }
}

/// The elements the partial read looks at (`i64::MAX` and a small one).
const AT: [usize; 2] = [5000, 9999];

impl Fixture for WidthBomb {
    const NAME: &'static str = "width_bomb";
    const PARTIAL: &'static str = "`values[5000]`, `values[9999]`";

    type Gen = gen::WidthBomb;
    type GenRef<'a> = gen::WidthBombRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::width_bomb::WidthBomb<'a>;
    type Proto = pb::WidthBomb;
    type Fb = fb::WidthBombT;
    type FbRoot<'a> = fb::WidthBomb<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::WidthBomb) -> Probe<'_> {
        let at = |i: usize| {
            value
                .values
                .get(i)
                .map_or(Field::Absent, |v| Field::Int(*v))
        };
        [at(AT[0]), at(AT[1]), Field::Absent]
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let values = gen::WidthBombView::from_bytes(bytes)?.values()?;
        Ok([
            Field::Int(values.get(AT[0])?.as_i64()?),
            Field::Int(values.get(AT[1])?.as_i64()?),
            Field::Absent,
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        let at = |i: usize| fb_at(root.values(), i).map_or(Field::Absent, Field::Int);
        [at(AT[0]), at(AT[1]), Field::Absent]
    }
}
