//! The simulation: units in one of four data layouts, movement, the
//! per-frame neighbor pass, the steering that consumes its results, and the
//! churn of the `battle` workload.
//!
//! One frame ([`Simulation::step`]) = remove the units that died last frame
//! and spawn reinforcements (`battle` only) → move (bounce off the world
//! border) → rebuild the spatial index → one query per unit → apply the results
//! (separation steering, enemies in range, danger time). Move, rebuild, query
//! and apply all reach the units through their layout ([`layout`]). The apply
//! step sums per-neighbor contributions in fixed point, so its result does not
//! depend on the order of a neighbor list: every layout, strategy, kernel and
//! thread count produces bit-identical simulations.

pub mod budget;
pub mod counters;
pub mod handles;
pub mod inspect;
pub mod layout;
pub mod memory;
pub mod reorder;
pub mod spawn;
pub mod sweep;

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::with_layout;

pub use handles::{Handle, Handles};
pub use layout::{Hot, Layout, Steer, UnitLayout, UnitStore, Units};
pub use reorder::{Reorder, Reorderer};
pub use spawn::{spawn, world_size, Workload, STANDARD_RADIUS, STANDARD_SPEED};

use crate::spatial::results::{
    near_chunks, near_per_unit, near_range, query_chunk_range, NearResults,
};
use crate::spatial::{
    fixed, pool_threads, query_chunks, ChunkResults, GridGeometry, Kernel, Naive, Near, Points,
    Positions, Query, QueryResults, QueryStats, SortedGrid, SpatialIndex, Strategy, UniformGrid,
};

/// How the per-unit pass hands its results to the apply step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Every query appends its neighbor ids to per-chunk lists (CSR), and the
    /// apply step reads them back: the whole frame's lists are materialized.
    Collect,
    /// The kernel sums what the steering needs ([`Near`]: count, enemies,
    /// offset sums) while testing; no id is written (the CSR grid's fused
    /// kernel; the other strategies aggregate each query's list at once).
    #[default]
    Fused,
    /// [`Pass::Fused`] with the CSR grid testing each pair once (half
    /// stencil: a cell's units against the cells after it, both units
    /// credited); Naive and Grid run [`Pass::Fused`]. Same results; kept to
    /// measure that halving the tests does not pay here (see the README).
    FusedHalf,
}

impl Pass {
    /// Every pass.
    pub const ALL: [Pass; 3] = [Pass::Collect, Pass::Fused, Pass::FusedHalf];

    /// Whether the pass writes aggregates rather than neighbor lists.
    pub fn is_fused(self) -> bool {
        self != Pass::Collect
    }

    /// Lower-case name for the command line and JSON (`collect`, `fused`,
    /// `fused-half`).
    pub fn key(self) -> &'static str {
        match self {
            Pass::Collect => "collect",
            Pass::Fused => "fused",
            Pass::FusedHalf => "fused-half",
        }
    }

    /// Display name (`collect ids`, `fused`, `fused, half stencil`).
    pub fn name(self) -> &'static str {
        match self {
            Pass::Collect => "collect ids",
            Pass::Fused => "fused",
            Pass::FusedHalf => "fused, half stencil",
        }
    }

    /// Parses [`Pass::key`] or [`Pass::name`], case-insensitively.
    pub fn from_key(s: &str) -> Option<Pass> {
        let s = s.trim().to_ascii_lowercase();
        Pass::ALL
            .into_iter()
            .find(|p| s == p.key() || s == p.name())
    }

    /// One-sentence explanation for tooltips and help.
    pub fn explain(self) -> &'static str {
        match self {
            Pass::Collect => "Every query writes its neighbor ids into lists for the whole frame (4 bytes per neighbor plus 4 per unit), and the apply step reads them back, fetching each neighbor's position again.",
            Pass::Fused => "The kernel sums what steering needs (neighbor count, enemies, offset sums) while it tests candidates: no neighbor list is written or read back, 24 bytes per unit.",
            Pass::FusedHalf => "Fused, and SortedGrid tests each pair once (a cell's units against the cells after it) and credits both units: half the distance tests, but every match is added to memory twice. Naive and Grid run the plain fused pass.",
        }
    }

    /// Bytes of per-frame results for `units` units with `neighbors` pairs:
    /// collect = 4 per id + 4 per offset; fused = one [`Near`] per unit.
    pub fn result_bytes(self, units: usize, neighbors: u64) -> u64 {
        match self {
            Pass::Collect => neighbors * 4 + units as u64 * 4,
            Pass::Fused | Pass::FusedHalf => units as u64 * std::mem::size_of::<Near>() as u64,
        }
    }
}

impl std::fmt::Display for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything a user can set; the overlay and the command line edit a copy and
/// the simulation reads it each step.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Unit count; changing it respawns the world.
    pub units: usize,
    /// Initial positions; changing it respawns.
    pub workload: Workload,
    /// Seed of the spawn; changing it respawns.
    pub seed: u64,
    /// World edge L, world units (the world is `[0, L)^2`); `None` for the
    /// standard density of `shared/WORKLOADS.md`, [`world_size`]`(units,
    /// STANDARD_RADIUS)`. A value that is not finite and positive counts as
    /// `None`. Changing it respawns.
    pub world: Option<f32>,
    /// Spatial strategy used for the per-unit pass.
    pub strategy: Strategy,
    /// Distance-test kernel (replaced by Scalar if the CPU lacks it).
    pub kernel: Kernel,
    /// Threads for the frame: move, CSR rebuild (up to its scatter), query, apply (1 = the calling thread only).
    pub threads: usize,
    /// Query radius, world units (> 0).
    pub radius: f32,
    /// Grid cell edge, world units (> 0); see `GridGeometry::fit` for the cap
    /// and [`budget::min_cell_size`] for the smallest value the window offers.
    pub cell_size: f32,
    /// Keep `cell_size` equal to `radius` whenever the radius changes (the
    /// overlay's "= r" toggle); read by [`budget::settle`], not by the step.
    pub cell_follows_radius: bool,
    /// Simulation time per real second (0 = frozen, 1 = real time).
    pub speed: f32,
    /// Separation steering strength (0 = units ignore each other).
    pub separation: f32,
    /// When true, units do not move, but the index and queries still run every frame.
    pub paused: bool,
    /// Memory order of the units, restored every `reorder_every` frames.
    pub reorder: Reorder,
    /// Frames between reorders (>= 1).
    pub reorder_every: u32,
    /// How the units are stored; changing it re-stores the same units.
    pub layout: Layout,
    /// How query results reach the apply step.
    pub pass: Pass,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            units: 10_000,
            workload: Workload::Uniform,
            seed: 42,
            world: None,
            strategy: Strategy::Grid,
            kernel: Kernel::best(),
            threads: 1,
            radius: STANDARD_RADIUS,
            cell_size: STANDARD_RADIUS,
            cell_follows_radius: true,
            speed: 4.0,
            separation: 1.0,
            paused: false,
            reorder: Reorder::Resident,
            reorder_every: 16,
            layout: Layout::Soa,
            pass: Pass::Fused,
        }
    }
}

impl Settings {
    /// The world edge L (world units) these settings spawn: `world` when it
    /// is finite and positive, else the standard density's
    /// [`world_size`]`(units, STANDARD_RADIUS)`.
    pub fn world_edge(&self) -> f32 {
        match self.world {
            Some(w) if w.is_finite() && w > 0.0 => w,
            _ => world_size(self.units, STANDARD_RADIUS),
        }
    }

