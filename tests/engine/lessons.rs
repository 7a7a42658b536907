//! Every bundled lesson run headless against the engine at small unit
//! counts: each step produces its row with the step's settings,
//! and every number in each rendered text equals the value computed here,
//! independently, from the rows (`bench`'s keys) and the sweeps' points.

use spatial_query_lab::engine::spatial::Strategy;
use spatial_query_lab::measure::machine::Machine;
use spatial_query_lab::measure::{Outcome, Row};
use spatial_query_lab::settings::view::{NormalPrecision, VertexLayout};
use spatial_query_lab::teaching::lesson::run::run_all;
use spatial_query_lab::teaching::lesson::text::{
    number_text, ratio_text, Kind, Piece, Value, METRICS,
};
use spatial_query_lab::teaching::lesson::{bundled, LessonOptions, LessonRun, StepResult};

const OPTIONS: LessonOptions = LessonOptions {
    max_units: Some(2_000),
    frames: Some(2),
    rounds: Some(3),
};

/// The value of `reference` (`step.metric`, `metric` of step `this`, or a
/// global) computed from the run's rows.
fn expected(run: &LessonRun, this: usize, reference: &str) -> Option<f64> {
    let reference = reference.trim();
    match reference {
        "machine.cores" => return Some(Machine::current().cores as f64),
        "lesson.units" => return run.unit_choice().map(|c| c.units as f64),
        "lesson.rounds" => return Some(run.rounds() as f64),
        "lesson.frames" => return Some(run.spec().frames as f64),
        _ => {}
    }
    let (k, metric) = match reference.split_once('.') {
        Some((id, m)) => (run.lesson().steps.iter().position(|s| s.id == id)?, m),
        None => (this, reference),
    };
    let view = run.view(k);
    let layout = view.vertex_layout.unwrap_or(VertexLayout::Compressed);
    let bits = view.normal_bits.unwrap_or(NormalPrecision::Oct16);
    match metric {
        "bytes_per_vertex" => return Some(layout.vertex_bytes() as f64),
        "bytes_per_instance" => return Some(layout.instance_bytes() as f64),
        "normal_error_max" => return Some(bits.sphere_error_deg(4096).0),
        "normal_error_mean" => return Some(bits.sphere_error_deg(4096).1),
        _ => {}
    }
    let result = run.result(k)?;
    if let Some(m) = metric.strip_prefix("model_") {
        // Made again here from the step's settings: the model is deterministic.
        let model = spatial_query_lab::measure::model_task::model_row(
            &run.settings(k),
            run.lesson().cache_model,
            &mut Vec::new(),
        )?;
        return match m {
            "lines" => Some(model.lines_touched),
            "l1d_misses" => model.misses.first().copied(),
            "l2_misses" => model.misses.get(1).copied(),
            "llc_misses" => model.misses.last().copied(),
            "bytes_per_candidate" => Some(model.bytes_in_per_candidate),
            _ => None,
        };
    }
    if let Some(m) = metric.strip_prefix("ws_") {
        let (rows, end, what) = ws_rows(result, m)?;
        if m == "points" {
            return Some(rows.len() as f64);
        }
        let row = &rows[end];
        return match what {
            "working_set" => row.working_set_bytes.map(|b| b as f64),
            "ns_per_unit" => row.ns_per_unit,
            "ns_per_candidate" => row.ns_per_candidate,
            _ => None,
        };
    }
    if let Some(m) = metric.strip_prefix("sweep_") {
        let StepResult::Sweep(sw) = result else {
            return None;
        };
        let pts = sw.points();
        return match m {
            "best_cell_over_r" => pts
                .iter()
                .min_by(|a, b| a.query_ms.total_cmp(&b.query_ms))
                .map(|p| p.ratio as f64),
            "cpn_at_r" => pts
                .iter()
                .find(|p| (p.ratio - 1.0).abs() < 1e-3)
                .map(|p| p.candidates_per_neighbor),
            "cpn_at_max" => pts.last().map(|p| p.candidates_per_neighbor),
            "cpn_peak" => pts
                .iter()
                .map(|p| p.candidates_per_neighbor)
                .max_by(f64::total_cmp),
            "cpn_peak_at" => pts
                .iter()
                .max_by(|a, b| {
                    a.candidates_per_neighbor
                        .total_cmp(&b.candidates_per_neighbor)
                })
                .map(|p| p.ratio as f64),
            _ => None,
        };
    }
    let Outcome::Measured(_) = result.outcome()? else {
        return None;
    };
    let row = Row::of(&result.outcome()?);
    let med = row.median_ms?;
    let units = row.settings.units as f64;
    Some(match metric {
        "query_ms" => med.query,
        "total_ms" => med.total,
        "move_ms" => med.move_,
        "rebuild_ms" => med.rebuild,
        "apply_ms" => med.apply,
        "query_min_ms" => row.min_ms?.query,
        "query_max_ms" => row.max_ms?.query,
        "candidates_per_unit" => row.candidates as f64 / units,
        "neighbors_per_unit" => row.neighbors as f64 / units,
        "candidates_per_neighbor" => row.candidates_per_neighbor?,
        "neighbors" => row.neighbors as f64,
        "candidates" => row.candidates as f64,
        "units" => units,
        "threads" => row.settings.threads as f64,
        "cell" => row.cell_size? as f64,
        "cell_over_r" => row.cell_over_r?,
        "result_bytes" => row.result_bytes as f64,
        "working_set" => row.working_set_bytes? as f64,
        "frames" => row.frames as f64,
        "allocations" => row.allocations? as f64,
        "deaths" => row.deaths as f64,
        "spawns" => row.spawns as f64,
        _ => return None,
    })
}

