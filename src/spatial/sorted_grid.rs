//! Counting-sort grid in CSR layout: every cell is one contiguous slice of a
//! single SoA array, and the cells of a grid row follow each other, so a query
//! runs the kernel once per row of its block instead of once per cell.

use super::csr;
use super::geometry::floor_to_i64;
use rayon::prelude::*;

use super::{Bounds, ChunkResults, GridGeometry, Kernel, Points, Query, QueryStats, SpatialIndex};

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
    /// Scatter cursors, one per cell.
    cursor: Vec<u32>,
    /// Cell of each unit in input order, or [`NOT_INDEXED`].
    unit_cell: Vec<u32>,
    x: Vec<f32>,
    z: Vec<f32>,
    ids: Vec<u32>,
    /// Per-thread cell counts of the parallel rebuild (`cells + 1` each).
    hist: Vec<Vec<u32>>,
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
    let end = first + unit_cell.len();
    let (xs, zs) = (&points.x[first..end], &points.z[first..end]);
    for (uc, (&x, &z)) in unit_cell.iter_mut().zip(xs.iter().zip(zs)) {
        if let Some(c) = geo.cell_of(x, z) {
            *uc = c as u32;
            counts[c + 1] += 1;
        }
    }
}

impl SortedGrid {
    /// Turns the counts in `cell_start[c + 1]` into offsets and scatters the
    /// units (ascending ids within a cell) using `unit_cell`.
    fn prefix_and_scatter(&mut self, points: Points<'_>) {
        let cells = self.geo.cells();
        let indexed = csr::prefix_sum(&mut self.cell_start) as usize;
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.cell_start[..cells]);
        self.x.resize(indexed, 0.0);
        self.z.resize(indexed, 0.0);
        self.ids.resize(indexed, 0);
        let (x, z, ids) = (&mut self.x, &mut self.z, &mut self.ids);
        csr::scatter(&self.unit_cell, NOT_INDEXED, &mut self.cursor, |k, i| {
            x[k] = points.x[i];
            z[k] = points.z[i];
            ids[k] = i as u32;
        });
    }

    /// Writes the non-empty entry ranges of rows `z0..=z1` (at most
    /// `ranges.len()` rows), columns `x0..=x1`, into `ranges`; returns how many
    /// ranges were written and how many entries they hold.
    #[inline]
    fn row_ranges(
        &self,
        x0: usize,
        x1: usize,
        z0: usize,
        z1: usize,
        ranges: &mut [(u32, u32)],
    ) -> (usize, u64) {
        let (mut used, mut total) = (0, 0u64);
        for (first, end) in self.block_rows((x0, x1, z0, z1)) {
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
        (x0, x1, z0, z1): (usize, usize, usize, usize),
    ) -> impl Iterator<Item = (usize, usize)> {
        let nx = self.geo.nx;
        (z0..=z1).map(move |row| (row * nx + x0, row * nx + x1 + 1))
    }

    /// The sorted SoA arrays `(x, z, ids)`, in cell order (row-major cells).
    pub fn sorted(&self) -> (&[f32], &[f32], &[u32]) {
        (&self.x, &self.z, &self.ids)
    }

    /// Offsets of the cells into [`SortedGrid::sorted`]: `cells + 1` entries.
    pub fn cell_start(&self) -> &[u32] {
        &self.cell_start
    }
}

impl SpatialIndex for SortedGrid {
    fn rebuild(&mut self, points: Points<'_>, cell_size: f32) {
        self.geo = GridGeometry::fit(points, cell_size);
        let cells = self.geo.cells();
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        self.unit_cell.clear();
        self.unit_cell.resize(points.len(), NOT_INDEXED);
        // Count into cell_start[c + 1] so the prefix sum below is exclusive.
        count_cells(
            &self.geo,
            points,
            0,
            &mut self.unit_cell,
            &mut self.cell_start,
        );
        self.prefix_and_scatter(points);
    }

    /// The parallel rebuild: bounds, cell of every unit and per-thread counts
    /// run on the pool's threads (each thread owns a contiguous range of
    /// units and its own histogram); the per-cell sums, the prefix sum and the
    /// scatter stay sequential, so the order within a cell (ascending ids) and
    /// the whole index are the same as single-threaded.
    fn rebuild_with(
        &mut self,
        points: Points<'_>,
        cell_size: f32,
        pool: Option<&rayon::ThreadPool>,
    ) {
        let Some(pool) = pool.filter(|p| p.current_num_threads() > 1) else {
            self.rebuild(points, cell_size);
            return;
        };
        let n = points.len();
        let threads = pool.current_num_threads();
        let size = n.div_ceil(threads).max(1);
        let bounds = pool.install(|| {
            points
                .x
                .par_chunks(size)
                .zip(points.z.par_chunks(size))
                .map(|(x, z)| Bounds::of(Points::new(x, z)))
                .reduce(|| Bounds::EMPTY, Bounds::merge)
        });
        self.geo = GridGeometry::from_bounds(&bounds, cell_size);
        let cells = self.geo.cells();
        self.unit_cell.clear();
        self.unit_cell.resize(n, NOT_INDEXED);
        if self.hist.len() < threads {
            self.hist.resize_with(threads, Vec::new);
        }
        let geo = &self.geo;
        pool.install(|| {
            self.unit_cell
                .par_chunks_mut(size)
                .zip(self.hist.par_iter_mut())
                .enumerate()
                .for_each(|(t, (uc, h))| {
                    h.clear();
                    h.resize(cells + 1, 0);
                    count_cells(geo, points, t * size, uc, h);
                })
        });
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        // Only the first `n / size` histograms were filled this time.
        for h in &self.hist[..n.div_ceil(size)] {
            for (s, &c) in self.cell_start.iter_mut().zip(h.iter()) {
                *s += c;
            }
        }
        self.prefix_and_scatter(points);
    }

