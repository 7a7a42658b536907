//! Equivalence tests for the spatial-query engine: every strategy x every
//! available kernel (x thread counts 1, 2, 3 for the per-unit pass) must return
//! exactly the sets of the reference, `Strategy::Naive` + `Kernel::Scalar` on one
//! thread, which itself is checked against the definition of `shared/DESIGN.md`
//! ("Semantics that every path shares"): `dx*dx + dz*dz <= r*r`, self excluded
//! by index, non-finite positions never returned.
//!
//! Worlds: the standard workloads (`shared/WORKLOADS.md`), negative
//! coordinates, points on cell borders and at distance exactly r, r larger than
//! the cell, query centers outside the world, every SIMD tail length, duplicated
//! positions, property tests (non-finite positions; worlds far from the
//! origin), extreme finite coordinates, distances whose squares underflow, and
//! whole simulations that must be bit-identical across strategies, kernels and
//! thread counts.

mod common;
use common::*;

use proptest::prelude::{prop_assert, prop_assert_eq, prop_oneof, proptest, Just, ProptestConfig};
use proptest::strategy::Strategy as _;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use spatial_query_lab::sim::{
    spawn, world_size, Layout, Pass, Reorder, Settings, Simulation, Workload,
};
use spatial_query_lab::spatial::{
    query_all, Kernel, Points, Query, QueryResults, Strategy, NO_EXCLUDE,
};

/// Thread counts of the per-unit pass.
const THREADS: [usize; 3] = [1, 2, 3];

/// Sentinel put in front of every output buffer: queries must append, never clear.
const SENTINEL: u32 = 0xDEAD_BEEF;

// ---------------------------------------------------------------- helpers

