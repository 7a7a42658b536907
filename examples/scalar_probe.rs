//! Not a demo: the scalar kernel's two forms, each behind its own
//! non-inlined, unmangled function, so their compiled bodies can be found
//! and read. `tests/platforms.rs` compiles this for wasm32 with SIMD128
//! enabled (`--emit asm`) and checks that no `probe_scalar_*` body holds a
//! SIMD128 instruction: the scalar kernel stays the one-lane baseline the
//! SIMD kernels are compared with, not a loop the compiler vectorized.
//!
//! Run natively it just calls each probe once on a small span.

use spatial_query_lab::engine::spatial::kernels::scalar;
use spatial_query_lab::engine::spatial::{FusedQuery, KernelQuery, Near};
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
    println!(
        "collect {} ids, fused {} neighbors",
        out.len(),
        near[0].count
    );
}
