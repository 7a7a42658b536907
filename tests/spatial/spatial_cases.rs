//! The hard spatial-query cases S1-S13 of `docs/cases.md`, one test
//! each, with the table's expected values as explicit asserts, plus S14 (a
//! radius whose square overflows) and F1 (found by fuzzing). Every query runs
//! on every strategy x every available kernel; per-unit lists (S7, S8, ...) run
//! through `query_all` on 1, 2 and 3 threads as well.

use crate::common;
use common::*;

use spatial_query_lab::engine::spatial::MAX_CELLS;
use spatial_query_lab::engine::spatial::{
    query_all, validate_cell_size, GridGeometry, Points, Query, QueryResults, Strategy, NO_EXCLUDE,
};

// ---------------------------------------------------------------- helpers

fn xs(pts: &[(f32, f32)]) -> (Vec<f32>, Vec<f32>) {
    (
        pts.iter().map(|p| p.0).collect(),
        pts.iter().map(|p| p.1).collect(),
    )
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// Far-away points appended in a second run of [`assert_query`], so that the
/// grid spans many cells around the case (ids after the case's own points).
const PAD: [(f32, f32); 6] = [
    (-20.0, -20.0),
    (20.0, 20.0),
    (-20.0, 20.0),
    (20.0, -20.0),
    (-19.5, 0.25),
    (0.25, -19.5),
];

/// Runs `q` over `pts` (grid cell `cell`) for every strategy x available
/// kernel and asserts the sorted result equals `expected`. Runs a second time
/// with the [`PAD`] points (those farther than `r + 1` from the center) added,
/// which must not change the result.
fn assert_query(case: &str, pts: &[(f32, f32)], cell: f32, q: Query, expected: &[u32]) {
    assert_query_raw(case, pts, cell, q, expected);
    // Padding assumes far points stay out: not so when r*r overflows.
    if !pts.is_empty() && q.cx.is_finite() && q.cz.is_finite() && (q.r * q.r).is_finite() {
        let mut padded = pts.to_vec();
        padded.extend(PAD.iter().filter(|&&(px, pz)| {
            let (dx, dz) = ((px - q.cx) as f64, (pz - q.cz) as f64);
            (dx * dx + dz * dz).sqrt() > q.r as f64 + 1.0
        }));
        assert_query_raw(&format!("{case} (padded)"), &padded, cell, q, expected);
    }
}

fn assert_query_raw(case: &str, pts: &[(f32, f32)], cell: f32, q: Query, expected: &[u32]) {
    let (x, z) = xs(pts);
    let points = Points::new(&x, &z);
    let expected = sorted(expected.to_vec());
    for s in Strategy::ALL {
        let mut index = s.create();
        index.rebuild(points, cell);
        for k in kernels() {
            let mut got = Vec::new();
            let stats = index.query(points, &q, k, &mut got);
            assert_eq!(
                stats.neighbors as usize,
                got.len(),
                "{case}: {s}/{k}: stats"
            );
            let got = sorted(got);
            assert_eq!(
                got,
                expected,
                "{case}: strategy {s}, kernel {k}, cell {cell}, query {q:?}, {} points",
                pts.len()
            );
        }
    }
}

/// Runs the per-unit pass (radius `r`, grid cell `cell`) for every strategy x
/// available kernel x 1, 2, 3 threads and asserts each unit's sorted list
/// equals `expected[i]` and the total matches.
fn assert_per_unit(case: &str, pts: &[(f32, f32)], cell: f32, r: f32, expected: &[Vec<u32>]) {
    assert_eq!(
        pts.len(),
        expected.len(),
        "{case}: one expected list per unit"
    );
    let (x, z) = xs(pts);
    let points = Points::new(&x, &z);
    let want_total: usize = expected.iter().map(Vec::len).sum();
    let mut results = QueryResults::default();
    for s in Strategy::ALL {
        let mut index = s.create();
        index.rebuild(points, cell);
        for k in kernels() {
            for t in [1, 2, 3] {
                let stats = run_in(t, || query_all(index.as_ref(), points, r, k, &mut results));
                assert_eq!(
                    stats.neighbors as usize, want_total,
                    "{case}: {s}/{k}/{t} threads: total neighbors (r {r}, cell {cell})"
                );
                for (i, want) in expected.iter().enumerate() {
                    let got = sorted(results.neighbors(i).to_vec());
                    assert_eq!(
                        &got,
                        &sorted(want.clone()),
                        "{case}: {s}/{k}/{t} threads: neighbors of unit {i} at {:?} (r {r}, cell {cell})",
                        pts[i]
                    );
                }
            }
        }
    }
}

/// A geometry covering global cells `-10..10` on both axes with edge `cell`.
fn wide_geometry(cell: f32) -> GridGeometry {
    GridGeometry {
        cell,
        origin_x: -10,
        origin_z: -10,
        nx: 20,
        nz: 20,
    }
}

/// Runs `f` on another thread and fails the test if it takes longer than
/// `secs` seconds (a hang), re-raising its panic otherwise.
#[cfg(not(target_arch = "wasm32"))]
fn within<T: Send + 'static>(what: &str, secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    use std::sync::mpsc;
    use std::time::Duration;
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let v = f();
        let _ = tx.send(());
        v
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(()) => handle.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Ok(v) => v,
            Err(p) => {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                panic!("{what}: panicked: {msg}")
            }
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: did not finish within {secs} s (hang)")
        }
    }
}

