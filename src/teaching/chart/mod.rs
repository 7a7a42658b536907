//! Slide-ready charts of measurements, for files: what a chart shows
//! ([`Chart`]: bars with their rounds' range, or curves over the cell size)
//! built from a comparison or a lesson, and its drawing as SVG or PNG
//! ([`draw`], with plotters; not in the browser build, whose window saves
//! the panel's own plot instead).
//!
//! Every chart carries a title and a caption naming the machine, the date
//! and the settings every bar shares, so a picture on a slide still says
//! where its numbers came from. The live panels draw with egui_plot; only
//! exports come through here.

#[cfg(not(target_arch = "wasm32"))]
pub mod draw;

use crate::measure::compare::{Comparison, SweepCurve};
use crate::measure::machine::Machine;
use crate::measure::working_set_sweep::{WsCurve, WsPoint};
use crate::measure::Measurement;

/// PNG size of an exported chart unless asked otherwise, pixels.
pub const PNG_SIZE: (u32, u32) = (1920, 1080);

/// Values that span more than this (largest / smallest) are drawn on a log
/// axis by [`Scale::Auto`].
pub const LOG_ABOVE_SPAN: f64 = 20.0;

/// How the value axis is scaled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scale {
    /// Log when the values span more than [`LOG_ABOVE_SPAN`], else linear.
    #[default]
    Auto,
    /// Always logarithmic.
    Log,
    /// Always linear, from 0.
    Linear,
}

impl Scale {
    /// Whether `values` (positive ones count) are drawn on a log axis.
    pub fn is_log(self, values: impl Iterator<Item = f64>) -> bool {
        match self {
            Scale::Log => true,
            Scale::Linear => false,
            Scale::Auto => {
                let (lo, hi) = values
                    .filter(|v| *v > 0.0 && v.is_finite())
                    .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
                        (lo.min(v), hi.max(v))
                    });
                lo.is_finite() && hi / lo > LOG_ABOVE_SPAN
            }
        }
    }
}

/// One bar: its value and the range its whisker spans.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarValue {
    /// The bar's height (a median).
    pub value: f64,
    /// The whisker's bottom.
    pub low: f64,
    /// The whisker's top.
    pub high: f64,
}

/// The bars of one row (one per series), under one label.
#[derive(Clone, Debug, PartialEq)]
pub struct BarGroup {
    /// The label under the group ("Grid", "AoS, cell order").
    pub label: String,
    /// One per series; `None` where the row has no such value.
    pub values: Vec<Option<BarValue>>,
}

/// Grouped bars.
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    /// The value axis' name ("ms").
    pub y_label: String,
    /// The series, in the order of every group's values ("whole step", "query").
    pub series: Vec<String>,
    /// The groups, left to right.
    pub groups: Vec<BarGroup>,
    /// The value axis.
    pub scale: Scale,
}

/// One curve: `(x, y, low, high)` points, ascending in x.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its name in the legend.
    pub label: String,
    /// The points: x, y and the whisker's bottom and top.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// What the x values of curves are, for their tick labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum XAxis {
    /// Cell / r: a tick at every power of two, "2 r".
    #[default]
    CellOverR,
    /// Bytes: a tick at every power of four, "256 KiB".
    Bytes,
}

/// Curves over a log2 x axis, in one or two panels sharing it.
#[derive(Clone, Debug, PartialEq)]
pub struct Curves {
    /// The x axis' name.
    pub x_label: String,
    /// What the x values are.
    pub x_axis: XAxis,
    /// Vertical lines across every panel, each labeled at the top: `(x,
    /// label)` (the cache sizes of a working-set chart).
    pub markers: Vec<(f64, String)>,
    /// The upper panel's value axis name and curves.
    pub upper: (String, Vec<Series>),
    /// The lower panel's, if there is one.
    pub lower: Option<(String, Vec<Series>)>,
}

