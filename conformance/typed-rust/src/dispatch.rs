//! From a case's schema and qualified type name to the generated Rust coder.

use flexbuf::FlexCoder;

use crate::fixtures;
use crate::typed::{defects, evolution_v1 as evo1, evolution_v2 as evo2};

/// Verify, decode as one generated type, and re-encode with its encoder.
pub type RoundTrip = fn(&[u8]) -> flexbuf::Result<Vec<u8>>;

fn round_trip<T: FlexCoder>(bytes: &[u8]) -> flexbuf::Result<Vec<u8>> {
    T::from_flex(bytes)?.to_flex()
}

const DEFECTS: &str = "typed/schemas/defects.fxs";
const EVO1: &str = "typed/schemas/evolution_v1.fxs";
const EVO2: &str = "typed/schemas/evolution_v2.fxs";

/// Every type cases may name: (schema relative to `conformance/`, qualified
/// type, coder). The schema is part of the key because several fixture
/// schemas share the namespace `fixtures`.
pub const TYPES: &[(&str, &str, RoundTrip)] = &[
    (DEFECTS, "defects.Profile", round_trip::<defects::Profile>),
    (DEFECTS, "defects.Address", round_trip::<defects::Address>),
    (DEFECTS, "defects.Contact", round_trip::<defects::Contact>),
    (DEFECTS, "defects.Settings", round_trip::<defects::Settings>),
    (DEFECTS, "defects.Empty", round_trip::<defects::Empty>),
    (DEFECTS, "defects.Circle", round_trip::<defects::Circle>),
    (DEFECTS, "defects.Square", round_trip::<defects::Square>),
    (DEFECTS, "defects.Shape", round_trip::<defects::Shape>),
    (DEFECTS, "defects.Canvas", round_trip::<defects::Canvas>),
    (DEFECTS, "defects.Seller", round_trip::<defects::Seller>),
    (DEFECTS, "defects.Item", round_trip::<defects::Item>),
    (DEFECTS, "defects.Order", round_trip::<defects::Order>),
    (DEFECTS, "defects.Ranges", round_trip::<defects::Ranges>),
    (DEFECTS, "defects.Vectors", round_trip::<defects::Vectors>),
    (EVO1, "evo1.AddOptional", round_trip::<evo1::AddOptional>),
    (EVO1, "evo1.AddRequired", round_trip::<evo1::AddRequired>),
    (EVO1, "evo1.RemoveField", round_trip::<evo1::RemoveField>),
    (EVO1, "evo1.Rename", round_trip::<evo1::Rename>),
    (EVO1, "evo1.Reorder", round_trip::<evo1::Reorder>),
    (EVO1, "evo1.Widen", round_trip::<evo1::Widen>),
    (EVO1, "evo1.Retype", round_trip::<evo1::Retype>),
    (EVO1, "evo1.Member", round_trip::<evo1::Member>),
    (EVO1, "evo1.Team", round_trip::<evo1::Team>),
    (EVO1, "evo1.Owner", round_trip::<evo1::Owner>),
    (EVO2, "evo2.AddOptional", round_trip::<evo2::AddOptional>),
    (EVO2, "evo2.AddRequired", round_trip::<evo2::AddRequired>),
    (EVO2, "evo2.RemoveField", round_trip::<evo2::RemoveField>),
    (EVO2, "evo2.Rename", round_trip::<evo2::Rename>),
    (EVO2, "evo2.Reorder", round_trip::<evo2::Reorder>),
    (EVO2, "evo2.Widen", round_trip::<evo2::Widen>),
    (EVO2, "evo2.Retype", round_trip::<evo2::Retype>),
    (EVO2, "evo2.Member", round_trip::<evo2::Member>),
    (EVO2, "evo2.Team", round_trip::<evo2::Team>),
    (EVO2, "evo2.Owner", round_trip::<evo2::Owner>),
    (
        "schemas/api_response.fxs",
        "fixtures.ApiResponse",
        round_trip::<fixtures::api_response::ApiResponse>,
    ),
    (
        "schemas/chat_thread.fxs",
        "fixtures.ChatThread",
        round_trip::<fixtures::chat_thread::ChatThread>,
    ),
    (
        "schemas/deep_nesting.fxs",
        "fixtures.DeepLevel",
        round_trip::<fixtures::deep_nesting::DeepLevel>,
    ),
    (
        "schemas/metrics_96k.fxs",
        "fixtures.Metrics",
        round_trip::<fixtures::metrics_96k::Metrics>,
    ),
    (
        "schemas/repeated_maps.fxs",
        "fixtures.RepeatedMaps",
        round_trip::<fixtures::repeated_maps::RepeatedMaps>,
    ),
    (
        "schemas/string_flood.fxs",
        "fixtures.StringFlood",
        round_trip::<fixtures::string_flood::StringFlood>,
    ),
    (
        "schemas/time_series.fxs",
        "fixtures.TimeSeries",
        round_trip::<fixtures::time_series::TimeSeries>,
    ),
    (
        "schemas/unicode_heavy.fxs",
        "fixtures.UnicodeHeavy",
        round_trip::<fixtures::unicode_heavy::UnicodeHeavy>,
    ),
    (
        "schemas/user_profile.fxs",
        "fixtures.UserProfile",
        round_trip::<fixtures::user_profile::UserProfile>,
    ),
    (
        "schemas/wide_map.fxs",
        "fixtures.WideMap",
        round_trip::<fixtures::wide_map::WideMap>,
    ),
    (
        "schemas/width_bomb.fxs",
        "fixtures.WidthBomb",
        round_trip::<fixtures::width_bomb::WidthBomb>,
    ),
];

/// The coder for `ty` of `schema`, if generated.
pub fn lookup(schema: &str, ty: &str) -> Option<RoundTrip> {
    TYPES
        .iter()
        .find(|(s, t, _)| *s == schema && *t == ty)
        .map(|&(_, _, f)| f)
}
