//! Tests of the cell-size sweep on its plan.
use super::*;
use crate::engine::sim::{Reorder, Simulation};
use crate::engine::spatial::{GridGeometry, Kernel, QueryStats};

const R: f32 = 10.0;

fn settings(strategy: Strategy) -> Settings {
    Settings {
        units: 2_000,
        strategy,
        kernel: Kernel::Scalar,
        radius: R,
        cell_size: R,
        cell_follows_radius: false,
        speed: 1.0,
        separation: 0.0,
        reorder: Reorder::Cells,
        ..Settings::default()
    }
}

/// Steps a real simulation with the sweep's cell sizes until it is done,
/// checking progress along the way; returns the steps taken.
fn run(sweep: &mut CellSweep, sim: &mut Simulation, s: &Settings) -> usize {
    let mut steps = 0;
    let mut last = sweep.progress();
    while let Some(cell) = sweep.cell_size() {
        let st = sim.step(
            1.0 / 60.0,
            &Settings {
                cell_size: cell,
                ..s.clone()
            },
        );
        sweep.record_step(&st);
        let p = sweep.progress();
        assert!(p >= last && p <= 1.0, "progress {last} -> {p}");
        last = p;
        steps += 1;
        assert!(steps < 10_000, "the sweep never ends");
    }
    assert_eq!(sweep.progress(), 1.0);
    steps
}

