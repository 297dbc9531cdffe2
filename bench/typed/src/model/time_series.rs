//! `conformance/schemas/time_series.fxs`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_str, str_field};
use crate::{fb::time_series as fb, gen::time_series as gen, pb::time_series as pb};
use crate::{Field, Fixture, Probe};

/// One sensor stream: three parallel vectors (the root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    pub sensor: String,
    pub unit: String,
    pub start: i64,
    pub interval_ms: i64,
    pub timestamps: Vec<i64>,
    pub values: Vec<f64>,
    pub quality: Vec<i64>,
}

impl From<&TimeSeries> for fb::TimeSeriesT {
    fn from(v: &TimeSeries) -> Self {
        fb::TimeSeriesT {
            sensor: fb_str(&v.sensor),
            unit: fb_str(&v.unit),
            start: v.start,
            interval_ms: v.interval_ms,
            timestamps: Some(v.timestamps.clone()),
            values: Some(v.values.clone()),
            quality: Some(v.quality.clone()),
        }
    }
}

/// The sample the partial read looks at.
const SAMPLE: usize = 2048;

impl Fixture for TimeSeries {
    const NAME: &'static str = "time_series";
    const PARTIAL: &'static str = "`sensor`, `values[2048]`, `timestamps[2048]`";

    type Gen = gen::TimeSeries;
    type GenRef<'a> = gen::TimeSeriesRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::time_series::TimeSeries<'a>;
    type Proto = pb::TimeSeries;
    type Fb = fb::TimeSeriesT;
    type FbRoot<'a> = fb::TimeSeries<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::TimeSeries) -> Probe<'_> {
        [
            Field::Str(&value.sensor),
            value
                .values
                .get(SAMPLE)
                .map_or(Field::Absent, |v| Field::Float(*v)),
            value
                .timestamps
                .get(SAMPLE)
                .map_or(Field::Absent, |v| Field::Int(*v)),
        ]
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::TimeSeriesView::from_bytes(bytes)?;
        Ok([
            Field::Str(root.sensor()?),
            Field::Float(root.values()?.get(SAMPLE)?.as_f64()?),
            Field::Int(root.timestamps()?.get(SAMPLE)?.as_i64()?),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        [
            str_field(root.sensor()),
            super::fb_at(root.values(), SAMPLE).map_or(Field::Absent, Field::Float),
            super::fb_at(root.timestamps(), SAMPLE).map_or(Field::Absent, Field::Int),
        ]
    }
}
