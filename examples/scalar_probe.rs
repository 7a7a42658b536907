//! Not a demo: the scalar kernel's three forms, each behind its own
//! non-inlined, unmangled function, so their compiled bodies can be found
//! and read. `tests/platforms.rs` compiles this for wasm32 with SIMD128
//! enabled (`--emit asm`) and checks that no `probe_scalar_*` body holds a
//! SIMD128 instruction: the scalar kernel stays the one-lane baseline the
//! SIMD kernels are compared with, not a loop the compiler vectorized.
//!
//! Run natively it just calls each probe once on a small span.

use spatial_query_lab::spatial::kernels::driver::{self, SlotSums};
use spatial_query_lab::spatial::kernels::{lanes::ScalarLanes, scalar};
use spatial_query_lab::spatial::{FusedQuery, KernelQuery, Near};
use std::hint::black_box;

/// [`scalar::run_ranges`], not inlined.
#[no_mangle]
#[inline(never)]
pub fn probe_scalar_collect(
    cols: (&[f32], &[f32], &[u32]),
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    scalar::run_ranges(cols.0, cols.1, cols.2, ranges, q, out);
}

/// [`scalar::run_fused`], not inlined.
#[no_mangle]
#[inline(never)]
pub fn probe_scalar_fused(
    cols: (&[f32], &[f32], &[u32], &[u32]),
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    out: &mut [Near],
) {
    scalar::run_fused(cols.0, cols.1, cols.2, cols.3, ranges, qs, out);
}

/// [`scalar::run_fused_sym`]'s body (`driver::fused_sym` over
/// [`ScalarLanes`]), not inlined: `scalar::run_fused_sym` itself is not
/// `#[inline]`, so calling it would leave its body in the library's code.
///
/// # Safety
/// As for [`scalar::run_fused_sym`].
#[no_mangle]
#[inline(never)]
pub unsafe fn probe_scalar_fused_sym(
    cols: (&[f32], &[f32], &[u32]),
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    own: &mut [Near],
    sums: SlotSums,
) {
    // SAFETY: this fn's contract is the caller's.
    unsafe { driver::fused_sym::<ScalarLanes>(cols.0, cols.1, cols.2, ranges, qs, own, sums) }
}

fn main() {
    let n = 64usize;
    let x: Vec<f32> = (0..n).map(|i| (i % 8) as f32).collect();
    let z: Vec<f32> = (0..n).map(|i| (i / 8) as f32).collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    let team: Vec<u32> = (0..n as u32).map(|i| i % 2).collect();
    let ranges = [(0u32, n as u32)];
    let q = KernelQuery {
        cx: 3.0,
        cz: 3.0,
        r2: 4.0,
        exclude: 27,
    };
    let mut out = Vec::new();
    probe_scalar_collect(black_box((&x, &z, &ids)), &ranges, &q, &mut out);
    let qs = [FusedQuery::new(q, 1)];
    let mut near = [Near::default()];
    probe_scalar_fused(black_box((&x, &z, &ids, &team)), &ranges, &qs, &mut near);
    let (mut count, mut enemies) = (vec![0u32; n], vec![0u32; n]);
    let (mut sx, mut sz) = (vec![0i64; n], vec![0i64; n]);
    let sums = SlotSums {
        count: count.as_mut_ptr(),
        enemies: enemies.as_mut_ptr(),
        sx: sx.as_mut_ptr(),
        sz: sz.as_mut_ptr(),
    };
    let mut own = [Near::default()];
    // The query's own slot (27) left out of the searched entries.
    let others = [(28u32, n as u32)];
    // SAFETY: every slot of `others` (28..n) indexes the four columns of
    // length n, owned by this thread; positions are small; `flush` of a
    // radius-2 query is far above GROUP.
    unsafe { probe_scalar_fused_sym(black_box((&x, &z, &team)), &others, &qs, &mut own, sums) };
    println!(
        "collect {} ids, fused {} neighbors, symmetric {} neighbors",
        out.len(),
        near[0].count,
        own[0].count
    );
}
