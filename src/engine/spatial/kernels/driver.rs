//! The kernels, written once over [`Lanes`]: the id-collecting span kernel
//! ([`collect`]) and the fused multi-query kernel ([`fused`]) that sums the
//! neighbor aggregates of a group of queries while testing, without writing
//! any id.
//!
//! Both walk each range in whole vectors of `V::N` entries and finish it with
//! one partial vector (masked or copied loads of the remaining entries), so
//! no scalar tail loop exists; with [`super::lanes::ScalarLanes`] (`N = 1`)
//! there is never a partial vector. Per lane they perform exactly the steps
//! of the distance test documented in [`super`].

use super::lanes::Lanes;
use super::{FusedQuery, KernelQuery, Near};

/// The per-query constants, splatted once per kernel call.
struct Consts<V: Lanes> {
    cx: V::F,
    cz: V::F,
    r2: V::F,
    exclude: V::I,
}

impl<V: Lanes> Clone for Consts<V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V: Lanes> Copy for Consts<V> {}

impl<V: Lanes> Consts<V> {
    #[inline(always)]
    unsafe fn of(q: &KernelQuery) -> Self {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            Consts {
                cx: V::splat_f(q.cx),
                cz: V::splat_f(q.cz),
                r2: V::splat_f(q.r2),
                exclude: V::splat_i(q.exclude as i32),
            }
        }
    }

    /// The lanes of one vector that are neighbors: `dx*dx + dz*dz <= r2`
    /// (ordered, so NaN fails) and `id != exclude`.
    #[inline(always)]
    unsafe fn test(&self, xv: V::F, zv: V::F, idv: V::I) -> V::M {
        // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
        // `Lanes` trait's) is the caller's: the target features are enabled and
        // every pointer is valid for the lanes it reads or writes.
        unsafe {
            let dx = V::sub(xv, self.cx);
            let dz = V::sub(zv, self.cz);
            let d2 = V::add(V::mul(dx, dx), V::mul(dz, dz));
            V::andnot(V::eq_i(idv, self.exclude), V::le(d2, self.r2))
        }
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
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe {
        if rest >= V::N {
            V::load_f(p.add(k))
        } else {
            V::load_f_part(p.add(k), rest)
        }
    }
}