    /// What a spawn depends on: unit count, workload, seed and world edge
    /// (its bits). Two settings with the same key spawn the same units.
    pub fn spawn_key(&self) -> SpawnKey {
        (
            self.units,
            self.workload,
            self.seed,
            self.world_edge().to_bits(),
        )
    }

    /// True when `other` asks the engine for the same work per frame: same
    /// units, workload, seed, world, strategy, kernel, threads, radius, cell size,
    /// unit order, layout and pass. Speed, separation and pause change where units go, not
    /// what a frame computes, so timings averaged across them stay comparable.
    pub fn same_work(&self, other: &Settings) -> bool {
        (
            self.units,
            self.workload,
            self.seed,
            self.strategy,
            self.kernel,
            self.threads,
            self.reorder,
            self.reorder_every,
            self.layout,
            self.pass,
        ) == (
            other.units,
            other.workload,
            other.seed,
            other.strategy,
            other.kernel,
            other.threads,
            other.reorder,
            other.reorder_every,
            other.layout,
            other.pass,
        ) && self.radius.to_bits() == other.radius.to_bits()
            && self.world_edge().to_bits() == other.world_edge().to_bits()
            && self.cell_size.to_bits() == other.cell_size.to_bits()
    }
}

/// What a spawn depends on ([`Settings::spawn_key`]): unit count, workload,
/// seed and the bits of the world edge.
pub type SpawnKey = (usize, Workload, u64, u32);

/// Wall-clock cost and counters of one [`Simulation::step`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Moving units, seconds (including the `battle` churn: removing the
    /// dead and spawning reinforcements).
    pub move_s: f64,
    /// Rebuilding the spatial index, seconds (including the reorder of the
    /// units when one happened this frame).
    pub rebuild_s: f64,
    /// One query per unit, seconds.
    pub query_s: f64,
    /// Applying the results (steering, enemy counts), seconds.
    pub apply_s: f64,
    /// Candidates tested and neighbors found by all queries of the frame.
    pub query: QueryStats,
    /// The grid the index used (effective cell edge, cells per axis), if the strategy has one.
    pub grid: Option<GridGeometry>,
    /// Whether the units were reordered this frame.
    pub reordered: bool,
    /// Units removed at the start of this frame (they died in the previous one; `battle` only).
    pub deaths: u32,
    /// Reinforcements spawned at the start of this frame (`battle` only).
    pub spawns: u32,
    /// Hardware cache misses of the query phase, summed over its threads
    /// (`None` where the counters are unavailable; see [`Simulation::cache_counters`]).
    pub query_cache: Option<counters::CacheMisses>,
    /// Query slices of [`Simulation::step_sliced`] the frame's queries were
    /// spread over (1 for a frame stepped whole). Above 1, `query_s` is the
    /// sum of the slices: an estimate of the frame's time, not one measurement.
    pub slices: u32,
}

impl StepStats {
    /// Sum of the four phases, seconds.
    pub fn total_s(&self) -> f64 {
        self.move_s + self.rebuild_s + self.query_s + self.apply_s
    }
}

/// The spatial index of the simulation, concrete so the per-unit pass is
/// monomorphized per strategy and layout.
#[derive(Debug)]
enum Index {
    Naive(Naive),
    Grid(UniformGrid),
    Sorted(SortedGrid),
}

impl Index {
    fn new(s: Strategy) -> Index {
        match s {
            Strategy::Naive => Index::Naive(Naive::default()),
            Strategy::Grid => Index::Grid(UniformGrid::default()),
            Strategy::SortedGrid => Index::Sorted(SortedGrid::default()),
        }
    }

    fn strategy(&self) -> Strategy {
        match self {
            Index::Naive(_) => Strategy::Naive,
            Index::Grid(_) => Strategy::Grid,
            Index::Sorted(_) => Strategy::SortedGrid,
        }
    }

    fn as_dyn(&self) -> &dyn SpatialIndex {
        match self {
            Index::Naive(i) => i,
            Index::Grid(i) => i,
            Index::Sorted(i) => i,
        }
    }
}

/// Simulated seconds a unit of the `battle` workload survives with more
/// enemies than friends in range.
pub const DEATH_AFTER_S: f32 = 0.5;
/// Width of the strip at each team's edge of the world where `battle`
/// reinforcements spawn, as a fraction of the world edge.
pub const REINFORCEMENT_STRIP: f32 = 0.05;

/// The world, its units, the spatial index and the buffers of one frame.
pub struct Simulation {
    /// World edge L, world units: the world is `[0, L)^2`.
    pub world: f32,
    store: UnitStore,
    handles: Handles,
    index: Index,
    results: QueryResults,
    near: NearResults,
    /// The pass of the last step.
    pass: Pass,
    pool: Option<rayon::ThreadPool>,
    spawned: SpawnKey,
    frame: u64,
    reorderer: Reorderer,
    permute: layout::PermuteScratch,
    scratch: ApplyScratch,
    /// Positions gathered through a non-SoA layout for the CSR grid and the reorder.
    gathered: (Vec<f32>, Vec<f32>),
    /// Teams gathered through a layout without a team array (fused CSR pass).
    gathered_teams: Vec<u8>,
    /// Storage indices of the units that died in the last step, ascending, no repeats.
    dead: Vec<usize>,
    /// Draws the reinforcements' positions and headings.
    rng: ChaCha8Rng,
    /// Thread count whose pool could not be built (not retried).
    pool_failed: Option<usize>,
    /// Hardware cache counters of the frame's threads, or why they are
    /// unavailable; `None` until the next step opens them (after a new pool).
    counters: Option<Result<counters::CacheCounters, String>>,
    /// The frame [`Simulation::step_sliced`] is spreading over calls, if any.
    pending: Option<SlicedFrame>,
}

/// A frame whose pieces run over several calls of
/// [`Simulation::step_sliced`]: the units moved at its start; the units
/// before `next` have been queried.
#[derive(Debug)]
struct SlicedFrame {
    /// The settings it began with; a call with other work abandons it.
    settings: Settings,
    /// Scaled time step of its move and apply, seconds.
    dt: f32,
    /// The pieces still to run before the queries: the reorder (when due),
    /// then the index rebuild.
    stage: Stage,
    /// The next unit to query.
    next: usize,
    /// The next chunk of the collect pass's lists to fill.
    next_chunk: usize,
    /// The phases so far; `query_s` sums the slices.
    stats: StepStats,
}

/// How [`Simulation::step_sliced`] may spread a frame over calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slicing {
    /// Most queries per call (0 counts as 1); `usize::MAX` steps whole.
    pub queries: usize,
    /// Seconds a call should take about; the start and the apply of a
    /// frame share a call with a query slice only within half of it.
    pub seconds: f64,
}

impl Slicing {
    /// Every frame whole, in one call.
    pub const WHOLE: Slicing = Slicing {
        queries: usize::MAX,
        seconds: f64::INFINITY,
    };
}

/// The pieces of a sliced frame before its queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The units moved; the reorder (when due) is next.
    Moved,
    /// The units are in order; the index rebuild is next.
    Ordered,
    /// The index is built; query slices are next.
    Built,
}

/// What one call of [`Simulation::step_sliced`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepProgress {
    /// The frame is complete: its stats, with `query_s` summed over its
    /// slices and `slices` the calls it took.
    Done(StepStats),
    /// A piece of a sliced frame ran; the frame continues at the next call.
    Partial {
        /// Units queried so far in this frame.
        done: usize,
        /// Units the frame queries.
        of: usize,
        /// Wall-clock seconds of this call.
        slice_s: f64,
    },
}

