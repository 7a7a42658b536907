//! Counting-sort grid in CSR layout: every cell is one contiguous slice of a
//! single SoA array, and the cells of a grid row follow each other, so a query
//! runs the kernel once per row of its block instead of once per cell.

//!
//! The fused passes over it live in `sorted_grid/fused.rs`, the choice of
//! the block each unit searches there in `sorted_grid/blocks.rs`.

use super::csr;
use super::geometry::{floor_to_i64, Block};
use rayon::prelude::*;

use super::kernels::cells::{cells, CellGrid};
use super::kernels::driver::GROUP;
use super::{
    pool_threads, Bounds, ChunkResults, GridGeometry, Kernel, Points, Query, QueryStats,
    SpatialIndex, FIXED_RANGE,
};

mod blocks;
mod carried;
mod fused;
mod incremental;
mod interior;

pub use carried::{Carried, MAX_CARRIED};

/// Marks a unit left out of the index (non-finite position).
const NOT_INDEXED: u32 = u32::MAX;

/// Counting-sort ("CSR") uniform grid, rebuilt every frame.
///
/// Rebuild: (1) fit the geometry, (2) compute each unit's cell and count units
/// per cell, (3) exclusive prefix sum into `cell_start`, (4) scatter unit ids
/// and copies of x and z into cell order. Cell `c` then owns entries
/// `cell_start[c]..cell_start[c + 1]` of `x`, `z` and `ids`; within a cell,
/// ids ascend. All buffers are kept across frames, so a steady-state rebuild
/// makes no heap allocation. O(N + cells) per rebuild.
#[derive(Clone, Debug, Default)]
pub struct SortedGrid {
    geo: GridGeometry,
    /// `cells + 1` offsets into the sorted arrays.
    cell_start: Vec<u32>,
    /// Cell of each unit in input order, or [`NOT_INDEXED`].
    unit_cell: Vec<u32>,
    x: Vec<f32>,
    z: Vec<f32>,
    ids: Vec<u32>,
    /// Team of each entry, in cell order, when the rebuild was given teams
    /// ([`SortedGrid::rebuild_tagged`]); empty otherwise.
    team: Vec<u32>,
    /// Whether the last rebuild was given teams, all 0 or 1: the fused
    /// queries are then marked [`crate::engine::spatial::FusedQuery::two_teams`].
    two_teams: bool,
    /// Slot of each unit in the sorted arrays ([`NOT_INDEXED`] for units
    /// left out): the inverse of `ids`. Not kept while resident (only its
    /// length, the unit count, is read then).
    slot_of: Vec<u32>,
    /// Whether every indexed coordinate is within [`FIXED_RANGE`] (the SIMD
    /// fused kernels' precondition).
    in_range: bool,
    /// Per-thread cell counts of the rebuild, then per-thread scatter
    /// cursors (`cells + 1` each).
    hist: Vec<Vec<u32>>,
    /// True after [`SortedGrid::rebuild_resident`] handed the sorted x and z
    /// to the caller: the caller's arrays are then the grid's columns, slot
    /// `s` is unit `s`, and `ids` holds the permutation the caller applied.
    resident: bool,
    /// `0..n`: the ids and the slot of every unit while resident.
    identity: Vec<u32>,
    /// The state of the merge rebuild ([`SortedGrid::rebuild_moved`]),
    /// boxed: its buffers are scratch, and the grid stays small to move.
    merge: Box<incremental::MergeState>,
}

/// The smallest and largest value of a non-empty slice of finite values
/// (the index's columns hold only finite positions): plain comparisons,
/// one instruction each, where `f32::min` adds a NaN check.
///
/// # Panics
/// If `v` is empty.
fn span(v: &[f32]) -> (f32, f32) {
    v.iter().fold((v[0], v[0]), |(lo, hi), &t| {
        (if t < lo { t } else { lo }, if t > hi { t } else { hi })
    })
}

/// The bounds of `points`, computed in ranges of `size` units on the
/// threads of the pool when there is more than one range.
fn bounds_in_parts(points: Points<'_>, size: usize) -> Bounds {
    if points.len() > size {
        points
            .x
            .par_chunks(size)
            .zip(points.z.par_chunks(size))
            .map(|(x, z)| Bounds::of(Points::new(x, z)))
            .reduce(|| Bounds::EMPTY, Bounds::merge)
    } else {
        Bounds::of(points)
    }
}

