//! The cell-size sweep: measures the query phase at the current unit count
//! and radius for a series of cell sizes (cell / r from 0.25 to 4 by default),
//! one cell size after another, while the simulation keeps stepping.
//!
//! [`CellSweep`] is a state machine with no clock and no simulation of its
//! own: the caller asks it for the cell size of the next step
//! ([`CellSweep::cell_size`]), steps the simulation with a copy of its
//! settings that uses that cell size, and hands back the step's
//! [`StepStats`] ([`CellSweep::record`]). The window does this once per step
//! (so the sweep runs while the units move and the picture stays live); a
//! test or a headless tool does it in a loop.
//!
//! Two guards keep every step bounded, in the window as anywhere:
//!
//! - cell sizes below [`min_cell_size`] (the grid's cell cap and the
//!   cell-visit budget) are never used: the largest one below it is measured
//!   at the minimum instead and the others are skipped, each with a
//!   [`SweepNote`];
//! - before a cell size is used, its step time is predicted from the measured
//!   cell size nearest to it (or the caller's baseline step,
//!   [`CellSweep::with_baseline`]); a cell size whose step would exceed the
//!   frame limit ([`CellSweep::with_frame_limit`]) is skipped with a note. The
//!   cell sizes are visited outward from the one nearest the current setting
//!   (down to the smallest, then up to the largest), so every prediction
//!   extrapolates by one step of the series, not across it.

use std::fmt;

use super::budget::{expected_cell_visits, min_cell_size, Budget, CellLimit};
use super::{Settings, StepStats};
use crate::format::length;
use crate::spatial::Strategy;

/// Cell sizes of the standard sweep.
pub const SWEEP_POINTS: usize = 13;
/// Counted frames per cell size in the window (after one warm-up frame).
pub const SWEEP_FRAMES_PER_POINT: usize = 8;
/// Longest step the sweep lets the window take by default, seconds.
pub const SWEEP_FRAME_LIMIT_S: f64 = 0.1;
/// Seconds per cell visit assumed when no step has been measured yet: the
/// slow end of [`super::budget::CELL_VISIT_BUDGET`]'s 2 to 15 ns.
const SECONDS_PER_VISIT: f64 = 15e-9;

/// The standard ratios cell size / r: `0.25 * 2^(k/3)` for `k = 0..=12`,
/// ascending from 0.25 to 4.0 (three per doubling, both ends exact).
pub fn standard_ratios() -> [f32; SWEEP_POINTS] {
    std::array::from_fn(|k| 0.25 * 2f32.powf(k as f32 / 3.0))
}

/// One measured cell size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    /// Cell edge the grid used, world units (the effective one of
    /// [`StepStats::grid`]; the asked one for a strategy without a grid).
    pub cell_size: f32,
    /// `cell_size / r`.
    pub ratio: f32,
    /// Median query-phase time of the counted frames, milliseconds.
    pub query_ms: f64,
    /// Candidates tested per neighbor found over the counted frames
    /// (`candidates / max(neighbors, 1)`); 1.0 would waste no test.
    pub candidates_per_neighbor: f64,
    /// Counted frames (the warm-up frame is not counted).
    pub frames: usize,
    /// True when the asked cell size was below the minimum and this point
    /// was measured at the minimum instead ([`SweepNote::Clamped`]).
    pub clamped: bool,
}

/// Why a cell size of the sweep was not measured as asked.
#[derive(Clone, Debug, PartialEq)]
pub enum SweepNote {
    /// Below the smallest cell the budgets allow: measured at the minimum.
    Clamped {
        /// Cell size asked for, world units.
        asked: f32,
        /// `asked / r`.
        ratio: f32,
        /// The minimum it was measured at, world units.
        used: f32,
        /// Which budget sets the minimum.
        limit: CellLimit,
    },
    /// Below the smallest cell the budgets allow, and the minimum is measured
    /// already (for another cell size): skipped.
    BelowMinimum {
        /// Cell size asked for, world units.
        asked: f32,
        /// `asked / r`.
        ratio: f32,
        /// The minimum, world units.
        min: f32,
        /// Which budget sets the minimum.
        limit: CellLimit,
    },
    /// A step at this cell size would exceed the frame limit: skipped.
    TooSlow {
        /// Cell size, world units.
        cell: f32,
        /// `cell / r`.
        ratio: f32,
        /// The predicted step time, or the measured one of its warm-up frame
        /// when `measured`, seconds.
        step_s: f64,
        /// True when the warm-up frame ran and took `step_s` (the prediction
        /// was too low); the cell size was then dropped after that one frame.
        measured: bool,
        /// The frame limit, seconds.
        limit_s: f64,
    },
    /// The sweep was stopped before its end ([`CellSweep::stop`]).
    Stopped {
        /// Why.
        why: String,
    },
}

