//! [`Neon`]: the NEON (AArch64 AdvSIMD) implementation of [`Lanes`], with
//! its two compactions.

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
    // code:begin kernel-neon
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
    // code:end kernel-neon
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
}
