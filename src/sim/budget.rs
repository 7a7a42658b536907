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

use super::{world_size, Layout, Reorder, Settings, Simulation, Workload, STANDARD_RADIUS};
use crate::format::{length, thousands};
use crate::spatial::{min_cell_for_extent, Kernel, Strategy, MAX_CELLS};

/// Longest the queries of a Naive or Grid frame may run per window refresh,
/// seconds. A frame that needs more is amortized: [`crate::sim::Simulation::step_sliced`] runs
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
    /// not measured. [`crate::sim::Simulation::step_sliced`] takes it.
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
mod tests {
    use super::*;

    fn cost() -> NaiveCost {
        // 1 ns per pair: 10,000 units take 0.1 s, a 1 s frame is 31,622 units.
        NaiveCost::from_seconds_per_pair(&[(Kernel::Scalar, 1e-9)])
    }

    fn settings(units: usize, radius: f32) -> Settings {
        Settings {
            units,
            radius,
            cell_size: radius,
            kernel: Kernel::Scalar,
            ..Settings::default()
        }
    }

    #[test]
    fn pairs_use_the_world_of_the_new_unit_count() {
        // The estimate uses the world the new unit count gets (1,982 units
        // wide at 200,000 units, r = 10: about 3.2 million pairs, 16 per
        // unit), not the previous count's smaller world (64 million).
        let pairs = expected_pairs(200_000, world_for(200_000), 10.0);
        assert!((pairs / 200_000.0 - 16.0).abs() < 0.01, "{pairs}");
        assert!((world_for(200_000) - 1981.7).abs() < 1.0);
        let mut s = settings(200_000, 10.0);
        let notices = settle(&mut s, &Budget::default());
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(s.radius, 10.0);
    }

    #[test]
    fn radius_guard_lowers_to_the_budget_and_the_cell_follows() {
        let b = Budget::default();
        let mut s = settings(200_000, 60.0);
        let notices = settle(&mut s, &b);
        let r_max = max_radius(200_000, world_for(200_000), &b);
        assert_eq!(s.radius, r_max);
        assert!(
            (expected_pairs(200_000, world_for(200_000), r_max) - b.pairs).abs() / b.pairs < 1e-4
        );
        // 16 pairs per unit at r = 10, so 200 per unit is r = 10 * sqrt(200 / 16).
        assert!((r_max - 35.355).abs() < 0.01, "{r_max}");
        assert_eq!(
            s.cell_size, r_max,
            "cell size = r keeps following the radius"
        );
        assert_eq!(notices.len(), 1);
        let msg = notices[0].to_string();
        assert!(msg.contains("60.00") && msg.contains("35.36"), "{msg}");
        assert!(msg.contains("200,000") && msg.contains("1982"), "{msg}");
        // Settled settings stay put.
        assert!(settle(&mut s, &b).is_empty());
    }

    #[test]
    fn radius_guard_leaves_the_cell_when_it_does_not_follow() {
        let mut s = Settings {
            cell_follows_radius: false,
            cell_size: 25.0,
            ..settings(200_000, 60.0)
        };
        settle(&mut s, &Budget::default());
        assert!(s.radius < 36.0);
        assert_eq!(s.cell_size, 25.0);
    }

    #[test]
    fn small_worlds_never_need_a_lower_radius() {
        // 100 units: 9,900 ordered pairs even if all are neighbors.
        assert_eq!(
            max_radius(100, world_for(100), &Budget::default()),
            f32::INFINITY
        );
        let mut s = settings(100, 1e6);
        assert!(settle(&mut s, &Budget::default()).is_empty());
    }

    #[test]
    fn naive_cost_is_per_kernel_on_dense_arrays_and_per_layout_through_structs() {
        let mut c = cost();
        assert_eq!(
            c.seconds_per_pair(Kernel::Scalar, Layout::HotCold),
            Some(1e-9),
            "hot/cold scans dense arrays like SoA"
        );
        assert_eq!(c.seconds_per_pair(Kernel::Scalar, Layout::Aos), None);
        let t = c.get_or_measure(Kernel::Avx2, Layout::AosPointers, 1, Workload::Uniform);
        assert!(t > 0.0);
        // Through AoS pointers every kernel is the same one-unit-at-a-time scan.
        for k in Kernel::ALL {
            assert_eq!(c.seconds_per_pair(k, Layout::AosPointers), Some(t));
        }
    }