/// Whether every indexed coordinate within `bounds` is inside
/// [`FIXED_RANGE`] (no indexed point, `finite == 0`, leaves the bounds
/// infinite and counts as inside).
fn in_fixed_range(bounds: &Bounds) -> bool {
    let far = [bounds.min_x, bounds.max_x, bounds.min_z, bounds.max_z]
        .iter()
        .fold(0f32, |m, v| m.max(v.abs()));
    bounds.finite == 0 || far < FIXED_RANGE
}

/// The sorted columns a query reads: the grid's own copies, or the caller's
/// arrays while the units live in cell order ([`SortedGrid::rebuild_resident`]).
#[derive(Clone, Copy)]
struct Cols<'a> {
    x: &'a [f32],
    z: &'a [f32],
    ids: &'a [u32],
    team: &'a [u32],
    /// Whether every team in `team` is 0 or 1 (the grid's `two_teams`).
    two_teams: bool,
}

/// Whether every team of `teams` is 0 or 1 (one OR over the column).
fn only_two_teams(teams: &[u8]) -> bool {
    teams.iter().fold(0u8, |a, &t| a | t) <= 1
}

/// Most rows of a block handed to the kernel in one call.
const MAX_ROWS: usize = 64;

/// Writes the cell of units `first..first + unit_cell.len()` into `unit_cell`
/// ([`NOT_INDEXED`] for non-finite positions) and counts them into
/// `counts[c + 1]`.
fn count_cells(
    geo: &GridGeometry,
    points: Points<'_>,
    first: usize,
    unit_cell: &mut [u32],
    counts: &mut [u32],
) {
    cells_of(geo, points, first, unit_cell);
    for &c in unit_cell.iter() {
        if c != NOT_INDEXED {
            counts[c as usize + 1] += 1;
        }
    }
}

/// Writes the cell of units `first..first + unit_cell.len()` into
/// `unit_cell` ([`NOT_INDEXED`] for non-finite positions): the cells of
/// [`GridGeometry::cell_of`], computed branch-free (vectorized) where the
/// global cell indices are exact in f32.
fn cells_of(geo: &GridGeometry, points: Points<'_>, first: usize, unit_cell: &mut [u32]) {
    let end = first + unit_cell.len();
    let (xs, zs) = (&points.x[first..end], &points.z[first..end]);
    /// Global cell indices below this magnitude are exact in f32.
    const SMALL: i64 = 1 << 23;
    let (nx, nz) = (geo.nx as i64, geo.nz as i64);
    // `saturating_abs`: the origin may be i64::MIN (a point near -f32::MAX
    // over a subnormal cell), whose `abs` overflows (hard case F1).
    let small = |origin: i64, n: i64| origin.saturating_abs().saturating_add(n) < SMALL;
    if small(geo.origin_x, nx) && small(geo.origin_z, nz) && nx > 0 && nz > 0 {
        let grid = CellGrid {
            cell: geo.cell,
            origin_x: geo.origin_x as f32,
            origin_z: geo.origin_z as f32,
            nx: geo.nx as u32,
            nz: geo.nz as u32,
        };
        cells(xs, zs, grid, NOT_INDEXED, unit_cell);
        return;
    }
    for (uc, (&x, &z)) in unit_cell.iter_mut().zip(xs.iter().zip(zs)) {
        *uc = geo.cell_of(x, z).map_or(NOT_INDEXED, |c| c as u32);
    }
}

/// The searched rows of one query, as the per-unit walk hands them over.
#[derive(Clone, Copy)]
enum Rows<'a> {
    /// Nothing to search (invalid query, or a block off the grid).
    Empty,
    /// The non-empty row ranges of a block of at most [`MAX_ROWS`] rows and
    /// the entries they hold.
    Ranges(&'a [(u32, u32)], u64),
    /// A taller block, walked in batches of rows.
    Tall(Block),
}

