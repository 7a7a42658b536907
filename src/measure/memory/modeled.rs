//! The query phase through the cache model: a fixed, seeded run of
//! consecutive queries (in storage order, as one thread's share of the
//! phase runs them) traced read by read ([`super::trace_query`]), moved to
//! model addresses ([`AddressMap`]) and fed to a [`CacheModel`]. Counts
//! depend only on the seed, the settings and the geometry: the same on
//! every machine, thread count and kernel.

use super::address_map::AddressMap;
use super::cache_model::{CacheLevel, CacheModel, Geometry};
use super::{distinct_lines, index_regions, trace_query, QueryTrace, CELL_BUFFERS_SPAN};
use crate::engine::sim::layout::{UnitObject, UnitStore, OBJECTS_SPAN};
use crate::engine::sim::{Settings, Simulation};

/// Which queries are modeled: `warmup` consecutive queries (not counted),
/// then up to `count` counted ones, starting at a unit chosen by `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct QuerySample {
    /// Chooses the first queried unit's storage slot.
    pub seed: u64,
    /// Queries run before counting starts (they warm the model).
    pub warmup: usize,
    /// Queries counted (fewer when the world has fewer units, or when the
    /// candidate budget runs out, as with the naive scan).
    pub count: usize,
}

impl Default for QuerySample {
    fn default() -> Self {
        QuerySample {
            seed: 1,
            warmup: 256,
            count: 1024,
        }
    }
}

/// Candidates traced at most per modeled phase (warm-up included), so the
/// naive scan (every unit a candidate) models a few queries, not minutes.
const CANDIDATE_BUDGET: usize = 8_000_000;

/// What the model found, per counted query.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Modeled {
    /// Which geometry (its key in the JSON: `machine`, `classroom`).
    pub geometry: Geometry,
    /// Its levels, nearest first.
    pub levels: Vec<CacheLevel>,
    /// The queries modeled.
    pub sample: QuerySample,
    /// Queries counted.
    pub queries: usize,
    /// Candidates tested per query.
    pub candidates: f64,
    /// Distinct cache lines (of the first level's size) read or written per query.
    pub lines_touched: f64,
    /// Modeled misses per query, one per level, nearest first.
    pub misses: Vec<f64>,
    /// Bytes brought into the first level per candidate tested (its misses
    /// times its line size, over the candidates).
    pub bytes_in_per_candidate: f64,
}

/// The model addresses of `sim`'s storage: the units' arrays (their boxed
/// objects where the layout planned them, any later ones as blocks), then the index's arrays (the uniform grid's cell
/// buffers as blocks), as the module [`super::address_map`] places them.
pub fn address_map(sim: &Simulation) -> AddressMap {
    let mut m = AddressMap::new();
    let store = sim.store();
    for r in store.regions() {
        if r.name != OBJECTS_SPAN {
            m.add_array(r.start, r.bytes);
        }
    }
    if let UnitStore::AosPointers(a) = store {
        // Objects allocated since the plan (churn) go after it, in address order.
        let size = std::mem::size_of::<UnitObject>();
        let unplanned: Vec<(usize, usize)> = a
            .units
            .iter()
            .map(|b| std::ptr::from_ref::<UnitObject>(&**b) as usize)
            .filter(|x| a.heap_plan.binary_search_by_key(x, |p| p.0).is_err())
            .map(|x| (x, size))
            .collect();
        m.add_planned(&a.heap_plan, size);
        m.add_blocks(&unplanned);
    }
    for r in index_regions(sim) {
        if r.name != CELL_BUFFERS_SPAN {
            m.add_array(r.start, r.bytes);
        }
    }
    // What the fused pass also reads and writes (`fused_accesses`).
    if let Some(g) = sim.sorted_grid() {
        let teams = g.sorted_teams();
        if !teams.is_empty() {
            m.add_array(teams.as_ptr() as usize, std::mem::size_of_val(teams));
        }
    }
    let near = sim.near();
    if !near.is_empty() {
        m.add_array(near.as_ptr() as usize, std::mem::size_of_val(near));
    }
    if let Some(g) = sim.uniform_grid() {
        let blocks: Vec<(usize, usize)> = g
            .cells()
            .iter()
            .filter(|c| c.capacity() > 0)
            .map(|c| (c.as_ptr() as usize, 4 * c.capacity()))
            .collect();
        m.add_blocks(&blocks);
    }
    m.finish();
    m
}

