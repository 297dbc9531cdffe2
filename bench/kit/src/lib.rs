//! Side-by-side timing for shared, noisy machines.
//!
//! Criterion times each benchmark on its own, for seconds, one after the
//! other; on a machine whose two cores are shared with other jobs a
//! neighbour that starts halfway through moves every later figure, and two
//! runs of the same binary disagree by far more than the differences being
//! measured. This kit measures the contenders of one comparison (a
//! [`Group`]) *interleaved*: round after round, each contender runs one short
//! batch, in an order that rotates every round, timed on the thread's CPU
//! clock (time spent descheduled does not count). A disturbance then hits
//! every contender alike, and the median over rounds discards the rounds it
//! hit hardest.
//!
//! ```no_run
//! let data: Vec<u64> = (0..1000).collect();
//! let suite = flexbuf_benchkit::Suite::from_env("example");
//! let mut g = suite.group("sum");
//! g.bench("iter", || data.iter().sum::<u64>());
//! g.bench("fold", || data.iter().fold(0u64, |a, b| a.wrapping_add(*b)));
//! g.finish();
//! ```
//!
//! Each result is written to `<out>/<group>/<id>.json` (see [`Measurement`])
//! and printed with its ratio to the group's first contender.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

mod clock;
mod stats;

pub use clock::cpu_time;
pub use stats::{fmt_ns, median, Measurement};

/// How long and how often contenders are measured.
#[derive(Clone, Debug)]
pub struct Settings {
    /// CPU time one batch of a contender aims for.
    pub batch: Duration,
    /// Rounds, each running every contender of the group once.
    pub rounds: usize,
    /// Fewest rounds for contenders whose single call exceeds the batch time.
    pub min_rounds: usize,
    /// CPU time a group may spend on its rounds before rounds are cut
    /// (down to `min_rounds`).
    pub group_budget: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            batch: Duration::from_millis(4),
            rounds: 31,
            min_rounds: 9,
            group_budget: Duration::from_secs(6),
        }
    }
}

/// A benchmark binary's run: where results go and which groups run.
pub struct Suite {
    name: String,
    out: PathBuf,
    filter: Option<String>,
    settings: Settings,
}

impl Suite {
    /// A suite configured from the process: results go to
    /// `$FLEXBUF_BENCH_OUT` (default `target/flexbuf-bench/<name>`), the first
    /// command-line argument that is not a flag filters groups and ids by
    /// substring (as `cargo bench -- <filter>` passes it), and
    /// `FLEXBUF_BENCH_QUICK=1` runs 5 short rounds (a smoke run, not a measurement).
    pub fn from_env(name: &str) -> Suite {
        let out = std::env::var_os("FLEXBUF_BENCH_OUT")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target").join("flexbuf-bench").join(name));
        let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
        let mut settings = Settings::default();
        if std::env::var("FLEXBUF_BENCH_QUICK").is_ok_and(|v| v == "1") {
            settings.rounds = 5;
            settings.min_rounds = 3;
            settings.batch = Duration::from_millis(1);
        }
        Suite {
            name: name.to_string(),
            out,
            filter,
            settings,
        }
    }

    /// A suite with explicit settings, writing into `out`.
    pub fn new(name: &str, out: PathBuf, settings: Settings) -> Suite {
        Suite {
            name: name.to_string(),
            out,
            filter: None,
            settings,
        }
    }

    /// The suite's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Starts a comparison group; contenders are added with [`Group::bench`]
    /// and measured together by [`Group::finish`].
    pub fn group(&self, name: impl Into<String>) -> Group<'_> {
        Group {
            suite: self,
            name: name.into(),
            bytes: None,
            rounds: None,
            entries: Vec::new(),
        }
    }

    fn wants(&self, group: &str, id: &str) -> bool {
        match &self.filter {
            None => true,
            Some(f) => format!("{group}/{id}").contains(f.as_str()),
        }
    }
}

/// One contender: runs its closure `iters` times and returns the CPU time.
struct Entry<'a> {
    id: String,
    bytes: Option<u64>,
    run: Box<dyn FnMut(u64) -> Duration + 'a>,
}

