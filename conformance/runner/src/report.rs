//! Machine-readable results: one JSON object per line and category.
//!
//! Every language runner prints lines of this shape, so the matrix in
//! `cargo xtask conformance` aggregates them without knowing the language:
//!
//! ```json
//! {"lang":"rust","category":"bytes identical","passed":461,"total":461,"failures":[]}
//! ```
//!
//! `informational: true` marks peer columns that never fail the matrix.

use serde_json::{json, Value};

/// Category: our builder writes the golden bytes for every case's ops.
pub const BYTES_IDENTICAL: &str = "bytes identical";
/// Category: our verifier accepts every golden and our reader reads the annotated value.
pub const VALUES_IDENTICAL: &str = "values identical";
/// Category: every invalid file of the corpus is rejected, valid ones accepted.
pub const INVALID_REJECTED: &str = "invalid rejected";
/// Category: on every damaged buffer of the seeded generator (`damage`), the
/// language's verifier gives the Rust core's verdict and its decoders behave.
pub const AGREEMENT: &str = "agreement";
/// Category: the committed goldens are what the C++ replayer writes today.
pub const GOLDENS_MATCH_CPP: &str = "goldens match C++";

/// Failure messages kept per category (the count is always exact).
const MAX_FAILURES: usize = 50;

/// The outcome of one category for one language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategoryResult {
    /// Language or peer name, e.g. `rust` or `flexbuffers-crate (peer)`.
    pub lang: String,
    /// Category name.
    pub category: String,
    /// Items that passed.
    pub passed: usize,
    /// Items checked.
    pub total: usize,
    /// One message per failed item (at most [`MAX_FAILURES`] kept).
    pub failures: Vec<String>,
    /// Peer columns are shown but never fail the matrix.
    pub informational: bool,
}

impl CategoryResult {
    /// An empty result for `lang` and `category`.
    pub fn new(lang: &str, category: &str) -> CategoryResult {
        CategoryResult {
            lang: lang.into(),
            category: category.into(),
            passed: 0,
            total: 0,
            failures: Vec::new(),
            informational: false,
        }
    }

    /// Counts one item: passed when `outcome` is `Ok`, else records its message.
    pub fn record(&mut self, item: &str, outcome: Result<(), String>) {
        self.total += 1;
        match outcome {
            Ok(()) => self.passed += 1,
            Err(message) => {
                if self.failures.len() < MAX_FAILURES {
                    self.failures.push(format!("{item}: {message}"));
                }
            }
        }
    }

    /// True when every item passed.
    pub fn ok(&self) -> bool {
        self.passed == self.total
    }

    /// The JSON object of this result.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "lang": self.lang,
            "category": self.category,
            "passed": self.passed,
            "total": self.total,
            "failures": self.failures,
        });
        if self.informational {
            v["informational"] = Value::Bool(true);
        }
        v
    }
}

/// Shortens long text (hex dumps) for failure messages.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        text.to_string()
    } else {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...({} chars)", &text[..end], text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_serializes() {
        let mut r = CategoryResult::new("rust", BYTES_IDENTICAL);
        r.record("a", Ok(()));
        r.record("b", Err("differs".into()));
        assert!(!r.ok());
        assert_eq!(
            r.to_json().to_string(),
            r#"{"category":"bytes identical","failures":["b: differs"],"lang":"rust","passed":1,"total":2}"#
        );
        assert_eq!(clip("abcdef", 3), "abc...(6 chars)");
    }
}
