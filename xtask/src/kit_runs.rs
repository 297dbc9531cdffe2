//! Results of a benchmark suite timed with `bench/kit` (flexbuf-benchkit),
//! run more than once.
//!
//! The kit writes one JSON file per contender, `<run>/<group>/<id>.json`,
//! holding the CPU time per call of every round; contenders of a group were
//! timed interleaved, round by round. A ratio is taken per run as the median
//! over rounds of the two contenders' times in the same round, and a
//! verdict holds only when it holds in every run: one run can be disturbed,
//! two that agree are the evidence.

use std::path::{Path, PathBuf};

use flexbuf_benchkit::median;

use crate::report::fmt_ratio;
use crate::util::Result;

/// The output directories of the runs of one suite, in run order.
pub struct Runs {
    dirs: Vec<PathBuf>,
}

/// One contender's samples (ns per call, one per round) in every run.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    runs: Vec<Vec<f64>>,
}

impl Timing {
    /// A timing of `runs` (each a list of per-round samples).
    #[cfg(test)]
    pub fn new(runs: Vec<Vec<f64>>) -> Timing {
        Timing { runs }
    }

    /// Median time per call over every round of every run.
    pub fn median(&self) -> f64 {
        let all: Vec<f64> = self.runs.iter().flatten().copied().collect();
        median(&all)
    }

    /// Median time per call of each run.
    pub fn run_medians(&self) -> Vec<f64> {
        self.runs.iter().map(|r| median(r)).collect()
    }
}

/// A ratio of two contenders, once per run.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratio {
    runs: Vec<f64>,
}

impl Ratio {
    /// `peer` time over `base` time in each run: the median over rounds of
    /// the two times of the same round (they were timed moments apart), or
    /// the ratio of the medians when the rounds do not pair up.
    pub fn of(peer: &Timing, base: &Timing) -> Ratio {
        let runs = peer
            .runs
            .iter()
            .zip(&base.runs)
            .map(|(p, b)| {
                if p.len() == b.len() && !p.is_empty() {
                    let r: Vec<f64> = p.iter().zip(b).map(|(x, y)| x / y).collect();
                    median(&r)
                } else {
                    median(p) / median(b)
                }
            })
            .collect();
        Ratio { runs }
    }

    /// A ratio from per-run values.
    #[cfg(test)]
    pub fn from_runs(runs: Vec<f64>) -> Ratio {
        Ratio { runs }
    }

    /// The ratio quoted: the geometric mean of the runs.
    pub fn value(&self) -> f64 {
        if self.runs.is_empty() {
            return f64::NAN;
        }
        let logs: f64 = self.runs.iter().map(|r| r.ln()).sum();
        (logs / self.runs.len() as f64).exp()
    }

    /// True when every run reached `needed`.
    pub fn met(&self, needed: f64) -> bool {
        !self.runs.is_empty() && self.runs.iter().all(|&r| r >= needed)
    }

    /// True when the runs agree within `tolerance` (0.10 for 10%).
    pub fn agrees(&self, tolerance: f64) -> bool {
        let lo = self.runs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.runs.iter().copied().fold(0.0, f64::max);
        hi <= lo * (1.0 + tolerance)
    }

    /// `1.23x`, or with several runs `1.23x (1.20x/1.26x)`, marked `†` when
    /// the runs disagree by more than 10%.
    pub fn show(&self) -> String {
        if self.runs.len() < 2 {
            return fmt_ratio(self.value());
        }
        let each: Vec<String> = self.runs.iter().map(|&r| fmt_ratio(r)).collect();
        let mark = if self.agrees(0.10) { "" } else { " †" };
        format!("{} ({}){mark}", fmt_ratio(self.value()), each.join("/"))
    }
}

/// Timings of one fixture in a comparison table: one per column, `None`
/// where that column was not measured.
pub struct Row {
    /// The fixture.
    pub fixture: &'static str,
    /// The columns' timings.
    pub times: Vec<Option<Timing>>,
}

impl Row {
    /// Median time of `column`, when measured.
    pub fn median(&self, column: usize) -> Option<f64> {
        self.times[column].as_ref().map(Timing::median)
    }

    /// `column` time over `base` time, per run, when both were measured.
    pub fn ratio(&self, column: usize, base: usize) -> Option<Ratio> {
        Some(Ratio::of(
            self.times[column].as_ref()?,
            self.times[base].as_ref()?,
        ))
    }
}

impl Runs {
    /// The runs whose outputs are in `dirs`.
    pub fn new(dirs: Vec<PathBuf>) -> Runs {
        Runs { dirs }
    }

    /// Number of runs.
    pub fn len(&self) -> usize {
        self.dirs.len()
    }

    /// The timing of `group/id`: `None` when no run measured it, an error
    /// when some runs did and others did not.
    pub fn timing(&self, group: &str, id: &str) -> Result<Option<Timing>> {
        let mut runs = Vec::new();
        for dir in &self.dirs {
            match read_samples(&dir.join(group).join(format!("{id}.json")))? {
                Some(s) => runs.push(s),
                None if runs.is_empty() => {}
                None => return Err(format!("{group}/{id} is missing from a run").into()),
            }
        }
        match runs.len() {
            0 => Ok(None),
            n if n == self.dirs.len() => Ok(Some(Timing { runs })),
            _ => Err(format!("{group}/{id} is missing from a run").into()),
        }
    }

