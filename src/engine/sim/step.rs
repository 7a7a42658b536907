//! One whole frame, [`Simulation::step`]: churn → move → reorder or
//! resident rebuild → rebuild the index → one query per unit → apply. The
//! phases are shared with the sliced frame ([`super::sliced`]).

use crate::platform::clock::Instant;
use crate::platform::counters;

use super::index::Index;
use super::steer::{apply, Found};
use super::{
    layout, Layout, Pass, Reorder, Settings, Simulation, UnitLayout, UnitStore, Units, Workload,
    DEATH_AFTER_S,
};
use crate::engine::spatial::results::{near_chunks, near_per_unit, NearResults};
use crate::engine::spatial::{
    pool_threads, query_chunks, Carried, GridGeometry, Points, Positions, QueryResults, QueryStats,
    SortedGrid, SpatialIndex, Strategy,
};
use crate::with_layout;

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
    /// Threads the step ran on: the settings' count, or 1 when the OS
    /// refused it ([`Simulation::pool_error`]); 0 only in `default()`.
    pub threads: usize,
}

impl StepStats {
    /// Sum of the four phases, seconds.
    pub fn total_s(&self) -> f64 {
        self.move_s + self.rebuild_s + self.query_s + self.apply_s
    }
}

impl Simulation {
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
        let mut st = match &pool {
            Some(p) => p.install(|| self.step_phases(dt, settings)),
            None => self.step_phases(dt, settings),
        };
        self.pool = pool;
        st.threads = self.threads();
        st
    }

    /// The phases of [`Simulation::step`], on the threads of the pool it
    /// runs in ([`crate::engine::spatial::pool_threads`]).
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
            Pass::Fused => {
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

    /// The start of a frame: scales `dt` (0 when paused or not finite),
    /// removes the dead and spawns reinforcements, moves the units, and
    /// rebuilds a resident index or reorders the units when due. Returns the
    /// stats so far (`move_s`, churn, `reordered`), the scaled `dt` and the
    /// instant the move ended (the rebuild's start).
    pub(super) fn begin_phases(
        &mut self,
        dt: f32,
        settings: &Settings,
    ) -> (StepStats, f32, Instant) {
        let (mut st, dt, t1) = self.move_phase(dt, settings);
        st.reordered = self.order_phase(settings);
        (st, dt, t1)
    }

    /// Scales `dt`, removes the dead and spawns reinforcements, and moves
    /// the units; returns the stats (`move_s`, churn), the scaled `dt` and
    /// the instant the move ended.
    pub(super) fn move_phase(&mut self, dt: f32, settings: &Settings) -> (StepStats, f32, Instant) {
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

    /// Rebuilds a resident index, or reorders the units when due, or (with
    /// [`Reorder::Off`]) puts units that another order had moved back in
    /// spawn order; returns whether the units were permuted into another
    /// order.
    pub(super) fn order_phase(&mut self, settings: &Settings) -> bool {
        if settings.reorder == Reorder::Off {
            self.restore_spawn_order()
        } else if self.rebuild_resident(settings) {
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
    pub(super) fn finish_phases(
        &mut self,
        mut st: StepStats,
        dt: f32,
        settings: &Settings,
    ) -> StepStats {
        let t3 = Instant::now();
        let found = match settings.pass {
            Pass::Collect => Found::Lists(&self.results),
            Pass::Fused => Found::Near(&self.near.near),
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
            reordered,
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
        // The merge rebuild moves the other columns with the positions, run
        // by run; after a full counting sort they are gathered by `perm`.
        let s = &mut permute.payload;
        layout::soa::size_payload(s, x.len());
        let carried = Carried::new()
            .column(vx, &mut s.vx)
            .column(vz, &mut s.vz)
            .column(danger, &mut s.danger)
            .column(id, &mut s.id)
            .column(enemies, &mut s.enemies)
            .column(team, &mut s.team);
        let Some((perm, moved)) =
            g.rebuild_resident_carrying(x, z, team, settings.cell_size, carried)
        else {
            return true;
        };
        *reordered = true;
        if moved {
            layout::soa::swap_payload([vx, vz, danger], id, enemies, team, s);
        } else {
            let threads = pool_threads();
            layout::soa::gather_payload([vx, vz, danger], id, enemies, team, perm, s, threads);
        }
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
        self.reordered = true;
    }

    /// Puts the units back in spawn order (ascending id,
    /// [`super::Reorderer::plan_spawn_order`]) when an order other than
    /// [`Reorder::Off`] moved them since the spawn; returns whether it did.
    fn restore_spawn_order(&mut self) -> bool {
        if !self.reordered {
            return false;
        }
        let Simulation {
            store,
            reorderer,
            permute,
            handles,
            ..
        } = self;
        let ids =
            with_layout!(&*store, l => (0..l.len()).map(|i| l.hot(i).id).collect::<Vec<u32>>());
        if let Some(perm) = reorderer.plan_spawn_order(ids.into_iter()) {
            with_layout!(&mut *store, l => {
                l.permute(perm, permute);
                for i in 0..l.len() {
                    handles.moved(l.hot(i).id, i);
                }
            });
        }
        self.reordered = false;
        true
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
                Out::Lists(res) => query_phase(&mut || {
                    query_chunks(n, res, |c| ix.query_units_in(l, r, kernel, c))
                }),
                Out::Near(res, _) => query_phase(&mut || {
                    near_chunks(n, res, |first, near, scratch| {
                        near_per_unit(l, team, r, first, near, scratch, |q, o| {
                            ix.query_in(l, q, kernel, o)
                        })
                    })
                }),
            };
            (t, stats)
        }
        (Index::Grid(g), out) => {
            g.rebuild_from(l, s.cell_size);
            let t = start();
            let stats = match out {
                Out::Lists(res) => {
                    query_phase(&mut || query_chunks(n, res, |c| g.query_units_in(l, r, c)))
                }
                Out::Near(res, _) => query_phase(&mut || {
                    near_chunks(n, res, |first, near, scratch| {
                        near_per_unit(l, team, r, first, near, scratch, |q, o| g.query_in(l, q, o))
                    })
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
                query_phase(&mut || query_chunks(n, res, |c| g.query_units(points, r, kernel, c))),
            )
        }
        (Index::Sorted(g), Out::Near(res, gathered_teams)) => {
            let points = positions_of(l, gathered);
            if !rebuilt {
                let teams = teams_of(l, gathered_teams);
                g.rebuild_tagged(points, Some(teams), s.cell_size);
            }
            let t = start();
            (t, query_phase(&mut || g.near_all(points, r, kernel, res)))
        }
    }
}

/// Runs `run`, the query phase of one [`Simulation::step`]: every strategy
/// and pass calls this exactly once per step, between the start of the query
/// clock (and cache counters) and their end. Never inlined and not generic,
/// so its one symbol, `spatial_query_lab::engine::sim::step::query_phase`, marks
/// exactly that phase for profilers: `scripts/cache-report.sh` counts
/// simulated cache misses inside it (callgrind `--toggle-collect`, callees
/// included) and divides by its calls. Keep the name (or change `QUERY_FN`
/// there). Sliced frames ([`Simulation::step_sliced`]) do not go through it.
#[inline(never)]
fn query_phase(run: &mut dyn FnMut() -> QueryStats) -> QueryStats {
    run()
}

#[cfg(test)]
mod tests {
    use super::*;

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