/// [`load_f`] for an integer column.
#[inline(always)]
unsafe fn load_i<V: Lanes>(p: *const u32, k: usize, rest: usize) -> V::I {
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe {
        if rest >= V::N {
            V::load_i(p.add(k))
        } else {
            V::load_i_part(p.add(k), rest)
        }
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
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe {
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
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe {
        // Every step may store a whole vector: keep N slots of slack.
        out.reserve(total(ranges) + V::N);
        let start = out.len();
        let dst = out.as_mut_ptr().add(start);
        // code:begin collect-loop
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
        // code:end collect-loop
        // SAFETY: the first `w` slots after `start` hold the packed matching ids
        // (a later store only writes at or beyond its own cursor).
        out.set_len(start + w);
    }
}

/// The fused kernel for a group of queries that share their searched
/// entries (consecutive units of one cell have the same block): tests every
/// entry of `ranges` against every query of `qs` and writes query `g`'s
/// [`Near`] aggregates (count, enemies, offset sums in fixed point) to
/// `out[g]`, reading each entry's team from `team`. No id is written.
///
/// Register blocking the other way round from one call per query: the
/// group is taken in blocks of 4 queries and one last block of the 1 to
/// 3 left (`fused_block`; 7 queries make blocks of 4 and 3), whose
/// accumulators stay in registers while each vector of entries is loaded
/// and converted to fixed point once and tested against the block's
/// queries (the 4xM shape of GROMACS' cluster-pair kernels: Páll & Hess,
/// Comput. Phys. Commun. 2013). The loop over the ranges, whose trip counts
/// vary and defeat branch prediction, runs once per block instead of once
/// per query.
///
/// Offsets are summed per lane in wrapping i32 and moved into i64 totals
/// every `flush` vectors (the smallest `flush` of the block) and at the end;
/// [`FusedQuery::new`] picks `flush` so that no lane can overflow in between,
/// which makes the sums exact and therefore independent of the order and
/// grouping of the entries.
///
/// # Safety
/// As for [`collect`], plus `team.len() == x.len()`, `1 <= qs.len() <=
/// GROUP`, `out.len() == qs.len()`, and every entry within the radius of a
/// query must have `|x| * 64 < 2^31` and `|z| * 64 < 2^31`
/// (`Kernel::run_fused` checks the lengths; the caller guarantees the
/// range, see [`super::FIXED_RANGE`]).
#[inline(always)]
pub unsafe fn fused<V: Lanes>(
    x: &[f32],
    z: &[f32],
    ids: &[u32],
    team: &[u32],
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    out: &mut [Near],
) {
    // SAFETY: the caller's contract, passed on block by block (each block's
    // queries and outputs are a part of `qs` and `out`).
    unsafe {
        let cols = (x, z, ids, team);
        let mut i = 0;
        while i < qs.len() {
            let left = qs.len() - i;
            let q = if left >= 4 { 4 } else { left };
            let (qb, ob) = (&qs[i..i + q], &mut out[i..i + q]);
            match q {
                4 => block_of::<V, 4>(cols, ranges, qb, ob),
                3 => block_of::<V, 3>(cols, ranges, qb, ob),
                2 => block_of::<V, 2>(cols, ranges, qb, ob),
                _ => block_of::<V, 1>(cols, ranges, qb, ob),
            }
            i += q;
        }
    }
}

/// Runs [`fused_block`] for the `Q` queries `qs` in the form that fits
/// them: without the id test when no query excludes an id (`NO_EXCLUDE`,
/// e.g. a caller that subtracts a query's own match itself), with raw
/// position sums (`RAW`) when every query's `flush` is at least `V::N`
/// vectors, which holds for every radius below about 2 million world units
/// ([`FusedQuery::flush_for`]), and with the shared team-1 tally (`TWO`)
/// when, besides, every query is marked [`FusedQuery::two_teams`] and
/// `V` has more than one lane.
///
/// # Safety
/// As for [`fused`], with `qs.len() == out.len() == Q`.
#[inline(always)]
unsafe fn block_of<V: Lanes, const Q: usize>(
    cols: (&[f32], &[f32], &[u32], &[u32]),
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    out: &mut [Near],
) {
    let ids = qs.iter().any(|q| q.q.exclude != super::NO_EXCLUDE);
    let raw = qs.iter().all(|q| q.flush as usize >= V::N);
    // Not for one-lane (scalar) vectors: there the compiler turns the three
    // adds under the same `keep` into one branch on the neighbor test, which
    // mispredicts.
    let two = raw && V::N > 1 && qs.iter().all(|q| q.two_teams);
    // SAFETY: the caller's contract, unchanged.
    unsafe {
        match (ids, raw, two) {
            (true, true, true) => fused_block::<V, Q, true, true, true>(cols, ranges, qs, out),
            (true, true, false) => fused_block::<V, Q, true, true, false>(cols, ranges, qs, out),
            (true, false, _) => fused_block::<V, Q, true, false, false>(cols, ranges, qs, out),
            (false, true, true) => fused_block::<V, Q, false, true, true>(cols, ranges, qs, out),
            (false, true, false) => fused_block::<V, Q, false, true, false>(cols, ranges, qs, out),
            (false, false, _) => fused_block::<V, Q, false, false, false>(cols, ranges, qs, out),
        }
    }
}

/// One block of [`fused`]: exactly `Q` queries (`qs.len() == out.len() ==
/// Q`), their constants splatted once and their accumulators in registers
/// (the loops over `0..Q` have a constant trip count and unroll). With
/// `IDS` false the entries' ids are neither loaded nor tested (every query's
/// `exclude` is [`super::NO_EXCLUDE`], which no entry can match).
///
/// With `RAW` the offset lanes sum the entries' own fixed-point positions,
/// not their offsets from the query, which saves two subtractions per
/// query and vector; [`drain_block`] then takes `count * fixed(center)`
/// off the lanes' total. The lanes wrap, but every sum is exact modulo 2^32,
/// and the true total of one drain fits an i32 when the drains come every
/// `flush / N` vectors (at most `N * (flush / N)` neighbors, each offset
/// within the per-neighbor bound of [`FusedQuery::flush_for`]), so the
/// wrapped total is the true one. Requires every `flush >= N`.
///
/// With `TWO` (requires `RAW`; every query and entry on team 0 or 1) the
/// enemy half of the packed tally counts team-1 neighbors, one increment
/// vector (`1 + 65536 * [team == 1]`) per vector of entries shared by the
/// block's queries, and [`drain_block`] turns it into each query's enemies:
/// one masked add per query and vector instead of a count, a team compare,
/// an and-not and a masked add.
///
/// # Safety
/// As for [`fused`].
#[inline(always)]
unsafe fn fused_block<
    V: Lanes,
    const Q: usize,
    const IDS: bool,
    const RAW: bool,
    const TWO: bool,
>(
    (x, z, ids, team): (&[f32], &[f32], &[u32], &[u32]),
    ranges: &[(u32, u32)],
    qs: &[FusedQuery],
    out: &mut [Near],
) {
    // SAFETY: this unsafe fn's contract (its `# Safety` section, or the
    // `Lanes` trait's) is the caller's: the target features are enabled and
    // every pointer is valid for the lanes it reads or writes.
    unsafe {
        let qs: &[FusedQuery; Q] = qs.try_into().expect("Q queries");
        let scale = V::splat_f(super::FIXED_SCALE);
        // The squared radius is the same for the whole group: one register.
        let r2 = V::splat_f(qs[0].q.r2);
        // Counts share one lane (count + 65536 * enemies): see `tally_steps`.
        let flush = qs
            .iter()
            .map(|q| q.flush)
            .min()
            .unwrap_or(1)
            .min(tally_steps::<V>());
        let flush = if RAW {
            (flush / V::N as u32).max(1)
        } else {
            flush
        };
        let cx: [V::F; Q] = std::array::from_fn(|j| V::splat_f(qs[j].q.cx));
        let cz: [V::F; Q] = std::array::from_fn(|j| V::splat_f(qs[j].q.cz));
        let ex: [V::I; Q] = std::array::from_fn(|j| V::splat_i(qs[j].q.exclude as i32));
        let tq: [V::I; Q] = std::array::from_fn(|j| V::splat_i(qs[j].team as i32));
        let fx: [V::I; Q] = std::array::from_fn(|j| V::splat_i(qs[j].fx));
        let fz: [V::I; Q] = std::array::from_fn(|j| V::splat_i(qs[j].fz));
        let zero = V::splat_i(0);
        let (mut tally, mut sx, mut sz) = ([zero; Q], [zero; Q], [zero; Q]);
        let mut near = [Near::default(); Q];
        let mut steps = 0u32;
        let (xp, zp, ip, tp) = (x.as_ptr(), z.as_ptr(), ids.as_ptr(), team.as_ptr());
        let enemy = V::splat_i(1 << 16);
        let one = V::splat_i(1);
        // code:begin fused-loop
        // SAFETY (whole walk): as in `collect`; `team` has the same length as
        // `x`, so its lanes are in bounds too.
        for_vectors!(V, ranges, |k, rest| {
            let (xv, zv) = (load_f::<V>(xp, k, rest), load_f::<V>(zp, k, rest));
            let idv = if IDS { load_i::<V>(ip, k, rest) } else { zero };
            let tv = load_i::<V>(tp, k, rest);
            // TWO: +1 in every neighbor lane, +65536 more where it is on team 1.
            let inc = if TWO {
                V::add_masked_i(one, V::eq_i(tv, one), enemy)
            } else {
                zero
            };
            let (fxv, fzv) = (V::trunc_i(V::mul(xv, scale)), V::trunc_i(V::mul(zv, scale)));
            let live = if rest >= V::N {
                None
            } else {
                Some(V::first(rest))
            };
            for j in 0..Q {
                let dx = V::sub(xv, cx[j]);
                let dz = V::sub(zv, cz[j]);
                let d2 = V::add(V::mul(dx, dx), V::mul(dz, dz));
                let keep = V::le(d2, r2);
                let keep = if IDS {
                    V::andnot(V::eq_i(idv, ex[j]), keep)
                } else {
                    keep
                };
                let keep = match live {
                    None => keep,
                    Some(m) => V::and(keep, m),
                };
                if TWO {
                    tally[j] = V::add_masked_i(tally[j], keep, inc);
                } else {
                    let foe = V::andnot(V::eq_i(tv, tq[j]), keep);
                    // +1 in the neighbor lanes (low half), +65536 in the enemy lanes.
                    tally[j] = V::add_masked_i(V::count(tally[j], keep), foe, enemy);
                }
                // fixed(x_j) - fixed(x_i) (RAW: fixed(x_j) alone), added
                // only in the neighbor lanes.
                if RAW {
                    sx[j] = V::add_masked_i(sx[j], keep, fxv);
                    sz[j] = V::add_masked_i(sz[j], keep, fzv);
                } else {
                    sx[j] = V::add_masked_i(sx[j], keep, V::sub_i(fxv, fx[j]));
                    sz[j] = V::add_masked_i(sz[j], keep, V::sub_i(fzv, fz[j]));
                }
            }
            steps += 1;
            if steps == flush {
                drain_block::<V, Q, RAW, TWO>(&mut near, &mut tally, &mut sx, &mut sz, qs);
                steps = 0;
            }
        });
        // code:end fused-loop
        drain_block::<V, Q, RAW, TWO>(&mut near, &mut tally, &mut sx, &mut sz, qs);
        out.copy_from_slice(&near);
    }
}

/// [`drain`] for every query of a block: with `RAW`, the block's lane
/// sums go through [`Lanes::sums4_i32`] four vectors at a time (a
/// transpose-and-add instead of one reduction per vector).
/// Modulo 2^32 sums suffice there: a drain's packed tally totals fewer
/// than 65,536 neighbors plus 65,536 times as many enemies, below 2^32,
/// and its offsets fit an i32 (see [`fused_block`]). With `TWO` the
/// upper half counts team-1 neighbors (no more than the neighbors, so the
/// same bound holds), which become each query's enemies by its team.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
unsafe fn drain_block<V: Lanes, const Q: usize, const RAW: bool, const TWO: bool>(
    near: &mut [Near; Q],
    tally: &mut [V::I; Q],
    sx: &mut [V::I; Q],
    sz: &mut [V::I; Q],
    qs: &[FusedQuery; Q],
) {
    // SAFETY: the caller's contract (the target features are enabled).
    unsafe {
        if !RAW {
            for j in 0..Q {
                drain::<V>(&mut near[j], &mut tally[j], &mut sx[j], &mut sz[j]);
            }
            return;
        }
        // The block's 3 * Q accumulators in order (tallies, then x, then z
        // offsets), zero-padded to whole fours: one transpose-and-add per
        // four (3 for a block of 4 queries, 2 for 2, 1 for 1).
        let zero = V::splat_i(0);
        let all: [V::I; 12] = std::array::from_fn(|k| match (k / Q, k % Q) {
            (0, j) => tally[j],
            (1, j) => sx[j],
            (2, j) => sz[j],
            _ => zero,
        });
        let mut sums = [0i32; 12];
        for g in 0..(3 * Q).div_ceil(4) {
            let four: [V::I; 4] = std::array::from_fn(|i| all[4 * g + i]);
            sums[4 * g..4 * g + 4].copy_from_slice(&V::sums4_i32(four));
        }
        (*tally, *sx, *sz) = ([zero; Q], [zero; Q], [zero; Q]);
        for j in 0..Q {
            let both = sums[j] as u32;
            let count = both & 0xFFFF;
            near[j].count += count;
            let marked = both >> 16;
            near[j].enemies += match (TWO, qs[j].team) {
                // Team-1 neighbors: the enemies of a team-0 query, the
                // friends of a team-1 query.
                (true, 0) => marked,
                (true, _) => count - marked,
                (false, _) => marked,
            };
            near[j].sx += offset_total(sums[Q + j], count, qs[j].fx);
            near[j].sz += offset_total(sums[2 * Q + j], count, qs[j].fz);
        }
    }
}

/// The offsets' total of a raw drain: the neighbors' positions summed
/// modulo 2^32 (`sum`), less `count` times the query's position `at`,
/// taken as an i32 (exact when the true total fits one: [`fused_block`]).
#[inline(always)]
fn offset_total(sum: i32, count: u32, at: i32) -> i64 {
    sum.wrapping_sub((count as i32).wrapping_mul(at)) as i64
}

/// Moves one query's lane sums (`tally` = neighbors + 65536 * enemies per
/// lane, offsets `sx`, `sz`) into its totals `near` and zeroes them (the
/// drain of a block without raw sums, [`drain_block`]).
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[inline(always)]
unsafe fn drain<V: Lanes>(near: &mut Near, tally: &mut V::I, sx: &mut V::I, sz: &mut V::I) {
    // SAFETY: the caller's contract (the target features are enabled).
    unsafe {
        let zero = V::splat_i(0);
        // One sum for both halves: the lanes' neighbors together number at
        // most `N * flush` < 65,536 (`tally_steps`), so the low 16 bits of
        // the sum never carry into the enemies above them, and every lane
        // stays below 2^31 (its enemies, at most `flush` <= 32,767, times
        // 65,536, plus its count), so the sign-extending sum is exact.
        let both = V::sum_i64(*tally) as u64;
        near.count += (both & 0xFFFF) as u32;
        near.enemies += (both >> 16) as u32;
        near.sx += V::sum_i64(*sx);
        near.sz += V::sum_i64(*sz);
        (*tally, *sx, *sz) = (zero, zero, zero);
    }
}

/// The most vectors between two drains of a packed tally lane (neighbors +
/// 65536 * enemies): fewer than 65,536 neighbors over all `N` lanes
/// together, and at most 32,767 per lane so that no lane reaches 2^31
/// ([`drain`] sums the lanes in one go).
#[inline(always)]
fn tally_steps<V: Lanes>() -> u32 {
    ((u16::MAX as usize / V::N) as u32).min(i16::MAX as u32)
}

/// Most queries of one [`fused`] call.
pub const GROUP: usize = 8;

#[cfg(test)]
mod tests {
    use super::super::{scalar, FusedQuery, Kernel, KernelQuery, Near, NO_EXCLUDE};

    /// A crowd far denser than any workload: 150,001 entries within the
    /// radius of every query, so each kernel drains its lane sums many
    /// times in one call (every `tally_steps` vectors, every lane a
    /// neighbor, half of them enemies). Every kernel of this CPU must give
    /// the exact per-entry sums, with and without an excluded id.
    #[test]
    fn long_calls_drain_exactly() {
        let n = 150_001usize;
        let x: Vec<f32> = (0..n).map(|i| 100.0 + (i % 97) as f32 * 0.01).collect();
        let z: Vec<f32> = (0..n).map(|i| 50.0 - (i % 89) as f32 * 0.01).collect();
        let ids: Vec<u32> = (0..n as u32).collect();
        let team: Vec<u32> = (0..n as u32).map(|i| i % 2).collect();
        let ranges = [(0u32, 70_000u32), (70_000, n as u32)];
        let qs: Vec<FusedQuery> = [(7usize, true), (8, false), (123_456, true)]
            .iter()
            .map(|&(s, exclude)| {
                let q = KernelQuery {
                    cx: x[s],
                    cz: z[s],
                    r2: 100.0,
                    exclude: if exclude { s as u32 } else { NO_EXCLUDE },
                };
                FusedQuery::new(q, team[s] as u8)
            })
            .collect();
        let want: Vec<Near> = qs
            .iter()
            .map(|q| scalar::run_fused_exact((&x, &z, &ids, &team), &ranges, q))
            .collect();
        assert_eq!(want[0].count, n as u32 - 1);
        assert_eq!(want[1].count, n as u32);
        assert_eq!(want[0].enemies, 75_001, "query 7 is on team 1");
        // Two teams: also with the shared team-1 tally.
        let marked: Vec<FusedQuery> = qs.iter().map(|q| q.among_two_teams()).collect();
        for k in Kernel::available() {
            for qs in [&qs, &marked] {
                let mut got = vec![Near::default(); qs.len()];
                k.run_fused((&x, &z, &ids, &team), &ranges, qs, &mut got, true);
                assert_eq!(got, want, "{k}, two teams marked {}", qs[0].two_teams);
            }
        }
    }

    /// Every kernel's aggregates for the queries at `centers` (seven; the
    /// first seven, six and five of them make blocks of 4 and 3, 4 and 2,
    /// and 4 and 1 queries) over all the entries, against the
    /// exact reference, with and without an excluded id; where every team
    /// is 0 or 1, also with every query, and with every other query,
    /// marked [`FusedQuery::two_teams`] (a block with an unmarked query
    /// takes the general tally).
    fn all_kernels_match(cols: (&[f32], &[f32], &[u32], &[u32]), centers: &[usize], r2: f32) {
        let (x, z, ids, team) = cols;
        let ranges = [(0u32, x.len() as u32)];
        let binary = team.iter().all(|&t| t <= 1);
        let marks: &[fn(usize) -> bool] = if binary {
            &[|_| false, |_| true, |j| j % 2 == 0]
        } else {
            &[|_| false]
        };
        for (exclude, mark) in [true, false]
            .into_iter()
            .flat_map(|e| marks.iter().map(move |m| (e, m)))
        {
            let qs: Vec<FusedQuery> = centers
                .iter()
                .enumerate()
                .map(|(j, &s)| {
                    let q = KernelQuery {
                        cx: x[s],
                        cz: z[s],
                        r2,
                        exclude: if exclude { ids[s] } else { NO_EXCLUDE },
                    };
                    let q = FusedQuery::new(q, team[s] as u8);
                    if mark(j) {
                        q.among_two_teams()
                    } else {
                        q
                    }
                })
                .collect();
            let want: Vec<Near> = qs
                .iter()
                .map(|q| scalar::run_fused_exact(cols, &ranges, q))
                .collect();
            let n = qs.len();
            for (k, m) in Kernel::available()
                .flat_map(|k| [n, n.saturating_sub(1), n.saturating_sub(2)].map(|m| (k, m)))
            {
                let mut got = vec![Near::default(); m];
                k.run_fused(cols, &ranges, &qs[..m], &mut got, true);
                let marked: Vec<bool> = qs[..m].iter().map(|q| q.two_teams).collect();
                assert_eq!(
                    got,
                    want[..m],
                    "{k}, {m} queries, exclude {exclude}, r2 {r2}, marked {marked:?}"
                );
            }
        }
    }

    /// Positions near the edge of the fixed-point range (`fixed` about
    /// 2^30): a few neighbors' fixed positions already overflow an i32, so
    /// a kernel that sums raw positions must wrap and still find the exact
    /// offsets. 20,001 entries, every one within the radius of every query.
    #[test]
    fn positions_near_the_fixed_range_sum_exactly() {
        let n = 20_001usize;
        let x: Vec<f32> = (0..n).map(|i| 16_000_000.0 + (i % 7) as f32).collect();
        let z: Vec<f32> = (0..n).map(|i| -16_000_000.0 + (i % 5) as f32).collect();
        let ids: Vec<u32> = (0..n as u32).collect();
        let team: Vec<u32> = (0..n as u32).map(|i| i % 3 % 2).collect();
        let want = scalar::run_fused_exact(
            (&x, &z, &ids, &team),
            &[(0, n as u32)],
            &FusedQuery::new(
                KernelQuery {
                    cx: x[0],
                    cz: z[0],
                    r2: 100.0,
                    exclude: NO_EXCLUDE,
                },
                0,
            ),
        );
        assert_eq!(want.count, n as u32, "every entry is a neighbor");
        assert!(want.sx > 0 && want.sz > 0, "{want:?}");
        let centers = [0, 1, 2, 3, 4, 5, 19_999];
        all_kernels_match((&x, &z, &ids, &team), &centers, 100.0);
    }

    /// Radii so large that a drain interval of whole vectors is short (4
    /// million world units: `flush_for` gives 8 vectors, fewer than the 16
    /// lanes of AVX-512 and exactly the 8 of AVX2), on positions spread over
    /// millions of units: both ways of summing the offsets stay exact.
    #[test]
    fn huge_radii_sum_exactly() {
        let r2 = 4.0e6f32 * 4.0e6;
        assert_eq!(FusedQuery::flush_for(r2), 8);
        let n = 5_003usize;
        let x: Vec<f32> = (0..n)
            .map(|i| 10_000_000.0 + (i * 7919 % 1000) as f32 * 3000.0)
            .collect();
        let z: Vec<f32> = (0..n)
            .map(|i| -9_000_000.0 + (i * 104_729 % 997) as f32 * 3100.0)
            .collect();
        let ids: Vec<u32> = (0..n as u32).collect();
        let team: Vec<u32> = (0..n as u32).map(|i| i % 2).collect();
        let centers = [0, 17, 999, 2500, 3333, 4000, 5002];
        let cols = (&x[..], &z[..], &ids[..], &team[..]);
        let q = KernelQuery {
            cx: x[0],
            cz: z[0],
            r2,
            exclude: NO_EXCLUDE,
        };
        let some = scalar::run_fused_exact(cols, &[(0, n as u32)], &FusedQuery::new(q, 0));
        assert!(some.count > 0 && some.count < n as u32, "{some:?}");
        all_kernels_match(cols, &centers, r2);
    }

    /// Three teams: the general tally counts every other team as enemies,
    /// and a team-2 query cannot be marked as one of two teams.
    #[test]
    fn three_teams_count_every_other_team() {
        let n = 3_001usize;
        let x: Vec<f32> = (0..n).map(|i| (i * 37 % 101) as f32 * 0.1).collect();
        let z: Vec<f32> = (0..n).map(|i| (i * 53 % 103) as f32 * 0.1).collect();
        let ids: Vec<u32> = (0..n as u32).collect();
        let team: Vec<u32> = (0..n as u32).map(|i| i % 3).collect();
        let cols = (&x[..], &z[..], &ids[..], &team[..]);
        let q = KernelQuery {
            cx: x[2],
            cz: z[2],
            r2: 9.0,
            exclude: NO_EXCLUDE,
        };
        let two = FusedQuery::new(q, 2);
        assert!(!two.among_two_teams().two_teams, "team 2 is not one of two");
        let near = scalar::run_fused_exact(cols, &[(0, n as u32)], &two);
        let friends = (0..n)
            .filter(|&i| team[i] == 2 && (x[i] - q.cx).powi(2) + (z[i] - q.cz).powi(2) <= 9.0)
            .count() as u32;
        assert!(friends > 0 && near.count > 2 * friends, "{near:?}");
        assert_eq!(near.enemies, near.count - friends);
        all_kernels_match(cols, &[2, 5, 8, 100, 1_000, 2_999, 3_000], 9.0);
    }
}
