//! The amortized Naive and Grid frame (`Simulation::step_sliced`): a frame whose
//! queries run a slice per call ends exactly where one whole step ends, for
//! every pass, layout and thread count, and no call runs more queries than
//! it was allowed.

use spatial_query_lab::engine::sim::{
    Layout, Pass, Settings, Simulation, Slicing, StepProgress, Workload,
};
use spatial_query_lab::engine::spatial::{Kernel, Strategy};

const DT: f32 = 1.0 / 30.0;

/// At most `queries` queries per call, with no time limit (so the pieces
/// before and after the queries share a call with them).
fn queries(queries: usize) -> Slicing {
    Slicing {
        queries,
        seconds: f64::INFINITY,
    }
}

fn settings(pass: Pass, layout: Layout, threads: usize, workload: Workload) -> Settings {
    Settings {
        units: 1_500,
        workload,
        seed: 9,
        strategy: Strategy::Naive,
        kernel: Kernel::best(),
        threads,
        pass,
        layout,
        speed: 3.0,
        ..Settings::default()
    }
}

/// Steps `sim` through one frame in slices of `max` queries; returns the
/// completed frame's stats and the number of calls.
fn sliced_frame(sim: &mut Simulation, s: &Settings, max: usize) -> (u32, u64) {
    let mut calls = 0;
    let mut last_done = 0;
    loop {
        calls += 1;
        match sim.step_sliced(DT, s, queries(max)) {
            StepProgress::Done(st) => return (calls, st.query.neighbors),
            StepProgress::Partial { done, of, .. } => {
                assert!(done > last_done, "no progress: {done} after {last_done}");
                // Collect slices run whole chunks: at most `max` queries,
                // rounded up to one chunk of at least max / threads.
                assert!(
                    done - last_done <= max,
                    "{} queries > {max}",
                    done - last_done
                );
                assert_eq!(of, sim.len());
                last_done = done;
            }
        }
    }
}

/// Positions and ids of every unit, bit for bit, in storage order.
fn snapshot(sim: &Simulation) -> Vec<(u32, u32, u32)> {
    let store = sim.store();
    (0..sim.len())
        .map(|i| {
            let (x, z) = store.pos(i);
            (x.to_bits(), z.to_bits(), store.hot(i).id)
        })
        .collect()
}

