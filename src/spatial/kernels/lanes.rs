//! The lanes abstraction: the handful of vector operations every kernel is
//! made of, implemented once per instruction set.
//!
//! The kernels themselves ([`super::driver`]) are written once, generic over
//! [`Lanes`], and marked `#[inline(always)]`; each instruction set's module
//! wraps them in one `#[target_feature]` function, so the whole chain is
//! inlined into code compiled for that instruction set (the shape of the
//! `memchr` crate's vector code). [`ScalarLanes`] is the same interface with
//! one lane, so the scalar kernel is literally the same steps.
//!
//! Every method is `unsafe` because the SIMD ones may only run on a CPU with
//! the instruction set (the callers check it once, [`super::Kernel::or_scalar`])
//! and the loads and stores take raw pointers (each method states what it
//! reads or writes).

/// One instruction set's vector of `N` lanes: `F` holds `N` f32, `I` holds
/// `N` i32 (or u32 bit patterns), `M` is a per-lane mask.
///
/// # Safety
/// Every method of an implementation for an instruction set may only be
/// called on a CPU that has it; the loads read and the stores write exactly
/// the memory their docs name, which the caller must own.
#[allow(clippy::missing_safety_doc)] // one contract for all methods, above
pub trait Lanes: Copy {
    /// Lanes per vector.
    const N: usize;
    /// `N` f32 lanes.
    type F: Copy;
    /// `N` 32-bit integer lanes.
    type I: Copy;
    /// One boolean per lane.
    type M: Copy;

