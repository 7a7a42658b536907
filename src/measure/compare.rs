//! The rows a user keeps to compare (the window's compare panel): each a
//! [`Measurement`] of the settings of its moment, one of them the baseline
//! the others are compared with (a verdict from their rounds), plus the
//! curves of cell-size sweeps; their exports (Markdown, CSV, JSON with
//! `bench`'s keys) are in [`export`]. Plain data, so the panel's
//! bookkeeping and texts are tested headless.

pub mod export;

use serde::Serialize;

use super::row::Row;
use super::sweep::CellSweep;
use super::verdict::{judge, Basis, Judgement, Words};
use super::working_set_sweep::WsCurve;
use super::{Guards, Measurement, Plan, Spec, Variant};
use crate::engine::sim::Settings;
use crate::format::{length, thousands};
use crate::measure::machine::Machine;

/// One measured cell size of a kept sweep.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Cell edge / query radius.
    pub cell_over_r: f32,
    /// Median query ms (of the round medians).
    pub query_ms: f64,
    /// Smallest round median (with one round: the fastest frame), ms.
    pub low_ms: f64,
    /// Largest round median (with one round: the slowest frame), ms.
    pub high_ms: f64,
    /// Distance tests per neighbor found.
    pub candidates_per_neighbor: f64,
    /// Rounds measured.
    pub rounds: usize,
}

/// One cell-size sweep kept as a curve: its label and its points,
/// ascending by cell size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepCurve {
    /// What was swept ("Grid / SoA, 100,000 units").
    pub label: String,
    /// One per measured cell size, ascending.
    pub points: Vec<CurvePoint>,
}

impl SweepCurve {
    /// The curve of `sw`, labeled `label`.
    pub fn of(sw: &CellSweep, label: String) -> SweepCurve {
        SweepCurve {
            label,
            points: sw
                .points()
                .iter()
                .map(|p| CurvePoint {
                    cell_over_r: p.ratio,
                    query_ms: p.query_ms,
                    low_ms: p.query_range_ms.0,
                    high_ms: p.query_range_ms.1,
                    candidates_per_neighbor: p.candidates_per_neighbor,
                    rounds: p.query_rounds.len(),
                })
                .collect(),
        }
    }
}