/// A synthetic step: `query_s` and `step_s` seconds at `cell`.
fn step(cell: f32, query_s: f64, step_s: f64, candidates: u64) -> StepStats {
    StepStats {
        query_s,
        rebuild_s: step_s - query_s,
        query: QueryStats {
            candidates,
            neighbors: 100,
        },
        grid: Some(GridGeometry {
            cell,
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn standard_ratios_double_every_three_points_from_a_quarter_to_four() {
    let q = standard_ratios();
    assert_eq!(q.len(), 13);
    assert_eq!(q[0], 0.25);
    assert_eq!(q[12], 4.0);
    assert_eq!(q[6], 1.0);
    for w in q.windows(2) {
        let step = w[1] / w[0];
        assert!((step - 2f32.powf(1.0 / 3.0)).abs() < 1e-5, "{w:?}");
    }
}

#[test]
fn sweep_of_a_real_simulation_measures_every_cell_size() {
    let s = settings(Strategy::Grid);
    let mut sim = Simulation::new(&s);
    sim.step(1.0 / 60.0, &s);
    let mut sweep = CellSweep::new(&s, &standard_ratios(), 3, &Budget::default())
        .with_frame_limit(f64::INFINITY);
    assert_eq!(sweep.progress(), 0.0);
    assert_eq!(sweep.cell_size(), Some(R), "starts at the current cell");
    let steps = run(&mut sweep, &mut sim, &s);
    assert_eq!(steps, 13 * 4, "one warm-up and 3 counted frames each");
    assert!(sweep.notes().is_empty(), "{:?}", sweep.notes());
    let pts = sweep.points();
    assert_eq!(pts.len(), 13);
    for (p, q) in pts.iter().zip(standard_ratios()) {
        assert_eq!(p.cell_size, q * R, "the grid used the swept cell");
        assert!((p.ratio - q).abs() < 1e-6, "{p:?}");
        assert_eq!(p.frames, 3);
        assert!(!p.clamped);
        assert!(p.query_ms > 0.0);
        assert!(p.candidates_per_neighbor >= 1.0, "{p:?}");
        // Expected for a uniform world: the block (2r + c)^2 over the disk pi r^2.
        let model = (2.0 + q as f64).powi(2) / std::f64::consts::PI;
        let rel = p.candidates_per_neighbor / model;
        assert!((0.75..1.3).contains(&rel), "{p:?} vs {model}");
    }
    for w in pts.windows(2) {
        assert!(w[0].cell_size < w[1].cell_size, "ascending: {w:?}");
        assert!(
            w[1].candidates_per_neighbor > w[0].candidates_per_neighbor,
            "larger cells test more candidates per neighbor: {w:?}"
        );
    }
    assert!(pts[12].candidates_per_neighbor > 3.0 * pts[0].candidates_per_neighbor);
    let best = sweep.best().unwrap();
    assert!(pts.contains(best));
    assert!(pts.iter().all(|p| p.query_ms >= best.query_ms));
    // Done: no more cells, records are ignored.
    assert_eq!(sweep.cell_size(), None);
    sweep.record_step(&sim.step(1.0 / 60.0, &s));
    assert_eq!(sweep.points().len(), 13);
}

#[test]
fn warm_up_frames_are_not_counted_and_the_median_is_taken() {
    let s = settings(Strategy::Grid);
    let mut sweep = CellSweep::new(&s, &[1.0, 2.0], 3, &Budget::default());
    assert_eq!(sweep.cell_size(), Some(10.0));
    // Warm-up: slow and with many candidates, neither counted.
    sweep.record_step(&step(10.0, 0.050, 0.060, 1_000_000));
    assert!((sweep.progress() - 0.125).abs() < 1e-6);
    for (q, c) in [(0.002, 300), (0.009, 300), (0.001, 300)] {
        sweep.record_step(&step(10.0, q, q + 0.001, c));
    }
    assert_eq!(sweep.points().len(), 1);
    let p = sweep.points()[0].clone();
    assert!((p.query_ms - 2.0).abs() < 1e-9, "{p:?}");
    assert_eq!(p.candidates_per_neighbor, 3.0);
    assert_eq!(sweep.progress(), 0.5);
    assert_eq!(sweep.cell_size(), Some(20.0));
    for q in [0.004, 0.001, 0.001, 0.001] {
        sweep.record_step(&step(20.0, q, q + 0.001, 500));
    }
    assert!(sweep.is_done());
    assert_eq!(sweep.best().unwrap().cell_size, 20.0);
    assert_eq!(sweep.points()[1].candidates_per_neighbor, 5.0);
}

#[test]
fn cells_below_the_budget_minimum_are_clamped_once_and_skipped() {
    // 40,000 visits at 2,000 units: 20 per query, so the Grid minimum is
    // 2r / (sqrt(20) - 1) = 5.76: 0.25 r to 0.4 r are skipped, 0.5 r is
    // measured at the minimum.
    let s = settings(Strategy::Grid);
    let budget = Budget {
        cell_visits: 40_000.0,
        ..Budget::default()
    };
    let (min, limit) = min_cell_size(
        Strategy::Grid,
        2_000,
        crate::settings::budget::world_for(2_000),
        R,
        &budget,
    );
    assert_eq!(limit, CellLimit::Visits);
    assert!((min - 5.7601).abs() < 1e-3, "{min}");
    let mut sim = Simulation::new(&s);
    let mut sweep =
        CellSweep::new(&s, &standard_ratios(), 1, &budget).with_frame_limit(f64::INFINITY);
    assert_eq!(sweep.planned(), 10);
    run(&mut sweep, &mut sim, &s);
    let pts = sweep.points();
    assert_eq!(pts.len(), 10);
    assert_eq!(pts[0].cell_size, min);
    assert!(pts[0].clamped);
    assert!(pts.iter().all(|p| p.cell_size >= min));
    let skipped = sweep
        .notes()
        .iter()
        .filter(|n| matches!(n, SweepNote::BelowMinimum { .. }))
        .count();
    let clamped: Vec<_> = sweep
        .notes()
        .iter()
        .filter(|n| matches!(n, SweepNote::Clamped { .. }))
        .collect();
    assert_eq!((skipped, clamped.len()), (3, 1), "{:?}", sweep.notes());
    let msg = clamped[0].to_string();
    assert!(msg.contains("5.00") && msg.contains("5.76"), "{msg}");
    // A minimum that is itself a swept cell is measured once, unclamped.
    let budget = Budget {
        cell_visits: 50_000.0,
        ..Budget::default()
    };
    let sweep = CellSweep::new(&s, &standard_ratios(), 1, &budget);
    assert_eq!(sweep.min_cell().0, 5.0);
    assert_eq!(sweep.planned(), 10);
    assert_eq!(sweep.notes().len(), 3);
}

#[test]
fn steps_predicted_over_the_limit_are_skipped() {
    // Query time proportional to the expected cell visits, 20 ms at the
    // baseline cell r: going down, 0.4 r takes 81 ms, so 0.31 r (about
    // 120 ms) and 0.25 r (180 ms) are skipped, predicted from 0.4 r.
    let s = settings(Strategy::Grid);
    let visits = |c: f32| {
        expected_cell_visits(
            Strategy::Grid,
            2_000,
            crate::settings::budget::world_for(2_000),
            R,
            c,
        )
    };
    let t = |c: f32| 0.020 * visits(c) / visits(R);
    let mut sweep = CellSweep::new(&s, &standard_ratios(), 1, &Budget::default())
        .with_frame_limit(0.1)
        .with_baseline(&step(R, t(R), t(R), 0));
    assert_eq!(sweep.frame_limit_s(), 0.1);
    let small = 0.25 * 2f32.powf(1.0 / 3.0) * R;
    assert!((sweep.predict_s(small) - 0.12).abs() < 0.002);
    while let Some(c) = sweep.cell_size() {
        assert!(
            t(c) < 0.1,
            "cell {c} is too slow and should have been skipped"
        );
        sweep.record_step(&step(c, t(c), t(c), 1_000));
    }
    let slow: Vec<f32> = sweep
        .notes()
        .iter()
        .map(|n| match n {
            SweepNote::TooSlow {
                cell,
                measured: false,
                ..
            } => *cell,
            other => panic!("unexpected note {other:?}"),
        })
        .collect();
    assert_eq!(slow, [small, 0.25 * R]);
    assert_eq!(sweep.points().len(), 11);
    assert!(sweep.notes()[1].to_string().contains("180 ms"));
}

#[test]
fn a_warm_up_over_the_limit_drops_its_cell_and_everything_can_be_skipped() {
    let s = settings(Strategy::SortedGrid);
    let mut sweep = CellSweep::new(&s, &[1.0, 2.0], 2, &Budget::default()).with_frame_limit(0.1);
    sweep.record_step(&step(10.0, 0.3, 0.4, 10));
    assert_eq!(sweep.points().len(), 0);
    // The next one is predicted from that frame: too slow as well.
    assert!(sweep.is_done());
    assert!(
        matches!(
            sweep.notes(),
            [
                SweepNote::TooSlow { measured: true, .. },
                SweepNote::TooSlow {
                    measured: false,
                    ..
                }
            ]
        ),
        "{:?}",
        sweep.notes()
    );
    assert!(sweep.notes()[0]
        .to_string()
        .contains("first step took 400 ms"));
    assert_eq!(sweep.best(), None);

    // A real step as the baseline and a limit nothing meets: done at once.
    let mut sim = Simulation::new(&s);
    let base = sim.step(1.0 / 60.0, &s);
    let sweep = CellSweep::standard(&s, &Budget::default())
        .with_baseline(&base)
        .with_frame_limit(0.0);
    assert!(sweep.is_done());
    assert_eq!(sweep.progress(), 1.0);
    assert_eq!(sweep.notes().len(), 13);
}

#[test]
fn stop_keeps_the_points_and_matches_ignores_the_cell_size() {
    let s = settings(Strategy::Grid);
    let mut sim = Simulation::new(&s);
    let mut sweep = CellSweep::new(&s, &standard_ratios(), 1, &Budget::default())
        .with_frame_limit(f64::INFINITY);
    for _ in 0..4 {
        let c = sweep.cell_size().unwrap();
        let st = sim.step(
            1.0 / 60.0,
            &Settings {
                cell_size: c,
                ..s.clone()
            },
        );
        sweep.record_step(&st);
    }
    assert_eq!(sweep.points().len(), 2);
    assert!(sweep.matches(&Settings {
        cell_size: 3.0,
        cell_follows_radius: true,
        ..s.clone()
    }));
    assert!(!sweep.matches(&Settings {
        radius: 11.0,
        ..s.clone()
    }));
    sweep.stop("the radius changed");
    assert!(sweep.is_done());
    assert_eq!(sweep.progress(), 1.0);
    assert_eq!(sweep.points().len(), 2);
    assert_eq!(
        sweep.notes().last().unwrap().to_string(),
        "stopped: the radius changed"
    );
}

/// The window's sweep at 100,000 units: with the default limits every cell
/// size of the standard series is measured (the old limit, 100 ms minus the
/// last picture's drawing, skipped all 13 on the development machines).
///
/// The steps are synthetic so that the test does not depend on the speed of
/// the machine it runs on (under an emulator every step is 20-50x slower and
/// the sweep rightly skips). Their costs follow a linear model calibrated on
/// a measured Grid/AVX2 step at 100,000 units, cell = r (AMD EPYC VM, Zen 4:
/// move 0.24 ms, rebuild 2.8 ms, query 36.1 ms for 4.64 M candidates, apply
/// 1.4 ms), doubled for a busy machine: the rebuild grows with the cell
/// count, the query with the candidates (units x density x the searched
/// block `(2r + cell)^2`) plus the cell visits (`(2r / cell + 2)^2` a unit).
#[test]
fn the_default_limits_measure_every_cell_size_at_100k_units() {
    let s = Settings {
        units: 100_000,
        kernel: Kernel::best(),
        ..settings(Strategy::Grid)
    };
    let (n, l, r) = (s.units as f64, s.world_edge() as f64, R as f64);
    let busy = 2.0;
    let candidates = |c: f64| n * n / (l * l) * (2.0 * r + c).powi(2);
    let visits = |c: f64| n * (2.0 * r / c + 2.0).powi(2);
    let cells = |c: f64| (l / c + 1.0).powi(2);
    // Calibration at cell = r: 60 % of the query time per candidate, 40 %
    // per cell visit; the rebuild half per unit, half per cell.
    let (query0, rebuild0) = (36.1e-3, 2.8e-3);
    let per_candidate = 0.6 * query0 / candidates(r);
    let per_visit = 0.4 * query0 / visits(r);
    let per_cell = 0.5 * rebuild0 / cells(r);
    let synthetic = |cell: f32| {
        let c = cell as f64;
        let query_s = busy * (per_candidate * candidates(c) + per_visit * visits(c));
        let rebuild_s = busy * (0.5 * rebuild0 + per_cell * cells(c));
        StepStats {
            move_s: busy * 0.24e-3,
            apply_s: busy * 1.4e-3,
            ..step(cell, query_s, rebuild_s + query_s, candidates(c) as u64)
        }
    };
    let base = synthetic(R);
    let mut sweep =
        CellSweep::new(&s, &standard_ratios(), 2, &Budget::default()).with_baseline(&base);
    assert_eq!(sweep.frame_limit_s(), SWEEP_SKIP_ABOVE_S);
    let mut steps = 0;
    while let Some(cell) = sweep.cell_size() {
        sweep.record_step(&synthetic(cell));
        steps += 1;
        assert!(steps < 1_000, "the sweep never ends");
    }
    let skipped: Vec<_> = sweep
        .notes()
        .iter()
        .filter(|n| {
            matches!(
                n,
                SweepNote::TooSlow { .. } | SweepNote::BelowMinimum { .. }
            )
        })
        .collect();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(sweep.points().len(), 13, "{:?}", sweep.notes());
}

/// The same sweep on a machine 30 times slower than the model above (an
/// emulator): the smallest and largest cell sizes are predicted above the
/// limit and skipped with a note, never run, and the sweep still ends.
#[test]
fn a_very_slow_machine_skips_the_expensive_cell_sizes_with_a_note() {
    let s = Settings {
        units: 100_000,
        ..settings(Strategy::Grid)
    };
    let slow = |cell: f32| {
        let c = cell as f64 / R as f64;
        // 30 x the model's cost at cell = r, growing with the searched block.
        let query_s = 30.0 * 72e-3 * ((2.0 + c) / 3.0).powi(2).max(1.0 / c);
        step(cell, query_s, query_s + 30.0 * 6e-3, 1)
    };
    let mut sweep =
        CellSweep::new(&s, &standard_ratios(), 2, &Budget::default()).with_baseline(&slow(R));
    let mut steps = 0;
    while let Some(cell) = sweep.cell_size() {
        let st = slow(cell);
        assert!(
            st.total_s() < 4.0 * SWEEP_SKIP_ABOVE_S,
            "cell {cell} ran although predicted far above the limit"
        );
        sweep.record_step(&st);
        steps += 1;
        assert!(steps < 1_000, "the sweep never ends");
    }
    assert_eq!(sweep.progress(), 1.0);
    let too_slow = sweep
        .notes()
        .iter()
        .filter(|n| matches!(n, SweepNote::TooSlow { .. }))
        .count();
    assert!(too_slow > 0, "{:?}", sweep.notes());
    assert_eq!(sweep.points().len() + too_slow, 13, "{:?}", sweep.notes());
}
