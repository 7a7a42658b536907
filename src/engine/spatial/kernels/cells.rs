//! The rebuild's per-unit loops, written branch-free so the compiler
//! vectorizes them, and compiled twice: for baseline x86_64 and, behind
//! run-time detection, for AVX2 (where `floor` is one `vroundps` instead of a
//! library call, and eight units go through each instruction).

#[cfg(target_arch = "x86_64")]
use super::Kernel;

/// Bounds of the points with both coordinates finite: `(min_x, max_x,
/// min_z, max_z, finite count)`; infinities and a count of 0 when there is
/// none. Same values as a scalar walk (min and max do not depend on order).
///
/// # Panics
/// If `x` and `z` differ in length.
pub fn bounds(x: &[f32], z: &[f32]) -> (f32, f32, f32, f32, usize) {
    assert_eq!(x.len(), z.len(), "x and z must have equal lengths");
    #[cfg(target_arch = "x86_64")]
    if Kernel::Avx2.is_available() {
        // SAFETY: AVX2 was detected.
        return unsafe { bounds_avx2(x, z) };
    }
    bounds_generic(x, z)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn bounds_avx2(x: &[f32], z: &[f32]) -> (f32, f32, f32, f32, usize) {
    bounds_generic(x, z)
}

/// Lanes of [`bounds_generic`]'s accumulators: eight independent minima
/// and maxima per coordinate, so the compiler keeps them in vector
/// registers (a single running minimum is a reduction it will not
/// reorder, and stayed scalar: ~30 instructions per point).
const BOUND_LANES: usize = 8;

#[inline(always)]
fn bounds_generic(x: &[f32], z: &[f32]) -> (f32, f32, f32, f32, usize) {
    const L: usize = BOUND_LANES;
    let (mut lx, mut hx) = ([f32::INFINITY; L], [f32::NEG_INFINITY; L]);
    let (mut lz, mut hz) = ([f32::INFINITY; L], [f32::NEG_INFINITY; L]);
    let mut finite = [0u32; L];
    // One point into lane `k`'s accumulators; a point with a non-finite
    // coordinate contributes neutral values.
    let mut take = |k: usize, a: f32, b: f32| {
        let ok = a.is_finite() & b.is_finite();
        let (a_lo, a_hi) = if ok {
            (a, a)
        } else {
            (f32::INFINITY, f32::NEG_INFINITY)
        };
        let (b_lo, b_hi) = if ok {
            (b, b)
        } else {
            (f32::INFINITY, f32::NEG_INFINITY)
        };
        lx[k] = if a_lo < lx[k] { a_lo } else { lx[k] };
        hx[k] = if a_hi > hx[k] { a_hi } else { hx[k] };
        lz[k] = if b_lo < lz[k] { b_lo } else { lz[k] };
        hz[k] = if b_hi > hz[k] { b_hi } else { hz[k] };
        finite[k] += ok as u32;
    };
    let (xc, zc) = (x.chunks_exact(L), z.chunks_exact(L));
    let (xr, zr) = (xc.remainder(), zc.remainder());
    for (xs, zs) in xc.zip(zc) {
        for k in 0..L {
            take(k, xs[k], zs[k]);
        }
    }
    for (k, (&a, &b)) in xr.iter().zip(zr).enumerate() {
        take(k, a, b);
    }
    // Min and max do not depend on the order: the lanes reduce to the
    // values of a scalar walk. Per-lane counts stay below 2^32 for any
    // slice shorter than 2^35 points.
    let low = |v: [f32; L]| {
        v.into_iter()
            .fold(f32::INFINITY, |m, t| if t < m { t } else { m })
    };
    let high = |v: [f32; L]| {
        v.into_iter()
            .fold(f32::NEG_INFINITY, |m, t| if t > m { t } else { m })
    };
    let count = finite.iter().map(|&c| c as usize).sum();
    (low(lx), high(hx), low(lz), high(hz), count)
}

/// Most cells [`cells`] numbers: 2^24, up to which f32 counts exactly
/// (the grids of [`crate::engine::spatial::GridGeometry`] have at most 2^20).
pub const MAX_CELLS_EXACT: u32 = 1 << 24;

/// The grid parameters [`cells`] needs: cell edge (world units), the global
/// index of column and row 0, and the columns and rows.
#[derive(Clone, Copy, Debug)]
pub struct CellGrid {
    /// Cell edge, world units.
    pub cell: f32,
    /// Global index (`floor(x / cell)`) of column 0.
    pub origin_x: f32,
    /// Global index of row 0.
    pub origin_z: f32,
    /// Columns.
    pub nx: u32,
    /// Rows.
    pub nz: u32,
}

/// Writes the row-major cell of each point into `out`:
/// `clamp(floor(x / cell) - origin_x, 0, nx - 1) + nx * (the same for z)`,
/// or `skip` for a point with a non-finite coordinate. The same cells as
/// `GridGeometry::cell_of` whenever `|origin| + n < 2^23` on both axes (the
/// caller checks it: every integer involved is then exact in f32).
///
/// # Panics
/// If the slices differ in length, the grid has no cell, or it has more
/// than [`MAX_CELLS_EXACT`] cells (a cell number must be exact in f32).
pub fn cells(x: &[f32], z: &[f32], g: CellGrid, skip: u32, out: &mut [u32]) {
    assert!(
        x.len() == z.len() && x.len() == out.len(),
        "x, z and out must have equal lengths"
    );
    assert!(g.nx > 0 && g.nz > 0, "a grid with cells");
    assert!(
        g.nx as u64 * g.nz as u64 <= MAX_CELLS_EXACT as u64,
        "at most 2^24 cells"
    );
    #[cfg(target_arch = "x86_64")]
    if Kernel::Avx2.is_available() {
        // SAFETY: AVX2 was detected.
        return unsafe { cells_avx2(x, z, g, skip, out) };
    }
    cells_generic(x, z, g, skip, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn cells_avx2(x: &[f32], z: &[f32], g: CellGrid, skip: u32, out: &mut [u32]) {
    cells_generic(x, z, g, skip, out)
}

#[inline(always)]
fn cells_generic(x: &[f32], z: &[f32], g: CellGrid, skip: u32, out: &mut [u32]) {
    let (mx, mz) = ((g.nx - 1) as f32, (g.nz - 1) as f32);
    let nx = g.nx as f32;
    for ((&a, &b), o) in x.iter().zip(z).zip(out.iter_mut()) {
        let ok = a.is_finite() & b.is_finite();
        // Clamped to [0, n - 1] (a NaN from a non-finite point becomes 0),
        // so the conversion is exact and in range.
        let i = ((a / g.cell).floor() - g.origin_x).max(0.0).min(mx);
        let j = ((b / g.cell).floor() - g.origin_z).max(0.0).min(mz);
        // SAFETY: `i` and `j` are clamped to [0, n - 1] (`max` turns NaN
        // into 0), so `j * nx + i` is a finite integer in [0, nx * nz) with
        // nx * nz <= 2^24 (asserted by `cells`): exact in f32 and within
        // i32. Unchecked, the conversion is one vector instruction; the
        // saturating `as` went lane by lane, with branches.
        let c = unsafe { (j * nx + i).to_int_unchecked::<i32>() } as u32;
        *o = if ok { c } else { skip };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_in_lanes_equal_a_scalar_walk_for_every_length() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for n in 0..45 {
            let mut pick = || match rng.gen_range(0..12) {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                _ => rng.gen_range(-1e4f32..1e4),
            };
            let x: Vec<f32> = (0..n).map(|_| pick()).collect();
            let z: Vec<f32> = (0..n).map(|_| pick()).collect();
            let mut want = (
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::INFINITY,
                f32::NEG_INFINITY,
                0,
            );
            for (&a, &b) in x.iter().zip(&z) {
                if a.is_finite() && b.is_finite() {
                    want = (
                        want.0.min(a),
                        want.1.max(a),
                        want.2.min(b),
                        want.3.max(b),
                        want.4 + 1,
                    );
                }
            }
            assert_eq!(bounds(&x, &z), want, "{n} points");
            assert_eq!(bounds_generic(&x, &z), want, "{n} points, generic");
        }
    }

    /// A grid whose cell numbers f32 cannot count exactly is refused, not
    /// numbered wrongly.
    #[test]
    #[should_panic(expected = "at most 2^24 cells")]
    fn cells_refuse_grids_beyond_exact_f32_numbers() {
        let g = CellGrid {
            cell: 1.0,
            origin_x: 0.0,
            origin_z: 0.0,
            nx: 1 << 12,
            nz: (1 << 12) + 1,
        };
        cells(&[0.0], &[0.0], g, u32::MAX, &mut [0]);
    }

    #[test]
    fn cells_and_bounds_match_the_scalar_definitions() {
        let x = [0.0f32, 9.99, 10.0, -0.5, f32::NAN, 35.0, -20.0, 19.999];
        let z = [0.0f32, 0.0, 5.0, 12.0, 1.0, f32::INFINITY, -0.0, 30.0];
        let (lx, hx, lz, hz, n) = bounds(&x, &z);
        assert_eq!((lx, hx, lz, hz, n), (-20.0, 19.999, -0.0, 30.0, 6));
        let g = CellGrid {
            cell: 10.0,
            origin_x: -2.0,
            origin_z: -1.0,
            nx: 4,
            nz: 5,
        };
        let mut out = [0u32; 8];
        cells(&x, &z, g, u32::MAX, &mut out);
        let want = |a: f32, b: f32| {
            let i = ((a / 10.0).floor() as i64 + 2).clamp(0, 3);
            let j = ((b / 10.0).floor() as i64 + 1).clamp(0, 4);
            (j * 4 + i) as u32
        };
        for k in 0..8 {
            let expect = if x[k].is_finite() && z[k].is_finite() {
                want(x[k], z[k])
            } else {
                u32::MAX
            };
            assert_eq!(out[k], expect, "point {k} ({}, {})", x[k], z[k]);
        }
    }
}
