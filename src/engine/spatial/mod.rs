//! Fixed-radius neighbor queries: the strategies, the shared grid geometry and
//! the per-unit pass.
//!
//! # Semantics shared by every strategy and kernel
//! - Unit `j` is a neighbor of query point `q` when `dx*dx + dz*dz <= r*r`
//!   (inclusive), with `r2 = r * r` computed once per query.
//! - In the per-unit pass ([`query_all`]) a unit is excluded from its own list
//!   by index, never by distance: two units at the same position are neighbors.
//! - A query whose center is not finite, or whose radius is NaN or negative,
//!   returns nothing. A radius whose square overflows `f32` (`r = 1e30`,
//!   `f32::MAX`) or is `+inf` gives `r2 = f32::MAX`: every unit whose squared
//!   distance is finite is a neighbor — every finite unit within about
//!   1.8e19 world units, so every unit of any real world — while non-finite
//!   positions (squared distance `+inf` or NaN) still never match; the
//!   searched block is then the whole grid, so the query stays prompt.
//! - Units with a non-finite coordinate are never returned and never panic.
//! - Grid cell index: `floor(coord / cell_size)` (never a truncating cast); the
//!   searched block is `floor((q - r) / cell)` to `floor((q + r) / cell)` on each
//!   axis (widened by a few ULPs so float rounding cannot lose a point the
//!   distance test accepts), intersected with the grid, so a radius larger than
//!   a cell and a center outside the world both work.
//! - Result order is unspecified; compare results as sets.
//!
//! ```
//! use spatial_query_lab::engine::spatial::{Kernel, Points, Query, Strategy};
//! let x = [0.0, 3.0, 3.01, 5.0];
//! let z = [0.0, 4.0, 4.01, 0.0];
//! let points = Points::new(&x, &z);
//! let mut index = Strategy::SortedGrid.create();
//! index.rebuild(points, 1.0);
//! let mut found = Vec::new();
//! let stats = index.query(points, &Query::new(0.0, 0.0, 5.0), Kernel::best(), &mut found);
//! found.sort();
//! assert_eq!(found, vec![0, 1, 3]); // (3, 4) and (5, 0) lie exactly at r = 5
//! assert_eq!(stats.neighbors, 3);
//! ```

pub mod csr;
pub mod geometry;
pub mod grid;
pub mod kernels;
pub mod naive;
pub mod results;
pub mod sorted_grid;

pub use geometry::{
    min_cell_for_extent, Block, Bounds, BoxTrim, GridGeometry, MAX_CELLS, MAX_CELLS_PER_SIDE,
};
pub use grid::UniformGrid;
pub use kernels::{fixed, FusedQuery, Kernel, KernelQuery, Near, Span, FIXED_RANGE, NO_EXCLUDE};
pub use naive::Naive;
pub use results::{query_all, query_chunks, ChunkResults, QueryResults};
pub use sorted_grid::{Carried, SortedGrid};

/// Read-only SoA view of unit positions: `x[i]`, `z[i]` are unit `i`'s
/// coordinates in world units. Both slices have the same length.
#[derive(Clone, Copy, Debug)]
pub struct Points<'a> {
    /// x coordinates, world units.
    pub x: &'a [f32],
    /// z coordinates, world units.
    pub z: &'a [f32],
}

impl<'a> Points<'a> {
    /// Builds a view over two parallel slices.
    ///
    /// # Panics
    /// If the slices have different lengths.
    pub fn new(x: &'a [f32], z: &'a [f32]) -> Self {
        assert_eq!(x.len(), z.len(), "x and z must have the same length");
        Points { x, z }
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True when there are no units.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}

/// Where a strategy reads unit positions from: a data layout of the units
/// ([`crate::engine::sim::layout`]) or a plain SoA view ([`Points`]).
///
/// The naive scan and [`UniformGrid`] read every candidate's position through
/// this trait, monomorphized per layout, so what gets timed is the layout's
/// own memory traffic (a pointer chase, a stride of a fat struct, or two
/// dense arrays).
pub trait Positions: Sync {
    /// Number of units.
    fn len(&self) -> usize;

    /// True when there are no units.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position `(x, z)` of unit `i`, world units.
    ///
    /// # Panics
    /// If `i >= len()`.
    fn pos(&self, i: usize) -> (f32, f32);

    /// The positions as two dense arrays, when the layout stores them so
    /// (SoA); SIMD kernels run only on such spans.
    fn soa(&self) -> Option<Points<'_>> {
        None
    }
}

impl Positions for Points<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.x.len()
    }

    #[inline]
    fn pos(&self, i: usize) -> (f32, f32) {
        (self.x[i], self.z[i])
    }

    #[inline]
    fn soa(&self) -> Option<Points<'_>> {
        Some(*self)
    }
}

/// One fixed-radius query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Query {
    /// Center x, world units.
    pub cx: f32,
    /// Center z, world units.
    pub cz: f32,
    /// Radius, world units (inclusive).
    pub r: f32,
    /// Unit id never reported (self in the per-unit pass), or [`NO_EXCLUDE`].
    pub exclude: u32,
}

impl Query {
    /// A query that excludes nothing.
    pub fn new(cx: f32, cz: f32, r: f32) -> Self {
        Query {
            cx,
            cz,
            r,
            exclude: NO_EXCLUDE,
        }
    }

