//! The AVX2 kernel: 8 lanes. The same steps as the scalar kernel per lane; the
//! matching ids are packed to the front of a register with one `vpermd` driven
//! by a 256-entry lookup table and stored at once. The tail of each range
//! (`len % 8`) uses masked loads, so there is no scalar tail loop.

use super::KernelQuery;
use std::arch::x86_64::*;

/// `PACK[m]` lists, in order, the lanes whose bit is set in the 8-bit mask `m`
/// (unused slots 0), as `vpermd` indices.
static PACK: [[u32; 8]; 256] = build_pack();

const fn build_pack() -> [[u32; 8]; 256] {
    let mut t = [[0u32; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        let mut lane = 0;
        while lane < 8 {
            if m & (1 << lane) != 0 {
                t[m][k] = lane as u32;
                k += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
}

/// Lane indices 0..8, compared with the remaining count to build tail masks.
static IOTA: [i32; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// Appends the ids of the entries of `x[a..b]`, `z[a..b]`, `ids[a..b]` (for
/// every `(a, b)` in `ranges`, in order) within `q` to `out` (see
/// [`super::Kernel::run_ranges`] for the contract).
///
/// # Safety
/// The CPU must support AVX2, the three slices must have equal lengths and
/// every range must satisfy `a <= b <= len` (all checked by
/// `Kernel::run_ranges`).
#[target_feature(enable = "avx2")]
pub unsafe fn run_ranges(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    let total: usize = ranges.iter().map(|&(a, b)| (b - a) as usize).sum();
    // Every step stores a whole register, so keep 8 slots of slack.
    out.reserve(total + 8);
    let start = out.len();
    let dst = out.as_mut_ptr().add(start);
    let cx = _mm256_set1_ps(q.cx);
    let cz = _mm256_set1_ps(q.cz);
    let r2 = _mm256_set1_ps(q.r2);
    let excl = _mm256_set1_epi32(q.exclude as i32);
    let iota = _mm256_loadu_si256(IOTA.as_ptr() as *const __m256i);
    let all = _mm256_set1_epi32(-1);
    let mut w = 0usize;
    for &(a, b) in ranges {
        let (a, n) = (a as usize, (b - a) as usize);
        let (xp, zp, ip) = (x.as_ptr().add(a), z.as_ptr().add(a), ids.as_ptr().add(a));
        let mut i = 0usize;
        while i < n {
            let rest = n - i;
            // SAFETY (whole block): a + n <= len (checked by the caller). Full
            // loads read lanes i..i+8 only when i + 8 <= n; in the last step the
            // masked loads touch only lanes below `rest` (AVX2 maskload does not
            // fault on masked-off lanes). The store writes 8 slots at dst + w
            // with w <= (entries tested so far) < total, inside the total + 8
            // reserved slots.
            let (xv, zv, idv, live) = if rest >= 8 {
                (
                    _mm256_loadu_ps(xp.add(i)),
                    _mm256_loadu_ps(zp.add(i)),
                    _mm256_loadu_si256(ip.add(i) as *const __m256i),
                    all,
                )
            } else {
                let live = _mm256_cmpgt_epi32(_mm256_set1_epi32(rest as i32), iota);
                (
                    _mm256_maskload_ps(xp.add(i), live),
                    _mm256_maskload_ps(zp.add(i), live),
                    _mm256_maskload_epi32(ip.add(i) as *const i32, live),
                    live,
                )
            };
            let dx = _mm256_sub_ps(xv, cx);
            let dz = _mm256_sub_ps(zv, cz);
            let d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dz, dz));
            let inside = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(d2, r2));
            let not_self = _mm256_andnot_si256(_mm256_cmpeq_epi32(idv, excl), live);
            let keep = _mm256_and_si256(inside, not_self);
            let m = _mm256_movemask_ps(_mm256_castsi256_ps(keep)) as usize;
            let perm = _mm256_loadu_si256(PACK[m].as_ptr() as *const __m256i);
            _mm256_storeu_si256(
                dst.add(w) as *mut __m256i,
                _mm256_permutevar8x32_epi32(idv, perm),
            );
            w += m.count_ones() as usize;
            i += 8;
        }
    }
    // SAFETY: the first `w` slots after `start` hold the packed matching ids
    // (later stores only overwrite slots at or beyond their own cursor).
    out.set_len(start + w);
}