impl SortedGrid {
    /// Rebuilds the index like [`SpatialIndex::rebuild`] and, when
    /// `teams` is given (one per unit, parallel to `points`), also copies
    /// each unit's team into cell order for [`SortedGrid::near_all`].
    ///
    /// Threads (those of the pool it is called in, [`pool_threads`]): bounds, each unit's cell and
    /// per-thread counts, and the scatter, where each thread places its own
    /// contiguous range of units through its own cursors (thread `t`'s
    /// cursor for cell `c` starts after the units of threads `< t` in `c`),
    /// so the writes are disjoint and the order within a cell is ascending
    /// ids as in the sequential rebuild. Only the prefix sums run on one
    /// thread. Allocates only while buffers grow.
    ///
    /// # Panics
    /// If `teams` is given with a length other than `points.len()`.
    pub fn rebuild_tagged(&mut self, points: Points<'_>, teams: Option<&[u8]>, cell_size: f32) {
        // code:begin sorted-grid-rebuild
        let n = points.len();
        if let Some(t) = teams {
            assert_eq!(t.len(), n, "one team per unit");
        }
        self.resident = false;
        self.merge.merged = false;
        let threads = if n > 1 { pool_threads() } else { 1 };
        let size = n.div_ceil(threads).max(1);
        let parts = n.div_ceil(size).max(1);
        let bounds = bounds_in_parts(points, size);
        self.geo = GridGeometry::from_bounds(&bounds, cell_size);
        let cells = self.geo.cells();
        // `count_cells` writes every unit's cell: only the length matters.
        self.unit_cell.resize(n, NOT_INDEXED);
        if self.hist.len() < parts {
            self.hist.resize_with(parts, Vec::new);
        }
        let geo = &self.geo;
        let count = |(t, (uc, h)): (usize, (&mut [u32], &mut Vec<u32>))| {
            h.clear();
            h.resize(cells + 1, 0);
            count_cells(geo, points, t * size, uc, h);
        };
        if pool_threads() > 1 {
            self.unit_cell
                .par_chunks_mut(size)
                .zip(self.hist.par_iter_mut())
                .enumerate()
                .for_each(count)
        } else {
            self.unit_cell
                .chunks_mut(size)
                .zip(self.hist.iter_mut())
                .enumerate()
                .for_each(count)
        }
        if n == 0 {
            self.hist[0].clear();
            self.hist[0].resize(cells + 1, 0);
        }
        // Totals per cell, their prefix sum, then each thread's cursors.
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        let hist = &mut self.hist[..parts];
        for h in hist.iter() {
            for (s, &c) in self.cell_start.iter_mut().zip(h.iter()) {
                *s += c;
            }
        }
        let indexed = csr::prefix_sum(&mut self.cell_start) as usize;
        csr::thread_cursors(&self.cell_start, hist);
        self.x.resize(indexed, 0.0);
        self.z.resize(indexed, 0.0);
        self.ids.resize(indexed, 0);
        self.team.clear();
        self.two_teams = teams.is_some_and(only_two_teams);
        if teams.is_some() {
            self.team.resize(indexed, 0);
        }
        self.slot_of.resize(n, NOT_INDEXED);
        let out = csr::Columns {
            x: &mut self.x,
            z: &mut self.z,
            ids: &mut self.ids,
            team: &mut self.team,
            slot_of: &mut self.slot_of,
        };
        let src = csr::Sources {
            x: points.x,
            z: points.z,
            team: teams,
        };
        csr::par_scatter(&self.unit_cell, NOT_INDEXED, hist, size, src, out);
        self.in_range = in_fixed_range(&bounds);
        // code:end sorted-grid-rebuild
    }