/// WebAssembly (wasm32-wasip1) has no threads to watch from: runs `f`
/// directly (a hang there hangs the run instead of failing it).
#[cfg(target_arch = "wasm32")]
fn within<T>(_what: &str, _secs: u64, f: impl FnOnce() -> T) -> T {
    f()
}

// ---------------------------------------------------------------- S1

#[test]
fn s01_floor_not_truncate() {
    let g = GridGeometry {
        cell: 1.0,
        ..Default::default()
    };
    assert_eq!(g.coord(-0.3), -1);
    assert_eq!(g.coord(-1.0), -1);
    assert_eq!(g.coord(-1e-7), -1);
    assert_eq!(g.coord(-0.0), 0);
    assert_eq!(g.coord(0.0), 0);
    assert_eq!(g.coord(0.2), 0);
    assert_eq!(g.coord(-1.0000001), -2);

    // cell_of on a grid with columns/rows -10..10: the column/row of -0.3 is
    // global cell -1, i.e. index 9; of 0.2 is global 0, index 10.
    let w = wide_geometry(1.0);
    assert_eq!(w.cell_of(-0.3, 0.0), Some(10 * 20 + 9));
    assert_eq!(w.cell_of(0.0, -0.3), Some(9 * 20 + 10));
    assert_eq!(w.cell_of(-1e-7, -1.0), Some(9 * 20 + 9));
    assert_eq!(w.cell_of(-0.0, -0.0), Some(10 * 20 + 10));
    assert_eq!(w.cell_of(0.2, 0.0), Some(10 * 20 + 10));

    // P = (-0.3, 0) is found from (0.2, 0), r = 0.6 (d = 0.5); the other
    // points are out (d = 0.7 and 1.7). Then the same with the axes swapped.
    let pts = [(-0.3, 0.0), (0.9, 0.0), (-1.5, 0.0)];
    assert_query("S1", &pts, 1.0, Query::new(0.2, 0.0, 0.6), &[0]);
    assert_query("S1 bare", &pts[..1], 1.0, Query::new(0.2, 0.0, 0.6), &[0]);
    let swapped: Vec<(f32, f32)> = pts.iter().map(|&(a, b)| (b, a)).collect();
    assert_query("S1 swapped", &swapped, 1.0, Query::new(0.0, 0.2, 0.6), &[0]);
    assert_query(
        "S1 swapped bare",
        &swapped[..1],
        1.0,
        Query::new(0.0, 0.2, 0.6),
        &[0],
    );
    for s in [Strategy::Grid, Strategy::SortedGrid] {
        let (x, z) = xs(&pts);
        let mut index = s.create();
        index.rebuild(Points::new(&x, &z), 1.0);
        let g = index.geometry().unwrap();
        assert_eq!(
            g.origin_x, -2,
            "{s}: column 0 is global cell floor(-1.5) = -2"
        );
        assert_eq!(g.nx, 3, "{s}: columns -2..0");
        assert_eq!(
            g.cell_of(-0.3, 0.0),
            Some(1),
            "{s}: P sits in global column -1"
        );
    }
}

// ---------------------------------------------------------------- S2

