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
    /// (ordered, so NaN fails) and `id != exclude`.
    #[inline(always)]
    unsafe fn test(&self, xv: V::F, zv: V::F, idv: V::I) -> V::M {
        let dx = V::sub(xv, self.cx);
        let dz = V::sub(zv, self.cz);
        let d2 = V::add(V::mul(dx, dx), V::mul(dz, dz));
        V::andnot(V::eq_i(idv, self.exclude), V::le(d2, self.r2))
    }
}

/// Walks the entries of every range of `$ranges` in vectors of `$v::N`:
/// runs `$step` with `$k` = the first entry and `$rest = N` for each whole
/// vector, then with `$rest` = the last `rest < N` entries of a range. A
/// macro rather than a closure: a closure would be compiled without the
/// caller's `#[target_feature]`s and called, not inlined, in the hot loop.
macro_rules! for_vectors {
    ($v:ty, $ranges:expr, |$k:ident, $rest:ident| $step:block) => {
        for &(a, b) in $ranges {
            let (mut $k, b) = (a as usize, b as usize);
            while $k + <$v>::N <= b {
                let $rest = <$v>::N;
                $step
                $k += <$v>::N;
            }
            if $k < b {
                let $rest = b - $k;
                $step
            }
        }
    };
}

/// Loads entries `k..k + N` of a column, or only the first `rest` of them
/// (the rest 0) when `rest < N`.
#[inline(always)]
unsafe fn load_f<V: Lanes>(p: *const f32, k: usize, rest: usize) -> V::F {
    if rest >= V::N {
        V::load_f(p.add(k))
    } else {
        V::load_f_part(p.add(k), rest)
    }
}

/// [`load_f`] for an integer column.
#[inline(always)]
unsafe fn load_i<V: Lanes>(p: *const u32, k: usize, rest: usize) -> V::I {
    if rest >= V::N {
        V::load_i(p.add(k))
    } else {
        V::load_i_part(p.add(k), rest)
    }
}

/// The neighbor lanes of the vector at `k` with `rest` live entries.
#[inline(always)]
unsafe fn test_at<V: Lanes>(
    c: &Consts<V>,
    (xp, zp, ip): (*const f32, *const f32, *const u32),
    k: usize,
    rest: usize,
) -> (V::F, V::F, V::I, V::M) {
    let (xv, zv, idv) = (
        load_f::<V>(xp, k, rest),
        load_f::<V>(zp, k, rest),
        load_i::<V>(ip, k, rest),
    );
    let keep = c.test(xv, zv, idv);
    let keep = if rest >= V::N {
        keep
    } else {
        V::and(keep, V::first(rest))
    };
    (xv, zv, idv, keep)
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
    let (xp, zp, ip) = (x.as_ptr(), z.as_ptr(), ids.as_ptr());
    let mut w = 0usize;
    // SAFETY (both steps): every range satisfies a <= b <= len (checked by
    // the caller), so a whole vector at k (k + N <= b) and the first `rest`
    // entries at k (k + rest = b) are in bounds, and a partial load reads no
    // further. Each store writes N slots at dst + w with w <= (entries
    // tested so far) < total, inside the total + N reserved slots.
    for_vectors!(V, ranges, |k, rest| {
        let (_, _, idv, keep) = test_at(&c, (xp, zp, ip), k, rest);
        w += V::compress_store(idv, keep, dst.add(w));
    });
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
    let mut acc = Acc::<V>::new(q);
    let (xp, zp, ip, tp) = (x.as_ptr(), z.as_ptr(), ids.as_ptr(), team.as_ptr());
    // SAFETY (both steps): as in `collect`; `team` has the same length as
    // `x`, so its lanes are in bounds too.
    for_vectors!(V, ranges, |k, rest| {
        let (xv, zv, _, keep) = test_at(&acc.c, (xp, zp, ip), k, rest);
        acc.add(xv, zv, load_i::<V>(tp, k, rest), keep);
    });
    acc.finish()
}

/// The running aggregates of one fused query: per-lane counts and offset
/// sums, moved into the i64 totals of `near` every `flush` vectors.
struct Acc<V: Lanes> {
    c: Consts<V>,
    scale: V::F,
    fx: V::I,
    fz: V::I,
    team: V::I,
    zero: V::I,
    count: V::I,
    enemies: V::I,
    sx: V::I,
    sz: V::I,
    steps: u32,
    flush: u32,
    near: Near,
}

impl<V: Lanes> Acc<V> {
    #[inline(always)]
    unsafe fn new(q: &FusedQuery) -> Self {
        let zero = V::splat_i(0);
        Acc {
            c: Consts::of(&q.q),
            scale: V::splat_f(super::FIXED_SCALE),
            fx: V::splat_i(q.fx),
            fz: V::splat_i(q.fz),
            team: V::splat_i(q.team as i32),
            zero,
            count: zero,
            enemies: zero,
            sx: zero,
            sz: zero,
            steps: 0,
            flush: q.flush,
            near: Near::default(),
        }
    }

    /// Adds the lanes of `keep` (neighbors at `xv`, `zv` of teams `tv`).
    #[inline(always)]
    unsafe fn add(&mut self, xv: V::F, zv: V::F, tv: V::I, keep: V::M) {
        self.count = V::count(self.count, keep);
        self.enemies = V::count(self.enemies, V::andnot(V::eq_i(tv, self.team), keep));
        // fixed(x_j) - fixed(x_i), added only in the neighbor lanes.
        let ox = V::sub_i(V::trunc_i(V::mul(xv, self.scale)), self.fx);
        let oz = V::sub_i(V::trunc_i(V::mul(zv, self.scale)), self.fz);
        self.sx = V::add_masked_i(self.sx, keep, ox);
        self.sz = V::add_masked_i(self.sz, keep, oz);
        self.steps += 1;
        if self.steps == self.flush {
            self.drain();
        }
    }

    /// Moves the lane sums into the totals.
    #[inline(always)]
    unsafe fn drain(&mut self) {
        self.near.count += V::sum_i64(self.count) as u32;
        self.near.enemies += V::sum_i64(self.enemies) as u32;
        self.near.sx += V::sum_i64(self.sx);
        self.near.sz += V::sum_i64(self.sz);
        (self.count, self.enemies, self.sx, self.sz) = (self.zero, self.zero, self.zero, self.zero);
        self.steps = 0;
    }

    #[inline(always)]
    unsafe fn finish(mut self) -> Near {
        self.drain();
        self.near
    }
}
