//! The rows a user keeps to compare (the window's compare panel): each a
//! [`Measurement`] of the settings of its moment, one of them the baseline
//! the others are compared with, plus the curves of cell-size sweeps; and
//! their exports (Markdown, CSV, JSON with `bench`'s keys). Plain data, so
//! the panel's bookkeeping and texts are tested headless.

use serde::Serialize;

use super::row::Row;
use super::sweep::CellSweep;
use super::{Guards, Measurement, Plan, Spec, Variant};
use crate::format::{length, thousands};
use crate::machine::Machine;
use crate::sim::Settings;

/// One cell-size sweep kept as a curve: its label and (cell / r, median
/// query ms) per measured cell size, ascending.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepCurve {
    /// What was swept ("Grid / SoA, 100,000 units").
    pub label: String,
    /// `(cell / r, median query ms)` per measured cell size, ascending.
    pub points: Vec<(f32, f64)>,
}

/// The compare panel's rows, baseline and sweep curves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    rows: Vec<Measurement>,
    /// Index of the baseline row (the first row until the user picks one).
    baseline: usize,
    curves: Vec<SweepCurve>,
}

impl Comparison {
    /// The rows, in the user's order.
    pub fn rows(&self) -> &[Measurement] {
        &self.rows
    }

    /// The sweep curves, oldest first.
    pub fn curves(&self) -> &[SweepCurve] {
        &self.curves
    }

