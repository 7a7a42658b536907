//! The simulation: units in SoA arrays, movement, the per-frame neighbor pass
//! and the steering that consumes its results.
//!
//! One frame ([`Simulation::step`]) = move (bounce off the world border) →
//! rebuild the spatial index → one query per unit → apply the results
//! (separation steering and a count of enemies in range). The apply step sums
//! per-neighbor contributions in fixed point, so its result does not depend on
//! the order of a neighbor list: every strategy, kernel and thread count
//! produces bit-identical simulations.

pub mod budget;
pub mod reorder;
pub mod spawn;

use std::time::Instant;

use rayon::prelude::*;

pub use reorder::{Reorder, Reorderer};
pub use spawn::{spawn, world_size, Workload, STANDARD_RADIUS, STANDARD_SPEED};

use crate::spatial::{
    query_all, ChunkResults, GridGeometry, Kernel, Points, QueryResults, QueryStats, SpatialIndex,
    Strategy,
};

/// Unit state, structure of arrays: unit `i` is `(x[i], z[i], vx[i], vz[i],
/// team[i], enemies[i], id[i])`. All arrays have the same length. Index `i`
/// changes when the units are reordered ([`Reorder`]); `id[i]` does not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Units {
    /// Position x, world units, in `[0, L)`.
    pub x: Vec<f32>,
    /// Position z, world units, in `[0, L)`.
    pub z: Vec<f32>,
    /// Velocity x, world units per second.
    pub vx: Vec<f32>,
    /// Velocity z, world units per second.
    pub vz: Vec<f32>,
    /// Team, 0 or 1.
    pub team: Vec<u8>,
    /// Units of the other team within the query radius after the last frame (saturating).
    pub enemies: Vec<u16>,
    /// Stable identity (spawn index), carried along by reordering.
    pub id: Vec<u32>,
}

impl Units {
    /// Number of units.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True when there are no units.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Position view for the spatial index.
    pub fn points(&self) -> Points<'_> {
        Points::new(&self.x, &self.z)
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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            units: 10_000,
            workload: Workload::Uniform,
            seed: 42,
            strategy: Strategy::Grid,
            kernel: Kernel::best(),
            threads: 1,
            radius: STANDARD_RADIUS,
            cell_size: STANDARD_RADIUS,
            cell_follows_radius: true,
            speed: 4.0,
            separation: 1.0,
            paused: false,
            reorder: Reorder::Cells,
            reorder_every: 16,
        }
    }
}

impl Settings {
    /// True when `other` asks the engine for the same work per frame: same
    /// units, workload, seed, strategy, kernel, threads, radius, cell size and
    /// unit order. Speed, separation and pause change where units go, not
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
        ) == (
            other.units,
            other.workload,
            other.seed,
            other.strategy,
            other.kernel,
            other.threads,
            other.reorder,
            other.reorder_every,
        ) && self.radius.to_bits() == other.radius.to_bits()
            && self.cell_size.to_bits() == other.cell_size.to_bits()
    }
}

/// Wall-clock cost and counters of one [`Simulation::step`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Moving units, seconds.
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
}

impl StepStats {
    /// Sum of the four phases, seconds.
    pub fn total_s(&self) -> f64 {
        self.move_s + self.rebuild_s + self.query_s + self.apply_s
    }
}

/// The world, its units, the spatial index and the buffers of one frame.
pub struct Simulation {
    /// Unit state (SoA).
    pub units: Units,
    /// World edge L, world units: the world is `[0, L)^2`.
    pub world: f32,
    index: Box<dyn SpatialIndex>,
    strategy: Strategy,
    results: QueryResults,
    pool: Option<rayon::ThreadPool>,
    spawned: (usize, Workload, u64),
    frame: u64,
    reorderer: Reorderer,
    scratch: ApplyScratch,
    /// Thread count whose pool could not be built (not retried).
    pool_failed: Option<usize>,
}

impl Simulation {
    /// Spawns `settings.units` units of `settings.workload` from `settings.seed`
    /// in a world sized by [`world_size`] for the standard radius.
    pub fn new(settings: &Settings) -> Self {
        let mut sim = Simulation {
            units: Units::default(),
            world: 0.0,
            index: settings.strategy.create(),
            strategy: settings.strategy,
            results: QueryResults::default(),
            pool: None,
            spawned: (usize::MAX, settings.workload, settings.seed),
            frame: 0,
            reorderer: Reorderer::default(),
            scratch: ApplyScratch::default(),
            pool_failed: None,
        };
        sim.sync(settings);
        sim
    }

