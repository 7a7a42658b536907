//! The budgets' tests: what settling lowers, raises or announces, and the cost estimates behind it.

use super::*;

fn cost() -> NaiveCost {
    // 1 ns per pair: 10,000 units take 0.1 s, a 1 s frame is 31,622 units.
    NaiveCost::from_seconds_per_pair(&[(Kernel::Scalar, 1e-9)])
}

fn settings(units: usize, radius: f32) -> Settings {
    Settings {
        units,
        radius,
        cell_size: radius,
        kernel: Kernel::Scalar,
        ..Settings::default()
    }
}

#[test]
fn pairs_use_the_world_of_the_new_unit_count() {
    // The estimate uses the world the new unit count gets (1,982 units
    // wide at 200,000 units, r = 10: about 3.2 million pairs, 16 per
    // unit), not the previous count's smaller world (64 million).
    let pairs = expected_pairs(200_000, world_for(200_000), 10.0);
    assert!((pairs / 200_000.0 - 16.0).abs() < 0.01, "{pairs}");
    assert!((world_for(200_000) - 1981.7).abs() < 1.0);
    let mut s = settings(200_000, 10.0);
    let notices = settle(&mut s, &Budget::default());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(s.radius, 10.0);
}

#[test]
fn radius_guard_lowers_to_the_budget_and_the_cell_follows() {
    let b = Budget::default();
    let mut s = settings(200_000, 60.0);
    let notices = settle(&mut s, &b);
    let r_max = max_radius(200_000, world_for(200_000), &b);
    assert_eq!(s.radius, r_max);
    assert!((expected_pairs(200_000, world_for(200_000), r_max) - b.pairs).abs() / b.pairs < 1e-4);
    // 16 pairs per unit at r = 10, so 200 per unit is r = 10 * sqrt(200 / 16).
    assert!((r_max - 35.355).abs() < 0.01, "{r_max}");
    assert_eq!(
        s.cell_size, r_max,
        "cell size = r keeps following the radius"
    );
    assert_eq!(notices.len(), 1);
    let msg = notices[0].to_string();
    assert!(msg.contains("60.00") && msg.contains("35.36"), "{msg}");
    assert!(msg.contains("200,000") && msg.contains("1982"), "{msg}");
    // Settled settings stay put.
    assert!(settle(&mut s, &b).is_empty());
}

#[test]
fn radius_guard_leaves_the_cell_when_it_does_not_follow() {
    let mut s = Settings {
        cell_follows_radius: false,
        cell_size: 25.0,
        ..settings(200_000, 60.0)
    };
    settle(&mut s, &Budget::default());
    assert!(s.radius < 36.0);
    assert_eq!(s.cell_size, 25.0);
}

#[test]
fn small_worlds_never_need_a_lower_radius() {
    // 100 units: 9,900 ordered pairs even if all are neighbors.
    assert_eq!(
        max_radius(100, world_for(100), &Budget::default()),
        f32::INFINITY
    );
    let mut s = settings(100, 1e6);
    assert!(settle(&mut s, &Budget::default()).is_empty());
}

#[test]
fn naive_cost_is_per_kernel_on_dense_arrays_and_per_layout_through_structs() {
    let mut c = cost();
    assert_eq!(
        c.seconds_per_pair(Kernel::Scalar, Layout::HotCold),
        Some(1e-9),
        "hot/cold scans dense arrays like SoA"
    );
    assert_eq!(c.seconds_per_pair(Kernel::Scalar, Layout::Aos), None);
    let t = c.get_or_measure(Kernel::Avx2, Layout::AosPointers, 1, Workload::Uniform);
    assert!(t > 0.0);
    // Through AoS pointers every kernel is the same one-unit-at-a-time scan.
    for k in Kernel::ALL {
        assert_eq!(c.seconds_per_pair(k, Layout::AosPointers), Some(t));
    }
}

