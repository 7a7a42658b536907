//! A comparison's exports: a Markdown table (every phase with its range),
//! CSV with `bench`'s keys (one list of columns, header and fields from the
//! same entries), JSON, and the kept sweeps' curves as CSV.

use serde::Serialize;

use super::{working_set_text, Comparison, SweepCurve};
use crate::machine::Machine;
use crate::measure::row::{PhaseMs, Row};

/// "0.372 (0.360-0.373)": a median with its range, ms to the microsecond;
/// the range only when there is one to show.
fn with_range(median: f64, lo: f64, hi: f64) -> String {
    if lo < hi {
        format!("{median:.3} ({lo:.3}-{hi:.3})")
    } else {
        format!("{median:.3}")
    }
}

/// The lines under a table: what the ranges are, the frames a guard cut,
/// the rows measured apart.
fn notes(c: &Comparison) -> String {
    let rounds = c.rows.iter().map(|m| m.rounds.len()).max().unwrap_or(0);
    let mut s = if rounds >= 2 {
        format!("\nMedians of {rounds} round medians, with the smallest and largest round median in brackets; \"vs baseline\" is a verdict from the rounds of the whole step (a direction only where the two rows' rounds do not overlap).\n")
    } else {
        "\nMedians of one round's frames, with the fastest and slowest frame in brackets; one round gives a ratio, not a verdict.\n".to_string()
    };
    if !c.all_interleaved() {
        s += "Rows marked \"measured apart\" were measured at different times, not in interleaved rounds: \"Measure all\" measures every row again together.\n";
    }
    for (i, m) in c.rows.iter().enumerate() {
        if let Some(cut) = m.cut_note() {
            s += &format!("- {}: {cut}\n", c.name(i));
        }
    }
    s
}

impl Comparison {
    /// Markdown table of the rows, headed by the machine and the settings
    /// every row shares: per row its name, the step's median with its range
    /// ([`crate::measure::Measurement::shown`]: the round medians' with two rounds or more),
    /// each phase the same way, candidates tested per neighbor, the working
    /// set against this machine's caches, the result bytes, rounds and
    /// frames, and the verdict against the baseline; "(busy)" where the
    /// frames' spread exceeds [`crate::measure::BUSY_SPREAD`]. Notes follow
    /// (what the ranges are, frames a guard cut), then the sweep curves as
    /// tables of cell / r against query ms with their range and candidates
    /// per neighbor.
    pub fn to_markdown(&self, machine: &Machine) -> String {
        let mut s = format!("Measured on {}.\n\n", machine.summary());
        if !self.rows.is_empty() {
            s += &format!("Every row: {}.\n\n", self.common());
        }
        s += "| row | step ms | move | rebuild | query | apply | tested per hit | query reads | results | rounds x frames | vs baseline |\n";
        s += "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n";
        for (i, r) in self.rows.iter().enumerate() {
            let sh = r.shown();
            let cell = |p: crate::measure::Spread, med: f64| with_range(med, p.min, p.max);
            let p = sh.phases();
            let m = r.ms.phases();
            s += &format!(
                "| {} | {}{} | {} | {} | {} | {} | {:.1} | {} | {} | {} x {} | {} |\n",
                md_cell(&self.name(i)),
                cell(sh.total, r.ms.total.median),
                if r.is_noisy() { " (busy)" } else { "" },
                cell(p[0], m[0].median),
                cell(p[1], m[1].median),
                cell(p[2], m[2].median),
                cell(p[3], m[3].median),
                r.candidates_per_neighbor(),
                working_set_text(r, machine),
                crate::format::bytes(r.result_bytes as usize),
                r.rounds.len(),
                r.frames,
                md_cell(&self.versus(i))
            );
        }
        s += &notes(self);
        for c in &self.curves {
            s += &format!(
                "\n{}\n\n| cell / r | query ms | range | tested per hit | rounds |\n|---:|---:|---:|---:|---:|\n",
                md_cell(&c.label)
            );
            for p in &c.points {
                s += &format!(
                    "| {:.2} | {:.3} | {:.3}-{:.3} | {:.2} | {} |\n",
                    p.cell_over_r,
                    p.query_ms,
                    p.low_ms,
                    p.high_ms,
                    p.candidates_per_neighbor,
                    p.rounds
                );
            }
        }
        s
    }

    /// CSV of [`Comparison::table`]: a header line, then one line per row
    /// ([`CSV_COLUMNS`]); fields with commas, quotes or line breaks quoted
    /// (RFC 4180).
    pub fn to_csv(&self) -> String {
        let header: Vec<&str> = CSV_COLUMNS.iter().map(|c| c.0).collect();
        let mut s = header.join(",");
        s.push('\n');
        for r in self.table() {
            let line: Vec<String> = CSV_COLUMNS.iter().map(|c| csv_field(&(c.1)(&r))).collect();
            s += &line.join(",");
            s.push('\n');
        }
        s
    }

    /// CSV of every kept sweep's points: curve, cell / r, median query ms,
    /// its range, candidates per neighbor and rounds, one line per point.
    pub fn curves_csv(&self) -> String {
        curves_csv(&self.curves)
    }