#[test]
fn s02_cells_around_origin() {
    let g = GridGeometry {
        cell: 16.0,
        ..Default::default()
    };
    assert_eq!(g.coord(-15.0), -1);
    assert_eq!(g.coord(15.0), 0);
    assert_eq!(g.coord(-16.0), -1);
    assert_eq!(g.coord(-17.0), -2);

    let pts = [(-15.0, -15.0), (-15.0, 15.0), (15.0, -15.0), (15.0, 15.0)];
    let (x, z) = xs(&pts);
    let fit = GridGeometry::fit(Points::new(&x, &z), 16.0);
    assert_eq!(fit.cell, 16.0);
    assert_eq!((fit.origin_x, fit.origin_z, fit.nx, fit.nz), (-1, -1, 2, 2));
    let global: Vec<(i64, i64)> = pts.iter().map(|&(a, b)| (g.coord(a), g.coord(b))).collect();
    assert_eq!(global, vec![(-1, -1), (-1, 0), (0, -1), (0, 0)]);
    // Row-major (j * nx + i): four different cells.
    let cells: Vec<Option<usize>> = pts.iter().map(|&(a, b)| fit.cell_of(a, b)).collect();
    assert_eq!(cells, vec![Some(0), Some(2), Some(1), Some(3)]);

    for s in [Strategy::Grid, Strategy::SortedGrid] {
        let mut index = s.create();
        index.rebuild(Points::new(&x, &z), 16.0);
        let g = index.geometry().unwrap();
        assert_eq!((g.origin_x, g.origin_z, g.nx, g.nz), (-1, -1, 2, 2), "{s}");
    }
    for (i, &(a, b)) in pts.iter().enumerate() {
        assert_query(
            "S2 each point",
            &pts,
            16.0,
            Query::new(a, b, 0.0),
            &[i as u32],
        );
        assert_query(
            "S2 each point r=29",
            &pts,
            16.0,
            Query::new(a, b, 29.0),
            &[i as u32],
        );
    }
    assert_query("S2 origin", &pts, 16.0, Query::new(0.0, 0.0, 21.0), &[]);
    assert_query(
        "S2 origin",
        &pts,
        16.0,
        Query::new(0.0, 0.0, 21.22),
        &[0, 1, 2, 3],
    );
    assert_query("S2 pair", &pts, 16.0, Query::new(-15.0, 0.0, 15.0), &[0, 1]);
    assert_query("S2 pair", &pts, 16.0, Query::new(0.0, -15.0, 15.0), &[0, 2]);
    let all = vec![vec![1, 2], vec![0, 3], vec![0, 3], vec![1, 2]];
    assert_per_unit("S2", &pts, 16.0, 30.0, &all);
}

// ---------------------------------------------------------------- S3

#[test]
fn s03_upper_border_and_one_point_world() {
    let pts = [(0.0, 0.0), (2.0, 0.0)];
    for s in [Strategy::Grid, Strategy::SortedGrid] {
        let (x, z) = xs(&pts);
        let mut index = s.create();
        index.rebuild(Points::new(&x, &z), 1.0);
        let g = index.geometry().unwrap();
        assert_eq!(
            (g.origin_x, g.nx, g.nz),
            (0, 3, 1),
            "{s}: (2,0) needs its own column"
        );
        assert_eq!(g.cell_of(2.0, 0.0), Some(2), "{s}");
    }
    assert_query("S3", &pts, 1.0, Query::new(2.0, 0.0, 0.1), &[1]);
    assert_query("S3", &pts, 1.0, Query::new(2.0, 0.0, 0.0), &[1]);
    assert_query("S3", &pts, 1.0, Query::new(2.5, 0.5, 1.0), &[1]);
    assert_query("S3", &pts, 1.0, Query::new(0.0, 0.0, 2.0), &[0, 1]);
    assert_query("S3", &pts, 1.0, Query::new(3.0, 0.0, 0.5), &[]);
    assert_per_unit("S3", &pts, 1.0, 2.0, &[vec![1], vec![0]]);
    assert_per_unit("S3", &pts, 1.0, 1.9, &[vec![], vec![]]);

    let one = [(3.0, 3.0)];
    for s in [Strategy::Grid, Strategy::SortedGrid] {
        let (x, z) = xs(&one);
        let mut index = s.create();
        index.rebuild(Points::new(&x, &z), 1.0);
        assert_eq!(
            index.geometry().unwrap().cells(),
            1,
            "{s}: a one-point world has one cell"
        );
    }
    assert_query("S3 one point", &one, 1.0, Query::new(3.0, 3.0, 0.0), &[0]);
    assert_query("S3 one point", &one, 1.0, Query::new(3.5, 3.5, 1.0), &[0]);
    assert_query("S3 one point", &one, 1.0, Query::new(4.0, 4.0, 1.0), &[]);
    assert_per_unit("S3 one point", &one, 1.0, 0.0, &[vec![]]);
    assert_per_unit("S3 one point", &one, 1.0, 5.0, &[vec![]]);
}

// ---------------------------------------------------------------- S4

#[test]
fn s04_points_exactly_at_distance_r() {
    let pts = [(3.0, 4.0), (3.01, 4.01), (5.0, 0.0), (0.0, -5.0)];
    for cell in [1.0, 5.0, 2.5, 0.5, 10.0] {
        assert_query("S4", &pts, cell, Query::new(0.0, 0.0, 5.0), &[0, 2, 3]);
    }
    // Just below r, the exact points drop out; (3.01, 4.01) stays out at 5.01.
    assert_query("S4", &pts, 1.0, Query::new(0.0, 0.0, 4.9999995), &[]);
    assert_query("S4", &pts, 1.0, Query::new(0.0, 0.0, 5.01), &[0, 2, 3]);
    assert_query("S4", &pts, 1.0, Query::new(0.0, 0.0, 5.02), &[0, 1, 2, 3]);
}

// ---------------------------------------------------------------- S5

