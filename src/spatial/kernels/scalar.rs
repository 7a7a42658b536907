//! The scalar kernel: one entry at a time. Every SIMD kernel performs these
//! same steps per lane.

use super::KernelQuery;

/// Appends the ids of the entries of `x[a..b]`, `z[a..b]`, `ids[a..b]` (for
/// every `(a, b)` in `ranges`, in order) within `q` to `out` (see
/// [`super::Kernel::run_ranges`] for the contract).
///
/// # Panics
/// If a range is out of bounds of the slices.
#[inline]
pub fn run_ranges(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    for &(a, b) in ranges {
        let (a, b) = (a as usize, b as usize);
        for ((&x, &z), &id) in x[a..b].iter().zip(&z[a..b]).zip(&ids[a..b]) {
            let dx = x - q.cx;
            let dz = z - q.cz;
            let d2 = dx * dx + dz * dz;
            if d2 <= q.r2 && id != q.exclude {
                out.push(id);
            }
        }
    }
}
