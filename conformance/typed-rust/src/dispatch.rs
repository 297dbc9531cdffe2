//! From a case's schema and qualified type name to the generated Rust coder.

use flexbuf::FlexCoder;

use crate::fixtures;
use crate::typed::{arrays, defects, evolution_v1 as evo1, evolution_v2 as evo2};

/// Decode as one generated type and re-encode with its encoder.
pub type RoundTrip = fn(&[u8]) -> flexbuf::Result<Vec<u8>>;

/// Both decoding entry points of one generated type.
#[derive(Clone, Copy)]
pub struct Coder {
    /// `from_flex` (one checked pass), then `to_flex`: what the cases run.
    pub one_pass: RoundTrip,
    /// `from_flex_strict` (verify the whole buffer first), then `to_flex`.
    pub strict: RoundTrip,
}

const fn coder<T: FlexCoder>() -> Coder {
    fn one_pass<T: FlexCoder>(bytes: &[u8]) -> flexbuf::Result<Vec<u8>> {
        T::from_flex(bytes)?.to_flex()
    }
    fn strict<T: FlexCoder>(bytes: &[u8]) -> flexbuf::Result<Vec<u8>> {
        T::from_flex_strict(bytes)?.to_flex()
    }
    Coder {
        one_pass: one_pass::<T>,
        strict: strict::<T>,
    }
}

const ARRAYS: &str = "typed/schemas/arrays.fxs";
const DEFECTS: &str = "typed/schemas/defects.fxs";
const EVO1: &str = "typed/schemas/evolution_v1.fxs";
const EVO2: &str = "typed/schemas/evolution_v2.fxs";

/// Every type cases may name: (schema relative to `conformance/`, qualified
/// type, coder). The schema is part of the key because several fixture
/// schemas share the namespace `fixtures`.
pub const TYPES: &[(&str, &str, Coder)] = &[
    (ARRAYS, "arrays.Body", coder::<arrays::Body>()),
    (ARRAYS, "arrays.Track", coder::<arrays::Track>()),
    (ARRAYS, "arrays.Anchor", coder::<arrays::Anchor>()),
    (ARRAYS, "arrays.Wide", coder::<arrays::Wide>()),
    (DEFECTS, "defects.Profile", coder::<defects::Profile>()),
    (DEFECTS, "defects.Address", coder::<defects::Address>()),
    (DEFECTS, "defects.Contact", coder::<defects::Contact>()),
    (DEFECTS, "defects.Settings", coder::<defects::Settings>()),
    (DEFECTS, "defects.Empty", coder::<defects::Empty>()),
    (DEFECTS, "defects.Circle", coder::<defects::Circle>()),
    (DEFECTS, "defects.Square", coder::<defects::Square>()),
    (DEFECTS, "defects.Shape", coder::<defects::Shape>()),
    (DEFECTS, "defects.Canvas", coder::<defects::Canvas>()),
    (DEFECTS, "defects.Seller", coder::<defects::Seller>()),
    (DEFECTS, "defects.Item", coder::<defects::Item>()),
    (DEFECTS, "defects.Order", coder::<defects::Order>()),
    (DEFECTS, "defects.Ranges", coder::<defects::Ranges>()),
    (DEFECTS, "defects.Vectors", coder::<defects::Vectors>()),
    (EVO1, "evo1.AddOptional", coder::<evo1::AddOptional>()),
    (EVO1, "evo1.AddRequired", coder::<evo1::AddRequired>()),
    (EVO1, "evo1.RemoveField", coder::<evo1::RemoveField>()),
    (EVO1, "evo1.Rename", coder::<evo1::Rename>()),
    (EVO1, "evo1.Reorder", coder::<evo1::Reorder>()),
    (EVO1, "evo1.Widen", coder::<evo1::Widen>()),
    (EVO1, "evo1.Retype", coder::<evo1::Retype>()),
    (EVO1, "evo1.Member", coder::<evo1::Member>()),
    (EVO1, "evo1.Team", coder::<evo1::Team>()),
    (EVO1, "evo1.Owner", coder::<evo1::Owner>()),
    (EVO2, "evo2.AddOptional", coder::<evo2::AddOptional>()),
    (EVO2, "evo2.AddRequired", coder::<evo2::AddRequired>()),
    (EVO2, "evo2.RemoveField", coder::<evo2::RemoveField>()),
    (EVO2, "evo2.Rename", coder::<evo2::Rename>()),
    (EVO2, "evo2.Reorder", coder::<evo2::Reorder>()),
    (EVO2, "evo2.Widen", coder::<evo2::Widen>()),
    (EVO2, "evo2.Retype", coder::<evo2::Retype>()),
    (EVO2, "evo2.Member", coder::<evo2::Member>()),
    (EVO2, "evo2.Team", coder::<evo2::Team>()),
    (EVO2, "evo2.Owner", coder::<evo2::Owner>()),
    (
        "schemas/api_response.fxs",
        "fixtures.ApiResponse",
        coder::<fixtures::api_response::ApiResponse>(),
    ),
    (
        "schemas/chat_thread.fxs",
        "fixtures.ChatThread",
        coder::<fixtures::chat_thread::ChatThread>(),
    ),
    (
        "schemas/deep_nesting.fxs",
        "fixtures.DeepLevel",
        coder::<fixtures::deep_nesting::DeepLevel>(),
    ),
    (
        "schemas/metrics_96k.fxs",
        "fixtures.Metrics",
        coder::<fixtures::metrics_96k::Metrics>(),
    ),
    (
        "schemas/repeated_maps.fxs",
        "fixtures.RepeatedMaps",
        coder::<fixtures::repeated_maps::RepeatedMaps>(),
    ),
    (
        "schemas/string_flood.fxs",
        "fixtures.StringFlood",
        coder::<fixtures::string_flood::StringFlood>(),
    ),
    (
        "schemas/time_series.fxs",
        "fixtures.TimeSeries",
        coder::<fixtures::time_series::TimeSeries>(),
    ),
    (
        "schemas/unicode_heavy.fxs",
        "fixtures.UnicodeHeavy",
        coder::<fixtures::unicode_heavy::UnicodeHeavy>(),
    ),
    (
        "schemas/user_profile.fxs",
        "fixtures.UserProfile",
        coder::<fixtures::user_profile::UserProfile>(),
    ),
    (
        "schemas/wide_map.fxs",
        "fixtures.WideMap",
        coder::<fixtures::wide_map::WideMap>(),
    ),
    (
        "schemas/width_bomb.fxs",
        "fixtures.WidthBomb",
        coder::<fixtures::width_bomb::WidthBomb>(),
    ),
];

/// The one-pass round trip for `ty` of `schema`, if generated.
pub fn lookup(schema: &str, ty: &str) -> Option<RoundTrip> {
    coders(schema, ty).map(|c| c.one_pass)
}

/// Both entry points for `ty` of `schema`, if generated.
pub fn coders(schema: &str, ty: &str) -> Option<Coder> {
    TYPES
        .iter()
        .find(|(s, t, _)| *s == schema && *t == ty)
        .map(|&(_, _, c)| c)
}
