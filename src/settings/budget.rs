//! Budget guards: pure functions of the [`Settings`] that keep every frame
//! interactive and its memory bounded, and the one naive-cost model that the
//! window and `bench` share.
//!
//! Three budgets, each with the function that turns it into a limit on a
//! setting (so a slider can offer only values that are used as given) and one
//! entry point, [`settle`], that applies them all after the user changed
//! something and says what it changed ([`GuardNotice`]):
//!
//! | budget | limits | function |
//! |---|---|---|
//! | [`SLICE_BUDGET_S`] | naive queries per window refresh (a longer naive frame is amortized over refreshes, never refused; a slow Grid frame too, sliced by its measured rate) | [`NaiveCost::slice_queries`] |
//! | [`PAIR_BUDGET`] | the query radius | [`max_radius`] |
//! | [`MAX_CELLS`] and [`CELL_VISIT_BUDGET`] | the smallest cell size | [`min_cell_size`] |
//!
//! Every estimate assumes the units spread uniformly over the world the engine
//! gives their count ([`world_size`] with the standard radius), which is what
//! separation steering tends to; clustered crowds find more pairs.

use std::fmt;

use crate::engine::sim::{
    world_size, Layout, Reorder, Settings, Simulation, Workload, STANDARD_RADIUS,
};
use crate::engine::spatial::{min_cell_for_extent, Kernel, Strategy, MAX_CELLS};
use crate::format::{length, thousands};

/// Longest the queries of a Naive or Grid frame may run per window refresh,
/// seconds. A frame that needs more is amortized: [`crate::engine::sim::Simulation::step_sliced`] runs
/// a slice of its queries per refresh, so no refresh waits for the whole
/// O(N²) frame (the window's limit is 250 ms per refresh, drawing included).
pub const SLICE_BUDGET_S: f64 = 0.1;
/// Most neighbor pairs per frame (expected for a uniform world): keeps the
/// collect pass's result lists under about 160 MB (4 bytes per pair) and the frame interactive.
pub const PAIR_BUDGET: f64 = 40e6;
/// Most cell visits per frame (expected): a visit is one kernel call over one
/// cell (Grid) or one row of cells (SortedGrid). Bounds the cost of a tiny cell
/// with a large radius, where a query's block holds thousands of cells: a
/// visit costs 2 to 15 ns on the development machine (more when the cells
/// hold units), so about 0.1 s per frame at this budget.
pub const CELL_VISIT_BUDGET: f64 = 20e6;

/// The limits [`settle`] enforces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Seconds of queries (Naive, and Grid when slow) allowed per window refresh.
    pub slice_s: f64,
    /// Neighbor pairs per frame allowed (expected, uniform world).
    pub pairs: f64,
    /// Cell visits per frame allowed (expected, uniform world).
    pub cell_visits: f64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            slice_s: SLICE_BUDGET_S,
            pairs: PAIR_BUDGET,
            cell_visits: CELL_VISIT_BUDGET,
        }
    }
}

/// The world edge (world units) the engine gives `units` units: [`world_size`]
/// at the standard radius, as [`Simulation`] spawns them.
pub fn world_for(units: usize) -> f32 {
    world_size(units, STANDARD_RADIUS)
}

/// Expected neighbor pairs per frame, counted as the per-unit pass counts them
/// (each unit lists its neighbors, so a pair counts twice), for `units` units
/// spread uniformly over a world of edge `world` (world units; [`world_for`]
/// for the standard density): `N (N - 1) min(pi r^2, L^2) / L^2`.
/// Borders make the true figure a little lower. Returns 0 for fewer than two
/// units and for a radius that is not positive (NaN included).
pub fn expected_pairs(units: usize, world: f32, radius: f32) -> f64 {
    if units < 2 || radius.is_nan() || radius <= 0.0 {
        return 0.0;
    }
    let n = units as f64;
    let area = (world as f64).powi(2);
    let disk = std::f64::consts::PI * (radius as f64).powi(2);
    n * (n - 1.0) * disk.min(area) / area
}

/// The largest radius (world units) whose [`expected_pairs`] at `units` over
/// a world of edge `world` stay within `budget.pairs`; infinity when no radius
/// can exceed it (every unit a neighbor of every other is still within the budget).
pub fn max_radius(units: usize, world: f32, budget: &Budget) -> f32 {
    let n = units as f64;
    if n * (n - 1.0) <= budget.pairs {
        return f32::INFINITY;
    }
    let area = (world as f64).powi(2);
    (budget.pairs * area / (n * (n - 1.0) * std::f64::consts::PI)).sqrt() as f32
}