    /// The rebuild of [`SortedGrid::rebuild_tagged`] (with teams) that
    /// leaves the units themselves in cell order: the scatter's sorted x and
    /// z are swapped into `x` and `z` (no copy), and the permutation it
    /// applied is returned, `perm[s]` = the old index of the unit now at
    /// `s`, for the caller to apply to every other array of its units
    /// (`new[s] = old[perm[s]]`, stable: a cell's units keep their order).
    /// From then until the next rebuild the grid's columns are the caller's
    /// `x` and `z` (pass them as `points` to the queries), ids and slots are
    /// unit indices, and [`SortedGrid::near_all`] writes no gather.
    ///
    /// From the second call on, while the grid keeps its geometry, the
    /// sort is a merge of last frame's order with the units that changed
    /// cell (`SortedGrid::rebuild_moved` in `sorted_grid/incremental.rs`):
    /// the same permutation and index as the counting sort, in less time.
    ///
    /// Returns `None`, with `x` and `z` untouched and an ordinary index
    /// built, when some unit has a non-finite position (left out of the
    /// index, it would have no slot). Allocates only while buffers grow.
    ///
    /// # Panics
    /// If `x`, `z` and `teams` differ in length.
    pub fn rebuild_resident(
        &mut self,
        x: &mut Vec<f32>,
        z: &mut Vec<f32>,
        teams: &[u8],
        cell_size: f32,
    ) -> Option<&[u32]> {
        self.rebuild_resident_carrying(x, z, teams, cell_size, Carried::new())
            .map(|(perm, _)| perm)
    }

    /// [`SortedGrid::rebuild_resident`] that also moves the caller's other
    /// columns, `carried`, when the merge runs: each is written into its
    /// output in the new order by the merge's own runs, in the same pass
    /// as x and z, so no gather through the permutation follows. Returns
    /// the permutation and whether `carried` was written (true when the
    /// merge ran and `carried` holds columns); when false, the outputs are
    /// untouched and the caller applies the permutation itself, as after
    /// [`SortedGrid::rebuild_resident`].
    ///
    /// # Panics
    /// If `x`, `z` and `teams` differ in length, or `carried` holds columns
    /// of another length.
    pub fn rebuild_resident_carrying(
        &mut self,
        x: &mut Vec<f32>,
        z: &mut Vec<f32>,
        teams: &[u8],
        cell_size: f32,
        carried: Carried<'_>,
    ) -> Option<(&[u32], bool)> {
        assert_eq!(x.len(), z.len(), "one z per x");
        assert_eq!(teams.len(), x.len(), "one team per unit");
        assert!(
            carried.is_empty() || carried.len() == x.len(),
            "one carried entry per unit"
        );
        let n = x.len();
        let wrote = !carried.is_empty();
        self.merge.merged = self.rebuild_moved(x, z, teams, cell_size, carried);
        if self.merge.merged {
            self.two_teams = only_two_teams(teams);
            return Some((&self.ids, wrote));
        }
        self.rebuild_tagged(Points::new(x, z), Some(teams), cell_size);
        if self.x.len() != n {
            return None;
        }
        std::mem::swap(&mut self.x, x);
        std::mem::swap(&mut self.z, z);
        if self.identity.len() != n {
            self.identity.clear();
            self.identity.extend(0..n as u32);
        }
        self.resident = true;
        Some((&self.ids, false))
    }

    /// Calls `f` with the non-empty row ranges of `block` and the entries they
    /// hold, at most [`MAX_ROWS`] rows per call, top row first.
    #[inline]
    fn row_batches(&self, block: Block, mut f: impl FnMut(&[(u32, u32)], u64)) {
        let mut ranges = [(0u32, 0u32); MAX_ROWS];
        let mut row = block.z0;
        while row <= block.z1 {
            let last = block.z1.min(row + MAX_ROWS - 1);
            let rows = Block {
                z0: row,
                z1: last,
                ..block
            };
            let (used, total) = self.row_ranges(rows, &mut ranges);
            f(&ranges[..used], total);
            row = last + 1;
        }
    }

