//! The cell-size sweep: measures the query phase at the current unit count
//! and radius for a series of cell sizes (cell / r from 0.25 to 4 by default),
//! one cell size after another, while the simulation keeps stepping.
//!
//! A [`CellSweep`] is a [`Plan`] (one variant per cell size) with what is
//! particular to cell sizes around it: the caller asks it for the cell size
//! of the next step ([`CellSweep::cell_size`]), steps the simulation with a
//! copy of its settings that uses that cell size, and hands back the step
//! ([`CellSweep::record`]). The window does this once per step (so the
//! sweep runs while the units move and the picture stays live, with frames
//! spread over refreshes or run on a worker thread where they are long); a
//! test or a headless tool does it in a loop.
//!
//! Guards keep every step bounded, in the window as anywhere:
//!
//! - cell sizes below [`min_cell_size`] (the grid's cell cap and the
//!   cell-visit budget) are never used: the largest one below it is measured
//!   at the minimum instead and the others are skipped, each with a
//!   [`SweepNote`];
//! - before a cell size is used, its step time is predicted from the measured
//!   cell size nearest to it (or the caller's baseline step,
//!   [`CellSweep::with_baseline`]); a cell size whose step would exceed the
//!   skip limit is skipped with a note, and one above the slow limit is
//!   measured over [`SWEEP_SLOW_FRAMES`] frames with a note
//!   ([`CellSweep::with_limits`]). The cell sizes are visited outward from
//!   the one nearest the current setting (down to the smallest, then up to
//!   the largest), so every prediction extrapolates by one step of the
//!   series, not across it.

use std::fmt;
use std::sync::Arc;

use super::plan::{Estimate, Guards, Outcome, Plan, Variant};
use super::recorder::{FrameRecord, Measurement, Spec};
use crate::engine::sim::{Settings, StepStats};
use crate::engine::spatial::Strategy;
use crate::format::length;
use crate::measure::memory::WorkingSet;
use crate::settings::budget::{expected_cell_visits, min_cell_size, Budget, CellLimit};

/// Cell sizes of the standard sweep.
pub const SWEEP_POINTS: usize = 13;
/// Counted frames per cell size and round in the window (after one
/// settling frame).
pub const SWEEP_FRAMES_PER_POINT: usize = 4;
/// Rounds of the window's sweep: every cell size once per round, in turn,
/// so the fastest cells come with the rounds' spread.
pub const SWEEP_ROUNDS: usize = 3;
/// Counted frames of a cell size whose step is slow ([`CellSweep::with_limits`]).
pub const SWEEP_SLOW_FRAMES: usize = 3;
/// Longest step the sweep takes by default, seconds: longer ones are
/// skipped. The window spreads a slow Grid frame's queries over refreshes
/// and runs slow steps of many units on a worker thread, so a step this
/// long does not freeze it.
pub const SWEEP_SKIP_ABOVE_S: f64 = 1.0;
/// Steps longer than this (seconds) are measured over [`SWEEP_SLOW_FRAMES`].
pub const SWEEP_SLOW_ABOVE_S: f64 = 0.15;
/// Seconds per cell visit assumed when no step has been measured yet: the
/// slow end of [`crate::settings::budget::CELL_VISIT_BUDGET`]'s 2 to 15 ns.
const SECONDS_PER_VISIT: f64 = 15e-9;

/// The standard ratios cell size / r: `0.25 * 2^(k/3)` for `k = 0..=12`,
/// ascending from 0.25 to 4.0 (three per doubling, both ends exact).
pub fn standard_ratios() -> [f32; SWEEP_POINTS] {
    std::array::from_fn(|k| 0.25 * 2f32.powf(k as f32 / 3.0))
}

