//! The fused passes of the CSR grid ([`SortedGrid::near_all`]): every
//! unit's neighbor aggregates summed by the multi-query kernel while it
//! tests, cell by cell, each pair tested from both sides (the full
//! stencil: a query's result is its own, so no two queries write one slot).

use rayon::prelude::*;

use super::blocks::{for_groups, CellPlan, Radius};
use super::{Cols, Rows, SortedGrid, MAX_ROWS};
use crate::engine::spatial::geometry::BoxTrim;
use crate::engine::spatial::kernels::driver::GROUP;
use crate::engine::spatial::kernels::{Dispatched, Exact, FusedCols, FusedKernel, FusedPass};
use crate::engine::spatial::{
    pool_threads, FusedQuery, Kernel, KernelQuery, Near, Points, Query, QueryStats,
};

/// Cell ranges per pool thread in the fused pass (more ranges than threads
/// balance uneven cells).
const CHUNKS_PER_THREAD: usize = 4;

/// Units per task when the fused pass gathers its results into unit order.
const GATHER: usize = 16_384;

/// A query that matches nothing (a placeholder in a group's query array).
const NOTHING: KernelQuery = KernelQuery {
    cx: 0.0,
    cz: 0.0,
    r2: -1.0,
    exclude: crate::engine::spatial::NO_EXCLUDE,
};

impl Cols<'_> {
    /// [`Cols::fill_slots`] for the consecutive entries `first..first +
    /// qs.len()`.
    #[inline]
    fn fill_range(
        &self,
        qs: &mut [FusedQuery],
        first: usize,
        r2: f32,
        flush: u32,
        exclude_self: bool,
    ) {
        for (j, q) in qs.iter_mut().enumerate() {
            *q = self.fused_query(first + j, r2, flush, exclude_self);
        }
    }

    /// The fused query of entry `s` (radius squared `r2`, flush interval
    /// `flush`), excluding its own id when `exclude_self`.
    #[inline(always)]
    fn fused_query(&self, s: usize, r2: f32, flush: u32, exclude_self: bool) -> FusedQuery {
        let kq = KernelQuery {
            cx: self.x[s],
            cz: self.z[s],
            r2,
            exclude: if exclude_self {
                self.ids[s]
            } else {
                crate::engine::spatial::NO_EXCLUDE
            },
        };
        let q = FusedQuery::with_flush(kq, self.team[s] as u8, flush);
        if self.two_teams {
            q.among_two_teams()
        } else {
            q
        }
    }

    /// Fills `qs` with the fused queries of the entries `slots` (one each;
    /// radius squared `r2`, flush interval `flush`), each excluding its own
    /// id when `exclude_self`.
    #[inline]
    fn fill_slots(
        &self,
        qs: &mut [FusedQuery],
        slots: &[u32],
        r2: f32,
        flush: u32,
        exclude_self: bool,
    ) {
        for (q, &s) in qs.iter_mut().zip(slots) {
            *q = self.fused_query(s as usize, r2, flush, exclude_self);
        }
    }
}

