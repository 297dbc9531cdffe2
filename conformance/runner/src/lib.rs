//! # flexbuf-conformance
//!
//! The conformance suite's Rust side:
//!
//! - [`op`]: the builder-call model shared with the C++ replayer protocol;
//! - [`cpp`]: building and driving the C++ reference replayer;
//! - [`case`]: build cases with golden bytes and annotated values
//!   (`conformance/cases/*.json`);
//! - [`annotate`]: the annotated notation of a value;
//! - [`generate`]: the deterministic case generator behind `--regen`;
//! - [`random`]: random valid op sequences for the C++ differential test;
//! - [`damage`]: seeded damaged buffers for the agreement category, and
//!   [`laid`]: hand-laid ones with cycles and aliases beside them;
//! - [`run`], [`invalid`], [`peer`]: the Rust runner's categories, the invalid
//!   corpus and the `flexbuffers` crate peer column;
//! - [`report`]: the JSON result lines every language runner prints.
//!
//! The format of cases, ops, the annotated notation and the invalid manifest
//! is specified in `conformance/README.md`, so runners in other languages can
//! be written from it alone.

#![deny(missing_docs)]

pub mod annotate;
pub mod case;
pub mod cpp;
pub mod cpp_json;
pub mod damage;
pub mod error;
pub mod generate;
pub mod invalid;
pub mod laid;
pub mod op;
pub mod peer;
pub mod random;
pub mod report;
pub mod run;
pub mod shape;

pub use error::{Error, Result};