impl fmt::Display for SweepNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let budget = |l: &CellLimit| match l {
            CellLimit::Cells => "grid cell cap",
            CellLimit::Visits => "cell-visit budget",
        };
        match self {
            SweepNote::Clamped {
                asked,
                ratio,
                used,
                limit,
            } => write!(
                f,
                "cell {} ({ratio:.2} r) is below the smallest cell allowed here ({}, {}): measured at {}",
                length(*asked),
                length(*used),
                budget(limit),
                length(*used)
            ),
            SweepNote::BelowMinimum {
                asked,
                ratio,
                min,
                limit,
            } => write!(
                f,
                "cell {} ({ratio:.2} r) is below the smallest cell allowed here ({}, {}): skipped",
                length(*asked),
                length(*min),
                budget(limit)
            ),
            SweepNote::TooSlow {
                cell,
                ratio,
                step_s,
                measured: false,
                limit_s,
            } => write!(
                f,
                "cell {} ({ratio:.2} r) skipped: a step would take about {:.0} ms (limit {:.0} ms)",
                length(*cell),
                step_s * 1e3,
                limit_s * 1e3
            ),
            SweepNote::TooSlow {
                cell,
                ratio,
                step_s,
                measured: true,
                limit_s,
            } => write!(
                f,
                "cell {} ({ratio:.2} r) dropped: its first step took {:.0} ms (limit {:.0} ms)",
                length(*cell),
                step_s * 1e3,
                limit_s * 1e3
            ),
            SweepNote::Stopped { why } => write!(f, "stopped: {why}"),
        }
    }
}

/// A cell size to measure.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Planned {
    /// Asked cell size, world units.
    asked: f32,
    /// Cell size to use (the minimum when `clamped`), world units.
    cell: f32,
    clamped: bool,
}

/// A measured step cost, the base of the predictions.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cost {
    /// Effective cell size, world units.
    cell: f32,
    /// The phases that do not depend on the cell size (move, apply), seconds.
    fixed_s: f64,
    /// Rebuild phase, seconds.
    rebuild_s: f64,
    /// Query phase, seconds.
    query_s: f64,
}

impl Cost {
    fn of(cell: f32, st: &StepStats) -> Self {
        Cost {
            cell,
            fixed_s: st.move_s + st.apply_s,
            rebuild_s: st.rebuild_s,
            query_s: st.query_s,
        }
    }

    fn step_s(&self) -> f64 {
        self.fixed_s + self.rebuild_s + self.query_s
    }
}

/// The sweep's state: what it will measure, what it measured, what it skipped.
#[derive(Clone, Debug)]
pub struct CellSweep {
    /// The settings it measures (all but the cell size).
    work: Settings,
    world: f32,
    min_cell: f32,
    min_limit: CellLimit,
    frames_per_point: usize,
    frame_limit_s: f64,
    /// Ascending by cell size.
    plan: Vec<Planned>,
    /// Indices into `plan`, in the order they are measured.
    order: Vec<usize>,
    /// Position in `order` of the cell size being measured.
    pos: usize,
    /// Frames recorded at the current cell size (0: the warm-up is next).
    frame: usize,
    stopped: bool,
    points: Vec<SweepPoint>,
    notes: Vec<SweepNote>,
    costs: Vec<Cost>,
    // Counted frames of the current cell size.
    query_s: Vec<f64>,
    rebuild_s: Vec<f64>,
    fixed_s: Vec<f64>,
    candidates: u64,
    neighbors: u64,
    used_cell: f32,
    /// Threads the last recorded frame ran on (0 before any).
    threads: usize,
}