impl Simulation {
    /// Spawns `settings.units` units of `settings.workload` from `settings.seed`
    /// in a world of edge [`Settings::world_edge`], stored in `settings.layout`.
    pub fn new(settings: &Settings) -> Self {
        let mut sim = Simulation {
            world: 0.0,
            store: UnitStore::default(),
            handles: Handles::default(),
            index: Index::new(settings.strategy),
            results: QueryResults::default(),
            near: NearResults::default(),
            pass: settings.pass,
            pool: None,
            spawned: (usize::MAX, settings.workload, settings.seed, 0),
            frame: 0,
            reorderer: Reorderer::default(),
            permute: layout::PermuteScratch::default(),
            scratch: ApplyScratch::default(),
            gathered: (Vec::new(), Vec::new()),
            gathered_teams: Vec::new(),
            dead: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(settings.seed),
            pool_failed: None,
            counters: None,
            pending: None,
        };
        sim.sync(settings);
        sim
    }

    /// Frames stepped since the last spawn.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The units, in their current layout.
    pub fn store(&self) -> &UnitStore {
        &self.store
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// True when there are no units.
    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// The slot map from handles to storage indices.
    pub fn handles(&self) -> &Handles {
        &self.handles
    }

    /// The handle of the unit stored at `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn handle_of(&self, i: usize) -> Handle {
        let id = self.store.hot(i).id;
        self.handles
            .handle(id)
            .expect("every stored unit has a live slot")
    }

    /// Storage index of the unit `h` refers to, or `None` when it died.
    ///
    /// The handle table's index is a hint: with [`Reorder::Resident`] the
    /// units move every frame and the table is not rewritten (that would be
    /// a random write per moved unit, ~2.6 ms a frame at 1,000,000 units);
    /// the hint is checked against the unit's id and, when stale, the unit
    /// is searched outward from it (units drift a few places per frame),
    /// then over all units. O(1) when the hint is right, O(N) at worst.
    pub fn resolve(&self, h: Handle) -> Option<usize> {
        let hint = self.handles.resolve(h)?;
        let n = self.len();
        let is = |i: usize| self.store.hot(i).id == h.slot;
        if hint < n && is(hint) {
            return Some(hint);
        }
        let hint = hint.min(n.saturating_sub(1));
        for d in 1..=NEAR_SEARCH.min(n) {
            if hint + d < n && is(hint + d) {
                return Some(hint + d);
            }
            if d <= hint && is(hint - d) {
                return Some(hint - d);
            }
        }
        match &self.store {
            UnitStore::Soa(u) => u.id.iter().position(|&id| id == h.slot),
            _ => (0..n).find(|&i| is(i)),
        }
    }

    /// The neighbor lists of the last step (indices into the current storage
    /// order). Empty (no chunks) when the last step ran the fused pass, which
    /// writes no lists: see [`Simulation::near`] and
    /// [`Simulation::neighbor_count`].
    pub fn results(&self) -> &QueryResults {
        &self.results
    }

    /// The per-unit aggregates of the last step when it ran the fused pass
    /// (unit `i` at index `i`), else empty.
    pub fn near(&self) -> &[Near] {
        &self.near.near
    }

    /// The pass the last step ran.
    pub fn pass(&self) -> Pass {
        self.pass
    }

    /// Neighbors of the unit stored at `i` in the last step, whichever pass
    /// ran; 0 before the first step or for an index past the units.
    pub fn neighbor_count(&self, i: usize) -> usize {
        match self.pass {
            Pass::Fused | Pass::FusedHalf => self.near.near.get(i).map_or(0, |n| n.count as usize),
            // 0 for a unit not yet queried in a sliced frame.
            Pass::Collect => self.results.try_neighbors(i).map_or(0, <[u32]>::len),
        }
    }

    /// Bytes of per-frame results the last step wrote ([`Pass::result_bytes`]).
    pub fn result_bytes(&self) -> u64 {
        match self.pass {
            Pass::Collect => {
                let ids: usize = self.results.chunks.iter().map(|c| c.ids.len()).sum();
                Pass::Collect.result_bytes(self.len(), ids as u64)
            }
            p => p.result_bytes(self.near.near.len(), 0),
        }
    }

