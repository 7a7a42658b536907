//! Which block each unit of a cell searches in the fused passes: its
//! cell's block, shared by all the cell's units (the union of their blocks,
//! [`crate::engine::spatial::GridGeometry::box_block`]), or its own ([`BoxTrim`]:
//! 1.5 x 1.5 cells on average at a cell of `4r`, against 3 x 3 for the
//! cell's block), with the cell's units grouped by block for the
//! multi-query kernel — and the cost model that picks one per cell. All
//! choices give the same neighbor sets and aggregates, bit for bit (the
//! sums are integers); they differ in the candidates tested, and so in
//! time, once a cell is wider than `2r` or `r / cell` is not a whole
//! number. At a cell of `r / k` for a whole `k` (the default cell is `r`)
//! every unit of a cell has the same block. Splitting makes a cell's kernel
//! groups smaller and its calls more, so it is slower where the cells hold
//! few units (below `2r` at the standard density): the model charges a
//! kernel call [`CALL_COST`] distance tests on top of its tests, checked
//! first for units spread evenly over a full cell, then on the cell's own
//! units.

use super::interior::Interior;
use super::{span, Cols, Rows, SortedGrid, MAX_ROWS};
use crate::engine::spatial::geometry::{Block, BoxTrim};
use crate::engine::spatial::kernels::driver::GROUP;

/// The radius of one fused pass and the fewest units of a cell that are
/// split by class ([`SortedGrid::radius`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Radius {
    /// Query radius, world units.
    pub(super) r: f32,
    /// Cells with fewer units search their cell's block for all.
    pub(super) split_from: usize,
    /// The band of the grid's cells whose units search the cell's
    /// neighborhood, when there is one.
    pub(super) interior: Option<Interior>,
}

/// Units of a cell classified at once by [`for_groups`] (a stack buffer).
const CLASS_CHUNK: usize = 256;

/// Calls `f(BoxTrim::WHOLE, slots)` for the slots `a..b` in groups of
/// [`GROUP`] consecutive slots.
#[inline]
fn consecutive(a: usize, b: usize, f: &mut impl FnMut(u8, &[u32])) {
    let mut slots = [0u32; GROUP];
    let mut k = a;
    while k < b {
        let g = (b - k).min(GROUP);
        for (j, s) in slots[..g].iter_mut().enumerate() {
            *s = (k + j) as u32;
        }
        f(BoxTrim::WHOLE, &slots[..g]);
        k += g;
    }
}

/// Splits the units of one cell, slots `a..b`, into groups of at most
/// [`GROUP`] that search the same block, and calls `f(class, slots)` for
/// each group ([`BoxTrim::class`]; the group searches
/// `trim.block_of(class)`). When every unit needs the whole block
/// ([`BoxTrim::is_whole`]) the groups are consecutive slots; otherwise the
/// units are classified [`CLASS_CHUNK`] at a time and counting-sorted by
/// class (branch-free: a scan per class mispredicts on every other unit),
/// and each chunk's classes are visited in ascending order, a class's units
/// in slot order; a chunk whose split [`split_pays`] rejects goes in
/// consecutive groups over the whole block instead. Every unit is
/// in exactly one group. No allocation.
#[inline]
pub(super) fn for_groups(
    cols: Cols<'_>,
    trim: &BoxTrim,
    (a, b): (usize, usize),
    mut f: impl FnMut(u8, &[u32]),
) {
    if trim.is_whole() {
        consecutive(a, b, &mut f);
        return;
    }
    let mut class = [0u8; CLASS_CHUNK];
    let mut order = [0u32; CLASS_CHUNK];
    let mut k = a;
    while k < b {
        let end = (k + CLASS_CHUNK).min(b);
        let class = &mut class[..end - k];
        trim.classify(&cols.x[k..end], &cols.z[k..end], class);
        // Class c's units go to order[start[c]..start[c + 1]], in slot order.
        let mut start = [0u16; 17];
        for &cl in class.iter() {
            start[cl as usize + 1] += 1;
        }
        for c in 0..16 {
            start[c + 1] += start[c];
        }
        if !split_pays(trim, &start, b - a) {
            consecutive(k, end, &mut f);
            k = end;
            continue;
        }
        let mut next = start;
        for (s, &cl) in (k as u32..).zip(class.iter()) {
            order[next[cl as usize] as usize] = s;
            next[cl as usize] += 1;
        }
        for c in 0..16 {
            let units = &order[start[c] as usize..start[c + 1] as usize];
            for group in units.chunks(GROUP) {
                f(c as u8, group);
            }
        }
        k = end;
    }
}