/// Contenders measured side by side, interleaved round by round.
pub struct Group<'a> {
    suite: &'a Suite,
    name: String,
    bytes: Option<u64>,
    rounds: Option<usize>,
    entries: Vec<Entry<'a>>,
}

impl<'a> Group<'a> {
    /// Bytes each call processes, recorded with later contenders (for throughput).
    pub fn bytes(&mut self, n: u64) -> &mut Self {
        self.bytes = Some(n);
        self
    }

    /// At most this many rounds for this group (for very slow contenders).
    pub fn max_rounds(&mut self, n: usize) -> &mut Self {
        self.rounds = Some(n);
        self
    }

    /// Adds a contender; its result is passed through [`black_box`].
    pub fn bench<R>(&mut self, id: impl Into<String>, mut f: impl FnMut() -> R + 'a) -> &mut Self {
        let id = id.into();
        if !self.suite.wants(&self.name, &id) {
            return self;
        }
        self.entries.push(Entry {
            id,
            bytes: self.bytes,
            run: Box::new(move |iters| {
                let start = cpu_time();
                for _ in 0..iters {
                    black_box(f());
                }
                cpu_time().saturating_sub(start)
            }),
        });
        self
    }

    /// Measures every contender and writes and prints the results.
    pub fn finish(self) -> Vec<Measurement> {
        let Group {
            suite,
            name,
            rounds,
            mut entries,
            ..
        } = self;
        if entries.is_empty() {
            return Vec::new();
        }
        let settings = &suite.settings;
        let iters: Vec<u64> = entries
            .iter_mut()
            .map(|e| calibrate(&mut e.run, settings.batch))
            .collect();
        // Cut rounds when one round of the whole group would blow the budget.
        let per_round: Duration = entries
            .iter_mut()
            .zip(&iters)
            .map(|(e, &n)| (e.run)(n))
            .sum();
        let affordable = settings.group_budget.as_nanos() / per_round.as_nanos().max(1);
        let mut n_rounds = settings
            .rounds
            .min(affordable as usize)
            .max(settings.min_rounds);
        if let Some(cap) = rounds {
            n_rounds = n_rounds.min(cap.max(1));
        }
        let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(n_rounds); entries.len()];
        let n = entries.len();
        for round in 0..n_rounds {
            for k in 0..n {
                // Rotate the order, and reverse it every other round, so no
                // contender always runs right after the same neighbour.
                let i = if round % 2 == 0 {
                    (k + round) % n
                } else {
                    (n - 1 - k + round) % n
                };
                let t = (entries[i].run)(iters[i]);
                samples[i].push(t.as_nanos() as f64 / iters[i] as f64);
            }
        }
        let results: Vec<Measurement> = entries
            .iter()
            .zip(samples)
            .zip(&iters)
            .map(|((e, s), &it)| Measurement::new(&name, &e.id, e.bytes, it, s))
            .collect();
        report(&suite.out, &results);
        results
    }
}

/// Iterations per batch so that one batch takes about `batch` of CPU time
/// (at least one), after a warm-up.
fn calibrate(run: &mut Box<dyn FnMut(u64) -> Duration + '_>, batch: Duration) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = run(iters);
        if t >= batch / 4 || iters >= 1 << 30 {
            let per = t.as_nanos().max(1) as f64 / iters as f64;
            return ((batch.as_nanos() as f64 / per) as u64).max(1);
        }
        iters *= 4;
    }
}

/// Writes each measurement as JSON and prints a line per contender.
fn report(out: &std::path::Path, results: &[Measurement]) {
    let base = results[0].median_ns;
    let mut text = String::new();
    for m in results {
        let dir = out.join(&m.group);
        if let Err(e) = std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(dir.join(format!("{}.json", m.id)), m.to_json()))
        {
            eprintln!("benchkit: cannot write {}: {e}", dir.display());
        }
        let _ = writeln!(
            text,
            "{:<40} {:>12} ({:.2}x of {}, paired {:.2}x; spread {:.1}%, {} rounds)",
            format!("{}/{}", m.group, m.id),
            stats::fmt_ns(m.median_ns),
            m.median_ns / base,
            results[0].id,
            m.paired_ratio(&results[0]),
            100.0 * m.spread(),
            m.samples_ns.len(),
        );
    }
    print!("{text}");
}