    /// The positions the SortedGrid reads as its columns while the units
    /// live in cell order ([`Reorder::Resident`]): the SoA layout's x and z,
    /// empty in other layouts. Pass them to [`SortedGrid::sorted`].
    pub fn index_points(&self) -> Points<'_> {
        with_layout!(&self.store, l => l.soa()).unwrap_or(Points::new(&[], &[]))
    }

    /// The spatial index of the last step.
    pub fn index(&self) -> &dyn SpatialIndex {
        self.index.as_dyn()
    }

    /// The per-cell `Vec` grid of the last step, when that is the strategy.
    pub fn uniform_grid(&self) -> Option<&UniformGrid> {
        match &self.index {
            Index::Grid(g) => Some(g),
            _ => None,
        }
    }

    /// The CSR grid of the last step, when that is the strategy.
    pub fn sorted_grid(&self) -> Option<&SortedGrid> {
        match &self.index {
            Index::Sorted(g) => Some(g),
            _ => None,
        }
    }

    /// One query against the index of the last step (for picking and the
    /// inspector): appends the storage indices of the units within `q` to
    /// `out`, reading positions through the current layout.
    pub fn query(&self, q: &Query, kernel: Kernel, out: &mut Vec<u32>) -> QueryStats {
        let store = &self.store;
        with_layout!(store, l => match &self.index {
            Index::Naive(n) => n.query_in(l, q, kernel, out),
            Index::Grid(g) => g.query_in(l, q, out),
            Index::Sorted(g) => g.query(self.index_points(), q, kernel, out),
        })
    }

    /// Marks the unit stored at `i` dead: it is removed (swap-and-pop) and a
    /// reinforcement of its team spawned at the start of the next step, like
    /// a `battle` death. Until then every index of the last step stays
    /// valid. Out-of-range or repeated indices are ignored.
    pub fn kill(&mut self, i: usize) {
        if i < self.len() {
            if let Err(k) = self.dead.binary_search(&i) {
                self.dead.insert(k, i);
            }
        }
    }

    /// Respawns the units with the current settings. Until the next step the
    /// index and [`Simulation::results`] are empty, and every handle issued
    /// before stops resolving.
    pub fn respawn(&mut self, settings: &Settings) {
        self.spawned.0 = usize::MAX;
        self.sync(settings);
    }

    /// Whether the next step at `s` must spawn the units (new count,
    /// workload, seed or world, or a respawn was asked) or store them anew
    /// (another layout): the changes whose cost grows with the unit count
    /// (at 1,000,000 units about 35 ms for SoA, 200 ms for AoS, about a
    /// second for AoS pointers). [`Simulation::prepare`] does them ahead,
    /// e.g. on a worker thread.
    pub fn needs_prepare(&self, s: &Settings) -> bool {
        self.spawned != s.spawn_key() || self.store.layout() != s.layout
    }

    /// Applies the setting changes that need new state now instead of at
    /// the next step: spawn, storage, index, thread pool. The next step
    /// then finds nothing to change.
    pub fn prepare(&mut self, s: &Settings) {
        self.sync(s);
    }

    /// Applies setting changes that need new state: respawn on a new count,
    /// workload, seed or world; new storage on a new layout; a new index on a new
    /// strategy; a new thread pool on a new thread count. Allocates only when
    /// something changed.
    fn sync(&mut self, s: &Settings) {
        let want = s.spawn_key();
        if self.spawned != want {
            self.world = s.world_edge();
            let units = spawn(s.units, self.world, STANDARD_RADIUS, s.workload, s.seed);
            self.handles.reset(units.len());
            self.store = UnitStore::new(s.layout, units, s.seed);
            // The index and the lists of the last step describe the old units.
            self.index = Index::new(s.strategy);
            self.results = QueryResults::default();
            self.near.clear();
            self.rng = ChaCha8Rng::seed_from_u64(s.seed ^ 0x5eed);
            self.dead.clear();
            self.spawned = want;
            self.frame = 0;
            self.pending = None;
        }
        self.store.convert(s.layout, s.seed);
        if self.index.strategy() != s.strategy {
            self.index = Index::new(s.strategy);
        }
        let threads = s.threads.max(1);
        let have = self.pool.as_ref().map_or(1, |p| p.current_num_threads());
        if threads != have && self.pool_failed != Some(threads) {
            self.pool = None;
            if threads > 1 {
                // If the OS refuses the threads, run single-threaded and do not
                // retry every frame.
                match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                    Ok(p) => self.pool = Some(p),
                    Err(_) => self.pool_failed = Some(threads),
                }
            }
            // The counters follow the threads: reopen for the new pool.
            self.counters = None;
        }
    }

    /// The hardware cache counters around the query phase: `Ok` with the
    /// name of the last-level event when they count, `Err` with the reason
    /// when they are unavailable (no PMU in a VM, `perf_event_paranoid`,
    /// not Linux). `Ok("")` before the first step.
    pub fn cache_counters(&self) -> Result<&'static str, &str> {
        match &self.counters {
            None => Ok(""),
            Some(Ok(c)) => Ok(c.llc_event()),
            Some(Err(why)) => Err(why),
        }
    }

    /// Advances one frame of `dt` seconds of real time (scaled by
    /// `settings.speed`; 0 when paused): churn → move → rebuild → query every
    /// unit → apply. Returns the per-phase wall-clock times and the counters.
    ///
    /// A negative or non-finite `dt` (or `settings.speed`) counts as 0. In
    /// steady state (same settings as the previous step, no churn) SortedGrid
    /// allocates nothing in the SoA and hot/cold layouts; Grid allocates when a
    /// cell first holds more units than its `Vec` reserved.
    pub fn step(&mut self, dt: f32, settings: &Settings) -> StepStats {
        self.sync(settings);
        // The whole frame runs inside the pool: the parallel phases then start
        // from a worker thread, so only one job per frame crosses rayon's
        // injector queue (which allocates a block per 63 jobs).
        let pool = self.pool.take();
        if self.counters.is_none() {
            // From the thread that runs the frame and every worker of its pool.
            self.counters = Some(counters::CacheCounters::open(pool.as_ref()));
        }
        let st = match &pool {
            Some(p) => p.install(|| self.step_phases(dt, settings)),
            None => self.step_phases(dt, settings),
        };
        self.pool = pool;
        st
    }

    /// The phases of [`Simulation::step`], on the threads of the pool it
    /// runs in ([`crate::spatial::pool_threads`]).
    fn step_phases(&mut self, dt: f32, settings: &Settings) -> StepStats {
        self.pending = None;
        let (mut st, dt, t1) = self.begin_phases(dt, settings);
        st.slices = 1;
        let Simulation {
            store,
            index,
            results,
            near,
            gathered,
            gathered_teams,
            counters,
            ..
        } = self;
        let mut counters = counters.as_mut().and_then(|c| c.as_mut().ok());
        let out = match settings.pass {
            Pass::Collect => {
                near.clear();
                Out::Lists(results)
            }
            Pass::Fused | Pass::FusedHalf => {
                // The lists of an earlier collect frame are freed: their
                // memory is what the fused pass saves.
                *results = QueryResults::default();
                Out::Near(near, gathered_teams)
            }
        };
        let (t2, query) = with_layout!(&*store, l => neighbor_pass(l, index, gathered, settings, out, &mut counters));
        st.query = query;
        self.pass = settings.pass;
        let t3 = Instant::now();
        st.query_cache = counters.map(|c| c.stop());
        st.rebuild_s = (t2 - t1).as_secs_f64();
        st.query_s = (t3 - t2).as_secs_f64();
        self.finish_phases(st, dt, settings)
    }

    /// Advances the simulation like [`Simulation::step`], but spreads a
    /// Naive or Grid frame (one query per unit against an index built at the
    /// frame's start) over several calls, in pieces: churn and move, the
    /// reorder (when due), the index rebuild, slices of at most
    /// `slicing.queries` queries (at least 1), and the apply. A call runs one
    /// query slice at most, and a piece after another only while the call
    /// has used less than half of `slicing.seconds` (a query slice then gets
    /// the queries of the share still free); so a call costs about one piece. The call
    /// that applies the results returns [`StepProgress::Done`]; the others
    /// [`StepProgress::Partial`]. Later calls ignore their `dt`: the frame's
    /// time step is the first call's, and the results are those of one
    /// [`Simulation::step`] with it. SortedGrid frames, and frames of at most
    /// `slicing.queries` units, step whole.
    ///
    /// Between calls the units have moved but are not yet steered; picking
    /// and drawing read the moved positions. A call with settings that ask
    /// for other work ([`Settings::same_work`]) abandons the frame in
    /// progress and starts afresh. Hardware cache counters are not read in a
    /// sliced frame (`query_cache` is `None`).
    pub fn step_sliced(&mut self, dt: f32, settings: &Settings, slicing: Slicing) -> StepProgress {
        if self
            .pending
            .as_ref()
            .is_some_and(|p| !p.settings.same_work(settings))
        {
            self.pending = None;
        }
        self.sync(settings);
        let max = slicing.queries.max(1);
        let sliceable = matches!(settings.strategy, Strategy::Naive | Strategy::Grid);
        if self.pending.is_none() && (!sliceable || max >= self.len()) {
            return StepProgress::Done(self.step(dt, settings));
        }
        let pool = self.pool.take();
        let slicing = Slicing {
            queries: max,
            ..slicing
        };
        let progress = match &pool {
            Some(p) => p.install(|| self.slice_phases(dt, settings, slicing)),
            None => self.slice_phases(dt, settings, slicing),
        };
        self.pool = pool;
        progress
    }

    /// One call of [`Simulation::step_sliced`], on the threads of the pool
    /// it runs in.
    fn slice_phases(&mut self, dt: f32, settings: &Settings, slicing: Slicing) -> StepProgress {
        let t0 = Instant::now();
        // The share of the call's time still free once a piece ran (every
        // call runs at least one piece, so the frame always progresses).
        let free = |ran: bool| {
            if ran {
                1.0 - t0.elapsed().as_secs_f64() / slicing.seconds
            } else {
                1.0
            }
        };
        let mut ran = false;
        if self.pending.is_none() {
            self.begin_sliced(dt, settings);
            ran = true;
        }
        let stage = |sim: &Simulation| sim.pending.as_ref().map(|p| p.stage);
        if stage(self) == Some(Stage::Moved) {
            if free(ran) < 0.5 {
                return self.partial(t0);
            }
            self.order_sliced(settings);
            ran = true;
        }
        if stage(self) == Some(Stage::Ordered) {
            if free(ran) < 0.5 {
                return self.partial(t0);
            }
            self.rebuild_sliced(settings, slicing.queries);
            ran = true;
        }
        if self.pending.as_ref().is_some_and(|p| p.next < self.len()) {
            // A slice gets the queries of the share still free.
            let share = free(ran);
            if share < 0.5 {
                return self.partial(t0);
            }
            self.query_slice(settings, ((slicing.queries as f64 * share) as usize).max(1));
            let done = self.pending.as_ref().is_none_or(|p| p.next >= self.len());
            if !done || free(true) < 0.5 {
                return self.partial(t0);
            }
        }
        let Some(p) = self.pending.take() else {
            return self.partial(t0);
        };
        self.near.stats = p.stats.query;
        self.pass = settings.pass;
        StepProgress::Done(self.finish_phases(p.stats, p.dt, &p.settings))
    }

    /// [`StepProgress::Partial`] for the frame in progress, the call having
    /// begun at `t0`.
    fn partial(&self, t0: Instant) -> StepProgress {
        StepProgress::Partial {
            done: self.pending.as_ref().map_or(0, |p| p.next),
            of: self.len(),
            slice_s: t0.elapsed().as_secs_f64(),
        }
    }

    /// The first piece of a sliced frame: churn and move.
    fn begin_sliced(&mut self, dt: f32, settings: &Settings) {
        let (stats, dt, _) = self.move_phase(dt, settings);
        self.pending = Some(SlicedFrame {
            settings: settings.clone(),
            dt,
            stage: Stage::Moved,
            next: 0,
            next_chunk: 0,
            stats,
        });
    }

    /// The second piece of a sliced frame: the reorder, when due.
    fn order_sliced(&mut self, settings: &Settings) {
        let t = Instant::now();
        let reordered = self.order_phase(settings);
        if let Some(p) = &mut self.pending {
            p.stats.reordered = reordered;
            p.stats.rebuild_s += t.elapsed().as_secs_f64();
            p.stage = Stage::Ordered;
        }
    }

    /// The third piece of a sliced frame: the index rebuilt and the result
    /// buffers sized for slices of `max` queries.
    fn rebuild_sliced(&mut self, settings: &Settings, max: usize) {
        let t = Instant::now();
        let n = self.len();
        // Chunks of the lists: a slice runs whole chunks, `threads` or more.
        let chunk = (max / pool_threads()).max(1);
        match settings.pass {
            Pass::Collect => {
                self.near.clear();
                self.results.prepare(n, n.div_ceil(chunk));
            }
            Pass::Fused | Pass::FusedHalf => {
                self.results = QueryResults::default();
                self.near.near.clear();
                self.near.near.resize(n, Near::default());
            }
        }
        let Simulation {
            store,
            index,
            pending,
            ..
        } = self;
        match index {
            Index::Naive(ix) => ix.rebuild_len(n),
            Index::Grid(g) => with_layout!(&*store, l => g.rebuild_from(l, settings.cell_size)),
            // Not sliced (step_sliced steps it whole).
            Index::Sorted(_) => {}
        }
        if let Some(p) = pending {
            p.stats.rebuild_s += t.elapsed().as_secs_f64();
            p.stage = Stage::Built;
        }
    }

    /// The next slice of at most `max` queries of the sliced frame.
    fn query_slice(&mut self, settings: &Settings, max: usize) {
        let Simulation {
            store,
            index,
            results,
            near,
            pending: Some(p),
            ..
        } = self
        else {
            return;
        };
        let n = store.len();
        let t = Instant::now();
        let (r, kernel) = (settings.radius, settings.kernel);
        let end = match settings.pass {
            Pass::Collect => {
                let size = results.chunks.first().map_or(1, |c| c.end - c.start).max(1);
                let first = p.next_chunk.min(results.chunks.len().saturating_sub(1));
                let chunks = first
                    ..first
                        .saturating_add((max / size).max(1))
                        .min(results.chunks.len());
                let Some(end) = results
                    .chunks
                    .get(chunks.end.wrapping_sub(1))
                    .map(|c| c.end)
                else {
                    return;
                };
                p.next_chunk = chunks.end;
                p.stats.query += match &*index {
                    Index::Naive(ix) => {
                        with_layout!(&*store, l => query_chunk_range(results, chunks, |c| {
                            ix.query_units_in(l, r, kernel, c)
                        }))
                    }
                    Index::Grid(g) => {
                        with_layout!(&*store, l => query_chunk_range(results, chunks, |c| {
                            g.query_units_in(l, r, c)
                        }))
                    }
                    Index::Sorted(_) => QueryStats::default(),
                };
                end
            }
            Pass::Fused | Pass::FusedHalf => {
                let end = p.next.saturating_add(max).min(n);
                let range = p.next..end;
                p.stats.query += match &*index {
                    Index::Naive(ix) => with_layout!(&*store, l => {
                        let team = |i: usize| l.team(i);
                        near_range(range, near, |first, out, scratch| {
                            near_per_unit(l, team, r, first, out, scratch, |q, o| {
                                ix.query_in(l, q, kernel, o)
                            })
                        })
                    }),
                    Index::Grid(g) => with_layout!(&*store, l => {
                        let team = |i: usize| l.team(i);
                        near_range(range, near, |first, out, scratch| {
                            near_per_unit(l, team, r, first, out, scratch, |q, o| {
                                g.query_in(l, q, o)
                            })
                        })
                    }),
                    Index::Sorted(_) => QueryStats::default(),
                };
                end
            }
        };
        p.stats.query_s += t.elapsed().as_secs_f64();
        p.stats.slices += 1;
        p.next = end;
    }

    /// The start of a frame: scales `dt` (0 when paused or not finite),
    /// removes the dead and spawns reinforcements, moves the units, and
    /// rebuilds a resident index or reorders the units when due. Returns the
    /// stats so far (`move_s`, churn, `reordered`), the scaled `dt` and the
    /// instant the move ended (the rebuild's start).
    fn begin_phases(&mut self, dt: f32, settings: &Settings) -> (StepStats, f32, Instant) {
        let (mut st, dt, t1) = self.move_phase(dt, settings);
        st.reordered = self.order_phase(settings);
        (st, dt, t1)
    }

    /// Scales `dt`, removes the dead and spawns reinforcements, and moves
    /// the units; returns the stats (`move_s`, churn), the scaled `dt` and
    /// the instant the move ended.
    fn move_phase(&mut self, dt: f32, settings: &Settings) -> (StepStats, f32, Instant) {
        let mut st = StepStats::default();
        let speed = if settings.speed.is_finite() {
            settings.speed.max(0.0)
        } else {
            0.0
        };
        let dt = if settings.paused || !dt.is_finite() || dt < 0.0 {
            0.0
        } else {
            dt * speed
        };
        let t0 = Instant::now();
        (st.deaths, st.spawns) = self.churn();
        let world = self.world;
        with_layout!(&mut self.store, l => l.move_units(world, dt));
        let t1 = Instant::now();
        st.move_s = (t1 - t0).as_secs_f64();
        (st, dt, t1)
    }

    /// Rebuilds a resident index, or reorders the units when due; returns
    /// whether the units were put in cell order.
    fn order_phase(&mut self, settings: &Settings) -> bool {
        if self.rebuild_resident(settings) {
            self.sorted_grid().is_some_and(SortedGrid::is_resident)
        } else if settings.reorder != Reorder::Off
            && self
                .frame
                .is_multiple_of(settings.reorder_every.max(1) as u64)
        {
            self.reorder(settings);
            true
        } else {
            false
        }
    }

    /// The end of a frame whose queries are done: applies the results
    /// (steering, enemy counts) with the scaled `dt`, marks the `battle`
    /// dead, and counts the frame. Returns `st` with `apply_s` and the grid.
    fn finish_phases(&mut self, mut st: StepStats, dt: f32, settings: &Settings) -> StepStats {
        let t3 = Instant::now();
        let found = match settings.pass {
            Pass::Collect => Found::Lists(&self.results),
            Pass::Fused | Pass::FusedHalf => Found::Near(&self.near.near),
        };
        with_layout!(&mut self.store, l => apply(
            l,
            found,
            settings.radius,
            dt,
            settings.separation,
            &mut self.scratch,
        ));
        if settings.workload == Workload::Battle && dt > 0.0 {
            // Kept: units killed (`kill`) while a sliced frame was pending.
            let store = &self.store;
            self.dead
                .extend((0..store.len()).filter(|&i| store.hot(i).danger > DEATH_AFTER_S));
            self.dead.sort_unstable();
            self.dead.dedup();
        }
        st.apply_s = t3.elapsed().as_secs_f64();
        st.grid = self.index.as_dyn().geometry().copied();
        self.frame += 1;
        st
    }

    /// With [`Reorder::Resident`], the SoA layout and SortedGrid: rebuilds
    /// the index so that the units themselves end in cell order
    /// ([`SortedGrid::rebuild_resident`]), permutes their other arrays the
    /// same way (in parallel) and updates the handles of the
    /// units that moved. Returns whether the index was rebuilt (false when
    /// the settings do not ask for it; the units keep their order when some
    /// position is not finite).
    fn rebuild_resident(&mut self, settings: &Settings) -> bool {
        let Simulation {
            store,
            index,
            permute,
            ..
        } = self;
        let (true, UnitStore::Soa(u), Index::Sorted(g)) =
            (resident_applies(settings, store.layout()), store, index)
        else {
            return false;
        };
        let Units {
            x,
            z,
            vx,
            vz,
            danger,
            team,
            enemies,
            id,
        } = u;
        g.set_full_stencil(settings.pass != Pass::FusedHalf);
        let Some(perm) = g.rebuild_resident(x, z, team, settings.cell_size) else {
            return true;
        };
        let threads = pool_threads();
        layout::soa::gather_payload(
            [vx, vz, danger],
            id,
            enemies,
            team,
            perm,
            &mut permute.payload,
            threads,
        );
        // The handle table is not rewritten: `resolve` checks its hint.
        true
    }

    /// Reorders the units (every array of the layout) into `settings.reorder`
    /// order and updates the handles.
    fn reorder(&mut self, settings: &Settings) {
        let Simulation {
            store,
            reorderer,
            permute,
            gathered,
            handles,
            ..
        } = self;
        let points = with_layout!(&*store, l => positions_of(l, gathered));
        let Some(perm) = reorderer.plan(points, settings.reorder, settings.cell_size) else {
            return;
        };
        with_layout!(&mut *store, l => {
            l.permute(perm, permute);
            for i in 0..l.len() {
                handles.moved(l.hot(i).id, i);
            }
        });
    }

    /// Removes the units that died in the last step (swap-and-pop over every
    /// array of the layout, highest index first, so each removal moves a live
    /// unit) and spawns as many reinforcements per team at its edge of the
    /// world. Returns (deaths, spawns). Only the `battle` workload has deaths.
    fn churn(&mut self) -> (u32, u32) {
        if self.dead.is_empty() {
            return (0, 0);
        }
        let mut lost = [0u32; 2];
        let Simulation {
            store,
            handles,
            dead,
            rng,
            world,
            ..
        } = self;
        with_layout!(&mut *store, l => {
            for &i in dead.iter().rev() {
                let gone = l.swap_remove(i);
                handles.remove(gone.id);
                lost[(gone.team & 1) as usize] += 1;
                if i < l.len() {
                    handles.moved(l.hot(i).id, i);
                }
            }
            handles.order_recent_free(dead.len());
            for team in 0..2u8 {
                for _ in 0..lost[team as usize] {
                    let hot = reinforcement(team, *world, rng);
                    let id = handles.insert(l.len());
                    l.push(Hot { id, ..hot });
                }
            }
        });
        let deaths = dead.len() as u32;
        dead.clear();
        (deaths, lost[0] + lost[1])
    }
}