/// The definition, written independently of the engine: ids of the units with
/// finite positions and `dx*dx + dz*dz <= r*r`, `id != exclude` (with `r*r`
/// clamped to `f32::MAX` for a huge or infinite radius); nothing for a
/// non-finite center or a NaN or negative radius.
fn brute(x: &[f32], z: &[f32], q: &Query) -> Vec<u32> {
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
fn diff(got: &[u32], want: &[u32], x: &[f32], z: &[f32]) -> String {
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
fn check_all(x: &[f32], z: &[f32], queries: &[Query], cell: f32) -> Vec<Vec<u32>> {
    check_all_with(&quiet_kernels(), x, z, queries, cell)
}

fn check_all_with(
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
fn check_per_unit(x: &[f32], z: &[f32], r: f32, cell: f32) -> Vec<Vec<u32>> {
    check_per_unit_with(&quiet_kernels(), x, z, r, cell)
}

fn check_per_unit_with(ks: &[Kernel], x: &[f32], z: &[f32], r: f32, cell: f32) -> Vec<Vec<u32>> {
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
fn team_of(i: usize) -> u8 {
    ((i * 7919) % 5 < 2) as u8
}

/// The fused pass of the CSR grid (every kernel in `ks` x thread count in
/// [`THREADS`]) must give every unit exactly the aggregates of its reference
/// list summed by `Near::add`: count, enemies and the fixed-point offset
/// sums, bit for bit.
fn check_fused(ks: &[Kernel], x: &[f32], z: &[f32], r: f32, cell: f32, reference: &[Vec<u32>]) {
    use spatial_query_lab::spatial::results::NearResults;
    use spatial_query_lab::spatial::{Near, SortedGrid, SpatialIndex};
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
            for full in [false, true] {
                let stencil = if full { "full" } else { "half" };
                let mut grid = SortedGrid::default();
                grid.set_full_stencil(full);
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
            }
        }
    }
}

/// Seeded random queries: centers in `[lo, hi]^2`, radii in `[0, r_max]`,
/// some excluding a random id (as the per-unit pass does).
fn random_queries(
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
fn queries_at_units(x: &[f32], z: &[f32], r: f32, step: usize) -> Vec<Query> {
    (0..x.len())
        .step_by(step.max(1))
        .map(|i| Query::new(x[i], z[i], r))
        .collect()
}

fn total(lists: &[Vec<u32>]) -> usize {
    lists.iter().map(Vec::len).sum()
}

// ---------------------------------------------------------------- standard workloads

#[test]
fn uniform_standard_workload_every_cell_size() {
    let ks = kernels();
    let n = 2_000;
    let r = 10.0;
    let world = world_size(n, r);
    let u = spawn(n, world, r, Workload::Uniform, 42);
    let mut rng = StdRng::seed_from_u64(1);
    let mut queries = random_queries(&mut rng, 200, -25.0, world + 25.0, 30.0, n);
    queries.extend(queries_at_units(&u.x, &u.z, r, 20));
    for cell in [10.0, 3.7, 25.0, 0.9] {
        let lists = check_per_unit_with(&ks, &u.x, &u.z, r, cell);
        let avg = total(&lists) as f64 / n as f64;
        // ~16 on average (WORKLOADS.md), a little less through the border.
        assert!(
            (10.0..=20.0).contains(&avg),
            "uniform workload: {avg} neighbors per unit, expected about 16"
        );
        let res = check_all_with(&ks, &u.x, &u.z, &queries, cell);
        assert!(total(&res) > 0, "uniform queries found nothing");
    }
}

#[test]
fn clustered_and_hotspot_workloads() {
    let ks = kernels();
    let n = 2_000;
    let r = 10.0;
    let world = world_size(n, r);
    for w in [Workload::Clustered, Workload::Hotspot] {
        let u = spawn(n, world, r, w, 42);
        let mut rng = StdRng::seed_from_u64(2);
        let mut queries = random_queries(&mut rng, 150, -15.0, world + 15.0, 30.0, n);
        queries.extend(queries_at_units(&u.x, &u.z, r, 25));
        for cell in [10.0, 3.7] {
            let lists = check_per_unit_with(&ks, &u.x, &u.z, r, cell);
            let max = lists.iter().map(Vec::len).max().unwrap();
            assert!(
                max > 16,
                "{w}: the densest unit has only {max} neighbors; the workload should be uneven"
            );
            check_all_with(&ks, &u.x, &u.z, &queries, cell);
        }
    }
}

// ---------------------------------------------------------------- coordinates

#[test]
fn negative_coordinates() {
    let ks = kernels();
    let mut rng = StdRng::seed_from_u64(3);
    let n = 1_500;
    let x: Vec<f32> = (0..n).map(|_| rng.gen_range(-300.0..=100.0)).collect();
    let z: Vec<f32> = (0..n).map(|_| rng.gen_range(-300.0..=100.0)).collect();
    let queries = random_queries(&mut rng, 200, -320.0, 120.0, 40.0, n);
    for cell in [10.0, 3.7, 7.3, 1.0] {
        let lists = check_per_unit_with(&ks, &x, &z, 10.0, cell);
        assert!(total(&lists) > 0);
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        assert!(total(&res) > 0);
    }
}

#[test]
fn points_exactly_on_cell_borders() {
    let ks = kernels();
    // Lattice of integer multiples of the cell size, around the origin.
    for cell in [1.0f32, 2.0, 0.5, 0.25, 3.0, 10.0, 0.1, 0.7] {
        let (mut x, mut z) = (Vec::new(), Vec::new());
        for j in -6..=6 {
            for i in -6..=6 {
                x.push(i as f32 * cell);
                z.push(j as f32 * cell);
            }
        }
        let mut queries = Vec::new();
        for &(ci, cj) in &[(0, 0), (-3, 2), (6, -6), (-6, -6), (2, 5)] {
            let (cx, cz) = (ci as f32 * cell, cj as f32 * cell);
            for rf in [0.0, 0.5, 1.0, std::f32::consts::SQRT_2, 2.0, 5.0] {
                queries.push(Query::new(cx, cz, rf * cell));
                queries.push(Query::new(cx + 0.5 * cell, cz - 0.5 * cell, rf * cell));
            }
        }
        for index_cell in [cell, 2.0 * cell, 0.5 * cell] {
            let res = check_all_with(&ks, &x, &z, &queries, index_cell);
            assert!(total(&res) > 0);
            let lists = check_per_unit_with(&ks, &x, &z, cell, index_cell);
            // Exact lattices (cell a power of two or an integer): every inner
            // point has exactly its 4 axis neighbors at distance r = cell.
            if (cell * 64.0).fract() == 0.0 {
                for (k, l) in lists.iter().enumerate() {
                    let (i, j) = ((k % 13) as i32 - 6, (k / 13) as i32 - 6);
                    if i.abs() < 6 && j.abs() < 6 {
                        assert_eq!(
                            l.len(),
                            4,
                            "lattice cell {cell}: point ({i},{j}) must have its 4 axis neighbors at distance exactly r, got {l:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn points_exactly_at_distance_r() {
    let ks = kernels();
    let mut rng = StdRng::seed_from_u64(4);
    for s in [1.0f32, 2.0, 0.5, 0.25, 0.125, 3.0, 10.0] {
        for (cx, cz) in [(0.0f32, 0.0f32), (7.0, -3.0), (-16.0, 16.0), (2.5, -1.5)] {
            let r = 5.0 * s;
            // 0..12: the 3-4-5 points and the axis-aligned points at distance exactly r.
            let mut pts: Vec<(f32, f32)> = Vec::new();
            for (a, b) in [(3.0, 4.0), (4.0, 3.0)] {
                for (sa, sb) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                    pts.push((cx + sa * a * s, cz + sb * b * s));
                }
            }
            pts.extend([(cx + r, cz), (cx - r, cz), (cx, cz + r), (cx, cz - r)]);
            // Just outside: the first float beyond r on an axis, and the 3-4-5
            // point nudged by one float away from the center.
            let beyond = |c: f32, d: f32| {
                let mut v = c + d;
                while v - c <= d {
                    v = f32::from_bits(if v > 0.0 {
                        v.to_bits() + 1
                    } else if v < 0.0 {
                        v.to_bits() - 1
                    } else {
                        1
                    });
                }
                v
            };
            pts.push((beyond(cx, r), cz));
            pts.push((cx + 3.0 * s, beyond(cz, 4.0 * s)));
            pts.push((cx + 3.01 * s, cz + 4.01 * s));
            // Background.
            for _ in 0..60 {
                pts.push((
                    cx + rng.gen_range(-2.0 * r..=2.0 * r),
                    cz + rng.gen_range(-2.0 * r..=2.0 * r),
                ));
            }
            let x: Vec<f32> = pts.iter().map(|p| p.0).collect();
            let z: Vec<f32> = pts.iter().map(|p| p.1).collect();
            let queries = [Query::new(cx, cz, r)];
            for cell in [1.0, 2.0, s, r, 0.37 * r] {
                let res = check_all_with(&ks, &x, &z, &queries, cell);
                for id in 0..12u32 {
                    assert!(
                        res[0].contains(&id),
                        "point {id} at {:?} is at distance exactly r = {r} from ({cx}, {cz}) and must be found (cell {cell})",
                        pts[id as usize]
                    );
                }
                for id in 12..15u32 {
                    assert!(
                        !res[0].contains(&id),
                        "point {id} at {:?} is beyond r = {r} from ({cx}, {cz}) (cell {cell})",
                        pts[id as usize]
                    );
                }
            }
        }
    }
}

#[test]
fn radius_larger_than_cell() {
    let ks = kernels();
    let mut rng = StdRng::seed_from_u64(5);
    let n = 1_200;
    // A 60 x 60 world keeps the requested cell (1 or 2) under the cell cap.
    let x: Vec<f32> = (0..n).map(|_| rng.gen_range(0.0..60.0)).collect();
    let z: Vec<f32> = (0..n).map(|_| rng.gen_range(0.0..60.0)).collect();
    for cell in [1.0f32, 2.0] {
        for r in [2.5f32, 7.0, 31.0] {
            for s in [Strategy::Grid, Strategy::SortedGrid] {
                let mut index = s.create();
                index.rebuild(Points::new(&x, &z), cell);
                assert_eq!(
                    index.geometry().unwrap().cell,
                    cell,
                    "{s}: the grid must keep the requested cell so that r > cell is exercised"
                );
            }
            let lists = check_per_unit_with(&ks, &x, &z, r, cell);
            assert!(total(&lists) > 0);
            let mut queries = random_queries(&mut rng, 60, -5.0, 65.0, r, n);
            queries.push(Query::new(30.0, 30.0, r));
            let res = check_all_with(&ks, &x, &z, &queries, cell);
            assert!(!res.last().unwrap().is_empty());
        }
    }
}

#[test]
fn query_centers_outside_the_world() {
    let ks = kernels();
    let mut rng = StdRng::seed_from_u64(6);
    // ids 0..5: points on the border of the world [0, 100)^2.
    let mut x = vec![0.0f32, 99.9, 50.0, 50.0, 0.0];
    let mut z = vec![50.0f32, 50.0, 0.0, 99.9, 0.0];
    for _ in 0..800 {
        x.push(rng.gen_range(0.0..100.0));
        z.push(rng.gen_range(0.0..100.0));
    }
    // (query, an id it must find, or None for a query that must find nothing)
    let cases: Vec<(Query, Option<u32>)> = vec![
        (Query::new(-3.0, 50.0, 5.0), Some(0)),
        (Query::new(103.0, 50.0, 5.0), Some(1)),
        (Query::new(50.0, -4.9, 5.0), Some(2)),
        (Query::new(50.0, 104.0, 4.5), Some(3)),
        (Query::new(-2.0, -2.0, 3.0), Some(4)),
        (Query::new(-1000.0, 50.0, 1200.0), Some(1)),
        (Query::new(-3.0, 50.0, 2.9), None),
        (Query::new(1e4, 1e4, 5.0), None),
        (Query::new(-1e4, 50.0, 5.0), None),
        (Query::new(50.0, -1e6, 100.0), None),
        (Query::new(1e6, -1e6, 50.0), None),
        (Query::new(3e38, -3e38, 1e3), None),
        (Query::new(-150.0, -150.0, 60.0), None),
    ];
    let queries: Vec<Query> = cases.iter().map(|c| c.0).collect();
    for cell in [5.0, 10.0, 1.3, 0.5] {
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        for ((q, want), got) in cases.iter().zip(&res) {
            match want {
                Some(id) => assert!(
                    got.contains(id),
                    "query {q:?} must find point {id}, got {got:?} (cell {cell})"
                ),
                None => assert!(
                    got.is_empty(),
                    "query {q:?} must find nothing, got {got:?} (cell {cell})"
                ),
            }
        }
        assert_eq!(
            res[5].len(),
            x.len(),
            "a query from outside covering the world finds every point"
        );
    }
}

// ---------------------------------------------------------------- sizes, duplicates

#[test]
fn every_simd_tail_length() {
    let ks = kernels();
    let mut rng = StdRng::seed_from_u64(7);
    for n in 0..=33usize {
        // (a) all inside the one cell [10, 20)^2 of a cell-10 grid;
        // (b) spread over several cells of a cell-3 grid.
        let layouts: [(f32, f32, f32); 2] = [(10.5, 19.5, 10.0), (-20.0, 20.0, 3.0)];
        for (lo, hi, cell) in layouts {
            let x: Vec<f32> = (0..n).map(|_| rng.gen_range(lo..=hi)).collect();
            let z: Vec<f32> = (0..n).map(|_| rng.gen_range(lo..=hi)).collect();
            let mut queries = random_queries(&mut rng, 25, lo - 3.0, hi + 3.0, 8.0, n);
            let mid = 0.5 * (lo + hi);
            queries.push(Query::new(mid, mid, 100.0));
            let res = check_all_with(&ks, &x, &z, &queries, cell);
            assert_eq!(
                res.last().unwrap().len(),
                n,
                "a radius covering every point must return all {n}"
            );
            let all = check_per_unit_with(&ks, &x, &z, 100.0, cell);
            for (i, l) in all.iter().enumerate() {
                assert_eq!(l.len(), n - 1, "n {n}: unit {i} must list every other unit");
                assert!(!l.contains(&(i as u32)), "unit {i} lists itself");
            }
            check_per_unit_with(&ks, &x, &z, 4.0, cell);
        }
    }
}

#[test]
fn duplicated_positions() {
    let ks = kernels();
    let mut rng = StdRng::seed_from_u64(8);
    let spots = [
        (5.0f32, 5.0f32),
        (5.0, 5.5),
        (-3.0, 12.25),
        (20.0, 0.0),
        (0.0, 0.0),
        (7.3, -8.1),
    ];
    let (mut x, mut z, mut spot_of) = (Vec::new(), Vec::new(), Vec::new());
    for (s, &(sx, sz)) in spots.iter().enumerate() {
        for _ in 0..=s + 1 {
            x.push(sx);
            z.push(sz);
            spot_of.push(Some(s));
        }
    }
    // Singles, kept away from the spots so that r = 0 only sees the copies.
    while x.len() < 150 {
        let (px, pz) = (rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0));
        if spots
            .iter()
            .all(|&(sx, sz): &(f32, f32)| (px - sx).abs() > 0.01 || (pz - sz).abs() > 0.01)
        {
            x.push(px);
            z.push(pz);
            spot_of.push(None);
        }
    }
    // Interleave so that copies are not adjacent in id order.
    let mut order: Vec<usize> = (0..x.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.gen_range(0..=i));
    }
    let x: Vec<f32> = order.iter().map(|&i| x[i]).collect();
    let z: Vec<f32> = order.iter().map(|&i| z[i]).collect();
    let spot_of: Vec<Option<usize>> = order.iter().map(|&i| spot_of[i]).collect();
    for cell in [1.0, 0.5, 10.0] {
        for r in [0.0f32, 0.5, 1.0, 10.0] {
            let lists = check_per_unit_with(&ks, &x, &z, r, cell);
            for (i, l) in lists.iter().enumerate() {
                assert!(!l.contains(&(i as u32)), "unit {i} lists itself (r {r})");
                if let Some(s) = spot_of[i] {
                    let copies: Vec<u32> = (0..x.len())
                        .filter(|&j| j != i && spot_of[j] == Some(s))
                        .map(|j| j as u32)
                        .collect();
                    assert!(
                        copies.iter().all(|c| l.contains(c)),
                        "unit {i} at spot {s}: the copies {copies:?} must be its neighbors (r {r}, cell {cell}), got {l:?}"
                    );
                    if r == 0.0 {
                        assert_eq!(l, &copies, "r = 0: exactly the other copies (cell {cell})");
                    }
                }
            }
            let queries: Vec<Query> = spots
                .iter()
                .map(|&(sx, sz)| Query::new(sx, sz, r))
                .collect();
            let res = check_all_with(&ks, &x, &z, &queries, cell);
            for (s, got) in res.iter().enumerate() {
                let n_copies = spot_of.iter().filter(|&&o| o == Some(s)).count();
                assert!(
                    got.len() >= n_copies,
                    "a query at spot {s} finds all {n_copies} copies (r {r})"
                );
            }
        }
    }
}

// ---------------------------------------------------------------- property test

/// A coordinate: usually finite (sometimes an integer, i.e. on a cell border
/// for integer cells), sometimes NaN or an infinity.
fn coord() -> impl proptest::strategy::Strategy<Value = f32> {
    prop_oneof![
        12 => -20.0f32..80.0,
        4 => (-20i32..80).prop_map(|v| v as f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn prop_every_path_returns_the_same_set(
        pts in proptest::collection::vec((coord(), coord()), 0..100),
        cell in 0.1f32..=50.0,
        qs in proptest::collection::vec((0.0f32..=60.0, 0.0f32..=60.0, 0.0f32..=60.0), 1..6),
        per_unit_r in 0.0f32..=20.0,
    ) {
        let x: Vec<f32> = pts.iter().map(|p| p.0).collect();
        let z: Vec<f32> = pts.iter().map(|p| p.1).collect();
        let queries: Vec<Query> = qs.iter().map(|&(cx, cz, r)| Query::new(cx, cz, r)).collect();
        let res = check_all(&x, &z, &queries, cell);
        for (q, ids) in queries.iter().zip(&res) {
            for &id in ids {
                let i = id as usize;
                prop_assert!(
                    x[i].is_finite() && z[i].is_finite(),
                    "query {:?} returned id {} at non-finite ({}, {})", q, id, x[i], z[i]
                );
            }
        }
        let lists = check_per_unit(&x, &z, per_unit_r, cell);
        for (i, l) in lists.iter().enumerate() {
            prop_assert!(
                l.is_empty() || (x[i].is_finite() && z[i].is_finite()),
                "unit {} at non-finite ({}, {}) has neighbors {:?}", i, x[i], z[i], l
            );
            for &id in l {
                let j = id as usize;
                prop_assert!(x[j].is_finite() && z[j].is_finite(), "unit {} lists non-finite unit {}", i, j);
            }
        }
    }
}

// ---------------------------------------------------------------- simulation

/// The state compared between simulations: positions and velocities as bit
/// patterns, enemy counts, and the neighbor total of every frame, by unit
/// id (the memory order differs between `resident` and the other orders).
struct SimState {
    x: Vec<u32>,
    z: Vec<u32>,
    vx: Vec<u32>,
    vz: Vec<u32>,
    enemies: Vec<u16>,
    danger: Vec<u32>,
    totals: Vec<u64>,
}

/// Bit patterns of a float slice (so NaN and -0.0 compare exactly).
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

#[test]
fn simulation_is_bit_identical_across_layouts_strategies_kernels_threads() {
    let ks = kernels();
    const FRAMES: usize = 5;
    let dt = 1.0 / 60.0;
    let mut reference: Option<SimState> = None;
    let mut configs = 0;
    for (layout, strategy) in Layout::ALL
        .into_iter()
        .flat_map(|l| Strategy::ALL.map(|s| (l, s)))
    {
        // The units live in cell order (`resident`, the default) only with
        // SoA and SortedGrid; there the periodic reorder runs too.
        let orders: &[Reorder] = if (layout, strategy) == (Layout::Soa, Strategy::SortedGrid) {
            &[Reorder::Resident, Reorder::Cells]
        } else {
            &[Reorder::Resident]
        };
        for (&kernel, pass, &reorder) in ks.iter().flat_map(|k| {
            Pass::ALL
                .into_iter()
                .flat_map(move |p| orders.iter().map(move |o| (k, p, o)))
        }) {
            for threads in [1usize, 2, 3] {
                let settings = Settings {
                    units: 3000,
                    strategy,
                    kernel,
                    threads,
                    layout,
                    pass,
                    reorder,
                    workload: Workload::Battle,
                    ..Settings::default()
                };
                let mut sim = Simulation::new(&settings);
                let start_x = sim.store().to_units().x;
                let totals: Vec<u64> = (0..FRAMES)
                    .map(|_| sim.step(dt, &settings).query.neighbors)
                    .collect();
                let u = &sim.store().to_units();
                let mut by_id: Vec<usize> = (0..u.len()).collect();
                by_id.sort_by_key(|&i| u.id[i]);
                let pick = |v: &[f32]| bits(&by_id.iter().map(|&i| v[i]).collect::<Vec<_>>());
                let state = SimState {
                    x: pick(&u.x),
                    z: pick(&u.z),
                    vx: pick(&u.vx),
                    vz: pick(&u.vz),
                    enemies: by_id.iter().map(|&i| u.enemies[i]).collect(),
                    danger: pick(&u.danger),
                    totals,
                };
                let ctx =
                    format!("{layout}/{strategy}/{kernel}/{pass}/{reorder}/{threads} threads");
                match &reference {
                    None => {
                        assert!(
                            state.totals.iter().all(|&t| t > 0),
                            "reference found no neighbors"
                        );
                        assert_ne!(bits(&start_x), bits(&u.x), "units did not move");
                        reference = Some(state);
                    }
                    Some(want) => {
                        assert_eq!(
                            state.totals, want.totals,
                            "{ctx}: neighbor totals per frame"
                        );
                        assert!(state.x == want.x, "{ctx}: units.x not bit-identical");
                        assert!(state.z == want.z, "{ctx}: units.z not bit-identical");
                        assert!(state.vx == want.vx, "{ctx}: units.vx not bit-identical");
                        assert!(state.vz == want.vz, "{ctx}: units.vz not bit-identical");
                        assert!(state.enemies == want.enemies, "{ctx}: units.enemies differ");
                        assert!(state.danger == want.danger, "{ctx}: units.danger differ");
                    }
                }
                configs += 1;
            }
        }
    }
    assert_eq!(
        configs,
        (Layout::ALL.len() * Strategy::ALL.len() + 1) * ks.len() * Pass::ALL.len() * 3
    );
}

// ---------------------------------------------------------------- extreme values

/// Far from the origin, a cell is only a few floats wide: the block's float
/// margin must still cover every point the distance test accepts.
fn far_world() -> impl proptest::strategy::Strategy<Value = (f32, Vec<(f32, f32)>)> {
    (
        prop_oneof![
            Just(0.0f32),
            Just(1e4),
            Just(-1e5),
            Just(1e6),
            Just(-3e7),
            Just(1e9)
        ],
        proptest::collection::vec((-50.0f32..50.0, -50.0f32..50.0), 0..80),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn prop_far_from_origin(
        (base, offs) in far_world(),
        cell in 0.01f32..=50.0,
        qs in proptest::collection::vec((-60.0f32..=60.0, -60.0f32..=60.0, 0.0f32..=60.0), 1..6),
        per_unit_r in 0.0f32..=20.0,
    ) {
        let x: Vec<f32> = offs.iter().map(|p| base + p.0).collect();
        let z: Vec<f32> = offs.iter().map(|p| base - p.1).collect();
        let queries: Vec<Query> = qs.iter().map(|&(a, b, r)| Query::new(base + a, base - b, r)).collect();
        let res = check_all(&x, &z, &queries, cell);
        prop_assert_eq!(res.len(), queries.len());
        check_per_unit(&x, &z, per_unit_r, cell);
    }
}

#[test]
fn extreme_finite_coordinates_on_one_axis() {
    let ks = kernels();
    let big = [
        1e19f32,
        -1e19,
        3e38,
        -3e38,
        f32::MAX,
        -f32::MAX,
        1e-45,
        -1e-45,
        f32::MIN_POSITIVE,
    ];
    let mut x: Vec<f32> = big.to_vec();
    let mut z: Vec<f32> = vec![1.0; big.len()];
    for i in 0..40 {
        x.push(i as f32 * 0.5);
        z.push((i % 7) as f32);
    }
    let queries = [
        Query::new(0.0, 1.0, 5.0),
        Query::new(0.0, 0.0, 1e18),
        Query::new(1e19, 1.0, 1e12),
        Query::new(f32::MAX, 1.0, 1e19),
        Query::new(-3e38, 1.0, 0.0),
        Query::new(0.0, 1.0, 0.0),
        Query::new(1e-45, 1.0, 1e-45),
    ];
    for cell in [1.0f32, 1e-6, 10.0, 1e30] {
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        assert!(
            res[2].contains(&0),
            "cell {cell}: (1e19, 1) is found from itself"
        );
        assert!(
            res[3].contains(&4),
            "cell {cell}: (f32::MAX, 1) is found from itself"
        );
        check_per_unit_with(&ks, &x, &z, 3.0, cell);
    }
}

#[test]
fn extreme_finite_coordinates_on_both_axes() {
    let ks = kernels();
    // Finite positions whose cell index saturates i64 on both axes.
    let x = vec![-1e19f32, 1e19, 0.0, 0.5];
    let z = vec![-1e19f32, 1e19, 0.0, 0.5];
    let queries = [Query::new(0.0, 0.0, 1.0), Query::new(1e19, 1e19, 1.0)];
    for cell in [1.0f32, 1e-6] {
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        assert_eq!(res[0], vec![2, 3], "cell {cell}");
        assert_eq!(res[1], vec![1], "cell {cell}");
        check_per_unit_with(&ks, &x, &z, 1.0, cell);
    }
}

/// Distances whose squares underflow to 0 in f32: the distance test accepts
/// them even for r = 0, so every strategy must search the cell across the
/// border at 0 too.
#[test]
fn underflowing_distances_across_the_border_at_zero() {
    let ks = kernels();
    let x = vec![-1e-30f32, 1e-30, 0.0, -1e-25, 5.0];
    let z = vec![0.0f32, 0.0, -1e-30, 0.0, 5.0];
    let queries = [
        Query::new(0.0, 0.0, 0.0),
        Query::new(1e-25, 0.0, 0.0),
        Query::new(0.0, 0.0, 1e-25),
        Query::new(0.0, 1e-31, 0.0),
    ];
    for cell in [1.0f32, 10.0, 1e-3] {
        let res = check_all_with(&ks, &x, &z, &queries, cell);
        // dx*dx + dz*dz underflows to 0 <= r*r = 0 for all four tiny points.
        assert_eq!(res[0], vec![0, 1, 2, 3], "cell {cell}");
        check_per_unit_with(&ks, &x, &z, 0.0, cell);
    }
}

/// `GridGeometry::coord` is documented to saturate beyond `i64` (and the
/// geometry relies on it for huge coordinates and tiny cells).
#[test]
fn cell_index_saturates_beyond_i64() {
    let g = spatial_query_lab::spatial::GridGeometry {
        cell: 1.0,
        ..Default::default()
    };
    let cases = [
        (f32::INFINITY, i64::MAX),
        (1e19, i64::MAX),
        (9.3e18, i64::MAX),
        (-9.223372e18, i64::MIN),
        (f32::NAN, 0),
        (-0.3, -1),
        (-1e19, i64::MIN),
        (-3e38, i64::MIN),
        (f32::NEG_INFINITY, i64::MIN),
    ];
    for (v, want) in cases {
        let got = std::panic::catch_unwind(|| g.coord(v));
        assert!(
            matches!(got, Ok(c) if c == want),
            "coord({v}) with cell 1: want {want}, got {got:?}"
        );
    }
    let tiny = spatial_query_lab::spatial::GridGeometry {
        cell: 1e-45,
        ..Default::default()
    };
    let got = std::panic::catch_unwind(|| tiny.coord(-20.0));
    assert!(
        matches!(got, Ok(i64::MIN)),
        "coord(-20) with cell 1e-45 (-20 / 1e-45 = -inf): want i64::MIN, got {got:?}"
    );
}

/// Units in cell order (as after `Reorder::Cells`), many of them on cell
/// borders and at exactly r from each other: consecutive units share blocks,
/// so the CSR grid's per-unit pass reuses them. Every path must still match
/// the naive lists.
#[test]
fn per_unit_pass_with_units_in_cell_order() {
    let cell = 2.0f32;
    let mut pts: Vec<(f32, f32)> = Vec::new();
    // A lattice with spacing 1 (every other point on a cell border), plus jitter-free
    // points at quarter offsets, so blocks change at exact borders.
    for j in 0..24 {
        for i in 0..24 {
            pts.push((i as f32, j as f32));
            if (i + j) % 3 == 0 {
                pts.push((i as f32 + 0.25, j as f32 + 0.75));
            }
        }
    }
    // Sort by (row cell, column cell), like the cell-order reorder.
    pts.sort_by(|a, b| {
        let ka = ((a.1 / cell).floor() as i64, (a.0 / cell).floor() as i64);
        let kb = ((b.1 / cell).floor() as i64, (b.0 / cell).floor() as i64);
        ka.cmp(&kb)
    });
    let x: Vec<f32> = pts.iter().map(|p| p.0).collect();
    let z: Vec<f32> = pts.iter().map(|p| p.1).collect();
    for r in [1.0f32, 2.0, 2.5, 3.0, 0.75] {
        let lists = check_per_unit(&x, &z, r, cell);
        assert!(total(&lists) > 0, "r = {r}: no neighbors at all");
    }
}

/// The CSR grid's parallel rebuild builds exactly the single-threaded index
/// (same cell offsets, same order within cells), for sizes below, at and above
/// the thread count, with non-finite points mixed in, and when the same index
/// object shrinks from a large set to a small one (stale per-thread counts).
#[test]
fn parallel_csr_rebuild_equals_sequential() {
    use rand::{Rng, SeedableRng};
    use spatial_query_lab::spatial::{SortedGrid, SpatialIndex};
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for threads in [2usize, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut par = SortedGrid::default();
        for n in [5_000usize, 0, 1, 2, 3, 4, 33, 1_000, 7] {
            let mut x: Vec<f32> = (0..n).map(|_| rng.gen_range(-50.0..150.0)).collect();
            let z: Vec<f32> = (0..n).map(|_| rng.gen_range(-50.0..150.0)).collect();
            if n > 3 {
                x[1] = f32::NAN;
                x[3] = f32::INFINITY;
            }
            let pts = Points::new(&x, &z);
            let mut seq = SortedGrid::default();
            seq.rebuild(pts, 7.5);
            pool.install(|| par.rebuild(pts, 7.5));
            assert_eq!(
                seq.cell_start(),
                par.cell_start(),
                "n = {n}, {threads} threads"
            );
            let none = Points::new(&[], &[]);
            let (a, b) = (seq.sorted(none), par.sorted(none));
            assert_eq!(a.2, b.2, "ids differ: n = {n}, {threads} threads");
            assert_eq!(a.0, b.0);
            assert_eq!(a.1, b.1);
        }
    }
}