/// What a chart draws.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Grouped bars.
    Bars(Bars),
    /// Curves.
    Curves(Curves),
}

/// A chart: title, body, caption.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The title at the top.
    pub title: String,
    /// What it draws.
    pub body: Body,
    /// Lines under it: the machine and date, the shared settings, how the
    /// numbers were measured.
    pub caption: Vec<String>,
}

/// Today's date as `YYYY-MM-DD` (UTC) from the system clock; empty where
/// there is none. Days to civil date: H. Hinnant, "chrono-Compatible
/// Low-Level Date Algorithms", `civil_from_days`.
pub fn today() -> String {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) else {
            return String::new();
        };
        let z = (d.as_secs() / 86_400) as i64 + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        format!("{year:04}-{month:02}-{day:02}")
    }
    #[cfg(target_arch = "wasm32")]
    String::new()
}

/// The caption's first line: "Measured on CPU, 2 cores, L1d ..., on 2026-12-02."
pub fn machine_line(machine: &Machine) -> String {
    let date = today();
    if date.is_empty() {
        format!("Measured on {}.", machine.summary())
    } else {
        format!("Measured on {}, on {date}.", machine.summary())
    }
}

/// How rows' bars and whiskers were measured, for the caption.
fn rounds_line(rows: &[&Measurement]) -> String {
    let rounds = rows.iter().map(|m| m.rounds.len()).max().unwrap_or(0);
    let frames = rows.iter().map(|m| m.frames).max().unwrap_or(0);
    if rounds >= 2 {
        format!("{rounds} rounds of {frames} counted frames, the rows in turn; bars: median of the round medians; whiskers: smallest to largest round median.")
    } else {
        format!("One round of {frames} counted frames; bars: median; whiskers: fastest to slowest frame.")
    }
}

/// The bar of one phase of `m` (`pick` a phase of a [`crate::measure::PhaseSpreads`]).
fn bar(
    m: &Measurement,
    pick: fn(&crate::measure::PhaseSpreads) -> crate::measure::Spread,
) -> BarValue {
    let shown = pick(m.shown());
    BarValue {
        value: pick(&m.ms).median,
        low: shown.min,
        high: shown.max,
    }
}

/// The bar chart of `c`'s rows: per row (named as the panel names it) its
/// whole step and its query, with their ranges; `title` at the top.
pub fn comparison_bars(c: &Comparison, machine: &Machine, title: &str, scale: Scale) -> Chart {
    let groups = c
        .rows()
        .iter()
        .enumerate()
        .map(|(i, m)| BarGroup {
            label: c.name(i),
            values: vec![Some(bar(m, |p| p.total)), Some(bar(m, |p| p.query))],
        })
        .collect();
    let rows: Vec<&Measurement> = c.rows().iter().collect();
    let mut caption = vec![machine_line(machine)];
    if !c.rows().is_empty() {
        caption.push(format!("Every row: {}.", c.common()));
    }
    caption.push(rounds_line(&rows));
    Chart {
        title: title.to_string(),
        body: Body::Bars(Bars {
            y_label: "ms".to_string(),
            series: vec!["whole step".to_string(), "query".to_string()],
            groups,
            scale,
        }),
        caption,
    }
}

