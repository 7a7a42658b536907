//! Grid geometry shared by the grid strategies: the effective cell size, the
//! cell range covered, and the mapping from coordinates to cells and from a
//! query to the block of cells it must search.

use super::{KernelQuery, Points, Query};

/// Most cells a grid may have: 2^20 = 1,048,576, a memory budget of about
/// 24 MiB of per-cell `Vec` headers for [`super::UniformGrid`] (one 24-byte
/// `Vec` of unit indices per cell, plus the buffers of occupied cells) and 8 MiB of offsets
/// and cursors for [`super::SortedGrid`] (two `u32` per cell, plus 4 MiB per
/// extra thread of the parallel rebuild). Independent of the unit count, so
/// the smallest usable cell depends only on the world's extent
/// ([`min_cell_for_extent`]). Bounds memory when the requested cell size is
/// tiny (hard case S10).
pub const MAX_CELLS: usize = 1 << 20;
/// Cells per side of the largest square grid within [`MAX_CELLS`]: 1024.
pub const MAX_CELLS_PER_SIDE: usize = 1 << 10;

const _: () = assert!(MAX_CELLS_PER_SIDE * MAX_CELLS_PER_SIDE == MAX_CELLS);

/// The smallest cell edge (world units) that [`GridGeometry::fit`] uses as
/// given, without raising it, for every point set inside `[0, extent)` on both
/// axes: `extent / (MAX_CELLS_PER_SIDE - 2) * (1 + 1e-4)`.
///
/// Why: a box of width `w` spans at most `floor(w / cell) + 2` cells per axis,
/// which is at most 1023 at this cell (the `1e-4` absorbs the f32 rounding of
/// the two quotients `coord / cell`, each below 2^10 in magnitude), so the grid
/// has fewer than [`MAX_CELLS`] cells. Returns `f32::MIN_POSITIVE` for an
/// extent that is not finite and positive. Allocates nothing.
pub fn min_cell_for_extent(extent: f32) -> f32 {
    if extent.is_finite() && extent > 0.0 {
        (extent / (MAX_CELLS_PER_SIDE - 2) as f32 * (1.0 + 1e-4)).max(f32::MIN_POSITIVE)
    } else {
        f32::MIN_POSITIVE
    }
}

/// Bounding box of the finite points of a set, and how many there are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Smallest finite x (infinity when `finite == 0`).
    pub min_x: f32,
    /// Largest finite x (-infinity when `finite == 0`).
    pub max_x: f32,
    /// Smallest finite z.
    pub min_z: f32,
    /// Largest finite z.
    pub max_z: f32,
    /// Points with both coordinates finite.
    pub finite: usize,
}

impl Bounds {
    /// The bounds of no points.
    pub const EMPTY: Bounds = Bounds {
        min_x: f32::INFINITY,
        max_x: f32::NEG_INFINITY,
        min_z: f32::INFINITY,
        max_z: f32::NEG_INFINITY,
        finite: 0,
    };

    /// Bounds of the points whose coordinates are both finite. O(N), no
    /// allocation; vectorized ([`super::kernels::cells::bounds`]).
    pub fn of(points: Points<'_>) -> Bounds {
        let (min_x, max_x, min_z, max_z, finite) =
            super::kernels::cells::bounds(points.x, points.z);
        Bounds {
            min_x,
            max_x,
            min_z,
            max_z,
            finite,
        }
    }

    /// Grows the bounds to hold `(x, z)` when both are finite.
    #[inline(always)]
    fn add(&mut self, x: f32, z: f32) {
        if x.is_finite() && z.is_finite() {
            self.min_x = self.min_x.min(x);
            self.max_x = self.max_x.max(x);
            self.min_z = self.min_z.min(z);
            self.max_z = self.max_z.max(z);
            self.finite += 1;
        }
    }

    /// [`Bounds::of`] read through any layout ([`super::Positions`]).
    pub fn of_positions<P: super::Positions + ?Sized>(p: &P) -> Bounds {
        if let Some(points) = p.soa() {
            return Bounds::of(points);
        }
        let mut b = Bounds::EMPTY;
        for i in 0..p.len() {
            let (x, z) = p.pos(i);
            b.add(x, z);
        }
        b
    }

    /// Bounds of the union of two point sets.
    pub fn merge(self, o: Bounds) -> Bounds {
        Bounds {
            min_x: self.min_x.min(o.min_x),
            max_x: self.max_x.max(o.max_x),
            min_z: self.min_z.min(o.min_z),
            max_z: self.max_z.max(o.max_z),
            finite: self.finite + o.finite,
        }
    }
}

/// The radius a grid searches for a query of radius `r`: `r` itself, or
/// `+inf` when `r * r` overflows (then the distance test accepts every
/// finite point, so the block must be the whole grid, not the cells within
/// the finite `r`).
#[inline]
pub fn search_radius(r: f32) -> f32 {
    // NaN stays NaN (no block); a finite square keeps r.
    if (r * r).is_finite() || r.is_nan() {
        r
    } else {
        f32::INFINITY
    }
}