    /// Every lane `v`.
    unsafe fn splat_f(v: f32) -> Self::F;
    /// Every lane `v`.
    unsafe fn splat_i(v: i32) -> Self::I;
    /// Reads `N` f32 from `p` (unaligned).
    unsafe fn load_f(p: *const f32) -> Self::F;
    /// Reads `N` u32 from `p` (unaligned).
    unsafe fn load_i(p: *const u32) -> Self::I;
    /// Reads the first `rest` (`0 < rest < N`) f32 from `p` and touches no
    /// memory beyond them; the other lanes are 0.
    unsafe fn load_f_part(p: *const f32, rest: usize) -> Self::F;
    /// Reads the first `rest` (`0 < rest < N`) u32 from `p` and touches no
    /// memory beyond them; the other lanes are 0.
    unsafe fn load_i_part(p: *const u32, rest: usize) -> Self::I;
    /// The mask of the lanes below `rest` (`rest <= N`).
    unsafe fn first(rest: usize) -> Self::M;
    /// Lane-wise `a - b`.
    unsafe fn sub(a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `a * b`.
    unsafe fn mul(a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `a + b`.
    unsafe fn add(a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `a <= b`, false when either is NaN (ordered compare).
    unsafe fn le(a: Self::F, b: Self::F) -> Self::M;
    /// Lane-wise `a == b` on integers.
    unsafe fn eq_i(a: Self::I, b: Self::I) -> Self::M;
    /// Lane-wise `a && b`.
    unsafe fn and(a: Self::M, b: Self::M) -> Self::M;
    /// Lane-wise `!a && b`.
    unsafe fn andnot(a: Self::M, b: Self::M) -> Self::M;
    /// Lane-wise wrapping `acc + 1` in the lanes of `m`, `acc` elsewhere.
    unsafe fn count(acc: Self::I, m: Self::M) -> Self::I;
    /// The mask as bits, lane `k` at bit `k`.
    unsafe fn bits(m: Self::M) -> u32;
    /// Writes the lanes of `v` whose mask is set to `dst`, packed and in lane
    /// order, and returns how many; may write all `N` slots of `dst`.
    unsafe fn compress_store(v: Self::I, m: Self::M, dst: *mut u32) -> usize;
    /// Lane-wise conversion to i32, rounding toward zero. Equals Rust's
    /// `v as i32` for `|v| < 2^31`; other values are unspecified.
    unsafe fn trunc_i(v: Self::F) -> Self::I;
    /// Lane-wise wrapping `a - b`.
    unsafe fn sub_i(a: Self::I, b: Self::I) -> Self::I;
    /// Lane-wise wrapping `acc + v` in the lanes of `m`, `acc` elsewhere.
    unsafe fn add_masked_i(acc: Self::I, m: Self::M, v: Self::I) -> Self::I;
    /// Sum of the lanes as i64 (no overflow for any lane values).
    unsafe fn sum_i64(v: Self::I) -> i64;
    /// Lane-wise `v & 0xFFFF`.
    unsafe fn low16(v: Self::I) -> Self::I;
    /// Lane-wise `v >> 16`, logical.
    unsafe fn high16(v: Self::I) -> Self::I;
    /// Adds lane `k` of `v` to `p[k]` (wrapping) for `k < rest`
    /// (`1 <= rest <= N`); reads and writes only those `rest` slots.
    unsafe fn add_to_u32(p: *mut u32, v: Self::I, rest: usize);
    /// Adds lane `k` of `v`, sign-extended, to `p[k]` for `k < rest`
    /// (`1 <= rest <= N`); reads and writes only those `rest` slots.
    unsafe fn add_to_i64(p: *mut i64, v: Self::I, rest: usize);
}

/// One lane: plain `f32` and `i32` values. The reference every SIMD
/// instruction set mirrors lane by lane.
#[derive(Clone, Copy, Debug)]
pub struct ScalarLanes;

impl Lanes for ScalarLanes {
    const N: usize = 1;
    type F = f32;
    type I = i32;
    type M = bool;

    #[inline(always)]
    unsafe fn splat_f(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    unsafe fn splat_i(v: i32) -> i32 {
        v
    }
    #[inline(always)]
    unsafe fn load_f(p: *const f32) -> f32 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn load_i(p: *const u32) -> i32 {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe { *p as i32 }
    }
    #[inline(always)]
    unsafe fn load_f_part(_: *const f32, _: usize) -> f32 {
        // No `rest` satisfies 0 < rest < 1: never called.
        0.0
    }
    #[inline(always)]
    unsafe fn load_i_part(_: *const u32, _: usize) -> i32 {
        0
    }
    #[inline(always)]
    unsafe fn first(rest: usize) -> bool {
        rest >= 1
    }
    #[inline(always)]
    unsafe fn sub(a: f32, b: f32) -> f32 {
        a - b
    }
    #[inline(always)]
    unsafe fn mul(a: f32, b: f32) -> f32 {
        a * b
    }
    #[inline(always)]
    unsafe fn add(a: f32, b: f32) -> f32 {
        a + b
    }
    #[inline(always)]
    unsafe fn le(a: f32, b: f32) -> bool {
        a <= b
    }
    #[inline(always)]
    unsafe fn eq_i(a: i32, b: i32) -> bool {
        a == b
    }
    #[inline(always)]
    unsafe fn and(a: bool, b: bool) -> bool {
        a & b
    }
    #[inline(always)]
    unsafe fn andnot(a: bool, b: bool) -> bool {
        !a & b
    }
    #[inline(always)]
    unsafe fn count(acc: i32, m: bool) -> i32 {
        acc.wrapping_add(m as i32)
    }
    #[inline(always)]
    unsafe fn bits(m: bool) -> u32 {
        m as u32
    }
    #[inline(always)]
    unsafe fn compress_store(v: i32, m: bool, dst: *mut u32) -> usize {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            // Branch-free: always write, advance the cursor only on a match.
            *dst = v as u32;
            m as usize
        }
    }
    #[inline(always)]
    unsafe fn trunc_i(v: f32) -> i32 {
        v as i32
    }
    #[inline(always)]
    unsafe fn sub_i(a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    unsafe fn add_masked_i(acc: i32, m: bool, v: i32) -> i32 {
        acc.wrapping_add(if m { v } else { 0 })
    }
    #[inline(always)]
    unsafe fn sum_i64(v: i32) -> i64 {
        v as i64
    }
    #[inline(always)]
    unsafe fn low16(v: i32) -> i32 {
        v & 0xFFFF
    }
    #[inline(always)]
    unsafe fn high16(v: i32) -> i32 {
        ((v as u32) >> 16) as i32
    }
    #[inline(always)]
    unsafe fn add_to_u32(p: *mut u32, v: i32, _: usize) {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            *p = (*p).wrapping_add(v as u32);
        }
    }
    #[inline(always)]
    unsafe fn add_to_i64(p: *mut i64, v: i32, _: usize) {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            *p += v as i64;
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub use x86::{Avx2Lanes, Avx512Lanes, SseLanes};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Lanes;
    use std::arch::x86_64::*;

    /// SSE2: 4 lanes; masks are all-ones integer lanes.
    #[derive(Clone, Copy, Debug)]
    pub struct SseLanes;

    /// Lane indices, compared with a remaining count to build tail masks.
    static IOTA: [i32; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

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
        #[inline(always)]
        unsafe fn low16(v: __m128i) -> __m128i {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe { _mm_and_si128(v, _mm_set1_epi32(0xFFFF)) }
        }
        #[inline(always)]
        unsafe fn high16(v: __m128i) -> __m128i {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe { _mm_srli_epi32::<16>(v) }
        }
        #[inline(always)]
        unsafe fn add_to_u32(p: *mut u32, v: __m128i, rest: usize) {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe {
                let mut lanes = [0u32; 4];
                _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, v);
                for (k, &l) in lanes.iter().enumerate().take(rest) {
                    *p.add(k) = (*p.add(k)).wrapping_add(l);
                }
            }
        }
        #[inline(always)]
        unsafe fn add_to_i64(p: *mut i64, v: __m128i, rest: usize) {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe {
                let mut lanes = [0i32; 4];
                _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, v);
                for (k, &l) in lanes.iter().enumerate().take(rest) {
                    *p.add(k) += l as i64;
                }
            }
        }
    }

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
        unsafe fn low16(v: __m256i) -> __m256i {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe { _mm256_and_si256(v, _mm256_set1_epi32(0xFFFF)) }
        }
        #[inline(always)]
        unsafe fn high16(v: __m256i) -> __m256i {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe { _mm256_srli_epi32::<16>(v) }
        }
        #[inline(always)]
        unsafe fn add_to_u32(p: *mut u32, v: __m256i, rest: usize) {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe {
                let p = p as *mut i32;
                if rest >= 8 {
                    let sum = _mm256_add_epi32(_mm256_loadu_si256(p as *const __m256i), v);
                    _mm256_storeu_si256(p as *mut __m256i, sum);
                } else {
                    // vpmaskmovd neither reads nor writes masked-off lanes.
                    let live = Self::first(rest);
                    let sum = _mm256_add_epi32(_mm256_maskload_epi32(p, live), v);
                    _mm256_maskstore_epi32(p, live, sum);
                }
            }
        }
        #[inline(always)]
        unsafe fn add_to_i64(p: *mut i64, v: __m256i, rest: usize) {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe {
                let halves = [
                    _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                    _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(v)),
                ];
                for (h, wide) in halves.into_iter().enumerate() {
                    let q = p.add(4 * h);
                    let live = rest.saturating_sub(4 * h).min(4);
                    if live == 4 {
                        let sum = _mm256_add_epi64(_mm256_loadu_si256(q as *const __m256i), wide);
                        _mm256_storeu_si256(q as *mut __m256i, sum);
                    } else if live > 0 {
                        let iota = _mm256_setr_epi64x(0, 1, 2, 3);
                        let mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(live as i64), iota);
                        let sum =
                            _mm256_add_epi64(_mm256_maskload_epi64(q as *const i64, mask), wide);
                        _mm256_maskstore_epi64(q, mask, sum);
                    }
                }
            }
        }
    }

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
        unsafe fn low16(v: __m512i) -> __m512i {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe { _mm512_and_si512(v, _mm512_set1_epi32(0xFFFF)) }
        }
        #[inline(always)]
        unsafe fn high16(v: __m512i) -> __m512i {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe { _mm512_srli_epi32::<16>(v) }
        }
        #[inline(always)]
        unsafe fn add_to_u32(p: *mut u32, v: __m512i, rest: usize) {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe {
                // Masked-off lanes are neither read nor written.
                let live = Self::first(rest);
                let p = p as *mut i32;
                let sum = _mm512_add_epi32(_mm512_maskz_loadu_epi32(live, p), v);
                _mm512_mask_storeu_epi32(p, live, sum);
            }
        }
        #[inline(always)]
        unsafe fn add_to_i64(p: *mut i64, v: __m512i, rest: usize) {
            // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
            // `Lanes` trait's) is the caller's: the target features are enabled and
            // every pointer is valid for the lanes it reads or writes.
            unsafe {
                let live = Self::first(rest);
                let lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
                let hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(v));
                let (klo, khi) = ((live & 0xFF) as __mmask8, (live >> 8) as __mmask8);
                let sum = _mm512_add_epi64(_mm512_maskz_loadu_epi64(klo, p), lo);
                _mm512_mask_storeu_epi64(p, klo, sum);
                if khi != 0 {
                    let q = p.add(8);
                    let sum = _mm512_add_epi64(_mm512_maskz_loadu_epi64(khi, q), hi);
                    _mm512_mask_storeu_epi64(q, khi, sum);
                }
            }
        }
    }
}

