//! [`ScalarLanes`]: the one-lane implementation of [`Lanes`], the scalar
//! kernel and the reference every instruction set mirrors.

use super::Lanes;

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
    // code:begin kernel-scalar
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
    // code:end kernel-scalar
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
}
