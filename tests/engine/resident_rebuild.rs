//! The resident rebuild from last frame's order: from its
//! second call on, `SortedGrid::rebuild_resident` merges the units still in
//! their cell with those that changed cell instead of counting-sorting
//! them all. It must leave exactly what the counting sort leaves.
//!
//! - Over many frames of seeded motion (small steps, some jumps across the
//!   world, team changes, uniform and clustered points, cells from r / 2 to
//!   3r), for 1 to 3 threads: the same permutation, positions, cell starts
//!   and fused aggregates (every kernel) as a fresh grid's counting sort of
//!   the same input, frame after frame, and the merge did run; the columns
//!   carried through it (1 to 8 bytes wide) end as the permutation orders
//!   them.
//! - Where it cannot apply (a non-finite position, a changed unit count, a
//!   changed grid geometry) the full rebuild runs and the result is still
//!   the counting sort's.

use crate::common;
use common::equivalence::THREADS;
use common::*;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use spatial_query_lab::engine::spatial::results::NearResults;
use spatial_query_lab::engine::spatial::{Carried, Points, SortedGrid};

/// One frame of motion inside `[0, l)^2`: every unit a small step (a few
/// cross a cell border), one in fifty a jump anywhere, one in a hundred a
/// team change.
fn step(x: &mut [f32], z: &mut [f32], teams: &mut [u8], l: f32, rng: &mut StdRng) {
    for i in 0..x.len() {
        if rng.gen_range(0..50) == 0 {
            (x[i], z[i]) = (rng.gen_range(0.0..l), rng.gen_range(0.0..l));
        } else {
            x[i] = (x[i] + rng.gen_range(-0.6f32..0.6)).clamp(0.0, l - 0.01);
            z[i] = (z[i] + rng.gen_range(-0.6f32..0.6)).clamp(0.0, l - 0.01);
        }
        if rng.gen_range(0..100) == 0 {
            teams[i] ^= 1;
        }
    }
}

/// Applies `perm` (`new[s] = old[perm[s]]`) to `v`.
fn permute<T: Copy>(v: &mut Vec<T>, perm: &[u32]) {
    *v = perm.iter().map(|&p| v[p as usize]).collect();
}

