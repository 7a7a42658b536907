//! The SSE2 kernel: 4 lanes. Packed subtract, multiply, add, compare, movemask;
//! matching ids are written branch-free (every lane is stored, the write cursor
//! advances by the lane's mask bit). SSE2 has no masked load, so the tail of
//! each range (`len % 4`) runs the scalar steps.

use super::KernelQuery;
use std::arch::x86_64::*;

/// Appends the ids of the entries of `x[a..b]`, `z[a..b]`, `ids[a..b]` (for
/// every `(a, b)` in `ranges`, in order) within `q` to `out` (see
/// [`super::Kernel::run_ranges`] for the contract).
///
/// # Safety
/// The CPU must support SSE2 (always true on x86_64), the three slices must
/// have equal lengths and every range must satisfy `a <= b <= len` (all
/// checked by `Kernel::run_ranges`).
#[target_feature(enable = "sse2")]
pub unsafe fn run_ranges(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    let total: usize = ranges.iter().map(|&(a, b)| (b - a) as usize).sum();
    out.reserve(total);
    let start = out.len();
    let dst = out.as_mut_ptr().add(start);
    let cx = _mm_set1_ps(q.cx);
    let cz = _mm_set1_ps(q.cz);
    let r2 = _mm_set1_ps(q.r2);
    let excl = _mm_set1_epi32(q.exclude as i32);
    let mut w = 0usize;
    for &(a, b) in ranges {
        let (a, n) = (a as usize, (b - a) as usize);
        let (xp, zp, ip) = (x.as_ptr().add(a), z.as_ptr().add(a), ids.as_ptr().add(a));
        let mut i = 0usize;
        while i + 4 <= n {
            // SAFETY (whole block): i + 4 <= n and a + n <= len (checked by the
            // caller); every lane is stored at dst + w + lane with
            // w + lane < (entries tested so far) + 4 <= total, inside the
            // reserved capacity.
            let dx = _mm_sub_ps(_mm_loadu_ps(xp.add(i)), cx);
            let dz = _mm_sub_ps(_mm_loadu_ps(zp.add(i)), cz);
            let d2 = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dz, dz));
            let inside = _mm_cmple_ps(d2, r2);
            let idv = _mm_loadu_si128(ip.add(i) as *const __m128i);
            let is_self = _mm_castsi128_ps(_mm_cmpeq_epi32(idv, excl));
            let m = _mm_movemask_ps(_mm_andnot_ps(is_self, inside)) as usize;
            for lane in 0..4 {
                *dst.add(w) = *ip.add(i + lane);
                w += (m >> lane) & 1;
            }
            i += 4;
        }
        while i < n {
            // SAFETY: i < n, and w < total as above.
            let dx = *xp.add(i) - q.cx;
            let dz = *zp.add(i) - q.cz;
            let d2 = dx * dx + dz * dz;
            let id = *ip.add(i);
            *dst.add(w) = id;
            w += (d2 <= q.r2 && id != q.exclude) as usize;
            i += 1;
        }
    }
    // SAFETY: the first `w` slots after `start` were written above and lie
    // within the reserved capacity.
    out.set_len(start + w);
}