    #[test]
    fn naive_is_amortized_not_refused() {
        let c = cost();
        assert_eq!(
            c.max_units(Kernel::Scalar, Layout::Soa, 1, 1.0),
            Some(31_622)
        );
        assert_eq!(
            c.max_units(Kernel::Scalar, Layout::Soa, 4, 1.0),
            Some(63_245)
        );
        assert!(
            (c.frame_seconds(Kernel::Scalar, Layout::Soa, 10_000, 1)
                .unwrap()
                - 0.1)
                .abs()
                < 1e-12
        );
        assert_eq!(c.frame_seconds(Kernel::Avx2, Layout::Soa, 10_000, 1), None);
        // 1 ns per pair: a query over 1,000,000 units takes 1 ms, so a 0.1 s
        // slice holds 100 queries; two threads double that.
        assert_eq!(
            c.slice_queries(Kernel::Scalar, Layout::Soa, 1_000_000, 1, 0.1),
            Some(100)
        );
        assert_eq!(
            c.slice_queries(Kernel::Scalar, Layout::Soa, 1_000_000, 2, 0.1),
            Some(200)
        );
        // Never zero, whatever the cost.
        assert_eq!(
            c.slice_queries(Kernel::Scalar, Layout::Soa, 1_000_000, 1, 1e-9),
            Some(1)
        );
        // The guard keeps Naive at any count: the frame is amortized.
        let mut slow = Settings {
            strategy: Strategy::Naive,
            ..settings(1_000_000, 10.0)
        };
        assert!(settle(&mut slow, &Budget::default()).is_empty());
        assert_eq!(slow.strategy, Strategy::Naive);
    }

    #[test]
    fn cell_minimum_is_the_cap_over_the_world_for_standard_settings() {
        let b = Budget::default();
        for units in [1, 1_000, 10_000, 200_000, 1_000_000] {
            let cap = min_cell_for_extent(world_for(units));
            for st in [Strategy::Naive, Strategy::SortedGrid] {
                assert_eq!(
                    min_cell_size(st, units, world_for(units), 10.0, &b),
                    (cap, CellLimit::Cells),
                    "{st} {units}"
                );
            }
            // Grid calls the kernel per cell: the visit budget may set its
            // minimum a little above the cap's, 2r / (sqrt(V / N) - 1).
            let (c, limit) = min_cell_size(Strategy::Grid, units, world_for(units), 10.0, &b);
            let visits = (20.0 / ((b.cell_visits / units as f64).sqrt() - 1.0)) as f32;
            assert_eq!(c, cap.max(visits), "{units}: {limit:?}");
            assert_eq!(limit == CellLimit::Cells, cap >= visits);
            assert!(c < 10.0, "{units}: {c}");
        }
        // 10,000 units: the slider starts at about 0.43 for SortedGrid and
        // 0.46 for Grid (it started at 0.5 and silently became 4.0 under the
        // old cap of 4 cells per unit).
        let (c, _) = min_cell_size(Strategy::SortedGrid, 10_000, world_for(10_000), 10.0, &b);
        assert!((c - 0.4335).abs() < 1e-3, "{c}");
        let (c, _) = min_cell_size(Strategy::Grid, 10_000, world_for(10_000), 10.0, &b);
        assert!((c - 0.4574).abs() < 1e-3, "{c}");
    }

    #[test]
    fn cell_minimum_bounds_the_visits_of_a_large_radius() {
        let b = Budget::default();
        let (c, limit) = min_cell_size(Strategy::Grid, 10_000, world_for(10_000), 100.0, &b);
        assert_eq!(limit, CellLimit::Visits);
        let visits = expected_cell_visits(Strategy::Grid, 10_000, world_for(10_000), 100.0, c);
        assert!(
            (visits - b.cell_visits).abs() / b.cell_visits < 1e-3,
            "{visits}"
        );
        // SortedGrid visits rows, not cells: its minimum is the cap.
        let (c2, limit2) =
            min_cell_size(Strategy::SortedGrid, 10_000, world_for(10_000), 100.0, &b);
        assert_eq!(limit2, CellLimit::Cells);
        assert!(c2 < c);

        let mut s = Settings {
            cell_follows_radius: false,
            cell_size: 0.5,
            strategy: Strategy::Grid,
            ..settings(10_000, 100.0)
        };
        let notices = settle(&mut s, &b);
        assert_eq!(s.cell_size, c);
        assert!(matches!(
            notices[..],
            [GuardNotice::CellRaised {
                limit: CellLimit::Visits,
                ..
            }]
        ));
        assert!(notices[0].to_string().contains("raised to"));
    }

