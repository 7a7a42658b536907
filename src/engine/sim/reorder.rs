//! Reordering the units themselves (every array of their layout) into cell order or Morton
//! (Z-order) of their grid cells, so that unit `i`'s neighbors sit near `i` in
//! memory: queries issued in unit order then walk the grid coherently, the
//! rebuild's scatter writes nearly sequentially, and the apply step's reads of
//! neighbor positions hit the cache.

use crate::engine::spatial::{csr, GridGeometry, Points};

use super::layout::{PermuteScratch, UnitLayout, Units};

/// How the units are ordered in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Reorder {
    /// Spawn order (random with respect to space). Switching to it from
    /// another order puts the units back in spawn order (ascending id) at the
    /// next step ([`Reorderer::plan_spawn_order`]); after that they stay
    /// where churn leaves them.
    Off,
    /// Row-major cell order: sorted by `(cell z, cell x)`.
    Cells,
    /// Morton (Z-order) of the cell coordinates: bits of cell x and cell z
    /// interleaved, which keeps 2D blocks of cells together.
    Morton,
    /// Units living in cell order: every frame, the SortedGrid rebuild's
    /// scatter permutes the units themselves (every SoA array; the sorted x
    /// and z are taken over without a copy), so there is no separate
    /// reorder step, no copy of the positions into the grid and no gather
    /// of the results ([`crate::engine::spatial::SortedGrid::rebuild_resident`]).
    /// Needs the SoA layout and the SortedGrid strategy; with any other it
    /// acts as [`Reorder::Cells`] every `reorder_every` frames. The default:
    /// it has no frame that pays for a whole reorder.
    #[default]
    Resident,
}

crate::named! { Reorder, display = key, {
    Off => "off", "off";
    Cells => "cells", "cells";
    Morton => "morton", "morton";
    Resident => "resident", "resident";
} }

/// Spreads the low 16 bits of `v` to the even bit positions (Morton encoding;
/// the "binary magic numbers" bit-interleave, Warren, Hacker's Delight §7-2).
#[inline]
pub fn spread_bits(v: u32) -> u32 {
    let mut x = v & 0x0000_ffff;
    x = (x | (x << 8)) & 0x00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f;
    x = (x | (x << 2)) & 0x3333_3333;
    x = (x | (x << 1)) & 0x5555_5555;
    x
}

/// Morton code of a cell: `spread(i) | spread(j) << 1` (i = column, j = row; 16 bits each).
#[inline]
pub fn morton(i: u32, j: u32) -> u32 {
    spread_bits(i) | (spread_bits(j) << 1)
}

/// Scratch buffers kept across reorders so a steady-state reorder allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Reorderer {
    /// Sort key of each unit (cell index or Morton rank), `u32::MAX` last.
    key: Vec<u32>,
    /// Counting-sort histogram, then write cursors: `keys + 1` entries.
    count: Vec<u32>,
    /// `perm[new] = old`.
    perm: Vec<u32>,
    /// Morton rank of each row-major cell, for the geometry `(nx, nz)` it was built for.
    rank: Vec<u32>,
    rank_dims: (usize, usize),
    /// Cells sorted by Morton code (scratch for `rank`).
    order: Vec<u32>,
}

impl Reorderer {
    /// The stable permutation that sorts the units at `points` into `mode`
    /// order of the cells of a grid with edge `cell` (world units) fitted to
    /// them: new unit `k` is old unit `perm[k]`; units with a non-finite
    /// position go last. `None` for `Reorder::Off` or fewer than two units.
    ///
    /// O(N + cells) (plus O(cells log cells) when the grid's dimensions change
    /// in Morton mode). Allocates only while its scratch buffers grow.
    pub fn plan(&mut self, points: Points<'_>, mode: Reorder, cell: f32) -> Option<&[u32]> {
        let n = points.len();
        if mode == Reorder::Off || n < 2 {
            return None;
        }
        let geo = GridGeometry::fit(points, cell);
        let cells = geo.cells();
        if mode == Reorder::Morton && self.rank_dims != (geo.nx, geo.nz) {
            self.build_morton_rank(geo.nx, geo.nz);
        }
        // Keys 0..cells, and `cells` for units outside the index.
        self.count.clear();
        self.count.resize(cells + 2, 0);
        self.key.clear();
        for (&x, &z) in points.x.iter().zip(points.z) {
            let k = match geo.cell_of(x, z) {
                Some(c) if mode == Reorder::Morton => self.rank[c],
                Some(c) => c as u32,
                None => cells as u32,
            };
            self.key.push(k);
            self.count[k as usize + 1] += 1;
        }
        csr::prefix_sum(&mut self.count);
        self.perm.clear();
        self.perm.resize(n, 0);
        let perm = &mut self.perm;
        // Every unit has a key (`cells` for the ones outside the grid): no skip.
        csr::scatter(&self.key, u32::MAX, &mut self.count, |slot, old| {
            perm[slot] = old as u32
        });
        Some(&self.perm)
    }

    /// The permutation that puts units with ids `ids` (in storage order)
    /// back in spawn order, ascending id: new unit `k` is old unit
    /// `perm[k]`. Ids are handed out in spawn order, and a reinforcement
    /// takes the lowest id freed by the dead
    /// ([`crate::engine::sim::Handles::order_recent_free`]). `None` for fewer than
    /// two units.
    ///
    /// O(N log N); allocates only while its scratch buffers grow.
    pub fn plan_spawn_order(&mut self, ids: impl Iterator<Item = u32>) -> Option<&[u32]> {
        self.key.clear();
        self.key.extend(ids);
        let n = self.key.len();
        if n < 2 {
            return None;
        }
        self.perm.clear();
        self.perm.extend(0..n as u32);
        let key = &self.key;
        self.perm.sort_unstable_by_key(|&i| key[i as usize]);
        Some(&self.perm)
    }

    /// Permutes every array of `u` (stably) into `mode` order ([`Reorderer::plan`]).
    /// Allocates only while the scratch buffers grow.
    pub fn reorder(
        &mut self,
        u: &mut Units,
        mode: Reorder,
        cell: f32,
        scratch: &mut PermuteScratch,
    ) {
        let Some(perm) = self.plan(u.points(), mode, cell) else {
            return;
        };
        u.permute(perm, scratch);
    }

    fn build_morton_rank(&mut self, nx: usize, nz: usize) {
        let cells = nx * nz;
        let order = &mut self.order;
        order.clear();
        order.extend(0..cells as u32);
        order.sort_unstable_by_key(|&c| {
            let (i, j) = (c as usize % nx, c as usize / nx);
            // Grids wider than 2^16 cells fall back to row-major beyond that.
            ((j >> 16) as u64) << 32
                | morton(i as u32 & 0xffff, j as u32 & 0xffff) as u64
                | ((i >> 16) as u64) << 48
        });
        self.rank.clear();
        self.rank.resize(cells, 0);
        for (r, &c) in order.iter().enumerate() {
            self.rank[c as usize] = r as u32;
        }
        self.rank_dims = (nx, nz);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_interleaves_bits() {
        assert_eq!(morton(0, 0), 0);
        assert_eq!(morton(1, 0), 1);
        assert_eq!(morton(0, 1), 2);
        assert_eq!(morton(1, 1), 3);
        assert_eq!(morton(2, 0), 4);
        assert_eq!(morton(0xffff, 0), 0x5555_5555);
        assert_eq!(morton(0, 0xffff), 0xaaaa_aaaa);
    }
}