/// Expected cell visits per frame of `strategy`'s per-unit pass: per query,
/// `k = min(2r / cell + 1, L / cell + 1)` cells per axis of the searched block,
/// and `k^2` visits for Grid (one kernel call per cell), `k` for SortedGrid
/// (one per row), none for Naive; times `units`. `world` is the world edge
/// `L` (world units; [`world_for`] for the standard density).
pub fn expected_cell_visits(
    strategy: Strategy,
    units: usize,
    world: f32,
    radius: f32,
    cell: f32,
) -> f64 {
    if !(cell > 0.0 && radius >= 0.0) {
        return 0.0;
    }
    let world = world as f64;
    let (r, c) = (radius as f64, cell as f64);
    let k = (2.0 * r / c + 1.0).min(world / c + 1.0);
    let per_query = match strategy {
        Strategy::Naive => 0.0,
        Strategy::Grid => k * k,
        Strategy::SortedGrid => k,
    };
    units as f64 * per_query
}

/// Why [`min_cell_size`] is what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellLimit {
    /// The grid's cell cap ([`MAX_CELLS`]) over the world.
    Cells,
    /// The cell-visit budget at this radius and strategy.
    Visits,
}

/// The smallest cell edge (world units) the window offers for `strategy` at
/// `units` units over a world of edge `world` (world units) and `radius`, and which budget sets it: the larger of
/// [`min_cell_for_extent`] of the world (so the grid never silently enlarges
/// the cell) and the cell at which [`expected_cell_visits`] reaches
/// `budget.cell_visits` (`min(2r, L) / (sqrt(V / N) - 1)` for Grid,
/// `min(2r, L) / (V / N - 1)` for SortedGrid; no limit for Naive).
pub fn min_cell_size(
    strategy: Strategy,
    units: usize,
    world: f32,
    radius: f32,
    budget: &Budget,
) -> (f32, CellLimit) {
    let cap = min_cell_for_extent(world);
    let per_query = budget.cell_visits / units.max(1) as f64;
    let axis = match strategy {
        Strategy::Naive => return (cap, CellLimit::Cells),
        Strategy::Grid => per_query.sqrt(),
        Strategy::SortedGrid => per_query,
    };
    // Per axis the block spans min(2r / c + 1, L / c + 1) cells.
    let span = (2.0 * radius.max(0.0) as f64).min(world as f64);
    let visits = if axis > 1.0 {
        (span / (axis - 1.0)) as f32
    } else {
        world
    };
    if visits > cap {
        (visits, CellLimit::Visits)
    } else {
        (cap, CellLimit::Cells)
    }
}

/// Measured cost of the naive scan per kernel and data layout: seconds per
/// pair test on this machine, the model behind every naive frame-time
/// estimate (`N^2 * t / threads`) in the window and in `bench`.
///
/// Through the SoA and hot/cold layouts the scan runs the kernel over dense
/// arrays (one cost per kernel, shared by both); through AoS and AoS pointers
/// it reads one unit at a time whatever the kernel (one cost per layout). The
/// sample world fits in the cache; at 10,000 and 20,000 units the measured
/// per-pair cost of AoS pointers was 35% above the sample's on the development
/// machine; the window's slices then follow the measured rate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NaiveCost {
    per_pair: Vec<(Kernel, Layout, f64)>,
}

/// Units of the world [`NaiveCost`] measures on.
pub const NAIVE_SAMPLE_UNITS: usize = 2_000;

impl NaiveCost {
    /// Measures every kernel of `kernels` that this CPU runs (about 10 ms
    /// each): naive frames of [`NAIVE_SAMPLE_UNITS`] units of `workload` from
    /// `seed`, steering off; the median query time of three frames after one
    /// warm-up, divided by `N^2`.
    pub fn measure(
        kernels: impl IntoIterator<Item = Kernel>,
        seed: u64,
        workload: Workload,
    ) -> Self {
        let mut cost = NaiveCost::default();
        for k in kernels {
            cost.get_or_measure(k, Layout::Soa, seed, workload);
        }
        for layout in [Layout::Aos, Layout::AosPointers] {
            cost.get_or_measure(Kernel::Scalar, layout, seed, workload);
        }
        cost
    }

    /// A model with known costs (seconds per pair test) of the SoA layout,
    /// e.g. for tests; the AoS layouts are not measured.
    pub fn from_seconds_per_pair(per_pair: &[(Kernel, f64)]) -> Self {
        NaiveCost {
            per_pair: per_pair.iter().map(|&(k, t)| (k, Layout::Soa, t)).collect(),
        }
    }