/// A `battle` reinforcement of `team`: uniform in the strip of width
/// [`REINFORCEMENT_STRIP`] at its team's edge (team 0 at x = 0, team 1 at
/// x = L), heading toward the enemy within ±60°, at [`STANDARD_SPEED`].
fn reinforcement(team: u8, world: f32, rng: &mut ChaCha8Rng) -> Hot {
    let strip = world * REINFORCEMENT_STRIP;
    let max = world * (1.0 - f32::EPSILON);
    let off = rng.gen_range(0.0..strip.max(f32::MIN_POSITIVE));
    let x = if team == 0 {
        off
    } else {
        (world - off).min(max)
    };
    let z = rng.gen_range(0.0..world.max(f32::MIN_POSITIVE)).min(max);
    let spread = std::f32::consts::FRAC_PI_3;
    let a = rng.gen_range(-spread..spread) + if team == 0 { 0.0 } else { std::f32::consts::PI };
    Hot {
        x,
        z,
        vx: STANDARD_SPEED * a.cos(),
        vz: STANDARD_SPEED * a.sin(),
        danger: 0.0,
        id: 0,
        enemies: 0,
        team,
    }
}

/// The positions of `l` as SoA arrays: the layout's own when it has them,
/// else gathered through the layout into `gathered` (reused buffers).
fn positions_of<'a, L: UnitLayout>(l: &'a L, gathered: &'a mut (Vec<f32>, Vec<f32>)) -> Points<'a> {
    if let Some(p) = l.soa() {
        return p;
    }
    let (x, z) = gathered;
    x.clear();
    z.clear();
    for i in 0..l.len() {
        let (px, pz) = l.pos(i);
        x.push(px);
        z.push(pz);
    }
    Points::new(x, z)
}