impl CellSweep {
    /// A sweep of `settings`' work (units, workload, strategy, kernel,
    /// threads, radius) over the cell sizes `ratios[k] * settings.radius`,
    /// `frames_per_point` counted frames each (at least 1) after one warm-up
    /// frame, with the default frame limit [`SWEEP_FRAME_LIMIT_S`].
    ///
    /// Ratios are sorted and repeats dropped. Cell sizes below
    /// [`min_cell_size`]`(strategy, units, radius, budget)` are clamped to it
    /// or skipped ([`SweepNote`]). The first cell size measured is the one
    /// nearest `settings.cell_size`. Allocates the plan and room for every
    /// point and frame, so [`CellSweep::record`] allocates nothing except a
    /// note for a skipped cell size.
    ///
    /// # Panics
    /// If a ratio is not finite and positive, or the radius is not.
    pub fn new(
        settings: &Settings,
        ratios: &[f32],
        frames_per_point: usize,
        budget: &Budget,
    ) -> Self {
        let r = settings.radius;
        assert!(
            r.is_finite() && r > 0.0,
            "sweep radius must be finite and > 0, got {r}"
        );
        let mut ratios = ratios.to_vec();
        assert!(
            ratios.iter().all(|q| q.is_finite() && *q > 0.0),
            "sweep ratios must be finite and > 0: {ratios:?}"
        );
        ratios.sort_by(f32::total_cmp);
        ratios.dedup();
        let (min_cell, min_limit) = min_cell_size(
            settings.strategy,
            settings.units,
            settings.world_edge(),
            r,
            budget,
        );
        let asked: Vec<f32> = ratios.iter().map(|q| q * r).collect();
        let mut plan = Vec::with_capacity(asked.len());
        let mut notes = Vec::new();
        for (k, &a) in asked.iter().enumerate() {
            if a >= min_cell {
                plan.push(Planned {
                    asked: a,
                    cell: a,
                    clamped: false,
                });
                continue;
            }
            // Below the minimum: the largest such cell is measured at the
            // minimum, unless the next one is the minimum itself.
            let next_covers = asked.get(k + 1).is_some_and(|&n| n <= min_cell);
            if next_covers {
                notes.push(SweepNote::BelowMinimum {
                    asked: a,
                    ratio: a / r,
                    min: min_cell,
                    limit: min_limit,
                });
            } else {
                notes.push(SweepNote::Clamped {
                    asked: a,
                    ratio: a / r,
                    used: min_cell,
                    limit: min_limit,
                });
                plan.push(Planned {
                    asked: a,
                    cell: min_cell,
                    clamped: true,
                });
            }
        }
        // Outward from the cell nearest the current one: down, then up.
        let dist = |c: f32| (c / settings.cell_size).ln().abs();
        let start = (0..plan.len())
            .min_by(|&i, &j| dist(plan[i].cell).total_cmp(&dist(plan[j].cell)))
            .unwrap_or(0);
        let order: Vec<usize> = (0..=start)
            .rev()
            .chain(start + 1..plan.len())
            .filter(|&i| i < plan.len())
            .collect();
        let frames = frames_per_point.max(1);
        let mut sweep = CellSweep {
            work: settings.clone(),
            world: settings.world_edge(),
            min_cell,
            min_limit,
            frames_per_point: frames,
            frame_limit_s: SWEEP_FRAME_LIMIT_S,
            points: Vec::with_capacity(plan.len()),
            costs: Vec::with_capacity(plan.len() + 1),
            plan,
            order,
            pos: 0,
            frame: 0,
            stopped: false,
            notes,
            query_s: Vec::with_capacity(frames),
            rebuild_s: Vec::with_capacity(frames),
            fixed_s: Vec::with_capacity(frames),
            candidates: 0,
            neighbors: 0,
            used_cell: 0.0,
            threads: 0,
        };
        sweep.skip_slow();
        sweep
    }

    /// The standard sweep of `settings`' work: [`standard_ratios`],
    /// [`SWEEP_FRAMES_PER_POINT`] frames each. See [`CellSweep::new`].
    pub fn standard(settings: &Settings, budget: &Budget) -> Self {
        CellSweep::new(settings, &standard_ratios(), SWEEP_FRAMES_PER_POINT, budget)
    }

