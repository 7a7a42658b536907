//! One measurement: given settings stepped for a settling period and then a
//! number of counted frames, recorded frame by frame ([`Recorder`]) into a
//! [`Measurement`]; a plan of several rounds ([`super::Plan::with_rounds`])
//! merges each variant's rounds into one ([`Measurement::merge_round`]).
//!
//! The recorder has no clock and no simulation of its own: whoever steps
//! the simulation (the window, a worker thread, `bench`, a test) hands it
//! each step's [`FrameRecord`], so the same statistics come out of a frame
//! stepped whole, one spread over refreshes or one run on a worker thread.

use serde::Serialize;

use super::spread::{PhaseColumns, PhaseMs, PhaseSpreads, Spread};
use crate::engine::sim::{Settings, StepStats};
use crate::measure::memory::WorkingSet;

/// How many frames a measurement steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Spec {
    /// Frames stepped first and not counted: caches, the allocator, the
    /// grid's cell lists and a reorder settle (bench's `--warmup`).
    pub settle: usize,
    /// Frames counted (at least 1).
    pub frames: usize,
}

impl Spec {
    /// `settle` frames, then `frames` counted ones (at least one).
    pub fn new(settle: usize, frames: usize) -> Spec {
        Spec {
            settle,
            frames: frames.max(1),
        }
    }

    /// Frames stepped in all.
    pub fn steps(&self) -> usize {
        self.settle + self.frames
    }
}

/// What a measurement learns from one completed step.
#[derive(Clone, Copy, Debug)]
pub struct FrameRecord<'a> {
    /// The step's phase times and counters.
    pub step: &'a StepStats,
    /// Units after the step.
    pub units: usize,
    /// Bytes of query results the step wrote ([`crate::engine::sim::Simulation::result_bytes`]).
    pub result_bytes: u64,
    /// Heap allocations during the step (`None` when they could not be
    /// counted: a step on a worker thread while the window allocates too).
    pub allocations: Option<u64>,
    /// The step ran on a worker thread, not in the window's own.
    pub worker: bool,
}

impl<'a> FrameRecord<'a> {
    /// A record of a step made in the measuring thread with nothing else
    /// allocating (a headless run).
    pub fn headless(
        step: &'a StepStats,
        units: usize,
        result_bytes: u64,
        allocations: u64,
    ) -> Self {
        FrameRecord {
            step,
            units,
            result_bytes,
            allocations: Some(allocations),
            worker: false,
        }
    }
}

/// One round of a measurement: its counted frames' medians and the
/// counters of its last counted frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Round {
    /// Median milliseconds per phase over the round's counted frames.
    pub median_ms: PhaseMs,
    /// Candidates tested by the round's last counted frame.
    pub candidates: u64,
    /// Neighbor pairs found by the round's last counted frame.
    pub neighbors: u64,
}

/// The result of measuring one set of settings, over one round or several.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    /// What was measured, for people ("Grid / SoA / 2 threads").
    pub label: String,
    /// The exact settings every counted frame ran with.
    #[serde(skip)]
    pub settings: Settings,
    /// Frames stepped and not counted before the counted ones.
    pub settle: usize,
    /// Frames counted per round.
    pub frames: usize,
    /// Frames per round the plan asked for: more than `frames` where a
    /// guard cut them (`note` says why).
    pub planned_frames: usize,
    /// Per phase, ms: the median of the round medians and the smallest and
    /// largest round median (with one round all three are its median).
    pub ms: PhaseSpreads,
    /// Per phase, ms: the median of every counted frame of every round, the
    /// fastest frame and the slowest.
    pub frame_ms: PhaseSpreads,
    /// Each round's medians and counters, in the order they were measured.
    pub rounds: Vec<Round>,
    /// Candidates tested by the last counted frame.
    pub candidates: u64,
    /// Neighbor pairs found by the last counted frame (the same for every
    /// strategy, kernel, layout and thread count at the same frame index).
    pub neighbors: u64,
    /// Bytes of query results the last counted frame wrote.
    pub result_bytes: u64,
    /// Heap allocations over one round's counted frames, the most of any
    /// round (`None` when a frame's could not be counted).
    pub allocations: Option<u64>,
    /// The bytes of unit storage and index the query phase reads, after the
    /// last counted frame ([`crate::measure::memory::working_set`]).
    pub working_set: WorkingSet,
    /// Threads the last counted frame ran on.
    pub threads: usize,
    /// The grid cell edge the last counted frame used, world units (the
    /// effective one); `None` for Naive.
    pub cell_size: Option<f32>,
    /// Counted frames (of every round) whose queries were spread over
    /// several refreshes: their times are the sums of the slices, an
    /// estimate of a whole frame.
    pub sliced_frames: usize,
    /// Counted frames (of every round) stepped on a worker thread.
    pub worker_frames: usize,
    /// Units that died over the last round's counted frames (`battle`).
    pub deaths: u64,
    /// Reinforcements spawned over the last round's counted frames (`battle`).
    pub spawns: u64,
    /// Median hardware cache misses per query of the query phase: L1D and
    /// last level (`None` where the counters are unavailable).
    pub query_misses: Option<(f64, f64)>,
    /// The query phase through the cache model, when the caller modeled
    /// it (the compare panel's rows, a lesson's row steps); counts of the
    /// settings, the same in every round.
    pub model: Option<crate::measure::memory::modeled::Modeled>,
    /// How the measurement differs from the plan's (fewer frames, and why).
    pub note: Option<String>,
}