#[test]
fn s05_radius_not_squared_radius() {
    let pts = [
        (1.0, 2.0),
        (2.0, 3.0),
        (0.0, -1.0),
        (-2.0, 0.0),
        (2.0, -3.0),
        (-4.0, 1.0),
    ];
    for cell in [1.0, 2.5, 6.25, 0.3] {
        assert_query("S5", &pts, cell, Query::new(0.0, 0.0, 2.5), &[0, 2, 3]);
    }
    // The mix-up (comparing d^2 with r, i.e. r = sqrt(2.5) effectively) finds only (0,-1).
    assert_query(
        "S5 mix-up radius",
        &pts,
        1.0,
        Query::new(0.0, 0.0, 2.5f32.sqrt()),
        &[2],
    );
}

// ---------------------------------------------------------------- S6

#[test]
fn s06_stencil_grows_with_radius() {
    let g = wide_geometry(1.0);
    // Unwidened block: floor((0.5 - 2.5) / 1) = -2 to floor((0.5 + 2.5) / 1) = 3.
    assert_eq!(g.coord(0.5 - 2.5), -2);
    assert_eq!(g.coord(0.5 + 2.5), 3);
    let b = g.block(0.5, 0.5, 2.5).expect("block inside the grid");
    let (x0, x1, z0, z1) = (
        b.x0 as i64 - 10,
        b.x1 as i64 - 10,
        b.z0 as i64 - 10,
        b.z1 as i64 - 10,
    );
    for (lo, hi) in [(x0, x1), (z0, z1)] {
        assert!(
            lo <= -2 && hi >= 3,
            "block {lo}..{hi} must cover cells -2..3"
        );
        assert!(
            lo >= -3 && hi <= 4,
            "block {lo}..{hi}: at most one ring of float margin"
        );
    }

    assert_query("S6", &[(2.9, 0.5)], 1.0, Query::new(0.5, 0.5, 2.5), &[0]);
    // Also with the point mirrored to the low side and along z.
    let pts = [
        (2.9, 0.5),
        (-1.9, 0.5),
        (0.5, 2.9),
        (0.5, -1.9),
        (3.1, 0.5),
        (0.5, 3.1),
    ];
    assert_query(
        "S6 four sides",
        &pts,
        1.0,
        Query::new(0.5, 0.5, 2.5),
        &[0, 1, 2, 3],
    );
    let pts = [(1.5, 0.5), (0.5, 0.5)];
    assert_query("S6 r = cell", &pts, 1.0, Query::new(0.5, 0.5, 1.0), &[0, 1]);
    assert_query(
        "S6 r = cell",
        &pts[..1],
        1.0,
        Query::new(0.5, 0.5, 1.0),
        &[0],
    );
    assert_per_unit(
        "S6",
        &[(0.5, 0.5), (2.9, 0.5)],
        1.0,
        2.5,
        &[vec![1], vec![0]],
    );
    assert_per_unit(
        "S6",
        &[(0.5, 0.5), (1.5, 0.5)],
        1.0,
        1.0,
        &[vec![1], vec![0]],
    );
}

// ---------------------------------------------------------------- S7

#[test]
fn s07_many_points_on_a_line_and_a_spot() {
    let mut pts: Vec<(f32, f32)> = (0..33).map(|i| (5.0, i as f32)).collect();
    pts.extend(std::iter::repeat_n((7.0, 7.0), 600));
    let spot: Vec<u32> = (33..633).collect();
    for cell in [1.0, 10.0, 0.25] {
        assert_query(
            "S7 line",
            &pts,
            cell,
            Query::new(5.0, 16.0, 1.0),
            &[15, 16, 17],
        );
        assert_query("S7 spot", &pts, cell, Query::new(7.0, 7.0, 0.0), &spot);
        let from_one = Query {
            exclude: 100,
            ..Query::new(7.0, 7.0, 0.0)
        };
        let others: Vec<u32> = spot.iter().copied().filter(|&i| i != 100).collect();
        assert_eq!(others.len(), 599);
        assert_query("S7 spot, one excluded", &pts, cell, from_one, &others);

        // Per unit, r = 0: each of the 600 lists the other 599.
        let mut want: Vec<Vec<u32>> = vec![Vec::new(); 33];
        want.extend(
            spot.iter()
                .map(|&i| spot.iter().copied().filter(|&j| j != i).collect()),
        );
        assert!(want[33..].iter().all(|l| l.len() == 599));
        assert_per_unit("S7 r = 0", &pts, cell, 0.0, &want);
        // r = 1: the line points see their 1 or 2 line neighbors too.
        for (i, l) in want.iter_mut().enumerate().take(33) {
            *l = [i.checked_sub(1), Some(i + 1).filter(|&j| j < 33)]
                .into_iter()
                .flatten()
                .map(|j| j as u32)
                .collect();
        }
        assert_per_unit("S7 r = 1", &pts, cell, 1.0, &want);
    }
}

// ---------------------------------------------------------------- S8