    /// True when there is neither a row nor a curve.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.curves.is_empty()
    }

    /// Adds a row at the end (the first row becomes the baseline).
    pub fn add(&mut self, m: Measurement) {
        self.rows.push(m);
    }

    /// Adds a finished sweep: its curve, and its fastest cell size as a row
    /// (labeled as such); nothing when it measured no cell size.
    pub fn add_sweep(&mut self, sw: &CellSweep) {
        let w = sw.work();
        let label = format!(
            "sweep: {} / {}, {} units",
            w.strategy.name(),
            w.layout.name(),
            thousands(w.units as u64)
        );
        let points: Vec<(f32, f64)> = sw.points().iter().map(|p| (p.ratio, p.query_ms)).collect();
        if points.is_empty() {
            return;
        }
        if let Some(best) = sw.best() {
            let fastest = sw
                .measurements()
                .filter(|m| m.cell_size == Some(best.cell_size))
                .min_by(|a, b| a.ms.query.median.total_cmp(&b.ms.query.median));
            if let Some(m) = fastest {
                let mut m = m.clone();
                m.label = format!(
                    "{} at its fastest cell {}",
                    row_label(&m.settings, m.threads),
                    length(best.cell_size)
                );
                self.rows.push(m);
            }
        }
        self.curves.push(SweepCurve { label, points });
    }

    /// Removes row `i` (nothing when out of range); the baseline stays on
    /// its row, or moves to the first row when it was removed.
    pub fn remove(&mut self, i: usize) {
        if i >= self.rows.len() {
            return;
        }
        self.rows.remove(i);
        self.baseline = match self.baseline {
            b if b == i => 0,
            b if b > i => b - 1,
            b => b,
        };
    }

    /// Moves row `i` one place up (towards index 0); the baseline moves with
    /// its row. Nothing for the first row or out of range.
    pub fn move_up(&mut self, i: usize) {
        if i == 0 || i >= self.rows.len() {
            return;
        }
        self.rows.swap(i - 1, i);
        if self.baseline == i {
            self.baseline = i - 1;
        } else if self.baseline == i - 1 {
            self.baseline = i;
        }
    }

    /// Removes the sweep curve `i` (nothing when out of range).
    pub fn remove_curve(&mut self, i: usize) {
        if i < self.curves.len() {
            self.curves.remove(i);
        }
    }

    /// Removes every row and curve.
    pub fn clear(&mut self) {
        *self = Comparison::default();
    }

    /// Makes row `i` the baseline (nothing when out of range).
    pub fn set_baseline(&mut self, i: usize) {
        if i < self.rows.len() {
            self.baseline = i;
        }
    }

    /// Index of the baseline row; `None` without rows.
    pub fn baseline(&self) -> Option<usize> {
        (!self.rows.is_empty()).then(|| self.baseline.min(self.rows.len() - 1))
    }

    /// How many times faster row `i`'s step is than the baseline's (median
    /// totals: baseline / row); `None` without a baseline, or when a time is 0.
    pub fn speedup(&self, i: usize) -> Option<f64> {
        let b = self.rows.get(self.baseline()?)?.ms.total.median;
        let t = self.rows.get(i)?.ms.total.median;
        (b > 0.0 && t > 0.0).then(|| b / t)
    }

    /// Row `i`'s step time as a fraction of the baseline's, per phase (move,
    /// rebuild, query, apply): the stacked bar of the chart, where the
    /// baseline's bar sums to about 1.
    pub fn normalized(&self, i: usize) -> Option<[f64; 4]> {
        let b = self.rows.get(self.baseline()?)?.ms.total.median;
        let r = self.rows.get(i)?;
        (b > 0.0).then(|| r.ms.phases().map(|p| p.median / b))
    }

    /// For each of [`fields`]: whether two rows name it differently (a row
    /// where it does not apply, `None`, differs from none), and whether it
    /// applies to every row.
    fn field_use(&self) -> [(bool, bool); FIELDS] {
        let all: Vec<_> = self.rows.iter().map(fields).collect();
        std::array::from_fn(|k| {
            let mut named = all.iter().filter_map(|f| f[k].as_ref());
            let first = named.next();
            let differs = named.any(|v| Some(v) != first);
            (differs, all.iter().all(|f| f[k].is_some()))
        })
    }

    /// Row `i`'s name for the panel and the chart: the settings in which the
    /// rows differ ("Grid", "AoS / 4T"), or its full label when they differ
    /// in none; empty when out of range.
    pub fn name(&self, i: usize) -> String {
        let Some(r) = self.rows.get(i) else {
            return String::new();
        };
        let parts: Vec<String> = fields(r)
            .into_iter()
            .zip(self.field_use())
            .filter_map(|(f, (differs, _))| f.filter(|_| differs))
            .collect();
        if parts.is_empty() {
            r.label.clone()
        } else {
            parts.join(" / ")
        }
    }

    /// The settings every row shares ("SoA / order resident / fused / 1T /
    /// 20,000 units / uniform / r 10.00"); empty without rows.
    pub fn common(&self) -> String {
        let Some(first) = self.rows.first() else {
            return String::new();
        };
        fields(first)
            .into_iter()
            .zip(self.field_use())
            .filter_map(|(f, (differs, everywhere))| f.filter(|_| !differs && everywhere))
            .collect::<Vec<_>>()
            .join(" / ")
    }

    /// The comparison of row `i` with the baseline in words, by their
    /// [`Comparison::name`]s: "Grid: 58x faster than Naive", "AoS: 1.3x
    /// slower than SoA", "Naive: baseline".
    pub fn describe(&self, i: usize) -> String {
        let (Some(_), Some(b)) = (self.rows.get(i), self.baseline()) else {
            return String::new();
        };
        let name = self.name(i);
        if i == b {
            return format!("{name}: baseline");
        }
        let base = self.name(b);
        match self.speedup(i) {
            Some(x) if x >= 1.0 => format!("{name}: {} faster than {base}", times(x)),
            Some(x) => format!("{name}: {} slower than {base}", times(1.0 / x)),
            None => format!("{name}: not comparable with {base} (no time measured)"),
        }
    }

    /// Markdown table of the rows (label, step ms median and range, each
    /// phase's median, candidates per neighbor, working set against this
    /// machine's caches, result bytes, the comparison with the baseline),
    /// headed by the machine; a row whose spread exceeds [`super::BUSY_SPREAD`]
    /// says so; sweep curves follow as a table of cell / r against query ms.
    pub fn to_markdown(&self, machine: &Machine) -> String {
        let mut s = format!("Measured on {}.\n\n", machine.summary());
        if !self.rows.is_empty() {
            s += &format!("Every row: {}.\n\n", self.common());
        }
        s += "| row | step ms (median) | min-max | move | rebuild | query | apply | tested per hit | query reads | results | vs baseline |\n";
        s += "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n";
        for (i, r) in self.rows.iter().enumerate() {
            let t = r.shown().total;
            let p = r.ms.phases();
            s += &format!(
                "| {} | {:.3} | {:.3}-{:.3}{} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} | {} | {} | {} |\n",
                self.name(i),
                t.median,
                t.min,
                t.max,
                if r.is_noisy() { " (busy)" } else { "" },
                p[0].median,
                p[1].median,
                p[2].median,
                p[3].median,
                r.candidates_per_neighbor(),
                working_set_text(r, machine),
                crate::format::bytes(r.result_bytes as usize),
                self.versus(i)
            );
        }
        for c in &self.curves {
            s += &format!("\n{}\n\n| cell / r | query ms |\n|---:|---:|\n", c.label);
            for (q, ms) in &c.points {
                s += &format!("| {q:.2} | {ms:.3} |\n");
            }
        }
        s
    }

    /// "58x faster", "1.3x slower", "baseline" or "-".
    fn versus(&self, i: usize) -> String {
        if Some(i) == self.baseline() {
            return "baseline".to_string();
        }
        match self.speedup(i) {
            Some(x) if x >= 1.0 => format!("{} faster", times(x)),
            Some(x) => format!("{} slower", times(1.0 / x)),
            None => "-".to_string(),
        }
    }

    /// The rows with `bench`'s keys ([`Row`]), in the user's order.
    pub fn table(&self) -> Vec<Row> {
        self.rows
            .iter()
            .map(|m| Row::of(&super::Outcome::Measured(m.clone())))
            .collect()
    }

    /// CSV of [`Comparison::table`]: a header line, then one line per row;
    /// fields with commas or quotes are quoted (RFC 4180).
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "label,strategy,kernel,layout,reorder,pass,threads,units,workload,radius,cell_size,cell_over_r,frames,median_total_ms,min_total_ms,max_total_ms,median_move_ms,median_rebuild_ms,median_query_ms,median_apply_ms,candidates,neighbors,candidates_per_neighbor,result_bytes,working_set_bytes,sliced_frames,worker_frames,machine\n",
        );
        // Milliseconds to the microsecond, ratios to 3 decimals: the
        // machine's noise is far above that.
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
        let ms = |v: f64| format!("{v:.3}");
        for r in self.table() {
            let (md, lo, hi) = (
                r.median_ms.unwrap_or_default(),
                r.min_ms.unwrap_or_default(),
                r.max_ms.unwrap_or_default(),
            );
            let fields = [
                r.label.clone(),
                r.strategy.clone(),
                r.kernel.clone(),
                r.layout.clone(),
                r.reorder.clone(),
                r.pass.clone(),
                r.threads.to_string(),
                r.units.to_string(),
                r.workload.clone(),
                r.radius.to_string(),
                r.cell_size.map_or(String::new(), |c| c.to_string()),
                opt(r.cell_over_r),
                r.frames.to_string(),
                ms(md.total),
                ms(lo.total),
                ms(hi.total),
                ms(md.move_),
                ms(md.rebuild),
                ms(md.query),
                ms(md.apply),
                r.candidates.to_string(),
                r.neighbors.to_string(),
                opt(r.candidates_per_neighbor),
                r.result_bytes.to_string(),
                r.working_set_bytes.map_or(String::new(), |b| b.to_string()),
                r.sliced_frames.to_string(),
                r.worker_frames.to_string(),
                r.machine.summary(),
            ];
            let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            s += &line.join(",");
            s.push('\n');
        }
        s
    }

    /// JSON: `{"rows": [...], "sweeps": [...]}` with [`Row`]s (each naming
    /// its machine) and the curves.
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

