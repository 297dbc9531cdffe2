//! `conformance/schemas/user_profile.fxs`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_box, fb_str, fb_vec, str_field};
use crate::{fb::user_profile as fb, gen::user_profile as gen, pb::user_profile as pb};
use crate::{Field, Fixture, Probe};

/// A single user profile (the root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserProfile {
    pub id: i64,
    pub uuid: String,
    pub username: String,
    pub display_name: String,
    pub email: String,
    pub email_verified: bool,
    pub verified: bool,
    pub phone: String,
    pub created_at: String,
    pub updated_at: String,
    pub last_login_at: String,
    pub age: i64,
    pub score: f64,
    pub reputation: i64,
    pub karma_ratio: f64,
    pub is_admin: bool,
    pub is_bot: bool,
    pub locale: String,
    pub timezone: String,
    pub tags: Vec<String>,
    pub address: UserAddress,
    pub settings: UserSettings,
    pub linked_accounts: Vec<LinkedAccount>,
    pub stats: UserStats,
    pub avatar_url: String,
    pub bio: String,
    pub website: String,
    pub pronouns: String,
    pub birthday: Option<String>,
    pub referrer_id: Option<i64>,
    pub subscription: Subscription,
}

/// A postal address with coordinates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserAddress {
    pub street: String,
    pub city: String,
    pub zip: String,
    pub country: String,
    pub geo: GeoPoint,
}

/// Latitude and longitude.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeoPoint {
    pub lat: f64,
    pub lon: f64,
}

/// User preferences.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserSettings {
    pub theme: String,
    pub notifications: NotificationSettings,
    pub language: String,
    pub two_factor: bool,
    pub font_scale: f64,
}

/// Notification channels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotificationSettings {
    pub email: bool,
    pub push: bool,
    pub sms: bool,
}

/// An account at another provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkedAccount {
    pub provider: String,
    pub handle: String,
    pub linked_at: String,
    pub primary: bool,
}

/// Activity counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserStats {
    pub posts: i64,
    pub comments: i64,
    pub followers: i64,
    pub following: i64,
    pub likes_received: i64,
    pub bytes_uploaded: i64,
}

/// The paid plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    pub plan: String,
    pub renews_at: String,
    pub price: f64,
    pub seats: i64,
}

impl From<&UserProfile> for fb::UserProfileT {
    fn from(v: &UserProfile) -> Self {
        fb::UserProfileT {
            id: v.id,
            uuid: fb_str(&v.uuid),
            username: fb_str(&v.username),
            display_name: fb_str(&v.display_name),
            email: fb_str(&v.email),
            email_verified: v.email_verified,
            verified: v.verified,
            phone: fb_str(&v.phone),
            created_at: fb_str(&v.created_at),
            updated_at: fb_str(&v.updated_at),
            last_login_at: fb_str(&v.last_login_at),
            age: v.age,
            score: v.score,
            reputation: v.reputation,
            karma_ratio: v.karma_ratio,
            is_admin: v.is_admin,
            is_bot: v.is_bot,
            locale: fb_str(&v.locale),
            timezone: fb_str(&v.timezone),
            tags: Some(v.tags.clone()),
            address: fb_box(&v.address),
            settings: fb_box(&v.settings),
            linked_accounts: fb_vec(&v.linked_accounts),
            stats: fb_box(&v.stats),
            avatar_url: fb_str(&v.avatar_url),
            bio: fb_str(&v.bio),
            website: fb_str(&v.website),
            pronouns: fb_str(&v.pronouns),
            birthday: v.birthday.clone(),
            referrer_id: v.referrer_id,
            subscription: fb_box(&v.subscription),
        }
    }
}

impl From<&UserAddress> for fb::UserAddressT {
    fn from(v: &UserAddress) -> Self {
        fb::UserAddressT {
            street: fb_str(&v.street),
            city: fb_str(&v.city),
            zip: fb_str(&v.zip),
            country: fb_str(&v.country),
            geo: fb_box(&v.geo),
        }
    }
}

impl From<&GeoPoint> for fb::GeoPointT {
    fn from(v: &GeoPoint) -> Self {
        fb::GeoPointT {
            lat: v.lat,
            lon: v.lon,
        }
    }
}

impl From<&UserSettings> for fb::UserSettingsT {
    fn from(v: &UserSettings) -> Self {
        fb::UserSettingsT {
            theme: fb_str(&v.theme),
            notifications: fb_box(&v.notifications),
            language: fb_str(&v.language),
            two_factor: v.two_factor,
            font_scale: v.font_scale,
        }
    }
}

impl From<&NotificationSettings> for fb::NotificationSettingsT {
    fn from(v: &NotificationSettings) -> Self {
        fb::NotificationSettingsT {
            email: v.email,
            push_: v.push,
            sms: v.sms,
        }
    }
}

impl From<&LinkedAccount> for fb::LinkedAccountT {
    fn from(v: &LinkedAccount) -> Self {
        fb::LinkedAccountT {
            provider: fb_str(&v.provider),
            handle: fb_str(&v.handle),
            linked_at: fb_str(&v.linked_at),
            primary: v.primary,
        }
    }
}

impl From<&UserStats> for fb::UserStatsT {
    fn from(v: &UserStats) -> Self {
        fb::UserStatsT {
            posts: v.posts,
            comments: v.comments,
            followers: v.followers,
            following: v.following,
            likes_received: v.likes_received,
            bytes_uploaded: v.bytes_uploaded,
        }
    }
}

impl From<&Subscription> for fb::SubscriptionT {
    fn from(v: &Subscription) -> Self {
        fb::SubscriptionT {
            plan: fb_str(&v.plan),
            renews_at: fb_str(&v.renews_at),
            price: v.price,
            seats: v.seats,
        }
    }
}

impl Fixture for UserProfile {
    const NAME: &'static str = "user_profile";
    const PARTIAL: &'static str = "`username`, `address.geo.lat`, `stats.followers`";

    type Gen = gen::UserProfile;
    type GenRef<'a> = gen::UserProfileRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::user_profile::UserProfile<'a>;
    type Proto = pb::UserProfile;
    type Fb = fb::UserProfileT;
    type FbRoot<'a> = fb::UserProfile<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::UserProfile) -> Probe<'_> {
        [
            Field::Str(&value.username),
            Field::Float(value.address.geo.lat),
            Field::Int(value.stats.followers),
        ]
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::UserProfileView::from_bytes(bytes)?;
        Ok([
            Field::Str(root.username()?),
            Field::Float(root.address()?.geo()?.lat()?),
            Field::Int(root.stats()?.followers()?),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        [
            str_field(root.username()),
            root.address()
                .and_then(|a| a.geo())
                .map_or(Field::Absent, |g| Field::Float(g.lat())),
            root.stats()
                .map_or(Field::Absent, |s| Field::Int(s.followers())),
        ]
    }
}
