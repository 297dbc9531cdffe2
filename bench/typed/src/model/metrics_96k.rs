//! `conformance/schemas/metrics_96k.fxs`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_at, fb_str, fb_vec, str_field};
use crate::{fb::metrics_96k as fb, gen::metrics_96k as gen, pb::metrics_96k as pb};
use crate::{Field, Fixture, Probe};

/// Numeric monitoring data (the root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub series: Vec<MetricSeries>,
    pub counters: Vec<i64>,
}

/// One metric with its samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricSeries {
    pub name: String,
    pub step_s: i64,
    pub points: Vec<f64>,
}

impl From<&Metrics> for fb::MetricsT {
    fn from(v: &Metrics) -> Self {
        fb::MetricsT {
            series: fb_vec(&v.series),
            counters: Some(v.counters.clone()),
        }
    }
}

impl From<&MetricSeries> for fb::MetricSeriesT {
    fn from(v: &MetricSeries) -> Self {
        fb::MetricSeriesT {
            name: fb_str(&v.name),
            step_s: v.step_s,
            points: Some(v.points.clone()),
        }
    }
}

/// The series, sample and counter the partial read looks at.
const SERIES: usize = 50;
const POINT: usize = 64;
const COUNTER: usize = 256;

impl Fixture for Metrics {
    const NAME: &'static str = "metrics_96k";
    const PARTIAL: &'static str = "`series[50].name`, `series[50].points[64]`, `counters[256]`";

    type Gen = gen::Metrics;
    type GenRef<'a> = gen::MetricsRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::metrics_96k::Metrics<'a>;
    type Proto = pb::Metrics;
    type Fb = fb::MetricsT;
    type FbRoot<'a> = fb::Metrics<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::Metrics) -> Probe<'_> {
        let series = value.series.get(SERIES);
        [
            series.map_or(Field::Absent, |s| Field::Str(&s.name)),
            series
                .and_then(|s| s.points.get(POINT))
                .map_or(Field::Absent, |p| Field::Float(*p)),
            value
                .counters
                .get(COUNTER)
                .map_or(Field::Absent, |c| Field::Int(*c)),
        ]
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::MetricsView::from_bytes(bytes)?;
        let series = root.series()?.get(SERIES)?;
        Ok([
            Field::Str(series.name()?),
            Field::Float(series.points()?.get(POINT)?.as_f64()?),
            Field::Int(root.counters()?.get(COUNTER)?.as_i64()?),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        let series = fb_at(root.series(), SERIES);
        [
            series.map_or(Field::Absent, |s| str_field(s.name())),
            series
                .and_then(|s| fb_at(s.points(), POINT))
                .map_or(Field::Absent, Field::Float),
            fb_at(root.counters(), COUNTER).map_or(Field::Absent, Field::Int),
        ]
    }
}