/// How many settings [`fields`] names.
const FIELDS: usize = 10;

/// The settings that tell rows apart, as they are named in the panel:
/// strategy, kernel (none for Grid, which uses none), layout, order, pass,
/// threads that ran, units, workload, radius, cell size (none for Naive).
fn fields(m: &Measurement) -> [Option<String>; FIELDS] {
    let s = &m.settings;
    [
        Some(s.strategy.name().to_string()),
        (s.strategy != crate::spatial::Strategy::Grid).then(|| s.kernel.name().to_string()),
        Some(s.layout.name().to_string()),
        Some(format!("order {}", s.reorder.key())),
        Some(s.pass.key().to_string()),
        Some(format!("{}T", m.threads.max(1))),
        Some(format!("{} units", thousands(s.units as u64))),
        Some(s.workload.key().to_string()),
        Some(format!("r {}", length(s.radius))),
        m.cell_size.map(|c| format!("cell {}", length(c))),
    ]
}

/// Settling frames of a compare measurement.
pub const MEASURE_SETTLE: usize = 2;
/// Counted frames of a compare measurement.
pub const MEASURE_FRAMES: usize = 15;
/// Guards of a compare measurement: a first frame over 0.25 s measures 3
/// frames instead (a naive frame of 100,000 units takes seconds, spread
/// over refreshes), one over 60 s is dropped.
pub const MEASURE_GUARDS: Guards = Guards {
    skip_above_s: 60.0,
    fewer_above_s: 0.25,
    fewer_frames: 3,
};