#[test]
fn sliced_frames_end_where_whole_frames_end() {
    for (strategy, workload) in [
        (Strategy::Naive, Workload::Uniform),
        (Strategy::Naive, Workload::Battle),
        (Strategy::Grid, Workload::Battle),
    ] {
        for pass in [Pass::Fused, Pass::Collect] {
            for layout in [Layout::Soa, Layout::Aos] {
                for threads in [1, 2] {
                    let s = Settings {
                        strategy,
                        ..settings(pass, layout, threads, workload)
                    };
                    let mut whole = Simulation::new(&s);
                    let mut sliced = Simulation::new(&s);
                    for frame in 0..6 {
                        let st = whole.step(DT, &s);
                        // A slice size that does not divide the unit count.
                        let (calls, neighbors) = sliced_frame(&mut sliced, &s, 97);
                        let what =
                            format!("{workload} {pass:?} {layout:?} x{threads} frame {frame}");
                        assert!(calls >= 2, "{what}: not sliced ({calls} calls)");
                        assert_eq!(neighbors, st.query.neighbors, "{what}");
                        assert_eq!(sliced.frame(), whole.frame(), "{what}");
                        assert!(
                            snapshot(&sliced) == snapshot(&whole),
                            "{what}: units differ"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_sliced_frame_reports_its_slices_and_summed_query_time() {
    let s = settings(Pass::Fused, Layout::Soa, 1, Workload::Uniform);
    let mut sim = Simulation::new(&s);
    let mut calls = 0;
    let st = loop {
        calls += 1;
        if let StepProgress::Done(st) = sim.step_sliced(DT, &s, queries(500)) {
            break st;
        }
    };
    // 1,500 units at 500 queries per call: three calls.
    assert_eq!((calls, st.slices), (3, 3));
    assert!(st.query_s > 0.0);
    assert_eq!(st.query.candidates, 1_500 * 1_500);
    // A whole step says 1.
    assert_eq!(sim.step(DT, &s).slices, 1);
}

#[test]
fn sorted_grid_and_small_frames_step_whole() {
    let s = Settings {
        strategy: Strategy::SortedGrid,
        ..settings(Pass::Fused, Layout::Soa, 1, Workload::Uniform)
    };
    let mut sim = Simulation::new(&s);
    assert!(
        matches!(sim.step_sliced(DT, &s, queries(1)), StepProgress::Done(st) if st.slices == 1)
    );
    let s = settings(Pass::Fused, Layout::Soa, 1, Workload::Uniform);
    let mut sim = Simulation::new(&s);
    assert!(matches!(
        sim.step_sliced(DT, &s, queries(1_500)),
        StepProgress::Done(_)
    ));
    // Zero counts as one query per call: it still progresses.
    assert!(matches!(
        sim.step_sliced(DT, &s, queries(0)),
        StepProgress::Partial { done: 1, .. }
    ));
}

#[test]
fn changing_the_work_mid_frame_abandons_it() {
    let s = settings(Pass::Fused, Layout::Soa, 1, Workload::Uniform);
    let mut sim = Simulation::new(&s);
    assert!(matches!(
        sim.step_sliced(DT, &s, queries(100)),
        StepProgress::Partial { .. }
    ));
    // Another strategy: the naive frame in progress is dropped and the grid
    // steps whole; its neighbors match a naive frame over the same units.
    let grid = Settings {
        strategy: Strategy::SortedGrid,
        ..s.clone()
    };
    let StepProgress::Done(g) = sim.step_sliced(DT, &grid, queries(100)) else {
        panic!("the grid frame should be whole");
    };
    assert_eq!(sim.frame(), 1);
    let paused = Settings {
        paused: true,
        ..s.clone()
    };
    let (_, naive) = sliced_frame(&mut sim, &paused, 100);
    let paused_grid = Settings {
        paused: true,
        ..grid
    };
    let StepProgress::Done(g2) = sim.step_sliced(DT, &paused_grid, queries(100)) else {
        panic!("the grid frame should be whole");
    };
    assert!(g.query.neighbors > 0);
    assert_eq!(naive, g2.query.neighbors);
    // A respawn mid-frame starts afresh too.
    assert!(matches!(
        sim.step_sliced(DT, &s, queries(100)),
        StepProgress::Partial { .. }
    ));
    let other = Settings { seed: 10, ..s };
    sim.respawn(&other);
    assert!(matches!(
        sim.step_sliced(DT, &other, queries(100)),
        StepProgress::Partial { done: 100, .. }
    ));
}

#[test]
fn with_no_time_to_spare_each_call_runs_exactly_one_piece() {
    // Move, reorder, rebuild, three slices of 500, apply: seven calls, and
    // every call makes progress however small the time budget.
    let s = Settings {
        strategy: Strategy::Grid,
        ..settings(Pass::Fused, Layout::Soa, 1, Workload::Uniform)
    };
    let tight = Slicing {
        queries: 500,
        seconds: 1e-12,
    };
    let mut whole = Simulation::new(&s);
    let mut sliced = Simulation::new(&s);
    for _ in 0..3 {
        let st = whole.step(DT, &s);
        let mut seen = Vec::new();
        let done = loop {
            match sliced.step_sliced(DT, &s, tight) {
                StepProgress::Done(st) => break st,
                StepProgress::Partial { done, .. } => seen.push(done),
            }
            assert!(seen.len() < 10, "no end: {seen:?}");
        };
        assert_eq!(seen, [0, 0, 0, 500, 1000, 1500]);
        assert_eq!(done.slices, 3);
        assert_eq!(done.query.neighbors, st.query.neighbors);
        assert!(snapshot(&sliced) == snapshot(&whole));
    }
}

#[test]
fn a_frame_begun_in_slices_finishes_when_slicing_ends() {
    // The window ends the slicing (queries = usize::MAX) once slices grow
    // past the unit count, possibly in the middle of a frame: the rest of
    // the frame must run whole. `next + usize::MAX` overflowed here.
    for pass in [Pass::Fused, Pass::Collect] {
        let s = Settings {
            strategy: Strategy::Grid,
            ..settings(pass, Layout::Soa, 2, Workload::Uniform)
        };
        let mut whole = Simulation::new(&s);
        let mut sliced = Simulation::new(&s);
        let st = whole.step(DT, &s);
        assert!(matches!(
            sliced.step_sliced(DT, &s, queries(100)),
            StepProgress::Partial { done: 100, .. }
        ));
        let StepProgress::Done(done) = sliced.step_sliced(DT, &s, Slicing::WHOLE) else {
            panic!("{pass:?}: the rest of the frame should run in one call");
        };
        assert_eq!(done.query.neighbors, st.query.neighbors, "{pass:?}");
        assert!(snapshot(&sliced) == snapshot(&whole), "{pass:?}");
    }
}

#[test]
fn neighbor_counts_are_readable_in_the_middle_of_a_sliced_collect_frame() {
    // The window reads neighbor counts every refresh (selected unit,
    // neighbor-heat colors); mid-frame the lists of the units not yet
    // queried are empty chunks, which must read as zero, not panic.
    let s = settings(Pass::Collect, Layout::Soa, 1, Workload::Uniform);
    let mut sim = Simulation::new(&s);
    sim.step(DT, &s);
    assert!(matches!(
        sim.step_sliced(DT, &s, queries(100)),
        StepProgress::Partial { done: 100, .. }
    ));
    let n = sim.len();
    let counts: Vec<usize> = (0..n).map(|i| sim.neighbor_count(i)).collect();
    assert!(
        counts[..100].iter().any(|&c| c > 0),
        "the queried units have lists"
    );
    assert!(
        counts[100..].iter().all(|&c| c == 0),
        "the others read as none yet"
    );
}

#[test]
fn a_kill_during_a_sliced_battle_frame_takes_effect() {
    let s = Settings {
        strategy: Strategy::Naive,
        ..settings(Pass::Fused, Layout::Soa, 1, Workload::Battle)
    };
    let mut sim = Simulation::new(&s);
    sim.step(DT, &s);
    assert!(matches!(
        sim.step_sliced(DT, &s, queries(100)),
        StepProgress::Partial { .. }
    ));
    let victim = sim.handle_of(7);
    sim.kill(7);
    while !matches!(sim.step_sliced(DT, &s, queries(100)), StepProgress::Done(_)) {}
    // Removed at the start of the next frame, like a kill between steps.
    sim.step(DT, &s);
    assert_eq!(sim.resolve(victim), None, "the killed unit is still there");
}