    /// The groups the first run wrote whose names start with `prefix`, in
    /// name order (none when there is no run).
    pub fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>> {
        let Some(dir) = self.dirs.first() else {
            return Ok(Vec::new());
        };
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name.starts_with(prefix) {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    /// Like [`timing`](Self::timing), but a missing result is an error.
    pub fn required(&self, group: &str, id: &str) -> Result<Timing> {
        self.timing(group, id)?
            .ok_or_else(|| format!("no result for {group}/{id} from this run").into())
    }
}

/// How many times a suite runs: `FLEXBUF_BENCH_RUNS`, else `default`.
pub fn count_from_env(default: usize) -> Result<usize> {
    match std::env::var("FLEXBUF_BENCH_RUNS") {
        Ok(v) => v
            .parse()
            .map_err(|_| format!("FLEXBUF_BENCH_RUNS={v:?} is not a count").into()),
        Err(_) => Ok(default),
    }
}

/// Runs a suite `count` times, each into a fresh `out/run<N>` (passed to
/// the command as `FLEXBUF_BENCH_OUT`), and returns the runs with the
/// 1-minute load average before each and after the last.
pub fn run_suite(
    out: &Path,
    count: usize,
    name: &str,
    command: impl Fn() -> duct::Expression,
) -> Result<(Runs, Vec<f64>)> {
    let count = count.max(1);
    let mut dirs = Vec::new();
    let mut loads = Vec::new();
    for run in 1..=count {
        let dir = out.join(format!("run{run}"));
        // Results of an earlier run must not pass for this one's.
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        loads.push(crate::report::load_average());
        crate::util::step(
            &format!("{name} (run {run} of {count})"),
            command().env("FLEXBUF_BENCH_OUT", &dir),
        )?;
        dirs.push(dir);
    }
    loads.push(crate::report::load_average());
    Ok((Runs::new(dirs), loads.into_iter().flatten().collect()))
}

/// The `samples_ns` of one kit result file, `None` when it does not exist.
fn read_samples(path: &Path) -> Result<Option<Vec<f64>>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    parse_samples(&text)
        .map(Some)
        .ok_or_else(|| format!("no samples_ns in {}", path.display()).into())
}

fn parse_samples(text: &str) -> Option<Vec<f64>> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let samples: Option<Vec<f64>> = v["samples_ns"]
        .as_array()?
        .iter()
        .map(|s| s.as_f64())
        .collect();
    samples.filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_pairs_rounds_and_judges_every_run() {
        // Run 1: the machine slowed down halfway; paired ratios stay 2.
        let base = Timing::new(vec![vec![1.0, 1.0, 3.0, 3.0, 3.0], vec![2.0, 2.0, 2.0]]);
        let peer = Timing::new(vec![vec![2.0, 2.0, 6.0, 6.0, 6.0], vec![3.0, 3.0, 3.0]]);
        let r = Ratio::of(&peer, &base);
        assert_eq!(r.runs, vec![2.0, 1.5]);
        assert!(r.met(1.5) && !r.met(1.6));
        assert!(!r.agrees(0.10));
        assert!(r.show().ends_with('†'), "{}", r.show());
        assert!((r.value() - 3f64.sqrt()).abs() < 1e-12);
        let close = Ratio::from_runs(vec![1.0, 1.05]);
        assert!(close.agrees(0.10) && !close.show().contains('†'));
    }

    #[test]
    fn unpaired_rounds_fall_back_to_medians() {
        let base = Timing::new(vec![vec![1.0, 2.0, 3.0]]);
        let peer = Timing::new(vec![vec![4.0, 4.0]]);
        assert_eq!(Ratio::of(&peer, &base).runs, vec![2.0]);
    }

    #[test]
    fn reads_kit_results_and_requires_every_run() {
        let dir = std::env::temp_dir().join(format!("kit-runs-{}", std::process::id()));
        let (a, b) = (dir.join("1"), dir.join("2"));
        for d in [&a, &b] {
            std::fs::create_dir_all(d.join("g")).unwrap();
        }
        let file = r#"{"group":"g","id":"x","bytes":null,"iters":3,"median_ns":2.0,"samples_ns":[1.0,2.0,3.0]}"#;
        std::fs::write(a.join("g/x.json"), file).unwrap();
        std::fs::write(b.join("g/x.json"), file).unwrap();
        std::fs::write(a.join("g/only.json"), file).unwrap();
        let runs = Runs::new(vec![a, b]);
        let t = runs.required("g", "x").unwrap();
        assert_eq!(t.run_medians(), vec![2.0, 2.0]);
        assert_eq!(t.median(), 2.0);
        assert!(runs.timing("g", "absent").unwrap().is_none());
        assert!(runs.timing("g", "only").is_err());
        assert!(parse_samples("{\"samples_ns\":[]}").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