/// A working-set sweep step's rows (`bench`'s keys, one per measured unit
/// count, ascending by units), which end metric `m` (`ws_` stripped) reads
/// (0 first, the last index last) and what it reads there.
fn ws_rows<'a>(result: &StepResult, m: &'a str) -> Option<(Vec<Row>, usize, &'a str)> {
    let StepResult::WorkingSet(c) = result else {
        return None;
    };
    let mut rows: Vec<Row> = c
        .outcomes
        .iter()
        .filter(|o| o.measured().is_some())
        .map(Row::of)
        .collect();
    rows.sort_by_key(|r| r.settings.units);
    if rows.is_empty() {
        return None;
    }
    let last = rows.len() - 1;
    Some(match m.split_once('_') {
        Some(("first", what)) => (rows, 0, what),
        Some(("last", what)) => (rows, last, what),
        _ => (rows, 0, m),
    })
}

/// The value of `reference` in each round, from the run's rows (times: the
/// rows' `rounds`; everything else one exact value), and whether exact.
fn expected_rounds(run: &LessonRun, this: usize, reference: &str) -> Option<(Vec<f64>, bool)> {
    let reference = reference.trim();
    let (k, metric) = match reference.split_once('.') {
        Some((id, m)) => (run.lesson().steps.iter().position(|s| s.id == id)?, m),
        None => (this, reference),
    };
    let pick: fn(&spatial_query_lab::measure::spread::PhaseMs) -> f64 = match metric {
        "query_ms" => |p| p.query,
        "total_ms" => |p| p.total,
        "move_ms" => |p| p.move_,
        "rebuild_ms" => |p| p.rebuild,
        "apply_ms" => |p| p.apply,
        m if m.starts_with("ws_")
            && (m.ends_with("_ns_per_unit") || m.ends_with("_ns_per_candidate")) =>
        {
            let (rows, end, what) = ws_rows(run.result(k)?, &m[3..])?;
            let row = &rows[end];
            let values = row.rounds.iter().map(|r| {
                let per = if what == "ns_per_unit" {
                    row.settings.units as f64
                } else {
                    r.candidates as f64
                };
                r.median_ms.query * 1e6 / per
            });
            return Some((values.collect(), false));
        }
        _ => return expected(run, this, reference).map(|v| (vec![v], true)),
    };
    let row = Row::of(&run.result(k)?.outcome()?);
    Some((
        row.rounds.iter().map(|r| pick(&r.median_ms)).collect(),
        false,
    ))
}

/// The kind of a reference's metric (globals: their own).
fn kind_of(run: &LessonRun, reference: &str) -> Kind {
    let name = reference.rsplit('.').next().unwrap().trim();
    match reference.trim() {
        "machine.cores" | "lesson.units" | "lesson.rounds" | "lesson.frames" => return Kind::Count,
        _ => {}
    }
    let _ = run;
    let m = METRICS.iter().find(|m| m.0 == name).expect("a metric");
    m.1
}