/// The plan of the compare panel's "measure": `settings` alone,
/// [`MEASURE_SETTLE`] then [`MEASURE_FRAMES`] frames, [`MEASURE_GUARDS`].
pub fn measure_plan(settings: &Settings) -> Plan {
    Plan::new(
        vec![Variant::new(
            row_label(settings, settings.threads),
            settings.clone(),
        )],
        Spec::new(MEASURE_SETTLE, MEASURE_FRAMES),
        MEASURE_GUARDS,
    )
}

/// A row's label for a measurement of `s` on `threads` threads: strategy,
/// kernel where it matters, layout, order, pass, threads, units.
pub fn row_label(s: &Settings, threads: usize) -> String {
    let kernel = match s.strategy {
        crate::spatial::Strategy::Grid => String::new(),
        _ => format!(" {}", s.kernel.name()),
    };
    format!(
        "{}{kernel} / {} / {} / {} / {}T / {}",
        s.strategy.name(),
        s.layout.name(),
        s.reorder.key(),
        s.pass.key(),
        threads.max(1),
        thousands(s.units as u64)
    )
}

/// "58x" (no decimals from 10 on), "2.4x", "1.03x".
pub fn times(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}x")
    } else if x >= 1.5 {
        format!("{x:.1}x")
    } else {
        format!("{x:.2}x")
    }
}

/// "query reads 3.1 MiB: fits in L2 (...)": the working set of `m` against
/// `machine`'s caches.
pub fn working_set_text(m: &Measurement, machine: &Machine) -> String {
    let b = m.working_set.total();
    format!("{}: {}", crate::format::bytes(b as usize), machine.fit(b))
}

/// A warning when `m`'s frames disagree by more than [`super::BUSY_SPREAD`]:
/// "spread 2.1x: the machine was busy"; `None` otherwise.
pub fn spread_warning(m: &Measurement) -> Option<String> {
    m.is_noisy().then(|| {
        format!(
            "spread {}: the machine was busy (other programs, the window's drawing) or a frame did extra work; measure again",
            times(m.frame_ms.total.ratio())
        )
    })
}

