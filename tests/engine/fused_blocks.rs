//! The blocks the CSR grid's fused passes search: per cell, one block for
//! all its units (the union of their blocks) or each unit's own, whichever
//! the cost model of `sorted_grid/blocks.rs` prefers.
//!
//! - Every kernel and thread count gives every unit exactly the aggregates
//!   of its naive neighbor list, at cells from r / 4 to 4r (whole and
//!   fractional ratios, where the two kinds of block differ), and so do
//!   units on and next to the cells' edges far from the origin, where
//!   some cells search their neighborhood and others the block of their
//!   units' box.
//! - The candidates tested equal those of the exact blocks of
//!   `docs/design.md` (`floor((q - r) / cell)` to `floor((q + r) / cell)`
//!   per axis, intersected with the grid), counted here from the positions
//!   alone, at cells of r / 4, r and 4r.
//! - Whole simulations at wide and fractional cells stay bit-identical
//!   across strategies, passes and thread counts.

use crate::common;
use common::equivalence::{brute, check_fused, check_per_unit, team_of};
use common::*;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use spatial_query_lab::engine::sim::{Layout, Pass, Reorder, Settings, Simulation, Workload};
use spatial_query_lab::engine::spatial::results::NearResults;
use spatial_query_lab::engine::spatial::{Near, Points, Query, SortedGrid, Strategy};

/// Every unit's aggregates from its naive neighbor list.
fn reference(x: &[f32], z: &[f32], r: f32, teams: &[u8]) -> Vec<Near> {
    (0..x.len())
        .map(|i| {
            let q = Query {
                exclude: i as u32,
                ..Query::new(x[i], z[i], r)
            };
            let mut a = Near::default();
            for j in brute(x, z, &q) {
                let j = j as usize;
                a.add((x[i], z[i], teams[i]), (x[j], z[j], teams[j]));
            }
            a
        })
        .collect()
}

#[test]
fn the_fused_pass_gives_the_naive_aggregates_at_every_cell_size() {
    let ks = kernels();
    let (n, l, r) = (2000, 40.0f32, 2.5f32);
    for clustered in [false, true] {
        let (x, z) = points(n, l, clustered, 19);
        let lists: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                let q = Query {
                    exclude: i as u32,
                    ..Query::new(x[i], z[i], r)
                };
                brute(&x, &z, &q)
            })
            .collect();
        for ratio in [0.25f32, 0.63, 1.0, 1.26, 1.587, 2.0, 2.52, 4.0] {
            check_fused(&ks, &x, &z, r, r * ratio, &lists);
        }
    }
}

/// Units on the cells' edges, one ULP either side of them and inside the
/// cells, at cells of r and r / 2 and far from the origin (where a block's
/// rounding margin is widest): cells whose units all lie in the interior
/// band search their neighborhood, the others the block of their box
/// (`sorted_grid/interior.rs`), and every unit gets its naive aggregates
/// either way.
#[test]
fn units_on_cell_edges_get_the_naive_aggregates() {
    let ks = kernels();
    let r = 2.5f32;
    let mut rng = StdRng::seed_from_u64(23);
    for base in [0.0f32, -40_000.0, 40_000.0] {
        for ratio in [1.0f32, 0.5] {
            let cell = r * ratio;
            let mut coord = || {
                let edge = base + rng.gen_range(0..40) as f32 * cell;
                match rng.gen_range(0..4) {
                    0 => edge,
                    1 => edge.next_up(),
                    2 => edge.next_down(),
                    _ => edge + rng.gen_range(0.0..cell),
                }
            };
            let (x, z): (Vec<f32>, Vec<f32>) = (0..1500).map(|_| (coord(), coord())).unzip();
            // Every strategy's lists, then the fused pass's aggregates.
            let lists = check_per_unit(&x, &z, r, cell);
            check_fused(&ks, &x, &z, r, cell, &lists);
        }
    }
}