/// Runs `sample`'s queries of radius `r` over `sim` through a cache of
/// `geometry`'s levels and returns the counts per counted query. The
/// model starts from the placed arrays and blocks read once in model
/// order (what the phases before the query leave in the caches; only the
/// last twice-the-largest-level bytes, which decide what the levels hold),
/// then runs the warm-up queries, then counts. Allocates the model (8
/// bytes per modeled line of every level), the map and its scratch.
///
/// # Errors
/// A level the model cannot take ([`CacheLevel::problem`]).
pub fn model_queries(
    sim: &Simulation,
    r: f32,
    geometry: Geometry,
    sample: QuerySample,
) -> Result<Modeled, String> {
    model_with_levels(sim, r, geometry, geometry.levels(), sample)
}

/// [`model_queries`] through the given `levels` (nearest first) instead of
/// a geometry's, as when the model is checked against another simulator's
/// geometry (valgrind's D1 and LL); `geometry` only labels the result.
///
/// # Errors
/// A level the model cannot take ([`CacheLevel::problem`]).
pub fn model_with_levels(
    sim: &Simulation,
    r: f32,
    geometry: Geometry,
    levels: Vec<CacheLevel>,
    sample: QuerySample,
) -> Result<Modeled, String> {
    let mut model = CacheModel::new(&levels)?;
    let n = sim.len();
    let mut out = Modeled {
        geometry,
        sample,
        levels: levels.clone(),
        misses: vec![0.0; levels.len()],
        ..Modeled::default()
    };
    if n == 0 {
        return Ok(out);
    }
    let map = address_map(sim);
    let (fused, mut extras) = (sim.pass().is_fused(), Vec::new());
    prefill(&mut model, &map.model_spans(), &levels);
    model.reset_counts();
    let start = (splitmix(sample.seed) % n as u64) as usize;
    let (mut trace, mut lines, mut model_reads) = (QueryTrace::default(), Vec::new(), Vec::new());
    let (mut budget, mut candidates, mut touched) = (CANDIDATE_BUDGET, 0usize, 0usize);
    let (end, mut k) = (sample.warmup + sample.count.min(n), 0);
    while k < end {
        if k == sample.warmup {
            model.reset_counts();
        }
        trace_query(sim, (start + k) % n, r, &mut trace);
        model_reads.clear();
        for &(a, bytes) in trace.unit_reads.iter().chain(&trace.index_reads) {
            if let Some(m) = map.map(a) {
                model.read(m, bytes);
                model_reads.push((m as usize, bytes));
            }
        }
        if fused {
            fused_accesses(sim, (start + k) % n, r, &mut extras);
            for &(a, bytes) in &extras {
                if let Some(m) = map.map(a) {
                    model.read(m, bytes);
                    model_reads.push((m as usize, bytes));
                }
            }
        }
        if k >= sample.warmup {
            out.queries += 1;
            candidates += trace.candidates;
            touched += distinct_lines(&model_reads, &mut lines);
        }
        budget = budget.saturating_sub(trace.candidates.max(1));
        k += 1;
        if budget == 0 {
            if k > sample.warmup {
                break;
            }
            // Out of budget while warming up: count from the next query.
            k = sample.warmup;
        }
    }
    let q = out.queries.max(1) as f64;
    out.candidates = candidates as f64 / q;
    out.lines_touched = touched as f64 / q;
    out.misses = model.counts().iter().map(|c| c.misses as f64 / q).collect();
    let line = levels.first().map_or(64, |l| l.line) as f64;
    out.bytes_in_per_candidate =
        out.misses.first().copied().unwrap_or(0.0) * line / out.candidates.max(1.0);
    Ok(out)
}

