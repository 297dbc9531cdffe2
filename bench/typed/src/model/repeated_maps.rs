//! `conformance/schemas/repeated_maps.fxs`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_at, fb_str, fb_vec, str_field};
use crate::{fb::repeated_maps as fb, gen::repeated_maps as gen, pb::repeated_maps as pb};
use crate::{Field, Fixture, Probe};

/// 1,000 rows with the same keys (the root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepeatedMaps {
    pub rows: Vec<RepeatedRow>,
}

/// One account row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepeatedRow {
    pub id: i64,
    pub name: String,
    pub status: String,
    pub region: String,
    pub balance: f64,
    pub active: bool,
    pub logins: i64,
    pub updated_at: String,
}

impl From<&RepeatedMaps> for fb::RepeatedMapsT {
    fn from(v: &RepeatedMaps) -> Self {
        fb::RepeatedMapsT {
            rows: fb_vec(&v.rows),
        }
    }
}

impl From<&RepeatedRow> for fb::RepeatedRowT {
    fn from(v: &RepeatedRow) -> Self {
        fb::RepeatedRowT {
            id: v.id,
            name: fb_str(&v.name),
            status: fb_str(&v.status),
            region: fb_str(&v.region),
            balance: v.balance,
            active: v.active,
            logins: v.logins,
            updated_at: fb_str(&v.updated_at),
        }
    }
}

/// The row the partial read looks at.
const ROW: usize = 500;

impl Fixture for RepeatedMaps {
    const NAME: &'static str = "repeated_maps";
    const PARTIAL: &'static str = "`rows[500].name`, `rows[500].balance`, `rows[500].logins`";

    type Gen = gen::RepeatedMaps;
    type GenRef<'a> = gen::RepeatedMapsRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::repeated_maps::RepeatedMaps<'a>;
    type Proto = pb::RepeatedMaps;
    type Fb = fb::RepeatedMapsT;
    type FbRoot<'a> = fb::RepeatedMaps<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::RepeatedMaps) -> Probe<'_> {
        match value.rows.get(ROW) {
            Some(row) => [
                Field::Str(&row.name),
                Field::Float(row.balance),
                Field::Int(row.logins),
            ],
            None => [Field::Absent; 3],
        }
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::RepeatedMapsView::from_bytes(bytes)?;
        let row = root.rows()?.get(ROW)?;
        Ok([
            Field::Str(row.name()?),
            Field::Float(row.balance()?),
            Field::Int(row.logins()?),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        match fb_at(root.rows(), ROW) {
            Some(row) => [
                str_field(row.name()),
                Field::Float(row.balance()),
                Field::Int(row.logins()),
            ],
            None => [Field::Absent; 3],
        }
    }
}
