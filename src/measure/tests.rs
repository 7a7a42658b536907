//! Tests of the measurement engine: the recorder's statistics and settling
//! period, the plan's guards, and the headless drivers against real steps.

use std::sync::Arc;

use super::run::{run_fresh, run_on};
use super::*;
use crate::engine::sim::{Settings, Simulation, StepStats};
use crate::engine::spatial::{GridGeometry, Kernel, QueryStats, Strategy};
use crate::measure::memory::WorkingSet;

/// A synthetic step of `total_ms` milliseconds (all of it query), finding
/// `neighbors` with `candidates` tests, spread over `slices`.
fn step(total_ms: f64, candidates: u64, neighbors: u64, slices: u32) -> StepStats {
    StepStats {
        query_s: total_ms * 1e-3,
        query: QueryStats {
            candidates,
            neighbors,
        },
        grid: Some(GridGeometry {
            cell: 10.0,
            ..Default::default()
        }),
        slices,
        threads: 1,
        ..Default::default()
    }
}

fn frame(st: &StepStats) -> FrameRecord<'_> {
    FrameRecord::headless(st, 100, 64, 0)
}

fn small(strategy: Strategy) -> Settings {
    Settings {
        units: 1_500,
        strategy,
        kernel: Kernel::Scalar,
        separation: 0.0,
        ..Settings::default()
    }
}

#[test]
fn settling_frames_are_not_counted_and_the_spread_is_of_the_counted_ones() {
    let mut r = Recorder::new("x".into(), small(Strategy::Grid), Spec::new(2, 3), None);
    assert!(r.settling());
    // Two settling frames, slow and with other counters: not in the result.
    for st in [step(50.0, 9, 1, 1), step(40.0, 9, 1, 1)] {
        r.record(frame(&st));
    }
    assert!(!r.settling());
    assert!((r.progress() - 0.4).abs() < 1e-12);
    let worker = step(3.0, 300, 100, 4);
    r.record(frame(&step(2.0, 200, 100, 1)));
    r.record(FrameRecord {
        allocations: None,
        worker: true,
        ..frame(&worker)
    });
    assert!(!r.is_done());
    r.record(frame(&step(1.0, 150, 50, 1)));
    assert!(r.is_done());
    // Ignored once done.
    r.record(frame(&step(99.0, 1, 1, 1)));
    let m = r.finish(WorkingSet {
        unit_bytes: 10,
        index_bytes: 5,
    });
    assert_eq!((m.settle, m.frames), (2, 3));
    let q = m.frame_ms.query;
    assert_eq!((q.median, q.min, q.max), (2.0, 1.0, 3.0));
    assert_eq!(m.frame_ms.total, q, "all of each step is query here");
    assert_eq!(m.frame_ms.move_, Spread::default());
    // One round: its median is the measurement's, with no spread.
    assert_eq!(m.rounds.len(), 1);
    assert_eq!(m.rounds[0].median_ms.query, 2.0);
    assert_eq!(
        (m.ms.query.median, m.ms.query.min, m.ms.query.max),
        (2.0, 2.0, 2.0)
    );
    assert_eq!(m.shown(), &m.frame_ms, "one round shows the frames' spread");
    assert!(!m.is_cut());
    // Counters of the last counted frame.
    assert_eq!((m.candidates, m.neighbors), (150, 50));
    assert_eq!(m.candidates_per_neighbor(), 3.0);
    assert_eq!(m.cell_over_r(), Some(1.0));
    assert_eq!(m.result_bytes, 64);
    assert_eq!(m.allocations, None, "one frame could not be counted");
    assert_eq!((m.sliced_frames, m.worker_frames), (1, 1));
    assert_eq!(m.working_set.total(), 15);
    assert!(m.is_noisy(), "3 ms against 1 ms: spread 3x");
}

