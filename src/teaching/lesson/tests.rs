//! Tests of lesson files, settings and bookkeeping (the headless runs of
//! every bundled lesson are in `tests/lessons.rs`).
use super::*;
use crate::engine::sim::{Layout, Workload};
use crate::engine::spatial::Kernel;
use crate::measure::run::Task;
use crate::measure::spread::PhaseMs;
use crate::measure::{Measurement, Round, Skipped};
use crate::settings::view::Geometry;

fn parse(text: &str) -> Result<Lesson, LessonError> {
    Lesson::parse(text, "l.toml", "l")
}

const SMALL: &str = r#"
title = "t"
conclusion = "a {a.query_ms} b {b.query_ms}"
[settings]
units = 3000
strategy = "grid"
layout = "aos"

[[steps]]
id = "a"
title = "A"
settings = { strategy = "naive" }
text = "naive {query_ms} ms"

[[steps]]
id = "b"
title = "B"
settings = { units = 5000, cell_size = 20.0 }
text = "grid {b.query_ms} vs {a.query_ms / b.query_ms}x"
"#;

fn measured(run: &LessonRun, k: usize, query_ms: f64) -> StepResult {
    let round = Round {
        median_ms: PhaseMs {
            query: query_ms,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut m = Measurement::from_rounds("x", run.settings(k), 3, vec![round]);
    m.allocations = None;
    m.cell_size = None;
    StepResult::Row(Outcome::Measured(m))
}

#[test]
fn every_bundled_lesson_parses_and_every_file_is_bundled() {
    let all = bundled::all().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(all.len(), 10);
    for (l, name) in all.iter().zip(bundled::names()) {
        assert_eq!(l.name, name);
        assert!(!l.steps.is_empty() && !l.title.is_empty(), "{name}");
        assert!(!l.conclusion.is_empty(), "{name} has no conclusion");
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/lessons");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut names: Vec<String> = bundled::names().map(str::to_string).collect();
    names.sort();
    assert_eq!(files, names, "assets/lessons and bundled::LESSONS differ");
}

#[test]
fn step_settings_go_over_the_lessons_and_the_cap_over_both() {
    let l = parse(SMALL).unwrap();
    assert_eq!(l.name, "l");
    let run = LessonRun::new(l.clone(), LessonOptions::default());
    let a = run.settings(0);
    assert_eq!(
        (a.units, a.strategy, a.layout),
        (3000, Strategy::Naive, Layout::Aos)
    );
    assert!(a.cell_follows_radius);
    let b = run.settings(1);
    assert_eq!(
        (b.units, b.strategy, b.cell_size),
        (5000, Strategy::Grid, 20.0)
    );
    assert!(!b.cell_follows_radius);
    let capped = LessonRun::new(
        l,
        LessonOptions {
            max_units: Some(4000),
            frames: Some(2),
            rounds: Some(3),
        },
    );
    assert_eq!(capped.settings(0).units, 3000);
    assert_eq!(capped.settings(1).units, 4000);
    assert_eq!(capped.spec(), Spec::new(DEFAULT_SETTLE, 2));
    assert_eq!(capped.plan().variants()[1].settings.units, 4000);
    assert_eq!(capped.rounds(), 3);
    assert_eq!(
        capped.plan().rounds(),
        3,
        "the plan measures the run's rounds"
    );
    let run = LessonRun::new(parse(SMALL).unwrap(), LessonOptions::default());
    assert_eq!(run.rounds(), DEFAULT_ROUNDS);
}

#[test]
fn all_threads_and_the_cache_choice_set_threads_and_units() {
    let text = r#"
title = "t"
units_from_cache = 0.1
[[steps]]
id = "a"
title = "A"
all_threads = true
text = "a"
[[steps]]
id = "b"
title = "B"
settings = { units = 1234, threads = 1 }
text = "{lesson.units} because {lesson.units_why}"
"#;
    let run = LessonRun::new(parse(text).unwrap(), LessonOptions::default());
    let cores = crate::measure::machine::Machine::current().cores.max(1);
    assert_eq!(run.settings(0).threads, cores);
    assert_eq!(run.settings(1).threads, 1);
    let choice = run.unit_choice().expect("chosen").clone();
    assert_eq!(run.settings(0).units, choice.units);
    assert_eq!(run.settings(1).units, 1234, "a step's own count wins");
    // One core (wasm32-wasip1, a one-core VM): "every core" is skipped.
    assert_eq!(run.cannot_run(0).is_some(), cores == 1);
    let shown = text::plain(&run.text(1));
    assert!(
        shown.starts_with(&crate::format::thousands(choice.units as u64)),
        "{shown}"
    );
    assert!(shown.contains(&choice.why), "{shown}");
}

#[test]
fn texts_are_pending_until_measured_and_quote_the_measurement() {
    let mut run = LessonRun::new(parse(SMALL).unwrap(), LessonOptions::default());
    assert_eq!(text::plain(&run.text(1)), "grid … vs …x");
    run.record(0, measured(&run, 0, 58.0));
    assert_eq!(text::plain(&run.text(0)), "naive 58.0 ms");
    assert_eq!(text::plain(&run.text(1)), "grid … vs …x");
    run.record(1, measured(&run, 1, 2.0));
    assert_eq!(text::plain(&run.text(1)), "grid 2.00 vs 29x");
    assert_eq!(text::plain(&run.conclusion()), "a 58.0 b 2.00");
    assert!(run.is_complete());
    let c = run.comparison();
    let labels: Vec<&str> = c.rows().iter().map(|m| m.label.as_str()).collect();
    assert_eq!(labels, ["A", "B"]);
    run.clear();
    assert!(run.result(0).is_none());
    assert_eq!(text::plain(&run.text(0)), "naive … ms");
}

#[test]
fn a_step_that_cannot_run_shows_no_numbers_for_it() {
    let missing = Kernel::ALL.into_iter().find(|k| !k.is_available());
    let Some(k) = missing else {
        return; // a CPU with every kernel: nothing to skip here
    };
    let text = format!(
        "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\nsettings = {{ strategy = \"sorted-grid\", kernel = \"{}\" }}\ntext = \"{{query_ms}} ms\"\n",
        k.key()
    );
    let mut run = LessonRun::new(parse(&text).unwrap(), LessonOptions::default());
    let why = run.cannot_run(0).expect("cannot run");
    assert!(why.contains(k.name()), "{why}");
    let plan = run.plan();
    assert!(plan.is_done(), "skipped at once");
    run.record_tasks(&[crate::measure::run::Task::Plan(plan.clone())]);
    // No absent text: nothing, rather than "(not run) ms" (the panel says why).
    assert_eq!(text::plain(&run.text(0)), "");
    assert!(matches!(
        plan.outcomes()[0],
        Outcome::Skipped(Skipped { .. })
    ));
}

#[test]
fn ran_picks_the_branch_for_what_runs_here() {
    let missing = Kernel::ALL.into_iter().find(|k| !k.is_available()).unwrap();
    let text = format!(
        "title = \"t\"\nconclusion = \"{{if ran(b)}}B {{b.query_ms}}{{elif ran(a)}}A {{a.neighbors}}{{else}}none{{end}}\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\nsettings = {{ strategy = \"sorted-grid\", kernel = \"scalar\", units = 500 }}\ntext = \"a\"\n[[steps]]\nid = \"b\"\ntitle = \"B\"\nsettings = {{ strategy = \"sorted-grid\", kernel = \"{}\", units = 500 }}\ntext = \"b\"\n",
        missing.key()
    );
    let run = LessonRun::new(parse(&text).unwrap(), LessonOptions::default());
    let why = run.cannot_run(1).unwrap();
    assert!(why.contains(missing.name()), "{why}");
    // Known before measuring: the branch of the step that runs, pending.
    assert_eq!(
        text::plain(&run.conclusion()),
        format!("A {}", text::PENDING)
    );
    let bad = text.replace("ran(b)", "ran(c)");
    let e = parse(&bad).unwrap_err().to_string();
    assert!(e.contains("no step has the id 'c'"), "{e}");
}

#[test]
fn differences_name_the_settings_the_user_changed() {
    let text = r#"
title = "t"
[[steps]]
id = "a"
title = "A"
settings = { strategy = "grid", layout = "soa", units = 2000 }
text = "x"
[[steps]]
id = "s"
title = "S"
sweep = true
settings = { strategy = "grid", units = 2000 }
text = "x"
"#;
    let run = LessonRun::new(parse(text).unwrap(), LessonOptions::default());
    let mut live = run.settings(0);
    assert!(run.differences(0, &live).is_empty());
    live.strategy = Strategy::SortedGrid;
    live.layout = Layout::Aos;
    assert_eq!(run.differences(0, &live), ["strategy", "layout"]);
    let mut live = run.settings(1);
    live.cell_size *= 2.0;
    assert!(
        run.differences(1, &live).is_empty(),
        "a sweep sets the cell itself"
    );
    live.workload = Workload::Battle;
    assert_eq!(run.differences(1, &live), ["workload"]);
    assert!(run.sweep(1).is_some() && run.sweep(0).is_none());
}

/// Every kind of bad file: one line naming the file, the line and the field.
#[test]
fn bad_files_give_one_line_with_file_line_and_field() {
    let cases: [(&str, &str); 10] = [
        (
            "title = \"t\"\n[settings]\nunits = 0\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"x\"\n",
            "l.toml:3: units: must be 1 to 1000000 units, got 0",
        ),
        (
            "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\nsettings = { strategy = \"fast\" }\ntext = \"x\"\n",
            "l.toml:5: strategy: must be one of naive, grid, sorted-grid, got \"fast\"",
        ),
        (
            "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\nsettings = { unitz = 3 }\ntext = \"x\"\n",
            "l.toml:5: unitz: unknown field `unitz`",
        ),
        (
            "title = \"t\"\nframes = 0\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"x\"\n",
            "l.toml:2: frames: must be a whole number from 1 to 1000, got 0",
        ),
        (
            "title = \"t\"\nframes = \"many\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"x\"\n",
            "l.toml:2: frames: must be a whole number from 1 to 1000, got \"many\"",
        ),
        (
            "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"\"\"\nline one\n{a.speed_ms}\"\"\"\n",
            "l.toml:7: text: {a.speed_ms}: \"speed_ms\" is not a metric",
        ),
        (
            "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"{b.query_ms}\"\n[[steps]]\nid = \"b\"\ntitle = \"B\"\ntext = \"x\"\n",
            "l.toml:5: text: {b.query_ms}: \"b\" is not the id of this step or an earlier one",
        ),
        (
            "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"x\"\n[[steps]]\nid = \"a\"\ntitle = \"B\"\ntext = \"x\"\n",
            "l.toml:7: id: \"a\" names two steps",
        ),
        (
            "title = \"t\"\nsteps = []\n",
            "l.toml:2: steps: a lesson needs at least one [[steps]] table",
        ),
        (
            "title = \"t\"\n[[steps]]\nid = \"a b\"\ntitle = \"A\"\ntext = \"x\"\n",
            "l.toml:3: id: must be letters, digits",
        ),
    ];
    for (text, want) in cases {
        let e = parse(text).expect_err(text).to_string();
        assert!(e.starts_with(want), "{text}\ngot:  {e}\nwant: {want}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let e = parse("[[steps]]\nid = \"a\"\ntext = \"x\"\ntitle = \"A\"\n").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("title"), "{e}");
}

#[test]
#[cfg_attr(
    target_arch = "wasm32",
    ignore = "no temp dir or process id on wasm32-wasip1"
)]
fn a_missing_or_non_utf8_file_is_one_line() {
    let e = Lesson::load(std::path::Path::new("/no/such/lesson.toml")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/no/such/lesson.toml: cannot read"),
        "{e}"
    );
    let dir = std::env::temp_dir().join(format!("sql-lesson-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.toml");
    std::fs::write(&p, b"title = \"\xff\"").unwrap();
    let e = Lesson::load(&p).unwrap_err().to_string();
    assert!(e.contains("not UTF-8"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Case X7: a sweep step on Naive (no cells to sweep) is refused when the
/// lesson loads, naming the file, the line and the field.
#[test]
fn a_sweep_step_on_naive_is_refused_at_load() {
    let text = "title = \"t\"\n[settings]\nstrategy = \"naive\"\n[[steps]]\nid = \"s\"\ntitle = \"S\"\nsweep = true\ntext = \"x\"\n";
    let e = parse(text).unwrap_err().to_string();
    assert!(e.starts_with("l.toml:7: sweep: "), "{e}");
    assert!(e.contains("Naive"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    // The step's own strategy overrides the lesson's.
    let ok = text.replace(
        "sweep = true",
        "sweep = true\nsettings = { strategy = \"grid\" }",
    );
    assert!(parse(&ok).is_ok());
}

/// Case X10: a step title holding `|` and a line break keeps the Markdown
/// whole: headings on one line, every table row with as many cells as the
/// header.
#[test]
fn user_text_does_not_break_the_markdown() {
    let text = SMALL.replace("title = \"A\"", "title = \"A | naive\\nscan\"");
    let mut run = LessonRun::new(parse(&text).unwrap(), LessonOptions::default());
    run.record(0, measured(&run, 0, 4.0));
    run.record(1, measured(&run, 1, 1.0));
    let md = export::to_markdown(&run, crate::measure::machine::Machine::current());
    assert!(md.contains("## 1. A | naive scan\n"), "{md}");
    let cells = |l: &str| l.replace("\\|", "").matches('|').count();
    let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert!(table.len() >= 4, "{md}");
    assert!(table.iter().all(|l| cells(l) == cells(table[0])), "{md}");
    assert_eq!(
        md.matches("Measured on ").count(),
        1,
        "the machine once: {md}"
    );
}

#[test]
fn a_working_set_step_is_refused_on_naive_or_with_a_cell_sweep() {
    let base = "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"x\"\n";
    let naive = format!("{base}settings = {{ strategy = \"naive\" }}\nworking_set_sweep = true\n");
    let e = parse(&naive).unwrap_err().to_string();
    assert!(e.starts_with("l.toml:7: working_set_sweep:"), "{e}");
    assert!(e.contains("square of the units"), "{e}");
    let both = format!(
        "{base}settings = {{ strategy = \"grid\" }}\nsweep = true\nworking_set_sweep = true\n"
    );
    let e = parse(&both).unwrap_err().to_string();
    assert!(e.starts_with("l.toml:8: working_set_sweep:"), "{e}");
    assert!(e.contains("make two steps"), "{e}");
    let ok = format!("{base}settings = {{ strategy = \"grid\" }}\nworking_set_sweep = true\n");
    let l = parse(&ok).unwrap();
    assert!(l.steps[0].working_set_sweep && !l.steps[0].sweep);
}

#[test]
fn a_working_set_step_is_one_variant_per_unit_count_of_its_span() {
    let text = "title = \"t\"\n[settings]\nstrategy = \"grid\"\nunits = 3000\n\
        [[steps]]\nid = \"row\"\ntitle = \"Row\"\ntext = \"{query_ms}\"\n\
        [[steps]]\nid = \"ws\"\ntitle = \"WS\"\nworking_set_sweep = true\ntext = \"{ws_rise}\"\n";
    let l = parse(text).unwrap();
    let options = LessonOptions {
        max_units: Some(4_000),
        ..Default::default()
    };
    let run = LessonRun::new(l, options);
    let span = run.span(1).expect("the sweep step has a span");
    assert!(run.span(0).is_none());
    assert!(span.units.len() >= 2 && *span.units.last().unwrap() == 4_000);
    let entries = run.plan_entries();
    assert_eq!(entries[0], (0, None));
    assert_eq!(entries.len(), 1 + span.units.len());
    let plan = run.plan();
    for (v, &(k, point)) in plan.variants().iter().zip(&entries) {
        let want = match point {
            Some(i) => span.units[i],
            None => run.settings(k).units,
        };
        assert_eq!(v.settings.units, want, "{}", v.label);
    }
    // The sweep sets the unit count: a different live count is no difference.
    let mut live = run.settings(1);
    live.units = 123;
    assert!(run.differences(1, &live).is_empty());
    assert_eq!(run.differences(0, &live), vec!["units"]);
}

#[test]
fn the_cache_model_is_modeled_only_where_a_text_quotes_it_and_its_geometry_is_the_files() {
    let l = bundled::get("layouts").unwrap().unwrap();
    assert_eq!(l.cache_model, Geometry::Machine);
    let run = LessonRun::new(
        l,
        LessonOptions {
            max_units: Some(2_000),
            ..Default::default()
        },
    );
    assert!(run.needs_model());
    assert_eq!(run.model_steps(), run.row_steps());
    assert!(run.tasks().iter().any(|t| matches!(t, Task::Model(_))));
    let plain = LessonRun::new(
        bundled::get("algorithms").unwrap().unwrap(),
        LessonOptions::default(),
    );
    assert!(!plain.needs_model() && plain.model_steps().is_empty());
    assert!(!plain.tasks().iter().any(|t| matches!(t, Task::Model(_))));

    let text = "title = \"t\"\ncache_model = \"classroom\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"{model_l1d_misses}\"\n";
    let l = parse(text).unwrap();
    assert_eq!(l.cache_model, Geometry::Classroom);
    let bad = text.replace("classroom", "laptop");
    let e = parse(&bad).unwrap_err().to_string();
    assert!(e.starts_with("l.toml:2: cache_model:"), "{e}");
    assert!(e.contains("one of machine, classroom"), "{e}");
    // Pending until modeled; then the model's counts.
    let mut run = LessonRun::new(l, LessonOptions::default());
    run.record(0, measured(&run, 0, 1.0));
    assert_eq!(plain_text(&run, 0), "\u{2026}");
    let m = crate::measure::memory::modeled::Modeled {
        geometry: Geometry::Classroom,
        misses: vec![12.5, 3.0, 1.0],
        ..Default::default()
    };
    run.record_model(0, m);
    assert_eq!(plain_text(&run, 0), "12.5");
}

fn plain_text(run: &LessonRun, k: usize) -> String {
    text::plain(&run.text(k))
}

/// Step `k` measured over one round per query time in `query_ms`.
fn measured_rounds(run: &LessonRun, k: usize, query_ms: &[f64]) -> StepResult {
    let rounds = query_ms
        .iter()
        .map(|&q| Round {
            median_ms: PhaseMs {
                query: q,
                ..Default::default()
            },
            ..Default::default()
        })
        .collect();
    let mut m = Measurement::from_rounds("x", run.settings(k), 3, rounds);
    m.allocations = None;
    m.cell_size = None;
    StepResult::Row(Outcome::Measured(m))
}

const PREDICTS: &str = r#"
title = "t"
[settings]
units = 3000
[[steps]]
id = "a"
title = "A"
settings = { strategy = "naive" }
predict = { question = "A's query time?", answer = "{query_ms}", unit = "ms" }
text = "a"
[[steps]]
id = "b"
title = "B"
predict = { question = "A's time over B's?", answer = "{a.query_ms / b.query_ms}", unit = "x" }
text = "b"
"#;

/// The words a reveal grades a guess with.
const GRADES: [&str; 4] = ["above", "below", "inside", "within 5%"];

/// Timings from fewer rounds than a verdict needs are shown but never
/// graded (no direction the rounds cannot support); enough rounds are
/// graded against their range.
#[test]
fn a_prediction_from_too_few_rounds_is_not_graded() {
    let mut run = LessonRun::new(parse(PREDICTS).unwrap(), LessonOptions::default());
    run.record(0, measured_rounds(&run, 0, &[58.0]));
    run.record(1, measured_rounds(&run, 1, &[2.0]));
    for k in 0..2 {
        let p = run.lesson().steps[k].predict.clone().unwrap();
        let Some(predict::Answer::Measured(m)) = run.answer(k) else {
            panic!("step {k}: {:?}", run.answer(k));
        };
        assert!(m.too_few, "step {k}: {m:?}");
        let said = p.reveal(Some(1.0), &predict::Answer::Measured(m));
        assert!(
            said.contains("too few to tell from noise, so not graded"),
            "{said}"
        );
        assert!(!GRADES.iter().any(|g| said.contains(g)), "{said}");
    }
    run.record(0, measured_rounds(&run, 0, &[58.0, 60.0, 59.0]));
    run.record(1, measured_rounds(&run, 1, &[2.0, 2.1, 1.9]));
    let p = run.lesson().steps[1].predict.clone().unwrap();
    let answer = run.answer(1).unwrap();
    let said = p.reveal(Some(2.0), &answer);
    assert!(
        said.starts_with(
            "you guessed 2x; measured 30x (28–32x): the measured range is above your guess"
        ),
        "{said}"
    );
    let p = run.lesson().steps[0].predict.clone().unwrap();
    let said = p.reveal(Some(59.5), &run.answer(0).unwrap());
    assert_eq!(
        said,
        "you guessed 59.5 ms; measured 59.0 ms (58.0–60.0): your guess is inside the measured range"
    );
}

/// A ratio whose denominator measured 0 (a clock too coarse for it) is
/// said to be incomparable, not "not measured".
#[test]
fn a_ratio_over_zero_is_incomparable() {
    let mut run = LessonRun::new(parse(PREDICTS).unwrap(), LessonOptions::default());
    run.record(0, measured_rounds(&run, 0, &[1.0, 1.0, 1.1]));
    run.record(1, measured_rounds(&run, 1, &[0.0, 0.0, 0.0]));
    assert_eq!(run.answer(1), Some(predict::Answer::Incomparable));
    let p = run.lesson().steps[1].predict.clone().unwrap();
    let said = p.reveal(Some(3.0), &predict::Answer::Incomparable);
    assert!(
        said.starts_with("you guessed 3x; no ratio here: "),
        "{said}"
    );
}

/// An embed's number: the step's query time over its rounds, pending
/// until measured; none for a step that cannot run here.
#[test]
fn the_query_time_is_pending_then_measured() {
    let mut run = LessonRun::new(parse(PREDICTS).unwrap(), LessonOptions::default());
    assert_eq!(run.query_time(0), Some(predict::Answer::Pending));
    run.record(0, measured_rounds(&run, 0, &[58.0, 60.0, 59.0]));
    match run.query_time(0) {
        Some(predict::Answer::Measured(m)) => assert_eq!(m.shown, "59.0 ms (58.0–60.0)"),
        other => panic!("{other:?}"),
    }
    assert_eq!(run.query_time(7), None);
    let Some(k) = Kernel::ALL.into_iter().find(|k| !k.is_available()) else {
        return; // a CPU with every kernel: no step that cannot run
    };
    let text = format!(
        "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\nsettings = {{ kernel = \"{}\", strategy = \"sorted-grid\" }}\ntext = \"x\"\n",
        k.key()
    );
    let run = LessonRun::new(parse(&text).unwrap(), LessonOptions::default());
    assert_eq!(run.query_time(0), None);
}

/// Every kind of bad `predict`: one line naming the file, the line and the
/// field as `predict.FIELD`, TOML's own errors inside the table too.
#[test]
fn bad_predictions_name_the_predict_field() {
    let lesson = |predict: &str| {
        format!(
            "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"x\"\n[[steps]]\nid = \"b\"\ntitle = \"B\"\ntext = \"y\"\npredict = {predict}\n"
        )
    };
    let cases = [
        (
            r#"{ questio = "q", answer = "{a.query_ms / b.query_ms}" }"#,
            "l.toml:10: predict.questio: unknown field `questio`",
        ),
        (
            r#"{ question = "q", answer = "{a.query_ms / b.query_ms}", choices = ["two", "four"] }"#,
            "l.toml:10: predict.choices: must be a list of 2 to 8 numbers",
        ),
        (
            r#"{ question = "q", answer = "{a.query_ms / b.candidates_per_unit}" }"#,
            "l.toml:10: predict.answer: {a.query_ms / b.candidates_per_unit}: a ratio compares like with like",
        ),
        (
            r#"{ question = "q", answer = "{b.query_ms / b.query_ms}" }"#,
            "l.toml:10: predict.answer: {b.query_ms / b.query_ms}: a metric over itself is always 1",
        ),
        (
            r#"{ question = "q", answer = "{a.query_ms / b.query_ms}", unit = "ms" }"#,
            "l.toml:10: predict.unit: a ratio's unit is \"x\" (or none), got \"ms\"",
        ),
        (
            r#"{ question = "q", answer = "{verdict(a.query_ms, b.query_ms)}" }"#,
            "l.toml:10: predict.answer: {verdict(a.query_ms, b.query_ms)}: an answer is one metric or the ratio of two; verdict(...)",
        ),
        (
            r#"{ question = "q", answer = "{a.nope / b.query_ms}" }"#,
            "l.toml:10: predict.answer: {a.nope / b.query_ms}: \"nope\" is not a metric",
        ),
        (
            r#"{ question = "q", answer = "{a.query_ms / b.query_ms}", choices = [2] }"#,
            "l.toml:10: predict.choices: give from 2 to 8 numbers",
        ),
    ];
    for (predict, want) in cases {
        let text = lesson(predict);
        let e = parse(&text).expect_err(&text).to_string();
        assert!(e.starts_with(want), "{predict}\ngot:  {e}\nwant: {want}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // The same metric of two steps, or a count over a count, is a ratio.
    for ok in [
        r#"{ question = "q", answer = "{a.query_ms / b.query_ms}", unit = "x" }"#,
        r#"{ question = "q", answer = "{a.candidates / b.neighbors}" }"#,
    ] {
        parse(&lesson(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}
