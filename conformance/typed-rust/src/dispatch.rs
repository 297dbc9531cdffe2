//! From a case's schema and qualified type name to the generated Rust coder.

use flexbuf::FlexCoder;

use crate::fixtures;
use crate::typed::{arrays, defects, evolution_v1 as evo1, evolution_v2 as evo2};

/// Decode as one generated type and re-encode with its encoder.
pub type RoundTrip = fn(&[u8]) -> flexbuf::Result<Vec<u8>>;

/// The decoding entry points of one generated type.
#[derive(Clone, Copy)]
pub struct Coder {
    /// `from_flex` (one checked pass), then `to_flex`: what the cases run.
    pub one_pass: RoundTrip,
    /// `from_flex_strict` (verify the whole buffer first), then `to_flex`.
    pub strict: RoundTrip,
    /// The borrowed form's `from_flex_borrowed`, `into_owned`, then `to_flex`.
    pub borrowed: RoundTrip,
}

/// `from_flex`, then `to_flex`.
pub fn one_pass<T: FlexCoder>(bytes: &[u8]) -> flexbuf::Result<Vec<u8>> {
    T::from_flex(bytes)?.to_flex()
}

/// `from_flex_strict`, then `to_flex`.
pub fn strict<T: FlexCoder>(bytes: &[u8]) -> flexbuf::Result<Vec<u8>> {
    T::from_flex_strict(bytes)?.to_flex()
}

/// The [`Coder`] of owned type `$t` whose borrowed form is `$r`.
macro_rules! coder {
    ($t:ty, $r:ty) => {{
        fn borrowed(bytes: &[u8]) -> flexbuf::Result<Vec<u8>> {
            let value: $t = flexbuf::FlexBorrow::into_owned(
                <$r as flexbuf::FlexBorrow>::from_flex_borrowed(bytes)?,
            );
            value.to_flex()
        }
        Coder {
            one_pass: one_pass::<$t>,
            strict: strict::<$t>,
            borrowed,
        }
    }};
}

const ARRAYS: &str = "typed/schemas/arrays.fxs";
const DEFECTS: &str = "typed/schemas/defects.fxs";
const EVO1: &str = "typed/schemas/evolution_v1.fxs";
const EVO2: &str = "typed/schemas/evolution_v2.fxs";