    /// The pair of kernel and layout that has the same cost: hot/cold scans
    /// like SoA; AoS layouts scan one unit at a time whatever the kernel.
    fn key(kernel: Kernel, layout: Layout) -> (Kernel, Layout) {
        match layout {
            Layout::Soa | Layout::HotCold => (kernel, Layout::Soa),
            Layout::Aos | Layout::AosPointers => (Kernel::Scalar, layout),
        }
    }

    /// Seconds per pair test of `kernel` through `layout`, if measured.
    pub fn seconds_per_pair(&self, kernel: Kernel, layout: Layout) -> Option<f64> {
        let key = Self::key(kernel, layout);
        self.per_pair
            .iter()
            .find(|(k, l, _)| (*k, *l) == key)
            .map(|&(.., t)| t)
    }

    /// Seconds per pair test of `kernel` through `layout`, measured now if it
    /// was not yet (see [`NaiveCost::measure`]). An unavailable kernel is
    /// measured as Scalar.
    pub fn get_or_measure(
        &mut self,
        kernel: Kernel,
        layout: Layout,
        seed: u64,
        workload: Workload,
    ) -> f64 {
        if let Some(t) = self.seconds_per_pair(kernel, layout) {
            return t;
        }
        let (k, l) = Self::key(kernel, layout);
        let t = measure_seconds_per_pair(k.or_scalar(), l, seed, workload);
        self.per_pair.push((k, l, t));
        t
    }

    /// Estimated seconds of one naive frame's queries: `t * N^2 / threads`;
    /// `None` when `kernel` through `layout` was not measured.
    pub fn frame_seconds(
        &self,
        kernel: Kernel,
        layout: Layout,
        units: usize,
        threads: usize,
    ) -> Option<f64> {
        let t = self.seconds_per_pair(kernel, layout)?;
        Some(t * (units as f64).powi(2) / threads.max(1) as f64)
    }

    /// Naive queries per window refresh that fit `budget_s` seconds at
    /// `units` units: `max(1, floor(budget_s * threads / (t * units)))`, each
    /// query testing every unit; `None` when `kernel` through `layout` was
    /// not measured. [`crate::engine::sim::Simulation::step_sliced`] takes it.
    pub fn slice_queries(
        &self,
        kernel: Kernel,
        layout: Layout,
        units: usize,
        threads: usize,
        budget_s: f64,
    ) -> Option<usize> {
        let t = self.seconds_per_pair(kernel, layout)?;
        let per_query = t * units.max(1) as f64 / threads.max(1) as f64;
        Some(((budget_s / per_query) as usize).max(1))
    }

    /// The most units whose naive frame stays within `budget_s` seconds:
    /// `floor(sqrt(budget_s * threads / t))`; `None` when `kernel` through
    /// `layout` was not measured.
    pub fn max_units(
        &self,
        kernel: Kernel,
        layout: Layout,
        threads: usize,
        budget_s: f64,
    ) -> Option<usize> {
        let t = self.seconds_per_pair(kernel, layout)?;
        Some((budget_s * threads.max(1) as f64 / t).sqrt() as usize)
    }
}

fn measure_seconds_per_pair(kernel: Kernel, layout: Layout, seed: u64, workload: Workload) -> f64 {
    let s = Settings {
        units: NAIVE_SAMPLE_UNITS,
        strategy: Strategy::Naive,
        layout,
        kernel,
        seed,
        workload,
        speed: 1.0,
        separation: 0.0,
        reorder: Reorder::Off,
        threads: 1,
        ..Settings::default()
    };
    let mut sim = Simulation::new(&s);
    sim.step(1.0 / 60.0, &s);
    let mut t: Vec<f64> = (0..3).map(|_| sim.step(1.0 / 60.0, &s).query_s).collect();
    t.sort_by(f64::total_cmp);
    (t[1] / (NAIVE_SAMPLE_UNITS as f64).powi(2)).max(1e-12)
}