/// One measured cell size.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    /// Cell edge the grid used, world units (the effective one of
    /// [`StepStats::grid`]; the asked one for a strategy without a grid).
    pub cell_size: f32,
    /// `cell_size / r`.
    pub ratio: f32,
    /// Median query-phase time, milliseconds: the median of the round
    /// medians (of the counted frames with one round).
    pub query_ms: f64,
    /// The range around it, milliseconds: the smallest and largest round
    /// median with two rounds or more, else the fastest and slowest frame.
    pub query_range_ms: (f64, f64),
    /// Each round's median query time, milliseconds, in the order measured.
    pub query_rounds: Vec<f64>,
    /// Candidates tested per neighbor found in the last counted frame
    /// (`candidates / max(neighbors, 1)`); 1.0 would waste no test.
    pub candidates_per_neighbor: f64,
    /// Counted frames (the settling frame is not counted).
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
        /// The predicted step time, or the measured one of its first frame
        /// when `measured`, seconds.
        step_s: f64,
        /// True when the first frame ran and took `step_s` (the prediction
        /// was too low); the cell size was then dropped after that one frame.
        measured: bool,
        /// The frame limit, seconds.
        limit_s: f64,
    },
    /// Measured over fewer frames than the others: its step was slow.
    Shortened {
        /// Cell size, world units.
        cell: f32,
        /// `cell / r`.
        ratio: f32,
        /// The measurement's note (frames, and the time that was too long).
        why: String,
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
            SweepNote::Shortened { cell, ratio, why } => {
                write!(f, "cell {} ({ratio:.2} r) {why}", length(*cell))
            }
            SweepNote::Stopped { why } => write!(f, "stopped: {why}"),
        }
    }
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
    fn of_step(cell: f32, st: &StepStats) -> Self {
        Cost {
            cell,
            fixed_s: st.move_s + st.apply_s,
            rebuild_s: st.rebuild_s,
            query_s: st.query_s,
        }
    }

    fn of_measurement(m: &Measurement) -> Self {
        Cost {
            cell: m.cell_size.unwrap_or(m.settings.cell_size),
            fixed_s: (m.ms.move_.median + m.ms.apply.median) * 1e-3,
            rebuild_s: m.ms.rebuild.median * 1e-3,
            query_s: m.ms.query.median * 1e-3,
        }
    }

    fn step_s(&self) -> f64 {
        self.fixed_s + self.rebuild_s + self.query_s
    }
}

/// The work a sweep predicts for: strategy, units, world edge, radius.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Model {
    strategy: Strategy,
    units: usize,
    world: f32,
    r: f32,
}

impl Model {
    /// Predicted step time at `cell`, seconds, from the cost of `costs`
    /// nearest in cell size: move and apply as measured, the rebuild scaled
    /// by the growth of the cell count, the queries by the larger growth of
    /// the expected cell visits ([`expected_cell_visits`]) and candidates
    /// (the searched block, `(2r + cell)^2`); growths below 1 count as 1.
    /// Without any cost: the expected visits at [`SECONDS_PER_VISIT`].
    fn predict_s(&self, cell: f32, costs: &[Cost]) -> f64 {
        let Model {
            strategy: st,
            units,
            world,
            r,
        } = *self;
        let dist = |c: &Cost| (c.cell / cell).ln().abs();
        let Some(base) = costs.iter().min_by(|a, b| dist(a).total_cmp(&dist(b))) else {
            return expected_cell_visits(st, units, world, r, cell) * SECONDS_PER_VISIT;
        };
        if st == Strategy::Naive {
            return base.step_s();
        }
        let growth = |new: f64, old: f64| if old > 0.0 { (new / old).max(1.0) } else { 1.0 };
        let l = world as f64;
        let side = |c: f32| (2.0 * r as f64 + c as f64).min(l).powi(2);
        let cells = |c: f32| (l / c as f64 + 1.0).powi(2);
        let visits = growth(
            expected_cell_visits(st, units, world, r, cell),
            expected_cell_visits(st, units, world, r, base.cell),
        );
        let candidates = growth(side(cell), side(base.cell));
        base.fixed_s
            + base.rebuild_s * growth(cells(cell), cells(base.cell))
            + base.query_s * visits.max(candidates)
    }

    /// The costs known from a plan's outcomes: each measurement's medians,
    /// and each first frame that was dropped as too slow (all of its time
    /// counted as queries), after `baseline`.
    fn costs(baseline: Option<Cost>, outcomes: &[Outcome]) -> Vec<Cost> {
        let dropped = outcomes.iter().filter_map(|o| match o {
            Outcome::Skipped(s) => s
                .estimate
                .as_ref()
                .filter(|e| e.how == "measured")
                .map(|e| Cost {
                    cell: s.settings.cell_size,
                    fixed_s: 0.0,
                    rebuild_s: 0.0,
                    query_s: e.seconds,
                }),
            Outcome::Measured(_) => None,
        });
        baseline
            .into_iter()
            .chain(
                outcomes
                    .iter()
                    .filter_map(Outcome::measured)
                    .map(Cost::of_measurement),
            )
            .chain(dropped)
            .collect()
    }
}

/// `ratios` sorted ascending without repeats.
///
/// # Panics
/// If a ratio is not finite and positive.
fn sorted_ratios(ratios: &[f32]) -> Vec<f32> {
    let mut ratios = ratios.to_vec();
    assert!(
        ratios.iter().all(|q| q.is_finite() && *q > 0.0),
        "sweep ratios must be finite and > 0: {ratios:?}"
    );
    ratios.sort_by(f32::total_cmp);
    ratios.dedup();
    ratios
}