    /// Sets the longest step allowed, seconds (default
    /// [`SWEEP_FRAME_LIMIT_S`]), and skips the next cell size now if its
    /// predicted step exceeds it. Call before the first step.
    pub fn with_frame_limit(mut self, seconds: f64) -> Self {
        self.frame_limit_s = seconds;
        self.skip_slow();
        self
    }

    /// Adds a step measured before the sweep (the window's last one, at the
    /// user's cell size) as the base of the first prediction; ignored when it
    /// took no time (no step yet). Call before the first step.
    pub fn with_baseline(mut self, st: &StepStats) -> Self {
        if st.total_s() > 0.0 {
            let cell = st.grid.map_or(self.work.cell_size, |g| g.cell);
            self.costs.push(Cost::of(cell, st));
            self.skip_slow();
        }
        self
    }

    /// The cell size (world units) the next step must use; `None` when the
    /// sweep is done or stopped.
    pub fn cell_size(&self) -> Option<f32> {
        if self.stopped {
            return None;
        }
        self.order.get(self.pos).map(|&i| self.plan[i].cell)
    }

    /// True when every cell size is measured or skipped, or the sweep was stopped.
    pub fn is_done(&self) -> bool {
        self.cell_size().is_none()
    }

    /// Takes the stats of a step made with [`CellSweep::cell_size`]: the first
    /// frame at each cell size is a warm-up (not counted; dropped with a
    /// [`SweepNote::TooSlow`] when it exceeded the frame limit), the next
    /// `frames_per_point` are counted (`st.query_s`, `st.query`), then the
    /// point is added and the next cell size chosen. Ignored when done.
    /// Allocates only a note.
    pub fn record(&mut self, st: &StepStats) {
        let Some(cell) = self.cell_size() else {
            return;
        };
        self.threads = st.threads;
        let used = st.grid.map_or(cell, |g| g.cell);
        let cost = Cost::of(used, st);
        if self.frame == 0 {
            if cost.step_s() > self.frame_limit_s {
                self.notes.push(SweepNote::TooSlow {
                    cell,
                    ratio: cell / self.work.radius,
                    step_s: cost.step_s(),
                    measured: true,
                    limit_s: self.frame_limit_s,
                });
                self.costs.push(cost);
                self.advance();
                return;
            }
            self.frame = 1;
            return;
        }
        self.query_s.push(cost.query_s);
        self.rebuild_s.push(cost.rebuild_s);
        self.fixed_s.push(cost.fixed_s);
        self.candidates += st.query.candidates;
        self.neighbors += st.query.neighbors;
        self.used_cell = used;
        self.frame += 1;
        if self.frame <= self.frames_per_point {
            return;
        }
        let i = self.order[self.pos];
        let point = SweepPoint {
            cell_size: self.used_cell,
            ratio: self.used_cell / self.work.radius,
            query_ms: median(&mut self.query_s) * 1e3,
            candidates_per_neighbor: self.candidates as f64 / self.neighbors.max(1) as f64,
            frames: self.query_s.len(),
            clamped: self.plan[i].clamped,
        };
        let at = self
            .points
            .partition_point(|p| p.cell_size < point.cell_size);
        self.points.insert(at, point);
        self.costs.push(Cost {
            cell: self.used_cell,
            fixed_s: median(&mut self.fixed_s),
            rebuild_s: median(&mut self.rebuild_s),
            query_s: point.query_ms / 1e3,
        });
        self.advance();
    }

    /// Ends the sweep now, keeping the points measured so far, with a
    /// [`SweepNote::Stopped`] saying `why`. Allocates the note.
    pub fn stop(&mut self, why: impl Into<String>) {
        if !self.is_done() {
            self.notes.push(SweepNote::Stopped { why: why.into() });
        }
        self.stopped = true;
    }

    /// Fraction of the sweep's frames done, 0 to 1 (skipped cell sizes count
    /// as done; 1 when done or stopped).
    pub fn progress(&self) -> f32 {
        if self.is_done() {
            return 1.0;
        }
        let per = self.frames_per_point + 1;
        let total = self.plan.len() * per;
        let done = self.pos * per + self.frame;
        (done as f32 / total.max(1) as f32).min(1.0)
    }

    /// The measured points, ascending by cell size.
    pub fn points(&self) -> &[SweepPoint] {
        &self.points
    }

