//! The kernels, written once over [`Lanes`]: the id-collecting span kernel
//! ([`collect`]) and the fused kernel ([`fused`]) that sums a query's
//! neighbor aggregates while testing, without writing any id.
//!
//! Both walk each range in whole vectors of `V::N` entries and finish it with
//! one partial vector (masked or copied loads of the remaining entries), so
//! no scalar tail loop exists; with [`super::lanes::ScalarLanes`] (`N = 1`)
//! there is never a partial vector. Per lane they perform exactly the steps
//! of the distance test documented in [`super`].

use super::lanes::Lanes;
use super::{FusedQuery, KernelQuery, Near};

/// The per-query constants, splatted once per kernel call.
#[derive(Clone, Copy)]
struct Consts<V: Lanes> {
    cx: V::F,
    cz: V::F,
    r2: V::F,
    exclude: V::I,
}

impl<V: Lanes> Consts<V> {
    #[inline(always)]
    unsafe fn of(q: &KernelQuery) -> Self {
        Consts {
            cx: V::splat_f(q.cx),
            cz: V::splat_f(q.cz),
            r2: V::splat_f(q.r2),
            exclude: V::splat_i(q.exclude as i32),
        }
    }

    /// The lanes of one vector that are neighbors: `dx*dx + dz*dz <= r2`
    /// (ordered, so NaN fails) and `id != exclude`, within `live`.
    #[inline(always)]
    unsafe fn test(&self, xv: V::F, zv: V::F, idv: V::I, live: V::M) -> V::M {
        let dx = V::sub(xv, self.cx);
        let dz = V::sub(zv, self.cz);
        let d2 = V::add(V::mul(dx, dx), V::mul(dz, dz));
        V::and(V::and(V::le(d2, self.r2), V::ne_i(idv, self.exclude)), live)
    }
}

/// Loads entry `i` onward of one range: a whole vector, or the first `rest`
/// lanes when `rest < N`. Returns the loaded vectors and the live mask.
#[inline(always)]
unsafe fn load<V: Lanes>(
    xp: *const f32,
    zp: *const f32,
    ip: *const u32,
    rest: usize,
) -> (V::F, V::F, V::I, V::M) {
    if rest >= V::N {
        (
            V::load_f(xp),
            V::load_f(zp),
            V::load_i(ip),
            V::first(V::N),
        )
    } else {
        (
            V::load_f_part(xp, rest),
            V::load_f_part(zp, rest),
            V::load_i_part(ip, rest),
            V::first(rest),
        )
    }
}

/// Total entries of `ranges`.
#[inline(always)]
fn total(ranges: &[(u32, u32)]) -> usize {
    ranges.iter().map(|&(a, b)| (b - a) as usize).sum()
}

/// The id-collecting kernel: appends the ids of the entries of `x[a..b]`,
/// `z[a..b]`, `ids[a..b]` (for every `(a, b)` in `ranges`, in order) within
/// `q` to `out`, in entry order (see [`super::Kernel::run_ranges`]).
///
/// # Safety
/// The CPU must support `V`'s instruction set, the three slices must have
/// equal lengths and every range must satisfy `a <= b <= len` (all checked
/// by `Kernel::run_ranges`).
#[inline(always)]
pub unsafe fn collect<V: Lanes>(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    ranges: &[(u32, u32)],
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    // Every step may store a whole vector: keep N slots of slack.
    out.reserve(total(ranges) + V::N);
    let start = out.len();
    let dst = out.as_mut_ptr().add(start);
    let c = Consts::<V>::of(q);
    let mut w = 0usize;
    for &(a, b) in ranges {
        let (a, n) = (a as usize, (b - a) as usize);
        let (xp, zp, ip) = (x.as_ptr().add(a), z.as_ptr().add(a), ids.as_ptr().add(a));
        let mut i = 0usize;
        while i < n {
            // SAFETY (whole step): a + n <= len (checked by the caller), so
            // lanes i..min(i + N, n) are in bounds and `load` reads no
            // further; the store writes N slots at dst + w with w <= (entries
            // tested so far) < total, inside the total + N reserved slots.
            let (xv, zv, idv, live) = load::<V>(xp.add(i), zp.add(i), ip.add(i), n - i);
            let keep = c.test(xv, zv, idv, live);
            w += V::compress_store(idv, keep, dst.add(w));
            i += V::N;
        }
    }
    // SAFETY: the first `w` slots after `start` hold the packed matching ids
    // (a later store only writes at or beyond its own cursor).
    out.set_len(start + w);
}

/// The fused kernel: tests the same entries as [`collect`] and, instead of
/// writing ids, returns the query's [`Near`] aggregates (count, enemies,
/// offset sums in fixed point), reading the team of each entry from `team`.
///
/// Offsets are summed per lane in wrapping i32 and moved into i64 totals
/// every `q.flush` vectors and at the end; [`FusedQuery::new`] picks `flush`
/// so that no lane can overflow in between, which makes the sums exact and
/// therefore independent of the order and grouping of the entries.
///
/// # Safety
/// As for [`collect`], plus `team.len() == x.len()`, and every entry within
/// the radius must have `|x| * 64 < 2^31` and `|z| * 64 < 2^31`
/// (`Kernel::run_fused` checks the lengths; the caller guarantees the
/// range, see [`super::FIXED_RANGE`]).
#[inline(always)]
pub unsafe fn fused<V: Lanes>(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    team: &[u32],
    ranges: &[(u32, u32)],
    q: &FusedQuery,
) -> Near {
    let c = Consts::<V>::of(&q.q);
    let scale = V::splat_f(super::FIXED_SCALE);
    let (fx, fz) = (V::splat_i(q.fx), V::splat_i(q.fz));
    let my_team = V::splat_i(q.team as i32);
    let zero = V::splat_i(0);
    let (mut ax, mut az) = (zero, zero);
    let mut near = Near::default();
    let mut steps = 0u32;
    for &(a, b) in ranges {
        let (a, n) = (a as usize, (b - a) as usize);
        let (xp, zp, ip) = (x.as_ptr().add(a), z.as_ptr().add(a), ids.as_ptr().add(a));
        let tp = team.as_ptr().add(a);
        let mut i = 0usize;
        while i < n {
            let rest = n - i;
            // SAFETY (whole step): as in `collect`; `team` has the same
            // length as `x`, so its lanes are in bounds too.
            let (xv, zv, idv, live) = load::<V>(xp.add(i), zp.add(i), ip.add(i), rest);
            let tv = if rest >= V::N {
                V::load_i(tp.add(i))
            } else {
                V::load_i_part(tp.add(i), rest)
            };
            let keep = c.test(xv, zv, idv, live);
            near.count += V::bits(keep).count_ones();
            near.enemies += V::bits(V::and(keep, V::ne_i(tv, my_team))).count_ones();
            // fixed(x_j) - fixed(x_i), added only in the neighbor lanes.
            let ox = V::sub_i(V::trunc_i(V::mul(xv, scale)), fx);
            let oz = V::sub_i(V::trunc_i(V::mul(zv, scale)), fz);
            ax = V::add_masked_i(ax, keep, ox);
            az = V::add_masked_i(az, keep, oz);
            steps += 1;
            if steps == q.flush {
                near.sx += V::sum_i64(ax);
                near.sz += V::sum_i64(az);
                (ax, az, steps) = (zero, zero, 0);
            }
            i += V::N;
        }
    }
    near.sx += V::sum_i64(ax);
    near.sz += V::sum_i64(az);
    near
}
