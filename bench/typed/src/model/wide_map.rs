//! `conformance/schemas/wide_map.fxs`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_str, str_field};
use crate::{fb::wide_map as fb, gen::wide_map as gen, pb::wide_map as pb};
use crate::{Field, Fixture, Probe};

/// One flat map of 80 fields; the prefix gives the type (`n_` fields are null).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WideMap {
    pub i_00: i64,
    pub f_01: f64,
    pub b_02: bool,
    pub s_03: String,
    pub n_04: Option<String>,
    pub i_05: i64,
    pub f_06: f64,
    pub b_07: bool,
    pub s_08: String,
    pub n_09: Option<String>,
    pub i_10: i64,
    pub f_11: f64,
    pub b_12: bool,
    pub s_13: String,
    pub n_14: Option<String>,
    pub i_15: i64,
    pub f_16: f64,
    pub b_17: bool,
    pub s_18: String,
    pub n_19: Option<String>,
    pub i_20: i64,
    pub f_21: f64,
    pub b_22: bool,
    pub s_23: String,
    pub n_24: Option<String>,
    pub i_25: i64,
    pub f_26: f64,
    pub b_27: bool,
    pub s_28: String,
    pub n_29: Option<String>,
    pub i_30: i64,
    pub f_31: f64,
    pub b_32: bool,
    pub s_33: String,
    pub n_34: Option<String>,
    pub i_35: i64,
    pub f_36: f64,
    pub b_37: bool,
    pub s_38: String,
    pub n_39: Option<String>,
    pub i_40: i64,
    pub f_41: f64,
    pub b_42: bool,
    pub s_43: String,
    pub n_44: Option<String>,
    pub i_45: i64,
    pub f_46: f64,
    pub b_47: bool,
    pub s_48: String,
    pub n_49: Option<String>,
    pub i_50: i64,
    pub f_51: f64,
    pub b_52: bool,
    pub s_53: String,
    pub n_54: Option<String>,
    pub i_55: i64,
    pub f_56: f64,
    pub b_57: bool,
    pub s_58: String,
    pub n_59: Option<String>,
    pub i_60: i64,
    pub f_61: f64,
    pub b_62: bool,
    pub s_63: String,
    pub n_64: Option<String>,
    pub i_65: i64,
    pub f_66: f64,
    pub b_67: bool,
    pub s_68: String,
    pub n_69: Option<String>,
    pub i_70: i64,
    pub f_71: f64,
    pub b_72: bool,
    pub s_73: String,
    pub n_74: Option<String>,
    pub i_75: i64,
    pub f_76: f64,
    pub b_77: bool,
    pub s_78: String,
    pub n_79: Option<String>,
}

impl From<&WideMap> for fb::WideMapT {
    fn from(v: &WideMap) -> Self {
        fb::WideMapT {
            i_00: v.i_00,
            f_01: v.f_01,
            b_02: v.b_02,
            s_03: fb_str(&v.s_03),
            n_04: v.n_04.clone(),
            i_05: v.i_05,
            f_06: v.f_06,
            b_07: v.b_07,
            s_08: fb_str(&v.s_08),
            n_09: v.n_09.clone(),
            i_10: v.i_10,
            f_11: v.f_11,
            b_12: v.b_12,
            s_13: fb_str(&v.s_13),
            n_14: v.n_14.clone(),
            i_15: v.i_15,
            f_16: v.f_16,
            b_17: v.b_17,
            s_18: fb_str(&v.s_18),
            n_19: v.n_19.clone(),
            i_20: v.i_20,
            f_21: v.f_21,
            b_22: v.b_22,
            s_23: fb_str(&v.s_23),
            n_24: v.n_24.clone(),
            i_25: v.i_25,
            f_26: v.f_26,
            b_27: v.b_27,
            s_28: fb_str(&v.s_28),
            n_29: v.n_29.clone(),
            i_30: v.i_30,
            f_31: v.f_31,
            b_32: v.b_32,
            s_33: fb_str(&v.s_33),
            n_34: v.n_34.clone(),
            i_35: v.i_35,
            f_36: v.f_36,
            b_37: v.b_37,
            s_38: fb_str(&v.s_38),
            n_39: v.n_39.clone(),
            i_40: v.i_40,
            f_41: v.f_41,
            b_42: v.b_42,
            s_43: fb_str(&v.s_43),
            n_44: v.n_44.clone(),
            i_45: v.i_45,
            f_46: v.f_46,
            b_47: v.b_47,
            s_48: fb_str(&v.s_48),
            n_49: v.n_49.clone(),
            i_50: v.i_50,
            f_51: v.f_51,
            b_52: v.b_52,
            s_53: fb_str(&v.s_53),
            n_54: v.n_54.clone(),
            i_55: v.i_55,
            f_56: v.f_56,
            b_57: v.b_57,
            s_58: fb_str(&v.s_58),
            n_59: v.n_59.clone(),
            i_60: v.i_60,
            f_61: v.f_61,
            b_62: v.b_62,
            s_63: fb_str(&v.s_63),
            n_64: v.n_64.clone(),
            i_65: v.i_65,
            f_66: v.f_66,
            b_67: v.b_67,
            s_68: fb_str(&v.s_68),
            n_69: v.n_69.clone(),
            i_70: v.i_70,
            f_71: v.f_71,
            b_72: v.b_72,
            s_73: fb_str(&v.s_73),
            n_74: v.n_74.clone(),
            i_75: v.i_75,
            f_76: v.f_76,
            b_77: v.b_77,
            s_78: fb_str(&v.s_78),
            n_79: v.n_79.clone(),
        }
    }
}

impl Fixture for WideMap {
    const NAME: &'static str = "wide_map";
    const PARTIAL: &'static str = "`i_40`, `f_41`, `s_43`";

    type Gen = gen::WideMap;
    type GenRef<'a> = gen::WideMapRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::wide_map::WideMap<'a>;
    type Proto = pb::WideMap;
    type Fb = fb::WideMapT;
    type FbRoot<'a> = fb::WideMap<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::WideMap) -> Probe<'_> {
        [
            Field::Int(value.i_40),
            Field::Float(value.f_41),
            Field::Str(&value.s_43),
        ]
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::WideMapView::from_bytes(bytes)?;
        Ok([
            Field::Int(root.i_40()?),
            Field::Float(root.f_41()?),
            Field::Str(root.s_43()?),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        [
            Field::Int(root.i_40()),
            Field::Float(root.f_41()),
            str_field(root.s_43()),
        ]
    }
}