#[test]
fn a_plan_measures_its_variants_in_order_and_reports_progress() {
    let variants = vec![
        Variant::new("a", small(Strategy::Grid)),
        Variant::new("b", small(Strategy::SortedGrid)),
    ];
    let mut plan = Plan::new(variants, Spec::new(1, 2), Guards::NONE);
    let mut last = plan.progress();
    assert_eq!(last, 0.0);
    let mut steps = 0;
    while let Some(s) = plan.current() {
        let strategy = s.strategy;
        let st = step(if strategy == Strategy::Grid { 4.0 } else { 2.0 }, 10, 5, 1);
        plan.record(frame(&st), WorkingSet::default);
        assert!(plan.progress() > last);
        last = plan.progress();
        steps += 1;
    }
    assert_eq!(steps, 6);
    assert_eq!(plan.progress(), 1.0);
    let labels: Vec<_> = plan.outcomes().iter().map(Outcome::label).collect();
    assert_eq!(labels, ["a", "b"]);
    let m: Vec<_> = plan.measurements().collect();
    assert_eq!(m[0].ms.query.median, 4.0);
    assert_eq!(m[1].ms.query.median, 2.0);
    assert_eq!(m[1].settings.strategy, Strategy::SortedGrid);
}

/// A predictor that says `seconds` for Naive and nothing otherwise.
fn naive_takes(seconds: f64) -> Predictor {
    Arc::new(move |s: &Settings, _: &[Outcome]| {
        (s.strategy == Strategy::Naive).then(|| Estimate {
            seconds,
            how: "test model".into(),
        })
    })
}

const GUARDS: Guards = Guards {
    skip_above_s: 1.0,
    fewer_above_s: 0.1,
    fewer_frames: 2,
};

#[test]
fn a_variant_predicted_over_the_skip_limit_is_skipped_with_the_estimate() {
    let plan = Plan::new(
        vec![
            Variant::new("naive", small(Strategy::Naive)),
            Variant::new("grid", small(Strategy::Grid)),
        ],
        Spec::new(1, 5),
        GUARDS,
    )
    .with_predictor(naive_takes(2.5));
    assert_eq!(plan.position(), Some(1), "naive skipped before any step");
    let Outcome::Skipped(s) = &plan.outcomes()[0] else {
        panic!("{:?}", plan.outcomes());
    };
    assert_eq!(
        s.why,
        "estimated 2.5 s per frame (test model; limit 1.0 s): not run"
    );
    assert_eq!(s.estimate.as_ref().map(|e| e.seconds), Some(2.5));
    assert_eq!(plan.current().map(|s| s.strategy), Some(Strategy::Grid));
}

#[test]
fn a_variant_predicted_slow_is_measured_over_fewer_frames_and_says_so() {
    let mut plan = Plan::new(
        vec![Variant::new("naive", small(Strategy::Naive))],
        Spec::new(3, 10),
        GUARDS,
    )
    .with_predictor(naive_takes(0.4));
    // 13 steps planned, 1 + 2 kept: a fresh run first steps 10 untimed.
    assert_eq!(plan.take_fast_forward(), 10);
    assert_eq!(plan.take_fast_forward(), 0, "taken once");
    for _ in 0..3 {
        plan.record(frame(&step(5.0, 1, 1, 1)), WorkingSet::default);
    }
    assert!(plan.is_done());
    let m = plan.measurements().next().expect("measured");
    assert_eq!((m.settle, m.frames), (1, 2));
    assert_eq!(
        m.note.as_deref(),
        Some("measured over 2 frame(s), not 10: a frame was estimated (test model) to take 400 ms (above 100 ms)")
    );
}

