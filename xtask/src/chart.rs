//! Machine-readable results and charts of one benchmark suite:
//! `docs/bench/<suite>.json` (every median and ratio of the run) and
//! `docs/bench/<suite>.svg` (per panel, the ratio against each peer per
//! fixture on a log scale, with a line at 1x), drawn with `plotters`.
//!
//! A ratio is *peer time / our time*: above 1 we are faster.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::util::Result;

/// One suite's run: what `cargo xtask bench <suite>` measured.
pub struct Suite {
    /// File stem under `docs/bench/` (`typed`, `core`, `ts`, ...).
    pub name: &'static str,
    /// Chart title.
    pub title: String,
    /// The command that reproduces the run.
    pub command: String,
    /// When it ran (`YYYY-MM-DD HH:MM UTC`).
    pub date: String,
    /// One chart panel each (decode, encode, ...).
    pub panels: Vec<Panel>,
}

/// One panel: ratios of several peers over the same fixtures.
pub struct Panel {
    /// Panel name (`decode`).
    pub name: String,
    /// What the ratios are relative to (`generated`).
    pub baseline: String,
    /// X axis, in order.
    pub fixtures: Vec<String>,
    /// One point series per peer.
    pub series: Vec<Series>,
    /// Median times in ns per column (the baseline first), per fixture.
    pub medians: Vec<Series>,
}

/// A per-fixture value of one column of a panel (`None`: not measured).
pub struct Series {
    /// Peer label.
    pub peer: String,
    /// One per fixture: a ratio (`peer time / baseline time`) in
    /// [`Panel::series`], a median in ns in [`Panel::medians`].
    pub ratios: Vec<Option<f64>>,
}

impl Panel {
    /// A panel from median times: `columns[0]` is the baseline, every other
    /// column becomes a ratio series against it.
    pub fn from_medians(
        name: &str,
        fixtures: Vec<String>,
        columns: Vec<(String, Vec<Option<f64>>)>,
    ) -> Panel {
        let base = columns.first().map(|c| c.1.clone()).unwrap_or_default();
        let series = columns
            .iter()
            .skip(1)
            .map(|(peer, times)| Series {
                peer: peer.clone(),
                ratios: times
                    .iter()
                    .zip(&base)
                    .map(|(t, b)| Some((*t)? / (*b)?))
                    .collect(),
            })
            .collect();
        Panel {
            name: name.to_string(),
            baseline: columns.first().map(|c| c.0.clone()).unwrap_or_default(),
            fixtures,
            series,
            medians: columns
                .into_iter()
                .map(|(peer, ratios)| Series { peer, ratios })
                .collect(),
        }
    }
}

/// `docs/bench/`.
pub fn dir(root: &Path) -> PathBuf {
    root.join("docs").join("bench")
}

impl Suite {
    /// Writes `<dir>/<name>.json` and `<dir>/<name>.svg`; returns the SVG's path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let json = dir.join(format!("{}.json", self.name));
        std::fs::write(&json, serde_json::to_string_pretty(&self.json())? + "\n")?;
        let svg = dir.join(format!("{}.svg", self.name));
        std::fs::write(&svg, self.svg()?)?;
        Ok(svg)
    }

    /// A suite read back from its `docs/bench/<name>.json` (for redrawing).
    pub fn from_json(name: &'static str, j: &serde_json::Value) -> Result<Suite> {
        let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        let columns = |table: &serde_json::Value, fixtures: &[String]| -> Vec<Series> {
            table
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(peer, by)| Series {
                            peer: peer.clone(),
                            ratios: fixtures.iter().map(|f| by[f].as_f64()).collect(),
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let panels = j["panels"]
            .as_array()
            .ok_or_else(|| format!("{name}.json: no panels"))?
            .iter()
            .map(|p| {
                let fixtures: Vec<String> = p["fixtures"]
                    .as_array()
                    .map(|a| a.iter().map(text).collect())
                    .unwrap_or_default();
                Panel {
                    name: text(&p["name"]),
                    baseline: text(&p["baseline"]),
                    series: columns(&p["ratios"], &fixtures),
                    medians: columns(&p["medians_ns"], &fixtures),
                    fixtures,
                }
            })
            .collect();
        Ok(Suite {
            name,
            title: text(&j["title"]),
            command: text(&j["command"]),
            date: text(&j["date"]),
            panels,
        })
    }

    fn json(&self) -> serde_json::Value {
        let panels: Vec<serde_json::Value> = self
            .panels
            .iter()
            .map(|p| {
                let table = |columns: &[Series]| -> serde_json::Value {
                    let map: serde_json::Map<String, serde_json::Value> = columns
                        .iter()
                        .map(|s| {
                            let by_fixture: serde_json::Map<String, serde_json::Value> = p
                                .fixtures
                                .iter()
                                .zip(&s.ratios)
                                .map(|(f, r)| {
                                    (f.clone(), r.map_or(serde_json::Value::Null, |r| r.into()))
                                })
                                .collect();
                            (s.peer.clone(), by_fixture.into())
                        })
                        .collect();
                    map.into()
                };
                serde_json::json!({
                    "name": p.name,
                    "baseline": p.baseline,
                    "ratio": "peer time / baseline time (above 1: the baseline is faster)",
                    "fixtures": p.fixtures,
                    "ratios": table(&p.series),
                    "medians_ns": table(&p.medians),
                })
            })
            .collect();
        serde_json::json!({
            "suite": self.name,
            "title": self.title,
            "command": self.command,
            "date": self.date,
            "panels": panels,
        })
    }

    /// The SVG text: one log-scale chart per panel, stacked.
    pub fn svg(&self) -> Result<String> {
        let width = 1000u32;
        let panel_height = 380u32;
        let height = 40 + panel_height * self.panels.len().max(1) as u32;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
            root.fill(&WHITE).map_err(draw_err)?;
            let (top, body) = root.split_vertically(40);
            top.titled(&self.title, ("sans-serif", 18))
                .map_err(draw_err)?;
            let areas = body.split_evenly((self.panels.len().max(1), 1));
            for (panel, area) in self.panels.iter().zip(areas) {
                draw_panel(panel, &area)?;
            }
            root.present().map_err(draw_err)?;
        }
        Ok(out)
    }
}