/// The cost of one call of the fused kernel on top of its distance tests,
/// in distance tests (one query against one candidate): a fitted constant.
/// At 100 the model splits cells of 1.6r, where splitting is slower; from
/// 300 to 600 it splits cells of 2r and wider, where it pays, and no
/// others (AVX2, 100,000 uniform units).
const CALL_COST: f64 = 300.0;

/// The model's cost of a cell's `m` units (of a cell holding `n`, whose
/// density stands for its neighbors') in the whole block and split by
/// class, `(whole, split)`, from the units per class `units(c)` (real or
/// expected): a kernel call costs [`CALL_COST`] plus one test per query and
/// candidate, a block of `k` cells holds `k * n` candidates, and a class
/// of `u` units takes `ceil(u / GROUP)` calls, or `u` calls when `u < 1`
/// (an expected sliver of margin width gets a unit with that probability).
fn costs(trim: &BoxTrim, m: f64, n: f64, units: impl Fn(usize) -> f64) -> (f64, f64) {
    let calls = |u: f64| {
        if u < 1.0 {
            u
        } else {
            (u / GROUP as f64).ceil()
        }
    };
    let whole = calls(m) * CALL_COST + m * trim.block.cells() as f64 * n;
    let mut split = 0.0;
    for c in 0..16 {
        let u = units(c);
        if u > 0.0 {
            split += calls(u) * CALL_COST + u * trim.block_of(c as u8).cells() as f64 * n;
        }
    }
    (whole, split)
}

/// Whether splitting the `n` units of a cell by class is expected to pay
/// ([`costs`]) if they spread evenly over their box
/// ([`BoxTrim::class_shares`]); decides before classifying any unit.
fn split_may_pay(trim: &BoxTrim, n: usize) -> bool {
    let shares = trim.class_shares();
    let n = n as f64;
    let (whole, split) = costs(trim, n, n, |c| n * shares[c] as f64);
    split < whole
}

/// Whether the units of one chunk of a cell of `n` units, counting-sorted
/// by class (`start[c]..start[c + 1]` are class `c`'s), cost less split by
/// class than in the whole block ([`costs`]).
#[inline]
fn split_pays(trim: &BoxTrim, start: &[u16; 17], n: usize) -> bool {
    let m = start[16] as f64;
    let (whole, split) = costs(trim, m, n as f64, |c| (start[c + 1] - start[c]) as f64);
    split < whole
}

/// How the units of one cell search ([`SortedGrid::cell_plan`]).
pub(super) enum CellPlan<'r> {
    /// All in one block, as these rows; with `true` when the cell's own
    /// slots lie in one searched range, where each query meets itself
    /// exactly once, at distance 0 (a neighbor of the same team at offset
    /// 0): the kernel then skips the id test and one neighbor is taken off
    /// each count instead.
    Block(Rows<'r>, bool),
    /// Each unit in its part of the cell's block.
    Split(BoxTrim),
    /// The cell's block misses the grid: no neighbors.
    Misses,
}