#[cfg(target_arch = "aarch64")]
pub use arm::{Neon, NeonLanes, NeonWalkLanes};

#[cfg(target_arch = "aarch64")]
mod arm {
    use super::Lanes;
    use std::arch::aarch64::*;

    /// NEON (AdvSIMD) with the matching ids packed by a table lookup
    /// ([`Neon`] with `TABLE = true`): the NEON kernel's lanes.
    pub type NeonLanes = Neon<true>;
    /// NEON with the matching ids packed by a bit-mask walk (every lane
    /// stored, the cursor advanced by its mask bit, as SSE2 does): the other
    /// compaction, kept so the two can be compared on ARM hardware.
    pub type NeonWalkLanes = Neon<false>;

    /// NEON: 4 lanes; masks are all-ones `u32` lanes. NEON has no masked
    /// load and no compress instruction: a tail is read lane by lane into a
    /// zeroed buffer, and matching ids are packed either with `tbl` and a
    /// 16-entry table of byte indices (`TABLE = true`) or by a bit-mask walk.
    #[derive(Clone, Copy, Debug)]
    pub struct Neon<const TABLE: bool>;

    /// Lane indices, compared with a remaining count to build tail masks.
    static IOTA: [i32; 4] = [0, 1, 2, 3];
    /// Lane `k`'s bit in a mask's bits.
    static BIT: [u32; 4] = [1, 2, 4, 8];
    /// `COMPACT[m]`: the `tbl` byte indices that move the 32-bit lanes whose
    /// bit is set in the 4-bit mask `m` to the front, in lane order; the
    /// other bytes are 0xFF (`tbl` writes 0 for them).
    static COMPACT: [[u8; 16]; 16] = build_compact();

