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
    /// The wrapping (modulo 2^32) sum of the lanes of each of four
    /// vectors, in their order. By default one [`Lanes::sum_i64`] each;
    /// AVX2 and AVX-512 override it with one transpose-and-add (SSE2 keeps
    /// the default: on 4 lanes the transpose costs what it saves).
    #[inline(always)]
    unsafe fn sums4_i32(v: [Self::I; 4]) -> [i32; 4] {
        // SAFETY: the caller's contract (the instruction set is present).
        v.map(|x| unsafe { Self::sum_i64(x) } as i32)
    }
}

mod scalar;
pub use scalar::ScalarLanes;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod sse;
#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2Lanes;
#[cfg(target_arch = "x86_64")]
pub use avx512::Avx512Lanes;
#[cfg(target_arch = "x86_64")]
pub use sse::SseLanes;

#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "aarch64")]
pub use neon::{Neon, NeonLanes, NeonWalkLanes};

// WebAssembly has no run-time detection: the SIMD128 lanes exist only in a
// module compiled with `-C target-feature=+simd128`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd128::Simd128Lanes;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// `V::sums4_i32` of seeded lanes (extremes included, so the sums
    /// wrap) against the wrapping sums lane by lane.
    ///
    /// # Safety
    /// The CPU must support `V`'s instruction set.
    unsafe fn sums_wrap<V: Lanes>(name: &str) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        for round in 0..200 {
            let lanes: [Vec<i32>; 4] = std::array::from_fn(|k| {
                (0..V::N)
                    .map(|i| match (round + i + k) % 5 {
                        0 => i32::MAX,
                        1 => i32::MIN,
                        _ => rng.gen(),
                    })
                    .collect()
            });
            let want = lanes
                .each_ref()
                .map(|v| v.iter().fold(0i32, |s, &x| s.wrapping_add(x)));
            // SAFETY: the caller's contract; each load reads the N lanes of
            // its vector.
            let got = unsafe {
                V::sums4_i32(
                    lanes
                        .each_ref()
                        .map(|v| V::load_i(v.as_ptr() as *const u32)),
                )
            };
            assert_eq!(got, want, "{name}, round {round}");
        }
    }

    #[test]
    fn sums4_is_four_wrapping_lane_sums() {
        // SAFETY: the scalar lanes run everywhere; every other set runs
        // only where detected (or compiled in).
        unsafe {
            sums_wrap::<ScalarLanes>("scalar");
            #[cfg(target_arch = "x86_64")]
            {
                sums_wrap::<SseLanes>("sse");
                if std::is_x86_feature_detected!("avx2") {
                    sums_wrap::<Avx2Lanes>("avx2");
                }
                if std::is_x86_feature_detected!("avx512f") {
                    sums_wrap::<Avx512Lanes>("avx512");
                }
            }
            #[cfg(target_arch = "aarch64")]
            sums_wrap::<NeonLanes>("neon");
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            sums_wrap::<Simd128Lanes>("simd128");
        }
    }
}
