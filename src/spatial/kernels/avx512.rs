//! The AVX-512 kernels: 16 lanes, mask compares into `__mmask16`, masked
//! loads for the last partial vector of a range, `vpcompressd` for the
//! matching ids. The steps are the generic ones of [`super::driver`].

use super::driver;
use super::lanes::Avx512Lanes;
use super::{FusedQuery, KernelQuery, Near};

/// [`driver::collect`] for AVX-512F: appends the ids of the entries of
/// `x[a..b]`, `z[a..b]`, `ids[a..b]` (for every `(a, b)` in `ranges`, in
/// order) within `q` to `out` (see [`super::Kernel::run_ranges`]).
///
/// # Safety
/// The CPU must support AVX-512F, the three slices must have equal lengths and
/// every range must satisfy `a <= b <= len` (all checked by
/// `Kernel::run_ranges`).
#[target_feature(enable = "avx512f,popcnt")]
pub unsafe fn run_ranges(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe { driver::collect::<Avx512Lanes>(x, z, ids, ranges, q, out) }
}

/// [`driver::fused`] for AVX-512F: the [`Near`] aggregates of the entries of
/// `ranges` within each query of `qs`, into `out` (see
/// [`super::Kernel::run_fused`]).
///
/// # Safety
/// As for [`run_ranges`], plus `team.len() == x.len()`, `1 <= qs.len() <=
/// GROUP`, `out.len() == qs.len()` and the position range of
/// [`driver::fused`].
#[target_feature(enable = "avx512f,popcnt")]
pub unsafe fn run_fused(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    team: &[u32],
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    out: &mut [Near],
) {
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe { driver::fused::<Avx512Lanes>(x, z, ids, team, ranges, qs, out) }
}

/// [`driver::fused_sym`] for this instruction set (see
/// [`super::Kernel::run_fused_sym`]).
///
/// # Safety
/// As for [`run_fused`], plus the contract of [`driver::fused_sym`].
#[target_feature(enable = "avx512f,popcnt")]
pub unsafe fn run_fused_sym(
    x: &[f32],
    z: &[f32],
    team: &[u32],
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    own: &mut [Near],
    sums: driver::SlotSums,
) {
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe { driver::fused_sym::<Avx512Lanes>(x, z, team, ranges, qs, own, sums) }
}
