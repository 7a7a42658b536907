//! The interior of the grid's cells: a band of offsets from a cell's low
//! corner inside which a query's block ([`GridGeometry::block`]) lies within
//! the cells `k` columns and rows around the query's own (the cell's
//! neighborhood). A cell whose units all lie in the band can search its
//! neighborhood, a block known from the cell's number alone, instead of the
//! block of its units' box ([`GridGeometry::box_block`]: two divisions,
//! floors and saturating conversions per axis). At the standard cell of `r`
//! that is every cell but those with a unit within a few millionths of the
//! magnitude of its coordinates from an edge.
//!
//! The neighborhood may exceed the box's block where `r / cell` is not a
//! whole number (a cell of `1.5r` whose units all lie in its left half
//! would need two columns, not three): more candidates, the same neighbors.

use crate::engine::spatial::geometry::{search_radius, Block, GridGeometry};

/// Global cell indices below this magnitude convert to f32 exactly.
const EXACT_INDEX: i64 = 1 << 24;

/// The interior band of one grid and radius ([`Interior::new`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Interior {
    /// Cells of reach in each direction: the neighborhood of cell `(i, j)`
    /// is columns `i - k..=i + k` and rows `j - k..=j + k`, clipped.
    pub(super) k: usize,
    /// Smallest offset from the cell's low corner in the band, world units.
    lo: f32,
    /// Largest offset from the cell's low corner in the band, world units.
    hi: f32,
    /// The grid the band is for.
    geo: GridGeometry,
}

impl Interior {
    /// The band of grid `g` for radius `r`, or `None` when there is none:
    /// an empty grid, a radius that is not finite, a neighborhood of more
    /// than `max_rows` rows, or cell indices that f32 does not hold
    /// exactly.
    ///
    /// With `k = ceil(r / cell - 0.001)` (the fewest cells around a query
    /// that its block can fit in), a unit at offset `u` from its cell's low
    /// corner reaches down to column `i - k` and no further when
    /// `u - r - margin >= -k * cell`, and up to `i + k` when
    /// `u + r + margin < (k + 1) * cell`, `margin` being that of
    /// [`GridGeometry::block`]. The band
    /// is those two bounds less three times the largest margin in the grid
    /// (`(M + r) * 2^-20`, `M` the largest coordinate magnitude of a cell's
    /// corner plus a cell and `r`). The rounding of the block's own
    /// quotients and of the offsets computed here stays below a quarter of
    /// that margin (four roundings of at most `2^-24 * (M + r)` each), so a
    /// unit that passes in floating point passes in exact arithmetic with
    /// twice the margin to spare. (With the margin taken once, the property
    /// test below finds units on the edges of far cells that fail.)
    pub(super) fn new(g: &GridGeometry, r: f32, max_rows: usize) -> Option<Interior> {
        let r = search_radius(r);
        if g.nx == 0
            || g.nz == 0
            || !r.is_finite()
            || r < 0.0
            || !g.cell.is_finite()
            || g.cell <= 0.0
        {
            return None;
        }
        let extent = [
            g.origin_x,
            g.origin_x + g.nx as i64,
            g.origin_z,
            g.origin_z + g.nz as i64,
        ];
        let far = extent.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
        if far >= EXACT_INDEX as u64 {
            return None;
        }
        let k = (r / g.cell - 0.001).ceil().max(0.0);
        if !(k.is_finite() && 2.0 * k < max_rows as f32) {
            return None;
        }
        let big = far as f32 * g.cell + g.cell + r;
        let margin = (big + r) * (1.0 / 1_048_576.0) + 1e-20;
        let lo = r - k * g.cell + 3.0 * margin;
        let hi = (k + 1.0) * g.cell - r - 3.0 * margin;
        (lo.is_finite() && hi.is_finite() && lo <= hi).then_some(Interior {
            k: k as usize,
            lo,
            hi,
            geo: *g,
        })
    }