/// `cargo xtask chart`: redraws every `docs/bench/<suite>.svg` from its
/// `.json` (after a change to the drawing, without re-running a benchmark).
pub fn redraw(root: &Path) -> Result<()> {
    const SUITES: [&str; 5] = ["core", "typed", "python", "ts", "kotlin"];
    for name in SUITES {
        let path = dir(root).join(format!("{name}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let suite = Suite::from_json(name, &serde_json::from_str(&text)?)?;
        let svg = dir(root).join(format!("{name}.svg"));
        std::fs::write(&svg, suite.svg()?)?;
        println!("xtask: redrew {}", svg.display());
    }
    Ok(())
}

fn draw_err<E: std::fmt::Debug>(e: E) -> Box<dyn std::error::Error> {
    format!("drawing the chart: {e:?}").into()
}

/// The y range of a panel: every ratio and 1x, with some room around.
fn y_range(panel: &Panel) -> (f64, f64) {
    let all = panel.series.iter().flat_map(|s| s.ratios.iter().flatten());
    let (lo, hi) = all.fold((1.0f64, 1.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    (lo / 1.6, hi * 1.6)
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn draw_panel<DB: DrawingBackend>(
    panel: &Panel,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let n = panel.fixtures.len().max(1);
    let (lo, hi) = y_range(panel);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "{}: peer time / {} time (log scale; above 1x: {} is faster)",
                panel.name, panel.baseline, panel.baseline
            ),
            ("sans-serif", 14),
        )
        .margin(10)
        .x_label_area_size(60)
        .y_label_area_size(55)
        // Two empty slots on the right keep the legend off the last fixtures.
        .build_cartesian_2d(-0.5f64..(n as f64 + 1.5), (lo..hi).log_scale())
        .map_err(draw_err)?;
    let fixtures = panel.fixtures.clone();
    chart
        .configure_mesh()
        .x_labels(n + 2)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                fixtures.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| crate::report::fmt_ratio(*y))
        .y_desc("ratio")
        .draw()
        .map_err(draw_err)?;
    chart
        .draw_series(LineSeries::new(
            [(-0.5, 1.0), (n as f64 + 1.5, 1.0)],
            BLACK.stroke_width(2),
        ))
        .map_err(draw_err)?
        .label("1x")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.stroke_width(2)));
    let count = panel.series.len().max(1) as f64;
    for (k, s) in panel.series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        // Peers side by side within a fixture's slot, so equal ratios stay visible.
        let shift = (k as f64 - (count - 1.0) / 2.0) * (0.6 / count);
        let points: Vec<(f64, f64)> = s
            .ratios
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i as f64 + shift, (*r)?)))
            .collect();
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 5, colour.filled())))
            .map_err(draw_err)?
            .label(s.peer.clone())
            .legend(move |(x, y)| Circle::new((x + 8, y), 5, colour.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(draw_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite() -> Suite {
        Suite {
            name: "demo",
            title: "Demo".into(),
            command: "cargo xtask bench demo".into(),
            date: "2026-12-01 17:00 UTC".into(),
            panels: vec![Panel::from_medians(
                "decode",
                vec!["user_profile".into(), "api_response".into()],
                vec![
                    ("generated".into(), vec![Some(10.0), Some(100.0)]),
                    ("prost".into(), vec![Some(5.0), Some(200.0)]),
                    ("serde_json".into(), vec![Some(30.0), None]),
                ],
            )],
        }
    }

    #[test]
    fn the_chart_names_every_fixture_and_peer() {
        let svg = suite().svg().unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        for text in [
            "user_profile",
            "api_response",
            "prost",
            "serde_json",
            "1x",
            "Demo",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        // Three measured points, one circle each (legend circles add one per peer).
        assert_eq!(svg.matches("<circle").count(), 3 + 2);
    }

    #[test]
    fn a_suite_reads_back_from_its_json() {
        let back = Suite::from_json("demo", &suite().json()).unwrap();
        assert_eq!(back.title, "Demo");
        let (a, b) = (&suite().panels[0], &back.panels[0]);
        assert_eq!(a.fixtures, b.fixtures);
        assert_eq!(a.baseline, b.baseline);
        let peers = |p: &Panel| -> Vec<(String, Vec<Option<f64>>)> {
            let mut v: Vec<_> = p
                .series
                .iter()
                .map(|s| (s.peer.clone(), s.ratios.clone()))
                .collect();
            v.sort_by(|x, y| x.0.cmp(&y.0));
            v
        };
        assert_eq!(peers(a), peers(b));
        assert_eq!(back.svg().unwrap().matches("<circle").count(), 3 + 2);
    }

    #[test]
    fn the_json_keeps_unmeasured_cells_as_null() {
        let j = suite().json();
        assert_eq!(j["panels"][0]["ratios"]["prost"]["api_response"], 2.0);
        assert!(j["panels"][0]["ratios"]["serde_json"]["api_response"].is_null());
        assert_eq!(j["panels"][0]["ratios"]["prost"]["user_profile"], 0.5);
        assert_eq!(
            j["panels"][0]["medians_ns"]["generated"]["api_response"],
            100.0
        );
        assert_eq!(j["command"], "cargo xtask bench demo");
    }
}