/// Three teams after two, in one grid: the kernels' shared team-1 tally
/// (for grids whose teams are all 0 or 1) must give way to the general
/// enemy test as soon as a rebuild brings a third team, whether the
/// rebuild is the counting sort or the merge of the resident grid, and
/// come back when the third team leaves. Every kernel, 1 and 2 threads.
#[test]
fn a_third_team_turns_off_the_two_team_tally() {
    let (n, l, r, cell) = (3000, 40.0f32, 2.5f32, 2.5f32);
    let (x, z) = points(n, l, false, 23);
    let two: Vec<u8> = (0..n).map(team_of).collect();
    let three: Vec<u8> = (0..n).map(|i| (i * 7919 % 3) as u8).collect();
    let (want2, want3) = (reference(&x, &z, r, &two), reference(&x, &z, r, &three));
    let rounds = [
        (&two, &want2),
        (&three, &want3),
        (&two, &want2),
        (&three, &want3),
    ];
    for &k in &kernels() {
        for t in [1, 2] {
            let mut grid = SortedGrid::default();
            let mut resident = SortedGrid::default();
            let mut res = NearResults::default();
            let (mut xr, mut zr) = (x.clone(), z.clone());
            // Unit i of the original order sits at slot `at[i]` after the
            // resident rebuilds; `order` is the inverse (unit of each slot).
            let mut order: Vec<usize> = (0..n).collect();
            for (round, &(teams, want)) in rounds.iter().enumerate() {
                let ctx = format!("{k}, {t} threads, round {round}");
                run_in(t, || {
                    grid.rebuild_tagged(Points::new(&x, &z), Some(teams), cell)
                });
                run_in(t, || grid.near_all(Points::new(&x, &z), r, k, &mut res));
                assert_eq!(&res.near, want, "{ctx}: counting sort");
                // The resident grid: teams in the units' current order.
                let now: Vec<u8> = order.iter().map(|&i| teams[i]).collect();
                let perm = run_in(t, || {
                    resident
                        .rebuild_resident(&mut xr, &mut zr, &now, cell)
                        .map(<[u32]>::to_vec)
                })
                .expect("finite points are resident");
                order = perm.iter().map(|&o| order[o as usize]).collect();
                if round > 0 {
                    assert!(resident.merged_movers().is_some(), "{ctx}: the merge ran");
                }
                run_in(t, || {
                    resident.near_all(Points::new(&xr, &zr), r, k, &mut res)
                });
                for (s, got) in res.near.iter().enumerate() {
                    assert_eq!(got, &want[order[s]], "{ctx}: resident slot {s}");
                }
            }
        }
    }
}

/// Points spread uniformly over `[0, 40)^2` but never within 0.02 of a
/// multiple of 0.625 on either axis, so that with r = 2.5 no `q +- r` lies
/// on or near a cell border at cells of 0.625, 2.5 and 10 (where a block's
/// rounding margin, `docs/design.md`, could add a column).
fn off_border_points(n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut coord = || rng.gen_range(0..64) as f32 * 0.625 + rng.gen_range(0.02f32..0.605);
    (0..n).map(|_| (coord(), coord())).unzip()
}

/// The candidates of the exact blocks, counted from the positions alone:
/// `(exact, cell_wide)`, where `exact` sums, over every unit, the units in
/// the cells `floor((q - r) / cell)` to `floor((q + r) / cell)` per axis
/// (the unit itself included, as the kernel tests it), intersected with
/// the cells the points occupy; `cell_wide` gives every unit of a cell the
/// union of its cell's units' blocks instead.
fn exact_candidates(x: &[f32], z: &[f32], r: f32, cell: f32) -> (u64, u64) {
    let idx = |v: f32| (v / cell).floor() as i64;
    let (x0, x1) = (
        x.iter().map(|&v| idx(v)).min().unwrap(),
        x.iter().map(|&v| idx(v)).max().unwrap(),
    );
    let (z0, z1) = (
        z.iter().map(|&v| idx(v)).min().unwrap(),
        z.iter().map(|&v| idx(v)).max().unwrap(),
    );
    let nx = (x1 - x0 + 1) as usize;
    let nz = (z1 - z0 + 1) as usize;
    let mut count = vec![0u64; nx * nz];
    let cell_of = |i: usize| ((idx(z[i]) - z0) as usize * nx) + (idx(x[i]) - x0) as usize;
    for i in 0..x.len() {
        count[cell_of(i)] += 1;
    }
    let in_box = |bx: (i64, i64), bz: (i64, i64)| -> u64 {
        let mut sum = 0;
        for row in bz.0..=bz.1 {
            for col in bx.0..=bx.1 {
                sum += count[row as usize * nx + col as usize];
            }
        }
        sum
    };
    // Per cell: the union of its units' blocks (x range, z range).
    let mut union = vec![(i64::MAX, i64::MIN, i64::MAX, i64::MIN); nx * nz];
    let mut exact = 0u64;
    for i in 0..x.len() {
        let bx = (idx(x[i] - r).max(x0) - x0, idx(x[i] + r).min(x1) - x0);
        let bz = (idx(z[i] - r).max(z0) - z0, idx(z[i] + r).min(z1) - z0);
        exact += in_box(bx, bz);
        let u = &mut union[cell_of(i)];
        *u = (u.0.min(bx.0), u.1.max(bx.1), u.2.min(bz.0), u.3.max(bz.1));
    }
    let cell_wide = union
        .iter()
        .zip(&count)
        .filter(|(_, &c)| c > 0)
        .map(|(&(xa, xb, za, zb), &c)| c * in_box((xa, xb), (za, zb)))
        .sum();
    (exact, cell_wide)
}