#[test]
fn s08_self_excluded_by_index_not_distance() {
    let mut pts = vec![
        (10.0, 10.0),
        (20.0, 10.0),
        (40.0, 10.0),
        (15.0, 20.0),
        (30.0, 20.0),
        (30.0, 30.0),
    ];
    let want: Vec<Vec<u32>> = vec![vec![1, 3], vec![0, 3], vec![], vec![0, 1], vec![5], vec![4]];
    for cell in [11.2, 1.0, 5.0, 30.0, 2.8] {
        assert_per_unit("S8", &pts, cell, 11.2, &want);
    }
    pts.push((10.0, 10.0));
    let want: Vec<Vec<u32>> = vec![
        vec![1, 3, 6],
        vec![0, 3, 6],
        vec![],
        vec![0, 1, 6],
        vec![5],
        vec![4],
        vec![0, 1, 3],
    ];
    for cell in [11.2, 1.0, 5.0, 30.0, 2.8] {
        assert_per_unit("S8 with point 6", &pts, cell, 11.2, &want);
        // The point query from (10,10) excluding nothing finds both copies.
        assert_query(
            "S8 point query",
            &pts,
            cell,
            Query::new(10.0, 10.0, 11.2),
            &[0, 1, 3, 6],
        );
        let excl = Query {
            exclude: 0,
            ..Query::new(10.0, 10.0, 11.2)
        };
        assert_query("S8 exclude 0", &pts, cell, excl, &[1, 3, 6]);
        // r = 0: the duplicates and nothing else.
        let want0: Vec<Vec<u32>> = (0..7)
            .map(|i| match i {
                0 => vec![6],
                6 => vec![0],
                _ => vec![],
            })
            .collect();
        assert_per_unit("S8 r = 0", &pts, cell, 0.0, &want0);
    }
}

// ---------------------------------------------------------------- S9

#[test]
fn s09_non_finite_positions() {
    let pts = [
        (f32::NAN, 0.0),
        (0.5, 0.5),
        (f32::INFINITY, 0.0),
        (0.0, f32::NEG_INFINITY),
    ];
    assert_query("S9", &pts, 1.0, Query::new(0.2, 0.2, 1.0), &[1]);
    assert_query(
        "S9 NaN center",
        &pts,
        1.0,
        Query::new(f32::NAN, 0.0, 1.0),
        &[],
    );
    assert_query(
        "S9 NaN center z",
        &pts,
        1.0,
        Query::new(0.0, f32::NAN, 1.0),
        &[],
    );
    assert_query(
        "S9 inf center",
        &pts,
        1.0,
        Query::new(f32::INFINITY, 0.0, 1.0),
        &[],
    );
    assert_query(
        "S9 NaN radius",
        &pts,
        1.0,
        Query::new(0.2, 0.2, f32::NAN),
        &[],
    );
    assert_query(
        "S9 negative radius",
        &pts,
        1.0,
        Query::new(0.2, 0.2, -1.0),
        &[],
    );
    // An infinite radius takes every finite point, never a non-finite one.
    assert_query(
        "S9 infinite radius",
        &pts,
        1.0,
        Query::new(0.2, 0.2, f32::INFINITY),
        &[1],
    );
    // A radius covering everything finite still returns only the finite point.
    assert_query(
        "S9 large radius",
        &pts,
        1.0,
        Query::new(0.0, 0.0, 1e18),
        &[1],
    );
    for cell in [0.5, 4.0] {
        assert_query("S9", &pts, cell, Query::new(0.2, 0.2, 1.0), &[1]);
    }
    // Per unit: the non-finite units get empty lists and are nobody's neighbor.
    assert_per_unit("S9", &pts, 1.0, 1.0, &[vec![], vec![], vec![], vec![]]);
    assert_per_unit("S9", &pts, 1.0, 1e18, &[vec![], vec![], vec![], vec![]]);
    let mut more = pts.to_vec();
    more.push((0.5, 1.0));
    assert_per_unit(
        "S9 + (0.5,1)",
        &more,
        1.0,
        1.0,
        &[vec![], vec![4], vec![], vec![], vec![1]],
    );
    // All non-finite: an empty grid, nothing returned.
    let none = [(f32::NAN, f32::NAN), (f32::INFINITY, 1.0)];
    for s in [Strategy::Grid, Strategy::SortedGrid] {
        let (x, z) = xs(&none);
        let mut index = s.create();
        index.rebuild(Points::new(&x, &z), 1.0);
        assert_eq!(
            index.geometry().unwrap().cells(),
            0,
            "{s}: no finite point, no cell"
        );
    }
    assert_query(
        "S9 no finite point",
        &none,
        1.0,
        Query::new(0.0, 0.0, 1e18),
        &[],
    );
}

// ---------------------------------------------------------------- S10