/// A change [`settle`] made to the settings, or a setting the engine could
/// not use as given, and why. `Display` gives the message the window shows
/// until it is dismissed.
#[derive(Clone, Debug, PartialEq)]
pub enum GuardNotice {
    /// The radius was lowered to keep the expected pairs within the budget.
    RadiusLowered {
        /// Radius asked for, world units.
        from: f32,
        /// Radius used, world units.
        to: f32,
        /// Unit count the estimate is for.
        units: usize,
        /// World edge at that count, world units.
        world: f32,
        /// Expected pairs per frame at `from`.
        pairs: f64,
        /// The pair budget.
        budget: f64,
    },
    /// The cell size was raised to the smallest the budgets allow.
    CellRaised {
        /// Cell size asked for, world units.
        from: f32,
        /// Cell size used, world units.
        to: f32,
        /// Which budget set the minimum.
        limit: CellLimit,
        /// Strategy the minimum is for.
        strategy: Strategy,
        /// Unit count the minimum is for.
        units: usize,
        /// World edge at that count, world units.
        world: f32,
    },
    /// The OS refused to start the threads asked for
    /// ([`Simulation::pool_error`]); the steps run on `ran` threads.
    ThreadsRefused {
        /// Threads asked for.
        asked: usize,
        /// Threads the steps run on instead.
        ran: usize,
        /// The OS error.
        why: String,
    },
}

impl GuardNotice {
    /// Which setting the notice is about: a newer notice of the same kind
    /// replaces an older one.
    pub fn kind(&self) -> &'static str {
        match self {
            GuardNotice::RadiusLowered { .. } => "radius",
            GuardNotice::CellRaised { .. } => "cell size",
            GuardNotice::ThreadsRefused { .. } => "threads",
        }
    }
}

impl fmt::Display for GuardNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GuardNotice::ThreadsRefused {
                asked,
                ran,
                ref why,
            } => write!(
                f,
                "The OS refused to start {asked} threads ({why}); running on {ran}. Choosing {asked} again after another count tries again.",
            ),
            GuardNotice::RadiusLowered {
                from,
                to,
                units,
                world,
                pairs,
                budget,
            } => write!(
                f,
                "Radius {} would find about {:.0} million neighbor pairs per frame at {} units (world {world:.0} x {world:.0}); lowered to {} (budget {:.0} million).",
                length(from),
                pairs / 1e6,
                thousands(units as u64),
                length(to),
                budget / 1e6
            ),
            GuardNotice::CellRaised {
                from,
                to,
                limit: CellLimit::Cells,
                units,
                world,
                ..
            } => write!(
                f,
                "Cell size {} is below the smallest a grid of at most {} cells allows over a world {} units wide ({} units in it); raised to {}.",
                length(from),
                thousands(MAX_CELLS as u64),
                thousands(world.round() as u64),
                thousands(units as u64),
                length(to)
            ),
            GuardNotice::CellRaised {
                from,
                to,
                limit: CellLimit::Visits,
                strategy,
                units,
                ..
            } => write!(
                f,
                "Cell size {} would make {strategy} visit more than {:.0} million cells per frame at {} units with this radius; raised to {}.",
                length(from),
                CELL_VISIT_BUDGET / 1e6,
                thousands(units as u64),
                length(to)
            ),
        }
    }
}

/// Brings `s` within `budget` after the user changed it, and returns what it
/// changed (empty when nothing needed changing; allocates only then). In order:
///
/// 1. the radius is lowered to [`max_radius`] at the unit count `s` asks for
///    (so at the world that count will have, not the current one);
/// 2. the cell size becomes the radius when `s.cell_follows_radius`, and is
///    raised to [`min_cell_size`] for the resulting strategy (a notice only
///    when the cell size changes because of it).
///
/// Idempotent: a second call with the same arguments changes nothing and
/// returns no notice.
pub fn settle(s: &mut Settings, budget: &Budget) -> Vec<GuardNotice> {
    let mut notices = Vec::new();
    let world = s.world_edge();
    let r_max = max_radius(s.units, world, budget);
    if s.radius > r_max {
        notices.push(GuardNotice::RadiusLowered {
            from: s.radius,
            to: r_max,
            units: s.units,
            world,
            pairs: expected_pairs(s.units, world, s.radius),
            budget: budget.pairs,
        });
        s.radius = r_max;
    }
    // The cell asked for: the radius while "= r" is on, else the cell size;
    // raised to the minimum (NaN too). Said once: a cell that stays at the
    // minimum while the asked value stays below it is not news.
    let asked = if s.cell_follows_radius {
        s.radius
    } else {
        s.cell_size
    };
    let (c_min, limit) = min_cell_size(s.strategy, s.units, world, s.radius, budget);
    let cell = if asked >= c_min { asked } else { c_min };
    if cell != asked && cell != s.cell_size {
        notices.push(GuardNotice::CellRaised {
            from: asked,
            to: cell,
            limit,
            strategy: s.strategy,
            units: s.units,
            world,
        });
    }
    s.cell_size = cell;
    notices
}

#[cfg(test)]
mod tests;
