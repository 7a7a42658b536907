//! [`Simd128Lanes`]: the WebAssembly SIMD128 implementation of [`Lanes`]
//! (`core::arch::wasm32`), compiled only into a module built with
//! `-C target-feature=+simd128`.
//!
//! The arithmetic intrinsics of `core::arch::wasm32` are safe functions
//! (a WebAssembly engine rejects a module whose instructions it lacks at
//! load time, so there is nothing to check at run time); only the loads and
//! stores through raw pointers are `unsafe`.

use super::Lanes;
use core::arch::wasm32::*;

/// SIMD128: 4 lanes; masks are all-ones `v128` lanes. SIMD128 has no masked
/// load and no compress instruction: a tail is read lane by lane, and
/// matching ids are packed with one `i8x16.swizzle` and a 16-entry table of
/// byte indices (as NEON's `tbl`, [`super::NeonLanes`] on AArch64).
#[derive(Clone, Copy, Debug)]
pub struct Simd128Lanes;

/// `COMPACT[m]`: the `i8x16.swizzle` byte indices that move the 32-bit lanes
/// whose bit is set in the 4-bit mask `m` to the front, in lane order; the
/// other bytes are 0xFF (`swizzle` writes 0 for indices above 15).
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

impl Lanes for Simd128Lanes {
    const N: usize = 4;
    type F = v128;
    type I = v128;
    type M = v128;

    #[inline(always)]
    unsafe fn splat_f(v: f32) -> v128 {
        f32x4_splat(v)
    }
    #[inline(always)]
    unsafe fn splat_i(v: i32) -> v128 {
        i32x4_splat(v)
    }
    #[inline(always)]
    unsafe fn load_f(p: *const f32) -> v128 {
        // SAFETY: the `Lanes` contract: `p` is valid for 4 f32 (`v128.load`
        // accepts any alignment).
        unsafe { v128_load(p as *const v128) }
    }
    #[inline(always)]
    unsafe fn load_i(p: *const u32) -> v128 {
        // SAFETY: the `Lanes` contract: `p` is valid for 4 u32.
        unsafe { v128_load(p as *const v128) }
    }
    #[inline(always)]
    unsafe fn load_f_part(p: *const f32, rest: usize) -> v128 {
        // SAFETY: the `Lanes` contract: `p` is valid for the `rest` f32 read
        // here, lane by lane.
        let lane = |k: usize| if k < rest { unsafe { *p.add(k) } } else { 0.0 };
        f32x4(lane(0), lane(1), lane(2), lane(3))
    }
    #[inline(always)]
    unsafe fn load_i_part(p: *const u32, rest: usize) -> v128 {
        // SAFETY: as for `load_f_part`: `rest` u32 read from `p`.
        let lane = |k: usize| if k < rest { unsafe { *p.add(k) } } else { 0 };
        u32x4(lane(0), lane(1), lane(2), lane(3))
    }
    #[inline(always)]
    unsafe fn first(rest: usize) -> v128 {
        i32x4_lt(i32x4(0, 1, 2, 3), i32x4_splat(rest as i32))
    }
    // code:begin kernel-simd128
    #[inline(always)]
    unsafe fn sub(a: v128, b: v128) -> v128 {
        f32x4_sub(a, b)
    }
    #[inline(always)]
    unsafe fn mul(a: v128, b: v128) -> v128 {
        // A separate multiply, never fused with the add (SIMD128 has no
        // fused multiply-add; relaxed-simd's is not enabled), so every
        // kernel rounds the same way.
        f32x4_mul(a, b)
    }
    #[inline(always)]
    unsafe fn add(a: v128, b: v128) -> v128 {
        f32x4_add(a, b)
    }
    #[inline(always)]
    unsafe fn le(a: v128, b: v128) -> v128 {
        // `f32x4.le`: false when either is NaN.
        f32x4_le(a, b)
    }
    #[inline(always)]
    unsafe fn eq_i(a: v128, b: v128) -> v128 {
        i32x4_eq(a, b)
    }
    #[inline(always)]
    unsafe fn and(a: v128, b: v128) -> v128 {
        v128_and(a, b)
    }
    #[inline(always)]
    unsafe fn andnot(a: v128, b: v128) -> v128 {
        // `v128.andnot(x, y)` is `x & !y`: b AND NOT a.
        v128_andnot(b, a)
    }
    // code:end kernel-simd128
    #[inline(always)]
    unsafe fn count(acc: v128, m: v128) -> v128 {
        // A set lane is all ones, -1 as i32.
        i32x4_sub(acc, m)
    }
    #[inline(always)]
    unsafe fn bits(m: v128) -> u32 {
        i32x4_bitmask(m) as u32
    }
    #[inline(always)]
    unsafe fn compress_store(v: v128, m: v128, dst: *mut u32) -> usize {
        let bits = i32x4_bitmask(m) as usize & 15;
        // SAFETY: COMPACT[bits] holds 16 bytes.
        let idx = unsafe { v128_load(COMPACT[bits].as_ptr() as *const v128) };
        // The set lanes to the front with one swizzle; store all four.
        // SAFETY: the `Lanes` contract: `dst` is valid for 4 u32 (the trait
        // lets this write all N slots).
        unsafe { v128_store(dst as *mut v128, i8x16_swizzle(v, idx)) };
        bits.count_ones() as usize
    }
    #[inline(always)]
    unsafe fn trunc_i(v: v128) -> v128 {
        // `i32x4.trunc_sat_f32x4_s`: toward zero, saturating out of range
        // (unspecified by the trait there), 0 for NaN.
        i32x4_trunc_sat_f32x4(v)
    }
    #[inline(always)]
    unsafe fn sub_i(a: v128, b: v128) -> v128 {
        i32x4_sub(a, b)
    }
    #[inline(always)]
    unsafe fn add_masked_i(acc: v128, m: v128, v: v128) -> v128 {
        i32x4_add(acc, v128_and(m, v))
    }
    #[inline(always)]
    unsafe fn sum_i64(v: v128) -> i64 {
        i32x4_extract_lane::<0>(v) as i64
            + i32x4_extract_lane::<1>(v) as i64
            + i32x4_extract_lane::<2>(v) as i64
            + i32x4_extract_lane::<3>(v) as i64
    }
}