    /// Frames stepped since the last spawn.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The neighbor lists of the last step.
    pub fn results(&self) -> &QueryResults {
        &self.results
    }

    /// The spatial index of the last step.
    pub fn index(&self) -> &dyn SpatialIndex {
        self.index.as_ref()
    }

    /// Respawns the units with the current settings.
    pub fn respawn(&mut self, settings: &Settings) {
        self.spawned.0 = usize::MAX;
        self.sync(settings);
    }

    /// Applies setting changes that need new state: respawn on a new count,
    /// workload or seed; a new index on a new strategy; a new thread pool on a
    /// new thread count. Allocates only when something changed.
    fn sync(&mut self, s: &Settings) {
        let want = (s.units, s.workload, s.seed);
        if self.spawned != want {
            self.world = world_size(s.units, STANDARD_RADIUS);
            self.units = spawn(s.units, self.world, STANDARD_RADIUS, s.workload, s.seed);
            self.spawned = want;
            self.frame = 0;
        }
        if self.strategy != s.strategy {
            self.index = s.strategy.create();
            self.strategy = s.strategy;
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
        }
    }

    /// Advances one frame of `dt` seconds of real time (scaled by
    /// `settings.speed`; 0 when paused): move → rebuild → query every unit →
    /// apply. Returns the per-phase wall-clock times and the counters.
    ///
    /// A negative or non-finite `dt` (or `settings.speed`) counts as 0. In steady state (same
    /// settings as the previous step) the grid strategies allocate nothing.
    pub fn step(&mut self, dt: f32, settings: &Settings) -> StepStats {
        self.sync(settings);
        // The whole frame runs inside the pool: the parallel phases then start
        // from a worker thread, so only one job per frame crosses rayon's
        // injector queue (which allocates a block per 63 jobs).
        let pool = self.pool.take();
        let st = match &pool {
            Some(p) => p.install(|| self.step_phases(dt, settings, Some(p))),
            None => self.step_phases(dt, settings, None),
        };
        self.pool = pool;
        st
    }

