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
//!
//! The files, one concept each: [`Settings`] (`settings.rs`) and [`Pass`]
//! (`pass.rs`) are what the user sets; `step.rs` runs a whole frame's
//! phases and `sliced.rs` the same phases spread over calls; `motion.rs`
//! moves, `steer.rs` applies the query results, `churn.rs` removes the dead
//! and spawns reinforcements; `index.rs` holds the concrete spatial index.
//! This file holds [`Simulation`] itself: its state, what it exposes, and
//! how setting changes reach it (`sync`).

mod churn;
pub mod handles;
mod index;
pub mod inspect;
pub mod layout;
mod motion;
mod pass;
mod pool;
pub mod reorder;
mod settings;
mod sliced;
pub mod spawn;
mod steer;
mod steer_kernel;
mod step;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::platform::counters;
use crate::with_layout;

pub use churn::{DEATH_AFTER_S, REINFORCEMENT_STRIP};
pub use handles::{Handle, Handles};
pub use layout::{Hot, Layout, Steer, UnitLayout, UnitStore, Units};
pub use motion::{move_hot, move_units, move_units_parallel};
pub use pass::Pass;
pub use reorder::{Reorder, Reorderer};
pub use settings::{Settings, SpawnKey};
pub use sliced::{Slicing, StepProgress};
pub use spawn::{spawn, world_size, Workload, STANDARD_RADIUS, STANDARD_SPEED};
pub use steer::{apply, ApplyScratch, Found};
pub use step::StepStats;

use index::Index;
use sliced::SlicedFrame;

use crate::engine::spatial::results::NearResults;
use crate::engine::spatial::{
    Kernel, Near, Points, Positions, Query, QueryResults, QueryStats, SortedGrid, SpatialIndex,
    UniformGrid,
};

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
    /// The pool of the thread count asked for; `None` for one thread or
    /// when the OS refused the threads (`pool_error`).
    pool: Option<rayon::ThreadPool>,
    /// The thread count (at least 1) `pool` was last built for: a pool is
    /// built, or tried, only when the settings ask for another count.
    pool_asked: usize,
    /// The thread count whose pool the OS refused, and the OS error; the
    /// steps run on one thread meanwhile.
    pool_error: Option<(usize, String)>,
    /// Stack size of the pool's threads, bytes (`None`: rayon's default).
    pool_stack: Option<usize>,
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
    /// Hardware cache counters of the frame's threads, or why they are
    /// unavailable; `None` until the next step opens them (after a new pool).
    counters: Option<Result<counters::CacheCounters, String>>,
    /// The units were permuted out of spawn order (by a reorder or a
    /// resident rebuild) since the spawn or the last return to it.
    reordered: bool,
    /// The frame [`Simulation::step_sliced`] is spreading over calls, if any.
    pending: Option<SlicedFrame>,
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
            pool_asked: 1,
            pool_error: None,
            pool_stack: None,
            spawned: (usize::MAX, settings.workload, settings.seed, 0),
            frame: 0,
            reorderer: Reorderer::default(),
            permute: layout::PermuteScratch::default(),
            scratch: ApplyScratch::default(),
            gathered: (Vec::new(), Vec::new()),
            gathered_teams: Vec::new(),
            dead: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(settings.seed),
            counters: None,
            pending: None,
            reordered: false,
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
            Pass::Fused => self.near.near.get(i).map_or(0, |n| n.count as usize),
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
            self.reordered = false;
        }
        self.store.convert(s.layout, s.seed);
        if self.index.strategy() != s.strategy {
            self.index = Index::new(s.strategy);
        }
        let threads = s.threads.max(1);
        if threads != self.pool_asked {
            self.pool_asked = threads;
            // The old threads go first: the memory they hold may be what the
            // new ones need.
            self.pool = None;
            self.pool_error = None;
            if threads > 1 {
                // Refused (e.g. thread stacks that cannot be mapped under
                // `ulimit -v`): one thread, and the reason for the caller.
                match pool::build(threads, self.pool_stack) {
                    Ok(p) => self.pool = Some(p),
                    Err(why) => self.pool_error = Some((threads, why)),
                }
            }
            // The counters follow the threads: reopen for the new pool.
            self.counters = None;
        }
    }

    /// Threads the next step runs on: the thread count the settings of the
    /// last step (or of `new`, `prepare`, `respawn`) ask for, or 1 when the
    /// OS refused them ([`Simulation::pool_error`]).
    pub fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(1, rayon::ThreadPool::current_num_threads)
    }

    /// The thread count the settings ask for and why it was refused, when
    /// the OS cannot start that many threads: the OS error of rayon's
    /// `ThreadPoolBuilder` (a process limit, a platform without threads),
    /// or, on Linux, an address-space limit (`ulimit -v`) that cannot hold
    /// their stacks (checked before spawning; see `pool.rs`). The steps then
    /// run on one thread. `None` when the pool was built or one thread is
    /// asked.
    ///
    /// A refused count is not tried again at every step, only when the
    /// settings ask for another count and then for it again: the user who
    /// picks another count and comes back gets a new attempt (it succeeds
    /// if the OS has room by then).
    pub fn pool_error(&self) -> Option<(usize, &str)> {
        self.pool_error.as_ref().map(|(n, why)| (*n, why.as_str()))
    }

    /// Sets the stack size of the threads of the pools built from now on,
    /// bytes (`None`: 2 MiB unless `RUST_MIN_STACK` says otherwise, as for
    /// any thread `std` spawns); the current pool keeps its threads. A size the OS cannot
    /// map makes the next pool fail like a refused one (how the tests force
    /// [`Simulation::pool_error`] without `ulimit`).
    #[doc(hidden)]
    pub fn set_pool_stack(&mut self, bytes: Option<usize>) {
        self.pool_stack = bytes;
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
}

