//! Rust coders generated from every conformance schema, compiled here so that
//! `cargo clippy -D warnings` also checks the generated code, and the
//! typed-value conformance cases (`conformance/typed/`) replayed with them.
//!
//! - `cargo run -p flexbuf-typed-tests --bin typed-conformance` replays every
//!   case and prints one JSON result line;
//! - `cargo run -p flexbuf-typed-tests --bin typed-cases -- --regen` rewrites
//!   the case files from [`definitions`];
//! - `cargo run -p flexbuf-typed-tests --bin typed-conformance -- damage --out
//!   FILE` writes the damaged inputs of the typed agreement ([`damaged`]).

pub mod cases;
pub mod damaged;
pub mod definitions;
pub mod dispatch;

/// Generated from `conformance/schemas/*.fxs` (the shared benchmark fixtures).
pub mod fixtures {
    /// `conformance/schemas/api_response.fxs`.
    pub mod api_response {
        include!(concat!(env!("OUT_DIR"), "/api_response.rs"));
    }
    /// `conformance/schemas/chat_thread.fxs`.
    pub mod chat_thread {
        include!(concat!(env!("OUT_DIR"), "/chat_thread.rs"));
    }
    /// `conformance/schemas/deep_nesting.fxs`.
    pub mod deep_nesting {
        include!(concat!(env!("OUT_DIR"), "/deep_nesting.rs"));
    }
    /// `conformance/schemas/metrics_96k.fxs`.
    pub mod metrics_96k {
        include!(concat!(env!("OUT_DIR"), "/metrics_96k.rs"));
    }
    /// `conformance/schemas/repeated_maps.fxs`.
    pub mod repeated_maps {
        include!(concat!(env!("OUT_DIR"), "/repeated_maps.rs"));
    }
    /// `conformance/schemas/string_flood.fxs`.
    pub mod string_flood {
        include!(concat!(env!("OUT_DIR"), "/string_flood.rs"));
    }
    /// `conformance/schemas/time_series.fxs`.
    pub mod time_series {
        include!(concat!(env!("OUT_DIR"), "/time_series.rs"));
    }
    /// `conformance/schemas/unicode_heavy.fxs`.
    pub mod unicode_heavy {
        include!(concat!(env!("OUT_DIR"), "/unicode_heavy.rs"));
    }
    /// `conformance/schemas/user_profile.fxs`.
    pub mod user_profile {
        include!(concat!(env!("OUT_DIR"), "/user_profile.rs"));
    }
    /// `conformance/schemas/wide_map.fxs`.
    pub mod wide_map {
        include!(concat!(env!("OUT_DIR"), "/wide_map.rs"));
    }
    /// `conformance/schemas/width_bomb.fxs`.
    pub mod width_bomb {
        include!(concat!(env!("OUT_DIR"), "/width_bomb.rs"));
    }
}

/// Generated from `codegen/tests/schemas/shop.fxs` (the language example).
pub mod shop {
    include!(concat!(env!("OUT_DIR"), "/shop.rs"));
}

/// Generated from `codegen/tests/schemas/keywords.fxs`: names that clash with
/// Rust keywords, prelude types and the generated API's own members still
/// compile, warning-free, with documentation on every public item.
#[deny(missing_docs, warnings)]
pub mod keywords {
    include!(concat!(env!("OUT_DIR"), "/keywords.rs"));
}

/// Generated from `conformance/typed/schemas/*.fxs` (typed-value conformance).
pub mod typed {
    /// `conformance/typed/schemas/arrays.fxs`.
    pub mod arrays {
        include!(concat!(env!("OUT_DIR"), "/arrays.rs"));
    }
    /// `conformance/typed/schemas/defects.fxs`.
    pub mod defects {
        include!(concat!(env!("OUT_DIR"), "/defects.rs"));
    }
    /// `conformance/typed/schemas/evolution_v1.fxs`.
    pub mod evolution_v1 {
        include!(concat!(env!("OUT_DIR"), "/evolution_v1.rs"));
    }
    /// `conformance/typed/schemas/evolution_v2.fxs`.
    pub mod evolution_v2 {
        include!(concat!(env!("OUT_DIR"), "/evolution_v2.rs"));
    }
}