    #[test]
    fn more_units_raise_a_small_cell_with_a_notice() {
        let b = Budget::default();
        let mut s = Settings {
            cell_follows_radius: false,
            cell_size: 0.5,
            strategy: Strategy::SortedGrid,
            ..settings(10_000, 10.0)
        };
        assert!(settle(&mut s, &b).is_empty(), "0.5 is allowed at 10,000");
        s.units = 200_000;
        let notices = settle(&mut s, &b);
        let c_min = min_cell_for_extent(world_for(200_000));
        assert_eq!(s.cell_size, c_min);
        assert!((c_min - 1.94).abs() < 0.01, "{c_min}");
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].kind(), "cell size");
        // NaN never slips through.
        s.cell_size = f32::NAN;
        settle(&mut s, &b);
        assert_eq!(s.cell_size, c_min);
    }

    #[test]
    fn settle_is_idempotent_and_says_each_change_once() {
        // Settling is idempotent: with "= r" on and the radius below the cell
        // minimum, a second call raises nothing and announces nothing.
        let b = Budget::default();
        for units in [1usize, 2, 1_000, 10_000, 200_000, 1_000_000] {
            for radius in [0.01f32, 0.3, 1.0, 10.0, 35.0, 100.0, 1e4] {
                for (cell, follow) in [
                    (f32::NAN, false),
                    (0.01, false),
                    (2.0, false),
                    (10.0, true),
                    (500.0, false),
                ] {
                    for strategy in Strategy::ALL {
                        let mut s = Settings {
                            units,
                            radius,
                            cell_size: cell,
                            cell_follows_radius: follow,
                            strategy,
                            kernel: Kernel::Scalar,
                            ..Settings::default()
                        };
                        settle(&mut s, &b);
                        let once = s.clone();
                        let again = settle(&mut s, &b);
                        let case = format!(
                            "{units} units, r {radius}, cell {cell}, follow {follow}, {strategy}"
                        );
                        assert!(again.is_empty(), "{case}: {again:?}");
                        assert_eq!(s, once, "{case}");
                        assert!(
                            s.cell_size.is_finite() && s.cell_size > 0.0,
                            "{case}: {}",
                            s.cell_size
                        );
                        let (c_min, _) =
                            min_cell_size(s.strategy, units, world_for(units), s.radius, &b);
                        assert!(s.cell_size >= c_min, "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_following_cell_stops_at_the_minimum_with_one_notice() {
        let b = Budget::default();
        let mut s = Settings {
            strategy: Strategy::SortedGrid,
            ..settings(200_000, 10.0)
        };
        assert!(settle(&mut s, &b).is_empty());
        s.radius = 1.0;
        let notices = settle(&mut s, &b);
        let c_min = min_cell_for_extent(world_for(200_000));
        assert_eq!(s.cell_size, c_min);
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            s.cell_follows_radius,
            "\"= r\" stays on and follows again above the minimum"
        );
        s.radius = 1.5;
        assert!(
            settle(&mut s, &b).is_empty(),
            "still at the minimum: no news"
        );
        s.radius = 5.0;
        assert!(settle(&mut s, &b).is_empty());
        assert_eq!(s.cell_size, 5.0);
    }

    #[test]
    fn the_visit_minimum_counts_the_world_edge() {
        // 1,000 units, r = 100: the block is clipped to the 140-unit world, so
        // a cell of 1.0 visits about 19.9 million cells: within the budget.
        let b = Budget::default();
        assert!(
            expected_cell_visits(Strategy::Grid, 1_000, world_for(1_000), 100.0, 1.0)
                < b.cell_visits
        );
        let (c, _) = min_cell_size(Strategy::Grid, 1_000, world_for(1_000), 100.0, &b);
        assert!(c <= 1.0, "{c}");
        for units in [1_000usize, 10_000, 200_000, 1_000_000] {
            for r in [1.0f32, 10.0, 100.0, 1e4] {
                for st in [Strategy::Grid, Strategy::SortedGrid] {
                    let (c, _) = min_cell_size(st, units, world_for(units), r, &b);
                    let v = expected_cell_visits(st, units, world_for(units), r, c);
                    assert!(
                        v <= b.cell_visits * 1.0001,
                        "{st} {units} r {r}: {v} at {c}"
                    );
                }
            }
        }
    }

    /// The window's notice for a refused pool names the threads asked for,
    /// the threads that run and the OS error, and replaces an older one.
    #[test]
    fn refused_threads_notice_says_what_runs_and_why() {
        let n = GuardNotice::ThreadsRefused {
            asked: 256,
            ran: 1,
            why: "Resource temporarily unavailable (os error 11)".to_string(),
        };
        let text = n.to_string();
        assert!(text.contains("refused to start 256 threads"), "{text}");
        assert!(
            text.contains("(Resource temporarily unavailable (os error 11))"),
            "{text}"
        );
        assert!(text.contains("running on 1."), "{text}");
        assert_eq!(n.kind(), "threads");
    }
}