/// Whether the units live in cell order under `s` in `layout`
/// ([`Reorder::Resident`] with SoA and SortedGrid), so that
/// [`Simulation::rebuild_resident`] builds the index.
fn resident_applies(s: &Settings, layout: Layout) -> bool {
    s.reorder == Reorder::Resident && layout == Layout::Soa && s.strategy == Strategy::SortedGrid
}

/// Places [`Simulation::resolve`] searches on each side of a stale hint
/// before scanning every unit.
const NEAR_SEARCH: usize = 256;

/// Where the per-unit pass writes: neighbor lists, or aggregates (with a
/// buffer for teams gathered through the layout).
enum Out<'a> {
    Lists(&'a mut QueryResults),
    Near(&'a mut NearResults, &'a mut Vec<u8>),
}

/// The teams of `l` as one dense array: the layout's own when it has one,
/// else gathered through the layout into `gathered` (reused buffer).
fn teams_of<'a, L: UnitLayout>(l: &'a L, gathered: &'a mut Vec<u8>) -> &'a [u8] {
    if let Some(t) = l.teams() {
        return t;
    }
    gathered.clear();
    gathered.extend((0..l.len()).map(|i| l.team(i)));
    gathered
}

/// Rebuild and per-unit pass for layout `l`; returns the instant the rebuild
/// ended and the query counters. The naive scan and the per-cell grid read
/// positions through the layout; the CSR grid copies them into cell order
/// during its rebuild (gathering through the layout first when it is not SoA),
/// with the teams too in the fused pass.
fn neighbor_pass<L: UnitLayout>(
    l: &L,
    index: &mut Index,
    gathered: &mut (Vec<f32>, Vec<f32>),
    s: &Settings,
    out: Out<'_>,
    counters: &mut Option<&mut counters::CacheCounters>,
) -> (Instant, QueryStats) {
    // Simulation::rebuild_resident built the SortedGrid already.
    let rebuilt = resident_applies(s, l.layout());
    let n = l.len();
    let (r, kernel) = (s.radius, s.kernel);
    // The query phase starts: its clock and its cache counters.
    let mut start = || {
        if let Some(c) = counters.as_mut() {
            c.start();
        }
        Instant::now()
    };
    let team = |i: usize| l.team(i);
    match (index, out) {
        (Index::Naive(ix), out) => {
            ix.rebuild_len(n);
            let t = start();
            let stats = match out {
                Out::Lists(res) => query_chunks(n, res, |c| ix.query_units_in(l, r, kernel, c)),
                Out::Near(res, _) => near_chunks(n, res, |first, near, scratch| {
                    near_per_unit(l, team, r, first, near, scratch, |q, o| {
                        ix.query_in(l, q, kernel, o)
                    })
                }),
            };
            (t, stats)
        }
        (Index::Grid(g), out) => {
            g.rebuild_from(l, s.cell_size);
            let t = start();
            let stats = match out {
                Out::Lists(res) => query_chunks(n, res, |c| g.query_units_in(l, r, c)),
                Out::Near(res, _) => near_chunks(n, res, |first, near, scratch| {
                    near_per_unit(l, team, r, first, near, scratch, |q, o| g.query_in(l, q, o))
                }),
            };
            (t, stats)
        }
        (Index::Sorted(g), Out::Lists(res)) => {
            let points = positions_of(l, gathered);
            if !rebuilt {
                g.rebuild(points, s.cell_size);
            }
            let t = start();
            (
                t,
                query_chunks(n, res, |c| g.query_units(points, r, kernel, c)),
            )
        }
        (Index::Sorted(g), Out::Near(res, gathered_teams)) => {
            let points = positions_of(l, gathered);
            if !rebuilt {
                let teams = teams_of(l, gathered_teams);
                g.set_full_stencil(s.pass != Pass::FusedHalf);
                g.rebuild_tagged(points, Some(teams), s.cell_size);
            }
            let t = start();
            (t, g.near_all(points, r, kernel, res))
        }
    }
}

