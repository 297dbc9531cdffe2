//! `conformance/schemas/api_response.fxs`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_at, fb_box, fb_str, fb_vec, str_field};
use crate::{fb::api_response as fb, gen::api_response as gen, pb::api_response as pb};
use crate::{Field, Fixture, Probe};

/// The response root.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiResponse {
    pub status: String,
    pub page: i64,
    pub total: i64,
    pub items: Vec<ApiItem>,
}

/// One catalogue record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiItem {
    pub id: i64,
    pub sku: String,
    pub name: String,
    pub price: f64,
    pub quantity: i64,
    pub in_stock: bool,
    pub tags: Vec<String>,
    pub category: String,
    pub rating: f64,
    pub created_at: String,
    pub dimensions: Dimensions,
    pub seller: Seller,
}

/// Width, height and depth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dimensions {
    pub w: f64,
    pub h: f64,
    pub d: f64,
}

/// Who sells the item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seller {
    pub id: i64,
    pub name: String,
}

impl From<&ApiResponse> for fb::ApiResponseT {
    fn from(v: &ApiResponse) -> Self {
        fb::ApiResponseT {
            status: fb_str(&v.status),
            page: v.page,
            total: v.total,
            items: fb_vec(&v.items),
        }
    }
}

impl From<&ApiItem> for fb::ApiItemT {
    fn from(v: &ApiItem) -> Self {
        fb::ApiItemT {
            id: v.id,
            sku: fb_str(&v.sku),
            name: fb_str(&v.name),
            price: v.price,
            quantity: v.quantity,
            in_stock: v.in_stock,
            tags: Some(v.tags.clone()),
            category: fb_str(&v.category),
            rating: v.rating,
            created_at: fb_str(&v.created_at),
            dimensions: fb_box(&v.dimensions),
            seller: fb_box(&v.seller),
        }
    }
}

impl From<&Dimensions> for fb::DimensionsT {
    fn from(v: &Dimensions) -> Self {
        fb::DimensionsT {
            w: v.w,
            h: v.h,
            d: v.d,
        }
    }
}

impl From<&Seller> for fb::SellerT {
    fn from(v: &Seller) -> Self {
        fb::SellerT {
            id: v.id,
            name: fb_str(&v.name),
        }
    }
}

/// The record the partial read looks at.
const ITEM: usize = 50;

impl Fixture for ApiResponse {
    const NAME: &'static str = "api_response";
    const PARTIAL: &'static str = "`items[50].name`, `items[50].price`, `items[50].seller.id`";

    type Gen = gen::ApiResponse;
    type GenRef<'a> = gen::ApiResponseRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::api_response::ApiResponse<'a>;
    type Proto = pb::ApiResponse;
    type Fb = fb::ApiResponseT;
    type FbRoot<'a> = fb::ApiResponse<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(
        value: &Self::Fb,
        b: &mut FlatBufferBuilder<'b>,
    ) -> WIPOffset<fb::ApiResponse<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::ApiResponse) -> Probe<'_> {
        match value.items.get(ITEM) {
            Some(item) => [
                Field::Str(&item.name),
                Field::Float(item.price),
                Field::Int(item.seller.id),
            ],
            None => [Field::Absent; 3],
        }
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::ApiResponseView::from_bytes(bytes)?;
        let item = root.items()?.get(ITEM)?;
        Ok([
            Field::Str(item.name()?),
            Field::Float(item.price()?),
            Field::Int(item.seller()?.id()?),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        match fb_at(root.items(), ITEM) {
            Some(item) => [
                str_field(item.name()),
                Field::Float(item.price()),
                item.seller().map_or(Field::Absent, |s| Field::Int(s.id())),
            ],
            None => [Field::Absent; 3],
        }
    }
}