#[test]
fn fused_candidates_equal_the_exact_blocks() {
    let r = 2.5f32;
    // 2 units per unit of area: 200 per cell at 4r, so the default mode
    // splits every cell there.
    let (x, z) = off_border_points(3200, 7);
    let teams: Vec<u8> = (0..x.len()).map(team_of).collect();
    let points = Points::new(&x, &z);
    for ratio in [0.25f32, 1.0, 4.0] {
        let cell = r * ratio;
        let (exact, cell_wide) = exact_candidates(&x, &z, r, cell);
        for t in [1, 2] {
            let mut grid = SortedGrid::default();
            let mut res = NearResults::default();
            let stats = run_in(t, || {
                grid.rebuild_tagged(points, Some(&teams), cell);
                grid.near_all(
                    points,
                    r,
                    spatial_query_lab::engine::spatial::Kernel::Scalar,
                    &mut res,
                )
            });
            // Each unit's searched block holds its exact block (or
            // neighbors could be missed), so equal totals mean equal
            // counts for every query.
            assert_eq!(stats.candidates, exact, "{t} threads, cell {ratio}r");
        }
        // What the cost model saves: one block per cell tests more as soon
        // as the cell is wider than 2r, and the same below.
        if ratio > 2.0 {
            assert!(
                cell_wide > 3 * exact,
                "cell {ratio}r: {cell_wide} vs {exact}"
            );
        } else {
            assert_eq!(cell_wide, exact, "cell {ratio}r, one block per cell");
        }
    }
}

/// Positions and velocities (bit patterns) and enemy counts by unit id after
/// a few frames.
fn run_sim(settings: &Settings) -> (Vec<u32>, Vec<u32>, Vec<u16>, Vec<u64>) {
    let mut sim = Simulation::new(settings);
    let totals: Vec<u64> = (0..4)
        .map(|_| sim.step(1.0 / 60.0, settings).query.neighbors)
        .collect();
    let u = sim.store().to_units();
    let mut by_id: Vec<usize> = (0..u.len()).collect();
    by_id.sort_by_key(|&i| u.id[i]);
    let bits = |v: &[f32]| by_id.iter().map(|&i| v[i].to_bits()).collect::<Vec<_>>();
    let mut pos = bits(&u.x);
    pos.extend(bits(&u.z));
    let mut vel = bits(&u.vx);
    vel.extend(bits(&u.vz));
    let enemies = by_id.iter().map(|&i| u.enemies[i]).collect();
    (pos, vel, enemies, totals)
}

#[test]
fn simulation_is_bit_identical_across_strategies_at_wide_and_fractional_cells() {
    let base = Settings::default();
    for ratio in [0.63f32, 2.52, 4.0] {
        let mut reference = None;
        for strategy in Strategy::ALL {
            for pass in Pass::ALL {
                for threads in [1, 2] {
                    let settings = Settings {
                        units: 3000,
                        strategy,
                        threads,
                        pass,
                        layout: Layout::Soa,
                        reorder: Reorder::Resident,
                        workload: Workload::Battle,
                        cell_size: base.radius * ratio,
                        cell_follows_radius: false,
                        ..Settings::default()
                    };
                    let state = run_sim(&settings);
                    let ctx = format!("cell {ratio}r, {strategy}/{pass}/{threads} threads");
                    match &reference {
                        None => {
                            assert!(state.3.iter().all(|&t| t > 0), "{ctx}: no neighbors");
                            reference = Some(state);
                        }
                        Some(want) => {
                            assert_eq!(state.3, want.3, "{ctx}: neighbor totals");
                            assert!(state.0 == want.0, "{ctx}: positions not bit-identical");
                            assert!(state.1 == want.1, "{ctx}: velocities not bit-identical");
                            assert!(state.2 == want.2, "{ctx}: enemy counts differ");
                        }
                    }
                }
            }
        }
    }
}

/// The fused pass writes every slot of its reused result buffers (they are
/// not cleared between frames): a pass that finds nothing after one that
/// found neighbors leaves only zeros, resident or not.
#[test]
fn a_pass_after_another_leaves_no_stale_aggregates() {
    let (n, l, r) = (500, 20.0f32, 2.0f32);
    let (x, z) = points(n, l, false, 5);
    let teams: Vec<u8> = (0..n).map(team_of).collect();
    for &k in &kernels() {
        for t in [1, 2] {
            let mut grid = SortedGrid::default();
            let mut res = NearResults::default();
            let (mut xr, mut zr) = (x.clone(), z.clone());
            run_in(t, || {
                grid.rebuild_tagged(Points::new(&x, &z), Some(&teams), r);
                let found = grid.near_all(Points::new(&x, &z), r, k, &mut res);
                assert!(found.neighbors > 0);
                let none = grid.near_all(Points::new(&x, &z), f32::NAN, k, &mut res);
                assert_eq!(none.neighbors, 0);
                assert!(
                    res.near.iter().all(|a| *a == Near::default()),
                    "{k}, {t} threads"
                );
                grid.rebuild_resident(&mut xr, &mut zr, &teams, r)
                    .expect("resident");
                for _ in 0..2 {
                    grid.near_all(Points::new(&xr, &zr), r, k, &mut res);
                }
                grid.near_all(Points::new(&xr, &zr), f32::NAN, k, &mut res);
                assert!(
                    res.near.iter().all(|a| *a == Near::default()),
                    "{k}, {t} threads, resident"
                );
            });
        }
    }
}