/// `f` as a CSV field: quoted (quotes doubled) when it holds a comma, a
/// quote or a line break.
fn csv_field(f: &str) -> String {
    if f.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", f.replace('"', "\"\""))
    } else {
        f.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A measurement labeled `label` whose step's median is `ms`, all query.
    pub(crate) fn row(label: &str, ms: f64) -> Measurement {
        let round = crate::measure::recorder::Round {
            median_ms: crate::measure::spread::PhaseMs {
                query: ms,
                total: ms,
                ..Default::default()
            },
            candidates: 40,
            neighbors: 10,
        };
        let mut m = Measurement::from_rounds(label, Settings::default(), 3, vec![round]);
        m.settle = 1;
        m.threads = 1;
        m.cell_size = Some(10.0);
        m
    }

    #[test]
    fn rows_are_compared_with_the_baseline_the_user_picks() {
        let mut c = Comparison::default();
        assert_eq!(c.baseline(), None);
        c.add(row("Naive", 580.0));
        c.add(row("Grid", 10.0));
        c.add(row("SortedGrid", 5.0));
        assert_eq!(c.baseline(), Some(0), "the first row until one is picked");
        assert_eq!(c.describe(0), "Naive: baseline");
        assert_eq!(c.describe(1), "Grid: 58x faster than Naive");
        assert_eq!(c.speedup(2), Some(116.0));
        let bar = c.normalized(0).unwrap();
        assert!((bar.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(c.normalized(1).unwrap()[2], 10.0 / 580.0);
        c.set_baseline(1);
        assert_eq!(c.describe(0), "Naive: 58x slower than Grid");
        assert_eq!(c.describe(2), "SortedGrid: 2.0x faster than Grid");
        assert!((c.normalized(1).unwrap()[2] - 1.0).abs() < 1e-12);
        c.set_baseline(9);
        assert_eq!(c.baseline(), Some(1), "out of range: unchanged");
    }

    #[test]
    fn names_keep_only_the_settings_that_differ() {
        use crate::sim::Layout;
        use crate::spatial::Strategy;
        let mut c = Comparison::default();
        let mut naive = row("full label n", 580.0);
        naive.settings.strategy = Strategy::Naive;
        naive.cell_size = None;
        let mut grid = row("full label g", 10.0);
        grid.settings.strategy = Strategy::Grid;
        c.add(naive);
        c.add(grid.clone());
        // The kernel (Naive only) and the cell (Grid only) tell nothing apart.
        assert_eq!(c.describe(1), "Grid: 58x faster than Naive");
        assert!(!c.common().contains("cell"), "{}", c.common());
        assert!(c.common().contains("1T / 10,000 units"), "{}", c.common());
        grid.settings.layout = Layout::Aos;
        grid.threads = 2;
        c.add(grid);
        assert_eq!(c.name(2), format!("Grid / {} / 2T", Layout::Aos.name()));
        assert!(!c.common().contains("1T"), "{}", c.common());
        // Rows that differ in no setting keep their labels.
        let mut same = Comparison::default();
        same.add(row("first run", 2.0));
        same.add(row("second run", 2.2));
        assert_eq!(same.name(1), "second run");
    }

    #[test]
    fn the_baseline_follows_its_row_through_moves_and_removals() {
        let mut c = Comparison::default();
        for (l, ms) in [("a", 1.0), ("b", 2.0), ("c", 4.0)] {
            c.add(row(l, ms));
        }
        c.set_baseline(2);
        c.move_up(2);
        assert_eq!(c.rows()[1].label, "c");
        assert_eq!(c.baseline(), Some(1));
        c.move_up(0);
        assert_eq!(c.rows()[0].label, "a", "the first row cannot move up");
        c.remove(0);
        assert_eq!(c.baseline(), Some(0));
        assert_eq!(c.rows()[0].label, "c");
        c.remove(0);
        assert_eq!(c.baseline(), Some(0), "removed: the first row");
        assert_eq!(c.rows()[0].label, "b");
        c.remove(7);
        assert_eq!(c.rows().len(), 1);
        c.clear();
        assert!(c.is_empty());
        assert_eq!(c.describe(0), "");
    }

    #[test]
    fn a_busy_row_is_flagged_and_exports_carry_every_row() {
        let mut c = Comparison::default();
        c.add(row("SoA", 2.0));
        let mut busy = row("AoS, \"fat\"", 3.0);
        busy.frame_ms.total.min = 2.0;
        busy.frame_ms.total.max = 4.2;
        c.add(busy.clone());
        assert_eq!(spread_warning(&c.rows()[0]), None);
        assert!(spread_warning(&busy)
            .unwrap()
            .starts_with("spread 2.1x: the machine was busy"));
        let md = c.to_markdown(Machine::current());
        assert!(md.starts_with("Measured on "), "{md}");
        assert!(md.contains("| SoA | 2.000 |"), "{md}");
        assert!(md.contains("2.000-4.200 (busy)"), "{md}");
        assert!(md.contains("| 1.5x slower |"), "{md}");
        let csv = c.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        let header = lines[0].split(',').count();
        assert!(lines[1].starts_with("SoA,"));
        assert!(
            lines[2].starts_with("\"AoS, \"\"fat\"\"\","),
            "{}",
            lines[2]
        );
        // The last field, the machine, names its caches with commas: quoted.
        let machine = Machine::current().summary();
        let quoted = csv_field(&machine);
        assert!(lines[1].ends_with(&format!(",{quoted}")), "{}", lines[1]);
        let before_machine = &lines[1][..lines[1].len() - quoted.len() - 1];
        assert_eq!(before_machine.split(',').count() + 1, header);
        assert!(lines[1].contains(",2.000,2.000,2.000,"), "{}", lines[1]);
        let json: serde_json::Value = serde_json::from_str(&c.to_json().unwrap()).unwrap();
        let rows = json["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1]["max_ms"]["total"], 4.2);
        assert_eq!(rows[0]["candidates_per_neighbor"], 4.0);
        assert_eq!(rows[0]["strategy"], Settings::default().strategy.key());
    }
}