#[test]
fn naive_is_amortized_not_refused() {
    let c = cost();
    assert_eq!(
        c.max_units(Kernel::Scalar, Layout::Soa, 1, 1.0),
        Some(31_622)
    );
    assert_eq!(
        c.max_units(Kernel::Scalar, Layout::Soa, 4, 1.0),
        Some(63_245)
    );
    assert!(
        (c.frame_seconds(Kernel::Scalar, Layout::Soa, 10_000, 1)
            .unwrap()
            - 0.1)
            .abs()
            < 1e-12
    );
    assert_eq!(c.frame_seconds(Kernel::Avx2, Layout::Soa, 10_000, 1), None);
    // 1 ns per pair: a query over 1,000,000 units takes 1 ms, so a 0.1 s
    // slice holds 100 queries; two threads double that.
    assert_eq!(
        c.slice_queries(Kernel::Scalar, Layout::Soa, 1_000_000, 1, 0.1),
        Some(100)
    );
    assert_eq!(
        c.slice_queries(Kernel::Scalar, Layout::Soa, 1_000_000, 2, 0.1),
        Some(200)
    );
    // Never zero, whatever the cost.
    assert_eq!(
        c.slice_queries(Kernel::Scalar, Layout::Soa, 1_000_000, 1, 1e-9),
        Some(1)
    );
    // The guard keeps Naive at any count: the frame is amortized.
    let mut slow = Settings {
        strategy: Strategy::Naive,
        ..settings(1_000_000, 10.0)
    };
    assert!(settle(&mut slow, &Budget::default()).is_empty());
    assert_eq!(slow.strategy, Strategy::Naive);
}

#[test]
fn cell_minimum_is_the_cap_over_the_world_for_standard_settings() {
    let b = Budget::default();
    for units in [1, 1_000, 10_000, 200_000, 1_000_000] {
        let cap = min_cell_for_extent(world_for(units));
        for st in [Strategy::Naive, Strategy::SortedGrid] {
            assert_eq!(
                min_cell_size(st, units, world_for(units), 10.0, &b),
                (cap, CellLimit::Cells),
                "{st} {units}"
            );
        }
        // Grid calls the kernel per cell: the visit budget may set its
        // minimum a little above the cap's, 2r / (sqrt(V / N) - 1).
        let (c, limit) = min_cell_size(Strategy::Grid, units, world_for(units), 10.0, &b);
        let visits = (20.0 / ((b.cell_visits / units as f64).sqrt() - 1.0)) as f32;
        assert_eq!(c, cap.max(visits), "{units}: {limit:?}");
        assert_eq!(limit == CellLimit::Cells, cap >= visits);
        assert!(c < 10.0, "{units}: {c}");
    }
    // 10,000 units: the slider starts at about 0.43 for SortedGrid and
    // 0.46 for Grid (it started at 0.5 and silently became 4.0 under the
    // old cap of 4 cells per unit).
    let (c, _) = min_cell_size(Strategy::SortedGrid, 10_000, world_for(10_000), 10.0, &b);
    assert!((c - 0.4335).abs() < 1e-3, "{c}");
    let (c, _) = min_cell_size(Strategy::Grid, 10_000, world_for(10_000), 10.0, &b);
    assert!((c - 0.4574).abs() < 1e-3, "{c}");
}

#[test]
fn cell_minimum_bounds_the_visits_of_a_large_radius() {
    let b = Budget::default();
    let (c, limit) = min_cell_size(Strategy::Grid, 10_000, world_for(10_000), 100.0, &b);
    assert_eq!(limit, CellLimit::Visits);
    let visits = expected_cell_visits(Strategy::Grid, 10_000, world_for(10_000), 100.0, c);
    assert!(
        (visits - b.cell_visits).abs() / b.cell_visits < 1e-3,
        "{visits}"
    );
    // SortedGrid visits rows, not cells: its minimum is the cap.
    let (c2, limit2) = min_cell_size(Strategy::SortedGrid, 10_000, world_for(10_000), 100.0, &b);
    assert_eq!(limit2, CellLimit::Cells);
    assert!(c2 < c);

    let mut s = Settings {
        cell_follows_radius: false,
        cell_size: 0.5,
        strategy: Strategy::Grid,
        ..settings(10_000, 100.0)
    };
    let notices = settle(&mut s, &b);
    assert_eq!(s.cell_size, c);
    assert!(matches!(
        notices[..],
        [GuardNotice::CellRaised {
            limit: CellLimit::Visits,
            ..
        }]
    ));
    assert!(notices[0].to_string().contains("raised to"));
}

#[test]
fn more_units_raise_a_small_cell_with_a_notice() {
    let b = Budget::default();
    let mut s = Settings {
        cell_follows_radius: false,
        cell_size: 0.5,
        strategy: Strategy::SortedGrid,
        ..settings(10_000, 10.0)
    };
    assert!(settle(&mut s, &b).is_empty(), "0.5 is allowed at 10,000");
    s.units = 200_000;
    let notices = settle(&mut s, &b);
    let c_min = min_cell_for_extent(world_for(200_000));
    assert_eq!(s.cell_size, c_min);
    assert!((c_min - 1.94).abs() < 0.01, "{c_min}");
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].kind(), "cell size");
    // NaN never slips through.
    s.cell_size = f32::NAN;
    settle(&mut s, &b);
    assert_eq!(s.cell_size, c_min);
}