    /// The point with the fastest median query time, if any was measured.
    pub fn best(&self) -> Option<SweepPoint> {
        self.points
            .iter()
            .copied()
            .min_by(|a, b| a.query_ms.total_cmp(&b.query_ms))
    }

    /// Cell sizes clamped, skipped or dropped, and a stop, in the order they happened.
    pub fn notes(&self) -> &[SweepNote] {
        &self.notes
    }

    /// The settings the sweep measures (their `cell_size` is the one it
    /// started from; each step uses [`CellSweep::cell_size`] instead).
    pub fn work(&self) -> &Settings {
        &self.work
    }

    /// Threads the sweep's frames ran on: those of the last recorded frame
    /// (1 when the OS refused the count asked for), or the count asked for
    /// before any frame.
    pub fn threads(&self) -> usize {
        match self.threads {
            0 => self.work.threads.max(1),
            n => n,
        }
    }

    /// The query radius of the sweep, world units.
    pub fn radius(&self) -> f32 {
        self.work.radius
    }

    /// The smallest cell size the sweep may use, world units, and which budget sets it.
    pub fn min_cell(&self) -> (f32, CellLimit) {
        (self.min_cell, self.min_limit)
    }

    /// Cell sizes planned (measured or still to measure; not the ones
    /// skipped below the minimum).
    pub fn planned(&self) -> usize {
        self.plan.len()
    }

    /// The longest step allowed, seconds.
    pub fn frame_limit_s(&self) -> f64 {
        self.frame_limit_s
    }

    /// True when `s` asks for the work the sweep measures: [`Settings::same_work`]
    /// except the cell size (which the sweep sets itself).
    pub fn matches(&self, s: &Settings) -> bool {
        let s = Settings {
            cell_size: self.work.cell_size,
            ..s.clone()
        };
        self.work.same_work(&s)
    }

    /// Predicted step time at `cell`, seconds, from the measured cost
    /// nearest in cell size: move and apply as measured, the rebuild scaled
    /// by the growth of the cell count, the queries by the larger growth of
    /// the expected cell visits ([`expected_cell_visits`]) and candidates
    /// (the searched block, `(2r + cell)^2`); growths below 1 count as 1.
    /// Without any measurement: the expected visits at [`SECONDS_PER_VISIT`].
    fn predict_s(&self, cell: f32) -> f64 {
        let (st, units, r) = (self.work.strategy, self.work.units, self.work.radius);
        let dist = |c: &Cost| (c.cell / cell).ln().abs();
        let Some(base) = self.costs.iter().min_by(|a, b| dist(a).total_cmp(&dist(b))) else {
            return expected_cell_visits(st, units, self.world, r, cell) * SECONDS_PER_VISIT;
        };
        if st == Strategy::Naive {
            return base.step_s();
        }
        let growth = |new: f64, old: f64| if old > 0.0 { (new / old).max(1.0) } else { 1.0 };
        let l = self.world as f64;
        let side = |c: f32| (2.0 * r as f64 + c as f64).min(l).powi(2);
        let cells = |c: f32| (l / c as f64 + 1.0).powi(2);
        let visits = growth(
            expected_cell_visits(st, units, self.world, r, cell),
            expected_cell_visits(st, units, self.world, r, base.cell),
        );
        let candidates = growth(side(cell), side(base.cell));
        base.fixed_s
            + base.rebuild_s * growth(cells(cell), cells(base.cell))
            + base.query_s * visits.max(candidates)
    }

    /// Moves to the next cell size and skips the slow ones.
    fn advance(&mut self) {
        self.pos += 1;
        self.frame = 0;
        self.query_s.clear();
        self.rebuild_s.clear();
        self.fixed_s.clear();
        self.candidates = 0;
        self.neighbors = 0;
        self.skip_slow();
    }

    /// Skips cell sizes from the current one on while their predicted step
    /// exceeds the frame limit (only before their warm-up frame).
    fn skip_slow(&mut self) {
        if self.frame != 0 {
            return;
        }
        while let Some(cell) = self.cell_size() {
            let step_s = self.predict_s(cell);
            if step_s <= self.frame_limit_s {
                break;
            }
            self.notes.push(SweepNote::TooSlow {
                cell,
                ratio: cell / self.work.radius,
                step_s,
                measured: false,
                limit_s: self.frame_limit_s,
            });
            self.pos += 1;
        }
    }
}

