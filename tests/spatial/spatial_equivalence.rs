//! Equivalence tests for the spatial-query engine: every strategy x every
//! available kernel (x thread counts 1, 2, 3 for the per-unit pass) must return
//! exactly the sets of the reference, `Strategy::Naive` + `Kernel::Scalar` on one
//! thread, which itself is checked against the definition of `docs/design.md`
//! ("Semantics that every path shares"): `dx*dx + dz*dz <= r*r`, self excluded
//! by index, non-finite positions never returned.
//!
//! Worlds: the standard workloads (`docs/workloads.md`), negative
//! coordinates, points on cell borders and at distance exactly r, r larger than
//! the cell, query centers outside the world, every SIMD tail length, duplicated
//! positions, property tests (non-finite positions; worlds far from the
//! origin), extreme finite coordinates, distances whose squares underflow, and
//! whole simulations that must be bit-identical across strategies, kernels and
//! thread counts.

use crate::common;
use common::equivalence::*;
use common::*;

use proptest::prelude::{prop_assert, prop_oneof, proptest, Just, ProptestConfig};
use proptest::strategy::Strategy as _;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use spatial_query_lab::engine::sim::{
    spawn, world_size, Layout, Pass, Reorder, Settings, Simulation, Workload,
};
use spatial_query_lab::engine::spatial::{Points, Query, Strategy};

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
                    v = v.next_up();
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
// wasm32-wasip1 has no threads (rayon cannot build a pool there).
#[cfg(not(target_arch = "wasm32"))]
fn parallel_csr_rebuild_equals_sequential() {
    use rand::{Rng, SeedableRng};
    use spatial_query_lab::engine::spatial::{SortedGrid, SpatialIndex};
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
