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
    /// Number of cells, `(x1 - x0 + 1) * (z1 - z0 + 1)`.
    #[inline]
    pub fn cells(&self) -> usize {
        (self.x1 - self.x0 + 1) * self.rows()
    }

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
    /// The effective cell size is `cell_hint`, raised to
    /// [`min_cell_for_extent`] of the points' larger extent when below it
    /// (the same cell for every such hint), then doubled until the grid has
    /// at most [`MAX_CELLS`] cells and no coordinate passes i64, so memory
    /// stays bounded for tiny cell sizes; a hint of at least that minimum
    /// (for points in `[0, extent)`) is always used as given. A hint that is not
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
        // A hint too small for the extent is raised to the smallest cell
        // that fits it, the same for every such hint (doubling from each
        // would give each its own cell).
        let extent = (max_x - min_x).max(max_z - min_z);
        if extent.is_finite() && cell < min_cell_for_extent(extent) {
            cell = min_cell_for_extent(extent);
        }
        let cap = MAX_CELLS as i128;
        // A coordinate beyond i64 saturates, and two saturated ends would
        // read as one cell: such a cell counts as too small.
        let saturates = |cell: f32| {
            [min_x, max_x, min_z, max_z]
                .iter()
                .any(|&v| (f64::from(v) / f64::from(cell)).abs() >= 4.0e18)
        };
        loop {
            if saturates(cell) && cell.is_finite() {
                cell *= 2.0;
                continue;
            }
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

    /// The per-unit trimming of the block ([`GridGeometry::box_block`]) of
    /// the box `[x.0, x.1] x [z.0, z.1]` (world units) for radius `r`, or
    /// `None` when that block misses the grid. See [`BoxTrim`]. Allocates
    /// nothing.
    #[inline]
    pub fn box_trim(&self, x: (f32, f32), z: (f32, f32), r: f32) -> Option<BoxTrim> {
        let block = self.box_block(x, z, r)?;
        let r = search_radius(r);
        let axis = |(lo, hi): (f32, f32), origin: i64, first: usize, last: usize| {
            let margin = (lo.abs().max(hi.abs()) + r) * (2.0 / 1_048_576.0) + 2e-20;
            let (first, last) = (
                origin.saturating_add(first as i64),
                origin.saturating_add(last as i64),
            );
            // Global indices beyond 2^24 are not exact in f32: such a box
            // keeps its whole block (infinite limits put every unit in it).
            let exact = first.saturating_abs() < EXACT_INDEX && last.saturating_abs() < EXACT_INDEX;
            let t = AxisTrim {
                lo,
                hi,
                r,
                margin,
                below: if exact {
                    (first + 1) as f32
                } else {
                    f32::INFINITY
                },
                last: if exact {
                    last as f32
                } else {
                    f32::NEG_INFINITY
                },
            };
            // The quotients grow with the coordinate: every unit needs the
            // first column when the one at `hi` does, the last when `lo` does.
            let whole = t.needs_first(hi, self.cell) && t.needs_last(lo, self.cell);
            (t, whole)
        };
        let (tx, wx) = axis(x, self.origin_x, block.x0, block.x1);
        let (tz, wz) = axis(z, self.origin_z, block.z0, block.z1);
        Some(BoxTrim {
            block,
            cell: self.cell,
            x: tx,
            z: tz,
            whole: wx && wz,
        })
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

/// Global cell indices below this magnitude (2^24 - 1) and the next one
/// are exact in f32.
const EXACT_INDEX: i64 = (1 << 24) - 1;

/// One axis of a [`BoxTrim`]: the radius and margin of the box's block,
/// the global index of its first column (or row) plus one and that of its
/// last, as f32 (exact), or `+inf` and `-inf` to keep both for every unit.
#[derive(Clone, Copy, Debug, PartialEq)]
struct AxisTrim {
    lo: f32,
    hi: f32,
    r: f32,
    margin: f32,
    below: f32,
    last: f32,
}

impl AxisTrim {
    /// Whether a unit at `c` needs the first column: `floor((c - r -
    /// margin) / cell) <= first`, i.e. the quotient is below `first + 1`
    /// (compared in f32, where both are exact: no float-to-integer
    /// conversion, so the loop over a cell's units vectorizes).
    #[inline(always)]
    fn needs_first(&self, c: f32, cell: f32) -> bool {
        (c - self.r - self.margin) / cell < self.below
    }

    /// Whether a unit at `c` needs the last column: `floor((c + r +
    /// margin) / cell) >= last`, i.e. the quotient is at least `last`.
    #[inline(always)]
    fn needs_last(&self, c: f32, cell: f32) -> bool {
        (c + self.r + self.margin) / cell >= self.last
    }

    /// The shares of `lo..hi` where a unit needs neither end column, the
    /// first only, the last only and both (index = class bits, bit 0: the
    /// first, bit 1: the last); the borders are taken as `(first + 1) *
    /// cell + r + margin` and `last * cell - r - margin`, up to rounding.
    #[inline]
    fn shares(&self, cell: f32) -> [f32; 4] {
        let w = self.hi - self.lo;
        let inside = |t: f32| t.clamp(self.lo, self.hi);
        // Units below `a` need the first column, units from `b` the last.
        let a = inside(self.below * cell + self.r + self.margin);
        let b = inside(self.last * cell - self.r - self.margin);
        let spread = w > 0.0 && w.is_finite() && a.is_finite() && b.is_finite();
        if !spread {
            // A point (or an unclassifiable axis): all units in one class.
            let one = self.needs_first(self.lo, cell) as usize
                | (self.needs_last(self.lo, cell) as usize) << 1;
            let mut s = [0.0; 4];
            s[one] = 1.0;
            return s;
        }
        [
            (b - a).max(0.0) / w,
            (a.min(b) - self.lo) / w,
            (self.hi - a.max(b)) / w,
            (a - b).max(0.0) / w,
        ]
    }
}

/// The block of a cell's units ([`GridGeometry::box_block`]) cut down to
/// what each unit's own query reaches, so that a cell whose units do not
/// all need the same cells (the cell is wider than `2r` on some axis, or
/// `r / cell` is not a whole number) searches, per unit, only its own block
/// ([`GridGeometry::block`]) and not the union of its units' blocks: at a
/// cell of `4r`, 2.25 cells instead of 9 on average.
///
/// Each unit falls in one of 16 classes (bit 0: it needs the block's first
/// column, 1: its last column, 2: its first row, 3: its last row), and the
/// units of a class share [`BoxTrim::block_of`] that class.
///
/// Why a unit's own block lies inside the block of its class: the class is
/// decided with the box's margin, which is at least twice the unit's own
/// ([`GridGeometry::block`]: `(|c| + r) * 2^-20 + 1e-20`, against
/// `(max |box| + r) * 2^-19 + 2e-20`), and `floor((c - r - m) / cell)`
/// only falls as the subtracted margin grows (float subtraction and
/// division are monotonic); the same for the upper bound. The two blocks
/// differ only when `c +- r` lies within that margin of a cell border, where
/// the class keeps the extra column or row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxTrim {
    /// The box's block: the union of the class blocks.
    pub block: Block,
    cell: f32,
    x: AxisTrim,
    z: AxisTrim,
    /// Every unit of the box needs the whole block (one class, 15).
    whole: bool,
}

impl BoxTrim {
    /// The class whose block is the whole [`BoxTrim::block`].
    pub const WHOLE: u8 = 15;

    /// True when every unit of the box needs the whole block (always at a
    /// cell of `r / k` for a whole `k`, away from borders), so no unit's
    /// class needs computing.
    #[inline]
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// The class of a unit at `(x, z)` inside the box (world units): which
    /// edges of the block its own query reaches (see [`BoxTrim`]).
    #[inline(always)]
    pub fn class(&self, x: f32, z: f32) -> u8 {
        let c = self.cell;
        self.x.needs_first(x, c) as u8
            | (self.x.needs_last(x, c) as u8) << 1
            | (self.z.needs_first(z, c) as u8) << 2
            | (self.z.needs_last(z, c) as u8) << 3
    }

    /// The expected share of the box's units in each class (index =
    /// [`BoxTrim::class`]) if they were spread evenly over the box: a
    /// cheap estimate, before classifying any unit, of whether splitting
    /// the box's units by class can pay. The shares sum to 1.
    pub fn class_shares(&self) -> [f32; 16] {
        let (sx, sz) = (self.x.shares(self.cell), self.z.shares(self.cell));
        let mut out = [0.0; 16];
        for (j, &z) in sz.iter().enumerate() {
            for (i, &x) in sx.iter().enumerate() {
                out[i | j << 2] = x * z;
            }
        }
        out
    }

    /// Writes [`BoxTrim::class`] of the units at `(x[i], z[i])` into
    /// `out[i]` (branch-free, vectorized by the compiler).
    ///
    /// # Panics
    /// If the three slices differ in length.
    #[inline]
    pub fn classify(&self, x: &[f32], z: &[f32], out: &mut [u8]) {
        assert!(
            x.len() == z.len() && x.len() == out.len(),
            "one class per unit"
        );
        for ((o, &x), &z) in out.iter_mut().zip(x).zip(z) {
            *o = self.class(x, z);
        }
    }

    /// The block searched by the units of `class` ([`BoxTrim::class`]): the
    /// box's block without the edges the class does not need (never empty,
    /// inside [`BoxTrim::block`]).
    #[inline]
    pub fn block_of(&self, class: u8) -> Block {
        let b = self.block;
        let cut = |need_first: bool, need_last: bool, lo: usize, hi: usize| {
            let a = if need_first { lo } else { (lo + 1).min(hi) };
            let e = if need_last {
                hi
            } else {
                hi.saturating_sub(1).max(a)
            };
            (a, e)
        };
        let (x0, x1) = cut(class & 1 != 0, class & 2 != 0, b.x0, b.x1);
        let (z0, z1) = cut(class & 4 != 0, class & 8 != 0, b.z0, b.z1);
        Block { x0, x1, z0, z1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Case X9: a cell hint so small that the points' coordinates pass
    /// i64 (1e-30 over [1, 100)) is raised like any too-small cell, to a
    /// grid of about [`MAX_CELLS`] cells, not collapsed into one cell.
    #[test]
    fn a_tiny_cell_hint_is_raised_not_collapsed() {
        let xs = [1.0f32, 99.0, 50.0];
        let zs = [1.0f32, 99.0, 20.0];
        for hint in [1e-30f32, 1e-20, 1e-10, f32::MIN_POSITIVE] {
            let g = GridGeometry::fit(Points::new(&xs, &zs), hint);
            let cells = g.nx * g.nz;
            assert!(cells > MAX_CELLS / 8 && cells <= MAX_CELLS, "{hint}: {g:?}");
            assert!(g.cell >= min_cell_for_extent(98.0) / 2.0, "{hint}: {g:?}");
        }
    }

    /// Every unit's own block ([`GridGeometry::block`]) lies inside the
    /// block of its class, which lies inside the box's block, for boxes of
    /// one cell's units at cells from r / 4 to 4r, near the origin and far
    /// from it, and near the origin equals it but for the units within the
    /// margin of a border; a box whose block is whole puts every unit in
    /// [`BoxTrim::WHOLE`].
    #[test]
    fn class_blocks_hold_each_units_own_block() {
        let mut rng = SmallRng::seed_from_u64(19);
        let (mut units, mut equal) = (0usize, 0usize);
        for &(offset, r) in &[
            (0.0f32, 10.0f32),
            (-37.5, 2.5),
            (250_000.0, 10.0),
            (-3.0e6, 40.0),
        ] {
            for &ratio in &[0.25f32, 0.5, 0.63, 1.0, 1.26, 2.0, 2.52, 4.0] {
                let cell = r * ratio;
                let corners = [offset - 50.0 * r, offset + 50.0 * r];
                let geo = GridGeometry::fit(Points::new(&corners, &corners), cell);
                for _ in 0..40 {
                    // The units of one cell.
                    let c = offset + rng.gen_range(-40.0f32..40.0) * r;
                    let lo = geo.coord(c) as f32 * geo.cell;
                    let pts: Vec<(f32, f32)> = (0..12)
                        .map(|_| {
                            let mut t = || lo + rng.gen_range(0.0..1.0f32) * geo.cell * 0.999;
                            (t(), t())
                        })
                        .collect();
                    let span = |k: usize| {
                        let v = pts.iter().map(|p| if k == 0 { p.0 } else { p.1 });
                        let lo = v.clone().fold(f32::INFINITY, f32::min);
                        (lo, v.fold(f32::NEG_INFINITY, f32::max))
                    };
                    let (bx, bz) = (span(0), span(1));
                    let trim = geo.box_trim(bx, bz, r).expect("the box is on the grid");
                    assert_eq!(Some(trim.block), geo.box_block(bx, bz, r));
                    for &(x, z) in &pts {
                        let own = geo.block(x, z, r).expect("on the grid");
                        let class = trim.class(x, z);
                        let b = trim.block_of(class);
                        let inside = |a: Block, o: Block| {
                            o.x0 <= a.x0 && a.x1 <= o.x1 && o.z0 <= a.z0 && a.z1 <= o.z1
                        };
                        let ctx = format!("unit ({x}, {z}), r {r}, cell {cell}, class {class}");
                        assert!(inside(own, b), "{ctx}: own {own:?} not in {b:?}");
                        assert!(
                            inside(b, trim.block),
                            "{ctx}: {b:?} not in {:?}",
                            trim.block
                        );
                        if trim.is_whole() {
                            assert_eq!(class, BoxTrim::WHOLE, "{ctx}");
                        }
                        // Near the origin the margins are far below a cell.
                        if offset.abs() < 100.0 {
                            units += 1;
                            equal += (own == b) as usize;
                        }
                    }
                }
            }
        }
        // Different only within 2^-20 of the magnitude of a border.
        assert!(equal * 1000 >= units * 999, "{equal} of {units} equal");
    }
}
