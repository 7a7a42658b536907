//! The fused passes of the CSR grid ([`SortedGrid::near_all`]): every
//! unit's neighbor aggregates summed by the multi-query kernel while it
//! tests, cell by cell, with the full stencil (each pair from both sides)
//! or the half stencil (each pair once, both sides credited).

use rayon::prelude::*;

use super::blocks::{for_groups, Blocks, Radius};
use super::{Cols, Rows, SortedGrid, MAX_ROWS};
use crate::spatial::geometry::{Block, BoxTrim};
use crate::spatial::kernels::driver::{SlotSums, GROUP};
use crate::spatial::kernels::fixed;
use crate::spatial::{
    pool_threads, FusedQuery, Kernel, KernelQuery, Near, Points, Query, QueryStats,
};

/// Cell ranges per pool thread in the fused pass (more ranges than threads
/// balance uneven cells).
const CHUNKS_PER_THREAD: usize = 4;

/// Units per task when the fused pass gathers its results into unit order.
const GATHER: usize = 16_384;

/// The per-slot columns of the symmetric pass, shared by the stripes that
/// run at once.
struct SharedSums(SlotSums);

// SAFETY: the stripes running at once write disjoint slots
// (`SortedGrid::near_symmetric`); the columns outlive the parallel section.
unsafe impl Sync for SharedSums {}

/// Adds one query's (or one pair side's) aggregates to slot `s`.
///
/// # Safety
/// `s` must index the columns of `sums`, and no other thread may access
/// slot `s` during the call.
#[inline]
unsafe fn credit(sums: SlotSums, s: usize, count: u32, enemies: u32, sx: i64, sz: i64) {
    // SAFETY: the caller's contract.
    unsafe {
        *sums.count.add(s) += count;
        *sums.enemies.add(s) += enemies;
        *sums.sx.add(s) += sx;
        *sums.sz.add(s) += sz;
    }
}