/// The cell sizes a sweep measures once those below the minimum are
/// clamped to it or skipped.
struct Clamping {
    /// Cell sizes to use (world units), ascending.
    cells: Vec<f32>,
    /// One note per asked cell size below the minimum.
    notes: Vec<SweepNote>,
    /// The minimum once for each asked cell size measured at it.
    clamped: Vec<f32>,
}

/// Clamps the ascending cell sizes `asked` (world units, `r` the radius)
/// to `min_cell`: of those below it, the largest is measured at the
/// minimum, unless the next one is the minimum itself; the rest are skipped.
fn clamp_to_minimum(asked: &[f32], r: f32, min_cell: f32, min_limit: CellLimit) -> Clamping {
    let mut cells = Vec::with_capacity(asked.len());
    let mut notes = Vec::new();
    let mut clamped = Vec::new();
    for (k, &a) in asked.iter().enumerate() {
        if a >= min_cell {
            cells.push(a);
            continue;
        }
        if asked.get(k + 1).is_some_and(|&n| n <= min_cell) {
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
            clamped.push(min_cell);
            cells.push(min_cell);
        }
    }
    Clamping {
        cells,
        notes,
        clamped,
    }
}

/// One variant of `settings` per cell size of the ascending `cells`, in
/// visiting order: outward from the cell nearest `settings.cell_size`,
/// down, then up.
fn variants_outward(settings: &Settings, cells: &[f32]) -> Vec<Variant> {
    let r = settings.radius;
    let dist = |c: f32| (c / settings.cell_size).ln().abs();
    let start = (0..cells.len())
        .min_by(|&i, &j| dist(cells[i]).total_cmp(&dist(cells[j])))
        .unwrap_or(0);
    (0..=start)
        .rev()
        .chain(start + 1..cells.len())
        .filter_map(|i| cells.get(i))
        .map(|&cell| {
            Variant::new(
                format!("cell {} ({:.2} r)", length(cell), cell / r),
                Settings {
                    cell_size: cell,
                    cell_follows_radius: false,
                    ..settings.clone()
                },
            )
        })
        .collect()
}

/// The sweep's state: what it will measure, what it measured, what it skipped.
#[derive(Clone, Debug)]
pub struct CellSweep {
    /// The settings it measures (all but the cell size).
    work: Settings,
    min_cell: f32,
    min_limit: CellLimit,
    /// The notes of the cell sizes below the minimum.
    clamp_notes: Vec<SweepNote>,
    /// Cell sizes (asked, world units) that are measured at the minimum.
    clamped: Vec<f32>,
    model: Model,
    baseline: Option<Cost>,
    plan: Plan,
    /// The plan's outcomes turned into points (ascending by cell size) and
    /// notes, after each recorded step.
    points: Vec<SweepPoint>,
    notes: Vec<SweepNote>,
    /// Threads the last recorded frame ran on (0 before any).
    threads: usize,
}

