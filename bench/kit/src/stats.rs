//! What one contender measured, and its summary statistics.

/// One contender's result: the time per call of every round, in rounds' order.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The comparison group.
    pub group: String,
    /// The contender within the group.
    pub id: String,
    /// Bytes one call processes, when given.
    pub bytes: Option<u64>,
    /// Calls per batch (per round).
    pub iters: u64,
    /// Median of `samples_ns`.
    pub median_ns: f64,
    /// CPU nanoseconds per call, one per round.
    pub samples_ns: Vec<f64>,
}

impl Measurement {
    pub(crate) fn new(
        group: &str,
        id: &str,
        bytes: Option<u64>,
        iters: u64,
        samples_ns: Vec<f64>,
    ) -> Measurement {
        Measurement {
            group: group.to_string(),
            id: id.to_string(),
            bytes,
            iters,
            median_ns: median(&samples_ns),
            samples_ns,
        }
    }

    /// The median over rounds of this contender's time divided by `other`'s
    /// in the same round: the ratio least moved by a machine whose speed
    /// changes during the run (both were measured within one round).
    pub fn paired_ratio(&self, other: &Measurement) -> f64 {
        let ratios: Vec<f64> = self
            .samples_ns
            .iter()
            .zip(&other.samples_ns)
            .filter(|(_, b)| **b > 0.0)
            .map(|(a, b)| a / b)
            .collect();
        median(&ratios)
    }

    /// Half the distance between the first and third quartiles, relative to
    /// the median: how much rounds disagreed.
    pub fn spread(&self) -> f64 {
        let mut s = self.samples_ns.clone();
        s.sort_by(f64::total_cmp);
        if s.len() < 4 || self.median_ns <= 0.0 {
            return 0.0;
        }
        let q1 = s[s.len() / 4];
        let q3 = s[(3 * s.len()) / 4];
        (q3 - q1) / 2.0 / self.median_ns
    }

    /// The JSON the report reads: `{"group", "id", "bytes", "iters",
    /// "median_ns", "samples_ns"}`.
    pub fn to_json(&self) -> String {
        let samples: Vec<String> = self.samples_ns.iter().map(|s| format!("{s:.3}")).collect();
        format!(
            "{{\"group\":{},\"id\":{},\"bytes\":{},\"iters\":{},\"median_ns\":{:.3},\"samples_ns\":[{}]}}\n",
            json_str(&self.group),
            json_str(&self.id),
            self.bytes.map_or("null".to_string(), |b| b.to_string()),
            self.iters,
            self.median_ns,
            samples.join(",")
        )
    }
}

/// The median of `xs` (the mean of the middle two for an even count; 0 when empty).
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A time in nanoseconds as `1.23 µs`: a unit and three significant digits.
pub fn fmt_ns(ns: f64) -> String {
    let (v, unit) = match ns {
        n if n < 1e3 => (n, "ns"),
        n if n < 1e6 => (n / 1e3, "µs"),
        n if n < 1e9 => (n / 1e6, "ms"),
        n => (n / 1e9, "s"),
    };
    let digits = match v {
        v if v < 10.0 => 2,
        v if v < 100.0 => 1,
        _ => 0,
    };
    format!("{v:.digits$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn json_has_every_field_and_escapes_names() {
        let m = Measurement::new("g\"1", "id", Some(10), 4, vec![1.0, 3.0, 2.0]);
        let j = m.to_json();
        assert!(j.contains("\"group\":\"g\\\"1\""), "{j}");
        assert!(j.contains("\"median_ns\":2.000"), "{j}");
        assert!(j.contains("\"samples_ns\":[1.000,3.000,2.000]"), "{j}");
        assert!(j.contains("\"bytes\":10"), "{j}");
    }

    #[test]
    fn spread_is_half_the_interquartile_range_over_the_median() {
        let m = Measurement::new("g", "i", None, 1, vec![8.0, 9.0, 10.0, 11.0, 12.0]);
        // q1 = s[1] = 9, q3 = s[3] = 11: (11 - 9) / 2 / 10.
        assert!((m.spread() - 0.1).abs() < 1e-12);
    }
}
