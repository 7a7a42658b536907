//! `spatial-query-lab lesson [NAME|FILE]`: a lesson run headless through
//! the measurement engine (each step on a fresh simulation, as `bench`),
//! printing each step's text with this machine's numbers as soon as the
//! step is measured, then the lesson's table.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;

use spatial_query_lab::lesson::run::run_all;
use spatial_query_lab::lesson::text::plain;
use spatial_query_lab::lesson::{bundled, Lesson, LessonOptions, LessonRun, StepResult};
use spatial_query_lab::machine::Machine;
use spatial_query_lab::measure::compare::SweepCurve;
use spatial_query_lab::measure::{Outcome, Row};

use super::{LessonArgs, TableFormat};

/// Runs `lesson` with the flags `a`; returns the exit code (2 for a lesson
/// that cannot be found or read, with one line saying why).
pub(crate) fn run(a: LessonArgs) -> ExitCode {
    let Some(which) = a.lesson else {
        println!("Bundled lessons (spatial-query-lab lesson NAME), in teaching order:");
        for l in bundled::all().unwrap_or_default() {
            println!("  {:<13} {}", l.name, l.title);
        }
        println!("A lesson file of your own: spatial-query-lab lesson FILE.toml (copy one from assets/lessons/).");
        return ExitCode::SUCCESS;
    };
    let lesson = match load(&which) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: lesson: {e}");
            return ExitCode::from(2);
        }
    };
    let machine = Machine::current();
    let _ = writeln!(std::io::stderr(), "lesson: machine: {}", machine.summary());
    let options = LessonOptions {
        max_units: a.max_units,
        frames: a.frames,
    };
    let mut run = LessonRun::new(lesson, options);
    if let Some(c) = run.unit_choice() {
        let _ = writeln!(std::io::stderr(), "lesson: {}", c.why);
    }
    let md = a.format == TableFormat::Md;
    if md {
        let l = run.lesson();
        println!(
            "# {}\n\n{}\n\nMeasured on {}.\n",
            l.title,
            l.summary,
            machine.summary()
        );
    }
    let n = run.len();
    run_all(&mut run, |k, run| {
        let step = run.step(k);
        let text = plain(&run.text(k));
        let skipped = skipped_reason(run, k);
        if md {
            println!("## {}. {}\n\n{}\n", k + 1, step.title, text);
            if let Some(why) = &skipped {
                println!("*Not measured: {why}.*\n");
            }
            let _ = std::io::stdout().flush();
        }
        let _ = writeln!(
            std::io::stderr(),
            "  step {}/{n} {}: {}",
            k + 1,
            step.id,
            skipped.map_or_else(|| "measured".to_string(), |w| format!("not measured: {w}"))
        );
        if !md {
            let _ = writeln!(std::io::stderr(), "    {text}");
        }
    });
    let conclusion = plain(&run.conclusion());
    match a.format {
        TableFormat::Md => {
            println!("## What it showed\n\n{conclusion}\n");
            print!("{}", run.comparison().to_markdown(machine));
        }
        TableFormat::Csv => {
            let _ = writeln!(std::io::stderr(), "    {conclusion}");
            print!("{}", run.comparison().to_csv());
        }
        TableFormat::Json => match to_json(&run, &conclusion) {
            Ok(j) => println!("{j}"),
            Err(e) => {
                eprintln!("error: lesson: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    ExitCode::SUCCESS
}

/// A bundled lesson by name, or a file: a name with a `/`, ending in
/// `.toml` or naming an existing file is a file.
fn load(which: &str) -> Result<Lesson, String> {
    let path = Path::new(which);
    let is_file = which.ends_with(".toml") || which.contains('/') || path.is_file();
    if is_file {
        return Lesson::load(path).map_err(|e| e.to_string());
    }
    match bundled::get(which) {
        Some(r) => r.map_err(|e| e.to_string()),
        None => {
            let names: Vec<&str> = bundled::names().collect();
            Err(format!(
                "no bundled lesson \"{which}\"; one of {}, or a FILE.toml",
                names.join(", ")
            ))
        }
    }
}

/// Why step `k` has no measurement, if it has none.
fn skipped_reason(run: &LessonRun, k: usize) -> Option<String> {
    match run.result(k)? {
        StepResult::Row(Outcome::Skipped(s)) => Some(s.why.clone()),
        StepResult::Sweep(sw) if sw.points().is_empty() => {
            Some("the sweep measured no cell size".to_string())
        }
        _ => None,
    }
}

/// The JSON document: the lesson, the machine, the unit choice, each
/// step's text and row ([`Row`], `bench`'s keys; a sweep step's fastest
/// cell size), the conclusion and the sweep curves.
fn to_json(run: &LessonRun, conclusion: &str) -> Result<String, String> {
    #[derive(Serialize)]
    struct StepDoc {
        id: String,
        title: String,
        text: String,
        row: Option<usize>,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        lesson: &'a str,
        title: &'a str,
        machine: &'a Machine,
        units_chosen: Option<usize>,
        units_why: Option<&'a str>,
        steps: Vec<StepDoc>,
        conclusion: &'a str,
        rows: Vec<Row>,
        sweeps: Vec<SweepCurve>,
    }
    let mut rows = Vec::new();
    let mut steps = Vec::new();
    for k in 0..run.len() {
        let step = run.step(k);
        let row = run.result(k).and_then(StepResult::outcome).map(|o| {
            let mut r = Row::of(&o);
            r.label.clone_from(&step.title);
            rows.push(r);
            rows.len() - 1
        });
        steps.push(StepDoc {
            id: step.id.clone(),
            title: step.title.clone(),
            text: plain(&run.text(k)),
            row,
        });
    }
    let c = run.comparison();
    let doc = Doc {
        lesson: &run.lesson().name,
        title: &run.lesson().title,
        machine: Machine::current(),
        units_chosen: run.unit_choice().map(|c| c.units),
        units_why: run.unit_choice().map(|c| c.why.as_str()),
        steps,
        conclusion,
        rows,
        sweeps: c.curves().to_vec(),
    };
    serde_json::to_string_pretty(&doc)
        .map_err(|e| format!("could not encode the lesson as JSON: {e}"))
}