#[test]
fn a_first_frame_over_a_limit_drops_or_shortens_its_variant() {
    let variants = vec![
        Variant::new("slow", small(Strategy::Grid)),
        Variant::new("slower", small(Strategy::Grid)),
        Variant::new("fine", small(Strategy::Grid)),
    ];
    let mut plan = Plan::new(variants, Spec::new(2, 6), GUARDS);
    // 300 ms: above the slow limit, so 1 settling frame (this one) and 2 counted.
    plan.record(frame(&step(300.0, 1, 1, 1)), WorkingSet::default);
    assert_eq!(plan.position(), Some(0));
    assert_eq!(plan.take_fast_forward(), 8 - 3);
    for _ in 0..2 {
        plan.record(frame(&step(250.0, 1, 1, 1)), WorkingSet::default);
    }
    assert_eq!(plan.position(), Some(1));
    // 1.5 s: above the skip limit, dropped after that frame.
    plan.record(frame(&step(1500.0, 1, 1, 1)), WorkingSet::default);
    assert_eq!(plan.position(), Some(2));
    let [Outcome::Measured(slow), Outcome::Skipped(slower)] = plan.outcomes() else {
        panic!("{:?}", plan.outcomes());
    };
    assert_eq!(slow.frames, 2);
    assert_eq!(slow.ms.total.median, 250.0);
    assert!(slow
        .note
        .as_ref()
        .unwrap()
        .contains("its first frame took 300 ms"));
    assert_eq!(
        slower.why,
        "dropped: its first frame took 1.5 s (limit 1.0 s)"
    );
    assert_eq!(slower.estimate.as_ref().unwrap().how, "measured");
    // A normal frame keeps the plan's frames.
    for _ in 0..8 {
        plan.record(frame(&step(2.0, 1, 1, 1)), WorkingSet::default);
    }
    assert!(plan.is_done());
    assert_eq!(plan.measurements().last().unwrap().frames, 6);
}

#[test]
fn marked_variants_are_skipped_and_stop_keeps_what_was_measured() {
    let mut marked = Variant::new("avx-512", small(Strategy::SortedGrid));
    marked.skip = Some("this CPU cannot run AVX-512".into());
    let variants = vec![
        marked,
        Variant::new("a", small(Strategy::Grid)),
        Variant::new("b", small(Strategy::Grid)),
    ];
    let mut plan = Plan::new(variants, Spec::new(0, 1), Guards::NONE);
    assert_eq!(plan.position(), Some(1));
    plan.record(frame(&step(1.0, 1, 1, 1)), WorkingSet::default);
    plan.stop("the radius changed");
    assert!(plan.is_done());
    assert_eq!(plan.stopped(), Some("the radius changed"));
    assert_eq!(plan.outcomes().len(), 2);
    assert_eq!(plan.measurements().count(), 1);
    assert_eq!(plan.progress(), 1.0);
    // Nothing more is recorded.
    plan.record(frame(&step(1.0, 1, 1, 1)), WorkingSet::default);
    assert_eq!(plan.outcomes().len(), 2);
}

/// A naive variant shortened by the guards and fast-forwarded ends on the
/// same frame, so with the same neighbor count, as a full grid run; without
/// the fast-forward the frame differs.
#[test]
fn fresh_runs_end_on_the_same_frame_whatever_the_guards() {
    let s = |strategy| Settings {
        units: 2_000,
        ..small(strategy)
    };
    let mut plan = Plan::new(
        vec![
            Variant::new("naive", s(Strategy::Naive)),
            Variant::new("grid", s(Strategy::Grid)),
        ],
        Spec::new(2, 6),
        // Limits no real frame reaches, even under an emulator (CI runs
        // these tests under qemu, where a naive frame of 2,000 units took
        // over the old 1 s skip limit): only the prediction shortens.
        Guards {
            skip_above_s: f64::INFINITY,
            fewer_above_s: 100.0,
            fewer_frames: 2,
        },
    )
    .with_predictor(naive_takes(500.0));
    let mut seen = Vec::new();
    run_fresh(&mut plan, 1.0 / 60.0, |o| seen.push(o.label().to_string()));
    assert_eq!(seen, ["naive", "grid"]);
    let m: Vec<_> = plan.measurements().collect();
    assert_eq!(m[0].frames, 2, "shortened");
    assert_eq!(m[1].frames, 6);
    assert!(m[1].neighbors > 0);
    assert_eq!(m[0].neighbors, m[1].neighbors);
    assert!(m[0].working_set.unit_bytes > 0);
    assert_eq!(m[0].working_set.index_bytes, 0, "naive has no index");
    assert!(m[1].working_set.index_bytes > 0);

    let mut unguarded = Plan::new(
        vec![Variant::new("naive", s(Strategy::Naive))],
        Spec::new(0, 3),
        Guards::NONE,
    );
    run_fresh(&mut unguarded, 1.0 / 60.0, |_| {});
    let early = unguarded.measurements().next().unwrap();
    assert_ne!(
        early.neighbors, m[1].neighbors,
        "the world should change between frame 3 and 8"
    );
}