/// Replaces `out` with what the fused pass's query of the unit stored at
/// `i` (radius `r`) reads and writes besides the positions and the index
/// that [`trace_query`] records (the memory view's reads): for Naive and
/// Grid (`crate::engine::spatial::results::near_per_unit`) the center's team, each
/// neighbor's team through the layout (a candidate within `r`, `i`
/// excluded) and the write of the unit's aggregates (a write brings its
/// line in, as a read does); for the CSR grid the packed teams of its rows.
/// The CSR grid's aggregates are written by slot and gathered after, which
/// the model leaves out.
pub fn fused_accesses(sim: &Simulation, i: usize, r: f32, out: &mut Vec<(usize, usize)>) {
    use crate::engine::spatial::Query;
    out.clear();
    let store = sim.store();
    let (cx, cz) = store.pos(i);
    let q = Query {
        exclude: i as u32,
        ..Query::new(cx, cz, r)
    };
    let geo = sim.index().geometry().copied().unwrap_or_default();
    if let Some(g) = sim.sorted_grid() {
        let Some((_, block)) = geo.search(&q) else {
            return;
        };
        let (starts, teams) = (g.cell_start(), g.sorted_teams());
        for (ka, ke) in g.block_rows(block) {
            let (a, e) = (starts[ka] as usize, starts[ke] as usize);
            if e > a && teams.len() >= e {
                out.push((teams[a..e].as_ptr() as usize, 4 * (e - a)));
            }
        }
        return;
    }
    let mut neighbor = |j: usize| {
        let (x, z) = store.pos(j);
        if j != i && (x - cx) * (x - cx) + (z - cz) * (z - cz) <= r * r {
            store.team_reads(j, out);
        }
    };
    if let Some(g) = sim.uniform_grid() {
        let Some((_, block)) = geo.search(&q) else {
            return;
        };
        for c in g.block_cells(block) {
            c.iter().for_each(|&j| neighbor(j as usize));
        }
    } else {
        (0..store.len()).for_each(&mut neighbor);
    }
    store.team_reads(i, out);
    if let Some(n) = sim.near().get(i) {
        out.push((std::ptr::from_ref(n) as usize, std::mem::size_of_val(n)));
    }
}

/// Reads `spans` (model address, bytes; in model order) into `model`, but
/// only their last twice-the-largest-level bytes: reading a line evicts
/// at most one line per level, so whatever came before is all but gone from
/// every level after that many bytes, and the model's start-up stays a few
/// milliseconds however large the world.
fn prefill(model: &mut CacheModel, spans: &[(u64, usize)], levels: &[CacheLevel]) {
    let keep = 2 * levels.iter().map(|l| l.bytes).max().unwrap_or(0);
    // spans[from..] hold `tail` bytes, at least `keep` unless they are all.
    let (mut from, mut tail) = (spans.len(), 0usize);
    while from > 0 && tail < keep {
        from -= 1;
        tail += spans[from].1;
    }
    for (k, &(a, bytes)) in spans.iter().enumerate().skip(from) {
        // The first span kept is read in its last bytes only.
        let skip = if k == from {
            tail.saturating_sub(keep)
        } else {
            0
        };
        model.read(a + skip as u64, bytes - skip);
    }
}

/// The settings a model depends on: `s` with kernel and thread count set
/// to fixed values, as neither changes a modeled read (two settings with
/// the same key model the same counts).
pub fn model_key(s: &Settings) -> Settings {
    Settings {
        kernel: crate::engine::spatial::Kernel::Scalar,
        threads: 1,
        ..s.clone()
    }
}