#[test]
fn s10_tiny_zero_or_invalid_cell_size() {
    assert_eq!(validate_cell_size(1e-6), Ok(1e-6));
    for bad in [0.0f32, -1.0, f32::NAN, f32::INFINITY, -0.0] {
        let msg = validate_cell_size(bad).expect_err("invalid cell size must be rejected");
        assert!(
            msg.contains("cell size") && msg.contains(&format!("{bad}")),
            "the message must name the setting and the value {bad}: {msg:?}"
        );
    }

    let pts = [(0.0f32, 0.0f32), (1000.0, 1000.0)];
    let cap = MAX_CELLS;
    // The table's values first, then the rest of the kind: -0, infinity and
    // the smallest positive (subnormal) cell, which validate_cell_size accepts.
    for cell in [1e-6f32, 0.0, -1.0, f32::NAN, -0.0, f32::INFINITY, 1e-45] {
        let (x, z) = xs(&pts);
        let fit = within("GridGeometry::fit", 20, move || {
            GridGeometry::fit(Points::new(&x, &z), cell)
        });
        assert!(
            fit.cell.is_finite() && fit.cell > 0.0,
            "cell {cell}: effective cell {}",
            fit.cell
        );
        assert!(
            fit.cells() <= cap,
            "cell {cell}: {} cells > {cap}",
            fit.cells()
        );
        for s in Strategy::ALL {
            let (x, z) = xs(&pts);
            let ks = kernels();
            let res = within(&format!("S10 {s} cell {cell}"), 20, move || {
                let mut index = s.create();
                let points = Points::new(&x, &z);
                index.rebuild(points, cell);
                let cells = index.geometry().map(|g| (g.cells(), g.cell));
                let out: Vec<Vec<u32>> = ks
                    .iter()
                    .map(|&k| {
                        let mut v = Vec::new();
                        index.query(points, &Query::new(0.0, 0.0, 0.5), k, &mut v);
                        sorted(v)
                    })
                    .collect();
                (cells, out)
            });
            if let Some((cells, eff)) = res.0 {
                assert!(cells <= cap, "{s}, cell {cell}: {cells} cells > {cap}");
                assert!(
                    eff.is_finite() && eff > 0.0,
                    "{s}, cell {cell}: effective cell {eff}"
                );
            } else {
                assert_eq!(s, Strategy::Naive, "grid strategies report their geometry");
            }
            for (k, got) in kernels().into_iter().zip(&res.1) {
                assert_eq!(got, &vec![0], "{s}/{k}, cell {cell}: query (0,0), r = 0.5");
            }
        }
        assert_query_raw("S10", &pts, cell, Query::new(1000.0, 1000.0, 0.5), &[1]);
        assert_query_raw("S10", &pts, cell, Query::new(500.0, 500.0, 707.2), &[0, 1]);
        assert_per_unit("S10", &pts, cell, 1414.3, &[vec![1], vec![0]]);
    }

    // A tiny cell over a world on both sides of 0: the cell index of every
    // coordinate saturates i64 on both axes; the cell count must stay bounded
    // and the fit must not overflow.
    let wide = [(-20.0f32, -20.0f32), (0.0, 0.0), (1000.0, 1000.0)];
    let cap = MAX_CELLS;
    for cell in [1e-45f32, 1e-40] {
        let (x, z) = xs(&wide);
        let fit = within(
            &format!("GridGeometry::fit of {wide:?} with cell {cell}"),
            20,
            move || GridGeometry::fit(Points::new(&x, &z), cell),
        );
        assert!(
            fit.cells() <= cap,
            "cell {cell}: {} cells > {cap}",
            fit.cells()
        );
        assert_query(
            "S10 both signs",
            &wide,
            cell,
            Query::new(0.0, 0.0, 0.5),
            &[1],
        );
    }
}

// ---------------------------------------------------------------- S11

#[test]
fn s11_query_center_outside_the_world() {
    // World [0, 10]^2: A alone, then A with the world's corners (ids 1..5).
    let alone = [(9.8f32, 5.0f32)];
    let framed = [
        (9.8, 5.0),
        (0.0, 0.0),
        (0.0, 10.0),
        (10.0, 0.0),
        (10.0, 10.0),
    ];
    for pts in [&alone[..], &framed[..]] {
        for cell in [1.0, 0.5, 3.0] {
            assert_query("S11", pts, cell, Query::new(12.0, 5.0, 2.5), &[0]);
            assert_query("S11", pts, cell, Query::new(-100.0, -100.0, 1.0), &[]);
            assert_query("S11", pts, cell, Query::new(10.0, 5.0, 0.3), &[0]);
            // Never moved into the world: from (12,5), r = 1.9 misses A (d = 2.2),
            // though from the clamped center (10,5) it would find it.
            assert_query(
                "S11 not clamped",
                pts,
                cell,
                Query::new(12.0, 5.0, 1.9),
                &[],
            );
            assert_query(
                "S11 not clamped",
                pts,
                cell,
                Query::new(13.0, 5.0, 3.1),
                &[],
            );
            assert_query("S11", pts, cell, Query::new(13.0, 5.0, 3.25), &[0]);
        }
    }
    assert_query(
        "S11 corners",
        &framed,
        1.0,
        Query::new(-1.0, -1.0, 1.5),
        &[1],
    );
    assert_query(
        "S11 corners",
        &framed,
        1.0,
        Query::new(11.0, 11.0, 1.5),
        &[4],
    );
    assert_query("S11 corners", &framed, 1.0, Query::new(1e6, 1e6, 10.0), &[]);
}

