//! The equivalence harness shared by `tests/spatial/spatial_equivalence.rs` and
//! `tests/spatial/spatial_extremes.rs`: the definition of a neighbor written
//! independently of the engine (`brute`), and checks that run every
//! strategy x every available kernel x thread counts against it.

use rand::rngs::StdRng;
use rand::Rng;
use spatial_query_lab::engine::spatial::{
    query_all, Kernel, Points, Query, QueryResults, Strategy, NO_EXCLUDE,
};

use super::*;

/// Thread counts of the per-unit pass.
pub const THREADS: [usize; 3] = [1, 2, 3];

/// Sentinel put in front of every output buffer: queries must append, never clear.
pub const SENTINEL: u32 = 0xDEAD_BEEF;

// ---------------------------------------------------------------- helpers

/// The definition, written independently of the engine: ids of the units with
/// finite positions and `dx*dx + dz*dz <= r*r`, `id != exclude` (with `r*r`
/// clamped to `f32::MAX` for a huge or infinite radius); nothing for a
/// non-finite center or a NaN or negative radius.
pub fn brute(x: &[f32], z: &[f32], q: &Query) -> Vec<u32> {
    let r2 = (q.r * q.r).min(f32::MAX);
    if !(q.cx.is_finite() && q.cz.is_finite() && q.r >= 0.0) {
        return Vec::new();
    }
    (0..x.len())
        .filter(|&i| {
            let (dx, dz) = (x[i] - q.cx, z[i] - q.cz);
            x[i].is_finite() && z[i].is_finite() && i as u32 != q.exclude && dx * dx + dz * dz <= r2
        })
        .map(|i| i as u32)
        .collect()
}

/// Describes how two sorted id lists differ (missing and extra ids with their
/// positions), for assertion messages.
pub fn diff(got: &[u32], want: &[u32], x: &[f32], z: &[f32]) -> String {
    let show = |ids: Vec<u32>| -> String {
        let n = ids.len();
        let mut s: Vec<String> = ids
            .into_iter()
            .take(12)
            .map(|i| {
                let p = (x.get(i as usize).copied(), z.get(i as usize).copied());
                format!("{i}@{p:?}")
            })
            .collect();
        if n > 12 {
            s.push(format!("... ({n} in all)"));
        }
        s.join(", ")
    };
    let missing: Vec<u32> = want
        .iter()
        .filter(|i| got.binary_search(i).is_err())
        .copied()
        .collect();
    let extra: Vec<u32> = got
        .iter()
        .filter(|i| want.binary_search(i).is_err())
        .copied()
        .collect();
    let dup = got.windows(2).any(|w| w[0] == w[1]);
    format!(
        "got {} ids, want {}; missing [{}]; extra [{}]; duplicates: {dup}",
        got.len(),
        want.len(),
        show(missing),
        show(extra)
    )
}

/// Rebuilds every strategy over `(x, z)` with `cell` and runs every query with
/// every available kernel; asserts that each sorted result equals the Naive +
/// Scalar reference, that the reference equals [`brute`], that the returned
/// counters match and that queries append to (never clear) the output.
/// Returns the reference results (sorted ids), one per query.
pub fn check_all(x: &[f32], z: &[f32], queries: &[Query], cell: f32) -> Vec<Vec<u32>> {
    check_all_with(&quiet_kernels(), x, z, queries, cell)
}

