//! The cell size is used as given from the smallest value the window offers
//! up: `min_cell_for_extent` of the world never makes the grid enlarge the
//! cell (the fault: at 10,000 units, asking for 0.5 / 0.98 / 1.22 / 2.38 gave
//! 4.00 / 3.91 / 2.44 / 2.38, because the old cap of 4 cells per unit doubled
//! small cells).

use spatial_query_lab::engine::sim::{spawn, Workload, STANDARD_RADIUS};
use spatial_query_lab::engine::spatial::{
    min_cell_for_extent, GridGeometry, Points, Strategy, MAX_CELLS,
};
use spatial_query_lab::settings::budget::{min_cell_size, world_for, Budget};

/// `n` cell sizes from `lo` to `hi`, logarithmically spaced, both ends included.
fn log_steps(lo: f32, hi: f32, n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| {
            let t = k as f32 / (n - 1) as f32;
            if k + 1 == n {
                hi
            } else {
                lo * (hi / lo).powf(t)
            }
        })
        .collect()
}

#[test]
fn every_offered_cell_size_is_used_as_given() {
    for units in [1usize, 10, 1_000, 10_000, 200_000] {
        let world = world_for(units);
        let lo = min_cell_for_extent(world);
        for workload in Workload::ALL {
            let u = spawn(units, world, STANDARD_RADIUS, workload, 42);
            let points = Points::new(&u.x, &u.z);
            for cell in log_steps(lo, 200.0, 60) {
                let g = GridGeometry::fit(points, cell);
                assert_eq!(
                    g.cell,
                    cell,
                    "{units} units, {workload}: asked {cell}, got {} ({} cells)",
                    g.cell,
                    g.cells()
                );
                assert!(g.cells() <= MAX_CELLS);
            }
        }
    }
}

#[test]
fn the_reported_sawtooth_is_gone() {
    let world = world_for(10_000);
    let u = spawn(10_000, world, STANDARD_RADIUS, Workload::Uniform, 42);
    let points = Points::new(&u.x, &u.z);
    for cell in [0.5f32, 0.98, 1.22, 2.38] {
        for s in [Strategy::Grid, Strategy::SortedGrid] {
            let mut index = s.create();
            index.rebuild(points, cell);
            assert_eq!(index.geometry().unwrap().cell, cell, "{s}, cell {cell}");
        }
    }
}

#[test]
fn worst_case_boxes_at_the_minimum_stay_within_the_cap() {
    // Points at both ends of [0, L) and boxes straddling cell borders, for
    // worlds from tiny to huge: the minimum cell is kept and the cap holds.
    for world in [1e-3f32, 0.7, 4.43, 443.1, 1981.7, 4431.1, 1e5] {
        let c = min_cell_for_extent(world);
        let top = world * (1.0 - f32::EPSILON);
        let boxes = [
            (0.0, top),
            (c * 0.999, c * 0.999 + world * 0.999),
            (c * 0.5, top),
        ];
        for (lo, hi) in boxes {
            let x = [lo, hi, lo, hi];
            let z = [lo, hi, hi, lo];
            let g = GridGeometry::fit(Points::new(&x, &z), c);
            assert_eq!(g.cell, c, "world {world}, box {lo}..{hi}");
            assert!(g.cells() <= MAX_CELLS, "world {world}: {} cells", g.cells());
        }
    }
}

#[test]
fn the_window_minimum_is_never_below_the_grid_minimum() {
    let b = Budget::default();
    for units in [1usize, 1_000, 10_000, 200_000, 1_000_000] {
        for s in Strategy::ALL {
            for r in [1.0f32, 10.0, 35.0, 100.0] {
                let (c, _) = min_cell_size(s, units, world_for(units), r, &b);
                assert!(
                    c >= min_cell_for_extent(world_for(units)),
                    "{s} {units} {r}"
                );
            }
        }
    }
}