    /// JSON: `{"rows": [...], "sweeps": [...]}` with [`Row`]s (each naming
    /// its machine and keeping its rounds) and the curves.
    ///
    /// # Errors
    /// If serde_json cannot encode a value (not expected: every field is a
    /// plain number, string or null).
    pub fn to_json(&self) -> Result<String, String> {
        #[derive(Serialize)]
        struct Doc<'a> {
            rows: Vec<Row>,
            sweeps: &'a [SweepCurve],
        }
        serde_json::to_string_pretty(&Doc {
            rows: self.table(),
            sweeps: &self.curves,
        })
        .map_err(|e| format!("could not encode the rows as JSON: {e}"))
    }
}

/// CSV of the points of `curves` (see [`Comparison::curves_csv`]).
pub fn curves_csv(curves: &[SweepCurve]) -> String {
    let mut s = String::from("curve,cell_over_r,median_query_ms,low_query_ms,high_query_ms,candidates_per_neighbor,rounds\n");
    for c in curves {
        for p in &c.points {
            s += &format!(
                "{},{:.4},{:.4},{:.4},{:.4},{:.4},{}\n",
                csv_field(&c.label),
                p.cell_over_r,
                p.query_ms,
                p.low_ms,
                p.high_ms,
                p.candidates_per_neighbor,
                p.rounds
            );
        }
    }
    s
}

/// Milliseconds to the microsecond: the machine's noise is far above that.
fn ms(v: f64) -> String {
    format!("{v:.3}")
}

/// An optional number to 3 decimals, empty when absent.
fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| format!("{v:.3}"))
}

/// One phase of an optional [`PhaseMs`], to the microsecond.
fn phase(v: Option<PhaseMs>, pick: fn(&PhaseMs) -> f64) -> String {
    v.map_or(String::new(), |p| ms(pick(&p)))
}

/// A CSV column: its header and how a row gives its field.
type Column = (&'static str, fn(&Row) -> String);

/// The CSV columns, in order: header and field from one entry each, so the
/// two cannot drift apart.
pub const CSV_COLUMNS: [Column; 37] = [
    ("label", |r| r.label.clone()),
    ("strategy", |r| r.strategy.key().to_string()),
    ("kernel", |r| r.kernel_key().to_string()),
    ("layout", |r| r.layout.key().to_string()),
    ("reorder", |r| r.reorder.key().to_string()),
    ("pass", |r| r.pass.key().to_string()),
    ("threads", |r| r.threads.to_string()),
    ("units", |r| r.units.to_string()),
    ("workload", |r| r.workload.key().to_string()),
    ("radius", |r| r.radius.to_string()),
    ("cell_size", |r| {
        r.cell_size.map_or(String::new(), |c| c.to_string())
    }),
    ("cell_over_r", |r| opt(r.cell_over_r)),
    ("rounds", |r| r.rounds.len().to_string()),
    ("frames", |r| r.frames.to_string()),
    ("planned_frames", |r| r.planned_frames.to_string()),
    ("median_total_ms", |r| phase(r.median_ms, |p| p.total)),
    ("round_min_total_ms", |r| phase(r.round_min_ms, |p| p.total)),
    ("round_max_total_ms", |r| phase(r.round_max_ms, |p| p.total)),
    ("min_total_ms", |r| phase(r.min_ms, |p| p.total)),
    ("max_total_ms", |r| phase(r.max_ms, |p| p.total)),
    ("median_move_ms", |r| phase(r.median_ms, |p| p.move_)),
    ("median_rebuild_ms", |r| phase(r.median_ms, |p| p.rebuild)),
    ("median_query_ms", |r| phase(r.median_ms, |p| p.query)),
    ("round_min_query_ms", |r| phase(r.round_min_ms, |p| p.query)),
    ("round_max_query_ms", |r| phase(r.round_max_ms, |p| p.query)),
    ("median_apply_ms", |r| phase(r.median_ms, |p| p.apply)),
    ("candidates", |r| r.candidates.to_string()),
    ("neighbors", |r| r.neighbors.to_string()),
    (
        "candidates_per_neighbor",
        |r| opt(r.candidates_per_neighbor),
    ),
    ("result_bytes", |r| r.result_bytes.to_string()),
    ("working_set_bytes", |r| {
        r.working_set_bytes.map_or(String::new(), |b| b.to_string())
    }),
    ("sliced_frames", |r| r.sliced_frames.to_string()),
    ("worker_frames", |r| r.worker_frames.to_string()),
    ("round_median_total_ms", |r| {
        let v: Vec<String> = r.rounds.iter().map(|x| ms(x.median_ms.total)).collect();
        v.join(" ")
    }),
    ("note", |r| r.note.clone().unwrap_or_default()),
    ("skipped", |r| r.skipped.clone().unwrap_or_default()),
    ("machine", |r| r.machine.summary()),
];

/// `f` as a CSV field: quoted (quotes doubled) when it holds a comma, a
/// quote or a line break.
pub fn csv_field(f: &str) -> String {
    if f.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", f.replace('"', "\"\""))
    } else {
        f.to_string()
    }
}

/// `t` for a Markdown table cell: `|` escaped, line breaks as spaces.
pub fn md_cell(t: &str) -> String {
    t.replace('|', "\\|").replace(['\n', '\r'], " ")
}