/// The compare panel's rows, baseline and sweep curves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    rows: Vec<Measurement>,
    /// Which measurement made each row: rows of one group were measured in
    /// one plan, their rounds interleaved.
    groups: Vec<usize>,
    /// The next group's number.
    next_group: usize,
    /// Index of the baseline row (the first row until the user picks one).
    baseline: usize,
    curves: Vec<SweepCurve>,
    ws_curves: Vec<WsCurve>,
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

    /// The working-set sweep curves, oldest first.
    pub fn ws_curves(&self) -> &[WsCurve] {
        &self.ws_curves
    }

    /// True when there is neither a row nor a curve of either kind.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.curves.is_empty() && self.ws_curves.is_empty()
    }

    /// Keeps a working-set sweep's curve (after the others).
    pub fn add_ws_curve(&mut self, curve: WsCurve) {
        self.ws_curves.push(curve);
    }

    /// Removes working-set curve `i` (nothing when out of range).
    pub fn remove_ws_curve(&mut self, i: usize) {
        if i < self.ws_curves.len() {
            self.ws_curves.remove(i);
        }
    }

    /// Adds a row at the end, measured on its own (the first row becomes
    /// the baseline).
    pub fn add(&mut self, m: Measurement) {
        self.add_group(vec![m]);
    }

    /// Adds rows measured together in one plan (their rounds interleaved),
    /// at the end, in order.
    pub fn add_group(&mut self, ms: Vec<Measurement>) {
        let g = self.next_group;
        self.next_group += 1;
        for m in ms {
            self.rows.push(m);
            self.groups.push(g);
        }
    }

    /// Replaces every row by `ms`, measured again together (the panel's
    /// "measure all"): same order, same baseline; the rows' groups become one.
    pub fn replace_all(&mut self, ms: Vec<Measurement>) {
        let baseline = self.baseline;
        self.rows.clear();
        self.groups.clear();
        self.add_group(ms);
        self.baseline = baseline;
    }

    /// True when rows `i` and `j` were measured in one plan, their rounds
    /// interleaved.
    pub fn interleaved(&self, i: usize, j: usize) -> bool {
        matches!((self.groups.get(i), self.groups.get(j)), (Some(a), Some(b)) if a == b)
    }

    /// True when every row was measured in one plan.
    pub fn all_interleaved(&self) -> bool {
        self.groups.windows(2).all(|w| w[0] == w[1])
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
        if sw.points().is_empty() {
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
                self.add(m);
            }
        }
        self.curves.push(SweepCurve::of(sw, label));
    }

    /// Removes row `i` (nothing when out of range); the baseline stays on
    /// its row, or moves to the first row when it was removed.
    pub fn remove(&mut self, i: usize) {
        if i >= self.rows.len() {
            return;
        }
        self.rows.remove(i);
        self.groups.remove(i);
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
        self.groups.swap(i - 1, i);
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

    /// The verdict on row `i`'s whole step against the baseline's, from
    /// their rounds ([`judge`]); `None` without a baseline or rounds.
    pub fn verdict(&self, i: usize) -> Option<Judgement> {
        let b = self.rows.get(self.baseline()?)?;
        let r = self.rows.get(i)?;
        let totals =
            |m: &Measurement| -> Vec<f64> { m.rounds.iter().map(|x| x.median_ms.total).collect() };
        judge(&totals(r), &totals(b), false)
    }
    /// Row `i`'s step time as a fraction of the baseline's, split by phase
    /// (move, rebuild, query, apply): the stacked bar of the chart. The bar's
    /// height is the ratio of the median step times (the baseline's is
    /// exactly 1); its segments divide that height in the proportions of
    /// the phase medians, which need not add up to the step's median (a
    /// median of sums is not the sum of medians, and the step has work
    /// outside the four phases). Rows without phase times get one query
    /// segment of the whole height.
    pub fn normalized(&self, i: usize) -> Option<[f64; 4]> {
        let b = self.rows.get(self.baseline()?)?.ms.total.median;
        let r = self.rows.get(i)?;
        if b <= 0.0 {
            return None;
        }
        let height = r.ms.total.median / b;
        let phases = r.ms.phases().map(|p| p.median.max(0.0));
        let sum: f64 = phases.iter().sum();
        Some(if sum > 0.0 {
            phases.map(|p| p / sum * height)
        } else {
            [0.0, 0.0, height, 0.0]
        })
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
    /// [`Comparison::name`]s, a verdict from their rounds: "Grid: 58x
    /// faster (52–63x) than Naive", "AoS: within this machine's noise
    /// (0.91–1.20x the time) of SoA", "Grid: 58x, from 1 round: too
    /// few to tell from noise, against Naive", "Naive: baseline"; with
    /// "(measured apart)" when the two were not measured in one plan.
    pub fn describe(&self, i: usize) -> String {
        let (Some(_), Some(b)) = (self.rows.get(i), self.baseline()) else {
            return String::new();
        };
        let name = self.name(i);
        if i == b {
            return format!("{name}: baseline");
        }
        let (phrase, prep) = self.versus_parts(i);
        format!("{name}: {phrase} {prep} {}", self.name(b))
    }

    /// The verdict of row `i` against the baseline for a table cell: "58x
    /// faster (52–63x)", "baseline", "(measured apart)" added where the two
    /// were not measured in one plan.
    pub fn versus(&self, i: usize) -> String {
        if Some(i) == self.baseline() {
            return "baseline".to_string();
        }
        self.versus_parts(i).0
    }

    /// The verdict phrase and the word that leads to the baseline's name.
    fn versus_parts(&self, i: usize) -> (String, &'static str) {
        let apart = match self.baseline() {
            Some(b) if !self.interleaved(i, b) => " (measured apart)",
            _ => "",
        };
        match self.verdict(i) {
            Some(j) if j.basis == Basis::TooFewRounds => {
                let n = j.rounds_a.min(j.rounds_b);
                let n = crate::format::counted(n, "round");
                let x = super::verdict::ratio_text(1.0 / j.ratio);
                (
                    format!("{x}x, from {n}: too few to tell from noise{apart}"),
                    "against",
                )
            }
            Some(j) if j.verdict == super::verdict::Direction::WithinNoise => (
                format!(
                    "within this machine's noise{apart} ({} the time)",
                    super::verdict::range_text(j.low, j.high)
                ),
                "of",
            ),
            Some(j) => (format!("{}{apart}", j.phrase(Words::Time)), "than"),
            None => ("not comparable (no time measured)".to_string(), "with"),
        }
    }

    /// The rows with `bench`'s keys ([`Row`]), in the user's order.
    pub fn table(&self) -> Vec<Row> {
        self.rows
            .iter()
            .map(|m| Row::of(&super::Outcome::Measured(m.clone())))
            .collect()
    }
}

/// How many settings [`fields`] names.
const FIELDS: usize = 10;

/// The settings that tell rows apart, as they are named in the panel:
/// strategy, kernel ("no kernel" where the query runs none), layout, order,
/// pass, threads that ran, units, workload, radius, cell size (none for Naive).
fn fields(m: &Measurement) -> [Option<String>; FIELDS] {
    let s = &m.settings;
    [
        Some(s.strategy.name().to_string()),
        Some(if s.uses_kernel() {
            format!("{} kernel", s.kernel.name())
        } else {
            "no kernel".to_string()
        }),
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

/// Settling frames of a compare measurement, per round.
pub const MEASURE_SETTLE: usize = 2;
/// Counted frames of a compare measurement, per round.
pub const MEASURE_FRAMES: usize = 5;
/// Rounds of a compare measurement (of one row, or of every row together).
pub const MEASURE_ROUNDS: usize = 5;
/// Guards of a compare measurement: [`Guards::INTERACTIVE`].
pub const MEASURE_GUARDS: Guards = Guards::INTERACTIVE;

/// The plan of the compare panel's "measure": `settings` alone,
/// [`MEASURE_ROUNDS`] rounds of [`MEASURE_SETTLE`] then [`MEASURE_FRAMES`]
/// frames, [`MEASURE_GUARDS`].
pub fn measure_plan(settings: &Settings) -> Plan {
    measure_all_plan(std::slice::from_ref(settings))
}

/// The plan of the compare panel's "measure all": every row's settings, in
/// order, in [`MEASURE_ROUNDS`] interleaved rounds (A B C A B C ...), so
/// that the verdicts between rows rest on rounds that shared the machine's
/// drift; `bench`'s naive predictor skips a naive row whose frame would
/// take over a minute.
pub fn measure_all_plan(settings: &[Settings]) -> Plan {
    let variants = settings
        .iter()
        .map(|s| Variant::new(row_label(s, s.threads), s.clone()))
        .collect();
    let base = settings.first().cloned().unwrap_or_default();
    Plan::new(
        variants,
        Spec::new(MEASURE_SETTLE, MEASURE_FRAMES),
        MEASURE_GUARDS,
    )
    .with_predictor(crate::measure::predict::naive_predictor(
        base.seed,
        base.workload,
    ))
    .with_rounds(MEASURE_ROUNDS)
}

/// A row's label for a measurement of `s` on `threads` threads: strategy,
/// kernel where the query runs one, layout, order, pass, threads, units.
pub fn row_label(s: &Settings, threads: usize) -> String {
    let kernel = if s.uses_kernel() {
        format!(" {}", s.kernel.name())
    } else {
        String::new()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A measurement labeled `label` whose step's median is `ms`, all query,
    /// over 5 rounds within 1% of it.
    pub(crate) fn row(label: &str, ms: f64) -> Measurement {
        let rounds = [1.0, 1.01, 0.99, 1.005, 0.995]
            .map(|f| crate::measure::recorder::Round {
                median_ms: crate::measure::spread::PhaseMs {
                    query: ms * f,
                    total: ms * f,
                    ..Default::default()
                },
                candidates: 40,
                neighbors: 10,
            })
            .to_vec();
        let mut m = Measurement::from_rounds(label, Settings::default(), 3, rounds);
        m.settle = 1;
        m.threads = 1;
        m.cell_size = Some(10.0);
        m
    }

    /// A baseline row whose phase medians add up to 0.73 of its step's
    /// median is still drawn exactly 1 high, its phases in proportion.
    #[test]
    fn a_lone_baseline_bar_is_exactly_one_high() {
        let mut r = row("only", 10.0);
        r.ms.query.median = 5.0;
        r.ms.rebuild.median = 2.3;
        let mut c = Comparison::default();
        c.add(r);
        let bar = c.normalized(0).unwrap();
        assert!((bar.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{bar:?}");
        assert!((bar[2] / bar[1] - 5.0 / 2.3).abs() < 1e-9, "{bar:?}");
    }

    #[test]
    fn rows_are_compared_with_the_baseline_the_user_picks() {
        let mut c = Comparison::default();
        assert_eq!(c.baseline(), None);
        c.add_group(vec![
            row("Naive", 580.0),
            row("Grid", 10.0),
            row("SortedGrid", 5.0),
        ]);
        assert!(c.all_interleaved());
        assert_eq!(c.baseline(), Some(0), "the first row until one is picked");
        assert_eq!(c.describe(0), "Naive: baseline");
        assert_eq!(c.describe(1), "Grid: 58x faster (57–59x) than Naive");
        assert_eq!(c.speedup(2), Some(116.0));
        let bar = c.normalized(0).unwrap();
        assert!((bar.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let grid: f64 = c.normalized(1).unwrap().iter().sum();
        assert!((grid - 10.0 / 580.0).abs() < 1e-12);
        c.set_baseline(1);
        assert_eq!(c.describe(0), "Naive: 58x slower (57–59x) than Grid");
        assert_eq!(
            c.describe(2),
            "SortedGrid: 2.0x faster (1.96–2.04x) than Grid"
        );
        // A row measured on its own: its verdict says so.
        c.add(row("SortedGrid again", 5.2));
        assert!(!c.interleaved(3, 1));
        assert!(
            c.describe(3).contains("(measured apart) than"),
            "{}",
            c.describe(3)
        );
        // Overlapping rounds: no direction.
        let mut close = Comparison::default();
        close.add_group(vec![row("a", 2.0), row("b", 2.01)]);
        assert!(
            close
                .describe(1)
                .starts_with("b: within this machine's noise (0.9"),
            "{}",
            close.describe(1)
        );
        // One round: a ratio, not a verdict.
        let mut one = Comparison::default();
        let mut a = row("a", 2.0);
        a.rounds.truncate(1);
        let mut b = row("b", 1.0);
        b.rounds.truncate(1);
        one.add_group(vec![a, b]);
        assert_eq!(
            one.describe(1),
            "b: 2.0x, from 1 round: too few to tell from noise against a"
        );
        assert!((c.normalized(1).unwrap().iter().sum::<f64>() - 1.0).abs() < 1e-12);
        c.set_baseline(9);
        assert_eq!(c.baseline(), Some(1), "out of range: unchanged");
    }

    #[test]
    fn names_keep_only_the_settings_that_differ() {
        use crate::engine::sim::Layout;
        use crate::engine::spatial::Strategy;
        let mut c = Comparison::default();
        let mut naive = row("full label n", 580.0);
        naive.settings.strategy = Strategy::Naive;
        naive.cell_size = None;
        let mut grid = row("full label g", 10.0);
        grid.settings.strategy = Strategy::Grid;
        c.add_group(vec![naive, grid.clone()]);
        // The cell (Grid only) tells nothing apart; the kernel does (Naive
        // through SoA runs one, Grid none).
        assert_eq!(
            c.describe(1),
            "Grid / no kernel: 58x faster (57–59x) than Naive / AVX-512 kernel"
                .replace("AVX-512", Settings::default().kernel.name())
        );
        assert!(!c.common().contains("cell"), "{}", c.common());
        assert!(c.common().contains("1T / 10,000 units"), "{}", c.common());
        grid.settings.layout = Layout::Aos;
        grid.threads = 2;
        c.add(grid);
        assert_eq!(
            c.name(2),
            format!("Grid / no kernel / {} / 2T", Layout::Aos.name())
        );
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
        assert!(md.contains("| SoA | 2.000 (1.980-2.020) |"), "{md}");
        assert!(md.contains("3.000 (2.970-3.030) (busy)"), "{md}");
        assert!(
            md.contains(
                "\"(busy)\": that row's slowest counted frame took more than 1.5x its fastest"
            ),
            "{md}"
        );
        assert!(
            md.contains("| 1.5x slower (1.47–1.53x) (measured apart) |"),
            "{md}"
        );
        assert!(md.contains("| 5 x 3 |"), "rounds x frames: {md}");
        assert!(
            md.contains("\"Measure all\" measures every row again together")
                && md.contains("not measured in the baseline's interleaved rounds"),
            "{md}"
        );
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
        assert!(machine.contains(','), "{machine}");
        let quoted = format!("\"{}\"", machine.replace('"', "\"\""));
        assert!(lines[1].ends_with(&format!(",{quoted}")), "{}", lines[1]);
        let before_machine = &lines[1][..lines[1].len() - quoted.len() - 1];
        assert_eq!(before_machine.split(',').count() + 1, header);
        assert!(
            lines[1].contains(",5,3,3,2.000,1.980,2.020,"),
            "{}",
            lines[1]
        );
        let json: serde_json::Value = serde_json::from_str(&c.to_json().unwrap()).unwrap();
        let rows = json["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1]["max_ms"]["total"], 4.2);
        assert_eq!(rows[0]["candidates_per_neighbor"], 4.0);
        assert_eq!(rows[0]["strategy"], Settings::default().strategy.key());
    }
}