// ---------------------------------------------------------------- S12

#[test]
fn s12_no_stale_points_after_the_set_changes() {
    let frame1 = [(0.0f32, 0.0f32), (0.5, 0.0)];
    let frame2 = [(5.0f32, 5.0f32)];
    for cell in [1.0f32, 0.1, 10.0] {
        for s in Strategy::ALL {
            // The SAME index object is rebuilt for frame 2.
            let mut index = s.create();
            for k in kernels() {
                let (x1, z1) = xs(&frame1);
                let p1 = Points::new(&x1, &z1);
                index.rebuild(p1, cell);
                let mut v = Vec::new();
                index.query(p1, &Query::new(0.4, 0.0, 0.2), k, &mut v);
                assert_eq!(sorted(v), vec![1], "{s}/{k}, cell {cell}: frame 1 finds B");

                let (x2, z2) = xs(&frame2);
                let p2 = Points::new(&x2, &z2);
                index.rebuild(p2, cell);
                let mut v = Vec::new();
                index.query(p2, &Query::new(0.4, 0.0, 0.2), k, &mut v);
                assert_eq!(
                    v,
                    Vec::<u32>::new(),
                    "{s}/{k}, cell {cell}: frame 2, stale B"
                );
                let mut v = Vec::new();
                index.query(p2, &Query::new(5.0, 5.0, 0.1), k, &mut v);
                assert_eq!(v, vec![0], "{s}/{k}, cell {cell}: frame 2 finds A at (5,5)");
                let mut v = Vec::new();
                index.query(p2, &Query::new(0.0, 0.0, 1.0), k, &mut v);
                assert_eq!(
                    v,
                    Vec::<u32>::new(),
                    "{s}/{k}, cell {cell}: frame 2, stale A"
                );
                let mut v = Vec::new();
                index.query(p2, &Query::new(2.5, 2.5, 1e3), k, &mut v);
                assert_eq!(v, vec![0], "{s}/{k}, cell {cell}: frame 2 has one unit");

                // Per-unit pass on the shrunk set: one unit, no neighbors.
                let mut res = QueryResults::default();
                for t in [1, 2, 3] {
                    let st = run_in(t, || query_all(index.as_ref(), p2, 1e3, k, &mut res));
                    assert_eq!(st.neighbors, 0, "{s}/{k}/{t} threads, cell {cell}");
                    assert_eq!(res.neighbors(0), &[] as &[u32]);
                }

                // And back to the larger set: both found again.
                index.rebuild(p1, cell);
                let mut v = Vec::new();
                index.query(p1, &Query::new(0.25, 0.0, 0.25), k, &mut v);
                assert_eq!(sorted(v), vec![0, 1], "{s}/{k}, cell {cell}: frame 3");
            }
        }
    }
}

// ---------------------------------------------------------------- S13

#[test]
fn s13_empty_world() {
    let empty: [(f32, f32); 0] = [];
    for cell in [1.0f32, 10.0, 1e-6, 0.0, -1.0, f32::NAN] {
        let fit = GridGeometry::fit(Points::new(&[], &[]), cell);
        assert_eq!(fit.cells(), 0, "cell {cell}: empty world, no cells");
        assert!(
            fit.cell.is_finite(),
            "cell {cell}: effective cell {}",
            fit.cell
        );
        assert_eq!(fit.block(0.0, 0.0, 1.0), None);
        assert_eq!(fit.cell_of(0.0, 0.0), None);

        assert_query_raw("S13", &empty, cell, Query::new(0.0, 0.0, 1.0), &[]);
        assert_query_raw("S13", &empty, cell, Query::new(1e6, -1e6, 5.0), &[]);
        for s in Strategy::ALL {
            let mut index = s.create();
            let points = Points::new(&[], &[]);
            index.rebuild(points, cell);
            if let Some(g) = index.geometry() {
                assert_eq!(g.cells(), 0, "{s}, cell {cell}: 0 cells");
                assert!(g.cell.is_finite() && g.nx == 0 && g.nz == 0, "{s}: {g:?}");
            } else {
                assert_eq!(s, Strategy::Naive);
            }
            let mut res = QueryResults::default();
            for k in kernels() {
                for t in [1, 2, 3] {
                    let st = run_in(t, || query_all(index.as_ref(), points, 10.0, k, &mut res));
                    assert_eq!(st.neighbors, 0, "{s}/{k}/{t} threads");
                    assert_eq!(st.candidates, 0, "{s}/{k}/{t} threads");
                }
            }
            // Emptied after a non-empty frame: nothing stale.
            let (x, z) = xs(&[(0.0, 0.0), (0.5, 0.5)]);
            index.rebuild(Points::new(&x, &z), cell);
            index.rebuild(points, cell);
            if let Some(g) = index.geometry() {
                assert_eq!(g.cells(), 0, "{s}: emptied grid");
            }
            for k in kernels() {
                let mut v = Vec::new();
                let st = index.query(points, &Query::new(0.0, 0.0, 1.0), k, &mut v);
                assert!(v.is_empty(), "{s}/{k}: emptied world returned {v:?}");
                assert_eq!(st.neighbors, 0);
            }
        }
    }
    assert_eq!(NO_EXCLUDE, u32::MAX);
}