/// Checks every value piece of `pieces` (the text of step `this`, or the
/// conclusion with `this` = the last step) against the rows.
fn check(run: &LessonRun, this: usize, pieces: &[Piece], what: &str) -> usize {
    let mut numbers = 0;
    for p in pieces {
        let Piece::Value { expr, value, shown } = p else {
            continue;
        };
        assert_ne!(*value, Value::Pending, "{what}: {{{expr}}} still pending");
        let (a, b) = match expr.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (expr.as_str(), None),
        };
        match value {
            Value::Number(x) => {
                let ea = expected(run, this, a)
                    .unwrap_or_else(|| panic!("{what}: {{{expr}}} has no row value"));
                let (want, text) = match b {
                    Some(b) => {
                        let eb = expected(run, this, b).expect("denominator");
                        (ea / eb, ratio_text(ea / eb))
                    }
                    None => (ea, number_text(ea, kind_of(run, a))),
                };
                assert!(
                    (x - want).abs() <= 1e-9 * want.abs().max(1.0),
                    "{what}: {{{expr}}} = {x}, the rows give {want}"
                );
                assert_eq!(shown, &text, "{what}: {{{expr}}}");
                numbers += 1;
            }
            Value::Words(w) => {
                let want = match a.trim() {
                    "machine.llc" => Machine::current().llc_text(),
                    "machine.cpu" => Machine::current().cpu.clone(),
                    "lesson.units_why" => run.unit_choice().unwrap().why.clone(),
                    _ => w.clone(),
                };
                assert_eq!(w, &want, "{what}: {{{expr}}}");
            }
            Value::NotRun => {
                // Only a step that did not run (a kernel this CPU lacks)
                // or a count that could not be taken.
                assert!(
                    expected(run, this, a).is_none()
                        || b.is_some_and(|b| expected(run, this, b).is_none()),
                    "{what}: {{{expr}}} shown as not run but the rows have it"
                );
            }
            Value::Verdict(v) => {
                let args = expr
                    .strip_prefix("verdict(")
                    .and_then(|r| r.strip_suffix(')'))
                    .unwrap_or_else(|| panic!("{what}: {{{expr}}} is not a verdict"));
                let (a, b) = args.split_once(',').expect("two references");
                let (ra, ea) = expected_rounds(run, this, a).expect("first side");
                let (rb, eb) = expected_rounds(run, this, b).expect("second side");
                let j = spatial_query_lab::measure::verdict::judge(&ra, &rb, ea && eb)
                    .unwrap_or_else(|| panic!("{what}: {{{expr}}} cannot be judged"));
                assert_eq!(v.verdict, j.verdict, "{what}: {{{expr}}}");
                assert!(
                    (v.ratio - j.ratio).abs() <= 1e-9 * j.ratio,
                    "{what}: {{{expr}}}"
                );
                assert_eq!(v.rounds, (ra.len(), rb.len()), "{what}: {{{expr}}}");
                numbers += 1;
            }
            Value::Pending => unreachable!(),
        }
    }
    numbers
}