/// The chart of kept sweep curves: median query ms (with the rounds'
/// range) against cell / r above, candidates tested per neighbor below.
pub fn sweep_curves(curves: &[SweepCurve], machine: &Machine, title: &str) -> Chart {
    let series = |y: fn(&crate::measure::compare::CurvePoint) -> (f64, f64, f64)| -> Vec<Series> {
        curves
            .iter()
            .map(|c| Series {
                label: c.label.clone(),
                points: c
                    .points
                    .iter()
                    .map(|p| {
                        let (v, lo, hi) = y(p);
                        (f64::from(p.cell_over_r), v, lo, hi)
                    })
                    .collect(),
            })
            .collect()
    };
    let rounds = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.rounds))
        .max()
        .unwrap_or(0);
    Chart {
        title: title.to_string(),
        body: Body::Curves(Curves {
            x_label: "cell / r (log scale)".to_string(),
            x_axis: XAxis::CellOverR,
            markers: Vec::new(),
            upper: (
                "median query ms".to_string(),
                series(|p| (p.query_ms, p.low_ms, p.high_ms)),
            ),
            lower: Some((
                "distance tests per neighbor".to_string(),
                series(|p| {
                    (
                        p.candidates_per_neighbor,
                        p.candidates_per_neighbor,
                        p.candidates_per_neighbor,
                    )
                }),
            )),
        }),
        caption: vec![
            machine_line(machine),
            if rounds >= 2 {
                format!("Each cell size measured in {rounds} rounds, the cell sizes in turn; whiskers: smallest to largest round median.")
            } else {
                "Each cell size measured in one round; whiskers: fastest to slowest frame."
                    .to_string()
            },
        ],
    }
}

/// The chart of working-set sweeps: median query ns per unit (with the
/// rounds' range) against the working set in bytes (log scale) above, ns
/// per distance test below, a labeled vertical line at each of
/// `machine`'s cache sizes.
pub fn working_set_curves(curves: &[WsCurve], machine: &Machine, title: &str) -> Chart {
    let series = |y: fn(&WsPoint) -> (f64, (f64, f64))| -> Vec<Series> {
        curves
            .iter()
            .map(|c| Series {
                label: c.label.clone(),
                points: c
                    .points
                    .iter()
                    .map(|p| {
                        let (v, (lo, hi)) = y(p);
                        (p.working_set_bytes as f64, v, lo, hi)
                    })
                    .collect(),
            })
            .collect()
    };
    let rounds = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.rounds_ns_per_unit.len()))
        .max()
        .unwrap_or(0);
    let mut caption = vec![machine_line(machine)];
    caption.push(if rounds >= 2 {
        format!("Each working set measured in {rounds} rounds, every unit count of every curve in turn; whiskers: smallest to largest round median. Vertical lines: this machine's cache sizes.")
    } else {
        "Each working set measured in one round; whiskers: fastest to slowest frame. Vertical lines: this machine's cache sizes.".to_string()
    });
    caption.extend(
        curves
            .iter()
            .filter_map(|c| c.note.as_ref().map(|n| format!("{}: {n}.", c.label))),
    );
    Chart {
        title: title.to_string(),
        body: Body::Curves(Curves {
            x_label: "working set of the query (log scale)".to_string(),
            x_axis: XAxis::Bytes,
            markers: machine
                .levels()
                .into_iter()
                .map(|(name, b)| (b as f64, format!("{name} {}", crate::format::size(b))))
                .collect(),
            upper: (
                "query ns per unit".to_string(),
                series(|p| (p.ns_per_unit, p.ns_per_unit_range)),
            ),
            lower: Some((
                "query ns per distance test".to_string(),
                series(|p| (p.ns_per_candidate, p.ns_per_candidate_range)),
            )),
        }),
        caption,
    }
}

/// Writes `chart` to `path` as SVG or PNG (by the name's ending; PNG at
/// [`PNG_SIZE`]).
///
/// # Errors
/// One line: the ending is neither `.svg` nor `.png`, the drawing failed,
/// or the file could not be written (naming it).
#[cfg(not(target_arch = "wasm32"))]
pub fn write(chart: &Chart, path: &std::path::Path) -> Result<(), String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let bytes = match ext.as_deref() {
        Some("svg") => draw::svg(chart, PNG_SIZE)?.into_bytes(),
        Some("png") => draw::png(chart, PNG_SIZE)?,
        _ => {
            return Err(format!(
                "{}: a chart is written as .svg or .png",
                path.display()
            ))
        }
    };
    crate::platform::output_file::write(path, &bytes)
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