/// One simulation stepped through every variant, as the window does: each
/// variant's counters are those of its own settings.
#[test]
fn a_run_on_one_simulation_measures_each_variants_settings() {
    let base = small(Strategy::Grid);
    let mut sim = Simulation::new(&base);
    let variants = [Strategy::Naive, Strategy::Grid, Strategy::SortedGrid]
        .map(|st| {
            Variant::new(
                st.name(),
                Settings {
                    strategy: st,
                    ..base.clone()
                },
            )
        })
        .to_vec();
    let mut plan = Plan::new(variants, Spec::new(1, 2), Guards::NONE);
    run_on(&mut sim, &mut plan, 1.0 / 60.0, |_| {});
    let m: Vec<_> = plan.measurements().collect();
    assert_eq!(m.len(), 3);
    // Naive tests every unit (itself too, excluded by index) in every query.
    assert_eq!(m[0].candidates, 1_500 * 1_500);
    assert!(m[1].candidates < m[0].candidates / 10);
    assert_eq!(m[0].cell_size, None);
    assert_eq!(m[2].cell_size, Some(base.cell_size));
    for x in &m {
        assert!(x.neighbors > 0);
        assert_eq!(x.threads, 1);
        assert!(x.ms.total.min <= x.ms.total.median && x.ms.total.median <= x.ms.total.max);
    }
}