/// A rectangular block of grid cells: the inclusive column range
/// `x0..=x1` and row range `z0..=z1`, relative to the grid (column 0 is
/// [`GridGeometry::origin_x`]), so `x1 < nx` and `z1 < nz` for a block of
/// [`GridGeometry::block`], [`GridGeometry::search`] or
/// [`GridGeometry::box_block`]; never empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    /// First column.
    pub x0: usize,
    /// Last column (inclusive).
    pub x1: usize,
    /// First row.
    pub z0: usize,
    /// Last row (inclusive).
    pub z1: usize,
}

impl Block {
    /// Number of rows, `z1 - z0 + 1`.
    #[inline]
    pub fn rows(&self) -> usize {
        self.z1 - self.z0 + 1
    }
}

/// The cells of a uniform grid over the finite points of one rebuild.
///
/// Cell `(i, j)` covers `[(origin_x + i) * cell, (origin_x + i + 1) * cell)` by
/// `[(origin_z + j) * cell, ...)` in world units; cells are numbered row-major,
/// `j * nx + i` (a row is one z value, so the cells of a row are adjacent).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridGeometry {
    /// Effective cell edge, world units (exceeds the requested one only below
    /// [`min_cell_for_extent`]; see [`GridGeometry::fit`]).
    pub cell: f32,
    /// Global cell index (`floor(x / cell)`) of column 0.
    pub origin_x: i64,
    /// Global cell index (`floor(z / cell)`) of row 0.
    pub origin_z: i64,
    /// Columns (x direction).
    pub nx: usize,
    /// Rows (z direction).
    pub nz: usize,
}

/// `floor(v)` as an integer, saturating beyond `i64` (NaN gives 0).
///
/// Truncate, then step down when truncation rounded up (negative non-integers):
/// -0.3 -> -1, -1.0 -> -1, -0.0 -> 0. Equal to `v.floor() as i64` for every
/// input, without the libm call that `floor` costs on baseline x86_64 (no SSE4.1).
#[inline]
pub fn floor_to_i64(v: f32) -> i64 {
    let t = v as i64;
    t.saturating_sub(((t as f32) > v) as i64)
}

impl GridGeometry {
    /// Fits a grid to the bounding box of the finite points.
    ///
    /// The effective cell size starts from `cell_hint` and doubles until the
    /// grid has at most [`MAX_CELLS`] cells, so memory stays bounded for tiny
    /// cell sizes; a hint of at least [`min_cell_for_extent`] of the points'
    /// extent (for points in `[0, extent)`) is always used as given. A hint that is not
    /// finite and positive (0, negative, NaN, infinity) is replaced by
    /// 1/64 of the larger box extent (at least the smallest normal f32; 1.0 for
    /// a point-sized box); user input
    /// should be checked first with [`super::validate_cell_size`]. With no finite
    /// point the grid has zero cells. Allocates nothing; O(N).
    pub fn fit(points: Points<'_>, cell_hint: f32) -> Self {
        Self::from_bounds(&Bounds::of(points), cell_hint)
    }

    /// [`GridGeometry::fit`] from precomputed bounds (so a caller can compute
    /// them in parallel, [`Bounds::merge`]).
    pub fn from_bounds(b: &Bounds, cell_hint: f32) -> Self {
        let Bounds {
            min_x,
            max_x,
            min_z,
            max_z,
            finite,
        } = *b;
        let mut cell = if cell_hint.is_finite() && cell_hint > 0.0 {
            cell_hint
        } else {
            let extent = if finite > 0 {
                (max_x - min_x).max(max_z - min_z)
            } else {
                0.0
            };
            if extent.is_finite() && extent > 0.0 {
                // A subnormal extent would divide to 0, and doubling 0 never ends.
                (extent / 64.0).max(f32::MIN_POSITIVE)
            } else {
                1.0
            }
        };
        if finite == 0 {
            return GridGeometry {
                cell,
                ..Default::default()
            };
        }
        let cap = MAX_CELLS as i128;
        loop {
            let g = GridGeometry {
                cell,
                ..Default::default()
            };
            let (x0, x1) = (g.coord(min_x), g.coord(max_x));
            let (z0, z1) = (g.coord(min_z), g.coord(max_z));
            let nx = x1 as i128 - x0 as i128 + 1;
            let nz = z1 as i128 - z0 as i128 + 1;
            // Each factor is below 2^65, so the product cannot overflow i128.
            if (nx <= cap && nz <= cap && nx * nz <= cap) || !cell.is_finite() {
                return GridGeometry {
                    cell,
                    origin_x: x0,
                    origin_z: z0,
                    nx: nx.clamp(1, cap) as usize,
                    nz: nz.clamp(1, cap) as usize,
                };
            }
            cell *= 2.0;
        }
    }

    /// Number of cells, `nx * nz`.
    #[inline]
    pub fn cells(&self) -> usize {
        self.nx * self.nz
    }

    /// Global cell index of a coordinate: `floor(v / cell)` (so -0.3 -> -1 and
    /// -0.0 -> 0 for a cell of 1). Saturates for values beyond `i64`.
    #[inline]
    pub fn coord(&self, v: f32) -> i64 {
        floor_to_i64(v / self.cell)
    }

