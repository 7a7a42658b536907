//! [`SseLanes`]: the SSE2 implementation of [`Lanes`] (x86_64).

use super::Lanes;
use std::arch::x86_64::*;

/// SSE2: 4 lanes; masks are all-ones integer lanes.
#[derive(Clone, Copy, Debug)]
pub struct SseLanes;

/// Lane indices, compared with a remaining count to build tail masks.
pub(super) static IOTA: [i32; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

impl Lanes for SseLanes {
    const N: usize = 4;
    type F = __m128;
    type I = __m128i;
    type M = __m128i;

    #[inline(always)]
    unsafe fn splat_f(v: f32) -> __m128 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_set1_ps(v) }
    }
    #[inline(always)]
    unsafe fn splat_i(v: i32) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_set1_epi32(v) }
    }
    #[inline(always)]
    unsafe fn load_f(p: *const f32) -> __m128 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load_i(p: *const u32) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_loadu_si128(p as *const __m128i) }
    }
    #[inline(always)]
    unsafe fn load_f_part(p: *const f32, rest: usize) -> __m128 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            // SSE2 has no masked load: read the live lanes one by one.
            let lane = |k: usize| if k < rest { *p.add(k) } else { 0.0 };
            _mm_setr_ps(lane(0), lane(1), lane(2), lane(3))
        }
    }
    #[inline(always)]
    unsafe fn load_i_part(p: *const u32, rest: usize) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let lane = |k: usize| if k < rest { *p.add(k) as i32 } else { 0 };
            _mm_setr_epi32(lane(0), lane(1), lane(2), lane(3))
        }
    }
    #[inline(always)]
    unsafe fn first(rest: usize) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let iota = _mm_loadu_si128(IOTA.as_ptr() as *const __m128i);
            _mm_cmpgt_epi32(_mm_set1_epi32(rest as i32), iota)
        }
    }
    // code:begin kernel-sse
    #[inline(always)]
    unsafe fn sub(a: __m128, b: __m128) -> __m128 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_sub_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: __m128, b: __m128) -> __m128 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_mul_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn add(a: __m128, b: __m128) -> __m128 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_add_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn le(a: __m128, b: __m128) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_castps_si128(_mm_cmple_ps(a, b)) }
    }
    #[inline(always)]
    unsafe fn eq_i(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_cmpeq_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn and(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_and_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn andnot(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_andnot_si128(a, b) }
    }
    // code:end kernel-sse
    #[inline(always)]
    unsafe fn count(acc: __m128i, m: __m128i) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            // A set lane is -1.
            _mm_sub_epi32(acc, m)
        }
    }
    #[inline(always)]
    unsafe fn bits(m: __m128i) -> u32 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_movemask_ps(_mm_castsi128_ps(m)) as u32 }
    }
    #[inline(always)]
    unsafe fn compress_store(v: __m128i, m: __m128i, dst: *mut u32) -> usize {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            // No compress instruction: store every lane, advance by its bit.
            let bits = Self::bits(m) as usize;
            let mut w = 0;
            *dst = _mm_cvtsi128_si32(v) as u32;
            w += bits & 1;
            *dst.add(w) = _mm_cvtsi128_si32(_mm_shuffle_epi32::<1>(v)) as u32;
            w += (bits >> 1) & 1;
            *dst.add(w) = _mm_cvtsi128_si32(_mm_shuffle_epi32::<2>(v)) as u32;
            w += (bits >> 2) & 1;
            *dst.add(w) = _mm_cvtsi128_si32(_mm_shuffle_epi32::<3>(v)) as u32;
            w + ((bits >> 3) & 1)
        }
    }
    #[inline(always)]
    unsafe fn trunc_i(v: __m128) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_cvttps_epi32(v) }
    }
    #[inline(always)]
    unsafe fn sub_i(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_sub_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn add_masked_i(acc: __m128i, m: __m128i, v: __m128i) -> __m128i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm_add_epi32(acc, _mm_and_si128(m, v)) }
    }
    #[inline(always)]
    unsafe fn sum_i64(v: __m128i) -> i64 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let mut lanes = [0i32; 4];
            _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, v);
            lanes.iter().map(|&l| l as i64).sum()
        }
    }
}