/// A query that matches nothing (a placeholder in a group's query array).
const NOTHING: KernelQuery = KernelQuery {
    cx: 0.0,
    cz: 0.0,
    r2: -1.0,
    exclude: crate::spatial::NO_EXCLUDE,
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
                crate::spatial::NO_EXCLUDE
            },
        };
        FusedQuery::with_flush(kq, self.team[s] as u8, flush)
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
    /// for each cell, one block contains every block its units need
    /// ([`crate::spatial::GridGeometry::box_block`] of the box of their
    /// positions); its units search that block, or each only its own part
    /// of it ([`crate::spatial::BoxTrim`], as [`SortedGrid::set_blocks`]
    /// chooses), and go to the multi-query fused kernel in groups of up to
    /// [`GROUP`] that search the same block. Results are written by slot,
    /// then gathered into unit order (nothing to gather while the units
    /// live in cell order: slot `s` is unit `s`). In a pool of more than
    /// one thread, the cells are split into four ranges of about equal
    /// units per thread, run through `rayon::join` (no allocation). Same
    /// neighbor sets, and so the same aggregates, as
    /// [`crate::spatial::SpatialIndex::query_units`] summed through
    /// [`Near::add`]; the candidate count exceeds its (the exact blocks of
    /// `shared/DESIGN.md`) where a cell searches one block for all its units
    /// (by the units near a block's edge at a cell of `r`, by 4 times at a
    /// cell of `4r`, see [`super::Blocks`]). Allocates only while `res`
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
        res: &mut crate::spatial::results::NearResults,
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
        res.by_slot.clear();
        res.by_slot.resize(slots, Near::default());
        let cells = self.geo.cells();
        let valid = Query::new(0.0, 0.0, r).kernel_query().is_some();
        let symmetric = !self.full_stencil
            && valid
            && self.in_range
            && FusedQuery::flush_for(r * r) as usize >= GROUP;
        let threads = pool_threads();
        let mut stats = if !valid || cells == 0 {
            QueryStats::default()
        } else if symmetric {
            self.near_symmetric(cols, self.radius(r), kernel, &mut res.sums)
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
            self.near_cells(cols, self.radius(r), kernel, 0..cells, &mut res.by_slot)
        };
        if self.resident && !symmetric {
            // Slot order is unit order: the results are already in place.
            std::mem::swap(&mut res.near, &mut res.by_slot);
            res.stats = stats;
            return stats;
        }
        // Back to unit order.
        res.near.resize(n, Near::default());
        let slot_of = if self.resident {
            &self.identity[..n]
        } else {
            &self.slot_of[..]
        };
        let (by_slot, sums) = (&res.by_slot, &res.sums);
        let gather = |(k, out): (usize, &mut [Near])| {
            for (o, &s) in out.iter_mut().zip(&slot_of[k * GATHER..]) {
                let s = s as usize;
                *o = if s >= slots {
                    Near::default()
                } else if symmetric {
                    Near {
                        count: sums.count[s],
                        enemies: sums.enemies[s],
                        sx: sums.sx[s],
                        sz: sums.sz[s],
                    }
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
        if symmetric {
            stats.neighbors = res.sums.count.iter().map(|&c| c as u64).sum();
        }
        res.stats = stats;
        stats
    }

    /// Makes [`SortedGrid::near_all`] test every pair from both sides (the
    /// full stencil, `true`) or once (the half stencil, `false`, the
    /// default). Both give the same aggregates; the switch exists to measure
    /// and test them against each other.
    pub fn set_full_stencil(&mut self, full: bool) {
        self.full_stencil = full;
    }

    /// The symmetric fused pass (each pair tested once): zeroes `sums`,
    /// then walks the cells in horizontal stripes of at least the rows a
    /// cell's block reaches below it, so that a stripe only writes the slots
    /// of its own rows and of the stripe after it. In a pool, the even
    /// stripes run in parallel, then the odd ones: no two running stripes
    /// write the same slot. The sums are integers, so the result does not
    /// depend on the thread count. Returns the candidates tested (the
    /// neighbors are counted from `sums` by the caller).
    fn near_symmetric(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Kernel,
        sums: &mut crate::spatial::results::SlotColumns,
    ) -> QueryStats {
        let slots = cols.x.len();
        sums.zero(slots);
        let ptrs = SharedSums(sums.pointers());
        let (nx, nz) = (self.geo.nx, self.geo.nz);
        let reach = self.reach(rad.r);
        let threads = pool_threads();
        let height = reach
            .max(nz / (threads * 2 * CHUNKS_PER_THREAD).max(1))
            .max(1);
        let stripes = nz.div_ceil(height);
        let stripe = |k: usize| {
            let rows = (k * height, ((k + 1) * height).min(nz));
            self.near_cells_sym(cols, rad, kernel, (rows.0 * nx, rows.1 * nx), reach, &ptrs)
        };
        if threads > 1 && stripes > 2 {
            let mut stats = QueryStats::default();
            for phase in 0..2 {
                stats += (0..stripes.div_ceil(2))
                    .into_par_iter()
                    .map(|h| 2 * h + phase)
                    .filter(|&k| k < stripes)
                    .map(stripe)
                    .reduce(QueryStats::default, |mut a, b| {
                        a += b;
                        a
                    });
            }
            stats
        } else {
            let mut stats = QueryStats::default();
            for k in 0..stripes {
                stats += stripe(k);
            }
            stats
        }
    }

    /// The most rows a cell's block ([`crate::spatial::GridGeometry::box_block`]) reaches
    /// below the cell's own row, for radius `r`: one for the cell, the rings
    /// of `r` plus the margin at the grid's largest coordinate, and one for
    /// rounding. Checked while walking (a violation panics instead of racing).
    fn reach(&self, r: f32) -> usize {
        let g = &self.geo;
        let far = [
            g.origin_x,
            g.origin_x + g.nx as i64,
            g.origin_z,
            g.origin_z + g.nz as i64,
        ]
        .iter()
        .map(|v| v.unsigned_abs() as f64)
        .fold(0.0, f64::max)
            * g.cell as f64;
        let margin = (far + r as f64) * (2.0 / 1_048_576.0) + 2e-20;
        let rings = ((r as f64 + margin) / g.cell as f64).ceil();
        if rings.is_finite() && rings < (g.nz as f64) {
            rings as usize + 2
        } else {
            g.nz.max(1)
        }
    }

    /// The symmetric pass over cells `c0..c1` (whole rows): for each cell,
    /// the pairs inside it (scalar, each once) and its units against the
    /// entries of the cells after it in their block (the rest of its row to
    /// the block's right edge, then the block's rows below), through the
    /// symmetric multi-query kernel. A unit's block is the cell's block cut
    /// down to what the unit reaches ([`crate::spatial::BoxTrim`]), so each pair within `r`
    /// is still tested once: from the unit of the earlier cell, whose own
    /// block holds the other's cell. Writes slots of rows up to `reach` rows
    /// below `c1`'s row.
    fn near_cells_sym(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Kernel,
        (c0, c1): (usize, usize),
        reach: usize,
        sums: &SharedSums,
    ) -> QueryStats {
        let kcols = (cols.x, cols.z, cols.team);
        let nx = self.geo.nx;
        let r2 = rad.r * rad.r;
        let flush = FusedQuery::flush_for(r2);
        let sums = sums.0;
        let mut stats = QueryStats::default();
        let mut fwd = [(0u32, 0u32); MAX_ROWS];
        let mut qs = [FusedQuery::with_flush(NOTHING, 0, flush); GROUP];
        let mut part = [Near::default(); GROUP];
        for c in c0..c1 {
            let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
            if a == b {
                continue;
            }
            // Pairs inside the cell, each once.
            for i in a..b {
                for j in i + 1..b {
                    let (dx, dz) = (cols.x[j] - cols.x[i], cols.z[j] - cols.z[i]);
                    if dx * dx + dz * dz <= r2 {
                        let foe = (cols.team[i] != cols.team[j]) as u32;
                        let ox = fixed(cols.x[j]) as i64 - fixed(cols.x[i]) as i64;
                        let oz = fixed(cols.z[j]) as i64 - fixed(cols.z[i]) as i64;
                        // SAFETY: slots i and j are in this cell, inside this
                        // stripe's rows, which no other running stripe writes.
                        unsafe {
                            credit(sums, i, 1, foe, ox, oz);
                            credit(sums, j, 1, foe, -ox, -oz);
                        }
                    }
                }
            }
            stats.candidates += ((b - a) * (b - a - 1) / 2) as u64;
            let (xs, zs) = (&cols.x[a..b], &cols.z[a..b]);
            let Some((block, split)) = self.cell_block(xs, zs, rad) else {
                continue;
            };
            let Block { z0, z1, .. } = block;
            let (xc, zc) = (c % nx, c / nx);
            assert!(
                z1 < zc + reach && z0 <= zc && (block.x0..=block.x1).contains(&xc),
                "a cell's block reaches further than its stripe allows"
            );
            if let Some(trim) = split {
                stats += self.near_cell_sym_split(cols, rad, kernel, c, &trim, sums);
                continue;
            }
            // The entries after the cell in its block, in batches of rows.
            let mut row = zc;
            while row <= z1 {
                let last = z1.min(row + MAX_ROWS - 1);
                let (used, total) = self.forward_ranges(c, block, (row, last), &mut fwd);
                row = last + 1;
                if used == 0 {
                    continue;
                }
                let mut k = a;
                while k < b {
                    let g = (b - k).min(GROUP);
                    // Pairs are tested once: no entry after the cell is the query itself.
                    cols.fill_range(&mut qs[..g], k, r2, flush, false);
                    // SAFETY: the entries of `fwd` lie in rows zc..=z1, all
                    // within this stripe or the next (z1 < zc + reach, and
                    // stripes are at least `reach` rows high), which no
                    // other running stripe writes; positions are within
                    // FIXED_RANGE (`in_range`) and flush >= GROUP (both
                    // checked by `near_all`).
                    unsafe {
                        kernel.run_fused_sym(kcols, &fwd[..used], &qs[..g], &mut part, sums);
                    }
                    for (j, p) in part[..g].iter().enumerate() {
                        // SAFETY: slot k + j is in this cell (see above).
                        unsafe { credit(sums, k + j, p.count, p.enemies, p.sx, p.sz) };
                    }
                    stats.candidates += total * g as u64;
                    k += g;
                }
            }
        }
        stats
    }

    /// The symmetric pass's forward half for the units of cell `c` whose
    /// block `trim` is cut down per unit ([`crate::spatial::BoxTrim`]): in
    /// the groups of [`for_groups`], each against the entries after the
    /// cell in its class's block. The caller has checked that the cell's
    /// block stays within `reach` rows (the class blocks lie inside it).
    /// Out of line: most cells of most passes never come here.
    #[inline(never)]
    fn near_cell_sym_split(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Kernel,
        c: usize,
        trim: &BoxTrim,
        sums: SlotSums,
    ) -> QueryStats {
        let kcols = (cols.x, cols.z, cols.team);
        let zc = c / self.geo.nx;
        let r2 = rad.r * rad.r;
        let flush = FusedQuery::flush_for(r2);
        let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
        let mut stats = QueryStats::default();
        let mut fwd = [(0u32, 0u32); MAX_ROWS];
        let mut qs = [FusedQuery::with_flush(NOTHING, 0, flush); GROUP];
        let mut part = [Near::default(); GROUP];
        // The forward ranges of the last class seen, when its block fits
        // one batch of rows.
        let mut cached = None;
        let (mut used, mut total) = (0, 0u64);
        let auto = self.blocks == Blocks::Auto;
        for_groups(cols, trim, auto, (a, b), |class, slots| {
            let g = slots.len();
            let block = trim.block_of(class);
            // Pairs are tested once: no entry after the cell is the query itself.
            cols.fill_slots(&mut qs[..g], slots, r2, flush, false);
            // The entries after the cell in the block, in batches of rows.
            let mut row = zc;
            while row <= block.z1 {
                let last = block.z1.min(row + MAX_ROWS - 1);
                let whole = row == zc && last == block.z1;
                if !(whole && cached == Some(class)) {
                    (used, total) = self.forward_ranges(c, block, (row, last), &mut fwd);
                    cached = whole.then_some(class);
                }
                row = last + 1;
                if used == 0 {
                    continue;
                }
                // SAFETY: the entries of `fwd` lie in the class's block,
                // inside the cell's, whose rows the caller checked lie
                // within this stripe or the next, which no other running
                // stripe writes; positions are within FIXED_RANGE and
                // flush >= GROUP (both checked by `near_all`).
                unsafe {
                    kernel.run_fused_sym(kcols, &fwd[..used], &qs[..g], &mut part, sums);
                }
                for (p, &s) in part[..g].iter().zip(slots) {
                    // SAFETY: slot s is in this cell (see above).
                    unsafe { credit(sums, s as usize, p.count, p.enemies, p.sx, p.sz) };
                }
                stats.candidates += total * g as u64;
            }
        });
        stats
    }

    /// The non-empty entry ranges, written into `fwd`, of the cells of
    /// `block` after cell `c` (`c`'s row is in the block) in rows `rows.0
    /// ..= rows.1` (at most [`MAX_ROWS`]): on `c`'s row from the next cell
    /// to the block's right edge, on later rows the block's columns.
    /// Returns how many ranges were written and the entries they hold.
    #[inline]
    fn forward_ranges(
        &self,
        c: usize,
        block: Block,
        (row, last): (usize, usize),
        fwd: &mut [(u32, u32)],
    ) -> (usize, u64) {
        let nx = self.geo.nx;
        let zc = c / nx;
        let (mut used, mut total) = (0, 0u64);
        for z in row..=last {
            let first = if z == zc { c + 1 } else { z * nx + block.x0 };
            let end = z * nx + block.x1 + 1;
            if first >= end {
                continue;
            }
            let (s0, s1) = (self.cell_start[first], self.cell_start[end]);
            if s1 > s0 {
                fwd[used] = (s0, s1);
                used += 1;
                total += (s1 - s0) as u64;
            }
        }
        (used, total)
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
            return self.near_cells(cols, rad, kernel, c0..c1, out);
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

    /// The fused queries of the units of `cells`, in slot order: `out`
    /// holds the slots of those cells (`out[0]` = slot `cell_start[cells.start]`).
    /// Each unit searches its cell's block, cut down to what it reaches
    /// ([`BoxTrim`]) where that pays ([`SortedGrid::cell_block`],
    /// [`for_groups`]), in groups of units that search the same block.
    fn near_cells(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Kernel,
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
        for c in cells {
            let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
            if a == b {
                continue;
            }
            let (xs, zs) = (&cols.x[a..b], &cols.z[a..b]);
            let Some((block, split)) = self.cell_block(xs, zs, rad) else {
                continue;
            };
            if let Some(trim) = split {
                let out = &mut out[a - base..b - base];
                stats += self.near_cell_split(cols, rad, kernel, (a, b), &trim, out);
                continue;
            }
            // One block for the cell: groups of consecutive slots, written
            // in place.
            let rows = self.rows_of(block, &mut ranges);
            // When the cell's own slots lie in one searched range, each query
            // meets itself there exactly once, at distance 0 (a neighbor of
            // the same team at offset 0): the kernel then skips the id test
            // and one neighbor is taken off each count instead.
            let own = match rows {
                Rows::Ranges(rs, _) => rs.iter().any(|&(s, e)| s as usize <= a && b <= e as usize),
                _ => false,
            };
            let mut k = a;
            while k < b {
                let g = (b - k).min(GROUP);
                cols.fill_range(&mut qs[..g], k, r2, flush, !own);
                let dst = &mut out[k - base..k - base + g];
                stats.candidates += self.fused_group(kernel, kcols, rows, &qs[..g], dst, &mut sums);
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

    /// The fused queries of the units of one cell, slots `a..b`, whose
    /// block `trim` may be cut down per unit: in the groups of
    /// [`for_groups`], each searching its class's block; `out` holds the
    /// cell's slots. Out of line: most cells of most passes never come here.
    #[inline(never)]
    fn near_cell_split(
        &self,
        cols: Cols<'_>,
        rad: Radius,
        kernel: Kernel,
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
        let auto = self.blocks == Blocks::Auto;
        for_groups(cols, trim, auto, (a, b), |class, slots| {
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

    /// The searched rows of `block`: its non-empty row ranges, written into
    /// `ranges`, or the block itself when it has more than [`MAX_ROWS`]
    /// rows (walked in batches by [`SortedGrid::fused_group`]).
    #[inline]
    fn rows_of<'r>(&self, block: Block, ranges: &'r mut [(u32, u32); MAX_ROWS]) -> Rows<'r> {
        if block.rows() > MAX_ROWS {
            Rows::Tall(block)
        } else {
            let (used, total) = self.row_ranges(block, ranges);
            Rows::Ranges(&ranges[..used], total)
        }
    }

    /// Runs the fused kernel for the group `qs` over `rows` and writes
    /// their aggregates to `dst` (one per query; `sums` is scratch for a
    /// tall block). Returns the candidates tested.
    #[inline(always)]
    fn fused_group(
        &self,
        kernel: Kernel,
        kcols: (&[f32], &[f32], &[u32], &[u32]),
        rows: Rows<'_>,
        qs: &[FusedQuery],
        dst: &mut [Near],
        sums: &mut [Near; GROUP],
    ) -> u64 {
        let g = qs.len();
        match rows {
            Rows::Ranges(ranges, total) => {
                kernel.run_fused(kcols, ranges, qs, dst, self.in_range);
                total * g as u64
            }
            Rows::Tall(block) => {
                let mut candidates = 0;
                dst.fill(Near::default());
                self.row_batches(block, |rs, t| {
                    candidates += t * g as u64;
                    kernel.run_fused(kcols, rs, qs, &mut sums[..g], self.in_range);
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