/// Rounds visit the variants in turn (A B A B A B), merge each variant's
/// rounds in order, and make an outcome final only after its last round.
#[test]
fn rounds_interleave_the_variants_and_merge_their_medians() {
    let variants = vec![
        Variant::new("a", small(Strategy::Grid)),
        Variant::new("b", small(Strategy::SortedGrid)),
    ];
    let mut plan = Plan::new(variants, Spec::new(1, 2), Guards::NONE).with_rounds(3);
    assert_eq!(plan.rounds(), 3);
    let mut order = Vec::new();
    let mut visits = Vec::new();
    let mut t = 0.0;
    while let Some(s) = plan.current() {
        let k = plan.position().unwrap();
        if order.last() != Some(&(plan.round(), k)) {
            order.push((plan.round(), k));
            visits.push(plan.visit().unwrap());
        }
        // Each frame slower than the last: the rounds' medians rise.
        t += 1.0;
        let ms = if s.strategy == Strategy::Grid {
            t
        } else {
            100.0 + t
        };
        plan.record(frame(&step(ms, 10, 5, 1)), WorkingSet::default);
        if plan.round() < 2 {
            assert_eq!(plan.finals_len(), 0, "nothing final before the last round");
        }
    }
    assert_eq!(order, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
    visits.dedup();
    assert_eq!(visits.len(), 6, "every visit is a new one");
    let finals: Vec<_> = plan.finals().map(Outcome::label).collect();
    assert_eq!(finals, ["a", "b"]);
    let m: Vec<_> = plan.measurements().collect();
    // a's frames: 1 2 3 | 7 8 9 | 13 14 15 (each round settles one frame).
    let a: Vec<f64> = m[0].rounds.iter().map(|r| r.median_ms.query).collect();
    assert_eq!(a, [2.5, 8.5, 14.5]);
    assert_eq!(
        (m[0].ms.query.median, m[0].ms.query.min, m[0].ms.query.max),
        (8.5, 2.5, 14.5)
    );
    assert_eq!(m[0].frame_ms.query.min, 2.0, "the fastest counted frame");
    assert_eq!(m[0].frame_ms.query.max, 15.0);
    assert_eq!(m[0].frames, 2, "frames per round");
    assert_eq!(m[0].shown(), &m[0].ms);
    assert_eq!(m[1].rounds.len(), 3);
    assert!(m[1].ms.query.min > m[0].ms.query.max);
}

/// A variant the guards skip in the first round is not visited again; one
/// they shorten keeps its frames (and fast-forward) in every round, and
/// every output can say so.
#[test]
fn the_first_rounds_guards_hold_for_every_round() {
    let variants = vec![
        Variant::new("naive", small(Strategy::Naive)),
        Variant::new("slow", small(Strategy::Grid)),
        Variant::new("fine", small(Strategy::SortedGrid)),
    ];
    let mut plan = Plan::new(variants, Spec::new(2, 6), GUARDS)
        .with_predictor(naive_takes(2.5))
        .with_rounds(2);
    assert_eq!(plan.position(), Some(1), "naive skipped before any step");
    assert_eq!(plan.finals_len(), 1);
    // The slow variant's first frame: 300 ms, so 2 counted frames.
    plan.record(frame(&step(300.0, 1, 1, 1)), WorkingSet::default);
    assert_eq!(plan.take_fast_forward(), 8 - 3);
    let mut forwards = Vec::new();
    while let Some(s) = plan.current() {
        let ms = if s.strategy == Strategy::Grid {
            250.0
        } else {
            2.0
        };
        let ff = plan.take_fast_forward();
        if ff > 0 {
            forwards.push((plan.round(), ff));
        }
        plan.record(frame(&step(ms, 1, 1, 1)), WorkingSet::default);
    }
    assert_eq!(forwards, [(1, 5)], "the second round fast-forwards too");
    let m: Vec<_> = plan.measurements().collect();
    assert_eq!(m.len(), 2);
    assert_eq!(
        (m[0].frames, m[0].planned_frames, m[0].rounds.len()),
        (2, 6, 2)
    );
    assert!(m[0].is_cut());
    assert_eq!(
        m[0].cut_note().as_deref(),
        Some("2 of 6 frames per round: its first frame took 300 ms (above 100 ms)")
    );
    assert_eq!((m[1].frames, m[1].rounds.len()), (6, 2));
    assert!(!m[1].is_cut());
}

/// Headless rounds spawn every visit anew, so every round measures the
/// same frames: the same neighbors in each.
#[test]
fn fresh_rounds_measure_the_same_frames() {
    let mut plan = Plan::new(
        vec![
            Variant::new("grid", small(Strategy::Grid)),
            Variant::new("sorted", small(Strategy::SortedGrid)),
        ],
        Spec::new(1, 2),
        Guards::NONE,
    )
    .with_rounds(3);
    let mut seen = Vec::new();
    run_fresh(&mut plan, 1.0 / 60.0, |o| seen.push(o.label().to_string()));
    assert_eq!(seen, ["grid", "sorted"]);
    for m in plan.measurements() {
        assert_eq!(m.rounds.len(), 3);
        let n: Vec<u64> = m.rounds.iter().map(|r| r.neighbors).collect();
        assert!(n.iter().all(|&x| x == n[0] && x > 0), "{n:?}");
    }
}

/// A sliced job (the browser's: long frames spread over calls) measures
/// the same frames as a whole one: the same neighbors, every round, its
/// frames marked as sums of slices.
#[test]
fn a_sliced_job_measures_the_same_frames_as_a_whole_one() {
    use super::run::{Job, Task};
    let s = Settings {
        units: 5_000,
        ..small(Strategy::Naive)
    };
    let plan = || {
        Plan::new(
            vec![Variant::new("naive", s.clone())],
            Spec::new(0, 1),
            Guards::NONE,
        )
        .with_rounds(2)
    };
    let mut whole = Job::new(vec![Task::Plan(plan())], 1.0 / 60.0, false);
    whole.run();
    let mut sliced = Job::new(vec![Task::Plan(plan())], 1.0 / 60.0, false).sliced();
    let mut calls = 0;
    while sliced.step() {
        calls += 1;
    }
    assert!(calls > 2, "the frames were spread over calls: {calls}");
    let m = |j: &Job| match &j.tasks()[0] {
        Task::Plan(p) => p.measurements().next().unwrap().clone(),
        Task::Sweep(_) | Task::Model(_) => unreachable!(),
    };
    let (a, b) = (m(&whole), m(&sliced));
    assert_eq!(a.rounds.len(), 2);
    assert_eq!(b.rounds.len(), 2);
    assert_eq!(a.neighbors, b.neighbors);
    assert!(b.sliced_frames > 0 && a.sliced_frames == 0);
    assert_eq!(
        b.allocations, None,
        "a sliced frame's allocations are not counted"
    );
}