impl Measurement {
    /// A measurement of `settings` named `label` made of known rounds
    /// (`rounds`, in order; each round counted over `frames` frames whose
    /// medians they are): the spreads are those of the round medians (the
    /// frames' spread is taken to be the rounds'), the counters the last
    /// round's; no allocations, an empty working set. For tests and tools
    /// that fabricate or replay measurements. Allocates the rounds.
    pub fn from_rounds(
        label: &str,
        settings: Settings,
        frames: usize,
        rounds: Vec<Round>,
    ) -> Measurement {
        let medians: Vec<PhaseMs> = rounds.iter().map(|r| r.median_ms).collect();
        let ms = PhaseSpreads::of_rounds(&medians);
        let last = rounds.last().copied().unwrap_or_default();
        Measurement {
            label: label.to_string(),
            settle: 0,
            frames,
            planned_frames: frames,
            ms,
            frame_ms: ms,
            candidates: last.candidates,
            neighbors: last.neighbors,
            result_bytes: 0,
            allocations: Some(0),
            working_set: WorkingSet::default(),
            threads: settings.threads.max(1),
            cell_size: (settings.strategy != crate::engine::spatial::Strategy::Naive)
                .then_some(settings.cell_size),
            sliced_frames: 0,
            worker_frames: 0,
            deaths: 0,
            spawns: 0,
            query_misses: None,
            model: None,
            note: None,
            settings,
            rounds,
        }
    }

    /// Candidates tested per neighbor found in the last counted frame
    /// (`candidates / max(neighbors, 1)`): 1.0 would waste no test.
    pub fn candidates_per_neighbor(&self) -> f64 {
        self.candidates as f64 / self.neighbors.max(1) as f64
    }

    /// `cell_size / radius` of the last counted frame; `None` for Naive.
    pub fn cell_over_r(&self) -> Option<f64> {
        self.cell_size
            .map(|c| c as f64 / self.settings.radius as f64)
    }

    /// Spread of the whole step's times, ms.
    pub fn total(&self) -> Spread {
        self.ms.total
    }

    /// True when the counted frames' totals differ by more than
    /// [`super::spread::BUSY_SPREAD`] (slowest / fastest frame).
    pub fn is_noisy(&self) -> bool {
        self.frame_ms.total.ratio() > super::spread::BUSY_SPREAD
    }

    /// The spread a reader is shown beside the median: across the rounds'
    /// medians when there are two rounds or more (what verdicts compare),
    /// else across the counted frames of the one round.
    pub fn shown(&self) -> &PhaseSpreads {
        if self.rounds.len() >= 2 {
            &self.ms
        } else {
            &self.frame_ms
        }
    }

    /// True when a guard measured fewer frames per round than planned.
    pub fn is_cut(&self) -> bool {
        self.frames < self.planned_frames
    }

    /// "3 of 15 frames per round: its first frame took 640 ms (above 250
    /// ms)" when a guard cut the frames; `None` otherwise.
    pub fn cut_note(&self) -> Option<String> {
        self.is_cut().then(|| {
            let why = self
                .note
                .as_deref()
                .and_then(|n| n.split_once(": ").map(|(_, w)| w.to_string()))
                .unwrap_or_else(|| "slow step".to_string());
            format!(
                "{} of {} frames per round: {why}",
                self.frames, self.planned_frames
            )
        })
    }

    /// Adds the next round of the same settings (`next`, one round, with
    /// its counted frames `next_frames`) to this measurement, whose counted
    /// frames so far are `all_frames` (extended here): the rounds are kept
    /// in order, the spreads taken again, the most allocations of any round
    /// kept, the slice and worker frames summed; every other field is
    /// `next`'s (its last frame's counters, its working set).
    pub fn merge_round(
        &mut self,
        next: Measurement,
        next_frames: &PhaseColumns,
        all_frames: &mut PhaseColumns,
    ) {
        all_frames.append(next_frames);
        let mut rounds = std::mem::take(&mut self.rounds);
        rounds.extend_from_slice(&next.rounds);
        let allocations = match (self.allocations, next.allocations) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        let (sliced, worker) = (
            self.sliced_frames + next.sliced_frames,
            self.worker_frames + next.worker_frames,
        );
        *self = next;
        self.ms = PhaseSpreads::of_rounds(&rounds.iter().map(|r| r.median_ms).collect::<Vec<_>>());
        self.frame_ms = all_frames.spreads();
        self.rounds = rounds;
        self.allocations = allocations;
        self.sliced_frames = sliced;
        self.worker_frames = worker;
    }
}