/// Median of `v` (sorted in place); 0 when empty.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Reorder, Simulation};
    use crate::spatial::{GridGeometry, Kernel, QueryStats};

    const R: f32 = 10.0;

    fn settings(strategy: Strategy) -> Settings {
        Settings {
            units: 2_000,
            strategy,
            kernel: Kernel::Scalar,
            radius: R,
            cell_size: R,
            cell_follows_radius: false,
            speed: 1.0,
            separation: 0.0,
            reorder: Reorder::Cells,
            ..Settings::default()
        }
    }

    /// Steps a real simulation with the sweep's cell sizes until it is done,
    /// checking progress along the way; returns the steps taken.
    fn run(sweep: &mut CellSweep, sim: &mut Simulation, s: &Settings) -> usize {
        let mut steps = 0;
        let mut last = sweep.progress();
        while let Some(cell) = sweep.cell_size() {
            let st = sim.step(
                1.0 / 60.0,
                &Settings {
                    cell_size: cell,
                    ..s.clone()
                },
            );
            sweep.record(&st);
            let p = sweep.progress();
            assert!(p >= last && p <= 1.0, "progress {last} -> {p}");
            last = p;
            steps += 1;
            assert!(steps < 10_000, "the sweep never ends");
        }
        assert_eq!(sweep.progress(), 1.0);
        steps
    }

    /// A synthetic step: `query_s` and `step_s` seconds at `cell`.
    fn step(cell: f32, query_s: f64, step_s: f64, candidates: u64) -> StepStats {
        StepStats {
            query_s,
            rebuild_s: step_s - query_s,
            query: QueryStats {
                candidates,
                neighbors: 100,
            },
            grid: Some(GridGeometry {
                cell,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn standard_ratios_double_every_three_points_from_a_quarter_to_four() {
        let q = standard_ratios();
        assert_eq!(q.len(), 13);
        assert_eq!(q[0], 0.25);
        assert_eq!(q[12], 4.0);
        assert_eq!(q[6], 1.0);
        for w in q.windows(2) {
            let step = w[1] / w[0];
            assert!((step - 2f32.powf(1.0 / 3.0)).abs() < 1e-5, "{w:?}");
        }
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&mut []), 0.0);
        assert_eq!(median(&mut [3.0]), 3.0);
        assert_eq!(median(&mut [5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn sweep_of_a_real_simulation_measures_every_cell_size() {
        let s = settings(Strategy::Grid);
        let mut sim = Simulation::new(&s);
        sim.step(1.0 / 60.0, &s);
        let mut sweep = CellSweep::new(&s, &standard_ratios(), 3, &Budget::default())
            .with_frame_limit(f64::INFINITY);
        assert_eq!(sweep.progress(), 0.0);
        assert_eq!(sweep.cell_size(), Some(R), "starts at the current cell");
        let steps = run(&mut sweep, &mut sim, &s);
        assert_eq!(steps, 13 * 4, "one warm-up and 3 counted frames each");
        assert!(sweep.notes().is_empty(), "{:?}", sweep.notes());
        let pts = sweep.points();
        assert_eq!(pts.len(), 13);
        for (p, q) in pts.iter().zip(standard_ratios()) {
            assert_eq!(p.cell_size, q * R, "the grid used the swept cell");
            assert!((p.ratio - q).abs() < 1e-6, "{p:?}");
            assert_eq!(p.frames, 3);
            assert!(!p.clamped);
            assert!(p.query_ms > 0.0);
            assert!(p.candidates_per_neighbor >= 1.0, "{p:?}");
            // Expected for a uniform world: the block (2r + c)^2 over the disk pi r^2.
            let model = (2.0 + q as f64).powi(2) / std::f64::consts::PI;
            let rel = p.candidates_per_neighbor / model;
            assert!((0.75..1.3).contains(&rel), "{p:?} vs {model}");
        }
        for w in pts.windows(2) {
            assert!(w[0].cell_size < w[1].cell_size, "ascending: {w:?}");
            assert!(
                w[1].candidates_per_neighbor > w[0].candidates_per_neighbor,
                "larger cells test more candidates per neighbor: {w:?}"
            );
        }
        assert!(pts[12].candidates_per_neighbor > 3.0 * pts[0].candidates_per_neighbor);
        let best = sweep.best().unwrap();
        assert!(pts.contains(&best));
        assert!(pts.iter().all(|p| p.query_ms >= best.query_ms));
        // Done: no more cells, records are ignored.
        assert_eq!(sweep.cell_size(), None);
        sweep.record(&sim.step(1.0 / 60.0, &s));
        assert_eq!(sweep.points().len(), 13);
    }

    #[test]
    fn warm_up_frames_are_not_counted_and_the_median_is_taken() {
        let s = settings(Strategy::Grid);
        let mut sweep = CellSweep::new(&s, &[1.0, 2.0], 3, &Budget::default());
        assert_eq!(sweep.cell_size(), Some(10.0));
        // Warm-up: slow and with many candidates, neither counted.
        sweep.record(&step(10.0, 0.050, 0.060, 1_000_000));
        assert!((sweep.progress() - 0.125).abs() < 1e-6);
        for (q, c) in [(0.002, 300), (0.009, 300), (0.001, 300)] {
            sweep.record(&step(10.0, q, q + 0.001, c));
        }
        assert_eq!(sweep.points().len(), 1);
        let p = sweep.points()[0];
        assert!((p.query_ms - 2.0).abs() < 1e-9, "{p:?}");
        assert_eq!(p.candidates_per_neighbor, 3.0);
        assert_eq!(sweep.progress(), 0.5);
        assert_eq!(sweep.cell_size(), Some(20.0));
        for q in [0.004, 0.001, 0.001, 0.001] {
            sweep.record(&step(20.0, q, q + 0.001, 500));
        }
        assert!(sweep.is_done());
        assert_eq!(sweep.best().unwrap().cell_size, 20.0);
        assert_eq!(sweep.points()[1].candidates_per_neighbor, 5.0);
    }

    #[test]
    fn cells_below_the_budget_minimum_are_clamped_once_and_skipped() {
        // 40,000 visits at 2,000 units: 20 per query, so the Grid minimum is
        // 2r / (sqrt(20) - 1) = 5.76: 0.25 r to 0.4 r are skipped, 0.5 r is
        // measured at the minimum.
        let s = settings(Strategy::Grid);
        let budget = Budget {
            cell_visits: 40_000.0,
            ..Budget::default()
        };
        let (min, limit) = min_cell_size(
            Strategy::Grid,
            2_000,
            super::super::budget::world_for(2_000),
            R,
            &budget,
        );
        assert_eq!(limit, CellLimit::Visits);
        assert!((min - 5.7601).abs() < 1e-3, "{min}");
        let mut sim = Simulation::new(&s);
        let mut sweep =
            CellSweep::new(&s, &standard_ratios(), 1, &budget).with_frame_limit(f64::INFINITY);
        assert_eq!(sweep.planned(), 10);
        run(&mut sweep, &mut sim, &s);
        let pts = sweep.points();
        assert_eq!(pts.len(), 10);
        assert_eq!(pts[0].cell_size, min);
        assert!(pts[0].clamped);
        assert!(pts.iter().all(|p| p.cell_size >= min));
        let skipped = sweep
            .notes()
            .iter()
            .filter(|n| matches!(n, SweepNote::BelowMinimum { .. }))
            .count();
        let clamped: Vec<_> = sweep
            .notes()
            .iter()
            .filter(|n| matches!(n, SweepNote::Clamped { .. }))
            .collect();
        assert_eq!((skipped, clamped.len()), (3, 1), "{:?}", sweep.notes());
        let msg = clamped[0].to_string();
        assert!(msg.contains("5.00") && msg.contains("5.76"), "{msg}");
        // A minimum that is itself a swept cell is measured once, unclamped.
        let budget = Budget {
            cell_visits: 50_000.0,
            ..Budget::default()
        };
        let sweep = CellSweep::new(&s, &standard_ratios(), 1, &budget);
        assert_eq!(sweep.min_cell().0, 5.0);
        assert_eq!(sweep.planned(), 10);
        assert_eq!(sweep.notes().len(), 3);
    }

    #[test]
    fn steps_predicted_over_the_limit_are_skipped() {
        // Query time proportional to the expected cell visits, 20 ms at the
        // baseline cell r: going down, 0.4 r takes 81 ms, so 0.31 r (about
        // 120 ms) and 0.25 r (180 ms) are skipped, predicted from 0.4 r.
        let s = settings(Strategy::Grid);
        let visits = |c: f32| {
            expected_cell_visits(
                Strategy::Grid,
                2_000,
                super::super::budget::world_for(2_000),
                R,
                c,
            )
        };
        let t = |c: f32| 0.020 * visits(c) / visits(R);
        let mut sweep = CellSweep::new(&s, &standard_ratios(), 1, &Budget::default())
            .with_baseline(&step(R, t(R), t(R), 0));
        assert_eq!(sweep.frame_limit_s(), 0.1);
        let small = 0.25 * 2f32.powf(1.0 / 3.0) * R;
        assert!((sweep.predict_s(small) - 0.12).abs() < 0.002);
        while let Some(c) = sweep.cell_size() {
            assert!(
                t(c) < 0.1,
                "cell {c} is too slow and should have been skipped"
            );
            sweep.record(&step(c, t(c), t(c), 1_000));
        }
        let slow: Vec<f32> = sweep
            .notes()
            .iter()
            .map(|n| match n {
                SweepNote::TooSlow {
                    cell,
                    measured: false,
                    ..
                } => *cell,
                other => panic!("unexpected note {other:?}"),
            })
            .collect();
        assert_eq!(slow, [small, 0.25 * R]);
        assert_eq!(sweep.points().len(), 11);
        assert!(sweep.notes()[1].to_string().contains("180 ms"));
    }

    #[test]
    fn a_warm_up_over_the_limit_drops_its_cell_and_everything_can_be_skipped() {
        let s = settings(Strategy::SortedGrid);
        let mut sweep = CellSweep::new(&s, &[1.0, 2.0], 2, &Budget::default());
        sweep.record(&step(10.0, 0.3, 0.4, 10));
        assert_eq!(sweep.points().len(), 0);
        // The next one is predicted from that frame: too slow as well.
        assert!(sweep.is_done());
        assert!(
            matches!(
                sweep.notes(),
                [
                    SweepNote::TooSlow { measured: true, .. },
                    SweepNote::TooSlow {
                        measured: false,
                        ..
                    }
                ]
            ),
            "{:?}",
            sweep.notes()
        );
        assert!(sweep.notes()[0]
            .to_string()
            .contains("first step took 400 ms"));
        assert_eq!(sweep.best(), None);

        // A real step as the baseline and a limit nothing meets: done at once.
        let mut sim = Simulation::new(&s);
        let base = sim.step(1.0 / 60.0, &s);
        let sweep = CellSweep::standard(&s, &Budget::default())
            .with_baseline(&base)
            .with_frame_limit(0.0);
        assert!(sweep.is_done());
        assert_eq!(sweep.progress(), 1.0);
        assert_eq!(sweep.notes().len(), 13);
    }

    #[test]
    fn stop_keeps_the_points_and_matches_ignores_the_cell_size() {
        let s = settings(Strategy::Grid);
        let mut sim = Simulation::new(&s);
        let mut sweep = CellSweep::new(&s, &standard_ratios(), 1, &Budget::default())
            .with_frame_limit(f64::INFINITY);
        for _ in 0..4 {
            let c = sweep.cell_size().unwrap();
            let st = sim.step(
                1.0 / 60.0,
                &Settings {
                    cell_size: c,
                    ..s.clone()
                },
            );
            sweep.record(&st);
        }
        assert_eq!(sweep.points().len(), 2);
        assert!(sweep.matches(&Settings {
            cell_size: 3.0,
            cell_follows_radius: true,
            ..s.clone()
        }));
        assert!(!sweep.matches(&Settings {
            radius: 11.0,
            ..s.clone()
        }));
        sweep.stop("the radius changed");
        assert!(sweep.is_done());
        assert_eq!(sweep.progress(), 1.0);
        assert_eq!(sweep.points().len(), 2);
        assert_eq!(
            sweep.notes().last().unwrap().to_string(),
            "stopped: the radius changed"
        );
    }
}
