//! Texts that cannot contradict their numbers: every bundled
//! lesson rendered from fabricated rounds in which each compared pair is
//! clearly one way, clearly the other way, and overlapping. In every case:
//! - no plain text claims a direction (a word of
//!   `lesson::claims::DIRECTION_WORDS` outside a verdict or a conditional
//!   branch): such a sentence is shown whatever the numbers say;
//! - every verdict says what the fabricated rounds say;
//! - every conditional branch shown is one whose condition the fabricated
//!   rounds support.
//!
//! Nothing here is measured: the rounds are made up, so the outcome is the
//! same on every machine.

use spatial_query_lab::engine::sim::StepStats;
use spatial_query_lab::engine::spatial::{GridGeometry, QueryStats};
use spatial_query_lab::engine::spatial::{Kernel, Strategy};
use spatial_query_lab::measure::memory::modeled::Modeled;
use spatial_query_lab::measure::spread::PhaseMs;
use spatial_query_lab::measure::verdict::Direction;
use spatial_query_lab::measure::working_set_sweep::WsCurve;
use spatial_query_lab::measure::{Measurement, Outcome, Round, Skipped};
use spatial_query_lab::teaching::lesson::claims::{direction_words, static_claims};
use spatial_query_lab::teaching::lesson::predict::Answer;
use spatial_query_lab::teaching::lesson::text::{Context, Piece, Ref, Value};
use spatial_query_lab::teaching::lesson::{bundled, Lesson, LessonOptions, LessonRun, StepResult};

/// Rounds of every fabricated measurement.
const ROUNDS: usize = 5;
/// Neighbors of every fabricated frame (the same for every step, as the
/// engine finds).
const NEIGHBORS: u64 = 10_000;

/// How the fabricated steps relate.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    /// Step k's values are 2^k: every pair clearly apart, earlier lower.
    Ascending,
    /// The reverse: earlier steps clearly higher.
    Descending,
    /// The same values for every step, in another order each: every pair
    /// overlaps.
    Overlapping,
    /// Each step's level drawn from {1/4, 1, 4} by a seed: a mixture.
    Mixed(u64),
}