/// Rebuilds `grid` (resident) from `x`, `z`, `teams` in a pool of `t`
/// threads and checks it against a fresh grid's counting sort of the same
/// input: permutation, positions, cell starts and, for every kernel, the
/// fused aggregates. Permutes `teams` like the units. Returns whether the
/// merge ran.
fn rebuild_and_check(
    grid: &mut SortedGrid,
    (x, z, teams): (&mut Vec<f32>, &mut Vec<f32>, &mut Vec<u8>),
    cell: f32,
    t: usize,
    ctx: &str,
) -> bool {
    let r = 10.0;
    let (mut fx, mut fz) = (x.clone(), z.clone());
    let mut fresh = SortedGrid::default();
    let want = run_in(t, || {
        fresh
            .rebuild_resident(&mut fx, &mut fz, teams, cell)
            .map(<[u32]>::to_vec)
    });
    // The grid under test carries five columns of 1, 2, 3, 4 and 8 bytes:
    // each entry names its unit, so after a merge entry s must be unit
    // perm[s]'s; after a counting sort they must be untouched.
    let n = x.len();
    let label = |k: usize| k as u64 * 0x9E37_79B9 + 7;
    let c1: Vec<u8> = (0..n).map(|k| label(k) as u8).collect();
    let c2: Vec<u16> = (0..n).map(|k| label(k) as u16).collect();
    let c3: Vec<[u8; 3]> = (0..n)
        .map(|k| [(k >> 16) as u8, (k >> 8) as u8, k as u8])
        .collect();
    let c4: Vec<u32> = (0..n).map(|k| label(k) as u32).collect();
    let c8: Vec<u64> = (0..n).map(label).collect();
    let (mut d1, mut d2, mut d3) = (vec![0u8; n], vec![0u16; n], vec![[0u8; 3]; n]);
    let (mut d4, mut d8) = (vec![0u32; n], vec![0u64; n]);
    let (got, carried) = run_in(t, || {
        let carried = Carried::new()
            .column(&c1, &mut d1)
            .column(&c2, &mut d2)
            .column(&c3, &mut d3)
            .column(&c4, &mut d4)
            .column(&c8, &mut d8);
        match grid.rebuild_resident_carrying(x, z, teams, cell, carried) {
            Some((perm, wrote)) => (Some(perm.to_vec()), wrote),
            None => (None, false),
        }
    });
    assert_eq!(
        carried,
        grid.merged_movers().is_some() && n > 0,
        "{ctx}: columns carried exactly when the merge ran"
    );
    if let (Some(perm), true) = (&got, carried) {
        let moved = |c: &[u8], d: &[u8], w: usize| {
            perm.iter()
                .enumerate()
                .all(|(s, &p)| d[s * w..s * w + w] == c[p as usize * w..p as usize * w + w])
        };
        let bytes3 = |v: &[[u8; 3]]| v.concat();
        assert!(moved(&c1, &d1, 1), "{ctx}: 1-byte column carried");
        assert!(
            perm.iter()
                .enumerate()
                .all(|(s, &p)| d2[s] == c2[p as usize]
                    && d4[s] == c4[p as usize]
                    && d8[s] == c8[p as usize]),
            "{ctx}: 2-, 4- and 8-byte columns carried"
        );
        assert!(
            moved(&bytes3(&c3), &bytes3(&d3), 3),
            "{ctx}: 3-byte column carried"
        );
    } else {
        assert!(
            d4.iter().all(|&v| v == 0) && d3.iter().all(|v| *v == [0; 3]),
            "{ctx}: columns untouched without a merge"
        );
    }
    assert_eq!(
        fresh.merged_movers(),
        None,
        "{ctx}: a fresh grid counting-sorts"
    );
    assert_eq!(got, want, "{ctx}: permutation");
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(x), bits(&fx), "{ctx}: x in cell order");
    assert_eq!(bits(z), bits(&fz), "{ctx}: z in cell order");
    assert_eq!(grid.cell_start(), fresh.cell_start(), "{ctx}: cell starts");
    assert_eq!(grid.is_resident(), fresh.is_resident(), "{ctx}: resident");
    if let Some(perm) = &got {
        permute(teams, perm);
    }
    let (mut a, mut b) = (NearResults::default(), NearResults::default());
    for k in quiet_kernels() {
        let sa = run_in(t, || grid.near_all(Points::new(x, z), r, k, &mut a));
        let sb = run_in(t, || fresh.near_all(Points::new(&fx, &fz), r, k, &mut b));
        assert_eq!(sa, sb, "{ctx}: {k} stats");
        assert_eq!(a.near, b.near, "{ctx}: {k} aggregates");
    }
    grid.merged_movers().is_some()
}

#[test]
fn the_merge_equals_the_counting_sort_frame_after_frame() {
    for t in THREADS {
        for (n, clustered, cell, seed) in [
            (3000, false, 10.0, 1u64),
            (3000, true, 10.0, 2),
            (2000, false, 5.0, 3),
            (2000, true, 30.0, 4),
            // More slots per thread than one detection chunk (4,096).
            (20_000, false, 10.0, 9),
            (40, false, 10.0, 5),
            (1, false, 10.0, 6),
        ] {
            let mut rng = StdRng::seed_from_u64(seed + 100);
            let l = ((n as f32) * std::f32::consts::PI * 100.0 / 16.0)
                .sqrt()
                .max(30.0);
            let (mut x, mut z) = points(n, l, clustered, seed);
            let mut teams: Vec<u8> = (0..n).map(|i| (i % 3 == 0) as u8).collect();
            let mut grid = SortedGrid::default();
            let mut merges = 0;
            for frame in 0..12 {
                let ctx = format!(
                    "n {n}, clustered {clustered}, cell {cell}, {t} threads, frame {frame}"
                );
                merges += rebuild_and_check(&mut grid, (&mut x, &mut z, &mut teams), cell, t, &ctx)
                    as usize;
                step(&mut x, &mut z, &mut teams, l, &mut rng);
            }
            // The first frame counting-sorts; the geometry may change when a
            // unit reaches a new extreme, which counting-sorts again.
            assert!(
                merges >= 6,
                "n {n}, cell {cell}, {t} threads: only {merges} merges in 12 frames"
            );
        }
    }
}