/// Every type cases may name: (schema relative to `conformance/`, qualified
/// type, coder). The schema is part of the key because several fixture
/// schemas share the namespace `fixtures`.
pub const TYPES: &[(&str, &str, Coder)] = &[
    (
        ARRAYS,
        "arrays.Body",
        coder!(arrays::Body, arrays::BodyRef<'_>),
    ),
    (
        ARRAYS,
        "arrays.Track",
        coder!(arrays::Track, arrays::TrackRef<'_>),
    ),
    (
        ARRAYS,
        "arrays.Anchor",
        coder!(arrays::Anchor, arrays::AnchorRef<'_>),
    ),
    (
        ARRAYS,
        "arrays.Wide",
        coder!(arrays::Wide, arrays::WideRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Profile",
        coder!(defects::Profile, defects::ProfileRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Address",
        coder!(defects::Address, defects::AddressRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Contact",
        coder!(defects::Contact, defects::ContactRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Settings",
        coder!(defects::Settings, defects::SettingsRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Empty",
        coder!(defects::Empty, defects::EmptyRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Circle",
        coder!(defects::Circle, defects::CircleRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Square",
        coder!(defects::Square, defects::SquareRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Shape",
        coder!(defects::Shape, defects::ShapeRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Canvas",
        coder!(defects::Canvas, defects::CanvasRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Seller",
        coder!(defects::Seller, defects::SellerRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Item",
        coder!(defects::Item, defects::ItemRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Order",
        coder!(defects::Order, defects::OrderRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Ranges",
        coder!(defects::Ranges, defects::RangesRef<'_>),
    ),
    (
        DEFECTS,
        "defects.Vectors",
        coder!(defects::Vectors, defects::VectorsRef<'_>),
    ),
    (
        EVO1,
        "evo1.AddOptional",
        coder!(evo1::AddOptional, evo1::AddOptionalRef<'_>),
    ),
    (
        EVO1,
        "evo1.AddRequired",
        coder!(evo1::AddRequired, evo1::AddRequiredRef<'_>),
    ),
    (
        EVO1,
        "evo1.RemoveField",
        coder!(evo1::RemoveField, evo1::RemoveFieldRef<'_>),
    ),
    (
        EVO1,
        "evo1.Rename",
        coder!(evo1::Rename, evo1::RenameRef<'_>),
    ),
    (
        EVO1,
        "evo1.Reorder",
        coder!(evo1::Reorder, evo1::ReorderRef<'_>),
    ),
    (EVO1, "evo1.Widen", coder!(evo1::Widen, evo1::WidenRef<'_>)),
    (
        EVO1,
        "evo1.Retype",
        coder!(evo1::Retype, evo1::RetypeRef<'_>),
    ),
    (
        EVO1,
        "evo1.Member",
        coder!(evo1::Member, evo1::MemberRef<'_>),
    ),
    (EVO1, "evo1.Team", coder!(evo1::Team, evo1::TeamRef<'_>)),
    (EVO1, "evo1.Owner", coder!(evo1::Owner, evo1::OwnerRef<'_>)),
    (
        EVO2,
        "evo2.AddOptional",
        coder!(evo2::AddOptional, evo2::AddOptionalRef<'_>),
    ),
    (
        EVO2,
        "evo2.AddRequired",
        coder!(evo2::AddRequired, evo2::AddRequiredRef<'_>),
    ),
    (
        EVO2,
        "evo2.RemoveField",
        coder!(evo2::RemoveField, evo2::RemoveFieldRef<'_>),
    ),
    (
        EVO2,
        "evo2.Rename",
        coder!(evo2::Rename, evo2::RenameRef<'_>),
    ),
    (
        EVO2,
        "evo2.Reorder",
        coder!(evo2::Reorder, evo2::ReorderRef<'_>),
    ),
    (EVO2, "evo2.Widen", coder!(evo2::Widen, evo2::WidenRef<'_>)),
    (
        EVO2,
        "evo2.Retype",
        coder!(evo2::Retype, evo2::RetypeRef<'_>),
    ),
    (
        EVO2,
        "evo2.Member",
        coder!(evo2::Member, evo2::MemberRef<'_>),
    ),
    (EVO2, "evo2.Team", coder!(evo2::Team, evo2::TeamRef<'_>)),
    (EVO2, "evo2.Owner", coder!(evo2::Owner, evo2::OwnerRef<'_>)),
    (
        "schemas/api_response.fxs",
        "fixtures.ApiResponse",
        coder!(
            fixtures::api_response::ApiResponse,
            fixtures::api_response::ApiResponseRef<'_>
        ),
    ),
    (
        "schemas/chat_thread.fxs",
        "fixtures.ChatThread",
        coder!(
            fixtures::chat_thread::ChatThread,
            fixtures::chat_thread::ChatThreadRef<'_>
        ),
    ),
    (
        "schemas/deep_nesting.fxs",
        "fixtures.DeepLevel",
        coder!(
            fixtures::deep_nesting::DeepLevel,
            fixtures::deep_nesting::DeepLevelRef<'_>
        ),
    ),
    (
        "schemas/metrics_96k.fxs",
        "fixtures.Metrics",
        coder!(
            fixtures::metrics_96k::Metrics,
            fixtures::metrics_96k::MetricsRef<'_>
        ),
    ),
    (
        "schemas/repeated_maps.fxs",
        "fixtures.RepeatedMaps",
        coder!(
            fixtures::repeated_maps::RepeatedMaps,
            fixtures::repeated_maps::RepeatedMapsRef<'_>
        ),
    ),
    (
        "schemas/string_flood.fxs",
        "fixtures.StringFlood",
        coder!(
            fixtures::string_flood::StringFlood,
            fixtures::string_flood::StringFloodRef<'_>
        ),
    ),
    (
        "schemas/time_series.fxs",
        "fixtures.TimeSeries",
        coder!(
            fixtures::time_series::TimeSeries,
            fixtures::time_series::TimeSeriesRef<'_>
        ),
    ),
    (
        "schemas/unicode_heavy.fxs",
        "fixtures.UnicodeHeavy",
        coder!(
            fixtures::unicode_heavy::UnicodeHeavy,
            fixtures::unicode_heavy::UnicodeHeavyRef<'_>
        ),
    ),
    (
        "schemas/user_profile.fxs",
        "fixtures.UserProfile",
        coder!(
            fixtures::user_profile::UserProfile,
            fixtures::user_profile::UserProfileRef<'_>
        ),
    ),
    (
        "schemas/wide_map.fxs",
        "fixtures.WideMap",
        coder!(
            fixtures::wide_map::WideMap,
            fixtures::wide_map::WideMapRef<'_>
        ),
    ),
    (
        "schemas/width_bomb.fxs",
        "fixtures.WidthBomb",
        coder!(
            fixtures::width_bomb::WidthBomb,
            fixtures::width_bomb::WidthBombRef<'_>
        ),
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

/// What one decode gave, comparable across entry points: the re-encoded
/// value, or the error's kind and field path.
pub type DecodeOutcome = Result<Vec<u8>, (flexbuf::ErrorKind, Option<String>)>;

fn outcome(r: flexbuf::Result<Vec<u8>>) -> DecodeOutcome {
    r.map_err(|e| (e.kind().clone(), e.path()))
}

/// Checks the contract of the generated decoders on `bytes`, whatever they
/// are: the borrowed decode gives what the owned one-pass decode gives
/// (the same value or the same error kind and path); on a buffer `verify`
/// accepts, the one-pass and the verifying decode agree; on any other, the
/// verifying decode fails. `Err` says which part broke. (A panic is a
/// failure too; callers that run untrusted inputs catch it or, as the fuzz
/// target does, let the engine report it.)
pub fn agreement(c: Coder, bytes: &[u8]) -> Result<(), String> {
    let one = outcome((c.one_pass)(bytes));
    let strict = outcome((c.strict)(bytes));
    let borrowed = outcome((c.borrowed)(bytes));
    if one != borrowed {
        return Err(format!(
            "the borrowed decode differs from the owned one: {borrowed:?} against {one:?}"
        ));
    }
    if flexbuf::verify(bytes).is_ok() {
        if one != strict {
            return Err(format!(
                "one-pass and verifying decode differ on a valid buffer: {one:?} against {strict:?}"
            ));
        }
    } else if let Ok(v) = strict {
        return Err(format!(
            "the verifying decode accepted an invalid buffer ({} bytes re-encoded)",
            v.len()
        ));
    }
    Ok(())
}