impl SortedGrid {
    /// The fused pass, cell by cell: writes every unit's [`Near`]
    /// aggregates (radius `r`, itself excluded, teams from the last
    /// [`SortedGrid::rebuild_tagged`]) into `res.near` (unit `i` at index `i`;
    /// units left out of the index get zeros) and returns the counters.
    /// `points` are the positions the index was built from; they are read
    /// only while the units live in cell order
    /// ([`SortedGrid::rebuild_resident`]), when they are the grid's columns.
    ///
    /// The queries are taken in cell order straight from the sorted arrays:
    /// for each cell, one block contains every block its units need (the
    /// cells within reach of the cell when its units lie in the interior
    /// band of `sorted_grid/interior.rs`, else
    /// [`crate::engine::spatial::GridGeometry::box_block`] of the box of their
    /// positions); its units search that block, or each only its own part
    /// of it ([`crate::engine::spatial::BoxTrim`], as the cost model of
    /// `sorted_grid/blocks.rs` chooses), and go to the multi-query fused kernel in groups of up to
    /// [`GROUP`] that search the same block. Results are written by slot,
    /// then gathered into unit order (nothing to gather while the units
    /// live in cell order: slot `s` is unit `s`). In a pool of more than
    /// one thread, the cells are split into four ranges of about equal
    /// units per thread, run through `rayon::join` (no allocation). Same
    /// neighbor sets, and so the same aggregates, as
    /// [`crate::engine::spatial::SpatialIndex::query_units`] summed through
    /// [`Near::add`]; the candidate count exceeds its (the exact blocks of
    /// `docs/design.md`) where a cell searches one block for all its units
    /// (by the units near a block's edge at a cell of `r`, by 4 times at a
    /// cell of `4r`, see `sorted_grid/blocks.rs`). Allocates only while `res`
    /// grows.
    ///
    /// # Panics
    /// If the last rebuild had no teams, or (resident) if `points` is not
    /// the caller's arrays the rebuild sorted (length differs).
    pub fn near_all(
        &self,
        points: Points<'_>,
        r: f32,
        kernel: Kernel,
        res: &mut crate::engine::spatial::results::NearResults,
    ) -> QueryStats {
        let cols = self.cols(points);
        assert_eq!(
            cols.team.len(),
            cols.x.len(),
            "rebuild_tagged with teams first"
        );
        let n = self.slot_of.len();
        let kernel = kernel.or_scalar();
        let slots = cols.x.len();
        // Every slot is written below: no clear, so a steady state neither
        // allocates nor zero-fills the 24 bytes per unit on one thread.
        res.by_slot.resize(slots, Near::default());
        let cells = self.geo.cells();
        let valid = Query::new(0.0, 0.0, r).kernel_query().is_some();
        let threads = pool_threads();
        let stats = if !valid || cells == 0 {
            res.by_slot.fill(Near::default());
            QueryStats::default()
        } else if threads > 1 {
            let parts = threads * CHUNKS_PER_THREAD;
            self.near_split(
                cols,
                self.radius(r),
                kernel,
                (0, cells),
                parts,
                &mut res.by_slot,
            )
        } else {
            self.near_leaf(cols, self.radius(r), kernel, 0..cells, &mut res.by_slot)
        };
        if self.resident {
            // Slot order is unit order: the results are already in place.
            std::mem::swap(&mut res.near, &mut res.by_slot);
            res.stats = stats;
            return stats;
        }
        // Back to unit order.
        res.near.resize(n, Near::default());
        let slot_of = &self.slot_of[..];
        let by_slot = &res.by_slot;
        let gather = |(k, out): (usize, &mut [Near])| {
            for (o, &s) in out.iter_mut().zip(&slot_of[k * GATHER..]) {
                let s = s as usize;
                *o = if s >= slots {
                    Near::default()
                } else {
                    by_slot[s]
                };
            }
        };
        if threads > 1 {
            res.near.par_chunks_mut(GATHER).enumerate().for_each(gather)
        } else {
            res.near.chunks_mut(GATHER).enumerate().for_each(gather)
        }
        res.stats = stats;
        stats
    }

    /// [`SortedGrid::near_cells`] over cells `c0..c1` split into `parts`
    /// ranges of about equal units, run in parallel by halving with
    /// `rayon::join`. `out` holds the slots of cells `c0..c1`.
    fn near_split(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Kernel,
        (c0, c1): (usize, usize),
        parts: usize,
        out: &mut [Near],
    ) -> QueryStats {
        if parts <= 1 || c1 - c0 <= 1 {
            return self.near_leaf(cols, rad, kernel, c0..c1, out);
        }
        // The cell where the first half of the parts' units ends.
        let (s0, s1) = (self.cell_start[c0], self.cell_start[c1]);
        let target = s0 + ((s1 - s0) as u64 * (parts / 2) as u64 / parts as u64) as u32;
        let mid =
            (c0 + self.cell_start[c0..c1].partition_point(|&s| s < target)).clamp(c0 + 1, c1 - 1);
        let (left, right) = out.split_at_mut((self.cell_start[mid] - s0) as usize);
        let (a, b) = rayon::join(
            || self.near_split(cols, rad, kernel, (c0, mid), parts / 2, left),
            || self.near_split(cols, rad, kernel, (mid, c1), parts - parts / 2, right),
        );
        let mut stats = a;
        stats += b;
        stats
    }