    /// Row-major cell of a point, or `None` when a coordinate is not finite or
    /// the grid is empty. Points of the rebuild always land inside; others are
    /// clamped to the border cells (callers bin only rebuild points).
    #[inline]
    pub fn cell_of(&self, x: f32, z: f32) -> Option<usize> {
        if !(x.is_finite() && z.is_finite()) || self.nx == 0 {
            return None;
        }
        let i = (self.coord(x).saturating_sub(self.origin_x)).clamp(0, self.nx as i64 - 1) as usize;
        let j = (self.coord(z).saturating_sub(self.origin_z)).clamp(0, self.nz as i64 - 1) as usize;
        Some(j * self.nx + i)
    }

    /// The [`Block`] of cells a query must search (inclusive column and row
    /// ranges relative to the grid), or `None` when the block
    /// misses the grid.
    ///
    /// The block spans `floor((c - r) / cell)` to `floor((c + r) / cell)` on
    /// each axis, i.e. `ceil(r / cell)` rings around the center cell, widened by
    /// `(|c| + r) * 2^-20 + 1e-20` world units so that float rounding in the
    /// kernel's distance test can never accept a point outside the block (the
    /// absolute term covers `dx * dx` underflowing to 0 near the origin). The center is
    /// never moved into the grid; the block is intersected with it.
    #[inline]
    pub fn block(&self, cx: f32, cz: f32, r: f32) -> Option<Block> {
        if self.nx == 0 {
            return None;
        }
        let r = search_radius(r);
        let (x0, x1) = self.axis_range(cx, r, self.origin_x, self.nx)?;
        let (z0, z1) = self.axis_range(cz, r, self.origin_z, self.nz)?;
        Some(Block { x0, x1, z0, z1 })
    }

    /// The kernel form of `q` and its block ([`GridGeometry::block`]), or
    /// `None` when the query returns nothing (invalid query, or a block that
    /// misses the grid).
    #[inline]
    pub fn search(&self, q: &Query) -> Option<(KernelQuery, Block)> {
        let kq = q.kernel_query()?;
        Some((kq, self.block(q.cx, q.cz, q.r)?))
    }

    /// The quotients whose floors bound a query's block on one axis:
    /// `((c - r - margin) / cell, (c + r + margin) / cell)`, margin as in
    /// [`GridGeometry::block`]. Two queries whose quotients have the same
    /// floors have the same block, which lets the per-unit pass reuse one
    /// without converting to integers.
    #[inline]
    pub fn axis_quotients(&self, c: f32, r: f32) -> (f32, f32) {
        let r = search_radius(r);
        let margin = (c.abs() + r) * (1.0 / 1_048_576.0) + 1e-20;
        ((c - r - margin) / self.cell, (c + r + margin) / self.cell)
    }

    /// A block that contains the block ([`GridGeometry::block`]) of every
    /// query of radius `r` centered in the box `[x.0, x.1] x [z.0, z.1]`
    /// (world units), or `None` when it misses the grid: the block of the
    /// box's corners, widened by twice the margin of
    /// [`GridGeometry::block`] taken at the box's largest magnitude. The
    /// extra margin exceeds every rounding difference between the two
    /// computations (a few ULPs against 2^-20 of the magnitude), so each
    /// query's own block lies inside it. Used to search once for all units
    /// of a cell.
    #[inline]
    pub fn box_block(&self, x: (f32, f32), z: (f32, f32), r: f32) -> Option<Block> {
        if self.nx == 0 {
            return None;
        }
        let r = search_radius(r);
        let axis = |(lo, hi): (f32, f32), origin: i64, n: usize| {
            let margin = (lo.abs().max(hi.abs()) + r) * (2.0 / 1_048_576.0) + 2e-20;
            let lo_q = (lo - r - margin) / self.cell;
            let hi_q = (hi + r + margin) / self.cell;
            Self::clip(lo_q, hi_q, origin, n)
        };
        let (x0, x1) = axis(x, self.origin_x, self.nx)?;
        let (z0, z1) = axis(z, self.origin_z, self.nz)?;
        Some(Block { x0, x1, z0, z1 })
    }

    /// The grid columns (or rows) from `floor(lo_q)` to `floor(hi_q)`,
    /// intersected with `0..n` (`origin` = the global index of column 0).
    #[inline]
    fn clip(lo_q: f32, hi_q: f32, origin: i64, n: usize) -> Option<(usize, usize)> {
        let lo = floor_to_i64(lo_q).saturating_sub(origin).max(0);
        let hi = floor_to_i64(hi_q).saturating_sub(origin).min(n as i64 - 1);
        if lo > hi {
            None
        } else {
            Some((lo as usize, hi as usize))
        }
    }

    #[inline]
    fn axis_range(&self, c: f32, r: f32, origin: i64, n: usize) -> Option<(usize, usize)> {
        let (lo_q, hi_q) = self.axis_quotients(c, r);
        Self::clip(lo_q, hi_q, origin, n)
    }
}
