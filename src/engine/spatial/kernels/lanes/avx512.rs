//! [`Avx512Lanes`]: the AVX-512F implementation of [`Lanes`] (x86_64).

use super::Lanes;
use std::arch::x86_64::*;

/// AVX-512F: 16 lanes; masks are `__mmask16` registers; masked loads for
/// tails; `vpcompressd` for compaction.
#[derive(Clone, Copy, Debug)]
pub struct Avx512Lanes;

impl Lanes for Avx512Lanes {
    const N: usize = 16;
    type F = __m512;
    type I = __m512i;
    type M = __mmask16;

    #[inline(always)]
    unsafe fn splat_f(v: f32) -> __m512 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_set1_ps(v) }
    }
    #[inline(always)]
    unsafe fn splat_i(v: i32) -> __m512i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_set1_epi32(v) }
    }
    #[inline(always)]
    unsafe fn load_f(p: *const f32) -> __m512 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load_i(p: *const u32) -> __m512i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_loadu_si512(p as *const __m512i) }
    }
    #[inline(always)]
    unsafe fn load_f_part(p: *const f32, rest: usize) -> __m512 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            // Masked-off lanes are never read, so they cannot fault.
            _mm512_maskz_loadu_ps(Self::first(rest), p)
        }
    }
    #[inline(always)]
    unsafe fn load_i_part(p: *const u32, rest: usize) -> __m512i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_maskz_loadu_epi32(Self::first(rest), p as *const i32) }
    }
    #[inline(always)]
    unsafe fn first(rest: usize) -> __mmask16 {
        if rest >= 16 {
            0xFFFF
        } else {
            (1u16 << rest) - 1
        }
    }
    // code:begin kernel-avx512
    #[inline(always)]
    unsafe fn sub(a: __m512, b: __m512) -> __m512 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_sub_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: __m512, b: __m512) -> __m512 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_mul_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn add(a: __m512, b: __m512) -> __m512 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_add_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn le(a: __m512, b: __m512) -> __mmask16 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_cmp_ps_mask::<_CMP_LE_OQ>(a, b) }
    }
    #[inline(always)]
    unsafe fn eq_i(a: __m512i, b: __m512i) -> __mmask16 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_cmpeq_epi32_mask(a, b) }
    }
    #[inline(always)]
    unsafe fn and(a: __mmask16, b: __mmask16) -> __mmask16 {
        a & b
    }
    #[inline(always)]
    unsafe fn andnot(a: __mmask16, b: __mmask16) -> __mmask16 {
        !a & b
    }
    // code:end kernel-avx512
    #[inline(always)]
    unsafe fn count(acc: __m512i, m: __mmask16) -> __m512i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_mask_sub_epi32(acc, m, acc, _mm512_set1_epi32(-1)) }
    }
    #[inline(always)]
    unsafe fn bits(m: __mmask16) -> u32 {
        m as u32
    }
    #[inline(always)]
    unsafe fn compress_store(v: __m512i, m: __mmask16, dst: *mut u32) -> usize {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            _mm512_storeu_si512(dst as *mut __m512i, _mm512_maskz_compress_epi32(m, v));
            m.count_ones() as usize
        }
    }
    #[inline(always)]
    unsafe fn trunc_i(v: __m512) -> __m512i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_cvttps_epi32(v) }
    }
    #[inline(always)]
    unsafe fn sub_i(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_sub_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn add_masked_i(acc: __m512i, m: __mmask16, v: __m512i) -> __m512i {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { _mm512_mask_add_epi32(acc, m, acc, v) }
    }
    #[inline(always)]
    unsafe fn sum_i64(v: __m512i) -> i64 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
            let hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(v));
            _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi))
        }
    }
    #[inline(always)]
    unsafe fn sums4_i32([a, b, c, d]: [__m512i; 4]) -> [i32; 4] {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled;
        // the one store writes the 16 bytes of a local array.
        unsafe {
            // Halves added: [a folded to 8 lanes | b folded], the same for c, d.
            let ab = _mm512_add_epi32(
                _mm512_shuffle_i64x2::<0x44>(a, b),
                _mm512_shuffle_i64x2::<0xEE>(a, b),
            );
            let cd = _mm512_add_epi32(
                _mm512_shuffle_i64x2::<0x44>(c, d),
                _mm512_shuffle_i64x2::<0xEE>(c, d),
            );
            // Quarters added: 4 lanes of a, then of b, c and d.
            let t = _mm512_add_epi32(
                _mm512_shuffle_i64x2::<0x88>(ab, cd),
                _mm512_shuffle_i64x2::<0xDD>(ab, cd),
            );
            // Within each quarter: its total in every lane.
            let t = _mm512_add_epi32(t, _mm512_shuffle_epi32::<0x4E>(t));
            let t = _mm512_add_epi32(t, _mm512_shuffle_epi32::<0xB1>(t));
            let mut out = [0i32; 4];
            let first = _mm512_maskz_compress_epi32(0x1111, t);
            _mm_storeu_si128(
                out.as_mut_ptr() as *mut __m128i,
                _mm512_castsi512_si128(first),
            );
            out
        }
    }
}