    /// [`SortedGrid::near_cells`] compiled for `kernel`'s instruction set
    /// ([`Kernel::run_pass`]), so that no cell pays a call into the kernel,
    /// or with the exact scalar loop when positions leave the fixed range.
    fn near_leaf(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Kernel,
        cells: std::ops::Range<usize>,
        out: &mut [Near],
    ) -> QueryStats {
        let leaf = Leaf {
            grid: self,
            cols,
            rad,
            kernel,
            cells,
            out,
        };
        if self.in_range {
            kernel.run_pass(leaf)
        } else {
            leaf.run(Exact)
        }
    }

    // code:begin sorted-grid-query
    /// The fused queries of the units of `cells`, in slot order: `out`
    /// holds the slots of those cells (`out[0]` = slot `cell_start[cells.start]`).
    /// Each unit searches its cell's block ([`SortedGrid::cell_plan`]: the
    /// cell's neighborhood when its units lie in the interior band, else
    /// the block of their box), cut down to what it reaches ([`BoxTrim`])
    /// where that pays ([`for_groups`]), in groups of units that search the
    /// same block. `run` runs the groups; the cells cut down go through
    /// `kernel`'s dispatch (out of line, [`SortedGrid::near_cell_split`]).
    #[inline(always)]
    fn near_cells(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        (run, kernel): (impl FusedKernel, Kernel),
        cells: std::ops::Range<usize>,
        out: &mut [Near],
    ) -> QueryStats {
        let kcols = (cols.x, cols.z, cols.ids, cols.team);
        let r2 = rad.r * rad.r;
        let flush = FusedQuery::flush_for(r2);
        let base = self.cell_start[cells.start] as usize;
        let mut stats = QueryStats::default();
        let mut ranges = [(0u32, 0u32); MAX_ROWS];
        let mut qs = [FusedQuery::with_flush(NOTHING, 0, flush); GROUP];
        let mut sums = [Near::default(); GROUP];
        // Column and row of cell `c`, advanced with it.
        let nx = self.geo.nx.max(1);
        let (mut i, mut j) = (cells.start % nx, cells.start / nx);
        for c in cells {
            let here = (i, j);
            i += 1;
            if i == nx {
                (i, j) = (0, j + 1);
            }
            let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
            if a == b {
                continue;
            }
            // One block for the cell (`own`: see `CellPlan::Block`): groups of
            // consecutive slots, written in place.
            let (rows, own) = match self.cell_plan(here, cols, (a, b), rad, &mut ranges) {
                CellPlan::Block(rows, own) => (rows, own),
                CellPlan::Misses => {
                    out[a - base..b - base].fill(Near::default());
                    continue;
                }
                CellPlan::Split(trim) => {
                    let out = &mut out[a - base..b - base];
                    let k = Dispatched {
                        kernel,
                        in_range: self.in_range,
                    };
                    stats += self.near_cell_split(cols, rad, k, (a, b), &trim, out);
                    continue;
                }
            };
            let mut k = a;
            while k < b {
                let g = (b - k).min(GROUP);
                cols.fill_range(&mut qs[..g], k, r2, flush, !own);
                let dst = &mut out[k - base..k - base + g];
                stats.candidates += self.fused_group(run, kcols, rows, &qs[..g], dst, &mut sums);
                if own {
                    for d in dst.iter_mut() {
                        d.count -= 1;
                    }
                }
                stats.neighbors += dst.iter().map(|d| d.count as u64).sum::<u64>();
                k += g;
            }
        }
        stats
    }
    // code:end sorted-grid-query