pub fn check_all_with(
    ks: &[Kernel],
    x: &[f32],
    z: &[f32],
    queries: &[Query],
    cell: f32,
) -> Vec<Vec<u32>> {
    let points = Points::new(x, z);
    let n = x.len();
    let mut naive = Strategy::Naive.create();
    naive.rebuild(points, cell);
    let reference: Vec<Vec<u32>> = queries
        .iter()
        .map(|q| {
            let mut v = Vec::new();
            naive.query(points, q, Kernel::Scalar, &mut v);
            v.sort_unstable();
            v
        })
        .collect();
    for (q, want) in queries.iter().zip(&reference) {
        let def = brute(x, z, q);
        assert!(
            *want == def,
            "reference Naive/Scalar disagrees with d^2 <= r^2: query {q:?}, cell {cell}, n {n}: {}",
            diff(want, &def, x, z)
        );
    }
    for s in Strategy::ALL {
        let mut index = s.create();
        index.rebuild(points, cell);
        for &k in ks {
            for (q, want) in queries.iter().zip(&reference) {
                let mut out = vec![SENTINEL];
                let stats = index.query(points, q, k, &mut out);
                assert_eq!(
                    out[0], SENTINEL,
                    "{s}/{k} cleared or overwrote the output buffer: query {q:?}, cell {cell}"
                );
                let mut got = out.split_off(1);
                assert_eq!(
                    stats.neighbors as usize,
                    got.len(),
                    "{s}/{k}: QueryStats::neighbors differs from the ids appended: query {q:?}, cell {cell}, n {n}"
                );
                assert!(
                    stats.candidates >= stats.neighbors,
                    "{s}/{k}: fewer candidates than neighbors ({stats:?}): query {q:?}, cell {cell}"
                );
                got.sort_unstable();
                assert!(
                    got == *want,
                    "strategy {s}, kernel {k}, query {q:?}, cell {cell}, n {n}: {}",
                    diff(&got, want, x, z)
                );
            }
        }
    }
    reference
}

/// Runs the per-unit pass (`query_all`, radius `r`) for every strategy x
/// available kernel x thread count in [`THREADS`] and asserts that every unit's
/// sorted list and the total neighbor count equal the Naive + Scalar +
/// 1-thread reference, which itself must equal [`brute`] with self excluded.
/// Returns the reference lists (sorted).
pub fn check_per_unit(x: &[f32], z: &[f32], r: f32, cell: f32) -> Vec<Vec<u32>> {
    check_per_unit_with(&quiet_kernels(), x, z, r, cell)
}

pub fn check_per_unit_with(
    ks: &[Kernel],
    x: &[f32],
    z: &[f32],
    r: f32,
    cell: f32,
) -> Vec<Vec<u32>> {
    let points = Points::new(x, z);
    let n = x.len();
    let mut results = QueryResults::default();
    let mut naive = Strategy::Naive.create();
    naive.rebuild(points, cell);
    let ref_stats = query_all(naive.as_ref(), points, r, Kernel::Scalar, &mut results);
    let reference: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            let mut v = results.neighbors(i).to_vec();
            v.sort_unstable();
            v
        })
        .collect();
    let total: usize = reference.iter().map(Vec::len).sum();
    assert_eq!(
        ref_stats.neighbors as usize, total,
        "reference stats disagree with its lists"
    );
    for (i, want) in reference.iter().enumerate() {
        let q = Query {
            cx: x[i],
            cz: z[i],
            r,
            exclude: i as u32,
        };
        let def = brute(x, z, &q);
        assert!(
            *want == def,
            "reference per-unit list of unit {i} at ({}, {}) disagrees with d^2 <= r^2 (self excluded), r {r}, cell {cell}: {}",
            x[i],
            z[i],
            diff(want, &def, x, z)
        );
    }
    check_fused(ks, x, z, r, cell, &reference);
    for s in Strategy::ALL {
        let mut index = s.create();
        index.rebuild(points, cell);
        for &k in ks {
            for t in THREADS {
                // One QueryResults reused across configurations: stale lists
                // from the previous run must never leak into this one.
                let stats = run_in(t, || query_all(index.as_ref(), points, r, k, &mut results));
                assert_eq!(
                    stats.neighbors as usize, total,
                    "{s}/{k}/{t} threads: total neighbor count, r {r}, cell {cell}, n {n}"
                );
                let mut listed = 0usize;
                for (i, want) in reference.iter().enumerate() {
                    let mut got = results.neighbors(i).to_vec();
                    listed += got.len();
                    got.sort_unstable();
                    assert!(
                        got == *want,
                        "strategy {s}, kernel {k}, {t} threads: unit {i} at ({}, {}), r {r}, cell {cell}, n {n}: {}",
                        x[i],
                        z[i],
                        diff(&got, want, x, z)
                    );
                }
                assert_eq!(
                    listed, total,
                    "{s}/{k}/{t} threads: ids listed, r {r}, cell {cell}"
                );
            }
        }
    }
    reference
}

