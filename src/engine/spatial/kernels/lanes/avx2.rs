//! [`Avx2Lanes`]: the AVX2 implementation of [`Lanes`] (x86_64).

use super::sse::IOTA;
use super::Lanes;
use std::arch::x86_64::*;

/// AVX2: 8 lanes; masks are all-ones integer lanes; masked loads for
/// tails; `vpermd` with a lookup table for compaction.
#[derive(Clone, Copy, Debug)]
pub struct Avx2Lanes;

/// `PACK[m]` lists, in order, the lanes whose bit is set in the 8-bit mask
/// `m` (unused slots 0), as `vpermd` indices.
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

impl Lanes for Avx2Lanes {
    const N: usize = 8;
    type F = __m256;
    type I = __m256i;
    type M = __m256i;

    #[inline(always)]
    unsafe fn splat_f(v: f32) -> __m256 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_set1_ps(v) }
    }
    #[inline(always)]
    unsafe fn splat_i(v: i32) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_set1_epi32(v) }
    }
    #[inline(always)]
    unsafe fn load_f(p: *const f32) -> __m256 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load_i(p: *const u32) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_loadu_si256(p as *const __m256i) }
    }
    #[inline(always)]
    unsafe fn load_f_part(p: *const f32, rest: usize) -> __m256 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            // vmaskmov does not fault on masked-off lanes.
            _mm256_maskload_ps(p, Self::first(rest))
        }
    }
    #[inline(always)]
    unsafe fn load_i_part(p: *const u32, rest: usize) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_maskload_epi32(p as *const i32, Self::first(rest)) }
    }
    #[inline(always)]
    unsafe fn first(rest: usize) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let iota = _mm256_loadu_si256(IOTA.as_ptr() as *const __m256i);
            _mm256_cmpgt_epi32(_mm256_set1_epi32(rest as i32), iota)
        }
    }
    // code:begin kernel-avx2
    #[inline(always)]
    unsafe fn sub(a: __m256, b: __m256) -> __m256 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_sub_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: __m256, b: __m256) -> __m256 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_mul_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn add(a: __m256, b: __m256) -> __m256 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_add_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn le(a: __m256, b: __m256) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(a, b)) }
    }
    #[inline(always)]
    unsafe fn eq_i(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_cmpeq_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn and(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn andnot(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_andnot_si256(a, b) }
    }
    // code:end kernel-avx2
    #[inline(always)]
    unsafe fn count(acc: __m256i, m: __m256i) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            // A set lane is -1.
            _mm256_sub_epi32(acc, m)
        }
    }
    #[inline(always)]
    unsafe fn bits(m: __m256i) -> u32 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32 }
    }
    #[inline(always)]
    unsafe fn compress_store(v: __m256i, m: __m256i, dst: *mut u32) -> usize {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let bits = Self::bits(m) as usize;
            let perm = _mm256_loadu_si256(PACK[bits].as_ptr() as *const __m256i);
            _mm256_storeu_si256(dst as *mut __m256i, _mm256_permutevar8x32_epi32(v, perm));
            bits.count_ones() as usize
        }
    }
    #[inline(always)]
    unsafe fn trunc_i(v: __m256) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_cvttps_epi32(v) }
    }
    #[inline(always)]
    unsafe fn sub_i(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_sub_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn add_masked_i(acc: __m256i, m: __m256i, v: __m256i) -> __m256i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm256_add_epi32(acc, _mm256_and_si256(m, v)) }
    }
    #[inline(always)]
    unsafe fn sum_i64(v: __m256i) -> i64 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
            let hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(v));
            let s = _mm256_add_epi64(lo, hi);
            let mut lanes = [0i64; 4];
            _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, s);
            lanes.iter().sum()
        }
    }
    #[inline(always)]
    unsafe fn sums4_i32([a, b, c, d]: [__m256i; 4]) -> [i32; 4] {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled;
        // the one store writes the 16 bytes of a local array.
        unsafe {
            // Pairs added: per 128-bit half, [a, a, b, b] then [c, c, d, d].
            let ab = _mm256_hadd_epi32(a, b);
            let cd = _mm256_hadd_epi32(c, d);
            // Per half: [a, b, c, d]; then the two halves added.
            let t = _mm256_hadd_epi32(ab, cd);
            let s = _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256::<1>(t));
            let mut out = [0i32; 4];
            _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, s);
            out
        }
    }
}