#[test]
fn movers_are_counted_and_a_still_frame_moves_nothing() {
    let (mut x, mut z) = points(500, 150.0, false, 7);
    let mut teams = vec![0u8; 500];
    let mut grid = SortedGrid::default();
    grid.rebuild_resident(&mut x, &mut z, &teams, 10.0);
    assert_eq!(
        grid.merged_movers(),
        None,
        "the first rebuild counting-sorts"
    );
    let before = (x.clone(), z.clone());
    let perm = grid
        .rebuild_resident(&mut x, &mut z, &teams, 10.0)
        .map(<[u32]>::to_vec);
    assert_eq!(grid.merged_movers(), Some(0), "nobody moved");
    assert_eq!(perm, Some((0..500).collect::<Vec<u32>>()), "the identity");
    assert_eq!((x.clone(), z.clone()), before);
    // Move three units into other cells (inside the bounds).
    let (lo, hi) = (
        x.iter().cloned().fold(f32::MAX, f32::min),
        x.iter().cloned().fold(f32::MIN, f32::max),
    );
    for (i, to) in [(0, lo + 0.5), (250, hi - 0.5), (499, (lo + hi) / 2.0)] {
        x[i] = to;
    }
    let moved = rebuild_and_check(
        &mut grid,
        (&mut x, &mut z, &mut teams),
        10.0,
        1,
        "three moved",
    );
    assert!(moved);
    let m = grid.merged_movers().unwrap();
    assert!((1..=3).contains(&m), "{m} movers");
}

#[test]
fn where_the_merge_cannot_apply_the_counting_sort_runs() {
    for t in THREADS {
        let (mut x, mut z) = points(800, 200.0, false, 8);
        let mut teams = vec![1u8; 800];
        let mut grid = SortedGrid::default();
        rebuild_and_check(&mut grid, (&mut x, &mut z, &mut teams), 10.0, t, "first");
        // A non-finite position: no resident order at all.
        x[17] = f32::NAN;
        let merged = rebuild_and_check(&mut grid, (&mut x, &mut z, &mut teams), 10.0, t, "NaN");
        assert!(!merged && !grid.is_resident());
        x[17] = 50.0;
        rebuild_and_check(
            &mut grid,
            (&mut x, &mut z, &mut teams),
            10.0,
            t,
            "finite again",
        );
        // The world grows: another geometry.
        x[3] = 900.0;
        let merged = rebuild_and_check(&mut grid, (&mut x, &mut z, &mut teams), 10.0, t, "grown");
        assert!(!merged, "a new geometry counting-sorts");
        assert!(
            rebuild_and_check(&mut grid, (&mut x, &mut z, &mut teams), 10.0, t, "steady"),
            "then merges again"
        );
        // Another unit count.
        x.pop();
        z.pop();
        teams.pop();
        let merged = rebuild_and_check(&mut grid, (&mut x, &mut z, &mut teams), 10.0, t, "fewer");
        assert!(!merged, "a new unit count counting-sorts");
        // Another cell size: another geometry.
        let merged = rebuild_and_check(&mut grid, (&mut x, &mut z, &mut teams), 7.0, t, "cell 7");
        assert!(!merged);
    }
}
