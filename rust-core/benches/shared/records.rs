//! The records of the serde tier's `records_100k` benchmark, shared by the
//! core bench and the `encode_instructions` example.

use serde::{Deserialize, Serialize};

/// A small record, as record-heavy datasets hold them by the hundred thousand.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Record {
    pub id: u64,
    pub name: String,
    pub email: String,
    pub score: f64,
    pub active: bool,
    pub tags: Vec<String>,
    pub position: [f32; 3],
    pub counts: Vec<u32>,
}

/// `n` deterministic records.
pub fn records(n: usize) -> Vec<Record> {
    const TAGS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "edge", "fresh"];
    (0..n)
        .map(|i| Record {
            id: 1_000_000 + i as u64,
            name: format!("user {i:06}"),
            email: format!("user{i}@example.org"),
            score: (i % 1000) as f64 * 0.37,
            active: i % 3 == 0,
            tags: (0..i % 4).map(|t| TAGS[(i + t) % 6].to_string()).collect(),
            position: [i as f32 * 0.5, (i % 100) as f32, -1.25],
            counts: vec![(i % 7) as u32, (i % 300) as u32, i as u32],
        })
        .collect()
}