    /// The fused queries of the units of one cell, slots `a..b`, whose
    /// block `trim` may be cut down per unit: in the groups of
    /// [`for_groups`], each searching its class's block; `out` holds the
    /// cell's slots. Out of line: most cells of most passes never come here.
    #[inline(never)]
    fn near_cell_split(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Dispatched,
        (a, b): (usize, usize),
        trim: &BoxTrim,
        out: &mut [Near],
    ) -> QueryStats {
        let kcols = (cols.x, cols.z, cols.ids, cols.team);
        let r2 = rad.r * rad.r;
        let flush = FusedQuery::flush_for(r2);
        let mut stats = QueryStats::default();
        let mut ranges = [(0u32, 0u32); MAX_ROWS];
        let mut qs = [FusedQuery::with_flush(NOTHING, 0, flush); GROUP];
        let mut part = [Near::default(); GROUP];
        let mut sums = [Near::default(); GROUP];
        // The rows of the last class seen: its row ranges, or the block
        // when it is taller than MAX_ROWS.
        let mut cached = None;
        let (mut used, mut total, mut tall) = (0, 0u64, None);
        for_groups(cols, trim, (a, b), |class, slots| {
            let g = slots.len();
            if cached != Some(class) {
                cached = Some(class);
                let block = trim.block_of(class);
                tall = (block.rows() > MAX_ROWS).then_some(block);
                if tall.is_none() {
                    (used, total) = self.row_ranges(block, &mut ranges);
                }
            }
            let rows = match tall {
                Some(block) => Rows::Tall(block),
                None => Rows::Ranges(&ranges[..used], total),
            };
            cols.fill_slots(&mut qs[..g], slots, r2, flush, true);
            let dst = &mut part[..g];
            stats.candidates += self.fused_group(kernel, kcols, rows, &qs[..g], dst, &mut sums);
            for (d, &s) in dst.iter().zip(slots) {
                out[s as usize - a] = *d;
                stats.neighbors += d.count as u64;
            }
        });
        stats
    }

    /// Runs the fused kernel for the group `qs` over `rows` and writes
    /// their aggregates to `dst` (one per query; `sums` is scratch for a
    /// tall block). Returns the candidates tested.
    #[inline(always)]
    fn fused_group(
        &self,
        kernel: impl FusedKernel,
        kcols: FusedCols<'_>,
        rows: Rows<'_>,
        qs: &[FusedQuery],
        dst: &mut [Near],
        sums: &mut [Near; GROUP],
    ) -> u64 {
        let g = qs.len();
        match rows {
            Rows::Ranges(ranges, total) => {
                kernel.fused(kcols, ranges, qs, dst);
                total * g as u64
            }
            Rows::Tall(block) => {
                let mut candidates = 0;
                dst.fill(Near::default());
                self.row_batches(block, |rs, t| {
                    candidates += t * g as u64;
                    kernel.fused(kcols, rs, qs, &mut sums[..g]);
                    for (d, s) in dst.iter_mut().zip(&sums[..g]) {
                        *d += *s;
                    }
                });
                candidates
            }
            Rows::Empty => {
                dst.fill(Near::default());
                0
            }
        }
    }
}

/// One thread's share of the fused pass ([`SortedGrid::near_leaf`]): the
/// cells `cells` and their slots `out`.
struct Leaf<'a, 'o> {
    grid: &'a SortedGrid,
    cols: Cols<'a>,
    rad: Radius,
    kernel: Kernel,
    cells: std::ops::Range<usize>,
    out: &'o mut [Near],
}

impl FusedPass for Leaf<'_, '_> {
    type Out = QueryStats;

    #[inline(always)]
    fn run<K: FusedKernel>(self, k: K) -> QueryStats {
        let Leaf {
            grid,
            cols,
            rad,
            kernel,
            cells,
            out,
        } = self;
        grid.near_cells(cols, rad, (k, kernel), cells, out)
    }
}