/// Moves every unit by `v * dt` and reflects it off the world border so it
/// stays in `[0, world)`; the velocity component is flipped to point inward.
pub fn move_units(u: &mut Units, world: f32, dt: f32) {
    move_axis(&mut u.x, &mut u.vx, world, dt);
    move_axis(&mut u.z, &mut u.vz, world, dt);
}

/// [`move_units`] split into `threads` contiguous ranges run with rayon (call
/// from inside the pool); the result is the same.
pub fn move_units_parallel(u: &mut Units, world: f32, dt: f32, threads: usize) {
    let size = u.len().div_ceil(threads.max(1)).max(1);
    for (p, v) in [(&mut u.x, &mut u.vx), (&mut u.z, &mut u.vz)] {
        p.par_chunks_mut(size)
            .zip(v.par_chunks_mut(size))
            .for_each(|(p, v)| move_axis(p, v, world, dt));
    }
}

/// One axis of [`move_units`], written branch-free so it vectorizes.
fn move_axis(p: &mut [f32], v: &mut [f32], world: f32, dt: f32) {
    for (p, v) in p.iter_mut().zip(v.iter_mut()) {
        move_coord(p, v, world, dt);
    }
}

/// [`move_units`] for one unit record (the AoS layouts): the same operations,
/// so every layout moves its units to bit-identical positions.
#[inline]
pub fn move_hot(h: &mut Hot, world: f32, dt: f32) {
    move_coord(&mut h.x, &mut h.vx, world, dt);
    move_coord(&mut h.z, &mut h.vz, world, dt);
}

/// One coordinate and its velocity: `p += v * dt`, reflected off `0` and
/// `world`, then clamped into `[0, world)`.
#[inline(always)]
fn move_coord(p: &mut f32, v: &mut f32, world: f32, dt: f32) {
    let max = world * (1.0 - f32::EPSILON);
    let q = *p + *v * dt;
    let low = q < 0.0;
    let high = q >= world;
    let reflected = if low {
        -q
    } else if high {
        2.0 * world - q
    } else {
        q
    };
    *v = if low {
        v.abs()
    } else if high {
        -v.abs()
    } else {
        *v
    };
    *p = reflected.clamp(0.0, max);
}

/// Per-frame buffers of [`apply`], kept across frames so steady-state frames
/// do not allocate: in the collect pass, one fixed-point `[x, z, team]`
/// record per unit, packed through the layout in one sequential pass (AoS on
/// purpose: a neighbor's three values then arrive in one cache line and one
/// bounds check); in both passes one [`Steer`] per unit, computed in parallel
/// while the units are only read, then written back through the layout.
#[derive(Clone, Debug, Default)]
pub struct ApplyScratch {
    packed: Vec<[i32; 3]>,
    steer: Vec<Steer>,
}