/// Places [`Simulation::resolve`] searches on each side of a stale hint
/// before scanning every unit.
const NEAR_SEARCH: usize = 256;

/// The pool tests force a refusal with a stack only a 64-bit Linux is sure
/// to refuse at once.
#[cfg(all(test, target_os = "linux", target_pointer_width = "64"))]
mod tests {
    use super::*;

    /// A thread stack no 64-bit Linux can map (1 PiB, beyond the 47-bit
    /// user address space): `pthread_create` fails at once with EAGAIN,
    /// mapping nothing, as it does for 2 MiB stacks under `ulimit -v`.
    const UNMAPPABLE_STACK: usize = 1 << 50;

    fn settings(threads: usize, strategy: crate::engine::spatial::Strategy) -> Settings {
        Settings {
            units: 2_000,
            threads,
            strategy,
            ..Settings::default()
        }
    }

    /// The OS refusing the pool (W4): the steps run on one thread and say
    /// so, with the OS error; whole and sliced frames alike.
    #[test]
    fn a_refused_pool_is_reported_with_the_threads_that_ran() {
        use crate::engine::spatial::Strategy;
        let mut sim = Simulation::new(&settings(1, Strategy::SortedGrid));
        sim.set_pool_stack(Some(UNMAPPABLE_STACK));
        let four = settings(4, Strategy::SortedGrid);
        let st = sim.step(1.0 / 60.0, &four);
        assert_eq!(st.threads, 1, "the step ran on one thread");
        assert_eq!(sim.threads(), 1);
        let (asked, why) = sim.pool_error().expect("the OS refused 4 threads");
        assert_eq!(asked, 4);
        assert!(!why.is_empty());
        // A sliced frame reports the threads of the call that finished it.
        let naive = settings(4, Strategy::Naive);
        let slicing = Slicing {
            queries: 500,
            seconds: f64::INFINITY,
        };
        let done = loop {
            if let StepProgress::Done(st) = sim.step_sliced(1.0 / 60.0, &naive, slicing) {
                break st;
            }
        };
        assert!(done.slices > 1, "the frame was sliced: {done:?}");
        assert_eq!(done.threads, 1);
        assert_eq!(sim.pool_error().map(|e| e.0), Some(4));
    }

    /// A refused count is not tried again at every step, only when another
    /// count was asked for in between; a count the OS grants runs on all
    /// its threads, never on a pool left from a count in between under the
    /// refused count's label.
    #[test]
    fn a_refused_count_is_retried_only_after_another_count() {
        use crate::engine::spatial::Strategy;
        let mut sim = Simulation::new(&settings(1, Strategy::Grid));
        sim.set_pool_stack(Some(UNMAPPABLE_STACK));
        let dt = 1.0 / 60.0;
        assert_eq!(sim.step(dt, &settings(4, Strategy::Grid)).threads, 1);
        // The OS would grant it now, but the same count is not retried.
        sim.set_pool_stack(None);
        assert_eq!(sim.step(dt, &settings(4, Strategy::Grid)).threads, 1);
        assert_eq!(sim.pool_error().map(|e| e.0), Some(4));
        // Another count: built; back to the refused one: tried again.
        let st = sim.step(dt, &settings(2, Strategy::Grid));
        assert_eq!((st.threads, sim.pool_error()), (2, None));
        let st = sim.step(dt, &settings(4, Strategy::Grid));
        assert_eq!((st.threads, sim.pool_error()), (4, None));
        // Refused while a pool of 2 runs: the old pool is not kept.
        sim.step(dt, &settings(2, Strategy::Grid));
        sim.set_pool_stack(Some(UNMAPPABLE_STACK));
        let st = sim.step(dt, &settings(3, Strategy::Grid));
        assert_eq!(st.threads, 1);
        assert_eq!(sim.pool_error().map(|e| e.0), Some(3));
        // One thread needs no pool: never refused.
        let st = sim.step(dt, &settings(1, Strategy::Grid));
        assert_eq!((st.threads, sim.pool_error()), (1, None));
    }
}
