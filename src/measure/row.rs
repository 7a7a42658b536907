//! The table row of a measured or skipped variant, with `bench`'s keys: the
//! rows of `bench --format json`, the compare panel's CSV and JSON exports
//! and the lessons' tables are all this one type.

use serde::{Serialize, Serializer};

use super::plan::{Outcome, Skipped};
use super::recorder::{Measurement, Round};
pub use super::spread::PhaseMs;
use crate::engine::sim::Settings;
use crate::engine::spatial::{Kernel, Strategy};
use crate::measure::machine::Machine;
use crate::measure::memory::modeled::Modeled;

/// One measured (or skipped) variant, as `bench` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// What was measured, for people.
    pub label: String,
    /// The settings of the variant (for a measured row, with the threads
    /// every phase ran on; for a skipped one, as asked: a thread count the
    /// OS refused is a skipped row, never a row measured on fewer threads).
    /// In the JSON, the settings table's columns of a `bench` row
    /// (`crate::settings::values::row_columns`: units, workload, seed,
    /// world, radius, separation, strategy, threads, kernel — `none` where
    /// the query runs none —, layout, reorder, reorder_every, pass), each
    /// under its key.
    #[serde(flatten, serialize_with = "settings_columns")]
    pub settings: Settings,
    /// Grid cell edge the last frame used, world units: the effective one,
    /// which exceeds the asked one only where the grid's cell cap raised it
    /// (the asked one for a skipped row); `null` for Naive (no grid).
    pub cell_size: Option<f32>,
    /// `cell_size / radius`; `null` for Naive.
    pub cell_over_r: Option<f64>,
    /// Settling frames stepped before the counted ones.
    pub settle_frames: usize,
    /// Counted frames per round (0 when skipped).
    pub frames: usize,
    /// Counted frames per round the plan asked for: more than `frames`
    /// where a guard cut them (`note` says why; 0 when skipped).
    pub planned_frames: usize,
    /// Median milliseconds per phase: the median of the round medians
    /// (`null` when skipped).
    pub median_ms: Option<PhaseMs>,
    /// Fastest counted frame's milliseconds per phase over every round
    /// (each phase's own minimum).
    pub min_ms: Option<PhaseMs>,
    /// Slowest counted frame's milliseconds per phase over every round
    /// (each phase's own maximum).
    pub max_ms: Option<PhaseMs>,
    /// Smallest round median per phase (equal to `median_ms` with one round).
    pub round_min_ms: Option<PhaseMs>,
    /// Largest round median per phase (equal to `median_ms` with one round).
    pub round_max_ms: Option<PhaseMs>,
    /// Each round's medians and counters, in the order measured (empty
    /// when skipped).
    pub rounds: Vec<Round>,
    /// Candidates tested in the last frame.
    pub candidates: u64,
    /// Neighbor pairs found in the last frame (identical across combinations).
    pub neighbors: u64,
    /// Candidates tested per neighbor found (`null` when skipped).
    pub candidates_per_neighbor: Option<f64>,
    /// Bytes of query results the last frame wrote.
    pub result_bytes: u64,
    /// Heap allocations over the counted frames (`null` when not counted).
    pub allocations: Option<u64>,
    /// Bytes of unit storage and index the query phase reads (whole cache
    /// lines; `null` when skipped).
    pub working_set_bytes: Option<u64>,
    /// Median query-phase nanoseconds per unit (each unit queries once
    /// per frame): the y of a working-set sweep against
    /// `working_set_bytes`. `null` when skipped or empty.
    pub ns_per_unit: Option<f64>,
    /// Median query-phase nanoseconds per candidate tested (the last
    /// frame's candidates). `null` when skipped or none was tested.
    pub ns_per_candidate: Option<f64>,
    /// Median L1D read misses per query of the query phase (hardware
    /// counters); `null` where the counters are unavailable.
    pub l1d_misses_per_query: Option<f64>,
    /// Median last-level cache misses per query of the query phase
    /// (hardware counters); `null` where the counters are unavailable.
    pub llc_misses_per_query: Option<f64>,
    /// The query phase through the cache model (labeled "modeled"
    /// wherever shown): lines touched, misses per level per query, bytes
    /// brought in per candidate; the same on every machine for the same
    /// settings and geometry. `null` when skipped or not modeled.
    pub model: Option<Modeled>,
    /// Units that died over the counted frames (`battle` churn; 0 otherwise).
    pub deaths: u64,
    /// Reinforcements spawned over the counted frames (`battle`; equals `deaths`).
    pub spawns: u64,
    /// Counted frames spread over refreshes (their times are sums of slices).
    pub sliced_frames: usize,
    /// Counted frames stepped on a worker thread.
    pub worker_frames: usize,
    /// How the measurement differs from the plan's (fewer frames, and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why the combination was not run, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Estimated frame time in ms for a skipped combination, labeled as an estimate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_total_ms: Option<f64>,
    /// How `estimated_total_ms` was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_by: Option<String>,
    /// The OS error when the OS refused to start `threads` threads (the
    /// row is then skipped, and `skipped` says so). Not in the JSON.
    #[serde(skip)]
    pub threads_refused: Option<String>,
    /// The machine that measured it: CPU, cores, caches.
    pub machine: Machine,
}

impl Row {
    /// The row of `outcome`, measured on this machine ([`Machine::current`]).
    pub fn of(outcome: &Outcome) -> Row {
        let s = outcome.settings();
        let mut row = Row::planned(outcome.label(), s);
        match outcome {
            Outcome::Skipped(sk) => row.fill_skipped(sk),
            Outcome::Measured(m) => row.fill_measured(m),
        }
        if row.cell_over_r.is_none() {
            row.cell_over_r = row.cell_size.map(|c| c as f64 / s.radius as f64);
        }
        row.note_raised_cell(s.cell_size);
        row
    }