/// The results of one frame's per-unit pass, as [`apply`] consumes them.
#[derive(Clone, Copy, Debug)]
pub enum Found<'a> {
    /// Neighbor lists (the collect pass).
    Lists(&'a QueryResults),
    /// One [`Near`] per unit (the fused pass).
    Near(&'a [Near]),
}

/// The steering of one unit from its neighbor aggregates: see [`apply`].
/// `gain` = `separation * dt * STANDARD_SPEED / r / 64`.
#[inline]
fn steer_of(near: &Near, (vx0, vz0, danger): (f32, f32, f32), gain: f32, dt: f32) -> Steer {
    // The push away from the neighbors: sum_j (p_i - p_j) = -(offset sums).
    let (sx, sz) = (-near.sx, -near.sz);
    let (mut vx, mut vz) = (vx0, vz0);
    if sx != 0 || sz != 0 {
        let nvx = vx + sx as f32 * gain;
        let nvz = vz + sz as f32 * gain;
        let len = (nvx * nvx + nvz * nvz).sqrt();
        if len > 1e-6 && len.is_finite() {
            vx = nvx / len * STANDARD_SPEED;
            vz = nvz / len * STANDARD_SPEED;
        }
    }
    let friends = near.count - near.enemies;
    Steer {
        vx,
        vz,
        danger: if near.enemies > friends {
            danger + dt
        } else {
            0.0
        },
        enemies: near.enemies.min(u16::MAX as u32) as u16,
    }
}

/// Applies one frame's results: separation steering, enemy counts and
/// danger time. Reads every unit once through the layout `l` (its own
/// velocity and danger; in the collect pass also the packed records of
/// `scratch`, to look up each listed neighbor) and writes back through it.
///
/// Separation steers unit `i` away from the centroid of its neighbors: the
/// push is `sum_j (p_i - p_j) = n * (p_i - centroid)`, summed on positions
/// rounded to 1/64 world unit ([`fixed`]) in integers ([`Near`]), so the
/// result is exact and the same in any order of the neighbors (every layout,
/// strategy, kernel, pass and thread count gives bit-identical simulations).
/// The velocity turns by `push / r * separation * dt` (relative to
/// [`STANDARD_SPEED`]) and is rescaled to [`STANDARD_SPEED`]. `enemies[i]`
/// becomes the number of neighbors of the other team (saturating at
/// `u16::MAX`); `danger[i]` grows by `dt` while enemies outnumber friends
/// among the neighbors and resets to 0 otherwise. Runs on the threads of the
/// pool it is called in ([`crate::spatial::pool_threads`]).
/// Allocates only while `scratch` grows.
///
/// # Panics
/// If `found` lists an index `>= l.len()` or has aggregates for a different
/// number of units.
pub fn apply<L: UnitLayout>(
    l: &mut L,
    found: Found<'_>,
    r: f32,
    dt: f32,
    separation: f32,
    scratch: &mut ApplyScratch,
) {
    let n = l.len();
    let inv_r = if r > 0.0 && r.is_finite() {
        1.0 / r
    } else {
        0.0
    };
    let gain = separation * dt * STANDARD_SPEED * inv_r / crate::spatial::kernels::FIXED_SCALE;
    // Every entry is overwritten below, so only a new unit count resizes; no
    // clearing pass per frame.
    scratch.steer.resize(n, Steer::default());
    let units = &*l;
    match found {
        Found::Lists(res) => {
            if n == 0 || res.chunks.is_empty() {
                return;
            }
            scratch.packed.clear();
            scratch.packed.extend((0..n).map(|i| {
                let (x, z) = units.pos(i);
                [fixed(x), fixed(z), units.team(i) as i32]
            }));
            let packed = &scratch.packed[..];
            let steer_chunk = |out: &mut [Steer], chunk: &ChunkResults| {
                for (k, w) in chunk.offsets.windows(2).enumerate() {
                    let i = chunk.start + k;
                    let [xi, zi, ti] = packed[i];
                    let ids = &chunk.ids[w[0] as usize..w[1] as usize];
                    let mut near = Near {
                        count: ids.len() as u32,
                        ..Near::default()
                    };
                    for &j in ids {
                        let [xj, zj, tj] = packed[j as usize];
                        near.sx += xj as i64 - xi as i64;
                        near.sz += zj as i64 - zi as i64;
                        near.enemies += (tj != ti) as u32;
                    }
                    out[k] = steer_of(&near, units.motion(i), gain, dt);
                }
            };
            // Result chunks have a uniform size (QueryResults::prepare), so
            // the steer buffer splits into the same disjoint ranges.
            let size = (res.chunks[0].end - res.chunks[0].start).max(1);
            if res.chunks.len() > 1 {
                scratch
                    .steer
                    .par_chunks_mut(size)
                    .zip(res.chunks.par_iter())
                    .for_each(|(out, c)| steer_chunk(out, c))
            } else {
                scratch
                    .steer
                    .chunks_mut(size)
                    .zip(res.chunks.iter())
                    .for_each(|(out, c)| steer_chunk(out, c))
            }
        }
        Found::Near(near) => {
            if n == 0 || near.is_empty() {
                return;
            }
            assert_eq!(near.len(), n, "one aggregate per unit");
            if let Some((vx, vz, danger, enemies)) = l.motion_columns() {
                // SoA: steer every unit in place, in parallel, one pass.
                let steer_in_place = |((((vx, vz), danger), enemies), near): SteerChunk<'_>| {
                    for k in 0..near.len() {
                        let s = steer_of(&near[k], (vx[k], vz[k], danger[k]), gain, dt);
                        (vx[k], vz[k], danger[k], enemies[k]) = (s.vx, s.vz, s.danger, s.enemies);
                    }
                };
                let c = STEER_CHUNK;
                if pool_threads() > 1 {
                    vx.par_chunks_mut(c)
                        .zip(vz.par_chunks_mut(c))
                        .zip(danger.par_chunks_mut(c))
                        .zip(enemies.par_chunks_mut(c))
                        .zip(near.par_chunks(c))
                        .for_each(steer_in_place)
                } else {
                    steer_in_place(((((vx, vz), danger), enemies), near))
                }
                return;
            }
            let units = &*l;
            let steer_chunk = |(k, (out, near)): (usize, (&mut [Steer], &[Near]))| {
                let first = k * STEER_CHUNK;
                for (j, (s, a)) in out.iter_mut().zip(near).enumerate() {
                    *s = steer_of(a, units.motion(first + j), gain, dt);
                }
            };
            if pool_threads() > 1 {
                scratch
                    .steer
                    .par_chunks_mut(STEER_CHUNK)
                    .zip(near.par_chunks(STEER_CHUNK))
                    .enumerate()
                    .for_each(steer_chunk)
            } else {
                steer_chunk((0, (&mut scratch.steer[..], near)))
            }
        }
    }
    l.write_steer(&scratch.steer);
}

/// Units per parallel task of the fused apply.
const STEER_CHUNK: usize = 16_384;

/// One task of the in-place fused apply: chunks of vx, vz, danger and
/// enemies (zipped as rayon zips them) and the units' aggregates.
type SteerChunk<'a> = (
    (
        ((&'a mut [f32], &'a mut [f32]), &'a mut [f32]),
        &'a mut [u16],
    ),
    &'a [Near],
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_bounce_off_both_borders_and_stay_inside() {
        let mut u = Units {
            x: vec![1.0, 99.0, 50.0],
            z: vec![50.0, 50.0, 0.5],
            vx: vec![-120.0, 120.0, 0.0],
            vz: vec![0.0, 0.0, -60.0],
            team: vec![0; 3],
            danger: vec![0.0; 3],
            enemies: vec![0; 3],
            id: vec![0, 1, 2],
        };
        move_units(&mut u, 100.0, 1.0 / 60.0);
        assert_eq!(u.x, vec![1.0, 99.0, 50.0]);
        assert_eq!(u.vx, vec![120.0, -120.0, 0.0]);
        assert_eq!(u.z[2], 0.5);
        assert_eq!(u.vz[2], 60.0);
        // A unit landing exactly on the far border is kept inside [0, L).
        let mut v = Units {
            x: vec![99.0],
            z: vec![1.0],
            vx: vec![60.0],
            vz: vec![0.0],
            team: vec![0],
            danger: vec![0.0],
            enemies: vec![0],
            id: vec![0],
        };
        move_units(&mut v, 100.0, 1.0 / 60.0);
        assert!(v.x[0] < 100.0 && v.x[0] >= 0.0, "x = {}", v.x[0]);
        assert!(v.vx[0] < 0.0);
    }

    #[test]
    fn parallel_move_equals_sequential() {
        let a0 = spawn(10_001, 300.0, 10.0, Workload::Uniform, 3);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let (mut a, mut b) = (a0.clone(), a0);
        for _ in 0..50 {
            move_units(&mut a, 300.0, 0.5);
            pool.install(|| move_units_parallel(&mut b, 300.0, 0.5, 3));
        }
        assert_eq!(a, b);
        assert!(a.x.iter().chain(&a.z).all(|&v| (0.0..300.0).contains(&v)));
    }

    #[test]
    fn infinite_or_nan_speed_freezes_instead_of_poisoning_positions() {
        for speed in [f32::INFINITY, f32::NAN, -3.0] {
            let s = Settings {
                units: 500,
                speed,
                reorder: Reorder::Off,
                ..Settings::default()
            };
            let mut sim = Simulation::new(&s);
            let before = sim.store().to_units().x;
            sim.step(1.0 / 60.0, &s);
            let after = sim.store().to_units();
            assert!(
                after.x.iter().chain(&after.z).all(|v| v.is_finite()),
                "speed {speed}"
            );
            assert_eq!(after.x, before, "speed {speed} should count as 0");
        }
    }
}