#[test]
fn settle_is_idempotent_and_says_each_change_once() {
    // Settling is idempotent: with "= r" on and the radius below the cell
    // minimum, a second call raises nothing and announces nothing.
    let b = Budget::default();
    for units in [1usize, 2, 1_000, 10_000, 200_000, 1_000_000] {
        for radius in [0.01f32, 0.3, 1.0, 10.0, 35.0, 100.0, 1e4] {
            for (cell, follow) in [
                (f32::NAN, false),
                (0.01, false),
                (2.0, false),
                (10.0, true),
                (500.0, false),
            ] {
                for strategy in Strategy::ALL {
                    let mut s = Settings {
                        units,
                        radius,
                        cell_size: cell,
                        cell_follows_radius: follow,
                        strategy,
                        kernel: Kernel::Scalar,
                        ..Settings::default()
                    };
                    settle(&mut s, &b);
                    let once = s.clone();
                    let again = settle(&mut s, &b);
                    let case = format!(
                        "{units} units, r {radius}, cell {cell}, follow {follow}, {strategy}"
                    );
                    assert!(again.is_empty(), "{case}: {again:?}");
                    assert_eq!(s, once, "{case}");
                    assert!(
                        s.cell_size.is_finite() && s.cell_size > 0.0,
                        "{case}: {}",
                        s.cell_size
                    );
                    let (c_min, _) =
                        min_cell_size(s.strategy, units, world_for(units), s.radius, &b);
                    assert!(s.cell_size >= c_min, "{case}");
                }
            }
        }
    }
}

#[test]
fn a_following_cell_stops_at_the_minimum_with_one_notice() {
    let b = Budget::default();
    let mut s = Settings {
        strategy: Strategy::SortedGrid,
        ..settings(200_000, 10.0)
    };
    assert!(settle(&mut s, &b).is_empty());
    s.radius = 1.0;
    let notices = settle(&mut s, &b);
    let c_min = min_cell_for_extent(world_for(200_000));
    assert_eq!(s.cell_size, c_min);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        s.cell_follows_radius,
        "\"= r\" stays on and follows again above the minimum"
    );
    s.radius = 1.5;
    assert!(
        settle(&mut s, &b).is_empty(),
        "still at the minimum: no news"
    );
    s.radius = 5.0;
    assert!(settle(&mut s, &b).is_empty());
    assert_eq!(s.cell_size, 5.0);
}

#[test]
fn the_visit_minimum_counts_the_world_edge() {
    // 1,000 units, r = 100: the block is clipped to the 140-unit world, so
    // a cell of 1.0 visits about 19.9 million cells: within the budget.
    let b = Budget::default();
    assert!(
        expected_cell_visits(Strategy::Grid, 1_000, world_for(1_000), 100.0, 1.0) < b.cell_visits
    );
    let (c, _) = min_cell_size(Strategy::Grid, 1_000, world_for(1_000), 100.0, &b);
    assert!(c <= 1.0, "{c}");
    for units in [1_000usize, 10_000, 200_000, 1_000_000] {
        for r in [1.0f32, 10.0, 100.0, 1e4] {
            for st in [Strategy::Grid, Strategy::SortedGrid] {
                let (c, _) = min_cell_size(st, units, world_for(units), r, &b);
                let v = expected_cell_visits(st, units, world_for(units), r, c);
                assert!(
                    v <= b.cell_visits * 1.0001,
                    "{st} {units} r {r}: {v} at {c}"
                );
            }
        }
    }
}

/// The window's notice for a refused pool names the threads asked for,
/// the threads that run and the OS error, and replaces an older one.
#[test]
fn refused_threads_notice_says_what_runs_and_why() {
    let n = GuardNotice::ThreadsRefused {
        asked: 256,
        ran: 1,
        why: "Resource temporarily unavailable (os error 11)".to_string(),
    };
    let text = n.to_string();
    assert!(text.contains("refused to start 256 threads"), "{text}");
    assert!(
        text.contains("(Resource temporarily unavailable (os error 11))"),
        "{text}"
    );
    assert!(text.contains("running on 1."), "{text}");
    assert_eq!(n.kind(), "threads");
}