/// The team of unit `i` in the fused checks: a mix of both teams that is
/// not periodic with any small cell layout.
pub fn team_of(i: usize) -> u8 {
    ((i * 7919) % 5 < 2) as u8
}

/// The fused pass of the CSR grid (every kernel in `ks` x thread count in
/// [`THREADS`]) must give every unit exactly the aggregates of its reference
/// list summed by `Near::add`: count, enemies and the fixed-point offset
/// sums, bit for bit — from a copy of the positions, with the units
/// resident (the counting sort), and at the next resident rebuild after
/// reversing the units in memory (the merge of `sorted_grid/incremental.rs`,
/// nearly every unit a mover).
pub fn check_fused(ks: &[Kernel], x: &[f32], z: &[f32], r: f32, cell: f32, reference: &[Vec<u32>]) {
    use spatial_query_lab::engine::spatial::results::NearResults;
    use spatial_query_lab::engine::spatial::{Near, SortedGrid, SpatialIndex};
    let n = x.len();
    let points = Points::new(x, z);
    let teams: Vec<u8> = (0..n).map(team_of).collect();
    let want: Vec<Near> = reference
        .iter()
        .enumerate()
        .map(|(i, list)| {
            let mut a = Near::default();
            for &j in list {
                let j = j as usize;
                a.add((x[i], z[i], teams[i]), (x[j], z[j], teams[j]));
            }
            a
        })
        .collect();
    let total: u64 = want.iter().map(|a| a.count as u64).sum();
    let mut res = NearResults::default();
    for &k in ks {
        for t in THREADS {
            {
                let stencil = "full";
                let mut grid = SortedGrid::default();
                let stats = run_in(t, || {
                    grid.rebuild_tagged(points, Some(&teams), cell);
                    grid.near_all(points, r, k, &mut res)
                });
                assert_eq!(
                    stats.neighbors, total,
                    "fused {k}/{t} threads, {stencil} stencil: total, r {r}, cell {cell}, n {n}"
                );
                for (i, (got, want)) in res.near.iter().zip(&want).enumerate() {
                    assert_eq!(
                        got, want,
                        "fused {k}/{t} threads, {stencil} stencil: unit {i} at ({}, {}), r {r}, cell {cell}, n {n}",
                        x[i], z[i]
                    );
                }
                // The same with the units living in cell order: the rebuild
                // permutes the positions, and slot s holds old unit perm[s].
                let (mut xr, mut zr) = (x.to_vec(), z.to_vec());
                let perm = run_in(t, || {
                    grid.rebuild_resident(&mut xr, &mut zr, &teams, cell)
                        .map(<[u32]>::to_vec)
                });
                let perm = match perm {
                    Some(perm) => {
                        let mut seen = vec![false; n];
                        for (s, &old) in perm.iter().enumerate() {
                            let old = old as usize;
                            assert!(
                                !std::mem::replace(&mut seen[old], true),
                                "perm repeats {old}"
                            );
                            assert_eq!(
                                (xr[s].to_bits(), zr[s].to_bits()),
                                (x[old].to_bits(), z[old].to_bits())
                            );
                        }
                        perm
                    }
                    // A unit left out of the index: nothing moved.
                    None => {
                        assert!(
                            x.iter().chain(z).any(|v| !v.is_finite()),
                            "resident refused finite points"
                        );
                        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                        assert_eq!((bits(&xr), bits(&zr)), (bits(x), bits(z)));
                        (0..n as u32).collect()
                    }
                };
                let stats = run_in(t, || grid.near_all(Points::new(&xr, &zr), r, k, &mut res));
                assert_eq!(
                    stats.neighbors, total,
                    "resident fused {k}/{t}, {stencil}: total"
                );
                for (s, got) in res.near.iter().enumerate() {
                    let i = perm[s] as usize;
                    assert_eq!(
                        got, &want[i],
                        "resident fused {k}/{t} threads, {stencil} stencil: unit {i} at slot {s}, r {r}, cell {cell}, n {n}"
                    );
                }
                // The id query reads the resident columns and lists slots.
                if n > 0 {
                    let mut out = Vec::new();
                    let s = n / 2;
                    let i = perm[s] as usize;
                    let q = Query {
                        exclude: s as u32,
                        ..Query::new(xr[s], zr[s], r)
                    };
                    grid.query(Points::new(&xr, &zr), &q, k, &mut out);
                    let mut got: Vec<u32> = out.iter().map(|&o| perm[o as usize]).collect();
                    got.sort_unstable();
                    let mut expect = reference[i].clone();
                    expect.sort_unstable();
                    assert_eq!(got, expect, "resident query {k}, unit {i}");
                }
                // The next frame's rebuild merges last frame's order with the
                // units that changed cell (`sorted_grid/incremental.rs`). The
                // units reversed in memory: nearly every slot holds a unit of
                // another cell, so nearly all are movers.
                if perm.len() == n && x.iter().chain(z).all(|v| v.is_finite()) {
                    let back = |v: &[f32]| v.iter().rev().copied().collect::<Vec<f32>>();
                    let (mut x2, mut z2) = (back(&xr), back(&zr));
                    let t2: Vec<u8> = perm.iter().rev().map(|&o| teams[o as usize]).collect();
                    let perm2 = run_in(t, || {
                        grid.rebuild_resident(&mut x2, &mut z2, &t2, cell)
                            .map(<[u32]>::to_vec)
                    })
                    .expect("finite points stay resident");
                    assert!(
                        grid.merged_movers().is_some() || n == 0,
                        "{k}/{t}, {stencil}: the second resident rebuild merges, n {n}"
                    );
                    let stats = run_in(t, || grid.near_all(Points::new(&x2, &z2), r, k, &mut res));
                    assert_eq!(stats.neighbors, total, "merged {k}/{t}, {stencil}: total");
                    for (s, got) in res.near.iter().enumerate() {
                        let i = perm[n - 1 - perm2[s] as usize] as usize;
                        assert_eq!(
                            got, &want[i],
                            "merged fused {k}/{t} threads, {stencil} stencil: unit {i} at slot {s}, r {r}, cell {cell}, n {n}"
                        );
                    }
                }
            }
        }
    }
}

/// Seeded random queries: centers in `[lo, hi]^2`, radii in `[0, r_max]`,
/// some excluding a random id (as the per-unit pass does).
pub fn random_queries(
    rng: &mut StdRng,
    count: usize,
    lo: f32,
    hi: f32,
    r_max: f32,
    n: usize,
) -> Vec<Query> {
    (0..count)
        .map(|k| Query {
            cx: rng.gen_range(lo..=hi),
            cz: rng.gen_range(lo..=hi),
            r: rng.gen_range(0.0..=r_max),
            exclude: if k % 4 == 3 && n > 0 {
                rng.gen_range(0..n as u32)
            } else {
                NO_EXCLUDE
            },
        })
        .collect()
}

/// Queries centered on units, radius `r`, excluding nothing.
pub fn queries_at_units(x: &[f32], z: &[f32], r: f32, step: usize) -> Vec<Query> {
    (0..x.len())
        .step_by(step.max(1))
        .map(|i| Query::new(x[i], z[i], r))
        .collect()
}

pub fn total(lists: &[Vec<u32>]) -> usize {
    lists.iter().map(Vec::len).sum()
}