/// SplitMix64's output for `x` (Steele, Lea & Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014): a seed spread over all
/// 64 bits.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{Layout, Reorder, Settings};
    use crate::engine::spatial::{Kernel, Strategy};
    use crate::measure::memory::cache_model::CLASSROOM;

    fn settings(layout: Layout, reorder: Reorder, strategy: Strategy) -> Settings {
        Settings {
            units: 20_000,
            layout,
            reorder,
            strategy,
            ..Settings::default()
        }
    }

    fn modeled(s: &Settings) -> Modeled {
        let mut sim = Simulation::new(s);
        sim.step(1.0 / 60.0, s);
        model_queries(&sim, s.radius, Geometry::Classroom, QuerySample::default()).unwrap()
    }

    #[test]
    fn every_read_of_the_query_phase_has_a_model_address() {
        for layout in Layout::ALL {
            for strategy in [Strategy::Grid, Strategy::SortedGrid, Strategy::Naive] {
                let s = Settings {
                    units: 3_000,
                    ..settings(layout, Reorder::Off, strategy)
                };
                let mut sim = Simulation::new(&s);
                sim.step(1.0 / 60.0, &s);
                let map = address_map(&sim);
                let mut t = QueryTrace::default();
                for i in (0..sim.len()).step_by(97) {
                    trace_query(&sim, i, s.radius, &mut t);
                    for &(a, n) in t.unit_reads.iter().chain(&t.index_reads) {
                        assert!(
                            map.map(a).is_some(),
                            "{layout:?} {strategy:?}: read at {a:#x}"
                        );
                        assert!(map.map(a + n - 1).is_some(), "{layout:?} {strategy:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_counts_are_the_same_for_every_run_and_kernel() {
        let base = settings(Layout::AosPointers, Reorder::Off, Strategy::Grid);
        let first = modeled(&base);
        assert!(first.queries == 1024 && first.misses[0] > 0.0, "{first:?}");
        for s in [
            base.clone(),
            Settings {
                kernel: Kernel::Scalar,
                ..base.clone()
            },
        ] {
            assert_eq!(modeled(&s), first, "{s:?}");
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", ignore = "no threads on wasm32-wasip1")]
    fn the_counts_are_the_same_for_every_thread_count() {
        for base in [
            settings(Layout::AosPointers, Reorder::Off, Strategy::Grid),
            settings(Layout::Soa, Reorder::Off, Strategy::SortedGrid),
        ] {
            let two = Settings {
                threads: 2,
                ..base.clone()
            };
            assert_eq!(modeled(&two), modeled(&base), "{base:?}");
        }
    }

    /// In spawn order every candidate is a random slot: AoS pointers read
    /// a pointer and an object line, AoS one line of its 328-byte struct,
    /// SoA one line of x and one of z, so SoA misses L1d about twice per
    /// candidate, as the pointers do; but SoA's 8 bytes per unit fit the
    /// classroom L2 at 20,000 units (160 KiB) where AoS's 6.5 MB do not.
    /// The fused pass adds the neighbors' teams (for AoS a second line
    /// where the team byte, 30 bytes after x, falls on the next one) and
    /// the unit's aggregates.
    #[test]
    fn spawn_order_misses_follow_the_lines_each_layout_reads() {
        let m = |l| modeled(&settings(l, Reorder::Off, Strategy::Grid));
        let (ptrs, aos, soa) = (m(Layout::AosPointers), m(Layout::Aos), m(Layout::Soa));
        assert_eq!(
            (ptrs.candidates, aos.candidates),
            (soa.candidates, soa.candidates)
        );
        let per = |x: &Modeled, level: usize| x.misses[level] / x.candidates;
        assert!(per(&ptrs, 0) > 1.5, "{ptrs:?}");
        assert!(per(&aos, 0) > 0.8 && per(&aos, 0) < 1.6, "{aos:?}");
        assert!(per(&soa, 0) > 1.5, "{soa:?}");
        assert!(per(&ptrs, 1) > per(&aos, 1) * 0.9, "{ptrs:?} vs {aos:?}");
        assert!(
            per(&aos, 1) > 0.8 && per(&soa, 1) < 0.1,
            "{aos:?} vs {soa:?}"
        );
    }

    #[test]
    fn cell_order_brings_in_fewer_bytes_per_candidate_than_spawn_order() {
        let m = |o| modeled(&settings(Layout::Soa, o, Strategy::Grid));
        let (spawn, cells) = (m(Reorder::Off), m(Reorder::Cells));
        assert!(
            cells.bytes_in_per_candidate * 2.0 < spawn.bytes_in_per_candidate,
            "{cells:?} vs {spawn:?}"
        );
    }

    #[test]
    fn a_prefill_of_the_last_bytes_leaves_the_caches_as_a_full_one() {
        let levels = [CLASSROOM[0], CLASSROOM[1]];
        let spans = [(0u64, 3 << 20), (4 << 20, 100), (5 << 20, 2 << 20)];
        let mut full = CacheModel::new(&levels).unwrap();
        for &(a, n) in &spans {
            full.read(a, n);
        }
        let mut capped = CacheModel::new(&levels).unwrap();
        prefill(&mut capped, &spans, &levels);
        for m in [&mut full, &mut capped] {
            m.reset_counts();
            for k in 0..20_000u64 {
                m.read(k * 4099 % (8 << 20), 8);
            }
        }
        assert_eq!(full.counts(), capped.counts());
    }

    #[test]
    fn the_naive_scan_models_as_many_queries_as_the_budget_allows() {
        let m = modeled(&settings(Layout::Soa, Reorder::Off, Strategy::Naive));
        // 8,000,000 candidates at 20,000 per query, warm-up included.
        assert_eq!(
            m.queries,
            CANDIDATE_BUDGET / 20_000 - QuerySample::default().warmup
        );
        assert_eq!(m.candidates, 20_000.0);
    }
}