    /// The per-unit walk of the collect pass (units in unit order): splits the units
    /// of `range` (in order) into groups of consecutive units with the same
    /// searched rows (radius `r`), at most [`GROUP`] units each, and calls
    /// `visit(units, rows)` once per group. A block is fixed by the floors of
    /// four quotients ([`GridGeometry::axis_quotients`]); when the next
    /// unit's quotients have the same floors (with units in cell order,
    /// consecutive units of a cell do), it joins the group after four float
    /// comparisons per axis, without recomputing the block. A unit whose
    /// query is invalid or whose block is off the grid gets
    /// [`Rows::Empty`]; a block taller than [`MAX_ROWS`] rows is visited
    /// alone as [`Rows::Tall`].
    #[inline]
    fn walk_groups(
        &self,
        points: Points<'_>,
        r: f32,
        range: std::ops::Range<usize>,
        mut visit: impl FnMut(std::ops::Range<usize>, Rows<'_>),
    ) {
        /// Floors are compared as f32, exact below this magnitude.
        const EXACT: f32 = 16_777_216.0;
        let mut ranges = [(0u32, 0u32); MAX_ROWS];
        let mut used = 0usize;
        let mut span_total = 0u64;
        // Floors of the four quotients of the cached block (lo x, hi x, lo z, hi z).
        let mut cached: Option<[f32; 4]> = None;
        // The open group: units first..i share `ranges[..used]`.
        let mut first = range.start;
        let mut open = false;
        for i in range.clone() {
            let (cx, cz) = (points.x[i], points.z[i]);
            let valid = Query::new(cx, cz, r).kernel_query().is_some();
            let (lx, hx) = self.geo.axis_quotients(cx, r);
            let (lz, hz) = self.geo.axis_quotients(cz, r);
            let quot = [lx, hx, lz, hz];
            let hit = valid
                && cached.is_some_and(|f| (0..4).all(|k| f[k] <= quot[k] && quot[k] < f[k] + 1.0));
            if hit && i - first < GROUP {
                continue;
            }
            if open {
                visit(first..i, Rows::Ranges(&ranges[..used], span_total));
                open = false;
            }
            first = i;
            if hit {
                // Same block, but the group was full.
                open = true;
                continue;
            }
            cached = None;
            if !valid {
                visit(i..i + 1, Rows::Empty);
                first = i + 1;
                continue;
            }
            match self.geo.block(cx, cz, r) {
                Some(block) if block.rows() <= MAX_ROWS => {
                    (used, span_total) = self.row_ranges(block, &mut ranges);
                    if quot.iter().all(|v| v.abs() < EXACT) {
                        cached = Some(quot.map(|v| floor_to_i64(v) as f32));
                    }
                    open = true;
                }
                Some(block) => {
                    visit(i..i + 1, Rows::Tall(block));
                    first = i + 1;
                }
                None => {
                    visit(i..i + 1, Rows::Empty);
                    first = i + 1;
                }
            }
        }
        if open {
            visit(first..range.end, Rows::Ranges(&ranges[..used], span_total));
        }
    }

    /// Writes the non-empty entry ranges of the rows of `block` (at most
    /// `ranges.len()` rows) into `ranges`; returns how many ranges were
    /// written and how many entries they hold.
    #[inline]
    fn row_ranges(&self, block: Block, ranges: &mut [(u32, u32)]) -> (usize, u64) {
        let (mut used, mut total) = (0, 0u64);
        for (first, end) in self.block_rows(block) {
            let (a, e) = (self.cell_start[first], self.cell_start[end]);
            if e > a {
                ranges[used] = (a, e);
                used += 1;
                total += (e - a) as u64;
            }
        }
        (used, total)
    }

    /// The rows of `block` (inclusive column and row ranges `(x0, x1, z0,
    /// z1)` of [`GridGeometry::search`]) as pairs of cell numbers `(first,
    /// end)`: the row's entries of [`SortedGrid::sorted`] are
    /// `cell_start[first]..cell_start[end]`.
    #[inline]
    pub fn block_rows(
        &self,
        Block { x0, x1, z0, z1 }: Block,
    ) -> impl Iterator<Item = (usize, usize)> {
        let nx = self.geo.nx;
        (z0..=z1).map(move |row| (row * nx + x0, row * nx + x1 + 1))
    }

    /// The sorted SoA arrays `(x, z, ids)`, in cell order (row-major cells):
    /// entry `s` is unit `ids[s]`. While the units live in cell order
    /// ([`SortedGrid::rebuild_resident`]) these are `points` (the caller's
    /// arrays the rebuild sorted) and `ids` is `0..n`; otherwise `points`
    /// is not read.
    ///
    /// # Panics
    /// While resident, if `points` has another length than the units.
    pub fn sorted<'a>(&'a self, points: Points<'a>) -> (&'a [f32], &'a [f32], &'a [u32]) {
        let c = self.cols(points);
        (c.x, c.z, c.ids)
    }