    /// The row of the variant `label` with settings `s` as planned, before
    /// anything is measured: every count 0, every figure `None`.
    fn planned(label: &str, s: &Settings) -> Row {
        Row {
            label: label.to_string(),
            settings: s.clone(),
            cell_size: (s.strategy != Strategy::Naive).then_some(s.cell_size),
            cell_over_r: None,
            settle_frames: 0,
            frames: 0,
            planned_frames: 0,
            median_ms: None,
            min_ms: None,
            max_ms: None,
            round_min_ms: None,
            round_max_ms: None,
            rounds: Vec::new(),
            candidates: 0,
            neighbors: 0,
            candidates_per_neighbor: None,
            result_bytes: 0,
            allocations: None,
            working_set_bytes: None,
            ns_per_unit: None,
            ns_per_candidate: None,
            l1d_misses_per_query: None,
            llc_misses_per_query: None,
            model: None,
            deaths: 0,
            spawns: 0,
            sliced_frames: 0,
            worker_frames: 0,
            note: None,
            skipped: None,
            estimated_total_ms: None,
            estimated_by: None,
            threads_refused: None,
            machine: Machine::current().clone(),
        }
    }

    /// Fills in why `sk` was skipped, its estimate (ms) and how it was made.
    fn fill_skipped(&mut self, sk: &Skipped) {
        self.skipped = Some(sk.why.clone());
        self.estimated_total_ms = sk.estimate.as_ref().map(|e| e.seconds * 1e3);
        self.estimated_by = sk.estimate.as_ref().map(|e| e.how.clone());
        self.threads_refused.clone_from(&sk.threads_refused);
    }

    /// Fills in the figures of the measurement `m`: threads, frames, the
    /// per-phase times (ms), rounds, counters and note.
    fn fill_measured(&mut self, m: &Measurement) {
        self.settings.threads = m.threads;
        self.cell_size = m.cell_size;
        self.cell_over_r = m.cell_over_r();
        self.settle_frames = m.settle;
        self.frames = m.frames;
        self.planned_frames = m.planned_frames;
        self.median_ms = Some(PhaseMs::of(&m.ms, |s| s.median));
        self.min_ms = Some(PhaseMs::of(&m.frame_ms, |s| s.min));
        self.max_ms = Some(PhaseMs::of(&m.frame_ms, |s| s.max));
        self.round_min_ms = Some(PhaseMs::of(&m.ms, |s| s.min));
        self.round_max_ms = Some(PhaseMs::of(&m.ms, |s| s.max));
        self.rounds.clone_from(&m.rounds);
        self.candidates = m.candidates;
        self.neighbors = m.neighbors;
        self.candidates_per_neighbor = Some(m.candidates_per_neighbor());
        self.result_bytes = m.result_bytes;
        self.allocations = m.allocations;
        self.working_set_bytes = Some(m.working_set.total());
        let query_ns = m.ms.query.median * 1e6;
        self.ns_per_unit = (m.settings.units > 0).then(|| query_ns / m.settings.units as f64);
        self.ns_per_candidate = (m.candidates > 0).then(|| query_ns / m.candidates as f64);
        self.l1d_misses_per_query = m.query_misses.map(|q| q.0);
        self.llc_misses_per_query = m.query_misses.map(|q| q.1);
        self.model.clone_from(&m.model);
        self.deaths = m.deaths;
        self.spawns = m.spawns;
        self.sliced_frames = m.sliced_frames;
        self.worker_frames = m.worker_frames;
        self.note.clone_from(&m.note);
    }

    /// Adds to the note that the grid's cell cap raised the cell edge
    /// above `asked` (world units), when it did.
    fn note_raised_cell(&mut self, asked: f32) {
        // The row reports the cell the grid used; say when that is not the
        // one asked for.
        if let Some(used) = self.cell_size.filter(|&c| c > asked * 1.001) {
            let raised = format!(
                "cell {} raised to {} by the grid's cap of {} cells",
                crate::format::length(asked),
                crate::format::length(used),
                crate::format::thousands(crate::engine::spatial::MAX_CELLS as u64)
            );
            self.note = Some(match self.note.take() {
                Some(n) => format!("{n}; {raised}"),
                None => raised,
            });
        }
    }

    /// The per-phase medians, zeros for a skipped row.
    pub fn ms(&self) -> PhaseMs {
        self.median_ms.unwrap_or_default()
    }

    /// The kernel's key (`scalar`, `avx2`, ...), `none` where the query
    /// runs no kernel: the JSON's and the CSV's `kernel`.
    pub fn kernel_key(&self) -> &'static str {
        self.settings.kernel_key()
    }

    /// The kernel the query ran; `None` where it runs none (Grid, and
    /// Naive through AoS).
    pub fn kernel(&self) -> Option<Kernel> {
        self.settings.uses_kernel().then_some(self.settings.kernel)
    }
}

/// Serializes a row's settings as the settings table's `bench` columns
/// (`crate::settings::values::row_columns`), each under its key, into the
/// row's own map (`flatten`).
fn settings_columns<S: Serializer>(s: &Settings, ser: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let columns = crate::settings::values::row_columns(s);
    let mut map = ser.serialize_map(Some(columns.len()))?;
    for (key, value) in &columns {
        map.serialize_entry(key, &value.json)?;
    }
    map.end()
}

/// The key of `kernel` (`scalar`, `avx2`, ...), `none` for `None` (a query
/// that runs no kernel).
pub fn kernel_key(kernel: Option<Kernel>) -> &'static str {
    kernel.map_or("none", Kernel::key)
}