    fn query(
        &self,
        _points: Points<'_>,
        q: &Query,
        kernel: Kernel,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        let Some((kq, (x0, x1, z0, z1))) = self.geo.search(q) else {
            return QueryStats::default();
        };
        let before = out.len();
        let mut candidates = 0u64;
        // One contiguous range per row of the block, handed to the kernel in
        // batches so its constants are set up once per batch.
        let mut ranges = [(0u32, 0u32); MAX_ROWS];
        let mut row = z0;
        while row <= z1 {
            let last = z1.min(row + MAX_ROWS - 1);
            let (used, tested) = self.row_ranges(x0, x1, row, last, &mut ranges);
            candidates += tested;
            kernel.run_ranges(&self.x, &self.z, &self.ids, &ranges[..used], &kq, out);
            row = last + 1;
        }
        QueryStats {
            candidates,
            neighbors: (out.len() - before) as u64,
        }
    }

    fn geometry(&self) -> Option<&GridGeometry> {
        Some(&self.geo)
    }

    /// The per-unit pass, sharing work between consecutive units. A block is
    /// fixed by the floors of four quotients ([`GridGeometry::axis_quotients`]);
    /// when the next unit's quotients have the same floors (with units in cell
    /// order, consecutive units mostly do), its block and the row ranges are
    /// reused after four float comparisons per axis, without recomputing them.
    /// All rows of a query go to the kernel in one call. Same blocks and
    /// results as [`SpatialIndex::query`].
    fn query_units(
        &self,
        points: Points<'_>,
        r: f32,
        kernel: Kernel,
        chunk: &mut ChunkResults,
    ) -> QueryStats {
        /// Floors are compared as f32, exact below this magnitude.
        const EXACT: f32 = 16_777_216.0;
        let kernel = kernel.or_scalar();
        let mut stats = QueryStats::default();
        let mut ranges = [(0u32, 0u32); MAX_ROWS];
        let mut used = 0usize;
        let mut span_total = 0u64;
        // Floors of the four quotients of the cached block (lo x, hi x, lo z, hi z).
        let mut cached: Option<[f32; 4]> = None;
        for i in chunk.start..chunk.end {
            let q = Query {
                cx: points.x[i],
                cz: points.z[i],
                r,
                exclude: i as u32,
            };
            let Some(kq) = q.kernel_query() else {
                chunk.offsets.push(chunk.ids.len() as u32);
                continue;
            };
            let (lx, hx) = self.geo.axis_quotients(q.cx, r);
            let (lz, hz) = self.geo.axis_quotients(q.cz, r);
            let quot = [lx, hx, lz, hz];
            let hit =
                cached.is_some_and(|f| (0..4).all(|k| f[k] <= quot[k] && quot[k] < f[k] + 1.0));
            if !hit {
                cached = None;
                match self.geo.block(q.cx, q.cz, r) {
                    Some((x0, x1, z0, z1)) if z1 - z0 < MAX_ROWS => {
                        (used, span_total) = self.row_ranges(x0, x1, z0, z1, &mut ranges);
                        let floors = quot.map(|v| floor_to_i64(v) as f32);
                        if quot.iter().all(|v| v.abs() < EXACT) {
                            cached = Some(floors);
                        }
                    }
                    Some(_) => {
                        // More rows than one kernel call takes: the general path.
                        stats += self.query(points, &q, kernel, &mut chunk.ids);
                        chunk.offsets.push(chunk.ids.len() as u32);
                        continue;
                    }
                    None => {
                        chunk.offsets.push(chunk.ids.len() as u32);
                        continue;
                    }
                }
            }
            let before = chunk.ids.len();
            kernel.run_ranges(
                &self.x,
                &self.z,
                &self.ids,
                &ranges[..used],
                &kq,
                &mut chunk.ids,
            );
            stats.candidates += span_total;
            stats.neighbors += (chunk.ids.len() - before) as u64;
            chunk.offsets.push(chunk.ids.len() as u32);
        }
        stats
    }
}