/// Records the frames of one measurement.
#[derive(Clone, Debug)]
pub struct Recorder {
    label: String,
    settings: Settings,
    spec: Spec,
    /// Counted frames the plan asked for (more than `spec.frames` when a
    /// guard shortened the measurement).
    planned: usize,
    note: Option<String>,
    /// Frames recorded so far, settling ones included.
    seen: usize,
    cols: PhaseColumns,
    l1d: Vec<f64>,
    llc: Vec<f64>,
    last: StepStats,
    result_bytes: u64,
    allocations: Option<u64>,
    sliced: usize,
    worker: usize,
    churn: (u64, u64),
}

impl Recorder {
    /// A measurement of `settings` named `label`, over `spec`'s frames;
    /// `note` says how it differs from the plan's, if it does. Allocates
    /// room for every counted frame, so [`Recorder::record`] allocates nothing.
    pub fn new(label: String, settings: Settings, spec: Spec, note: Option<String>) -> Self {
        Recorder {
            label,
            settings,
            spec,
            planned: spec.frames,
            note,
            seen: 0,
            cols: PhaseColumns::with_capacity(spec.frames),
            l1d: Vec::with_capacity(spec.frames),
            llc: Vec::with_capacity(spec.frames),
            last: StepStats::default(),
            result_bytes: 0,
            allocations: Some(0),
            sliced: 0,
            worker: 0,
            churn: (0, 0),
        }
    }

    /// The same recorder with `seen` frames already recorded as settling
    /// ones (a plan that shortened a variant after its first frame).
    /// `seen` is capped at the settling frames.
    pub(super) fn settled(mut self, seen: usize) -> Self {
        self.seen = seen.min(self.spec.settle);
        self
    }

    /// The same recorder, saying that the plan asked for `frames` counted
    /// frames (a guard shortened it to its spec's).
    pub(super) fn planned(mut self, frames: usize) -> Self {
        self.planned = frames.max(self.spec.frames);
        self
    }

    /// The settings measured.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The name of the measurement.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The frames it steps.
    pub fn spec(&self) -> Spec {
        self.spec
    }

    /// Frames recorded so far, settling ones included.
    pub fn seen(&self) -> usize {
        self.seen
    }

    /// True while the next frame is a settling one.
    pub fn settling(&self) -> bool {
        self.seen < self.spec.settle
    }

    /// Fraction of the frames recorded, 0 to 1.
    pub fn progress(&self) -> f64 {
        self.seen as f64 / self.spec.steps() as f64
    }

    /// True when every frame is recorded.
    pub fn is_done(&self) -> bool {
        self.seen >= self.spec.steps()
    }

    /// Takes one completed step: a settling frame is only counted as seen;
    /// a counted one adds its phase times, churn and cache misses, and the
    /// last one's counters are kept. Ignored when done.
    pub fn record(&mut self, f: FrameRecord<'_>) {
        if self.is_done() {
            return;
        }
        self.seen += 1;
        if self.seen <= self.spec.settle {
            return;
        }
        let st = f.step;
        self.cols.push(st);
        if let Some(m) = st.query_cache {
            let n = f.units.max(1) as f64;
            self.l1d.push(m.l1d as f64 / n);
            self.llc.push(m.llc as f64 / n);
        }
        self.churn.0 += st.deaths as u64;
        self.churn.1 += st.spawns as u64;
        self.sliced += usize::from(st.slices > 1);
        self.worker += usize::from(f.worker);
        self.allocations = match (self.allocations, f.allocations) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        self.result_bytes = f.result_bytes;
        self.last = *st;
    }

    /// The measurement (one round), with `working_set` (taken after the
    /// last frame). The counted frames' statistics are all zero when none
    /// was recorded.
    pub fn finish(self, working_set: WorkingSet) -> Measurement {
        self.finish_round(working_set).0
    }

    /// [`Recorder::finish`], and the counted frames' phase times (for
    /// [`Measurement::merge_round`]).
    pub fn finish_round(self, working_set: WorkingSet) -> (Measurement, PhaseColumns) {
        let misses = (!self.l1d.is_empty()).then(|| {
            let (mut a, mut b) = (self.l1d, self.llc);
            (super::spread::median(&mut a), super::spread::median(&mut b))
        });
        let frame_ms = self.cols.spreads();
        let round = Round {
            median_ms: PhaseMs::of(&frame_ms, |s| s.median),
            candidates: self.last.query.candidates,
            neighbors: self.last.query.neighbors,
        };
        let counted = self.cols.len();
        let m = Measurement {
            label: self.label,
            settle: self.spec.settle.min(self.seen),
            frames: counted,
            planned_frames: self.planned.max(counted),
            ms: PhaseSpreads::of_rounds(&[round.median_ms]),
            frame_ms,
            rounds: if counted > 0 { vec![round] } else { Vec::new() },
            candidates: self.last.query.candidates,
            neighbors: self.last.query.neighbors,
            result_bytes: self.result_bytes,
            allocations: self.allocations,
            working_set,
            threads: self.last.threads,
            cell_size: self.last.grid.map(|g| g.cell),
            sliced_frames: self.sliced,
            worker_frames: self.worker,
            deaths: self.churn.0,
            spawns: self.churn.1,
            query_misses: misses,
            model: None,
            note: self.note,
            settings: self.settings,
        };
        (m, self.cols)
    }
}