#[test]
fn every_bundled_lesson_measures_its_steps_and_quotes_its_rows() {
    for lesson in bundled::all().unwrap_or_else(|e| panic!("{e}")) {
        let name = lesson.name.clone();
        let mut run = LessonRun::new(lesson, OPTIONS);
        let mut quoted = 0;
        run_all(&mut run, |_, _| {});
        assert!(run.is_complete(), "{name}");
        for k in 0..run.len() {
            let want = run.settings(k);
            let what = format!("{name} step {}", run.step(k).id);
            let result = run.result(k).unwrap();
            if let StepResult::WorkingSet(c) = result {
                check_ws_step(&run, k, c, &what);
                quoted += check(&run, k, &run.text(k), &what);
                continue;
            }
            let outcome = result.outcome().unwrap_or_else(|| panic!("{what}: no row"));
            let s = outcome.settings();
            assert_eq!(s.units, want.units.min(2_000), "{what}");
            assert_eq!(s.strategy, want.strategy, "{what}");
            assert_eq!(s.layout, want.layout, "{what}");
            assert_eq!(s.reorder, want.reorder, "{what}");
            assert_eq!(s.pass, want.pass, "{what}");
            assert_eq!(s.workload, want.workload, "{what}");
            assert_eq!(s.threads, want.threads, "{what}");
            if want.strategy != Strategy::Grid {
                assert_eq!(s.kernel, want.kernel, "{what}");
            }
            match (&outcome, run.cannot_run(k)) {
                (Outcome::Skipped(sk), Some(why)) => assert_eq!(sk.why, why, "{what}"),
                (Outcome::Measured(m), None) => {
                    assert_eq!(m.frames, 2, "{what}");
                    assert_eq!(m.rounds.len(), 3, "{what}: every round kept");
                    if !run.step(k).sweep {
                        assert_eq!(m.settings.cell_size, want.cell_size, "{what}");
                    }
                    assert!(m.neighbors > 0, "{what}");
                }
                (o, why) => panic!("{what}: {o:?} but cannot_run = {why:?}"),
            }
            quoted += check(&run, k, &run.text(k), &what);
        }
        quoted += check(
            &run,
            run.len() - 1,
            &run.conclusion(),
            &format!("{name} conclusion"),
        );
        assert!(quoted >= 3, "{name}: only {quoted} numbers quoted");
        // The chart holds one row per measured row step, in step order, and
        // one curve per working-set step.
        let curves = (0..run.len())
            .filter(|&k| matches!(run.result(k), Some(StepResult::WorkingSet(_))))
            .count();
        assert_eq!(run.comparison().ws_curves().len(), curves, "{name}");
        let measured = (0..run.len())
            .filter(|&k| {
                matches!(
                    run.result(k).and_then(StepResult::outcome),
                    Some(Outcome::Measured(_))
                )
            })
            .count();
        assert_eq!(run.comparison().rows().len(), measured, "{name}");
    }
}

/// A working-set sweep step measured every unit count of its span, each
/// with the step's settings but the count, every round kept, and its curve
/// ascends in working set.
fn check_ws_step(
    run: &LessonRun,
    k: usize,
    c: &spatial_query_lab::measure::working_set_sweep::WsCurve,
    what: &str,
) {
    let want = run.settings(k);
    let span = run.span(k).expect("a working-set step has a span");
    assert!(span.units.len() >= 2, "{what}: {:?}", span.units);
    assert!(
        span.units.iter().all(|&u| u <= 2_000),
        "{what}: the cap holds"
    );
    let units: Vec<usize> = c.outcomes.iter().map(|o| o.settings().units).collect();
    assert_eq!(units, span.units, "{what}: every count measured, ascending");
    for o in &c.outcomes {
        let s = o.settings();
        assert_eq!(
            (s.strategy, s.layout, s.reorder, s.pass, s.threads),
            (
                want.strategy,
                want.layout,
                want.reorder,
                want.pass,
                want.threads
            ),
            "{what}"
        );
        let m = o.measured().unwrap_or_else(|| panic!("{what}: {o:?}"));
        assert_eq!(m.rounds.len(), 3, "{what}: every round kept");
        assert!(m.neighbors > 0, "{what}");
    }
    assert_eq!(c.points.len(), span.units.len(), "{what}");
    assert!(
        c.points
            .windows(2)
            .all(|w| w[0].working_set_bytes < w[1].working_set_bytes),
        "{what}: the working set grows with the units"
    );
}

/// Every strategy, kernel and layout finds the same neighbors at the same
/// frame: the lessons' comparisons are of the same work.
#[test]
fn the_algorithms_lesson_finds_the_same_neighbors_with_every_strategy() {
    let lesson = bundled::get("algorithms").unwrap().unwrap();
    let mut run = LessonRun::new(lesson, OPTIONS);
    run_all(&mut run, |_, _| {});
    let rows: Vec<Row> = (0..run.len())
        .map(|k| Row::of(&run.result(k).unwrap().outcome().unwrap()))
        .collect();
    assert_eq!(rows[0].settings.strategy, Strategy::Naive);
    assert!(rows
        .iter()
        .all(|r| r.neighbors == rows[0].neighbors && r.neighbors > 0));
    assert!(
        rows[1].candidates < rows[0].candidates / 10,
        "the grid tests far fewer"
    );
}