    /// The kernel form (`r2 = r * r`, clamped to `f32::MAX` when it
    /// overflows or `r` is `+inf`), or `None` when the query returns nothing
    /// by the shared semantics (non-finite center, NaN or negative radius).
    #[inline]
    pub fn kernel_query(&self) -> Option<KernelQuery> {
        // min() keeps a NaN out: `r >= 0.0` below rejects it anyway.
        let r2 = (self.r * self.r).min(f32::MAX);
        // `r >= 0.0` is false for NaN.
        if self.cx.is_finite() && self.cz.is_finite() && self.r >= 0.0 {
            Some(KernelQuery {
                cx: self.cx,
                cz: self.cz,
                r2,
                exclude: self.exclude,
            })
        } else {
            None
        }
    }
}

/// Counters for one query or a batch of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryStats {
    /// Entries run through a distance test.
    pub candidates: u64,
    /// Ids appended to the output (neighbors found).
    pub neighbors: u64,
}

impl std::ops::AddAssign for QueryStats {
    fn add_assign(&mut self, o: Self) {
        self.candidates += o.candidates;
        self.neighbors += o.neighbors;
    }
}

/// The threads the engine's parallel phases use: those of the rayon pool
/// the caller runs in (inside `ThreadPool::install`, or on one of its
/// workers), or 1 outside any pool, where everything runs on the calling
/// thread. Every parallel phase (rebuild, per-unit pass, apply, move)
/// takes its threads from here instead of a pool argument; results never
/// depend on the count.
pub fn pool_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        rayon::current_num_threads()
    } else {
        1
    }
}

/// A spatial index: rebuilt from the current positions, then queried.
///
/// Implementations keep their buffers between frames so that a steady-state
/// rebuild does not allocate.
pub trait SpatialIndex: Send + Sync {
    /// Rebuilds from `points`. `cell_size` (world units) is a hint for grid
    /// strategies: values that are not finite and positive, or that would need
    /// more cells than [`GridGeometry::fit`] allows, are replaced as documented
    /// there. Non-finite points are left out of the index.
    fn rebuild(&mut self, points: Points<'_>, cell_size: f32);

    /// Appends the ids of the indexed units within `q` to `out` using `kernel`
    /// (in an unspecified order) and returns the counters. `points` must be the
    /// slice the index was last rebuilt from (the naive scan reads it directly).
    fn query(
        &self,
        points: Points<'_>,
        q: &Query,
        kernel: Kernel,
        out: &mut Vec<u32>,
    ) -> QueryStats;

    /// The per-unit pass over units `chunk.start..chunk.end`: for each unit
    /// `i`, a query centered on `points[i]` with radius `r` excluding `i`,
    /// appending its neighbors to `chunk.ids` and its end offset to
    /// `chunk.offsets` (which the caller has set to `[0]`). Returns the
    /// counters. The default calls [`SpatialIndex::query`] per unit; an index
    /// may share work between consecutive units, with identical results.
    fn query_units(
        &self,
        points: Points<'_>,
        r: f32,
        kernel: Kernel,
        chunk: &mut results::ChunkResults,
    ) -> QueryStats {
        results::per_unit(&points, r, chunk, |q, out| {
            self.query(points, q, kernel, out)
        })
    }

    /// The geometry of the grid used by the last rebuild, if the strategy has one.
    fn geometry(&self) -> Option<&GridGeometry> {
        None
    }
}

/// The strategies, as chosen in the overlay and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Scan every unit per query: O(N) per query, O(N^2) per frame. The reference.
    Naive,
    /// Uniform grid, one `Vec` of unit indices per cell (the seed's design);
    /// candidates' positions are read through the data layout.
    Grid,
    /// Counting-sort grid: cells are contiguous slices of one SoA array (CSR).
    SortedGrid,
}

// The reference first.
crate::named! { Strategy {
    Naive => "naive", "Naive";
    Grid => "grid", "Grid";
    SortedGrid => "sorted-grid", "SortedGrid", ["csr"];
} }

impl Strategy {
    /// One-line explanation for tooltips and the README.
    pub fn describe(self) -> &'static str {
        match self {
            Strategy::Naive => "Tests every unit against every other: O(N^2) per frame. The reference every other path is checked against.",
            Strategy::Grid => "Uniform grid rebuilt every frame; each cell owns a Vec of unit indices, and every candidate's position is read through the data layout (one unit at a time, so the kernel setting does not apply). Queries visit ceil(r/cell) rings of cells.",
            Strategy::SortedGrid => "Counting-sort grid (CSR): count per cell, prefix sum, scatter copies of x and z into cell order; each grid row of the searched block is one contiguous span for the SIMD kernel. Its packed copy is itself the data-layout lesson: the data the hot loop needs, and nothing else.",
        }
    }

    /// A new, empty index for this strategy.
    pub fn create(self) -> Box<dyn SpatialIndex> {
        match self {
            Strategy::Naive => Box::new(Naive::default()),
            Strategy::Grid => Box::new(UniformGrid::default()),
            Strategy::SortedGrid => Box::new(SortedGrid::default()),
        }
    }
}

/// Checks a user-supplied cell size: finite and positive.
///
/// # Errors
/// A message naming the value when it is zero, negative, NaN or infinite.
pub fn validate_cell_size(cell: f32) -> Result<f32, String> {
    if cell.is_finite() && cell > 0.0 {
        Ok(cell)
    } else {
        Err(format!("cell size must be a finite number > 0, got {cell}"))
    }
}

/// Checks a user-supplied query radius: finite and positive.
///
/// # Errors
/// A message naming the value when it is zero, negative, NaN or infinite.
pub fn validate_radius(r: f32) -> Result<f32, String> {
    if r.is_finite() && r > 0.0 {
        Ok(r)
    } else {
        Err(format!("radius must be a finite number > 0, got {r}"))
    }
}