    /// The neighborhood of cell `(i, j)` (column, row) when the box `[x.0,
    /// x.1] x [z.0, z.1]` of its units lies in the band, which then
    /// contains the block of every query centered in the box; `None`
    /// otherwise (also for NaN). Four comparisons; no conversion to
    /// integers.
    #[inline(always)]
    pub(super) fn block_of(
        &self,
        (i, j): (usize, usize),
        x: (f32, f32),
        z: (f32, f32),
    ) -> Option<Block> {
        let g = &self.geo;
        let x0 = (g.origin_x + i as i64) as f32 * g.cell;
        let z0 = (g.origin_z + j as i64) as f32 * g.cell;
        let inside = x.0 - x0 >= self.lo
            && x.1 - x0 <= self.hi
            && z.0 - z0 >= self.lo
            && z.1 - z0 <= self.hi;
        inside.then(|| self.neighborhood((i, j)))
    }

    /// The cells within [`Interior::k`] columns and rows of cell `(i, j)`,
    /// clipped to the grid.
    #[inline(always)]
    fn neighborhood(&self, (i, j): (usize, usize)) -> Block {
        Block {
            x0: i.saturating_sub(self.k),
            x1: (i + self.k).min(self.geo.nx - 1),
            z0: j.saturating_sub(self.k),
            z1: (j + self.k).min(self.geo.nz - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Interior;
    use crate::engine::spatial::geometry::{Block, GridGeometry};
    use proptest::prelude::*;

    /// Whether block `inner` lies inside block `outer`.
    fn inside(inner: Block, outer: Block) -> bool {
        outer.x0 <= inner.x0 && inner.x1 <= outer.x1 && outer.z0 <= inner.z0 && inner.z1 <= outer.z1
    }

    /// The units of one cell: each at an edge of the cell (kinds 1 to 4:
    /// the low edge, the first float above it, the high edge, the last
    /// float below it) or inside (kind 0, at fraction `u` of the cell).
    type Units = [(f32, f32, u8, u8)];

    /// Checks that when the units of cell `cell_of` pass the band of a 40 x
    /// 40 grid at `origin` with cells of `r * ratio`, the neighborhood holds
    /// the block of each of them.
    fn check_cell(
        r: f32,
        ratio: f32,
        origin: (i64, i64),
        (i, j): (usize, usize),
        offsets: &Units,
    ) -> Result<(), TestCaseError> {
        let cell = r * ratio;
        let g = GridGeometry {
            cell,
            origin_x: origin.0,
            origin_z: origin.1,
            nx: 40,
            nz: 40,
        };
        let Some(band) = Interior::new(&g, r, 64) else {
            return Ok(());
        };
        let corner = |o: i64, c: usize| (o + c as i64) as f32 * cell;
        let (x0, z0) = (corner(origin.0, i), corner(origin.1, j));
        let at = |lo: f32, u: f32, kind: u8| match kind {
            0 => lo + u * cell,
            1 => lo,
            2 => lo.next_up(),
            3 => lo + cell,
            _ => (lo + cell).next_down(),
        };
        let units: Vec<(f32, f32)> = offsets
            .iter()
            .map(|&(u, v, kx, kz)| (at(x0, u, kx), at(z0, v, kz)))
            .collect();
        let span = |f: &dyn Fn(&(f32, f32)) -> f32| {
            units
                .iter()
                .map(f)
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), v| {
                    (a.min(v), b.max(v))
                })
        };
        let (x, z) = (span(&|p| p.0), span(&|p| p.1));
        if let Some(block) = band.block_of((i, j), x, z) {
            prop_assert_eq!(block, band.neighborhood((i, j)));
            for &(px, pz) in &units {
                if let Some(own) = g.block(px, pz, r) {
                    prop_assert!(
                        inside(own, block),
                        "unit ({px}, {pz}): {own:?} outside {block:?}, {band:?}"
                    );
                }
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Whenever a cell's units pass the band, the neighborhood holds
        /// the block of each of them: over cells from r/5 to 5r, grids far
        /// from the origin (coordinates up to about 10^8) and units on
        /// and within a few ULPs of the cell's edges.
        #[test]
        fn the_neighborhood_holds_every_block_in_the_band(
            r in 0.01f32..100.0,
            ratio in prop::sample::select(vec![0.2f32, 0.25, 1.0 / 3.0, 0.5, 0.7, 1.0, 1.0001, 1.25, 1.5, 2.0, 3.0, 5.0]),
            origin in (-200_000i64..200_000, -200_000i64..200_000),
            cell_of in (0usize..40, 0usize..40),
            offsets in prop::collection::vec((0.0f32..1.0, 0.0f32..1.0, 0u8..5, 0u8..5), 1..6),
        ) {
            check_cell(r, ratio, origin, cell_of, &offsets)?;
        }
    }

    /// The cells whose edges are at 0 (both signs of coordinates in one
    /// cell's neighborhood), with units on each edge and the floats beside
    /// it: the last float below 0 is the edge case of float stepping.
    #[test]
    fn cells_with_an_edge_at_zero_hold_every_block() {
        let kinds: Vec<(f32, f32, u8, u8)> = (0..5u8)
            .flat_map(|kx| (0..5u8).map(move |kz| (0.5, 0.5, kx, kz)))
            .collect();
        for ratio in [0.5f32, 1.0, 1.5, 3.0] {
            for (origin, cell) in [(-1i64, 0usize), (0, 0), (-6, 5), (-5, 5)] {
                for units in kinds.chunks(1).chain(kinds.chunks(3)) {
                    check_cell(2.0, ratio, (origin, origin), (cell, cell), units).unwrap_or_else(
                        |e| panic!("ratio {ratio}, origin {origin}, cell {cell}: {e}"),
                    );
                }
            }
        }
    }

    /// At the standard cell of `r`, the band is the cell less a sliver at
    /// each edge: reach 1, and units away from the edges pass.
    #[test]
    fn a_cell_of_r_reaches_one_cell() {
        let g = GridGeometry {
            cell: 10.0,
            origin_x: 0,
            origin_z: 0,
            nx: 443,
            nz: 443,
        };
        let band = Interior::new(&g, 10.0, 64).expect("a band");
        assert_eq!(band.k, 1);
        let block = band.block_of((5, 7), (50.1, 59.9), (70.1, 79.9));
        assert_eq!(
            block,
            Some(Block {
                x0: 4,
                x1: 6,
                z0: 6,
                z1: 8
            })
        );
        assert_eq!(
            band.block_of((5, 7), (50.0, 59.9), (70.1, 79.9)),
            None,
            "on the edge"
        );
        assert_eq!(
            band.block_of((0, 0), (0.1, 9.9), (0.1, 9.9)),
            Some(Block {
                x0: 0,
                x1: 1,
                z0: 0,
                z1: 1
            })
        );
        assert_eq!(band.block_of((5, 7), (f32::NAN, 59.9), (70.1, 79.9)), None);
    }

    /// No band for a radius that is not finite, a reach taller than the
    /// rows allowed, or cell indices beyond f32's exact integers.
    #[test]
    fn no_band_where_it_cannot_hold() {
        let g = GridGeometry {
            cell: 10.0,
            origin_x: 0,
            origin_z: 0,
            nx: 100,
            nz: 100,
        };
        assert!(Interior::new(&g, f32::INFINITY, 64).is_none());
        assert!(Interior::new(&g, f32::NAN, 64).is_none());
        assert!(
            Interior::new(&g, 1000.0, 64).is_none(),
            "reach 100 > 63 rows"
        );
        let far = GridGeometry {
            origin_x: 1 << 24,
            ..g
        };
        assert!(Interior::new(&far, 10.0, 64).is_none());
    }
}