/// S10's kind: an invalid cell size with a subnormal extent must not make
/// the fallback cell 0, whose doubling would never end (a hang).
#[test]
fn s10_invalid_cell_with_subnormal_extent_does_not_hang() {
    use spatial_query_lab::engine::spatial::{Points, Query, Strategy};
    let x = [0.0f32, 1e-44];
    let z = [0.0f32, 0.0];
    for cell in [0.0f32, -1.0, f32::NAN, f32::INFINITY] {
        for st in Strategy::ALL {
            let mut index = st.create();
            index.rebuild(Points::new(&x, &z), cell);
            let mut out = Vec::new();
            index.query(
                Points::new(&x, &z),
                &Query::new(0.0, 0.0, 1.0),
                spatial_query_lab::engine::spatial::Kernel::Scalar,
                &mut out,
            );
            out.sort();
            assert_eq!(out, vec![0, 1], "{st} with cell {cell}");
        }
    }
}

// ---------------------------------------------------------------- S14

#[test]
fn s14_a_radius_whose_square_overflows_returns_every_finite_point() {
    // Every finite point lies within a radius whose square overflows f32
    // (or r = +inf), so the query returns all of them, never nothing.
    let pts = [(0.0f32, 0.0f32), (1.0, 1.0), (-5.0, 2.0)];
    for r in [1e30f32, f32::MAX, f32::INFINITY] {
        let q = Query::new(0.0, 0.0, r);
        // Promptly: the block is clipped to the grid, not walked to infinity.
        within(&format!("r = {r}"), 20, move || {
            assert_query(&format!("r = {r}"), &pts, 1.0, q, &[0, 1, 2]);
        });
        // The per-unit pass: each unit has the other two.
        assert_per_unit(
            &format!("per unit, r = {r}"),
            &pts,
            1.0,
            r,
            &[vec![1, 2], vec![0, 2], vec![0, 1]],
        );
    }
    // Far outside any world: found while the squared distance stays finite
    // (r*r is clamped to f32::MAX); beyond that, not.
    let far = [(-1e19f32, 0.0f32), (1e19, 0.0), (0.0, 1e19), (3e38, 0.0)];
    let q = Query::new(0.0, 0.0, f32::INFINITY);
    assert_query_raw("far, r = inf", &far, 1e15, q, &[0, 1, 2]);
    let q = Query::new(0.0, 5.0, 1e30);
    assert_query_raw("far, r = 1e30", &far, 1e15, q, &[0, 1, 2]);
    // A NaN or negative radius still returns nothing.
    for r in [f32::NAN, -1.0, f32::NEG_INFINITY, -0.5] {
        assert_query(&format!("r = {r}"), &pts, 1.0, Query::new(0.0, 0.0, r), &[]);
        assert_per_unit(
            &format!("per unit, r = {r}"),
            &pts,
            1.0,
            r,
            &[vec![], vec![], vec![]],
        );
    }
}

// ------------------------------------------------- found by fuzzing (F1)

#[test]
fn f1_grid_origin_at_the_i64_limit() {
    // A subnormal cell size with a point at -1.7e38 puts the grid's origin
    // cell at i64::MIN, where
    // `origin.abs()` overflows. The rebuild must neither panic (overflow
    // checks) nor take a negative "magnitude" as a reason to choose the f32
    // fast path for a grid it cannot represent.
    let pts = [
        (3.69134e-40f32, -1.7014118e38f32),
        (f32::NAN, 2.3509886e-38),
    ];
    let cell = 4.303e-42;
    assert_query_raw(
        "F1 at the origin",
        &pts,
        cell,
        Query::new(0.0, 0.0, 0.0),
        &[],
    );
    assert_query_raw(
        "F1 at the far point",
        &pts,
        cell,
        Query::new(3.69134e-40, -1.7014118e38, 0.0),
        &[0],
    );
    assert_query_raw(
        "F1 around the far point",
        &pts,
        cell,
        Query::new(0.0, -1.7014118e38, 1.0),
        &[0],
    );
}
