//! Everything a user can set ([`Settings`]) and what a spawn depends on
//! ([`SpawnKey`]).

use super::{world_size, Layout, Pass, Reorder, Workload, STANDARD_RADIUS};
use crate::engine::spatial::{Kernel, Strategy};
use crate::settings::schema;

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
    /// standard density of `docs/workloads.md`, [`world_size`]`(units,
    /// STANDARD_RADIUS)`. A value that is not finite and positive counts as
    /// `None`. Changing it respawns.
    pub world: Option<f32>,
    /// Spatial strategy used for the per-unit pass.
    pub strategy: Strategy,
    /// Distance-test kernel (replaced by Scalar if the CPU lacks it).
    pub kernel: Kernel,
    /// Threads for the frame: move, CSR rebuild (its scatter included), query, apply (1 = the calling thread only).
    pub threads: usize,
    /// Query radius, world units (> 0).
    pub radius: f32,
    /// Grid cell edge, world units (> 0); see `GridGeometry::fit` for the cap
    /// and `settings::budget::min_cell_size` for the smallest value the window offers.
    pub cell_size: f32,
    /// Keep `cell_size` equal to `radius` whenever the radius changes (the
    /// overlay's "= r" toggle); read by `settings::budget::settle`, not by the step.
    pub cell_follows_radius: bool,
    /// Simulation time per real second (0 = frozen, 1 = real time).
    pub speed: f32,
    /// Separation steering strength (0 = units ignore each other).
    pub separation: f32,
    /// When true, units do not move, but the index and queries still run every frame.
    pub paused: bool,
    /// Memory order of the units: `cells` and `morton` restored every
    /// `reorder_every` frames; `resident` kept by every SortedGrid rebuild
    /// (SoA; with another layout or strategy it acts as `cells`).
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
            units: schema::UNITS.default_whole() as usize,
            workload: Workload::Uniform,
            seed: schema::SEED.default_whole(),
            world: None,
            strategy: Strategy::Grid,
            kernel: Kernel::best(),
            threads: schema::THREADS.default_whole() as usize,
            radius: STANDARD_RADIUS,
            cell_size: STANDARD_RADIUS,
            cell_follows_radius: true,
            speed: schema::SPEED.default as f32,
            separation: schema::SEPARATION.default as f32,
            paused: false,
            reorder: Reorder::Resident,
            reorder_every: schema::REORDER_EVERY.default_whole() as u32,
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

    /// True when the query runs the distance-test kernel: always for
    /// SortedGrid; for Naive only through a layout with dense position
    /// arrays (SoA, hot/cold), which its scan hands to the kernel; never for
    /// Grid, which reads each candidate through the layout with the scalar
    /// test. Where it is false the kernel setting changes nothing.
    pub fn uses_kernel(&self) -> bool {
        match self.strategy {
            Strategy::SortedGrid => true,
            Strategy::Naive => matches!(self.layout, Layout::Soa | Layout::HotCold),
            Strategy::Grid => false,
        }
    }

    /// The kernel's key (`scalar`, `avx2`, ...) where the query runs one,
    /// `none` where it does not ([`Settings::uses_kernel`]).
    pub fn kernel_key(&self) -> &'static str {
        if self.uses_kernel() {
            self.kernel.key()
        } else {
            "none"
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