    fn step_phases(
        &mut self,
        dt: f32,
        settings: &Settings,
        pool: Option<&rayon::ThreadPool>,
    ) -> StepStats {
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
        match pool {
            Some(p) if p.current_num_threads() > 1 => {
                move_units_parallel(&mut self.units, self.world, dt, p.current_num_threads())
            }
            _ => move_units(&mut self.units, self.world, dt),
        }
        let t1 = Instant::now();
        if settings.reorder != Reorder::Off
            && self
                .frame
                .is_multiple_of(settings.reorder_every.max(1) as u64)
        {
            self.reorderer
                .reorder(&mut self.units, settings.reorder, settings.cell_size);
            st.reordered = true;
        }
        self.index
            .rebuild_with(self.units.points(), settings.cell_size, pool);
        let t2 = Instant::now();
        st.query = query_all(
            self.index.as_ref(),
            self.units.points(),
            settings.radius,
            settings.kernel,
            pool,
            &mut self.results,
        );
        let t3 = Instant::now();
        apply(
            &mut self.units,
            &self.results,
            settings.radius,
            dt,
            settings.separation,
            pool,
            &mut self.scratch,
        );
        let t4 = Instant::now();

        st.move_s = (t1 - t0).as_secs_f64();
        st.rebuild_s = (t2 - t1).as_secs_f64();
        st.query_s = (t3 - t2).as_secs_f64();
        st.apply_s = (t4 - t3).as_secs_f64();
        st.grid = self.index.geometry().copied();
        self.frame += 1;
        st
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
    let max = world * (1.0 - f32::EPSILON);
    for (p, v) in p.iter_mut().zip(v.iter_mut()) {
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
}

/// Fixed-point scale of positions in the apply step: 1/64 world unit.
const FIX: f32 = 64.0;

/// Per-frame fixed-point copies of the positions used by [`apply`], kept across
/// frames so steady-state frames do not allocate. One `[x, z, team]` record per
/// unit (AoS on purpose: a neighbor's three values arrive in one cache line and
/// one bounds check).
#[derive(Clone, Debug, Default)]
pub struct ApplyScratch {
    packed: Vec<[i32; 3]>,
}

/// Applies one frame's neighbor lists: separation steering and enemy counts.
///
/// Separation steers unit `i` away from the centroid of its neighbors: the
/// push is `sum_j (p_i - p_j) = n * (p_i - centroid)`, summed on positions
/// rounded to 1/64 world unit in integers, so the result is exact and the same
/// in any order of the neighbor list (every strategy, kernel and thread count
/// gives bit-identical simulations). The velocity turns by
/// `push / r * separation * dt` (relative to [`STANDARD_SPEED`]) and is
/// rescaled to [`STANDARD_SPEED`]. `enemies[i]` becomes the number of neighbors
/// of the other team (saturating at `u16::MAX`). Reads positions and teams,
/// writes `vx`, `vz`, `enemies`; runs on `pool` when given, one task per
/// result chunk. Allocates only while `scratch` grows.
pub fn apply(
    u: &mut Units,
    res: &QueryResults,
    r: f32,
    dt: f32,
    separation: f32,
    pool: Option<&rayon::ThreadPool>,
    scratch: &mut ApplyScratch,
) {
    let n = u.len();
    if n == 0 || res.chunks.is_empty() {
        return;
    }
    let inv_r = if r > 0.0 && r.is_finite() {
        1.0 / r
    } else {
        0.0
    };
    let gain = separation * dt * STANDARD_SPEED * inv_r / FIX;
    scratch.packed.clear();
    scratch.packed.extend(
        u.x.iter()
            .zip(&u.z)
            .zip(&u.team)
            .map(|((&x, &z), &t)| [(x * FIX) as i32, (z * FIX) as i32, t as i32]),
    );
    let packed = &scratch.packed[..];
    let Units {
        vx, vz, enemies, ..
    } = u;
    let apply_chunk =
        |vx: &mut [f32], vz: &mut [f32], enemies: &mut [u16], chunk: &ChunkResults| {
            for (k, w) in chunk.offsets.windows(2).enumerate() {
                let i = chunk.start + k;
                let [xi, zi, ti] = packed[i];
                let (mut sx, mut sz, mut en) = (0i64, 0i64, 0u32);
                for &j in &chunk.ids[w[0] as usize..w[1] as usize] {
                    let [xj, zj, tj] = packed[j as usize];
                    sx += xi as i64 - xj as i64;
                    sz += zi as i64 - zj as i64;
                    en += (tj != ti) as u32;
                }
                enemies[k] = en.min(u16::MAX as u32) as u16;
                if sx != 0 || sz != 0 {
                    let nvx = vx[k] + sx as f32 * gain;
                    let nvz = vz[k] + sz as f32 * gain;
                    let len = (nvx * nvx + nvz * nvz).sqrt();
                    if len > 1e-6 && len.is_finite() {
                        vx[k] = nvx / len * STANDARD_SPEED;
                        vz[k] = nvz / len * STANDARD_SPEED;
                    }
                }
            }
        };
    // Result chunks have a uniform size (QueryResults::prepare), so the
    // velocity arrays split into the same disjoint ranges.
    let size = (res.chunks[0].end - res.chunks[0].start).max(1);
    match pool {
        Some(pool) if res.chunks.len() > 1 => pool.install(|| {
            vx.par_chunks_mut(size)
                .zip(vz.par_chunks_mut(size))
                .zip(enemies.par_chunks_mut(size))
                .zip(res.chunks.par_iter())
                .for_each(|(((vx, vz), en), c)| apply_chunk(vx, vz, en, c))
        }),
        _ => vx
            .chunks_mut(size)
            .zip(vz.chunks_mut(size))
            .zip(enemies.chunks_mut(size))
            .zip(res.chunks.iter())
            .for_each(|(((vx, vz), en), c)| apply_chunk(vx, vz, en, c)),
    }
}

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
            let before = sim.units.x.clone();
            sim.step(1.0 / 60.0, &s);
            assert!(
                sim.units
                    .x
                    .iter()
                    .chain(&sim.units.z)
                    .all(|v| v.is_finite()),
                "speed {speed}"
            );
            assert_eq!(sim.units.x, before, "speed {speed} should count as 0");
        }
    }
}