impl SortedGrid {
    /// How the units of cell `here` (column, row; slots `a..b`, not
    /// empty) search for radius `rad`: the cell's neighborhood when they
    /// lie in the interior band ([`SortedGrid::interior_block`]), which
    /// holds the cell's own row whole; otherwise the block of their box,
    /// or its cut per unit ([`SortedGrid::cell_block`]). Rows are written
    /// into `ranges`.
    #[inline(always)]
    pub(super) fn cell_plan<'r>(
        &self,
        here: (usize, usize),
        cols: Cols<'_>,
        (a, b): (usize, usize),
        rad: Radius,
        ranges: &'r mut [(u32, u32); MAX_ROWS],
    ) -> CellPlan<'r> {
        let (xs, zs) = (&cols.x[a..b], &cols.z[a..b]);
        if let Some(block) = self.interior_block(here, xs, zs, rad) {
            return CellPlan::Block(self.rows_of(block, ranges), true);
        }
        let Some((block, split)) = self.cell_block(xs, zs, rad) else {
            return CellPlan::Misses;
        };
        if let Some(trim) = split {
            return CellPlan::Split(trim);
        }
        let rows = self.rows_of(block, ranges);
        let own = match rows {
            Rows::Ranges(rs, _) => rs.iter().any(|&(s, e)| s as usize <= a && b <= e as usize),
            _ => false,
        };
        CellPlan::Block(rows, own)
    }

    /// The searched rows of `block`: its non-empty row ranges, written into
    /// `ranges`, or the block itself when it has more than [`MAX_ROWS`]
    /// rows (walked in batches by [`SortedGrid::fused_group`]).
    #[inline]
    pub(super) fn rows_of<'r>(
        &self,
        block: Block,
        ranges: &'r mut [(u32, u32); MAX_ROWS],
    ) -> Rows<'r> {
        if block.rows() > MAX_ROWS {
            Rows::Tall(block)
        } else {
            let (used, total) = self.row_ranges(block, ranges);
            Rows::Ranges(&ranges[..used], total)
        }
    }

    /// The neighborhood of cell `here` (column, row) when its units, at
    /// `xs`, `zs` (non-empty), lie in the pass's interior band
    /// ([`Interior::block_of`]) and are too few to split; `None` otherwise,
    /// when [`SortedGrid::cell_block`] decides. The block then depends on
    /// the cell's number, not on its units' box: no division, floor or
    /// conversion to integers on the way to the kernel.
    #[inline(always)]
    pub(super) fn interior_block(
        &self,
        here: (usize, usize),
        xs: &[f32],
        zs: &[f32],
        rad: Radius,
    ) -> Option<Block> {
        let band = rad.interior?;
        if xs.len() >= rad.split_from {
            return None;
        }
        band.block_of(here, span(xs), span(zs))
    }

    /// The block of the cell whose units span `xs`, `zs` (non-empty) for
    /// radius `rad.r` ([`crate::engine::spatial::GridGeometry::box_block`]) and,
    /// when the cell holds at least `rad.split_from` units that do not all
    /// need that whole block, its cut per unit ([`BoxTrim`]); `None` when
    /// the block misses the grid. The common case builds no `BoxTrim`.
    #[inline(always)]
    pub(super) fn cell_block(
        &self,
        xs: &[f32],
        zs: &[f32],
        rad: Radius,
    ) -> Option<(Block, Option<BoxTrim>)> {
        let (x, z) = (span(xs), span(zs));
        if xs.len() < rad.split_from {
            Some((self.geo.box_block(x, z, rad.r)?, None))
        } else {
            let trim = self.split_trim(x, z, rad.r)?;
            Some((trim.block, (!trim.is_whole()).then_some(trim)))
        }
    }

    /// [`crate::engine::spatial::GridGeometry::box_trim`], kept out of line so that
    /// the common path of [`SortedGrid::cell_block`] stays as small as the
    /// block alone.
    #[inline(never)]
    fn split_trim(&self, x: (f32, f32), z: (f32, f32), r: f32) -> Option<BoxTrim> {
        self.geo.box_trim(x, z, r)
    }

    /// The radius of a fused pass and the fewest units of a cell that are
    /// split by class: the fewest for which [`split_may_pay`] holds for a full cell in the middle of the grid
    /// (the shares of its classes are the same in every full cell), found
    /// by doubling then bisection, `usize::MAX` when none up to 2^16 (at a
    /// cell of `r / k` for a whole `k` no unit is ever split).
    pub(super) fn radius(&self, r: f32) -> Radius {
        let g = &self.geo;
        let corner = |origin: i64, n: usize| (origin + (n / 2) as i64) as f32 * g.cell;
        let (x0, z0) = (corner(g.origin_x, g.nx), corner(g.origin_z, g.nz));
        // Inset a little: a unit on the border itself reaches one
        // more column through the margin.
        let full = |lo: f32| (lo + g.cell * 1e-3, lo + g.cell * 0.999);
        let split_from = match g.box_trim(full(x0), full(z0), r) {
            Some(trim) if !trim.is_whole() => {
                let pays = |n: usize| split_may_pay(&trim, n);
                let mut hi = GROUP;
                while hi <= 1 << 16 && !pays(hi) {
                    hi *= 2;
                }
                if hi > 1 << 16 {
                    usize::MAX
                } else {
                    // pays(hi); not pays(lo) unless hi is the first tried.
                    let mut lo = if hi == GROUP { 0 } else { hi / 2 };
                    while hi - lo > 1 {
                        let mid = (lo + hi) / 2;
                        if pays(mid) {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    hi
                }
            }
            _ => usize::MAX,
        };
        Radius {
            r,
            split_from,
            interior: Interior::new(g, r, MAX_ROWS),
        }
    }
}