impl CellSweep {
    /// A sweep of `settings`' work (units, workload, strategy, kernel,
    /// threads, radius) over the cell sizes `ratios[k] * settings.radius`,
    /// `frames_per_point` counted frames each (at least 1) after one
    /// settling frame, with the default limits [`SWEEP_SKIP_ABOVE_S`] and
    /// [`SWEEP_SLOW_ABOVE_S`].
    ///
    /// Ratios are sorted and repeats dropped. Cell sizes below
    /// [`min_cell_size`]`(strategy, units, radius, budget)` are clamped to it
    /// or skipped ([`SweepNote`]). The first cell size measured is the one
    /// nearest `settings.cell_size`. Allocates the plan and room for every
    /// point and frame.
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
        let ratios = sorted_ratios(ratios);
        let world = settings.world_edge();
        let (min_cell, min_limit) =
            min_cell_size(settings.strategy, settings.units, world, r, budget);
        let asked: Vec<f32> = ratios.iter().map(|q| q * r).collect();
        let Clamping {
            cells,
            notes: clamp_notes,
            clamped,
        } = clamp_to_minimum(&asked, r, min_cell, min_limit);
        let variants = variants_outward(settings, &cells);
        let model = Model {
            strategy: settings.strategy,
            units: settings.units,
            world,
            r,
        };
        let mut sweep = CellSweep {
            work: settings.clone(),
            min_cell,
            min_limit,
            notes: clamp_notes.clone(),
            clamp_notes,
            clamped,
            model,
            baseline: None,
            plan: Plan::new(
                variants,
                Spec::new(1, frames_per_point),
                Guards {
                    skip_above_s: SWEEP_SKIP_ABOVE_S,
                    fewer_above_s: SWEEP_SLOW_ABOVE_S,
                    fewer_frames: SWEEP_SLOW_FRAMES,
                },
            ),
            points: Vec::with_capacity(cells.len()),
            threads: 0,
        };
        sweep.rebuild_plan(sweep.plan.guards());
        sweep
    }

    /// The standard sweep of `settings`' work: [`standard_ratios`],
    /// [`SWEEP_FRAMES_PER_POINT`] frames each in [`SWEEP_ROUNDS`] rounds.
    /// See [`CellSweep::new`].
    pub fn standard(settings: &Settings, budget: &Budget) -> Self {
        CellSweep::new(settings, &standard_ratios(), SWEEP_FRAMES_PER_POINT, budget)
            .with_rounds(SWEEP_ROUNDS)
    }

    /// Measures every cell size in `rounds` rounds (at least 1), visiting
    /// the cell sizes in turn each round ([`Plan::with_rounds`]); the guards
    /// act in the first. Call before the first step.
    pub fn with_rounds(mut self, rounds: usize) -> Self {
        self.plan = self.plan.with_rounds(rounds);
        self
    }

    /// The rounds it measures.
    pub fn rounds(&self) -> usize {
        self.plan.rounds()
    }

    /// The round being measured (0-based; `rounds()` when done).
    pub fn round(&self) -> usize {
        self.plan.round()
    }

    /// The settings of the next step (its cell size the sweep's); `None`
    /// when done.
    pub fn current(&self) -> Option<&Settings> {
        self.plan.current()
    }

    /// A number that changes with every visit of a cell size ([`Plan::visit`]);
    /// `None` when done.
    pub fn visit(&self) -> Option<usize> {
        self.plan.visit()
    }

    /// Counted frames per cell size and round (before the guards).
    pub fn frames_per_point(&self) -> usize {
        self.plan.spec().frames
    }

    /// Sets the longest step allowed (`skip_above_s`: longer ones are
    /// skipped) and the step time above which a cell size is measured over
    /// [`SWEEP_SLOW_FRAMES`] frames (`slow_above_s`), seconds, and applies
    /// them to the next cell size now. Call before the first step.
    pub fn with_limits(mut self, skip_above_s: f64, slow_above_s: f64) -> Self {
        let g = Guards {
            skip_above_s,
            fewer_above_s: slow_above_s,
            fewer_frames: SWEEP_SLOW_FRAMES,
        };
        self.rebuild_plan(g);
        self
    }

    /// [`CellSweep::with_limits`] with `seconds` as the skip limit and no
    /// cell size measured over fewer frames.
    pub fn with_frame_limit(self, seconds: f64) -> Self {
        self.with_limits(seconds, f64::INFINITY)
    }

    /// Adds a step measured before the sweep (the window's last one, at the
    /// user's cell size) as the base of the first prediction; ignored when it
    /// took no time (no step yet). Call before the first step.
    pub fn with_baseline(mut self, st: &StepStats) -> Self {
        if st.total_s() > 0.0 {
            let cell = st.grid.map_or(self.work.cell_size, |g| g.cell);
            self.baseline = Some(Cost::of_step(cell, st));
            self.rebuild_plan(self.plan.guards());
        }
        self
    }

    /// The plan with `guards` and the predictor of the current baseline,
    /// from the start (nothing recorded yet).
    fn rebuild_plan(&mut self, guards: Guards) {
        let (model, baseline) = (self.model, self.baseline);
        let predictor = Arc::new(move |s: &Settings, outcomes: &[Outcome]| {
            let costs = Model::costs(baseline, outcomes);
            let seconds = model.predict_s(s.cell_size, &costs);
            let how = if costs.is_empty() {
                "from the expected cell visits"
            } else {
                "from the nearest measured cell size"
            };
            Some(Estimate {
                seconds,
                how: how.to_string(),
            })
        });
        self.plan = Plan::new(self.plan.variants().to_vec(), self.plan.spec(), guards)
            .with_predictor(predictor)
            .with_rounds(self.plan.rounds());
        self.sync();
    }

    /// The cell size (world units) the next step must use; `None` when the
    /// sweep is done or stopped.
    pub fn cell_size(&self) -> Option<f32> {
        self.plan.current().map(|s| s.cell_size)
    }

    /// True when every cell size is measured or skipped, or the sweep was stopped.
    pub fn is_done(&self) -> bool {
        self.plan.is_done()
    }

    /// Takes a step made with [`CellSweep::cell_size`] (`frame`; the
    /// simulation's working set is taken with `working_set` after a cell
    /// size's last frame): the first frame at each cell size settles (not
    /// counted; the cell size is dropped with a [`SweepNote::TooSlow`] when
    /// it exceeded the skip limit, or measured over fewer frames above the
    /// slow limit), the next ones are counted, then the point is added and
    /// the next cell size chosen. Ignored when done.
    pub fn record(&mut self, frame: FrameRecord<'_>, working_set: impl FnOnce() -> WorkingSet) {
        if self.is_done() {
            return;
        }
        self.threads = frame.step.threads;
        self.plan.record(frame, working_set);
        self.sync();
    }

    /// [`CellSweep::record`] of a bare step (tests, tools that count nothing
    /// else): no result bytes, no allocations, no working set.
    pub fn record_step(&mut self, st: &StepStats) {
        let frame = FrameRecord {
            step: st,
            units: self.work.units,
            result_bytes: 0,
            allocations: None,
            worker: false,
        };
        self.record(frame, WorkingSet::default);
    }

    /// Points and notes from the plan's outcomes.
    fn sync(&mut self) {
        let r = self.work.radius;
        self.points.clear();
        self.notes.clone_from(&self.clamp_notes);
        for o in self.plan.outcomes() {
            match o {
                Outcome::Measured(m) => {
                    let cell = m.cell_size.unwrap_or(m.settings.cell_size);
                    let p = SweepPoint {
                        cell_size: cell,
                        ratio: cell / r,
                        query_ms: m.ms.query.median,
                        query_range_ms: (m.shown().query.min, m.shown().query.max),
                        query_rounds: m.rounds.iter().map(|r| r.median_ms.query).collect(),
                        candidates_per_neighbor: m.candidates_per_neighbor(),
                        frames: m.frames,
                        clamped: self.clamped.contains(&m.settings.cell_size),
                    };
                    let at = self.points.partition_point(|q| q.cell_size < p.cell_size);
                    self.points.insert(at, p);
                    if let Some(why) = &m.note {
                        self.notes.push(SweepNote::Shortened {
                            cell,
                            ratio: cell / r,
                            why: why.clone(),
                        });
                    }
                }
                Outcome::Skipped(s) => {
                    let cell = s.settings.cell_size;
                    let e = s.estimate.clone().unwrap_or(Estimate {
                        seconds: f64::NAN,
                        how: String::new(),
                    });
                    self.notes.push(SweepNote::TooSlow {
                        cell,
                        ratio: cell / r,
                        step_s: e.seconds,
                        measured: e.how == "measured",
                        limit_s: self.plan.guards().skip_above_s,
                    });
                }
            }
        }
        if let Some(why) = self.plan.stopped() {
            self.notes.push(SweepNote::Stopped {
                why: why.to_string(),
            });
        }
    }

    /// Ends the sweep now, keeping the points measured so far, with a
    /// [`SweepNote::Stopped`] saying `why`. Allocates the note.
    pub fn stop(&mut self, why: impl Into<String>) {
        self.plan.stop(why);
        self.sync();
    }

    /// Why the sweep was stopped before its end ([`CellSweep::stop`]), if
    /// it was: then some cell sizes have fewer rounds or none, and no
    /// fastest cell size should be named from it.
    pub fn stopped(&self) -> Option<&str> {
        self.plan.stopped()
    }

    /// Fraction of the sweep's frames done, 0 to 1 (skipped cell sizes count
    /// as done; 1 when done or stopped).
    pub fn progress(&self) -> f32 {
        self.plan.progress() as f32
    }

    /// The measured points, ascending by cell size.
    pub fn points(&self) -> &[SweepPoint] {
        &self.points
    }

    /// The measurements behind the points, in the order they were made
    /// (for the compare panel and the exports).
    pub fn measurements(&self) -> impl Iterator<Item = &Measurement> + '_ {
        self.plan.measurements()
    }

    /// The point with the fastest median query time, if any was measured.
    pub fn best(&self) -> Option<&SweepPoint> {
        self.points
            .iter()
            .min_by(|a, b| a.query_ms.total_cmp(&b.query_ms))
    }

    /// Cell sizes clamped, skipped, shortened or dropped, and a stop.
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
        self.plan.variants().len()
    }

    /// The longest step allowed, seconds.
    pub fn frame_limit_s(&self) -> f64 {
        self.plan.guards().skip_above_s
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

    /// Predicted step time at `cell`, seconds, from what is measured so far.
    pub fn predict_s(&self, cell: f32) -> f64 {
        let costs = Model::costs(self.baseline, self.plan.outcomes());
        self.model.predict_s(cell, &costs)
    }
}

#[cfg(test)]
mod tests;
