//! Shared checks for the flexbuf fuzz targets (see `README.md`).

pub mod serde_check;
pub mod walk;
