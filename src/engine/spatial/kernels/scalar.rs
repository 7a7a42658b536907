//! The scalar kernels: the generic steps of [`super::driver`] with one lane
//! ([`ScalarLanes`]); every SIMD kernel performs these same steps per lane.

use super::driver;
use super::lanes::ScalarLanes;
use super::{FusedQuery, KernelQuery, Near};

/// Appends the ids of the entries of `x[a..b]`, `z[a..b]`, `ids[a..b]` (for
/// every `(a, b)` in `ranges`, in order) within `q` to `out` (see
/// [`super::Kernel::run_ranges`] for the contract).
///
/// # Panics
/// If the slices differ in length or a range is out of bounds of them.
#[inline]
pub fn run_ranges(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    check(x, z, ids, ranges);
    // SAFETY: one lane needs no instruction set; lengths and ranges were
    // checked just above.
    unsafe { driver::collect::<ScalarLanes>(x, z, ids, ranges, q, out) }
}

/// The [`Near`] aggregates of the entries of `ranges` within each query of
/// `qs`, into `out` (see [`super::Kernel::run_fused`] for the contract).
///
/// # Panics
/// If the slices differ in length, a range is out of bounds of them, or
/// `qs` is empty, longer than [`driver::GROUP`] or longer than `out`.
#[inline]
pub fn run_fused(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    team: &[u32],
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    out: &mut [Near],
) {
    check(x, z, ids, ranges);
    assert_eq!(team.len(), x.len(), "team and x must have equal lengths");
    assert!(
        (1..=driver::GROUP).contains(&qs.len()) && out.len() >= qs.len(),
        "1 to GROUP queries, one output each"
    );
    let out = &mut out[..qs.len()];
    // SAFETY: as in `run_ranges`, and the group size was checked above; the
    // scalar conversion saturates, so no position range is needed for memory
    // safety.
    unsafe { driver::fused::<ScalarLanes>(x, z, ids, team, ranges, qs, out) }
}

/// [`run_fused`] for positions of any magnitude: one entry at a time with
/// i64 sums of saturated fixed-point coordinates ([`Near::add`]); the result
/// equals [`run_fused`]'s wherever that one is exact (every coordinate within
/// [`super::FIXED_RANGE`]).
///
/// # Panics
/// If the slices differ in length or a range is out of bounds of them.
pub fn run_fused_exact(
    (x, z, ids, team): (&[f32], &[f32], &[u32], &[u32]),
    ranges: &[(u32, u32)],
    q: &FusedQuery,
) -> Near {
    check(x, z, ids, ranges);
    assert_eq!(team.len(), x.len(), "team and x must have equal lengths");
    let mut near = Near::default();
    let me = (q.q.cx, q.q.cz, q.team as u8);
    for &(a, b) in ranges {
        for k in a as usize..b as usize {
            let (dx, dz) = (x[k] - q.q.cx, z[k] - q.q.cz);
            if dx * dx + dz * dz <= q.q.r2 && ids[k] != q.q.exclude {
                near.add(me, (x[k], z[k], team[k] as u8));
            }
        }
    }
    near
}

/// The precondition every kernel checks before it reads: equal column
/// lengths and ranges with `a <= b <= len`.
///
/// # Panics
/// If either does not hold.
pub(super) fn check(x: &[f32], z: &[f32], ids: &[u32], ranges: &[(u32, u32)]) {
    let n = x.len();
    assert!(
        z.len() == n && ids.len() == n,
        "x, z and ids must have equal lengths"
    );
    assert!(
        ranges.iter().all(|&(a, b)| a <= b && b as usize <= n),
        "kernel range out of bounds"
    );
}