    const fn build_compact() -> [[u8; 16]; 16] {
        let mut t = [[0xFFu8; 16]; 16];
        let mut m = 0;
        while m < 16 {
            let (mut k, mut lane) = (0, 0);
            while lane < 4 {
                if m & (1 << lane) != 0 {
                    let mut b = 0;
                    while b < 4 {
                        t[m][k * 4 + b] = (lane * 4 + b) as u8;
                        b += 1;
                    }
                    k += 1;
                }
                lane += 1;
            }
            m += 1;
        }
        t
    }

    impl<const TABLE: bool> Lanes for Neon<TABLE> {
        const N: usize = 4;
        type F = float32x4_t;
        type I = int32x4_t;
        type M = uint32x4_t;

        #[inline(always)]
        unsafe fn splat_f(v: f32) -> float32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vdupq_n_f32(v) }
        }
        #[inline(always)]
        unsafe fn splat_i(v: i32) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vdupq_n_s32(v) }
        }
        #[inline(always)]
        unsafe fn load_f(p: *const f32) -> float32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled and `p` is valid
            // for 4 f32 (unaligned is fine for `ld1`).
            unsafe { vld1q_f32(p) }
        }
        #[inline(always)]
        unsafe fn load_i(p: *const u32) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled and `p` is valid
            // for 4 u32.
            unsafe { vreinterpretq_s32_u32(vld1q_u32(p)) }
        }
        #[inline(always)]
        unsafe fn load_f_part(p: *const f32, rest: usize) -> float32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled and `p` is valid
            // for the `rest` f32 read here, lane by lane; the vector load
            // reads the local buffer.
            unsafe {
                let mut lanes = [0.0f32; 4];
                for (k, l) in lanes.iter_mut().enumerate().take(rest) {
                    *l = *p.add(k);
                }
                vld1q_f32(lanes.as_ptr())
            }
        }
        #[inline(always)]
        unsafe fn load_i_part(p: *const u32, rest: usize) -> int32x4_t {
            // SAFETY: as for `load_f_part`: `rest` u32 read from `p`.
            unsafe {
                let mut lanes = [0u32; 4];
                for (k, l) in lanes.iter_mut().enumerate().take(rest) {
                    *l = *p.add(k);
                }
                vreinterpretq_s32_u32(vld1q_u32(lanes.as_ptr()))
            }
        }
        #[inline(always)]
        unsafe fn first(rest: usize) -> uint32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled; IOTA holds 4 i32.
            unsafe { vcltq_s32(vld1q_s32(IOTA.as_ptr()), vdupq_n_s32(rest as i32)) }
        }
        #[inline(always)]
        unsafe fn sub(a: float32x4_t, b: float32x4_t) -> float32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vsubq_f32(a, b) }
        }
        #[inline(always)]
        unsafe fn mul(a: float32x4_t, b: float32x4_t) -> float32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            // A separate multiply, never fused with the add (`fmul`, then
            // `fadd`), so every kernel rounds the same way.
            unsafe { vmulq_f32(a, b) }
        }
        #[inline(always)]
        unsafe fn add(a: float32x4_t, b: float32x4_t) -> float32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vaddq_f32(a, b) }
        }
        #[inline(always)]
        unsafe fn le(a: float32x4_t, b: float32x4_t) -> uint32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            // `fcmge` with swapped operands: false when either is NaN.
            unsafe { vcleq_f32(a, b) }
        }
        #[inline(always)]
        unsafe fn eq_i(a: int32x4_t, b: int32x4_t) -> uint32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vceqq_s32(a, b) }
        }
        #[inline(always)]
        unsafe fn and(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vandq_u32(a, b) }
        }
        #[inline(always)]
        unsafe fn andnot(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            // `bic`: b AND NOT a.
            unsafe { vbicq_u32(b, a) }
        }
        #[inline(always)]
        unsafe fn count(acc: int32x4_t, m: uint32x4_t) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            // A set lane is all ones, -1 as i32.
            unsafe { vsubq_s32(acc, vreinterpretq_s32_u32(m)) }
        }
        #[inline(always)]
        unsafe fn bits(m: uint32x4_t) -> u32 {
            // SAFETY: the `Lanes` contract: NEON is enabled; BIT holds 4 u32.
            unsafe { vaddvq_u32(vandq_u32(m, vld1q_u32(BIT.as_ptr()))) }
        }
        #[inline(always)]
        unsafe fn compress_store(v: int32x4_t, m: uint32x4_t, dst: *mut u32) -> usize {
            // SAFETY: the `Lanes` contract: NEON is enabled and `dst` is
            // valid for 4 u32 (the trait lets this write all N slots).
            unsafe {
                let bits = Self::bits(m) as usize;
                if TABLE {
                    // The set lanes to the front with one `tbl`; store all four.
                    let idx = vld1q_u8(COMPACT[bits & 15].as_ptr());
                    let packed = vqtbl1q_u8(vreinterpretq_u8_s32(v), idx);
                    vst1q_u8(dst as *mut u8, packed);
                    bits.count_ones() as usize
                } else {
                    // Store every lane, advance by its bit.
                    let mut w = 0;
                    *dst = vgetq_lane_s32::<0>(v) as u32;
                    w += bits & 1;
                    *dst.add(w) = vgetq_lane_s32::<1>(v) as u32;
                    w += (bits >> 1) & 1;
                    *dst.add(w) = vgetq_lane_s32::<2>(v) as u32;
                    w += (bits >> 2) & 1;
                    *dst.add(w) = vgetq_lane_s32::<3>(v) as u32;
                    w + ((bits >> 3) & 1)
                }
            }
        }
        #[inline(always)]
        unsafe fn trunc_i(v: float32x4_t) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            // `fcvtzs`: toward zero, saturating out of range (unspecified by
            // the trait there).
            unsafe { vcvtq_s32_f32(v) }
        }
        #[inline(always)]
        unsafe fn sub_i(a: int32x4_t, b: int32x4_t) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vsubq_s32(a, b) }
        }
        #[inline(always)]
        unsafe fn add_masked_i(acc: int32x4_t, m: uint32x4_t, v: int32x4_t) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vaddq_s32(acc, vandq_s32(vreinterpretq_s32_u32(m), v)) }
        }
        #[inline(always)]
        unsafe fn sum_i64(v: int32x4_t) -> i64 {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            // `saddlv`: the lanes widened to 64 bits, then summed.
            unsafe { vaddlvq_s32(v) }
        }
        #[inline(always)]
        unsafe fn low16(v: int32x4_t) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vandq_s32(v, vdupq_n_s32(0xFFFF)) }
        }
        #[inline(always)]
        unsafe fn high16(v: int32x4_t) -> int32x4_t {
            // SAFETY: the `Lanes` contract: NEON is enabled (no memory access).
            unsafe { vreinterpretq_s32_u32(vshrq_n_u32::<16>(vreinterpretq_u32_s32(v))) }
        }
        #[inline(always)]
        unsafe fn add_to_u32(p: *mut u32, v: int32x4_t, rest: usize) {
            // SAFETY: the `Lanes` contract: NEON is enabled and `p` is valid
            // for the `rest` u32 read and written here.
            unsafe {
                let mut lanes = [0u32; 4];
                vst1q_u32(lanes.as_mut_ptr(), vreinterpretq_u32_s32(v));
                for (k, &l) in lanes.iter().enumerate().take(rest) {
                    *p.add(k) = (*p.add(k)).wrapping_add(l);
                }
            }
        }
        #[inline(always)]
        unsafe fn add_to_i64(p: *mut i64, v: int32x4_t, rest: usize) {
            // SAFETY: the `Lanes` contract: NEON is enabled and `p` is valid
            // for the `rest` i64 read and written here.
            unsafe {
                let mut lanes = [0i32; 4];
                vst1q_s32(lanes.as_mut_ptr(), v);
                for (k, &l) in lanes.iter().enumerate().take(rest) {
                    *p.add(k) += l as i64;
                }
            }
        }
    }
}
