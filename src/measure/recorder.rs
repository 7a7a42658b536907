//! One measurement: given settings stepped for a settling period and then a
//! number of counted frames, recorded frame by frame ([`Recorder`]) into a
//! [`Measurement`].
//!
//! The recorder has no clock and no simulation of its own: whoever steps
//! the simulation (the window, a worker thread, `bench`, a test) hands it
//! each step's [`FrameRecord`], so the same statistics come out of a frame
//! stepped whole, one spread over refreshes or one run on a worker thread.

use serde::Serialize;

use super::spread::{PhaseColumns, PhaseSpreads, Spread};
use crate::sim::memory::WorkingSet;
use crate::sim::{Settings, StepStats};

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
    /// Bytes of query results the step wrote ([`crate::sim::Simulation::result_bytes`]).
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

/// The result of measuring one set of settings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    /// What was measured, for people ("Grid / SoA / 2 threads").
    pub label: String,
    /// The exact settings every counted frame ran with.
    #[serde(skip)]
    pub settings: Settings,
    /// Frames stepped and not counted before the counted ones.
    pub settle: usize,
    /// Frames counted.
    pub frames: usize,
    /// Per-phase median, min and max over the counted frames, ms.
    pub ms: PhaseSpreads,
    /// Candidates tested by the last counted frame.
    pub candidates: u64,
    /// Neighbor pairs found by the last counted frame (the same for every
    /// strategy, kernel, layout and thread count at the same frame index).
    pub neighbors: u64,
    /// Bytes of query results the last counted frame wrote.
    pub result_bytes: u64,
    /// Heap allocations over the counted frames (`None` when a frame's
    /// could not be counted).
    pub allocations: Option<u64>,
    /// The bytes of unit storage and index the query phase reads, after the
    /// last counted frame ([`crate::sim::memory::working_set`]).
    pub working_set: WorkingSet,
    /// Threads the last counted frame ran on.
    pub threads: usize,
    /// The grid cell edge the last counted frame used, world units (the
    /// effective one); `None` for Naive.
    pub cell_size: Option<f32>,
    /// Counted frames whose queries were spread over several refreshes:
    /// their times are the sums of the slices, an estimate of a whole frame.
    pub sliced_frames: usize,
    /// Counted frames stepped on a worker thread.
    pub worker_frames: usize,
    /// Units that died over the counted frames (`battle`).
    pub deaths: u64,
    /// Reinforcements spawned over the counted frames (`battle`).
    pub spawns: u64,
    /// Median hardware cache misses per query of the query phase: L1D and
    /// last level (`None` where the counters are unavailable).
    pub query_misses: Option<(f64, f64)>,
    /// How the measurement differs from the plan's (fewer frames, and why).
    pub note: Option<String>,
}

impl Measurement {
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
    /// [`super::spread::BUSY_SPREAD`] (max / min).
    pub fn is_noisy(&self) -> bool {
        self.ms.total.ratio() > super::spread::BUSY_SPREAD
    }
}

/// Records the frames of one measurement.
#[derive(Clone, Debug)]
pub struct Recorder {
    label: String,
    settings: Settings,
    spec: Spec,
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

    /// The measurement, with `working_set` (taken after the last frame).
    /// The counted frames' statistics are all zero when none was recorded.
    pub fn finish(self, working_set: WorkingSet) -> Measurement {
        let misses = (!self.l1d.is_empty()).then(|| {
            let (mut a, mut b) = (self.l1d, self.llc);
            (super::spread::median(&mut a), super::spread::median(&mut b))
        });
        Measurement {
            label: self.label,
            settle: self.spec.settle.min(self.seen),
            frames: self.cols.len(),
            ms: self.cols.spreads(),
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
            note: self.note,
            settings: self.settings,
        }
    }
}