impl Shape {
    /// The level of step `k` of `n`.
    fn level(self, k: usize, n: usize) -> f64 {
        match self {
            Shape::Ascending => 2f64.powi(k as i32),
            Shape::Descending => 2f64.powi((n - 1 - k) as i32),
            Shape::Overlapping => 1.0,
            Shape::Mixed(seed) => {
                let h = (seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    .wrapping_mul(0xbf58_476d_1ce4_e5b9)
                    >> 61;
                [0.25, 1.0, 4.0][(h % 3) as usize]
            }
        }
    }

    /// The noise of round `r` of step `k`: ±1% when the levels differ (so
    /// pairs of different levels separate), ±20% rotated per step when they
    /// are all equal (so every pair overlaps).
    fn noise(self, k: usize, r: usize) -> f64 {
        let spread = [-0.2, -0.1, 0.0, 0.1, 0.2];
        match self {
            Shape::Overlapping => spread[(r + k) % ROUNDS],
            _ => spread[(r + 2 * k) % ROUNDS] / 20.0,
        }
    }
}

/// The metrics whose fabricated value follows the step's level; every
/// other metric is the same for every step (or not compared).
fn follows_level(metric: &str) -> bool {
    metric.ends_with("_ms")
        || metric.ends_with("_ns_per_unit")
        || metric.ends_with("_ns_per_candidate")
        || (metric.starts_with("model_") && metric != "model_geometry")
        || metric.starts_with("candidates")
        || metric.starts_with("sweep_cpn")
        || matches!(metric, "allocations" | "deaths" | "spawns")
}

/// A measurement of step `k` whose rounds follow `shape`.
fn fabricated_row(run: &LessonRun, k: usize, shape: Shape) -> Measurement {
    let level = shape.level(k, run.len());
    let rounds: Vec<Round> = (0..ROUNDS)
        .map(|r| {
            let t = level * (1.0 + shape.noise(k, r));
            Round {
                median_ms: PhaseMs {
                    move_: 0.1 * t,
                    rebuild: 0.2 * t,
                    query: t,
                    apply: 0.3 * t,
                    total: 1.6 * t,
                },
                candidates: (level * 40_000.0) as u64,
                neighbors: NEIGHBORS,
            }
        })
        .collect();
    let mut m = Measurement::from_rounds(&run.step(k).title, run.settings(k), 4, rounds);
    m.allocations = Some((level * 100.0) as u64);
    m.deaths = (level * 10.0) as u64;
    m.spawns = m.deaths;
    m
}

/// The sweep of step `k` stepped with fabricated frames: a U-shaped query
/// time over cell / r scaled by the step's level and its round's noise;
/// candidates per neighbor growing with the cell, scaled by the level.
fn fabricated_sweep(run: &LessonRun, k: usize, shape: Shape) -> StepResult {
    let level = shape.level(k, run.len());
    let mut sw = run.sweep(k).expect("a sweep step");
    while let Some(s) = sw.current().cloned() {
        let q = s.cell_size / s.radius;
        let u = 1.0 + (f64::from(q).ln()).powi(2);
        let t = 1e-4 * level * u * (1.0 + shape.noise(k, sw.round()));
        let cpn = level * (2.0 + f64::from(q)).powi(2);
        let st = StepStats {
            query_s: t,
            query: QueryStats {
                candidates: (cpn * NEIGHBORS as f64) as u64,
                neighbors: NEIGHBORS,
            },
            grid: Some(GridGeometry {
                cell: s.cell_size,
                ..Default::default()
            }),
            threads: 1,
            slices: 1,
            ..Default::default()
        };
        sw.record_step(&st);
    }
    StepResult::Sweep(Box::new(sw))
}

/// How much a fabricated working-set curve grows from its first point to
/// its last under `shape`: up, down (so a text's "last against first" is
/// fabricated both ways), or not at all where every pair overlaps.
fn ws_growth(shape: Shape) -> f64 {
    match shape {
        Shape::Overlapping => 1.0,
        Shape::Descending => 0.25,
        Shape::Ascending | Shape::Mixed(_) => 4.0,
    }
}

/// The working-set sweep of step `k`: one measurement per unit count of its
/// span, the cost per unit the step's level times a growth from 1 at the
/// first count to [`ws_growth`] at the last, with the round's noise.
fn fabricated_ws(run: &LessonRun, k: usize, shape: Shape) -> StepResult {
    let level = shape.level(k, run.len());
    let span = run.span(k).expect("a working-set step");
    let n = span.units.len();
    let outcomes: Vec<Outcome> = span
        .units
        .iter()
        .enumerate()
        .map(|(i, &units)| {
            let g = ws_growth(shape).powf(i as f64 / (n - 1).max(1) as f64);
            let rounds: Vec<Round> = (0..ROUNDS)
                .map(|r| {
                    let t = level * g * units as f64 * 1e-4 * (1.0 + shape.noise(k, r));
                    Round {
                        median_ms: PhaseMs {
                            query: t,
                            total: 1.5 * t,
                            ..Default::default()
                        },
                        candidates: units as u64 * 40,
                        neighbors: NEIGHBORS,
                    }
                })
                .collect();
            let mut s = run.settings(k);
            s.units = units;
            Outcome::Measured(Measurement::from_rounds(&run.step(k).title, s, 4, rounds))
        })
        .collect();
    let curve = WsCurve::of(&run.step(k).title, &outcomes, None);
    StepResult::WorkingSet(Box::new(curve))
}

/// A run of `lesson` holding fabricated results of `shape` for every step.
fn fabricated(lesson: &Lesson, shape: Shape) -> LessonRun {
    let options = LessonOptions {
        rounds: Some(ROUNDS),
        frames: Some(1),
        max_units: Some(2_000),
    };
    let mut run = LessonRun::new(lesson.clone(), options);
    for k in 0..run.len() {
        let result = if run.step(k).sweep {
            fabricated_sweep(&run, k, shape)
        } else if run.step(k).working_set_sweep {
            fabricated_ws(&run, k, shape)
        } else {
            StepResult::Row(Outcome::Measured(fabricated_row(&run, k, shape)))
        };
        run.record(k, result);
        run.record_model(k, fabricated_model(&run, k, shape));
    }
    run
}

/// A cache model of step `k` whose counts follow the step's level.
fn fabricated_model(run: &LessonRun, k: usize, shape: Shape) -> Modeled {
    let level = shape.level(k, run.len());
    let geometry = run.lesson().cache_model;
    Modeled {
        geometry,
        levels: geometry.levels(),
        lines_touched: 50.0 * level,
        misses: vec![40.0 * level, 20.0 * level, 5.0 * level],
        bytes_in_per_candidate: 60.0 * level,
        candidates: 45.0,
        queries: 1024,
        ..Default::default()
    }
}

/// What the fabricated rounds say about `factor * a` against `b`.
fn truth(run: &LessonRun, shape: Shape, a: &Ref, factor: f64, b: &Ref) -> Option<Direction> {
    let (Ref::Step(ia, ma), Ref::Step(ib, mb)) = (a, b) else {
        return None;
    };
    let (_, metric_a) = a.names();
    let (_, metric_b) = b.names();
    // A working-set curve's last point against its first is the one
    // comparison of two metrics: the same quantity at two ends.
    fn end(m: &str) -> Option<&str> {
        m.strip_prefix("ws_first_").or(m.strip_prefix("ws_last_"))
    }
    assert!(
        ma == mb || (end(&metric_a).is_some() && end(&metric_a) == end(&metric_b)),
        "a comparison of two different metrics: {metric_a} and {metric_b}"
    );
    if !follows_level(&metric_a) {
        return (factor == 1.0).then_some(Direction::WithinNoise);
    }
    let step = |id: &str| run.lesson().steps.iter().position(|s| s.id == id).unwrap();
    let n = run.len();
    let grown = |m: &str| {
        if m.starts_with("ws_last_") {
            ws_growth(shape)
        } else {
            1.0
        }
    };
    let (la, lb) = (
        factor * shape.level(step(ia), n) * grown(&metric_a),
        shape.level(step(ib), n) * grown(&metric_b),
    );
    let close = (la / lb).ln().abs() < 0.05;
    Some(if close {
        Direction::WithinNoise
    } else if la < lb {
        Direction::AFaster
    } else {
        Direction::BFaster
    })
}

/// The condition of a branch as written (`a.query_ms * 2 > b.query_ms`),
/// parsed back into its parts.
fn parse_condition(run: &LessonRun, this: Option<&str>, by: &str) -> (Ref, f64, char, Ref) {
    let k = by.find(['<', '>', '~']).expect("an operator");
    let op = by.as_bytes()[k] as char;
    let (left, factor) = match by[..k].split_once('*') {
        Some((r, f)) => (r, f.trim().parse::<f64>().unwrap()),
        None => (&by[..k], 1.0),
    };
    let r = |s: &str| -> Ref {
        let s = s.trim();
        let (id, metric) = match s.split_once('.') {
            Some((id, m)) => (id.to_string(), m),
            None => (this.expect("a step's own metric").to_string(), s),
        };
        let _ = run;
        Ref::Step(
            id,
            spatial_query_lab::teaching::lesson::text::metric(metric).unwrap(),
        )
    };
    (r(left), factor, op, r(&by[k + 1..]))
}

/// Checks one rendered text; returns the problems found.
fn problems(
    run: &LessonRun,
    shape: Shape,
    this: Option<&str>,
    pieces: &[Piece],
    what: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    for (word, text) in static_claims(pieces) {
        out.push(format!(
            "{what} ({shape:?}): plain text claims a direction (\"{word}\"): \"{text}\""
        ));
    }
    for p in pieces {
        match p {
            Piece::Value {
                expr,
                value: Value::Verdict(v),
                ..
            } => {
                let args = expr
                    .strip_prefix("verdict(")
                    .and_then(|r| r.strip_suffix(')'))
                    .unwrap();
                let (a, b) = args.split_once(',').unwrap();
                let (ra, _, _, rb) = parse_condition(run, this, &format!("{a} < {b}"));
                if let Some(want) = truth(run, shape, &ra, 1.0, &rb) {
                    if v.verdict != want {
                        out.push(format!(
                            "{what} ({shape:?}): {{{expr}}} says {:?}, the rounds {want:?}",
                            v.verdict
                        ));
                    }
                }
            }
            Piece::Backed { text, by } if by != "else" && !by.starts_with("ran(") => {
                let (a, factor, op, b) = parse_condition(run, this, by);
                let want = match op {
                    '<' => Direction::AFaster,
                    '>' => Direction::BFaster,
                    _ => Direction::WithinNoise,
                };
                if let Some(t) = truth(run, shape, &a, factor, &b) {
                    if t != want {
                        out.push(format!("{what} ({shape:?}): \"{text}\" shown under {{if {by}}}, but the rounds say {t:?}"));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every text of `run` (each step's template, whether or not this CPU runs
/// the step; its absent text; the conclusion) checked.
fn check_run(run: &LessonRun, shape: Shape) -> Vec<String> {
    let cx = Context::of(run);
    let name = &run.lesson().name;
    let mut out = Vec::new();
    for (k, step) in run.lesson().steps.iter().enumerate() {
        let what = format!("{name} step {}", step.id);
        let pieces = step.text.render(&cx);
        assert!(
            pieces.iter().all(|p| !matches!(
                p,
                Piece::Value {
                    value: Value::Pending,
                    ..
                }
            )),
            "{what}: a value is still pending"
        );
        out.extend(problems(run, shape, Some(&step.id), &pieces, &what));
        if let Some(a) = &step.absent {
            for w in direction_words(a) {
                out.push(format!(
                    "{what}: its absent text claims a direction (\"{w}\"): \"{a}\""
                ));
            }
        }
        // A projected question must not presuppose its answer.
        if let Some(p) = &step.predict {
            for w in direction_words(&p.question) {
                out.push(format!(
                    "{what}: its question presupposes a direction (\"{w}\"): \"{}\"",
                    p.question
                ));
            }
            if !matches!(run.answer(k), Some(Answer::Measured(_))) {
                out.push(format!(
                    "{what}: its prediction's answer is not measured from the fabricated rounds"
                ));
            }
        }
    }
    let conclusion = run.lesson().conclusion.render(&cx);
    out.extend(problems(
        run,
        shape,
        None,
        &conclusion,
        &format!("{name} conclusion"),
    ));
    out
}

const SHAPES: [Shape; 7] = [
    Shape::Ascending,
    Shape::Descending,
    Shape::Overlapping,
    Shape::Mixed(1),
    Shape::Mixed(2),
    Shape::Mixed(3),
    Shape::Mixed(4),
];

#[test]
fn every_bundled_lesson_says_only_what_its_rounds_support() {
    let mut problems = Vec::new();
    for lesson in bundled::all().unwrap() {
        // Every pair compared is seen lower, higher and within noise.
        let mut seen: Vec<((String, String), Vec<Direction>)> = Vec::new();
        for shape in SHAPES {
            let run = fabricated(&lesson, shape);
            problems.extend(check_run(&run, shape));
            let templates = lesson
                .steps
                .iter()
                .map(|s| &s.text)
                .chain([&lesson.conclusion]);
            for (a, b) in templates.flat_map(|t| t.compared()) {
                let Some(d) = truth(&run, shape, &a, 1.0, &b) else {
                    continue;
                };
                let key = (format!("{a:?}"), format!("{b:?}"));
                match seen.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, ds)) => ds.push(d),
                    None => seen.push((key, vec![d])),
                }
            }
        }
        for ((a, b), ds) in &seen {
            for want in [
                Direction::AFaster,
                Direction::BFaster,
                Direction::WithinNoise,
            ] {
                assert!(
                    ds.contains(&want),
                    "{}: the pair {a} / {b} was never fabricated {want:?}",
                    lesson.name
                );
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The checker itself: a text that states a direction in plain words beside
/// its numbers is caught, and so is a branch whose condition says the
/// opposite of what its text claims is not (the condition decides).
#[test]
fn a_static_claim_is_caught() {
    let text = r#"
title = "t"
[settings]
units = 2000
[[steps]]
id = "grid"
title = "Grid"
settings = { strategy = "grid" }
text = "Grid: {query_ms} ms."
[[steps]]
id = "sorted"
title = "Sorted"
settings = { strategy = "sorted-grid" }
text = "Sorted: {query_ms} ms; the contiguous runs matter little. Against the grid: {verdict(sorted.query_ms, grid.query_ms)}.{if sorted.query_ms < grid.query_ms} It was faster.{end}"
"#;
    let lesson = Lesson::parse(text, "t.toml", "t").unwrap();
    for shape in [Shape::Ascending, Shape::Descending, Shape::Overlapping] {
        let run = fabricated(&lesson, shape);
        let found = check_run(&run, shape);
        assert_eq!(found.len(), 1, "{shape:?}: {found:#?}");
        assert!(found[0].contains("\"matter little\""), "{}", found[0]);
        let plain = spatial_query_lab::teaching::lesson::text::plain(&run.text(1));
        assert_eq!(
            plain.contains("It was faster"),
            shape == Shape::Descending,
            "{shape:?}: {plain}"
        );
    }
}

/// Whether step `k` of `run` cannot run on some build or machine: a kernel
/// other than Scalar named by the step (each is missing from some build or
/// CPU; `best` is resolved when the file is read, so the lesson-wide
/// default counts as always there), an
/// `all_threads` step (one thread in the browser, or on one core), or a
/// Naive step (its guard skips it where a frame would take too long).
fn skippable(run: &LessonRun, k: usize) -> bool {
    let s = run.settings(k);
    let named = run.step(k).settings.kernel;
    run.step(k).all_threads
        || s.strategy == Strategy::Naive
        || (s.uses_kernel() && named.is_some_and(|k| k != Kernel::Scalar))
}

/// Case X3: every bundled lesson with each combination of its
/// skippable steps skipped, as on ARM, in the browser, on a CPU without
/// AVX-512, on one core or on a slow machine. The texts of the steps that
/// ran, the skipped steps' own texts (their `absent` text) and the
/// conclusion read as sentences: no "(not run)" inside them, no value of a
/// step that did not run.
#[test]
fn a_step_that_cannot_run_leaves_no_hole_in_any_text() {
    let mut holes = Vec::new();
    let mut combinations = 0;
    for lesson in bundled::all().unwrap() {
        let base = fabricated(&lesson, Shape::Mixed(7));
        let skippable: Vec<usize> = (0..base.len())
            .filter(|&k| !base.step(k).sweep && skippable(&base, k))
            .collect();
        assert!(skippable.len() <= 8, "{}: too many to combine", lesson.name);
        for &k in &skippable {
            if base.step(k).absent.is_none() {
                holes.push(format!(
                    "{} step {}: can be skipped but has no `absent` text saying what it would show",
                    lesson.name,
                    base.step(k).id
                ));
            }
        }
        for mask in 1u32..(1 << skippable.len()) {
            combinations += 1;
            let mut run = fabricated(&lesson, Shape::Mixed(7));
            let gone: Vec<usize> = skippable
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, &k)| k)
                .collect();
            for &k in &gone {
                run.record(
                    k,
                    StepResult::Row(Outcome::Skipped(Skipped {
                        label: run.step(k).title.clone(),
                        settings: run.settings(k),
                        why: "fabricated: cannot run here".to_string(),
                        estimate: None,
                        threads_refused: None,
                    })),
                );
            }
            let ids: Vec<&str> = gone.iter().map(|&k| run.step(k).id.as_str()).collect();
            let cx = Context::of(&run);
            let texts = (0..run.len())
                .map(|k| (run.step(k).id.clone(), run.text(k)))
                .chain([("conclusion".to_string(), lesson.conclusion.render(&cx))]);
            for (what, pieces) in texts {
                let hole = pieces.iter().any(|p| {
                    matches!(
                        p,
                        Piece::Value {
                            value: Value::NotRun,
                            ..
                        }
                    )
                });
                if hole {
                    holes.push(format!(
                        "{} {what} with {ids:?} skipped: \"{}\"",
                        lesson.name,
                        spatial_query_lab::teaching::lesson::text::plain(&pieces)
                    ));
                }
            }
        }
    }
    assert!(combinations > 20, "only {combinations} combinations tried");
    assert!(
        holes.is_empty(),
        "{} text(s) with a hole:\n{}",
        holes.len(),
        holes.join("\n")
    );
}
