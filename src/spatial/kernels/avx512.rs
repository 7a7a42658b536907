//! The AVX-512 kernel: 16 lanes. Mask compares produce a 16-bit mask directly;
//! `vpcompressd` packs the matching ids, which are stored with one write. The
//! tail of each range (`len % 16`) uses masked loads, so there is no scalar
//! tail loop.

use super::KernelQuery;
use std::arch::x86_64::*;

/// Appends the ids of the entries of `x[a..b]`, `z[a..b]`, `ids[a..b]` (for
/// every `(a, b)` in `ranges`, in order) within `q` to `out` (see
/// [`super::Kernel::run_ranges`] for the contract).
///
/// # Safety
/// The CPU must support AVX-512F, the three slices must have equal lengths and
/// every range must satisfy `a <= b <= len` (all checked by
/// `Kernel::run_ranges`).
#[target_feature(enable = "avx512f")]
pub unsafe fn run_ranges(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    let total: usize = ranges.iter().map(|&(a, b)| (b - a) as usize).sum();
    // Every step stores a whole register, so keep 16 slots of slack.
    out.reserve(total + 16);
    let start = out.len();
    let dst = out.as_mut_ptr().add(start);
    let cx = _mm512_set1_ps(q.cx);
    let cz = _mm512_set1_ps(q.cz);
    let r2 = _mm512_set1_ps(q.r2);
    let excl = _mm512_set1_epi32(q.exclude as i32);
    let mut w = 0usize;
    for &(a, b) in ranges {
        let (a, n) = (a as usize, (b - a) as usize);
        let (xp, zp, ip) = (x.as_ptr().add(a), z.as_ptr().add(a), ids.as_ptr().add(a));
        let mut i = 0usize;
        while i < n {
            let rest = n - i;
            let live: __mmask16 = if rest >= 16 {
                0xFFFF
            } else {
                (1u16 << rest) - 1
            };
            // SAFETY (whole block): a + n <= len (checked by the caller); the
            // masked loads touch only lanes below `rest` (masked-off lanes
            // never fault). The store writes 16 slots at dst + w with
            // w <= (entries tested so far) < total, inside the total + 16
            // reserved slots.
            let xv = _mm512_maskz_loadu_ps(live, xp.add(i));
            let zv = _mm512_maskz_loadu_ps(live, zp.add(i));
            let idv = _mm512_maskz_loadu_epi32(live, ip.add(i) as *const i32);
            let dx = _mm512_sub_ps(xv, cx);
            let dz = _mm512_sub_ps(zv, cz);
            let d2 = _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dz, dz));
            let inside = _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(live, d2, r2);
            let keep = _mm512_mask_cmpneq_epi32_mask(inside, idv, excl);
            _mm512_storeu_si512(
                dst.add(w) as *mut __m512i,
                _mm512_maskz_compress_epi32(keep, idv),
            );
            w += keep.count_ones() as usize;
            i += 16;
        }
    }
    // SAFETY: the first `w` slots after `start` hold the packed matching ids.
    out.set_len(start + w);
}