    /// The team of each entry in cell order, which the fused kernel reads
    /// beside the positions; empty when the last rebuild had no teams.
    pub fn sorted_teams(&self) -> &[u32] {
        &self.team
    }

    /// When the last rebuild was the merge of last frame's order with the
    /// units that changed cell ([`SortedGrid::rebuild_resident`] from its
    /// second call on, `sorted_grid/incremental.rs`): how many changed
    /// cell. `None` after a full counting sort.
    pub fn merged_movers(&self) -> Option<usize> {
        self.merge.merged.then_some(self.merge.movers.len())
    }

    /// Whether the last rebuild left the units living in cell order
    /// ([`SortedGrid::rebuild_resident`]).
    pub fn is_resident(&self) -> bool {
        self.resident
    }

    /// The columns queries read: the grid's own, or `points` while resident.
    #[inline]
    fn cols<'a>(&'a self, points: Points<'a>) -> Cols<'a> {
        if self.resident {
            let n = self.identity.len();
            assert_eq!(points.len(), n, "the arrays the resident rebuild sorted");
            Cols {
                x: points.x,
                z: points.z,
                ids: &self.identity,
                team: &self.team,
                two_teams: self.two_teams,
            }
        } else {
            Cols {
                x: &self.x,
                z: &self.z,
                ids: &self.ids,
                team: &self.team,
                two_teams: self.two_teams,
            }
        }
    }

    /// Offsets of the cells into [`SortedGrid::sorted`]: `cells + 1` entries.
    pub fn cell_start(&self) -> &[u32] {
        &self.cell_start
    }
}

impl SpatialIndex for SortedGrid {
    fn rebuild(&mut self, points: Points<'_>, cell_size: f32) {
        self.rebuild_tagged(points, None, cell_size);
    }

    /// Reads `points` only while the units live in cell order
    /// ([`SortedGrid::rebuild_resident`]); the result lists unit indices.
    fn query(
        &self,
        points: Points<'_>,
        q: &Query,
        kernel: Kernel,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        let Some((kq, block)) = self.geo.search(q) else {
            return QueryStats::default();
        };
        let c = self.cols(points);
        let before = out.len();
        let mut candidates = 0u64;
        // One contiguous range per row of the block, handed to the kernel in
        // batches so its constants are set up once per batch.
        self.row_batches(block, |ranges, total| {
            candidates += total;
            kernel.run_ranges(c.x, c.z, c.ids, ranges, &kq, out);
        });
        QueryStats {
            candidates,
            neighbors: (out.len() - before) as u64,
        }
    }

    fn geometry(&self) -> Option<&GridGeometry> {
        Some(&self.geo)
    }

    // code:begin sorted-grid-collect
    /// The per-unit pass in unit order (blocks reused between consecutive
    /// units when their block quotients agree), with all rows of a query handed
    /// to the kernel in one call. Same blocks and results as
    /// [`SpatialIndex::query`].
    fn query_units(
        &self,
        points: Points<'_>,
        r: f32,
        kernel: Kernel,
        chunk: &mut ChunkResults,
    ) -> QueryStats {
        let kernel = kernel.or_scalar();
        let mut stats = QueryStats::default();
        let ChunkResults {
            start,
            end,
            offsets,
            ids,
            ..
        } = chunk;
        let c = self.cols(points);
        let (xs, zs, is) = (c.x, c.z, c.ids);
        self.walk_groups(points, r, *start..*end, |units, rows| {
            for i in units {
                let before = ids.len();
                let kq = Query {
                    exclude: i as u32,
                    ..Query::new(points.x[i], points.z[i], r)
                }
                .kernel_query();
                match (rows, kq) {
                    (Rows::Ranges(ranges, total), Some(kq)) => {
                        stats.candidates += total;
                        kernel.run_ranges(xs, zs, is, ranges, &kq, ids);
                    }
                    (Rows::Tall(block), Some(kq)) => self.row_batches(block, |ranges, total| {
                        stats.candidates += total;
                        kernel.run_ranges(xs, zs, is, ranges, &kq, ids);
                    }),
                    _ => {}
                }
                stats.neighbors += (ids.len() - before) as u64;
                offsets.push(ids.len() as u32);
            }
        });
        stats
    }
    // code:end sorted-grid-collect
}
